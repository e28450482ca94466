/* forge gc: remove copies left behind by runs that died, or were kept. */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "context.h"
#include "forge.h"
#include "gitcmd.h"
#include "journal.h"

static const struct option longopts[] = {
	{ "dry-run",	no_argument,	NULL, 'n' },
	{ "kept",	no_argument,	NULL, 'k' },
	{ "help",	no_argument,	NULL, 'h' },
	{ NULL,		0,		NULL, 0 }
};

int
cmd_gc(int argc, char **argv)
{
	const char *const	 prune[] = { "worktree", "prune", NULL };
	struct context		 ctx;
	struct git		 g;
	int			 ch, flags = JOURNAL_VERBOSE, n, st, ret = 0;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+nkh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			flags |= JOURNAL_DRY_RUN;
			break;
		case 'k':
			flags |= JOURNAL_KEPT;
			break;
		case 'h':
			cmd_usage("gc");
			return 0;
		default:
			cmd_usage("gc");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cmd_usage("gc");
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, CTX_NORECLAIM)) != 0) {
		context_close(&ctx);
		return st;
	}
	if (journal_reclaim(ctx.repo.common, flags, &n) == -1)
		ret = EXIT_FORGE;
	if (!(flags & JOURNAL_DRY_RUN)) {
		/* Registrations whose directory went some other way. */
		repo_git(&ctx.repo, &g);
		g.index = NULL;
		if (git_run(&g, prune, 0, NULL, NULL, NULL) != 0) {
			warnx("git worktree prune failed: %s", git_error());
			ret = EXIT_FORGE;
		}
		if (n > 0 && context_reclaimed(&ctx, n) == -1)
			ret = EXIT_FORGE;
	}
	if (n == 0)
		printf("%s\n", flags & JOURNAL_DRY_RUN ? "nothing to remove" :
		    "nothing removed");
	context_close(&ctx);
	return ret;
}
