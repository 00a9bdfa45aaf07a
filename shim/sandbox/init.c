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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/keyctl.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

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
 * "ENVSHIM_SANDBOX_NS=<userns ino>:<mntns ino>:<outer pid>", as the command
 * will see it.  The shim proves "inside" by the first two; the third ties
 * records from inside (whose pids are this namespace's) to the launch.
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
	return 0;
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

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_PDEATHSIG, -1);
	/* the outer never writes: a hangup means it died before PDEATHSIG */
	if (poll(&alive, 1, 0) != 0) {
		errno = ESRCH;
		es_sbx_fail(pl, ES_S_PARENT, -1);
	}
	close(pl->alivefd);
	/* a command joining the session's view finds it mapped and built */
	if (!pl->joined) {
		map_ids(pl);
		(void)es_sbx_mounts_base(pl);
	}
	es_sbx_mounts_own(pl);
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
	 * ps shows a process's argv: the first command's (a tool call's
	 * text, perhaps a token on it) must not stay on show all run long.
	 */
	memset(pl->args, 0, pl->nargs);
	memcpy(pl->args, "envshim-sandbox", pl->nargs < 15 ? pl->nargs : 15);
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
	close_from(0, pl->rootfd);
	close_from(pl->rootfd + 1, -1);
	while (poll(&root, 1, -1) == -1 && errno == EINTR)
		;
	_exit(0);
}
