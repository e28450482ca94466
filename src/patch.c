/* git diff HEAD | git apply, between a working tree and its copy. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs_vis.h"
#include "git.h"
#include "patch.h"
#include "sig.h"
#include "spawn.h"

/* The peak memory of the gits of every replay so far. */
static long	peak_kb;

static const char *const diff_args[] = {
	"-c", "diff.suppressBlankEmpty=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv",
	"--full-index", "--no-renames", "-U3",
	"--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=all",
	"-O/dev/null", NULL
};

static const char *const apply_args[] = {
	"-c", "apply.whitespace=nowarn",
	"-c", "apply.ignoreWhitespace=no",
	"-c", "core.whitespace=",
	"apply", "--whitespace=nowarn", "-p1", "-", NULL
};

static void
prepare(struct spawn *sp, struct strv *argv, struct strv *env,
    const struct git *g, const char *const *args)
{
	git_argv(argv, args);
	git_env(g, env);
	sp->argv = argv->v;
	sp->env = env->v;
	sp->dir = g->dir;
	sp->out = SPAWN_PIPE;
	sp->err = SPAWN_PIPE;
	sp->flags = SPAWN_TIED;
}

/*
 * One diff | apply.  0: applied (or nothing to apply); 1: git apply
 * refused, its words in aerr; -1: anything else, said.
 */
static int
replay(const struct git *src, const struct git *dst, const char *head,
    const char *filter, const struct strv *except, struct buf *aerr)
{
	struct spawn		 dsp = SPAWN_INIT, asp = SPAWN_INIT;
	struct spawn_stream	 st[5];
	struct spawn_exit	 dex, aex;
	struct spawn_limit	 lim;
	struct strv		 dargv = STRV_INIT, denv = STRV_INIT;
	struct strv		 aargv = STRV_INIT, aenv = STRV_INIT;
	struct buf		 rd = BUF_INIT, pipe_buf = BUF_INIT;
	struct buf		 derr = BUF_INIT, junk = BUF_INIT;
	size_t			 i, n;
	int			 r, ret = -1, started = 0;

	prepare(&dsp, &dargv, &denv, src, diff_args);
	/* Paths from the top, whatever diff.relative says (2.28 on). */
	if (git_has(GIT_NO_RELATIVE))
		strv_push(&dargv, "--no-relative");
	if (filter != NULL)
		strv_pushf(&dargv, "--diff-filter=%s", filter);
	strv_push(&dargv, head);
	strv_push(&dargv, "--");
	for (i = 0; except != NULL && i < except->n; i++)
		strv_pushf(&dargv, ":(exclude,literal)%s", except->v[i]);
	dsp.argv = dargv.v;
	dsp.in = SPAWN_NULL;
	if (spawn_start(&dsp) == -1) {
		warn("cannot run git diff");
		goto out;
	}

	spawn_stream_init(&st[0], dsp.out, 0, &rd, -1);
	st[0].stop_on_data = 1;
	spawn_stream_init(&st[1], dsp.err, 0, &derr, -1);
	n = 2;
	if ((r = spawn_io(st, n, src->idle)) == -1 && errno != EINTR)
		warn("cannot read what git diff writes");
	if (r == 1) {
		/* There is a patch: only now is git apply worth running. */
		prepare(&asp, &aargv, &aenv, dst, apply_args);
		asp.in = SPAWN_PIPE;
		if (spawn_start(&asp) == -1) {
			warn("cannot run git apply");
		} else {
			started = 1;
			buf_add(&pipe_buf, rd.data, rd.len);
			buf_reset(&rd);
			st[0].stop_on_data = 0;
			st[0].relay_to = 2;
			spawn_stream_init(&st[2], asp.in, 1, &pipe_buf, -1);
			spawn_stream_init(&st[3], asp.out, 0, &junk, -2);
			spawn_stream_init(&st[4], asp.err, 0, aerr, -1);
			n = 5;
			if ((r = spawn_io(st, n, src->idle)) == -1 &&
			    errno != EINTR)
				warn("cannot pass git diff on to git apply");
		}
	}
	for (i = 0; i < n; i++)
		if (st[i].fd != -1)
			close(st[i].fd);
	memset(&lim, 0, sizeof(lim));
	lim.idle = src->idle;
	if (spawn_wait(&dsp, &lim, &dex) == -1 ||
	    (started && spawn_wait(&asp, &lim, &aex) == -1)) {
		warn("waiting for git");
		goto out;
	}
	if (dex.maxrss_kb > peak_kb)
		peak_kb = dex.maxrss_kb;
	if (started && aex.maxrss_kb > peak_kb)
		peak_kb = aex.maxrss_kb;
	if (r == -1 || sig_pending() || (!started && r == 1))
		goto out;
	if (dex.status != 0) {
		buf_rtrim(&derr);
		warnx("cannot read the uncommitted changes: git diff: %s",
		    derr.len > 0 ? derr.data : "failed");
		goto out;
	}
	ret = started && aex.status != 0 ? 1 : 0;
out:
	strv_free(&dargv);
	strv_free(&denv);
	strv_free(&aargv);
	strv_free(&aenv);
	buf_free(&rd);
	buf_free(&pipe_buf);
	buf_free(&derr);
	buf_free(&junk);
	return ret;
}

/* Did git apply fail for want of space?  Its words for it, or NULL. */
static const char *
full(const struct buf *err)
{
	static const char *const	 words[] = { "No space left on device",
	    "Disk quota exceeded", "File too large", NULL };
	size_t				 i;

	for (i = 0; err->data != NULL && words[i] != NULL; i++)
		if (strstr(err->data, words[i]) != NULL)
			return words[i];
	return NULL;
}

long
patch_peak_kb(void)
{
	return peak_kb;
}

void
patch_note_peak(long kb)
{
	if (kb > peak_kb)
		peak_kb = kb;
}

int
patch_replay(const struct git *src, const struct git *dst, const char *head)
{
	return patch_replay_except(src, dst, head, NULL);
}

/* After a first try that ended r, its refusal in first: the rest. */
static int
retry(const struct git *src, const struct git *dst, const char *head,
    const struct strv *except, int r, struct buf *first)
{
	struct buf	again = BUF_INIT;

	if (r == 1) {
		/* Deletions first, then the rest: git apply checks paths
		 * against the tree as it is before the patch, where a
		 * symlink may still stand in a new directory's way. */
		r = replay(src, dst, head, "D", except, &again);
		if (r == 0)
			r = replay(src, dst, head, "d", except, &again);
	}
	if (r == 1) {
		buf_rtrim(first);
		buf_rtrim(&again);
		if (full(first) || full(&again)) {
			/* Not a patch git refused: a disk too small. */
			warnx("cannot write the uncommitted changes into the "
			    "copy: %s (in %s): stopping before running "
			    "anything", full(first) != NULL ? full(first) :
			    full(&again), dst->worktree != NULL ?
			    fs_vis(dst->worktree) : "the copy");
		} else {
			if (first->len > 0)
				fprintf(stderr, "%s\n", first->data);
			warnx("the uncommitted changes did not apply to the "
			    "copy (git apply refused them): stopping before "
			    "running anything");
		}
	}
	buf_free(&again);
	return r == 0 ? 0 : -1;
}

int
patch_replay_except(const struct git *src, const struct git *dst,
    const char *head, const struct strv *except)
{
	struct buf	first = BUF_INIT;
	int		r;

	r = replay(src, dst, head, NULL, except, &first);
	r = retry(src, dst, head, except, r, &first);
	buf_free(&first);
	return r;
}

int
patch_start(struct git_job *j, const struct git *src, const char *head,
    const struct strv *except, const char *out, const char *err)
{
	struct strv	a = STRV_INIT;
	size_t		i;
	int		ret;

	for (i = 0; diff_args[i] != NULL; i++)
		strv_push(&a, diff_args[i]);
	if (git_has(GIT_NO_RELATIVE))
		strv_push(&a, "--no-relative");
	strv_push(&a, head);
	strv_push(&a, "--");
	for (i = 0; except != NULL && i < except->n; i++)
		strv_pushf(&a, ":(exclude,literal)%s", except->v[i]);
	ret = git_start(j, src, (const char *const *)a.v, NULL, out, err);
	strv_free(&a);
	return ret;
}

/* git apply < path: as replay() says. */
static int
apply_file(const struct git *dst, const char *path,
    const struct spawn_idle *idle, struct buf *aerr)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_stream	 st[2];
	struct spawn_exit	 ex;
	struct spawn_limit	 lim;
	struct strv		 argv = STRV_INIT, env = STRV_INIT;
	struct buf		 junk = BUF_INIT;
	int			 fd, r, ret = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(path));
		return -1;
	}
	prepare(&sp, &argv, &env, dst, apply_args);
	sp.in = fd;
	if (spawn_start(&sp) == -1) {
		warn("cannot run git apply");
		goto out;
	}
	spawn_stream_init(&st[0], sp.out, 0, &junk, -2);
	spawn_stream_init(&st[1], sp.err, 0, aerr, -1);
	if ((r = spawn_io(st, 2, idle)) == -1 && errno != EINTR)
		warn("cannot read what git apply writes");
	if (st[0].fd != -1)
		close(st[0].fd);
	if (st[1].fd != -1)
		close(st[1].fd);
	memset(&lim, 0, sizeof(lim));
	lim.idle = idle;
	if (spawn_wait(&sp, &lim, &ex) == -1) {
		warn("waiting for git");
		goto out;
	}
	if (ex.maxrss_kb > peak_kb)
		peak_kb = ex.maxrss_kb;
	if (r == -1 || sig_pending())
		goto out;
	ret = ex.status != 0 ? 1 : 0;
out:
	close(fd);
	strv_free(&argv);
	strv_free(&env);
	buf_free(&junk);
	return ret;
}

int
patch_replay_file(const struct git *src, const struct git *dst,
    const char *head, const struct strv *except, const char *path)
{
	struct buf	first = BUF_INIT;
	struct stat	st;
	int		r;

	if (path == NULL)
		return patch_replay_except(src, dst, head, except);
	if (stat(path, &st) == 0 && st.st_size == 0)
		return 0;	/* nothing to apply */
	r = apply_file(dst, path, src->idle, &first);
	r = retry(src, dst, head, except, r, &first);
	buf_free(&first);
	return r;
}
