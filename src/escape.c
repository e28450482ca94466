/* Naming the symlinks in a copy that lead back into the real repository. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "fs.h"
#include "fs_vis.h"
#include "strv.h"
#include "xmalloc.h"

/* Join and normalize: "." and ".." resolved lexically, no "//". */
static char *
normalize(const char *path)
{
	struct strv	 parts = STRV_INIT;
	struct buf	 b = BUF_INIT;
	char		*copy, *p, *comp;
	size_t		 i;

	copy = xstrdup(path);
	for (p = copy; (comp = strsep(&p, "/")) != NULL;) {
		if (*comp == '\0' || strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if (parts.n > 0) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			}
			continue;
		}
		strv_push(&parts, comp);
	}
	for (i = 0; i < parts.n; i++)
		buf_addf(&b, "/%s", parts.v[i]);
	if (b.len == 0)
		buf_addc(&b, '/');
	strv_free(&parts);
	free(copy);
	return buf_detach(&b);
}

char *
escape_resolve(const char *link, const char *target)
{
	char	*dir, *joined, *out, *real, *slash, *base;

	if (target[0] == '/')
		joined = xstrdup(target);
	else {
		dir = xstrdup(link);
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
		joined = xasprintf("%s/%s", dir, target);
		free(dir);
	}
	/*
	 * As the kernel would: through every link on the way, ".." after
	 * a link included.  A target that does not exist yet is where a
	 * write through the link would create it: its directory, resolved.
	 */
	if ((real = realpath(joined, NULL)) != NULL) {
		free(joined);
		return real;
	}
	if ((slash = strrchr(joined, '/')) != NULL && slash != joined) {
		*slash = '\0';
		base = slash + 1;
		if ((real = realpath(joined, NULL)) != NULL) {
			out = xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" :
			    real, base);
			free(real);
			free(joined);
			return out;
		}
		*slash = '/';
	}
	/* Not even that: as the text says. */
	out = normalize(joined);
	free(joined);
	return out;
}

/* Does where lead into a place, or hold one? */
static const char *
leads_into(const char *where, const char *const *places)
{
	size_t	i;

	for (i = 0; places[i] != NULL; i++)
		if (fs_path_in(where, places[i]) ||
		    fs_path_in(places[i], where))
			return places[i];
	return NULL;
}

static int
check_link(int dfd, const char *name, const char *copy, const char *rel,
    const char *const *places)
{
	char		 target[PATH_MAX];
	char		*link, *where;
	ssize_t		 n;
	int		 found = 0;

	if ((n = readlinkat(dfd, name, target, sizeof(target) - 1)) <= 0)
		return 0;
	target[n] = '\0';
	link = xasprintf("%s/%s%s", copy, rel, name);
	where = escape_resolve(link, target);
	/* Inside the copy, it is the copy's own business. */
	if (!fs_path_in(where, copy) && leads_into(where, places) != NULL) {
		warnx("warning: the symlink %s%s -> %s leads out of the copy "
		    "into the real repository: what the command writes "
		    "through it changes the real files", fs_vis(rel),
		    fs_vis(name), fs_vis(target));
		found = 1;
	}
	free(where);
	free(link);
	return found;
}

int
escape_warn(const char *copy, const char *const *places)
{
	struct strv	 todo = STRV_INIT;
	struct dirent	*de;
	DIR		*d;
	char		*rel;
	int		 root, dfd, type, count = 0;

	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		warn("cannot read %s", fs_vis(copy));
		return -1;
	}
	strv_push(&todo, "");
	while (todo.n > 0) {
		rel = todo.v[--todo.n];
		todo.v[todo.n] = NULL;
		if ((dfd = fs_open_dir(root, rel, 0, 0)) == -1 ||
		    (d = fdopendir(dfd)) == NULL) {
			if (dfd != -1)
				close(dfd);
			free(rel);
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0 ||
			    strcmp(de->d_name, ".git") == 0)
				continue;
			type = fs_dirent_type(d, de);
			if (type == DT_DIR)
				strv_pushf(&todo, "%s%s/", rel, de->d_name);
			else if (type == DT_LNK)
				count += check_link(dirfd(d), de->d_name, copy,
				    rel, places);
		}
		closedir(d);
		free(rel);
	}
	strv_free(&todo);
	close(root);
	return count;
}

int
escape_warn_paths(const char *copy, const struct strv *paths,
    const char *const *places)
{
	struct stat	 st;
	const char	*path, *slash, *base;
	char		*rel = NULL;
	size_t		 i, dlen;
	int		 root, dfd = -1, count = 0;

	if ((root = open(copy, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		warn("cannot read %s", fs_vis(copy));
		return -1;
	}
	for (i = 0; i < paths->n; i++) {
		path = paths->v[i];
		slash = strrchr(path, '/');
		base = slash != NULL ? slash + 1 : path;
		dlen = (size_t)(base - path);
		/* No symlink on the way followed: a directory that is one
		 * is itself among the paths.  Opened once for a run of
		 * paths in it. */
		if (rel == NULL || strlen(rel) != dlen ||
		    strncmp(rel, path, dlen) != 0) {
			if (dfd != -1)
				close(dfd);
			free(rel);
			rel = xstrndup(path, dlen);
			dfd = fs_open_dir(root, rel, 0, 0);
		}
		if (dfd != -1 && fstatat(dfd, base, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			count += check_link(dfd, base, copy, rel, places);
	}
	if (dfd != -1)
		close(dfd);
	free(rel);
	close(root);
	return count;
}
