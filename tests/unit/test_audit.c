/*
 * test_audit.c - the audit line: exact shape, escaping, masking, and a
 * record cut short that still parses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "es_exec.h"

static struct es_policy pol;

static int
setup(void **state)
{
	(void)state;
	es_policy_init(&pol);
	return 0;
}

static void
exact_record(void **state)
{
	char *env[] = { "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "PATH=/bin:.",
	    "HOME=/h", "NOEQUALS", NULL };
	struct es_verdict v[] = { { ES_DROP, ES_R_SECRET_NAME }, { ES_REWRITE, ES_R_NORMALISED },
	    { ES_KEEP, ES_R_SAFE }, { ES_DROP, ES_R_MALFORMED } };
	char *argv[] = { "bash", "-c", "echo \"hi\"\n", NULL };
	struct es_audit a = { .time_ms = 1764493200123LL, .pid = 42, .ppid = 7,
	    .hook = "execve", .path = "/bin/bash", .argv = argv, .action = "sandbox",
	    .envp = env, .n = 4, .v = v, .p = &pol };
	char buf[ES_LOG_LINE];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf,
	    "{\"time\":\"2025-11-30T09:00:00.123Z\",\"pid\":42,\"ppid\":7,"
	    "\"hook\":\"execve\",\"action\":\"sandbox\",\"inside\":false,"
	    "\"agent\":false,\"mode\":\"enforce\",\"path\":\"/bin/bash\","
	    "\"dropped\":[{\"name\":\"GITHUB_TOKEN\",\"reason\":\"secret-name\"},"
	    "{\"name\":\"\",\"reason\":\"malformed\"}],"
	    "\"rewritten\":[{\"name\":\"PATH\",\"reason\":\"normalised\"}],"
	    "\"argv\":[\"bash\",\"-c\",\"echo \\\"hi\\\"\\u000a\"]}\n");
	assert_null(strstr(buf, "ghp_"));
	assert_null(strstr(buf, "NOEQUALS"));
}

static void
inherited_shim_entries_are_quiet(void **state)
{
	char *env[] = { "LD_PRELOAD=/lib/envshim/libenvshim.so", "LD_PRELOAD=/tmp/evil.so",
	    "ENVSHIM_POLICY=/dev/null", NULL };
	const char *forced[] = { "LD_PRELOAD=/lib/envshim/libenvshim.so", NULL };
	struct es_verdict v[] = { { ES_DROP, ES_R_LOCKED }, { ES_DROP, ES_R_LOCKED },
	    { ES_DROP, ES_R_LOCKED } };
	struct es_audit a = { .hook = "execve", .path = "/bin/true", .action = "run",
	    .envp = env, .n = 3, .v = v, .p = &pol, .quiet = forced };
	char buf[1024];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	/* The agent's own attempts stay visible; the shim's own copy does not. */
	assert_non_null(strstr(buf, "\"dropped\":[{\"name\":\"LD_PRELOAD\",\"reason\":\"locked\"},"
	    "{\"name\":\"ENVSHIM_POLICY\",\"reason\":\"locked\"}]"));
}

/* A hand-over names the file of the install; only an agent launch has one. */
static void
handover_is_recorded(void **state)
{
	char *argv[] = { "node", "--expose-gc", "/p/cli.js", NULL };
	struct es_audit a = { .hook = "posix_spawn", .path = "/usr/bin/node",
	    .argv = argv, .action = "run", .agent = 1, .handover = "/p/cli.js",
	    .p = &pol };
	char buf[1024];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"agent\":true,\"handover\":\"/p/cli.js\",\"mode\""));
	a.agent = 0;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_null(strstr(buf, "handover"));
}

static void
secret_arguments_are_masked(void **state)
{
	char *argv[] = { "curl", "-H", "Authorization: token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	    "https://user:hunter2@example.com/", NULL };
	struct es_audit a = { .hook = "execvp", .path = "/usr/bin/curl", .argv = argv,
	    .action = "run", .p = &pol };
	char buf[ES_LOG_LINE];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_null(strstr(buf, "ghp_"));
	assert_null(strstr(buf, "hunter2"));
	assert_non_null(strstr(buf, "\"argv\":[\"curl\",\"-H\",\"***\",\"***\"]"));
}

static void
audit_mode_says_what_enforce_would_do(void **state)
{
	struct es_audit a = { .hook = "posix_spawn", .path = "/bin/sh", .action = "audit",
	    .would = "sandbox", .audit_mode = 1, .inside = 1, .reason = "why \"not\"",
	    .p = &pol };
	char buf[1024];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"action\":\"audit\",\"would\":\"sandbox\",\"reason\":\"why \\\"not\\\"\""));
	assert_non_null(strstr(buf, "\"inside\":true"));
	assert_null(strstr(buf, "\"sandbox\":"));
	a.sandbox = 4242;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"inside\":true,\"sandbox\":4242,"));
	a.inside = 0;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_null(strstr(buf, "\"sandbox\":"));
	assert_non_null(strstr(buf, "\"mode\":\"audit\""));
	assert_non_null(strstr(buf, "\"argv\":[]"));
}

/* Brackets and quotes balance, and the line ends the way a record ends. */
static void
assert_balanced(const char *s, size_t n)
{
	int depth = 0, in = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (in) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in = 0;
			continue;
		}
		if (s[i] == '"')
			in = 1;
		else if (s[i] == '{' || s[i] == '[')
			depth++;
		else if (s[i] == '}' || s[i] == ']')
			depth--;
		assert_true(depth >= 0);
	}
	assert_false(in);
	assert_int_equal(depth, 0);
	assert_int_equal(s[n - 1], '\n');
	assert_int_equal(s[n - 2], '}');
}

static void
cut_records_stay_valid(void **state)
{
	static char *env[2000];
	static struct es_verdict v[2000];
	static char names[2000][40];
	static char *argv[300];
	static char arg[300][64];
	struct es_audit a = { .hook = "execve", .path = "/usr/bin/env", .action = "run",
	    .envp = env, .n = 2000, .v = v, .argv = argv, .p = &pol };
	char buf[ES_LOG_LINE];
	size_t len;
	int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		memcpy(names[i], "SOME_LONG_SECRET_TOKEN_NAME_000=v", 34);
		names[i][28] = (char)('0' + i / 100 % 10);
		env[i] = names[i];
		v[i].action = ES_DROP;
		v[i].reason = ES_R_SECRET_NAME;
	}
	for (i = 0; i < 299; i++) {
		memset(arg[i], '"', 63);
		argv[i] = arg[i];
	}
	/* Every size from the minimum up: the cut must land anywhere safely. */
	for (len = 256; len <= sizeof(buf); len += 97) {
		long n = es_audit_format(&a, buf, len);

		assert_true(n > 0 && (size_t)n < len);
		assert_balanced(buf, (size_t)n);
		assert_non_null(strstr(buf, "\"truncated\":true"));
	}
	/* Argument list alone too long. */
	a.n = 0;
	for (len = 256; len <= sizeof(buf); len += 131) {
		long n = es_audit_format(&a, buf, len);

		assert_true(n > 0);
		assert_balanced(buf, (size_t)n);
	}
	assert_int_equal(es_audit_format(&a, buf, 100), -1);
}

/*
 * Found by fuzz_audit: when not even the first name of "dropped" fits,
 * the record came out as "dropped":[,"truncated":true} (no closing ']'),
 * and a cut inside a key left "rewritten":,"truncated" behind.
 */
static void
cut_before_the_first_name(void **state)
{
	char path[200], *env[] = { "A_RATHER_LONG_SECRET_NAME_FOR_THIS=x", NULL };
	struct es_verdict v[] = { { ES_DROP, ES_R_SECRET_NAME } };
	char *argv[] = { "sh", NULL };
	struct es_audit a = { .hook = "posix_spawn", .path = path, .action = "run",
	    .envp = env, .n = 1, .v = v, .argv = argv, .p = &pol };
	char buf[512];
	size_t len;
	long n;
	int empty = 0;

	(void)state;
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	/* Every size, so each member and each key is the one cut somewhere. */
	for (len = 256; len <= sizeof(buf); len++) {
		n = es_audit_format(&a, buf, len);
		assert_true(n > 0 && (size_t)n < len);
		assert_balanced(buf, (size_t)n);
		buf[n] = '\0';
		assert_null(strstr(buf, ",,"));
		assert_null(strstr(buf, ":,"));
		assert_null(strstr(buf, "[,"));
		if (strstr(buf, "\"dropped\":[],\"truncated\":true}") != NULL)
			empty = 1;
	}
	assert_true(empty);
}

static void
dates_across_eras(void **state)
{
	struct es_audit a = { .hook = "h", .path = "p", .action = "run", .p = &pol };
	char buf[512];

	(void)state;
	a.time_ms = 0;
	es_audit_format(&a, buf, sizeof(buf));
	assert_memory_equal(buf, "{\"time\":\"1970-01-01T00:00:00.000Z\"", 34);
	a.time_ms = 951782400000LL;	/* a leap day */
	es_audit_format(&a, buf, sizeof(buf));
	assert_memory_equal(buf, "{\"time\":\"2000-02-29T00:00:00.000Z\"", 34);
	a.time_ms = 4102444799999LL;
	es_audit_format(&a, buf, sizeof(buf));
	assert_memory_equal(buf, "{\"time\":\"2099-12-31T23:59:59.999Z\"", 34);
}

/*
 * A launch under a program rule lists what the rule kept and where the
 * rule is; an agent's launch lists the secrets it set for that launch
 * alone and lost, never those it holds itself, and never a value.
 */
static void
program_kept_and_lost(void **state)
{
	static const char text[] = "program srv keep GH_TOKEN\n";
	struct es_parse_err err;
	char *env[] = { "GH_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	    "OPENAI_API_KEY=sk-proj-for-this-child", "AWS_SECRET_ACCESS_KEY=mine",
	    "HOME=/h", NULL };
	char *own[] = { "AWS_SECRET_ACCESS_KEY=mine", "OPENAI_API_KEY=other",
	    NULL };
	struct es_verdict v[] = { { ES_KEEP, ES_R_PROGRAM },
	    { ES_DROP, ES_R_SECRET_NAME }, { ES_DROP, ES_R_SECRET_NAME },
	    { ES_KEEP, ES_R_SAFE } };
	struct es_audit a = { .hook = "posix_spawn", .path = "/usr/bin/srv",
	    .action = "run", .envp = env, .n = 4, .v = v, .p = &pol,
	    .program = 1, .own = own };
	char buf[2048];
	long n;

	(void)state;
	assert_int_equal(es_policy_parse(&pol, text, strlen(text), "/p/policy",
	    &err), 0);
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, ",\"program\":\"/p/policy:1\",\"kept\":"
	    "[{\"name\":\"GH_TOKEN\",\"reason\":\"program\",\"rule\":"
	    "\"/p/policy:1\"}],\"lost\":[{\"name\":\"OPENAI_API_KEY\","
	    "\"reason\":\"secret-name\"}],"));
	assert_null(strstr(buf, "ghp_"));
	assert_null(strstr(buf, "sk-proj"));
	/* A descendant names the rule as its mark does. */
	a.program_rule = "/home/u/.config/envshim/policy:3";
	a.own = NULL;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"program\":\"/home/u/.config/envshim/"
	    "policy:3\",\"kept\":[{\"name\":\"GH_TOKEN\",\"reason\":\"program\","
	    "\"rule\":\"/home/u/.config/envshim/policy:3\"}]"));
	assert_null(strstr(buf, "\"lost\""));
	es_policy_init(&pol);
}

/*
 * A spawner that makes the child's block environ before execvp (libuv,
 * so Node agents): environ then says nothing, and the agent's starting
 * entries, hashed, tell what was set for this launch.
 */
static void
lost_when_the_block_is_environ(void **state)
{
	char *env[] = { "AWS_SECRET_ACCESS_KEY=mine",
	    "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_for-this-child", "HOME=/h", NULL };
	uint64_t start[] = { es_hash(env[0], strlen(env[0])),
	    es_hash(env[2], strlen(env[2])) };
	struct es_verdict v[] = { { ES_DROP, ES_R_SECRET_NAME },
	    { ES_DROP, ES_R_SECRET_NAME }, { ES_KEEP, ES_R_SAFE } };
	struct es_audit a = { .hook = "execvp", .path = "/usr/bin/python3",
	    .action = "run", .envp = env, .n = 3, .v = v, .p = &pol,
	    .own = env, .own_hash = start, .nown_hash = 2 };
	char buf[2048];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"lost\":[{\"name\":"
	    "\"GITHUB_PERSONAL_ACCESS_TOKEN\",\"reason\":\"secret-name\"}]"));
	assert_null(strstr(buf, "\"name\":\"AWS_SECRET_ACCESS_KEY\",\"reason\":\"secret-name\"}]"));
	assert_null(strstr(buf, "ghp_"));
	/* Too many starting entries to remember: nothing is called lost. */
	a.own_full = 1;
	n = es_audit_format(&a, buf, sizeof(buf));
	buf[n] = '\0';
	assert_null(strstr(buf, "\"lost\""));
}

/*
 * A sandbox's hidden paths: the home as "~" (only at a component's end),
 * as many as fit in half the record, the rest counted, and the record
 * never cut for them.
 */
static void
hidden_paths_are_bounded(void **state)
{
	const char *few[] = { "/h/.npmrc", "/h/.ssh/id_ed25519", "/run/docker.sock",
	    "/hx/not" };
	static char paths[500][80];
	static const char *many[500];
	struct es_audit a = { .hook = "sandbox", .path = "/bin/sh", .action = "hidden",
	    .p = &pol, .hidden = few, .nhidden = 4, .home = "/h" };
	char buf[ES_LOG_LINE];
	const char *q, *m;
	size_t len, listed;
	long n;
	int i;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, ",\"hidden\":[\"~/.npmrc\",\"~/.ssh/id_ed25519\","
	    "\"/run/docker.sock\",\"/hx/not\"],\"argv\":[]}"));
	for (i = 0; i < 500; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/h/.ssh/id_ed25519-with-a-long-name-%03d", i);
		many[i] = paths[i];
	}
	a.hidden = many;
	a.nhidden = 500;
	for (len = 256; len <= sizeof(buf); len += 97) {
		n = es_audit_format(&a, buf, len);
		assert_true(n > 0 && (size_t)n < len);
		buf[n] = '\0';
		assert_balanced(buf, (size_t)n);
		assert_null(strstr(buf, "truncated"));
		for (listed = 0, q = buf; (q = strstr(q, "\"~/.ssh/")) != NULL; q++)
			listed++;
		m = strstr(buf, "\"hidden_more\":");
		if (listed == 0 && m == NULL)	/* no room for the list at all */
			continue;
		assert_non_null(m);
		assert_int_equal(listed + (size_t)atol(m + 14), 500);
		assert_true(listed <= len / 2 / 40);
	}
}

/* es_audit_mark of a NUL-terminated message: the line, or NULL. */
static const char *
mark(const char *msg, const char *session)
{
	static char out[ES_LOG_LINE];
	long n = es_audit_mark(msg, strlen(msg), 77, session, out, sizeof(out));

	if (n < 0)
		return NULL;
	assert_true(n > 0 && (size_t)n < sizeof(out));
	out[n] = '\0';
	return out;
}

/*
 * A record from inside keeps its members as they came, loses its own
 * inside, sandbox and session, and gets the outer's, last.
 */
static void
inside_record_is_marked_by_the_outer(void **state)
{
	char *argv[] = { "env", "-0", NULL };
	struct es_audit a = { .time_ms = 1764493200123LL, .pid = 3, .ppid = 2,
	    .hook = "execve", .path = "/usr/bin/env", .argv = argv, .action = "run",
	    .inside = 1, .sandbox = 1234, .session = "9.8.abcdef", .p = &pol };
	char rec[ES_LOG_LINE];
	long n;

	(void)state;
	n = es_audit_format(&a, rec, sizeof(rec));
	rec[n] = '\0';
	assert_string_equal(mark(rec, "1.2.xyzxyz"),
	    "{\"time\":\"2025-11-30T09:00:00.123Z\",\"pid\":3,\"ppid\":2,"
	    "\"hook\":\"execve\",\"action\":\"run\",\"agent\":false,"
	    "\"mode\":\"enforce\",\"path\":\"/usr/bin/env\",\"dropped\":[],"
	    "\"rewritten\":[],\"argv\":[\"env\",\"-0\"],\"inside\":true,"
	    "\"sandbox\":77,\"session\":\"1.2.xyzxyz\"}\n");
	/* without a newline, and without a session of the outer's */
	rec[n - 1] = '\0';
	assert_non_null(strstr(mark(rec, NULL), ",\"inside\":true,\"sandbox\":77}\n"));
	assert_null(strstr(mark(rec, NULL), "session"));
	/* what a forger writes of inside, sandbox and session goes */
	assert_string_equal(mark("{\"time\":\"t\",\"inside\":false,\"pid\":1,"
	    "\"sandbox\":0,\"session\":\"x\",\"action\":\"run\",\"lost\":[{\"name\":"
	    "\"K\",\"reason\":\"secret-name\"}]}", "s"),
	    "{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"lost\":[{\"name\":\"K\","
	    "\"reason\":\"secret-name\"}],\"inside\":true,\"sandbox\":77,"
	    "\"session\":\"s\"}\n");
}

/* Anything but one record of the shape es_audit_format makes is no record. */
static void
inside_non_records_are_refused(void **state)
{
	static const char *const bad[] = {
		"", "\n", "{}", "garbage", "[\"time\"]", "{\"time\":\"t\"}",
		"{\"time\":\"t\",\"pid\":1}",
		"{\"time\":1,\"pid\":1,\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":\"1\",\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":1.5,\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":1e3,\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":12345678901234567890,\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\"",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\"}x",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\"}\n\n",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\"}\n{\"time\":\"t\",\"pid\":1,"
		    "\"action\":\"run\",\"inside\":false}",
		/* white space outside strings: a line break would split it */
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"argv\":[\n"
		    "{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"inside\":false}\n]}",
		"{ \"time\":\"t\",\"pid\":1,\"action\":\"run\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":\"a\nb\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"r\xc3\xbcn\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":\"\\q\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":\"\\u00g0\"}",
		/* keys are plain: an escape could spell inside */
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"insid\\u0065\":false}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"Inside\":false}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"\":false}",
		/* no key twice, the outer's neither */
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"inside\":true,\"inside\":false}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"action\":\"sandbox\"}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":[[[[[[[[1]]]]]]]]}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":tru}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":[1,]}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":{\"a\":1,}}",
		"{\"time\":\"t\",\"pid\":1,\"action\":\"run\",\"x\":{1:1}}",
	};
	char msg[64], out[ES_LOG_LINE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (mark(bad[i], "s") != NULL)
			fail_msg("took %s", bad[i]);
	/* a NUL inside is no record either */
	memcpy(msg, "{\"time\":\"t\0\",\"pid\":1,\"action\":\"run\"}", 36);
	assert_int_equal(es_audit_mark(msg, 36, 1, NULL, out, sizeof(out)), -1);
	/* nesting up to the bound is taken */
	assert_non_null(mark("{\"time\":\"t\",\"pid\":-1,\"action\":\"run\",\"x\":"
	    "[[[[[[{\"a\":null}]]]]]],\"y\":\"\\u001b\\\\\\\"\"}", NULL));
}

/* The outer's marks must fit too: a record too long for the line is none. */
static void
inside_record_longer_than_a_line(void **state)
{
	static char msg[ES_LOG_LINE + 256], out[ES_LOG_LINE];
	size_t n;

	(void)state;
	n = (size_t)snprintf(msg, sizeof(msg), "{\"time\":\"t\",\"pid\":1,"
	    "\"action\":\"run\",\"argv\":[\"");
	memset(msg + n, 'a', ES_LOG_LINE - ES_LOG_MARK - n - 4);
	memcpy(msg + ES_LOG_LINE - ES_LOG_MARK - 4, "\"]}\n", 4);
	n = ES_LOG_LINE - ES_LOG_MARK;
	assert_true(es_audit_mark(msg, n, 4194304, "12345678.1234567890.abcdef",
	    out, sizeof(out)) > 0);
	memset(msg + n - 4, 'a', 200);
	memcpy(msg + n + 196, "\"]}\n", 4);
	assert_int_equal(es_audit_mark(msg, n + 200, 1, "s", out, sizeof(out)), -1);
}

/* A message that was no record, kept as a string: escaped, never raw. */
static void
rejected_message_is_a_string(void **state)
{
	const char raw[] = "x\n{\"inside\":false}\x1b\xff";
	struct es_audit a = { .hook = "sandbox", .path = "", .action = "rejected",
	    .reason = "not one audit record", .inside = 1, .sandbox = 9, .p = &pol,
	    .raw = raw, .nraw = sizeof(raw) - 1 };
	char buf[ES_LOG_LINE];
	long n;

	(void)state;
	n = es_audit_format(&a, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, ",\"raw\":\"x\\u000a{\\\"inside\\\":false}"
	    "\\u001b\\u00ff\",\"argv\":[]}\n"));
	assert_int_equal((long)(strchr(buf, '\n') - buf), n - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(exact_record, setup),
		cmocka_unit_test_setup(inherited_shim_entries_are_quiet, setup),
		cmocka_unit_test_setup(handover_is_recorded, setup),
		cmocka_unit_test_setup(secret_arguments_are_masked, setup),
		cmocka_unit_test_setup(audit_mode_says_what_enforce_would_do, setup),
		cmocka_unit_test_setup(cut_records_stay_valid, setup),
		cmocka_unit_test_setup(cut_before_the_first_name, setup),
		cmocka_unit_test_setup(dates_across_eras, setup),
		cmocka_unit_test_setup(program_kept_and_lost, setup),
		cmocka_unit_test_setup(lost_when_the_block_is_environ, setup),
		cmocka_unit_test_setup(hidden_paths_are_bounded, setup),
		cmocka_unit_test_setup(inside_record_is_marked_by_the_outer, setup),
		cmocka_unit_test_setup(inside_non_records_are_refused, setup),
		cmocka_unit_test_setup(inside_record_longer_than_a_line, setup),
		cmocka_unit_test_setup(rejected_message_is_a_string, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
