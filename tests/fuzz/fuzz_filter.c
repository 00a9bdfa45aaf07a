/*
 * fuzz_filter - the environment filter, with hostile environments.
 *
 * Input: a flags byte, a byte choosing how much of the environment the
 * launch snapshot saw, then NUL-separated entries.  With FL_POLICY the
 * first entry is a policy layer.  An entry of one 0xff byte is a NULL
 * hole in envp (the filter must skip it).
 *
 * Whatever the input, what a child would receive must hold:
 *  - out is NULL-terminated and in bounds (every buffer is exactly sized);
 *  - the forced entries come first, LD_PRELOAD exactly once (the shim's),
 *    no other LD_* or ENVSHIM_* name in any letter case;
 *  - every entry comes from a kept input (the same pointer), a forced
 *    entry, a policy "set", or is a rewrite whose text is a subsequence of
 *    the input it rewrote: no dropped value can reach the child;
 *  - no name twice; every name non-empty;
 *  - malformed entries are dropped;
 *  - under the builtin policy, no kept value (PATH included) has a secret shape.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "es_policy.h"
#include "fuzz.h"

#define FL_POLICY	0x01	/* first entry is policy text */
#define FL_AGENT	0x02	/* ES_F_AGENT */
#define FL_SNAP		0x04	/* take a snapshot of a prefix of envp */
#define FL_NOFORCE	0x08	/* forced = NULL */
#define FL_SHORT	0x10	/* also try an out array one too small */

#define MAXENV		4096

static struct es_policy p;
static char *envp[MAXENV + 1];

static const char *const forced[] = {
	"LD_PRELOAD=/usr/lib/envshim/libenvshim.so",
	"ENVSHIM_CONFIG=sandbox off",
	"ENVSHIM_LAUNCH=0123456789abcdef:0123456789abcdef",
	NULL
};

static size_t
namelen(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq != NULL ? (size_t)(eq - e) : strlen(e);
}

/* Is a (NUL-terminated) a subsequence of b? */
static int
subseq(const char *a, const char *b)
{
	for (; *a != '\0'; a++) {
		b = strchr(b, *a);
		if (b == NULL)
			return 0;
		b++;
	}
	return 1;
}

static int
inside(const void *x, const void *base, size_t len)
{
	const char *c = x, *b = base;

	return c >= b && c < b + len;
}

static void
check(const char **out, long k, size_t n, const struct es_verdict *v,
    const char *const *forc, const void *scratch, size_t scratchlen,
    int builtin_only, int agent)
{
	size_t nf = 0, i, j;
	long o;
	int preload = 0;

	while (forc != NULL && forc[nf] != NULL)
		nf++;
	FZ_ASSERT(out[k] == NULL);
	FZ_ASSERT((size_t)k >= nf);
	for (i = 0; i < nf; i++)
		FZ_ASSERT(out[i] == forc[i]);
	for (i = 0; i < n; i++) {
		FZ_ASSERT(v[i].action <= ES_REWRITE);
		FZ_ASSERT(v[i].reason < ES_R__COUNT);
		FZ_ASSERT(es_reason_name(v[i].reason) != NULL);
		if (envp[i] != NULL && (strchr(envp[i], '=') == NULL ||
		    envp[i][0] == '='))
			FZ_ASSERT(v[i].action == ES_DROP);
	}
	for (o = 0; o < k; o++) {
		const char *e = out[o];
		size_t nl;
		int from = 0;

		FZ_ASSERT(e != NULL);
		nl = namelen(e);
		FZ_ASSERT(nl > 0 && e[nl] == '=');
		if (nl == 10 && memcmp(e, "LD_PRELOAD", 10) == 0)
			preload++;
		if ((size_t)o >= nf) {
			FZ_ASSERT(strncasecmp(e, "LD_", 3) != 0);
			FZ_ASSERT(strncasecmp(e, "ENVSHIM_", 8) != 0);
		}
		/* Where did it come from? */
		if ((size_t)o < nf)
			from = 1;
		for (i = 0; i < n && !from; i++)
			if (e == envp[i]) {
				FZ_ASSERT(v[i].action == ES_KEEP);
				from = 1;
			}
		if (!from && inside(e, p.arena, sizeof(p.arena)))
			from = 1;	/* a policy "set" */
		if (!from && inside(e, scratch, scratchlen)) {
			for (i = 0; i < n && !from; i++)
				if (envp[i] != NULL && v[i].action == ES_REWRITE &&
				    namelen(envp[i]) == nl &&
				    memcmp(envp[i], e, nl) == 0 &&
				    subseq(e + nl, envp[i] + nl))
					from = 1;
		}
		if (!from) {
			fprintf(stderr, "output entry of unknown origin: %.*s\n",
			    (int)nl, e);
			abort();
		}
		/* No name twice: consumers disagree on which copy wins. */
		for (j = 0; j < (size_t)o; j++)
			if (namelen(out[j]) == nl && memcmp(out[j], e, nl) == 0) {
				fprintf(stderr, "name twice in output: %.*s\n",
				    (int)nl, e);
				abort();
			}
		if (builtin_only && !agent && (size_t)o >= nf &&
		    !inside(e, p.arena, sizeof(p.arena)) &&
		    es_secret_value(&p, e + nl + 1, strlen(e + nl + 1), NULL)) {
			fprintf(stderr, "secret-shaped value kept in %.*s\n",
			    (int)nl, e);
			abort();
		}
	}
	if (nf > 0)
		FZ_ASSERT(preload == 1);
	/* Every kept input reaches the child unless a later rule replaced it. */
	for (i = 0; i < n; i++) {
		int seen = 0;

		if (envp[i] == NULL || v[i].action != ES_KEEP)
			continue;
		for (o = 0; o < k; o++)
			if (out[o] == envp[i])
				seen = 1;
		FZ_ASSERT(seen);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct es_parse_err err;
	struct es_snapshot snap;
	struct es_verdict *v;
	const char *const *forc;
	const char **out;
	char *buf, *s, *end;
	void *scratch;
	size_t n = 0, bytes = 0, outcap, scratchlen;
	unsigned flags, cut;
	long k;
	int builtin_only = 1;

	if (size < 2)
		return 0;
	flags = data[0];
	cut = data[1];
	buf = malloc(size - 2 + 1);
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';
	s = buf;
	end = buf + size - 2;
	es_policy_init(&p);
	if (flags & FL_POLICY) {
		size_t len = strlen(s);

		builtin_only = 0;
		if (es_policy_parse(&p, s, len, "fuzz", &err) != 0)
			goto done;
		s += len + 1;
	}
	while (s <= end && n < MAXENV) {
		size_t len = strlen(s);

		if (len == 0 && s == end)
			break;
		envp[n++] = (len == 1 && (unsigned char)s[0] == 0xff) ? NULL : s;
		bytes += len + 1;
		s += len + 1;
	}
	envp[n] = NULL;
	memset(&snap, 0, sizeof(snap));
	if (flags & FL_SNAP) {
		char *saved = NULL;
		size_t m = n > 0 ? cut % (n + 1) : 0;

		/* es_snapshot_take wants a NULL-terminated list. */
		if (m < n) {
			saved = envp[m];
			envp[m] = NULL;
		}
		es_snapshot_take(&p, envp, &snap);
		if (m < n)
			envp[m] = saved;
	}
	forc = (flags & FL_NOFORCE) ? NULL : forced;
	outcap = n + 3 + p.nsets + 1;
	scratchlen = es_filter_scratch(n, bytes);
	out = malloc(outcap * sizeof(*out));
	v = malloc((n > 0 ? n : 1) * sizeof(*v));
	scratch = malloc(scratchlen > 0 ? scratchlen : 1);
	k = es_filter(&p, (flags & FL_SNAP) ? &snap : NULL,
	    (flags & FL_AGENT) ? ES_F_AGENT : 0, envp, n, forc, out, outcap,
	    v, scratch, scratchlen);
	FZ_ASSERT(k >= 0 && (size_t)k < outcap);
	check(out, k, n, v, forc, scratch, scratchlen, builtin_only,
	    (flags & FL_AGENT) != 0);
	if ((flags & FL_SHORT) && k > 0) {
		/* One slot too few: an error, never a write past the end. */
		const char **small = malloc((size_t)k * sizeof(*small));

		FZ_ASSERT(es_filter(&p, (flags & FL_SNAP) ? &snap : NULL,
		    (flags & FL_AGENT) ? ES_F_AGENT : 0, envp, n, forc, small,
		    (size_t)k, v, scratch, scratchlen) == -1);
		free(small);
	}
	free(out);
	free(v);
	free(scratch);
done:
	free(buf);
	return 0;
}
