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

/*
 * Bytes of a file's head that es_sniff wants to see, and the most that
 * es_sniff_more asks for at a time: the caller's one buffer.
 */
#define ES_SNIFF_HEAD	1024	/* ELF program headers usually sit at offset 64 */

enum es_kind {
	ES_K_OTHER = 0,		/* not ELF, no "#!": the kernel says ENOEXEC */
	ES_K_ELF_DYNAMIC,	/* has PT_INTERP (in interp): the shim loads if it is ld.so */
	ES_K_ELF_STATIC,	/* no PT_INTERP: the shim cannot follow */
	ES_K_SCRIPT,		/* "#!": interp/arg filled in */
	ES_K_ELF_UNKNOWN,	/* ELF the kernel would not load: bad or cut headers */
	ES_K_ELF_FOREIGN,	/* another ELF class or machine: the shim can't load */
	ES_K_ELF_MORE		/* not yet known: es_sniff_more wants bytes */
};

/* The kernel reads at most this much of a "#!" line (BINPRM_BUF_SIZE). */
#define ES_SHEBANG_MAX	256

struct es_sniff {
	int	 kind;				/* enum es_kind */
	char	 interp[ES_SHEBANG_MAX];	/* "#!" interpreter, or ELF PT_INTERP */
	char	 arg[ES_SHEBANG_MAX];		/* its optional argument */
	char	 judge[ES_SHEBANG_MAX];		/* what decides: see es_script_judge */
	int	 program;	/* ES_K_ELF_STATIC: a program (ET_EXEC, or ET_DYN */
				/* with DF_1_PIE), not a shared object or a loader */
	/* ES_K_ELF_MORE: the file's bytes [want_off, want_off + want_len). */
	unsigned long long want_off;
	size_t	 want_len;	/* at most ES_SNIFF_HEAD */
	/* Where es_sniff_more is; the caller does not look. */
	int	 stage, e_type;
	unsigned long long next, left;	/* table being read: offset, bytes */
	unsigned long long i_off, i_len, d_off, d_len;
	int	 has_interp, has_dyn;
};

/*
 * Classifies a file from its first n bytes.  Never fails.  An ELF whose
 * program headers, loader path or dynamic section lie beyond the head
 * comes back ES_K_ELF_MORE: the caller reads what want_off and want_len
 * name and hands it to es_sniff_more, until the kind is another.  Each
 * call moves forward through the file, so the rounds are bounded by
 * ES_SNIFF_ROUNDS.  The kernel reads the same bytes before it runs the
 * file: what comes out is what the kernel will do.
 */
void	es_sniff(const unsigned char *head, size_t n, struct es_sniff *);
/* buf holds n bytes from want_off (fewer than want_len: the file ended). */
void	es_sniff_more(const unsigned char *buf, size_t n, struct es_sniff *);

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

/* One launch, as the audit log records it (docs/design.md). */
struct es_audit {
	long long		 time_ms;	/* CLOCK_REALTIME, milliseconds */
	long			 pid, ppid;
	const char		*hook;		/* "execve", "posix_spawn", ... */
	const char		*path;		/* what is executed, as resolved */
	char *const		*argv;		/* may be NULL */
	const char		*action;	/* run sandbox refused unconfined audit */
	const char		*would;		/* with action "audit": enforce's action */
	const char		*reason;	/* why refused/unconfined, or NULL */
	int			 inside, agent, audit_mode;
	const char		*handover;	/* agent: the file of its install it */
						/* handed itself to, or NULL */
	long			 sandbox;	/* inside: the sandboxed launch's pid, else 0 */
	const char		*session;	/* the agent run's session name, or NULL */
	char *const		*envp;		/* the input environment ... */
	size_t			 n;		/* ... its length ... */
	const struct es_verdict	*v;		/* ... and its verdicts (or NULL) */
	const struct es_policy	*p;		/* masks secret-shaped argv */
	const char *const	*quiet;		/* entries not worth listing (or NULL) */
	int			 program;	/* 1 + the program rule it runs under, or 0 */
	const char		*program_rule;	/* its "file:line"; NULL: from p */
	char *const		*own;		/* the agent's own environment: a */
						/* secret dropped that is not there */
						/* was set for this launch (lost) */
	const uint64_t		*own_hash;	/* where own is envp itself: the */
	size_t			 nown_hash;	/* agent's starting entries, hashed */
	int			 own_full;	/* (too many: every entry is own) */
	const char *const	*hidden;	/* a sandbox: the paths it hides */
	size_t			 nhidden;	/* (never contents or sizes) */
	const char		*home;		/* shown as ~ in hidden, or NULL */
	const char		*raw;		/* a message that was no record, */
	size_t			 nraw;		/* kept as a string (es_audit_mark) */
};

/*
 * One JSON line (ending in '\n') into buf.  Names of dropped and rewritten
 * variables appear (but for entries equal to one of quiet: the shim's own
 * inherited entries, replaced by the same), values never; argv elements with a secret shape are
 * masked.  Hidden paths take at most half the record; those that do not
 * fit are counted in "hidden_more".  When buf is too small the record is
 * cut short but stays valid JSON with "truncated":true.  Returns the
 * length, or -1 if len < 256.
 */
long	es_audit_format(const struct es_audit *, char *buf, size_t len);

/*
 * A record a process inside a sandbox sent (n bytes of in), as the
 * sandbox's outer writes it to the log: only one JSON object of the shape
 * es_audit_format makes (printable ASCII, no white space outside strings,
 * integer numbers, keys of [a-z_], no key twice, nesting within
 * ES_LOG_DEPTH, a string "time", an integer "pid" and a string "action"),
 * with a '\n' after it or not.  Its own "inside", "sandbox" and
 * "session" members are left out, and the outer's put last:
 * "inside":true, "sandbox":sandbox, and "session":session unless NULL.
 * Returns the length of the line written to out, or -1 when in is no
 * such record or the line would not fit in len.
 */
long	es_audit_mark(const char *in, size_t n, long sandbox, const char *session,
	    char *out, size_t len);

/*
 * Where, inside a sandbox, records go to its outer: a datagram socket
 * init binds in the command's own /dev/shm, and ENVSHIM_SANDBOX_NS names
 * by inode.  A path, not a descriptor: a program that closes what it
 * inherited (Python's subprocess) still reaches it.
 */
#define ES_LOG_SOCK	"/dev/shm/.envshim-log"

#endif
