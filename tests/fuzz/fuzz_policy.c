/*
 * fuzz_policy - the policy parser and printer.
 *
 * The input is up to six layers of policy text separated by NUL bytes.
 * Whatever parses must print as text that parses back to a policy that
 * prints the same: that text is what a launch root hands every child in
 * ENVSHIM_CONFIG, so a difference would be a child enforcing another
 * policy than the agent's.  Printing into short buffers must never write
 * past them.
 */
#include <string.h>

#include "es_policy.h"
#include "fuzz.h"

#define MAXLAYERS	6
#define OUTMAX		(4 * ES_POLICY_ARENA)

static struct es_policy p, q;
static char t1[OUTMAX], t2[OUTMAX];

/* A format into a buffer of exactly n bytes, so ASan sees any overrun. */
static void
format_short(const struct es_policy *pol, unsigned int flags, size_t n,
    long full)
{
	char *b = malloc(n > 0 ? n : 1);
	long r;

	r = es_policy_format(pol, flags, b, n);
	FZ_ASSERT(r == -1 || r == full);
	FZ_ASSERT(r == -1 || (size_t)r < n);
	if (r >= 0)
		FZ_ASSERT(b[r] == '\0');
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[MAXLAYERS] = {
		"fuzz0", "fuzz1", "fuzz2", "fuzz3", "fuzz4", "fuzz5"
	};
	struct es_parse_err err;
	const char *s = (const char *)data, *end = s + size;
	long n1, n2, nb;
	int layer;

	es_policy_init(&p);
	for (layer = 0; layer < MAXLAYERS && s <= end; layer++) {
		const char *z = memchr(s, '\0', (size_t)(end - s));
		size_t len = z != NULL ? (size_t)(z - s) : (size_t)(end - s);

		memset(&err, 0, sizeof(err));
		if (es_policy_parse(&p, s, len, names[layer], &err) != 0) {
			/* An error names its layer and says what is wrong. */
			FZ_ASSERT(err.file != NULL);
			FZ_ASSERT(memchr(err.what, '\0', sizeof(err.what)) != NULL);
			FZ_ASSERT(err.what[0] != '\0');
			return 0;
		}
		if (z == NULL)
			break;
		s = z + 1;
	}
	FZ_ASSERT(p.nrules <= ES_MAX_RULES && p.nsets <= ES_MAX_SETS);
	FZ_ASSERT(p.arena_used <= ES_POLICY_ARENA);

	n1 = es_policy_format(&p, 0, t1, sizeof(t1));
	FZ_ASSERT(n1 >= 0);
	FZ_ASSERT((size_t)n1 == strlen(t1));
	nb = es_policy_format(&p, ES_FMT_BUILTIN | ES_FMT_ORIGIN, t2, sizeof(t2));
	FZ_ASSERT(nb >= n1);
	format_short(&p, ES_FMT_BUILTIN | ES_FMT_ORIGIN, (size_t)data[0] *
	    (size_t)nb / 256, nb);
	format_short(&p, 0, (size_t)n1 + 1, n1);
	format_short(&p, 0, (size_t)n1, n1);

	/* A child gets at most one file's worth (the root refuses more). */
	if (n1 > ES_POLICY_TEXT_MAX)
		return 0;
	es_policy_init(&q);
	memset(&err, 0, sizeof(err));
	if (es_policy_parse(&q, t1, (size_t)n1, "ENVSHIM_CONFIG", &err) != 0) {
		fprintf(stderr, "printed policy does not parse back: %s:%u: %s\n"
		    "---\n%s---\n", err.file, err.line, err.what, t1);
		abort();
	}
	n2 = es_policy_format(&q, 0, t2, sizeof(t2));
	if (n2 != n1 || memcmp(t1, t2, (size_t)n1) != 0) {
		fprintf(stderr, "round trip differs\n--- first\n%s--- second\n%s",
		    t1, t2);
		abort();
	}
	FZ_ASSERT(q.nrules == p.nrules && q.nsets == p.nsets &&
	    q.nrw == p.nrw && q.nro == p.nro && q.nhide == p.nhide &&
	    q.nshells == p.nshells);
	FZ_ASSERT(q.mode == p.mode && q.sandbox == p.sandbox &&
	    q.unfollowable == p.unfollowable && q.network == p.network &&
	    q.protect_self == p.protect_self && q.log == p.log);
	return 0;
}
