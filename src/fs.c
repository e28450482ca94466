/* Files and directories, fd-relative: walks, reads and atomic writes. */
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
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "xmalloc.h"

const char *
fs_basename(const char *p)
{
	const char	*s;

	return (s = strrchr(p, '/')) != NULL ? s + 1 : p;
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

/* fs_count_files() of fd, which this closes: name, the top's entry
 * left out, or below it the one that stops the count. */
static long
count_files(int fd, const char *name, int top)
{
	struct dirent	*de;
	DIR		*d;
	long		 n = 0, k;
	int		 sub, t;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				n = -1;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (name != NULL && strcmp(de->d_name, name) == 0) {
			if (top)
				continue;
			n = -1;
			break;
		}
		if ((t = fs_dirent_type(d, de)) == DT_REG || t == DT_LNK)
			n++;
		else if (t == DT_DIR) {
			if ((sub = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
			    (k = count_files(sub, name, 0)) == -1) {
				n = -1;
				break;
			}
			n += k;
		} else {
			n = -1;
			break;
		}
	}
	closedir(d);
	return n;
}

long
fs_count_files(int dirfd, const char *name)
{
	int	fd;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		return -1;
	return count_files(fd, name, 1);
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
	int		 fd, dfd, saved;

	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1)
		goto fail_nofd;
	if (fs_write_all(fd, data, len) == -1)
		goto fail;
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
fs_write_all(int fd, const void *data, size_t len)
{
	const char	*p = data;
	ssize_t		 w;

	while (len > 0) {
		if ((w = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
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

char *
fs_path_absolute(const char *p)
{
	char	*cwd, *r;

	if (*p == '/')
		return xstrdup(p);
	if ((cwd = getcwd(NULL, 0)) == NULL)
		return xstrdup(p);
	r = xasprintf("%s/%s", cwd, p);
	free(cwd);
	return r;
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
