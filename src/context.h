/*
 * What every command that works on a repository starts with: git found
 * and recent enough, the repository found, its settings read, its
 * harness state opened, and copies left by dead runs reclaimed.
 *
 *	struct context ctx;
 *	if ((st = context_open(&ctx, CTX_CONFIG)) != 0)
 *		return st;		a message was printed; st is the
 *					exit status (125 or 64)
 *	... ctx.repo, ctx.cfg, ctx.state ...
 *	context_close(&ctx);
 */
#ifndef CONTEXT_H
#define CONTEXT_H

#include "settings.h"
#include "repo.h"
#include "state.h"

#define CTX_NORECLAIM	0x01	/* forge gc reclaims itself, and says so */

struct context {
	struct repo	repo;
	struct settings	cfg;
	struct state	state;
	char		*at;	/* the commit context_open_at() resolved,
				   or NULL */
	int		opened;
};

int	context_open(struct context *, int);
/* The same, the settings read with the .forgeconfig of the tree to be
 * verified (settings.h): from ":" (the index's) or a revision's,
 * resolved to its commit first (64, said why, if it names none), which
 * ctx.at holds: the one commit the run is then to verify, whatever
 * the revision names by the time it is checked out. */
int	context_open_at(struct context *, int, const char *);
void	context_close(struct context *);
/* Append one event (a JSON object) under the state lock; -1 on failure. */
int	context_event(struct context *, struct buf *);
/* Record that n left-over copies were removed. */
int	context_reclaimed(struct context *, int);
/* Read the circuit breaker under the state lock; -1 on failure. */
int	context_breaker(struct context *, struct breaker *);

#endif /* CONTEXT_H */
