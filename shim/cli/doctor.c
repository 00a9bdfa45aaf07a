/*
 * doctor.c - "envshim doctor": can this system and user run envshim,
 * and if not, what to change.  One line per check; a failing check says
 * the fix.  Exit 0 only when every check passes and no file shells can
 * read looks like a credential.
 *
 * Checks are made by doing the thing where possible (a child really
 * unshares a user namespace; the log directory is really opened), since
 * sysctls only explain a failure, they do not predict success.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <dirent.h>
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

#include "es_hide.h"
#include "es_load.h"
#include "es_root.h"
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
	int	readable;	/* credential-like files shells can read */
	int	revealed;	/* stores the policy shows them on purpose */
	int	quiet;		/* count the readable ones, print nothing */
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
 * Runs argv (argv[0] is the file) in a scratch workspace, next to a
 * policy of "sandbox all" and "log off" (its path replaces the argument
 * "POLICY"; outside the workspace, where envshim refuses a policy the
 * agent's commands could rewrite), with stdin from /dev/null, stderr
 * and (out_too) stdout into out, and token set as GITHUB_TOKEN when not
 * NULL.  The probes of doctor run the real programs this way.  Returns
 * the wait status, or -1 with why.
 */
static int
probe_run(char **argv, int out_too, const char *token, char *out,
    size_t len)
{
	static const char pol_text[] = "sandbox all\nlog off\n";
	char	 dir[] = "/tmp/envshim-doctor.XXXXXX", pol[sizeof(dir) + 8];
	char	 ws[sizeof(dir) + 4];
	size_t	 n = 0, i;
	ssize_t	 r;
	pid_t	 pid = -1;
	int	 p[2] = { -1, -1 }, fd, st = -1;

	out[0] = '\0';
	if (mkdtemp(dir) == NULL) {
		snprintf(out, len, "cannot make a scratch workspace: %s",
		    strerror(errno));
		return -1;
	}
	snprintf(pol, sizeof(pol), "%s/policy", dir);
	snprintf(ws, sizeof(ws), "%s/ws", dir);
	for (i = 0; argv[i] != NULL; i++)
		if (strcmp(argv[i], "POLICY") == 0)
			argv[i] = pol;
	fd = open(pol, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, pol_text, sizeof(pol_text) - 1) !=
	    (ssize_t)sizeof(pol_text) - 1 || chmod(dir, 0755) == -1 ||
	    mkdir(ws, 0755) == -1 || pipe2(p, O_CLOEXEC) == -1) {
		snprintf(out, len, "cannot prepare the probe: %s",
		    strerror(errno));
		goto done;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		fd = open("/dev/null", O_RDWR);
		if (fd == -1 || dup2(fd, 0) == -1 ||
		    dup2(out_too ? p[1] : fd, 1) == -1 || dup2(p[1], 2) == -1 ||
		    chdir(ws) == -1 || setenv("ENVSHIM_WORKSPACE", ws, 1) == -1 ||
		    (token != NULL && setenv("GITHUB_TOKEN", token, 1) == -1))
			_exit(125);
		unsetenv("ENVSHIM_CONFIG");
		unsetenv("ENVSHIM_SANDBOX_NS");
		unsetenv("LD_PRELOAD");
		execv(argv[0], argv);
		dprintf(2, "cannot execute it: %s\n", strerror(errno));
		_exit(126);
	}
	close(p[1]);
	p[1] = -1;
	while (pid > 0 && n + 1 < len &&
	    (r = read(p[0], out + n, len - 1 - n)) > 0)
		n += r;
	out[n] = '\0';
	if (pid == -1 || waitpid(pid, &st, 0) == -1) {
		snprintf(out, len, "cannot run it: %s", strerror(errno));
		st = -1;
	}
done:
	for (i = 0; i < 2; i++)
		if (p[i] != -1)
			close(p[i]);
	if (fd != -1)
		close(fd);
	unlink(pol);
	rmdir(ws);
	rmdir(dir);
	return st;
}

/*
 * Runs the helper itself on /bin/true in a scratch workspace, with the
 * built-in policy, "sandbox all" and "log off": the helper, not this
 * command, is what an AppArmor profile or a container lets make
 * namespaces.  0 when the command ran confined; else -1, with the
 * helper's own reason (it names the cause and the fix) in why.
 */
static int
try_helper(const char *helper, char *why, size_t len)
{
	char	*argv[] = { (char *)helper, (char *)"--policy", (char *)"POLICY",
		    (char *)"--", (char *)"/bin/true", NULL };
	char	*nl;
	int	 st = probe_run(argv, 0, NULL, why, len);

	if (st == 0)
		return 0;
	/* One line, without the helper's "envshim: refused /bin/true: ". */
	if ((nl = strchr(why, '\n')) != NULL)
		*nl = '\0';
	if (strncmp(why, "envshim: refused /bin/true: ", 28) == 0)
		memmove(why, why + 28, strlen(why + 28) + 1);
	if (why[0] == '\0' && st != -1)
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
 * Contain mode as a user gets it: this very command runs `envshim
 * --contain -- /bin/sh -c ...` in a scratch workspace, with a token in
 * the environment, "sandbox all" and "log off" on top of the
 * user's layers.  The shell must come up through /etc/ld.so.preload,
 * filtered (no token) and in a sandbox of its own (another user
 * namespace).  0, or -1 with why: envshim's own line when it refused.
 */
static int
try_contain(char *why, size_t len)
{
	char	 out[1024], self[PATH_MAX], want[128], *nl;
	char	*argv[] = { self, (char *)"--contain", (char *)"--policy",
		    (char *)"POLICY", (char *)"--", (char *)"/bin/sh", (char *)"-c",
		    (char *)"echo \"probe ${GITHUB_TOKEN:-none} "
		    "$(readlink /proc/self/ns/user)\"", NULL };
	ssize_t	 r;
	int	 st;

	r = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[r > 0 ? r : 0] = '\0';
	r = readlink("/proc/self/ns/user", want, sizeof(want) - 1);
	want[r > 0 ? r : 0] = '\0';
	st = probe_run(argv, 1, "ghp_envshimdoctorprobe0123456789abcdefgh",
	    out, sizeof(out));
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
	if (st == 0 && strncmp(out, "probe none user:", 16) == 0 &&
	    strcmp(out + 11, want) != 0)
		return 0;
	if (strncmp(out, "probe ", 6) == 0)
		snprintf(why, len, "a shell it started %s", strncmp(out,
		    "probe none ", 11) != 0 ? "kept a token it must lose" :
		    "ran outside a sandbox");
	else if (strncmp(out, "envshim: --contain: ", 20) == 0)
		snprintf(why, len, "%s", out + 20);
	else
		snprintf(why, len, "%s", out[0] != '\0' ? out :
		    "it failed without saying why");
	return -1;
}

/*
 * envshim --contain really run here: optional, so a failure is
 * reported with its fix but does not fail the doctor.
 */
static void
check_contain(struct doc *d, int policy_ok)
{
	char		 why[ES_PATH_MAX + 256];
	const char	*fix;

	if (!policy_ok) {
		/* it reads the same layers: it would fail on them alone */
		printf("%s--  %s contain mode: not tried: the policy is "
		    "refused (above)\n", d->colour ? "\033[33m" : "",
		    d->colour ? "\033[0m" : "");
		return;
	}
	if (try_contain(why, sizeof(why)) == 0) {
		result(d, 1, "contain mode", "envshim --contain ran a shell, "
		    "filtered and sandboxed", NULL);
		return;
	}
	/* the fix for what went wrong, not for what usually does */
	if (strstr(why, "libenvshim.so") != NULL ||
	    strstr(why, "not found") != NULL ||
	    strstr(why, "not installed") != NULL)
		fix = "make && sudo make install";
	else if (strstr(why, "overlay") != NULL)
		fix = "Linux 5.11 or later with unprivileged overlayfs; only "
		    "agents the shim cannot enter need it";
	else if (strstr(why, "namespace") != NULL)
		fix = "needs unprivileged user namespaces (see user namespaces "
		    "above); only agents the shim cannot enter need it";
	else
		fix = "what envshim --contain said above is the cause; only "
		    "agents the shim cannot enter need contain mode";
	printf("%s--  %s contain mode: unavailable: %s\n     fix: %s\n",
	    d->colour ? "\033[33m" : "", d->colour ? "\033[0m" : "", why,
	    fix);
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
 * in directory in, as the home's layer is: the sessions' base for a
 * session's, the state directory for a kept one (NFS there refuses it;
 * a tmpfs without user xattrs, before Linux 6.6, too).  Then the
 * home's mask (docs/design.md, "Hidden paths"): a tmpfs with a whiteout,
 * a layer between the upper and the lower, must hide a file made in the
 * lower after the mount.  0, or -1 with why; *mask 0, or the errno that
 * kept the mask from working (-1: a file below its whiteout was seen).
 */
static int
home_layer_probe(const char *in, char *why, size_t len, int *mask)
{
	char	dir[ES_PATH_MAX], path[ES_PATH_MAX + 16];
	char	opts[6 * ES_PATH_MAX + 128];
	static const char *const sub[] = { "lower", "upper", "work", "work2",
	    "merged", "mask" };
	int	p[2], st, e[2] = { 0, 0 };
	size_t	i;
	pid_t	pid;

	*mask = 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/envshim-probe.XXXXXX",
	    in) >= sizeof(dir) || mkdtemp(dir) == NULL) {
		snprintf(why, len, "cannot make a directory in %s: %s", in,
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		(void)mkdir(path, 0700);
	}
	fflush(stdout);
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		snprintf(why, len, "cannot fork: %s", strerror(errno));
		(void)es_session_remove(dir);
		return -1;
	}
	if (pid == 0) {
		uid_t u = getuid();
		gid_t g = getgid();
		struct stat sb;
		int fd;

		close(p[0]);
		snprintf(path, sizeof(path), "%s/merged", dir);
		snprintf(opts, sizeof(opts), "lowerdir=%s/lower,"
		    "upperdir=%s/upper,workdir=%s/work,userxattr,volatile", dir,
		    dir, dir);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
			e[0] = errno;
		else if (map_self("/proc/self/uid_map", u) == -1 ||
		    ((fd = open("/proc/self/setgroups", O_WRONLY)) != -1 &&
		    (write(fd, "deny", 4) != 4 || close(fd) == -1)) ||
		    map_self("/proc/self/gid_map", g) == -1)
			e[0] = errno ? errno : EPERM;
		else if (mount("overlay", path, "overlay", 0, opts) == -1 ||
		    umount2(path, MNT_DETACH) == -1)
			e[0] = errno;
		/*
		 * The mask: a whiteout on a tmpfs, a layer between; a file
		 * made below it after the mount must stay unseen.
		 */
		snprintf(opts, sizeof(opts), "lowerdir=%s/mask/a:%s/mask/b:"
		    "%s/lower,upperdir=%s/upper,workdir=%s/work2,userxattr,"
		    "volatile", dir, dir, dir, dir, dir);
		snprintf(path, sizeof(path), "%s/mask", dir);
		if (e[0] == 0 && (mount("tmpfs", path, "tmpfs", 0, NULL) == -1 ||
		    chdir(path) == -1 || mkdir("a", 0700) == -1 ||
		    mkdir("b", 0700) == -1 ||
		    mknod("b/login", S_IFCHR, 0) == -1 || chdir(dir) == -1 ||
		    mount("overlay", "merged", "overlay", 0, opts) == -1 ||
		    (fd = open("lower/login", O_WRONLY | O_CREAT | O_CLOEXEC,
		    0600)) == -1 || close(fd) == -1))
			e[1] = errno;
		else if (e[0] == 0 && stat("merged/login", &sb) == 0)
			e[1] = -1;
		(void)!write(p[1], e, sizeof(e));
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], e, sizeof(e)) != (ssize_t)sizeof(e))
		e[0] = ECHILD;
	close(p[0]);
	(void)waitpid(pid, &st, 0);
	(void)es_session_remove(dir);
	*mask = e[1];
	if (e[0] == 0)
		return 0;
	snprintf(why, len, "an overlay in a user namespace: %s",
	    strerror(e[0]));
	return -1;
}

/*
 * A session's copy-on-write home (docs/design.md, "The session"):
 * optional, so a failure says what it costs but does not fail the doctor.
 * Without the overlay the fallback is in use: the caches' directories
 * (es_home_cache) that exist in this home are the session's.
 */
static void
check_session(struct doc *d, const struct es_policy *p)
{
	char	why[2 * ES_PATH_MAX + 256], dir[ES_PATH_MAX], rh[ES_PATH_MAX];
	char	base[ES_PATH_MAX];
	const char *home = getenv("HOME");
	struct stat st;
	size_t	i, n = 0;
	char	*s;
	int	kept = p->nlayers > 0 && p->home_layer == ES_LAYER_WORKSPACE;
	int	mask;
	const char *fix = "Linux 5.11 or later with unprivileged overlayfs";

	/* where a run's session goes, made and checked as the run does */
	if (es_session_base_make(base, sizeof(base), why, sizeof(why),
	    &fix) != 0) {
		result(d, 0, "session", why, fix);
		printf("     without a session each shell gets an empty /tmp "
		    "and a read-only home\n");
		return;
	}
	fix = "Linux 5.11 or later with unprivileged overlayfs";

	/* a kept layer's directory, made as the sandbox makes it */
	if (kept && es_layer_dir(home, NULL, dir, sizeof(dir)) != 0)
		kept = 0;
	for (s = dir + 1; kept && (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(dir, 0700);
		*s = '/';
	}
	if (kept && mkdir(dir, 0700) == -1 && errno != EEXIST)
		kept = 0;
	if (home_layer_probe(kept ? dir : base, why, sizeof(why),
	    &mask) == 0) {
		if (home == NULL || realpath(home, rh) == NULL ||
		    strpbrk(rh, ",:\\") == NULL) {
			if (!kept || es_layer_dir(home, NULL, dir,
			    sizeof(dir)) != 0)
				snprintf(dir, sizeof(dir), "discarded with "
				    "the session");
			result(d, 1, "session", "each agent run gets its own "
			    "/tmp and a copy-on-write home (overlayfs in a "
			    "user namespace)", NULL);
			printf("     sessions in: %s\n", base);
			printf("     home layer: %s%s\n", kept ? "kept per "
			    "workspace in " : "", dir);
			if (mask == 0) {
				printf("     a credential file made in the "
				    "home while a shell runs is hidden from "
				    "it too (whiteouts below the layer)\n");
				return;
			}
			printf("%s--  %s session mask: %s: a credential file "
			    "made in the home while a shell runs is readable "
			    "by that shell until it ends; the next one does "
			    "not see it\n", d->colour ? "\033[33m" : "",
			    d->colour ? "\033[0m" : "", mask == -1 ? "a file "
			    "below a whiteout was seen" : strerror(mask));
			return;
		}
		snprintf(why, sizeof(why), "the home's path %s holds ',', "
		    "':' or '\\', which overlay's options cannot carry", rh);
		fix = "a home path without ',' ':' '\\'";
	}
	printf("%s--  %s session home: fallback: %s\n     the caches' "
	    "directories are the session's, writable:",
	    d->colour ? "\033[33m" : "", d->colour ? "\033[0m" : "", why);
	for (i = 0; i < es_home_ncache; i++)
		if (home != NULL && snprintf(dir, sizeof(dir), "%s%s", home,
		    es_home_cache[i].path + 1) < (int)sizeof(dir) &&
		    stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			printf(" %s", es_home_cache[i].path);
			n++;
		}
	printf("%s\n     the rest of the home stays read-only, and a cache "
	    "directory missing in the home cannot be made; a credential "
	    "file made or renamed into place in the home while a shell runs "
	    "is readable by that shell until it ends; fix: %s\n",
	    n == 0 ? " none exist here" : "", fix);
	printf("     sessions in: %s\n", base);
}

/*
 * What to do about a refused policy: a line to correct, or the file
 * itself (unreadable, missing, open to others), as the error says.
 */
static const char *
policy_fix(const struct es_parse_err *err, char *buf, size_t len)
{
	const char *f = err->file != NULL ? err->file : "the file";
	const char *w = err->what;

	if (err->line > 0)
		return "correct that line; envshim-policy(5) lists the keywords";
	if (strstr(w, "Permission denied") != NULL)
		snprintf(buf, len, "make it readable (chmod u+r %s)", f);
	else if (strstr(w, "No such file") != NULL)
		snprintf(buf, len, "create it, or name another with --policy");
	else if (strstr(w, "owned by another user") != NULL)
		snprintf(buf, len, "use a file of yours or root's (cp it, then "
		    "name the copy)");
	else if (strstr(w, "(chmod go-w") != NULL) {
		/* "chmod go-w DIR)": without the parenthesis */
		snprintf(buf, len, "%s", strstr(w, "(chmod go-w") + 1);
		if (strchr(buf, ')') != NULL)
			*strchr(buf, ')') = '\0';
	} else
		snprintf(buf, len, "what the line above says: envshim reads "
		    "no policy it refuses");
	return buf;
}

/* Loads and checks the policy layers; 1 when they are valid. */
static int
check_policy(struct doc *d, const char *file, struct es_policy *p)
{
	struct es_parse_err	err;
	char			msg[ES_PATH_MAX + 256], fix[ES_PATH_MAX + 64], *s;
	size_t			i, n = 0;

	if (es_policy_load_root(p, file, &err) == -1) {
		es_parse_err_str(&err, msg, sizeof(msg));
		result(d, 0, "policy", msg, policy_fix(&err, fix, sizeof(fix)));
		p->nlayers = 0;
		return 0;
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
	return 1;
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

/*
 * Can the records be kept, checked as the launch root checks them at the
 * start of a run (es_log_ready): the log file made if missing and opened
 * for appending, or syslog's socket connected.  Under `log-required yes`
 * no agent starts without it.
 */
static void
check_log(struct doc *d, const struct es_policy *p)
{
	char		 path[ES_PATH_MAX], msg[ES_PATH_MAX + 64];
	char		 why[2 * ES_PATH_MAX], fix[ES_PATH_MAX + 64];
	const char	*h = getenv("HOME");

	if (p->nlayers > 0 && p->log == ES_LOG_OFF) {
		result(d, 1, "log", "off (policy says log off)", NULL);
		return;
	}
	if (p->nlayers > 0 && p->log == ES_LOG_STDERR) {
		result(d, 1, "log", "stderr", NULL);
		return;
	}
	if (es_log_ready(p, h, path, sizeof(path), why, sizeof(why), fix,
	    sizeof(fix)) != 0) {
		if (p->log_required)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
			    " (log-required yes: no agent starts)");
		else
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
			    " (runs go on, unrecorded)");
		result(d, 0, "log", why, fix);
		return;
	}
	if (path[0] == '\0')
		snprintf(msg, sizeof(msg), "syslog (/dev/log listens)");
	else
		snprintf(msg, sizeof(msg), "%s (writable)", path);
	result(d, 1, "log", msg, NULL);
}

/* The hidden paths found on this machine, for the credential checks. */
struct found {
	char		**path;
	char		**why;		/* a build config's credential, or NULL */
	unsigned char	 *group;	/* its entry's group */
	size_t		  n, cap;
	int		  oom;
	unsigned char	  cur;		/* the group of the entry expanded now */
	int		  ifsecret;	/* ... which is ES_HIDE_IFSECRET */
	const char	 *home;
	const struct es_policy *p;
	int		  builtin;	/* the list's exceptions apply */
};

static void
found_add(void *arg, const char *path, int isdir)
{
	struct found *f = arg;
	unsigned char *ng;
	char **np, **nw, *p, why[128], *w = NULL;
	size_t i;

	if (f->builtin && es_hide_kept(path, f->home))
		return;
	/* build configuration: hidden, as the sandbox does, only with a key */
	if (f->ifsecret && !isdir) {
		if (!es_hide_holds(path, f->p, why, sizeof(why)))
			return;
		if ((w = strdup(why)) == NULL) {
			f->oom = 1;
			return;
		}
	}
	/* two entries for one file ($XDG_CONFIG_HOME/gh and ~/.config/gh) */
	for (i = 0; i < f->n; i++)
		if (strcmp(f->path[i], path) == 0) {
			free(w);
			return;
		}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		if ((np = realloc(f->path, f->cap * sizeof(*np))) == NULL ||
		    (f->path = np, (nw = realloc(f->why, f->cap *
		    sizeof(*nw))) == NULL) ||
		    (f->why = nw, (ng = realloc(f->group, f->cap)) == NULL)) {
			free(w);
			f->oom = 1;
			return;
		}
		f->group = ng;
	}
	if ((p = strdup(path)) == NULL) {
		free(w);
		f->oom = 1;
		return;
	}
	f->group[f->n] = f->cur;
	f->why[f->n] = w;
	f->path[f->n++] = p;
}

static void
found_free(struct found *f)
{
	while (f->n > 0) {
		free(f->path[--f->n]);
		free(f->why[f->n]);
	}
	free(f->path);
	free(f->why);
	free(f->group);
	f->path = NULL;
	f->why = NULL;
	f->group = NULL;
	f->cap = 0;
}

/* path as the user writes it: the home as "~", no raw bytes. */
static void
put_path(const char *path, const char *home)
{
	size_t n = home != NULL ? strlen(home) : 0;

	if (n > 0 && strncmp(path, home, n) == 0 && path[n] == '/') {
		fputs("~", stdout);
		path += n;
	}
	es_cmd_putname(stdout, path, strlen(path));
}

/* Is path hidden: one of the hidden paths, or below one? */
static int
is_hidden(const struct found *f, const char *path)
{
	size_t i, n;

	for (i = 0; i < f->n; i++) {
		n = strlen(f->path[i]);
		if (strncmp(f->path[i], path, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* Does the policy reveal builtin entry e?  Its item, or NULL. */
static const struct es_item *
revealed(const struct es_policy *p, const struct es_hide_entry *e)
{
	size_t i;

	for (i = 0; p->nlayers > 0 && i < p->nreveal; i++)
		if (strcmp(p->reveal[i].s, e->path) == 0)
			return &p->reveal[i];
	return NULL;
}

static int
is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

/* Does a word start at name[i]: after a non-letter, or a camelCase hump? */
static int
word_start(const char *name, size_t i)
{
	char a = i > 0 ? name[i - 1] : '\0';

	return !(is_lower(a) || (a >= 'A' && a <= 'Z')) ||
	    (is_lower(a) && name[i] >= 'A' && name[i] <= 'Z');
}

/* Does a word end at name[j]: no lower-case letter goes on, but a plural s? */
static int
word_end(const char *name, size_t j)
{
	if (name[j] == 's' || name[j] == 'S')
		j++;
	return !is_lower(name[j]);
}

/*
 * A name that says "credential" (the research's patterns, as csandbox's
 * and firejail's lists use them), ASCII case ignored: each word whole,
 * or plural, or ending a camelCase part ("api-token.json", "apiToken",
 * "secrets.yaml", not "tokenizer.json").  A warning fails doctor, so
 * the words are the ones that mean a credential on their own.
 */
static int
credential_name(const char *name)
{
	static const char *const word[] = {
		"credential", "secret", "token", "password", "passwd",
		"apikey", "api_key", "private_key", "privatekey"
	};
	static const char *const tail[] = {
		".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx",
		".ovpn", ".asc", ".gpg", "_rsa", "_ed25519", "_ecdsa"
	};
	char low[NAME_MAX + 1];
	const char *at;
	size_t i, n = strlen(name), k;

	if (n > NAME_MAX)
		return 0;
	for (i = 0; i <= n; i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ?
		    name[i] - 'A' + 'a' : name[i]);
	if (strcmp(low, ".env") == 0 || strncmp(low, ".env.", 5) == 0 ||
	    strcmp(low, "auth.json") == 0)
		return 1;
	for (i = 0; i < sizeof(word) / sizeof(word[0]); i++)
		for (at = low; (at = strstr(at, word[i])) != NULL; at++)
			if (word_start(name, (size_t)(at - low)) &&
			    word_end(name, (size_t)(at - low) + strlen(word[i])))
				return 1;
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		k = strlen(tail[i]);
		if (n > k && strcmp(low + n - k, tail[i]) == 0)
			return 1;
	}
	return 0;
}

/* Files every shell must read: a secret there is moved out, not hidden. */
static int
shell_file(const char *name)
{
	static const char *const rc[] = {
		".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc",
		".zshenv", ".zprofile", ".gitconfig"
	};
	size_t i;

	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++)
		if (strcmp(name, rc[i]) == 0)
			return 1;
	return 0;
}

/*
 * The secret shape in a regular file's first 4 KiB, or NULL.  The bytes
 * are looked at, never shown.
 */
static const char *
secret_inside(const struct es_policy *p, const char *path)
{
	char buf[4096];
	const char *what = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (n = read(fd, buf, sizeof(buf))) <= 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	if (!es_secret_value(p->nlayers > 0 ? p : NULL, buf, (size_t)n, &what))
		what = NULL;
	return what;
}

/* One file of the home's top two levels that looks like a credential. */
static void
warn_unknown(struct doc *d, const struct es_policy *p, const char *path,
    const char *name, const char *home)
{
	const char *shape = secret_inside(p, path);
	int byname = credential_name(name);

	if (!byname && shape == NULL)
		return;
	d->readable++;
	if (d->quiet)
		return;
	printf("%s--  %s credential-like, not hidden: ", d->colour ?
	    "\033[33m" : "", d->colour ? "\033[0m" : "");
	put_path(path, home);
	if (shape != NULL)
		printf(" (its first 4 KiB hold a %s shape)\n", shape);
	else
		printf(" (by its name)\n");
	if (shell_file(name)) {
		printf("     fix: shells read it: move the secret out of it\n");
		return;
	}
	printf("     fix: add to your policy: hide ");
	put_path(path, home);
	putchar('\n');
}

/*
 * The top two levels of root: what the hide list does not know.  skip
 * names a directory of root scanned as a root of its own.
 */
static void
scan_root(struct doc *d, const struct es_policy *p, const struct found *f,
    const char *home, const char *root, const char *skip)
{
	char path[ES_PATH_MAX], sub[ES_PATH_MAX];
	struct dirent *de, *de2;
	struct stat st;
	DIR *top, *dir;

	if (is_hidden(f, root) || (top = opendir(root)) == NULL)
		return;
	while ((de = readdir(top)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", root, de->d_name) >=
		    (int)sizeof(path) || is_hidden(f, path) ||
		    lstat(path, &st) == -1)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (S_ISREG(st.st_mode))
				warn_unknown(d, p, path, de->d_name, home);
			continue;
		}
		if ((skip != NULL && strcmp(de->d_name, skip) == 0) ||
		    (dir = opendir(path)) == NULL)
			continue;
		while ((de2 = readdir(dir)) != NULL) {
			if (de2->d_name[0] == '.' && (de2->d_name[1] == '\0' ||
			    (de2->d_name[1] == '.' && de2->d_name[2] == '\0')))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", path,
			    de2->d_name) >= (int)sizeof(sub) ||
			    is_hidden(f, sub) || lstat(sub, &st) == -1 ||
			    !S_ISREG(st.st_mode))
				continue;
			warn_unknown(d, p, sub, de2->d_name, home);
		}
		closedir(dir);
	}
	closedir(top);
}

/*
 * The home's top two levels, and those of ~/.config and ~/.local/share,
 * where most tools keep their files.
 */
static void
scan_home(struct doc *d, const struct es_policy *p, const struct found *f,
    const char *home)
{
	char root[ES_PATH_MAX];

	scan_root(d, p, f, home, home, ".config");
	snprintf(root, sizeof(root), "%s/.config", home);
	scan_root(d, p, f, home, root, NULL);
	snprintf(root, sizeof(root), "%s/.local/share", home);
	scan_root(d, p, f, home, root, NULL);
}

/*
 * Which credential stores this machine has and shells cannot read (names
 * only; a build config's with what makes it a credential), which the
 * policy reveals, and what looks like a credential but is not hidden:
 * warnings, each with the line that hides it, which fail the summary
 * (a shell can read it).
 */
static void
check_secrets(struct doc *d, const struct es_policy *p)
{
	const char *home = getenv("HOME");
	struct es_hide_dirs dirs;
	const struct es_item *r;
	struct found f, rev;
	char msg[160], e[ES_PATH_MAX];
	size_t i, j, n, nhidden;
	int rc = 0;

	if (home == NULL || home[0] != '/') {
		result(d, 1, "credential files", "HOME is not set: nothing to "
		    "look at", NULL);
		return;
	}
	memset(&dirs, 0, sizeof(dirs));
	memset(&f, 0, sizeof(f));
	memset(&rev, 0, sizeof(rev));
	f.home = rev.home = home;
	f.p = rev.p = p->nlayers > 0 ? p : NULL;
	f.builtin = rev.builtin = 1;
	for (i = 0; i < es_hide_n && rc == 0; i++) {
		if (es_hide_list[i].flags & ES_HIDE_KEEP)
			continue;
		r = revealed(p, &es_hide_list[i]);
		/* the group names the reveal line: its index among them */
		rev.cur = r != NULL ? (unsigned char)(r - p->reveal) : 0;
		f.cur = es_hide_list[i].group;
		f.ifsecret = rev.ifsecret = (es_hide_list[i].flags &
		    ES_HIDE_IFSECRET) != 0;
		rc = es_hide_expand(&dirs, es_hide_list[i].path, home,
		    found_add, r != NULL ? &rev : &f);
	}
	nhidden = f.n;
	/* the policy's own hide lines count as hidden, not as unknown */
	f.builtin = 0;
	f.ifsecret = 0;
	for (i = 0; p->nlayers > 0 && i < p->nhide && rc == 0; i++)
		if (p->hide[i].s[0] == '/' || p->hide[i].s[0] == '~') {
			snprintf(e, sizeof(e), "%s%s", p->hide[i].s[0] == '~' ?
			    home : "", p->hide[i].s + (p->hide[i].s[0] == '~'));
			rc = es_hide_expand(&dirs, e, home, found_add, &f);
		}
	es_hide_dirs_free(&dirs);
	if (rc == -1 || f.oom || rev.oom) {
		result(d, 0, "credential files", "could not list them: out "
		    "of memory or a path too long", NULL);
		found_free(&f);
		found_free(&rev);
		return;
	}
	/* first count what shells can read: the check fails on it */
	d->quiet = 1;
	scan_home(d, p, &f, home);
	d->quiet = 0;
	n = (size_t)d->readable;
	d->readable = 0;
	if (n == 0)
		snprintf(msg, sizeof(msg), "%zu credential store%s on this "
		    "machine that shells see empty", nhidden,
		    nhidden == 1 ? "" : "s");
	else
		snprintf(msg, sizeof(msg), "%zu credential store%s that shells "
		    "see empty; %zu credential-like file%s they can read",
		    nhidden, nhidden == 1 ? "" : "s", n, n == 1 ? "" : "s");
	result(d, n == 0, "credential files", msg, NULL);
	for (j = 0; j < nhidden; j++) {
		printf("     hidden (%s): ", es_hide_groups[f.group[j]].name);
		put_path(f.path[j], home);
		if (f.why[j] != NULL)
			printf(" (%s)", f.why[j]);
		putchar('\n');
	}
	for (j = 0; j < rev.n; j++) {
		r = &p->reveal[rev.group[j]];
		printf("     revealed (%s:%u): ", p->layer_name[r->layer],
		    r->line);
		put_path(rev.path[j], home);
		if (rev.why[j] != NULL)
			printf(" (%s)", rev.why[j]);
		putchar('\n');
	}
	d->revealed += (int)rev.n;
	scan_home(d, p, &f, home);
	found_free(&f);
	found_free(&rev);
}

int
es_cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct doc		 d = { 0, es_cmd_colour(stdout), 0, 0, 0 };
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
			return es_cmd_try("envshim doctor");
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
	check_contain(&d, check_policy(&d, es_cmd_policy_file(file), p));
	check_session(&d, p);
	check_system(&d);
	check_log(&d, p);
	check_secrets(&d, p);
	free(p);
	/* a credential shells can read fails the credential check */
	if (d.fails > 0)
		printf("\n%d check%s failed\n", d.fails, d.fails == 1 ? "" : "s");
	else if (d.revealed > 0)
		printf("\nall checks passed; shells read the %d credential "
		    "store%s your policy reveals\n", d.revealed,
		    d.revealed == 1 ? "" : "s");
	else
		printf("\nall checks passed\n");
	return d.fails > 0 ? 1 : 0;
}
