/* The audit: a fast verdict checked against a fresh run of the same. */
#include "config.h"

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "capture.h"
#include "verify_opts.h"
#include "context.h"
#include "fs_vis.h"
#include "settings.h"
#include "sig.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_audit.h"
#include "verify_copy.h"
#include "verify_event.h"
#include "verify_int.h"
#include "xmalloc.h"

/* How often: --audit or --no-audit, else FORGE_AUDIT, else forge.audit. */
static int
audit_every(const struct run *r, const struct verify_opts *o)
{
	const char	*e;
	int		 n;

	if (o->audit != -1)
		return o->audit;
	if ((e = getenv("FORGE_AUDIT")) != NULL && *e != '\0') {
		if ((n = settings_audit(e)) != -1)
			return n;
		warnx("FORGE_AUDIT=%s is not a boolean or a whole number: "
		    "ignored", fs_vis(e));
	}
	return r->ctx->cfg.audit;
}

int
verify_audit_due(struct run *r, const struct verify_opts *o, int cached)
{
	int	n;

	if (cached) {
		/* The PASS it replays is the run's, until found wrong. */
		verify_result_set(r, VERDICT_PASS, 0, 0, NULL);
		r->res.fast = "cache";
	}
	else if (r->copy.carried)
		r->res.fast = "carried copy";
	else if (r->copy.reused)
		r->res.fast = r->mode.incremental ? "incremental copy" :
		    "reused copy";
	else
		r->res.fast = NULL;
	if (r->res.fast == NULL || r->mode.audit || sig_pending())
		return 0;
	/* An ERROR or an interruption verified nothing to compare. */
	if (!cached && r->res.verdict != VERDICT_PASS &&
	    r->res.verdict != VERDICT_FAIL)
		return 0;
	if ((n = audit_every(r, o)) <= 0)
		return 0;
	return n == 1 || arc4random_uniform((uint32_t)n) == 0;
}

/* The tree the fast path answered for. */
static const char *
fast_tree(const struct run *r)
{
	return r->res.tree != NULL ? r->res.tree : r->key.cache_tree;
}

/* The fresh run said otherwise: said, recorded, and its verdict is the
 * run's. */
static void
diverged(struct run *r, const struct run *a)
{
	struct buf	 ev = BUF_INIT;
	char		 now[RFC3339_LEN];
	const char	*was = verdict_name(r->res.verdict), *then;

	fprintf(stderr, "forge: AUDIT DIVERGENCE: the %s said %s, a fresh "
	    "copy says %s (tree %.12s)\n", r->res.fast, was,
	    verdict_name(a->res.verdict), a->res.tree != NULL ? a->res.tree :
	    "unchecked");
	if (strcmp(r->res.fast, "cache") == 0)
		then = "the cached verdict is dropped";
	else if (strcmp(r->res.fast, "carried copy") == 0)
		then = "the copy is not carried on";
	else
		then = "the copy is not parked";
	fprintf(stderr, "forge: the fresh verdict is the run's; %s\n", then);
	timeutil_rfc3339(now, time(NULL));
	verify_event_divergence(r, a, &ev, now);
	r->ctx->state.deadline_ms = 0;
	if (context_event(r->ctx, &ev) == -1)
		warnx("the divergence could not be recorded");
	buf_free(&ev);
	if (strcmp(r->res.fast, "cache") == 0)
		verify_cache_forget(r);
	if (a->res.failed != NULL)
		verify_result_set(r, a->res.verdict, a->res.status,
		    a->res.signo, "%s", a->res.failed);
	else
		verify_result_set(r, a->res.verdict, a->res.status,
		    a->res.signo, NULL);
	r->res.timed_out = a->res.timed_out;
	r->res.unstarted = a->res.unstarted;
	if (r->res.tree == NULL && a->res.tree != NULL)
		r->res.tree = xstrdup(a->res.tree);
	r->res.diverged = 1;
	r->res.audited = "diverged";
	r->copy.carry_ok = 0;
}

/* What the fresh run says of the fast verdict. */
static void
judge(struct run *r, const struct run *a)
{
	const char	*t = fast_tree(r);
	char		 d[32];

	if (a->res.verdict == VERDICT_INTERRUPTED || sig_pending())
		return;
	r->res.audited = "unchecked";
	if (a->res.verdict == VERDICT_ERROR) {
		warnx("audit: the fresh copy could not be verified (%s): the "
		    "%s's verdict stands unchecked", a->res.failed != NULL ?
		    fs_vis(a->res.failed) : "no reason given", r->res.fast);
		return;
	}
	/* The working state changed meanwhile -- or the fast path's proof
	 * was not a fresh copy's: recorded apart, for a suite in which
	 * nothing changes to fail on. */
	if (t != NULL && a->res.tree != NULL && strcmp(t, a->res.tree) != 0) {
		warnx("audit: the fresh copy holds another tree (%.12s, then "
		    "%.12s: the working state changed meanwhile?): the %s's "
		    "verdict stands unchecked", t, a->res.tree, r->res.fast);
		r->res.audited = "other tree";
		return;
	}
	if (a->res.verdict != r->res.verdict) {
		diverged(r, a);
		return;
	}
	r->res.audited = "agrees";
	fprintf(stderr, "forge: audit: a fresh copy agrees: %s (%s)\n",
	    verdict_name(a->res.verdict), timeutil_duration(d, sizeof(d),
	    timeutil_now_ms() - a->res.start_ms));
}

void
verify_audit(struct run *r, const struct verify_opts *o)
{
	struct verify_opts	 ao = *o;
	struct run		 a;
	int			 st;

	/* The fresh way: nothing looked up, claimed, skipped or kept. */
	ao.isolated = r->mode.isolated;
	ao.reuse = 0;
	ao.incremental = 0;
	ao.cache = 0;
	ao.keep = KEEP_NEVER;
	ao.change = NULL;
	ao.verbose = 0;
	ao.setup = 0;
	ao.audit = 0;
	memset(&a, 0, sizeof(a));
	a.ctx = r->ctx;
	a.mode.audit = 1;
	a.res.start = time(NULL);
	a.res.start_ms = timeutil_now_ms();
	fprintf(stderr, "forge: audit: the %s's verdict, checked in a fresh "
	    "%s\n", r->res.fast, r->mode.isolated ? "copy" : "run");
	/* Unseen: its output and forge's lines of it go to the run's log
	 * alone. */
	if (capture_start(&a.cap, r->have_log ? &r->log : NULL,
	    CAPTURE_QUIET) == 0)
		a.have_log = 1;
	if ((st = verify_run_begin(&a, &ao)) != 0)
		verify_result_error(&a, st, "its options or steps cannot be "
		    "used");
	else if (verify_run_prepare(&a, &ao) == 0)
		verify_run_steps(&a);
	if (a.have_log)
		capture_stop(&a.cap);
	a.have_log = 0;
	/* Seen: what will not go (a file system mounted in it) is named. */
	if (a.copy.have_rd)
		verify_copy_finish(&a, KEEP_NEVER);
	judge(r, &a);
	verify_run_free(&a);
}
