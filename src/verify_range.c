/* forge verify --rev=A..B: a range's commits verified in turn, in a table. */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "cmd_verify.h"
#include "color.h"
#include "context.h"
#include "forge.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "settings.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_carry.h"
#include "verify_copy.h"
#include "verify_int.h"
#include "verify_range.h"
#include "xmalloc.h"

/* How a commit's verdict came to be. */
enum how {
	HOW_NOT_RUN,
	HOW_RAN,
	HOW_CACHED,
	HOW_INFERRED		/* --bisect: from the commits around it */
};

struct row {
	char		*id;
	char		*subject;
	enum how	 how;
	enum verdict	 verdict;
	int		 status;	/* what forge would exit with */
	int		 by_verdict;	/* and with --exit=verdict */
	int		 partial;
	long long	 ms;
	char		*failed;
};

struct range {
	struct row	*v;
	size_t		 n;
	size_t		 ran;
	char		*id;		/* the timeline's name for it */
	int		 stopped;	/* interrupted: nothing more runs */
};

/*
 * The range's commits, oldest first, with their subjects: 0, or an exit
 * status (said why).
 */
static int
list_commits(struct range *rg, const struct repo *repo,
    const struct verify_opts *o)
{
	const char	*a[8];
	struct git	 g;
	struct buf	 out = BUF_INIT, err = BUF_INIT;
	char		*p, *nl, *end;
	size_t		 n = 0;
	int		 st;

	a[n++] = "rev-list";
	a[n++] = "--reverse";
	if (o->first_parent)
		a[n++] = "--first-parent";
	a[n++] = "--format=%s";
	a[n++] = o->rev;
	a[n++] = "--";
	a[n] = NULL;
	repo_git(repo, &g);
	g.index = NULL;
	if ((st = git_run(&g, a, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("--rev=%s: no such range: %s", fs_vis(o->rev),
			    git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return st > 0 ? EXIT_USAGE : EXIT_FORGE;
	}
	buf_free(&err);
	buf_addc(&out, '\0');
	/* "commit <id>\n<subject>\n" each. */
	for (p = out.data, end = p + out.len - 1; p < end; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL || strncmp(p, "commit ",
		    7) != 0)
			break;
		rg->v = xreallocarray(rg->v, rg->n + 1, sizeof(*rg->v));
		memset(&rg->v[rg->n], 0, sizeof(*rg->v));
		rg->v[rg->n].id = xstrndup(p + 7, (size_t)(nl - p - 7));
		p = nl + 1;
		if ((nl = strchr(p, '\n')) == NULL)
			nl = end;
		rg->v[rg->n++].subject = xstrndup(p, (size_t)(nl - p));
	}
	buf_free(&out);
	if (rg->n == 0) {
		warnx("--rev=%s: the range holds no commit", fs_vis(o->rev));
		return EXIT_USAGE;
	}
	return 0;
}

/* The commit's own settings, as --rev reads them: 0 or an exit status. */
static int
commit_settings(struct context *ctx, const char *id)
{
	int	st;

	free(ctx->at);
	ctx->at = xstrdup(id);
	settings_free(&ctx->cfg);
	settings_init(&ctx->cfg);
	st = settings_load(&ctx->cfg, &ctx->repo, id);
	ctx->repo.core = &ctx->cfg.core;
	return st == 0 ? 0 : st == -1 ? EXIT_USAGE : EXIT_FORGE;
}

/* One commit verified, as --rev does, into its row. */
static void
verify_one(struct range *rg, size_t i, struct run *r,
    const struct verify_opts *o)
{
	struct row	*c = &rg->v[i];
	int		 st;

	verify_next(r);
	r->start = time(NULL);
	r->start_ms = time_now_ms();
	fprintf(stderr, "forge: commit %zu of %zu: %.12s %s\n", i + 1,
	    rg->n, c->id, fs_vis(c->subject));
	c->how = HOW_RAN;
	rg->ran++;
	if ((st = commit_settings(r->ctx, c->id)) == 0)
		st = verify_begin(r, o);
	if (st != 0) {
		/* Said why: nothing of it can be verified. */
		r->isolated = 1;
		r->source.kind = SOURCE_REV;
		r->source.commit = xstrdup(c->id);
		verify_error(r, st, st == EXIT_USAGE ? "the commit's settings "
		    "or steps cannot be used" : "forge could not read the "
		    "commit's settings");
		verify_end(r, o);
	} else if ((st = verify_prepare(r, o)) == 1) {
		(void)verify_cached(r);
		c->how = HOW_CACHED;
		c->verdict = VERDICT_PASS;
		rg->ran--;
		return;
	} else {
		if (st == 0)
			verify_steps(r);
		verify_end(r, o);
		verify_carry_done(r);
	}
	c->verdict = r->verdict;
	c->status = verify_exit(r, 0);
	c->by_verdict = verify_exit(r, 1);
	c->partial = partial(r);
	c->ms = time_now_ms() - r->start_ms;
	c->failed = r->failed != NULL ? xstrdup(r->failed) : NULL;
	if (r->verdict == VERDICT_INTERRUPTED)
		rg->stopped = 1;
}

/* In order, up to the first commit that does not pass (all of them with
 * --keep-going). */
static void
in_order(struct range *rg, struct run *r, const struct verify_opts *o)
{
	size_t	i;

	for (i = 0; i < rg->n && !rg->stopped; i++) {
		verify_one(rg, i, r, o);
		if (rg->v[i].verdict != VERDICT_PASS && !o->keep_going)
			break;
	}
}

/*
 * The first commit that does not pass, searched for: the range taken to
 * start good and to stay bad once bad, each commit verified halves what
 * is left.  Those before the first failing one that were not run are
 * inferred to pass; those after it, never run, are not inferred at all.
 */
static void
bisect(struct range *rg, struct run *r, const struct verify_opts *o)
{
	size_t	lo = 0, hi = rg->n, m, i, inferred = 0;

	while (lo < hi && !rg->stopped) {
		m = lo + (hi - lo) / 2;
		verify_one(rg, m, r, o);
		if (rg->v[m].verdict == VERDICT_PASS)
			lo = m + 1;
		else
			hi = m;
	}
	if (rg->stopped)
		return;
	for (i = 0; i < lo; i++)
		if (rg->v[i].how == HOW_NOT_RUN) {
			rg->v[i].how = HOW_INFERRED;
			rg->v[i].verdict = VERDICT_PASS;
			inferred++;
		}
	if (hi < rg->n)
		fprintf(stderr, "forge: --bisect: the first failing commit is "
		    "%.12s; %zu of %zu commits ran, %zu before it inferred "
		    "to pass, taking the range to start good\n", rg->v[hi].id,
		    rg->ran, rg->n, inferred);
	else
		fprintf(stderr, "forge: --bisect: no failing commit found; "
		    "%zu of %zu commits ran, %zu inferred to pass, taking the "
		    "range to start good\n", rg->ran, rg->n, inferred);
}

static const char *
how_name(const struct row *c)
{
	switch (c->how) {
	case HOW_RAN:
		return c->partial ? "partial" : "ran";
	case HOW_CACHED:
		return "cached";
	case HOW_INFERRED:
		return "inferred";
	default:
		return "not run";
	}
}

/* One row a commit: id, verdict, how, duration, subject. */
static void
table(const struct range *rg, const char *rev, int color)
{
	const struct row	*c;
	const char		*v;
	char			 d[32];
	size_t			 i, k[4] = { 0, 0, 0, 0 };

	for (i = 0; i < rg->n; i++)
		if (rg->v[i].how == HOW_NOT_RUN)
			k[0]++;
		else if (rg->v[i].verdict == VERDICT_PASS)
			k[1]++;
		else if (rg->v[i].verdict == VERDICT_FAIL)
			k[2]++;
		else
			k[3]++;
	fprintf(stderr, "Range %s: %zu commit%s: %zu passed, %zu failed, %zu "
	    "not verified, %zu not run\n", fs_vis(rev), rg->n, rg->n == 1 ?
	    "" : "s", k[1], k[2], k[3], k[0]);
	for (i = 0; i < rg->n; i++) {
		c = &rg->v[i];
		v = c->how == HOW_NOT_RUN ? "-" : verdict_name(c->verdict);
		if (c->how == HOW_RAN)
			duration_format(d, sizeof(d), c->ms);
		else
			strlcpy(d, "-", sizeof(d));
		fprintf(stderr, "  %.12s  %s%-11s%s  %-8s  %8s  %s", c->id,
		    color && c->how != HOW_NOT_RUN ? color_verdict(v) : "", v,
		    color && c->how != HOW_NOT_RUN ? COLOR_RESET : "",
		    how_name(c), d, fs_vis(c->subject));
		if (c->failed != NULL && c->verdict != VERDICT_PASS)
			fprintf(stderr, " (%s)", fs_vis(c->failed));
		fputc('\n', stderr);
	}
}

/* The first commit that did not pass has the status; --exit=verdict
 * takes the worst verdict (0 PASS < 1 FAIL < 124 time limit < 125). */
static int
range_status(const struct range *rg, int by_verdict)
{
	size_t	i;
	int	worst = 0;

	for (i = 0; i < rg->n; i++) {
		if (rg->v[i].how != HOW_RAN)
			continue;
		if (!by_verdict && rg->v[i].verdict != VERDICT_PASS)
			return rg->v[i].status;
		if (by_verdict && rg->v[i].by_verdict > worst)
			worst = rg->v[i].by_verdict;
	}
	return worst;
}

static void
range_free(struct range *rg)
{
	size_t	i;

	for (i = 0; i < rg->n; i++) {
		free(rg->v[i].id);
		free(rg->v[i].subject);
		free(rg->v[i].failed);
	}
	free(rg->v);
	free(rg->id);
}

int
verify_range(const struct verify_opts *o)
{
	struct context	 ctx;
	struct range	 rg;
	struct run	 r;
	int		 st, signo = 0;

	memset(&rg, 0, sizeof(rg));
	memset(&r, 0, sizeof(r));
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	r.ctx = &ctx;
	r.range = 1;
	r.convert_on = -1;
	r.no_breaker = o->no_breaker;
	/* Each commit's event names the range it is of. */
	rg.id = xasprintf("%lld.%ld", (long long)time(NULL), (long)getpid());
	r.range_id = rg.id;
	if ((st = list_commits(&rg, &ctx.repo, o)) != 0 ||
	    (st = verify_gate(&r)) != 0) {
		range_free(&rg);
		context_close(&ctx);
		return st;
	}
	if (o->bisect)
		bisect(&rg, &r, o);
	else
		in_order(&rg, &r, o);
	if (r.verdict == VERDICT_INTERRUPTED)
		signo = r.signo;
	if (r.have_rd)
		verify_copy_finish(&r, KEEP_NEVER);
	table(&rg, o->rev, color_want(ctx.cfg.color, STDERR_FILENO));
	st = range_status(&rg, o->exit_verdict);
	verify_free(&r);
	range_free(&rg);
	context_close(&ctx);
	if (signo != 0) {
		/* Die of the signal, so whoever ran us sees the cause. */
		cleanup_run();
		fflush(NULL);
		sig_die(signo);
	}
	return st;
}
