/* The copy's index, made to stage what the source's stages. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "gitcmd.h"
#include "lsfiles.h"
#include "mirror.h"
#include "strv.h"
#include "sum.h"
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
		if (strv_sorted_has(unmerged, staged->v[i]))
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
mirror_plan(const struct git *src, const char *head,
    const struct strv *entries, const struct lsfiles *l,
    struct mirror_plan *mp)
{
	const char *const	 staged_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ita-invisible-in-index",
	    "--ignore-submodules=none", head, "--", NULL };
	const char *const	 visible_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ignore-submodules=none",
	    head, "--", NULL };
	struct strv		 staged = STRV_INIT, visible = STRV_INIT;
	size_t			 i;
	int			 ret = -1;

	memset(mp, 0, sizeof(*mp));
	mp->l = l;
	if (git_list(src, staged_args, &staged, "git diff-index") == -1 ||
	    git_list(src, visible_args, &visible, "git diff-index") == -1)
		goto out;
	sort(&staged);
	/* Listed only when intent-to-add entries are visible: those. */
	for (i = 0; i < visible.n; i++)
		if (!strv_sorted_has(&staged, visible.v[i]))
			strv_push(&mp->ita, visible.v[i]);
	staged_lines(&staged, entries, &l->gitlinks, &l->unmerged,
	    strlen(head), &mp->lines);
	ret = 0;
out:
	strv_free(&staged);
	strv_free(&visible);
	return ret;
}

int
mirror_apply(const struct git *dst, const struct mirror_plan *mp)
{
	const char *const	 info[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 skip[] = { "update-index", "-z",
	    "--skip-worktree", "--stdin", NULL };
	const char *const	 assume[] = { "update-index", "-z",
	    "--assume-unchanged", "--stdin", NULL };

	if (git_feed(dst, info, &mp->lines) == -1 ||
	    add_ita(dst, &mp->ita) == -1 ||
	    git_feed(dst, skip, &mp->l->skips) == -1 ||
	    git_feed(dst, assume, &mp->l->assumes) == -1)
		return -1;
	return 0;
}

char *
mirror_key(const struct mirror_plan *mp, const char *head, const char *dst)
{
	struct sum	 s;
	struct stat	 st;
	uint64_t	 d[2];
	char		*p, *hex;
	size_t		 i;

	sum_init(&s);
	sum_str(&s, head);
	sum_strv(&s, "lines", &mp->lines);
	sum_strv(&s, "ita", &mp->ita);
	/* add -N adds only those it finds a file for. */
	for (i = 0; i < mp->ita.n; i++) {
		p = xasprintf("%s/%s", dst, mp->ita.v[i]);
		sum_str(&s, lstat(p, &st) == 0 ? "there" : "gone");
		free(p);
	}
	sum_strv(&s, "skips", &mp->l->skips);
	sum_strv(&s, "assumes", &mp->l->assumes);
	sum_final(&s, d);
	hex = sum_hex(d);
	p = xasprintf("forge mirror 2 %s\n", hex);
	free(hex);
	return p;
}

void
mirror_plan_free(struct mirror_plan *mp)
{
	strv_free(&mp->lines);
	strv_free(&mp->ita);
	memset(mp, 0, sizeof(*mp));
}

int
mirror_index(const struct git *src, const struct git *dst, const char *head,
    const struct strv *entries, const struct lsfiles *l)
{
	struct mirror_plan	mp;
	int			ret = -1;

	if (mirror_plan(src, head, entries, l, &mp) == 0)
		ret = mirror_apply(dst, &mp);
	mirror_plan_free(&mp);
	return ret;
}
