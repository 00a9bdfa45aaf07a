/*
 * names.h - the compiled-in name lists and fast name classification.
 *
 * Internal to the pure engine (policy.c, parse.c, tests).  Every name is
 * compared ASCII case-insensitively.  Lookups go through an open-addressed
 * index, es_names_ix, computed at build time (names_ix.c, `make names-ix`)
 * and pointed to by struct es_policy, so nothing is computed per process.
 */
#ifndef ES_NAMES_H
#define ES_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "es_policy.h"	/* ES_NAMES_IX */

/*
 * All of it is internal to the library: its tables are reached without
 * the GOT and its pointer, which the dynamic linker would relocate.
 */
#pragma GCC visibility push(hidden)

/* Class bits of a name (or of a name component). */
#define ES_NC_INJECTION	0x0001	/* Tier A: always dropped */
#define ES_NC_SECRET	0x0002	/* exact secret name */
#define ES_NC_CAPABILITY 0x0004	/* grants use of a key, socket or daemon */
#define ES_NC_CHANGED	0x0008	/* Tier B: dropped when added/changed */
#define ES_NC_SAFE	0x0010	/* always-keep list (value-checked) */
#define ES_NC_EXEMPT	0x0020	/* never a secret by name */
#define ES_NC_URL	0x0040	/* URL-valued: userinfo is stripped */
#define ES_NC_V_WORD	0x0080	/* value: no '/', no '%' (sudo env_check) */
#define ES_NC_V_TZ	0x0100	/* value: sudo's tz_is_safe */
#define ES_NC_V_ABS	0x0200	/* value: absolute path without ".." */
#define ES_NC_PATH	0x0400	/* PATH: normalised */
#define ES_NC_COMP	0x0800	/* component that makes a secret name */
#define ES_NC_COMP_NF	0x1000	/* the same, unless it is the first one */
#define ES_NC_AUTH	0x2000	/* AUTH: secret together with HEADER */
#define ES_NC_HEADER	0x4000	/* HEADER(S): secret together with AUTH */
#define ES_NC_LOCKED	0x8000	/* ENVSHIM_*: the shim's own */

struct es_name {
	const char	*name;		/* upper case */
	unsigned char	 len;
	unsigned short	 cls;
};

struct es_prefix {
	const char	*pfx;		/* upper case; matches NAME* */
	unsigned char	 len;
	unsigned short	 cls;
};

extern const struct es_name	es_names[];
extern const size_t		es_nnames;
extern const struct es_prefix	es_prefixes[];
extern const size_t		es_nprefixes;

/*
 * The builtin lists as the filter reads them, computed at build time
 * (names_ix.c, `make names-ix`): an open-addressed index of the names
 * that holds each one's hash and length, so a probe rarely touches a
 * name; and the first 16 bytes of every name and prefix as two words,
 * to compare with what es_names_scan keeps of a name.
 */
#define ES_NAMES_MAX	384	/* entries of es_names */
#define ES_PREFIXES_MAX	32	/* entries of es_prefixes */

struct es_names_slot {
	uint32_t	 hash;		/* es_names_hash of the name */
	uint16_t	 name;		/* 1 + its index in es_names; 0: free */
	uint16_t	 len;
};

struct es_names_tables {
	struct es_names_slot	 ix[ES_NAMES_IX];
	uint64_t		 name[ES_NAMES_MAX][2];	/* zero past the name */
	uint64_t		 pfx[ES_PREFIXES_MAX][2];
	uint64_t		 pmask[ES_PREFIXES_MAX][2];	/* its bytes */
};

/* Fills t.  Returns 0, or -1 if a name is listed twice or a list is too long. */
int		es_names_build(struct es_names_tables *t);

/* What es_names_build gives, precomputed (names_ix.c). */
extern const struct es_names_tables	es_names_ix;

/* Case-insensitive hash of a name, eight bytes a step, as the index uses it. */
uint32_t	es_names_hash(const char *s, size_t n);

/* Classes of the exact name (table entry only, no prefixes). */
unsigned	es_names_lookup(const struct es_names_tables *ix, const char *name,
		    size_t len, uint32_t hash);

/* What one pass over a name learns (es_names_scan). */
#define ES_NS_BYTES	64	/* names shorter have masks; others: NB_MANY */
struct es_nscan {
	uint32_t	 hash;		/* es_names_hash of the name */
	unsigned	 bytes;		/* NB_* of its bytes, or-ed */
	uint64_t	 w[2];		/* its first 16 bytes, upper case, zero past it */
	uint64_t	 cut;		/* bit i: name[i] cuts components */
	uint64_t	 kw;		/* bit i: name[i] is K or W */
};
#define NB_CUT		0x01	/* _ - . : / and NUL split components */
#define NB_STOP		0x02	/* '=' and NUL end an envp name */
#define NB_LOW		0x04	/* a-z */
#define NB_KW		0x08	/* K or W: every secret substring has one */
#define NB_ODD		0x10	/* % or ( */
#define NB_MANY		0x40	/* ES_NS_BYTES or longer: no masks */

/*
 * One pass over a name: its hash, its byte classes, where it may split
 * into components and where a secret substring may sit.  Reads the len
 * bytes at name, and no further; with stop set it ends at the first '='
 * or NUL (an envp entry: len is then its strlen).  Returns the length of
 * the name.  The _scalar variant is the reference the SIMD one must
 * equal.  AS-safe.
 */
size_t		es_names_scan(const char *name, size_t len, int stop,
		    struct es_nscan *ns);
size_t		es_names_scan_scalar(const char *name, size_t len, int stop,
		    struct es_nscan *ns);

/*
 * Builtin classes of a whole name: the exact entry, the prefixes, and the
 * shapes (names holding "%%" or "()", CARGO_TARGET_*_RUNNER/_LINKER), which
 * yield ES_NC_INJECTION.  Secret-name heuristics are separate.  AS-safe.
 */
unsigned	es_names_class(const struct es_names_tables *ix, const char *name,
		    size_t len);
/* The same, with the name's es_names_scan at hand. */
unsigned	es_names_class_s(const struct es_names_tables *ix, const char *name,
		    size_t len, const struct es_nscan *ns);

/*
 * Is name a secret by name: exact list, *_DSN, the high-precision
 * substrings, or a secret component; minus the exemptions.  AS-safe.
 */
int		es_names_secret(const struct es_names_tables *ix, const char *name,
		    size_t len, unsigned cls);
int		es_names_secret_s(const struct es_names_tables *ix, const char *name,
		    size_t len, unsigned cls, const struct es_nscan *ns);

/* For the tests: 0 when the first-byte tables agree with the lists. */
int		es_names_selfcheck(void);

/*
 * The builtin lists as policy text: one "KEYWORD NAME  # builtin" line per
 * list entry (keywords injection, secret-name, capability, changed, keep),
 * prefixes as "NAME*", and the rules that are shapes, not names, as "#"
 * comment lines.  Returns the length (without the NUL), or -1 when buf
 * (len bytes) is too small.  buf may be NULL with len 0 to measure.
 */
long		es_names_format(char *buf, size_t len);

/*
 * shapes.c: copies v (len bytes) to out without the userinfo of its URLs
 * ("http://u:p@h" -> "http://h"); out has room for len bytes.  Returns the
 * new length.  AS-safe.
 */
size_t		es_url_strip(const char *v, size_t len, char *out);

/*
 * shapes.c: the builtin shapes alone (no prefilter, no policy literals),
 * and the prefilter: 0 means no builtin shape can match anywhere in the
 * len bytes at v.  The _scalar variant is the reference the SIMD one must
 * equal.  All AS-safe.
 */
int		es_shapes_exact(const char *v, size_t len, const char **what);
int		es_shapes_maybe(const char *v, size_t len);
int		es_shapes_maybe_scalar(const char *v, size_t len);

/* shapes.c, for the tests: the number of shapes, or -1 if a prefilter
 * table misses one of them. */
int		es_shapes_selfcheck(void);

/* ASCII upper case without a locale. */
static inline unsigned char
es_upper(unsigned char c)
{
	return (unsigned char)(c - 32 * ((unsigned)(c - 'a') < 26u));
}

/* Case-insensitive equality of n bytes. */
static inline int
es_ci_eq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (es_upper((unsigned char)a[i]) != es_upper((unsigned char)b[i]))
			return 0;
	return 1;
}

#ifdef __SSE2__
/*
 * The n (< 16) bytes at p in a vector, zero above: a 16-byte load could
 * run past the string into an unmapped page (and sanitizers say so).
 * Overlapping 8- or 4-byte loads stay inside the n bytes.
 */
static inline __m128i
es_load_short(const unsigned char *p, size_t n)
{
	uint64_t lo = 0, hi = 0;
	uint32_t a, b;

	if (n >= 8) {
		memcpy(&lo, p, 8);
		if (n > 8) {
			memcpy(&hi, p + n - 8, 8);
			hi >>= (16 - n) * 8;
		}
	} else if (n >= 4) {
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		lo = a | ((uint64_t)b >> ((8 - n) * 8) << 32);
	} else if (n > 0) {
		lo = p[0] | (uint64_t)p[n / 2] << (n / 2 * 8) |
		    (uint64_t)p[n - 1] << ((n - 1) * 8);
	}
	return _mm_set_epi64x((long long)hi, (long long)lo);
}
#endif

/*
 * The name hash mixes eight upper-cased bytes at a time (the last word
 * zero-filled), so the scan can feed it whole words of a vector.
 */
#define ES_NHASH_SEED	0x6a09e667f3bcc908ULL

static inline uint64_t
es_nhash_mix(uint64_t h)
{
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 32);
}

static inline uint32_t
es_nhash_final(uint64_t h, size_t n)
{
	return (uint32_t)es_nhash_mix(h ^ (uint64_t)n);
}

/* What a scan found. */
static inline void
es_nscan_end(struct es_nscan *ns, uint64_t h, size_t i, unsigned acc)
{
	if (i >= ES_NS_BYTES)
		acc |= NB_MANY;
	ns->hash = es_nhash_final(h, i);
	ns->bytes = acc & (NB_LOW | NB_ODD | NB_MANY);
}

#ifdef __SSE2__
/*
 * es_names_scan, 16 bytes a step: where the name stops, its lower-case,
 * cut, K/W and odd bytes as bit masks, and the hash from the upper-cased
 * vector, eight bytes at a time.  Reads no byte at or past len.  Here,
 * inline, so that the filter's loop over envp keeps it in registers.
 */
static inline size_t
es_names_scan_i(const char *name, size_t len, int stop, struct es_nscan *ns)
{
	static const unsigned char head[32] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	const unsigned char *v = (const unsigned char *)name;
	uint64_t h = ES_NHASH_SEED, lo, hi;
	unsigned acc = 0;
	size_t i;

	ns->cut = ns->kw = 0;

	for (i = 0;; i += 16) {
		size_t avail = len - i;
		unsigned end, in, m;
		__m128i x, low, odd, d, up;

		if (avail >= 16) {
			x = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
			end = 16;
		} else {
			x = es_load_short(v + i, avail);
			end = (unsigned)avail;
		}
		if (stop) {
			m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			    _mm_cmpeq_epi8(x, _mm_set1_epi8('=')),
			    _mm_cmpeq_epi8(x, _mm_setzero_si128())));
			if ((m & ((1u << end) - 1)) != 0)
				end = (unsigned)__builtin_ctz(m);
		}
		in = (1u << end) - 1;
		low = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('a' - 1)),
		    _mm_cmplt_epi8(x, _mm_set1_epi8('z' + 1)));
		odd = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('%')),
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('(')));
		/* both are rare: one test for the two */
		if ((unsigned)_mm_movemask_epi8(_mm_or_si128(low, odd)) & in) {
			if ((unsigned)_mm_movemask_epi8(low) & in)
				acc |= NB_LOW;
			if ((unsigned)_mm_movemask_epi8(odd) & in)
				acc |= NB_ODD;
		}
		/* - . / are 0x2d to 0x2f: one subtraction and a minimum */
		d = _mm_sub_epi8(x, _mm_set1_epi8('-'));
		m = (unsigned)_mm_movemask_epi8(
		    _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d,
		    _mm_set1_epi8(2)), d), _mm_or_si128(
		    _mm_cmpeq_epi8(x, _mm_set1_epi8('_')),
		    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(':')),
		    _mm_cmpeq_epi8(x, _mm_setzero_si128()))))) & in;
		up = _mm_or_si128(x, _mm_set1_epi8(0x20));
		if (i < ES_NS_BYTES) {
			ns->cut |= (uint64_t)m << i;
			ns->kw |= (uint64_t)((unsigned)_mm_movemask_epi8(
			    _mm_or_si128(_mm_cmpeq_epi8(up, _mm_set1_epi8('k')),
			    _mm_cmpeq_epi8(up, _mm_set1_epi8('w')))) & in) << i;
		}
		/* upper case, and nothing past the name */
		x = _mm_and_si128(_mm_sub_epi8(x, _mm_and_si128(low,
		    _mm_set1_epi8(0x20))), _mm_loadu_si128((const __m128i *)
		    (const void *)(head + 16 - end)));
		lo = (uint64_t)_mm_cvtsi128_si64(x);
		hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x));
		if (i == 0) {
			ns->w[0] = lo;
			ns->w[1] = hi;
		}
		if (end > 0)
			h = es_nhash_mix(h ^ lo);
		if (end > 8)
			h = es_nhash_mix(h ^ hi);
		if (end < 16 || avail == 16) {
			i += end;
			break;
		}
	}
	es_nscan_end(ns, h, i, acc);
	return i;
}
#else
static inline size_t
es_names_scan_i(const char *name, size_t len, int stop, struct es_nscan *ns)
{
	return es_names_scan_scalar(name, len, stop, ns);
}
#endif

/*
 * The prefixes (bits: their index in es_prefixes) that start with this
 * byte, upper case, and CARGO_TARGET_<triple>_RUNNER / _LINKER: for
 * es_names_class_i.
 */
extern const uint32_t	es_pfx_first[256];
int		es_names_cargo_tool(const char *name, size_t len);

/* Does name equal the upper-case table entry u, ignoring case? */
static inline int
es_upper_eq(const char *u, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)u[i] != es_upper((unsigned char)name[i]))
			return 0;
	return 1;
}

/* es_names_lookup for a whole name with its scan: words, not bytes. */
static inline unsigned
es_names_lookup_i(const struct es_names_tables *ix, const char *name,
    size_t len, const struct es_nscan *ns)
{
	size_t slot = ns->hash & (ES_NAMES_IX - 1);
	const struct es_names_slot *e;

	for (; (e = &ix->ix[slot])->name != 0; slot = (slot + 1) &
	    (ES_NAMES_IX - 1)) {
		const uint64_t *w = ix->name[e->name - 1];

		if (e->hash == ns->hash && e->len == len && w[0] == ns->w[0] &&
		    w[1] == ns->w[1] && (len <= 16 ||
		    es_upper_eq(es_names[e->name - 1].name + 16, name + 16,
		    len - 16)))
			return es_names[e->name - 1].cls;
	}
	return 0;
}

/* es_names_class_s, inline in the filter's loop over envp. */
static inline unsigned
es_names_class_i(const struct es_names_tables *ix, const char *name,
    size_t len, const struct es_nscan *ns)
{
	unsigned cls;
	size_t i;
	uint32_t m;

	cls = es_names_lookup_i(ix, name, len, ns);
	cls &= ~(unsigned)(ES_NC_COMP | ES_NC_COMP_NF | ES_NC_AUTH |
	    ES_NC_HEADER);
	if (len == 0)
		return cls;
	for (m = es_pfx_first[ns->w[0] & 0xff]; m != 0; m &= m - 1) {
		size_t k = (size_t)__builtin_ctz(m);
		const struct es_prefix *e = &es_prefixes[k];

		if ((ns->w[0] & ix->pmask[k][0]) == ix->pfx[k][0] &&
		    (ns->w[1] & ix->pmask[k][1]) == ix->pfx[k][1] &&
		    len >= e->len && (e->len <= 16 ||
		    es_upper_eq(e->pfx + 16, name + 16, e->len - 16)))
			cls |= e->cls;
	}
	if (ns->bytes & NB_ODD)
		for (i = 0; i + 1 < len; i++)
			if ((name[i] == '%' && name[i + 1] == '%') ||
			    (name[i] == '(' && name[i + 1] == ')'))
				return cls | ES_NC_INJECTION;
	if (es_upper((unsigned char)name[0]) == 'C' &&
	    es_names_cargo_tool(name, len))
		cls |= ES_NC_INJECTION;
	return cls;
}

#pragma GCC visibility pop

#endif
