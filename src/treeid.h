/*
 * The git tree id of a working tree as it stands, computed without
 * writing anything into its repository: from a throwaway copy of its
 * index (so git's stat cache spares the files that did not change) and a
 * throwaway object directory that borrows the real one as an alternate.
 *
 *	struct treeid_req q = TREEID_INIT;
 *	q.git = &g;		where the working tree is (dir, gitdir, ...)
 *	q.index = path;		the index to start from (NULL: none)
 *	q.start = path;		start from this index instead, one that
 *				treeid_keep() kept from an earlier request
 *				on the same working tree, whose index had
 *				the same entries: git then looks again only
 *				at files whose stat data changed since (its
 *				stat cache, carried over).  Linked, not
 *				copied, unless q.trust: nothing may write
 *				it in place meanwhile
 *	q.scratch = dir;	private directory for temporary files
 *	q.objdir = dir;		the temporary object directory: the trees
 *	q.blobdir = dir;	the files' blobs, if not there: kept apart,
 *				they can go as soon as the tree id is known
 *	q.lastdir = dir;	blobs an earlier request wrote, for git to
 *				find rather than write again (may be NULL)
 *	q.alternates = path;	the repository's own object directory
 *	q.edits = &v;		update-index --index-info lines applied
 *				to the temporary index first: "mode
 *				oid\tpath" puts an entry back without
 *				stat data or flags (git looks at the file
 *				afresh), "0 0...0\tpath" removes one
 *	q.exclude = &x;		paths to leave out (may be NULL)
 *	q.force = 1;		add files that ignore rules match, too
 *	q.trust = 1;		trust the index's stat data of every entry
 *				(a fresh checkout is "racily clean" all
 *				over): the caller has removed, with edits,
 *				every path changed since it was written, or
 *				vouches for it otherwise; git does not
 *				preload the index then
 *	q.sparse = 1;		a sparse checkout: add files outside its
 *				patterns that are on disk too (git add
 *				--sparse, which needs git 2.34)
 *	q.base = commit;	also list, in job.changed, the paths whose
 *				entries differ from that commit's
 *	q.only = &v;		look at these paths only, each added,
 *				updated or removed as its file is, not at
 *				the whole tree (git update-index rather
 *				than git add -A): the caller vouches that
 *				nothing else changed since the index it
 *				starts from was made
 *	q.info_only = 1;	with q.only: no blob written of the paths
 *				git hashes (update-index --info-only), for
 *				a tree id that no later step reads through
 *				(no attribute has git convert them)
 *	q.own = rawsz;		forge computes the tree id itself, from
 *				the index git made (gitindex_tree_fd()),
 *				for a repository whose ids are rawsz bytes
 *				(20 or 32): no tree is written, so no later
 *				git may read one through the id (no
 *				treeid_diff()); the job keeps that index
 *				open, for treeid_own_fd().  Where forge
 *				cannot read it, git write-tree as without
 *	q.own_unhashed = 1;	with q.own: no tree id at all, for a
 *				caller that compares the index's entries
 *				with another's (gitindex_diff_fd()), which
 *				reads it through: only its header is read
 *	q.quiet = 1;		a git that fails says nothing: the caller
 *				goes another way
 *	q.edits_only = 1;	stop before the add: job.index is then an
 *				index for another request to start from
 *	q.big = n;		before the add, git hashes the regular
 *				files of n bytes or more among those it is
 *				to look at, that no attribute has git
 *				convert (check-attr), and writes no
 *				blob of theirs (update-index
 *				--info-only): the add then
 *				leaves them out (up to 64; more it finds
 *				unchanged, unless as recent as the
 *				index, "racily clean", which git adds
 *				again).  A tree id needs no
 *				blob, and writing one costs git a second
 *				hash of the file besides the write.  Which
 *				files: those git diff-files lists, or
 *	q.big_from = &v;	those of v.  If git cannot, the add does
 *				it all, as without
 *	char *tree = treeid_compute(&q, "src");	  NULL: failed, said why
 *
 * The same, in the background, while forge does other work:
 *	struct treeid_job j;
 *	treeid_start(&j, &q, "src");	(q must live until the end)
 *	treeid_poll(&j);		moves it on, never waits (and must not
 *					be called from within treeid_finish(),
 *					as an idle hook could)
 *	idx = treeid_wait_added(&j);	waits for the files to be added
 *					only: the index the tree is to be
 *					written from (NULL: failed), there
 *					until the job is freed
 *	tree = treeid_wait_tree(&j);	waits for the tree id only (NULL:
 *					failed), what follows it going on;
 *					the job keeps it, for treeid_finish()
 *	tree = treeid_finish(&j);	waits for it; the caller owns the id
 *	treeid_done(&j)			has it ended (well or not)?
 *	treeid_changed(&j, base);	as if q.base had been base: a job
 *					that has ended runs again for that
 *					step alone (-1: it could not start,
 *					said why, and the job has failed)
 *	tree = treeid_wait_own(&j);	with q.own: waits for git to
 *					have staged the files, and gives
 *					the tree id forge computed of them
 *					(NULL if git writes it, the job
 *					failed, or q.own_unhashed), the
 *					job's until treeid_free()
 *	tree = treeid_own(&j);		the same, if there yet, never
 *					waiting (and after treeid_finish())
 *	fd = treeid_own_fd(&j);		with q.own, once git has staged the
 *					files: the index, open (-1 if git
 *					writes the tree, or the job failed),
 *					the job's until treeid_free(),
 *					whatever becomes of its name
 *	treeid_free(&j);
 *
 *	treeid_keep(&j, path);		after treeid_finish(): keep the
 *					index the job ended with at path
 *					(for a later request's start)
 *
 *	treeid_diff(&q, a, b, &paths);	the paths whose entries differ
 */
#ifndef TREEID_H
#define TREEID_H

#include "git.h"
#include "gitindex.h"
#include "strv.h"

struct treeid_req {
	const struct git	*git;
	const char		*index;
	const char		*start;
	const char		*scratch;
	const char		*objdir;
	const char		*blobdir;
	const char		*lastdir;
	const char		*alternates;
	const struct strv	*edits;
	const struct strv	*exclude;
	int			 force;
	int			 trust;
	int			 sparse;
	const char		*base;
	const struct strv	*only;
	int			 edits_only;
	int			 info_only;
	long long		 big;
	const struct strv	*big_from;
	size_t			 own;
	int			 own_unhashed;
	int			 quiet;
};

#define TREEID_INIT	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
			  NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0, 0, NULL, 0, \
			  0, 0 }

struct treeid_job {
	struct treeid_req	 q;
	struct git		 g;
	struct git_job		 job;
	char			*prefix;	/* of its temporary files */
	char			*index;
	int			 step;
	int			 failed;
	char			*tree;
	struct strv		 changed;
	struct strv		 big;		/* the files q.big names, once
						   git hashed them */
	int			 add_all;	/* git add leaves none of them
						   out */
	int			 own_fd;	/* q.own's index, once */
	char			*own;		/* its tree id, if hashed */
	int			 have_own;
};

int	 treeid_start(struct treeid_job *, const struct treeid_req *,
	    const char *);
void	 treeid_poll(struct treeid_job *);
int	 treeid_done(const struct treeid_job *);
const char *treeid_wait_added(struct treeid_job *);
const char *treeid_wait_tree(struct treeid_job *);
int	 treeid_changed(struct treeid_job *, const char *);
char	*treeid_finish(struct treeid_job *);
const char *treeid_wait_own(struct treeid_job *);
const char *treeid_own(const struct treeid_job *);
int	 treeid_own_fd(const struct treeid_job *);
void	 treeid_free(struct treeid_job *);
int	 treeid_keep(struct treeid_job *, const char *);
char	*treeid_compute(const struct treeid_req *, const char *);
int	 treeid_diff(const struct treeid_req *, const char *, const char *,
	    struct strv *);

#endif /* TREEID_H */
