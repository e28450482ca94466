/*
 * The output of a run, kept: one file per run under the real
 * repository's common git dir, capped per run and in all.
 *
 *	<common>/forge/logs/<id>.part	being written (flock(2)ed by its
 *					writer all the while)
 *	<common>/forge/logs/<id>.log	whole: renamed from .part once
 *					written and synced
 *
 * Each function takes that directory, logs, as forgedir_logs() names
 * it; runlog_open() makes it if it is missing.
 *
 *	struct runlog lg;
 *	if (runlog_open(&lg, logs, cap, total) == -1)	said why;
 *		...				the run goes on, unlogged
 *	runlog_add(&lg, bytes, n);	from any thread; hands the bytes
 *					to a thread of the log's own through
 *					a pipe it never waits for, so a slow
 *					or full disk never holds up the
 *					caller (what does not fit is
 *					counted, and said in the log)
 *	runlog_close(&lg, keep);	0: kept as <id>.log; -1: said
 *					why (unless keep was 0: dropped),
 *					and nothing is left
 *
 * Past cap bytes, the log keeps the first half and the last half, with
 * a line between them saying how much was left out.  A .part whose lock
 * nobody holds is of a run that died (SIGKILL): never shown as whole,
 * and removed by runlog_prune(), which also removes the oldest logs
 * (by mtime) until all of them fit in total, sparing the keep one.
 * The files are mode 0600 and the directory 0700: output holds secrets.
 */
#ifndef RUNLOG_H
#define RUNLOG_H

#include <pthread.h>
#include <stddef.h>

#include "strv.h"

#define RUNLOG_ID_LEN	8

struct runlog {
	char		 id[RUNLOG_ID_LEN + 1];
	char		*dir;
	char		*part;
	char		*path;
	int		 fd;
	long long	 total;
	/* To the writer: a pipe, written without blocking. */
	int		 pipe[2];
	int		 done[2];	/* closed by the writer as it ends */
	pthread_t	 thread;
	int		 running;
	long long	 dropped;	/* bytes the pipe had no room for
					   (added to atomically) */
	/* The writer's alone. */
	long long	 head_max, written;
	char		*tail;
	size_t		 tsize;
	long long	 tail_seen;
	int		 err;		/* errno of the first failed write */
};

int	runlog_open(struct runlog *, const char *, long long, long long);
void	runlog_add(struct runlog *, const void *, size_t);
int	runlog_close(struct runlog *, int);

/* logs/<id>.log, else a .part: *whole says which, *alive whether its
 * writer still runs.  NULL (errno ENOENT) if neither. */
char	*runlog_find(const char *, const char *, int *, int *);
/* Remove dead .part files and the oldest logs past total (0: all
 * but keep).  With dry set, only list what would go into gone. */
int	runlog_prune(const char *, long long, const char *, int,
	    struct strv *);

#endif /* RUNLOG_H */
