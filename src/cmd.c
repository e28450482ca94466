/* The command table, and the usage and help printed from it. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "forge.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_verify_entry,
	&cmd_status_entry,
	&cmd_log_entry,
	&cmd_breaker_entry,
	&cmd_gc_entry,
	&cmd_hook_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; cmd_table[i] != NULL; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

/* "usage: forge name synopsis", continuation lines indented under it. */
static void
synopsis(FILE *f, const char *lead, const struct cmd_entry *c)
{
	const char	*p;
	size_t		 indent = strlen(lead) + strlen("forge ") +
			    strlen(c->name) + 1;

	fprintf(f, "%sforge %s%s", lead, c->name, *c->usage != '\0' ? " " :
	    "");
	for (p = c->usage; *p != '\0'; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", (int)indent, "");
	}
	fputc('\n', f);
}

void
cmd_usage(const struct cmd_entry *c)
{
	size_t	i;

	if (c != NULL) {
		synopsis(stderr, "usage: ", c);
		return;
	}
	for (i = 0; cmd_table[i] != NULL; i++)
		synopsis(stderr, i == 0 ? "usage: " : "       ", cmd_table[i]);
	fprintf(stderr, "       forge --help | --version\n");
}

static void
exit_statuses(void)
{
	printf("\nExit status: 0 passed; the failing step's status (126, "
	    "127, 128+N);\n124 timed out; 125 forge could not verify; %d "
	    "usage; %d breaker open.\nWith --exit=verdict: 0 PASS, 1 FAIL, "
	    "124, 125, 128+N.  See forge(1).\n", EXIT_USAGE, EXIT_BREAKER);
}

void
cmd_help(const struct cmd_entry *c)
{
	size_t	i;

	if (c != NULL) {
		synopsis(stdout, "usage: ", c);
		printf("\n%s", c->about);
		if (c->options != NULL)
			printf("\n%s", c->options);
		if (c == &cmd_verify_entry)
			exit_statuses();
		return;
	}
	for (i = 0; cmd_table[i] != NULL; i++)
		synopsis(stdout, i == 0 ? "usage: " : "       ", cmd_table[i]);
	printf("       forge --help | --version\n\n%s", cmd_verify_entry.about);
	for (i = 0; cmd_table[i] != NULL; i++)
		if (cmd_table[i]->options != NULL)
			printf("\n%s:\n%s", cmd_table[i]->name,
			    cmd_table[i]->options);
	exit_statuses();
	printf("forge COMMAND --help shows one command's help.\n");
}
