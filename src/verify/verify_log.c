/* A run's output and forge's own lines for it, kept for forge show. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "forgedir.h"
#include "runlog.h"
#include "verify_int.h"
#include "verify_log.h"
#include "xmalloc.h"

void
verify_log_open(struct run *r)
{
	const struct settings	*cfg = &r->ctx->cfg;
	char			*logs;
	int			 ret;

	if (cfg->log_size <= 0)
		return;
	logs = forgedir_logs(r->ctx->repo.common);
	ret = runlog_open(&r->log, logs, cfg->log_size, cfg->log_total);
	free(logs);
	if (ret == -1)
		return;
	if (capture_start(&r->cap, &r->log, 0) == -1) {
		(void)runlog_close(&r->log, 0);
		return;
	}
	r->have_log = 1;
}

/*
 * A copy's paths in what the steps write are the working tree's on the
 * way out (forge.mapPaths), so that a file:line opens the user's file,
 * not one that the next run overwrites; the log keeps them as written.
 * The steps know the copy by one name: their PWD, which getcwd(3) gives
 * too, as the run directory is made under TMPDIR resolved (rundir.h).
 */
static void
map_copy(struct run *r)
{
	/* (An audit's capture passes nothing on: nothing to map.) */
	if (!r->have_log || r->cap.quiet || !r->mode.isolated ||
	    !r->copy.have_snap || !r->ctx->cfg.map_paths ||
	    (r->copy.mapped != NULL &&
	    strcmp(r->copy.mapped, r->copy.snap.copy) == 0))
		return;
	if (capture_map(&r->cap, r->copy.snap.copy, r->ctx->repo.top) == -1)
		return;
	free(r->copy.mapped);
	r->copy.mapped = xstrdup(r->copy.snap.copy);
}

int
verify_log_out(struct run *r)
{
	map_copy(r);
	return r->have_log ? capture_out(&r->cap) : 0;
}

int
verify_log_err(const struct run *r)
{
	return r->have_log ? capture_err(&r->cap) : 0;
}

void
verify_log_sync(struct run *r)
{
	if (r->have_log)
		capture_sync(&r->cap);
}

/*
 * What scrolled away, or a hook's terminal lost: one line to get it
 * back, just above the verdict's, which stays the last (gates read it).
 * Not in the log it names.
 */
void
verify_log_announce(struct run *r)
{
	if (!r->have_log || r->res.verdict == VERDICT_PASS)
		return;
	fprintf(capture_stderr(&r->cap), "forge: its output is kept: forge "
	    "show %s\n", r->log.id);
}

void
verify_log_close(struct run *r, int keep)
{
	if (!r->have_log)
		return;
	capture_stop(&r->cap);
	(void)runlog_close(&r->log, keep);
	r->have_log = 0;
	free(r->copy.mapped);
	r->copy.mapped = NULL;
}
