/*
 * oldkernel.so: statx(2) as an older Linux answers it, for a program
 * run with LD_PRELOAD=tests/oldkernel.so (t-old-kernel.sh).  How old,
 * OLDKERNEL_STATX says:
 *
 *	noroot	no STATX_ATTR_MOUNT_ROOT: a mount's root is told apart by
 *		its mount id alone
 *	nomnt	neither mount ids (STATX_MNT_ID) nor the mount-root flag,
 *		as Linux 4.11 to 5.7: only the device tells mounts apart,
 *		and a bind mount of the same file system not at all
 *	enosys	no statx at all, as before Linux 4.11
 *
 * Unset, or anything else: the kernel's own answer.  If OLDKERNEL_SEEN
 * names a file, it is created at the first call, for the test to know
 * that the program asked.
 */
#define _GNU_SOURCE

#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
statx(int dirfd, const char *path, int flags, unsigned int mask,
    struct statx *sx)
{
	const char	*how = getenv("OLDKERNEL_STATX");
	const char	*seen = getenv("OLDKERNEL_SEEN");
	int		 fd, saved;

	if (seen != NULL && *seen != '\0') {
		saved = errno;
		if ((fd = open(seen, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) !=
		    -1)
			close(fd);
		errno = saved;
	}
	if (how != NULL && strcmp(how, "enosys") == 0) {
		errno = ENOSYS;
		return -1;
	}
	if (syscall(SYS_statx, dirfd, path, flags, mask, sx) == -1)
		return -1;
	if (how == NULL)
		return 0;
#ifdef STATX_MNT_ID
	if (strcmp(how, "nomnt") == 0) {
		sx->stx_mask &= ~(unsigned int)STATX_MNT_ID;
		sx->stx_mnt_id = 0;
	}
#endif
#ifdef STATX_ATTR_MOUNT_ROOT
	if (strcmp(how, "nomnt") == 0 || strcmp(how, "noroot") == 0) {
		sx->stx_attributes &= ~(unsigned long long)
		    STATX_ATTR_MOUNT_ROOT;
		sx->stx_attributes_mask &= ~(unsigned long long)
		    STATX_ATTR_MOUNT_ROOT;
	}
#endif
	return 0;
}
