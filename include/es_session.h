/*
 * es_session.h - one agent run's session: a private directory that every
 * sandboxed command of the run shares as /tmp and /var/tmp, and that is
 * the agent's own TMPDIR (session.c in shim/preload/; the launch root
 * starts it, `envshim session` lists it; what its name says is in
 * shim/engine/sessname.c).  Not for the exec path.
 *
 *	/tmp/envshim-UID/			ES_SESSION_BASE, 0700
 *	/tmp/envshim-UID/PID.START.XXXXXX/	one session, 0700
 *		tmp/				/tmp inside, TMPDIR outside
 *		var-tmp/			/var/tmp inside
 *		home/				the home's copy-on-write layer
 *		work/PID/			overlay's work dir, one a command
 *		keeper				the held namespaces, its pid, ...
 *		keeper.lock			taken while a keeper starts
 *		workspace			where the run started (envshim session)
 *
 * PID and START (the launch root's start time in clock ticks, field 22 of
 * /proc/PID/stat) name the process whose end ends the session: a session
 * whose process is gone is stale, and the next start removes it.
 */
#ifndef ES_SESSION_H
#define ES_SESSION_H

#include <sys/types.h>

#include <stddef.h>

#define ES_SESSION_VAR	"ENVSHIM_SESSION"
#define ES_SESSION_BASE	"/tmp/envshim-"

/* "/tmp/envshim-UID" into buf; 0, or -1 when it does not fit. */
int	 es_session_base(char *buf, size_t len);
/*
 * Makes (or checks) the base, removes stale sessions in it, and makes a
 * new session for this process; its directory into dir.  0, or -1 with
 * *why set (and no session).
 */
int	 es_session_start(char *dir, size_t len, const char **why);
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
