/*
 * Definitions shared by every part of forge: the exit statuses that the
 * manual page documents, and the few limits that more than one file needs.
 */
#ifndef FORGE_H
#define FORGE_H

/* Exit statuses; forge(1) EXIT STATUS lists them all. */
#define EXIT_PASS	0	/* every step passed */
#define EXIT_USAGE	64	/* bad command line or configuration value */
#define EXIT_BREAKER	75	/* the circuit breaker is open: not run */
#define EXIT_TIMEOUT	124	/* the time limit passed, as timeout(1) */
#define EXIT_FORGE	125	/* forge itself could not verify */
#define EXIT_NOEXEC	126	/* the command could not be executed */
#define EXIT_NOTFOUND	127	/* the command was not found */

/* How long a signalled command may take to exit before SIGKILL. */
#define DEFAULT_GRACE_MS	5000

#endif /* FORGE_H */
