/* The source of a copy: the working state, the staged tree, a commit. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "convert.h"
#include "fs_vis.h"
#include "git.h"
#include "hash.h"
#include "lsfiles.h"
#include "repo.h"
#include "rundir.h"
#include "source.h"
#include "strv.h"
#include "sum.h"
#include "treeid.h"
#include "xmalloc.h"

void
source_init(struct source *s)
{
	memset(s, 0, sizeof(*s));
	s->kind = SOURCE_WORKTREE;
}

void
source_free(struct source *s)
{
	free(s->commit);
	free(s->tree);
	s->commit = s->tree = NULL;
}

const char *
source_mode(const struct source *s)
{
	switch (s->kind) {
	case SOURCE_STAGED:
		return "staged";
	case SOURCE_REV:
		return "rev";
	default:
		return NULL;
	}
}

/* Refuse an index that holds a conflict: no commit can be made of it. */
static int
unmerged(const struct git *g)
{
	struct strv	 paths = STRV_INIT;
	struct buf	 err = BUF_INIT;
	size_t		 i;
	int		 st;

	if ((st = lsfiles_unmerged(g, &paths, &err)) != 0) {
		if (st > 0)
			warnx("cannot read the index: git ls-files: %s",
			    git_why(&err, st));
		strv_free(&paths);
		buf_free(&err);
		return -1;
	}
	if (paths.n > 0)
		warnx("the index has unmerged entries: a commit "
		    "cannot be made of it; resolve them and git add "
		    "the result, then verify again");
	for (i = 0; i < paths.n && i < 20; i++)
		fprintf(stderr, "\tunmerged: %s\n", fs_vis(paths.v[i]));
	if (paths.n > 20)
		fprintf(stderr, "\t... and %zu more\n", paths.n - 20);
	i = paths.n;
	strv_free(&paths);
	buf_free(&err);
	return i > 0 ? -1 : 0;
}

static char *
tree_of(const struct repo *r, const char *commit)
{
	struct git	 g;
	struct buf	 out = BUF_INIT;
	char		*spec;
	int		 st;

	repo_git(r, &g);
	g.index = NULL;
	spec = xasprintf("%s^{tree}", commit);
	{
		const char *const	a[] = { "rev-parse", "--verify", "-q",
		    "--end-of-options", spec, NULL };

		st = git_run(&g, a, 0, NULL, &out, NULL);
	}
	free(spec);
	buf_rtrim(&out);
	if (st != 0 || out.len == 0) {
		warnx("cannot read the tree of commit %s", commit);
		buf_free(&out);
		return NULL;
	}
	return buf_detach(&out);
}

/* git write-tree of a private copy of the index commit would record. */
static char *
staged_tree(const struct repo *r, struct rundir *rd)
{
	const char *const	 a[] = { "write-tree", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			*path, *idx, *tree = NULL;
	int			 st;

	path = repo_index_path(r);
	idx = rundir_index(rd, path);
	free(path);
	if (idx == NULL)
		return NULL;
	repo_git(r, &g);
	g.index = idx;
	if (unmerged(&g) == -1)
		goto out;
	if ((st = git_run(&g, a, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot make a tree of the index: git "
			    "write-tree: %s", git_why(&err, st));
		goto out;
	}
	buf_rtrim(&out);
	tree = buf_detach(&out);
out:
	free(idx);
	buf_free(&out);
	buf_free(&err);
	return tree;
}

/* Each string of v into h, with its NUL, after a tag. */
static void
hash_strv(struct hash *h, const char *tag, const struct strv *v)
{
	size_t	i;

	hash_update(h, tag, strlen(tag) + 1);
	for (i = 0; i < v->n; i++)
		hash_update(h, v->v[i], strlen(v->v[i]) + 1);
}

/* The same of entries, each as a "mode oid\tpath" line. */
static void
hash_entlist(struct hash *h, const char *tag, const struct entlist *el)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	hash_update(h, tag, strlen(tag) + 1);
	for (i = 0; i < el->n; i++) {
		(void)entlist_line(el, i, &b);
		hash_update(h, b.data, b.len + 1);
	}
	buf_free(&b);
}

/*
 * The permission bits of each of paths (below top, no symlink followed)
 * as a copy takes them (fs.h's fs_copy_entry()), into h after a
 * tag: what a file's mode is in the copy, where git does not give it
 * one.  A path that is no regular file (a symlink, gone) has none.
 */
static void
hash_modes(struct hash *h, const char *tag, int top, const struct strv *v,
    int entries)
{
	struct stat	 st;
	const char	*path;
	char		 m[8];
	size_t		 i;

	hash_update(h, tag, strlen(tag) + 1);
	for (i = 0; i < v->n; i++) {
		path = entries ? lsfiles_entry_path(v->v[i]) : v->v[i];
		if (top == -1 || fstatat(top, path, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode))
			strlcpy(m, "-", sizeof(m));
		else
			snprintf(m, sizeof(m), "%03o",
			    (unsigned)(st.st_mode & 0777));
		hash_update(h, path, strlen(path) + 1);
		hash_update(h, m, strlen(m) + 1);
	}
}

/*
 * Whether git may convert the working state's files, what by (outside
 * the tree: the tree id holds what is inside), and which files a copy
 * takes as they are on disk.  No digest if git could not say.
 */
static void
state_convert(struct source_state *ss, const struct repo *r,
    const struct lsfiles *l)
{
	struct git	 g;
	size_t		 i;
	int		 on;

	repo_git(r, &g);
	g.index = NULL;
	if ((ss->convert = convert_digest(&g, r->common, NULL, &on)) == NULL)
		return;
	for (i = 0; !on && i < l->entries.n; i++)
		on = convert_is_attributes(entlist_path(&l->entries, i));
	for (i = 0; !on && i < l->untracked.n; i++)
		on = convert_is_attributes(l->untracked.v[i]);
	ss->converts = on;
	strv_pushv(&ss->as_is, l->untracked.v);
	for (i = 0; i < l->flagged.n; i++)
		strv_push(&ss->as_is, lsfiles_entry_path(l->flagged.v[i]));
	strv_pushv(&ss->as_is, l->unmerged.v);
}

int
source_state_read(struct source_state *ss, const struct repo *r,
    struct rundir *rd)
{
	struct lsfiles	 l;
	struct git	 g;
	struct hash	 h;
	unsigned char	 raw[32];
	char		*path, *idx, hex[2 * 32 + 1];
	int		 top, ret;

	memset(ss, 0, sizeof(*ss));
	path = repo_index_path(r);
	idx = rundir_index(rd, path);
	free(path);
	if (idx == NULL)
		return -1;
	repo_git(r, &g);
	g.index = idx;
	ret = lsfiles_read(&l, &g);
	free(idx);
	if (ret == -1)
		return -1;
	ss->nested = l.nested.n > 0;
	ss->sparse = l.sparse;
	/* What the copy's index is to stage, as git lists it. */
	(void)hash_init(&h, 32);
	hash_entlist(&h, "entries", &l.entries);
	hash_strv(&h, "gitlinks", &l.gitlinks);
	hash_strv(&h, "skips", &l.skips);
	hash_strv(&h, "assumes", &l.assumes);
	hash_strv(&h, "unmerged", &l.unmerged);
	hash_strv(&h, "conflicts", &l.conflicts);
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	ss->staging = xstrdup(hex);
	/* The modes a copy of them has. */
	top = open(r->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	(void)hash_init(&h, 32);
	hash_modes(&h, "untracked", top, &l.untracked, 0);
	hash_modes(&h, "flagged", top, &l.flagged, 1);
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	ss->modes = xstrdup(hex);
	if (top != -1)
		close(top);
	state_convert(ss, r, &l);
	lsfiles_free(&l);
	return 0;
}

void
source_state_free(struct source_state *ss)
{
	free(ss->staging);
	free(ss->modes);
	ss->staging = ss->modes = NULL;
	free(ss->convert);
	ss->convert = NULL;
	strv_free(&ss->as_is);
}

/* A file's bytes into s, or what it is if it is no file. */
static void
sum_path(struct sum *s, const char *top, const char *path)
{
	struct stat	 st;
	char		*p, to[PATH_MAX];
	ssize_t		 n;

	p = xasprintf("%s/%s", top, path);
	sum_str(s, path);
	if (lstat(p, &st) == -1)
		sum_str(s, "none");
	else if (S_ISLNK(st.st_mode) && (n = readlink(p, to,
	    sizeof(to))) >= 0) {
		sum_str(s, "link");
		sum_add(s, to, (size_t)n);
	} else if (!S_ISREG(st.st_mode))
		sum_str(s, "other");
	else {
		sum_str(s, "file");
		if (sum_file(s, p) == -1)
			sum_str(s, "unreadable");
	}
	free(p);
}

char *
source_as_is(const struct source_state *ss, const struct repo *r,
    struct rundir *rd)
{
	const char *const	 a[] = { "diff-index", "-z", "--name-only",
	    "--no-renames", r->head, "--", NULL };
	struct strv		 paths = STRV_INIT;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	struct git		 g;
	struct sum		 s;
	char			*path, *idx, *line = NULL;
	size_t			 i;
	int			 st;

	path = repo_index_path(r);
	idx = rundir_index(rd, path);
	free(path);
	if (idx == NULL)
		return NULL;
	repo_git(r, &g);
	g.index = idx;
	/* Every tracked file whose stat data does not say it is HEAD's:
	 * those that changed, and some that did not. */
	if ((st = git_run(&g, a, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot list the changed files: git diff-index: "
			    "%s", git_why(&err, st));
		goto out;
	}
	strv_split_z(&paths, out.data != NULL ? out.data : "", out.len);
	strv_pushv(&paths, ss->as_is.v);
	strv_sort_uniq(&paths);
	sum_init(&s);
	for (i = 0; i < paths.n; i++)
		sum_path(&s, r->top, paths.v[i]);
	line = sum_line(&s, "");
	line[strcspn(line, "\n")] = '\0';
out:
	free(idx);
	strv_free(&paths);
	buf_free(&out);
	buf_free(&err);
	return line;
}

/*
 * The gitlinks of tree (a tree id) in the repository g names, as
 * "160000 oid\tpath" (lsfiles.h), recursively; -1 if git could not say.
 */
static int
tree_gitlinks(const struct git *g, const char *tree, struct strv *out)
{
	struct buf	 err = BUF_INIT;
	int		 st;

	if ((st = lsfiles_tree(g, tree, out, NULL, &err)) != 0) {
		if (st > 0)
			warnx("cannot list the tree %.12s: git ls-tree: %s",
			    tree, git_why(&err, st));
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	return 0;
}

/*
 * Can every gitlink of tree (in g's repository, whose working tree is
 * src) be checked out from its local repository, recursively?  1, 0
 * (the first that cannot said), -1.  With dirs, the working tree of each
 * that can is added to it, and one that cannot is passed over unsaid.
 */
static int
gitlinks_whole(const struct git *g, const char *src, const char *rel,
    const char *tree, struct strv *dirs)
{
	struct strv		 links = STRV_INIT;
	struct lsfiles_entry	 e;
	struct git		 ng;
	char			*sp, *gd, *cd, *hd, *sub, *subrel, *oid;
	size_t			 i;
	int			 r = 1;

	if (tree_gitlinks(g, tree, &links) == -1)
		return -1;
	for (i = 0; i < links.n && r == 1; i++) {
		if (lsfiles_entry_parse(links.v[i], &e) == -1)
			continue;
		sp = xasprintf("%s/%s", src, e.path);
		if (repo_nested(sp, &gd, &cd, &hd) == -1) {
			free(sp);
			if (dirs != NULL)
				continue;
			fprintf(stderr, "forge: %s%s is a submodule not "
			    "initialized here\n", fs_vis(rel),
			    fs_vis(e.path));
			r = 0;
			break;
		}
		if (dirs != NULL)
			strv_push(dirs, sp);
		memset(&ng, 0, sizeof(ng));
		ng.dir = sp;
		ng.gitdir = gd;
		oid = xstrndup(e.oid, e.oidlen);
		if ((sub = source_commit_tree(&ng, oid)) == NULL) {
			if (dirs == NULL)
				fprintf(stderr, "forge: the repository of %s%s "
				    "has no commit %.12s\n", fs_vis(rel),
				    fs_vis(e.path), oid);
			r = dirs != NULL ? 1 : 0;
		} else {
			subrel = xasprintf("%s%s/", rel, e.path);
			r = gitlinks_whole(&ng, sp, subrel, sub, dirs);
			free(subrel);
		}
		free(oid);
		free(sub);
		free(sp);
		free(gd);
		free(cd);
		free(hd);
	}
	strv_free(&links);
	return r;
}

int
source_whole(const struct source *s, const struct repo *r)
{
	struct git	g;

	repo_git(r, &g);
	g.index = NULL;
	return gitlinks_whole(&g, r->top, "", s->tree, NULL);
}

int
source_nested(const struct source *s, const struct repo *r,
    struct strv *dirs)
{
	struct git	g;

	repo_git(r, &g);
	g.index = NULL;
	return gitlinks_whole(&g, r->top, "", s->tree, dirs) == -1 ? -1 : 0;
}

int
source_resolve(struct source *s, const struct repo *r, struct rundir *rd)
{
	switch (s->kind) {
	case SOURCE_WORKTREE:
		return 0;
	case SOURCE_STAGED:
		s->commit = xstrdup(r->head);
		s->tree = staged_tree(r, rd);
		break;
	case SOURCE_REV:
		/* Resolved already: the commit whose settings the run took
		 * is the one it verifies, wherever the name points now. */
		if (s->commit == NULL &&
		    (s->commit = repo_resolve_commit(r, s->rev)) == NULL) {
			if (errno == ENOENT)
				warnx("--rev=%s: no such commit",
				    fs_vis(s->rev));
			return -1;
		}
		s->tree = tree_of(r, s->commit);
		break;
	}
	return s->tree != NULL ? 0 : -1;
}

/*
 * The entries of the copy's index, put back without their stat data or
 * flags: the checkout wrote the files just before the index, so git
 * would trust every one of them, and must look at each instead.  A copy
 * of a tree is whole: an entry whose file is not there (one a sparse
 * checkout would have skipped) is a file missing from it, which the
 * proof then finds.
 */
static int
all_afresh(const struct git *dst, struct lsfiles *l, struct strv *edits)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (lsfiles_read(l, dst) == -1)
		return -1;
	/* Flagged entries are among them too. */
	for (i = 0; i < l->entries.n; i++)
		strv_push(edits, entlist_line(&l->entries, i, &b));
	buf_free(&b);
	return 0;
}

/* As source_prove_tree(), the copy's own ignored files left out if
 * own_ignored. */
static char *
prove_tree(const char *want, const char *what, const struct git *dst,
    struct rundir *rd, const char *objects, const char *rel, size_t id,
    int own_ignored)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 paths = STRV_INIT, edits = STRV_INIT;
	struct lsfiles		 l;
	char			*idx, *tree = NULL, tag[32];
	size_t			 i;

	if (all_afresh(dst, &l, &edits) == -1)
		return NULL;
	idx = xasprintf("%s/index", dst->gitdir);
	q.git = dst;
	q.index = idx;
	q.scratch = rd->scratch;
	q.objdir = rd->objects;
	q.blobdir = rd->blobs;
	q.lastdir = rd->blobs_last;
	q.alternates = objects;
	q.edits = &edits;
	q.force = !own_ignored;
	snprintf(tag, sizeof(tag), "copy%zu", id);
	tree = treeid_compute(&q, tag);
	if (tree != NULL && strcmp(tree, want) != 0) {
		warnx("the copy%s%s is not the %s: tree %.12s wanted, %.12s "
		    "in the copy; refusing to verify", *rel != '\0' ? " of " :
		    "", fs_vis(rel), what, want, tree);
		q.edits = NULL;
		if (treeid_diff(&q, want, tree, &paths) == 0) {
			for (i = 0; i < paths.n && i < 20; i++)
				fprintf(stderr, "\tdiffers: %s%s\n",
				    fs_vis(rel), fs_vis(paths.v[i]));
			if (paths.n > 20)
				fprintf(stderr, "\t... and %zu more\n",
				    paths.n - 20);
		}
		free(tree);
		tree = NULL;
	}
	strv_free(&paths);
	strv_free(&edits);
	lsfiles_free(&l);
	free(idx);
	return tree;
}

char *
source_prove_tree(const char *want, const char *what, const struct git *dst,
    struct rundir *rd, const char *objects, const char *rel, size_t id,
    int own_ignored)
{
	return prove_tree(want, what, dst, rd, objects, rel, id, own_ignored);
}

char *
source_prove(const struct source *s, const struct git *dst,
    struct rundir *rd, const char *objects, int own_ignored)
{
	return prove_tree(s->tree, s->kind == SOURCE_STAGED ?
	    "staged tree" : "commit's tree", dst, rd, objects, "", 0,
	    own_ignored);
}

int
source_gitlinks(const struct git *dst, struct strv *out)
{
	struct buf	 err = BUF_INIT;
	int		 st;

	if ((st = lsfiles_index(dst, out, NULL, &err)) != 0) {
		if (st > 0)
			warnx("git ls-files failed in the copy: %s",
			    git_why(&err, st));
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	return 0;
}

char *
source_commit_tree(const struct git *g, const char *commit)
{
	struct buf	 out = BUF_INIT;
	char		*spec;
	int		 st;

	spec = xasprintf("%s^{tree}", commit);
	{
		const char *const	a[] = { "rev-parse", "--verify", "-q",
		    "--end-of-options", spec, NULL };

		st = git_run(g, a, 0, NULL, &out, NULL);
	}
	free(spec);
	buf_rtrim(&out);
	if (st != 0 || out.len == 0) {
		buf_free(&out);
		return NULL;
	}
	return buf_detach(&out);
}
