/*
 * The copy a run of forge verify works in (verify_int.h), from before the
 * steps to after them.  verify_run.c calls, in this order:
 *
 *	if (verify_copy_tmpdir(&repo) == -1)
 *		...		TMPDIR is in the working tree, and the copy
 *				would hold itself: said, before anything
 *	verify_copy_claim(r);	a parked copy to reuse, if there is one
 *				(r->reused, r->rd, r->claim), as reuse.h
 *				says which; none if the copy is known not
 *				to be parked (r->not_reused: a sparse
 *				checkout)
 *	if (verify_copy_make(r, verbose) == -1)
 *		...		not built (or brought up to date) and proved:
 *				said why.  A claimed copy found not to be
 *				parked (r->not_reused) is put back as it
 *				stands, and a fresh one made; one that could
 *				not be brought up to date is removed, and a
 *				fresh one made
 *	verify_copy_skip_setup(r, setup);	an incremental copy's setup
 *				steps are marked skip, if they ran as they
 *				are on the same inputs (forge.setupInputs),
 *				unless setup (--setup)
 *	verify_copy_phases(&r->snap);	--verbose: where the time went
 *	verify_copy_setup_begin(r);	an incremental copy whose setup
 *				steps are to run: its files as they are
 *	... the setup steps ...
 *	verify_copy_setup_end(r);	once they passed: the paths they
 *				changed that git does not ignore
 *				(r->setup_changed), which the next run's
 *				copy puts back: so its setup runs again
 *	... the other steps ...
 *	verify_copy_setup_hint(r);	a step failed while setup did not
 *				run: names a file it reads that changed
 *	verify_copy_results(r);	what a clone's command committed, brought
 *				back as refs (r->refs)
 *	verify_copy_finish(r, keep);	kept (--keep, forge.keep), parked
 *				for the next run, or removed
 *
 * verify_copy_setup(r, as_run) says what the setup steps made of the
 * copy (the caller frees): the steps, or "" if any of them did not run
 * to success (as_run), or would be (!as_run).
 *
 * verify_copy_unclaim(r) puts a claimed copy back as it was parked, its
 * last use unchanged, when a cached verdict means it is not needed: -1
 * if it went instead (said).  What these make (r->snap, r->refs,
 * r->had_setup, r->claim) is the run's, freed with it.
 */
#ifndef VERIFY_COPY_H
#define VERIFY_COPY_H

struct repo;
struct run;
struct snapshot;

int	verify_copy_tmpdir(const struct repo *);
void	verify_copy_claim(struct run *);
int	verify_copy_make(struct run *, int);
void	verify_copy_skip_setup(struct run *, int);
/* Setup runs again where a record (had) was not what the run wants:
 * one line says why, if there is more to say than that it failed. */
void	verify_copy_setup_why(const struct run *, const char *);
void	verify_copy_setup_begin(struct run *);
void	verify_copy_setup_end(struct run *);
void	verify_copy_setup_hint(struct run *);
void	verify_copy_phases(const struct snapshot *);
void	verify_copy_results(struct run *);
int	verify_copy_unclaim(struct run *);
char	*verify_copy_setup(const struct run *, int);
/* Does a setup record (had, NULL: none) say what want says, but for the
 * part that is only for a hint? */
int	verify_copy_setup_same(const char *, const char *);
void	verify_copy_finish(struct run *, int);

#endif /* VERIFY_COPY_H */
