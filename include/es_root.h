/*
 * es_root.h - the launch root's state: what the preloaded library's
 * constructor fills in every process, and what `envshim --contain`
 * computes for an agent the library cannot enter (root.c in
 * shim/preload/), with the async-signal-safe pieces both use.
 */
#ifndef ES_ROOT_H
#define ES_ROOT_H

#include <sys/types.h>

#include <signal.h>
#include <spawn.h>
#include <stdio.h>

#include "es_exec.h"
#include "es_policy.h"

#define ES_MAX_POPEN	64	/* popen streams open at once */
#define ES_NFORCED	10	/* LD_PRELOAD and the ENVSHIM_* a child inherits */

/* What each string of the state may hold, with its NUL. */
#define ES_CAP_PRELOAD	(ES_PATH_MAX + 16)		/* LD_PRELOAD=... */
#define ES_CAP_AGENT	88				/* ENVSHIM_AGENT=d:i:s:h, 3x20 digits */
#define ES_CAP_TREE	(ES_TREE_MAX * ES_PATH_MAX + 32)	/* ENVSHIM_AGENT_TREE=a:b */
#define ES_CAP_NS	128				/* ENVSHIM_SANDBOX_NS=u:m:p:ino */
#define ES_CAP_WS	(ES_PATH_MAX + 32)		/* ENVSHIM_WORKSPACE=... */
#define ES_CAP_LAUNCH	(ES_SNAPSHOT_MAX * 34 + 32)	/* ENVSHIM_LAUNCH=... */
#define ES_CAP_CONFIG	(ES_POLICY_TEXT_MAX + 32)	/* ENVSHIM_CONFIG=... */
#define ES_CAP_PROGRAM	(ES_PATH_MAX + 64)		/* ENVSHIM_PROGRAM=i:file:line */
#define ES_CAP_SESSION	(ES_PATH_MAX + 32)		/* ENVSHIM_SESSION=... */
/*
 * Room for all of them at their largest, the helper, the log path, and
 * the home and kept layers' directory (what a program rule checks).
 */
#define ES_SHIM_TEXT	(1 + ES_CAP_PRELOAD + 4 * ES_PATH_MAX + 2 * ES_CAP_AGENT + \
			 ES_CAP_TREE + ES_CAP_NS + ES_CAP_WS + ES_CAP_LAUNCH + \
			 ES_CAP_CONFIG + ES_CAP_PROGRAM + ES_CAP_SESSION)

/* Contain mode's launch state: present only in the agent's namespace. */
#define ES_CONTAIN_NAME	"envshim/contain"
#define ES_CONTAIN_FILE	"/etc/" ES_CONTAIN_NAME
#define ES_CONTAIN_MAX	(ES_POLICY_TEXT_MAX + ES_SNAPSHOT_MAX * 34 + 2 * ES_PATH_MAX + \
			 ES_CAP_TREE + 256)

typedef int (*es_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*es_execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*es_fexecve_fn)(int, char *const[], char *const[]);
typedef int (*es_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*es_pidfd_spawn_fn)(int *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*es_pclose_fn)(FILE *);
typedef long (*es_syscall_fn)(long, ...);

/*
 * Written by the constructor, then only read (but for the popen table).
 * What a child writes is packed: the strings share text (es_text_put),
 * since a 4 KiB array per string cost a page fault each.  The policy's
 * head, which es_policy_init clears, follows the small fields on their
 * page, and its last field shares one with the snapshot.
 */
struct es_shim {
	volatile sig_atomic_t	 ready;
	int			 broken;	/* refuse every launch: why[] */
	int			 inside;	/* in the sandbox (namespace-proven) */
	int			 have_agent;
	dev_t			 agent_dev;
	ino_t			 agent_ino;
	unsigned long long	 agent_script;	/* es_agent_script of the root */
	int			 is_agent;	/* this process is the agent: it */
						/* alone matches program rules */
	int			 handed;	/* its parent said so (ENVSHIM_AGENT's 4th field) */
	int			 contain;	/* contain mode: ES_CONTAIN_FILE is there */
	size_t			 ntree;		/* the agent's install: es_agent_install */
	const char		*tree[ES_TREE_MAX];
	size_t			 tree_len[ES_TREE_MAX];
	int			 self_launcher;	/* the agent, as a shell or env... */
	pid_t			 self_pid;	/* ...when getpid() is still this */
	long			 sandbox_pid;	/* inside: the sandboxed launch's pid outside */
	unsigned long long	 log_sock;	/* inside: ES_LOG_SOCK's inode, */
						/* the outer's (0: none) */
	int			 program;	/* 1 + the program rule this */
						/* process runs under; 0 none */
	const char		*program_rule;	/* its "file:line", from the mark */
	/*
	 * The agent's environment as it started, by es_hash of each entry:
	 * what "lost" compares with when a child's environment block has
	 * become environ itself (libuv sets environ, then calls execvp).
	 * own_full: more entries than ES_OWN_MAX, so every entry counts as own.
	 */
	size_t			 nown;
	int			 own_full;
	uint64_t		 own[ES_OWN_MAX];
	const char		*ldso;		/* the ld.so that loaded us: a */
						/* target naming another loader */
						/* is unfollowable */
	es_execve_fn		 real_execve;
	es_execveat_fn		 real_execveat;
	es_fexecve_fn		 real_fexecve;
	es_spawn_fn		 real_posix_spawn;
	es_pidfd_spawn_fn	 real_pidfd_spawn;
	es_pclose_fn		 real_pclose;
	es_syscall_fn		 real_syscall;
	const char		*forced[ES_NFORCED + 1];
	const char		*quiet[ES_NFORCED + 4];	/* forced, the marked */
						/* agent entry, and the */
						/* root's own ENVSHIM_POLICY/MODE */
	char			 why[320];
	/* Each "" until set once; all point into text. */
	char			*helper;	/* next to the shim: es_helper */
	char			*log_path;
	char			*home;		/* $HOME at load; "" unknown */
	char			*layers;	/* the kept layers (es_layer_dir) */
	char			*sessions;	/* the sessions' base (es_session_base) */
	char			*e_preload;
	char			*e_agent;
	char			*e_agent_self;	/* e_agent marked: "you are the agent" */
	char			*e_tree;
	char			*e_ns;
	char			*e_ws;
	char			*e_launch;
	char			*e_config;
	char			*e_program;	/* the mark: ENVSHIM_PROGRAM=... */
	char			*e_session;	/* ENVSHIM_SESSION=dir, or "" */
	size_t			 text_used;
	struct es_policy	 pol;
	struct es_snapshot	 snap;
	char			 text[ES_SHIM_TEXT];
	struct {
		FILE	*f;		/* published last */
		pid_t	 pid;		/* 0 free, -1 claimed */
	} popen[ES_MAX_POPEN];
};

/* ---- root.c: the launch root's state; also used by `envshim --contain` ---- */

/* Sets s->broken with the reason a then b (b may be NULL). */
void	 es_broken(struct es_shim *, const char *a, const char *b);
/* Points every string of the state that is not set yet at "". */
void	 es_text_init(struct es_shim *);
/*
 * Copies "NAME=VALUE" (VALUE alone when name is NULL) into the state's
 * text; returns the copy, or NULL when it needs more than cap bytes.
 */
char	*es_text_put(struct es_shim *, size_t cap, const char *name,
	    const char *value);
/* Where a string of at most cap bytes can be built in place. */
char	*es_text_room(struct es_shim *, size_t cap, size_t *room);
/* Keeps the len bytes (and a NUL) built at es_text_room; returns them. */
char	*es_text_keep(struct es_shim *, size_t len);
/*
 * The launch root's work: policy layers (policyfile may be NULL), mode
 * ("audit", "enforce" or NULL), the snapshot of envp, the agent (dev:ino
 * of exe, and its script when exe is an interpreter: argv), the
 * workspace (the working directory), and, when shells go to the sandbox,
 * the session (es_session.h), whose tmp/ becomes this process's TMPDIR.
 * Fills pol, snap, log_path and the e_config, e_launch, e_agent, e_ws
 * and e_session entries.  Never fails: s->broken says.
 */
void	 es_root_init(struct es_shim *, const char *policyfile, const char *mode,
	    char *const *envp, const char *exe, char *const *argv);
/*
 * The agent's install, from the file the agent is (its script, or its
 * executable): the npm package that file belongs to (the nearest
 * package.json above it, in node_modules/[@scope/]NAME) and the packages
 * that package.json lists under optionalDependencies, found as node
 * finds them - where npm puts an agent's native binary.  Real paths, at
 * most ES_TREE_MAX, none in the workspace ws nor holding it (a file a
 * sandboxed command can write is never the agent).  Returns how many.
 */
int	 es_agent_install(const char *file, const char *ws, char roots[][ES_PATH_MAX]);
/* Points s->tree at the ':'-separated directories of value; 0, or -1. */
int	 es_tree_parse(struct es_shim *, const char *value);

/*
 * Can the records of a run under policy p be kept: its log file (made
 * if missing, es_log_create, its path into path; "" for syslog, stderr,
 * off) opened for appending, or syslog's socket connected.  0, or -1 with
 * why (the cause) and fix (what to do) in words.
 */
int	 es_log_ready(const struct es_policy *p, const char *home, char *path,
	    size_t len, char *why, size_t wlen, char *fix, size_t flen);

/*
 * The end of the process the session was made for (the launch root, or
 * what it became by an exec in place) removes the session: ctor.c.
 */
void	 es_shim_end(struct es_shim *);

/* ---- launch.c: async-signal-safe, shared with root.c and the command ---- */

/* Appends s to dst (cap bytes); returns 0, or -1 when it would not fit. */
int	 es_cat(char *dst, size_t cap, const char *s);
/* What identifies the script an interpreter runs (argv), or 0. */
unsigned long long es_agent_script(const char *exe, char *const *argv);
/* That script's argument: the first non-option one (NULL: none, not an interpreter). */
const char *es_agent_script_arg(const char *exe, char *const *argv);
/*
 * "ENVSHIM_AGENT=dev:ino:script[:1]" into buf (ES_CAP_AGENT bytes); the
 * ":1" (self) tells the launched program it is the agent.
 */
char	*es_agent_var(char *buf, dev_t, ino_t, unsigned long long script, int self);
/* Is the real path real in the agent's install (s->tree)? */
int	 es_in_install(const struct es_shim *, const char *real);
/* es_sniff of an open file, reading as far as its ELF headers lie. */
ssize_t	 es_sniff_fd(int fd, unsigned char head[ES_SNIFF_HEAD], struct es_sniff *);
/* "/proc/self/fd/N" for fd, into buf. */
char	*es_fd_path(char *buf, int fd);

#endif
