/* The common start of every repository command. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "event.h"
#include "forge.h"
#include "fs_vis.h"
#include "git.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "timeutil.h"

static void	reclaim(struct context *);

int
context_open(struct context *ctx, int flags)
{
	return context_open_at(ctx, flags, NULL);
}

int
context_open_at(struct context *ctx, int flags, const char *from)
{
	struct state_limits	 lim;
	int			 r;

	memset(ctx, 0, sizeof(*ctx));
	settings_init(&ctx->cfg);
	ctx->state.lockfd = -1;
	if (repo_open(&ctx->repo) == -1)
		return EXIT_FORGE;
	ctx->opened = 1;
	if (from != NULL && strcmp(from, ":") != 0 &&
	    (ctx->at = repo_resolve_commit(&ctx->repo, from)) == NULL) {
		if (errno != ENOENT)
			return EXIT_FORGE;
		warnx("--rev=%s: no such commit", fs_vis(from));
		return EXIT_USAGE;
	}
	r = settings_load(&ctx->cfg, &ctx->repo, ctx->at != NULL ? ctx->at :
	    from);
	if (r != 0)
		return r == -1 ? EXIT_USAGE : EXIT_FORGE;
	ctx->repo.core = &ctx->cfg.core;
	lim.threshold = ctx->cfg.threshold;
	lim.max_size = ctx->cfg.timeline_max;
	if (state_open(&ctx->state, ctx->repo.common, &lim) == -1)
		return EXIT_FORGE;
	if (!(flags & CTX_NORECLAIM))
		reclaim(ctx);
	return 0;
}

/* Copies of runs that died go first, each said in one line. */
static void
reclaim(struct context *ctx)
{
	struct reclaim	rc;
	size_t		i;

	(void)journal_reclaim(ctx->repo.common, 0, 0, &rc);
	for (i = 0; i < rc.n; i++)
		warnx("removed %s, left by a forge run that died (pid %ld)",
		    fs_vis(rc.v[i].top), rc.v[i].pid);
	for (i = 0; i < rc.left.n; i++)
		warnx("%s: left in place, forge gc will try again",
		    rc.left.v[i]);
	if (rc.n > 0)
		(void)context_reclaimed(ctx, (int)rc.n);
	journal_reclaim_free(&rc);
}

int
context_reclaimed(struct context *ctx, int n)
{
	struct json	 j;
	struct buf	 ev = BUF_INIT;
	char		 now[RFC3339_LEN];
	int		 ret;

	json_init(&j, &ev);
	state_event_begin(&j, "reclaim", timeutil_rfc3339(now, time(NULL)));
	json_key(&j, EVENT_COUNT);
	json_int(&j, n);
	json_close(&j, '}');
	ret = context_event(ctx, &ev);
	buf_free(&ev);
	return ret;
}

int
context_breaker(struct context *ctx, struct breaker *b)
{
	struct state_txn	tx;

	if (state_begin(&ctx->state, &tx) == -1) {
		breaker_init(b);
		return -1;
	}
	breaker_copy(b, &tx.b);
	state_end(&ctx->state, &tx);
	return 0;
}

int
context_event(struct context *ctx, struct buf *ev)
{
	struct state_txn	tx;

	if (ev->len == 0 || ev->data[ev->len - 1] != '\n')
		buf_addc(ev, '\n');
	if (state_begin(&ctx->state, &tx) == -1)
		return -1;
	return state_commit(&ctx->state, &tx, ev);
}

void
context_close(struct context *ctx)
{
	if (ctx->state.dir != NULL)
		state_close(&ctx->state);
	settings_free(&ctx->cfg);
	free(ctx->at);
	if (ctx->opened)
		repo_close(&ctx->repo);
	memset(ctx, 0, sizeof(*ctx));
	ctx->state.lockfd = -1;
}
