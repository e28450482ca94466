/*
 * The copy as a private clone (forge.isolation = clone), and what a
 * command commits there coming back to the real repository as refs.
 *
 *	struct clone_src cs = { gitdir, common, objects, head, sparse };
 *	char *gitdir, *start;
 *	if (clone_add(&cs, dst, idle, &gitdir, &start) == -1)
 *		...		a message says why
 *
 * makes dst a repository of its own: dst/.git, with its own refs (a copy
 * of every ref of the source), config, index and HEAD (the source's
 * branch if HEAD is on one, else detached at head), no hooks, and the
 * source's objects borrowed read-only through objects/info/alternates.
 * Its config includes the source's (the same filters, attributes and
 * identity as in a worktree) and then sets core.hooksPath and
 * core.fsmonitor for itself.  HEAD is checked out into
 * dst.  Nothing in the source is written: removing dst removes the clone.
 * start is the refs the clone started with ("<id> <ref>\n", as git
 * for-each-ref prints them), for clone_results().
 *
 *	struct strv refs = STRV_INIT;
 *	clone_results(&real, clonegit, start, run, &refs);
 *
 * fetches, into the real repository described by real, each branch and
 * tag the clone created or moved since start, as
 * refs/forge/runs/<run>/heads/... and .../tags/...; refs holds each one
 * fetched as "<ref> <id>".  Only objects and those refs are written; the
 * working tree, index, HEAD and branches are not touched.  Before the
 * fetch, <common>/forge/refs/<run> is written: its age is that of the
 * refs, which clone_refs_gc() removes once they are older than expiry
 * (or all, when expiry is 0), skipping runs still alive.
 */
#ifndef CLONE_H
#define CLONE_H

#include "spawn.h"
#include "strv.h"

struct repo;

struct clone_src {
	const char	*gitdir;	/* the source worktree's git dir */
	const char	*common;
	const char	*objects;
	const char	*head;		/* the commit to check out */
	int		 sparse;	/* a sparse checkout: carry the
					   patterns over */
};

#define CLONE_REFS	"refs/forge/runs"
#define CLONE_DEFAULT_EXPIRY	(30LL * 24 * 3600 * 1000)

int	clone_add(const struct clone_src *, const char *,
	    const struct spawn_idle *, char **, char **);
int	clone_results(const struct repo *, const char *, const char *,
	    const char *, struct strv *);
/* Compare two ref lists ("<id> <ref>\n"): the heads and tags of now
 * that are not in start with the same id, each pushed as its ref name. */
void	clone_moved(const char *, const char *, struct strv *);

#define CLONE_GC_DRY_RUN	0x01

/* Remove the result refs older than expiry (ms; 0: all) of runs that
 * have ended, with git run on the given git dir (the common one: a
 * worktree's may be gone, when gc runs in a kept copy it removed); each run's removed (dry run: to be) pushed onto removed as
 * "<n> refs of forge run <run>". */
int	clone_refs_gc(const char *, const char *, long long, int,
	    struct strv *);

#endif /* CLONE_H */
