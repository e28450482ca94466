/*
 * The subcommands.  Each cmd_*.c file holds one and exports its entry:
 * its name, synopsis, what it does and its options side by side with the
 * function that runs it, so the synopsis exists once in the code (the
 * manual page is the other copy).  main.c dispatches on the name.
 *
 * An exec function gets the arguments after "forge" (argv[0] is the
 * command's name) and returns the exit status; it may also end the
 * process itself, through cleanup_exit(), when a signal must be
 * re-raised.  -h or --help prints cmd_help() and returns 0; a usage error
 * prints cmd_usage() and returns EXIT_USAGE.
 */
#ifndef CMD_H
#define CMD_H

struct cmd_entry {
	const char	*name;
	const char	*usage;		/* the synopsis after "forge name" */
	const char	*about;		/* what it does, a few lines */
	const char	*options;	/* one line per option, or NULL */
	int		(*exec)(int, char **);
};

extern const struct cmd_entry	cmd_verify_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_log_entry;
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

#endif /* CMD_H */
