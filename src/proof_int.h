/*
 * What the proof's three files share, and nothing else includes: a git
 * refs-internal.h of the proof.  proof.c proves a fresh copy and holds
 * the two sides every proof computes; proof_reused.c proves a reused
 * copy as it stands, starting from the look at the source; proof_carry.c
 * keeps the indexes a proof carries from one run to the next.  proof.h
 * is the manual of what the callers see.
 *
 * struct proof is made by proof_begin() and freed by proof_free(), which
 * free every string and list in it; each file keeps to the fields of its
 * own job and calls the others' functions for the rest.
 */
#ifndef PROOF_INT_H
#define PROOF_INT_H

#include <stddef.h>
#include <time.h>

#include "gitcmd.h"
#include "lsfiles.h"
#include "proof.h"
#include "rundir.h"
#include "spawn.h"
#include "strv.h"
#include "treeid.h"

struct proof {
	struct proof_repo	 r;
	struct rundir		*rd;
	size_t			 id;		/* names its temporary files */
	struct strv		 edits;		/* flagged entries, as on disk */
	struct strv		 conflicts;	/* the source's conflicts' entries
						   (lsfiles.h) */
	struct strv		 look_only;	/* the source's paths git is to
						   look at (proof_look) */
	struct strv		 look_gone;	/* and those it has no longer */
	struct timespec		 src_since;	/* taken before the source's
						   side looked at its files */
	struct git		 src_git;
	struct treeid_req	 src_req;	/* the source's tree, computed */
	struct treeid_job	 src_job;	/* while the copy is built */
	int			 src_started;
	char			*dst_gitdir;	/* the copy's registration */
	struct git		 dst_git;
	struct strv		 prep_edits;	/* the copy's index, made ready
						   for its side of the proof */
	struct treeid_req	 prep_req;	/* as soon as the source's side */
	struct treeid_job	 prep_job;	/* and git are done */
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
	char			*dst_index;
	int			 index_ready;	/* nothing more will write it */
	struct timespec		 checked_out;	/* when git worktree add was
						   done */
	char			*src_key;	/* what the source's carried
						   index is to be for */
	char			*src_carried;	/* that index, if the last run
						   left one sealed for it */
	char			*src_tree;	/* the source's side's tree */
	int			 src_failed;
	int			 src_afresh;	/* times computed again */
	char			*copy_index;	/* the index the copy's side
						   ended with, held */
	int			 copy_runs;
	struct spawn_idle	 copy_idle;	/* the source's side moved on */
	struct spawn_idle	 src_idle;	/* the early hash moved on */
	char			*settled;	/* the tree both sides had,
						   before the copy was built */
	char			*copy_carried;	/* the copy's carried index,
						   its last proof's */
	struct strv		 fixed;		/* the paths it had wrong */
	struct treeid_job	 fast_job;	/* its side, as it stands */
	int			 fast_started;
	struct strv		 fast_edits;
	int			 recent_only;	/* and nothing else */
	struct strv		 recent_files;	/* those not directories */
	struct strv		 recent;	/* the copy's paths to look at
						   again, for its carried index */
	struct strv		 written;	/* and those forge wrote */
};

/* proof.c: the source's side and the copy's. */
size_t		 proof_hash_size(const struct proof *);
void		 proof_dst_git(struct proof *, const char *);
void		 proof_no_entry(const struct proof *, struct strv *,
		    const char *);
void		 proof_fresh_entries(const struct proof *, struct strv *,
		    const struct strv *);
void		 proof_conflict_entries(const struct proof *, struct strv *);
void		 proof_src_clock(const char *, const char *, struct timespec *);
void		 proof_hold_copy_index(struct proof *, struct treeid_job *);
const char	*proof_src_side_tree(struct proof *);
void		 proof_poll_src_side(void *);

/* proof_reused.c: the look at the source, taken by proof_begin(). */
int		 proof_look_take(struct proof *, const struct lsfiles *);

/* proof_carry.c: the carried indexes. */
char		*proof_carry_src_key(const struct proof_repo *,
		    const struct lsfiles *);
char		*proof_carry_path(const struct rundir *, size_t, const char *,
		    const char *);
char		*proof_carry_find(const struct rundir *, size_t, const char *,
		    const char *);
void		 proof_carry_drop(const struct rundir *, size_t, const char *);
void		 proof_carry_leave_src(struct proof *);
char		*proof_carry_copy_find(const struct proof *);
void		 proof_carry_leave_copy(struct proof *);

#endif /* PROOF_INT_H */
