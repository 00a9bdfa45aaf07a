/*
 * test_pkg.c - which packages a package.json makes part of an agent's
 * install: its "optionalDependencies", as Codex and Copilot CLI ship
 * their native binaries, and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "es_limits.h"
#include "es_pkg.h"

static int
names(const char *json, char *out, size_t cap)
{
	return es_pkg_optional(json, strlen(json), out, cap, ES_TREE_MAX);
}

static void
codex_layout(void **state)
{
	const char *json = "{\n  \"name\": \"@openai/codex\",\n"
	    "  \"bin\": {\"codex\": \"bin/codex.js\"},\n"
	    "  \"files\": [\"bin/codex.js\", {\"x\": [1, 2.5e3, true, null]}],\n"
	    "  \"dependencies\": {\"left-pad\": \"1\"},\n"
	    "  \"optionalDependencies\": {\n"
	    "    \"@openai/codex-linux-x64\": \"npm:@openai/codex@0.171.0-linux-x64\",\n"
	    "    \"@openai/codex-linux-arm64\": \"npm:@openai/codex@0.171.0-linux-arm64\"\n"
	    "  },\n  \"say\": \"a \\\"quoted\\\" } brace\"\n}\n";
	char out[256];

	(void)state;
	assert_int_equal(names(json, out, sizeof(out)), 2);
	assert_string_equal(out, "@openai/codex-linux-x64");
	assert_string_equal(out + strlen(out) + 1, "@openai/codex-linux-arm64");
}

static void
dependencies_are_not_the_install(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(names("{\"dependencies\":{\"@vscode/ripgrep\":\"1\"}}", out,
	    sizeof(out)), 0);
	assert_int_equal(names("{}", out, sizeof(out)), 0);
	/* Nested deeper is not the top-level key. */
	assert_int_equal(names("{\"x\":{\"optionalDependencies\":{\"a\":\"1\"}}}",
	    out, sizeof(out)), 0);
}

static void
only_names_npm_could_install(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(names("{\"optionalDependencies\":{\"../../etc\":\"1\","
	    "\"a/b\":\"1\",\"@s/../x\":\"1\",\".hidden\":\"1\",\"@s/\":\"1\","
	    "\"UPPER\":\"1\",\"a\\\\b\":\"1\",\"@s/ok\":\"1\",\"fine-1.x\":\"1\"}}",
	    out, sizeof(out)), 2);
	assert_string_equal(out, "@s/ok");
	assert_string_equal(out + 6, "fine-1.x");
}

static void
bounded(void **state)
{
	char out[16], deep[256];
	size_t i;

	(void)state;
	/* At most max names, and only those that fit. */
	assert_int_equal(names("{\"optionalDependencies\":{\"a\":1,\"b\":1,\"c\":1,"
	    "\"d\":1,\"e\":1}}", out, sizeof(out)), ES_TREE_MAX);
	assert_int_equal(names("{\"optionalDependencies\":{\"aaaaaaaaaaaaaaaaaaaa\":1}}",
	    out, sizeof(out)), 0);
	/* Not an object, cut short, or nested past ES_PKG_DEPTH: malformed. */
	assert_int_equal(names("[]", out, sizeof(out)), -1);
	assert_int_equal(names("{\"optionalDependencies\":{\"a\":", out, sizeof(out)), -1);
	assert_int_equal(names("{\"a\":\"unterminated}", out, sizeof(out)), -1);
	memcpy(deep, "{\"a\":", 5);
	for (i = 5; i < 5 + 100; i++)
		deep[i] = '[';
	deep[i] = '\0';
	assert_int_equal(names(deep, out, sizeof(out)), -1);
	assert_int_equal(es_pkg_optional("", 0, out, sizeof(out), 4), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codex_layout),
		cmocka_unit_test(dependencies_are_not_the_install),
		cmocka_unit_test(only_names_npm_could_install),
		cmocka_unit_test(bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
