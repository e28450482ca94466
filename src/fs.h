/*
 * Files and directories, through directory file descriptors: walks,
 * reads and atomic writes.  Copies are fs_copy.h's, removal and mounts
 * fs_remove.h's, names made fit to print fs_vis.h's.
 *
 * Paths below a directory fd are walked one component at a time with
 * O_NOFOLLOW, so a symlink planted in a copy can never redirect a write
 * outside it, and no path length limit applies to the walk.  Every fd
 * returned is O_CLOEXEC and owned by the caller.  Functions return -1
 * with errno set; none prints or exits.
 */
#ifndef FS_H
#define FS_H

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <time.h>

#include "buf.h"

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
/* The process's umask, read once (the first call comes before any other
 * thread makes files): forge never sets it. */
mode_t	fs_umask(void);
/* The present as the file system of directory dir stamps it: the change
 * time of a file made now there (-1 if none can be made). */
int	fs_stamp(const char *, struct timespec *);
/* Into *now, if earlier, fs_stamp()'s present; if that cannot be known,
 * *now rounded down to two seconds. */
void	fs_present(const char *, struct timespec *);
/* mkdir -p. */
int	fs_mkdirs(const char *, mode_t);
/* All of data written to fd, a write that EINTR cuts short resumed:
 * 0, or -1 with errno. */
int	fs_write_all(int, const void *, size_t);
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
/* A path made absolute against the current directory; caller frees. */
char	*fs_path_absolute(const char *);
/* The final component of a path, and the rest. */
const char *fs_basename(const char *);
/* How many regular files and symlinks are in the directory dirfd and
 * in every directory below it, no symlink followed, the top's entry
 * called name (NULL: none) left out.  -1 if a directory could not be
 * read, or holds anything else (a fifo, a socket, a device), or below
 * the top an entry called name: what is there is not known (dirfd is
 * the caller's still). */
long	fs_count_files(int, const char *);
/* The DT_ type of an entry readdir() gave from d, looked up where the
 * file system does not say (no symlink followed); -1 if it is gone. */
int	fs_dirent_type(DIR *, const struct dirent *);

#endif /* FS_H */
