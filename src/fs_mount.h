/*
 * Mounts: where a directory is, down to its mount, and the mount points
 * below a path -- what a removal or a copy must not cross.  Functions
 * return -1 with errno set; none prints or exits.
 */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include <sys/types.h>

#include "strv.h"

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
int	fs_mount_where(int, struct fs_where *);
int	fs_mount_same(const struct fs_where *, const struct fs_where *);

/* The mount points at or below path, from /proc/self/mountinfo: how
 * many, each named in left (if not NULL) as fs_remove_report() does; -1
 * if it cannot tell (no /proc). */
int	fs_mount_below(const char *, struct strv *);
/* Undo, in place, the octal escapes (\040 for a space...) that
 * /proc/self/mountinfo writes names with. */
void	fs_mount_unescape(char *);

#endif /* FS_MOUNT_H */
