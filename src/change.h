/*
 * What is being verified, relative to a base commit: the change report
 * of forge verify --change.
 *
 *	struct change c;
 *	if (change_compute(&c, &repo, "origin/main", &rd) == -1) message
 *		...						printed
 *	change_print(&c, stderr, 20);
 *	change_json(&c, &json, 20);
 *	change_free(&c);
 *
 * Counted from the real repository's working state (staged, unstaged and
 * untracked alike) against the base, with rename detection.
 */
#ifndef CHANGE_H
#define CHANGE_H

#include <stdio.h>

#include "json.h"
#include "strv.h"

struct repo;

struct change {
	char		*base;		/* as given */
	char		*base_id;	/* the commit it names */
	size_t		 modified, added, deleted, renamed, untracked;
	struct strv	 lines;		/* "M\tpath", "R\tnew path", ... */
	struct strv	 from;		/* for each line: the old path of a
					   rename, else "" */
};

#define CHANGE_LIST_MAX	20

/* git reads the index through a private copy in the run directory. */
struct rundir;
int	change_compute(struct change *, const struct repo *, const char *,
	    struct rundir *);
/* Parse `git diff -z --name-status` output into c (exposed for tests). */
int	change_parse_diff(struct change *, const char *, size_t);
/* The untracked paths (git ls-files -o, lsfiles.h) into c. */
void	change_add_untracked(struct change *, const struct strv *);
void	change_print(const struct change *, FILE *, size_t);
void	change_json(const struct change *, struct json *, size_t);
/* "3 modified, 1 added, 2 untracked" or "no changes"; caller frees. */
char	*change_summary(const struct change *);
void	change_free(struct change *);

#endif /* CHANGE_H */
