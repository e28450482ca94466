/* forge gc: remove copies left behind by runs that died, or were kept. */
#include "config.h"

#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clone.h"
#include "cmd.h"
#include "context.h"
#include "forge.h"
#include "forgedir.h"
#include "fs_vis.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "runlog.h"
#include "settings.h"
#include "xmalloc.h"

struct gc_opts {
	int	flags;		/* JOURNAL_DRY_RUN, JOURNAL_KEPT, ... */
	int	all_refs;	/* --refs */
};

static const struct cmd_opt gc_opts[] = {
	CMD_BITS("dry-run", 'n', offsetof(struct gc_opts, flags),
	    JOURNAL_DRY_RUN, 0, "only say what gc would do, refusals too"),
	CMD_BITS("kept", 'k', offsetof(struct gc_opts, flags), JOURNAL_KEPT, 0,
	    "the copies kept by --keep go too"),
	CMD_BITS("all", 'a', offsetof(struct gc_opts, flags), JOURNAL_KEPT |
	    JOURNAL_REUSABLE, CMD_OR,
	    "every copy forge keeps goes: kept and reusable"),
	CMD_FLAG("refs", 'r', offsetof(struct gc_opts, all_refs), 1, 0,
	    "the refs of every run that has ended go now"),
	CMD_END
};

static int	cmd_gc(int, char **);

const struct cmd_entry cmd_gc_entry = {
	"gc",
	"",
	"Remove the copies left by runs that are gone, ending what they left\n"
	"running, and forge's own worktree registrations whose copy is gone.\n"
	"Copies kept by --keep or parked by --reuse go once unused for\n"
	"forge.reuseExpiry (7d); the refs a clone's results came back as,\n"
	"once older than forge.refsExpiry (30 days).  The output of runs that\n"
	"died as it was being kept, and the oldest runs' past forge.logTotal.\n",
	gc_opts,
	cmd_gc
};

static void
report(const struct reclaim *rc, int flags, const struct strv *refs)
{
	size_t	i;

	for (i = 0; i < rc->kept.n; i++)
		printf("kept %s (forge gc --kept removes it)\n",
		    fs_vis(rc->kept.v[i]));
	for (i = 0; i < rc->reusable.n; i++)
		printf("reusable %s (forge gc --all removes it)\n",
		    fs_vis(rc->reusable.v[i]));
	for (i = 0; i < rc->n; i++)
		printf("%s %s (%s pid %ld%s)\n", flags & JOURNAL_DRY_RUN ?
		    "would remove" : "removed", fs_vis(rc->v[i].top),
		    rc->v[i].kept ? "kept by" : rc->v[i].reusable ?
		    "reusable, last used by" : "left by dead", rc->v[i].pid,
		    rc->v[i].expired ? ", unused past forge.reuseExpiry" : "");
	for (i = 0; i < rc->registrations.n; i++)
		printf("%s the registration %s\n", flags & JOURNAL_DRY_RUN ?
		    "would remove" : "removed", rc->registrations.v[i]);
	for (i = 0; i < rc->left.n; i++)
		warnx("%s: %s", rc->left.v[i], flags & JOURNAL_DRY_RUN ?
		    "forge gc would leave it in place" :
		    "left in place, forge gc will try again");
	for (i = 0; i < refs->n; i++)
		printf("%s %s\n", flags & JOURNAL_DRY_RUN ? "would remove" :
		    "removed", refs->v[i]);
	if (rc->n == 0 && rc->registrations.n == 0 && refs->n == 0)
		printf("%s\n", flags & JOURNAL_DRY_RUN ? "nothing to remove" :
		    "nothing removed");
}


static int
cmd_gc(int argc, char **argv)
{
	struct context		 ctx;
	struct reclaim		 rc;
	time_t			 before = 0;
	struct strv		 refs = STRV_INIT;
	struct gc_opts		 o = { 0, 0 };
	char			*logs;
	int			 n, flags, st, ret = 0;

	switch (n = cmd_parse(&cmd_gc_entry, argc, argv, &o)) {
	case CMD_HELP:
		cmd_help(&cmd_gc_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	if (n < argc) {
		cmd_usage(&cmd_gc_entry);
		return EXIT_USAGE;
	}
	flags = o.flags;
	if ((st = context_open(&ctx, CTX_NORECLAIM)) != 0) {
		context_close(&ctx);
		return st;
	}
	/* Kept and reusable copies expire alike: unused that long. */
	if (ctx.cfg.reuse_expiry_ms != REUSE_EXPIRY_NEVER)
		before = time(NULL) - (time_t)(ctx.cfg.reuse_expiry_ms / 1000);
	if (journal_reclaim(ctx.repo.common, flags, before, &rc) == -1)
		ret = EXIT_FORGE;
	/* Registrations of forge's whose copy went some other way. */
	if (journal_reclaim_orphans(ctx.repo.common, flags, &rc) == -1)
		ret = EXIT_FORGE;
	/* The refs a clone's results came back as (clone.h). */
	if (clone_refs_gc(ctx.repo.common, ctx.repo.common, o.all_refs ? 0 :
	    ctx.cfg.refs_expiry_ms, flags & JOURNAL_DRY_RUN ?
	    CLONE_GC_DRY_RUN : 0, &refs) == -1)
		ret = EXIT_FORGE;
	/* Logs of runs that died half-way, and the oldest past
	 * forge.logTotal: listed with the refs. */
	logs = forgedir_logs(ctx.repo.common);
	if (runlog_prune(logs, ctx.cfg.log_total, NULL, flags &
	    JOURNAL_DRY_RUN, &refs) == -1)
		ret = EXIT_FORGE;
	free(logs);
	report(&rc, flags, &refs);
	strv_free(&refs);
	if (!(flags & JOURNAL_DRY_RUN) && rc.n > 0 &&
	    context_reclaimed(&ctx, (int)rc.n) == -1)
		ret = EXIT_FORGE;
	journal_reclaim_free(&rc);
	context_close(&ctx);
	return ret;
}
