/* The proof that a copy is the working state, by tree ids. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "lsfiles.h"
#include "proof.h"
#include "treeid.h"
#include "xmalloc.h"

struct proof {
	struct proof_repo	 r;
	struct rundir		*rd;
	size_t			 id;		/* names its temporary files */
	struct strv		 edits;		/* flagged entries, as on disk */
	struct git		 src_git;
	struct treeid_req	 src_req;	/* the source's tree, computed */
	struct treeid_job	 src_job;	/* while the copy is built */
	int			 src_started;
	char			*dst_gitdir;	/* the copy's registration */
	struct git		 dst_git;
	char			*prep_valid;	/* the copy's index, made ready */
	struct strv		 prep_edits;	/* for its side of the proof */
	struct treeid_req	 prep_req;	/* as soon as the source's side */
	struct treeid_job	 prep_job;	/* and git are done */
	int			 prep_started;
	char			*dst_index;
	int			 index_ready;	/* nothing more will write it */
	struct timespec		 checked_out;	/* when git worktree add was
						   done */
	char			*key;		/* of what the carry is for */
	char			*carry;		/* the source's index a run
						   before left, if it fits */
};

/*
 * The source's side of a reused copy's proof starts from the index the
 * last run's source side ended with, not from the source's own: git's
 * stat cache then spares every file that did not change since, untracked
 * ones included, where the source's index would have git read again
 * each file it differs from, every run.  That index is git add -A's from
 * an index with the same entries, which is what the key says; what it
 * says of a file is git's own stat cache, no more trusted than git
 * trusts it.  And it can only make the two sides differ, never agree
 * (the copy's side is computed afresh, from the copy): when they differ,
 * the source's side is computed again without it before anything is
 * said.
 */
static void
fnv(uint64_t h[2], const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		h[0] = (h[0] ^ (unsigned char)s[i]) * 1099511628211ULL;
		h[1] = (h[1] ^ ((unsigned char)s[i] + 1)) * 1099511628211ULL;
	}
}

static void
fnv_strv(uint64_t h[2], const char *tag, const struct strv *v)
{
	size_t	i;

	fnv(h, tag, strlen(tag) + 1);
	for (i = 0; v != NULL && i < v->n; i++)
		fnv(h, v->v[i], strlen(v->v[i]) + 1);
}

static char *
carry_key(const struct proof_repo *pr, const struct lsfiles *l)
{
	uint64_t	h[2] = { 14695981039346656037ULL,
			    1099511628211ULL * 31 };

	fnv(h, pr->src, strlen(pr->src) + 1);
	fnv(h, pr->gitdir, strlen(pr->gitdir) + 1);
	fnv_strv(h, "entries", pr->entries);
	fnv_strv(h, "flagged", &l->flagged);
	fnv_strv(h, "nested", &l->nested);
	fnv_strv(h, "exclude", pr->exclude);
	return xasprintf("forge carry 1 %016llx%016llx\n",
	    (unsigned long long)h[0], (unsigned long long)h[1]);
}

static char *
carry_path(const struct proof *p, const char *what)
{
	return xasprintf("%s/src%zu.%s", p->rd->carry, p->id, what);
}

/* The carried index, if the last run left one for these entries. */
static char *
carry_find(const struct proof *p)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*path, *idx = NULL;

	path = carry_path(p, "key");
	if (fs_read_file(path, &b, 4096) == 0 && b.data != NULL &&
	    strcmp(b.data, p->key) == 0) {
		idx = carry_path(p, "index");
		if (lstat(idx, &st) == -1 || !S_ISREG(st.st_mode)) {
			free(idx);
			idx = NULL;
		}
	}
	free(path);
	buf_free(&b);
	return idx;
}

static void
carry_drop(const struct proof *p)
{
	char	*path;

	path = carry_path(p, "key");
	(void)unlink(path);
	free(path);
	path = carry_path(p, "index");
	(void)unlink(path);
	free(path);
}

/* Leave the source's side's index for the next run (if it fails, the
 * next run starts from the source's own). */
static void
carry_keep(struct proof *p)
{
	char	*idx, *key;

	carry_drop(p);
	if (p->key == NULL || (mkdir(p->rd->carry, 0700) == -1 &&
	    errno != EEXIST))
		return;
	idx = carry_path(p, "index");
	key = carry_path(p, "key");
	if (treeid_keep(&p->src_job, idx) == 0 &&
	    fs_write_atomic(key, p->key, strlen(p->key), 0600) == -1)
		(void)unlink(idx);
	free(idx);
	free(key);
}

/* "0 <zeros>\tpath": the update-index --index-info line removing path. */
static void
push_removal(struct strv *v, const char *entry)
{
	const char	*sp = strchr(entry, ' ');
	const char	*tab = strchr(entry, '\t');
	struct buf	 b = BUF_INIT;
	size_t		 n;

	buf_adds(&b, "0 ");
	for (n = sp != NULL && tab > sp ? (size_t)(tab - sp - 1) : 40; n > 0;
	    n--)
		buf_addc(&b, '0');
	buf_addc(&b, '\t');
	buf_adds(&b, lsfiles_entry_path(entry));
	strv_push(v, b.data);
	buf_free(&b);
}

/*
 * For the proof of the source: flagged entries are taken as they are on
 * disk -- put back without stat data or flags, or removed where there
 * is no file (as copy_flagged() makes the copy).
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
 * The update-index --index-info lines that make git look at each path
 * afresh in the copy: the source's own entry for it, without stat data
 * (what git converts a file to can depend on the entry: line endings
 * already in the index are kept), or "0 <zeros>\tpath", removing it,
 * where the source's index has none.
 */
static void
fresh_entries(const struct proof *p, struct strv *v,
    const struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	const char	*e;
	size_t		 i, k, oidlen = strlen(p->r.head);

	for (i = 0; i < paths->n; i++) {
		if ((e = lsfiles_find(p->r.entries, paths->v[i])) != NULL) {
			strv_push(v, e);
			continue;
		}
		buf_reset(&b);
		buf_adds(&b, "0 ");
		for (k = 0; k < oidlen; k++)
			buf_addc(&b, '0');
		buf_addc(&b, '\t');
		buf_adds(&b, paths->v[i]);
		strv_push(v, b.data);
	}
	buf_free(&b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The paths whose entries are the same in HEAD, in the source's index and
 * in the source's tree, so that the copy's index has them as the checkout
 * wrote them: the source's entries, less those that differ from HEAD in
 * its index (a new file staged and then deleted is in neither HEAD nor
 * the tree) or in its tree.  A sparse checkout's index may hold a whole
 * directory in one entry; there, none.
 */
static int
unchanged_entries(const struct proof *p, const char *file, size_t *count)
{
	const struct strv	 *staged = &p->src_job.staged;
	const struct strv	 *changed = &p->src_job.changed;
	char			**not;
	const char		 *path;
	size_t			  i, n = staged->n + changed->n;
	FILE			 *f;
	int			  fd;

	*count = 0;
	if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		warn("cannot write %s", fs_vis(file));
		if (fd != -1)
			close(fd);
		return -1;
	}
	not = xcalloc(n + 1, sizeof(*not));
	for (i = 0; i < staged->n; i++)
		not[i] = staged->v[i];
	for (i = 0; i < changed->n; i++)
		not[staged->n + i] = changed->v[i];
	qsort(not, n, sizeof(*not), cmp_str);
	/* Written as found, NUL-ended, as git reads them: at 70,000
	 * files, megabytes never held. */
	for (i = 0; !p->r.sparse && i < p->r.entries->n; i++) {
		path = lsfiles_entry_path(p->r.entries->v[i]);
		if (bsearch(&path, not, n, sizeof(*not), cmp_str) == NULL) {
			(void)fwrite(path, 1, strlen(path) + 1, f);
			(*count)++;
		}
	}
	free(not);
	if (ferror(f) | fclose(f)) {
		warn("cannot write %s", fs_vis(file));
		return -1;
	}
	return 0;
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
 * the expected ones (sorted, as git lists them), whatever changed them:
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
		path = lsfiles_entry_path(p->r.entries->v[i]);
		for (c = 1; k < expected->n &&
		    (c = strcmp(expected->v[k], path)) < 0; k++)
			;
		if (c == 0)
			continue;	/* forge wrote it: git looks anyway */
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
		if (not_before(&st.st_ctim, &p->checked_out) ||
		    not_before(&st.st_mtim, &p->checked_out))
			strv_push(paths, path);
	}
	if (dir != -1 && dir != root)
		close(dir);
	if (root != -1)
		close(root);
	buf_free(&cur);
}


struct proof *
proof_begin(const struct proof_repo *pr, const struct lsfiles *l,
    struct rundir *rd, size_t id)
{
	struct proof	*p;
	char		 tag[32];

	p = xcalloc(1, sizeof(*p));
	p->r = *pr;
	p->rd = rd;
	p->id = id;
	flagged_edits(pr->src, l, &p->edits);
	if (!pr->sparse) {
		p->key = carry_key(pr, l);
		p->carry = carry_find(p);
	}
	memset(&p->src_git, 0, sizeof(p->src_git));
	p->src_git.dir = pr->src;
	p->src_git.gitdir = pr->gitdir;
	p->src_git.worktree = pr->src;
	p->src_git.index = pr->index;
	p->src_req = (struct treeid_req)TREEID_INIT;
	p->src_req.git = &p->src_git;
	p->src_req.index = pr->index;
	p->src_req.start = p->carry;
	p->src_req.scratch = rd->scratch;
	p->src_req.objdir = rd->objects;
	p->src_req.alternates = pr->objects;
	p->src_req.edits = &p->edits;
	p->src_req.exclude = pr->exclude;
	p->src_req.base = pr->head;
	p->src_req.sparse = pr->sparse;
	snprintf(tag, sizeof(tag), "src%zu", id);
	p->src_started = 1;
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1) {
		proof_free(p);
		return NULL;
	}
	return p;
}

/*
 * The present as the copy's file system stamps it, into *now if that is
 * earlier: it may keep coarser times than the clock (whole seconds, two
 * on FAT) or take them from another clock (an NFS server's), and a file
 * changed from now on is stamped no earlier than a file made now.  The
 * file has no name where the file system allows (O_TMPFILE), or loses it
 * at once.  If none can be made, the clock's time rounded down to two
 * seconds.
 */
static void
fs_present(const char *dir, struct timespec *now)
{
	struct stat	 st;
	char		*name = NULL;
	int		 fd, ok;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
	fd = -1;
#endif
	if (fd == -1) {
		name = xasprintf("%s/.forge-clock.%ld", dir, (long)getpid());
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1)
			(void)unlink(name);
		free(name);
	}
	ok = fd != -1 && fstat(fd, &st) == 0;
	if (fd != -1)
		close(fd);
	if (!ok) {
		now->tv_sec &= ~(time_t)1;
		now->tv_nsec = 0;
	} else if (!not_before(&st.st_ctim, now))
		*now = st.st_ctim;
}

void
proof_checked_out(struct proof *p)
{
	struct timespec	end, step = { 0, 500000 };
	int		i;

	/*
	 * The coarse clock: file times are taken from it, so anything
	 * written from now on is at least this recent.  Taken once it has
	 * moved on from the end of the checkout (a step is a few ms), so
	 * that no file git wrote in its last step is as recent: those are
	 * not taken for touched since, and looked at again, every run.
	 * Nothing writes into the copy in between.  A clock that does not
	 * move is taken as it is.
	 */
	clock_gettime(CLOCK_REALTIME_COARSE, &end);
	p->checked_out = end;
	for (i = 0; i < 100 && p->checked_out.tv_sec == end.tv_sec &&
	    p->checked_out.tv_nsec == end.tv_nsec; i++) {
		(void)nanosleep(&step, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &p->checked_out);
	}
	fs_present(p->r.dst, &p->checked_out);
}

void
proof_index_ready(struct proof *p, const char *dst_gitdir)
{
	free(p->dst_gitdir);
	p->dst_gitdir = xstrdup(dst_gitdir);
	p->index_ready = 1;
}

/*
 * Once the source's side knows which paths differ from HEAD, and git is
 * done with the copy's index, prepare that index for the copy's side:
 * those paths' entries lose their stat data (fresh_entries()), and the
 * others are marked as unchanged, so that git never looks at their
 * files -- forge does, in touched_since_checkout().
 */
static void
start_prep(struct proof *p)
{
	size_t	nvalid;
	char	tag[32];

	if (p->prep_started || !p->index_ready || !p->src_started ||
	    !treeid_done(&p->src_job) || p->src_job.failed)
		return;
	p->prep_started = 1;
	p->prep_valid = xasprintf("%s/tree-prep%zu.valid", p->rd->scratch,
	    p->id);
	if (unchanged_entries(p, p->prep_valid, &nvalid) == -1) {
		/* Failed: as a job of its own would have. */
		memset(&p->prep_job, 0, sizeof(p->prep_job));
		p->prep_job.job.done = 1;
		p->prep_job.failed = 1;
		return;
	}
	fresh_entries(p, &p->prep_edits, &p->src_job.changed);
	memset(&p->dst_git, 0, sizeof(p->dst_git));
	p->dst_git.dir = p->r.dst;
	p->dst_git.gitdir = p->dst_gitdir;
	p->dst_git.worktree = p->r.dst;
	p->dst_index = xasprintf("%s/index", p->dst_gitdir);
	p->prep_req = (struct treeid_req)TREEID_INIT;
	p->prep_req.git = &p->dst_git;
	p->prep_req.index = p->dst_index;
	p->prep_req.scratch = p->rd->scratch;
	p->prep_req.objdir = p->rd->objects;
	p->prep_req.alternates = p->r.objects;
	p->prep_req.valid = p->prep_valid;
	p->prep_req.nvalid = nvalid;
	p->prep_req.edits = &p->prep_edits;
	p->prep_req.trust = 1;
	p->prep_req.edits_only = 1;
	snprintf(tag, sizeof(tag), "prep%zu", p->id);
	(void)treeid_start(&p->prep_job, &p->prep_req, tag);
}

int
proof_source_changed(const struct proof *p, const struct strv **changed)
{
	if (!treeid_done(&p->src_job))
		return 0;
	if (p->src_job.failed)
		return -1;
	*changed = &p->src_job.changed;
	return 1;
}

void
proof_poll(struct proof *p)
{
	if (p->src_started)
		treeid_poll(&p->src_job);
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
 * entries fresh_entries() put back.
 */
static char *
copy_tree(struct proof *p, struct treeid_req *q, struct strv *edits)
{
	struct treeid_job	 job;
	struct strv		 paths = STRV_INIT;
	char			*b = NULL, *ci, tag[32];

	/* The prepared index: usually ready by now. */
	start_prep(p);
	if (!p->prep_started || (ci = treeid_finish(&p->prep_job)) == NULL)
		return NULL;
	q->git = &p->dst_git;
	q->index = ci;
	q->scratch = p->rd->scratch;
	q->objdir = p->rd->objects;
	q->alternates = p->r.objects;
	q->edits = edits;
	q->exclude = p->r.exclude;
	q->force = !p->r.own_ignored;
	q->trust = 1;
	q->sparse = p->r.sparse;
	snprintf(tag, sizeof(tag), "copy%zu", p->id);
	if (treeid_start(&job, q, tag) == 0) {
		touched_since_checkout(p, &paths, &p->src_job.changed, &job);
		b = treeid_finish(&job);
	}
	treeid_free(&job);
	if (b != NULL && paths.n > 0) {
		/* Something else changed too: look at it as well. */
		free(b);
		fresh_entries(p, edits, &paths);
		snprintf(tag, sizeof(tag), "copy%zu-again", p->id);
		b = treeid_compute(q, tag);
	}
	strv_free(&paths);
	free(ci);
	q->index = NULL;
	return b;
}

/* The source's side again, from the source's own index: its job's
 * index is then that one's, for the next run. */
static char *
source_afresh(struct proof *p)
{
	char	tag[32];

	treeid_free(&p->src_job);
	p->src_req.start = NULL;
	snprintf(tag, sizeof(tag), "src%zu-afresh", p->id);
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1)
		return NULL;
	return treeid_finish(&p->src_job);
}

char *
proof_finish(struct proof *p)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	char			*a, *b = NULL;

	a = treeid_finish(&p->src_job);
	if (a == NULL && p->carry != NULL) {
		free(p->carry);
		p->carry = NULL;
		a = source_afresh(p);
	}
	if (a == NULL)
		goto fail;
	if ((b = copy_tree(p, &q, &edits)) == NULL)
		goto fail;
	if (strcmp(a, b) != 0 && p->carry != NULL) {
		/* Not a word before the source's side is its own. */
		carry_drop(p);
		free(a);
		free(p->carry);
		p->carry = NULL;
		if ((a = source_afresh(p)) == NULL)
			goto fail;
	}
	if (strcmp(a, b) != 0) {
		differs(p, &q, a, b);
		goto fail;
	}
	carry_keep(p);
	free(b);
	strv_free(&edits);
	return a;
fail:
	carry_drop(p);
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
	strv_free(&p->edits);
	if (p->prep_valid != NULL) {
		(void)unlink(p->prep_valid);
		free(p->prep_valid);
	}
	strv_free(&p->prep_edits);
	free(p->dst_index);
	free(p->dst_gitdir);
	free(p->key);
	free(p->carry);
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
	q.scratch = rd->scratch;
	q.objdir = rd->objects;
	q.alternates = r->objects;
	q.edits = &edits;
	tree = treeid_compute(&q, "src");
	free(idx);
	strv_free(&edits);
	lsfiles_free(&l);
	return tree;
}
