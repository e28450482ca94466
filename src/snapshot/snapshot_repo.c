/* One repository of a copy: its gits, conversions, submodules' directories. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "convert.h"
#include "entlist.h"
#include "fs.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "git.h"
#include "hash.h"
#include "lsfiles.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "strv.h"
#include "xmalloc.h"

/*
 * The git context for reading a source repository's working state,
 * through the private copy of its index: git diff may refresh an index
 * and write it back, and the user's must stay as it is.
 */
void
snapshot_repo_src_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->src;
	g->gitdir = sr->gitdir;
	g->worktree = sr->src;
	g->index = sr->index;
}

void
snapshot_repo_dst_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->dst;
	g->gitdir = sr->dst_gitdir;
	g->worktree = sr->dst;
}

/* An attributes file among entries (or NULL) or paths (or NULL): at the
 * top or below. */
int
snapshot_repo_has_attributes(const struct entlist *entries,
    const struct strv *paths)
{
	size_t	i;

	for (i = 0; entries != NULL && i < entries->n; i++)
		if (convert_is_attributes(entlist_path(entries, i)))
			return 1;
	for (i = 0; paths != NULL && i < paths->n; i++)
		if (convert_is_attributes(paths->v[i]))
			return 1;
	return 0;
}

/*
 * git reads every attributes file in a directory above a file it
 * hashes or writes, whether the working state has it or ignores it;
 * no copy has an ignored one.  Is there one that l does not list?  Each
 * directory above what l lists is looked in (a stat each: a few hundred
 * at 20,000 files); one that cannot be looked in counts.
 */
int
snapshot_repo_attributes_on_disk(const struct snap_repo *sr,
    const struct lsfiles *l)
{
	struct strv	 dirs = STRV_INIT;
	struct buf	 last = BUF_INIT;
	struct stat	 st;
	char		*rel, *p;
	size_t		 i;
	int		 found = 0;

	strv_pool(&dirs);
	for (i = 0; i < l->entries.n; i++)
		strv_push_dirs(&dirs, &last, entlist_path(&l->entries, i));
	buf_reset(&last);
	for (i = 0; i < l->untracked.n; i++)
		strv_push_dirs(&dirs, &last, l->untracked.v[i]);
	strv_sort_uniq(&dirs);
	for (i = 0; !found && i < dirs.n; i++) {
		rel = *dirs.v[i] != '\0' ? xasprintf("%s/.gitattributes",
		    dirs.v[i]) : xstrdup(".gitattributes");
		p = xasprintf("%s/%s", sr->src, rel);
		found = (lstat(p, &st) == 0 || (errno != ENOENT &&
		    errno != ENOTDIR)) && entlist_find(&l->entries, rel) == -1 &&
		    !strv_sorted_has(&l->untracked, rel);
		free(p);
		free(rel);
	}
	strv_free(&dirs);
	buf_free(&last);
	return found;
}

/*
 * Can git convert what it reads or writes (line endings, filters,
 * ident, an encoding)?  Then a file's bytes on disk may differ from
 * what a checkout would write while its blob is the same, which a tree
 * id cannot see: the copy is then written whole, as git writes it.
 * Any attributes file counts, whatever it says.
 */
int
snapshot_repo_may_convert(const struct snap_repo *sr, const struct lsfiles *l)
{
	return sr->convert || snapshot_repo_has_attributes(&sr->entries,
	    &l->untracked) ||
	    convert_outside(sr->common);
}

void
snapshot_repo_reuse_copy(struct snapshot *s, const struct snap_repo *sr,
    struct reuse_copy *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->copy = sr->dst;
	rc->common = sr->common;
	rc->run = s->rd->run;
	rc->scratch = s->rd->scratch;
	rc->head = sr->head;
	rc->keep_ignored = s->incremental;
	rc->idle = &s->idle;
}

int
snapshot_repo_parent_at(int root, const char *path, const char **base)
{
	const char	*slash;
	char		*dir;
	int		 fd;

	if ((slash = strrchr(path, '/')) == NULL) {
		*base = path;
		return fcntl(root, F_DUPFD_CLOEXEC, 3);
	}
	dir = xstrndup(path, (size_t)(slash - path));
	fd = fs_walk_dir(root, dir, 0, 0);
	free(dir);
	*base = slash + 1;
	return fd;
}

/*
 * A reused copy's directory at path (a submodule not initialized) made
 * a fresh copy's: whatever a command left in it removed -- no symlink
 * followed, no mount crossed -- and the directory made again as a
 * checkout makes it.  -1 with a message: the copy is not to be used.
 */
int
snapshot_repo_empty_nested(const char *top, const char *path)
{
	const char	*base;
	int		 root, fd, r = 0;

	if ((root = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(top));
		return -1;
	}
	fd = snapshot_repo_parent_at(root, path, &base);
	if (fd == -1 && errno != ENOENT)
		r = -1;
	else if (fd != -1 && fs_remove_at(fd, base) == -1)
		r = -1;
	if (fd != -1)
		close(fd);
	if (r == 0 && (fd = fs_open_dir(root, path, 1, 0777)) != -1)
		close(fd);
	else
		r = -1;
	if (r == -1)
		warn("cannot empty the submodule's directory %s in the reused "
		    "copy", fs_vis(path));
	close(root);
	return r;
}

int
snapshot_repo_empty_gitlinks(struct snap_repo *sr, const struct lsfiles *l)
{
	size_t	i;

	for (i = 0; i < l->gitlinks.n; i++)
		if (snapshot_repo_empty_nested(sr->dst,
		    lsfiles_entry_path(l->gitlinks.v[i])) == -1)
			return -1;
	return 0;
}

/*
 * A nested repository's place while its copy is parked: named by its
 * path below the top copy, which is all that picks it up again -- its
 * registration must then name the copy there back (registration.h).
 */
char *
snapshot_repo_nested_name(const struct snap_repo *sr)
{
	struct hash	h;
	unsigned char	md[HASH_MAX];
	char		hex[2 * HASH_MAX + 1];

	hash_init(&h, 20);
	hash_update(&h, sr->rel, strlen(sr->rel));
	hash_final(&h, md);
	hash_hex(md, 20, hex);
	return xstrdup(hex);
}

void
snapshot_repo_rules_said(const struct snap_repo *sr, const struct strv *dropped)
{
	if (dropped->n > 0)
		fprintf(stderr, "forge: removed from the incremental copy %zu "
		    "file%s of its own that git reads as instructions "
		    "(%s%s%s)\n",
		    dropped->n, dropped->n == 1 ? "" : "s", fs_vis(sr->rel),
		    fs_vis(dropped->v[0]), dropped->n > 1 ? ", ..." : "");
}

/* Is path in v? */
static int
listed(const struct strv *v, const char *path)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], path) == 0)
			return 1;
	return 0;
}

const char *
snapshot_repo_not_reusable(const struct snap_repo *sr,
    const struct lsfiles *l)
{
	size_t	i;

	if (sr->sparse)
		return "a sparse checkout";
	if (sr->nolinks)
		return "core.symlinks is false";
	if (sr->ignorestat)
		return "core.ignoreStat is set";
	if (sr->unlisted_attrs)
		return "an ignored .gitattributes, which git reads and no "
		    "copy has";
	for (i = 0; i < l->nested.n; i++)
		if (listed(&l->unmerged, l->nested.v[i]))
			return "a conflict over a submodule";
	return NULL;
}
