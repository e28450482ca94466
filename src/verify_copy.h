/*
 * The copy a run of forge verify works in (verify_int.h), from before the
 * steps to after them.  cmd_verify.c calls, in this order:
 *
 *	if (tmpdir_in_tree(&repo) == -1)	TMPDIR would be copied into
 *		refuse				the copy: said, before anything
 *	claim(r);			a parked copy to reuse, if there is
 *					one (r->reused, r->rd)
 *	if (make_copy(r, verbose) == -1)	built (or brought up to date)
 *		...				and proved; said why not
 *	skip_setup(r, o);		an incremental copy's setup steps
 *					marked skip, if they ran as they are
 *	verbose_phases(&r->snap);	--verbose: where the time went
 *	... the steps ...
 *	fetch_results(r);		a clone's new refs, brought back
 *	finish(r, keep);		kept, parked or removed
 *
 * unclaim(r) puts a claimed copy back as it was parked, when a cached
 * verdict means it is not needed.  What they make (the snapshot, the
 * refs) is the run's, freed with it.
 */
#ifndef VERIFY_COPY_H
#define VERIFY_COPY_H

struct repo;
struct run;
struct snapshot;
struct verify_opts;

int	tmpdir_in_tree(const struct repo *);
void	claim(struct run *);
int	make_copy(struct run *, int);
void	skip_setup(struct run *, const struct verify_opts *);
void	verbose_phases(const struct snapshot *);
void	fetch_results(struct run *);
void	unclaim(struct run *);
void	finish(struct run *, int);

#endif /* VERIFY_COPY_H */
