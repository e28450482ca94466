/* The run's copy: claimed or made, then kept, parked or removed. */
#include "config.h"

#include <sys/resource.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clone.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "hint.h"
#include "patch.h"
#include "repo.h"
#include "reuse.h"
#include "rundir.h"
#include "setupin.h"
#include "sig.h"
#include "snapshot.h"
#include "timeutil.h"
#include "verify_copy.h"
#include "verify_int.h"
#include "xmalloc.h"

void
verify_copy_phases(const struct snapshot *s)
{
	struct rusage	self, kids;
	char		a[32], b[32], c[32], d[32];

	fprintf(stderr, "forge: copy %s ready: checkout %s, changes %s, "
	    "untracked %s, proof %s\n", fs_vis(s->copy),
	    timeutil_duration(a, sizeof(a), s->ms[SNAP_CHECKOUT]),
	    timeutil_duration(b, sizeof(b), s->ms[SNAP_APPLY]),
	    timeutil_duration(c, sizeof(c), s->ms[SNAP_UNTRACKED]),
	    timeutil_duration(d, sizeof(d), s->ms[SNAP_PROOF]));
	if (s->fixed >= 0)
		fprintf(stderr, "forge: the reused copy was proved as it stood"
		    "%s%ld path%s put right\n", s->fixed > 0 ? " once " : ": ",
		    s->fixed, s->fixed == 1 ? "" : "s");
	if (s->looked >= 0)
		fprintf(stderr, "forge: the working tree's files changed since "
		    "the last run: %ld, the only ones git looked at\n",
		    s->looked);
	/* Peaks so far: forge's own, and its largest git's. */
	if (getrusage(RUSAGE_SELF, &self) == 0 &&
	    getrusage(RUSAGE_CHILDREN, &kids) == 0)
		fprintf(stderr, "forge: peak memory: forge %ld KiB, git %ld "
		    "KiB (git diff | git apply %ld KiB)\n", self.ru_maxrss,
		    kids.ru_maxrss, patch_peak_kb());
}

/*
 * TMPDIR inside the working tree, and not ignored: the copy would list
 * itself among the untracked files it copies.  Refused before anything
 * is built.
 */
int
verify_copy_tmpdir(const struct repo *repo)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	char		*tmp;
	int		 st, ret = 0;

	tmp = rundir_tmpdir();
	if (!fs_path_in(tmp, repo->top) || fs_path_in(tmp, repo->gitdir) ||
	    fs_path_in(tmp, repo->common)) {
		free(tmp);
		return 0;
	}
	repo_git(repo, &g);
	strv_push(&a, "check-ignore");
	strv_push(&a, "-q");
	strv_push(&a, "--");
	strv_pushf(&a, "%s/", tmp);
	st = git_run(&g, (const char *const *)a.v, 0, NULL, NULL, NULL);
	if (st != 0) {
		warnx("TMPDIR %s is inside the working tree and not ignored: "
		    "the copy would hold itself; point TMPDIR elsewhere, or "
		    "ignore it", fs_vis(tmp));
		ret = -1;
	}
	strv_free(&a);
	free(tmp);
	return ret;
}

/* Where a setup record's digests of the files setup commonly reads
 * begin: they are for a hint, and never decide whether it runs. */
#define READ_MARK	"\036read\n"
/* Where the paths setup changed begin, which decide: a record that has
 * them is never the one a run wants. */
#define CHANGED_MARK	"\036changed\n"

/*
 * What the setup steps made of a copy, for an incremental copy to
 * remember when it is parked: the steps and the digests of their inputs
 * (forge.setupInputs), or "" if any of them did not run to success
 * (as_run), or would be (!as_run).  A copy whose setup steps were all
 * skipped keeps the record it was parked with.
 */
char *
verify_copy_setup(const struct run *r, int as_run)
{
	struct buf	b = BUF_INIT;
	size_t		i;
	int		skipped = 0, ran = 0;

	for (i = 0; as_run && i < r->nsteps; i++) {
		if (!r->steps[i].setup)
			continue;
		if (r->steps[i].skip) {
			skipped++;
			continue;
		}
		if (!r->steps[i].ran || r->steps[i].status != 0)
			return xstrdup("");
		ran++;
	}
	if (skipped > 0 && ran == 0 && r->copy.had_setup != NULL)
		return xstrdup(r->copy.had_setup);
	if (r->copy.setup_unsure)
		return xstrdup("");
	buf_adds(&b, "setup\n");
	for (i = 0; i < r->nsteps; i++) {
		if (!r->steps[i].setup)
			continue;
		buf_adds(&b, r->steps[i].display);
		buf_addc(&b, '\n');
	}
	if (r->copy.setup_inputs != NULL)
		buf_adds(&b, r->copy.setup_inputs);
	if (as_run && r->copy.setup_changed.n > 0) {
		buf_adds(&b, CHANGED_MARK);
		for (i = 0; i < r->copy.setup_changed.n; i++) {
			buf_adds(&b, r->copy.setup_changed.v[i]);
			buf_addc(&b, '\n');
		}
	}
	if (as_run && r->copy.setup_read != NULL) {
		buf_adds(&b, READ_MARK);
		buf_adds(&b, r->copy.setup_read);
	}
	return buf_detach(&b);
}

/* A setup record, up to its hint's part: what decides. */
static size_t
deciding_len(const char *rec)
{
	const char	*m = strstr(rec, READ_MARK);

	return m != NULL ? (size_t)(m - rec) : strlen(rec);
}

int
verify_copy_setup_same(const char *had, const char *want)
{
	return had != NULL && deciding_len(had) == strlen(want) &&
	    strncmp(want, had, strlen(want)) == 0;
}

/* What the run asks of the pool of parked copies (reuse.h). */
static void
want_of(const struct run *r, struct reuse_want *w)
{
	memset(w, 0, sizeof(*w));
	w->source = r->ctx->repo.top;
	w->kind = r->source.kind == SOURCE_STAGED ? REUSE_STAGED :
	    r->source.kind == SOURCE_REV ? REUSE_REV : REUSE_WORKTREE;
	w->incremental = r->mode.incremental;
	w->max = r->ctx->cfg.reuse_copies;
	w->gitdir = r->ctx->repo.gitdir;
	w->head = r->ctx->repo.head;
}

/*
 * A parked copy's run directory, if there is one to reuse -- none for a
 * run whose copy is known not to be parked: it would only cost another
 * run its copy.
 */
void
verify_copy_claim(struct run *r)
{
	struct reuse_want	 w;
	const char		*why;

	if ((why = snapshot_why_not_parked(&r->ctx->repo)) != NULL) {
		r->copy.not_reused = why;
		return;
	}
	want_of(r, &w);
	if (reuse_park_claim(&r->copy.rd, r->ctx->repo.common, &w,
	    &r->copy.claim) == 1) {
		r->copy.reused = 1;
		r->copy.had_setup = xstrdup(r->copy.claim.setup);
	}
}

int
verify_copy_make(struct run *r, int verbose)
{
	int	flags = 0;

	if (!r->mode.check)
		flags |= SNAP_NOCHECK;
	if (r->copy.reused)
		flags |= SNAP_REUSED;
	if (r->mode.incremental)
		flags |= SNAP_INCREMENTAL;
	if (r->mode.clone)
		flags |= SNAP_CLONE;
	/* A range's copy goes on to the next commit as a parked one goes
	 * to the next run (verify_carry.h); one the settings keep from
	 * reuse (verify_copy_claim()) is not parked either. */
	if ((r->mode.reuse && r->copy.not_reused == NULL) || r->mode.range)
		flags |= SNAP_PARK;
	if (verbose)
		flags |= SNAP_VERBOSE;
	r->copy.have_snap = 1;
	if (snapshot_create_from(&r->copy.snap, &r->copy.rd, &r->ctx->repo,
	    &r->source, flags, r->ctx->cfg.copy_threshold) == 0) {
		if (r->mode.reuse && r->copy.snap.not_reusable != NULL)
			r->copy.not_reused = r->copy.snap.not_reusable;
		return 0;
	}
	if (!r->copy.reused || sig_pending())
		return -1;
	if (r->copy.snap.not_reusable != NULL) {
		/* Not to be parked, found once claimed (said once, as the
		 * fresh copy is made, by the caller): the claimed copy goes
		 * back as it stands, for the run it was parked for, its
		 * nested copies set aside as on any park. */
		if (snapshot_parked_set_aside(&r->copy.snap) == -1) {
			snapshot_free(&r->copy.snap);
			(void)rundir_remove(&r->copy.rd);
		} else {
			snapshot_free(&r->copy.snap);
			(void)verify_copy_unclaim(r);
		}
	} else {
		/* Repaired or rebuilt, never trusted: a fresh copy it is. */
		fprintf(stderr, "forge: the reused copy could not be brought "
		    "up to date: building a fresh one\n");
		snapshot_free(&r->copy.snap);
		(void)rundir_remove(&r->copy.rd);
	}
	r->copy.have_snap = 0;
	rundir_free(&r->copy.rd);
	r->copy.reused = 0;
	if (rundir_open(&r->copy.rd, r->ctx->repo.common) == -1)
		return -1;
	return verify_copy_make(r, verbose);
}

/*
 * The digests of the copy's setup inputs, as it stands before the steps:
 * "inputs" and the patterns, then "<digest> <path>" a file.  With no
 * pattern, every file is an input: the trees proved, the top one's and
 * each nested repository's.  -1 if they could not be had.
 */
static int
inputs_state(struct run *r)
{
	const struct strv	*pat = &r->ctx->cfg.setup_inputs;
	struct buf		 b = BUF_INIT;
	size_t			 i;

	if (pat->n == 0) {
		if (!r->copy.have_snap || r->copy.snap.tree == NULL)
			return -1;
		buf_addf(&b, "inputs\n:every file\ndigests\n%s \n",
		    r->copy.snap.tree);
		for (i = 0; i < r->copy.snap.trees.n; i++)
			buf_addf(&b, "%s\n", r->copy.snap.trees.v[i]);
		/* And how git wrote each tree's files: a tree is its
		 * files' bytes only as git converts them (an attributes
		 * file outside the tree changes them, not the tree). */
		for (i = 0; i < r->copy.snap.converts.n; i++) {
			if (strcmp(strrchr(r->copy.snap.converts.v[i], ' '),
			    " ?") == 0) {
				buf_free(&b);
				return -1;
			}
			buf_addf(&b, "convert %s\n",
			    r->copy.snap.converts.v[i]);
		}
		r->copy.setup_inputs = buf_detach(&b);
		return 0;
	}
	buf_adds(&b, "inputs\n");
	for (i = 0; i < pat->n; i++)
		buf_addf(&b, "%s\n", pat->v[i]);
	buf_adds(&b, "digests\n");
	if (setupin_digest(r->copy.snap.copy, pat, &b) == -1) {
		buf_free(&b);
		return -1;
	}
	r->copy.setup_inputs = buf_detach(&b);
	return 0;
}

/* Setup runs again for what it changed: said, with the first path. */
static int
say_setup_changed(const char *had)
{
	const char	*p;
	char		*path;
	size_t		 n = 0;

	if (had == NULL || (p = strstr(had, CHANGED_MARK)) == NULL)
		return 0;
	p += strlen(CHANGED_MARK);
	path = xstrndup(p, strcspn(p, "\n\036"));
	for (; *p != '\0' && *p != '\036'; p++)
		n += *p == '\n';
	fprintf(stderr, "forge: setup runs again: it had changed %s%s, which "
	    "the copy put back\n", fs_vis(path), n > 1 ? " and more" : "");
	free(path);
	return 1;
}

/* Setup runs again, its record had: say why. */
void
verify_copy_setup_why(const struct run *r, const char *had)
{
	struct strv	 changed = STRV_INIT;
	const char	*then, *now;
	char		*t;

	if (say_setup_changed(had))
		return;
	if (r->ctx->cfg.setup_inputs.n == 0 && had != NULL &&
	    strstr(had, "inputs\n") != NULL) {
		fprintf(stderr, "forge: setup runs again: the working state "
		    "changed since it last ran (forge.setupInputs names no "
		    "file, so every file is its input)\n");
		return;
	}
	if (had == NULL || r->copy.setup_inputs == NULL ||
	    (now = strstr(r->copy.setup_inputs, "digests\n")) == NULL ||
	    (then = strstr(had, "digests\n")) == NULL)
		return;
	t = xstrndup(then, deciding_len(then));
	setupin_changed(t + 8, now + 8, &changed);
	free(t);
	if (changed.n > 0)
		fprintf(stderr, "forge: setup runs again: %s%s changed since "
		    "it last ran (forge.setupInputs)\n", changed.v[0],
		    changed.n > 1 ? " and more" : "");
	strv_free(&changed);
}

/*
 * An incremental copy keeps what its setup made: not run again, unless
 * the steps changed, a file forge.setupInputs lists changed (or could
 * not be read), a nested repository's copy is a fresh one (what setup
 * made there is gone), or --setup says so.
 */
void
verify_copy_skip_setup(struct run *r, int setup)
{
	char	*want;
	size_t	 i, n = 0;

	for (i = 0; i < r->nsteps; i++)
		n += r->steps[i].setup;
	if (!r->mode.incremental || n == 0)
		return;
	if (inputs_state(r) == -1)
		r->copy.setup_unsure = 1;
	want = verify_copy_setup(r, 0);
	if (r->copy.reused && !setup && !r->copy.setup_unsure &&
	    r->copy.snap.nested_afresh == NULL &&
	    verify_copy_setup_same(r->copy.had_setup, want)) {
		for (i = 0; i < r->nsteps; i++)
			if (r->steps[i].setup)
				r->steps[i].skip = 1;
	} else {
		if (r->copy.reused && !setup &&
		    r->copy.snap.nested_afresh != NULL)
			fprintf(stderr, "forge: setup runs again: the copy of "
			    "%s is a fresh one, without what setup made "
			    "there\n", fs_vis(r->copy.snap.nested_afresh));
		else if (r->copy.reused && !setup)
			verify_copy_setup_why(r, r->copy.had_setup);
		/* What it reads now, for a hint should a step fail once
		 * setup no longer runs. */
		{
			struct buf	b = BUF_INIT;

			if (setupin_known(r->copy.snap.copy, &b) == 0)
				r->copy.setup_read = buf_detach(&b);
			buf_free(&b);
		}
	}
	free(want);
}

/*
 * Before the setup steps run in a copy that keeps what they make: its
 * files as they are, for what setup changes of those git does not
 * ignore, which the next run's copy puts back.
 */
void
verify_copy_setup_begin(struct run *r)
{
	size_t	i;
	int	runs = 0;

	strv_free(&r->copy.setup_before);
	strv_free(&r->copy.setup_changed);
	r->copy.have_before = 0;
	if (!r->mode.isolated || !r->mode.incremental || !r->copy.have_snap)
		return;
	for (i = 0; i < r->nsteps; i++)
		runs |= r->steps[i].setup && !r->steps[i].skip;
	if (!runs)
		return;
	if (snapshot_state(&r->copy.snap, &r->copy.setup_before) == -1) {
		r->copy.setup_unsure = 1;
		return;
	}
	r->copy.have_before = 1;
}

/* And after them, once they all passed: what they changed. */
void
verify_copy_setup_end(struct run *r)
{
	struct strv	after = STRV_INIT, changed = STRV_INIT;
	size_t		i;

	if (!r->copy.have_before)
		return;
	if (snapshot_state(&r->copy.snap, &after) == -1)
		r->copy.setup_unsure = 1;
	else
		snapshot_state_changed(&r->copy.setup_before, &after, &changed);
	/* Written again as it was: nothing for the copy to put back. */
	for (i = 0; i < changed.n; i++)
		if (!snapshot_state_kept(&r->copy.snap, changed.v[i]))
			strv_push(&r->copy.setup_changed, changed.v[i]);
	strv_free(&changed);
	strv_free(&after);
	strv_free(&r->copy.setup_before);
	r->copy.have_before = 0;
}

/*
 * A step failed in a copy whose setup did not run: if a file setup
 * commonly reads changed since it last ran, and forge.setupInputs does
 * not list it, say so.  The working tree's files, as the copy was made
 * of them; the copy's may be the steps' own by now.
 */
void
verify_copy_setup_hint(struct run *r)
{
	struct strv	 changed = STRV_INIT;
	struct buf	 now = BUF_INIT;
	const char	*read;
	size_t		 i;
	int		 skipped = 0;

	for (i = 0; i < r->nsteps; i++)
		skipped |= r->steps[i].setup && r->steps[i].skip;
	if (!skipped || r->res.verdict != VERDICT_FAIL ||
	    r->copy.had_setup == NULL ||
	    (read = strstr(r->copy.had_setup, READ_MARK)) == NULL)
		return;
	if (setupin_known(r->ctx->repo.top, &now) == 0)
		setupin_changed(read + strlen(READ_MARK), now.data != NULL ?
		    now.data : "", &changed);
	if (changed.n > 0)
		hint_setup_inputs(&changed);
	strv_free(&changed);
	buf_free(&now);
}

/*
 * What the command committed in a clone comes back as refs, before the
 * clone goes; the verdict stands whatever happens here.
 */
void
verify_copy_results(struct run *r)
{
	size_t	 i;
	char	*sp, *ref, *look;

	if (!r->mode.clone || !r->copy.have_snap ||
	    r->copy.snap.gitdir == NULL || sig_pending())
		return;
	if (clone_results(&r->ctx->repo, r->copy.snap.gitdir,
	    r->copy.snap.start_refs, r->copy.rd.run, &r->res.refs) == -1)
		warnx("what the command committed in the copy is lost with "
		    "it");
	for (i = 0; i < r->res.refs.n; i++) {
		sp = strchr(r->res.refs.v[i], ' ');
		ref = xstrndup(r->res.refs.v[i],
		    (size_t)(sp - r->res.refs.v[i]));
		{
			char	*const look_argv[] = { "git", "log", ref,
			    NULL };

			look = strv_join_shell(look_argv);
		}
		fprintf(stderr, "forge: the copy made %s at %.12s (%s)\n",
		    fs_vis(ref), sp + 1, fs_vis(look));
		free(look);
		free(ref);
	}
}

/* Left for the next run, room made for it; or removed. */
static void
park(struct run *r)
{
	struct reuse_want	w;
	char			*setup;

	want_of(r, &w);
	w.setup = setup = verify_copy_setup(r, 1);
	if (snapshot_parked_set_aside(&r->copy.snap) == -1) {
		(void)rundir_remove(&r->copy.rd);
		free(setup);
		return;
	}
	if (reuse_park(&r->copy.rd, r->ctx->repo.common,
	    r->copy.snap.copy, &w) == 0)
		fprintf(stderr, "forge: the copy stays at %s for the next run "
		    "to reuse (forge gc --all removes it)\n",
		    fs_vis(r->copy.snap.copy));
	free(setup);
}

/* A claimed copy the run did not need after all (a cached verdict), or
 * cannot use: back as it was parked, its last use unchanged. */
int
verify_copy_unclaim(struct run *r)
{
	struct reuse_want	w;

	want_of(r, &w);
	return reuse_park_unclaim(&r->copy.rd, &w, &r->copy.claim);
}

/*
 * The copy goes, or stays for --keep (forge.keep): always after a PASS
 * or a FAIL, or with failure after a FAIL only (a copy that was never
 * verified in, ERROR or INTERRUPTED, is no evidence of anything); or it
 * is parked for the next run.
 */
void
verify_copy_finish(struct run *r, int keep)
{
	if (!r->copy.have_rd)
		return;
	if (keep == -1)
		keep = r->mode.isolated ? r->ctx->cfg.keep : KEEP_NEVER;
	if (r->copy.have_snap && ((keep == KEEP_ALWAYS &&
	    r->res.verdict == VERDICT_PASS) || (keep >= KEEP_FAILURE &&
	    r->res.verdict == VERDICT_FAIL))) {
		(void)rundir_keep(&r->copy.rd, r->copy.snap.copy);
		fprintf(stderr, "forge: kept the copy at %s (forge gc --kept "
		    "removes it)\n", fs_vis(r->copy.snap.copy));
	} else if (r->mode.reuse && r->copy.ready &&
	    r->copy.snap.reusable &&
	    r->res.verdict != VERDICT_ERROR && !r->res.diverged)
		park(r);
	else
		/* What will not go is named, and left to forge gc: the
		 * verification's verdict stands. */
		(void)rundir_remove(&r->copy.rd);
}
