/*
 * load.c - policy layers from disk and from text.
 *
 * A policy file is found as the kernel would find it, one component at
 * a time (walk_path), and every directory on the way - one that holds a
 * link too - MUST be one only the user or root can write (or sticky): a
 * link into the user's dotfiles (stow, chezmoi, home-manager's chain into
 * /nix/store) is followed, a link in or to a directory another user may
 * write is not.  The file is then opened at its real path without
 * following a link, and every check MUST be made on the open descriptor
 * (fstat), so the file judged is the file read.  A file anyone but the
 * user or root could have written is refused: it would let them choose
 * what the agent's children see.  Missing optional layers are fine; a
 * named file is not.
 *
 * Runs in the launch root's constructor, so it allocates with mmap, not
 * the host program's malloc, and keeps no state.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_load.h"

#ifndef ES_SYSCONFDIR
#define ES_SYSCONFDIR	"/etc"
#endif

static int lerr(struct es_parse_err *, const char *, const char *, ...)
    __attribute__((format(printf, 3, 4)));
static int check_programs(struct es_policy *, unsigned int,
    struct es_parse_err *);

static int
lerr(struct es_parse_err *err, const char *file, const char *fmt, ...)
{
	va_list	ap;

	err->file = file;
	err->line = 0;
	va_start(ap, fmt);
	vsnprintf(err->what, sizeof(err->what), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * err->file must outlive a path built on our stack.  p is unusable after
 * an error anyway, so its free arena holds the name.
 */
static int
keep_name(struct es_policy *p, struct es_parse_err *err, const char *path)
{
	size_t	n = strlen(path) + 1;

	if (err->file == path) {
		if (n <= sizeof(p->arena) - p->arena_used) {
			memcpy(p->arena + p->arena_used, path, n);
			err->file = p->arena + p->arena_used;
		} else
			err->file = "policy";
	}
	return -1;
}

uid_t
es_unmapped_uid(void)
{
	char buf[128];
	unsigned long a, b, c;
	ssize_t n;
	int fd;

	if ((fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC)) == -1)
		return (uid_t)-1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (uid_t)-1;
	buf[n] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 &&
	    c == 4294967295UL && strchr(buf, '\n') == buf + n - 1)
		return (uid_t)-1;	/* the first namespace: none unmapped */
	if ((fd = open("/proc/sys/kernel/overflowuid", O_RDONLY |
	    O_CLOEXEC)) == -1)
		return 65534;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 && sscanf(buf, "%lu", &a) == 1 ? (uid_t)a : 65534;
}

/* A directory on the way to a policy: only the user or root write it. */
static int
safe_dir(const char *dir, const struct stat *st, uid_t other, const char *path,
    struct es_parse_err *err)
{
	if (st->st_uid != geteuid() && st->st_uid != 0 && st->st_uid != other)
		return lerr(err, path, "refused: %s is owned by another user "
		    "(the directories on the way must be yours or root's)", dir);
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return lerr(err, path, "refused: %s is writable by group or "
		    "others (chmod go-w %s)", dir, dir);
	return 0;
}

/* Appends "/name" (n bytes) to buf of len; -1 when it does not fit. */
static int
put_name(char *buf, size_t len, const char *name, size_t n)
{
	size_t used = strlen(buf);

	if (used + 1 + n + 1 > len)
		return -1;
	buf[used] = '/';
	memcpy(buf + used + 1, name, n);
	buf[used + 1 + n] = '\0';
	return 0;
}

/*
 * Resolves path into real (no link, ".." or "." left), checking each
 * directory it goes through (safe_dir), as the kernel's lookup goes:
 * components left to right, a link's target put in front of what is
 * left.  0; 1 when a component is missing (errno set: a missing file
 * is no layer, whatever the directories it would be in); -1 with err
 * set.
 */
static int
walk_path(const char *path, char *real, size_t len, struct es_parse_err *err)
{
	char todo[2 * ES_PATH_MAX], rest[2 * ES_PATH_MAX], link[ES_PATH_MAX];
	char *c, *e;
	struct stat st;
	uid_t other = es_unmapped_uid();
	int hops = 0, bad = 0;
	ssize_t n;

	todo[0] = '\0';
	if (path[0] != '/' && getcwd(todo, sizeof(todo)) == NULL)
		return lerr(err, path, "cannot find the working directory: %s",
		    strerror(errno));
	if (strlen(todo) + 1 + strlen(path) + 1 > sizeof(todo))
		return lerr(err, path, "path too long");
	if (path[0] != '/')
		strcat(todo, "/");
	strcat(todo, path);
	real[0] = '\0';
	if (lstat("/", &st) == -1 || safe_dir("/", &st, other, path, err) != 0)
		bad = 1;
	for (c = todo; *c != '\0'; c = e) {
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		e = strchrnul(c, '/');
		if (e - c == 1 && c[0] == '.')
			continue;
		if (e - c == 2 && c[0] == '.' && c[1] == '.') {
			if (strrchr(real, '/') != NULL)
				*strrchr(real, '/') = '\0';
			continue;
		}
		if (put_name(real, len, c, (size_t)(e - c)) != 0)
			return lerr(err, path, "path too long");
		if (lstat(real, &st) == -1)
			return 1;
		if (S_ISLNK(st.st_mode)) {
			if (++hops > 40) {
				errno = ELOOP;
				return lerr(err, path, "cannot open: %s",
				    strerror(errno));
			}
			if ((n = readlink(real, link, sizeof(link) - 1)) <= 0)
				return lerr(err, path, "cannot read the link "
				    "%s: %s", real, strerror(errno));
			link[n] = '\0';
			/* the target, then what was left after the link */
			if ((size_t)n + 1 + strlen(e) + 1 > sizeof(rest))
				return lerr(err, path, "path too long");
			memcpy(rest, link, (size_t)n + 1);
			strcat(rest, "/");
			strcat(rest, e);
			memcpy(todo, rest, strlen(rest) + 1);
			e = todo;
			*strrchr(real, '/') = '\0';	/* back to the link's dir */
			if (link[0] == '/')
				real[0] = '\0';
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (!bad && safe_dir(real, &st, other, path, err) != 0)
				bad = 1;	/* said if the file is there */
		} else if (*e != '\0' && e[strspn(e, "/")] != '\0') {
			errno = ENOTDIR;
			return 1;
		}
	}
	if (real[0] == '\0')
		memcpy(real, "/", 2);
	return bad ? -1 : 0;
}

/*
 * Reads path as one layer on top of p.  optional: a missing file (ENOENT,
 * or ENOTDIR on the way) is no layer at all.  Returns 0 or -1.
 */
static int
load_layer(struct es_policy *p, const char *path, int optional,
    struct es_parse_err *err)
{
	struct stat	 st;
	char		*buf, real[ES_PATH_MAX];
	size_t		 cap = ES_POLICY_TEXT_MAX + 1, n = 0;
	ssize_t		 r;
	int		 fd, rc, saved;

	if ((rc = walk_path(path, real, sizeof(real), err)) == -1)
		return -1;
	fd = rc == 1 ? -1 : open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY | O_NONBLOCK);
	if (fd == -1) {
		if (optional && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		return lerr(err, path, "cannot open: %s", strerror(errno));
	}
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		return lerr(err, path, "cannot stat: %s", strerror(saved));
	}
	rc = -1;
	if (!S_ISREG(st.st_mode))
		lerr(err, path, "refused: not a regular file");
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		lerr(err, path, "refused: writable by group or others "
		    "(chmod go-w)");
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		lerr(err, path, "refused: owned by another user "
		    "(must be yours or root's)");
	else if (st.st_size > ES_POLICY_TEXT_MAX)
		lerr(err, path, "refused: larger than %d bytes",
		    ES_POLICY_TEXT_MAX);
	else
		rc = 0;
	if (rc == -1) {
		close(fd);
		return -1;
	}
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		saved = errno;
		close(fd);
		return lerr(err, path, "cannot read: %s", strerror(saved));
	}
	/* The size may change under us: read to EOF, one byte past the max. */
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	saved = errno;
	close(fd);
	if (r == -1)
		rc = lerr(err, path, "cannot read: %s", strerror(saved));
	else if (n > ES_POLICY_TEXT_MAX)
		rc = lerr(err, path, "refused: larger than %d bytes",
		    ES_POLICY_TEXT_MAX);
	else if ((rc = es_policy_parse(p, buf, n, path, err)) == 0)
		rc = check_programs(p, (unsigned int)p->nlayers - 1, err);
	munmap(buf, cap);
	return rc;
}

/*
 * The file a program rule's first word names here: the path, or the
 * first executable of that name on PATH.  Returns 0 with buf filled, or
 * -1 when there is none (the rule may be for another machine's PATH).
 */
static int
program_file(const char *w, char *buf, size_t len)
{
	const char	*path = getenv("PATH");
	int		 n;

	if (strchr(w, '/') != NULL) {
		n = snprintf(buf, len, "%s", w);
		return n > 0 && (size_t)n < len && access(buf, X_OK) == 0 ?
		    0 : -1;
	}
	return es_path_find(w, path != NULL ? path : "/usr/bin:/bin", buf, len);
}

int
es_path_find(const char *name, const char *path, char *buf, size_t len)
{
	const char	*p, *e;
	struct stat	 st;
	int		 n;

	for (p = path; ; p = e + 1) {
		e = strchrnul(p, ':');
		n = snprintf(buf, len, "%.*s%s%s", (int)(e - p), p,
		    e > p ? "/" : "", name);
		if (n > 0 && (size_t)n < len && stat(buf, &st) == 0 &&
		    S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
		if (*e == '\0')
			return -1;
	}
}

/*
 * A program rule of layer may not name a shell, whatever the file is
 * called: a "#!" script judged by a shell, or a link to one.  The parser
 * knows names only; this reads what the names lead to.
 */
static int
check_programs(struct es_policy *p, unsigned int layer,
    struct es_parse_err *err)
{
	unsigned char	 head[ES_SNIFF_HEAD];
	char		 file[ES_PATH_MAX], real[ES_PATH_MAX];
	struct es_sniff	 sn;
	size_t		 i;
	ssize_t		 n;
	int		 fd;

	for (i = 0; i < p->nprograms; i++) {
		const struct es_program *pr = &p->programs[i];
		const char *why = NULL;

		if (pr->layer != layer)
			continue;
		if (es_is_shell(p, pr->word[0]))
			why = "is a shell, and a shell runs whatever it is told";
		else if (program_file(pr->word[0], file, sizeof(file)) != 0)
			continue;
		if (why == NULL && realpath(file, real) != NULL &&
		    es_is_shell(p, real))
			why = "leads to a shell, and a shell runs whatever it "
			    "is told";
		if (why == NULL &&
		    (fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY |
		    O_NONBLOCK)) >= 0) {
			n = read(fd, head, sizeof(head));
			close(fd);
			es_sniff(head, n > 0 ? (size_t)n : 0, &sn);
			if (sn.kind == ES_K_SCRIPT &&
			    es_is_shell(p, es_script_judge(&sn)))
				why = "is a shell script, and a shell runs "
				    "whatever it is told";
		}
		if (why == NULL)
			continue;
		err->file = p->layer_name[layer];
		err->line = pr->line;
		snprintf(err->what, sizeof(err->what), "program %s %s; name "
		    "the program it starts", pr->word[0], why);
		return -1;
	}
	return 0;
}

/* The per-user file, or 0 when neither XDG_CONFIG_HOME nor HOME says. */
static int
user_path(char *buf, size_t len)
{
	const char	*x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	int		 n;

	/* The XDG spec says relative values are to be ignored. */
	if (x != NULL && x[0] == '/')
		n = snprintf(buf, len, "%s/envshim/policy", x);
	else if (h != NULL && h[0] == '/')
		n = snprintf(buf, len, "%s/.config/envshim/policy", h);
	else
		return 0;
	return n > 0 && (size_t)n < len;
}

int
es_policy_load_root(struct es_policy *p, const char *userfile,
    struct es_parse_err *err)
{
	char	path[ES_PATH_MAX];

	es_policy_init(p);
	if (load_layer(p, ES_SYSCONFDIR "/envshim/policy", 1, err) == -1)
		return -1;
	if (user_path(path, sizeof(path)) &&
	    load_layer(p, path, 1, err) == -1)
		return keep_name(p, err, path);
	if (userfile != NULL && load_layer(p, userfile, 0, err) == -1)
		return -1;
	return 0;
}

int
es_policy_load_file(struct es_policy *p, const char *path,
    struct es_parse_err *err)
{
	es_policy_init(p);
	return load_layer(p, path, 0, err);
}

int
es_policy_load_text(struct es_policy *p, const char *text,
    const char *origin, struct es_parse_err *err)
{
	es_policy_init(p);
	return es_policy_parse(p, text, strlen(text), origin, err);
}

char *
es_parse_err_str(const struct es_parse_err *err, char *buf, size_t len)
{
	const char	*f = err->file != NULL ? err->file : "policy";

	if (err->line > 0)
		snprintf(buf, len, "%s:%u: %s", f, err->line, err->what);
	else
		snprintf(buf, len, "%s: %s", f, err->what);
	return buf;
}

int
es_log_file(const struct es_policy *p, const char *home, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	int n;

	if (p != NULL && p->log == ES_LOG_PATH && p->log_path != NULL) {
		if (p->log_path[0] != '~')
			n = snprintf(buf, len, "%s", p->log_path);
		else if (home != NULL && home[0] == '/')
			n = snprintf(buf, len, "%s%s", home, p->log_path + 1);
		else
			return -1;
	} else if (p != NULL && p->log != ES_LOG_DEFAULT && p->log != ES_LOG_PATH)
		return -1;
	else if (xdg != NULL && xdg[0] == '/')
		n = snprintf(buf, len, "%s/envshim/audit.jsonl", xdg);
	else if (home != NULL && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/envshim/audit.jsonl", home);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int
es_layer_dir(const char *home, const char *ws, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	int n;

	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(buf, len, "%s/envshim/layers", xdg);
	else if (home != NULL && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/state/envshim/layers", home);
	else
		return -1;
	if (n > 0 && (size_t)n < len && ws != NULL)
		n += snprintf(buf + n, len - (size_t)n, "/%016llx",
		    (unsigned long long)es_hash(ws, strlen(ws)));
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/*
 * The log is never trimmed by the writers (one write(2) per record, from
 * many processes), so an agent's start is the one quiet moment to bound
 * it: one old generation is kept, and the disk holds at most about twice
 * ES_LOG_ROTATE.  A symlink or a device named by `log` is left alone.
 */
int
es_log_rotate(const char *path)
{
	char old[ES_PATH_MAX];
	struct stat st;
	int n;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode) || st.st_size < ES_LOG_ROTATE)
		return 0;
	n = snprintf(old, sizeof(old), "%s.1", path);
	if (n < 0 || (size_t)n >= sizeof(old)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return rename(path, old) == 0 ? 1 : -1;
}

int
es_log_open(const char *path)
{
	int fl = O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, fd;

	/* read too, for es_log_append's look at the last byte */
	if ((fd = open(path, O_RDWR | fl, 0600)) == -1 && errno == EACCES)
		fd = open(path, O_WRONLY | fl, 0600);
	return fd;
}

ssize_t
es_log_append(int fd, const char *line, size_t len)
{
	struct iovec v[2] = { { (void *)"\n", 1 }, { (void *)line, len } };
	struct stat st;
	char last = '\n';

	/* a record cut short before: this one starts a line of its own */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
		return writev(fd, v, 2);
	return write(fd, line, len);
}

size_t
es_log_top(const struct es_policy *p, const char *home, const char *path)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *s;

	if (p != NULL && p->log == ES_LOG_PATH && p->log_path != NULL) {
		/* a file the user named: its directory is theirs to make */
		s = strrchr(path, '/');
		return s != NULL ? (size_t)(s - path) : 0;
	}
	if (xdg != NULL && xdg[0] == '/' && strncmp(path, xdg,
	    strlen(xdg)) == 0 && (s = strrchr(xdg, '/')) != NULL)
		return (size_t)(s - xdg);	/* XDG_STATE_HOME may be made */
	if (home != NULL && home[0] == '/' && strncmp(path, home,
	    strlen(home)) == 0)
		return strlen(home);
	return 0;
}

int
es_log_create(const char *path, size_t top)
{
	char dir[ES_PATH_MAX], *s;
	int fd;

	if (strlen(path) >= sizeof(dir) || top > strlen(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, path, strlen(path) + 1);
	/* Private: the log names every program the agent ran. */
	for (s = dir + top + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(dir, 0700);
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY, 0600);
	if (fd == -1)
		return -1;
	close(fd);
	return 0;
}
