/* A claimed copy brought to HEAD, whole or readied to be proved as it is. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "git.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "registration.h"
#include "reuse.h"
#include "reuse_int.h"
#include "sig.h"
#include "sum.h"
#include "xmalloc.h"

/* Run git in the copy; -1 with a message if it fails. */
int
reuse_sync_git(const struct git *g, const char *const *a, const struct buf *in,
    struct buf *out)
{
	struct buf	err = BUF_INIT;
	int		st;

	if ((st = git_run(g, a, 0, in, out, &err)) > 0)
		warnx("git %s failed in the reused copy: %s", a[0],
		    git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/* git ls-files -z with opts in the copy, each path onto paths; -1 with a
 * message if it fails. */
int
reuse_sync_ls(const struct git *g, const char *const *opts, struct strv *paths)
{
	struct buf	err = BUF_INIT;
	int		st;

	if ((st = lsfiles_paths(g, opts, paths, &err)) > 0)
		warnx("git ls-files failed in the reused copy: %s",
		    git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/* What a command may have left half-done in the copy's git dir: a fresh
 * copy has none of it. */
static void
drop_in_progress(const char *adm)
{
	static const char *const	 names[] = { "MERGE_HEAD", "MERGE_MSG",
	    "MERGE_MODE", "MERGE_RR", "AUTO_MERGE", "CHERRY_PICK_HEAD",
	    "REVERT_HEAD", "ORIG_HEAD", "FETCH_HEAD", "BISECT_LOG",
	    "BISECT_START", "BISECT_TERMS", "BISECT_NAMES",
	    "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_RUN",
	    "BISECT_HEAD", "rebase-merge", "rebase-apply", "sequencer",
	    NULL };
	size_t				 i;
	int				 fd;

	if ((fd = open(adm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	for (i = 0; names[i] != NULL; i++)
		if (faccessat(fd, names[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			(void)fs_remove_at(fd, names[i]);
	close(fd);
}

/*
 * Index entries a command flagged assume-unchanged or skip-worktree in
 * the copy would be taken as they are: clear the flags, so that git
 * looks at those files like any other.
 */
static int
clear_flags(const struct git *g, const char *head)
{
	const char *const	 valid[] = { "update-index",
	    "--no-assume-unchanged", "-z", "--stdin", NULL };
	const char *const	 skip[] = { "update-index",
	    "--no-skip-worktree", "-z", "--stdin", NULL };
	struct buf		 tags = BUF_INIT, err = BUF_INIT;
	struct buf		 v = BUF_INIT, s = BUF_INIT;
	struct strv		 paths = STRV_INIT;
	struct gitindex		 ix;
	const char		*p;
	char			*idx;
	size_t			 i;
	int			 ret = 0, st;

	/* An index forge reads whole has no entry so flagged (gitindex.h):
	 * nothing to clear, and no git to ask. */
	idx = g->index != NULL ? xstrdup(g->index) :
	    xasprintf("%s/index", g->gitdir);
	ret = gitindex_read(&ix, idx, strlen(head) / 2);
	free(idx);
	if (ret == 0) {
		gitindex_free(&ix);
		return 0;
	}
	ret = 0;
	if ((st = lsfiles_tagged(g, "-v", &paths, &tags, &err)) != 0) {
		if (st > 0)
			warnx("git ls-files failed in the reused copy: %s",
			    git_why(&err, st));
		buf_free(&tags);
		buf_free(&err);
		strv_free(&paths);
		return -1;
	}
	/* Lower case is assume-unchanged, S (s) skip-worktree. */
	for (i = 0; i < paths.n; i++) {
		p = paths.v[i];
		if (tags.data[i] >= 'a' && tags.data[i] <= 'z')
			buf_add(&v, p, strlen(p) + 1);
		if (tags.data[i] == 'S' || tags.data[i] == 's')
			buf_add(&s, p, strlen(p) + 1);
	}
	if ((v.len > 0 && reuse_sync_git(g, valid, &v, NULL) == -1) ||
	    (s.len > 0 && reuse_sync_git(g, skip, &s, NULL) == -1))
		ret = -1;
	buf_free(&tags);
	buf_free(&err);
	strv_free(&paths);
	buf_free(&v);
	buf_free(&s);
	return ret;
}

struct reuse_mark {
	char		*path;		/* below the copy */
	struct timespec	 mtime;
	off_t		 size;
	uint64_t	 digest[2];
};

/* Files larger than this are not noted: rebuilt, not read twice. */
#define MARK_MAX	(16 << 20)

/*
 * A sum of the file (sum.h): a change that kept the size and the sum
 * would have to be made on purpose, and forge guards against accidents,
 * not hostile code (see CAVEATS).
 */
static int
digest(int root, const char *path, off_t *size, struct timespec *mtime,
    uint64_t d[2])
{
	struct stat	 st;
	struct sum	 s;
	const char	*base;
	int		 fd, dfd, r;

	if ((dfd = reuse_modes_parent_of(root, path, &base)) == -1)
		return -1;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > MARK_MAX) {
		close(fd);
		return -1;
	}
	sum_init(&s);
	r = sum_fd(&s, fd);
	close(fd);
	if (r == -1)
		return -1;
	sum_final(&s, d);
	*size = st.st_size;
	*mtime = st.st_mtim;
	return 0;
}

static void
take_marks(struct reuse_marks *m, const char *copy, const struct strv *paths)
{
	struct reuse_mark	*k;
	size_t			 i;
	int			 dfd;

	if (m->copy == NULL)
		m->copy = xstrdup(copy);
	if ((dfd = open(copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	for (i = 0; i < paths->n; i++) {
		m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
		k = &m->v[m->n];
		if (digest(dfd, paths->v[i], &k->size, &k->mtime,
		    k->digest) == -1)
			continue;
		k->path = xstrdup(paths->v[i]);
		m->n++;
	}
	close(dfd);
}

void
reuse_sync_marks_add(struct reuse_marks *m, const char *copy,
    const struct strv *paths)
{
	struct strv	 had = STRV_INIT, more = STRV_INIT;
	size_t		 i;

	/* One mark a file: the first, of what it was before the sync. */
	for (i = 0; i < m->n; i++)
		strv_push(&had, m->v[i].path);
	strv_sort(&had);
	for (i = 0; i < paths->n; i++)
		if (!strv_sorted_has(&had, paths->v[i]))
			strv_push(&more, paths->v[i]);
	take_marks(m, copy, &more);
	strv_free(&had);
	strv_free(&more);
}

void
reuse_sync_marks_restore(struct reuse_marks *m)
{
	struct reuse_mark	*k;
	struct stat		 st;
	struct timespec		 t[2], mtime;
	uint64_t		 d[2];
	off_t			 size;
	const char		*base;
	size_t			 i;
	int			 dfd, pfd;

	if (m->n == 0 || (dfd = open(m->copy, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return;
	for (i = 0; i < m->n; i++) {
		k = &m->v[i];
		if (digest(dfd, k->path, &size, &mtime, d) == -1 ||
		    size != k->size || d[0] != k->digest[0] ||
		    d[1] != k->digest[1] ||
		    (pfd = reuse_modes_parent_of(dfd, k->path, &base)) == -1)
			continue;
		t[0].tv_sec = 0;
		t[0].tv_nsec = UTIME_OMIT;
		t[1] = k->mtime;
		/* Never a file linked from elsewhere too: its time is not
		 * the copy's to set. */
		if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_nlink == 1)
			(void)utimensat(pfd, base, t, AT_SYMLINK_NOFOLLOW);
		close(pfd);
	}
	close(dfd);
}

void
reuse_sync_marks_free(struct reuse_marks *m)
{
	size_t	i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m->copy);
	memset(m, 0, sizeof(*m));
}

/* The copy's registration checked, what a command left in progress
 * dropped, and a git to run in it (g's fields borrow *adm). */
int
reuse_sync_begin(const struct reuse_copy *rc, struct git *g, char **adm)
{
	struct strv	 mounted = STRV_INIT;
	const char	*copy = rc->copy;

	/* Claimed with nothing mounted in it (reuse_park_claim()): anything
	 * mounted since is not the copy, and git would write through it. */
	if (fs_mount_below(copy, &mounted) != 0) {
		warnx("%s in the reused copy", mounted.n > 0 ? mounted.v[0] :
		    "what is mounted cannot be told");
		strv_free(&mounted);
		*adm = NULL;
		return -1;
	}
	if ((*adm = registration_of(copy, rc->common, rc->run)) == NULL) {
		warnx("the reused copy %s is no longer registered as forge "
		    "made it", fs_vis(copy));
		return -1;
	}
	drop_in_progress(*adm);
	memset(g, 0, sizeof(*g));
	g->dir = copy;
	g->gitdir = *adm;
	g->worktree = copy;
	g->idle = rc->idle;
	return 0;
}

/*
 * What git does not record, a command may still have changed, given
 * git's own modes as a checkout would (reuse_modes_tree()) -- first, so
 * that git can enter every directory there is.
 */
static int
checkout_modes(const struct git *g, const char *copy, const char *head)
{
	struct strv	 ls = STRV_INIT;
	struct buf	 err = BUF_INIT;
	int		 st, r = -1;

	if (reuse_modes_fix(AT_FDCWD, copy, copy, 1, 0777 & ~fs_umask()) == -1)
		return -1;
	reuse_modes_drop_special_top(copy);
	if ((st = lsfiles_tree_all(g, head, &ls, &err)) == 0)
		r = reuse_modes_tree(copy, &ls);
	else if (st > 0)
		warnx("git ls-tree failed in the reused copy: %s",
		    git_why(&err, st));
	strv_free(&ls);
	buf_free(&err);
	return r;
}

/*
 * checkout_modes(), from the working tree's index entries (entlist.h,
 * sorted) instead of HEAD's tree: the modes a fresh copy
 * gives its tracked files, and every directory they are in.  The files
 * of a directory come together, after its parent's own files, so a
 * directory is new when it is not the last one or an ancestor of it.
 */
/*
 * A file whose ctime, not mtime, changed in the second of since or
 * later (a mode, a link count): git's stat data of it, whole seconds,
 * would not change with a rewrite in that second that puts its mtime
 * back, and git takes an entry as "racily clean" by its mtime only.
 */
static int
ctime_only(const struct stat *st, time_t since)
{
	return since != 0 && st->st_ctim.tv_sec >= since &&
	    st->st_mtim.tv_sec < since;
}

static int
entry_modes(const char *copy, const struct entlist *entries,
    const struct spawn_idle *idle, time_t since, struct strv *recent,
    struct strv *links, int *dirs)
{
	struct reuse_walk	 w;
	struct stat	 st;
	const char	*path, *base;
	mode_t		 mask, want;
	size_t		 i;
	int		 root, dfd, ret = 0;

	mask = fs_umask();
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	reuse_modes_walk_init(&w, root, 0777 & ~mask, &reuse_care_drop, dirs);
	for (i = 0; i < entries->n && ret == 0; i++) {
		/* The proof's next step starts as soon as its last ends. */
		if ((i & 255) == 0 && idle != NULL && idle->fn != NULL)
			idle->fn(idle->arg);
		path = entlist_path(entries, i);
		if (entlist_mode(entries, i) == 0100755)
			want = 0777 & ~mask;
		else if (entlist_mode(entries, i) == 0100644)
			want = 0666 & ~mask;
		else
			want = 0;	/* a symlink, a submodule: its
					   directories only */
		if (reuse_modes_walk_to(&w, path, &base, &dfd) == -1)
			ret = -1;
		if (dfd == -1)
			continue;
		if (want != 0) {
			if (reuse_modes_fix_st(dfd, base, path, 0, want,
			    &st) == -1)
				ret = -1;
		} else if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
			st.st_mode = 0;
		if (st.st_mode != 0 && ctime_only(&st, since))
			strv_push(recent, path);
		if (S_ISLNK(st.st_mode))
			strv_push(links, path);
	}
	reuse_modes_walk_end(&w);
	close(root);
	return ret;
}

const char *const	 reuse_clean_all[] = { "clean", "-ffdqx", NULL };
const char *const	 reuse_clean_keep[] = { "clean", "-ffdq", NULL };

/* git update-ref's arguments that detach HEAD at head, into a. */
static void
detach_args(const char **a, const char *head)
{
	a[0] = "update-ref";
	a[1] = "--no-deref";
	a[2] = "-m";
	a[3] = "forge: reuse";
	a[4] = "HEAD";
	a[5] = head;
	a[6] = NULL;
}

/* Every file that g's index does not list removed (ignored ones kept
 * if keep_ignored), unless cleaned says it is done.  -1 with a message. */
int
reuse_sync_clean(const struct git *g, int keep_ignored, int cleaned)
{
	if (cleaned)
		return 0;
	return reuse_sync_git(g, keep_ignored ? reuse_clean_keep :
	    reuse_clean_all, NULL, NULL);
}

/* The clean (reuse_sync_clean()), then HEAD detached at head by git --
 * even where it is so already: git then reads what git worktree add
 * reads as it sets a fresh copy's HEAD (the settings of a ref's lock),
 * and a setting that fails a fresh copy fails this one too. */
int
reuse_sync_clean_detach(struct git *g, const char *head, int keep_ignored,
    int cleaned)
{
	const char		*detach[7];
	const char		*index = g->index;
	int			 r;

	if (reuse_sync_clean(g, keep_ignored, cleaned) == -1)
		return -1;
	/* Half brought up to date: neither the last run's nor HEAD's. */
	sig_test_stall("sync");
	g->index = NULL;
	detach_args(detach, head);
	r = reuse_sync_git(g, detach, NULL, NULL);
	g->index = index;
	if (r == -1)
		return -1;
	/* Its reflog and ORIG_HEAD a fresh copy's. */
	registration_detached(g->gitdir, head);
	return 0;
}

/*
 * The same detach in the background, beside what forge does next (no
 * index is read: the copy's files are not its concern), its output and
 * error in out and err; reuse_sync_detach_finish() waits.  -1 with a
 * message: nothing started.
 */
int
reuse_sync_detach_start(struct git_job *j, const struct git *g,
    const char *head, const char *out, const char *err)
{
	const char		*detach[7];
	struct git		 dg = *g;

	dg.index = NULL;
	detach_args(detach, head);
	return git_start(j, &dg, detach, NULL, out, err);
}

/* That detach waited for: as reuse_sync_clean_detach() ends. */
int
reuse_sync_detach_finish(struct git_job *j, const char *gitdir,
    const char *head, const char *err)
{
	struct buf	b = BUF_INIT;
	int		st;

	if ((st = git_finish(j)) > 0) {
		(void)fs_read_file(err, &b, 1 << 20);
		warnx("git update-ref failed in the reused copy: %s",
		    git_why(&b, st));
	}
	buf_free(&b);
	if (st != 0)
		return -1;
	registration_detached(gitdir, head);
	return 0;
}

int
reuse_sync(const struct reuse_copy *rc, struct reuse_marks *marks,
    char **dst_gitdir)
{
	const char *const	 dirty[] = { "diff-files", "-z", "--name-only",
	    NULL };
	const char *const	 others[] = { "-o", "--exclude-standard",
	    NULL };
	struct buf		 dirty_out = BUF_INIT;
	struct strv		 paths = STRV_INIT;
	const char *const	 reset[] = { "read-tree", "--reset", "-u",
	    rc->head, NULL };
	const char		*copy = rc->copy, *head = rc->head;
	struct git		 g;
	char			*adm;

	*dst_gitdir = NULL;
	if (reuse_sync_begin(rc, &g, &adm) == -1)
		return -1;
	/*
	 * Untracked files go first, while the index still lists what the
	 * last run had: then the tree HEAD is to have meets no file in its
	 * way, and read-tree writes only what differs from the index --
	 * which it checks against the disk, file by file.
	 */
	if (checkout_modes(&g, copy, head) == -1 ||
	    clear_flags(&g, head) == -1)
		goto fail;
	if (marks != NULL) {
		if (reuse_sync_git(&g, dirty, NULL, &dirty_out) == -1) {
			buf_free(&dirty_out);
			goto fail;
		}
		strv_split_z(&paths, dirty_out.data != NULL ?
		    dirty_out.data : "", dirty_out.len);
		if (reuse_sync_ls(&g, others, &paths) == -1) {
			buf_free(&dirty_out);
			strv_free(&paths);
			goto fail;
		}
		take_marks(marks, copy, &paths);
		buf_free(&dirty_out);
		strv_free(&paths);
	}
	if (reuse_sync_clean_detach(&g, head, rc->keep_ignored, 0) == -1 ||
	    reuse_sync_git(&g, reset, NULL, NULL) == -1)
		goto fail;
	*dst_gitdir = adm;
	return 0;
fail:
	free(adm);
	return -1;
}

/* The paths of v whose ctime only changed since (ctime_only()). */
static void
recent_paths(const char *copy, const struct strv *v, time_t since,
    struct strv *recent)
{
	struct stat	 st;
	const char	*base;
	size_t		 i;
	int		 root, fd;

	if (since == 0 || (root = open(copy, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	for (i = 0; i < v->n; i++) {
		if ((fd = reuse_modes_parent_of(root, v->v[i], &base)) == -1)
			continue;
		if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    ctime_only(&st, since))
			strv_push(recent, v->v[i]);
		close(fd);
	}
	close(root);
}

int
reuse_sync_prepare(const struct reuse_copy *rc, const char *index, time_t since,
    const struct entlist *entries, const struct strv *others,
    struct strv *recent, struct strv *links, char **dst_gitdir)
{
	struct git_job		 j;
	struct git		 g;
	const char		*copy = rc->copy;
	mode_t			 mask;
	char			*adm, *out, *err;
	int			 started, st = -1, dirs = 0, r;

	*dst_gitdir = NULL;
	if (reuse_sync_begin(rc, &g, &adm) == -1)
		return -1;
	mask = fs_umask();
	if (reuse_modes_fix(AT_FDCWD, copy, copy, 1, 0777 & ~mask) == -1)
		goto fail;
	reuse_modes_drop_special_top(copy);
	/* What the last proof found there is kept: nothing else. */
	g.index = index;
	/*
	 * git clean walks the copy while forge sees to its modes: where a
	 * command left a directory git cannot enter, or git clean failed,
	 * it runs again once the modes are a checkout's.
	 */
	out = xasprintf("%s/clean.out", rc->scratch);
	err = xasprintf("%s/clean.err", rc->scratch);
	started = git_start(&j, &g, rc->keep_ignored ? reuse_clean_keep :
	    reuse_clean_all, NULL, out, err) == 0;
	r = entry_modes(copy, entries, rc->idle, since, recent, links,
	    &dirs);
	if (started)
		st = git_finish(&j);
	(void)unlink(out);
	(void)unlink(err);
	free(out);
	free(err);
	if (r == -1)
		goto fail;
	recent_paths(copy, others, since, recent);
	if (reuse_sync_clean_detach(&g, rc->head, rc->keep_ignored,
	    st == 0 && dirs == 0) == -1)
		goto fail;
	*dst_gitdir = adm;
	return 0;
fail:
	free(adm);
	return -1;
}

int
reuse_sync_index(const char *copy, const char *dst_gitdir, const char *from,
    const char *head)
{
	const char *const	 merge[] = { "read-tree", "--reset", head, NULL };
	struct git		 g;
	char			*idx, *tmp;
	int			 ret = -1;

	idx = xasprintf("%s/index", dst_gitdir);
	tmp = xasprintf("%s/index.forge", dst_gitdir);
	if (fs_copy_file(from, tmp) == -1 || rename(tmp, idx) == -1) {
		warn("cannot write %s", fs_vis(idx));
		(void)unlink(tmp);
		goto out;
	}
	memset(&g, 0, sizeof(g));
	g.dir = copy;
	g.gitdir = dst_gitdir;
	g.worktree = copy;
	ret = reuse_sync_git(&g, merge, NULL, NULL);
out:
	free(idx);
	free(tmp);
	return ret;
}

/* What the record says of the copy's own index: its key, then its stat
 * data, which no write to it keeps (ctime to the nanosecond). */
static char *
index_record(const char *dst_gitdir, const char *key)
{
	struct stat	 st;
	char		*idx, *r = NULL;

	idx = xasprintf("%s/index", dst_gitdir);
	if (lstat(idx, &st) == 0 && S_ISREG(st.st_mode))
		r = xasprintf("%sdev %llu ino %llu size %lld mtime %lld.%09ld "
		    "ctime %lld.%09ld\n", key, (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		    (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	free(idx);
	return r;
}

int
reuse_sync_index_same(const char *dst_gitdir, const char *record,
    const char *key)
{
	struct buf	 b = BUF_INIT;
	char		*want;
	int		 same;

	want = index_record(dst_gitdir, key);
	same = want != NULL && fs_read_file(record, &b, 4096) == 0 &&
	    b.data != NULL && strcmp(b.data, want) == 0;
	free(want);
	buf_free(&b);
	return same;
}

void
reuse_sync_index_note(const char *dst_gitdir, const char *record,
    const char *key)
{
	char	*r;

	r = index_record(dst_gitdir, key);
	if (r == NULL || fs_write_atomic(record, r, strlen(r), 0600) == -1)
		(void)unlink(record);
	free(r);
}
