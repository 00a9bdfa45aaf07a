/*
 * fuzz_audit - the audit record writer.
 *
 * Input: two bytes choosing the buffer size, a flags byte, then
 * NUL-separated strings: hook, action, path, reason, would, the argv
 * (ended by an empty string), then environment entries whose first byte
 * is their verdict.  Whatever they hold, the record must be one line of
 * printable ASCII that is a valid JSON object, fit the buffer, and never
 * contain the value of an environment entry.  Without an argv (a flag) its
 * strings are the hidden paths of a sandbox's record instead.
 */
#include <ctype.h>
#include <string.h>

#include "es_exec.h"
#include "fuzz.h"

#define MAXV	512

/* ---- a strict JSON checker: returns the end of one value, or NULL ---- */

static const char *value(const char *, const char *, int);

static const char *
ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *
string(const char *s, const char *e)
{
	if (s >= e || *s++ != '"')
		return NULL;
	while (s < e && *s != '"') {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (s >= e)
				return NULL;
			if (*s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (s + i >= e || !isxdigit((unsigned char)s[i]))
						return NULL;
				s += 4;
			} else if (strchr("\"\\/bfnrt", *s) == NULL)
				return NULL;
		}
		s++;
	}
	return s < e ? s + 1 : NULL;
}

/*
 * The record with every string literal decoded, so that the digits of an
 * escape (\u0012 before "3abc") cannot pass for a value ("123abc").
 */
static size_t
decode(const char *s, size_t n, char *d)
{
	size_t i = 0, o = 0;
	int in = 0;

	while (i < n) {
		if (s[i] == '"') {
			in = !in;
			d[o++] = s[i++];
		} else if (in && s[i] == '\\' && i + 1 < n && s[i + 1] == 'u' &&
		    i + 5 < n) {
			char hex[5] = { s[i + 2], s[i + 3], s[i + 4], s[i + 5], 0 };

			d[o++] = (char)strtoul(hex, NULL, 16);
			i += 6;
		} else if (in && s[i] == '\\' && i + 1 < n) {
			d[o++] = s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' :
			    s[i + 1] == 'r' ? '\r' : s[i + 1] == 'b' ? '\b' :
			    s[i + 1] == 'f' ? '\f' : s[i + 1];
			i += 2;
		} else
			d[o++] = s[i++];
	}
	return o;
}

static const char *
number(const char *s, const char *e)
{
	const char *b;

	if (s < e && *s == '-')
		s++;
	b = s;
	while (s < e && isdigit((unsigned char)*s))
		s++;
	if (s == b || (s - b > 1 && *b == '0'))
		return NULL;
	return s;
}

static const char *
word(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) >= n && memcmp(s, w, n) == 0 ? s + n : NULL;
}

static const char *
compound(const char *s, const char *e, int depth, char close)
{
	int first = 1;

	s = ws(s + 1, e);
	while (s != NULL && s < e && *s != close) {
		if (!first) {
			if (*s != ',')
				return NULL;
			s = ws(s + 1, e);
		}
		if (close == '}') {
			s = string(s, e);
			if (s == NULL)
				return NULL;
			s = ws(s, e);
			if (s >= e || *s != ':')
				return NULL;
			s = ws(s + 1, e);
		}
		s = value(s, e, depth + 1);
		if (s != NULL)
			s = ws(s, e);
		first = 0;
	}
	return s != NULL && s < e ? s + 1 : NULL;
}

static const char *
value(const char *s, const char *e, int depth)
{
	if (s == NULL || s >= e || depth > 16)
		return NULL;
	switch (*s) {
	case '{':
		return compound(s, e, depth, '}');
	case '[':
		return compound(s, e, depth, ']');
	case '"':
		return string(s, e);
	case 't':
		return word(s, e, "true");
	case 'f':
		return word(s, e, "false");
	case 'n':
		return word(s, e, "null");
	default:
		return number(s, e);
	}
}

/* ---- the target ---- */

struct in {
	const char	*s, *end;
};

static const char *
next(struct in *in)
{
	const char *r = in->s;

	if (in->s > in->end)
		return NULL;
	in->s += strlen(in->s) + 1;
	return r;
}

/* Mixed case and a digit: no key, reason or stamp the writer emits looks so. */
static int
distinctive(const char *v)
{
	int up = 0, lo = 0, dig = 0;
	size_t n = 0;

	for (; *v != '\0'; v++, n++) {
		if (!isalnum((unsigned char)*v))
			return 0;
		up |= isupper((unsigned char)*v) != 0;
		lo |= islower((unsigned char)*v) != 0;
		dig |= isdigit((unsigned char)*v) != 0;
	}
	return n >= 6 && up && lo && dig;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct es_audit a;
	struct es_verdict v[MAXV];
	char *argv[64], *envp[MAXV], *in_buf, *out, *dec;
	const char *hook, *action, *path, *reason, *would, *s, *end;
	struct in in;
	size_t len, n = 0, argc = 0, i, j, dlen;
	unsigned flags;
	long r;

	if (size < 3)
		return 0;
	len = ((size_t)data[0] << 8 | data[1]) % (ES_LOG_LINE + 1);
	flags = data[2];
	in_buf = malloc(size - 3 + 2);
	memcpy(in_buf, data + 3, size - 3);
	in_buf[size - 3] = in_buf[size - 2] = '\0';
	in.s = in_buf;
	in.end = in_buf + size - 3;
	hook = next(&in);
	action = next(&in);
	path = next(&in);
	reason = next(&in);
	would = next(&in);
	if (would == NULL)
		goto done;
	while ((s = next(&in)) != NULL && s[0] != '\0' && argc < 63)
		argv[argc++] = (char *)s;
	argv[argc] = NULL;
	while ((s = next(&in)) != NULL && n < MAXV) {
		if (s[0] == '\0')
			continue;
		v[n].action = (unsigned char)((unsigned char)s[0] % 3);
		v[n].reason = (unsigned char)(((unsigned char)s[0] >> 2) % ES_R__COUNT);
		envp[n++] = (char *)s + 1;
	}
	memset(&a, 0, sizeof(a));
	a.time_ms = (long long)((flags & 0x40) ? -1 : 1) * (long long)size * 86400000LL * 367;
	a.pid = (long)size * ((flags & 0x80) ? -1 : 1);
	a.ppid = 1;
	a.hook = hook;
	a.path = path;
	a.argv = (flags & 0x20) ? NULL : argv;
	/* without an argv its strings are a sandbox's hidden paths, path the home */
	if (flags & 0x20) {
		a.hidden = (const char *const *)argv;
		a.nhidden = argc;
		a.home = path;
	}
	a.action = action;
	a.would = (flags & 0x01) ? would : NULL;
	a.reason = (flags & 0x02) ? reason : NULL;
	a.inside = (flags & 0x04) != 0;
	a.agent = (flags & 0x08) != 0;
	a.audit_mode = (flags & 0x01) != 0;
	a.envp = envp;
	a.n = n;
	a.v = (flags & 0x10) ? NULL : v;
	a.p = NULL;

	out = malloc(len > 0 ? len : 1);
	r = es_audit_format(&a, out, len);
	if (len < 256) {
		FZ_ASSERT(r == -1);
		goto done_out;
	}
	FZ_ASSERT(r > 0 && (size_t)r <= len);
	FZ_ASSERT(out[r - 1] == '\n');
	for (i = 0; i < (size_t)r - 1; i++)
		FZ_ASSERT(out[i] >= 0x20 && out[i] < 0x7f);
	end = value(out, out + r - 1, 0);
	if (out[0] != '{' || end != out + r - 1) {
		fprintf(stderr, "not one JSON object: %.*s\n", (int)r, out);
		abort();
	}
	/* Values never appear (checked where the text cannot come from elsewhere). */
	if ((dec = malloc((size_t)r)) == NULL)
		goto done_out;
	dlen = decode(out, (size_t)r, dec);
	for (i = 0; i < n; i++) {
		const char *eq = strchr(envp[i], '='), *val;
		int elsewhere = 0;

		if (eq == NULL || v[i].reason == ES_R_MALFORMED)
			val = envp[i];
		else
			val = eq + 1;
		if (!distinctive(val))
			continue;
		elsewhere = strstr(hook, val) || strstr(action, val) ||
		    strstr(path, val) || strstr(reason, val) || strstr(would, val);
		for (j = 0; j < argc && !elsewhere; j++)
			elsewhere = strstr(argv[j], val) != NULL;
		for (j = 0; j < n && !elsewhere; j++) {
			const char *e2 = strchr(envp[j], '=');
			size_t nl = e2 != NULL ? (size_t)(e2 - envp[j]) : strlen(envp[j]);

			elsewhere = memmem(envp[j], nl, val, strlen(val)) != NULL;
		}
		if (!elsewhere && memmem(dec, dlen, val, strlen(val)) != NULL) {
			fprintf(stderr, "a value reached the record: %.*s\n",
			    (int)r, out);
			abort();
		}
	}
	free(dec);
done_out:
	free(out);
done:
	free(in_buf);
	return 0;
}
