/*
 * sessname.c - what a session directory's name says (es_session.h): the
 * launch root whose end ends it, "PID.START.XXXXXX", and whether that
 * process still runs.  The launch root (shim/preload/session.c) makes
 * and removes sessions; the sandbox helper's keeper watches the same
 * process.  Where the sessions go, and whether no other user could have
 * made that place.  Reads /proc/PID/stat, /proc/self/uid_map and the
 * directories on the way to a base (lstat); not for the exec path.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_limits.h"
#include "es_load.h"
#include "es_session.h"

/*
 * Where this user's sessions go: below the runtime directory when it is
 * the user's own (logind's /run/user/UID: a 0700 directory of this uid,
 * not a link), else below the state directory, in the home.  Neither
 * path names a uid: a base named after getuid() in a shared /tmp could
 * be made first by any other user, and a process in a user namespace
 * (where getuid() may be 0) would make another uid's base there.
 */
int
es_session_base(char *buf, size_t len, size_t *top)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	const char *st = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char why[8];
	int n;

	if (rt != NULL && rt[0] == '/' && es_session_safe(rt, why,
	    sizeof(why)) == 0) {
		*top = strlen(rt);
		n = snprintf(buf, len, "%s/envshim", rt);
	} else if (st != NULL && st[0] == '/' && strcmp(st, "/") != 0) {
		/* the state directory itself may be made, as XDG says */
		*top = (size_t)(strrchr(st, '/') - st);
		if (*top == 0)
			*top = 1;
		n = snprintf(buf, len, "%s/envshim/sessions", st);
	} else if (home != NULL && home[0] == '/' && strcmp(home, "/") != 0) {
		*top = strlen(home);
		n = snprintf(buf, len, "%s/.local/state/envshim/sessions", home);
	} else
		return -1;
	/* a trailing slash of the variable: what it hangs from ends there */
	while (*top > 1 && buf[*top - 1] == '/')
		(*top)--;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* One directory on the way to a base: see es_session_safe. */
static int
safe_dir(const char *p, uid_t other, struct stat *st, char *why, size_t len)
{
	if (lstat(p, st) == -1)
		snprintf(why, len, "%s: %s", p, strerror(errno));
	else if (S_ISLNK(st->st_mode))
		snprintf(why, len, "%s is a symbolic link", p);
	else if (!S_ISDIR(st->st_mode))
		snprintf(why, len, "%s is not a directory", p);
	else if (st->st_uid != getuid() && st->st_uid != 0 &&
	    st->st_uid != other)
		snprintf(why, len, "%s belongs to uid %lu, not to this user "
		    "(uid %lu)", p, (unsigned long)st->st_uid,
		    (unsigned long)getuid());
	else if ((st->st_mode & 022) != 0 && !(st->st_mode & S_ISVTX))
		snprintf(why, len, "%s is writable by other users", p);
	else
		return 0;
	return -1;
}

int
es_session_safe(const char *path, char *why, size_t len)
{
	char p[ES_PATH_MAX];
	struct stat st;
	size_t n = strlen(path), i;
	uid_t other = es_unmapped_uid();

	if (path[0] != '/' || n >= sizeof(p) || strstr(path, "//") != NULL ||
	    strstr(path, "/./") != NULL || strstr(path, "/../") != NULL ||
	    (n > 1 && path[n - 1] == '/') ||
	    (n >= 3 && strcmp(path + n - 3, "/..") == 0) ||
	    (n >= 2 && strcmp(path + n - 2, "/.") == 0)) {
		snprintf(why, len, "%s is not a plain absolute path", path);
		return -1;
	}
	/* every directory from / down, the path itself last */
	if (safe_dir("/", other, &st, why, len) != 0)
		return -1;
	for (i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(p, path, i);
		p[i] = '\0';
		if (safe_dir(p, other, &st, why, len) != 0)
			return -1;
	}
	if (st.st_uid != getuid() || (st.st_mode & 077) != 0) {
		snprintf(why, len, "%s is not a 0700 directory of this user "
		    "(uid %lu)", path, (unsigned long)getuid());
		return -1;
	}
	return 0;
}

/*
 * A process's start time (field 22 of /proc/PID/stat), which tells a
 * process from a later one that got its pid; 0 when it is gone.
 */
unsigned long long
es_session_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and ')': count from the last one */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (field = 2; *p != '\0' && field < 22; p++)
		if (*p == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (unsigned long long)(*p++ - '0');
	return v;
}

/* "PID.START.XXXXXX": the two numbers, or -1 when the name is not ours. */
static int
parse_name(const char *name, pid_t *pid, unsigned long long *start)
{
	unsigned long long v[2] = { 0, 0 };
	const char *p = name;
	int k;

	for (k = 0; k < 2; k++) {
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			v[k] = v[k] * 10 + (unsigned long long)(*p++ - '0');
		if (*p++ != '.')
			return -1;
	}
	if (strlen(p) != 6 || v[0] == 0 || v[0] > 0x7fffffff)
		return -1;
	*pid = (pid_t)v[0];
	*start = v[1];
	return 0;
}

pid_t
es_session_pid(const char *dir)
{
	const char *b = strrchr(dir, '/');
	unsigned long long start;
	pid_t pid;

	return parse_name(b != NULL ? b + 1 : dir, &pid, &start) == 0 ? pid : -1;
}

int
es_session_alive(const char *name)
{
	unsigned long long start;
	pid_t pid;

	if (parse_name(name, &pid, &start) != 0)
		return 1;	/* not a session: never removed as stale */
	return es_session_start_time(pid) == start;
}

int
es_session_dir_ok(const char *dir)
{
	const char *b = strrchr(dir, '/');
	char base[ES_PATH_MAX], why[8];
	unsigned long long start;
	struct stat st;
	pid_t pid;

	if (b == NULL || b == dir || (size_t)(b - dir) >= sizeof(base) ||
	    parse_name(b + 1, &pid, &start) != 0)
		return 0;
	memcpy(base, dir, (size_t)(b - dir));
	base[b - dir] = '\0';
	return es_session_safe(base, why, sizeof(why)) == 0 &&
	    lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 077) == 0;
}
