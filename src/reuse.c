/* Reusable copies: parking a run's copy, claiming it, bringing it up to date. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "gitindex.h"
#include "journal.h"
#include "lsfiles.h"
#include "pathcopy.h"
#include "registration.h"
#include "reuse.h"
#include "sig.h"
#include "sum.h"
#include "xmalloc.h"

struct record {
	char	*path;
	time_t	 mtime;
};

static int
newest_first(const void *a, const void *b)
{
	const struct record	*x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The records of the journal, most recently used first. */
static size_t
records(const char *common, struct record **out)
{
	struct record	*v = NULL;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*dir, *path;
	size_t		 n = 0;

	*out = NULL;
	dir = xasprintf("%s/forge/copies", common);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		/* As the reclaim: temporary files have a dot. */
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n].path = path;
		v[n].mtime = st.st_mtime;
		n++;
	}
	closedir(d);
	free(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), newest_first);
	*out = v;
	return n;
}

static void
records_free(struct record *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

static int
wanted(const struct journal_entry *e, const struct reuse_want *w)
{
	return e->reuse_source != NULL &&
	    strcmp(e->reuse_source, w->source) == 0 &&
	    e->incremental == w->incremental;
}

/* Is the parked copy still what was parked: the run's own directory,
 * the copy a directory in it, nothing mounted anywhere below? */
static int
intact(const struct journal_entry *e)
{
	struct stat	st;
	size_t		n = strlen(e->top);

	if (!journal_top_is_runs(e))
		return 0;
	if (strncmp(e->reuse, e->top, n) != 0 || e->reuse[n] != '/' ||
	    strchr(e->reuse + n + 1, '/') != NULL ||
	    lstat(e->reuse, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	return fs_mounts_below(e->top, NULL) == 0;
}

static char	*registration(const char *, const char *, const char *);

/*
 * A claimed copy's registration made what a fresh copy's would be now
 * (registration.h), before any git runs in it.  One that is no longer
 * the run's is left as it is: the sync refuses it (sync_begin()).
 */
static int
made_fresh(const struct rundir *rd, const char *copy, const char *common,
    const struct reuse_want *w)
{
	char	*adm;
	int	 r;

	if ((adm = registration(copy, common, rd->run)) == NULL)
		return 0;
	r = registration_fresh(adm, copy, common, w->gitdir, w->head);
	free(adm);
	return r;
}

int
reuse_claim(struct rundir *rd, const char *common, const struct reuse_want *w,
    char **had, char **copy)
{
	struct journal_entry	 e;
	struct journal		 j;
	struct record		*v;
	size_t			 i, n;
	int			 st, ret = 0;

	*had = NULL;
	*copy = NULL;
	n = records(common, &v);
	for (i = 0; i < n && ret == 0; i++) {
		if ((st = journal_claim(&j, v[i].path, &e)) != 0)
			continue;	/* busy, or not parked */
		if (!wanted(&e, w)) {
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		if (!journal_top_is_runs(&e)) {
			/* Not provably the run's: not ours to touch. */
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		if (!intact(&e)) {
			/* Not to be trusted, nor left: it goes, as far as
			 * it safely can (what stays is said). */
			warnx("the reusable copy %s was tampered with: "
			    "removing it", fs_vis(e.top));
			if (journal_note_use(&j) == -1)
				journal_close(&j, 0);
			else {
				/* Adopted or not, the run directory is rd's
				 * now, the journal with it. */
				if (rundir_adopt(rd, &j, &e) == 0)
					(void)rundir_remove(rd);
				rundir_free(rd);
			}
			journal_entry_free(&e);
			continue;
		}
		/* Locked, still parked: a death here leaves it parked. */
		sig_test_stall("claim");
		if (journal_note_use(&j) == -1) {
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		/* The run's from here: a death leaves it to the reclaim. */
		sig_test_stall("adopt");
		if (rundir_adopt(rd, &j, &e) != 0)
			rundir_free(rd);
		else if (made_fresh(rd, e.reuse, common, w) == -1) {
			if (!sig_pending())
				warnx("the reusable copy %s cannot be given a "
				    "fresh copy's registration: removing it",
				    fs_vis(e.top));
			(void)rundir_remove(rd);
			rundir_free(rd);
		} else {
			*had = xstrdup(e.reuse_setup != NULL ? e.reuse_setup :
			    "");
			*copy = xstrdup(e.reuse);
			ret = 1;
		}
		journal_entry_free(&e);
	}
	records_free(v, n);
	return ret;
}

/* Parked (or in use, after a park) copies of the same working tree and
 * kind, but for the run's own. */
static int
count_parked(const char *common, const struct reuse_want *w,
    const char *own)
{
	struct journal_entry	 e;
	struct record		*v;
	struct buf		 text = BUF_INIT;
	size_t			 i, n;
	int			 fd, count = 0;

	n = records(common, &v);
	for (i = 0; i < n; i++) {
		if (strcmp(fs_basename(v[i].path), own) == 0 ||
		    (fd = open(v[i].path, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		buf_reset(&text);
		while (buf_read(&text, fd, 65536) > 0)
			;
		close(fd);
		if (journal_parse(text.data != NULL ? text.data : "",
		    text.len, &e) == 0 && e.reusable && wanted(&e, w) &&
		    e.kept == NULL)
			count++;
		journal_entry_free(&e);
	}
	buf_free(&text);
	records_free(v, n);
	return count;
}

/*
 * Is the run's copy fit to park: would the next run find it intact?  Its
 * command could have undone the proof that the directory is the run's
 * (the mark beside the copy, the directory's mode); parked so, it could
 * never be claimed, nor removed by anyone but the run: it goes now.
 */
static int
provable(const struct rundir *rd, const char *copy)
{
	struct journal_entry	e;
	int			ok;

	memset(&e, 0, sizeof(e));
	e.run = xstrdup(rd->run);
	e.top = xstrdup(rd->top);
	e.reuse = xstrdup(copy);
	ok = intact(&e);
	journal_entry_free(&e);
	return ok;
}

int
reuse_park(struct rundir *rd, const char *common, const char *copy,
    const struct reuse_want *w, int max)
{
	char	*lock;
	int	 fd, ret = -1;

	/* Counting and parking are one step: two runs ending at once must
	 * not both find room for one more. */
	lock = xasprintf("%s/forge/reuse.lock", common);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd != -1)
		(void)flock(fd, LOCK_EX);
	if (!provable(rd, copy))
		warnx("the copy %s is no longer provably forge's: removing "
		    "it, not parking it", fs_vis(rd->top));
	else if (count_parked(common, w, rd->run) < max &&
	    rundir_park(rd, copy, w->source, w->incremental, w->setup) == 0)
		ret = 0;
	if (fd != -1)
		close(fd);
	free(lock);
	if (ret == -1)
		(void)rundir_remove(rd);
	return ret;
}

/* Run git in the copy; -1 with a message if it fails. */
static int
copy_git(const struct git *g, const char *const *a, const struct buf *in,
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

/*
 * The copy's registration: what its .git file names, which must be one
 * of common's worktrees, pointing back at the copy, locked by the run.
 * A .git file a command rewrote to point elsewhere is not followed.
 */
static char *
registration(const char *copy, const char *common, const char *run)
{
	struct buf	 b = BUF_INIT;
	char		*path, *adm = NULL, *want, *real, *base = NULL;
	char		*tag;
	int		 ok = 0;

	path = xasprintf("%s/.git", copy);
	if (fs_read_file(path, &b, 4096) == 0) {
		buf_rtrim(&b);
		if (b.data != NULL && strncmp(b.data, "gitdir: ", 8) == 0)
			adm = xstrdup(b.data + 8);
	}
	free(path);
	if (adm == NULL)
		goto out;
	if ((real = realpath(common, NULL)) != NULL) {
		base = xasprintf("%s/worktrees/", real);
		free(real);
	}
	if (base == NULL || strncmp(adm, base, strlen(base)) != 0 ||
	    strchr(adm + strlen(base), '/') != NULL ||
	    adm[strlen(base)] == '\0' || adm[strlen(base)] == '.')
		goto out;
	path = xasprintf("%s/gitdir", adm);
	want = xasprintf("%s/.git", copy);
	buf_reset(&b);
	if (fs_read_file(path, &b, 4096) == 0) {
		buf_rtrim(&b);
		ok = b.data != NULL && strcmp(b.data, want) == 0;
	}
	free(path);
	free(want);
	path = xasprintf("%s/locked", adm);
	tag = xasprintf("forge run %s ", run);
	buf_reset(&b);
	if (!ok || fs_read_file(path, &b, 4096) == -1 || b.data == NULL ||
	    strncmp(b.data, tag, strlen(tag)) != 0)
		ok = 0;
	free(path);
	free(tag);
out:
	free(base);
	buf_free(&b);
	if (!ok) {
		free(adm);
		return NULL;
	}
	return adm;
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
			(void)fs_rmtree_at(fd, names[i]);
	close(fd);
}

/*
 * Index entries a command flagged assume-unchanged or skip-worktree in
 * the copy would be taken as they are: clear the flags, so that git
 * looks at those files like any other.
 */
static int
clear_flags(const struct git *g)
{
	const char *const	 ls[] = { "ls-files", "-z", "-v", NULL };
	const char *const	 valid[] = { "update-index",
	    "--no-assume-unchanged", "-z", "--stdin", NULL };
	const char *const	 skip[] = { "update-index",
	    "--no-skip-worktree", "-z", "--stdin", NULL };
	struct buf		 out = BUF_INIT, v = BUF_INIT, s = BUF_INIT;
	const char		*p, *end;
	int			 ret = 0;

	if (copy_git(g, ls, NULL, &out) == -1) {
		buf_free(&out);
		return -1;
	}
	/* "H path": lower case is assume-unchanged, S (s) skip-worktree. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if (p[0] == '\0' || p[1] != ' ')
			continue;
		if (p[0] >= 'a' && p[0] <= 'z')
			buf_add(&v, p + 2, strlen(p + 2) + 1);
		if (p[0] == 'S' || p[0] == 's')
			buf_add(&s, p + 2, strlen(p + 2) + 1);
	}
	if ((v.len > 0 && copy_git(g, valid, &v, NULL) == -1) ||
	    (s.len > 0 && copy_git(g, skip, &s, NULL) == -1))
		ret = -1;
	buf_free(&out);
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

/* The directory of path below root, no symlink on the way followed (a
 * command could have put one where a directory was); base: its name. */
static int
parent_of(int root, const char *path, const char **base)
{
	const char	*slash = strrchr(path, '/');
	char		*dir;
	int		 fd;

	if (slash == NULL) {
		*base = path;
		return dup(root);
	}
	*base = slash + 1;
	dir = xstrndup(path, (size_t)(slash - path));
	fd = fs_open_dir(root, dir, 0, 0);
	free(dir);
	return fd;
}

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

	if ((dfd = parent_of(root, path, &base)) == -1)
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
take_marks(struct reuse_marks *m, const char *copy, const struct buf *paths)
{
	struct reuse_mark	*k;
	const char		*p, *end;
	int			 dfd;

	if (m->copy == NULL)
		m->copy = xstrdup(copy);
	if ((dfd = open(copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	for (p = paths->data, end = p + paths->len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
		k = &m->v[m->n];
		if (digest(dfd, p, &k->size, &k->mtime, k->digest) == -1)
			continue;
		k->path = xstrdup(p);
		m->n++;
	}
	close(dfd);
}

void
reuse_marks_add(struct reuse_marks *m, const char *copy,
    const struct strv *paths)
{
	struct strv	 had = STRV_INIT;
	struct buf	 more = BUF_INIT;
	size_t		 i;

	/* One mark a file: the first, of what it was before the sync. */
	for (i = 0; i < m->n; i++)
		strv_push(&had, m->v[i].path);
	strv_sort(&had);
	for (i = 0; i < paths->n; i++)
		if (!strv_sorted_has(&had, paths->v[i]))
			buf_add(&more, paths->v[i], strlen(paths->v[i]) + 1);
	take_marks(m, copy, &more);
	strv_free(&had);
	buf_free(&more);
}

void
reuse_marks_restore(struct reuse_marks *m)
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
		    (pfd = parent_of(dfd, k->path, &base)) == -1)
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
reuse_marks_free(struct reuse_marks *m)
{
	size_t	i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m->copy);
	memset(m, 0, sizeof(*m));
}

static int	fix_mode_st(int, const char *, const char *, int, mode_t,
		    struct stat *);

/* Fix one path's mode; 0 if it is fine, gone or not what HEAD has
 * there (the checkout replaces it), -1 if it cannot be fixed. */
static int
fix_mode(int dfd, const char *base, const char *path, int dir, mode_t want)
{
	struct stat	st;

	return fix_mode_st(dfd, base, path, dir, want, &st);
}

/* fix_mode(), with what the path was before in *st (st_mode 0: none). */
static int
fix_mode_st(int dfd, const char *base, const char *path, int dir,
    mode_t want, struct stat *stp)
{
	struct stat	st;

	stp->st_mode = 0;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	*stp = st;
	if ((dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) ||
	    (st.st_mode & 07777) == want)
		return 0;
	/* A file linked from elsewhere too (a command's hard link): its
	 * mode is not the copy's to change.  No fresh copy has one: the
	 * link goes, and the path is written again as a missing one. */
	if (!dir && st.st_nlink > 1) {
		if (unlinkat(dfd, base, 0) == -1 && errno != ENOENT) {
			warn("cannot remove %s from the reused copy",
			    fs_vis(path));
			return -1;
		}
		stp->st_mode = 0;
		return 0;
	}
	/* Not a symlink, as just seen, and nothing runs in the copy now.
	 * Gone since: git clean, which runs meanwhile (reuse_prepare()),
	 * removed it. */
	if (fs_chmod_at(dfd, base, want) == -1 && errno != ENOENT) {
		warn("cannot reset the mode of %s in the reused copy",
		    fs_vis(path));
		return -1;
	}
	return 0;
}

/*
 * What no fresh copy has, in the directory fd (which forge gets to on
 * its way over the copy): a socket, a FIFO, a device -- git's walks
 * pass them over, so git clean leaves them where a command made them.
 * Removed.
 */
static void
drop_special(int fd)
{
	struct dirent	*de;
	DIR		*d;
	int		 dfd, type;

	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		return;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		type = fs_dirent_type(d, de);
		if (type == DT_SOCK || type == DT_FIFO || type == DT_CHR ||
		    type == DT_BLK)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* drop_special() in the copy's top directory. */
static void
drop_special_top(const char *copy)
{
	int	fd;

	if ((fd = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	drop_special(fd);
	close(fd);
}

/*
 * A .git in a directory below the copy's top: no fresh copy has one (a
 * copy with repositories nested in it is never reused), and git run
 * there would work on whatever it names -- the real repository, say.
 * The copy is then not to be used.  Else, if drop, what no fresh copy
 * has in it is removed (drop_special()).
 */
static int
foreign_git(int fd, const char *base, const char *path, int drop)
{
	struct stat	st;
	int		dfd, found;

	if ((dfd = openat(fd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	found = fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0;
	/* On the way: what else no fresh copy has. */
	if (!found && drop)
		drop_special(dfd);
	close(dfd);
	if (found)
		warnx("the reused copy has a .git of its own in %s",
		    fs_vis(path));
	return found;
}

/*
 * What git does not record, a command may still have changed: the mode
 * of a directory (one made unreadable), of a file but for its x bit.  A
 * checkout would give them git's own modes, and so does this -- first,
 * so that git can enter every directory there is.
 */
static int
checkout_modes(const struct git *g, const char *copy, const char *head)
{
	const char *const	 ls[] = { "ls-tree", "-r", "-t", "-z", head,
	    NULL };
	struct buf		 out = BUF_INIT, cur = BUF_INIT;
	const char		*p, *end, *path, *slash, *base;
	mode_t			 mask, want;
	size_t			 dlen;
	int			 root, dfd = -1, dir, ret = 0;

	mask = fs_umask();
	if (fix_mode(AT_FDCWD, copy, copy, 1, 0777 & ~mask) == -1)
		return -1;
	drop_special_top(copy);
	if (copy_git(g, ls, NULL, &out) == -1)
		return -1;
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		buf_free(&out);
		return -1;
	}
	buf_str(&cur);
	/* "<mode> <type> <oid>\t<path>", a tree before what it holds. */
	for (p = out.data, end = p + out.len; p != NULL && p < end && ret == 0;
	    p += strlen(p) + 1) {
		if ((path = strchr(p, '\t')) == NULL)
			continue;
		path++;
		if (strncmp(p, "040000 ", 7) == 0)
			dir = 1, want = 0777 & ~mask;
		else if (strncmp(p, "100755 ", 7) == 0)
			dir = 0, want = 0777 & ~mask;
		else if (strncmp(p, "100644 ", 7) == 0)
			dir = 0, want = 0666 & ~mask;
		else
			continue;	/* a symlink, a submodule */
		slash = strrchr(path, '/');
		dlen = slash != NULL ? (size_t)(slash - path) : 0;
		base = slash != NULL ? slash + 1 : path;
		/* The directory's files are listed together: opened once
		 * (no symlink on the way followed), not once each. */
		if (dfd == -1 || cur.len != dlen ||
		    memcmp(cur.data, path, dlen) != 0) {
			if (dfd != -1 && dfd != root)
				close(dfd);
			buf_reset(&cur);
			buf_add(&cur, path, dlen);
			buf_str(&cur);
			dfd = dlen == 0 ? root : fs_open_dir(root, cur.data,
			    0, 0);
		}
		if (dfd != -1 && fix_mode(dfd, base, path, dir, want) == -1)
			ret = -1;
		else if (dfd != -1 && dir && foreign_git(dfd, base, path, 1))
			ret = -1;
	}
	if (dfd != -1 && dfd != root)
		close(dfd);
	close(root);
	buf_free(&cur);
	buf_free(&out);
	return ret;
}

/* The copy's registration checked, what a command left in progress
 * dropped, and a git to run in it (g's fields borrow *adm). */
static int
sync_begin(const char *copy, const char *common, const char *run,
    struct spawn_idle *idle, struct git *g, char **adm)
{
	struct strv	 mounted = STRV_INIT;

	/* Claimed with nothing mounted in it (reuse_claim()): anything
	 * mounted since is not the copy, and git would write through it. */
	if (fs_mounts_below(copy, &mounted) != 0) {
		warnx("%s in the reused copy", mounted.n > 0 ? mounted.v[0] :
		    "what is mounted cannot be told");
		strv_free(&mounted);
		*adm = NULL;
		return -1;
	}
	if ((*adm = registration(copy, common, run)) == NULL) {
		warnx("the reused copy %s is no longer registered as forge "
		    "made it", fs_vis(copy));
		return -1;
	}
	drop_in_progress(*adm);
	memset(g, 0, sizeof(*g));
	g->dir = copy;
	g->gitdir = *adm;
	g->worktree = copy;
	g->idle = idle;
	return 0;
}

/*
 * The files git reads as instructions in a working tree, wherever they
 * are: how it converts what it hashes and checks out (attributes), what
 * it lists and cleans (ignore rules), its submodules, Git LFS's settings.
 */
static const char *const	rule_files[] = { ".gitattributes",
	".gitignore", ".gitmodules", ".lfsconfig", NULL };

static int
rule_file(const char *path)
{
	const char	*base = strrchr(path, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; rule_files[i] != NULL; i++)
		if (strcmp(base, rule_files[i]) == 0)
			return 1;
	return 0;
}

/* The bytes of the regular file base in dfd (no symlink followed, at
 * most 1 MiB) into b; -1 if there is none such. */
static int
read_at(int dfd, const char *base, struct buf *b)
{
	struct stat	 st;
	char		 chunk[8192];
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (1 << 20)) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(b, chunk, (size_t)n);
	close(fd);
	return n == 0 ? 0 : -1;
}

/* Does the working tree have the very file the copy has at path? */
static int
as_in_source(const char *src, int root, const char *path)
{
	struct buf	 a = BUF_INIT, b = BUF_INIT;
	const char	*base;
	char		*dir;
	int		 sroot, sfd = -1, dfd = -1, same = 0;

	base = strrchr(path, '/');
	dir = base != NULL ? xstrndup(path, (size_t)(base - path)) :
	    xstrdup("");
	base = base != NULL ? base + 1 : path;
	if ((sroot = open(src, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1) {
		sfd = fs_walk_dir(sroot, dir, 0, 0);
		dfd = fs_walk_dir(root, dir, 0, 0);
		if (sfd != -1 && dfd != -1 && read_at(sfd, base, &a) == 0 &&
		    read_at(dfd, base, &b) == 0)
			same = a.len == b.len && (a.len == 0 ||
			    memcmp(a.data, b.data, a.len) == 0);
		close(sroot);
	}
	if (sfd != -1)
		close(sfd);
	if (dfd != -1)
		close(dfd);
	free(dir);
	buf_free(&a);
	buf_free(&b);
	return same;
}

/* Remove path below root, no symlink on the way followed: 0, or -1 said. */
static int
drop_at(int root, const char *path)
{
	const char	*base;
	char		*dir;
	int		 fd, r = 0;

	base = strrchr(path, '/');
	dir = base != NULL ? xstrndup(path, (size_t)(base - path)) :
	    xstrdup("");
	base = base != NULL ? base + 1 : path;
	fd = *dir != '\0' ? fs_walk_dir(root, dir, 0, 0) :
	    fcntl(root, F_DUPFD_CLOEXEC, 3);
	free(dir);
	if (fd == -1 || (unlinkat(fd, base, 0) == -1 && errno != ENOENT)) {
		warn("cannot remove %s from the reused copy", fs_vis(path));
		r = -1;
	}
	if (fd != -1)
		close(fd);
	return r;
}

/*
 * Drop the rule files directly in dir (below root), as they are ignored
 * there and no fresh copy has them: how many, or -1 said.
 */
static int
drop_direct(int root, const char *dir, struct strv *dropped)
{
	struct stat	 st;
	char		*path;
	size_t		 i;
	int		 fd, n = 0;

	if ((fd = fs_walk_dir(root, dir, 0, 0)) == -1)
		return 0;	/* gone since git listed it, or a symlink */
	for (i = 0; rule_files[i] != NULL && n != -1; i++) {
		if (fstatat(fd, rule_files[i], &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    S_ISDIR(st.st_mode))
			continue;
		path = xasprintf("%s/%s", dir, rule_files[i]);
		if (drop_at(root, path) == -1)
			n = -1;
		else {
			strv_push(dropped, path);
			n++;
		}
		free(path);
	}
	close(fd);
	return n;
}

/* The subdirectories of dir (below root), no symlink among them, pushed
 * onto v. */
static void
push_subdirs(int root, const char *dir, struct strv *v)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 fd;

	if ((fd = fs_open_dir(root, dir, 0, 0)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(st.st_mode))
			continue;
		strv_pushf(v, "%s/%s", dir, de->d_name);
	}
	closedir(d);
}

/*
 * The directories git listed whole as ignored (dirs, each without its
 * trailing slash): one no rule of its parents matches is one git enters,
 * to read the rule files in it that hide all it holds.  Those are
 * dropped; where a directory has none, its subdirectories are looked at
 * in turn.  1 if any was dropped (git is to list again), 0 if none, -1
 * said.
 */
static int
drop_entered(const struct git *g, int root, struct strv *dirs,
    struct strv *dropped)
{
	const char *const	 check[] = { "check-ignore", "--stdin", "-z",
	    NULL };
	struct strv		 next = STRV_INIT;
	struct buf		 in = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end;
	size_t			 i, seen = 0;
	int			 st, n, any = 0;

	while (dirs->n > 0 && any == 0) {
		if ((seen += dirs->n) > 100000) {
			warnx("the reused copy holds too many directories "
			    "git ignores whole to look into");
			any = -1;
			break;
		}
		buf_reset(&in);
		buf_reset(&out);
		buf_reset(&err);
		for (i = 0; i < dirs->n; i++)
			buf_add(&in, dirs->v[i], strlen(dirs->v[i]) + 1);
		/* 1: none matched. */
		if ((st = git_run(g, check, 0, &in, &out, &err)) != 0 &&
		    st != 1) {
			warnx("git check-ignore failed in the reused copy: %s",
			    git_why(&err, st));
			any = -1;
			break;
		}
		for (i = 0; i < dirs->n && any != -1; i++) {
			for (p = out.data, end = p + out.len; p != NULL &&
			    p < end; p += strlen(p) + 1)
				if (strcmp(p, dirs->v[i]) == 0)
					break;
			if (p != NULL && p < end)
				continue;	/* not entered */
			if ((n = drop_direct(root, dirs->v[i], dropped)) != 0)
				any = n == -1 ? -1 : 1;
			else
				push_subdirs(root, dirs->v[i], &next);
		}
		strv_free(dirs);
		*dirs = next;
		next = (struct strv)STRV_INIT;
	}
	strv_free(&next);
	buf_free(&in);
	buf_free(&out);
	buf_free(&err);
	return any;
}

int
reuse_drop_rules(const char *src, const char *copy, const char *common,
    const char *run, const char *index, struct spawn_idle *idle,
    struct strv *dropped)
{
	/* Ignored: --directory, as git enters no directory a rule of its
	 * parents ignores, and reads no rule there for anything it hashes
	 * or lists.  A directory listed whole may still be one git enters,
	 * all it holds hidden by rules in it (drop_entered()).
	 * Untracked: what git clean would read, then remove. */
	const char *const	 ignored[] = { "ls-files", "-z", "-o", "-i",
	    "--exclude-standard", "--directory", "--no-empty-directory",
	    NULL };
	const char *const	 untracked[] = { "ls-files", "-z", "-o",
	    "--exclude-standard", NULL };
	const char *const	*which[] = { ignored, untracked };
	struct strv		 dirs = STRV_INIT;
	struct buf		 out = BUF_INIT;
	struct git		 g;
	const char		*p, *end;
	char			*adm;
	size_t			 k, len;
	int			 root, again, ret = -1, rounds, r;

	if (sync_begin(copy, common, run, idle, &g, &adm) == -1)
		return -1;
	/* Tracked: as the working state has them, not as the copy's own
	 * index (a command's to rewrite) says. */
	g.index = index;
	if ((root = open(copy, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("cannot open the reused copy %s", fs_vis(copy));
		free(adm);
		return -1;
	}
	/* A rule file gone may make git enter a directory it ignored
	 * whole: listed again until none is found. */
	for (rounds = 0, again = 1; again && rounds < 64; rounds++) {
		again = 0;
		for (k = 0; k < 2; k++) {
			buf_reset(&out);
			if (copy_git(&g, which[k], NULL, &out) == -1)
				goto out;
			for (p = out.data, end = p + out.len; p != NULL &&
			    p < end; p += strlen(p) + 1) {
				if (*p == '\0')
					continue;
				len = strlen(p);
				if (p[len - 1] == '/') {
					if (k == 0 && len > 1)
						strv_pushn(&dirs, p, len - 1);
					continue;
				}
				if (!rule_file(p))
					continue;
				/* An untracked one the working tree has too
				 * is the working state's: a fresh copy has
				 * it. */
				if (k == 1 && as_in_source(src, root, p))
					continue;
				if (drop_at(root, p) == -1)
					goto out;
				strv_push(dropped, p);
				again = 1;
			}
		}
		if ((r = drop_entered(&g, root, &dirs, dropped)) == -1)
			goto out;
		if (r == 1)
			again = 1;
		strv_free(&dirs);
	}
	ret = again ? -1 : 0;
	if (again)
		warnx("the reused copy's ignore rules keep changing as they "
		    "go");
out:
	strv_free(&dirs);
	close(root);
	buf_free(&out);
	free(adm);
	return ret;
}

/*
 * What else dir_modes() sees to in each directory it gives a mode: if
 * drop, that it holds nothing no fresh copy has (drop_special()); if had
 * is not NULL, that it holds nothing had does not expect (prune_dir()).
 */
struct dir_care {
	int			 drop;
	const struct gitindex	*had;
};

static const struct dir_care	care_drop = { 1, NULL };
static const struct dir_care	care_none = { 0, NULL };

static int	dir_modes(int, const char *, const char *, mode_t, int *,
		    const struct dir_care *);

/* reuse_modes()'s: the copy's top, the directories' mode, and how many
 * it changed. */
struct modes_walk {
	int	droot;
	mode_t	want;
	int	dirs;
};

/*
 * The directory of each path in turn, the paths sorted as git sorts them
 * (a directory's files come together, after its parent's own, so a
 * directory is new when it is not the last one or above it): each new
 * directory on the way from the top given mode want and seen to as care
 * says (dir_modes()), then opened, no symlink on the way followed.
 *
 *	walk_init(&w, root, want, care, &dirs);
 *	r = walk_to(&w, path, &base, &dfd);	-1: dir_modes() failed;
 *					dfd -1: the directory cannot be
 *					opened (gone, or a symlink)
 *	walk_end(&w);
 */
struct dir_walk {
	int			 root, dfd;
	struct buf		 cur, prefix;
	mode_t			 want;
	const struct dir_care	*care;
	int			*dirs;
};

static void
walk_init(struct dir_walk *w, int root, mode_t want,
    const struct dir_care *care, int *dirs)
{
	w->root = root;
	w->dfd = -1;
	w->cur = (struct buf)BUF_INIT;
	w->prefix = (struct buf)BUF_INIT;
	buf_str(&w->cur);
	w->want = want;
	w->care = care;
	w->dirs = dirs;
}

static int
walk_to(struct dir_walk *w, const char *path, const char **base, int *dfd)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dlen = slash != NULL ? (size_t)(slash - path) : 0;
	int		 r = 0;

	*base = slash != NULL ? slash + 1 : path;
	if (w->dfd == -1 || w->cur.len != dlen ||
	    memcmp(w->cur.data, path, dlen) != 0) {
		buf_reset(&w->prefix);
		buf_add(&w->prefix, path, dlen);
		buf_str(&w->prefix);
		r = dir_modes(w->root, w->prefix.data, w->cur.data, w->want,
		    w->dirs, w->care);
		if (w->dfd != -1 && w->dfd != w->root)
			close(w->dfd);
		buf_reset(&w->cur);
		buf_add(&w->cur, path, dlen);
		buf_str(&w->cur);
		w->dfd = dlen == 0 ? w->root : fs_open_dir(w->root,
		    w->cur.data, 0, 0);
	}
	*dfd = w->dfd;
	return r;
}

static void
walk_end(struct dir_walk *w)
{
	if (w->dfd != -1 && w->dfd != w->root)
		close(w->dfd);
	buf_free(&w->cur);
	buf_free(&w->prefix);
}

/*
 * checkout_modes(), from the working tree's index entries ("mode
 * oid\tpath", sorted) instead of HEAD's tree: the modes a fresh copy
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
entry_modes(const char *copy, const struct strv *entries,
    const struct spawn_idle *idle, time_t since, struct strv *recent,
    struct strv *links, int *dirs)
{
	struct dir_walk	 w;
	struct stat	 st;
	const char	*path, *base;
	mode_t		 mask, want;
	size_t		 i;
	int		 root, dfd, ret = 0;

	mask = fs_umask();
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	walk_init(&w, root, 0777 & ~mask, &care_drop, dirs);
	for (i = 0; i < entries->n && ret == 0; i++) {
		/* The proof's next step starts as soon as its last ends. */
		if ((i & 255) == 0 && idle != NULL && idle->fn != NULL)
			idle->fn(idle->arg);
		path = lsfiles_entry_path(entries->v[i]);
		if (strncmp(entries->v[i], "100755 ", 7) == 0)
			want = 0777 & ~mask;
		else if (strncmp(entries->v[i], "100644 ", 7) == 0)
			want = 0666 & ~mask;
		else
			want = 0;	/* a symlink, a submodule: its
					   directories only */
		if (walk_to(&w, path, &base, &dfd) == -1)
			ret = -1;
		if (dfd == -1)
			continue;
		if (want != 0) {
			if (fix_mode_st(dfd, base, path, 0, want, &st) == -1)
				ret = -1;
		} else if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
			st.st_mode = 0;
		if (st.st_mode != 0 && ctime_only(&st, since))
			strv_push(recent, path);
		if (S_ISLNK(st.st_mode))
			strv_push(links, path);
	}
	walk_end(&w);
	close(root);
	return ret;
}

/*
 * Is the copy's HEAD (g's registration's) detached at head already?
 * Read where refs are files; with reftable (its directory in the
 * registration or the common dir), HEAD's file is a stub, and git is
 * asked.
 */
static int
detached_at(const struct git *g, const char *head)
{
	struct stat	 st;
	char		*path, b[128];
	size_t		 n = strlen(head);
	ssize_t		 r;
	int		 fd, table;

	path = xasprintf("%s/reftable", g->gitdir);
	table = lstat(path, &st) == 0;
	free(path);
	path = xasprintf("%s/../../reftable", g->gitdir);
	table |= lstat(path, &st) == 0;
	free(path);
	if (table)
		return 0;
	path = xasprintf("%s/HEAD", g->gitdir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	free(path);
	if (fd == -1)
		return 0;
	r = read(fd, b, sizeof(b));
	close(fd);
	return r == (ssize_t)n + 1 && memcmp(b, head, n) == 0 && b[n] == '\n';
}

static const char *const	 clean_all[] = { "clean", "-ffdqx", NULL };
static const char *const	 clean_keep[] = { "clean", "-ffdq", NULL };

/* Every file that g's index does not list removed (ignored ones kept
 * if keep_ignored), unless cleaned says it is done, then HEAD detached
 * at head: by git, unless it is so already (then that git would have
 * nothing to do). */
static int
clean_detach(struct git *g, const char *head, int keep_ignored, int cleaned)
{
	const char *const	 detach[] = { "update-ref", "--no-deref", "-m",
	    "forge: reuse", "HEAD", head, NULL };
	const char		*index = g->index;
	int			 r;

	if (!cleaned && copy_git(g, keep_ignored ? clean_keep : clean_all,
	    NULL, NULL) == -1)
		return -1;
	/* Half brought up to date: neither the last run's nor HEAD's. */
	sig_test_stall("sync");
	if (!detached_at(g, head)) {
		g->index = NULL;
		r = copy_git(g, detach, NULL, NULL);
		g->index = index;
		if (r == -1)
			return -1;
	}
	/* Its reflog and ORIG_HEAD a fresh copy's. */
	registration_detached(g->gitdir, head);
	return 0;
}

int
reuse_sync(const char *copy, const char *common, const char *run,
    const char *head, int keep_ignored, struct spawn_idle *idle,
    struct reuse_marks *marks, char **dst_gitdir)
{
	const char *const	 dirty[] = { "diff-files", "-z", "--name-only",
	    NULL };
	const char *const	 others[] = { "ls-files", "-z", "-o",
	    "--exclude-standard", NULL };
	struct buf		 paths = BUF_INIT;
	const char *const	 reset[] = { "read-tree", "--reset", "-u",
	    head, NULL };
	struct git		 g;
	char			*adm;

	*dst_gitdir = NULL;
	if (sync_begin(copy, common, run, idle, &g, &adm) == -1)
		return -1;
	/*
	 * Untracked files go first, while the index still lists what the
	 * last run had: then the tree HEAD is to have meets no file in its
	 * way, and read-tree writes only what differs from the index --
	 * which it checks against the disk, file by file.
	 */
	if (checkout_modes(&g, copy, head) == -1 || clear_flags(&g) == -1)
		goto fail;
	if (marks != NULL) {
		if (copy_git(&g, dirty, NULL, &paths) == -1 ||
		    copy_git(&g, others, NULL, &paths) == -1) {
			buf_free(&paths);
			goto fail;
		}
		take_marks(marks, copy, &paths);
		buf_free(&paths);
	}
	if (clean_detach(&g, head, keep_ignored, 0) == -1 ||
	    copy_git(&g, reset, NULL, NULL) == -1)
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
		if ((fd = parent_of(root, v->v[i], &base)) == -1)
			continue;
		if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    ctime_only(&st, since))
			strv_push(recent, v->v[i]);
		close(fd);
	}
	close(root);
}

int
reuse_prepare(const char *copy, const char *common, const char *run,
    const char *scratch, const char *head, const struct strv *entries,
    const struct strv *others, const char *index, time_t since,
    int keep_ignored, struct spawn_idle *idle, struct strv *recent,
    struct strv *links, char **dst_gitdir)
{
	struct git_job		 j;
	struct git		 g;
	mode_t			 mask;
	char			*adm, *out, *err;
	int			 started, st = -1, dirs = 0, r;

	*dst_gitdir = NULL;
	if (sync_begin(copy, common, run, idle, &g, &adm) == -1)
		return -1;
	mask = fs_umask();
	if (fix_mode(AT_FDCWD, copy, copy, 1, 0777 & ~mask) == -1)
		goto fail;
	drop_special_top(copy);
	/* What the last proof found there is kept: nothing else. */
	g.index = index;
	/*
	 * git clean walks the copy while forge sees to its modes: where a
	 * command left a directory git cannot enter, or git clean failed,
	 * it runs again once the modes are a checkout's.
	 */
	out = xasprintf("%s/clean.out", scratch);
	err = xasprintf("%s/clean.err", scratch);
	started = git_start(&j, &g, keep_ignored ? clean_keep : clean_all,
	    NULL, out, err) == 0;
	r = entry_modes(copy, entries, idle, since, recent, links, &dirs);
	if (started)
		st = git_finish(&j);
	(void)unlink(out);
	(void)unlink(err);
	free(out);
	free(err);
	if (r == -1)
		goto fail;
	recent_paths(copy, others, since, recent);
	if (clean_detach(&g, head, keep_ignored, st == 0 && dirs == 0) == -1)
		goto fail;
	*dst_gitdir = adm;
	return 0;
fail:
	free(adm);
	return -1;
}

/*
 * What the last proof's index had expects of name in the directory
 * prefix ("" or "a/b/"): 1, a file of its own; 2, a directory on the
 * way to its paths; 0, nothing.
 */
static int
had_expects(const struct gitindex *had, struct buf *b, const char *prefix,
    const char *name)
{
	size_t	i;

	buf_reset(b);
	buf_adds(b, prefix);
	buf_adds(b, name);
	buf_str(b);
	if (gitindex_find(had, b->data) != NULL)
		return 1;
	buf_addc(b, '/');
	buf_str(b);
	i = gitindex_pos(had, b->data);
	return i < had->n && strncmp(had->v[i].path, b->data, b->len) == 0 ?
	    2 : 0;
}

/*
 * The directory dir ("" the top) rid of what a fresh copy would not have
 * there, as git clean -ffdx would (and more: a FIFO, a socket, a device,
 * which git passes over): whatever the last proof's index had does not
 * expect, and what it expects as a file but is a directory, or as a
 * directory but is not one.  Never a mount, nor through a symlink
 * (fs_rmtree_at()).  Gone or not a directory itself: nothing to do
 * (its paths are stale).  -1: something would not go.
 */
static int
prune_dir(int root, const char *dir, const struct gitindex *had)
{
	struct fs_where	 top, here;
	struct dirent	*de;
	struct buf	 prefix = BUF_INIT, b = BUF_INIT;
	DIR		*d;
	int		 fd, dfd, type, k, r, ret = 0;

	fd = *dir == '\0' ? fcntl(root, F_DUPFD_CLOEXEC, 3) :
	    fs_open_dir(root, dir, 0, 0);
	if (fd == -1)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	/* Never in what is mounted there since the copy was claimed (it
	 * had nothing mounted then): the copy is not used. */
	if (fs_where(root, &top) == -1 || fs_where(fd, &here) == -1 ||
	    !fs_same_mount(&top, &here)) {
		warnx("a file system is mounted at %s in the reused copy",
		    *dir != '\0' ? fs_vis(dir) : ".");
		close(fd);
		return -1;
	}
	dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	if (dfd == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		return -1;
	}
	buf_adds(&prefix, dir);
	if (*dir != '\0')
		buf_addc(&prefix, '/');
	buf_str(&prefix);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (*dir == '\0' && strcmp(de->d_name, ".git") == 0))
			continue;
		if ((type = fs_dirent_type(d, de)) == -1)
			continue;	/* gone */
		k = had_expects(had, &b, prefix.data, de->d_name);
		if ((k == 1 && (type == DT_REG || type == DT_LNK)) ||
		    (k == 2 && type == DT_DIR))
			continue;
		r = type == DT_DIR ? fs_rmtree_at(dirfd(d), de->d_name) :
		    unlinkat(dirfd(d), de->d_name, 0);
		if (r == -1 && errno != ENOENT) {
			warn("cannot remove %s%s from the reused copy",
			    fs_vis(prefix.data), de->d_name);
			ret = -1;
		}
	}
	closedir(d);
	buf_free(&prefix);
	buf_free(&b);
	return ret;
}

/*
 * Each path of had, against the copy's file: each directory on the way
 * given a checkout's mode (dir_modes()), and if prune, rid of what had
 * does not expect (prune_dir()); the path into stale if git is to look
 * at its file again (gitindex_stale()), into links if it is a symlink.
 * No file's mode is changed: a file whose stat data is as git kept it
 * has not been touched since, and had the mode forge gave it then; the
 * others are for reuse_look_end().  A file linked from elsewhere too
 * (a command's hard link) is removed, and stale: nothing is done to it
 * through the copy.
 */
static int
had_look(const char *copy, const struct gitindex *had,
    const struct spawn_idle *idle, const struct timespec *since,
    int prune, struct strv *stale, struct strv *links, struct strv *odd,
    int *dirs)
{
	struct dir_care	 care = { 0, had };
	struct dir_walk	 w;
	struct stat	 st;
	const char	*path, *base;
	mode_t		 mask;
	size_t		 i;
	int		 root, dfd, ret = 0, r;

	mask = fs_umask();
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	walk_init(&w, root, 0777 & ~mask, prune ? &care : &care_drop, dirs);
	if (prune && prune_dir(root, "", had) == -1)
		ret = -1;
	for (i = 0; i < had->n && ret == 0; i++) {
		if ((i & 255) == 0 && idle != NULL && idle->fn != NULL)
			idle->fn(idle->arg);
		path = had->v[i].path;
		if (walk_to(&w, path, &base, &dfd) == -1)
			ret = -1;
		/* Gone, or not to be looked at without following a link on
		 * the way: for git to look at (and find it gone). */
		r = dfd != -1 && fstatat(dfd, base, &st,
		    AT_SYMLINK_NOFOLLOW) == 0;
		/* A file linked from elsewhere too: no fresh copy has one,
		 * and nothing may be done to it through the copy. */
		if (r && S_ISREG(st.st_mode) && st.st_nlink > 1) {
			if (unlinkat(dfd, base, 0) == -1 && errno != ENOENT)
				ret = -1;
			r = 0;
		}
		if (gitindex_stale(&had->v[i], r ? &st : NULL, since))
			strv_push(stale, path);
		else if (r && S_ISREG(st.st_mode) && (st.st_mode & 07777) !=
		    (((st.st_mode & S_IXUSR) ? 0777 : 0666) & ~mask))
			strv_push(odd, path);
		if (r && S_ISLNK(st.st_mode))
			strv_push(links, path);
	}
	walk_end(&w);
	close(root);
	return ret;
}

int
reuse_look_begin(struct reuse_look *lk, const char *copy, const char *common,
    const char *run, const char *scratch, const char *head,
    const char *index, const struct timespec *since, int keep_ignored,
    struct spawn_idle *idle)
{
	struct gitindex	 had;
	struct timespec	 now;
	mode_t		 mask;
	size_t		 i;
	int		 r = -1;

	memset(lk, 0, sizeof(*lk));
	/* A clock set back since then could stamp a change before it: no
	 * change time is believed. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (now.tv_sec < since->tv_sec)
		return 0;
	/* git's stat data of the copy as the last proof left it; of no
	 * submodule (git looks inside one: no copy with one is reused). */
	if (since->tv_sec <= 0 || gitindex_read(&had, index,
	    strlen(head) / 2) == -1)
		return 0;
	for (i = 0; i < had.n; i++)
		if (had.v[i].mode == 0160000) {
			gitindex_free(&had);
			return 0;
		}
	lk->copy = xstrdup(copy);
	lk->head = xstrdup(head);
	lk->index = xstrdup(index);
	lk->keep_ignored = keep_ignored;
	mask = fs_umask();
	if (sync_begin(copy, common, run, idle, &lk->g, &lk->adm) == 0 &&
	    fix_mode(AT_FDCWD, copy, copy, 1, 0777 & ~mask) == 0) {
		lk->g.index = lk->index;
		/*
		 * What that index does not have goes as forge looks at each
		 * directory, where the copy keeps no ignored files of its
		 * own; else git clean, which knows what is ignored, walks
		 * the copy meanwhile (reuse_prepare()).
		 */
		lk->pruned = !keep_ignored;
		if (keep_ignored) {
			drop_special_top(copy);
			lk->out = xasprintf("%s/clean.out", scratch);
			lk->err = xasprintf("%s/clean.err", scratch);
			lk->cleaning = git_start(&lk->clean, &lk->g,
			    clean_keep, NULL, lk->out, lk->err) == 0;
		}
		r = had_look(copy, &had, idle, since, lk->pruned, &lk->stale,
		    &lk->links, &lk->odd, &lk->dirs);
	}
	gitindex_free(&had);
	if (r == -1) {
		reuse_look_free(lk);
		return -1;
	}
	return 1;
}

/* The clean, if it runs still, waited for: its status. */
static int
look_cleaned(struct reuse_look *lk)
{
	int	st = -1;

	if (lk->cleaning) {
		st = git_finish(&lk->clean);
		lk->cleaning = 0;
		(void)unlink(lk->out);
		(void)unlink(lk->err);
	}
	return st;
}

int
reuse_look_end(struct reuse_look *lk, const struct strv *entries,
    struct strv *recent, struct strv *links, char **dst_gitdir)
{
	struct fs_pair	 pw;
	const char	*e, *base, *path;
	mode_t		 mask, want;
	size_t		 i;
	int		 st, r, ret = -1;

	*dst_gitdir = NULL;
	mask = fs_umask();
	/* The copy alone; its paths in index order, a directory's
	 * together. */
	r = fs_pair_open(&pw, NULL, lk->copy);
	/*
	 * Each changed file the working tree tracks: a checkout's mode.  So
	 * too one unchanged whose mode is not a checkout's, which the
	 * working tree tracks since (an untracked file of mode 600 that
	 * was committed as it was).
	 */
	for (i = 0; i < lk->stale.n + lk->odd.n && r == 0; i++) {
		path = i < lk->stale.n ? lk->stale.v[i] :
		    lk->odd.v[i - lk->stale.n];
		if ((e = lsfiles_find(entries, path)) == NULL)
			continue;
		if (strncmp(e, "100755 ", 7) == 0)
			want = 0777 & ~mask;
		else if (strncmp(e, "100644 ", 7) == 0)
			want = 0666 & ~mask;
		else
			continue;
		(void)fs_pair_to(&pw, path, &base, NULL, NULL);
		if (pw.dfd != -1)
			r = fix_mode(pw.dfd, base, path, 0, want);
	}
	fs_pair_close(&pw);
	st = look_cleaned(lk);
	if (r == -1 || clean_detach(&lk->g, lk->head, lk->keep_ignored,
	    lk->pruned || (st == 0 && lk->dirs == 0)) == -1)
		goto out;
	for (i = 0; i < lk->stale.n; i++)
		strv_push(recent, lk->stale.v[i]);
	for (i = 0; i < lk->links.n; i++)
		strv_push(links, lk->links.v[i]);
	*dst_gitdir = lk->adm;
	lk->adm = NULL;
	ret = 0;
out:
	reuse_look_free(lk);
	return ret;
}

void
reuse_look_free(struct reuse_look *lk)
{
	(void)look_cleaned(lk);
	free(lk->copy);
	free(lk->head);
	free(lk->index);
	free(lk->adm);
	free(lk->out);
	free(lk->err);
	strv_free(&lk->stale);
	strv_free(&lk->links);
	strv_free(&lk->odd);
	memset(lk, 0, sizeof(*lk));
}

/* Remove the directories path was in, from the deepest, while empty
 * (rmdir: never one that holds anything, nor a mount point), and while
 * on the copy's mount: not in a file system mounted there since. */
static void
prune_dirs(int root, const char *path)
{
	struct fs_where	 top, here;
	const char	*base;
	char		*dir, *slash;
	int		 fd, r;

	if (fs_where(root, &top) == -1)
		return;
	dir = xstrdup(path);
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if ((fd = parent_of(root, dir, &base)) == -1)
			break;
		r = fs_where(fd, &here) == -1 || !fs_same_mount(&top, &here) ?
		    -1 : unlinkat(fd, base, AT_REMOVEDIR);
		close(fd);
		if (r == -1)
			break;
	}
	free(dir);
}

int
reuse_fix(const char *src, const char *copy, const struct strv *fix)
{
	struct pathcopy	 pc;
	struct stat	 st;
	const char	*line, *path;
	size_t		 i;
	int		 r, ret = 0;

	/* A submodule's directory is not forge's to touch here. */
	for (i = 0; i < fix->n; i++)
		if (strncmp(fix->v[i], "160000", 6) == 0 ||
		    strncmp(fix->v[i] + 7, "160000", 6) == 0)
			return -1;
	if (pathcopy_open(&pc, src, copy) == -1) {
		warn("cannot open %s", fs_vis(src));
		return -1;
	}
	/* What the working state has not, first: it may be in the way. */
	for (i = 0; i < fix->n && ret == 0; i++) {
		line = fix->v[i];
		path = strchr(line, '\t') + 1;
		if (strncmp(line + 7, "000000", 6) != 0)
			continue;
		if (pathcopy_clear(&pc, path) == -1)
			ret = -1;
		else
			prune_dirs(pc.droot, path);
	}
	/* Each new file a new inode: git, which keeps times to the second,
	 * could take one with the old inode, size and second for the old. */
	for (i = 0; i < fix->n && ret == 0; i++) {
		line = fix->v[i];
		path = strchr(line, '\t') + 1;
		if (strncmp(line + 7, "000000", 6) == 0)
			continue;
		if ((r = pathcopy_replace(&pc, path, &st)) != 0)
			ret = -1;	/* gone, or not a file: the full way */
	}
	pathcopy_close(&pc);
	return ret;
}

void
reuse_prefix(const char *src, const char *copy, const struct strv *gone,
    const struct strv *paths, const struct strv *skip, struct strv *done)
{
	struct pathcopy	 pc;
	struct stat	 st, dst;
	const char	*path;
	size_t		 i;
	int		 clear, have, r;

	if (pathcopy_open(&pc, src, copy) == -1)
		return;
	/* What is gone first: it may be in the way. */
	for (i = 0; i < gone->n + paths->n && !sig_pending(); i++) {
		path = i < gone->n ? gone->v[i] : paths->v[i - gone->n];
		if (i >= gone->n && skip != NULL && strv_sorted_has(skip, path))
			continue;
		/* A directory on either side: for the full comparison. */
		if ((have = fstatat(pc.droot, path, &dst,
		    AT_SYMLINK_NOFOLLOW) == 0) && S_ISDIR(dst.st_mode))
			continue;
		clear = i < gone->n;
		if (!clear) {
			/* The same already (an empty file is always looked
			 * at): left alone. */
			if (have && S_ISREG(dst.st_mode) && dst.st_size == 0 &&
			    fstatat(pc.sroot, path, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    st.st_size == 0 && (st.st_mode & S_IXUSR) ==
			    (dst.st_mode & S_IXUSR))
				continue;
			if ((r = pathcopy_replace(&pc, path, &st)) == 0) {
				strv_push(done, path);
				continue;
			}
			/* Not in the working tree: not in the copy. */
			clear = r == 1 || errno == ENOENT || errno == ENOTDIR;
		}
		if (clear && have) {
			strv_push(done, path);
			(void)pathcopy_clear(&pc, path);
		}
		/* No directory made for it, or emptied, is left: a fresh
		 * copy has none. */
		pathcopy_forget(&pc);
		prune_dirs(pc.droot, path);
	}
	pathcopy_close(&pc);
}

static void *
prefix_run(void *arg)
{
	struct reuse_prefix_job	*job = arg;
	struct strv		 none = STRV_INIT;

	reuse_prefix(job->src, job->copy, &none, &job->paths, NULL,
	    &job->done);
	return NULL;
}

void
reuse_prefix_start(struct reuse_prefix_job *job, const char *src,
    const char *copy, const struct strv *paths)
{
	memset(job, 0, sizeof(*job));
	job->src = xstrdup(src);
	job->copy = xstrdup(copy);
	strv_pushv(&job->paths, paths->v);
	(void)fs_umask();
	job->running = sig_thread(&job->thread, prefix_run, job);
}

void
reuse_prefix_wait(struct reuse_prefix_job *job)
{
	if (job->running)
		(void)pthread_join(job->thread, NULL);
	job->running = 0;
}

void
reuse_prefix_free(struct reuse_prefix_job *job)
{
	reuse_prefix_wait(job);
	free(job->src);
	free(job->copy);
	strv_free(&job->paths);
	strv_free(&job->done);
	memset(job, 0, sizeof(*job));
}

/*
 * Give dir and each directory above it (below root) mode want, but for
 * prev (may be "") and those above it: paths sorted, the directories
 * of the last path are done.  Each is checked for a .git of its own,
 * and seen to as care says.
 */
static int
dir_modes(int root, const char *dir, const char *prev, mode_t want,
    int *changed, const struct dir_care *care)
{
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	const char	*base;
	size_t		 k, n = strlen(dir), pn = strlen(prev);
	int		 fd, ret = 0;

	for (k = 1; k <= n && ret == 0; k++) {
		if (k < n && dir[k] != '/')
			continue;
		if (k <= pn && memcmp(prev, dir, k) == 0 &&
		    (k == pn || prev[k] == '/'))
			continue;
		buf_reset(&b);
		buf_add(&b, dir, k);
		buf_str(&b);
		if ((fd = parent_of(root, b.data, &base)) == -1)
			continue;
		if (fix_mode_st(fd, base, b.data, 1, want, &st) == -1 ||
		    (S_ISDIR(st.st_mode) && (foreign_git(fd, base, b.data,
		    care->drop) || (care->had != NULL &&
		    prune_dir(root, b.data, care->had) == -1))))
			ret = -1;
		else if (S_ISDIR(st.st_mode) && (st.st_mode & 07777) != want)
			(*changed)++;
		close(fd);
	}
	buf_free(&b);
	return ret;
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The modes a fresh copy gives, which git does not record: a tracked
 * file's as git apply leaves it (or, with core.fileMode false, with the
 * source's x bits), an untracked or flagged file's the source's.  The
 * owner's x bit, which the proof covers, is left as it is.  The paths
 * are sorted first, so that each directory is opened once for its
 * files, in the source and in the copy.
 */
/* fs_pair_to()'s fresh: a new directory's, and those above it, as a
 * checkout or a copy makes them, those of untracked files too. */
static int
pair_dir_modes(const char *dir, const char *prev, void *arg)
{
	struct modes_walk	*m = arg;

	return dir_modes(m->droot, dir, prev, m->want, &m->dirs, &care_none);
}

int
reuse_modes(const char *src, const char *copy, const struct strv *paths,
    const struct strv *entries, const struct strv *flagged, int filemode)
{
	struct stat		 sst, dst;
	struct fs_pair		 pw;
	struct modes_walk	 m;
	const char		**v, *path, *base;
	mode_t			 mask, want;
	size_t			 i;
	int			 ret = 0;

	mask = fs_umask();
	if (fs_pair_open(&pw, src, copy) == -1)
		return -1;
	memset(&m, 0, sizeof(m));
	m.droot = pw.droot;
	m.want = 0777 & ~mask;
	v = xreallocarray(NULL, paths->n + 1, sizeof(*v));
	for (i = 0; i < paths->n; i++)
		v[i] = paths->v[i];
	qsort(v, paths->n, sizeof(*v), cmp_path);
	for (i = 0; i < paths->n && ret == 0; i++) {
		path = v[i];
		if (i > 0 && strcmp(path, v[i - 1]) == 0)
			continue;
		if (fs_pair_to(&pw, path, &base, pair_dir_modes, &m) == -1)
			ret = -1;
		if (pw.sfd == -1 || pw.dfd == -1 ||
		    fstatat(pw.sfd, base, &sst, AT_SYMLINK_NOFOLLOW) == -1 ||
		    fstatat(pw.dfd, base, &dst, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(sst.st_mode) || !S_ISREG(dst.st_mode))
			continue;
		if (lsfiles_find(entries, path) != NULL &&
		    lsfiles_find(flagged, path) == NULL)
			want = filemode ? (dst.st_mode & S_IXUSR ? 0777 :
			    0666) & ~mask : (0666 & ~mask) |
			    (sst.st_mode & 0111);
		else
			want = sst.st_mode & 07777;
		want = (want & ~(mode_t)S_IXUSR) | (dst.st_mode & S_IXUSR);
		/* Proved as it is: a file linked from elsewhere too, which
		 * its mode would change, is no fresh copy's file. */
		if ((dst.st_mode & 07777) != want && dst.st_nlink > 1) {
			warnx("%s in the reused copy is linked from elsewhere",
			    fs_vis(path));
			ret = -1;
		} else if ((dst.st_mode & 07777) != want &&
		    fix_mode(pw.dfd, base, path, 0, want) == -1)
			ret = -1;
	}
	fs_pair_close(&pw);
	free(v);
	return ret;
}

int
reuse_index(const char *copy, const char *dst_gitdir, const char *from,
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
	ret = copy_git(&g, merge, NULL, NULL);
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
reuse_index_same(const char *dst_gitdir, const char *record, const char *key)
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
reuse_index_note(const char *dst_gitdir, const char *record, const char *key)
{
	char	*r;

	r = index_record(dst_gitdir, key);
	if (r == NULL || fs_write_atomic(record, r, strlen(r), 0600) == -1)
		(void)unlink(record);
	free(r);
}

/* Where an incremental copy's last working state is noted. */
static char *
state_path(const char *carry)
{
	return xasprintf("%s/state.paths", carry);
}

/* Ends the list: no path of a working state's. */
#define STATE_END	"//"

/* A path git could have in a working state: relative, no empty, ".",
 * ".." or ".git" component. */
static int
state_path_ok(const char *p)
{
	const char	*c, *e;
	size_t		 n;

	if (*p == '\0' || *p == '/')
		return 0;
	for (c = p; ; c = e + 1) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.') ||
		    (n == 4 && strncmp(c, ".git", 4) == 0))
			return 0;
		if (e == NULL)
			return 1;
	}
}

int
reuse_state_read(const char *carry, struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	size_t		 i;
	int		 ret = -1;

	path = state_path(carry);
	if (fs_read_file(path, &b, (size_t)1 << 30) == 0) {
		strv_split_z(paths, b.data != NULL ? b.data : "", b.len);
		/* Whole, as written, and nothing but paths. */
		if (paths->n > 0 && strcmp(paths->v[paths->n - 1],
		    STATE_END) == 0) {
			strv_pop(paths);
			for (ret = 0, i = 0; i < paths->n && ret == 0; i++)
				if (!state_path_ok(paths->v[i]))
					ret = -1;
		}
	}
	if (ret == -1)
		strv_clear(paths);
	strv_sort_uniq(paths);
	free(path);
	buf_free(&b);
	return ret;
}

void
reuse_state_forget(const char *carry)
{
	char	*path;

	path = state_path(carry);
	(void)unlink(path);
	free(path);
}

int
reuse_state_write(const char *carry, const struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	size_t		 i;
	int		 ret = -1;

	for (i = 0; i < paths->n; i++)
		buf_add(&b, paths->v[i], strlen(paths->v[i]) + 1);
	buf_add(&b, STATE_END, sizeof(STATE_END));
	path = state_path(carry);
	/* Not synced: what a crash leaves reads as no list at all (its
	 * end is missing), never a short one. */
	if ((mkdir(carry, 0700) == 0 || errno == EEXIST) &&
	    fs_write_replace(path, b.data, b.len, 0600) == 0)
		ret = 0;
	free(path);
	/* No list is read as none known: never an old one. */
	if (ret == -1)
		reuse_state_forget(carry);
	buf_free(&b);
	return ret;
}
