/*
 * check.c - "envshim check": what the policy does to each variable.
 *
 * Output MUST NOT contain a value: only the action, the name and the
 * reason.  The input is a list of NAME=VALUE words or the environment of
 * this process; it is filtered exactly as for a child of the agent that
 * was started with none of these variables (no launch snapshot), so
 * Tier B names never show as "changed" here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

extern char	**environ;

enum { F_TABLE, F_TSV, F_JSON };

static const char check_usage[] =
"usage: envshim check [--policy FILE] [--format=table|tsv|json] "
"[--program CMD [ARG...]] [-- NAME=VALUE ...]\n";

static size_t
namelen(const char *e)
{
	const char	*eq = strchr(e, '=');

	return eq != NULL ? (size_t)(eq - e) : strlen(e);
}

static void
table(char *const *env, size_t n, const struct es_verdict *v)
{
	static const char *const colour[] = {
		[ES_KEEP] = "\033[32m",
		[ES_DROP] = "\033[1;31m",
		[ES_REWRITE] = "\033[33m"
	};
	size_t	 i, w = 4, count[3] = { 0, 0, 0 };
	int	 col = es_cmd_colour(stdout);

	for (i = 0; i < n; i++)
		if (namelen(env[i]) > w)
			w = namelen(env[i]);
	if (w > 40)
		w = 40;
	printf("%-8s %-*s %s\n", "ACTION", (int)w, "NAME", "REASON");
	for (i = 0; i < n; i++) {
		size_t	l = namelen(env[i]);

		count[v[i].action]++;
		printf("%s%-8s%s ", col ? colour[v[i].action] : "",
		    es_action_name(v[i].action), col ? "\033[0m" : "");
		es_cmd_putname(stdout, env[i], l);
		printf("%*s %s\n", l < w ? (int)(w - l) : 0, "",
		    es_reason_name(v[i].reason));
	}
	printf("\n%zu variables: %zu kept, %zu dropped, %zu rewritten\n",
	    n, count[ES_KEEP], count[ES_DROP], count[ES_REWRITE]);
}

static void
tsv(char *const *env, size_t n, const struct es_verdict *v)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		printf("%s\t", es_action_name(v[i].action));
		es_cmd_putname(stdout, env[i], namelen(env[i]));
		printf("\t%s\n", es_reason_name(v[i].reason));
	}
}

static void
json(char *const *env, size_t n, const struct es_verdict *v)
{
	size_t	i;

	putchar('[');
	for (i = 0; i < n; i++) {
		printf("%s{\"action\":\"%s\",\"name\":", i ? ",\n " : "",
		    es_action_name(v[i].action));
		es_cmd_putjson(stdout, env[i], namelen(env[i]));
		printf(",\"reason\":\"%s\"}", es_reason_name(v[i].reason));
	}
	puts("]");
}

/*
 * --program CMD [ARG...]: the program rule that would apply if the agent
 * itself started CMD so (a shell never matches), as es_filter flags, with
 * a line saying which.  Returns -1 when CMD cannot be found.
 */
static int
program_flags(const struct es_policy *p, char **cmd, int say,
    unsigned int *flags)
{
	char		 path[ES_PATH_MAX], real[ES_PATH_MAX];
	const struct es_program *pr;
	int		 m;

	if (es_cmd_resolve(cmd[0], path, sizeof(path)) != 0) {
		fprintf(stderr, "envshim check: %s: not found\n", cmd[0]);
		return -1;
	}
	if (realpath(path, real) == NULL)
		memcpy(real, path, strlen(path) + 1);
	m = es_is_shell(p, path) || es_is_shell(p, real) ? -1 :
	    es_program_match(p, path, real, cmd);
	if (m < 0) {
		if (say && (es_is_shell(p, path) || es_is_shell(p, real)))
			printf("%s is a shell: no program rule applies to a "
			    "shell\n\n", cmd[0]);
		else if (say)
			printf("no program rule matches %s: it gets what any "
			    "tool gets\n\n", cmd[0]);
		return 0;
	}
	pr = &p->programs[m];
	*flags = ES_F_PROGRAM(m);
	if (say) {
		printf("program rule %s:%u matches %s\n\n",
		    p->layer_name[pr->layer], pr->line, cmd[0]);
	}
	return 0;
}

int
es_cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "program", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*file = NULL;
	struct es_policy	*p;
	struct es_verdict	*v;
	char			**env, **cmd = NULL, **penv = NULL;
	const char		**out;
	void			*scratch;
	size_t			 n, bytes = 0, i, slen;
	unsigned int		 flags = 0;
	int			 c, format = F_TABLE, rc = ES_EXIT_FAIL, prog = 0;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			file = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				format = F_TABLE;
			else if (strcmp(optarg, "tsv") == 0)
				format = F_TSV;
			else if (strcmp(optarg, "json") == 0)
				format = F_JSON;
			else {
				fprintf(stderr, "envshim check: --format takes "
				    "table, tsv or json\n");
				return ES_EXIT_FAIL;
			}
			break;
		case 'P':
			prog = 1;
			break;
		case 'h':
			fputs(check_usage, stdout);
			return 0;
		default:
			return es_cmd_try("envshim check");
		}
	}
	/* --program: the command's words run up to "--" or the end. */
	if (prog) {
		if (optind >= argc || strcmp(argv[optind - 1], "--") == 0) {
			fprintf(stderr, "envshim check: --program needs a "
			    "command\n%s", check_usage);
			return ES_EXIT_FAIL;
		}
		cmd = argv + optind;
		while (optind < argc && strcmp(argv[optind], "--") != 0)
			optind++;
		if (optind < argc) {
			argv[optind++] = NULL;
			penv = argv + optind;
		}
	}
	/* Words are only taken after "--", so a typo is not a variable. */
	if (optind < argc && !prog && strcmp(argv[optind - 1], "--") != 0) {
		fprintf(stderr, "envshim check: '%s': put variables after "
		    "--\n%s", argv[optind], check_usage);
		return ES_EXIT_FAIL;
	}
	if ((p = es_cmd_load(es_cmd_policy_file(file))) == NULL)
		return ES_EXIT_FAIL;
	if (prog)
		env = penv != NULL ? penv : environ;
	else if (optind > 1 && strcmp(argv[optind - 1], "--") == 0)
		env = argv + optind;
	else
		env = environ;
	if (cmd != NULL && program_flags(p, cmd, format == F_TABLE, &flags) != 0) {
		free(p);
		return ES_EXIT_FAIL;
	}
	for (n = 0; env[n] != NULL; n++)
		bytes += strlen(env[n]) + 1;
	slen = es_filter_scratch(n, bytes);
	v = calloc(n + 1, sizeof(*v));
	out = calloc(n + p->nsets + 1, sizeof(*out));
	scratch = malloc(slen ? slen : 1);
	if (v == NULL || out == NULL || scratch == NULL) {
		fprintf(stderr, "envshim check: out of memory\n");
		goto done;
	}
	if (es_filter(p, NULL, flags, env, n, NULL, out, n + p->nsets + 1, v,
	    scratch, slen) < 0) {
		fprintf(stderr, "envshim check: the filter failed\n");
		goto done;
	}
	for (i = 0; i < n; i++)
		if (v[i].action > ES_REWRITE)
			v[i].action = ES_DROP;
	if (format == F_TSV)
		tsv(env, n, v);
	else if (format == F_JSON)
		json(env, n, v);
	else
		table(env, n, v);
	rc = fflush(stdout) == 0 ? 0 : ES_EXIT_FAIL;
done:
	free(v);
	free(out);
	free(scratch);
	free(p);
	return rc;
}
