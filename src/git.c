/* Running git with a scrubbed environment and fixed global options. */
#include "config.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs_vis.h"
#include "git.h"
#include "sig.h"
#include "xmalloc.h"

/*
 * git reads an object through refs/replace/ where one names it: a
 * checkout writes the replacement's bytes under the replaced blob's id,
 * and a file hashed again is neither.  forge's gits see the objects the
 * ids name; the command's, as the user's own would.
 */
#define NO_REPLACE	"GIT_NO_REPLACE_OBJECTS=1"

static char		*git_bin;
static char		*version;
static struct strv	 local_vars = STRV_INIT;

/* Known before asking git, so that even the first run is clean. */
static const char *const builtin_local[] = {
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE",
	"GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE",
	"GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR", NULL
};

const char *
git_path(void)
{
	return git_bin != NULL ? git_bin : "git";
}

const char *
git_version_string(void)
{
	return version != NULL ? version : "unknown";
}

int
git_parse_version(const char *s, int *major, int *minor)
{
	const char	*p;
	char		*end;
	long		 a, b;

	if (strncmp(s, "git version ", 12) != 0)
		return -1;
	p = s + 12;
	if (!isdigit((unsigned char)*p))
		return -1;
	a = strtol(p, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	b = strtol(end + 1, &end, 10);
	if (a < 0 || a > 1000 || b < 0 || b > 1000)
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

static int	git_major, git_minor;

int
git_version_at_least(int major, int minor)
{
	return git_major > major || (git_major == major && git_minor >= minor);
}

/*
 * The one place that knows which git has what forge would use; below
 * each version, the callers fall back (git.h says how).
 */
static const struct {
	enum git_feature	f;
	int			major, minor;
} features[] = {
	{ GIT_NO_RELATIVE,	2, 28 },
	{ GIT_PATH_FORMAT,	2, 31 },
	{ GIT_WORKTREE_REASON,	2, 33 },
	{ GIT_ADD_SPARSE,	2, 34 },
	{ GIT_SPARSE_WORKTREE,	2, 36 },
	{ GIT_FETCH_NO_HEAD,	2, 29 },
	{ GIT_WORKTREE_CONFIG,	2, 36 },
	{ GIT_WORKTREE_REFS,	2, 44 },
};

int
git_has(enum git_feature f)
{
	size_t	i;

	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].f == f)
			return git_version_at_least(features[i].major,
			    features[i].minor);
	return 0;
}

void
git_unset_local(struct strv *env)
{
	size_t	i;

	if (local_vars.n == 0)
		for (i = 0; builtin_local[i] != NULL; i++)
			strv_push(env, builtin_local[i]);
	for (i = 0; i < local_vars.n; i++)
		strv_push(env, local_vars.v[i]);
}

int
git_user_env_local(void)
{
	size_t	i;

	if (local_vars.n == 0) {
		for (i = 0; builtin_local[i] != NULL; i++)
			if (getenv(builtin_local[i]) != NULL)
				return 1;
		return 0;
	}
	for (i = 0; i < local_vars.n; i++)
		if (getenv(local_vars.v[i]) != NULL)
			return 1;
	return 0;
}

void
git_env(const struct git *g, struct strv *env)
{
	git_unset_local(env);
	/* These change what git diff prints, after its command line. */
	strv_push(env, "GIT_DIFF_OPTS");
	strv_push(env, "GIT_EXTERNAL_DIFF");
	/* forge's pathspecs use magic, and mean each byte of a name. */
	strv_push(env, "GIT_LITERAL_PATHSPECS");
	strv_push(env, "GIT_GLOB_PATHSPECS");
	strv_push(env, "GIT_NOGLOB_PATHSPECS");
	strv_push(env, "GIT_ICASE_PATHSPECS");
	strv_push(env, "LC_ALL=C");
	strv_push(env, NO_REPLACE);
	if (g == NULL)
		return;
	if (g->gitdir != NULL)
		strv_pushf(env, "GIT_DIR=%s", g->gitdir);
	if (g->worktree != NULL)
		strv_pushf(env, "GIT_WORK_TREE=%s", g->worktree);
	if (g->index != NULL)
		strv_pushf(env, "GIT_INDEX_FILE=%s", g->index);
	if (g->objdir != NULL)
		strv_pushf(env, "GIT_OBJECT_DIRECTORY=%s", g->objdir);
	if (g->alternates != NULL)
		strv_pushf(env, "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s",
		    g->alternates);
}

void
git_argv(struct strv *argv, const char *const *args)
{
	strv_push(argv, git_path());
	strv_push(argv, "--no-optional-locks");
	/* Empty, not false: before git 2.36 the value names a hook to
	 * run, and "false" runs /bin/false, many times a run. */
	strv_push(argv, "-c");
	strv_push(argv, "core.fsmonitor=");
	strv_push(argv, "-c");
	strv_push(argv, "core.hooksPath=/dev/null");
	/* An edit that keeps size and mtime still changes the ctime. */
	strv_push(argv, "-c");
	strv_push(argv, "core.trustctime=true");
	strv_push(argv, "-c");
	strv_push(argv, "core.checkStat=default");
	/* An index git writes is one file: a shared one would go in the
	 * git directory, the repository's for a private index. */
	strv_push(argv, "-c");
	strv_push(argv, "core.splitIndex=false");
	for (; args != NULL && *args != NULL; args++)
		strv_push(argv, *args);
}

int
git_lock_busy(const char *err)
{
	const char	*p;

	if (strstr(err, ".lock': File exists") != NULL ||
	    strstr(err, "could not lock config file") != NULL ||
	    strstr(err, "Unable to create '") != NULL)
		return 1;
	/* Another git worktree add, half way through registering its
	 * worktree, is listed by ours before its files exist; or another
	 * run's registration, being removed, is listed by ours as it goes
	 * (git takes the real path of what it read a moment before). */
	if ((p = strstr(err, "failed to read ")) != NULL &&
	    strstr(p, "/worktrees/") != NULL)
		return 1;
	return (p = strstr(err, "Invalid path '")) != NULL &&
	    strstr(p, "/worktrees/") != NULL;
}

/*
 * Hand each NUL-terminated record in b to e and drop it from b, which
 * keeps a last record not yet ended; at eof that one too.  -1 once e->fn
 * says stop.
 */
static int
each_record(struct buf *b, const struct git_each *e, int eof)
{
	const char	*nul;
	size_t		 off = 0, len;
	int		 r = 0;

	while (off < b->len && r == 0) {
		nul = memchr(b->data + off, '\0', b->len - off);
		if (nul == NULL && !eof)
			break;
		/* b->data is NUL-terminated past its length: a last record
		 * without its NUL is a string all the same. */
		len = nul != NULL ? (size_t)(nul - (b->data + off)) :
		    b->len - off;
		r = e->fn(b->data + off, len, e->arg);
		off += len + 1;
	}
	if (off >= b->len)
		buf_reset(b);
	else if (off > 0) {
		memmove(b->data, b->data + off, b->len - off);
		buf_truncate(b, b->len - off);
	}
	return r == 0 ? 0 : -1;
}

/* Move the streams on; with e, hand out's records to it as they come.
 * spawn_io()'s 0 or -1; 1 if e said stop. */
static int
run_io(struct spawn_stream *st, size_t n, size_t k, struct buf *out,
    const struct git_each *e, const struct spawn_idle *idle)
{
	int	r;

	if (e == NULL)
		return spawn_io(st, n, idle);
	st[k].stop_on_data = 1;
	while ((r = spawn_io(st, n, idle)) == 1)
		if (each_record(out, e, 0) == -1)
			return 1;
	if (r == 0 && each_record(out, e, 1) == -1)
		return 1;
	return r;
}

/* Start git on args in g, its output a pipe; -1 (said why, errno
 * spawn_start()'s) if not. */
static int
start_git(struct spawn *sp, const struct git *g, const char *const *args,
    int flags, int in)
{
	struct strv	argv = STRV_INIT, env = STRV_INIT;
	int		ret, saved = 0;

	git_argv(&argv, args);
	if (flags & GIT_USER_ENV) {
		strv_push(&env, "LC_ALL=C");
		strv_push(&env, NO_REPLACE);
	} else
		git_env(g, &env);
	sp->argv = argv.v;
	sp->env = env.v;
	sp->dir = g != NULL ? g->dir : NULL;
	sp->in = in ? SPAWN_PIPE : SPAWN_NULL;
	sp->out = SPAWN_PIPE;
	/* GIT_TERMINAL: git's progress is for the user to see. */
	sp->err = flags & GIT_TERMINAL ? SPAWN_INHERIT : SPAWN_PIPE;
	sp->flags = SPAWN_TIED;
	if ((ret = spawn_start(sp)) == -1) {
		saved = errno;
		if (errno == ENOENT && sp->dir == NULL)
			warnx("git not found on PATH");
		else
			warn("cannot run git %s", args[0]);
	}
	/* The spawn keeps no pointer into them once the child runs. */
	strv_free(&argv);
	strv_free(&env);
	sp->argv = NULL;
	sp->env = NULL;
	if (ret == -1)
		errno = saved;
	return ret;
}

static int
run_once(const struct git *g, const char *const *args, int flags,
    const struct buf *in, struct buf *out, struct buf *err,
    const struct git_each *e)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_stream	 st[3];
	struct spawn_exit	 ex;
	struct spawn_limit	 lim;
	struct buf		 junk = BUF_INIT, inb = BUF_INIT;
	size_t			 n = 0, k;
	int			 ret = -1, ioerr;

	if (start_git(&sp, g, args, flags, in != NULL) == -1)
		goto out;
	if (in != NULL) {
		buf_add(&inb, in->data, in->len);
		spawn_stream_init(&st[n++], sp.in, 1, &inb, -1);
	}
	k = n;
	spawn_stream_init(&st[n++], sp.out, 0, out != NULL ? out : &junk,
	    out != NULL ? -1 : -2);
	if (!(flags & GIT_TERMINAL))
		spawn_stream_init(&st[n++], sp.err, 0, err, -1);
	ioerr = run_io(st, n, k, out, e, g != NULL ? g->idle : NULL);
	if (ioerr == -1 && errno != EINTR)
		warn("cannot read what git %s writes", args[0]);
	while (n-- > 0)
		if (st[n].fd != -1)
			close(st[n].fd);
	memset(&lim, 0, sizeof(lim));
	lim.idle = g != NULL ? g->idle : NULL;
	if (spawn_wait(&sp, &lim, &ex) == -1) {
		warn("waiting for git");
		goto out;
	}
	if (ioerr == -1 || ex.interrupted)
		goto out;
	/* Stopped by e: git's end is of no interest, nor its status. */
	ret = ioerr == 1 ? -1 : ex.status;
out:
	buf_free(&junk);
	buf_free(&inb);
	return ret;
}

static void
sleep_ms(long ms)
{
	struct timespec	ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	(void)nanosleep(&ts, NULL);
}

/*
 * A wait of up to ms more, so that runs waiting on the same lock part:
 * from the clock, never arc4random(), which exits when it cannot map its
 * state.
 */
static long
jitter(long ms)
{
	struct timespec	ts;

	if (ms <= 0 || clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return 0;
	return (long)(((unsigned long)ts.tv_nsec ^ (unsigned long)getpid()) %
	    (unsigned long)ms);
}

int
git_run(const struct git *g, const char *const *args, int flags,
    const struct buf *in, struct buf *out, struct buf *err)
{
	struct buf	 myerr = BUF_INIT, *e;
	size_t		 outlen = out != NULL ? out->len : 0;
	long		 delay = 10, waited = 0;
	int		 st;

	e = err != NULL ? err : &myerr;
	for (;;) {
		size_t	errlen = e->len;

		st = run_once(g, args, flags, in, out, e, NULL);
		if (st <= 0 || !(flags & GIT_RETRY) || waited > 15000 ||
		    sig_pending() || !git_lock_busy(e->data + errlen))
			break;
		/* Someone else's git holds a lock: wait and try again. */
		if (out != NULL)
			buf_truncate(out, outlen);
		buf_truncate(e, errlen);
		sleep_ms(delay + jitter(delay));
		waited += delay;
		if (delay < 500)
			delay *= 2;
	}
	buf_free(&myerr);
	return st;
}

void
git_run_all(struct git_call *c, size_t n)
{
	struct spawn		*sp;
	struct spawn_stream	*st;
	struct spawn_exit	 ex;
	struct spawn_limit	 lim;
	struct buf		*junk;
	size_t			 i, ns = 0;
	int			 ioerr, nogit = 0;

	sp = xreallocarray(NULL, n, sizeof(*sp));
	st = xreallocarray(NULL, 2 * n, sizeof(*st));
	junk = xcalloc(2 * n, sizeof(*junk));
	for (i = 0; i < n; i++) {
		c[i].status = -1;
		sp[i] = (struct spawn)SPAWN_INIT;
		/* git itself could not be run: said once, not tried again. */
		if (nogit || start_git(&sp[i], c[i].g, c[i].args,
		    c[i].flags & GIT_USER_ENV, 0) == -1) {
			nogit |= errno == ENOENT || errno == EACCES ||
			    errno == ENOEXEC;
			sp[i].pid = -1;
			continue;
		}
		spawn_stream_init(&st[ns++], sp[i].out, 0, c[i].out != NULL ?
		    c[i].out : &junk[2 * i], c[i].out != NULL ? -1 : -2);
		spawn_stream_init(&st[ns++], sp[i].err, 0, c[i].err != NULL ?
		    c[i].err : &junk[2 * i + 1], c[i].err != NULL ? -1 : -2);
	}
	if ((ioerr = spawn_io(st, ns, NULL)) == -1 && errno != EINTR)
		warn("cannot read what git writes");
	for (i = 0; i < ns; i++)
		if (st[i].fd != -1)
			close(st[i].fd);
	memset(&lim, 0, sizeof(lim));
	for (i = 0; i < n; i++) {
		if (sp[i].pid == -1)
			continue;
		if (spawn_wait(&sp[i], &lim, &ex) == -1)
			warn("waiting for git");
		else if (ioerr != -1 && !ex.interrupted)
			c[i].status = ex.status;
	}
	for (i = 0; i < 2 * n; i++)
		buf_free(&junk[i]);
	free(junk);
	free(st);
	free(sp);
}

int
git_each(const struct git *g, const char *const *args,
    const struct git_each *e, struct buf *err)
{
	struct buf	out = BUF_INIT, myerr = BUF_INIT;
	int		st;

	st = run_once(g, args, 0, NULL, &out, err != NULL ? err : &myerr, e);
	buf_free(&out);
	buf_free(&myerr);
	return st;
}

int
git_each_fd(int fd, const struct git_each *e)
{
	struct buf	b = BUF_INIT;
	ssize_t		r;
	int		ret = 0;

	do {
		if ((r = buf_read(&b, fd, 65536)) == -1) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		if (each_record(&b, e, r == 0) == -1) {
			ret = -1;
			break;
		}
	} while (r != 0);
	buf_free(&b);
	return ret;
}

int
git_start(struct git_job *j, const struct git *g, const char *const *args,
    const char *in, const char *out, const char *err)
{
	struct strv	argv = STRV_INIT, env = STRV_INIT;
	int		fds[3], i, ret = -1;

	memset(j, 0, sizeof(*j));
	j->sp.pid = -1;
	j->idle = g != NULL ? g->idle : NULL;
	fds[0] = in != NULL ? open(in, O_RDONLY | O_CLOEXEC) : SPAWN_NULL;
	fds[1] = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fds[2] = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	for (i = 0; i < 3; i++)
		if (fds[i] == -1) {
			warn("cannot open %s", fs_vis(i == 0 ? in : i == 1 ?
			    out : err));
			goto out;
		}
	git_argv(&argv, args);
	git_env(g, &env);
	j->sp.argv = argv.v;
	j->sp.env = env.v;
	j->sp.dir = g != NULL ? g->dir : NULL;
	j->sp.in = fds[0];
	j->sp.out = fds[1];
	j->sp.err = fds[2];
	j->sp.flags = SPAWN_TIED;
	if (spawn_start(&j->sp) == -1) {
		warn("cannot run git %s", args[0]);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < 3; i++)
		if (fds[i] > 0)
			close(fds[i]);
	strv_free(&argv);
	strv_free(&env);
	/* The spawn keeps no pointer into argv once the child runs. */
	j->sp.argv = NULL;
	j->sp.env = NULL;
	if (ret == -1)
		j->done = 1, j->status = -1;
	return ret;
}

int
git_done(struct git_job *j)
{
	struct rusage	ru;
	int		ws;

	if (j->done)
		return 1;
	if (wait4(j->sp.pid, &ws, WNOHANG, &ru) != j->sp.pid)
		return 0;
	spawn_reaped(&j->sp);
	j->status = spawn_status(ws);
	j->maxrss_kb = ru.ru_maxrss;
	j->done = 1;
	return 1;
}

int
git_finish(struct git_job *j)
{
	struct spawn_limit	lim;
	struct spawn_exit	ex;

	if (j->done)
		return j->status;
	j->done = 1;
	memset(&lim, 0, sizeof(lim));
	lim.idle = j->idle;
	if (spawn_wait(&j->sp, &lim, &ex) == -1 || ex.interrupted)
		return j->status = -1;
	j->maxrss_kb = ex.maxrss_kb;
	return j->status = ex.status;
}

const char *
git_why(struct buf *err, int status)
{
	const char	*p, *best = NULL, *nl;
	size_t		 off, len;

	p = buf_str(err);
	/* The first fatal: or error: line says most; else the last line. */
	for (; *p != '\0'; p = *nl ? nl + 1 : nl) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p);
		if (nl == p)
			continue;
		if (strncmp(p, "fatal: ", 7) == 0 ||
		    strncmp(p, "error: ", 7) == 0) {
			best = p + 7;
			break;
		}
		best = p;
	}
	if (best == NULL) {
		buf_reset(err);
		if (status > 0)
			buf_addf(err, "exit status %d", status);
		else
			buf_adds(err, "no message");
		return err->data;
	}
	off = (size_t)(best - err->data);
	len = strcspn(best, "\n");
	memmove(err->data, err->data + off, len);
	buf_truncate(err, len);
	return buf_str(err);
}

int
git_init(void)
{
	return git_init_with(NULL, 0);
}

int
git_init_with(struct git_call *with, size_t n)
{
	const char *const	 ver[] = { "version", NULL };
	const char *const	 lv[] = { "rev-parse", "--local-env-vars", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	struct buf		 lout = BUF_INIT, lerr = BUF_INIT;
	struct git_call		*c;
	char			*line, *p;
	size_t			 i;
	int			 st, ret = -1;

	for (i = 0; i < n; i++)
		with[i].status = -1;
	/* Again (a test's second repository): what the last one found
	 * goes first. */
	free(git_bin);
	free(version);
	version = NULL;
	strv_free(&local_vars);
	if ((git_bin = spawn_which("git", getenv("PATH"))) == NULL) {
		warnx("git not found on PATH");
		return -1;
	}
	/* None needs another: git's start is most of what they cost. */
	c = xreallocarray(NULL, n + 2, sizeof(*c));
	c[0] = (struct git_call){ NULL, ver, 0, &out, &err, 0 };
	c[1] = (struct git_call){ NULL, lv, 0, &lout, &lerr, 0 };
	for (i = 0; i < n; i++)
		c[i + 2] = with[i];
	git_run_all(c, n + 2);
	for (i = 0; i < n; i++)
		with[i].status = c[i + 2].status;
	if ((st = c[0].status) != 0) {
		if (st > 0)
			warnx("git version failed: %s", git_why(&err, st));
		goto out;
	}
	buf_rtrim(&out);
	version = xstrdup(out.data);
	if (git_parse_version(out.data, &git_major, &git_minor) == -1) {
		warnx("cannot parse the output of git version: %s", out.data);
		goto out;
	}
	if (!git_version_at_least(GIT_MIN_MAJOR, GIT_MIN_MINOR)) {
		warnx("%s is too old: forge needs git %d.%d or later",
		    out.data, GIT_MIN_MAJOR, GIT_MIN_MINOR);
		goto out;
	}
	if ((st = c[1].status) != 0) {
		if (st > 0)
			warnx("git rev-parse --local-env-vars failed: %s",
			    git_why(&lerr, st));
		goto out;
	}
	for (p = lout.data; (line = strsep(&p, "\n")) != NULL;)
		if (*line != '\0')
			strv_push(&local_vars, line);
	ret = 0;
out:
	free(c);
	buf_free(&out);
	buf_free(&err);
	buf_free(&lout);
	buf_free(&lerr);
	return ret;
}
