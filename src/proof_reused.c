/* The proof of a reused copy as it stands, and the look at the source first. */
#include "config.h"

#include <sys/stat.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "gitcmd.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "sig.h"
#include "treeid.h"
#include "xmalloc.h"

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
		proof_no_entry(p, v, paths->v[i]);
}

/* Is path below top a directory (no symlink followed at its end)? */
static int
is_dir(const char *top, const char *path)
{
	struct stat	 st;
	char		*full;
	int		 r;

	full = xasprintf("%s/%s", top, path);
	r = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
	free(full);
	return r;
}

/*
 * The entries the copy's changed paths start from: none
 * (removal_entries()), but where the working tree's is a symlink --
 * with core.symlinks false git keeps a link's mode for the file it
 * checked out, from that entry -- and the path is no directory now.
 */
static void
copy_entries(const struct proof *p, struct strv *v, const struct strv *paths)
{
	const char	*e;
	size_t		 i;

	for (i = 0; i < paths->n; i++) {
		e = lsfiles_find(p->r.entries, paths->v[i]);
		if (e != NULL && strncmp(e, "120000 ", 7) == 0 &&
		    !is_dir(p->r.dst, paths->v[i]))
			strv_push(v, e);
		else
			proof_no_entry(p, v, paths->v[i]);
	}
}

/* The paths whose file below top is not a directory (a file, a symlink,
 * or gone): git takes no directory for a path, where a file was. */
static void
not_dirs(const char *top, const struct strv *paths, struct strv *out)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		if (!is_dir(top, paths->v[i]))
			strv_push(out, paths->v[i]);
}

/* The look itself: in a thread of its own, nothing but lk touched. */
static void *
look_run(void *arg)
{
	struct proof_look	*lk = arg;
	struct stat		 st;

	/* Not if the clock was set back since: a change could then be
	 * stamped before that index's time. */
	if (stat(lk->idx, &st) == 0 && st.st_mtim.tv_sec <= lk->since.tv_sec &&
	    gitindex_read(&lk->had, lk->idx, lk->rawsz) == 0) {
		lk->ok = gitindex_look(lk->src, &lk->had, &st.st_mtim,
		    &lk->stale, &lk->unsure) == 0;
		lk->seen = st;
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
	proof_src_clock(src, common, &lk->since);
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
proof_source_paths(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_only : NULL;
}

const struct strv *
proof_source_gone(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_gone : NULL;
}

long
proof_source_looked(const struct proof *p)
{
	return p->src_req.only != NULL ? (long)p->look_only.n : -1;
}

void
proof_look_free(struct proof_look *lk)
{
	proof_look_wait(lk);
	gitindex_free(&lk->had);
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
 * of them an entry).  *np paths, borrowed from p's entries and from
 * untracked, which this fills with the others; the caller frees the
 * array.
 */
static const char **
look_want(const struct proof *p, const struct lsfiles *l,
    struct strv *untracked, size_t *np)
{
	const char	**want, *w;
	size_t		  i, j, k, n;

	strv_pushv(untracked, l->untracked.v);
	strv_pushv(untracked, l->unmerged.v);
	/* A submodule not initialized: its entry is the index's, which git
	 * keeps as it looks at the directory; an initialized one, or a
	 * repository nested without one, a gitlink at its commit
	 * (nested_entry()). */
	for (i = 0; i < l->gitlinks.n; i++)
		strv_push(untracked, lsfiles_entry_path(l->gitlinks.v[i]));
	for (i = 0; p->r.nested != NULL && i < p->r.nested->n; i++)
		if (lsfiles_find(&l->gitlinks, p->r.nested->v[i]) == NULL)
			strv_pushf(untracked, "%.*s",
			    (int)strcspn(p->r.nested->v[i], "\t"),
			    p->r.nested->v[i]);
	strv_sort(untracked);
	n = p->r.entries->n + untracked->n;
	want = xreallocarray(NULL, n + 1, sizeof(*want));
	for (i = j = k = 0; k < n; k++) {
		w = i < p->r.entries->n ?
		    lsfiles_entry_path(p->r.entries->v[i]) : NULL;
		if (w != NULL && (j == untracked->n ||
		    strcmp(w, untracked->v[j]) < 0)) {
			want[k] = w;
			i++;
		} else
			want[k] = untracked->v[j++];
	}
	*np = n;
	return want;
}

/*
 * Is path a repository nested in the source, initialized?  Then its entry
 * is made a gitlink at the commit it has checked out, as git add makes
 * it, onto edits: its commit may have moved since the index was carried,
 * which no look at files sees.
 */
static int
nested_entry(const struct proof *p, const char *path, struct strv *edits)
{
	const struct strv	*v = p->r.nested;
	size_t			 lo = 0, hi, mid, n = strlen(path);
	int			 c;

	if (v == NULL)
		return 0;
	for (hi = v->n; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if ((c = strncmp(v->v[mid], path, n)) == 0 &&
		    v->v[mid][n] != '\t')
			c = v->v[mid][n] < '\t' ? -1 : 1;
		if (c == 0) {
			strv_pushf(edits, "160000 %s\t%s", v->v[mid] + n + 1,
			    path);
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * The source's side from the carried index and the look at the source
 * begun before (proof_look_start()): git looks at the paths whose files
 * changed since, the ones the working state has that the index has not,
 * and nothing else; what the index has that the working state has not
 * (an untracked file gone or now ignored) is removed.  0: so it is set
 * up; -1: git is to look at every file (git add -A).
 */
int
proof_look_take(struct proof *p, const struct lsfiles *l)
{
	const struct proof_look	*lk = p->r.look;
	struct strv		 fresh = STRV_INIT, untracked = STRV_INIT;
	struct strv		 gone = STRV_INIT, stale = STRV_INIT;
	struct strv		 add = STRV_INIT;
	const char		**want, *h, *link = NULL;
	size_t			 i, k, m, n, u;
	int			 c, isdir;

	if (!look_fits(p, l))
		return -1;
	want = look_want(p, l, &untracked, &n);
	/*
	 * Against what the carried index has: what the working state has
	 * that changed since or is not in it, git is to look at (its entry
	 * afresh); what it has not, removed (an untracked file gone, or
	 * now ignored).  The changed paths come in the index's order.
	 */
	for (i = k = m = u = 0; i < n || k < lk->had.n;) {
		h = k < lk->had.n ? lk->had.v[k].path : NULL;
		c = i == n ? 1 : h == NULL ? -1 : strcmp(want[i], h);
		if (c <= 0 && (nested_entry(p, want[i], &p->edits) ||
		    (link = lsfiles_find(&l->gitlinks, want[i])) != NULL)) {
			/* A submodule not initialized: the index's entry,
			 * which git keeps as it looks at the directory --
			 * the one carried may be the commit an initialized
			 * one had checked out. */
			if (link != NULL)
				strv_push(&p->edits, link);
			link = NULL;
			i++;
			k += c == 0;
		} else if (c < 0)
			strv_push(&add, want[i++]);
		else if (c > 0) {
			strv_push(&gone, h);
			strv_push(&p->look_gone, h);
			k++;
		} else if (lk->had.v[k].mode == 0160000) {
			/* Once a submodule, now no gitlink: git looks at
			 * what is there, its entry gone first. */
			strv_push(&gone, h);
			strv_push(&add, want[i++]);
			k++;
		} else {
			while (m < lk->stale.n && strcmp(lk->stale.v[m], h) < 0)
				m++;
			while (u < lk->unsure.n &&
			    strcmp(lk->unsure.v[u], h) < 0)
				u++;
			/* Changed where git's own look might miss it: its
			 * entry goes first; and where it is a directory now,
			 * which git would not take for the file it was. */
			isdir = m < lk->stale.n &&
			    strcmp(lk->stale.v[m], h) == 0 &&
			    is_dir(p->r.src, h);
			if (isdir)
				strv_push(&gone, h);
			else if (u < lk->unsure.n &&
			    strcmp(lk->unsure.v[u], h) == 0) {
				if (lk->had.v[k].mode == 0120000)
					strv_push(&fresh, h);
				else
					strv_push(&gone, h);
			}
			if (!isdir && m < lk->stale.n &&
			    strcmp(lk->stale.v[m], h) == 0)
				strv_push(&stale, h);
			i++;
			k++;
		}
	}
	/* A symlink's entry kept (with core.symlinks false, git keeps one
	 * that is a file on disk), the others removed (removal_entries()). */
	proof_fresh_entries(p, &p->edits, &fresh);
	removal_entries(p, &p->edits, &gone);
	for (i = 0; i < stale.n; i++)
		strv_push(&p->look_only, stale.v[i]);
	not_dirs(p->r.src, &add, &p->look_only);
	free(want);
	strv_free(&fresh);
	strv_free(&gone);
	strv_free(&stale);
	strv_free(&add);
	strv_free(&untracked);
	return 0;
}

/*
 * "old new\tpath" for each path where tree b differs from tree a: the
 * modes, "000000" where a tree has none.  With index (b NULL), where the
 * tree that index would make differs from a -- and with swap, each line
 * the other way round: where a differs from that index's tree.
 */
static int
tree_changes(const struct git *dg, const struct rundir *rd,
    const char *objects, const char *a, const char *b, const char *index,
    int swap, struct strv *fix)
{
	const char *const	 trees[] = { "diff-tree", "-r", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, b, NULL };
	const char *const	 cached[] = { "diff-index", "--cached", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, "--", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	const char		*r, *path, *end;
	int			 st;

	g = *dg;
	g.index = index;
	g.idle = NULL;
	g.objdir = rd->objects;
	g.alternates = objects;
	if ((st = git_run(&g, index != NULL ? cached : trees, 0, NULL, &out,
	    NULL)) != 0) {
		buf_free(&out);
		return -1;
	}
	/* ":100644 100644 <oid> <oid> M" NUL path NUL, each. */
	for (r = out.data, end = r + out.len; r != NULL && r < end;
	    r = path + strlen(path) + 1) {
		path = r + strlen(r) + 1;
		if (path >= end || strlen(r) < 15 || r[0] != ':') {
			st = -1;
			break;
		}
		if (swap)
			strv_pushf(fix, "%.6s %.6s\t%s", r + 8, r + 1, path);
		else
			strv_pushf(fix, "%.6s %.6s\t%s", r + 1, r + 8, path);
	}
	buf_free(&out);
	return st == 0 ? 0 : -1;
}

const char *
proof_reused_index(struct proof *p)
{
	if (p->copy_carried == NULL && !p->r.sparse)
		p->copy_carried = proof_carry_copy_find(p);
	return p->copy_carried;
}

time_t
proof_reused_time(struct proof *p)
{
	struct stat	st;

	if (proof_reused_index(p) == NULL || stat(p->copy_carried, &st) == -1)
		return 0;
	return st.st_mtim.tv_sec;
}

void
proof_reused_look(struct proof *p, const struct strv *paths, int only)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->recent, paths->v[i]);
	p->recent_only = only;
}

void
proof_reused_written(struct proof *p, const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->written, paths->v[i]);
}

const char *
proof_copy_index(const struct proof *p)
{
	return p->copy_index;
}

int
proof_reused_start(struct proof *p, const char *dst_gitdir)
{
	struct treeid_req	 q = TREEID_INIT;
	char			*start, tag[32];

	if (p->r.sparse || p->settled != NULL || p->copy_runs > 1 ||
	    p->fast_started)
		return -1;
	if (p->dst_gitdir == NULL)
		p->dst_gitdir = xstrdup(dst_gitdir);
	if (p->copy_index != NULL)
		start = xstrdup(p->copy_index);
	else if (p->copy_runs > 0 || proof_reused_index(p) == NULL)
		return -1;
	else
		start = xstrdup(p->copy_carried);
	proof_dst_git(p, p->dst_gitdir);
	p->copy_idle.fn = proof_poll_src_side;
	p->copy_idle.arg = p;
	p->dst_git.idle = &p->copy_idle;
	q.git = &p->dst_git;
	q.start = start;
	proof_scratch(&q, p->rd);
	q.alternates = p->r.objects;
	q.exclude = p->r.exclude;
	q.force = !p->r.own_ignored;
	/*
	 * Once forge has put paths right, git looks at those again, and at
	 * nothing else: nothing but forge wrote in the copy since git
	 * looked at all of it, and each file forge wrote is a new inode
	 * (reuse_fix()), which git's stat data cannot take for the old.
	 */
	strv_free(&p->fast_edits);
	if (p->copy_runs > 0)
		q.only = &p->fixed;
	else {
		/* Each path whose file is not as git saw it last is looked
		 * at afresh, its entry gone first: git would otherwise
		 * trust its stat data where it cannot tell a change (a git
		 * that keeps whole seconds), or keep the entry of a path it
		 * will not take. */
		if (p->recent.n > 0) {
			if (p->recent_only)
				copy_entries(p, &p->fast_edits, &p->recent);
			else
				proof_fresh_entries(p, &p->fast_edits,
				    &p->recent);
			q.edits = &p->fast_edits;
		}
		if (p->recent_only) {
			strv_clear(&p->recent_files);
			not_dirs(p->r.dst, &p->recent, &p->recent_files);
			not_dirs(p->r.dst, &p->written, &p->recent_files);
			q.only = &p->recent_files;
		} else if (p->r.own_ignored && p->conflicts.n > 0) {
			proof_conflict_entries(p, &p->fast_edits);
			q.edits = &p->fast_edits;
		}
	}
	/* Proved as it stands only where git converts nothing
	 * (snapshot.c): the ids of what git hashes will do, and the
	 * tree's id, computed here. */
	q.info_only = 1;
	q.own = proof_hash_size(p);
	snprintf(tag, sizeof(tag), "reused%zu-%d", p->id, p->copy_runs++);
	p->fast_started = 1;
	if (treeid_start(&p->fast_job, &q, tag) == -1)
		p->fast_job.failed = 1;
	free(start);
	return 0;
}

/*
 * The source's side's entries, to compare the copy's with, as soon as
 * git has staged its files: those its job computed its tree from, else
 * those of the index git writes its tree from, while it still does
 * (read into own, which the caller frees).  NULL if neither: the tree
 * is to be waited for.
 */
static const struct gitindex *
src_side_entries(struct proof *p, size_t rawsz, struct gitindex *own)
{
	const struct gitindex	*e;
	const char		*idx;

	if (p->src_failed)
		return NULL;
	if (p->src_req.own != 0 &&
	    (e = treeid_wait_entries(&p->src_job)) != NULL)
		return e;
	if (p->src_tree != NULL ||
	    (idx = treeid_wait_added(&p->src_job)) == NULL ||
	    p->src_job.tree != NULL || gitindex_read(own, idx, rawsz) == -1)
		return NULL;
	return own;
}

int
proof_reused(struct proof *p, const char *dst_gitdir, struct strv *fix)
{
	const struct gitindex	*ours, *theirs = NULL;
	struct gitindex		 read;
	const char		*a, *idx;
	char			*b = NULL;
	size_t			 i;
	int			 ret = -1, afresh;

	memset(&read, 0, sizeof(read));
	if (!p->fast_started && proof_reused_start(p, dst_gitdir) == -1)
		return -1;
	p->fast_started = 0;
	/* The copy's entries as git staged its files (no tree hashed:
	 * the same entries as the source's are the same tree), else the
	 * tree git wrote. */
	ours = p->fast_job.failed ? NULL : treeid_wait_entries(&p->fast_job);
	if (ours == NULL && !p->fast_job.failed)
		b = treeid_finish(&p->fast_job);
	p->dst_git.idle = NULL;
	if (ours == NULL && b == NULL)
		goto out;
	proof_hold_copy_index(p, &p->fast_job);
	if (ours != NULL) {
		afresh = p->src_afresh;
		if ((theirs = src_side_entries(p, ours->rawsz, &read)) != NULL)
			gitindex_diff(ours, theirs, fix);
		else if ((a = proof_src_side_tree(p)) == NULL ||
		    p->copy_index == NULL || tree_changes(&p->dst_git, p->rd,
		    p->r.objects, a, NULL, p->copy_index, 1, fix) == -1)
			goto out;
		if (fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		/* The same entries: the source's tree -- of those entries,
		 * not one computed again since (its git failed). */
		if ((a = proof_src_side_tree(p)) == NULL ||
		    (theirs != NULL && p->src_afresh != afresh))
			goto out;
		p->settled = xstrdup(a);
		ret = 1;
		goto out;
	}
	/*
	 * The source's tree may still be being written (git writes each
	 * tree that changed): what differs is then found from the index it
	 * is written from, and the copy put right meanwhile.  Only when
	 * nothing does is the tree waited for here.
	 */
	if (p->src_tree == NULL && !p->src_failed &&
	    (idx = treeid_wait_added(&p->src_job)) != NULL &&
	    p->src_job.tree == NULL && treeid_entries(&p->src_job) == NULL) {
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    idx, 0, fix) == 0 && fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		strv_clear(fix);
	}
	if ((a = proof_src_side_tree(p)) == NULL)
		goto out;
	if (strcmp(a, b) == 0) {
		p->settled = b;
		b = NULL;
		ret = 1;
	} else if (treeid_entries(&p->src_job) != NULL) {
		/* No tree of the source's for git to read. */
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    p->src_job.index, 0, fix) == 0)
			ret = 0;
	} else if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, a,
	    NULL, 0, fix) == 0)
		ret = 0;
fixed:
	for (i = 0; ret == 0 && i < fix->n; i++)
		strv_push(&p->fixed, strchr(fix->v[i], '\t') + 1);
out:
	if (theirs == &read)
		gitindex_free(&read);
	treeid_free(&p->fast_job);
	if (ret == -1) {
		/* The full way, from the copy's checkout index. */
		if (p->copy_index != NULL)
			(void)unlink(p->copy_index);
		free(p->copy_index);
		p->copy_index = NULL;
		strv_clear(fix);
	}
	free(b);
	return ret;
}
