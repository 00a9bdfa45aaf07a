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
 *	PID KEY DEV USERNS MNTNS
 *
 * the keeper's pid, what its view was built from (plan_key), the device
 * of its placeholders, and its namespaces' inode numbers, which tell it
 * from a later process with its pid.  A command whose plan differs (the
 * agent ran a tool with another policy) builds its own view, as without
 * a session.  Runs in the outer: may allocate; never after the clone.
 */
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "es_session.h"
#include "sbx.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef NS_GET_PARENT
#define NS_GET_PARENT	_IO(0xb7, 0x2)	/* linux/nsfs.h, Linux 4.9 */
#endif

struct keeper {
	unsigned long long pid, key, dev, userns, mntns;
};

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
 * the run.  A change of these directories (their mtime, their inode)
 * changes the key, and the next command gets a new view.  What changes
 * deeper is seen by the next view only.
 */
static const char *const watched[] = {
	"", "/.local", "/.local/bin", "/bin", "/.config", "/.config/git",
	"/.ssh", "/go/bin", "/.cargo/bin", "/.npm-global/bin"
};

/* The watched directories' state, mixed into h. */
static uint64_t
home_stamp(const struct es_sbx_plan *pl, uint64_t h)
{
	char path[ES_PATH_MAX], num[96];
	struct stat st;
	size_t i;

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
 * decide what a hidden entry of the builtin list is, the helper's build,
 * and the watched directories of the home.
 */
static uint64_t
plan_key(const struct es_sbx_plan *pl, const struct es_policy *p)
{
	struct stat st;
	char num[96];
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
	h = home_stamp(pl, h);
	for (i = 0; i < pl->nmnt; i++) {
		if (pl->mnt[i].kind == ES_MK_HIDE_DIR ||
		    pl->mnt[i].kind == ES_MK_HIDE_FILE ||
		    pl->mnt[i].kind == ES_MK_RO)
			continue;
		/*
		 * and the file it binds now: a bind follows its file, so one
		 * renamed away (the log's rotation) or made anew (a workspace
		 * recreated) needs a new view
		 */
		if (stat(pl->mnt[i].path, &st) == -1)
			st.st_dev = st.st_ino = 0;
		snprintf(num, sizeof(num), "%d:%d:%llu:%llu", pl->mnt[i].kind,
		    pl->mnt[i].host_ro, (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino);
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
	if (sscanf(buf, "%llu %llx %llu %llu %llu", &k->pid, &k->key, &k->dev,
	    &k->userns, &k->mntns) != 5 || k->pid == 0)
		return -1;
	return 0;
}

enum { K_JOIN, K_NONE, K_OTHER };

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

	if ((p = ioctl(ufd, NS_GET_PARENT)) == -1)
		return 0;
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
	int len;

	if (pl->s_home == NULL)
		return 0;
	hl = strlen(pl->s_home);
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if ((m->kind != ES_MK_HIDE_DIR && m->kind != ES_MK_HIDE_FILE) ||
		    strncmp(m->path, pl->s_home, hl) != 0 || m->path[hl] != '/')
			continue;
		len = snprintf(path, sizeof(path), "/proc/%llu/root%s", kpid,
		    m->path);
		if (len < 0 || (size_t)len >= sizeof(path) ||
		    lstat(path, &st) == 0)
			continue;
		if (errno != ENOENT)
			return 1;
		n = (size_t)len - strlen(m->path) + hl;
		while ((e = strrchr(path, '/')) != NULL && (size_t)(e - path) > n) {
			*e = '\0';
			if (lstat(path, &st) == 0)
				break;
		}
		if ((size_t)(e - path) <= n || (unsigned long long)st.st_dev != dev)
			return 1;
	}
	return 0;
}

/*
 * The keeper named in the session, its namespaces opened into fds:
 * K_JOIN; K_NONE when there is none alive; K_OTHER when the one alive
 * holds a view of another plan, or a stale one.  An open namespace stays whole even if
 * the keeper ends now.
 */
static int
find_keeper(const struct es_sbx_plan *pl, uint64_t key, struct keeper *k,
    int fds[2])
{
	if (read_keeper(pl, k) == -1)
		return K_NONE;
	if ((fds[0] = open_ns(k->pid, "user", k->userns)) == -1)
		return K_NONE;
	if (!our_child(fds[0]) ||
	    (fds[1] = open_ns(k->pid, "mnt", k->mntns)) == -1) {
		close(fds[0]);
		return K_NONE;
	}
	if (k->key != key || stale_hides(pl, k->pid, k->dev)) {
		close(fds[0]);
		close(fds[1]);
		return K_OTHER;
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
start_keeper(struct es_sbx_plan *pl, uint64_t key)
{
	char path[ES_PATH_MAX], tmp[ES_PATH_MAX], line[160];
	const char *name = strrchr(pl->s_dir, '/') + 1;
	struct es_sbx_msg m;
	struct keeper k;
	int kp[2], rootfd, fd, len;
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
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD,
	    NULL, NULL, NULL, NULL);
	if (pid == 0) {
		close(kp[0]);
		es_sbx_keep(pl);
	}
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
	len = snprintf(line, sizeof(line), "%llu %llx %llu %llu %llu\n",
	    k.pid, k.key, k.dev, k.userns, k.mntns);
	snprintf(path, sizeof(path), "%s/keeper", pl->s_dir);
	snprintf(tmp, sizeof(tmp), "%s/keeper.%ld", pl->s_dir,
	    (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || write(fd, line, (size_t)len) != len ||
	    close(fd) == -1 || rename(tmp, path) == -1) {
		/* a keeper nobody can find would hold its view for nothing */
		unlink(tmp);
		kill(pid, SIGKILL);
		return -1;
	}
	return 0;
}

int
es_sbx_join(struct es_sbx_plan *pl, const struct es_policy *p)
{
	char path[ES_PATH_MAX];
	unsigned long long old = 0;
	struct keeper k;
	uint64_t key;
	int fds[2], r, lock;

	if (pl->s_dir == NULL || strrchr(pl->s_dir, '/') == NULL)
		return 0;
	key = plan_key(pl, p);
	if ((r = find_keeper(pl, key, &k, fds)) != K_JOIN) {
		/* one keeper a session: whoever takes the lock first starts it */
		snprintf(path, sizeof(path), "%s/keeper.lock", pl->s_dir);
		if ((lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600)) == -1)
			return 0;
		while (flock(lock, LOCK_EX) == -1)
			if (errno != EINTR) {
				close(lock);
				return 0;
			}
		/*
		 * A stale view, or one of another plan, is replaced: the run's
		 * commands go on with the new one.  The old keeper, checked
		 * ours above, ends; commands still in copies of its view keep
		 * them to their end.
		 */
		if ((r = find_keeper(pl, key, &k, fds)) == K_OTHER)
			old = k.pid;
		/* first: its overlay unmounted, the new one has the upper alone */
		if (old != 0)
			kill((pid_t)old, SIGKILL);
		if (r != K_JOIN && start_keeper(pl, key) == 0)
			r = find_keeper(pl, key, &k, fds);
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
	return 1;
}
