/* File copies, tree removal and atomic writes, all fd-relative. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vis.h>

#include "fsutil.h"
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
fs_open_dir(int dirfd, const char *rel, int create, mode_t mode)
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
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (next == -1 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, mode) == -1 && errno != EEXIST)
				goto fail;
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY |
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

int
fs_copy_fd(int in, int out)
{
	char	 buf[65536];
	ssize_t	 r, w, off;

#ifdef HAVE_COPY_FILE_RANGE
	for (;;) {
		r = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (r == 0)
			return 0;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			/* Not supported here (or across these file
			 * systems): fall back, from where it stopped. */
			if (errno == EXDEV || errno == ENOSYS ||
			    errno == EINVAL || errno == EOPNOTSUPP ||
			    errno == EPERM || errno == EBADF)
				break;
			return -1;
		}
	}
#endif
	for (;;) {
		r = read(in, buf, sizeof(buf));
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
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				return -1;
			}
		}
	}
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
	if (fs_copy_fd(in, out) == -1)
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

/* Open a directory we are about to empty, unlocking it if need be. */
static int
open_for_removal(int pfd, const char *name)
{
	int	fd;

	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == EACCES) {
		if (fchmodat(pfd, name, 0700, 0) == -1)
			return -1;
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	}
	if (fd != -1)
		(void)fchmod(fd, 0700);
	return fd;
}

/*
 * Unlink every non-directory in fd.  Returns the name of one
 * subdirectory still in it (the caller frees), or NULL when there is
 * none; *err is set on a failure.
 */
static char *
empty_files(int fd, int *err)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*sub = NULL;
	int		 dup_fd, isdir;

	if ((dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) == -1) {
		*err = errno;
		return NULL;
	}
	if ((d = fdopendir(dup_fd)) == NULL) {
		*err = errno;
		close(dup_fd);
		return NULL;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
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
		if (unlinkat(fd, de->d_name, 0) == -1 && errno != ENOENT)
			*err = errno;
	}
	closedir(d);
	return sub;
}

struct level {
	dev_t	 dev;
	ino_t	 ino;
	char	*name;
};

int
fs_rmtree_at(int pfd, const char *name)
{
	struct stat	 st;
	struct level	*stack = NULL;
	size_t		 depth = 0, cap = 0;
	char		*sub;
	int		 fd, up, err = 0, ret = -1;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(pfd, name, 0) == -1 && errno != ENOENT ? -1 : 0;
	if ((fd = open_for_removal(pfd, name)) == -1)
		return -1;
	stack = xreallocarray(NULL, cap = 16, sizeof(*stack));
	stack[0].dev = st.st_dev;
	stack[0].ino = st.st_ino;
	stack[0].name = xstrdup(name);
	depth = 1;

	/*
	 * One directory fd at a time, climbing back with "..", so a tree of
	 * any depth costs neither descriptors nor stack.
	 */
	for (;;) {
		/* A directory that would not empty cannot be removed. */
		if ((sub = empty_files(fd, &err)) == NULL && err != 0)
			break;
		if (sub != NULL) {
			int	nfd;

			if ((nfd = open_for_removal(fd, sub)) == -1 ||
			    fstat(nfd, &st) == -1) {
				err = errno;
				if (nfd != -1)
					close(nfd);
				free(sub);
				break;
			}
			if (depth == cap)
				stack = xreallocarray(stack, cap *= 2,
				    sizeof(*stack));
			stack[depth].dev = st.st_dev;
			stack[depth].ino = st.st_ino;
			stack[depth].name = sub;
			depth++;
			close(fd);
			fd = nfd;
			continue;
		}
		if (depth == 1) {
			close(fd);
			fd = -1;
			if (unlinkat(pfd, name, AT_REMOVEDIR) == -1 &&
			    errno != ENOENT)
				err = errno;
			break;
		}
		up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (up == -1 || fstat(up, &st) == -1 ||
		    st.st_dev != stack[depth - 2].dev ||
		    st.st_ino != stack[depth - 2].ino) {
			/* Someone moved the tree under us: stop. */
			err = up == -1 ? errno : ESTALE;
			if (up != -1)
				close(up);
			break;
		}
		close(fd);
		fd = up;
		depth--;
		if (unlinkat(fd, stack[depth].name, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT) {
			err = errno;
			free(stack[depth].name);
			break;
		}
		free(stack[depth].name);
	}
	if (fd != -1)
		close(fd);
	while (depth > 0)
		free(stack[--depth].name);
	free(stack);
	if (err == 0)
		ret = 0;
	else
		errno = err;
	return ret;
}

int
fs_rmtree(const char *path)
{
	char	*dir, *trimmed;
	size_t	 n;
	int	 fd, ret, saved;

	/* "dir/" names dir. */
	trimmed = xstrdup(path);
	n = strlen(trimmed);
	while (n > 1 && trimmed[n - 1] == '/')
		trimmed[--n] = '\0';
	if (strcmp(trimmed, path) != 0) {
		ret = fs_rmtree(trimmed);
		saved = errno;
		free(trimmed);
		errno = saved;
		return ret;
	}
	free(trimmed);
	dir = xstrdup(path);
	if (strrchr(dir, '/') == NULL) {
		free(dir);
		return fs_rmtree_at(AT_FDCWD, path);
	}
	if (strrchr(dir, '/') == dir)
		dir[1] = '\0';
	else
		*strrchr(dir, '/') = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		saved = errno;
		free(dir);
		errno = saved;
		return saved == ENOENT ? 0 : -1;
	}
	free(dir);
	ret = fs_rmtree_at(fd, fs_basename(path));
	saved = errno;
	close(fd);
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

int
fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
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
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	free(tmp);
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
