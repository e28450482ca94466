/* Copies of files and symlinks, fd-relative: reflinks, holes kept. */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LINUX_FS_H
#include <linux/fs.h>
#endif

#include "fs.h"
#include "fs_copy.h"
#include "fs_remove.h"
#include "xmalloc.h"

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
		return fs_remove_at(dfd, name);
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
