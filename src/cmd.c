/* The subcommand table, and the usage lines that mirror forge(1). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"

const struct cmd cmds[] = {
	{ "verify", cmd_verify,
	  "verify [--isolated | --in-place] [--no-check] [--keep]\n"
	  "\t[--timeout duration] [--change[=base]] [--verbose]\n"
	  "\t[--exit=verdict | status] [--] [command [argument ...]]" },
	{ "status", cmd_status, "status" },
	{ "log", cmd_log, "log [-n count] [--session id] [--json]" },
	{ "breaker", cmd_breaker, "breaker [show | reset]" },
	{ "gc", cmd_gc, "gc [--dry-run] [--kept]" },
	{ NULL, NULL, NULL }
};

void
cmd_usage(const char *name)
{
	const struct cmd	*c;

	for (c = cmds; c->name != NULL; c++)
		if (name == NULL || strcmp(c->name, name) == 0)
			fprintf(stderr, "%s forge %s\n", c == cmds ||
			    name != NULL ? "usage:" : "      ", c->usage);
}

