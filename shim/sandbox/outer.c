/*
 * outer.c - envshim-sandbox: run one command confined.
 *
 *	envshim-sandbox [--policy FILE] [--argv0 NAME] [--cap NAME=VALUE]...
 *	    [--] COMMAND [ARGS...]
 *
 * Three processes, as in bubblewrap (four in a session, whose keeper
 * holds the view its commands share: keeper.c):
 *   outer	the helper as exec'ed (this file): plans everything (policy,
 *		paths, argv, environment: plan.c), clones, forwards
 *		signals (signal.c), mirrors the result.
 *   init	pid 1 of the new namespaces (init.c): user map, mounts
 *		(mount.c), then reaps and forwards signals until the
 *		command ends.
 *   command	setsid, exec.
 * The outer does every allocation and lookup; init and the command use
 * only system calls and memory the outer prepared, and report failures
 * as a struct over a close-on-exec pipe, which the outer turns into words.
 * The outer and init hold the command's environment and are undumpable;
 * the user namespace is made by a clone that scrubs first (keeper.c,
 * es_sbx_userns), or is the session keeper's.
 *
 * Never setuid: it refuses to run with AT_SECURE.  Fails closed: under
 * "sandbox all" or "shells" the command never runs unconfined.
 */
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef ES_SBX_STATIC
#include <dlfcn.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_load.h"
#include "sbx.h"

extern char **environ;

/* What a failed step is called in the refusal, in enum es_sbx_step's order. */
static const char *const step_name[] = {
	"write uid_map", "write setgroups", "write gid_map",
	"take the sandbox's root ids",
	"make / read-only", "bind a writable path", "make a path writable",
	"mount /tmp", "mount /dev", "bind a device", "mount /dev/pts",
	"mount /dev/shm", "hide a path", "make the home private",
	"mask the home", "open a ro path",
	"cover a ro path's symlink", "pin a ro path's directory",
	"make a ro path read-only", "mount /proc", "cover /proc", "chdir",
	"read namespace ids",
	"drop capabilities", "setsid", "join a new session keyring",
	"filter system calls",
	"scope with Landlock", "PR_SET_PDEATHSIG", "parent exited",
	"open a terminal", "fork", "exec"
};
_Static_assert(sizeof(step_name) / sizeof(step_name[0]) == ES_S_EXEC + 1,
    "a name for every step");

/* The errnos a setup step can meet, by name (not every libc has a table). */
#define ENAME(e)	{ e, #e }
static const struct { int e; const char *name; } errno_names[] = {
	ENAME(EPERM), ENAME(ENOENT), ENAME(ESRCH), ENAME(EINTR), ENAME(EIO),
	ENAME(ENXIO), ENAME(E2BIG), ENAME(ENOEXEC), ENAME(EBADF),
	ENAME(EAGAIN), ENAME(ENOMEM), ENAME(EACCES), ENAME(EFAULT),
	ENAME(EBUSY), ENAME(EEXIST), ENAME(ENODEV), ENAME(ENOTDIR),
	ENAME(EISDIR), ENAME(EINVAL), ENAME(ENFILE), ENAME(EMFILE),
	ENAME(ETXTBSY), ENAME(ENOSPC), ENAME(EROFS), ENAME(EMLINK),
	ENAME(ENAMETOOLONG), ENAME(ENOSYS), ENAME(ELOOP), ENAME(EUSERS),
	ENAME(EOPNOTSUPP), ENAME(EOVERFLOW)
};

/* errno as "Operation not permitted (EPERM)". */
static const char *
errstr(int e, char *buf, size_t len)
{
	const char *n = "?";
	size_t i;

	for (i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].e == e)
			n = errno_names[i].name;
	snprintf(buf, len, "%s (%s)", strerror(e), n);
	return buf;
}

#ifdef ES_SBX_STATIC
/* No preload enters a static program: its execve is libc's own. */
static es_execve_fn
libc_execve(void)
{
	return execve;
}
#else
/* Under ASan (dynamic): the shim may be preloaded, libc's execve by name. */
static es_execve_fn
libc_execve(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	es_execve_fn f = NULL;

	/* libc's own symbol: the shim's execve would redirect us to ourselves */
	if (h != NULL)
		*(void **)&f = dlsym(h, "execve");
	if (f == NULL)
		es_sbx_refuse("cannot find libc's execve: %s", dlerror());
	return f;
}
#endif

/* A number from /proc/sys, or -1: only to say why, never to decide. */
static long
read_sysctl(const char *path)
{
	char buf[32];

	if (es_sbx_read_small(path, 0, buf, sizeof(buf)) == -1)
		return -1;
	return strtol(buf, NULL, 10);
}

#define SYS_USERNS_MAX	"/proc/sys/user/max_user_namespaces"
#define SYS_USERNS_CLONE "/proc/sys/kernel/unprivileged_userns_clone"
#define SYS_APPARMOR	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns"

/* Why user namespaces are unavailable, and what fixes it. */
static void
userns_cause(int e, char *buf, size_t len)
{
	char eb[128];
	long v;

	if ((e == ENOSPC || e == EUSERS) &&
	    (v = read_sysctl(SYS_USERNS_MAX)) == 0)
		snprintf(buf, len, "user namespaces are disabled "
		    "(user.max_user_namespaces=0); fix: sysctl -w "
		    "user.max_user_namespaces=10000");
	else if (e == ENOSPC || e == EUSERS)
		snprintf(buf, len, "the user namespace limit is reached "
		    "(user.max_user_namespaces=%ld, or 32 levels of nesting); "
		    "fix: raise user.max_user_namespaces", v);
	else if (e == EPERM && read_sysctl(SYS_USERNS_CLONE) == 0)
		snprintf(buf, len, "unprivileged user namespaces are disabled "
		    "(kernel.unprivileged_userns_clone=0); fix: sysctl -w "
		    "kernel.unprivileged_userns_clone=1");
	else if (e == EPERM && read_sysctl(SYS_APPARMOR) == 1)
		snprintf(buf, len, "AppArmor restricts unprivileged user "
		    "namespaces (kernel.apparmor_restrict_unprivileged_userns=1); "
		    "fix: install envshim's AppArmor profile (it allows "
		    "\"userns,\") or sysctl -w "
		    "kernel.apparmor_restrict_unprivileged_userns=0");
	else if (e == EINVAL)
		snprintf(buf, len, "the kernel has no user namespaces "
		    "(CONFIG_USER_NS); fix: use a kernel with them, or set "
		    "\"sandbox optional\"");
	else
		snprintf(buf, len, "cannot create user namespaces: %s; fix: "
		    "allow unprivileged user namespaces (a container or "
		    "seccomp filter may forbid them), or set \"sandbox "
		    "optional\"", errstr(e, eb, sizeof(eb)));
}

/* The log file, opened once before the outer may join the session's view. */
static int logfd = -1;

/*
 * Where records go, made ready while the outer still sees the host: the
 * log file held open, or syslog's socket connected.  A joined outer is in
 * the session's view, which holds neither the log nor /dev/log.
 */
static void
log_open(const struct es_policy *p, const char *log)
{
	if (p->log == ES_LOG_SYSLOG)
		openlog(NULL, LOG_NDELAY, LOG_AUTHPRIV);
	else if (p->log != ES_LOG_OFF && p->log != ES_LOG_STDERR && log != NULL)
		logfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		    O_NOCTTY | O_CLOEXEC, 0600);
}

/* One record to where the policy logs: one write. */
static void
audit_put(const struct es_policy *p, const char *line, long n)
{
	if (p->log == ES_LOG_STDERR)
		(void)!write(STDERR_FILENO, line, (size_t)n);
	else if (p->log == ES_LOG_SYSLOG)
		syslog(LOG_AUTHPRIV | LOG_WARNING, "envshim: %.*s", (int)n - 1,
		    line);
	else if (logfd >= 0)
		(void)es_log_append(logfd, line, (size_t)n);
}

/* "sandbox optional" without a sandbox: said in the audit log, one write. */
static void
audit_unconfined(const struct es_policy *p, const struct es_sbx_plan *pl,
    const char *reason)
{
	char line[ES_LOG_LINE];
	struct es_audit a;
	struct timespec now;
	long n;

	if (p->log == ES_LOG_OFF)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&a, 0, sizeof(a));
	a.time_ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	a.pid = (long)getpid();
	a.ppid = (long)getppid();
	a.hook = "sandbox";
	a.path = pl->path;
	a.argv = pl->argv;
	a.action = "unconfined";
	a.reason = reason;
	a.audit_mode = p->mode == ES_MODE_AUDIT;
	a.p = p;
	if ((n = es_audit_format(&a, line, sizeof(line))) > 0)
		audit_put(p, line, n);
}

/* Is path the sessions' base, which every sandbox of a session hides? */
static int
session_base(const struct es_sbx_plan *pl, const char *path)
{
	size_t n = strlen(path);

	return pl->s_dir != NULL && strncmp(pl->s_dir, path, n) == 0 &&
	    pl->s_dir[n] == '/' && strchr(pl->s_dir + n + 1, '/') == NULL;
}

/*
 * What this sandbox hides that exists now, by path (never contents or
 * sizes): one record after the launch's own, with its pid, which
 * `envshim log` shows as part of that launch.  Not the sessions' base:
 * envshim's own, hidden in every session.
 */
static void
audit_hidden(const struct es_policy *p, const struct es_sbx_plan *pl,
    const char *home)
{
	char line[ES_LOG_LINE];
	const char **v;
	struct es_audit a;
	struct timespec now;
	size_t i, k = 0;
	long n;

	if (p->log == ES_LOG_OFF ||
	    (v = calloc(pl->nmnt + 1, sizeof(*v))) == NULL)
		return;
	for (i = 0; i < pl->nmnt; i++)
		if ((pl->mnt[i].kind == ES_MK_HIDE_DIR ||
		    pl->mnt[i].kind == ES_MK_HIDE_FILE) &&
		    !session_base(pl, pl->mnt[i].path))
			v[k++] = pl->mnt[i].path;
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&a, 0, sizeof(a));
	a.time_ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	a.pid = (long)pl->outer;
	a.ppid = (long)getppid();
	a.hook = "sandbox";
	a.path = pl->path;
	a.action = "hidden";
	a.audit_mode = p->mode == ES_MODE_AUDIT;
	a.p = p;
	a.hidden = v;
	a.nhidden = k;
	a.home = home;
	if (k > 0 && (n = es_audit_format(&a, line, sizeof(line))) > 0)
		audit_put(p, line, n);
	free(v);
}

/*
 * The socket the command's records come over (the log is not in the
 * sandbox): a datagram socket, one message a record, that init binds at
 * ES_LOG_SOCK in the command's own /dev/shm.  None when records go
 * nowhere, or to stderr, which the shim inside writes itself.
 */
static void
records_open(const struct es_policy *p, struct es_sbx_plan *pl)
{
	if (p->log == ES_LOG_SYSLOG || logfd >= 0)
		pl->recfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/*
 * A message from inside that is no record, as a record of this outer's
 * saying so, marked as from inside: its first ES_LOG_RAW bytes as one
 * string (escaped: never as it came).
 */
static long
rejected(const struct es_policy *p, const struct es_sbx_plan *pl,
    const char *sess, const char *msg, size_t len, const char *why,
    char *line, size_t cap)
{
	struct es_audit a;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	memset(&a, 0, sizeof(a));
	a.time_ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	a.hook = "sandbox";
	a.path = "";
	a.action = "rejected";
	a.reason = why;
	a.inside = 1;
	a.sandbox = (long)pl->outer;
	a.session = sess;
	a.audit_mode = p->mode == ES_MODE_AUDIT;
	a.p = p;
	a.raw = msg;
	a.nraw = len < ES_LOG_RAW ? len : ES_LOG_RAW;
	return es_audit_format(&a, line, cap);
}

/*
 * Up to max messages from inside, never waiting: each becomes a record of
 * its own that this outer marks (es_audit_mark: "inside" and "sandbox"
 * are its to say, never the sender's), or, when it is no record, one that
 * says so.  0 when nothing is left to read now; -1 when the socket is
 * broken.
 */
static int
records(const struct es_policy *p, const struct es_sbx_plan *pl, int max)
{
	static char msg[ES_LOG_LINE], line[ES_LOG_LINE];
	const char *sess = pl->s_dir != NULL ? strrchr(pl->s_dir, '/') + 1 : NULL;
	struct iovec iov;
	struct msghdr mh;
	ssize_t r;
	long n;

	while (max-- > 0) {
		iov.iov_base = msg;
		iov.iov_len = sizeof(msg);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		/* no room for control messages: descriptors sent are closed */
		if ((r = recvmsg(pl->recfd, &mh, MSG_DONTWAIT)) == -1)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR ? 0 : -1;
		if (r == 0)
			continue;	/* an empty message */
		if (mh.msg_flags & MSG_TRUNC)
			n = rejected(p, pl, sess, msg, (size_t)r,
			    "longer than one record", line, sizeof(line));
		else if ((n = es_audit_mark(msg, (size_t)r, (long)pl->outer,
		    sess, line, sizeof(line))) < 0)
			n = rejected(p, pl, sess, msg, (size_t)r,
			    "not one audit record", line, sizeof(line));
		if (n > 0)
			audit_put(p, line, n);
	}
	return 0;
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

/* Marks lo..hi close-on-exec: close_range (5.11+), else one fcntl each. */
static void
cloexec_range(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int fd;
	int f;

	if (lo > hi || syscall(SYS_close_range, lo, hi, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	for (fd = lo; fd <= hi && fd < rl.rlim_cur; fd++)
		if ((f = fcntl((int)fd, F_GETFD)) != -1 && !(f & FD_CLOEXEC))
			(void)fcntl((int)fd, F_SETFD, f | FD_CLOEXEC);
}

/*
 * Only stdin, stdout and stderr cross into the sandbox, as sudo closes
 * the rest: a descriptor the agent left inheritable (a credential file,
 * a socket) is closed at the command's exec.  The one a descriptor
 * launch names (/proc/self/fd/N, fexecve's) stays for that exec.
 */
static void
only_stdio(const char *path)
{
	unsigned int keep = 0;
	const char *p;

	if (strncmp(path, "/proc/self/fd/", 14) == 0)
		for (p = path + 14; *p >= '0' && *p <= '9' && keep < 1u << 20; p++)
			keep = keep * 10 + (unsigned int)(*p - '0');
	if (keep < 3) {
		cloexec_range(3, ~0U);
		return;
	}
	cloexec_range(3, keep - 1);
	cloexec_range(keep + 1, ~0U);
}

/* Ends the outer the way the command ended: same status, same signal. */
static void __attribute__((noreturn))
mirror(int st)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;
	int sig;

	if (WIFEXITED(st))
		exit(WEXITSTATUS(st));
	if (!WIFSIGNALED(st))
		exit(ES_SBX_EXIT);
	sig = WTERMSIG(st);
	setrlimit(RLIMIT_CORE, &none);	/* the command's core, not ours */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);
}

/* The command's wait status; a signal we forward does not end the wait. */
static int
wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			es_sbx_refuse("waitpid: %s", strerror(errno));
	return st;
}


/* Runs the command in a new session without namespaces (sandbox optional). */
static void __attribute__((noreturn))
unconfined(struct es_sbx_plan *pl)
{
	pid_t pid;
	size_t i;

	/* no namespace: the identity slot goes */
	for (i = 0; pl->envp[i] != pl->nsvar; i++)
		;
	for (; pl->envp[i] != NULL; i++)
		pl->envp[i] = pl->envp[i + 1];
	if ((pid = fork()) == -1)
		es_sbx_refuse("fork: %s", strerror(errno));
	if (pid == 0) {
		es_sbx_sig_restore();
		sigprocmask(SIG_SETMASK, &pl->mask, NULL);
		if (setsid() == -1 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
			_exit(ES_SBX_EXIT);
		pl->exec(pl->path, pl->argv, pl->envp);
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl->path,
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	es_sbx_sig_to(pid);
	es_sbx_sig_forward(1);
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	mirror(wait_for(pid));
}

/* "sandbox setup failed: STEP [PATH]: ERRNO", with AppArmor's part if it is that. */
static void
setup_failed(const struct es_sbx_plan *pl, const struct es_sbx_msg *f,
    char *why, size_t len)
{
	char eb[128];
	size_t k;

	snprintf(why, len, "sandbox setup failed: %s%s%s: %s",
	    step_name[f->step], f->item >= 0 ? " " : "",
	    f->item >= 0 ? pl->mnt[f->item].path : "",
	    errstr(f->err, eb, sizeof(eb)));
	if (f->err == EPERM && read_sysctl(SYS_APPARMOR) == 1) {
		k = strlen(why);
		snprintf(why + k, len - k, "; ");
		userns_cause(EPERM, why + k + 2, len - k - 2);
	}
}

/*
 * Bad usage is envshim's failure too: 125, never a status of the command.
 * Asked for (--help), it is an answer: stdout and 0.
 */
static void __attribute__((noreturn))
usage(int asked)
{
	fprintf(asked ? stdout : stderr, "usage: envshim-sandbox [--policy FILE] "
	    "[--argv0 NAME] [--cap NAME=VALUE]... [--] COMMAND [ARGS...]\n"
	    "       envshim-sandbox --help | --version\n");
	exit(asked ? 0 : ES_SBX_EXIT);
}

/*
 * The outer, in order: refuse setuid, read the policy, plan, clone init,
 * pass signals on, then end the way the command ended.
 */
int
main(int argc, char *argv[])
{
	static struct es_sbx_plan pl;
	static struct es_policy pol;
	struct es_parse_err perr;
	const char *polfile = NULL, *argv0 = NULL, *cfg, *home;
	static const char *caps[ES_MAX_CAPVARS];
	size_t ncap = 0;
	static char *log;	/* held, like the plan, until the process ends */
	char why[512], eb[128], cwd[ES_PATH_MAX];
	int msgp[2], alivep[2], flags, i, st = 0, got = 0, pe, joined, held;
	ssize_t n;
	struct es_sbx_msg m, fmsg;
	struct pollfd pf[2];
	pid_t ppid = getppid(), pid;
	sigset_t all;

	if (getauxval(AT_SECURE) || geteuid() != getuid() ||
	    getegid() != getgid()) {
		dprintf(STDERR_FILENO, "envshim-sandbox: refusing to run "
		    "setuid or setgid\n");
		return ES_SBX_EXIT;
	}
	/*
	 * Its environment is the command's: a program rule's token, what a
	 * keep rule hands every shell.  Undumpable, nothing of its user reads
	 * it from /proc; init, its clone, never turns dumpable either (the
	 * user namespace is made by a scrubbed clone: es_sbx_userns).
	 */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		dprintf(STDERR_FILENO, "envshim-sandbox: PR_SET_DUMPABLE: %s\n",
		    strerror(errno));
		return ES_SBX_EXIT;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
			polfile = argv[++i];
		else if (strcmp(argv[i], "--argv0") == 0 && i + 1 < argc)
			argv0 = argv[++i];
		else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc &&
		    ncap < ES_MAX_CAPVARS)
			caps[ncap++] = argv[++i];
		else if (strcmp(argv[i], "--help") == 0)
			usage(1);
		else if (strcmp(argv[i], "--version") == 0) {
			printf("envshim-sandbox %s\n", ES_VERSION);
			return 0;
		} else if (argv[i][0] == '-')
			usage(0);
		else
			break;
	}
	if (i >= argc)
		usage(0);
	es_sbx_refuse_as(argv[i]);

	if (polfile != NULL)
		pe = es_policy_load_file(&pol, polfile, &perr);
	else if ((cfg = getenv("ENVSHIM_CONFIG")) != NULL)
		pe = es_policy_load_text(&pol, cfg, "ENVSHIM_CONFIG", &perr);
	else
		pe = es_policy_load_root(&pol, NULL, &perr);
	if (pe == -1)
		es_sbx_refuse("policy: %s",
		    es_parse_err_str(&perr, why, sizeof(why)));

	pl.path = es_sbx_resolve(argv[i]);
	pl.argv = &argv[i];
	pl.args = argv[0];
	pl.nargs = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	if (argv0 != NULL)
		pl.argv[0] = (char *)argv0;
	es_sbx_plan_env(&pl);
	pl.exec = libc_execve();
	es_sbx_sig_save();

	if (pol.sandbox == ES_SANDBOX_OFF) {
		pl.exec(pl.path, pl.argv, environ);
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl.path,
		    strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}

	home = es_sbx_home();
	pl.ws = es_sbx_workspace(home);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		es_sbx_refuse("cannot read the working directory: %s",
		    strerror(errno));
	pl.cwd = cwd;
	pl.uid = getuid();
	pl.outer = getpid();
	pl.gid = getgid();
	pl.sysowner = es_sbx_sysowner(pl.uid);
	pl.home = home;
	pl.usernsfd = -1;
	pl.netns = !pol.network;
	pl.logfd = pl.recfd = -1;
	log = es_sbx_log_path(&pol, home);
	log_open(&pol, log);
	pl.logfd = logfd;
	es_sbx_plan_session(&pl, &pol, home);
	es_sbx_plan_mounts(&pl, &pol, home, log);
	es_sbx_plan_caps(&pl, &pol, home, caps, ncap);
	es_sbx_plan_reveal(&pl, home);
	audit_hidden(&pol, &pl, home);

	only_stdio(pl.path);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		es_sbx_refuse("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
	    getppid() != ppid)
		es_sbx_refuse("the caller exited");
	/* before a session's namespaces are joined: its /proc is not ours */
	es_sbx_tty_plan(&pl);
	/*
	 * Signals wait until someone is there to receive them; also while a
	 * keeper starts, which a signal must not leave without its file.
	 */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &pl.mask);
	/*
	 * Root builds its own view as ES_SBX_ROOT_KUID where it can: the
	 * outer enters that user namespace (idmap.c: made while the outer
	 * still holds its capabilities), as a joined one enters the
	 * keeper's, and from then on there is no way back either.
	 */
	held = 0;
	if (!(joined = es_sbx_join(&pl, &pol))) {
		snprintf(why, sizeof(why), "%ld", (long)pl.outer);
		es_sbx_workdir(&pl, why);
		held = es_sbx_idmap(&pl, home) == 0;
		if (held && setns(pl.usernsfd, CLONE_NEWUSER) == -1)
			es_sbx_refuse("cannot enter the sandbox's user "
			    "namespace: %s", strerror(errno));
		/* no user namespace: the only way a command may run unconfined */
		if (!held && es_sbx_userns(&pl, &fmsg) == -1) {
			if (fmsg.kind == 0)
				userns_cause(fmsg.err, why, sizeof(why));
			else
				setup_failed(&pl, &fmsg, why, sizeof(why));
			if (pol.sandbox != ES_SANDBOX_OPTIONAL ||
			    fmsg.step == ES_S_PARENT)
				es_sbx_refuse("%s", why);
			audit_unconfined(&pol, &pl, why);
			unconfined(&pl);
		}
	}
	if (pipe2(msgp, O_CLOEXEC) == -1 || pipe2(alivep, O_CLOEXEC) == -1)
		es_sbx_refuse("pipe: %s", strerror(errno));
	pl.msgfd = msgp[1];
	pl.alivefd = alivep[0];
	records_open(&pol, &pl);

	/* the user namespace is ours already: the session's, idmap.c's or es_sbx_userns's */
	flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
	    (pl.netns ? CLONE_NEWNET : 0);
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
	    NULL);
	if (pid == 0) {
		close(msgp[0]);
		close(alivep[1]);
		es_sbx_init(&pl);
	}
	close(msgp[1]);
	close(alivep[0]);
	if (held)
		es_sbx_idmap_release(&pl);	/* init has its copies */
	if (pid == -1)
		es_sbx_refuse("cannot clone into the %s sandbox: %s",
		    joined ? "session's" : "command's",
		    errstr(errno, eb, sizeof(eb)));
	es_sbx_sig_to(pid);
	es_sbx_sig_forward(0);
	sigprocmask(SIG_SETMASK, &pl.mask, NULL);

	/*
	 * init's report: a setup failure, the command's exec failure, a
	 * status.  The status comes when nothing else runs inside, so the
	 * outer ends then, without waiting for init: tearing down init's
	 * namespaces (an RCU grace period for the mounts) need not delay
	 * the caller.  A report cut short is init's death.  Meanwhile the
	 * records from inside are written as they come, ES_LOG_BURST at a
	 * time, so a flood of them never holds the report up; once the
	 * status is in, what was sent before is taken, ES_LOG_DRAIN at most
	 * (the socket's path, passed to another sandbox, could be sent to
	 * for ever).
	 */
	memset(&fmsg, 0, sizeof(fmsg));
	pf[0].fd = msgp[0];
	pf[1].fd = pl.recfd;
	pf[0].events = pf[1].events = POLLIN;
	while (!got) {
		/* on a terminal, relayed until there is a report or a record */
		es_sbx_tty_relay(&pl, msgp[0], pf[1].fd);
		if (poll(pf, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			es_sbx_refuse("poll: %s", strerror(errno));
		}
		if (pf[1].revents != 0 &&
		    records(&pol, &pl, ES_LOG_BURST) == -1)
			pf[1].fd = -1;
		if (pf[0].revents == 0)
			continue;
		if ((n = read(msgp[0], &m, sizeof(m))) == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m))
			break;
		if (m.kind == ES_M_FAIL && fmsg.kind == 0)
			fmsg = m;
		else if (m.kind == ES_M_STATUS) {
			st = m.status;
			got = 1;
		}
	}
	if (pf[1].fd >= 0)
		(void)records(&pol, &pl, ES_LOG_DRAIN);
	es_sbx_tty_end(&pl);
	if (fmsg.kind == ES_M_FAIL && fmsg.step == ES_S_EXEC) {
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl.path,
		    strerror(fmsg.err));
		return fmsg.err == ENOENT ? 127 : 126;
	}
	/* the outer is in the sandbox's user namespace by now: no way out */
	if (fmsg.kind == ES_M_FAIL) {
		setup_failed(&pl, &fmsg, why, sizeof(why));
		es_sbx_refuse("%s", why);
	}
	if (!got)
		es_sbx_refuse("sandbox init ended without a status");
	mirror(st);
}

