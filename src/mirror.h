/*
 * The copy's index made to mirror the source's, once the copy holds the
 * working state: what is staged there is staged in the copy, what is not
 * is not, so that git status, git diff --cached and tools that look at
 * the index see in the copy what the user sees.
 *
 *	struct git src, dst;	the source (read through a private copy of
 *				its index) and the copy
 *	if (mirror_index(&src, &dst, head, &entries, &l) == -1)
 *		...		a message says why
 *
 * entries and l are what lsfiles_read() found in the source: entries
 * (entlist.h), moved out of l, its stage-0 entries in index order; l, its gitlinks,
 * skips, assumes and unmerged paths.  The index is not listed again.
 *
 * Each path whose index entry differs from HEAD's gets the source's
 * entry (or none, for a staged deletion), written with update-index
 * --index-info and so without stat data: git looks at the file afresh.
 * Intent-to-add entries are added again with git add -N, and the
 * skip-worktree and assume-unchanged flags set as in the source.  The
 * files are not touched.  Unmerged paths are left as the patch made them:
 * their changes show unstaged.
 *
 * The same in two halves, what to do found before it is done:
 *	struct mirror_plan mp;
 *	mirror_plan(&src, head, &entries, &l, cache, &mp);	the source
 *					read; cache (NULL: none), a file
 *					that keeps what git said of it for
 *					the next run, which reads it there
 *					if the index src reads and head
 *					are the same
 *	key = mirror_key(&mp, head, dst_top);	all it depends on, as a
 *					string (the caller frees): the same
 *					key, the same index
 *	mirror_apply(&dst, &mp);	the copy's index written
 *	mirror_plan_free(&mp);		(l must outlive mp)
 */
#ifndef MIRROR_H
#define MIRROR_H

#include "strv.h"

struct entlist;
struct git;
struct lsfiles;

struct mirror_plan {
	struct strv		 lines;		/* update-index --index-info */
	struct strv		 ita;		/* intent-to-add paths */
	const struct lsfiles	*l;		/* skips and assumes */
};

int	mirror_index(const struct git *, const struct git *, const char *,
	    const struct entlist *, const struct lsfiles *);
int	mirror_plan(const struct git *, const char *, const struct entlist *,
	    const struct lsfiles *, const char *, struct mirror_plan *);
int	mirror_apply(const struct git *, const struct mirror_plan *);
char	*mirror_key(const struct mirror_plan *, const char *, const char *);
void	mirror_plan_free(struct mirror_plan *);

#endif /* MIRROR_H */
