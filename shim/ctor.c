/*
 * ctor.c - everything the hooks need, prepared once in the constructor:
 * the policy, the launch snapshot, the agent's identity, the proof of
 * being inside the sandbox, and the entries every child inherits.
 *
 * It runs before main and before the agent can start threads, so it may
 * read files and use stdio-free libc freely.  It never fails: a problem
 * sets s->broken and every launch is then refused with s->why.
 */
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_load.h"
#include "shim.h"

extern char **environ;

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

/* Copies a load-time ENVSHIM_* entry so later changes to environ don't matter. */
static void
keep_var(struct es_shim *s, char *dst, size_t cap, const char *name)
{
	const char *v = getenv(name);

	if (v != NULL && es_setvar(dst, cap, name, v) != 0)
		es_broken(s, name, " is too long");
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
		es_broken(s, "bad inherited policy: ", es_parse_err_str(&err, msg,
		    sizeof(msg)));
		es_policy_init(&s->pol);
		return;
	}
	if (es_snapshot_decode(getenv("ENVSHIM_LAUNCH"), &s->snap) != 0)
		es_broken(s, "malformed ENVSHIM_LAUNCH", NULL);
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
		es_broken(s, "cannot find the shim's own path", NULL);
		return;
	}
	if (es_setvar(s->e_preload, sizeof(s->e_preload), "LD_PRELOAD", path) != 0) {
		es_broken(s, "the shim's path is too long", NULL);
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

/* dl_iterate_phdr: the object loaded at AT_BASE is ld.so itself. */
static int
loader_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct es_shim *s = data;
	struct stat sb;

	(void)size;
	if (info->dlpi_addr != (ElfW(Addr))getauxval(AT_BASE) ||
	    info->dlpi_name == NULL || info->dlpi_name[0] != '/')
		return 0;
	if (stat(info->dlpi_name, &sb) == 0) {
		s->have_ldso = 1;
		s->ldso_dev = sb.st_dev;
		s->ldso_ino = sb.st_ino;
	}
	return 1;
}

/*
 * The loader this process came up with.  A program whose PT_INTERP names
 * any other file is started by that file, which never reads LD_PRELOAD.
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

	return s->helper[0] != '\0' && stat(s->helper, &helper) == 0 &&
	    stat("/proc/self/exe", &self) == 0 &&
	    self.st_dev == helper.st_dev && self.st_ino == helper.st_ino;
}

void
es_shim_init(struct es_shim *s, char **argv)
{
	size_t k = 0;

	find_self(s);
	find_loader(s);
	if (getenv("ENVSHIM_LAUNCH") == NULL)
		es_root_init(s, getenv("ENVSHIM_POLICY"), getenv("ENVSHIM_MODE"),
		    environ, "/proc/self/exe", argv);
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
