/* A timeline event decoded from its JSON, its keys named once. */
#include "config.h"

#include <string.h>

#include "event.h"
#include "json.h"

/* The breaker as the event records it after the run: taken only whole,
 * with a streak a breaker could have and whether it is open. */
static void
decode_breaker(struct event *e, const struct jv *after)
{
	const struct jv	*open;
	long long	 streak;

	streak = json_as_num(json_get(after, EVENT_BREAKER_STREAK), -1);
	open = json_get(after, EVENT_BREAKER_OPEN);
	if (after == NULL || streak < 0 || streak > 1000000000 ||
	    open == NULL || open->type != JV_BOOL)
		return;
	e->has_breaker = 1;
	e->breaker_streak = (int)streak;
	e->breaker_open = (int)open->num;
	e->breaker_opened_at = json_as_str(json_get(after,
	    EVENT_BREAKER_OPENED_AT));
}

static void
decode_change(struct event *e, const struct jv *c)
{
	static const char *const keys[EVENT_NCHANGE] = {
	    EVENT_CHANGE_MODIFIED, EVENT_CHANGE_ADDED, EVENT_CHANGE_DELETED,
	    EVENT_CHANGE_RENAMED, EVENT_CHANGE_UNTRACKED };
	size_t	i;

	if (c == NULL || c->type != JV_OBJ)
		return;
	e->has_change = 1;
	for (i = 0; i < EVENT_NCHANGE; i++)
		e->change[i] = json_as_num(json_get(c, keys[i]), 0);
}

void
event_decode(struct event *e, const struct jv *v)
{
	const struct jv	*steps;

	memset(e, 0, sizeof(*e));
	e->v = v;
	e->type = json_as_str(json_get(v, EVENT_TYPE));
	e->time = json_as_str(json_get(v, EVENT_TIME));
	e->session = json_as_str(json_get(v, EVENT_SESSION));
	e->mode = json_as_str(json_get(v, EVENT_MODE));
	e->incremental = json_as_bool(json_get(v, EVENT_INCREMENTAL), 0);
	e->not_reused = json_as_str(json_get(v, EVENT_NOT_REUSED));
	e->in_range = json_get(v, EVENT_RANGE) != NULL;
	e->range = json_as_str(json_get(v, EVENT_RANGE));
	e->rev = json_as_str(json_get(v, EVENT_REV));
	e->tree = json_as_str(json_get(v, EVENT_TREE));
	e->contain = json_as_bool(json_get(v, EVENT_CONTAIN), 0);
	e->network = json_as_bool(json_get(v, EVENT_NETWORK), 1);
	if ((steps = json_get(v, EVENT_STEPS)) != NULL &&
	    steps->type == JV_ARR) {
		e->steps = steps;
		e->nsteps = steps->len;
	}
	e->verdict = json_as_str(json_get(v, EVENT_VERDICT));
	e->failed = json_as_str(json_get(v, EVENT_FAILED));
	e->duration_ms = json_as_num(json_get(v, EVENT_DURATION_MS), 0);
	e->log = json_as_str(json_get(v, EVENT_LOG));
	e->verified_at = json_as_str(json_get(v, EVENT_VERIFIED_AT));
	decode_change(e, json_get(v, EVENT_CHANGE));
	decode_breaker(e, json_get(v, EVENT_BREAKER));
	e->fast = json_as_str(json_get(v, EVENT_FAST));
	e->fast_verdict = json_as_str(json_get(v, EVENT_FAST_VERDICT));
	e->fresh_verdict = json_as_str(json_get(v, EVENT_FRESH_VERDICT));
	e->streak = json_as_num(json_get(v, EVENT_STREAK), 0);
	e->streak_was = json_as_num(json_get(v, EVENT_STREAK_WAS), 0);
	e->count = json_as_num(json_get(v, EVENT_COUNT), 0);
}

int
event_keep(struct event *e, const struct jv *v)
{
	struct jv	*copy;

	if ((copy = json_dup(v)) == NULL) {
		memset(e, 0, sizeof(*e));
		return -1;
	}
	event_decode(e, copy);
	e->own = copy;
	return 0;
}

int
event_parse(struct event *e, const char *text, size_t len)
{
	struct jv	*v;

	memset(e, 0, sizeof(*e));
	if ((v = json_parse(text, len)) == NULL)
		return -1;
	if (v->type != JV_OBJ) {
		json_free(v);
		return -1;
	}
	event_decode(e, v);
	e->own = v;
	return 0;
}

void
event_free(struct event *e)
{
	json_free(e->own);
	memset(e, 0, sizeof(*e));
}

int
event_step(const struct event *e, size_t i, struct event_step *s)
{
	const struct jv	*st = e->steps->items[i];

	memset(s, 0, sizeof(*s));
	if (st->type != JV_OBJ)
		return -1;
	s->command = json_as_str(json_get(st, EVENT_STEP_COMMAND));
	s->setup = json_get(st, EVENT_STEP_SETUP) != NULL;
	s->status = json_as_num(json_get(st, EVENT_STEP_STATUS), 0);
	s->duration_ms = json_as_num(json_get(st, EVENT_STEP_DURATION_MS), 0);
	return 0;
}
