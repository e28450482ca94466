/*
 * Reading the timeline back for people: forge log and forge status.
 *
 *	struct events e;
 *	report_load(&e, &state, session_or_NULL, max);
 *						the last max events
 *	report_table(&e, stdout, color);	the verdicts in colour
 *						if color (color.h)
 *	report_free(&e);
 *
 * A run whose output is kept (runlog.h) has "[log ID]" at the end of
 * its row: forge show ID prints it.
 *
 * The struct owns the parsed events, oldest first.  The timeline is read
 * from its end, and only as far back as the last max events (of that
 * session) go.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "event.h"
#include "json.h"
#include "state.h"

struct events {
	struct event	 *v;		/* oldest first */
	size_t		  n;		/* held */
	size_t		  max;
	const char	 *session;
	char		 *logs;		/* where runs' logs are kept */
};

void	report_load(struct events *, struct state *, const char *, size_t);
/* The i-th held event, oldest first. */
const struct event *report_at(const struct events *, size_t);
void	report_table(const struct events *, FILE *, int);
void	report_json(const struct events *, FILE *);
void	report_free(struct events *);
/* One table row for an event, its mode mode_w wide (exposed for
 * tests).  The mode column is EVENT_MODE_WIDTH wide, or as wide as the
 * widest mode the table shows. */
#define EVENT_MODE_WIDTH	11	/* "incremental" */
void	report_row(const struct event *, struct buf *, int, size_t);
/*
 * The mode forge log and forge status show for an event, NULL if it has
 * none: its "mode", and with "incremental" true, an incremental copy of
 * the staged tree or of a commit is "staged, incremental" or "rev,
 * incremental" (a worktree's is "incremental" already).  Composed in
 * buf (len bytes) where it must be; not escaped (fs_vis.h).
 */
const char *report_mode(const struct event *, char *, size_t);

#endif /* REPORT_H */
