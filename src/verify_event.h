/*
 * The event a run of forge verify appends to the timeline, as JSON: what
 * forge log, forge status and the breaker's replay read back (report.c,
 * breaker.c).
 *
 *	struct buf ev = BUF_INIT;
 *	event_json(r, &ev, now);	one verify event, and its newline;
 *					now is the run's time (RFC 3339)
 *	... state_commit(&state, &tx, &ev) ...
 *	buf_free(&ev);
 *
 * The run is read, never changed (but for the refs, each split at its
 * space and put back); the caller owns the buffer.
 */
#ifndef VERIFY_EVENT_H
#define VERIFY_EVENT_H

#include "buf.h"

struct run;

void		 event_json(struct run *, struct buf *, const char *);
/* The mode the timeline shows. */
const char	*event_mode(const struct run *);

#endif /* VERIFY_EVENT_H */
