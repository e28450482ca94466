/* The events a run of forge verify appends to the timeline. */
#include "config.h"

#include <string.h>

#include "breaker.h"
#include "buf.h"
#include "change.h"
#include "contain.h"
#include "event.h"
#include "json.h"
#include "rundir.h"
#include "source.h"
#include "state.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_event.h"
#include "verify_int.h"

/* What the copy left out: [{"path": P, "why": W}, ...]. */
static void
partial_json(const struct run *r, struct json *j)
{
	size_t	i;

	json_open(j, '[');
	for (i = 0; i < r->copy.snap.left_out.n; i++) {
		json_open(j, '{');
		json_key(j, EVENT_PARTIAL_PATH);
		json_str(j, r->copy.snap.left_out.v[i]);
		json_key(j, EVENT_PARTIAL_WHY);
		json_str(j, r->copy.snap.left_out_why.v[i]);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* The mode the timeline shows: an incremental run's is its own, so that
 * nobody takes a build on what the last one left for a clean one. */
static const char *
event_mode(const struct run *r)
{
	if (r->mode.isolated && r->mode.incremental &&
	    r->source.kind == SOURCE_WORKTREE)
		return "incremental";
	return run_mode(r);
}

/* A commit of a range (verify_range.h): the range it is of, which
 * forge log shows as one. */
static void
range_json(const struct run *r, struct json *j)
{
	if (r->mode.range_id == NULL)
		return;
	json_key(j, EVENT_RANGE);
	json_str(j, r->mode.range_id);
}

/* What the verdict is of: HEAD, the commit of --rev, the range. */
static void
of_json(const struct run *r, struct json *j)
{
	json_key(j, EVENT_HEAD);
	json_str(j, r->ctx->repo.head);
	if (r->source.kind == SOURCE_REV) {
		json_key(j, EVENT_REV);
		json_str(j, r->source.commit);
	}
	range_json(r, j);
}

/* The fast path the verdict took, and what an audit of it found. */
static void
audit_json(const struct run *r, struct json *j)
{
	if (r->res.audited == NULL)
		return;
	json_key(j, EVENT_FAST);
	json_str(j, r->res.fast);
	json_key(j, EVENT_AUDIT);
	json_str(j, r->res.audited);
}

/* How the run was made: where, of what, contained how. */
static void
how_json(const struct run *r, struct json *j)
{
	json_key(j, EVENT_MODE);
	json_str(j, event_mode(r));
	if (r->mode.isolated && r->mode.reuse) {
		json_key(j, EVENT_COPY);
		json_str(j, r->copy.reused ? "reused" : "fresh");
	}
	if (r->mode.isolated && r->copy.not_reused != NULL) {
		json_key(j, EVENT_NOT_REUSED);
		json_str(j, r->copy.not_reused);
	}
	if (r->mode.isolated && r->mode.incremental) {
		json_key(j, EVENT_INCREMENTAL);
		json_bool(j, 1);
	}
	if (r->mode.clone) {
		json_key(j, EVENT_ISOLATION);
		json_str(j, "clone");
	}
	of_json(r, j);
	if (r->mode.no_breaker) {
		json_key(j, EVENT_NO_BREAKER);
		json_bool(j, 1);
	}
	json_key(j, EVENT_TREE);
	json_str(j, r->res.tree);
	json_key(j, EVENT_CWD);
	json_str(j, r->ctx->repo.prefix);
	if (r->mode.contain) {
		json_key(j, EVENT_CONTAIN);
		json_bool(j, 1);
	}
	if (r->mode.no_network) {
		json_key(j, EVENT_NETWORK);
		json_bool(j, 0);
	}
	if (partial(r)) {
		json_key(j, EVENT_PARTIAL);
		partial_json(r, j);
	}
	if (r->have_plan && !r->plan_failed) {
		json_key(j, EVENT_CONTAIN_METHOD);
		json_str(j, contain_method(&r->plan));
	}
	audit_json(r, j);
}

/* The steps that ran: [{"command": C, "status": N, ...}, ...]. */
static void
steps_json(const struct run *r, struct json *j)
{
	size_t	i;

	json_open(j, '[');
	for (i = 0; i < r->nsteps; i++) {
		if (!r->steps[i].ran)
			continue;
		json_open(j, '{');
		json_key(j, EVENT_STEP_COMMAND);
		json_str(j, r->steps[i].display);
		if (r->steps[i].setup) {
			json_key(j, EVENT_STEP_SETUP);
			json_bool(j, 1);
		}
		json_key(j, EVENT_STEP_STATUS);
		json_int(j, r->steps[i].status);
		json_key(j, EVENT_STEP_DURATION_MS);
		json_int(j, r->steps[i].ms);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* What a clone's command committed: {"<ref>": "<id>", ...}. */
static void
refs_json(struct run *r, struct json *j)
{
	char	*sp;
	size_t	 i;

	json_open(j, '{');
	for (i = 0; i < r->res.refs.n; i++) {
		sp = strchr(r->res.refs.v[i], ' ');
		*sp = '\0';
		json_key(j, r->res.refs.v[i]);
		json_str(j, sp + 1);
		*sp = ' ';
	}
	json_close(j, '}');
}

void
verify_event_json(struct run *r, struct buf *ev, const char *now)
{
	struct json	 j;

	json_init(&j, ev);
	state_event_begin(&j, "verify", now);
	how_json(r, &j);
	json_key(&j, EVENT_STEPS);
	steps_json(r, &j);
	json_key(&j, EVENT_VERDICT);
	json_str(&j, verdict_name(r->res.verdict));
	json_key(&j, EVENT_STATUS);
	json_int(&j, r->res.status);
	if (r->res.failed != NULL) {
		json_key(&j, EVENT_FAILED);
		json_str(&j, r->res.failed);
	}
	if (r->res.timed_out) {
		json_key(&j, EVENT_TIMED_OUT);
		json_bool(&j, 1);
	}
	if (r->res.signo != 0) {
		json_key(&j, EVENT_SIGNAL);
		json_int(&j, r->res.signo);
	}
	json_key(&j, EVENT_DURATION_MS);
	json_int(&j, timeutil_now_ms() - r->res.start_ms);
	if (r->have_change) {
		json_key(&j, EVENT_CHANGE);
		change_json(&r->change, &j, CHANGE_LIST_MAX);
	}
	if (r->res.refs.n > 0) {
		json_key(&j, EVENT_REFS);
		refs_json(r, &j);
	}
	if (r->copy.have_snap && rundir_kept(&r->copy.rd)) {
		json_key(&j, EVENT_KEPT);
		json_str(&j, r->copy.snap.copy);
	}
	/* Where its output is kept (forge show), if anywhere. */
	if (r->have_log) {
		json_key(&j, EVENT_LOG);
		json_str(&j, r->log.id);
	}
	json_key(&j, EVENT_BREAKER);
	breaker_json(&r->res.after, &j);
	json_close(&j, '}');
	buf_addc(ev, '\n');
}

void
verify_event_cached(const struct run *r, struct buf *ev, const char *now)
{
	struct json	 j;
	size_t		 i;

	json_init(&j, ev);
	state_event_begin(&j, "cached", now);
	json_key(&j, EVENT_MODE);
	json_str(&j, event_mode(r));
	if (r->mode.isolated && r->mode.incremental) {
		json_key(&j, EVENT_INCREMENTAL);
		json_bool(&j, 1);
	}
	of_json(r, &j);
	json_key(&j, EVENT_TREE);
	json_str(&j, r->key.cache_tree);
	json_key(&j, EVENT_VERIFIED_AT);
	json_str(&j, r->key.cached_at);
	json_key(&j, EVENT_STEPS);
	json_open(&j, '[');
	for (i = 0; i < r->nsteps; i++)
		json_str(&j, r->steps[i].display);
	json_close(&j, ']');
	audit_json(r, &j);
	json_key(&j, EVENT_VERDICT);
	json_str(&j, "PASS");
	json_close(&j, '}');
	buf_addc(ev, '\n');
}

void
verify_event_divergence(const struct run *r, const struct run *fresh,
    struct buf *ev, const char *now)
{
	struct json	j;

	json_init(&j, ev);
	state_event_begin(&j, "divergence", now);
	json_key(&j, EVENT_MODE);
	json_str(&j, event_mode(r));
	of_json(r, &j);
	json_key(&j, EVENT_TREE);
	if (r->res.tree != NULL)
		json_str(&j, r->res.tree);
	else if (r->key.cache_tree != NULL)
		json_str(&j, r->key.cache_tree);
	else
		json_null(&j);
	json_key(&j, EVENT_FAST);
	json_str(&j, r->res.fast);
	json_key(&j, EVENT_FAST_VERDICT);
	json_str(&j, verdict_name(r->res.verdict));
	json_key(&j, EVENT_FAST_STATUS);
	json_int(&j, r->res.status);
	json_key(&j, EVENT_FRESH_VERDICT);
	json_str(&j, verdict_name(fresh->res.verdict));
	json_key(&j, EVENT_FRESH_STATUS);
	json_int(&j, fresh->res.status);
	if (fresh->res.failed != NULL) {
		json_key(&j, EVENT_FRESH_FAILED);
		json_str(&j, fresh->res.failed);
	}
	if (r->res.failed != NULL) {
		json_key(&j, EVENT_FAST_FAILED);
		json_str(&j, r->res.failed);
	}
	json_close(&j, '}');
	buf_addc(ev, '\n');
}

void
verify_event_breaker_open(const struct run *r, struct buf *ev, const char *now,
    int threshold)
{
	struct json	j;

	json_init(&j, ev);
	state_event_begin(&j, "breaker-open", now);
	json_key(&j, EVENT_STREAK);
	json_int(&j, r->res.after.streak);
	json_key(&j, EVENT_THRESHOLD);
	json_int(&j, threshold);
	json_key(&j, EVENT_FAILED);
	json_str(&j, r->res.failed);
	json_close(&j, '}');
	buf_addc(ev, '\n');
}
