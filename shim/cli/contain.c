/*
 * contain.c - "envshim --contain": run an agent the shim cannot enter
 * (a static binary, a Go program, one that strips LD_*) in a user and
 * mount namespace where a read-only overlay on /etc adds
 * /etc/ld.so.preload, naming the shim, and ES_CONTAIN_FILE, holding the
 * launch state.  The dynamic linker then loads the shim into every
 * dynamically linked descendant whatever its environment, and the shim's
 * constructor filters each one's own environment (shim/preload/ctor.c).
 *
 * The agent is not otherwise confined: same uid, files, network and
 * environment.  It gets no capabilities in the namespace, so it cannot
 * unmount the overlay; the copied mounts are locked for any namespace it
 * makes itself.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_session.h"
#include "cmd.h"
#include "es_root.h"

extern char **environ;

/* Where the overlay's top layer is built, briefly, in the new namespace. */
#define STAGE		"/tmp"

struct err {
	char	msg[ES_PATH_MAX + 256];
};

static int
fail(struct err *e, const char *what, const char *hint)
{
	snprintf(e->msg, sizeof(e->msg), "%s: %s%s%s", what, strerror(errno),
	    hint != NULL ? " (" : "", hint != NULL ? hint : "");
	if (hint != NULL)
		strncat(e->msg, ")", sizeof(e->msg) - strlen(e->msg) - 1);
	return -1;
}

static int
put_file(const char *path, const char *data, size_t len, mode_t mode)
{
	int	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		    O_NOFOLLOW, mode);
	ssize_t	n;

	if (fd == -1)
		return -1;
	n = write(fd, data, len);
	if (close(fd) == -1 || n != (ssize_t)len) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * uid and gid mapped to in and gin inside; setgroups denied first, as
 * required.
 */
static int
map_ids(struct err *e, uid_t in, uid_t uid, gid_t gin, gid_t gid)
{
	char	line[64];

	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)in, (unsigned)uid);
	if (put_file("/proc/self/uid_map", line, strlen(line), 0) == -1)
		return fail(e, "cannot write uid_map", NULL);
	if (put_file("/proc/self/setgroups", "deny", 4, 0) == -1 &&
	    errno != ENOENT)
		return fail(e, "cannot write setgroups", NULL);
	snprintf(line, sizeof(line), "%u %u 1\n", (unsigned)gin, (unsigned)gid);
	if (put_file("/proc/self/gid_map", line, strlen(line), 0) == -1)
		return fail(e, "cannot write gid_map", NULL);
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void
unescape(char *s)
{
	char	*d = s;

	for (; *s != '\0'; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*d = *s;
	}
	*d = '\0';
}

/*
 * Mounts under /etc (a container's resolv.conf, hosts) are not part of
 * the overlay's lower layer: they are held open here and bound again on
 * top of the overlay, so the agent sees the same files as before.
 */
struct sub {
	size_t	n;
	int	fd[ES_CONTAIN_SUBMOUNTS];
	char	path[ES_CONTAIN_SUBMOUNTS][ES_PATH_MAX];
};

static int
hold_submounts(struct err *e, struct sub *sub)
{
	FILE	*f = fopen("/proc/self/mountinfo", "re");
	char	 line[3 * ES_PATH_MAX], mp[ES_PATH_MAX];

	sub->n = 0;
	if (f == NULL)
		return fail(e, "cannot read /proc/self/mountinfo", NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		if (strncmp(mp, "/etc/", 5) != 0)
			continue;
		if (sub->n == ES_CONTAIN_SUBMOUNTS) {
			fclose(f);
			errno = E2BIG;
			return fail(e, "too many mounts under /etc", NULL);
		}
		sub->fd[sub->n] = open(mp, O_PATH | O_CLOEXEC | O_NOFOLLOW);
		if (sub->fd[sub->n] == -1)
			continue;	/* covered by a later mount: goes with it */
		memcpy(sub->path[sub->n], mp, strlen(mp) + 1);
		sub->n++;
	}
	fclose(f);
	return 0;
}

/*
 * In a new user and mount namespace, /etc becomes a read-only overlay
 * of a private tmpfs (ld.so.preload, envshim/contain) over the real /etc.
 * The tmpfs is detached afterwards: only the overlay can reach it.
 */
static int
setup(struct err *e, const char *shim, const char *state, size_t len)
{
	char		 line[ES_PATH_MAX + 2], fdp[32];
	struct sub	*sub;
	uid_t		 uid = getuid();
	gid_t		 gid = getgid();
	size_t		 i;
	int		 rc = -1;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return fail(e, "cannot create a user and mount namespace",
		    "see `envshim doctor`");
	/*
	 * Root is an ordinary id inside: since Linux 5.12 a user namespace
	 * may map id 0 only with CAP_SETFCAP, which the agent gives up, so
	 * no shell's sandbox could map root; ES_CONTAIN_ROOT_ID maps itself.
	 * Outside it is still root's file access, without capabilities.
	 */
	if (map_ids(e, uid == 0 ? ES_CONTAIN_ROOT_ID : uid, uid,
	    gid == 0 ? ES_CONTAIN_ROOT_ID : gid, gid) == -1)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == -1)
		return fail(e, "cannot make the mounts private", NULL);
	if ((sub = malloc(sizeof(*sub))) == NULL)
		return fail(e, "out of memory", NULL);
	if (hold_submounts(e, sub) == -1)
		goto out;
	if (mount("envshim", STAGE, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    "mode=0755,size=1m") == -1) {
		fail(e, "cannot mount a tmpfs on " STAGE, NULL);
		goto out;
	}
	snprintf(line, sizeof(line), "%s\n", shim);
	if (mkdir(STAGE "/envshim", 0755) == -1 ||
	    put_file(STAGE "/ld.so.preload", line, strlen(line), 0644) == -1 ||
	    put_file(STAGE "/" ES_CONTAIN_NAME, state, len, 0644) == -1) {
		fail(e, "cannot write the overlay's files", NULL);
		goto out;
	}
	if (mount(NULL, STAGE, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1) {
		fail(e, "cannot make the overlay's files read-only", NULL);
		goto out;
	}
	if (mount("envshim", "/etc", "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV,
	    "lowerdir=" STAGE ":/etc") == -1) {
		fail(e, "cannot mount an overlay on /etc",
		    "unprivileged overlayfs needs Linux 5.11 or later");
		goto out;
	}
	for (i = 0; i < sub->n; i++)
		if (mount(es_fd_path(fdp, sub->fd[i]), sub->path[i], NULL,
		    MS_BIND | MS_REC, NULL) == -1) {
			fail(e, "cannot mount again what was mounted under /etc",
			    sub->path[i]);
			goto out;
		}
	if (umount2(STAGE, MNT_DETACH) == -1) {
		fail(e, "cannot detach the staging tmpfs", NULL);
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < sub->n; i++)
		close(sub->fd[i]);
	free(sub);
	return rc;
}

/*
 * Nothing the agent runs may hold a capability in the namespace, even
 * when the user is root: an empty bounding set, no ambient, no inheritable.
 */
static int
drop_caps(struct err *e)
{
	struct __user_cap_header_struct	hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];
	int				c;

	for (c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1 && errno != EINVAL)
			return fail(e, "cannot drop the capability bounding set", NULL);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return fail(e, "cannot clear ambient capabilities", NULL);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		return fail(e, "cannot drop capabilities", NULL);
	return 0;
}

/*
 * What the sandbox helper will do for a shell inside: a user namespace of
 * its own, the caller's ids mapped to themselves (read before the
 * unshare: in the new namespace they are the overflow id).  Since Linux
 * 5.12 a map of uid 0 needs CAP_SETFCAP, which this namespace no longer
 * holds: why root is ES_CONTAIN_ROOT_ID here.  Tried in a child.
 */
static int
nested_userns(struct err *e)
{
	struct err	ce;
	uid_t		uid = getuid();
	gid_t		gid = getgid();
	pid_t		pid;
	int		st;

	fflush(stdout);
	if ((pid = fork()) == -1)
		return fail(e, "cannot fork", NULL);
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 &&
		    map_ids(&ce, uid, uid, gid, gid) == 0 ? 0 :
		    (errno & 0xff) != 0 ? errno & 0xff : EPERM);
	if (waitpid(pid, &st, 0) == -1)
		return fail(e, "cannot wait for a child", NULL);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	errno = WIFEXITED(st) ? WEXITSTATUS(st) : EPERM;
	return fail(e, "no shell inside could be sandboxed: its user namespace "
	    "cannot map the user id", "set sandbox off, or see `envshim doctor`");
}

/*
 * Who the agent will be: for a "#!" COMMAND (Codex's and Gemini's node
 * launchers) its interpreter running the script, as the shim's
 * constructor in that interpreter records it; else exe itself.  Returns
 * 1 when the "#!" line is "/usr/bin/env NAME": the command then executes
 * NAME itself, as env would, because env would be a process of its own
 * that is not the agent and would filter the agent's environment away.
 */
static int
agent_of(const char *exe, char *interp, size_t len, char **av)
{
	unsigned char	 head[ES_SNIFF_HEAD];
	struct es_sniff	 sn;
	const char	*j, *b;
	ssize_t		 n = -1;
	int		 fd = open(exe, O_RDONLY | O_CLOEXEC);

	snprintf(interp, len, "%s", exe);
	av[0] = interp;
	av[1] = NULL;
	if (fd >= 0) {
		n = read(fd, head, sizeof(head));
		close(fd);
	}
	es_sniff(head, n > 0 ? (size_t)n : 0, &sn);
	if (sn.kind != ES_K_SCRIPT || (j = es_script_judge(&sn)) == NULL ||
	    es_cmd_resolve(j, interp, len) != 0) {
		snprintf(interp, len, "%s", exe);
		return 0;
	}
	av[0] = (char *)j;
	av[1] = (char *)exe;
	av[2] = NULL;
	b = strrchr(sn.interp, '/');
	return strcmp(b != NULL ? b + 1 : sn.interp, "env") == 0 &&
	    strcmp(j, sn.interp) != 0;
}

/* Files a platform package may hold that are looked at, in all. */
#define SCAN_FILES	4096
#define SCAN_DEPTH	8

/*
 * A static program (ET_EXEC, or static-pie) with an execute bit under
 * dir, not in a nested node_modules: what the shim cannot enter.  The
 * first found goes to prog; one called name (the agent's own binary, not
 * a helper next to it) ends the walk.  *left bounds it.
 */
static int
static_under(const char *dir, int depth, const char *name, char *prog,
    size_t len, int *left)
{
	unsigned char	 head[ES_SNIFF_HEAD];
	struct es_sniff	 sn;
	struct dirent	*d;
	struct stat	 sb;
	char		 path[PATH_MAX];
	DIR		*dp;
	int		 fd, found = 0;

	if ((dp = opendir(dir)) == NULL)
		return 0;
	while (!found && (d = readdir(dp)) != NULL && (*left)-- > 0) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0 ||
		    strcmp(d->d_name, "node_modules") == 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path) || lstat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth < SCAN_DEPTH)
				found = static_under(path, depth + 1, name, prog,
				    len, left);
			continue;
		}
		if (!S_ISREG(sb.st_mode) || !(sb.st_mode & 0111) ||
		    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			continue;
		es_sniff_fd(fd, head, &sn);
		close(fd);
		if (sn.kind == ES_K_ELF_STATIC && sn.program) {
			if (prog[0] == '\0' || strcmp(d->d_name, name) == 0)
				snprintf(prog, len, "%s", path);
			found = strcmp(d->d_name, name) == 0;
		}
	}
	closedir(dp);
	return found;
}

/*
 * Decided before anything starts: once the launcher has handed itself
 * to a static binary outside contain mode, nothing can follow it.
 */
int
es_contain_needed(char **cmd, const char *exe, char *prog, size_t len)
{
	char		 interp[ES_PATH_MAX], real[PATH_MAX], ws[PATH_MAX];
	char		 (*roots)[ES_PATH_MAX], *av[3];
	const char	*file = exe, *arg, *name = strrchr(exe, '/');
	int		 n, i, left = SCAN_FILES;

	agent_of(exe, interp, sizeof(interp), av);
	if (av[1] == NULL && realpath(exe, real) != NULL &&
	    (arg = es_agent_script_arg(real, cmd)) != NULL)
		file = arg;	/* node /path/to/codex.js */
	if (getcwd(ws, sizeof(ws)) == NULL)
		ws[0] = '\0';
	if ((roots = malloc(ES_TREE_MAX * sizeof(*roots))) == NULL)
		return 0;
	n = es_agent_install(file, ws, roots);
	/* The platform packages: the agent's own one holds tools (Qwen's rg). */
	prog[0] = '\0';
	name = name != NULL ? name + 1 : exe;
	for (i = 1; i < n; i++)
		if (static_under(roots[i], 0, name, prog, len, &left))
			break;
	free(roots);
	return prog[0] != '\0';
}

/* The launch state as ES_CONTAIN_FILE holds it: NUL-separated entries. */
static size_t
state_text(const struct es_shim *s, char *buf, size_t cap)
{
	const char	*e[] = { s->e_config, s->e_launch, s->e_agent, s->e_tree,
			    s->e_ws, s->e_session };
	size_t		 i, n = 0, l;

	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		l = strlen(e[i]) + 1;
		if (l == 1 || n + l > cap)
			continue;
		memcpy(buf + n, e[i], l);
		n += l;
	}
	return n;
}

/*
 * The agent never started: the session es_root_init made for it goes
 * now (a started agent's pid ends it, or the next start).
 */
static int
end_session(const struct es_shim *s, int status)
{
	if (s->e_session[0] != '\0')
		(void)es_session_remove(s->e_session +
		    sizeof(ES_SESSION_VAR));
	return status;
}

int
es_contain_run(char **cmd, const char *exe, const char *shim,
    const char *policy, int audit)
{
	struct es_shim	*s;
	struct err	 e;
	char		*state, interp[ES_PATH_MAX], *av[3], **hop;
	size_t		 len, n;
	int		 c, direct;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (state = malloc(ES_CONTAIN_MAX)) == NULL) {
		fputs("envshim: out of memory\n", stderr);
		return ES_EXIT_FAIL;
	}
	if (unsetenv("LD_PRELOAD") == -1 || unsetenv("ENVSHIM_MODE") == -1 ||
	    unsetenv("ENVSHIM_POLICY") == -1) {
		fprintf(stderr, "envshim: %s\n", strerror(errno));
		return ES_EXIT_FAIL;
	}
	direct = agent_of(exe, interp, sizeof(interp), av);
	/*
	 * A program named itself (`node script.js`) is known by its own
	 * argv, as its constructor will judge it: with av alone an
	 * interpreter would be recorded as running no script.
	 */
	es_root_init(s, policy, audit ? "audit" : NULL, environ, interp,
	    av[1] == NULL ? cmd : av);
	if (s->broken) {
		fprintf(stderr, "envshim: %s\n", s->why);
		return end_session(s, ES_EXIT_FAIL);
	}
	len = state_text(s, state, ES_CONTAIN_MAX);
	/* Shells that could not be sandboxed would all be refused: say so now. */
	if (setup(&e, shim, state, len) == -1 || drop_caps(&e) == -1 ||
	    (s->pol.sandbox != ES_SANDBOX_OFF &&
	    s->pol.mode != ES_MODE_AUDIT && nested_userns(&e) == -1)) {
		fprintf(stderr, "envshim: --contain: %s\n", e.msg);
		return end_session(s, ES_EXIT_FAIL);
	}
	/* A dynamic agent's shim reads the file; the environment is for the agent's eyes. */
	if (putenv(s->e_config) != 0 || putenv(s->e_launch) != 0 ||
	    (s->e_agent[0] != '\0' && putenv(s->e_agent) != 0) ||
	    (s->e_tree[0] != '\0' && putenv(s->e_tree) != 0) ||
	    (s->e_ws[0] != '\0' && putenv(s->e_ws) != 0) ||
	    (s->e_session[0] != '\0' && putenv(s->e_session) != 0)) {
		fprintf(stderr, "envshim: cannot set the environment: %s\n",
		    strerror(errno));
		return end_session(s, ES_EXIT_FAIL);
	}
	for (n = 0; cmd[n] != NULL; n++)
		;
	if (direct && (hop = calloc(n + 2, sizeof(*hop))) != NULL) {
		hop[0] = av[0];
		hop[1] = (char *)exe;
		memcpy(hop + 2, cmd + 1, n * sizeof(*hop));
		execv(interp, hop);
	} else
		execvp(cmd[0], cmd);
	c = errno;
	fprintf(stderr, "envshim: %s: %s\n", cmd[0],
	    c == ENOENT ? "command not found" : strerror(c));
	return end_session(s, c == ENOENT ? ES_EXIT_NOTFOUND : ES_EXIT_NOEXEC);
}
