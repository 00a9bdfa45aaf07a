/*
 * envshim.c - the envshim command: dispatch, and the run mode that starts
 * an agent with the shim preloaded.
 *
 * The run mode MUST validate every policy layer before it starts anything:
 * a policy the shim would refuse must stop the launch here, with the file
 * and line, instead of leaving an agent whose every command is refused.
 * It MUST remove the inherited ENVSHIM_* launch state, so the agent is the
 * launch root and not a child of some earlier envshim.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_load.h"
#include "es_root.h"
#include "cmd.h"

#ifndef ES_VERSION
#define ES_VERSION	"unknown"
#endif
#ifndef ES_LIBDIR
#define ES_LIBDIR	"/usr/local/lib/envshim"
#endif
#ifndef ES_LIBEXECDIR
#define ES_LIBEXECDIR	"/usr/local/libexec/envshim"
#endif

static const char usage_text[] =
"usage: envshim [--policy FILE] [--audit] [--] COMMAND [ARGS...]\n"
"       envshim --contain [--policy FILE] [--audit] [--] COMMAND [ARGS...]\n"
"       envshim check [--policy FILE] [--format=table|tsv|json]\n"
"                     [--program CMD [ARG...]] [-- NAME=VALUE ...]\n"
"       envshim policy [--policy FILE] [--builtin]\n"
"       envshim log [FILE | -] [--policy FILE] [--json] [--since TIME]\n"
"                   [--session NAME]\n"
"       envshim doctor [--policy FILE]\n"
"       envshim session [--all] [--discard]\n"
"       envshim --help | --version\n"
"\n"
"Runs COMMAND (an AI agent) with libenvshim.so preloaded: every program it\n"
"starts gets an environment filtered by the policy, and shells run in a\n"
"sandbox.\n"
"\n"
"  --policy FILE  read FILE after the builtin, /etc and ~/.config layers\n"
"  --audit        decide and log everything, change nothing\n"
"  --contain      for agents the shim cannot enter (static, Go, LD_* strippers):\n"
"                 a namespace whose /etc/ld.so.preload loads the shim\n"
"  check          show what the policy does to each variable (never values)\n"
"  policy         print the effective policy, each line with its origin\n"
"  log            the audit log as a process tree, with a summary\n"
"  doctor         check that this system can run envshim, and say how to fix it\n"
"  session        this workspace's agent runs and what their shells wrote\n"
"                 outside it; --discard removes those whose agent ended\n"
"\n"
"To run a program named like a subcommand, write: envshim -- check\n"
"\n"
"Exit status: 125 envshim failed, 126 COMMAND cannot be executed,\n"
"127 COMMAND not found, otherwise the status of COMMAND.\n";

static const char *const inherited[] = {
	"ENVSHIM_LAUNCH", "ENVSHIM_CONFIG", "ENVSHIM_AGENT",
	"ENVSHIM_AGENT_TREE", "ENVSHIM_WORKSPACE", "ENVSHIM_SANDBOX_NS",
	"ENVSHIM_PROGRAM", "ENVSHIM_SESSION"
};

/* The shim next to this binary (the build tree), else the installed one. */
static int
find_shim(char *buf, size_t len)
{
	char	 self[PATH_MAX];
	ssize_t	 n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((size_t)snprintf(buf, len, "%s/libenvshim.so",
		    dirname(self)) < len && access(buf, R_OK) == 0)
			return 0;
	}
	if ((size_t)snprintf(buf, len, "%s/libenvshim.so", ES_LIBDIR) < len &&
	    access(buf, R_OK) == 0)
		return 0;
	fprintf(stderr, "envshim: cannot find libenvshim.so next to the "
	    "envshim binary or in %s; reinstall envshim\n", ES_LIBDIR);
	return -1;
}

/* Can the shim find the helper: next to itself, else installed (es_helper)? */
static int
have_helper(const char *shim)
{
	char	real[PATH_MAX], buf[PATH_MAX + 32];

	if (realpath(shim, real) != NULL &&
	    (size_t)snprintf(buf, sizeof(buf), "%s/envshim-sandbox",
	    dirname(real)) < sizeof(buf) && access(buf, X_OK) == 0)
		return 1;
	return access(ES_LIBEXECDIR "/envshim-sandbox", X_OK) == 0;
}

/*
 * envshim's own files where the agent's sandboxed commands write (the
 * workspace) run outside the sandbox what they wrote: the shim in the
 * agent and its hand-overs, the helper before it clones, this command
 * and the policy at the next start.  The first one's real path in buf,
 * or NULL.
 */
static const char *
own_file_in(const char *ws, const char *shim, const char *policy, char *buf,
    size_t len)
{
	char		 real[PATH_MAX], helper[PATH_MAX + 32];
	const char	*files[4];
	size_t		 n = strlen(ws), i, k = 0;

	if (len < PATH_MAX || ws[0] != '/' || n < 2)
		return NULL;
	files[k++] = "/proc/self/exe";
	files[k++] = shim;
	if (realpath(shim, real) != NULL && (size_t)snprintf(helper,
	    sizeof(helper), "%s/envshim-sandbox", dirname(real)) < sizeof(helper))
		files[k++] = helper;
	if (policy != NULL)
		files[k++] = policy;
	for (i = 0; i < k; i++)
		if (realpath(files[i], buf) != NULL &&
		    strncmp(buf, ws, n) == 0 && buf[n] == '/')
			return buf;
	return NULL;
}

/*
 * The sandbox makes the agent's working directory writable, so the helper
 * refuses one that is / or holds the home directory: every shell the
 * agent started there would be refused.  Why, or NULL; the canonical
 * directory in ws.
 */
static const char *
bad_workspace(char *ws, size_t len)
{
	char		 cwd[PATH_MAX], home[PATH_MAX];
	const char	*h = getenv("HOME");
	size_t		 n;

	if (len < PATH_MAX || getcwd(cwd, sizeof(cwd)) == NULL ||
	    realpath(cwd, ws) == NULL)
		return NULL;	/* the helper says what is wrong */
	if (strcmp(ws, "/") == 0)
		return "is the root directory";
	if (h == NULL || h[0] != '/' || realpath(h, home) == NULL)
		return NULL;
	n = strlen(ws);
	if (strncmp(ws, home, n) != 0 || (home[n] != '/' && home[n] != '\0'))
		return NULL;
	return home[n] == '\0' ? "is your home directory" :
	    "holds your home directory";
}

/* Absolute, without resolving links: the file checked is the file named. */
static int
absolute(const char *path, char *buf, size_t len)
{
	char	cwd[PATH_MAX];

	if (path[0] == '/')
		return (size_t)snprintf(buf, len, "%s", path) < len ? 0 : -1;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return -1;
	return (size_t)snprintf(buf, len, "%s/%s", cwd, path) < len ? 0 : -1;
}

/*
 * Why the shim could not follow into file, or NULL.  The loader ignores
 * LD_PRELOAD for setuid/setgid/capability programs and static programs
 * have no loader at all: whatever such an agent starts is unfiltered.
 */
static const char *
unenterable(const char *file, int depth)
{
	unsigned char	 head[ES_SNIFF_HEAD];
	struct es_sniff	 sn;
	struct stat	 st;
	char		 judge[PATH_MAX];
	const char	*j;
	int		 fd;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;	/* execvp reports it */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	if (st.st_mode & S_ISUID) {
		close(fd);
		return "is setuid: the loader ignores LD_PRELOAD for it";
	}
	if (st.st_mode & S_ISGID) {
		close(fd);
		return "is setgid: the loader ignores LD_PRELOAD for it";
	}
	if (fgetxattr(fd, "security.capability", NULL, 0) > 0) {
		close(fd);
		return "has file capabilities: the loader ignores LD_PRELOAD "
		    "for it";
	}
	es_sniff_fd(fd, head, &sn);
	close(fd);
	if (sn.kind == ES_K_ELF_STATIC)
		return "is statically linked: there is no loader to preload "
		    "the shim into";
	if (sn.kind == ES_K_SCRIPT && depth == 0 &&
	    (j = es_script_judge(&sn)) != NULL && j[0] != '\0' &&
	    es_cmd_resolve(j, judge, sizeof(judge)) == 0)
		return unenterable(judge, 1) != NULL ? "is a script whose "
		    "interpreter the shim cannot enter" : NULL;
	return NULL;
}

/*
 * Does a shell given these arguments read its commands from its input,
 * as one a user types into: no -c, no script file.  A shell that runs a
 * script is a wrapper (a version manager's), and says nothing.
 */
static int
reads_stdin(char **cmd)
{
	size_t i;

	for (i = 1; cmd[i] != NULL; i++) {
		if (strcmp(cmd[i], "--") == 0 || strcmp(cmd[i], "-") == 0)
			return cmd[i + 1] == NULL;
		if (strcmp(cmd[i], "--rcfile") == 0 ||
		    strcmp(cmd[i], "--init-file") == 0 ||
		    strcmp(cmd[i], "-o") == 0 || strcmp(cmd[i], "+o") == 0 ||
		    strcmp(cmd[i], "-O") == 0 || strcmp(cmd[i], "+O") == 0) {
			if (cmd[++i] == NULL)
				return 1;
			continue;
		}
		if (cmd[i][0] != '-' && cmd[i][0] != '+')
			return 0;	/* a script file */
		if (cmd[i][1] != '-' && strchr(cmd[i], 'c') != NULL)
			return 0;	/* -c, -lc: a command string */
	}
	return 1;
}

/* The last component of a command's name, as a user typed it. */
static const char *
base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b != NULL ? b + 1 : s;
}

/* Executes what env would for cmd, whose file is exe; returns on failure. */
static void
exec_hop(struct es_cmd_hop *hop, const char *exe, char **cmd)
{
	char	**av;
	size_t	  n;

	for (n = 0; cmd[n] != NULL; n++)
		;
	if ((av = calloc(hop->argc + n + 1, sizeof(*av))) == NULL)
		return;
	memcpy(av, hop->argv, hop->argc * sizeof(*av));
	av[hop->argc] = (char *)exe;
	memcpy(av + hop->argc + 1, cmd + 1, (n - 1) * sizeof(*av));
	execv(hop->interp, av);
	free(av);
}

/* Executes cmd as the agent; returns only on failure, with the status. */
static int
exec_agent(char **cmd, const char *exe, struct es_cmd_hop *hop)
{
	int	e;

	if (es_cmd_env_hop(exe, hop))
		exec_hop(hop, exe, cmd);
	else
		execvp(cmd[0], cmd);
	e = errno;
	fprintf(stderr, "envshim: %s: %s\n", cmd[0],
	    e == ENOENT ? "command not found" : strerror(e));
	return e == ENOENT ? ES_EXIT_NOTFOUND : ES_EXIT_NOEXEC;
}

static volatile pid_t guard_pid;

static void
pass_on(int sig)
{
	if (guard_pid > 0)
		kill(guard_pid, sig);
}

/*
 * The agent runs below this process, with the guard between them
 * (guard.c): it ends the agent's whole tree if this process is killed,
 * and reaps what the tree leaves where pid 1 does not.  Once the agent
 * has exited - its screen restored - what its launches lost that it had
 * set for them alone (an MCP server's token) is said with the fix
 * (es_cmd_lost_report), when records go to a file (log not NULL).  This
 * process keeps the user's environment, so it is as undumpable as the
 * agent.  What a terminal sends reaches the agent's process group by
 * itself and is ignored here; other signals are passed on.  Returns the
 * agent's status; one that ended by a signal is ended by it again.
 */
static int
run_child(char **cmd, const char *exe, struct es_cmd_hop *hop,
    const char *log, int protect)
{
	static const int fwd[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = pass_on }, ign = { .sa_handler = SIG_IGN };
	sigset_t	 all, old;
	struct stat	 sb;
	long long	 from = 0;
	ino_t		 ino = 0;
	size_t		 i;
	pid_t		 pid;
	int		 status;

	if (log != NULL && stat(log, &sb) == 0) {
		from = (long long)sb.st_size;
		ino = sb.st_ino;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((pid = es_cmd_guard(protect, &old)) == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return exec_agent(cmd, exe, hop);
	}
	if (pid == 0)
		_exit(exec_agent(cmd, exe, hop));	/* the agent */
	guard_pid = pid;
	if (protect)
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return ES_EXIT_FAIL;
	/* A closed stderr must not turn the agent's status into SIGPIPE's. */
	signal(SIGPIPE, SIG_IGN);
	if (log != NULL) {
		/* The agent's start moves a full log to .1: then it began anew. */
		if (stat(log, &sb) != 0 || sb.st_ino != ino || sb.st_size < from)
			from = 0;
		es_cmd_lost_report(log, from, stderr);
	}
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : ES_EXIT_FAIL;
}

static int
run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "audit", no_argument, NULL, 'a' },
		{ "contain", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*file = NULL, *why, *mode;
	char			 shim[PATH_MAX], pol[PATH_MAX], exe[PATH_MAX];
	char			 ws[PATH_MAX], prog[PATH_MAX], own[PATH_MAX];
	struct es_cmd_hop	 hop;
	struct es_policy	*p;
	char			 log[ES_PATH_MAX], why_log[2 * ES_PATH_MAX];
	char			 fix_log[ES_PATH_MAX + 64];
	int			 c, audit = 0, contain = 0, sandboxed, found;
	int			 report, protect;
	size_t			 i;

	ws[0] = '\0';
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			file = optarg;
			break;
		case 'a':
			audit = 1;
			break;
		case 'c':
			contain = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("envshim %s\n", ES_VERSION);
			return 0;
		default:
			return es_cmd_try("envshim");
		}
	}
	if (optind == argc) {
		fprintf(stderr, "envshim: no command to run%s\n",
		    strcmp(argv[optind - 1], "--") == 0 ? " after --" : "");
		return es_cmd_try("envshim");
	}
	/* Not found: execvp says so (127) before any other check can. */
	found = es_cmd_resolve(argv[optind], exe, sizeof(exe)) == 0;
	if (!found)
		snprintf(exe, sizeof(exe), "%s", argv[optind]);
	else if (!contain && (why = unenterable(exe, 0)) != NULL) {
		fprintf(stderr, "envshim: refusing %s: it %s, so nothing it "
		    "starts would be filtered.\nRun a dynamically linked, "
		    "unprivileged build of it instead, or run it with "
		    "envshim --contain.\n", exe, why);
		return ES_EXIT_FAIL;
	} else if (!contain && es_contain_needed(argv + optind, exe, prog,
	    sizeof(prog))) {
		fprintf(stderr, "envshim: %s hands itself over to %s, a static "
		    "program the shim cannot enter: running it in contain mode "
		    "(envshim --contain)\n", argv[optind], prog);
		contain = 1;
	}
	file = es_cmd_policy_file(file);
	if ((p = es_cmd_load(file)) == NULL)
		return ES_EXIT_FAIL;
	sandboxed = found && p->sandbox != ES_SANDBOX_OFF &&
	    p->mode != ES_MODE_AUDIT;
	if (sandboxed && !contain && es_is_shell(p, exe) &&
	    reads_stdin(argv + optind))
		fprintf(stderr, p->sandbox == ES_SANDBOX_SHELLS ?
		    "envshim: %s is the agent: what is typed into it runs "
		    "outside the sandbox; for a sandboxed shell, start one "
		    "from it (%s)\n" :
		    "envshim: %s is the agent: it runs outside the sandbox, "
		    "with its builtins and redirections; the programs it "
		    "starts (%s too) are sandboxed\n",
		    base_name(argv[optind]), base_name(argv[optind]));
	/* Lost secrets are said from the log file, when there is one. */
	report = found && es_log_file(p, getenv("HOME"), log, sizeof(log)) == 0;
	protect = p->protect_self;
	/* Without its records the policy wants no agent started at all. */
	if (found && p->log_required && es_log_ready(p, getenv("HOME"), log,
	    sizeof(log), why_log, sizeof(why_log), fix_log,
	    sizeof(fix_log)) != 0) {
		fprintf(stderr, "envshim: log-required yes, and the audit log "
		    "cannot be kept: %s; fix: %s\n", why_log, fix_log);
		free(p);
		return ES_EXIT_FAIL;
	}
	free(p);
	/* The shim would refuse every launch of an agent started with it. */
	mode = getenv("ENVSHIM_MODE");
	if (mode != NULL && strcmp(mode, "audit") == 0)
		audit = 1;
	else if (mode != NULL && mode[0] != '\0' &&
	    strcmp(mode, "enforce") != 0) {
		fprintf(stderr, "envshim: ENVSHIM_MODE must be audit or "
		    "enforce, or unset\n");
		return ES_EXIT_FAIL;
	}
	if (find_shim(shim, sizeof(shim)) == -1)
		return ES_EXIT_FAIL;
	if (sandboxed && !audit &&
	    (why = bad_workspace(ws, sizeof(ws))) != NULL) {
		fprintf(stderr, "envshim: the working directory %s %s.\nThe "
		    "sandbox makes the agent's working directory writable, so "
		    "every shell the agent started here would be refused.\nStart "
		    "the agent from its project (cd ~/src/project), or set "
		    "'sandbox off' in a policy.\n", ws, why);
		return ES_EXIT_FAIL;
	}
	/* Every shell the agent started would be refused. */
	if (sandboxed && !audit && !contain && !have_helper(shim)) {
		fprintf(stderr, "envshim: the sandbox helper envshim-sandbox is "
		    "neither next to %s nor in %s, so every shell the agent "
		    "started would be refused.\nReinstall envshim, or set "
		    "'sandbox off' in a policy.\n", shim, ES_LIBEXECDIR);
		return ES_EXIT_FAIL;
	}
	/* ld.so splits LD_PRELOAD at spaces and colons. */
	if (strpbrk(shim, " :\t") != NULL) {
		fprintf(stderr, "envshim: %s: a path with a space or ':' "
		    "cannot go into LD_PRELOAD\n", shim);
		return ES_EXIT_FAIL;
	}
	if (file != NULL && absolute(file, pol, sizeof(pol)) == -1) {
		fprintf(stderr, "envshim: %s: cannot make the path absolute\n",
		    file);
		return ES_EXIT_FAIL;
	}
	if (sandboxed && !audit && (why = own_file_in(ws, shim, file != NULL ?
	    pol : NULL, own, sizeof(own))) != NULL) {
		fprintf(stderr, "envshim: %s is inside the working directory "
		    "%s.\nThe agent's sandboxed commands can write there, and "
		    "envshim loads it outside the sandbox: what they wrote would "
		    "run unconfined.\nInstall envshim (make install) or build it "
		    "outside the project, and keep the policy out of it.\n",
		    why, ws);
		return ES_EXIT_FAIL;
	}
	for (i = 0; i < sizeof(inherited) / sizeof(inherited[0]); i++)
		if (unsetenv(inherited[i]) == -1)
			goto fail;
	if (contain)
		return es_contain_run(argv + optind, exe, shim,
		    file != NULL ? pol : NULL, audit);
	if (setenv("LD_PRELOAD", shim, 1) == -1 ||
	    (file != NULL && setenv("ENVSHIM_POLICY", pol, 1) == -1) ||
	    (audit && setenv("ENVSHIM_MODE", "audit", 1) == -1))
		goto fail;
	return run_child(argv + optind, exe, &hop, report ? log : NULL, protect);
fail:
	fprintf(stderr, "envshim: cannot set the environment: %s\n",
	    strerror(errno));
	return ES_EXIT_FAIL;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char	*name, *prog;
		int		(*fn)(int, char **);
	} sub[] = {
		{ "check", "envshim check", es_cmd_check },
		{ "policy", "envshim policy", es_cmd_policy },
		{ "log", "envshim log", es_cmd_log },
		{ "doctor", "envshim doctor", es_cmd_doctor },
		{ "session", "envshim session", es_cmd_session },
	};
	size_t	i;

	/* getopt's messages start with argv[0]: say which command spoke. */
	if (argc > 1)
		for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++)
			if (strcmp(argv[1], sub[i].name) == 0) {
				argv[1] = (char *)sub[i].prog;
				return sub[i].fn(argc - 1, argv + 1);
			}
	if (argc > 0)
		argv[0] = (char *)"envshim";
	return run(argc, argv);
}
