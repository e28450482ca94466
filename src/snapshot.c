/*
 * Building and proving the ephemeral copy of a working state.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "gitcmd.h"
#include "lsfiles.h"
#include "patch.h"
#include "pathcopy.h"
#include "settings.h"
#include "sig.h"
#include "snapshot.h"
#include "spawn.h"
#include "treeid.h"
#include "xmalloc.h"

/* One repository of the copy: the top one, or a nested one. */
struct snap_repo {
	char		*src;		/* its working tree */
	char		*gitdir;
	char		*common;
	char		*objects;
	char		*index;		/* a private copy of its index */
	char		*head;		/* the commit checked out */
	char		*dst;		/* its copy */
	char		*dst_gitdir;	/* the copy's registration */
	char		*rel;		/* dst below the top copy */
	struct strv	 reflag;	/* index entries the proof re-adds */
	struct strv	 drop;		/* ... and removes */
	struct strv	 exclude;	/* paths the proof leaves out */
	int		 filemode;	/* core.fileMode */
	int		 sparse;	/* a sparse checkout */
};

static int	copy_repo(struct snapshot *, struct snap_repo *);

static void
sr_free(struct snap_repo *sr)
{
	free(sr->src);
	free(sr->gitdir);
	free(sr->common);
	free(sr->objects);
	free(sr->index);
	free(sr->head);
	free(sr->dst);
	free(sr->dst_gitdir);
	free(sr->rel);
	strv_free(&sr->reflag);
	strv_free(&sr->drop);
	strv_free(&sr->exclude);
	free(sr);
}

/*
 * The git context for reading a source repository's working state,
 * through the private copy of its index: git diff may refresh an index
 * and write it back, and the user's must stay as it is.
 */
static void
src_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->src;
	g->gitdir = sr->gitdir;
	g->worktree = sr->src;
	g->index = sr->index;
}

static void
dst_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->dst;
	g->gitdir = sr->dst_gitdir;
	g->worktree = sr->dst;
}

/* What `gitdir: <path>` in a worktree's .git file says. */
static char *
read_gitfile(const char *wt)
{
	struct buf	 b = BUF_INIT;
	char		*path, *r = NULL;

	path = xasprintf("%s/.git", wt);
	if (fs_read_file(path, &b, 1 << 16) == 0) {
		buf_rtrim(&b);
		if (strncmp(b.data, "gitdir: ", 8) == 0)
			r = xstrdup(b.data + 8);
	}
	free(path);
	buf_free(&b);
	if (r != NULL && r[0] != '/') {
		char	*abs = xasprintf("%s/%s", wt, r);

		free(r);
		r = abs;
	}
	return r;
}

/*
 * The settings of the source repository that change how its copy must
 * be made: core.fileMode, and (before git 2.36, which cannot copy one)
 * whether it is a sparse checkout.
 */
static int
repo_settings(struct snap_repo *sr, int sparse)
{
	const char *const	 a[] = { "config", "-z", "--get-regexp",
	    "^core\\.(filemode|sparsecheckout)$", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	const char		*p, *end, *nl;
	int			 b;

	src_git(sr, &g);
	sr->filemode = 1;
	(void)git_run(&g, a, GIT_QUIET, NULL, &out, NULL);
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			continue;
		b = settings_bool(nl + 1);
		if (strncmp(p, "core.filemode\n", 14) == 0)
			sr->filemode = b != 0;
		else if (strncmp(p, "core.sparsecheckout\n", 20) == 0)
			sr->sparse = b == 1;
		if (sr->sparse && sparse && !git_version_at_least(2, 36)) {
			warnx("%s is a sparse checkout: forge needs git 2.36 "
			    "or later to copy one (this is %s)",
			    fs_vis(sr->src), git_version_string());
			buf_free(&out);
			return -1;
		}
	}
	buf_free(&out);
	return 0;
}

/*
 * git worktree add says only "unable to write file" when the disk is
 * full, and cleans up after itself so the space is free again by the
 * time we look: compare what HEAD holds with what the file system has.
 */
static int
no_space(struct snap_repo *sr, const char *dir, struct buf *why)
{
	const char *const	 a[] = { "ls-tree", "-r", "-l", "-z",
	    "--full-tree", NULL };
	struct statvfs		 vfs;
	struct strv		 args = STRV_INIT;
	struct buf		 out = BUF_INIT;
	struct git		 g;
	unsigned long long	 need = 0, files = 0, avail;
	const char		*p, *end;
	char			*f, *e;
	int			 i, ret = 0;

	if (statvfs(dir, &vfs) == -1)
		return 0;
	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	for (i = 0; a[i] != NULL; i++)
		strv_push(&args, a[i]);
	strv_push(&args, sr->head);
	if (git_run(&g, (const char *const *)args.v, GIT_QUIET, NULL, &out,
	    NULL) != 0)
		goto out;
	/* "mode type oid size\tpath": the size is the fourth field. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		f = strchr(p, ' ');
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		if (f == NULL)
			break;
		need += strtoull(f + 1, &e, 10);
		files++;
	}
	avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	if (need > avail) {
		buf_addf(why, "No space left on device: %s has %llu KiB free, "
		    "HEAD holds %llu KiB", fs_vis(dir), avail / 1024,
		    need / 1024);
		ret = 1;
	} else if (vfs.f_files > 0 && files > vfs.f_favail) {
		buf_addf(why, "No space left on device: %s has %llu inodes "
		    "free, HEAD holds %llu files", fs_vis(dir),
		    (unsigned long long)vfs.f_favail, files);
		ret = 1;
	}
out:
	strv_free(&args);
	buf_free(&out);
	return ret;
}

static int
add_worktree(struct snapshot *s, struct snap_repo *sr)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	int		 st;

	if (rundir_note_repo(s->rd, sr->common) == -1)
		return -1;
	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	strv_push(&a, "worktree");
	strv_push(&a, "add");
	strv_push(&a, "--detach");
	strv_push(&a, "--quiet");
	strv_push(&a, "--lock");
	strv_push(&a, "--reason");
	strv_pushf(&a, "forge run %s pid %ld: an ephemeral copy, removed "
	    "when forge exits (forge gc removes it if forge died)",
	    s->rd->run, (long)getpid());
	strv_push(&a, "--");
	strv_push(&a, sr->dst);
	strv_push(&a, sr->head);
	st = git_run(&g, (const char *const *)a.v, GIT_RETRY, NULL, NULL,
	    NULL);
	strv_free(&a);
	if (st != 0) {
		if (st > 0) {
			struct buf	why = BUF_INIT;
			char		*said = xstrdup(git_error());

			if (no_space(sr, s->rd->top, &why))
				warnx("cannot check out HEAD into the copy: %s",
				    why.data);
			else
				warnx("cannot check out HEAD into the copy: "
				    "git worktree add: %s", said);
			free(said);
			buf_free(&why);
		}
		return -1;
	}
	if ((sr->dst_gitdir = read_gitfile(sr->dst)) == NULL) {
		warnx("git worktree add left no .git file in %s",
		    fs_vis(sr->dst));
		return -1;
	}
	return 0;
}

/* Run git in the copy with paths, NUL-separated, on its stdin. */
static int
dst_git_paths(struct snap_repo *sr, const char *const *args,
    const struct strv *paths)
{
	struct git	 g;
	struct buf	 in = BUF_INIT;
	size_t		 i;
	int		 st;

	for (i = 0; i < paths->n; i++)
		buf_add(&in, paths->v[i], strlen(paths->v[i]) + 1);
	dst_git(sr, &g);
	if ((st = git_run(&g, args, 0, &in, NULL, NULL)) > 0)
		warnx("git %s failed in the copy: %s", args[0], git_error());
	buf_free(&in);
	return st == 0 ? 0 : -1;
}

/*
 * In a sparse checkout, a file outside the patterns may be on disk
 * anyway (git then drops its skip-worktree bit).  The copy was checked
 * out by the patterns alone: check such files out there too, before the
 * patch, which may change them.
 */
static int
unsparse(struct snap_repo *sr, const struct lsfiles *l)
{
	const char *const	 ls[] = { "ls-files", "-z", "-t", NULL };
	const char *const	 noskip[] = { "update-index",
	    "--no-skip-worktree", "-z", "--stdin", NULL };
	const char *const	 checkout[] = { "checkout-index", "-f", "-z",
	    "--stdin", NULL };
	struct strv		 want = STRV_INIT, flagged = STRV_INIT;
	struct buf		 out = BUF_INIT;
	struct stat		 st;
	struct git		 g;
	const char		*p, *end, *path;
	char			*sp;
	size_t			 k = 0;
	int			 ret = 0;

	dst_git(sr, &g);
	if (git_run(&g, ls, 0, NULL, &out, NULL) != 0) {
		warnx("git ls-files failed in the copy: %s", git_error());
		buf_free(&out);
		return -1;
	}
	for (k = 0; k < l->flagged.n; k++)
		strv_push(&flagged, lsfiles_entry_path(l->flagged.v[k]));
	/* Both lists are in index order: walk them together. */
	for (k = 0, p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if (p[0] != 'S' || p[1] != ' ')
			continue;
		path = p + 2;
		while (k < flagged.n && strcmp(flagged.v[k], path) < 0)
			k++;
		if (k < flagged.n && strcmp(flagged.v[k], path) == 0)
			continue;	/* skip-worktree in the source too */
		sp = xasprintf("%s/%s", sr->src, path);
		if (lstat(sp, &st) == 0)
			strv_push(&want, path);
		free(sp);
	}
	if (want.n > 0 && (dst_git_paths(sr, noskip, &want) == -1 ||
	    dst_git_paths(sr, checkout, &want) == -1))
		ret = -1;
	strv_free(&want);
	strv_free(&flagged);
	buf_free(&out);
	return ret;
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
 * Entries flagged skip-worktree or assume-unchanged are invisible to git
 * diff, yet what is on disk is what the user has: make the copy match the
 * source path by path, and tell the proof to look at them afresh -- or,
 * where the source has no file, to leave them out on both sides.
 */
static int
copy_flagged(struct snap_repo *sr, const struct lsfiles *l)
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
		r = pathcopy_copy(&pc, path, &st);
		if (r == 0) {
			strv_push(&sr->reflag, entry);
			continue;
		}
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
			    fs_type_name(st.st_mode));
		if (pathcopy_clear(&pc, path) == -1) {
			warn("cannot remove %s%s from the copy",
			    fs_vis(sr->rel), fs_vis(path));
			ret = -1;
		}
		push_removal(&sr->drop, entry);
	}
	pathcopy_close(&pc);
	return ret;
}

static int
copy_untracked(struct snap_repo *sr, const struct lsfiles *l)
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
	for (i = 0; i < l->untracked.n && ret == 0; i++) {
		path = l->untracked.v[i];
		if ((r = pathcopy_copy(&pc, path, &st)) == -1) {
			if (errno == EINVAL) {
				warnx("skipping %s%s: a %s, not a file or "
				    "symlink", fs_vis(sr->rel), fs_vis(path),
				    fs_type_name(st.st_mode));
			} else {
				warn("cannot copy %s%s", fs_vis(sr->rel),
				    fs_vis(path));
				ret = -1;
			}
		}
		if (i == 0)
			sig_test_stall("untracked");
		if ((i & 255) == 0 && sig_pending())
			ret = -1;
	}
	pathcopy_close(&pc);
	return ret;
}

/*
 * With core.fileMode false, git keeps no exec bits of its own: the copy
 * got them from HEAD.  Give it the source's, file by file.
 */
static int
copy_modes(struct snap_repo *sr, const struct lsfiles *l)
{
	struct stat	 sst, dst;
	char		*sp, *dp;
	size_t		 i;
	int		 ret = 0;

	for (i = 0; i < l->tracked.n && ret == 0; i++) {
		sp = xasprintf("%s/%s", sr->src, l->tracked.v[i]);
		dp = xasprintf("%s/%s", sr->dst, l->tracked.v[i]);
		if (lstat(sp, &sst) == 0 && S_ISREG(sst.st_mode) &&
		    lstat(dp, &dst) == 0 && S_ISREG(dst.st_mode) &&
		    (sst.st_mode & 0111) != (dst.st_mode & 0111) &&
		    chmod(dp, (dst.st_mode & 0666) | (sst.st_mode & 0111)) ==
		    -1) {
			warn("cannot set the mode of %s", fs_vis(dp));
			ret = -1;
		}
		free(sp);
		free(dp);
	}
	return ret;
}

/* Find a nested repository; 0 and its details, or -1 (no commit...). */
static int
nested_repo(const char *dir, char **gitdir, char **common, char **head)
{
	const char *const	 a[] = { "rev-parse", "--path-format=absolute",
	    "--show-toplevel", "--git-dir", "--git-common-dir", NULL };
	const char *const	 h[] = { "rev-parse", "-q", "--verify",
	    "HEAD^{commit}", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	char			*p, *top, *gd, *cd;
	int			 ret = -1;

	memset(&g, 0, sizeof(g));
	g.dir = dir;
	if (git_run(&g, a, GIT_QUIET, NULL, &out, NULL) != 0)
		goto out;
	p = out.data;
	top = strsep(&p, "\n");
	gd = strsep(&p, "\n");
	cd = strsep(&p, "\n");
	if (top == NULL || gd == NULL || cd == NULL || strcmp(top, dir) != 0)
		goto out;
	*gitdir = xstrdup(gd);
	*common = xstrdup(cd);
	buf_reset(&out);
	if (git_run(&g, h, GIT_QUIET, NULL, &out, NULL) != 0) {
		free(*gitdir);
		free(*common);
		goto out;
	}
	buf_rtrim(&out);
	*head = buf_detach(&out);
	ret = 0;
out:
	buf_free(&out);
	return ret;
}

static int
copy_nested(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	struct snap_repo	*child;
	struct stat		 st;
	char			*sp, *dp, *dotgit, *gitdir, *common, *head;
	size_t			 i;
	int			 ret = 0, isrepo, fd, dfd;

	for (i = 0; i < l->nested.n && ret == 0; i++) {
		const char	*np = l->nested.v[i];

		sp = xasprintf("%s/%s", sr->src, np);
		dp = xasprintf("%s/%s", sr->dst, np);
		dotgit = xasprintf("%s/.git", sp);
		if (lstat(sp, &st) == -1 || !S_ISDIR(st.st_mode)) {
			/* Removed in the source: an empty directory left
			 * by the checkout goes too. */
			(void)rmdir(dp);
			goto next;
		}
		isrepo = lstat(dotgit, &st) == 0;
		/* Walked from the copy's root: no symlink in it is followed. */
		if ((fd = open(sr->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
		    -1 || (dfd = fs_open_dir(fd, np, 1, 0777)) == -1) {
			warn("cannot create %s", fs_vis(dp));
			if (fd != -1)
				close(fd);
			ret = -1;
			goto next;
		}
		close(dfd);
		close(fd);
		if (!isrepo)
			goto next;	/* uninitialized: empty, as here */
		if (nested_repo(sp, &gitdir, &common, &head) == -1) {
			warnx("leaving out %s%s: a nested repository without "
			    "a commit checked out", fs_vis(sr->rel),
			    fs_vis(np));
			strv_push(&sr->exclude, np);
			goto next;
		}
		child = xcalloc(1, sizeof(*child));
		child->src = sp;
		child->dst = dp;
		sp = dp = NULL;
		child->gitdir = gitdir;
		child->common = common;
		child->head = head;
		child->objects = xasprintf("%s/objects", common);
		child->rel = xasprintf("%s%s/", sr->rel, np);
		s->repos = xreallocarray(s->repos, s->nrepos + 1,
		    sizeof(*s->repos));
		s->repos[s->nrepos++] = child;
		{
			char	*idx = xasprintf("%s/index", gitdir);

			child->index = rundir_index(s->rd, idx);
			free(idx);
		}
		if (child->index == NULL || copy_repo(s, child) == -1)
			ret = -1;
next:
		free(sp);
		free(dp);
		free(dotgit);
	}
	return ret;
}

static int
copy_repo(struct snapshot *s, struct snap_repo *sr)
{
	struct lsfiles	l;
	struct git	g;
	long long	t;
	int		ret = -1;

	src_git(sr, &g);
	if (lsfiles_read(&l, &g) == -1)
		return -1;
	if (strlen(sr->dst) + 1 + l.maxlen >= PATH_MAX) {
		warnx("a path in %s is too long for a copy in %s: %zu bytes "
		    "with the copy's prefix, the limit is %d; set TMPDIR to a "
		    "shorter directory", fs_vis(sr->src), fs_vis(s->rd->top),
		    strlen(sr->dst) + 1 + l.maxlen, PATH_MAX - 1);
		goto out;
	}
	if (repo_settings(sr, l.sparse) == -1)
		goto out;
	t = spawn_now_ms();
	if (sig_pending() || add_worktree(s, sr) == -1)
		goto out;
	if (sr->sparse && unsparse(sr, &l) == -1)
		goto out;
	s->ms[SNAP_CHECKOUT] += spawn_now_ms() - t;
	sig_test_stall("checkout");
	t = spawn_now_ms();
	{
		struct git	dg;

		dst_git(sr, &dg);
		if (sig_pending() || patch_replay(&g, &dg, sr->head, NULL) ==
		    -1)
			goto out;
	}
	s->ms[SNAP_APPLY] += spawn_now_ms() - t;
	sig_test_stall("apply");
	t = spawn_now_ms();
	if (sig_pending() || copy_flagged(sr, &l) == -1)
		goto out;
	if (sig_pending() || copy_untracked(sr, &l) == -1)
		goto out;
	if (!sr->filemode && (sig_pending() || copy_modes(sr, &l) == -1))
		goto out;
	s->ms[SNAP_UNTRACKED] += spawn_now_ms() - t;
	if (sig_pending() || copy_nested(s, sr, &l) == -1)
		goto out;
	ret = 0;
out:
	lsfiles_free(&l);
	return ret;
}

static int
prove(struct snapshot *s)
{
	struct treeid_req	 q = TREEID_INIT;
	struct snap_repo	*sr;
	struct strv		 paths = STRV_INIT, edits = STRV_INIT;
	struct git		 g;
	char			*a = NULL, *b = NULL, *ci, tag[32];
	size_t			 i, j;

	for (i = 0; i < s->nrepos; i++) {
		sr = s->repos[i];
		strv_clear(&edits);
		strv_pushv(&edits, sr->drop.v);
		strv_pushv(&edits, sr->reflag.v);
		q.scratch = s->rd->scratch;
		q.objdir = s->rd->objects;
		q.alternates = sr->objects;
		q.edits = &edits;
		q.exclude = &sr->exclude;

		src_git(sr, &g);
		q.git = &g;
		q.index = sr->index;
		q.force = 0;
		snprintf(tag, sizeof(tag), "src%zu", i);
		if ((a = treeid_compute(&q, tag)) == NULL)
			goto fail;
		/* Nothing git ignores is ever in the copy, so a tracked
		 * file that an ignore rule matches counts there too. */
		dst_git(sr, &g);
		ci = xasprintf("%s/index", sr->dst_gitdir);
		q.index = ci;
		q.force = 1;
		snprintf(tag, sizeof(tag), "copy%zu", i);
		b = treeid_compute(&q, tag);
		free(ci);
		if (b == NULL)
			goto fail;
		if (strcmp(a, b) != 0) {
			warnx("the copy is not the working state: tree %.12s "
			    "in %s, %.12s in the copy; refusing to verify",
			    a, fs_vis(sr->src), b);
			if (treeid_diff(&q, a, b, &paths) == 0) {
				for (j = 0; j < paths.n && j < 20; j++)
					fprintf(stderr, "\tdiffers: %s%s\n",
					    fs_vis(sr->rel),
					    fs_vis(paths.v[j]));
				if (paths.n > 20)
					fprintf(stderr, "\t... and %zu more\n",
					    paths.n - 20);
			}
			goto fail;
		}
		if (i == 0)
			s->tree = xstrdup(a);
		free(a);
		free(b);
		a = b = NULL;
	}
	strv_free(&paths);
	strv_free(&edits);
	return 0;
fail:
	free(a);
	free(b);
	strv_free(&paths);
	strv_free(&edits);
	return -1;
}

int
snapshot_create(struct snapshot *s, struct rundir *rd, const struct repo *r,
    int flags)
{
	struct snap_repo	*sr;
	const char		*name;
	long long		 t;

	memset(s, 0, sizeof(*s));
	s->rd = rd;
	name = fs_basename(r->top);
	if (*name == '\0' || strcmp(name, ".forge") == 0)
		name = "tree";
	s->copy = xasprintf("%s/%s", rd->top, name);

	sr = xcalloc(1, sizeof(*sr));
	sr->src = xstrdup(r->top);
	sr->gitdir = xstrdup(r->gitdir);
	sr->common = xstrdup(r->common);
	sr->objects = xstrdup(r->objects);
	sr->head = xstrdup(r->head);
	sr->dst = xstrdup(s->copy);
	sr->rel = xstrdup("");
	s->repos = xreallocarray(NULL, 1, sizeof(*s->repos));
	s->repos[0] = sr;
	s->nrepos = 1;
	{
		char	*idx = repo_index_path(r);

		sr->index = rundir_index(rd, idx);
		free(idx);
	}
	if (sr->index == NULL || copy_repo(s, sr) == -1)
		return -1;
	sig_test_stall("proof");
	t = spawn_now_ms();
	if (!(flags & SNAP_NOCHECK) && (sig_pending() || prove(s) == -1))
		return -1;
	s->ms[SNAP_PROOF] = spawn_now_ms() - t;
	return 0;
}

void
snapshot_free(struct snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nrepos; i++)
		sr_free(s->repos[i]);
	free(s->repos);
	free(s->copy);
	free(s->tree);
	memset(s, 0, sizeof(*s));
}

char *
snapshot_source_tree(struct rundir *rd, const struct repo *r)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	struct lsfiles		 l;
	struct git		 g;
	struct stat		 st;
	char			*idx, *tree = NULL, *p;
	size_t			 i;

	if ((idx = repo_index_path(r)) == NULL)
		return NULL;
	p = idx;
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
	/* As for a copy: flagged entries are taken as they are on disk. */
	for (i = 0; i < l.flagged.n; i++) {
		p = xasprintf("%s/%s", r->top,
		    lsfiles_entry_path(l.flagged.v[i]));
		if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			strv_push(&edits, l.flagged.v[i]);
		else
			push_removal(&edits, l.flagged.v[i]);
		free(p);
	}
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
