/*
 * Running programs: the only place that forks, execs and waits.
 *
 * Calling sequence:
 *
 *	struct spawn sp = SPAWN_INIT;
 *	sp.argv = argv;			argv[0] is looked up in PATH (as
 *					execvp does) unless it holds a '/'
 *	sp.env = changes;		NULL, or "NAME=value" to set and
 *					"NAME" to unset, applied to environ
 *	sp.dir = "/some/dir";		the child chdirs there first
 *	sp.in = SPAWN_NULL;		see the fd contract below
 *	sp.out = SPAWN_PIPE;
 *	if (spawn_start(&sp) == -1)	nothing was started; errno says why:
 *		...			ENOENT not found, EACCES/ENOEXEC not
 *					executable, anything else from
 *					vfork (fork, with a hook); after
 *					one that succeeded, errno says
 *					nothing (a vfork child shares it)
 *	... read sp.out, or spawn_io() ...
 *	spawn_wait(&sp, &lim, &ex);	reaps the child; ex.status is what a
 *					shell would put in $?
 *
 * The fd contract, for in, out and err:
 *	SPAWN_INHERIT (0)	the child gets ours
 *	SPAWN_PIPE (-1)		a pipe is made; our end (O_CLOEXEC) replaces
 *				the field, and the caller closes it
 *	SPAWN_NULL (-2)		/dev/null
 *	fd > 0			the child gets a dup of fd; the caller keeps
 *				owning (and closing) fd
 *
 * Flags:
 *	SPAWN_PGROUP	the child leads a new process group, so that a
 *			time limit or a signal can reach everything it
 *			starts (after a time limit or a signal, all of the
 *			group is ended)
 *	SPAWN_ENDGROUP	with SPAWN_PGROUP: when the child has exited,
 *			whatever is left of its group is ended too, and so
 *			is any process that left the group and became ours
 *			(see spawn_adopt())
 *	SPAWN_TERMINAL	with SPAWN_PGROUP: if stdin is a terminal and we
 *			hold its foreground, the group gets it while it
 *			runs (and stops and continues with us, as under a
 *			shell); we take it back afterwards
 *	SPAWN_FORWARD	with SPAWN_PGROUP: sig.c passes fatal signals on
 *			to the group while it runs
 *	SPAWN_TIED	the child is killed if forge dies, even by SIGKILL
 *			(Linux PR_SET_PDEATHSIG): git helpers never outlive
 *			the run that needs them
 *	SPAWN_CLOSEFDS	the child starts with in, out and err alone: any
 *			other fd it would inherit (ours are O_CLOEXEC, but
 *			not those forge was started with) is closed after
 *			the hook, before exec -- close_range(2), or close(2)
 *			up to RLIMIT_NOFILE's soft limit on older kernels
 *
 * A hook (sp.hook, or NULL) is work of the caller's that the child does
 * after its fds are in place and before it changes directory and execs
 * (contain.h's namespaces): hook->fn(hook->arg, &what) runs between fork
 * and exec, so it makes only async-signal-safe calls on what the caller
 * prepared before.  It returns 0, or -1 with errno set and what saying
 * which part failed: then nothing is executed, and spawn_start() returns
 * -1 with that errno and sp.hook_what = what (-1 for any other failure).
 *
 * spawn_wait() never gives up on a child: when a fatal signal is pending or
 * the time limit passes, it sends SIGTERM (the signal itself, for a
 * forwarded group) and, after the grace period, SIGKILL, then reaps.
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

#define SPAWN_INHERIT	0
#define SPAWN_PIPE	(-1)
#define SPAWN_NULL	(-2)

#define SPAWN_PGROUP	0x01
#define SPAWN_TERMINAL	0x02
#define SPAWN_FORWARD	0x04
#define SPAWN_TIED	0x08
#define SPAWN_ENDGROUP	0x10
#define SPAWN_CLOSEFDS	0x20

struct spawn_hook {
	int		(*fn)(const void *, int *);
	const void	 *arg;
};

struct spawn {
	char *const	*argv;
	char *const	*env;
	const char	*dir;
	int		 in;
	int		 out;
	int		 err;
	int		 flags;
	pid_t		 pid;		/* set by spawn_start */
	int		 has_tty;	/* private: we gave it the terminal */
	const struct spawn_hook *hook;	/* or NULL */
	int		 hook_what;	/* set by spawn_start: what the hook
					   said failed, or -1 */
};

#define SPAWN_INIT	{ NULL, NULL, NULL, 0, 0, 0, 0, -1, 0, NULL, -1 }

/*
 * Background work the caller has going (treeid.h's jobs): while forge
 * waits for a child or moves streams, fn(arg) runs whenever anything
 * happens, so that work moves on at once rather than only when the
 * child is done.  fn must not wait, nor pass this on to spawn again.
 */
struct spawn_idle {
	void		(*fn)(void *);
	void		 *arg;
};

struct spawn_limit {
	long			 timeout_ms;	/* 0: none */
	long			 grace_ms;	/* SIGTERM to SIGKILL; 0:
						   default */
	const struct spawn_idle	*idle;		/* or NULL */
};

struct spawn_exit {
	int		 status;	/* 0-255, or 128+N for signal N */
	int		 wstatus;	/* as from waitpid(2) */
	int		 timed_out;	/* the time limit stopped it */
	int		 interrupted;	/* stopped because forge got a signal */
	int		 terminal;	/* it had the terminal's foreground */
	int		 broken_pipe;	/* it died of SIGPIPE (or a shell said
					   so, 128+SIGPIPE) while an output
					   it had of ours (stdout, stderr,
					   inherited or given) had lost its
					   reader: forge ... | head */
	long		 maxrss_kb;	/* its peak memory (and its reaped
					   children's), in KiB */
};

/* One stream that spawn_io() moves: read into buf, or write from it. */
struct spawn_stream {
	int		 fd;		/* closed and set to -1 when done */
	int		 write;		/* 0: read fd into buf; 1: write buf */
	struct buf	*buf;
	size_t		 off;		/* for writes: bytes written so far */
	int		 relay_to;	/* for reads: index of a write stream
					   to pass everything read on to, -1
					   to keep it in buf, -2 to discard */
	int		 stop_on_data;	/* for reads: spawn_io() returns 1 as
					   soon as this stream has data */
};

/* A stream on fd: read into b (relay -1: keep; -2: discard; or the
 * index of a write stream), or with write, write b out. */
void	spawn_stream_init(struct spawn_stream *, int, int, struct buf *, int);
int	spawn_start(struct spawn *);
int	spawn_wait(struct spawn *, const struct spawn_limit *,
	    struct spawn_exit *);
/* Move every stream until all reads reach EOF and all writes are done
 * (0), or a stop_on_data stream has data (1); -1 with errno EINTR if a
 * fatal signal came first, or -1 with poll(2)'s or read(2)'s errno if
 * one failed: what was read is then not all there was.
 * Streams not finished are left open.  idle may be NULL. */
int	spawn_io(struct spawn_stream *, size_t, const struct spawn_idle *);
/* The child was reaped by the caller's own waitpid(2): forget it as
 * spawn_wait() would. */
void	spawn_reaped(struct spawn *);
/* The shell's $? for a waitpid(2) status. */
int	spawn_status(int);
/*
 * Does the hook work here?  A child runs it and exits without executing
 * anything: 0, or -1 with errno set and what as the hook said (-1 if
 * the child could not even be started).
 */
int	spawn_probe(const struct spawn_hook *, int *);
/* Find a program as execvp(3) would; the caller frees.  NULL, errno set. */
char	*spawn_which(const char *, const char *);
/* environ with changes applied ("N=v" sets, "N" unsets); the caller frees
 * the vector with free(), its strings are borrowed. */
char	**spawn_env(char *const *, char *const *);
/* Become the "subreaper" of what we start: a process that leaves the
 * command's group and loses its parent becomes our child, so it can be
 * reaped, and ended with the group (Linux PR_SET_CHILD_SUBREAPER). */
void	spawn_adopt(void);

#endif /* SPAWN_H */
