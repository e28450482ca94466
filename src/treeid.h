/*
 * The git tree id of a working tree as it stands, computed without
 * writing anything into its repository: from a throwaway copy of its
 * index (so git's stat cache spares the files that did not change) and a
 * throwaway object directory that borrows the real one as an alternate.
 *
 *	struct treeid_req q = TREEID_INIT;
 *	q.git = &g;		where the working tree is (dir, gitdir, ...)
 *	q.index = path;		the index to start from (NULL: none)
 *	q.scratch = dir;	private directory for the temporary index
 *	q.objdir = dir;		the temporary object directory
 *	q.alternates = path;	the repository's own object directory
 *	q.reflag = &v;		"mode oid\tpath" of entries whose file is
 *				on disk but whose skip-worktree or
 *				assume-unchanged bit would hide it
 *	q.exclude = &x;		paths to leave out (may be NULL)
 *	char *tree = treeid_compute(&q, "src");	  NULL: failed, said why
 *
 *	treeid_diff(&q, a, b, &paths);	the paths whose entries differ
 */
#ifndef TREEID_H
#define TREEID_H

#include "gitcmd.h"
#include "strv.h"

struct treeid_req {
	const struct git	*git;
	const char		*index;
	const char		*scratch;
	const char		*objdir;
	const char		*alternates;
	const struct strv	*reflag;
	const struct strv	*exclude;
};

#define TREEID_INIT	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL }

char	*treeid_compute(const struct treeid_req *, const char *);
int	 treeid_diff(const struct treeid_req *, const char *, const char *,
	    struct strv *);

#endif /* TREEID_H */
