/* The copy's index, made to stage what the source's stages. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gitcmd.h"
#include "lsfiles.h"
#include "mirror.h"
#include "strv.h"
#include "xmalloc.h"

/* Run git with args; its -z output split into v.  -1 said why. */
static int
git_list(const struct git *g, const char *const *args, struct strv *v,
    const char *what)
{
	struct buf	out = BUF_INIT, err = BUF_INIT;
	int		st;

	if ((st = git_run(g, args, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot read the index for the copy: %s: %s",
			    what, git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return -1;
	}
	strv_split_z(v, out.data != NULL ? out.data : "", out.len);
	buf_free(&out);
	buf_free(&err);
	return 0;
}

/* Run git in the copy with lines, each NUL-terminated, on its stdin. */
static int
git_feed(const struct git *g, const char *const *args, const struct strv *in)
{
	struct buf	b = BUF_INIT, err = BUF_INIT;
	size_t		i;
	int		st;

	if (in->n == 0)
		return 0;
	for (i = 0; i < in->n; i++)
		buf_add(&b, in->v[i], strlen(in->v[i]) + 1);
	if ((st = git_run(g, args, GIT_RETRY, &b, NULL, &err)) > 0)
		warnx("cannot stage the copy's changes as the source has "
		    "them: git %s: %s", args[0], git_why(&err, st));
	buf_free(&b);
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sort(struct strv *v)
{
	if (v->n > 0)
		qsort(v->v, v->n, sizeof(*v->v), cmp_str);
}

static int
has(const struct strv *sorted, const char *s)
{
	return sorted->n > 0 && bsearch(&s, sorted->v, sorted->n,
	    sizeof(*sorted->v), cmp_str) != NULL;
}

/*
 * The update-index --index-info lines for the staged paths: the source's
 * entry or gitlink ("mode oid\tpath"), or "0 <zeros>\tpath" removing it; unmerged
 * paths left alone.
 */
static void
staged_lines(const struct strv *staged, const struct strv *entries,
    const struct strv *gitlinks, const struct strv *unmerged, size_t oidlen,
    struct strv *lines)
{
	struct buf	 b = BUF_INIT;
	const char	*e;
	size_t		 i, k;

	for (i = 0; i < staged->n; i++) {
		if (has(unmerged, staged->v[i]))
			continue;
		buf_reset(&b);
		if ((e = lsfiles_find(entries, staged->v[i])) != NULL ||
		    (e = lsfiles_find(gitlinks, staged->v[i])) != NULL)
			buf_adds(&b, e);
		else {
			buf_adds(&b, "0 ");
			for (k = 0; k < oidlen; k++)
				buf_addc(&b, '0');
			buf_addc(&b, '\t');
			buf_adds(&b, staged->v[i]);
		}
		strv_push(lines, b.data);
	}
	buf_free(&b);
}

/* git add -N, in the copy, of the intent-to-add paths it has a file for
 * (one whose file is gone has nothing to add). */
static int
add_ita(const struct git *dst, const struct strv *ita)
{
	struct strv	 a = STRV_INIT;
	struct buf	 err = BUF_INIT;
	struct stat	 st;
	char		*p;
	size_t		 i, n;
	int		 r = 0;

	strv_push(&a, "add");
	strv_push(&a, "--intent-to-add");
	strv_push(&a, "--force");
	strv_push(&a, "--");
	n = a.n;
	for (i = 0; i < ita->n; i++) {
		p = xasprintf("%s/%s", dst->worktree, ita->v[i]);
		if (lstat(p, &st) == 0)
			strv_pushf(&a, ":(literal)%s", ita->v[i]);
		free(p);
	}
	if (a.n > n) {
		if ((r = git_run(dst, (const char *const *)a.v, GIT_RETRY,
		    NULL, NULL, &err)) > 0)
			warnx("cannot stage the copy's changes as the source "
			    "has them: git add -N: %s", git_why(&err, r));
	}
	strv_free(&a);
	buf_free(&err);
	return r == 0 ? 0 : -1;
}

int
mirror_index(const struct git *src, const struct git *dst, const char *head,
    const struct strv *entries, const struct lsfiles *l)
{
	const char *const	 staged_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ita-invisible-in-index",
	    "--ignore-submodules=none", head, "--", NULL };
	const char *const	 visible_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ignore-submodules=none",
	    head, "--", NULL };
	const char *const	 info[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 skip[] = { "update-index", "-z",
	    "--skip-worktree", "--stdin", NULL };
	const char *const	 assume[] = { "update-index", "-z",
	    "--assume-unchanged", "--stdin", NULL };
	struct strv		 staged = STRV_INIT, visible = STRV_INIT;
	struct strv		 lines = STRV_INIT, ita = STRV_INIT;
	size_t			 i;
	int			 ret = -1;

	if (git_list(src, staged_args, &staged, "git diff-index") == -1 ||
	    git_list(src, visible_args, &visible, "git diff-index") == -1)
		goto out;
	sort(&staged);
	/* Listed only when intent-to-add entries are visible: those. */
	for (i = 0; i < visible.n; i++)
		if (!has(&staged, visible.v[i]))
			strv_push(&ita, visible.v[i]);
	staged_lines(&staged, entries, &l->gitlinks, &l->unmerged,
	    strlen(head), &lines);
	if (git_feed(dst, info, &lines) == -1 || add_ita(dst, &ita) == -1 ||
	    git_feed(dst, skip, &l->skips) == -1 ||
	    git_feed(dst, assume, &l->assumes) == -1)
		goto out;
	ret = 0;
out:
	strv_free(&staged);
	strv_free(&visible);
	strv_free(&lines);
	strv_free(&ita);
	return ret;
}
