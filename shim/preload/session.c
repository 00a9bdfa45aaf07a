/*
 * session.c - the agent run's session directory (es_session.h): made by
 * the launch root before the agent's main, shared by every sandboxed
 * command of the run, removed when the agent ends, or by the next start
 * when it died without ending (SIGKILL).
 *
 * Not for the exec path: it uses opendir and stdio-free libc freely.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_limits.h"
#include "es_session.h"

/*
 * name below dfd, a directory and no link, made readable first: overlay
 * makes its work directory with mode 0, and a command may chmod its own.
 */
static int
open_dir(int dfd, const char *name)
{
	char proc[32];
	int p, fd;

	if ((p = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p);
	(void)chmod(proc, 0700);
	fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(p);
	return fd;
}

/*
 * Removes what dfd (a directory, which it closes) holds.  Directories
 * are opened with O_NOFOLLOW below their parent's fd, so a symlink a
 * command planted is removed, never followed; a directory it made
 * read-only is made writable first.
 */
static int
empty_dir(int dfd)
{
	struct dirent *e;
	DIR *d;
	int fd, rc = 0;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dfd, e->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		if ((fd = open_dir(dfd, e->d_name)) == -1) {
			rc = -1;
			continue;
		}
		if (empty_dir(fd) != 0 ||
		    unlinkat(dfd, e->d_name, AT_REMOVEDIR) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int
es_session_remove(const char *dir)
{
	int fd;

	if ((fd = open_dir(AT_FDCWD, dir)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (empty_dir(fd) != 0)
		return -1;
	return rmdir(dir);
}

/* The base exists, is ours, a directory (not a link) and closed to others. */
static int
check_base(const char *base, const char **why)
{
	struct stat st;

	if (mkdir(base, 0700) == -1 && errno != EEXIST) {
		*why = "cannot make the session base directory";
		return -1;
	}
	if (lstat(base, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		*why = "the session base directory is not a 0700 directory "
		    "of this user";
		return -1;
	}
	return 0;
}

/* Sessions whose agent is gone: killed, or ended without its destructor. */
static void
reap_stale(const char *base)
{
	char path[ES_PATH_MAX];
	struct dirent *e;
	DIR *d;

	if ((d = opendir(base)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || es_session_alive(e->d_name))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", base,
		    e->d_name) < sizeof(path))
			(void)es_session_remove(path);
	}
	closedir(d);
}

/* The workspace the run started in, for `envshim session`: best effort. */
static void
note_workspace(const char *dir)
{
	char path[ES_PATH_MAX], cwd[ES_PATH_MAX], ws[ES_PATH_MAX];
	int fd;

	if (getcwd(cwd, sizeof(cwd)) == NULL || realpath(cwd, ws) == NULL)
		return;
	snprintf(path, sizeof(path), "%s/workspace", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return;
	(void)!write(fd, ws, strlen(ws));
	close(fd);
}

int
es_session_start(char *dir, size_t len, const char **why)
{
	static const char *const sub[] = { "tmp", "var-tmp", "home" };
	char base[64], path[ES_PATH_MAX];
	unsigned long long start;
	size_t i;
	int n;

	*why = "session directory name too long";
	if (es_session_base(base, sizeof(base)) != 0)
		return -1;
	if (check_base(base, why) != 0)
		return -1;
	reap_stale(base);
	if ((start = es_session_start_time(getpid())) == 0) {
		*why = "cannot read this process's start time";
		return -1;
	}
	n = snprintf(dir, len, "%s/%ld.%llu.XXXXXX", base, (long)getpid(),
	    start);
	if (n < 0 || (size_t)n >= len || (size_t)n + 16 > sizeof(path))
		return -1;
	if (mkdtemp(dir) == NULL) {
		*why = "cannot make the session directory";
		return -1;
	}
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		if (mkdir(path, 0700) == -1) {
			(void)es_session_remove(dir);
			*why = "cannot make the session's directories";
			return -1;
		}
	}
	note_workspace(dir);
	return 0;
}
