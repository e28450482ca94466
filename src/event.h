/*
 * The timeline's events: every key they have named once, here, and a
 * line of the timeline decoded once, into a struct event.
 *
 * Writers spell the keys with the EVENT_* names below (state.h's
 * state_event_begin(), verify_event.c, breaker_json(), change_json(),
 * forge breaker reset, the reclaim in context.c).  Readers (forge log
 * and forge status through report.h, forge show, the breaker's replay)
 * read the decoded fields, never the JSON:
 *
 *	struct event e;
 *	if (event_parse(&e, line, len) == -1) ...	not a JSON object;
 *							e is empty
 *	... e.type, e.verdict, e.duration_ms ...
 *	event_free(&e);
 *
 * or, for an event parsed already (state.h's readers hand one over):
 *	event_decode(&e, v);	e borrows v: valid while v is
 *	event_keep(&e, v);	e decodes a copy of v, its own
 *	event_free(&e);		frees what e owns (nothing if borrowed)
 *
 * A key that is absent, or holds a value of another type, leaves its
 * field as the comment beside it says: a string NULL, a number 0 unless
 * said otherwise.  e.v is the event as parsed, for what is shown as it
 * was recorded (forge status --json, forge log --json).
 */
#ifndef EVENT_H
#define EVENT_H

#include <stddef.h>

struct jv;

/* Every event. */
#define EVENT_TYPE		"event"
#define EVENT_TIME		"time"
#define EVENT_SESSION		"session"
#define EVENT_VERSION		"version"

/* What a verify, cached or divergence event is of, and how it ran. */
#define EVENT_MODE		"mode"
#define EVENT_COPY		"copy"
#define EVENT_NOT_REUSED	"not_reused"
#define EVENT_INCREMENTAL	"incremental"
#define EVENT_ISOLATION		"isolation"
#define EVENT_HEAD		"head"
#define EVENT_REV		"rev"
#define EVENT_RANGE		"range"
#define EVENT_NO_BREAKER	"no_breaker"
#define EVENT_TREE		"tree"
#define EVENT_CWD		"cwd"
#define EVENT_CONTAIN		"contain"
#define EVENT_NETWORK		"network"
#define EVENT_PARTIAL		"partial"
#define EVENT_PARTIAL_PATH	"path"		/* in each of "partial" */
#define EVENT_PARTIAL_WHY	"why"
#define EVENT_CONTAIN_METHOD	"contain_method"
#define EVENT_FAST		"fast"
#define EVENT_AUDIT		"audit"

/* Its steps: an array of objects (a cached event's: of commands). */
#define EVENT_STEPS		"steps"
#define EVENT_STEP_COMMAND	"command"
#define EVENT_STEP_SETUP	"setup"
#define EVENT_STEP_STATUS	"status"
#define EVENT_STEP_DURATION_MS	"duration_ms"

/* Its verdict, and what came of the run. */
#define EVENT_VERDICT		"verdict"
#define EVENT_STATUS		"status"
#define EVENT_FAILED		"failed"
#define EVENT_TIMED_OUT		"timed_out"
#define EVENT_SIGNAL		"signal"
#define EVENT_DURATION_MS	"duration_ms"
#define EVENT_REFS		"refs"
#define EVENT_KEPT		"kept"
#define EVENT_LOG		"log"
#define EVENT_VERIFIED_AT	"verified_at"	/* cached */

/* The change against the base commit (change.h), an object. */
#define EVENT_CHANGE		"change"
#define EVENT_CHANGE_BASE	"base"
#define EVENT_CHANGE_BASE_COMMIT "base_commit"
#define EVENT_CHANGE_MODIFIED	"modified"
#define EVENT_CHANGE_ADDED	"added"
#define EVENT_CHANGE_DELETED	"deleted"
#define EVENT_CHANGE_RENAMED	"renamed"
#define EVENT_CHANGE_UNTRACKED	"untracked"
#define EVENT_CHANGE_PATHS	"paths"
#define EVENT_CHANGE_STATUS	"status"	/* in each of "paths" */
#define EVENT_CHANGE_FROM	"from"
#define EVENT_CHANGE_PATH	"path"
#define EVENT_CHANGE_MORE	"more"

/* The breaker right after a verify event (breaker.h), an object. */
#define EVENT_BREAKER		"breaker"
#define EVENT_BREAKER_STREAK	"streak"
#define EVENT_BREAKER_OPEN	"open"
#define EVENT_BREAKER_OPENED_AT	"opened_at"

/* A divergence event: the audit's fresh run against the fast path. */
#define EVENT_FAST_VERDICT	"fast_verdict"
#define EVENT_FAST_STATUS	"fast_status"
#define EVENT_FAST_FAILED	"fast_failed"
#define EVENT_FRESH_VERDICT	"fresh_verdict"
#define EVENT_FRESH_STATUS	"fresh_status"
#define EVENT_FRESH_FAILED	"fresh_failed"

/* breaker-open, breaker-reset and reclaim events. */
#define EVENT_STREAK		"streak"
#define EVENT_THRESHOLD		"threshold"
#define EVENT_WAS_OPEN		"was_open"
#define EVENT_STREAK_WAS	"streak_was"
#define EVENT_COUNT		"count"

/* The counts of a change, in the order forge log tags them (MADR?). */
enum event_change {
	EVENT_MODIFIED, EVENT_ADDED, EVENT_DELETED, EVENT_RENAMED,
	EVENT_UNTRACKED, EVENT_NCHANGE
};

struct event {
	const struct jv	*v;		/* the event as parsed */
	struct jv	*own;		/* private: what event_free() frees */

	const char	*type;		/* verify, cached, divergence, ... */
	const char	*time;
	const char	*session;

	const char	*mode;
	int		 incremental;
	const char	*not_reused;
	int		 in_range;	/* "range" recorded, of any type */
	const char	*range;
	const char	*rev;
	const char	*tree;
	int		 contain;
	int		 network;	/* 1 when absent */

	const struct jv	*steps;		/* an array, or NULL */
	size_t		 nsteps;
	const char	*verdict;
	const char	*failed;
	long long	 duration_ms;
	const char	*log;
	const char	*verified_at;

	int		 has_change;	/* "change" an object */
	long long	 change[EVENT_NCHANGE];

	/* The breaker after a verify event: has_breaker only if it holds
	 * a streak (0 to 1000000000) and whether it is open. */
	int		 has_breaker;
	int		 breaker_streak;
	int		 breaker_open;
	const char	*breaker_opened_at;

	const char	*fast;
	const char	*fast_verdict;
	const char	*fresh_verdict;
	long long	 streak;
	long long	 streak_was;
	long long	 count;
};

/* One of an event's steps, decoded. */
struct event_step {
	const char	*command;
	int		 setup;		/* "setup" recorded, of any type */
	long long	 status;
	long long	 duration_ms;
};

int	event_parse(struct event *, const char *, size_t);
void	event_decode(struct event *, const struct jv *);
int	event_keep(struct event *, const struct jv *);
void	event_free(struct event *);
/* The i-th step (i < nsteps); -1 if it is not an object. */
int	event_step(const struct event *, size_t, struct event_step *);

#endif /* EVENT_H */
