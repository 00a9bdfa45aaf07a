/*
 * spawn - starts PROG through exactly one entry point, so a test can see
 * what that path hands the child.  Usage: spawn MODE PROG [ARGS...]
 * (spawn-chdir DIR PROG [ARGS...]: posix_spawn PROG relative to DIR)
 * The child's environment is this process's environ unless MODE says
 * otherwise.  Exit status: the child's, or 120 + reason on failure.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static int
wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 121;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void
failed(const char *what)
{
	fprintf(stderr, "spawn: %s: %s\n", what, strerror(errno));
	printf("errno=%d\n", errno);
	fflush(stdout);
	_exit(122);
}

/* Node/libuv and Rust: in the fork child, point environ at a new env. */
static char *hostile[] = {
	"LD_PRELOAD=/tmp/evil.so", "ENVSHIM_POLICY=/dev/null", "ENVSHIM_CONFIG=mode audit",
	"NODE_OPTIONS=--require /tmp/evil.js", "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	"HARMLESS=yes", NULL
};

int
main(int argc, char **argv)
{
	const char *mode;
	char *const *args;
	pid_t pid;
	int rc, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: spawn MODE PROG [ARGS...]\n");
		return 2;
	}
	mode = argv[1];
	args = argv + 2;
	if (strcmp(mode, "show") == 0) {
		/* What the (re-launched) agent itself holds, then go on. */
		printf("agent-sees-token=%s\n", getenv("GITHUB_TOKEN") ? "yes" : "no");
		printf("agent-sees-node-options=%s\n", getenv("NODE_OPTIONS") ? "yes" : "no");
		fflush(stdout);
		return main(argc - 1, argv + 1);
	}
	if (strcmp(mode, "execve") == 0)
		execve(args[0], args, environ);
	else if (strcmp(mode, "execv") == 0)
		execv(args[0], args);
	else if (strcmp(mode, "execvp") == 0)
		execvp(args[0], args);
	else if (strcmp(mode, "execvpe") == 0)
		execvpe(args[0], args, environ);
	else if (strcmp(mode, "execl") == 0)
		execl(args[0], args[0], args[1], (char *)NULL);
	else if (strcmp(mode, "execle") == 0) {
		/* The envp follows the NULL that ends the arguments. */
		if (args[1] == NULL)
			execle(args[0], args[0], (char *)NULL, environ);
		else
			execle(args[0], args[0], args[1], (char *)NULL, environ);
	}
	else if (strcmp(mode, "execlp") == 0)
		execlp(args[0], args[0], args[1], (char *)NULL);
	else if (strcmp(mode, "fexecve") == 0) {
		fd = open(args[0], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			failed("open");
		fexecve(fd, args, environ);
	} else if (strcmp(mode, "execveat") == 0) {
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		execveat(fd, args[0] + 1, args, environ, 0);
	} else if (strcmp(mode, "syscall") == 0)
		syscall(SYS_execve, args[0], args, environ);
	else if (strcmp(mode, "posix_spawn") == 0 || strcmp(mode, "posix_spawnp") == 0) {
		rc = mode[11] == 'p' ?
		    posix_spawnp(&pid, args[0], NULL, NULL, args, environ) :
		    posix_spawn(&pid, args[0], NULL, NULL, args, environ);
		if (rc != 0) {
			errno = rc;
			failed(mode);
		}
		return wait_for(pid);
	} else if (strcmp(mode, "spawn-chdir") == 0) {
		/* Rust's Command::current_dir: the child changes directory first. */
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addchdir_np(&fa, args[0]);
		rc = posix_spawn(&pid, args[1], &fa, NULL, args + 1, environ);
		if (rc != 0) {
			errno = rc;
			failed(mode);
		}
		return wait_for(pid);
	} else if (strcmp(mode, "system") == 0) {
		rc = system(args[0]);
		if (rc == -1)
			failed("system");
		return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
	} else if (strcmp(mode, "popen") == 0) {
		char buf[4096];
		size_t n;
		FILE *f = popen(args[0], "r");

		if (f == NULL)
			failed("popen");
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		rc = pclose(f);
		return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
	} else if (strcmp(mode, "vfork") == 0) {
		/* Bun, CPython and dash: vfork, then execve in the child. */
		pid = vfork();
		if (pid == 0) {
			execve(args[0], args, environ);
			_exit(127);
		}
		return wait_for(pid);
	} else if (strcmp(mode, "fork-environ") == 0) {
		pid = fork();
		if (pid == 0) {
			environ = hostile;
			execvp(args[0], args);
			_exit(127);
		}
		return wait_for(pid);
	} else if (strcmp(mode, "explicit") == 0) {
		/* An explicit envp without LD_PRELOAD, as env -i builds it. */
		execve(args[0], args, hostile + 3);
	} else if (strcmp(mode, "setenv") == 0) {
		setenv("LD_PRELOAD", "/tmp/evil.so", 1);
		setenv("ENVSHIM_POLICY", "/dev/null", 1);
		setenv("ENVSHIM_MODE", "audit", 1);
		execvp(args[0], args);
	} else if (strcmp(mode, "self") == 0) {
		/* The agent re-launching itself, which then runs PROG. */
		char *again[64] = { "/proc/self/exe", "show", "execvp" };
		int i;

		for (i = 0; args[i] != NULL && i < 60; i++)
			again[i + 3] = args[i];
		execv("/proc/self/exe", again);
	} else {
		fprintf(stderr, "spawn: unknown mode %s\n", mode);
		return 2;
	}
	failed(mode);
	return 122;
}
