/*
 * es_exec.h - pure helpers for the exec path: what a file is, whether it
 * is a shell, and the audit record.  All AS-safe: they touch only their
 * arguments and const tables, so the interposer may call them between
 * fork/vfork and exec.
 */
#ifndef ES_EXEC_H
#define ES_EXEC_H

#include <stddef.h>
#include <sys/types.h>

#include "es_limits.h"
#include "es_policy.h"

/* Bytes of a file's head that es_sniff wants to see. */
#define ES_SNIFF_HEAD	1024

enum es_kind {
	ES_K_OTHER = 0,		/* not ELF, no "#!": the kernel says ENOEXEC */
	ES_K_ELF_DYNAMIC,	/* has PT_INTERP: the shim will load */
	ES_K_ELF_STATIC,	/* no PT_INTERP: the shim cannot follow */
	ES_K_SCRIPT,		/* "#!": interp/arg filled in */
	ES_K_ELF_UNKNOWN	/* ELF whose headers lie beyond the head read */
};

struct es_sniff {
	int	 kind;				/* enum es_kind */
	char	 interp[ES_PATH_MAX];		/* "#!" interpreter path */
	char	 arg[ES_PATH_MAX];		/* its optional argument */
};

/* Classifies a file from its first n bytes.  Never fails. */
void	es_sniff(const unsigned char *head, size_t n, struct es_sniff *);

/*
 * Is path a shell: its last component is one of sh bash dash zsh ksh mksh
 * fish ash busybox (or a policy "shell" name)?  p may be NULL.
 */
int	es_is_shell(const struct es_policy *p, const char *path);

/*
 * For a "#!" script: the program that judges it.  "/usr/bin/env bash"
 * yields "bash" (env's first non-option argument); otherwise interp.
 */
const char *es_script_judge(const struct es_sniff *);

#endif
