/*
 * The private directory of one run, recorded in the journal before it
 * exists, and removed on every way out.
 *
 *	struct rundir rd;
 *	if (rundir_open(&rd, repo.common) == -1)	message printed
 *		...
 *	rd.top		$TMPDIR/forge-<run id>, mode 0700: the copy goes
 *			in it, beside
 *	rd.scratch	top/.forge: temporary indexes, and
 *	rd.objects	scratch/objects, a temporary object directory: the
 *			trees the proof writes, which a carried index names
 *	rd.blobs	scratch/blobs, another: the files' blobs it writes,
 *			which no later run needs, and
 *	rd.blobs_last	scratch/blobs.last: the last run's, if this one
 *			reuses its copy (else empty), for git to find
 *	rd.blobs_copy	scratch/blobs.copy: those the copy's side of the
 *			proof writes, apart from the source's side's: a
 *			git reading a blob it finds in neither takes the
 *			file as changed, and one that a git of the other
 *			side wrote between its two looks as corrupt
 *	rd.carry	scratch/carry: what a run leaves for the next to
 *			reuse with the copy (proof_carry.c), kept when
 *			the scratch space is emptied
 *	idx = rundir_index(&rd, "/repo/.git/index");
 *			a private copy of an index (times kept) for git to
 *			read the working state through: whatever git
 *			refreshes then, it writes there, never into the
 *			user's index; the caller frees the path
 *	rundir_note_repo(&rd, common);	before a git worktree add in the
 *					repository with that common dir
 *	rundir_note_child(&rd, pid);	the command's process group, for
 *					a later reclaim to end
 *	rundir_remove(&rd);	or rundir_keep(&rd, copy) for --keep,
 *				or rundir_park(&rd, &note) to leave it
 *				for the next run to reuse (reuse.h)
 *	rundir_free(&rd);
 *
 * A cleanup entry (cleanup.h) removes the directory and every worktree
 * registration noted, should forge exit any other way.
 */
#ifndef RUNDIR_H
#define RUNDIR_H

#include <sys/types.h>

#include "journal.h"
#include "strv.h"

struct cleanup;

struct rundir {
	char		 run[32];
	char		*top;
	char		*scratch;
	char		*objects;
	char		*blobs;
	char		*blobs_last;
	char		*blobs_copy;
	char		*carry;
	struct journal	 journal;
	struct strv	 commons;
	struct cleanup	*cleanup;
	int		 state;		/* private */
	int		 topfd;		/* private: top, as made (O_PATH) */
	int		 made;		/* private: top was made */
	int		 nindex;	/* private */
};

int	 rundir_open(struct rundir *, const char *);
int	 rundir_note_repo(struct rundir *, const char *);
int	 rundir_note_child(struct rundir *, pid_t);
char	*rundir_index(struct rundir *, const char *);
int	 rundir_remove(struct rundir *);
int	 rundir_keep(struct rundir *, const char *);
int	 rundir_kept(const struct rundir *);
/* A parked copy's directory, its record claimed (journal_claim) and
 * handed over in j: the run's now, its scratch space emptied. */
int	 rundir_adopt(struct rundir *, struct journal *,
	    const struct journal_entry *);
/* Parked: the record's "reuse" note (journal.h) written, the record let
 * go for the next run to claim. */
int	 rundir_park(struct rundir *, const struct journal_reuse *);
int	 rundir_parked(const struct rundir *);
void	 rundir_free(struct rundir *);
/* $TMPDIR (or /tmp), absolute and resolved; the caller frees. */
char	*rundir_tmpdir(void);

#endif /* RUNDIR_H */
