/* What git diff leaves out of a working state, put in its copy by hand. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "pathcopy.h"
#include "progress.h"
#include "sig.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "strv.h"
#include "xmalloc.h"

/* Run git in the copy with paths, NUL-separated, on its stdin. */
static int
dst_git_paths(struct snap_repo *sr, const char *const *args,
    const struct strv *paths)
{
	struct git	 g;
	struct buf	 in = BUF_INIT, err = BUF_INIT;
	size_t		 i;
	int		 st;

	for (i = 0; i < paths->n; i++)
		buf_add(&in, paths->v[i], strlen(paths->v[i]) + 1);
	snapshot_repo_dst_git(sr, &g);
	if ((st = git_run(&g, args, 0, &in, NULL, &err)) > 0)
		warnx("git %s failed in the copy: %s", args[0],
		    git_why(&err, st));
	buf_free(&in);
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/*
 * In a sparse checkout, a file outside the patterns may be on disk
 * anyway (git then drops its skip-worktree bit), or have been and be
 * deleted since (its bit dropped then, the file gone: a deletion git
 * diff shows).  The copy was checked out by the patterns alone: check
 * each entry out there that is not skip-worktree in the source, before
 * the patch, which may change it, or delete it.
 */
int
snapshot_fill_unsparse(struct snap_repo *sr, const struct lsfiles *l)
{
	const char *const	 noskip[] = { "update-index",
	    "--no-skip-worktree", "-z", "--stdin", NULL };
	const char *const	 checkout[] = { "checkout-index", "-f", "-z",
	    "--stdin", NULL };
	struct strv		 want = STRV_INIT, flagged = STRV_INIT;
	struct strv		 paths = STRV_INIT;
	struct buf		 tags = BUF_INIT, err = BUF_INIT;
	struct stat		 st;
	struct git		 g;
	const char		*path;
	char			*sp;
	size_t			 i, k = 0;
	int			 ret = 0;

	snapshot_repo_dst_git(sr, &g);
	if ((ret = lsfiles_tagged(&g, "-t", &paths, &tags, &err)) != 0) {
		if (ret > 0)
			warnx("git ls-files failed in the copy: %s",
			    git_why(&err, ret));
		strv_free(&paths);
		buf_free(&tags);
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	for (k = 0; k < l->flagged.n; k++)
		strv_push(&flagged, lsfiles_entry_path(l->flagged.v[k]));
	/* Both lists are in index order: walk them together. */
	for (k = 0, i = 0; i < paths.n; i++) {
		if (tags.data[i] != 'S')
			continue;
		path = paths.v[i];
		while (k < flagged.n && strcmp(flagged.v[k], path) < 0)
			k++;
		if (k < flagged.n && strcmp(flagged.v[k], path) == 0)
			continue;	/* skip-worktree in the source too */
		/* A submodule's directory gone is no deletion git shows. */
		if (lsfiles_find(&l->gitlinks, path) != NULL) {
			sp = xasprintf("%s/%s", sr->src, path);
			if (lstat(sp, &st) == 0)
				strv_push(&want, path);
			free(sp);
		} else
			strv_push(&want, path);
	}
	if (want.n > 0 && (dst_git_paths(sr, noskip, &want) == -1 ||
	    dst_git_paths(sr, checkout, &want) == -1))
		ret = -1;
	strv_free(&want);
	strv_free(&flagged);
	strv_free(&paths);
	buf_free(&tags);
	return ret;
}

/*
 * Entries flagged skip-worktree or assume-unchanged are invisible to git
 * diff, yet what is on disk is what the user has: make the copy match the
 * source path by path (flagged_edits() tells the proof the same).
 */
int
snapshot_fill_flagged(struct snap_repo *sr, const struct lsfiles *l)
{
	struct pathcopy	 pc;
	struct stat	 st;
	const char	*entry, *path;
	size_t		 i;
	int		 r, ret = 0;

	if (l->flagged.n == 0)
		return 0;
	if (pathcopy_open(&pc, sr->src, sr->dst) == -1) {
		warn("cannot open %s", fs_vis(sr->src));
		return -1;
	}
	for (i = 0; i < l->flagged.n && ret == 0; i++) {
		entry = l->flagged.v[i];
		path = lsfiles_entry_path(entry);
		if ((r = pathcopy_copy(&pc, path, &st)) == 0)
			continue;
		if (r == -1 && errno != EINVAL) {
			warn("cannot copy %s%s", fs_vis(sr->rel), fs_vis(path));
			ret = -1;
			continue;
		}
		/* Gone, or a directory (its files are untracked): no file
		 * here either, and no entry on either side of the proof. */
		if (r == -1 && !S_ISDIR(st.st_mode))
			warnx("skipping %s%s: a %s, not a file or symlink",
			    fs_vis(sr->rel), fs_vis(path),
			    fs_vis_type(st.st_mode));
		if (pathcopy_clear(&pc, path) == -1) {
			warn("cannot remove %s%s from the copy",
			    fs_vis(sr->rel), fs_vis(path));
			ret = -1;
		}
	}
	pathcopy_close(&pc);
	return ret;
}

int
snapshot_fill_untracked(struct snap_repo *sr, const struct lsfiles *l)
{
	struct pathcopy	 pc;
	struct stat	 st;
	const char	*path;
	size_t		 i;
	int		 r, ret = 0;

	if (l->untracked.n == 0)
		return 0;
	if (pathcopy_open(&pc, sr->src, sr->dst) == -1) {
		warn("cannot open %s", fs_vis(sr->src));
		return -1;
	}
	progress_start("copying untracked files", l->untracked.n);
	for (i = 0; i < l->untracked.n && ret == 0; i++) {
		path = l->untracked.v[i];
		if ((r = pathcopy_copy(&pc, path, &st)) == -1) {
			if (errno == EINVAL) {
				warnx("skipping %s%s: a %s, not a file or "
				    "symlink", fs_vis(sr->rel), fs_vis(path),
				    fs_vis_type(st.st_mode));
			} else {
				warn("cannot copy %s%s", fs_vis(sr->rel),
				    fs_vis(path));
				ret = -1;
			}
		}
		progress_update(i + 1);
		if (i == 0)
			sig_test_stall("untracked");
		if ((i & 255) == 0 && sig_pending())
			ret = -1;
	}
	progress_end();
	pathcopy_close(&pc);
	return ret;
}

/*
 * With core.fileMode false, git keeps no exec bits of its own: the copy
 * got them from HEAD.  Give it the source's, file by file.
 */
int
snapshot_fill_modes(struct snap_repo *sr)
{
	struct stat	 sst, dst;
	struct fs_pair	 pw;
	const char	*path, *base;
	size_t		 i;
	int		 ret = 0;
	mode_t		 want;

	if (fs_pair_open(&pw, sr->src, sr->dst) == -1) {
		warn("cannot open %s or %s", fs_vis(sr->src), fs_vis(sr->dst));
		return -1;
	}
	/* Each path's directories opened from the top, none through a
	 * symlink (one may stand where the index has a directory). */
	for (i = 0; i < sr->entries.n && ret == 0; i++) {
		path = entlist_path(&sr->entries, i);
		(void)fs_pair_to(&pw, path, &base, NULL, NULL);
		if (pw.sfd == -1 || pw.dfd == -1 ||
		    fstatat(pw.sfd, base, &sst, AT_SYMLINK_NOFOLLOW) == -1 ||
		    fstatat(pw.dfd, base, &dst, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(sst.st_mode) || !S_ISREG(dst.st_mode) ||
		    (sst.st_mode & 0111) == (dst.st_mode & 0111))
			continue;
		/* Not a symlink, as just seen, and nothing runs in the
		 * copy yet. */
		want = (dst.st_mode & 0666) | (sst.st_mode & 0111);
		if (fs_chmod_at(pw.dfd, base, want) == -1) {
			warn("cannot set the mode of %s/%s", fs_vis(sr->dst),
			    fs_vis(path));
			ret = -1;
		}
	}
	fs_pair_close(&pw);
	return ret;
}
