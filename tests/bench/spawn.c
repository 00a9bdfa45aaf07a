/*
 * spawn.c - start a program N times and print the mean wall time of one
 * start in nanoseconds.  The process-start benchmark runs this driver with
 * and without a preload library; the driver itself is the "agent", so a
 * shim's hooks in the parent and its constructor in every child both count.
 *
 *	spawn [-c CPU] [-l LIB] posix_spawn|fork|vfork N PROG [ARG ...]
 *
 * Exits 1 (with a message) if any start fails or any child exits non-zero:
 * a shim that refuses a launch must never look fast.  -c pins the driver
 * (and so its children) to one CPU, which makes rounds less noisy on a
 * small machine.  -l LIB preloads LIB in the children only, so a
 * shim's cost can be split into its parent side and its child side.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char **child_env;

enum mode { M_SPAWN, M_FORK, M_VFORK };

/* environ plus "LD_PRELOAD=lib" in front, built once before timing. */
static char **
with_preload(const char *lib)
{
	static char	 entry[4096];
	char		**e;
	size_t		 n = 0;

	while (environ[n] != NULL)
		n++;
	if ((e = calloc(n + 2, sizeof(*e))) == NULL ||
	    (size_t)snprintf(entry, sizeof(entry), "LD_PRELOAD=%s", lib) >=
	    sizeof(entry))
		return NULL;
	e[0] = entry;
	memcpy(e + 1, environ, n * sizeof(*e));
	return e;
}

/* One start by the chosen primitive; returns the child's pid or -1. */
static pid_t
start(enum mode m, char *const argv[])
{
	pid_t	 pid;
	int	 e;

	switch (m) {
	case M_SPAWN:
		e = posix_spawn(&pid, argv[0], NULL, NULL, argv, child_env);
		if (e != 0) {
			errno = e;
			return -1;
		}
		return pid;
	case M_FORK:
		pid = fork();
		if (pid == 0) {
			execve(argv[0], argv, child_env);
			_exit(127);
		}
		return pid;
	case M_VFORK:
		pid = vfork();
		if (pid == 0) {
			execve(argv[0], argv, child_env);
			_exit(127);
		}
		return pid;
	}
	return -1;
}

static double
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	enum mode	 m;
	double		 t0, t1;
	long		 i, n;
	pid_t		 pid;
	int		 st;

	if (argc > 2 && strcmp(argv[1], "-c") == 0) {
		cpu_set_t	 set;

		CPU_ZERO(&set);
		CPU_SET((int)strtol(argv[2], NULL, 10), &set);
		if (sched_setaffinity(0, sizeof(set), &set) == -1) {
			perror("spawn: sched_setaffinity");
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	child_env = environ;
	if (argc > 2 && strcmp(argv[1], "-l") == 0) {
		if ((child_env = with_preload(argv[2])) == NULL) {
			fprintf(stderr, "spawn: -l %s: too long\n", argv[2]);
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: spawn [-c CPU] [-l LIB] posix_spawn|fork|vfork "
		    "N PROG [ARG ...]\n");
		return 2;
	}
	if (strcmp(argv[1], "posix_spawn") == 0)
		m = M_SPAWN;
	else if (strcmp(argv[1], "fork") == 0)
		m = M_FORK;
	else if (strcmp(argv[1], "vfork") == 0)
		m = M_VFORK;
	else {
		fprintf(stderr, "spawn: unknown mode %s\n", argv[1]);
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	if (n <= 0) {
		fprintf(stderr, "spawn: bad count %s\n", argv[2]);
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if ((pid = start(m, argv + 3)) == -1) {
			fprintf(stderr, "spawn: %s %s: %s\n", argv[1], argv[3],
			    strerror(errno));
			return 1;
		}
		if (waitpid(pid, &st, 0) == -1) {
			perror("spawn: waitpid");
			return 1;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "spawn: %s %s: child status 0x%x\n",
			    argv[1], argv[3], st);
			return 1;
		}
	}
	t1 = now_ns();
	printf("%.0f\n", (t1 - t0) / (double)n);
	return 0;
}
