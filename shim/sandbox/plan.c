/*
 * plan.c - envshim-sandbox: the outer's plan for init.
 *
 * Where the command is, which environment it gets, the home and the
 * workspace, the audit log, and every mount init will make: decided here,
 * before the clone, where lookups and allocation are allowed, so init
 * only makes system calls.  What cannot be planned is refused (exit 125).
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_hide.h"
#include "es_load.h"
#include "es_session.h"
#include "sbx.h"

extern char **environ;

/* The plan is made once and held to the end: out of memory is a refusal. */
static void *
xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n, sz)) == NULL)
		es_sbx_refuse("out of memory");
	return p;
}

/* The same for a string. */
static char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		es_sbx_refuse("out of memory");
	return p;
}

/* "~/x" under $HOME, "rel" under base; NULL when there is no $HOME. */
static char *
expand(const char *s, const char *home, const char *base)
{
	char buf[ES_PATH_MAX];
	int n;

	if (s[0] == '~' && (s[1] == '/' || s[1] == '\0')) {
		if (home == NULL)
			return NULL;
		n = snprintf(buf, sizeof(buf), "%s%s", home, s + 1);
	} else if (s[0] != '/')
		n = snprintf(buf, sizeof(buf), "%s/%s", base, s);
	else
		n = snprintf(buf, sizeof(buf), "%s", s);
	if (n < 0 || (size_t)n >= sizeof(buf))
		es_sbx_refuse("path too long: %.64s...", s);
	return xstrdup(buf);
}

/* execvp's search, done once here so init needs no lookup. */
char *
es_sbx_resolve(const char *cmd)
{
	char buf[ES_PATH_MAX];
	const char *path;

	if (strchr(cmd, '/') != NULL)
		return xstrdup(cmd);
	if ((path = getenv("PATH")) == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	if (es_path_find(cmd, path, buf, sizeof(buf)) == 0)
		return xstrdup(buf);
	dprintf(STDERR_FILENO, "envshim-sandbox: %s: command not found\n", cmd);
	exit(127);
}

/*
 * $HOME, else the caller's /etc/passwd entry, read directly: the static
 * helper has no NSS modules to load.  A caller known only to another
 * source (LDAP, sssd) must say HOME, or the ~ paths could not be hidden.
 */
const char *
es_sbx_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;
	uid_t uid = getuid();
	FILE *f;

	if (h != NULL && h[0] == '/')
		return h;
	if ((f = fopen("/etc/passwd", "re")) != NULL) {
		while ((pw = fgetpwent(f)) != NULL)
			if (pw->pw_uid == uid && pw->pw_dir[0] == '/') {
				h = xstrdup(pw->pw_dir);
				break;
			}
		fclose(f);
	}
	if (h == NULL || h[0] != '/')
		es_sbx_refuse("HOME is not set and uid %lu has no home in "
		    "/etc/passwd; set HOME", (unsigned long)uid);
	return h;
}

/* Is a an ancestor of b (or b itself)?  Both canonical. */
static int
covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '/' || b[n] == '\0');
}

/*
 * Does p lie where a sandboxed command can write, as this process sees
 * the file system: the workspace, a path bound writable, the session's
 * temp directories, the home's layer?  A link there may be a command's,
 * and point anywhere.
 */
static int
writable_at(const struct es_sbx_plan *pl, const char *p)
{
	size_t i;

	if ((pl->ws != NULL && covers(pl->ws, p)) ||
	    (pl->s_tmp != NULL && covers(pl->s_tmp, p)) ||
	    (pl->s_vartmp != NULL && covers(pl->s_vartmp, p)) ||
	    (pl->s_up != NULL && covers(pl->s_up, p)))
		return 1;
	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == ES_MK_RW && covers(pl->mnt[i].path, p))
			return 1;
	return 0;
}

/* The next name of a path from s, its end in *e; NULL at the path's end. */
static const char *
next_name(const char *s, const char **e)
{
	while (*s == '/')
		s++;
	*e = strchrnul(s, '/');
	return *s != '\0' ? s : NULL;
}

/*
 * realpath(3), one component at a time: path without a link, into out.
 * 0; 1 when the way passes a link that lies where a sandboxed command
 * can write (writable_at), whose target the command chose; -1 when the
 * path does not exist or cannot be resolved.
 */
static int
resolve(const struct es_sbx_plan *pl, const char *path, char *out, size_t len)
{
	char rest[ES_PATH_MAX], link[ES_PATH_MAX];
	const char *p, *s, *e;
	struct stat st;
	size_t o = 0, n;
	ssize_t k;
	int hops = 0;

	if (path[0] != '/' || (n = strlen(path)) >= sizeof(rest) || len < 2)
		return -1;
	memcpy(rest, path, n + 1);
	out[0] = '\0';
	for (p = rest; (s = next_name(p, &e)) != NULL; p = e) {
		n = (size_t)(e - s);
		if (n == 1 && s[0] == '.')
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[--o] != '/')
				;
			out[o] = '\0';
			continue;
		}
		if (o + 1 + n >= len)
			return -1;
		out[o] = '/';
		memcpy(out + o + 1, s, n);
		out[o + 1 + n] = '\0';
		if (lstat(out, &st) == -1)
			return -1;
		if (!S_ISLNK(st.st_mode)) {
			o += 1 + n;
			continue;
		}
		if (writable_at(pl, out))
			return 1;
		if (++hops > 40 ||
		    (k = readlink(out, link, sizeof(link) - 1)) <= 0 ||
		    (size_t)k + strlen(e) >= sizeof(rest))
			return -1;
		/* the link's text, then what was left after it */
		memmove(rest + k, e, strlen(e) + 1);
		memcpy(rest, link, (size_t)k);
		e = rest;
		if (link[0] == '/')
			o = 0;
		out[o] = '\0';
	}
	if (o == 0)
		memcpy(out, "/", 2);
	return 0;
}

/*
 * $ENVSHIM_WORKSPACE (the agent's), else where we are: the one tree the
 * command may write, so never / nor anything holding the home.
 */
char *
es_sbx_workspace(const char *home)
{
	const char *w = getenv("ENVSHIM_WORKSPACE");
	char *ws, *rh, cwd[ES_PATH_MAX];

	if (w == NULL || *w == '\0') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			es_sbx_refuse("cannot read the working directory: %s",
			    strerror(errno));
		w = cwd;
	}
	if ((ws = realpath(w, NULL)) == NULL)
		es_sbx_refuse("workspace %s: %s", w, strerror(errno));
	if (strcmp(ws, "/") == 0)
		es_sbx_refuse("the workspace is /; run from a project "
		    "directory");
	if (home != NULL && (rh = realpath(home, NULL)) != NULL) {
		if (covers(ws, rh))
			es_sbx_refuse("the workspace %s is your home "
			    "directory or contains it; run from a project "
			    "directory", ws);
		free(rh);
	}
	return ws;
}

/* The mount, once: a path named twice (policy and default) is one mount. */
static int
add_mnt(struct es_sbx_plan *pl, int kind, const char *path)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++)
		if (pl->mnt[i].kind == kind &&
		    strcmp(pl->mnt[i].path, path) == 0)
			return 0;
	if (pl->nmnt == ES_SBX_NMNT)
		es_sbx_refuse("too many sandbox paths (at most %d)",
		    ES_SBX_NMNT);
	pl->mnt[pl->nmnt].kind = kind;
	pl->mnt[pl->nmnt].path = path;
	pl->nmnt++;
	return 1;
}

/* A writable bind of rp, a path without a link. */
static void
rw_at(struct es_sbx_plan *pl, const char *rp)
{
	struct statvfs sv;
	char *p = xstrdup(rp);

	if (!add_mnt(pl, ES_MK_RW, p)) {
		free(p);	/* listed already: its flags stay as they are */
		return;
	}
	if (statvfs(p, &sv) == 0 && (sv.f_flag & ST_RDONLY))
		pl->mnt[pl->nmnt - 1].host_ro = 1;
}

/*
 * A writable bind, if the path exists, at its path without a link; none
 * when the way there passes a link a sandboxed command could have made
 * (in the workspace, or in a path already bound writable): its target
 * would be the command's choice.
 */
static void
add_rw(struct es_sbx_plan *pl, const char *path)
{
	char rp[ES_PATH_MAX];

	if (path != NULL && resolve(pl, path, rp, sizeof(rp)) == 0)
		rw_at(pl, rp);
}

/*
 * Files that must stay visible inside, read-only, also under /tmp, which
 * the private /tmp covers (and /var/tmp, which a session's covers): the
 * shim (the shells' children are filtered by it, and it sends their
 * records to the outer), the command itself, and the home.
 */
static void
keep_file(struct es_sbx_plan *pl, const char *path)
{
	char buf[ES_PATH_MAX], *rp;

	/* none through a link a command made (a file of the agent's TMPDIR) */
	if (path == NULL || path[0] != '/' ||
	    resolve(pl, path, buf, sizeof(buf)) != 0)
		return;
	/*
	 * elsewhere the read-only root shows it; the workspace is bound; the
	 * session's temp directories are the sandbox's own
	 */
	if (!(covers("/tmp", buf) || (pl->s_tmp != NULL &&
	    covers("/var/tmp", buf))) || (pl->ws != NULL &&
	    covers(pl->ws, buf)) || writable_at(pl, buf))
		return;
	rp = xstrdup(buf);
	if (!add_mnt(pl, ES_MK_KEEP, rp))
		free(rp);
}

/* The shim LD_PRELOAD names, and the command, if they live under /tmp. */
static void
keep_shim(struct es_sbx_plan *pl)
{
	const char *x = getenv("LD_PRELOAD");

	/* The shim forces exactly one absolute entry; anything else: not ours. */
	if (x != NULL && strpbrk(x, " :") == NULL)
		keep_file(pl, x);
	keep_file(pl, pl->path);
}

/*
 * Where a hidden path is mounted: its path without a link, as the
 * link's owner meant it (a dotfile manager's ~/.npmrc hides its target).
 * NULL to leave it be: it is gone, or the way there passes a link a
 * sandboxed command could have made, which would move the placeholder
 * where the command chose (over /usr/bin); what such a link reaches is
 * the command's own, or hidden by its own entry.  init mounts it without
 * following a link (mount.c, at_path).  The directories are resolved
 * once each: most hidden paths share a few.
 */
static char *
canon_hide(const struct es_sbx_plan *pl, const char *path)
{
	static struct { char *dir, *canon; } memo[32];
	static size_t nmemo;
	char dir[ES_PATH_MAX], buf[ES_PATH_MAX], out[ES_PATH_MAX];
	const char *canon = NULL, *name;
	struct stat st;
	size_t dl, i;

	for (dl = strlen(path); dl > 1 && path[dl - 1] == '/'; dl--)
		;
	if (path[0] != '/' || dl >= sizeof(dir))
		return NULL;
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	name = strrchr(dir, '/') + 1;
	if (*name == '\0')
		return xstrdup("/");
	dir[name - 1 - dir] = '\0';
	for (i = 0; i < nmemo; i++)
		if (strcmp(memo[i].dir, dir) == 0) {
			canon = memo[i].canon;
			break;
		}
	if (i == nmemo) {
		if (resolve(pl, dir[0] != '\0' ? dir : "/", buf,
		    sizeof(buf)) == 0)
			canon = buf;
		if (nmemo < sizeof(memo) / sizeof(memo[0])) {
			memo[nmemo].dir = xstrdup(dir);
			memo[nmemo].canon = canon ? xstrdup(canon) : NULL;
			canon = memo[nmemo++].canon;
		}
	}
	if (canon == NULL || snprintf(out, sizeof(out), "%s/%s",
	    strcmp(canon, "/") == 0 ? "" : canon, name) >= (int)sizeof(out) ||
	    lstat(out, &st) == -1)
		return NULL;
	if (!S_ISLNK(st.st_mode))
		return xstrdup(out);
	return resolve(pl, out, buf, sizeof(buf)) == 0 ? xstrdup(buf) : NULL;
}

/* A hidden path, planned once, mounted at at (canon_hide, or path itself). */
static void
hide_at(struct es_sbx_plan *pl, char *path, char *at, int isdir)
{
	pl->mnt[pl->nmnt].kind = isdir ? ES_MK_HIDE_DIR : ES_MK_HIDE_FILE;
	pl->mnt[pl->nmnt].path = path;
	pl->mnt[pl->nmnt].at = at;
	if (strcmp(at, path) == 0) {
		free(at);
		pl->mnt[pl->nmnt].at = NULL;
	}
	pl->nmnt++;
}

/*
 * An empty stand-in, if the path exists: tmpfs for a directory, else null.
 * With own, path was allocated for this call and is freed if not kept.
 */
static void
add_hide(struct es_sbx_plan *pl, char *path, int own)
{
	struct stat st;
	char *at;
	size_t i;

	if (path != NULL && path[0] == '/' && stat(path, &st) == 0 &&
	    (at = canon_hide(pl, path)) != NULL) {
		for (i = 0; i < pl->nmnt; i++)
			if ((pl->mnt[i].kind == ES_MK_HIDE_DIR ||
			    pl->mnt[i].kind == ES_MK_HIDE_FILE) &&
			    strcmp(ES_MNT_AT(&pl->mnt[i]), at) == 0)
				break;
		if (i == pl->nmnt && pl->nmnt < ES_SBX_NMNT) {
			hide_at(pl, own ? path : xstrdup(path), at,
			    S_ISDIR(st.st_mode));
			return;
		}
		free(at);
	}
	if (own)
		free(path);
}

/* What the hide step is given: the plan, and what stays readable. */
struct hide_ctx {
	struct es_sbx_plan	*pl;
	uint64_t		 seen[2 * ES_HIDE_MOUNTS];	/* hashes, 0 = free */
	const char		*home;
	const struct es_policy	*p;
	int			 builtin;	/* KEEP applies to builtin entries only */
	int			 ifsecret;	/* the entry is ES_HIDE_IFSECRET */
	const char		*stub;		/* ... and its placeholder's text */
};
/*
 * Is path new?  Two entries may name one file ($CLAUDE_CONFIG_DIR set to
 * ~/.claude): it is hidden once.  A full table counts as new: a second
 * bind over the same file is harmless.
 */
static int
first_time(struct hide_ctx *h, const char *path)
{
	const size_t cap = sizeof(h->seen) / sizeof(h->seen[0]);
	uint64_t v = es_hash(path, strlen(path)) | 1;
	size_t i, k;

	for (i = v % cap, k = 0; k < cap; i = (i + 1) % cap, k++) {
		if (h->seen[i] == v)
			return 0;
		if (h->seen[i] == 0) {
			h->seen[i] = v;
			return 1;
		}
	}
	return 1;
}

/*
 * One path to hide, found by expansion.  Never the workspace or what holds
 * it: the one writable tree stays.  A directory gets an empty directory,
 * anything else an empty file (mount.c).  Build configuration is read
 * first: shown when it holds no credential.
 */
static void
hide_found(void *arg, const char *path, int isdir)
{
	struct hide_ctx *h = arg;
	char *at, why[128];

	if (h->builtin && es_hide_kept(path, h->home))
		return;
	if (covers(path, h->pl->ws) || (at = canon_hide(h->pl, path)) == NULL)
		return;
	if (h->ifsecret && !isdir && !es_hide_holds(at, h->p, why,
	    sizeof(why))) {
		free(at);
		return;
	}
	/* two entries may name one file through a link: hidden once */
	if (covers(at, h->pl->ws) || !first_time(h, at)) {
		free(at);
		return;
	}
	if (h->pl->nmnt == ES_SBX_NMNT)
		es_sbx_refuse("too many sandbox paths (at most %d)",
		    ES_SBX_NMNT);
	/* new by its hash: add_mnt's compare with every mount is not needed */
	hide_at(h->pl, xstrdup(path), at, isdir);
	h->pl->mnt[h->pl->nmnt - 1].stub = isdir ? NULL : h->stub;
}

/* What plan_hide saw, for the mask (plan_mask): once a view is built. */
static const struct es_policy *mask_pol;
static const char *mask_home;

/* Does the policy reveal builtin entry e? */
static int
revealed(const struct es_policy *p, const struct es_hide_entry *e)
{
	size_t i;

	for (i = 0; i < p->nreveal; i++)
		if (strcmp(p->reveal[i].s, e->path) == 0)
			return 1;
	return 0;
}

/*
 * The builtin hide list and the policy's hide lines, expanded against the
 * home as it is now: each sandbox start looks again, so a credential file
 * created, or renamed into place, after the agent started is hidden too.
 */
static void
plan_hide(struct es_sbx_plan *pl, const struct es_policy *p, const char *home)
{
	static struct hide_ctx h;	/* 8 KiB of hashes: not on the stack */
	struct es_hide_dirs dirs;
	size_t i;
	char *e;

	memset(&dirs, 0, sizeof(dirs));
	memset(&h, 0, sizeof(h));
	mask_pol = p;
	mask_home = home;
	h.pl = pl;
	h.home = home;
	h.p = p;
	h.builtin = 1;
	for (i = 0; i < es_hide_n; i++) {
		if ((es_hide_list[i].flags & ES_HIDE_KEEP) ||
		    revealed(p, &es_hide_list[i]))
			continue;
		h.ifsecret = (es_hide_list[i].flags & ES_HIDE_IFSECRET) != 0;
		h.stub = es_hide_list[i].stub;
		if (es_hide_expand(&dirs, es_hide_list[i].path, home,
		    hide_found, &h) == -1)
			es_sbx_refuse("hide %s: %s", es_hide_list[i].path,
			    strerror(errno));
	}
	h.builtin = 0;
	h.ifsecret = 0;
	h.stub = NULL;
	for (i = 0; i < p->nhide; i++) {
		if ((e = expand(p->hide[i].s, home, pl->ws)) == NULL)
			continue;
		if (es_hide_expand(&dirs, e, home, hide_found, &h) == -1)
			es_sbx_refuse("hide %s: %s", p->hide[i].s,
			    strerror(errno));
		free(e);
	}
	es_hide_dirs_free(&dirs);
}

/*
 * What /sys shows only to its owner: a caller that owns the system's
 * files (kernel uid 0, which keeps owner permission without a
 * capability) would read firmware tables, debugfs, tracefs (trace_pipe
 * shows other processes' system calls), securityfs, bpffs and the
 * powercap energy counters.  Docker masks most of these; /sys itself is
 * read-only for everyone.
 */
static const char *const sys_owner_only[] = {
	"/sys/firmware", "/sys/kernel/debug", "/sys/kernel/tracing",
	"/sys/kernel/security", "/sys/fs/bpf", "/sys/devices/virtual/powercap"
};

/*
 * Does uid own the system's files?  Root does, and so does contain
 * mode's root (ES_CONTAIN_ROOT_ID inside, kernel uid 0 outside): no
 * capability, but owner permission on /proc/sys, /run's sockets and the
 * rest of what root owns.  Asked of the files, not of the number: the 0
 * of `unshare -r` owns nothing of the host's, and the overflow uid
 * (nobody) is what every unmapped owner looks like.
 */
int
es_sbx_sysowner(uid_t uid)
{
	char buf[32];
	struct stat st;

	/* an owner a user namespace does not map shows as the overflow uid */
	if (es_sbx_read_small("/proc/sys/kernel/overflowuid", 0, buf,
	    sizeof(buf)) == -1 || strtoul(buf, NULL, 10) == uid)
		return 0;
	return (stat("/", &st) == 0 && st.st_uid == uid) ||
	    (stat("/proc/sys/kernel", &st) == 0 && st.st_uid == uid);
}

/*
 * Where daemons put the sockets that are capabilities, walked by init
 * for sockets and FIFOs to hide (mount.c, hide_nodes): /run (the
 * system bus, systemd's, docker's, containerd's, snapd's, libvirt's),
 * LXD's and Incus's state directories, and the VM managers' under the
 * home (Colima, Lima, Rancher Desktop, podman machine), each with the
 * levels below it that are walked.
 */
static const struct es_sbx_walk walks[] = {
	{ "/run", 8 }, { "/var/run", 8 },
	{ "/var/snap/lxd/common/lxd", 0 }, { "/var/lib/lxd", 0 },
	{ "/var/lib/incus", 0 },
	{ "~/.colima", 3 }, { "~/.lima", 3 }, { "~/.rd", 3 },
	{ "~/.local/share/containers/podman/machine", 3 }
};
_Static_assert(sizeof(walks) / sizeof(walks[0]) <= ES_SBX_NWALK,
    "room in the plan for every walk");

/* The walks whose directory exists (a link is walked where it leads). */
static void
plan_walk(struct es_sbx_plan *pl, const char *home)
{
	struct stat st;
	size_t i;
	char *e;

	for (i = 0; i < sizeof(walks) / sizeof(walks[0]); i++) {
		if ((e = expand(walks[i].path, home, "/")) == NULL)
			continue;
		if (lstat(e, &st) == -1 || !S_ISDIR(st.st_mode)) {
			free(e);
			continue;
		}
		pl->walk[pl->nwalk].path = e;
		pl->walk[pl->nwalk++].depth = walks[i].depth;
	}
}

/* The mask's entries by their path: index + 1 into the plan's, 0 = free. */
static unsigned int mslot[2 * ES_MASK_MAX];

/* The entry for rel's first n bytes, or -1 with the free slot in *slot. */
static long
mask_find(const struct es_sbx_plan *pl, const char *rel, size_t n,
    size_t *slot)
{
	const size_t cap = sizeof(mslot) / sizeof(mslot[0]);
	size_t i = es_hash(rel, n) % cap;
	unsigned int k;

	for (; (k = mslot[i]) != 0; i = (i + 1) % cap)
		if (strncmp(pl->masks[k - 1].rel, rel, n) == 0 &&
		    pl->masks[k - 1].rel[n] == '\0')
			return (long)(k - 1);
	*slot = i;
	return -1;
}

/*
 * A hidden directory a command may be shown a part of (reveal.c: Claude
 * Code's projects directory, whose saved tool results of the shell's own
 * session init binds from a submount-free clone of the home): it keeps
 * its bind placeholder alone, which hides what it holds and what is made
 * in it later all the same, so the clone still finds the real one.
 */
static int
reveals_into(const struct es_sbx_mnt *m)
{
	const char *p = ES_MNT_AT(m), *cfg = getenv("CLAUDE_CONFIG_DIR");
	size_t n = strlen(p);

	if (m->kind != ES_MK_HIDE_DIR)
		return 0;
	if (cfg != NULL && cfg[0] == '/' && strncmp(p, cfg, strlen(cfg)) == 0 &&
	    strcmp(p + strlen(cfg), "/projects") == 0)
		return 1;
	return n > 17 && strcmp(p + n - 17, "/.claude/projects") == 0;
}

/*
 * Adds rel to the mask as kind, after the directories on its way, each
 * a directory of the real home (its mode): the first word on a path
 * stands.  Below a hidden directory an entry is that placeholder's own
 * (layer A only: ~/.ssh's kept entries); below a whiteout, nothing is.
 */
static void
mask_add(struct es_sbx_plan *pl, const char *rel, int kind, int dir,
    const char *src)
{
	char path[ES_PATH_MAX];
	struct es_sbx_mask *m;
	struct stat st;
	size_t n = strlen(rel), i, slot = 0;
	int below = 0;
	long k;

	for (i = 1; i <= n; i++) {
		if (i < n && rel[i] != '/')
			continue;
		if ((k = mask_find(pl, rel, i, &slot)) >= 0) {
			if (i == n || pl->masks[k].kind == ES_MASK_GONE ||
			    pl->masks[k].kind == ES_MASK_FILE ||
			    pl->masks[k].kind == ES_MASK_KEPT)
				return;
			below |= pl->masks[k].kind == ES_MASK_HIDDEN;
			continue;
		}
		if (pl->nmask == ES_MASK_MAX ||
		    (i == n && kind == ES_MASK_GONE && below))
			return;
		m = &pl->masks[pl->nmask];
		if ((m->rel = strndup(rel, i)) == NULL)
			es_sbx_refuse("out of memory");
		m->kind = i < n ? ES_MASK_DIR : kind;
		m->dir = i < n ? 0 : dir;
		m->src = i < n ? NULL : src;
		m->b = !below;
		m->mode = 0700;
		if ((m->kind == ES_MASK_DIR || m->kind == ES_MASK_HIDDEN) &&
		    snprintf(path, sizeof(path), "%s/%s", pl->s_home, m->rel) <
		    (int)sizeof(path) && stat(path, &st) == 0)
			m->mode = st.st_mode & 07777;
		mslot[slot] = (unsigned int)++pl->nmask;
	}
}

/*
 * Where path (under the home as named, or its real path) is in the real
 * home: 1 with its path below the home's real path in rel; 0 when it is
 * missing, rel then the part that exists and the first missing name; -1
 * when it is not the home's (a link out of it, a file on the way, a link
 * a sandboxed command could have made).
 */
static int
mask_walk(const struct es_sbx_plan *pl, const char *path, char *rel,
    size_t len)
{
	char cur[ES_PATH_MAX], rp[ES_PATH_MAX];
	size_t hl = strlen(pl->s_home), n, cl;
	const char *p, *s, *e;
	struct stat st;

	if (strcmp(mask_home, "/") != 0 && covers(mask_home, path))
		p = path + strlen(mask_home);
	else if (covers(pl->s_home, path))
		p = path + hl;
	else
		return -1;
	memcpy(cur, pl->s_home, hl + 1);
	for (; (s = next_name(p, &e)) != NULL; p = e) {
		n = (size_t)(e - s);
		cl = strlen(cur);
		if ((n <= 2 && s[0] == '.' && s[n - 1] == '.') ||
		    cl + 1 + n >= sizeof(cur))
			return -1;
		cur[cl] = '/';
		memcpy(cur + cl + 1, s, n);
		cur[cl + 1 + n] = '\0';
		if (lstat(cur, &st) == -1)
			return errno == ENOENT && snprintf(rel, len, "%s",
			    cur + hl + 1) < (int)len ? 0 : -1;
		if (S_ISLNK(st.st_mode)) {
			if (resolve(pl, cur, rp, sizeof(rp)) != 0 ||
			    !covers(pl->s_home, rp) || strlen(rp) <= hl ||
			    stat(rp, &st) == -1)
				return -1;
			memcpy(cur, rp, strlen(rp) + 1);
		}
		if (!S_ISDIR(st.st_mode) && *e != '\0')
			return -1;
	}
	return strlen(cur) > hl && snprintf(rel, len, "%s", cur + hl + 1) <
	    (int)len ? 1 : -1;
}

/*
 * An entry of the list (builtin) or a hide line as the one absolute path
 * it names; NULL for a glob.  With flat, a glob's name with each '*'
 * matching nothing ("~/.claude.json.backup*": ~/.claude.json.backup), or
 * NULL if that leaves a name empty.
 */
static char *
mask_path(const struct es_sbx_plan *pl, const char *pat, int builtin,
    int flat)
{
	char buf[ES_PATH_MAX], name[64];
	size_t n = 0, i, m = strlen(pat), j;
	const char *e, *v;

	if (flat != (strchr(pat, '*') != NULL))
		return NULL;
	for (i = 0; i < m; i++)
		if (pat[i] != '*' && n + 1 < sizeof(buf))
			buf[n++] = pat[i];
	buf[n] = '\0';
	/* a name all stars: the last (~/.ssh's every name) or one on the way */
	if (m > 0 && pat[m - 1] == '/')
		m--;
	for (j = m; j > 0 && pat[j - 1] != '/'; j--)
		;
	if (strspn(pat + j, "*") == m - j || strstr(buf, "//") != NULL)
		return NULL;
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if (buf[0] != '$')
		return builtin && buf[0] != '~' && buf[0] != '/' ? NULL :
		    expand(buf, mask_home, pl->ws);
	e = strchrnul(buf + 1, '/');
	if ((n = (size_t)(e - buf - 1)) == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, buf + 1, n);
	name[n] = '\0';
	/* a variable of the sandbox's environment naming a tool's moved home */
	if ((v = getenv(name)) == NULL || v[0] != '/' ||
	    strstr(v, "/..") != NULL || strlen(v) + strlen(e) >= sizeof(buf))
		return NULL;
	memmove(buf + strlen(v), e, strlen(e) + 1);
	memcpy(buf, v, strlen(v));
	return xstrdup(buf);
}

/* An entry for every name of a directory (~/.ssh/ and a star). */
static int
dir_star(const char *pat)
{
	size_t n = strlen(pat);

	return n > 2 && strcmp(pat + n - 2, "/*") == 0 &&
	    strchr(pat, '*') == pat + n - 1;
}

/* Is real, a path of the real home, hidden by the plan itself? */
static int
planned_hide(const struct es_sbx_plan *pl, const char *real)
{
	size_t i;

	for (i = 0; i < pl->nmnt; i++)
		if ((pl->mnt[i].kind == ES_MK_HIDE_DIR ||
		    pl->mnt[i].kind == ES_MK_HIDE_FILE) &&
		    strcmp(ES_MNT_AT(&pl->mnt[i]), real) == 0)
			return 1;
	return 0;
}

/*
 * An entry for every name of a directory: the directory, empty but for
 * the list's kept entries of it (~/.ssh's known_hosts, config, config.d)
 * bound back; a whiteout while it is missing.  So a name made in it
 * later, found or not by a pattern, is no name of the view's.
 */
static void
mask_dir_star(struct es_sbx_plan *pl, const char *pat, int builtin)
{
	char rel[ES_PATH_MAX], sub[ES_PATH_MAX], real[ES_PATH_MAX], *d, *dir;
	size_t plen = strlen(pat) - 1, i;	/* "~/.ssh/" */
	const char *k;
	struct stat st;
	int r;

	if ((d = strndup(pat, plen - 1)) == NULL)
		es_sbx_refuse("out of memory");
	dir = mask_path(pl, d, builtin, 0);
	free(d);
	/* one in the workspace is its bind's: the mask is the home's */
	r = dir == NULL || covers(pl->ws, dir) ? -1 :
	    mask_walk(pl, dir, rel, sizeof(rel));
	free(dir);
	if (r == -1)
		return;
	mask_add(pl, rel, r == 1 ? ES_MASK_HIDDEN : ES_MASK_GONE, 0, NULL);
	for (i = 0; r == 1 && builtin && i < es_hide_n; i++) {
		k = es_hide_list[i].path;
		if (!(es_hide_list[i].flags & ES_HIDE_KEEP) ||
		    strncmp(k, pat, plen) != 0 ||
		    strchr(k + plen, '/') != NULL ||
		    snprintf(sub, sizeof(sub), "%s/%s", rel, k + plen) >=
		    (int)sizeof(sub) || snprintf(real, sizeof(real), "%s/%s",
		    pl->s_home, sub) >= (int)sizeof(real) ||
		    stat(real, &st) == -1 || planned_hide(pl, real))
			continue;
		mask_add(pl, sub, ES_MASK_KEPT, S_ISDIR(st.st_mode),
		    xstrdup(real));
	}
}

/* Shorter first: a hidden directory before what lies in it. */
static int
by_length(const void *a, const void *b)
{
	size_t x = strlen(ES_MNT_AT(*(const struct es_sbx_mnt *const *)a));
	size_t y = strlen(ES_MNT_AT(*(const struct es_sbx_mnt *const *)b));

	return (x > y) - (x < y);
}

/*
 * The mask's entries (sbx.h) for the view about to be built: the hidden
 * paths of the home found now, each an empty file or directory; a
 * every-name entry's directory with its kept entries back; and for every
 * entry that names one path, found or not, a whiteout on its first
 * missing name, so what a login makes there while the view is held
 * stays hidden from the commands in it.  A glob's other new names
 * cannot be known: the next command hides them (plan_hide).
 */
static void
plan_mask(struct es_sbx_plan *pl)
{
	const struct es_sbx_mnt **hid;
	char rel[ES_PATH_MAX], *path;
	size_t i, k, nh = 0, hl;
	int pass;

	pl->nmask = 0;
	if (pl->s_home == NULL || mask_pol == NULL || mask_home == NULL ||
	    mask_pol->home_private)
		return;
	hl = strlen(pl->s_home);
	if (pl->masks == NULL)
		pl->masks = xcalloc(ES_MASK_MAX, sizeof(*pl->masks));
	memset(mslot, 0, sizeof(mslot));
	for (i = 0; i < es_hide_n; i++)
		if (!(es_hide_list[i].flags & ES_HIDE_KEEP) &&
		    !revealed(mask_pol, &es_hide_list[i]) &&
		    dir_star(es_hide_list[i].path))
			mask_dir_star(pl, es_hide_list[i].path, 1);
	for (i = 0; i < mask_pol->nhide; i++)
		if (dir_star(mask_pol->hide[i].s))
			mask_dir_star(pl, mask_pol->hide[i].s, 0);
	hid = xcalloc(pl->nmnt + 1, sizeof(*hid));
	for (i = 0; i < pl->nmnt; i++)
		if ((pl->mnt[i].kind == ES_MK_HIDE_DIR ||
		    pl->mnt[i].kind == ES_MK_HIDE_FILE) &&
		    strncmp(ES_MNT_AT(&pl->mnt[i]), pl->s_home, hl) == 0 &&
		    ES_MNT_AT(&pl->mnt[i])[hl] == '/')
			hid[nh++] = &pl->mnt[i];
	qsort(hid, nh, sizeof(*hid), by_length);
	for (k = 0; k < nh; k++)
		if (!reveals_into(hid[k]))
			mask_add(pl, ES_MNT_AT(hid[k]) + hl + 1, hid[k]->kind ==
			    ES_MK_HIDE_DIR ? ES_MASK_HIDDEN : ES_MASK_FILE, 0,
			    NULL);
	free(hid);
	for (i = 0; i < es_hide_n + mask_pol->nhide; i++) {
		const char *pat = i < es_hide_n ? es_hide_list[i].path :
		    mask_pol->hide[i - es_hide_n].s;

		if (i < es_hide_n && ((es_hide_list[i].flags & ES_HIDE_KEEP) ||
		    revealed(mask_pol, &es_hide_list[i])))
			continue;
		for (pass = 0; pass < 2; pass++) {
			path = mask_path(pl, pat, i < es_hide_n, pass);
			if (path == NULL)
				continue;
			if (!covers(pl->ws, path) &&
			    mask_walk(pl, path, rel, sizeof(rel)) == 0)
				mask_add(pl, rel, ES_MASK_GONE, 0, NULL);
			free(path);
		}
	}
}

/* What git runs later, outside: hooks, and config (core.hooksPath, ...). */
static const char *const default_ro[] = { ".git/hooks", ".git/config" };

/* A path bound back into a private home, if it exists (a link: its target). */
static void
add_back(struct es_sbx_plan *pl, const char *path, const char *home)
{
	char buf[ES_PATH_MAX], *rp;
	struct stat st;
	int n;

	if (path == NULL)
		return;
	n = snprintf(buf, sizeof(buf), "%s", path);
	if (path[0] == '~')
		n = snprintf(buf, sizeof(buf), "%s%s", home, path + 1);
	/* stat, not lstat: a dangling link has nothing to bind */
	if (n < 0 || (size_t)n >= sizeof(buf) || stat(buf, &st) == -1)
		return;
	rp = xstrdup(buf);
	if (!add_mnt(pl, ES_MK_BACK, rp))
		free(rp);
}

/*
 * home private: an empty home with the paths builds need bound back
 * (es_home_keep), and the shim and its helper when they live there, or
 * the shells' children would start without it.  Planned before the
 * writable binds, which go on top (a workspace in ~/go).
 */
static void
plan_home_private(struct es_sbx_plan *pl, const struct es_policy *p,
    const char *home)
{
	const char *x = getenv("LD_PRELOAD");
	char *rh, buf[ES_PATH_MAX];
	size_t i;

	if (!p->home_private || home == NULL ||
	    (rh = realpath(home, NULL)) == NULL)
		return;
	if (strcmp(rh, "/") == 0 || covers(rh, "/usr") || covers(rh, "/etc"))
		es_sbx_refuse("home private: the home %s holds the system", rh);
	add_mnt(pl, ES_MK_HOME, rh);
	/* below the home's real path: init follows no link on the way */
	for (i = 0; i < es_home_nkeep; i++)
		add_back(pl, es_home_keep[i], rh);
	if (x != NULL && strpbrk(x, " :") == NULL && x[0] == '/' &&
	    covers(rh, x)) {
		add_back(pl, x, rh);
		if (snprintf(buf, sizeof(buf), "%.*s/envshim-sandbox",
		    (int)(strrchr(x, '/') - x), x) < (int)sizeof(buf))
			add_back(pl, buf, rh);
	}
	if (pl->path != NULL && pl->path[0] == '/' && covers(rh, pl->path))
		add_back(pl, pl->path, rh);
}

/*
 * The fallback for a session without the home's overlay: each directory
 * of es_home_cache that exists in the real home, bound writable from the
 * same path in the layer.  Planned whenever there is a layer, after the
 * home's own bind, since a kernel's refusal shows only when init mounts
 * the overlay: init binds them only when it did not (mount.c, home_layer).
 */
static void
plan_cache(struct es_sbx_plan *pl, const struct es_policy *p,
    const char *home)
{
	char buf[ES_PATH_MAX], *rp;
	struct stat st;
	size_t i;
	int n;

	if (pl->s_up == NULL || p->home_private || home == NULL)
		return;
	for (i = 0; i < es_home_ncache; i++) {
		n = snprintf(buf, sizeof(buf), "%s%s", home,
		    es_home_cache[i].path + 1);
		if (n < 0 || (size_t)n >= sizeof(buf) || stat(buf, &st) == -1 ||
		    !S_ISDIR(st.st_mode) || (rp = realpath(buf, NULL)) == NULL)
			continue;
		if (!add_mnt(pl, ES_MK_CACHE, rp)) {
			free(rp);
			continue;
		}
		snprintf(buf, sizeof(buf), "%s%s", pl->s_up,
		    es_home_cache[i].path + 1);
		pl->mnt[pl->nmnt - 1].src = xstrdup(buf);
	}
}

/*
 * The policy's rw paths and the agents' own state (es_agent_state), bound
 * writable at their paths without a link, and none reached through a
 * link a sandboxed command could have planted (add_rw): in the
 * workspace, or in another of these once that one is bound (rw ~/a and
 * rw ~/a/b: a link left at ~/a/b would bind its target, ~/.ssh, in
 * its place).  Each found is checked again against all of them, until
 * none changes; what a check drops stays read-only.
 */
static void
plan_rw(struct es_sbx_plan *pl, const struct es_policy *p, const char *home)
{
	char *cand[2 * ES_MAX_PATHS], *res[2 * ES_MAX_PATHS];
	char buf[ES_PATH_MAX];
	size_t n = 0, i, first = pl->nmnt;
	int changed;

	for (i = 0; i < p->nrw && n < ES_MAX_PATHS; i++)
		cand[n++] = expand(p->rw[i].s, home, pl->ws);
	/* the agents' own state (es_agent_state, docs/envshim-sandbox.1) */
	for (i = 0; i < es_agent_nstate && n < sizeof(cand) / sizeof(cand[0]);
	    i++)
		cand[n++] = expand(es_agent_state[i].path, home, pl->ws);
	for (i = 0; i < n; i++)
		res[i] = cand[i] != NULL && resolve(pl, cand[i], buf,
		    sizeof(buf)) == 0 ? xstrdup(buf) : NULL;
	do {
		pl->nmnt = first;
		for (i = 0; i < n; i++)
			if (res[i] != NULL)
				rw_at(pl, res[i]);
		for (i = 0, changed = 0; i < n; i++)
			if (res[i] != NULL && (resolve(pl, cand[i], buf,
			    sizeof(buf)) != 0 || strcmp(buf, res[i]) != 0)) {
				free(res[i]);
				res[i] = NULL;
				changed = 1;
			}
	} while (changed);
	for (i = 0; i < n; i++) {
		free(cand[i]);
		free(res[i]);
	}
}

/*
 * The audit log: created here if missing (with its 0700 directory), so
 * the outer can hold it open before it joins a session's view, and the
 * directory is there to be hidden (plan_log).
 */
char *
es_sbx_log_path(const struct es_policy *p, const char *home)
{
	char buf[ES_PATH_MAX];
	struct stat st;

	if (es_log_file(p, home, buf, sizeof(buf)) != 0)
		return NULL;
	/* one lstat when it exists: no mkdir for each directory above it */
	if ((lstat(buf, &st) == -1 || !S_ISREG(st.st_mode)) &&
	    es_log_create(buf, es_log_top(p, home, buf)) != 0)
		return NULL;
	return xstrdup(buf);
}

/* Does dir hold (or is it) path?  A relative path or NULL: nothing. */
static int
holds(const char *dir, const char *path)
{
	return path != NULL && path[0] == '/' && covers(dir, path);
}

/*
 * A regular file hidden, as named: never what a link there points to (a
 * log linked to /dev/null must not cover /dev/null).  path is the
 * caller's; a copy is kept.
 */
static void
hide_regular(struct es_sbx_plan *pl, const char *path)
{
	struct stat st;
	char *p;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    !add_mnt(pl, ES_MK_HIDE_FILE, p = xstrdup(path)))
		free(p);
}

/*
 * The audit log is nothing of the sandbox's: a command's records go to
 * its outer (outer.c), which writes them marked as from inside.  So the
 * log is hidden, read and write: it holds the argv of every launch the
 * agent made, and a record written there could pass for one of outside.
 * Its directory goes, when it is envshim's own (named "envshim", as the
 * default's is) and holds nothing the command needs: nothing named in it
 * (the rotated PATH.1, a file renamed over the log) is left to see, and
 * no bind on a file to lose to a rename.  Else the log and PATH.1, when
 * they are files (a log that is a link is never written: O_NOFOLLOW).
 */
static void
plan_log(struct es_sbx_plan *pl, const char *home, const char *log)
{
	const char *x = getenv("LD_PRELOAD");
	char buf[ES_PATH_MAX], self[ES_PATH_MAX], *dir, *rh, *e;
	ssize_t n;
	size_t i;
	int whole;

	if (log == NULL || (e = strrchr(log, '/')) == NULL || e == log)
		return;
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - log), log);
	if ((dir = realpath(buf, NULL)) == NULL)
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	rh = home != NULL ? realpath(home, NULL) : NULL;
	whole = strcmp(dir, "/") != 0 &&
	    strcmp(strrchr(dir, '/') + 1, "envshim") == 0 &&
	    !holds(dir, pl->ws) && !holds(dir, pl->cwd) && !holds(dir, rh) &&
	    !holds(dir, pl->path) && !holds(dir, pl->s_dir) &&
	    !holds(dir, self) &&
	    !(x != NULL && strpbrk(x, " :") == NULL && holds(dir, x));
	free(rh);
	for (i = 0; i < pl->nmnt && whole; i++)
		if (pl->mnt[i].kind != ES_MK_HIDE_DIR &&
		    pl->mnt[i].kind != ES_MK_HIDE_FILE &&
		    pl->mnt[i].kind != ES_MK_RO && covers(dir, pl->mnt[i].path))
			whole = 0;
	if (whole) {
		add_hide(pl, dir, 1);
		return;
	}
	free(dir);
	hide_regular(pl, log);
	snprintf(buf, sizeof(buf), "%s.1", log);
	hide_regular(pl, buf);
}

/* Relative, with no empty, "." or ".." component: made one by one in /tmp. */
static int
clean_rel(const char *p)
{
	const char *e;
	size_t n;

	if (*p == '\0' || *p == '/')
		return 0;
	for (;; p = e + 1) {
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (e == NULL)
			return 1;
	}
}

/* Every mount init will make, decided here where lookups are cheap. */
void
es_sbx_plan_mounts(struct es_sbx_plan *pl, const struct es_policy *p,
    const char *home, const char *log)
{
	const char *x, *tmpdir;
	char buf[64], lb[ES_PATH_MAX];
	size_t i;

	keep_file(pl, home);	/* first: what is bound below it goes on top */
	plan_home_private(pl, p, home);
	plan_cache(pl, p, home);
	add_rw(pl, pl->ws);
	plan_rw(pl, p, home);
	keep_shim(pl);
	plan_hide(pl, p, home);
	plan_log(pl, home, log);
	/* the kept layers: no command sees another workspace's */
	if (es_layer_dir(home, NULL, lb, sizeof(lb)) == 0)
		add_hide(pl, xstrdup(lb), 1);
	/* the sessions' base: no command sees another run's session (its
	 * own tmp/ is bound back at its path, hide_paths in mount.c) */
	if (pl->s_dir != NULL) {
		char *b = xstrdup(pl->s_dir);

		*strrchr(b, '/') = '\0';
		add_hide(pl, b, 1);
	}
	/* copies: the keeper and the mapper scrub the environment (init.c) */
	if ((x = getenv("XDG_RUNTIME_DIR")) != NULL)
		add_hide(pl, xstrdup(x), 1);
	snprintf(buf, sizeof(buf), "/run/user/%lu", (unsigned long)pl->uid);
	add_hide(pl, xstrdup(buf), 1);
	for (i = 0; pl->sysowner && i < sizeof(sys_owner_only) /
	    sizeof(sys_owner_only[0]); i++)
		add_hide(pl, (char *)sys_owner_only[i], 0);
	plan_walk(pl, home);
	for (i = 0; i < sizeof(default_ro) / sizeof(default_ro[0]); i++)
		if (add_mnt(pl, ES_MK_RO, default_ro[i]))
			pl->mnt[pl->nmnt - 1].mkdir =
			    strcmp(default_ro[i], ".git/hooks") == 0;
	for (i = 0; i < p->nro; i++) {
		x = p->ro[i].s;
		if (x[0] == '/' || x[0] == '~') {
			x = expand(x, home, pl->ws);
			if (!covers(pl->ws, x) || strcmp(x, pl->ws) == 0)
				es_sbx_refuse("ro path %s is not inside the "
				    "workspace %s", p->ro[i].s, pl->ws);
			x += strlen(pl->ws) + 1;
		}
		add_mnt(pl, ES_MK_RO, x);
	}
	/*
	 * A $TMPDIR below /tmp must exist in the private /tmp too: a marked
	 * launch's view (no session) is given the session's tmp/ path empty.
	 */
	tmpdir = getenv("TMPDIR");
	if (tmpdir != NULL && pl->s_tmp == NULL && strncmp(tmpdir, "/tmp/", 5) == 0 &&
	    clean_rel(tmpdir + 5))
		pl->tmpsub = xstrdup(tmpdir + 5);
}

/*
 * A path a dropped capability variable names, hidden: never the root,
 * the home or what holds the workspace, whatever the value said.
 */
static void
cap_hide(struct es_sbx_plan *pl, const char *home, char *rp)
{
	if (strcmp(rp, "/") == 0 || covers(rp, pl->ws) ||
	    (home != NULL && covers(rp, home))) {
		free(rp);
		return;
	}
	add_hide(pl, rp, 1);
}

/*
 * A path a kept capability variable names (keep SSH_AUTH_SOCK),
 * reachable: not hidden itself, nor skipped by the socket walk; under a
 * hidden directory (the runtime dir, ~/.ssh) that directory becomes an
 * empty one with this path bound back; under the private /tmp it is
 * bound back as the shim is.
 */
static void
cap_keep(struct es_sbx_plan *pl, char *rp)
{
	struct es_sbx_mnt *m, *top = NULL;
	struct stat st;
	size_t i, n = pl->nmnt;
	int back = 0;

	if (stat(rp, &st) == -1) {
		free(rp);
		return;
	}
	if (pl->nkept < ES_SBX_NKEPT) {
		pl->kept[pl->nkept].dev = st.st_dev;
		pl->kept[pl->nkept++].ino = st.st_ino;
	}
	/* the outermost hidden directory holds it; any inside that one goes */
	for (i = 0; i < n; i++) {
		m = &pl->mnt[i];
		if (m->kind == ES_MK_HIDE_FILE && strcmp(m->path, rp) == 0)
			m->kind = ES_MK_NONE;
		else if ((m->kind == ES_MK_HIDE_DIR || m->kind == ES_MK_PRIV) &&
		    covers(m->path, rp)) {
			if (top != NULL && covers(top->path, m->path))
				m->kind = ES_MK_NONE;
			else {
				if (top != NULL)
					top->kind = ES_MK_NONE;
				top = m;
			}
		} else if (m->kind == ES_MK_HOME && covers(m->path, rp))
			back = 1;	/* home private */
	}
	if (top != NULL)
		top->kind = ES_MK_PRIV;
	if (top != NULL || back) {
		if (!add_mnt(pl, ES_MK_BACK, rp))
			free(rp);
		return;
	}
	keep_file(pl, rp);
	free(rp);
}

/*
 * The paths in a capability variable's value, each a run from a '/' at
 * the start or after ':' or '=' to the next ',', ';' or ':'.  That is
 * every form they take: SSH_AUTH_SOCK=/run/..., KUBECONFIG=/a:/b,
 * GPG_AGENT_INFO=/path:pid:1, DOCKER_HOST=unix:///var/run/docker.sock,
 * DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus,guid=...,
 * KRB5CCNAME=FILE:/tmp/krb5cc_1000.  One that resolves to nothing (a
 * tcp:// host) is no path.
 */
static void
cap_paths(struct es_sbx_plan *pl, const char *home, const char *v, int keep)
{
	char buf[ES_PATH_MAX], *rp;
	const char *s;
	size_t n;

	for (s = v; *s != '\0'; s++) {
		if (*s != '/' || (s != v && s[-1] != ':' && s[-1] != '='))
			continue;
		n = strcspn(s, ",;:");
		if (n < sizeof(buf)) {
			memcpy(buf, s, n);
			buf[n] = '\0';
			if ((rp = realpath(buf, NULL)) != NULL) {
				if (keep)
					cap_keep(pl, rp);
				else
					cap_hide(pl, home, rp);
			}
		}
		s += n - 1;
	}
}

void
es_sbx_plan_caps(struct es_sbx_plan *pl, const struct es_policy *p,
    const char *home, const char *const *caps, size_t ncap)
{
	const char *v;
	size_t i;

	for (i = 0; i < ncap; i++)
		if ((v = strchr(caps[i], '=')) != NULL)
			cap_paths(pl, home, v + 1, 0);
	/* what the filter let through to the command, it may reach */
	for (i = 0; environ[i] != NULL; i++)
		if ((v = strchr(environ[i], '=')) != NULL &&
		    es_policy_capability(p, environ[i],
		    (size_t)(v - environ[i])))
			cap_paths(pl, home, v + 1, 1);
}

/* A directory of this user's, not a link, closed to everyone else. */
static int
own_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

/* A directory of this user's, made if missing, closed to everyone else. */
static int
own_mkdir(const char *path)
{
	return (mkdir(path, 0700) == 0 || errno == EEXIST) && own_dir(path);
}

/*
 * A kept layer's overlay work directories (work/PID, work/kROOT.PID) whose
 * command (or session's launch root) is gone: overlay leaves an empty
 * work/ (mode 0) in each.  One that is not empty (a copy-up cut short)
 * stays.
 */
static void
reap_work(const char *wk)
{
	char path[ES_PATH_MAX];
	struct dirent *e;
	char *end;
	long pid;
	DIR *d;

	if ((d = opendir(wk)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		/* kROOT.PID: a session keeper's, which lasts as its root */
		pid = strtol(e->d_name + (e->d_name[0] == 'k'), &end, 10);
		if ((*end != '\0' && !(e->d_name[0] == 'k' && *end == '.')) ||
		    pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH ||
		    snprintf(path, sizeof(path), "%s/%s/work", wk, e->d_name) >=
		    (int)sizeof(path))
			continue;
		(void)chmod(path, 0700);
		(void)rmdir(path);
		*strrchr(path, '/') = '\0';
		(void)rmdir(path);
	}
	closedir(d);
}

/*
 * home-layer workspace: the workspace's kept layer in the state
 * directory (es_layer_dir), made if missing, with the workspace noted for
 * `envshim session`.  NULL when it cannot be had: the session's own
 * layer serves then, and is discarded.
 */
static const char *
kept_layer(const struct es_sbx_plan *pl, const char *home, char *buf,
    size_t len)
{
	char path[ES_PATH_MAX], *s;
	int fd;

	if (es_layer_dir(home, pl->ws, buf, len) != 0)
		return NULL;
	for (s = buf + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(buf, 0700);
		*s = '/';
	}
	if (!own_mkdir(buf) || snprintf(path, sizeof(path), "%s/workspace",
	    buf) >= (int)sizeof(path))
		return NULL;
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1) {
		(void)!write(fd, pl->ws, strlen(pl->ws));
		close(fd);
	}
	return buf;
}

/*
 * The home as a copy-on-write view: the real home read-only below, the
 * layer's home/ above, where what tools write there lands (caches,
 * ~/.npm, pip --user), seen by the run's later commands and never by the
 * real home.  The layer is the session's, or with `home-layer workspace`
 * the workspace's kept one (not volatile: it outlives the run).  The
 * options are made with the work directory, by the process that mounts
 * the overlay (es_sbx_workdir): the session's keeper, or a command that
 * builds its own view.  A path overlay's option string cannot carry
 * (',', ':', '\\'), or options longer than the kernel reads, leave no
 * overlay, and the layer serves the fallback instead (plan_cache).
 */
static void
plan_home(struct es_sbx_plan *pl, const struct es_policy *p, const char *d,
    const char *home)
{
	char up[ES_PATH_MAX], wk[ES_PATH_MAX];
	char kept[ES_PATH_MAX - 32];	/* room for /work/PID */
	const char *l = NULL;
	char *h;

	if (home == NULL || (h = realpath(home, NULL)) == NULL)
		return;
	if (p->home_layer == ES_LAYER_WORKSPACE)
		l = kept_layer(pl, home, kept, sizeof(kept));
	if (l == NULL)
		l = d;
	snprintf(up, sizeof(up), "%s/home", l);
	snprintf(wk, sizeof(wk), "%s/work", l);
	if (strcmp(h, "/") == 0 || !own_mkdir(up) || !own_mkdir(wk)) {
		free(h);
		return;
	}
	pl->s_up = xstrdup(up);
	if (l != d)
		reap_work(wk);
	if (strpbrk(h, ",:\\") != NULL || strpbrk(l, ",:\\") != NULL) {
		free(h);
		return;
	}
	pl->s_home = h;
	pl->s_layer = l == d ? d : xstrdup(l);
	pl->s_volatile = l == d;
}

/*
 * The overlay's options, lowerdir first: the mask's two layers (when it
 * has entries), then the real home.  NULL when they would pass the page
 * mount(2) reads: cut there, the work directory would be another.
 */
static char *
ovl_opts(const struct es_sbx_plan *pl, const char *wk, int mask)
{
	char opts[3 * ES_PATH_MAX + 64];
	int n;

	n = snprintf(opts, sizeof(opts), "lowerdir=%s%s,upperdir=%s,"
	    "workdir=%s,userxattr%s", mask ? ES_SBX_MASK_A ":" ES_SBX_MASK_B
	    ":" : "", pl->s_home, pl->s_up, wk,
	    pl->s_volatile ? ",volatile" : "");
	return n < 0 || n > ES_MOUNT_DATA_MAX ? NULL : xstrdup(opts);
}

void
es_sbx_workdir(struct es_sbx_plan *pl, const char *name)
{
	char wk[ES_PATH_MAX], *bare;

	pl->s_ovl = pl->s_ovl_bare = NULL;
	if (pl->s_home == NULL || snprintf(wk, sizeof(wk), "%s/work/%s",
	    pl->s_layer, name) >= (int)sizeof(wk) ||
	    (bare = ovl_opts(pl, wk, 0)) == NULL)
		return;
	/* a directory of this user's, made now: never a link */
	if ((mkdir(wk, 0700) == -1 && errno != EEXIST) || !own_dir(wk)) {
		free(bare);
		return;
	}
	plan_mask(pl);
	if (pl->nmask > 0 && (pl->s_ovl = ovl_opts(pl, wk, 1)) != NULL)
		pl->s_ovl_bare = bare;
	else
		pl->s_ovl = bare;
}

/*
 * The agent run's session ($ENVSHIM_SESSION, made by the launch root):
 * its tmp/ and var-tmp/ become /tmp and /var/tmp, shared by every
 * command of the run.  Only a session directory of this user's, directly
 * below a base no other user could have made (es_session_dir_ok, the
 * rule the launch root's base passed), counts; anything else keeps the
 * private /tmp.
 */
void
es_sbx_plan_session(struct es_sbx_plan *pl, const struct es_policy *p,
    const char *home)
{
	const char *d = getenv("ENVSHIM_SESSION"), *mark = getenv("ENVSHIM_PROGRAM");
	char buf[ES_PATH_MAX], *t, *v;

	/*
	 * A program rule's subtree (ENVSHIM_PROGRAM: npx's sh -c) holds the
	 * rule's token: it gets a view of its own, without what the run's
	 * commands write (the session's /tmp and home layer: npx's cache
	 * there is the model's to rewrite), and so joins no keeper.  Anyone
	 * may ask for that view; it shows less, never more.
	 */
	if (mark != NULL && mark[0] != '\0')
		return;
	if (d == NULL || strlen(d) + 16 > sizeof(buf) || !es_session_dir_ok(d))
		return;
	snprintf(buf, sizeof(buf), "%s/tmp", d);
	t = xstrdup(buf);
	snprintf(buf, sizeof(buf), "%s/var-tmp", d);
	v = xstrdup(buf);
	if (!own_dir(t) || !own_dir(v)) {
		free(t);
		free(v);
		return;
	}
	pl->s_dir = d = xstrdup(d);
	pl->s_tmp = t;
	pl->s_vartmp = v;
	plan_home(pl, p, d, home);
}

/*
 * A small file's text, NUL-terminated, in one read (a /proc or sysctl
 * file, the session's keeper file): its length, or -1 when it cannot be
 * read, is empty, or is no file (a fifo would hold the read).  flags add
 * to O_RDONLY | O_CLOEXEC.
 */
ssize_t
es_sbx_read_small(const char *path, int flags, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags)) == -1)
		return -1;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
	    read(fd, buf, len - 1) : -1;
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The environment as received, plus the namespace identity slot. */
void
es_sbx_plan_env(struct es_sbx_plan *pl)
{
	size_t n, i, j;

	for (n = 0; environ[n] != NULL; n++)
		;
	pl->envp = xcalloc(n + 2, sizeof(char *));
	for (i = 0, j = 0; i < n; i++)
		if (strncmp(environ[i], "ENVSHIM_SANDBOX_NS=", 19) != 0)
			pl->envp[j++] = environ[i];
	pl->envp[j++] = pl->nsvar;
	pl->envp[j] = NULL;
}
