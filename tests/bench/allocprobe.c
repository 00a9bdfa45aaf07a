/*
 * allocprobe.c - proves (or disproves) that a launch allocates nothing.
 * Run with LD_PRELOAD="<shim> <mallocount.so>".  For each launch primitive
 * the process that calls it arms mallocount just before the call; every
 * allocation until the process image is replaced (or the spawn returns)
 * arrives as one line on a pipe the parent reads.
 *
 *	allocprobe MODE PROG [ARG ...]
 *
 * MODE: execve execv execvp execvpe fork-execve vfork-execve posix_spawn
 * posix_spawnp, or control (strdup before execve: must count at least 1,
 * which shows the probe can see an allocation).  Prints the count.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void	(*arm)(int);
static long	(*disarm)(void);

/* The child side of the exec modes: arm, launch, report failure. */
static void
child(const char *mode, int fd, char *argv[])
{
	arm(fd);
	if (strcmp(mode, "execv") == 0)
		execv(argv[0], argv);
	else if (strcmp(mode, "execvp") == 0)
		execvp(argv[0], argv);
	else if (strcmp(mode, "execvpe") == 0)
		execvpe(argv[0], argv, environ);
	else if (strcmp(mode, "control") == 0) {
		char	*volatile s = strdup(argv[0]);

		execve(s, argv, environ);
	} else
		execve(argv[0], argv, environ);
	_exit(127);
}

/* vfork in a function of its own, so nothing of main's lives across it. */
static pid_t
vfork_execve(int fd, char *argv[])
{
	pid_t	 pid;

	if ((pid = vfork()) == 0) {
		arm(fd);
		execve(argv[0], argv, environ);
		_exit(127);
	}
	return pid;
}

int
main(int argc, char *argv[])
{
	const char	*mode;
	char		 buf[4096];
	pid_t		 pid;
	ssize_t		 r;
	long		 lines = 0, armed = -1;
	int		 p[2], st, e;

	if (argc < 3) {
		fprintf(stderr, "usage: allocprobe MODE PROG [ARG ...]\n");
		return 2;
	}
	mode = argv[1];
	arm = (void (*)(int))dlsym(RTLD_DEFAULT, "mc_arm");
	disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "mc_disarm");
	if (arm == NULL || disarm == NULL) {
		fprintf(stderr, "allocprobe: mallocount.so is not preloaded\n");
		return 1;
	}
	if (pipe2(p, O_CLOEXEC) == -1) {
		perror("allocprobe: pipe2");
		return 1;
	}
	if (strncmp(mode, "posix_spawn", 11) == 0) {
		arm(p[1]);
		if (strcmp(mode, "posix_spawnp") == 0)
			e = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2,
			    environ);
		else
			e = posix_spawn(&pid, argv[2], NULL, NULL, argv + 2,
			    environ);
		armed = disarm();
		if (e != 0) {
			fprintf(stderr, "allocprobe: %s: %s\n", mode,
			    strerror(e));
			return 1;
		}
	} else if (strcmp(mode, "vfork-execve") == 0) {
		pid = vfork_execve(p[1], argv + 2);
		armed = disarm();
	} else if ((pid = fork()) == 0)
		child(mode, p[1], argv + 2);
	if (pid == -1) {
		perror("allocprobe: fork");
		return 1;
	}
	close(p[1]);
	while ((r = read(p[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			lines += buf[i] == '\n';
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "allocprobe: %s %s: launch failed\n", mode,
		    argv[2]);
		return 1;
	}
	if (armed > lines)
		lines = armed;
	printf("%ld\n", lines);
	return 0;
}
