/* Records fatal signals, wakes poll loops, forwards to the running command. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sig.h"

static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFATAL	(sizeof(fatal) / sizeof(fatal[0]))

/* Signals whose disposition a child gets back, as forge found it. */
static const int restored[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE, SIGXFSZ,
	SIGTSTP, SIGTTIN, SIGTTOU
};
#define NRESTORED	(sizeof(restored) / sizeof(restored[0]))

static volatile sig_atomic_t	 got_sig;
static volatile sig_atomic_t	 nsig;
static volatile sig_atomic_t	 fwd_pgid;
static int			 wake[2] = { -1, -1 };
static int			 ignored_at_start[NRESTORED];
static sigset_t			 start_mask;

static void
handler(int signo)
{
	int	saved = errno;

	if (signo != SIGCHLD) {
		if (got_sig == 0)
			got_sig = signo;
		nsig++;
		if (fwd_pgid > 0)
			(void)kill(-(pid_t)fwd_pgid, nsig > 1 ? SIGKILL : signo);
	}
	if (wake[1] != -1)
		(void)write(wake[1], "", 1);
	errno = saved;
}

/* A child forked to work on its own, never to exec: a wake pipe of its
 * own, so that neither process drains the other's wakeups. */
void
sig_forked(void)
{
	if (wake[0] != -1)
		close(wake[0]);
	if (wake[1] != -1)
		close(wake[1]);
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) == -1)
		wake[0] = wake[1] = -1;
}

void
sig_init(void)
{
	struct sigaction	sa, old;
	size_t			i;

	sigprocmask(SIG_SETMASK, NULL, &start_mask);
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) == -1)
		wake[0] = wake[1] = -1;
	for (i = 0; i < NRESTORED; i++) {
		if (sigaction(restored[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			ignored_at_start[i] = 1;
	}

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NFATAL; i++)
		sigaddset(&sa.sa_mask, fatal[i]);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < NFATAL; i++) {
		if (sigaction(fatal[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal[i], &sa, NULL);
	}
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Past a file size limit, a write fails with EFBIG: clean up then. */
	sigaction(SIGXFSZ, &sa, NULL);

	/* A fatal signal blocked by our parent must still reach us. */
	{
		sigset_t	unblock;

		sigemptyset(&unblock);
		for (i = 0; i < NFATAL; i++)
			sigaddset(&unblock, fatal[i]);
		sigaddset(&unblock, SIGCHLD);
		sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	}
}

int
sig_fd(void)
{
	return wake[0];
}

void
sig_drain(void)
{
	char	junk[64];

	if (wake[0] == -1)
		return;
	while (read(wake[0], junk, sizeof(junk)) > 0)
		;
}

int
sig_pending(void)
{
	return got_sig;
}

int
sig_count(void)
{
	return nsig;
}

void
sig_forward(pid_t pgid)
{
	fwd_pgid = pgid;
	/* A signal that came before the group existed is passed on now. */
	if (pgid > 0 && got_sig != 0)
		(void)kill(-pgid, nsig > 1 ? SIGKILL : got_sig);
}

void
sig_block_all(sigset_t *old)
{
	sigset_t	all;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, old);
}

void
sig_restore(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int
sig_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t	old;
	int		running;

	/* A thread starts with its creator's mask. */
	sig_block_all(&old);
	running = pthread_create(t, NULL, fn, arg) == 0;
	sig_restore(&old);
	if (!running)
		(void)fn(arg);
	return running;
}

void
sig_child_reset(void)
{
	struct sigaction	sa;
	size_t			i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NRESTORED; i++) {
		sa.sa_handler = ignored_at_start[i] ? SIG_IGN : SIG_DFL;
		sigaction(restored[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &start_mask, NULL);
}

void
sig_test_stall(const char *phase)
{
	const char	*want = getenv("FORGE_TEST_STALL");
	const char	*release = getenv("FORGE_TEST_STALL_RELEASE");
	struct stat	 st;
	int		 waited = 0;

	if (want == NULL || strcmp(want, phase) != 0)
		return;
	fprintf(stderr, "forge: test stall: %s\n", phase);
	while (got_sig == 0 && waited < 60000 &&
	    (release == NULL || stat(release, &st) == -1)) {
		struct pollfd	pfd;

		pfd.fd = wake[0];
		pfd.events = POLLIN;
		(void)poll(&pfd, wake[0] != -1, 50);
		sig_drain();
		waited += 50;
	}
}

void
sig_die(int signo)
{
	struct sigaction	sa;
	sigset_t		set;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	sigaction(signo, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(signo);
	/* Only reached if the signal cannot kill us. */
	_exit(128 + signo);
}
