/*
 * mallocount.c - a preload library that counts calls into the allocator
 * while armed.  Loaded after libenvshim (LD_PRELOAD="shim mallocount"), its
 * malloc is the one every later object binds to: the shim, and libc itself,
 * whose own calls to malloc go through its PLT.  While armed, every call
 * also writes one line to a descriptor, so a process that is replaced by
 * exec still reports what it allocated on the way there.
 */
#include <stddef.h>
#include <stdlib.h>
#include <malloc.h>
#include <unistd.h>

void	*__libc_malloc(size_t);
void	*__libc_calloc(size_t, size_t);
void	*__libc_realloc(void *, size_t);
void	*__libc_memalign(size_t, size_t);

void	 mc_arm(int);
long	 mc_disarm(void);

static volatile int	 mc_fd = -1;
static volatile long	 mc_count;

/* One raw write per call: no stdio, nothing that could allocate. */
static void
mc_hit(const char *what, size_t len)
{
	if (mc_fd < 0)
		return;
	mc_count++;
	if (write(mc_fd, what, len) < 0)
		mc_fd = -1;
}

/* Start counting; every allocation from now on is reported on fd. */
void
mc_arm(int fd)
{
	mc_count = 0;
	mc_fd = fd;
}

/* Stop counting and say how many calls were seen while armed. */
long
mc_disarm(void)
{
	mc_fd = -1;
	return mc_count;
}

void *
malloc(size_t n)
{
	mc_hit("malloc\n", 7);
	return __libc_malloc(n);
}

void *
calloc(size_t n, size_t m)
{
	mc_hit("calloc\n", 7);
	return __libc_calloc(n, m);
}

void *
realloc(void *p, size_t n)
{
	mc_hit("realloc\n", 8);
	return __libc_realloc(p, n);
}

void *
reallocarray(void *p, size_t n, size_t m)
{
	mc_hit("reallocarray\n", 13);
	if (m != 0 && n > (size_t)-1 / m)
		return NULL;
	return __libc_realloc(p, n * m);
}

void *
memalign(size_t a, size_t n)
{
	mc_hit("memalign\n", 9);
	return __libc_memalign(a, n);
}

void *
aligned_alloc(size_t a, size_t n)
{
	mc_hit("aligned_alloc\n", 14);
	return __libc_memalign(a, n);
}

int
posix_memalign(void **pp, size_t a, size_t n)
{
	void	*p;

	mc_hit("posix_memalign\n", 15);
	if ((p = __libc_memalign(a, n)) == NULL)
		return 12;	/* ENOMEM */
	*pp = p;
	return 0;
}
