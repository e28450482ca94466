/*
 * The event a run of forge verify appends to the timeline, as JSON: what
 * forge log, forge status and the breaker's replay read back (report.c,
 * breaker.c).
 *
 *	struct buf ev = BUF_INIT;
 *	event_json(r, &ev, now);	one verify event, and its newline;
 *					now is the run's time (RFC 3339)
 *	breaker_open_json(r, &ev, now, threshold);	the run opened the
 *					breaker (r->after), at threshold
 *	... state_commit(&state, &tx, &ev) ...
 *	buf_free(&ev);
 *
 *	cached_json(r, &ev, now);	a "cached" event: a PASS of the same
 *					inputs stands for the run
 *
 * Each appends to the buffer, which the caller owns.  The run is read,
 * never changed (but for event_json()'s refs, each split at its space
 * and put back).
 */
#ifndef VERIFY_EVENT_H
#define VERIFY_EVENT_H

#include "buf.h"

struct run;

void	event_json(struct run *, struct buf *, const char *);
void	breaker_open_json(const struct run *, struct buf *, const char *,
	    int);
void	cached_json(const struct run *, struct buf *, const char *);

#endif /* VERIFY_EVENT_H */
