/*
 * expand.c - the hide list's entries as the paths that exist on this
 * machine now: "~" is the home, "$NAME" a variable's absolute value, and
 * a '*' component every matching name of its directory.
 *
 * Runs in the sandbox's outer at each start (it may allocate), so a
 * credential file created or renamed into place after the agent started
 * is hidden from the next shell; and in `envshim doctor`.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "es_hide.h"
#include "es_limits.h"

struct walk {
	struct es_hide_dirs *dirs;
	void	(*fn)(void *, const char *, const struct stat *);
	void	*ctx;
	int	 dironly;		/* the pattern ends in '/' */
};

static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names in dir, from the cache or read now and kept: the home is
 * listed once however many of its patterns there are.  NULL, n 0 when
 * dir cannot be read (nothing there to hide, or nothing we could see).
 */
static char **
listdir(struct es_hide_dirs *c, const char *dir, size_t *n)
{
	char **v = NULL, **nv;
	struct dirent *de;
	size_t i, cap = 0;
	DIR *d;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->d[i].dir, dir) == 0) {
			*n = c->d[i].nnames;
			return c->d[i].names;
		}
	*n = 0;
	if ((d = opendir(dir)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				goto nomem;
			v = nv;
		}
		if ((v[*n] = strdup(de->d_name)) == NULL)
			goto nomem;
		(*n)++;
	}
	closedir(d);
	/* sorted: the same home gives the same plan, in the same order */
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmpname);
	if (c->n < ES_HIDE_DIRS) {
		if ((c->d[c->n].dir = strdup(dir)) == NULL) {
			d = NULL;
			goto nomem;
		}
		c->d[c->n].names = v;
		c->d[c->n].nnames = *n;
		c->n++;
	}
	return v;
nomem:
	if (d != NULL)
		closedir(d);
	while (v != NULL && *n > 0)
		free(v[--(*n)]);
	free(v);
	errno = ENOMEM;
	*n = (size_t)-1;
	return NULL;
}

/* Frees a listing that did not fit the cache. */
static void
unlist(struct es_hide_dirs *c, char **v, size_t n)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->d[i].names == v)
			return;
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* buf[0..len) is the path so far; pat the components still to match. */
static int
walk(struct walk *w, char *buf, size_t len, const char *pat)
{
	struct stat st;
	const char *e;
	char **names;
	size_t n, i, cl;

	while (*pat == '/')
		pat++;
	if (*pat == '\0') {
		buf[len] = '\0';
		if (stat(buf, &st) == 0 && (!w->dironly || S_ISDIR(st.st_mode)))
			w->fn(w->ctx, buf, &st);
		return 0;
	}
	e = strchrnul(pat, '/');
	cl = (size_t)(e - pat);
	if (memchr(pat, '*', cl) == NULL) {
		if (len + 1 + cl >= ES_PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		buf[len] = '/';
		memcpy(buf + len + 1, pat, cl);
		return walk(w, buf, len + 1 + cl, e);
	}
	buf[len] = '\0';
	names = listdir(w->dirs, len == 0 ? "/" : buf, &n);
	if (n == (size_t)-1)
		return -1;
	for (i = 0; i < n; i++) {
		size_t nl = strlen(names[i]);

		if (!es_hide_glob(pat, cl, names[i]))
			continue;
		if (len + 1 + nl >= ES_PATH_MAX) {
			unlist(w->dirs, names, n);
			errno = ENAMETOOLONG;
			return -1;
		}
		buf[len] = '/';
		memcpy(buf + len + 1, names[i], nl);
		if (walk(w, buf, len + 1 + nl, e) == -1) {
			unlist(w->dirs, names, n);
			return -1;
		}
	}
	if (names != NULL)
		unlist(w->dirs, names, n);
	return 0;
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
    void (*fn)(void *, const char *, const struct stat *), void *ctx)
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
	return walk(&w, buf, bl, rest);
}

void
es_hide_dirs_free(struct es_hide_dirs *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		while (c->d[i].nnames > 0)
			free(c->d[i].names[--c->d[i].nnames]);
		free(c->d[i].names);
		free(c->d[i].dir);
	}
	c->n = 0;
}
