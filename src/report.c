/* Tables and JSON views of the timeline. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "color.h"
#include "event.h"
#include "forgedir.h"
#include "fs_vis.h"
#include "report.h"
#include "runlog.h"
#include "timeutil.h"
#include "xmalloc.h"

/* Newest first, until max are held. */
static int
keep_event(const struct jv *ev, void *arg)
{
	struct events	*e = arg;
	struct event	 seen;

	if (e->n >= e->max)
		return 1;
	event_decode(&seen, ev);
	if (e->session != NULL && (seen.session == NULL ||
	    strcmp(seen.session, e->session) != 0))
		return 0;
	/* The callback's value is borrowed: keep a copy of our own. */
	if (event_keep(&e->v[e->n], ev) == 0)
		e->n++;
	return e->n >= e->max;
}

void
report_load(struct events *e, struct state *st, const char *session,
    size_t max)
{
	struct event	 t;
	size_t		 i;

	memset(e, 0, sizeof(*e));
	e->max = max;
	e->session = session;
	e->logs = forgedir_logs(st->common);
	e->v = xcalloc(max > 0 ? max : 1, sizeof(*e->v));
	if (max > 0)
		(void)state_events_back(st, keep_event, e);
	/* Read newest first; held oldest first. */
	for (i = 0; i < e->n / 2; i++) {
		t = e->v[i];
		e->v[i] = e->v[e->n - 1 - i];
		e->v[e->n - 1 - i] = t;
	}
}

const struct event *
report_at(const struct events *e, size_t i)
{
	return &e->v[i];
}

void
report_free(struct events *e)
{
	size_t	i;

	for (i = 0; i < e->n; i++)
		event_free(&e->v[i]);
	free(e->v);
	free(e->logs);
	memset(e, 0, sizeof(*e));
}

static void
pad(struct buf *b, const char *s, size_t width)
{
	size_t	n = strlen(s);

	buf_adds(b, s);
	do
		buf_addc(b, ' ');
	while (++n < width + 1);
}

/* A verdict, in its colour; the padding is not coloured. */
static void
pad_verdict(struct buf *b, const char *s, size_t width, int color)
{
	const char	*c = color ? color_verdict(s) : "";

	if (*c == '\0') {
		pad(b, s, width);
		return;
	}
	buf_adds(b, c);
	buf_adds(b, s);
	buf_adds(b, COLOR_RESET);
	pad(b, "", width > strlen(s) ? width - strlen(s) : 0);
}

/* What a run verified, as its summary names it: the commands of its
 * steps but the setup ones; "-" if none. */
static void
steps_note(const struct event *ev, struct buf *note)
{
	struct event_step	 st;
	size_t			 i, start = note->len;

	for (i = 0; i < ev->nsteps; i++) {
		if (event_step(ev, i, &st) == -1 || st.command == NULL ||
		    st.setup)
			continue;
		if (note->len > start)
			buf_adds(note, " && ");
		buf_adds(note, fs_vis(st.command));
	}
	if (note->len == start)
		buf_adds(note, "-");
}

const char *
report_mode(const struct event *ev, char *buf, size_t len)
{
	const char	*mode = ev->mode;

	if (mode == NULL)
		return NULL;
	/* A worktree's incremental copy has its own mode already. */
	if (!ev->incremental ||
	    strcmp(mode, "incremental") == 0)
		return mode;
	snprintf(buf, len, "%s, incremental", mode);
	return buf;
}

/* How wide the mode column is for these events: the default, or the
 * widest mode shown ("staged, incremental"). */
static size_t
mode_width(const struct events *e)
{
	char		 buf[64];
	const char	*s;
	size_t		 i, w = EVENT_MODE_WIDTH;

	for (i = 0; i < e->n; i++)
		if ((s = report_mode(report_at(e, i), buf,
		    sizeof(buf))) != NULL && strlen(fs_vis(s)) > w)
			w = strlen(fs_vis(s));
	return w;
}

/* A commit of a range (verify_range.h) is named first in its note. */
static void
range_note(const struct event *ev, struct buf *note)
{
	if (ev->in_range && ev->rev != NULL)
		buf_addf(note, "%.12s ", fs_vis(ev->rev));
}

void
report_row(const struct event *ev, struct buf *b, int color, size_t mode_w)
{
	const char	*type, *s;
	char		 dur[32], tmp[64], sess[16], mode[64];
	struct buf	 note = BUF_INIT;

	type = ev->type;
	if (type == NULL)
		type = "?";
	s = ev->time;
	pad(b, s != NULL ? fs_vis(s) : "-", 20);
	s = ev->session;
	/* Cut the raw name, then escape it: never half an escape. */
	snprintf(sess, sizeof(sess), "%.12s", s != NULL ? s : "-");
	pad(b, fs_vis(sess), 12);
	if (strcmp(type, "verify") == 0) {
		range_note(ev, &note);
		s = report_mode(ev, mode, sizeof(mode));
		pad(b, s != NULL ? fs_vis(s) : "-", mode_w);
		s = ev->verdict;
		pad_verdict(b, s != NULL ? fs_vis(s) : "-", 11, color);
		timeutil_duration(dur, sizeof(dur), ev->duration_ms);
		pad(b, dur, 8);
		s = ev->tree;
		snprintf(tmp, sizeof(tmp), "%.10s", s != NULL ? s : "-");
		pad(b, tmp, 10);
		if (ev->has_change && note.len == 0) {
			static const char tags[EVENT_NCHANGE] = "MADR?";
			size_t	i;

			for (i = 0; i < EVENT_NCHANGE; i++)
				if (ev->change[i] > 0)
					buf_addf(&note, "%s%lld%c",
					    note.len ? " " : "",
					    ev->change[i], tags[i]);
			if (note.len == 0)
				buf_adds(&note, "no changes");
		} else if ((s = ev->failed) != NULL)
			buf_adds(&note, fs_vis(s));
		else
			steps_note(ev, &note);
	} else if (strcmp(type, "cached") == 0) {
		/* A PASS taken from the verdict cache: what it was of. */
		range_note(ev, &note);
		s = report_mode(ev, mode, sizeof(mode));
		pad(b, s != NULL ? fs_vis(s) : "-", mode_w);
		pad(b, "CACHED", 11);
		pad(b, "-", 8);
		s = ev->tree;
		snprintf(tmp, sizeof(tmp), "%.10s", s != NULL ? s : "-");
		pad(b, tmp, 10);
		s = ev->verified_at;
		buf_addf(&note, "PASS verified at %s", s != NULL ? fs_vis(s) :
		    "-");
	} else {
		pad(b, "-", mode_w);
		snprintf(tmp, sizeof(tmp), "%s", type);
		{
			char	*p;

			for (p = tmp; *p != '\0'; p++)
				if (*p >= 'a' && *p <= 'z')
					*p = (char)(*p - 'a' + 'A');
		}
		pad(b, fs_vis(tmp), 11);
		pad(b, "-", 8);
		pad(b, "-", 10);
		if (strcmp(type, "breaker-open") == 0)
			buf_addf(&note, "streak %lld", ev->streak);
		else if (strcmp(type, "breaker-reset") == 0)
			buf_addf(&note, "streak was %lld", ev->streak_was);
		else if (strcmp(type, "divergence") == 0) {
			s = ev->fast;
			buf_addf(&note, "the %s said ", s != NULL ?
			    fs_vis(s) : "fast path");
			s = ev->fast_verdict;
			buf_addf(&note, "%s, ", s != NULL ? fs_vis(s) : "?");
			s = ev->fresh_verdict;
			buf_addf(&note, "a fresh copy %s", s != NULL ?
			    fs_vis(s) : "?");
		} else if (strcmp(type, "reclaim") == 0) {
			long long	n = ev->count;

			buf_addf(&note, "%lld left-over cop%s removed", n,
			    n == 1 ? "y" : "ies");
		}
	}
	buf_adds(b, note.len ? note.data : "");
	buf_rtrim(b);
	buf_free(&note);
}

/* A run whose log is still there: how to see it. */
static void
log_mark(const struct events *e, const struct event *ev, struct buf *b)
{
	const char	*id = ev->log;
	char		*p;
	int		 whole, alive;

	if (id == NULL || e->logs == NULL || (p = runlog_find(e->logs, id,
	    &whole, &alive)) == NULL)
		return;
	free(p);
	buf_addf(b, " [log %s%s]", id, whole ? "" : alive ? ", running" :
	    ", incomplete");
}

/* The range of events from the i-th on: how many share its id. */
static size_t
range_len(const struct events *e, size_t i)
{
	const char	*id, *s;
	size_t		 j;

	if ((id = report_at(e, i)->range) == NULL)
		return 0;
	for (j = i; j < e->n; j++)
		if ((s = report_at(e, j)->range) == NULL ||
		    strcmp(s, id) != 0)
			break;
	return j - i;
}

/* A range's events as one: a row before them, with the verdict of the
 * first that did not pass (else PASS) and their time together. */
static void
range_row(const struct events *e, size_t i, size_t n, struct buf *b,
    int color, size_t mode_w)
{
	const struct event *ev;
	const char	*s, *v = "PASS";
	char		 dur[32], sess[16];
	long long	 ms = 0;
	size_t		 j, pass = 0, commits = 0;

	for (j = i; j < i + n; j++) {
		ev = report_at(e, j);
		s = ev->type;
		/* An audit's divergence is no commit's verdict. */
		if (s != NULL && strcmp(s, "divergence") == 0)
			continue;
		commits++;
		if (s != NULL && strcmp(s, "cached") == 0)
			s = "PASS";
		else
			s = ev->verdict;
		if (s != NULL && strcmp(s, "PASS") == 0)
			pass++;
		else if (strcmp(v, "PASS") == 0)
			v = s != NULL ? s : "-";
		ms += ev->duration_ms;
	}
	ev = report_at(e, i);
	s = ev->time;
	pad(b, s != NULL ? fs_vis(s) : "-", 20);
	s = ev->session;
	snprintf(sess, sizeof(sess), "%.12s", s != NULL ? s : "-");
	pad(b, fs_vis(sess), 12);
	pad(b, "range", mode_w);
	pad_verdict(b, fs_vis(v), 11, color);
	pad(b, timeutil_duration(dur, sizeof(dur), ms), 8);
	pad(b, "-", 10);
	buf_addf(b, "%zu commit%s, %zu passed", commits, commits == 1 ? "" :
	    "s", pass);
}

void
report_table(const struct events *e, FILE *fp, int color)
{
	struct buf	b = BUF_INIT;
	size_t		i, n, left = 0, w;

	if (e->n == 0) {
		fprintf(fp, "no verifications recorded yet\n");
		return;
	}
	w = mode_width(e);
	fprintf(fp, "%-20s %-12s %-*s %-11s %-8s %-10s %s\n", "TIME",
	    "SESSION", (int)w, "MODE", "VERDICT", "DURATION", "TREE",
	    "CHANGES");
	for (i = 0; i < e->n; i++) {
		if (left == 0 && (n = range_len(e, i)) > 0) {
			buf_reset(&b);
			range_row(e, i, n, &b, color, w);
			fprintf(fp, "%s\n", b.data);
			left = n;
		}
		buf_reset(&b);
		report_row(report_at(e, i), &b, color, w);
		log_mark(e, report_at(e, i), &b);
		fprintf(fp, "%s%s\n", left > 0 ? "  " : "", b.data);
		if (left > 0)
			left--;
	}
	buf_free(&b);
}

void
report_json(const struct events *e, FILE *fp)
{
	struct buf	b = BUF_INIT;
	struct json	j;
	size_t		i;

	for (i = 0; i < e->n; i++) {
		buf_reset(&b);
		json_init(&j, &b);
		json_value(&j, report_at(e, i)->v);
		fprintf(fp, "%s\n", b.data);
	}
	buf_free(&b);
}
