/*
 * mcp_agent - a plain test agent that starts a stdio MCP server the way
 * Claude Code and Gemini CLI do: posix_spawnp with pipes and an
 * environment it built (its own plus the -e entries of the server's
 * config), sends `initialize` and prints the answer.  Then it runs each
 * -s command with `sh -c`, with the same environment, as a shell tool.
 * Each -b command runs so before the server starts (the model planting
 * what a project's MCP configuration then names).  In SERVER and ARGS a
 * leading @TMPDIR@ stands for the agent's TMPDIR, @SESSION@ for the
 * directory above it (the session's, under envshim).
 *
 * Usage: mcp_agent [-e NAME=VALUE]... [-b COMMAND]... [-s COMMAND]... --
 *	SERVER [ARGS...]
 * Output: "server: <the JSON answer>", then what each command prints.
 */
#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#define MAXV	64

/* One shell command as the agent's shell tool runs it: sh -c, env given. */
static int
shell(char *cmd, char **env)
{
	char *sh[] = { "sh", "-c", cmd, NULL };
	pid_t pid;
	int rc;

	rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, sh, env);
	if (rc != 0) {
		printf("shell-refused: %s\n", strerror(rc));
		return -1;
	}
	fflush(stdout);
	return pid;
}

/* arg, with a leading @TMPDIR@ or @SESSION@ replaced; a static copy. */
static char *
expand(char *arg)
{
	static char buf[MAXV][4096];
	static int used;
	const char *t = getenv("TMPDIR"), *slash;
	size_t tl;

	if (t == NULL || used == MAXV)
		return arg;
	if (strncmp(arg, "@TMPDIR@", 8) == 0)
		tl = strlen(t);
	else if (strncmp(arg, "@SESSION@", 9) == 0 &&
	    (slash = strrchr(t, '/')) != NULL)
		tl = (size_t)(slash - t);
	else
		return arg;
	snprintf(buf[used], sizeof(buf[used]), "%.*s%s", (int)tl, t,
	    strchr(arg + 1, '@') + 1);
	return buf[used++];
}

static int
wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 121;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* environ, with each -e entry replacing any of its name. */
static char **
build_env(char **add, int nadd)
{
	static char *env[1024];
	int n = 0, i, k;

	for (i = 0; environ[i] != NULL && n < 1000; i++) {
		for (k = 0; k < nadd; k++) {
			size_t l = strcspn(add[k], "=") + 1;

			if (strncmp(environ[i], add[k], l) == 0)
				break;
		}
		if (k == nadd)
			env[n++] = environ[i];
	}
	for (k = 0; k < nadd && n < 1020; k++)
		env[n++] = add[k];
	env[n] = NULL;
	return env;
}

int
main(int argc, char **argv)
{
	static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_agent\","
	    "\"version\":\"1\"}}}\n";
	char *add[MAXV], *cmds[MAXV], *before[MAXV], **env, line[65536];
	int nadd = 0, ncmd = 0, nbefore = 0, in[2], out[2], i, rc;
	posix_spawn_file_actions_t fa;
	FILE *f;
	pid_t pid;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-e") == 0 && i + 1 < argc && nadd < MAXV)
			add[nadd++] = argv[++i];
		else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc && ncmd < MAXV)
			cmds[ncmd++] = argv[++i];
		else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc &&
		    nbefore < MAXV)
			before[nbefore++] = argv[++i];
		else {
			fprintf(stderr, "usage: mcp_agent [-e NAME=VALUE]... "
			    "[-b COMMAND]... [-s COMMAND]... -- SERVER [ARGS...]\n");
			return 2;
		}
	}
	if (i + 1 >= argc)
		return 2;
	argv += i + 1;
	for (i = 0; argv[i] != NULL; i++)
		argv[i] = expand(argv[i]);
	env = build_env(add, nadd);
	for (i = 0; i < nbefore; i++)
		if ((pid = shell(before[i], env)) > 0 &&
		    (rc = wait_for(pid)) != 0)
			printf("before-exit: %d\n", rc);
	if (pipe(in) != 0 || pipe(out) != 0)
		return 120;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	if (rc != 0) {
		fprintf(stderr, "mcp_agent: %s: %s\n", argv[0], strerror(rc));
		return 122;
	}
	close(in[0]);
	close(out[1]);
	if (write(in[1], init, sizeof(init) - 1) != (ssize_t)(sizeof(init) - 1))
		return 123;
	f = fdopen(out[0], "r");
	if (f == NULL || fgets(line, sizeof(line), f) == NULL) {
		fprintf(stderr, "mcp_agent: the server did not answer\n");
		return 124;
	}
	printf("server: %s", line);
	fflush(stdout);
	close(in[1]);
	fclose(f);
	if ((rc = wait_for(pid)) != 0)
		printf("server-exit: %d\n", rc);
	for (i = 0; i < ncmd; i++) {
		if ((pid = shell(cmds[i], env)) <= 0)
			continue;
		if ((rc = wait_for(pid)) != 0)
			printf("shell-exit: %d\n", rc);
		fflush(stdout);
	}
	return 0;
}
