/* The repositories nested in a copy: found, and each copied in turn. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_vis.h"
#include "fs.h"
#include "git.h"
#include "lsfiles.h"
#include "repo.h"
#include "rundir.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "source.h"
#include "xmalloc.h"

/* Is there no symlink, nor anything else but a directory, on the way
 * to path below top?  (Nothing at all on the way is fine.) */
static int
real_dirs(const char *top, const char *path)
{
	const char	*slash;
	char		*dir;
	int		 root, fd, r;

	if ((slash = strrchr(path, '/')) == NULL)
		return 1;
	if ((root = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 1;
	dir = xstrndup(path, (size_t)(slash - path));
	fd = fs_walk_dir(root, dir, 0, 0);
	r = fd != -1 || errno != ENOTDIR;
	free(dir);
	close(root);
	if (fd != -1)
		close(fd);
	return r;
}

/* Said, and listed: the copy is partial. */
static void
left_out(struct snapshot *s, const struct snap_repo *sr, const char *path,
    const char *why)
{
	warnx("leaving out %s%s: %s", fs_vis(sr->rel), fs_vis(path), why);
	strv_pushf(&s->left_out, "%s%s", sr->rel, path);
	strv_push(&s->left_out_why, why);
}

/*
 * Find the gitlinks and nested repositories a repository holds, before
 * its proof starts: one without a commit is left out of both.
 */
void
snapshot_nested_find(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	struct nested	*n;
	struct stat	 st;
	char		*sp, *dotgit;
	size_t		 i;

	sr->nested = xcalloc(l->nested.n, sizeof(*sr->nested));
	for (i = 0; i < l->nested.n; i++) {
		/* Below a symlink (or a file) in the working tree, it is no
		 * repository of the working state's, and no path of it:
		 * what is there is the symlink's to copy. */
		if (!real_dirs(sr->src, l->nested.v[i]))
			continue;
		n = &sr->nested[sr->nnested++];
		n->path = xstrdup(l->nested.v[i]);
		sp = xasprintf("%s/%s", sr->src, n->path);
		dotgit = xasprintf("%s/.git", sp);
		if (lstat(sp, &st) == 0 && S_ISDIR(st.st_mode) &&
		    lstat(dotgit, &st) == 0) {
			if (repo_nested(sp, &n->gitdir, &n->common,
			    &n->head) == 0)
				n->isrepo = 1;
			else {
				left_out(s, sr, n->path, "a nested "
				    "repository without a commit checked out");
				strv_push(&sr->exclude, n->path);
			}
		}
		free(sp);
		free(dotgit);
	}
}

/* Remove path below top if it is an empty directory, and then each
 * directory above it that this leaves empty (a fresh copy has none),
 * no symlink on the way followed. */
static void
drop_empty(const char *top, const char *path)
{
	char	*dir, *slash;
	int	 root, fd, r;

	if ((root = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	dir = xstrdup(path);
	do {
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		if ((fd = slash != NULL ? fs_walk_dir(root, dir, 0, 0) :
		    fcntl(root, F_DUPFD_CLOEXEC, 3)) == -1)
			break;
		r = unlinkat(fd, slash != NULL ? slash + 1 : dir,
		    AT_REMOVEDIR);
		close(fd);
	} while (r == 0 && slash != NULL);
	free(dir);
	close(root);
}

/* Each nested repository found copied as a repository of the copy of
 * its own (by copy), or left an empty directory. */
int
snapshot_nested_copy(struct snapshot *s, struct snap_repo *sr,
    snapshot_copy_fn copy)
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
			 * by the checkout goes too -- in the copy, no
			 * symlink on the way followed. */
			drop_empty(sr->dst, n->path);
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
		if (child->index == NULL || copy(s, child) == -1)
			ret = -1;
next:
		free(sp);
		free(dp);
	}
	return ret;
}

/*
 * The submodules a copy of a tree records, each initialized one copied
 * from its local repository at the commit its gitlink names; the others
 * stay empty directories, as in a clone without submodule update.
 */
int
snapshot_nested_gitlinks(struct snapshot *s, struct snap_repo *sr,
    snapshot_copy_fn copy)
{
	struct snap_repo	*child;
	struct strv		 links = STRV_INIT;
	struct lsfiles_entry	 e;
	struct git		 dg, ng;
	const char		*path;
	char			*sp, *gd, *cd, *hd, *tree, *why, *oid;
	size_t			 i;
	int			 ret = 0;

	snapshot_repo_dst_git(sr, &dg);
	if (source_gitlinks(&dg, &links) == -1)
		return -1;
	for (i = 0; i < links.n && ret == 0; i++) {
		if (lsfiles_entry_parse(links.v[i], &e) == -1)
			continue;
		path = e.path;
		sp = xasprintf("%s/%s", sr->src, path);
		if (repo_nested(sp, &gd, &cd, &hd) == -1) {
			free(sp);
			left_out(s, sr, path, "a submodule not initialized "
			    "here");
			/* An empty directory, in a reused copy too. */
			if (s->reused && sr == s->repos[0] &&
			    snapshot_repo_empty_nested(sr->dst, path) == -1)
				ret = -1;
			continue;
		}
		free(hd);
		memset(&ng, 0, sizeof(ng));
		ng.dir = sp;
		ng.gitdir = gd;
		oid = xstrndup(e.oid, e.oidlen);
		if ((tree = source_commit_tree(&ng, oid)) == NULL) {
			why = xasprintf("its repository has no commit %.12s",
			    oid);
			left_out(s, sr, path, why);
			free(why);
			free(oid);
			free(sp);
			free(gd);
			free(cd);
			continue;
		}
		child = xcalloc(1, sizeof(*child));
		child->src = sp;
		child->dst = xasprintf("%s/%s", sr->dst, path);
		child->gitdir = gd;
		child->common = cd;
		child->head = oid;
		child->want = tree;
		child->objects = xasprintf("%s/objects", child->common);
		child->rel = xasprintf("%s%s/", sr->rel, path);
		s->repos = xreallocarray(s->repos, s->nrepos + 1,
		    sizeof(*s->repos));
		s->repos[s->nrepos++] = child;
		if (copy(s, child) == -1)
			ret = -1;
	}
	strv_free(&links);
	return ret;
}
