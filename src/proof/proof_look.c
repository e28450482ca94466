/* The look at the source: its files against the index its side carried. */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "forgedir.h"
#include "fs.h"
#include "gitindex.h"
#include "hash.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "sig.h"
#include "xmalloc.h"

/* "0 <zeros>\tpath": path's entry removed. */
void
proof_look_no_entry(const struct proof *p, struct strv *v, const char *path)
{
	lsfiles_push_removal(v, path, strlen(p->r.head));
}

/*
 * The update-index --index-info lines that make git look at each path
 * afresh in the copy: the source's own entry for it, without stat data
 * (what git converts a file to can depend on the entry: line endings
 * already in the index are kept), or "0 <zeros>\tpath", removing it,
 * where the source's index has none.
 */
void
proof_look_fresh_entries(const struct proof *p, struct strv *v,
    const struct strv *paths)
{
	ssize_t		 e;
	size_t		 i;

	for (i = 0; i < paths->n; i++) {
		if ((e = entlist_find(p->r.entries, paths->v[i])) != -1)
			entlist_put(p->r.entries, (size_t)e, v);
		else
			proof_look_no_entry(p, v, paths->v[i]);
	}
}

/*
 * The present on the source's file system's clock, as stamps its files,
 * from the harness's directory in common when it is on the same file
 * system; else the clock's, to two seconds down (fs_present()).
 */
void
proof_look_src_clock(const char *src, const char *common, struct timespec *t)
{
	struct stat	 a, b;
	char		*dir;

	clock_gettime(CLOCK_REALTIME_COARSE, t);
	dir = forgedir_root(common);
	if (stat(src, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev)
		fs_present(dir, t);
	else {
		t->tv_sec &= ~(time_t)1;
		t->tv_nsec = 0;
	}
	free(dir);
}

/*
 * The update-index --index-info lines that remove each path's entry:
 * git then adds the file as it finds it, with nothing of the entry it
 * had -- and none at all where it will not take the path (a .gitmodules
 * that is a symlink, say), which the proof then sees.
 */
static void
removal_entries(const struct proof *p, struct strv *v,
    const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		proof_look_no_entry(p, v, paths->v[i]);
}

/* Is path below top a directory (no symlink followed at its end)? */
int
proof_look_is_dir(const char *top, const char *path)
{
	struct stat	 st;
	char		*full;
	int		 r;

	full = xasprintf("%s/%s", top, path);
	r = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
	free(full);
	return r;
}

/* The paths whose file below top is not a directory (a file, a symlink,
 * or gone): git takes no directory for a path, where a file was. */
void
proof_look_not_dirs(const char *top, const struct strv *paths, struct strv *out)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		if (!proof_look_is_dir(top, paths->v[i]))
			strv_push(out, paths->v[i]);
}

/* The look itself: in a thread of its own, nothing but lk touched. */
static void *
look_run(void *arg)
{
	struct proof_look	*lk = arg;
	struct stat		 st;
	int			 fd;

	/* Not if the clock was set back since: a change could then be
	 * stamped before that index's time.  The index kept open, for
	 * proof_look_take() to read again. */
	if ((fd = open(lk->idx, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_mtim.tv_sec <= lk->since.tv_sec &&
	    gitindex_look_fd(lk->src, fd, lk->rawsz, &st.st_mtim, &lk->stale,
	    &lk->unsure) == 0) {
		lk->ok = 1;
		lk->fd = fd;
		lk->seen = st;
	} else {
		close(fd);
		strv_clear(&lk->stale);
		strv_clear(&lk->unsure);
	}
	return NULL;
}

void
proof_look_start(struct proof_look *lk, struct rundir *rd, size_t id,
    const char *src, const char *common, const char *head)
{
	memset(lk, 0, sizeof(*lk));
	/* Taken before the look: what changes from now on is stamped no
	 * earlier. */
	proof_look_src_clock(src, common, &lk->since);
	/* Believed only if sealed for this run's key, which needs the
	 * listing: proof_begin() says. */
	lk->idx = proof_carry_path(rd, id, "src", "index");
	lk->src = xstrdup(src);
	lk->rawsz = strlen(head) / 2;
	lk->running = sig_thread(&lk->thread, look_run, lk);
}

void
proof_look_wait(struct proof_look *lk)
{
	if (lk->running)
		(void)pthread_join(lk->thread, NULL);
	lk->running = 0;
}

const struct strv *
proof_look_source_paths(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_only : NULL;
}

const struct strv *
proof_look_source_gone(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_gone : NULL;
}

long
proof_look_source_looked(const struct proof *p)
{
	return p->src_req.only != NULL ? (long)p->look_only.n : -1;
}

void
proof_look_free(struct proof_look *lk)
{
	proof_look_wait(lk);
	if (lk->ok)
		close(lk->fd);
	strv_free(&lk->stale);
	strv_free(&lk->unsure);
	free(lk->idx);
	free(lk->src);
	memset(lk, 0, sizeof(*lk));
}

/*
 * Can the source's side start from the look (proof_look_start()): was
 * it made, of the index sealed for this run's key, for a side with
 * nothing flagged, converted, sparse or left out?
 */
static int
look_fits(const struct proof *p, const struct lsfiles *l)
{
	const struct proof_look	*lk = p->r.look;
	struct stat		 st;

	if (lk == NULL || !lk->ok || p->src_carried == NULL ||
	    l->flagged.n > 0 || p->r.convert || p->r.sparse ||
	    p->r.exclude->n > 0)
		return 0;
	/* The index looked at is the one sealed for this key. */
	return stat(p->src_carried, &st) == 0 &&
	    st.st_ino == lk->seen.st_ino && st.st_dev == lk->seen.st_dev &&
	    st.st_size == lk->seen.st_size &&
	    st.st_mtim.tv_sec == lk->seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == lk->seen.st_mtim.tv_nsec &&
	    st.st_ctim.tv_sec == lk->seen.st_ctim.tv_sec &&
	    st.st_ctim.tv_nsec == lk->seen.st_ctim.tv_nsec;
}

/*
 * What the working state has, sorted as the index is: the entries, the
 * untracked files and the conflicts' paths, each what is on disk (none
 * of them an entry), merged as they are asked for, one path at a time
 * (want_at()), so that no list of them all is made.  Its paths are
 * borrowed from p's entries and from untracked, which this fills with
 * the others.
 */
struct want {
	const struct entlist	*entries;
	const struct strv	*untracked;
	size_t			 i, j;
};

static void
want_begin(struct want *w, const struct proof *p, const struct lsfiles *l,
    struct strv *untracked)
{
	const char	*path;
	size_t		 i;

	strv_pushv(untracked, l->untracked.v);
	strv_pushv(untracked, l->unmerged.v);
	/* A submodule not initialized: its entry is the index's, which git
	 * keeps as it looks at the directory; an initialized one, or a
	 * repository nested without one, a gitlink at its commit
	 * (nested_entry()). */
	for (i = 0; i < l->gitlinks.n; i++)
		strv_push(untracked, lsfiles_entry_path(l->gitlinks.v[i]));
	for (i = 0; p->r.nested != NULL && i < p->r.nested->n; i++) {
		path = lsfiles_entry_path(p->r.nested->v[i]);
		if (lsfiles_find(&l->gitlinks, path) == NULL)
			strv_push(untracked, path);
	}
	strv_sort(untracked);
	w->entries = p->r.entries;
	w->untracked = untracked;
	w->i = w->j = 0;
}

/* Is the merge's next path the untracked side's (on a tie too)? */
static int
want_untracked(const struct want *w)
{
	if (w->j == w->untracked->n)
		return 0;
	return w->i == w->entries->n ||
	    strcmp(entlist_path(w->entries, w->i), w->untracked->v[w->j]) >= 0;
}

/* The path the merge is at, or NULL past the last. */
static const char *
want_at(const struct want *w)
{
	if (want_untracked(w))
		return w->untracked->v[w->j];
	return w->i < w->entries->n ? entlist_path(w->entries, w->i) : NULL;
}

/* On past the path want_at() says. */
static void
want_next(struct want *w)
{
	if (want_untracked(w))
		w->j++;
	else if (w->i < w->entries->n)
		w->i++;
}

/*
 * Is path a repository nested in the source, initialized?  Then its
 * gitlink entry at the commit it has checked out, as git add makes it
 * ("160000 commit\tpath"): its commit may have moved since the index was
 * carried, which no look at files sees.  Else NULL.
 */
static const char *
nested_entry(const struct proof *p, const char *path)
{
	if (p->r.nested == NULL)
		return NULL;
	return lsfiles_find(p->r.nested, path);
}

/* Is the carried entry h (of ids rawsz bytes) already e, a gitlink at
 * the same commit?  Then the tree has the same entry without its edit
 * (and git reads no stat data of a gitlink's). */
static int
carried_gitlink(const struct gitindex_entry *h, size_t rawsz, const char *e)
{
	struct lsfiles_entry	 le;
	char			 hex[65];

	if (h == NULL || h->mode != 0160000 ||
	    lsfiles_entry_parse(e, &le) == -1 || le.mode != 0160000 ||
	    le.oidlen != 2 * rawsz || rawsz > 32)
		return 0;
	hash_hex(h->oid, rawsz, hex);
	return memcmp(hex, le.oid, le.oidlen) == 0;
}

/*
 * The carried entry he, whose path the working state has: onto stale if
 * its file changed since; onto gone too (its entry to go first) where
 * git's own look might miss the change, or where it is a directory now,
 * which git would not take for the file it was; onto fresh instead of
 * gone for a symlink's.  *m and *u: where the look's stale and unsure
 * paths are, moved on to it.
 */
static void
take_entry(struct proof *p, const struct gitindex_entry *he, size_t *m,
    size_t *u, struct strv *gone, struct strv *fresh, struct strv *stale)
{
	const struct proof_look	*lk = p->r.look;
	const char		*h = he->path;
	int			 changed, isdir;

	while (*m < lk->stale.n && strcmp(lk->stale.v[*m], h) < 0)
		(*m)++;
	while (*u < lk->unsure.n && strcmp(lk->unsure.v[*u], h) < 0)
		(*u)++;
	changed = *m < lk->stale.n && strcmp(lk->stale.v[*m], h) == 0;
	isdir = changed && proof_look_is_dir(p->r.src, h);
	if (isdir)
		strv_push(gone, h);
	else if (*u < lk->unsure.n && strcmp(lk->unsure.v[*u], h) == 0) {
		if (he->mode == 0120000)
			strv_push(fresh, h);
		else
			strv_push(gone, h);
	}
	if (!isdir && changed)
		strv_push(stale, h);
}

/*
 * The source's side from the carried index and the look at the source
 * begun before (proof_look_start()): git looks at the paths whose files
 * changed since, the ones the working state has that the index has not,
 * and nothing else; what the index has that the working state has not
 * (an untracked file gone or now ignored) is removed.  What the working
 * tree's index stages does not count but for which paths it tracks: an
 * entry whose stat data is as git kept it names the file's blob, and
 * modes are the files' own (core.fileMode true: treeid.c).  0: so it is set
 * up; -1: git is to look at every file (git add -A).
 */
int
proof_look_take(struct proof *p, const struct lsfiles *l)
{
	const struct proof_look		*lk = p->r.look;
	const struct gitindex_entry	*he = NULL;
	struct gitindex_iter		*it;
	struct strv			 fresh = STRV_INIT, untracked = STRV_INIT;
	struct strv			 gone = STRV_INIT, stale = STRV_INIT;
	struct strv			 add = STRV_INIT, links = STRV_INIT;
	struct strv			 lgone = STRV_INIT;
	struct want			 w;
	const char			*want, *h, *link = NULL;
	size_t				 m, u;
	int				 c, hr;

	if (!look_fits(p, l) || (it = gitindex_iter_fd(lk->fd,
	    lk->rawsz)) == NULL)
		return -1;
	want_begin(&w, p, l, &untracked);
	/*
	 * Against what the carried index has, read again: what the working
	 * state has that changed since or is not in it, git is to look at
	 * (its entry afresh); what it has not, removed (an untracked file
	 * gone, or now ignored).  The changed paths come in the index's
	 * order.
	 */
	hr = gitindex_iter_next(it, &he);
	m = u = 0;
	while (hr != -1 && ((want = want_at(&w)) != NULL || hr == 1)) {
		h = hr == 1 ? he->path : NULL;
		c = want == NULL ? 1 : h == NULL ? -1 : strcmp(want, h);
		if (c <= 0 && ((link = nested_entry(p, want)) != NULL ||
		    (link = lsfiles_find(&l->gitlinks, want)) != NULL)) {
			/* An initialized submodule: at its commit.  One not
			 * initialized: the index's entry, which git keeps
			 * as it looks at the directory -- the one carried
			 * may be the commit an initialized one had checked
			 * out.  Neither written where the carried index has
			 * it so. */
			if (c != 0 || !carried_gitlink(he, lk->rawsz, link))
				strv_push(&links, link);
			link = NULL;
			want_next(&w);
			if (c == 0)
				hr = gitindex_iter_next(it, &he);
		} else if (c < 0) {
			strv_push(&add, want);
			want_next(&w);
		}
		else if (c > 0) {
			strv_push(&gone, h);
			strv_push(&lgone, h);
			hr = gitindex_iter_next(it, &he);
		} else if (he->mode == 0160000) {
			/* Once a submodule, now no gitlink: git looks at
			 * what is there, its entry gone first. */
			strv_push(&gone, h);
			strv_push(&add, want);
			want_next(&w);
			hr = gitindex_iter_next(it, &he);
		} else {
			take_entry(p, he, &m, &u, &gone, &fresh, &stale);
			want_next(&w);
			hr = gitindex_iter_next(it, &he);
		}
	}
	/* Read to its end as it was looked at: else git looks at all. */
	if (hr == 0) {
		strv_pushv(&p->edits, links.v);
		strv_pushv(&p->look_gone, lgone.v);
		/* A symlink's entry kept (with core.symlinks false, git
		 * keeps one that is a file on disk), the others removed
		 * (removal_entries()). */
		proof_look_fresh_entries(p, &p->edits, &fresh);
		removal_entries(p, &p->edits, &gone);
		strv_pushv(&p->look_only, stale.v);
		proof_look_not_dirs(p->r.src, &add, &p->look_only);
	}
	gitindex_iter_free(it);
	strv_free(&fresh);
	strv_free(&gone);
	strv_free(&stale);
	strv_free(&add);
	strv_free(&links);
	strv_free(&lgone);
	strv_free(&untracked);
	return hr == 0 ? 0 : -1;
}
