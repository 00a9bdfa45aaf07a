/*
 * storm - a threaded process that churns malloc, stdio and setenv while
 * other threads start printenv AWS_SECRET_ACCESS_KEY TOTAL times by MODE
 * (fork, vfork, spawn).  A shim that takes a lock or allocates between
 * fork and exec hangs here.  Exit 0 when every child exited 1: printenv
 * did not find the secret, so the child saw a filtered environment.
 */
#include <sys/wait.h>

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHURNERS	8
#define SPAWNERS	8

static const char *mode;
static long total;
static long started;
static volatile int done;
static int failures;

static char *child_env[] = {
	"PATH=/usr/bin:/bin", "HOME=/nonexistent",
	"AWS_SECRET_ACCESS_KEY=abcdefghijklmnopqrstuvwxyz0123456789ABCD", NULL
};

static void *
churn(void *arg)
{
	FILE *f = fopen("/dev/null", "w");
	char name[32];
	long i;

	snprintf(name, sizeof(name), "STORM_%ld", (long)(size_t)arg);
	for (i = 0; !done; i++) {
		void *p = malloc((size_t)(i % 4096) + 1);

		fprintf(f, "%ld %p\n", i, p);
		free(p);
		setenv(name, (i & 1) ? "a" : "bb", 1);
		if (i % 64 == 0)
			unsetenv(name);
	}
	fclose(f);
	return NULL;
}

static void *
spawner(void *arg)
{
	char *argv[] = { "/usr/bin/printenv", "AWS_SECRET_ACCESS_KEY", NULL };
	pid_t pid;
	int status;

	(void)arg;
	while (__atomic_fetch_add(&started, 1, __ATOMIC_RELAXED) < total) {
		if (strcmp(mode, "spawn") == 0) {
			if (posix_spawn(&pid, argv[0], NULL, NULL, argv, child_env) != 0)
				pid = -1;
		} else if (strcmp(mode, "vfork") == 0) {
			pid = vfork();
			if (pid == 0) {
				execve(argv[0], argv, child_env);
				_exit(126);
			}
		} else {
			pid = fork();
			if (pid == 0) {
				execve(argv[0], argv, child_env);
				_exit(126);
			}
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 1)
			__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t c[CHURNERS], s[SPAWNERS];
	long i;

	if (argc != 3) {
		fprintf(stderr, "usage: storm fork|vfork|spawn TOTAL\n");
		return 2;
	}
	mode = argv[1];
	total = atol(argv[2]);
	for (i = 0; i < CHURNERS; i++)
		pthread_create(&c[i], NULL, churn, (void *)(size_t)i);
	for (i = 0; i < SPAWNERS; i++)
		pthread_create(&s[i], NULL, spawner, NULL);
	for (i = 0; i < SPAWNERS; i++)
		pthread_join(s[i], NULL);
	done = 1;
	for (i = 0; i < CHURNERS; i++)
		pthread_join(c[i], NULL);
	printf("%ld launches, %d failures\n", total, failures);
	return failures != 0;
}
