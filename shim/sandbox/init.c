/*
 * init.c - envshim-sandbox: pid 1 of the new namespaces, and the
 * command it starts.
 *
 * init maps the caller's ids, builds the view (mount.c), drops every
 * capability, takes a new session, keyring and Landlock domain, vforks
 * the command, reaps until it ends, and reports over plan.msgfd.  All of
 * it runs in a clone of the outer, on memory the outer prepared: only
 * async-signal-safe calls, no malloc, stdio or lookups.  Files are opened
 * with openat(AT_FDCWD, ...): musl's open() follows O_CLOEXEC with an
 * fcntl, for kernels older than the flag.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_landlock.h"
#include "sbx.h"

/* The whole string in one write: a /proc map file takes no second one. */
static int
write_file(const char *path, const char *s)
{
	size_t n = strlen(s);
	int fd, e;

	if ((fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	if (write(fd, s, n) != (ssize_t)n) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* "id id 1": the caller's id stays itself inside, nothing else exists. */
static int
write_map(const char *path, unsigned long id)
{
	char map[64];
	size_t off = 0;

	es_sbx_put_ulong(map, sizeof(map), &off, id);
	es_sbx_put_str(map, sizeof(map), &off, " ");
	es_sbx_put_ulong(map, sizeof(map), &off, id);
	es_sbx_put_str(map, sizeof(map), &off, " 1\n");
	return write_file(path, map);
}

extern char **environ;

/* The caller's ids, themselves inside; nothing else exists. */
static void
map_ids(const struct es_sbx_plan *pl)
{
	/* setgroups first: a gid map is refused while setgroups is allowed */
	if (write_map("/proc/self/uid_map", pl->uid) == -1)
		es_sbx_fail(pl, ES_S_MAP_UID, -1);
	if (write_file("/proc/self/setgroups", "deny") == -1)
		es_sbx_fail(pl, ES_S_SETGROUPS, -1);
	if (write_map("/proc/self/gid_map", pl->gid) == -1)
		es_sbx_fail(pl, ES_S_MAP_GID, -1);
}

/* Capabilities go before anything runs: bounding set, ambient, then all. */
static int
drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int c;

	/* EINVAL: past the kernel's last capability, nothing more to drop */
	for (c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1) {
			if (errno != EINVAL || c == 0)
				return -1;
			break;
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * The kernel's keyrings are not namespaced: the user keyring of the
 * caller's uid (root's, when the agent is root) stays reachable by its
 * serial number from inside, whatever session keyring the command
 * joined, and a key planted there is found by the user's processes
 * outside.  So keyctl, add_key and request_key fail inside with ENOSYS,
 * as on a kernel without keys (Docker denies the same three), in this
 * architecture's system-call table and in its 32-bit one.
 */
#define KEYS_DENY(nr)	\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS)
#define LOAD(field)	\
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* the 32-bit table's numbers of add_key, request_key and keyctl */
#define COMPAT(arch, a, r, k)	\
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (arch), 0, 8), LOAD(nr), \
	KEYS_DENY(a), KEYS_DENY(r), KEYS_DENY(k), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
static int
no_keys(void)
{
	static const struct sock_filter f[] = {
		LOAD(arch),
#if defined(__x86_64__)
		COMPAT(AUDIT_ARCH_I386, 286, 287, 288), LOAD(nr),
		/* x32 numbers are x86-64's with bit 30 set */
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~0x40000000U),
#elif defined(__aarch64__)
		COMPAT(AUDIT_ARCH_ARM, 309, 310, 311), LOAD(nr),
#else
		LOAD(nr),
#endif
		KEYS_DENY(SYS_add_key), KEYS_DENY(SYS_request_key),
		KEYS_DENY(SYS_keyctl),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]),
	    (struct sock_filter *)f };

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/*
 * What a root caller's command creates is root's on the disk (the
 * workspace's files are uid 0's, idmapped or not), and an owner may set
 * its own file's setuid bit: a copy of a shell, 4755, left in the
 * workspace would make root of whoever runs it outside.  So chmod,
 * fchmod, fchmodat and fchmodat2, and open, openat, creat, mknod and
 * mknodat with a mode, fail with EPERM when the mode asks for S_ISUID
 * or S_ISGID; openat2, whose mode is in memory a filter cannot read,
 * fails with ENOSYS (libc falls back to openat).  The filter is built
 * on the stack: the 32-bit table's block jumps over itself.
 */
struct bpf {
	struct sock_filter	f[128];
	unsigned int		n;
	int			full;
};

static void
ins(struct bpf *b, struct sock_filter s)
{
	if (b->n < sizeof(b->f) / sizeof(b->f[0]))
		b->f[b->n++] = s;
	else
		b->full = 1;
}

/* nr with mode argument a asking for a set-id bit: EPERM (nr unchanged otherwise) */
static void
mode_deny(struct bpf *b, unsigned int nr, unsigned int a)
{
	const struct sock_filter s[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4),
		/* the low 32 bits: both supported architectures are little-endian */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args) + 8 * a),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		ins(b, s[i]);
}

/* One table's calls: nr[] of chmod, fchmod, fchmodat, fchmodat2, open,
 * openat, creat, mknod, mknodat (0: none in it), and openat2. */
static void
setid_table(struct bpf *b, const unsigned int nr[10])
{
	static const unsigned char arg[9] = { 1, 1, 2, 2, 2, 3, 1, 1, 2 };
	size_t i;

	for (i = 0; i < 9; i++)
		if (nr[i] != 0)
			mode_deny(b, nr[i], arg[i]);
	ins(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr[9],
	    0, 1));
	ins(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ERRNO | ENOSYS));
}

/*
 * io_uring's IORING_OP_OPENAT creates a file with a mode no system-call
 * filter sees (a hostile review made a setuid root file so): a root
 * caller's command has no io_uring, ENOSYS as on a kernel without it
 * (libuv and the rest fall back).  Its three calls have one number in
 * every table.
 */
static void
no_uring(struct bpf *b)
{
	unsigned int nr;

	for (nr = 425; nr <= 427; nr++) {
		ins(b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    nr, 0, 1));
		ins(b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		    SECCOMP_RET_ERRNO | ENOSYS));
	}
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2	452
#endif
#ifndef SYS_openat2
#define SYS_openat2	437
#endif
#ifdef SYS_chmod
#define LEGACY(x)	SYS_##x
#else
#define LEGACY(x)	0	/* aarch64 has only the *at calls */
#endif

static int
no_setid(void)
{
	static const unsigned int native[10] = {
		LEGACY(chmod), SYS_fchmod, SYS_fchmodat, SYS_fchmodat2,
		LEGACY(open), SYS_openat, LEGACY(creat), LEGACY(mknod),
		SYS_mknodat, SYS_openat2
	};
#if defined(__x86_64__)
	static const unsigned int compat[10] = {	/* i386 */
		15, 94, 306, 452, 5, 295, 8, 14, 297, 437
	};
	const unsigned int arch = AUDIT_ARCH_I386;
#elif defined(__aarch64__)
	static const unsigned int compat[10] = {	/* arm */
		15, 94, 333, 452, 5, 322, 8, 14, 324, 437
	};
	const unsigned int arch = AUDIT_ARCH_ARM;
#endif
	struct sock_fprog prog;
	struct bpf b;
	unsigned int at;

	b.n = 0;
	b.full = 0;
	ins(&b, (struct sock_filter)LOAD(arch));
#if defined(__x86_64__) || defined(__aarch64__)
	at = b.n;
	ins(&b, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch,
	    0, 0));
	ins(&b, (struct sock_filter)LOAD(nr));
	setid_table(&b, compat);
	no_uring(&b);
	ins(&b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW));
	b.f[at].jf = (unsigned char)(b.n - at - 1);
#endif
	ins(&b, (struct sock_filter)LOAD(nr));
#if defined(__x86_64__)
	ins(&b, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
	    ~0x40000000U));
#endif
	setid_table(&b, native);
	no_uring(&b);
	ins(&b, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW));
	if (b.full) {
		errno = E2BIG;
		return -1;
	}
	prog.len = (unsigned short)b.n;
	prog.filter = b.f;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/*
 * The command: a new session, whose controlling terminal is none or one
 * of its own (tty.c), never the caller's (TIOCSTI), then exec.
 */
static void __attribute__((noreturn))
run_command(const struct es_sbx_plan *pl)
{
	struct es_sbx_msg m = { ES_M_FAIL, ES_S_EXEC, 0, -1, 0, 0 };

	es_sbx_sig_restore();
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	if (setsid() == -1)
		m.step = ES_S_SETSID;
	else if (pl->tty.on && es_sbx_tty_take(pl) == -1)
		m.step = ES_S_TTY;
	else if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		m.step = ES_S_PDEATHSIG;
	else if (getppid() != 1) {
		errno = ESRCH;
		m.step = ES_S_PARENT;
	} else
		pl->exec(pl->path, pl->argv, pl->envp);
	m.err = errno;
	(void)!write(pl->msgfd, &m, sizeof(m));
	_exit(m.err == ENOENT ? 127 : 126);
}

/*
 * "ENVSHIM_SANDBOX_NS=<userns ino>:<mntns ino>:<outer pid>[:<ino>]", as
 * the command will see it.  The shim proves "inside" by the first two;
 * the third ties records from inside (whose pids are this namespace's) to
 * the launch; the last is the inode of the socket at ES_LOG_SOCK its
 * records go to the outer over.
 */
static int
set_nsvar(struct es_sbx_plan *pl)
{
	const size_t len = sizeof(pl->nsvar);
	char *v = pl->nsvar;
	struct stat u, mn;
	size_t off = 0;

	if (stat("/proc/self/ns/user", &u) == -1 ||
	    stat("/proc/self/ns/mnt", &mn) == -1)
		return -1;
	es_sbx_put_str(v, len, &off, "ENVSHIM_SANDBOX_NS=");
	es_sbx_put_ulong(v, len, &off, (unsigned long)u.st_ino);
	es_sbx_put_str(v, len, &off, ":");
	es_sbx_put_ulong(v, len, &off, (unsigned long)mn.st_ino);
	es_sbx_put_str(v, len, &off, ":");
	es_sbx_put_ulong(v, len, &off, (unsigned long)pl->outer);
	if (pl->recino != 0) {
		es_sbx_put_str(v, len, &off, ":");
		es_sbx_put_ulong(v, len, &off, (unsigned long)pl->recino);
	}
	return 0;
}

/*
 * The outer's records socket, bound at ES_LOG_SOCK in the command's own
 * /dev/shm (its mounts are made): what the shim inside sends there, the
 * outer reads.  Its inode goes into nsvar.  Writable by whoever runs
 * inside, whatever the caller's umask (a connect needs write).  Without
 * it records from inside are lost, and the command runs all the same.
 */
static void
records_here(struct es_sbx_plan *pl)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = ES_LOG_SOCK };
	struct stat st;

	if (pl->recfd < 0)
		return;
	if (bind(pl->recfd, (struct sockaddr *)&sun, sizeof(sun)) == 0 &&
	    chmod(ES_LOG_SOCK, 0666) == 0 &&
	    lstat(ES_LOG_SOCK, &st) == 0 && S_ISSOCK(st.st_mode))
		pl->recino = (unsigned long long)st.st_ino;
	else
		close(pl->recfd);
}

/*
 * pid 1 of the new namespaces.  Its death kills everything inside, so it
 * stays until the command ends, reaping orphans and passing signals on.
 */
void
es_sbx_init(struct es_sbx_plan *pl)
{
	struct pollfd alive = { pl->alivefd, POLLIN, 0 };
	struct es_sbx_msg m = { ES_M_STATUS, 0, 0, -1, 0, 0 };
	pid_t pid, cmd;
	int st;

	/* the log is not ours */
	if (pl->logfd >= 0)
		close(pl->logfd);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_PDEATHSIG, -1);
	/* the outer never writes: a hangup means it died before PDEATHSIG */
	if (poll(&alive, 1, 0) != 0) {
		errno = ESRCH;
		es_sbx_fail(pl, ES_S_PARENT, -1);
	}
	close(pl->alivefd);
	/*
	 * The user namespace is mapped already (es_sbx_map made it, or for
	 * root idmap.c's, whose maps the outer wrote); a command joining the
	 * session's view finds that built too, and in idmap.c's namespace
	 * takes the ids the view was built with (or the view takes them:
	 * mount.c).
	 */
	if (pl->idmap && pl->joined)
		es_sbx_root_ids(pl);
	if (!pl->joined)
		(void)es_sbx_mounts_base(pl);
	es_sbx_mounts_own(pl);
	records_here(pl);
	es_sbx_reveal(pl);
	if (chdir(pl->cwd) == -1)
		es_sbx_fail(pl, ES_S_CHDIR, -1);
	if (set_nsvar(pl) == -1)
		es_sbx_fail(pl, ES_S_NSID, -1);
	/* nothing inside may ptrace pid 1 or inherit its powers */
	if (drop_caps() == -1 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_CAPS, -1);
	if (setsid() == -1)
		es_sbx_fail(pl, ES_S_SETSID, -1);
	/*
	 * A session keyring of its own: the caller's holds the user's keys,
	 * which KEYCTL_SEARCH and KEYCTL_READ from inside would hand over.
	 * A kernel without keys has nothing to hide.
	 */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1 &&
	    errno != ENOSYS)
		es_sbx_fail(pl, ES_S_KEYRING, -1);
	if (no_keys() == -1 || (pl->sysowner && no_setid() == -1))
		es_sbx_fail(pl, ES_S_SECCOMP, -1);
	/*
	 * Abstract sockets belong to the network namespace, which `network
	 * on` shares: Landlock (Linux 6.12+) keeps them, and signals, inside.
	 * An older kernel leaves that gap open, as the threat model says.
	 */
	if (es_landlock_scope() == -1)
		es_sbx_fail(pl, ES_S_LANDLOCK, -1);
	es_sbx_sig_forward(1);
	if (pl->tty.on)
		es_sbx_tty_open(pl);
	/*
	 * vfork: until its exec the command only makes system calls on
	 * memory init does not touch again, so init's pages need no copy.
	 */
	if ((cmd = vfork()) == -1)
		es_sbx_fail(pl, ES_S_FORK, -1);
	if (cmd == 0)
		run_command(pl);
	if (pl->tty.on)
		close(pl->tty.slave);
	es_sbx_sig_to(cmd);
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	for (;;) {
		pid = waitpid(-1, &st, 0);
		if (pid == cmd)
			break;
		if (pid == -1 && errno != EINTR)
			_exit(ES_SBX_EXIT);
	}
	/*
	 * What the command left running ends before the status is told:
	 * the outer ends on it, and nothing of the sandbox may outlive it.
	 * Every process inside descends from init: with no child, init is alone.
	 */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) != -1 || errno == EINTR)
		;
	m.status = st;
	(void)!write(pl->msgfd, &m, sizeof(m));
	/*
	 * The outer's records socket, bound in this namespace's /dev/shm,
	 * holds that mount: the last to close it tears it down.  Let that
	 * be init, after the outer (PDEATHSIG), not the outer on its way out
	 * with the caller waiting.
	 */
	if (pl->recino != 0)
		for (;;)
			pause();
	_exit(0);
}

/*
 * Closes lo..hi-1 (hi -1: all): close_range (5.9+), else one by one up
 * to the descriptor limit.  A descriptor the keeper kept by mistake (a
 * tool's pipe) would hold the agent waiting for EOF.
 */
static void
close_from(int lo, int hi)
{
	struct rlimit rl;
	int fd, end;

	if (lo >= hi && hi != -1)
		return;
	if (syscall(SYS_close_range, (unsigned int)lo,
	    hi == -1 ? ~0U : (unsigned int)hi - 1, 0U) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur > 1 << 20)
		rl.rlim_cur = 1 << 20;
	end = hi == -1 ? (int)rl.rlim_cur : hi;
	for (fd = lo; fd < end; fd++)
		close(fd);
}

/*
 * Every descriptor but a and b (-1: none), which a process that turns
 * dumpable must not hold: a process of its user could take them
 * (pidfd_getfd), and the caller's may be a credential file or a socket
 * the agent left inheritable.
 */
static void
keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo < 0) {
		lo = hi;
		hi = -1;
	}
	if (lo < 0) {
		close_from(0, -1);
		return;
	}
	close_from(0, lo);
	if (hi < 0) {
		close_from(lo + 1, -1);
		return;
	}
	close_from(lo + 1, hi);
	close_from(hi + 1, -1);
}

/*
 * What this clone of the outer copied of the caller's environment and
 * argv, as zeros: every string the kernel laid out for the outer (what
 * /proc/PID/environ and cmdline read, and what the plan's envp and argv
 * point at), which may hold a program rule's token or what a keep rule
 * hands every shell.  A process of the same user reads all of a dumpable
 * process's memory; a clone must be dumpable to write its own uid_map,
 * so it scrubs first.  The plan holds its own copies of what the view
 * needs.
 */
static void
scrub(struct es_sbx_plan *pl)
{
	char **e;

	for (e = environ; e != NULL && *e != NULL; e++)
		memset(*e, 0, strlen(*e));
	memset(pl->args, 0, pl->nargs);
}

/*
 * The maker of a command's user namespace, a clone of the outer in a new
 * one: it scrubs, turns dumpable, maps the ids, reports READY and waits
 * to be killed.  The outer joins its namespace and clones init there
 * (outer.c), so neither of them, which hold the command's environment,
 * is ever dumpable.
 */
void
es_sbx_map(struct es_sbx_plan *pl)
{
	struct es_sbx_msg m = { ES_M_READY, 0, 0, -1, 0, 0 };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_PDEATHSIG, -1);
	if (getppid() != pl->outer) {
		errno = ESRCH;
		es_sbx_fail(pl, ES_S_PARENT, -1);
	}
	keep_only(pl->msgfd, -1);
	scrub(pl);
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_MAP_UID, -1);
	map_ids(pl);
	if (write(pl->msgfd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(ES_SBX_EXIT);
	close(pl->msgfd);
	for (;;)
		pause();	/* every signal blocked: until SIGKILL */
}

/*
 * The keeper: a clone of the session's first sandboxed command's outer,
 * in a user and mount namespace of its own, where it builds the view
 * the session's commands share (es_sbx_mounts_base) and holds it while
 * the launch root runs.  It keeps no descriptor of the caller's (a
 * kept pipe would hold a tool's output open), no terminal, no working
 * directory, no capability: it only waits.  Its end frees the view;
 * commands running in copies of it keep their own.
 */
void
es_sbx_keep(struct es_sbx_plan *pl)
{
	struct es_sbx_msg m = { ES_M_READY, 0, 0, -1, 0, 0 };
	struct pollfd root = { pl->rootfd, POLLIN, 0 };
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/*
	 * It holds the view all run, dumpable (the session's commands open
	 * its namespaces), so nothing of the first command's: no descriptor
	 * of its caller's, no string of its environment or argv (ps shows
	 * a process's argv: a tool call's text, perhaps a token on it).
	 */
	/* root's idmapped copies are descriptors the view is built from */
	if (!pl->idmap)
		keep_only(pl->msgfd, pl->rootfd);
	scrub(pl);
	memcpy(pl->args, "envshim-sandbox", pl->nargs < 15 ? pl->nargs : 15);
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_MAP_UID, -1);
	if (pl->idmap) {
		if (syscall(SYS_setns, pl->usernsfd, CLONE_NEWUSER) == -1 ||
		    syscall(SYS_unshare, CLONE_NEWNS) == -1)
			es_sbx_fail(pl, ES_S_SETUID, -1);
	} else
		map_ids(pl);
	m.dev = (unsigned long long)es_sbx_mounts_base(pl);
	/*
	 * Private: a mount the host makes later (a USB disk, an sshfs) would
	 * arrive with its own, writable, flags and stay for the whole run;
	 * the view keeps what it was built with.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		es_sbx_fail(pl, ES_S_ROOT_RO, -1);
	if (chdir("/") == -1)
		es_sbx_fail(pl, ES_S_CHDIR, -1);
	if (drop_caps() == -1)
		es_sbx_fail(pl, ES_S_CAPS, -1);
	if (setsid() == -1)
		es_sbx_fail(pl, ES_S_SETSID, -1);
	if (write(pl->msgfd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(ES_SBX_EXIT);
	/* every descriptor but the launch root's pidfd */
	keep_only(pl->rootfd, -1);
	while (poll(&root, 1, -1) == -1 && errno == EINTR)
		;
	_exit(0);
}
