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

	streak = jv_num(jv_get(after, EVENT_BREAKER_STREAK), -1);
	open = jv_get(after, EVENT_BREAKER_OPEN);
	if (after == NULL || streak < 0 || streak > 1000000000 ||
	    open == NULL || open->type != JV_BOOL)
		return;
	e->has_breaker = 1;
	e->breaker_streak = (int)streak;
	e->breaker_open = (int)open->num;
	e->breaker_opened_at = jv_str(jv_get(after, EVENT_BREAKER_OPENED_AT));
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
		e->change[i] = jv_num(jv_get(c, keys[i]), 0);
}

void
event_decode(struct event *e, const struct jv *v)
{
	const struct jv	*steps;

	memset(e, 0, sizeof(*e));
	e->v = v;
	e->type = jv_str(jv_get(v, EVENT_TYPE));
	e->time = jv_str(jv_get(v, EVENT_TIME));
	e->session = jv_str(jv_get(v, EVENT_SESSION));
	e->mode = jv_str(jv_get(v, EVENT_MODE));
	e->incremental = jv_bool(jv_get(v, EVENT_INCREMENTAL), 0);
	e->not_reused = jv_str(jv_get(v, EVENT_NOT_REUSED));
	e->in_range = jv_get(v, EVENT_RANGE) != NULL;
	e->range = jv_str(jv_get(v, EVENT_RANGE));
	e->rev = jv_str(jv_get(v, EVENT_REV));
	e->tree = jv_str(jv_get(v, EVENT_TREE));
	e->contain = jv_bool(jv_get(v, EVENT_CONTAIN), 0);
	e->network = jv_bool(jv_get(v, EVENT_NETWORK), 1);
	if ((steps = jv_get(v, EVENT_STEPS)) != NULL &&
	    steps->type == JV_ARR) {
		e->steps = steps;
		e->nsteps = steps->len;
	}
	e->verdict = jv_str(jv_get(v, EVENT_VERDICT));
	e->failed = jv_str(jv_get(v, EVENT_FAILED));
	e->duration_ms = jv_num(jv_get(v, EVENT_DURATION_MS), 0);
	e->log = jv_str(jv_get(v, EVENT_LOG));
	e->verified_at = jv_str(jv_get(v, EVENT_VERIFIED_AT));
	decode_change(e, jv_get(v, EVENT_CHANGE));
	decode_breaker(e, jv_get(v, EVENT_BREAKER));
	e->fast = jv_str(jv_get(v, EVENT_FAST));
	e->fast_verdict = jv_str(jv_get(v, EVENT_FAST_VERDICT));
	e->fresh_verdict = jv_str(jv_get(v, EVENT_FRESH_VERDICT));
	e->streak = jv_num(jv_get(v, EVENT_STREAK), 0);
	e->streak_was = jv_num(jv_get(v, EVENT_STREAK_WAS), 0);
	e->count = jv_num(jv_get(v, EVENT_COUNT), 0);
}

int
event_keep(struct event *e, const struct jv *v)
{
	struct jv	*copy;

	if ((copy = jv_copy(v)) == NULL) {
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
		jv_free(v);
		return -1;
	}
	event_decode(e, v);
	e->own = v;
	return 0;
}

void
event_free(struct event *e)
{
	jv_free(e->own);
	memset(e, 0, sizeof(*e));
}

int
event_step(const struct event *e, size_t i, struct event_step *s)
{
	const struct jv	*st = e->steps->items[i];

	memset(s, 0, sizeof(*s));
	if (st->type != JV_OBJ)
		return -1;
	s->command = jv_str(jv_get(st, EVENT_STEP_COMMAND));
	s->setup = jv_get(st, EVENT_STEP_SETUP) != NULL;
	s->status = jv_num(jv_get(st, EVENT_STEP_STATUS), 0);
	s->duration_ms = jv_num(jv_get(st, EVENT_STEP_DURATION_MS), 0);
	return 0;
}
