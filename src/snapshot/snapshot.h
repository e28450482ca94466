/*
 * The ephemeral copy: built from the real repository's working state,
 * proved equal to it, and removed with the run's directory.
 *
 *	struct rundir rd;	(rundir.h: journaled, removed on any exit)
 *	struct snapshot s;
 *	if (snapshot_create(&s, &rd, &repo, flags, big) == -1)
 *		...		a message says why; the caller removes rd
 *	... run the verification in s.copy ...
 *	snapshot_free(&s);
 *
 * big is forge.copyThreshold: a changed file larger is copied whole
 * (bigfile.h), and hashed for the proof without its blob written.
 *
 * The copy is rd.top/<name of the working tree>: a detached, locked `git
 * worktree` at HEAD, with the uncommitted changes replayed (patch.h),
 * tracked files flagged skip-worktree or assume-unchanged copied as they
 * are on disk, the untracked files git does not ignore copied in, and
 * each initialized submodule or nested repository copied the same way,
 * recursively.  Each repository is noted in rd before its worktree add.
 * With SNAP_CLONE, each is a private clone instead (clone.h), at the same
 * commit, with the same working state replayed and proved the same way;
 * it registers nothing in the source, so nothing is noted.
 *
 * With SNAP_REUSED, rd is a parked copy's (reuse.h) and the top copy
 * is brought up to date in place (reuse_sync) instead of checked out,
 * and so is each nested repository's copy parked with it; everything
 * after that is as for a fresh copy, the proof included.  Where git
 * converts, each file that may not be what a checkout writes is checked
 * out again first (reconvert.h).  A sparse checkout, core.symlinks
 * false or core.ignoreStat (snapshot_int.h), a conflict over a
 * submodule, or a copy git checks out a file of through a filter
 * command, is never reused: -1 with s.not_reusable set, and the caller
 * builds a fresh copy -- the parked one left fit to be parked again as
 * it stands, once snapshot_parked_set_aside() set aside what of it was
 * taken back (nothing it did to it is more than a command may do to a
 * copy).
 *
 * snapshot_why_not_parked(&repo) says, before any parked copy is
 * claimed, what keeps a copy -- of the working state, or of a tree,
 * which git writes by the same settings -- from being parked as far as
 * the repository's settings tell (a sparse checkout, core.symlinks false,
 * core.ignoreStat: snapshot_int.h): a static string, or NULL; the rest
 * only the copy's listing tells.
 *
 * Unless SNAP_NOCHECK, the copy is then proved (proof.h): the tree id of
 * the source working state and that of the copy must be equal; s.tree is
 * that id.  The proof runs in the background while the copy is built.
 *
 * snapshot_create_from() makes the copy of another source (source.h):
 * the staged tree or a commit's, checked out whole (never sparse) and
 * proved against that tree, each initialized submodule it records at its
 * commit; the working tree and its untracked files play no part.
 * snapshot_create() is that with the working state.
 *
 * In a reused copy, s.nested_afresh names the first nested repository
 * whose copy was made afresh, or lost its own ignored files (NULL:
 * none): what setup made there is not there any more.
 *
 * What a copy leaves out of what it is a copy of -- a submodule that is
 * not initialized, or whose commit its repository lacks; a nested
 * repository without a commit checked out -- is said, and listed in
 * s.left_out, why in s.left_out_why: such a copy is partial, and its
 * verdict is no verdict of the whole tree.
 */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include "proof.h"
#include "repo.h"
#include "reuse.h"
#include "rundir.h"
#include "spawn.h"
#include "strv.h"

#define SNAP_NOCHECK	0x01
#define SNAP_REUSED	0x02	/* rd holds a parked copy (reuse.h): bring
				   it up to date rather than check out */
#define SNAP_INCREMENTAL 0x04	/* ... keeping the copy's ignored files */
#define SNAP_CLONE	0x08	/* each repository a private clone
				   (clone.h), not a linked worktree */
#define SNAP_PARK	0x10	/* the copy may be parked after the run
				   (or carried to a range's next commit):
				   what its next run starts from is kept */
#define SNAP_VERBOSE	0x20	/* name the changed files copied whole */

/* Phases, for --verbose and the benchmark. */
enum {
	SNAP_CHECKOUT,		/* git worktree add */
	SNAP_APPLY,		/* git diff | git apply */
	SNAP_UNTRACKED,		/* untracked and flagged files */
	SNAP_PROOF,		/* the tree id comparison */
	SNAP_NPHASES
};

struct snap_repo;
struct source;

struct snapshot {
	char			 *copy;		/* the copy's top level */
	char			 *tree;		/* proved tree id, or NULL */
	struct strv		  trees;	/* and each nested repository's:
						   "<rel> <tree>", rel its path
						   with a slash */
	struct strv		  converts;	/* how git converted each
						   repository's files as it
						   wrote them: "<rel>
						   <digest>" (reconvert.h;
						   "." the top one's, "?"
						   not known) */
	struct rundir		 *rd;
	struct snap_repo	**repos;
	size_t			  nrepos;
	long long		  ms[SNAP_NPHASES];	/* time per phase */
	int			  reusable;	/* fit to be parked: no nested
						   repository, not sparse */
	const char		 *not_reusable;	/* if not: why (static) */
	long			  fixed;	/* reused: the paths put right
						   in a copy proved as it
						   stood; -1: synced whole */
	long			  looked;	/* the working tree's files git
						   looked at, those changed
						   since the last run (-1:
						   every file) */
	struct strv		  left_out;	/* the paths the copy lacks
						   (partial), */
	struct strv		  left_out_why;	/* and why, each */
	struct strv		  links;	/* if links_known: the only
						   paths of the copy that can
						   be symlinks (escape.h) */
	int			  links_known;
	int			  clone;	/* SNAP_CLONE */
	char			 *gitdir;	/* SNAP_CLONE: the top clone's
						   git dir, and */
	char			 *start_refs;	/* the refs it started with */
	int			  check;	/* private: prove it */
	int			  reused;	/* private */
	int			  incremental;	/* private */
	int			  park;		/* private */
	struct reuse_marks	  marks;	/* private: times to keep */
	struct reuse_look	  look;		/* private: if looking, the
						   reused copy's look begun */
	int			  looking;
	struct proof_look	  source_look;	/* private: if source_looked,
						   the source's files looked
						   at (proof.h) */
	int			  source_looked;
	struct reuse_prefix_job	  prefix;	/* private: if prefixing, the
						   working tree's changes put
						   in the copy meanwhile */
	int			  prefixing;
	char			 *nested_afresh; /* reused, the first nested
						   repository whose copy was
						   made afresh, or rid of its
						   own ignored files (rel) */
	const struct source	 *source;	/* private: NULL, the working
						   state */
	const struct buf	 *core;		/* private: the repository's
						   core.* (repo.h) */
	struct spawn_idle	  idle;		/* private: moves the proofs
						   on while git works */
	long long		  big;		/* private: forge.copyThreshold
						   (bigfile.h) */
	int			  verbose;	/* private: SNAP_VERBOSE */
};

int	snapshot_create(struct snapshot *, struct rundir *,
	    const struct repo *, int, long long);
int	snapshot_create_from(struct snapshot *, struct rundir *,
	    const struct repo *, const struct source *, int, long long);
void	snapshot_free(struct snapshot *);
const char *snapshot_why_not_parked(const struct repo *);
/*
 * A copy about to be parked (reuse.h): each nested repository's copy set
 * aside in the run's directory, deepest first, for the next run to take
 * back; one that cannot be (sparse, converted, moved) removed with its
 * registration.  The top copy is then as one with submodules not
 * initialized.  -1 with a message: the copy is not to be parked.
 */
int	snapshot_parked_set_aside(struct snapshot *);
/*
 * What the copy's files are now (snapshot_state.c), for what the setup
 * steps change:
 *	snapshot_state(s, &v)	v: "<path>\t<signature>" of each file and
 *				link of the copy that git tracks or does not
 *				ignore, its nested repositories' too, by path
 *				from the top, sorted; the signature is what
 *				any write changes (mode, inode, size, mtime,
 *				ctime).  -1: git could not list them (said)
 *	snapshot_state_changed(&a, &b, &paths)	the paths whose lines
 *				differ between two of them: written, made or
 *				removed between, in order
 *	snapshot_state_kept(s, path)	of a copy of the working state
 *				(never of a tree's), does the copy's file
 *				hold the working tree's, byte for byte,
 *				with its x bit (a link: its target)?  A
 *				file written again the same is no change
 */
int	snapshot_state(const struct snapshot *, struct strv *);
void	snapshot_state_changed(const struct strv *, const struct strv *,
	    struct strv *);
int	snapshot_state_kept(const struct snapshot *, const char *);

#endif /* SNAPSHOT_H */
