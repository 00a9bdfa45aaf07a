/*
 * A statically linked "agent" like Codex or a Go program: the shim can
 * never load into it, and it starts its tools with the raw execve
 * system call (glibc's syscall() in a static binary reaches the kernel
 * directly).
 *
 *   static_agent env                   print its own environment
 *   static_agent run PROG ARGS...      fork, raw execve with its environ
 *   static_agent strip PROG ARGS...    the same without any LD_* (Codex)
 *   static_agent bare PROG ARGS...     the same with only BASH_ENV and
 *                                      PATH: no ENVSHIM_* at all
 *   static_agent escape                try to unmount /etc, then again
 *                                      from a user namespace of its own;
 *                                      print the results and ld.so.preload
 * run, strip and bare exit with the tool's status.
 */
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int
main(int argc, char **argv)
{
	char *bare[] = { "BASH_ENV=/tmp/evil.sh", "PATH=/usr/bin:/bin", NULL };
	char *env[1024];
	size_t i, k = 0;
	pid_t pid;
	int st;

	if (argc == 2 && strcmp(argv[1], "env") == 0) {
		for (i = 0; environ[i] != NULL; i++)
			puts(environ[i]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "escape") == 0) {
		FILE *f;
		char line[4096];

		printf("umount: %s\n", umount2("/etc", MNT_DETACH) == 0 ?
		    "ok" : strerror(errno));
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			printf("unshare: %s\n", strerror(errno));
		else
			printf("nested umount: %s\n", umount2("/etc",
			    MNT_DETACH) == 0 ? "ok" : strerror(errno));
		if ((f = fopen("/etc/ld.so.preload", "r")) != NULL &&
		    fgets(line, sizeof(line), f) != NULL)
			printf("preload: %s", line);
		return 0;
	}
	if (argc < 3)
		return 2;
	for (i = 0; environ[i] != NULL && k < 1023; i++)
		if (strcmp(argv[1], "strip") != 0 ||
		    strncmp(environ[i], "LD_", 3) != 0)
			env[k++] = environ[i];
	env[k] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		syscall(SYS_execve, argv[2], argv + 2,
		    strcmp(argv[1], "bare") == 0 ? bare : env);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
