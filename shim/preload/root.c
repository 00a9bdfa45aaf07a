/*
 * root.c - the launch root's work, shared by the shim's constructor (an
 * agent the shim entered) and `envshim --contain` (an agent it cannot
 * enter, whose launch state the command computes before the exec): the
 * policy layers, where records go, the launch snapshot, the agent's
 * identity, the workspace and the entries every child inherits.
 *
 * Not for the exec path: it reads files and calls getenv.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "es_pkg.h"
#include "es_root.h"
#include "es_session.h"

/* Is one of a and b (clean absolute paths) the other or under it? */
static int
overlaps(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	if (strncmp(a, b, n) != 0)
		return 0;
	return la == lb || (la < lb ? b[la] == '/' || la == 1 : a[lb] == '/' || lb == 1);
}

/* The component of path that ends at end: where it starts, its length. */
static const char *
last(const char *path, size_t end, size_t *len)
{
	size_t i = end;

	while (i > 0 && path[i - 1] != '/')
		i--;
	*len = end - i;
	return path + i;
}

/*
 * An npm package directory: node_modules/NAME or node_modules/@SCOPE/NAME
 * (npm, pnpm's store, bun, npx's cache all lay packages out so).  A
 * package.json anywhere else (a home directory, a checkout) is not an
 * install and makes nothing the agent.
 */
static int
npm_package(const char *dir)
{
	size_t end = strlen(dir), n;
	const char *b;

	last(dir, end, &n);		/* NAME */
	if (n == 0 || n + 1 > end)
		return 0;
	end -= n + 1;
	b = last(dir, end, &n);
	if (n > 1 && b[0] == '@') {	/* @SCOPE */
		if (n + 1 > end)
			return 0;
		end -= n + 1;
		b = last(dir, end, &n);
	}
	return n == 12 && memcmp(b, "node_modules", 12) == 0;
}

/* Adds the real path of dir to roots unless it is there, in ws, or holds it. */
static int
add_root(char roots[][ES_PATH_MAX], int k, const char *dir, const char *ws)
{
	char real[PATH_MAX];
	int i;

	if (k == ES_TREE_MAX || realpath(dir, real) == NULL ||
	    strlen(real) >= ES_PATH_MAX || strchr(real, ':') != NULL ||
	    (ws != NULL && ws[0] == '/' && overlaps(real, ws)))
		return k;
	for (i = 0; i < k; i++)
		if (overlaps(roots[i], real))
			return k;
	memcpy(roots[k], real, strlen(real) + 1);
	return k + 1;
}

/* The platform packages pkg's package.json names, found as node finds them. */
static int
add_optional(char roots[][ES_PATH_MAX], int k, const char *pkg, const char *ws)
{
	char path[PATH_MAX], names[ES_TREE_MAX * 216], *json, *slash;
	const char *nm;
	struct stat sb;
	ssize_t r;
	size_t got = 0;
	int fd, n, i;

	if (snprintf(path, sizeof(path), "%s/package.json", pkg) >= (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return k;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
	    sb.st_size > ES_PKG_JSON_MAX ||
	    (json = malloc((size_t)sb.st_size)) == NULL) {
		close(fd);
		return k;
	}
	while (got < (size_t)sb.st_size &&
	    (r = read(fd, json + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	n = es_pkg_optional(json, got, names, sizeof(names), ES_TREE_MAX);
	free(json);
	for (i = 0, nm = names; i < n; i++, nm += strlen(nm) + 1) {
		memcpy(path, pkg, strlen(pkg) + 1);
		for (;;) {
			char cand[PATH_MAX];

			if (snprintf(cand, sizeof(cand), "%s/node_modules/%s",
			    path[1] != '\0' ? path : "", nm) < (int)sizeof(cand) &&
			    stat(cand, &sb) == 0 && S_ISDIR(sb.st_mode)) {
				k = add_root(roots, k, cand, ws);
				break;
			}
			if ((slash = strrchr(path, '/')) == NULL || path[1] == '\0')
				break;
			slash[slash == path ? 1 : 0] = '\0';
		}
	}
	return k;
}

/*
 * The launch root's one look at the agent's install: the nearest
 * package.json above its file, then that package's platform packages.
 */
int
es_agent_install(const char *file, const char *ws, char roots[][ES_PATH_MAX])
{
	char real[PATH_MAX], probe[PATH_MAX + 16], *slash;
	struct stat sb;
	int up, k = 0;

	if (realpath(file, real) == NULL)
		return 0;
	for (up = 0; up < ES_TREE_UP; up++) {
		if ((slash = strrchr(real, '/')) == NULL || slash == real)
			return 0;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/package.json", real);
		if (stat(probe, &sb) == 0 && S_ISREG(sb.st_mode))
			break;
	}
	if (up == ES_TREE_UP || !npm_package(real))
		return 0;
	k = add_root(roots, 0, real, ws);
	if (k == 0)
		return 0;	/* in the workspace: nothing of it is the agent */
	return add_optional(roots, k, roots[0], ws);
}

void
es_broken(struct es_shim *s, const char *a, const char *b)
{
	s->broken = 1;
	s->why[0] = '\0';
	es_cat(s->why, sizeof(s->why), a);
	if (b != NULL)
		es_cat(s->why, sizeof(s->why), b);
}

void
es_text_init(struct es_shim *s)
{
	char **p[] = { &s->helper, &s->log_path, &s->home, &s->layers,
	    &s->e_preload, &s->e_agent,
	    &s->e_agent_self, &s->e_tree, &s->e_ns, &s->e_ws, &s->e_launch,
	    &s->e_config, &s->e_program, &s->e_session };
	size_t i;

	if (s->text_used == 0) {
		s->text[0] = '\0';
		s->text_used = 1;
	}
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (*p[i] == NULL)
			*p[i] = s->text;
}

char *
es_text_room(struct es_shim *s, size_t cap, size_t *room)
{
	size_t left = sizeof(s->text) - s->text_used;

	*room = cap < left ? cap : left;
	return s->text + s->text_used;
}

char *
es_text_keep(struct es_shim *s, size_t len)
{
	char *t = s->text + s->text_used;

	t[len] = '\0';
	s->text_used += len + 1;
	return t;
}

char *
es_text_put(struct es_shim *s, size_t cap, const char *name, const char *value)
{
	size_t room;
	char *t = es_text_room(s, cap, &room);

	if (room == 0)
		return NULL;
	t[0] = '\0';
	if ((name != NULL && (es_cat(t, room, name) != 0 ||
	    es_cat(t, room, "=") != 0)) || es_cat(t, room, value) != 0)
		return NULL;
	return es_text_keep(s, strlen(t));
}


/* Adds one line of policy on top, as its own layer. */
static int
add_layer(struct es_shim *s, const char *origin, const char *line)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];

	if (es_policy_parse(&s->pol, line, strlen(line), origin, &err) == 0)
		return 0;
	es_broken(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
	return -1;
}

/*
 * A launch root started inside a sandbox (the helper run directly, as a
 * tool's own --policy does) is in a session already, whose base is
 * hidden: it makes none of its own.  Inside means the namespace the
 * helper named in ENVSHIM_SANDBOX_NS, as the constructor tells it.
 */
static int
in_sandbox(void)
{
	const char *v = getenv("ENVSHIM_SANDBOX_NS");
	struct stat sb;
	char *end;
	unsigned long long u;

	if (v == NULL || stat("/proc/self/ns/user", &sb) != 0)
		return 0;
	u = strtoull(v, &end, 10);
	return *end == ':' && u == (unsigned long long)sb.st_ino;
}

/* Why a log file could not be made or opened for appending (errno e). */
static void
log_why(const char *path, int e, int named, char *why, size_t wlen,
    char *fix, size_t flen)
{
	char dir[ES_PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash != NULL && slash != path ?
	    (int)(slash - path) : 1, path);
	snprintf(fix, flen, "set log to another file");
	if (e == EISDIR) {
		snprintf(why, wlen, "%s is a directory", path);
		snprintf(fix, flen, "name a file in the policy's log line");
	} else if (e == ENOENT) {
		snprintf(why, wlen, "%s does not exist", dir);
		snprintf(fix, flen, named ? "make the directory, or correct "
		    "the policy's log line" : "set HOME to your home "
		    "directory, or name a log file in the policy");
	} else if ((e == EACCES || e == EPERM) && lstat(path, &st) == 0) {
		snprintf(why, wlen, "%s is not writable", path);
		snprintf(fix, flen, "make it writable (chmod u+w %s), or set "
		    "log to another file", path);
	} else if (e == EACCES || e == EPERM) {
		snprintf(why, wlen, "cannot make %s: %s", path, strerror(e));
		snprintf(fix, flen, "make %s writable, or set log to another "
		    "file", dir);
	} else if (e == EROFS) {
		snprintf(why, wlen, "%s is on a read-only file system", path);
		snprintf(fix, flen, "set log to a file on a writable file "
		    "system");
	} else if (e == ELOOP) {
		snprintf(why, wlen, "%s is a symbolic link", path);
		snprintf(fix, flen, "name the file itself in the log line");
	} else
		snprintf(why, wlen, "%s: %s", path, strerror(e));
}

int
es_log_ready(const struct es_policy *p, const char *home, char *path,
    size_t len, char *why, size_t wlen, char *fix, size_t flen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int fd, e;

	path[0] = '\0';
	if (p->log == ES_LOG_OFF || p->log == ES_LOG_STDERR)
		return 0;
	if (p->log == ES_LOG_SYSLOG) {
		/* what each record's write does: a datagram to /dev/log */
		if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1 &&
		    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			close(fd);
			return 0;
		}
		e = errno;
		if (fd != -1)
			close(fd);
		snprintf(why, wlen, "syslog: /dev/log: %s", strerror(e));
		snprintf(fix, flen, "start a syslog daemon (journald, rsyslog), "
		    "or set log to a file");
		return -1;
	}
	if (es_log_file(p, home, path, len) != 0) {
		path[0] = '\0';
		snprintf(why, wlen, "no log file: %s", p->log == ES_LOG_PATH ?
		    "~/ needs HOME, or the path is too long" :
		    "neither XDG_STATE_HOME nor HOME is set");
		snprintf(fix, flen, "set HOME, or name a log file with an "
		    "absolute path in the policy");
		return -1;
	}
	if (es_log_create(path, es_log_top(p, home, path)) == 0)
		return 0;
	log_why(path, errno, p->log == ES_LOG_PATH, why, wlen, fix, flen);
	return -1;
}

/*
 * The launch root settles where records go: the default file, or the
 * policy's (~/ expanded), as an absolute path handed down
 * so every descendant - also inside the sandbox - writes the same file.
 * A log that cannot be kept is said once, here, with its fix: records
 * are lost, and the user must not learn it from an empty envshim log.
 * Under `log-required yes` every launch is refused instead.
 */
static int
settle_log(struct es_shim *s)
{
	char line[ES_PATH_MAX + 8], path[ES_PATH_MAX];
	char why[2 * ES_PATH_MAX], fix[ES_PATH_MAX + 64];
	char say[sizeof(why) + sizeof(fix) + 128];
	int ok;

	/* Bounded now; created, so the sandbox can bind it writable. */
	if (es_log_file(&s->pol, getenv("HOME"), path, sizeof(path)) == 0)
		(void)es_log_rotate(path);
	ok = es_log_ready(&s->pol, getenv("HOME"), path, sizeof(path), why,
	    sizeof(why), fix, sizeof(fix)) == 0;
	if (!ok) {
		snprintf(say, sizeof(say), "envshim: %s: %s; fix: %s\n",
		    s->pol.log_required ? "log-required yes, and the audit log "
		    "cannot be kept, so every launch of this run is refused" :
		    "this run's launches are not recorded", why, fix);
		/* a launch root inside a sandbox: its run has said it */
		if (!in_sandbox())
			(void)!write(2, say, strlen(say));
		if (s->pol.log_required) {
			snprintf(say, sizeof(say), "log-required yes, and the "
			    "audit log cannot be kept: %s; fix: %s", why, fix);
			es_broken(s, say, NULL);
			return -1;
		}
		if (s->pol.log == ES_LOG_PATH && path[0] == '\0') {
			es_broken(s, "log: no file (~/ needs HOME, or too long)",
			    NULL);
			return -1;
		}
	}
	if (path[0] == '\0')
		return 0;
	s->log_path = es_text_put(s, sizeof(path), NULL, path);
	memcpy(line, "log ", 5);
	if (es_cat(line, sizeof(line), path) != 0 ||
	    es_cat(line, sizeof(line), "\n") != 0) {
		es_broken(s, "log path too long", NULL);
		return -1;
	}
	return add_layer(s, "launch log", line);
}

/* A child's view of ENVSHIM_AGENT_TREE: pointers into the state's own copy. */
int
es_tree_parse(struct es_shim *s, const char *value)
{
	const char *p = value, *c;

	s->ntree = 0;
	while (p != NULL && *p == '/' && s->ntree < ES_TREE_MAX) {
		c = strchr(p, ':');
		s->tree[s->ntree] = p;
		s->tree_len[s->ntree] = c != NULL ? (size_t)(c - p) : strlen(p);
		s->ntree++;
		p = c != NULL ? c + 1 : NULL;
	}
	return p == NULL || *p == '\0' ? 0 : -1;
}

/*
 * The agent's install (es_agent_install) from the file the agent is: its
 * script for an interpreter, else its executable.  Handed down as
 * ENVSHIM_AGENT_TREE, the directories joined by ':'.
 */
static void
root_install(struct es_shim *s, const char *exe, char *const *argv,
    const char *ws)
{
	char (*roots)[ES_PATH_MAX], real[PATH_MAX], *t;
	const char *file = exe;
	size_t room, used;
	int n, i;

	if (realpath(exe, real) != NULL && s->agent_script > 1 &&
	    (file = es_agent_script_arg(real, argv)) == NULL)
		return;
	if ((roots = malloc(ES_TREE_MAX * sizeof(*roots))) == NULL)
		return;
	n = es_agent_install(file, ws, roots);
	t = es_text_room(s, ES_CAP_TREE, &room);
	used = strlen("ENVSHIM_AGENT_TREE=");
	if (n > 0 && room > used) {
		memcpy(t, "ENVSHIM_AGENT_TREE=", used + 1);
		for (i = 0; i < n; i++)
			if ((i > 0 && es_cat(t, room, ":") != 0) ||
			    es_cat(t, room, roots[i]) != 0)
				break;
		if (i == n) {
			s->e_tree = es_text_keep(s, strlen(t));
			es_tree_parse(s, s->e_tree + used);
		}
	}
	free(roots);
}

/*
 * One session for the run, when shells go to the sandbox: its tmp/ is
 * the agent's temp directory under every name agents read, so what the
 * agent hands its shells through TMPDIR (Claude Code's cwd file) is where
 * they look.  Without one every sandbox gets a private /tmp of its own
 * and a read-only home: less works, nothing opens, and the user is told
 * why, once, at the start (a shell that cannot write ~/.cache must not be
 * the first sign).
 */
static void
start_session(struct es_shim *s)
{
	static const char *const names[] = {
		"TMPDIR", "TMP", "TEMP", "CLAUDE_CODE_TMPDIR"
	};
	char dir[ES_PATH_MAX], tmp[ES_PATH_MAX + 8];
	char why[2 * ES_PATH_MAX + 256], line[sizeof(why) + 128];
	size_t i;

	if (s->pol.sandbox == ES_SANDBOX_OFF || s->pol.mode == ES_MODE_AUDIT ||
	    in_sandbox())
		return;
	if (es_session_start(dir, sizeof(dir), why, sizeof(why)) != 0) {
		line[0] = '\0';
		es_cat(line, sizeof(line), "envshim: no session for this run "
		    "(each shell gets an empty /tmp and a read-only home): ");
		es_cat(line, sizeof(line), why);
		es_cat(line, sizeof(line), "\n");
		(void)!write(2, line, strlen(line));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		(void)setenv(names[i], tmp, 1);
	s->e_session = es_text_put(s, ES_CAP_SESSION, ES_SESSION_VAR, dir);
	if (s->e_session == NULL) {
		(void)es_session_remove(dir);
		s->e_session = s->text;
	}
}

/*
 * The agent itself: read the layers from disk, take the snapshot of envp
 * and record what children must inherit.  A bad policy sets s->broken:
 * the agent keeps running and every launch it makes is refused.
 */
void
es_root_init(struct es_shim *s, const char *policyfile, const char *mode,
    char *const *envp, const char *exe, char *const *argv)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256], cwd[ES_PATH_MAX], *t;
	struct stat sb;
	size_t room;
	long len;

	es_text_init(s);
	if (es_policy_load_root(&s->pol, policyfile, &err) != 0) {
		es_broken(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (mode != NULL && strcmp(mode, "audit") == 0) {
		if (add_layer(s, "ENVSHIM_MODE", "mode audit\n") != 0)
			return;
	} else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "enforce") != 0) {
		es_broken(s, "ENVSHIM_MODE must be audit or enforce", NULL);
		return;
	}
	if (settle_log(s) != 0)
		return;
	es_snapshot_take(&s->pol, envp, &s->snap);
	if (stat(exe, &sb) == 0) {
		char var[ES_CAP_AGENT], real[PATH_MAX];

		if (realpath(exe, real) == NULL)
			real[0] = '\0';
		s->have_agent = 1;
		s->agent_dev = sb.st_dev;
		s->agent_ino = sb.st_ino;
		s->agent_script = es_agent_script(real, argv);
		es_agent_var(var, sb.st_dev, sb.st_ino, s->agent_script, 0);
		if ((t = es_text_put(s, ES_CAP_AGENT, NULL, var)) != NULL)
			s->e_agent = t;
		es_agent_var(var, sb.st_dev, sb.st_ino, s->agent_script, 1);
		if ((t = es_text_put(s, ES_CAP_AGENT, NULL, var)) != NULL)
			s->e_agent_self = t;
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL &&
	    (t = es_text_put(s, ES_CAP_WS, "ENVSHIM_WORKSPACE", cwd)) != NULL)
		s->e_ws = t;
	else
		cwd[0] = '\0';
	if (s->have_agent)
		root_install(s, exe, argv, cwd);
	t = es_text_room(s, ES_CAP_LAUNCH, &room);
	if (room < 16)
		len = -1;
	else {
		memcpy(t, "ENVSHIM_LAUNCH=", 15);
		len = es_snapshot_encode(&s->snap, t + 15, room - 15);
	}
	if (len < 0) {
		es_broken(s, "launch snapshot too large", NULL);
		return;
	}
	s->e_launch = es_text_keep(s, 15 + (size_t)len);
	t = es_text_room(s, ES_CAP_CONFIG, &room);
	if (room < 16)
		len = -1;
	else {
		memcpy(t, "ENVSHIM_CONFIG=", 15);
		len = es_policy_format(&s->pol, 0, t + 15, room - 15);
	}
	if (len < 0) {
		es_broken(s, "effective policy too large to hand down", NULL);
		return;
	}
	if (len > 0 && t[15 + len - 1] == '\n')
		len--;		/* tidier in `env` output */
	s->e_config = es_text_keep(s, 15 + (size_t)len);
	start_session(s);
}
