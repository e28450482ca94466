/*
 * Harness state, kept under the real repository's common git dir so that
 * every worktree of it, and every copy forge makes, shares one record:
 *
 *	<common>/forge/timeline.jsonl	one JSON object per line, appended
 *	<common>/forge/timeline.jsonl.1	the previous one, after rotation
 *	<common>/forge/breaker.json	the circuit breaker
 *	<common>/forge/lock		flock(2)ed while either changes
 *
 * (forgedir.h names them; st.common keeps the common dir, for the
 * modules that keep their own files beside these.)
 *
 *	struct state st;
 *	if (state_open(&st, common, &lim) == -1) ...	message printed;
 *						lim NULL: the defaults
 *
 * Every change is one transaction: the lock, the breaker as it stands,
 * then the events and the new breaker.  The timeline is the truth and
 * breaker.json its summary: at every instant, a crash included, the
 * summary is either right or missing, and a missing one is rebuilt from
 * the timeline (each verify event records the breaker after it).
 *
 *	struct state_txn tx;
 *	if (state_begin(&st, &tx) == -1) ...	locked; tx.b loaded, or
 *						rebuilt from the timeline
 *	... breaker_record(&tx.b, ...); events into a buf ...
 *	state_commit(&st, &tx, &events);	if the breaker changed, unlinks
 *						breaker.json (-1 if it will not
 *						go: nothing written), appends
 *						the events in one write(2)
 *						(-1: not recorded), then saves
 *						the breaker (temp file, fsync,
 *						rename).  Unlocks.
 *	state_end(&st, &tx);			or unlock, writing nothing
 *	state_close(&st);
 *
 * The lock is polled, so a signal still gets through.  Waiting for it
 * more than a second says so on stderr; with st.deadline_ms set (on the
 * monotonic clock), it gives up then, with errno ETIMEDOUT.  st.waited_ms
 * adds up the time spent waiting.  The pieces below the transaction are
 * there for the tests and for readers: state_lock, state_breaker,
 * state_append (O_APPEND: concurrent runs never interleave; rotates past
 * the configured size), state_save_breaker, state_unlock.
 *
 * Readers skip a torn or corrupt line with a warning and go on:
 *	state_events(&st, fn, arg);	each event, oldest first
 *	state_events_back(&st, fn, arg);	each event, newest first,
 *					until fn returns non-zero: only as
 *					much of the files is read as that
 *					takes, so the last events cost the
 *					same at any length of history
 *	n = state_events_count(&st, type, &last);	how many events of
 *					that type both files hold, and the
 *					newest one's time (last: NULL if
 *					none; the caller frees it); only
 *					their own lines are parsed, and
 *					nothing is said of any other
 */
#ifndef STATE_H
#define STATE_H

#include "breaker.h"
#include "buf.h"
#include "json.h"

/* forge.breakerThreshold and forge.timelineMaxSize, as settings.c
 * reads them, and what they are where not set. */
struct state_limits {
	int		 threshold;	/* 0: no breaker */
	long long	 max_size;
};
#define DEFAULT_THRESHOLD	3
#define DEFAULT_TIMELINE_MAX	(10LL << 20)

struct state {
	char		*common;	/* the common git dir */
	char		*dir;		/* forge's, below it (forgedir.h) */
	char		*timeline;
	char		*breaker;
	int		 lockfd;
	int		 threshold;
	long long	 max_size;
	long long	 deadline_ms;	/* 0: wait for the lock as long as
					   it takes */
	long long	 waited_ms;
};

struct state_txn {
	struct breaker	b;
	struct buf	old;		/* private: b as it was */
	int		on_disk;	/* private: and so it is on disk */
};

int	state_open(struct state *, const char *, const struct state_limits *);
void	state_close(struct state *);
int	state_begin(struct state *, struct state_txn *);
int	state_commit(struct state *, struct state_txn *, const struct buf *);
void	state_end(struct state *, struct state_txn *);
int	state_lock(struct state *);
void	state_unlock(struct state *);
int	state_breaker(struct state *, struct breaker *);
int	state_save_breaker(struct state *, const struct breaker *);
int	state_append(struct state *, const struct buf *);
int	state_events(struct state *, void (*)(const struct jv *, void *),
	    void *);
long long	state_events_count(struct state *, const char *, char **);
int	state_events_back(struct state *,
	    int (*)(const struct jv *, void *), void *);
/* Parse JSON Lines text, calling fn for each good line; returns the
 * number of bad lines (reported through warnx with origin). */
int	state_timeline_parse(const char *, size_t, const char *,
	    void (*)(const struct jv *, void *), void *);
/* Start an event object: {"event":type,"time":now,"session":...,
 * "version":...; the caller adds fields and closes it. */
void	state_event_begin(struct json *, const char *, const char *);

#endif /* STATE_H */
