/*
 * Reusable copies: a run's copy parked when it ends, for the next run in
 * the same working tree to bring up to date instead of building anew.
 * One API a section, one file each (reuse_int.h says which):
 *
 *	parking and claiming		reuse_park_claim(), reuse_park()
 *	the sync			reuse_sync(), reuse_marks_*(),
 *					reuse_sync_index*()
 *	the rule files			reuse_rules_drop()
 *	the look, the fix, the prefix	reuse_sync_prepare(), reuse_look_*(),
 *					reuse_look_fix(), reuse_look_prefix*(),
 *					reuse_state_*()
 *	the modes git does not record	reuse_modes()
 *
 * All but parking take the claimed copy as a struct reuse_copy, whose
 * strings the caller owns and keeps for the length of each call.
 */
#ifndef REUSE_H
#define REUSE_H

#include <pthread.h>

#include <time.h>

#include "entlist.h"
#include "git.h"
#include "rundir.h"
#include "spawn.h"
#include "strv.h"

/*
 * Parking and claiming (reuse_park.c).
 *
 *	struct reuse_want w = { source, kind, incremental, max, setup, ... };
 *	struct reuse_claimed c;
 *	struct rundir rd;
 *	switch (reuse_park_claim(&rd, common, &w, &c)) {
 *	case 1:		rd is a parked copy's run directory, the run's own
 *			now, its registration a fresh copy's (one that
 *			cannot be made so is removed instead); c says what
 *			it was parked as (reuse_park_claimed_free() frees it);
 *			snapshot_create(..., SNAP_REUSED) brings it up to
 *			date, or reuse_park_unclaim(&rd, &w, &c) puts it back as
 *			it was parked, its last use unchanged: for a run
 *			that turns out not to need it, or not to be able to
 *			use it, after all
 *	case 0:		none to be had: rundir_open() as always
 *	}
 *	... the verification ...
 *	reuse_park(&rd, common, copy, &w);	parked for the next run:
 *			room made for it if w.max copies of its pool are
 *			parked or in use already, by removing the least
 *			recently used parked ones; or removed when no room
 *			can be made (all in use, w.max 0), or when the next
 *			run could not prove it the run's (its command undid
 *			the mark)
 *
 * A parked copy is a run directory whose record (journal.h) ends in a
 * "reuse" line; the run that claims it holds the record's lock, as the
 * run that made it did, so no two runs ever share one, and reclaim and
 * gc leave it alone (gc removes it once unused for forge.reuseExpiry).
 *
 * A pool is the copies of one working tree and one kind (incremental or
 * not), of every kind of source: the working state, the staged tree,
 * commits.  A copy is used when a run claims it, and when it is parked;
 * the record's modification time says when.  A run claims, of its pool:
 *	- a copy last parked by a run of its own kind of source (w.kind),
 *	  the most recently used first: the one closest to what it needs;
 *	- else, only where the pool is full (w.max copies parked or in use,
 *	  so that its own copy would make room by removing one), another
 *	  kind's, the least recently used first: the one that would go;
 *	- else none: its copy is made afresh, and parked beside the others.
 * So the working state's copy and the hook's (--staged) live side by
 * side where w.max is 2 or more, and neither run takes the other's.  A
 * copy that cannot be trusted to be what it was (a file system mounted
 * in it, its directory not the run's) is removed, never used.
 */
#define REUSE_WORKTREE	JOURNAL_WORKTREE	/* the kinds of source */
#define REUSE_STAGED	JOURNAL_STAGED
#define REUSE_REV	JOURNAL_REV

struct reuse_want {
	const char	*source;	/* the working tree */
	const char	*kind;		/* of source: REUSE_WORKTREE ... */
	int		 incremental;	/* keeps its own ignored files */
	int		 max;		/* forge.reuseCopies: the most a
					   pool holds */
	const char	*setup;		/* what setup it had: parked with */
	const char	*gitdir;	/* the working tree's git dir, and */
	const char	*head;		/* the commit to check out: a copy
					   claimed has the registration a
					   fresh one would (registration.h) */
};

struct reuse_claimed {
	char		*copy;		/* its path */
	char		*setup;		/* the setup it was parked with */
	char		*kind;		/* of source it was parked for */
	struct timespec	 used;		/* its last use, before the claim */
};

int	reuse_park_claim(struct rundir *, const char *,
	    const struct reuse_want *, struct reuse_claimed *);
void	reuse_park_claimed_free(struct reuse_claimed *);
int	reuse_park_unclaim(struct rundir *, const struct reuse_want *,
	    const struct reuse_claimed *);
int	reuse_park(struct rundir *, const char *, const char *,
	    const struct reuse_want *);

/* A claimed copy, as every step that brings it back takes it. */
struct reuse_copy {
	const char		*copy;		/* its worktree */
	const char		*common;	/* the repository's common dir,
						   where it is registered */
	const char		*run;		/* the run that claimed it,
						   whose lock it must hold */
	const char		*scratch;	/* the run's scratch space */
	const char		*head;		/* the commit to bring it to */
	int			 keep_ignored;	/* its ignored files kept */
	struct spawn_idle	*idle;		/* while git runs */
};

/*
 * The sync (reuse_sync.c).
 *
 *	reuse_sync(rc, marks, &dst_gitdir)
 *			rc->copy's worktree brought to the commit
 *			rc->head: the copy's own registration in
 *			rc->common checked (it must be rc->run's), merges
 *			or rebases a command left in progress dropped, the
 *			modes git does not record (a directory's, a file's
 *			but for its x bit) made a checkout's, index flags
 *			cleared, HEAD detached at rc->head, every file git
 *			does not track removed (ignored ones kept if
 *			rc->keep_ignored), and the tracked files made
 *			rc->head's -- only those that differ are written.
 *			marks, if not NULL, is filled first (see below).
 *			dst_gitdir: the registration, for the caller to
 *			free.  -1 with a message: the copy is not to be
 *			used
 *	reuse_sync_index(copy, dst_gitdir, index, head)	the copy's own
 *			index made HEAD's, from that index: git's stat data
 *			of each file kept where HEAD has the same
 *	reuse_sync_index_note(dst_gitdir, record, key)	once the copy's own
 *			index is made: its stat data and key (mirror.h)
 *			noted in the file record
 *	reuse_sync_index_same(dst_gitdir, record, key)	is it still as
 *			noted, for the same key?  Then it is what it would
 *			be made again: nothing wrote it since (a write
 *			gives it a new ctime, to the nanosecond)
 *
 * An incremental copy's build tools go by modification times: a file
 * that the sync rewrote to the very content it had before must keep the
 * time it had, or every uncommitted edit would be rebuilt at every run.
 *
 *	struct reuse_marks m = REUSE_MARKS_INIT;
 *	reuse_sync(..., &m, ...);	notes, before it changes anything,
 *			the files that differ from the copy's index, and
 *			the untracked ones, with their times and a digest
 *	reuse_sync_marks_add(&m, copy, &paths);	those paths too, but
 *			for any noted already
 *	... the sync, the changes, the untracked files ...
 *	reuse_sync_marks_restore(&m);	each file of them whose content is
 *			what it was gets its time back (its ctime is new:
 *			the proof looks at it again)
 *	reuse_sync_marks_free(&m);
 */
struct reuse_mark;
struct reuse_marks {
	char			*copy;
	struct reuse_mark	*v;
	size_t			 n;
};
#define REUSE_MARKS_INIT	{ NULL, NULL, 0 }

int	reuse_sync(const struct reuse_copy *, struct reuse_marks *, char **);
int	reuse_sync_index(const char *, const char *, const char *,
	    const char *);
void	reuse_sync_index_note(const char *, const char *, const char *);
int	reuse_sync_index_same(const char *, const char *, const char *);
void	reuse_sync_marks_add(struct reuse_marks *, const char *,
	    const struct strv *);
void	reuse_sync_marks_restore(struct reuse_marks *);
void	reuse_sync_marks_free(struct reuse_marks *);

/*
 * The rule files (reuse_rules.c).  An incremental copy keeps its own
 * ignored files (build output), but never one git reads as instructions
 * -- .gitattributes, .gitignore, .gitmodules, .lfsconfig, in any
 * directory git enters -- which would change how git hashes, checks out,
 * lists or cleans the copy, so that the proof sees the working state's
 * tree where the copy holds other bytes or other files.  Before anything
 * else looks at the copy:
 *
 *	reuse_rules_drop(rc, src, index, &dropped)
 *			each such ignored file removed (no symlink
 *			followed), and each untracked one the working tree
 *			src has not as it is (git clean would read it before
 *			it removes it), the tracked files being those of
 *			index (the working state's, not the copy's own
 *			index, a command's to rewrite; src NULL for a copy
 *			of a tree, which has no untracked file of the
 *			working tree's: each one goes); listed again while
 *			one removed may uncover more; the paths removed onto
 *			dropped.  -1 with a message: the copy is not to be
 *			used
 */
int	reuse_rules_drop(const struct reuse_copy *, const char *,
	    const char *, struct strv *);

/*
 * The look, the fix, the prefix (reuse_sync.c's reuse_sync_prepare(), the
 * rest reuse_look.c).  A reused copy proved as it stands (proof.h's
 * proof_reused()), and put right where it is not, path by path, instead
 * of being synced whole:
 *
 *	reuse_sync_prepare(rc, index, since, entries, untracked, &recent,
 *	    &links, &dst_gitdir)
 *			as reuse_sync(), but for its index flags, marks,
 *			and files: the modes are those of the working
 *			tree's index entries (entlist.h) rather than
 *			HEAD's, and every file that index (the last
 *			proof's, forge's own, of time since) does not list
 *			is removed, ignored ones kept if rc->keep_ignored
 *			(by a git clean that runs as the modes are seen to,
 *			its files in rc->scratch).
 *			Into recent: the files of entries and untracked
 *			whose ctime, not mtime, is as recent as since, to
 *			the second (git's stat data would not tell a
 *			rewrite in that second from them); into links,
 *			the files of entries that were symlinks
 *	reuse_look_fix(src, copy, fix)	each path of fix ("old new\tpath",
 *			proof.h) removed from the copy, then copied from
 *			src where the working state has it; directories
 *			left empty removed.  -1: one could not be (a
 *			submodule, a path gone from src): the copy is then
 *			to be synced whole
 *	reuse_look_prefix(src, copy, gone, paths, skip, &done)	as git is
 *			still to look at the working tree's changed files:
 *			each path of gone removed from the copy, and each
 *			of paths (but those of skip, sorted, if not NULL)
 *			copied from src, or removed where src has none --
 *			but where either has a directory, or something
 *			other than a file or symlink, left as it is, as is
 *			an empty file where the copy has one; each path
 *			written or removed, or tried, onto done, for git
 *			to look at in the copy
 *	reuse_look_prefix_start(&job, src, copy, paths)	the same of paths,
 *			in a thread of its own (signals blocked there): the
 *			caller touches neither the copy nor the umask
 *			(fs.h's fs_umask() is read first) until
 *	reuse_look_prefix_wait(&job)		job.paths were looked at, and
 *			job.done holds what reuse_look_prefix() gives
 *	reuse_look_prefix_free(&job)		waited for too
 *	reuse_look_then(&lk, &job, src, copy, paths)	the same as
 *			reuse_look_prefix_start(), but done by the look's
 *			own thread once its walk is over (and only if the
 *			walk did not fail); else, the look walking in no
 *			thread, started as that does.  Once
 *			reuse_look_wait(&lk) returns, reuse_look_prefix_wait()
 *			and job.done are as after reuse_look_prefix_start()
 *
 * reuse_sync_prepare() begun before the working tree is listed, from the
 * last proof's index alone, so that it runs beside git ls-files:
 *
 *	r = reuse_look_begin(&lk, rc, index, &since, by_times)
 *			0: that index cannot be read (gitindex.h), nothing
 *			done: reuse_sync_prepare() it is.  1: each directory on
 *			the way to its paths given a checkout's mode and,
 *			if it changed since (reuse_int.h's reuse_care;
 *			every one, unless by_times: the real-time clock
 *			was not set back since, proof.h),
 *			rid of what that index does not have (unless
 *			rc->keep_ignored: then git clean, started with it,
 *			does that), and each of its paths looked at: those
 *			whose file git is to look at again
 *			(gitindex_stale()) noted, and the symlinks.
 *			-1 with a message: the copy is not to be used.
 *			The walk over the copy goes on in a thread of its
 *			own (signals blocked there): until it is waited
 *			for, the caller touches neither the copy nor lk
 *	r = reuse_look_wait(&lk)	the walk over: its result, 0 or -1
 *			(with a message: the copy is not to be used);
 *			reuse_look_end() and reuse_look_free() wait too
 *	reuse_look_end(&lk, entries, &recent, &links, &dst_gitdir)
 *			the noted files that entries track given their
 *			modes, git clean waited for (run again if a
 *			directory's mode was reset, or it failed), HEAD
 *			detached: the noted paths into recent, which are
 *			all the files that can have changed since; the
 *			symlinks into links.  Freed either way
 *	reuse_look_free(&lk)	what is left of it ended (git clean
 *			waited for)
 *
 * An incremental copy's noted working state (reuse_look.c), the top
 * repository's (name NULL) or a nested one's (name, a file name's part):
 *
 *	reuse_look_state_write(carry, name, paths)	each path of it
 *			(sorted), noted in the run directory's carry: what
 *			forge put in the copy, which the copy's own ignored
 *			files are not.  -1: it could not be, and nothing is
 *			noted
 *	reuse_look_state_forget(carry, name)	nothing noted any more
 *	reuse_look_state_read(carry, name, &paths)	what was noted,
 *			sorted; -1 (and none) if nothing was, or not whole,
 *			or a path of it is none git could have (absolute,
 *			"..", ".git")
 */
struct reuse_prefix_job {
	pthread_t	 thread;
	int		 running;
	char		*src, *copy;
	struct strv	 paths, done;
};
struct reuse_look {
	char		*copy, *head, *index, *adm;
	struct git	 g;
	struct git_job	 clean;
	int		 cleaning;	/* clean started, not waited for */
	int		 pruned;	/* or none needed: forge removed
					   what the index has not */
	char		*out, *err;	/* its files */
	struct git_job	 detach;	/* HEAD detached at head, begun
					   with the look */
	int		 detaching;	/* started, not waited for */
	char		*dout, *derr;	/* its files */
	int		 keep_ignored;
	int		 dirs;		/* directories whose mode was reset */
	struct strv	 stale, links;
	struct strv	 odd;		/* unchanged files of modes no
					   checkout gives */
	/* The walk over the copy, in a thread of its own until
	 * reuse_look_wait(); nothing above but what it fills is touched
	 * meanwhile, nor the copy. */
	pthread_t	 thread, owner;	/* its, and its caller's */
	int		 walking;	/* its thread not joined */
	int		 fd;		/* the index it reads, or -1 */
	size_t		 rawsz;
	struct timespec	 since;
	int		 by_times;	/* directories' times believed */
	int		 walked;	/* its result: 0, or -1 */
	int		 go[2];		/* a byte: then is set; its end:
					   nothing more will be */
	struct reuse_prefix_job *then;	/* its to do after the walk */
};

int	reuse_sync_prepare(const struct reuse_copy *, const char *, time_t,
	    const struct entlist *, const struct strv *, struct strv *,
	    struct strv *, char **);
int	reuse_look_begin(struct reuse_look *, const struct reuse_copy *,
	    const char *, const struct timespec *, int);
int	reuse_look_end(struct reuse_look *, const struct entlist *,
	    struct strv *, struct strv *, char **);
void	reuse_look_free(struct reuse_look *);
int	reuse_look_wait(struct reuse_look *);
void	reuse_look_then(struct reuse_look *, struct reuse_prefix_job *,
	    const char *, const char *, const struct strv *);
int	reuse_look_fix(const char *, const char *, const struct strv *);
void	reuse_look_prefix(const char *, const char *, const struct strv *,
	    const struct strv *, const struct strv *, struct strv *);
void	reuse_look_prefix_start(struct reuse_prefix_job *, const char *,
	    const char *, const struct strv *);
void	reuse_look_prefix_wait(struct reuse_prefix_job *);
void	reuse_look_prefix_free(struct reuse_prefix_job *);
int	reuse_look_state_write(const char *, const char *, const struct strv *);
int	reuse_look_state_read(const char *, const char *, struct strv *);
void	reuse_look_state_forget(const char *, const char *);

/*
 * The modes git does not record (reuse_modes.c).
 *
 *	reuse_modes(src, copy, paths, entries, flagged, filemode)
 *			the modes git does not record of those paths, as a
 *			fresh copy has them (entries: entlist.h; flagged:
 *			lsfiles.h)
 */
int	reuse_modes(const char *, const char *, const struct strv *,
	    const struct entlist *, const struct strv *, int);

#endif /* REUSE_H */
