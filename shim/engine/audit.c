/*
 * audit.c - one launch decision as one JSON line, and the check a
 * sandbox's outer makes of a record sent from inside before it writes it
 * (es_audit_mark).
 *
 * Pure and async-signal-safe (no snprintf: it is not on the signal-safety
 * list): a bounded writer over the caller's buffer.  A record that does not
 * fit is cut at an element boundary and still parses.
 */
#include <string.h>

#include "es_exec.h"

#define TAIL	48	/* bytes kept back to close a cut record */

struct w {
	char	*buf;
	size_t	 len, cap;		/* cap: len of buf less TAIL */
	int	 cut;			/* something did not fit: write no more */
	int	 in_array;		/* the closer must end an array first */
};

static void
put(struct w *w, const char *s, size_t n)
{
	if (w->cut || n > w->cap - w->len) {
		w->cut = 1;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void
puts_(struct w *w, const char *s)
{
	put(w, s, strlen(s));
}

/* v in decimal, into a caller's 24 bytes. */
static const char *
decimal(char *tmp, long long v)
{
	size_t i = 23;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	tmp[i] = '\0';
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		tmp[--i] = '-';
	return tmp + i;
}

/* JSON string of n bytes; anything outside printable ASCII is \u00XX. */
static void
str(struct w *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6] = { '\\', 'u', '0', '0', 0, 0 };
	size_t i, start, mark = w->len;

	put(w, "\"", 1);
	for (i = start = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			continue;
		put(w, s + start, i - start);
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			put(w, e, 2);
		} else {
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(w, esc, 6);
		}
		start = i + 1;
	}
	put(w, s + start, n - start);
	put(w, "\"", 1);
	/* Never leave half a string behind: the record must stay valid. */
	if (w->cut)
		w->len = mark;
}

static void
key(struct w *w, const char *k)
{
	put(w, ",\"", 2);
	puts_(w, k);
	put(w, "\":", 2);
}

/* A whole "key":"value" member, or nothing. */
static void
member(struct w *w, const char *k, const char *v, int quote)
{
	size_t mark = w->len;

	key(w, k);
	if (quote)
		str(w, v, strlen(v));
	else
		puts_(w, v);
	if (w->cut)
		w->len = mark;
}

static void
two(char *d, unsigned v)
{
	d[0] = (char)('0' + v / 10 % 10);
	d[1] = (char)('0' + v % 10);
}

/* UTC from a millisecond count, without gmtime_r (not AS-safe). */
static void
stamp(struct w *w, long long ms)
{
	char d[] = "\"0000-00-00T00:00:00.000Z\"";
	long long days = ms / 86400000, rem = ms % 86400000;
	long long z, era, doe, yoe, doy, mp, y;
	unsigned m, dd;

	if (rem < 0) {
		rem += 86400000;
		days--;
	}
	/* Howard Hinnant's days-to-civil. */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	dd = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	if (m <= 2)
		y++;
	two(d + 1, (unsigned)(y / 100));
	two(d + 3, (unsigned)(y % 100));
	two(d + 6, m);
	two(d + 9, dd);
	two(d + 12, (unsigned)(rem / 3600000));
	two(d + 15, (unsigned)(rem / 60000 % 60));
	two(d + 18, (unsigned)(rem / 1000 % 60));
	d[21] = (char)('0' + rem / 100 % 10);
	two(d + 22, (unsigned)(rem % 100));
	put(w, d, sizeof(d) - 1);
}

static size_t
name_len(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq != NULL ? (size_t)(eq - e) : strlen(e);
}

/* The shim's own entries, replaced by themselves, are no news. */
static int
is_quiet(const struct es_audit *a, const char *e)
{
	size_t i;

	for (i = 0; a->quiet != NULL && a->quiet[i] != NULL; i++)
		if (strcmp(e, a->quiet[i]) == 0)
			return 1;
	return 0;
}

/*
 * ,"k":[ whole or not at all: a key left without its value, or half a
 * key, would not parse.  Returns 0 when the array is open.
 */
static int
open_array(struct w *w, const char *k)
{
	size_t mark = w->len;

	key(w, k);
	put(w, "[", 1);
	if (w->cut) {
		w->len = mark;
		return -1;
	}
	w->in_array = 1;
	return 0;
}

/* "FILE:LINE" of a rule as one JSON string. */
static void
rule_str(struct w *w, const struct es_audit *a, const struct es_rule *r,
    unsigned int layer, unsigned int line)
{
	char lab[ES_PATH_MAX + 32], d[24];
	const char *f = "?", *n;
	size_t fl, nl;

	if (a->program_rule != NULL) {
		str(w, a->program_rule, strlen(a->program_rule));
		return;
	}
	if (r != NULL) {
		layer = r->layer;
		line = r->line;
	}
	if (a->p != NULL && layer < a->p->nlayers && a->p->layer_name[layer])
		f = a->p->layer_name[layer];
	n = decimal(d, line);
	fl = strnlen(f, ES_PATH_MAX);
	nl = strlen(n);
	memcpy(lab, f, fl);
	lab[fl] = ':';
	memcpy(lab + fl + 1, n, nl);
	str(w, lab, fl + 1 + nl);
}

/*
 * Is the exact entry e ("NAME=VALUE") in the agent's own environment?
 * When the launch's block is environ itself (a spawner that set environ
 * in the child, as libuv does, or an agent passing its own), environ
 * says nothing: the agent's entries as it started decide.
 */
static int
own_entry(const struct es_audit *a, const char *e)
{
	uint64_t h;
	size_t i;

	if (a->own != a->envp) {
		for (i = 0; a->own[i] != NULL; i++)
			if (strcmp(a->own[i], e) == 0)
				return 1;
		return 0;
	}
	if (a->own_hash == NULL || a->own_full)
		return 1;
	h = es_hash(e, strlen(e));
	for (i = 0; i < a->nown_hash; i++)
		if (a->own_hash[i] == h)
			return 1;
	return 0;
}

/* A secret the agent set or changed for this launch, and the filter dropped. */
static int
is_lost(const struct es_audit *a, size_t i)
{
	return a->envp[i] != NULL && a->v[i].action == ES_DROP &&
	    (a->v[i].reason == ES_R_SECRET_NAME ||
	    a->v[i].reason == ES_R_SECRET_VALUE) && !own_entry(a, a->envp[i]);
}

static int
any_lost(const struct es_audit *a)
{
	size_t i;

	for (i = 0; a->v != NULL && i < a->n; i++)
		if (is_lost(a, i))
			return 1;
	return 0;
}

/* Which entries a list holds. */
enum { L_DROPPED, L_REWRITTEN, L_KEPT, L_LOST };

static int
wanted(const struct es_audit *a, size_t i, int which)
{
	const char *e = a->envp[i];

	switch (which) {
	case L_DROPPED:
	case L_REWRITTEN:
		return e != NULL && a->v[i].action ==
		    (which == L_DROPPED ? ES_DROP : ES_REWRITE) &&
		    !(a->v[i].reason == ES_R_LOCKED && is_quiet(a, e));
	case L_KEPT:
		return e != NULL && a->v[i].reason == ES_R_PROGRAM;
	default:
		return is_lost(a, i);
	}
}

/*
 * The names (never values) of the entries of one list; "[" is out.  What
 * a program rule kept carries the rule; "lost" are the secrets the agent
 * set for this launch alone and the filter dropped (an MCP config's env).
 */
static void
names(struct w *w, const struct es_audit *a, int which)
{
	size_t i;
	int first = 1;

	for (i = 0; a->v != NULL && i < a->n; i++) {
		const char *e = a->envp[i];
		size_t mark = w->len;

		if (!wanted(a, i, which))
			continue;
		if (!first)
			put(w, ",", 1);
		put(w, "{\"name\":", 8);
		/* A malformed entry has no name; all of it may be a value. */
		if (a->v[i].reason == ES_R_MALFORMED)
			str(w, "", 0);
		else
			str(w, e, name_len(e));
		put(w, ",\"reason\":\"", 11);
		puts_(w, es_reason_name(a->v[i].reason));
		put(w, "\"", 1);
		if (which == L_KEPT) {
			put(w, ",\"rule\":", 8);
			rule_str(w, a, es_program_keep(a->p, a->program - 1, e,
			    name_len(e)), 0, 0);
		}
		put(w, "}", 1);
		if (w->cut) {
			w->len = mark;
			break;
		}
		first = 0;
	}
	put(w, "]", 1);
	if (!w->cut)
		w->in_array = 0;
}

/* Room kept back while listing hidden paths: ],"hidden_more":N */
#define MORE	40

/*
 * The paths a sandbox hides, the home shown as "~": as many as fit in
 * half of what is left (the argv still has room), then the count of the
 * rest.  Paths only: what the files hold, or how much, is never known here.
 */
static void
hidden(struct w *w, const struct es_audit *a)
{
	char p[ES_PATH_MAX + 2], d[24];
	size_t i, mark, cap = w->cap, hl, sl;

	if (w->cap - w->len < 2 * MORE || open_array(w, "hidden") == -1)
		return;
	w->cap = w->len + (cap - w->len) / 2;
	hl = a->home != NULL ? strlen(a->home) : 0;
	for (i = 0; i < a->nhidden; i++) {
		const char *s = a->hidden[i];

		sl = strnlen(s, ES_PATH_MAX);
		mark = w->len;
		if (i > 0)
			put(w, ",", 1);
		if (hl > 1 && sl >= hl && strncmp(s, a->home, hl) == 0 &&
		    (s[hl] == '/' || s[hl] == '\0')) {
			p[0] = '~';
			memcpy(p + 1, s + hl, sl - hl);
			str(w, p, 1 + sl - hl);
		} else
			str(w, s, sl);
		if (w->cut) {
			w->len = mark;
			w->cut = 0;
			break;
		}
	}
	w->cap = cap;
	put(w, "]", 1);
	w->in_array = 0;
	if (i < a->nhidden)
		member(w, "hidden_more", decimal(d, (long long)(a->nhidden - i)),
		    0);
}

long
es_audit_format(const struct es_audit *a, char *buf, size_t len)
{
	struct w w = { buf, 0, 0, 0, 0 };
	char n1[24], n2[24], n3[24];
	size_t i;
	int cut;

	if (len < 256)
		return -1;
	w.cap = len - TAIL;
	puts_(&w, "{\"time\":");
	stamp(&w, a->time_ms);
	member(&w, "pid", decimal(n1, a->pid), 0);
	member(&w, "ppid", decimal(n2, a->ppid), 0);
	member(&w, "hook", a->hook, 1);
	member(&w, "action", a->action, 1);
	if (a->would != NULL)
		member(&w, "would", a->would, 1);
	if (a->reason != NULL)
		member(&w, "reason", a->reason, 1);
	member(&w, "inside", a->inside ? "true" : "false", 0);
	if (a->inside && a->sandbox > 0)
		member(&w, "sandbox", decimal(n3, a->sandbox), 0);
	member(&w, "agent", a->agent ? "true" : "false", 0);
	if (a->agent && a->handover != NULL)
		member(&w, "handover", a->handover, 1);
	member(&w, "mode", a->audit_mode ? "audit" : "enforce", 1);
	if (a->session != NULL && a->session[0] != '\0')
		member(&w, "session", a->session, 1);
	member(&w, "path", a->path, 1);
	if (!w.cut && open_array(&w, "dropped") == 0)
		names(&w, a, L_DROPPED);
	if (!w.cut && open_array(&w, "rewritten") == 0)
		names(&w, a, L_REWRITTEN);
	if (a->program > 0 && a->p != NULL &&
	    (size_t)a->program <= a->p->nprograms && !w.cut) {
		const struct es_program *pr = &a->p->programs[a->program - 1];
		size_t mark = w.len;

		key(&w, "program");
		rule_str(&w, a, NULL, pr->layer, pr->line);
		if (w.cut)
			w.len = mark;
		if (!w.cut && open_array(&w, "kept") == 0)
			names(&w, a, L_KEPT);
	}
	if (a->own != NULL && !w.cut && any_lost(a) &&
	    open_array(&w, "lost") == 0)
		names(&w, a, L_LOST);
	if (a->nhidden > 0 && !w.cut)
		hidden(&w, a);
	if (a->raw != NULL && !w.cut) {
		size_t mark = w.len;

		key(&w, "raw");
		str(&w, a->raw, a->nraw);
		if (w.cut)
			w.len = mark;
	}
	/* argv last: it is the part most likely not to fit. */
	if (!w.cut)
		open_array(&w, "argv");
	for (i = 0; a->argv != NULL && a->argv[i] != NULL && !w.cut; i++) {
		const char *s = a->argv[i];
		size_t mark = w.len;

		if (i > 0)
			put(&w, ",", 1);
		if (es_secret_value(a->p, s, strlen(s), NULL))
			str(&w, "***", 3);
		else
			str(&w, s, strlen(s));
		if (w.cut)
			w.len = mark;
	}
	/* The tail was kept back for exactly this. */
	cut = w.cut;
	w.cut = 0;
	w.cap = len - 1;
	if (w.in_array)
		puts_(&w, "]");
	if (cut)
		puts_(&w, ",\"truncated\":true");
	puts_(&w, "}\n");
	return (long)w.len;
}

/* ---- a record from inside the sandbox, as its outer writes it ---- */

/* What is left of a message from inside, read once from s to end. */
struct rd {
	const char	*s, *end;
	int		 depth;
};

/* "key": [a-z_], 1 to 31 of them; the key is k, kn bytes.  0, or -1. */
static int
plain_key(struct rd *r, const char **k, size_t *kn)
{
	const char *p;

	if (r->s == r->end || *r->s != '"')
		return -1;
	for (p = ++r->s; r->s < r->end && ((*r->s >= 'a' && *r->s <= 'z') ||
	    *r->s == '_'); r->s++)
		;
	*k = p;
	*kn = (size_t)(r->s - p);
	if (*kn == 0 || *kn > 31 || r->s == r->end || *r->s != '"')
		return -1;
	r->s++;
	return 0;
}

static int
hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* A JSON string of printable ASCII; escapes as JSON has them. */
static int
plain_string(struct rd *r)
{
	int i;

	if (r->s == r->end || *r->s++ != '"')
		return -1;
	while (r->s < r->end && *r->s != '"') {
		unsigned char c = (unsigned char)*r->s++;

		if (c < 0x20 || c >= 0x7f)
			return -1;
		if (c != '\\')
			continue;
		if (r->s == r->end)
			return -1;
		c = (unsigned char)*r->s++;
		if (c == 'u') {
			for (i = 0; i < 4; i++)
				if (r->s == r->end || !hexdigit(*r->s++))
					return -1;
		} else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0')
			return -1;
	}
	if (r->s == r->end)
		return -1;
	r->s++;
	return 0;
}

/* Is the next word w?  Then it is read. */
static int
word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->s) < n || memcmp(r->s, w, n) != 0)
		return 0;
	r->s += n;
	return 1;
}

/*
 * One value: a string, an integer, true, false, null, or an array or
 * object of them.  Its kind is its first byte; the nesting is bounded.
 */
static int
plain_value(struct rd *r)
{
	const char *k;
	size_t kn, digits;
	char open;

	if (r->s == r->end)
		return -1;
	switch (*r->s) {
	case '"':
		return plain_string(r);
	case '[':
	case '{':
		open = *r->s++;
		if (++r->depth > ES_LOG_DEPTH)
			return -1;
		if (r->s < r->end && *r->s == (open == '[' ? ']' : '}')) {
			r->s++;
			r->depth--;
			return 0;
		}
		for (;;) {
			if (open == '{' && (plain_key(r, &k, &kn) == -1 ||
			    r->s == r->end || *r->s++ != ':'))
				return -1;
			if (plain_value(r) == -1 || r->s == r->end)
				return -1;
			if (*r->s == ',') {
				r->s++;
				continue;
			}
			if (*r->s++ != (open == '[' ? ']' : '}'))
				return -1;
			r->depth--;
			return 0;
		}
	default:
		if (word(r, "true") || word(r, "false") || word(r, "null"))
			return 0;
		if (*r->s == '-')
			r->s++;
		for (digits = 0; r->s < r->end && *r->s >= '0' && *r->s <= '9';
		    r->s++)
			digits++;
		return digits >= 1 && digits <= 19 ? 0 : -1;
	}
}

/* Is k (kn bytes) the name s? */
static int
is_key(const char *k, size_t kn, const char *s)
{
	return strlen(s) == kn && memcmp(k, s, kn) == 0;
}

long
es_audit_mark(const char *in, size_t n, long sandbox, const char *session,
    char *out, size_t len)
{
	struct rd r = { in, in + n, 1 };
	struct w w = { out, 0, len, 0, 0 };
	const char *k, *keys[ES_LOG_KEYS], *m;
	size_t kn, nkeys = 0, klen[ES_LOG_KEYS], i;
	char d[24], first;
	int need = 0;

	if (n > 0 && in[n - 1] == '\n')
		r.end--;
	if (len < 2 || r.s == r.end || *r.s++ != '{')
		return -1;
	w.cap = len - 1;
	put(&w, "{", 1);
	for (;;) {
		m = r.s;
		if (plain_key(&r, &k, &kn) == -1 || r.s == r.end ||
		    *r.s++ != ':' || nkeys == ES_LOG_KEYS)
			return -1;
		for (i = 0; i < nkeys; i++)
			if (klen[i] == kn && memcmp(keys[i], k, kn) == 0)
				return -1;
		keys[nkeys] = k;
		klen[nkeys++] = kn;
		first = r.s < r.end ? *r.s : '\0';
		if (plain_value(&r) == -1 || r.s == r.end)
			return -1;
		/* what envshim log needs to call it a record */
		if (is_key(k, kn, "time") && first == '"')
			need |= 1;
		else if (is_key(k, kn, "pid") && (first == '-' ||
		    (first >= '0' && first <= '9')))
			need |= 2;
		else if (is_key(k, kn, "action") && first == '"')
			need |= 4;
		/* the outer's to say, never the sender's */
		if (!is_key(k, kn, "inside") && !is_key(k, kn, "sandbox") &&
		    !is_key(k, kn, "session")) {
			if (w.len > 1)
				put(&w, ",", 1);
			put(&w, m, (size_t)(r.s - m));
		}
		if (*r.s == ',') {
			r.s++;
			continue;
		}
		if (*r.s++ != '}')
			return -1;
		break;
	}
	if (r.s != r.end || need != 7)
		return -1;
	member(&w, "inside", "true", 0);
	member(&w, "sandbox", decimal(d, sandbox), 0);
	if (session != NULL)
		member(&w, "session", session, 1);
	put(&w, "}\n", 2);
	return w.cut ? -1 : (long)w.len;
}
