/*
 * The copies forge keeps after a run: those --keep left for debugging,
 * and those parked for reuse (reuse.h).  Listing them reads
 * the journal (journal.h) and changes nothing.
 *
 *	struct copies c;
 *	copies_list(&c, common);	a record that cannot be read, or
 *					whose copy is gone, is left out
 *	c.kept[i].path		the copy, as --keep printed it
 *	c.kept[i].size		the bytes on disk its removal frees
 *	c.kept[i].last_use	when a run last used it: for a kept copy,
 *				the end of the run that kept it
 *	c.reusable[i]		the same for copies parked by --reuse
 *				(and .in_use: a run has it now; .kind:
 *				the source it was parked for, as
 *				journal.h names it)
 *	copies_free(&c);
 *
 * The list is in the order of last use, oldest first; the struct owns
 * its strings.
 */
#ifndef COPIES_H
#define COPIES_H

#include <stddef.h>
#include <time.h>

struct copy {
	char		*path;
	long long	 size;
	time_t		 last_use;
	long		 last_use_ns;	/* and its nanoseconds */
	int		 incremental;	/* a reusable copy's kind */
	char		*kind;		/* and of source: "worktree",
					   "staged", "rev" (NULL: kept) */
	int		 in_use;	/* a run has it now */
};

struct copies {
	struct copy	*kept;
	size_t		 nkept;
	struct copy	*reusable;	/* parked by --reuse, or in use */
	size_t		 nreusable;
};

void	copies_list(struct copies *, const char *);
void	copies_free(struct copies *);

#endif /* COPIES_H */
