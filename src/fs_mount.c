/* Mounts: where a directory is, and the mount points below a path. */
#include "config.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_vis.h"
#include "strv.h"

int
fs_mount_where(int fd, struct fs_where *w)
{
	struct stat	st;

	memset(w, 0, sizeof(*w));
#if defined(HAVE_STATX) && defined(STATX_MNT_ID)
	{
		struct statx	sx;

		if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		    STATX_INO | STATX_MNT_ID, &sx) == 0) {
			w->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
			w->ino = sx.stx_ino;
			if (sx.stx_mask & STATX_MNT_ID) {
				w->mnt = sx.stx_mnt_id;
				w->have_mnt = 1;
			}
#ifdef STATX_ATTR_MOUNT_ROOT
			w->mount_root = (sx.stx_attributes_mask &
			    STATX_ATTR_MOUNT_ROOT) &&
			    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
#endif
			return 0;
		}
		if (errno != ENOSYS && errno != EINVAL)
			return -1;
	}
#endif
	if (fstatat(fd, "", &st, AT_EMPTY_PATH) == -1)
		return -1;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	return 0;
}

int
fs_mount_same(const struct fs_where *a, const struct fs_where *b)
{
	if (a->dev != b->dev)
		return 0;
	/* A bind mount of a directory of the same file system has the
	 * same st_dev: only the mount id tells it apart. */
	if (a->have_mnt && b->have_mnt && a->mnt != b->mnt)
		return 0;
	return 1;
}

void
fs_mount_unescape(char *s)
{
	char	*out = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*out++ = *s;
	}
	*out = '\0';
}

/*
 * Where the kernel gives no mount ids, a bind mount of the same file
 * system cannot be seen from inside the tree: look for mount points at
 * or below path in this process's mount table instead.  How many.
 */
int
fs_mount_below(const char *path, struct strv *left)
{
	struct buf	 b = BUF_INIT;
	char		*line, *p, *mnt, *real;
	size_t		 n;
	int		 field, found = 0;

	if ((real = realpath(path, NULL)) == NULL)
		return errno == ENOENT ? 0 : -1;
	n = strlen(real);
	if (fs_read_file("/proc/self/mountinfo", &b, 1 << 24) == -1) {
		free(real);
		buf_free(&b);
		return -1;	/* cannot tell: as if there were */
	}
	for (p = b.data; (line = strsep(&p, "\n")) != NULL;) {
		/* "id parent major:minor root mount-point options ..." */
		for (field = 0; field < 5 && line != NULL; field++)
			mnt = strsep(&line, " ");
		if (field < 5 || mnt == NULL)
			continue;
		fs_mount_unescape(mnt);
		if (strncmp(mnt, real, n) == 0 && (mnt[n] == '\0' ||
		    mnt[n] == '/')) {
			if (left != NULL)
				strv_pushf(left, "a file system is mounted "
				    "at %s", fs_vis(mnt));
			found++;
		}
	}
	buf_free(&b);
	free(real);
	return found;
}
