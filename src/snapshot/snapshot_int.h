/*
 * What the files that build a copy share; nothing else includes it.
 * Callers read snapshot.h.
 *
 *	snapshot.c		builds a fresh copy, and runs the steps
 *				of every copy
 *	snapshot_repo.c		one repository of it: a git to run in its
 *				source or its copy, whether git converts,
 *				its name while parked
 *	snapshot_add.c		one repository's copy added at HEAD: a
 *				git worktree, or a clone
 *	snapshot_fill.c		what git diff leaves out of its working
 *				state, put in it by hand
 *	snapshot_nested.c	the repositories nested in it: found,
 *				copied as repositories of their own
 *	snapshot_parked.c	its nested repositories set aside as it
 *				is parked, and taken back
 *	snapshot_reused.c	brings a parked copy back: the sync, the
 *				look begun as git lists the working tree,
 *				the copy proved as it stands, and an
 *				incremental copy's noted paths
 *
 * struct snap_repo is snapshot.c's (sr_free()); snapshot_reused.c fills
 * only its dst_gitdir, which snapshot.c frees.
 */
#ifndef SNAPSHOT_INT_H
#define SNAPSHOT_INT_H

#include "git.h"
#include "lsfiles.h"
#include "reconvert.h"
#include "snapshot.h"
#include "strv.h"

/* One repository of the copy: the top one, or a nested one. */
struct snap_repo {
	char		*src;		/* its working tree */
	char		*gitdir;
	char		*common;
	char		*objects;
	char		*index;		/* a private copy of its index */
	char		*head;		/* the commit checked out */
	char		*dst;		/* its copy */
	char		*dst_gitdir;	/* the copy's registration */
	char		*rel;		/* dst below the top copy */
	struct strv	 exclude;	/* nested repositories left out */
	struct entlist	 entries;	/* the source's index entries */
	struct nested	*nested;	/* nested repositories found */
	size_t		 nnested;
	struct strv	 live;		/* the initialized ones' gitlink
					   entries, by path (proof.h) */
	int		 filemode;	/* core.fileMode */
	int		 nolinks;	/* core.symlinks false */
	int		 ignorestat;	/* core.ignoreStat */
	int		 sparse;	/* a sparse checkout */
	int		 convert;	/* core.autocrlf or an attributes
					   file outside the tree: what is
					   on disk may not be what a
					   checkout writes */
	int		 unlisted_attrs; /* an attributes file on disk that
					   the listing has not (ignored):
					   git reads it, no copy has it */
	struct proof	*proof;		/* NULL: not proved */
	char		*want;		/* a copy of a tree: the tree it
					   must hold (below the top) */
	struct bigfile	*big;		/* changes copied whole */
	int		 parkable;	/* nested: its copy may be parked
					   and taken back (not sparse, no
					   conflict over a submodule of its
					   own, no conversion that cannot
					   be redone) */
	/* An incremental copy's noted working state (snapshot_noted_*()):
	 * the top copy's, and a nested one's that may be parked. */
	int		 state_begun;	/* noted with the last's */
	struct strv	 state_now;	/* this working state's paths */
	struct strv	 state_gone;	/* those the last run's had that it
					   has not */
	int		 state_unknown;	/* what the last run's had is not
					   known */
	int		 state_noted;	/* noted as it is already */
	char		*tree_index;	/* nested, a copy of a tree: an index
					   of its commit, in the scratch
					   space */
	int		 keeps;		/* nested: its copy taken back with
					   its own ignored files */
	struct reuse_marks marks;	/* nested: times to keep (the top
					   copy's are the snapshot's) */
	struct reconvert conv;		/* a copy kept, or that was: how
					   git converts its files, and
					   which it wrote (reconvert.h) */
};

/* A gitlink or untracked nested repository, as found in the source. */
struct nested {
	char		*path;		/* below its parent's working tree */
	int		 isrepo;	/* initialized, with a commit */
	char		*gitdir, *common, *head;
};

/*
 * snapshot_repo.c.
 *
 *	snapshot_repo_src_git(sr, &g), snapshot_repo_dst_git(sr, &g)	a git to
 *			run in sr's source (through its private index), or
 *			in its copy
 *	snapshot_repo_has_attributes(entries, paths)	an attributes file
 *			among the entries' or the paths (either NULL)
 *	snapshot_repo_may_convert(sr, l)	can git convert what it reads or
 *			writes in sr?
 *	snapshot_repo_attributes_on_disk(sr, l)	is there an attributes file
 *			in a directory of what l lists (ignored ones too)?
 *	snapshot_repo_reuse_copy(s, sr, &rc)	sr's copy in a reused copy, as
 *			reuse.h's steps take it (its ignored files kept for
 *			an incremental one)
 *	snapshot_repo_parent_at(root, path, &base)	the directory path is
 *			in below root (no trailing slash), opened O_PATH
 *			with no symlink followed on the way, and path's last
 *			name in it (base points into path); -1 if there is
 *			no such directory
 *	snapshot_repo_empty_nested(top, path)	a reused copy's directory
 *			at path (a submodule not initialized: snapshot.h)
 *			made a fresh copy's: emptied, no symlink followed,
 *			no mount crossed, and made again as a checkout
 *			makes it.  -1 with a message
 *	snapshot_repo_empty_gitlinks(sr, l)	so of each gitlink of l, before
 *			git looks there -- and once the look and the prefix
 *			(reuse.h) are over
 *	snapshot_repo_nested_name(sr)	a name of sr's path below the top
 *			copy, the same from one run to the next, fit for a
 *			file name (the caller frees it)
 *	snapshot_repo_rules_said(sr, &dropped)	how many rule files
 *			reuse_rules_drop() dropped from sr's copy, said
 *	why = snapshot_repo_not_reusable(sr, l)	NULL if a copy of sr's
 *			working tree, whose listing is l, can be parked and
 *			reused (reuse.h); else why not, in a few words for
 *			"forge: not reused: ..." (a static string).  Not:
 *			a sparse checkout; core.symlinks false, under which
 *			git writes a tracked link as a file and the files
 *			of a parked copy made under true would stay links
 *			(their stat data still matches the index), and
 *			which git apply cannot retarget; core.ignoreStat,
 *			under which git believes the copy's index and never
 *			looks at a file the last run left otherwise; a
 *			conflict over a submodule.  A submodule is no
 *			reason, nor a nested repository: one not
 *			initialized is an empty directory in a fresh copy
 *			and in a reused one (snapshot.h), whatever a
 *			command left in it; an initialized one's copy is
 *			parked with the top copy and taken back, and asks
 *			the same of its own working tree
 */
void	snapshot_repo_src_git(const struct snap_repo *, struct git *);
void	snapshot_repo_dst_git(const struct snap_repo *, struct git *);
int	snapshot_repo_has_attributes(const struct entlist *,
	    const struct strv *);
int	snapshot_repo_may_convert(const struct snap_repo *,
	    const struct lsfiles *);
int	snapshot_repo_attributes_on_disk(const struct snap_repo *,
	    const struct lsfiles *);
void	snapshot_repo_reuse_copy(struct snapshot *, const struct snap_repo *,
	    struct reuse_copy *);
int	snapshot_repo_parent_at(int, const char *, const char **);
int	snapshot_repo_empty_nested(const char *, const char *);
int	snapshot_repo_empty_gitlinks(struct snap_repo *,
	    const struct lsfiles *);
char	*snapshot_repo_nested_name(const struct snap_repo *);
const char *snapshot_repo_not_reusable(const struct snap_repo *,
	    const struct lsfiles *);
void	snapshot_repo_rules_said(const struct snap_repo *, const struct strv *);

/*
 * snapshot_add.c.  sr's copy made at sr->head in sr->dst, before any of
 * the working state is put in it; -1 with a message:
 *
 *	snapshot_add_worktree(s, sr)	a detached git worktree, noted
 *			in s->rd first (rundir.h) and locked with the run
 *			named (sr->dst_gitdir, its registration, made its
 *			own: registration.h); a tree's copy checked out
 *			whole, never sparse; on a terminal, checked out with
 *			git's own progress; a full disk said as such
 *	snapshot_add_clone(s, sr)	a private clone (clone.h), noted
 *			nowhere; the top one's git dir and the refs it
 *			started with kept in s
 */
int	snapshot_add_worktree(struct snapshot *, struct snap_repo *);
int	snapshot_add_clone(struct snapshot *, struct snap_repo *);

/*
 * snapshot_fill.c.  What of sr's working state (l, its listing) git diff
 * does not show, put in sr's copy path by path; each 0, or -1 with a
 * message:
 *
 *	snapshot_fill_unsparse(sr, l)	a sparse checkout: each entry
 *			the copy has skip-worktree and the source does not
 *			(on disk there, or deleted since) checked out,
 *			before the patch, which may change or delete it
 *	snapshot_fill_flagged(sr, l)	each entry flagged skip-worktree
 *			or assume-unchanged as it is on disk: copied, or
 *			gone from the copy where it is no file or symlink
 *	snapshot_fill_untracked(sr, l)	the untracked files git does
 *			not ignore, copied (what is no file or symlink
 *			skipped, said); -1 too on a fatal signal
 *	snapshot_fill_modes(sr)	core.fileMode false: each tracked file
 *			of sr->entries given the source's x bits
 */
int	snapshot_fill_unsparse(struct snap_repo *, const struct lsfiles *);
int	snapshot_fill_flagged(struct snap_repo *, const struct lsfiles *);
int	snapshot_fill_untracked(struct snap_repo *, const struct lsfiles *);
int	snapshot_fill_modes(struct snap_repo *);

/* How snapshot.c copies a repository, the top one or a nested one: what
 * snapshot_nested.c calls for each it finds. */
typedef int	(*snapshot_copy_fn)(struct snapshot *, struct snap_repo *);

/*
 * snapshot_nested.c.
 *
 *	snapshot_nested_find(s, sr, l)	the gitlinks and nested
 *			repositories of l, before sr's proof starts: one
 *			without a commit is left out (s->left_out)
 *	snapshot_nested_copy(s, sr, copy)	each one found copied
 *			by copy
 *	snapshot_nested_gitlinks(s, sr, copy)	a copy of a tree: each
 *			submodule it records and the working tree has
 *			initialized copied by copy at the commit its
 *			gitlink names
 */
void	snapshot_nested_find(struct snapshot *, struct snap_repo *,
	    const struct lsfiles *);
int	snapshot_nested_copy(struct snapshot *, struct snap_repo *,
	    snapshot_copy_fn);
int	snapshot_nested_gitlinks(struct snapshot *, struct snap_repo *,
	    snapshot_copy_fn);

/*
 * snapshot_reused.c.  An incremental copy's noted paths (reuse.h's
 * reuse_state_*()), the top repository's or a nested one's:
 *
 *	snapshot_reused_noted_begin(s, sr, l)	as the working tree is listed:
 *			what the last run put in sr's copy that this one
 *			will not, and this run's paths noted with those of
 *			the last, should it end first
 *	snapshot_reused_noted_end(s, sr)	the copy holds this
 *			working state: its paths noted alone
 *
 * A reused copy (s->reused, the top repository):
 *
 *	snapshot_reused_rules(s, sr)	its rule files dropped, first
 *	snapshot_reused_list(s, sr, g, l)	the working tree listed
 *			(lsfiles.h) while the copy's look and the source's
 *			side of the proof begin; -1 with a message
 *	snapshot_reused_as_is(s, sr, l)	proved as it stands and put
 *			right; 1: done, 0: to be synced the whole way, -1:
 *			not to be used
 *	snapshot_reused_sync(s, sr)	synced the whole way
 *	snapshot_reused_stop(s)		what is left of the look ended
 *	snapshot_reused_source_noted(s, sr, &index)	an incremental copy of
 *			a tree (s->source), the top one or a submodule's at
 *			its commit: the paths of its index (into index, the
 *			caller frees it) noted as forge's, as
 *			snapshot_reused_noted_begin() notes a working state's
 *	snapshot_reused_source(s, sr, index)	a reused copy of a tree
 *			brought to its commit, an incremental one keeping
 *			its own ignored files (but for rule files: index,
 *			the tree's), and for the staged tree, to that
 *			tree; -1 with a message
 */
void	snapshot_reused_noted_begin(struct snapshot *, struct snap_repo *,
	    const struct lsfiles *);
void	snapshot_reused_noted_end(struct snapshot *, struct snap_repo *);
int	snapshot_reused_rules(struct snapshot *, struct snap_repo *);
int	snapshot_reused_list(struct snapshot *, struct snap_repo *,
	    const struct git *, struct lsfiles *);
int	snapshot_reused_as_is(struct snapshot *, struct snap_repo *,
	    const struct lsfiles *);
int	snapshot_reused_sync(struct snapshot *, struct snap_repo *);
void	snapshot_reused_stop(struct snapshot *);
int	snapshot_reused_source_noted(struct snapshot *, struct snap_repo *,
	    char **);
int	snapshot_reused_source(struct snapshot *, struct snap_repo *,
	    const char *);

/*
 * snapshot_parked.c.  A reused copy's nested repositories, each set aside
 * as the copy was parked (snapshot_parked_set_aside()):
 *
 *	snapshot_parked_take(s, sr)	before sr's copy is made: its
 *			parked copy put back at its path, its registration
 *			checked and made a fresh one's, and brought to sr's
 *			HEAD with nothing git does not track (reuse.h's
 *			reuse_sync()): 1, sr->dst_gitdir set; 0, there is
 *			none that will do, and the path is free for a fresh
 *			one (the last one's registration gone); -1 with a
 *			message.  In an incremental copy whose working
 *			state sr->state_* noted, it keeps its own ignored
 *			files, as the top copy does: but for the rule files
 *			and what the last run put there that this working
 *			state has not (sr->keeps set)
 *	snapshot_parked_strays(s, sr, index, keep)	a nested copy that
 *			kept its own ignored files, once its files are in:
 *			each file that is neither tracked by index (NULL:
 *			the copy's own) nor ignored there, nor listed in
 *			keep (NULL: none), removed -- what an ignore rule
 *			hid from the sync, and no longer hides.  -1 with a
 *			message
 *	snapshot_parked_drop(s, sr)	sr's copy removed, and its
 *			registration, for a fresh one: -1 with a message
 *	snapshot_parked_clear(s)	what was set aside and not taken
 *			back, removed
 */
#define SNAP_PARKED_DIR	".nested"	/* where, in the run's directory
					   (no copy is so named) */
int	snapshot_parked_take(struct snapshot *, struct snap_repo *);
int	snapshot_parked_strays(struct snapshot *, struct snap_repo *,
	    const char *, const struct strv *);
int	snapshot_parked_drop(struct snapshot *, struct snap_repo *);
void	snapshot_parked_clear(struct snapshot *);

#endif /* SNAPSHOT_INT_H */
