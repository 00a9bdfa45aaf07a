/*
 * shapes.c - secret values by shape (research: env-lists.md section 7a,
 * rows 1-33): fixed prefixes with exact charsets and lengths, URL userinfo,
 * PEM private-key headers and JWTs.  No regex library and no entropy
 * guessing: a shape either matches somewhere in the value or it does not.
 *
 * Speed: a prefilter (es_shapes_maybe, 64 bytes a step where SSE2 is
 * there) clears almost every value without looking at shapes.  The rest
 * is scanned position by position: a first-byte and a second-byte table
 * (bit sets of the shapes whose anchor starts with that pair) reject most
 * positions with two loads; only a hit runs the shape's check.  Pure and
 * AS-safe.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "es_policy.h"
#include "names.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Character classes; a charset is a mask of them. */
#define D	0x001	/* 0-9 */
#define U	0x002	/* A-Z */
#define L	0x004	/* a-z */
#define US	0x008	/* _ */
#define DA	0x010	/* - */
#define HL	0x020	/* a-f */
#define HU	0x040	/* A-F */
#define PS	0x080	/* + / */
#define EQ	0x100	/* = */
#define DT	0x200	/* . */
#define TL	0x400	/* ~ */
#define B32	0x800	/* 2-7 (with U: base32) */
#define BS	0x1000	/* backslash */
#define SL	0x2000	/* / alone */

#define ALNUM	(D | U | L)
#define WORD	(D | U | L | US)
#define WORDDA	(D | U | L | US | DA)
#define HEXL	(D | HL)
#define HEX	(D | HL | HU)

static unsigned
cbits(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return D | ((c >= '2' && c <= '7') ? B32 : 0);
	if (c >= 'a' && c <= 'z')
		return L | (c <= 'f' ? HL : 0);
	if (c >= 'A' && c <= 'Z')
		return U | (c <= 'F' ? HU : 0);
	switch (c) {
	case '_':
		return US;
	case '-':
		return DA;
	case '+':
		return PS;
	case '/':
		return PS | SL;
	case '=':
		return EQ;
	case '.':
		return DT;
	case '~':
		return TL;
	case '\\':
		return BS;
	default:
		return 0;
	}
}

/* Are the n bytes at v[i] all in charset cs (and inside the value)? */
static int
all_in(const char *v, size_t len, size_t i, unsigned cs, size_t n)
{
	size_t k;

	if (i > len || len - i < n)
		return 0;
	for (k = 0; k < n; k++)
		if (!(cbits((unsigned char)v[i + k]) & cs))
			return 0;
	return 1;
}

/* Length of the run of charset cs at v[i], stopping at max. */
static size_t
run(const char *v, size_t len, size_t i, unsigned cs, size_t max)
{
	size_t k = 0;

	while (i + k < len && k < max && (cbits((unsigned char)v[i + k]) & cs))
		k++;
	return k;
}

static int
lit(const char *v, size_t len, size_t i, const char *s, size_t n, int ci)
{
	if (i > len || len - i < n)
		return 0;
	return ci ? es_ci_eq(v + i, s, n) : memcmp(v + i, s, n) == 0;
}

enum {
	SH_AKIA, SH_ASIA, SH_ABIA, SH_ACCA, SH_A3T,
	SH_GHP, SH_GHO, SH_GHU, SH_GHS, SH_GHR, SH_GHPAT,
	SH_GLPAT, SH_GLRT, SH_GLDT, SH_GLPTT,
	SH_XOXB, SH_XOXP, SH_XOXE, SH_XOXO, SH_XOXS, SH_XAPP, SH_XOXEX,
	SH_SLACKHOOK, SH_SKDASH, SH_AIZA, SH_STRIPE_SK, SH_STRIPE_RK,
	SH_NPM, SH_PYPI, SH_HF, SH_JWT, SH_PEM, SH_AGE, SH_DOP,
	SH_SHPAT, SH_SHPSS, SH_SG, SH_DAPI, SH_HVS, SH_ATLAS, SH_ATATT,
	SH_LIN, SH_PMAK, SH_PUL, SH_DPPT, SH_GLC, SH_OPS, SH_HRKU, SH_PPLX,
	SH_NTN, SH_RUBYGEMS, SH_SNTRYU, SH_SNTRYS, SH_FO1, SH_FM2,
	SH_AZURE, SH_URL,
	SH__COUNT
};

struct shape {
	const char	*what;
	const char	*pfx;		/* the anchor, at the scanned position */
	unsigned char	 plen;
	unsigned char	 ci;		/* anchor compares case-insensitively */
	unsigned short	 cs;		/* generic: charset after the anchor */
	unsigned short	 min;		/* generic: how many of them */
	unsigned char	 special;	/* checked by special() instead */
};

#define G(id, what, pfx, ci, cs, min) \
	[id] = { what, pfx, sizeof(pfx) - 1, ci, cs, min, 0 }
#define X(id, what, pfx, ci) \
	[id] = { what, pfx, sizeof(pfx) - 1, ci, 0, 0, 1 }

static const struct shape shapes[SH__COUNT] = {
	G(SH_AKIA, "aws-access-token", "AKIA", 0, U | B32, 16),
	G(SH_ASIA, "aws-access-token", "ASIA", 0, U | B32, 16),
	G(SH_ABIA, "aws-access-token", "ABIA", 0, U | B32, 16),
	G(SH_ACCA, "aws-access-token", "ACCA", 0, U | B32, 16),
	X(SH_A3T, "aws-access-token", "A3T", 0),
	G(SH_GHP, "github-pat", "ghp_", 0, ALNUM, 36),
	G(SH_GHO, "github-oauth", "gho_", 0, ALNUM, 36),
	G(SH_GHU, "github-app-token", "ghu_", 0, ALNUM, 36),
	G(SH_GHS, "github-app-token", "ghs_", 0, ALNUM, 36),
	G(SH_GHR, "github-refresh-token", "ghr_", 0, ALNUM, 36),
	G(SH_GHPAT, "github-fine-grained-pat", "github_pat_", 0, WORD, 82),
	G(SH_GLPAT, "gitlab-pat", "glpat-", 0, WORDDA, 20),
	G(SH_GLRT, "gitlab-runner-token", "glrt-", 0, WORDDA, 20),
	G(SH_GLDT, "gitlab-deploy-token", "gldt-", 0, WORDDA, 20),
	G(SH_GLPTT, "gitlab-ptt", "glptt-", 0, HEXL, 40),
	X(SH_XOXB, "slack-bot-token", "xoxb-", 0),
	X(SH_XOXP, "slack-user-token", "xoxp-", 0),
	X(SH_XOXE, "slack-user-token", "xoxe-", 0),
	X(SH_XOXO, "slack-legacy-token", "xoxo-", 0),
	X(SH_XOXS, "slack-legacy-token", "xoxs-", 0),
	X(SH_XAPP, "slack-app-token", "xapp-", 1),
	X(SH_XOXEX, "slack-config-access-token", "xoxe.xox", 1),
	X(SH_SLACKHOOK, "slack-webhook-url", "hooks.slack.com/", 0),
	X(SH_SKDASH, "openai-api-key", "sk-", 0),
	G(SH_AIZA, "gcp-api-key", "AIza", 0, WORDDA, 35),
	X(SH_STRIPE_SK, "stripe-access-token", "sk_", 0),
	X(SH_STRIPE_RK, "stripe-access-token", "rk_", 0),
	G(SH_NPM, "npm-access-token", "npm_", 1, ALNUM, 36),
	G(SH_PYPI, "pypi-upload-token", "pypi-AgEIcHlwaS5vcmc", 0, WORDDA, 50),
	G(SH_HF, "huggingface-access-token", "hf_", 0, U | L, 34),
	X(SH_JWT, "jwt", "ey", 0),
	X(SH_PEM, "private-key", "-----BEGIN", 1),
	X(SH_AGE, "age-secret-key", "AGE-SECRET-KEY-1", 0),
	G(SH_DOP, "digitalocean-pat", "dop_v1_", 0, HEXL, 64),
	G(SH_SHPAT, "shopify-access-token", "shpat_", 0, HEX, 32),
	G(SH_SHPSS, "shopify-shared-secret", "shpss_", 0, HEX, 32),
	G(SH_SG, "sendgrid-api-token", "SG.", 0, ALNUM | EQ | US | DT | DA, 66),
	G(SH_DAPI, "databricks-api-token", "dapi", 0, HEXL, 32),
	G(SH_HVS, "vault-service-token", "hvs.", 0, WORDDA, 90),
	X(SH_ATLAS, "hashicorp-tf-api-token", ".atlasv1.", 1),
	G(SH_ATATT, "atlassian-api-token", "ATATT3", 0, WORDDA | EQ, 186),
	G(SH_LIN, "linear-api-key", "lin_api_", 0, ALNUM, 40),
	X(SH_PMAK, "postman-api-token", "PMAK-", 0),
	G(SH_PUL, "pulumi-api-token", "pul-", 0, HEXL, 40),
	G(SH_DPPT, "doppler-api-token", "dp.pt.", 0, ALNUM, 43),
	G(SH_GLC, "grafana-cloud-api-token", "glc_", 1, ALNUM | PS, 32),
	G(SH_OPS, "1password-service-account-token", "ops_eyJ", 0,
	    ALNUM | PS, 250),
	G(SH_HRKU, "heroku-api-key-v2", "HRKU-AA", 0, WORDDA, 58),
	G(SH_PPLX, "perplexity-api-key", "pplx-", 0, ALNUM, 48),
	X(SH_NTN, "notion-api-token", "ntn_", 0),
	G(SH_RUBYGEMS, "rubygems-api-token", "rubygems_", 0, HEXL, 48),
	G(SH_SNTRYU, "sentry-user-token", "sntryu_", 0, HEXL, 64),
	G(SH_SNTRYS, "sentry-org-token", "sntrys_eyJpYXQiO", 0,
	    ALNUM | PS | EQ | US, 20),
	G(SH_FO1, "flyio-access-token", "fo1_", 0, WORDDA, 43),
	G(SH_FM2, "flyio-access-token", "fm2_", 0, ALNUM | PS, 100),
	X(SH_AZURE, "azure-ad-client-secret", "Q~", 0),
	X(SH_URL, "url-userinfo", "://", 0),
};

#define B(id)	((uint64_t)1 << (id))

/* Shapes whose anchor starts with this byte (both cases where ci). */
static const uint64_t first[256] = {
	['A'] = B(SH_AKIA) | B(SH_ASIA) | B(SH_ABIA) | B(SH_ACCA) | B(SH_A3T) |
	    B(SH_AIZA) | B(SH_AGE) | B(SH_ATATT),
	['g'] = B(SH_GHP) | B(SH_GHO) | B(SH_GHU) | B(SH_GHS) | B(SH_GHR) |
	    B(SH_GHPAT) | B(SH_GLPAT) | B(SH_GLRT) | B(SH_GLDT) |
	    B(SH_GLPTT) | B(SH_GLC),
	['G'] = B(SH_GLC),
	['x'] = B(SH_XOXB) | B(SH_XOXP) | B(SH_XOXE) | B(SH_XOXO) |
	    B(SH_XOXS) | B(SH_XAPP) | B(SH_XOXEX),
	['X'] = B(SH_XAPP) | B(SH_XOXEX),
	['h'] = B(SH_SLACKHOOK) | B(SH_HF) | B(SH_HVS),
	['s'] = B(SH_SKDASH) | B(SH_STRIPE_SK) | B(SH_SHPAT) | B(SH_SHPSS) |
	    B(SH_SNTRYU) | B(SH_SNTRYS),
	['r'] = B(SH_STRIPE_RK) | B(SH_RUBYGEMS),
	['n'] = B(SH_NPM) | B(SH_NTN),
	['N'] = B(SH_NPM),
	['p'] = B(SH_PYPI) | B(SH_PUL) | B(SH_PPLX),
	['P'] = B(SH_PMAK),
	['e'] = B(SH_JWT),
	['-'] = B(SH_PEM),
	['d'] = B(SH_DOP) | B(SH_DAPI) | B(SH_DPPT),
	['S'] = B(SH_SG),
	['.'] = B(SH_ATLAS),
	['l'] = B(SH_LIN),
	['o'] = B(SH_OPS),
	['H'] = B(SH_HRKU),
	['f'] = B(SH_FO1) | B(SH_FM2),
	['Q'] = B(SH_AZURE),
	[':'] = B(SH_URL),
};

/* Shapes whose anchor's second byte is this byte (both cases where ci). */
static const uint64_t second[256] = {
	['K'] = B(SH_AKIA),
	['S'] = B(SH_ASIA),
	['B'] = B(SH_ABIA),
	['C'] = B(SH_ACCA),
	['3'] = B(SH_A3T),
	['I'] = B(SH_AIZA),
	['G'] = B(SH_AGE) | B(SH_SG),
	['T'] = B(SH_ATATT),
	['h'] = B(SH_GHP) | B(SH_GHO) | B(SH_GHU) | B(SH_GHS) | B(SH_GHR) |
	    B(SH_SHPAT) | B(SH_SHPSS),
	['i'] = B(SH_GHPAT) | B(SH_LIN),
	['l'] = B(SH_GLPAT) | B(SH_GLRT) | B(SH_GLDT) | B(SH_GLPTT) |
	    B(SH_GLC),
	['L'] = B(SH_GLC),
	['o'] = B(SH_XOXB) | B(SH_XOXP) | B(SH_XOXE) | B(SH_XOXO) |
	    B(SH_DOP) | B(SH_XOXS) | B(SH_XOXEX) | B(SH_SLACKHOOK) | B(SH_FO1),
	['O'] = B(SH_XOXEX),
	['a'] = B(SH_XAPP) | B(SH_ATLAS) | B(SH_DAPI),
	['A'] = B(SH_XAPP) | B(SH_ATLAS),
	['f'] = B(SH_HF),
	['v'] = B(SH_HVS),
	['k'] = B(SH_SKDASH) | B(SH_STRIPE_SK) | B(SH_STRIPE_RK),
	['n'] = B(SH_SNTRYU) | B(SH_SNTRYS),
	['u'] = B(SH_RUBYGEMS) | B(SH_PUL),
	['p'] = B(SH_NPM) | B(SH_OPS) | B(SH_PPLX) | B(SH_DPPT),
	['P'] = B(SH_NPM),
	['t'] = B(SH_NTN),
	['y'] = B(SH_PYPI) | B(SH_JWT),
	['M'] = B(SH_PMAK),
	['-'] = B(SH_PEM),
	['R'] = B(SH_HRKU),
	['m'] = B(SH_FM2),
	['~'] = B(SH_AZURE),
	['/'] = B(SH_URL),
};

/* Length of a run of lo..hi digits at v[i], or 0. */
static size_t
digits(const char *v, size_t len, size_t i, size_t lo, size_t hi)
{
	size_t k = run(v, len, i, D, hi + 1);

	return (k >= lo && k <= hi) ? k : 0;
}

/* xoxp-/xoxe-: (-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34} */
static int
slack_user(const char *v, size_t len, size_t i)
{
	int k;
	size_t n;

	for (k = 0; k < 3; k++) {
		if ((n = digits(v, len, i, 10, 13)) == 0 || i + n >= len ||
		    v[i + n] != '-')
			return 0;
		i += n + 1;
	}
	return all_in(v, len, i, ALNUM | DA, 28);
}

/* xoxo-/xoxs-: \d+-\d+-\d+-[a-fA-F\d]+ */
static int
slack_legacy(const char *v, size_t len, size_t i)
{
	int k;
	size_t n;

	for (k = 0; k < 3; k++) {
		if ((n = run(v, len, i, D, len)) == 0 || i + n >= len ||
		    v[i + n] != '-')
			return 0;
		i += n + 1;
	}
	return all_in(v, len, i, HEX, 1);
}

/* -----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY( BLOCK)?----- (any case) */
static int
pem(const char *v, size_t len, size_t i)
{
	size_t j, k;

	for (j = 0; j <= 100; j++) {
		if (lit(v, len, i + j, "PRIVATE KEY", 11, 1)) {
			k = i + j + 11;
			if (lit(v, len, k, " BLOCK", 6, 1))
				k += 6;
			if (lit(v, len, k, "-----", 5, 0))
				return 1;
		}
		if (i + j >= len)
			return 0;
		if (v[i + j] != ' ' && !(cbits((unsigned char)v[i + j]) & WORDDA))
			return 0;
	}
	return 0;
}

/* ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9/\\_-]{17,} */
static int
jwt(const char *v, size_t len, size_t i)
{
	size_t n = run(v, len, i, ALNUM, len);

	if (n < 17 || i + n >= len || v[i + n] != '.')
		return 0;
	i += n + 1;
	return lit(v, len, i, "ey", 2, 0) &&
	    all_in(v, len, i + 2, WORDDA | SL | BS, 17);
}

/* OpenAI (sk-proj-, sk-svcacct-, sk-admin-, legacy) and Anthropic. */
static int
sk_dash(const char *v, size_t len, size_t i, const char **what)
{
	static const char *const proj[] = { "proj-", "svcacct-", "admin-" };
	static const size_t plen[] = { 5, 8, 6 };
	size_t k;

	if (lit(v, len, i, "ant-api03-", 10, 0) ||
	    lit(v, len, i, "ant-admin01-", 12, 0)) {
		i += v[i + 4] == 'a' && v[i + 5] == 'p' ? 10 : 12;
		if (all_in(v, len, i, WORDDA, 93) &&
		    lit(v, len, i + 93, "AA", 2, 0)) {
			*what = "anthropic-api-key";
			return 1;
		}
		return 0;
	}
	for (k = 0; k < 3; k++) {
		size_t j = i + plen[k];

		if (!lit(v, len, i, proj[k], plen[k], 0))
			continue;
		if ((all_in(v, len, j, WORDDA, 58) &&
		    lit(v, len, j + 58, "T3BlbkFJ", 8, 0) &&
		    all_in(v, len, j + 66, WORDDA, 58)) ||
		    (all_in(v, len, j, WORDDA, 74) &&
		    lit(v, len, j + 74, "T3BlbkFJ", 8, 0) &&
		    all_in(v, len, j + 82, WORDDA, 58)))
			return 1;
		return 0;
	}
	return all_in(v, len, i, ALNUM, 20) &&
	    lit(v, len, i + 20, "T3BlbkFJ", 8, 0) &&
	    all_in(v, len, i + 28, ALNUM, 20);
}

/*
 * scheme://user:pass@ in any scheme: the userinfo of the authority (up to
 * the first / ? # or blank) holds a ':' followed by a password.  Returns
 * the end of the userinfo (the '@') or 0.  i is the ':' of "://".
 */
static size_t
userinfo(const char *v, size_t len, size_t i)
{
	size_t j, at = 0, colon = 0;

	if (i == 0 || !(cbits((unsigned char)v[i - 1]) & (ALNUM | PS | DT | DA)))
		return 0;
	for (j = i + 3; j < len; j++) {
		unsigned char c = (unsigned char)v[j];

		if (c == '/' || c == '?' || c == '#' || c <= ' ' || c == 0x7f)
			break;
		if (c == '@')
			at = j;
		else if (c == ':' && colon == 0 && at == 0)
			colon = j;
	}
	if (at == 0 || colon == 0 || colon > at || colon + 1 == at)
		return 0;
	return at;
}

static int
special(int id, const char *v, size_t len, size_t i, const char **what)
{
	size_t j = i + shapes[id].plen, n;

	switch (id) {
	case SH_A3T:
		return all_in(v, len, j, D | U, 1) &&
		    all_in(v, len, j + 1, U | B32, 16);
	case SH_XOXB:
		if ((n = digits(v, len, j, 10, 13)) == 0 || j + n >= len ||
		    v[j + n] != '-')
			return 0;
		return digits(v, len, j + n + 1, 10, len) != 0;
	case SH_XOXP:
	case SH_XOXE:
		return slack_user(v, len, j);
	case SH_XOXO:
	case SH_XOXS:
		return slack_legacy(v, len, j);
	case SH_XAPP:
		/* \d-[A-Z0-9]+-\d+-[a-z0-9]+ */
		if (!all_in(v, len, j, D, 1) || !lit(v, len, j + 1, "-", 1, 0))
			return 0;
		j += 2;
		if ((n = run(v, len, j, D | U | L, len)) == 0 ||
		    !lit(v, len, j + n, "-", 1, 0))
			return 0;
		j += n + 1;
		if ((n = run(v, len, j, D, len)) == 0 ||
		    !lit(v, len, j + n, "-", 1, 0))
			return 0;
		return all_in(v, len, j + n + 1, ALNUM, 1);
	case SH_XOXEX:
		/* xoxe.xox[bp]-\d-[A-Z0-9]{163,166}, any case */
		if (j >= len || (es_upper((unsigned char)v[j]) != 'B' &&
		    es_upper((unsigned char)v[j]) != 'P'))
			return 0;
		return lit(v, len, j + 1, "-", 1, 0) &&
		    all_in(v, len, j + 2, D, 1) &&
		    lit(v, len, j + 3, "-", 1, 0) &&
		    all_in(v, len, j + 4, ALNUM, 163);
	case SH_SLACKHOOK:
		if (lit(v, len, j, "services/", 9, 0))
			j += 9;
		else if (lit(v, len, j, "workflows/", 10, 0))
			j += 10;
		else if (lit(v, len, j, "triggers/", 9, 0))
			j += 9;
		else
			return 0;
		return all_in(v, len, j, ALNUM | PS, 43);
	case SH_SKDASH:
		return sk_dash(v, len, j, what);
	case SH_STRIPE_SK:
	case SH_STRIPE_RK:
		if (!lit(v, len, j, "test_", 5, 0) &&
		    !lit(v, len, j, "live_", 5, 0) &&
		    !lit(v, len, j, "prod_", 5, 0))
			return 0;
		return all_in(v, len, j + 5, ALNUM, 10);
	case SH_JWT:
		return jwt(v, len, j);
	case SH_PEM:
		return pem(v, len, j);
	case SH_AGE:
		for (n = 0; n < 58; n++) {
			if (j + n >= len || v[j + n] == '\0' ||
			    strchr("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
			    v[j + n]) == NULL)
				return 0;
		}
		return 1;
	case SH_ATLAS:
		/* [a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}, any case */
		return i >= 14 && all_in(v, len, i - 14, ALNUM, 14) &&
		    all_in(v, len, j, ALNUM | US | EQ | DA, 60);
	case SH_PMAK:
		return all_in(v, len, j, HEX, 24) &&
		    lit(v, len, j + 24, "-", 1, 0) &&
		    all_in(v, len, j + 25, HEX, 34);
	case SH_NTN:
		return all_in(v, len, j, D, 11) &&
		    all_in(v, len, j + 11, ALNUM, 35);
	case SH_AZURE:
		/* [a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34} */
		return i >= 4 && all_in(v, len, i - 1, D, 1) &&
		    all_in(v, len, i - 4, WORD | TL | DT, 3) &&
		    all_in(v, len, j, WORDDA | TL | DT, 31);
	case SH_URL:
		return userinfo(v, len, i) != 0;
	default:
		return 0;
	}
}

/* Does shape id match at v[i]?  Sets *what. */
static int
match_at(int id, const char *v, size_t len, size_t i, const char **what)
{
	const struct shape *s = &shapes[id];

	if (!lit(v, len, i, s->pfx, s->plen, s->ci))
		return 0;
	*what = s->what;
	if (s->special)
		return special(id, v, len, i, what);
	return all_in(v, len, i + s->plen, s->cs, s->min);
}

/* A policy's secret-value literal: plain case-sensitive substring. */
static int
has_literal(const char *v, size_t len, const char *pat, size_t plen)
{
	size_t i;

	if (plen == 0 || plen > len)
		return 0;
	for (i = 0; i + plen <= len; i++)
		if (v[i] == pat[0] && memcmp(v + i, pat, plen) == 0)
			return 1;
	return 0;
}

/*
 * The builtin shapes alone, position by position: the first match (lowest
 * start, then lowest shape) wins, so *what is the same whoever asks.
 */
int
es_shapes_exact(const char *value, size_t len, const char **what)
{
	const unsigned char *v = (const unsigned char *)value;
	const char *w = NULL;
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		uint64_t m = first[v[i]];

		if (m == 0 || (m &= second[v[i + 1]]) == 0)
			continue;
		while (m != 0) {
			int id = __builtin_ctzll(m);

			m &= m - 1;
			if (match_at(id, value, len, i, &w)) {
				if (what != NULL)
					*what = w;
				return 1;
			}
		}
	}
	return 0;
}

/*
 * The prefilter.  Every builtin shape leaves one of these marks in the
 * value (the proof, shape by shape, is in the comment of pf_hit and the
 * unit test that checks it against es_shapes_exact):
 *   - a run of 15 or more bytes none of which breaks a run (PF_BRK:
 *     bytes below '.', '/' ':' ';', and every byte >= 0x80);
 *   - a run of 32 or more where '-' does not break either (sk-proj-,
 *     sk-ant-, hvs., SG., AIza, ATATT3, HRKU-AA, pypi-, fo1_, atlas,
 *     Azure: 37 at the least);
 *   - '@' (URL userinfo);
 *   - '_' after c C s 2 (glc_, ops_eyJ, fm2_: their bodies hold + and /);
 *   - '-' before '-' (PEM), 4 bytes after x or X (xox?- xapp- xoxe.xox?-),
 *     or after "g?t" or "g??t" (glpat- glrt- gldt-).
 * Typical values (paths, LS_COLORS, words, numbers) have none of them, and
 * skip the exact scan, which costs some nine instructions a byte.  Both
 * runs are counted as the bytes go by, so no byte is looked at twice.
 */
#define PF_BRK	1	/* ends a run */
#define PF_HIT	2	/* looked at where it stands */
#define PF_DASH	4	/* '-': ends only the shorter run */
#define PF_RUN	15	/* shortest run that needs the exact scan */
#define PF_DRUN	32	/* the same, with '-' inside runs */

#define Bk	PF_BRK
#define Hd	(PF_BRK | PF_HIT)
#define Hh	PF_HIT
#define Dh	(PF_BRK | PF_HIT | PF_DASH)

static const unsigned char pf[256] = {
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	/* ' ' to '/' */
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Dh, 0, Bk,
	/* '0' to '?' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Bk, Bk, 0, 0, 0, 0,
	/* '@' to 'O' */
	Hh, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 'P' to '_' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Hh,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
	Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk, Bk,
};

#undef Bk
#undef Hd
#undef Hh
#undef Dh

/* A mark byte at v[k]: does it need the exact scan? */
static inline int
pf_hit(const unsigned char *v, size_t len, size_t k)
{
	switch (v[k]) {
	case '@':
		return 1;
	case '_':
		return k > 0 && (v[k - 1] == 'c' || v[k - 1] == 'C' ||
		    v[k - 1] == 's' || v[k - 1] == '2');
	default:	/* '-' */
		return (k + 1 < len && v[k + 1] == '-') ||
		    (k >= 4 && (v[k - 4] | 0x20) == 'x') ||
		    (k >= 4 && v[k - 1] == 't' && (v[k - 4] == 'g' ||
		    (k >= 5 && v[k - 5] == 'g')));
	}
}

int
es_shapes_maybe_scalar(const char *value, size_t len)
{
	const unsigned char *v = (const unsigned char *)value;
	size_t i, start = 0, dstart = 0;

	for (i = 0; i < len; i++) {
		unsigned k = pf[v[i]];

		if (k == 0)
			continue;
		if ((k & PF_HIT) && pf_hit(v, len, i))
			return 1;
		if (k & PF_BRK) {
			if (i - start >= PF_RUN)
				return 1;
			start = i + 1;
		}
		if ((k & (PF_BRK | PF_DASH)) == PF_BRK) {
			if (i - dstart >= PF_DRUN)
				return 1;
			dstart = i + 1;
		}
	}
	return len - start >= PF_RUN || len - dstart >= PF_DRUN;
}

#ifdef __SSE2__
/* Bit j set: bits j to j + 14 of w all set (a run of 15). */
static inline uint64_t
runs15(uint64_t w)
{
	w &= w >> 1;
	w &= w >> 2;
	w &= w >> 4;
	return w & (w >> 7);
}

/* The same for a run of 32. */
static inline uint64_t
runs32(uint64_t w)
{
	w &= w >> 1;
	w &= w >> 2;
	w &= w >> 4;
	w &= w >> 8;
	return w & (w >> 16);
}

/*
 * The breaks, dashes and marks of 16 bytes at x, one bit each, the first
 * shift bytes dropped, or-ed in at bit at of *mb, *md and *mh.
 */
static inline void
pf_block(__m128i x, unsigned shift, unsigned at, uint64_t *mb, uint64_t *md,
    uint64_t *mh)
{
	const __m128i dash = _mm_cmpeq_epi8(x, _mm_set1_epi8('-'));

	/* signed: bytes >= 0x80 are below '.' too */
	*mb |= (uint64_t)((unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmplt_epi8(x, _mm_set1_epi8('.')),
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')),
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(':')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8(';')))))) >> shift) << at;
	*md |= (uint64_t)((unsigned)_mm_movemask_epi8(dash) >> shift) << at;
	*mh |= (uint64_t)((unsigned)_mm_movemask_epi8(_mm_or_si128(dash,
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('_')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('@'))))) >> shift) << at;
}

/*
 * 64 bytes at v[i] as masks: the marks, then the runs inside them by
 * shifts and ands, and across steps by the run each step ends with.
 */
static inline __attribute__((always_inline)) int
pf_step(const unsigned char *v, size_t len, size_t i, uint64_t mb,
    uint64_t md, uint64_t mh, size_t *run, size_t *drun)
{
	for (; mh != 0; mh &= mh - 1)
		if (pf_hit(v, len, i + (size_t)__builtin_ctzll(mh)))
			return 1;
	if (mb == 0 || *run + (size_t)__builtin_ctzll(mb) >= PF_RUN ||
	    runs15(~mb) != 0)
		return 1;
	*run = (size_t)__builtin_clzll(mb);
	mb &= ~md;
	if (mb == 0 || *drun + (size_t)__builtin_ctzll(mb) >= PF_DRUN ||
	    runs32(~mb) != 0)
		return 1;
	*drun = (size_t)__builtin_clzll(mb);
	return 0;
}

/*
 * The same, 64 bytes a step, 16 at a time into three 64-bit masks, for
 * 15 bytes and more.  A value shorter than 16 bytes is one load
 * (es_load_short); the last 16 bytes of a longer one are one load that
 * may overlap the one before.  Apart from es_shapes_maybe, so that the
 * short values, most of them, skip its set-up.
 */
static __attribute__((noinline)) int
maybe_long(const unsigned char *v, size_t len)
{
	size_t i, j, run = 0, drun = 0;
	uint64_t mb = 0, md = 0, mh = 0;

	if (len < 16) {
		pf_block(es_load_short(v, len), 0, 0, &mb, &md, &mh);
		/* past the end breaks; es_load_short's zeros are no mark */
		return pf_step(v, len, 0, mb | ~(uint64_t)0 << len, md, mh,
		    &run, &drun);
	}
	for (i = 0; len - i >= 64; i += 64) {
		mb = md = mh = 0;
		for (j = 0; j < 64; j += 16)
			pf_block(_mm_loadu_si128((const __m128i *)(const void *)
			    (v + i + j)), 0, (unsigned)j, &mb, &md, &mh);
		if (pf_step(v, len, i, mb, md, mh, &run, &drun))
			return 1;
	}
	if (i == len)
		return 0;
	mb = md = mh = 0;
	for (j = 0; i + j < len; j += 16) {
		if (len - (i + j) >= 16)
			pf_block(_mm_loadu_si128((const __m128i *)(const void *)
			    (v + i + j)), 0, (unsigned)j, &mb, &md, &mh);
		else
			pf_block(_mm_loadu_si128((const __m128i *)(const void *)
			    (v + len - 16)), (unsigned)(i + j + 16 - len),
			    (unsigned)j, &mb, &md, &mh);
	}
	return pf_step(v, len, i, mb | ~(uint64_t)0 << (len - i), md, mh,
	    &run, &drun);
}
/* Too short for a run (most values): only the marks count. */
int
es_shapes_maybe(const char *value, size_t len)
{
	const unsigned char *v = (const unsigned char *)value;
	__m128i x;
	unsigned mh;

	if (len >= PF_RUN)
		return maybe_long(v, len);
	x = es_load_short(v, len);
	mh = (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('-')),
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('_')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('@')))));
	for (; mh != 0; mh &= mh - 1)
		if (pf_hit(v, len, (size_t)__builtin_ctz(mh)))
			return 1;
	return 0;
}
#else
int
es_shapes_maybe(const char *value, size_t len)
{
	return es_shapes_maybe_scalar(value, len);
}
#endif

int
es_secret_value(const struct es_policy *p, const char *value, size_t len,
    const char **what)
{
	size_t r;

	if (es_shapes_maybe(value, len) && es_shapes_exact(value, len, what))
		return 1;
	if (p == NULL)
		return 0;
	for (r = 0; r < p->nrules; r++) {
		const struct es_rule *rl = &p->rules[r];

		if (rl->kind == ES_RULE_SECRET_VALUE &&
		    has_literal(value, len, rl->pat, rl->len)) {
			if (what != NULL)
				*what = "policy-literal";
			return 1;
		}
	}
	return 0;
}

size_t
es_url_strip(const char *v, size_t len, char *out)
{
	size_t i = 0, o = 0, at;

	while (i < len) {
		if (i + 3 <= len && v[i] == ':' && v[i + 1] == '/' &&
		    v[i + 2] == '/' && (at = userinfo(v, len, i)) != 0) {
			memcpy(out + o, "://", 3);
			o += 3;
			i = at + 1;
			continue;
		}
		out[o++] = v[i++];
	}
	return o;
}

/* For the tests: every shape's anchor passes both prefilter tables. */
int
es_shapes_selfcheck(void)
{
	int id;

	for (id = 0; id < SH__COUNT; id++) {
		const struct shape *s = &shapes[id];
		unsigned char a = (unsigned char)s->pfx[0];
		unsigned char b = (unsigned char)s->pfx[1];

		if (s->pfx == NULL || s->plen < 2 ||
		    !(first[a] & second[b] & B(id)))
			return -1;
		if (s->ci && !(first[es_upper(a)] & second[es_upper(b)] &
		    first[a | 0x20] & second[b | 0x20] & B(id)))
			return -1;
	}
	return SH__COUNT;
}
