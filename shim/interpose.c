/*
 * interpose.c - the only file that defines libc names.
 *
 * Hooks MUST NOT allocate, use stdio, take locks, call dlsym or exit: they
 * can run in a fork() child of a threaded process or after vfork(), sharing
 * the parent's memory.  They use the stack (or one anonymous mmap for a
 * large environment), the read-only state below, and AS-safe syscalls.
 * Hooks MUST refuse, never pass through, when the shim is not ready or the
 * policy is broken.  posix_spawn hooks MUST return an error number.
 *
 * glibc calls its own internals (execvp -> __execve, system and popen ->
 * __posix_spawn), so every public entry point is hooked on its own and
 * none of them calls another public one.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_load.h"
#include "es_policy.h"

#define ES_API		__attribute__((visibility("default")))
#define STACK_ARENA	24576	/* filter + argv + log line for a usual env */
#define MAX_POPEN	64	/* popen streams open at once */
#define NFORCED		7

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*pidfd_spawn_fn)(int *, const char *, const posix_spawn_file_actions_t *,
    const posix_spawnattr_t *, char *const[], char *const[]);
typedef int (*pclose_fn)(FILE *);
typedef long (*syscall_fn)(long, ...);

/* The one file-scope object: written by the constructor, then only read. */
static struct {
	volatile sig_atomic_t	 ready;
	int			 broken;	/* refuse every launch: why[] */
	int			 inside;	/* in the sandbox (namespace-proven) */
	int			 have_agent;
	dev_t			 agent_dev;
	ino_t			 agent_ino;
	execve_fn		 real_execve;
	execveat_fn		 real_execveat;
	fexecve_fn		 real_fexecve;
	spawn_fn		 real_posix_spawn;
	pidfd_spawn_fn		 real_pidfd_spawn;
	pclose_fn		 real_pclose;
	syscall_fn		 real_syscall;
	const char		*forced[NFORCED + 1];
	char			 why[320];
	char			 helper[ES_PATH_MAX];
	char			 log_path[ES_PATH_MAX];
	char			 e_preload[ES_PATH_MAX + 16];
	char			 e_agent[64];
	char			 e_ns[64];
	char			 e_ws[ES_PATH_MAX + 32];
	char			 e_launch[ES_SNAPSHOT_MAX * 34 + 32];
	char			 e_config[ES_POLICY_TEXT_MAX + 32];
	struct es_snapshot	 snap;
	struct es_policy	 pol;
	struct {
		FILE	*f;		/* published last */
		pid_t	 pid;		/* 0 free, -1 claimed */
	} popen[MAX_POPEN];
} st;

/* ---- small AS-safe helpers ---- */

/* Appends s to dst (cap bytes); returns 0, or -1 when it would not fit. */
static int
cat(char *dst, size_t cap, const char *s)
{
	size_t a = strlen(dst), b = strlen(s);

	if (a + b + 1 > cap)
		return -1;
	memcpy(dst + a, s, b + 1);
	return 0;
}

/* One line, one write: "envshim: refused PATH: WHY". */
static void
say_refused(const char *path, const char *why)
{
	char line[ES_PATH_MAX + 512];

	line[0] = '\0';
	cat(line, sizeof(line), "envshim: refused ");
	if (cat(line, sizeof(line), path) != 0)
		cat(line, sizeof(line), "(long path)");
	cat(line, sizeof(line), ": ");
	cat(line, sizeof(line), why);
	cat(line, sizeof(line), "\n");
	/* Nothing useful can be done if stderr is gone. */
	(void)!write(2, line, strlen(line));
}

static const char *
env_value(char *const *envp, const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the audit sink ---- */

/* Best effort: a launch is never refused because its record was lost. */
static void
audit_write(const char *line, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd;

	switch (st.pol.log) {
	case ES_LOG_OFF:
		return;
	case ES_LOG_STDERR:
		(void)!write(2, line, len);
		return;
	case ES_LOG_SYSLOG:
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return;
		/* LOG_AUTHPRIV|LOG_INFO; the JSON is the message. */
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			char msg[ES_LOG_LINE + 32] = "<86>envshim: ";
			size_t h = strlen(msg);

			if (len > sizeof(msg) - h)
				len = sizeof(msg) - h;
			memcpy(msg + h, line, len);
			(void)!send(fd, msg, h + len, MSG_NOSIGNAL);
		}
		close(fd);
		return;
	default:
		if (st.log_path[0] == '\0')
			return;
		fd = open(st.log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
		    O_NOFOLLOW | O_NOCTTY, 0600);
		if (fd < 0)
			return;
		(void)!write(fd, line, len);
		close(fd);
	}
}

/* ---- what is being launched ---- */

enum { A_RUN, A_SANDBOX, A_REFUSE };

static const char *const action_names[] = { "run", "sandbox", "refused" };

struct target {
	int		 found;		/* the file could be stat'ed */
	int		 err;		/* else: why not (errno) */
	int		 shell;
	int		 unfollow;	/* static, setuid/setgid, caps, foreign */
	int		 agent;
	int		 other;		/* neither ELF nor "#!": ENOEXEC */
	const char	*unfollow_why;
};

/* "/proc/self/fd/N" into buf (at least 32 bytes). */
static char *
fd_path(char *buf, int fd)
{
	char d[12];
	int i = 0;
	size_t k = 14;

	memcpy(buf, "/proc/self/fd/", 14);
	do {
		d[i++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd > 0);
	while (i > 0)
		buf[k++] = d[--i];
	buf[k] = '\0';
	return buf;
}

/* busybox runs its sh applet when called as sh, or as "busybox sh". */
static int
busybox_shell(const char *resolved, char *const *argv)
{
	const char *b = strrchr(resolved, '/');

	b = b != NULL ? b + 1 : resolved;
	if (strcmp(b, "busybox") != 0 || argv == NULL || argv[0] == NULL)
		return 0;
	if (es_is_shell(NULL, argv[0]))
		return 1;
	return argv[1] != NULL && es_is_shell(NULL, argv[1]);
}

static void judge_interp(const char *, struct target *);

/*
 * Reads the head of an open file and decides what the launch is: a shell
 * (by its name, the file a symlink leads to, or a "#!" judged by a shell),
 * and whether the shim can follow into it at all.
 */
static void
judge_fd(int fd, const char *path, char *const *argv, struct target *t, int top)
{
	unsigned char head[ES_SNIFF_HEAD];
	struct es_sniff sn;
	struct stat sb;
	char proc[32], real[ES_PATH_MAX];
	ssize_t n, r;

	if (fstat(fd, &sb) != 0) {
		t->err = errno;
		return;
	}
	t->found = 1;
	if (!S_ISREG(sb.st_mode))
		return;		/* the kernel refuses it; nothing to judge */
	if (top && st.have_agent && !st.inside &&
	    sb.st_dev == st.agent_dev && sb.st_ino == st.agent_ino)
		t->agent = 1;
	if (sb.st_mode & (S_ISUID | S_ISGID)) {
		t->unfollow = 1;
		t->unfollow_why = "setuid or setgid program";
	} else if (fgetxattr(fd, "security.capability", NULL, 0) > 0) {
		t->unfollow = 1;
		t->unfollow_why = "program with file capabilities";
	}
	n = pread(fd, head, sizeof(head), 0);
	es_sniff(head, n > 0 ? (size_t)n : 0, &sn);
	r = readlink(fd_path(proc, fd), real, sizeof(real) - 1);
	real[r > 0 ? r : 0] = '\0';
	if (top && (es_is_shell(&st.pol, path) ||
	    (r > 0 && (es_is_shell(&st.pol, real) || busybox_shell(real, argv)))))
		t->shell = 1;
	switch (sn.kind) {
	case ES_K_ELF_DYNAMIC:
		break;
	case ES_K_ELF_STATIC:
		t->unfollow = 1;
		t->unfollow_why = "statically linked program";
		break;
	case ES_K_ELF_FOREIGN:
	case ES_K_ELF_UNKNOWN:
		t->unfollow = 1;
		t->unfollow_why = "ELF program the shim cannot load into";
		break;
	case ES_K_SCRIPT:
		if (!top)
			break;
		if (es_is_shell(&st.pol, es_script_judge(&sn)))
			t->shell = 1;
		else if (sn.interp[0] == '/')
			judge_interp(sn.interp, t);
		break;
	default:
		if (top)
			t->other = 1;
	}
}

/* A script's interpreter decides whether the shim follows the script. */
static void
judge_interp(const char *interp, struct target *t)
{
	struct target sub = { 0 };
	int fd = open(interp, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return;		/* the kernel will say ENOENT/EACCES */
	judge_fd(fd, interp, NULL, &sub, 0);
	close(fd);
	if (sub.unfollow) {
		t->unfollow = 1;
		t->unfollow_why = "script whose interpreter the shim cannot follow";
	}
}

/*
 * Judges dirfd/path (dirfd AT_FDCWD for plain paths) or, with fd >= 0,
 * an fd handed to fexecve.  An unreadable but existing file (mode --x) is
 * judged unfollowable: its kind cannot be known.
 */
static void
judge(int dirfd, const char *path, int fd, int nofollow, char *const *argv,
    struct target *t)
{
	struct stat sb;
	char proc[32];
	int own = -1;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		own = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
		    (nofollow ? O_NOFOLLOW : 0));
		if (own < 0) {
			t->err = errno;
			if (fstatat(dirfd, path, &sb, nofollow ?
			    AT_SYMLINK_NOFOLLOW : 0) != 0) {
				t->err = errno;
				return;
			}
			t->found = 1;
			t->unfollow = 1;
			t->unfollow_why = "program the shim cannot read";
			if (es_is_shell(&st.pol, path))
				t->shell = 1;
			return;
		}
		fd = own;
	} else if (pread(fd, proc, 1, 0) < 0) {
		/* An O_PATH descriptor: read it through procfs. */
		own = open(fd_path(proc, fd), O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (own >= 0)
			fd = own;
	}
	judge_fd(fd, path, argv, t, 1);
	if (own >= 0)
		close(own);
}

static int
decide(const struct target *t, const char **why)
{
	const struct es_policy *p = &st.pol;

	*why = NULL;
	if (st.inside)
		return A_RUN;	/* the sandbox already confines everything */
	if (t->unfollow) {
		switch (p->unfollowable) {
		case ES_UNFOLLOW_ALLOW:
			break;
		case ES_UNFOLLOW_REFUSE:
			*why = t->unfollow_why;
			return A_REFUSE;
		default:
			if (p->sandbox == ES_SANDBOX_OFF) {
				*why = t->unfollow_why;
				return A_REFUSE;
			}
			return A_SANDBOX;
		}
	}
	if (t->shell && p->sandbox != ES_SANDBOX_OFF)
		return A_SANDBOX;
	return A_RUN;
}

/* ---- the plan: filtered env and argv in one arena ---- */

struct plan {
	const char		*hook;
	const char		*path;		/* for the log and messages */
	const char		*target;	/* what is executed */
	char *const		*in;		/* the caller's envp */
	size_t			 n;
	const char		**envp;		/* filtered */
	char			**argv;		/* as executed */
	struct es_verdict	*v;
	char			*logbuf;
	int			 action, agent;
	const char		*why;
	void			*map;
	size_t			 maplen;
	char			 stack[STACK_ARENA];
};

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void
plan_release(struct plan *pl)
{
	if (pl->map != NULL)
		munmap(pl->map, pl->maplen);
	pl->map = NULL;
}

/*
 * Fills pl: filters the environment, and for a redirect builds the helper's
 * argv.  pre (may be NULL) is put before argv[1..]: the ENOEXEC fallback
 * runs "/bin/sh FILE ARGS".  Returns 0, or -1 with pl->why set.
 */
static int
plan_make(struct plan *pl, char *const *argv, const char *pre)
{
	const struct es_policy *p = &st.pol;
	size_t argc = 0, bytes = 0, i, outcap, need, scratch;
	char *base;
	long k;

	pl->map = NULL;
	pl->n = 0;
	for (i = 0; pl->in != NULL && pl->in[i] != NULL; i++)
		bytes += strlen(pl->in[i]) + 1;
	pl->n = i;
	while (argv != NULL && argv[argc] != NULL)
		argc++;
	outcap = pl->n + NFORCED + p->nsets + 1;
	scratch = es_filter_scratch(pl->n, bytes);
	need = align8(outcap * sizeof(char *)) +
	    align8(pl->n * sizeof(struct es_verdict)) +
	    align8((argc + 8) * sizeof(char *)) + align8(scratch) + ES_LOG_LINE;
	if (need <= sizeof(pl->stack))
		base = pl->stack;
	else {
		base = mmap(NULL, need, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED) {
			pl->why = "environment too large for the memory the shim can map";
			return -1;
		}
		pl->map = base;
		pl->maplen = need;
	}
	pl->envp = (const char **)(void *)base;
	base += align8(outcap * sizeof(char *));
	pl->v = (struct es_verdict *)(void *)base;
	base += align8(pl->n * sizeof(struct es_verdict));
	pl->argv = (char **)(void *)base;
	base += align8((argc + 8) * sizeof(char *));
	pl->logbuf = base;
	base += ES_LOG_LINE;
	k = es_filter(p, &st.snap, pl->agent ? ES_F_AGENT : 0, pl->in, pl->n,
	    st.forced, pl->envp, outcap, pl->v, base, scratch);
	if (k < 0) {
		pl->why = "environment could not be filtered";
		plan_release(pl);
		return -1;
	}
	if (p->mode == ES_MODE_AUDIT) {
		/* Change nothing but what keeps the shim in the child. */
		size_t o = 0;

		for (i = 0; st.forced[i] != NULL; i++)
			pl->envp[o++] = st.forced[i];
		for (i = 0; i < pl->n; i++)
			if (pl->in[i] != NULL &&
			    strncmp(pl->in[i], "LD_PRELOAD=", 11) != 0 &&
			    strncmp(pl->in[i], "ENVSHIM_", 8) != 0)
				pl->envp[o++] = pl->in[i];
		pl->envp[o] = NULL;
	}
	i = 0;
	if (pl->action == A_SANDBOX && p->mode != ES_MODE_AUDIT) {
		pl->argv[i++] = st.helper;
		if (pre == NULL && argv != NULL && argv[0] != NULL &&
		    strcmp(argv[0], pl->target) != 0) {
			pl->argv[i++] = (char *)"--argv0";
			pl->argv[i++] = argv[0];
		}
		pl->argv[i++] = (char *)"--";
		pl->argv[i++] = (char *)pl->target;
		if (pre != NULL)
			pl->argv[i++] = (char *)pre;
		for (k = 1; (size_t)k < argc; k++)
			pl->argv[i++] = argv[k];
		pl->argv[i] = NULL;
		pl->target = st.helper;
	} else {
		if (pre != NULL) {
			pl->argv[i++] = (char *)pl->target;
			pl->argv[i++] = (char *)pre;
			for (k = 1; (size_t)k < argc; k++)
				pl->argv[i++] = argv[k];
		} else
			for (k = 0; (size_t)k < argc; k++)
				pl->argv[i++] = argv[k];
		pl->argv[i] = NULL;
	}
	return 0;
}

/* One record for this launch; pid is the launched program's. */
static void
plan_log(const struct plan *pl, long pid, long ppid, char *const *argv)
{
	struct es_audit a;
	long len;
	int audit = st.pol.mode == ES_MODE_AUDIT;

	if (st.pol.log == ES_LOG_OFF || pl->logbuf == NULL)
		return;
	memset(&a, 0, sizeof(a));
	a.time_ms = now_ms();
	a.pid = pid;
	a.ppid = ppid;
	a.hook = pl->hook;
	a.path = pl->path;
	a.argv = argv;
	a.action = audit ? "audit" : action_names[pl->action];
	a.would = audit ? action_names[pl->action] : NULL;
	a.reason = pl->why;
	a.inside = st.inside;
	a.agent = pl->agent;
	a.audit_mode = audit;
	a.envp = pl->in;
	a.n = pl->n;
	a.v = pl->v;
	a.p = &st.pol;
	len = es_audit_format(&a, pl->logbuf, ES_LOG_LINE);
	if (len > 0)
		audit_write(pl->logbuf, (size_t)len);
}

/* A refusal nobody could plan for (not ready, broken policy, argc 0). */
static void
log_refusal(const char *hook, const char *path, char *const *argv,
    const char *why, long pid, long ppid)
{
	struct es_audit a;
	char buf[2048];
	long len;

	say_refused(path, why);
	if (!st.ready || st.pol.log == ES_LOG_OFF)
		return;
	memset(&a, 0, sizeof(a));
	a.time_ms = now_ms();
	a.pid = pid;
	a.ppid = ppid;
	a.hook = hook;
	a.path = path;
	a.argv = argv;
	a.action = "refused";
	a.reason = why;
	a.inside = st.inside;
	a.p = &st.pol;
	len = es_audit_format(&a, buf, sizeof(buf));
	if (len > 0)
		audit_write(buf, (size_t)len);
}

static const char *
precheck(char *const *argv)
{
	if (!st.ready)
		return "envshim is not initialised in this process";
	if (st.broken)
		return st.why;
	if (argv == NULL || argv[0] == NULL)
		return "empty argument list (argc 0)";
	return NULL;
}

/* ---- exec ---- */

struct req {
	const char	*hook;
	const char	*file;		/* as the caller named it */
	char *const	*argv;
	char *const	*envp;		/* the caller's, or environ */
	int		 dirfd;		/* execveat; else AT_FDCWD */
	int		 flags;		/* execveat flags */
	int		 fd;		/* fexecve; else -1 */
};

/*
 * Runs one candidate.  Returns only on failure, errno set as the kernel
 * (or the refusal) left it, so PATH walks see ENOENT/EACCES unchanged.
 */
static int
exec_one(const struct req *r, const char *path, int search)
{
	struct target t;
	struct plan pl;
	char fdp[ES_PATH_MAX + 48];
	const char *target = path, *why;
	int e;

	if (r->fd >= 0)
		judge(AT_FDCWD, path, r->fd, 0, r->argv, &t);
	else
		judge(r->dirfd, path, -1, r->flags & AT_SYMLINK_NOFOLLOW,
		    r->argv, &t);
	if (!t.found) {
		errno = t.err != 0 ? t.err : ENOENT;
		return -1;
	}
	/* The helper needs a path it can open itself. */
	if (r->fd >= 0)
		target = fd_path(fdp, r->fd);
	else if (r->dirfd != AT_FDCWD && path[0] != '/' && path[0] != '\0') {
		fd_path(fdp, r->dirfd);
		cat(fdp, sizeof(fdp), "/");
		if (cat(fdp, sizeof(fdp), path) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target = fdp;
	} else if (strchr(path, '/') == NULL) {
		/* execve("prog") means ./prog, never a PATH search. */
		memcpy(fdp, "./", 2);
		fdp[2] = '\0';
		if (cat(fdp, sizeof(fdp), path) != 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		target = fdp;
	}
	memset(&pl, 0, sizeof(pl));
	pl.hook = r->hook;
	pl.path = path;
	pl.in = r->envp;
	pl.agent = t.agent;
	pl.target = target;
	pl.action = decide(&t, &why);
	pl.why = why;
	if (pl.action == A_SANDBOX && st.helper[0] == '\0') {
		pl.action = A_REFUSE;
		pl.why = "the sandbox helper envshim-sandbox is not installed";
	}
	if (plan_make(&pl, r->argv, NULL) != 0) {
		log_refusal(r->hook, path, r->argv, pl.why, getpid(), getppid());
		errno = EPERM;
		return -1;
	}
	if (pl.action == A_REFUSE && st.pol.mode != ES_MODE_AUDIT) {
		say_refused(path, pl.why);
		plan_log(&pl, getpid(), getppid(), r->argv);
		plan_release(&pl);
		errno = EPERM;
		return -1;
	}
	plan_log(&pl, getpid(), getppid(), r->argv);
	if (pl.target == st.helper)
		st.real_execve(pl.target, pl.argv, (char *const *)pl.envp);
	else if (r->fd >= 0)
		st.real_fexecve(r->fd, pl.argv, (char *const *)pl.envp);
	else if (r->dirfd != AT_FDCWD || r->flags != 0)
		st.real_execveat(r->dirfd, path, pl.argv,
		    (char *const *)pl.envp, r->flags);
	else
		st.real_execve(path, pl.argv, (char *const *)pl.envp);
	e = errno;
	/* glibc's execvp runs a file the kernel calls ENOEXEC with /bin/sh. */
	if (e == ENOEXEC && search && t.other) {
		struct target sh = { .found = 1, .shell = 1 };

		pl.target = "/bin/sh";
		pl.action = decide(&sh, &why);
		pl.why = why;
		plan_release(&pl);
		if (pl.action == A_SANDBOX && st.helper[0] == '\0') {
			say_refused("/bin/sh", "the sandbox helper envshim-sandbox is not installed");
			errno = EPERM;
			return -1;
		}
		if (plan_make(&pl, r->argv, path) == 0) {
			pl.path = "/bin/sh";
			plan_log(&pl, getpid(), getppid(), pl.argv);
			st.real_execve(pl.target, pl.argv, (char *const *)pl.envp);
			e = errno;
		}
	}
	plan_release(&pl);
	errno = e;
	return -1;
}

/*
 * PATH as glibc's execvp reads it (the caller's environ), walked the way
 * the policy normalises it: empty, relative and ".." entries are skipped.
 */
static const char *
caller_path(void)
{
	const char *path = env_value(environ, "PATH");

	return path != NULL ? path : "/bin:/usr/bin";
}

/* Writes dir "/" file into buf; returns 0 or -1 (skip this entry). */
static int
join(char *buf, size_t cap, const char *dir, size_t dlen, const char *file)
{
	size_t flen = strlen(file);
	size_t i;

	if (dlen == 0 || dir[0] != '/')
		return -1;
	for (i = 0; i + 1 < dlen; i++)
		if (dir[i] == '.' && dir[i + 1] == '.' &&
		    (i == 0 || dir[i - 1] == '/') &&
		    (i + 2 == dlen || dir[i + 2] == '/'))
			return -1;
	if (dlen + 1 + flen + 1 > cap)
		return -1;
	memcpy(buf, dir, dlen);
	buf[dlen] = '/';
	memcpy(buf + dlen + 1, file, flen + 1);
	return 0;
}

static int
exec_search(const struct req *r)
{
	char cand[ES_PATH_MAX];
	const char *path, *p, *end;
	int eacces = 0;
	const char *why = precheck(r->argv);

	if (why != NULL) {
		log_refusal(r->hook, r->file != NULL ? r->file : "", r->argv,
		    why, getpid(), getppid());
		errno = EPERM;
		return -1;
	}
	if (r->file == NULL || r->file[0] == '\0') {
		errno = ENOENT;
		return -1;
	}
	if (strchr(r->file, '/') != NULL)
		return exec_one(r, r->file, 1);
	path = caller_path();
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (join(cand, sizeof(cand), p, (size_t)(end - p), r->file) == 0) {
			exec_one(r, cand, 1);
			switch (errno) {
			case EACCES:
				eacces = 1;
				break;
			case ENOENT:
			case ENOTDIR:
			case ESTALE:
			case ENODEV:
			case ETIMEDOUT:
			case ENAMETOOLONG:
			case ELOOP:
				break;
			default:
				return -1;
			}
		}
		if (*end == '\0')
			break;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
}

static int
exec_plain(const struct req *r)
{
	const char *why = precheck(r->argv);

	if (why != NULL) {
		log_refusal(r->hook, r->file != NULL ? r->file : "(fd)",
		    r->argv, why, getpid(), getppid());
		errno = EPERM;
		return -1;
	}
	if (r->file == NULL) {
		errno = EFAULT;
		return -1;
	}
	return exec_one(r, r->file, 0);
}

static char *const empty_env[] = { NULL };

ES_API int
execve(const char *path, char *const argv[], char *const envp[])
{
	struct req r = { "execve", path, argv, envp != NULL ? envp : empty_env,
	    AT_FDCWD, 0, -1 };

	return exec_plain(&r);
}

ES_API int
execv(const char *path, char *const argv[])
{
	struct req r = { "execv", path, argv, environ, AT_FDCWD, 0, -1 };

	return exec_plain(&r);
}

ES_API int
execvp(const char *file, char *const argv[])
{
	struct req r = { "execvp", file, argv, environ, AT_FDCWD, 0, -1 };

	return exec_search(&r);
}

ES_API int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct req r = { "execvpe", file, argv, envp != NULL ? envp : empty_env,
	    AT_FDCWD, 0, -1 };

	return exec_search(&r);
}

ES_API int
fexecve(int fd, char *const argv[], char *const envp[])
{
	char proc[32];
	struct req r = { "fexecve", fd_path(proc, fd), argv,
	    envp != NULL ? envp : empty_env, AT_FDCWD, 0, fd };

	return exec_plain(&r);
}

ES_API int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
    int flags)
{
	char proc[32];
	struct req r = { "execveat", path, argv, envp != NULL ? envp : empty_env,
	    dirfd, flags, -1 };

	/* execveat(fd, "", ..., AT_EMPTY_PATH) is fexecve by another name. */
	if ((flags & AT_EMPTY_PATH) && path[0] == '\0') {
		r.fd = dirfd;
		r.file = fd_path(proc, dirfd);
		r.dirfd = AT_FDCWD;
		r.flags = 0;
	}
	return exec_plain(&r);
}

/*
 * The execl family is variadic; its arguments are gathered on the stack
 * (no VLA: the count is bounded by ES_MAX_ARGS).
 */
#define GATHER(ap, arg0, args, n)					\
	do {								\
		const char *a_ = (arg0);				\
		(n) = 0;						\
		while (a_ != NULL && (n) < ES_MAX_ARGS) {		\
			(args)[(n)++] = (char *)a_;			\
			a_ = va_arg((ap), const char *);		\
		}							\
		(args)[(n)] = NULL;					\
	} while (0)

ES_API int
execl(const char *path, const char *arg, ...)
{
	char *args[ES_MAX_ARGS + 1];
	size_t n;
	va_list ap;
	struct req r = { "execl", path, args, environ, AT_FDCWD, 0, -1 };

	va_start(ap, arg);
	GATHER(ap, arg, args, n);
	va_end(ap);
	if (n == ES_MAX_ARGS) {
		errno = E2BIG;
		return -1;
	}
	return exec_plain(&r);
}

ES_API int
execle(const char *path, const char *arg, ...)
{
	char *args[ES_MAX_ARGS + 1];
	char *const *envp;
	size_t n;
	va_list ap;
	struct req r = { "execle", path, args, NULL, AT_FDCWD, 0, -1 };

	va_start(ap, arg);
	GATHER(ap, arg, args, n);
	if (n == ES_MAX_ARGS) {
		va_end(ap);
		errno = E2BIG;
		return -1;
	}
	envp = va_arg(ap, char *const *);
	va_end(ap);
	r.envp = envp != NULL ? envp : empty_env;
	return exec_plain(&r);
}

ES_API int
execlp(const char *file, const char *arg, ...)
{
	char *args[ES_MAX_ARGS + 1];
	size_t n;
	va_list ap;
	struct req r = { "execlp", file, args, environ, AT_FDCWD, 0, -1 };

	va_start(ap, arg);
	GATHER(ap, arg, args, n);
	va_end(ap);
	if (n == ES_MAX_ARGS) {
		errno = E2BIG;
		return -1;
	}
	return exec_search(&r);
}

/* ---- spawn: decided in the parent, before the child exists ---- */

/* posix_spawnp's PATH walk, done here so the child gets an absolute path. */
static int
spawn_resolve(const char *file, char *buf, size_t cap, const char **out)
{
	const char *path, *p, *end;
	int eacces = 0;
	struct stat sb;

	if (strchr(file, '/') != NULL) {
		*out = file;
		return 0;
	}
	if (file[0] == '\0')
		return ENOENT;
	path = caller_path();
	for (p = path;; p = end + 1) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		if (join(buf, cap, p, (size_t)(end - p), file) == 0 &&
		    stat(buf, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (access(buf, X_OK) == 0) {
				*out = buf;
				return 0;
			}
			eacces = 1;
		}
		if (*end == '\0')
			break;
	}
	return eacces ? EACCES : ENOENT;
}

/*
 * posix_spawn, posix_spawnp, pidfd_spawn(p), system and popen all come
 * here.  Returns an error number, as posix_spawn does.
 */
static int
spawn_common(const char *hook, pid_t *pidp, int *pidfd, const char *file,
    int search, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char buf[ES_PATH_MAX];
	const char *path = file, *why;
	struct target t;
	struct plan pl;
	pid_t pid = 0;
	int rc;

	why = precheck(argv);
	if (why != NULL) {
		log_refusal(hook, file != NULL ? file : "", argv, why,
		    0, getpid());
		return EPERM;
	}
	if (file == NULL)
		return EFAULT;
	if (search) {
		rc = spawn_resolve(file, buf, sizeof(buf), &path);
		if (rc != 0)
			return rc;
	}
	judge(AT_FDCWD, path, -1, 0, argv, &t);
	memset(&pl, 0, sizeof(pl));
	pl.hook = hook;
	pl.path = path;
	pl.target = path;
	pl.in = envp != NULL ? envp : empty_env;
	pl.agent = t.agent;
	/*
	 * A missing file is the child's error to report (posix_spawn returns
	 * it); planning still filters, so nothing unfiltered ever runs.
	 */
	pl.action = t.found ? decide(&t, &why) : A_RUN;
	pl.why = t.found ? why : NULL;
	if (pl.action == A_SANDBOX && st.helper[0] == '\0') {
		pl.action = A_REFUSE;
		pl.why = "the sandbox helper envshim-sandbox is not installed";
	}
	if (plan_make(&pl, argv, NULL) != 0) {
		log_refusal(hook, path, argv, pl.why, 0, getpid());
		return EPERM;
	}
	if (pl.action == A_REFUSE && st.pol.mode != ES_MODE_AUDIT) {
		say_refused(path, pl.why);
		plan_log(&pl, 0, getpid(), argv);
		plan_release(&pl);
		return EPERM;
	}
	if (pidfd != NULL)
		rc = st.real_pidfd_spawn != NULL ? st.real_pidfd_spawn(pidfd,
		    pl.target, fa, attr, pl.argv, (char *const *)pl.envp) : ENOSYS;
	else
		rc = st.real_posix_spawn(&pid, pl.target, fa, attr, pl.argv,
		    (char *const *)pl.envp);
	if (rc == 0) {
		if (pidp != NULL)
			*pidp = pid;
		plan_log(&pl, pid, getpid(), argv);
	}
	plan_release(&pl);
	return rc;
}

ES_API int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("posix_spawn", pid, NULL, path, 0, fa, attr, argv, envp);
}

ES_API int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("posix_spawnp", pid, NULL, file, 1, fa, attr, argv, envp);
}

/* glibc 2.39+; where libc lacks them nobody can call them but by name. */
int	pidfd_spawn(int *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);
int	pidfd_spawnp(int *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);

ES_API int
pidfd_spawn(int *pidfd, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("pidfd_spawn", NULL, pidfd, path, 0, fa, attr, argv, envp);
}

ES_API int
pidfd_spawnp(int *pidfd, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_common("pidfd_spawnp", NULL, pidfd, file, 1, fa, attr, argv, envp);
}

/* ---- system and popen, rebuilt on spawn_common ---- */

/*
 * glibc's system() reaches its internal posix_spawn, which no hook sees,
 * so it is rebuilt here with POSIX's signal rules: SIGINT and SIGQUIT
 * ignored and SIGCHLD blocked in the caller while the shell runs.
 */
ES_API int
system(const char *cmd)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	sigset_t chld, omask, def;
	posix_spawnattr_t attr;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	pid_t pid;
	int rc, status = -1;

	if (cmd == NULL)
		return access("/bin/sh", X_OK) == 0;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	sigemptyset(&def);
	if (oint.sa_handler != SIG_IGN)
		sigaddset(&def, SIGINT);
	if (oquit.sa_handler != SIG_IGN)
		sigaddset(&def, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = spawn_common("system", &pid, NULL, "/bin/sh", 0, NULL, &attr, argv,
	    environ);
	posix_spawnattr_destroy(&attr);
	if (rc == 0) {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	} else if (rc == EPERM)
		status = -1;
	else
		status = W_EXITCODE(127, 0);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	if (rc != 0)
		errno = rc;
	return status;
}

ES_API FILE *
popen(const char *cmd, const char *mode)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], reading, cloexec, slot = -1, mine, theirs, want, i, rc;
	pid_t pid;
	FILE *f;

	if (mode == NULL || (mode[0] != 'r' && mode[0] != 'w') ||
	    (mode[1] != '\0' && (mode[1] != 'e' || mode[2] != '\0'))) {
		errno = EINVAL;
		return NULL;
	}
	reading = mode[0] == 'r';
	cloexec = mode[1] == 'e';
	for (i = 0; i < MAX_POPEN && slot < 0; i++) {
		pid_t z = 0;

		if (__atomic_compare_exchange_n(&st.popen[i].pid, &z, -1, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			slot = i;
	}
	if (slot < 0) {
		errno = EMFILE;
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) != 0)
		goto fail;
	mine = reading ? fds[0] : fds[1];
	theirs = reading ? fds[1] : fds[0];
	want = reading ? 1 : 0;
	posix_spawn_file_actions_init(&fa);
	/* dup2 onto itself would keep FD_CLOEXEC; move it out of the way. */
	if (theirs == want) {
		int moved = fcntl(theirs, F_DUPFD_CLOEXEC, 3);

		close(theirs);
		theirs = moved;
	}
	posix_spawn_file_actions_adddup2(&fa, theirs, want);
	/* POSIX: streams of earlier popen calls are closed in the child. */
	for (i = 0; i < MAX_POPEN; i++) {
		FILE *o = __atomic_load_n(&st.popen[i].f, __ATOMIC_ACQUIRE);

		if (o != NULL && i != slot)
			posix_spawn_file_actions_addclose(&fa, fileno(o));
	}
	rc = spawn_common("popen", &pid, NULL, "/bin/sh", 0, &fa, NULL, argv,
	    environ);
	posix_spawn_file_actions_destroy(&fa);
	close(theirs);
	if (rc != 0) {
		close(mine);
		errno = rc;
		goto fail;
	}
	if (!cloexec)
		fcntl(mine, F_SETFD, 0);
	f = fdopen(mine, reading ? "r" : "w");
	if (f == NULL) {
		close(mine);
		waitpid(pid, NULL, 0);
		goto fail;
	}
	st.popen[slot].pid = pid;
	__atomic_store_n(&st.popen[slot].f, f, __ATOMIC_RELEASE);
	return f;
fail:
	__atomic_store_n(&st.popen[slot].pid, 0, __ATOMIC_RELEASE);
	return NULL;
}

ES_API int
pclose(FILE *f)
{
	pid_t pid;
	int i, status;

	for (i = 0; i < MAX_POPEN; i++) {
		FILE *o = f;

		if (f != NULL && __atomic_compare_exchange_n(&st.popen[i].f, &o,
		    NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (i == MAX_POPEN)
		return st.real_pclose != NULL ? st.real_pclose(f) : (errno = ECHILD, -1);
	pid = st.popen[i].pid;
	fclose(f);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	__atomic_store_n(&st.popen[i].pid, 0, __ATOMIC_RELEASE);
	return status;
}

/* ---- syscall(SYS_execve, ...) ---- */

/*
 * Every other number passes straight to the kernel (torsocks broke
 * programs by refusing the ones it did not know).  The raw instruction is
 * used so that no resolution is needed, even before the constructor ran.
 */
static long
raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b),
	    "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2),
	    "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
#else
	if (st.real_syscall == NULL)
		return -ENOSYS;
	{
		long r = st.real_syscall(nr, a, b, c, d, e, f);

		return r == -1 ? -errno : r;
	}
#endif
}

ES_API long
syscall(long nr, ...)
{
	long a[6], r;
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_execve)
		return execve((const char *)a[0], (char *const *)a[1],
		    (char *const *)a[2]);
#ifdef SYS_execveat
	if (nr == SYS_execveat)
		return execveat((int)a[0], (const char *)a[1],
		    (char *const *)a[2], (char *const *)a[3], (int)a[4]);
#endif
	r = raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* ---- the constructor: everything hooks need, prepared once ---- */

static void
brokenf(const char *a, const char *b)
{
	st.broken = 1;
	st.why[0] = '\0';
	cat(st.why, sizeof(st.why), a);
	if (b != NULL)
		cat(st.why, sizeof(st.why), b);
}

/* "NAME=" value into dst, or fail when it does not fit. */
static int
setvar(char *dst, size_t cap, const char *name, const char *value)
{
	dst[0] = '\0';
	if (cat(dst, cap, name) != 0 || cat(dst, cap, "=") != 0 ||
	    cat(dst, cap, value) != 0)
		return -1;
	return 0;
}

/* v in decimal into d (24 bytes). */
static const char *
ull(char *d, unsigned long long v)
{
	size_t i = 23;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return d + i;
}

static int
ns_ino(const char *which, ino_t *ino)
{
	char path[64] = "/proc/self/ns/";
	struct stat sb;

	cat(path, sizeof(path), which);
	if (stat(path, &sb) != 0)
		return -1;
	*ino = sb.st_ino;
	return 0;
}

/* mkdir -p for the log's directory; private, as the log names programs. */
static void
mkdirs(char *path)
{
	char *s;

	for (s = path + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
}

/* The launch root's default log: ${XDG_STATE_HOME:-~/.local/state}/envshim. */
static void
default_log(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int fd;

	buf[0] = '\0';
	if (xdg != NULL && xdg[0] == '/')
		cat(buf, cap, xdg);
	else if (home != NULL && home[0] == '/') {
		cat(buf, cap, home);
		cat(buf, cap, "/.local/state");
	} else
		return;
	if (cat(buf, cap, "/envshim/audit.jsonl") != 0) {
		buf[0] = '\0';
		return;
	}
	mkdirs(buf);
	/* Created now so the sandbox can bind it writable later. */
	fd = open(buf, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
}

/* Adds one line of policy on top, as its own layer. */
static int
add_layer(const char *origin, const char *line)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];

	if (es_policy_parse(&st.pol, line, strlen(line), origin, &err) == 0)
		return 0;
	brokenf("bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
	return -1;
}

/*
 * The agent itself: read the layers from disk, take the snapshot and
 * record what children must inherit.  A bad policy leaves the agent
 * running and refuses every launch it makes.
 */
static void
init_root(void)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256], cwd[ES_PATH_MAX], line[ES_PATH_MAX + 8];
	const char *mode = getenv("ENVSHIM_MODE");
	struct stat sb;
	long len;

	if (es_policy_load_root(&st.pol, getenv("ENVSHIM_POLICY"), &err) != 0) {
		brokenf("bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
		es_policy_init(&st.pol);
		return;
	}
	if (mode != NULL && strcmp(mode, "audit") == 0) {
		if (add_layer("ENVSHIM_MODE", "mode audit\n") != 0)
			return;
	} else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "enforce") != 0) {
		brokenf("ENVSHIM_MODE must be audit or enforce", NULL);
		return;
	}
	if (st.pol.log == ES_LOG_DEFAULT) {
		default_log(st.log_path, sizeof(st.log_path));
		memcpy(line, "log ", 5);
		/* Children inherit the resolved file, not the rule to find it. */
		if (st.log_path[0] != '\0' &&
		    cat(line, sizeof(line), st.log_path) == 0 &&
		    cat(line, sizeof(line), "\n") == 0 &&
		    add_layer("default log", line) != 0)
			return;
	}
	es_snapshot_take(&st.pol, environ, &st.snap);
	if (stat("/proc/self/exe", &sb) == 0) {
		char num[64], d[24];

		st.have_agent = 1;
		st.agent_dev = sb.st_dev;
		st.agent_ino = sb.st_ino;
		num[0] = '\0';
		cat(num, sizeof(num), ull(d, sb.st_dev));
		cat(num, sizeof(num), ":");
		cat(num, sizeof(num), ull(d, sb.st_ino));
		setvar(st.e_agent, sizeof(st.e_agent), "ENVSHIM_AGENT", num);
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		setvar(st.e_ws, sizeof(st.e_ws), "ENVSHIM_WORKSPACE", cwd);
	memcpy(st.e_launch, "ENVSHIM_LAUNCH=", 15);
	if (es_snapshot_encode(&st.snap, st.e_launch + 15,
	    sizeof(st.e_launch) - 15) < 0) {
		brokenf("launch snapshot too large", NULL);
		return;
	}
	memcpy(st.e_config, "ENVSHIM_CONFIG=", 15);
	len = es_policy_format(&st.pol, 0, st.e_config + 15,
	    sizeof(st.e_config) - 15);
	if (len < 0)
		brokenf("effective policy too large to hand down", NULL);
	else if (len > 0 && st.e_config[15 + len - 1] == '\n')
		st.e_config[15 + len - 1] = '\0';	/* tidier in `env` output */
}

/* Copies a load-time ENVSHIM_* entry so later changes to environ don't matter. */
static void
keep_var(char *dst, size_t cap, const char *name)
{
	const char *v = getenv(name);

	if (v != NULL && setvar(dst, cap, name, v) != 0)
		brokenf(name, " is too long");
}

/* Any other process: everything comes from the load-time environment. */
static void
init_child(void)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];
	const char *cfg = getenv("ENVSHIM_CONFIG"), *ns = getenv("ENVSHIM_SANDBOX_NS");
	const char *agent = getenv("ENVSHIM_AGENT");
	unsigned long long d, i, u, m;
	ino_t uino, mino;

	keep_var(st.e_config, sizeof(st.e_config), "ENVSHIM_CONFIG");
	keep_var(st.e_launch, sizeof(st.e_launch), "ENVSHIM_LAUNCH");
	keep_var(st.e_agent, sizeof(st.e_agent), "ENVSHIM_AGENT");
	keep_var(st.e_ws, sizeof(st.e_ws), "ENVSHIM_WORKSPACE");
	if (es_policy_load_text(&st.pol, cfg != NULL ? cfg : "", "ENVSHIM_CONFIG",
	    &err) != 0) {
		brokenf("bad inherited policy: ", es_parse_err_str(&err, msg,
		    sizeof(msg)));
		es_policy_init(&st.pol);
		return;
	}
	if (es_snapshot_decode(getenv("ENVSHIM_LAUNCH"), &st.snap) != 0)
		brokenf("malformed ENVSHIM_LAUNCH", NULL);
	if (agent != NULL && sscanf(agent, "%llu:%llu", &d, &i) == 2) {
		st.have_agent = 1;
		st.agent_dev = (dev_t)d;
		st.agent_ino = (ino_t)i;
	}
	/* Inside only if the namespaces really are the helper's. */
	if (ns != NULL && sscanf(ns, "%llu:%llu", &u, &m) == 2 &&
	    ns_ino("user", &uino) == 0 && ns_ino("mnt", &mino) == 0 &&
	    uino == (ino_t)u && mino == (ino_t)m) {
		st.inside = 1;
		keep_var(st.e_ns, sizeof(st.e_ns), "ENVSHIM_SANDBOX_NS");
	}
	if (st.pol.log == ES_LOG_PATH && st.pol.log_path != NULL &&
	    strlen(st.pol.log_path) < sizeof(st.log_path))
		memcpy(st.log_path, st.pol.log_path, strlen(st.pol.log_path) + 1);
}

/* The shim's own absolute path, whatever LD_PRELOAD said (maybe relative). */
static void
find_self(void)
{
	Dl_info info;
	char path[PATH_MAX], dir[ES_PATH_MAX];
	char *slash;

	if (dladdr((void *)find_self, &info) == 0 || info.dli_fname == NULL ||
	    realpath(info.dli_fname, path) == NULL) {
		brokenf("cannot find the shim's own path", NULL);
		return;
	}
	if (setvar(st.e_preload, sizeof(st.e_preload), "LD_PRELOAD", path) != 0) {
		brokenf("the shim's path is too long", NULL);
		return;
	}
	/* The helper lives next to the shim (build tree), else in libexec. */
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	*slash = '\0';
	st.helper[0] = '\0';
	cat(st.helper, sizeof(st.helper), dir);
	cat(st.helper, sizeof(st.helper), "/envshim-sandbox");
	if (access(st.helper, X_OK) != 0) {
		st.helper[0] = '\0';
		cat(st.helper, sizeof(st.helper), ES_LIBEXECDIR "/envshim-sandbox");
		if (access(st.helper, X_OK) != 0)
			st.helper[0] = '\0';
	}
}

/*
 * The helper holds no secrets (its environment is already filtered) and
 * must write its own uid_map, which a non-dumpable process cannot.
 */
static int
is_helper(void)
{
	struct stat self, helper;

	return st.helper[0] != '\0' && stat(st.helper, &helper) == 0 &&
	    stat("/proc/self/exe", &self) == 0 &&
	    self.st_dev == helper.st_dev && self.st_ino == helper.st_ino;
}

__attribute__((constructor)) static void
es_init(void)
{
	size_t k = 0;

	st.real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	st.real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
	st.real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
	st.real_posix_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	st.real_pidfd_spawn = (pidfd_spawn_fn)dlsym(RTLD_NEXT, "pidfd_spawn");
	st.real_pclose = (pclose_fn)dlsym(RTLD_NEXT, "pclose");
	st.real_syscall = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (st.real_execve == NULL || st.real_execveat == NULL ||
	    st.real_fexecve == NULL || st.real_posix_spawn == NULL ||
	    st.real_execve == execve || st.real_posix_spawn == posix_spawn)
		brokenf("cannot find libc's exec functions", NULL);
	find_self();
	if (getenv("ENVSHIM_LAUNCH") == NULL)
		init_root();
	else
		init_child();
	if (!st.broken && st.pol.protect_self && !is_helper())
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	st.forced[k++] = st.e_preload;
	if (st.e_config[0] != '\0')
		st.forced[k++] = st.e_config;
	if (st.e_launch[0] != '\0')
		st.forced[k++] = st.e_launch;
	if (st.e_agent[0] != '\0')
		st.forced[k++] = st.e_agent;
	if (st.e_ws[0] != '\0')
		st.forced[k++] = st.e_ws;
	if (st.e_ns[0] != '\0')
		st.forced[k++] = st.e_ns;
	st.forced[k] = NULL;
	st.ready = 1;
}
