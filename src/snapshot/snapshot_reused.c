/* A parked copy brought back: synced, or proved as it stands and put right. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "mirror.h"
#include "proof.h"
#include "reuse.h"
#include "source.h"
#include "sig.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "timeutil.h"
#include "xmalloc.h"

/* The name of sr's noted state: the top copy's none (reuse.h). */
static char *
noted_name(const struct snapshot *s, const struct snap_repo *sr)
{
	return sr == s->repos[0] ? NULL : snapshot_repo_nested_name(sr);
}

/*
 * An incremental copy keeps the ignored files it made, and only those:
 * not one forge put there as the working state's that the working state
 * now ignores, or has not.  Which those are is noted in the run
 * directory, first with what this run will put there too, should it
 * end before it notes this state alone (snapshot_reused_noted_end()).
 */
void
snapshot_reused_noted_begin(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	const struct strv *const	 of[] = { &l->flagged, &l->gitlinks,
	    NULL };
	struct strv			 old = STRV_INIT;
	char				*name;
	size_t				 i, k;

	name = noted_name(s, sr);
	sr->state_begun = 1;
	for (i = 0; i < l->entries.n; i++)
		strv_push(&sr->state_now, entlist_path(&l->entries, i));
	for (k = 0; of[k] != NULL; k++)
		for (i = 0; i < of[k]->n; i++)
			strv_push(&sr->state_now,
			    lsfiles_entry_path(of[k]->v[i]));
	strv_pushv(&sr->state_now, l->unmerged.v);
	strv_pushv(&sr->state_now, l->untracked.v);
	strv_sort_uniq(&sr->state_now);
	/* Not known, every ignored file goes (reuse_sync()). */
	if (s->reused && reuse_look_state_read(s->rd->carry, name, &old) == -1)
		sr->state_unknown = 1;
	for (i = 0; i < old.n; i++)
		if (!strv_sorted_has(&sr->state_now, old.v[i]))
			strv_push(&sr->state_gone, old.v[i]);
	/* Not known, nothing is noted before every ignored file is gone:
	 * a run that ends first leaves it not known still. */
	if (sr->state_unknown)
		reuse_look_state_forget(s->rd->carry, name);
	else if (sr->state_gone.n == 0 && old.n == sr->state_now.n)
		/* The same paths: noted already, before and after. */
		sr->state_noted = s->reused;
	else {
		strv_pushv(&old, sr->state_now.v);
		strv_sort_uniq(&old);
		(void)reuse_look_state_write(s->rd->carry, name, &old);
	}
	strv_free(&old);
	free(name);
}

/* The copy holds this working state: noted alone, but for what the
 * last run put there that is there still (noted_drop() left it: a
 * directory there now, say). */
void
snapshot_reused_noted_end(struct snapshot *s, struct snap_repo *sr)
{
	struct strv	 v = STRV_INIT;
	struct stat	 st;
	char		*p, *name;
	size_t		 i;

	if (!sr->state_begun || sr->state_noted)
		return;
	strv_pushv(&v, sr->state_now.v);
	for (i = 0; i < sr->state_gone.n; i++) {
		p = xasprintf("%s/%s", sr->dst, sr->state_gone.v[i]);
		if (lstat(p, &st) == 0)
			strv_push(&v, sr->state_gone.v[i]);
		free(p);
	}
	strv_sort_uniq(&v);
	name = noted_name(s, sr);
	(void)reuse_look_state_write(s->rd->carry, name, &v);
	free(name);
	strv_free(&v);
}

/* What the last run put in the copy that this working state has not,
 * removed before git keeps every ignored file there; each path tried
 * onto done. */
static void
noted_drop(struct snap_repo *sr, struct strv *done)
{
	struct strv	none = STRV_INIT;

	reuse_look_prefix(sr->src, sr->dst, &sr->state_gone, &none, NULL, done);
}

/*
 * The copy's own index, as a fresh copy's: HEAD's, staged as the
 * source's is -- unless it is still as the last run made it, for the
 * same HEAD and the same staging, which is then what it would be made.
 */
static int
own_index(struct snapshot *s, struct snap_repo *sr,
    const struct mirror_plan *mp)
{
	struct git	 dg;
	char		*key, *record;
	int		 ret = -1;

	snapshot_repo_dst_git(sr, &dg);
	dg.idle = &s->idle;
	record = xasprintf("%s/index.own", s->rd->carry);
	key = mirror_key(mp, sr->head, sr->dst);
	if (reuse_sync_index_same(sr->dst_gitdir, record, key))
		ret = 0;
	else if (proof_reused_copy_index(sr->proof) == NULL)
		/* The proof could not keep the index it made (a rename
		 * that failed, said): there is none to give the copy. */
		warnx("the reused copy %s has no index to take", fs_vis(sr->dst));
	else {
		(void)unlink(record);
		if (reuse_sync_index(sr->dst, sr->dst_gitdir,
		    proof_reused_copy_index(sr->proof), sr->head) == 0 &&
		    !sig_pending() && mirror_apply(&dg, mp) == 0) {
			if (mkdir(s->rd->carry, 0700) == 0 || errno == EEXIST)
				reuse_sync_index_note(sr->dst_gitdir, record,
				    key);
			ret = 0;
		}
	}
	free(key);
	free(record);
	return ret;
}

/*
 * The reused copy brought to HEAD the whole way (reuse.h's reuse_sync()),
 * an incremental one first rid of what the last run put there that this
 * working state has not.
 */
int
snapshot_reused_sync(struct snapshot *s, struct snap_repo *sr)
{
	struct reuse_copy	rc;
	struct strv		done = STRV_INIT;

	if (s->incremental && sr->state_gone.n > 0) {
		noted_drop(sr, &done);
		strv_free(&done);
	}
	snapshot_repo_reuse_copy(s, sr, &rc);
	rc.keep_ignored = s->incremental && !sr->state_unknown;
	return reuse_sync(&rc, s->incremental ? &s->marks : NULL,
	    &sr->dst_gitdir);
}

/* What is left of a reused copy's look, ended. */
void
snapshot_reused_stop(struct snapshot *s)
{
	/* The look's thread first: it may be putting the prefix in. */
	if (s->looking)
		reuse_look_free(&s->look);
	s->looking = 0;
	if (s->prefixing)
		reuse_look_prefix_free(&s->prefix);
	s->prefixing = 0;
}

/* Is a .gitignore among the paths of fix ("old new\tpath")? */
static int
ignore_rules(const struct strv *fix)
{
	struct lsfiles_change	 c;
	const char		*path, *base;
	size_t			 i;

	for (i = 0; i < fix->n; i++) {
		if (lsfiles_change_parse(fix->v[i], &c) == -1)
			continue;
		path = c.path;
		base = strrchr(path, '/');
		if (strcmp(base != NULL ? base + 1 : path, ".gitignore") == 0)
			return 1;
	}
	return 0;
}

/* Were a reused copy's files written with nothing to convert, as noted
 * (reconvert.h)?  Else it is not proved as it stands. */
static int
conv_none(const struct snapshot *s)
{
	const char	*had = s->repos[0]->conv.had.digest;

	return had != NULL && strcmp(had, "none") == 0;
}

/* What a reused copy proved as it stands goes through, step by step. */
struct as_is {
	struct strv		 fix;		/* the paths put right */
	struct strv		 again;		/* files git looks at again */
	struct strv		 changed;	/* untracked files that can
						   have changed */
	struct strv		 prefixed;	/* paths written before git
						   looked at them */
	struct strv		 links;		/* what may be a symlink */
	struct mirror_plan	 mp;		/* if planned: what the
						   copy's index is to stage */
	int			 planned;
	int			 looked;	/* begun as git listed the
						   working tree */
};

static void
as_is_free(struct as_is *a)
{
	if (a->planned)
		mirror_plan_free(&a->mp);
	strv_free(&a->fix);
	strv_free(&a->again);
	strv_free(&a->changed);
	strv_free(&a->prefixed);
	strv_free(&a->links);
	memset(a, 0, sizeof(*a));
}

/*
 * The copy readied to be proved as it stands, and the working tree's
 * changes since the last run put in it first.  -1: the copy is not to
 * be used.
 */
static int
as_is_ready(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l, const char *idx, struct as_is *a)
{
	const struct strv	*src_changed, *src_gone;
	struct reuse_copy	 rc;
	int			 r;

	/* Begun from that index as git listed the working tree, the look
	 * finds every file that can have changed since; else git is to
	 * look at every file. */
	if (s->looking) {
		s->looking = 0;
		r = reuse_look_end(&s->look, &sr->entries, &a->again,
		    &a->links, &sr->dst_gitdir);
	} else {
		snapshot_repo_reuse_copy(s, sr, &rc);
		r = reuse_sync_prepare(&rc, idx, proof_reused_time(sr->proof),
		    &sr->entries, &l->untracked, &a->again, &a->links,
		    &sr->dst_gitdir);
	}
	/* The look and the prefix are over: nothing else touches the copy
	 * as the submodules' directories are emptied, before git looks at
	 * the copy. */
	if (r == -1 || snapshot_repo_empty_gitlinks(sr, l) == -1)
		return -1;
	/*
	 * What changed in the working tree since the last run is put in
	 * the copy before git has looked at it there (proof_begin()) --
	 * most of it as forge listed the working tree (copy_repo()) --
	 * and git looks at it in the copy too: for most runs, the last
	 * thing put right before the two sides agree.  (Not where the
	 * copy keeps ignored files, which a change to ignore rules
	 * concerns.)
	 */
	if (a->looked && !s->incremental &&
	    (src_changed = proof_look_source_paths(sr->proof)) != NULL &&
	    (src_gone = proof_look_source_gone(sr->proof)) != NULL) {
		reuse_look_prefix(sr->src, sr->dst, src_gone, src_changed,
		    s->prefixing ? &s->prefix.paths : NULL, &a->prefixed);
	} else if (s->incremental)
		noted_drop(sr, &a->prefixed);
	/* Whatever it was begun by (copy_repo()). */
	proof_reused_written(sr->proof, &a->prefixed);
	proof_reused_look(sr->proof, &a->again, a->looked);
	/* Kept: an untracked file's mode is seen to only if it changed. */
	if (a->looked)
		strv_pushv(&a->changed, a->again.v);
	strv_free(&a->again);
	return 0;
}

/*
 * The copy proved as it stands, and put right where it differs
 * (reuse_look_fix()), what its index is to stage planned meanwhile: 1, it
 * holds the working state; else it is to be synced the whole way.
 */
static int
as_is_prove(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l, struct as_is *a)
{
	struct git	 sg;
	char		*plan;
	int		 r;

	/* What the copy's index is to stage, found while git looks at the
	 * copy. */
	snapshot_repo_src_git(sr, &sg);
	sg.idle = &s->idle;
	if (proof_reused_start(sr->proof, sr->dst_gitdir) == -1)
		r = -1;
	else {
		plan = xasprintf("%s/mirror.plan", s->rd->carry);
		a->planned = mirror_plan(&sg, sr->head, &sr->entries, l, plan,
		    &a->mp) == 0;
		free(plan);
		/* Ended either way: nothing of it goes on in the copy. */
		r = proof_reused(sr->proof, sr->dst_gitdir, &a->fix);
		if (!a->planned)
			r = -1;
	}
	/* A copy that keeps ignored files of its own, whose ignore rules
	 * are to change: what they keep is for the whole sync to find. */
	if (r == 0 && s->incremental && ignore_rules(&a->fix))
		r = -1;
	if (r == 0 && !sig_pending()) {
		sig_test_stall("fix");
		r = reuse_look_fix(sr->src, sr->dst, &a->fix) == 0 ?
		    proof_reused(sr->proof, sr->dst_gitdir, &a->again) : -1;
	}
	return r;
}

/*
 * The proved copy given what a fresh copy has that git does not record:
 * the modes of what forge wrote and of the untracked and flagged files
 * that can have changed; what can be a symlink in it; its own index.
 * -1: the copy is not to be used.
 */
static int
as_is_finish(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l, struct as_is *a)
{
	struct strv		 paths = STRV_INIT;
	struct lsfiles_change	 c;
	const struct strv	*src_changed;
	size_t			 i;
	int			 r;

	/* Tracked files have the modes of their entries (reuse_sync_prepare()),
	 * but those forge copied; the others, the source's. */
	for (i = 0; i < a->fix.n; i++)
		if (lsfiles_change_parse(a->fix.v[i], &c) == 0)
			strv_push(&paths, c.path);
	strv_pushv(&paths, a->prefixed.v);
	strv_sort_uniq(&paths);
	s->fixed = (long)paths.n;
	/* An untracked file whose stat data is as git kept it on both
	 * sides has the mode it was given when it last changed. */
	src_changed = proof_look_source_paths(sr->proof);
	if (a->looked && src_changed != NULL) {
		strv_pushv(&a->changed, src_changed->v);
		strv_sort_uniq(&a->changed);
	}
	for (i = 0; i < l->untracked.n; i++)
		if (!a->looked || src_changed == NULL ||
		    strv_sorted_has(&a->changed, l->untracked.v[i]))
			strv_push(&paths, l->untracked.v[i]);
	for (i = 0; i < l->flagged.n; i++)
		strv_push(&paths, lsfiles_entry_path(l->flagged.v[i]));
	r = reuse_modes(sr->src, sr->dst, &paths, &sr->entries, &l->flagged,
	    sr->filemode);
	/*
	 * The copy is the working state, which has a file only where the
	 * index has an entry or git lists an untracked one: what may be a
	 * symlink is what was one among the entries, and what was written
	 * or is untracked.  A copy with ignored files of its own has more.
	 */
	if (!s->incremental) {
		for (i = 0; i < paths.n; i++)
			strv_push(&a->links, paths.v[i]);
		/* A conflict's path is no entry of stage 0: what the
		 * working tree has there, the copy has. */
		for (i = 0; i < l->unmerged.n; i++)
			strv_push(&a->links, l->unmerged.v[i]);
		strv_sort_uniq(&a->links);
		strv_free(&s->links);
		s->links = a->links;
		memset(&a->links, 0, sizeof(a->links));
		s->links_known = 1;
	}
	strv_free(&paths);
	if (r == -1)
		warnx("cannot give the reused copy %s a fresh copy's modes",
		    fs_vis(sr->dst));
	else
		r = own_index(s, sr, &a->mp);
	return r;
}

/*
 * A reused copy proved as it stands, before the sync: if it holds the
 * working state, or does once the paths where it differs are put right,
 * it needs nothing more -- no file rewritten that is what it is to be,
 * no pass over the whole tree but the proof's.  1: so it is, the index
 * made and staged; 0: it must be brought up to date the full way
 * (nothing is lost: that way starts from whatever state this left);
 * -1: the copy is not to be used.
 */
int
snapshot_reused_as_is(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	struct as_is	 a;
	const char	*idx;
	long long	 t = timeutil_now_ms();
	int		 r;

	memset(&a, 0, sizeof(a));
	a.looked = s->looking;
	/* The walk over: one that failed says the copy is not to be used,
	 * whichever way it is brought up to date.  Nothing else touches
	 * the copy while the prefix goes on. */
	if (s->looking && reuse_look_wait(&s->look) == -1) {
		snapshot_reused_stop(s);
		return -1;
	}
	if (s->prefixing) {
		reuse_look_prefix_wait(&s->prefix);
		strv_pushv(&a.prefixed, s->prefix.done.v);
	}
	/* An incremental copy whose own ignored files are not known from
	 * the rest goes the whole way: without them. */
	if (snapshot_repo_may_convert(sr, l) || !conv_none(s) ||
	    (s->incremental && sr->state_unknown) ||
	    (idx = proof_reused_index(sr->proof)) == NULL) {
		snapshot_reused_stop(s);
		as_is_free(&a);
		return 0;
	}
	if (as_is_ready(s, sr, l, idx, &a) == -1) {
		as_is_free(&a);
		return -1;
	}
	r = as_is_prove(s, sr, l, &a);
	if (r != 1 || sig_pending()) {
		as_is_free(&a);
		free(sr->dst_gitdir);
		sr->dst_gitdir = NULL;
		s->fixed = -1;
		return sig_pending() ? -1 : 0;
	}
	r = as_is_finish(s, sr, l, &a);
	as_is_free(&a);
	s->ms[SNAP_CHECKOUT] += timeutil_now_ms() - t;
	/* Nothing converts, nor did: so it is noted again. */
	reconvert_as_is(&sr->conv);
	return r == -1 ? -1 : 1;
}

/*
 * A reused copy's own side, begun while git lists the working tree:
 * from the index its last proof left, which needs nothing of that list.
 * -1: the copy is not to be used; else begun, or left for later.
 */
static int
look_begin(struct snapshot *s, struct snap_repo *sr)
{
	struct reuse_copy	 rc;
	struct timespec		 since;
	char			*idx;
	int			 r;

	if (!s->reused || sr != s->repos[0] || !s->check || !conv_none(s))
		return 0;
	if ((idx = proof_carry_copy_index(s->rd, s->nrepos, sr->dst,
	    s->incremental, &since)) == NULL)
		return 0;
	snapshot_repo_reuse_copy(s, sr, &rc);
	r = reuse_look_begin(&s->look, &rc, idx, &since,
	    proof_carry_clock_steady(s->rd, s->nrepos));
	free(idx);
	s->looking = r == 1;
	return r == -1 ? -1 : 0;
}

/*
 * The working tree listed by g into l, as the source's side of the proof
 * and the copy's look begin from what the last proof kept, and the
 * working tree's changed files are put in the copy meanwhile.  -1 with
 * a message.
 */
int
snapshot_reused_list(struct snapshot *s, struct snap_repo *sr,
    const struct git *g, struct lsfiles *l)
{
	struct lsfiles_job	lj;

	if (lsfiles_start(&lj, g, s->rd->scratch) != 0)
		return lsfiles_read(l, g);
	/* The source's files against what its side kept, and the copy's
	 * against what its side kept, as git lists. */
	proof_look_start(&s->source_look, s->rd, s->nrepos, sr->src,
	    sr->common, sr->head);
	s->source_looked = 1;
	if (look_begin(s, sr) == -1) {
		lsfiles_cancel(&lj);
		proof_look_free(&s->source_look);
		s->source_looked = 0;
		return -1;
	}
	proof_look_wait(&s->source_look);
	/* The working tree's changed files put in the copy while forge
	 * goes on, by the copy's look once its walk is over
	 * (snapshot_reused_as_is()). */
	if (s->looking && !s->incremental && s->source_look.ok) {
		sig_test_stall("prefix");
		reuse_look_then(&s->look, &s->prefix, sr->src, sr->dst,
		    &s->source_look.stale);
		s->prefixing = 1;
	}
	return lsfiles_finish(&lj, l);
}

/* sr's copy rid of the rule files it keeps as its own (reuse.h), the
 * tracked files being those of index; how many said. */
static int
drop_rules(struct snapshot *s, struct snap_repo *sr, const char *src,
    const char *index)
{
	struct reuse_copy	rc;
	struct strv		dropped = STRV_INIT;
	int			r;

	snapshot_repo_reuse_copy(s, sr, &rc);
	r = reuse_rules_drop(&rc, src, index, &dropped);
	snapshot_repo_rules_said(sr, &dropped);
	strv_free(&dropped);
	return r;
}

/* An incremental copy's own ignored files, but for those git reads as
 * instructions (reuse.h), before git reads them. */
int
snapshot_reused_rules(struct snapshot *s, struct snap_repo *sr)
{
	return drop_rules(s, sr, sr->src, sr->index);
}

/* What git ls-files -z says of the index g names: each path onto v. */
static int
index_paths(const struct git *g, struct strv *v)
{
	const char *const	 none[] = { NULL };
	struct buf		 err = BUF_INIT;
	int			 st;

	if ((st = lsfiles_paths(g, none, v, &err)) != 0 && st > 0)
		warnx("cannot list the tree to verify: git ls-files: %s",
		    git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/*
 * The index of the tree to verify, in the source repository: the staged
 * one (sr->index, the run's copy of it), or for a commit one read from
 * its tree into the scratch space -- a submodule's, at the commit its
 * gitlink names.  The caller frees the path.
 */
static char *
source_index(struct snapshot *s, struct snap_repo *sr)
{
	const char	*a[] = { "read-tree", NULL, NULL };
	struct git	 g;
	struct buf	 err = BUF_INIT;
	char		*idx, *name;
	int		 st;

	if (sr == s->repos[0] && s->source->kind == SOURCE_STAGED)
		return xstrdup(sr->index);
	if (sr == s->repos[0]) {
		a[1] = s->source->commit;
		idx = xasprintf("%s/rev.index", s->rd->scratch);
	} else {
		a[1] = sr->head;
		name = snapshot_repo_nested_name(sr);
		idx = xasprintf("%s/rev-%s.index", s->rd->scratch, name);
		free(name);
	}
	snapshot_repo_src_git(sr, &g);
	g.index = idx;
	if ((st = git_run(&g, a, 0, NULL, NULL, &err)) != 0) {
		if (st > 0)
			warnx("cannot read the commit's tree: git read-tree: "
			    "%s", git_why(&err, st));
		free(idx);
		idx = NULL;
	}
	buf_free(&err);
	return idx;
}

/*
 * Which paths forge puts in an incremental copy of a tree: those of its
 * index (into *index, the caller frees it), the rest being the copy's
 * own ignored files.
 */
int
snapshot_reused_source_noted(struct snapshot *s, struct snap_repo *sr,
    char **index)
{
	struct lsfiles	l;
	struct git	g;

	if ((*index = source_index(s, sr)) == NULL)
		return -1;
	memset(&l, 0, sizeof(l));
	snapshot_repo_src_git(sr, &g);
	g.index = *index;
	if (index_paths(&g, &l.untracked) == -1)
		return -1;
	snapshot_reused_noted_begin(s, sr, &l);
	lsfiles_free(&l);
	return 0;
}

/* Before git reads the copy: its own ignored files that git reads as
 * instructions dropped, and every untracked one (a copy of a tree has
 * no file of the working tree's that is not in it). */
static int
source_rules(struct snapshot *s, struct snap_repo *sr, const char *index)
{
	return drop_rules(s, sr, NULL, index);
}

/* The files that differ between the commit and the staged tree: written
 * twice (the commit's, then the tree's), their times kept all the same
 * where their content is what it was (reuse.h's marks). */
static void
staged_marks(struct snapshot *s, struct snap_repo *sr)
{
	const char *const	 a[] = { "diff-tree", "-r", "-z", "--name-only",
	    "--no-renames", s->source->commit, s->source->tree, NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	struct strv		 v = STRV_INIT;
	const char		*p, *end;

	snapshot_repo_src_git(sr, &g);
	g.index = NULL;
	if (git_run(&g, a, 0, NULL, &out, NULL) == 0) {
		for (p = out.data, end = p + out.len; p != NULL && p < end;
		    p += strlen(p) + 1)
			if (*p != '\0')
				strv_push(&v, p);
		reuse_sync_marks_add(&s->marks, sr->dst, &v);
	}
	strv_free(&v);
	buf_free(&out);
}

int
snapshot_reused_source(struct snapshot *s, struct snap_repo *sr,
    const char *index)
{
	const char *const	 a[] = { "read-tree", "--reset", "-u",
	    "--no-recurse-submodules", s->source->tree, NULL };
	struct git		 g;
	struct buf		 err = BUF_INIT;
	int			 st, r = -1;

	if (s->incremental && source_rules(s, sr, index) == -1)
		goto out;
	if (s->incremental && s->source->kind == SOURCE_STAGED)
		staged_marks(s, sr);
	if (sig_pending() || snapshot_reused_sync(s, sr) == -1)
		goto out;
	if (s->source->kind == SOURCE_STAGED) {
		snapshot_repo_dst_git(sr, &g);
		g.idle = &s->idle;
		if ((st = git_run(&g, a, 0, NULL, NULL, &err)) != 0) {
			if (st > 0)
				warnx("cannot check out the staged tree into "
				    "the reused copy: git read-tree: %s",
				    git_why(&err, st));
			goto out;
		}
	}
	r = 0;
out:
	buf_free(&err);
	return r;
}
