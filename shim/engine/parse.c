/*
 * parse.c - policy text to struct es_policy, and back.
 *
 * Pure: no I/O, no globals, no allocation.  Every string the policy keeps
 * is copied into p->arena, so the policy stays self-contained.
 *
 * The parser MUST reject rather than guess: any line it does not fully
 * understand is an error naming the line, and a full table is an error,
 * never a silent truncation.  Error messages MUST NOT quote the argument
 * of secret-value or set: those may be secrets.
 *
 * Grammar, one statement per line:
 *	line	= [ws] [keyword ws arg] [ws] [comment]
 *	comment	= "#" ... (at the start of a line, or after white space)
 *	arg	= the rest of the line, or "..." with \" and \\ as escapes
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stddef.h>

#include "es_exec.h"
#include "es_hide.h"
#include "es_policy.h"
#include "names.h"

enum kw_kind {
	KW_RULE,	/* a name pattern into rules[] */
	KW_LITERAL,	/* secret-value: any text into rules[] */
	KW_ENUM,	/* one word out of a fixed set, into a scalar */
	KW_SET,
	KW_SHELL,
	KW_PATH,
	KW_LOG,
	KW_REVEAL,
	KW_PROGRAM
};

enum path_list { PL_RW, PL_RO, PL_HIDE, PL_REVEAL };

struct kw {
	const char	*name;
	unsigned char	 kind;
	unsigned char	 sub;		/* rule kind, path list, enum index */
};

static const struct kw kws[] = {
	{ "mode",		KW_ENUM,	0 },
	{ "sandbox",		KW_ENUM,	1 },
	{ "network",		KW_ENUM,	2 },
	{ "unfollowable",	KW_ENUM,	3 },
	{ "protect-self",	KW_ENUM,	4 },
	{ "home",		KW_ENUM,	5 },
	{ "home-layer",		KW_ENUM,	6 },
	{ "log-required",	KW_ENUM,	7 },
	{ "drop",		KW_RULE,	ES_RULE_DROP },
	{ "keep",		KW_RULE,	ES_RULE_KEEP },
	{ "injection",		KW_RULE,	ES_RULE_INJECTION },
	{ "secret-name",	KW_RULE,	ES_RULE_SECRET_NAME },
	{ "secret-value",	KW_LITERAL,	ES_RULE_SECRET_VALUE },
	{ "capability",		KW_RULE,	ES_RULE_CAPABILITY },
	{ "changed",		KW_RULE,	ES_RULE_CHANGED },
	{ "set",		KW_SET,		0 },
	{ "shell",		KW_SHELL,	0 },
	{ "rw",			KW_PATH,	PL_RW },
	{ "ro",			KW_PATH,	PL_RO },
	{ "hide",		KW_PATH,	PL_HIDE },
	{ "log",		KW_LOG,		0 },
	{ "reveal",		KW_REVEAL,	PL_REVEAL },
	{ "program",		KW_PROGRAM,	0 }
};

#define SCALAR_WORDS	5	/* values a scalar keyword may take */

/* A scalar keyword: its words, their values, and where they are stored. */
struct scalar {
	const char	*kw;
	const char	*help;		/* "takes ..." */
	const char	*words[SCALAR_WORDS];
	unsigned char	 vals[SCALAR_WORDS];
	size_t		 val, layer, line;	/* offsetof into struct es_policy */
};

static const struct scalar scalars[] = {
	{ "mode", "enforce or audit", { "enforce", "audit", NULL },
	    { ES_MODE_ENFORCE, ES_MODE_AUDIT, 0 },
	    offsetof(struct es_policy, mode),
	    offsetof(struct es_policy, mode_layer),
	    offsetof(struct es_policy, mode_line) },
	/* "required", the older name of all, is read and printed as all */
	{ "sandbox", "all, shells, optional or off",
	    { "all", "shells", "optional", "off", "required" },
	    { ES_SANDBOX_ALL, ES_SANDBOX_SHELLS, ES_SANDBOX_OPTIONAL,
	    ES_SANDBOX_OFF, ES_SANDBOX_ALL },
	    offsetof(struct es_policy, sandbox),
	    offsetof(struct es_policy, sandbox_layer),
	    offsetof(struct es_policy, sandbox_line) },
	{ "network", "on or off", { "on", "off", NULL }, { 1, 0, 0 },
	    offsetof(struct es_policy, network),
	    offsetof(struct es_policy, network_layer),
	    offsetof(struct es_policy, network_line) },
	{ "unfollowable", "sandbox, refuse or allow",
	    { "sandbox", "refuse", "allow" },
	    { ES_UNFOLLOW_SANDBOX, ES_UNFOLLOW_REFUSE, ES_UNFOLLOW_ALLOW },
	    offsetof(struct es_policy, unfollowable),
	    offsetof(struct es_policy, unfollowable_layer),
	    offsetof(struct es_policy, unfollowable_line) },
	{ "protect-self", "yes or no", { "yes", "no", NULL }, { 1, 0, 0 },
	    offsetof(struct es_policy, protect_self),
	    offsetof(struct es_policy, protect_self_layer),
	    offsetof(struct es_policy, protect_self_line) },
	{ "home", "visible or private", { "visible", "private", NULL },
	    { 0, 1, 0 },
	    offsetof(struct es_policy, home_private),
	    offsetof(struct es_policy, home_private_layer),
	    offsetof(struct es_policy, home_private_line) },
	{ "home-layer", "session or workspace", { "session", "workspace", NULL },
	    { ES_LAYER_SESSION, ES_LAYER_WORKSPACE, 0 },
	    offsetof(struct es_policy, home_layer),
	    offsetof(struct es_policy, home_layer_layer),
	    offsetof(struct es_policy, home_layer_line) },
	{ "log-required", "yes or no", { "yes", "no", NULL }, { 1, 0, 0 },
	    offsetof(struct es_policy, log_required),
	    offsetof(struct es_policy, log_required_layer),
	    offsetof(struct es_policy, log_required_line) }
};

static const char *const rule_kw[] = {
	[ES_RULE_DROP] = "drop",
	[ES_RULE_KEEP] = "keep",
	[ES_RULE_INJECTION] = "injection",
	[ES_RULE_SECRET_NAME] = "secret-name",
	[ES_RULE_SECRET_VALUE] = "secret-value",
	[ES_RULE_CAPABILITY] = "capability",
	[ES_RULE_CHANGED] = "changed"
};

/* Shorter secret-value literals would match ordinary values. */
#define SECRET_LITERAL_MIN	4

/* One line being parsed. */
struct line {
	struct es_policy	*p;
	struct es_parse_err	*err;
	unsigned char		 layer;
	unsigned int		 lineno;
	const char		*kw;		/* keyword text */
	size_t			 kwlen;
	char			*arg;		/* unescaped, in the arena */
	size_t			 arglen;
	int			 words;		/* unquoted arg held white space */
};

static int fail(struct line *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static int
fail(struct line *l, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(l->err->what, sizeof(l->err->what), fmt, ap);
	va_end(ap);
	l->err->line = l->lineno;
	return -1;
}

static int
isws(int c)
{
	return c == ' ' || c == '\t';
}

/* Copies s (n bytes, plus a NUL) into the arena; NULL when full. */
static const char *
arena_dup(struct es_policy *p, const char *s, size_t n)
{
	char	*d;

	if (n + 1 > sizeof(p->arena) - p->arena_used)
		return NULL;
	d = p->arena + p->arena_used;
	memcpy(d, s, n);
	d[n] = '\0';
	p->arena_used += n + 1;
	return d;
}

/*
 * Splits [s, e) into keyword and argument.  The argument is unescaped into
 * the free end of the arena; it is only kept if the caller commits it.
 * Returns 1 for a statement, 0 for a blank or comment line, -1 on error.
 */
static int
split(struct line *l, const char *s, const char *e)
{
	struct es_policy	*p = l->p;
	char			*d = p->arena + p->arena_used;
	size_t			 room = sizeof(p->arena) - p->arena_used;
	const char		*q;

	for (q = s; q < e; q++) {
		if (*q == '\0')
			return fail(l, "NUL byte in policy text");
		if ((unsigned char)*q < 0x20 && *q != '\t')
			return fail(l, "control character in policy text");
		if (*q == 0x7f)
			return fail(l, "control character in policy text");
	}
	while (s < e && isws(*s))
		s++;
	if (s == e || *s == '#')
		return 0;
	l->kw = s;
	while (s < e && !isws(*s))
		s++;
	l->kwlen = s - l->kw;
	while (s < e && isws(*s))
		s++;
	l->arg = d;
	l->arglen = 0;
	l->words = 0;
	if (room == 0)
		return fail(l, "policy too large: string space full");
	if (s < e && *s == '"') {
		for (s++; s < e && *s != '"'; s++) {
			if (*s == '\\') {
				if (s + 1 == e || (s[1] != '"' && s[1] != '\\'))
					return fail(l, "only \\\" and \\\\ may "
					    "follow a backslash in quotes");
				s++;
			}
			if (l->arglen + 1 >= room)
				return fail(l, "policy too large: string "
				    "space full");
			d[l->arglen++] = *s;
		}
		if (s == e)
			return fail(l, "unterminated quote");
		for (s++; s < e && isws(*s); s++)
			;
		if (s < e && *s != '#')
			return fail(l, "text after the closing quote");
	} else {
		for (q = s; q < e; q++) {
			if (*q == '#' && (q == s || isws(q[-1])))
				break;
		}
		while (q > s && isws(q[-1]))
			q--;
		if ((size_t)(q - s) >= room)
			return fail(l, "policy too large: string space full");
		for (; s < q; s++) {
			if (isws(*s))
				l->words = 1;
			d[l->arglen++] = *s;
		}
	}
	d[l->arglen] = '\0';
	return 1;
}

/* Keeps the argument split() left in the arena. */
static const char *
commit(struct line *l)
{
	l->p->arena_used += l->arglen + 1;
	return l->arg;
}

static int
namechar(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* Does s[0..n) name a variable the way a shell would accept it? */
static int
varname(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < n; i++)
		if (!namechar((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Case-insensitive "does s start with pre". */
static int
hasprefix(const char *s, size_t n, const char *pre)
{
	size_t	i;

	for (i = 0; pre[i] != '\0'; i++) {
		int	c;

		if (i == n)
			return 0;
		c = (unsigned char)s[i];
		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		if (c != pre[i])
			return 0;
	}
	return 1;
}

static int
add_rule(struct line *l, unsigned char kind)
{
	struct es_policy	*p = l->p;
	struct es_rule		*r;

	if (p->nrules == ES_MAX_RULES)
		return fail(l, "too many rules (at most %d)",
		    ES_MAX_RULES);
	r = &p->rules[p->nrules++];
	r->kind = kind;
	r->layer = l->layer;
	r->len = (unsigned short)l->arglen;
	r->line = l->lineno;
	r->pat = commit(l);
	return 0;
}

static int
do_rule(struct line *l, const struct kw *k)
{
	size_t	i;

	if (l->arglen == 0)
		return fail(l, "%s needs a pattern", k->name);
	if (l->words)
		return fail(l, "%s takes one pattern", k->name);
	if (l->arglen > ES_PATTERN_MAX)
		return fail(l, "%s pattern longer than %d bytes", k->name,
		    ES_PATTERN_MAX);
	for (i = 0; i < l->arglen; i++)
		if (!namechar((unsigned char)l->arg[i]) && l->arg[i] != '*')
			return fail(l, "%s pattern may hold only letters, "
			    "digits, '_' and '*'", k->name);
	return add_rule(l, k->sub);
}

static int
do_literal(struct line *l, const struct kw *k)
{
	if (l->arglen == 0)
		return fail(l, "%s needs a literal", k->name);
	if (l->arglen < SECRET_LITERAL_MIN)
		return fail(l, "%s literal shorter than %d bytes "
		    "would match ordinary values", k->name, SECRET_LITERAL_MIN);
	if (l->arglen > ES_LITERAL_MAX)
		return fail(l, "%s literal longer than %d bytes", k->name,
		    ES_LITERAL_MAX);
	return add_rule(l, k->sub);
}

static int
do_enum(struct line *l, const struct kw *k)
{
	const struct scalar	*sc = &scalars[k->sub];
	size_t			 i;

	for (i = 0; i < SCALAR_WORDS && sc->words[i] != NULL; i++) {
		if (strcmp(l->arg, sc->words[i]) == 0) {
			((unsigned char *)l->p)[sc->val] = sc->vals[i];
			((unsigned char *)l->p)[sc->layer] = l->layer;
			memcpy((char *)l->p + sc->line, &l->lineno,
			    sizeof(l->lineno));
			return 0;
		}
	}
	return fail(l, "%s takes %s", sc->kw, sc->help);
}

/* A later "set" of the same name replaces the earlier one in place. */
static int
do_set(struct line *l)
{
	struct es_policy	*p = l->p;
	const char		*eq = memchr(l->arg, '=', l->arglen);
	size_t			 n, i;
	struct es_item		*it = NULL;

	if (eq == NULL)
		return fail(l, "set needs NAME=VALUE");
	n = eq - l->arg;
	if (!varname(l->arg, n))
		return fail(l, "set needs NAME=VALUE where NAME is letters, "
		    "digits and '_'");
	if (hasprefix(l->arg, n, "LD_") || hasprefix(l->arg, n, "ENVSHIM_"))
		return fail(l, "set may not name LD_* or ENVSHIM_* variables");
	for (i = 0; i < p->nsets; i++)
		if (strncmp(p->sets[i].s, l->arg, n + 1) == 0)
			it = &p->sets[i];
	if (it == NULL) {
		if (p->nsets == ES_MAX_SETS)
			return fail(l, "too many set lines (at most %d)",
			    ES_MAX_SETS);
		it = &p->sets[p->nsets++];
	}
	it->layer = l->layer;
	it->line = l->lineno;
	it->s = commit(l);
	return 0;
}

static int
do_shell(struct line *l)
{
	struct es_policy	*p = l->p;
	size_t			 i;

	if (l->arglen == 0 || l->words || memchr(l->arg, '/', l->arglen) ||
	    strcmp(l->arg, ".") == 0 || strcmp(l->arg, "..") == 0)
		return fail(l, "shell needs one program name without '/'");
	if (l->arglen > ES_PATTERN_MAX)
		return fail(l, "shell name longer than %d bytes",
		    ES_PATTERN_MAX);
	for (i = 0; i < p->nshells; i++)
		if (strcmp(p->shells[i].s, l->arg) == 0)
			return 0;
	if (p->nshells == ES_MAX_SHELLS)
		return fail(l, "too many shell lines (at most %d)",
		    ES_MAX_SHELLS);
	p->shells[p->nshells].layer = l->layer;
	p->shells[p->nshells].line = l->lineno;
	p->shells[p->nshells++].s = commit(l);
	return 0;
}

/*
 * Paths are absolute, "~" or "~/..." (the consumer expands ~), or, when
 * relative is set, relative to the workspace.  ".." is refused everywhere:
 * a path must not climb out of where it appears to point.
 */
static int
checkpath(struct line *l, const char *kw, int relative)
{
	const char	*s = l->arg, *c;
	size_t		 n = l->arglen;

	if (n == 0)
		return fail(l, "%s needs a path", kw);
	if (n >= ES_PATH_MAX)
		return fail(l, "%s path longer than %d bytes", kw,
		    ES_PATH_MAX - 1);
	if (s[0] == '~' && n > 1 && s[1] != '/')
		return fail(l, "%s: ~user paths are not supported, use ~/ "
		    "or an absolute path", kw);
	if (s[0] != '/' && s[0] != '~' && !relative)
		return fail(l, "%s needs an absolute path or one starting "
		    "with ~/", kw);
	for (c = s; c < s + n; c = c + 1) {
		const char	*end = memchr(c, '/', s + n - c);

		if (end == NULL)
			end = s + n;
		if (end - c == 2 && c[0] == '.' && c[1] == '.')
			return fail(l, "%s path may not contain '..'", kw);
		c = end;
	}
	return 0;
}

static int
do_path(struct line *l, const struct kw *k)
{
	struct es_policy	*p = l->p;
	struct es_item		*list;
	size_t			*np, i;

	if (checkpath(l, k->name, k->sub != PL_RW) == -1)
		return -1;
	switch (k->sub) {
	case PL_RW:
		list = p->rw;
		np = &p->nrw;
		break;
	case PL_RO:
		list = p->ro;
		np = &p->nro;
		break;
	case PL_REVEAL:
		list = p->reveal;
		np = &p->nreveal;
		break;
	default:
		list = p->hide;
		np = &p->nhide;
		break;
	}
	for (i = 0; i < *np; i++)
		if (strcmp(list[i].s, l->arg) == 0)
			return 0;
	if (*np == ES_MAX_PATHS)
		return fail(l, "too many %s lines (at most %d)", k->name,
		    ES_MAX_PATHS);
	list[*np].layer = l->layer;
	list[*np].line = l->lineno;
	list[(*np)++].s = commit(l);
	return 0;
}

static int
do_log(struct line *l)
{
	struct es_policy	*p = l->p;

	if (strcmp(l->arg, "stderr") == 0)
		p->log = ES_LOG_STDERR;
	else if (strcmp(l->arg, "syslog") == 0)
		p->log = ES_LOG_SYSLOG;
	else if (strcmp(l->arg, "off") == 0)
		p->log = ES_LOG_OFF;
	else if (l->arglen > 0 && (l->arg[0] == '/' || l->arg[0] == '~')) {
		if (checkpath(l, "log", 0) == -1)
			return -1;
		p->log = ES_LOG_PATH;
		p->log_path = commit(l);
	} else
		return fail(l, "log takes an absolute path, ~/path, stderr, "
		    "syslog or off");
	if (p->log != ES_LOG_PATH)
		p->log_path = NULL;
	p->log_layer = l->layer;
	p->log_line = l->lineno;
	return 0;
}

/*
 * reveal PATH: one builtin hide entry, named exactly as `envshim policy
 * --builtin` prints it, is shown to shells again.  Anything else is an
 * error: a reveal that matched nothing would look like it worked.
 */
static int
do_reveal(struct line *l, const struct kw *k)
{
	if (l->arglen == 0)
		return fail(l, "reveal needs a path from the builtin hide list");
	if (es_hide_find(l->arg, l->arglen) == NULL)
		return fail(l, "reveal: %.64s%s is not in the builtin hide "
		    "list (envshim policy --builtin prints it)", l->arg,
		    l->arglen > 64 ? "..." : "");
	return do_path(l, k);
}

/*
 * Programs that run whatever their arguments name: a rule for one of
 * them would hand its keeps to any command.
 */
static const char *const runs_anything[] = {
	"env", "busybox", "sudo", "doas", "xargs", "nohup", "timeout", "nice",
	"setsid", "exec", "command", "stdbuf", "chroot", "unshare", "nsenter",
};

/* Interpreters and package runners: they need a script or package named. */
static const char *const runners[] = {
	"node", "nodejs", "python", "perl", "ruby", "deno", "bun", "php",
	"java", "npx", "bunx", "uvx", "pipx", "uv", "pnpm", "yarn", "npm",
};

/* Is b the name n, or n followed by a version ("python3.11")? */
static int
versioned(const char *b, const char *n)
{
	size_t k = strlen(n);

	if (strncmp(b, n, k) != 0)
		return 0;
	for (b += k; *b != '\0'; b++)
		if (!(*b >= '0' && *b <= '9') && *b != '.')
			return 0;
	return 1;
}

int
es_program_runner(const char *name)
{
	const char	*b = strrchr(name, '/');
	size_t		 i;

	b = b != NULL ? b + 1 : name;
	for (i = 0; i < sizeof(runners) / sizeof(runners[0]); i++)
		if (versioned(b, runners[i]))
			return 1;
	return 0;
}

/* Splits s (NUL-terminated, in the arena) on white space, in place. */
static size_t
split_words(char *s, char **w, size_t max)
{
	size_t n = 0;

	for (;;) {
		while (isws(*s))
			*s++ = '\0';
		if (*s == '\0' || n == max + 1)
			return n;
		w[n++] = s;
		while (*s != '\0' && !isws(*s))
			s++;
	}
}

/*
 * program WORD... keep PATTERN...  A line naming the words of an earlier
 * one adds its keeps to that entry.  What reads a file (a named program
 * that is a shell script) is load.c's.
 */
static int
do_program(struct line *l)
{
	struct es_policy	*p = l->p;
	struct es_program	*pr = NULL;
	char			*w[ES_PROGRAM_WORDS + ES_PROGRAM_KEEPS + 3];
	const char		*b;
	size_t			 n, nw, i, k;

	if (l->arglen >= ES_PATH_MAX)
		return fail(l, "program line longer than %d bytes",
		    ES_PATH_MAX - 1);
	commit(l);
	n = split_words(l->arg, w, ES_PROGRAM_WORDS + ES_PROGRAM_KEEPS + 1);
	for (nw = 0; nw < n && strcmp(w[nw], "keep") != 0; nw++)
		;
	if (nw == 0 || nw + 1 >= n)
		return fail(l, "program needs a program, then keep and the "
		    "names it keeps: program NAME [ARG...] keep NAME...");
	if (nw > ES_PROGRAM_WORDS)
		return fail(l, "program: at most %d words name the program",
		    ES_PROGRAM_WORDS);
	if (n > ES_PROGRAM_WORDS + ES_PROGRAM_KEEPS + 1)
		return fail(l, "program: too many names (at most %d)",
		    ES_PROGRAM_KEEPS);
	if (strchr(w[0], '/') != NULL && w[0][0] != '/')
		return fail(l, "program: a path must be absolute (or give the "
		    "name alone)");
	b = strrchr(w[0], '/');
	b = b != NULL ? b + 1 : w[0];
	if (b[0] == '\0' || strcmp(b, ".") == 0 || strcmp(b, "..") == 0 ||
	    strstr(w[0], "/../") != NULL || strstr(w[0], "/./") != NULL)
		return fail(l, "program: '%s' names no file", w[0]);
	for (i = 0; i < sizeof(runs_anything) / sizeof(runs_anything[0]); i++)
		if (strcmp(b, runs_anything[i]) == 0)
			return fail(l, "program: %s runs whatever its arguments "
			    "name; name that program", b);
	if (nw == 1 && es_program_runner(b))
		return fail(l, "program: %s alone would match every "
		    "script or package it runs; name it too "
		    "(program %s /path/server.js keep ...)", b, b);
	for (k = nw + 1; k < n; k++) {
		if (strlen(w[k]) > ES_PATTERN_MAX)
			return fail(l, "program: keep pattern longer than %d "
			    "bytes", ES_PATTERN_MAX);
		for (i = 0; w[k][i] != '\0'; i++)
			if (!namechar((unsigned char)w[k][i]) && w[k][i] != '*')
				return fail(l, "program: keep pattern may hold "
				    "only letters, digits, '_' and '*'");
	}
	for (i = 0; i < p->nprograms && pr == NULL; i++) {
		if (p->programs[i].nwords != nw)
			continue;
		for (k = 0; k < nw; k++)
			if (strcmp(p->programs[i].word[k], w[k]) != 0)
				break;
		if (k == nw)
			pr = &p->programs[i];
	}
	if (pr == NULL) {
		if (p->nprograms == ES_MAX_PROGRAMS)
			return fail(l, "too many program rules (at most %d)",
			    ES_MAX_PROGRAMS);
		pr = &p->programs[p->nprograms++];
		memset(pr, 0, sizeof(*pr));
		pr->layer = l->layer;
		pr->line = l->lineno;
		pr->nwords = (unsigned char)nw;
		for (k = 0; k < nw; k++)
			pr->word[k] = w[k];
	}
	if (pr->nkeep + (n - nw - 1) > ES_PROGRAM_KEEPS)
		return fail(l, "program: too many names (at most %d)",
		    ES_PROGRAM_KEEPS);
	for (k = nw + 1; k < n; k++) {
		struct es_rule *r = &pr->keep[pr->nkeep++];

		r->kind = ES_RULE_KEEP;
		r->layer = l->layer;
		r->line = l->lineno;
		r->len = (unsigned short)strlen(w[k]);
		r->pat = w[k];
	}
	return 0;
}

static int
statement(struct line *l)
{
	const struct kw	*k = NULL;
	size_t		 i;

	for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
		if (strlen(kws[i].name) == l->kwlen &&
		    memcmp(kws[i].name, l->kw, l->kwlen) == 0)
			k = &kws[i];
	if (k == NULL)
		return fail(l, "unknown keyword '%.*s%s'",
		    l->kwlen > 20 ? 20 : (int)l->kwlen, l->kw,
		    l->kwlen > 20 ? "..." : "");
	switch (k->kind) {
	case KW_RULE:
		return do_rule(l, k);
	case KW_LITERAL:
		return do_literal(l, k);
	case KW_ENUM:
		return do_enum(l, k);
	case KW_SET:
		return do_set(l);
	case KW_SHELL:
		return do_shell(l);
	case KW_PATH:
		return do_path(l, k);
	case KW_REVEAL:
		return do_reveal(l, k);
	case KW_PROGRAM:
		return do_program(l);
	default:
		return do_log(l);
	}
}

/*
 * No program rule may name a shell, and a shell line may come after the
 * rule, in this layer or a later one: so every rule is checked once the
 * layer is read, and the error names the rule's own file and line.
 */
static int
shell_programs(struct line *l)
{
	const struct es_policy	*p = l->p;
	const struct es_program	*pr;
	const char		*b;
	size_t			 i;

	for (i = 0; i < p->nprograms; i++) {
		pr = &p->programs[i];
		if (!es_is_shell(p, pr->word[0]))
			continue;
		b = strrchr(pr->word[0], '/');
		l->err->file = p->layer_name[pr->layer];
		l->lineno = pr->line;
		return fail(l, "program: %s is a shell, and a shell runs "
		    "whatever it is told; name the program it starts",
		    b != NULL ? b + 1 : pr->word[0]);
	}
	return 0;
}

int
es_policy_parse(struct es_policy *p, const char *text, size_t len,
    const char *origin, struct es_parse_err *err)
{
	struct line	 l;
	const char	*s = text, *e = text + len, *nl, *name;

	if (origin == NULL)
		origin = "(policy)";
	memset(&l, 0, sizeof(l));
	l.p = p;
	l.err = err;
	err->file = origin;
	err->line = 0;
	err->what[0] = '\0';
	if (p->nlayers == 0)
		return fail(&l, "policy not initialised");
	if (p->nlayers == ES_MAX_LAYERS)
		return fail(&l, "too many policy layers (at most %d)",
		    ES_MAX_LAYERS);
	if (len > ES_POLICY_TEXT_MAX)
		return fail(&l, "policy longer than %d bytes",
		    ES_POLICY_TEXT_MAX);
	if ((name = arena_dup(p, origin, strlen(origin))) == NULL)
		return fail(&l, "policy too large: string space full");
	err->file = name;
	l.layer = (unsigned char)p->nlayers;
	p->layer_name[p->nlayers++] = name;
	while (s < e) {
		l.lineno++;
		if ((nl = memchr(s, '\n', e - s)) == NULL)
			nl = e;
		/* CRLF files from other systems read the same. */
		switch (split(&l, s, nl > s && nl[-1] == '\r' ? nl - 1 : nl)) {
		case -1:
			return -1;
		case 1:
			if (statement(&l) == -1)
				return -1;
			break;
		default:
			break;
		}
		s = nl + 1;
	}
	return shell_programs(&l);
}

/* ---- es_policy_format ---- */

struct out {
	char	*buf;
	size_t	 len, pos;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->pos < o->len) {
		size_t	k = n < o->len - o->pos ? n : o->len - o->pos;

		memcpy(o->buf + o->pos, s, k);
	}
	o->pos += n;
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/*
 * An argument that would not read back as written is quoted: a leading
 * '#' reads as a comment, and white space inside as more than one word,
 * which `shell` refuses unquoted (both found by fuzz_policy).
 */
static void
putarg(struct out *o, const char *s, int oneword)
{
	size_t	n = strlen(s), i;
	int	q = 0;

	if (n == 0 || s[0] == '"' || s[0] == '#' || isws(s[0]) || isws(s[n - 1]))
		q = 1;
	for (i = 1; i < n && !q; i++)
		if ((s[i] == '#' && isws(s[i - 1])) || (oneword && isws(s[i])))
			q = 1;
	if (!q) {
		put(o, s, n);
		return;
	}
	put(o, "\"", 1);
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			put(o, "\\", 1);
		put(o, s + i, 1);
	}
	put(o, "\"", 1);
}

static void
putorigin(struct out *o, const struct es_policy *p, unsigned int flags,
    unsigned int layer, unsigned int line)
{
	char	num[16];

	if (flags & ES_FMT_ORIGIN) {
		puts_(o, "\t# ");
		puts_(o, layer < p->nlayers && p->layer_name[layer] != NULL ?
		    p->layer_name[layer] : "?");
		if (line > 0) {
			snprintf(num, sizeof(num), ":%u", line);
			puts_(o, num);
		}
	}
	put(o, "\n", 1);
}

static void
putline(struct out *o, const struct es_policy *p, unsigned int flags,
    const char *kw, const char *arg, unsigned int layer, unsigned int line)
{
	puts_(o, kw);
	put(o, " ", 1);
	putarg(o, arg, strcmp(kw, "shell") == 0);
	putorigin(o, p, flags, layer, line);
}

static void
putitems(struct out *o, const struct es_policy *p, unsigned int flags,
    const char *kw, const struct es_item *it, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (it[i].layer != 0 || (flags & ES_FMT_BUILTIN))
			putline(o, p, flags, kw, it[i].s, it[i].layer,
			    it[i].line);
}

/* A compiled-in list, printed by fn(buf, len) -> length or -1. */
static void
putlist(struct out *o, long (*fn)(char *, size_t))
{
	long	n;

	n = fn(o->pos < o->len ? o->buf + o->pos : NULL,
	    o->pos < o->len ? o->len - o->pos : 0);
	/* Too small: measure, so the caller's -1 is reported. */
	if (n < 0)
		n = fn(NULL, 0);
	if (n > 0)
		o->pos += (size_t)n;
}

/*
 * One line per group of keeps from the same line, so each source line
 * reads back as itself (merged again by do_program).
 */
static void
putprogram(struct out *o, const struct es_policy *p, unsigned int flags,
    const struct es_program *pr)
{
	char	line[ES_PATH_MAX + 2];
	size_t	k, j, e;

	for (k = 0; k < pr->nkeep; k = e) {
		struct out	lo = { line, sizeof(line) - 1, 0 };

		for (e = k; e < pr->nkeep && pr->keep[e].layer ==
		    pr->keep[k].layer && pr->keep[e].line == pr->keep[k].line;
		    e++)
			;
		for (j = 0; j < pr->nwords; j++) {
			if (j > 0)
				put(&lo, " ", 1);
			puts_(&lo, pr->word[j]);
		}
		puts_(&lo, " keep");
		for (j = k; j < e; j++) {
			put(&lo, " ", 1);
			puts_(&lo, pr->keep[j].pat);
		}
		if (lo.pos >= sizeof(line))
			continue;	/* cannot be: the parser bounds a line */
		line[lo.pos] = '\0';
		puts_(o, "program ");
		putarg(o, line, 0);
		putorigin(o, p, flags, pr->keep[k].layer, pr->keep[k].line);
	}
}

long
es_policy_format(const struct es_policy *p, unsigned int flags,
    char *buf, size_t len)
{
	struct out	 o = { buf, len, 0 };
	size_t		 i, j;

	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
		const struct scalar	*sc = &scalars[i];
		unsigned char		 v, layer;
		unsigned int		 line;

		v = ((const unsigned char *)p)[sc->val];
		layer = ((const unsigned char *)p)[sc->layer];
		memcpy(&line, (const char *)p + sc->line, sizeof(line));
		if (layer == 0 && !(flags & (ES_FMT_BUILTIN | ES_FMT_SETTINGS)))
			continue;
		/* the first word of a value: a later one is an older name */
		for (j = 0; j < SCALAR_WORDS && sc->words[j] != NULL; j++)
			if (sc->vals[j] == v) {
				putline(&o, p, flags, sc->kw, sc->words[j],
				    layer, line);
				break;
			}
	}
	if (p->log_layer != 0 || ((flags & ES_FMT_BUILTIN) &&
	    p->log != ES_LOG_DEFAULT)) {
		static const char *const logw[] = {
			[ES_LOG_STDERR] = "stderr",
			[ES_LOG_SYSLOG] = "syslog",
			[ES_LOG_OFF] = "off"
		};

		putline(&o, p, flags, "log",
		    p->log == ES_LOG_PATH && p->log_path != NULL ? p->log_path :
		    p->log < ES_LOG_OFF + 1 && logw[p->log] != NULL ?
		    logw[p->log] : "off", p->log_layer, p->log_line);
	}
	putitems(&o, p, flags, "shell", p->shells, p->nshells);
	putitems(&o, p, flags, "set", p->sets, p->nsets);
	putitems(&o, p, flags, "rw", p->rw, p->nrw);
	putitems(&o, p, flags, "ro", p->ro, p->nro);
	putitems(&o, p, flags, "hide", p->hide, p->nhide);
	putitems(&o, p, flags, "reveal", p->reveal, p->nreveal);
	for (i = 0; i < p->nrules; i++) {
		const struct es_rule	*r = &p->rules[i];

		if (r->layer == 0 && !(flags & ES_FMT_BUILTIN))
			continue;
		if (r->kind < ES_RULE_DROP || r->kind > ES_RULE_CHANGED)
			continue;
		putline(&o, p, flags, rule_kw[r->kind], r->pat, r->layer,
		    r->line);
	}
	for (i = 0; i < p->nprograms; i++)
		putprogram(&o, p, flags, &p->programs[i]);
	if (flags & ES_FMT_BUILTIN) {
		putlist(&o, es_names_format);
		putlist(&o, es_hide_format);
	}
	if (o.pos >= len)
		return -1;
	buf[o.pos] = '\0';
	return (long)o.pos;
}
