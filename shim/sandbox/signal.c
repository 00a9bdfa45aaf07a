/*
 * signal.c - envshim-sandbox: signals passed on to the command.
 *
 * The outer passes what it receives to init, init to the command's
 * process group; the unconfined path to the command's group.  The
 * handler is async-signal-safe: it reads two words and calls kill.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sbx.h"

/* Signals a terminal or a supervisor sends that the command should see. */
static const int fwd_sigs[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH,
	SIGALRM, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU
};
#define NFWD	(sizeof(fwd_sigs) / sizeof(fwd_sigs[0]))

static volatile pid_t fwd_to;		/* signal forwarding target */
static int fwd_group;			/* to the target's group first */
static struct sigaction orig_act[NFWD];	/* the caller's dispositions */

/* A group that is gone (or not yet made) still has its leader to reach. */
static void
forward(int sig)
{
	int e = errno;
	pid_t to = fwd_to;

	if (to > 0 && (!fwd_group || kill(-to, sig) == -1))
		kill(to, sig);
	errno = e;
}

/* Before any handler is set: what the command should start with. */
void
es_sbx_sig_save(void)
{
	size_t i;

	for (i = 0; i < NFWD; i++)
		sigaction(fwd_sigs[i], NULL, &orig_act[i]);
}

/* Handlers go in while signals are blocked: none is lost, none too early. */
void
es_sbx_sig_forward(int group)
{
	struct sigaction sa;
	size_t i;

	fwd_group = group;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NFWD; i++)
		sigaction(fwd_sigs[i], &sa, NULL);
}

/* Set once the target exists; until then a signal is not passed on. */
void
es_sbx_sig_to(pid_t pid)
{
	fwd_to = pid;
}

/* A child about to exec: the caller's dispositions, not our handler. */
void
es_sbx_sig_restore(void)
{
	size_t i;

	for (i = 0; i < NFWD; i++)
		sigaction(fwd_sigs[i], &orig_act[i], NULL);
}
