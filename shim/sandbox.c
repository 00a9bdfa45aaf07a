/*
 * sandbox.c - envshim-sandbox: run one command confined.
 *
 *	envshim-sandbox [--policy FILE] [--argv0 NAME] [--] COMMAND [ARGS...]
 *
 * Three processes, as in bubblewrap:
 *   outer	the helper as exec'ed: plans everything (policy, paths, argv,
 *		environment), clones, forwards signals, mirrors the result.
 *   init	pid 1 of the new namespaces: user map, mounts, then reaps
 *		and forwards signals until the command ends.
 *   command	setsid, exec.
 * The outer does every allocation and lookup; init and the command use
 * only system calls and memory the outer prepared, and report failures
 * as a struct over a close-on-exec pipe, which the outer turns into words.
 *
 * Never setuid: it refuses to run with AT_SECURE.  Fails closed: under
 * "sandbox required" the command never runs unconfined.
 */
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/mount.h>	/* mount_setattr: musl's sys/mount.h lacks it */
#include <linux/stat.h>		/* statx: musl before 1.2.5 lacks it */

#ifndef ES_SBX_STATIC
#include <dlfcn.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
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
#include "es_landlock.h"
#include "es_limits.h"
#include "es_load.h"
#include "es_policy.h"

#define EXIT_SETUP	125	/* envshim's own failure, never the command's */

extern char **environ;

typedef int (*es_execve_fn)(const char *, char *const[], char *const[]);

/* The steps init takes; the outer names the failing one. */
enum step {
	S_MAP_UID, S_SETGROUPS, S_MAP_GID, S_ROOT_RO, S_BIND, S_WRITABLE,
	S_TMP, S_DEV, S_DEVNODE, S_PTS, S_SHM, S_HIDE, S_RO_OPEN, S_RO_LINK,
	S_RO_PIN, S_RO, S_PROC, S_CHDIR, S_NSID, S_CAPS, S_SETSID,
	S_KEYRING, S_LANDLOCK, S_PDEATHSIG, S_PARENT, S_FORK, S_EXEC
};

static const char *const step_name[] = {
	"write uid_map", "write setgroups", "write gid_map",
	"make / read-only", "bind a writable path", "make a path writable",
	"mount /tmp", "mount /dev", "bind a device", "mount /dev/pts",
	"mount /dev/shm", "hide a path", "open a ro path",
	"ro path is a symlink", "pin a ro path's directory",
	"make a ro path read-only", "mount /proc", "chdir", "read namespace ids",
	"drop capabilities", "setsid", "join a new session keyring",
	"scope with Landlock", "PR_SET_PDEATHSIG", "parent exited",
	"fork", "exec"
};

/* What init tells the outer, one write each. */
enum msg_kind { M_FAIL = 1, M_STATUS };
struct msg {
	int	kind;
	int	step;		/* enum step */
	int	err;		/* errno */
	int	item;		/* index into plan.mnt, or -1 */
	int	status;		/* wait status of the command */
};

/* One mount init makes; the outer decided its kind. */
enum mnt_kind { MK_RW, MK_HIDE_DIR, MK_HIDE_FILE, MK_RO, MK_KEEP };
struct mnt {
	int		 kind;
	int		 host_ro;	/* MK_RW: already read-only on the host */
	int		 mkdir;		/* MK_RO: a missing last directory is made */
	const char	*path;		/* absolute; MK_RO: relative to the workspace */
};

#define NMNT	(3 * ES_MAX_PATHS + 32)

static const char *const dev_nodes[] = {
	"null", "zero", "full", "random", "urandom", "tty"
};
#define NDEV	(sizeof(dev_nodes) / sizeof(dev_nodes[0]))

/* Everything init and the command need, prepared by the outer. */
struct plan {
	const char	*path;		/* resolved command */
	char		**argv;
	char		**envp;
	char		 nsvar[96];	/* "ENVSHIM_SANDBOX_NS=u:m:p", an envp slot */
	pid_t		 outer;		/* this launch's pid as the log outside knows it */
	const char	*ws;
	const char	*cwd;
	const char	*tmpsub;	/* $TMPDIR below /tmp, or NULL */
	uid_t		 uid;
	gid_t		 gid;
	int		 netns;
	size_t		 nmnt;
	struct mnt	 mnt[NMNT];
	es_execve_fn	 exec;
	int		 msgfd;		/* write end, close-on-exec */
	int		 alivefd;	/* read end: EOF when the outer is gone */
	sigset_t	 mask;		/* the caller's signal mask */
};

/* Signals a terminal or a supervisor sends that the command should see. */
static const int fwd_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH,
	SIGALRM, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU
};
#define NFWD	(sizeof(fwd_sigs) / sizeof(fwd_sigs[0]))

static volatile pid_t fwd_to;		/* signal forwarding target */
static int fwd_group;			/* init: to the command's group */
static struct sigaction orig_act[NFWD];	/* the caller's dispositions */

static const char *cmdname = "envshim-sandbox";

/* The one line every refusal prints, then exit 125. */
static void __attribute__((noreturn, format(printf, 1, 2)))
refuse(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "envshim: refused %s: %s\n", cmdname, buf);
	exit(EXIT_SETUP);
}

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

/*
 * ---- AS-safe pieces used by init and the command ----
 * They open with openat(AT_FDCWD, ...): musl's open() follows O_CLOEXEC
 * with an fcntl, for kernels older than the flag.
 */

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

/* Appends decimal v to buf at *off (bounded). */
static void
put_ulong(char *buf, size_t len, size_t *off, unsigned long v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v != 0);
	while (n > 0 && *off + 1 < len)
		buf[(*off)++] = tmp[--n];
	buf[*off] = '\0';
}

static void
put_str(char *buf, size_t len, size_t *off, const char *s)
{
	while (*s != '\0' && *off + 1 < len)
		buf[(*off)++] = *s++;
	buf[*off] = '\0';
}

/* "id id 1": the caller's id stays itself inside, nothing else exists. */
static int
write_map(const char *path, unsigned long id)
{
	char map[64];
	size_t off = 0;

	put_ulong(map, sizeof(map), &off, id);
	put_str(map, sizeof(map), &off, " ");
	put_ulong(map, sizeof(map), &off, id);
	put_str(map, sizeof(map), &off, " 1\n");
	return write_file(path, map);
}

/* "/proc/self/fd/N": how mount(2) reaches what an O_PATH fd holds. */
static const char *
fdpath(char *buf, size_t len, int fd)
{
	size_t off = 0;

	put_str(buf, len, &off, "/proc/self/fd/");
	put_ulong(buf, len, &off, (unsigned long)fd);
	return buf;
}

static void __attribute__((noreturn))
fail(const struct plan *pl, int step, int item)
{
	struct msg m = { M_FAIL, step, errno, item, 0 };

	(void)!write(pl->msgfd, &m, sizeof(m));
	_exit(EXIT_SETUP);
}

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
		if ((nl = strchr(buf, '\n')) == NULL && n > 0)
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

/*
 * Makes rel (below the workspace) read-only.  Every directory between the
 * workspace and rel becomes a mount of itself first: a mount point cannot
 * be renamed, so the protected path cannot be moved away and replaced.
 */
static void
protect_ro(const struct plan *pl, int item)
{
	char comp[NAME_MAX + 1], fp[40];
	const char *s = pl->mnt[item].path, *e;
	int dfd, fd;
	size_t n;

	if ((dfd = openat(AT_FDCWD, pl->ws, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		fail(pl, S_RO_OPEN, item);
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
		if (fd < 0) {
			if (fd == -2)
				fail(pl, S_RO_LINK, item);
			if (errno == ENOENT || errno == ENOTDIR)
				break;		/* nothing to protect */
			fail(pl, S_RO_OPEN, item);
		}
		/* a directory pinned for an earlier ro path stays as it is */
		if (e == NULL || !mount_root(fd)) {
			fdpath(fp, sizeof(fp), fd);
			if (mount(fp, fp, NULL, MS_BIND | MS_REC, NULL) == -1)
				fail(pl, e ? S_RO_PIN : S_RO, item);
			close(fd);
			/* reopen: now it names the new mount, not the one below */
			if ((fd = open_nofollow(dfd, comp)) < 0)
				fail(pl, fd == -2 ? S_RO_LINK : S_RO_OPEN, item);
		}
		if (e == NULL) {
			fdpath(fp, sizeof(fp), fd);
			if (remount(fp, 1) == -1)
				fail(pl, S_RO, item);
			close(fd);
			break;
		}
		close(dfd);
		dfd = fd;
		s = e;
	}
	close(dfd);
}

static void
setup_dev(const struct plan *pl)
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
		put_str(dst, sizeof(dst), &off, "/dev/");
		put_str(dst, sizeof(dst), &off, dev_nodes[i]);
		fds[i] = openat(AT_FDCWD, dst, O_PATH | O_CLOEXEC);
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC,
	    "mode=0755,size=64k,nr_inodes=64") == -1)
		fail(pl, S_DEV, -1);
	for (i = 0; i < NDEV; i++) {
		if (fds[i] == -1)
			continue;	/* absent on the host: absent here */
		off = 0;
		put_str(dst, sizeof(dst), &off, "/dev/");
		put_str(dst, sizeof(dst), &off, dev_nodes[i]);
		if ((fd = openat(AT_FDCWD, dst, O_CREAT | O_EXCL | O_WRONLY |
		    O_CLOEXEC, 0666)) == -1)
			fail(pl, S_DEVNODE, -1);
		close(fd);
		if (mount(fdpath(fp, sizeof(fp), fds[i]), dst, NULL, MS_BIND,
		    NULL) == -1)
			fail(pl, S_DEVNODE, -1);
		close(fds[i]);
	}
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		off = 0;
		put_str(dst, sizeof(dst), &off, "/dev/");
		put_str(dst, sizeof(dst), &off, links[i][0]);
		if (symlink(links[i][1], dst) == -1)
			fail(pl, S_DEV, -1);
	}
	if (mkdir("/dev/pts", 0755) == -1 || mkdir("/dev/shm", 01777) == -1)
		fail(pl, S_DEV, -1);
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=620") == -1)
		fail(pl, S_PTS, -1);
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		fail(pl, S_SHM, -1);
	if (remount("/dev", 1) == -1)
		fail(pl, S_DEV, -1);
}

/*
 * A mount point for a bind whose target the private /tmp covered: its
 * directories, then a directory or an empty file like the source.
 */
static int
make_target(const char *path, int dir)
{
	char buf[ES_PATH_MAX];
	struct stat st;
	size_t off = 0;
	char *s;
	int fd;

	if (stat(path, &st) == 0)
		return 0;
	put_str(buf, sizeof(buf), &off, path);
	for (s = buf + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (dir)
		return mkdir(buf, 0755) == -1 && errno != EEXIST ? -1 : 0;
	if ((fd = openat(AT_FDCWD, buf, O_CREAT | O_WRONLY | O_CLOEXEC,
	    0600)) == -1)
		return -1;
	return close(fd);
}

/* Builds the view: read-only root, writable workspace, private temp, ... */
static void
setup_mounts(const struct plan *pl)
{
	const struct mnt *m;
	char tmp[ES_PATH_MAX], fp[40];
	int src[NMNT];
	struct stat st;
	size_t i, off;

	/*
	 * No MS_SLAVE pass: copying a mount namespace into a new user
	 * namespace already turns shared mounts into slaves.
	 */
	if (root_ro() == -1)
		fail(pl, S_ROOT_RO, -1);
	/* hold the writable paths: the private /tmp may cover them */
	for (i = 0; i < pl->nmnt; i++) {
		src[i] = -1;
		if ((pl->mnt[i].kind == MK_RW || pl->mnt[i].kind == MK_KEEP) &&
		    (src[i] = openat(AT_FDCWD, pl->mnt[i].path,
		    O_PATH | O_CLOEXEC)) == -1)
			fail(pl, S_BIND, (int)i);
	}
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=1777") == -1)
		fail(pl, S_TMP, -1);
	if (pl->tmpsub != NULL) {
		off = 0;
		put_str(tmp, sizeof(tmp), &off, "/tmp/");
		put_str(tmp, sizeof(tmp), &off, pl->tmpsub);
		if (mkdir(tmp, 0700) == -1 && errno != EEXIST)
			fail(pl, S_TMP, -1);
	}
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		if (m->kind != MK_RW && m->kind != MK_KEEP)
			continue;
		if (fstat(src[i], &st) == -1 ||
		    make_target(m->path, S_ISDIR(st.st_mode)) == -1 ||
		    mount(fdpath(fp, sizeof(fp), src[i]), m->path, NULL,
		    MS_BIND | MS_REC, NULL) == -1)
			fail(pl, S_BIND, (int)i);
		close(src[i]);
		/* MK_KEEP stays as read-only as the root it came from. */
		if (m->kind == MK_RW && !m->host_ro && remount(m->path, 0) == -1)
			fail(pl, S_WRITABLE, (int)i);
	}
	setup_dev(pl);
	for (i = 0; i < pl->nmnt; i++) {
		m = &pl->mnt[i];
		/* ENOENT: under the private /tmp or /dev, hidden already */
		if (m->kind == MK_HIDE_DIR && mount("tmpfs", m->path, "tmpfs",
		    MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "mode=0700,size=4k,nr_inodes=1") == -1 && errno != ENOENT)
			fail(pl, S_HIDE, (int)i);
		if (m->kind == MK_HIDE_FILE && mount("/dev/null", m->path,
		    NULL, MS_BIND, NULL) == -1 && errno != ENOENT)
			fail(pl, S_HIDE, (int)i);
	}
	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == MK_RO)
			protect_ro(pl, (int)i);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL) == -1)
		fail(pl, S_PROC, -1);
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

static void
forward(int sig)
{
	int e = errno;
	pid_t to = fwd_to;

	if (to > 0 && (!fwd_group || kill(-to, sig) == -1))
		kill(to, sig);
	errno = e;
}

static void
catch_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NFWD; i++)
		sigaction(fwd_sigs[i], &sa, NULL);
}

/* The command: a new session (no controlling tty: TIOCSTI), then exec. */
static void __attribute__((noreturn))
run_command(const struct plan *pl)
{
	struct msg m = { M_FAIL, S_EXEC, 0, -1, 0 };
	size_t i;

	for (i = 0; i < NFWD; i++)
		sigaction(fwd_sigs[i], &orig_act[i], NULL);
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	if (setsid() == -1)
		m.step = S_SETSID;
	else if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		m.step = S_PDEATHSIG;
	else if (getppid() != 1) {
		errno = ESRCH;
		m.step = S_PARENT;
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
set_nsvar(struct plan *pl)
{
	struct stat u, mn;
	size_t off = 0;

	if (stat("/proc/self/ns/user", &u) == -1 ||
	    stat("/proc/self/ns/mnt", &mn) == -1)
		return -1;
	put_str(pl->nsvar, sizeof(pl->nsvar), &off, "ENVSHIM_SANDBOX_NS=");
	put_ulong(pl->nsvar, sizeof(pl->nsvar), &off, (unsigned long)u.st_ino);
	put_str(pl->nsvar, sizeof(pl->nsvar), &off, ":");
	put_ulong(pl->nsvar, sizeof(pl->nsvar), &off, (unsigned long)mn.st_ino);
	put_str(pl->nsvar, sizeof(pl->nsvar), &off, ":");
	put_ulong(pl->nsvar, sizeof(pl->nsvar), &off, (unsigned long)pl->outer);
	return 0;
}

/*
 * pid 1 of the new namespaces.  Its death kills everything inside, so it
 * stays until the command ends, reaping orphans and passing signals on.
 */
static void __attribute__((noreturn))
init_main(struct plan *pl)
{
	struct pollfd alive = { pl->alivefd, POLLIN, 0 };
	struct msg m = { M_STATUS, 0, 0, -1, 0 };
	pid_t pid, cmd;
	int st;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fail(pl, S_PDEATHSIG, -1);
	/* the outer never writes: a hangup means it died before PDEATHSIG */
	if (poll(&alive, 1, 0) != 0) {
		errno = ESRCH;
		fail(pl, S_PARENT, -1);
	}
	close(pl->alivefd);
	/* setgroups first: a gid map is refused while setgroups is allowed */
	if (write_map("/proc/self/uid_map", pl->uid) == -1)
		fail(pl, S_MAP_UID, -1);
	if (write_file("/proc/self/setgroups", "deny") == -1)
		fail(pl, S_SETGROUPS, -1);
	if (write_map("/proc/self/gid_map", pl->gid) == -1)
		fail(pl, S_MAP_GID, -1);
	setup_mounts(pl);
	if (chdir(pl->cwd) == -1)
		fail(pl, S_CHDIR, -1);
	if (set_nsvar(pl) == -1)
		fail(pl, S_NSID, -1);
	/* nothing inside may ptrace pid 1 or inherit its powers */
	if (drop_caps() == -1 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fail(pl, S_CAPS, -1);
	if (setsid() == -1)
		fail(pl, S_SETSID, -1);
	/*
	 * A session keyring of its own: the caller's holds the user's keys,
	 * which KEYCTL_SEARCH and KEYCTL_READ from inside would hand over.
	 * A kernel without keys has nothing to hide.
	 */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1 &&
	    errno != ENOSYS)
		fail(pl, S_KEYRING, -1);
	/*
	 * Abstract sockets belong to the network namespace, which `network
	 * on` shares: Landlock (Linux 6.12+) keeps them, and signals, inside.
	 * An older kernel leaves that gap open, as the threat model says.
	 */
	if (es_landlock_scope() == -1)
		fail(pl, S_LANDLOCK, -1);
	fwd_group = 1;
	catch_signals();
	/*
	 * vfork: until its exec the command only makes system calls on
	 * memory init does not touch again, so init's pages need no copy.
	 */
	if ((cmd = vfork()) == -1)
		fail(pl, S_FORK, -1);
	if (cmd == 0)
		run_command(pl);
	fwd_to = cmd;
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	for (;;) {
		pid = waitpid(-1, &st, 0);
		if (pid == cmd)
			break;
		if (pid == -1 && errno != EINTR)
			_exit(EXIT_SETUP);
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

/* ---- the outer: plain C, may allocate ---- */

static void *
xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n, sz)) == NULL)
		refuse("out of memory");
	return p;
}

static char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		refuse("out of memory");
	return p;
}

/* "~/x" under $HOME, "rel" under base; NULL when there is no $HOME. */
static char *
expand(const char *s, const char *home, const char *base)
{
	char buf[ES_PATH_MAX];
	int n;

	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		if (home == NULL)
			return NULL;
		n = snprintf(buf, sizeof(buf), "%s%s", home, s + 1);
	} else if (s[0] != '/')
		n = snprintf(buf, sizeof(buf), "%s/%s", base, s);
	else
		n = snprintf(buf, sizeof(buf), "%s", s);
	if (n < 0 || (size_t)n >= sizeof(buf))
		refuse("path too long: %.64s...", s);
	return xstrdup(buf);
}

/* execvp's search, done once here so init needs no lookup. */
static char *
resolve(const char *cmd)
{
	char buf[ES_PATH_MAX];
	const char *path, *p, *e;
	struct stat st;
	int n;

	if (strchr(cmd, '/') != NULL)
		return xstrdup(cmd);
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = e + 1) {
		e = strchrnul(p, ':');
		n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(e - p), p,
		    e == p ? "" : "/", cmd);
		if (n > 0 && (size_t)n < sizeof(buf) && stat(buf, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return xstrdup(buf);
		if (*e == '\0')
			break;
	}
	dprintf(STDERR_FILENO, "envshim-sandbox: %s: command not found\n", cmd);
	exit(127);
}

/*
 * $HOME, else the caller's /etc/passwd entry, read directly: the static
 * helper has no NSS modules to load.  A caller known only to another
 * source (LDAP, sssd) must say HOME, or the ~ paths could not be hidden.
 */
static const char *
home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;
	uid_t uid = getuid();
	FILE *f;

	if (h != NULL && h[0] == '/')
		return h;
	if ((f = fopen("/etc/passwd", "re")) != NULL) {
		while ((pw = fgetpwent(f)) != NULL)
			if (pw->pw_uid == uid && pw->pw_dir[0] == '/') {
				h = xstrdup(pw->pw_dir);
				break;
			}
		fclose(f);
	}
	if (h == NULL || h[0] != '/')
		refuse("HOME is not set and uid %lu has no home in /etc/passwd; "
		    "set HOME", (unsigned long)uid);
	return h;
}

/* Is a an ancestor of b (or b itself)?  Both canonical. */
static int
covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '/' || b[n] == '\0');
}

static char *
workspace(const char *home)
{
	const char *w = getenv("ENVSHIM_WORKSPACE");
	char *ws, *rh, cwd[ES_PATH_MAX];

	if (w == NULL || *w == '\0') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			refuse("cannot read the working directory: %s",
			    strerror(errno));
		w = cwd;
	}
	if ((ws = realpath(w, NULL)) == NULL)
		refuse("workspace %s: %s", w, strerror(errno));
	if (strcmp(ws, "/") == 0)
		refuse("the workspace is /; run from a project directory");
	if (home != NULL && (rh = realpath(home, NULL)) != NULL) {
		if (covers(ws, rh))
			refuse("the workspace %s is your home directory or "
			    "contains it; run from a project directory", ws);
		free(rh);
	}
	return ws;
}

static int
add_mnt(struct plan *pl, int kind, const char *path)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == kind &&
		    strcmp(pl->mnt[i].path, path) == 0)
			return 0;
	if (pl->nmnt == NMNT)
		refuse("too many sandbox paths (at most %d)", NMNT);
	pl->mnt[pl->nmnt].kind = kind;
	pl->mnt[pl->nmnt].path = path;
	pl->nmnt++;
	return 1;
}

/* A writable bind, if the path exists. */
static void
add_rw(struct plan *pl, const char *path)
{
	struct statvfs sv;
	char *rp;

	if (path == NULL || (rp = realpath(path, NULL)) == NULL)
		return;
	if (!add_mnt(pl, MK_RW, rp)) {
		free(rp);	/* listed already: its flags stay as they are */
		return;
	}
	if (statvfs(rp, &sv) == 0 && (sv.f_flag & ST_RDONLY))
		pl->mnt[pl->nmnt - 1].host_ro = 1;
}

/*
 * Files that must stay visible inside, read-only, also under /tmp, which
 * the private /tmp covers: the shim (the shells' children are filtered by
 * it, and records from inside reach the log) and the command itself.
 */
static void
keep_file(struct plan *pl, const char *path)
{
	char *rp;

	if (path == NULL || path[0] != '/' || (rp = realpath(path, NULL)) == NULL)
		return;
	/* elsewhere the read-only root shows it; the workspace is bound */
	if (!covers("/tmp", rp) || (pl->ws != NULL && covers(pl->ws, rp))) {
		free(rp);
		return;
	}
	if (!add_mnt(pl, MK_KEEP, rp))
		free(rp);
}

static void
keep_shim(struct plan *pl)
{
	const char *x = getenv("LD_PRELOAD");

	/* The shim forces exactly one absolute entry; anything else: not ours. */
	if (x != NULL && strpbrk(x, " :") == NULL)
		keep_file(pl, x);
	keep_file(pl, pl->path);
}

/*
 * An empty stand-in, if the path exists: tmpfs for a directory, else null.
 * With own, path was allocated for this call and is freed if not kept.
 */
static void
add_hide(struct plan *pl, char *path, int own)
{
	struct stat st;

	if (path != NULL && path[0] == '/' && stat(path, &st) == 0 &&
	    add_mnt(pl, S_ISDIR(st.st_mode) ? MK_HIDE_DIR : MK_HIDE_FILE, path))
		return;
	if (own)
		free(path);
}

static const char *const default_hide[] = {
	"~/.ssh", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube",
	"~/.docker", "~/.gnupg", "~/.netrc", "~/.npmrc", "~/.pypirc",
	"~/.git-credentials", "~/.config/gh",
	"/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock",
	"/var/run/podman/podman.sock"
};
static const char *const default_ro[] = { ".git/hooks", ".git/config" };

/* The audit log: created here if missing, so init can bind it writable. */
static char *
log_path(const struct es_policy *p, const char *home)
{
	char buf[ES_PATH_MAX];
	struct stat st;

	if (es_log_file(p, home, buf, sizeof(buf)) != 0)
		return NULL;
	/* one lstat when it exists: no mkdir for each directory above it */
	if ((lstat(buf, &st) == -1 || !S_ISREG(st.st_mode)) &&
	    es_log_create(buf) != 0)
		return NULL;
	return xstrdup(buf);
}

/* Every mount init will make, decided here where lookups are cheap. */
static void
plan_mounts(struct plan *pl, const struct es_policy *p, const char *home,
    const char *log)
{
	const char *x, *tmpdir;
	char buf[64];
	size_t i;

	add_rw(pl, pl->ws);
	for (i = 0; i < p->nrw; i++) {
		char *e = expand(p->rw[i].s, home, pl->ws);

		add_rw(pl, e);	/* keeps its own realpath */
		free(e);
	}
	if (log != NULL)
		add_rw(pl, log);
	keep_shim(pl);
	for (i = 0; i < sizeof(default_hide) / sizeof(default_hide[0]); i++)
		add_hide(pl, expand(default_hide[i], home, pl->ws), 1);
	for (i = 0; i < p->nhide; i++)
		add_hide(pl, expand(p->hide[i].s, home, pl->ws), 1);
	if ((x = getenv("XDG_RUNTIME_DIR")) != NULL)
		add_hide(pl, (char *)x, 0);
	snprintf(buf, sizeof(buf), "/run/user/%lu", (unsigned long)pl->uid);
	add_hide(pl, xstrdup(buf), 1);
	if ((x = getenv("SSH_AUTH_SOCK")) != NULL)
		add_hide(pl, (char *)x, 0);
	for (i = 0; i < sizeof(default_ro) / sizeof(default_ro[0]); i++)
	{
		if (add_mnt(pl, MK_RO, default_ro[i]))
			pl->mnt[pl->nmnt - 1].mkdir =
			    strcmp(default_ro[i], ".git/hooks") == 0;
	}
	for (i = 0; i < p->nro; i++) {
		x = p->ro[i].s;
		if (x[0] == '/' || x[0] == '~') {
			x = expand(x, home, pl->ws);
			if (!covers(pl->ws, x) || strcmp(x, pl->ws) == 0)
				refuse("ro path %s is not inside the workspace "
				    "%s", p->ro[i].s, pl->ws);
			x += strlen(pl->ws) + 1;
		}
		add_mnt(pl, MK_RO, x);
	}
	/* a $TMPDIR below /tmp must exist in the private /tmp too */
	tmpdir = getenv("TMPDIR");
	if (tmpdir != NULL && strncmp(tmpdir, "/tmp/", 5) == 0 &&
	    tmpdir[5] != '\0' && strchr(tmpdir + 5, '/') == NULL)
		pl->tmpsub = tmpdir + 5;
}

/* The environment as received, plus the namespace identity slot. */
static void
plan_env(struct plan *pl)
{
	size_t n, i, j;

	for (n = 0; environ[n] != NULL; n++)
		;
	pl->envp = xcalloc(n + 2, sizeof(char *));
	for (i = 0, j = 0; i < n; i++)
		if (strncmp(environ[i], "ENVSHIM_SANDBOX_NS=", 19) != 0)
			pl->envp[j++] = environ[i];
	pl->envp[j++] = pl->nsvar;
	pl->envp[j] = NULL;
}

#ifdef ES_SBX_STATIC
/* No preload enters a static program: its execve is libc's own. */
static es_execve_fn
libc_execve(void)
{
	return execve;
}
#else
static es_execve_fn
libc_execve(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	es_execve_fn f = NULL;

	/* libc's own symbol: the shim's execve would redirect us to ourselves */
	if (h != NULL)
		*(void **)&f = dlsym(h, "execve");
	if (f == NULL)
		refuse("cannot find libc's execve: %s", dlerror());
	return f;
}
#endif

static long
read_sysctl(const char *path)
{
	char buf[32];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
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

/* "sandbox optional" without a sandbox: said in the audit log, one write. */
static void
audit_unconfined(const struct es_policy *p, const char *log,
    const struct plan *pl, const char *reason)
{
	char line[ES_LOG_LINE];
	struct es_audit a;
	struct timespec now;
	long n;
	int fd;

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
	if ((n = es_audit_format(&a, line, sizeof(line))) <= 0)
		return;
	if (p->log == ES_LOG_STDERR)
		(void)!write(STDERR_FILENO, line, (size_t)n);
	else if (p->log == ES_LOG_SYSLOG)
		syslog(LOG_AUTHPRIV | LOG_WARNING, "envshim: %.*s", (int)n - 1,
		    line);
	else if (log != NULL && (fd = open(log, O_WRONLY | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600)) != -1) {
		(void)!write(fd, line, (size_t)n);
		close(fd);
	}
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
		exit(EXIT_SETUP);
	sig = WTERMSIG(st);
	setrlimit(RLIMIT_CORE, &none);	/* the command's core, not ours */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);
}

static int
wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			refuse("waitpid: %s", strerror(errno));
	return st;
}

/* Runs the command in a new session without namespaces (sandbox optional). */
static void __attribute__((noreturn))
unconfined(struct plan *pl)
{
	pid_t pid;
	size_t i;

	/* no namespace: the identity slot goes */
	for (i = 0; pl->envp[i] != pl->nsvar; i++)
		;
	for (; pl->envp[i] != NULL; i++)
		pl->envp[i] = pl->envp[i + 1];
	if ((pid = fork()) == -1)
		refuse("fork: %s", strerror(errno));
	if (pid == 0) {
		for (i = 0; i < NFWD; i++)
			sigaction(fwd_sigs[i], &orig_act[i], NULL);
		sigprocmask(SIG_SETMASK, &pl->mask, NULL);
		if (setsid() == -1 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
			_exit(EXIT_SETUP);
		pl->exec(pl->path, pl->argv, pl->envp);
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl->path,
		    strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	fwd_to = pid;
	fwd_group = 1;
	catch_signals();
	sigprocmask(SIG_SETMASK, &pl->mask, NULL);
	mirror(wait_for(pid));
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: envshim-sandbox [--policy FILE] [--argv0 NAME] "
	    "[--] COMMAND [ARGS...]\n");
	exit(EXIT_SETUP);
}

int
main(int argc, char *argv[])
{
	static struct plan pl;
	static struct es_policy pol;
	struct es_parse_err perr;
	const char *polfile = NULL, *argv0 = NULL, *cfg, *home;
	static char *log;	/* held, like the plan, until the process ends */
	char why[512], eb[128], cwd[ES_PATH_MAX];
	int msgp[2], alivep[2], flags, i, st = 0, got = 0, pe;
	ssize_t n;
	struct msg m, fmsg;
	pid_t ppid = getppid(), pid;
	sigset_t all;
	size_t k;

	if (getauxval(AT_SECURE) || geteuid() != getuid() ||
	    getegid() != getgid()) {
		dprintf(STDERR_FILENO, "envshim-sandbox: refusing to run "
		    "setuid or setgid\n");
		return EXIT_SETUP;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
			polfile = argv[++i];
		else if (strcmp(argv[i], "--argv0") == 0 && i + 1 < argc)
			argv0 = argv[++i];
		else if (argv[i][0] == '-')
			usage();
		else
			break;
	}
	if (i >= argc)
		usage();
	cmdname = argv[i];

	if (polfile != NULL)
		pe = es_policy_load_file(&pol, polfile, &perr);
	else if ((cfg = getenv("ENVSHIM_CONFIG")) != NULL)
		pe = es_policy_load_text(&pol, cfg, "ENVSHIM_CONFIG", &perr);
	else
		pe = es_policy_load_root(&pol, NULL, &perr);
	if (pe == -1)
		refuse("policy: %s", es_parse_err_str(&perr, why, sizeof(why)));

	pl.path = resolve(argv[i]);
	pl.argv = &argv[i];
	if (argv0 != NULL)
		pl.argv[0] = (char *)argv0;
	plan_env(&pl);
	pl.exec = libc_execve();
	for (k = 0; k < NFWD; k++)
		sigaction(fwd_sigs[k], NULL, &orig_act[k]);

	if (pol.sandbox == ES_SANDBOX_OFF) {
		pl.exec(pl.path, pl.argv, environ);
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl.path,
		    strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}

	home = home_dir();
	pl.ws = workspace(home);
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		refuse("cannot read the working directory: %s", strerror(errno));
	pl.cwd = cwd;
	pl.uid = getuid();
	pl.outer = getpid();
	pl.gid = getgid();
	pl.netns = !pol.network;
	log = log_path(&pol, home);
	plan_mounts(&pl, &pol, home, log);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		refuse("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
	    getppid() != ppid)
		refuse("the caller exited");
	if (pipe2(msgp, O_CLOEXEC) == -1 || pipe2(alivep, O_CLOEXEC) == -1)
		refuse("pipe: %s", strerror(errno));
	pl.msgfd = msgp[1];
	pl.alivefd = alivep[0];

	/* signals wait until someone is there to receive them */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &pl.mask);
	flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
	    CLONE_NEWUTS | (pl.netns ? CLONE_NEWNET : 0);
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
	    NULL);
	if (pid == 0) {
		close(msgp[0]);
		close(alivep[1]);
		init_main(&pl);
	}
	close(msgp[1]);
	close(alivep[0]);
	if (pid == -1) {
		userns_cause(errno, why, sizeof(why));
		if (pol.sandbox != ES_SANDBOX_OPTIONAL)
			refuse("%s", why);
		audit_unconfined(&pol, log, &pl, why);
		unconfined(&pl);
	}
	fwd_to = pid;
	catch_signals();
	sigprocmask(SIG_SETMASK, &pl.mask, NULL);

	/*
	 * init's report: a setup failure, the command's exec failure, a
	 * status.  The status comes when nothing else runs inside, so the
	 * outer ends then, without waiting for init: tearing down init's
	 * namespaces (an RCU grace period for the mounts) need not delay
	 * the caller.  A report cut short is init's death.
	 */
	memset(&fmsg, 0, sizeof(fmsg));
	while (!got && ((n = read(msgp[0], &m, sizeof(m))) ==
	    (ssize_t)sizeof(m) || (n == -1 && errno == EINTR))) {
		if (n == -1)
			continue;
		if (m.kind == M_FAIL && fmsg.kind == 0)
			fmsg = m;
		else if (m.kind == M_STATUS) {
			st = m.status;
			got = 1;
		}
	}
	if (fmsg.kind == M_FAIL && fmsg.step == S_EXEC) {
		dprintf(STDERR_FILENO, "envshim-sandbox: %s: %s\n", pl.path,
		    strerror(fmsg.err));
		return fmsg.err == ENOENT ? 127 : 126;
	}
	if (fmsg.kind == M_FAIL) {
		snprintf(why, sizeof(why), "sandbox setup failed: %s%s%s: %s",
		    step_name[fmsg.step], fmsg.item >= 0 ? " " : "",
		    fmsg.item >= 0 ? pl.mnt[fmsg.item].path : "",
		    errstr(fmsg.err, eb, sizeof(eb)));
		if (fmsg.err == EPERM && read_sysctl(SYS_APPARMOR) == 1) {
			k = strlen(why);
			snprintf(why + k, sizeof(why) - k, "; ");
			userns_cause(EPERM, why + k + 2, sizeof(why) - k - 2);
		}
		if (pol.sandbox != ES_SANDBOX_OPTIONAL || fmsg.step == S_PARENT)
			refuse("%s", why);
		audit_unconfined(&pol, log, &pl, why);
		unconfined(&pl);
	}
	if (!got)
		refuse("sandbox init ended without a status");
	mirror(st);
}
