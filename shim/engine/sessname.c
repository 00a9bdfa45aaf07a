/*
 * sessname.c - what a session directory's name says (es_session.h): the
 * launch root whose end ends it, "PID.START.XXXXXX", and whether that
 * process still runs.  The launch root (shim/preload/session.c) makes
 * and removes sessions; the sandbox helper's keeper watches the same
 * process.  Reads /proc/PID/stat only; not for the exec path.
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "es_session.h"

int
es_session_base(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%lu", ES_SESSION_BASE,
	    (unsigned long)getuid());

	return n < 0 || (size_t)n >= len ? -1 : 0;
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
