/*
 * git's listings, run and read here alone: git ls-files, git ls-tree,
 * and the records of git diff --raw.
 *
 * What git says a working tree holds: one `git ls-files -z -v -s -c -o
 * --exclude-standard` call, sorted into what the copy needs.
 *
 *	struct lsfiles l;
 *	if (lsfiles_read(&l, &git) == -1)	message printed
 *		...
 *	lsfiles_free(&l);
 *
 * Or in the background, while forge does something else, its output in
 * files in dir (removed once read):
 *
 *	struct lsfiles_job j;
 *	if (lsfiles_start(&j, &git, dir) == -1) ...	nothing started
 *	...
 *	if (lsfiles_finish(&j, &l) == -1) ...	message printed; ended
 *	lsfiles_cancel(&j);		ended and forgotten, if it was not
 *
 * The struct owns its vectors, and its entries: an entlist (entlist.h),
 * which holds each entry's id in bytes, as a large listing is held.
 *
 * An index entry travels through forge as "mode oid\tpath", what git
 * ls-files -s prints less the stage, and what git update-index
 * --index-info takes back.  It is split here, and nowhere else:
 *
 *	struct lsfiles_entry e;
 *	if (lsfiles_entry_parse(line, &e) == -1)	malformed
 *		...
 *	e.mode, e.oid (e.oidlen bytes, not terminated), e.path
 *
 * The view points into line, which the caller keeps.
 *
 * The index's entries alone, each stage's, as git ls-files -z -s lists
 * them, gitlinks apart from the others (either vector may be NULL):
 *
 *	st = lsfiles_index(&git, &links, &others, &err);
 *	0, or git_run()'s status, what git said in err; nothing said
 *
 * A tree's, as git ls-tree -r -z lists them ("mode type oid\tpath"),
 * the same way, without the type:
 *
 *	st = lsfiles_tree(&git, tree, &links, &others, &err);
 *
 * What the index (tree NULL), or a tree, holds at path, of stage 0: its
 * entries (git ls-files -s -- path; git ls-tree tree -- path):
 *
 *	st = lsfiles_at(&git, tree, path, &entries, &err);
 *
 * What a tree holds: its files and their bytes, each regular file's
 * rounded up to a multiple of block unless it is 0 (a gitlink counts as a
 * file of no size); -1 if git could not say (nothing said):
 *
 *	lsfiles_tree_size(&git, tree, block, &bytes, &files)
 *
 * Every entry of a tree, its trees' too (040000), each before what it
 * holds (git ls-tree -r -t), in one vector:
 *
 *	st = lsfiles_tree_all(&git, tree, &entries, &err);
 *
 * The paths git ls-files -z lists with opts (a NULL-terminated list of its
 * options and pathspecs, "-o", "--exclude-standard", ...), each:
 *
 *	st = lsfiles_paths(&git, opts, &paths, &err);
 *
 * The index's paths with the letter git ls-files -t (opt "-t") or -v
 * ("-v") tags each with ("H", "S", lower case where assume-unchanged...):
 * paths->v[i]'s is tags->data[i]:
 *
 *	st = lsfiles_tagged(&git, "-t", &paths, &tags, &err);
 *
 * The paths with a conflict, each once, in index order (git ls-files
 * -z -u), the same way:
 *
 *	st = lsfiles_unmerged(&git, &paths, &err);
 *
 * What differs between two listings, as git diff --raw -z --no-abbrev
 * --no-renames prints it, a record at a time (out holds it all):
 *
 *	const char *p = out.data, *end = p + out.len;
 *	struct lsfiles_change c;
 *	while ((r = lsfiles_raw_next(&p, end, &c)) == 1)
 *		c.old_mode, c.new_mode (0: none), c.old_oid, c.new_oid
 *		(c.oidlen bytes each, not terminated), c.status, c.path
 *	r == 0: all read; -1: malformed
 *
 * A line of git ls-files -s, or of git ls-tree, split the same way:
 *
 *	lsfiles_staged_parse(line, &e, &stage)	"mode oid stage\tpath"
 *	lsfiles_tree_parse(line, &e)		"mode type oid\tpath"
 *
 * And as forge carries such a change on, "old new\tpath" (the modes in
 * six octal digits, 000000 for none, as gitindex_diff_fd() makes them):
 *
 *	if (lsfiles_change_parse(line, &c) == -1)	malformed
 *	c.old_mode, c.new_mode, c.path (no oids)
 */
#ifndef LSFILES_H
#define LSFILES_H

#include <stddef.h>

#include "entlist.h"
#include "git.h"
#include "strv.h"

struct lsfiles {
	struct strv	 untracked;	/* files and links, not dirs */
	struct strv	 nested;	/* gitlinks (of stage 0, or of a
					   conflict) and nested repositories */
	struct strv	 flagged;	/* "mode oid\tpath": skip-worktree or
					   assume-unchanged */
	struct entlist	 entries;	/* each stage-0 file and link, in
					   index order */
	struct strv	 gitlinks;	/* "160000 oid\tpath" of each stage-0
					   gitlink, in index order */
	struct strv	 skips;		/* paths of skip-worktree entries */
	struct strv	 assumes;	/* paths of assume-unchanged entries */
	struct strv	 unmerged;	/* paths with a conflict, each once,
					   in index order */
	struct strv	 conflicts;	/* "mode oid\tpath" of each, as git
					   add starts from: its stage 2 entry,
					   else the mode of 1, else of 3, with
					   the empty blob (no line endings for
					   git to keep) */
	int		 conflict_stage; /* private: of the last one */
	size_t		 maxlen;	/* longest path */
	int		 sparse;	/* some entry is skip-worktree */
};

/* "mode oid\tpath", split: the mode in octal, 1 to 6 digits; the oid,
 * up to the tab, without a space; the path, all after the first tab
 * (a tab or a space in it is the path's), not empty. */
struct lsfiles_entry {
	unsigned	 mode;
	const char	*oid;		/* oidlen bytes */
	size_t		 oidlen;
	const char	*path;
};

/* A change between two listings (the view points into what was read). */
struct lsfiles_change {
	unsigned	 old_mode, new_mode;	/* 0: none there */
	const char	*old_oid, *new_oid;	/* oidlen bytes each */
	size_t		 oidlen;
	char		 status;		/* git's letter: M, A, D, T */
	const char	*path;
};

struct lsfiles_job {
	const struct git	*g;
	struct git_job		 job;
	char			*out, *err;
	int			 started;
};

int	lsfiles_read(struct lsfiles *, const struct git *);
int	lsfiles_start(struct lsfiles_job *, const struct git *, const char *);
int	lsfiles_finish(struct lsfiles_job *, struct lsfiles *);
void	lsfiles_cancel(struct lsfiles_job *);
int	lsfiles_index(const struct git *, struct strv *, struct strv *,
	    struct buf *);
int	lsfiles_tree(const struct git *, const char *, struct strv *,
	    struct strv *, struct buf *);
int	lsfiles_paths(const struct git *, const char *const *, struct strv *,
	    struct buf *);
int	lsfiles_tagged(const struct git *, const char *, struct strv *,
	    struct buf *, struct buf *);
int	lsfiles_at(const struct git *, const char *, const char *,
	    struct strv *, struct buf *);
int	lsfiles_tree_all(const struct git *, const char *, struct strv *,
	    struct buf *);
int	lsfiles_tree_size(const struct git *, const char *, unsigned long,
	    unsigned long long *, unsigned long long *);
int	lsfiles_unmerged(const struct git *, struct strv *, struct buf *);
/* Parse the output (exposed for tests). */
int	lsfiles_parse(const char *, size_t, struct lsfiles *);
void	lsfiles_free(struct lsfiles *);
/* Split a "mode oid\tpath" entry into e; -1 if it is malformed. */
int	lsfiles_entry_parse(const char *, struct lsfiles_entry *);
/* The path of a "mode oid\tpath" entry (all of it, without a tab). */
const char *lsfiles_entry_path(const char *);
/* Its mode, or 0 if it is malformed. */
unsigned lsfiles_entry_mode(const char *);
/* The length of its oid, or 0 if it is malformed. */
size_t	lsfiles_entry_oidlen(const char *);
/* Split git ls-files -s's "mode oid stage\tpath" into e and *stage; -1
 * if it is malformed. */
int	lsfiles_staged_parse(const char *, struct lsfiles_entry *, int *);
/* Split git ls-tree's "mode type oid\tpath" into e (the type the mode's:
 * tree, commit or blob); -1 if it is malformed. */
int	lsfiles_tree_parse(const char *, struct lsfiles_entry *);
/* The next record of git diff --raw -z output at *p (before end) into c,
 * *p moved past it: 1; 0 at end; -1 if it is malformed. */
int	lsfiles_raw_next(const char **, const char *, struct lsfiles_change *);
/* Split an "old new\tpath" line into c (its oids NULL); -1 if it is
 * malformed. */
int	lsfiles_change_parse(const char *, struct lsfiles_change *);
/* Push onto v the entry that removes path's, "0 <zeros>\tpath", with
 * oidlen zeros. */
void	lsfiles_push_removal(struct strv *, const char *, size_t);
/* Sort entries ("mode oid\tpath") by path, as lsfiles_find() needs. */
void	lsfiles_sort(struct strv *);
/* The entry of path in entries ("mode oid\tpath", sorted by path as the
 * index is), or NULL. */
const char *lsfiles_find(const struct strv *, const char *);

#endif /* LSFILES_H */
