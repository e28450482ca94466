/*
 * The journal of copies: what every run creates, recorded before it is
 * created, so that a run killed outright (SIGKILL, power cut) leaves
 * enough behind for a later run to remove its copy.
 *
 * One file per run, <common dir>/forge/copies/<run id>, of JSON lines
 * that are only ever appended:
 *	{"run":"..","pid":N,"start":N,"boot":"..","top":"/tmp/forge-..",
 *	 "created":".."}		first, before the directory exists
 *	{"repo":"<common dir>"}		before each git worktree add
 *	{"child":N,"start":N}		the command's process group
 *	{"kept":"<copy path>"}		--keep: leave it for forge gc --kept
 *	{"reuse":"<copy path>","source":"<working tree>",
 *	 "incremental":B,"setup":".."}	parked for the next run's reuse
 *	{"use":"..","pid":N,"start":N,"boot":".."}
 *					a later run took the parked copy
 *					over: it is now the owner
 *
 * The owner holds an flock(2) on its file for as long as it lives, so a
 * file that can be locked belongs to a run that is gone; the pid and its
 * start time (from /proc) are checked as well, so a recycled pid is never
 * mistaken for the owner, and a live run's copy is never touched.
 *
 *	struct journal j;
 *	journal_open(&j, common, run, top);	-1: cannot record (message)
 *	journal_note_repo(&j, sub_common);
 *	... journal_close(&j, 1);		remove the record (copy gone)
 *
 *	struct reclaim rc;
 *	journal_reclaim(common, flags, 0, &rc);	remove copies of runs that are
 *						gone (ending what they left
 *						running), and say so in rc
 *	reclaim_free(&rc);
 */
#ifndef JOURNAL_H
#define JOURNAL_H

#include <sys/types.h>

#include <time.h>

#include "strv.h"

struct journal {
	char	*path;		/* the record file */
	int	 fd;		/* open and flock'ed while we live */
};

struct journal_entry {
	char			*run;
	long			 pid;
	unsigned long long	 start;
	char			*boot;
	char			*top;
	char			*created;
	struct strv		 repos;
	long			 child;
	unsigned long long	 child_start;
	char			*kept;
	char			*reuse;		/* parked: the copy */
	char			*reuse_source;	/* the working tree it copies */
	char			*reuse_setup;	/* the setup steps it had */
	int			 incremental;
	int			 reusable;	/* parked at least once */
	time_t			 last_use;	/* when it was last parked */
};

/* A run's own directory holds JOURNAL_SCRATCH/JOURNAL_MARK, its run id:
 * the proof that the directory a record names is that run's. */
#define JOURNAL_SCRATCH	".forge"
#define JOURNAL_MARK	"run"
/* Everything a run starts carries JOURNAL_ENV=<run id> in its
 * environment: a reclaim ends only processes that are the run's. */
#define JOURNAL_ENV	"FORGE_RUN"

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

int	journal_open(struct journal *, const char *, const char *,
	    const char *);
int	journal_note_repo(struct journal *, const char *);
int	journal_note_child(struct journal *, pid_t);
int	journal_note_kept(struct journal *, const char *);
int	journal_note_reuse(struct journal *, const char *, const char *, int,
	    const char *);
/* Lock a parked copy's record at path: 0 when it is locked (j open,
 * e parsed), 1 when it is not to be had (busy, gone, not parked), -1
 * on an error.  journal_note_use() then makes the run its owner. */
int	journal_claim(struct journal *, const char *, struct journal_entry *);
int	journal_note_use(struct journal *);
void	journal_close(struct journal *, int);
/* Kept and parked copies last used at or before expire (0: none) go
 * too, marked expired. */
int	journal_reclaim(const char *, int, time_t, struct reclaim *);
void	reclaim_free(struct reclaim *);
/* Worktree registrations forge made (its lock reason says so) whose run
 * has no record left and whose copy is gone from the disk: removed, one
 * by one, and named in rc.registrations.  Never a repository-wide "git
 * worktree prune", which would take the user's own worktrees whose
 * directory is away for a while. */
int	journal_orphans(const char *, int, struct reclaim *);

/* Parse a record file's text; unparseable lines are skipped. */
int	journal_parse(const char *, size_t, struct journal_entry *);
void	journal_entry_free(struct journal_entry *);
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
int	journal_remove_copy(const struct journal_entry *, int, struct strv *);
/* Does the directory the record names hold the run's own mark?  Only
 * then is it the run's: a record written by hand cannot make another
 * directory pass. */
int	journal_top_is_runs(const struct journal_entry *);
/* The random id of a run: 16 hex digits. */
void	journal_new_run_id(char *, size_t);

#endif /* JOURNAL_H */
