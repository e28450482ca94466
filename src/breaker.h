/*
 * The circuit breaker, as a state machine with no I/O.
 *
 * The streak counts consecutive FAIL verdicts; PASS ends it; ERROR and
 * INTERRUPTED leave it alone (a broken setup is not a failing test).
 * When the streak reaches the threshold (0: never) the breaker opens,
 * and stays open until breaker_reset().
 *
 *	struct breaker b;
 *	breaker_init(&b);
 *	if (breaker_record(&b, VERDICT_FAIL, 3, t, "make check (exit 2)"))
 *		... it has just opened: record that ...
 *
 * t is the run's time as the timeline gives it, when it started: the
 * last failure's time, and the opening's if the run opened it.
 *	breaker_to_json(&b, &buf);	breaker_from_json(&b, text, len);
 *	breaker_free(&b);
 *
 * The struct owns its strings.
 */
#ifndef BREAKER_H
#define BREAKER_H

#include <stddef.h>

#include "buf.h"
#include "verdict.h"

struct event;

struct breaker {
	int	 streak;
	int	 open;
	char	*opened_at;	/* the time of the run that opened it */
	char	*last_fail;	/* what failed last, for the refusal */
	char	*last_fail_at;	/* and the time of that run */
};

void		 breaker_init(struct breaker *);
void		 breaker_free(struct breaker *);
int		 breaker_record(struct breaker *, enum verdict, int,
		    const char *, const char *);
void		 breaker_reset(struct breaker *);
/* A copy that owns its own strings. */
void		 breaker_copy(struct breaker *, const struct breaker *);
void		 breaker_to_json(const struct breaker *, struct buf *);
int		 breaker_from_json(struct breaker *, const char *, size_t);
/* Its state as a verify event records it: {"streak":N,"open":B,
 * "opened_at":T (when open)}. */
struct json;
void		 breaker_json(const struct breaker *, struct json *);
/* Replay one timeline event (as decoded: event.h) into b.  A verify event that
 * records the breaker after it is taken at its word; an older one is
 * folded in with threshold. */
void		 breaker_replay(struct breaker *, const struct event *, int);

#endif /* BREAKER_H */
