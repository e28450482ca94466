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

/*
 * The copy keeps the index's mtime: git trusts an entry's stat data only
 * if the file is older than the index ("racily clean" otherwise), and a
 * fresh mtime would make it trust a same-size edit it never looked at.
 */
static int
copy_file(const char *from, const char *to)
{
	struct stat	st;
	struct timespec	times[2];
	int		in, out, ret = -1;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(in, &st) == 0 && (out = open(to, O_WRONLY | O_CREAT |
	    O_TRUNC | O_CLOEXEC, 0600)) != -1) {
		times[0] = st.st_atim;
		times[1] = st.st_mtim;
		if (fs_copy_fd(in, out) == 0 && futimens(out, times) == 0)
			ret = 0;
		if (close(out) == -1)
			ret = -1;
	}
	close(in);
	return ret;
}

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
	if (q->index != NULL && copy_file(q->index, index) == -1) {
		warn("cannot copy the index %s", q->index);
		goto out;
	}
	scratch_git(q, index, &g);

	if (q->reflag != NULL && q->reflag->n > 0) {
		/* Entries put back without stat data or flags: git must
		 * look at these files again. */
		for (i = 0; i < q->reflag->n; i++)
			buf_add(&in, q->reflag->v[i],
			    strlen(q->reflag->v[i]) + 1);
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

	strv_push(&args, "add");
	strv_push(&args, "-A");
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
