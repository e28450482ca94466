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
#include <time.h>
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
#include "timeutil.h"
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
	struct strv	 exclude;	/* nested repositories left out */
	struct strv	 edits;		/* flagged entries, for the proof */
	struct git	 src_git;
	struct treeid_req src_req;	/* the source's tree, computed ... */
	struct treeid_job src_job;	/* ... while the copy is built */
	int		 src_started;
	struct git	 dst_git;
	struct strv	 prep_valid;	/* the copy's index, made ready ... */
	struct strv	 prep_edits;
	struct treeid_req prep_req;	/* ... for its side of the proof ... */
	struct treeid_job prep_job;	/* ... as soon as the source's is */
	int		 prep_started;
	char		*dst_index;
	int		 index_ready;	/* nothing more will write it */
	size_t		 id;		/* names its temporary files */
	struct nested	*nested;	/* nested repositories found */
	size_t		 nnested;
	int		 filemode;	/* core.fileMode */
	int		 sparse;	/* a sparse checkout */
	struct timespec	 checked_out;	/* when git worktree add was done */
	struct strv	 entries;	/* the source's index entries */
};

/* A gitlink or untracked nested repository, as found in the source. */
struct nested {
	char		*path;		/* below its parent's working tree */
	int		 isrepo;	/* initialized, with a commit */
	char		*gitdir, *common, *head;
};

static int	copy_repo(struct snapshot *, struct snap_repo *);

static void
sr_free(struct snap_repo *sr)
{
	size_t	i;

	if (sr->src_started)
		treeid_free(&sr->src_job);
	if (sr->prep_started)
		treeid_free(&sr->prep_job);
	strv_free(&sr->prep_valid);
	strv_free(&sr->prep_edits);
	free(sr->dst_index);
	for (i = 0; i < sr->nnested; i++) {
		free(sr->nested[i].path);
		free(sr->nested[i].gitdir);
		free(sr->nested[i].common);
		free(sr->nested[i].head);
	}
	free(sr->nested);
	free(sr->src);
	free(sr->gitdir);
	free(sr->common);
	free(sr->objects);
	free(sr->index);
	free(sr->head);
	free(sr->dst);
	free(sr->dst_gitdir);
	free(sr->rel);
	strv_free(&sr->exclude);
	strv_free(&sr->edits);
	strv_free(&sr->entries);
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
	(void)git_run(&g, a, 0, NULL, &out, NULL);
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
	if (git_run(&g, (const char *const *)args.v, 0, NULL, &out,
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
 * source path by path (flagged_edits() tells the proof the same).
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
			    fs_type_name(st.st_mode));
		if (pathcopy_clear(&pc, path) == -1) {
			warn("cannot remove %s%s from the copy",
			    fs_vis(sr->rel), fs_vis(path));
			ret = -1;
		}
	}
	pathcopy_close(&pc);
	return ret;
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
copy_modes(struct snap_repo *sr)
{
	struct stat	 sst, dst;
	const char	*path;
	char		*sp, *dp;
	size_t		 i;
	int		 ret = 0;

	for (i = 0; i < sr->entries.n && ret == 0; i++) {
		path = lsfiles_entry_path(sr->entries.v[i]);
		sp = xasprintf("%s/%s", sr->src, path);
		dp = xasprintf("%s/%s", sr->dst, path);
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
	if (git_run(&g, a, 0, NULL, &out, NULL) != 0)
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
	if (git_run(&g, h, 0, NULL, &out, NULL) != 0) {
		free(*gitdir);
		free(*common);
		*gitdir = *common = NULL;
		goto out;
	}
	buf_rtrim(&out);
	*head = buf_detach(&out);
	ret = 0;
out:
	buf_free(&out);
	return ret;
}

/*
 * Find the gitlinks and nested repositories a repository holds, before
 * its proof starts: one without a commit is left out of both.
 */
static void
find_nested(struct snap_repo *sr, const struct lsfiles *l)
{
	struct nested	*n;
	struct stat	 st;
	char		*sp, *dotgit;
	size_t		 i;

	sr->nested = xcalloc(l->nested.n, sizeof(*sr->nested));
	for (i = 0; i < l->nested.n; i++) {
		n = &sr->nested[sr->nnested++];
		n->path = xstrdup(l->nested.v[i]);
		sp = xasprintf("%s/%s", sr->src, n->path);
		dotgit = xasprintf("%s/.git", sp);
		if (lstat(sp, &st) == 0 && S_ISDIR(st.st_mode) &&
		    lstat(dotgit, &st) == 0) {
			if (nested_repo(sp, &n->gitdir, &n->common,
			    &n->head) == 0)
				n->isrepo = 1;
			else {
				warnx("leaving out %s%s: a nested repository "
				    "without a commit checked out",
				    fs_vis(sr->rel), fs_vis(n->path));
				strv_push(&sr->exclude, n->path);
			}
		}
		free(sp);
		free(dotgit);
	}
}

static int
copy_nested(struct snapshot *s, struct snap_repo *sr)
{
	struct snap_repo	*child;
	struct nested		*n;
	struct stat		 st;
	char			*sp, *dp, *idx;
	size_t			 i;
	int			 ret = 0, fd, dfd;

	for (i = 0; i < sr->nnested && ret == 0; i++) {
		n = &sr->nested[i];
		sp = xasprintf("%s/%s", sr->src, n->path);
		dp = xasprintf("%s/%s", sr->dst, n->path);
		if (lstat(sp, &st) == -1 || !S_ISDIR(st.st_mode)) {
			/* Removed in the source: an empty directory left
			 * by the checkout goes too. */
			(void)rmdir(dp);
			goto next;
		}
		/* Walked from the copy's root: no symlink in it is followed. */
		if ((fd = open(sr->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
		    -1 || (dfd = fs_open_dir(fd, n->path, 1, 0777)) == -1) {
			warn("cannot create %s", fs_vis(dp));
			if (fd != -1)
				close(fd);
			ret = -1;
			goto next;
		}
		close(dfd);
		close(fd);
		if (!n->isrepo)
			goto next;	/* uninitialized: empty, as here */
		child = xcalloc(1, sizeof(*child));
		child->src = sp;
		child->dst = dp;
		sp = dp = NULL;
		child->gitdir = n->gitdir;
		child->common = n->common;
		child->head = n->head;
		n->gitdir = n->common = n->head = NULL;
		child->objects = xasprintf("%s/objects", child->common);
		child->rel = xasprintf("%s%s/", sr->rel, n->path);
		s->repos = xreallocarray(s->repos, s->nrepos + 1,
		    sizeof(*s->repos));
		s->repos[s->nrepos++] = child;
		idx = xasprintf("%s/index", child->gitdir);
		child->index = rundir_index(s->rd, idx);
		free(idx);
		if (child->index == NULL || copy_repo(s, child) == -1)
			ret = -1;
next:
		free(sp);
		free(dp);
	}
	return ret;
}

/*
 * Start computing the source's tree now, while git checks out the copy:
 * the proof then only waits for the copy's side.
 */
static int
start_source_proof(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	char	tag[32];

	flagged_edits(sr->src, l, &sr->edits);
	src_git(sr, &sr->src_git);
	sr->src_req.git = &sr->src_git;
	sr->src_req.index = sr->index;
	sr->src_req.scratch = s->rd->scratch;
	sr->src_req.objdir = s->rd->objects;
	sr->src_req.alternates = sr->objects;
	sr->src_req.edits = &sr->edits;
	sr->src_req.exclude = &sr->exclude;
	sr->src_req.base = sr->head;
	sr->src_req.sparse = sr->sparse;
	sr->id = s->nrepos;
	snprintf(tag, sizeof(tag), "src%zu", sr->id);
	sr->src_started = 1;
	return treeid_start(&sr->src_job, &sr->src_req, tag);
}

/*
 * The update-index --index-info lines that make git look at each path
 * afresh in the copy: the source's own entry for it, without stat data
 * (what git converts a file to can depend on the entry: line endings
 * already in the index are kept), or "0 <zeros>\tpath", removing it,
 * where the source's index has none.
 */
static void
fresh_entries(const struct snap_repo *sr, struct strv *v,
    const struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	size_t		 i, lo, hi, mid, oidlen = strlen(sr->head);
	int		 c, found;

	for (i = 0; i < paths->n; i++) {
		for (lo = 0, hi = sr->entries.n, found = 0; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if ((c = strcmp(lsfiles_entry_path(sr->entries.v[mid]),
			    paths->v[i])) == 0) {
				found = 1;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (found) {
			strv_push(v, sr->entries.v[mid]);
			continue;
		}
		buf_reset(&b);
		buf_adds(&b, "0 ");
		for (c = 0; (size_t)c < oidlen; c++)
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
static void
unchanged_entries(const struct snap_repo *sr, struct strv *v)
{
	const struct strv	 *staged = &sr->src_job.staged;
	const struct strv	 *changed = &sr->src_job.changed;
	char			**not;
	const char		 *path;
	size_t			  i, n = staged->n + changed->n;

	if (sr->sparse)
		return;
	not = xcalloc(n + 1, sizeof(*not));
	for (i = 0; i < staged->n; i++)
		not[i] = staged->v[i];
	for (i = 0; i < changed->n; i++)
		not[staged->n + i] = changed->v[i];
	qsort(not, n, sizeof(*not), cmp_str);
	for (i = 0; i < sr->entries.n; i++) {
		path = lsfiles_entry_path(sr->entries.v[i]);
		if (bsearch(&path, not, n, sizeof(*not), cmp_str) == NULL)
			strv_push(v, path);
	}
	free(not);
}

static void
stop_proofs(struct snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nrepos; i++) {
		if (s->repos[i]->src_started) {
			treeid_free(&s->repos[i]->src_job);
			s->repos[i]->src_started = 0;
		}
		if (s->repos[i]->prep_started) {
			treeid_free(&s->repos[i]->prep_job);
			s->repos[i]->prep_started = 0;
		}
	}
}

/*
 * Once the source's side knows which paths differ from HEAD, and git is
 * done with the copy's index, prepare that index for the copy's side:
 * those paths' entries lose their stat data (fresh_entries()), and the
 * others are marked as unchanged, so that git never looks at their
 * files -- forge does, in touched_since_checkout().
 */
static void
start_prep(struct snapshot *s, struct snap_repo *sr)
{
	char	tag[32];

	if (sr->prep_started || !sr->index_ready || !sr->src_started ||
	    !treeid_done(&sr->src_job) || sr->src_job.failed)
		return;
	unchanged_entries(sr, &sr->prep_valid);
	fresh_entries(sr, &sr->prep_edits, &sr->src_job.changed);
	dst_git(sr, &sr->dst_git);
	sr->dst_index = xasprintf("%s/index", sr->dst_gitdir);
	sr->prep_req.git = &sr->dst_git;
	sr->prep_req.index = sr->dst_index;
	sr->prep_req.scratch = s->rd->scratch;
	sr->prep_req.objdir = s->rd->objects;
	sr->prep_req.alternates = sr->objects;
	sr->prep_req.valid = &sr->prep_valid;
	sr->prep_req.edits = &sr->prep_edits;
	sr->prep_req.trust = 1;
	sr->prep_req.edits_only = 1;
	snprintf(tag, sizeof(tag), "prep%zu", sr->id);
	sr->prep_started = 1;
	(void)treeid_start(&sr->prep_job, &sr->prep_req, tag);
}

/* The snapshot being built, for the idle hook (spawn_set_idle()). */
static struct snapshot	*building;

static void	poll_proofs(struct snapshot *);

static void
idle_proofs(void)
{
	if (building != NULL)
		poll_proofs(building);
}

/* Move the background proofs on, between the steps of the copy. */
static void
poll_proofs(struct snapshot *s)
{
	struct snap_repo	*sr;
	size_t			 i;

	for (i = 0; i < s->nrepos; i++) {
		sr = s->repos[i];
		if (sr->src_started)
			treeid_poll(&sr->src_job);
		start_prep(s, sr);
		if (sr->prep_started)
			treeid_poll(&sr->prep_job);
	}
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
	find_nested(sr, &l);
	/* Kept for the proof: moved, not copied. */
	sr->entries = l.entries;
	memset(&l.entries, 0, sizeof(l.entries));
	if (s->check && start_source_proof(s, sr, &l) == -1)
		goto out;
	t = time_now_ms();
	if (sig_pending() || add_worktree(s, sr) == -1)
		goto out;
	/* The coarse clock: file times are taken from it, so anything
	 * written from now on is at least this recent. */
	clock_gettime(CLOCK_REALTIME_COARSE, &sr->checked_out);
	poll_proofs(s);
	if (sr->sparse && unsparse(sr, &l) == -1)
		goto out;
	sr->index_ready = 1;
	s->ms[SNAP_CHECKOUT] += time_now_ms() - t;
	sig_test_stall("checkout");
	t = time_now_ms();
	{
		struct git	dg;

		dst_git(sr, &dg);
		if (sig_pending() || patch_replay(&g, &dg, sr->head, NULL) ==
		    -1)
			goto out;
	}
	s->ms[SNAP_APPLY] += time_now_ms() - t;
	poll_proofs(s);
	sig_test_stall("apply");
	t = time_now_ms();
	if (sig_pending() || copy_flagged(sr, &l) == -1)
		goto out;
	if (sig_pending() || copy_untracked(sr, &l) == -1)
		goto out;
	if (!sr->filemode && (sig_pending() || copy_modes(sr) == -1))
		goto out;
	s->ms[SNAP_UNTRACKED] += time_now_ms() - t;
	poll_proofs(s);
	if (sig_pending() || copy_nested(s, sr) == -1)
		goto out;
	ret = 0;
out:
	lsfiles_free(&l);
	return ret;
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
touched_since_checkout(const struct snap_repo *sr, struct strv *paths,
    const struct strv *expected, struct treeid_job *job)
{
	struct stat	 st;
	struct buf	 cur = BUF_INIT;
	const char	*path, *slash;
	size_t		 i, k = 0, dlen;
	int		 root, dir = -1, c;

	root = open(sr->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_str(&cur);
	/* One lookup per file: its directory is opened once for all of
	 * its files, which the list holds together. */
	for (i = 0; i < sr->entries.n; i++) {
		/* The job's next step starts as soon as its last ends. */
		if ((i & 255) == 0)
			treeid_poll(job);
		path = lsfiles_entry_path(sr->entries.v[i]);
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
			if (!sr->sparse)
				strv_push(paths, path);
			continue;
		}
		if (not_before(&st.st_ctim, &sr->checked_out) ||
		    not_before(&st.st_mtim, &sr->checked_out))
			strv_push(paths, path);
	}
	if (dir != -1 && dir != root)
		close(dir);
	if (root != -1)
		close(root);
	buf_free(&cur);
}

static int
prove(struct snapshot *s)
{
	struct treeid_req	 q = TREEID_INIT;
	struct treeid_job	 job;
	struct snap_repo	*sr;
	struct strv		 paths = STRV_INIT, edits = STRV_INIT;
	struct git		 g;
	char			*a = NULL, *b = NULL, *ci, tag[32];
	size_t			 i, j;

	/* From here on the jobs are waited for, not moved on by the idle
	 * hook: that would end a job under treeid_finish()'s feet. */
	spawn_set_idle(NULL);
	for (i = 0; i < s->nrepos; i++) {
		sr = s->repos[i];
		if ((a = treeid_finish(&sr->src_job)) == NULL)
			goto fail;
		/*
		 * The copy's index is its checkout's, and git wrote it with
		 * the files: all "racily clean", that recent, and git would
		 * read every one of them again.  Instead, the entries of
		 * the paths where the source differs from HEAD, which forge
		 * wrote, go, and git looks at those afresh; the rest are
		 * taken as they are, without git looking at their files --
		 * once forge has seen that no other file changed since the
		 * checkout, which it does while git works.  In a sparse
		 * checkout, git looks at them and trusts their stat data
		 * instead.  Nothing git ignores is ever in the
		 * copy, so a tracked file that an ignore rule matches
		 * counts there too (-f).
		 */
		/* The prepared index: usually ready by now. */
		start_prep(s, sr);
		if (!sr->prep_started ||
		    (ci = treeid_finish(&sr->prep_job)) == NULL)
			goto fail;
		strv_clear(&edits);
		dst_git(sr, &g);
		q.git = &g;
		q.index = ci;
		q.scratch = s->rd->scratch;
		q.objdir = s->rd->objects;
		q.alternates = sr->objects;
		q.edits = &edits;
		q.exclude = &sr->exclude;
		q.force = 1;
		q.trust = 1;
		q.sparse = sr->sparse;
		snprintf(tag, sizeof(tag), "copy%zu", i);
		if (treeid_start(&job, &q, tag) == 0) {
			strv_clear(&paths);
			touched_since_checkout(sr, &paths, &sr->src_job.changed,
			    &job);
			b = treeid_finish(&job);
		}
		treeid_free(&job);
		if (b != NULL && paths.n > 0) {
			/* Something else changed too: look at it as well. */
			free(b);
			fresh_entries(sr, &edits, &paths);
			snprintf(tag, sizeof(tag), "copy%zu-again", i);
			b = treeid_compute(&q, tag);
		}
		strv_clear(&paths);
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
	s->check = !(flags & SNAP_NOCHECK);
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
	building = s;
	spawn_set_idle(idle_proofs);
	if (sr->index == NULL || copy_repo(s, sr) == -1)
		goto fail;
	sig_test_stall("proof");
	t = time_now_ms();
	if (s->check && (sig_pending() || prove(s) == -1))
		goto fail;
	s->ms[SNAP_PROOF] = time_now_ms() - t;
	spawn_set_idle(NULL);
	building = NULL;
	stop_proofs(s);
	return 0;
fail:
	spawn_set_idle(NULL);
	building = NULL;
	stop_proofs(s);
	return -1;
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
