/*
 * test_hide.c - the builtin hide list as data: every entry well formed
 * and in a group, the glob that expands it, reveal as the grammar takes
 * it, and the list as `envshim policy --builtin` prints it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "es_hide.h"
#include "es_policy.h"

static struct es_policy	P;
static char		buf[1 << 17];

static void
fresh(struct es_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->layer_name[0] = "builtin";
	p->nlayers = 1;
}

static int
parse(const char *s, struct es_parse_err *err)
{
	return es_policy_parse(&P, s, strlen(s), "test.policy", err);
}

/* Each entry: ~/, / or $NAME, no "..", no "//", in a group, once. */
static void
test_entries(void **state)
{
	size_t i, j, keep = 0;
	const char *s;

	(void)state;
	assert_true(es_hide_n >= 100);
	assert_int_equal(es_hide_ngroups, 14);
	for (i = 0; i < es_hide_n; i++) {
		s = es_hide_list[i].path;
		assert_true(strncmp(s, "~/", 2) == 0 || s[0] == '/' ||
		    s[0] == '$');
		assert_null(strstr(s, ".."));
		assert_null(strstr(s, "//"));
		assert_true(es_hide_list[i].group < es_hide_ngroups);
		for (j = 0; j < i; j++)
			if (strcmp(es_hide_list[j].path, s) == 0)
				fail_msg("%s listed twice", s);
		if (es_hide_list[i].flags & ES_HIDE_KEEP)
			keep++;
	}
	/* ssh's known_hosts, config, config.d: what git over ssh needs */
	assert_int_equal(keep, 3);
	for (i = 0; i < es_hide_ngroups; i++) {
		assert_non_null(es_hide_groups[i].name);
		assert_true(strlen(es_hide_groups[i].why) > 10);
	}
}

/* The agents' logins per file; their shell plumbing is never an entry. */
static void
test_agent_files(void **state)
{
	static const char *const hidden[] = {
		"~/.claude/.credentials.json", "~/.claude.json",
		"~/.codex/auth.json", "~/.gemini/oauth_creds.json",
		"~/.npmrc", "~/.ssh/*", "~/.*_history", "~/*.pem",
		"~/.config/google-chrome*/"
	};
	static const char *const kept[] = {
		"~/.claude", "~/.claude/", "~/.codex/", "~/.codex/tmp/",
		"~/.claude/shell-snapshots/", "~/.codex/shell_snapshots/",
		"~/.ssh/known_hosts", "~/.ssh", "~/.gitconfig", "~/.bashrc"
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		assert_non_null(es_hide_find(hidden[i], strlen(hidden[i])));
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_null(es_hide_find(kept[i], strlen(kept[i])));
	/* a prefix of an entry is not that entry */
	assert_null(es_hide_find("~/.npmr", 7));
}

static int
g(const char *pat, const char *name)
{
	return es_hide_glob(pat, strlen(pat), name);
}

static void
test_glob(void **state)
{
	(void)state;
	assert_true(g(".*_history", ".bash_history"));
	assert_true(g(".*_history", "._history"));
	assert_false(g(".*_history", ".bash_history.old"));
	assert_true(g(".*_history_*", ".zsh_history_1"));
	assert_true(g("*.pem", "a.pem"));
	assert_true(g("*.pem", ".hidden.pem"));
	assert_false(g("*.pem", "a.pem.txt"));
	assert_true(g("google-chrome*", "google-chrome"));
	assert_true(g("google-chrome*", "google-chrome-beta"));
	assert_false(g("google-chrome*", "chromium"));
	assert_true(g("*oauth-tokens*.json", "mcp-oauth-tokens-v2.json"));
	assert_true(g("*oauth-tokens*.json", "oauth-tokens.json"));
	assert_false(g("*oauth-tokens*.json", "oauth-tokens.jsonx"));
	assert_true(g("*", "x"));
	assert_true(g("auth*.json", "auth.json"));
	assert_true(g("a*b*c", "aXbYbZc"));
	assert_false(g("a*b*c", "aXbYbZ"));
	assert_true(g("plain", "plain"));
	assert_false(g("plain", "plainer"));
	/* the length bounds the pattern: the rest of the path is not read */
	assert_true(es_hide_glob(".ssh/x", 4, ".ssh"));
}

static void
test_reveal(void **state)
{
	struct es_parse_err err;
	long n;

	(void)state;
	fresh(&P);
	assert_int_equal(parse("reveal ~/.npmrc\nreveal ~/.pgpass\n"
	    "reveal ~/.npmrc\n", &err), 0);
	assert_int_equal(P.nreveal, 2);
	assert_string_equal(P.reveal[0].s, "~/.npmrc");
	assert_int_equal(P.reveal[1].line, 2);
	n = es_policy_format(&P, ES_FMT_ORIGIN, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, "reveal ~/.npmrc\t# test.policy:1\n"));

	fresh(&P);
	assert_int_equal(parse("keep X\nreveal ~/.bash_history\n", &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.what, "not in the builtin hide list"));
	fresh(&P);
	assert_int_equal(parse("reveal\n", &err), -1);
	fresh(&P);
	/* a kept entry is not hidden, so there is nothing to reveal */
	assert_int_equal(parse("reveal ~/.ssh/known_hosts\n", &err), -1);
}

/* home private: a scalar with its line; the allow-list has no pattern */
static void
test_home_private(void **state)
{
	struct es_parse_err err;
	size_t i;

	(void)state;
	fresh(&P);
	assert_int_equal(P.home_private, 0);
	assert_int_equal(parse("keep X\nhome private\n", &err), 0);
	assert_int_equal(P.home_private, 1);
	assert_int_equal(P.home_private_line, 2);
	assert_int_equal(es_policy_format(&P, ES_FMT_ORIGIN, buf, sizeof(buf)) > 0,
	    1);
	assert_non_null(strstr(buf, "home private\t# test.policy:2\n"));
	assert_int_equal(parse("home visible\n", &err), 0);
	assert_int_equal(P.home_private, 0);
	assert_int_equal(parse("home open\n", &err), -1);
	assert_non_null(strstr(err.what, "visible or private"));
	for (i = 0; i < es_home_nkeep; i++) {
		assert_true(strncmp(es_home_keep[i], "~/", 2) == 0);
		assert_null(strchr(es_home_keep[i], '*'));
		assert_null(strstr(es_home_keep[i], ".."));
	}
}

/*
 * home-layer: session by default, workspace kept; the fallback's cache
 * list has no pattern, and no entry lies below another (one bind each).
 */
static void
test_home_layer(void **state)
{
	struct es_parse_err err;
	size_t i, j, n;

	(void)state;
	fresh(&P);
	assert_int_equal(P.home_layer, ES_LAYER_SESSION);
	assert_int_equal(parse("home-layer workspace\n", &err), 0);
	assert_int_equal(P.home_layer, ES_LAYER_WORKSPACE);
	assert_int_equal(es_policy_format(&P, ES_FMT_ORIGIN, buf, sizeof(buf)) > 0,
	    1);
	assert_non_null(strstr(buf, "home-layer workspace\t# test.policy:1\n"));
	assert_int_equal(parse("home-layer session\n", &err), 0);
	assert_int_equal(P.home_layer, ES_LAYER_SESSION);
	assert_int_equal(parse("home-layer keep\n", &err), -1);
	assert_non_null(strstr(err.what, "session or workspace"));
	for (i = 0; i < es_home_ncache; i++) {
		assert_true(strncmp(es_home_cache[i].path, "~/", 2) == 0);
		assert_null(strchr(es_home_cache[i].path, '*'));
		assert_non_null(es_home_cache[i].why);
		n = strlen(es_home_cache[i].path);
		for (j = 0; j < es_home_ncache; j++)
			assert_false(j != i && strncmp(es_home_cache[j].path,
			    es_home_cache[i].path, n) == 0 &&
			    es_home_cache[j].path[n] == '/');
	}
}

/* --builtin prints every entry, as comments: the output still reads back. */
static void
test_format(void **state)
{
	struct es_parse_err err;
	char line[512];
	long n;
	size_t i;

	(void)state;
	n = es_hide_format(NULL, 0);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(es_hide_format(buf, (size_t)n), -1);
	assert_int_equal(es_hide_format(buf, sizeof(buf)), n);
	for (i = 0; i < es_hide_n; i++) {
		snprintf(line, sizeof(line), "\n#\t%s%s\n",
		    es_hide_list[i].flags & ES_HIDE_KEEP ?
		    "kept readable: " : "", es_hide_list[i].path);
		if (strstr(buf, line) == NULL)
			fail_msg("%s not printed", es_hide_list[i].path);
	}
	for (i = 0; i < es_hide_ngroups; i++) {
		snprintf(line, sizeof(line), "\n# hide %s: %s\n",
		    es_hide_groups[i].name, es_hide_groups[i].why);
		assert_non_null(strstr(buf, line));
	}
	fresh(&P);
	assert_int_equal(parse(buf, &err), 0);
	assert_int_equal(P.nrules + P.nhide + P.nreveal, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_agent_files),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_reveal),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_home_private),
		cmocka_unit_test(test_home_layer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
