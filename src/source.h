/*
 * What a copy is made from: the working state (the default), the tree
 * that `git commit` would record (--staged: HEAD and the index), or a
 * commit's (--rev).
 *
 *	struct source src;
 *	source_init(&src);		the working state
 *	src.kind = SOURCE_STAGED;	or SOURCE_REV, with src.rev (and
 *					src.commit, if the caller resolved
 *					it already: taken as it is)
 *	if (source_resolve(&src, &repo, &rd) == -1)
 *		...		said why: no such commit, unmerged entries
 *	... src.commit, src.tree ...
 *	source_free(&src);
 *
 * For SOURCE_STAGED, the index is the caller's GIT_INDEX_FILE if set
 * (repo.index), else the repository's; it is read through a private
 * copy, and src.tree is what `git write-tree` makes of it (intent-to-add
 * entries left out, as commit leaves them out).  The tree objects go into
 * the repository's object directory, as git commit's would.  An index
 * with unmerged entries is refused.
 *
 * For a copy made from a tree, snapshot.c checks out src.tree, every file
 * of it, with src.commit as HEAD (for a commit, its own tree), then:
 *	tree = source_prove(&src, &dst_git, &rd, objects, own_ignored);
 *					the copy's tree id, which must be
 *					src.tree: NULL with what differs
 *					said; the caller frees.  Every file
 *					of the copy counts, those git
 *					ignores too, unless own_ignored (an
 *					incremental copy's own, kept)
 *
 * The submodules the tree records are copied each at the commit its
 * gitlink names, from its local repository:
 *	source_gitlinks(&dst_git, &v);	"160000 oid\tpath" (lsfiles.h)
 *					of each gitlink of the copy's index
 *	tree = source_commit_tree(&g, oid);	that commit's tree in the
 *					repository g names, or NULL if
 *					it has no such commit
 *	tree = source_prove_tree(want, what, &dst_git, &rd, objects,
 *	    rel, id, own_ignored);	as source_prove(), for a copy (of
 *					rel, "" or "sub/", the id-th) that
 *					must hold the tree want; what
 *					names it in the message
 * All strings are owned by the struct.
 */
#ifndef SOURCE_H
#define SOURCE_H

#include "strv.h"

struct git;
struct repo;
struct rundir;

enum source_kind {
	SOURCE_WORKTREE,
	SOURCE_STAGED,
	SOURCE_REV
};

struct source {
	enum source_kind	 kind;
	const char		*rev;		/* --rev as given (borrowed) */
	char			*commit;	/* checked out in the copy */
	char			*tree;		/* what the copy must hold */
};

void		 source_init(struct source *);
void		 source_free(struct source *);
int		 source_resolve(struct source *, const struct repo *,
		    struct rundir *);
char		*source_prove(const struct source *, const struct git *,
		    struct rundir *, const char *, int);
struct strv;
int		 source_gitlinks(const struct git *, struct strv *);
char		*source_commit_tree(const struct git *, const char *);
char		*source_prove_tree(const char *, const char *,
		    const struct git *, struct rundir *, const char *,
		    const char *, size_t, int);
/*
 * What the working state's index says beyond its tree id, for the
 * verdict cache (cache.h): does it hold submodules or nested
 * repositories, whose own changes the id does not show; is it a sparse
 * checkout, whose copy leaves out what its id holds; and what it stages
 * (each entry, conflict and flag, as SHA-256 hex digits), which a copy
 * stages as it does.  And the permission bits of the files a copy takes
 * as they are, not as git checks them out (untracked files, flagged
 * entries' files), which the id does not hold but for the x bit: as
 * hex digits too.  -1: git could not say (said why).
 */
struct source_state {
	int	 nested;
	int	 sparse;
	char	*staging;
	char	*modes;
	int	 converts;	/* git may convert its files (convert.h) */
	char	*convert;	/* convert_digest() of what is outside
				   the tree (NULL: git could not say) */
	struct strv as_is;	/* private: untracked, flagged, conflicts */
};
int		 source_state_read(struct source_state *, const struct repo *,
		    struct rundir *);
void		 source_state_free(struct source_state *);
/* Where git converts, a tree id holds the same blob for other bytes: a
 * sum of those of the files a copy takes as they are on disk, rather
 * than as git checks them out -- untracked and flagged ones, conflicts,
 * and each tracked file git diff-index lists (it may copy changes whole,
 * bigfile.h) -- which the caller frees; NULL if git could not say (said
 * why). */
char		*source_as_is(const struct source_state *, const struct repo *,
		    struct rundir *);
/* Would a copy of a resolved staged tree or commit be whole: is every
 * submodule it records, recursively, initialized here with its commit?
 * 1, 0 (the first that is not said), or -1 (said why). */
int		 source_whole(const struct source *, const struct repo *);
/* The working trees of the repositories a copy of a resolved staged tree
 * or commit is made of below the top one: each submodule it records,
 * recursively, that is initialized here, added to dirs.  0, or -1 (said
 * why). */
int		 source_nested(const struct source *, const struct repo *,
		    struct strv *);
/* The timeline's name for the mode: "staged", "rev", or NULL for the
 * working state. */
const char	*source_mode(const struct source *);

#endif /* SOURCE_H */
