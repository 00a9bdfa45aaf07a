/*
 * policy.c - the builtin policy, the launch snapshot and the filter that
 * decides, for every entry of a child's environment, keep, drop or
 * rewrite, and why.
 *
 * Pure: no hooks, no globals, no I/O, no allocation.  es_filter and the
 * snapshot functions are AS-safe (they may run between vfork and exec):
 * they touch their arguments, the caller's scratch and const tables only.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "es_policy.h"
#include "names.h"

static const char *const reason_names[ES_R__COUNT] = {
	[ES_R_DEFAULT] = "default",
	[ES_R_SAFE] = "safe",
	[ES_R_INJECTION] = "injection",
	[ES_R_SECRET_NAME] = "secret-name",
	[ES_R_SECRET_VALUE] = "secret-value",
	[ES_R_CAPABILITY] = "capability",
	[ES_R_CHANGED] = "changed",
	[ES_R_POLICY] = "policy",
	[ES_R_MALFORMED] = "malformed",
	[ES_R_UNSAFE_VALUE] = "unsafe-value",
	[ES_R_DUPLICATE] = "duplicate",
	[ES_R_LOCKED] = "locked",
	[ES_R_NORMALISED] = "normalised",
	[ES_R_AGENT] = "agent",
	[ES_R_PROGRAM] = "program",
	[ES_R_TAME] = "tame",
	[ES_R_INSIDE] = "inside",
	[ES_R_WRITABLE] = "writable",
};

void
es_policy_init(struct es_policy *p)
{
	/*
	 * Not the arena (64 KiB, most of the struct): every string in it is
	 * written with its NUL before anything points at it, and clearing it
	 * was most of the shim's constructor.
	 */
	memset(p, 0, offsetof(struct es_policy, arena));
	es_policy_init_zeroed(p);
}

void
es_policy_init_zeroed(struct es_policy *p)
{
	static const char builtin[] = "builtin";

	p->mode = ES_MODE_ENFORCE;
	p->sandbox = ES_SANDBOX_ALL;
	p->unfollowable = ES_UNFOLLOW_SANDBOX;
	p->network = 1;
	p->protect_self = 1;
	p->log = ES_LOG_DEFAULT;
	memcpy(p->arena, builtin, sizeof(builtin));
	p->arena_used = sizeof(builtin);
	p->layer_name[0] = p->arena;
	p->nlayers = 1;
	/* Built at build time: building it here was half the constructor. */
	p->names_ix = &es_names_ix;
}

const char *
es_reason_name(unsigned int reason)
{
	return reason < ES_R__COUNT ? reason_names[reason] : "unknown";
}

const char *
es_action_name(unsigned int action)
{
	switch (action) {
	case ES_KEEP:
		return "keep";
	case ES_DROP:
		return "drop";
	case ES_REWRITE:
		return "rewrite";
	default:
		return "unknown";
	}
}

/*
 * FNV-1a, four bytes a turn of the loop: the filter hashes every tracked
 * name and value, and the loop's own count and test were half of it.
 */
uint64_t
es_hash(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint64_t h = 14695981039346656037ULL;
	const uint64_t m = 1099511628211ULL;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		h = (h ^ u[i]) * m;
		h = (h ^ u[i + 1]) * m;
		h = (h ^ u[i + 2]) * m;
		h = (h ^ u[i + 3]) * m;
	}
	for (; i < n; i++)
		h = (h ^ u[i]) * m;
	return h;
}

/* '*' matches any run; everything else one byte, ASCII case-insensitively. */
static int
glob_ci(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t p = 0, i = 0, star = (size_t)-1, mark = 0;

	while (i < slen) {
		if (p < plen && pat[p] == '*') {
			star = p++;
			mark = i;
		} else if (p < plen && es_upper((unsigned char)pat[p]) ==
		    es_upper((unsigned char)s[i])) {
			p++;
			i++;
		} else if (star != (size_t)-1) {
			p = star + 1;
			i = ++mark;
		} else
			return 0;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

/* The last user rule naming this variable (last match wins), or NULL. */
static const struct es_rule *
user_rule(const struct es_policy *p, const char *name, size_t nlen)
{
	size_t r;

	for (r = p->nrules; r-- > 0;) {
		const struct es_rule *rl = &p->rules[r];

		if (rl->kind != ES_RULE_SECRET_VALUE &&
		    glob_ci(rl->pat, rl->len, name, nlen))
			return rl;
	}
	return NULL;
}

/* The keep of a program rule that names this variable, or NULL. */
static const struct es_rule *
program_keeps(const struct es_program *pr, const char *name, size_t nlen)
{
	size_t k;

	for (k = 0; k < pr->nkeep; k++)
		if (glob_ci(pr->keep[k].pat, pr->keep[k].len, name, nlen))
			return &pr->keep[k];
	return NULL;
}

const struct es_rule *
es_program_keep(const struct es_policy *p, int prog, const char *name,
    size_t nlen)
{
	if (prog < 0 || (size_t)prog >= p->nprograms)
		return NULL;
	return program_keeps(&p->programs[prog], name, nlen);
}

static const char *
last_part(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

/* word[0] names this file: by the path (with '/') or by its name. */
static int
names_file(const char *w, const char *path, const char *real)
{
	if (strchr(w, '/') != NULL)
		return strcmp(w, path) == 0 ||
		    (real != NULL && strcmp(w, real) == 0);
	return strcmp(w, last_part(path)) == 0 ||
	    (real != NULL && strcmp(w, last_part(real)) == 0);
}

int
es_program_match(const struct es_policy *p, const char *path,
    const char *real, char *const argv[])
{
	size_t i, k;
	int best = -1;

	for (i = 0; path != NULL && i < p->nprograms; i++) {
		const struct es_program *pr = &p->programs[i];

		if (!names_file(pr->word[0], path, real))
			continue;
		for (k = 1; k < pr->nwords; k++)
			if (argv == NULL || argv[0] == NULL || argv[k] == NULL ||
			    strcmp(argv[k], pr->word[k]) != 0)
				break;
		if (k < pr->nwords)
			continue;
		if (best < 0 || pr->nwords >= p->programs[best].nwords)
			best = (int)i;
	}
	return best;
}

/* Is the variable tracked by the snapshot (Tier B, builtin or policy)? */
static int
tracked(const struct es_policy *p, const char *name, size_t nlen,
    unsigned cls)
{
	const struct es_rule *rl;

	if (cls & ES_NC_CHANGED)
		return 1;
	rl = user_rule(p, name, nlen);
	return rl != NULL && rl->kind == ES_RULE_CHANGED;
}

void
es_snapshot_take(const struct es_policy *p, char *const envp[],
    struct es_snapshot *snap)
{
	size_t i, k;

	snap->n = 0;
	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		const char *s = envp[i], *eq = strchr(s, '=');
		size_t nlen;
		uint64_t h;

		if (eq == NULL || eq == s)
			continue;
		nlen = (size_t)(eq - s);
		if (!tracked(p, s, nlen, es_names_class(p->names_ix, s, nlen)))
			continue;
		h = es_hash(s, nlen);
		for (k = 0; k < snap->n; k++)
			if (snap->name[k] == h)
				break;
		if (k < snap->n)
			continue;	/* first copy wins, as getenv sees it */
		if (snap->n == ES_SNAPSHOT_MAX)
			return;		/* the rest counts as changed */
		snap->name[snap->n] = h;
		snap->value[snap->n] = es_hash(eq + 1, strlen(eq + 1));
		snap->n++;
	}
}

static void
hex16(char *out, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	int k;

	for (k = 15; k >= 0; k--) {
		out[k] = hx[v & 15];
		v >>= 4;
	}
}

long
es_snapshot_encode(const struct es_snapshot *snap, char *buf, size_t len)
{
	size_t need, i;
	char *o = buf;

	need = snap->n == 0 ? 0 : snap->n * 34 - 1;
	if (len < need + 1)
		return -1;
	for (i = 0; i < snap->n; i++) {
		if (i > 0)
			*o++ = ',';
		hex16(o, snap->name[i]);
		o[16] = ':';
		hex16(o + 17, snap->value[i]);
		o += 33;
	}
	*o = '\0';
	return (long)need;
}

static int
unhex16(const char *s, uint64_t *v)
{
	int k;

	*v = 0;
	for (k = 0; k < 16; k++) {
		unsigned char c = (unsigned char)s[k];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -1;
		*v = (*v << 4) | d;
	}
	return 0;
}

int
es_snapshot_decode(const char *text, struct es_snapshot *snap)
{
	const char *s = text;

	snap->n = 0;
	if (*s == '\0')
		return 0;
	for (;;) {
		if (snap->n == ES_SNAPSHOT_MAX || strnlen(s, 33) < 33 ||
		    unhex16(s, &snap->name[snap->n]) != 0 || s[16] != ':' ||
		    unhex16(s + 17, &snap->value[snap->n]) != 0)
			break;
		snap->n++;
		s += 33;
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			break;
	}
	snap->n = 0;
	return -1;
}

/* ---- the filter ---- */

#define NONE	UINT32_MAX

/* The caller's scratch, carved up. */
struct scratch {
	uint32_t	*first;		/* index of the first copy of the name */
	uint32_t	*nlen;		/* name length */
	uint32_t	*slot;		/* hash table of first copies */
	size_t		 nslot;		/* a power of two */
	unsigned char	*act, *why;	/* per entry */
	unsigned char	*gdrop;		/* per first copy: 1 + reason, 0 kept */
	uint32_t	*poff;		/* PATH rewrite: kept entries */
	uint32_t	*plen;
	char		*text;		/* rewritten entries */
	size_t		 textlen, textused;
};

static size_t
slots_for(size_t n)
{
	size_t s = 16;

	while (s < 2 * n)
		s *= 2;
	return s;
}

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

size_t
es_filter_scratch(size_t n, size_t bytes)
{
	return ALIGN8(n * 4) * 2 + ALIGN8(slots_for(n) * 4) +
	    ALIGN8(n) * 3 + 2 * ALIGN8(ES_PATH_ENTRIES_MAX * 4) +
	    ALIGN8(bytes + n + 1) + 8;
}

/*
 * Carves what depends on n alone; the text part is checked once pass 1
 * has measured the entries (es_filter), so no entry is measured twice.
 */
static int
carve(struct scratch *sc, void *mem, size_t len, size_t n)
{
	char *m = mem;
	size_t off;

	if (mem == NULL || len < es_filter_scratch(n, 0))
		return -1;
	off = (8 - ((uintptr_t)m & 7)) & 7;
	m += off;
	sc->first = (uint32_t *)(void *)m;
	m += ALIGN8(n * 4);
	sc->nlen = (uint32_t *)(void *)m;
	m += ALIGN8(n * 4);
	sc->nslot = slots_for(n);
	sc->slot = (uint32_t *)(void *)m;
	m += ALIGN8(sc->nslot * 4);
	sc->poff = (uint32_t *)(void *)m;
	m += ALIGN8(ES_PATH_ENTRIES_MAX * 4);
	sc->plen = (uint32_t *)(void *)m;
	m += ALIGN8(ES_PATH_ENTRIES_MAX * 4);
	sc->act = (unsigned char *)m;
	m += ALIGN8(n);
	sc->why = (unsigned char *)m;
	m += ALIGN8(n);
	sc->gdrop = (unsigned char *)m;
	m += ALIGN8(n);
	sc->text = m;
	sc->textlen = 0;
	sc->textused = 0;
	memset(sc->slot, 0, sc->nslot * 4);
	return 0;
}

/* Does name (nlen bytes) equal the name of "NAME=..." s, ignoring case? */
static int
same_name(const char *s, const char *name, size_t nlen)
{
	size_t i;

	for (i = 0; i < nlen; i++)
		if (s[i] == '\0' || s[i] == '=' ||
		    es_upper((unsigned char)s[i]) !=
		    es_upper((unsigned char)name[i]))
			return 0;
	return s[nlen] == '=';
}

/* Changed or added versus the launch snapshot (exact name and value)? */
static int
changed(const struct es_snapshot *snap, const char *name, size_t nlen,
    const char *val, size_t vlen)
{
	uint64_t h;
	size_t k;

	if (snap == NULL)
		return 0;
	h = es_hash(name, nlen);
	for (k = 0; k < snap->n; k++)
		if (snap->name[k] == h)
			return snap->value[k] != es_hash(val, vlen);
	return 1;
}

/* A ".." path element anywhere. */
static int
dotdot(const char *v, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++)
		if (v[i] == '.' && v[i + 1] == '.' &&
		    (i == 0 || v[i - 1] == '/') &&
		    (i + 2 == n || v[i + 2] == '/'))
			return 1;
	return 0;
}

/* sudo's tz_is_safe: a zone name, or a file under the zoneinfo tree. */
static int
tz_safe(const char *v, size_t n)
{
	static const char zi[] = "/usr/share/zoneinfo/";
	size_t i;

	if (n > 0 && v[0] == ':') {
		v++;
		n--;
	}
	if (n >= ES_PATH_MAX)
		return 0;
	if (n > 0 && v[0] == '/' &&
	    (n < sizeof(zi) - 1 || memcmp(v, zi, sizeof(zi) - 1) != 0))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c <= ' ' || c >= 0x7f)
			return 0;
	}
	return !dotdot(v, n);
}

/* The value checks of the always-kept names. */
static int
safe_value(unsigned cls, const char *v, size_t n)
{
	size_t i;

	if (n > ES_SAFE_VALUE_MAX || memchr(v, '\n', n) != NULL ||
	    memchr(v, '\r', n) != NULL)
		return 0;
	if (cls & ES_NC_V_WORD) {
		for (i = 0; i < n; i++)
			if (v[i] == '/' || v[i] == '%')
				return 0;
	}
	if ((cls & ES_NC_V_TZ) && !tz_safe(v, n))
		return 0;
	if ((cls & ES_NC_V_ABS) && (n == 0 || v[0] != '/' || dotdot(v, n)))
		return 0;
	return 1;
}

struct ctx {
	const struct es_policy		*p;
	const struct es_snapshot	*snap;
	unsigned			 flags;
	int				 literals;	/* secret-value rules */
	const char *const		*forced;
	const char			*preload;	/* the forced LD_PRELOAD's value */
	const struct es_program		*prog;		/* ES_F_PROGRAM, or NULL */
	unsigned char			 first[256];	/* of forced and set names */
};

#define V(a, r)	((unsigned)(a) | ((unsigned)(r) << 8))

/* The secret-value verdict, softened for the agent and for URL names. */
static inline unsigned
value_verdict(const struct ctx *c, unsigned cls, const char *val, size_t vlen,
    unsigned keep)
{
	const char *what = NULL;

	/* Most values: no builtin shape can be there, and no literal. */
	if (!c->literals && !es_shapes_maybe(val, vlen))
		return keep;
	if (!es_secret_value(c->p, val, vlen, &what))
		return keep;
	if (c->flags & ES_F_AGENT)
		return V(ES_KEEP, ES_R_AGENT);
	if ((cls & ES_NC_URL) && what != NULL &&
	    strcmp(what, "url-userinfo") == 0)
		return V(ES_REWRITE, ES_R_SECRET_VALUE);	/* pass 2 checks */
	return V(ES_DROP, ES_R_SECRET_VALUE);
}

/* Is v (n bytes) exactly one of list? */
static int
one_of(const char *const *list, size_t k, const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (strlen(list[i]) == n && memcmp(list[i], v, n) == 0)
			return 1;
	return 0;
}

/* 1 to 4 decimal digits, as git numbers its GIT_CONFIG_* pairs. */
static int
digits(const char *v, size_t n)
{
	size_t i;

	if (n == 0 || n > 4)
		return 0;
	for (i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return 0;
	return 1;
}

/* A value that can run nothing: no program but true or cat, no file but /dev/null. */
static int
inert(const char *v, size_t n)
{
	static const char *const ok[] = { "", ":", "true", "cat", "/dev/null" };

	return one_of(ok, sizeof(ok) / sizeof(ok[0]), v, n);
}

/* A git config key, section.name: letters, digits, '.' and '-' only. */
static int
git_key(const char *v, size_t n)
{
	size_t i;
	int dot = 0;

	for (i = 0; i < n; i++) {
		if (v[i] == '.')
			dot = 1;
		else if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' &&
		    v[i] <= 'Z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '-'))
			return 0;
	}
	return n > 0 && dot;
}

/*
 * NODE_OPTIONS of memory, stack and warning flags only: nothing that
 * loads a file (--require, -r, --import, --loader) or opens a debugger.
 */
static int
node_inert(const char *v, size_t n)
{
	static const char *const flag[] = {
		"--no-warnings", "--no-deprecation", "--enable-source-maps",
		"--trace-warnings", "--trace-deprecation", "--trace-uncaught"
	};
	static const char *const num[] = {
		"--max-old-space-size=", "--max-semi-space-size=",
		"--stack-size=", "--unhandled-rejections=",
		"--dns-result-order="
	};
	size_t i = 0, j, k, l;
	int ok;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t'))
			i++;
		for (j = i; j < n && v[j] != ' ' && v[j] != '\t'; j++)
			;
		if (j == i)
			break;
		ok = one_of(flag, sizeof(flag) / sizeof(flag[0]), v + i, j - i);
		for (k = 0; !ok && k < sizeof(num) / sizeof(num[0]); k++) {
			l = strlen(num[k]);
			if (j - i <= l || memcmp(v + i, num[k], l) != 0)
				continue;
			for (ok = 1, l += i; l < j; l++)
				if (!((v[l] >= 'a' && v[l] <= 'z') ||
				    (v[l] >= '0' && v[l] <= '9') || v[l] == '-'))
					ok = 0;
		}
		if (!ok)
			return 0;
		i = j;
	}
	return 1;
}

/* GIT_CONFIG_KEY_n or GIT_CONFIG_VALUE_n: one half of a pair git counts. */
static int
git_pair(const char *s, size_t nlen)
{
	return (nlen > 15 && memcmp(s, "GIT_CONFIG_KEY_", 15) == 0) ||
	    (nlen > 17 && memcmp(s, "GIT_CONFIG_VALUE_", 17) == 0);
}

/*
 * What an agent sets to tame the tools it runs, with a value that does
 * only that: the pager, the editor and git's config switched off, memory
 * for node.  Names compare exactly, as the tools read them.  Outside the
 * sandbox a git pair's program name must also fit its key (pair_fits).
 */
static int
tame(const char *s, size_t nlen, const char *v, size_t vlen)
{
	static const char *const cmd[] = {
		"PAGER", "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL",
		"GIT_EDITOR", "GIT_SEQUENCE_EDITOR"
	};
	static const char *const file[] = { "GIT_CONFIG_GLOBAL",
	    "GIT_CONFIG_SYSTEM" };
	static const char *const yes[] = { "1", "true", "yes" };

	if (one_of(cmd, sizeof(cmd) / sizeof(cmd[0]), s, nlen))
		return inert(v, vlen);
	if (one_of(file, 2, s, nlen))
		return vlen == 9 && memcmp(v, "/dev/null", 9) == 0;
	if (nlen == 19 && memcmp(s, "GIT_CONFIG_NOSYSTEM", 19) == 0)
		return one_of(yes, 3, v, vlen);
	if (nlen == 16 && memcmp(s, "GIT_CONFIG_COUNT", 16) == 0)
		return digits(v, vlen);
	if (nlen > 15 && memcmp(s, "GIT_CONFIG_KEY_", 15) == 0)
		return digits(s + 15, nlen - 15) && git_key(v, vlen);
	if (nlen > 17 && memcmp(s, "GIT_CONFIG_VALUE_", 17) == 0)
		return digits(s + 17, nlen - 17) && inert(v, vlen);
	if (nlen == 12 && memcmp(s, "NODE_OPTIONS", 12) == 0)
		return node_inert(v, vlen);
	return 0;
}

/* A value that names no program and no file: empty, or /dev/null. */
static int
void_value(const char *v, size_t n)
{
	return n == 0 || (n == 9 && memcmp(v, "/dev/null", 9) == 0);
}

/*
 * Outside the sandbox, GIT_CONFIG_VALUE_n (envp[i]) naming a program
 * (cat, true) passes only when its GIT_CONFIG_KEY_n, the first copy, is
 * the pager or an editor, which git would otherwise look up on PATH all
 * the same.  Under another key a bare name can mean a file of the
 * workspace, which sandboxed commands write: core.hooksPath=cat runs
 * cat/pre-commit of the working tree.  Gemini CLI's own git gets
 * core.pager=cat and empty values.
 */
static int
pair_fits(char *const envp[], size_t n, size_t i, size_t nlen)
{
	static const char *const keys[] = { "CORE.PAGER", "CORE.EDITOR",
	    "SEQUENCE.EDITOR" };
	char want[32];
	size_t j, k, d = nlen - 17, klen;
	const char *v;

	if (d > sizeof(want) - 16)
		return 0;
	memcpy(want, "GIT_CONFIG_KEY_", 15);
	memcpy(want + 15, envp[i] + 17, d);
	want[15 + d] = '=';
	for (j = 0; j < n; j++) {
		if (envp[j] == NULL || strncmp(envp[j], want, 16 + d) != 0)
			continue;
		v = envp[j] + 16 + d;
		klen = strlen(v);
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strlen(keys[k]) == klen && es_upper_eq(keys[k], v, klen))
				return 1;
		return 0;
	}
	return 0;
}

/* One entry's fate, on its own (copies are reconciled by the caller). */
static unsigned
decide(const struct ctx *c, const char *s, size_t nlen,
    const struct es_nscan *ns, size_t vlen)
{
	const struct es_policy *p = c->p;
	const char *val = s + nlen + 1;
	size_t k;
	const struct es_rule *rl;
	unsigned cls;
	int agent = (c->flags & ES_F_AGENT) != 0;

	int named = c->first[ns->w[0] & 0xff];
	int inside = (c->flags & ES_F_INSIDE) != 0;

	/* inside, the process's own preloads go after the shim's (rewrite) */
	if (inside && nlen == 10 && memcmp(s, "LD_PRELOAD", 10) == 0)
		return V(ES_REWRITE, ES_R_INSIDE);
	for (k = 0; named && c->forced != NULL && c->forced[k] != NULL; k++)
		if (same_name(c->forced[k], s, nlen))
			return V(ES_DROP, ES_R_LOCKED);
	cls = es_names_class_i(p->names_ix, s, nlen, ns);
	if (cls & ES_NC_LOCKED)
		return V(ES_DROP, ES_R_LOCKED);
	if (!inside &&
	    (ns->w[0] & 0xffffff) == ('L' | 'D' << 8 | '_' << 16))	/* LD_* */
		return V(ES_DROP, ES_R_INJECTION);
	for (k = 0; named && k < p->nsets; k++)
		if (same_name(p->sets[k].s, s, nlen))
			return V(ES_DROP, ES_R_POLICY);
	/* a file the model could have written gets none of them, inside too */
	if (c->prog != NULL && program_keeps(c->prog, s, nlen) != NULL)
		return (c->flags & ES_F_WITHHOLD) ? V(ES_DROP, ES_R_WRITABLE) :
		    V(ES_KEEP, ES_R_PROGRAM);
	/* nothing set inside can leave: the boundary filtered what came in */
	if (inside)
		return V(ES_KEEP, ES_R_INSIDE);

	if (p->nrules != 0 && (rl = user_rule(p, s, nlen)) != NULL) {
		switch (rl->kind) {
		case ES_RULE_KEEP:
			return V(ES_KEEP, ES_R_POLICY);
		case ES_RULE_DROP:
			return V(ES_DROP, ES_R_POLICY);
		case ES_RULE_INJECTION:
			return V(ES_DROP, ES_R_INJECTION);
		case ES_RULE_SECRET_NAME:
			return agent ? V(ES_KEEP, ES_R_AGENT) :
			    V(ES_DROP, ES_R_SECRET_NAME);
		case ES_RULE_CAPABILITY:
			return agent ? V(ES_KEEP, ES_R_AGENT) :
			    V(ES_DROP, ES_R_CAPABILITY);
		case ES_RULE_CHANGED:
			if (changed(c->snap, s, nlen, val, vlen))
				return V(ES_DROP, ES_R_CHANGED);
			return value_verdict(c, cls, val, vlen,
			    V(ES_KEEP, ES_R_DEFAULT));
		default:
			break;
		}
	}

	if ((cls & (ES_NC_INJECTION | ES_NC_CHANGED)) && tame(s, nlen, val, vlen))
		return V(ES_KEEP, ES_R_TAME);
	if ((cls & ES_NC_INJECTION) || (vlen >= 2 && val[0] == '(' &&
	    val[1] == ')'))
		return V(ES_DROP, ES_R_INJECTION);
	if (cls & ES_NC_PATH)
		return V(ES_REWRITE, ES_R_NORMALISED);	/* pass 2 rewrites */
	if ((cls & ES_NC_CHANGED) && changed(c->snap, s, nlen, val, vlen))
		return V(ES_DROP, ES_R_CHANGED);
	if (cls & ES_NC_SAFE) {
		if (!safe_value(cls, val, vlen))
			return V(ES_DROP, ES_R_UNSAFE_VALUE);
		return value_verdict(c, cls, val, vlen, V(ES_KEEP, ES_R_SAFE));
	}
	if (cls & ES_NC_CAPABILITY)
		return agent ? V(ES_KEEP, ES_R_AGENT) :
		    V(ES_DROP, ES_R_CAPABILITY);
	if (es_names_secret_s(p->names_ix, s, nlen, cls, ns))
		return agent ? V(ES_KEEP, ES_R_AGENT) :
		    V(ES_DROP, ES_R_SECRET_NAME);
	return value_verdict(c, cls, val, vlen, V(ES_KEEP, ES_R_DEFAULT));
}

/* The sandbox asks it of what it received: a kept capability stays reachable. */
int
es_policy_capability(const struct es_policy *p, const char *name, size_t nlen)
{
	const struct es_rule *rl;

	if (p->nrules != 0 && (rl = user_rule(p, name, nlen)) != NULL &&
	    rl->kind == ES_RULE_CAPABILITY)
		return 1;
	return (es_names_class(p->names_ix, name, nlen) &
	    ES_NC_CAPABILITY) != 0;
}

/*
 * PATH without empty, ".", relative, ".." and repeated entries, nor (but
 * for the agent) entries holding a secret shape, written after "NAME=" at
 * out.  Returns the value's length, or -1 when nothing is left or there
 * are too many entries to check.
 */
static long
path_rewrite(const struct ctx *c, struct scratch *sc, const char *val,
    size_t vlen, char *out)
{
	size_t i = 0, o = 0, nk = 0, k;

	while (i <= vlen) {
		size_t j = i, el;
		int bad;

		while (j < vlen && val[j] != ':')
			j++;
		el = j - i;
		bad = el == 0 || val[i] != '/';
		for (k = i; !bad && k + 1 < j; k++)
			if (val[k] == '.' && val[k + 1] == '.')
				bad = 1;
		for (k = 0; !bad && k < nk; k++)
			if (sc->plen[k] == el &&
			    memcmp(out + sc->poff[k], val + i, el) == 0)
				bad = 1;
		if (!bad && !(c->flags & ES_F_AGENT) &&
		    value_verdict(c, 0, val + i, el, 0) != 0)
			bad = 1;
		if (!bad) {
			if (nk == ES_PATH_ENTRIES_MAX)
				return -1;
			if (o > 0)
				out[o++] = ':';
			memcpy(out + o, val + i, el);
			sc->poff[nk] = (uint32_t)o;
			sc->plen[nk] = (uint32_t)el;
			nk++;
			o += el;
		}
		i = j + 1;
	}
	return nk == 0 ? -1 : (long)o;
}

/*
 * Inside: the shim's path (pre, the forced entry's value) then the
 * entries of val that are not the shim, ':'-separated as ld.so reads
 * them, after "NAME=" at out (room bytes).  Returns the value's length,
 * or -1 when val adds nothing or it does not fit.
 */
static long
preload_merge(const char *pre, const char *val, size_t vlen, char *out,
    size_t room)
{
	size_t plen = strlen(pre), o, i = 0, j;

	if (plen + 1 > room)
		return -1;
	memcpy(out, pre, plen);
	o = plen;
	while (i < vlen) {
		while (i < vlen && (val[i] == ' ' || val[i] == ':'))
			i++;
		for (j = i; j < vlen && val[j] != ' ' && val[j] != ':'; j++)
			;
		if (j > i && !(j - i == plen && memcmp(val + i, pre, plen) == 0)) {
			if (o + 1 + (j - i) + 1 > room)
				return -1;
			out[o++] = ':';
			memcpy(out + o, val + i, j - i);
			o += j - i;
		}
		i = j;
	}
	return o == plen ? -1 : (long)o;
}

/*
 * Pass 2 for a rewrite of the first copy: PATH, URL userinfo, or an
 * LD_PRELOAD inside.  Fills *res with the new string in scratch, or
 * changes the verdict.
 */
static unsigned
rewrite(const struct ctx *c, struct scratch *sc, const char *s, size_t nlen,
    unsigned verdict, const char **res)
{
	const char *val = s + nlen + 1;
	size_t vlen = strlen(val);
	char *out = sc->text + sc->textused;
	long n;

	memcpy(out, s, nlen + 1);
	if ((verdict >> 8) == ES_R_INSIDE) {
		n = c->preload == NULL ? -1 : preload_merge(c->preload, val,
		    vlen, out + nlen + 1, sc->textlen - sc->textused - nlen - 1);
		if (n < 0)
			return V(ES_DROP, ES_R_LOCKED);	/* the shim's stands */
	} else if ((verdict >> 8) == ES_R_NORMALISED) {
		n = path_rewrite(c, sc, val, vlen, out + nlen + 1);
		if (n < 0)
			return V(ES_DROP, ES_R_UNSAFE_VALUE);
		/* Entries joined anew must not spell a secret either. */
		if (!(c->flags & ES_F_AGENT) &&
		    value_verdict(c, 0, out + nlen + 1, (size_t)n, 0) != 0) {
			memset(out, 0, nlen + 1 + (size_t)n);
			return V(ES_DROP, ES_R_SECRET_VALUE);
		}
		if ((size_t)n == vlen && memcmp(out + nlen + 1, val, vlen) == 0) {
			*res = s;
			return V(ES_KEEP, ES_R_SAFE);
		}
	} else {
		n = (long)es_url_strip(val, vlen, out + nlen + 1);
		if (es_secret_value(c->p, out + nlen + 1, (size_t)n, NULL)) {
			memset(out, 0, nlen + 1 + (size_t)n);
			return V(ES_DROP, ES_R_SECRET_VALUE);
		}
	}
	out[nlen + 1 + (size_t)n] = '\0';
	sc->textused += nlen + 2 + (size_t)n;
	*res = out;
	return verdict;
}

long
es_filter(const struct es_policy *p, const struct es_snapshot *snap,
    unsigned int flags, char *const envp[], size_t n,
    const char *const forced[], const char **out, size_t outcap,
    struct es_verdict *v, void *scratch, size_t scratchlen)
{
	struct ctx c;
	struct scratch sc;
	size_t i, k, bytes = 0, no = 0, pre = (size_t)-1;
	size_t gcount = (size_t)-1;	/* a tame GIT_CONFIG_COUNT */
	int gbroken = 0;		/* one of its pairs dropped */
	int gname = 0;			/* a tame pair value names a program */

	c.p = p;
	c.snap = snap;
	c.flags = flags;
	c.forced = forced;
	c.preload = NULL;
	c.prog = NULL;
	if ((flags & ES_F_PROGRAM(0)) && (flags >> 16) < p->nprograms)
		c.prog = &p->programs[flags >> 16];
	c.literals = 0;
	for (k = 0; k < p->nrules; k++)
		c.literals |= p->rules[k].kind == ES_RULE_SECRET_VALUE;
	memset(c.first, 0, sizeof(c.first));
	for (k = 0; forced != NULL && forced[k] != NULL; k++)
		c.first[es_upper((unsigned char)forced[k][0])] = 1;
	for (k = 0; k < p->nsets; k++)
		c.first[es_upper((unsigned char)p->sets[k].s[0])] = 1;

	if (carve(&sc, scratch, scratchlen, n) != 0)
		return -1;

	for (k = 0; forced != NULL && forced[k] != NULL; k++) {
		if (no + 1 >= outcap)
			return -1;
		if (strncmp(forced[k], "LD_PRELOAD=", 11) == 0) {
			c.preload = forced[k] + 11;
			pre = no;
		}
		out[no++] = forced[k];
	}

	/* Pass 1: each entry on its own; group copies of the exact name. */
	for (i = 0; i < n; i++) {
		const char *s = envp[i];
		struct es_nscan ns;
		uint32_t h, j;
		size_t slot, nlen = 0, len = 0;
		unsigned d;

		sc.first[i] = NONE;
		sc.gdrop[i] = 0;
		if (s != NULL) {
			len = strlen(s);
			nlen = es_names_scan_i(s, len, 1, &ns);
			bytes += len + 1;
		}
		if (s == NULL || s[nlen] != '=' || nlen == 0) {
			sc.act[i] = ES_DROP;
			sc.why[i] = ES_R_MALFORMED;
			continue;
		}
		sc.nlen[i] = (uint32_t)nlen;
		h = ns.hash;
		for (slot = h & (sc.nslot - 1); (j = sc.slot[slot]) != 0;
		    slot = (slot + 1) & (sc.nslot - 1)) {
			if (sc.nlen[j - 1] == nlen &&
			    memcmp(envp[j - 1], s, nlen) == 0)
				break;
		}
		if (j == 0) {
			sc.slot[slot] = (uint32_t)i + 1;
			sc.first[i] = (uint32_t)i;
		} else
			sc.first[i] = j - 1;
		d = decide(&c, s, nlen, &ns, len - nlen - 1);
		sc.act[i] = (unsigned char)(d & 0xff);
		sc.why[i] = (unsigned char)(d >> 8);
		if (sc.act[i] == ES_DROP && sc.gdrop[sc.first[i]] == 0)
			sc.gdrop[sc.first[i]] = (unsigned char)(1 + sc.why[i]);
		if (sc.why[i] == ES_R_TAME && nlen == 16 &&
		    memcmp(s, "GIT_CONFIG_COUNT", 16) == 0)
			gcount = i;
		else if (sc.act[i] == ES_DROP && git_pair(s, nlen))
			gbroken = 1;
		else if (sc.why[i] == ES_R_TAME && nlen > 17 && s[11] == 'V' &&
		    !void_value(s + nlen + 1, len - nlen - 1))
			gname = 1;
	}
	/* Outside the sandbox a pair's program name must fit its key. */
	for (i = 0; gname && !(flags & ES_F_SANDBOX) && i < n; i++) {
		if (sc.why[i] != ES_R_TAME || sc.nlen[i] <= 17 ||
		    memcmp(envp[i], "GIT_CONFIG_VALUE_", 17) != 0 ||
		    void_value(envp[i] + sc.nlen[i] + 1,
		    strlen(envp[i] + sc.nlen[i] + 1)) ||
		    pair_fits(envp, n, i, sc.nlen[i]))
			continue;
		sc.act[i] = ES_DROP;
		sc.why[i] = ES_R_INJECTION;
		if (sc.gdrop[sc.first[i]] == 0)
			sc.gdrop[sc.first[i]] = (unsigned char)(1 + ES_R_INJECTION);
		gbroken = 1;
	}
	/*
	 * git reads GIT_CONFIG_COUNT pairs and refuses to run when one is
	 * missing ("unable to parse command-line config"): a count kept as
	 * tame goes when one of its pairs went, and git then reads none.
	 */
	if (gbroken && gcount != (size_t)-1) {
		sc.act[gcount] = ES_DROP;
		sc.why[gcount] = ES_R_INJECTION;
		sc.gdrop[sc.first[gcount]] = (unsigned char)(1 + ES_R_INJECTION);
	}

	if (scratchlen < es_filter_scratch(n, bytes))
		return -1;
	sc.textlen = bytes + n + 1;

	/* Pass 2: every copy of a dropped name goes; a kept one goes once. */
	for (i = 0; i < n; i++) {
		uint32_t f = sc.first[i];
		const char *res = envp[i];

		if (f == NONE)
			continue;
		if (sc.gdrop[f] != 0) {
			if (sc.act[i] != ES_DROP) {
				sc.act[i] = ES_DROP;
				sc.why[i] = (unsigned char)(sc.gdrop[f] - 1);
			}
			continue;
		}
		if (f != i) {
			sc.act[i] = ES_DROP;
			sc.why[i] = ES_R_DUPLICATE;
			continue;
		}
		if (sc.act[i] == ES_REWRITE) {
			unsigned d = rewrite(&c, &sc, envp[i], sc.nlen[i],
			    V(ES_REWRITE, sc.why[i]), &res);

			sc.act[i] = (unsigned char)(d & 0xff);
			sc.why[i] = (unsigned char)(d >> 8);
			if (sc.act[i] == ES_DROP) {
				sc.gdrop[i] = (unsigned char)(1 + sc.why[i]);
				continue;
			}
			/* the merged preload takes the shim's own place */
			if (sc.why[i] == ES_R_INSIDE && pre != (size_t)-1) {
				out[pre] = res;
				continue;
			}
		}
		if (no + 1 >= outcap)
			return -1;
		out[no++] = res;
	}

	/* The policy's sets: the last one of each name, unless forced. */
	for (k = 0; k < p->nsets; k++) {
		const char *s = p->sets[k].s, *eq = strchr(s, '=');
		size_t nlen = eq != NULL ? (size_t)(eq - s) : strlen(s), j;
		int skip = 0;

		for (j = k + 1; j < p->nsets && !skip; j++)
			skip = same_name(p->sets[j].s, s, nlen);
		for (j = 0; forced != NULL && forced[j] != NULL && !skip; j++)
			skip = same_name(forced[j], s, nlen);
		if (skip)
			continue;
		if (no + 1 >= outcap)
			return -1;
		out[no++] = s;
	}
	out[no] = NULL;

	if (v != NULL)
		for (i = 0; i < n; i++) {
			v[i].action = sc.act[i];
			v[i].reason = sc.why[i];
		}
	return (long)no;
}
