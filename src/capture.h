/*
 * What a run streams, passed on live and kept in its log (runlog.h).
 *
 *	struct capture cap;
 *	if (capture_start(&cap, &log, 0) == -1)	said why; the steps then
 *		...				get forge's stdout and stderr
 *	sp.out = capture_out(&cap);	SPAWN_INHERIT, or an fd of cap's
 *	sp.err = capture_err(&cap);	for the child to write to
 *	... spawn_start(), spawn_wait() ...
 *	capture_map(&cap, from, to);	between steps: from here on, what
 *					they write names the path to where
 *					they wrote from (pathmap.h; from
 *					NULL: none; a quiet capture passes
 *					nothing on to map); -1 if from is no
 *					path (EINVAL) or the thread did not
 *					answer
 *	capture_sync(&cap);		returns once all the step wrote is
 *					passed on: forge's next line comes
 *					after it, on screen as in the log
 *	capture_stop(&cap);		stops; fds closed, stderr restored
 *
 * The thread is told to sync or stop through pipes, never a lock: a
 * reply it cannot write closes its channel, and stop is the control
 * channel's end, so that nothing can wait for it forever.
 *
 * A thread of its own reads what the steps write and writes it to
 * forge's stdout (or stderr), then hands it to the log, which never
 * blocks it.  A terminal stays a terminal to the steps: where forge's
 * stdout or stderr is one, they write to a pseudo-terminal whose output
 * passes unchanged (no output processing), sized as the real one, so
 * colours and progress bars look as they would.  stdout and stderr
 * that are the same file share one channel, so their order is kept.
 * Where forge's own output loses its reader (forge ... | head), that
 * channel is closed, and the step meets the broken pipe it would have
 * met: spawn_wait() still tells it (spawn_exit.broken_pipe).
 *
 * forge's own lines (stderr, warn(3)) go to the log too while it runs:
 * stderr is replaced by a stream that writes to fd 2 and to the log.
 * A progress line (one that starts with a carriage return) is not kept.
 *
 * With CAPTURE_QUIET, nothing is passed on: the steps' output and
 * forge's lines go to the log alone (log may be NULL: then nowhere),
 * while the steps still see a terminal where forge's output is one.
 * Captures nest: one started while another runs takes stderr over until
 * it stops, and gives it back then.
 *
 * A map (pathmap.h) changes only what is passed on, never what the log
 * keeps, nor forge's own lines: the bytes that could begin a path wait
 * for those that follow, HOLD_MS at most when nothing comes, and a sync
 * or the stop passes on everything.  The maps are made by capture_map()
 * and handed over through the control channel: the thread alone touches
 * a channel's map, and frees none.
 */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <pthread.h>
#include <stdio.h>

struct pathmap;
struct runlog;

struct capture_chan {
	int		 rfd;	/* read by the thread, or -1 */
	int		 wfd;	/* given to the child */
	int		 to;	/* 1 or 2: where its bytes go */
	struct pathmap	*map;	/* what is replaced in them, or NULL */
};

#define CAPTURE_QUIET	0x01

struct capture {
	struct runlog		*log;		/* or NULL */
	int			 quiet;		/* CAPTURE_QUIET */
	char			*buf;		/* the thread's */
	struct capture_chan	 out, err;	/* err.rfd -1: shares out */
	int			 ctl[2];	/* to the thread */
	int			 ack[2];	/* from it */
	struct pathmap		*next[2];	/* capture_map()'s, for the
						   thread to swap in */
	pthread_t		 thread;
	int			 running;
	FILE			*saved_stderr;
	FILE			*mine;
};

int	capture_start(struct capture *, struct runlog *, int);
int	capture_out(const struct capture *);
int	capture_err(const struct capture *);
int	capture_map(struct capture *, const char *, const char *);
void	capture_sync(struct capture *);
void	capture_stop(struct capture *);
/* forge's stderr, without the log. */
FILE	*capture_stderr(const struct capture *);

#endif /* CAPTURE_H */
