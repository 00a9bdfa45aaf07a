/*
 * launch.c - what a launch is and what it will get: the target judged
 * from its head (shell, script, static, setuid, the agent itself), the
 * decision, the filtered environment and argv, and the audit record.
 *
 * Everything here can run between fork/vfork and exec: stack, the
 * read-only state, and async-signal-safe syscalls only.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/xattr.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "es_hide.h"
#include "es_load.h"
#include "shim.h"

/* statfs(2) f_flags: the kernel reports the mount flags (linux/statfs.h). */
#ifndef ST_VALID
#define ST_VALID	0x0020
#endif

/*
 * How the judge opens what it reads.  O_NONBLOCK: a FIFO named as the
 * program would otherwise block the launch until someone writes to it,
 * where the kernel refuses it at once (EACCES).
 */
#define JUDGE_OPEN	(O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

extern char **environ;

/* Appends s to dst (cap bytes); returns 0, or -1 when it would not fit. */
int
es_cat(char *dst, size_t cap, const char *s)
{
	size_t a = strlen(dst), b = strlen(s);

	if (a + b + 1 > cap)
		return -1;
	memcpy(dst + a, s, b + 1);
	return 0;
}

/* One line, one write: "envshim: refused PATH: WHY". */
void
es_say_refused(const char *path, const char *why)
{
	char line[ES_PATH_MAX + 512];

	line[0] = '\0';
	es_cat(line, sizeof(line), "envshim: refused ");
	if (es_cat(line, sizeof(line), path) != 0)
		es_cat(line, sizeof(line), "(long path)");
	es_cat(line, sizeof(line), ": ");
	es_cat(line, sizeof(line), why);
	es_cat(line, sizeof(line), "\n");
	/* Nothing useful can be done if stderr is gone. */
	(void)!write(2, line, strlen(line));
}

const char *
es_env_value(char *const *envp, const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the audit sink ---- */

/*
 * Inside the sandbox, where the log is not: to the helper's outer over
 * the socket init bound at ES_LOG_SOCK, which the outer marks and writes
 * (outer.c).  Only that socket, by the inode the helper named: one a
 * command put in its place gets nothing.  Never waits: what a full
 * socket cannot take is lost.
 */
static void
inside_write(const struct es_shim *s, const char *line, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = ES_LOG_SOCK };
	struct stat st;
	int fd;

	if (s->log_sock == 0 || lstat(ES_LOG_SOCK, &st) != 0 ||
	    !S_ISSOCK(st.st_mode) || (unsigned long long)st.st_ino != s->log_sock ||
	    (fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	(void)sendto(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
}

/* Best effort: a launch is never refused because its record was lost. */
static void
audit_write(const struct es_shim *s, const char *line, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd;

	if (s->inside && s->pol.log != ES_LOG_OFF && s->pol.log != ES_LOG_STDERR) {
		inside_write(s, line, len);
		return;
	}
	switch (s->pol.log) {
	case ES_LOG_OFF:
		return;
	case ES_LOG_STDERR:
		(void)!write(2, line, len);
		return;
	case ES_LOG_SYSLOG:
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return;
		/* LOG_AUTHPRIV|LOG_INFO; the JSON is the message. */
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			char msg[ES_LOG_LINE + 32] = "<86>envshim: ";
			size_t h = strlen(msg);

			if (len > sizeof(msg) - h)
				len = sizeof(msg) - h;
			memcpy(msg + h, line, len);
			(void)!send(fd, msg, h + len, MSG_NOSIGNAL);
		}
		close(fd);
		return;
	default:
		if (s->log_path[0] == '\0')
			return;
		if ((fd = es_log_open(s->log_path)) < 0)
			return;
		(void)es_log_append(fd, line, len);
		close(fd);
	}
}

/* ---- what is being launched ---- */

static const char *const action_names[] = { "run", "sandbox", "refused" };

/*
 * Interpreters whose agent is a script: node gemini.js re-launching
 * itself must keep its key, node build.js must not.
 */
static const char *const interpreters[] = {
	"node", "nodejs", "python", "perl", "ruby", "deno", "php",
};

/*
 * What an interpreter runs is its first non-option argument: the file
 * that decides whether `node X` is the agent.
 */
const char *
es_agent_script_arg(const char *exe, char *const *argv)
{
	const char *b = strrchr(exe, '/');
	size_t i, k;

	b = b != NULL ? b + 1 : exe;
	for (k = 0; k < sizeof(interpreters) / sizeof(interpreters[0]); k++)
		if (strncmp(b, interpreters[k], strlen(interpreters[k])) == 0)
			break;
	if (k == sizeof(interpreters) / sizeof(interpreters[0]))
		return NULL;
	for (i = 1; argv != NULL && argv[0] != NULL && argv[i] != NULL; i++)
		if (argv[i][0] != '-')
			return argv[i];
	return NULL;
}

/*
 * es_hash of the first non-option argument when exe is an interpreter,
 * else 0 (the executable alone identifies the agent).
 */
unsigned long long
es_agent_script(const char *exe, char *const *argv)
{
	const char *b = strrchr(exe, '/'), *arg = es_agent_script_arg(exe, argv);
	size_t k;

	if (arg != NULL)
		return es_hash(arg, strlen(arg)) | 1;
	b = b != NULL ? b + 1 : exe;
	for (k = 0; k < sizeof(interpreters) / sizeof(interpreters[0]); k++)
		if (strncmp(b, interpreters[k], strlen(interpreters[k])) == 0)
			return 1;	/* an interpreter with no script: a REPL */
	return 0;
}

/* A prefix test on real paths: what the agent's install holds is the agent's. */
int
es_in_install(const struct es_shim *s, const char *real)
{
	size_t i;

	for (i = 0; i < s->ntree; i++)
		if (strncmp(real, s->tree[i], s->tree_len[i]) == 0 &&
		    real[s->tree_len[i]] == '/')
			return 1;
	return 0;
}

/* v in decimal at the end of d[24]; returns where it starts.  AS-safe. */
static const char *
decimal(char d[24], unsigned long long v)
{
	size_t i = 23;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return d + i;
}

/*
 * The agent's identity as its children inherit it: the launch root's, or
 * the program the agent turned itself into by an exec of its own.
 */
char *
es_agent_var(char *buf, dev_t dev, ino_t ino, unsigned long long script, int self)
{
	char d[24];

	buf[0] = '\0';
	es_cat(buf, ES_CAP_AGENT, "ENVSHIM_AGENT=");
	es_cat(buf, ES_CAP_AGENT, decimal(d, (unsigned long long)dev));
	es_cat(buf, ES_CAP_AGENT, ":");
	es_cat(buf, ES_CAP_AGENT, decimal(d, (unsigned long long)ino));
	es_cat(buf, ES_CAP_AGENT, ":");
	es_cat(buf, ES_CAP_AGENT, decimal(d, script));
	if (self)
		es_cat(buf, ES_CAP_AGENT, ":1");
	return buf;
}

/* "/proc/self/fd/N" into buf (at least 32 bytes). */
char *
es_fd_path(char *buf, int fd)
{
	char d[12];
	int i = 0;
	size_t k = 14;

	memcpy(buf, "/proc/self/fd/", 14);
	do {
		d[i++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd > 0);
	while (i > 0)
		buf[k++] = d[--i];
	buf[k] = '\0';
	return buf;
}

/* busybox runs its sh applet when called as sh, or as "busybox sh". */
static int
busybox_shell(const char *resolved, char *const *argv)
{
	const char *b = strrchr(resolved, '/');

	b = b != NULL ? b + 1 : resolved;
	if (strcmp(b, "busybox") != 0 || argv == NULL || argv[0] == NULL)
		return 0;
	if (es_is_shell(NULL, argv[0]))
		return 1;
	return argv[1] != NULL && es_is_shell(NULL, argv[1]);
}

/*
 * es_sniff over an open file, with the further reads an ELF's headers
 * need, into the caller's one buffer (head, ES_SNIFF_HEAD bytes): stack
 * only, so the exec path can use it.  Returns what the first read gave
 * (-1: the file cannot be read).
 */
ssize_t
es_sniff_fd(int fd, unsigned char head[ES_SNIFF_HEAD], struct es_sniff *sn)
{
	ssize_t n = pread(fd, head, ES_SNIFF_HEAD, 0), r;
	int rounds = 0;

	es_sniff(head, n > 0 ? (size_t)n : 0, sn);
	while (sn->kind == ES_K_ELF_MORE) {
		if (++rounds > ES_SNIFF_ROUNDS || sn->want_len > ES_SNIFF_HEAD) {
			sn->kind = ES_K_ELF_UNKNOWN;
			break;
		}
		r = pread(fd, head, sn->want_len, (off_t)sn->want_off);
		es_sniff_more(head, r > 0 ? (size_t)r : 0, sn);
	}
	return n;
}

static void judge_interp(const struct es_shim *, const char *, struct es_target *);

/*
 * The real path of an open file or of a path, through procfs: readlink
 * is async-signal-safe, realpath is not.  Returns its length, or -1.
 */
static ssize_t
real_of(int fd, char *buf, size_t cap)
{
	char proc[32];
	ssize_t r = readlink(es_fd_path(proc, fd), buf, cap - 1);

	if (r <= 0 || (size_t)r >= cap - 1)
		return -1;
	buf[r] = '\0';
	return r;
}

/*
 * Is the file, or for an interpreter the script it runs (node cli.js),
 * part of the agent's install?  Then the agent hands itself over to it:
 * a launcher's native binary, another script of the same package.
 */
static void
install_member(const struct es_shim *s, int fd, char *const *argv,
    struct es_target *t)
{
	const char *script;
	int sfd;

	if (real_of(fd, t->handed_to, sizeof(t->handed_to)) < 0)
		return;
	if (!es_in_install(s, t->handed_to)) {
		script = es_agent_script_arg(t->handed_to, argv);
		if (script == NULL ||
		    (sfd = open(script, O_PATH | O_CLOEXEC)) < 0)
			return;
		if (real_of(sfd, t->handed_to, sizeof(t->handed_to)) < 0 ||
		    !es_in_install(s, t->handed_to)) {
			close(sfd);
			return;
		}
		close(sfd);
	}
	t->agent_file = 1;
	t->handed = 1;
}
static void script_identity(const struct es_sniff *, const char *,
    struct es_target *);

/*
 * Any program can be named as an ELF's loader; the kernel then runs it
 * and ld.so, with the shim, never does.  The path our own loader came
 * by is that loader (the exec happens in this mount namespace); any
 * other path is compared by file.  A loader that cannot be stat'ed makes
 * the kernel fail the exec itself; our own one unknown, nothing is
 * called foreign.
 */
static int
foreign_loader(const struct es_shim *s, const char *interp)
{
	struct stat sb, ld;

	if (s->ldso == NULL || strcmp(interp, s->ldso) == 0 ||
	    stat(interp, &sb) != 0 || stat(s->ldso, &ld) != 0)
		return 0;
	return sb.st_dev != ld.st_dev || sb.st_ino != ld.st_ino;
}

/*
 * Reads the head of an open file and decides what the launch is: a shell
 * (by its name, the file a symlink leads to, or a "#!" judged by a shell),
 * and whether the shim can follow into it at all.  named: path's last
 * component is the file itself, not a symlink, so the name the file goes
 * by (all that is judged of it) is path's, with no readlink to learn it.
 */
static void
judge_fd(const struct es_shim *s, int fd, const char *path, int named,
    char *const *argv, struct es_target *t, int top)
{
	unsigned char head[ES_SNIFF_HEAD];
	struct es_sniff sn;
	struct stat sb;
	char proc[32], real[ES_PATH_MAX];
	const char *name = path;
	ssize_t n, r;
	int agentfile;

	if (fstat(fd, &sb) != 0) {
		t->err = errno;
		return;
	}
	t->found = 1;
	if (!S_ISREG(sb.st_mode)) {
		t->special = 1;	/* the kernel refuses it; nothing to judge */
		return;
	}
	if (top && !named) {
		r = readlink(es_fd_path(proc, fd), real, sizeof(real) - 1);
		real[r > 0 ? r : 0] = '\0';
		name = r > 0 ? real : NULL;
	}
	/*
	 * For interpreters the agent is the script: `node build.js` is a tool.
	 * Only the agent's own file, or an exec in place that hands the agent
	 * on, needs the script's hash: no other launch pays for it.
	 */
	t->dev = sb.st_dev;
	t->ino = sb.st_ino;
	agentfile = top && s->have_agent && !s->inside &&
	    sb.st_dev == s->agent_dev && sb.st_ino == s->agent_ino;
	if (agentfile || (top && s->self_launcher))
		t->script = es_agent_script(name != NULL ? name : path, argv);
	if (agentfile && (s->agent_script == 0 || t->script == s->agent_script))
		t->agent_file = 1;
	else if (top && !s->inside && s->ntree > 0 && (s->is_agent || s->contain))
		install_member(s, fd, argv, t);
	/* A tool never becomes the agent: only the agent hands itself over. */
	t->agent = t->agent_file && s->is_agent;
	n = es_sniff_fd(fd, head, &sn);
	/*
	 * File capabilities count only on an ELF that ld.so would run: the
	 * kernel takes a script's from its interpreter (judged on its own),
	 * and every other kind is unfollowable below for its kind.
	 */
	if (sb.st_mode & (S_ISUID | S_ISGID)) {
		t->unfollow = 1;
		t->unfollow_why = "setuid or setgid program";
	} else if (sn.kind == ES_K_ELF_DYNAMIC &&
	    fgetxattr(fd, "security.capability", NULL, 0) > 0) {
		t->unfollow = 1;
		t->unfollow_why = "program with file capabilities";
	}
	/* An O_PATH descriptor to an execute-only file: its kind is unknown. */
	if (n < 0) {
		t->unfollow = 1;
		t->unfollow_why = "program the shim cannot read";
	}
	if (top && (es_is_shell(&s->pol, path) || (name != NULL &&
	    (es_is_shell(&s->pol, name) || busybox_shell(name, argv)))))
		t->shell = 1;
	switch (sn.kind) {
	case ES_K_ELF_DYNAMIC:
		if (foreign_loader(s, sn.interp)) {
			t->unfollow = 1;
			t->unfollow_why = "program whose loader (PT_INTERP) is not ld.so";
		}
		break;
	case ES_K_ELF_STATIC:
		t->unfollow = 1;
		t->unfollow_why = "statically linked program";
		break;
	case ES_K_ELF_FOREIGN:
	case ES_K_ELF_UNKNOWN:
	case ES_K_ELF_MORE:
		t->unfollow = 1;
		t->unfollow_why = "ELF program the shim cannot load into";
		break;
	case ES_K_SCRIPT:
		if (!top)
			break;
		if (s->self_launcher)
			script_identity(&sn, path, t);
		if (es_is_shell(&s->pol, es_script_judge(&sn)))
			t->shell = 1;
		else if (sn.interp[0] == '/')
			judge_interp(s, sn.interp, t);
		break;
	default:
		if (top)
			t->other = 1;
	}
	/*
	 * A shell runs whatever it is told, so it never keeps the agent's
	 * secrets, not even when the agent is that shell: `envshim -- bash
	 * -c 'bash -c ...'` must not hand its key to the inner shell.
	 */
	if (t->shell)
		t->agent = t->agent_file = t->handed = 0;
	/*
	 * Outside contain mode nothing would follow what a static program
	 * starts: it is a tool like any other static program (Qwen Code's
	 * vendored rg), sandboxed.  `envshim --` picks contain mode for an
	 * agent whose platform package holds one (Codex).
	 */
	if (t->unfollow && !s->contain)
		t->agent = t->handed = 0;
}

/*
 * The kernel runs a script as its interpreter with the script's path for
 * an argument: that is the program an exec in place turns the agent
 * into, so that is the identity its children must know it by.
 */
static void
script_identity(const struct es_sniff *sn, const char *path,
    struct es_target *t)
{
	struct stat sb;
	char *av[4];
	int i = 0;

	if (stat(sn->interp, &sb) != 0)
		return;
	av[i++] = (char *)sn->interp;
	if (sn->arg[0] != '\0')
		av[i++] = (char *)sn->arg;
	av[i++] = (char *)path;
	av[i] = NULL;
	t->dev = sb.st_dev;
	t->ino = sb.st_ino;
	t->script = es_agent_script(sn->interp, av);
}

/* A script's interpreter decides whether the shim follows the script. */
static void
judge_interp(const struct es_shim *s, const char *interp, struct es_target *t)
{
	struct es_target sub = { 0 };
	struct stat sb;
	int fd = open(interp, JUDGE_OPEN);

	if (fd < 0) {
		/* Execute-only (or no fd left): the kernel may still run it. */
		if (stat(interp, &sb) == 0) {
			t->unfollow = 1;
			t->unfollow_why = "script whose interpreter the shim cannot read";
		}
		return;
	}
	judge_fd(s, fd, interp, 0, NULL, &sub, 0);
	close(fd);
	if (sub.unfollow) {
		t->unfollow = 1;
		t->unfollow_why = "script whose interpreter the shim cannot follow";
	}
}

/*
 * Judges dirfd/path (dirfd AT_FDCWD for plain paths) or, with fd >= 0,
 * an fd handed to fexecve.  An unreadable but existing file (mode --x) is
 * judged unfollowable: its kind cannot be known.  The path is opened
 * without following a last symlink first: most targets are no symlink,
 * and for them the readlink that names the file is not needed.
 */
void
es_judge(const struct es_shim *s, int dirfd, const char *path, int fd, int nofollow, char *const *argv,
    struct es_target *t)
{
	struct stat sb;
	char proc[32];
	int own = -1, named = 0;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		own = openat(dirfd, path, JUDGE_OPEN | O_NOFOLLOW);
		if (own >= 0)
			named = 1;
		else if (errno == ELOOP && !nofollow)
			own = openat(dirfd, path, JUDGE_OPEN);
		if (own < 0) {
			t->err = errno;
			/*
			 * Nothing there: each PATH entry execvp or Python
			 * tries before the one that has the program.  Only a
			 * file that exists but cannot be opened is stat'ed.
			 */
			if (t->err == ENOENT || t->err == ENOTDIR)
				return;
			if (fstatat(dirfd, path, &sb, nofollow ?
			    AT_SYMLINK_NOFOLLOW : 0) != 0) {
				t->err = errno;
				return;
			}
			t->found = 1;
			t->unfollow = 1;
			t->unfollow_why = "program the shim cannot read";
			if (es_is_shell(&s->pol, path))
				t->shell = 1;
			return;
		}
		fd = own;
	} else if (pread(fd, proc, 1, 0) < 0) {
		/* An O_PATH descriptor: read it through procfs. */
		own = open(es_fd_path(proc, fd), JUDGE_OPEN);
		if (own >= 0)
			fd = own;
	}
	judge_fd(s, fd, path, named, argv, t, 1);
	if (own >= 0)
		close(own);
}

/*
 * Where a launch runs.  Whatever the agent starts outside the sandbox may
 * execute or load a file its sandboxed commands wrote (a .git they made,
 * a hook, node_modules/.bin, a module in the working directory), so under
 * `sandbox all`, the default, everything goes in but the agent handing
 * itself over and the program a program rule names (program: its index
 * + 1, or 0), which the user configured.  `sandbox shells` confines only
 * what runs what it is told: shells, shell scripts, unfollowable programs.
 */
int
es_decide(const struct es_shim *s, const struct es_target *t, int program,
    const char **why)
{
	const struct es_policy *p = &s->pol;

	*why = NULL;
	if (s->inside)
		return ES_A_RUN;	/* the sandbox already confines everything */
	if (t->special)
		return ES_A_RUN;	/* EACCES from the kernel, as without us */
	/*
	 * The agent handing itself over to a static program (Codex's musl
	 * binary) in contain mode: /etc/ld.so.preload follows what it starts.
	 */
	if (t->unfollow && t->agent && s->contain)
		return ES_A_RUN;
	if (t->unfollow) {
		switch (p->unfollowable) {
		case ES_UNFOLLOW_ALLOW:
			break;
		case ES_UNFOLLOW_REFUSE:
			*why = t->unfollow_why;
			return ES_A_REFUSE;
		default:
			if (p->sandbox == ES_SANDBOX_OFF) {
				*why = t->unfollow_why;
				return ES_A_REFUSE;
			}
			return ES_A_SANDBOX;
		}
	}
	if (p->sandbox == ES_SANDBOX_OFF)
		return ES_A_RUN;
	if (t->shell)
		return ES_A_SANDBOX;
	if (p->sandbox != ES_SANDBOX_SHELLS && !t->agent && program == 0)
		return ES_A_SANDBOX;
	return ES_A_RUN;
}

/*
 * Next to the shim (a build tree) or in libexec.  Looked up only when a
 * launch goes to the sandbox: an access(2) in every process was a cost
 * every process paid for the few that need it.
 */
const char *
es_helper(const struct es_shim *s)
{
	static const char installed[] = ES_LIBEXECDIR "/envshim-sandbox";

	if (s->helper[0] != '\0' && access(s->helper, X_OK) == 0)
		return s->helper;
	if (access(installed, X_OK) == 0)
		return installed;
	return NULL;
}

/* ---- what a sandboxed command could have written ---- */

/*
 * Outside the sandbox, where sandboxed commands write, by dev:ino of
 * what each path holds now: what the helper binds writable (the
 * workspace, the policy's rw paths, the agents' state directories, the
 * log), every session of this user (its /tmp, /var/tmp and home layer)
 * and the kept layers.  By inode, so the same directory reached by
 * another path (a bind mount of it) is known too.
 */
struct roots {
	size_t	n;
	dev_t	dev[ES_WRITABLE_MAX];
	ino_t	ino[ES_WRITABLE_MAX];
};

static void
root_add(struct roots *r, const char *path)
{
	struct stat st;

	if (r->n < ES_WRITABLE_MAX && path != NULL && path[0] == '/' &&
	    stat(path, &st) == 0) {
		r->dev[r->n] = st.st_dev;
		r->ino[r->n++] = st.st_ino;
	}
}

/* A policy path as the helper expands it: "~/x" in the home, "x" in the workspace. */
static void
root_path(struct roots *r, const struct es_shim *s, const char *ws, const char *p)
{
	char buf[ES_PATH_MAX];
	int bad = 0;

	buf[0] = '\0';
	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
		if (s->home[0] == '\0')
			return;
		bad = es_cat(buf, sizeof(buf), s->home) | es_cat(buf, sizeof(buf), p + 1);
	} else if (p[0] != '/')
		bad = es_cat(buf, sizeof(buf), ws) | es_cat(buf, sizeof(buf), "/") |
		    es_cat(buf, sizeof(buf), p);
	else
		bad = es_cat(buf, sizeof(buf), p);
	if (bad == 0)
		root_add(r, buf);
}

static void
roots(const struct es_shim *s, struct roots *r)
{
	const char *ws = strncmp(s->e_ws, "ENVSHIM_WORKSPACE=", 18) == 0 ?
	    s->e_ws + 18 : "";
	size_t i;

	r->n = 0;
	if (ws[0] == '/')
		root_add(r, ws);
	root_add(r, s->sessions);
	root_add(r, s->layers);
	root_add(r, s->log_path);
	for (i = 0; i < s->pol.nrw; i++)
		root_path(r, s, ws, s->pol.rw[i].s);
	for (i = 0; i < es_agent_nstate; i++)
		root_path(r, s, ws, es_agent_state[i].path);
}

static int
is_root(const struct roots *r, const struct stat *st)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->dev[i] == st->st_dev && r->ino[i] == st->st_ino)
			return 1;
	return 0;
}

/*
 * Inside the sandbox the mounts say it: what is not on a read-only mount
 * a sandboxed command can write.  A kernel that does not report the
 * flags (no ST_VALID) says writable.
 */
static int
rw_mount(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) != 0 || !(sf.f_flags & ST_VALID) ||
	    !(sf.f_flags & ST_RDONLY);
}

/* Outside: is the directory fd, or one above it, where sandboxed commands write? */
static int
under_root(const struct roots *r, int fd)
{
	struct stat st, up;
	int cur = fd, next, k;

	for (k = 0; k < 256; k++) {
		if (fstat(cur, &st) != 0 || is_root(r, &st))
			break;
		next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		cur = next;
		if (cur < 0 || fstat(cur, &up) != 0)
			break;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
			close(cur);
			return 0;	/* the root directory: none above */
		}
	}
	if (cur >= 0 && cur != fd)
		close(cur);
	return 1;
}

/* Is what fd (just entered, stat st) holds writable from the sandbox? */
static int
writable(const struct es_shim *s, const struct roots *r, int fd,
    const struct stat *st)
{
	return s->inside ? rw_mount(fd) : is_root(r, st);
}

/*
 * Could a sandboxed command have written the file path names, or changed
 * which file it names?  It could when any directory the name's
 * resolution looks a component up in (each symlink's too) is one it
 * writes, or the file itself is.  Inside the sandbox that is whatever is
 * not on a read-only mount; outside, the places roots() lists and what
 * lies below them.  A relative path starts at the working directory, or,
 * cwd_unknown (a spawn's file actions may change it), counts as written.
 * So does anything that cannot be resolved, but for a name missing in a
 * directory no sandboxed command writes: nothing can appear there.  The
 * file reached must be the one the kernel opens for path (a /proc magic
 * link's text may name another).  Stack and syscalls only.
 */
int
es_planted(const struct es_shim *s, const char *path, int cwd_unknown)
{
	char buf[ES_PATH_MAX], tmp[ES_PATH_MAX], comp[NAME_MAX + 1];
	struct stat st, want;
	struct roots r;
	const char *p, *e;
	size_t n, rest;
	int dfd, fd, w, links = 0, have;
	ssize_t k;

	if (path == NULL || path[0] == '\0' || strlen(path) >= sizeof(buf) ||
	    (path[0] != '/' && cwd_unknown))
		return 1;
	r.n = 0;
	if (!s->inside)
		roots(s, &r);
	have = stat(path, &want) == 0;
	memcpy(buf, path, strlen(path) + 1);
	if ((dfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || fstat(dfd, &st) != 0) {
		if (dfd >= 0)
			close(dfd);
		return 1;
	}
	w = path[0] == '/' || s->inside ? writable(s, &r, dfd, &st) :
	    under_root(&r, dfd);
	for (p = buf;;) {
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		/* a name looked up where the model writes: it chose the answer */
		if (w || n > NAME_MAX)
			break;
		if (n == 0) {
			close(dfd);
			return 0;	/* a directory: the exec fails */
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if ((fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			k = errno;
			close(dfd);
			return !(k == ENOENT || k == ENOTDIR);
		}
		if (fstat(fd, &st) != 0) {
			close(fd);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			/* go on with the link's text, then what followed it */
			k = readlinkat(fd, "", tmp, sizeof(tmp) - 1);
			close(fd);
			rest = strlen(p);
			if (++links > ES_LINKS_MAX || k <= 0 ||
			    (size_t)k + rest + 1 > sizeof(tmp))
				break;
			memcpy(tmp + k, p, rest + 1);
			memcpy(buf, tmp, (size_t)k + rest + 1);
			p = buf;
			if (buf[0] == '/') {
				close(dfd);
				if ((dfd = open("/", O_PATH | O_DIRECTORY |
				    O_CLOEXEC)) < 0)
					return 1;
				if (fstat(dfd, &st) != 0)
					break;
				w = writable(s, &r, dfd, &st);
			}
			continue;
		}
		w = writable(s, &r, fd, &st);
		close(dfd);
		dfd = fd;
		if (*p == '\0' || !S_ISDIR(st.st_mode)) {
			close(dfd);
			if (*p != '\0')
				return 0;	/* ENOTDIR: the exec fails */
			return w || !have || st.st_dev != want.st_dev ||
			    st.st_ino != want.st_ino;
		}
	}
	close(dfd);
	return 1;
}

/* A shell's script: its first argument that is no option, none with -c. */
static const char *
shell_script(char *const *argv)
{
	size_t i;

	for (i = 1; argv != NULL && argv[0] != NULL && argv[i] != NULL; i++) {
		if (strcmp(argv[i], "--") == 0)
			return argv[i + 1];
		if (argv[i][0] != '-' && argv[i][0] != '+')
			return argv[i];
		if (strcmp(argv[i] + 1, "o") == 0 && argv[i + 1] != NULL)
			i++;
		else if (argv[i][1] != '-' && strchr(argv[i], 'c') != NULL)
			return NULL;
	}
	return NULL;
}

/*
 * Does a launch of path with argv run anything a sandboxed command could
 * have written (es_planted): the file, the interpreter of its "#!" line,
 * the script a shell or an interpreter is given (its first argument that
 * is no option, judged by the names the file goes by: `node -e` and
 * `python3 -m` read the working directory, and count so), or pre, the
 * file glibc's ENOEXEC fallback hands /bin/sh.
 */
static int
runs_planted(const struct es_shim *s, const char *path, char *const *argv,
    const char *pre, int cwd_unknown)
{
	unsigned char head[ES_SNIFF_HEAD];
	struct es_sniff sn;
	char proc[32], real[ES_PATH_MAX];
	const char *script;
	ssize_t r = -1;
	int fd;

	if (es_planted(s, path, cwd_unknown) ||
	    (pre != NULL && es_planted(s, pre, cwd_unknown)))
		return 1;
	if ((fd = open(path, JUDGE_OPEN)) >= 0) {
		es_sniff_fd(fd, head, &sn);
		r = readlink(es_fd_path(proc, fd), real, sizeof(real) - 1);
		close(fd);
		if (sn.kind == ES_K_SCRIPT && sn.interp[0] == '/' &&
		    es_planted(s, sn.interp, 0))
			return 1;
	}
	real[r > 0 ? r : 0] = '\0';
	if (pre != NULL)
		return 0;	/* sh runs pre, judged above */
	if (es_is_shell(&s->pol, path) || (r > 0 && es_is_shell(&s->pol, real)))
		script = shell_script(argv);
	else if ((script = es_agent_script_arg(path, argv)) == NULL && r > 0)
		script = es_agent_script_arg(real, argv);
	return script != NULL && es_planted(s, script, cwd_unknown);
}

/* ---- program rules: the agent's own launches of programs the user named ---- */

/*
 * Only the agent's own launches are matched: a tool, a shell and anything
 * in the sandbox never are, so a command the model types gets nothing
 * however it names the program.  The file is resolved through an O_PATH
 * descriptor (readlink of /proc/self/fd/N: AS-safe, unlike realpath); one
 * that cannot be resolved is not matched.  A match whose file, script or
 * interpreter a sandboxed command could have written (a "github-mcp-server"
 * of the model's, named in a project's MCP configuration) is withheld:
 * *withhold says so, and the launch gets none of the rule's names.
 */
int
es_program_for(const struct es_shim *s, const struct es_target *t,
    const char *path, char *const *argv, int cwd_unknown, int *withhold)
{
	char proc[32], real[ES_PATH_MAX];
	ssize_t r = -1;
	int fd, m;

	*withhold = 0;
	if (!s->is_agent || s->inside || s->program != 0 ||
	    s->pol.nprograms == 0 || !t->found || t->agent || t->shell)
		return 0;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		r = readlink(es_fd_path(proc, fd), real, sizeof(real) - 1);
		close(fd);
	}
	if (r <= 0)
		return 0;
	real[r] = '\0';
	if ((m = es_program_match(&s->pol, path, real, argv)) < 0)
		return 0;
	*withhold = runs_planted(s, path, argv, NULL, cwd_unknown);
	return m + 1;
}

/* "ENVSHIM_PROGRAM=I:FILE:LINE" for program rule i, into pl->mark. */
static const char *
program_mark(const struct es_shim *s, struct es_plan *pl, int i)
{
	const struct es_program *pr = &s->pol.programs[i];
	char d[24];

	pl->mark[0] = '\0';
	es_cat(pl->mark, sizeof(pl->mark), "ENVSHIM_PROGRAM=");
	es_cat(pl->mark, sizeof(pl->mark), decimal(d, (unsigned long long)i));
	es_cat(pl->mark, sizeof(pl->mark), ":");
	if (es_cat(pl->mark, sizeof(pl->mark), pr->layer < s->pol.nlayers ?
	    s->pol.layer_name[pr->layer] : "?") != 0)
		es_cat(pl->mark, sizeof(pl->mark), "(long name)");
	es_cat(pl->mark, sizeof(pl->mark), ":");
	es_cat(pl->mark, sizeof(pl->mark), decimal(d, pr->line));
	return pl->mark;
}

/* ---- the plan: filtered env and argv in one arena ---- */

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * es_plan_make carves the arena before it writes there, so zeroing it was
 * only cost: 24 KiB on every launch, in the parent or the vfork child.
 */
void
es_plan_init(struct es_plan *pl, const char *hook, const char *path,
    const char *target, char *const *in)
{
	memset(pl, 0, offsetof(struct es_plan, stack));
	pl->hook = hook;
	pl->path = path;
	pl->target = target;
	pl->in = in;
}

void
es_plan_release(struct es_plan *pl)
{
	if (pl->map != NULL)
		munmap(pl->map, pl->maplen);
	pl->map = NULL;
}

/*
 * Fills pl: filters the environment, and for a redirect builds the helper's
 * argv.  pre (may be NULL) is put before argv[1..]: the ENOEXEC fallback
 * runs "/bin/sh FILE ARGS".  A sandbox launch with no helper installed
 * becomes a refusal.  Returns 0, or -1 with pl->why set.
 */
int
es_plan_make(const struct es_shim *s, struct es_plan *pl, char *const *argv, const char *pre)
{
	const struct es_policy *p = &s->pol;
	size_t argc = 0, bytes = 0, i, outcap, need, scratch, nf = 0, ncap = 0;
	const char *helper = NULL, *forced[ES_NFORCED + 3];
	char *base;
	long k;
	unsigned int flags = pl->agent ? ES_F_AGENT : 0;
	int prog = pl->program;
	/* The agent's launches are told they are the agent; no other is. */
	const char *agent_var = pl->agent_var != NULL ? pl->agent_var :
	    pl->agent && s->e_agent_self[0] != '\0' ? s->e_agent_self : NULL;

	/*
	 * In a rule's subtree, a file a sandboxed command could have written
	 * (npm runs a project's node_modules/.bin, and a .npmrc's
	 * script-shell) gets none of the rule's names, and no mark.
	 */
	if (pl->program == 0 && s->program != 0) {
		prog = s->program;
		pl->withhold = runs_planted(s, pl->target, argv, pre,
		    pl->cwd_unknown);
	}
	/* The shim's own variables, the agent's identity moved if it moved. */
	for (i = 0; s->forced[i] != NULL; i++)
		if ((agent_var == NULL || s->forced[i] != s->e_agent) &&
		    (!pl->withhold || s->forced[i] != s->e_program))
			forced[nf++] = s->forced[i];
	if (agent_var != NULL)
		forced[nf++] = agent_var;
	/* A launch the agent makes of a program rule's program is marked. */
	if (pl->program != 0 && !pl->withhold)
		forced[nf++] = program_mark(s, pl, pl->program - 1);
	if (prog != 0)
		flags |= ES_F_PROGRAM(prog - 1) | (pl->withhold ? ES_F_WITHHOLD : 0);
	forced[nf] = NULL;
	pl->map = NULL;
	pl->n = 0;
	pl->helper = NULL;
	if (pl->action == ES_A_SANDBOX && (helper = es_helper(s)) == NULL) {
		pl->action = ES_A_REFUSE;
		pl->why = "the sandbox helper envshim-sandbox is not installed";
	}
	for (i = 0; pl->in != NULL && pl->in[i] != NULL; i++)
		bytes += strlen(pl->in[i]) + 1;
	pl->n = i;
	while (argv != NULL && argv[argc] != NULL)
		argc++;
	outcap = pl->n + nf + p->nsets + 1;
	scratch = es_filter_scratch(pl->n, bytes);
	need = align8(outcap * sizeof(char *)) +
	    align8(pl->n * sizeof(struct es_verdict)) +
	    align8((argc + 8 + 2 * ES_MAX_CAPVARS) * sizeof(char *)) +
	    align8(scratch) + ES_LOG_LINE;
	if (need <= sizeof(pl->stack))
		base = pl->stack;
	else {
		base = mmap(NULL, need, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED) {
			pl->why = "environment too large for the memory the shim can map";
			return -1;
		}
		pl->map = base;
		pl->maplen = need;
	}
	pl->envp = (const char **)(void *)base;
	base += align8(outcap * sizeof(char *));
	pl->v = (struct es_verdict *)(void *)base;
	base += align8(pl->n * sizeof(struct es_verdict));
	pl->argv = (char **)(void *)base;
	base += align8((argc + 8 + 2 * ES_MAX_CAPVARS) * sizeof(char *));
	pl->logbuf = base;
	base += ES_LOG_LINE;
	if (s->inside)
		flags |= ES_F_INSIDE;
	if (pl->action == ES_A_SANDBOX)
		flags |= ES_F_SANDBOX;
	k = es_filter(p, &s->snap, flags, pl->in, pl->n,
	    forced, pl->envp, outcap, pl->v, base, scratch);
	if (k < 0) {
		pl->why = "environment could not be filtered";
		es_plan_release(pl);
		return -1;
	}
	if (p->mode == ES_MODE_AUDIT) {
		/* Change nothing but what keeps the shim in the child. */
		size_t o = 0;

		for (i = 0; forced[i] != NULL; i++)
			pl->envp[o++] = forced[i];
		for (i = 0; i < pl->n; i++)
			if (pl->in[i] != NULL &&
			    strncmp(pl->in[i], "LD_PRELOAD=", 11) != 0 &&
			    strncmp(pl->in[i], "ENVSHIM_", 8) != 0)
				pl->envp[o++] = pl->in[i];
		pl->envp[o] = NULL;
	}
	i = 0;
	if (pl->action == ES_A_SANDBOX && p->mode != ES_MODE_AUDIT) {
		pl->argv[i++] = (char *)helper;
		/*
		 * What the capability variables it drops name (the ssh
		 * agent's socket, the bus, a key file): the helper hides
		 * those paths, and the command never sees the variables.
		 * A path is no secret; the names stay with the agent.
		 */
		for (k = 0; (size_t)k < pl->n; k++) {
			if (pl->in[k] == NULL || pl->v[k].action != ES_DROP ||
			    pl->v[k].reason != ES_R_CAPABILITY)
				continue;
			if (ncap++ == ES_MAX_CAPVARS) {
				pl->why = "too many capability variables to "
				    "hide what they name";
				es_plan_release(pl);
				return -1;
			}
			pl->argv[i++] = (char *)"--cap";
			pl->argv[i++] = pl->in[k];
		}
		if (pre == NULL && argv != NULL && argv[0] != NULL &&
		    strcmp(argv[0], pl->target) != 0) {
			pl->argv[i++] = (char *)"--argv0";
			pl->argv[i++] = argv[0];
		}
		pl->argv[i++] = (char *)"--";
		pl->argv[i++] = (char *)pl->target;
		if (pre != NULL)
			pl->argv[i++] = (char *)pre;
		for (k = 1; (size_t)k < argc; k++)
			pl->argv[i++] = argv[k];
		pl->argv[i] = NULL;
		pl->target = helper;
		pl->helper = helper;
	} else {
		if (pre != NULL) {
			pl->argv[i++] = (char *)pl->target;
			pl->argv[i++] = (char *)pre;
			for (k = 1; (size_t)k < argc; k++)
				pl->argv[i++] = argv[k];
		} else
			for (k = 0; (size_t)k < argc; k++)
				pl->argv[i++] = argv[k];
		pl->argv[i] = NULL;
	}
	return 0;
}

static void
who(struct es_audit *a, long pid)
{
	a->pid = pid == ES_PID_SELF ? (long)getpid() : pid;
	a->ppid = pid == ES_PID_SELF ? (long)getppid() : (long)getpid();
}

/* The session's name (its directory's last component), or NULL. */
static const char *
session_name(const struct es_shim *s)
{
	const char *d = s->e_session, *b;

	if (d == NULL || d[0] == '\0' || (b = strrchr(d, '/')) == NULL)
		return NULL;
	return b + 1;
}

/* One record for this launch. */
void
es_plan_log(const struct es_shim *s, const struct es_plan *pl, long pid, char *const *argv)
{
	struct es_audit a;
	long len;
	int audit = s->pol.mode == ES_MODE_AUDIT;

	if (s->pol.log == ES_LOG_OFF || pl->logbuf == NULL)
		return;
	memset(&a, 0, sizeof(a));
	a.time_ms = now_ms();
	who(&a, pid);
	a.hook = pl->hook;
	a.path = pl->path;
	a.argv = argv;
	a.action = audit ? "audit" : action_names[pl->action];
	a.would = audit ? action_names[pl->action] : NULL;
	a.reason = pl->why;
	a.inside = s->inside;
	a.sandbox = s->sandbox_pid;
	a.session = session_name(s);
	a.agent = pl->agent;
	a.handover = pl->agent ? pl->handover : NULL;
	a.audit_mode = audit;
	a.envp = pl->in;
	a.n = pl->n;
	a.v = pl->v;
	a.p = &s->pol;
	a.quiet = s->quiet;
	a.program = pl->program != 0 ? pl->program : s->program;
	a.program_rule = pl->program != 0 ? NULL : s->program_rule;
	/* What a shell lost was never meant for it: no hint names a shell. */
	if (s->is_agent && !s->inside && !es_is_shell(&s->pol, pl->path)) {
		a.own = environ;
		a.own_hash = s->own;
		a.nown_hash = s->nown;
		a.own_full = s->own_full;
	}
	/* inside, the outer's marks must fit too (es_audit_mark) */
	len = es_audit_format(&a, pl->logbuf, ES_LOG_LINE -
	    (s->inside ? ES_LOG_MARK : 0));
	if (len > 0)
		audit_write(s, pl->logbuf, (size_t)len);
}

/* A refusal nobody could plan for (not ready, broken policy, argc 0). */
void
es_log_refusal(const struct es_shim *s, const char *hook, const char *path, char *const *argv,
    const char *why, long pid)
{
	struct es_audit a;
	char buf[2048];
	long len;

	es_say_refused(path, why);
	if (!s->ready || s->pol.log == ES_LOG_OFF)
		return;
	memset(&a, 0, sizeof(a));
	a.time_ms = now_ms();
	who(&a, pid);
	a.hook = hook;
	a.path = path;
	a.argv = argv;
	a.action = "refused";
	a.reason = why;
	a.inside = s->inside;
	a.sandbox = s->sandbox_pid;
	a.session = session_name(s);
	a.p = &s->pol;
	len = es_audit_format(&a, buf, sizeof(buf));
	if (len > 0)
		audit_write(s, buf, (size_t)len);
}

const char *
es_precheck(const struct es_shim *s, char *const *argv)
{
	if (!s->ready)
		return "envshim is not initialised in this process";
	if (s->broken)
		return s->why;
	if (argv == NULL || argv[0] == NULL)
		return "empty argument list (argc 0)";
	return NULL;
}

/*
 * PATH as glibc's execvp reads it (the caller's environ), walked the way
 * the policy normalises it: empty, relative and ".." entries are skipped.
 */
const char *
es_caller_path(void)
{
	const char *path = es_env_value(environ, "PATH");

	return path != NULL ? path : "/bin:/usr/bin";
}

/* Writes dir "/" file into buf; returns 0 or -1 (skip this entry). */
int
es_join(char *buf, size_t cap, const char *dir, size_t dlen, const char *file)
{
	size_t flen = strlen(file);
	size_t i;

	if (dlen == 0 || dir[0] != '/')
		return -1;
	for (i = 0; i + 1 < dlen; i++)
		if (dir[i] == '.' && dir[i + 1] == '.' &&
		    (i == 0 || dir[i - 1] == '/') &&
		    (i + 2 == dlen || dir[i + 2] == '/'))
			return -1;
	if (dlen + 1 + flen + 1 > cap)
		return -1;
	memcpy(buf, dir, dlen);
	buf[dlen] = '/';
	memcpy(buf + dlen + 1, file, flen + 1);
	return 0;
}
