/*
 * engine.c - feeds one environment to es_filter with the builtin policy,
 * for callgrind to count the instructions spent inside es_filter alone
 * (--toggle-collect=es_filter).  Reading the file, building the snapshot
 * and allocating the scratch happen outside it and do not count.
 *
 *	engine FILE	FILE: one NAME=VALUE per line
 *
 * Prints "n=N kept=K dropped=D rewritten=R", then each dropped name with
 * its reason (names only: values of dropped variables are never printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "es_policy.h"

int
main(int argc, char *argv[])
{
	static struct es_policy	 pol;
	struct es_snapshot	*snap;
	struct es_verdict	*v;
	const char		**out;
	const char		*forced[] = {
		"LD_PRELOAD=/usr/local/lib/envshim/libenvshim.so",
		"ENVSHIM_AGENT=2049:1234567",
		"ENVSHIM_WORKSPACE=/home/dev/src/project",
		NULL
	};
	char			**envp, *line = NULL;
	size_t			 cap = 0, n = 0, bytes = 0, len, i, k[3] = { 0 };
	ssize_t			 r;
	void			*scratch;
	size_t			 slen;
	long			 nout;
	FILE			*f;

	if (argc != 2 || (f = fopen(argv[1], "r")) == NULL) {
		fprintf(stderr, "usage: engine FILE\n");
		return 2;
	}
	envp = NULL;
	while ((r = getline(&line, &cap, f)) > 0) {
		len = (size_t)r;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if ((envp = realloc(envp, (n + 1) * sizeof(*envp))) == NULL ||
		    (envp[n] = strdup(line)) == NULL) {
			perror("engine");
			return 1;
		}
		bytes += len + 1;
		n++;
	}
	fclose(f);
	es_policy_init(&pol);
	if ((snap = calloc(1, sizeof(*snap))) == NULL) {
		perror("engine");
		return 1;
	}
	es_snapshot_take(&pol, envp, snap);
	slen = es_filter_scratch(n, bytes);
	scratch = malloc(slen ? slen : 1);
	out = calloc(n + 64 + ES_MAX_SETS, sizeof(*out));
	v = calloc(n ? n : 1, sizeof(*v));
	if (scratch == NULL || out == NULL || v == NULL) {
		perror("engine");
		return 1;
	}
	nout = es_filter(&pol, snap, 0, envp, n, forced, out,
	    n + 64 + ES_MAX_SETS, v, scratch, slen);
	if (nout < 0) {
		fprintf(stderr, "engine: es_filter failed\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (v[i].action < 3)
			k[v[i].action]++;
	printf("n=%zu kept=%zu dropped=%zu rewritten=%zu out=%ld\n", n, k[0],
	    k[1], k[2], nout);
	for (i = 0; i < n; i++)
		if (v[i].action == ES_DROP)
			printf("%.*s %s\n", (int)strcspn(envp[i], "="),
			    envp[i], es_reason_name(v[i].reason));
	return 0;
}
