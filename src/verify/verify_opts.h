/*
 * forge verify's command line, parsed (exposed for tests); its options
 * are the rows of verify_options[], in verify_opts.c.
 *
 *	struct verify_opts o;
 *	if (verify_opts_parse(argc, argv, &o) == -1)
 *		return EXIT_USAGE;	said why (an option it does not
 *					know: with the synopsis)
 *	if (o.help)
 *		... print the help ...
 *	... the settings read ...
 *	if (verify_opts_conflicts(&o, isolated, contain) == -1)
 *		return EXIT_USAGE;	what the settings add, said why
 *
 * argv is the command's own (argv[0] is "verify").  The struct borrows
 * from argv: o.argv, o.change and o.rev point into it, and must not
 * outlive it.
 */
#ifndef VERIFY_OPTS_H
#define VERIFY_OPTS_H

#include "cmd.h"

struct verify_opts {
	int		 isolated;	/* -1: as configured; 0; 1 */
	int		 clone;		/* -1: as configured; 0 --worktree;
					   1 --clone */
	int		 check;		/* --no-check clears it */
	int		 keep;
	int		 reuse;		/* -1: as configured; 0; 1 */
	int		 incremental;	/* -1: as configured; 0; 1 */
	int		 setup;		/* --setup: even in a set-up copy */
	int		 verbose;
	int		 exit_verdict;	/* --exit=verdict */
	int		 help;		/* -h, --help */
	long long	 timeout_ms;	/* -1: as configured */
	const char	*change;	/* --change[=BASE]: the base */
	int		 contain;	/* -1: as configured; 0; 1 */
	int		 no_network;	/* --no-network */
	char		**argv;		/* COMMAND [ARG...], or NULL */
	int		 staged;	/* --staged: HEAD and the index */
	const char	*rev;		/* --rev=REV: that commit's tree */
	int		 range;		/* ... and REV is a range, A..B:
					   each of its commits in turn */
	int		 keep_going;	/* --keep-going: past a failure */
	int		 first_parent;	/* --first-parent */
	int		 bisect;	/* --bisect: the first failure,
					   searched for */
	int		 jobs;		/* --jobs: commits at once (1) */
	int		 no_breaker;	/* --no-breaker */
	int		 cache;		/* -1: forge.cache; --cache 1;
					   --no-cache 0 */
	int		 audit;		/* -1: FORGE_AUDIT, forge.audit;
					   --audit 1; --no-audit 0 */
};

/* Its options, for its entry. */
extern const struct cmd_opt	verify_options[];

int	verify_opts_parse(int, char **, struct verify_opts *);
/*
 * Can the options be done together, the copy isolated or not and
 * contained or not (1, 0, or -1: not known yet)?  -1, said why, if not.
 * verify_opts_parse() asks with what the command line says; the run asks
 * again once the settings have said the rest.  Each conflict is found
 * as soon as it can be, with its one message.
 */
int	verify_opts_conflicts(const struct verify_opts *, int, int);

#endif /* VERIFY_OPTS_H */
