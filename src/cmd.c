/* The command table, and each command's options: parsed, and shown. */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "forge.h"
#include "xmalloc.h"

/* Where the help's option lines put what an option does. */
#define HELP_COLUMN	22

const struct cmd_entry *const cmd_table[] = {
	&cmd_verify_entry,
	&cmd_status_entry,
	&cmd_log_entry,
	&cmd_show_entry,
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

/* An option's argument as the synopsis (or the help) shows it. */
static void
opt_arg(struct buf *b, const struct cmd_opt *o, const char *name)
{
	if (o->arg == optional_argument)
		buf_addf(b, "[=%s]", name);
	else if (o->arg == required_argument)
		buf_addf(b, "%c%s", o->flags & CMD_EQ ? '=' : ' ', name);
}

/* "[--a | --b] [--c arg] operands": the synopsis after "forge name". */
static void
synopsis_text(struct buf *b, const struct cmd_entry *c)
{
	const struct cmd_opt	*o;

	for (o = c->opts; o != NULL && o->type != CMD_OPT_END; o++) {
		if (o->flags & CMD_OR)
			buf_adds(b, " | ");
		else
			buf_adds(b, o == c->opts ? "[" : o->flags & CMD_BREAK ?
			    "\n[" : " [");
		if (o->name != NULL)
			buf_addf(b, "--%s", o->name);
		else
			buf_addf(b, "-%c", o->letter);
		opt_arg(b, o, o->argname);
		if (!(o[1].flags & CMD_OR))
			buf_addc(b, ']');
	}
	if (b->len > 0 && *c->usage != '\0' && *c->usage != '\n')
		buf_addc(b, ' ');
	buf_adds(b, c->usage);
}

/* "usage: forge name synopsis", continuation lines indented under it. */
static void
synopsis(FILE *f, const char *lead, const struct cmd_entry *c)
{
	struct buf	 b = BUF_INIT;
	const char	*p;
	size_t		 indent = strlen(lead) + strlen("forge ") +
			    strlen(c->name) + 1;

	synopsis_text(&b, c);
	fprintf(f, "%sforge %s%s", lead, c->name, b.len > 0 ? " " : "");
	for (p = b.data != NULL ? b.data : ""; *p != '\0'; p++) {
		fputc(*p, f);
		if (*p == '\n')
			fprintf(f, "%*s", (int)indent, "");
	}
	fputc('\n', f);
	buf_free(&b);
}

/* "  -l, --name=ARG      what it does", and its further lines under it. */
static void
option_lines(const struct cmd_entry *c)
{
	const struct cmd_opt	*o;
	struct buf		 b = BUF_INIT;
	const char		*p;
	int			 letter;

	for (o = c->opts; o != NULL && o->type != CMD_OPT_END; o++) {
		if (o->help == NULL)
			continue;
		buf_reset(&b);
		letter = o->letter != 0 && (!(o->flags & CMD_UNLISTED) ||
		    o->name == NULL);
		if (letter)
			buf_addf(&b, "  -%c%s", o->letter, o->name != NULL ?
			    ", " : "");
		else
			buf_adds(&b, "      ");
		if (o->name != NULL)
			buf_addf(&b, "--%s", o->name);
		opt_arg(&b, o, o->helparg != NULL ? o->helparg : o->argname);
		/* Too wide: what it does starts on the next line. */
		if (b.len + 2 > HELP_COLUMN)
			printf("%s\n%*s", b.data, HELP_COLUMN, "");
		else
			printf("%-*s", HELP_COLUMN, b.data);
		for (p = o->help; *p != '\0'; p++) {
			putchar(*p);
			if (*p == '\n')
				printf("%*s", HELP_COLUMN, "");
		}
		putchar('\n');
	}
	buf_free(&b);
}

static int
has_options(const struct cmd_entry *c)
{
	return c->opts != NULL && c->opts[0].type != CMD_OPT_END;
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
		if (has_options(c)) {
			printf("\n");
			option_lines(c);
		}
		if (c == &cmd_verify_entry)
			exit_statuses();
		return;
	}
	for (i = 0; cmd_table[i] != NULL; i++)
		synopsis(stdout, i == 0 ? "usage: " : "       ", cmd_table[i]);
	printf("       forge --help | --version\n\n%s", cmd_verify_entry.about);
	for (i = 0; cmd_table[i] != NULL; i++)
		if (has_options(cmd_table[i])) {
			printf("\n%s:\n", cmd_table[i]->name);
			option_lines(cmd_table[i]);
		}
	exit_statuses();
	printf("forge COMMAND --help shows one command's help.\n");
}

/* getopt_long's view of the rows: long options whose value is 256 plus
 * the row's index, and the letters, "+" first (the first operand ends
 * the options: a command's options are its own). */
static size_t
getopt_view(const struct cmd_opt *opts, struct option **lo, char **so)
{
	size_t	i, n = 0, nl = 0, ns = 0;

	while (opts != NULL && opts[n].type != CMD_OPT_END)
		n++;
	*lo = xcalloc(n + 2, sizeof(**lo));
	*so = xcalloc(2 * n + 3, 1);
	(*so)[ns++] = '+';
	for (i = 0; i < n; i++) {
		if (opts[i].name != NULL) {
			(*lo)[nl].name = opts[i].name;
			(*lo)[nl].has_arg = opts[i].arg;
			(*lo)[nl++].val = 256 + (int)i;
		}
		if (opts[i].letter != 0) {
			(*so)[ns++] = (char)opts[i].letter;
			if (opts[i].arg == required_argument)
				(*so)[ns++] = ':';
		}
	}
	(*lo)[nl].name = "help";
	(*lo)[nl].val = 'h';
	(*so)[ns] = 'h';
	return n;
}

/* What the row says to do, with its argument; -1 if that is bad. */
static int
opt_do(const struct cmd_opt *o, void *opts, const char *arg)
{
	char	*field = (char *)opts + o->off;

	switch (o->type) {
	case CMD_OPT_SET:
		*(int *)(void *)field = o->val;
		break;
	case CMD_OPT_BIT:
		*(int *)(void *)field |= o->val;
		break;
	case CMD_OPT_STRING:
		*(const char **)(void *)field = arg;
		break;
	case CMD_OPT_FN:
		return o->fn(opts, arg);
	case CMD_OPT_END:
		break;
	}
	return 0;
}

int
cmd_parse(const struct cmd_entry *c, int argc, char **argv, void *opts)
{
	struct option	*lo;
	char		*so;
	size_t		 i, n;
	int		 ch, ret = 0;

	n = getopt_view(c->opts, &lo, &so);
	optind = 0;	/* GNU: start afresh, as tests parse repeatedly */
	while (ret == 0 && (ch = getopt_long(argc, argv, so, lo, NULL)) !=
	    -1) {
		if (ch == 'h') {
			ret = CMD_HELP;
			break;
		}
		for (i = 0; i < n; i++)
			if (ch == 256 + (int)i || (ch < 256 &&
			    ch == c->opts[i].letter))
				break;
		if (i == n) {
			/* getopt_long said what it was. */
			cmd_usage(c);
			ret = -1;
		} else if (opt_do(&c->opts[i], opts, optarg) == -1)
			ret = -1;
	}
	free(lo);
	free(so);
	return ret != 0 ? ret : optind;
}
