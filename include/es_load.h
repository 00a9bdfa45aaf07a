/*
 * es_load.h - policy layers from disk and from the environment.
 *
 * Not pure (it opens files), and not for the exec path: the constructor,
 * the command and the helper call it once, before any hook can run.
 */
#ifndef ES_LOAD_H
#define ES_LOAD_H

#include <sys/types.h>

#include "es_policy.h"

/*
 * The launch root's layers: builtin, SYSCONFDIR/envshim/policy,
 * ${XDG_CONFIG_HOME:-$HOME/.config}/envshim/policy (both optional), then
 * userfile if not NULL (required).  A file that is not regular, is group-
 * or world-writable, or is owned by neither the caller nor root is refused,
 * as is one a link or directory on the way to it (every directory it is
 * found through) another user could have changed.
 * Returns 0, or -1 with *err filled.
 */
int	es_policy_load_root(struct es_policy *, const char *userfile,
	    struct es_parse_err *err);

/* Builtin, then one file with the checks above (envshim-sandbox --policy). */
int	es_policy_load_file(struct es_policy *, const char *path,
	    struct es_parse_err *err);

/* Builtin, then text (the ENVSHIM_CONFIG a launch root handed down). */
int	es_policy_load_text(struct es_policy *, const char *text,
	    const char *origin, struct es_parse_err *err);

/*
 * The audit log's file under policy p (NULL: the default): its `log PATH`
 * (~/ under home), else ${XDG_STATE_HOME:-home/.local/state}/envshim/
 * audit.jsonl.  Returns 0, or -1 when records go elsewhere (off, stderr,
 * syslog), there is no absolute home to put them under, or buf is short.
 */
int	es_log_file(const struct es_policy *p, const char *home, char *buf,
	    size_t len);

/*
 * `home-layer workspace`: the base of the kept home layers,
 * ${XDG_STATE_HOME:-home/.local/state}/envshim/layers (ws NULL), or the
 * layer of workspace ws (a real path) below it, named by es_hash of ws in
 * hex.  Returns 0, or -1 without an absolute home or when buf is short.
 */
int	es_layer_dir(const char *home, const char *ws, char *buf, size_t len);

/*
 * The log file opened for appending (made if missing, 0600, never through
 * a link), for reading too when that is allowed: es_log_append looks at
 * its last byte.  Async-signal-safe.  The descriptor, or -1.
 */
int	es_log_open(const char *path);

/*
 * Appends one record (len bytes, its newline included) to the log open
 * on fd, in one write: after a newline "\n" first when the file's last
 * byte is not one (a record cut short by a crash or a full disk), so
 * every record starts a line of its own and none is lost to the one
 * before (a descriptor without read access is written as it is).
 * Async-signal-safe.  What write(2) returns.
 */
ssize_t	es_log_append(int fd, const char *line, size_t len);

/*
 * How much of the log file path (es_log_file under policy p and home) is
 * never made: the directory of a file the policy names, the home, or the
 * parent of XDG_STATE_HOME (which may be made, as XDG says).  Missing
 * directories below it are made (es_log_create); a missing home is not.
 */
size_t	es_log_top(const struct es_policy *p, const char *home,
	    const char *path);

/*
 * Creates the log file (and the directories after its first top bytes,
 * 0700: es_log_top) if missing, so that the sandbox can bind it writable.
 * Returns 0, or -1 with errno set.
 */
int	es_log_create(const char *path, size_t top);

/*
 * Moves a regular log file of ES_LOG_ROTATE bytes or more to path.1,
 * replacing the previous one.  Returns 1 if it moved, 0 if not, -1 on error.
 */
int	es_log_rotate(const char *path);

/*
 * Where execvp would find name on path (a colon list; an empty entry is
 * the working directory): the first executable regular file, into buf.
 * Returns 0, or -1 when there is none.  name must not hold a '/'.
 */
int	es_path_find(const char *name, const char *path, char *buf, size_t len);

/*
 * The uid an owner this user namespace does not map reads as (the
 * overflow uid), or (uid_t)-1 in the first namespace, where every uid is
 * mapped: a directory of root's reads so inside a user namespace.
 */
uid_t	es_unmapped_uid(void);

/* "file:line: what" (or "file: what" for line 0) into buf.  Returns buf. */
char	*es_parse_err_str(const struct es_parse_err *, char *buf, size_t len);

#endif
