/*
 * es_policy.h - the pure core of envshim: policy, launch snapshot, filter.
 *
 * Everything declared here is pure: no hooks, no mutable globals, no I/O,
 * no allocation.  Functions marked AS-safe may run between fork/vfork and
 * exec; they touch only their arguments and const tables.
 */
#ifndef ES_POLICY_H
#define ES_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "es_limits.h"

#define ES_POLICY_ARENA	65536	/* bytes for every string a policy holds */
#define ES_NAMES_IX	1024	/* slots of the builtin name index (names.c) */

struct es_names_tables;		/* names.h */

enum es_action {
	ES_KEEP = 0,
	ES_DROP,
	ES_REWRITE		/* kept with a new value (PATH, proxy userinfo) */
};

/* Why a variable was kept, dropped or rewritten.  Names: es_reason_name(). */
enum es_reason {
	ES_R_DEFAULT = 0,	/* "default": no rule matched, kept */
	ES_R_SAFE,		/* "safe": on the always-keep list, value passed */
	ES_R_INJECTION,		/* "injection" */
	ES_R_SECRET_NAME,	/* "secret-name" */
	ES_R_SECRET_VALUE,	/* "secret-value" */
	ES_R_CAPABILITY,	/* "capability" */
	ES_R_CHANGED,		/* "changed": Tier B added/changed vs launch */
	ES_R_POLICY,		/* "policy": a user drop/keep/set rule */
	ES_R_MALFORMED,		/* "malformed": no '=', or empty name */
	ES_R_UNSAFE_VALUE,	/* "unsafe-value": always-keep name, bad value */
	ES_R_DUPLICATE,		/* "duplicate": later copy of a kept name */
	ES_R_LOCKED,		/* "locked": ENVSHIM_* or a forced name */
	ES_R_NORMALISED,	/* "normalised": PATH entries cleaned */
	ES_R_AGENT,		/* "agent": kept because the target is the agent */
	ES_R_PROGRAM,		/* "program": kept by a program rule */
	ES_R_TAME,		/* "tame": an inert taming value, into the sandbox */
	ES_R_INSIDE,		/* "inside": set inside the sandbox, for inside */
	ES_R_WRITABLE,		/* "writable": a program rule's, withheld from a */
				/* file a sandboxed command could have written */
	ES_R__COUNT
};

enum es_rule_kind {
	ES_RULE_DROP = 1,	/* drop PATTERN         -> policy */
	ES_RULE_KEEP,		/* keep PATTERN         -> keep, beats heuristics */
	ES_RULE_INJECTION,	/* injection PATTERN    -> injection */
	ES_RULE_SECRET_NAME,	/* secret-name PATTERN  -> secret-name */
	ES_RULE_SECRET_VALUE,	/* secret-value LITERAL -> secret-value (in value) */
	ES_RULE_CAPABILITY,	/* capability PATTERN   -> capability */
	ES_RULE_CHANGED		/* changed PATTERN      -> Tier B */
};

enum es_mode { ES_MODE_ENFORCE = 0, ES_MODE_AUDIT };
/*
 * ALL (the default): every launch the agent makes but its own hand-overs
 * and program rules' programs goes to the sandbox; SHELLS: only shells,
 * shell scripts and unfollowable programs; OPTIONAL: as ALL, run
 * unconfined where the sandbox cannot start; OFF: no sandbox.
 */
enum es_sandbox_mode { ES_SANDBOX_ALL = 0, ES_SANDBOX_SHELLS, ES_SANDBOX_OPTIONAL,
	ES_SANDBOX_OFF };
/* home-layer: the session's home layer goes with it, or stays per workspace */
enum es_home_layer { ES_LAYER_SESSION = 0, ES_LAYER_WORKSPACE };
enum es_unfollow { ES_UNFOLLOW_SANDBOX = 0, ES_UNFOLLOW_REFUSE, ES_UNFOLLOW_ALLOW };
enum es_log_kind { ES_LOG_DEFAULT = 0, ES_LOG_PATH, ES_LOG_STDERR, ES_LOG_SYSLOG, ES_LOG_OFF };

/*
 * Name patterns: '*' matches any run of characters, compared ASCII
 * case-insensitively against the whole name ("AWS_*", "*_TOKEN", "PAGER").
 */
struct es_rule {
	unsigned char	 kind;		/* enum es_rule_kind */
	unsigned char	 layer;		/* index into es_policy.layer_name */
	unsigned short	 len;		/* strlen(pat) */
	unsigned int	 line;		/* line in that layer's file */
	const char	*pat;		/* into arena */
};

/*
 * "program WORD... keep PATTERN...": launches of one program the agent
 * starts keep the patterns (over every other rule but the locked ones and
 * LD_*), and so do that launch's descendants.  word[0] is a path (has a
 * '/') or a base name; word[1..] are the leading arguments, exact.  Lines
 * naming the same words are one entry; each keep records its own line.
 */
struct es_program {
	unsigned char	 layer;		/* of the first line naming it */
	unsigned char	 nwords, nkeep;
	unsigned int	 line;
	const char	*word[ES_PROGRAM_WORDS];	/* into arena */
	struct es_rule	 keep[ES_PROGRAM_KEEPS];	/* kind ES_RULE_KEEP */
};

/* A path-valued or string-valued setting, with where it came from. */
struct es_item {
	unsigned char	 layer;
	unsigned int	 line;
	const char	*s;		/* into arena; for sets "NAME=VALUE" */
};

/*
 * The compiled policy.  Self-contained (strings live in arena), so it can be
 * a static object filled by a constructor and only read afterwards.
 * Scalars record the layer and line that last set them (*_layer, 0 =
 * builtin; *_line, 0 = none).
 */
struct es_policy {
	unsigned char	 mode, sandbox, unfollowable, network, protect_self, log;
	unsigned char	 mode_layer, sandbox_layer, unfollowable_layer;
	unsigned char	 network_layer, protect_self_layer, log_layer;
	unsigned int	 mode_line, sandbox_line, unfollowable_line;
	unsigned int	 network_line, protect_self_line, log_line;
	const char	*log_path;		/* when log == ES_LOG_PATH */
	size_t		 nlayers;
	const char	*layer_name[ES_MAX_LAYERS];	/* [0] = "builtin" */
	size_t		 nrules;
	struct es_rule	 rules[ES_MAX_RULES];	/* file order; last match wins */
	size_t		 nsets, nrw, nro, nhide, nshells;
	struct es_item	 sets[ES_MAX_SETS];
	struct es_item	 rw[ES_MAX_PATHS];
	struct es_item	 ro[ES_MAX_PATHS];
	struct es_item	 hide[ES_MAX_PATHS];
	struct es_item	 shells[ES_MAX_SHELLS];
	size_t		 nprograms;
	struct es_program programs[ES_MAX_PROGRAMS];
	size_t		 nreveal;		/* builtin hide entries re-shown */
	struct es_item	 reveal[ES_MAX_PATHS];
	unsigned char	 home_private, home_private_layer;	/* "home private" */
	unsigned int	 home_private_line;
	/* "home-layer": where the session's copy-on-write home layer lives */
	unsigned char	 home_layer, home_layer_layer;	/* ES_LAYER_* */
	unsigned int	 home_layer_line;
	/* "log-required yes": no agent starts whose records cannot be kept */
	unsigned char	 log_required, log_required_layer;
	unsigned int	 log_required_line;
	size_t		 arena_used;
	char		 arena[ES_POLICY_ARENA];
	/* The builtin name index, built with the program (names_ix.c). */
	const struct es_names_tables *names_ix;
};

/* Where a parse failed: "file:line: what". */
struct es_parse_err {
	const char	*file;		/* the layer name given to es_policy_parse */
	unsigned int	 line;		/* 0 = the file as a whole */
	char		 what[200];
};

/* Values of the tracked (Tier B) variables at launch, as hashes only. */
struct es_snapshot {
	size_t		 n;
	uint64_t	 name[ES_SNAPSHOT_MAX];	/* es_hash of the exact name */
	uint64_t	 value[ES_SNAPSHOT_MAX];	/* es_hash of the value */
};

/* One input entry's fate. */
struct es_verdict {
	unsigned char	 action;	/* enum es_action */
	unsigned char	 reason;	/* enum es_reason */
};

/* Flags for es_filter. */
#define ES_F_AGENT	0x1	/* target is the agent itself: keep secrets, capabilities */
/*
 * The target runs in the sandbox.  What an agent sets to tame its tools
 * (PAGER=cat, GIT_EDITOR=true, git's GIT_CONFIG_* hardening, a
 * NODE_OPTIONS of memory and warning flags) passes on every launch when
 * its value is inert (docs/policy.md, "The boundary"); without this flag
 * a git pair naming a program (cat, true) also needs the pager's or an
 * editor's key.
 */
#define ES_F_SANDBOX	0x2
/*
 * The launching process is inside the sandbox: only the shim's own
 * entries and the policy's sets are decided; everything else is kept
 * as the process set it, and an LD_PRELOAD of its own goes after the
 * shim's.
 */
#define ES_F_INSIDE	0x4
/* A launch of (or inside) program rule i: its keeps apply.  i < ES_MAX_PROGRAMS. */
#define ES_F_PROGRAM(i)	(0x100u | ((unsigned int)(i) << 16))
/*
 * With ES_F_PROGRAM(i): the target is a file a sandboxed command could
 * have written, so the names rule i keeps are dropped instead (reason
 * "writable"), inside the sandbox too.
 */
#define ES_F_WITHHOLD	0x8

/* ---- policy.c / parse.c: building and printing a policy ---- */

/* Builtin defaults, one layer ("builtin").  Always succeeds. */
void	es_policy_init(struct es_policy *);
/*
 * The same for a policy whose memory is known to be all zero (a static
 * object in a fresh process): nothing is cleared, so a child's constructor
 * touches no page the policy it parses does not use.
 */
void	es_policy_init_zeroed(struct es_policy *);

/*
 * Parses one layer of policy text (not NUL-terminated; len bytes) on top of
 * what p holds.  origin names the layer in errors and in es_policy_format.
 * Returns 0, or -1 with *err filled (p is then unusable: start over).
 */
int	es_policy_parse(struct es_policy *p, const char *text, size_t len,
	    const char *origin, struct es_parse_err *err);

#define ES_FMT_BUILTIN	0x1	/* include the compiled-in lists */
#define ES_FMT_ORIGIN	0x2	/* "# origin:line" after each line */
#define ES_FMT_SETTINGS	0x4	/* the builtin settings too (mode, sandbox, ...) */
/*
 * Writes the effective policy as policy text.  Without ES_FMT_BUILTIN it
 * writes only what the non-builtin layers said, in a form es_policy_parse
 * reads back to the same policy.  Returns the length (excluding the NUL) or
 * -1 when buf is too small.
 */
long	es_policy_format(const struct es_policy *, unsigned int flags,
	    char *buf, size_t len);

/* ---- policy.c: decisions.  All AS-safe. ---- */

const char *es_reason_name(unsigned int reason);
const char *es_action_name(unsigned int action);

/* FNV-1a 64 over n bytes. */
uint64_t es_hash(const char *s, size_t n);

/* Records the tracked variables of envp (first copy of each name). */
void	es_snapshot_take(const struct es_policy *, char *const envp[],
	    struct es_snapshot *);
/* "hhhh...:hhhh...,..." (16 hex digits each).  Returns length or -1. */
long	es_snapshot_encode(const struct es_snapshot *, char *buf, size_t len);
/* Returns 0, or -1 on a malformed encoding (snapshot then empty). */
int	es_snapshot_decode(const char *text, struct es_snapshot *);

/* Bytes of scratch es_filter needs for n entries totalling bytes of text. */
size_t	es_filter_scratch(size_t n, size_t bytes);

/*
 * Filters envp (n entries; NULL entries are skipped) into out.
 *   snap:   the launch snapshot; NULL means nothing counts as changed.
 *   forced: NULL-terminated "NAME=VALUE" entries put first in out; any input
 *           with one of their names is dropped as locked.  May be NULL.
 *   out:    room for outcap pointers; receives the forced entries, the kept
 *           entries (pointers to the input strings, or to scratch for
 *           rewrites), the policy's set entries, and a NULL.
 *   v:      if not NULL, n verdicts, one per input entry.
 *   scratch/scratchlen: at least es_filter_scratch(n, total bytes of envp).
 * Values of dropped entries are never copied.  Returns the number of
 * entries in out (without the NULL), or -1 when out or scratch is too small.
 */
long	es_filter(const struct es_policy *, const struct es_snapshot *snap,
	    unsigned int flags, char *const envp[], size_t n,
	    const char *const forced[], const char **out, size_t outcap,
	    struct es_verdict *v, void *scratch, size_t scratchlen);

/*
 * The program rule a launch matches, or -1: path is the file as the
 * launcher named it, real the file it resolves to (may be NULL), argv
 * the arguments.  word[0] is compared with path and real (a name without
 * '/': with their last components); word[1..] with argv[1..].  The rule
 * naming the most words wins; of equals, the later.  AS-safe.
 */
int	es_program_match(const struct es_policy *, const char *path,
	    const char *real, char *const argv[]);
/*
 * Is name (a path's last component counts) an interpreter or package
 * runner, named by a program rule only with its script (parse.c)?
 */
int	es_program_runner(const char *name);
/* The keep of program rule prog that keeps name, or NULL.  AS-safe. */
const struct es_rule *es_program_keep(const struct es_policy *, int prog,
	    const char *name, size_t nlen);

/*
 * Is name a capability under p: one of the builtin names
 * (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, ...) or a `capability`
 * rule's?  Whether it is kept is es_filter's to say.  AS-safe.
 */
int	es_policy_capability(const struct es_policy *, const char *name,
	    size_t nlen);

/* ---- shapes.c ---- */

/*
 * Does value contain a secret by shape (the builtin shapes, and the policy's
 * secret-value literals if p is not NULL)?  Returns 1 or 0; *what (if not
 * NULL) gets the shape's name ("github-pat", "url-userinfo", ...).  AS-safe.
 */
int	es_secret_value(const struct es_policy *p, const char *value,
	    size_t len, const char **what);

#endif
