/*
 * landlock.c - scope the sandbox's abstract sockets and signals.
 *
 * Raw system calls: glibc has no wrappers, and Debian 12's kernel headers
 * predate the `scoped` field, so the ABI is spelled out here.
 */
#include <sys/syscall.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "es_landlock.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self	446
#endif

#define LL_CREATE_RULESET_VERSION	(1U << 0)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#define LL_SCOPE_SIGNAL			(1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6. */
struct ll_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

int
es_landlock_abi(void)
{
	long v;

	v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LL_CREATE_RULESET_VERSION);
	return v > 0 ? (int)v : 0;
}

/*
 * No file system or network rights are handled: the mount namespace does
 * that job.  Only the scopes are set, so nothing else changes inside.
 */
int
es_landlock_scope(void)
{
	struct ll_attr a = { 0, 0,
	    LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL };
	int fd, e;

	if (es_landlock_abi() < ES_LANDLOCK_SCOPE_ABI)
		return 0;
	fd = (int)syscall(SYS_landlock_create_ruleset, &a, sizeof(a), 0);
	if (fd == -1)
		return -1;
	if (syscall(SYS_landlock_restrict_self, fd, 0) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 1;
}
