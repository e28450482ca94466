/*
 * The harness state: the circuit breaker's state machine and its JSON
 * form, its rebuilding from the timeline, the timeline reader that skips
 * what a crash left, and the files under <common>/forge.
 */
#include "config.h"

#include "unit.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "buf.h"
#include "event.h"
#include "json.h"
#include "report.h"
#include "sig.h"
#include "spawn.h"
#include "state.h"
#include "tail.h"
#include "timeutil.h"
#include "unitfs.h"
#include "verdict.h"

/* breaker_record */

START_TEST(t_verdict_names)
{
	enum verdict	v;

	ck_assert_str_eq(verdict_name(VERDICT_PASS), "PASS");
	ck_assert_str_eq(verdict_name(VERDICT_FAIL), "FAIL");
	ck_assert_str_eq(verdict_name(VERDICT_ERROR), "ERROR");
	ck_assert_str_eq(verdict_name(VERDICT_INTERRUPTED), "INTERRUPTED");
	ck_assert_str_eq(verdict_name((enum verdict)42), "ERROR");
	ck_assert_int_eq(verdict_parse("FAIL", &v), 0);
	ck_assert_int_eq(v, VERDICT_FAIL);
	ck_assert_int_eq(verdict_parse("INTERRUPTED", &v), 0);
	ck_assert_int_eq(v, VERDICT_INTERRUPTED);
	v = VERDICT_PASS;
	ck_assert_int_eq(verdict_parse("fail", &v), -1);
	ck_assert_int_eq(verdict_parse("FAILED", &v), -1);
	ck_assert_int_eq(verdict_parse("", &v), -1);
	ck_assert_int_eq(verdict_parse(NULL, &v), -1);
	ck_assert_int_eq(v, VERDICT_PASS);
}
END_TEST

START_TEST(t_breaker_opens_at_threshold)
{
	struct breaker	b;

	breaker_init(&b);
	ck_assert_int_eq(b.streak, 0);
	ck_assert_int_eq(b.open, 0);
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t1", "w1"), 0);
	ck_assert_int_eq(b.streak, 1);
	ck_assert_str_eq(b.last_fail, "w1");
	ck_assert_str_eq(b.last_fail_at, "t1");
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t2", "w2"), 0);
	ck_assert_int_eq(b.open, 0);
	ck_assert_ptr_null(b.opened_at);
	/* The third in a row opens it, and says so exactly once. */
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t3", "w3"), 1);
	ck_assert_int_eq(b.open, 1);
	ck_assert_int_eq(b.streak, 3);
	ck_assert_str_eq(b.opened_at, "t3");
	ck_assert_str_eq(b.last_fail, "w3");
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t4", "w4"), 0);
	ck_assert_int_eq(b.open, 1);
	ck_assert_int_eq(b.streak, 4);
	ck_assert_str_eq(b.opened_at, "t3");
	ck_assert_str_eq(b.last_fail, "w4");
	ck_assert_str_eq(b.last_fail_at, "t4");
	breaker_free(&b);
	ck_assert_ptr_null(b.opened_at);
	ck_assert_int_eq(b.streak, 0);
}
END_TEST

START_TEST(t_breaker_pass_resets)
{
	struct breaker	b;

	breaker_init(&b);
	breaker_record(&b, VERDICT_FAIL, 3, "t1", "w1");
	breaker_record(&b, VERDICT_FAIL, 3, "t2", "w2");
	ck_assert_int_eq(breaker_record(&b, VERDICT_PASS, 3, "t3", NULL), 0);
	ck_assert_int_eq(b.streak, 0);
	breaker_record(&b, VERDICT_FAIL, 3, "t4", "w4");
	breaker_record(&b, VERDICT_FAIL, 3, "t5", "w5");
	ck_assert_int_eq(b.open, 0);
	ck_assert_int_eq(b.streak, 2);
	breaker_free(&b);
}
END_TEST

/* A broken setup or a ^C is not a failing test: the streak stands. */
START_TEST(t_breaker_error_neutral)
{
	struct breaker	b;

	breaker_init(&b);
	breaker_record(&b, VERDICT_FAIL, 3, "t1", "w1");
	ck_assert_int_eq(breaker_record(&b, VERDICT_ERROR, 3, "t2", "e"), 0);
	ck_assert_int_eq(b.streak, 1);
	ck_assert_int_eq(breaker_record(&b, VERDICT_INTERRUPTED, 3, "t3",
	    "i"), 0);
	ck_assert_int_eq(b.streak, 1);
	ck_assert_str_eq(b.last_fail, "w1");
	ck_assert_str_eq(b.last_fail_at, "t1");
	breaker_record(&b, VERDICT_FAIL, 3, "t4", "w4");
	breaker_record(&b, VERDICT_ERROR, 3, "t5", NULL);
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t6", "w6"), 1);
	ck_assert_int_eq(b.open, 1);
	breaker_free(&b);
}
END_TEST

START_TEST(t_breaker_threshold_zero)
{
	struct breaker	b;
	int		i;

	breaker_init(&b);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 0, "t",
		    "w"), 0);
	ck_assert_int_eq(b.streak, 100);
	ck_assert_int_eq(b.open, 0);
	/* Negative is off too. */
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, -1, "t", "w"), 0);
	ck_assert_int_eq(b.open, 0);
	/* Turned on later, the streak so far counts. */
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 3, "t", "w"), 1);
	ck_assert_int_eq(b.open, 1);
	breaker_free(&b);
	breaker_init(&b);
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 1, "t", NULL), 1);
	ck_assert_ptr_null(b.last_fail);
	breaker_free(&b);
}
END_TEST

START_TEST(t_breaker_stays_open)
{
	struct breaker	b;

	breaker_init(&b);
	breaker_record(&b, VERDICT_FAIL, 2, "t1", "w1");
	breaker_record(&b, VERDICT_FAIL, 2, "t2", "w2");
	ck_assert_int_eq(b.open, 1);
	/* Only a reset closes it: not a pass, not a change of threshold. */
	breaker_record(&b, VERDICT_PASS, 2, "t3", NULL);
	ck_assert_int_eq(b.open, 1);
	breaker_record(&b, VERDICT_FAIL, 0, "t4", "w4");
	ck_assert_int_eq(b.open, 1);
	breaker_reset(&b);
	ck_assert_int_eq(b.open, 0);
	ck_assert_int_eq(b.streak, 0);
	ck_assert_ptr_null(b.opened_at);
	/* And it opens again after a whole new streak. */
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 2, "t5", "w5"), 0);
	ck_assert_int_eq(breaker_record(&b, VERDICT_FAIL, 2, "t6", "w6"), 1);
	ck_assert_str_eq(b.opened_at, "t6");
	breaker_free(&b);
}
END_TEST

/* breaker JSON */

START_TEST(t_breaker_json_text)
{
	struct breaker	b;
	struct buf	out = BUF_INIT;

	breaker_init(&b);
	breaker_to_json(&b, &out);
	ck_assert_str_eq(out.data, "{\"streak\":0,\"open\":false,"
	    "\"opened_at\":null,\"last_fail\":null,\"last_fail_at\":null}");
	breaker_record(&b, VERDICT_FAIL, 1, "2026-01-02T03:04:05Z",
	    "make check (exit status 2)");
	buf_reset(&out);
	breaker_to_json(&b, &out);
	ck_assert_str_eq(out.data, "{\"streak\":1,\"open\":true,"
	    "\"opened_at\":\"2026-01-02T03:04:05Z\","
	    "\"last_fail\":\"make check (exit status 2)\","
	    "\"last_fail_at\":\"2026-01-02T03:04:05Z\"}");
	buf_free(&out);
	breaker_free(&b);
}
END_TEST

START_TEST(t_breaker_json_roundtrip)
{
	struct breaker	 a, b;
	struct buf	 out = BUF_INIT;
	const char	*text;

	breaker_init(&a);
	breaker_record(&a, VERDICT_FAIL, 5, "when\"1", "sh -c 'exit 1'\n\xff");
	breaker_record(&a, VERDICT_FAIL, 2, "when\\2", "w\x01");
	breaker_record(&a, VERDICT_FAIL, 2, "t3", "\xc3\xa9t\xc3\xa9");
	breaker_to_json(&a, &out);
	buf_addc(&out, '\n');	/* as saved on disk */
	memset(&b, 0x55, sizeof(b));
	ck_assert_int_eq(breaker_from_json(&b, out.data, out.len), 0);
	ck_assert_int_eq(b.streak, 3);
	ck_assert_int_eq(b.open, 1);
	ck_assert_str_eq(b.opened_at, "when\\2");
	ck_assert_str_eq(b.last_fail, "\xc3\xa9t\xc3\xa9");
	ck_assert_str_eq(b.last_fail_at, "t3");
	breaker_free(&b);
	/* Unknown keys are for later versions: ignored.  Strings of the
	 * wrong type are absent. */
	text = "{\"streak\":2,\"open\":false,\"future\":[1],\"last_fail\":7}";
	ck_assert_int_eq(breaker_from_json(&b, text, strlen(text)), 0);
	ck_assert_int_eq(b.streak, 2);
	ck_assert_int_eq(b.open, 0);
	ck_assert_ptr_null(b.last_fail);
	ck_assert_ptr_null(b.opened_at);
	breaker_free(&b);
	breaker_free(&a);
	buf_free(&out);
}
END_TEST

START_TEST(t_breaker_json_garbage)
{
	static const char *const bad[] = {
		"", "garbage", "[]", "null", "{}", "3",
		"{\"open\":false}",
		"{\"streak\":2}",
		"{\"streak\":-1,\"open\":false}",
		"{\"streak\":\"2\",\"open\":false}",
		"{\"streak\":2,\"open\":\"yes\"}",
		"{\"streak\":2,\"open\":1}",
		"{\"streak\":2,\"open\":null}",
		"{\"streak\":2000000000,\"open\":false}",
		"{\"streak\":2,\"open\":fal",
		"{\"streak\":2,\"open\":false}x",
		"{\"streak\":2,\"open\":false}\n{}",
	};
	struct breaker	b;
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&b, 0x55, sizeof(b));
		ck_assert_msg(breaker_from_json(&b, bad[i], strlen(bad[i])) ==
		    -1, "accepted: %s", bad[i]);
		/* Left fresh, so that a caller may go on with it. */
		ck_assert_int_eq(b.streak, 0);
		ck_assert_int_eq(b.open, 0);
		ck_assert_ptr_null(b.opened_at);
		ck_assert_ptr_null(b.last_fail);
		ck_assert_ptr_null(b.last_fail_at);
	}
}
END_TEST

/* breaker_replay */

struct events_text {
	struct breaker	b;
	int		threshold;
};

static void
replay_fn(const struct jv *ev, void *arg)
{
	struct events_text	*r = arg;
	struct event		 e;

	event_decode(&e, ev);
	breaker_replay(&r->b, &e, r->threshold);
}

/* Replay JSON Lines text into a fresh breaker. */
static void
replay(struct events_text *r, const char *text, int threshold)
{
	breaker_init(&r->b);
	r->threshold = threshold;
	ck_assert_int_eq(state_timeline_parse(text, strlen(text), "test",
	    replay_fn,
	    r), 0);
}

#define VFAIL(t)	"{\"event\":\"verify\",\"time\":\"" t "\"," \
			"\"verdict\":\"FAIL\",\"failed\":\"step " t "\"}\n"
#define VPASS(t)	"{\"event\":\"verify\",\"time\":\"" t "\"," \
			"\"verdict\":\"PASS\"}\n"
#define VERR(t)		"{\"event\":\"verify\",\"time\":\"" t "\"," \
			"\"verdict\":\"ERROR\"}\n"
#define BOPEN(t)	"{\"event\":\"breaker-open\",\"time\":\"" t "\"," \
			"\"streak\":3}\n"
#define BRESET(t)	"{\"event\":\"breaker-reset\",\"time\":\"" t "\"}\n"

START_TEST(t_replay_streak)
{
	struct events_text	r;

	replay(&r, VFAIL("1") VPASS("2") VFAIL("3") VERR("4") VFAIL("5"), 3);
	ck_assert_int_eq(r.b.streak, 2);
	ck_assert_int_eq(r.b.open, 0);
	ck_assert_str_eq(r.b.last_fail, "step 5");
	ck_assert_str_eq(r.b.last_fail_at, "5");
	breaker_free(&r.b);
}
END_TEST

START_TEST(t_replay_open_event)
{
	struct events_text	r;

	/* The open event's time is when it opened, as breaker.json said
	 * (a verify event carries the time the run started). */
	replay(&r, VFAIL("1") VFAIL("2") VFAIL("3") BOPEN("3b"), 3);
	ck_assert_int_eq(r.b.open, 1);
	ck_assert_int_eq(r.b.streak, 3);
	ck_assert_str_eq(r.b.opened_at, "3b");
	breaker_free(&r.b);
	/* An open event counts even where the streak would not open it
	 * (the threshold was lower then). */
	replay(&r, VFAIL("1") BOPEN("1b") VPASS("2"), 3);
	ck_assert_int_eq(r.b.open, 1);
	ck_assert_str_eq(r.b.opened_at, "1b");
	ck_assert_int_eq(r.b.streak, 0);
	breaker_free(&r.b);
}
END_TEST

/* A crash between the verify event and the breaker-open event must not
 * leave a breaker that should be open closed. */
START_TEST(t_replay_lost_open_event)
{
	struct events_text	r;

	replay(&r, VFAIL("1") VFAIL("2") VFAIL("3"), 3);
	ck_assert_int_eq(r.b.open, 1);
	ck_assert_str_eq(r.b.opened_at, "3");
	breaker_free(&r.b);
	/* But not with the breaker turned off. */
	replay(&r, VFAIL("1") VFAIL("2") VFAIL("3"), 0);
	ck_assert_int_eq(r.b.open, 0);
	ck_assert_int_eq(r.b.streak, 3);
	breaker_free(&r.b);
}
END_TEST

START_TEST(t_replay_reset)
{
	struct events_text	r;

	replay(&r, VFAIL("1") VFAIL("2") VFAIL("3") BOPEN("3") BRESET("4")
	    VFAIL("5") VFAIL("6"), 3);
	ck_assert_int_eq(r.b.open, 0);
	ck_assert_int_eq(r.b.streak, 2);
	ck_assert_ptr_null(r.b.opened_at);
	breaker_free(&r.b);
	replay(&r, VFAIL("1") VFAIL("2") VFAIL("3") BRESET("4") VFAIL("5")
	    VFAIL("6") VFAIL("7"), 3);
	ck_assert_int_eq(r.b.open, 1);
	ck_assert_str_eq(r.b.opened_at, "7");
	breaker_free(&r.b);
}
END_TEST

START_TEST(t_replay_ignores_others)
{
	struct events_text	r;

	replay(&r, VFAIL("1") VFAIL("2")
	    "{\"event\":\"verify\",\"time\":\"x\",\"verdict\":\"MAYBE\"}\n"
	    "{\"event\":\"verify\",\"time\":\"x\"}\n"
	    "{\"event\":\"verify\",\"time\":\"x\",\"verdict\":3}\n"
	    "{\"event\":\"reclaim\",\"time\":\"x\",\"count\":2}\n"
	    "{\"time\":\"x\",\"verdict\":\"FAIL\"}\n"
	    "{\"event\":7,\"verdict\":\"FAIL\"}\n"
	    "{\"event\":\"breaker-opened\"}\n", 3);
	ck_assert_int_eq(r.b.streak, 2);
	ck_assert_int_eq(r.b.open, 0);
	breaker_free(&r.b);
}
END_TEST

/* state_timeline_parse */

struct seen {
	int	n;
	long long ids[16];
};

static void
seen_fn(const struct jv *ev, void *arg)
{
	struct seen	*s = arg;

	ck_assert_int_eq(ev->type, JV_OBJ);
	if (s->n < 16)
		s->ids[s->n] = json_as_num(json_get(ev, "id"), -1);
	s->n++;
}

START_TEST(t_timeline_parse)
{
	static const char text[] =
	    "{\"id\":1}\n"
	    "\n"
	    "not json at all\n"
	    "[\"an\",\"array\"]\n"
	    "\"a string\"\n"
	    "42\n"
	    "{\"id\":2}\r\n"
	    "   \n"
	    "{\"id\":3,\"nested\":{\"a\":[1,2]}}\n"
	    "{\"id\":4\n"
	    "{\"id\":5}{\"id\":6}\n"
	    "{\"id\":7}\n"
	    "{\"id\":8,\"torn\":\"tex";
	struct seen	s;

	memset(&s, 0, sizeof(s));
	/* Eight bad: the garbage, the array, the string, the number, the
	 * line of spaces (not empty, and not a value), the unclosed object,
	 * the two objects on one line and the torn last line. */
	ck_assert_int_eq(state_timeline_parse(text, sizeof(text) - 1, "t",
	    seen_fn,
	    &s), 8);
	ck_assert_int_eq(s.n, 4);
	ck_assert_int_eq(s.ids[0], 1);
	ck_assert_int_eq(s.ids[1], 2);
	ck_assert_int_eq(s.ids[2], 3);
	ck_assert_int_eq(s.ids[3], 7);
}
END_TEST

/* A complete-looking last line without its newline is still torn: every
 * append writes the newline in the same write. */
START_TEST(t_timeline_parse_torn)
{
	struct seen	s;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_timeline_parse("{\"id\":1}\n{\"id\":2}", 17, "t",
	    seen_fn, &s), 1);
	ck_assert_int_eq(s.n, 1);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_timeline_parse("", 0, "t", seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 0);
	ck_assert_int_eq(state_timeline_parse("\n\n\n", 3, "t", seen_fn, &s),
	    0);
	ck_assert_int_eq(s.n, 0);
	/* A NUL inside a line spoils that line only. */
	ck_assert_int_eq(state_timeline_parse("{\"id\":1}\0\n{\"id\":2}\n", 19,
	    "t",
	    seen_fn, &s), 1);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.ids[0], 2);
	/* No callback: only counting. */
	ck_assert_int_eq(state_timeline_parse("x\n{}\n", 5, "t", NULL, NULL),
	    1);
}
END_TEST

/* state: files under <common>/forge */

static char *
state_path(const char *common, const char *name)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/forge/%s", common, name), -1);
	return p;
}

static void
append_text(struct state *st, const char *text)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, text);
	ck_assert_int_eq(state_append(st, &b), 0);
	buf_free(&b);
}

START_TEST(t_state_open)
{
	struct state_limits c = { DEFAULT_THRESHOLD, DEFAULT_TIMELINE_MAX };
	struct state	 st;
	struct stat	 sb;
	char		*common, *p;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	ck_assert_int_eq(st.threshold, DEFAULT_THRESHOLD);
	ck_assert_int_eq(st.max_size, DEFAULT_TIMELINE_MAX);
	p = state_path(common, "");
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	free(p);
	p = state_path(common, "timeline.jsonl");
	ck_assert_str_eq(st.timeline, p);
	free(p);
	state_close(&st);
	ck_assert_int_eq(st.lockfd, -1);
	/* The limits carry over; opening again is fine. */
	c.threshold = 7;
	c.max_size = 4096;
	ck_assert_int_eq(state_open(&st, common, &c), 0);
	ck_assert_int_eq(st.threshold, 7);
	ck_assert_int_eq(st.max_size, 4096);
	state_close(&st);
	/* Where no directory can be made: a message and -1. */
	p = state_path(common, "timeline.jsonl");
	unitfs_write(p, "", 0644);
	ck_assert_int_eq(state_open(&st, p, NULL), -1);
	state_close(&st);
	free(p);
	free(common);
}
END_TEST

START_TEST(t_state_append_events)
{
	struct state	 st;
	struct seen	 s;
	char		*common, *p, *text;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	memset(&s, 0, sizeof(s));
	/* Nothing recorded yet: no events, no error. */
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 0);
	ck_assert_int_eq(state_lock(&st), 0);
	append_text(&st, "{\"id\":1}\n");
	append_text(&st, "{\"id\":2}\n{\"id\":3}\n");
	state_unlock(&st);
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.ids[0], 1);
	ck_assert_int_eq(s.ids[2], 3);
	p = state_path(common, "timeline.jsonl");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n");
	free(text);
	free(p);
	state_close(&st);
	free(common);
}
END_TEST

/* After a crash mid-write, the next event is still a line of its own. */
START_TEST(t_state_append_after_torn)
{
	struct state	 st;
	struct seen	 s;
	char		*common, *p, *text;
	int		 fd;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	p = state_path(common, "timeline.jsonl");
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, "{\"id\":1}\n{\"id\":2,\"to", 20), 20);
	close(fd);
	append_text(&st, "{\"id\":3}\n");
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.ids[0], 1);
	ck_assert_int_eq(s.ids[1], 3);
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "{\"id\":1}\n{\"id\":2,\"to\n{\"id\":3}\n");
	free(text);
	free(p);
	state_close(&st);
	free(common);
}
END_TEST

START_TEST(t_state_rotation)
{
	struct state_limits c = { DEFAULT_THRESHOLD, DEFAULT_TIMELINE_MAX };
	struct state	 st;
	struct seen	 s;
	struct stat	 sb;
	char		 line[1100];
	char		*common, *cur, *old, *text;
	int		 i;

	common = unitfs_dir("common");
	c.max_size = 4096;
	ck_assert_int_eq(state_open(&st, common, &c), 0);
	cur = state_path(common, "timeline.jsonl");
	old = state_path(common, "timeline.jsonl.1");
	/* Lines of 1000 bytes: four fit in 4096, the fifth does not. */
	for (i = 1; i <= 5; i++) {
		snprintf(line, sizeof(line), "{\"id\":%d,\"pad\":\"%0*d\"}\n", i,
		    1000 - 18, 0);
		ck_assert_uint_eq(strlen(line), 1000);
		append_text(&st, line);
		if (i == 4)
			ck_assert(!unitfs_exists(old));
	}
	ck_assert_int_eq(stat(old, &sb), 0);
	ck_assert_int_eq(sb.st_size, 4000);
	ck_assert_int_eq(stat(cur, &sb), 0);
	ck_assert_int_eq(sb.st_size, 1000);
	/* The reader reads both, oldest first. */
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(s.ids[i], i + 1);
	/* A second rotation keeps one previous file only. */
	for (i = 6; i <= 9; i++) {
		snprintf(line, sizeof(line), "{\"id\":%d,\"pad\":\"%0*d\"}\n", i,
		    1000 - 18, 0);
		append_text(&st, line);
	}
	text = unitfs_read(old, NULL);
	ck_assert_ptr_nonnull(strstr(text, "{\"id\":5,"));
	ck_assert_ptr_null(strstr(text, "{\"id\":4,"));
	free(text);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 5);
	ck_assert_int_eq(s.ids[0], 5);
	ck_assert_int_eq(s.ids[4], 9);
	state_close(&st);
	free(cur);
	free(old);
	free(common);
}
END_TEST

/* One event bigger than the limit still goes in, alone. */
START_TEST(t_state_rotation_big_event)
{
	struct state_limits c = { DEFAULT_THRESHOLD, DEFAULT_TIMELINE_MAX };
	struct state	 st;
	struct seen	 s;
	struct buf	 b = BUF_INIT;
	char		*common;

	common = unitfs_dir("common");
	c.max_size = 4096;
	ck_assert_int_eq(state_open(&st, common, &c), 0);
	append_text(&st, "{\"id\":1}\n");
	buf_adds(&b, "{\"id\":2,\"pad\":\"");
	while (b.len < 9000)
		buf_addc(&b, 'p');
	buf_adds(&b, "\"}\n");
	ck_assert_int_eq(state_append(&st, &b), 0);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(state_events(&st, seen_fn, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.ids[1], 2);
	buf_free(&b);
	state_close(&st);
	free(common);
}
END_TEST

/* A transaction: the events and the breaker, never the one without the
 * other; where the events cannot be written, the breaker is not left
 * saying they were. */
START_TEST(t_state_commit)
{
	struct state		 st;
	struct state_txn	 tx;
	struct buf		 ev = BUF_INIT;
	char			*common, *bp, *tp, *text;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	bp = state_path(common, "breaker.json");
	tp = state_path(common, "timeline.jsonl");
	/* A failure: the breaker changes, and both are written. */
	ck_assert_int_eq(state_begin(&st, &tx), 0);
	(void)breaker_record(&tx.b, VERDICT_FAIL, 3, "t1", "w1");
	buf_adds(&ev, VFAIL("1"));
	ck_assert_int_eq(state_commit(&st, &tx, &ev), 0);
	ck_assert(unitfs_exists(tp));
	text = unitfs_read(bp, NULL);
	ck_assert_ptr_nonnull(strstr(text, "\"streak\":1"));
	free(text);
	/* The timeline cannot be written: nothing is recorded, and the
	 * breaker is not left counting what is not there. */
	ck_assert_int_eq(unlink(tp), 0);
	ck_assert_int_eq(mkdir(tp, 0755), 0);
	ck_assert_int_eq(state_begin(&st, &tx), 0);
	ck_assert_int_eq(tx.b.streak, 1);
	(void)breaker_record(&tx.b, VERDICT_FAIL, 3, "t2", "w2");
	ck_assert_int_eq(state_commit(&st, &tx, &ev), -1);
	ck_assert(!unitfs_exists(bp));
	ck_assert_int_eq(rmdir(tp), 0);
	/* Rebuilt from the timeline (gone too, here): no streak of 2. */
	ck_assert_int_eq(state_begin(&st, &tx), 0);
	ck_assert_int_eq(tx.b.streak, 0);
	state_end(&st, &tx);
	/* A breaker.json that will not go: nothing is written at all. */
	ck_assert_int_eq(mkdir(bp, 0755), 0);
	text = state_path(common, "breaker.json/x");
	unitfs_write(text, "x", 0644);
	ck_assert_int_eq(state_begin(&st, &tx), 0);
	(void)breaker_record(&tx.b, VERDICT_FAIL, 3, "t3", "w3");
	ck_assert_int_eq(state_commit(&st, &tx, &ev), -1);
	ck_assert(!unitfs_exists(tp));
	free(text);
	buf_free(&ev);
	free(bp);
	free(tp);
	state_close(&st);
	free(common);
}
END_TEST

START_TEST(t_state_breaker_fresh_and_saved)
{
	struct state	 st;
	struct breaker	 a, b;
	struct buf	 want = BUF_INIT;
	struct stat	 sb;
	char		*common, *p, *text;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	/* No file, no timeline: a fresh breaker. */
	memset(&b, 0x55, sizeof(b));
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.streak, 0);
	ck_assert_int_eq(b.open, 0);
	ck_assert_ptr_null(b.last_fail);
	breaker_free(&b);
	breaker_init(&a);
	breaker_record(&a, VERDICT_FAIL, 3, "t1", "w1");
	umask(022);
	ck_assert_int_eq(state_save_breaker(&st, &a), 0);
	p = state_path(common, "breaker.json");
	text = unitfs_read(p, NULL);
	breaker_to_json(&a, &want);
	buf_addc(&want, '\n');
	ck_assert_str_eq(text, want.data);
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0644);
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.streak, 1);
	ck_assert_str_eq(b.last_fail, "w1");
	/* The file wins over the timeline when it is good. */
	append_text(&st, VFAIL("2") VFAIL("3") VFAIL("4"));
	breaker_free(&b);
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.streak, 1);
	ck_assert_int_eq(b.open, 0);
	breaker_free(&b);
	breaker_free(&a);
	buf_free(&want);
	free(text);
	free(p);
	state_close(&st);
	free(common);
}
END_TEST

START_TEST(t_state_breaker_rebuilt)
{
	static const char *const corrupt[] = {
		"", "{\"streak\":1,\"op", "garbage\n", "[]\n",
	};
	struct state	 st;
	struct breaker	 b;
	char		*common, *p;
	size_t		 i;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	append_text(&st, VFAIL("1") VPASS("2") VFAIL("3") VFAIL("4")
	    VFAIL("5"));
	/* Missing: rebuilt from the timeline, open (its event was lost). */
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.open, 1);
	ck_assert_int_eq(b.streak, 3);
	ck_assert_str_eq(b.opened_at, "5");
	breaker_free(&b);
	/* Corrupt, in any way: the same. */
	p = state_path(common, "breaker.json");
	for (i = 0; i < sizeof(corrupt) / sizeof(corrupt[0]); i++) {
		unitfs_write(p, corrupt[i], 0644);
		ck_assert_int_eq(state_breaker(&st, &b), 0);
		ck_assert_msg(b.open == 1 && b.streak == 3,
		    "with breaker.json '%s': open %d, streak %d", corrupt[i],
		    b.open, b.streak);
		breaker_free(&b);
	}
	/* A directory in its place. */
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.open, 1);
	breaker_free(&b);
	free(p);
	state_close(&st);
	free(common);
}
END_TEST

/* The rebuilding reads the rotated file too. */
START_TEST(t_state_breaker_rebuilt_rotated)
{
	struct state_limits c = { DEFAULT_THRESHOLD, DEFAULT_TIMELINE_MAX };
	struct state	 st;
	struct breaker	 b;
	char		*common, *p;

	common = unitfs_dir("common");
	p = NULL;
	c.max_size = 4096;
	ck_assert_int_eq(state_open(&st, common, &c), 0);
	p = state_path(common, "timeline.jsonl.1");
	unitfs_write(p, VFAIL("1") VFAIL("2"), 0644);
	append_text(&st, VFAIL("3"));
	ck_assert_int_eq(state_breaker(&st, &b), 0);
	ck_assert_int_eq(b.open, 1);
	ck_assert_int_eq(b.streak, 3);
	breaker_free(&b);
	free(p);
	state_close(&st);
	free(common);
}
END_TEST

START_TEST(t_state_event_begin)
{
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct jv	*v;

	ck_assert_int_eq(setenv("FORGE_SESSION", "agent-7", 1), 0);
	json_init(&j, &b);
	state_event_begin(&j, "verify", "2026-01-01T00:00:00Z");
	json_key(&j, "extra");
	json_int(&j, 1);
	json_close(&j, '}');
	v = json_parse(b.data, b.len);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_as_str(json_get(v, "event")), "verify");
	ck_assert_str_eq(json_as_str(json_get(v, "time")),
	    "2026-01-01T00:00:00Z");
	ck_assert_str_eq(json_as_str(json_get(v, "session")), "agent-7");
	ck_assert_str_eq(json_as_str(json_get(v, "version")), PACKAGE_VERSION);
	ck_assert_int_eq(json_as_num(json_get(v, "extra"), 0), 1);
	json_free(v);
	/* Unset or empty: null, not "". */
	ck_assert_int_eq(setenv("FORGE_SESSION", "", 1), 0);
	buf_reset(&b);
	json_init(&j, &b);
	state_event_begin(&j, "x", "t");
	json_close(&j, '}');
	v = json_parse(b.data, b.len);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(json_get(v, "session")->type, JV_NULL);
	json_free(v);
	ck_assert_int_eq(unsetenv("FORGE_SESSION"), 0);
	buf_reset(&b);
	json_init(&j, &b);
	state_event_begin(&j, "x", "t");
	json_close(&j, '}');
	v = json_parse(b.data, b.len);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(json_get(v, "session")->type, JV_NULL);
	json_free(v);
	buf_free(&b);
}
END_TEST

/* Hold the lock in a child for ms milliseconds; returns its pid once it
 * holds it. */
static pid_t
hold_lock(const char *common, long ms)
{
	struct timespec	 ts;
	struct state	 st;
	pid_t		 pid;
	char		 c;
	int		 p[2];

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(p[0]);
		if (state_open(&st, common, NULL) == -1 ||
		    state_lock(&st) == -1)
			_exit(1);
		(void)write(p[1], "x", 1);
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

START_TEST(t_state_lock_waits)
{
	struct state	 st;
	long long	 t0, waited;
	pid_t		 pid;
	char		*common;
	int		 ws;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	pid = hold_lock(common, 400);
	t0 = timeutil_now_ms();
	ck_assert_int_eq(state_lock(&st), 0);
	waited = timeutil_now_ms() - t0;
	ck_assert_msg(waited >= 200, "got the lock after %lldms", waited);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	/* Taking it again while held is a no-op. */
	ck_assert_int_eq(state_lock(&st), 0);
	state_unlock(&st);
	ck_assert_int_eq(st.lockfd, -1);
	state_close(&st);
	free(common);
}
END_TEST

/* A signal ends the wait for a lock held elsewhere. */
START_TEST(t_state_lock_signal)
{
	struct state	 st;
	long long	 t0;
	pid_t		 pid;
	char		*common;
	int		 ws;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	pid = hold_lock(common, 3000);
	sig_init();
	ck_assert_int_eq(raise(SIGTERM), 0);
	ck_assert_int_eq(sig_pending(), SIGTERM);
	t0 = timeutil_now_ms();
	ck_assert_int_eq(state_lock(&st), -1);
	ck_assert_int_lt(timeutil_now_ms() - t0, 1000);
	ck_assert_int_eq(st.lockfd, -1);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	state_close(&st);
	free(common);
}
END_TEST

/* tail.c: lines from the end, whatever the block size */

START_TEST(t_tail)
{
	static const char text[] = "one\n\nthree is longer\nfour\ntorn";
	static const char *const want[] = { "torn", "four",
	    "three is longer", "", "one" };
	static const off_t offs[] = { 26, 21, 5, 4, 0 };
	struct tail	 t;
	const char	*line;
	size_t		 len, block, i;
	char		*dir, *p;
	int		 fd;

	dir = unitfs_dir("tail");
	ck_assert_int_ne(asprintf(&p, "%s/f", dir), -1);
	unitfs_write(p, text, 0644);
	/* A block of 1 byte, of 3 (lines longer than a block), of all. */
	for (block = 1; block <= 64; block = block * 3 + 1) {
		fd = open(p, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ne(fd, -1);
		ck_assert_int_eq(tail_open(&t, fd), 0);
		t.block = block;
		for (i = 0; i < 5; i++) {
			ck_assert_int_eq(tail_prev(&t, &line, &len), 1);
			ck_assert_str_eq(line, want[i]);
			ck_assert_uint_eq(len, strlen(want[i]));
			ck_assert_int_eq(t.off, offs[i]);
			ck_assert_int_eq(t.torn, i == 0);
		}
		ck_assert_int_eq(tail_prev(&t, &line, &len), 0);
		ck_assert_int_eq(tail_prev(&t, &line, &len), 0);
		tail_close(&t);
		close(fd);
	}
	/* Nothing at all, and one whole line. */
	unitfs_write(p, "", 0644);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(tail_open(&t, fd), 0);
	ck_assert_int_eq(tail_prev(&t, &line, &len), 0);
	tail_close(&t);
	close(fd);
	unitfs_write(p, "x\n", 0644);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(tail_open(&t, fd), 0);
	ck_assert_int_eq(tail_prev(&t, &line, &len), 1);
	ck_assert_str_eq(line, "x");
	ck_assert_int_eq(t.torn, 0);
	ck_assert_int_eq(tail_prev(&t, &line, &len), 0);
	tail_close(&t);
	close(fd);
	free(p);
	free(dir);
}
END_TEST

struct back {
	long long	ids[16];
	int		n;
	int		stop_at;
};

static int
back_fn(const struct jv *ev, void *arg)
{
	struct back	*b = arg;

	ck_assert_int_lt(b->n, 16);
	b->ids[b->n++] = json_as_num(json_get(ev, "id"), -1);
	return b->n == b->stop_at;
}

/* Newest first, through the rotated file, skipping damage; stopping
 * when asked; a file rotated while it is read is read once. */
START_TEST(t_state_events_back)
{
	struct state	 st;
	struct back	 b;
	char		*common, *cur, *old;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(state_events_back(&st, back_fn, &b), 0);
	ck_assert_int_eq(b.n, 0);
	cur = state_path(common, "timeline.jsonl");
	old = state_path(common, "timeline.jsonl.1");
	unitfs_write(old, "{\"id\":1}\n{\"id\":2}\n", 0644);
	unitfs_write(cur, "{\"id\":3}\ngarbage\n\n{\"id\":4}\n{\"id\":5,\"to",
	    0644);
	ck_assert_int_eq(state_events_back(&st, back_fn, &b), 0);
	ck_assert_int_eq(b.n, 4);
	ck_assert_int_eq(b.ids[0], 4);
	ck_assert_int_eq(b.ids[1], 3);
	ck_assert_int_eq(b.ids[2], 2);
	ck_assert_int_eq(b.ids[3], 1);
	memset(&b, 0, sizeof(b));
	b.stop_at = 2;
	ck_assert_int_eq(state_events_back(&st, back_fn, &b), 0);
	ck_assert_int_eq(b.n, 2);
	ck_assert_int_eq(b.ids[1], 3);
	ck_assert_int_eq(unlink(old), 0);
	ck_assert_int_eq(link(cur, old), 0);
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(state_events_back(&st, back_fn, &b), 0);
	ck_assert_int_eq(b.n, 2);
	free(cur);
	free(old);
	state_close(&st);
	free(common);
}
END_TEST

/* report.c: the last events, oldest first */

START_TEST(t_events_load)
{
	struct state	 st;
	struct events	 e;
	char		*common;

	common = unitfs_dir("common");
	ck_assert_int_eq(state_open(&st, common, NULL), 0);
	append_text(&st,
	    "{\"id\":1,\"session\":\"a\"}\n"
	    "{\"id\":2,\"session\":\"b\"}\n"
	    "garbage\n"
	    "{\"id\":3,\"session\":\"a\"}\n"
	    "{\"id\":4}\n"
	    "{\"id\":5,\"session\":\"a\"}\n");
	report_load(&e, &st, NULL, 2);
	ck_assert_uint_eq(e.n, 2);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 0)->v, "id"), 0),
	    4);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 1)->v, "id"), 0),
	    5);
	report_free(&e);
	report_load(&e, &st, "a", 10);
	ck_assert_uint_eq(e.n, 3);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 0)->v, "id"), 0),
	    1);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 2)->v, "id"), 0),
	    5);
	report_free(&e);
	/* Three of them in a ring of two, and none at all. */
	report_load(&e, &st, "a", 2);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 0)->v, "id"), 0),
	    3);
	ck_assert_int_eq(json_as_num(json_get(report_at(&e, 1)->v, "id"), 0),
	    5);
	report_free(&e);
	report_load(&e, &st, "nobody", 5);
	ck_assert_uint_eq(e.n, 0);
	report_free(&e);
	report_load(&e, &st, NULL, 0);
	ck_assert_uint_eq(e.n, 0);
	report_free(&e);
	state_close(&st);
	free(common);
}
END_TEST

static char *
row(const char *text)
{
	struct buf	 b = BUF_INIT;
	struct event	 e;

	ck_assert_int_eq(event_parse(&e, text, strlen(text)), 0);
	report_row(&e, &b, 0, EVENT_MODE_WIDTH);
	event_free(&e);
	return buf_detach(&b);
}

START_TEST(t_event_row)
{
	char	*r;
	size_t	 i;

	r = row("{\"event\":\"verify\",\"time\":\"2026-01-02T03:04:05Z\","
	    "\"session\":\"s1\",\"mode\":\"isolated\",\"verdict\":\"FAIL\","
	    "\"duration_ms\":1500,\"tree\":\"0123456789abcdef\","
	    "\"failed\":\"make check (exit status 2)\"}");
	ck_assert_str_eq(r, "2026-01-02T03:04:05Z s1           isolated    "
	    "FAIL        1.5s     0123456789 make check (exit status 2)");
	/* The widest mode keeps the columns. */
	free(r);
	r = row("{\"event\":\"verify\",\"time\":\"2026-01-02T03:04:05Z\","
	    "\"session\":\"s1\",\"mode\":\"incremental\",\"verdict\":"
	    "\"PASS\",\"duration_ms\":1500,\"tree\":\"0123456789abcdef\","
	    "\"steps\":[{\"command\":\"make\"}]}");
	ck_assert_ptr_nonnull(strstr(r, "2026-01-02T03:04:05Z s1           "
	    "incremental PASS        1.5s     0123456789 "));
	free(r);
	/* An incremental copy of the staged tree, or of a commit, says so
	 * beside its mode, in a column made as wide. */
	{
		static const char *const evs[] = {
		    "{\"mode\":\"staged\",\"incremental\":true}",
		    "{\"mode\":\"rev\",\"incremental\":true}",
		    "{\"mode\":\"incremental\",\"incremental\":true}",
		    "{\"mode\":\"staged\"}",
		    "{\"mode\":\"isolated\",\"incremental\":false}",
		    "{\"incremental\":true}" };
		static const char *const want[] = { "staged, incremental",
		    "rev, incremental", "incremental", "staged", "isolated",
		    NULL };
		struct event	 e;
		const char	*m;
		char		 buf[64];

		for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
			ck_assert_int_eq(event_parse(&e, evs[i],
			    strlen(evs[i])), 0);
			m = report_mode(&e, buf, sizeof(buf));
			if (want[i] == NULL)
				ck_assert_ptr_null(m);
			else
				ck_assert_str_eq(m, want[i]);
			event_free(&e);
		}
	}
	r = row("{\"event\":\"cached\",\"time\":\"2026-01-02T03:04:05Z\","
	    "\"session\":\"s1\",\"mode\":\"rev\",\"incremental\":true,"
	    "\"tree\":\"0123456789abcdef\",\"verified_at\":\"t\"}");
	ck_assert_ptr_nonnull(strstr(r, "2026-01-02T03:04:05Z s1           "
	    "rev, incremental CACHED      -        0123456789 "));
	free(r);
	r = row("{\"event\":\"verify\",\"verdict\":\"PASS\",\"change\":"
	    "{\"modified\":3,\"added\":1,\"deleted\":0,\"renamed\":2,"
	    "\"untracked\":4}}");
	ck_assert_ptr_nonnull(strstr(r, "PASS"));
	ck_assert_ptr_nonnull(strstr(r, " 3M 1A 2R 4?"));
	free(r);
	r = row("{\"event\":\"breaker-open\",\"time\":\"t\",\"streak\":3}");
	ck_assert_ptr_nonnull(strstr(r, "BREAKER-OPEN"));
	ck_assert_ptr_nonnull(strstr(r, "streak 3"));
	free(r);
	/* In colour: the verdict alone, and the columns stay where they
	 * were. */
	{
		static const char *const vs[] = { "PASS", "FAIL", "ERROR",
		    "INTERRUPTED" };
		static const char *const cs[] = { "32", "31", "33", "33" };
		struct buf	 b = BUF_INIT, want = BUF_INIT, ev = BUF_INIT;
		struct event	 e;
		char		*plain;

		for (i = 0; i < 4; i++) {
			buf_reset(&ev);
			buf_addf(&ev, "{\"event\":\"verify\",\"time\":\"t\","
			    "\"verdict\":\"%s\",\"duration_ms\":5}", vs[i]);
			plain = row(ev.data);
			ck_assert_int_eq(event_parse(&e, ev.data, ev.len), 0);
			buf_reset(&b);
			report_row(&e, &b, 1, EVENT_MODE_WIDTH);
			event_free(&e);
			buf_reset(&want);
			buf_add(&want, plain, (size_t)(strstr(plain, vs[i]) -
			    plain));
			buf_addf(&want, "\033[%sm%s\033[m%s", cs[i], vs[i],
			    strstr(plain, vs[i]) + strlen(vs[i]));
			ck_assert_str_eq(b.data, want.data);
			free(plain);
		}
		buf_reset(&ev);
		buf_adds(&ev, "{\"event\":\"breaker-open\",\"streak\":3}");
		r = row(ev.data);
		ck_assert_int_eq(event_parse(&e, ev.data, ev.len), 0);
		buf_reset(&b);
		report_row(&e, &b, 1, EVENT_MODE_WIDTH);
		event_free(&e);
		ck_assert_str_eq(b.data, r);
		free(r);
		buf_free(&b);
		buf_free(&want);
		buf_free(&ev);
	}
	/* What a hostile session name holds is never printed raw. */
	r = row("{\"event\":\"verify\",\"session\":\"\\u001b]0;owned\\u0007\","
	    "\"failed\":\"x\\u001b[2Jy\\n\"}");
	for (i = 0; r[i] != '\0'; i++)
		ck_assert_msg((unsigned char)r[i] >= 0x20 && r[i] != 0x7f,
		    "raw control byte in row: %s", r);
	free(r);
}
END_TEST

static Suite *
state_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("state");
	tc = tcase_create("breaker");
	tcase_add_test(tc, t_verdict_names);
	tcase_add_test(tc, t_breaker_opens_at_threshold);
	tcase_add_test(tc, t_breaker_pass_resets);
	tcase_add_test(tc, t_breaker_error_neutral);
	tcase_add_test(tc, t_breaker_threshold_zero);
	tcase_add_test(tc, t_breaker_stays_open);
	tcase_add_test(tc, t_breaker_json_text);
	tcase_add_test(tc, t_breaker_json_roundtrip);
	tcase_add_test(tc, t_breaker_json_garbage);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_add_test(tc, t_replay_streak);
	tcase_add_test(tc, t_replay_open_event);
	tcase_add_test(tc, t_replay_lost_open_event);
	tcase_add_test(tc, t_replay_reset);
	tcase_add_test(tc, t_replay_ignores_others);
	tcase_add_test(tc, t_timeline_parse);
	tcase_add_test(tc, t_timeline_parse_torn);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, t_state_open);
	tcase_add_test(tc, t_state_append_events);
	tcase_add_test(tc, t_state_append_after_torn);
	tcase_add_test(tc, t_state_rotation);
	tcase_add_test(tc, t_state_rotation_big_event);
	tcase_add_test(tc, t_state_commit);
	tcase_add_test(tc, t_state_breaker_fresh_and_saved);
	tcase_add_test(tc, t_state_breaker_rebuilt);
	tcase_add_test(tc, t_state_breaker_rebuilt_rotated);
	tcase_add_test(tc, t_state_event_begin);
	tcase_add_test(tc, t_state_lock_waits);
	tcase_add_test(tc, t_state_lock_signal);
	tcase_add_test(tc, t_tail);
	tcase_add_test(tc, t_state_events_back);
	tcase_add_test(tc, t_events_load);
	tcase_add_test(tc, t_event_row);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(state_suite)
