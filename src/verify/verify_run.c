/* A run of forge verify: its flow from the options to the recorded verdict. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breaker.h"
#include "change.h"
#include "verify_opts.h"
#include "color.h"
#include "contain.h"
#include "context.h"
#include "escape.h"
#include "forge.h"
#include "fs_vis.h"
#include "hint.h"
#include "proof.h"
#include "repo.h"
#include "rundir.h"
#include "sig.h"
#include "snapshot.h"
#include "source.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_copy.h"
#include "verify_carry.h"
#include "verify_event.h"
#include "verify_int.h"
#include "verify_log.h"
#include "xmalloc.h"

/* The breaker is open: say why and how to close it. */
static int
refused(struct run *r)
{
	struct breaker	b;
	int		open;

	if (context_breaker(r->ctx, &b) == -1)
		return -1;
	if ((open = b.open)) {
		warnx("the circuit breaker is open: %d consecutive failed "
		    "verifications, open since %s", b.streak,
		    b.opened_at != NULL ? b.opened_at : "(unknown)");
		if (b.last_fail != NULL)
			warnx("last failure: %s%s%s", fs_vis(b.last_fail),
			    b.last_fail_at != NULL ? " at " : "",
			    b.last_fail_at != NULL ? b.last_fail_at : "");
		warnx("not running anything; once the cause is fixed, "
		    "close it with: forge breaker reset");
	}
	breaker_free(&b);
	return open;
}

/*
 * Fold the verdict into the breaker and append it to the timeline, in
 * one transaction: both or neither.  What forge exits with is what this
 * records; when it cannot record, the verdict becomes an ERROR, and that
 * is recorded if anything can be.
 */
static int
record_once(struct run *r)
{
	struct state	*st = &r->ctx->state;
	struct state_txn tx;
	struct buf	 ev = BUF_INIT;
	char		 start[RFC3339_LEN];
	int		 opened, ret;

	/* A run has one time, when it started, wherever it is shown: the
	 * event, the breaker's last failure, and when the run opened it. */
	timeutil_rfc3339(start, r->res.start);
	if (state_begin(st, &tx) == -1)
		return -1;
	/* Recorded, but it neither feeds the breaker nor obeys it. */
	opened = r->mode.no_breaker ? 0 : breaker_record(&tx.b, r->res.verdict,
	    st->threshold, start, r->res.failed);
	breaker_free(&r->res.after);
	breaker_copy(&r->res.after, &tx.b);
	verify_event_json(r, &ev, start);
	if (opened)
		verify_event_breaker_open(r, &ev, start, st->threshold);
	if ((ret = state_commit(st, &tx, &ev)) == 0 && opened)
		warnx("%d failed verifications in a row: the circuit breaker "
		    "is now open (forge breaker reset closes it)",
		    r->res.after.streak);
	buf_free(&ev);
	return ret;
}

static void
record(struct run *r)
{
	/* Recording waits for the lock as long as it takes. */
	r->ctx->state.deadline_ms = 0;
	if (record_once(r) == 0) {
		r->res.recorded = 1;
		return;
	}
	warnx("the verdict could not be recorded");
	/* Dying of a signal says more than any status could. */
	if (r->res.verdict == VERDICT_INTERRUPTED)
		return;
	verify_result_doing(r, "forge could not record the verdict");
	r->res.recorded = record_once(r) == 0;
}

static void
summary(struct run *r)
{
	const char	*v = verdict_name(r->res.verdict);
	char		*what, d[32], tree[16];
	int		 color;

	what = verify_steps_display(r);
	timeutil_duration(d, sizeof(d), timeutil_now_ms() - r->res.start_ms);
	snprintf(tree, sizeof(tree), "%.12s",
	    r->res.tree != NULL ? r->res.tree : "unchecked");
	color = color_want(r->ctx->cfg.color, STDERR_FILENO);
	fprintf(stderr, "Verify: %s ... Verdict: %s%s%s (", fs_vis(what),
	    color ? color_verdict(v) : "", v, color ? COLOR_RESET : "");
	switch (r->res.verdict) {
	case VERDICT_PASS:
		break;
	case VERDICT_FAIL:
		if (r->res.timed_out)
			fprintf(stderr, "timed out, exit status %d; ",
			    r->res.status);
		else
			fprintf(stderr, "exit status %d; ", r->res.status);
		break;
	case VERDICT_ERROR:
		fprintf(stderr, "%s, exit status %d; ", r->res.unstarted ?
		    "the command could not be started" :
		    "forge could not verify", r->res.status);
		break;
	case VERDICT_INTERRUPTED:
		fprintf(stderr, "interrupted by signal %d; ", r->res.signo);
		break;
	}
	fprintf(stderr, "%s%s", r->mode.isolated ? run_mode(r) : "in place",
	    !r->mode.isolated || !r->mode.reuse ? "" : r->mode.incremental ?
	    ", incremental" : r->copy.reused ? ", reused" : ", fresh");
	if (r->have_plan && !r->plan_failed)
		fprintf(stderr, ", %s (%s)", r->mode.contain ? "contained" :
		    "no network", contain_method(&r->plan));
	if (r->res.diverged)
		fprintf(stderr, ", a fresh copy's verdict");
	else if (r->res.audited != NULL &&
	    strcmp(r->res.audited, "agrees") == 0)
		fprintf(stderr, ", audited");
	fprintf(stderr, "%s, tree %s, %s)\n", partial(r) ? ", partial" : "",
	    tree, d);
	free(what);
}

/* How the steps are contained, planned before any of them starts. */
static int
plan_contain(struct run *r)
{
	struct contain_opts	 o = CONTAIN_OPTS_INIT;
	const char		*protect[4];

	if (!r->mode.contain && !r->mode.no_network)
		return 0;
	verify_result_doing(r, "forge could not contain the command");
	protect[0] = r->ctx->repo.top;
	protect[1] = r->ctx->repo.gitdir;
	protect[2] = r->ctx->repo.common;
	protect[3] = NULL;
	o.fs = r->mode.contain;
	o.net = r->mode.no_network;
	o.method = r->ctx->cfg.contain_method;
	o.copy = r->mode.contain ? r->copy.snap.copy : NULL;
	o.writable = (const char *const *)r->ctx->cfg.contain_writable.v;
	o.protect = protect;
	o.scratch = r->mode.contain ? r->copy.rd.scratch : NULL;
	if (contain_prepare(&r->plan, &o) == -1)
		return -1;
	r->have_plan = 1;
	fprintf(stderr, "forge: %s\n", contain_summary(&r->plan));
	return 0;
}

/*
 * Asked for and not to be had: one line says why, every run; and then
 * what the copy is, once it is known (a carried one, verify_carry()
 * says).
 */
static void
announce(const struct run *r, int carried)
{
	if (r->copy.not_reused != NULL)
		fprintf(stderr, "forge: not reused: %s (see forge(1))\n",
		    r->copy.not_reused);
	if (carried)
		return;
	if (r->copy.reused)
		fprintf(stderr, "forge: isolated: running verification in a "
		    "reused %scopy%s, brought up to date (working tree "
		    "untouched)\n", r->mode.incremental ? "incremental " : "",
		    r->source.kind == SOURCE_STAGED ? " of the staged tree" :
		    r->source.kind == SOURCE_REV ? " of the commit's tree" :
		    "");
	else if (r->source.kind != SOURCE_WORKTREE)
		fprintf(stderr, "forge: isolated: running verification in an "
		    "ephemeral copy of %s (working tree untouched)\n",
		    r->source.kind == SOURCE_STAGED ? "the staged tree, what "
		    "git commit would record" : "the commit's tree");
	else
		fprintf(stderr, "forge: isolated: running verification in an "
		    "ephemeral copy (working tree untouched)\n");
}

/* Build the copy (or, in place, read the tree id); -1: the verdict is
 * set, 1: a cached PASS, nothing to run.  The steps run after this. */
int
verify_run_prepare(struct run *r, const struct verify_opts *o)
{
	struct context		*ctx = r->ctx;
	const char		*places[4];
	int			 carrying;

	verify_result_doing(r, "forge could not create its run directory");
	/* Freed whatever happens: a half-made one holds a cleanup entry
	 * that points into r. */
	r->copy.have_rd = 1;
	if (r->mode.isolated && r->mode.reuse)
		verify_copy_claim(r);
	/* A range's run directory serves each of its commits. */
	if (!r->copy.reused && !(r->mode.range && r->copy.rd.top != NULL) &&
	    rundir_open(&r->copy.rd, ctx->repo.common) == -1)
		return -1;
	if (o->change != NULL) {
		verify_result_doing(r, "forge could not report the change");
		if (change_compute(&r->change, &ctx->repo, o->change,
		    &r->copy.rd) == -1)
			return -1;
		r->have_change = 1;
		change_print(&r->change, stderr, CHANGE_LIST_MAX);
	}
	if (!r->mode.isolated) {
		fprintf(stderr, "forge: in place: running verification in "
		    "the working tree itself\n");
		verify_result_doing(r, "forge could not compute the working tree's id");
		if (r->mode.check && (r->res.tree =
		    proof_source_tree(&r->copy.rd, &ctx->repo)) == NULL)
			return -1;
		if (r->res.tree != NULL &&
		    verify_cache_check(r, r->res.tree) == 1)
			return 1;
		return plan_contain(r);
	}
	if (r->source.kind != SOURCE_WORKTREE) {
		verify_result_doing(r, "forge could not read the tree to verify");
		if (source_resolve(&r->source, &ctx->repo, &r->copy.rd) == -1)
			return -1;
		if (verify_cache_check(r, r->source.tree) == 1)
			return 1;
	} else if (r->mode.check && verify_cache_usable(r)) {
		/* The working state's tree, before the copy is made. */
		char	*t;
		int	 hit;

		verify_result_doing(r, "forge could not compute the working tree's id");
		if ((t = proof_source_tree(&r->copy.rd, &ctx->repo)) == NULL)
			return -1;
		hit = verify_cache_check(r, t);
		free(t);
		if (hit == 1)
			return 1;
	}
	/* Where the command runs, a copy lacks what git ignores: when a
	 * build needs it and no setup step makes it, say so first. */
	if (ctx->cfg.setup.n == 0 && r->nsteps > 0 && !r->copy.have_snap)
		hint_ignored_inputs(&ctx->repo, r->steps[0].shell ? "" :
		    ctx->repo.prefix);
	verify_result_doing(r, "forge could not build and prove the copy");
	/* A range's next commit: the copy carried to it, or made anew
	 * (verify_carry() says how it got there). */
	carrying = r->mode.range && r->copy.have_snap;
	if ((carrying ? verify_carry(r, o->verbose) :
	    verify_copy_make(r, o->verbose)) == -1)
		return -1;
	announce(r, carrying);
	/* Fit to park from now on, whatever the command does to it: the
	 * next run brings it up to date, or rebuilds it. */
	r->copy.ready = 1;
	verify_copy_skip_setup(r, o->setup);
	if (r->mode.range)
		verify_carry_ready(r, o->setup);
	if (r->copy.snap.tree != NULL)
		r->res.tree = xstrdup(r->copy.snap.tree);
	if (o->verbose && !r->copy.carried)
		verify_copy_phases(&r->copy.snap);
	places[0] = ctx->repo.top;
	places[1] = ctx->repo.gitdir;
	places[2] = ctx->repo.common;
	places[3] = NULL;
	if (r->copy.snap.links_known)
		(void)escape_warn_paths(r->copy.snap.copy, &r->copy.snap.links,
		    places);
	else
		(void)escape_warn(r->copy.snap.copy, places);
	return plan_contain(r);
}

/* What is a commit's own: all but the copy and its run directory. */
static void	verify_run_free_own(struct run *);

void
verify_run_next(struct run *r)
{
	verify_run_free_own(r);
	source_init(&r->source);
	r->key.cache_decided = 0;
	r->res.recorded = 0;
	r->res.fast = NULL;
	r->res.diverged = 0;
	r->res.audited = NULL;
	r->copy.have_before = 0;
	r->key.contain_guess = NULL;
	r->mode.steps_from = NULL;	/* the last commit's settings' */
	r->copy.setup_unsure = 0;
	r->have_plan = 0;
	r->plan_failed = 0;
}

/* What is one commit's own, freed and forgotten: all but the copy, its
 * run directory, and what the range keeps from commit to commit. */
static void
verify_run_free_own(struct run *r)
{
	free(r->res.tree);
	strv_free(&r->res.refs);
	free(r->res.failed);
	breaker_free(&r->res.after);
	source_free(&r->source);
	free(r->key.cache_tree);
	free(r->key.cached_at);
	free(r->key.convert);
	free(r->key.as_is);
	free(r->key.settings);
	free(r->key.identity);
	strv_free(&r->copy.setup_before);
	strv_free(&r->copy.setup_changed);
	free(r->copy.setup_inputs);
	free(r->copy.setup_read);
	verify_steps_free(r);
	if (r->have_plan)
		contain_free(&r->plan);
	r->res.tree = r->res.failed = r->key.cache_tree = r->key.cached_at =
	    NULL;
	r->key.convert = r->key.as_is = r->key.settings = r->key.identity =
	    NULL;
	r->copy.setup_inputs = r->copy.setup_read = NULL;
}

void
verify_run_free(struct run *r)
{
	verify_run_free_own(r);
	if (r->copy.have_snap)
		snapshot_free(&r->copy.snap);
	if (r->copy.have_rd)
		rundir_free(&r->copy.rd);
	free(r->copy.had_setup);
	reuse_park_claimed_free(&r->copy.claim);
	if (r->have_change)
		change_free(&r->change);
	free(r->copy.range_setup);
	if (r->key.have_ss)
		source_state_free(&r->key.ss);
}

/* Options, configuration and steps.  0 or an exit status. */
int
verify_run_begin(struct run *r, const struct verify_opts *o)
{
	struct context	*ctx = r->ctx;

	r->mode.isolated = o->isolated != -1 ? o->isolated : ctx->cfg.isolated;
	/* What a commit records, or a commit: only a copy can hold it. */
	if (o->staged || o->rev != NULL) {
		r->mode.isolated = 1;
		r->source.kind = o->staged ? SOURCE_STAGED : SOURCE_REV;
		r->source.rev = o->rev;
		/* The commit the steps were read from, resolved once: a
		 * branch that moves meanwhile moves nothing here. */
		if (ctx->at != NULL)
			r->source.commit = xstrdup(ctx->at);
	}
	r->mode.no_breaker = o->no_breaker;
	r->mode.cache = o->cache != -1 ? o->cache : ctx->cfg.cache;
	/* The base too, before a run directory is made for the report. */
	if (o->change != NULL) {
		char	*c;

		if ((c = repo_resolve_commit(&ctx->repo, o->change)) == NULL) {
			if (errno != ENOENT)
				return EXIT_FORGE;
			warnx("--change=%s: no such commit", fs_vis(o->change));
			return EXIT_USAGE;
		}
		free(c);
	}
	/* --clone asks for a copy; forge.isolation only says which. */
	if (o->clone == 1 && o->isolated == -1)
		r->mode.isolated = 1;
	r->mode.clone = r->mode.isolated && (o->clone != -1 ? o->clone :
	    ctx->cfg.clone);
	/* A clone is made afresh from the working state every time. */
	if (r->mode.clone && r->source.kind != SOURCE_WORKTREE)
		r->mode.clone = 0;
	r->mode.timeout_ms = o->timeout_ms >= 0 ? o->timeout_ms :
	    ctx->cfg.timeout_ms;
	r->mode.check = o->check;
	r->mode.incremental = o->incremental != -1 ? o->incremental :
	    o->reuse == 0 ? 0 : ctx->cfg.incremental;
	r->mode.reuse = r->mode.incremental || (o->reuse != -1 ? o->reuse :
	    ctx->cfg.reuse);
	/* A clone is made afresh every time; a copy of the staged tree or
	 * of a commit is parked as one of the working state is, in the same
	 * pool (reuse.h says which of them a run claims). */
	if (r->mode.reuse && r->mode.isolated && r->mode.clone)
		r->copy.not_reused = "a private clone";
	/* A range's copy goes on from commit to commit, never parked
	 * (verify_carry.h). */
	if (r->mode.clone || r->mode.range)
		r->mode.reuse = 0;
	if (r->mode.clone)
		r->mode.incremental = 0;
	r->mode.contain = o->contain != -1 ? o->contain : ctx->cfg.contain;
	r->mode.no_network = o->no_network;
	if (verify_opts_conflicts(o, r->mode.isolated, r->mode.contain) == -1)
		return EXIT_USAGE;
	if (verify_steps_make(r, o) == -1)
		return EXIT_USAGE;
	if (r->mode.isolated && verify_copy_tmpdir(&ctx->repo) == -1)
		return EXIT_FORGE;
	/* Waiting for another forge's lock counts against the limit. */
	if (r->mode.timeout_ms > 0)
		ctx->state.deadline_ms = r->res.start_ms + r->mode.timeout_ms;
	return 0;
}

/* The breaker, unless --no-breaker: 0, or an exit status. */
int
verify_run_gate(struct run *r)
{
	int	st;

	if (r->mode.no_breaker)
		return 0;
	if ((st = refused(r)) == 1)
		return EXIT_BREAKER;
	if (st == -1)
		return errno == ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FORGE;
	return 0;
}

/*
 * The steps: setup, what it changed noted (verify_copy.h), then the
 * verification.
 */
void
verify_run_steps(struct run *r)
{
	verify_steps_begin(r);
	verify_copy_setup_begin(r);
	if (verify_steps_run(r, 1) == 0) {
		verify_copy_setup_end(r);
		(void)verify_steps_run(r, 0);
	}
	verify_steps_end(r);
}

/*
 * A cached PASS stands for the run: the copy it claimed goes back as it
 * was parked (or its run directory goes), and the PASS is said and
 * recorded.  What forge exits with.
 */
int
verify_run_replay(struct run *r)
{
	verify_log_close(r, 0);
	verify_run_release(r);
	return verify_cache_replay(r);
}

/* Nothing ran in the copy claimed or the run directory made: back as
 * they were, or gone. */
void
verify_run_release(struct run *r)
{
	if (!r->copy.have_rd)
		return;
	if (r->copy.reused)
		(void)verify_copy_unclaim(r);
	else
		(void)rundir_remove(&r->copy.rd);
	rundir_free(&r->copy.rd);
	r->copy.have_rd = 0;
	r->copy.reused = 0;
}

/* After the steps: the copy ended (but a range's, which goes on), the
 * verdict recorded, remembered and said. */
void
verify_run_end(struct run *r, const struct verify_opts *o)
{
	if (sig_pending() && r->res.verdict != VERDICT_INTERRUPTED)
		verify_result_interrupted(r, sig_pending());
	verify_copy_results(r);
	if (!r->mode.range)
		verify_copy_finish(r, o->keep);
	record(r);
	verify_cache_remember(r);
	verify_log_announce(r);
	summary(r);
	verify_log_close(r, 1);
}
