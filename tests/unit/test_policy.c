/*
 * test_policy.c - es_filter and the builtin lists: every list entry (in
 * both cases), every exemption, duplicates, malformed entries, PATH, the
 * agent flag, the snapshot, forced and set entries, user rules, and
 * environments of 20,000 variables and 2 MiB.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "es_policy.h"
#include "../../shim/engine/names.h"

static struct es_policy pol;

static int
setup(void **state)
{
	(void)state;
	es_policy_init(&pol);
	return 0;
}

/* A user rule, as the parser would add it. */
static void
add_rule(struct es_policy *p, int kind, const char *pat)
{
	size_t n = strlen(pat);
	char *s = p->arena + p->arena_used;

	memcpy(s, pat, n + 1);
	p->arena_used += n + 1;
	p->rules[p->nrules].kind = (unsigned char)kind;
	p->rules[p->nrules].layer = 1;
	p->rules[p->nrules].len = (unsigned short)n;
	p->rules[p->nrules].line = (unsigned)p->nrules + 1;
	p->rules[p->nrules].pat = s;
	p->nrules++;
}

static void
add_set(struct es_policy *p, const char *nv)
{
	size_t n = strlen(nv);
	char *s = p->arena + p->arena_used;

	memcpy(s, nv, n + 1);
	p->arena_used += n + 1;
	p->sets[p->nsets].layer = 1;
	p->sets[p->nsets].s = s;
	p->nsets++;
}

struct run {
	long			 n;
	const char		*out[64];
	struct es_verdict	 v[32];
};

/* Filters a short NULL-terminated list. */
static void
filt(const struct es_policy *p, const struct es_snapshot *snap,
    unsigned flags, const char *const *forced, struct run *r,
    const char *const *env)
{
	static char scratch[1 << 16];
	size_t n = 0, bytes = 0;

	while (env[n] != NULL) {
		bytes += strlen(env[n]) + 1;
		n++;
	}
	assert_true(n <= 32);
	assert_true(es_filter_scratch(n, bytes) <= sizeof(scratch));
	r->n = es_filter(p, snap, flags, (char *const *)env, n, forced,
	    r->out, 64, r->v, scratch, es_filter_scratch(n, bytes));
	assert_true(r->n >= 0);
}

/* The verdict of one variable alone. */
static struct es_verdict
one(const struct es_policy *p, const struct es_snapshot *snap,
    unsigned flags, const char *entry)
{
	const char *env[2] = { entry, NULL };
	struct run r;

	filt(p, snap, flags, NULL, &r, env);
	return r.v[0];
}

static int
check(const char *casename, struct es_verdict got, int act, int why)
{
	if (got.action == act && got.reason == why)
		return 0;
	print_error("case \"%s\": got %s/%s, want %s/%s\n", casename,
	    es_action_name(got.action), es_reason_name(got.reason),
	    es_action_name((unsigned)act), es_reason_name((unsigned)why));
	return 1;
}

/* A value that passes the entry's own value checks. */
static const char *
good_value(unsigned cls)
{
	if (cls & ES_NC_V_ABS)
		return "/tmp";
	if (cls & ES_NC_V_TZ)
		return "UTC";
	if (cls & ES_NC_V_WORD)
		return "C";
	if (cls & ES_NC_PATH)
		return "/usr/bin";
	return "1";
}

/* What the builtin policy does with a name of these classes. */
static void
expect(unsigned cls, int snapshot_empty, int *act, int *why)
{
	*act = ES_DROP;
	if (cls & ES_NC_LOCKED)
		*why = ES_R_LOCKED;
	else if (cls & ES_NC_INJECTION)
		*why = ES_R_INJECTION;
	else if (cls & ES_NC_PATH) {
		*act = ES_KEEP;
		*why = ES_R_SAFE;
	} else if ((cls & ES_NC_CHANGED) && snapshot_empty)
		*why = ES_R_CHANGED;
	else if (cls & ES_NC_SAFE) {
		*act = ES_KEEP;
		*why = ES_R_SAFE;
	} else if (cls & ES_NC_CAPABILITY)
		*why = ES_R_CAPABILITY;
	else if ((cls & (ES_NC_SECRET | ES_NC_COMP)) && !(cls & ES_NC_EXEMPT))
		*why = ES_R_SECRET_NAME;
	else {
		*act = ES_KEEP;
		*why = ES_R_DEFAULT;
	}
}

static void
lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s + 32);
}

/* One name of the lists, in upper and lower case, with and without snap. */
static int
pin(const char *name, unsigned cls)
{
	static const struct es_snapshot empty;
	char e[256], casename[300];
	int act, why, bad = 0, c, s;

	for (c = 0; c < 2; c++)
		for (s = 0; s < 2; s++) {
			snprintf(e, sizeof(e), "%s=%s", name, good_value(cls));
			if (c)
				lower(e);
			snprintf(casename, sizeof(casename), "%s%s%s", e,
			    c ? " (lower case)" : "",
			    s ? " (empty snapshot)" : "");
			expect(cls, s, &act, &why);
			bad += check(casename, one(&pol, s ? &empty : NULL, 0,
			    e), act, why);
		}
	return bad;
}

static void
test_every_name(void **state)
{
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < es_nnames; i++) {
		const struct es_name *n = &es_names[i];

		/* the table itself: upper case, no stray bytes */
		assert_int_equal(strlen(n->name), n->len);
		assert_int_equal(strspn(n->name,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"), n->len);
		bad += pin(n->name, n->cls);
	}
	assert_int_equal(bad, 0);
}

static void
test_every_prefix(void **state)
{
	size_t i;
	int bad = 0;
	char name[64];

	(void)state;
	for (i = 0; i < es_nprefixes; i++) {
		const struct es_prefix *p = &es_prefixes[i];

		assert_int_equal(strlen(p->pfx), p->len);
		assert_int_equal(strspn(p->pfx,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"), p->len);
		snprintf(name, sizeof(name), "%sX1", p->pfx);
		bad += pin(name, p->cls);
		bad += pin(p->pfx, p->cls);
	}
	assert_int_equal(bad, 0);
}

static void
test_index_unique(void **state)
{
	static struct es_names_tables t;

	(void)state;
	assert_int_equal(es_names_build(&t), 0);
	assert_true(es_nnames * 2 < ES_NAMES_IX);
}

struct row {
	const char	*name;
	const char	*entry;
	int		 act, why;
};

#define K(n, e, w)	{ n, e, ES_KEEP, w }
#define DR(n, e, w)	{ n, e, ES_DROP, w }
#define RW(n, e, w)	{ n, e, ES_REWRITE, w }

static const struct row rows[] = {
	/* exemptions: a component says secret, the list says no */
	K("exempt TOKENIZERS_PARALLELISM", "TOKENIZERS_PARALLELISM=false",
	    ES_R_DEFAULT),
	K("exempt KEYTIMEOUT", "KEYTIMEOUT=1", ES_R_DEFAULT),
	K("exempt KEYMAP", "KEYMAP=us", ES_R_DEFAULT),
	K("exempt KEYBOARD*", "KEYBOARD_KEY=us", ES_R_DEFAULT),
	K("exempt XKB_*", "XKB_DEFAULT_KEY=us", ES_R_DEFAULT),
	K("exempt GIT_AUTHOR_NAME", "GIT_AUTHOR_NAME=A", ES_R_DEFAULT),
	K("exempt GIT_AUTHOR_*", "GIT_AUTHOR_TOKEN=A", ES_R_DEFAULT),
	K("exempt GIT_COMMITTER_*", "GIT_COMMITTER_EMAIL=a@b", ES_R_DEFAULT),
	K("exempt PASSWORD_STORE_DIR", "PASSWORD_STORE_DIR=/p", ES_R_DEFAULT),
	K("exempt SSL_CERT_FILE", "SSL_CERT_FILE=/c", ES_R_DEFAULT),
	K("exempt SSL_CERT_DIR", "SSL_CERT_DIR=/c", ES_R_DEFAULT),
	K("exempt *_PUBLIC_KEY", "STRIPE_PUBLIC_KEY=pk", ES_R_DEFAULT),
	K("exempt GOPRIVATE", "GOPRIVATE=*.corp", ES_R_DEFAULT),
	K("exempt PWD", "PWD=/home/u", ES_R_SAFE),
	K("exempt OLDPWD", "OLDPWD=/home/u", ES_R_DEFAULT),
	/* secret names by component, substring, suffix */
	DR("secret GITHUB_TOKEN", "GITHUB_TOKEN=x", ES_R_SECRET_NAME),
	DR("secret DB_PASS", "DB_PASS=x", ES_R_SECRET_NAME),
	DR("secret MY_SERVICE_PASSWORD", "MY_SERVICE_PASSWORD=x",
	    ES_R_SECRET_NAME),
	DR("secret MYSQL_PWD", "MYSQL_PWD=x", ES_R_SECRET_NAME),
	DR("secret SMTP_PASS", "SMTP_PASS=x", ES_R_SECRET_NAME),
	DR("secret camelCase", "myApiKey=x", ES_R_SECRET_NAME),
	DR("secret camelCase token", "githubToken=x", ES_R_SECRET_NAME),
	DR("secret run-together APIKEY", "MYAPIKEY=x", ES_R_SECRET_NAME),
	DR("secret substring AUTHTOKEN", "XAUTHTOKENX=x", ES_R_SECRET_NAME),
	DR("secret substring PASSWORD", "DBPASSWORDX=x", ES_R_SECRET_NAME),
	DR("secret _authToken", "registry__authToken=x", ES_R_SECRET_NAME),
	DR("secret dash component", "my-secret=x", ES_R_SECRET_NAME),
	DR("secret dot component", "session.token=x", ES_R_SECRET_NAME),
	DR("secret colon component", "a:Creds=x", ES_R_SECRET_NAME),
	DR("secret slash component", "svc/key=x", ES_R_SECRET_NAME),
	DR("secret AUTH+HEADER", "X_AUTH_HEADER=x", ES_R_SECRET_NAME),
	DR("secret *_DSN", "MYAPP_DSN=x", ES_R_SECRET_NAME),
	DR("secret PASSPHRASE", "GPG_PASSPHRASE=x", ES_R_SECRET_NAME),
	DR("secret COOKIE", "SESSION_COOKIE=x", ES_R_SECRET_NAME),
	DR("secret BEARER", "API_BEARER=x", ES_R_SECRET_NAME),
	K("not secret PASS first", "PASS_THROUGH=1", ES_R_DEFAULT),
	K("not secret PWD first", "PWD_CACHE=1", ES_R_DEFAULT),
	K("not secret PASSENGER", "PASSENGER_ROOT=1", ES_R_DEFAULT),
	K("not secret MONKEY", "MONKEY=1", ES_R_DEFAULT),
	K("not secret KEYS", "KEYS=1", ES_R_DEFAULT),
	K("not secret AUTH alone", "AUTH_MODE=1", ES_R_DEFAULT),
	K("not secret COMPASS", "COMPASS_DIR=1", ES_R_DEFAULT),
	K("not secret DSN inside", "DSNAME=1", ES_R_DEFAULT),
	/* case variants */
	DR("case ld_preload", "ld_preload=/x.so", ES_R_INJECTION),
	DR("case Node_Options", "Node_Options=--require x", ES_R_INJECTION),
	DR("case gh_token", "gh_token=x", ES_R_SECRET_NAME),
	DR("case Npm_Config_script_shell", "Npm_Config_script_shell=/x",
	    ES_R_INJECTION),
	DR("case ssh_auth_sock", "ssh_auth_sock=/s", ES_R_CAPABILITY),
	/* injection shapes */
	DR("shape BASH_FUNC_x%%", "BASH_FUNC_ls%%=() { id; }", ES_R_INJECTION),
	DR("shape %% in name", "FOO%%=1", ES_R_INJECTION),
	DR("shape () in name", "__BASH_FUNCls()=x", ES_R_INJECTION),
	DR("shape () elsewhere", "ls()=x", ES_R_INJECTION),
	DR("shape value () {", "FOO=() { id; }", ES_R_INJECTION),
	DR("shape value ()", "FOO=()", ES_R_INJECTION),
	K("shape value ( )", "FOO=( )", ES_R_DEFAULT),
	DR("shape cargo runner", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=x",
	    ES_R_INJECTION),
	DR("shape cargo linker", "cargo_target_aarch64_linker=x",
	    ES_R_INJECTION),
	K("shape cargo target dir", "CARGO_TARGET_DIR=/t", ES_R_DEFAULT),
	K("shape cargo bare runner", "CARGO_TARGET__RUNNER=x", ES_R_DEFAULT),
	DR("shape GIT_CONFIG_COUNT", "GIT_CONFIG_COUNT=1x", ES_R_INJECTION),
	DR("shape LUA_INIT_5_4", "LUA_INIT_5_4=x", ES_R_INJECTION),
	DR("shape LD_ anything", "LD_ANYTHING=x", ES_R_INJECTION),
	DR("shape sudo PERLIO_DEBUG", "PERLIO_DEBUG=/x", ES_R_INJECTION),
	/* malformed */
	DR("malformed no =", "NOEQUALS", ES_R_MALFORMED),
	DR("malformed empty name", "=x", ES_R_MALFORMED),
	DR("malformed empty", "", ES_R_MALFORMED),
	K("empty value", "FOO=", ES_R_DEFAULT),
	/* always-kept value checks */
	K("safe TERM", "TERM=xterm-256color", ES_R_SAFE),
	DR("unsafe TERM slash", "TERM=../../tmp/x", ES_R_UNSAFE_VALUE),
	DR("unsafe LANG percent", "LANG=en_US%n", ES_R_UNSAFE_VALUE),
	DR("unsafe LC_ALL slash", "LC_ALL=/tmp/loc", ES_R_UNSAFE_VALUE),
	K("safe LC_MESSAGES", "LC_MESSAGES=C.UTF-8", ES_R_SAFE),
	K("safe TZ name", "TZ=Europe/Paris", ES_R_SAFE),
	K("safe TZ zoneinfo", "TZ=:/usr/share/zoneinfo/UTC", ES_R_SAFE),
	DR("unsafe TZ file", "TZ=/etc/passwd", ES_R_UNSAFE_VALUE),
	DR("unsafe TZ dotdot", "TZ=/usr/share/zoneinfo/../../x",
	    ES_R_UNSAFE_VALUE),
	DR("unsafe TZ space", "TZ=UTC 1", ES_R_UNSAFE_VALUE),
	K("safe TMPDIR", "TMPDIR=/tmp/a", ES_R_SAFE),
	DR("unsafe TMPDIR relative", "TMPDIR=tmp", ES_R_UNSAFE_VALUE),
	DR("unsafe TMPDIR dotdot", "TMPDIR=/tmp/../etc", ES_R_UNSAFE_VALUE),
	DR("unsafe TEMP empty", "TEMP=", ES_R_UNSAFE_VALUE),
	DR("unsafe USER newline", "USER=a\nb", ES_R_UNSAFE_VALUE),
	K("safe HOME", "HOME=/home/u", ES_R_SAFE),
	K("safe LS_COLORS", "LS_COLORS=di=01;34:ln=01;36", ES_R_SAFE),
	/* secret values, also in kept names */
	DR("value in HOME", "HOME=/home/ghp_aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9",
	    ES_R_SECRET_VALUE),
	DR("value in plain name", "FOO=postgres://u:pw@db/x",
	    ES_R_SECRET_VALUE),
	DR("value in index path", "GOPROXY=https://proxy.golang.org/ghp_"
	    "aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9", ES_R_SECRET_VALUE),
	RW("proxy userinfo", "HTTPS_PROXY=http://u:pw@proxy:3128",
	    ES_R_SECRET_VALUE),
	RW("proxy lower case", "https_proxy=http://u:pw@proxy:3128",
	    ES_R_SECRET_VALUE),
	RW("index userinfo", "PIP_INDEX_URL=https://u:pw@pypi.corp/simple",
	    ES_R_SECRET_VALUE),
	K("proxy plain", "HTTP_PROXY=http://proxy:3128", ES_R_DEFAULT),
	RW("PATH loses an entry with a secret shape", "PATH=/usr/bin:/opt/ghp_"
	    "aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9/bin", ES_R_NORMALISED),
	RW("a PATH case variant is scanned the same", "PaTH=/usr/bin:/opt/ghp_"
	    "aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9/bin", ES_R_NORMALISED),
	DR("PATH with nothing but a secret entry", "PATH=/opt/ghp_aB3xY9aB3x"
	    "Y9aB3xY9aB3xY9aB3xY9aB3xY9/bin", ES_R_UNSAFE_VALUE),
	/* capabilities, XAUTHORITY decided as one */
	DR("capability XAUTHORITY", "XAUTHORITY=/run/x", ES_R_CAPABILITY),
	DR("capability KRB5CCNAME", "KRB5CCNAME=FILE:/tmp/k", ES_R_CAPABILITY),
	K("DISPLAY stays", "DISPLAY=:0", ES_R_SAFE),
};

static void
test_rows(void **state)
{
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		bad += check(rows[i].name, one(&pol, NULL, 0, rows[i].entry),
		    rows[i].act, rows[i].why);
	assert_int_equal(bad, 0);
}

static void
test_agent(void **state)
{
	static const struct es_snapshot empty;
	static const struct row agent[] = {
		K("agent secret name", "GITHUB_TOKEN=x", ES_R_AGENT),
		K("agent capability", "SSH_AUTH_SOCK=/s", ES_R_AGENT),
		K("agent secret value", "FOO=https://u:pw@h", ES_R_AGENT),
		K("agent secret value in safe", "HOME=/ghp_aB3xY9aB3xY9aB3xY9"
		    "aB3xY9aB3xY9aB3xY9", ES_R_AGENT),
		K("agent proxy kept whole", "HTTP_PROXY=http://u:pw@p",
		    ES_R_AGENT),
		DR("agent injection", "NODE_OPTIONS=--require x",
		    ES_R_INJECTION),
		DR("agent LD_PRELOAD", "LD_PRELOAD=/x.so", ES_R_INJECTION),
		DR("agent malformed", "X", ES_R_MALFORMED),
		DR("agent locked", "ENVSHIM_AGENT=1:2", ES_R_LOCKED),
	};
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof(agent) / sizeof(agent[0]); i++)
		bad += check(agent[i].name, one(&pol, NULL, ES_F_AGENT,
		    agent[i].entry), agent[i].act, agent[i].why);
	bad += check("agent changed", one(&pol, &empty, ES_F_AGENT,
	    "PAGER=less"), ES_DROP, ES_R_CHANGED);
	bad += check("agent changed HOME", one(&pol, &empty, ES_F_AGENT,
	    "HOME=/h"), ES_DROP, ES_R_CHANGED);
	assert_int_equal(bad, 0);
}

/*
 * What tames a tool passes when its value is inert, into the sandbox
 * (ES_F_SANDBOX) and on a direct launch alike (the agent's own git keeps
 * Gemini CLI's hardening); everything else is decided as for any tool.
 * Only a git pair's program name outside the sandbox needs its key to
 * be the pager or an editor (test_boundary_pairs).
 */
static void
test_boundary(void **state)
{
	static const struct es_snapshot empty;
	static const struct {
		const char *entry;
		int tame;	/* 1: kept as tame into the sandbox */
	} tr[] = {
		{ "GIT_EDITOR=true", 1 }, { "GIT_EDITOR=:", 1 },
		{ "EDITOR=true", 1 }, { "PAGER=cat", 1 }, { "GIT_PAGER=cat", 1 },
		{ "MANPAGER=cat", 1 }, { "GIT_SEQUENCE_EDITOR=true", 1 },
		{ "GIT_CONFIG_GLOBAL=/dev/null", 1 },
		{ "GIT_CONFIG_NOSYSTEM=1", 1 }, { "GIT_CONFIG_COUNT=3", 1 },
		{ "GIT_CONFIG_KEY_0=core.hooksPath", 1 },
		{ "GIT_CONFIG_VALUE_0=/dev/null", 1 },
		{ "GIT_CONFIG_KEY_12=credential.helper", 1 },
		{ "GIT_CONFIG_VALUE_12=", 1 },
		{ "GIT_CONFIG_SYSTEM=/dev/null", 1 },
		{ "NODE_OPTIONS=--max-old-space-size=4096", 1 },
		{ "NODE_OPTIONS=--no-warnings --stack-size=2000", 1 },
		/* not inert: a program, a file, code */
		{ "GIT_EDITOR=vim", 0 }, { "GIT_EDITOR=sh -c evil", 0 },
		{ "PAGER=less", 0 }, { "GIT_CONFIG_GLOBAL=/tmp/x", 0 },
		{ "GIT_CONFIG_COUNT=1x", 0 }, { "GIT_CONFIG_KEY_x=core.pager", 0 },
		{ "GIT_CONFIG_KEY_1=url.https://e/.insteadOf", 0 },
		{ "GIT_CONFIG_VALUE_0=!sh", 0 }, { "GIT_CONFIG_VALUE_0=less", 0 },
		{ "GIT_CONFIG_PARAMETERS='core.pager'='cat'", 0 },
		{ "NODE_OPTIONS=--require /x.js", 0 },
		{ "NODE_OPTIONS=-r /x.js", 0 }, { "NODE_OPTIONS=--import=x", 0 },
		{ "NODE_OPTIONS=--max-old-space-size=4096 --loader x", 0 },
		{ "NODE_OPTIONS=--inspect", 0 },
		{ "NODE_OPTIONS=--stack-size=1;x", 0 },
		{ "pager=cat", 0 },
		/* never tame, whatever the value */
		{ "BASH_ENV=/dev/null", 0 }, { "LD_PRELOAD=/dev/null", 0 },
		{ "BASH_FUNC_x%%=() { :; }", 0 },
	};
	struct es_verdict in, out;
	size_t i;
	int bad = 0;

	(void)state;
	for (i = 0; i < sizeof(tr) / sizeof(tr[0]); i++) {
		in = one(&pol, &empty, ES_F_SANDBOX, tr[i].entry);
		out = one(&pol, &empty, 0, tr[i].entry);
		if (tr[i].tame) {
			bad += check(tr[i].entry, in, ES_KEEP, ES_R_TAME);
			bad += check(tr[i].entry, out, ES_KEEP, ES_R_TAME);
		} else {
			/* dropped, and for the same reason on both sides */
			bad += out.action != ES_DROP;
			if (out.action != ES_DROP)
				print_error("case \"%s\": kept for a direct "
				    "launch\n", tr[i].entry);
			bad += check(tr[i].entry, in, out.action, out.reason);
		}
	}
	/* a user's drop rule beats the tame rule */
	{
		struct es_policy *p = malloc(sizeof(*p));

		assert_non_null(p);
		es_policy_init(p);
		add_rule(p, ES_RULE_DROP, "PAGER");
		bad += check("drop PAGER", one(p, &empty, ES_F_SANDBOX,
		    "PAGER=cat"), ES_DROP, ES_R_POLICY);
		free(p);
	}
	/* secrets and capabilities go into the sandbox no more than before */
	bad += check("secret into sandbox", one(&pol, &empty, ES_F_SANDBOX,
	    "GITHUB_TOKEN=x"), ES_DROP, ES_R_SECRET_NAME);
	bad += check("capability into sandbox", one(&pol, &empty,
	    ES_F_SANDBOX, "SSH_AUTH_SOCK=/s"), ES_DROP, ES_R_CAPABILITY);
	/*
	 * git refuses a count whose pair is missing (Copilot CLI hands its
	 * shells three pairs with program values): the count goes with it,
	 * and git reads none.  With every pair inert, all of them pass.
	 */
	{
		static const char *const half[] = { "GIT_CONFIG_COUNT=2",
		    "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat",
		    "GIT_CONFIG_KEY_1=core.askPass",
		    "GIT_CONFIG_VALUE_1=/opt/agent/askpass.sh", NULL };
		static const char *const whole[] = { "GIT_CONFIG_COUNT=1",
		    "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat",
		    NULL };
		struct run r;

		filt(&pol, &empty, ES_F_SANDBOX, NULL, &r, half);
		bad += check("count of a broken pair", r.v[0], ES_DROP,
		    ES_R_INJECTION);
		bad += check("the broken value", r.v[4], ES_DROP,
		    ES_R_INJECTION);
		filt(&pol, &empty, ES_F_SANDBOX, NULL, &r, whole);
		bad += check("count of whole pairs", r.v[0], ES_KEEP, ES_R_TAME);
		bad += check("a whole pair's value", r.v[2], ES_KEEP, ES_R_TAME);
	}
	assert_int_equal(bad, 0);
}

/*
 * Outside the sandbox a git pair naming a program (cat, true) passes
 * only as the pager or an editor: core.hooksPath=cat would run the
 * working tree's cat/pre-commit, which sandboxed commands write.  What
 * Gemini CLI sets for its own git (getSafeGitEnv) passes whole.
 */
static void
test_boundary_pairs(void **state)
{
	static const struct es_snapshot empty;
	static const char *const gemini[] = { "GIT_CONFIG_GLOBAL=/dev/null",
	    "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	    "GIT_CONFIG_COUNT=8",
	    "GIT_CONFIG_KEY_0=credential.helper", "GIT_CONFIG_VALUE_0=",
	    "GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=",
	    "GIT_CONFIG_KEY_2=core.hooksPath", "GIT_CONFIG_VALUE_2=",
	    "GIT_CONFIG_KEY_3=core.sshCommand", "GIT_CONFIG_VALUE_3=",
	    "GIT_CONFIG_KEY_4=core.pager", "GIT_CONFIG_VALUE_4=cat",
	    "GIT_CONFIG_KEY_5=core.editor", "GIT_CONFIG_VALUE_5=",
	    "GIT_CONFIG_KEY_6=sequence.editor", "GIT_CONFIG_VALUE_6=",
	    "GIT_CONFIG_KEY_7=diff.external", "GIT_CONFIG_VALUE_7=", NULL };
	static const char *const hooks[] = { "GIT_CONFIG_COUNT=2",
	    "GIT_CONFIG_KEY_0=CORE.PAGER", "GIT_CONFIG_VALUE_0=cat",
	    "GIT_CONFIG_VALUE_1=cat", "GIT_CONFIG_KEY_1=core.hooksPath",
	    NULL };
	static const char *const lone[] = { "GIT_CONFIG_VALUE_3=true",
	    "GIT_CONFIG_KEY_30=core.editor", NULL };
	struct run r;
	size_t i;
	int bad = 0;

	(void)state;
	filt(&pol, &empty, 0, NULL, &r, gemini);
	for (i = 0; gemini[i] != NULL; i++)
		bad += check(gemini[i], r.v[i], ES_KEEP, ES_R_TAME);
	/* a program name under another key breaks the count outside */
	filt(&pol, &empty, 0, NULL, &r, hooks);
	bad += check("count", r.v[0], ES_DROP, ES_R_INJECTION);
	bad += check("pager key", r.v[1], ES_KEEP, ES_R_TAME);
	bad += check("pager value", r.v[2], ES_KEEP, ES_R_TAME);
	bad += check("hooks value", r.v[3], ES_DROP, ES_R_INJECTION);
	/* in the sandbox a bare name runs nothing outside it */
	filt(&pol, &empty, ES_F_SANDBOX, NULL, &r, hooks);
	for (i = 0; hooks[i] != NULL; i++)
		bad += check(hooks[i], r.v[i], ES_KEEP, ES_R_TAME);
	/* a value whose own key is missing (KEY_30 is another pair's) */
	filt(&pol, &empty, 0, NULL, &r, lone);
	bad += check("lone value", r.v[0], ES_DROP, ES_R_INJECTION);
	bad += check("other key", r.v[1], ES_KEEP, ES_R_TAME);
	assert_int_equal(bad, 0);
}

/*
 * Inside (ES_F_INSIDE): everything the process set reaches its child but
 * the shim's own entries and the policy's sets; its LD_PRELOAD goes
 * after the shim's.
 */
static void
test_inside(void **state)
{
	static const struct es_snapshot empty;
	const char *forced[] = { "LD_PRELOAD=/lib/envshim.so",
	    "ENVSHIM_CONFIG=x", NULL };
	const char *env1[] = { "PYTHONPATH=src", "BASH_ENV=/x.sh",
	    "LD_LIBRARY_PATH=build", "GH_TOKEN=ghp_aB3xY9aB3xY9aB3xY9aB3xY9"
	    "aB3xY9aB3xY9", "PATH=.:bin", "ENVSHIM_CONFIG=sandbox off",
	    "LD_PRELOAD=/lib/envshim.so /u/libmine.so:/lib/envshim.so",
	    "EDITOR=emacs", NULL };
	const char *env2[] = { "LD_PRELOAD=/lib/envshim.so", NULL };
	struct es_policy *p = malloc(sizeof(*p));
	struct run r;

	(void)state;
	assert_non_null(p);
	es_policy_init(p);
	add_set(p, "EDITOR=vi");
	add_rule(p, ES_RULE_DROP, "PYTHONPATH");
	filt(p, &empty, ES_F_INSIDE, forced, &r, env1);
	assert_int_equal(r.n, 8);
	assert_string_equal(r.out[0],
	    "LD_PRELOAD=/lib/envshim.so:/u/libmine.so");
	assert_string_equal(r.out[1], "ENVSHIM_CONFIG=x");
	assert_string_equal(r.out[2], "PYTHONPATH=src");
	assert_string_equal(r.out[3], "BASH_ENV=/x.sh");
	assert_string_equal(r.out[4], "LD_LIBRARY_PATH=build");
	assert_string_equal(r.out[6], "PATH=.:bin");
	assert_string_equal(r.out[7], "EDITOR=vi");
	assert_int_equal(r.v[0].reason, ES_R_INSIDE);
	assert_int_equal(r.v[5].reason, ES_R_LOCKED);
	assert_int_equal(r.v[6].action, ES_REWRITE);
	assert_int_equal(r.v[7].reason, ES_R_POLICY);
	/* nothing of its own: the shim's entry stands alone */
	filt(p, &empty, ES_F_INSIDE, forced, &r, env2);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.out[0], "LD_PRELOAD=/lib/envshim.so");
	assert_int_equal(r.v[0].reason, ES_R_LOCKED);
	free(p);
}

static void
test_rewrites(void **state)
{
	struct run r;
	const char *env1[] = { "PATH=/usr/bin::.:bin:/usr/bin:/opt/../x:"
	    "/bin:./sbin:/usr/bin/", NULL };
	const char *env2[] = { "PATH=:.:bin", NULL };
	const char *env3[] = { "HTTPS_PROXY=http://u:pw@proxy:3128",
	    "HTTPS_PROXY=http://other", NULL };
	const char *env4[] = { "ALL_PROXY=socks5://u:ghp_aB3xY9aB3xY9aB3xY9"
	    "aB3xY9aB3xY9aB3xY9@p:1080", NULL };
	const char *env5[] = { "NO_PROXY=http://u:pw@x", NULL };
	const char *env6[] = { "PATH=/usr/bin:/opt/ghp_aB3xY9aB3xY9aB3xY9aB3x"
	    "Y9aB3xY9aB3xY9/bin:/bin", NULL };

	(void)state;
	filt(&pol, NULL, 0, NULL, &r, env1);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "PATH=/usr/bin:/bin:/usr/bin/");
	assert_int_equal(r.v[0].action, ES_REWRITE);
	assert_int_equal(r.v[0].reason, ES_R_NORMALISED);

	filt(&pol, NULL, 0, NULL, &r, env2);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.v[0].reason, ES_R_UNSAFE_VALUE);

	filt(&pol, NULL, 0, NULL, &r, env3);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "HTTPS_PROXY=http://proxy:3128");
	assert_int_equal(r.v[1].reason, ES_R_DUPLICATE);

	/* the token sat in the userinfo: stripping removes it */
	filt(&pol, NULL, 0, NULL, &r, env4);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "ALL_PROXY=socks5://p:1080");

	/* not a URL-valued name: dropped, not stripped */
	filt(&pol, NULL, 0, NULL, &r, env5);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.v[0].reason, ES_R_SECRET_VALUE);

	/* a token in a PATH entry costs that entry, not PATH */
	filt(&pol, NULL, 0, NULL, &r, env6);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "PATH=/usr/bin:/bin");
	assert_int_equal(r.v[0].reason, ES_R_NORMALISED);
	/* the agent keeps its own PATH's entries, as it keeps its secrets */
	filt(&pol, NULL, ES_F_AGENT, NULL, &r, env6);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], env6[0]);
}

static void
test_path_many_entries(void **state)
{
	static char path[5 + 8 * (ES_PATH_ENTRIES_MAX + 1)];
	const char *env[] = { path, NULL };
	struct run r;
	size_t o;
	int k;

	(void)state;
	o = (size_t)snprintf(path, sizeof(path), "PATH=");
	for (k = 0; k <= ES_PATH_ENTRIES_MAX; k++)
		o += (size_t)snprintf(path + o, sizeof(path) - o, "%s/%04x",
		    k ? ":" : "", k);
	filt(&pol, NULL, 0, NULL, &r, env);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.v[0].reason, ES_R_UNSAFE_VALUE);
	path[o - 6] = '\0';	/* one entry fewer */
	filt(&pol, NULL, 0, NULL, &r, env);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].action, ES_KEEP);
}

static void
test_duplicates(void **state)
{
	struct run r;
	const char *benign_first[] = { "FOO=benign", "BAR=1",
	    "FOO=ghp_aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9", NULL };
	const char *secret_first[] = {
	    "FOO=ghp_aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9aB3xY9", "BAR=1",
	    "FOO=benign", NULL };
	const char *kept[] = { "FOO=a", "FOO=b", "foo=c", "FOO=d", NULL };
	const char *namedrop[] = { "X=1", "gh_token=a", "GH_TOKEN=b", NULL };

	(void)state;
	filt(&pol, NULL, 0, NULL, &r, benign_first);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "BAR=1");
	assert_int_equal(r.v[0].reason, ES_R_SECRET_VALUE);
	assert_int_equal(r.v[2].reason, ES_R_SECRET_VALUE);

	filt(&pol, NULL, 0, NULL, &r, secret_first);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.out[0], "BAR=1");
	assert_int_equal(r.v[0].action, ES_DROP);
	assert_int_equal(r.v[2].action, ES_DROP);
	assert_int_equal(r.v[2].reason, ES_R_SECRET_VALUE);

	filt(&pol, NULL, 0, NULL, &r, kept);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.out[0], "FOO=a");
	assert_string_equal(r.out[1], "foo=c");
	assert_int_equal(r.v[1].reason, ES_R_DUPLICATE);
	assert_int_equal(r.v[3].reason, ES_R_DUPLICATE);
	assert_int_equal(r.v[3].action, ES_DROP);

	filt(&pol, NULL, 0, NULL, &r, namedrop);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[1].reason, ES_R_SECRET_NAME);
	assert_int_equal(r.v[2].reason, ES_R_SECRET_NAME);
}

static void
test_snapshot(void **state)
{
	const char *launch[] = { "PAGER=less", "HOME=/home/u", "FOO=1",
	    "PAGER=more", "MYVAR=a", "X", NULL };
	struct es_snapshot s, d;
	struct es_policy *p = malloc(sizeof(*p));
	char buf[ES_SNAPSHOT_MAX * 34 + 1];
	long n;

	(void)state;
	assert_non_null(p);
	es_policy_init(p);
	add_rule(p, ES_RULE_CHANGED, "MY*");
	es_snapshot_take(p, (char *const *)launch, &s);
	assert_int_equal(s.n, 3);	/* PAGER (first copy), HOME, MYVAR */

	assert_int_equal(check("unchanged PAGER", one(p, &s, 0, "PAGER=less"),
	    ES_KEEP, ES_R_DEFAULT), 0);
	assert_int_equal(check("changed PAGER", one(p, &s, 0, "PAGER=more"),
	    ES_DROP, ES_R_CHANGED), 0);
	assert_int_equal(check("added EDITOR", one(p, &s, 0, "EDITOR=vi"),
	    ES_DROP, ES_R_CHANGED), 0);
	assert_int_equal(check("case variant is another name",
	    one(p, &s, 0, "pager=less"), ES_DROP, ES_R_CHANGED), 0);
	assert_int_equal(check("unchanged HOME", one(p, &s, 0, "HOME=/home/u"),
	    ES_KEEP, ES_R_SAFE), 0);
	assert_int_equal(check("changed HOME", one(p, &s, 0, "HOME=/tmp/h"),
	    ES_DROP, ES_R_CHANGED), 0);
	assert_int_equal(check("policy changed, same", one(p, &s, 0,
	    "MYVAR=a"), ES_KEEP, ES_R_DEFAULT), 0);
	assert_int_equal(check("policy changed, differs", one(p, &s, 0,
	    "MYVAR=b"), ES_DROP, ES_R_CHANGED), 0);
	assert_int_equal(check("no snapshot: nothing changed", one(p, NULL, 0,
	    "EDITOR=vi"), ES_KEEP, ES_R_DEFAULT), 0);
	assert_int_equal(check("Tier B prefix", one(p, &s, 0,
	    "TF_VAR_region=x"), ES_DROP, ES_R_CHANGED), 0);

	n = es_snapshot_encode(&s, buf, sizeof(buf));
	assert_int_equal(n, 3 * 34 - 1);
	assert_int_equal(strlen(buf), (size_t)n);
	assert_int_equal(es_snapshot_decode(buf, &d), 0);
	assert_int_equal(d.n, s.n);
	assert_memory_equal(d.name, s.name, s.n * sizeof(s.name[0]));
	assert_memory_equal(d.value, s.value, s.n * sizeof(s.value[0]));
	assert_int_equal(es_snapshot_encode(&s, buf, (size_t)n), -1);

	assert_int_equal(es_snapshot_decode("", &d), 0);
	assert_int_equal(d.n, 0);
	buf[5] = 'G';
	assert_int_equal(es_snapshot_decode(buf, &d), -1);
	assert_int_equal(d.n, 0);
	assert_int_equal(es_snapshot_decode("0123456789abcdef:0123", &d), -1);
	assert_int_equal(es_snapshot_decode("0123456789abcdef:0123456789abcdef,",
	    &d), -1);
	assert_int_equal(es_snapshot_decode("0123456789abcdef;0123456789abcdef",
	    &d), -1);
	assert_int_equal(es_snapshot_decode("0123456789abcdef:0123456789abcdef",
	    &d), 0);
	assert_int_equal(d.n, 1);
	free(p);
}

static void
test_forced_and_set(void **state)
{
	const char *forced[] = { "LD_PRELOAD=/lib/envshim.so",
	    "ENVSHIM_CONFIG=mode audit", NULL };
	const char *env[] = { "ld_preload=/evil.so", "A=1",
	    "ENVSHIM_AGENT=1:2", "LD_LIBRARY_PATH=/x", "envshim_config=x",
	    "EDITOR=emacs", "B=2", NULL };
	struct es_policy *p = malloc(sizeof(*p));
	struct run r;

	(void)state;
	assert_non_null(p);
	es_policy_init(p);
	add_set(p, "EDITOR=nano");
	add_set(p, "EDITOR=vi");
	add_set(p, "LD_PRELOAD=/other.so");
	add_set(p, "NEW=1");
	filt(p, NULL, 0, forced, &r, env);
	assert_int_equal(r.n, 6);
	assert_string_equal(r.out[0], "LD_PRELOAD=/lib/envshim.so");
	assert_string_equal(r.out[1], "ENVSHIM_CONFIG=mode audit");
	assert_string_equal(r.out[2], "A=1");
	assert_string_equal(r.out[3], "B=2");
	assert_string_equal(r.out[4], "EDITOR=vi");
	assert_string_equal(r.out[5], "NEW=1");
	assert_null(r.out[6]);
	assert_int_equal(r.v[0].reason, ES_R_LOCKED);
	assert_int_equal(r.v[2].reason, ES_R_LOCKED);
	assert_int_equal(r.v[3].reason, ES_R_INJECTION);
	assert_int_equal(r.v[4].reason, ES_R_LOCKED);
	assert_int_equal(r.v[5].reason, ES_R_POLICY);
	free(p);
}

static void
test_user_rules(void **state)
{
	struct es_policy *p = malloc(sizeof(*p));
	static const struct es_snapshot empty;

	(void)state;
	assert_non_null(p);
	es_policy_init(p);
	add_rule(p, ES_RULE_KEEP, "GITHUB_TOKEN");
	add_rule(p, ES_RULE_KEEP, "FOO");
	add_rule(p, ES_RULE_KEEP, "LD_PRELOAD");
	add_rule(p, ES_RULE_KEEP, "ENVSHIM_*");
	add_rule(p, ES_RULE_DROP, "PAGER");
	add_rule(p, ES_RULE_DROP, "ABC*");
	add_rule(p, ES_RULE_KEEP, "ABCD");
	add_rule(p, ES_RULE_KEEP, "XYZ");
	add_rule(p, ES_RULE_DROP, "X*Z");
	add_rule(p, ES_RULE_INJECTION, "MYTOOL_HOOK");
	add_rule(p, ES_RULE_SECRET_NAME, "*_SID");
	add_rule(p, ES_RULE_CAPABILITY, "VAULT_ADDR");
	add_rule(p, ES_RULE_SECRET_VALUE, "hunter2");
	add_rule(p, ES_RULE_KEEP, "SSH_AUTH_SOCK");
	add_rule(p, ES_RULE_KEEP, "NODE_OPTIONS");
	add_rule(p, ES_RULE_CHANGED, "PYTHONPATH");

	assert_int_equal(check("keep secret name", one(p, NULL, 0,
	    "GITHUB_TOKEN=x"), ES_KEEP, ES_R_POLICY), 0);
	assert_int_equal(check("keep beats value", one(p, NULL, 0,
	    "foo=https://u:p@h"), ES_KEEP, ES_R_POLICY), 0);
	assert_int_equal(check("keep cannot take LD_", one(p, NULL, 0,
	    "LD_PRELOAD=/x"), ES_DROP, ES_R_INJECTION), 0);
	assert_int_equal(check("keep cannot take ENVSHIM_", one(p, NULL, 0,
	    "ENVSHIM_X=1"), ES_DROP, ES_R_LOCKED), 0);
	assert_int_equal(check("keep cannot take malformed", one(p, NULL, 0,
	    "FOO"), ES_DROP, ES_R_MALFORMED), 0);
	assert_int_equal(check("drop", one(p, NULL, 0, "pager=less"),
	    ES_DROP, ES_R_POLICY), 0);
	assert_int_equal(check("last match wins, keep", one(p, NULL, 0,
	    "ABCD=1"), ES_KEEP, ES_R_POLICY), 0);
	assert_int_equal(check("last match wins, drop", one(p, NULL, 0,
	    "ABCE=1"), ES_DROP, ES_R_POLICY), 0);
	assert_int_equal(check("last match wins, later drop", one(p, NULL, 0,
	    "XYZ=1"), ES_DROP, ES_R_POLICY), 0);
	assert_int_equal(check("star matches empty", one(p, NULL, 0,
	    "XZ=1"), ES_DROP, ES_R_POLICY), 0);
	assert_int_equal(check("user injection", one(p, NULL, 0,
	    "MYTOOL_HOOK=1"), ES_DROP, ES_R_INJECTION), 0);
	assert_int_equal(check("user secret-name", one(p, NULL, 0,
	    "TWILIO_SID=1"), ES_DROP, ES_R_SECRET_NAME), 0);
	assert_int_equal(check("user secret-name, agent", one(p, NULL,
	    ES_F_AGENT, "TWILIO_SID=1"), ES_KEEP, ES_R_AGENT), 0);
	assert_int_equal(check("user capability", one(p, NULL, 0,
	    "VAULT_ADDR=1"), ES_DROP, ES_R_CAPABILITY), 0);
	assert_int_equal(check("user secret-value", one(p, NULL, 0,
	    "NOTE=xhunter2x"), ES_DROP, ES_R_SECRET_VALUE), 0);
	assert_int_equal(check("re-allowed capability", one(p, NULL, 0,
	    "SSH_AUTH_SOCK=/s"), ES_KEEP, ES_R_POLICY), 0);
	assert_int_equal(check("re-allowed injection", one(p, NULL, 0,
	    "NODE_OPTIONS=--x"), ES_KEEP, ES_R_POLICY), 0);
	assert_int_equal(check("changed rule, inherited", one(p, NULL, 0,
	    "PYTHONPATH=/x"), ES_KEEP, ES_R_DEFAULT), 0);
	assert_int_equal(check("changed rule, added", one(p, &empty, 0,
	    "PYTHONPATH=/x"), ES_DROP, ES_R_CHANGED), 0);
	/* what the sandbox asks of what it received: kept, still a capability */
	assert_int_equal(es_policy_capability(p, "SSH_AUTH_SOCK", 13), 1);
	assert_int_equal(es_policy_capability(p, "VAULT_ADDR", 10), 1);
	assert_int_equal(es_policy_capability(p, "DBUS_SESSION_BUS_ADDRESS",
	    24), 1);
	assert_int_equal(es_policy_capability(p, "PAGER", 5), 0);
	assert_int_equal(es_policy_capability(p, "XDG_RUNTIME_DIR", 15), 0);
	free(p);
}

static void
test_too_small(void **state)
{
	const char *env[] = { "A=1", "B=2", "C=3", NULL };
	const char *forced[] = { "F=1", NULL };
	static char scratch[1 << 16];
	const char *out[8];
	size_t need = es_filter_scratch(3, 12);

	(void)state;
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 4, NULL, scratch, need), 3);
	assert_null(out[3]);
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 3, NULL, scratch, need), -1);
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3,
	    forced, out, 4, NULL, scratch, need), -1);
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 4, NULL, scratch, need - 1), -1);
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 4, NULL, NULL, 0), -1);
	/* misaligned scratch still works */
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 4, NULL, scratch + 1, need), 3);
	/* NULL entries are skipped */
	env[1] = NULL;
	assert_int_equal(es_filter(&pol, NULL, 0, (char *const *)env, 3, NULL,
	    out, 4, NULL, scratch, need), 2);
}

/* n variables of vlen-byte values; one in 100 is a duplicate. */
static void
big(size_t n, size_t vlen)
{
	char **env = malloc((n + 1) * sizeof(*env));
	const char **out = malloc((n + 1) * sizeof(*out));
	struct es_verdict *v = malloc(n * sizeof(*v));
	size_t i, bytes = 0, ndup = 0, need;
	void *scratch;
	long r;

	assert_non_null(env);
	assert_non_null(out);
	assert_non_null(v);
	for (i = 0; i < n; i++) {
		env[i] = malloc(16 + vlen);
		assert_non_null(env[i]);
		snprintf(env[i], 16, "V%06u=", (unsigned)((i % 100 == 99 ? i - 1 : i) % 1000000));
		memset(env[i] + 8, 'a' + (int)(i % 26), vlen);
		env[i][8 + vlen] = '\0';
		bytes += strlen(env[i]) + 1;
		ndup += i % 100 == 99;
	}
	env[n] = NULL;
	need = es_filter_scratch(n, bytes);
	scratch = malloc(need);
	assert_non_null(scratch);
	r = es_filter(&pol, NULL, 0, env, n, NULL, out, n + 1, v, scratch,
	    need);
	assert_int_equal(r, (long)(n - ndup));
	assert_ptr_equal(out[0], env[0]);
	assert_ptr_equal(out[r - 1], env[(n - 1) % 100 == 99 ? n - 2 : n - 1]);
	assert_null(out[r]);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i].reason, i % 100 == 99 ? ES_R_DUPLICATE :
		    ES_R_DEFAULT);
	for (i = 0; i < n; i++)
		free(env[i]);
	free(env);
	free(out);
	free(v);
	free(scratch);
}

static void
test_20000_vars(void **state)
{
	(void)state;
	big(20000, 20);
}

static void
test_2mib(void **state)
{
	(void)state;
	big(512, 4096);		/* 2 MiB of values */
}

static void
test_names(void **state)
{
	unsigned r;

	(void)state;
	for (r = 0; r < ES_R__COUNT; r++)
		assert_string_not_equal(es_reason_name(r), "unknown");
	assert_string_equal(es_reason_name(ES_R_SECRET_VALUE), "secret-value");
	assert_string_equal(es_reason_name(ES_R__COUNT), "unknown");
	assert_string_equal(es_action_name(ES_REWRITE), "rewrite");
	assert_string_equal(es_action_name(7), "unknown");
	/* FNV-1a 64 test vectors */
	assert_true(es_hash("", 0) == 0xcbf29ce484222325ULL);
	assert_true(es_hash("a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(es_hash("foobar", 6) == 0x85944171f73967e8ULL);
}

static void
test_init(void **state)
{
	(void)state;
	assert_int_equal(pol.mode, ES_MODE_ENFORCE);
	assert_int_equal(pol.sandbox, ES_SANDBOX_ALL);
	assert_int_equal(pol.unfollowable, ES_UNFOLLOW_SANDBOX);
	assert_int_equal(pol.network, 1);
	assert_int_equal(pol.protect_self, 1);
	assert_int_equal(pol.log, ES_LOG_DEFAULT);
	assert_int_equal(pol.nlayers, 1);
	assert_string_equal(pol.layer_name[0], "builtin");
	assert_int_equal(pol.nrules, 0);
}

static void
test_format(void **state)
{
	static char buf[1 << 16];
	long n, m;
	size_t i;
	char line[128];

	(void)state;
	n = es_names_format(NULL, 0);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	m = es_names_format(buf, sizeof(buf));
	assert_int_equal(m, n);
	assert_int_equal(strlen(buf), (size_t)n);
	assert_int_equal(es_names_format(buf, (size_t)n), -1);
	es_names_format(buf, sizeof(buf));
	snprintf(line, sizeof(line), "injection PERLIO_DEBUG\t# builtin\n");
	assert_non_null(strstr(buf, line));
	assert_non_null(strstr(buf, "injection LD_*\t# builtin\n"));
	assert_non_null(strstr(buf, "secret-name GITHUB_TOKEN\t# builtin\n"));
	assert_non_null(strstr(buf, "capability SSH_AUTH_SOCK\t# builtin\n"));
	assert_non_null(strstr(buf, "changed PAGER\t# builtin\n"));
	assert_non_null(strstr(buf, "changed TF_VAR_*\t# builtin\n"));
	assert_non_null(strstr(buf, "keep TERM\t# builtin\n"));
	assert_non_null(strstr(buf, "keep LC_*\t# builtin\n"));
	/* every non-comment line is KEYWORD NAME\t# builtin */
	for (i = 0; buf[i] != '\0';) {
		size_t e = i + strcspn(buf + i, "\n");

		if (buf[i] != '#')
			assert_non_null(memmem(buf + i, e - i, "\t# builtin",
			    10));
		i = e + 1;
	}
}

/* The first-byte tables of names.c agree with the lists. */
static void
test_names_selfcheck(void **state)
{
	(void)state;
	assert_int_equal(es_names_selfcheck(), 0);
}

/*
 * Upper-case names take the one-pass path of es_names_scan; the same
 * names in lower case take the long way (camel-case aware).  Names
 * compare case-insensitively, so both must give the same classes and the
 * same secret-name verdict, for names built from the components, the
 * substrings, the prefixes and filler words, split by every separator.
 */
static void
test_names_fast_path(void **state)
{
	static const char *const parts[] = {
		"KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD",
		"PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "CREDS",
		"COOKIE", "BEARER", "PASS", "AUTH", "HEADER", "HEADERS", "PWD",
		"MY", "API", "ACCESS", "PRIVATE", "PUBLIC", "DSN", "HOME",
		"TOKENIZERS", "KEYTIMEOUT", "GIT", "AUTHOR", "LD", "LC", "XKB",
		"KEYBOARD", "B00001", "SSH", "X", "WORD", "CARGO", "TARGET",
		"RUNNER", "%%", "()", "PATH", "AWS", "ID",
	};
	static const char seps[] = "_-.:/_";
	static struct es_policy p;
	char up[128], low[128];
	uint32_t st = 88172645u;
	int k, n, bad = 0, secrets = 0;

	(void)state;
	es_policy_init(&p);
	for (k = 0; k < 50000; k++) {
		size_t len = 0, i;
		int np;

		st ^= st << 13;
		st ^= st >> 17;
		st ^= st << 5;
		np = 1 + (int)(st % 4);
		for (n = 0; n < np; n++) {
			const char *w = parts[(st >> (n * 6 + 2)) %
			    (sizeof(parts) / sizeof(parts[0]))];

			if (n > 0 && (st >> (n + 26)) % 3 != 0)
				up[len++] = seps[(st >> (n * 3)) % 6];
			memcpy(up + len, w, strlen(w));
			len += strlen(w);
		}
		for (i = 0; i < len; i++)
			low[i] = (char)((up[i] >= 'A' && up[i] <= 'Z') ?
			    up[i] + 32 : up[i]);
		{
			unsigned cu = es_names_class(p.names_ix, up, len);
			unsigned cl = es_names_class(p.names_ix, low, len);
			int su = es_names_secret(p.names_ix, up, len, cu);
			int sl = es_names_secret(p.names_ix, low, len, cl);

			secrets += su;
			if (cu != cl || su != sl) {
				print_error("%.*s: class %x/%x secret %d/%d\n",
				    (int)len, up, cu, cl, su, sl);
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
	assert_true(secrets > 5000 && secrets < 45000);
}

/*
 * es_names_scan (16 bytes a step where SSE2 is there) against its scalar
 * reference: names of every length around the steps, with each kind of
 * byte (cuts, K/W, lower case, % and (, '=', NUL, bytes >= 0x80) at
 * random places, in both modes; and its hash is es_names_hash's.
 */
static void
test_names_scan(void **state)
{
	static const char alpha[] = "AZaz09_-.:/kKwW%(=\0\x80\xffQ";
	char buf[80];
	uint32_t st = 2463534242u;
	int k, bad = 0;

	(void)state;
	for (k = 0; k < 200000; k++) {
		struct es_nscan a, b;
		size_t len, i, na, nb;
		int stop = k & 1;

		st ^= st << 13;
		st ^= st >> 17;
		st ^= st << 5;
		len = st % sizeof(buf);
		for (i = 0; i < len; i++) {
			st ^= st << 13;
			st ^= st >> 17;
			st ^= st << 5;
			buf[i] = st % 4 == 0 ? alpha[(st >> 8) %
			    (sizeof(alpha) - 1)] : (char)('A' + (st >> 8) % 26);
		}
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		na = es_names_scan(buf, len, stop, &a);
		nb = es_names_scan_scalar(buf, len, stop, &b);
		if (na != nb || memcmp(&a, &b, sizeof(a)) != 0 ||
		    a.hash != es_names_hash(buf, na)) {
			print_error("scan %d (len %zu, stop %d) differs\n", k,
			    len, stop);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * Program rules: a launch flagged with rule i keeps its names over the
 * heuristics and the user's drop rules, never over locked names, LD_* or
 * sets; an unflagged launch, or one flagged with another rule, does not.
 */
static void
test_program_rules(void **state)
{
	static const char text[] =
	    "drop DATABASE_URL\n"
	    "set FORCED=1\n"
	    "program github-mcp-server keep GITHUB_PERSONAL_ACCESS_TOKEN "
	    "DATABASE_URL SSH_AUTH_SOCK LD_X FORCED ENVSHIM_AGENT\n"
	    "program node /srv/a.js keep OPENAI_*\n"
	    "program node /srv/a.js --stdio keep DB_*\n"
	    "program /opt/mcp/bin/server keep TOKEN_A\n";
	struct es_parse_err err;
	const char *forced[] = { "ENVSHIM_AGENT=1:2:0", NULL };
	const char *env[] = {
	    "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	    "DATABASE_URL=postgres://u:pass@host/db", "SSH_AUTH_SOCK=/tmp/s",
	    "LD_X=1", "FORCED=2", "ENVSHIM_AGENT=9", "OPENAI_API_KEY=sk-x",
	    NULL };
	char *const a_js[] = { "node", "/srv/a.js", NULL };
	char *const a_js_stdio[] = { "node", "/srv/a.js", "--stdio", "x", NULL };
	char *const b_js[] = { "node", "/srv/b.js", NULL };
	char *const bare[] = { "x", NULL };
	struct run r;
	int bad = 0;

	(void)state;
	es_policy_init(&pol);
	assert_int_equal(es_policy_parse(&pol, text, strlen(text), "t.policy",
	    &err), 0);
	assert_int_equal(pol.nprograms, 4);

	filt(&pol, NULL, ES_F_PROGRAM(0), forced, &r, env);
	bad |= check("token", r.v[0], ES_KEEP, ES_R_PROGRAM);
	bad |= check("over drop", r.v[1], ES_KEEP, ES_R_PROGRAM);
	bad |= check("capability", r.v[2], ES_KEEP, ES_R_PROGRAM);
	bad |= check("LD_*", r.v[3], ES_DROP, ES_R_INJECTION);
	bad |= check("set", r.v[4], ES_DROP, ES_R_POLICY);
	bad |= check("forced", r.v[5], ES_DROP, ES_R_LOCKED);
	bad |= check("not named", r.v[6], ES_DROP, ES_R_SECRET_NAME);
	/* Another rule's launch, and no rule at all: the usual filter. */
	filt(&pol, NULL, ES_F_PROGRAM(1), forced, &r, env);
	bad |= check("rule 1: token", r.v[0], ES_DROP, ES_R_SECRET_NAME);
	bad |= check("rule 1: drop", r.v[1], ES_DROP, ES_R_POLICY);
	bad |= check("rule 1: OPENAI_*", r.v[6], ES_KEEP, ES_R_PROGRAM);
	filt(&pol, NULL, 0, forced, &r, env);
	bad |= check("none: token", r.v[0], ES_DROP, ES_R_SECRET_NAME);
	bad |= check("none: capability", r.v[2], ES_DROP, ES_R_CAPABILITY);
	/* A rule number past the table keeps nothing (fail closed). */
	filt(&pol, NULL, ES_F_PROGRAM(ES_MAX_PROGRAMS - 1), forced, &r, env);
	bad |= check("no such rule", r.v[0], ES_DROP, ES_R_SECRET_NAME);
	/*
	 * Withheld (a file the model could have written): the rule's names
	 * go, also over a keep and inside; what is not the rule's is decided
	 * as ever (inside: kept).
	 */
	filt(&pol, NULL, ES_F_PROGRAM(0) | ES_F_WITHHOLD, forced, &r, env);
	bad |= check("withheld: token", r.v[0], ES_DROP, ES_R_WRITABLE);
	bad |= check("withheld: capability", r.v[2], ES_DROP, ES_R_WRITABLE);
	bad |= check("withheld: not named", r.v[6], ES_DROP, ES_R_SECRET_NAME);
	filt(&pol, NULL, ES_F_PROGRAM(0) | ES_F_WITHHOLD | ES_F_INSIDE, forced,
	    &r, env);
	bad |= check("withheld inside: token", r.v[0], ES_DROP, ES_R_WRITABLE);
	bad |= check("withheld inside: not named", r.v[6], ES_KEEP, ES_R_INSIDE);
	filt(&pol, NULL, ES_F_PROGRAM(0) | ES_F_INSIDE, forced, &r, env);
	bad |= check("inside: token", r.v[0], ES_KEEP, ES_R_PROGRAM);
	assert_string_equal(es_reason_name(ES_R_WRITABLE), "writable");
	if (bad)
		fail();

	/* Matching: by name or path, leading arguments exact, most words win. */
	assert_int_equal(es_program_match(&pol, "/usr/local/bin/github-mcp-server",
	    NULL, bare), 0);
	assert_int_equal(es_program_match(&pol, "/usr/local/bin/gh",
	    "/opt/x/github-mcp-server", bare), 0);
	assert_int_equal(es_program_match(&pol, "./github-mcp-server-2",
	    NULL, bare), -1);
	assert_int_equal(es_program_match(&pol, "/usr/bin/node", NULL, a_js), 1);
	assert_int_equal(es_program_match(&pol, "/usr/bin/node", NULL,
	    a_js_stdio), 2);
	assert_int_equal(es_program_match(&pol, "/usr/bin/node", NULL, b_js), -1);
	assert_int_equal(es_program_match(&pol, "/usr/bin/node", NULL, bare), -1);
	assert_int_equal(es_program_match(&pol, "/opt/mcp/bin/server", NULL,
	    bare), 3);
	assert_int_equal(es_program_match(&pol, "/usr/bin/server",
	    "/opt/mcp/bin/server", bare), 3);
	assert_int_equal(es_program_match(&pol, "/srv/server", NULL, bare), -1);
	assert_int_equal(es_program_match(&pol, "/usr/bin/node", NULL, NULL), -1);
	assert_non_null(es_program_keep(&pol, 1, "openai_api_key", 14));
	assert_null(es_program_keep(&pol, 1, "DB_X", 4));
	assert_null(es_program_keep(&pol, 7, "DB_X", 4));
	es_policy_init(&pol);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_index_unique),
		cmocka_unit_test(test_every_name),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_agent),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_boundary_pairs),
		cmocka_unit_test(test_inside),
		cmocka_unit_test(test_rewrites),
		cmocka_unit_test(test_path_many_entries),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_forced_and_set),
		cmocka_unit_test(test_user_rules),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_20000_vars),
		cmocka_unit_test(test_2mib),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_format),
		cmocka_unit_test_setup(test_program_rules, setup),
		cmocka_unit_test(test_names_selfcheck),
		cmocka_unit_test(test_names_fast_path),
		cmocka_unit_test(test_names_scan),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
