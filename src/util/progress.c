/* A progress line on a terminal, for work that takes a while. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_vis.h"
#include "progress.h"
#include "timeutil.h"
#include "xmalloc.h"

static struct {
	char			*label;		/* NULL: none going */
	unsigned long long	 total;
	unsigned long long	 done;
	long long		 start_ms;
	long long		 drawn_ms;	/* last drawn; 0: never */
	long long		 delay_ms;
	int			 pct;		/* last drawn */
	int			 want;
} cur;

static long long
delay_ms(void)
{
	const char	*v = getenv("FORGE_TEST_PROGRESS_DELAY");
	const char	*e = NULL;
	long long	 n;

	if (v == NULL)
		return PROGRESS_DELAY_MS;
	n = strtonum(v, 0, 3600000, &e);
	return e == NULL ? n : PROGRESS_DELAY_MS;
}

int
progress_wanted(void)
{
	pid_t	fg;

	/* Only a terminal, and only while it shows us: a job in the
	 * background draws nothing over the shell's prompt. */
	if (!isatty(STDERR_FILENO))
		return 0;
	fg = tcgetpgrp(STDERR_FILENO);
	return fg == -1 || fg == getpgrp();
}

const char *
progress_git_delay(void)
{
	static char	buf[48];

	snprintf(buf, sizeof(buf), "%lld", (delay_ms() + 999) / 1000);
	return buf;
}

/* end: 0 while going, 1 at the end, 2 at an end short of the total. */
static void
draw(int end)
{
	unsigned long long	n = cur.done > cur.total ? cur.total :
				    cur.done;

	fprintf(stderr, "\rforge: %s: %3d%% (%llu/%llu)%s", fs_vis(cur.label),
	    cur.pct, n, cur.total, end == 1 ? ", done.\n" : end ? "\n" : "");
	fflush(stderr);
}

void
progress_start(const char *label, unsigned long long total)
{
	progress_end();
	memset(&cur, 0, sizeof(cur));
	cur.label = xstrdup(label);
	cur.total = total;
	cur.start_ms = timeutil_now_ms();
	cur.pct = -1;
	cur.delay_ms = delay_ms();
	cur.want = total > 0 && progress_wanted();
}

void
progress_update(unsigned long long done)
{
	long long	now;
	int		pct;

	if (cur.label == NULL || !cur.want)
		return;
	cur.done = done;
	pct = (int)((done > cur.total ? cur.total : done) * 100 / cur.total);
	if (pct == cur.pct)
		return;
	now = timeutil_now_ms();
	if (now - cur.start_ms < cur.delay_ms ||
	    (cur.drawn_ms != 0 && now - cur.drawn_ms < 100 && pct < 100))
		return;
	cur.pct = pct;
	cur.drawn_ms = now;
	draw(0);
}

void
progress_end(void)
{
	if (cur.label == NULL)
		return;
	/* Shown at all: finish the line; "done" only if it was. */
	if (cur.want && cur.drawn_ms != 0) {
		cur.pct = (int)((cur.done > cur.total ? cur.total :
		    cur.done) * 100 / cur.total);
		draw(cur.done >= cur.total ? 1 : 2);
	}
	free(cur.label);
	memset(&cur, 0, sizeof(cur));
}
