/*
 * The verdict cache: the PASS verdicts of the last runs, each under a key
 * made of everything forge knows the verdict to depend on, so that the
 * same verification is not run twice.  It lives with the timeline, in
 * <state dir>/cache.jsonl, one JSON object a line: {"key":K,"at":T,
 * "tree":I}, where K is the SHA-256 of the inputs (their values, the
 * environment's among them, are never written down).
 *
 *	struct cache_in in = CACHE_IN_INIT;
 *	in.tree = ...; in.steps = ...;	every input the run has
 *	key = cache_key(&in);		the caller frees it
 *	char *at;
 *	switch (cache_lookup(&st, key, &at)) {
 *	case 1:			a PASS of that key, verified at at (the
 *				caller frees it)
 *	case 0:			none
 *	case -1:		could not read it (said why): none
 *	}
 *	cache_store(&st, key, at, tree, CACHE_MAX);	after a PASS
 *	cache_drop(&st, key);		a PASS found wrong (an audit's fresh
 *				run failed): no longer replayed (-1: said
 *				why it could not be dropped)
 *
 * Every input is in struct cache_in, and cache_key() is the one place
 * the key is made of them: forge(1)'s CACHE section lists the same, and
 * what the key does not hold.  A field left as CACHE_IN_INIT has it is
 * an input the run does not have (no containment, no timeout); every
 * field the run has must be set, or two different runs share a key.
 *
 * A store is made under the state lock (state.h), so that concurrent
 * writers never lose each other's entries: it reads the file, drops the
 * entry of the same key, appends the new one, keeps the newest max
 * entries and replaces the file at once (temp file, rename).  A lookup
 * reads without the lock: it sees one whole file or the other.  Lines
 * that do not parse are skipped.
 */
#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>

struct state;
struct strv;

#define CACHE_MAX	256

/* One step as it runs. */
struct cache_step {
	const struct strv *argv;	/* as exec'd (sh -c TEXT for a
					   configured step) */
	const char	*dir;		/* where it runs, relative to the
					   top: "" or "sub/dir" */
	int		 setup;		/* a forge.setup step */
};

struct cache_in {
	const char	*version;	/* forge's */
	const char	*git;		/* git's, as git --version says */
	const char	*mode;		/* the timeline's: isolated, staged,
					   rev, in-place */
	const char	*tree;		/* the tree id verified */
	const char	*head;		/* the commit checked out there */
	const char	*index;		/* a digest of what the index
					   stages (the working state's
					   modes), or NULL */
	const char	*convert;	/* a digest of how git converts a
					   file's bytes, outside the tree
					   (convert.h), or NULL */
	const char	*as_is;		/* where git may convert, a copy
					   of the working state's: a sum of
					   the files it takes as they are
					   (source.h), or NULL */
	int		 clone;		/* a clone, not a worktree */
	int		 incremental;	/* the copy's own build output */
	int		 contain;	/* --contain */
	int		 no_network;	/* --no-network */
	const char	*contain_how;	/* the method that contains, or
					   NULL */
	const struct strv *writable;	/* forge.containWritable, under
					   --contain */
	long long	 timeout_ms;	/* 0: none */
	const char	*identity;	/* who runs it: uid, gid and the
					   supplementary groups (inputs.h) */
	const char	*settings;	/* a digest of every setting of
					   every repository the copy is made
					   of, and their attributes files
					   (inputs.h) */
	const char	*steps_from;	/* where the steps were configured:
					   "git config", ".forgeconfig",
					   ":.forgeconfig", "<commit>:
					   .forgeconfig", or "command line" */
	const char	*setup_from;	/* the same, of the setup steps */
	const struct cache_step *steps;
	size_t		 nsteps;
	const struct strv *env;		/* forge.cacheEnv: names, and
					   PREFIX* for every variable
					   that begins so */
	char *const	*environ;	/* the environment they are read
					   from (NULL: environ) */
	long		 umask;		/* the steps' (the modes a copy's
					   files and theirs are given);
					   -1: none */
	const char	*modes;		/* a digest of the permission bits
					   of the files a copy takes from
					   the working tree as they are
					   (untracked, flagged), or NULL */
};

#define CACHE_IN_INIT	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
			  0, 0, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, \
			  NULL, 0, NULL, NULL, -1, NULL }

char	*cache_key(const struct cache_in *);
int	cache_lookup(struct state *, const char *, char **);
int	cache_store(struct state *, const char *, const char *, const char *,
	    size_t);
int	cache_drop(struct state *, const char *);

#endif /* CACHE_H */
