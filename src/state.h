/*
 * Harness state, kept under the real repository's common git dir so that
 * every worktree of it, and every copy forge makes, shares one record:
 *
 *	<common>/forge/timeline.jsonl	one JSON object per line, appended
 *	<common>/forge/timeline.jsonl.1	the previous one, after rotation
 *	<common>/forge/breaker.json	the circuit breaker
 *	<common>/forge/lock		flock(2)ed while either changes
 *
 *	struct state st;
 *	if (state_open(&st, common, &cfg) == -1) ...	message printed
 *	state_lock(&st);
 *	state_breaker(&st, &b);		loads, or rebuilds from the timeline
 *	... breaker_record(&b, ...) ...
 *	state_append(&st, &events);	one write(2), O_APPEND: concurrent
 *					runs never interleave; rotates past
 *					the configured size
 *	state_save_breaker(&st, &b);	temp file, fsync, rename
 *	state_unlock(&st);
 *	state_close(&st);
 *
 * Readers skip a torn or corrupt line with a warning and go on:
 *	state_events(&st, fn, arg);	each event, oldest first
 */
#ifndef STATE_H
#define STATE_H

#include "breaker.h"
#include "buf.h"
#include "json.h"

struct settings;

struct state {
	char		*dir;
	char		*timeline;
	char		*breaker;
	int		 lockfd;
	int		 threshold;
	long long	 max_size;
};

int	state_open(struct state *, const char *, const struct settings *);
void	state_close(struct state *);
int	state_lock(struct state *);
void	state_unlock(struct state *);
int	state_breaker(struct state *, struct breaker *);
int	state_save_breaker(struct state *, const struct breaker *);
int	state_append(struct state *, const struct buf *);
int	state_events(struct state *, void (*)(const struct jv *, void *),
	    void *);
/* Parse JSON Lines text, calling fn for each good line; returns the
 * number of bad lines (reported through warnx with origin). */
int	timeline_parse(const char *, size_t, const char *,
	    void (*)(const struct jv *, void *), void *);
/* Start an event object: {"event":type,"time":now,"session":...,
 * "version":...; the caller adds fields and closes it. */
void	state_event_begin(struct json *, const char *, const char *);

#endif /* STATE_H */
