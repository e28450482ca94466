/* The circuit breaker's state machine and its JSON form. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "event.h"
#include "json.h"
#include "xmalloc.h"

void
breaker_init(struct breaker *b)
{
	memset(b, 0, sizeof(*b));
}

void
breaker_free(struct breaker *b)
{
	free(b->opened_at);
	free(b->last_fail);
	free(b->last_fail_at);
	memset(b, 0, sizeof(*b));
}

static void
set(char **dst, const char *s)
{
	free(*dst);
	*dst = s != NULL ? xstrdup(s) : NULL;
}

int
breaker_record(struct breaker *b, enum verdict v, int threshold,
    const char *now, const char *what)
{
	switch (v) {
	case VERDICT_PASS:
		b->streak = 0;
		return 0;
	case VERDICT_FAIL:
		b->streak++;
		set(&b->last_fail, what);
		set(&b->last_fail_at, now);
		if (!b->open && threshold > 0 && b->streak >= threshold) {
			b->open = 1;
			set(&b->opened_at, now);
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

void
breaker_copy(struct breaker *to, const struct breaker *from)
{
	breaker_init(to);
	to->streak = from->streak;
	to->open = from->open;
	set(&to->opened_at, from->opened_at);
	set(&to->last_fail, from->last_fail);
	set(&to->last_fail_at, from->last_fail_at);
}

void
breaker_reset(struct breaker *b)
{
	b->streak = 0;
	b->open = 0;
	set(&b->opened_at, NULL);
}

void
breaker_to_json(const struct breaker *b, struct buf *out)
{
	struct json	j;

	json_init(&j, out);
	json_open(&j, '{');
	json_key(&j, "streak");
	json_int(&j, b->streak);
	json_key(&j, "open");
	json_bool(&j, b->open);
	json_key(&j, "opened_at");
	json_str(&j, b->opened_at);
	json_key(&j, "last_fail");
	json_str(&j, b->last_fail);
	json_key(&j, "last_fail_at");
	json_str(&j, b->last_fail_at);
	json_close(&j, '}');
}

int
breaker_from_json(struct breaker *b, const char *text, size_t len)
{
	struct jv	*v, *open;
	long long	 streak;

	breaker_init(b);
	if ((v = json_parse(text, len)) == NULL || v->type != JV_OBJ)
		goto bad;
	streak = json_as_num(json_get(v, "streak"), -1);
	open = json_get(v, "open");
	if (streak < 0 || streak > 1000000000 || open == NULL ||
	    open->type != JV_BOOL)
		goto bad;
	b->streak = (int)streak;
	b->open = (int)open->num;
	set(&b->opened_at, json_as_str(json_get(v, "opened_at")));
	set(&b->last_fail, json_as_str(json_get(v, "last_fail")));
	set(&b->last_fail_at, json_as_str(json_get(v, "last_fail_at")));
	json_free(v);
	return 0;
bad:
	json_free(v);
	breaker_free(b);
	return -1;
}

void
breaker_json(const struct breaker *b, struct json *j)
{
	json_open(j, '{');
	json_key(j, EVENT_BREAKER_STREAK);
	json_int(j, b->streak);
	json_key(j, EVENT_BREAKER_OPEN);
	json_bool(j, b->open);
	if (b->open) {
		json_key(j, EVENT_BREAKER_OPENED_AT);
		json_str(j, b->opened_at);
	}
	json_close(j, '}');
}

void
breaker_replay(struct breaker *b, const struct event *ev, int threshold)
{
	const char	*time = ev->time;
	enum verdict	 v;

	if (ev->type == NULL)
		return;
	if (strcmp(ev->type, "verify") == 0 &&
	    verdict_parse(ev->verdict, &v) == 0) {
		if (ev->has_breaker) {
			/* The breaker as it was right after this run:
			 * whatever the threshold was then. */
			if (v == VERDICT_FAIL) {
				set(&b->last_fail, ev->failed);
				set(&b->last_fail_at, time);
			}
			b->streak = ev->breaker_streak;
			if (ev->breaker_open && !b->open)
				set(&b->opened_at, ev->breaker_opened_at !=
				    NULL ? ev->breaker_opened_at : time);
			b->open = ev->breaker_open;
			if (!b->open)
				set(&b->opened_at, NULL);
			return;
		}
		/* An event from before forge recorded the breaker. */
		(void)breaker_record(b, v, threshold, time, ev->failed);
	} else if (strcmp(ev->type, "breaker-open") == 0) {
		b->open = 1;
		set(&b->opened_at, time);
		/* It opened on a streak, whatever came before it. */
		if (ev->streak > b->streak && ev->streak <= 1000000000)
			b->streak = (int)ev->streak;
	} else if (strcmp(ev->type, "breaker-reset") == 0) {
		breaker_reset(b);
	}
}
