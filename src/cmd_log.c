/* forge log: the timeline of verifications, as a table or as JSON. */
#include "config.h"

#include <err.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "color.h"
#include "context.h"
#include "forge.h"
#include "fs_vis.h"
#include "json.h"
#include "report.h"

struct log_opts {
	long long	 n;
	const char	*session;
	int		 json;
};

static int	log_count(void *, const char *);

/* -s and -j work too, though nothing lists them. */
static const struct cmd_opt log_opts[] = {
	CMD_CALL(NULL, 'n', required_argument, "count", NULL, log_count, 0,
	    "the last count events (20)"),
	CMD_STRING("session", 's', "id", offsetof(struct log_opts, session),
	    CMD_UNLISTED, "only the events of that session"),
	CMD_FLAG("json", 'j', offsetof(struct log_opts, json), 1,
	    CMD_UNLISTED, "the events themselves, one JSON object a line"),
	CMD_END
};

static int	cmd_log(int, char **);

const struct cmd_entry cmd_log_entry = {
	"log",
	"",
	"Show the last events of the timeline: time, session, mode, verdict,\n"
	"duration, tree and changes.\n",
	log_opts,
	cmd_log
};

static int
log_count(void *opts, const char *arg)
{
	struct log_opts	*o = opts;
	const char	*e = NULL;

	o->n = strtonum(arg, 0, 1000000000, &e);
	if (e != NULL) {
		warnx("-n %s: %s", fs_vis(arg), e);
		return -1;
	}
	return 0;
}

static int
cmd_log(int argc, char **argv)
{
	struct context	 ctx;
	struct events	 evs;
	struct log_opts	 o = { 20, NULL, 0 };
	int		 n, st;

	switch (n = cmd_parse(&cmd_log_entry, argc, argv, &o)) {
	case CMD_HELP:
		cmd_help(&cmd_log_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	if (n < argc) {
		cmd_usage(&cmd_log_entry);
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	report_load(&evs, &ctx.state, o.session, (size_t)o.n);
	if (o.json)
		report_json(&evs, stdout);
	else
		report_table(&evs, stdout, color_want(ctx.cfg.color,
		    STDOUT_FILENO));
	report_free(&evs);
	context_close(&ctx);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return EXIT_FORGE;
	}
	return 0;
}
