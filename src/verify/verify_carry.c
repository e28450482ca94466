/* A range's copy, carried from one of its commits to the next, proved. */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "reconvert.h"
#include "repo.h"
#include "reuse.h"
#include "rundir.h"
#include "sig.h"
#include "snapshot.h"
#include "source.h"
#include "strv.h"
#include "verify_carry.h"
#include "verify_copy.h"
#include "verify_int.h"
#include "xmalloc.h"

/*
 * Can a copy of commit be carried to another commit, or from it?  1 if
 * its tree records no submodule; 0 if not, with why; -1 if git could not
 * say (said).
 */
static int
tree_plain(struct run *r, const char *commit, const char **why)
{
	struct git	 g;
	struct strv	 links = STRV_INIT;
	struct buf	 err = BUF_INIT;
	int		 st, ret = 1;

	repo_git(&r->ctx->repo, &g);
	g.index = NULL;
	if ((st = lsfiles_tree(&g, commit, &links, NULL, &err)) != 0) {
		if (st > 0)
			warnx("cannot list commit %.12s: git ls-tree: %s",
			    commit, git_why(&err, st));
		ret = -1;
	} else if (links.n > 0) {
		*why = "it records a submodule";
		ret = 0;
	}
	strv_free(&links);
	buf_free(&err);
	return ret;
}

/* The commit's tree as an index, for reuse_rules_drop() to know what
 * is tracked: into the run's scratch space. */
static char *
commit_index(struct run *r, const char *commit)
{
	const char *const	 a[] = { "read-tree", commit, NULL };
	struct git		 g;
	struct buf		 err = BUF_INIT;
	char			*idx;
	int			 st;

	idx = xasprintf("%s/range-index", r->copy.rd.scratch);
	repo_git(&r->ctx->repo, &g);
	g.index = idx;
	if ((st = git_run(&g, a, 0, NULL, NULL, &err)) != 0) {
		if (st > 0)
			warnx("cannot read commit %.12s: git read-tree: %s",
			    commit, git_why(&err, st));
		free(idx);
		idx = NULL;
	}
	buf_free(&err);
	return idx;
}

/* The copy as reuse.h takes it, brought to commit: an incremental one
 * keeps its ignored files. */
static void
carried_copy(const struct run *r, const char *commit, struct reuse_copy *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->copy = r->copy.snap.copy;
	rc->common = r->ctx->repo.common;
	rc->run = r->copy.rd.run;
	rc->scratch = r->copy.rd.scratch;
	rc->head = commit;
	rc->keep_ignored = r->mode.incremental;
}

/* An incremental copy's own files that git reads as instructions go
 * before git reads them: none is the commit's (reuse.h). */
static int
drop_rules(struct run *r, const char *commit)
{
	struct reuse_copy rc;
	struct strv	 dropped = STRV_INIT;
	char		*idx, *none;
	int		 ret;

	if ((idx = commit_index(r, commit)) == NULL)
		return -1;
	/* Where the working state's untracked files would be: none. */
	none = xasprintf("%s/none", r->copy.rd.scratch);
	carried_copy(r, commit, &rc);
	ret = reuse_rules_drop(&rc, none, idx, &dropped);
	if (dropped.n > 0)
		fprintf(stderr, "forge: removed from the incremental copy %zu "
		    "file%s of its own that git reads as instructions "
		    "(%s%s)\n", dropped.n, dropped.n == 1 ? "" : "s",
		    fs_vis(dropped.v[0]), dropped.n > 1 ? ", ..." : "");
	strv_free(&dropped);
	free(none);
	free(idx);
	return ret;
}

/* Nothing git does not track is left in the copy, but the ignored files
 * an incremental copy keeps: a fresh copy would have none of it. */
static int
nothing_else(struct run *r, const struct git *dg)
{
	const char *const	 all[] = { "-o", "--directory", NULL };
	const char *const	 shown[] = { "-o", "--directory",
	    "--exclude-standard", NULL };
	struct strv		 out = STRV_INIT;
	struct buf		 err = BUF_INIT;
	int			 st, ret = 0;

	if ((st = lsfiles_paths(dg, r->mode.incremental ? shown : all, &out,
	    &err)) != 0) {
		if (st > 0)
			warnx("cannot list the copy: git ls-files: %s",
			    git_why(&err, st));
		ret = -1;
	} else if (out.n > 0) {
		warnx("the copy still holds %s, which commit %.12s has not",
		    fs_vis(out.v[0]), r->source.commit);
		ret = -1;
	}
	strv_free(&out);
	buf_free(&err);
	return ret;
}

/*
 * The copy brought to the commit and proved: 0, or -1 (said why, or
 * *why says it: git's conversion of its files cannot be redone).  Where
 * git converts, each file that may not be what a fresh checkout writes
 * is checked out again first, by what the last commit's copy noted
 * (reconvert.h), and this one is noted in turn.
 */
static int
move(struct run *r, const char **why)
{
	const char	*commit = r->source.commit;
	struct reuse_copy rc;
	struct reuse_marks marks = REUSE_MARKS_INIT;
	struct reconvert conv;
	struct git	 dg, sg;
	char		*adm = NULL, *tree;
	int		 ret = -1;

	reconvert_init(&conv, r->copy.rd.carry, "convert", 1);
	repo_git(&r->ctx->repo, &sg);
	sg.index = NULL;
	reconvert_before(&conv, &sg, r->ctx->repo.common);
	if (r->mode.incremental && drop_rules(r, commit) == -1)
		goto out;
	sig_test_stall("carry");
	carried_copy(r, commit, &rc);
	if (sig_pending() ||
	    reuse_sync(&rc, r->mode.incremental ? &marks : NULL, &adm) == -1)
		goto out;
	memset(&dg, 0, sizeof(dg));
	dg.dir = r->copy.snap.copy;
	dg.gitdir = adm;
	dg.worktree = r->copy.snap.copy;
	if (sig_pending() || nothing_else(r, &dg) == -1)
		goto out;
	/* An incremental copy's file written again the same keeps its
	 * time: only what changed is rebuilt. */
	if (sig_pending() || reconvert_copy(&conv, &dg, &sg,
	    r->ctx->repo.common, 1, r->mode.incremental ? &marks : NULL,
	    why) != 1)
		goto out;
	reuse_sync_marks_restore(&marks);
	if (!r->mode.check)
		tree = NULL;
	else if (sig_pending() || (tree = source_prove(&r->source, &dg,
	    &r->copy.rd, r->ctx->repo.objects, r->mode.incremental)) == NULL)
		goto out;
	free(r->copy.snap.tree);
	r->copy.snap.tree = tree;
	/* Any path may be a symlink now: escape.h looks at them all. */
	strv_free(&r->copy.snap.links);
	r->copy.snap.links_known = 0;
	/* Before the commit's steps run in it. */
	(void)reconvert_note(&conv, r->copy.snap.copy);
	ret = 0;
out:
	reuse_sync_marks_free(&marks);
	reconvert_free(&conv);
	free(adm);
	return ret;
}

int
verify_carry(struct run *r, int verbose)
{
	const char	*why = NULL;
	int		 plain;

	r->copy.carried = 0;
	if ((plain = tree_plain(r, r->source.commit, &why)) == 1 &&
	    r->copy.carry_ok) {
		why = NULL;
		if (move(r, &why) == 0) {
			r->copy.carried = 1;
			fprintf(stderr, "forge: isolated: running verification "
			    "in the range's %scopy, carried to commit %.12s "
			    "and proved (working tree untouched)\n",
			    r->mode.incremental ? "incremental " : "",
			    r->source.commit);
			return 0;
		}
		if (sig_pending())
			return -1;
		if (why == NULL)
			why = "it could not be carried there";
	} else if (plain == 1)
		why = "the last commit's copy cannot be carried on";
	else if (plain == -1)
		why = "git could not say whether it can be carried there";
	fprintf(stderr, "forge: isolated: running verification in a fresh "
	    "copy of commit %.12s: %s (working tree untouched)\n",
	    r->source.commit, why);
	/* Made anew, never trusted: the old copy goes first. */
	r->copy.carry_ok = 0;
	snapshot_free(&r->copy.snap);
	r->copy.have_snap = 0;
	(void)rundir_remove(&r->copy.rd);
	rundir_free(&r->copy.rd);
	memset(&r->copy.rd, 0, sizeof(r->copy.rd));
	if (rundir_open(&r->copy.rd, r->ctx->repo.common) == -1)
		return -1;
	return verify_copy_make(r, verbose);
}

void
verify_carry_ready(struct run *r, int setup)
{
	const char	*why;
	char		*want;
	size_t		 i;

	if (!r->copy.carried)
		r->copy.carry_ok = r->copy.have_snap &&
		    r->copy.snap.nrepos == 1 &&
		    r->copy.snap.left_out.n == 0 &&
		    tree_plain(r, r->source.commit, &why) == 1;
	if (!r->copy.carried || !r->mode.incremental || setup ||
	    r->copy.range_setup == NULL)
		return;
	want = verify_copy_setup(r, 0);
	if (verify_copy_setup_same(r->copy.range_setup, want)) {
		for (i = 0; i < r->nsteps; i++)
			if (r->steps[i].setup)
				r->steps[i].skip = 1;
	} else
		verify_copy_setup_why(r, r->copy.range_setup);
	free(want);
}

void
verify_carry_done(struct run *r)
{
	free(r->copy.range_setup);
	r->copy.range_setup = r->mode.incremental && r->copy.have_snap ?
	    verify_copy_setup(r, 1) : NULL;
}
