/* forge verify --rev=A..B: a range's commits verified in turn, in a table. */
#include "config.h"

#include <sys/mman.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "verify_opts.h"
#include "color.h"
#include "context.h"
#include "forge.h"
#include "fs_vis.h"
#include "fs.h"
#include "git.h"
#include "rundir.h"
#include "settings.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "verdict.h"
#include "verify_audit.h"
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

/* A cached PASS, audited if due: did a fresh run say otherwise? */
static int
cache_wrong(struct run *r, const struct verify_opts *o)
{
	if (verify_audit_due(r, o, 1))
		verify_audit(r, o);
	return r->res.diverged;
}

/* One commit verified, as --rev does, into its row. */
static void
verify_commit(struct range *rg, size_t i, struct run *r,
    const struct verify_opts *o)
{
	struct row	*c = &rg->v[i];
	int		 st;

	verify_run_next(r);
	r->res.start = time(NULL);
	r->res.start_ms = timeutil_now_ms();
	fprintf(stderr, "forge: commit %zu of %zu: %.12s %s\n", i + 1,
	    rg->n, c->id, fs_vis(c->subject));
	c->how = HOW_RAN;
	rg->ran++;
	if ((st = commit_settings(r->ctx, c->id)) == 0)
		st = verify_run_begin(r, o);
	if (st != 0) {
		/* Said why: nothing of it can be verified. */
		r->mode.isolated = 1;
		r->source.kind = SOURCE_REV;
		if (r->source.commit == NULL)
			r->source.commit = xstrdup(c->id);
		verify_result_error(r, st, st == EXIT_USAGE ? "the commit's settings "
		    "or steps cannot be used" : "forge could not read the "
		    "commit's settings");
		verify_run_end(r, o);
	} else if ((st = verify_run_prepare(r, o)) == 1 &&
	    !cache_wrong(r, o)) {
		(void)verify_cache_replay(r);
		c->how = HOW_CACHED;
		c->verdict = VERDICT_PASS;
		rg->ran--;
		return;
	} else {
		if (st == 0) {
			verify_run_steps(r);
			if (verify_audit_due(r, o, 0))
				verify_audit(r, o);
		}
		verify_run_end(r, o);
		verify_carry_done(r);
		/* Found wrong, the copy starts afresh at the next commit. */
		if (r->res.diverged)
			r->copy.carry_ok = 0;
	}
	c->verdict = r->res.verdict;
	c->status = verify_result_exit(r, 0);
	c->by_verdict = verify_result_exit(r, 1);
	c->partial = partial(r);
	c->ms = timeutil_now_ms() - r->res.start_ms;
	c->failed = r->res.failed != NULL ? xstrdup(r->res.failed) : NULL;
	if (r->res.verdict == VERDICT_INTERRUPTED)
		rg->stopped = 1;
}

/* In order, up to the first commit that does not pass (all of them with
 * --keep-going). */
static void
in_order(struct range *rg, struct run *r, const struct verify_opts *o)
{
	size_t	i;

	for (i = 0; i < rg->n && !rg->stopped; i++) {
		verify_commit(rg, i, r, o);
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
		verify_commit(rg, m, r, o);
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

/*
 * --jobs: each worker, a forked forge, verifies a slice of the range in
 * order in a copy of its own, each commit's output caught in unlinked
 * files and printed whole once it ends (one worker at a time: the token
 * read from tok and written back), its row sent to the parent on res as
 * one line.  A commit after *stop, the first that did not pass as far as
 * the parent knows, is not started (but with --keep-going).
 */
struct jobs {
	int			 res[2], tok[2];
	volatile size_t		*stop;
	int			 out, err;	/* the worker's own */
};

/* An unlinked file in TMPDIR, or -1 (said why). */
static int
caught(void)
{
	char	*tmp, *path;
	int	 fd;

	tmp = rundir_tmpdir();
	if ((fd = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) == -1) {
		path = xasprintf("%s/forge-out.XXXXXX", tmp);
		if ((fd = mkostemp(path, O_CLOEXEC)) != -1)
			(void)unlink(path);
		else
			warn("cannot make a file in %s", fs_vis(tmp));
		free(path);
	}
	free(tmp);
	return fd;
}

/* What fd caught, onto to. */
static void
print_caught(int fd, int to)
{
	char	 b[8192];
	ssize_t	 n, w, off;

	if (fd == -1 || lseek(fd, 0, SEEK_SET) == -1)
		return;
	while ((n = read(fd, b, sizeof(b))) > 0)
		for (off = 0; off < n; off += w)
			if ((w = write(to, b + off, (size_t)(n - off))) <= 0 &&
			    errno != EINTR)
				return;
			else if (w < 0)
				w = 0;
}

/* The row, as one line to the parent: what went is replaced by '?'. */
static void
send_row(const struct jobs *j, size_t i, const struct row *c)
{
	char	 line[1024], *p;
	int	 n;

	n = snprintf(line, sizeof(line), "%zu\t%d\t%d\t%d\t%d\t%d\t%lld\t%.900s",
	    i, (int)c->how, (int)c->verdict, c->status, c->by_verdict,
	    c->partial, c->ms, c->failed != NULL ? c->failed : "");
	if (n < 0)
		return;
	for (p = line; *p != '\0'; p++)
		if (*p == '\n')
			*p = '?';
	n = (int)strlen(line);
	line[n++] = '\n';
	while (write(j->res[1], line, (size_t)n) == -1 && errno == EINTR)
		;
}

/* One commit in a worker: its output caught, then printed whole. */
static void
job_one(struct range *rg, size_t i, struct run *r,
    const struct verify_opts *o, const struct jobs *j)
{
	int	 fd[2];
	char	 c;

	fd[0] = caught();
	fd[1] = caught();
	fflush(NULL);
	if (fd[0] != -1)
		(void)dup2(fd[0], STDOUT_FILENO);
	if (fd[1] != -1)
		(void)dup2(fd[1], STDERR_FILENO);
	verify_commit(rg, i, r, o);
	fflush(NULL);
	(void)dup2(j->out, STDOUT_FILENO);
	(void)dup2(j->err, STDERR_FILENO);
	while (read(j->tok[0], &c, 1) == -1 && errno == EINTR)
		;
	print_caught(fd[0], STDOUT_FILENO);
	print_caught(fd[1], STDERR_FILENO);
	while (write(j->tok[1], "t", 1) == -1 && errno == EINTR)
		;
	if (fd[0] != -1)
		close(fd[0]);
	if (fd[1] != -1)
		close(fd[1]);
	send_row(j, i, &rg->v[i]);
}

/* A worker: commits from to to, in order, in a copy of its own. */
static void __attribute__((__noreturn__))
worker(struct range *rg, size_t from, size_t to, struct context *ctx,
    const struct verify_opts *o, struct jobs *j)
{
	struct run	 r;
	size_t		 i;
	int		 null, signo = 0;

	sig_forked();
	spawn_adopt();
	close(j->res[0]);
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) != -1) {
		(void)dup2(null, STDIN_FILENO);
		close(null);
	}
	j->out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	j->err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.mode.range = 1;
	r.mode.no_breaker = o->no_breaker;
	r.mode.range_id = rg->id;
	for (i = from; i < to && !rg->stopped && i <= *j->stop; i++) {
		job_one(rg, i, &r, o, j);
		if (rg->v[i].verdict != VERDICT_PASS && !o->keep_going)
			break;
	}
	if (r.res.verdict == VERDICT_INTERRUPTED)
		signo = r.res.signo;
	if (r.copy.have_rd)
		verify_copy_finish(&r, KEEP_NEVER);
	verify_run_free(&r);
	fflush(NULL);
	if (signo != 0) {
		cleanup_run();
		sig_die(signo);
	}
	_exit(0);
}

/* A row sent by a worker, into its place. */
static void
take_row(struct range *rg, char *line, const struct verify_opts *o,
    volatile size_t *stop)
{
	struct row	*c;
	char		*f[8], *p = line;
	size_t		 k, i;

	for (k = 0; k < 8; k++)
		f[k] = strsep(&p, "\t");
	if (f[7] == NULL || (i = strtoul(f[0], NULL, 10)) >= rg->n)
		return;
	c = &rg->v[i];
	c->how = (enum how)atoi(f[1]);
	c->verdict = (enum verdict)atoi(f[2]);
	c->status = atoi(f[3]);
	c->by_verdict = atoi(f[4]);
	c->partial = atoi(f[5]);
	c->ms = strtoll(f[6], NULL, 10);
	c->failed = *f[7] != '\0' ? xstrdup(f[7]) : NULL;
	if (c->how == HOW_RAN)
		rg->ran++;
	if (c->verdict == VERDICT_INTERRUPTED)
		rg->stopped = 1;
	if (c->verdict != VERDICT_PASS && !o->keep_going && i < *stop)
		*stop = i;
}

/* The rows, as workers send them, until they are all done; a signal
 * for forge passed on to them. */
static void
collect(struct range *rg, struct jobs *j, const pid_t *pids, size_t nw,
    const struct verify_opts *o)
{
	struct pollfd	 pfd[2];
	struct buf	 in = BUF_INIT;
	char		 b[4096], *nl;
	ssize_t		 n;
	size_t		 k, used;
	int		 passed = 0;

	pfd[0].fd = j->res[0];
	pfd[0].events = POLLIN;
	pfd[1].fd = sig_fd();
	pfd[1].events = POLLIN;
	for (;;) {
		if (sig_pending() && !passed) {
			for (k = 0; k < nw; k++)
				(void)kill(pids[k], sig_pending());
			passed = 1;
		}
		if (poll(pfd, pfd[1].fd != -1 ? 2 : 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			warn("poll");
			break;
		}
		if (pfd[1].fd != -1 && (pfd[1].revents & POLLIN))
			sig_drain();
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		if ((n = read(j->res[0], b, sizeof(b))) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_add(&in, b, (size_t)n);
		while ((nl = strchr(in.data, '\n')) != NULL) {
			*nl = '\0';
			take_row(rg, in.data, o, j->stop);
			used = (size_t)(nl + 1 - in.data);
			memmove(in.data, nl + 1, in.len - used);
			buf_truncate(&in, in.len - used);
		}
	}
	buf_free(&in);
}

/* --jobs N: N workers, each a slice of the range.  The signal that ended
 * a worker, if any, into *signo; -1 if one ended otherwise, said. */
static int
in_parallel(struct range *rg, struct context *ctx,
    const struct verify_opts *o, int *signo)
{
	struct jobs	 j;
	pid_t		*pids;
	size_t		 nw, w;
	int		 ws, ret = 0;

	nw = (size_t)o->jobs < rg->n ? (size_t)o->jobs : rg->n;
	if ((j.stop = mmap(NULL, sizeof(*j.stop), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		warn("mmap");
		return -1;
	}
	*j.stop = rg->n;
	if (pipe2(j.res, O_CLOEXEC) == -1 || pipe2(j.tok, O_CLOEXEC) == -1 ||
	    write(j.tok[1], "t", 1) != 1) {
		warn("pipe");
		return -1;
	}
	pids = xcalloc(nw, sizeof(*pids));
	fflush(NULL);
	for (w = 0; w < nw; w++) {
		if ((pids[w] = fork()) == 0)
			worker(rg, w * rg->n / nw, (w + 1) * rg->n / nw, ctx, o,
			    &j);
		if (pids[w] == -1) {
			warn("fork");
			ret = -1;
			break;
		}
	}
	close(j.res[1]);
	collect(rg, &j, pids, w, o);
	for (nw = w, w = 0; w < nw; w++) {
		while (waitpid(pids[w], &ws, 0) == -1 && errno == EINTR)
			;
		if (WIFSIGNALED(ws) && sig_pending() == WTERMSIG(ws))
			*signo = WTERMSIG(ws);
		else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
			warnx("a forge verifying part of the range ended "
			    "abnormally: its commits not shown are not "
			    "verified");
			ret = -1;
		}
	}
	if (sig_pending())
		*signo = sig_pending();
	close(j.res[0]);
	close(j.tok[0]);
	close(j.tok[1]);
	free(pids);
	munmap((void *)j.stop, sizeof(*j.stop));
	return ret;
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
			timeutil_duration(d, sizeof(d), c->ms);
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
	int		 st, signo = 0, trouble = 0;

	memset(&rg, 0, sizeof(rg));
	memset(&r, 0, sizeof(r));
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	spawn_adopt();
	r.ctx = &ctx;
	r.mode.range = 1;
	r.mode.no_breaker = o->no_breaker;
	/* Each commit's event names the range it is of. */
	rg.id = xasprintf("%lld.%ld", (long long)time(NULL), (long)getpid());
	r.mode.range_id = rg.id;
	if ((st = list_commits(&rg, &ctx.repo, o)) != 0 ||
	    (st = verify_run_gate(&r)) != 0) {
		range_free(&rg);
		context_close(&ctx);
		return st;
	}
	if (o->jobs > 1 && rg.n > 1)
		trouble = in_parallel(&rg, &ctx, o, &signo);
	else if (o->bisect)
		bisect(&rg, &r, o);
	else
		in_order(&rg, &r, o);
	if (r.res.verdict == VERDICT_INTERRUPTED)
		signo = r.res.signo;
	if (r.copy.have_rd)
		verify_copy_finish(&r, KEEP_NEVER);
	table(&rg, o->rev, color_want(ctx.cfg.color, STDERR_FILENO));
	st = range_status(&rg, o->exit_verdict);
	if (trouble == -1 && st == 0)
		st = EXIT_FORGE;
	verify_run_free(&r);
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
