/*
 * es_landlock.h - Landlock scoping for the sandbox (Linux 6.12+).
 *
 * A user namespace does not separate abstract unix sockets (they belong
 * to the network namespace, which `network on` shares), so X11's
 * @/tmp/.X11-unix/X0 or a D-Bus bus stay reachable from a shell.  Landlock
 * ABI 6 can scope them, and signals, to the sandbox's own domain.
 */
#ifndef ES_LANDLOCK_H
#define ES_LANDLOCK_H

/* The first Landlock ABI that scopes abstract sockets and signals. */
#define ES_LANDLOCK_SCOPE_ABI	6

/* The kernel's Landlock ABI, or 0 when it has none (or it is disabled). */
int	es_landlock_abi(void);

/*
 * Confines the calling process and its future children: no connect to an
 * abstract unix socket, and no signal, outside its Landlock domain.  Needs
 * no_new_privs.  Returns 1 when scoped, 0 when the kernel cannot, and -1
 * with errno set when it can but failed.
 */
int	es_landlock_scope(void);

#endif
