/* forge verify: a run's flow, its steps and its verdict, recorded. */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "cache.h"
#include "change.h"
#include "cleanup.h"
#include "cmd.h"
#include "cmd_verify.h"
#include "color.h"
#include "contain.h"
#include "context.h"
#include "convert.h"
#include "escape.h"
#include "forge.h"
#include "fs_vis.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "hint.h"
#include "proof.h"
#include "rundir.h"
#include "sig.h"
#include "snapshot.h"
#include "source.h"
#include "spawn.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_copy.h"
#include "verify_carry.h"
#include "verify_event.h"
#include "verify_int.h"
#include "verify_log.h"
#include "verify_range.h"
#include "xmalloc.h"

int	cmd_verify(int, char **);

const struct cmd_entry cmd_verify_entry = {
	"verify",
	"\n[--] [command [argument ...]]",
	"Verify runs command (or the forge.verify steps) and records the "
	"verdict.\nWith --isolated it runs in an ephemeral copy of the "
	"working state:\na detached worktree at HEAD, plus the uncommitted "
	"changes, plus the\nuntracked files git does not ignore.  The copy "
	"is proved equal to the\nworking tree before anything runs, and "
	"removed afterwards.  With --staged\nthe copy is HEAD plus the index, "
	"what git commit would record; with\n--rev, that commit's tree, or "
	"each commit's of a range A..B in turn,\nin one copy carried from "
	"commit to commit.  With --clone the copy is a\nprivate clone: git "
	"in it cannot change the repository, and the\nbranches and tags it "
	"makes come back under refs/forge/runs/<run>/.\n",
	verify_options,
	cmd_verify
};

/*
 * The one place a run's verdict, status and cause are set.  failed is a
 * format for what failed (the breaker's and the timeline's "failed"), or
 * NULL.
 */
static void
set_verdict(struct run *r, enum verdict v, int status, int signo,
    const char *failed, ...)
{
	va_list	ap;

	r->verdict = v;
	r->status = status;
	r->signo = signo;
	r->timed_out = 0;		/* judge_step() sets it after */
	r->unstarted = 0;		/* and not_started() this */
	free(r->failed);
	r->failed = NULL;
	if (failed != NULL) {
		va_start(ap, failed);
		r->failed = xvasprintf(failed, ap);
		va_end(ap);
	}
}

/* A commit of a range that could not be verified at all. */
void
verify_error(struct run *r, int status, const char *what)
{
	set_verdict(r, VERDICT_ERROR, status, 0, "%s", what);
}

/* Interrupted by the signal that is pending. */
static void
interrupted(struct run *r, int signo)
{
	set_verdict(r, VERDICT_INTERRUPTED, 128 + signo, signo, NULL);
}

/* Until the steps run, a failure is forge's: ERROR, saying what it was
 * doing then. */
static void
doing(struct run *r, const char *what)
{
	set_verdict(r, VERDICT_ERROR, EXIT_FORGE, 0, "%s", what);
}

static void
free_steps(struct run *r)
{
	size_t	i;

	for (i = 0; i < r->nsteps; i++) {
		free(r->steps[i].display);
		strv_free(&r->steps[i].argv);
	}
	free(r->steps);
	r->steps = NULL;
	r->nsteps = 0;
}

/* A step run by sh -c at the top: a forge.setup or forge.verify value. */
static void
shell_step(struct step *s, const char *cmd, int setup)
{
	s->shell = 1;
	s->setup = setup;
	s->display = setup ? xasprintf("setup: %s", cmd) : xstrdup(cmd);
	strv_push(&s->argv, "/bin/sh");
	strv_push(&s->argv, "-c");
	strv_push(&s->argv, cmd);
}

/*
 * The steps: in a copy, the forge.setup steps first (a fresh copy has
 * no build inputs that git ignores: configure's output, node_modules);
 * then the command, or the forge.verify steps.
 */
static int
make_steps(struct run *r, const struct verify_opts *o)
{
	const struct strv	*setup = &r->ctx->cfg.setup;
	const struct strv	*verify = &r->ctx->cfg.verify;
	size_t			 i, n;

	if (o->argv == NULL && verify->n == 0) {
		warnx("nothing to verify: give a command (forge verify -- make "
		    "check) or configure steps (git config --add forge.verify "
		    "'make check')");
		return -1;
	}
	n = r->isolated ? setup->n : 0;
	r->nsteps = n + (o->argv != NULL ? 1 : verify->n);
	r->steps = xcalloc(r->nsteps, sizeof(*r->steps));
	for (i = 0; i < n; i++)
		shell_step(&r->steps[i], setup->v[i], 1);
	if (o->argv != NULL) {
		strv_pushv(&r->steps[n].argv, o->argv);
		r->steps[n].display = strv_join_shell(o->argv);
		r->steps_from = "command line";
		return 0;
	}
	r->steps_from = r->ctx->cfg.verify_from;
	for (i = 0; i < verify->n; i++)
		shell_step(&r->steps[n + i], verify->v[i], 0);
	return 0;
}

static char *
steps_display(const struct run *r)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	/* The verification; its setup is named only when it fails. */
	for (i = 0; i < r->nsteps; i++) {
		if (r->steps[i].setup)
			continue;
		if (b.len > 0)
			buf_adds(&b, " && ");
		buf_adds(&b, r->steps[i].display);
	}
	return buf_detach(&b);
}

/* The breaker is open: say why and how to close it. */
static int
refused(struct run *r)
{
	struct breaker	b;
	int		open;

	if (context_breaker(r->ctx, &b) == -1)
		return -1;
	if ((open = b.open)) {
		warnx("the circuit breaker is open: %d consecutive failed "
		    "verifications, open since %s", b.streak,
		    b.opened_at != NULL ? b.opened_at : "(unknown)");
		if (b.last_fail != NULL)
			warnx("last failure: %s%s%s", fs_vis(b.last_fail),
			    b.last_fail_at != NULL ? " at " : "",
			    b.last_fail_at != NULL ? b.last_fail_at : "");
		warnx("not running anything; once the cause is fixed, "
		    "close it with: forge breaker reset");
	}
	breaker_free(&b);
	return open;
}

/*
 * Where a command runs: the copy's counterpart of the caller's dir, into
 * *dir (NULL: where forge runs).  -1 (said why) if the copy has no
 * directory there to run it in.
 */
static int
command_dir(struct run *r, const struct step *s, char **dir)
{
	const char	*prefix = r->ctx->repo.prefix;
	char		*rel;
	int		 root, fd = -1;

	*dir = NULL;
	if (!r->isolated) {
		*dir = s->shell ? xstrdup(r->ctx->repo.top) : NULL;
		return 0;
	}
	*dir = xstrdup(r->snap.copy);
	if (s->shell || *prefix == '\0')
		return 0;
	/* The prefix ends in a slash; a shell's PWD would not. */
	rel = xstrndup(prefix, strlen(prefix) - 1);
	/*
	 * Reached from the copy's top through no symlink: one the copy has
	 * on the way (a commit's, or one a command left among a reused
	 * copy's ignored files) would lead out of the copy.  It may hold
	 * only ignored files, so the copy lacks it: a build there would
	 * fail for no visible reason, unless this says why.
	 */
	if ((root = open(*dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1 &&
	    (fd = fs_walk_dir(root, rel, 0, 0)) == -1 && errno == ENOENT) {
		fprintf(stderr, "forge: %s holds only files git ignores (or "
		    "none): the command runs in an empty %s in the copy\n",
		    fs_vis(prefix), fs_vis(prefix));
		fd = fs_walk_dir(root, rel, 1, 0777);
	}
	if (root == -1)
		warn("cannot open the copy %s", fs_vis(*dir));
	else if (fd == -1 && errno == ENOTDIR)
		warnx("cannot run the command in %s in the copy: it is no "
		    "directory there, or lies beyond a symlink", fs_vis(rel));
	else if (fd == -1)
		warn("cannot run the command in %s in the copy", fs_vis(rel));
	else
		close(fd);
	if (root != -1)
		close(root);
	free(*dir);
	*dir = fd != -1 ? xasprintf("%s/%s", r->snap.copy, rel) : NULL;
	free(rel);
	return fd != -1 ? 0 : -1;
}

/*
 * The command could not be started.  Not found, or not executable, exits
 * 127 or 126, as a shell says; anything else (fork or a pipe failing
 * under a process limit, the directory gone) exits 125.  Either way
 * nothing was verified: an ERROR, which never feeds the breaker.  (A 127
 * from inside a shell step is the step's own status: a FAIL.)
 */
static void
not_started(struct run *r, struct step *s, int errnum)
{
	switch (errnum) {
	case ENOENT:
		warnx("%s: command not found", fs_vis(s->argv.v[0]));
		s->status = EXIT_NOTFOUND;
		break;
	case EACCES:
	case ENOEXEC:
	case EPERM:
	case E2BIG:
	case ELOOP:
	case ENAMETOOLONG:
	case ETXTBSY:
	case EISDIR:
		warnc(errnum, "%s", fs_vis(s->argv.v[0]));
		s->status = EXIT_NOEXEC;
		break;
	default:
		warnc(errnum, "cannot start %s", fs_vis(s->argv.v[0]));
		s->status = EXIT_FORGE;
		doing(r, "forge could not start the command");
		return;
	}
	set_verdict(r, VERDICT_ERROR, s->status, 0, "%s (%s)", s->display,
	    s->status == EXIT_NOTFOUND ? "command not found" :
	    "cannot execute");
	r->unstarted = 1;
}

/* How a step that ran ended: the verdict if it ends the run. */
static int
judge_step(struct run *r, struct step *s, const struct spawn_exit *ex)
{
	char	buf[32];

	s->status = ex->status;
	if (ex->interrupted || sig_pending()) {
		interrupted(r, sig_pending());
		return -1;
	}
	if (ex->timed_out) {
		set_verdict(r, VERDICT_FAIL, EXIT_TIMEOUT, 0, "%s (timed out "
		    "after %s)", s->display, duration_format(buf, sizeof(buf),
		    r->timeout_ms));
		r->timed_out = 1;
		return -1;
	}
	/* ^C or ^\ at the terminal reached the command only, as it held
	 * the foreground: the user meant to stop everything. */
	if (ex->terminal && WIFSIGNALED(ex->wstatus) &&
	    (WTERMSIG(ex->wstatus) == SIGINT ||
	    WTERMSIG(ex->wstatus) == SIGQUIT)) {
		set_verdict(r, VERDICT_INTERRUPTED, ex->status,
		    WTERMSIG(ex->wstatus), NULL);
		return -1;
	}
	if (ex->status == 0)
		return 0;
	/* It wrote to forge's output, whose reader is gone (forge ... |
	 * head): stopped from outside, as by ^C, not failed. */
	if (ex->broken_pipe) {
		set_verdict(r, VERDICT_INTERRUPTED, ex->status, SIGPIPE,
		    "%s (its output's reader is gone)", s->display);
		return -1;
	}
	if (WIFSIGNALED(ex->wstatus))
		set_verdict(r, VERDICT_FAIL, ex->status, 0, "%s (killed by "
		    "signal %d)", s->display, WTERMSIG(ex->wstatus));
	else
		set_verdict(r, VERDICT_FAIL, ex->status, 0, "%s (exit status "
		    "%d)", s->display, ex->status);
	return -1;
}

/* Run one step to its end; -1 if the run ends with it. */
static int
run_step(struct run *r, struct step *s)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_limit	 lim;
	struct spawn_exit	 ex;
	struct strv		 env = STRV_INIT;
	char			*dir;
	long long		 t, left;
	int			 ret = -1;

	if (command_dir(r, s, &dir) == -1) {
		s->status = EXIT_FORGE;
		doing(r, "forge could not run the command where it was "
		    "started");
		return -1;
	}
	if (r->isolated) {
		/* From a git hook, these would point the command at the
		 * real repository. */
		git_unset_local(&env);
		strv_pushf(&env, "PWD=%s", dir);
		/* Its own, empty, whatever TMPDIR the copy is in. */
		if (r->have_plan && contain_tmpdir(&r->plan) != NULL)
			strv_pushf(&env, "TMPDIR=%s",
			    contain_tmpdir(&r->plan));
	}
	if (r->have_plan)
		sp.hook = contain_hook(&r->plan);
	sp.argv = s->argv.v;
	sp.env = r->isolated ? env.v : NULL;
	sp.out = verify_log_out(r);
	sp.err = verify_log_err(r);
	sp.dir = dir;
	sp.flags = SPAWN_PGROUP | SPAWN_TERMINAL | SPAWN_FORWARD;
	/* In a copy about to be removed, nothing may run on. */
	if (r->isolated)
		sp.flags |= SPAWN_ENDGROUP;
	memset(&lim, 0, sizeof(lim));
	lim.grace_ms = r->ctx->cfg.grace_ms;
	if (r->timeout_ms > 0) {
		/* Time spent waiting for another forge's lock counts. */
		left = r->steps_ms + r->timeout_ms - r->ctx->state.waited_ms -
		    time_now_ms();
		lim.timeout_ms = left > 0 ? left : 1;
	}
	t = time_now_ms();
	s->ran = 1;
	if (spawn_start(&sp) == -1) {
		s->ms = time_now_ms() - t;
		if (sp.hook_what != -1) {
			/* Never run uncontained: an ERROR, not the
			 * command's failure. */
			contain_explain(sp.hook_what, errno, NULL);
			r->plan_failed = 1;
			s->status = EXIT_FORGE;
			doing(r, "forge could not contain the command");
		} else
			not_started(r, s, errno);
		goto out;
	}
	if (r->have_rd)
		(void)rundir_note_child(&r->rd, sp.pid);
	if (spawn_wait(&sp, &lim, &ex) == -1) {
		verify_log_sync(r);
		warn("waiting for %s", fs_vis(s->display));
		doing(r, "forge could not wait for the command");
		goto out;
	}
	s->ms = time_now_ms() - t;
	/* All it wrote is out before forge says anything more. */
	verify_log_sync(r);
	ret = judge_step(r, s, &ex);
out:
	strv_free(&env);
	free(dir);
	return ret;
}

void
verify_steps(struct run *r)
{
	size_t	i;

	set_verdict(r, VERDICT_PASS, 0, 0, NULL);
	/* The limit is the verification's: building the copy is forge's. */
	r->steps_ms = time_now_ms();
	for (i = 0; i < r->nsteps; i++) {
		if (r->steps[i].skip)
			continue;
		if (i > 0)
			sig_test_stall("step");
		/* A step that never started is not recorded as run. */
		if (sig_pending()) {
			interrupted(r, sig_pending());
			break;
		}
		if (run_step(r, &r->steps[i]) == -1)
			break;
	}
	if (r->have_plan)
		contain_end(&r->plan);
}

/*
 * Fold the verdict into the breaker and append it to the timeline, in
 * one transaction: both or neither.  What forge exits with is what this
 * records; when it cannot record, the verdict becomes an ERROR, and that
 * is recorded if anything can be.
 */
static int
record_once(struct run *r)
{
	struct state	*st = &r->ctx->state;
	struct state_txn tx;
	struct buf	 ev = BUF_INIT;
	char		 start[RFC3339_LEN];
	int		 opened, ret;

	/* A run has one time, when it started, wherever it is shown: the
	 * event, the breaker's last failure, and when the run opened it. */
	time_rfc3339(start, r->start);
	if (state_begin(st, &tx) == -1)
		return -1;
	/* Recorded, but it neither feeds the breaker nor obeys it. */
	opened = r->no_breaker ? 0 : breaker_record(&tx.b, r->verdict,
	    st->threshold, start, r->failed);
	breaker_free(&r->after);
	breaker_copy(&r->after, &tx.b);
	verify_event_json(r, &ev, start);
	if (opened)
		verify_event_breaker_open(r, &ev, start, st->threshold);
	if ((ret = state_commit(st, &tx, &ev)) == 0 && opened)
		warnx("%d failed verifications in a row: the circuit breaker "
		    "is now open (forge breaker reset closes it)",
		    r->after.streak);
	buf_free(&ev);
	return ret;
}

static void
record(struct run *r)
{
	/* Recording waits for the lock as long as it takes. */
	r->ctx->state.deadline_ms = 0;
	if (record_once(r) == 0) {
		r->recorded = 1;
		return;
	}
	warnx("the verdict could not be recorded");
	/* Dying of a signal says more than any status could. */
	if (r->verdict == VERDICT_INTERRUPTED)
		return;
	doing(r, "forge could not record the verdict");
	r->recorded = record_once(r) == 0;
}

static void
summary(struct run *r)
{
	const char	*v = verdict_name(r->verdict);
	char		*what, d[32], tree[16];
	int		 color;

	what = steps_display(r);
	duration_format(d, sizeof(d), time_now_ms() - r->start_ms);
	snprintf(tree, sizeof(tree), "%.12s", r->tree != NULL ? r->tree :
	    "unchecked");
	color = color_want(r->ctx->cfg.color, STDERR_FILENO);
	fprintf(stderr, "Verify: %s ... Verdict: %s%s%s (", fs_vis(what),
	    color ? color_verdict(v) : "", v, color ? COLOR_RESET : "");
	switch (r->verdict) {
	case VERDICT_PASS:
		break;
	case VERDICT_FAIL:
		if (r->timed_out)
			fprintf(stderr, "timed out, exit status %d; ",
			    r->status);
		else
			fprintf(stderr, "exit status %d; ", r->status);
		break;
	case VERDICT_ERROR:
		fprintf(stderr, "%s, exit status %d; ", r->unstarted ?
		    "the command could not be started" :
		    "forge could not verify", r->status);
		break;
	case VERDICT_INTERRUPTED:
		fprintf(stderr, "interrupted by signal %d; ", r->signo);
		break;
	}
	fprintf(stderr, "%s%s", r->isolated ? run_mode(r) : "in place",
	    !r->isolated || !r->reuse ? "" : r->incremental ?
	    ", incremental" : r->reused ? ", reused" : ", fresh");
	if (r->have_plan && !r->plan_failed)
		fprintf(stderr, ", %s (%s)", r->contain ? "contained" :
		    "no network", contain_method(&r->plan));
	fprintf(stderr, "%s, tree %s, %s)\n", partial(r) ? ", partial" : "",
	    tree, d);
	free(what);
}

/* How the steps are contained, planned before any of them starts. */
static int
plan_contain(struct run *r)
{
	struct contain_opts	 o = CONTAIN_OPTS_INIT;
	const char		*protect[4];

	if (!r->contain && !r->no_network)
		return 0;
	doing(r, "forge could not contain the command");
	protect[0] = r->ctx->repo.top;
	protect[1] = r->ctx->repo.gitdir;
	protect[2] = r->ctx->repo.common;
	protect[3] = NULL;
	o.fs = r->contain;
	o.net = r->no_network;
	o.method = r->ctx->cfg.contain_method;
	o.copy = r->contain ? r->snap.copy : NULL;
	o.writable = (const char *const *)r->ctx->cfg.contain_writable.v;
	o.protect = protect;
	o.scratch = r->contain ? r->rd.scratch : NULL;
	if (contain_prepare(&r->plan, &o) == -1)
		return -1;
	r->have_plan = 1;
	fprintf(stderr, "forge: %s\n", contain_summary(&r->plan));
	return 0;
}

/*
 * The method that contains the run, for the cache key: the one taken,
 * once the plan is made; before (a lookup), the one it would take --
 * forced by forge.containMethod, or what auto finds on this machine.
 */
static const char *
contain_how(struct run *r)
{
	char	why[256];

	if (!r->contain && !r->no_network)
		return NULL;
	if (r->have_plan)
		return contain_method(&r->plan);
	if (r->contain_guess == NULL)
		r->contain_guess = r->ctx->cfg.contain_method !=
		    CONTAIN_METHOD_AUTO ?
		    contain_method_name(r->ctx->cfg.contain_method) :
		    contain_probe(CONTAIN_METHOD_NAMESPACES, why,
		    sizeof(why)) == 0 ? "namespaces" : "landlock";
	return r->contain_guess;
}

/* Where a step runs, relative to the top: a configured one at the top,
 * a command where forge was started. */
static char *
step_dir(const struct run *r, const struct step *s)
{
	const char	*prefix = r->ctx->repo.prefix;

	if (s->shell || *prefix == '\0')
		return xstrdup("");
	return xstrndup(prefix, strlen(prefix) - 1);
}

/*
 * What the cache knows a verification by: every input of the run that
 * cache.h has a field for, set here and nowhere else.
 */
static char *
cache_key_of(struct run *r, const char *tree)
{
	struct cache_in		 in = CACHE_IN_INIT;
	struct cache_step	*cs;
	const struct settings	*cfg = &r->ctx->cfg;
	char			*key;
	size_t			 i;

	in.version = PACKAGE_VERSION;
	in.git = git_version_string();
	in.mode = run_mode(r);
	in.tree = tree;
	/* What the copy (or the working tree) has checked out: its history
	 * is the command's to read too. */
	in.head = r->source.kind == SOURCE_WORKTREE ? r->ctx->repo.head :
	    r->source.commit;
	in.index = r->have_ss ? r->ss.staging : NULL;
	in.convert = r->convert;
	in.as_is = r->as_is;
	in.clone = r->clone;
	in.incremental = r->isolated && r->incremental;
	in.contain = r->contain;
	in.no_network = r->no_network;
	in.contain_how = contain_how(r);
	in.writable = &cfg->contain_writable;
	in.timeout_ms = r->timeout_ms;
	in.uid = (long)getuid();
	in.steps_from = r->steps_from;
	in.setup_from = r->isolated && cfg->setup.n > 0 ? cfg->setup_from :
	    NULL;
	in.env = &cfg->cache_env;
	/* What the steps' files are made with, and what the copy's files
	 * take from the working tree as they are. */
	in.umask = (long)fs_umask();
	in.modes = r->have_ss ? r->ss.modes : NULL;
	cs = xcalloc(r->nsteps > 0 ? r->nsteps : 1, sizeof(*cs));
	for (i = 0; i < r->nsteps; i++) {
		cs[i].argv = &r->steps[i].argv;
		cs[i].dir = step_dir(r, &r->steps[i]);
		cs[i].setup = r->steps[i].setup;
	}
	in.steps = cs;
	in.nsteps = r->nsteps;
	key = cache_key(&in);
	for (i = 0; i < r->nsteps; i++)
		free((char *)cs[i].dir);
	free(cs);
	return key;
}

/*
 * A working state's tree id shows a nested repository's commit, not its
 * changes, and every entry flagged skip-worktree (a sparse checkout's
 * outside its patterns, or one flagged by hand), where its copy has the
 * file only if the working tree does: there, it does not say what was
 * verified.  And what its index stages, which the key holds.  Decided
 * once.
 * Nor does any tree id say how git converts a blob's bytes, which the
 * key holds too (the tree's own attributes files are in its id); where
 * git may convert, the working tree's bytes are not the blobs', which in
 * place are what the command reads, and in a copy, what it takes as they
 * are.  Decided once.
 */
static int
cache_usable(struct run *r)
{
	struct git	 g;
	const char	*why = NULL;
	int		 on;

	if (!r->cache || r->cache_decided)
		return r->cache;
	r->cache_decided = 1;
	if (r->source.kind != SOURCE_WORKTREE) {
		repo_git(&r->ctx->repo, &g);
		g.index = NULL;
		if ((r->convert = convert_digest(&g, r->ctx->repo.common, NULL,
		    &on)) == NULL)
			why = "git could not say how it converts files";
	} else if (source_state_read(&r->ss, &r->ctx->repo, &r->rd) == -1)
		why = "the index could not be read";
	else {
		r->have_ss = 1;
		if (r->ss.nested)
			why = "the working state holds nested repositories, "
			    "whose changes its tree id does not show";
		else if (r->isolated && r->ss.sparse)
			why = "entries flagged skip-worktree (a sparse "
			    "checkout's, or set by hand) have a file in the "
			    "copy only where the working tree has one, while "
			    "its tree id holds them all";
		else if (r->ss.convert == NULL)
			why = "git could not say how it converts files";
		else if (!r->isolated && r->ss.converts)
			why = "git may convert this working tree's files "
			    "(attributes, core.autocrlf), and in place their "
			    "tree id cannot tell the bytes the command reads";
		else if (r->ss.converts && (r->as_is = source_as_is(&r->ss,
		    &r->ctx->repo, &r->rd)) == NULL)
			why = "the files a copy takes as they are could not "
			    "be read";
		else
			r->convert = xstrdup(r->ss.convert);
	}
	if (why != NULL) {
		fprintf(stderr, "forge: not using the verdict cache: %s\n",
		    why);
		r->cache = 0;
	}
	return r->cache;
}

/* Has this tree passed these steps before?  1: yes, r->cached_at says
 * when; 0: run them. */
static int
cache_check(struct run *r, const char *tree)
{
	char	*key;
	int	 hit;

	if (!cache_usable(r) || tree == NULL)
		return 0;
	free(r->cache_tree);
	r->cache_tree = xstrdup(tree);
	key = cache_key_of(r, tree);
	hit = cache_lookup(&r->ctx->state, key, &r->cached_at) == 1;
	free(key);
	/* A PASS of the whole tree, where this copy would not be whole:
	 * the run is of what it has. */
	if (hit && r->source.kind != SOURCE_WORKTREE &&
	    source_whole(&r->source, &r->ctx->repo) != 1) {
		fprintf(stderr, "forge: not using the cached verdict: it is "
		    "of the whole tree, which this copy would not hold\n");
		free(r->cached_at);
		r->cached_at = NULL;
		hit = 0;
	}
	return hit;
}

/* After a PASS of the tree looked up (in a copy, the tree proved too),
 * remember it -- unless the copy left part of it out. */
static void
cache_remember(struct run *r)
{
	char	*key, at[RFC3339_LEN];

	if (!r->cache || r->verdict != VERDICT_PASS || !r->recorded ||
	    r->cache_tree == NULL || r->tree == NULL ||
	    strcmp(r->cache_tree, r->tree) != 0 || partial(r))
		return;
	time_rfc3339(at, r->start);
	key = cache_key_of(r, r->tree);
	(void)cache_store(&r->ctx->state, key, at, r->tree, CACHE_MAX);
	free(key);
}

/* A cached PASS: say so, and record it as what it is. */
int
verify_cached(struct run *r)
{
	struct buf	 ev = BUF_INIT;
	char		*what, now[RFC3339_LEN];
	int		 color;

	time_rfc3339(now, r->start);
	verify_event_cached(r, &ev, now);
	r->ctx->state.deadline_ms = 0;
	if (context_event(r->ctx, &ev) == -1)
		warnx("the cached verdict could not be recorded");
	buf_free(&ev);
	what = steps_display(r);
	color = color_want(r->ctx->cfg.color, STDERR_FILENO);
	fprintf(stderr, "Verify: %s ... Verdict: %sPASS%s (cached: tree "
	    "%.12s, verified at %s)\n", fs_vis(what),
	    color ? color_verdict("PASS") : "", color ? COLOR_RESET : "",
	    r->cache_tree, r->cached_at);
	free(what);
	return 0;
}

/*
 * Asked for and not to be had: one line says why, every run; and then
 * what the copy is, once it is known (a carried one, verify_carry()
 * says).
 */
static void
announce(const struct run *r, int carried)
{
	if (r->not_reused != NULL)
		fprintf(stderr, "forge: not reused: %s (see forge(1))\n",
		    r->not_reused);
	if (carried)
		return;
	if (r->reused)
		fprintf(stderr, "forge: isolated: running verification in a "
		    "reused %scopy%s, brought up to date (working tree "
		    "untouched)\n", r->incremental ? "incremental " : "",
		    r->source.kind == SOURCE_STAGED ? " of the staged tree" :
		    r->source.kind == SOURCE_REV ? " of the commit's tree" :
		    "");
	else if (r->source.kind != SOURCE_WORKTREE)
		fprintf(stderr, "forge: isolated: running verification in an "
		    "ephemeral copy of %s (working tree untouched)\n",
		    r->source.kind == SOURCE_STAGED ? "the staged tree, what "
		    "git commit would record" : "the commit's tree");
	else
		fprintf(stderr, "forge: isolated: running verification in an "
		    "ephemeral copy (working tree untouched)\n");
}

/* Build the copy (or, in place, read the tree id); -1: the verdict is
 * set, 1: a cached PASS, nothing to run.  The steps run after this. */
int
verify_prepare(struct run *r, const struct verify_opts *o)
{
	struct context		*ctx = r->ctx;
	const char		*places[4];
	int			 carrying;

	doing(r, "forge could not create its run directory");
	/* Freed whatever happens: a half-made one holds a cleanup entry
	 * that points into r. */
	r->have_rd = 1;
	if (r->isolated && r->reuse)
		verify_copy_claim(r);
	/* A range's run directory serves each of its commits. */
	if (!r->reused && !(r->range && r->rd.top != NULL) &&
	    rundir_open(&r->rd, ctx->repo.common) == -1)
		return -1;
	if (o->change != NULL) {
		doing(r, "forge could not report the change");
		if (change_compute(&r->change, &ctx->repo, o->change,
		    &r->rd) == -1)
			return -1;
		r->have_change = 1;
		change_print(&r->change, stderr, CHANGE_LIST_MAX);
	}
	if (!r->isolated) {
		fprintf(stderr, "forge: in place: running verification in "
		    "the working tree itself\n");
		doing(r, "forge could not compute the working tree's id");
		if (r->check && (r->tree = proof_source_tree(&r->rd,
		    &ctx->repo)) == NULL)
			return -1;
		if (r->tree != NULL && cache_check(r, r->tree) == 1)
			return 1;
		return plan_contain(r);
	}
	if (r->source.kind != SOURCE_WORKTREE) {
		doing(r, "forge could not read the tree to verify");
		if (source_resolve(&r->source, &ctx->repo, &r->rd) == -1)
			return -1;
		if (cache_check(r, r->source.tree) == 1)
			return 1;
	} else if (r->check && cache_usable(r)) {
		/* The working state's tree, before the copy is made. */
		char	*t;
		int	 hit;

		doing(r, "forge could not compute the working tree's id");
		if ((t = proof_source_tree(&r->rd, &ctx->repo)) == NULL)
			return -1;
		hit = cache_check(r, t);
		free(t);
		if (hit == 1)
			return 1;
	}
	/* Where the command runs, a copy lacks what git ignores: when a
	 * build needs it and no setup step makes it, say so first. */
	if (ctx->cfg.setup.n == 0 && r->nsteps > 0 && !r->have_snap)
		hint_ignored_inputs(&ctx->repo, r->steps[0].shell ? "" :
		    ctx->repo.prefix);
	doing(r, "forge could not build and prove the copy");
	/* A range's next commit: the copy carried to it, or made anew
	 * (verify_carry() says how it got there). */
	carrying = r->range && r->have_snap;
	if ((carrying ? verify_carry(r, o->verbose) :
	    verify_copy_make(r, o->verbose)) == -1)
		return -1;
	announce(r, carrying);
	/* Fit to park from now on, whatever the command does to it: the
	 * next run brings it up to date, or rebuilds it. */
	r->copy_ready = 1;
	verify_copy_skip_setup(r, o->setup);
	if (r->range)
		verify_carry_ready(r, o->setup);
	if (r->snap.tree != NULL)
		r->tree = xstrdup(r->snap.tree);
	if (o->verbose && !r->carried)
		verify_copy_phases(&r->snap);
	places[0] = ctx->repo.top;
	places[1] = ctx->repo.gitdir;
	places[2] = ctx->repo.common;
	places[3] = NULL;
	if (r->snap.links_known)
		(void)escape_warn_paths(r->snap.copy, &r->snap.links, places);
	else
		(void)escape_warn(r->snap.copy, places);
	return plan_contain(r);
}

/* What forge exits with: the step's own status, or by the verdict. */
int
verify_exit(const struct run *r, int by_verdict)
{
	if (!by_verdict || r->verdict == VERDICT_INTERRUPTED)
		return r->status;
	if (r->timed_out)
		return EXIT_TIMEOUT;
	switch (r->verdict) {
	case VERDICT_PASS:
		return 0;
	case VERDICT_FAIL:
		return 1;
	default:
		return EXIT_FORGE;
	}
}

/* What is a commit's own: all but the copy and its run directory. */
void
verify_next(struct run *r)
{
	free(r->tree);
	r->tree = NULL;
	strv_free(&r->refs);
	free(r->failed);
	r->failed = NULL;
	breaker_free(&r->after);
	source_free(&r->source);
	source_init(&r->source);
	free(r->cache_tree);
	free(r->cached_at);
	free(r->convert);
	free(r->as_is);
	r->cache_tree = r->cached_at = r->convert = r->as_is = NULL;
	r->cache_decided = 0;
	r->recorded = 0;
	r->contain_guess = NULL;
	r->steps_from = NULL;	/* the last commit's settings' */
	free(r->setup_inputs);
	free(r->setup_read);
	r->setup_inputs = r->setup_read = NULL;
	r->setup_unsure = 0;
	free_steps(r);
	if (r->have_plan)
		contain_free(&r->plan);
	r->have_plan = 0;
	r->plan_failed = 0;
}

void
verify_free(struct run *r)
{
	if (r->have_snap)
		snapshot_free(&r->snap);
	if (r->have_rd)
		rundir_free(&r->rd);
	free(r->tree);
	strv_free(&r->refs);
	free(r->failed);
	free(r->had_setup);
	free(r->setup_inputs);
	free(r->setup_read);
	free(r->claimed);
	if (r->have_change)
		change_free(&r->change);
	breaker_free(&r->after);
	source_free(&r->source);
	free(r->cache_tree);
	free(r->cached_at);
	free(r->convert);
	free(r->as_is);
	free(r->range_setup);
	if (r->have_ss)
		source_state_free(&r->ss);
	free_steps(r);
	if (r->have_plan)
		contain_free(&r->plan);
}

/* Options, configuration and steps.  0 or an exit status. */
int
verify_begin(struct run *r, const struct verify_opts *o)
{
	struct context	*ctx = r->ctx;

	r->isolated = o->isolated != -1 ? o->isolated : ctx->cfg.isolated;
	/* What a commit records, or a commit: only a copy can hold it. */
	if (o->staged || o->rev != NULL) {
		r->isolated = 1;
		r->source.kind = o->staged ? SOURCE_STAGED : SOURCE_REV;
		r->source.rev = o->rev;
		/* The commit the steps were read from, resolved once: a
		 * branch that moves meanwhile moves nothing here. */
		if (ctx->at != NULL)
			r->source.commit = xstrdup(ctx->at);
	}
	r->no_breaker = o->no_breaker;
	r->cache = o->cache != -1 ? o->cache : ctx->cfg.cache;
	/* The base too, before a run directory is made for the report. */
	if (o->change != NULL) {
		char	*c;

		if ((c = repo_resolve_commit(&ctx->repo, o->change)) == NULL) {
			if (errno != ENOENT)
				return EXIT_FORGE;
			warnx("--change=%s: no such commit", fs_vis(o->change));
			return EXIT_USAGE;
		}
		free(c);
	}
	/* --clone asks for a copy; forge.isolation only says which. */
	if (o->clone == 1 && o->isolated == -1)
		r->isolated = 1;
	r->clone = r->isolated && (o->clone != -1 ? o->clone :
	    ctx->cfg.clone);
	/* A clone is made afresh from the working state every time. */
	if (r->clone && r->source.kind != SOURCE_WORKTREE)
		r->clone = 0;
	r->timeout_ms = o->timeout_ms >= 0 ? o->timeout_ms :
	    ctx->cfg.timeout_ms;
	r->check = o->check;
	r->incremental = o->incremental != -1 ? o->incremental :
	    o->reuse == 0 ? 0 : ctx->cfg.incremental;
	r->reuse = r->incremental || (o->reuse != -1 ? o->reuse :
	    ctx->cfg.reuse);
	/* A clone is made afresh every time; a copy of the staged tree or
	 * of a commit is parked as one of the working state is, and each
	 * claims the others'. */
	if (r->reuse && r->isolated && r->clone)
		r->not_reused = "a private clone";
	/* A range's copy goes on from commit to commit, never parked
	 * (verify_carry.h). */
	if (r->clone || r->range)
		r->reuse = 0;
	if (r->clone)
		r->incremental = 0;
	r->contain = o->contain != -1 ? o->contain : ctx->cfg.contain;
	r->no_network = o->no_network;
	if (verify_conflicts(o, r->isolated, r->contain) == -1)
		return EXIT_USAGE;
	if (make_steps(r, o) == -1)
		return EXIT_USAGE;
	if (r->isolated && verify_copy_tmpdir(&ctx->repo) == -1)
		return EXIT_FORGE;
	/* Waiting for another forge's lock counts against the limit. */
	if (r->timeout_ms > 0)
		ctx->state.deadline_ms = r->start_ms + r->timeout_ms;
	return 0;
}

/* The breaker, unless --no-breaker: 0, or an exit status. */
int
verify_gate(struct run *r)
{
	int	st;

	if (r->no_breaker)
		return 0;
	if ((st = refused(r)) == 1)
		return EXIT_BREAKER;
	if (st == -1)
		return errno == ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FORGE;
	return 0;
}

/* After the steps: the copy ended (but a range's, which goes on), the
 * verdict recorded, remembered and said. */
void
verify_end(struct run *r, const struct verify_opts *o)
{
	if (sig_pending() && r->verdict != VERDICT_INTERRUPTED)
		interrupted(r, sig_pending());
	verify_copy_results(r);
	if (!r->range)
		verify_copy_finish(r, o->keep);
	record(r);
	cache_remember(r);
	verify_log_announce(r);
	summary(r);
	verify_log_close(r, 1);
}

int
cmd_verify(int argc, char **argv)
{
	struct verify_opts	 o;
	struct context		 ctx;
	struct run		 r;
	int			 st;

	if (verify_parse(argc, argv, &o) == -1)
		return EXIT_USAGE;
	if (o.help) {
		cmd_help(&cmd_verify_entry);
		return 0;
	}
	if (o.range)
		return verify_range(&o);
	memset(&r, 0, sizeof(r));
	r.start = time(NULL);
	r.start_ms = time_now_ms();
	r.ctx = &ctx;
	/* A commit's steps are those its tree configures, not the working
	 * tree's. */
	if ((st = context_open_at(&ctx, 0, o.staged ? ":" : o.rev)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	if ((st = verify_begin(&r, &o)) != 0 || (st = verify_gate(&r)) != 0) {
		verify_free(&r);
		context_close(&ctx);
		return st;
	}
	verify_log_open(&r);
	if ((st = verify_prepare(&r, &o)) == 1) {
		verify_log_close(&r, 0);
		if (r.reused)
			verify_copy_unclaim(&r);
		else
			(void)rundir_remove(&r.rd);
		st = verify_cached(&r);
		verify_free(&r);
		context_close(&ctx);
		return st;
	}
	if (st == 0) {
		if (o.verbose && r.tree != NULL)
			fprintf(stderr, "forge: verifying tree %s (HEAD %s)\n",
			    r.tree, ctx.repo.head);
		verify_steps(&r);
		verify_copy_setup_hint(&r);
	}
	verify_end(&r, &o);
	st = verify_exit(&r, o.exit_verdict);
	verify_free(&r);
	context_close(&ctx);
	if (r.verdict == VERDICT_INTERRUPTED && r.signo != 0) {
		/* Die of the signal, so whoever ran us sees the cause. */
		cleanup_run();
		fflush(NULL);
		sig_die(r.signo);
	}
	return st;
}
