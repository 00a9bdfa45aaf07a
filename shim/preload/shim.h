/*
 * shim.h - what the files of libenvshim.so share beyond the launch
 * root's state (es_root.h): the launch planning the hooks use (launch.c)
 * and the constructor (ctor.c).  interpose.c owns the one state object.
 * Nothing here is exported from the library.
 */
#ifndef ES_SHIM_H
#define ES_SHIM_H

#include "es_root.h"

#define ES_STACK_ARENA	24576	/* filter + argv + log line for a usual env */

enum es_launch_action { ES_A_RUN, ES_A_SANDBOX, ES_A_REFUSE };

/* What es_judge found out about a file about to be executed. */
struct es_target {
	int		 found;		/* the file could be stat'ed */
	int		 err;		/* else: why not (errno) */
	int		 shell;
	int		 unfollow;	/* static, setuid/setgid, caps, foreign */
	int		 agent;		/* the agent launches the agent: keeps its secrets */
	int		 agent_file;	/* the file is the agent's, whoever launches it */
	int		 handed;	/* ... another file than the root's: handed_to */
	int		 other;		/* neither ELF nor "#!": ENOEXEC */
	int		 special;	/* not a regular file: the kernel refuses it */
	const char	*unfollow_why;
	dev_t		 dev;		/* the file, as the agent's identity */
	ino_t		 ino;
	unsigned long long script;	/* es_agent_script */
	char		 handed_to[ES_PATH_MAX];	/* the install's file: real path */
};

/* One launch: the filtered environment and argv, in one arena. */
struct es_plan {
	const char		*hook;
	const char		*path;		/* for the log and messages */
	const char		*target;	/* what is executed */
	char *const		*in;		/* the caller's envp */
	size_t			 n;
	const char		**envp;		/* filtered */
	char			**argv;		/* as executed */
	struct es_verdict	*v;
	const char		*helper;	/* target is this helper */
	char			*logbuf;
	int			 action, agent;
	const char		*agent_var;	/* replaces ENVSHIM_AGENT, or NULL */
	int			 program;	/* 1 + the program rule this launch */
						/* matched (es_program_for), or 0 */
	int			 withhold;	/* ... or runs under, but runs what a */
						/* sandboxed command could have */
						/* written: the rule's names go */
	int			 cwd_unknown;	/* a spawn's file actions may move it */
	const char		*handover;	/* the agent handed to this file, or NULL */
	const char		*why;
	void			*map;
	size_t			 maplen;
	char			 stack[ES_STACK_ARENA];
	char			 mark[ES_CAP_PROGRAM];	/* when program: the */
						/* ENVSHIM_PROGRAM entry it gets */
};

/* ---- ctor.c: runs once, before any hook; may allocate and read files ---- */

/* Fills everything but the real_* pointers; never fails (s->broken says). */
void	es_shim_init(struct es_shim *, char **argv);

/* ---- launch.c: all async-signal-safe ---- */

/* The value of name in a NULL-terminated "NAME=VALUE" list, or NULL. */
const char *es_env_value(char *const *envp, const char *name);
void	 es_say_refused(const char *path, const char *why);
const char *es_caller_path(void);
int	 es_join(char *buf, size_t cap, const char *dir, size_t dlen, const char *file);
void	 es_judge(const struct es_shim *, int dirfd, const char *path, int fd,
	    int nofollow, char *const *argv, struct es_target *);
int	 es_decide(const struct es_shim *, const struct es_target *, int program,
	    const char **why);
/* The sandbox helper to run now, or NULL when none is installed. */
const char *es_helper(const struct es_shim *);
const char *es_precheck(const struct es_shim *, char *const *argv);
/*
 * 1 + the program rule a launch by the agent itself of path (judged t)
 * matches, or 0.  Only the agent, outside the sandbox, matches; never a
 * shell, nor the agent's own executable.  *withhold: the launch runs a
 * file a sandboxed command could have written (es_planted), and gets
 * none of the rule's names.  cwd_unknown: relative paths name files this
 * process cannot judge.
 */
int	 es_program_for(const struct es_shim *, const struct es_target *,
	    const char *path, char *const *argv, int cwd_unknown, int *withhold);
/*
 * Could a sandboxed command have written the file path names, or changed
 * which file it names?  Inside the sandbox: anything not on a read-only
 * mount; outside: the places the helper binds writable, the sessions
 * and the kept layers.  Fails closed (1).
 */
int	 es_planted(const struct es_shim *, const char *path, int cwd_unknown);
/* Clears all but the stack arena, which es_plan_make carves before use. */
void	 es_plan_init(struct es_plan *, const char *hook, const char *path,
	    const char *target, char *const *in);
int	 es_plan_make(const struct es_shim *, struct es_plan *, char *const *argv,
	    const char *pre);
void	 es_plan_release(struct es_plan *);
/*
 * pid: the launched program's (0: never started) under this process, or
 * ES_PID_SELF when it replaces this process.  Asked only when a record is
 * made: under `log off` a launch costs no getpid or getppid.
 */
#define ES_PID_SELF	(-1L)
void	 es_plan_log(const struct es_shim *, const struct es_plan *, long pid,
	    char *const *argv);
void	 es_log_refusal(const struct es_shim *, const char *hook, const char *path,
	    char *const *argv, const char *why, long pid);

#endif
