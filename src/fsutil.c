/* File copies, tree removal and atomic writes, all fd-relative. */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vis.h>

#ifdef HAVE_LINUX_FS_H
#include <linux/fs.h>
#endif

#include "fsutil.h"
#include "strv.h"
#include "xmalloc.h"

const char *
fs_basename(const char *p)
{
	const char	*s;

	return (s = strrchr(p, '/')) != NULL ? s + 1 : p;
}

const char *
fs_vis(const char *p)
{
	static char	*ring[4];
	static int	 next;
	char		*out;

	/* Not VIS_SAFE: a bell, backspace or carriage return in a file
	 * name must not get to rewrite what forge prints. */
	if (stravis(&out, p, VIS_OCTAL | VIS_CSTYLE | VIS_TAB | VIS_NL) ==
	    -1)
		return "(unprintable name)";
	free(ring[next]);
	ring[next] = out;
	next = (next + 1) % 4;
	return out;
}

const char *
fs_type_name(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISLNK(m))
		return "symlink";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	return "special file";
}

int
fs_dirent_type(DIR *d, const struct dirent *de)
{
	struct stat	st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type;
	if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
	    S_ISLNK(st.st_mode) ? DT_LNK : S_ISFIFO(st.st_mode) ? DT_FIFO :
	    S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISCHR(st.st_mode) ? DT_CHR :
	    S_ISBLK(st.st_mode) ? DT_BLK : DT_UNKNOWN;
}

static int	walk_dir(int, const char *, int, mode_t, int);

int
fs_open_dir(int dirfd, const char *rel, int create, mode_t mode)
{
	return walk_dir(dirfd, rel, create, mode, O_RDONLY);
}

int
fs_walk_dir(int dirfd, const char *rel, int create, mode_t mode)
{
	return walk_dir(dirfd, rel, create, mode, O_PATH);
}

/* fs_open_dir(), each directory opened with how (O_RDONLY, O_PATH). */
static int
walk_dir(int dirfd, const char *rel, int create, mode_t mode, int how)
{
	char	*copy, *p, *comp;
	int	 fd, next, saved;

	if ((fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) == -1)
		return -1;
	copy = xstrdup(rel);
	for (p = copy; (comp = strsep(&p, "/")) != NULL;) {
		if (*comp == '\0' || strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			close(fd);
			free(copy);
			errno = EINVAL;
			return -1;
		}
		next = openat(fd, comp, how | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (next == -1 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, mode) == -1 && errno != EEXIST)
				goto fail;
			next = openat(fd, comp, how | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		}
		if (next == -1)
			goto fail;
		close(fd);
		fd = next;
	}
	free(copy);
	return fd;
fail:
	saved = errno;
	/* O_NOFOLLOW on a symlink says ELOOP; the truth is "not a dir". */
	if (saved == ELOOP)
		saved = ENOTDIR;
	close(fd);
	free(copy);
	errno = saved;
	return -1;
}

/* Copy len bytes at off in in, to off + shift in out; *got says how
 * many came (fewer if the file shrank meanwhile). */
static int
copy_range(int in, int out, off_t off, off_t len, off_t shift, int *use_cfr,
    off_t *got)
{
	char	 buf[65536];
	ssize_t	 r, w;
	off_t	 done, at;
	loff_t	 ioff, ooff;

	(void)ioff;
	(void)ooff;
	for (done = 0; done < len; done += r) {
#ifdef HAVE_COPY_FILE_RANGE
		if (*use_cfr) {
			ioff = off + done;
			ooff = off + done + shift;
			r = copy_file_range(in, &ioff, out, &ooff,
			    (size_t)(len - done), 0);
			if (r > 0)
				continue;
			if (r == 0) {
				*got = done;	/* the file shrank */
				return 0;
			}
			if (errno == EINTR) {
				r = 0;
				continue;
			}
			/* Not here, or not across these file systems:
			 * read and write, from where it stopped. */
			if (errno != EXDEV && errno != ENOSYS &&
			    errno != EINVAL && errno != EOPNOTSUPP &&
			    errno != EPERM && errno != EBADF)
				return -1;
			*use_cfr = 0;
		}
#endif
		r = pread(in, buf, (size_t)(len - done) < sizeof(buf) ?
		    (size_t)(len - done) : sizeof(buf), off + done);
		if (r == 0) {
			*got = done;
			return 0;
		}
		if (r == -1) {
			if (errno == EINTR) {
				r = 0;
				continue;
			}
			return -1;
		}
		for (at = 0; at < r; at += w) {
			w = pwrite(out, buf + at, (size_t)(r - at), off + shift +
			    done + at);
			if (w == -1) {
				if (errno != EINTR)
					return -1;
				w = 0;
			}
		}
	}
	*got = len;
	return 0;
}

/* A stream (pipe, terminal): read and write until the end. */
/* Files smaller than this are copied by copy_stream() in one read. */
#define COPY_SMALL	65536

/*
 * in to out, by read and write: to its end, or (limit not negative) no
 * further than limit bytes -- as fs_copy_fd() copies a file as long as
 * it was, whatever is appended to it meanwhile.
 */
static int
copy_stream(int in, int out, off_t limit)
{
	char	 buf[COPY_SMALL];
	ssize_t	 r, w, off;
	size_t	 want;
	off_t	 got = 0;

	while (limit < 0 || got < limit) {
		want = limit >= 0 && (size_t)(limit - got) < sizeof(buf) ?
		    (size_t)(limit - got) : sizeof(buf);
		r = read(in, buf, want);
		if (r == 0)
			return 0;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (off = 0; off < r; off += w) {
			w = write(out, buf + off, (size_t)(r - off));
			if (w == -1) {
				if (errno != EINTR)
					return -1;
				w = 0;
			}
		}
		got += r;
	}
	return 0;
}

int
fs_copy_fd(int in, int out)
{
	struct stat	ist, ost;
	off_t		start, shift, off, data, hole, got, size;
	int		use_cfr = 1;

	if (fstat(in, &ist) == -1 || fstat(out, &ost) == -1)
		return -1;
	if (!S_ISREG(ist.st_mode) || !S_ISREG(ost.st_mode) ||
	    (start = lseek(in, 0, SEEK_CUR)) == -1 ||
	    (shift = lseek(out, 0, SEEK_CUR)) == -1)
		return copy_stream(in, out, -1);
	shift -= start;
#ifdef FICLONE
	/* Shared extents, where the file system has them: no data moves. */
	if (start == 0 && shift == 0 && ost.st_size == 0 &&
	    ioctl(out, FICLONE, in) == 0)
		return 0;
#endif
	/* Only the data: holes stay holes, so a sparse file stays sparse. */
	size = ist.st_size;
	for (off = start; off < ist.st_size; off = hole) {
		if ((data = lseek(in, off, SEEK_DATA)) == -1) {
			if (errno == ENXIO)
				break;		/* a hole to the end */
			/* No SEEK_DATA here: take it all as data. */
			data = off;
			hole = ist.st_size;
		} else if ((hole = lseek(in, data, SEEK_HOLE)) == -1 ||
		    hole > ist.st_size)
			hole = ist.st_size;
		if (data >= hole)
			break;
		if (copy_range(in, out, data, hole - data, shift, &use_cfr,
		    &got) == -1)
			return -1;
		if (got < hole - data) {
			/* It shrank: it ends where the data did. */
			size = data + got;
			break;
		}
	}
	/* A hole at the end is only a size. */
	if (size > start && ftruncate(out, size + shift) == -1)
		return -1;
	/* Both offsets where a read and write loop would leave them. */
	if (lseek(in, size > start ? size : start, SEEK_SET) == -1 ||
	    lseek(out, (size > start ? size : start) + shift, SEEK_SET) == -1)
		return -1;
	return 0;
}

mode_t
fs_umask(void)
{
	static mode_t	mask;
	static int	known;

	/* Read once: reading it sets it, for a moment, to something else
	 * that a file made meanwhile in another thread would be made
	 * with. */
	if (!known) {
		mask = umask(0);
		(void)umask(mask);
		known = 1;
	}
	return mask;
}

/* Is a earlier than b? */
static int
earlier(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * The present as dir's file system stamps it: the change time of a file
 * made now.  It may be coarser than the clock (whole seconds, two on
 * FAT), come from another clock (an NFS server's), or be finer and ahead
 * of the coarse clock (Linux's multigrain times: a file whose times were
 * read since its last change gets the precise time when it changes
 * next, and files made after it no earlier).  The file has no name where
 * the file system allows (O_TMPFILE), or loses it at once.  -1 if none
 * can be made.
 */
int
fs_stamp(const char *dir, struct timespec *ts)
{
	struct stat	 st;
	char		*name;
	int		 fd, ok;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
	fd = -1;
#endif
	if (fd == -1) {
		name = xasprintf("%s/.forge-clock.%ld", dir, (long)getpid());
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1)
			(void)unlink(name);
		free(name);
	}
	ok = fd != -1 && fstat(fd, &st) == 0;
	if (fd != -1)
		close(fd);
	if (ok)
		*ts = st.st_ctim;
	return ok ? 0 : -1;
}

/*
 * Into *now, if earlier, the present as dir's file system stamps it
 * (fs_stamp()): a file changed from now on is stamped no earlier.  If
 * that cannot be known, the clock's time rounded down to two seconds.
 */
void
fs_present(const char *dir, struct timespec *now)
{
	struct timespec	ts;

	if (fs_stamp(dir, &ts) == -1) {
		now->tv_sec &= ~(time_t)1;
		now->tv_nsec = 0;
	} else if (earlier(&ts, now))
		*now = ts;
}

int
fs_copy_file(const char *from, const char *to)
{
	struct stat	st;
	struct timespec	times[2];
	int		in, out, ret = -1, saved;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(in, &st) == 0 && (out = open(to, O_WRONLY | O_CREAT |
	    O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) != -1) {
		times[0] = st.st_atim;
		times[1] = st.st_mtim;
		if (fs_copy_fd(in, out) == 0 && futimens(out, times) == 0)
			ret = 0;
		saved = errno;
		if (close(out) == -1 && ret == 0)
			ret = -1;
		else
			errno = saved;
	}
	saved = errno;
	close(in);
	errno = saved;
	return ret;
}

/* Make room for a new entry called name: remove whatever is there. */
static int
clear_entry(int dfd, const char *name)
{
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno == EISDIR || errno == EPERM)
		return fs_rmtree_at(dfd, name);
	return -1;
}

static int
copy_symlink(int sfd, const char *sname, int dfd, const char *dname,
    const struct stat *st)
{
	char	*target;
	size_t	 size;
	ssize_t	 n;
	int	 ret = -1;

	size = st->st_size > 0 ? (size_t)st->st_size + 1 : PATH_MAX;
	for (;;) {
		target = xmalloc(size);
		if ((n = readlinkat(sfd, sname, target, size)) == -1)
			goto out;
		if ((size_t)n < size)
			break;
		free(target);
		size *= 2;
	}
	target[n] = '\0';
	if (clear_entry(dfd, dname) == -1)
		goto out;
	ret = symlinkat(target, dfd, dname);
out:
	free(target);
	return ret;
}

int
fs_copy_entry(int sfd, const char *sname, int dfd, const char *dname,
    struct stat *st)
{
	struct stat	 fst;
	int		 in = -1, out = -1, saved;

	if (fstatat(sfd, sname, st, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	if (S_ISLNK(st->st_mode))
		return copy_symlink(sfd, sname, dfd, dname, st);
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: should it have become a fifo since, do not hang. */
	in = openat(sfd, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC);
	if (in == -1)
		return -1;
	if (fstat(in, &fst) == -1)
		goto fail;
	if (!S_ISREG(fst.st_mode) || fst.st_ino != st->st_ino ||
	    fst.st_dev != st->st_dev) {
		*st = fst;
		errno = S_ISREG(fst.st_mode) ? EAGAIN : EINVAL;
		goto fail;
	}
	if (clear_entry(dfd, dname) == -1)
		goto fail;
	out = openat(dfd, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (out == -1)
		goto fail;
	/* A small file read and written whole: fewer calls than finding
	 * where its data is (a hole in it is written as the zeros it
	 * reads as). */
	if ((fst.st_size < COPY_SMALL ? copy_stream(in, out, fst.st_size) :
	    fs_copy_fd(in, out)) == -1)
		goto fail;
	if (fchmod(out, fst.st_mode & 0777) == -1)
		goto fail;
	close(in);
	if (close(out) == -1) {
		out = -1;
		in = -1;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	errno = saved;
	return -1;
}

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

int
fs_where(int fd, struct fs_where *w)
{
	struct stat	st;

	memset(w, 0, sizeof(*w));
#if defined(HAVE_STATX) && defined(STATX_MNT_ID)
	{
		struct statx	sx;

		if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		    STATX_INO | STATX_MNT_ID, &sx) == 0) {
			w->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
			w->ino = sx.stx_ino;
			if (sx.stx_mask & STATX_MNT_ID) {
				w->mnt = sx.stx_mnt_id;
				w->have_mnt = 1;
			}
#ifdef STATX_ATTR_MOUNT_ROOT
			w->mount_root = (sx.stx_attributes_mask &
			    STATX_ATTR_MOUNT_ROOT) &&
			    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
#endif
			return 0;
		}
		if (errno != ENOSYS && errno != EINVAL)
			return -1;
	}
#endif
	if (fstatat(fd, "", &st, AT_EMPTY_PATH) == -1)
		return -1;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	return 0;
}

int
fs_same_mount(const struct fs_where *a, const struct fs_where *b)
{
	if (a->dev != b->dev)
		return 0;
	/* A bind mount of a directory of the same file system has the
	 * same st_dev: only the mount id tells it apart. */
	if (a->have_mnt && b->have_mnt && a->mnt != b->mnt)
		return 0;
	return 1;
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
};

/* A directory that keeps refilling (a process writing into it) is
 * emptied this many times before it is left. */
#define RM_RETRIES	8

static void
left_behind(struct rm *rm, const char *name, int err, const char *why)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (rm->err == 0)
		rm->err = err;
	strv_push(&rm->stack[rm->depth - 1].skip, name);
	if (rm->left == NULL)
		return;
	if (rm->prefix != NULL && *rm->prefix != '\0')
		buf_addf(&b, "%s/", strcmp(rm->prefix, "/") == 0 ? "" :
		    rm->prefix);
	/* stack[0] stands for the parent directory itself. */
	for (i = 1; i < rm->depth; i++)
		buf_addf(&b, "%s/", rm->stack[i].name);
	buf_adds(&b, name);
	if (why != NULL)
		strv_pushf(rm->left, "%s %s", why, fs_vis(b.data));
	else
		strv_pushf(rm->left, "cannot remove %s: %s", fs_vis(b.data),
		    strerror(err));
	buf_free(&b);
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
 * subdirectory still to do (the caller frees), or NULL when none is left.
 */
static char *
empty_files(struct rm *rm, int fd)
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
		    strcmp(de->d_name, "..") == 0 || skipped(lv, de->d_name))
			continue;
		isdir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN &&
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			isdir = S_ISDIR(st.st_mode);
		if (isdir) {
			if (sub == NULL)
				sub = xstrdup(de->d_name);
			continue;
		}
		if (unlinkat(fd, de->d_name, 0) == -1 && errno != ENOENT) {
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
	if (fs_where(pfd, &w) == -1) {
		left_behind(rm, sub, errno, NULL);
		goto out;
	}
	/* Never into another file system, nor into a bind mount of part
	 * of this one: what is there is not the copy's, and neither its
	 * contents nor its mode are touched. */
	if (!fs_same_mount(&w, &rm->home) || w.mount_root) {
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

static int	rmtree(int, const char *, const char *, const char *,
		    struct strv *);

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
	    rm->left) == 0)
		strv_clear(&lv->skip);
	else
		rm->err = errno;
	free(prefix);
	free(first);
}

int
fs_rmtree_report(int pfd, const char *name, const char *prefix,
    struct strv *left)
{
	return rmtree(pfd, name, prefix, NULL, left);
}

static int
rmtree(int pfd, const char *name, const char *prefix, const char *last,
    struct strv *left)
{
	struct rm	 rm;
	struct stat	 st;
	char		*sub;
	int		 fd, nfd, tries = 0;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	memset(&rm, 0, sizeof(rm));
	rm.prefix = prefix;
	rm.left = left;
	rm.last = last;
	rm.stack = xreallocarray(NULL, rm.cap = 16, sizeof(*rm.stack));
	memset(&rm.stack[0], 0, sizeof(*rm.stack));
	rm.stack[0].name = xstrdup(".");
	rm.depth = 1;
	if (fs_where(pfd, &rm.home) == -1) {
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
		if ((sub = empty_files(&rm, fd)) != NULL) {
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
fs_rmtree_at(int pfd, const char *name)
{
	return fs_rmtree_report(pfd, name, NULL, NULL);
}

int
fs_rmtree_last_at(int pfd, const char *name, const char *last)
{
	return rmtree(pfd, name, NULL, last, NULL);
}

int
fs_rmtree(const char *path)
{
	return fs_rmtree_path(path, NULL, NULL);
}

void
fs_unescape_mountinfo(char *s)
{
	char	*out = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*out++ = *s;
	}
	*out = '\0';
}

/*
 * Where the kernel gives no mount ids, a bind mount of the same file
 * system cannot be seen from inside the tree: look for mount points at
 * or below path in this process's mount table instead.  How many.
 */
int
fs_mounts_below(const char *path, struct strv *left)
{
	struct buf	 b = BUF_INIT;
	char		*line, *p, *mnt, *real;
	size_t		 n;
	int		 field, found = 0;

	if ((real = realpath(path, NULL)) == NULL)
		return errno == ENOENT ? 0 : -1;
	n = strlen(real);
	if (fs_read_file("/proc/self/mountinfo", &b, 1 << 24) == -1) {
		free(real);
		buf_free(&b);
		return -1;	/* cannot tell: as if there were */
	}
	for (p = b.data; (line = strsep(&p, "\n")) != NULL;) {
		/* "id parent major:minor root mount-point options ..." */
		for (field = 0; field < 5 && line != NULL; field++)
			mnt = strsep(&line, " ");
		if (field < 5 || mnt == NULL)
			continue;
		fs_unescape_mountinfo(mnt);
		if (strncmp(mnt, real, n) == 0 && (mnt[n] == '\0' ||
		    mnt[n] == '/')) {
			if (left != NULL)
				strv_pushf(left, "a file system is mounted "
				    "at %s", fs_vis(mnt));
			found++;
		}
	}
	buf_free(&b);
	free(real);
	return found;
}

int
fs_rmtree_path(const char *path, const char *last, struct strv *left)
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
		ret = rmtree(AT_FDCWD, trimmed, NULL, last, left);
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
	if (fs_where(fd, &w) == 0 && !w.have_mnt &&
	    fs_mounts_below(trimmed, left) != 0) {
		/* Blind to bind mounts: remove nothing. */
		close(fd);
		free(dir);
		free(trimmed);
		errno = EBUSY;
		return -1;
	}
	ret = rmtree(fd, slash + 1, dir, last, left);
	saved = errno;
	close(fd);
	free(dir);
	free(trimmed);
	errno = saved;
	return ret;
}

int
fs_mkdirs(const char *path, mode_t mode)
{
	struct stat	 st;
	char		*p, *s;
	int		 ret = 0;

	if (*path == '\0') {
		errno = ENOENT;
		return -1;
	}
	p = xstrdup(path);
	for (s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		if (*s == '/' && s[1] == '/')
			continue;
		{
			char	c = *s;

			*s = '\0';
			if (mkdir(p, mode) == -1 && errno != EEXIST)
				ret = -1;
			else if (stat(p, &st) == -1)
				ret = -1;
			else if (!S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				ret = -1;
			}
			*s = c;
		}
		if (ret == -1 || *s == '\0')
			break;
	}
	free(p);
	return ret;
}

static int
write_replace(const char *path, const void *data, size_t len, mode_t mode,
    int sync)
{
	char		*tmp, *dir;
	const char	*p = data;
	ssize_t		 w;
	size_t		 off;
	int		 fd, dfd, saved;

	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1)
		goto fail_nofd;
	for (off = 0; off < len; off += (size_t)w) {
		w = write(fd, p + off, len - off);
		if (w == -1) {
			if (errno == EINTR) {
				w = 0;
				continue;
			}
			goto fail;
		}
	}
	if ((sync && fsync(fd) == -1) || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	free(tmp);
	if (!sync)
		return 0;
	dir = xstrdup(path);
	if (strrchr(dir, '/') != NULL)
		*strrchr(dir, '/') = '\0';
	else
		strlcpy(dir, ".", strlen(dir) + 1);
	if ((dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(dir);
	return 0;
fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(tmp);
	errno = saved;
fail_nofd:
	saved = errno;
	free(tmp);
	errno = saved;
	return -1;
}

int
fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	return write_replace(path, data, len, mode, 1);
}

int
fs_write_replace(const char *path, const void *data, size_t len, mode_t mode)
{
	return write_replace(path, data, len, mode, 0);
}

int
fs_read_file(const char *path, struct buf *b, size_t max)
{
	ssize_t	r;
	size_t	start = b->len;
	int	fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	for (;;) {
		r = buf_read(b, fd, 65536);
		if (r == 0)
			break;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (b->len - start > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	buf_str(b);
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
fs_path_in(const char *path, const char *dir)
{
	size_t	n = strlen(dir);

	while (n > 0 && dir[n - 1] == '/')
		n--;			/* "/" holds everything */
	if (strncmp(path, dir, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/' ||
	    strcmp(path + n, " (deleted)") == 0;
}

int
fs_pair_open(struct fs_pair *p, const char *src, const char *dst)
{
	int	saved;

	memset(p, 0, sizeof(*p));
	p->sfd = p->dfd = -1;
	p->sroot = p->droot = -1;
	if ((src != NULL && (p->sroot = open(src, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) || (p->droot = open(dst, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		saved = errno;
		if (p->sroot != -1)
			close(p->sroot);
		errno = saved;
		return -1;
	}
	buf_str(&p->cur);
	return 0;
}

static void
pair_drop(struct fs_pair *p)
{
	if (p->sfd != -1 && p->sfd != p->sroot)
		close(p->sfd);
	if (p->dfd != -1 && p->dfd != p->droot)
		close(p->dfd);
	p->sfd = p->dfd = -1;
}

int
fs_pair_to(struct fs_pair *p, const char *path, const char **base,
    fs_pair_fresh fresh, void *arg)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dlen = slash != NULL ? (size_t)(slash - path) : 0;
	int		 r = 0;

	*base = slash != NULL ? slash + 1 : path;
	if (p->started && p->cur.len == dlen && memcmp(p->cur.data, path,
	    dlen) == 0)
		return 0;
	p->started = 1;
	pair_drop(p);
	buf_reset(&p->next);
	buf_add(&p->next, path, dlen);
	buf_str(&p->next);
	if (fresh != NULL && fresh(p->next.data, buf_str(&p->cur), arg) == -1)
		r = -1;
	buf_reset(&p->cur);
	buf_add(&p->cur, path, dlen);
	buf_str(&p->cur);
	p->sfd = dlen == 0 || p->sroot == -1 ? p->sroot :
	    fs_walk_dir(p->sroot, p->cur.data, 0, 0);
	p->dfd = dlen == 0 ? p->droot : fs_walk_dir(p->droot, p->cur.data, 0,
	    0);
	return r;
}

void
fs_pair_close(struct fs_pair *p)
{
	pair_drop(p);
	if (p->sroot != -1)
		close(p->sroot);
	if (p->droot != -1)
		close(p->droot);
	p->sroot = p->droot = -1;
	buf_free(&p->cur);
	buf_free(&p->next);
}

int
fs_chmod_at(int dirfd, const char *base, mode_t mode)
{
	if (fchmodat(dirfd, base, mode, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != ENOTSUP && errno != EOPNOTSUPP)
		return -1;
	return fchmodat(dirfd, base, mode, 0);
}
