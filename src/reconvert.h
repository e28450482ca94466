/*
 * A parked copy where git converts bytes (convert.h): what a checkout
 * wrote depends on git's settings and attributes as they were then,
 * which no tree id shows, and git's own stat data, in the copy's index,
 * is the command's to rewrite -- a file given other bytes of the same
 * blob and staged there looks checked out.  So forge notes with each
 * parked copy how its files were written, and the next run writes again
 * every tracked file it cannot show to be as a fresh checkout writes it.
 *
 *	struct reconvert_note n;
 *	reconvert_read(carry, &n)	what the last run noted in the run
 *			directory's carry: n.digest, how git converted as
 *			the copy's tracked files were checked out ("none":
 *			it converted nothing), and n.paths (sorted), those
 *			forge wrote otherwise (changed, untracked, flagged,
 *			conflicts).  n.digest NULL: nothing noted, or not
 *			whole
 *	reconvert_forget(carry)		nothing noted any more: before
 *			anything changes the copy
 *	reconvert_write(carry, digest, &paths)	noted, once the copy is
 *			proved (-1: it could not be, and nothing is)
 *	reconvert_note_free(&n)
 *
 *	reconvert_head(&dst_git, &entries)	the copy's index entries,
 *			"mode oid\tpath" (lsfiles.h) but gitlinks, as git
 *			ls-files lists them: HEAD's, once read-tree (or a
 *			checkout) made it so.  -1 with a message
 *	d = reconvert_digest(&src_git, common, &entries)	convert.h's
 *			digest of what is outside the tree, with the
 *			attributes files of entries ("oid path"): how git
 *			checks out a tree with those entries (NULL: git
 *			could not say)
 *	reconvert_paths(copy, &entries, carried, &since, &n.paths, &out)
 *			of entries, those to write again, onto out: those
 *			whose file is not as git's stat data
 *			says in the index carried (proof.h's
 *			proof_copy_carried(), the last proof's, forge's own;
 *			since: its time), or whose entry there is not the
 *			same, or that n.paths holds.  -1 if that index
 *			cannot be read or looked at: each one is to be
 *	reconvert_checkout(&dst_git, copy, &out, marks)	the files of
 *			those entries checked out again (git checkout-index
 *			-f -u, the entries put back without stat data
 *			first: git writes no file its entry says is
 *			unchanged), each file's time noted first into marks
 *			(reuse.h), if not NULL.  -1 with a message
 */
#ifndef RECONVERT_H
#define RECONVERT_H

#include <time.h>

#include "strv.h"

struct git;
struct reuse_marks;

struct reconvert_note {
	char		*digest;
	struct strv	 paths;
};

int	 reconvert_read(const char *, struct reconvert_note *);
void	 reconvert_forget(const char *);
int	 reconvert_write(const char *, const char *, const struct strv *);
void	 reconvert_note_free(struct reconvert_note *);
int	 reconvert_head(const struct git *, struct strv *);
char	*reconvert_digest(const struct git *, const char *,
	    const struct strv *);
int	 reconvert_paths(const char *, const struct strv *, const char *,
	    const struct timespec *, const struct strv *, struct strv *);
int	 reconvert_checkout(const struct git *, const char *,
	    const struct strv *, struct reuse_marks *);

#endif /* RECONVERT_H */
