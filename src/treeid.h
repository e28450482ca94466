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
 *	q.edits = &v;		update-index --index-info lines applied
 *				to the temporary index first: "mode
 *				oid\tpath" puts an entry back without
 *				stat data or flags (git looks at the file
 *				afresh), "0 0...0\tpath" removes one
 *	q.exclude = &x;		paths to leave out (may be NULL)
 *	q.force = 1;		add files that ignore rules match, too
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
	const struct strv	*edits;
	const struct strv	*exclude;
	int			 force;
};

#define TREEID_INIT	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

char	*treeid_compute(const struct treeid_req *, const char *);
int	 treeid_diff(const struct treeid_req *, const char *, const char *,
	    struct strv *);

#endif /* TREEID_H */
