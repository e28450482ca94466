/*
 * The verdict cache: the PASS verdicts of the last runs, each under a key
 * that says what was verified (the caller's: the tree id, the steps as
 * run, the mode and forge's version), so that the same verification is
 * not run twice.  It lives with the timeline, in <state dir>/cache.jsonl,
 * one JSON object a line: {"key":K,"at":T,"tree":I}.
 *
 *	char *at;
 *	switch (cache_lookup(&st, key, &at)) {
 *	case 1:			a PASS of that key, verified at at (the
 *				caller frees it)
 *	case 0:			none
 *	case -1:		could not read it (said why): none
 *	}
 *	cache_store(&st, key, at, tree, CACHE_MAX);	after a PASS
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

#define CACHE_MAX	256

int	cache_lookup(struct state *, const char *, char **);
int	cache_store(struct state *, const char *, const char *, const char *,
	    size_t);

#endif /* CACHE_H */
