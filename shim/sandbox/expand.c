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
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_hide.h"
#include "es_limits.h"
#include "es_policy.h"

/* What getdents64 returns: no libc declares it the same way. */
struct dent {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

struct walk {
	struct es_hide_dirs *dirs;
	void	(*fn)(void *, const char *, int);
	void	*ctx;
	int	 dironly;		/* the pattern ends in '/' */
	int	 list;			/* depth to which literal steps list */
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

/* Frees what a listing took from the heap. */
static void
drop(struct es_hide_dir *d)
{
	if (d->heap & 1)
		free(d->names);
	if (d->heap & 2)
		free(d->off);
	memset(d, 0, sizeof(*d));
}

/*
 * Room for a listing in the pass's pool: one allocation for every
 * listing, where each one's few would cost a shell mmap and munmap
 * calls.  NULL when c has no pool (or it cannot be had): the caller
 * uses the heap.
 */
static char *
pool_tail(struct es_hide_dirs *c, size_t *room)
{
	*room = 0;
	if (c == NULL)
		return NULL;
	if (c->pool == NULL && (c->pool = malloc(ES_HIDE_POOL)) == NULL)
		return NULL;
	*room = ES_HIDE_POOL - c->pooled;
	return c->pool + c->pooled;
}

/* Keeps n bytes of the pool's tail, 8-aligned. */
static void
pool_keep(struct es_hide_dirs *c, size_t n)
{
	c->pooled += (n + 7) & ~(size_t)7;
	if (c->pooled > ES_HIDE_POOL)
		c->pooled = ES_HIDE_POOL;
}

/*
 * Reads dir into d: names, types and a hash table, in the pool of c
 * (NULL: the heap).  0, or -1 when it cannot be read (errno from
 * opendir: nothing there, or nothing we could see; d stays empty) or
 * with errno ENOMEM.
 */
static int
readlist(struct es_hide_dirs *c, struct es_hide_dir *d, const char *dir)
{
	size_t used = 0, cap, len, i, dl = strlen(dir) + 1, k, bl;
	char dbuf[16384], *nb;
	struct dent *de;
	unsigned char *blk;
	long got = 0, at = 0;
	int fd;

	memset(d, 0, sizeof(*d));
	/* getdents64 itself: opendir's buffer is an allocation per directory */
	/* openat: musl's open() follows O_CLOEXEC with an fcntl */
	if ((fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return -1;
	/* names, each with its type byte in front, at the pool's tail */
	d->names = pool_tail(c, &cap);
	for (;;) {
		if (at >= got) {
			if ((got = syscall(SYS_getdents64, fd, dbuf,
			    sizeof(dbuf))) <= 0)
				break;
			at = 0;
		}
		de = (struct dent *)(dbuf + at);
		at += de->d_reclen;
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		len = strlen(de->d_name) + 1;
		if (used + len + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			if (cap < used + len + 1)
				cap = used + len + 1;
			if (d->heap & 1)
				nb = realloc(d->names, cap);
			else if ((nb = malloc(cap)) != NULL && used > 0)
				memcpy(nb, d->names, used);
			if (nb == NULL)
				goto nomem;
			d->names = nb;
			d->heap |= 1;
		}
		d->names[used] = (char)de->d_type;
		memcpy(d->names + used + 1, de->d_name, len);
		used += len + 1;
		d->n++;
	}
	close(fd);
	fd = -1;
	if (!(d->heap & 1) && d->names != NULL)
		pool_keep(c, used);
	d->nslot = 2 * d->n + 1;
	/* off, slot, len, type and the directory's name in one block */
	bl = d->n * (sizeof(*d->off) + sizeof(*d->len)) +
	    d->nslot * sizeof(*d->slot) + d->n + dl;
	if ((blk = (unsigned char *)pool_tail(c, &cap)) != NULL && bl <= cap)
		pool_keep(c, bl);
	else if ((blk = malloc(bl)) != NULL)
		d->heap |= 2;
	else
		goto nomem;
	memset(blk, 0, bl);
	d->off = (unsigned int *)blk;
	d->slot = d->off + d->n;
	d->len = (unsigned short *)(d->slot + d->nslot);
	d->type = (unsigned char *)(d->len + d->n);
	d->dir = (char *)d->type + d->n;
	memcpy(d->dir, dir, dl);
	for (i = 0, used = 0; i < d->n; i++) {
		d->type[i] = (unsigned char)d->names[used];
		d->off[i] = (unsigned int)used + 1;
		d->len[i] = (unsigned short)strlen(d->names + used + 1);
		used += d->len[i] + 2u;
		k = es_hash(d->names + d->off[i], d->len[i]) % d->nslot;
		while (d->slot[k] != 0)
			k = (k + 1) % d->nslot;
		d->slot[k] = (unsigned int)i + 1;
	}
	return 0;
nomem:
	if (fd != -1)
		close(fd);
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
	if (readlist(slot == tmp ? NULL : c, slot, dir) == -1)
		return NULL;
	if (slot != tmp)
		c->n++;
	return slot;
}

/*
 * buf[0..len) is the path so far; pat the components still to match.
 * type: what a listing said of the last component (DT_UNKNOWN: stat it);
 * depth: how many components below the base (the home) buf is.
 */
static int
walk(struct walk *w, char *buf, size_t len, const char *pat,
    unsigned char type, int depth)
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
		 * A listing answers without a stat: the home and its
		 * directories (~/.config, ~/.claude), each read once for all
		 * their entries, most of which name a file this home does not
		 * have, and what a '*' read.  Reading every directory on the
		 * way costs more than its stats.  One that cannot be listed
		 * (mode 0711) is asked by stat.
		 */
		type = DT_UNKNOWN;
		if ((d = depth <= w->list ? listdir(w->dirs, len == 0 ? "/" :
		    buf, NULL) : cached(w->dirs, len == 0 ? "/" : buf)) != NULL) {
			if ((k = lookup(d, pat, cl)) == -1)
				return 0;
			type = d->type[k];
		} else if (depth <= w->list && (errno == ENOENT ||
		    errno == ENOTDIR))
			return 0;
		else if (depth <= w->list && errno == ENOMEM)
			return -1;
		buf[len] = '/';
		memcpy(buf + len + 1, pat, cl);
		return walk(w, buf, len + 1 + cl, e, type, depth + 1);
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
		rc = walk(w, buf, len + 1 + nl, e, d->type[i], depth + 1);
	}
	if (d == &tmp)
		drop(&tmp);
	return rc;
}

/*
 * A "$NAME" value we may use: absolute, no ".." anywhere, and not the
 * system's own trees (the variable comes from the shell's environment).
 */
static const char *
var_base(const char *pat, const char **rest)
{
	static const char *const sys[] = {
		"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/proc",
		"/sys", "/dev", "/nix"
	};
	char name[64];
	const char *e = strchrnul(pat + 1, '/'), *v;
	size_t n = (size_t)(e - pat - 1);

	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, pat + 1, n);
	name[n] = '\0';
	if ((v = getenv(name)) == NULL || v[0] != '/' || strstr(v, "/..") != NULL)
		return NULL;
	/* a child the agent gave CLOUDSDK_CONFIG=/usr must not empty /usr */
	if (v[strspn(v, "/")] == '\0')
		return NULL;
	for (n = 0; n < sizeof(sys) / sizeof(sys[0]); n++) {
		size_t k = strlen(sys[n]);

		if (strncmp(v, sys[n], k) == 0 && (v[k] == '\0' || v[k] == '/'))
			return NULL;
	}
	*rest = e;
	return v;
}

int
es_hide_expand(struct es_hide_dirs *dirs, const char *pat, const char *home,
    void (*fn)(void *, const char *, int), void *ctx)
{
	char buf[ES_PATH_MAX];
	struct walk w = { dirs, fn, ctx, 0, -1 };
	const char *base = "", *rest = pat;
	size_t n, bl;

	n = strlen(pat);
	w.dironly = n > 1 && pat[n - 1] == '/';
	if (pat[0] == '~') {
		if (home == NULL || home[0] != '/')
			return 0;
		base = home;
		rest = pat + 1;
		/* the home and its directories; /etc is not worth a listing */
		w.list = 1;
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
	return walk(&w, buf, bl, rest, DT_UNKNOWN, 0);
}

void
es_hide_dirs_free(struct es_hide_dirs *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		drop(&c->d[i]);
	c->n = 0;
	free(c->pool);
	c->pool = NULL;
	c->pooled = 0;
}

int
es_hide_holds(const char *path, const struct es_policy *p, char *why,
    size_t len)
{
	static char text[ES_HIDE_SCAN];	/* the outer and doctor: one thread */
	const char *what;
	struct stat st;
	unsigned line;
	size_t n = 0;
	ssize_t r;
	int fd;

	/* O_NONBLOCK: a FIFO planted under the name does not stall the start */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(why, len, "it cannot be read: %s",
		    strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, len, "not a regular file");
		return 1;
	}
	if (st.st_size > ES_HIDE_SCAN) {
		close(fd);
		snprintf(why, len, "longer than %d KiB", ES_HIDE_SCAN / 1024);
		return 1;
	}
	while (n < sizeof(text) &&
	    (r = read(fd, text + n, sizeof(text) - n)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			close(fd);
			snprintf(why, len, "it cannot be read: %s",
			    strerror(errno));
			return 1;
		}
		n += (size_t)r;
	}
	close(fd);
	if (n == sizeof(text)) {
		snprintf(why, len, "longer than %d KiB", ES_HIDE_SCAN / 1024);
		return 1;
	}
	if (!es_hide_secret_in(p, text, n, &what, &line))
		return 0;
	if (what != NULL)
		snprintf(why, len, "a %s shape on line %u", what, line);
	else
		snprintf(why, len, "line %u names a credential", line);
	return 1;
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
