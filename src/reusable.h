/*
 * Whether a copy of a working tree can be parked and reused (reuse.h):
 *
 *	why = reusable_why_not(&l, how);
 *			NULL: it can.  Else why not, in a few words for
 *			"forge: not reused: ..." (a static string): a
 *			sparse checkout, git's settings that have it
 *			check out or look at files otherwise than as it
 *			did when the copy was parked, a conflict over a
 *			submodule.
 *
 * l is what git ls-files says the working tree holds (lsfiles.h); how,
 * the REUSABLE_ flags of the repository's settings: a sparse checkout;
 * core.symlinks false, under which git writes a tracked link as a file
 * and the files of a parked copy made under true would stay links (its
 * stat data still matches the index), and which git apply cannot
 * retarget; core.ignoreStat, under which git believes the copy's index
 * and never looks at a file the last run left otherwise.  A submodule is no reason, nor a
 * nested repository: one not initialized is an empty directory in a
 * fresh copy and in a reused one (snapshot.h), whatever a command left
 * in it; an initialized one's copy is parked with the top copy and
 * taken back, and asks the same of its own working tree.
 */
#ifndef REUSABLE_H
#define REUSABLE_H

#include "lsfiles.h"

#define REUSABLE_SPARSE		0x1	/* core.sparseCheckout */
#define REUSABLE_NOLINKS	0x2	/* core.symlinks false */
#define REUSABLE_IGNORESTAT	0x4	/* core.ignoreStat */

const char	*reusable_why_not(const struct lsfiles *, int);

#endif /* REUSABLE_H */
