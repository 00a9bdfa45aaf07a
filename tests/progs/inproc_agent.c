/*
 * inproc_agent - an agent whose shell tool interprets each command itself,
 * as crush's Go shell interpreter does: every argument is one command
 * line, split at blanks; `cd DIR` and `echo WORDS` run in-process, and
 * anything else is posix_spawnp'ed directly.  No shell is ever executed,
 * so only `sandbox all` confines what it runs.
 * Exit status: the last command's (127 when it could not be started).
 */
#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WORDS	64

extern char **environ;

int
main(int argc, char **argv)
{
	char *av[WORDS + 1], *save, *w;
	int i, n, rc = 0, st;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		n = 0;
		for (w = strtok_r(argv[i], " \t", &save); w != NULL && n < WORDS;
		    w = strtok_r(NULL, " \t", &save))
			av[n++] = w;
		av[n] = NULL;
		if (n == 0)
			continue;
		fflush(stdout);
		if (strcmp(av[0], "cd") == 0) {
			rc = n > 1 && chdir(av[1]) == 0 ? 0 : 1;
			continue;
		}
		if (strcmp(av[0], "echo") == 0) {
			for (n = 1; av[n] != NULL; n++)
				printf("%s%s", n > 1 ? " " : "", av[n]);
			printf("\n");
			rc = 0;
			continue;
		}
		if ((errno = posix_spawnp(&pid, av[0], NULL, NULL, av, environ)) != 0) {
			fprintf(stderr, "inproc_agent: %s: %s\n", av[0], strerror(errno));
			rc = 127;
			continue;
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return 121;
		rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return rc;
}
