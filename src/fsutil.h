/*
 * Files and trees, through directory file descriptors.
 *
 * Paths below a directory fd are walked one component at a time with
 * O_NOFOLLOW, so a symlink planted in a copy can never redirect a write
 * outside it, and no path length limit applies to the walk.  Every fd
 * returned is O_CLOEXEC and owned by the caller.  Functions return -1
 * with errno set; none prints or exits.
 */
#ifndef FSUTIL_H
#define FSUTIL_H

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <time.h>

#include "buf.h"
#include "strv.h"

/* Open the directory relpath below dirfd ("" is dirfd itself, dup'd);
 * with create, missing components are made with mode. */
int	fs_open_dir(int, const char *, int, mode_t);
/* The same, opened O_PATH: for the *at() calls only (not to read),
 * which needs no more than search permission on the way, as a path
 * does. */
int	fs_walk_dir(int, const char *, int, mode_t);
/*
 * The directory of each path in turn, in two trees at once (a source and
 * its copy), each opened from its top with no symlink followed; paths
 * that hold a directory's files together (sorted, or in git's order)
 * open each directory once.
 *
 *	struct fs_pair p;
 *	if (fs_pair_open(&p, src, dst) == -1) ...	a top did not open
 *					(src NULL: the copy alone; p.sfd
 *					is then always -1)
 *	r = fs_pair_to(&p, path, &base, fresh, arg);
 *		p.sfd, p.dfd: path's directory in each (fs_walk_dir()),
 *		or -1 (gone, not a directory, a symlink on the way, no
 *		search permission); base: path's last
 *		name.  Before a new directory is opened, fresh(dir,
 *		prev, arg) if fresh is not NULL (prev: the last one,
 *		"" at first); r is -1 if that returned -1.
 *	fs_pair_close(&p);
 */
struct fs_pair {
	int		 sroot, droot;
	int		 sfd, dfd;
	struct buf	 cur, next;
	int		 started;
};

typedef int	(*fs_pair_fresh)(const char *, const char *, void *);

int	fs_pair_open(struct fs_pair *, const char *, const char *);
int	fs_pair_to(struct fs_pair *, const char *, const char **,
	    fs_pair_fresh, void *);
void	fs_pair_close(struct fs_pair *);
/* chmod base in dirfd without following it, as the C library can;
 * where it cannot (glibc before 2.32, or no /proc), as it is: the
 * caller has just seen it is no symlink, and nothing else runs in it. */
int	fs_chmod_at(int, const char *, mode_t);
/* Copy one entry: a regular file (content and permission bits) or a
 * symlink (target, never followed).  Anything else is not opened: -1 with
 * errno EINVAL, and *st tells what it was.  An existing destination entry
 * (file, link or tree) is replaced. */
int	fs_copy_entry(int, const char *, int, const char *, struct stat *);
/* The process's umask, read once (the first call comes before any other
 * thread makes files): forge never sets it. */
mode_t	fs_umask(void);
/* The present as the file system of directory dir stamps it: the change
 * time of a file made now there (-1 if none can be made). */
int	fs_stamp(const char *, struct timespec *);
/* Into *now, if earlier, fs_stamp()'s present; if that cannot be known,
 * *now rounded down to two seconds. */
void	fs_present(const char *, struct timespec *);
/* Copy the file from to a new file to (mode 0600), keeping its access
 * and modification times; a missing from is -1 with ENOENT. */
int	fs_copy_file(const char *, const char *);
/*
 * Copy all of in, from its offset, to out.  Between regular files: a
 * reflink (FICLONE) where the file system shares extents, else only the
 * data between holes (SEEK_DATA, SEEK_HOLE), by copy_file_range(2) or
 * read and write, so a sparse file stays sparse.  Anything else is read
 * and written as a stream.
 */
int	fs_copy_fd(int, int);
/*
 * Where a directory is: its device, inode and, where the kernel says
 * (statx STATX_MNT_ID), its mount, which alone tells a bind mount of
 * part of the same file system apart.
 */
struct fs_where {
	dev_t			dev;
	ino_t			ino;
	unsigned long long	mnt;
	int			have_mnt;
	int			mount_root;	/* a mount's root, if known */
};
int	fs_where(int, struct fs_where *);
int	fs_same_mount(const struct fs_where *, const struct fs_where *);

/*
 * Remove name below dirfd and everything in it; a missing name is fine.
 * Read-only directories are made writable first; symlinks are removed,
 * never followed; depth costs no file descriptors.  The removal never
 * leaves the mount that dirfd is on: a directory on another file system,
 * or a bind mount of any directory, is left in place with everything
 * in it, and so is whatever will not unlink.  The rest still goes.  Then
 * -1, errno EBUSY for a mount point, and with fs_rmtree_report one line
 * for each entry left ("a file system is mounted at PATH", "cannot
 * remove PATH: why") pushed onto left, PATH being prefix/name/...
 */
int	fs_rmtree_report(int, const char *, const char *, struct strv *);
int	fs_rmtree_at(int, const char *);
/* fs_rmtree_at(), but the entry last of name goes last, and only once
 * everything else in name went: what proves the rest is forge's. */
int	fs_rmtree_last_at(int, const char *, const char *);
/* The mount points at or below path, from /proc/self/mountinfo: how
 * many, each named in left (if not NULL) as fs_rmtree_report does; -1
 * if it cannot tell (no /proc). */
int	fs_mounts_below(const char *, struct strv *);
/* Undo, in place, the octal escapes (\040 for a space...) that
 * /proc/self/mountinfo writes names with. */
void	fs_unescape_mountinfo(char *);
/* The same for a path; left may be NULL.  last, if not NULL, names an
 * entry of path that goes last, and only once everything else went (a
 * mark that must outlive a partial removal).  Where the kernel gives no
 * mount ids, a path with any mount point at or below it is not touched.
 * last may name an entry within that entry ("a/b"): b goes last in a. */
int	fs_rmtree_path(const char *, const char *, struct strv *);
int	fs_rmtree(const char *);
/* mkdir -p. */
int	fs_mkdirs(const char *, mode_t);
/* Replace path with data: a temporary file, fsync, rename, fsync dir. */
int	fs_write_atomic(const char *, const void *, size_t, mode_t);
/* The same without the fsyncs: whole or not at all, but a crash may
 * leave what was written lost, or short. */
int	fs_write_replace(const char *, const void *, size_t, mode_t);
/* Read a whole file, at most max bytes (more: -1, EFBIG). */
int	fs_read_file(const char *, struct buf *, size_t);
/* Is path dir itself or below it ("/" holds everything; a readlink's
 * " (deleted)" suffix allowed)?  By the text alone. */
int	fs_path_in(const char *, const char *);
/* The final component of a path, and the rest. */
const char *fs_basename(const char *);
/* A path made safe to print (control and non-ASCII bytes as octal
 * escapes); valid until the fourth call after. */
const char *fs_vis(const char *);
/* Human-readable type of a stat mode: "fifo", "socket", ... */
const char *fs_type_name(mode_t);
/* The DT_ type of an entry readdir() gave from d, looked up where the
 * file system does not say (no symlink followed); -1 if it is gone. */
int	fs_dirent_type(DIR *, const struct dirent *);

#endif /* FSUTIL_H */
