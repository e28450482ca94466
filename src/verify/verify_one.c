/* forge verify, one run: from the context opened to the exit status. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "context.h"
#include "forge.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "verify_audit.h"
#include "verify_copy.h"
#include "verify_int.h"
#include "verify_log.h"
#include "verify_one.h"
#include "verify_opts.h"

int
verify_one(const struct verify_opts *o)
{
	struct context		 ctx;
	struct run		 r;
	int			 st;

	memset(&r, 0, sizeof(r));
	r.res.start = time(NULL);
	r.res.start_ms = timeutil_now_ms();
	r.ctx = &ctx;
	/* A commit's steps are those its tree configures, not the working
	 * tree's. */
	if ((st = context_open_at(&ctx, 0, o->staged ? ":" : o->rev)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	if ((st = verify_run_begin(&r, o)) != 0 ||
	    (st = verify_run_gate(&r)) != 0) {
		verify_run_free(&r);
		context_close(&ctx);
		return st;
	}
	verify_log_open(&r);
	st = verify_run_prepare(&r, o);
	if (st == 1 && verify_audit_due(&r, o, 1))
		verify_audit(&r, o);
	if (st == 1 && !r.res.diverged) {
		st = verify_run_replay(&r);
		verify_run_free(&r);
		context_close(&ctx);
		return st;
	}
	if (st == 1)
		verify_run_release(&r);
	else if (st == 0) {
		if (o->verbose && r.res.tree != NULL)
			fprintf(stderr, "forge: verifying tree %s (HEAD %s)\n",
			    r.res.tree, ctx.repo.head);
		verify_run_steps(&r);
		verify_copy_setup_hint(&r);
		if (verify_audit_due(&r, o, 0))
			verify_audit(&r, o);
	}
	verify_run_end(&r, o);
	st = verify_result_exit(&r, o->exit_verdict);
	verify_run_free(&r);
	context_close(&ctx);
	if (r.res.verdict == VERDICT_INTERRUPTED && r.res.signo != 0) {
		/* Die of the signal, so whoever ran us sees the cause. */
		cleanup_run();
		fflush(NULL);
		sig_die(r.res.signo);
	}
	return st;
}
