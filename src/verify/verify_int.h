/*
 * A run of forge verify, shared by the files that carry it out:
 * verify_run.c (the flow), verify_steps.c (the steps), verify_result.c
 * (the verdict), verify_cache.c (the verdict cache), verify_copy.c (the
 * copy it runs in), verify_carry.c (a range's copy, from one commit to
 * the next), verify_range.c (a range's commits in turn) and
 * verify_event.c (what the timeline records of it).
 *
 * verify_one() owns the one struct run there is, and everything it
 * points to: its strings, its steps, its copy (copy.snap, if
 * copy.have_snap) and run directory (copy.rd, if copy.have_rd), freed by
 * verify_run_free().  ctx is the command's context, borrowed.  A range
 * (verify_range()) has one struct run for all its commits, in turn:
 * verify_run_next() frees what was the last commit's own, and keeps the
 * copy and its run directory.
 *
 * A run is in parts: its mode (how it goes, decided once), its copy,
 * the verdict cache's key, and its result (what the timeline records).
 */
#ifndef VERIFY_INT_H
#define VERIFY_INT_H

#include <time.h>

#include "breaker.h"
#include "capture.h"
#include "change.h"
#include "contain.h"
#include "context.h"
#include "rundir.h"
#include "reuse.h"
#include "runlog.h"
#include "snapshot.h"
#include "source.h"
#include "strv.h"
#include "verdict.h"

struct step {
	char		*display;	/* as the user would type it */
	struct strv	 argv;
	int		 shell;		/* a forge.verify value, run by sh */
	int		 setup;		/* a forge.setup value */
	int		 skip;		/* the incremental copy has it */
	int		 ran;
	int		 status;
	long long	 ms;
};

/* How the run goes: options over settings, set by verify_run_begin(). */
struct run_mode {
	int		 isolated;
	int		 reuse;		/* park the copy for the next run */
	int		 incremental;	/* ... with its own ignored files */
	int		 clone;		/* the copy is a private clone */
	int		 check;		/* prove the copy (not --no-check) */
	int		 contain;	/* --contain, forge.contain */
	int		 no_network;
	int		 no_breaker;	/* neither feeds nor obeys it */
	int		 cache;		/* look up and store PASS verdicts */
	int		 range;		/* a commit of a range: the copy
					   goes on to the next */
	const char	*range_id;	/* the range's, for the timeline */
	int		 audit;		/* this run is an audit's fresh one
					   (verify_audit.h) */
	long long	 timeout_ms;
	const char	*steps_from;	/* where the steps were set */
};

/* The copy the steps run in, and what it was parked with. */
struct run_copy {
	struct rundir	 rd;
	int		 have_rd;
	struct snapshot	 snap;
	int		 have_snap;
	int		 reused;	/* this copy was parked before */
	char		*had_setup;	/* what setup it was parked with */
	struct reuse_claimed claim;	/* the parked copy, as parked */
	int		 ready;		/* built and proved */
	const char	*not_reused;	/* asked for, why the copy is not
					   parked or reused (static) */
	int		 carried;	/* this copy was the last commit's */
	int		 carry_ok;	/* the copy can be carried on */
	char		*range_setup;	/* what setup the copy had, as
					   verify_copy_setup() says */
	char		*setup_inputs;	/* the digests of forge.setupInputs
					   in the copy, before the steps */
	char		*setup_read;	/* those of the files setup
					   commonly reads, if it runs */
	int		 setup_unsure;	/* the digests could not be had */
	struct strv	 setup_before;	/* an incremental copy's files
					   before setup (snapshot.h's
					   snapshot_state()), if
					   have_before */
	int		 have_before;
	struct strv	 setup_changed;	/* the paths setup wrote, made or
					   removed that git does not
					   ignore: the copy puts them back
					   next time, so it runs again */
	char		*mapped;	/* the copy whose paths the steps'
					   output names as the working
					   tree's, if any (verify_log.c) */
};

/* The verdict cache's key, and what a lookup found. */
struct run_key {
	int		 cache_decided;	/* verify_cache_usable() has looked */
	struct source_state ss;		/* if have_ss: the working state's
					   index, for the key */
	int		 have_ss;
	const char	*contain_guess;	/* the method a lookup expects */
	char		*cache_tree;	/* the tree looked up */
	char		*cached_at;	/* a hit: when it was verified */
	char		*convert;	/* how git converts the copy's
					   files, for the key (convert.h) */
	char		*as_is;		/* and where it may, the bytes of
					   those the copy takes as they are */
	char		*settings;	/* every repository's settings, for
					   the key (inputs.h) */
	char		*identity;	/* who runs the steps, for the key */
};

/* What the run found: set as it goes, recorded at its end. */
struct run_result {
	char		*tree;		/* the tree verified */
	enum verdict	 verdict;
	int		 status;
	int		 timed_out;
	int		 signo;		/* what interrupted it */
	time_t		 start;
	long long	 start_ms;
	long long	 steps_ms;	/* when the first step started */
	char		*failed;	/* the failing step, for the breaker */
	int		 unstarted;	/* the command could not be started */
	struct breaker	 after;		/* the breaker, once recorded */
	int		 recorded;
	const char	*fast;		/* the fast path the verdict took:
					   "cache", "reused copy",
					   "incremental copy", "carried
					   copy"; NULL: none (static) */
	int		 diverged;	/* an audit's fresh run said
					   otherwise: its verdict is the
					   run's now */
	const char	*audited;	/* what the audit found: "agrees",
					   "diverged", "unchecked"; NULL:
					   not audited (static) */
	struct strv	 refs;		/* a clone's results: "<ref> <id>" */
};

struct run {
	struct context	*ctx;
	struct source	 source;	/* what the copy is made from */
	struct run_mode	 mode;
	struct run_copy	 copy;
	struct run_key	 key;
	struct run_result res;
	struct step	*steps;
	size_t		 nsteps;
	struct change	 change;
	int		 have_change;
	struct contain	 plan;
	int		 have_plan;
	int		 plan_failed;	/* a step's child could not carry
					   it out */
	struct runlog	 log;		/* if have_log: its output, kept */
	struct capture	 cap;
	int		 have_log;
};

/*
 * The result (verify_result.c): the one place a verdict is set, and what
 * forge exits with for it.
 */
void	verify_result_set(struct run *, enum verdict, int, int, const char *,
	    ...) __attribute__((format(printf, 5, 6)));
void	verify_result_error(struct run *, int, const char *);
void	verify_result_doing(struct run *, const char *);
void	verify_result_interrupted(struct run *, int);
int	verify_result_exit(const struct run *, int);

/*
 * The steps (verify_steps.c): made from the command line or the settings
 * (0, or -1 said why), shown as the user would type them (the caller
 * frees), freed.  They run as
 *	verify_steps_begin(r);		the verdict a PASS until a step says
 *					otherwise, the time limit from now
 *	verify_steps_run(r, 1);		the setup steps, in turn, and
 *	verify_steps_run(r, 0);		the others: -1 once one ends the
 *					run (its verdict set), else 0
 *	verify_steps_end(r);		the containment ended
 */
struct verify_opts;
int	verify_steps_make(struct run *, const struct verify_opts *);
char	*verify_steps_display(const struct run *);
void	verify_steps_begin(struct run *);
int	verify_steps_run(struct run *, int);
void	verify_steps_end(struct run *);
void	verify_steps_free(struct run *);

/*
 * The verdict cache (verify_cache.c): can this run use it (decided once,
 * said why not); has the tree passed these steps before (1, r->key.cached_at
 * says when); remember a PASS; a cached PASS said and recorded; a
 * cached PASS forgotten.
 */
int	verify_cache_usable(struct run *);
int	verify_cache_check(struct run *, const char *);
void	verify_cache_remember(struct run *);
int	verify_cache_replay(struct run *);
void	verify_cache_forget(struct run *);

/*
 * The flow (verify_run.c), for one run (verify_one.c) or each commit of a
 * range (verify_range.c): 0 or an exit status; verify_run_prepare() 1 for
 * a cached PASS (then verify_run_replay(), or, where an audit found it
 * wrong, verify_run_release() and on to verify_run_end()), -1 with the
 * verdict set.
 */
int	verify_run_begin(struct run *, const struct verify_opts *);
int	verify_run_gate(struct run *);
int	verify_run_prepare(struct run *, const struct verify_opts *);
void	verify_run_steps(struct run *);
int	verify_run_replay(struct run *);
void	verify_run_release(struct run *);
void	verify_run_end(struct run *, const struct verify_opts *);
void	verify_run_next(struct run *);
void	verify_run_free(struct run *);

/*
 * Read by every file of the run (here, so that none of them depends on
 * another for it).
 */

/* Did the copy leave out part of what it is a copy of? */
static inline int
partial(const struct run *r)
{
	return r->copy.have_snap && r->copy.snap.left_out.n > 0;
}

/* The timeline's mode: in-place, isolated, staged or rev. */
static inline const char *
run_mode(const struct run *r)
{
	if (source_mode(&r->source) != NULL)
		return source_mode(&r->source);
	return r->mode.isolated ? "isolated" : "in-place";
}

#endif /* VERIFY_INT_H */
