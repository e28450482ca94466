/*
 * forge verify --rev=A..B: each commit of the range, as git rev-list
 * --reverse lists it (--first-parent: first parents only), verified in
 * turn as --rev verifies one -- its own settings and steps (its
 * .forgeconfig, git config over it), its own verdict recorded as an event
 * of its own -- in one copy, carried from each commit to the next
 * (verify_carry.h).  A commit whose tree has a PASS cached under the same
 * key is not run again.  The range stops at the first commit that does
 * not pass, unless --keep-going; --bisect verifies only the commits a
 * binary search for the first one that fails needs, taking the range to
 * start good, and says which it ran and which it inferred.  A table, one
 * row a commit, ends it.
 *
 *	if (o.range)
 *		return verify_range(&o);	the exit status: the first
 *				commit that did not pass has it (0 if none),
 *				or with --exit=verdict, the worst verdict's;
 *				64 if the range holds no commit
 *
 * It opens and closes the command's context itself, and may die of the
 * signal that interrupted it, as verify_one() does.
 */
#ifndef VERIFY_RANGE_H
#define VERIFY_RANGE_H

struct verify_opts;

int	verify_range(const struct verify_opts *);

#endif /* VERIFY_RANGE_H */
