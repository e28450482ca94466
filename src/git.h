/*
 * Running the system git, on top of spawn.
 *
 *	if (git_init() == -1)		once: finds git on PATH, checks its
 *		exit(125);		version, learns which variables are
 *					local to a repository; prints why not
 *	struct git g;			where and on what git works:
 *	memset(&g, 0, sizeof(g));
 *	g.dir = top;			chdir here (NULL: stay)
 *	g.gitdir = ...;			each non-NULL field is exported as
 *	g.worktree = ...;		GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
 *	g.index = ...;			GIT_OBJECT_DIRECTORY and
 *	g.objdir = ...;			GIT_ALTERNATE_OBJECT_DIRECTORIES
 *	g.alternates = ...;
 *	g.idle = &hook;			background work to move on while
 *					git runs (spawn.h)
 *	const char *a[] = { "ls-files", "-z", NULL };
 *	st = git_run(&g, a, 0, NULL, &out, &err);
 *
 * Every run starts from the caller's environment with all the
 * repository-local variables (git rev-parse --local-env-vars) removed, so
 * that nothing leaks from a git hook that runs forge, then sets the fields
 * above, LC_ALL=C (forge parses messages) and GIT_NO_REPLACE_OBJECTS=1
 * (forge reads the objects ids name, not what refs/replace/ puts in
 * their place; GIT_USER_ENV runs too).  Every run also gets
 * --no-optional-locks, an empty core.fsmonitor (a stale monitor must not
 * hide a change), core.trustctime=true and core.checkStat=default (nor
 * may a lax stat check) and core.hooksPath=/dev/null (checkout hooks do
 * not run in forge's copy).  git diff may still write back an index it
 * refreshed, so forge points it at a private copy (rundir.h).
 *
 * git_run() returns git's exit status, or -1 if git could not be run or a
 * fatal signal arrived (a message is printed, unless for the signal).
 * Standard output goes to out (NULL: discarded); standard error to err if
 * given (NULL: discarded).  Both belong to the caller.  When git fails,
 * git_why(&err, st) turns err into the one line that says why, for the
 * caller's message.
 * GIT_RETRY retries a run that failed only because another git was busy
 * in the repository (git_lock_busy()), with backoff, for up to 15 seconds.
 */
#ifndef GIT_H
#define GIT_H

#include "buf.h"
#include "spawn.h"
#include "strv.h"

/* The oldest git forge works with: what distributions ship (Ubuntu
 * 20.04's 2.25).  What newer gits have is git_has()'s to say. */
#define GIT_MIN_MAJOR	2
#define GIT_MIN_MINOR	25

/*
 * What the git found at start can do, by its version.  Below each, the
 * callers fall back:
 *	GIT_NO_RELATIVE		2.28: diff --no-relative; before it, no
 *				diff.relative to guard against either
 *	GIT_PATH_FORMAT		2.31: rev-parse --path-format=absolute (an
 *				older git prints the option back!); before,
 *				--absolute-git-dir and paths made absolute
 *				against the directory git ran in
 *	GIT_WORKTREE_REASON	2.33: worktree add --lock --reason; before,
 *				--lock, and forge writes the reason itself
 *	GIT_ADD_SPARSE		2.34: add --sparse
 *	GIT_SPARSE_WORKTREE	2.36: a new worktree carries the sparse
 *				patterns; before, a sparse checkout is
 *				refused, with that reason
 *	GIT_FETCH_NO_HEAD	2.29: fetch --no-write-fetch-head; before,
 *				a fetch of a clone's results writes
 *				FETCH_HEAD
 *	GIT_WORKTREE_CONFIG	2.36: a new worktree carries a copy of the
 *				working tree's config.worktree (with
 *				worktree configuration); before, none
 *	GIT_WORKTREE_REFS	2.44: a new worktree's git dir has a refs
 *				directory, empty where refs are files;
 *				before, none
 */
enum git_feature {
	GIT_NO_RELATIVE,
	GIT_PATH_FORMAT,
	GIT_WORKTREE_REASON,
	GIT_ADD_SPARSE,
	GIT_SPARSE_WORKTREE,
	GIT_FETCH_NO_HEAD,
	GIT_WORKTREE_CONFIG,
	GIT_WORKTREE_REFS
};

struct git {
	const char	*dir;
	const char	*gitdir;
	const char	*worktree;
	const char	*index;
	const char	*objdir;
	const char	*alternates;
	const struct spawn_idle *idle;	/* or NULL */
};

#define GIT_RETRY	0x02
#define GIT_USER_ENV	0x04	/* keep the caller's GIT_DIR and friends:
				   for finding the repository, and only
				   for that */
#define GIT_TERMINAL	0x08	/* git's standard error is forge's own, so
				   that a terminal shows git's progress;
				   err stays empty, and GIT_RETRY cannot
				   tell a busy lock */

int		 git_init(void);
int		 git_version_at_least(int, int);
int		 git_has(enum git_feature);
const char	*git_version_string(void);
const char	*git_path(void);
/* Environment changes for a git run in g (see spawn.h's env). */
void		 git_env(const struct git *, struct strv *);
/* "git" and the global options every run gets, then args. */
void		 git_argv(struct strv *, const char *const *);
/* The repository-local variable names, each pushed as an unset. */
void		 git_unset_local(struct strv *);
int		 git_run(const struct git *, const char *const *, int,
		    const struct buf *, struct buf *, struct buf *);
/*
 * Several short gits at once, each run as git_run() would (flags: only
 * GIT_USER_ENV; no standard input), for the start of a run, where
 * starting git takes longer than what it does.  Each call's status is
 * what git_run() would return.
 *
 *	struct git_call c[2] = { { &g, a1, 0, &out1, &err1, 0 },
 *	    { &g, a2, 0, &out2, NULL, 0 } };
 *	git_run_all(c, 2);
 */
struct git_call {
	const struct git	*g;
	const char *const	*args;
	int			 flags;
	struct buf		*out;	/* NULL: discarded */
	struct buf		*err;	/* NULL: discarded */
	int			 status;	/* set by git_run_all() */
};

void		 git_run_all(struct git_call *, size_t);
/*
 * git_init(), with n more short gits run alongside its own two (as
 * git_run_all() runs them; each one's status set, -1 if git could not
 * be run at all): for the first question a command asks, whose git
 * needs nothing git_init() learns.
 */
int		 git_init_with(struct git_call *, size_t);
/* 1 if the caller's environment sets a repository-local variable
 * (GIT_DIR, GIT_OBJECT_DIRECTORY, ...), which a GIT_USER_ENV run keeps
 * and every other run drops. */
int		 git_user_env_local(void);
/*
 * git's -z output record by record, as it comes, never held whole:
 *
 *	struct git_each e = { fn, arg };
 *	st = git_each(&g, args, &e, &err);
 *
 * fn(rec, len, arg) gets each NUL-terminated record (rec[len] is NUL; a
 * last record without its NUL too); when it returns -1 git is stopped
 * and git_each() returns -1 without a message (fn's to say why).
 * Otherwise git_each() returns as git_run() does.
 */
struct git_each {
	int	(*fn)(const char *, size_t, void *);
	void	*arg;
};

int		 git_each(const struct git *, const char *const *,
		    const struct git_each *, struct buf *);
/* The same over what fd holds (a background git's output file), read
 * 64 KiB at a time: 0, or -1 if it cannot be read (errno set) or fn
 * said stop. */
int		 git_each_fd(int, const struct git_each *);
/*
 * A git run in the background, for work that can overlap forge's own:
 * its standard input, output and error are files (so it never waits on
 * a pipe nobody reads), named by the caller.
 *
 *	struct git_job j;
 *	if (git_start(&j, &g, args, in_path_or_NULL, out_path, err_path) ==
 *	    -1) ...			nothing started; said why
 *	while (!git_done(&j)) ...	do other things
 *	st = git_finish(&j);		wait (calling g's idle hook, if
 *					any, as it does); git's status, or -1
 *
 * A job must be finished, even on the way out: git_finish() then ends it
 * (spawn_wait() passes on a pending signal).
 */
struct git_job {
	struct spawn	 sp;
	const struct spawn_idle *idle;	/* the git's, called as
					   git_finish() waits */
	int		 status;	/* once done */
	int		 done;
	long		 maxrss_kb;	/* once done: its peak memory */
};

int		 git_start(struct git_job *, const struct git *,
		    const char *const *, const char *, const char *,
		    const char *);
int		 git_done(struct git_job *);
int		 git_finish(struct git_job *);
/* Why git failed, from its standard error: the first fatal: or error:
 * line without the prefix, else its last line, else "exit status N".
 * err is rewritten to hold just that line, which is returned. */
const char	*git_why(struct buf *, int);
/* Parse "git version X.Y.Z..." into major and minor; -1 if not. */
int		 git_parse_version(const char *, int *, int *);
/* Did git fail only because another git was busy in the same repository
 * (a lock held, a worktree half registered)?  err is git's stderr. */
int		 git_lock_busy(const char *);

#endif /* GIT_H */
