/*
 * Trees removed safely, and the mounts that removal must never enter.
 * Functions return -1 with errno set; none prints or exits.
 */
#ifndef FS_REMOVE_H
#define FS_REMOVE_H

#include <sys/types.h>

#include "strv.h"


/*
 * Remove name below dirfd and everything in it; a missing name is fine.
 * Read-only directories are made writable first; symlinks are removed,
 * never followed; depth costs no file descriptors.  The removal never
 * leaves the mount that dirfd is on: a directory on another file system,
 * or a bind mount of any directory, is left in place with everything
 * in it, and so is whatever will not unlink.  The rest still goes.  Then
 * -1, errno EBUSY for a mount point, and with fs_remove_report one line
 * for each entry left ("a file system is mounted at PATH", "cannot
 * remove PATH: why") pushed onto left, PATH being prefix/name/...
 */
int	fs_remove_report(int, const char *, const char *, struct strv *);
int	fs_remove_at(int, const char *);
/* fs_remove_at(), but the entry last of name goes last, and only once
 * everything else in name went: what proves the rest is forge's. */
int	fs_remove_last_at(int, const char *, const char *);
/* The same for a path; left may be NULL.  last, if not NULL, names an
 * entry of path that goes last, and only once everything else went (a
 * mark that must outlive a partial removal).  Where the kernel gives no
 * mount ids, a path with any mount point at or below it is not touched.
 * last may name an entry within that entry ("a/b"): b goes last in a. */
int	fs_remove_path(const char *, const char *, struct strv *);
int	fs_remove(const char *);
/* How many subtrees a removal has handed to its second thread so far,
 * in this process (a large tree is removed on two CPUs). */
size_t	fs_remove_lent(void);

#endif /* FS_REMOVE_H */
