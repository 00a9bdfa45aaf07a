/*
 * report.c - how envshim-sandbox says what went wrong: the outer's one
 * refusal line, and what init and the command share to report a failed
 * step before exec (bounded appends, a struct over the message pipe).
 * The second half runs after clone: async-signal-safe only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"

static const char *cmdname = "envshim-sandbox";	/* the refused command */

/* The refusal names the command the caller ran, not the helper. */
void
es_sbx_refuse_as(const char *name)
{
	cmdname = name;
}

/* The one line every refusal prints, then exit 125. */
void
es_sbx_refuse(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "envshim: refused %s: %s\n", cmdname, buf);
	exit(ES_SBX_EXIT);
}

/* Appends decimal v to buf at *off (bounded): no snprintf after clone. */
void
es_sbx_put_ulong(char *buf, size_t len, size_t *off, unsigned long v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v != 0);
	while (n > 0 && *off + 1 < len)
		buf[(*off)++] = tmp[--n];
	buf[*off] = '\0';
}

/* Appends s to buf at *off, cut at len: the same, for strings. */
void
es_sbx_put_str(char *buf, size_t len, size_t *off, const char *s)
{
	while (*s != '\0' && *off + 1 < len)
		buf[(*off)++] = *s++;
	buf[*off] = '\0';
}

/* A failed step, named for the outer to put into words; errno as is. */
void
es_sbx_fail(const struct es_sbx_plan *pl, int step, int item)
{
	struct es_sbx_msg m = { ES_M_FAIL, step, errno, item, 0, 0 };

	(void)!write(pl->msgfd, &m, sizeof(m));
	_exit(ES_SBX_EXIT);
}
