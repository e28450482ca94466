/* forge verify: parsed, then one run or a range, then the exit. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "cmd.h"
#include "verify_opts.h"
#include "context.h"
#include "forge.h"
#include "rundir.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "verify_audit.h"
#include "verify_copy.h"
#include "verify_int.h"
#include "verify_log.h"
#include "verify_range.h"

int	cmd_verify(int, char **);

const struct cmd_entry cmd_verify_entry = {
	"verify",
	"\n[--] [command [argument ...]]",
	"Verify runs command (or the forge.verify steps) and records the "
	"verdict.\nWith --isolated it runs in an ephemeral copy of the "
	"working state:\na detached worktree at HEAD, plus the uncommitted "
	"changes, plus the\nuntracked files git does not ignore.  The copy "
	"is proved equal to the\nworking tree before anything runs, and "
	"removed afterwards.  With --staged\nthe copy is HEAD plus the index, "
	"what git commit would record; with\n--rev, that commit's tree, or "
	"each commit's of a range A..B in turn,\nin one copy carried from "
	"commit to commit.  With --clone the copy is a\nprivate clone: git "
	"in it cannot change the repository, and the\nbranches and tags it "
	"makes come back under refs/forge/runs/<run>/.\n",
	verify_options,
	cmd_verify
};

int
cmd_verify(int argc, char **argv)
{
	struct verify_opts	 o;
	struct context		 ctx;
	struct run		 r;
	int			 st;

	if (verify_opts_parse(argc, argv, &o) == -1)
		return EXIT_USAGE;
	if (o.help) {
		cmd_help(&cmd_verify_entry);
		return 0;
	}
	if (o.range)
		return verify_range(&o);
	memset(&r, 0, sizeof(r));
	r.start = time(NULL);
	r.start_ms = time_now_ms();
	r.ctx = &ctx;
	/* A commit's steps are those its tree configures, not the working
	 * tree's. */
	if ((st = context_open_at(&ctx, 0, o.staged ? ":" : o.rev)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	if ((st = verify_run_begin(&r, &o)) != 0 ||
	    (st = verify_run_gate(&r)) != 0) {
		verify_run_free(&r);
		context_close(&ctx);
		return st;
	}
	verify_log_open(&r);
	st = verify_run_prepare(&r, &o);
	if (st == 1 && verify_audit_due(&r, &o, 1))
		verify_audit(&r, &o);
	if (st == 1 && !r.diverged) {
		st = verify_run_replay(&r);
		verify_run_free(&r);
		context_close(&ctx);
		return st;
	}
	if (st == 1)
		verify_run_release(&r);
	else if (st == 0) {
		if (o.verbose && r.tree != NULL)
			fprintf(stderr, "forge: verifying tree %s (HEAD %s)\n",
			    r.tree, ctx.repo.head);
		verify_run_steps(&r);
		verify_copy_setup_hint(&r);
		if (verify_audit_due(&r, &o, 0))
			verify_audit(&r, &o);
	}
	verify_run_end(&r, &o);
	st = verify_result_exit(&r, o.exit_verdict);
	verify_run_free(&r);
	context_close(&ctx);
	if (r.verdict == VERDICT_INTERRUPTED && r.signo != 0) {
		/* Die of the signal, so whoever ran us sees the cause. */
		cleanup_run();
		fflush(NULL);
		sig_die(r.signo);
	}
	return st;
}
