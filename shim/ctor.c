/*
 * ctor.c - everything the hooks need, prepared once in the constructor:
 * the policy, the launch snapshot, the agent's identity, the proof of
 * being inside the sandbox, and the entries every child inherits.
 *
 * It runs before main and before the agent can start threads, so it may
 * read files and use stdio-free libc freely.  It never fails: a problem
 * sets s->broken and every launch is then refused with s->why.
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "shim.h"

extern char **environ;

static void
brokenf(struct es_shim *s, const char *a, const char *b)
{
	s->broken = 1;
	s->why[0] = '\0';
	es_cat(s->why, sizeof(s->why), a);
	if (b != NULL)
		es_cat(s->why, sizeof(s->why), b);
}

/* "NAME=" value into dst, or fail when it does not fit. */
static int
setvar(char *dst, size_t cap, const char *name, const char *value)
{
	dst[0] = '\0';
	if (es_cat(dst, cap, name) != 0 || es_cat(dst, cap, "=") != 0 ||
	    es_cat(dst, cap, value) != 0)
		return -1;
	return 0;
}

/* v in decimal into d (24 bytes). */
static const char *
ull(char *d, unsigned long long v)
{
	size_t i = 23;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return d + i;
}

static int
ns_ino(const char *which, ino_t *ino)
{
	char path[64] = "/proc/self/ns/";
	struct stat sb;

	es_cat(path, sizeof(path), which);
	if (stat(path, &sb) != 0)
		return -1;
	*ino = sb.st_ino;
	return 0;
}

/* mkdir -p for the log's directory; private, as the log names programs. */
static void
mkdirs(char *path)
{
	char *s;

	for (s = path + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
}

/* The launch root's default log: ${XDG_STATE_HOME:-~/.local/state}/envshim. */
static void
default_log(char *buf, size_t cap)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int fd;

	buf[0] = '\0';
	if (xdg != NULL && xdg[0] == '/')
		es_cat(buf, cap, xdg);
	else if (home != NULL && home[0] == '/') {
		es_cat(buf, cap, home);
		es_cat(buf, cap, "/.local/state");
	} else
		return;
	if (es_cat(buf, cap, "/envshim/audit.jsonl") != 0) {
		buf[0] = '\0';
		return;
	}
	mkdirs(buf);
	/* Created now so the sandbox can bind it writable later. */
	fd = open(buf, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
}

/* Adds one line of policy on top, as its own layer. */
static int
add_layer(struct es_shim *s, const char *origin, const char *line)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];

	if (es_policy_parse(&s->pol, line, strlen(line), origin, &err) == 0)
		return 0;
	brokenf(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
	return -1;
}

/*
 * The launch root settles where records go: the default file, or the
 * policy's (~/ expanded), as an absolute path handed down
 * so every descendant - also inside the sandbox - writes the same file.
 */
static int
settle_log(struct es_shim *s)
{
	char line[ES_PATH_MAX + 8];
	int fd;

	if (s->pol.log == ES_LOG_DEFAULT)
		default_log(s->log_path, sizeof(s->log_path));
	else {
		const char *home = getenv("HOME"), *lp = s->pol.log_path;

		s->log_path[0] = '\0';
		if (lp[0] == '~') {
			if (home == NULL || home[0] != '/') {
				brokenf(s, "log ~/... needs HOME", NULL);
				return -1;
			}
			es_cat(s->log_path, sizeof(s->log_path), home);
			lp++;
		}
		if (es_cat(s->log_path, sizeof(s->log_path), lp) != 0) {
			brokenf(s, "log path too long", NULL);
			return -1;
		}
		/* Created now so the sandbox can bind it writable later. */
		fd = open(s->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
		    O_NOFOLLOW, 0600);
		if (fd >= 0)
			close(fd);
	}
	if (s->log_path[0] == '\0')
		return 0;
	memcpy(line, "log ", 5);
	if (es_cat(line, sizeof(line), s->log_path) != 0 ||
	    es_cat(line, sizeof(line), "\n") != 0) {
		brokenf(s, "log path too long", NULL);
		return -1;
	}
	return add_layer(s, "launch log", line);
}

/*
 * The agent itself: read the layers from disk, take the snapshot and
 * record what children must inherit.  A bad policy leaves the agent
 * running and refuses every launch it makes.
 */
static void
init_root(struct es_shim *s, char **argv)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256], cwd[ES_PATH_MAX];
	const char *mode = getenv("ENVSHIM_MODE");
	struct stat sb;
	long len;

	if (es_policy_load_root(&s->pol, getenv("ENVSHIM_POLICY"), &err) != 0) {
		brokenf(s, "bad policy: ", es_parse_err_str(&err, msg, sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (mode != NULL && strcmp(mode, "audit") == 0) {
		if (add_layer(s, "ENVSHIM_MODE", "mode audit\n") != 0)
			return;
	} else if (mode != NULL && mode[0] != '\0' && strcmp(mode, "enforce") != 0) {
		brokenf(s, "ENVSHIM_MODE must be audit or enforce", NULL);
		return;
	}
	if (s->pol.log == ES_LOG_DEFAULT || s->pol.log == ES_LOG_PATH) {
		if (settle_log(s) != 0)
			return;
	}
	es_snapshot_take(&s->pol, environ, &s->snap);
	if (stat("/proc/self/exe", &sb) == 0) {
		char num[96], d[24];

		char exe[ES_PATH_MAX];
		ssize_t r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[r > 0 ? r : 0] = '\0';
		s->have_agent = 1;
		s->agent_dev = sb.st_dev;
		s->agent_ino = sb.st_ino;
		s->agent_script = es_agent_script(exe, argv);
		num[0] = '\0';
		es_cat(num, sizeof(num), ull(d, sb.st_dev));
		es_cat(num, sizeof(num), ":");
		es_cat(num, sizeof(num), ull(d, sb.st_ino));
		es_cat(num, sizeof(num), ":");
		es_cat(num, sizeof(num), ull(d, s->agent_script));
		setvar(s->e_agent, sizeof(s->e_agent), "ENVSHIM_AGENT", num);
	}
	if (getcwd(cwd, sizeof(cwd)) != NULL)
		setvar(s->e_ws, sizeof(s->e_ws), "ENVSHIM_WORKSPACE", cwd);
	memcpy(s->e_launch, "ENVSHIM_LAUNCH=", 15);
	if (es_snapshot_encode(&s->snap, s->e_launch + 15,
	    sizeof(s->e_launch) - 15) < 0) {
		brokenf(s, "launch snapshot too large", NULL);
		return;
	}
	memcpy(s->e_config, "ENVSHIM_CONFIG=", 15);
	len = es_policy_format(&s->pol, 0, s->e_config + 15,
	    sizeof(s->e_config) - 15);
	if (len < 0)
		brokenf(s, "effective policy too large to hand down", NULL);
	else if (len > 0 && s->e_config[15 + len - 1] == '\n')
		s->e_config[15 + len - 1] = '\0';	/* tidier in `env` output */
}

/* Copies a load-time ENVSHIM_* entry so later changes to environ don't matter. */
static void
keep_var(struct es_shim *s, char *dst, size_t cap, const char *name)
{
	const char *v = getenv(name);

	if (v != NULL && setvar(dst, cap, name, v) != 0)
		brokenf(s, name, " is too long");
}

/* Any other process: everything comes from the load-time environment. */
static void
init_child(struct es_shim *s)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];
	const char *cfg = getenv("ENVSHIM_CONFIG"), *ns = getenv("ENVSHIM_SANDBOX_NS");
	const char *agent = getenv("ENVSHIM_AGENT");
	unsigned long long d, i, u, m, h = 0;
	ino_t uino, mino;

	keep_var(s, s->e_config, sizeof(s->e_config), "ENVSHIM_CONFIG");
	keep_var(s, s->e_launch, sizeof(s->e_launch), "ENVSHIM_LAUNCH");
	keep_var(s, s->e_agent, sizeof(s->e_agent), "ENVSHIM_AGENT");
	keep_var(s, s->e_ws, sizeof(s->e_ws), "ENVSHIM_WORKSPACE");
	if (es_policy_load_text(&s->pol, cfg != NULL ? cfg : "", "ENVSHIM_CONFIG",
	    &err) != 0) {
		brokenf(s, "bad inherited policy: ", es_parse_err_str(&err, msg,
		    sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (es_snapshot_decode(getenv("ENVSHIM_LAUNCH"), &s->snap) != 0)
		brokenf(s, "malformed ENVSHIM_LAUNCH", NULL);
	if (agent != NULL && sscanf(agent, "%llu:%llu:%llu", &d, &i, &h) >= 2) {
		s->have_agent = 1;
		s->agent_dev = (dev_t)d;
		s->agent_ino = (ino_t)i;
		s->agent_script = h;
	}
	/* Inside only if the namespaces really are the helper's. */
	if (ns != NULL && sscanf(ns, "%llu:%llu", &u, &m) == 2 &&
	    ns_ino("user", &uino) == 0 && ns_ino("mnt", &mino) == 0 &&
	    uino == (ino_t)u && mino == (ino_t)m) {
		s->inside = 1;
		keep_var(s, s->e_ns, sizeof(s->e_ns), "ENVSHIM_SANDBOX_NS");
	}
	if (s->pol.log == ES_LOG_PATH && s->pol.log_path != NULL &&
	    strlen(s->pol.log_path) < sizeof(s->log_path))
		memcpy(s->log_path, s->pol.log_path, strlen(s->pol.log_path) + 1);
}

/* The shim's own absolute path, whatever LD_PRELOAD said (maybe relative). */
static void
find_self(struct es_shim *s)
{
	Dl_info info;
	char path[PATH_MAX], dir[ES_PATH_MAX];
	char *slash;

	if (dladdr((void *)es_shim_init, &info) == 0 || info.dli_fname == NULL ||
	    realpath(info.dli_fname, path) == NULL) {
		brokenf(s, "cannot find the shim's own path", NULL);
		return;
	}
	if (setvar(s->e_preload, sizeof(s->e_preload), "LD_PRELOAD", path) != 0) {
		brokenf(s, "the shim's path is too long", NULL);
		return;
	}
	/* The helper lives next to the shim (build tree), else in libexec. */
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	*slash = '\0';
	s->helper[0] = '\0';
	es_cat(s->helper, sizeof(s->helper), dir);
	es_cat(s->helper, sizeof(s->helper), "/envshim-sandbox");
	if (access(s->helper, X_OK) != 0) {
		s->helper[0] = '\0';
		es_cat(s->helper, sizeof(s->helper), ES_LIBEXECDIR "/envshim-sandbox");
		if (access(s->helper, X_OK) != 0)
			s->helper[0] = '\0';
	}
}

/*
 * The helper holds no secrets (its environment is already filtered) and
 * must write its own uid_map, which a non-dumpable process cannot.
 */
static int
is_helper(const struct es_shim *s)
{
	struct stat self, helper;

	return s->helper[0] != '\0' && stat(s->helper, &helper) == 0 &&
	    stat("/proc/self/exe", &self) == 0 &&
	    self.st_dev == helper.st_dev && self.st_ino == helper.st_ino;
}

void
es_shim_init(struct es_shim *s, char **argv)
{
	size_t k = 0;

	find_self(s);
	if (getenv("ENVSHIM_LAUNCH") == NULL)
		init_root(s, argv);
	else
		init_child(s);
	if (!s->broken && s->pol.protect_self && !is_helper(s))
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	s->forced[k++] = s->e_preload;
	if (s->e_config[0] != '\0')
		s->forced[k++] = s->e_config;
	if (s->e_launch[0] != '\0')
		s->forced[k++] = s->e_launch;
	if (s->e_agent[0] != '\0')
		s->forced[k++] = s->e_agent;
	if (s->e_ws[0] != '\0')
		s->forced[k++] = s->e_ws;
	if (s->e_ns[0] != '\0')
		s->forced[k++] = s->e_ns;
	s->forced[k] = NULL;
}
