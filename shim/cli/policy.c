/*
 * policy.c - "envshim policy": the effective policy as a policy file,
 * each line followed by the file and line it came from, the builtin
 * settings included (the builtin lists with --builtin).  The output reads
 * back as a policy, so it can start a new one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const char policy_usage[] =
"usage: envshim policy [--policy FILE] [--builtin]\n";

int
es_cmd_policy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "builtin", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*file = NULL;
	struct es_policy	*p;
	unsigned int		 flags = ES_FMT_ORIGIN | ES_FMT_SETTINGS;
	char			*buf = NULL, *nb;
	size_t			 len = 1 << 16, i;
	long			 n = -1;
	int			 c;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			file = optarg;
			break;
		case 'b':
			flags |= ES_FMT_BUILTIN;
			break;
		case 'h':
			fputs(policy_usage, stdout);
			return 0;
		default:
			return es_cmd_try("envshim policy");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "envshim policy: unexpected '%s'\n%s",
		    argv[optind], policy_usage);
		return ES_EXIT_FAIL;
	}
	if ((p = es_cmd_load(es_cmd_policy_file(file))) == NULL)
		return ES_EXIT_FAIL;
	for (; len <= (1u << 26); len *= 2) {
		if ((nb = realloc(buf, len)) == NULL)
			break;
		buf = nb;
		if ((n = es_policy_format(p, flags, buf, len)) >= 0)
			break;
	}
	if (n < 0) {
		fprintf(stderr, "envshim policy: out of memory\n");
		free(buf);
		free(p);
		return ES_EXIT_FAIL;
	}
	printf("# effective envshim policy; layers:");
	for (i = 0; i < p->nlayers; i++) {
		putchar(' ');
		es_cmd_putname(stdout, p->layer_name[i],
		    strlen(p->layer_name[i]));
	}
	putchar('\n');
	fwrite(buf, 1, (size_t)n, stdout);
	if (!(flags & ES_FMT_BUILTIN))
		printf("# and the builtin lists (injection, secret names and "
		    "shapes, capabilities, hidden files): envshim policy "
		    "--builtin\n");
	free(buf);
	free(p);
	return fflush(stdout) == 0 ? 0 : ES_EXIT_FAIL;
}
