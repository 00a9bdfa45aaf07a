/*
 * idmap.c - envshim-sandbox: a root caller's commands as a kernel uid
 * that owns nothing.
 *
 * Kernel uid 0 without a capability still owns what root owns: the
 * files only root may read, root's sockets, the kernel's /proc entries
 * (mount.c covers what it can of those).  So when the caller is root
 * and holds what it takes, the sandbox's user namespace maps inside 0
 * to ES_SBX_ROOT_KUID instead of 0, and every tree the command writes
 * or reads as root's own (the home, the session's directory, the kept
 * layer, the workspace and every other bind) is bound as an idmapped
 * copy, where a file of uid 0 is that id's and what it creates lands as
 * uid 0 again.  The copies are made here, by the outer, while it still
 * holds CAP_SYS_ADMIN in the initial user namespace (open_tree with
 * OPEN_TREE_CLONE, then mount_setattr with MOUNT_ATTR_IDMAP); init
 * attaches them (mount.c).  When any of it fails (no such capability:
 * contain mode, a container; a file system without idmapped mounts:
 * NFS, 9p, FUSE; a kernel before 5.12) nothing is kept and the sandbox
 * is the kernel-uid-0 one.  Runs in the outer: may allocate.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/mount.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

#ifndef SYS_open_tree
#define SYS_open_tree	428
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE	1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC	O_CLOEXEC
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP	0x00100000
#endif

/*
 * A user namespace whose 0 is ES_SBX_ROOT_KUID, for ids and for groups:
 * a child makes it and waits while the outer, which holds CAP_SETUID
 * here, writes its maps (the namespace's own process could only map
 * itself).  Its fd, or -1.
 */
static int
make_userns(void)
{
	char path[64], line[64];
	int p[2], fd = -1, ok = 1, n;
	const char *map[] = { "uid_map", "gid_map" };
	pid_t pid, outer = getpid();
	size_t i;
	char c;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/*
		 * Nothing of the caller's: an outer that dies (its caller did)
		 * takes it along, and no pipe of a tool's is held open by it.
		 */
		close(p[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
		    getppid() != outer)
			_exit(1);
		close(0);
		close(1);
		close(2);
		c = unshare(CLONE_NEWUSER) == 0;
		(void)!write(p[1], &c, 1);
		pause();	/* until the outer has what it needs */
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || !c)
		ok = 0;
	close(p[0]);
	n = snprintf(line, sizeof(line), "0 %lu 1\n",
	    (unsigned long)ES_SBX_ROOT_KUID);
	for (i = 0; ok && i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, map[i]);
		if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
		    write(fd, line, (size_t)n) != n)
			ok = 0;
		if (fd != -1)
			close(fd);
	}
	fd = -1;
	snprintf(path, sizeof(path), "/proc/%ld/ns/user", (long)pid);
	if (ok)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	return fd;
}

/*
 * An idmapped copy of the tree at path, detached, with the attributes
 * of a sandbox bind (nosuid, nodev; read-only when ro): fd + 1, or 0.
 */
static int
idmapped(const char *path, int userns, int ro)
{
	struct mount_attr a;
	int fd;

	if ((fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_RECURSIVE)) == -1)
		return 0;
	memset(&a, 0, sizeof(a));
	a.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    (ro ? MOUNT_ATTR_RDONLY : 0);
	a.userns_fd = (uint64_t)userns;
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
	    &a, sizeof(a)) == -1) {
		close(fd);
		return 0;
	}
	return fd + 1;
}

void
es_sbx_idmap_release(struct es_sbx_plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].tree != 0)
			close(pl->mnt[i].tree - 1);
	for (i = 0; i < ES_SBX_NTREE; i++)
		if (pl->tree[i] != 0)
			close(pl->tree[i] - 1);
	if (pl->usernsfd != -1)
		close(pl->usernsfd);
	memset(pl->tree, 0, sizeof(pl->tree));
	for (i = 0; i < pl->nmnt; i++)
		pl->mnt[i].tree = 0;
	pl->usernsfd = -1;
	pl->idmap = 0;
}

/*
 * Can ES_SBX_ROOT_KUID look path up?  Init binds there after it took
 * that uid (mount.c, attach_trees), so each directory above it must let
 * others through, but for those init made passable: the home and the
 * session's directory and base.
 */
static int
passable(const struct es_sbx_plan *pl, const char *path)
{
	char buf[ES_PATH_MAX], *s;
	struct stat st;
	size_t n, hl = strlen(pl->treepath[0]);

	if ((n = strlen(path)) >= sizeof(buf))
		return 0;
	memcpy(buf, path, n + 1);
	while ((s = strrchr(buf, '/')) != NULL && s != buf) {
		*s = '\0';
		if (strncmp(buf, pl->treepath[0], hl) == 0 &&
		    (buf[hl] == '\0' || buf[hl] == '/'))
			continue;	/* in the idmapped home */
		/*
		 * the session's directory or its base; what holds the base
		 * (the state directory's envshim/, 0700) is no tmpfs of
		 * init's and must let others through like the rest
		 */
		if (pl->s_dir != NULL && strncmp(pl->s_dir, buf, (n =
		    strlen(buf))) == 0 && (pl->s_dir[n] == '\0' ||
		    (pl->s_dir[n] == '/' && strchr(pl->s_dir + n + 1,
		    '/') == NULL)))
			continue;
		if (stat(buf, &st) == -1 || !(st.st_mode & S_IXOTH))
			return 0;
	}
	return 1;
}

/* Is the bind of plan.mnt[i] one that init makes from a copy? */
static int
bound(const struct es_sbx_plan *pl, size_t i)
{
	const struct es_sbx_mnt *m = &pl->mnt[i];

	/* the home kept under /tmp is taken from its layered view, later */
	if (m->kind == ES_MK_KEEP && pl->s_ovl != NULL &&
	    strcmp(m->path, pl->s_home) == 0)
		return 0;
	return m->kind == ES_MK_RW || m->kind == ES_MK_KEEP ||
	    m->kind == ES_MK_BACK;
}

int
es_sbx_idmap(struct es_sbx_plan *pl, const char *home)
{
	const char *top[ES_SBX_NTREE];
	size_t i;

	pl->usernsfd = -1;
	/* root, with a home of its own (not /); and the id must be nobody's */
	if (pl->uid != 0 || home == NULL || getpwuid(ES_SBX_ROOT_KUID) != NULL ||
	    (pl->treepath[0] = realpath(home, NULL)) == NULL ||
	    strcmp(pl->treepath[0], "/") == 0 ||
	    (pl->usernsfd = make_userns()) == -1)
		return -1;
	top[0] = pl->treepath[0];
	top[1] = pl->s_dir;
	top[2] = pl->s_layer != pl->s_dir ? pl->s_layer : NULL;
	for (i = 0; i < ES_SBX_NTREE; i++) {
		if (i > 0)
			pl->treepath[i] = top[i];
		/* the session and the kept layer go in after init took the new uid */
		if (top[i] != NULL && ((i > 0 && !passable(pl, top[i])) ||
		    (pl->tree[i] = idmapped(top[i], pl->usernsfd, 0)) == 0))
			goto fail;
	}
	for (i = 0; i < pl->nmnt; i++)
		if (bound(pl, i) && (!passable(pl, pl->mnt[i].path) ||
		    (pl->mnt[i].tree = idmapped(pl->mnt[i].path, pl->usernsfd,
		    pl->mnt[i].kind != ES_MK_RW)) == 0))
			goto fail;
	pl->idmap = 1;
	return 0;
fail:
	es_sbx_idmap_release(pl);
	return -1;
}

/*
 * Is this process's user namespace one of es_sbx_idmap's (its 0 is
 * ES_SBX_ROOT_KUID)?  Asked by a command that joined a session's
 * keeper, which made its view one way or the other.
 */
int
es_sbx_idmapped(void)
{
	unsigned long in, out, n;
	char buf[128];

	if (es_sbx_read_small("/proc/self/uid_map", 0, buf, sizeof(buf)) == -1 ||
	    sscanf(buf, "%lu %lu %lu", &in, &out, &n) != 3)
		return 0;
	return in == 0 && out == ES_SBX_ROOT_KUID && n == 1;
}
