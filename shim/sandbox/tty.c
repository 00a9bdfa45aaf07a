/*
 * tty.c - envshim-sandbox: a terminal of the sandbox's own.
 *
 * A command started on a terminal (ssh's and sudo's password prompts,
 * GPG_TTY, anything that opens /dev/tty) needs one, and the caller's
 * must stay out of its reach: the controlling terminal of a process is
 * where TIOCSTI types into the agent's shell, and any descriptor on it
 * sets its modes, size or queue.  So init opens a pty pair on the
 * command's own devpts instance (mount.c dev_own) and hands both ends to
 * the outer; the command takes the slave as its controlling terminal and
 * as each of stdin, stdout and stderr that was the caller's terminal;
 * the outer, outside the command's namespaces, copies bytes between the
 * master and the caller's terminal (raw meanwhile, so ^C, ^Z and ^D
 * reach the command's line discipline as typed) and passes resizes on,
 * as sudo's use_pty and script(1) do.
 *
 * The outer holds a slave too: the master never hangs up while the
 * command runs, so the relay never spins on POLLHUP, and its end is
 * init's status, after which the master is drained.  Only a command in
 * its terminal's foreground gets one: a background job's runs without,
 * as before, and leaves the terminal's modes alone.  Without a terminal
 * nothing here runs but three isatty calls.
 *
 * es_sbx_tty_open and es_sbx_tty_take run in init and the command, after
 * the clone: async-signal-safe only.  The rest runs in the outer.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "sbx.h"

/* The outer's side of the relay; init finds it copied and closes it. */
static struct {
	int		 sock;		/* the pair comes over it */
	int		 term;		/* the caller's terminal, read and written */
	int		 opened;	/* ... a descriptor of our own */
	int		 master;	/* the command's terminal */
	int		 slave;		/* held: the master never hangs up */
	int		 raw;		/* term is raw; saved restores it */
	int		 input;		/* term's input is still relayed */
	int		 started;
	sigset_t	 wait;		/* the mask ppoll waits with */
	struct termios	 saved;
	struct winsize	 ws;		/* the size init gave the command's */
	size_t		 in_off, in_len;
	char		 in[4096];	/* typed, not yet taken by the master */
} r = { .sock = -1, .term = -1, .master = -1, .slave = -1 };

static volatile sig_atomic_t resized;

/* SIGWINCH: the size is copied by the relay, not here. */
static void
on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* Gives the caller's terminal its modes back; at exit, too. */
static void
restore(void)
{
	if (r.raw && tcsetattr(r.term, TCSANOW, &r.saved) == 0)
		r.raw = 0;
}

/*
 * Which of stdin, stdout and stderr are one terminal, the outer's
 * controlling terminal with the outer in its foreground: then the
 * command gets a terminal of its own.  A descriptor the outer can read
 * and write stays with it for the relay (one of 0-2 opened read-write,
 * else its own open of the terminal).
 */
void
es_sbx_tty_plan(struct es_sbx_plan *pl)
{
	char path[32];
	struct stat st, ts;
	int fd, t = -1, std = 0, fl, sp[2];

	for (fd = 0; fd < 3; fd++) {
		if (!isatty(fd) || fstat(fd, &st) == -1)
			continue;
		if (t == -1) {
			t = fd;
			ts = st;
		}
		if (st.st_rdev == ts.st_rdev)
			std |= 1 << fd;
	}
	/* in the background its job would stop at the first read */
	if (t == -1 || tcgetpgrp(t) != getpgrp())
		return;
	for (fd = 0; fd < 3; fd++)
		if ((std & 1 << fd) && (fl = fcntl(fd, F_GETFL)) != -1 &&
		    (fl & O_ACCMODE) == O_RDWR)
			break;
	if (fd < 3)
		r.term = fd;
	else {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t);
		if ((r.term = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
			return;
		r.opened = 1;
	}
	if (tcgetattr(r.term, &pl->tty.tio) == -1 ||
	    ioctl(r.term, TIOCGWINSZ, &pl->tty.ws) == -1) {
		if (r.opened)
			close(r.term);
		r.term = -1;
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1)
		es_sbx_refuse("socketpair: %s", strerror(errno));
	r.saved = pl->tty.tio;
	r.ws = pl->tty.ws;
	r.sock = sp[0];
	pl->tty.sock = sp[1];
	pl->tty.std = std;
	pl->tty.on = 1;
}

/*
 * In init, before the command: the pair on the command's devpts, with the
 * caller's terminal's modes and size, both ends sent to the outer.  The
 * slave stays in pl->tty.slave for the command.  AS-safe.
 */
void
es_sbx_tty_open(struct es_sbx_plan *pl)
{
	char path[32], cbuf[CMSG_SPACE(2 * sizeof(int))], byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh;
	struct cmsghdr *c;
	int fds[2], zero = 0;
	unsigned int n;
	size_t off = 0;

	close(r.sock);
	if (r.opened)
		close(r.term);
	if ((fds[0] = openat(AT_FDCWD, "/dev/pts/ptmx", O_RDWR | O_NOCTTY |
	    O_CLOEXEC)) == -1 || ioctl(fds[0], TIOCSPTLCK, &zero) == -1 ||
	    ioctl(fds[0], TIOCGPTN, &n) == -1)
		es_sbx_fail(pl, ES_S_TTY, -1);
	es_sbx_put_str(path, sizeof(path), &off, "/dev/pts/");
	es_sbx_put_ulong(path, sizeof(path), &off, n);
	if ((fds[1] = openat(AT_FDCWD, path, O_RDWR | O_NOCTTY |
	    O_CLOEXEC)) == -1 || tcsetattr(fds[1], TCSANOW, &pl->tty.tio) == -1 ||
	    ioctl(fds[0], TIOCSWINSZ, &pl->tty.ws) == -1)
		es_sbx_fail(pl, ES_S_TTY, -1);
	memset(&mh, 0, sizeof(mh));
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(pl->tty.sock, &mh, MSG_NOSIGNAL) != 1)
		es_sbx_fail(pl, ES_S_TTY, -1);
	close(pl->tty.sock);
	close(fds[0]);
	pl->tty.slave = fds[1];
}

/*
 * In the command, a session leader now: the slave becomes its controlling
 * terminal and each of stdin, stdout and stderr the caller's terminal
 * was.  The slave's own descriptor is closed at exec.  AS-safe.
 */
int
es_sbx_tty_take(const struct es_sbx_plan *pl)
{
	int fd;

	if (ioctl(pl->tty.slave, TIOCSCTTY, 0) == -1)
		return -1;
	for (fd = 0; fd < 3; fd++)
		if ((pl->tty.std & 1 << fd) && dup2(pl->tty.slave, fd) == -1)
			return -1;
	return 0;
}

/* All of buf to fd, waiting while it is full; a terminal gone drops it. */
static void
put_all(int fd, const char *buf, size_t n)
{
	struct pollfd p = { fd, POLLOUT, 0 };
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, buf, n)) > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w == -1 && errno == EAGAIN)
			(void)poll(&p, 1, -1);
		else if (w == 0 || errno != EINTR)
			return;
	}
}

/* What the command wrote, to the caller's terminal: 0 when none is left. */
static int
copy_out(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(r.master, buf, sizeof(buf))) == -1 && errno == EINTR)
		;
	if (n <= 0)
		return 0;
	put_all(r.term, buf, (size_t)n);
	return 1;
}

/* The pair from init: the relay starts, the caller's terminal goes raw. */
static void
receive(void)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh;
	struct cmsghdr *c;
	struct termios raw;
	struct winsize ws;
	int fds[2];
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	while ((n = recvmsg(r.sock, &mh, MSG_CMSG_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return;
	close(r.sock);
	r.sock = -1;
	/* none: init failed first, and says why over its report pipe */
	if (n != 1 || (c = CMSG_FIRSTHDR(&mh)) == NULL ||
	    c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(fds)))
		return;
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	r.master = fds[0];
	r.slave = fds[1];
	(void)fcntl(r.master, F_SETFL, fcntl(r.master, F_GETFL) | O_NONBLOCK);
	raw = r.saved;
	cfmakeraw(&raw);
	if (tcsetattr(r.term, TCSANOW, &raw) == 0) {
		r.raw = 1;
		atexit(restore);
	}
	r.input = 1;
	/*
	 * A resize before SIGWINCH was ours is copied now; not the same
	 * size again, which would undo a size the command has set since.
	 */
	if (ioctl(r.term, TIOCGWINSZ, &ws) == 0 && (ws.ws_row != r.ws.ws_row ||
	    ws.ws_col != r.ws.ws_col || ws.ws_xpixel != r.ws.ws_xpixel ||
	    ws.ws_ypixel != r.ws.ws_ypixel))
		resized = 1;
}

/*
 * The outer, the first time: SIGWINCH marks a resize, which the relay
 * copies; SIGTTIN and SIGTTOU are ignored, so that if the outer is ever
 * moved to the background its read fails (EIO: input ends) and its
 * writes go on, instead of each retrying.  SIGWINCH is taken only in
 * ppoll: no resize is missed between a check and the wait.
 */
static void
start(struct es_sbx_plan *pl)
{
	struct sigaction sa;
	sigset_t winch;

	r.started = 1;
	close(pl->tty.sock);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGTTIN, &sa, NULL);
	sigaction(SIGTTOU, &sa, NULL);
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, &r.wait);
	sigdelset(&r.wait, SIGWINCH);
}

/*
 * The relay, while the outer waits for init's report on fd: returns when
 * fd has one (or init is gone), or when also (the records from inside,
 * -1: none) has something for the outer to write.  Typed input waits in r.in until the
 * master takes it, and the caller's terminal is read only then: a
 * command whose input queue is full holds the typing back in the
 * caller's terminal, and its output still flows.
 */
void
es_sbx_tty_relay(struct es_sbx_plan *pl, int fd, int also)
{
	struct pollfd p[5];
	struct winsize ws;
	nfds_t n;
	ssize_t k;
	int i;

	if (!pl->tty.on)
		return;
	if (!r.started)
		start(pl);
	for (;;) {
		if (resized && r.master != -1) {
			resized = 0;
			if (ioctl(r.term, TIOCGWINSZ, &ws) == 0)
				(void)ioctl(r.master, TIOCSWINSZ, &ws);
		}
		n = 0;
		p[n++] = (struct pollfd){ fd, POLLIN, 0 };
		p[n++] = (struct pollfd){ also, POLLIN, 0 };	/* -1: ignored */
		if (r.sock != -1)
			p[n++] = (struct pollfd){ r.sock, POLLIN, 0 };
		if (r.master != -1)
			p[n++] = (struct pollfd){ r.master,
			    r.in_len > 0 ? POLLIN | POLLOUT : POLLIN, 0 };
		if (r.master != -1 && r.input && r.in_len == 0)
			p[n++] = (struct pollfd){ r.term, POLLIN, 0 };
		if (ppoll(p, n, NULL, &r.wait) == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[0].revents != 0 || p[1].revents != 0)
			return;
		for (i = 2; i < (int)n; i++) {
			if (p[i].revents == 0)
				continue;
			if (p[i].fd == r.sock)
				receive();
			else if (p[i].fd == r.term) {
				k = read(r.term, r.in, sizeof(r.in));
				if (k > 0) {
					r.in_off = 0;
					r.in_len = (size_t)k;
				} else if (k == 0 || (errno != EINTR &&
				    errno != EAGAIN))
					r.input = 0;	/* hung up, or now in the background */
			} else {
				if ((p[i].revents & POLLIN) && copy_out())
					continue;
				if ((p[i].revents & POLLOUT) && r.in_len > 0) {
					k = write(r.master, r.in + r.in_off, r.in_len);
					if (k > 0) {
						r.in_off += (size_t)k;
						r.in_len -= (size_t)k;
					} else if (k == -1 && errno != EAGAIN &&
					    errno != EINTR)
						r.in_len = 0;
				} else if (p[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
					close(r.master);	/* not while we hold a slave */
					r.master = -1;
				}
			}
		}
	}
}

/*
 * After init's status: nothing inside runs any more, so what the master
 * still holds is all there will be; it goes out before the caller's
 * terminal gets its modes back and the status is told.
 */
void
es_sbx_tty_end(struct es_sbx_plan *pl)
{
	if (!pl->tty.on)
		return;
	if (r.master != -1) {
		while (copy_out())
			;
		close(r.master);
		close(r.slave);
		r.master = r.slave = -1;
	}
	if (r.sock != -1)
		close(r.sock);
	r.sock = -1;
	restore();
}
