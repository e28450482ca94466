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
#include "gitcmd.h"
#include "lsfiles.h"
#include "mirror.h"
#include "proof.h"
#include "reuse.h"
#include "sig.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "timeutil.h"
#include "xmalloc.h"

/*
 * An incremental copy keeps the ignored files it made, and only those:
 * not one forge put there as the working state's that the working state
 * now ignores, or has not.  Which those are is noted in the run
 * directory, first with what this run will put there too, should it
 * end before it notes this state alone (snapshot_noted_end()).
 */
void
snapshot_noted_begin(struct snapshot *s, const struct lsfiles *l)
{
	const struct strv *const	 of[] = { &l->entries, &l->flagged,
	    &l->gitlinks, NULL };
	struct strv			 old = STRV_INIT;
	size_t				 i, k;

	for (k = 0; of[k] != NULL; k++)
		for (i = 0; i < of[k]->n; i++)
			strv_push(&s->state_now,
			    lsfiles_entry_path(of[k]->v[i]));
	strv_pushv(&s->state_now, l->unmerged.v);
	strv_pushv(&s->state_now, l->untracked.v);
	strv_sort_uniq(&s->state_now);
	/* Not known, every ignored file goes (reuse_sync()). */
	if (s->reused && reuse_state_read(s->rd->carry, &old) == -1)
		s->state_unknown = 1;
	for (i = 0; i < old.n; i++)
		if (!strv_sorted_has(&s->state_now, old.v[i]))
			strv_push(&s->state_gone, old.v[i]);
	/* Not known, nothing is noted before every ignored file is gone:
	 * a run that ends first leaves it not known still. */
	if (s->state_unknown)
		reuse_state_forget(s->rd->carry);
	else if (s->state_gone.n == 0 && old.n == s->state_now.n)
		/* The same paths: noted already, before and after. */
		s->state_noted = s->reused;
	else {
		strv_pushv(&old, s->state_now.v);
		strv_sort_uniq(&old);
		(void)reuse_state_write(s->rd->carry, &old);
	}
	strv_free(&old);
}

/* The copy holds this working state: noted alone, but for what the
 * last run put there that is there still (noted_drop() left it: a
 * directory there now, say). */
void
snapshot_noted_end(struct snapshot *s, const struct snap_repo *sr)
{
	struct strv	 v = STRV_INIT;
	struct stat	 st;
	char		*p;
	size_t		 i;

	if (s->state_noted)
		return;
	strv_pushv(&v, s->state_now.v);
	for (i = 0; i < s->state_gone.n; i++) {
		p = xasprintf("%s/%s", sr->dst, s->state_gone.v[i]);
		if (lstat(p, &st) == 0)
			strv_push(&v, s->state_gone.v[i]);
		free(p);
	}
	strv_sort_uniq(&v);
	(void)reuse_state_write(s->rd->carry, &v);
	strv_free(&v);
}

/* What the last run put in the copy that this working state has not,
 * removed before git keeps every ignored file there; each path tried
 * onto done. */
static void
noted_drop(struct snapshot *s, struct snap_repo *sr, struct strv *done)
{
	struct strv	none = STRV_INIT;

	reuse_prefix(sr->src, sr->dst, &s->state_gone, &none, NULL, done);
}

/* The reused copy of sr, as reuse.h's steps take it. */
static void
reused_copy(struct snapshot *s, const struct snap_repo *sr,
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

	snapshot_dst_git(sr, &dg);
	dg.idle = &s->idle;
	record = xasprintf("%s/index.own", s->rd->carry);
	key = mirror_key(mp, sr->head, sr->dst);
	if (reuse_index_same(sr->dst_gitdir, record, key))
		ret = 0;
	else {
		(void)unlink(record);
		if (reuse_index(sr->dst, sr->dst_gitdir,
		    proof_copy_index(sr->proof), sr->head) == 0 &&
		    !sig_pending() && mirror_apply(&dg, mp) == 0) {
			if (mkdir(s->rd->carry, 0700) == 0 || errno == EEXIST)
				reuse_index_note(sr->dst_gitdir, record, key);
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

	if (s->incremental && s->state_gone.n > 0) {
		noted_drop(s, sr, &done);
		strv_free(&done);
	}
	reused_copy(s, sr, &rc);
	rc.keep_ignored = s->incremental && !s->state_unknown;
	return reuse_sync(&rc, s->incremental ? &s->marks : NULL,
	    &sr->dst_gitdir);
}

/* What is left of a reused copy's look, ended. */
void
snapshot_reused_stop(struct snapshot *s)
{
	if (s->prefixing)
		reuse_prefix_free(&s->prefix);
	s->prefixing = 0;
	if (s->looking)
		reuse_look_free(&s->look);
	s->looking = 0;
}

/* Is a .gitignore among the paths of fix ("old new\tpath")? */
static int
ignore_rules(const struct strv *fix)
{
	const char	*path, *base;
	size_t		 i;

	for (i = 0; i < fix->n; i++) {
		path = strchr(fix->v[i], '\t') + 1;
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
	return s->conv_had.digest != NULL &&
	    strcmp(s->conv_had.digest, "none") == 0;
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
	struct strv		 fix = STRV_INIT, again = STRV_INIT;
	struct strv		 paths = STRV_INIT, links = STRV_INIT;
	struct strv		 changed = STRV_INIT, prefixed = STRV_INIT;
	const struct strv	*src_changed, *src_gone;
	struct reuse_copy	 rc;
	char			*plan;
	struct mirror_plan	 mp;
	struct git		 sg;
	const char		*idx;
	long long		 t = time_now_ms();
	size_t			 i;
	int			 r, planned = 0, looked = s->looking;

	/* Nothing else touches the copy while that goes on. */
	if (s->prefixing) {
		reuse_prefix_wait(&s->prefix);
		strv_pushv(&prefixed, s->prefix.done.v);
	}
	/* An incremental copy whose own ignored files are not known from
	 * the rest goes the whole way: without them. */
	if (snapshot_may_convert(sr, l) || !conv_none(s) ||
	    (s->incremental && s->state_unknown) ||
	    (idx = proof_reused_index(sr->proof)) == NULL) {
		snapshot_reused_stop(s);
		strv_free(&prefixed);
		return 0;
	}
	/* Begun from that index as git listed the working tree, the look
	 * finds every file that can have changed since; else git is to
	 * look at every file. */
	if (s->looking) {
		s->looking = 0;
		r = reuse_look_end(&s->look, &sr->entries, &again, &links,
		    &sr->dst_gitdir);
	} else {
		reused_copy(s, sr, &rc);
		r = reuse_prepare(&rc, idx, proof_reused_time(sr->proof),
		    &sr->entries, &l->untracked, &again, &links,
		    &sr->dst_gitdir);
	}
	if (r == -1) {
		strv_free(&again);
		strv_free(&links);
		strv_free(&prefixed);
		return -1;
	}
	/*
	 * What changed in the working tree since the last run is put in
	 * the copy before git has looked at it there (proof_begin()) --
	 * most of it as forge listed the working tree (copy_repo()) --
	 * and git looks at it in the copy too: for most runs, the last
	 * thing put right before the two sides agree.  (Not where the
	 * copy keeps ignored files, which a change to ignore rules
	 * concerns.)
	 */
	if (looked && !s->incremental &&
	    (src_changed = proof_source_paths(sr->proof)) != NULL &&
	    (src_gone = proof_source_gone(sr->proof)) != NULL) {
		reuse_prefix(sr->src, sr->dst, src_gone, src_changed,
		    s->prefixing ? &s->prefix.paths : NULL, &prefixed);
	} else if (s->incremental)
		noted_drop(s, sr, &prefixed);
	/* Whatever it was begun by (copy_repo()). */
	proof_reused_written(sr->proof, &prefixed);
	proof_reused_look(sr->proof, &again, looked);
	/* Kept: an untracked file's mode is seen to only if it changed. */
	if (looked)
		strv_pushv(&changed, again.v);
	strv_free(&again);
	/* What the copy's index is to stage, found while git looks at the
	 * copy. */
	snapshot_src_git(sr, &sg);
	sg.idle = &s->idle;
	if (proof_reused_start(sr->proof, sr->dst_gitdir) == -1)
		r = -1;
	else {
		plan = xasprintf("%s/mirror.plan", s->rd->carry);
		planned = mirror_plan(&sg, sr->head, &sr->entries, l, plan,
		    &mp) == 0;
		free(plan);
		/* Ended either way: nothing of it goes on in the copy. */
		r = proof_reused(sr->proof, sr->dst_gitdir, &fix);
		if (!planned)
			r = -1;
	}
	/* A copy that keeps ignored files of its own, whose ignore rules
	 * are to change: what they keep is for the whole sync to find. */
	if (r == 0 && s->incremental && ignore_rules(&fix))
		r = -1;
	if (r == 0 && !sig_pending()) {
		sig_test_stall("fix");
		r = reuse_fix(sr->src, sr->dst, &fix) == 0 ?
		    proof_reused(sr->proof, sr->dst_gitdir, &again) : -1;
	}
	if (r != 1 || sig_pending()) {
		if (planned)
			mirror_plan_free(&mp);
		strv_free(&fix);
		strv_free(&again);
		strv_free(&changed);
		strv_free(&prefixed);
		strv_free(&links);
		free(sr->dst_gitdir);
		sr->dst_gitdir = NULL;
		s->fixed = -1;
		return sig_pending() ? -1 : 0;
	}
	/* Tracked files have the modes of their entries (reuse_prepare()),
	 * but those forge copied; the others, the source's. */
	for (i = 0; i < fix.n; i++)
		strv_push(&paths, strchr(fix.v[i], '\t') + 1);
	strv_pushv(&paths, prefixed.v);
	strv_sort_uniq(&paths);
	s->fixed = (long)paths.n;
	strv_free(&prefixed);
	/* An untracked file whose stat data is as git kept it on both
	 * sides has the mode it was given when it last changed. */
	src_changed = proof_source_paths(sr->proof);
	if (looked && src_changed != NULL) {
		strv_pushv(&changed, src_changed->v);
		strv_sort_uniq(&changed);
	}
	for (i = 0; i < l->untracked.n; i++)
		if (!looked || src_changed == NULL ||
		    strv_sorted_has(&changed, l->untracked.v[i]))
			strv_push(&paths, l->untracked.v[i]);
	strv_free(&changed);
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
			strv_push(&links, paths.v[i]);
		/* A conflict's path is no entry of stage 0: what the
		 * working tree has there, the copy has. */
		for (i = 0; i < l->unmerged.n; i++)
			strv_push(&links, l->unmerged.v[i]);
		strv_sort_uniq(&links);
		strv_free(&s->links);
		s->links = links;
		s->links_known = 1;
	} else
		strv_free(&links);
	strv_free(&paths);
	strv_free(&fix);
	strv_free(&again);
	if (r == -1)
		warnx("cannot give the reused copy %s a fresh copy's modes",
		    fs_vis(sr->dst));
	else
		r = own_index(s, sr, &mp);
	mirror_plan_free(&mp);
	s->ms[SNAP_CHECKOUT] += time_now_ms() - t;
	/* Nothing converts, nor did: so it is noted again. */
	s->conv_now = xstrdup("none");
	return r == -1 ? -1 : 1;
}

/*
 * A reused copy's own side, begun while git lists the working tree:
 * from the index its last proof left, which needs nothing of that list.
 * -1: the copy is not to be used; else begun, or left for later.
 */
int
snapshot_reused_look(struct snapshot *s, struct snap_repo *sr)
{
	struct reuse_copy	 rc;
	struct timespec		 since;
	char			*idx;
	int			 r;

	if (!s->reused || sr != s->repos[0] || !s->check || !conv_none(s))
		return 0;
	if ((idx = proof_copy_carried(s->rd, s->nrepos, sr->dst,
	    s->incremental, &since)) == NULL)
		return 0;
	reused_copy(s, sr, &rc);
	r = reuse_look_begin(&s->look, &rc, idx, &since);
	free(idx);
	s->looking = r == 1;
	return r == -1 ? -1 : 0;
}

/* An incremental copy's own ignored files, but for those git reads as
 * instructions (reuse.h), before git reads them. */
int
snapshot_reused_rules(struct snapshot *s, struct snap_repo *sr)
{
	struct reuse_copy	rc;
	struct strv		dropped = STRV_INIT;
	int			r;

	reused_copy(s, sr, &rc);
	r = reuse_drop_rules(&rc, sr->src, sr->index, &dropped);
	if (dropped.n > 0)
		fprintf(stderr, "forge: removed from the incremental copy %zu "
		    "file%s of its own that git reads as instructions "
		    "(%s%s)\n",
		    dropped.n, dropped.n == 1 ? "" : "s",
		    fs_vis(dropped.v[0]), dropped.n > 1 ? ", ..." : "");
	strv_free(&dropped);
	return r;
}
