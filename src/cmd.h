/*
 * The subcommands.  Each cmd_*.c file holds one and exports its entry
 * point here; main.c dispatches on the name.  An entry point gets the
 * arguments after the subcommand's name (argv[0] is the name itself) and
 * returns the exit status; it may also end the process itself, through
 * cleanup_exit(), when a signal must be re-raised.
 */
#ifndef CMD_H
#define CMD_H

struct cmd {
	const char	*name;
	int		(*run)(int, char **);
	const char	*usage;
};

int	cmd_verify(int, char **);
int	cmd_gc(int, char **);
int	cmd_log(int, char **);
int	cmd_status(int, char **);
int	cmd_breaker(int, char **);

extern const struct cmd	cmds[];

/* forge verify's command line, parsed (exposed for tests). */
struct verify_opts {
	int		 isolated;	/* -1: as configured; 0; 1 */
	int		 check;		/* --no-check clears it */
	int		 keep;
	int		 verbose;
	int		 exit_verdict;	/* --exit=verdict */
	long long	 timeout_ms;	/* -1: as configured */
	const char	*change;	/* --change[=BASE]: the base */
	char		**argv;		/* COMMAND [ARG...], or NULL */
};

int	verify_parse(int, char **, struct verify_opts *);
/* Print a usage line for a command to stderr. */
void	cmd_usage(const char *);

#endif /* CMD_H */
