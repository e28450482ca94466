/*
 * Symlinks in a copy that lead back out of it, into the real working
 * tree or its git directory: a command writing through one writes into
 * the very files the copy is there to protect.  They are named before
 * anything runs.
 *
 *	n = escape_warn(copy, places);	one warning on stderr per such
 *					link (path -> target); returns
 *					how many, or -1 if the copy could
 *					not be read (said)
 *	n = escape_warn_paths(copy, &paths, places);
 *					the same, where only those paths
 *					below copy can be symlinks: each
 *					is looked at, not the whole copy
 *
 * places is a NULL-terminated list of absolute directories to protect
 * (the working tree's top, its git dir, the common dir).  A link whose
 * target resolves into one of them, or to a directory that holds one,
 * is named; whether it is absolute or climbs out with "..", and whether
 * it dangles or not.  Links that stay inside the copy are not.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

struct strv;

int	escape_warn(const char *, const char *const *);
int	escape_warn_paths(const char *, const struct strv *,
	    const char *const *);
/* Where a symlink at path (absolute, in the copy) with target leads:
 * an absolute, normalized path; the caller frees.  For the tests. */
char	*escape_resolve(const char *, const char *);

#endif /* ESCAPE_H */
