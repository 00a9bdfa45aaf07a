/*
 * es_hide.h - the builtin hide list: credential stores no sandboxed shell
 * should read, grouped, each group with its reason (shim/engine/hide.c).
 *
 * Pure data and pure matching: the sandbox's outer expands the entries
 * against the real home at each start (shim/sandbox/expand.c), and
 * `envshim doctor` and `envshim policy --builtin` show them.
 */
#ifndef ES_HIDE_H
#define ES_HIDE_H

#include <stddef.h>

/*
 * A path: "~/..." (the home), "/..." or "$NAME" / "$NAME/..." (a variable
 * of the sandbox's environment naming a tool's moved home; unset or not
 * absolute: nothing).  '*' in any component matches any run of characters,
 * a leading '.' included.  A trailing '/' matches directories only.
 */
#define ES_HIDE_KEEP	0x1	/* not hidden: an exception to a pattern */
/*
 * Build configuration shells need (mirrors, proxies, JVM flags): hidden
 * only when it holds a credential (es_hide_secret_in), read at each start.
 */
#define ES_HIDE_IFSECRET 0x2

struct es_hide_group {
	const char	*name;		/* one word: "agents", "keys", ... */
	const char	*why;		/* one line */
};

struct es_hide_entry {
	const char	*path;
	unsigned char	 group;		/* index into es_hide_groups */
	unsigned char	 flags;		/* ES_HIDE_KEEP, ES_HIDE_IFSECRET */
	/*
	 * What its placeholder holds instead of nothing, for a tool that
	 * refuses an empty file (Maven: "input contained no data"), or NULL.
	 */
	const char	*stub;
};

extern const struct es_hide_group es_hide_groups[];
extern const size_t es_hide_ngroups;
extern const struct es_hide_entry es_hide_list[];
extern const size_t es_hide_n;

/*
 * "home private": the home is empty but for these (and the workspace, the
 * log, the policy's rw lines): what ordinary builds and the agents'
 * shells read.  "~/..." paths, no patterns.
 */
extern const char *const es_home_keep[];
extern const size_t es_home_nkeep;

/*
 * A session's home without its copy-on-write layer (overlayfs refused,
 * or a home path overlay options cannot carry): these directories, where
 * they exist in the real home, are bound writable at their real paths
 * from the session's layer directory, so the common toolchains still
 * write their caches and state there, never in the real home.  Each with
 * what writes it.  No entry lies below another; none is a PATH directory
 * or holds configuration (~/.cargo/bin, ~/go/bin, ~/.gradle/gradle.properties
 * stay as they are, read-only).
 */
struct es_home_cache {
	const char	*path;		/* "~/..." */
	const char	*why;
};
extern const struct es_home_cache es_home_cache[];
extern const size_t es_home_ncache;

/*
 * What an agent's own shell machinery writes and the agent reads back,
 * outside the sandbox: bound writable at its real path into every
 * sandbox where it exists (plan.c), each with the agent it serves.  So a
 * file there is one a sandboxed command could have written, and never
 * gets a program rule's names (launch.c).  "~/..." paths.
 */
struct es_agent_state {
	const char	*path;
	const char	*agent;
};
extern const struct es_agent_state es_agent_state[];
extern const size_t es_agent_nstate;

/* The entry whose path is exactly s (n bytes), not a KEEP one; or NULL. */
const struct es_hide_entry *es_hide_find(const char *s, size_t n);

/* Does one path component name match pattern pat (pn bytes, '*' only)? */
int	es_hide_glob(const char *pat, size_t pn, const char *name);

/*
 * Does the text of a configuration file (n bytes) hold a credential?
 * Yes for a secret shape anywhere, comments included (es_secret_value,
 * with the policy's secret-value literals when p is not NULL), and for a
 * line or an XML element that names one (password, passphrase, secret,
 * token, apikey, auth, credential, private) with a value that is not
 * empty, a boolean or a reference to the environment ("${env.NAME}",
 * "${NAME}", "$NAME", "%NAME%").  Returns 1 with *what the shape's name
 * or NULL, and *line the line it is on (from 1); else 0.  Pure.
 */
struct es_policy;
int	es_hide_secret_in(const struct es_policy *p, const char *text,
	    size_t n, const char **what, unsigned *line);

/*
 * The list as policy comments, grouped, for `envshim policy --builtin`.
 * Returns the length (without the NUL), or -1 when buf is too small;
 * buf NULL measures.
 */
long	es_hide_format(char *buf, size_t len);

/* ---- shim/sandbox/expand.c: the entries on this machine (outer, doctor) ---- */

/* A directory the expansion read, kept for the rest of the pass. */
struct es_hide_dir {
	char		*dir;
	char		*names;		/* NUL-separated, in readdir order */
	unsigned int	*off;		/* name i at names + off[i] */
	unsigned short	*len;		/* its length */
	unsigned char	*type;		/* its d_type */
	unsigned int	*slot;		/* hash table: index + 1, 0 = free */
	size_t		 n, nslot;
	unsigned char	 heap;		/* 1: names, 2: the rest, off the heap */
};

#define ES_HIDE_DIRS	64
#define ES_HIDE_POOL	(256 * 1024)	/* listings' memory; past it, the heap */
struct es_hide_dirs {
	size_t			n;
	struct es_hide_dir	d[ES_HIDE_DIRS];
	char			*pool;
	size_t			 pooled;
};

/*
 * Calls fn once for each existing path pat names, with whether it is a
 * directory (symbolic links followed, as mount(2) will).  Directories a
 * the walk passes are listed once into dirs (zeroed first,
 * es_hide_dirs_free after), and answer for their entries without a stat.
 * Returns 0, or -1 with errno (ENAMETOOLONG, ENOMEM) when it could not
 * expand.
 */
int	es_hide_expand(struct es_hide_dirs *dirs, const char *pat,
	    const char *home, void (*fn)(void *, const char *, int isdir),
	    void *ctx);
void	es_hide_dirs_free(struct es_hide_dirs *);

/*
 * Should an ES_HIDE_IFSECRET file be hidden: it holds a credential by
 * es_hide_secret_in (p: the policy's secret-value literals too, or NULL),
 * or cannot be judged (longer than ES_HIDE_SCAN, not a regular file,
 * unreadable).  Returns 1 with why (never the file's bytes) in buf, 0 when
 * it holds none or is not there.
 */
int	es_hide_holds(const char *path, const struct es_policy *p, char *why,
	    size_t len);

/* Is path one the builtin list keeps readable (~/.ssh/known_hosts, ...)? */
int	es_hide_kept(const char *path, const char *home);

#endif
