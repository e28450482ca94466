/*
 * The subcommands.  Each cmd_*.c file holds one and exports its entry:
 * its name, the operands of its synopsis, what it does and its table of
 * options side by side with the function that runs it.  main.c
 * dispatches on the name.
 *
 * A command's options are declared once, one struct cmd_opt a row, in
 * the order its help lists them: getopt_long's options, the synopsis
 * ("forge name [--a | --b] [--c arg] operands"), the help's option lines
 * and the parse all come from the rows, so none of them can say what
 * another does not (the manual page is the other copy).
 *
 *	static const struct cmd_opt opts[] = {
 *		CMD_FLAG("json", 0, offsetof(struct o, json), 1, 0,
 *		    "one JSON object"),
 *		CMD_END
 *	};
 *	struct o o = { defaults };
 *	switch (n = cmd_parse(&cmd_x_entry, argc, argv, &o)) {
 *	case -1:	a usage error, said: return EXIT_USAGE
 *	case CMD_HELP:	-h or --help: cmd_help(&cmd_x_entry), return 0
 *	}
 *	... argv + n: the operands ...
 *
 * Every command takes -h and --help, which are not rows.  A row's
 * strings are static; cmd_parse() allocates nothing that outlives it,
 * and what a CMD_STRING row sets points into argv.
 *
 * An exec function gets the arguments after "forge" (argv[0] is the
 * command's name) and returns the exit status; it may also end the
 * process itself, through cleanup_exit(), when a signal must be
 * re-raised.
 */
#ifndef CMD_H
#define CMD_H

#include <stddef.h>
#include <getopt.h>

/* What a row does with its option. */
enum cmd_opt_type {
	CMD_OPT_END,		/* the row that ends a table */
	CMD_OPT_SET,		/* the int at off becomes val */
	CMD_OPT_BIT,		/* val's bits are set in the int at off */
	CMD_OPT_STRING,		/* the const char * at off points to the
				   argument */
	CMD_OPT_FN		/* fn(opts, argument or NULL) does it: -1
				   if the argument is bad (said why) */
};

/* Row flags. */
#define CMD_OR		0x01	/* an alternative to the row before it:
				   the synopsis shows [--a | --b] */
#define CMD_BREAK	0x02	/* the synopsis goes on to a new line
				   before this row */
#define CMD_EQ		0x04	/* a required argument is shown attached,
				   --name=arg (getopt takes both forms) */
#define CMD_UNLISTED	0x08	/* the letter works, but help shows only
				   the name */

struct cmd_opt {
	const char	*name;		/* --name, or NULL */
	int		 letter;	/* -l, or 0; an optional argument is
					   never the letter's */
	int		 arg;		/* no_argument, required_argument or
					   optional_argument (getopt.h) */
	const char	*argname;	/* the argument in the synopsis */
	const char	*helparg;	/* and in the help; NULL: argname */
	enum cmd_opt_type type;
	size_t		 off;		/* offsetof the field it sets */
	int		 val;		/* CMD_OPT_SET, CMD_OPT_BIT */
	int		(*fn)(void *, const char *);	/* CMD_OPT_FN */
	int		 flags;		/* CMD_OR, ... */
	const char	*help;		/* its help, lines apart by '\n' */
};

/* No argument: the int at off becomes val. */
#define CMD_FLAG(name, letter, off, val, flags, help)			\
	{ (name), (letter), no_argument, NULL, NULL, CMD_OPT_SET,	\
	    (off), (val), NULL, (flags), (help) }
/* No argument: val's bits are set in the int at off. */
#define CMD_BITS(name, letter, off, val, flags, help)			\
	{ (name), (letter), no_argument, NULL, NULL, CMD_OPT_BIT,	\
	    (off), (val), NULL, (flags), (help) }
/* A required argument, which the const char * at off points to. */
#define CMD_STRING(name, letter, argname, off, flags, help)		\
	{ (name), (letter), required_argument, (argname), NULL,		\
	    CMD_OPT_STRING, (off), 0, NULL, (flags), (help) }
/* fn decides: an argument of kind arg (no_argument: NULL). */
#define CMD_CALL(name, letter, arg, argname, helparg, fn, flags, help)	\
	{ (name), (letter), (arg), (argname), (helparg), CMD_OPT_FN,	\
	    0, 0, (fn), (flags), (help) }
#define CMD_END								\
	{ NULL, 0, 0, NULL, NULL, CMD_OPT_END, 0, 0, NULL, 0, NULL }

/* cmd_parse(): -h or --help was given. */
#define CMD_HELP	(-2)

struct cmd_entry {
	const char		*name;
	const char		*usage;		/* the synopsis's operands,
						   after the options ("\n"
						   first: on a line of their
						   own) */
	const char		*about;		/* what it does, a few lines */
	const struct cmd_opt	*opts;		/* its options, or NULL */
	int			(*exec)(int, char **);
};

extern const struct cmd_entry	cmd_verify_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_log_entry;
extern const struct cmd_entry	cmd_show_entry;
extern const struct cmd_entry	cmd_breaker_entry;
extern const struct cmd_entry	cmd_gc_entry;
extern const struct cmd_entry	cmd_hook_entry;

/* Every command, in the manual's order; NULL-terminated. */
extern const struct cmd_entry *const	cmd_table[];

const struct cmd_entry	*cmd_find(const char *);
/* The synopsis on stderr: of one command, or (NULL) of all. */
void	cmd_usage(const struct cmd_entry *);
/* The full help on stdout: of one command, or (NULL) of forge. */
void	cmd_help(const struct cmd_entry *);
/* Parse a command's options into opts, up to the first operand (the
 * first word that is not an option, or the one after "--"): its index,
 * CMD_HELP (nothing after -h or --help is looked at), or -1 for a usage
 * error (said; the synopsis too where getopt_long found it). */
int	cmd_parse(const struct cmd_entry *, int, char **, void *);

#endif /* CMD_H */
