/*
 * test_parse.c - the policy grammar: every keyword, every error with its
 * line, capacities at the edge, format -> parse round trips, and a
 * deterministic mutation loop that must never crash.
 *
 * The parser works "on top of whatever p holds"; these tests start from
 * an empty builtin layer so they do not depend on the builtin lists.
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

static struct es_policy	P, Q;
static char		fmtbuf[4 * ES_POLICY_ARENA];
static char		text[2 * ES_POLICY_TEXT_MAX];

static void
fresh(struct es_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->layer_name[0] = "builtin";
	p->nlayers = 1;
}

static int
parse(struct es_policy *p, const char *s, struct es_parse_err *err)
{
	return es_policy_parse(p, s, strlen(s), "test.policy", err);
}

static const char *
fmt(const struct es_policy *p, unsigned int flags)
{
	long	n = es_policy_format(p, flags, fmtbuf, sizeof(fmtbuf));

	assert_true(n >= 0);
	assert_int_equal((size_t)n, strlen(fmtbuf));
	return fmtbuf;
}

/* Input text and its canonical form as es_policy_format writes it. */
struct ok_case {
	const char	*in;
	const char	*out;
};

static const struct ok_case ok_cases[] = {
	{ "", "" },
	{ "# only a comment\n\n   \t\n", "" },
	{ "mode enforce", "mode enforce\n" },
	{ "mode audit\n", "mode audit\n" },
	{ "sandbox all", "sandbox all\n" },
	{ "sandbox shells", "sandbox shells\n" },
	/* the older name of all reads as all, and prints as all */
	{ "sandbox required", "sandbox all\n" },
	{ "sandbox optional", "sandbox optional\n" },
	{ "sandbox off", "sandbox off\n" },
	{ "network on", "network on\n" },
	{ "network off", "network off\n" },
	{ "unfollowable sandbox", "unfollowable sandbox\n" },
	{ "unfollowable refuse", "unfollowable refuse\n" },
	{ "unfollowable allow", "unfollowable allow\n" },
	{ "protect-self yes", "protect-self yes\n" },
	{ "protect-self no", "protect-self no\n" },
	{ "log-required yes", "log-required yes\n" },
	{ "log-required no", "log-required no\n" },
	{ "log stderr", "log stderr\n" },
	{ "log syslog", "log syslog\n" },
	{ "log off", "log off\n" },
	{ "log /var/log/envshim.jsonl", "log /var/log/envshim.jsonl\n" },
	{ "log ~/envshim.log", "log ~/envshim.log\n" },
	{ "drop AWS_*", "drop AWS_*\n" },
	{ "drop *", "drop *\n" },
	{ "keep SSH_AUTH_SOCK", "keep SSH_AUTH_SOCK\n" },
	{ "injection MY_PRELOAD", "injection MY_PRELOAD\n" },
	{ "secret-name *_PASSPHRASE", "secret-name *_PASSPHRASE\n" },
	{ "secret-value hunter2-internal",
	    "secret-value hunter2-internal\n" },
	{ "secret-value a b c d", "secret-value a b c d\n" },
	/* one word with a space must come back quoted to parse again */
	{ "shell \"my sh\"", "shell \"my sh\"\n" },
	{ "capability WAYLAND_DISPLAY", "capability WAYLAND_DISPLAY\n" },
	{ "changed npm_config_*", "changed npm_config_*\n" },
	{ "set EDITOR=vi", "set EDITOR=vi\n" },
	{ "set EMPTY=", "set EMPTY=\n" },
	{ "set A=b=c", "set A=b=c\n" },
	{ "set PS1=x #y", "set PS1=x\n" },
	{ "set \"PS1=x #y\"", "set \"PS1=x #y\"\n" },
	{ "set \"Q=say \\\"hi\\\" \\\\o/\"", "set Q=say \"hi\" \\o/\n" },
	{ "set \"T=trailing \"", "set \"T=trailing \"\n" },
	{ "set U=a#b", "set U=a#b\n" },
	{ "shell nu", "shell nu\n" },
	{ "shell nu\nshell nu", "shell nu\n" },
	{ "rw /tmp/build", "rw /tmp/build\n" },
	{ "rw ~/.cache", "rw ~/.cache\n" },
	{ "rw ~", "rw ~\n" },
	{ "ro .git/hooks", "ro .git/hooks\n" },
	{ "ro /etc/ssl", "ro /etc/ssl\n" },
	{ "hide ~/.ssh", "hide ~/.ssh\n" },
	{ "hide .env", "hide .env\n" },
	{ "hide /srv/My Files", "hide /srv/My Files\n" },
	{ "hide /a..b/c...", "hide /a..b/c...\n" },
	{ "  drop\tFOO   # why\n", "drop FOO\n" },
	{ "drop FOO\r\nkeep BAR\r\n", "drop FOO\nkeep BAR\n" },
	{ "mode audit\nmode enforce", "mode enforce\n" },
	{ "log /x/y\nlog off", "log off\n" },
	{ "set A=1\nset B=2\nset A=3", "set A=3\nset B=2\n" },
	/* Output order is fixed: scalars, shells, sets, paths, rules. */
	{ "drop X\nmode audit\nset A=1\nshell fish\nhide /h\nro /r\nrw /w\n"
	    "keep Y",
	    "mode audit\nshell fish\nset A=1\nrw /w\nro /r\nhide /h\n"
	    "drop X\nkeep Y\n" },
	{ "program github-mcp-server keep GITHUB_PERSONAL_ACCESS_TOKEN",
	    "program github-mcp-server keep GITHUB_PERSONAL_ACCESS_TOKEN\n" },
	{ "program  npx\t-y @modelcontextprotocol/server-github  keep  GH_*  X",
	    "program npx -y @modelcontextprotocol/server-github keep GH_* X\n" },
	{ "program node /srv/mcp/server.js keep A\nprogram uvx mcp-server-fetch "
	    "keep B", "program node /srv/mcp/server.js keep A\n"
	    "program uvx mcp-server-fetch keep B\n" },
	{ "program /opt/bin/srv keep A\nprogram /opt/bin/srv keep B C",
	    "program /opt/bin/srv keep A\nprogram /opt/bin/srv keep B C\n" },
	{ "program \"node #1.js keep A\"",
	    "program \"node #1.js keep A\"\n" },
	/* Rules come before program lines. */
	{ "program srv keep A\ndrop B", "drop B\nprogram srv keep A\n" },
};

static void
test_keywords(void **state)
{
	struct es_parse_err	err;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		fresh(&P);
		if (parse(&P, ok_cases[i].in, &err) != 0)
			fail_msg("case %zu \"%s\": %u: %s", i, ok_cases[i].in,
			    err.line, err.what);
		if (strcmp(fmt(&P, 0), ok_cases[i].out) != 0)
			fail_msg("case %zu \"%s\": formatted \"%s\"", i,
			    ok_cases[i].in, fmtbuf);
		/* The canonical form reads back as itself. */
		fresh(&Q);
		assert_int_equal(parse(&Q, fmtbuf, &err), 0);
		assert_string_equal(fmt(&Q, 0), ok_cases[i].out);
	}
}

/* The values land in the right fields, with layer and line. */
static void
test_fields(void **state)
{
	struct es_parse_err	err;

	(void)state;
	fresh(&P);
	assert_int_equal(parse(&P, "# x\nmode audit\nsandbox off\n"
	    "network off\nunfollowable refuse\nprotect-self no\n"
	    "log ~/l\n\ndrop A*\nsecret-value abcdef\n", &err), 0);
	assert_int_equal(P.nlayers, 2);
	assert_string_equal(P.layer_name[1], "test.policy");
	assert_int_equal(P.mode, ES_MODE_AUDIT);
	assert_int_equal(P.mode_layer, 1);
	assert_int_equal(P.sandbox, ES_SANDBOX_OFF);
	assert_int_equal(P.network, 0);
	assert_int_equal(P.network_layer, 1);
	assert_int_equal(P.unfollowable, ES_UNFOLLOW_REFUSE);
	assert_int_equal(P.protect_self, 0);
	assert_int_equal(P.log, ES_LOG_PATH);
	assert_string_equal(P.log_path, "~/l");
	assert_int_equal(P.nrules, 2);
	assert_int_equal(P.rules[0].kind, ES_RULE_DROP);
	assert_string_equal(P.rules[0].pat, "A*");
	assert_int_equal(P.rules[0].len, 2);
	assert_int_equal(P.rules[0].line, 9);
	assert_int_equal(P.rules[0].layer, 1);
	assert_int_equal(P.rules[1].kind, ES_RULE_SECRET_VALUE);
	assert_int_equal(P.rules[1].line, 10);
	/* Strings live in the arena, not in the caller's text. */
	assert_true(P.rules[1].pat >= P.arena &&
	    P.rules[1].pat < P.arena + sizeof(P.arena));
	assert_int_equal(parse(&P, "network on\nlog stderr\n", &err), 0);
	assert_int_equal(P.network, 1);
	assert_int_equal(P.network_layer, 2);
	assert_int_equal(P.log, ES_LOG_STDERR);
	assert_null(P.log_path);
	assert_int_equal(P.mode_layer, 1);
}

struct err_case {
	const char	*in;
	unsigned int	 line;
	const char	*what;
};

static const struct err_case err_cases[] = {
	{ "dorp FOO", 1, "unknown keyword 'dorp'" },
	{ "# c\n\nDrop FOO", 3, "unknown keyword 'Drop'" },
	{ "averyveryverylongkeywordindeed x", 1,
	    "unknown keyword 'averyveryverylongkey...'" },
	{ "mode", 1, "mode takes enforce or audit" },
	{ "mode strict", 1, "mode takes enforce or audit" },
	{ "mode audit enforce", 1, "mode takes enforce or audit" },
	{ "mode Audit", 1, "mode takes enforce or audit" },
	{ "sandbox maybe", 1, "sandbox takes all, shells, optional or off" },
	{ "network yes", 1, "network takes on or off" },
	{ "unfollowable run", 1, "unfollowable takes sandbox, refuse or allow" },
	{ "protect-self on", 1, "protect-self takes yes or no" },
	{ "log-required maybe", 1, "log-required takes yes or no" },
	{ "log", 1, "log takes an absolute path, ~/path, stderr, syslog or off" },
	{ "log audit.jsonl", 1,
	    "log takes an absolute path, ~/path, stderr, syslog or off" },
	{ "log ~bob/x", 1,
	    "log: ~user paths are not supported, use ~/ or an absolute path" },
	{ "log /var/../etc/x", 1, "log path may not contain '..'" },
	{ "drop", 1, "drop needs a pattern" },
	{ "keep   # nothing", 1, "keep needs a pattern" },
	{ "drop A B", 1, "drop takes one pattern" },
	{ "drop A-B", 1,
	    "drop pattern may hold only letters, digits, '_' and '*'" },
	{ "injection A=B", 1,
	    "injection pattern may hold only letters, digits, '_' and '*'" },
	{ "secret-name \"A B\"", 1,
	    "secret-name pattern may hold only letters, digits, '_' and '*'" },
	{ "capability", 1, "capability needs a pattern" },
	{ "changed $X", 1,
	    "changed pattern may hold only letters, digits, '_' and '*'" },
	{ "secret-value", 1, "secret-value needs a literal" },
	{ "secret-value abc", 1,
	    "secret-value literal shorter than 4 bytes would match ordinary "
	    "values" },
	{ "set", 1, "set needs NAME=VALUE" },
	{ "set EDITOR", 1, "set needs NAME=VALUE" },
	{ "set =x", 1, "set needs NAME=VALUE where NAME is letters, digits "
	    "and '_'" },
	{ "set 1A=x", 1, "set needs NAME=VALUE where NAME is letters, digits "
	    "and '_'" },
	{ "set A B=x", 1, "set needs NAME=VALUE where NAME is letters, digits "
	    "and '_'" },
	{ "set LD_PRELOAD=/tmp/x.so", 1,
	    "set may not name LD_* or ENVSHIM_* variables" },
	{ "set ld_library_path=/tmp", 1,
	    "set may not name LD_* or ENVSHIM_* variables" },
	{ "set ENVSHIM_MODE=audit", 1,
	    "set may not name LD_* or ENVSHIM_* variables" },
	{ "shell", 1, "shell needs one program name without '/'" },
	{ "shell /bin/nu", 1, "shell needs one program name without '/'" },
	{ "shell a b", 1, "shell needs one program name without '/'" },
	{ "shell ..", 1, "shell needs one program name without '/'" },
	{ "rw", 1, "rw needs a path" },
	{ "rw build", 1, "rw needs an absolute path or one starting with ~/" },
	{ "rw ~root", 1,
	    "rw: ~user paths are not supported, use ~/ or an absolute path" },
	{ "ro ../up", 1, "ro path may not contain '..'" },
	{ "hide /a/../b", 1, "hide path may not contain '..'" },
	{ "hide /a/..", 1, "hide path may not contain '..'" },
	{ "drop \"A", 1, "unterminated quote" },
	{ "drop \"A\" B", 1, "text after the closing quote" },
	{ "set \"A=\\n\"", 1,
	    "only \\\" and \\\\ may follow a backslash in quotes" },
	{ "drop A\ndrop \x01", 2, "control character in policy text" },
	{ "drop A\x7f", 1, "control character in policy text" },
	{ "drop A\nkeep B\n\nmode x\n", 4, "mode takes enforce or audit" },
	{ "program srv", 1, "program needs a program, then keep and the names "
	    "it keeps: program NAME [ARG...] keep NAME..." },
	{ "program keep A", 1, "program needs a program, then keep and the "
	    "names it keeps: program NAME [ARG...] keep NAME..." },
	{ "program srv keep", 1, "program needs a program, then keep and the "
	    "names it keeps: program NAME [ARG...] keep NAME..." },
	{ "drop A\nprogram bash keep A", 2, "program: bash is a shell, and a "
	    "shell runs whatever it is told; name the program it starts" },
	{ "program /usr/bin/sh -c x keep A", 1, "program: sh is a shell, and a "
	    "shell runs whatever it is told; name the program it starts" },
	{ "shell xonsh\nprogram xonsh keep A", 2, "program: xonsh is a shell, "
	    "and a shell runs whatever it is told; name the program it starts" },
	/* the shell line after the rule (fuzz: the printed form put it first) */
	{ "program /opt/js --x keep A\ndrop B\nshell js", 1, "program: js is a "
	    "shell, and a shell runs whatever it is told; name the program it "
	    "starts" },
	{ "program env node x.js keep A", 1, "program: env runs whatever its "
	    "arguments name; name that program" },
	{ "program /usr/bin/python3.11 keep A", 1, "program: python3.11 alone "
	    "would match every script or package it runs; name it too "
	    "(program python3.11 /path/server.js keep ...)" },
	{ "program npx keep A", 1, "program: npx alone would match every script "
	    "or package it runs; name it too (program npx /path/server.js "
	    "keep ...)" },
	{ "program bin/srv keep A", 1,
	    "program: a path must be absolute (or give the name alone)" },
	{ "program /opt/../bin/srv keep A", 1, "program: '/opt/../bin/srv' "
	    "names no file" },
	{ "program srv keep A-B", 1, "program: keep pattern may hold only "
	    "letters, digits, '_' and '*'" },
	{ "program a b c d e f g h i keep A", 1,
	    "program: at most 8 words name the program" },
	{ "program a keep A B C D E F G H I J K L M N O P Q", 1,
	    "program: too many names (at most 16)" },
};

/* Lines naming the same program are one entry; each keep has its line. */
static void
test_program_merge(void **state)
{
	struct es_parse_err	err;
	const struct es_program	*pr;
	size_t			i;
	char			many[4096];

	(void)state;
	fresh(&P);
	assert_int_equal(parse(&P, "program node /s.js keep A\n"
	    "program node keep2 keep B\nprogram node /s.js keep C D\n", &err),
	    0);
	assert_int_equal(P.nprograms, 2);
	pr = &P.programs[0];
	assert_int_equal(pr->nwords, 2);
	assert_string_equal(pr->word[0], "node");
	assert_string_equal(pr->word[1], "/s.js");
	assert_int_equal(pr->nkeep, 3);
	assert_int_equal(pr->line, 1);
	assert_int_equal(pr->keep[0].line, 1);
	assert_int_equal(pr->keep[2].line, 3);
	assert_string_equal(pr->keep[2].pat, "D");
	assert_string_equal(P.programs[1].word[1], "keep2");
	/* The table is full at ES_MAX_PROGRAMS distinct programs. */
	fresh(&P);
	many[0] = '\0';
	for (i = 0; i <= ES_MAX_PROGRAMS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
		    "program srv%zu keep A\n", i);
	assert_int_equal(parse(&P, many, &err), -1);
	assert_int_equal(err.line, ES_MAX_PROGRAMS + 1);
	assert_string_equal(err.what, "too many program rules (at most 32)");
	/* Keeps of one program add up across lines, to ES_PROGRAM_KEEPS. */
	fresh(&P);
	assert_int_equal(parse(&P, "program s keep A B C D E F G H\n"
	    "program s keep I J K L M N O P\nprogram s keep Q\n", &err), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.what, "program: too many names (at most 16)");
}

static void
test_errors(void **state)
{
	struct es_parse_err	err;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		fresh(&P);
		if (parse(&P, err_cases[i].in, &err) != -1)
			fail_msg("case %zu \"%s\" was accepted", i,
			    err_cases[i].in);
		if (err.line != err_cases[i].line ||
		    strcmp(err.what, err_cases[i].what) != 0)
			fail_msg("case %zu \"%s\": got %u: %s", i,
			    err_cases[i].in, err.line, err.what);
		assert_string_equal(err.file, "test.policy");
	}
}

/* A NUL inside the text is an error, not the end of it. */
static void
test_nul(void **state)
{
	struct es_parse_err	err;
	static const char	s[] = "drop A\ndrop B\0C\n";

	(void)state;
	fresh(&P);
	assert_int_equal(es_policy_parse(&P, s, sizeof(s) - 1, "n", &err), -1);
	assert_int_equal(err.line, 2);
	assert_string_equal(err.what, "NUL byte in policy text");
	/* Only len bytes are read: the same text cut before the NUL is fine. */
	fresh(&P);
	assert_int_equal(es_policy_parse(&P, s, 7, "n", &err), 0);
	assert_int_equal(P.nrules, 1);
}

/* Secrets a policy names never appear in an error message. */
static void
test_errors_hide_values(void **state)
{
	struct es_parse_err	err;

	(void)state;
	fresh(&P);
	assert_int_equal(parse(&P, "secret-value zq9\n", &err), -1);
	assert_null(strstr(err.what, "zq9"));
	fresh(&P);
	assert_int_equal(parse(&P, "set LD_AUDIT=s3cr3tval\n", &err), -1);
	assert_null(strstr(err.what, "s3cr3tval"));
	fresh(&P);
	assert_int_equal(parse(&P, "set s3cr3tval\n", &err), -1);
	assert_null(strstr(err.what, "s3cr3tval"));
}

static void
test_uninitialised(void **state)
{
	struct es_parse_err	err;

	(void)state;
	memset(&P, 0, sizeof(P));
	assert_int_equal(parse(&P, "drop A", &err), -1);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.what, "policy not initialised");
}

/* Layers add up; a later layer overrides scalars; origins are kept. */
static void
test_layers(void **state)
{
	struct es_parse_err	err;
	const char		*want;

	(void)state;
	fresh(&P);
	assert_int_equal(es_policy_parse(&P, "mode audit\ndrop A\n", 18,
	    "/etc/envshim/policy", &err), 0);
	assert_int_equal(es_policy_parse(&P, "\nmode enforce\nkeep A\n", 21,
	    "/home/u/p", &err), 0);
	assert_int_equal(P.mode, ES_MODE_ENFORCE);
	assert_int_equal(P.mode_layer, 2);
	assert_int_equal(P.nrules, 2);
	assert_string_equal(fmt(&P, ES_FMT_ORIGIN),
	    "mode enforce\t# /home/u/p:2\n"
	    "drop A\t# /etc/envshim/policy:2\n"
	    "keep A\t# /home/u/p:3\n");
	/* The origin comments read back too. */
	fresh(&Q);
	assert_int_equal(parse(&Q, fmtbuf, &err), 0);
	assert_string_equal(fmt(&Q, 0), "mode enforce\ndrop A\nkeep A\n");
	/* Builtin-layer items only appear with ES_FMT_BUILTIN. */
	fresh(&P);
	P.rules[0].kind = ES_RULE_INJECTION;
	P.rules[0].pat = "BUILTIN_X";
	P.rules[0].len = 9;
	P.nrules = 1;
	assert_string_equal(fmt(&P, 0), "");
	want = "mode enforce\t# builtin\n"
	    "sandbox all\t# builtin\n"
	    "network off\t# builtin\n"
	    "unfollowable sandbox\t# builtin\n"
	    "protect-self no\t# builtin\n"
	    "home visible\t# builtin\n"
	    "home-layer session\t# builtin\n"
	    "log-required no\t# builtin\n"
	    "injection BUILTIN_X\t# builtin\n";
	fmt(&P, ES_FMT_BUILTIN | ES_FMT_ORIGIN);
	assert_memory_equal(fmtbuf, want, strlen(want));
	/* Then the compiled-in lists, which read back as a policy. */
	assert_non_null(strstr(fmtbuf, "\ninjection LD_*"));
	fresh(&Q);
	assert_int_equal(parse(&Q, fmtbuf, &err), 0);
	assert_true(Q.nrules > 100);
	/* Too small a buffer is -1 here too. */
	assert_int_equal(es_policy_format(&P, ES_FMT_BUILTIN, fmtbuf, 200), -1);
}

static void
test_too_many_layers(void **state)
{
	struct es_parse_err	err;
	size_t			i;

	(void)state;
	fresh(&P);
	for (i = 1; i < ES_MAX_LAYERS; i++)
		assert_int_equal(parse(&P, "drop A", &err), 0);
	assert_int_equal(P.nlayers, ES_MAX_LAYERS);
	assert_int_equal(parse(&P, "drop A", &err), -1);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.what, "too many policy layers (at most 8)");
}

/* n lines of "kw prefixNsuffix\n" into text; returns the text. */
static const char *
lines(const char *kw, const char *prefix, const char *suffix, size_t n)
{
	size_t	i, pos = 0;

	for (i = 0; i < n; i++)
		pos += snprintf(text + pos, sizeof(text) - pos, "%s %s%zu%s\n",
		    kw, prefix, i, suffix);
	return text;
}

struct cap_case {
	const char	*kw, *prefix, *suffix;
	size_t		 max;
	const char	*what;
};

static const struct cap_case cap_cases[] = {
	{ "drop", "V", "", ES_MAX_RULES, "too many rules (at most 512)" },
	{ "secret-value", "literal", "", ES_MAX_RULES,
	    "too many rules (at most 512)" },
	{ "set", "V", "=x", ES_MAX_SETS, "too many set lines (at most 64)" },
	{ "shell", "sh", "", ES_MAX_SHELLS,
	    "too many shell lines (at most 32)" },
	{ "rw", "/w", "", ES_MAX_PATHS, "too many rw lines (at most 64)" },
	{ "ro", "r", "", ES_MAX_PATHS, "too many ro lines (at most 64)" },
	{ "hide", "/h", "", ES_MAX_PATHS, "too many hide lines (at most 64)" },
};

/* Exactly full is fine; one more is an error on that line. */
static void
test_capacities(void **state)
{
	struct es_parse_err	err;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(cap_cases) / sizeof(cap_cases[0]); i++) {
		const struct cap_case	*c = &cap_cases[i];

		fresh(&P);
		if (parse(&P, lines(c->kw, c->prefix, c->suffix, c->max),
		    &err) != 0)
			fail_msg("%s full: %u: %s", c->kw, err.line, err.what);
		fresh(&P);
		assert_int_equal(parse(&P, lines(c->kw, c->prefix, c->suffix,
		    c->max + 1), &err), -1);
		assert_int_equal(err.line, c->max + 1);
		assert_string_equal(err.what, c->what);
	}
	/* A full set table still takes a set that replaces one. */
	fresh(&P);
	assert_int_equal(parse(&P, lines("set", "V", "=x", ES_MAX_SETS), &err),
	    0);
	assert_int_equal(parse(&P, "set V0=y\n", &err), 0);
	assert_int_equal(P.nsets, ES_MAX_SETS);
	assert_string_equal(P.sets[0].s, "V0=y");
	assert_int_equal(parse(&P, "set NEW=1\n", &err), -1);
	assert_string_equal(err.what, "too many set lines (at most 64)");
}

static void
test_lengths(void **state)
{
	struct es_parse_err	err;
	char			pat[ES_PATTERN_MAX + 2];
	static char		lit[ES_LITERAL_MAX + 2], path[ES_PATH_MAX + 2];

	(void)state;
	memset(pat, 'A', sizeof(pat) - 1);
	pat[ES_PATTERN_MAX] = '\0';
	snprintf(text, sizeof(text), "drop %s", pat);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), 0);
	assert_int_equal(P.rules[0].len, ES_PATTERN_MAX);
	snprintf(text, sizeof(text), "drop %sB", pat);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), -1);
	assert_string_equal(err.what, "drop pattern longer than 255 bytes");

	memset(lit, 'x', sizeof(lit) - 1);
	lit[ES_LITERAL_MAX] = '\0';
	snprintf(text, sizeof(text), "secret-value %s", lit);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), 0);
	snprintf(text, sizeof(text), "secret-value %sx", lit);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), -1);
	assert_string_equal(err.what,
	    "secret-value literal longer than 1024 bytes");

	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[ES_PATH_MAX - 1] = '\0';
	snprintf(text, sizeof(text), "rw %s", path);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), 0);
	snprintf(text, sizeof(text), "rw %sp", path);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), -1);
	assert_string_equal(err.what, "rw path longer than 4095 bytes");
}

/* ES_POLICY_TEXT_MAX bytes are read; one more is refused. */
static void
test_text_max(void **state)
{
	struct es_parse_err	err;

	(void)state;
	memset(text, '#', ES_POLICY_TEXT_MAX + 1);
	text[ES_POLICY_TEXT_MAX - 1] = '\n';
	fresh(&P);
	assert_int_equal(es_policy_parse(&P, text, ES_POLICY_TEXT_MAX, "t",
	    &err), 0);
	fresh(&P);
	assert_int_equal(es_policy_parse(&P, text, ES_POLICY_TEXT_MAX + 1, "t",
	    &err), -1);
	assert_int_equal(err.line, 0);
	assert_string_equal(err.what, "policy longer than 65536 bytes");
}

/* Two large layers overflow the string arena: an error, not a cut. */
static void
test_arena_full(void **state)
{
	struct es_parse_err	err;
	size_t			i, pos = 0;
	char			lit[1001];

	(void)state;
	memset(lit, 'k', sizeof(lit) - 1);
	lit[sizeof(lit) - 1] = '\0';
	for (i = 0; i < 40; i++)
		pos += snprintf(text + pos, sizeof(text) - pos,
		    "secret-value %s\n", lit);
	fresh(&P);
	assert_int_equal(parse(&P, text, &err), 0);
	assert_int_equal(parse(&P, text, &err), -1);
	assert_string_equal(err.what, "policy too large: string space full");
	assert_true(err.line > 1 && err.line < 40);
	assert_true(P.arena_used <= sizeof(P.arena));
}

/* A small buffer is an error, never a cut-off policy. */
static void
test_format_small(void **state)
{
	struct es_parse_err	err;
	char			b[16];
	long			n;

	(void)state;
	fresh(&P);
	assert_int_equal(parse(&P, "drop ABC\n", &err), 0);
	n = es_policy_format(&P, 0, b, 10);
	assert_int_equal(n, 9);
	assert_string_equal(b, "drop ABC\n");
	assert_int_equal(es_policy_format(&P, 0, b, 9), -1);
	assert_int_equal(es_policy_format(&P, 0, b, 0), -1);
}

static const char rich[] =
    "# A policy using every keyword\n"
    "mode audit\nsandbox optional\nnetwork off\nunfollowable refuse\n"
    "protect-self yes\nlog ~/.local/state/envshim/audit.jsonl\n"
    "drop AWS_*\nkeep SSH_AUTH_SOCK\ninjection MYTOOL_HOOK\n"
    "secret-name *_PASSPHRASE\nsecret-value \"tok #1 \\\"q\\\"\"\n"
    "capability WAYLAND_*\nchanged npm_config_*\n"
    "set EDITOR=vi\nset \"PS1= $ \"\nshell nu\nshell xonsh\n"
    "rw ~/.cache\nrw /tmp/b\nro .git/hooks\nro /etc/ssl\n"
    "hide ~/.ssh\nhide .env\n"
    /* a relative path starting '#': printed bare it read back as a comment */
    "hide \"#notes\"\n";

static void
same_policy(const struct es_policy *a, const struct es_policy *b)
{
	size_t	i;

	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->sandbox, b->sandbox);
	assert_int_equal(a->network, b->network);
	assert_int_equal(a->unfollowable, b->unfollowable);
	assert_int_equal(a->protect_self, b->protect_self);
	assert_int_equal(a->log, b->log);
	if (a->log_path != NULL || b->log_path != NULL) {
		assert_non_null(a->log_path);
		assert_non_null(b->log_path);
		assert_string_equal(a->log_path, b->log_path);
	}
	assert_int_equal(a->nrules, b->nrules);
	for (i = 0; i < a->nrules; i++) {
		assert_int_equal(a->rules[i].kind, b->rules[i].kind);
		assert_int_equal(a->rules[i].len, b->rules[i].len);
		assert_string_equal(a->rules[i].pat, b->rules[i].pat);
	}
	assert_int_equal(a->nsets, b->nsets);
	for (i = 0; i < a->nsets; i++)
		assert_string_equal(a->sets[i].s, b->sets[i].s);
	assert_int_equal(a->nshells, b->nshells);
	for (i = 0; i < a->nshells; i++)
		assert_string_equal(a->shells[i].s, b->shells[i].s);
	assert_int_equal(a->nrw, b->nrw);
	for (i = 0; i < a->nrw; i++)
		assert_string_equal(a->rw[i].s, b->rw[i].s);
	assert_int_equal(a->nro, b->nro);
	for (i = 0; i < a->nro; i++)
		assert_string_equal(a->ro[i].s, b->ro[i].s);
	assert_int_equal(a->nhide, b->nhide);
	for (i = 0; i < a->nhide; i++)
		assert_string_equal(a->hide[i].s, b->hide[i].s);
}

static void
test_round_trip(void **state)
{
	struct es_parse_err	err;
	unsigned int		flags;

	(void)state;
	for (flags = 0; flags <= ES_FMT_ORIGIN; flags += ES_FMT_ORIGIN) {
		fresh(&P);
		assert_int_equal(parse(&P, rich, &err), 0);
		assert_string_equal(P.rules[4].pat, "tok #1 \"q\"");
		assert_string_equal(P.sets[1].s, "PS1= $ ");
		fmt(&P, flags);
		fresh(&Q);
		if (parse(&Q, fmtbuf, &err) != 0)
			fail_msg("%u: %s in\n%s", err.line, err.what, fmtbuf);
		same_policy(&P, &Q);
	}
}

/* A deterministic generator, so a failure reproduces. */
static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static size_t
mutate(char *b, size_t n, size_t cap, uint32_t *s)
{
	size_t	at = n ? rnd(s) % n : 0, k, m;

	switch (rnd(s) % 6) {
	case 0:		/* truncate */
		return at;
	case 1:		/* flip a byte */
		if (n)
			b[at] = (char)rnd(s);
		return n;
	case 2:		/* a byte out of the grammar's alphabet */
		if (n)
			b[at] = "\"\\#~*=/. \t\n\r\0"[rnd(s) % 14];
		return n;
	case 3:		/* delete a byte */
		if (n)
			memmove(b + at, b + at + 1, n - at - 1);
		return n ? n - 1 : 0;
	case 4:		/* duplicate a run, such as a line */
		k = rnd(s) % 64;
		if (at + k > n)
			k = n - at;
		if (n + k > cap)
			return n;
		memmove(b + at + k, b + at, n - at);
		return n + k;
	default:	/* splice in a keyword */
		m = rnd(s) % 3;
		k = strlen((const char *[]){ "secret-value ", "\"", "set A=" }[m]);
		if (n + k > cap)
			return n;
		memmove(b + at + k, b + at, n - at);
		memcpy(b + at, (const char *[]){ "secret-value ", "\"",
		    "set A=" }[m], k);
		return n + k;
	}
}

/*
 * Any text gives 0 or -1 and a sensible error; whatever is accepted
 * formats and reads back to the same policy.
 */
static void
test_mutations(void **state)
{
	struct es_parse_err	err;
	static char		b[sizeof(rich) * 4];
	uint32_t		seed = 1;
	size_t			n = 0, lines_, i;
	int			iter, rc, ok = 0, bad = 0;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		if (iter % 8 == 0) {
			n = sizeof(rich) - 1;
			memcpy(b, rich, n);
		}
		n = mutate(b, n, sizeof(b), &seed);
		fresh(&P);
		rc = es_policy_parse(&P, b, n, "m", &err);
		if (rc == -1) {
			for (lines_ = 1, i = 0; i < n; i++)
				lines_ += b[i] == '\n';
			assert_true(err.line <= lines_);
			assert_true(err.what[0] != '\0');
			assert_true(strlen(err.what) < sizeof(err.what));
			bad++;
			continue;
		}
		assert_int_equal(rc, 0);
		ok++;
		fmt(&P, ES_FMT_ORIGIN);
		fresh(&Q);
		if (parse(&Q, fmtbuf, &err) != 0)
			fail_msg("iter %d: %s on re-reading\n%s", iter,
			    err.what, fmtbuf);
		same_policy(&P, &Q);
	}
	/* Both paths were exercised. */
	assert_true(ok > 1000);
	assert_true(bad > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keywords),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_errors_hide_values),
		cmocka_unit_test(test_uninitialised),
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_too_many_layers),
		cmocka_unit_test(test_capacities),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_text_max),
		cmocka_unit_test(test_arena_full),
		cmocka_unit_test(test_program_merge),
		cmocka_unit_test(test_format_small),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
