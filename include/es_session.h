/*
 * es_session.h - one agent run's session: a private directory that every
 * sandboxed command of the run shares as /tmp and /var/tmp, and that is
 * the agent's own TMPDIR (session.c in shim/preload/; the launch root
 * starts it, `envshim session` lists it; what its name says is in
 * shim/engine/sessname.c).  Not for the exec path.
 *
 *	BASE/				es_session_base, 0700
 *	BASE/PID.START.XXXXXX/		one session, 0700
 *		tmp/				/tmp inside, TMPDIR outside
 *		var-tmp/			/var/tmp inside
 *		home/				the home's copy-on-write layer
 *		work/PID/			overlay's work dir, one a command
 *		keeper				the held namespaces, its pid, ...
 *		keeper.lock			taken while a keeper starts
 *		workspace			where the run started (envshim session)
 *
 * BASE is $XDG_RUNTIME_DIR/envshim when the runtime directory is safe
 * (es_session_safe), else ${XDG_STATE_HOME:-~/.local/state}/envshim/
 * sessions: never a name in a directory other users can write.
 * PID and START (the launch root's start time in clock ticks, field 22 of
 * /proc/PID/stat) name the process whose end ends the session: a session
 * whose process is gone is stale, and the next start removes it.
 */
#ifndef ES_SESSION_H
#define ES_SESSION_H

#include <sys/types.h>

#include <stddef.h>

#define ES_SESSION_VAR	"ENVSHIM_SESSION"

/*
 * The base this user's sessions go in (see above) into buf, neither
 * made nor checked, and in *top the length of the directory it hangs
 * from, which is never made (the runtime directory, the home, or the
 * state directory's parent: XDG_STATE_HOME itself may be made); 0, or
 * -1 with no HOME or when it does not fit.
 */
int	 es_session_base(char *buf, size_t len, size_t *top);
/*
 * Could no other user have made path or replace it: a 0700 directory of
 * this user, not a link, with no link above it and none above it that
 * another user owns or may write (but a sticky one, as /tmp).  0, or -1
 * with why (a sentence naming the directory at fault).
 */
int	 es_session_safe(const char *path, char *why, size_t len);
/*
 * The base, made if missing (its real path into buf) and checked
 * (es_session_safe); 0, or -1 with why (what is wrong) and *fix (what
 * to do about it).
 */
int	 es_session_base_make(char *buf, size_t len, char *why, size_t wlen,
	    const char **fix);
/*
 * Is dir a session of this user: named PID.START.XXXXXX, a 0700
 * directory of this user, directly below a safe base?  The sandbox
 * helper's test of $ENVSHIM_SESSION: the base need not be the one its
 * own environment would name, only one no other user could have made.
 */
int	 es_session_dir_ok(const char *dir);
/*
 * Makes (or checks) the base, removes stale sessions in it, and makes a
 * new session for this process; its directory into dir.  0, or -1 with
 * why set, the cause and its fix (and no session).
 */
int	 es_session_start(char *dir, size_t len, char *why, size_t wlen);
/*
 * A process's start time (field 22 of /proc/PID/stat), which tells it
 * from a later one that got its pid; 0 when it is gone.
 */
unsigned long long es_session_start_time(pid_t pid);
/* The pid a session directory names, or -1 when the name is not ours. */
pid_t	 es_session_pid(const char *dir);
/* Is the session named name (in the base) alive: its process running? */
int	 es_session_alive(const char *name);
/* Removes dir and all it holds, never following a symlink; 0 or -1. */
int	 es_session_remove(const char *dir);

#endif
