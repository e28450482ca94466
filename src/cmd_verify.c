/*
 * forge verify: run the verification, in place or in an ephemeral copy,
 * and record the verdict in the real repository.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bigfile.h"
#include "breaker.h"
#include "change.h"
#include "cleanup.h"
#include "cmd.h"
#include "color.h"
#include "context.h"
#include "escape.h"
#include "forge.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "patch.h"
#include "proof.h"
#include "sig.h"
#include "rundir.h"
#include "snapshot.h"
#include "spawn.h"
#include "timeutil.h"
#include "xmalloc.h"

struct step {
	char		*display;	/* as the user would type it */
	struct strv	 argv;
	int		 shell;		/* a forge.verify value, run by sh */
	int		 setup;		/* a forge.setup value */
	int		 ran;
	int		 status;
	long long	 ms;
};

struct run {
	struct context	*ctx;
	struct rundir	 rd;
	int		 have_rd;
	struct snapshot	 snap;
	int		 have_snap;
	struct change	 change;
	int		 have_change;
	int		 isolated;
	int		 check;
	struct step	*steps;
	size_t		 nsteps;
	char		*tree;
	enum verdict	 verdict;
	int		 status;
	int		 timed_out;
	int		 signo;		/* what interrupted it */
	long long	 timeout_ms;
	long long	 start_ms;
	long long	 steps_ms;	/* when the first step started */
	time_t		 start;
	char		*failed;	/* the failing step, for the breaker */
	struct breaker	 after;		/* the breaker, once recorded */
	int		 recorded;
};

static const struct option longopts[] = {
	{ "isolated",	no_argument,		NULL, 'i' },
	{ "in-place",	no_argument,		NULL, 'I' },
	{ "no-check",	no_argument,		NULL, 'N' },
	{ "keep",	no_argument,		NULL, 'k' },
	{ "timeout",	required_argument,	NULL, 't' },
	{ "change",	optional_argument,	NULL, 'c' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "exit",	required_argument,	NULL, 'e' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

int	cmd_verify(int, char **);

const struct cmd_entry cmd_verify_entry = {
	"verify",
	"[--isolated | --in-place] [--no-check] [--keep]\n"
	"[--timeout duration] [--change[=base]] [--verbose]\n"
	"[--exit=verdict | status] [--] [command [argument ...]]",
	"Verify runs command (or the forge.verify steps) and records the "
	"verdict.\nWith --isolated it runs in an ephemeral copy of the "
	"working state:\na detached worktree at HEAD, plus the uncommitted "
	"changes, plus the\nuntracked files git does not ignore.  The copy "
	"is proved equal to the\nworking tree before anything runs, and "
	"removed afterwards.\n",
	"  -i, --isolated      run in an ephemeral copy (forge.isolated)\n"
	"      --in-place      run in the working tree itself\n"
	"      --no-check      do not prove the copy first (unsafe)\n"
	"  -k, --keep          keep the copy and print its path\n"
	"  -t, --timeout D     stop after D (90s, 10m, 1h; forge.timeout)\n"
	"      --change[=B]    report what changed since B (HEAD)\n"
	"  -v, --verbose       say where the time went\n"
	"      --exit=verdict  exit 0 PASS, 1 FAIL, 124 timeout, 125 ERROR\n",
	cmd_verify
};

int
verify_parse(int argc, char **argv, struct verify_opts *o)
{
	int	ch;

	memset(o, 0, sizeof(*o));
	o->isolated = -1;
	o->check = 1;
	o->timeout_ms = -1;
	optind = 0;	/* GNU: start afresh, as tests parse repeatedly */
	/* "+": the first non-option is COMMAND; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+ikt:vh", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'i':
			o->isolated = 1;
			break;
		case 'I':
			o->isolated = 0;
			break;
		case 'N':
			o->check = 0;
			break;
		case 'k':
			o->keep = 1;
			break;
		case 't':
			if ((o->timeout_ms = duration_parse(optarg)) < 0) {
				warnx("--timeout %s: not a duration such as "
				    "90s, 10m or 1.5h", fs_vis(optarg));
				return -1;
			}
			break;
		case 'c':
			o->change = optarg != NULL ? optarg : "HEAD";
			if (*o->change == '\0') {
				warnx("--change=: the base is empty");
				return -1;
			}
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'e':
			if (strcmp(optarg, "verdict") == 0)
				o->exit_verdict = 1;
			else if (strcmp(optarg, "status") == 0)
				o->exit_verdict = 0;
			else {
				warnx("--exit=%s: say --exit=verdict or "
				    "--exit=status", fs_vis(optarg));
				return -1;
			}
			break;
		case 'h':
			o->help = 1;
			return 0;
		default:
			cmd_usage(&cmd_verify_entry);
			return -1;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->keep && o->isolated == 0) {
		warnx("--keep keeps the isolated copy: it makes no sense with "
		    "--in-place");
		return -1;
	}
	return 0;
}

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
	free(r->failed);
	r->failed = NULL;
	if (failed != NULL) {
		va_start(ap, failed);
		r->failed = xvasprintf(failed, ap);
		va_end(ap);
	}
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
		return 0;
	}
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

/* Where a command runs: the copy's counterpart of the caller's dir. */
static char *
command_dir(struct run *r, const struct step *s)
{
	const char	*prefix = r->ctx->repo.prefix;
	struct stat	 sb;
	char		*dir;

	if (!r->isolated)
		return s->shell ? xstrdup(r->ctx->repo.top) : NULL;
	if (s->shell || *prefix == '\0')
		return xstrdup(r->snap.copy);
	/* The prefix ends in a slash; a shell's PWD would not. */
	dir = xasprintf("%s/%.*s", r->snap.copy, (int)strlen(prefix) - 1,
	    prefix);
	/* It may hold only ignored files, so the copy lacks it: a build
	 * there would fail for no visible reason, unless this says why. */
	if (lstat(dir, &sb) == -1 && errno == ENOENT) {
		fprintf(stderr, "forge: %s holds only files git ignores (or "
		    "none): the command runs in an empty %s in the copy\n",
		    fs_vis(prefix), fs_vis(prefix));
		if (fs_mkdirs(dir, 0777) == -1)
			warn("cannot create %s", fs_vis(dir));
	}
	return dir;
}

/*
 * The command could not be started.  Not found, or not executable, is
 * the command's own doing: 127 or 126, as a shell says.  Anything else
 * (fork or a pipe failing under a process limit, the directory gone) is
 * forge's: an ERROR, which never feeds the breaker.
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
	set_verdict(r, VERDICT_FAIL, s->status, 0, "%s (%s)", s->display,
	    s->status == EXIT_NOTFOUND ? "command not found" :
	    "cannot execute");
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

	dir = command_dir(r, s);
	if (r->isolated) {
		/* From a git hook, these would point the command at the
		 * real repository. */
		git_unset_local(&env);
		strv_pushf(&env, "PWD=%s", dir);
	}
	sp.argv = s->argv.v;
	sp.env = r->isolated ? env.v : NULL;
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
		not_started(r, s, errno);
		goto out;
	}
	if (r->have_rd)
		(void)rundir_note_child(&r->rd, sp.pid);
	if (spawn_wait(&sp, &lim, &ex) == -1) {
		warn("waiting for %s", fs_vis(s->display));
		doing(r, "forge could not wait for the command");
		goto out;
	}
	s->ms = time_now_ms() - t;
	ret = judge_step(r, s, &ex);
out:
	strv_free(&env);
	free(dir);
	return ret;
}

static void
run_steps(struct run *r)
{
	size_t	i;

	set_verdict(r, VERDICT_PASS, 0, 0, NULL);
	/* The limit is the verification's: building the copy is forge's. */
	r->steps_ms = time_now_ms();
	for (i = 0; i < r->nsteps; i++) {
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
}

static void
event_json(struct run *r, struct buf *ev, const char *now)
{
	struct json	 j;
	size_t		 i;

	json_init(&j, ev);
	state_event_begin(&j, "verify", now);
	json_key(&j, "mode");
	json_str(&j, r->isolated ? "isolated" : "in-place");
	json_key(&j, "head");
	json_str(&j, r->ctx->repo.head);
	json_key(&j, "tree");
	json_str(&j, r->tree);
	json_key(&j, "cwd");
	json_str(&j, r->ctx->repo.prefix);
	json_key(&j, "steps");
	json_open(&j, '[');
	for (i = 0; i < r->nsteps; i++) {
		if (!r->steps[i].ran)
			continue;
		json_open(&j, '{');
		json_key(&j, "command");
		json_str(&j, r->steps[i].display);
		if (r->steps[i].setup) {
			json_key(&j, "setup");
			json_bool(&j, 1);
		}
		json_key(&j, "status");
		json_int(&j, r->steps[i].status);
		json_key(&j, "duration_ms");
		json_int(&j, r->steps[i].ms);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_key(&j, "verdict");
	json_str(&j, verdict_name(r->verdict));
	json_key(&j, "status");
	json_int(&j, r->status);
	if (r->failed != NULL) {
		json_key(&j, "failed");
		json_str(&j, r->failed);
	}
	if (r->timed_out) {
		json_key(&j, "timed_out");
		json_bool(&j, 1);
	}
	if (r->signo != 0) {
		json_key(&j, "signal");
		json_int(&j, r->signo);
	}
	json_key(&j, "duration_ms");
	json_int(&j, time_now_ms() - r->start_ms);
	if (r->have_change) {
		json_key(&j, "change");
		change_json(&r->change, &j, CHANGE_LIST_MAX);
	}
	if (r->have_snap && rundir_kept(&r->rd)) {
		json_key(&j, "kept");
		json_str(&j, r->snap.copy);
	}
	json_key(&j, "breaker");
	breaker_json(&r->after, &j);
	json_close(&j, '}');
	buf_addc(ev, '\n');
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
	struct json	 j;
	char		 start[RFC3339_LEN];
	int		 opened, ret;

	/* A run has one time, when it started, wherever it is shown: the
	 * event, the breaker's last failure, and when the run opened it. */
	time_rfc3339(start, r->start);
	if (state_begin(st, &tx) == -1)
		return -1;
	opened = breaker_record(&tx.b, r->verdict, st->threshold, start,
	    r->failed);
	breaker_free(&r->after);
	breaker_copy(&r->after, &tx.b);
	event_json(r, &ev, start);
	if (opened) {
		json_init(&j, &ev);
		state_event_begin(&j, "breaker-open", start);
		json_key(&j, "streak");
		json_int(&j, tx.b.streak);
		json_key(&j, "threshold");
		json_int(&j, st->threshold);
		json_key(&j, "failed");
		json_str(&j, r->failed);
		json_close(&j, '}');
		buf_addc(&ev, '\n');
	}
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
		fprintf(stderr, "forge could not verify, exit status %d; ",
		    r->status);
		break;
	case VERDICT_INTERRUPTED:
		fprintf(stderr, "interrupted by signal %d; ", r->signo);
		break;
	}
	fprintf(stderr, "%s, tree %s, %s)\n", r->isolated ? "isolated" :
	    "in place", tree, d);
	free(what);
}

static void
verbose_phases(const struct snapshot *s)
{
	struct rusage	self, kids;
	char		a[32], b[32], c[32], d[32];

	fprintf(stderr, "forge: copy %s ready: checkout %s, changes %s, "
	    "untracked %s, proof %s\n", fs_vis(s->copy),
	    duration_format(a, sizeof(a), s->ms[SNAP_CHECKOUT]),
	    duration_format(b, sizeof(b), s->ms[SNAP_APPLY]),
	    duration_format(c, sizeof(c), s->ms[SNAP_UNTRACKED]),
	    duration_format(d, sizeof(d), s->ms[SNAP_PROOF]));
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
static int
tmpdir_in_tree(const struct repo *repo)
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

/* Build the copy (or, in place, read the tree id); -1: the verdict is
 * set.  The steps run after this. */
static int
prepare(struct run *r, const struct verify_opts *o)
{
	struct context		*ctx = r->ctx;
	const char		*places[4];

	doing(r, "forge could not create its run directory");
	/* Freed whatever happens: a half-made one holds a cleanup entry
	 * that points into r. */
	r->have_rd = 1;
	if (rundir_open(&r->rd, ctx->repo.common) == -1)
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
		return 0;
	}
	fprintf(stderr, "forge: isolated: running verification in an "
	    "ephemeral copy (working tree untouched)\n");
	r->have_snap = 1;
	doing(r, "forge could not build and prove the copy");
	bigfile_configure(ctx->cfg.copy_threshold, o->verbose);
	if (snapshot_create(&r->snap, &r->rd, &ctx->repo, r->check ? 0 :
	    SNAP_NOCHECK) == -1)
		return -1;
	if (r->snap.tree != NULL)
		r->tree = xstrdup(r->snap.tree);
	if (o->verbose)
		verbose_phases(&r->snap);
	places[0] = ctx->repo.top;
	places[1] = ctx->repo.gitdir;
	places[2] = ctx->repo.common;
	places[3] = NULL;
	(void)escape_warn(r->snap.copy, places);
	return 0;
}

/* The copy goes, or stays for --keep. */
static void
finish(struct run *r, int keep)
{
	if (!r->have_rd)
		return;
	if (keep && r->have_snap && r->verdict != VERDICT_INTERRUPTED &&
	    r->verdict != VERDICT_ERROR) {
		(void)rundir_keep(&r->rd, r->snap.copy);
		fprintf(stderr, "forge: kept the copy at %s (forge gc --kept "
		    "removes it)\n", fs_vis(r->snap.copy));
	} else
		/* What will not go is named, and left to forge gc: the
		 * verification's verdict stands. */
		(void)rundir_remove(&r->rd);
}

/* What forge exits with: the step's own status, or by the verdict. */
static int
exit_status(const struct run *r, int by_verdict)
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

static void
free_run(struct run *r)
{
	if (r->have_snap)
		snapshot_free(&r->snap);
	if (r->have_rd)
		rundir_free(&r->rd);
	free(r->tree);
	free(r->failed);
	if (r->have_change)
		change_free(&r->change);
	breaker_free(&r->after);
	free_steps(r);
}

/* Options, configuration and steps; the breaker.  0 or an exit status. */
static int
start(struct run *r, const struct verify_opts *o)
{
	struct context	*ctx = r->ctx;
	int		 st;

	r->isolated = o->isolated != -1 ? o->isolated : ctx->cfg.isolated;
	r->timeout_ms = o->timeout_ms >= 0 ? o->timeout_ms :
	    ctx->cfg.timeout_ms;
	r->check = o->check;
	if (o->keep && !r->isolated) {
		warnx("--keep keeps the isolated copy: add --isolated");
		return EXIT_USAGE;
	}
	if (make_steps(r, o) == -1)
		return EXIT_USAGE;
	if (r->isolated && tmpdir_in_tree(&ctx->repo) == -1)
		return EXIT_FORGE;
	/* Waiting for another forge's lock counts against the limit. */
	if (r->timeout_ms > 0)
		ctx->state.deadline_ms = r->start_ms + r->timeout_ms;
	if ((st = refused(r)) == 1)
		return EXIT_BREAKER;
	if (st == -1)
		return errno == ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FORGE;
	return 0;
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
	memset(&r, 0, sizeof(r));
	r.start = time(NULL);
	r.start_ms = time_now_ms();
	r.ctx = &ctx;
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	if ((st = start(&r, &o)) != 0) {
		free_run(&r);
		context_close(&ctx);
		return st;
	}
	if (prepare(&r, &o) == 0) {
		if (o.verbose && r.tree != NULL)
			fprintf(stderr, "forge: verifying tree %s (HEAD %s)\n",
			    r.tree, ctx.repo.head);
		run_steps(&r);
	}
	if (sig_pending() && r.verdict != VERDICT_INTERRUPTED)
		interrupted(&r, sig_pending());
	finish(&r, o.keep);
	record(&r);
	summary(&r);
	st = exit_status(&r, o.exit_verdict);
	free_run(&r);
	context_close(&ctx);
	if (r.verdict == VERDICT_INTERRUPTED && r.signo != 0) {
		/* Die of the signal, so whoever ran us sees the cause. */
		cleanup_run();
		fflush(NULL);
		sig_die(r.signo);
	}
	return st;
}
