/* forge status: the circuit breaker, the last verdict, the last events. */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "context.h"
#include "forge.h"
#include "fsutil.h"
#include "report.h"
#include "timeutil.h"

static int	cmd_status(int, char **);

const struct cmd_entry cmd_status_entry = {
	"status",
	"",
	"Show the circuit breaker, the last verdict and the last few events.\n",
	NULL,
	cmd_status
};

static const struct option longopts[] = {
	{ "help",	no_argument,	NULL, 'h' },
	{ NULL,		0,		NULL, 0 }
};

struct last {
	struct buf	line;
	int		found;
	int		failed;		/* it was a FAIL */
};

/* From the end: the first verify event met is the last one. */
static int
last_verdict(const struct jv *ev, void *arg)
{
	struct last	*l = arg;
	const char	*type = jv_str(jv_get(ev, "event"));
	const char	*s;
	char		 d[32];

	if (type == NULL || strcmp(type, "verify") != 0)
		return 0;
	s = jv_str(jv_get(ev, "verdict"));
	buf_addf(&l->line, "%s", s != NULL ? fs_vis(s) : "?");
	l->failed = s != NULL && strcmp(s, "FAIL") == 0;
	s = jv_str(jv_get(ev, "time"));
	buf_addf(&l->line, " at %s", s != NULL ? fs_vis(s) : "?");
	s = jv_str(jv_get(ev, "mode"));
	buf_addf(&l->line, " (%s", s != NULL ? fs_vis(s) : "?");
	s = jv_str(jv_get(ev, "tree"));
	if (s != NULL)
		buf_addf(&l->line, ", tree %.12s", s);
	buf_addf(&l->line, ", %s)", duration_format(d, sizeof(d),
	    jv_num(jv_get(ev, "duration_ms"), 0)));
	if ((s = jv_str(jv_get(ev, "failed"))) != NULL)
		buf_addf(&l->line, ": %s", fs_vis(s));
	l->found = 1;
	return 1;
}

static int
cmd_status(int argc, char **argv)
{
	struct context	ctx;
	struct breaker	b;
	struct events	evs;
	struct last	last;
	int		ch, st;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			cmd_help(&cmd_status_entry);
			return 0;
		}
		cmd_usage(&cmd_status_entry);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		cmd_usage(&cmd_status_entry);
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	if (context_breaker(&ctx, &b) == -1) {
		context_close(&ctx);
		return EXIT_FORGE;
	}

	if (b.open)
		printf("breaker: OPEN since %s, after %d failed verifications "
		    "in a row; forge verify refuses to run until "
		    "'forge breaker reset'\n", b.opened_at != NULL ?
		    b.opened_at : "(unknown)", b.streak);
	else if (ctx.cfg.threshold == 0)
		printf("breaker: off (forge.breakerThreshold is 0); %d failed "
		    "in a row\n", b.streak);
	else
		printf("breaker: closed (streak %d of %d)\n", b.streak,
		    ctx.cfg.threshold);
	memset(&last, 0, sizeof(last));
	(void)state_events_back(&ctx.state, last_verdict, &last);
	/* A last verdict of FAIL says what failed: one line, one time. */
	if (b.last_fail != NULL && !last.failed)
		printf("last failure: %s at %s\n", fs_vis(b.last_fail),
		    b.last_fail_at != NULL ? b.last_fail_at : "?");
	printf("last verdict: %s\n", last.found ? last.line.data : "none");
	buf_free(&last.line);

	events_load(&evs, &ctx.state, NULL, 5);
	if (evs.n > 0) {
		printf("\n");
		events_print_table(&evs, stdout);
	}
	events_free(&evs);
	breaker_free(&b);
	context_close(&ctx);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return EXIT_FORGE;
	}
	return 0;
}
