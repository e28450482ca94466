/*
 * The events a run of forge verify appends to the timeline, as JSON: what
 * forge log, forge status and the breaker's replay read back (report.c,
 * breaker.c).
 *
 *	struct buf ev = BUF_INIT;
 *	verify_event_json(r, &ev, now);	the verify event, and its newline;
 *					now is the run's time (RFC 3339)
 *	verify_event_breaker_open(r, &ev, now, threshold);
 *					the run opened the breaker
 *					(r->after), at threshold
 *	... state_commit(&state, &tx, &ev) ...
 *	buf_free(&ev);
 *
 *	verify_event_cached(r, &ev, now);	a "cached" event: a PASS
 *					of the same inputs stands for the run
 *	verify_event_divergence(r, fresh, &ev, now);	a "divergence"
 *					event: the audit's fresh run (fresh)
 *					said otherwise than r's fast path
 *					(verify_audit.h), before r takes its
 *					verdict
 *
 * Each appends to the buffer, which the caller owns.  The run is read,
 * never changed (but for verify_event_json()'s refs, each split at its
 * space and put back).
 */
#ifndef VERIFY_EVENT_H
#define VERIFY_EVENT_H

#include "buf.h"

struct run;

void	verify_event_json(struct run *, struct buf *, const char *);
void	verify_event_breaker_open(const struct run *, struct buf *,
	    const char *, int);
void	verify_event_cached(const struct run *, struct buf *, const char *);
void	verify_event_divergence(const struct run *, const struct run *,
	    struct buf *, const char *);

#endif /* VERIFY_EVENT_H */
