/* Trees removed without leaving their mount, and the mounts below a path. */
#include "config.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "sig.h"
#include "strv.h"
#include "xmalloc.h"

/*
 * Open the directory that path (an O_PATH fd, whose mount was checked)
 * stands for, to empty it: made readable and writable by its owner if it
 * was not.  Through the fd, never the name, so that nothing swapped in
 * meanwhile (a symlink) is what gets its mode changed.
 */
static int
open_for_removal(int path)
{
	struct stat	st;
	char		proc[64];
	int		fd;

	if (fstat(path, &st) == -1)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path);
	if ((st.st_mode & 0700) != 0700 && chmod(proc, (st.st_mode & 07777) |
	    0700) == -1)
		return -1;
	fd = openat(path, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/*
 * The removal of one tree.  Directories are walked one fd at a time,
 * climbing back with "..", so a tree of any depth costs neither
 * descriptors nor stack.  Whatever cannot go (a mount point, a file that
 * will not unlink) is left in place, named in left, and skipped, and the
 * rest of the tree still goes.
 */
struct level {
	dev_t		 dev;
	ino_t		 ino;
	char		*name;
	struct strv	 skip;		/* entries here that stay */
	char		*retry_name;	/* the subdirectory that refilled */
	int		 retries;	/* how often, in a row */
	int		 all_retries;	/* all of them together */
};

/*
 * A large tree goes on two CPUs: a second thread takes subtrees off the
 * walk, half the directories the walk finds beside the one it goes into,
 * lent while the thread is idle once the walk has unlinked LEND_AFTER
 * files (a small tree is not worth a thread).  The directory that holds
 * them goes only once they are done (lend_take()).
 */
struct lend {
	pthread_t	 thread;
	pthread_mutex_t	 mu;
	int		 running;	/* a thread to join */
	int		 done;		/* under mu */
	int		 stop;		/* under mu: the tree moved */
	int		 fd;		/* the directory they are in */
	struct strv	 names;		/* the subtrees, below fd; sorted */
	struct strv	 stay;		/* those not all gone */
	char		*prefix;	/* fd's path, for messages */
	size_t		 depth;		/* of the walk's level they are in */
	struct strv	 left;
	int		 err;
};

#define LEND_AFTER	512

static pthread_mutex_t	lent_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t		lent_count;

struct rm {
	const char	*prefix;	/* for messages: the parent's path */
	struct level	*stack;
	size_t		 depth;
	size_t		 cap;
	struct fs_where	 home;		/* the mount it all must be on */
	struct strv	*left;
	const char	*last;		/* an entry of the root to remove
					   last, only if all else went */
	int		 err;		/* the first error */
	int		 may_lend;	/* not itself a lent subtree */
	size_t		 unlinked;
	struct lend	*job;		/* lent, not yet taken back */
};

/* A directory that keeps refilling (a process writing into it) is
 * emptied this many times before it is left. */
#define RM_RETRIES	8

/*
 * For messages: the path of name in the walk's directory, or of that
 * directory itself (name NULL) -- prefix/name/...
 */
static char *
walk_path(const struct rm *rm, const char *name)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (rm->prefix != NULL && *rm->prefix != '\0')
		buf_addf(&b, "%s/", strcmp(rm->prefix, "/") == 0 ? "" :
		    rm->prefix);
	/* stack[0] stands for the parent directory itself. */
	for (i = 1; i < rm->depth; i++)
		buf_addf(&b, "%s/", rm->stack[i].name);
	if (name != NULL)
		buf_adds(&b, name);
	else if (b.len > 1)
		buf_truncate(&b, b.len - 1);
	return buf_detach(&b);
}

static void
left_behind(struct rm *rm, const char *name, int err, const char *why)
{
	char	*path, *vis;

	if (rm->err == 0)
		rm->err = err;
	strv_push(&rm->stack[rm->depth - 1].skip, name);
	if (rm->left == NULL)
		return;
	path = walk_path(rm, name);
	/* Either thread of a removal may be here (struct lend). */
	vis = fs_vis_dup(path);
	if (why != NULL)
		strv_pushf(rm->left, "%s %s", why, vis != NULL ? vis :
		    "(unprintable name)");
	else
		strv_pushf(rm->left, "cannot remove %s: %s", vis != NULL ? vis :
		    "(unprintable name)", strerror(err));
	free(vis);
	free(path);
}

static int	rmtree(int, const char *, const char *, const char *,
		    struct strv *, int);

static void *
lend_run(void *arg)
{
	struct lend	*l = arg;
	struct stat	 st;
	size_t		 i;
	int		 stop, e;

	for (i = 0; i < l->names.n; i++) {
		pthread_mutex_lock(&l->mu);
		stop = l->stop;
		pthread_mutex_unlock(&l->mu);
		/* A tree moved, here or in the walk: nothing more is
		 * begun, as the walk begins nothing more. */
		if (stop || l->err == ESTALE) {
			strv_push(&l->stay, l->names.v[i]);
			continue;
		}
		if (rmtree(l->fd, l->names.v[i], l->prefix, NULL, &l->left,
		    0) == -1) {
			e = errno;
			if (l->err == 0 || e == ESTALE)
				l->err = e;
			/* Gone all the same (a failure the walk got past):
			 * its directory may go too. */
			if (fstatat(l->fd, l->names.v[i], &st,
			    AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
				strv_push(&l->stay, l->names.v[i]);
		}
	}
	close(l->fd);
	pthread_mutex_lock(&l->mu);
	l->done = 1;
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* Take the lent subtrees back, waiting for them if wait, else only if
 * they are done: what they left is the walk's to report, and the names
 * of those not all gone stay in their directory's skip list. */
static void
lend_take(struct rm *rm, int wait)
{
	struct lend	*l = rm->job;
	size_t		 i;
	int		 done;

	if (l == NULL)
		return;
	pthread_mutex_lock(&l->mu);
	done = l->done;
	pthread_mutex_unlock(&l->mu);
	if (!done && !wait)
		return;
	if (l->running)
		(void)pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->mu);
	for (i = 0; rm->left != NULL && i < l->left.n; i++)
		strv_push(rm->left, l->left.v[i]);
	if (l->err != 0 && (rm->err == 0 || l->err == ESTALE))
		rm->err = l->err;
	for (i = 0; l->depth <= rm->depth && i < l->stay.n; i++)
		strv_push(&rm->stack[l->depth - 1].skip, l->stay.v[i]);
	strv_free(&l->left);
	strv_free(&l->names);
	strv_free(&l->stay);
	free(l->prefix);
	free(l);
	rm->job = NULL;
}

/* The thread is to begin no further subtree: the tree moved. */
static void
lend_stop(struct rm *rm)
{
	if (rm->job == NULL)
		return;
	pthread_mutex_lock(&rm->job->mu);
	rm->job->stop = 1;
	pthread_mutex_unlock(&rm->job->mu);
}

/* May the walk lend subtrees now? */
static int
may_lend(const struct rm *rm)
{
	return rm->may_lend && rm->unlinked >= LEND_AFTER && rm->job == NULL;
}

/* Lend the second half of spare, subdirectories of fd (the walk's
 * directory), to the second thread; spare is emptied. */
static void
lend(struct rm *rm, int fd, struct strv *spare)
{
	struct lend	*l;
	size_t		 i;
	int		 dfd;

	if (spare->n == 0 || !may_lend(rm) ||
	    (dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1) {
		strv_clear(spare);
		return;
	}
	l = xcalloc(1, sizeof(*l));
	pthread_mutex_init(&l->mu, NULL);
	l->fd = dfd;
	for (i = spare->n / 2; i < spare->n; i++)
		strv_push(&l->names, spare->v[i]);
	strv_sort(&l->names);
	strv_clear(spare);
	l->prefix = walk_path(rm, NULL);
	l->depth = rm->depth;
	rm->job = l;
	pthread_mutex_lock(&lent_mu);
	lent_count += l->names.n;
	pthread_mutex_unlock(&lent_mu);
	l->running = sig_thread(&l->thread, lend_run, l);
}

size_t
fs_remove_lent(void)
{
	size_t	n;

	pthread_mutex_lock(&lent_mu);
	n = lent_count;
	pthread_mutex_unlock(&lent_mu);
	return n;
}

/* Is name the subtree lent from the walk's directory? */
static int
is_lent(const struct rm *rm, const char *name)
{
	return rm->job != NULL && rm->job->depth == rm->depth &&
	    strv_sorted_has(&rm->job->names, name);
}

static int
skipped(const struct level *lv, const char *name)
{
	size_t	i;

	for (i = 0; i < lv->skip.n; i++)
		if (strcmp(lv->skip.v[i], name) == 0)
			return 1;
	return 0;
}

/*
 * Unlink every non-directory in fd.  Returns the name of one
 * subdirectory still to do (the caller frees), or NULL when none is left;
 * the others into spare when they may be lent.
 */
static char *
empty_files(struct rm *rm, int fd, struct strv *spare)
{
	struct level	*lv = &rm->stack[rm->depth - 1];
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*sub = NULL;
	int		 dup_fd, isdir;

	if ((dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    (d = fdopendir(dup_fd)) == NULL) {
		if (rm->err == 0)
			rm->err = errno;
		if (dup_fd != -1)
			close(dup_fd);
		return NULL;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 || skipped(lv, de->d_name) ||
		    is_lent(rm, de->d_name))
			continue;
		isdir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN &&
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			isdir = S_ISDIR(st.st_mode);
		if (isdir) {
			if (sub == NULL)
				sub = xstrdup(de->d_name);
			else if (may_lend(rm))
				strv_push(spare, de->d_name);
			continue;
		}
		if (unlinkat(fd, de->d_name, 0) == 0)
			rm->unlinked++;
		else if (errno != ENOENT) {
			/* A file bind-mounted here says EBUSY: its own
			 * file is elsewhere, and stays. */
			if (errno == EBUSY)
				left_behind(rm, de->d_name, errno,
				    "a file system is mounted at");
			else if (errno == EISDIR && sub == NULL)
				sub = xstrdup(de->d_name);
			else if (errno != EISDIR)
				left_behind(rm, de->d_name, errno, NULL);
		}
	}
	closedir(d);
	return sub;
}

/* Open sub of fd to empty it next, if it is on the same mount. */
static int
descend(struct rm *rm, int fd, char *sub)
{
	struct fs_where	 w;
	int		 pfd, nfd = -1;

	pfd = openat(fd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd == -1) {
		/* Gone by itself, or no longer a directory: the next look
		 * at its parent sees what it is now. */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			left_behind(rm, sub, errno, NULL);
		free(sub);
		return -1;
	}
	if (fs_mount_where(pfd, &w) == -1) {
		left_behind(rm, sub, errno, NULL);
		goto out;
	}
	/* Never into another file system, nor into a bind mount of part
	 * of this one: what is there is not the copy's, and neither its
	 * contents nor its mode are touched. */
	if (!fs_mount_same(&w, &rm->home) || w.mount_root) {
		left_behind(rm, sub, EBUSY, "a file system is mounted at");
		goto out;
	}
	if ((nfd = open_for_removal(pfd)) == -1) {
		left_behind(rm, sub, errno, NULL);
		goto out;
	}
	if (rm->depth == rm->cap)
		rm->stack = xreallocarray(rm->stack, rm->cap *= 2,
		    sizeof(*rm->stack));
	memset(&rm->stack[rm->depth], 0, sizeof(*rm->stack));
	rm->stack[rm->depth].dev = w.dev;
	rm->stack[rm->depth].ino = w.ino;
	rm->stack[rm->depth].name = sub;
	rm->depth++;
	close(pfd);
	return nfd;
out:
	close(pfd);
	free(sub);
	return -1;
}

/* Leave the directory on top of the stack for its parent; -1 if the
 * tree was moved under us. */
static int
climb(struct rm *rm, int *fd)
{
	struct level	*lv = &rm->stack[rm->depth - 1], *up;
	struct stat	 st;
	int		 pfd;

	/* What was lent from here is done first. */
	if (rm->job != NULL && rm->job->depth == rm->depth)
		lend_take(rm, 1);
	up = &rm->stack[rm->depth - 2];
	pfd = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1 || fstat(pfd, &st) == -1 || st.st_dev != up->dev ||
	    st.st_ino != up->ino) {
		/* Someone moved the tree under us: stop here. */
		rm->err = pfd == -1 ? errno : ESTALE;
		if (pfd != -1)
			close(pfd);
		return -1;
	}
	close(*fd);
	*fd = pfd;
	rm->depth--;
	if (lv->skip.n > 0) {
		/* What stays inside was named already. */
		strv_push(&up->skip, lv->name);
	} else if (unlinkat(pfd, lv->name, AT_REMOVEDIR) == -1 &&
	    errno != ENOENT) {
		/* Refilled since we emptied it: again, a few times for
		 * each, and not forever for all of them together. */
		if (up->retry_name == NULL ||
		    strcmp(up->retry_name, lv->name) != 0) {
			free(up->retry_name);
			up->retry_name = xstrdup(lv->name);
			up->retries = 0;
		}
		if ((errno != ENOTEMPTY && errno != EEXIST) ||
		    ++up->retries > RM_RETRIES ||
		    ++up->all_retries > RM_RETRIES * 64)
			left_behind(rm, lv->name, errno, errno == EBUSY ?
			    "a file system is mounted at" : NULL);
	}
	free(lv->name);
	free(lv->retry_name);
	strv_free(&lv->skip);
	return 0;
}

/* The root's entry rm->last, once all else in it went. */
static void
remove_last(struct rm *rm, int fd, const char *name)
{
	struct level	*lv = &rm->stack[1];
	const char	*inner;
	char		*prefix, *first;

	if (rm->last == NULL || rm->err != 0 || lv->skip.n != 1)
		return;
	/* "a/b": a goes last, and in it b. */
	inner = strchr(rm->last, '/');
	first = inner != NULL ? xstrndup(rm->last, (size_t)(inner -
	    rm->last)) : xstrdup(rm->last);
	if (strcmp(lv->skip.v[0], first) != 0) {
		free(first);
		return;
	}
	prefix = rm->prefix == NULL || *rm->prefix == '\0' ? xstrdup(name) :
	    xasprintf("%s/%s", strcmp(rm->prefix, "/") == 0 ? "" : rm->prefix,
	    name);
	if (rmtree(fd, first, prefix, inner != NULL ? inner + 1 : NULL,
	    rm->left, rm->may_lend) == 0)
		strv_clear(&lv->skip);
	else
		rm->err = errno;
	free(prefix);
	free(first);
}

int
fs_remove_report(int pfd, const char *name, const char *prefix,
    struct strv *left)
{
	return rmtree(pfd, name, prefix, NULL, left, 1);
}

static int
rmtree(int pfd, const char *name, const char *prefix, const char *last,
    struct strv *left, int may_lend)
{
	struct rm	 rm;
	struct stat	 st;
	struct strv	 spare = STRV_INIT;
	char		*sub;
	int		 fd, nfd, tries = 0;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	memset(&rm, 0, sizeof(rm));
	rm.prefix = prefix;
	rm.left = left;
	rm.last = last;
	rm.may_lend = may_lend;
	rm.stack = xreallocarray(NULL, rm.cap = 16, sizeof(*rm.stack));
	memset(&rm.stack[0], 0, sizeof(*rm.stack));
	rm.stack[0].name = xstrdup(".");
	rm.depth = 1;
	if (fs_mount_where(pfd, &rm.home) == -1) {
		rm.err = errno;
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(pfd, name, 0) == -1 && errno != ENOENT)
			left_behind(&rm, name, errno, errno == EBUSY ?
			    "a file system is mounted at" : NULL);
		goto out;
	}
again:
	if ((fd = descend(&rm, pfd, xstrdup(name))) == -1)
		goto out;
	if (last != NULL)
		strv_pushn(&rm.stack[1].skip, last, strcspn(last, "/"));
	for (;;) {
		lend_take(&rm, 0);
		/* A lent subtree was moved under the thread: stop here. */
		if (rm.err == ESTALE)
			break;
		if ((sub = empty_files(&rm, fd, &spare)) != NULL) {
			lend(&rm, fd, &spare);
			if ((nfd = descend(&rm, fd, sub)) != -1) {
				close(fd);
				fd = nfd;
			}
			continue;
		}
		if (rm.depth == 2)
			break;
		if (climb(&rm, &fd) == -1)
			break;
	}
	/* The lent subtrees are within this one. */
	if (rm.err == ESTALE)
		lend_stop(&rm);
	lend_take(&rm, 1);
	if (rm.depth == 2)
		remove_last(&rm, fd, name);
	close(fd);
	if (rm.depth == 2 && rm.err != ESTALE) {
		struct level	*lv = &rm.stack[1];

		rm.depth = 1;
		if (lv->skip.n > 0)
			strv_push(&rm.stack[0].skip, lv->name);
		else if (unlinkat(pfd, name, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT) {
			if ((errno == ENOTEMPTY || errno == EEXIST) &&
			    ++tries <= RM_RETRIES) {
				free(lv->name);
				free(lv->retry_name);
				strv_free(&lv->skip);
				goto again;
			}
			left_behind(&rm, name, errno, errno == EBUSY ?
			    "a file system is mounted at" : NULL);
		}
		free(lv->name);
		free(lv->retry_name);
		strv_free(&lv->skip);
	}
out:
	lend_take(&rm, 1);
	strv_free(&spare);
	while (rm.depth > 0) {
		rm.depth--;
		free(rm.stack[rm.depth].name);
		free(rm.stack[rm.depth].retry_name);
		strv_free(&rm.stack[rm.depth].skip);
	}
	free(rm.stack);
	if (rm.err != 0) {
		errno = rm.err;
		return -1;
	}
	return 0;
}

int
fs_remove_at(int pfd, const char *name)
{
	return fs_remove_report(pfd, name, NULL, NULL);
}

int
fs_remove_last_at(int pfd, const char *name, const char *last)
{
	return rmtree(pfd, name, NULL, last, NULL, 1);
}

int
fs_remove(const char *path)
{
	return fs_remove_path(path, NULL, NULL);
}

int
fs_remove_path(const char *path, const char *last, struct strv *left)
{
	struct fs_where	 w;
	char		*dir, *trimmed, *slash;
	size_t		 n;
	int		 fd, ret, saved;

	/* "dir/" names dir. */
	trimmed = xstrdup(path);
	n = strlen(trimmed);
	while (n > 1 && trimmed[n - 1] == '/')
		trimmed[--n] = '\0';
	if ((slash = strrchr(trimmed, '/')) == NULL) {
		ret = rmtree(AT_FDCWD, trimmed, NULL, last, left, 1);
		saved = errno;
		free(trimmed);
		errno = saved;
		return ret;
	}
	dir = xstrndup(trimmed, slash == trimmed ? 1 : (size_t)(slash -
	    trimmed));
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		saved = errno;
		free(dir);
		free(trimmed);
		errno = saved;
		return saved == ENOENT ? 0 : -1;
	}
	if (fs_mount_where(fd, &w) == 0 && !w.have_mnt &&
	    fs_mount_below(trimmed, left) != 0) {
		/* Blind to bind mounts: remove nothing. */
		close(fd);
		free(dir);
		free(trimmed);
		errno = EBUSY;
		return -1;
	}
	ret = rmtree(fd, slash + 1, dir, last, left, 1);
	saved = errno;
	close(fd);
	free(dir);
	free(trimmed);
	errno = saved;
	return ret;
}
