/*
 * reaper - runs the test suite (`make bats`) as a child subreaper, so
 * every process a test leaves behind is re-parented here and not to
 * pid 1, where no test could tell it from another suite's.
 *
 *	reaper COMMAND [ARGS...]
 *
 * COMMAND gets ES_TEST_REAPER (this pid) and ES_TEST_SUITE (its own
 * pid): after each test file, teardown_file (tests/bats/leftovers.bash)
 * names and kills this process's other children and their trees, and
 * fails the file.  When COMMAND ends, what is still here (a leftover of
 * a file with no teardown_file, or of teardown_file itself) is named on
 * stderr and killed, and the status is 1; else COMMAND's.  Orphans that
 * end are reaped as they go, so none stays a zombie.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The parent pid of pid and its state letter, from /proc/PID/status;
 * -1 when it is gone. */
static pid_t
parent_of(pid_t pid, char *state)
{
	char path[64], line[256];
	long ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	*state = '?';
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "State:\t", 7) == 0)
			*state = line[7];
		else if (strncmp(line, "PPid:\t", 6) == 0)
			ppid = strtol(line + 6, NULL, 10);
	fclose(f);
	return (pid_t)ppid;
}

/* The command line of pid, spaces for NULs, into buf. */
static void
cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		n = 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
}

/*
 * Is pid below top (and not below except)?  Zombies are not: they have
 * ended, and the reaper takes them.
 */
static int
below(pid_t pid, pid_t top, pid_t except)
{
	char state;
	pid_t p;

	if (pid == top || pid == getpid() || parent_of(pid, &state) == -1 ||
	    state == 'Z')
		return 0;
	for (p = pid; p > 1; p = parent_of(p, &state))
		if (p == except)
			return 0;
		else if (p == top)
			return 1;
	return 0;
}

/*
 * The live processes below top but not below except, into pids (at
 * most max); how many.
 */
static int
list_below(pid_t top, pid_t except, pid_t *pids, int max)
{
	struct dirent *e;
	pid_t pid;
	int n = 0;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while (n < max && (e = readdir(d)) != NULL)
		if ((pid = (pid_t)strtol(e->d_name, NULL, 10)) > 0 &&
		    below(pid, top, except))
			pids[n++] = pid;
	closedir(d);
	return n;
}

/*
 * Names and kills what is below top but not below except.  A process on
 * its way out (a session's keeper, which ends once it sees its launch
 * root gone) gets grace seconds first.  How many were left.
 */
static int
leftovers(pid_t top, pid_t except, int grace)
{
	pid_t pids[4096];
	char line[512];
	int n, i, t;

	for (t = 0; (n = list_below(top, except, pids, 4096)) > 0 &&
	    t < grace * 10; t++)
		usleep(100000);
	for (i = 0; i < n; i++) {
		cmdline(pids[i], line, sizeof(line));
		fprintf(stderr, "left running: pid %ld: %s\n", (long)pids[i],
		    line);
		(void)kill(pids[i], SIGKILL);
	}
	return n;
}

int
main(int argc, char **argv)
{
	char buf[32], *r, *s;
	int st = 0, rc, left = 0, n;
	pid_t pid, w;

	if (argc == 2 && strcmp(argv[1], "--leftovers") == 0) {
		/* teardown_file: what the file's tests left, now re-parented */
		if ((r = getenv("ES_TEST_REAPER")) == NULL ||
		    (s = getenv("ES_TEST_SUITE")) == NULL)
			return 0;	/* not under the reaper: nothing to tell */
		return leftovers((pid_t)atol(r), (pid_t)atol(s), 30) > 0;
	}
	if (argc < 2) {
		fputs("usage: reaper COMMAND [ARGS...] | reaper --leftovers\n",
		    stderr);
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
		perror("reaper: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	snprintf(buf, sizeof(buf), "%ld", (long)getpid());
	setenv("ES_TEST_REAPER", buf, 1);
	if ((pid = fork()) == -1) {
		perror("reaper: fork");
		return 2;
	}
	if (pid == 0) {
		snprintf(buf, sizeof(buf), "%ld", (long)getpid());
		setenv("ES_TEST_SUITE", buf, 1);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "reaper: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while ((w = waitpid(-1, &rc, 0)) != pid)
		if (w == -1 && errno != EINTR) {
			perror("reaper: waitpid");
			return 2;
		}
	st = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
	/* what is left, until nothing is: a killed process's children come
	 * here too, and are reaped with it */
	for (n = 30; (rc = leftovers(getpid(), 0, n)) > 0; n = 0) {
		left += rc;
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (left > 0) {
		fprintf(stderr, "reaper: the suite left %d process%s running\n",
		    left, left == 1 ? "" : "es");
		return 1;
	}
	return st;
}
