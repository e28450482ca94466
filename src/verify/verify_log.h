/*
 * The log of a run of forge verify (runlog.h), fed by capture.h.
 *
 *	verify_log_open(r);	after the options: from here on, what the
 *				steps and forge write is kept too (unless
 *				forge.logSize is 0, or it cannot be)
 *	sp.out = verify_log_out(r); sp.err = verify_log_err(r);
 *				in a copy, what they write names the
 *				working tree's paths, not the copy's
 *				(forge.mapPaths); the log keeps them as
 *				written
 *	verify_log_sync(r);	after each step
 *	verify_log_announce(r);	a run that did not pass: the line that
 *				shows its output again (forge show)
 *	verify_log_close(r, keep);	last: kept, or with keep 0 dropped
 *				(said why if it cannot be kept).
 *				r->log.id names it.
 */
#ifndef VERIFY_LOG_H
#define VERIFY_LOG_H

struct run;

void	verify_log_open(struct run *);
int	verify_log_out(struct run *);
int	verify_log_err(const struct run *);
void	verify_log_sync(struct run *);
void	verify_log_announce(struct run *);
void	verify_log_close(struct run *, int);

#endif /* VERIFY_LOG_H */
