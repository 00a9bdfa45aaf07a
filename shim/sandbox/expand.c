/*
 * expand.c - the hide list's entries as the paths that exist on this
 * machine now: "~" is the home, "$NAME" a variable's absolute value, and
 * a '*' component every matching name of its directory.
 *
 * Runs in the sandbox's outer at each start (it may allocate), so a
 * credential file created or renamed into place after the agent started
 * is hidden from the next shell; and in `envshim doctor`.  Every shell
 * pays for it: a directory is read once however many entries name it,
 * and an entry it lists (or does not) needs no stat.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "es_hide.h"
#include "es_limits.h"
#include "es_policy.h"

struct walk {
	struct es_hide_dirs *dirs;
	void	(*fn)(void *, const char *, int);
	void	*ctx;
	int	 dironly;		/* the pattern ends in '/' */
};

/* The cached listing of dir, or NULL. */
static const struct es_hide_dir *
cached(const struct es_hide_dirs *c, const char *dir)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->d[i].dir, dir) == 0)
			return &c->d[i];
	return NULL;
}

/* The index of name (n bytes) in a listing, or -1. */
static long
lookup(const struct es_hide_dir *d, const char *name, size_t n)
{
	size_t i;
	unsigned int k;

	if (d->nslot == 0)
		return -1;
	for (i = es_hash(name, n) % d->nslot; (k = d->slot[i]) != 0;
	    i = (i + 1) % d->nslot)
		if (d->len[k - 1] == n &&
		    memcmp(d->names + d->off[k - 1], name, n) == 0)
			return (long)(k - 1);
	return -1;
}

/* Frees what a listing holds. */
static void
drop(struct es_hide_dir *d)
{
	free(d->dir);
	free(d->names);
	free(d->off);
	free(d->len);
	free(d->type);
	free(d->slot);
	memset(d, 0, sizeof(*d));
}

/*
 * Reads dir into d: names, types and a hash table.  0, or -1 when it
 * cannot be read (nothing there to hide, or nothing we could see: d
 * stays empty) or with errno ENOMEM.
 */
static int
readlist(struct es_hide_dir *d, const char *dir)
{
	size_t used = 0, cap = 0, ncap = 0, len, i;
	struct dirent *de;
	void *p;
	DIR *dp;

	memset(d, 0, sizeof(*d));
	if ((dp = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		len = strlen(de->d_name) + 1;
		if (used + len > cap) {
			cap = cap ? 2 * cap : 4096;
			if (cap < used + len)
				cap = used + len;
			if ((p = realloc(d->names, cap)) == NULL)
				goto nomem;
			d->names = p;
		}
		if (d->n == ncap) {
			ncap = ncap ? 2 * ncap : 128;
			if ((p = realloc(d->off, ncap * sizeof(*d->off))) == NULL)
				goto nomem;
			d->off = p;
			if ((p = realloc(d->len, ncap * sizeof(*d->len))) == NULL)
				goto nomem;
			d->len = p;
			if ((p = realloc(d->type, ncap)) == NULL)
				goto nomem;
			d->type = p;
		}
		memcpy(d->names + used, de->d_name, len);
		d->off[d->n] = (unsigned int)used;
		d->len[d->n] = (unsigned short)(len - 1);
		d->type[d->n++] = de->d_type;
		used += len;
	}
	closedir(dp);
	dp = NULL;
	d->nslot = 2 * d->n + 1;
	if ((d->slot = calloc(d->nslot, sizeof(*d->slot))) == NULL ||
	    (d->dir = strdup(dir)) == NULL)
		goto nomem;
	for (i = 0; i < d->n; i++) {
		size_t k = es_hash(d->names + d->off[i], d->len[i]) % d->nslot;

		while (d->slot[k] != 0)
			k = (k + 1) % d->nslot;
		d->slot[k] = (unsigned int)i + 1;
	}
	return 0;
nomem:
	if (dp != NULL)
		closedir(dp);
	drop(d);
	errno = ENOMEM;
	return -1;
}

/*
 * The listing of dir, from the cache or read now.  NULL with errno when
 * it cannot be read (ENOENT, ENOTDIR: it is not there; ENOMEM), or with
 * errno 0 when the cache is full; *tmp then holds it for this call alone
 * if tmp is not NULL.
 */
static const struct es_hide_dir *
listdir(struct es_hide_dirs *c, const char *dir, struct es_hide_dir *tmp)
{
	const struct es_hide_dir *d;
	struct es_hide_dir *slot;

	if ((d = cached(c, dir)) != NULL)
		return d;
	if ((slot = c->n < ES_HIDE_DIRS ? &c->d[c->n] : tmp) == NULL) {
		errno = 0;
		return NULL;
	}
	if (readlist(slot, dir) == -1)
		return NULL;
	if (slot != tmp)
		c->n++;
	return slot;
}

/*
 * buf[0..len) is the path so far; pat the components still to match.
 * type: what a listing said of the last component (DT_UNKNOWN: stat it);
 * base: buf is the base the pattern starts from.
 */
static int
walk(struct walk *w, char *buf, size_t len, const char *pat,
    unsigned char type, int base)
{
	const struct es_hide_dir *d;
	struct es_hide_dir tmp;
	struct stat st;
	const char *e, *nm;
	size_t i, cl, nl;
	long k;
	int rc = 0, tail;

	while (*pat == '/')
		pat++;
	if (*pat == '\0') {
		buf[len] = '\0';
		/* a listing's word suffices, but for links and the unknown */
		if (type == DT_DIR || (type == DT_REG && !w->dironly))
			w->fn(w->ctx, buf, type == DT_DIR);
		else if (type != DT_REG && stat(buf, &st) == 0 &&
		    (!w->dironly || S_ISDIR(st.st_mode)))
			w->fn(w->ctx, buf, S_ISDIR(st.st_mode));
		return 0;
	}
	e = strchrnul(pat, '/');
	cl = (size_t)(e - pat);
	buf[len] = '\0';
	if (memchr(pat, '*', cl) == NULL) {
		if (len + 1 + cl >= ES_PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		/*
		 * A listing answers without a stat: the base (the home),
		 * read once for all the entries, most of which name a file
		 * this home does not have, and what a '*' read.  Reading
		 * every directory on the way costs more than its stats.  A
		 * base that cannot be listed (mode 0711) is asked by stat.
		 */
		type = DT_UNKNOWN;
		if ((d = base ? listdir(w->dirs, len == 0 ? "/" : buf, NULL) :
		    cached(w->dirs, len == 0 ? "/" : buf)) != NULL) {
			if ((k = lookup(d, pat, cl)) == -1)
				return 0;
			type = d->type[k];
		} else if (base && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		else if (base && errno == ENOMEM)
			return -1;
		buf[len] = '/';
		memcpy(buf + len + 1, pat, cl);
		return walk(w, buf, len + 1 + cl, e, type, 0);
	}
	if ((d = listdir(w->dirs, len == 0 ? "/" : buf, &tmp)) == NULL)
		return errno == ENOMEM ? -1 : 0;
	/* "*.pem", checked against every name of the home: its tail decides */
	tail = pat[0] == '*' && memchr(pat + 1, '*', cl - 1) == NULL;
	for (i = 0; i < d->n && rc == 0; i++) {
		nm = d->names + d->off[i];
		nl = d->len[i];
		if (tail ? nl < cl - 1 || memcmp(nm + nl - (cl - 1), pat + 1,
		    cl - 1) != 0 : (pat[0] != '*' && pat[0] != nm[0]) ||
		    !es_hide_glob(pat, cl, nm))
			continue;
		if (len + 1 + nl >= ES_PATH_MAX) {
			errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		buf[len] = '/';
		memcpy(buf + len + 1, nm, nl);
		rc = walk(w, buf, len + 1 + nl, e, d->type[i], 0);
	}
	if (d == &tmp)
		drop(&tmp);
	return rc;
}

/* A "$NAME" value we may use: absolute, and no ".." anywhere. */
static const char *
var_base(const char *pat, const char **rest)
{
	char name[64];
	const char *e = strchrnul(pat + 1, '/'), *v;
	size_t n = (size_t)(e - pat - 1);

	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, pat + 1, n);
	name[n] = '\0';
	if ((v = getenv(name)) == NULL || v[0] != '/' || strstr(v, "/..") != NULL)
		return NULL;
	*rest = e;
	return v;
}

int
es_hide_expand(struct es_hide_dirs *dirs, const char *pat, const char *home,
    void (*fn)(void *, const char *, int), void *ctx)
{
	char buf[ES_PATH_MAX];
	struct walk w = { dirs, fn, ctx, 0 };
	const char *base = "", *rest = pat;
	size_t n, bl;

	n = strlen(pat);
	w.dironly = n > 1 && pat[n - 1] == '/';
	if (pat[0] == '~') {
		if (home == NULL || home[0] != '/')
			return 0;
		base = home;
		rest = pat + 1;
	} else if (pat[0] == '$') {
		if ((base = var_base(pat, &rest)) == NULL)
			return 0;
	} else if (pat[0] != '/')
		return 0;
	bl = strlen(base);
	/* "/" as a base: the components add their own slashes */
	while (bl > 0 && base[bl - 1] == '/')
		bl--;
	if (bl >= ES_PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, base, bl);
	return walk(&w, buf, bl, rest, DT_UNKNOWN, 1);
}

void
es_hide_dirs_free(struct es_hide_dirs *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		drop(&c->d[i]);
	c->n = 0;
}

int
es_hide_kept(const char *path, const char *home)
{
	size_t i, n = home != NULL ? strlen(home) : 0;

	if (n == 0 || strncmp(path, home, n) != 0)
		return 0;
	for (i = 0; i < es_hide_n; i++)
		if ((es_hide_list[i].flags & ES_HIDE_KEEP) &&
		    es_hide_list[i].path[0] == '~' &&
		    strcmp(path + n, es_hide_list[i].path + 1) == 0)
			return 1;
	return 0;
}
