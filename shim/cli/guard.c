/*
 * guard.c - the process between `envshim --` and the agent.  It is the
 * agent's parent and a child subreaper, so everything the agent's tree
 * leaves behind is re-parented to it, not to pid 1:
 *
 * - when envshim itself is killed (SIGKILL included), the guard hears
 *   it (its parent-death signal) and kills the agent and every process
 *   below it, sandboxed or not, detached into a session of its own or
 *   not: nothing the agent started runs on unsupervised;
 * - while the agent runs, and after it ends until its session's keepers
 *   and sandbox inits are gone, the guard reaps them, also where pid 1
 *   reaps nothing (many containers), so no zombie is left;
 * - it ends as the agent did: the same exit status, or the same signal.
 *
 * What the agent leaves running when it ends by itself (a server it
 * started) is left as before: re-parented on once the guard ends.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Sent by the kernel when envshim, the guard's parent, ends. */
#define GUARD_ORPHANED	SIGPWR

static volatile sig_atomic_t orphaned;
static volatile pid_t agent;

static void
on_orphaned(int sig)
{
	(void)sig;
	orphaned = 1;
}

static void
pass_on(int sig)
{
	if (agent > 0)
		kill(agent, sig);
}

/* pid's parent and its command name (15 bytes at most), from /proc. */
static pid_t
parent_of(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512], *o, *c;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((o = strchr(buf, '(')) == NULL || (c = strrchr(buf, ')')) == NULL ||
	    c[1] != ' ' || c[2] == '\0' || c[3] != ' ')
		return -1;
	if (comm != NULL) {
		*c = '\0';
		snprintf(comm, len, "%s", o + 1);
	}
	return (pid_t)strtol(c + 4, NULL, 10);
}

/* Is pid below this process (a descendant, at any depth)? */
static int
below_me(pid_t pid)
{
	pid_t p;
	int depth;

	for (p = pid, depth = 0; p > 1 && depth < 4096; depth++)
		if ((p = parent_of(p, NULL, 0)) == getpid())
			return 1;
	return 0;
}

/*
 * SIGKILL to every process below this one, until a pass finds none (a
 * process may fork while the last pass ran), reaping as they end.
 */
static void
kill_tree(void)
{
	struct dirent *e;
	DIR *d;
	pid_t pid;
	int found;

	do {
		found = 0;
		if ((d = opendir("/proc")) == NULL)
			return;
		while ((e = readdir(d)) != NULL)
			if ((pid = (pid_t)strtol(e->d_name, NULL, 10)) > 0 &&
			    pid != getpid() && below_me(pid)) {
				(void)kill(pid, SIGKILL);
				found = 1;
			}
		closedir(d);
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	} while (found);
}

/*
 * The session's helpers among this process's children: keepers and
 * sandbox inits whose outer has ended, which end by themselves now that
 * the agent has (the keeper watches it, an init its outer).  Waits for
 * each; reaps every child that has already ended.
 */
static void
reap_helpers(void)
{
	char comm[32];
	struct dirent *e;
	DIR *d;
	pid_t pid;
	int waited;

	do {
		waited = 0;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (orphaned || (d = opendir("/proc")) == NULL)
			return;
		while (!orphaned && (e = readdir(d)) != NULL) {
			if ((pid = (pid_t)strtol(e->d_name, NULL, 10)) <= 0 ||
			    parent_of(pid, comm, sizeof(comm)) != getpid() ||
			    strcmp(comm, "envshim-sandbox") != 0)
				continue;
			/* interrupted (a signal passed on): look again */
			if (waitpid(pid, NULL, 0) == pid || errno == EINTR)
				waited = 1;
		}
		closedir(d);
	} while (waited);
}

/* Ends as the agent did: its status, or its signal (without a core). */
static void
end_as(int status)
{
	struct rlimit none = { 0, 0 };
	sigset_t s;
	int sig;

	if (!WIFSIGNALED(status))
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : ES_EXIT_FAIL);
	sig = WTERMSIG(status);
	(void)setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* The guard itself: forks the agent (returns 0 there), never returns. */
static pid_t
guard(pid_t envshim, int protect, const sigset_t *old)
{
	static const int fwd[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
	struct sigaction sa = { .sa_handler = pass_on };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction orph = { .sa_handler = on_orphaned };
	int status = 0;
	size_t i;
	pid_t pid, w, me = getpid();

	if (protect)
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	sigemptyset(&sa.sa_mask);
	sigemptyset(&orph.sa_mask);
	for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(GUARD_ORPHANED, &orph, NULL);
	(void)prctl(PR_SET_PDEATHSIG, GUARD_ORPHANED, 0, 0, 0);
	if (getppid() != envshim)
		orphaned = 1;	/* envshim ended before the signal was set */
	if ((pid = fork()) == -1)
		_exit(ES_EXIT_FAIL);
	if (pid == 0) {
		/* the agent: it ends with the guard, whatever ends that */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != me)
			_exit(ES_EXIT_FAIL);	/* the guard ended first */
		for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
			signal(fwd[i], SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(GUARD_ORPHANED, SIG_DFL);
		sigprocmask(SIG_SETMASK, old, NULL);
		return 0;
	}
	agent = pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	for (;;) {
		if (orphaned) {
			kill_tree();
			_exit(ES_EXIT_FAIL);
		}
		w = waitpid(-1, &status, 0);
		if (w == pid)
			break;
		if (w == -1 && errno != EINTR)
			_exit(ES_EXIT_FAIL);
	}
	agent = 0;
	reap_helpers();
	if (orphaned) {
		kill_tree();
		_exit(ES_EXIT_FAIL);
	}
	end_as(status);
	return -1;
}

pid_t
es_cmd_guard(int protect, const sigset_t *old)
{
	pid_t envshim = getpid(), pid;

	if ((pid = fork()) != 0)
		return pid;	/* envshim: the guard's pid, or -1 */
	return guard(envshim, protect, old);
}
