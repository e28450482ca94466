/*
 * event.c: a timeline line decoded once -- every field a reader needs,
 * defaults where a key is missing or of another type, and no event at
 * all from a line that is not a JSON object.
 */
#include "config.h"

#include "unit.h"

#include <string.h>

#include "event.h"
#include "json.h"

/* A verify event as forge verify writes it, every decoded key set. */
static const char full[] =
    "{\"event\":\"verify\",\"time\":\"2026-01-02T03:04:05Z\","
    "\"session\":\"s1\",\"version\":\"1.0\",\"mode\":\"staged\","
    "\"not_reused\":\"dirty\",\"incremental\":true,\"head\":\"h\","
    "\"rev\":\"0123456789abcdef\",\"range\":\"r1\",\"tree\":\"t1\","
    "\"contain\":true,\"network\":false,"
    "\"steps\":[{\"command\":\"./setup\",\"setup\":true,\"status\":0,"
    "\"duration_ms\":7},{\"command\":\"make check\",\"status\":2,"
    "\"duration_ms\":1500},\"odd\"],"
    "\"verdict\":\"FAIL\",\"status\":1,\"failed\":\"make check\","
    "\"duration_ms\":1600,\"change\":{\"modified\":3,\"added\":1,"
    "\"deleted\":0,\"renamed\":2,\"untracked\":4},\"log\":\"L1\","
    "\"breaker\":{\"streak\":3,\"open\":true,\"opened_at\":\"T0\"},"
    "\"fast\":\"reuse\",\"fast_verdict\":\"PASS\","
    "\"fresh_verdict\":\"FAIL\",\"verified_at\":\"T1\","
    "\"streak\":5,\"streak_was\":6,\"count\":7}";

START_TEST(t_full)
{
	struct event		e;
	struct event_step	st;

	ck_assert_int_eq(event_parse(&e, full, strlen(full)), 0);
	ck_assert_ptr_nonnull(e.v);
	ck_assert_str_eq(e.type, "verify");
	ck_assert_str_eq(e.time, "2026-01-02T03:04:05Z");
	ck_assert_str_eq(e.session, "s1");
	ck_assert_str_eq(e.mode, "staged");
	ck_assert_str_eq(e.not_reused, "dirty");
	ck_assert_int_eq(e.incremental, 1);
	ck_assert_int_eq(e.in_range, 1);
	ck_assert_str_eq(e.range, "r1");
	ck_assert_str_eq(e.rev, "0123456789abcdef");
	ck_assert_str_eq(e.tree, "t1");
	ck_assert_int_eq(e.contain, 1);
	ck_assert_int_eq(e.network, 0);
	ck_assert_str_eq(e.verdict, "FAIL");
	ck_assert_str_eq(e.failed, "make check");
	ck_assert_int_eq(e.duration_ms, 1600);
	ck_assert_str_eq(e.log, "L1");
	ck_assert_str_eq(e.verified_at, "T1");
	ck_assert_int_eq(e.has_change, 1);
	ck_assert_int_eq(e.change[EVENT_MODIFIED], 3);
	ck_assert_int_eq(e.change[EVENT_ADDED], 1);
	ck_assert_int_eq(e.change[EVENT_DELETED], 0);
	ck_assert_int_eq(e.change[EVENT_RENAMED], 2);
	ck_assert_int_eq(e.change[EVENT_UNTRACKED], 4);
	ck_assert_int_eq(e.has_breaker, 1);
	ck_assert_int_eq(e.breaker_streak, 3);
	ck_assert_int_eq(e.breaker_open, 1);
	ck_assert_str_eq(e.breaker_opened_at, "T0");
	ck_assert_str_eq(e.fast, "reuse");
	ck_assert_str_eq(e.fast_verdict, "PASS");
	ck_assert_str_eq(e.fresh_verdict, "FAIL");
	ck_assert_int_eq(e.streak, 5);
	ck_assert_int_eq(e.streak_was, 6);
	ck_assert_int_eq(e.count, 7);

	/* The steps, one by one; one that is not an object is none. */
	ck_assert_uint_eq(e.nsteps, 3);
	ck_assert_int_eq(event_step(&e, 0, &st), 0);
	ck_assert_str_eq(st.command, "./setup");
	ck_assert_int_eq(st.setup, 1);
	ck_assert_int_eq(st.duration_ms, 7);
	ck_assert_int_eq(event_step(&e, 1, &st), 0);
	ck_assert_str_eq(st.command, "make check");
	ck_assert_int_eq(st.setup, 0);
	ck_assert_int_eq(st.status, 2);
	ck_assert_int_eq(st.duration_ms, 1500);
	ck_assert_int_eq(event_step(&e, 2, &st), -1);
	ck_assert_ptr_null(st.command);
	event_free(&e);
	ck_assert_ptr_null(e.v);
}
END_TEST

/* Keys missing, or of another type: each field's default. */
static void
assert_defaults(const struct event *e)
{
	ck_assert_ptr_null(e->type);
	ck_assert_ptr_null(e->time);
	ck_assert_ptr_null(e->session);
	ck_assert_ptr_null(e->mode);
	ck_assert_int_eq(e->incremental, 0);
	ck_assert_ptr_null(e->not_reused);
	ck_assert_ptr_null(e->range);
	ck_assert_ptr_null(e->rev);
	ck_assert_ptr_null(e->tree);
	ck_assert_int_eq(e->contain, 0);
	ck_assert_int_eq(e->network, 1);
	ck_assert_ptr_null(e->steps);
	ck_assert_uint_eq(e->nsteps, 0);
	ck_assert_ptr_null(e->verdict);
	ck_assert_ptr_null(e->failed);
	ck_assert_int_eq(e->duration_ms, 0);
	ck_assert_ptr_null(e->log);
	ck_assert_ptr_null(e->verified_at);
	ck_assert_int_eq(e->has_change, 0);
	ck_assert_int_eq(e->has_breaker, 0);
	ck_assert_ptr_null(e->fast);
	ck_assert_ptr_null(e->fast_verdict);
	ck_assert_ptr_null(e->fresh_verdict);
	ck_assert_int_eq(e->streak, 0);
	ck_assert_int_eq(e->streak_was, 0);
	ck_assert_int_eq(e->count, 0);
}

START_TEST(t_missing)
{
	static const char	none[] = "{}";
	static const char	wrong[] =
	    "{\"event\":1,\"time\":null,\"session\":[],\"mode\":{},"
	    "\"incremental\":\"yes\",\"rev\":2,\"tree\":false,"
	    "\"contain\":1,\"network\":\"no\",\"steps\":{},\"verdict\":0,"
	    "\"failed\":true,\"duration_ms\":\"5\",\"change\":[1],"
	    "\"fast\":3,\"streak\":\"9\",\"count\":null}";
	struct event		e;

	ck_assert_int_eq(event_parse(&e, none, strlen(none)), 0);
	assert_defaults(&e);
	ck_assert_int_eq(e.in_range, 0);
	event_free(&e);
	ck_assert_int_eq(event_parse(&e, wrong, strlen(wrong)), 0);
	assert_defaults(&e);
	event_free(&e);
}
END_TEST

/* The breaker after the run is taken whole, or not at all. */
START_TEST(t_breaker_partial)
{
	static const char *const lines[] = {
	    "{\"breaker\":{\"open\":true}}",
	    "{\"breaker\":{\"streak\":2}}",
	    "{\"breaker\":{\"streak\":-1,\"open\":false}}",
	    "{\"breaker\":{\"streak\":1000000001,\"open\":false}}",
	    "{\"breaker\":{\"streak\":2,\"open\":1}}",
	    "{\"breaker\":true}" };
	struct event	e;
	size_t		i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ck_assert_int_eq(event_parse(&e, lines[i], strlen(lines[i])),
		    0);
		ck_assert_int_eq(e.has_breaker, 0);
		event_free(&e);
	}
}
END_TEST

/* A torn line, garbage, or a JSON value that is not an object. */
START_TEST(t_malformed)
{
	static const char *const lines[] = {
	    "{\"event\":\"verify\",\"verdict\":",
	    "garbage",
	    "",
	    "[\"event\",\"verify\"]",
	    "\"verify\"",
	    "{\"event\":\"verify\"} {}" };
	struct event	e;
	size_t		i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ck_assert_int_eq(event_parse(&e, lines[i], strlen(lines[i])),
		    -1);
		ck_assert_ptr_null(e.v);
		ck_assert_ptr_null(e.type);
		event_free(&e);
	}
}
END_TEST

/* A borrowed event is the parsed one's; a kept one outlives it. */
START_TEST(t_borrow_keep)
{
	struct jv	*v;
	struct event	 b, k;

	v = json_parse(full, strlen(full));
	ck_assert_ptr_nonnull(v);
	event_decode(&b, v);
	ck_assert_ptr_eq(b.v, v);
	ck_assert_str_eq(b.verdict, "FAIL");
	ck_assert_int_eq(event_keep(&k, v), 0);
	ck_assert_ptr_ne(k.v, v);
	event_free(&b);
	json_free(v);
	ck_assert_str_eq(k.verdict, "FAIL");
	ck_assert_str_eq(k.time, "2026-01-02T03:04:05Z");
	event_free(&k);
}
END_TEST

static Suite *
event_suite(void)
{
	Suite	*s = suite_create("event");
	TCase	*tc = tcase_create("decode");

	tcase_add_test(tc, t_full);
	tcase_add_test(tc, t_missing);
	tcase_add_test(tc, t_breaker_partial);
	tcase_add_test(tc, t_malformed);
	tcase_add_test(tc, t_borrow_keep);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(event_suite)
