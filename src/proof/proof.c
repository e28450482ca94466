/* The proof of a fresh copy: the source's side and the copy's, by tree ids. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_vis.h"
#include "git.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "treeid.h"
#include "xmalloc.h"

static void	poll_early(void *);

/* The size of the repository's object ids, from HEAD's: 20 or 32 bytes
 * (0: not known). */
size_t
proof_hash_size(const struct proof *p)
{
	size_t	n = p->r.head != NULL ? strlen(p->r.head) : 0;

	return n == 40 || n == 64 ? n / 2 : 0;
}

/*
 * Changed files larger than forge.copyThreshold are hashed by git on
 * each side without their blob being written (treeid.h, q.big): writing
 * one would cost git a second hash of it besides the write, and a tree
 * id needs neither -- unless git may convert a file, which can depend on
 * the blob its entry names (core.autocrlf, text=auto: line endings
 * already in the index are kept), read when git adds it again.
 */
static long long
proof_big(const struct proof *p)
{
	long long	t = p->r.big;

	return t < 0 ? 1 : t < LLONG_MAX ? t + 1 : t;
}

/* The copy's git, for its side of the proof. */
void
proof_dst_git(struct proof *p, const char *dst_gitdir)
{
	memset(&p->dst_git, 0, sizeof(p->dst_git));
	p->dst_git.dir = p->r.dst;
	p->dst_git.gitdir = dst_gitdir;
	p->dst_git.worktree = p->r.dst;
}

/* The update-index --index-info line removing entry's path. */
static void
push_removal(struct strv *v, const char *entry)
{
	size_t	n;

	if ((n = lsfiles_entry_oidlen(entry)) == 0)
		n = 40;
	lsfiles_push_removal(v, lsfiles_entry_path(entry), n);
}

/*
 * For the proof of the source: flagged entries are taken as they are on
 * disk -- put back without stat data or flags, or removed where there
 * is no file (as snapshot_fill_flagged() makes the copy).
 */
static void
flagged_edits(const char *top, const struct lsfiles *l, struct strv *edits)
{
	struct stat	 st;
	char		*p;
	size_t		 i;

	for (i = 0; i < l->flagged.n; i++) {
		p = xasprintf("%s/%s", top, lsfiles_entry_path(l->flagged.v[i]));
		if (lstat(p, &st) == 0 &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			strv_push(edits, l->flagged.v[i]);
		else
			push_removal(edits, l->flagged.v[i]);
		free(p);
	}
}

/*
 * A conflict's path is tracked in the copy as it is in the source (the
 * source's index has its stages): the entry of the stage git add takes
 * the mode of, without stat data, put in first for git to look at
 * afresh -- in a copy that keeps ignored files of its own, where git add
 * -A leaves out what the working state ignores, as it does in the
 * source; and in every copy, where that mode is not the file's (a link's
 * under core.symlinks false, which git keeps from the entry).
 */
void
proof_conflict_entries(const struct proof *p, struct strv *v)
{
	strv_pushv(v, p->conflicts.v);
}

/* Is a later than or as late as b? */
static int
not_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/*
 * The tracked paths of the copy changed since its checkout, other than
 * the expected ones (sorted, as git lists them) -- but for those git
 * hashed early, changed since it started -- whatever changed them:
 * every change sets a file's ctime to the present, which nobody can set
 * back, so a ctime before the checkout's end means that the file is as
 * git wrote it -- and as its index entry says.  A path that is gone, or
 * that cannot be looked at, counts as changed: git is to look at it.
 */
static void
touched_since_checkout(const struct proof *p, struct strv *paths,
    const struct strv *expected, struct treeid_job *job)
{
	struct stat	 st;
	struct buf	 cur = BUF_INIT;
	const struct timespec *since;
	const char	*path, *slash;
	size_t		 i, k = 0, dlen;
	int		 root, dir = -1, c;

	root = open(p->r.dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_str(&cur);
	/* One lookup per file: its directory is opened once for all of
	 * its files, which the list holds together. */
	for (i = 0; i < p->r.entries->n; i++) {
		/* The job's next step starts as soon as its last ends. */
		if ((i & 255) == 0)
			treeid_poll(job);
		path = entlist_path(p->r.entries, i);
		for (c = 1; k < expected->n &&
		    (c = strcmp(expected->v[k], path)) < 0; k++)
			;
		/* Forge wrote it: git looks anyway -- or has looked,
		 * early, and what changed it since is to be seen. */
		since = &p->checked_out;
		if (c == 0 && !strv_sorted_has(&p->early_done, path))
			continue;
		if (c == 0)
			since = &p->early_at;
		slash = strrchr(path, '/');
		dlen = slash != NULL ? (size_t)(slash - path) : 0;
		if (dir == -1 || cur.len != dlen ||
		    memcmp(cur.data, path, dlen) != 0) {
			if (dir != -1 && dir != root)
				close(dir);
			buf_reset(&cur);
			buf_add(&cur, path, dlen);
			dir = dlen == 0 || root == -1 ? root :
			    fs_open_dir(root, cur.data, 0, 0);
		}
		if (dir == -1 || fstatat(dir, slash != NULL ? slash + 1 : path,
		    &st, AT_SYMLINK_NOFOLLOW) == -1) {
			/* In a sparse checkout, where git looks at every
			 * file, paths outside the patterns are gone. */
			if (!p->r.sparse)
				strv_push(paths, path);
			continue;
		}
		if (not_before(&st.st_ctim, since) ||
		    not_before(&st.st_mtim, since))
			strv_push(paths, path);
	}
	if (dir != -1 && dir != root)
		close(dir);
	if (root != -1)
		close(root);
	buf_free(&cur);
}

/*
 * An entry of the index's that the carried index has not -- a tracked
 * file that was gone from disk when that index was made, there again
 * now -- is put in it first (update-index --index-info) for git add -A
 * to look at as the tracked file it is: as an untracked one, it would
 * leave it out where the working state ignores it.  A conflict's path,
 * the same (with the entry of proof_conflict_entries()) -- always, where git
 * may convert files: the line endings git keeps are those of the blob
 * of that entry, not of the one the carried index has.  0: so it is;
 * -1: the carried index is not to be started from (it cannot be read).
 */
static int
carried_lacks(struct proof *p, const struct lsfiles *l, struct strv *edits)
{
	struct gitindex	 had;
	struct buf	 b = BUF_INIT;
	const char	*path;
	size_t		 i, k;
	int		 c;

	if (gitindex_read(&had, p->src_carried, proof_hash_size(p)) == -1)
		return -1;
	for (i = 0; i < l->conflicts.n; i++)
		if (p->r.convert || gitindex_find(&had,
		    lsfiles_entry_path(l->conflicts.v[i])) == NULL)
			strv_push(edits, l->conflicts.v[i]);
	for (i = k = 0; i < p->r.entries->n; i++) {
		path = entlist_path(p->r.entries, i);
		for (c = 1; k < had.n && (c = strcmp(had.v[k].path, path)) < 0;
		    k++)
			;
		if (c != 0)
			strv_push(edits, entlist_line(p->r.entries, i, &b));
	}
	gitindex_free(&had);
	buf_free(&b);
	return 0;
}

struct proof *
proof_begin(const struct proof_repo *pr, const struct lsfiles *l,
    struct rundir *rd, size_t id)
{
	struct proof	*p;
	char		 tag[32];
	int		 look_alone = 0;

	p = xcalloc(1, sizeof(*p));
	p->r = *pr;
	p->rd = rd;
	p->id = id;
	if (pr->look != NULL)
		p->src_since = pr->look->since;
	else
		proof_look_src_clock(pr->src, pr->common, &p->src_since);
	flagged_edits(pr->src, l, &p->edits);
	strv_pushv(&p->conflicts, l->conflicts.v);
	p->plain = !pr->sparse && !pr->own_ignored && !pr->reused &&
	    (pr->exclude == NULL || pr->exclude->n == 0) &&
	    (pr->nested == NULL || pr->nested->n == 0) &&
	    l->gitlinks.n == 0 && l->nested.n == 0 && l->unmerged.n == 0;
	if (p->plain)
		strv_pushv(&p->untracked, l->untracked.v);
	if (!pr->sparse) {
		p->src_key = proof_carry_src_key(pr, l, &p->src_look_key);
		p->src_carried = proof_carry_find(rd, id, "src", p->src_key);
		/* One carried for other untracked files: for the look
		 * alone, which sees to them. */
		if (p->src_carried == NULL && pr->look != NULL &&
		    (p->src_carried = proof_carry_find(rd, id, "src",
		    p->src_look_key)) != NULL)
			look_alone = 1;
	}
	memset(&p->src_git, 0, sizeof(p->src_git));
	p->src_git.dir = pr->src;
	p->src_git.gitdir = pr->gitdir;
	p->src_git.worktree = pr->src;
	p->src_git.index = pr->index;
	/* Waiting for it, the copy's early hash is moved on. */
	p->src_idle.fn = poll_early;
	p->src_idle.arg = p;
	p->src_git.idle = &p->src_idle;
	p->src_req = (struct treeid_req)TREEID_INIT;
	p->src_req.git = &p->src_git;
	p->src_req.index = pr->index;
	p->src_req.start = p->src_carried;
	proof_scratch(&p->src_req, rd);
	p->src_req.alternates = pr->objects;
	p->src_req.edits = &p->edits;
	p->src_req.exclude = pr->exclude;
	p->src_req.base = pr->reused ? NULL : pr->head;
	p->src_req.sparse = pr->sparse;
	/* The files git looks at: those changed since the carried index,
	 * as a look at the source found (only then is the edits list, of
	 * no flagged entry, made of them); else all. */
	if (proof_look_take(p, l) == 0) {
		p->src_req.only = &p->look_only;
		/* Nothing reads what they hold (no conversion): their
		 * ids will do, and the tree's id, computed here, too. */
		p->src_req.info_only = 1;
		p->src_req.own = proof_hash_size(p);
	} else if (p->src_carried != NULL && (look_alone ||
	    carried_lacks(p, l, &p->edits) == -1)) {
		free(p->src_carried);
		p->src_carried = NULL;
		p->src_req.start = NULL;
	}
	/* A carried index has git look at little, and diff-files would
	 * look at every file once more. */
	if (p->src_carried == NULL && !pr->convert)
		p->src_req.big = proof_big(p);
	snprintf(tag, sizeof(tag), "src%zu", id);
	p->src_started = 1;
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1) {
		proof_free(p);
		return NULL;
	}
	return p;
}

void
proof_scratch(struct treeid_req *q, const struct rundir *rd)
{
	q->scratch = rd->scratch;
	q->objdir = rd->objects;
	q->blobdir = rd->blobs;
	q->lastdir = rd->blobs_last;
}

void
proof_copy_scratch(struct treeid_req *q, const struct rundir *rd)
{
	proof_scratch(q, rd);
	q->blobdir = rd->blobs_copy;
}

/*
 * Into *t, a time that anything written into the copy from now on is
 * stamped no earlier than, and (if wait) what was written so far
 * earlier.
 */
static void
written_since(const struct proof *p, struct timespec *t, int wait)
{
	struct timespec	last, step = { 0, 500000 };
	int		i;

	/*
	 * The coarse clock: file times are taken from it, so anything
	 * written from now on is at least this recent.  Taken once it has
	 * moved past the latest time the file system has stamped anything
	 * with (a step is a few ms; the file system may stamp finer times,
	 * ahead of it), so that no file written so far is as recent: those
	 * are not taken for touched since, and looked at again, every run.
	 * Nothing writes into the copy in between.  A clock that does not
	 * move is taken as it is.
	 */
	clock_gettime(CLOCK_REALTIME_COARSE, t);
	if (!wait || fs_stamp(p->r.dst, &last) == -1 ||
	    !not_before(&last, t))
		last = *t;
	for (i = 0; wait && i < 100 && not_before(&last, t); i++) {
		(void)nanosleep(&step, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, t);
	}
	fs_present(p->r.dst, t);
}

void
proof_checked_out(struct proof *p, int few)
{
	/* Where the checkout wrote few files (a copy taken back and
	 * brought up to date), any of them as recent as the present is
	 * looked at again, rather than the clock waited for. */
	written_since(p, &p->checked_out, !few);
}

/*
 * The copy's side starts from the index as the checkout left it, kept
 * now: a later git run in the copy (update-index, as the copy is staged
 * as the source is) reads again each entry as recent as the index --
 * git compares times to the second -- and marks changed one whose file
 * does not convert back to the blob it was checked out from (a blob
 * with a CRLF under "text eol=crlf", say), which the copy's side would
 * then hash anew, or not, by when it copied the index.  git never
 * writes an index in place: a hard link keeps this one as it is.
 */
void
proof_index_ready(struct proof *p, const char *dst_gitdir)
{
	char	*idx, tag[48];

	free(p->dst_gitdir);
	p->dst_gitdir = xstrdup(dst_gitdir);
	idx = xasprintf("%s/index", dst_gitdir);
	snprintf(tag, sizeof(tag), "checkout-index%zu", p->id);
	free(p->dst_index);
	p->dst_index = xasprintf("%s/%s", p->rd->scratch, tag);
	p->dst_index_kept = 0;
	(void)unlink(p->dst_index);
	if (link(idx, p->dst_index) == -1 &&
	    fs_copy_file(idx, p->dst_index) == -1 && errno != ENOENT) {
		/* The index itself then, as before. */
		free(p->dst_index);
		p->dst_index = idx;
		idx = NULL;
	} else
		p->dst_index_kept = 1;
	free(idx);
	p->index_ready = 1;
}

/*
 * Once the source's side knows which paths differ from HEAD, and git is
 * done with the copy's index, prepare that index for the copy's side:
 * those paths' entries lose their stat data (proof_look_fresh_entries()),
 * so that git looks at their files afresh.  The others keep what the checkout
 * recorded, which git compares with each file as it stands -- and forge
 * too, in touched_since_checkout(), for a change git's stat data could
 * not tell from the checkout.  So the index the copy's side ends with
 * holds nothing git did not see for itself: a reused copy's next proof
 * can start from it (proof_reused()).
 */
static void
start_prep(struct proof *p)
{
	const struct strv	*done = NULL;
	char			*early = NULL, tag[32];
	size_t			 i;

	if (p->prep_started || !p->index_ready || !p->src_started ||
	    !treeid_done(&p->src_job) || p->src_job.failed ||
	    (p->early_started && !treeid_done(&p->early_job)))
		return;
	p->prep_started = 1;
	/* What git hashed early keeps the stat data it found, which is
	 * git's own look at the file forge wrote last. */
	if (p->early_started && (early = treeid_finish(&p->early_job)) != NULL)
		done = &p->early_job.big;
	for (i = 0; done != NULL && i < done->n; i++)
		strv_push(&p->early_done, done->v[i]);
	for (i = 0; i < p->src_job.changed.n; i++)
		if (done == NULL || !strv_sorted_has(done,
		    p->src_job.changed.v[i]))
			strv_push(&p->rest, p->src_job.changed.v[i]);
	proof_look_fresh_entries(p, &p->prep_edits, &p->rest);
	proof_dst_git(p, p->dst_gitdir);
	p->prep_req = (struct treeid_req)TREEID_INIT;
	p->prep_req.git = &p->dst_git;
	p->prep_req.index = early != NULL ? early : p->dst_index;
	proof_copy_scratch(&p->prep_req, p->rd);
	p->prep_req.alternates = p->r.objects;
	p->prep_req.edits = &p->prep_edits;
	p->prep_req.trust = 1;
	p->prep_req.edits_only = 1;
	snprintf(tag, sizeof(tag), "prep%zu", p->id);
	(void)treeid_start(&p->prep_job, &p->prep_req, tag);
	/* The prepared index is a copy: the early one can go. */
	if (p->early_started) {
		treeid_free(&p->early_job);
		p->early_started = 0;
	}
	free(early);
	p->prep_req.index = p->dst_index;
}

/*
 * The files copied whole are the large ones: git hashes those in the
 * copy as soon as forge has written them, while the source's side still
 * runs, rather than after it.  Each starts from the source's entry, as
 * proof_look_fresh_entries() makes it (what git converts a file to can
 * depend on it); those the source's index has no plain file entry for
 * are left to the copy's side.  The caller vouches that git would
 * convert them as the copy's side would (proof.h).  One that anything
 * changes after git started is looked at again
 * (touched_since_checkout()).  Not for a copy whose indexes are carried
 * (its side may be proved as it stands, from that index), nor in a
 * sparse checkout.
 */
void
proof_copied(struct proof *p, const struct strv *paths)
{
	ssize_t		 e;
	unsigned	 mode;
	char		 tag[32];
	size_t		 i;

	if (p->early_started || p->prep_started || !p->index_ready ||
	    p->r.sparse || p->r.carry || p->r.convert)
		return;
	for (i = 0; i < paths->n; i++) {
		if ((e = entlist_find(p->r.entries, paths->v[i])) == -1)
			continue;
		mode = entlist_mode(p->r.entries, (size_t)e);
		if (mode == 0100644 || mode == 0100755) {
			strv_push(&p->early_paths, paths->v[i]);
			entlist_put(p->r.entries, (size_t)e, &p->early_edits);
		}
	}
	if (p->early_paths.n == 0)
		return;
	proof_dst_git(p, p->dst_gitdir);
	/* Waiting for it, the source's side is moved on. */
	p->copy_idle.fn = proof_poll_src_side;
	p->copy_idle.arg = p;
	p->dst_git.idle = &p->copy_idle;
	p->early_req = (struct treeid_req)TREEID_INIT;
	p->early_req.git = &p->dst_git;
	p->early_req.index = p->dst_index;
	proof_copy_scratch(&p->early_req, p->rd);
	p->early_req.alternates = p->r.objects;
	p->early_req.edits = &p->early_edits;
	p->early_req.trust = 1;
	p->early_req.edits_only = 1;
	p->early_req.big = proof_big(p);
	p->early_req.big_from = &p->early_paths;
	snprintf(tag, sizeof(tag), "early%zu", p->id);
	/* Each file changed from now on is looked at again (its stat data
	 * to the second could not tell). */
	written_since(p, &p->early_at, 1);
	p->early_started = 1;
	if (treeid_start(&p->early_job, &p->early_req, tag) == -1) {
		treeid_free(&p->early_job);
		p->early_started = 0;
	}
}

int
proof_source_changed(const struct proof *p, const struct strv **changed)
{
	if (p->src_req.base == NULL || !treeid_done(&p->src_job))
		return 0;
	if (p->src_job.failed)
		return -1;
	*changed = &p->src_job.changed;
	return 1;
}

/* Asked for once a reused copy is not proved as it stood: that way
 * never needs them. */
int
proof_list_changed(struct proof *p)
{
	if (p->src_req.base != NULL)
		return 0;
	p->src_req.base = p->r.head;
	return treeid_changed(&p->src_job, p->r.head);
}

void
proof_poll(struct proof *p)
{
	if (p->src_started)
		treeid_poll(&p->src_job);
	if (p->fast_started)
		treeid_poll(&p->fast_job);
	if (p->early_started)
		treeid_poll(&p->early_job);
	start_prep(p);
	if (p->prep_started)
		treeid_poll(&p->prep_job);
}

/* Say how the two trees differ, at most 20 paths of it. */
static void
differs(const struct proof *p, const struct treeid_req *q, const char *a,
    const char *b)
{
	struct strv	paths = STRV_INIT;
	size_t		j;

	warnx("the copy is not the working state: tree %.12s in %s, %.12s "
	    "in the copy; refusing to verify", a, fs_vis(p->r.src), b);
	if (treeid_diff(q, a, b, &paths) == 0) {
		for (j = 0; j < paths.n && j < 20; j++)
			fprintf(stderr, "\tdiffers: %s%s\n", fs_vis(p->r.rel),
			    fs_vis(paths.v[j]));
		if (paths.n > 20)
			fprintf(stderr, "\t... and %zu more\n", paths.n - 20);
	}
	strv_free(&paths);
}

/*
 * The paths of v that changed in the copy since *t (or cannot be looked
 * at), into out: git hashed them then, before the add that took its
 * word for them.
 */
static void
changed_since(const struct proof *p, const struct strv *v,
    const struct timespec *t, struct strv *out)
{
	struct stat	st;
	size_t		i;
	int		root;

	root = open(p->r.dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < v->n; i++)
		if (root == -1 || fstatat(root, v->v[i], &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || not_before(&st.st_ctim, t) ||
		    not_before(&st.st_mtim, t))
			strv_push(out, v->v[i]);
	if (root != -1)
		close(root);
}

/* Hold the index a job of the copy's side ended with, for
 * proof_carry_leave_copy() once the two sides agree. */
void
proof_hold_copy_index(struct proof *p, struct treeid_job *job)
{
	char	*path;

	path = xasprintf("%s/tree-copy%zu.kept", p->rd->scratch, p->id);
	if (p->copy_index != NULL)
		(void)unlink(p->copy_index);
	free(p->copy_index);
	p->copy_index = NULL;
	if (treeid_keep(job, path) == 0)
		p->copy_index = path;
	else
		free(path);
}

/*
 * The copy's side.  Its index is its checkout's, and git wrote it with
 * the files: all "racily clean", that recent, and git would read every
 * one of them again.  Instead, the entries of the paths where the source
 * differs from HEAD, which forge wrote, go, and git looks at those
 * afresh; the rest are taken as they are, without git looking at their
 * files -- once forge has seen that no other file changed since the
 * checkout, which it does while git works.  In a sparse checkout, git
 * looks at them and trusts their stat data instead.  Nothing git ignores
 * is ever in the copy, so a tracked file that an ignore rule matches
 * counts there too (-f) -- except in a copy that keeps ignored files of
 * its own (build output), where git must leave them out as it does in
 * the source: the source's staged files are tracked there too, by the
 * entries proof_look_fresh_entries() put back.  In a copy of nothing but
 * files, git looks at the paths forge wrote alone (proof_plain.c), and
 * at the whole copy only if forge finds something else there.
 */
static char *
copy_tree(struct proof *p, struct treeid_req *q, struct strv *edits)
{
	struct treeid_job	 job;
	struct treeid_req	 plain;
	const struct treeid_req	*first = q;
	struct timespec		 start;
	struct strv		 paths = STRV_INIT, only = STRV_INIT;
	char			*b = NULL, *ci, tag[32];
	long			 files = -1;

	/* The prepared index: usually ready by now. */
	if (p->early_started && !treeid_done(&p->early_job))
		free(treeid_finish(&p->early_job));
	start_prep(p);
	if (!p->prep_started || (ci = treeid_finish(&p->prep_job)) == NULL)
		return NULL;
	q->git = &p->dst_git;
	q->index = ci;
	proof_copy_scratch(q, p->rd);
	q->alternates = p->r.objects;
	q->edits = edits;
	q->exclude = p->r.exclude;
	q->force = !p->r.own_ignored;
	proof_conflict_entries(p, edits);
	q->trust = 1;
	q->sparse = p->r.sparse;
	if (!p->r.convert) {
		q->big = proof_big(p);
		q->big_from = &p->rest;
	}
	if (p->plain) {
		plain = *q;
		proof_plain_only(p, &plain, &only);
		first = &plain;
	}
	/* What changes from now on is stamped no earlier (a file forge
	 * wrote this instant too, which costs git a look only). */
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	fs_present(p->r.dst, &start);
	snprintf(tag, sizeof(tag), "copy%zu", p->id);
	if (treeid_start(&job, first, tag) == 0) {
		if (!p->plain)
			touched_since_checkout(p, &paths,
			    &p->src_job.changed, &job);
		else
			files = proof_plain_look(p, ci, proof_hash_size(p),
			    &only, &paths, &job);
		if ((b = treeid_finish(&job)) != NULL)
			changed_since(p, &job.big, &start, &paths);
	}
	if ((b != NULL && paths.n > 0) || (p->plain && (b == NULL ||
	    proof_plain_settled(files, job.index, proof_hash_size(p)) ==
	    -1))) {
		/* Something else changed too, or is there: look at it as
		 * well, git adding each file itself. */
		treeid_free(&job);
		free(b);
		b = NULL;
		q->big = 0;
		q->big_from = NULL;
		proof_look_fresh_entries(p, edits, &paths);
		snprintf(tag, sizeof(tag), "copy%zu-again", p->id);
		if (treeid_start(&job, q, tag) == 0)
			b = treeid_finish(&job);
	}
	if (b != NULL)
		proof_hold_copy_index(p, &job);
	treeid_free(&job);
	strv_free(&paths);
	strv_free(&only);
	free(ci);
	q->index = NULL;
	return b;
}

/* The source's side again, from the source's own index: its job's
 * index is then that one's, for the next run. */
static char *
src_side_afresh(struct proof *p)
{
	char	tag[32];

	p->src_afresh++;
	treeid_free(&p->src_job);
	p->src_req.start = NULL;
	/* Every file looked at: the look's lists (of no flagged entry's
	 * edits: there was none) are for the carried index alone. */
	if (p->src_req.only != NULL) {
		p->src_req.only = NULL;
		p->src_req.info_only = 0;
		p->src_req.own = 0;
		strv_clear(&p->edits);
	}
	snprintf(tag, sizeof(tag), "src%zu-afresh", p->id);
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1)
		return NULL;
	return treeid_finish(&p->src_job);
}

/* The source's side's tree, once: NULL if it failed (said why). */
const char *
proof_src_side_tree(struct proof *p)
{
	const char	*t;

	if (p->src_tree != NULL || p->src_failed)
		return p->src_tree;
	/* The paths that differ from HEAD are listed after: not waited
	 * for (proof_source_changed()). */
	if ((t = treeid_wait_tree(&p->src_job)) != NULL)
		p->src_tree = xstrdup(t);
	else if (p->src_carried != NULL) {
		free(p->src_carried);
		p->src_carried = NULL;
		p->src_tree = src_side_afresh(p);
	}
	if (p->src_tree == NULL)
		p->src_failed = 1;
	return p->src_tree;
}

/* The source's side run to its end (the paths that differ from HEAD
 * listed too): -1 if it failed. */
static int
src_side_done(struct proof *p)
{
	if (!treeid_done(&p->src_job))
		free(treeid_finish(&p->src_job));
	return p->src_job.failed ? -1 : 0;
}

/* While the copy's side runs: the source's moves on too. */
void
proof_poll_src_side(void *arg)
{
	struct proof	*p = arg;

	treeid_poll(&p->src_job);
}

/* While the source's side runs: the copy's early hash moves on too. */
static void
poll_early(void *arg)
{
	struct proof	*p = arg;

	if (p->early_started)
		treeid_poll(&p->early_job);
}

/*
 * The two sides differ still: where the working state's index has an
 * entry git takes at its stat data's word, its file not read again, the
 * copy's side hashed the file forge wrote, as it is -- and an entry git
 * made under other attributes (text=auto since dropped, say) names
 * another blob than the file hashes to now.  The paths that differ are
 * looked at afresh on the source's side too, once, from the entries
 * the working state's index has for them (proof_look_fresh_entries()):
 * its tree is then that of the files as they are.  NULL: none of them
 * has an entry, or git failed.
 */
static char *
src_side_stale(struct proof *p, const struct treeid_req *q, const char *a,
    const char *b)
{
	struct strv	 paths = STRV_INIT, fresh = STRV_INIT;
	char		*t = NULL;
	size_t		 i;

	if (p->src_stale || p->r.entries == NULL ||
	    treeid_diff(q, a, b, &paths) == -1)
		goto out;
	for (i = 0; i < paths.n; i++)
		if (entlist_find(p->r.entries, paths.v[i]) != -1)
			break;
	if (i == paths.n)
		goto out;
	p->src_stale = 1;
	proof_carry_drop(p->rd, p->id, "src");
	free(p->src_carried);
	p->src_carried = NULL;
	/* The look's edits go (src_side_afresh()), the flagged entries'
	 * stay: these go after them. */
	if (p->src_req.only != NULL) {
		p->src_req.only = NULL;
		p->src_req.info_only = 0;
		p->src_req.own = 0;
		strv_clear(&p->edits);
	}
	proof_look_fresh_entries(p, &fresh, &paths);
	strv_pushv(&p->edits, fresh.v);
	t = src_side_afresh(p);
out:
	strv_free(&paths);
	strv_free(&fresh);
	return t;
}

char *
proof_finish(struct proof *p)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	const char		*src;
	char			*a = NULL, *b = NULL, *t;

	if ((src = proof_src_side_tree(p)) == NULL || src_side_done(p) == -1)
		goto fail;
	a = xstrdup(src);
	if (p->settled != NULL) {
		/* Proved before the copy was touched: nothing since. */
		b = p->settled;
		p->settled = NULL;
	} else {
		if (p->copy_index != NULL) {
			/* A reused copy's side that was not settled. */
			(void)unlink(p->copy_index);
			free(p->copy_index);
			p->copy_index = NULL;
		}
		if ((b = copy_tree(p, &q, &edits)) == NULL)
			goto fail;
	}
	if (strcmp(a, b) != 0 && p->src_carried != NULL) {
		/* Not a word before the source's side is its own. */
		proof_carry_drop(p->rd, p->id, "src");
		free(a);
		a = NULL;
		free(p->src_carried);
		p->src_carried = NULL;
		free(p->src_tree);
		if ((p->src_tree = src_side_afresh(p)) == NULL) {
			p->src_failed = 1;
			goto fail;
		}
		a = xstrdup(p->src_tree);
	}
	if (strcmp(a, b) != 0 && (t = src_side_stale(p, &q, a, b)) != NULL) {
		free(p->src_tree);
		p->src_tree = t;
		free(a);
		a = xstrdup(t);
	}
	if (strcmp(a, b) != 0) {
		differs(p, &q, a, b);
		goto fail;
	}
	if (p->r.carry) {
		proof_carry_leave_src(p);
		proof_carry_leave_copy(p);
	}
	free(b);
	strv_free(&edits);
	return a;
fail:
	proof_carry_drop(p->rd, p->id, "src");
	proof_carry_drop(p->rd, p->id, "dst");
	free(a);
	free(b);
	strv_free(&edits);
	return NULL;
}

void
proof_free(struct proof *p)
{
	if (p == NULL)
		return;
	if (p->src_started)
		treeid_free(&p->src_job);
	if (p->prep_started)
		treeid_free(&p->prep_job);
	if (p->early_started)
		treeid_free(&p->early_job);
	strv_free(&p->early_paths);
	strv_free(&p->early_edits);
	strv_free(&p->early_done);
	strv_free(&p->rest);
	strv_free(&p->edits);
	strv_free(&p->conflicts);
	strv_free(&p->look_only);
	strv_free(&p->look_gone);
	strv_free(&p->recent_files);
	strv_free(&p->prep_edits);
	strv_free(&p->untracked);
	if (p->dst_index_kept)
		(void)unlink(p->dst_index);
	free(p->dst_index);
	free(p->dst_gitdir);
	free(p->src_key);
	free(p->src_look_key);
	free(p->src_carried);
	free(p->src_tree);
	if (p->copy_index != NULL)
		(void)unlink(p->copy_index);
	free(p->copy_index);
	free(p->settled);
	free(p->copy_carried);
	strv_free(&p->fixed);
	strv_free(&p->recent);
	strv_free(&p->written);
	if (p->fast_started)
		treeid_free(&p->fast_job);
	strv_free(&p->fast_edits);
	free(p);
}

char *
proof_source_tree(struct rundir *rd, const struct repo *r)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	struct lsfiles		 l;
	struct git		 g;
	char			*idx, *tree = NULL, *p;

	p = repo_index_path(r);
	idx = rundir_index(rd, p);
	free(p);
	if (idx == NULL)
		return NULL;
	repo_git(r, &g);
	g.index = idx;
	if (lsfiles_read(&l, &g) == -1) {
		free(idx);
		return NULL;
	}
	flagged_edits(r->top, &l, &edits);
	q.git = &g;
	q.index = idx;
	proof_scratch(&q, rd);
	q.alternates = r->objects;
	q.edits = &edits;
	/* Files outside a sparse checkout's patterns that are on disk,
	 * flagged or not, are git add's to take too: without --sparse it
	 * refuses them, where a copy of the working state holds them. */
	q.sparse = 1;
	tree = treeid_compute(&q, "src");
	free(idx);
	strv_free(&edits);
	lsfiles_free(&l);
	return tree;
}
