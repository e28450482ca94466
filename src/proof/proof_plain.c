/* A plain copy's side of the proof: git at what forge wrote, forge the rest. */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "gitindex.h"
#include "proof.h"
#include "proof_int.h"
#include "treeid.h"

/*
 * A copy of nothing but files (p->plain): git looks at the paths forge
 * wrote alone -- those where the source differs from HEAD, and the
 * untracked files -- each added or removed as it is on disk
 * (update-index), rather than at the whole copy (git add -A -f).  What
 * else the copy has is then forge's to see: proof_plain_look() and
 * proof_plain_settled().
 */
void
proof_plain_only(const struct proof *p, struct treeid_req *q,
    struct strv *only)
{
	strv_pushv(only, p->src_job.changed.v);
	strv_pushv(only, p->untracked.v);
	strv_sort_uniq(only);
	q->only = only;
	/* A path git will not take that way (a file beside a symlink, a
	 * directory): the whole copy, with nothing said. */
	q->quiet = 1;
	/* Nothing in the run reads what they hold but where git converts
	 * files: their ids will do. */
	q->info_only = !p->r.convert;
}

/* What proof_plain_look() walks the copy's index with. */
struct plain_walk {
	const struct proof	*p;
	size_t			 rawsz;
	const struct strv	*only;
	size_t			 k;		/* only's next path */
	struct fs_pair		 fp;
	struct strv		*paths;
	struct treeid_job	*job;
	size_t			 n;
};

/* Is the copy's file at e's path the one git wrote of it?  If not, onto
 * the walk's paths. */
static int
plain_entry(const struct gitindex_entry *e, void *arg)
{
	struct plain_walk	*w = arg;
	struct stat		 st;
	const struct timespec	*since = &w->p->checked_out;
	const char		*base;
	int			 c = 1, r = 1;

	/* The job's next step starts as soon as its last ends. */
	if ((++w->n & 255) == 0)
		treeid_poll(w->job);
	while (w->k < w->only->n &&
	    (c = strcmp(w->only->v[w->k], e->path)) < 0)
		w->k++;
	/* git looks at it -- or has, early, and what changed it since is
	 * to be seen. */
	if (c == 0 && !strv_sorted_has(&w->p->early_done, e->path))
		return 0;
	if (c == 0)
		since = &w->p->early_at;
	(void)fs_pair_to(&w->fp, e->path, &base, NULL, NULL);
	if (w->fp.dfd != -1 &&
	    fstatat(w->fp.dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		r = gitindex_stale(e, &st, since);
		/* Empty, as the blob it names: the same bytes whatever
		 * git kept of it. */
		if (r == 2 && st.st_size == 0 && gitindex_empty(e, w->rawsz))
			r = 0;
	}
	if (r != 0)
		strv_push(w->paths, e->path);
	return 0;
}

/*
 * touched_since_checkout() for a copy of nothing but files, over the
 * copy's own index: each entry git is not to look at (not in only) is
 * to have its file as git wrote it -- the same inode, size and times as
 * git kept, no later than the checkout -- else its path goes onto
 * paths.  The same look git add -A would take of it, stat data and all:
 * a file of the checkout's, moved with its directory, keeps its times
 * but not its inode.  Then the copy's files and symlinks, but for its
 * .git, are counted: their number, or -1 if the index could not be read
 * or the files not all counted, or there is anything else
 * (fs_count_files()).
 */
long
proof_plain_look(const struct proof *p, const char *index, size_t rawsz,
    const struct strv *only, struct strv *paths, struct treeid_job *job)
{
	struct plain_walk	w;
	long			n = -1;
	int			r = -1;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.rawsz = rawsz;
	w.only = only;
	w.paths = paths;
	w.job = job;
	if (fs_pair_open(&w.fp, NULL, p->r.dst) == 0) {
		r = gitindex_each(index, rawsz, plain_entry, &w, NULL);
		if (r == 0)
			n = fs_count_files(w.fp.droot, ".git");
		fs_pair_close(&w.fp);
	}
	return n;
}

/*
 * Is there nothing in the copy but what the index its side ended with
 * has?  Each entry of that index is a file there: git looked at the
 * paths it was given (proof_plain_only()), and forge at the others,
 * which it found as the checkout wrote them (proof_plain_look()).  So
 * there are as many files as entries only if there is nothing else --
 * nothing git add -A would have added.  What git could take for a
 * repository (a .git below the top) or could not (a fifo, a device) is
 * not counted but not known: -1, as for another number.  0: so it is.
 */
int
proof_plain_settled(long files, const char *index, size_t rawsz)
{
	size_t	n;

	if (files < 0 || index == NULL ||
	    gitindex_count(index, rawsz, &n) == -1)
		return -1;
	return (size_t)files == n ? 0 : -1;
}
