/*
 * sbx.h - what the envshim-sandbox helper's files share.  Not part of the
 * shim, nor of the command.
 *
 * The outer (outer.c) fills a struct es_sbx_plan (plan.c) and
 * clones; init (init.c, mount.c) only reads it.  Everything init
 * reaches MUST stay async-signal-safe: no malloc, stdio or lookups.
 */
#ifndef ES_SBX_H
#define ES_SBX_H

#include <sys/ioctl.h>
#include <sys/types.h>
#include <signal.h>
#include <termios.h>

#include "es_limits.h"
#include "es_policy.h"

#define ES_SBX_EXIT	125	/* envshim's own failure, never the command's */

typedef int (*es_execve_fn)(const char *, char *const[], char *const[]);

/* The steps init takes; the outer names the failing one (outer.c). */
enum es_sbx_step {
	ES_S_MAP_UID, ES_S_SETGROUPS, ES_S_MAP_GID, ES_S_SETUID, ES_S_ROOT_RO,
	ES_S_BIND,
	ES_S_WRITABLE, ES_S_TMP, ES_S_DEV, ES_S_DEVNODE, ES_S_PTS, ES_S_SHM,
	ES_S_HIDE, ES_S_HOME, ES_S_MASK, ES_S_RO_OPEN, ES_S_RO_LINK,
	ES_S_RO_PIN, ES_S_RO,
	ES_S_PROC, ES_S_PROC_COVER, ES_S_CHDIR, ES_S_NSID, ES_S_CAPS, ES_S_SETSID,
	ES_S_KEYRING, ES_S_SECCOMP, ES_S_LANDLOCK, ES_S_PDEATHSIG, ES_S_PARENT,
	ES_S_TTY, ES_S_FORK, ES_S_EXEC
};

/* What init tells the outer, one write each. */
enum es_sbx_msg_kind { ES_M_FAIL = 1, ES_M_STATUS, ES_M_READY };
struct es_sbx_msg {
	int	kind;
	int	step;		/* enum es_sbx_step */
	int	err;		/* errno */
	int	item;		/* index into plan.mnt, or -1 */
	int	status;		/* wait status of the command */
	unsigned long long dev;	/* READY: the keeper's placeholders' device */
};

/* One mount init makes; the outer decided its kind. */
enum es_sbx_mnt_kind {
	ES_MK_RW, ES_MK_HIDE_DIR, ES_MK_HIDE_FILE, ES_MK_RO, ES_MK_KEEP,
	ES_MK_HOME,	/* home private: an empty tmpfs over the home */
	ES_MK_BACK,	/* home private: a path bound back into it, read-only */
	ES_MK_CACHE,	/* no home layer: src bound writable at path */
	ES_MK_PRIV,	/* a hidden directory with a kept path bound back */
	ES_MK_NONE	/* planned, then given up: a kept capability's */
};
struct es_sbx_mnt {
	int		 kind;
	int		 host_ro;	/* RW: already read-only on the host */
	int		 mkdir;		/* RO: a missing last directory is made */
	const char	*path;		/* absolute; RO: in the workspace */
	const char	*src;		/* CACHE: its directory in the layer */
	const char	*stub;		/* HIDE_FILE: the placeholder's text, or NULL */
	int		 tree;		/* idmap: its idmapped copy, fd + 1 */
	const char	*at;		/* HIDE: where mounted (canon_hide) */
};

/* Where a mount goes: a hidden path at its path without a link. */
#define ES_MNT_AT(m)	((m)->at != NULL ? (m)->at : (m)->path)

/*
 * The home's mask (plan.c, plan_mask; mount.c, home_mask): two small
 * lower layers between the home's layer and the real home, rebuilt with
 * each view, so a hidden path is hidden whatever appears below it later.
 * Layer A holds empty files and directories, layer B whiteouts: a
 * directory in A above a whiteout in B shows A's (empty) directory and
 * nothing of the real one.  On a tmpfs init mounts on /dev while it
 * mounts the overlay.
 */
#define ES_SBX_MASK	"/dev"
#define ES_SBX_MASK_A	ES_SBX_MASK "/a"
#define ES_SBX_MASK_B	ES_SBX_MASK "/b"
enum es_sbx_mask_kind {
	ES_MASK_DIR,	/* A, B: a directory of the real home, on the way */
	ES_MASK_FILE,	/* A: an empty file over a hidden file */
	ES_MASK_HIDDEN,	/* A: an empty directory, B: a whiteout */
	ES_MASK_GONE,	/* B: a whiteout over a path missing now */
	ES_MASK_KEPT	/* A: a mount point, src bound on it read-only */
};
struct es_sbx_mask {
	int		 kind;
	int		 dir;	/* KEPT: src is a directory */
	int		 b;	/* DIR, HIDDEN: in B too (not below a whiteout) */
	unsigned int	 mode;	/* DIR, HIDDEN: the real directory's */
	const char	*rel;	/* below the home, no leading '/' */
	const char	*src;	/* KEPT: the real entry, at its path */
};

/* distinct placeholder texts of one view (mount.c): es_hide_list's stubs */
#define ES_SBX_STUBS	4

/*
 * A directory whose sockets and FIFOs init hides (mount.c, hide_nodes),
 * down to depth levels below it, and a socket a kept capability
 * variable names, which stays (plan.c, plan_caps).
 */
struct es_sbx_walk {
	const char	*path;
	int		 depth;
};
struct es_sbx_node {
	dev_t		 dev;
	ino_t		 ino;
};
#define ES_SBX_NWALK	16
#define ES_SBX_NTREE	3	/* idmap: the home, the session, the kept layer */
#define ES_SBX_NKEPT	16

/* the policy's paths, the hide list, and the defaults with the caches (plan_cache) */
#define ES_SBX_NMNT	(3 * ES_MAX_PATHS + ES_HIDE_MOUNTS + 128)

/* A command started on a terminal gets one of the sandbox's own (tty.c). */
struct es_sbx_tty {
	int		 on;		/* the outer relays the caller's terminal */
	int		 std;		/* bit n: fd n (0-2) was that terminal */
	int		 sock;		/* init's end: the pair goes to the outer */
	int		 slave;		/* init: the command's end, until its exec */
	struct termios	 tio;		/* the caller's terminal's modes, */
	struct winsize	 ws;		/* ... and size: the new one's to start */
};

/* A directory shown inside a hidden one (reveal.c): hid/rel. */
struct es_sbx_reveal {
	const char	*hid;		/* the hidden directory */
	const char	*rel;		/* below it: PROJECT/SESSION/tool-results */
};
#define ES_SBX_NREVEAL	4

/* Everything init and the command need, prepared by the outer. */
struct es_sbx_plan {
	const char	*path;		/* resolved command */
	char		**argv;
	char		**envp;
	char		 nsvar[128];	/* "ENVSHIM_SANDBOX_NS=u:m:p[:ino]", */
					/* an envp slot */
	pid_t		 outer;		/* this launch's pid as the log outside knows it */
	const char	*ws;
	const char	*cwd;
	const char	*tmpsub;	/* $TMPDIR below /tmp (no session), or NULL */
	const char	*s_tmp;		/* the session's tmp/: /tmp, or NULL */
	const char	*s_vartmp;	/* the session's var-tmp/: /var/tmp */
	const char	*s_home;	/* the home, under the session's layer, */
	const char	*s_ovl;		/* ... with these overlay options, or NULL */
	const char	*s_ovl_bare;	/* ... these without the mask */
	struct es_sbx_mask *masks;	/* the home's mask (plan_mask), ... */
	size_t		 nmask;		/* ... directories first */
	const char	*s_up;		/* the home's layer (upper), or NULL */
	const char	*s_layer;	/* ... in this directory, with work/ */
	int		 s_volatile;	/* ... discarded with the session */
	const char	*s_dir;		/* the session's directory, or NULL */
	int		 joined;	/* in the session's held view (keeper.c) */
	dev_t		 ph_dev;	/* ... whose placeholders are on this device */
	int		 rootfd;	/* keeper: pidfd of the session's launch root */
	char		*args;		/* the helper's own argv strings, ... */
	size_t		 nargs;		/* ... bytes: the keeper blanks them */
	uid_t		 uid;
	gid_t		 gid;
	int		 sysowner;	/* the caller owns the system's files (plan.c), */
					/* and without idmap its commands do too */
	const char	*home;		/* the caller's home */
	int		 idmap;		/* root as ES_SBX_ROOT_KUID (idmap.c): */
	int		 usernsfd;	/* ... its user namespace, and */
	int		 tree[ES_SBX_NTREE];	/* ... idmapped copies, fd + 1, */
	const char	*treepath[ES_SBX_NTREE];	/* ... of these trees */
	int		 netns;
	size_t		 nmnt;
	struct es_sbx_mnt mnt[ES_SBX_NMNT];
	size_t		 nwalk;
	struct es_sbx_walk walk[ES_SBX_NWALK];
	size_t		 nkept;
	struct es_sbx_node kept[ES_SBX_NKEPT];
	es_execve_fn	 exec;
	int		 msgfd;		/* write end, close-on-exec */
	int		 alivefd;	/* read end: EOF when the outer is gone */
	int		 logfd;		/* the outer's log, or -1: init closes it */
	int		 recfd;		/* records from inside: the outer's socket, */
					/* init binds it at ES_LOG_SOCK; or -1 */
	unsigned long long recino;	/* init: ES_LOG_SOCK's inode (nsvar's ino) */
	sigset_t	 mask;		/* the caller's signal mask */
	struct es_sbx_tty tty;
	size_t		 nreveal;
	struct es_sbx_reveal reveal[ES_SBX_NREVEAL];
};

/*
 * report.c: the one line every refusal prints, then exit 125, naming the
 * command set by es_sbx_refuse_as; and the AS-safe pieces init and the
 * mounts share: bounded appends, and the report of a failed step (errno
 * as it stands) before _exit(125).
 */
void	 es_sbx_refuse_as(const char *name);
void	 es_sbx_refuse(const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));
void	 es_sbx_put_str(char *buf, size_t len, size_t *off, const char *s);
void	 es_sbx_put_ulong(char *buf, size_t len, size_t *off, unsigned long v);
void	 es_sbx_fail(const struct es_sbx_plan *, int step, int item)
	    __attribute__((noreturn));

/*
 * plan.c: the outer's planning; may allocate, and refuses (exits) on
 * what it cannot plan.
 */
char	*es_sbx_resolve(const char *cmd);
void	 es_sbx_plan_env(struct es_sbx_plan *);
const char *es_sbx_home(void);
char	*es_sbx_workspace(const char *home);
char	*es_sbx_log_path(const struct es_policy *, const char *home);
void	 es_sbx_plan_mounts(struct es_sbx_plan *, const struct es_policy *,
	    const char *home, const char *log);
void	 es_sbx_plan_session(struct es_sbx_plan *, const struct es_policy *,
	    const char *home);
/*
 * What capability variables name: hidden for each dropped one (caps,
 * the shim's --cap NAME=VALUE), reachable for each the command gets.
 */
void	 es_sbx_plan_caps(struct es_sbx_plan *, const struct es_policy *,
	    const char *home, const char *const *caps, size_t ncap);
/*
 * The home's overlay options, with its work directory LAYER/work/NAME
 * made now: only the process that mounts the overlay makes one (the
 * session's keeper, "kROOT.PID"; a command building its
 * own view, its pid).  None (s_ovl NULL) when it cannot be had.
 */
void	 es_sbx_workdir(struct es_sbx_plan *, const char *name);
int	 es_sbx_sysowner(uid_t);
ssize_t	 es_sbx_read_small(const char *path, int flags, char *buf, size_t len);

/*
 * idmap.c: a root caller's commands as ES_SBX_ROOT_KUID, which owns
 * nothing.  es_sbx_idmap makes the user namespace and the idmapped copies
 * of the trees init binds: 0 with pl->idmap set, or -1 with nothing kept
 * (the kernel-uid-0 sandbox then).  es_sbx_idmap_release closes the
 * outer's copies once a clone holds its own; es_sbx_idmapped says whether
 * the user namespace this process joined is such a one.
 */
int	 es_sbx_idmap(struct es_sbx_plan *, const char *home);
void	 es_sbx_idmap_release(struct es_sbx_plan *);
int	 es_sbx_idmapped(void);

/*
 * keeper.c: the session's held view.  es_sbx_join finds the session's
 * keeper (or starts one) and moves the outer into its user and mount
 * namespaces: 1 when it did (pl->joined), 0 when the command builds its
 * own view.
 */
int	 es_sbx_join(struct es_sbx_plan *, const struct es_policy *);
/*
 * keeper.c: a command that joins no keeper gets its user namespace from
 * es_sbx_map, a clone that holds nothing of the caller's, and the outer
 * moves into it: 0.  -1 when there is none, the outer where it was, and
 * *fail says why: kind 0 (the clone failed: err), or the maker's report.
 */
int	 es_sbx_userns(struct es_sbx_plan *, struct es_sbx_msg *fail);

/*
 * init.c: pid 1 of the new namespaces; never returns.  es_sbx_keep is
 * the keeper: it builds the session's view, reports READY, and holds it
 * until the launch root ends.  The outer is undumpable (it holds the
 * command's environment), and so is init; the keeper and the maker must
 * be dumpable and first scrub what they copied of it.
 */
void	 es_sbx_init(struct es_sbx_plan *) __attribute__((noreturn));
void	 es_sbx_keep(struct es_sbx_plan *) __attribute__((noreturn));
/* The user namespace's maker for es_sbx_userns: scrubbed, then mapped. */
void	 es_sbx_map(struct es_sbx_plan *) __attribute__((noreturn));

/*
 * mount.c: init's view of the file system, from the plan.  AS-safe.
 * base is what a session's commands share, own what each adds.
 */
dev_t	 es_sbx_mounts_base(const struct es_sbx_plan *);
/* In idmap.c's user namespace: its root ids, no supplementary groups. */
void	 es_sbx_root_ids(const struct es_sbx_plan *);
void	 es_sbx_mounts_own(const struct es_sbx_plan *);
int	 es_sbx_remount(const char *path, int ro);
const char *es_sbx_fdpath(char *buf, size_t len, int fd);

/*
 * reveal.c: Claude Code's saved tool results of the shell's own session,
 * shown inside the hidden transcripts.  The outer plans (plan_reveal,
 * after the mounts); init shows them once the view is built (AS-safe).
 */
void	 es_sbx_plan_reveal(struct es_sbx_plan *, const char *home);
void	 es_sbx_reveal(const struct es_sbx_plan *);

/*
 * tty.c: a terminal of the sandbox's own for a command started on one.
 * The outer plans it before the clone (plan), relays it while it waits
 * for init's report on fd (relay: returns when fd is readable), then
 * drains it and gives the caller's terminal its modes back (end); init
 * opens the pair (open) and the command takes its end (take): AS-safe.
 */
void	 es_sbx_tty_plan(struct es_sbx_plan *);
void	 es_sbx_tty_relay(struct es_sbx_plan *, int fd, int also);
void	 es_sbx_tty_end(struct es_sbx_plan *);
void	 es_sbx_tty_open(struct es_sbx_plan *);
int	 es_sbx_tty_take(const struct es_sbx_plan *);

/*
 * signal.c: signals to the process that should see them.  save
 * remembers the caller's dispositions, which restore gives a child back.
 */
void	 es_sbx_sig_save(void);
void	 es_sbx_sig_forward(int group);
void	 es_sbx_sig_to(pid_t);
void	 es_sbx_sig_restore(void);

#endif
