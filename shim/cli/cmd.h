/*
 * cmd.h - what the envshim command's files share.  Not part of the shim.
 */
#ifndef ES_CMD_H
#define ES_CMD_H

#include <signal.h>
#include <stdio.h>

#include "es_exec.h"
#include "es_limits.h"
#include "es_policy.h"

/* Exit statuses of the run mode, as env(1) and tini use them. */
#define ES_EXIT_FAIL	125	/* envshim's own failure */
#define ES_EXIT_NOEXEC	126	/* found but cannot be executed */
#define ES_EXIT_NOTFOUND 127	/* not found */

/* The policy file the user named: opt, else $ENVSHIM_POLICY, else NULL. */
const char	*es_cmd_policy_file(const char *opt);

/* Where execvp would find name: the first executable regular file. */
int		 es_cmd_resolve(const char *name, char *buf, size_t len);

/*
 * A "#!/usr/bin/env NAME [ARG...]" COMMAND, run the way env would run it:
 * argv holds NAME's words then NULL, interp where NAME resolves on PATH.
 */
struct es_cmd_hop {
	char	 interp[ES_PATH_MAX];
	char	 words[ES_SHEBANG_MAX];		/* argv's strings */
	char	*argv[ES_SHEBANG_MAX / 2 + 1];
	size_t	 argc;
};

/*
 * Fills hop when exe is such a script and returns 1; 0 when it is not,
 * or its line needs env itself (assignments, options but -S, quoting).
 */
int		 es_cmd_env_hop(const char *exe, struct es_cmd_hop *hop);

/*
 * The words a program rule would name a launch by (path, argv's leading
 * words): the file's name, and for an interpreter or package runner its
 * arguments up to the first that is no option ("npx -y @scope/server",
 * "node /srv/server.js").  Into out, space-separated.
 */
void		 es_cmd_program_words(const char *path, char *const *argv,
		    size_t argc, char *out, size_t len);

/*
 * What the agent's launches recorded in the log file path from byte from
 * on lost that the agent had set for them: one line a program, with the
 * program rule that would let it through, to out (log.c).
 */
void		 es_cmd_lost_report(const char *path, long long from, FILE *out);

/*
 * Forks the guard between envshim and the agent (guard.c), which forks
 * the agent: returns the guard's pid in the caller (-1 when it could not
 * fork), 0 in the agent, whose signal mask is old again; the guard
 * itself never returns.  protect: the guard is undumpable too.
 */
pid_t		 es_cmd_guard(int protect, const sigset_t *old);

/* Loads the launch root's layers; on error prints "envshim: ..." and NULL. */
struct es_policy *es_cmd_load(const char *userfile);

/*
 * After a usage error getopt has named: where to read more, one line
 * ("Try 'prog --help' ..."), not the whole usage.  Returns ES_EXIT_FAIL.
 */
int		 es_cmd_try(const char *prog);

/* Should stdout get colour: a terminal, and NO_COLOR unset or empty. */
int		 es_cmd_colour(FILE *);

/* name (n bytes) with control and non-ASCII bytes as \xNN, and \ as \\. */
void		 es_cmd_putname(FILE *, const char *name, size_t n);

/* name (n bytes) as a JSON string, quotes included. */
void		 es_cmd_putjson(FILE *, const char *s, size_t n);

/*
 * envshim --contain: runs cmd (exe: where execvp finds it) with the shim
 * loaded through /etc/ld.so.preload in a namespace of its own
 * (contain.c).  Returns only on failure, with an exit status.
 */
int		 es_contain_run(char **cmd, const char *exe, const char *shim,
		    const char *policy, int audit);
/*
 * Does the agent cmd (exe: where execvp finds it) hand itself over to a
 * static program of its install - a platform package its package.json
 * lists (Codex's musl binary)?  Then the shim cannot follow it there and
 * only contain mode works: 1, with the first such program in prog.
 */
int		 es_contain_needed(char **cmd, const char *exe, char *prog,
		    size_t len);

int		 es_cmd_check(int, char **);
int		 es_cmd_policy(int, char **);
int		 es_cmd_log(int, char **);
int		 es_cmd_doctor(int, char **);
int		 es_cmd_session(int, char **);

#endif
