/*
 * The proof that a copy is the working state: the git tree id of the
 * source's working state and that of the copy, computed by treeid.h, must
 * be equal.  Most of it runs in the background while the copy is built:
 * the source's side from the start, the copy's index made ready as soon
 * as git is done with it, and the scan for files changed since the
 * checkout while git adds.
 *
 * One section below for each way in:
 *	the proof of a copy	proof_begin() ... proof_finish()  (proof.c)
 *	the look at the source	proof_look_*()  (proof_look.c)
 *	a reused copy		proof_reused*()  (proof_reused.c)
 *	the carried index	proof_carry_copy_index()  (proof_carry.c)
 *	in place, and scratch	proof_source_tree(), proof_scratch()
 *
 * Between runs, each side of a proof of a copy that may be parked leaves
 * the index it ended with in the run directory's carry directory
 * (rundir.h): the carried index, which the same side of the next run's
 * proof starts from, git's stat cache carried over.  It is believed only
 * where the key file beside it seals it for what this run's side is
 * computed from, and as forge left it.
 */
#ifndef PROOF_H
#define PROOF_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "gitindex.h"
#include "lsfiles.h"
#include "repo.h"
#include "rundir.h"
#include "strv.h"

/*
 * The proof of a copy, one per repository of the copy (the top one, each
 * nested one):
 *
 *	struct proof_repo pr = { ... };
 *	struct proof *p = proof_begin(&pr, &lsfiles, rd, id);
 *					NULL: could not start (said why);
 *					the source's side is running
 *	... git worktree add ...
 *	proof_checked_out(p, few);	right after the checkout: from now
 *					on, a file the copy has that is
 *					changed has a later ctime or mtime
 *					(few: the checkout wrote few files,
 *					and those git wrote as recently as
 *					the present are looked at again,
 *					rather than the clock waited for)
 *	... anything else that writes the copy's index ...
 *	proof_index_ready(p, dst_gitdir);	nothing more writes it
 *	proof_copied(p, &paths);	the files copied whole (bigfile.h)
 *					are in the copy: git may hash those
 *					now, while the source's side runs,
 *					if it converts them (attributes)
 *					as it will once the copy is done
 *	... the rest of the copy ...
 *	proof_poll(p);			between steps, or from a spawn idle
 *					hook (spawn.h): moves the jobs on,
 *					never waits
 *	proof_source_changed(p, &v)	once the source's side is done (1),
 *					v points at the paths where the
 *					working state differs from HEAD;
 *					0: not yet; -1: it failed
 *	proof_list_changed(p);		a reused copy's (pr.reused; else
 *					nothing), before it is built the
 *					full way, whether or not
 *					proof_reused() was tried: the
 *					source's side lists the paths
 *					proof_source_changed() gives, which
 *					the way as it stands never needs: as
 *					it goes on, or once more if it has
 *					ended (-1: it failed, said why)
 *	tree = proof_finish(p);		waits, and compares: the proved
 *					tree id, or NULL with what differs
 *					said; with pr.carry, each side's
 *					index is carried to the next run
 *	proof_free(p);			also ends whatever still runs
 *
 * Who owns what: the proof is the caller's, from proof_begin() to
 * proof_free(), which ends its jobs and removes its temporary files in
 * rd's scratch space; rd must outlive it.  pr is copied, but what its
 * fields point at is borrowed and must stay valid until proof_free()
 * (pr.look: only during proof_begin()).  lsfiles is read during
 * proof_begin() alone.  The list proof_source_changed() points at is the
 * proof's.  proof_finish()'s tree id is the caller's to free.
 */
struct proof_look;

struct proof_repo {
	const char		*src;		/* the source's working tree */
	const char		*common;	/* its common git dir */
	const struct proof_look	*look;		/* or NULL */
	const char		*gitdir;	/* its git dir */
	const char		*index;		/* a private copy of its index */
	const char		*objects;	/* its object directory */
	const char		*head;		/* the commit checked out */
	const char		*dst;		/* the copy */
	const char		*rel;		/* the copy below the top one,
						   for messages ("" or "a/") */
	const struct entlist	*entries;	/* the source's index entries
						   (entlist.h), in index order */
	const struct strv	*exclude;	/* nested repositories left out */
	int			 sparse;	/* a sparse checkout */
	int			 convert;	/* git may convert what it reads
						   (attributes, core.autocrlf):
						   no file is hashed without
						   its blob written, whose
						   entry a later add may need
						   to read */
	int			 own_ignored;	/* the copy has ignored files
						   of its own (--incremental) */
	int			 carry;		/* carry the indexes its proof
						   ends with to the next run's
						   (the copy may be parked) */
	int			 reused;	/* a parked copy, proved as it
						   stands first: the paths of
						   the source that differ from
						   HEAD are listed only once
						   proof_list_changed() is
						   called */
	long long		 big;		/* forge.copyThreshold: a
						   changed file larger is
						   hashed without its blob
						   written */
	const struct strv	*nested;	/* the repositories nested in
						   it, initialized, (or NULL):
						   the gitlink entry of each
						   ("160000 commit\tpath",
						   lsfiles.h), at the commit
						   it has checked out, sorted
						   by path (lsfiles_sort()) */
};

struct proof;

struct proof	*proof_begin(const struct proof_repo *, const struct lsfiles *,
		    struct rundir *, size_t);
void		 proof_checked_out(struct proof *, int);
void		 proof_index_ready(struct proof *, const char *);
void		 proof_copied(struct proof *, const struct strv *);
void		 proof_poll(struct proof *);
int		 proof_source_changed(const struct proof *,
		    const struct strv **);
int		 proof_list_changed(struct proof *);
char		*proof_finish(struct proof *);
void		 proof_free(struct proof *);

/*
 * The look at the source: a reused copy's run looks at the source's
 * files while git lists them, against the source's carried index:
 *
 *	proof_look_start(&lk, rd, id, src, common, head);	in a
 *				thread of its own, while forge goes on
 *	proof_look_wait(&lk);	done
 *	pr.look = &lk;		proof_begin() takes it if that index is
 *				the one sealed for this run (then git looks
 *				at the files changed since, and those the
 *				working state has that it has not, only)
 *	proof_look_free(&lk);	waited for, and freed
 *	n = proof_look_source_looked(p);	how many of the source's
 *				paths git looked at so (-1: it looked at
 *				every file)
 *	v = proof_look_source_paths(p);	and which (NULL: every file)
 *	v = proof_look_source_gone(p);	the paths the index it began from
 *				had that the working state has not (NULL:
 *				it looked at every file)
 *
 * Who owns what: lk is the caller's storage, and what it holds, from
 * proof_look_start() on, is freed by proof_look_free(), which may come
 * as soon as proof_begin() has returned; until proof_look_wait(), the
 * look's thread alone touches it.  The fields below are read once it has
 * been waited for.  The lists proof_look_source_paths() and
 * proof_look_source_gone() give are the proof's.
 */
struct proof_look {
	int		 ok;		/* the look was made */
	int		 fd;		/* of that index, open (if ok) */
	struct stat	 seen;		/* and its file as looked at */
	struct strv	 stale;		/* paths whose files changed since */
	struct strv	 unsure;	/* those git might take as they
					   were (gitindex_stale()'s 2) */
	struct timespec	 since;		/* taken before the look */
	char		*idx, *src;	/* private */
	size_t		 rawsz;
	pthread_t	 thread;
	int		 running;
};

void		 proof_look_start(struct proof_look *, struct rundir *,
		    size_t, const char *, const char *, const char *);
void		 proof_look_wait(struct proof_look *);
void		 proof_look_free(struct proof_look *);
long		 proof_look_source_looked(const struct proof *);
const struct strv *proof_look_source_paths(const struct proof *);
const struct strv *proof_look_source_gone(const struct proof *);

/*
 * A reused copy (reuse.h) is proved as it stands first, from the copy's
 * carried index, before anything is done to it (pr.reused):
 *
 *	idx = proof_reused_index(p);	the copy's carried index, if any
 *					(NULL: none, so -1 below)
 *	t = proof_reused_time(p);	that index's time (0: none)
 *	proof_reused_look(p, &paths, only);	paths git is to look at
 *					again however their stat data looks;
 *					only: and at nothing else, as no
 *					other file can have changed since
 *					the index proof_reused_index() gave
 *	proof_reused_written(p, &paths);	with only: paths forge
 *					wrote or removed in the copy since,
 *					each file written a new inode, which
 *					git's stat data cannot take for the
 *					old: git looks at them too
 *	proof_reused_start(p, dst_gitdir);	may come first, so that
 *					the look runs while forge does other
 *					work (-1: it cannot, nor can
 *					proof_reused() then)
 *	r = proof_reused(p, dst_gitdir, &fix);
 *		1: it holds the working state; proof_finish() says so
 *		   without looking again, and nothing else is to be done
 *		0: it does not; fix lists each path that differs, as
 *		   "old new\tpath", the modes in the copy and in the
 *		   working state ("000000": none there).  Once those
 *		   are put right, proof_reused() once more looks at
 *		   what changed since its first look
 *		-1: it cannot tell (no index to start from, or git
 *		   failed): the copy is to be built and proved the full
 *		   way, from proof_checked_out() on, after
 *		   proof_list_changed()
 *	proof_reused_copy_index(p)	after 1: the index the copy's
 *					side ended with (for reuse_sync_index())
 *
 * Who owns what: the paths given are the proof's, proof_reused_index()'s
 * until proof_free(), proof_reused_copy_index()'s until proof_finish() (which
 * carries that index, or removes it).  The lists given to
 * proof_reused_look() and proof_reused_written() are copied.  fix is the
 * caller's list: proof_reused() adds to it, or empties it on -1.
 */
const char	*proof_reused_index(struct proof *);
time_t		 proof_reused_time(struct proof *);
void		 proof_reused_look(struct proof *, const struct strv *, int);
void		 proof_reused_written(struct proof *, const struct strv *);
int		 proof_reused_start(struct proof *, const char *);
int		 proof_reused(struct proof *, const char *, struct strv *);
const char	*proof_reused_copy_index(const struct proof *);

/*
 * The copy's carried index before there is a proof, for a reused copy
 * with nothing excluded whose proof of id (proof_begin()) is to be
 * started later:
 *
 *	idx = proof_carry_copy_index(rd, id, dst, own_ignored, &t);
 *			NULL: none carried for that copy and that kind of
 *			copy (own_ignored), or not as forge left it; else
 *			its path, the caller's to free, and t its time
 */
char		*proof_carry_copy_index(struct rundir *, size_t, const char *,
		    int, struct timespec *);
/*
 * 1 if the real-time clock has not been set back since the copy's
 * index of proof id was carried, in this boot (the boot-time clock
 * moved no further than it, to a second); else 0, and no time of the
 * copy's is to be compared with that index's for order.
 */
int		 proof_carry_clock_steady(const struct rundir *, size_t);

/*
 * In place, there is no copy, only the source's tree id to record:
 *	tree = proof_source_tree(rd, repo);	the caller's to free
 *
 * Any treeid.h request of the run takes its scratch space from rd:
 *	proof_scratch(&q, rd);	its temporary files, the trees in
 *				rd.objects, the blobs in rd.blobs with
 *				those of the last run (rd.blobs_last)
 */
char		*proof_source_tree(struct rundir *, const struct repo *);
struct treeid_req;
void		 proof_scratch(struct treeid_req *, const struct rundir *);

#endif /* PROOF_H */
