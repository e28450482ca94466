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
	struct context		 ctx;
	int			 ch, flags = JOURNAL_VERBOSE, n, orphans, st;
	int			 ret = 0;

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
	/* Registrations of forge's whose copy went some other way. */
	if (journal_orphans(ctx.repo.common, flags, &orphans) == -1)
		ret = EXIT_FORGE;
	if (!(flags & JOURNAL_DRY_RUN) && n > 0 &&
	    context_reclaimed(&ctx, n) == -1)
		ret = EXIT_FORGE;
	if (n == 0 && orphans == 0)
		printf("%s\n", flags & JOURNAL_DRY_RUN ? "nothing to remove" :
		    "nothing removed");
	context_close(&ctx);
	return ret;
}
