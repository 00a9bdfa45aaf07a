/*
 * keeper.c - envshim-sandbox: the session's held view.
 *
 * Building the view (a user namespace, some sixty mounts, the home's
 * overlay) is most of what a sandboxed command costs, and every command
 * of one agent run builds the same one.  So the session's first command
 * starts a keeper (init.c, es_sbx_keep): a process that builds the view
 * once, in namespaces of its own, and holds it while the launch root
 * runs.  Every later command's outer joins the keeper's user and mount
 * namespaces and clones into a copy of the view with pid, IPC and UTS
 * namespaces of its own, where init adds only what is the command's own
 * (es_sbx_mounts_own).  The home's overlay is mounted once, so commands
 * that overlap share one mount of the layer, not one each.
 *
 * The session directory's keeper file names it, in one line:
 *
 *	PID KEY FRESH DEV USERNS MNTNS
 *
 * the keeper's pid, what its view was built from (plan_key) and how
 * fresh it is (fresh_key), the device of its placeholders, and its
 * namespaces' inode numbers, which tell it from a later process with its
 * pid.  A command whose plan differs (the agent ran a tool with another
 * policy) builds its own view, as without a session; a stale view of the
 * same plan is replaced.  Runs in the outer: may allocate; never after the clone.
 *
 * A command that joins no keeper (none can start, another plan's, a
 * program rule's subtree) gets its user namespace the same way, from a
 * clone that scrubbed what it copied of the caller (es_sbx_userns): the
 * outer, which holds the command's environment, never turns dumpable.
 */
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "es_session.h"
#include "sbx.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif
#ifndef NS_GET_PARENT
#define NS_GET_PARENT	_IO(0xb7, 0x2)	/* linux/nsfs.h, Linux 4.9 */
#endif

struct keeper {
	unsigned long long pid, key, fresh, dev, userns, mntns;
};

/* Is m part of the shared view?  Hidden and read-only paths are each command's. */
static int
shared(const struct es_sbx_mnt *m)
{
	return m->kind != ES_MK_HIDE_DIR && m->kind != ES_MK_HIDE_FILE &&
	    m->kind != ES_MK_RO;
}

/* One string into the key; a NULL differs from "". */
static uint64_t
mix(uint64_t h, const char *s)
{
	h ^= s == NULL ? 0x9e3779b97f4a7c15ULL : es_hash(s, strlen(s)) + 1;
	return h * 0x100000001b3ULL;
}

/*
 * Where a held view goes stale: the overlay keeps what it looked up in
 * the real home, so a file replaced there (git config's rename) or a
 * tool installed since (~/.local/bin) would stay unseen for the rest of
 * the run.  A change of these (inode, mtime) makes the view stale, and
 * the next command gets a new one.  Not the home itself, which the agent
 * rewrites at every turn (~/.claude.json by rename).  What changes
 * elsewhere is seen by the next view only.
 */
static const char *const watched[] = {
	"/.gitconfig", "/.config/git", "/.config/git/config", "/.local/bin",
	"/bin", "/.ssh", "/go/bin", "/.cargo/bin", "/.npm-global/bin"
};

/*
 * How fresh a view of this plan would be: the watched paths' state, and
 * the file each bind holds now (a bind follows its file, so one renamed
 * away, or made anew, a workspace recreated, needs a new view).
 */
static uint64_t
fresh_key(const struct es_sbx_plan *pl)
{
	char path[ES_PATH_MAX], num[96];
	uint64_t h = 0x84222325cbf29ce4ULL;
	struct stat st;
	size_t i;

	for (i = 0; i < pl->nmnt; i++) {
		if (!shared(&pl->mnt[i]))
			continue;
		if (stat(pl->mnt[i].path, &st) == -1)
			st.st_dev = st.st_ino = 0;
		snprintf(num, sizeof(num), "%llu:%llu",
		    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		h = mix(h, num);
	}
	if (pl->s_home == NULL)
		return h;	/* no overlay: binds of the real home are live */
	for (i = 0; i < sizeof(watched) / sizeof(watched[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", pl->s_home, watched[i]);
		if (stat(path, &st) == -1)
			snprintf(num, sizeof(num), "-");
		else
			snprintf(num, sizeof(num), "%llu:%lld.%ld",
			    (unsigned long long)st.st_ino,
			    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		h = mix(h, num);
	}
	return h;
}

/*
 * What the shared view is made of: the session, the home, the workspace
 * and every bind but the hidden and read-only paths (each command adds
 * those it finds), with the policy's own hide and reveal lines, which
 * decide what a hidden entry of the builtin list is, and the helper's
 * build.
 */
static uint64_t
plan_key(const struct es_sbx_plan *pl, const struct es_policy *p)
{
	char num[64];
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	snprintf(num, sizeof(num), "%lu:%lu:%d", (unsigned long)pl->uid,
	    (unsigned long)pl->gid, p->home_private);
	h = mix(h, num);
	h = mix(h, ES_VERSION " " __DATE__ " " __TIME__);
	h = mix(h, pl->ws);
	h = mix(h, pl->s_dir);
	h = mix(h, pl->s_home);
	h = mix(h, pl->s_up);
	h = mix(h, pl->s_layer);
	for (i = 0; i < pl->nmnt; i++) {
		if (!shared(&pl->mnt[i]))
			continue;
		snprintf(num, sizeof(num), "%d:%d", pl->mnt[i].kind,
		    pl->mnt[i].host_ro);
		h = mix(mix(h, num), pl->mnt[i].path);
	}
	for (i = 0; i < p->nhide; i++)
		h = mix(mix(h, "hide"), p->hide[i].s);
	for (i = 0; i < p->nreveal; i++)
		h = mix(mix(h, "reveal"), p->reveal[i].s);
	return h;
}

/* A namespace of pid's, if it is still the one the keeper file names. */
static int
open_ns(unsigned long long pid, const char *ns, unsigned long long ino)
{
	char path[64];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%llu/ns/%s", pid, ns);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || (unsigned long long)st.st_ino != ino) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The keeper file: 0 read, -1 none or not ours. */
static int
read_keeper(const struct es_sbx_plan *pl, struct keeper *k)
{
	char path[ES_PATH_MAX], buf[160];

	snprintf(path, sizeof(path), "%s/keeper", pl->s_dir);
	if (es_sbx_read_small(path, O_NOFOLLOW, buf, sizeof(buf)) == -1)
		return -1;
	if (sscanf(buf, "%llu %llx %llx %llu %llu %llu", &k->pid, &k->key,
	    &k->fresh, &k->dev, &k->userns, &k->mntns) != 6 || k->pid == 0)
		return -1;
	return 0;
}

enum { K_JOIN, K_NONE, K_OTHER, K_STALE, K_CANNOT };

/*
 * Is the user namespace ufd a child of this process's own?  A keeper's
 * is: the outer that started it cloned it from here.  One a sandboxed
 * command made is nested deeper (below its sandbox's), so a keeper file
 * forged to name such a process, where that command's own mounts would
 * make the view, is never joined.
 */
static int
our_child(int ufd)
{
	struct stat me, parent;
	int p, r;

	/* a kernel without the ioctl (before 4.9) cannot tell: -1 */
	if ((p = ioctl(ufd, NS_GET_PARENT)) == -1)
		return errno == EPERM ? 0 : -1;
	r = fstat(p, &parent) == 0 && stat("/proc/self/ns/user", &me) == 0 &&
	    parent.st_ino == me.st_ino && parent.st_dev == me.st_dev;
	close(p);
	return r;
}

/*
 * Is a hidden path of the plan missing from the keeper's view, although
 * it is in the real home (the plan lists only paths that exist)?  The
 * overlay remembered it as absent: it would stay unhidden there, and a
 * later lookup, once the kernel drops that memory, would show the file.
 * Such a view is stale.  Missing below a placeholder directory is hidden.
 */
static int
stale_hides(const struct es_sbx_plan *pl, unsigned long long kpid,
    unsigned long long dev)
{
	char path[ES_PATH_MAX + 32], *e;
	const struct es_sbx_mnt *m;
	struct stat st;
	size_t i, n, hl;
	dev_t home;
	int len;

	if (pl->s_home == NULL)
		return 0;
	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == ES_MK_HOME)
			return 0;	/* home private: an empty home, no overlay */
	len = snprintf(path, sizeof(path), "/proc/%llu/root%s", kpid,
	    pl->s_home);
	if (len < 0 || (size_t)len >= sizeof(path) || stat(path, &st) == -1)
		return 1;
	home = st.st_dev;
	hl = strlen(pl->s_home);
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if ((m->kind != ES_MK_HIDE_DIR && m->kind != ES_MK_HIDE_FILE) ||
		    strncmp(ES_MNT_AT(m), pl->s_home, hl) != 0 ||
		    ES_MNT_AT(m)[hl] != '/')
			continue;
		len = snprintf(path, sizeof(path), "/proc/%llu/root%s", kpid,
		    ES_MNT_AT(m));
		if (len < 0 || (size_t)len >= sizeof(path) ||
		    lstat(path, &st) == 0)
			continue;
		if (errno != ENOENT && errno != ENOTDIR)
			return 1;
		/* the nearest ancestor the view has */
		n = (size_t)len - strlen(ES_MNT_AT(m)) + hl;
		while ((e = strrchr(path, '/')) != NULL && (size_t)(e - path) > n) {
			*e = '\0';
			if (lstat(path, &st) == 0)
				break;
		}
		if ((size_t)(e - path) <= n)
			return 1;	/* missing right in the home's overlay */
		/* below a placeholder it is hidden; below another file system
		 * (a mount the overlay does not show) it is not ours to see */
		if ((unsigned long long)st.st_dev != dev && st.st_dev == home)
			return 1;
	}
	return 0;
}

/*
 * The keeper named in the session, its namespaces opened into fds:
 * K_JOIN; K_NONE when there is none alive (or the file names a process
 * that is none of ours); K_OTHER when it holds a view of another plan;
 * K_STALE when its view of this plan no longer shows the home; K_CANNOT
 * when the kernel cannot say whether it is ours.  An open namespace stays
 * whole even if the keeper ends now.
 */
static int
find_keeper(const struct es_sbx_plan *pl, uint64_t key, uint64_t fresh,
    struct keeper *k, int fds[2])
{
	int c;

	if (read_keeper(pl, k) == -1)
		return K_NONE;
	if ((fds[0] = open_ns(k->pid, "user", k->userns)) == -1)
		return K_NONE;
	if ((c = our_child(fds[0])) != 1 ||
	    (fds[1] = open_ns(k->pid, "mnt", k->mntns)) == -1) {
		close(fds[0]);
		return c == -1 ? K_CANNOT : K_NONE;
	}
	if (k->key != key || k->fresh != fresh ||
	    stale_hides(pl, k->pid, k->dev)) {
		close(fds[0]);
		close(fds[1]);
		return k->key != key ? K_OTHER : K_STALE;
	}
	return K_JOIN;
}

/* An inode number of /proc/PID/ns/NS; 0 when it cannot be read. */
static unsigned long long
ns_ino(pid_t pid, const char *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, ns);
	return stat(path, &st) == -1 ? 0 : (unsigned long long)st.st_ino;
}

/*
 * Starts the session's keeper and names it in the keeper file (written
 * aside and renamed, so a reader sees a whole line or none).  Its pidfd
 * on the launch root is taken before the root's start time is checked,
 * so the pidfd is that process's and not a later one's with its pid.
 * 0, or -1 when no keeper runs: this command builds its own view.
 */
static int
start_keeper(struct es_sbx_plan *pl, uint64_t key, uint64_t fresh)
{
	char path[ES_PATH_MAX], tmp[ES_PATH_MAX], line[160];
	const char *name = strrchr(pl->s_dir, '/') + 1;
	struct es_sbx_msg m;
	struct keeper k;
	int kp[2], rootfd, fd, len, flags = CLONE_NEWUSER | CLONE_NEWNS;
	pid_t root, pid;
	ssize_t n;

	if ((root = es_session_pid(pl->s_dir)) <= 0 ||
	    (rootfd = (int)syscall(SYS_pidfd_open, root, 0)) == -1)
		return -1;
	/*
	 * Its own work dir (a dead volatile overlay's cannot be used again),
	 * reaped once the launch root has ended: "kROOT.PID" (reap_work).
	 */
	snprintf(path, sizeof(path), "k%ld.%ld", (long)root, (long)getpid());
	es_sbx_workdir(pl, path);
	if (!es_session_alive(name) || pipe2(kp, O_CLOEXEC) == -1) {
		close(rootfd);
		return -1;
	}
	pl->msgfd = kp[1];
	pl->rootfd = rootfd;
	/* root's keeper enters its user namespace itself (idmap.c) */
	if (es_sbx_idmap(pl, pl->home) == 0)
		flags = 0;
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
	    NULL);
	if (pid == 0) {
		close(kp[0]);
		es_sbx_keep(pl);
	}
	es_sbx_idmap_release(pl);
	close(kp[1]);
	close(rootfd);
	pl->msgfd = pl->rootfd = -1;
	while ((n = read(kp[0], &m, sizeof(m))) == -1 && errno == EINTR)
		;
	close(kp[0]);
	if (pid == -1)
		return -1;
	memset(&k, 0, sizeof(k));
	k.pid = (unsigned long long)pid;
	k.key = key;
	k.fresh = fresh;
	if (n == (ssize_t)sizeof(m) && m.kind == ES_M_READY) {
		k.dev = m.dev;
		k.userns = ns_ino(pid, "user");
		k.mntns = ns_ino(pid, "mnt");
	}
	if (k.userns == 0 || k.mntns == 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		return -1;
	}
	len = snprintf(line, sizeof(line), "%llu %llx %llx %llu %llu %llu\n",
	    k.pid, k.key, k.fresh, k.dev, k.userns, k.mntns);
	snprintf(path, sizeof(path), "%s/keeper", pl->s_dir);
	snprintf(tmp, sizeof(tmp), "%s/keeper.%ld", pl->s_dir,
	    (long)getpid());
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || write(fd, line, (size_t)len) != len ||
	    close(fd) == -1 || rename(tmp, path) == -1) {
		/* a keeper nobody can find would hold its view for nothing */
		unlink(tmp);
		kill(pid, SIGKILL);
		return -1;
	}
	return 0;
}

/*
 * Ends a stale keeper and waits (a second at most) until it has: its
 * pidfd, taken before its namespace is checked again, is that keeper's
 * and no later process's.  Commands still in copies of its view keep
 * them, and its overlay, to their end.
 */
static void
end_keeper(const struct keeper *k)
{
	struct pollfd p;
	int fd, ns;

	if ((fd = (int)syscall(SYS_pidfd_open, (pid_t)k->pid, 0)) == -1)
		return;
	if ((ns = open_ns(k->pid, "user", k->userns)) != -1) {
		close(ns);
		if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) == 0) {
			p.fd = fd;
			p.events = POLLIN;
			while (poll(&p, 1, 1000) == -1 && errno == EINTR)
				;
		}
	}
	close(fd);
}

/*
 * The session's lock, while a keeper is checked and started: waited for
 * three seconds at most (signals are blocked, and a view being built on
 * a slow home must not hold a command for ever).  -1: build your own.
 */
static int
take_lock(const struct es_sbx_plan *pl)
{
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
	char path[ES_PATH_MAX];
	struct stat st;
	int lock, i;

	snprintf(path, sizeof(path), "%s/keeper.lock", pl->s_dir);
	/* a fifo would hold the open: only a file of ours locks */
	if ((lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC, 0600)) == -1)
		return -1;
	if (fstat(lock, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(lock);
		return -1;
	}
	for (i = 0; i < 300; i++) {
		if (flock(lock, LOCK_EX | LOCK_NB) == 0)
			return lock;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		nanosleep(&ten_ms, NULL);
	}
	close(lock);
	return -1;
}

int
es_sbx_join(struct es_sbx_plan *pl, const struct es_policy *p)
{
	uint64_t key, fresh;
	struct keeper k;
	int fds[2], r, lock;

	if (pl->s_dir == NULL || strrchr(pl->s_dir, '/') == NULL)
		return 0;
	key = plan_key(pl, p);
	fresh = fresh_key(pl);
	r = find_keeper(pl, key, fresh, &k, fds);
	/*
	 * A keeper of another plan (a tool's own --policy) stays for the
	 * commands of its plan; this one builds its own view.
	 */
	if (r == K_NONE || r == K_STALE) {
		/* one keeper a session: whoever takes the lock first starts it */
		if ((lock = take_lock(pl)) == -1)
			return 0;
		/* a stale view is replaced: the run goes on with a new one */
		if ((r = find_keeper(pl, key, fresh, &k, fds)) == K_STALE) {
			end_keeper(&k);
			r = K_NONE;
		}
		if (r == K_NONE && start_keeper(pl, key, fresh) == 0)
			r = find_keeper(pl, key, fresh, &k, fds);
		close(lock);
	}
	if (r != K_JOIN)
		return 0;
	if (setns(fds[0], CLONE_NEWUSER) == -1) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	/* half in: the outer's own namespaces are gone, so no way back */
	if (setns(fds[1], CLONE_NEWNS) == -1)
		es_sbx_refuse("cannot join the session's sandbox: %s",
		    strerror(errno));
	close(fds[0]);
	close(fds[1]);
	pl->joined = 1;
	pl->ph_dev = (dev_t)k.dev;
	/* the keeper's view is root's as ES_SBX_ROOT_KUID, or as uid 0 */
	pl->idmap = es_sbx_idmapped();
	return 1;
}

int
es_sbx_userns(struct es_sbx_plan *pl, struct es_sbx_msg *fail)
{
	struct es_sbx_msg m;
	char path[64];
	int p[2], fd, r = -1;
	ssize_t n;
	pid_t pid;

	memset(fail, 0, sizeof(*fail));
	fail->item = -1;
	if (pipe2(p, O_CLOEXEC) == -1)
		es_sbx_refuse("pipe: %s", strerror(errno));
	pl->msgfd = p[1];
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL,
	    NULL, NULL);
	if (pid == 0) {
		close(p[0]);
		es_sbx_map(pl);
	}
	fail->err = errno;
	close(p[1]);
	pl->msgfd = -1;
	if (pid == -1) {
		close(p[0]);
		return -1;
	}
	while ((n = read(p[0], &m, sizeof(m))) == -1 && errno == EINTR)
		;
	close(p[0]);
	if (n == (ssize_t)sizeof(m) && m.kind == ES_M_READY) {
		/* our child, not reaped yet: its pid names it alone */
		snprintf(path, sizeof(path), "/proc/%ld/ns/user", (long)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			r = setns(fd, CLONE_NEWUSER);
			close(fd);
		}
		if (r == -1) {
			fail->kind = ES_M_FAIL;
			fail->step = ES_S_NSID;
			fail->err = errno;
		}
	} else if (n == (ssize_t)sizeof(m))
		*fail = m;
	else {
		fail->kind = ES_M_FAIL;
		fail->step = ES_S_PARENT;
		fail->err = ESRCH;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	return r;
}
