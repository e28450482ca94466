/* A repository's copy added at HEAD: a locked git worktree, or a clone. */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clone.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "progress.h"
#include "registration.h"
#include "repo.h"
#include "rundir.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "source.h"
#include "strv.h"
#include "xmalloc.h"

/* What `gitdir: <path>` in a worktree's .git file says; NULL, errno
 * set if it could not be read (0 if it says no such thing). */
static char *
read_gitfile(const char *wt)
{
	struct buf	 b = BUF_INIT;
	char		*path, *r = NULL;
	int		 saved = 0;

	path = xasprintf("%s/.git", wt);
	if (fs_read_file(path, &b, 1 << 16) == 0) {
		buf_rtrim(&b);
		if (strncmp(b.data, "gitdir: ", 8) == 0)
			r = xstrdup(b.data + 8);
	} else
		saved = errno;
	free(path);
	buf_free(&b);
	errno = saved;
	if (r != NULL && r[0] != '/') {
		char	*abs = xasprintf("%s/%s", wt, r);

		free(r);
		r = abs;
	}
	return r;
}

/* The bytes free on dir's file system for an unprivileged writer; -1
 * if it does not say. */
static long long
free_bytes(const char *dir, struct statvfs *vfs)
{
	if (statvfs(dir, vfs) == -1 || vfs->f_blocks == 0 ||
	    vfs->f_frsize == 0)
		return -1;
	return (long long)((unsigned long long)vfs->f_bavail * vfs->f_frsize);
}

/*
 * git says only "unable to write file" when the disk is full: compare
 * what the checkout needs, in whole blocks, with what the file system
 * had before it (before, else -1: git worktree add cleans up after
 * itself, so the space is free again by the time we look, but for the
 * copy's .git file, which it made first).  What else filled it may
 * still be there: the patch made while git checks out.
 */
static int
no_space(struct snap_repo *sr, const char *dir, long long before,
    struct buf *why)
{
	struct statvfs		vfs;
	struct git		g;
	unsigned long long	need, files, avail;
	long long		now;

	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	if ((now = free_bytes(dir, &vfs)) == -1 ||
	    lsfiles_tree_size(&g, sr->head, vfs.f_frsize, &need, &files) == -1)
		return 0;
	if (before == -1)
		need += vfs.f_frsize;
	avail = (unsigned long long)(before != -1 ? before : now);
	if (need > avail) {
		buf_addf(why, "No space left on device: %s has %llu KiB free, "
		    "the checkout of HEAD needs about %llu KiB", fs_vis(dir),
		    avail / 1024, (need + 1023) / 1024);
		return 1;
	}
	if (vfs.f_files > 0 && files > vfs.f_favail) {
		buf_addf(why, "No space left on device: %s has %llu inodes "
		    "free, HEAD holds %llu files", fs_vis(dir),
		    (unsigned long long)vfs.f_favail, files);
		return 1;
	}
	return 0;
}

/* Write the lock reason git before 2.33 could not take. */
static int
lock_reason(const struct snap_repo *sr, const char *reason)
{
	char	*path, *text;
	int	 ret;

	path = xasprintf("%s/locked", sr->dst_gitdir);
	text = xasprintf("%s\n", reason);
	if ((ret = fs_write_atomic(path, text, strlen(text), 0644)) == -1)
		warn("cannot write %s", fs_vis(path));
	free(path);
	free(text);
	return ret;
}

/*
 * On a terminal, the checkout is the git reset --hard that worktree add
 * would run, with the terminal for its standard error: git shows its
 * own "Updating files" progress there, after forge's delay.  A copy of
 * the staged tree has that tree checked out, every file of it, into the
 * empty copy: never HEAD's files patched where the blobs differ, which
 * would keep HEAD's bytes where a staged attributes file changes how a
 * file is checked out.
 */
static int
checkout_shown(struct snapshot *s, struct snap_repo *sr)
{
	const char *const	 reset[] = { "reset", "--hard",
	    "--no-recurse-submodules", NULL };
	const char		*staged[7], *const *a = reset;
	struct git		 g;
	struct statvfs		 vfs;
	struct buf		 why = BUF_INIT;
	long long		 before;
	size_t			 n = 0;
	int			 st, set;

	if (s->source != NULL && s->source->kind == SOURCE_STAGED &&
	    sr == s->repos[0]) {
		staged[n++] = "read-tree";
		staged[n++] = "--reset";
		staged[n++] = "-u";
		staged[n++] = "--no-recurse-submodules";
		if (progress_wanted())
			staged[n++] = "-v";
		staged[n++] = s->source->tree;
		staged[n] = NULL;
		a = staged;
	}
	snapshot_repo_dst_git(sr, &g);
	g.idle = &s->idle;
	/* What git reset wrote stays when it fails. */
	before = free_bytes(s->rd->top, &vfs);
	/* The user's own setting stands. */
	if ((set = getenv("GIT_PROGRESS_DELAY") == NULL))
		(void)setenv("GIT_PROGRESS_DELAY", progress_git_delay(), 1);
	st = git_run(&g, a, GIT_TERMINAL, NULL, NULL, NULL);
	if (set)
		(void)unsetenv("GIT_PROGRESS_DELAY");
	if (st > 0 && before != -1 && no_space(sr, s->rd->top, before, &why))
		warnx("cannot check out %s into the copy: %s", a == reset ?
		    "HEAD" : "the staged tree", why.data);
	else if (st > 0)
		warnx("cannot check out %s into the copy: git %s: exit status "
		    "%d", a == reset ? "HEAD" : "the staged tree", a == reset ?
		    "reset --hard" : "read-tree", st);
	buf_free(&why);
	return st == 0 ? 0 : -1;
}

/*
 * A copy of a tree is the whole tree, never sparse, whatever git worktree
 * add copied of the working tree's sparse checkout into the copy's own
 * git dir: its patterns (git 2.36 and later) and, with worktree
 * configuration, its settings.  Without patterns, git checks out every
 * file even where core.sparseCheckout is true (set for every worktree).
 */
static int
tree_whole(struct snap_repo *sr)
{
	static const char *const	 off[][2] = {
		{ "core.sparseCheckout", "false" },
		{ "core.sparseCheckoutCone", "false" },
		{ "index.sparse", "false" }
	};
	struct git			 g;
	struct buf			 err = BUF_INIT;
	struct stat			 st;
	char				*p, *cfg;
	size_t				 i;
	int				 r = 0;

	p = xasprintf("%s/info/sparse-checkout", sr->dst_gitdir);
	if (unlink(p) == -1 && errno != ENOENT) {
		warn("cannot remove %s", fs_vis(p));
		r = -1;
	}
	free(p);
	cfg = xasprintf("%s/config.worktree", sr->dst_gitdir);
	snapshot_repo_dst_git(sr, &g);
	for (i = 0; r == 0 && lstat(cfg, &st) == 0 &&
	    i < sizeof(off) / sizeof(off[0]); i++) {
		const char *const	a[] = { "config", "--file", cfg,
		    off[i][0], off[i][1], NULL };
		int			st;

		if ((st = git_run(&g, a, 0, NULL, NULL, &err)) != 0) {
			if (st > 0)
				warnx("cannot make the copy whole: git config "
				    "%s: %s", off[i][0], git_why(&err, st));
			r = -1;
		}
	}
	free(cfg);
	buf_free(&err);
	return r;
}

int
snapshot_add_worktree(struct snapshot *s, struct snap_repo *sr)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	struct buf	 err = BUF_INIT, why = BUF_INIT;
	char		*reason;
	int		 st, shown = progress_wanted(), tree;

	/* A tree's copy is checked out once it is made whole. */
	tree = s->source != NULL && s->source->kind != SOURCE_WORKTREE;
	if (rundir_note_repo(s->rd, sr->common) == -1)
		return -1;
	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	strv_push(&a, "worktree");
	strv_push(&a, "add");
	strv_push(&a, "--detach");
	strv_push(&a, "--quiet");
	if (shown || tree)
		strv_push(&a, "--no-checkout");	/* checkout_shown() */
	strv_push(&a, "--lock");
	reason = xasprintf("forge run %s pid %ld: an ephemeral copy, removed "
	    "when forge exits (forge gc removes it if forge died)",
	    s->rd->run, (long)getpid());
	if (git_has(GIT_WORKTREE_REASON)) {
		strv_push(&a, "--reason");
		strv_push(&a, reason);
	}
	strv_push(&a, "--");
	strv_push(&a, sr->dst);
	strv_push(&a, sr->head);
	g.idle = &s->idle;
	st = git_run(&g, (const char *const *)a.v, GIT_RETRY, NULL, NULL,
	    &err);
	strv_free(&a);
	if (st != 0) {
		/* A full disk git only calls "unable to write file" (a
		 * file it cannot make has a reason). */
		if (st > 0 && err.data != NULL &&
		    strstr(err.data, "unable to write file") != NULL &&
		    no_space(sr, s->rd->top, -1, &why))
			warnx("cannot check out HEAD into the copy: %s",
			    why.data);
		else if (st > 0)
			warnx("cannot check out HEAD into the copy: git "
			    "worktree add: %s", git_why(&err, st));
		buf_free(&err);
		buf_free(&why);
		free(reason);
		return -1;
	}
	buf_free(&err);
	if ((sr->dst_gitdir = read_gitfile(sr->dst)) == NULL) {
		if (errno != 0 && errno != ENOENT)
			warn("cannot read %s/.git", fs_vis(sr->dst));
		else
			warnx("git worktree add left no .git file in %s",
			    fs_vis(sr->dst));
		free(reason);
		return -1;
	}
	/* An older git locks without a reason: the reason names the run,
	 * for reclaim and gc to know the registration for forge's. */
	if (!git_has(GIT_WORKTREE_REASON) && lock_reason(sr, reason) == -1) {
		free(reason);
		return -1;
	}
	free(reason);
	/* git in the copy works on the copy, whatever core.worktree the
	 * repository shares (registration.h). */
	if (registration_own_worktree(sr->dst_gitdir, sr->dst, sr->common) ==
	    -1)
		return -1;
	if (tree && tree_whole(sr) == -1)
		return -1;
	return shown || tree ? checkout_shown(s, sr) : 0;
}

/* The copy as a private clone (clone.h): no registration to note. */
int
snapshot_add_clone(struct snapshot *s, struct snap_repo *sr)
{
	struct clone_src	 cs;
	char			*start;

	memset(&cs, 0, sizeof(cs));
	cs.gitdir = sr->gitdir;
	cs.common = sr->common;
	cs.objects = sr->objects;
	cs.head = sr->head;
	cs.sparse = sr->sparse;
	if (clone_add(&cs, sr->dst, &s->idle, &sr->dst_gitdir, &start) == -1)
		return -1;
	if (sr == s->repos[0]) {
		s->start_refs = start;
		s->gitdir = xstrdup(sr->dst_gitdir);
	} else
		free(start);
	return 0;
}
