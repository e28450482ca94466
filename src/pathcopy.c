/* Copying paths from a source tree into its copy, fd-relative. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "fs_copy.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "pathcopy.h"
#include "xmalloc.h"

/* The directory part of a path ("" for none), and the last component. */
static void
split_path(const char *p, struct buf *dir, const char **base)
{
	const char	*slash = strrchr(p, '/');

	buf_reset(dir);
	buf_str(dir);
	if (slash == NULL) {
		*base = p;
	} else {
		buf_add(dir, p, (size_t)(slash - p));
		*base = slash + 1;
	}
}

int
pathcopy_open(struct pathcopy *pc, const char *src, const char *dst)
{
	int	saved;

	memset(pc, 0, sizeof(*pc));
	pc->sfd = pc->dfd = -1;
	pc->sroot = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pc->droot = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pc->sroot == -1 || pc->droot == -1) {
		saved = errno;
		pathcopy_close(pc);
		errno = saved;
		return -1;
	}
	return 0;
}

void
pathcopy_forget(struct pathcopy *pc)
{
	if (pc->sfd != -1)
		close(pc->sfd);
	if (pc->dfd != -1)
		close(pc->dfd);
	pc->sfd = pc->dfd = -1;
	pc->have = 0;
}

void
pathcopy_close(struct pathcopy *pc)
{
	pathcopy_forget(pc);
	if (pc->sroot != -1)
		close(pc->sroot);
	if (pc->droot != -1)
		close(pc->droot);
	buf_free(&pc->cur);
	buf_free(&pc->dir);
	pc->sroot = pc->droot = -1;
}

/*
 * Is each directory on the way to dir below root, as far as they exist,
 * on root's mount?  One mounted there since forge looked is not the
 * copy's: nothing in it is written or removed.  -1 (EXDEV) if not.
 */
static int
on_root_mount(int root, const char *dir)
{
	struct fs_where	 top, here;
	char		*d, *p, *slash;
	int		 fd, nfd, ret = 0;

	if (*dir == '\0')
		return 0;
	if (fs_mount_where(root, &top) == -1)
		return -1;
	d = xstrdup(dir);
	fd = root;
	for (p = d; p != NULL; p = slash) {
		if ((slash = strchr(p, '/')) != NULL)
			*slash++ = '\0';
		nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd != root)
			close(fd);
		fd = -1;
		if (nfd == -1) {
			/* What is not there yet is made on the last. */
			if (errno != ENOENT)
				ret = -1;
			break;
		}
		fd = nfd;
		if (fs_mount_where(fd, &here) == -1 || !fs_mount_same(&top, &here)) {
			errno = EXDEV;
			ret = -1;
			break;
		}
	}
	if (fd != -1 && fd != root) {
		if (ret == -1) {
			int	saved = errno;

			close(fd);
			errno = saved;
		} else
			close(fd);
	}
	free(d);
	return ret;
}

/* Point at path's directory; 1 if the source has none. */
static int
cd(struct pathcopy *pc, const char *path, const char **base)
{
	split_path(path, &pc->dir, base);
	if (pc->have && strcmp(pc->dir.data, pc->cur.data) == 0)
		return pc->sfd == -1 ? 1 : 0;
	if (pc->sfd != -1)
		close(pc->sfd);
	if (pc->dfd != -1)
		close(pc->dfd);
	pc->sfd = pc->dfd = -1;
	buf_reset(&pc->cur);
	buf_adds(&pc->cur, pc->dir.data);
	pc->have = 1;
	if ((pc->sfd = fs_open_dir(pc->sroot, pc->dir.data, 0, 0)) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	if (on_root_mount(pc->droot, pc->dir.data) == -1 ||
	    (pc->dfd = fs_open_dir(pc->droot, pc->dir.data, 1, 0777)) == -1) {
		close(pc->sfd);
		pc->sfd = -1;
		pc->have = 0;
		return -1;
	}
	return 0;
}

int
pathcopy_copy(struct pathcopy *pc, const char *path, struct stat *st)
{
	const char	*base;
	int		 r;

	memset(st, 0, sizeof(*st));
	if ((r = cd(pc, path, &base)) != 0)
		return r;
	if (fs_copy_entry(pc->sfd, base, pc->dfd, base, st) == 0)
		return 0;
	return errno == ENOENT ? 1 : -1;
}

int
pathcopy_checkout(struct pathcopy *pc, const char *path, struct stat *st)
{
	const char	*base;
	mode_t		 want;
	int		 r;

	if ((r = pathcopy_copy(pc, path, st)) != 0 || !S_ISREG(st->st_mode))
		return r;
	/* pathcopy_copy() left pc in path's directory. */
	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	want = (st->st_mode & S_IXUSR ? 0777 : 0666) & ~fs_umask();
	return fs_chmod_at(pc->dfd, base, want) == 0 ? 0 : -1;
}

int
pathcopy_replace(struct pathcopy *pc, const char *path, struct stat *st)
{
	struct stat	 tst;
	const char	*base;
	char		 tmp[64];
	int		 r, n;

	memset(st, 0, sizeof(*st));
	if ((r = cd(pc, path, &base)) != 0)
		return r;
	/* Made beside it, then renamed over it: while both exist, the new
	 * file cannot have the old one's inode.  Under a name nothing has
	 * there: one the working state has too is not forge's to remove. */
	if (pc->pid == 0)
		pc->pid = (long)getpid();
	for (n = 0;; n++) {
		snprintf(tmp, sizeof(tmp), ".forge-new.%ld.%d", pc->pid, n);
		if (fstatat(pc->dfd, tmp, &tst, AT_SYMLINK_NOFOLLOW) == -1 &&
		    errno == ENOENT)
			break;
		if (n == 99) {
			errno = EEXIST;
			return -1;
		}
	}
	if (fs_copy_entry(pc->sfd, base, pc->dfd, tmp, st) == -1) {
		/* Nothing of it left behind. */
		r = errno;
		(void)unlinkat(pc->dfd, tmp, 0);
		errno = r;
		return errno == ENOENT ? 1 : -1;
	}
	if (renameat(pc->dfd, tmp, pc->dfd, base) == -1 &&
	    ((errno != EISDIR && errno != ENOTEMPTY && errno != EEXIST) ||
	    fs_remove_at(pc->dfd, base) == -1 ||
	    renameat(pc->dfd, tmp, pc->dfd, base) == -1)) {
		r = errno;
		(void)unlinkat(pc->dfd, tmp, 0);
		errno = r;
		return -1;
	}
	return 0;
}

int
pathcopy_clear(struct pathcopy *pc, const char *path)
{
	struct buf	 dir = BUF_INIT;
	const char	*base;
	int		 fd, ret = 0;

	split_path(path, &dir, &base);
	if (on_root_mount(pc->droot, dir.data) == -1)
		ret = -1;
	else if ((fd = fs_open_dir(pc->droot, dir.data, 0, 0)) != -1) {
		if (unlinkat(fd, base, 0) == -1 && errno != ENOENT &&
		    errno != EISDIR)
			ret = -1;
		close(fd);
	}
	buf_free(&dir);
	return ret;
}
