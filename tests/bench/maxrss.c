/*
 * maxrss.c - run a program once and print its peak resident set size in
 * KiB (ru_maxrss from wait4), because /usr/bin/time is not always there.
 *
 *	maxrss PROG [ARG ...]
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <spawn.h>
#include <stdio.h>
#include <string.h>

extern char **environ;

int
main(int argc, char *argv[])
{
	struct rusage	 ru;
	pid_t		 pid;
	int		 e, st;

	if (argc < 2) {
		fprintf(stderr, "usage: maxrss PROG [ARG ...]\n");
		return 2;
	}
	if ((e = posix_spawnp(&pid, argv[1], NULL, NULL, argv + 1,
	    environ)) != 0) {
		fprintf(stderr, "maxrss: %s: %s\n", argv[1], strerror(e));
		return 1;
	}
	if (wait4(pid, &st, 0, &ru) == -1) {
		perror("maxrss: wait4");
		return 1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "maxrss: %s: status 0x%x\n", argv[1], st);
		return 1;
	}
	printf("%ld\n", ru.ru_maxrss);
	return 0;
}
