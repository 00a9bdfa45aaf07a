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

int
es_session_base_make(char *buf, size_t len, char *why, size_t wlen,
    const char **fix)
{
	char path[ES_PATH_MAX], *c, sep;
	struct stat st;
	size_t n, top;

	*fix = "set XDG_RUNTIME_DIR to a 0700 directory of yours";
	if (es_session_base(path, sizeof(path), &top) != 0) {
		snprintf(why, wlen, "no directory for sessions: HOME is unset, "
		    "not absolute or too long");
		return -1;
	}
	/* what it hangs from (the home, the runtime or state directory) is
	 * never made: a missing home stays missing */
	path[top] = '\0';
	errno = 0;
	if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode)) {
		snprintf(why, wlen, "no directory for sessions: %s: %s", path,
		    errno != 0 ? strerror(errno) : "not a directory");
		*fix = "set HOME to your home directory, or XDG_RUNTIME_DIR "
		    "to a 0700 directory of yours";
		return -1;
	}
	path[top] = '/';
	/* below it, made one component at a time, each closed to others */
	for (c = path + top + 1; c != NULL; c = c[0] != '\0' ? c + 1 : NULL) {
		if ((c = strchr(c, '/')) == NULL)
			c = path + strlen(path);
		sep = *c;
		*c = '\0';
		if (mkdir(path, 0700) == -1 && errno != EEXIST) {
			snprintf(why, wlen, "cannot make %s: %s", path,
			    strerror(errno));
			*fix = "make it a 0700 directory of yours, or set "
			    "XDG_RUNTIME_DIR to one";
			return -1;
		}
		*c = sep;
	}
	if (realpath(path, buf) == NULL || strlen(buf) >= len) {
		snprintf(why, wlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (es_session_safe(buf, why, wlen) != 0) {
		n = strlen(why);
		snprintf(why + n, wlen - n, " (sessions go in %s)", path);
		*fix = "make the directory 0700 and yours, each one above it "
		    "writable by you or root alone and no link, or set "
		    "XDG_RUNTIME_DIR to a 0700 directory of yours";
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
es_session_start(char *dir, size_t len, char *why, size_t wlen)
{
	static const char *const sub[] = { "tmp", "var-tmp", "home" };
	char base[ES_PATH_MAX], path[ES_PATH_MAX];
	unsigned long long start;
	const char *fix;
	size_t i;
	int n;

	if (es_session_base_make(base, sizeof(base), why, wlen, &fix) != 0) {
		n = (int)strlen(why);
		snprintf(why + n, wlen - (size_t)n, "; fix: %s", fix);
		return -1;
	}
	reap_stale(base);
	if ((start = es_session_start_time(getpid())) == 0) {
		snprintf(why, wlen, "cannot read this process's start time "
		    "(is /proc mounted?)");
		return -1;
	}
	n = snprintf(dir, len, "%s/%ld.%llu.XXXXXX", base, (long)getpid(),
	    start);
	if (n < 0 || (size_t)n >= len || (size_t)n + 16 > sizeof(path)) {
		snprintf(why, wlen, "the session's path in %s is too long; "
		    "set XDG_RUNTIME_DIR to a shorter 0700 directory", base);
		return -1;
	}
	if (mkdtemp(dir) == NULL) {
		snprintf(why, wlen, "cannot make a session in %s: %s", base,
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		if (mkdir(path, 0700) == -1) {
			snprintf(why, wlen, "cannot make %s: %s", path,
			    strerror(errno));
			(void)es_session_remove(dir);
			return -1;
		}
	}
	note_workspace(dir);
	return 0;
}
