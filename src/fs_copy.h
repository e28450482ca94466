/*
 * Copies of files and symlinks, fd-relative as fs.h's walks are.
 * Every fd made is O_CLOEXEC; functions return -1 with errno set, and
 * none prints or exits.
 */
#ifndef FS_COPY_H
#define FS_COPY_H

#include <sys/stat.h>

/* Copy one entry: a regular file (content and permission bits) or a
 * symlink (target, never followed).  Anything else is not opened: -1 with
 * errno EINVAL, and *st tells what it was.  An existing destination entry
 * (file, link or tree) is replaced. */
int	fs_copy_entry(int, const char *, int, const char *, struct stat *);
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

#endif /* FS_COPY_H */
