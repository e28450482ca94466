/* The cleanup registry, run from the main flow and from atexit. */
#include "config.h"

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "sig.h"
#include "xmalloc.h"

struct cleanup {
	void			(*fn)(void *);
	void			 *arg;
	pid_t			  owner;
	TAILQ_ENTRY(cleanup)	  entry;
};

static TAILQ_HEAD(, cleanup)	list = TAILQ_HEAD_INITIALIZER(list);
static int			running;

static void
atexit_hook(void)
{
	cleanup_run();
}

void
cleanup_init(void)
{
	atexit(atexit_hook);
}

struct cleanup *
cleanup_push(void (*fn)(void *), void *arg)
{
	struct cleanup	*c;

	c = xcalloc(1, sizeof(*c));
	c->fn = fn;
	c->arg = arg;
	c->owner = getpid();
	TAILQ_INSERT_HEAD(&list, c, entry);
	return c;
}

void
cleanup_pop(struct cleanup *c, int run)
{
	if (c == NULL)
		return;
	TAILQ_REMOVE(&list, c, entry);
	if (run && c->owner == getpid())
		c->fn(c->arg);
	free(c);
}

void
cleanup_run(void)
{
	struct cleanup	*c;

	/* An entry's function may exit(3); the hook must not recurse. */
	if (running)
		return;
	running = 1;
	while ((c = TAILQ_FIRST(&list)) != NULL) {
		TAILQ_REMOVE(&list, c, entry);
		if (c->owner == getpid())
			c->fn(c->arg);
		free(c);
	}
	running = 0;
}

void
cleanup_exit(int status)
{
	int	signo;

	cleanup_run();
	if ((signo = sig_pending()) != 0) {
		/* stdio may hold a message for the user; write it first. */
		fflush(NULL);
		sig_die(signo);
	}
	exit(status);
}
