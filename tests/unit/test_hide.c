/*
 * test_hide.c - the builtin hide list as data: every entry well formed
 * and in a group, the glob that expands it, reveal as the grammar takes
 * it, the list as `envshim policy --builtin` prints it, and what makes
 * build configuration hold a credential.
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

/*
 * Issue 20: the agents' settings (MCP env blocks), IDE lock files,
 * transcripts and the tools' key files the research names, each an
 * entry; the shells' plumbing and the agents' workspaces never are.
 */
static void
test_settings(void **state)
{
	static const char *const hidden[] = {
		"~/.claude/*settings*.json", "~/.claude/ide/",
		"$CLAUDE_CONFIG_DIR/ide/", "~/.claude-*.json",
		"~/.claude/.config.json", "/etc/claude-code/",
		"~/.codex/config.toml", "$CODEX_HOME/config.toml",
		"~/.codex/*.sqlite*", "~/.gemini/settings.json",
		"$GEMINI_CLI_HOME/.gemini/settings.json",
		"~/.gemini/tmp/*/chats/", "~/.gemini/tmp/*/shell_history",
		"~/.qwen/settings.json", "~/.qwen/channels/",
		"~/.copilot/mcp-config.json", "~/.copilot/ide/",
		"~/.config/opencode/opencode.json*", "$OPENCODE_CONFIG",
		"~/.local/share/opencode/opencode*.db*",
		"~/.pi/agent/sessions/", "~/.openclaw/openclaw.json*",
		"~/.openclaw/.env", "~/.openclaw/gateway.token",
		"$OPENCLAW_CONFIG_PATH", "~/.aider.conf.yml",
		"~/.continue/config.yaml", "~/.augment/settings.json",
		"~/.cline/data/globalState.json", "~/.config/amp/",
		"~/.config/crush/crush.json", "~/.cursor/mcp.json",
		"~/.config/goose/config.yaml", "~/.kilocode/",
		"~/.sbt/.credentials", "~/.ivy2/.credentials",
		"~/.bundle/config", "~/.jfrog/", "$NETRC", "$DOCKER_CONFIG/",
		"$GH_CONFIG_DIR/", "$AZURE_CONFIG_DIR/", "~/.authinfo",
		"~/.envrc", "~/.vscode-server/data/User/globalStorage/"
	};
	static const char *const ifsecret[] = {
		"~/.m2/settings.xml", "~/.gradle/gradle.properties",
		"~/.config/pip/pip.conf", "~/.cargo/config.toml",
		"~/.nuget/NuGet/NuGet.Config", "~/.terraformrc"
	};
	static const char *const kept[] = {
		"~/.gemini/tmp/", "~/.gemini/", "~/.openclaw/",
		"~/.openclaw/workspace/", "~/.copilot/", "~/.pi/agent/",
		"~/.m2/repository/", "~/.gradle/"
	};
	const struct es_hide_entry *e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		if ((e = es_hide_find(hidden[i], strlen(hidden[i]))) == NULL)
			fail_msg("%s is not an entry", hidden[i]);
		assert_int_equal(e->flags, 0);
		assert_null(e->stub);
	}
	for (i = 0; i < sizeof(ifsecret) / sizeof(ifsecret[0]); i++) {
		if ((e = es_hide_find(ifsecret[i], strlen(ifsecret[i]))) == NULL)
			fail_msg("%s is not an entry", ifsecret[i]);
		assert_int_equal(e->flags, ES_HIDE_IFSECRET);
	}
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_null(es_hide_find(kept[i], strlen(kept[i])));
	/* Maven and NuGet refuse an empty file: theirs holds a root element */
	assert_string_equal(es_hide_find("~/.m2/settings.xml", 18)->stub,
	    "<settings/>\n");
	e = es_hide_find("~/.nuget/NuGet/NuGet.Config", 27);
	assert_string_equal(e->stub, "<configuration/>\n");
	for (i = 0; i < es_hide_n; i++)
		assert_true(es_hide_list[i].stub == NULL ||
		    (es_hide_list[i].flags & ES_HIDE_IFSECRET));
}

static int
holds(const char *text, unsigned *line)
{
	const char *what;
	unsigned l = 0;
	int r = es_hide_secret_in(NULL, text, strlen(text), &what, &l);

	if (line != NULL)
		*line = l;
	return r;
}

/*
 * What holds a credential, in the formats of the build files the list
 * reads: Maven's and NuGet's XML, Gradle's properties, pip's and Cargo's
 * INI and TOML, npm's and yarn's rc files, YAML and JSON.
 */
static void
test_secret_in(void **state)
{
	static const char *const yes[] = {
		/* Maven: a server's password, in any layout */
		"<settings><servers><server><id>d</id><username>me</username>"
		    "<password>hunter2</password></server></servers></settings>",
		"<server>\n  <password>\n    hunter2\n  </password>\n</server>",
		"<profile><properties><gpg.passphrase>x</gpg.passphrase>"
		    "</properties></profile>",
		"<proxy><host>p</host><password>{COQLCE6DU6GtcS5P=}</password>"
		    "</proxy>",
		/* NuGet: the credential named in one attribute, its value in another */
		"<packageSourceCredentials><corp>\n"
		    "<add key=\"ClearTextPassword\" value=\"hunter2\" />\n",
		"<apikeys><add key=\"https://nuget.org\" value=\"AQAAANC\" /></apikeys>",
		/* Gradle, pip, Cargo, Terraform */
		"org.gradle.jvmargs=-Xmx2g\nsigning.password=hunter2\n",
		"systemProp.https.proxyPassword = hunter2\n",
		"[global]\nindex-url = https://me:hunter2@pypi.example.org/simple\n",
		"[registries.corp]\nindex = \"sparse+https://c.example.org/\"\n"
		    "token = \"hunter2\"\n",
		"credentials \"app.terraform.io\" {\n  token = \"hunter2\"\n}\n",
		/* npm, yarn 1 and yarn 2 */
		"//registry.example.org/:_authToken=hunter2\n",
		"\"//registry.example.org/:_authToken\" \"hunter2\"\n",
		"npmAuthToken: hunter2\n",
		/* JSON, a shape, and a commented-out one */
		"{\n  \"apiKey\": \"hunter2\",\n}\n",
		"{\"auth\": \"dXNlcjpwYXNz=\"}\n", "password: dXNlcg=\n",
		"mirror=https://m.example.org/\nkey=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
		"# signing.password=hunter2\n",
		"<!-- <password>hunter2</password> -->\n"
	};
	static const char *const no[] = {
		"",
		/* mirrors and proxies alone */
		"<settings>\n  <localRepository>/r</localRepository>\n"
		    "  <mirrors><mirror><id>corp</id><mirrorOf>*</mirrorOf>"
		    "<url>https://maven.example.org/private/</url></mirror></mirrors>\n"
		    "  <proxies><proxy><host>proxy</host><port>3128</port>"
		    "</proxy></proxies>\n</settings>\n",
		/* the secret from the environment, as each tool allows */
		"<server><id>d</id><password>${env.DEPLOY_PASSWORD}</password></server>",
		"<add key=\"ClearTextPassword\" value=\"%NUGET_PAT%\" />",
		"//registry.example.org/:_authToken=${NPM_TOKEN}\n",
		"npmAuthToken: \"${NPM_TOKEN}\"\n",
		/* empty values, booleans, a credential's name in a tag alone */
		"signing.password=\n", "always-auth=true\n",
		"<packageSourceCredentials>\n</packageSourceCredentials>\n",
		"<password/>\n",
		"org.gradle.jvmargs=-Xmx2g\norg.gradle.parallel=true\n",
		"[global]\nindex-url = https://pypi.example.org/simple\n",
		"[net]\ngit-fetch-with-cli = true\n"
	};
	unsigned line;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!holds(yes[i], NULL))
			fail_msg("no credential found in: %s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (holds(no[i], NULL))
			fail_msg("a credential found in: %s", no[i]);
	/* the line it is on, for doctor; the shape's name */
	assert_true(holds("a=1\nb=2\nsigning.password=x\n", &line));
	assert_int_equal(line, 3);
	{
		const char *what = NULL;
		const char *t = "x\ntoken ghp_abcdefghijklmnopqrstuvwxyz0123456789";

		assert_int_equal(es_hide_secret_in(NULL, t, strlen(t), &what,
		    &line), 1);
		assert_string_equal(what, "github-pat");
		assert_int_equal(line, 2);
	}
	/* the length bounds the text: nothing past it is read */
	assert_false(es_hide_secret_in(NULL, "a=1\npassword=x", 4,
	    &(const char *){ NULL }, &line));
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
		    es_hide_list[i].flags & ES_HIDE_KEEP ? "kept readable: " :
		    es_hide_list[i].flags & ES_HIDE_IFSECRET ?
		    "if it holds a credential: " : "", es_hide_list[i].path);
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
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_secret_in),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_reveal),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_home_private),
		cmocka_unit_test(test_home_layer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
