/*
 * A range's copy (verify_range.h), carried from one of its commits to
 * the next instead of made anew for each.  verify_run_prepare() calls, for
 * each commit after the range's first copy is made:
 *
 *	if (verify_carry(r, verbose) == -1)
 *		...		neither carried nor made anew and proved:
 *				said why, the verdict is the caller's
 *
 * which brings r->snap.copy to r->source.commit as a reused copy is
 * brought to HEAD (reuse.h's reuse_sync(): what git does not track
 * removed -- ignored files kept if r->incremental, but for those git
 * reads as instructions, reuse_rules_drop() -- and the commit's files
 * written where they differ), checks that nothing git does not track is
 * left but what an incremental copy keeps, and proves the copy's tree
 * id the commit's (source.h's source_prove(), every file hashed again)
 * before anything runs.  Where git converts a file's bytes (attributes,
 * core.autocrlf: a checkout writes by the attributes it finds, which no
 * tree id shows), each file that may not be what a fresh checkout of the
 * commit writes is checked out again before the proof, by what the last
 * commit's copy noted (reconvert.h), and the copy is noted in turn.
 * Where the copy cannot be carried -- a commit records a submodule (a
 * repository of its own in the copy), or git checks out a file through
 * a filter command, which cannot be shown to write the same bytes twice
 * -- or the carrying fails, the copy and its run directory are removed
 * and a fresh copy made (verify_copy_make()), which is never carried
 * from then on unless it may be.
 *
 * Then, once the copy is ready for the steps, and after them:
 *	verify_carry_ready(r, setup)	notes whether the copy can be
 *				carried on; in an incremental one, the setup
 *				steps it ran as they are now are marked skip,
 *				unless setup (--setup)
 *	verify_carry_done(r)	what setup the copy has now, noted
 */
#ifndef VERIFY_CARRY_H
#define VERIFY_CARRY_H

struct run;

int	verify_carry(struct run *, int);
void	verify_carry_ready(struct run *, int);
void	verify_carry_done(struct run *);

#endif /* VERIFY_CARRY_H */
