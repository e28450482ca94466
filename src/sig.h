/*
 * Fatal signals: recorded by a handler, acted on by the main flow.
 *
 *	sig_init();		once, first thing in main.  SIGINT, SIGTERM,
 *				SIGHUP and SIGQUIT are recorded (unless they
 *				were ignored when forge started, which is kept);
 *				SIGCHLD only wakes poll loops; SIGPIPE and
 *				SIGXFSZ are ignored, so a closed output or a
 *				file size limit is an error (EPIPE, EFBIG)
 *				that forge cleans up after.
 *	poll on sig_fd() ...	readable whenever any of those signals came;
 *	sig_drain();		empty it after poll says so.
 *	if (sig_pending())	the first fatal signal, 0 if none: the caller
 *				stops what it is doing, cleans up and calls
 *				cleanup_exit(), which re-raises it.
 *
 * While a command runs in its own process group, sig_forward(pgid) makes
 * the handler pass each fatal signal on to that group, and turn the second
 * one into SIGKILL; sig_forward(0) stops that.  The handler does nothing
 * else: it never allocates, never touches files.
 *
 * sig_thread(&t, fn, arg) runs fn(arg) in a thread of its own, with
 * every signal blocked there: they are for forge's own thread.  1: it
 * runs, for pthread_join(); 0: no thread could be made, and fn has run
 * to its end here.
 *
 * A child forked to go on as forge (no exec) calls sig_forked() first:
 * a wake pipe of its own, the parent's closed there.
 *
 * Between fork and exec a child calls sig_child_reset(), which is
 * async-signal-safe: the dispositions forge started with come back (an
 * ignored SIGINT stays ignored, as it would without forge) and the signal
 * mask is restored.
 */
#ifndef SIG_H
#define SIG_H

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

void	sig_init(void);
int	sig_fd(void);
void	sig_drain(void);
int	sig_pending(void);
int	sig_count(void);
void	sig_forward(pid_t);
void	sig_block_all(sigset_t *);
void	sig_restore(const sigset_t *);
int	sig_thread(pthread_t *, void *(*)(void *), void *);
void	sig_child_reset(void);
void	sig_forked(void);
/*
 * For the test suite: FORGE_TEST_STALL=<phase> makes forge announce the
 * phase on stderr and wait there -- until a signal comes, or until the
 * file FORGE_TEST_STALL_RELEASE names exists, or a minute has passed --
 * so a test can act at that exact point.  The phases are journal,
 * checkout, apply, untracked, proof and step; for a reused copy, claim
 * (its record locked, still parked), adopt (the run its owner), sync
 * (half brought up to date), park (about to be parked) and parked (parked,
 * its record still locked).
 */
void	sig_test_stall(const char *);
/* Die of signo: default disposition, unblocked, raised; never returns. */
void	sig_die(int) __attribute__((__noreturn__));

#endif /* SIG_H */
