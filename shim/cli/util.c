/*
 * util.c - what the envshim command's subcommands share: the policy the
 * user named and its loading, output that never shows a raw byte, and
 * finding a program the way execvp and env(1) would.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "es_exec.h"
#include "es_load.h"
#include "cmd.h"

const char *
es_cmd_policy_file(const char *opt)
{
	const char	*e;

	if (opt != NULL)
		return opt;
	e = getenv("ENVSHIM_POLICY");
	return e != NULL && e[0] != '\0' ? e : NULL;
}

struct es_policy *
es_cmd_load(const char *userfile)
{
	struct es_policy	*p;
	struct es_parse_err	 err;
	char			 msg[ES_PATH_MAX + 256];

	if ((p = malloc(sizeof(*p))) == NULL) {
		fprintf(stderr, "envshim: out of memory\n");
		return NULL;
	}
	if (es_policy_load_root(p, userfile, &err) == -1) {
		fprintf(stderr, "envshim: %s\n",
		    es_parse_err_str(&err, msg, sizeof(msg)));
		free(p);
		return NULL;
	}
	return p;
}

int
es_cmd_try(const char *prog)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	return ES_EXIT_FAIL;
}

int
es_cmd_colour(FILE *f)
{
	const char	*nc = getenv("NO_COLOR"), *t = getenv("TERM");

	if (nc != NULL && nc[0] != '\0')
		return 0;
	if (t != NULL && strcmp(t, "dumb") == 0)
		return 0;
	return isatty(fileno(f));
}

void
es_cmd_putname(FILE *f, const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		unsigned char	c = s[i];

		if (c == '\\')
			fputs("\\\\", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			putc(c, f);
	}
}

void
es_cmd_putjson(FILE *f, const char *s, size_t n)
{
	size_t	i;

	putc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char	c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

/* Where execvp would find name: the first executable regular file. */
int
es_cmd_resolve(const char *name, char *buf, size_t len)
{
	const char	*path = getenv("PATH");

	if (strchr(name, '/') != NULL)
		return (size_t)snprintf(buf, len, "%s", name) < len ? 0 : -1;
	return es_path_find(name, path != NULL ? path : "/bin:/usr/bin", buf,
	    len);
}

/*
 * env(1) would be the first process the shim enters, so the launch root,
 * and the real agent ("#!/usr/bin/env node") its child: a tool, filtered
 * of the key it needs.  So run what env would run, in env's place.  Only
 * lines env would take word for word: NAME, or -S and plain words; an
 * assignment, another option or quoting is left to env.
 */
int
es_cmd_env_hop(const char *exe, struct es_cmd_hop *hop)
{
	unsigned char	 head[ES_SNIFF_HEAD];
	struct es_sniff	 sn;
	const char	*b;
	char		*w, *save;
	ssize_t		 n;
	int		 fd, split;

	hop->argc = 0;
	if ((fd = open(exe, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, head, sizeof(head));
	close(fd);
	es_sniff(head, n > 0 ? (size_t)n : 0, &sn);
	b = strrchr(sn.interp, '/');
	if (sn.kind != ES_K_SCRIPT ||
	    strcmp(b != NULL ? b + 1 : sn.interp, "env") != 0 ||
	    strpbrk(sn.arg, "\"'\\$#") != NULL)
		return 0;
	memcpy(hop->words, sn.arg, sizeof(hop->words));
	for (w = strtok_r(hop->words, " \t", &save); w != NULL;
	    w = strtok_r(NULL, " \t", &save))
		hop->argv[hop->argc++] = w;
	hop->argv[hop->argc] = NULL;
	split = hop->argc > 0 && strcmp(hop->argv[0], "-S") == 0;
	/* Without -S the kernel hands env the rest as one name. */
	if ((split ? hop->argc < 2 : hop->argc != 1) ||
	    hop->argv[split][0] == '-' ||
	    strchr(hop->argv[split], '=') != NULL ||
	    es_cmd_resolve(hop->argv[split], hop->interp,
	    sizeof(hop->interp)) != 0) {
		hop->argc = 0;
		return 0;
	}
	if (split)
		memmove(hop->argv, hop->argv + 1, hop->argc-- * sizeof(char *));
	return 1;
}

void
es_cmd_program_words(const char *path, char *const *argv, size_t argc,
    char *out, size_t len)
{
	const char	*b = strrchr(path, '/');
	size_t		 i;

	b = b != NULL ? b + 1 : path;
	snprintf(out, len, "%s", b);
	if (!es_program_runner(b))
		return;
	for (i = 1; i < argc && i < ES_PROGRAM_WORDS; i++) {
		size_t	n = strlen(out);

		/* A masked or unwritable word cannot be named: stop before. */
		if (strcmp(argv[i], "***") == 0 || strcmp(argv[i], "keep") == 0 ||
		    argv[i][0] == '\0' || strpbrk(argv[i], " \t#\"") != NULL)
			return;
		snprintf(out + n, len - n, " %s", argv[i]);
		if (argv[i][0] != '-')
			return;
	}
}
