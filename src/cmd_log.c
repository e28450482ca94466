/* forge log: the timeline of verifications, as a table or as JSON. */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "color.h"
#include "context.h"
#include "forge.h"
#include "fsutil.h"
#include "json.h"
#include "report.h"

static int	cmd_log(int, char **);

const struct cmd_entry cmd_log_entry = {
	"log",
	"[-n count] [--session id] [--json]",
	"Show the last events of the timeline: time, session, mode, verdict,\n"
	"duration, tree and changes.\n",
	"  -n count            the last count events (20)\n"
	"      --session id    only the events of that session\n"
	"      --json          the events themselves, one JSON object a line\n",
	cmd_log
};

static const struct option longopts[] = {
	{ "json",	no_argument,		NULL, 'j' },
	{ "session",	required_argument,	NULL, 's' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

static int
cmd_log(int argc, char **argv)
{
	struct context	 ctx;
	struct events	 evs;
	const char	*session = NULL, *e = NULL;
	long long	 n = 20;
	int		 ch, json = 0, st;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+n:js:h", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'n':
			n = strtonum(optarg, 0, 1000000000, &e);
			if (e != NULL) {
				warnx("-n %s: %s", fs_vis(optarg), e);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 's':
			session = optarg;
			break;
		case 'h':
			cmd_help(&cmd_log_entry);
			return 0;
		default:
			cmd_usage(&cmd_log_entry);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cmd_usage(&cmd_log_entry);
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	events_load(&evs, &ctx.state, session, (size_t)n);
	if (json)
		events_print_json(&evs, stdout);
	else
		events_print_table(&evs, stdout, color_want(ctx.cfg.color,
		    STDOUT_FILENO));
	events_free(&evs);
	context_close(&ctx);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return EXIT_FORGE;
	}
	return 0;
}
