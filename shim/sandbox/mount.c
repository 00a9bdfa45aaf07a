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
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include <linux/mount.h>	/* mount_setattr: musl's sys/mount.h lacks it */
#include <linux/stat.h>		/* statx: musl before 1.2.5 lacks it */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
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
		if (j > 0 && remount(mp, 1) == -1 && errno != ENOENT &&
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

/* The whole inherited tree read-only (and nosuid) in one call if possible. */
static int
root_ro(void)
{
	if (setattr(AT_FDCWD, "/", AT_RECURSIVE,
	    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0) == 0)
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
 * A 4 KiB tmpfs on /dev/shm holding one empty file (f) and one empty
 * directory (d), read-only, while placeholders are bound from it: its
 * device.  Not on /tmp: a session binds a home or workspace that lives
 * under /tmp back at its path, and a scratch mount there would hide it
 * while the binds are made.  scratch_off detaches it; the binds hold it.
 */
static dev_t
scratch_on(const struct es_sbx_plan *pl, int step)
{
	struct stat st;
	int f;

	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, "mode=0755,size=4k,nr_inodes=4") == -1 ||
	    (f = openat(AT_FDCWD, "/dev/shm/f", O_CREAT | O_EXCL | O_WRONLY |
	    O_CLOEXEC, 0600)) == -1 || close(f) == -1 ||
	    mkdir("/dev/shm/d", 0700) == -1 || remount("/dev/shm", 1) == -1 ||
	    stat("/dev/shm/f", &st) == -1)
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
	(void)scratch_on(pl, ES_S_RO_LINK);
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
		    NULL) == -1)
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
 * The session's tmp/ at /tmp, var-tmp/ at /var/tmp: what one command of
 * the run leaves there, the next one finds.  tmp/ at its own path too
 * comes after the binds (own_tmp).
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
	/* a /var/tmp that is a link (to /tmp) is left as it is */
	if (lstat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode) &&
	    (mount(fdpath(fp, sizeof(fp), vfd), "/var/tmp", NULL, MS_BIND,
	    NULL) == -1 || remount("/var/tmp", 0) == -1))
		es_sbx_fail(pl, ES_S_TMP, -1);
	close(vfd);
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
 * Binds src (O_PATH) at path, made as planned (at_path): a directory, or
 * a file; in the session's /tmp and /var/tmp on a skeleton, unless an
 * earlier bind is where it goes (the home kept at /tmp/h, the shim in
 * it).  writable: the bind made writable.  Fails at step for item.
 */
static void
bind_at(const struct es_sbx_plan *pl, int src, const char *path, int writable,
    int force_skel, int step, int item)
{
	char fp[40], tp[40], name[NAME_MAX + 1];
	struct stat st;
	size_t b, i;
	int fd, dfd, dir, covered = 0;

	if (fstat(src, &st) == -1)
		es_sbx_fail(pl, step, item);
	dir = S_ISDIR(st.st_mode);
	if ((b = in_session_tmp(pl, path)) != 0) {
		for (i = 0; !force_skel && item > 0 && i < (size_t)item; i++)
			covered |= (pl->mnt[i].kind == ES_MK_RW ||
			    pl->mnt[i].kind == ES_MK_KEEP ||
			    pl->mnt[i].kind == ES_MK_BACK) &&
			    below(pl->mnt[i].path, path);
		if (!covered)
			skeleton(pl, path, b, item);
	}
	if ((fd = at_path(path, dir ? AT_DIR : AT_FILE, &dfd, name)) == -1 ||
	    mount(fdpath(fp, sizeof(fp), src), fdpath(tp, sizeof(tp), fd), NULL,
	    MS_BIND | MS_REC, NULL) == -1)
		es_sbx_fail(pl, step, item);
	close(fd);
	if (writable && ((fd = mounted(dfd, name)) == -1 ||
	    remount(fdpath(tp, sizeof(tp), fd), 0) == -1))
		es_sbx_fail(pl, ES_S_WRITABLE, item);
	if (writable)
		close(fd);
	close(dfd);
}

/*
 * The session's tmp/ at its own path too: the agent's TMPDIR, so a path
 * the agent computed resolves inside.  After the binds, so it lands on
 * whatever /tmp is then (a workspace of /tmp itself included), and on
 * a skeleton of its own: the way to it, /tmp/envshim-UID/NAME, is no
 * command's to move.
 */
static void
own_tmp(const struct es_sbx_plan *pl, int tfd)
{
	bind_at(pl, tfd, pl->s_tmp, 1, 1, ES_S_TMP, -1);
	close(tfd);
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
	bind_at(pl, cache_fd[i] - 1, pl->mnt[i].path, 1, 0, ES_S_BIND, (int)i);
	close(cache_fd[i] - 1);
	cache_fd[i] = 0;
}

/*
 * home private: an empty tmpfs over the home before the binds (the paths
 * bound back, the workspace, the log), read-only once they are in.
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
 * The hidden paths, a step of its own after the view of the home is
 * built: each becomes a bind of one empty file or one empty directory of
 * a small read-only tmpfs, so a tool reads nothing where it expects a
 * file (not EACCES, which yarn 1 dies of), writes get EROFS, and stat
 * shows no size and no names of what was there.  The tmpfs sits on
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

static dev_t
hide_paths(const struct es_sbx_plan *pl)
{
	const struct es_sbx_mnt *m;
	struct stat st;
	char fp[40];
	size_t i, todo = 0;
	int f;
	dev_t dev;

	for (i = 0; i < pl->nmnt; i++)
		todo += needs_hide(pl, &pl->mnt[i]);
	if (todo == 0)
		return 0;
	dev = scratch_on(pl, ES_S_HIDE);
	for (i = 0; i < pl->nmnt; i++) {
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
		if (fstat(f, &st) == -1 || mount(S_ISDIR(st.st_mode) ?
		    "/dev/shm/d" : "/dev/shm/f", fdpath(fp, sizeof(fp), f),
		    NULL, MS_BIND, NULL) == -1)
			es_sbx_fail(pl, ES_S_HIDE, (int)i);
		close(f);
	}
	scratch_off(pl, ES_S_HIDE);
	return dev;
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
	char tmp[ES_PATH_MAX];
	int src[ES_SBX_NMNT], tfd = -1, vfd = -1, layered;
	size_t i, off;

	/*
	 * No MS_SLAVE pass: copying a mount namespace into a new user
	 * namespace already turns shared mounts into slaves.
	 */
	/*
	 * Hold the writable paths: the private /tmp or home may cover them.
	 * The real ones, before the home's layer covers those below it; the
	 * home kept under /tmp, after: it is the layered view that goes back.
	 * The layer is mounted while its upper directory is still writable.
	 */
	for (i = 0; i < pl->nmnt; i++) {
		src[i] = -1;
		if ((pl->mnt[i].kind == ES_MK_RW ||
		    pl->mnt[i].kind == ES_MK_KEEP ||
		    pl->mnt[i].kind == ES_MK_BACK) && !home_kept(pl, i) &&
		    (src[i] = openat(AT_FDCWD, pl->mnt[i].path,
		    O_PATH | O_CLOEXEC)) == -1)
			es_sbx_fail(pl, ES_S_BIND, (int)i);
	}
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
	if (pl->s_tmp != NULL &&
	    ((tfd = openat(AT_FDCWD, pl->s_tmp, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (vfd = openat(AT_FDCWD, pl->s_vartmp, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1))
		es_sbx_fail(pl, ES_S_TMP, -1);
	if (pl->s_tmp != NULL)
		session_tmp(pl, tfd, vfd);
	else if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		es_sbx_fail(pl, ES_S_TMP, -1);
	if (pl->tmpsub != NULL) {
		off = 0;
		es_sbx_put_str(tmp, sizeof(tmp), &off, "/tmp/");
		es_sbx_put_str(tmp, sizeof(tmp), &off, pl->tmpsub);
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
			es_sbx_fail(pl, ES_S_TMP, -1);
	}
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if (m->kind == ES_MK_CACHE)
			cache_bind(pl, i);
		if (m->kind != ES_MK_RW && m->kind != ES_MK_KEEP &&
		    m->kind != ES_MK_BACK)
			continue;
		/* KEEP and BACK stay as read-only as the root they came from. */
		bind_at(pl, src[i], m->path, m->kind == ES_MK_RW && !m->host_ro,
		    0, ES_S_BIND, (int)i);
		close(src[i]);
	}
	if (pl->s_tmp != NULL)
		own_tmp(pl, tfd);
	seal_skeletons(pl);
	home_private(pl, 1);
	setup_dev(pl);
	return hide_paths(pl);
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
	}
	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == ES_MK_RO)
			protect_ro(pl, (int)i);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		es_sbx_fail(pl, ES_S_PROC, -1);
}
