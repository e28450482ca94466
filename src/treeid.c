/* Tree ids of working trees, through a temporary index and object dir. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "treeid.h"
#include "xmalloc.h"

/* The git context for a run on the temporary index and objects. */
static void
scratch_git(const struct treeid_req *q, const char *index, struct git *g)
{
	*g = *q->git;
	g->index = index;
	g->objdir = q->objdir;
	g->alternates = q->alternates;
}

char *
treeid_compute(const struct treeid_req *q, const char *tag)
{
	struct git	 g;
	struct strv	 args = STRV_INIT;
	struct buf	 in = BUF_INIT, out = BUF_INIT;
	char		*index, *tree = NULL;
	size_t		 i;
	int		 st;

	index = xasprintf("%s/index-%s", q->scratch, tag);
	/* The copy keeps the index's mtime: git trusts an entry's stat
	 * data only if the file is older than the index ("racily clean"
	 * otherwise), and a fresh mtime would make it trust a same-size
	 * edit it never looked at. */
	if (q->index != NULL && fs_copy_file(q->index, index) == -1 &&
	    errno != ENOENT) {
		warn("cannot copy the index %s", fs_vis(q->index));
		goto out;
	}
	scratch_git(q, index, &g);

	if (q->edits != NULL && q->edits->n > 0) {
		for (i = 0; i < q->edits->n; i++)
			buf_add(&in, q->edits->v[i],
			    strlen(q->edits->v[i]) + 1);
		{
			const char *const	a[] = { "update-index", "-z",
			    "--index-info", NULL };

			st = git_run(&g, a, 0, &in, NULL, NULL);
		}
		if (st != 0) {
			if (st > 0)
				warnx("git update-index failed on a "
				    "temporary index: %s", git_error());
			goto out;
		}
	}

	/* The modes on disk, as the verification sees them, even where
	 * git is told to ignore them (core.fileMode false). */
	strv_push(&args, "-c");
	strv_push(&args, "core.fileMode=true");
	strv_push(&args, "add");
	strv_push(&args, "-A");
	if (q->force)
		strv_push(&args, "-f");
	strv_push(&args, "--");
	strv_push(&args, ".");
	for (i = 0; q->exclude != NULL && i < q->exclude->n; i++)
		strv_pushf(&args, ":(exclude,literal)%s", q->exclude->v[i]);
	st = git_run(&g, (const char *const *)args.v, 0, NULL, NULL, NULL);
	if (st != 0) {
		if (st > 0)
			warnx("cannot compute the tree of %s: git add: %s",
			    q->git->dir != NULL ? fs_vis(q->git->dir) : ".",
			    git_error());
		goto out;
	}
	{
		const char *const	a[] = { "write-tree", NULL };

		st = git_run(&g, a, 0, NULL, &out, NULL);
	}
	if (st != 0) {
		if (st > 0)
			warnx("git write-tree failed: %s", git_error());
		goto out;
	}
	buf_rtrim(&out);
	tree = buf_detach(&out);
out:
	(void)unlink(index);
	free(index);
	strv_free(&args);
	buf_free(&in);
	buf_free(&out);
	return tree;
}

int
treeid_diff(const struct treeid_req *q, const char *a, const char *b,
    struct strv *paths)
{
	const char *const	 args[] = { "diff-tree", "-r", "-z",
	    "--no-renames", "--name-only", a, b, NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	int			 st;

	scratch_git(q, NULL, &g);
	g.index = NULL;
	st = git_run(&g, args, 0, NULL, &out, NULL);
	if (st == 0)
		strv_split_z(paths, out.data != NULL ? out.data : "",
		    out.len);
	buf_free(&out);
	return st == 0 ? 0 : -1;
}
