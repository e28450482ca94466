/*
 * What the proof's four files share, as git's refs-internal.h is for
 * refs: nothing but proof.c, proof_look.c, proof_reused.c and
 * proof_carry.c includes it.  Callers read proof.h, the manual.
 *
 *	proof.c		proves a fresh copy: proof_begin() to
 *			proof_finish(), the source's side and the copy's,
 *			which proof_reused.c calls for its parts
 *	proof_look.c	looks at the source for the source's side to
 *			start from (proof_look_*()), and makes the index
 *			lines the others start git from
 *	proof_reused.c	proves a reused copy as it stands
 *			(proof_reused*())
 *	proof_carry.c	the indexes carried from one run to the next
 *
 * The words, one thing each: the carry directory is the run directory's
 * (rd->carry, rundir.h), which outlives the run's scratch space.  A
 * carried index is the index a side of the proof ended with, left there
 * for the same side of the next run's proof to start from ("src": the
 * source's, "dst": the copy's), and believed only where its seal, the
 * key file beside it, says it is for this run's key and is the file
 * forge left.  A key is what a carried index is for: the inputs that
 * side would be computed from.
 *
 * struct proof is proof_begin()'s, freed by proof_free() with every
 * string, list and job in it; the fields are grouped by the file whose
 * job they are, and a file reads another's only as its functions say.
 * Paths a function returns are the caller's to free.
 */
#ifndef PROOF_INT_H
#define PROOF_INT_H

#include <stddef.h>
#include <time.h>

#include "git.h"
#include "lsfiles.h"
#include "proof.h"
#include "rundir.h"
#include "spawn.h"
#include "strv.h"
#include "treeid.h"

struct proof {
	struct proof_repo	 r;
	struct rundir		*rd;
	size_t			 id;		/* names its files */

	/*
	 * The source's side (proof.c): from the source's index, or from
	 * its carried index (src_carried, proof_carry.c), or from that
	 * index and the look (proof_look_take(), proof_look.c).
	 */
	struct strv		 edits;		/* update-index lines, first:
						   flagged entries as on disk,
						   and what puts the carried
						   index right */
	struct strv		 conflicts;	/* the source's conflicts'
						   entries (lsfiles.h) */
	struct strv		 look_only;	/* the paths git is to look at
						   (proof_look_take()) */
	struct strv		 look_gone;	/* and those it has no longer */
	struct timespec		 src_since;	/* taken before the source's
						   side looked at its files */
	char			*src_key;	/* what the source's carried
						   index is to be for */
	char			*src_look_key;	/* the same but for the
						   untracked files: for the
						   look alone, which sees
						   to them */
	char			*src_carried;	/* that index, if the last run
						   left one sealed for it */
	struct git		 src_git;
	struct spawn_idle	 src_idle;	/* the early hash moved on */
	struct treeid_req	 src_req;	/* the source's tree, */
	struct treeid_job	 src_job;	/* computed as the copy is
						   built */
	int			 src_started;
	char			*src_tree;	/* the source's side's tree */
	int			 src_failed;
	int			 src_afresh;	/* times computed again */
	int			 src_stale;	/* stale entries looked at */

	/*
	 * The copy's side (proof.c): its index made ready as soon as git
	 * is done with it, the big files hashed early, then the rest.
	 */
	char			*dst_gitdir;	/* the copy's registration */
	struct git		 dst_git;
	struct spawn_idle	 copy_idle;	/* the source's side moved on */
	char			*dst_index;	/* the checkout's, as it was */
	int			 dst_index_kept; /* a link or copy of it, in
						   the scratch directory */
	int			 index_ready;	/* nothing more will write it */
	struct timespec		 checked_out;	/* when git worktree add was
						   done */
	struct strv		 prep_edits;	/* the copy's index, made ready
						   for its side of the proof */
	struct treeid_req	 prep_req;	/* as soon as the source's */
	struct treeid_job	 prep_job;	/* side and git are done */
	int			 prep_started;
	struct strv		 early_paths;	/* big files copied whole, */
	struct strv		 early_edits;	/* hashed in the copy as soon */
	struct treeid_req	 early_req;	/* as they are there, while */
	struct treeid_job	 early_job;	/* the source's side runs */
	int			 early_started;
	struct timespec		 early_at;	/* when its git started */
	struct strv		 early_done;	/* the paths it hashed */
	struct strv		 rest;		/* the paths where the source
						   differs from HEAD, but those
						   hashed early */
	int			 plain;		/* nothing but files: no
						   submodule, conflict, nested
						   repository or sparse
						   checkout, no ignored file
						   of the copy's own */
	struct strv		 untracked;	/* the source's (if plain) */
	char			*copy_index;	/* the index the copy's side
						   ended with, held to be
						   carried (proof_carry.c) */

	/* A reused copy, proved as it stands (proof_reused.c). */
	char			*copy_carried;	/* the copy's carried index,
						   its last proof's */
	struct strv		 recent;	/* the copy's paths git is to
						   look at again */
	int			 recent_only;	/* and at nothing else */
	struct strv		 written;	/* the paths forge wrote */
	struct strv		 recent_files;	/* of both, those not
						   directories */
	struct strv		 fast_edits;
	struct treeid_job	 fast_job;	/* its side, as it stands */
	int			 fast_started;
	int			 copy_runs;
	struct strv		 fixed;		/* the paths it had wrong */
	char			*settled;	/* the tree both sides had,
						   before the copy was built */
};

/*
 * proof.c, for proof_reused.c:
 *	proof_hash_size(p)		the repository's object ids' size in
 *					bytes, 20 or 32 (0: not known)
 *	proof_dst_git(p, dst_gitdir)	p->dst_git made the copy's git
 *	proof_copy_scratch(&q, rd)	proof_scratch() for a request of
 *					the copy's side: the blobs it
 *					writes in rd.blobs_copy
 *	proof_conflict_entries(p, &v)	pushes the conflicts' entries, for
 *					a copy with ignored files of its own
 *	proof_hold_copy_index(p, job)	p->copy_index: the index job ended
 *					with, until it is carried or dropped
 *	t = proof_src_side_tree(p);	waits for the source's side's tree,
 *					computed again without the carried
 *					index if git failed with it (NULL:
 *					failed, said why); p's
 *	proof_poll_src_side(p)		a spawn idle hook (spawn.h)
 */
size_t		 proof_hash_size(const struct proof *);
void		 proof_dst_git(struct proof *, const char *);
void		 proof_copy_scratch(struct treeid_req *,
		    const struct rundir *);
void		 proof_conflict_entries(const struct proof *, struct strv *);
void		 proof_hold_copy_index(struct proof *, struct treeid_job *);
const char	*proof_src_side_tree(struct proof *);
void		 proof_poll_src_side(void *);

/*
 * proof_plain.c, for proof.c: a copy of nothing but files (p->plain)
 *	proof_plain_only(p, &q, &only)	q made to have git look at the paths
 *					forge wrote alone, onto only (the
 *					caller frees it)
 *	n = proof_plain_look(p, index, rawsz, &only, &paths, job)	while
 *					job runs: the entries of the copy's
 *					index not in only whose file is not
 *					as git wrote it, onto paths; then
 *					the copy's files counted (-1: not
 *					known)
 *	proof_plain_settled(n, index, rawsz)	0 if the index job ended
 *					with has as many entries: nothing
 *					else is in the copy; else -1
 */
void		 proof_plain_only(const struct proof *, struct treeid_req *,
		    struct strv *);
long		 proof_plain_look(const struct proof *, const char *, size_t,
		    const struct strv *, struct strv *, struct treeid_job *);
int		 proof_plain_settled(long, const char *, size_t);

/*
 * proof_look.c, for the other two:
 *	proof_look_no_entry(p, &v, path)	pushes the update-index
 *					line that removes path's entry
 *	proof_look_fresh_entries(p, &v, &paths)	pushes the lines that have
 *					git look at each path afresh
 *	proof_look_src_clock(src, common, &t)	the present on the source's
 *					file system's clock
 *	proof_look_is_dir(top, path)		1: path below top is a directory
 *					(no symlink followed at its end)
 *	proof_look_not_dirs(top, &paths, &out)	pushes the paths whose file
 *					below top is no directory
 *	proof_look_take(p, l)		for proof_begin(): 0: the source's
 *					side is to look at what the look
 *					found changed since the carried
 *					index, and at nothing else
 *					(p->look_only, p->edits set); -1:
 *					at every file
 */
void		 proof_look_no_entry(const struct proof *, struct strv *,
		    const char *);
void		 proof_look_fresh_entries(const struct proof *, struct strv *,
		    const struct strv *);
void		 proof_look_src_clock(const char *, const char *,
		    struct timespec *);
int		 proof_look_is_dir(const char *, const char *);
void		 proof_look_not_dirs(const char *, const struct strv *,
		    struct strv *);
int		 proof_look_take(struct proof *, const struct lsfiles *);

/*
 * proof_carry.c, the carried indexes, files in rd->carry named for the
 * side and the proof's id; the caller frees every string returned:
 *	key = proof_carry_src_key(pr, l, &look);	the source's side's
 *				key, and into look the one that the look
 *				alone may start from (proof_look_take()):
 *				the same but for the untracked files
 *	path = proof_carry_path(rd, id, side, what);	"index" or "key"
 *	idx = proof_carry_find(rd, id, side, key);	the side's carried
 *				index, if sealed for key (else NULL)
 *	idx = proof_carry_copy_find(p);	the copy's, for p's copy
 *	proof_carry_drop(rd, id, side);	none carried any more
 *	proof_carry_leave_src(p);	once the two sides agree: each side's
 *	proof_carry_leave_copy(p);	index carried to the next run, the
 *					one before dropped (none if that
 *					fails)
 */
char		*proof_carry_src_key(const struct proof_repo *,
		    const struct lsfiles *, char **);
char		*proof_carry_path(const struct rundir *, size_t, const char *,
		    const char *);
char		*proof_carry_find(const struct rundir *, size_t, const char *,
		    const char *);
char		*proof_carry_copy_find(const struct proof *);
void		 proof_carry_drop(const struct rundir *, size_t, const char *);
void		 proof_carry_leave_src(struct proof *);
void		 proof_carry_leave_copy(struct proof *);

#endif /* PROOF_INT_H */
