/* The copy's index, made to stage what the source's stages. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
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

static int
has(const struct strv *sorted, const char *s)
{
	return sorted->n > 0 && bsearch(&s, sorted->v, sorted->n,
	    sizeof(*sorted->v), cmp_str) != NULL;
}

/* The path of "T mode oid stage\tpath" (ls-files -v -s). */
static const char *
entry_path(const char *e)
{
	const char	*tab = strchr(e, '\t');

	return tab != NULL ? tab + 1 : e;
}

/* The stage of such an entry: the digit before the tab. */
static int
entry_stage(const char *e)
{
	const char	*tab = strchr(e, '\t');

	return tab != NULL && tab > e ? tab[-1] - '0' : -1;
}

int
mirror_index(const struct git *src, const struct git *dst, const char *head)
{
	const char *const	 staged_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ita-invisible-in-index",
	    "--ignore-submodules=none", head, "--", NULL };
	const char *const	 visible_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ignore-submodules=none",
	    head, "--", NULL };
	const char *const	 ls_args[] = { "ls-files", "-z", "-v", "-s",
	    NULL };
	const char *const	 info[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 skip[] = { "update-index", "-z",
	    "--skip-worktree", "--stdin", NULL };
	const char *const	 assume[] = { "update-index", "-z",
	    "--assume-unchanged", "--stdin", NULL };
	struct strv		 staged = STRV_INIT, visible = STRV_INIT;
	struct strv		 entries = STRV_INIT, lines = STRV_INIT;
	struct strv		 skips = STRV_INIT, assumes = STRV_INIT;
	struct strv		 ita = STRV_INIT, unmerged = STRV_INIT;
	struct strv		 add = STRV_INIT;
	struct buf		 b = BUF_INIT;
	const char		*e, *path;
	size_t			 i, oidlen = strlen(head);
	int			 ret = -1, found;

	if (git_list(src, staged_args, &staged, "git diff-index") == -1 ||
	    git_list(src, visible_args, &visible, "git diff-index") == -1 ||
	    git_list(src, ls_args, &entries, "git ls-files") == -1)
		goto out;
	qsort(staged.v, staged.n, sizeof(*staged.v), cmp_str);
	/* Listed only when intent-to-add entries are visible: those. */
	for (i = 0; i < visible.n; i++)
		if (!has(&staged, visible.v[i]))
			strv_push(&ita, visible.v[i]);
	qsort(ita.v, ita.n, sizeof(*ita.v), cmp_str);
	for (i = 0; i < entries.n; i++) {
		e = entries.v[i];
		path = entry_path(e);
		if (entry_stage(e) != 0) {
			strv_push(&unmerged, path);
			continue;
		}
		if (e[0] == 'S')
			strv_push(&skips, path);
		else if (e[0] >= 'a' && e[0] <= 'z')
			strv_push(&assumes, path);
	}
	qsort(unmerged.v, unmerged.n, sizeof(*unmerged.v), cmp_str);
	/* Each staged path: the source's entry, or its removal. */
	for (i = 0; i < staged.n; i++) {
		if (has(&unmerged, staged.v[i]))
			continue;
		strv_push(&lines, staged.v[i]);
	}
	for (i = 0; i < lines.n; i++) {
		size_t	lo = 0, hi = entries.n, mid;
		int	c;

		found = 0;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if ((c = strcmp(entry_path(entries.v[mid]),
			    lines.v[i])) == 0) {
				found = 1;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		buf_reset(&b);
		if (found)
			/* "T mode oid stage\tpath" less its tag. */
			buf_adds(&b, entries.v[mid] + 2);
		else {
			buf_adds(&b, "0 ");
			for (c = 0; (size_t)c < oidlen; c++)
				buf_addc(&b, '0');
			buf_addc(&b, '\t');
			buf_adds(&b, lines.v[i]);
		}
		free(lines.v[i]);
		lines.v[i] = xstrdup(b.data);
	}
	if (git_feed(dst, info, &lines) == -1)
		goto out;
	strv_push(&add, "add");
	strv_push(&add, "--intent-to-add");
	strv_push(&add, "--force");
	strv_push(&add, "--");
	for (i = 0; i < ita.n; i++) {
		struct stat	 st;
		char		*p = xasprintf("%s/%s", dst->worktree, ita.v[i]);

		/* One whose file is gone has nothing to add. */
		if (lstat(p, &st) == 0)
			strv_pushf(&add, ":(literal)%s", ita.v[i]);
		free(p);
	}
	if (add.n > 4) {
		{
			struct buf	err = BUF_INIT;
			int		st;

			st = git_run(dst, (const char *const *)add.v,
			    GIT_RETRY, NULL, NULL, &err);
			if (st > 0)
				warnx("cannot stage the copy's changes as the "
				    "source has them: git add -N: %s",
				    git_why(&err, st));
			buf_free(&err);
			if (st != 0)
				goto out;
		}
	}
	if (git_feed(dst, skip, &skips) == -1 ||
	    git_feed(dst, assume, &assumes) == -1)
		goto out;
	ret = 0;
out:
	strv_free(&staged);
	strv_free(&visible);
	strv_free(&entries);
	strv_free(&lines);
	strv_free(&skips);
	strv_free(&assumes);
	strv_free(&ita);
	strv_free(&unmerged);
	strv_free(&add);
	buf_free(&b);
	return ret;
}
