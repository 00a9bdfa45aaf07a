/*
 * pkg.c - the "optionalDependencies" of an npm package.json: the platform
 * packages an agent's launcher hands itself over to.  Reads exactly
 * enough JSON to skip what it does not want; bounded nesting, no
 * allocation, no I/O.
 */
#include <string.h>

#include "es_limits.h"
#include "es_pkg.h"

struct js {
	const char	*p, *end;
};

static void
blank(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* A string at j->p; its raw bytes (escapes left as they are) in s, n. */
static int
string(struct js *j, const char **s, size_t *n)
{
	const char *q;

	if (j->p >= j->end || *j->p != '"')
		return -1;
	for (q = ++j->p; q < j->end && *q != '"'; q++)
		if (*q == '\\' && ++q == j->end)
			return -1;
	if (q >= j->end)
		return -1;
	*s = j->p;
	*n = (size_t)(q - j->p);
	j->p = q + 1;
	return 0;
}

/* Skips one value of any kind, nesting at most depth deep. */
static int
skip(struct js *j, int depth)
{
	const char *s;
	size_t n;
	char close;

	blank(j);
	if (j->p >= j->end)
		return -1;
	if (*j->p == '"')
		return string(j, &s, &n);
	if (*j->p != '{' && *j->p != '[') {
		/* A number, true, false or null: up to the next delimiter. */
		while (j->p < j->end && strchr(",]} \t\r\n", *j->p) == NULL)
			j->p++;
		return 0;
	}
	if (depth == 0)
		return -1;
	close = *j->p == '{' ? '}' : ']';
	j->p++;
	for (;;) {
		blank(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		if (close == '}') {
			if (string(j, &s, &n) != 0)
				return -1;
			blank(j);
			if (j->p >= j->end || *j->p++ != ':')
				return -1;
		}
		if (skip(j, depth - 1) != 0)
			return -1;
		blank(j);
		if (j->p < j->end && *j->p == ',')
			j->p++;
		else if (j->p >= j->end || *j->p != close)
			return -1;
	}
}

/* A name npm could have installed: "name" or "@scope/name". */
static int
npm_name(const char *s, size_t n)
{
	size_t i, slash = 0, seg = 0;

	if (n == 0 || n > 214 || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '/') {
			if (s[0] != '@' || ++slash > 1 || seg < 2 ||
			    i + 1 == n || s[i + 1] == '.')
				return 0;
			seg = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~' ||
		    (c == '@' && i == 0)))
			return 0;
		seg++;
	}
	return s[0] != '@' || slash == 1;
}

int
es_pkg_optional(const char *json, size_t len, char *out, size_t cap, int max)
{
	struct js j = { json, json + len };
	const char *k, *name;
	size_t kn, nn, used = 0;
	int found = 0;

	blank(&j);
	if (j.p >= j.end || *j.p++ != '{')
		return -1;
	for (;;) {
		blank(&j);
		if (j.p < j.end && *j.p == '}')
			return found;
		if (string(&j, &k, &kn) != 0)
			return -1;
		blank(&j);
		if (j.p >= j.end || *j.p++ != ':')
			return -1;
		blank(&j);
		if (kn == 20 && memcmp(k, "optionalDependencies", 20) == 0 &&
		    j.p < j.end && *j.p == '{') {
			j.p++;
			for (;;) {
				blank(&j);
				if (j.p < j.end && *j.p == '}') {
					j.p++;
					break;
				}
				if (string(&j, &name, &nn) != 0)
					return -1;
				blank(&j);
				if (j.p >= j.end || *j.p++ != ':' ||
				    skip(&j, ES_PKG_DEPTH) != 0)
					return -1;
				if (found < max && npm_name(name, nn) &&
				    used + nn + 1 <= cap) {
					memcpy(out + used, name, nn);
					out[used + nn] = '\0';
					used += nn + 1;
					found++;
				}
				blank(&j);
				if (j.p < j.end && *j.p == ',')
					j.p++;
				else if (j.p >= j.end || *j.p != '}')
					return -1;
			}
		} else if (skip(&j, ES_PKG_DEPTH) != 0)
			return -1;
		blank(&j);
		if (j.p < j.end && *j.p == ',')
			j.p++;
		else if (j.p >= j.end || *j.p != '}')
			return -1;
	}
}
