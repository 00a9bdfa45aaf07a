/*
 * test_shapes.c - es_secret_value: every builtin value shape with a
 * positive and a near miss, built at run time from a prefix, a fill
 * pattern and a count, so no token-looking literal sits in the tree.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "es_policy.h"
#include "../../shim/engine/names.h"

struct row {
	const char	*name;		/* the case */
	const char	*pre;		/* literal start */
	const char	*fill;		/* repeated, cycling */
	int		 n;		/* bytes of fill */
	const char	*post;		/* literal end */
	int		 want;		/* 1: a secret */
	const char	*what;		/* shape name when want (NULL: any) */
};

#define AL	"aB3xY9"		/* alnum */
#define HX	"a1f09e"		/* lower hex */
#define B32S	"QPZRY9X8GF2TVDW0"	/* age's bech32 */

static const struct row rows[] = {
	{ "aws AKIA", "AKIA", "ABZ27", 16, "", 1, "aws-access-token" },
	{ "aws AKIA short", "AKIA", "ABZ27", 15, "", 0, NULL },
	{ "aws AKIA lower", "AKIA", "abz", 16, "", 0, NULL },
	{ "aws AKIA digit 8", "AKIA", "AB8", 16, "", 0, NULL },
	{ "aws ASIA", "ASIA", "QZ", 16, "", 1, "aws-access-token" },
	{ "aws ABIA", "ABIA", "QZ", 16, "", 1, "aws-access-token" },
	{ "aws ACCA", "ACCA", "QZ", 16, "", 1, "aws-access-token" },
	{ "aws A3T", "A3TX", "QZ", 16, "", 1, "aws-access-token" },
	{ "aws A3T short", "A3TX", "QZ", 15, "", 0, NULL },
	{ "github ghp", "ghp_", AL, 36, "", 1, "github-pat" },
	{ "github ghp short", "ghp_", AL, 35, "", 0, NULL },
	{ "github ghp dash", "ghp_", "ab-", 36, "", 0, NULL },
	{ "github gho", "gho_", AL, 36, "", 1, "github-oauth" },
	{ "github ghu", "ghu_", AL, 36, "", 1, "github-app-token" },
	{ "github ghs", "ghs_", AL, 36, "", 1, "github-app-token" },
	{ "github ghr", "ghr_", AL, 36, "", 1, "github-refresh-token" },
	{ "github ghx", "ghx_", AL, 36, "", 0, NULL },
	{ "github fine-grained", "github_pat_", "a_1B", 82, "", 1,
	    "github-fine-grained-pat" },
	{ "github fine-grained short", "github_pat_", "a_1B", 81, "", 0, NULL },
	{ "gitlab pat", "glpat-", "a-_1", 20, "", 1, "gitlab-pat" },
	{ "gitlab pat short", "glpat-", "a-_1", 19, "", 0, NULL },
	{ "gitlab runner", "glrt-", "a-_1", 20, "", 1, "gitlab-runner-token" },
	{ "gitlab runner short", "glrt-", "a-_1", 19, "", 0, NULL },
	{ "gitlab deploy", "gldt-", "a-_1", 20, "", 1, "gitlab-deploy-token" },
	{ "gitlab deploy short", "gldt-", "a-_1", 19, "", 0, NULL },
	{ "gitlab ptt", "glptt-", HX, 40, "", 1, "gitlab-ptt" },
	{ "gitlab ptt not hex", "glptt-", "g", 40, "", 0, NULL },
	{ "slack bot", "xoxb-1234567890-1234567890", "a", 3, "", 1,
	    "slack-bot-token" },
	{ "slack bot 9 digits", "xoxb-123456789-1234567890", "a", 3, "", 0,
	    NULL },
	{ "slack user", "xoxp-1234567890-1234567890-1234567890-", AL, 28, "",
	    1, "slack-user-token" },
	{ "slack user short", "xoxp-1234567890-1234567890-1234567890-", AL,
	    27, "", 0, NULL },
	{ "slack user xoxe", "xoxe-1234567890-1234567890-1234567890-", AL, 28,
	    "", 1, "slack-user-token" },
	{ "slack legacy xoxo", "xoxo-1-2-3-abc", "", 0, "", 1,
	    "slack-legacy-token" },
	{ "slack legacy xoxs", "xoxs-11-22-33-f0", "", 0, "", 1,
	    "slack-legacy-token" },
	{ "slack legacy two parts", "xoxo-1-2-abc", "", 0, "", 0, NULL },
	{ "slack app", "xapp-1-A1B2-123-abc", "", 0, "", 1, "slack-app-token" },
	{ "slack app upper", "XAPP-1-A1B2-123-abc", "", 0, "", 1,
	    "slack-app-token" },
	{ "slack app no digit", "xapp-A-A1B2-123-abc", "", 0, "", 0, NULL },
	{ "slack config", "xoxe.xoxb-1-", AL, 163, "", 1,
	    "slack-config-access-token" },
	{ "slack config short", "xoxe.xoxb-1-", AL, 162, "", 0, NULL },
	{ "slack webhook", "https://hooks.slack.com/services/", "T0/B+a", 43,
	    "", 1, "slack-webhook-url" },
	{ "slack webhook short", "https://hooks.slack.com/services/", "T0/B+a",
	    42, "", 0, NULL },
	{ "slack webhook other", "https://hooks.slack.com/other/", AL, 50, "",
	    0, NULL },
	{ "openai legacy", "sk-aB3xY9aB3xY9aB3xY9abT3BlbkFJ", AL, 20, "", 1,
	    "openai-api-key" },
	{ "openai legacy no marker", "sk-", AL, 48, "", 0, NULL },
	{ "openai project", "sk-proj-", "a-_1", 58, "T3BlbkFJ" AL AL AL AL AL
	    AL AL AL AL AL, 1, "openai-api-key" },
	{ "openai project misplaced", "sk-proj-", "a-_1", 57, "T3BlbkFJ" AL AL
	    AL AL AL AL AL AL AL AL, 0, NULL },
	{ "anthropic api", "sk-ant-api03-", "a-_1", 93, "AA", 1,
	    "anthropic-api-key" },
	{ "anthropic api no AA", "sk-ant-api03-", "a-_1", 93, "AB", 0, NULL },
	{ "anthropic admin", "sk-ant-admin01-", "a-_1", 93, "AA", 1,
	    "anthropic-api-key" },
	{ "google api", "AIza", "a-_1", 35, "", 1, "gcp-api-key" },
	{ "google api short", "AIza", "a-_1", 34, "", 0, NULL },
	{ "stripe sk live", "sk_live_", AL, 10, "", 1, "stripe-access-token" },
	{ "stripe rk test", "rk_test_", AL, 10, "", 1, "stripe-access-token" },
	{ "stripe sk prod", "sk_prod_", AL, 10, "", 1, "stripe-access-token" },
	{ "stripe short", "sk_live_", AL, 9, "", 0, NULL },
	{ "stripe other mode", "sk_demo_", AL, 20, "", 0, NULL },
	{ "npm", "npm_", AL, 36, "", 1, "npm-access-token" },
	{ "npm upper", "NPM_", AL, 36, "", 1, "npm-access-token" },
	{ "npm short", "npm_", AL, 35, "", 0, NULL },
	{ "pypi", "pypi-AgEIcHlwaS5vcmc", "a-_1", 50, "", 1,
	    "pypi-upload-token" },
	{ "pypi short", "pypi-AgEIcHlwaS5vcmc", "a-_1", 49, "", 0, NULL },
	{ "huggingface", "hf_", "aBc", 34, "", 1, "huggingface-access-token" },
	{ "huggingface short", "hf_", "aBc", 33, "", 0, NULL },
	{ "jwt", "eyJ", AL, 17, ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", 1, "jwt" },
	{ "jwt short header", "eyJ", AL, 15, ".eyJzdWIiOiIxMjM0NTY3ODkwIn0", 0,
	    NULL },
	{ "jwt no second ey", "eyJ", AL, 20, ".abcdefghijklmnopqrstu", 0, NULL },
	{ "pem rsa", "-----BEGIN RSA PRIVATE KEY-----", "", 0, "\nMII", 1,
	    "private-key" },
	{ "pem pkcs8", "-----BEGIN PRIVATE KEY-----", "", 0, "", 1,
	    "private-key" },
	{ "pem openssh", "-----BEGIN OPENSSH PRIVATE KEY-----", "", 0, "", 1,
	    "private-key" },
	{ "pem pgp block", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "", 0, "",
	    1, "private-key" },
	{ "pem lower case", "-----begin ec private key-----", "", 0, "", 1,
	    "private-key" },
	{ "pem certificate", "-----BEGIN CERTIFICATE-----", "", 0, "", 0,
	    NULL },
	{ "pem public key", "-----BEGIN PUBLIC KEY-----", "", 0, "", 0, NULL },
	{ "age", "AGE-SECRET-KEY-1", B32S, 58, "", 1, "age-secret-key" },
	{ "age short", "AGE-SECRET-KEY-1", B32S, 57, "", 0, NULL },
	{ "age lower", "AGE-SECRET-KEY-1", "qpzry", 58, "", 0, NULL },
	{ "digitalocean", "dop_v1_", HX, 64, "", 1, "digitalocean-pat" },
	{ "digitalocean short", "dop_v1_", HX, 63, "", 0, NULL },
	{ "shopify access", "shpat_", "a1F0", 32, "", 1,
	    "shopify-access-token" },
	{ "shopify access short", "shpat_", "a1F0", 31, "", 0, NULL },
	{ "shopify secret", "shpss_", "a1F0", 32, "", 1,
	    "shopify-shared-secret" },
	{ "sendgrid", "SG.", "a=_.-1", 66, "", 1, "sendgrid-api-token" },
	{ "sendgrid short", "SG.", "a=_.-1", 65, "", 0, NULL },
	{ "databricks", "dapi", HX, 32, "", 1, "databricks-api-token" },
	{ "databricks short", "dapi", HX, 31, "", 0, NULL },
	{ "vault", "hvs.", "a-_1", 90, "", 1, "vault-service-token" },
	{ "vault short", "hvs.", "a-_1", 89, "", 0, NULL },
	{ "terraform", "abcdefghij1234.atlasv1.", "a_=-1", 60, "", 1,
	    "hashicorp-tf-api-token" },
	{ "terraform short id", "bcdefghij1234.atlasv1.", "a_=-1", 60, "", 0,
	    NULL },
	{ "atlassian", "ATATT3", "a_=-1", 186, "", 1, "atlassian-api-token" },
	{ "atlassian short", "ATATT3", "a_=-1", 185, "", 0, NULL },
	{ "linear", "lin_api_", AL, 40, "", 1, "linear-api-key" },
	{ "linear short", "lin_api_", AL, 39, "", 0, NULL },
	{ "postman", "PMAK-0123456789abcdef01234567-", "aF0", 34, "", 1,
	    "postman-api-token" },
	{ "postman short", "PMAK-0123456789abcdef0123456-", "aF0", 34, "", 0,
	    NULL },
	{ "pulumi", "pul-", HX, 40, "", 1, "pulumi-api-token" },
	{ "pulumi short", "pul-", HX, 39, "", 0, NULL },
	{ "doppler", "dp.pt.", AL, 43, "", 1, "doppler-api-token" },
	{ "doppler short", "dp.pt.", AL, 42, "", 0, NULL },
	{ "grafana", "glc_", "aB+/1", 32, "", 1, "grafana-cloud-api-token" },
	{ "grafana upper", "GLC_", "aB+/1", 32, "", 1,
	    "grafana-cloud-api-token" },
	{ "grafana short", "glc_", "aB+/1", 31, "", 0, NULL },
	{ "1password", "ops_eyJ", "aB+/1", 250, "", 1,
	    "1password-service-account-token" },
	{ "1password short", "ops_eyJ", "aB+/1", 249, "", 0, NULL },
	{ "heroku", "HRKU-AA", "a-_1", 58, "", 1, "heroku-api-key-v2" },
	{ "heroku short", "HRKU-AA", "a-_1", 57, "", 0, NULL },
	{ "perplexity", "pplx-", AL, 48, "", 1, "perplexity-api-key" },
	{ "perplexity short", "pplx-", AL, 47, "", 0, NULL },
	{ "notion", "ntn_12345678901", AL, 35, "", 1, "notion-api-token" },
	{ "notion 10 digits", "ntn_1234567890", AL, 36, "", 0, NULL },
	{ "rubygems", "rubygems_", HX, 48, "", 1, "rubygems-api-token" },
	{ "rubygems short", "rubygems_", HX, 47, "", 0, NULL },
	{ "sentry user", "sntryu_", HX, 64, "", 1, "sentry-user-token" },
	{ "sentry user short", "sntryu_", HX, 63, "", 0, NULL },
	{ "sentry org", "sntrys_eyJpYXQiO", "aB+/1", 20, "", 1,
	    "sentry-org-token" },
	{ "sentry org short", "sntrys_eyJpYXQiO", "aB+/1", 19, "", 0, NULL },
	{ "flyio fo1", "fo1_", "a-_1", 43, "", 1, "flyio-access-token" },
	{ "flyio fo1 short", "fo1_", "a-_1", 42, "", 0, NULL },
	{ "flyio fm2", "fm2_", "aB+/1", 100, "", 1, "flyio-access-token" },
	{ "flyio fm2 short", "fm2_", "aB+/1", 99, "", 0, NULL },
	{ "azure", "ab.1Q~", "a_~.-1", 31, "", 1, "azure-ad-client-secret" },
	{ "azure short", "ab.1Q~", "a_~.-1", 30, "", 0, NULL },
	{ "azure no digit", "ab.xQ~", "a_~.-1", 31, "", 0, NULL },
	{ "url https", "https://user:pass@example.com/x", "", 0, "", 1,
	    "url-userinfo" },
	{ "url any scheme", "postgres://app:s3cret@db:5432/app", "", 0, "", 1,
	    "url-userinfo" },
	{ "url empty user", "redis://:s3cret@cache:6379", "", 0, "", 1,
	    "url-userinfo" },
	{ "url in a list", "a.com,https://u:p@b.com,c", "", 0, "", 1,
	    "url-userinfo" },
	{ "url user only", "ssh://git@github.com/a/b.git", "", 0, "", 0, NULL },
	{ "url colon in path", "http://host/a:b@c", "", 0, "", 0, NULL },
	{ "url empty password", "https://user:@host", "", 0, "", 0, NULL },
	{ "url no scheme", "://user:pass@host", "", 0, "", 0, NULL },
	{ "url port only", "http://[::1]:8080/x", "", 0, "", 0, NULL },
	{ "anywhere in a value", "x=1 y=ghp_", AL, 36, " z=2", 1,
	    "github-pat" },
	{ "plain path", "/usr/local/share/ghostscript:/opt/hf/bin", "", 0, "",
	    0, NULL },
	{ "plain words", "the skies of xoxo-land and npm_ stuff", "", 0, "",
	    0, NULL },
	{ "uuid", "123e4567-e89b-12d3-a456-426614174000", "", 0, "", 0, NULL },
	{ "sha256 hex", "", HX, 64, "", 0, NULL },
	{ "nix store path", "/nix/store/", "a0b1c2", 32, "-hello-2.12", 0, NULL },
	{ "empty", "", "", 0, "", 0, NULL },
};

static size_t
build(const struct row *r, char *buf, size_t len)
{
	size_t o = 0, fl = strlen(r->fill);
	int k;

	o = (size_t)snprintf(buf, len, "%s", r->pre);
	for (k = 0; k < r->n && fl > 0 && o + 1 < len; k++)
		buf[o++] = r->fill[(size_t)k % fl];
	buf[o] = '\0';
	o += (size_t)snprintf(buf + o, len - o, "%s", r->post);
	return o;
}

static void
test_rows(void **state)
{
	char buf[1024];
	size_t i, n;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *what = NULL;
		int got;

		n = build(&rows[i], buf, sizeof(buf));
		got = es_secret_value(NULL, buf, n, &what);
		if (got != rows[i].want) {
			print_error("case \"%s\": got %d, want %d\n",
			    rows[i].name, got, rows[i].want);
			bad++;
		} else if (got && rows[i].what != NULL &&
		    strcmp(what, rows[i].what) != 0) {
			print_error("case \"%s\": shape %s, want %s\n",
			    rows[i].name, what, rows[i].what);
			bad++;
		}
		/* the value is not NUL-terminated for the scanner */
		if (n > 0 && es_secret_value(NULL, buf, n - 1, NULL) &&
		    !rows[i].want) {
			print_error("case \"%s\": prefix matched\n",
			    rows[i].name);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void
test_selfcheck(void **state)
{
	(void)state;
	assert_true(es_shapes_selfcheck() >= 57);
}

static void
test_policy_literal(void **state)
{
	static struct es_policy p;
	const char *what = NULL;

	(void)state;
	es_policy_init(&p);
	assert_int_equal(es_secret_value(&p, "xhunter2y", 9, NULL), 0);
	p.rules[0].kind = ES_RULE_SECRET_VALUE;
	p.rules[0].pat = "hunter2";
	p.rules[0].len = 7;
	p.nrules = 1;
	assert_int_equal(es_secret_value(&p, "xhunter2y", 9, &what), 1);
	assert_string_equal(what, "policy-literal");
	assert_int_equal(es_secret_value(&p, "xHunter2y", 9, NULL), 0);
	assert_int_equal(es_secret_value(&p, "hunter", 6, NULL), 0);
}

static void
test_url_strip(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "http://u:p@proxy:3128", "http://proxy:3128" },
		{ "https://a:b@x.com/p?q=1,https://c:d@y.com",
		    "https://x.com/p?q=1,https://y.com" },
		{ "http://proxy:3128", "http://proxy:3128" },
		{ "ssh://git@host", "ssh://git@host" },
	};
	char out[128];
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		n = es_url_strip(t[i].in, strlen(t[i].in), out);
		out[n] = '\0';
		assert_string_equal(out, t[i].out);
	}
}

/* A fixed xorshift, so a failure is reproducible. */
static uint32_t
rnd(uint32_t *st)
{
	uint32_t x = *st;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *st = x;
}

/*
 * The prefilter may send a value to the exact scan for nothing, but must
 * never skip one the exact scan matches; its SIMD and scalar forms agree.
 * Every positive row in contexts, then random mixes of row pieces and
 * separator bytes at every length (the SIMD tail differs by length).
 */
static void
test_prefilter(void **state)
{
	static const char *const ctx[] = {
		"", "/", "x", "a-b", "ab;", "/home/u/", "\xc3\xa9", "t-",
		"0123456789abcdef-", "k.", "s_", "=",
	};
	static const char alpha[] = "aZ09_-.:/;@~+= *xXsck2tQy\x80\n";
	char buf[1024], val[2048];
	size_t i, j, n, m;
	uint32_t st = 2463534242u;
	int bad = 0, pos = 0, k;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = build(&rows[i], buf, sizeof(buf));
		for (j = 0; j < sizeof(ctx) / sizeof(ctx[0]); j++) {
			m = (size_t)snprintf(val, sizeof(val), "%s%s%s",
			    ctx[j], buf, ctx[(j + 3) % 12]);
			if (es_shapes_exact(val, m, NULL) &&
			    !es_shapes_maybe(val, m)) {
				print_error("row \"%s\" ctx %zu: skipped\n",
				    rows[i].name, j);
				bad++;
			}
			if (es_shapes_maybe(val, m) !=
			    es_shapes_maybe_scalar(val, m))
				bad++;
		}
	}
	for (k = 0; k < 60000; k++) {
		size_t len = rnd(&st) % 400;

		for (m = 0; m < len;) {
			if (rnd(&st) % 4 == 0) {
				const struct row *r =
				    &rows[rnd(&st) % (sizeof(rows) / sizeof(rows[0]))];

				n = build(r, buf, sizeof(buf));
				n = rnd(&st) % 3 == 0 ? rnd(&st) % (n + 1) : n;
				if (m + n > len)
					n = len - m;
				memcpy(val + m, buf, n);
				m += n;
			} else
				val[m++] = alpha[rnd(&st) % (sizeof(alpha) - 1)];
		}
		if (es_shapes_exact(val, len, NULL)) {
			pos++;
			if (!es_shapes_maybe(val, len)) {
				print_error("mix %d (len %zu): skipped\n", k, len);
				bad++;
			}
		}
		if (es_shapes_maybe(val, len) != es_shapes_maybe_scalar(val, len)) {
			print_error("mix %d (len %zu): SIMD != scalar\n", k, len);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(pos > 10000);	/* the mixes do hold shapes */
}

/* What a developer's environment holds clears the prefilter. */
static void
test_prefilter_typical(void **state)
{
	static const char *const v[] = {
		"*.tar=01;31:*.tgz=01;31:*.mjpeg=01;35:*.webm=01;35:rs=0:di=01;34",
		"/usr/lib/jvm/java-17-openjdk-amd64", "xterm-256color",
		"en_US.UTF-8", "/tmp/envshim-bench-home.abc12345/src/project",
		"localhost,127.0.0.1,.internal", "unix:path=/run/user/1000/bus",
		"192.0.2.10 51234 192.0.2.20 22", "-FRX", "eu-west-3",
		"Europe/Paris", "/usr/local/share:/usr/share", "ignoreboth",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (es_shapes_maybe(v[i], strlen(v[i])))
			print_error("\"%s\" needs the exact scan\n", v[i]);
		assert_int_equal(es_shapes_maybe(v[i], strlen(v[i])), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_selfcheck),
		cmocka_unit_test(test_policy_literal),
		cmocka_unit_test(test_url_strip),
		cmocka_unit_test(test_prefilter),
		cmocka_unit_test(test_prefilter_typical),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
