/*
 * Reclaiming the copies of runs that are gone, from their records
 * (journal.h): a record that can be locked belongs to a run that is
 * gone, and what it names is removed -- the worktree registrations, the
 * directory, what the run left running.
 *
 *	struct reclaim rc;
 *	journal_reclaim(common, flags, 0, &rc);	remove copies of runs that are
 *						gone (ending what they left
 *						running), and say so in rc
 *	journal_reclaim_free(&rc);
 */
#ifndef JOURNAL_RECLAIM_H
#define JOURNAL_RECLAIM_H

#include <sys/types.h>

#include <time.h>

#include "journal.h"
#include "strv.h"

#define JOURNAL_DRY_RUN		0x01	/* only say what would go */
#define JOURNAL_KEPT		0x02	/* kept copies go too */
#define JOURNAL_REUSABLE	0x04	/* reusable copies go too */

/* What a reclaim did, for the caller to print; owns its strings. */
struct reclaimed {
	char	*top;		/* the copy's directory */
	long	 pid;		/* the run's forge */
	int	 kept;		/* kept by --keep, not left by a death */
	int	 reusable;	/* parked for reuse */
	int	 expired;	/* kept or parked, unused past the expiry */
};

struct reclaim {
	struct reclaimed	*v;		/* removed (dry run: to be) */
	size_t			 n;
	struct strv		 kept;		/* kept copies left alone */
	struct strv		 reusable;	/* reusable copies left alone */
	struct strv		 left;		/* what stayed, and why */
	struct strv		 registrations;	/* orphans removed */
};

/* Kept and parked copies last used at or before expire (0: none) go
 * too, marked expired. */
int	journal_reclaim(const char *, int, time_t, struct reclaim *);
void	journal_reclaim_free(struct reclaim *);
/* Worktree registrations forge made (its lock reason says so) whose run
 * has no record left and whose copy is gone from the disk: removed, one
 * by one, and named in rc.registrations.  Never a repository-wide "git
 * worktree prune", which would take the user's own worktrees whose
 * directory is away for a while. */
int	journal_reclaim_orphans(const char *, int, struct reclaim *);
/*
 * Remove what a record describes: its worktree registrations, then the
 * directory.  own: the run removing its own copy.  Otherwise the record
 * may have been written by hand, and the directory goes with all it holds
 * only if it holds the run's mark (JOURNAL_MARK); without it, only empty
 * directories or a stale symlink go, and registrations only if their lock
 * reason names the run.  -1 if anything would not go, with one line for
 * each thing left in place and why pushed onto left ("a file system is
 * mounted at ..."), or a refusal said; the caller keeps the record.
 */
int	journal_reclaim_copy(const struct journal_entry *, int,
	    struct strv *);
/* Does the directory the record names hold the run's own mark?  Only
 * then is it the run's: a record written by hand cannot make another
 * directory pass. */
int	journal_reclaim_top_is_runs(const struct journal_entry *);
/* The run's registrations in common (their lock reason names it) whose
 * working tree is copy: removed, for a copy made again at that path --
 * git refuses a path a missing, locked worktree still has.  -1 if one
 * would not go. */
int	journal_reclaim_registration(const char *, const char *,
	    const char *);

#endif /* JOURNAL_RECLAIM_H */
