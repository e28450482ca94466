/*
 * The ephemeral copy: built from the real repository's working state,
 * proved equal to it, and removed.
 *
 *	struct snapshot s;
 *	if (snapshot_create(&s, &repo, flags) == -1)	message printed;
 *		...					whatever was made is
 *							already gone
 *	... run the verification in s.copy ...
 *	snapshot_remove(&s);	or snapshot_keep(&s) for --keep
 *	snapshot_free(&s);
 *
 * The copy is $TMPDIR/forge-<run id>/<name of the working tree>, a
 * detached, locked `git worktree` at HEAD, with the uncommitted changes
 * replayed by `git diff | git apply`, the untracked files that git does
 * not ignore copied in, and each initialized submodule or nested
 * repository copied the same way, recursively.  Every step is recorded in
 * the journal before it happens, and a cleanup entry removes the copy on
 * any exit (journal.h, cleanup.h).
 *
 * Unless SNAP_NOCHECK, the copy is then proved: the tree id of the source
 * working state and that of the copy are computed (treeid.h) and must be
 * equal; s.tree is that id.
 */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include "journal.h"
#include "repo.h"
#include "strv.h"

#define SNAP_NOCHECK	0x01

/* Phases, for --verbose and the benchmark. */
enum {
	SNAP_CHECKOUT,		/* git worktree add */
	SNAP_APPLY,		/* git diff | git apply */
	SNAP_UNTRACKED,		/* untracked and flagged files */
	SNAP_PROOF,		/* the tree id comparison */
	SNAP_NPHASES
};

struct snap_repo;
struct cleanup;

struct snapshot {
	char			  run[32];	/* random id of this run */
	char			 *top;		/* the private directory */
	char			 *copy;		/* the copy's top level */
	char			 *scratch;	/* temporary index, objects */
	char			 *tree;		/* proved tree id, or NULL */
	const struct repo	 *repo;
	struct journal		  journal;
	struct strv		  commons;	/* repos with a registration */
	struct snap_repo	**repos;
	size_t			  nrepos;
	struct cleanup		 *cleanup;
	long long		  ms[SNAP_NPHASES];	/* time per phase */
	int			  kept;		/* snapshot_keep() was called */
	int			  state;	/* private */
};

int	snapshot_create(struct snapshot *, const struct repo *, int);
int	snapshot_remove(struct snapshot *);
int	snapshot_keep(struct snapshot *);
void	snapshot_free(struct snapshot *);
/* The tree id of a working tree as it is now (in-place runs). */
char	*snapshot_source_tree(const struct repo *);

/* Parse `git ls-files -z -v -s -c -o` output (exposed for tests). */
struct lsfiles {
	struct strv	 untracked;	/* files and links, not dirs */
	struct strv	 nested;	/* gitlinks and nested repositories */
	struct strv	 flagged;	/* "mode oid\tpath": skip-worktree or
					   assume-unchanged */
	size_t		 maxlen;	/* longest path */
	int		 sparse;	/* some entry is skip-worktree */
};
int	lsfiles_parse(const char *, size_t, struct lsfiles *);
void	lsfiles_free(struct lsfiles *);

#endif /* SNAPSHOT_H */
