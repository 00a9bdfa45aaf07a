/*
 * doctor.c - "envshim doctor": can this system and user run envshim,
 * and if not, what to change.  One line per check; a failing check says
 * the fix.  Exit 0 only when every check passes.
 *
 * Checks are made by doing the thing where possible (a child really
 * unshares a user namespace; the log directory is really opened), since
 * sysctls only explain a failure, they do not predict success.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "es_session.h"
#include "cmd.h"
#include "es_landlock.h"

#ifndef ES_LIBDIR
#define ES_LIBDIR	"/usr/local/lib/envshim"
#endif
#ifndef ES_LIBEXECDIR
#define ES_LIBEXECDIR	"/usr/local/libexec/envshim"
#endif

struct doc {
	int	fails;
	int	colour;
};

static void
result(struct doc *d, int ok, const char *what, const char *detail,
    const char *fix)
{
	if (!ok)
		d->fails++;
	printf("%s%-4s%s %s: %s\n", d->colour ? (ok ? "\033[32m" :
	    "\033[1;31m") : "", ok ? "ok" : "FAIL", d->colour ? "\033[0m" : "",
	    what, detail);
	if (!ok && fix != NULL)
		printf("     fix: %s\n", fix);
}

/* A sysctl as a number, or -1 when it does not exist on this kernel. */
static long
sysctl_num(const char *path)
{
	FILE	*f = fopen(path, "re");
	long	 v = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Forks a child that unshares as the sandbox helper will; 0 or its errno. */
static int
try_userns(void)
{
	pid_t	pid;
	int	st;

	fflush(stdout);
	if ((pid = fork()) == -1)
		return errno;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 :
		    errno & 0xff);
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st))
		return EINVAL;
	return WEXITSTATUS(st);
}

/*
 * Runs the helper itself on /bin/true in a scratch workspace, with the
 * built-in policy, "sandbox required" and "log off": the helper, not this
 * command, is what an AppArmor profile or a container lets make
 * namespaces.  0 when the command ran confined; else -1, with the
 * helper's own reason (it names the cause and the fix) in why.
 */
static int
try_helper(const char *helper, char *why, size_t len)
{
	static const char pol_text[] = "sandbox required\nlog off\n";
	char	 dir[] = "/tmp/envshim-doctor.XXXXXX", pol[sizeof(dir) + 8];
	char	*nl;
	size_t	 n = 0;
	ssize_t	 r;
	pid_t	 pid;
	int	 p[2], fd, st = -1;

	why[0] = '\0';
	if (mkdtemp(dir) == NULL) {
		snprintf(why, len, "cannot make a scratch workspace: %s",
		    strerror(errno));
		return -1;
	}
	snprintf(pol, sizeof(pol), "%s/policy", dir);
	fd = open(pol, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1 || write(fd, pol_text, sizeof(pol_text) - 1) !=
	    (ssize_t)sizeof(pol_text) - 1 || pipe2(p, O_CLOEXEC) == -1) {
		snprintf(why, len, "cannot prepare the probe: %s",
		    strerror(errno));
		goto out;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd == -1 || dup2(fd, 0) == -1 || dup2(fd, 1) == -1 ||
		    dup2(p[1], 2) == -1 || chdir(dir) == -1 ||
		    setenv("ENVSHIM_WORKSPACE", dir, 1) == -1)
			_exit(125);
		unsetenv("ENVSHIM_CONFIG");
		unsetenv("ENVSHIM_SANDBOX_NS");
		unsetenv("LD_PRELOAD");
		execl(helper, "envshim-sandbox", "--policy", pol, "--",
		    "/bin/true", (char *)NULL);
		dprintf(2, "cannot execute it: %s\n", strerror(errno));
		_exit(126);
	}
	close(p[1]);
	while (pid > 0 && n + 1 < len &&
	    (r = read(p[0], why + n, len - 1 - n)) > 0)
		n += r;
	why[n] = '\0';
	close(p[0]);
	if (pid == -1 || waitpid(pid, &st, 0) == -1)
		snprintf(why, len, "cannot run it: %s", strerror(errno));
out:
	if (fd != -1)
		close(fd);
	unlink(pol);
	rmdir(dir);
	if (st == 0)
		return 0;
	/* One line, without the helper's "envshim: refused /bin/true: ". */
	if ((nl = strchr(why, '\n')) != NULL)
		*nl = '\0';
	if (strncmp(why, "envshim: refused /bin/true: ", 28) == 0)
		memmove(why, why + 28, strlen(why + 28) + 1);
	if (why[0] == '\0')
		snprintf(why, len, "it failed (%s %d)", WIFSIGNALED(st) ?
		    "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) :
		    WEXITSTATUS(st));
	return -1;
}

/*
 * The sandbox as the shim will use it: the real helper when there is one
 * (so an AppArmor profile made for it counts), else this process.
 */
static void
check_userns(struct doc *d, const char *helper)
{
	char	 why[ES_PATH_MAX], msg[ES_PATH_MAX + 64];
	char	 fix[ES_PATH_MAX + 256], *hint;
	long	 max = sysctl_num("/proc/sys/user/max_user_namespaces");
	long	 clone = sysctl_num("/proc/sys/kernel/unprivileged_userns_clone");
	long	 aa = sysctl_num(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	int	 e;

	if (helper != NULL) {
		if (try_helper(helper, why, sizeof(why)) == 0) {
			result(d, 1, "user namespaces", "the sandbox helper "
			    "ran a command confined", NULL);
			return;
		}
		/* The helper's reasons end in "; fix: ...". */
		if ((hint = strstr(why, "; fix: ")) != NULL) {
			*hint = '\0';
			hint += 7;
		}
		snprintf(msg, sizeof(msg), "the sandbox helper refused: %s",
		    why);
		if (aa == 1)
			snprintf(fix, sizeof(fix), "install the AppArmor "
			    "profile examples/apparmor/envshim-sandbox (in the "
			    "source, or under share/doc/envshim/ where envshim "
			    "is installed) with the path %s, or set sandbox "
			    "optional in your policy", helper);
		else
			snprintf(fix, sizeof(fix), "%s, or set sandbox optional "
			    "in your policy", hint != NULL ? hint :
			    "allow this user unprivileged user namespaces");
		result(d, 0, "user namespaces", msg, fix);
		return;
	}
	if ((e = try_userns()) == 0) {
		result(d, 1, "user namespaces", "usable by this user", NULL);
		return;
	}
	if (max == 0)
		result(d, 0, "user namespaces", "user.max_user_namespaces is 0",
		    "sudo sysctl -w user.max_user_namespaces=15000 (and set it "
		    "in /etc/sysctl.d/ to keep it)");
	else if (clone == 0)
		result(d, 0, "user namespaces",
		    "kernel.unprivileged_userns_clone is 0",
		    "sudo sysctl -w kernel.unprivileged_userns_clone=1 (and set "
		    "it in /etc/sysctl.d/ to keep it)");
	else if (aa == 1)
		result(d, 0, "user namespaces",
		    "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1)",
		    "install the AppArmor profile from the envshim examples "
		    "(examples/apparmor/) for envshim-sandbox, or set "
		    "sandbox optional in your policy");
	else {
		snprintf(msg, sizeof(msg), "unshare(CLONE_NEWUSER|CLONE_NEWNS) "
		    "failed: %s", strerror(e));
		result(d, 0, "user namespaces", msg,
		    "run envshim outside containers that forbid nested "
		    "namespaces, or set sandbox optional in your policy");
	}
}

/* dir of this binary, or "" */
static void
selfdir(char *buf, size_t len)
{
	char	self[PATH_MAX];
	ssize_t	n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	buf[0] = '\0';
	if (n > 0) {
		self[n] = '\0';
		snprintf(buf, len, "%s", dirname(self));
	}
}

/* name next to this binary, else in the installed dir: path into buf. */
static int
find_file(const char *name, const char *installed, char *buf, size_t len)
{
	char	dir[PATH_MAX];

	selfdir(dir, sizeof(dir));
	if (dir[0] && (size_t)snprintf(buf, len, "%s/%s", dir, name) < len &&
	    access(buf, F_OK) == 0)
		return 0;
	snprintf(buf, len, "%s/%s", installed, name);
	return access(buf, F_OK);
}

static void
check_files(struct doc *d)
{
	char		p[PATH_MAX + 64], msg[PATH_MAX + 128];
	struct stat	st;

	if (find_file("libenvshim.so", ES_LIBDIR, p, sizeof(p)) == -1 ||
	    access(p, R_OK) == -1) {
		snprintf(msg, sizeof(msg), "not found next to envshim or in %s",
		    ES_LIBDIR);
		result(d, 0, "shim", msg, "make && sudo make install");
	} else
		result(d, 1, "shim", p, NULL);
	if (find_file("envshim-sandbox", ES_LIBEXECDIR, p, sizeof(p)) == -1 ||
	    stat(p, &st) == -1) {
		snprintf(msg, sizeof(msg), "not found next to envshim or in %s",
		    ES_LIBEXECDIR);
		result(d, 0, "sandbox helper", msg, "make && sudo make install");
		return;
	}
	if (!S_ISREG(st.st_mode) || access(p, X_OK) == -1) {
		snprintf(msg, sizeof(msg), "%s is not executable", p);
		result(d, 0, "sandbox helper", msg, "chmod 755 on it, or "
		    "reinstall with make install");
	} else if (st.st_mode & (S_ISUID | S_ISGID)) {
		snprintf(msg, sizeof(msg), "%s is setuid or setgid", p);
		result(d, 0, "sandbox helper", msg, "chmod ug-s on it: "
		    "envshim-sandbox must never run with privileges");
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(msg, sizeof(msg), "%s is writable by group or others",
		    p);
		result(d, 0, "sandbox helper", msg, "chmod go-w on it");
	} else
		result(d, 1, "sandbox helper", p, NULL);
}

/*
 * envshim --contain really made here (in a child): optional, so a
 * failure is reported with its fix but does not fail the doctor.
 */
static void
check_contain(struct doc *d)
{
	char	shim[PATH_MAX + 64], why[ES_PATH_MAX + 256];

	if (find_file("libenvshim.so", ES_LIBDIR, shim, sizeof(shim)) == -1)
		return;
	if (es_contain_probe(shim, why, sizeof(why)) == 0) {
		result(d, 1, "contain mode", "an overlay on /etc in a user "
		    "namespace works (envshim --contain)", NULL);
		return;
	}
	printf("%s--  %s contain mode: unavailable: %s\n     fix: %s; only "
	    "agents the shim cannot enter need it\n",
	    d->colour ? "\033[33m" : "", d->colour ? "\033[0m" : "", why,
	    getuid() == 0 ? "run agents as an ordinary user" : "needs "
	    "unprivileged user namespaces and overlayfs (Linux 5.11 or later)");
}

/* "ID ID 1" into a /proc map file of this process. */
static int
map_self(const char *file, unsigned long id)
{
	char	buf[64];
	int	fd, n, ok;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = snprintf(buf, sizeof(buf), "%lu %lu 1\n", id, id);
	ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * What a session's sandbox mounts, tried in a child: a user and mount
 * namespace with an overlay (userxattr, volatile) whose upper layer is
 * in /tmp, as the session's home layer is.  0, or -1 with why.
 */
static int
home_layer_probe(char *why, size_t len)
{
	char	dir[] = "/tmp/envshim-probe.XXXXXX", path[64], opts[256];
	static const char *const sub[] = { "lower", "upper", "work", "merged" };
	int	p[2], st, e = 0;
	size_t	i;
	pid_t	pid;

	if (mkdtemp(dir) == NULL) {
		snprintf(why, len, "cannot make a directory in /tmp: %s",
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		(void)mkdir(path, 0700);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s/lower,upperdir=%s/upper,"
	    "workdir=%s/work,userxattr,volatile", dir, dir, dir);
	snprintf(path, sizeof(path), "%s/merged", dir);
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		(void)es_session_remove(dir);
		return -1;
	}
	if (pid == 0) {
		uid_t u = getuid();
		gid_t g = getgid();
		int fd;

		close(p[0]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
			e = errno;
		else if (map_self("/proc/self/uid_map", u) == -1 ||
		    ((fd = open("/proc/self/setgroups", O_WRONLY)) != -1 &&
		    (write(fd, "deny", 4) != 4 || close(fd) == -1)) ||
		    map_self("/proc/self/gid_map", g) == -1)
			e = errno ? errno : EPERM;
		else if (mount("overlay", path, "overlay", 0, opts) == -1)
			e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = ECHILD;
	close(p[0]);
	(void)waitpid(pid, &st, 0);
	(void)es_session_remove(dir);
	if (e == 0)
		return 0;
	snprintf(why, len, "an overlay in a user namespace: %s", strerror(e));
	return -1;
}

/*
 * A session's copy-on-write home (docs/design.md, "The session"):
 * optional, so a failure says what it costs but does not fail the doctor.
 */
static void
check_session(struct doc *d)
{
	char	why[ES_PATH_MAX + 256];

	if (home_layer_probe(why, sizeof(why)) == 0) {
		result(d, 1, "session", "each agent run gets its own /tmp and "
		    "a copy-on-write home (overlayfs in a user namespace)",
		    NULL);
		return;
	}
	printf("%s--  %s session home: unavailable: %s\n     the home stays "
	    "read-only in the sandbox (tools cannot write their caches); "
	    "fix: Linux 5.11 or later with unprivileged overlayfs\n",
	    d->colour ? "\033[33m" : "", d->colour ? "\033[0m" : "", why);
}

static void
check_policy(struct doc *d, const char *file, struct es_policy *p)
{
	struct es_parse_err	err;
	char			msg[ES_PATH_MAX + 256], *s;
	size_t			i, n = 0;

	if (es_policy_load_root(p, file, &err) == -1) {
		es_parse_err_str(&err, msg, sizeof(msg));
		result(d, 0, "policy", msg, "correct that line; "
		    "envshim-policy(5) lists the keywords");
		p->nlayers = 0;
		return;
	}
	n = snprintf(msg, sizeof(msg), "%zu layer%s valid:", p->nlayers,
	    p->nlayers == 1 ? "" : "s");
	for (i = 0; i < p->nlayers && n < sizeof(msg); i++)
		n += snprintf(msg + n, sizeof(msg) - n, " %s",
		    p->layer_name[i]);
	for (s = msg; *s; s++)
		if ((unsigned char)*s < 0x20)
			*s = '?';
	result(d, 1, "policy", msg, NULL);
}

static void
check_system(struct doc *d)
{
	struct utsname	u;
	char		msg[512];
	int		maj = 0, min = 0, abi;
	const char	*gv = gnu_get_libc_version();

	sscanf(gv, "%d.%d", &maj, &min);
	snprintf(msg, sizeof(msg), "glibc %s", gv);
	result(d, maj > 2 || (maj == 2 && min >= 17), "libc", msg,
	    "envshim needs glibc 2.17 or later");
	if (uname(&u) == -1)
		snprintf(u.release, sizeof(u.release), "unknown");
	sscanf(u.release, "%d.%d", &maj, &min);
	snprintf(msg, sizeof(msg), "Linux %s", u.release);
	result(d, maj > 3 || (maj == 3 && min >= 8), "kernel", msg,
	    "user namespaces need Linux 3.8 or later");
	result(d, access("/proc/self/exe", F_OK) == 0 &&
	    access("/proc/self/ns/user", F_OK) == 0, "/proc",
	    access("/proc/self/ns/user", F_OK) == 0 ? "mounted, with "
	    "namespace files" : "missing /proc/self/exe or /proc/self/ns/user",
	    "mount proc on /proc: the shim reads /proc/self/exe and "
	    "/proc/self/ns");
	/* Not a failure: older kernels leave a documented gap instead. */
	abi = es_landlock_abi();
	if (abi >= ES_LANDLOCK_SCOPE_ABI)
		snprintf(msg, sizeof(msg), "ABI %d: abstract sockets and "
		    "signals outside the sandbox are out of reach", abi);
	else
		snprintf(msg, sizeof(msg), "no scoping (ABI %d, needs %d, "
		    "Linux 6.12): with network on, the sandbox reaches "
		    "abstract sockets outside; 'network off' cuts them",
		    abi, ES_LANDLOCK_SCOPE_ABI);
	result(d, 1, "landlock", msg, NULL);
}

/* Can the log file be appended to (creating its directory as the shim would)? */
static void
check_log(struct doc *d, const struct es_policy *p)
{
	char		 path[ES_PATH_MAX], msg[ES_PATH_MAX + 64];
	const char	*h = getenv("HOME");
	int		 fd;

	if (p->nlayers > 0 && p->log == ES_LOG_OFF) {
		result(d, 1, "log", "off (policy says log off)", NULL);
		return;
	}
	if (p->nlayers > 0 && p->log == ES_LOG_STDERR) {
		result(d, 1, "log", "stderr", NULL);
		return;
	}
	if (p->nlayers > 0 && p->log == ES_LOG_SYSLOG) {
		result(d, access("/dev/log", W_OK) == 0, "log", "syslog",
		    "start a syslog daemon (/dev/log is missing), or set "
		    "log to a file");
		return;
	}
	if (es_log_file(p->nlayers > 0 ? p : NULL, h, path, sizeof(path)) != 0) {
		result(d, 0, "log", "no log file: neither XDG_STATE_HOME nor "
		    "HOME is set", "set HOME, or a log line in the policy");
		return;
	}
	fd = es_log_create(path);
	if (fd == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(errno));
		result(d, 0, "log", msg, "make the directory writable, or "
		    "choose another with a log line in the policy");
		return;
	}
	snprintf(msg, sizeof(msg), "%s (writable)", path);
	result(d, 1, "log", msg, NULL);
}

int
es_cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct doc		 d = { 0, es_cmd_colour(stdout) };
	struct es_policy	*p;
	char			 helper[PATH_MAX + 64];
	const char		*file = NULL;
	int			 c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			file = optarg;
			break;
		case 'h':
			puts("usage: envshim doctor [--policy FILE]");
			return 0;
		default:
			fputs("usage: envshim doctor [--policy FILE]\n", stderr);
			return ES_EXIT_FAIL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "envshim doctor: unexpected '%s'\n"
		    "usage: envshim doctor [--policy FILE]\n", argv[optind]);
		return ES_EXIT_FAIL;
	}
	if ((p = malloc(sizeof(*p))) == NULL) {
		fputs("envshim doctor: out of memory\n", stderr);
		return ES_EXIT_FAIL;
	}
	check_userns(&d, find_file("envshim-sandbox", ES_LIBEXECDIR, helper,
	    sizeof(helper)) == 0 && access(helper, X_OK) == 0 ? helper : NULL);
	check_files(&d);
	check_contain(&d);
	check_session(&d);
	check_policy(&d, es_cmd_policy_file(file), p);
	check_system(&d);
	check_log(&d, p);
	free(p);
	if (d.fails > 0)
		printf("\n%d check%s failed\n", d.fails, d.fails == 1 ? "" : "s");
	else
		printf("\nall checks passed\n");
	return d.fails > 0 ? 1 : 0;
}
