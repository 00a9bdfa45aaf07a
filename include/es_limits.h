/*
 * es_limits.h - every fixed capacity of envshim, in one place.
 *
 * A capacity that is reached is an error returned to the caller, never a
 * silent truncation.  None of these bound the size of an environment: the
 * filter takes caller memory sized by es_filter_scratch().
 */
#ifndef ES_LIMITS_H
#define ES_LIMITS_H

#define ES_MAX_LAYERS		8	/* builtin, /etc, ~/.config, --policy, env text */
#define ES_MAX_RULES		512	/* drop, keep, secret-name, ... lines */
#define ES_MAX_SETS		64	/* set NAME=VALUE lines */
#define ES_MAX_PATHS		64	/* each of rw, ro, hide */
#define ES_HIDE_MOUNTS		512	/* paths the builtin hide list expands to */
#define ES_HIDE_SCAN		65536	/* bytes of a build config read for a key; */
					/* a longer one is hidden */
#define ES_MASK_MAX		2048	/* entries of the home's mask (sandbox, plan.c) */
#define ES_MAX_SHELLS		32	/* extra shell names */
#define ES_MAX_PROGRAMS		32	/* program rules (distinct programs) */
#define ES_PROGRAM_WORDS	8	/* a program's name and leading arguments */
#define ES_PROGRAM_KEEPS	16	/* keep patterns of one program */
#define ES_POLICY_TEXT_MAX	65536	/* bytes of one policy file */
#define ES_PATTERN_MAX		255	/* bytes of one pattern */
#define ES_LITERAL_MAX		1024	/* bytes of one secret-value literal */
#define ES_SNAPSHOT_MAX		256	/* tracked names in the launch snapshot */
#define ES_SAFE_VALUE_MAX	4096	/* always-kept values longer than this drop */
#define ES_PATH_MAX		4096	/* a file name */
#define ES_MOUNT_DATA_MAX	4095	/* mount(2) options the kernel reads: a */
					/* page (4 KiB here), less its NUL */
#define ES_LOG_LINE		8192	/* one audit record, one write(2) */
#define ES_LOG_ROTATE		(16L << 20) /* log bytes before it moves to .1 */
#define ES_LOG_MARK		128	/* of ES_LOG_LINE, left to the outer's marks */
					/* on a record from inside the sandbox */
#define ES_LOG_KEYS		32	/* members of one record from inside */
#define ES_LOG_DEPTH		8	/* JSON nesting of one record from inside */
#define ES_LOG_RAW		256	/* bytes of a rejected message kept, as a string */
#define ES_LOG_BURST		64	/* records from inside the outer takes per wake */
#define ES_LOG_DRAIN		1024	/* ... and at most once the command has ended */
#define ES_STACK_ENV		512	/* envp entries handled on the stack; more: mmap */
#define ES_PATH_ENTRIES_MAX	1024	/* PATH entries kept; more: PATH drops */
#define ES_MAX_ARGS		1024	/* execl-family arguments (8 KiB of stack) */
#define ES_SNIFF_TABLE_MAX	65536	/* bytes of ELF program headers (the kernel's */
					/* bound) or of a dynamic section read */
#define ES_SNIFF_ROUNDS		160	/* es_sniff_more calls for one file */
#define ES_PKG_DEPTH		32	/* JSON nesting a package.json may have */
#define ES_PKG_JSON_MAX		(1L << 20) /* bytes of a package.json read */
#define ES_TREE_MAX		4	/* directories of the agent's install */
#define ES_WRITABLE_MAX		(ES_MAX_PATHS + 8)	/* where sandboxed commands */
					/* write: rw paths, workspace, sessions, ... */
#define ES_LINKS_MAX		40	/* symlinks one path resolves through */
#define ES_OWN_MAX		1024	/* entries of the agent's starting environment */
					/* remembered, by hash, for "lost" */
#define ES_TREE_UP		8	/* levels from the agent's file to its package.json */
#define ES_CONTAIN_ROOT_ID	65533	/* root's uid and gid inside contain mode */
#define ES_SBX_ROOT_KUID	65532	/* a root caller's sandboxed uid and gid, */
					/* outside: an id that owns nothing */
#define ES_CONTAIN_SUBMOUNTS	64	/* mounts under /etc that --contain keeps */
#define ES_PROC_ENTRIES		1024	/* top-level /proc entries the sandbox */
					/* covers for a root caller */
#define ES_WALK_ENTRIES		65536	/* entries the sandbox reads under /run */
					/* and the other socket directories */
#define ES_WALK_HIDES		1024	/* sockets and FIFOs it hides there */
#define ES_MAX_CAPVARS		32	/* dropped capability variables whose */
					/* paths a sandboxed launch hides */

#endif
