/*
 * The ephemeral copy: built from the real repository's working state,
 * proved equal to it, and removed with the run's directory.
 *
 *	struct rundir rd;	(rundir.h: journaled, removed on any exit)
 *	struct snapshot s;
 *	if (snapshot_create(&s, &rd, &repo, flags) == -1)
 *		...		a message says why; the caller removes rd
 *	... run the verification in s.copy ...
 *	snapshot_free(&s);
 *
 * The copy is rd.top/<name of the working tree>: a detached, locked `git
 * worktree` at HEAD, with the uncommitted changes replayed (patch.h),
 * tracked files flagged skip-worktree or assume-unchanged copied as they
 * are on disk, the untracked files git does not ignore copied in, and
 * each initialized submodule or nested repository copied the same way,
 * recursively.  Each repository is noted in rd before its worktree add.
 *
 * Unless SNAP_NOCHECK, the copy is then proved (proof.h): the tree id of
 * the source working state and that of the copy must be equal; s.tree is
 * that id.  The proof runs in the background while the copy is built.
 */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include "repo.h"
#include "rundir.h"
#include "spawn.h"

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

struct snapshot {
	char			 *copy;		/* the copy's top level */
	char			 *tree;		/* proved tree id, or NULL */
	struct rundir		 *rd;
	struct snap_repo	**repos;
	size_t			  nrepos;
	long long		  ms[SNAP_NPHASES];	/* time per phase */
	int			  check;	/* private: prove it */
	struct spawn_idle	  idle;		/* private: moves the proofs
						   on while git works */
};

int	snapshot_create(struct snapshot *, struct rundir *,
	    const struct repo *, int);
void	snapshot_free(struct snapshot *);

#endif /* SNAPSHOT_H */
