/*
 * log.c - "envshim log": the audit log (docs/design.md, "Audit
 * record") as a process tree with what each launch lost, and a summary.
 *
 * The log is written by programs the agent controls the environment of,
 * so the reader MUST treat every line as hostile: a malformed line is
 * counted and skipped, never trusted, and nothing in it is printed raw
 * (control characters are escaped).  It reads exactly the record format,
 * not general JSON: unknown keys are skipped, nesting is bounded.
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "es_load.h"

#define JSON_DEPTH	16	/* nesting a record may have */
#define FIELD_MAX	1024	/* bytes of one displayed string */
#define MAX_REASONS	32	/* distinct drop reasons counted */

struct rec {
	char	 time[40], hook[32], action[16], would[16], mode[16];
	char	 session[64];		/* the agent run's session, or "" */
	char	 path[FIELD_MAX], argv[FIELD_MAX], reason[FIELD_MAX];
	char	 handover[FIELD_MAX];	/* the agent handed itself to this file */
	char	*dropped;		/* "NAME (reason), ..." or NULL */
	char	*rewritten;
	char	*reasons;		/* "reason,reason" of dropped */
	char	*kept;			/* "NAME (program rule F:L), ..." */
	char	*lost;			/* "NAME (reason), ..." */
	char	*lostnames;		/* "NAME NAME" */
	char	*hidden;		/* "PATH, PATH": what its sandbox hid */
	long	 hidden_more;		/* ... and this many more */
	int	 hid;			/* the helper's record of what it hid */
	int	 rej;			/* its record of a message from inside */
					/* that was no record */
	char	 word[ES_PROGRAM_WORDS][256];	/* argv's first words */
	size_t	 nword;
	long	 pid, ppid;
	long	 sandbox;		/* inside: the sandboxed launch's pid, else 0 */
	int	 inside, agent, child;
	size_t	 kid, next;		/* first child, next sibling (+1) */
	const char *raw;		/* the line, for --json */
};

struct counts {
	size_t	 n;
	char	 name[MAX_REASONS][32];
	size_t	 count[MAX_REASONS];
};

struct parser {
	const char	*s;
	int		 depth;
};

static void
ws(struct parser *ps)
{
	while (*ps->s == ' ' || *ps->s == '\t' || *ps->s == '\n' ||
	    *ps->s == '\r')
		ps->s++;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A JSON string into out (cut at cap, with "..."); -1 if malformed. */
static int
jstring(struct parser *ps, char *out, size_t cap)
{
	size_t	n = 0;
	int	c, i, h;
	unsigned int u;

	ws(ps);
	if (*ps->s != '"')
		return -1;
	for (ps->s++; (c = (unsigned char)*ps->s) != '"'; ps->s++) {
		if (c == '\0' || c < 0x20)
			return -1;
		if (c == '\\') {
			c = (unsigned char)*++ps->s;
			switch (c) {
			case '"': case '\\': case '/':
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				for (u = 0, i = 1; i <= 4; i++) {
					if ((h = hexval(ps->s[i])) < 0)
						return -1;
					u = u * 16 + h;
				}
				ps->s += 4;
				/* Display only: anything not ASCII is '?'. */
				c = u < 0x80 ? (int)u : '?';
				break;
			default:
				return -1;
			}
		}
		if (out != NULL && n + 1 < cap)
			out[n++] = (char)c;
		else if (out != NULL && cap > 4)
			memcpy(out + cap - 4, "...", 3);
	}
	ps->s++;
	if (out != NULL)
		out[n < cap ? n : cap - 1] = '\0';
	return 0;
}

static int	jskip(struct parser *);

/*
 * A number as JSON writes it, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
 * and nothing strtod takes besides (inf, nan, 0x10, +1, 01): a record
 * holding one was not written by envshim, and --json must stay JSON.
 */
static int
jnumber(struct parser *ps)
{
	const char *p = ps->s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return -1;
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		if (*++p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	ps->s = p;
	return 0;
}

/* Calls fn for each member of an object; fn must consume the value. */
static int
jobject(struct parser *ps, int (*fn)(struct parser *, const char *, void *),
    void *arg)
{
	char	key[32];

	ws(ps);
	if (*ps->s != '{' || ++ps->depth > JSON_DEPTH)
		return -1;
	ps->s++;
	ws(ps);
	if (*ps->s == '}') {
		ps->s++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		if (jstring(ps, key, sizeof(key)) == -1)
			return -1;
		ws(ps);
		if (*ps->s++ != ':')
			return -1;
		if (fn(ps, key, arg) == -1)
			return -1;
		ws(ps);
		if (*ps->s == ',') {
			ps->s++;
			continue;
		}
		if (*ps->s++ != '}')
			return -1;
		ps->depth--;
		return 0;
	}
}

/* Calls fn for each element of an array. */
static int
jarray(struct parser *ps, int (*fn)(struct parser *, void *), void *arg)
{
	ws(ps);
	if (*ps->s != '[' || ++ps->depth > JSON_DEPTH)
		return -1;
	ps->s++;
	ws(ps);
	if (*ps->s == ']') {
		ps->s++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		if (fn(ps, arg) == -1)
			return -1;
		ws(ps);
		if (*ps->s == ',') {
			ps->s++;
			continue;
		}
		if (*ps->s++ != ']')
			return -1;
		ps->depth--;
		return 0;
	}
}

static int
skip_member(struct parser *ps, const char *key, void *arg)
{
	(void)key;
	(void)arg;
	return jskip(ps);
}

static int
skip_elem(struct parser *ps, void *arg)
{
	(void)arg;
	return jskip(ps);
}

static int
jskip(struct parser *ps)
{
	ws(ps);
	switch (*ps->s) {
	case '"':
		return jstring(ps, NULL, 0);
	case '{':
		return jobject(ps, skip_member, NULL);
	case '[':
		return jarray(ps, skip_elem, NULL);
	default:
		break;
	}
	if (strncmp(ps->s, "true", 4) == 0 || strncmp(ps->s, "null", 4) == 0) {
		ps->s += 4;
		return 0;
	}
	if (strncmp(ps->s, "false", 5) == 0) {
		ps->s += 5;
		return 0;
	}
	return jnumber(ps);
}

static int
jbool(struct parser *ps, int *v)
{
	ws(ps);
	if (strncmp(ps->s, "true", 4) == 0) {
		*v = 1;
		ps->s += 4;
		return 0;
	}
	if (strncmp(ps->s, "false", 5) == 0) {
		*v = 0;
		ps->s += 5;
		return 0;
	}
	return -1;
}

/* A pid: digits alone, as JSON writes a number (no sign, no 0x). */
static int
jlong(struct parser *ps, long *v)
{
	const char	*start;
	char		*e;

	ws(ps);
	start = ps->s;
	if (*start < '0' || *start > '9' || jnumber(ps) == -1)
		return -1;
	errno = 0;
	*v = strtol(start, &e, 10);
	if (e != ps->s || errno != 0)
		return -1;
	return 0;
}

/* The length of the valid UTF-8 sequence s starts, or 0. */
static size_t
utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong form, no surrogate, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* The value of the 4 hex digits at s (rec_parse checked them). */
static unsigned int
hex4(const char *s)
{
	unsigned int u = 0;
	int i;

	for (i = 0; i < 4; i++)
		u = u * 16 + (unsigned int)hexval(s[i]);
	return u;
}

/*
 * A record's line as --json prints it: the JSON it is, but with every
 * string valid UTF-8 - a byte that starts no sequence, an overlong or cut
 * one, a lone surrogate escape becomes \ufffd - so the output is JSON
 * whatever bytes a corrupt or forged line held (envshim writes ASCII).
 * The line parsed (rec_parse): outside its strings it is JSON already.
 */
static void
put_clean(FILE *f, const char *s)
{
	unsigned int u, l;
	size_t n;
	int in = 0;

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || !in) {
			in ^= c == '"';
			putc(c, f);
		} else if (c == '\\' && s[1] == 'u') {
			u = hex4(s + 2);
			if (u >= 0xd800 && u < 0xdc00 && s[6] == '\\' &&
			    s[7] == 'u' && hexval(s[8]) >= 0 && hexval(s[9]) >= 0 &&
			    hexval(s[10]) >= 0 && hexval(s[11]) >= 0 &&
			    (l = hex4(s + 8)) >= 0xdc00 && l < 0xe000) {
				fwrite(s, 1, 12, f);
				s += 11;
			} else {
				if (u >= 0xd800 && u < 0xe000)
					fputs("\\ufffd", f);
				else
					fwrite(s, 1, 6, f);
				s += 5;
			}
		} else if (c == '\\') {
			putc(c, f);
			putc(*++s, f);
		} else if (c < 0x80)
			putc(c, f);
		else if ((n = utf8_len((const unsigned char *)s)) > 0) {
			fwrite(s, 1, n, f);
			s += n - 1;
		} else
			fputs("\\ufffd", f);
	}
}

/* Appends s to the malloc'd list *l, separated by sep. */
static int
append(char **l, const char *sep, const char *s)
{
	size_t	 a = *l != NULL ? strlen(*l) : 0;
	char	*n;

	if ((n = realloc(*l, a + strlen(sep) + strlen(s) + 1)) == NULL)
		return -1;
	if (a == 0)
		n[0] = '\0';
	else
		strcat(n, sep);
	strcat(n, s);
	*l = n;
	return 0;
}

struct argvs {
	char	buf[FIELD_MAX];
	size_t	n;
	struct rec *r;
};

static int
argv_elem(struct parser *ps, void *arg)
{
	struct argvs	*a = arg;
	char		 s[FIELD_MAX];
	size_t		 l;

	if (jstring(ps, s, sizeof(s)) == -1)
		return -1;
	l = strlen(s);
	if (a->r->nword < ES_PROGRAM_WORDS && l < sizeof(a->r->word[0]))
		memcpy(a->r->word[a->r->nword++], s, l + 1);
	if (a->n + l + 2 < sizeof(a->buf)) {
		if (a->n > 0)
			a->buf[a->n++] = ' ';
		memcpy(a->buf + a->n, s, l + 1);
		a->n += l;
	}
	return 0;
}

struct var {
	char	name[256], reason[32], rule[FIELD_MAX];
};

static int
var_member(struct parser *ps, const char *key, void *arg)
{
	struct var	*v = arg;

	if (strcmp(key, "name") == 0)
		return jstring(ps, v->name, sizeof(v->name));
	if (strcmp(key, "reason") == 0)
		return jstring(ps, v->reason, sizeof(v->reason));
	if (strcmp(key, "rule") == 0)
		return jstring(ps, v->rule, sizeof(v->rule));
	return jskip(ps);
}

struct varlist {
	char	**list, **reasons;
	char	**names;		/* or NULL */
	int	  rule;			/* "(program rule F:L)" for the reason */
};

static int
var_elem(struct parser *ps, void *arg)
{
	struct varlist	*vl = arg;
	struct var	 v = { "", "", "" };
	char		 item[sizeof(v.name) + sizeof(v.rule) + 32];
	size_t		 i;

	if (jobject(ps, var_member, &v) == -1 || v.name[0] == '\0')
		return -1;
	/* Reasons are words; anything else would garble the summary. */
	for (i = 0; v.reason[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz-", v.reason[i]) == NULL)
			v.reason[i] = '?';
	if (v.reason[0] == '\0')
		memcpy(v.reason, "?", 2);
	if (vl->rule && strcmp(v.reason, "program") == 0)
		snprintf(item, sizeof(item), "%s (program rule %s)", v.name,
		    v.rule[0] ? v.rule : "?");
	else
		snprintf(item, sizeof(item), "%s (%s)", v.name, v.reason);
	if (vl->reasons != NULL && append(vl->reasons, ",", v.reason) == -1)
		return -1;
	if (vl->names != NULL && append(vl->names, " ", v.name) == -1)
		return -1;
	return append(vl->list, ", ", item);
}

/* One path of a "hidden" list, appended to *arg. */
static int
path_elem(struct parser *ps, void *arg)
{
	char	s[FIELD_MAX];

	if (jstring(ps, s, sizeof(s)) == -1)
		return -1;
	return append(arg, ", ", s);
}

static int
rec_member(struct parser *ps, const char *key, void *arg)
{
	struct rec	*r = arg;
	struct argvs	 a = { "", 0, r };

	if (strcmp(key, "time") == 0)
		return jstring(ps, r->time, sizeof(r->time));
	if (strcmp(key, "pid") == 0)
		return jlong(ps, &r->pid);
	if (strcmp(key, "ppid") == 0)
		return jlong(ps, &r->ppid);
	if (strcmp(key, "sandbox") == 0)
		return jlong(ps, &r->sandbox);
	if (strcmp(key, "hook") == 0)
		return jstring(ps, r->hook, sizeof(r->hook));
	if (strcmp(key, "session") == 0)
		return jstring(ps, r->session, sizeof(r->session));
	if (strcmp(key, "path") == 0)
		return jstring(ps, r->path, sizeof(r->path));
	if (strcmp(key, "action") == 0)
		return jstring(ps, r->action, sizeof(r->action));
	if (strcmp(key, "would") == 0)
		return jstring(ps, r->would, sizeof(r->would));
	if (strcmp(key, "reason") == 0)
		return jstring(ps, r->reason, sizeof(r->reason));
	if (strcmp(key, "mode") == 0)
		return jstring(ps, r->mode, sizeof(r->mode));
	if (strcmp(key, "inside") == 0)
		return jbool(ps, &r->inside);
	if (strcmp(key, "agent") == 0)
		return jbool(ps, &r->agent);
	if (strcmp(key, "handover") == 0)
		return jstring(ps, r->handover, sizeof(r->handover));
	if (strcmp(key, "argv") == 0) {
		if (jarray(ps, argv_elem, &a) == -1)
			return -1;
		memcpy(r->argv, a.buf, sizeof(r->argv));
		return 0;
	}
	if (strcmp(key, "dropped") == 0) {
		struct varlist	vl = { &r->dropped, &r->reasons, NULL, 0 };

		return jarray(ps, var_elem, &vl);
	}
	if (strcmp(key, "rewritten") == 0) {
		struct varlist	vl = { &r->rewritten, NULL, NULL, 0 };

		return jarray(ps, var_elem, &vl);
	}
	if (strcmp(key, "kept") == 0) {
		struct varlist	vl = { &r->kept, NULL, NULL, 1 };

		return jarray(ps, var_elem, &vl);
	}
	if (strcmp(key, "lost") == 0) {
		struct varlist	vl = { &r->lost, NULL, &r->lostnames, 0 };

		return jarray(ps, var_elem, &vl);
	}
	if (strcmp(key, "hidden") == 0)
		return jarray(ps, path_elem, &r->hidden);
	if (strcmp(key, "hidden_more") == 0)
		return jlong(ps, &r->hidden_more);
	return jskip(ps);
}

static void
rec_free(struct rec *r)
{
	free(r->dropped);
	free(r->rewritten);
	free(r->reasons);
	free(r->kept);
	free(r->lost);
	free(r->lostnames);
	free(r->hidden);
	r->dropped = r->rewritten = r->reasons = NULL;
	r->kept = r->lost = r->lostnames = r->hidden = NULL;
}

/* One line into r; -1 (r freed) when it is not a whole record. */
static int
rec_parse(const char *line, struct rec *r)
{
	struct parser	ps = { line, 0 };

	memset(r, 0, sizeof(*r));
	r->pid = r->ppid = -1;
	if (jobject(&ps, rec_member, r) == -1)
		goto bad;
	ws(&ps);
	if (*ps.s != '\0' || r->pid < 0 || r->action[0] == '\0' ||
	    r->time[0] == '\0')
		goto bad;
	r->hid = strcmp(r->hook, "sandbox") == 0 &&
	    strcmp(r->action, "hidden") == 0;
	r->rej = strcmp(r->hook, "sandbox") == 0 && r->inside &&
	    strcmp(r->action, "rejected") == 0;
	return 0;
bad:
	rec_free(r);
	return -1;
}

static void
count_reasons(struct counts *c, const char *list)
{
	const char	*p, *e;
	size_t		 i, n;

	for (p = list; p != NULL && *p != '\0'; p = *e ? e + 1 : e) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		n = e - p;
		for (i = 0; i < c->n; i++)
			if (strlen(c->name[i]) == n &&
			    strncmp(c->name[i], p, n) == 0)
				break;
		if (i == c->n) {
			if (c->n == MAX_REASONS || n >= sizeof(c->name[0]))
				continue;
			memcpy(c->name[i], p, n);
			c->name[i][n] = '\0';
			c->n++;
		}
		c->count[i]++;
	}
}

static void
put(const char *s)
{
	es_cmd_putname(stdout, s, strlen(s));
}

#define TREE_INDENT	24	/* deeper levels are drawn at this depth */

/* rails[d]: level d still has siblings below, so it draws a "|". */
static void
rails_out(const char *rails, int depth)
{
	int	d;

	for (d = 1; d <= depth && d < TREE_INDENT; d++)
		fputs(rails[d] ? "|  " : "   ", stdout);
}

static void
detail(const char *rails, int depth, const char *label, const char *s)
{
	rails_out(rails, depth);
	printf("   %s: ", label);
	put(s);
	putchar('\n');
}

/* Is argv's first word the file path, or its last component? */
static int
same_program(const char *path, const char *argv)
{
	const char	*base = strrchr(path, '/');
	size_t		 n = strcspn(argv, " ");

	base = base != NULL ? base + 1 : path;
	return (strlen(path) == n && strncmp(path, argv, n) == 0) ||
	    (strlen(base) == n && strncmp(base, argv, n) == 0);
}

/* An audit record's enforce action as a verb: "would refuse". */
static const char *
would_verb(const char *would)
{
	if (strcmp(would, "refused") == 0)
		return "refuse";
	if (strcmp(would, "unconfined") == 0)
		return "run unconfined";
	return would;
}

/*
 * "NAME (reason), ...; to let it through: program WORDS keep NAME ...":
 * what a launch lost that the agent had set for it, and the rule that
 * would have let it through.
 */
static void
lost_hint(const struct rec *r, char *out, size_t len)
{
	char	*av[ES_PROGRAM_WORDS + 1], words[FIELD_MAX];
	size_t	 i;

	for (i = 0; i < r->nword; i++)
		av[i] = (char *)r->word[i];
	av[i] = NULL;
	es_cmd_program_words(r->path[0] ? r->path : r->word[0], av, r->nword,
	    words, sizeof(words));
	snprintf(out, len, "%s; to let it through: program %s keep %s",
	    r->lost, words, r->lostnames);
}

static int
audited(const struct rec *r)
{
	return strcmp(r->action, "audit") == 0;
}

static void
show(struct rec *rs, size_t i, int depth, int last, char *rails)
{
	struct rec	*r = &rs[i];
	size_t		 j;

	rails_out(rails, depth - 1);
	if (depth > 0)
		fputs(last ? "`- " : "|- ", stdout);
	printf("%ld ", r->pid);
	put(r->argv[0] ? r->argv : r->path);
	printf("  [");
	put(r->action);
	if (audited(r) && r->would[0]) {
		fputs(": would ", stdout);
		put(would_verb(r->would));
	}
	if (r->reason[0]) {
		fputs(": ", stdout);
		put(r->reason);
	}
	printf("]%s%s\n", r->agent ? " (agent)" : "",
	    r->inside ? " (inside sandbox)" : "");
	if (depth < TREE_INDENT)
		rails[depth] = depth > 0 && !last;
	if (r->path[0] && !same_program(r->path, r->argv))
		detail(rails, depth, "path", r->path);
	if (r->agent && r->handover[0]) {
		rails_out(rails, depth);
		fputs("   agent: handed to ", stdout);
		put(r->handover);
		putchar('\n');
	}
	/* the agent run it belongs to: once, where a tree starts */
	if (depth == 0 && r->session[0])
		detail(rails, depth, "session", r->session);
	if (r->dropped != NULL)
		detail(rails, depth, audited(r) ? "would drop" : "dropped",
		    r->dropped);
	if (r->rewritten != NULL)
		detail(rails, depth, audited(r) ? "would rewrite" : "rewritten",
		    r->rewritten);
	if (r->kept != NULL)
		detail(rails, depth, "kept", r->kept);
	/* what a command inside says it lost is no case for a rule */
	if (r->lost != NULL && r->inside)
		detail(rails, depth, "lost", r->lost);
	else if (r->lost != NULL) {
		char	hint[2 * FIELD_MAX];

		lost_hint(r, hint, sizeof(hint));
		detail(rails, depth, "lost", hint);
	}
	if (r->hidden != NULL) {
		char	more[48] = "";

		if (r->hidden_more > 0)
			snprintf(more, sizeof(more), " and %ld more",
			    r->hidden_more);
		rails_out(rails, depth);
		fputs("   hidden: ", stdout);
		put(r->hidden);
		printf("%s\n", more);
	}
	for (j = r->kid; j != 0; j = rs[j - 1].next)
		show(rs, j - 1, depth + 1, rs[j - 1].next == 0, rails);
}

/*
 * Inside a sandbox pids are its own namespace's: there a process is known
 * by (sandbox, pid).  Pids stay below 2^22 (PID_MAX_LIMIT).
 */
static unsigned long long
tree_key(long sandbox, long pid)
{
	return ((unsigned long long)(sandbox > 0 ? sandbox : 0) << 22) ^
	    (unsigned long long)pid;
}

/* The slot of key in ix (open addressing); empty if it is not there. */
static size_t
tree_slot(const struct rec *rs, const size_t *ix, size_t slots,
    unsigned long long key)
{
	size_t h;

	for (h = (size_t)(key * 2654435761u) & (slots - 1);
	    ix[h] != 0 && tree_key(rs[ix[h] - 1].sandbox, rs[ix[h] - 1].pid) != key;
	    h = (h + 1) & (slots - 1))
		;
	return h;
}

/*
 * A record's parent is the latest earlier record of its ppid: pids are
 * reused, and a pid that execs again starts a new record.  A record from
 * inside whose parent left no record (the sandboxed shell itself, started
 * by the helper) hangs under the launch that went into the sandbox.
 */
static void
link_tree(struct rec *rs, size_t n)
{
	size_t	 slots = 16, i, h, j, *ix, *last;

	while (slots < 2 * n)
		slots *= 2;
	ix = calloc(slots, sizeof(*ix));
	last = calloc(n + 1, sizeof(*last));
	for (i = 0; i < n; i++) {
		rs[i].kid = rs[i].next = 0;
		if (ix == NULL || last == NULL)
			continue;
		h = tree_slot(rs, ix, slots, tree_key(rs[i].sandbox, rs[i].ppid));
		if (ix[h] == 0 && rs[i].sandbox > 0)
			h = tree_slot(rs, ix, slots, tree_key(0, rs[i].sandbox));
		if (ix[h] != 0 && ix[h] - 1 != i) {
			j = ix[h] - 1;
			if (last[j] == 0)
				rs[j].kid = i + 1;
			else
				rs[last[j] - 1].next = i + 1;
			last[j] = i + 1;
			rs[i].child = 1;
		}
		/* pid 0 is no process (a message from inside that was no record) */
		if (rs[i].pid > 0)
			ix[tree_slot(rs, ix, slots, tree_key(rs[i].sandbox,
			    rs[i].pid))] = i + 1;
	}
	free(ix);
	free(last);
}

/* n digits at p as a number, or -1. */
static int
digits(const char *p, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

/*
 * --since: 30s, 10m, 2h, 7d ago, or a time as records carry it,
 * YYYY-MM-DD[THH:MM[:SS[.fff]]] in UTC, or with Z or an offset (+02:00,
 * -0600) after the time: as the ISO UTC prefix records are compared
 * with.  A field out of its range (2026-13-45, T25:99) or a count whose
 * time would overflow is no time: -1.
 */
static int
since_time(const char *arg, char *out, size_t len)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	unsigned long long v, unit;
	const char	*p = arg, *frac = "";
	size_t		 nfrac = 0;
	int		 y, mo, d, h = -1, mi = 0, sec = -1, off = 0, oh, om, leap;
	time_t		 t, now = time(NULL);
	struct tm	 tm;
	char		*e;

	if (arg[0] >= '0' && arg[0] <= '9' && (e = strpbrk(arg, "smhd")) !=
	    NULL && e[1] == '\0' && strspn(arg, "0123456789") ==
	    (size_t)(e - arg)) {
		errno = 0;
		v = strtoull(arg, NULL, 10);
		unit = e[0] == 's' ? 1 : e[0] == 'm' ? 60 : e[0] == 'h' ?
		    3600 : 86400;
		/* back past 1970 at most: anything more is no time */
		if (errno != 0 || now < 0 || v > (unsigned long long)now / unit)
			return -1;
		t = now - (time_t)(v * unit);
		goto put;
	}
	if ((y = digits(p, 4)) < 0 || p[4] != '-' ||
	    (mo = digits(p + 5, 2)) < 1 || mo > 12 || p[7] != '-' ||
	    (d = digits(p + 8, 2)) < 1)
		return -1;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[mo - 1] + (mo == 2 && leap))
		return -1;
	p += 10;
	if (*p == 'T') {
		if ((h = digits(p + 1, 2)) < 0 || h > 23 || p[3] != ':' ||
		    (mi = digits(p + 4, 2)) < 0 || mi > 59)
			return -1;
		p += 6;
		if (*p == ':') {
			if ((sec = digits(p + 1, 2)) < 0 || sec > 59)
				return -1;
			p += 3;
			if (*p == '.') {
				frac = ++p;
				nfrac = strspn(p, "0123456789");
				if (nfrac == 0 || nfrac > 9)
					return -1;
				p += nfrac;
			}
		}
		if (*p == 'Z')
			p++;
		else if (*p == '+' || *p == '-') {
			if ((oh = digits(p + 1, 2)) < 0 || oh > 23)
				return -1;
			om = digits(p + (p[3] == ':' ? 4 : 3), 2);
			if (om < 0 || om > 59)
				return -1;
			off = (p[0] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
			p += p[3] == ':' ? 6 : 5;
		}
	}
	if (*p != '\0')
		return -1;
	if (h < 0) {	/* a day: the prefix as it is */
		snprintf(out, len, "%.10s", arg);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec < 0 ? 0 : sec;
	t = timegm(&tm) - off;
put:
	if (gmtime_r(&t, &tm) == NULL || strftime(out, len, sec < 0 && h >= 0 ?
	    "%Y-%m-%dT%H:%M" : "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -1;
	if (nfrac > 0 && strlen(out) + 1 + nfrac < len)
		snprintf(out + strlen(out), len - strlen(out), ".%.*s",
		    (int)nfrac, frac);
	return 0;
}

static const char log_usage[] =
"usage: envshim log [FILE | -] [--policy FILE] [--json] [--since TIME]\n"
"                   [--session NAME]\n"
"  TIME: 2026-11-30T09:00 (UTC, or with Z or an offset: +02:00),\n"
"        or 30s, 10m, 2h, 7d ago\n"
"  NAME: a session as envshim session lists it\n";

/*
 * The file the policy's `log` line names (the default file without one),
 * as the agent's shim wrote it; -1 with the reason said when records went
 * anywhere else.
 */
static int
policy_log(const char *polfile, char *path, size_t len)
{
	struct es_policy	*p;
	const char		*where = NULL, *layer;
	int			 rc = 0;

	if ((p = es_cmd_load(es_cmd_policy_file(polfile))) == NULL)
		return -1;
	layer = p->log_layer < p->nlayers ? p->layer_name[p->log_layer] : "?";
	if (p->log == ES_LOG_OFF)
		where = "'log off': nothing was recorded";
	else if (p->log == ES_LOG_STDERR)
		where = "'log stderr': records went to each program's standard "
		    "error";
	else if (p->log == ES_LOG_SYSLOG)
		where = "'log syslog': read the records with\n"
		    "  journalctl -t envshim -o cat | envshim log -";
	if (where != NULL) {
		fprintf(stderr, "envshim log: %s says %s\n", layer, where);
		rc = -1;
	} else if (es_log_file(p, getenv("HOME"), path, len) != 0) {
		fprintf(stderr, "envshim log: neither XDG_STATE_HOME nor HOME "
		    "is set: name the log file\n");
		rc = -1;
	}
	free(p);
	return rc;
}

static void
put_counts(const struct counts *c, int json)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (json) {
			printf("%s", i ? "," : "");
			es_cmd_putjson(stdout, c->name[i], strlen(c->name[i]));
			printf(":%zu", c->count[i]);
		} else {
			printf("%s", i ? ", " : " (");
			put(c->name[i]);
			printf(" %zu", c->count[i]);
		}
	}
	if (!json && c->n)
		putchar(')');
}

static size_t
total(const struct counts *c)
{
	size_t	i, n = 0;

	for (i = 0; i < c->n; i++)
		n += c->count[i];
	return n;
}

/*
 * Audit records changed nothing: what they would have done is counted
 * apart, so "sandboxed" and "variables dropped" say what really happened.
 */
static void
summary(struct rec *rs, size_t n, size_t bad, int json)
{
	struct counts	 c, ca;
	size_t		 i, sandboxed = 0, refused = 0, unconfined = 0;
	size_t		 na = 0, wsandbox = 0, wrefuse = 0, nhid = 0, nrej = 0;

	memset(&c, 0, sizeof(c));
	memset(&ca, 0, sizeof(ca));
	for (i = 0; i < n; i++) {
		if (rs[i].hid || rs[i].rej) {	/* a sandbox's, not a launch */
			nhid += rs[i].hid;
			nrej += rs[i].rej;
			continue;
		}
		sandboxed += strcmp(rs[i].action, "sandbox") == 0;
		refused += strcmp(rs[i].action, "refused") == 0;
		unconfined += strcmp(rs[i].action, "unconfined") == 0;
		if (audited(&rs[i])) {
			na++;
			wsandbox += strcmp(rs[i].would, "sandbox") == 0;
			wrefuse += strcmp(rs[i].would, "refused") == 0;
			count_reasons(&ca, rs[i].reasons);
		} else
			count_reasons(&c, rs[i].reasons);
	}
	if (json) {
		printf("\"summary\":{\"launches\":%zu,\"sandboxed\":%zu,"
		    "\"refused\":%zu,\"unconfined\":%zu,\"malformed\":%zu,"
		    "\"rejected\":%zu,\"dropped\":{", n - nhid - nrej, sandboxed,
		    refused, unconfined, bad, nrej);
		put_counts(&c, 1);
		printf("},\"audit\":{\"launches\":%zu,\"sandbox\":%zu,"
		    "\"refused\":%zu,\"dropped\":{", na, wsandbox, wrefuse);
		put_counts(&ca, 1);
		printf("}}}}\n");
		return;
	}
	printf("\nlaunches: %zu, sandboxed: %zu, refused: %zu, "
	    "unconfined: %zu\n", n - nhid - nrej, sandboxed, refused,
	    unconfined);
	printf("variables dropped: %zu", total(&c));
	put_counts(&c, 0);
	putchar('\n');
	if (na > 0) {
		printf("audit only (nothing changed): %zu launch%s; would "
		    "have sandboxed %zu, refused %zu, dropped %zu variable%s",
		    na, na == 1 ? "" : "es", wsandbox, wrefuse, total(&ca),
		    total(&ca) == 1 ? "" : "s");
		put_counts(&ca, 0);
		putchar('\n');
	}
	if (bad > 0)
		printf("malformed lines skipped: %zu\n", bad);
	if (nrej > 0)
		printf("messages from inside a sandbox that were no record: "
		    "%zu\n", nrej);
}

/* One program's losses, for es_cmd_lost_report. */
struct loss {
	char	words[FIELD_MAX];
	char	*lost, *names;
};

/* Adds the names of r's "lost" list to l, each once. */
static int
loss_add(struct loss *l, const struct rec *r)
{
	const char	*a = r->lost, *b = r->lostnames;

	while (a != NULL && b != NULL && *b != '\0') {
		size_t	an = strcspn(a, ","), bn = strcspn(b, " ");
		char	item[FIELD_MAX], name[256];
		int	seen = 0;
		const char *q;

		snprintf(item, sizeof(item), "%.*s", (int)an, a);
		snprintf(name, sizeof(name), "%.*s", (int)bn, b);
		for (q = l->names; q != NULL && *q != '\0' && !seen;
		    q += strcspn(q, " "), q += *q == ' ')
			seen = strncmp(q, name, strlen(name)) == 0 &&
			    (q[strlen(name)] == ' ' || q[strlen(name)] == '\0');
		if (!seen && (append(&l->lost, ", ", item) == -1 ||
		    append(&l->names, " ", name) == -1))
			return -1;
		a += an;
		a += strspn(a, ", ");
		b += bn;
		b += *b == ' ';
	}
	return 0;
}

void
es_cmd_lost_report(const char *path, long long from, FILE *out)
{
	struct loss	 ls[ES_MAX_PROGRAMS];
	size_t		 nls = 0, i, cap = 0;
	char		*line = NULL;
	ssize_t		 len;
	struct rec	 r;
	FILE		*f;

	if ((f = fopen(path, "re")) == NULL)
		return;
	if (from > 0 && fseeko(f, (off_t)from, SEEK_SET) != 0) {
		fclose(f);
		return;
	}
	while ((len = getline(&line, &cap, f)) != -1) {
		char	*av[ES_PROGRAM_WORDS + 1], words[FIELD_MAX];

		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0 || (size_t)len != strlen(line) ||
		    len > ES_LOG_LINE || rec_parse(line, &r) == -1)
			continue;
		/* only the agent's own launches, outside, lose what it set */
		if (r.lost != NULL && !r.inside) {
			for (i = 0; i < r.nword; i++)
				av[i] = r.word[i];
			av[i] = NULL;
			es_cmd_program_words(r.path[0] ? r.path : r.word[0],
			    av, r.nword, words, sizeof(words));
			for (i = 0; i < nls && strcmp(ls[i].words, words); i++)
				;
			if (i == nls && nls < ES_MAX_PROGRAMS) {
				memset(&ls[nls], 0, sizeof(ls[nls]));
				memcpy(ls[nls].words, words, sizeof(words));
				nls++;
			}
			if (i < nls)
				(void)loss_add(&ls[i], &r);
		}
		rec_free(&r);
	}
	free(line);
	fclose(f);
	for (i = 0; i < nls; i++) {
		fputs("envshim: ", out);
		es_cmd_putname(out, ls[i].words, strlen(ls[i].words));
		fputs(" lost ", out);
		es_cmd_putname(out, ls[i].lost, strlen(ls[i].lost));
		fputs("; to let it through: program ", out);
		es_cmd_putname(out, ls[i].words, strlen(ls[i].words));
		fputs(" keep ", out);
		es_cmd_putname(out, ls[i].names, strlen(ls[i].names));
		fputc('\n', out);
		free(ls[i].lost);
		free(ls[i].names);
	}
}

/* Is rs[j] the launch a hidden record of pid (and sandbox) belongs to? */
static int
hid_owner(const struct rec *rs, size_t j, const struct rec *h)
{
	return !rs[j].hid && rs[j].hidden == NULL && rs[j].pid == h->pid &&
	    rs[j].sandbox == h->sandbox;
}

/*
 * The helper's record of what a sandbox hid goes with the launch it
 * belongs to, the nearest record of the same pid: after it, or before it
 * when the spawner wrote its record once posix_spawn returned.  Taken
 * records leave rs; one with no launch stays a record of its own.
 */
static void
hid_merge(struct rec *rs, size_t *np)
{
	size_t	n = *np, i, j, k, o = 0;

	for (i = 0; i < n; i++) {
		if (!rs[i].hid)
			continue;
		for (k = 1, j = n; k <= 64 && j == n; k++)
			if (i >= k && hid_owner(rs, i - k, &rs[i]))
				j = i - k;
			else if (i + k < n && hid_owner(rs, i + k, &rs[i]))
				j = i + k;
		if (j == n)
			continue;
		rs[j].hidden = rs[i].hidden;
		rs[j].hidden_more = rs[i].hidden_more;
		rs[i].hidden = NULL;
		rec_free(&rs[i]);
		rs[i].pid = -1;		/* taken */
	}
	for (i = 0; i < n; i++)
		if (rs[i].pid != -1)
			rs[o++] = rs[i];
	*np = o;
}

int
es_cmd_log(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "session", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char		 path[ES_PATH_MAX], since[64] = "";
	const char	*file = NULL, *polfile = NULL, *sess = NULL;
	char		*line = NULL, *rec;
	size_t		 cap = 0, n = 0, nrs = 0, bad = 0, i;
	ssize_t		 len;
	struct rec	*rs = NULL, *nr, r;
	struct stat	 st;
	FILE		*f;
	int		 c, json = 0;
	char		 rails[TREE_INDENT + 1] = "";

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 's':
			if (since_time(optarg, since, sizeof(since)) == -1) {
				fprintf(stderr, "envshim log: --since takes "
				    "a time like 2026-11-30T09:00 (UTC, or with "
				    "an offset: +02:00), or 30s, 10m, 2h, 7d\n");
				return ES_EXIT_FAIL;
			}
			break;
		case 'p':
			polfile = optarg;
			break;
		case 'S':
			sess = optarg;
			break;
		case 'h':
			fputs(log_usage, stdout);
			return 0;
		default:
			return es_cmd_try("envshim log");
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "envshim log: one FILE at most, not also '%s'\n%s",
		    argv[optind + 1], log_usage);
		return ES_EXIT_FAIL;
	}
	if (optind < argc)
		file = argv[optind];
	else if (policy_log(polfile, path, sizeof(path)) == 0)
		file = path;
	else
		return ES_EXIT_FAIL;
	if (strcmp(file, "-") == 0)
		f = stdin;
	else if ((f = fopen(file, "re")) == NULL ||
	    (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode) &&
	    (errno = EISDIR) != 0)) {
		fprintf(stderr, "envshim log: %s: %s%s\n", file,
		    strerror(errno), errno == ENOENT ?
		    " (nothing logged yet?)" : "");
		if (f != NULL)
			fclose(f);
		return ES_EXIT_FAIL;
	}
	while ((len = getline(&line, &cap, f)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if ((size_t)len != strlen(line)) {
			bad++;
			continue;
		}
		rec = line;
		if (len > ES_LOG_LINE || rec_parse(line, &r) == -1) {
			/*
			 * A record cut short (a crash mid-write, a full disk)
			 * with the next one written after it on its line: that
			 * one is read, the cut one counted.
			 */
			bad++;
			for (rec = line + 1; (rec = strstr(rec, "{\"time\":\""))
			    != NULL; rec++)
				if (strlen(rec) <= ES_LOG_LINE &&
				    rec_parse(rec, &r) == 0)
					break;
			if (rec == NULL)
				continue;
		}
		/* one agent run: its launches and what ran inside its sandboxes */
		if ((since[0] && strcmp(r.time, since) < 0) ||
		    (sess != NULL && strcmp(r.session, sess) != 0)) {
			rec_free(&r);
			continue;
		}
		if (n == nrs) {
			nrs = nrs ? nrs * 2 : 64;
			if ((nr = realloc(rs, nrs * sizeof(*rs))) == NULL) {
				fprintf(stderr, "envshim log: out of memory\n");
				return ES_EXIT_FAIL;
			}
			rs = nr;
		}
		r.raw = json ? strdup(rec) : NULL;
		rs[n++] = r;
	}
	free(line);
	/* a log that fails mid-way is no log that recorded nothing */
	if (ferror(f)) {
		fprintf(stderr, "envshim log: %s: %s\n", file, strerror(errno));
		fclose(f);
		for (i = 0; i < n; i++)
			rec_free(&rs[i]);
		free(rs);
		return ES_EXIT_FAIL;
	}
	fclose(f);
	if (sess != NULL && n == 0) {
		fprintf(stderr, "envshim log: no session %s in %s (envshim "
		    "session lists them)\n", sess, file);
		free(rs);
		return 1;
	}
	if (json) {
		printf("{\"records\":[");
		for (i = 0; i < n; i++) {
			fputs(i ? ",\n" : "\n", stdout);
			if (rs[i].raw != NULL)
				put_clean(stdout, rs[i].raw);
			else
				fputs("null", stdout);
		}
		printf("],\n");
	} else {
		hid_merge(rs, &n);
		link_tree(rs, n);
		for (i = 0; i < n; i++)
			if (!rs[i].child)
				show(rs, i, 0, 1, rails);
		if (n == 0)
			printf("no launches recorded in %s\n", file);
	}
	summary(rs, n, bad, json);
	for (i = 0; i < n; i++) {
		rec_free(&rs[i]);
		free((char *)rs[i].raw);
	}
	free(rs);
	return fflush(stdout) == 0 ? 0 : ES_EXIT_FAIL;
}
