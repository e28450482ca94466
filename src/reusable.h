/*
 * Whether a copy of a working tree can be parked and reused (reuse.h):
 *
 *	why = reusable_why_not(top, &l, sparse);
 *			NULL: it can.  Else why not, in a few words for
 *			"forge: not reused: ..." (a static string): a
 *			sparse checkout, an initialized submodule, a
 *			nested repository, a conflict over a submodule.
 *
 * l is what git ls-files says top holds (lsfiles.h); sparse, whether its
 * checkout is.  A submodule that is not initialized -- at its path an
 * empty directory, or one without a .git, or nothing -- is no reason: a
 * fresh copy has an empty directory there (nothing where top has none),
 * and so is a reused one made (snapshot.h), whatever a command left in it.
 */
#ifndef REUSABLE_H
#define REUSABLE_H

#include "lsfiles.h"

const char	*reusable_why_not(const char *, const struct lsfiles *, int);

#endif /* REUSABLE_H */
