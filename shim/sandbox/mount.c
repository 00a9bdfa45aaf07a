/*
 * mount.c - envshim-sandbox: init's mount sequence.
 *
 * In init's new mount namespace, from the plan alone: the inherited tree
 * read-only, the writable binds, a private /tmp and /dev, the hidden
 * paths, the read-only paths pinned inside the workspace, then /proc.
 * Async-signal-safe throughout (init is a clone of the outer): no malloc,
 * stdio or lookups; a failed step is reported by es_sbx_fail.  Files are
 * opened with openat(AT_FDCWD, ...): musl's open() follows O_CLOEXEC with
 * an fcntl, for kernels older than the flag.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include <linux/mount.h>	/* mount_setattr: musl's sys/mount.h lacks it */
#include <linux/stat.h>		/* statx: musl before 1.2.5 lacks it */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

/* linux/fs.h's, which would clash with sys/mount.h */
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	(1 << 0)
#endif

/* The host devices the private /dev keeps, each bound on its own. */
static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty"
};
#define NDEV	(sizeof(dev_nodes) / sizeof(dev_nodes[0]))

/* "/proc/self/fd/N": how mount(2) reaches what an O_PATH fd holds. */
static const char *
fdpath(char *buf, size_t len, int fd)
{
	size_t off = 0;

	es_sbx_put_str(buf, len, &off, "/proc/self/fd/");
	es_sbx_put_ulong(buf, len, &off, (unsigned long)fd);
	return buf;
}

/* mount_setattr(2) by number: neither libc wraps it. */
static int
setattr(int dfd, const char *path, unsigned int flags, uint64_t set,
    uint64_t clr)
{
	struct mount_attr a;

	memset(&a, 0, sizeof(a));
	a.attr_set = set;
	a.attr_clr = clr;
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof(a));
}

/* statvfs flags that a remount must repeat (they may be locked). */
static unsigned long
kept_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) == -1)
		return 0;
	if (sv.f_flag & ST_NOSUID)	f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)	f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)	f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)	f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)	f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)	f |= MS_RELATIME;
	if (sv.f_flag & ST_RDONLY)	f |= MS_RDONLY;
	return f;
}

/* One mount made read-only (or writable) without touching its other flags. */
static int
remount(const char *path, int ro)
{
	unsigned long f;

	if (setattr(AT_FDCWD, path, 0, ro ? MOUNT_ATTR_RDONLY : 0,
	    ro ? 0 : MOUNT_ATTR_RDONLY) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	f = kept_flags(path) & ~MS_RDONLY;
	return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | f |
	    (ro ? MS_RDONLY : 0), NULL);
}

/*
 * Kernels before 5.12 have no recursive mount_setattr: remount every
 * mount listed in mountinfo, parents first (the file's order).
 */
static int
root_ro_each(void)
{
	char buf[16384], mp[ES_PATH_MAX];
	size_t have = 0, i, j;
	ssize_t n;
	int fd, field;
	char *nl, *p;

	if ((fd = openat(AT_FDCWD, "/proc/self/mountinfo",
	    O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0) {
			close(fd);
			return -1;
		}
		have += (size_t)n;
		buf[have] = '\0';
		if (have == 0)
			break;
		nl = strchr(buf, '\n');
		/*
		 * A line longer than buf (an overlay's long option list): the
		 * mounts after it would stay writable, so refuse instead.
		 */
		if (nl == NULL && have == sizeof(buf) - 1) {
			close(fd);
			errno = E2BIG;
			return -1;
		}
		if (nl == NULL && n > 0)
			continue;
		if (nl == NULL)
			nl = buf + have;
		/* field 5 is the mount point, octal-escaped */
		for (p = buf, field = 1; field < 5 && p < nl; p++)
			if (*p == ' ')
				field++;
		for (i = 0, j = 0; p + i < nl && p[i] != ' ' &&
		    j + 1 < sizeof(mp); i++) {
			if (p[i] == '\\' && p + i + 3 < nl) {
				mp[j++] = (char)(((p[i + 1] - '0') << 6) |
				    ((p[i + 2] - '0') << 3) | (p[i + 3] - '0'));
				i += 3;
			} else
				mp[j++] = p[i];
		}
		mp[j] = '\0';
		if (j > 0 && mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND |
		    kept_flags(mp) | MS_RDONLY | MS_NODEV, NULL) == -1 &&
		    errno != ENOENT &&
		    errno != EACCES && errno != ENOTDIR && errno != EINVAL) {
			close(fd);
			return -1;
		}
		if (nl >= buf + have)
			break;
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have);
		buf[have] = '\0';
		if (n == 0 && have == 0)
			break;
	}
	close(fd);
	return 0;
}

/*
 * The whole inherited tree read-only, nosuid and nodev in one call if
 * possible.  nodev: a device node on a host file system (a chroot's
 * /dev/sda, a copy of /dev/kvm) opens for writing on a read-only mount,
 * with its owner's permission, which kernel uid 0 keeps.
 */
static int
root_ro(void)
{
	if (setattr(AT_FDCWD, "/", AT_RECURSIVE, MOUNT_ATTR_RDONLY |
	    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	return root_ro_each();
}

/*
 * Opens name below dirfd without following a symlink: planted links in the
 * workspace must not move a protection elsewhere.  -2 for a symlink.
 */
static int
open_nofollow(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || S_ISLNK(st.st_mode)) {
		close(fd);
		errno = ELOOP;
		return -2;
	}
	return fd;
}

/* Is fd the root of a mount?  0 when the kernel cannot say (before 5.8). */
static int
mount_root(int fd)
{
	struct statx sx;

	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0,
	    &sx) == -1)
		return 0;
	return (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* An empty file of mode, made now: 0, or -1 with errno. */
static int
mkfile(int dfd, const char *name, mode_t mode)
{
	int fd;

	if ((fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW |
	    O_CLOEXEC, mode)) == -1)
		return -1;
	return close(fd);
}

/*
 * A directory in the way (it is not empty) moved aside, within its own
 * directory, under a name of ours: 0, or -1 with errno.
 */
static int
aside(int dfd, const char *name)
{
	char to[64];
	size_t off;
	int i;

	for (i = 0; i < 16; i++) {
		off = 0;
		es_sbx_put_str(to, sizeof(to), &off, ".envshim-moved.");
		es_sbx_put_ulong(to, sizeof(to), &off, (unsigned long)getpid());
		es_sbx_put_str(to, sizeof(to), &off, ".");
		es_sbx_put_ulong(to, sizeof(to), &off, (unsigned long)i);
		if (syscall(SYS_renameat2, dfd, name, dfd, to,
		    RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

enum { AT_LOOK, AT_DIR, AT_FILE };

/*
 * One name of at_path in dfd: a directory, unless it is the last one and
 * a file is wanted.  With AT_LOOK it must be there and not a link (the
 * last one may be of any other kind); else it is made so: what is
 * missing is made (directories of mode), a link, file or fifo in the way
 * removed, a directory in the way moved aside.  O_PATH fd, -1 with errno.
 */
static int
at_one(int dfd, const char *name, int make, int last, mode_t mode)
{
	int dir = !last || make != AT_FILE, fd, i;
	struct stat st;

	for (i = 0; i < 4; i++) {
		if ((fd = openat(dfd, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) != -1) {
			if (fstat(fd, &st) == -1) {
				close(fd);
				return -1;
			}
			if (!S_ISLNK(st.st_mode) && (make == AT_LOOK ?
			    (last || S_ISDIR(st.st_mode)) :
			    dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
				return fd;
			close(fd);
			errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
			if (make == AT_LOOK)
				return -1;
			if (!S_ISDIR(st.st_mode) ?
			    unlinkat(dfd, name, 0) == -1 :
			    unlinkat(dfd, name, AT_REMOVEDIR) == -1 &&
			    aside(dfd, name) == -1)
				return -1;
		} else if (errno != ENOENT || make == AT_LOOK)
			return -1;
		if ((dir ? mkdirat(dfd, name, mode) :
		    mkfile(dfd, name, 0600)) == -1 && errno != EEXIST)
			return -1;
	}
	errno = ELOOP;
	return -1;
}

#ifndef SYS_openat2
#define SYS_openat2	437
#endif

/*
 * path opened O_PATH in one call that follows no link on the way
 * (openat2, RESOLVE_NO_SYMLINKS, Linux 5.6+): the way as planned, no
 * walk needed.  -1 when anything is off, or the kernel cannot.
 */
static int
at_once(const char *path)
{
	struct { uint64_t flags, mode, resolve; } how = {
		O_PATH | O_CLOEXEC, 0, 0x04 | 0x02	/* NO_SYMLINKS, NO_MAGICLINKS */
	};

	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
}

/*
 * Opens path, absolute and without a link (the plan resolved it), one
 * name at a time without following a link.  Where a sandboxed command
 * writes (the session's /tmp, the home's layer, the workspace) it may
 * have left anything on the way: with AT_LOOK such a path is not the
 * one planned (-1); with AT_DIR or AT_FILE the way is made as planned
 * (at_one).  *pfd, when pfd is not NULL, gets the last name's directory
 * and name that name, to open what is mounted there afterwards.  O_PATH
 * fd, or -1 with errno.  Most ways are as planned: one openat2 for the
 * directory, and the walk only when it finds something off.
 */
static int
at_path(const char *path, int make, int *pfd, char *name)
{
	char comp[NAME_MAX + 1], dir[ES_PATH_MAX];
	const char *s = path, *e, *slash = strrchr(path, '/');
	int dfd, fd, last;
	size_t n;

	if (slash != NULL && slash > path && slash[1] != '\0' &&
	    (size_t)(slash - path) < sizeof(dir) &&
	    strlen(slash + 1) <= NAME_MAX) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if ((dfd = at_once(dir)) != -1) {
			if ((fd = at_one(dfd, slash + 1, make, 1, 0755)) == -1 ||
			    pfd == NULL)
				close(dfd);
			else {
				*pfd = dfd;
				memcpy(name, slash + 1, strlen(slash + 1) + 1);
			}
			return fd;
		}
	}
	if ((dfd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		while (*s == '/')
			s++;
		e = strchrnul(s, '/');
		if ((n = (size_t)(e - s)) == 0 || n > NAME_MAX) {
			close(dfd);
			errno = n == 0 ? EINVAL : ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		for (s = e; *s == '/'; s++)
			;
		last = *s == '\0';
		if ((fd = at_one(dfd, comp, make, last, 0755)) == -1 || !last) {
			close(dfd);
			if (fd == -1)
				return -1;
			dfd = fd;
			continue;
		}
		if (pfd != NULL) {
			*pfd = dfd;
			memcpy(name, comp, n + 1);
		} else
			close(dfd);
		return fd;
	}
}

/* What is mounted on name in dfd now, O_PATH: the mount's own root. */
static int
mounted(int dfd, const char *name)
{
	return openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * A small tmpfs on /dev/shm holding one empty file (f) and one empty
 * directory (d), while placeholders are bound from it; hide_paths adds
 * its stubs (tN) and session stand-ins (sN) before scratch_seal makes it
 * read-only and returns its device.  Not on /tmp: a session binds a home
 * or workspace that lives under /tmp back at its path, and a scratch
 * mount there would hide it while the binds are made.  scratch_off
 * detaches it; the binds hold it.
 */
static void
scratch_make(const struct es_sbx_plan *pl, int step)
{
	int f;

	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "mode=0755,size=16k,nr_inodes=64") == -1 ||
	    (f = openat(AT_FDCWD, "/dev/shm/f", O_CREAT | O_EXCL | O_WRONLY |
	    O_CLOEXEC, 0600)) == -1 || close(f) == -1 ||
	    mkdir("/dev/shm/d", 0700) == -1)
		es_sbx_fail(pl, step, -1);
}

static dev_t
scratch_seal(const struct es_sbx_plan *pl, int step)
{
	struct stat st;

	if (remount("/dev/shm", 1) == -1 || stat("/dev/shm/f", &st) == -1)
		es_sbx_fail(pl, step, -1);
	return st.st_dev;
}

static void
scratch_off(const struct es_sbx_plan *pl, int step)
{
	if (umount2("/dev/shm", MNT_DETACH) == -1)
		es_sbx_fail(pl, step, -1);
}

/*
 * A link where a read-only path goes (a .git/hooks a command planted to
 * point at what it writes) is not followed, nor fatal: an empty
 * read-only file covers it (only a file goes on a link), so nothing is
 * found or written there and it cannot be moved.
 */
static void
ro_cover(const struct es_sbx_plan *pl, int dfd, const char *comp, int item)
{
	char fp[40];
	int fd;

	if ((fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		es_sbx_fail(pl, ES_S_RO_LINK, item);
	scratch_make(pl, ES_S_RO_LINK);
	(void)scratch_seal(pl, ES_S_RO_LINK);
	if (mount("/dev/shm/f", fdpath(fp, sizeof(fp), fd), NULL, MS_BIND,
	    NULL) == -1)
		es_sbx_fail(pl, ES_S_RO_LINK, item);
	scratch_off(pl, ES_S_RO_LINK);
	close(fd);
}

/*
 * Makes rel (below the workspace) read-only.  Every directory between the
 * workspace and rel becomes a mount of itself first: a mount point cannot
 * be renamed, so the protected path cannot be moved away and replaced.
 */
static void
protect_ro(const struct es_sbx_plan *pl, int item)
{
	char comp[NAME_MAX + 1], fp[40];
	const char *s = pl->mnt[item].path, *e;
	int dfd, fd;
	size_t n;

	if ((dfd = openat(AT_FDCWD, pl->ws, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		es_sbx_fail(pl, ES_S_RO_OPEN, item);
	for (;;) {
		while (*s == '/')
			s++;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || n > NAME_MAX)
			break;
		memcpy(comp, s, n);
		comp[n] = '\0';
		/*
		 * A repository without .git/hooks would let the command create
		 * one that runs later, outside: an empty one is made and locked.
		 */
		if ((fd = open_nofollow(dfd, comp)) == -1 && errno == ENOENT &&
		    e == NULL && pl->mnt[item].mkdir && mkdirat(dfd, comp, 0755) == 0)
			fd = open_nofollow(dfd, comp);
		if (fd == -2) {
			ro_cover(pl, dfd, comp, item);
			break;
		}
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR)
				break;		/* nothing to protect */
			es_sbx_fail(pl, ES_S_RO_OPEN, item);
		}
		/* a directory pinned for an earlier ro path stays as it is */
		if (e == NULL || !mount_root(fd)) {
			fdpath(fp, sizeof(fp), fd);
			if (mount(fp, fp, NULL, MS_BIND | MS_REC, NULL) == -1)
				es_sbx_fail(pl, e ? ES_S_RO_PIN : ES_S_RO,
				    item);
			close(fd);
			/* reopen: now it names the new mount, not the one below */
			if ((fd = open_nofollow(dfd, comp)) < 0)
				es_sbx_fail(pl, fd == -2 ? ES_S_RO_LINK :
				    ES_S_RO_OPEN, item);
		}
		if (e == NULL) {
			fdpath(fp, sizeof(fp), fd);
			if (remount(fp, 1) == -1)
				es_sbx_fail(pl, ES_S_RO, item);
			close(fd);
			break;
		}
		close(dfd);
		dfd = fd;
		s = e;
	}
	close(dfd);
}

/*
 * A pty instance and a /dev/shm of the command's own: in a session's
 * shared view, another command must not reach its terminals (TIOCSTI)
 * or its shared memory, so a joined command mounts these over the view's.
 */
static void
dev_own(const struct es_sbx_plan *pl)
{
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620") == -1)
		es_sbx_fail(pl, ES_S_PTS, -1);
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		es_sbx_fail(pl, ES_S_SHM, -1);
}

/*
 * One node's bind opens as a device again: it came from the host's
 * /dev, which root_ro made nodev with the rest.  The bind is of that
 * one file, so nothing else regains devices.
 */
static int
dev_allow(const char *path)
{
	if (setattr(AT_FDCWD, path, 0, 0, MOUNT_ATTR_NODEV) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND |
	    (kept_flags(path) & ~MS_NODEV), NULL);
}

/* A /dev of its own: the few nodes a shell needs, no host disk. */
static void
setup_dev(const struct es_sbx_plan *pl)
{
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
		{ "ptmx", "pts/ptmx" }
	};
	char dst[32], fp[40];
	int fds[NDEV], fd;
	size_t i, off;

	for (i = 0; i < NDEV; i++) {
		off = 0;
		es_sbx_put_str(dst, sizeof(dst), &off, "/dev/");
		es_sbx_put_str(dst, sizeof(dst), &off, dev_nodes[i]);
		fds[i] = openat(AT_FDCWD, dst, O_PATH | O_CLOEXEC);
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755,size=64k,nr_inodes=64") == -1)
		es_sbx_fail(pl, ES_S_DEV, -1);
	for (i = 0; i < NDEV; i++) {
		if (fds[i] == -1)
			continue;	/* absent on the host: absent here */
		off = 0;
		es_sbx_put_str(dst, sizeof(dst), &off, "/dev/");
		es_sbx_put_str(dst, sizeof(dst), &off, dev_nodes[i]);
		if ((fd = openat(AT_FDCWD, dst, O_CREAT | O_EXCL | O_WRONLY |
		    O_CLOEXEC, 0666)) == -1)
			es_sbx_fail(pl, ES_S_DEVNODE, -1);
		close(fd);
		if (mount(fdpath(fp, sizeof(fp), fds[i]), dst, NULL, MS_BIND,
		    NULL) == -1 || dev_allow(dst) == -1)
			es_sbx_fail(pl, ES_S_DEVNODE, -1);
		close(fds[i]);
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		off = 0;
		es_sbx_put_str(dst, sizeof(dst), &off, "/dev/");
		es_sbx_put_str(dst, sizeof(dst), &off, links[i][0]);
		if (symlink(links[i][1], dst) == -1)
			es_sbx_fail(pl, ES_S_DEV, -1);
	}
	if (mkdir("/dev/pts", 0755) == -1 || mkdir("/dev/shm", 01777) == -1)
		es_sbx_fail(pl, ES_S_DEV, -1);
	dev_own(pl);
	if (remount("/dev", 1) == -1)
		es_sbx_fail(pl, ES_S_DEV, -1);
}

/*
 * Does hidden directory m hold the session (the runtime directory, the
 * sessions' base)?  Its stand-in then holds the way to the session's
 * tmp/, which goes back at its own path: the agent's TMPDIR.
 */
static int
holds_session(const struct es_sbx_plan *pl, const struct es_sbx_mnt *m)
{
	size_t n = strlen(m->path);

	return pl->s_tmp != NULL && m->kind == ES_MK_HIDE_DIR &&
	    strncmp(m->path, pl->s_tmp, n) == 0 && pl->s_tmp[n] == '/';
}

/*
 * The session's tmp/ at /tmp, var-tmp/ at /var/tmp: what one command of
 * the run leaves there, the next one finds.  Its own path comes last
 * (session_own_path).
 */
static void
session_tmp(const struct es_sbx_plan *pl, int tfd, int vfd)
{
	char fp[40];
	struct stat st;

	fdpath(fp, sizeof(fp), tfd);
	if (mount(fp, "/tmp", NULL, MS_BIND, NULL) == -1 ||
	    remount("/tmp", 0) == -1)
		es_sbx_fail(pl, ES_S_TMP, -1);
	close(tfd);
	/* a /var/tmp that is a link (to /tmp) is left as it is */
	if (lstat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode) &&
	    (mount(fdpath(fp, sizeof(fp), vfd), "/var/tmp", NULL, MS_BIND,
	    NULL) == -1 || remount("/var/tmp", 0) == -1))
		es_sbx_fail(pl, ES_S_TMP, -1);
	close(vfd);
}

/* An idmapped copy (idmap.c), detached, put on to (O_PATH). */
static int
move_tree(int fd, int to)
{
	return (int)syscall(SYS_move_mount, fd, "", to, "",
	    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/* The same, at path: a tree attach_trees puts where no command wrote. */
static int
move_tree_at(int fd, const char *path)
{
	return (int)syscall(SYS_move_mount, fd, "", AT_FDCWD, path,
	    MOVE_MOUNT_F_EMPTY_PATH);
}

/*
 * In a user namespace of idmap.c's, whose maps the outer wrote: the
 * namespace's root ids (ES_SBX_ROOT_KUID outside), and no supplementary
 * group of root's.  Raw calls: libc's set*id would signal other
 * threads, and this is a clone.  The capabilities in the namespace stay
 * (init still mounts: from kernel uid 0 to the namespace's root, none
 * is lost); drop_caps takes them later.
 */
void
es_sbx_root_ids(const struct es_sbx_plan *pl)
{
	if (syscall(SYS_setgroups, 0, NULL) == -1 ||
	    syscall(SYS_setresgid, 0, 0, 0) == -1 ||
	    syscall(SYS_setresuid, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_SETUID, -1);
	/*
	 * New credentials clear the parent-death signal: armed again, or
	 * an init whose outer died waits in pause() for good, holding the
	 * command's output open.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		es_sbx_fail(pl, ES_S_PDEATHSIG, -1);
}

/*
 * A root caller's view as ES_SBX_ROOT_KUID (idmap.c).  The idmapped home
 * goes at its path first, while init is still kernel uid 0 (the home's
 * parent may be closed to others); then init takes the namespace's root
 * ids, and from here on mounts, creates and looks up as that uid: the
 * home's overlay works in its upper layer as its mounter, and kernel
 * uid 0 has no id on an idmapped layer (EOVERFLOW), nor in a tmpfs of
 * this namespace.  The session's directory sits in the session base,
 * 0700 and root's: a tmpfs of the new uid covers the base, for the
 * idmapped directory to go in.  The kept layer is in the idmapped home.
 * What else init binds the outer checked the new uid can look up
 * (idmap.c, passable).
 */
static void
attach_trees(const struct es_sbx_plan *pl)
{
	char base[ES_PATH_MAX];
	const char *slash;
	size_t i, off = 0;

	if (pl->tree[0] != 0 && move_tree_at(pl->tree[0] - 1,
	    pl->treepath[0]) == -1)
		es_sbx_fail(pl, ES_S_BIND, -1);
	if (pl->tree[1] != 0) {
		slash = strrchr(pl->treepath[1], '/');
		es_sbx_put_str(base, sizeof(base), &off, pl->treepath[1]);
		base[slash - pl->treepath[1]] = '\0';
		if (mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, "mode=0700,uid=0,gid=0,size=4k") == -1)
			es_sbx_fail(pl, ES_S_BIND, -1);
	}
	es_sbx_root_ids(pl);
	if (pl->tree[1] != 0 && mkdir(pl->treepath[1], 0700) == -1)
		es_sbx_fail(pl, ES_S_BIND, -1);
	for (i = 1; i < ES_SBX_NTREE; i++)
		if (pl->tree[i] != 0 && move_tree_at(pl->tree[i] - 1,
		    pl->treepath[i]) == -1)
			es_sbx_fail(pl, ES_S_BIND, -1);
	for (i = 0; i < ES_SBX_NTREE; i++)
		if (pl->tree[i] != 0)
			close(pl->tree[i] - 1);
}

/*
 * Read-only tmpfs over the first directory below the session's /tmp or
 * /var/tmp on the way to a bind (/var/tmp/x of /var/tmp/x/ws): every
 * command of the run writes there, and could move a way made in it
 * (rename, unlink) or replace it, so the view's later copies, or the
 * next view, would find a link or a file where the bind goes.  A mount
 * point cannot be moved or removed; what the tmpfs holds, only init
 * makes.  Sealed read-only once the binds are in (seal_skeletons).
 */
static struct {
	size_t	b;		/* below /tmp (4) or /var/tmp (8) */
	int	dfd;		/* where it is mounted: this and ... */
	char	name[NAME_MAX + 1];	/* ... this name */
} skel[8];
static size_t nskel;

/*
 * The length of "/tmp" or "/var/tmp" when path lies below the one the
 * session covers, with a directory on the way (a skeleton's); else 0.
 */
static size_t
in_session_tmp(const struct es_sbx_plan *pl, const char *path)
{
	size_t b;

	if (pl->s_tmp == NULL)
		return 0;
	b = strncmp(path, "/tmp/", 5) == 0 ? 4 :
	    strncmp(path, "/var/tmp/", 9) == 0 ? 8 : 0;
	return b != 0 && strchr(path + b + 1, '/') != NULL ? b : 0;
}

/* The skeleton for path's first directory below base (b bytes of path). */
static void
skeleton(const struct es_sbx_plan *pl, const char *path, size_t b, int item)
{
	char dir[ES_PATH_MAX], fp[40];
	const char *e = strchr(path + b + 1, '/');
	size_t i;
	int fd, dfd;

	if ((size_t)(e - path) >= sizeof(dir))
		es_sbx_fail(pl, ES_S_TMP, item);
	memcpy(dir, path, (size_t)(e - path));
	dir[e - path] = '\0';
	for (i = 0; i < nskel; i++)
		if (skel[i].b == b && strcmp(skel[i].name, dir + b + 1) == 0)
			return;
	if (nskel == sizeof(skel) / sizeof(skel[0]) ||
	    (fd = at_path(dir, AT_DIR, &dfd, skel[nskel].name)) == -1 ||
	    mount("tmpfs", fdpath(fp, sizeof(fp), fd), "tmpfs", MS_NOSUID |
	    MS_NODEV, "mode=0755,size=16k,nr_inodes=256") == -1)
		es_sbx_fail(pl, ES_S_TMP, item);
	close(fd);
	skel[nskel].b = b;
	skel[nskel++].dfd = dfd;
}

/* The skeletons read-only: the binds in them keep their own flags. */
static void
seal_skeletons(const struct es_sbx_plan *pl)
{
	char fp[40];
	size_t i;
	int fd;

	for (i = 0; i < nskel; i++) {
		if ((fd = mounted(skel[i].dfd, skel[i].name)) == -1 ||
		    remount(fdpath(fp, sizeof(fp), fd), 1) == -1)
			es_sbx_fail(pl, ES_S_TMP, -1);
		close(fd);
		close(skel[i].dfd);
	}
	nskel = 0;
}

/* Does path lie strictly below dir? */
static int
below(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	return strncmp(dir, path, n) == 0 && path[n] == '/';
}

/*
 * In the session's /tmp and /var/tmp, the skeleton on the way to path,
 * unless an earlier bind is where it goes (the home kept at /tmp/h, the
 * shim in it); item -1 comes after every bind, and all of them count.
 */
static void
skel_way(const struct es_sbx_plan *pl, const char *path, int item)
{
	size_t b, i;
	int covered = 0;

	if ((b = in_session_tmp(pl, path)) == 0)
		return;
	for (i = 0; i < (item < 0 ? pl->nmnt : (size_t)item); i++)
		covered |= (pl->mnt[i].kind == ES_MK_RW ||
		    pl->mnt[i].kind == ES_MK_KEEP ||
		    pl->mnt[i].kind == ES_MK_BACK) &&
		    below(pl->mnt[i].path, path);
	if (!covered)
		skeleton(pl, path, b, item);
}

/*
 * Binds src (O_PATH) at path, made as planned (at_path): a directory, or
 * a file; on its skeleton (skel_way).  writable: the bind made writable.
 * Fails at step for item.
 */
static void
bind_at(const struct es_sbx_plan *pl, int src, const char *path, int writable,
    int step, int item)
{
	char fp[40], tp[40], name[NAME_MAX + 1];
	struct stat st;
	int fd, dfd, dir;

	if (fstat(src, &st) == -1)
		es_sbx_fail(pl, step, item);
	dir = S_ISDIR(st.st_mode);
	skel_way(pl, path, item);
	if ((fd = at_path(path, dir ? AT_DIR : AT_FILE, &dfd, name)) == -1 ||
	    (item >= 0 && pl->mnt[item].tree != 0 ? move_tree(src, fd) :
	    mount(fdpath(fp, sizeof(fp), src), fdpath(tp, sizeof(tp), fd), NULL,
	    MS_BIND | MS_REC, NULL)) == -1)
		es_sbx_fail(pl, step, item);
	close(fd);
	if (writable && ((fd = mounted(dfd, name)) == -1 ||
	    remount(fdpath(tp, sizeof(tp), fd), 0) == -1))
		es_sbx_fail(pl, ES_S_WRITABLE, item);
	if (writable)
		close(fd);
	close(dfd);
}

/* Is plan.mnt[i] the home, kept at its path, under a layer of its own? */
static int
home_kept(const struct es_sbx_plan *pl, size_t i)
{
	return pl->s_ovl != NULL && pl->mnt[i].kind == ES_MK_KEEP &&
	    strcmp(pl->mnt[i].path, pl->s_home) == 0;
}

/* Without the home's layer: each cache's directory, fd + 1 (plan_cache). */
static int cache_fd[ES_SBX_NMNT];

/*
 * A cache's directory in the layer, made and opened one component at a
 * time without following a link: a command that wrote the layer through
 * an overlay before (a kept layer) cannot point a directory at the real
 * home, and what it left in the way (a link, a file) is replaced, not
 * fatal (at_one).  -1 with errno.
 */
static int
cache_src(const struct es_sbx_plan *pl, const char *src)
{
	char comp[NAME_MAX + 1];
	const char *s = src + strlen(pl->s_up), *e;
	int dfd, fd;
	size_t n;

	if ((dfd = openat(AT_FDCWD, pl->s_up, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		while (*s == '/')
			s++;
		if (*s == '\0')
			return dfd;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n > NAME_MAX) {
			close(dfd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, s, n);
		comp[n] = '\0';
		/* a link, a file or a fifo an earlier run left goes */
		fd = at_one(dfd, comp, AT_DIR, 0, 0700);
		close(dfd);
		if (fd < 0)
			return -1;
		dfd = fd;
		s += n;
	}
}

/* The mask's kept entries, held before the overlay covers them: fd + 1. */
static int kept_fd[ES_MASK_MAX];

/*
 * The kept entries bound on their places in the mask, once the overlay
 * is mounted: read-only, as the root turns.  An entry of the layer's own
 * there (a link a command left at ~/.ssh/config) wins, and none is kept.
 * With done, the mask's tmpfs detached: the overlay holds its layers.
 */
static void
mask_off(const struct es_sbx_plan *pl, int done)
{
	char fp[40], tp[40];
	size_t i;
	int fd;

	for (i = 0; i < pl->nmask; i++) {
		if (kept_fd[i] == 0)
			continue;
		if (done && (fd = at_path(pl->masks[i].src, AT_LOOK, NULL,
		    NULL)) != -1) {
			(void)mount(fdpath(fp, sizeof(fp), kept_fd[i] - 1),
			    fdpath(tp, sizeof(tp), fd), NULL, MS_BIND | MS_REC,
			    NULL);
			close(fd);
		}
		close(kept_fd[i] - 1);
		kept_fd[i] = 0;
	}
	if (umount2(ES_SBX_MASK, MNT_DETACH) == -1)
		es_sbx_fail(pl, ES_S_MASK, -1);
}

/*
 * The home's mask (sbx.h; plan.c, plan_mask) on a tmpfs on /dev, where
 * the overlay's options name its two layers; the kept entries' real files
 * held.  1 when it is there; 0 when there is none or it cannot be made
 * (no whiteout on this kernel): the overlay goes without, and what a
 * login makes while a view is held is seen in it, as before.
 */
static int
home_mask(const struct es_sbx_plan *pl)
{
	const struct es_sbx_mask *m;
	int a = -1, b = -1, fd, ok;
	mode_t um;
	size_t i;

	if (pl->nmask == 0 || mount("tmpfs", ES_SBX_MASK, "tmpfs", MS_NOSUID |
	    MS_NODEV | MS_NOEXEC, "mode=0755") == -1)
		return 0;
	um = umask(0);
	ok = mkdir(ES_SBX_MASK_A, 0755) == 0 &&
	    mkdir(ES_SBX_MASK_B, 0755) == 0 &&
	    (a = openat(AT_FDCWD, ES_SBX_MASK_A, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) != -1 && (b = openat(AT_FDCWD, ES_SBX_MASK_B, O_PATH |
	    O_DIRECTORY | O_CLOEXEC)) != -1;
	for (i = 0; ok && i < pl->nmask; i++) {
		m = &pl->masks[i];
		switch (m->kind) {
		case ES_MASK_DIR:
			ok = mkdirat(a, m->rel, m->mode) == 0 &&
			    (!m->b || mkdirat(b, m->rel, m->mode) == 0);
			break;
		case ES_MASK_HIDDEN:
			ok = mkdirat(a, m->rel, m->mode) == 0 &&
			    (!m->b || mknodat(b, m->rel, S_IFCHR, 0) == 0);
			break;
		case ES_MASK_GONE:
			ok = mknodat(b, m->rel, S_IFCHR, 0) == 0;
			break;
		case ES_MASK_KEPT:
			/* gone since the plan: not kept */
			if ((fd = openat(AT_FDCWD, m->src, O_PATH |
			    O_CLOEXEC)) == -1)
				break;
			kept_fd[i] = fd + 1;
			ok = m->dir ? mkdirat(a, m->rel, 0700) == 0 :
			    mkfile(a, m->rel, 0600) == 0;
			break;
		default:
			ok = mkfile(a, m->rel, 0600) == 0;
		}
	}
	umask(um);
	if (a != -1)
		close(a);
	if (b != -1)
		close(b);
	if (!ok)
		mask_off(pl, 0);
	return ok;
}

/*
 * The home as the session's overlay (plan.c, plan_home): the real home
 * read-only below, the layer above.  The binds that follow (the
 * workspace, rw paths, the agents' own state) go on top, to the real
 * directories, and so do the hidden paths.  Without the overlay (none
 * planned, or the kernel refuses it) the caches' directories of the
 * layer are held here, while /tmp still shows the session, and bound at
 * their real paths in the binds' turn (cache_bind); the rest of the home
 * stays read-only.
 */
static int
home_layer(const struct es_sbx_plan *pl)
{
	size_t i;
	int fd, masked;

	if (pl->s_ovl != NULL) {
		/* the mask between the layer and the real home, or none */
		masked = home_mask(pl);
		if (mount("overlay", pl->s_home, "overlay", MS_NOSUID |
		    MS_NODEV, masked || pl->s_ovl_bare == NULL ? pl->s_ovl :
		    pl->s_ovl_bare) == 0) {
			if (masked)
				mask_off(pl, 1);
			return 0;
		}
		if (masked)
			mask_off(pl, 0);
		if (masked && pl->s_ovl_bare != NULL && mount("overlay",
		    pl->s_home, "overlay", MS_NOSUID | MS_NODEV,
		    pl->s_ovl_bare) == 0)
			return 0;
	}
	for (i = 0; i < pl->nmnt; i++) {
		if (pl->mnt[i].kind != ES_MK_CACHE)
			continue;
		if ((fd = cache_src(pl, pl->mnt[i].src)) == -1)
			es_sbx_fail(pl, ES_S_BIND, (int)i);
		cache_fd[i] = fd + 1;
	}
	return -1;
}

/* A cache's directory of the layer at its real path, writable (home_layer). */
static void
cache_bind(const struct es_sbx_plan *pl, size_t i)
{
	if (cache_fd[i] == 0)
		return;		/* the overlay is mounted */
	bind_at(pl, cache_fd[i] - 1, pl->mnt[i].path, 1, ES_S_BIND, (int)i);
	close(cache_fd[i] - 1);
	cache_fd[i] = 0;
}

/*
 * home private: an empty tmpfs over the home before the binds (the paths
 * bound back, the workspace, the rw paths), read-only once they are in.
 */
static void
home_private(const struct es_sbx_plan *pl, int seal)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == ES_MK_HOME)
			break;
	if (i == pl->nmnt)
		return;
	if (!seal && mount("tmpfs", pl->mnt[i].path, "tmpfs", MS_NOSUID |
	    MS_NODEV, "mode=0755") == -1)
		es_sbx_fail(pl, ES_S_HOME, (int)i);
	if (seal && remount(pl->mnt[i].path, 1) == -1)
		es_sbx_fail(pl, ES_S_HOME, (int)i);
}

/*
 * A hidden directory that holds a kept capability's path (plan.c,
 * cap_keep): an empty tmpfs over it, just before the binds put that
 * path back, read-only once they are in.  One the private /tmp covers
 * (ENOENT) has nothing to cover: the path is bound back there.
 */
static unsigned char priv_made[ES_SBX_NMNT];

static void
priv_dirs(const struct es_sbx_plan *pl, int seal)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++) {
		if (pl->mnt[i].kind != ES_MK_PRIV)
			continue;
		if (seal) {
			if (priv_made[i] && remount(pl->mnt[i].path, 1) == -1)
				es_sbx_fail(pl, ES_S_HIDE, (int)i);
		} else if (mount("tmpfs", pl->mnt[i].path, "tmpfs", MS_NOSUID |
		    MS_NODEV | MS_NOEXEC, "mode=0700") == 0)
			priv_made[i] = 1;
		else if (errno != ENOENT)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
	}
}

/* One entry of getdents64(2), which neither libc declares the same way. */
struct dent64 {
	uint64_t	ino;
	int64_t		off;
	unsigned short	reclen;
	unsigned char	type;
	char		name[];
};

/* Does the walk hide this socket or FIFO? */
static int
node_hidden(const struct es_sbx_plan *pl, int dfd, const char *name,
    const struct stat *st)
{
	size_t i;

	for (i = 0; i < pl->nkept; i++)
		if (pl->kept[i].dev == st->st_dev && pl->kept[i].ino == st->st_ino)
			return 0;
	/*
	 * A root caller's kernel uid 0: every one, since a daemon that
	 * authorizes its peer by uid (the system bus, systemd's private
	 * socket, snapd) takes uid 0 for root whatever the socket's mode.
	 * Anyone else (root as ES_SBX_ROOT_KUID too): those the caller may
	 * connect to but not everyone may (its own, a group's: docker),
	 * checked with its real ids, as connect is.
	 */
	return (pl->sysowner && !pl->idmap) || (!(st->st_mode & S_IWOTH) &&
	    syscall(SYS_faccessat, dfd, name, W_OK) == 0);
}

/*
 * One directory of a socket walk: each socket and FIFO that node_hidden
 * names gets the placeholder file (at /dev/shm/f while hide_paths runs)
 * bound over it, so a connect or an open for writing finds a read-only
 * regular file; each directory on the same file system is entered, down
 * to depth levels (another file system under it, a container's root,
 * is not: what it holds is no daemon's).  Bounded: more entries or
 * sockets than es_limits.h allows is a refusal, not a partial walk.
 */
static void
walk_dir(const struct es_sbx_plan *pl, int dfd, dev_t dev, int depth,
    size_t *entries, size_t *hidden)
{
	char buf[2048], fp[40];
	const struct dent64 *d;
	struct stat st;
	ssize_t n, off;
	int fd;

	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += d->reclen) {
			d = (const struct dent64 *)(const void *)(buf + off);
			if (strcmp(d->name, ".") == 0 ||
			    strcmp(d->name, "..") == 0)
				continue;
			if (++*entries > ES_WALK_ENTRIES) {
				errno = E2BIG;
				es_sbx_fail(pl, ES_S_HIDE, -1);
			}
			if ((d->type != DT_DIR && d->type != DT_SOCK &&
			    d->type != DT_FIFO && d->type != DT_UNKNOWN) ||
			    fstatat(dfd, d->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			if (S_ISDIR(st.st_mode)) {
				if (depth == 0 || st.st_dev != dev ||
				    (fd = openat(dfd, d->name, O_RDONLY |
				    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
					continue;
				walk_dir(pl, fd, dev, depth - 1, entries, hidden);
				close(fd);
				continue;
			}
			if ((!S_ISSOCK(st.st_mode) && !S_ISFIFO(st.st_mode)) ||
			    !node_hidden(pl, dfd, d->name, &st))
				continue;
			if (++*hidden > ES_WALK_HIDES) {
				errno = E2BIG;
				es_sbx_fail(pl, ES_S_HIDE, -1);
			}
			/* ENOENT: the daemon removed it since: nothing to hide */
			if ((fd = openat(dfd, d->name, O_PATH | O_NOFOLLOW |
			    O_CLOEXEC)) == -1) {
				if (errno == ENOENT)
					continue;
				es_sbx_fail(pl, ES_S_HIDE, -1);
			}
			if (mount("/dev/shm/f", fdpath(fp, sizeof(fp), fd),
			    NULL, MS_BIND, NULL) == -1 && errno != ENOENT)
				es_sbx_fail(pl, ES_S_HIDE, -1);
			close(fd);
		}
}

/*
 * The sockets and FIFOs of the plan's walk (/run and the like), hidden
 * in a view that is built (not joined): a unix socket on a read-only
 * mount still accepts a connect, and a FIFO an open for writing.
 */
static void
hide_nodes(const struct es_sbx_plan *pl)
{
	size_t i, entries = 0, hidden = 0;
	struct stat st;
	int fd;

	for (i = 0; i < pl->nwalk; i++) {
		/* a link (/var/run to /run) is walked where it leads, once */
		if ((fd = openat(AT_FDCWD, pl->walk[i].path, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		if (fstat(fd, &st) == 0)
			walk_dir(pl, fd, st.st_dev, pl->walk[i].depth, &entries,
			    &hidden);
		close(fd);
	}
}

/*
 * The hidden paths, a step of its own after the view of the home is
 * built: each becomes a bind of one empty file or one empty directory of
 * a small read-only tmpfs (or of a stub, the least text a tool that
 * refuses an empty file reads: Maven's "<settings/>"), so a tool reads
 * nothing where it expects a file (not EACCES, which yarn 1 dies of),
 * writes get EROFS, and stat shows no size and no names of what was there.  The tmpfs sits on
 * /dev/shm only while the binds are made; the binds hold it after the
 * detach.  Its device number is returned (0 with nothing to hide): in a
 * command that joins the session's view (pl->joined), a path already
 * on that device is hidden, and only the others are bound, on a
 * scratch tmpfs of the command's own.
 */
static int
needs_hide(const struct es_sbx_plan *pl, const struct es_sbx_mnt *m)
{
	struct stat st;

	if (m->kind != ES_MK_HIDE_DIR && m->kind != ES_MK_HIDE_FILE)
		return 0;
	/* joined: already hidden in the session's view, or gone from it */
	return !pl->joined ||
	    (lstat(ES_MNT_AT(m), &st) == 0 && st.st_dev != pl->ph_dev);
}

/*
 * Beside the empty file f and directory d, one file tN holding each stub
 * text the hidden paths name (at most ES_SBX_STUBS, each at most a page),
 * for a tool that refuses an empty file.  Returns how many it made.
 */
static size_t
make_stubs(const struct es_sbx_plan *pl, const char *stub[])
{
	char name[] = "/dev/shm/t0";
	size_t i, k, n = 0, len;
	int f;

	for (i = 0; i < pl->nmnt; i++) {
		if (pl->mnt[i].stub == NULL || !needs_hide(pl, &pl->mnt[i]))
			continue;
		for (k = 0; k < n && strcmp(stub[k], pl->mnt[i].stub) != 0; k++)
			;
		if (k < n || n == ES_SBX_STUBS)
			continue;
		stub[n] = pl->mnt[i].stub;
		name[sizeof(name) - 2] = (char)('0' + n);
		len = strlen(stub[n]);
		if ((f = openat(AT_FDCWD, name, O_CREAT | O_EXCL | O_WRONLY |
		    O_CLOEXEC, 0600)) == -1 || write(f, stub[n], len) !=
		    (ssize_t)len || close(f) == -1)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
		n++;
	}
	return n;
}

/* A stand-in for hidden directory i that holds the session: its path. */
static void
session_stand_in(const struct es_sbx_plan *pl, size_t i, char *buf,
    size_t len)
{
	char *c;
	size_t off = 0;

	es_sbx_put_str(buf, len, &off, "/dev/shm/s");
	es_sbx_put_ulong(buf, len, &off, (unsigned long)i);
	if (mkdir(buf, 0700) == -1)
		es_sbx_fail(pl, ES_S_HIDE, (int)i);
	c = buf + off;
	es_sbx_put_str(buf, len, &off, pl->s_tmp + strlen(pl->mnt[i].path));
	for (c++; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		if (mkdir(buf, 0700) == -1)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
		*c = '/';
	}
	if (mkdir(buf, 0700) == -1)
		es_sbx_fail(pl, ES_S_HIDE, (int)i);
	/* the stand-in itself, what is bound over the hidden directory */
	off = 0;
	es_sbx_put_str(buf, len, &off, "/dev/shm/s");
	es_sbx_put_ulong(buf, len, &off, (unsigned long)i);
}

static dev_t
hide_paths(const struct es_sbx_plan *pl)
{
	const struct es_sbx_mnt *m;
	const char *stub[ES_SBX_STUBS];
	char sname[] = "/dev/shm/t0";
	char si[ES_PATH_MAX];
	struct stat st;
	char fp[40];
	size_t i, k, todo = 0, nstub = 0;
	int f;
	dev_t dev;

	for (i = 0; i < pl->nmnt; i++)
		todo += needs_hide(pl, &pl->mnt[i]);
	/* a view built here walks for sockets too; a joined one has them */
	if (todo == 0 && (pl->joined || pl->nwalk == 0))
		return 0;
	scratch_make(pl, ES_S_HIDE);
	nstub = make_stubs(pl, stub);
	for (i = 0; i < pl->nmnt; i++)
		if (needs_hide(pl, &pl->mnt[i]) && holds_session(pl,
		    &pl->mnt[i]))
			session_stand_in(pl, i, si, sizeof(si));
	dev = scratch_seal(pl, ES_S_HIDE);
	for (i = 0; i < pl->nmnt; i++) {
		const char *src;
		size_t off = 0;

		m = &pl->mnt[i];
		/*
		 * Not there, or not as planned: under the private /tmp or
		 * /dev, in a hidden directory or the mask, or where a command
		 * left a link (the real path is not reached there).  What is
		 * there gets the placeholder of its kind.
		 */
		if (!needs_hide(pl, m) ||
		    (f = at_path(ES_MNT_AT(m), AT_LOOK, NULL, NULL)) == -1)
			continue;
		/*
		 * The placeholder of what is there: a stub for a file that
		 * names one, a session's stand-in for a directory that holds
		 * it.  EACCES as ES_SBX_ROOT_KUID left at_path's -1 above:
		 * what init cannot look up, the command cannot either.
		 */
		for (k = 0; m->stub != NULL && k < nstub &&
		    strcmp(stub[k], m->stub) != 0; k++)
			;
		sname[sizeof(sname) - 2] = (char)('0' + k);
		if (fstat(f, &st) == -1)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
		src = S_ISDIR(st.st_mode) ? "/dev/shm/d" :
		    m->stub != NULL && k < nstub ? sname : "/dev/shm/f";
		if (S_ISDIR(st.st_mode) && holds_session(pl, m)) {
			es_sbx_put_str(si, sizeof(si), &off, "/dev/shm/s");
			es_sbx_put_ulong(si, sizeof(si), &off, (unsigned long)i);
			src = si;
		}
		/* ENOENT: removed since it was looked up, nothing to hide */
		if (mount(src, fdpath(fp, sizeof(fp), f), NULL, MS_BIND,
		    NULL) == -1 && errno != ENOENT)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
		close(f);
	}
	if (!pl->joined)
		hide_nodes(pl);
	scratch_off(pl, ES_S_HIDE);
	return dev;
}

/*
 * The session's tmp/, which /tmp is, at its own path too (the agent's
 * TMPDIR, so a path the agent computed resolves inside), on top of
 * everything: below /tmp or /var/tmp its mount point is made on the
 * skeleton there (skel_way, sealed here with the others), below a hidden
 * directory the stand-in holds it (session_stand_in), elsewhere the
 * read-only root shows it.  Never through a link a command left.
 */
static void
session_own_path(const struct es_sbx_plan *pl)
{
	struct stat a, b;
	int fd;

	if (pl->s_tmp != NULL && (stat("/tmp", &a) == -1 ||
	    stat(pl->s_tmp, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)) {
		/* made without following a link a command left on the way */
		if ((fd = openat(AT_FDCWD, "/tmp", O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			es_sbx_fail(pl, ES_S_TMP, -1);
		bind_at(pl, fd, pl->s_tmp, 1, ES_S_TMP, -1);
		close(fd);
	}
	seal_skeletons(pl);
}

/*
 * The view every command of a session shares: read-only root, writable
 * workspace, the session's temp and home, /dev, the hidden paths.  The
 * placeholders' device is returned (hide_paths).
 */
dev_t
es_sbx_mounts_base(const struct es_sbx_plan *pl)
{
	const struct es_sbx_mnt *m;
	char tmp[ES_PATH_MAX], *s, c;
	int src[ES_SBX_NMNT], tfd = -1, vfd = -1, layered, fd;
	size_t i, off;
	dev_t dev;

	/*
	 * No MS_SLAVE pass: copying a mount namespace into a new user
	 * namespace already turns shared mounts into slaves.
	 */
	if (pl->idmap)
		attach_trees(pl);
	/*
	 * Hold the writable paths: the private /tmp or home may cover them.
	 * The real ones, before the home's layer covers those below it; the
	 * home kept under /tmp, after: it is the layered view that goes back.
	 * The layer is mounted while its upper directory is still writable.
	 */
	for (i = 0; i < pl->nmnt; i++) {
		src[i] = pl->mnt[i].tree - 1;
		if (src[i] == -1 && (pl->mnt[i].kind == ES_MK_RW ||
		    pl->mnt[i].kind == ES_MK_KEEP ||
		    pl->mnt[i].kind == ES_MK_BACK) && !home_kept(pl, i) &&
		    (src[i] = openat(AT_FDCWD, pl->mnt[i].path,
		    O_PATH | O_CLOEXEC)) == -1)
			es_sbx_fail(pl, ES_S_BIND, (int)i);
	}
	/*
	 * The session's tmp/ and var-tmp/ too: below the home (the sessions'
	 * base in the state directory) the overlay would show them from its
	 * lower layer, and what commands write there would land in the home's
	 * layer, never seen by the agent; and a private home covers them.
	 */
	if (pl->s_tmp != NULL &&
	    ((tfd = openat(AT_FDCWD, pl->s_tmp, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (vfd = openat(AT_FDCWD, pl->s_vartmp, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1))
		es_sbx_fail(pl, ES_S_TMP, -1);
	layered = home_layer(pl) == 0;
	if (root_ro() == -1)
		es_sbx_fail(pl, ES_S_ROOT_RO, -1);
	if (layered && remount(pl->s_home, 0) == -1)
		es_sbx_fail(pl, ES_S_WRITABLE, -1);
	for (i = 0; i < pl->nmnt; i++)
		if (home_kept(pl, i) && (src[i] = openat(AT_FDCWD,
		    pl->mnt[i].path, O_PATH | O_CLOEXEC)) == -1)
			es_sbx_fail(pl, ES_S_BIND, (int)i);
	home_private(pl, 0);
	if (pl->s_tmp != NULL)
		session_tmp(pl, tfd, vfd);
	else if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		es_sbx_fail(pl, ES_S_TMP, -1);
	if (pl->tmpsub != NULL) {
		off = 0;
		es_sbx_put_str(tmp, sizeof(tmp), &off, "/tmp/");
		es_sbx_put_str(tmp, sizeof(tmp), &off, pl->tmpsub);
		for (s = tmp + 5;; s++) {
			if (*s != '/' && *s != '\0')
				continue;
			c = *s;
			*s = '\0';
			if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
				es_sbx_fail(pl, ES_S_TMP, -1);
			if ((*s = c) == '\0')
				break;
		}
	}
	priv_dirs(pl, 0);
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if (m->kind == ES_MK_CACHE)
			cache_bind(pl, i);
		if (m->kind != ES_MK_RW && m->kind != ES_MK_KEEP &&
		    m->kind != ES_MK_BACK)
			continue;
		/* KEEP and BACK stay as read-only as the root they came from. */
		bind_at(pl, src[i], m->path, m->kind == ES_MK_RW && !m->host_ro,
		    ES_S_BIND, (int)i);
		close(src[i]);
	}
	/*
	 * The own path's way, while a private home is writable: on its
	 * skeleton, which stays writable for session_own_path to bind on.
	 */
	if (pl->s_tmp != NULL) {
		skel_way(pl, pl->s_tmp, -1);
		if ((fd = at_path(pl->s_tmp, AT_DIR, NULL, NULL)) != -1)
			close(fd);
	}
	home_private(pl, 1);
	priv_dirs(pl, 1);
	setup_dev(pl);
	dev = hide_paths(pl);
	session_own_path(pl);
	return dev;
}

/*
 * What kernel uid 0 still writes without a capability, on the fresh
 * /proc: its owner permission on the host-global entries (/proc/sys,
 * sysrq-trigger, irq, bus), and a pipe in core_pattern runs a file of
 * the command's as real root.  For a caller that owns the system's
 * files, every top-level entry but the processes' own becomes
 * read-only, as bubblewrap and Docker cover theirs, and every file only
 * its owner may read (kcore, kpageflags, slabinfo, timer_list) shows
 * /dev/null, as Docker masks its list.  Whatever a later kernel adds at
 * the top is covered too.  Locked in any namespace made inside, the
 * covers also keep it from mounting a /proc without them.
 */
static void
proc_cover(const struct es_sbx_plan *pl)
{
	char buf[4096], path[64];
	const struct dent64 *d;
	struct stat st;
	ssize_t n, off;
	size_t k, seen = 0;
	int dfd, r;

	if ((dfd = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		es_sbx_fail(pl, ES_S_PROC_COVER, -1);
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += d->reclen) {
			d = (const struct dent64 *)(const void *)(buf + off);
			if ((d->name[0] >= '0' && d->name[0] <= '9') ||
			    strcmp(d->name, ".") == 0 ||
			    strcmp(d->name, "..") == 0 || d->type == DT_LNK)
				continue;
			/* a /proc has some hundred entries: more is not one */
			if (++seen > ES_PROC_ENTRIES ||
			    fstatat(dfd, d->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
				es_sbx_fail(pl, ES_S_PROC_COVER, -1);
			k = 0;
			es_sbx_put_str(path, sizeof(path), &k, "/proc/");
			es_sbx_put_str(path, sizeof(path), &k, d->name);
			if (k >= sizeof(path) - 1)
				es_sbx_fail(pl, ES_S_PROC_COVER, -1);
			/* keys lists the keys its reader's uid owns: root's */
			if (S_ISREG(st.st_mode) && (!(st.st_mode & 044) ||
			    strcmp(d->name, "keys") == 0))
				r = mount("/dev/null", path, NULL, MS_BIND, NULL);
			else if (S_ISDIR(st.st_mode) || (st.st_mode & 0222))
				r = mount(path, path, NULL, MS_BIND | MS_REC,
				    NULL) == -1 ? -1 : remount(path, 1);
			else
				continue;	/* readable by all, writable by none */
			if (r == -1)
				es_sbx_fail(pl, ES_S_PROC_COVER, -1);
		}
	if (n == -1)
		es_sbx_fail(pl, ES_S_PROC_COVER, -1);
	close(dfd);
}

/*
 * No user namespace below the sandbox's, for a caller that owns the
 * system's files: there kernel uid 0 would hold every capability over
 * what it owns, and mount a cgroup2 whose root-owned files (the host's
 * root cgroup, a container's) it then writes.  Its own id cannot be
 * mapped there anyway (Linux 5.12+ wants CAP_SETFCAP for a map of uid
 * 0), so nothing that works is lost.  The limit is the sandbox user
 * namespace's own, set while init still holds CAP_SYS_RESOURCE in it.
 */
static void
no_userns(const struct es_sbx_plan *pl)
{
	int fd;

	if ((fd = openat(AT_FDCWD, "/proc/sys/user/max_user_namespaces",
	    O_WRONLY | O_CLOEXEC)) == -1 || write(fd, "0\n", 2) != 2)
		es_sbx_fail(pl, ES_S_PROC_COVER, -1);
	close(fd);
}

/*
 * What is the command's own, on top of its copy of the view: its ptys
 * and /dev/shm (dev_own), the hidden paths the view lacks (made or renamed into place since the keeper
 * built it), the read-only paths in the workspace (which the command's
 * predecessors may have made: .git/hooks), and the /proc of its pid
 * namespace.  A copy made in the view's own user namespace keeps the
 * view's propagation, which the keeper made private: nothing mounted
 * here reaches the keeper or another command.
 */
void
es_sbx_mounts_own(const struct es_sbx_plan *pl)
{
	size_t i;

	if (pl->joined) {
		dev_own(pl);
		(void)hide_paths(pl);
		session_own_path(pl);
	}
	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == ES_MK_RO)
			protect_ro(pl, (int)i);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		es_sbx_fail(pl, ES_S_PROC, -1);
	/* as ES_SBX_ROOT_KUID (idmap.c) it owns none of that */
	if (pl->sysowner && !pl->idmap) {
		no_userns(pl);
		proc_cover(pl);
	}
}

/* For reveal.c: a mount made read-only, and an fd as a path for mount(2). */
int
es_sbx_remount(const char *path, int ro)
{
	return remount(path, ro);
}

const char *
es_sbx_fdpath(char *buf, size_t len, int fd)
{
	return fdpath(buf, len, fd);
}
