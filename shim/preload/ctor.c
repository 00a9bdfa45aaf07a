/*
 * ctor.c - everything the hooks need, prepared once in the constructor:
 * the policy, the launch snapshot, the agent's identity, the proof of
 * being inside the sandbox, and the entries every child inherits.  In
 * contain mode it also filters the process's own environment and sends
 * a shell outside the sandbox into it (contain_self).
 *
 * It runs before main and before the agent can start threads, so it may
 * read files and use stdio-free libc freely.  It never fails: a problem
 * sets s->broken and every launch is then refused with s->why.
 */
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "es_session.h"
#include "shim.h"

extern char **environ;

/*
 * "N:N[:N]" as the launch root and the helper write it: up to max decimal
 * numbers separated by ':'.  Returns how many were read before anything
 * else; sscanf cost a child six pages of libc it touched for nothing else.
 */
static int
nums(const char *p, unsigned long long *v, int max)
{
	int k = 0;

	while (k < max && *p >= '0' && *p <= '9') {
		v[k] = 0;
		while (*p >= '0' && *p <= '9')
			v[k] = v[k] * 10 + (unsigned long long)(*p++ - '0');
		k++;
		if (*p++ != ':')
			break;
	}
	return k;
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

/* Copies an inherited ENVSHIM_* entry so later changes to environ don't matter. */
static void
keep_var(struct es_shim *s, char *const *vars, char **dst, size_t cap, const char *name)
{
	const char *v = es_env_value(vars, name);
	char *t;

	if (v == NULL)
		return;
	if ((t = es_text_put(s, cap, name, v)) == NULL)
		es_broken(s, name, " is too long");
	else
		*dst = t;
}

/*
 * A launch the agent made of a program rule's program, or a descendant
 * of one: the mark, "I:FILE:LINE", names the rule.  A mark naming no rule
 * of this policy is no mark (its keeps would be a guess).
 */
static void
marked(struct es_shim *s)
{
	const char *m = s->e_program;
	unsigned long long i;

	if (strncmp(m, "ENVSHIM_PROGRAM=", 16) != 0)
		return;
	m += 16;
	if (nums(m, &i, 1) != 1 || i >= s->pol.nprograms ||
	    (m = strchr(m, ':')) == NULL) {
		s->e_program = s->text;
		return;
	}
	s->program = (int)i + 1;
	s->program_rule = m + 1;
}

/*
 * Inside only if the namespaces really are the helper's: ENVSHIM_SANDBOX_NS
 * from the load-time environment names this process's own.  A launch root
 * can be inside too: the helper run directly with the shim preloaded.  A
 * launch root's variable is nobody's forced value, though, and its own
 * namespaces are easy to name: it must also find the records socket the
 * helper's init made in the sandbox's private /dev/shm, by its inode.
 */
static void
prove_inside(struct es_shim *s, int root)
{
	const char *ns = getenv("ENVSHIM_SANDBOX_NS");
	unsigned long long n[4] = { 0, 0, 0, 0 };
	struct stat st;
	ino_t uino, mino;
	int k;

	/*
	 * Records go to the helper's outer over the socket at ES_LOG_SOCK,
	 * whose inode the fourth field is: the log is not in the sandbox.
	 */
	if (ns == NULL || (k = nums(ns, n, 4)) < 2 ||
	    ns_ino("user", &uino) != 0 || ns_ino("mnt", &mino) != 0 ||
	    uino != (ino_t)n[0] || mino != (ino_t)n[1])
		return;
	if (root && (k != 4 || lstat(ES_LOG_SOCK, &st) == -1 ||
	    !S_ISSOCK(st.st_mode) || st.st_ino != (ino_t)n[3]))
		return;
	s->inside = 1;
	s->sandbox_pid = (long)n[2];
	if (k == 4)
		s->log_sock = n[3];
	keep_var(s, environ, &s->e_ns, ES_CAP_NS, "ENVSHIM_SANDBOX_NS");
}

/*
 * Any other process: the launch state comes from vars, the load-time
 * environment (or, in contain mode, the namespace's contain file).
 */
static void
init_child(struct es_shim *s, char *const *vars)
{
	struct es_parse_err err;
	char msg[ES_PATH_MAX + 256];
	const char *cfg = es_env_value(vars, "ENVSHIM_CONFIG");
	const char *agent = es_env_value(vars, "ENVSHIM_AGENT");
	unsigned long long a[4] = { 0, 0, 0, 0 };
	char var[ES_CAP_AGENT];
	char *t;

	keep_var(s, vars, &s->e_config, ES_CAP_CONFIG, "ENVSHIM_CONFIG");
	keep_var(s, vars, &s->e_launch, ES_CAP_LAUNCH, "ENVSHIM_LAUNCH");
	keep_var(s, vars, &s->e_tree, ES_CAP_TREE, "ENVSHIM_AGENT_TREE");
	keep_var(s, vars, &s->e_ws, ES_CAP_WS, "ENVSHIM_WORKSPACE");
	keep_var(s, vars, &s->e_session, ES_CAP_SESSION, ES_SESSION_VAR);
	keep_var(s, vars, &s->e_program, ES_CAP_PROGRAM, "ENVSHIM_PROGRAM");
	/* s is static and this process fresh: its policy is still all zero. */
	if (cfg == NULL)
		cfg = "";
	es_policy_init_zeroed(&s->pol);
	if (es_policy_parse(&s->pol, cfg, strlen(cfg), "ENVSHIM_CONFIG",
	    &err) != 0) {
		es_broken(s, "bad inherited policy: ", es_parse_err_str(&err, msg,
		    sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (es_snapshot_decode(es_env_value(vars, "ENVSHIM_LAUNCH"), &s->snap) != 0)
		es_broken(s, "malformed ENVSHIM_LAUNCH", NULL);
	marked(s);
	/*
	 * "dev:ino:script" is the launch root's file; a fourth field ":1"
	 * is its parent saying this launch is the agent.  Children get the
	 * three fields, and the ":1" only when they are the agent too.
	 */
	if (agent != NULL && nums(agent, a, 4) >= 2) {
		s->have_agent = 1;
		s->agent_dev = (dev_t)a[0];
		s->agent_ino = (ino_t)a[1];
		s->agent_script = a[2];
		s->handed = a[3] == 1;
		es_agent_var(var, s->agent_dev, s->agent_ino, s->agent_script, 0);
		if ((t = es_text_put(s, ES_CAP_AGENT, NULL, var)) != NULL)
			s->e_agent = t;
		es_agent_var(var, s->agent_dev, s->agent_ino, s->agent_script, 1);
		if ((t = es_text_put(s, ES_CAP_AGENT, NULL, var)) != NULL)
			s->e_agent_self = t;
	}
	if (s->e_tree[0] != '\0' &&
	    es_tree_parse(s, s->e_tree + strlen("ENVSHIM_AGENT_TREE=")) != 0)
		es_broken(s, "malformed ENVSHIM_AGENT_TREE", NULL);
	prove_inside(s, 0);
	if (s->pol.log == ES_LOG_PATH && s->pol.log_path != NULL &&
	    (t = es_text_put(s, ES_PATH_MAX, NULL, s->pol.log_path)) != NULL)
		s->log_path = t;
}

/*
 * What a program rule's check needs to know where sandboxed commands
 * write (es_planted in launch.c): the home their "~/" paths name and the
 * kept layers' directory, found as the helper finds them in this same
 * environment.  Only where a rule can apply: outside the sandbox, in the
 * agent or a rule's subtree, so no other process pays for the lookups.
 */
static void
writable_places(struct es_shim *s)
{
	const char *h = getenv("HOME");
	char buf[ES_PATH_MAX];
	size_t top;
	char *t;

	if (s->broken || s->inside || s->pol.nprograms == 0)
		return;
	if (h != NULL && h[0] == '/' &&
	    (t = es_text_put(s, ES_PATH_MAX, NULL, h)) != NULL)
		s->home = t;
	if (es_layer_dir(h, NULL, buf, sizeof(buf)) == 0 &&
	    (t = es_text_put(s, ES_PATH_MAX, NULL, buf)) != NULL)
		s->layers = t;
	/* every run's session: its tmp/ and home/ are its commands' to write */
	if (es_session_base(buf, sizeof(buf), &top) == 0 &&
	    (t = es_text_put(s, ES_PATH_MAX, NULL, buf)) != NULL)
		s->sessions = t;
}

/*
 * Contain mode is on when ES_CONTAIN_FILE exists: `envshim --contain`
 * puts it, with /etc/ld.so.preload, into a read-only overlay on /etc in
 * the agent's namespace, so no descendant can change or lose it (the
 * environment can be stripped; this file cannot).  It holds the launch
 * state as NUL-separated "ENVSHIM_*=VALUE" entries.  Returns 1 with
 * vars filled (pointing into *buf), 0 when there is no such file, or -1
 * (s->broken) when it exists but cannot be trusted or read.
 */
static int
read_contain(struct es_shim *s, char **buf, char *vars[ES_NFORCED + 1])
{
	struct statvfs vfs;
	struct stat sb;
	size_t got = 0, k = 0, i;
	ssize_t r;
	int fd;

	fd = open(ES_CONTAIN_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    fstatvfs(fd, &vfs) != 0 || !(vfs.f_flag & ST_RDONLY) ||
	    sb.st_size <= 0 || sb.st_size > ES_CONTAIN_MAX ||
	    (*buf = malloc((size_t)sb.st_size + 1)) == NULL) {
		if (fd >= 0)
			close(fd);
		es_broken(s, ES_CONTAIN_FILE, " is unreadable or not on a read-only mount");
		return -1;
	}
	while (got < (size_t)sb.st_size &&
	    (r = read(fd, *buf + got, (size_t)sb.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	(*buf)[got] = '\0';
	for (i = 0; i < got && k < ES_NFORCED; i += strlen(*buf + i) + 1)
		vars[k++] = *buf + i;
	vars[k] = NULL;
	return 1;
}

/*
 * The environment block the kernel laid out (what /proc/self/environ
 * reads) is overwritten with the kept entries that fit, the rest of it
 * zeroed, and environ pointed at the kept entries: the values of dropped
 * variables are gone from this process, not merely hidden from getenv.
 */
static void
rewrite_env(const char *const *kept, size_t k)
{
	char *lo = NULL, *hi = NULL, *buf, *b, *at, **arr;
	size_t n, i, total = 0, len;
	int spilled = 0;

	for (n = 0; environ != NULL && environ[n] != NULL; n++) {
		char *e = environ[n] + strlen(environ[n]) + 1;

		if (lo == NULL || environ[n] < lo)
			lo = environ[n];
		if (hi == NULL || e > hi)
			hi = e;
	}
	for (i = 0; i < k; i++)
		total += strlen(kept[i]) + 1;
	buf = malloc(total + 1);
	arr = k <= n && environ != NULL ? environ : malloc((k + 1) * sizeof(*arr));
	if (buf == NULL || arr == NULL) {
		/* Fail closed: keep nothing rather than everything. */
		if (lo != NULL)
			memset(lo, 0, (size_t)(hi - lo));
		if (environ != NULL)
			environ[0] = NULL;
		free(buf);
		return;
	}
	for (i = 0, b = buf; i < k; i++) {
		len = strlen(kept[i]) + 1;
		memcpy(b, kept[i], len);
		arr[i] = b;
		b += len;
	}
	if (lo != NULL)
		memset(lo, 0, (size_t)(hi - lo));
	for (i = 0, at = lo; i < k; i++) {
		len = strlen(arr[i]) + 1;
		if (at != NULL && len <= (size_t)(hi - at)) {
			memcpy(at, arr[i], len);
			arr[i] = at;
			at += len;
		} else
			spilled = 1;
	}
	arr[k] = NULL;
	environ = arr;
	if (!spilled)
		free(buf);
}

/* Did the filter change anything but restate the entries the shim forces? */
static int
changed(const struct es_shim *s, const struct es_plan *pl)
{
	size_t i, j;

	for (i = 0; i < pl->n; i++) {
		if (pl->in[i] == NULL || pl->v[i].action == ES_KEEP)
			continue;
		if (pl->v[i].reason != ES_R_LOCKED)
			return 1;
		for (j = 0; s->forced[j] != NULL; j++)
			if (strcmp(s->forced[j], pl->in[i]) == 0)
				break;
		if (s->forced[j] == NULL)
			return 1;
	}
	return 0;
}

static int is_helper(const struct es_shim *);

/*
 * Contain mode, before main: this process may have been started by a
 * parent the shim never saw (a static agent), with any environment.  So
 * it filters its own environment exactly as a hook would have, and what
 * the hook would have sent to the sandbox (under `sandbox all` every
 * process outside but the agent's own files; a shell under `sandbox
 * shells`) executes itself again through the helper, with the same argv,
 * before anything of its own ran.  The agent itself keeps everything.
 * Only a change is logged: a process a shim'd parent launched was logged
 * by it.
 */
static void
contain_self(struct es_shim *s, char **argv)
{
	struct es_target t;
	struct es_plan pl;
	char exe[ES_PATH_MAX];
	const char *why = NULL;
	ssize_t r;
	size_t k;

	es_judge(s, AT_FDCWD, "/proc/self/exe", -1, 0, argv, &t);
	/* Nobody saw its parent: the agent is known by its file alone. */
	if (t.agent_file) {
		s->is_agent = 1;
		return;
	}
	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[r > 0 ? r : 0] = '\0';
	es_plan_init(&pl, "contain", exe, exe, environ);
	t.unfollow = 0;		/* /etc/ld.so.preload follows into setuid programs */
	pl.action = es_decide(s, &t, 0, &why);	/* no program rules here */
	/*
	 * The helper is where a launch goes: one linked dynamically (the ASan
	 * build, a stand-in) loads the shim through ld.so.preload, and sent
	 * to the sandbox it would execute itself for ever.
	 */
	if (pl.action == ES_A_SANDBOX && is_helper(s))
		pl.action = ES_A_RUN;
	/* Broken, nothing can be planned: outside, nothing but the agent runs. */
	if (s->broken) {
		pl.action = s->inside ? ES_A_RUN : ES_A_REFUSE;
		why = s->why;
	} else if (pl.action == ES_A_SANDBOX && s->real_execve == NULL) {
		pl.action = ES_A_REFUSE;
		why = "the sandbox helper envshim-sandbox is not installed";
	}
	pl.why = why;
	if (es_plan_make(s, &pl, argv, NULL) != 0) {
		es_say_refused(exe, pl.why);
		rewrite_env(NULL, 0);
		return;
	}
	why = pl.why;
	if (changed(s, &pl) || pl.action != ES_A_RUN)
		es_plan_log(s, &pl, ES_PID_SELF, argv);
	if (s->pol.mode == ES_MODE_AUDIT) {
		es_plan_release(&pl);
		return;
	}
	for (k = 0; pl.envp[k] != NULL; k++)
		;
	rewrite_env(pl.envp, k);
	if (pl.action == ES_A_SANDBOX) {
		s->real_execve(pl.target, pl.argv, environ);
		why = "cannot execute the sandbox helper";
		pl.action = ES_A_REFUSE;
	}
	es_plan_release(&pl);
	if (pl.action == ES_A_REFUSE) {
		es_say_refused(exe, why);
		_exit(126);
	}
}

/* Absolute, with no empty, "." or ".." component: as realpath leaves it. */
static int
clean_abs(const char *p)
{
	if (p[0] != '/')
		return 0;
	for (; *p != '\0'; p++)
		if (p[0] == '/' && (p[1] == '/' || p[1] == '\0' ||
		    (p[1] == '.' && (p[2] == '/' || p[2] == '\0' ||
		    (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))))
			return 0;
	return 1;
}

/* The shim's own absolute path, whatever LD_PRELOAD said (maybe relative). */
static void
find_self(struct es_shim *s)
{
	Dl_info info;
	char path[PATH_MAX], dir[ES_PATH_MAX];
	char *slash, *t;

	if (dladdr((void *)es_shim_init, &info) == 0 || info.dli_fname == NULL) {
		es_broken(s, "cannot find the shim's own path", NULL);
		return;
	}
	/*
	 * A child was handed the root's resolved path; resolving it again
	 * cost every process a readlink per component.  Anything else -
	 * the root, or a path that is relative or not clean - is resolved.
	 */
	if (getenv("ENVSHIM_LAUNCH") != NULL && clean_abs(info.dli_fname) &&
	    strlen(info.dli_fname) < sizeof(path))
		memcpy(path, info.dli_fname, strlen(info.dli_fname) + 1);
	else if (realpath(info.dli_fname, path) == NULL) {
		es_broken(s, "cannot find the shim's own path", NULL);
		return;
	}
	if ((t = es_text_put(s, ES_CAP_PRELOAD, "LD_PRELOAD", path)) == NULL) {
		es_broken(s, "the shim's path is too long", NULL);
		return;
	}
	s->e_preload = t;
	/* The helper next to the shim (build tree), if it is there: es_helper. */
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (es_cat(dir, sizeof(dir), "/envshim-sandbox") == 0 &&
	    (t = es_text_put(s, ES_PATH_MAX, NULL, dir)) != NULL)
		s->helper = t;
}

/*
 * dl_iterate_phdr: the object loaded at AT_BASE is ld.so itself, named
 * as the program's PT_INTERP named it.  The name lives in ld.so's own
 * memory for as long as the process does.
 */
static int
loader_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct es_shim *s = data;

	(void)size;
	if (info->dlpi_addr != (ElfW(Addr))getauxval(AT_BASE) ||
	    info->dlpi_name == NULL || info->dlpi_name[0] != '/')
		return 0;
	s->ldso = info->dlpi_name;
	return 1;
}

/*
 * The loader this process came up with.  A program whose PT_INTERP names
 * any other file is started by that file, which never reads LD_PRELOAD.
 * It is only named here: stat'ing it in every process was a syscall that
 * the usual target, naming the very same path, never needs.
 */
static void
find_loader(struct es_shim *s)
{
	if (getauxval(AT_BASE) != 0)
		dl_iterate_phdr(loader_cb, s);
}

/*
 * The helper holds no secrets (its environment is already filtered) and
 * must write its own uid_map, which a non-dumpable process cannot.
 */
static int
is_helper(const struct es_shim *s)
{
	struct stat self, helper;
	const char *h = es_helper(s);

	return h != NULL && stat(h, &helper) == 0 &&
	    stat("/proc/self/exe", &self) == 0 &&
	    self.st_dev == helper.st_dev && self.st_ino == helper.st_ino;
}

/*
 * What a record need not list: the shim's own entries, replaced by the
 * same, and in the launch root the ENVSHIM_POLICY and ENVSHIM_MODE it was
 * started with, which every launch drops as `locked`.  Only the agent
 * changing them is news.  The entries are environ's own, which setenv
 * replaces but never rewrites.
 */
static void
quiet_list(struct es_shim *s, int root)
{
	size_t k = 0, i;

	for (i = 0; s->forced[i] != NULL; i++)
		s->quiet[k++] = s->forced[i];
	if (s->e_agent_self[0] != '\0')
		s->quiet[k++] = s->e_agent_self;
	for (i = 0; root && environ != NULL && environ[i] != NULL; i++)
		if (strncmp(environ[i], "ENVSHIM_POLICY=", 15) == 0 ||
		    strncmp(environ[i], "ENVSHIM_MODE=", 13) == 0) {
			if (k == ES_NFORCED + 3)
				break;
			s->quiet[k++] = environ[i];
		}
	s->quiet[k] = NULL;
}

/*
 * Is this program a launcher - a shell or env - whose exec in place hands
 * the agent on (pyenv's and asdf's shims, `#!/usr/bin/env node`, a
 * wrapper's `exec node cli.js`)?  Any other agent's own exec is a launch.
 */
static int
is_launcher(const struct es_shim *s)
{
	char exe[ES_PATH_MAX];
	const char *b;
	ssize_t r;

	r = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (r <= 0)
		return 0;
	exe[r] = '\0';
	b = strrchr(exe, '/');
	return strcmp(b != NULL ? b + 1 : exe, "env") == 0 ||
	    es_is_shell(&s->pol, exe);
}

/*
 * Only the agent holds the secrets - the launch root and what it handed
 * itself to - so only it turns undumpable.  Everything else it runs has
 * a filtered environment, and undumpable tools break (unshare -r,
 * rootless podman and gdb cannot write or read their own /proc files).
 * Outside contain mode the parent's word decides (ENVSHIM_AGENT's ":1",
 * which the shim forces on exactly the agent's own launches); in contain
 * mode nobody may have seen the parent, and contain_self judged the file.
 */
static int
holds_secrets(const struct es_shim *s, int root)
{
	if (root)
		return !is_helper(s);
	if (s->inside || !s->have_agent)
		return 0;
	return s->contain ? s->is_agent : s->handed;
}

/*
 * The agent's environment as it starts, by hash of each entry, so that a
 * secret set for one child is told from one the agent had, even when the
 * child's block is environ itself by then (libuv sets it before execvp).
 */
static void
remember_own(struct es_shim *s)
{
	size_t i;

	for (i = 0; environ != NULL && environ[i] != NULL; i++) {
		if (s->nown == ES_OWN_MAX) {
			s->own_full = 1;
			return;
		}
		s->own[s->nown++] = es_hash(environ[i], strlen(environ[i]));
	}
}

void
es_shim_init(struct es_shim *s, char **argv)
{
	char *vars[ES_NFORCED + 1], *cbuf = NULL;
	size_t k = 0;
	int contain, root;

	es_text_init(s);
	find_self(s);
	find_loader(s);
	contain = read_contain(s, &cbuf, vars);
	root = contain == 0 && getenv("ENVSHIM_LAUNCH") == NULL;
	s->contain = contain > 0;
	if (contain > 0)
		init_child(s, vars);
	else if (root) {
		es_root_init(s, getenv("ENVSHIM_POLICY"), getenv("ENVSHIM_MODE"),
		    environ, "/proc/self/exe", argv);
		prove_inside(s, 1);
	}
	else if (contain == 0)
		init_child(s, environ);
	free(cbuf);
	s->forced[k++] = s->e_preload;
	if (s->e_config[0] != '\0')
		s->forced[k++] = s->e_config;
	if (s->e_launch[0] != '\0')
		s->forced[k++] = s->e_launch;
	if (s->e_agent[0] != '\0')
		s->forced[k++] = s->e_agent;
	if (s->e_tree[0] != '\0')
		s->forced[k++] = s->e_tree;
	if (s->e_ws[0] != '\0')
		s->forced[k++] = s->e_ws;
	if (s->e_ns[0] != '\0')
		s->forced[k++] = s->e_ns;
	if (s->e_session[0] != '\0')
		s->forced[k++] = s->e_session;
	if (s->e_program[0] != '\0')
		s->forced[k++] = s->e_program;
	s->forced[k] = NULL;
	quiet_list(s, root);
	if (contain != 0)
		contain_self(s, argv);
	if (!s->broken && holds_secrets(s, root)) {
		s->is_agent = 1;
		remember_own(s);
		s->self_launcher = is_launcher(s);
		s->self_pid = getpid();
		if (s->pol.protect_self)
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	} else if (!s->broken && s->program != 0) {
		/* an env launcher of the rule's program becomes it in place */
		s->self_launcher = is_launcher(s);
		s->self_pid = getpid();
		/* What a program rule kept is as secret as the agent's. */
		if (s->pol.protect_self)
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	}
	/* only the agent and a rule's subtree ask es_planted */
	if (s->is_agent || s->program != 0)
		writable_places(s);
}

/*
 * The session ends with the process it was made for: the launch root, or
 * what that became by an exec in place (its pid stays).  A fork of it, a
 * tool, or anything inside the sandbox (other pids, or its own pid
 * namespace's) leaves it alone.
 */
void
es_shim_end(struct es_shim *s)
{
	const char *dir = s->e_session;

	if (dir == NULL || dir[0] == '\0' || s->inside)
		return;
	dir += sizeof(ES_SESSION_VAR);
	if (es_session_pid(dir) == getpid())
		(void)es_session_remove(dir);
}
