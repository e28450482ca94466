/* The modes git does not record, given to a reused copy as a checkout would. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "git.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "reuse.h"
#include "reuse_int.h"
#include "xmalloc.h"

/* The directory of path below root, no symlink on the way followed (a
 * command could have put one where a directory was); base: its name. */
int
reuse_modes_parent_of(int root, const char *path, const char **base)
{
	const char	*slash = strrchr(path, '/');
	char		*dir;
	int		 fd;

	if (slash == NULL) {
		*base = path;
		return fcntl(root, F_DUPFD_CLOEXEC, 3);
	}
	*base = slash + 1;
	dir = xstrndup(path, (size_t)(slash - path));
	fd = fs_open_dir(root, dir, 0, 0);
	free(dir);
	return fd;
}

/* Fix one path's mode; 0 if it is fine, gone or not what HEAD has
 * there (the checkout replaces it), -1 if it cannot be fixed. */
int
reuse_modes_fix(int dfd, const char *base, const char *path, int dir,
    mode_t want)
{
	struct stat	st;

	return reuse_modes_fix_st(dfd, base, path, dir, want, &st);
}

/* reuse_modes_fix(), with what the path was before in *st (st_mode 0: none). */
int
reuse_modes_fix_st(int dfd, const char *base, const char *path, int dir,
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
	 * Gone since: git clean, which runs meanwhile (reuse_sync_prepare()),
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
void
reuse_modes_drop_special_top(const char *copy)
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
 * checkout would give them git's own modes, and so does this, from the
 * tree's entries, each tree's before what it holds (lsfiles_tree_all()).
 */
int
reuse_modes_tree(const char *copy, const struct strv *ls)
{
	struct buf		 cur = BUF_INIT;
	struct lsfiles_entry	 e;
	const char		*path, *slash, *base;
	mode_t			 mask, want;
	size_t			 i, dlen;
	int			 root, dfd = -1, dir, ret = 0;

	mask = fs_umask();
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	buf_str(&cur);
	for (i = 0; i < ls->n && ret == 0; i++) {
		if (lsfiles_entry_parse(ls->v[i], &e) == -1)
			continue;
		path = e.path;
		if (e.mode == 040000)
			dir = 1, want = 0777 & ~mask;
		else if (e.mode == 0100755)
			dir = 0, want = 0777 & ~mask;
		else if (e.mode == 0100644)
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
		if (dfd != -1 &&
		    reuse_modes_fix(dfd, base, path, dir, want) == -1)
			ret = -1;
		else if (dfd != -1 && dir && foreign_git(dfd, base, path, 1))
			ret = -1;
	}
	if (dfd != -1 && dfd != root)
		close(dfd);
	close(root);
	buf_free(&cur);
	return ret;
}

const struct reuse_care	reuse_care_drop = { 1, NULL, NULL };
static const struct reuse_care	care_none = { 0, NULL, NULL };

static int
before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec &&
	    a->tv_nsec < b->tv_nsec);
}

int
reuse_modes_unchanged_since(const struct stat *st,
    const struct timespec *since)
{
	return since != NULL && before(&st->st_mtim, since) &&
	    before(&st->st_ctim, since);
}

static int	dir_modes(int, const char *, const char *, mode_t, int *,
		    const struct reuse_care *);

/* reuse_modes()'s: the copy's top, the directories' mode, and how many
 * it changed. */
struct modes_walk {
	int	droot;
	mode_t	want;
	int	dirs;
};

void
reuse_modes_walk_init(struct reuse_walk *w, int root, mode_t want,
    const struct reuse_care *care, int *dirs)
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

int
reuse_modes_walk_to(struct reuse_walk *w, const char *path, const char **base,
    int *dfd)
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

void
reuse_modes_walk_end(struct reuse_walk *w)
{
	if (w->dfd != -1 && w->dfd != w->root)
		close(w->dfd);
	buf_free(&w->cur);
	buf_free(&w->prefix);
}

/*
 * What the last proof's index had expects of name in the directory
 * prefix ("" or "a/b/"): 1, a file of its own; 2, a directory on the
 * way to its paths; 0, nothing.
 */
static int
had_expects(const struct strv *had, struct buf *b, const char *prefix,
    const char *name)
{
	size_t	i;

	buf_reset(b);
	buf_adds(b, prefix);
	buf_adds(b, name);
	buf_str(b);
	if (strv_sorted_has(had, b->data))
		return 1;
	buf_addc(b, '/');
	buf_str(b);
	i = strv_sorted_pos(had, b->data);
	return i < had->n && strncmp(had->v[i], b->data, b->len) == 0 ?
	    2 : 0;
}

/*
 * The directory dir ("" the top) rid of what a fresh copy would not have
 * there, as git clean -ffdx would (and more: a FIFO, a socket, a device,
 * which git passes over): whatever the last proof's index had does not
 * expect, and what it expects as a file but is a directory, or as a
 * directory but is not one.  Never a mount, nor through a symlink
 * (fs_remove_at()).  Gone or not a directory itself: nothing to do
 * (its paths are stale).  -1: something would not go.
 */
int
reuse_modes_prune_dir(int root, const char *dir, const struct strv *had)
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
	if (fs_mount_where(root, &top) == -1 || fs_mount_where(fd, &here) == -1 ||
	    !fs_mount_same(&top, &here)) {
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
		r = type == DT_DIR ? fs_remove_at(dirfd(d), de->d_name) :
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
 * Give dir and each directory above it (below root) mode want, but for
 * prev (may be "") and those above it: paths sorted, the directories
 * of the last path are done.  Each is checked for a .git of its own,
 * and seen to as care says.
 */
static int
dir_modes(int root, const char *dir, const char *prev, mode_t want,
    int *changed, const struct reuse_care *care)
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
		if ((fd = reuse_modes_parent_of(root, b.data, &base)) == -1)
			continue;
		if (reuse_modes_fix_st(fd, base, b.data, 1, want, &st) == -1 ||
		    (S_ISDIR(st.st_mode) && foreign_git(fd, base, b.data,
		    care->drop)))
			ret = -1;
		else if (S_ISDIR(st.st_mode) && care->changed != NULL &&
		    !reuse_modes_unchanged_since(&st, care->since))
			strv_push(care->changed, b.data);
		if (ret == 0 && S_ISDIR(st.st_mode) &&
		    (st.st_mode & 07777) != want)
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
    const struct entlist *entries, const struct strv *flagged, int filemode)
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
		if (entlist_find(entries, path) != -1 &&
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
		    reuse_modes_fix(pw.dfd, base, path, 0, want) == -1)
			ret = -1;
	}
	fs_pair_close(&pw);
	free(v);
	return ret;
}
