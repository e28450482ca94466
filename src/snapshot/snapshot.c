/* Building the ephemeral copy of a working state; proof.c proves it. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bigfile.h"
#include "convert.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "mirror.h"
#include "patch.h"
#include "proof.h"
#include "reconvert.h"
#include "reuse.h"
#include "settings.h"
#include "sig.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "source.h"
#include "spawn.h"
#include "timeutil.h"
#include "xmalloc.h"

static int	copy_repo(struct snapshot *, struct snap_repo *);
static void	conv_begin(struct snapshot *, struct snap_repo *,
		    const struct lsfiles *);
static int	conv_checkout(struct snapshot *, struct snap_repo *,
		    const struct lsfiles *, const char **);
static int	conv_top(struct snapshot *, struct snap_repo *,
		    const struct lsfiles *);

static void
sr_free(struct snap_repo *sr)
{
	size_t	i;

	proof_free(sr->proof);
	bigfile_free(sr->big);
	reconvert_free(&sr->conv);
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
	free(sr->want);
	strv_free(&sr->exclude);
	strv_free(&sr->live);
	entlist_free(&sr->entries);
	strv_free(&sr->state_now);
	strv_free(&sr->state_gone);
	free(sr->tree_index);
	reuse_sync_marks_free(&sr->marks);
	free(sr);
}

/* Are the len bytes at p the key k? */
static int
is_key(const char *p, size_t len, const char *k)
{
	return len == strlen(k) && memcmp(p, k, len) == 0;
}

/* What git config says of them (sr_settings()). */
static const char *const	 settings_args[] = { "config", "-z",
    "--get-regexp",
    "^core\\.(filemode|sparsecheckout|autocrlf|attributesfile|symlinks|"
    "ignorestat)$",
    NULL };

/*
 * A nested repository's settings read while git lists its files: git
 * config started (its output into the scratch space), or if it cannot
 * be, left for sr_settings() to run.
 */
struct settings_job {
	struct git_job	 job;
	char		*out, *err;
	int		 started;
};

static void
settings_start(struct snapshot *s, struct snap_repo *sr,
    struct settings_job *j)
{
	struct git	 g;
	char		*name;

	memset(j, 0, sizeof(*j));
	snapshot_repo_src_git(sr, &g);
	name = snapshot_repo_nested_name(sr);
	j->out = xasprintf("%s/config-%s.out", s->rd->scratch, name);
	j->err = xasprintf("%s/config-%s.err", s->rd->scratch, name);
	free(name);
	j->started = git_start(&j->job, &g, settings_args, NULL, j->out,
	    j->err) == 0;
}

/* What it read into text (nothing, where git found no setting); -1 if
 * it did not run, or failed: sr_settings() is to run git itself. */
static int
settings_finish(struct settings_job *j, struct buf *text)
{
	int	 ret = -1, st;

	if (j->started) {
		/* 1: no such setting. */
		st = git_finish(&j->job);
		if ((st == 0 || st == 1) &&
		    fs_read_file(j->out, text, 1 << 20) == 0)
			ret = 0;
		else
			buf_reset(text);
	}
	/* Made, if git_start() got that far. */
	(void)unlink(j->out);
	(void)unlink(j->err);
	free(j->out);
	free(j->err);
	memset(j, 0, sizeof(*j));
	return ret;
}

/*
 * The settings of the source repository that change how its copy must
 * be made: core.fileMode, and (before git 2.36, which cannot copy one)
 * whether it is a sparse checkout; and those under which its copy is not
 * reused (snapshot_repo_not_reusable()): core.symlinks, core.ignoreStat
 * -- from git config -z's records in text, or (text NULL) from git.
 */
static int
sr_settings(struct snap_repo *sr, int sparse, const struct buf *text)
{
	struct git		 g;
	struct buf		 out = BUF_INIT;
	const char		*p, *end, *nl;
	size_t			 len;
	int			 b;

	snapshot_repo_src_git(sr, &g);
	sr->filemode = 1;
	if (text == NULL)
		(void)git_run(&g, settings_args, 0, NULL, &out, NULL);
	else
		buf_add(&out, text->data, text->len);
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		/* "key\nvalue", or "key" alone: a boolean set bare, true. */
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		b = settings_bool(nl != NULL ? nl + 1 : NULL);
		if (is_key(p, len, "core.filemode"))
			sr->filemode = b != 0;
		else if (is_key(p, len, "core.sparsecheckout"))
			sr->sparse = b == 1;
		else if (is_key(p, len, "core.autocrlf"))
			sr->convert |= b != 0;	/* true, or input */
		else if (is_key(p, len, "core.attributesfile"))
			sr->convert = 1;
		else if (is_key(p, len, "core.symlinks"))
			sr->nolinks = b == 0;
		else if (is_key(p, len, "core.ignorestat"))
			sr->ignorestat = b == 1;
		if (sr->sparse && sparse && !git_has(GIT_SPARSE_WORKTREE)) {
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

/* Move the background proofs on, between the steps of the copy, and
 * while git works on it (the spawn idle hook). */
static void
poll_proofs(void *arg)
{
	struct snapshot		*s = arg;
	const struct strv	*changed;
	size_t			 i;
	int			 r;

	for (i = 0; i < s->nrepos; i++) {
		if (s->repos[i]->proof != NULL) {
			proof_poll(s->repos[i]->proof);
			/* The proof lists the changes: bigfile.c need not. */
			if ((r = proof_source_changed(s->repos[i]->proof,
			    &changed)) != 0)
				bigfile_feed(s->repos[i]->big, r == 1 ?
				    changed : NULL);
		}
		bigfile_poll(s->repos[i]->big);
	}
}

/* Start the proof of sr: the source's side runs while the copy is made. */
static int
begin_proof(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	struct proof_repo	pr;
	size_t			i;

	memset(&pr, 0, sizeof(pr));
	pr.src = sr->src;
	pr.common = sr->common;
	pr.look = s->source_looked && sr == s->repos[0] ? &s->source_look :
	    NULL;
	pr.gitdir = sr->gitdir;
	pr.index = sr->index;
	pr.objects = sr->objects;
	pr.head = sr->head;
	pr.dst = sr->dst;
	pr.rel = sr->rel;
	pr.entries = &sr->entries;
	pr.exclude = &sr->exclude;
	pr.sparse = sr->sparse;
	pr.convert = snapshot_repo_may_convert(sr, l);
	/* A nested copy keeps its own too (snapshot_parked_take()). */
	pr.own_ignored = s->incremental;
	pr.carry = (s->park || s->reused) && sr == s->repos[0];
	pr.reused = s->reused && sr == s->repos[0];
	pr.big = s->big;
	for (i = 0; i < sr->nnested; i++)
		if (sr->nested[i].isrepo)
			strv_pushf(&sr->live, "160000 %s\t%s",
			    sr->nested[i].head, sr->nested[i].path);
	lsfiles_sort(&sr->live);
	pr.nested = &sr->live;
	sr->proof = proof_begin(&pr, l, s->rd, s->nrepos);
	return sr->proof != NULL ? 0 : -1;
}

/*
 * A repository's copy made -- or, nested in a reused copy, the parked one
 * taken back -- at HEAD.  Where git may convert HEAD's files (settings,
 * attributes), one taken back has those that may not be a checkout's
 * checked out again; one whose conversion cannot be redone exactly is
 * made afresh, and not parked.  1: taken back, 0: made, -1: failed.
 */
static int
nested_copy(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	const char	*why;
	int		 r;

	if (s->reused && sr != s->repos[0] &&
	    (r = snapshot_parked_take(s, sr)) != 0) {
		if (r == -1 || (r = conv_checkout(s, sr, l, &why)) == -1)
			return -1;
		if (r == 1)
			return 1;
		sr->parkable = 0;
		free(sr->dst_gitdir);
		sr->dst_gitdir = NULL;
		if (snapshot_parked_drop(s, sr) == -1)
			return -1;
	}
	/* What setup made in a parked one is not in this one. */
	if (s->reused && sr != s->repos[0] && s->nested_afresh == NULL)
		s->nested_afresh = xstrndup(sr->rel, strlen(sr->rel) - 1);
	/* Made afresh: what the last run noted is of another copy. */
	sr->conv.reused = 0;
	if ((s->clone ? snapshot_add_clone(s, sr) :
	    snapshot_add_worktree(s, sr)) == -1)
		return -1;
	if (sr != s->repos[0] && sr->parkable &&
	    (r = conv_checkout(s, sr, l, &why)) != 1) {
		if (r == -1)
			return -1;
		sr->parkable = 0;
	}
	return 0;
}

/* git worktree add, and what else makes the copy's index. */
static int
checkout(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	struct git	g;
	long long	t = timeutil_now_ms();
	char		tag[32];
	int		conv, taken = 0;

	/* Which changes to copy whole: found while git checks out.  Where
	 * git may convert, every one: git diff shows what git makes of a
	 * file's bytes, which a patch would give the copy instead of them
	 * (a CRLF line under eol=lf, say) -- every path git diff finds,
	 * not only those the proof singles out (from an index a reused
	 * copy carried, not a file that only the conversion changed), and
	 * only those (BIGFILE_EVERY).  So too under core.symlinks false: a
	 * link is a file holding its target, which git apply cannot
	 * retarget. */
	snapshot_repo_src_git(sr, &g);
	snprintf(tag, sizeof(tag), "%zu", s->nrepos);
	conv = l != NULL && (snapshot_repo_may_convert(sr, l) || sr->nolinks);
	sr->big = bigfile_begin(&g, sr->head, s->rd->scratch, tag,
	    sr->proof != NULL ? &sr->entries : NULL,
	    conv ? BIGFILE_EVERY : s->big, s->verbose);
	if (sig_pending())
		return -1;
	conv_begin(s, sr, l);
	if (s->reused && sr == s->repos[0]) {
		if (snapshot_reused_sync(s, sr) == -1)
			return -1;
	} else if ((taken = nested_copy(s, sr, l)) == -1)
		return -1;
	/* HEAD's files as a fresh checkout writes them, where git converts
	 * or did, in a copy to be parked or that was. */
	if (sr == s->repos[0] && conv_top(s, sr, l) == -1)
		return -1;
	if (sr->proof != NULL)
		proof_checked_out(sr->proof, taken == 1);
	poll_proofs(s);
	if (sr->sparse && snapshot_fill_unsparse(sr, l) == -1)
		return -1;
	if (sr->proof != NULL)
		proof_index_ready(sr->proof, sr->dst_gitdir);
	/* The copy's side of the proof can start: while git apply runs. */
	poll_proofs(s);
	s->ms[SNAP_CHECKOUT] += timeutil_now_ms() - t;
	sig_test_stall("checkout");
	return 0;
}

/* The uncommitted changes to tracked files: git diff | git apply, and
 * the big ones copied whole. */
static int
changes(struct snapshot *s, struct snap_repo *sr)
{
	struct git	sg, dg;
	long long	t = timeutil_now_ms();

	snapshot_repo_src_git(sr, &sg);
	sg.idle = &s->idle;
	snapshot_repo_dst_git(sr, &dg);
	if (sig_pending() || bigfile_finish(sr->big) == -1 ||
	    bigfile_clear(sr->big, sr->dst) == -1 ||
	    patch_replay_file(&sg, &dg, sr->head, &sr->big->paths,
	    bigfile_patch(sr->big)) == -1 ||
	    bigfile_copy(sr->big, sr->src, sr->dst, sr->rel) == -1)
		return -1;
	/* git may hash these in the copy now, while the source's side
	 * runs, unless an attributes file (removed in the source: the
	 * source's index has none) differs from HEAD's, which the copy's
	 * index still has: git may not convert them as in the end.  Where
	 * one is anywhere else, or git converts line endings, it is not
	 * done either (proof.h: convert). */
	if (sr->proof != NULL &&
	    !snapshot_repo_has_attributes(NULL, &sr->big->changed))
		proof_copied(sr->proof, &sr->big->paths);
	s->ms[SNAP_APPLY] += timeutil_now_ms() - t;
	poll_proofs(s);
	sig_test_stall("apply");
	return 0;
}

/* Flagged and untracked files, and modes git does not keep. */
static int
files(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	long long	t = timeutil_now_ms();

	if (sig_pending() || snapshot_fill_flagged(sr, l) == -1)
		return -1;
	if (sig_pending() || snapshot_fill_untracked(sr, l) == -1)
		return -1;
	if (!sr->filemode && (sig_pending() || snapshot_fill_modes(sr) == -1))
		return -1;
	s->ms[SNAP_UNTRACKED] += timeutil_now_ms() - t;
	poll_proofs(s);
	return 0;
}

/*
 * A copy of a tree (source.h): its commit checked out with the tree
 * (snapshot_add_worktree()), then its submodules.  Parked as a copy of
 * the working state is (its submodules' copies are not:
 * snapshot_parked_set_aside()), its files as a fresh checkout writes them
 * where git converts, unless that cannot be redone exactly.
 */
static int
copy_source(struct snapshot *s, struct snap_repo *sr)
{
	char	*index = NULL;
	int	 top = sr == s->repos[0], r = -1;

	if (top) {
		free(sr->head);
		sr->head = xstrdup(s->source->commit);
		s->reusable = !s->clone && (s->park || s->reused);
	}
	/* A submodule's copy of its commit is parked with the top copy's,
	 * as a working state's is: an incremental one with its own ignored
	 * files, the paths of its commit noted as forge's. */
	if (!top)
		sr->parkable = !s->clone;
	if (s->incremental && (top || (sr->parkable && (s->park ||
	    s->reused))) && snapshot_reused_source_noted(s, sr, &index) == -1)
		goto out;
	if (!top) {
		sr->tree_index = index;
		index = NULL;
	}
	if (s->reused && top) {
		conv_begin(s, sr, NULL);
		if (snapshot_reused_source(s, sr, index) == -1 ||
		    conv_top(s, sr, NULL) == -1)
			goto out;
	} else if (checkout(s, sr, NULL) == -1)
		goto out;
	/* Its files are the commit's: nothing else but ignored ones. */
	if (!top && sr->keeps && snapshot_parked_strays(s, sr, NULL, NULL) ==
	    -1)
		goto out;
	if (sig_pending() || snapshot_nested_gitlinks(s, sr, copy_repo) == -1)
		goto out;
	snapshot_reused_noted_end(s, sr);
	r = 0;
out:
	free(index);
	return r;
}

/* The copy's index staged as the source's is (mirror.h). */
static int
staging(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	struct git		 sg, dg;
	struct mirror_plan	 mp;
	long long		 t = timeutil_now_ms();
	char			*name, *plan = NULL;
	int			 r;

	snapshot_repo_src_git(sr, &sg);
	sg.idle = &s->idle;
	snapshot_repo_dst_git(sr, &dg);
	dg.idle = &s->idle;
	if (sig_pending())
		return -1;
	/* A nested repository of a copy that is parked, or was: what git
	 * says of its index is kept for the next run (mirror.h). */
	if ((s->park || s->reused) && sr != s->repos[0]) {
		name = snapshot_repo_nested_name(sr);
		plan = xasprintf("%s/mirror-%s.plan", s->rd->carry, name);
		free(name);
		if (mkdir(s->rd->carry, 0700) == -1 && errno != EEXIST) {
			free(plan);
			plan = NULL;
		}
	}
	r = mirror_plan(&sg, sr->head, &sr->entries, l, plan, &mp);
	free(plan);
	if (r == 0)
		r = mirror_apply(&dg, &mp);
	mirror_plan_free(&mp);
	if (r == -1)
		return -1;
	s->ms[SNAP_APPLY] += timeutil_now_ms() - t;
	poll_proofs(s);
	return 0;
}

/* Is sr's copy parked after the run, or was it (then its note is of
 * this copy)? */
static int
conv_kept(const struct snapshot *s, const struct snap_repo *sr)
{
	if (s->clone || !(s->park || s->reused))
		return 0;
	return sr == s->repos[0] ? s->reusable : sr->parkable;
}

/*
 * Before git writes sr's copy: a nested one's note read (and forgotten),
 * and how git converts by what is outside the tree, should it change as
 * git writes (reconvert.h).  The top one's note was read as the run
 * began.
 */
static void
conv_begin(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	struct git	 sg;
	char		*name, *note;

	if (sr != s->repos[0]) {
		name = snapshot_repo_nested_name(sr);
		note = xasprintf("convert-%s", name);
		reconvert_init(&sr->conv, s->rd->carry, note, s->reused);
		free(note);
		free(name);
	}
	if (!conv_kept(s, sr) ||
	    (l != NULL && !snapshot_repo_may_convert(sr, l)))
		return;
	snapshot_repo_src_git(sr, &sg);
	sg.idle = &s->idle;
	reconvert_before(&sr->conv, &sg, sr->common);
}

/*
 * A copy to be parked, or that was, where git converts or did: how git
 * converts as HEAD (or the tree) is checked out is noted with it
 * (reconvert.h).  A reused one had HEAD's files written only where they
 * differed from the copy's own index, by its stat data, which a command
 * can rewrite (a file rewritten with CRLF and staged, with text=auto:
 * the same blob), and which nothing changes where git's settings or
 * HEAD's attributes did: each tracked file that cannot be shown
 * unchanged since it was noted, a checkout's then, and checked out the
 * same way since, is checked out again -- every one where how git
 * converts is not as noted.  l: the working state's list, NULL for a
 * tree.  1, 0 (the conversion cannot be redone: why), -1.
 */
static int
conv_checkout(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l, const char **why)
{
	struct reuse_marks	*marks;
	struct git		 dg, sg;

	*why = NULL;
	if (!conv_kept(s, sr))
		return 1;
	snapshot_repo_dst_git(sr, &dg);
	dg.idle = &s->idle;
	snapshot_repo_src_git(sr, &sg);
	sg.idle = &s->idle;
	/* An incremental copy's times kept where the bytes are (a nested
	 * one's, where it kept its own ignored files). */
	if (!s->incremental)
		marks = NULL;
	else if (sr == s->repos[0])
		marks = &s->marks;
	else
		marks = sr->keeps ? &sr->marks : NULL;
	return reconvert_copy(&sr->conv, &dg, &sg, sr->common, l == NULL ||
	    snapshot_repo_may_convert(sr, l), marks, why);
}

/* The top copy's conversions: one that cannot be redone exactly is not
 * parked, and not reused. */
static int
conv_top(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	const char	*why;
	int		 r;

	if ((r = conv_checkout(s, sr, l, &why)) != 0)
		return r == 1 ? 0 : -1;
	s->not_reusable = why;
	s->reusable = 0;
	return s->reused ? -1 : 0;
}

/* What the copy has that a checkout of HEAD did not write, for the next
 * run to check out again: not known, nothing is noted. */
static void
conv_written(struct snap_repo *sr, const struct lsfiles *l)
{
	size_t	i;

	if (sr->big == NULL) {
		reconvert_unknown(&sr->conv);
		return;
	}
	reconvert_written(&sr->conv, &sr->big->changed);
	reconvert_written(&sr->conv, &l->untracked);
	reconvert_written(&sr->conv, &l->unmerged);
	for (i = 0; i < l->flagged.n; i++)
		strv_push(&sr->conv.written,
		    lsfiles_entry_path(l->flagged.v[i]));
}

/* A repository's copy at HEAD, its working state put in it. */
static int
fill(struct snapshot *s, struct snap_repo *sr, const struct lsfiles *l)
{
	if (checkout(s, sr, l) == -1 || changes(s, sr) == -1 ||
	    files(s, sr, l) == -1)
		return -1;
	/* The copy's ignore rules are the working state's now: what they no
	 * longer ignore of a nested copy's own goes. */
	if (sr->keeps && snapshot_parked_strays(s, sr, sr->index,
	    &l->untracked) == -1)
		return -1;
	return staging(s, sr, l);
}

/* What git lists of sr's files, into l; a nested repository's settings,
 * read meanwhile, into text (*have_text 1 if read).  -1: it failed. */
static int
list_repo(struct snapshot *s, struct snap_repo *sr, struct lsfiles *l,
    struct buf *text, int *have_text)
{
	struct settings_job	 sj;
	struct git		 g;
	int			 r;

	snapshot_repo_src_git(sr, &g);
	/* The top one's settings are read already (s->core). */
	if (sr != s->repos[0])
		settings_start(s, sr, &sj);
	if (s->reused && sr == s->repos[0] && s->check)
		r = snapshot_reused_list(s, sr, &g, l);
	else
		r = lsfiles_read(l, &g);
	if (sr != s->repos[0])
		*have_text = settings_finish(&sj, text) == 0;
	return r;
}

static int
copy_repo(struct snapshot *s, struct snap_repo *sr)
{
	struct lsfiles		 l;
	struct buf		 text = BUF_INIT;
	int			 r, ret = -1, have_text = 0;

	if (s->source != NULL && s->source->kind != SOURCE_WORKTREE)
		return copy_source(s, sr);
	if (s->reused && s->incremental && sr == s->repos[0] &&
	    snapshot_reused_rules(s, sr) == -1)
		return -1;
	if (list_repo(s, sr, &l, &text, &have_text) == -1) {
		buf_free(&text);
		snapshot_reused_stop(s);
		if (s->source_looked)
			proof_look_free(&s->source_look);
		s->source_looked = 0;
		return -1;
	}
	if (strlen(sr->dst) + 1 + l.maxlen >= PATH_MAX) {
		warnx("a path in %s is too long for a copy in %s: %zu bytes "
		    "with the copy's prefix, the limit is %d; set TMPDIR to a "
		    "shorter directory", fs_vis(sr->src), fs_vis(s->rd->top),
		    strlen(sr->dst) + 1 + l.maxlen, PATH_MAX - 1);
		goto out;
	}
	/* The top one's, as forge read its own settings. */
	if (sr_settings(sr, l.sparse, sr == s->repos[0] ? s->core :
	    have_text ? &text : NULL) == -1)
		goto out;
	/* An ignored attributes file: git converts by it in the working
	 * tree alone, and what a reused copy's look found unchanged may not
	 * be what git makes of it (snapshot_repo_not_reusable()). */
	sr->unlisted_attrs = snapshot_repo_attributes_on_disk(sr, &l);
	/* A conflict over a submodule, and sparse patterns, have a copy of
	 * their own: such copies are not reused, which is said once, as
	 * the fresh copy is made (its caller).  Nested repositories' copies
	 * are set aside as the copy is parked (snapshot_parked_set_aside()), so
	 * the top copy is one whose submodules are not initialized: their
	 * directories emptied (snapshot_repo_empty_gitlinks()) before git looks
	 * there for a repository, each copy taken back after (one whose
	 * files git may convert made afresh, and never parked). */
	if (sr == s->repos[0]) {
		s->not_reusable = snapshot_repo_not_reusable(sr, &l);
		s->reusable = s->not_reusable == NULL;
	} else
		sr->parkable = !s->clone &&
		    snapshot_repo_not_reusable(sr, &l) == NULL;
	if (s->reused && !s->reusable)
		goto out;
	snapshot_nested_find(s, sr, &l);
	/* A nested copy that may be parked keeps its own ignored files too,
	 * and what the working state put there is noted the same way. */
	if (s->incremental && (sr == s->repos[0] || (sr->parkable &&
	    (s->park || s->reused))))
		snapshot_reused_noted_begin(s, sr, &l);
	/* Kept for the proof: moved, not copied. */
	sr->entries = l.entries;
	memset(&l.entries, 0, sizeof(l.entries));
	r = s->check ? begin_proof(s, sr, &l) : 0;
	if (s->source_looked) {
		proof_look_free(&s->source_look);
		s->source_looked = 0;
	}
	if (r == -1)
		goto out;
	/* Proved as it stands, with the nested repositories' copies set
	 * aside: they are all there is left to do. */
	if (s->reused && sr == s->repos[0] && s->check &&
	    (r = snapshot_reused_as_is(s, sr, &l)) != 0) {
		if (r == 1 && snapshot_nested_copy(s, sr, copy_repo) == 0)
			ret = 0;
		goto out;
	}
	snapshot_reused_stop(s);
	if (s->reused && sr == s->repos[0] &&
	    snapshot_repo_empty_gitlinks(sr, &l) == -1)
		goto out;
	if (sr->proof != NULL && proof_list_changed(sr->proof) == -1)
		goto out;
	if (fill(s, sr, &l) == -1)
		goto out;
	if (sig_pending() || snapshot_nested_copy(s, sr, copy_repo) == -1)
		goto out;
	conv_written(sr, &l);
	ret = 0;
out:
	snapshot_reused_stop(s);
	if (s->source_looked)
		proof_look_free(&s->source_look);
	s->source_looked = 0;
	if (ret == 0)
		snapshot_reused_noted_end(s, sr);
	lsfiles_free(&l);
	buf_free(&text);
	return ret;
}

/* How git wrote repository i's files: the bytes of one tree differ by
 * it (snapshot.h, converts). */
static void
note_convert(struct snapshot *s, size_t i)
{
	const char	*d = s->repos[i]->conv.digest;

	strv_pushf(&s->converts, "%s %s", i == 0 ? "." : s->repos[i]->rel,
	    d != NULL ? d : "?");
}

/* Every repository's proof, the top one's tree id kept. */
static int
prove(struct snapshot *s)
{
	char	*tree;
	size_t	 i;

	for (i = 0; i < s->nrepos; i++) {
		if ((tree = proof_finish(s->repos[i]->proof)) == NULL)
			return -1;
		note_convert(s, i);
		if (i == 0) {
			s->tree = tree;
			s->looked =
			    proof_look_source_looked(s->repos[i]->proof);
		} else {
			strv_pushf(&s->trees, "%s %s", s->repos[i]->rel,
			    tree);
			free(tree);
		}
	}
	return 0;
}

/* End whatever of the proofs still runs in the background. */
static void
stop_proofs(struct snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nrepos; i++) {
		proof_free(s->repos[i]->proof);
		s->repos[i]->proof = NULL;
	}
}

/* The proof of a copy of a tree: one tree id per repository, each the
 * tree it must hold; the top one's kept. */
static int
prove_source(struct snapshot *s)
{
	struct git	 dg;
	char		*tree;
	size_t		 i;

	for (i = 0; i < s->nrepos; i++) {
		snapshot_repo_dst_git(s->repos[i], &dg);
		if (i == 0)
			tree = source_prove(s->source, &dg, s->rd,
			    s->repos[i]->objects, s->incremental);
		else
			tree = source_prove_tree(s->repos[i]->want,
			    "commit's tree", &dg, s->rd, s->repos[i]->objects,
			    s->repos[i]->rel, i, s->incremental);
		if (tree == NULL)
			return -1;
		note_convert(s, i);
		if (i == 0)
			s->tree = tree;
		else
			free(tree);
	}
	return 0;
}

int
snapshot_create(struct snapshot *s, struct rundir *rd, const struct repo *r,
    int flags, long long big)
{
	return snapshot_create_from(s, rd, r, NULL, flags, big);
}

int
snapshot_create_from(struct snapshot *s, struct rundir *rd,
    const struct repo *r, const struct source *src, int flags,
    long long big)
{
	struct snap_repo	*sr;
	const char		*name;
	char			*idx;
	long long		 t;
	size_t			 i;
	int			 made, ret = -1;

	memset(s, 0, sizeof(*s));
	s->rd = rd;
	s->source = src;
	s->core = r->core;
	s->check = !(flags & SNAP_NOCHECK);
	s->reused = (flags & SNAP_REUSED) != 0;
	s->incremental = (flags & SNAP_INCREMENTAL) != 0;
	s->clone = (flags & SNAP_CLONE) != 0;
	s->park = (flags & SNAP_PARK) != 0;
	s->verbose = (flags & SNAP_VERBOSE) != 0;
	s->big = big;
	s->fixed = -1;
	s->looked = -1;
	s->idle.fn = poll_proofs;
	s->idle.arg = s;
	name = fs_basename(r->top);
	if (*name == '\0' || strcmp(name, ".forge") == 0 ||
	    strcmp(name, SNAP_PARKED_DIR) == 0)
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
	idx = repo_index_path(r);
	sr->index = rundir_index(rd, idx);
	free(idx);
	/* How a parked copy's files were written: not noted again until
	 * this run's are proved, whatever it changes in between. */
	reconvert_init(&sr->conv, rd->carry, "convert", s->reused);
	made = sr->index == NULL ? -1 : copy_repo(s, sr);
	/* What the parked copy set aside and this one has not -- unless
	 * it turned out not to be parked: it goes back as it stands. */
	if (s->reused && (made == 0 || s->not_reusable == NULL))
		snapshot_parked_clear(s);
	if (made == -1)
		goto out;
	/* Before the proof, which then looks at those files again. */
	reuse_sync_marks_restore(&s->marks);
	for (i = 1; i < s->nrepos; i++)
		reuse_sync_marks_restore(&s->repos[i]->marks);
	sig_test_stall("proof");
	t = timeutil_now_ms();
	if (s->check && (sig_pending() || (s->source != NULL &&
	    s->source->kind != SOURCE_WORKTREE ? prove_source(s) :
	    prove(s)) == -1))
		goto out;
	s->ms[SNAP_PROOF] = timeutil_now_ms() - t;
	/* Before any command runs in it. */
	for (i = 0; i < s->nrepos; i++)
		if (conv_kept(s, s->repos[i]))
			(void)reconvert_note(&s->repos[i]->conv,
			    s->repos[i]->dst);
	ret = 0;
out:
	stop_proofs(s);
	/* Nothing reads the listing's entries once the copy is made and
	 * proved: the command does not run with them held. */
	for (i = 0; i < s->nrepos; i++)
		entlist_free(&s->repos[i]->entries);
	return ret;
}

const char *
snapshot_why_not_parked(const struct repo *r)
{
	struct snap_repo	sr;
	struct lsfiles		none;

	/* Not read: what the settings say is for the copy to find. */
	if (r->core == NULL)
		return NULL;
	memset(&sr, 0, sizeof(sr));
	memset(&none, 0, sizeof(none));
	sr.src = r->top;
	sr.gitdir = r->gitdir;
	if (sr_settings(&sr, 0, r->core) == -1)
		return NULL;
	return snapshot_repo_not_reusable(&sr, &none);
}

void
snapshot_free(struct snapshot *s)
{
	size_t	i;

	for (i = 0; i < s->nrepos; i++)
		sr_free(s->repos[i]);
	free(s->repos);
	free(s->copy);
	reuse_sync_marks_free(&s->marks);
	strv_free(&s->left_out);
	strv_free(&s->left_out_why);
	strv_free(&s->links);
	strv_free(&s->trees);
	strv_free(&s->converts);
	free(s->tree);
	free(s->gitdir);
	free(s->start_refs);
	free(s->nested_afresh);
	memset(s, 0, sizeof(*s));
}
