/* A copy's nested repositories: set aside as it is parked, brought back. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "git.h"
#include "journal_reclaim.h"
#include "lsfiles.h"
#include "registration.h"
#include "reuse.h"
#include "rundir.h"
#include "sig.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "source.h"
#include "strv.h"
#include "xmalloc.h"


/* sr's path below the top copy, without the slash its rel ends in. */
static char *
rel_path(const struct snap_repo *sr)
{
	return xstrndup(sr->rel, strlen(sr->rel) - 1);
}

/*
 * The directory a nested repository's copy is in, opened from the top
 * copy with no symlink followed, and the copy's name in it (*base, the
 * caller frees it).  -1: there is no such directory.
 */
static int
parent_of(const struct snapshot *s, const struct snap_repo *sr,
    char **base)
{
	const char	*name;
	char		*rel;
	int		 root, fd = -1;

	rel = rel_path(sr);
	if ((root = open(s->repos[0]->dst, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) != -1) {
		fd = snapshot_repo_parent_at(root, rel, &name);
		close(root);
	}
	*base = fd != -1 ? xstrdup(name) : NULL;
	free(rel);
	return fd;
}

/* The run's directory of parked nested copies, made if asked. */
static int
parked_dir(const struct snapshot *s, int make)
{
	char	*path;
	int	 fd;

	path = xasprintf("%s/%s", s->rd->top, SNAP_PARKED_DIR);
	if (make && mkdir(path, 0700) == -1 && errno != EEXIST) {
		free(path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	return fd;
}

/*
 * A nested repository's copy gone, and its registration with it (the
 * next copy at that path could not be added while git keeps a missing,
 * locked one there).
 */
static void
drop_copy(const struct snapshot *s, const struct snap_repo *sr)
{
	char	*base;
	int	 fd;

	if ((fd = parent_of(s, sr, &base)) != -1) {
		(void)fs_remove_at(fd, base);
		close(fd);
		free(base);
	}
	(void)journal_reclaim_registration(sr->common, s->rd->run, sr->dst);
}

int
snapshot_parked_set_aside(struct snapshot *s)
{
	struct snap_repo	*sr;
	struct stat		 st;
	size_t			 i;
	char			*base, *slot;
	int			 pfd = -1, fd, ret = 0;

	/* A file system mounted in the copy: it is not parked (reuse.h),
	 * and what is said of it names the path the command mounted. */
	if (fs_mount_below(s->rd->top, NULL) != 0)
		return 0;
	/* Deepest first: each is set aside before the one it is in. */
	for (i = s->nrepos; i-- > 1;) {
		sr = s->repos[i];
		if (!sr->parkable || sr->dst_gitdir == NULL) {
			drop_copy(s, sr);
			continue;
		}
		if (pfd == -1 && (pfd = parked_dir(s, 1)) == -1) {
			warn("cannot make %s/%s", fs_vis(s->rd->top), SNAP_PARKED_DIR);
			ret = -1;
			break;
		}
		if ((fd = parent_of(s, sr, &base)) == -1) {
			/* Not where it was: what is there is the top
			 * copy's to put right, its registration gone. */
			drop_copy(s, sr);
			continue;
		}
		slot = snapshot_repo_nested_name(sr);
		(void)fs_remove_at(pfd, slot);
		if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISDIR(st.st_mode) ||
		    renameat(fd, base, pfd, slot) == -1)
			drop_copy(s, sr);
		else
			sig_test_stall("set-aside");
		free(slot);
		free(base);
		close(fd);
	}
	if (pfd != -1)
		close(pfd);
	return ret;
}

/*
 * The parked copy of sr put back where it is to be, its registration a
 * fresh one's: 1; 0, there is none (or none that will do), and the path
 * is free for a fresh one; -1 with a message.
 */
static int
put_back(struct snapshot *s, struct snap_repo *sr)
{
	struct stat	 st;
	char		*slot, *base, *adm;
	int		 pfd, fd, r = 0;

	if ((pfd = parked_dir(s, 0)) == -1)
		return 0;
	slot = snapshot_repo_nested_name(sr);
	if ((fd = parent_of(s, sr, &base)) == -1) {
		(void)fs_remove_at(pfd, slot);
		free(slot);
		close(pfd);
		return 0;
	}
	/* Over the empty directory the top copy has there, if any. */
	if (fstatat(pfd, slot, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && renameat(pfd, slot, fd, base) == 0) {
		r = 1;
		sig_test_stall("take-back");
	}
	else
		(void)fs_remove_at(pfd, slot);
	free(slot);
	free(base);
	close(fd);
	close(pfd);
	if (r == 1) {
		adm = registration_of(sr->dst, sr->common, s->rd->run);
		if (adm == NULL || registration_fresh(adm, sr->dst, sr->common,
		    sr->gitdir, sr->head) == -1)
			r = 0;
		free(adm);
	}
	return r;
}

/*
 * A nested copy that keeps its own ignored files, before the sync: rid
 * of its rule files, and of what the last run put there that this
 * working state has not -- which an ignore rule changed since may now
 * hide, and the sync would keep.  -1 with a message.
 */
static int
keep_own(struct snapshot *s, struct snap_repo *sr)
{
	struct strv	done = STRV_INIT;
	int		tree;

	struct strv	dropped = STRV_INIT, none = STRV_INIT;
	struct reuse_copy rc;
	int		r;

	tree = s->source != NULL && s->source->kind != SOURCE_WORKTREE;
	snapshot_repo_reuse_copy(s, sr, &rc);
	r = reuse_rules_drop(&rc, tree ? NULL : sr->src, tree ?
	    sr->tree_index : sr->index, &dropped);
	snapshot_repo_rules_said(sr, &dropped);
	strv_free(&dropped);
	if (r == 0)
		reuse_look_prefix(sr->src, sr->dst, &sr->state_gone, &none,
		    NULL, &done);
	strv_free(&done);
	return r;
}

int
snapshot_parked_take(struct snapshot *s, struct snap_repo *sr)
{
	struct reuse_copy	rc;
	int			r, keep;

	if (rundir_note_repo(s->rd, sr->common) == -1)
		return -1;
	if (sr->parkable && (r = put_back(s, sr)) == 1) {
		snapshot_repo_reuse_copy(s, sr, &rc);
		/* Its own ignored files kept, as the top copy's are,
		 * where what forge put there is known
		 * (snapshot_reused_noted_begin()); else they go, and setup
		 * with them.  Where git may convert HEAD's files, those the
		 * copy kept that may not be what a checkout writes are
		 * checked out again next (snapshot.c). */
		keep = s->incremental && sr->state_begun && !sr->state_unknown &&
		    (s->source == NULL || s->source->kind == SOURCE_WORKTREE ||
		    sr->tree_index != NULL);
		rc.keep_ignored = keep;
		if ((!keep || keep_own(s, sr) == 0) &&
		    reuse_sync(&rc, keep ? &sr->marks : NULL,
		    &sr->dst_gitdir) == 0) {
			sr->keeps = keep;
			if (!keep && s->nested_afresh == NULL)
				s->nested_afresh = rel_path(sr);
			return 1;
		}
		r = sr->dst_gitdir == NULL;
		free(sr->dst_gitdir);
		sr->dst_gitdir = NULL;
		if (sig_pending())
			return -1;
		if (r)
			warnx("the reused copy of %s could not be brought up "
			    "to date: copying it afresh", fs_vis(sr->rel));
	}
	return snapshot_parked_drop(s, sr) == -1 ? -1 : 0;
}

int
snapshot_parked_strays(struct snapshot *s, struct snap_repo *sr,
    const char *index, const struct strv *keep)
{
	const char *const	 a[] = { "-o", "--exclude-standard", NULL };
	struct strv		 had = STRV_INIT, gone = STRV_INIT,
				 none = STRV_INIT, done = STRV_INIT,
				 out = STRV_INIT;
	struct buf		 err = BUF_INIT;
	struct git		 g;
	const char		*p;
	size_t			 i, len;
	int			 st, ret = 0;

	snapshot_repo_dst_git(sr, &g);
	g.idle = &s->idle;
	if (index != NULL)
		g.index = index;
	if ((st = lsfiles_paths(&g, a, &out, &err)) != 0) {
		if (st > 0)
			warnx("git ls-files failed in the reused copy of %s: "
			    "%s", fs_vis(sr->rel), git_why(&err, st));
		ret = -1;
		goto out;
	}
	if (keep != NULL) {
		strv_pushv(&had, keep->v);
		strv_sort(&had);
	}
	for (i = 0; i < out.n; i++) {
		p = out.v[i];
		len = strlen(p);
		/* A repository nested in it is its own to see to. */
		if (p[len - 1] == '/' || strv_sorted_has(&had, p))
			continue;
		strv_push(&gone, p);
	}
	if (gone.n > 0)
		reuse_look_prefix(sr->src, sr->dst, &gone, &none, NULL, &done);
out:
	strv_free(&had);
	strv_free(&gone);
	strv_free(&done);
	strv_free(&out);
	buf_free(&err);
	return ret;
}

int
snapshot_parked_drop(struct snapshot *s, struct snap_repo *sr)
{
	char	*rel;
	int	 r;

	rel = rel_path(sr);
	r = snapshot_repo_empty_nested(s->repos[0]->dst, rel);
	free(rel);
	if (r == -1)
		return -1;
	if (journal_reclaim_registration(sr->common, s->rd->run,
	    sr->dst) == -1) {
		warn("cannot remove the last copy's registration of %s",
		    fs_vis(sr->rel));
		return -1;
	}
	return 0;
}

void
snapshot_parked_clear(struct snapshot *s)
{
	int	fd;

	if ((fd = open(s->rd->top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	(void)fs_remove_at(fd, SNAP_PARKED_DIR);
	close(fd);
}
