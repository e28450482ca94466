/*
 * Whether a copy of a working tree can be parked and reused (reuse.h):
 *
 *	why = reusable_why_not(&l, sparse);
 *			NULL: it can.  Else why not, in a few words for
 *			"forge: not reused: ..." (a static string): a
 *			sparse checkout, a conflict over a submodule.
 *
 * l is what git ls-files says the working tree holds (lsfiles.h);
 * sparse, whether its checkout is.  A submodule is no reason, nor a
 * nested repository: one not initialized is an empty directory in a
 * fresh copy and in a reused one (snapshot.h), whatever a command left
 * in it; an initialized one's copy is parked with the top copy and
 * taken back, and asks the same of its own working tree.
 */
#ifndef REUSABLE_H
#define REUSABLE_H

#include "lsfiles.h"

const char	*reusable_why_not(const struct lsfiles *, int);

#endif /* REUSABLE_H */
