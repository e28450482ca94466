/* A run's steps: made from the command line or the settings, run. */
#include "config.h"

#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify_opts.h"
#include "contain.h"
#include "forge.h"
#include "fs_vis.h"
#include "fs.h"
#include "git.h"
#include "rundir.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_int.h"
#include "verify_log.h"
#include "xmalloc.h"

void
verify_steps_free(struct run *r)
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
int
verify_steps_make(struct run *r, const struct verify_opts *o)
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
	n = r->mode.isolated ? setup->n : 0;
	r->nsteps = n + (o->argv != NULL ? 1 : verify->n);
	r->steps = xcalloc(r->nsteps, sizeof(*r->steps));
	for (i = 0; i < n; i++)
		shell_step(&r->steps[i], setup->v[i], 1);
	if (o->argv != NULL) {
		strv_pushv(&r->steps[n].argv, o->argv);
		r->steps[n].display = strv_join_shell(o->argv);
		r->mode.steps_from = "command line";
		return 0;
	}
	r->mode.steps_from = r->ctx->cfg.verify_from;
	for (i = 0; i < verify->n; i++)
		shell_step(&r->steps[n + i], verify->v[i], 0);
	return 0;
}

char *
verify_steps_display(const struct run *r)
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
	if (!r->mode.isolated) {
		*dir = s->shell ? xstrdup(r->ctx->repo.top) : NULL;
		return 0;
	}
	*dir = xstrdup(r->copy.snap.copy);
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
	*dir = fd != -1 ? xasprintf("%s/%s", r->copy.snap.copy, rel) : NULL;
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
		verify_result_doing(r, "forge could not start the command");
		return;
	}
	verify_result_set(r, VERDICT_ERROR, s->status, 0, "%s (%s)", s->display,
	    s->status == EXIT_NOTFOUND ? "command not found" :
	    "cannot execute");
	r->res.unstarted = 1;
}

/* How a step that ran ended: the verdict if it ends the run. */
static int
judge_step(struct run *r, struct step *s, const struct spawn_exit *ex)
{
	char	buf[32];

	s->status = ex->status;
	if (ex->interrupted || sig_pending()) {
		verify_result_interrupted(r, sig_pending());
		return -1;
	}
	if (ex->timed_out) {
		verify_result_set(r, VERDICT_FAIL, EXIT_TIMEOUT, 0, "%s (timed out "
		    "after %s)", s->display, timeutil_duration(buf, sizeof(buf),
		    r->mode.timeout_ms));
		r->res.timed_out = 1;
		return -1;
	}
	/* ^C or ^\ at the terminal reached the command only, as it held
	 * the foreground: the user meant to stop everything. */
	if (ex->terminal && WIFSIGNALED(ex->wstatus) &&
	    (WTERMSIG(ex->wstatus) == SIGINT ||
	    WTERMSIG(ex->wstatus) == SIGQUIT)) {
		verify_result_set(r, VERDICT_INTERRUPTED, ex->status,
		    WTERMSIG(ex->wstatus), NULL);
		return -1;
	}
	if (ex->status == 0)
		return 0;
	/* It wrote to forge's output, whose reader is gone (forge ... |
	 * head): stopped from outside, as by ^C, not failed. */
	if (ex->broken_pipe) {
		verify_result_set(r, VERDICT_INTERRUPTED, ex->status, SIGPIPE,
		    "%s (its output's reader is gone)", s->display);
		return -1;
	}
	if (WIFSIGNALED(ex->wstatus))
		verify_result_set(r, VERDICT_FAIL, ex->status, 0, "%s (killed by "
		    "signal %d)", s->display, WTERMSIG(ex->wstatus));
	else
		verify_result_set(r, VERDICT_FAIL, ex->status, 0, "%s (exit status "
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
		verify_result_doing(r, "forge could not run the command where it was "
		    "started");
		return -1;
	}
	if (r->mode.isolated) {
		/* From a git hook, these would point the command at the
		 * real repository. */
		git_unset_local(&env);
		strv_pushf(&env, "PWD=%s", dir);
		/* Its own, empty, whatever TMPDIR the copy is in. */
		if (r->have_plan && contain_tmpdir(&r->plan) != NULL)
			strv_pushf(&env, "TMPDIR=%s",
			    contain_tmpdir(&r->plan));
	}
	/* What an audit's steps are told: a step with effects outside the
	 * copy (a notice, an upload) may skip them. */
	if (r->mode.audit)
		strv_push(&env, "FORGE_AUDITING=1");
	sp.argv = s->argv.v;
	sp.env = env.n > 0 ? env.v : NULL;
	sp.out = verify_log_out(r);
	sp.err = verify_log_err(r);
	sp.dir = dir;
	sp.flags = SPAWN_PGROUP | SPAWN_TERMINAL | SPAWN_FORWARD;
	/* An audit's steps run unseen: nothing of theirs may wait for the
	 * user at the terminal. */
	if (r->mode.audit) {
		sp.in = SPAWN_NULL;
		sp.flags &= ~SPAWN_TERMINAL;
	}
	/* In a copy about to be removed, nothing may run on. */
	if (r->mode.isolated)
		sp.flags |= SPAWN_ENDGROUP;
	/* Contained, it has no way out through an fd it inherited either:
	 * uncontained, it keeps them (make's jobserver, for one). */
	if (r->have_plan) {
		sp.hook = contain_hook(&r->plan);
		sp.flags |= SPAWN_CLOSEFDS;
	}
	memset(&lim, 0, sizeof(lim));
	lim.grace_ms = r->ctx->cfg.grace_ms;
	if (r->mode.timeout_ms > 0) {
		/* Time spent waiting for another forge's lock counts. */
		left = r->res.steps_ms + r->mode.timeout_ms -
		    r->ctx->state.waited_ms - timeutil_now_ms();
		lim.timeout_ms = left > 0 ? left : 1;
	}
	t = timeutil_now_ms();
	s->ran = 1;
	if (spawn_start(&sp) == -1) {
		s->ms = timeutil_now_ms() - t;
		if (sp.hook_what != -1) {
			/* Never run uncontained: an ERROR, not the
			 * command's failure. */
			contain_explain(sp.hook_what, errno, NULL);
			r->plan_failed = 1;
			s->status = EXIT_FORGE;
			verify_result_doing(r, "forge could not contain the command");
		} else
			not_started(r, s, errno);
		goto out;
	}
	if (r->copy.have_rd)
		(void)rundir_note_child(&r->copy.rd, sp.pid);
	if (spawn_wait(&sp, &lim, &ex) == -1) {
		verify_log_sync(r);
		warn("waiting for %s", fs_vis(s->display));
		verify_result_doing(r, "forge could not wait for the command");
		goto out;
	}
	s->ms = timeutil_now_ms() - t;
	/* All it wrote is out before forge says anything more. */
	verify_log_sync(r);
	ret = judge_step(r, s, &ex);
out:
	strv_free(&env);
	free(dir);
	return ret;
}

void
verify_steps_begin(struct run *r)
{
	verify_result_set(r, VERDICT_PASS, 0, 0, NULL);
	/* The limit is the verification's: building the copy is forge's. */
	r->res.steps_ms = timeutil_now_ms();
}

int
verify_steps_run(struct run *r, int setup)
{
	size_t	i;
	int	skipped = 0;

	for (i = 0; i < r->nsteps; i++) {
		if (r->steps[i].setup != setup)
			continue;
		if (r->steps[i].skip) {
			if (!skipped++)
				fprintf(stderr, "forge: setup: skipped: this "
				    "copy has had it (--setup runs it again)\n");
			continue;
		}
		if (i > 0)
			sig_test_stall("step");
		/* A step that never started is not recorded as run. */
		if (sig_pending()) {
			verify_result_interrupted(r, sig_pending());
			return -1;
		}
		/* Where each starts, so that setup's output does not run
		 * into the tests'; a lone step has the run's line above. */
		if (r->nsteps > 1)
			fprintf(stderr, "forge: %s%s\n", r->steps[i].setup ?
			    "" : "step: ", fs_vis(r->steps[i].display));
		if (run_step(r, &r->steps[i]) == -1)
			return -1;
	}
	return 0;
}

void
verify_steps_end(struct run *r)
{
	if (r->have_plan)
		contain_end(&r->plan);
}
