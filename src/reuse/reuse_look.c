/* A reused copy looked at from its last proof's index; paths put right. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_vis.h"
#include "git.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "pathcopy.h"
#include "reuse.h"
#include "reuse_int.h"
#include "sig.h"
#include "xmalloc.h"

/*
 * What an index expects in the directories of dirs (sorted): for each
 * entry below one, the name it has there, as a path -- "dir/name" for
 * the entry's own, "dir/name/" for a directory on the way to it -- so
 * that reuse_modes_prune_dir() finds in it what it would in all the
 * entries' paths.
 */
struct expect {
	const struct strv	*dirs;
	struct strv		*out;
	struct buf		 b;
};

static int
expect_one(const struct gitindex_entry *e, void *arg)
{
	struct expect	*x = arg;
	const char	*p = e->path, *next;
	size_t		 at = 0;

	/* Each directory above the entry, the top ("") first; next, the
	 * end of the entry's name in it. */
	for (;;) {
		next = strchr(p + at + (at > 0), '/');
		buf_reset(&x->b);
		buf_add(&x->b, p, at);
		if (strv_sorted_has(x->dirs, buf_str(&x->b))) {
			buf_reset(&x->b);
			buf_add(&x->b, p, next != NULL ?
			    (size_t)(next - p) + 1 : strlen(p));
			strv_push(x->out, buf_str(&x->b));
		}
		if (next == NULL)
			return 0;
		at = (size_t)(next - p);
	}
}

/* The directories of changed rid of what the index open at fd does not
 * expect in them. */
static int
prune_changed(int root, int fd, size_t rawsz, struct strv *changed)
{
	struct strv	 had = STRV_INIT;
	struct expect	 x;
	size_t		 i, n;
	int		 ret = 0;

	/* And those above each: one that came along with a directory
	 * renamed above it keeps its times, and so can every file below
	 * it, if a directory of those moved in whole from elsewhere --
	 * into a directory that is then one of these. */
	n = changed->n;
	for (i = 0; i < n; i++)
		strv_push_dirs(changed, NULL, changed->v[i]);
	strv_sort_uniq(changed);
	x.dirs = changed;
	x.out = &had;
	x.b = (struct buf)BUF_INIT;
	strv_pool(&had);
	if (gitindex_each_fd(fd, rawsz, expect_one, &x, NULL) == -1)
		ret = -1;
	buf_free(&x.b);
	strv_sort_uniq(&had);
	for (i = 0; ret == 0 && i < changed->n; i++)
		if (reuse_modes_prune_dir(root, changed->v[i], &had) == -1)
			ret = -1;
	strv_free(&had);
	return ret;
}

/*
 * Each entry of the index open at fd (its ids rawsz bytes), against the
 * copy's file: each directory on the way given a checkout's mode
 * (dir_modes()), and if prune, rid of what the index does not expect
 * (reuse_modes_prune_dir(), from had, its paths); the path into stale
 * if git is to look at its file again (gitindex_stale()), into links if
 * it is a symlink.
 * No file's mode is changed: a file whose stat data is as git kept it
 * has not been touched since, and had the mode forge gave it then; the
 * others are for reuse_look_end().  A file linked from elsewhere too
 * (a command's hard link) is removed, and stale: nothing is done to it
 * through the copy.
 */
static int
had_look(const char *copy, int fd, size_t rawsz, const struct timespec *since,
    int by_times, int prune, struct strv *stale, struct strv *links,
    struct strv *odd, int *dirs)
{
	struct strv			 changed = STRV_INIT;
	struct reuse_care		 care = { 0, by_times ? since : NULL,
					    &changed };
	struct buf			 last = BUF_INIT;
	const struct gitindex_entry	*e;
	struct gitindex_iter		*it;
	struct reuse_walk		 w;
	struct stat			 st;
	const char			*path, *base;
	mode_t				 mask;
	int				 root, dfd, ret = 0, r, more;

	mask = fs_umask();
	if ((it = gitindex_iter_fd(fd, rawsz)) == NULL)
		return -1;
	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		gitindex_iter_free(it);
		return -1;
	}
	reuse_modes_walk_init(&w, root, 0777 & ~mask,
	    prune ? &care : &reuse_care_drop, dirs);
	if (prune && (fstat(root, &st) == -1 ||
	    !reuse_modes_unchanged_since(&st, care.since)))
		strv_push(&changed, "");
	while (ret == 0 && (more = gitindex_iter_next(it, &e)) != 0) {
		if (more == -1) {
			ret = -1;
			break;
		}
		path = e->path;
		if (reuse_modes_walk_to(&w, path, &base, &dfd) == -1)
			ret = -1;
		/* A submodule not initialized: its directory is emptied
		 * once the look is over (snapshot.h), and git keeps its
		 * entry as it looks there; a commit of another shows as
		 * the two sides differ.  The directories on the way to it
		 * are seen to all the same: one may hold nothing else. */
		if (e->mode == 0160000)
			continue;
		/* Gone, or not to be looked at without following a link on
		 * the way: for git to look at (and find it gone). */
		r = dfd != -1 && fstatat(dfd, base, &st,
		    AT_SYMLINK_NOFOLLOW) == 0;
		/* A file linked from elsewhere too: no fresh copy has one,
		 * and nothing may be done to it through the copy. */
		if (r && S_ISREG(st.st_mode) && st.st_nlink > 1) {
			if (unlinkat(dfd, base, 0) == -1 && errno != ENOENT)
				ret = -1;
			r = 0;
		}
		if (gitindex_stale(e, r ? &st : NULL, since)) {
			strv_push(stale, path);
			/* Each directory above it: one with a stale
			 * file below it may not be the one the index
			 * saw there, times and all -- one that came
			 * with a directory renamed above it keeps its
			 * own times (rename(2) stamps only what it
			 * moves), and each file the index expects below
			 * it is then another, or gone, or was moved
			 * there itself: stale.  What the directory
			 * holds is seen to. */
			if (prune)
				strv_push_dirs(&changed, &last, path);
		} else if (r && S_ISREG(st.st_mode) && (st.st_mode & 07777) !=
		    (((st.st_mode & S_IXUSR) ? 0777 : 0666) & ~mask))
			strv_push(odd, path);
		if (r && S_ISLNK(st.st_mode))
			strv_push(links, path);
	}
	reuse_modes_walk_end(&w);
	gitindex_iter_free(it);
	/* Then what the index does not expect goes from the directories
	 * that changed since, and those above a stale file (a file in the
	 * way of an expected one was noted stale all the same), from what
	 * the index expects of each alone: not every path it has, held at
	 * once. */
	if (ret == 0 && changed.n > 0)
		ret = prune_changed(root, fd, rawsz, &changed);
	strv_free(&changed);
	buf_free(&last);
	close(root);
	return ret;
}

/*
 * The walk over the copy (had_look()), in the look's own thread; then
 * what reuse_look_then() gave it to do, once the caller says whether
 * there is anything (only where its walk did not fail).  Run on the
 * caller's thread (no thread could be made), the walk alone.
 */
static void *
walk_run(void *arg)
{
	struct reuse_look	*lk = arg;
	struct reuse_prefix_job	*job;
	struct strv		 none = STRV_INIT;
	char			 c;

	lk->walked = had_look(lk->copy, lk->fd, lk->rawsz, &lk->since,
	    lk->by_times, lk->pruned, &lk->stale, &lk->links, &lk->odd,
	    &lk->dirs);
	if (pthread_equal(pthread_self(), lk->owner))
		return NULL;
	/* A byte once reuse_look_then() has set then, or the end of the
	 * pipe once the caller waits: nothing a lost wake-up can hold. */
	while (read(lk->go[0], &c, 1) == -1 && errno == EINTR)
		;
	job = lk->then;
	if (job != NULL && lk->walked == 0)
		reuse_look_prefix(job->src, job->copy, &none, &job->paths,
		    NULL, &job->done);
	return NULL;
}

int
reuse_look_begin(struct reuse_look *lk, const struct reuse_copy *rc,
    const char *index, const struct timespec *since, int by_times)
{
	struct gitindex_iter	*it;
	struct timespec	 now;
	const char	*copy = rc->copy, *head = rc->head;
	int		 keep_ignored = rc->keep_ignored;
	mode_t		 mask;
	size_t		 rawsz = strlen(head) / 2;
	int		 fd;

	memset(lk, 0, sizeof(*lk));
	lk->fd = -1;
	lk->go[0] = lk->go[1] = -1;
	/* A clock set back since then could stamp a change before it: no
	 * change time is believed. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (now.tv_sec < since->tv_sec)
		return 0;
	/* git's stat data of the copy as the last proof left it, read as
	 * it goes by, never held whole (and again for what the
	 * directories that changed since are to hold); a submodule in it
	 * is an empty directory (a nested repository's copy is set aside
	 * while the copy is parked: snapshot.h).  One git wrote, whose
	 * start forge reads. */
	if (since->tv_sec <= 0 || (fd = open(index, O_RDONLY | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return 0;
	if ((it = gitindex_iter_fd(fd, rawsz)) == NULL) {
		close(fd);
		return 0;
	}
	gitindex_iter_free(it);
	lk->fd = fd;
	lk->rawsz = rawsz;
	lk->since = *since;
	lk->by_times = by_times;
	lk->copy = xstrdup(copy);
	lk->head = xstrdup(head);
	lk->index = xstrdup(index);
	lk->keep_ignored = keep_ignored;
	/* Read before the walk's thread is: reading it sets it. */
	mask = fs_umask();
	if (reuse_sync_begin(rc, &lk->g, &lk->adm) == -1 ||
	    reuse_modes_fix(AT_FDCWD, copy, copy, 1, 0777 & ~mask) == -1) {
		reuse_look_free(lk);
		return -1;
	}
	lk->g.index = lk->index;
	/* HEAD detached at head meanwhile (reuse_sync_clean_detach()):
	 * nothing of it is read by the look. */
	lk->dout = xasprintf("%s/detach.out", rc->scratch);
	lk->derr = xasprintf("%s/detach.err", rc->scratch);
	if (reuse_sync_detach_start(&lk->detach, &lk->g, head, lk->dout,
	    lk->derr) == -1) {
		reuse_look_free(lk);
		return -1;
	}
	lk->detaching = 1;
	/*
	 * What that index does not have goes as forge looks at each
	 * directory, where the copy keeps no ignored files of its own;
	 * else git clean, which knows what is ignored, walks the copy
	 * meanwhile (reuse_sync_prepare()).
	 */
	lk->pruned = !keep_ignored;
	if (keep_ignored) {
		reuse_modes_drop_special_top(copy);
		lk->out = xasprintf("%s/clean.out", rc->scratch);
		lk->err = xasprintf("%s/clean.err", rc->scratch);
		lk->cleaning = git_start(&lk->clean, &lk->g, reuse_clean_keep,
		    NULL, lk->out, lk->err) == 0;
	}
	/* Beside what forge does next: listing the working tree, and
	 * starting the proof of its side. */
	lk->owner = pthread_self();
	if (pipe2(lk->go, O_CLOEXEC) == 0) {
		lk->walking = 1;
		if (sig_thread(&lk->thread, walk_run, lk))
			return 1;
		lk->walking = 0;
		close(lk->go[0]);
		close(lk->go[1]);
	} else
		(void)walk_run(lk);
	lk->go[0] = lk->go[1] = -1;
	/* Walked already, here. */
	if (lk->walked == -1) {
		reuse_look_free(lk);
		return -1;
	}
	return 1;
}

int
reuse_look_wait(struct reuse_look *lk)
{
	if (lk->walking) {
		close(lk->go[1]);
		(void)pthread_join(lk->thread, NULL);
		lk->walking = 0;
		close(lk->go[0]);
		lk->go[0] = lk->go[1] = -1;
	}
	if (lk->fd != -1)
		close(lk->fd);
	lk->fd = -1;
	return lk->walked;
}

void
reuse_look_then(struct reuse_look *lk, struct reuse_prefix_job *job,
    const char *src, const char *copy, const struct strv *paths)
{
	if (!lk->walking) {
		reuse_look_prefix_start(job, src, copy, paths);
		return;
	}
	memset(job, 0, sizeof(*job));
	job->src = xstrdup(src);
	job->copy = xstrdup(copy);
	strv_pushv(&job->paths, paths->v);
	lk->then = job;
	/* Not written: it is told as the caller waits (reuse_look_wait()). */
	(void)fs_write_all(lk->go[1], "p", 1);
}

/* The detach waited for: 0 if it did, -1 (said why) if not, or if it
 * was waited for already. */
static int
look_detached(struct reuse_look *lk)
{
	int	r = -1;

	if (lk->detaching) {
		r = reuse_sync_detach_finish(&lk->detach, lk->adm, lk->head,
		    lk->derr);
		lk->detaching = 0;
		(void)unlink(lk->dout);
		(void)unlink(lk->derr);
	}
	return r;
}

/* The clean, if it runs still, waited for: its status. */
static int
look_cleaned(struct reuse_look *lk)
{
	int	st = -1;

	if (lk->cleaning) {
		st = git_finish(&lk->clean);
		lk->cleaning = 0;
		(void)unlink(lk->out);
		(void)unlink(lk->err);
	}
	return st;
}

int
reuse_look_end(struct reuse_look *lk, const struct entlist *entries,
    struct strv *recent, struct strv *links, char **dst_gitdir)
{
	struct fs_pair	 pw;
	const char	*base, *path;
	ssize_t		 e;
	unsigned	 mode;
	mode_t		 mask, want;
	size_t		 i;
	int		 st, r, ret = -1;

	*dst_gitdir = NULL;
	if (reuse_look_wait(lk) == -1) {
		reuse_look_free(lk);
		return -1;
	}
	mask = fs_umask();
	/* The copy alone; its paths in index order, a directory's
	 * together. */
	r = fs_pair_open(&pw, NULL, lk->copy);
	/*
	 * Each changed file the working tree tracks: a checkout's mode.  So
	 * too one unchanged whose mode is not a checkout's, which the
	 * working tree tracks since (an untracked file of mode 600 that
	 * was committed as it was).
	 */
	for (i = 0; i < lk->stale.n + lk->odd.n && r == 0; i++) {
		path = i < lk->stale.n ? lk->stale.v[i] :
		    lk->odd.v[i - lk->stale.n];
		if ((e = entlist_find(entries, path)) == -1)
			continue;
		mode = entlist_mode(entries, (size_t)e);
		if (mode == 0100755)
			want = 0777 & ~mask;
		else if (mode == 0100644)
			want = 0666 & ~mask;
		else
			continue;
		(void)fs_pair_to(&pw, path, &base, NULL, NULL);
		if (pw.dfd != -1)
			r = reuse_modes_fix(pw.dfd, base, path, 0, want);
	}
	fs_pair_close(&pw);
	st = look_cleaned(lk);
	if (r == -1 || reuse_sync_clean(&lk->g, lk->keep_ignored,
	    lk->pruned || (st == 0 && lk->dirs == 0)) == -1)
		goto out;
	/* Half brought up to date: neither the last run's nor HEAD's. */
	sig_test_stall("sync");
	if (look_detached(lk) == -1)
		goto out;
	for (i = 0; i < lk->stale.n; i++)
		strv_push(recent, lk->stale.v[i]);
	for (i = 0; i < lk->links.n; i++)
		strv_push(links, lk->links.v[i]);
	*dst_gitdir = lk->adm;
	lk->adm = NULL;
	ret = 0;
out:
	reuse_look_free(lk);
	return ret;
}

void
reuse_look_free(struct reuse_look *lk)
{
	(void)reuse_look_wait(lk);
	(void)look_cleaned(lk);
	if (lk->detaching) {
		(void)git_finish(&lk->detach);
		(void)unlink(lk->dout);
		(void)unlink(lk->derr);
	}
	free(lk->dout);
	free(lk->derr);
	free(lk->copy);
	free(lk->head);
	free(lk->index);
	free(lk->adm);
	free(lk->out);
	free(lk->err);
	strv_free(&lk->stale);
	strv_free(&lk->links);
	strv_free(&lk->odd);
	memset(lk, 0, sizeof(*lk));
	lk->fd = -1;
	lk->go[0] = lk->go[1] = -1;
}

/* Remove the directories path was in, from the deepest, while empty
 * (rmdir: never one that holds anything, nor a mount point), and while
 * on the copy's mount: not in a file system mounted there since. */
static void
prune_dirs(int root, const char *path)
{
	struct fs_where	 top, here;
	const char	*base;
	char		*dir, *slash;
	int		 fd, r;

	if (fs_mount_where(root, &top) == -1)
		return;
	dir = xstrdup(path);
	while ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		if ((fd = reuse_modes_parent_of(root, dir, &base)) == -1)
			break;
		r = fs_mount_where(fd, &here) == -1 || !fs_mount_same(&top, &here) ?
		    -1 : unlinkat(fd, base, AT_REMOVEDIR);
		close(fd);
		if (r == -1)
			break;
	}
	free(dir);
}

int
reuse_look_fix(const char *src, const char *copy, const struct strv *fix)
{
	struct pathcopy		 pc;
	struct lsfiles_change	 c;
	struct stat		 st;
	size_t			 i;
	int			 r, ret = 0;

	/* A submodule's directory is not forge's to touch here. */
	for (i = 0; i < fix->n; i++)
		if (lsfiles_change_parse(fix->v[i], &c) == -1 ||
		    c.old_mode == 0160000 || c.new_mode == 0160000)
			return -1;
	if (pathcopy_open(&pc, src, copy) == -1) {
		warn("cannot open %s", fs_vis(src));
		return -1;
	}
	/* What the working state has not, first: it may be in the way. */
	for (i = 0; i < fix->n && ret == 0; i++) {
		if (lsfiles_change_parse(fix->v[i], &c) == -1 ||
		    c.new_mode != 0)
			continue;
		if (pathcopy_clear(&pc, c.path) == -1)
			ret = -1;
		else
			prune_dirs(pc.droot, c.path);
	}
	/* Each new file a new inode: git, which keeps times to the second,
	 * could take one with the old inode, size and second for the old. */
	for (i = 0; i < fix->n && ret == 0; i++) {
		if (lsfiles_change_parse(fix->v[i], &c) == -1 ||
		    c.new_mode == 0)
			continue;
		if ((r = pathcopy_replace(&pc, c.path, &st)) != 0)
			ret = -1;	/* gone, or not a file: the full way */
	}
	pathcopy_close(&pc);
	return ret;
}

void
reuse_look_prefix(const char *src, const char *copy, const struct strv *gone,
    const struct strv *paths, const struct strv *skip, struct strv *done)
{
	struct pathcopy	 pc;
	struct stat	 st, dst;
	const char	*path;
	size_t		 i;
	int		 clear, have, r;

	if (pathcopy_open(&pc, src, copy) == -1)
		return;
	/* What is gone first: it may be in the way. */
	for (i = 0; i < gone->n + paths->n && !sig_pending(); i++) {
		path = i < gone->n ? gone->v[i] : paths->v[i - gone->n];
		if (i >= gone->n && skip != NULL && strv_sorted_has(skip, path))
			continue;
		/* A directory on either side: for the full comparison. */
		if ((have = fstatat(pc.droot, path, &dst,
		    AT_SYMLINK_NOFOLLOW) == 0) && S_ISDIR(dst.st_mode))
			continue;
		clear = i < gone->n;
		if (!clear) {
			/* The same already (an empty file is always looked
			 * at): left alone. */
			if (have && S_ISREG(dst.st_mode) && dst.st_size == 0 &&
			    fstatat(pc.sroot, path, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    st.st_size == 0 && (st.st_mode & S_IXUSR) ==
			    (dst.st_mode & S_IXUSR))
				continue;
			if ((r = pathcopy_replace(&pc, path, &st)) == 0) {
				strv_push(done, path);
				continue;
			}
			/* Not in the working tree: not in the copy. */
			clear = r == 1 || errno == ENOENT || errno == ENOTDIR;
		}
		if (clear && have) {
			strv_push(done, path);
			(void)pathcopy_clear(&pc, path);
		}
		/* No directory made for it, or emptied, is left: a fresh
		 * copy has none. */
		pathcopy_forget(&pc);
		prune_dirs(pc.droot, path);
	}
	pathcopy_close(&pc);
}

static void *
prefix_run(void *arg)
{
	struct reuse_prefix_job	*job = arg;
	struct strv		 none = STRV_INIT;

	reuse_look_prefix(job->src, job->copy, &none, &job->paths, NULL,
	    &job->done);
	return NULL;
}

void
reuse_look_prefix_start(struct reuse_prefix_job *job, const char *src,
    const char *copy, const struct strv *paths)
{
	memset(job, 0, sizeof(*job));
	job->src = xstrdup(src);
	job->copy = xstrdup(copy);
	strv_pushv(&job->paths, paths->v);
	(void)fs_umask();
	job->running = sig_thread(&job->thread, prefix_run, job);
}

void
reuse_look_prefix_wait(struct reuse_prefix_job *job)
{
	if (job->running)
		(void)pthread_join(job->thread, NULL);
	job->running = 0;
}

void
reuse_look_prefix_free(struct reuse_prefix_job *job)
{
	reuse_look_prefix_wait(job);
	free(job->src);
	free(job->copy);
	strv_free(&job->paths);
	strv_free(&job->done);
	memset(job, 0, sizeof(*job));
}

/* Where an incremental copy's last working state is noted: the top
 * repository's (name NULL), or a nested one's. */
static char *
noted_file(const char *carry, const char *name)
{
	if (name == NULL)
		return xasprintf("%s/state.paths", carry);
	return xasprintf("%s/state-%s.paths", carry, name);
}

/* Ends the list: no path of a working state's. */
#define STATE_END	"//"

/* A path git could have in a working state: relative, no empty, ".",
 * ".." or ".git" component. */
static int
noted_path_ok(const char *p)
{
	const char	*c, *e;
	size_t		 n;

	if (*p == '\0' || *p == '/')
		return 0;
	for (c = p; ; c = e + 1) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.') ||
		    (n == 4 && strncmp(c, ".git", 4) == 0))
			return 0;
		if (e == NULL)
			return 1;
	}
}

int
reuse_look_state_read(const char *carry, const char *name, struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	size_t		 i;
	int		 ret = -1;

	path = noted_file(carry, name);
	if (fs_read_file(path, &b, (size_t)1 << 30) == 0) {
		strv_split_z(paths, b.data != NULL ? b.data : "", b.len);
		/* Whole, as written, and nothing but paths. */
		if (paths->n > 0 && strcmp(paths->v[paths->n - 1],
		    STATE_END) == 0) {
			strv_pop(paths);
			for (ret = 0, i = 0; i < paths->n && ret == 0; i++)
				if (!noted_path_ok(paths->v[i]))
					ret = -1;
		}
	}
	if (ret == -1)
		strv_clear(paths);
	strv_sort_uniq(paths);
	free(path);
	buf_free(&b);
	return ret;
}

void
reuse_look_state_forget(const char *carry, const char *name)
{
	char	*path;

	path = noted_file(carry, name);
	(void)unlink(path);
	free(path);
}

int
reuse_look_state_write(const char *carry, const char *name,
    const struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	size_t		 i;
	int		 ret = -1;

	for (i = 0; i < paths->n; i++)
		buf_add(&b, paths->v[i], strlen(paths->v[i]) + 1);
	buf_add(&b, STATE_END, sizeof(STATE_END));
	path = noted_file(carry, name);
	/* Not synced: what a crash leaves reads as no list at all (its
	 * end is missing), never a short one. */
	if ((mkdir(carry, 0700) == 0 || errno == EEXIST) &&
	    fs_write_replace(path, b.data, b.len, 0600) == 0)
		ret = 0;
	free(path);
	/* No list is read as none known: never an old one. */
	if (ret == -1)
		reuse_look_state_forget(carry, name);
	buf_free(&b);
	return ret;
}
