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
 *	 "kind":"..","incremental":B,"setup":".."}
 *					parked for the next run's reuse, by
 *					a run of that kind of source:
 *					"worktree", "staged" or "rev"
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
 * Reclaiming the copies of runs that are gone is journal_reclaim.h's.
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
	char			*reuse_kind;	/* of what source it was last
						   parked (NULL: not said, a
						   working state's) */
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

int	journal_open(struct journal *, const char *, const char *,
	    const char *);
int	journal_note_repo(struct journal *, const char *);
int	journal_note_child(struct journal *, pid_t);
int	journal_note_kept(struct journal *, const char *);
/* The kinds of source a copy is parked for; a record that says none is
 * a working state's. */
#define JOURNAL_WORKTREE	"worktree"
#define JOURNAL_STAGED		"staged"
#define JOURNAL_REV		"rev"

/* What a parked copy's record says of it.  used, if not NULL, is the
 * time the record is given as its last use (its modification time),
 * rather than now: a copy put back as it was claimed keeps its place. */
struct journal_reuse {
	const char		*copy;
	const char		*source;
	const char		*kind;
	int			 incremental;
	const char		*setup;
	const struct timespec	*used;
};
int	journal_note_reuse(struct journal *, const struct journal_reuse *);
/* Lock a parked copy's record at path: 0 when it is locked (j open,
 * e parsed), 1 when it is not to be had (busy, gone, not parked), -1
 * on an error.  journal_note_use() then makes the run its owner. */
int	journal_claim(struct journal *, const char *, struct journal_entry *);
int	journal_note_use(struct journal *);
void	journal_close(struct journal *, int);

/* Parse a record file's text; unparseable lines are skipped. */
int	journal_parse(const char *, size_t, struct journal_entry *);
void	journal_entry_free(struct journal_entry *);
/* The random id of a run: 16 hex digits. */
void	journal_new_run_id(char *, size_t);

#endif /* JOURNAL_H */
