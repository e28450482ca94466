/* forge breaker: show the circuit breaker, or close it (reset). */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "breaker.h"
#include "cmd.h"
#include "context.h"
#include "event.h"
#include "forge.h"
#include "timeutil.h"

static int	cmd_breaker(int, char **);

const struct cmd_entry cmd_breaker_entry = {
	"breaker",
	"[show | reset]",
	"Show the circuit breaker, or close it: reset sets the streak to zero\n"
	"and records who did it (FORGE_SESSION) and when.\n",
	NULL,
	cmd_breaker
};

static int
cmd_breaker(int argc, char **argv)
{
	struct context	 ctx;
	struct state_txn tx;
	struct breaker	 b;
	struct buf	 ev = BUF_INIT;
	struct json	 j;
	char		 now[RFC3339_LEN];
	int		 n, reset, st, was_open, streak, ret = 0;

	switch (n = cmd_parse(&cmd_breaker_entry, argc, argv, NULL)) {
	case CMD_HELP:
		cmd_help(&cmd_breaker_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	argc -= n;
	argv += n;
	if (argc > 1 || (argc == 1 && strcmp(argv[0], "reset") != 0 &&
	    strcmp(argv[0], "show") != 0)) {
		cmd_usage(&cmd_breaker_entry);
		return EXIT_USAGE;
	}
	reset = argc == 1 && strcmp(argv[0], "reset") == 0;
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	if (state_begin(&ctx.state, &tx) == -1) {
		context_close(&ctx);
		return EXIT_FORGE;
	}
	breaker_copy(&b, &tx.b);
	was_open = b.open;
	streak = b.streak;
	if (!reset)
		state_end(&ctx.state, &tx);
	else {
		breaker_reset(&tx.b);
		json_init(&j, &ev);
		state_event_begin(&j, "breaker-reset", timeutil_rfc3339(now,
		    time(NULL)));
		json_key(&j, EVENT_WAS_OPEN);
		json_bool(&j, was_open);
		json_key(&j, EVENT_STREAK_WAS);
		json_int(&j, streak);
		json_close(&j, '}');
		buf_addc(&ev, '\n');
		if (state_commit(&ctx.state, &tx, &ev) == -1)
			ret = EXIT_FORGE;
	}
	if (reset && ret == 0)
		printf("breaker: closed (it was %s, streak %d)\n",
		    was_open ? "open" : "closed", streak);
	else if (!reset)
		printf("breaker: %s (streak %d of %d)\n", b.open ? "OPEN" :
		    "closed", b.streak, ctx.cfg.threshold);
	buf_free(&ev);
	breaker_free(&b);
	context_close(&ctx);
	return ret;
}
