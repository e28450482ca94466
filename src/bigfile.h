/*
 * Changes copied whole: the changed tracked files that git would diff
 * at the cost of their size -- larger than forge.copyThreshold, or
 * binary (a NUL in their first 8000 bytes, git's own test) -- arrive in
 * the copy by copying the file itself (fs_copy_fd: a reflink where the
 * file system allows, holes kept), and the textual patch leaves them
 * out (patch_replay_except()).  The proof looks at them as at any file
 * forge wrote.
 *
 *	struct bigfile *b = bigfile_begin(&src, head, scratch, tag, NULL,
 *	    threshold, verbose);	the source is read in the background
 *					(git diff-index, git cat-file, then
 *					git diff); threshold is
 *					forge.copyThreshold's, and verbose
 *					has the files copied named
 *	b = bigfile_begin(&src, head, scratch, tag, &entries, threshold,
 *	    verbose);
 *					the same, but the changed paths are
 *					to come from the proof, which lists
 *					them anyway (entries: the index's,
 *					entlist.h, in index order; the size
 *					a file had is then taken from its
 *					entry, as only staged changes make
 *					it other than HEAD's):
 *	b = bigfile_begin(&src, head, scratch, tag, NULL, BIGFILE_EVERY,
 *	    verbose);
 *					where git may convert: every change
 *					is copied whole, as the working tree
 *					has it (git diff shows what git makes
 *					of its bytes); the changes are those
 *					of git diff, which reads again a file
 *					whose stat data says it may have
 *					changed, not git diff-index's, which
 *					lists it: a file whose blob is HEAD's
 *					is as a checkout writes it, however
 *					its bytes differ
 *	bigfile_feed(b, &changed);	here they are (NULL: none will come;
 *					git diff-index it is, as it is if
 *					none came by bigfile_finish())
 *	bigfile_poll(b);		moves it on, never waits
 *	if (bigfile_finish(b) == -1)	waits; a message said why
 *		...
 *	b->paths			sorted: the paths to leave out of the
 *					patch, and to copy
 *	b->changed			sorted: every path where the working
 *					state differs from HEAD (untracked
 *					files perhaps aside)
 *	bigfile_patch(b)		the patch of the rest (git diff, made
 *					in the background as soon as the
 *					paths are known), or NULL if it could
 *					not be made (patch.h)
 *	bigfile_clear(b, dst)		before the patch: take them out of
 *					the copy (and directories they leave
 *					empty), so that nothing of theirs
 *					stands in the patch's way
 *	bigfile_copy(b, src, dst, rel)	after it: copy them from the source
 *	bigfile_free(b);		NULL is fine
 *
 * Which files are big is only a choice of the fastest way: a file copied
 * is the source's file, whatever git would have made of it, with the
 * mode git apply would give it (not the source's bits but its owner's
 * x bit), so a wrong guess costs time, never fidelity.  A path below a
 * big one (a file turned into a directory, or back) is copied too, as a
 * pathspec that leaves a path out leaves out what is below it.  Gitlinks
 * are left to the patch.  Past BIGFILE_MAX paths (or their names past
 * BIGFILE_MAX_BYTES), nothing is copied: the patch carries it all.
 */
#ifndef BIGFILE_H
#define BIGFILE_H

#include "entlist.h"
#include "git.h"
#include "strv.h"

#define BIGFILE_EVERY		(-1LL)	/* a threshold: see above */
#define BIGFILE_MAX		4096
#define BIGFILE_MAX_BYTES	(1 << 20)

struct bigfile {
	struct strv		 paths;		/* copied, not patched */
	struct strv		 changed;	/* every path that differs
						   from HEAD */
	/* private */
	struct git		 g;
	char			*head;
	char			*prefix;	/* of its temporary files */
	char			*patch;		/* the patch of the rest */
	int			 diff_ok;
	struct git_job		 job;
	int			 step;
	int			 failed;
	struct strv		 gone;		/* of the changed, those not in
						   the index (sorted) */
	struct strv		 asked;		/* entries whose size cat-file
						   tells ("mode oid\tpath";
						   mode 0: the path's in
						   HEAD) */
	const struct entlist	*entries;	/* the index's, or NULL */
	long long		 threshold;	/* larger is big */
	int			 every;		/* BIGFILE_EVERY */
	int			 verbose;
};

struct bigfile *bigfile_begin(const struct git *, const char *, const char *,
	    const char *, const struct entlist *, long long, int);
void	 bigfile_feed(struct bigfile *, const struct strv *);
void	 bigfile_poll(struct bigfile *);
int	 bigfile_finish(struct bigfile *);
const char *bigfile_patch(const struct bigfile *);
int	 bigfile_clear(const struct bigfile *, const char *);
int	 bigfile_copy(const struct bigfile *, const char *, const char *,
	    const char *);
void	 bigfile_free(struct bigfile *);

/* For tests: parse `git diff-index --raw -z` output into the changed
 * paths, those of them that are not in the index (gone: whatever is on
 * disk is untracked), and into want the entry ("mode oid\tpath", the old
 * side's, lsfiles.h) of those whose size in HEAD is to be asked (an old regular file whose new side is not big
 * already); big(path) says whether a path on disk is big.  -1 if
 * malformed. */
int	 bigfile_parse_raw(const char *, size_t, struct strv *, struct strv *,
	    struct strv *, struct strv *, int (*)(const char *, void *),
	    void *);
/* Sort paths, drop duplicates, and add each changed path below one of
 * them. */
void	 bigfile_close(struct strv *, const struct strv *);
/* Does a buffer hold a NUL in its first 8000 bytes (git's test)? */
int	 bigfile_is_binary(const char *, size_t);

#endif /* BIGFILE_H */
