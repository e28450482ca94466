/*
 * A copy where git converts bytes (convert.h), parked for the next run
 * or carried to the next commit: what a checkout wrote depends on git's
 * settings and attributes as they were then, which no tree id shows, and
 * git's own stat data, in the copy's index, is the command's to rewrite
 * -- a file given other bytes of the same blob and staged there looks
 * checked out, and the proof, which hashes through the same conversion,
 * takes it for the blob.  So forge notes with each such copy how git
 * converted as it wrote the copy's files, and which of them it wrote,
 * as they were on disk before any command ran; the next run has git
 * write again every file it cannot show to be as a fresh checkout writes
 * it.  One repository of a copy at a time (the top one, a nested one):
 *
 *	struct reconvert c;
 *	reconvert_init(&c, carry, name, reused)	the note name in the
 *			run directory's carry; reused: the copy was parked
 *			(or carried) with it: it is read, then forgotten --
 *			before anything changes the copy, so that a run
 *			that ends early leaves none
 *	reconvert_before(&c, &src_git, common)	before git writes the
 *			copy: how git converts by what is outside the tree
 *			(settings, attributes files), should it change as
 *			git writes (then, or without it, nothing is noted)
 *	r = reconvert_copy(&c, &dst_git, &src_git, common, maybe, marks,
 *	    &why)	once git checked out the copy's index (a fresh copy)
 *			or brought it to its commit or tree (a reused one):
 *			how git converts the files of that index (src_git's
 *			settings, the index's attributes files), and for a
 *			reused copy, each of its files that cannot be shown
 *			to be what git wrote under the same conversion, and
 *			unchanged since it was noted, checked out again
 *			(every file, where the conversion is not the noted
 *			one); each file's time noted first into marks
 *			(reuse.h), if not NULL.  maybe: 0 if the caller
 *			knows git converts nothing here, as it checks out
 *			or hashes (no attributes file even untracked, no
 *			setting): "none" is noted, which lets the next run
 *			prove the copy as it stands.  1: done; 0: git
 *			checks out a file of it through a filter, which
 *			cannot be shown to write the same bytes twice (why,
 *			a static string, says so): such a copy is not to be
 *			kept, and one that was is not to be used; -1 with a
 *			message
 *	reconvert_as_is(&c)		a copy where nothing converts, nor
 *			did, proved as it stands (snapshot.h): so noted
 *	reconvert_written(&c, &paths)	paths forge wrote in the copy
 *			otherwise (changes, untracked and flagged files,
 *			conflicts): not git's checkout
 *	reconvert_unknown(&c)		how the files were written is not
 *			known: nothing is noted, and the next run checks out
 *			each again
 *	reconvert_note(&c, copy)	once the copy is proved, before any
 *			command runs in it: noted -- how git converted, and
 *			the stat data of each file it wrote (not one of
 *			reconvert_written()'s), as on disk now: looked at
 *			again, but where reconvert_copy() found a file as
 *			the last note had it and did not write it (then as
 *			noted: what changed it since changed its change
 *			time, which the next run finds)
 *	reconvert_free(&c)
 *
 * What forge treats as exact: git's own conversions (the text, eol, crlf,
 * ident and working-tree-encoding attributes, core.autocrlf, core.eol)
 * write what the blob, the path's attributes, git's settings and git's
 * version make of it, all of which the note's digest holds; so does a
 * filter driver without a smudge or process command (a checkout writes
 * the blob as it is).  A file whose filter attribute names a driver with
 * a smudge or process command, or a required one, is not: forge cannot
 * show that the command writes the same bytes each time (git-lfs's, for
 * one, writes what its store holds by then).
 *
 * Who owns what: c and each string in it are the caller's until
 * reconvert_free(); the lists given are copied.
 */
#ifndef RECONVERT_H
#define RECONVERT_H

#include <time.h>

#include "gitindex.h"
#include "strv.h"

struct git;
struct reuse_marks;

/* What a note says. */
struct reconvert_note {
	char		*digest;	/* "none": git converted nothing */
	struct timespec	 since;		/* when it was noted */
	struct gitindex	 files;		/* each file git wrote: its entry
					   and stat data then */
};

struct reconvert {
	char			*note;		/* the note's file */
	int			 reused;	/* read from the last run */
	struct reconvert_note	 had;		/* what it says (digest
						   NULL: nothing, or not
						   whole) */
	char			*before;	/* how git converted by what
						   is outside the tree before
						   it wrote */
	char			*digest;	/* how it converts now (NULL:
						   not known) */
	struct strv		 entries;	/* the index checked out, "mode
						   oid\tpath" but gitlinks */
	unsigned char		*same;		/* if not NULL, for each of
						   entries: found as noted,
						   not written again */
	struct strv		 written;	/* paths forge wrote */
};

void	 reconvert_init(struct reconvert *, const char *, const char *, int);
void	 reconvert_before(struct reconvert *, const struct git *,
	    const char *);
int	 reconvert_copy(struct reconvert *, const struct git *,
	    const struct git *, const char *, int, struct reuse_marks *,
	    const char **);
void	 reconvert_as_is(struct reconvert *);
void	 reconvert_written(struct reconvert *, const struct strv *);
void	 reconvert_unknown(struct reconvert *);
int	 reconvert_note(struct reconvert *, const char *);
void	 reconvert_free(struct reconvert *);

#endif /* RECONVERT_H */
