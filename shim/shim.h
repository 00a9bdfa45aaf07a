/*
 * shim.h - what the three rooms of libenvshim.so share: the state the
 * constructor fills (ctor.c), the launch planning the hooks use
 * (launch.c), and the hooks themselves (interpose.c, which owns the one
 * state object).  Nothing here is exported from the library.
 */
#ifndef ES_SHIM_H
#define ES_SHIM_H

#include <sys/types.h>

#include <signal.h>
#include <spawn.h>
#include <stdio.h>

#include "es_exec.h"
#include "es_policy.h"

#define ES_STACK_ARENA	24576	/* filter + argv + log line for a usual env */
#define ES_MAX_POPEN	64	/* popen streams open at once */
#define ES_NFORCED	7	/* LD_PRELOAD and the ENVSHIM_* a child inherits */

/* What each string of the state may hold, with its NUL. */
#define ES_CAP_PRELOAD	(ES_PATH_MAX + 16)		/* LD_PRELOAD=... */
#define ES_CAP_AGENT	80				/* ENVSHIM_AGENT=d:i:s, 3x20 digits */
#define ES_CAP_NS	64				/* ENVSHIM_SANDBOX_NS=... */
#define ES_CAP_WS	(ES_PATH_MAX + 32)		/* ENVSHIM_WORKSPACE=... */
#define ES_CAP_LAUNCH	(ES_SNAPSHOT_MAX * 34 + 32)	/* ENVSHIM_LAUNCH=... */
#define ES_CAP_CONFIG	(ES_POLICY_TEXT_MAX + 32)	/* ENVSHIM_CONFIG=... */
/* Room for all of them at their largest, the helper and the log path. */
#define ES_SHIM_TEXT	(1 + ES_CAP_PRELOAD + 2 * ES_PATH_MAX + ES_CAP_AGENT + \
			 ES_CAP_NS + ES_CAP_WS + ES_CAP_LAUNCH + ES_CAP_CONFIG)

/* Contain mode's launch state: present only in the agent's namespace. */
#define ES_CONTAIN_NAME	"envshim/contain"
#define ES_CONTAIN_FILE	"/etc/" ES_CONTAIN_NAME
#define ES_CONTAIN_MAX	(ES_POLICY_TEXT_MAX + ES_SNAPSHOT_MAX * 34 + 2 * ES_PATH_MAX + 256)

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
	int			 self_launcher;	/* the agent, as a shell or env... */
	pid_t			 self_pid;	/* ...when getpid() is still this */
	long			 sandbox_pid;	/* inside: the sandboxed launch's pid outside */
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
	const char		*quiet[ES_NFORCED + 3];	/* forced, and the */
						/* root's own ENVSHIM_POLICY/MODE */
	char			 why[320];
	/* Each "" until set once; all point into text. */
	char			*helper;	/* next to the shim: es_helper */
	char			*log_path;
	char			*e_preload;
	char			*e_agent;
	char			*e_ns;
	char			*e_ws;
	char			*e_launch;
	char			*e_config;
	size_t			 text_used;
	struct es_policy	 pol;
	struct es_snapshot	 snap;
	char			 text[ES_SHIM_TEXT];
	struct {
		FILE	*f;		/* published last */
		pid_t	 pid;		/* 0 free, -1 claimed */
	} popen[ES_MAX_POPEN];
};

enum es_launch_action { ES_A_RUN, ES_A_SANDBOX, ES_A_REFUSE };

/* What es_judge found out about a file about to be executed. */
struct es_target {
	int		 found;		/* the file could be stat'ed */
	int		 err;		/* else: why not (errno) */
	int		 shell;
	int		 unfollow;	/* static, setuid/setgid, caps, foreign */
	int		 agent;		/* the agent's own executable */
	int		 other;		/* neither ELF nor "#!": ENOEXEC */
	const char	*unfollow_why;
	dev_t		 dev;		/* the file, as the agent's identity */
	ino_t		 ino;
	unsigned long long script;	/* es_agent_script */
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
	const char		*why;
	void			*map;
	size_t			 maplen;
	char			 stack[ES_STACK_ARENA];
};

/* ---- ctor.c: runs once, before any hook; may allocate and read files ---- */

/* Fills everything but the real_* pointers; never fails (s->broken says). */
void	es_shim_init(struct es_shim *, char **argv);

/* ---- root.c: the launch root's state; also used by `envshim --contain` ---- */

/* Appends s to dst (cap bytes); returns 0, or -1 when it would not fit.  AS-safe. */
int	 es_cat(char *dst, size_t cap, const char *s);
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
 * workspace (the working directory).  Fills pol, snap, log_path and the
 * e_config, e_launch, e_agent and e_ws entries.  Never fails: s->broken says.
 */
void	 es_root_init(struct es_shim *, const char *policyfile, const char *mode,
	    char *const *envp, const char *exe, char *const *argv);

/* ---- launch.c: all async-signal-safe ---- */

unsigned long long es_agent_script(const char *exe, char *const *argv);
/* "ENVSHIM_AGENT=dev:ino:script" into buf (ES_AGENT_VAR bytes). */
char	*es_agent_var(char *buf, dev_t, ino_t, unsigned long long script);
/* The value of name in a NULL-terminated "NAME=VALUE" list, or NULL. */
const char *es_env_value(char *const *envp, const char *name);
char	*es_fd_path(char *buf, int fd);
void	 es_say_refused(const char *path, const char *why);
const char *es_caller_path(void);
int	 es_join(char *buf, size_t cap, const char *dir, size_t dlen, const char *file);
void	 es_judge(const struct es_shim *, int dirfd, const char *path, int fd,
	    int nofollow, char *const *argv, struct es_target *);
int	 es_decide(const struct es_shim *, const struct es_target *, const char **why);
/* The sandbox helper to run now, or NULL when none is installed. */
const char *es_helper(const struct es_shim *);
const char *es_precheck(const struct es_shim *, char *const *argv);
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
