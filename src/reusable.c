/* Which working trees a parked copy can be made of, and why not. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "lsfiles.h"
#include "reusable.h"
#include "strv.h"
#include "xmalloc.h"

static int
listed(const struct strv *v, const char *path)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], path) == 0)
			return 1;
	return 0;
}

/*
 * Is the gitlink at path below top not initialized: nothing there (the
 * directories on the way real ones, or missing), or a directory without
 * a .git?  No symlink on the way is followed; anything else, or what
 * cannot be told, is taken as initialized.
 */
static int
uninitialized(const char *top, const char *path)
{
	struct stat	 st;
	const char	*slash, *base;
	char		*dir;
	int		 root, fd, r = 0;

	if ((root = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	if ((slash = strrchr(path, '/')) != NULL) {
		dir = xstrndup(path, (size_t)(slash - path));
		fd = fs_walk_dir(root, dir, 0, 0);
		free(dir);
		base = slash + 1;
	} else {
		fd = fcntl(root, F_DUPFD_CLOEXEC, 3);
		base = path;
	}
	close(root);
	if (fd == -1)
		return errno == ENOENT;
	if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		r = errno == ENOENT;
	else if (S_ISDIR(st.st_mode)) {
		root = fd;
		if ((fd = openat(root, base, O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1)
			r = fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) ==
			    -1 && errno == ENOENT;
		close(root);
	}
	if (fd != -1)
		close(fd);
	return r;
}

const char *
reusable_why_not(const char *top, const struct lsfiles *l, int sparse)
{
	const char	*path;
	size_t		 i;

	if (sparse)
		return "a sparse checkout";
	for (i = 0; i < l->nested.n; i++) {
		path = l->nested.v[i];
		if (listed(&l->unmerged, path))
			return "a conflict over a submodule";
		if (lsfiles_find(&l->gitlinks, path) == NULL)
			return "a nested repository";
		if (!uninitialized(top, path))
			return "an initialized submodule";
	}
	return NULL;
}
