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
 *	journal_reclaim(common, flags, &n);	remove copies of runs that are
 *						gone; prints one line for each
 */
#ifndef JOURNAL_H
#define JOURNAL_H

#include <sys/types.h>

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
};

#define JOURNAL_DRY_RUN		0x01	/* only say what would go */
#define JOURNAL_KEPT		0x02	/* kept copies go too */
#define JOURNAL_VERBOSE		0x04	/* say so (forge gc) */

int	journal_open(struct journal *, const char *, const char *,
	    const char *);
int	journal_note_repo(struct journal *, const char *);
int	journal_note_child(struct journal *, pid_t);
int	journal_note_kept(struct journal *, const char *);
void	journal_close(struct journal *, int);
int	journal_reclaim(const char *, int, int *);

/* Parse a record file's text; unparseable lines are skipped. */
int	journal_parse(const char *, size_t, struct journal_entry *);
void	journal_entry_free(struct journal_entry *);
/* Remove what a record describes: worktree registrations, then the
 * directory.  Fails (leaving the record) if anything would not go. */
int	journal_remove_copy(const struct journal_entry *);
/* A process's start time in clock ticks since boot, from /proc. */
int	proc_start_time(pid_t, unsigned long long *);
/* This boot's id, from /proc; "" if unknown.  Static storage. */
const char *boot_id(void);
/* The random id of a run: 16 hex digits. */
void	journal_new_run_id(char *, size_t);

#endif /* JOURNAL_H */
