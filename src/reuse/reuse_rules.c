/* An incremental copy rid of ignored files that git reads as instructions. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "reuse.h"
#include "reuse_int.h"
#include "xmalloc.h"

/*
 * The files git reads as instructions in a working tree, wherever they
 * are: how it converts what it hashes and checks out (attributes), what
 * it lists and cleans (ignore rules), its submodules, Git LFS's settings.
 */
static const char *const	rule_files[] = { ".gitattributes",
	".gitignore", ".gitmodules", ".lfsconfig", NULL };

static int
rule_file(const char *path)
{
	const char	*base = strrchr(path, '/');
	size_t		 i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; rule_files[i] != NULL; i++)
		if (strcmp(base, rule_files[i]) == 0)
			return 1;
	return 0;
}

/* The bytes of the regular file base in dfd (no symlink followed, at
 * most 1 MiB) into b; -1 if there is none such. */
static int
read_at(int dfd, const char *base, struct buf *b)
{
	struct stat	 st;
	char		 chunk[8192];
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (1 << 20)) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(b, chunk, (size_t)n);
	close(fd);
	return n == 0 ? 0 : -1;
}

/* Does the working tree have the very file the copy has at path? */
static int
as_in_source(const char *src, int root, const char *path)
{
	struct buf	 a = BUF_INIT, b = BUF_INIT;
	const char	*base;
	char		*dir;
	int		 sroot, sfd = -1, dfd = -1, same = 0;

	base = strrchr(path, '/');
	dir = base != NULL ? xstrndup(path, (size_t)(base - path)) :
	    xstrdup("");
	base = base != NULL ? base + 1 : path;
	if ((sroot = open(src, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1) {
		sfd = fs_walk_dir(sroot, dir, 0, 0);
		dfd = fs_walk_dir(root, dir, 0, 0);
		if (sfd != -1 && dfd != -1 && read_at(sfd, base, &a) == 0 &&
		    read_at(dfd, base, &b) == 0)
			same = a.len == b.len && (a.len == 0 ||
			    memcmp(a.data, b.data, a.len) == 0);
		close(sroot);
	}
	if (sfd != -1)
		close(sfd);
	if (dfd != -1)
		close(dfd);
	free(dir);
	buf_free(&a);
	buf_free(&b);
	return same;
}

/* Remove path below root, no symlink on the way followed: 0, or -1 said. */
static int
drop_at(int root, const char *path)
{
	const char	*base;
	char		*dir;
	int		 fd, r = 0;

	base = strrchr(path, '/');
	dir = base != NULL ? xstrndup(path, (size_t)(base - path)) :
	    xstrdup("");
	base = base != NULL ? base + 1 : path;
	fd = *dir != '\0' ? fs_walk_dir(root, dir, 0, 0) :
	    fcntl(root, F_DUPFD_CLOEXEC, 3);
	free(dir);
	if (fd == -1 || (unlinkat(fd, base, 0) == -1 && errno != ENOENT)) {
		warn("cannot remove %s from the reused copy", fs_vis(path));
		r = -1;
	}
	if (fd != -1)
		close(fd);
	return r;
}

/*
 * Drop the rule files directly in dir (below root), as they are ignored
 * there and no fresh copy has them: how many, or -1 said.
 */
static int
drop_direct(int root, const char *dir, struct strv *dropped)
{
	struct stat	 st;
	char		*path;
	size_t		 i;
	int		 fd, n = 0;

	if ((fd = fs_walk_dir(root, dir, 0, 0)) == -1)
		return 0;	/* gone since git listed it, or a symlink */
	for (i = 0; rule_files[i] != NULL && n != -1; i++) {
		if (fstatat(fd, rule_files[i], &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    S_ISDIR(st.st_mode))
			continue;
		path = xasprintf("%s/%s", dir, rule_files[i]);
		if (drop_at(root, path) == -1)
			n = -1;
		else {
			strv_push(dropped, path);
			n++;
		}
		free(path);
	}
	close(fd);
	return n;
}

/* The subdirectories of dir (below root), no symlink among them, pushed
 * onto v. */
static void
push_subdirs(int root, const char *dir, struct strv *v)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 fd;

	if ((fd = fs_open_dir(root, dir, 0, 0)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISDIR(st.st_mode))
			continue;
		strv_pushf(v, "%s/%s", dir, de->d_name);
	}
	closedir(d);
}

/*
 * The directories git listed whole as ignored (dirs, each without its
 * trailing slash): one no rule of its parents matches is one git enters,
 * to read the rule files in it that hide all it holds.  Those are
 * dropped; where a directory has none, its subdirectories are looked at
 * in turn.  1 if any was dropped (git is to list again), 0 if none, -1
 * said.
 */
static int
drop_entered(const struct git *g, int root, struct strv *dirs,
    struct strv *dropped)
{
	const char *const	 check[] = { "check-ignore", "--stdin", "-z",
	    NULL };
	struct strv		 next = STRV_INIT;
	struct buf		 in = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end;
	size_t			 i, seen = 0;
	int			 st, n, any = 0;

	while (dirs->n > 0 && any == 0) {
		if ((seen += dirs->n) > 100000) {
			warnx("the reused copy holds too many directories "
			    "git ignores whole to look into");
			any = -1;
			break;
		}
		buf_reset(&in);
		buf_reset(&out);
		buf_reset(&err);
		for (i = 0; i < dirs->n; i++)
			buf_add(&in, dirs->v[i], strlen(dirs->v[i]) + 1);
		/* 1: none matched. */
		if ((st = git_run(g, check, 0, &in, &out, &err)) != 0 &&
		    st != 1) {
			warnx("git check-ignore failed in the reused copy: %s",
			    git_why(&err, st));
			any = -1;
			break;
		}
		for (i = 0; i < dirs->n && any != -1; i++) {
			for (p = out.data, end = p + out.len; p != NULL &&
			    p < end; p += strlen(p) + 1)
				if (strcmp(p, dirs->v[i]) == 0)
					break;
			if (p != NULL && p < end)
				continue;	/* not entered */
			if ((n = drop_direct(root, dirs->v[i], dropped)) != 0)
				any = n == -1 ? -1 : 1;
			else
				push_subdirs(root, dirs->v[i], &next);
		}
		strv_free(dirs);
		*dirs = next;
		next = (struct strv)STRV_INIT;
	}
	strv_free(&next);
	buf_free(&in);
	buf_free(&out);
	buf_free(&err);
	return any;
}

int
reuse_rules_drop(const struct reuse_copy *rc, const char *src,
    const char *index, struct strv *dropped)
{
	/* Ignored: --directory, as git enters no directory a rule of its
	 * parents ignores, and reads no rule there for anything it hashes
	 * or lists.  A directory listed whole may still be one git enters,
	 * all it holds hidden by rules in it (drop_entered()).
	 * Untracked: what git clean would read, then remove. */
	const char *const	 ignored[] = { "-o", "-i", "--exclude-standard",
	    "--directory", "--no-empty-directory", NULL };
	const char *const	 untracked[] = { "-o", "--exclude-standard",
	    NULL };
	const char *const	*which[] = { ignored, untracked };
	struct strv		 dirs = STRV_INIT, out = STRV_INIT;
	struct git		 g;
	const char		*p, *copy = rc->copy;
	char			*adm;
	size_t			 k, i, len;
	int			 root, again, ret = -1, rounds, r;

	if (reuse_sync_begin(rc, &g, &adm) == -1)
		return -1;
	/* Tracked: as the working state has them, not as the copy's own
	 * index (a command's to rewrite) says. */
	g.index = index;
	if ((root = open(copy, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("cannot open the reused copy %s", fs_vis(copy));
		free(adm);
		return -1;
	}
	/* A rule file gone may make git enter a directory it ignored
	 * whole: listed again until none is found. */
	for (rounds = 0, again = 1; again && rounds < 64; rounds++) {
		again = 0;
		for (k = 0; k < 2; k++) {
			strv_clear(&out);
			if (reuse_sync_ls(&g, which[k], &out) == -1)
				goto out;
			for (i = 0; i < out.n; i++) {
				p = out.v[i];
				len = strlen(p);
				if (p[len - 1] == '/') {
					if (k == 0 && len > 1)
						strv_pushn(&dirs, p, len - 1);
					continue;
				}
				if (!rule_file(p))
					continue;
				/* An untracked one the working tree has too
				 * is the working state's: a fresh copy has
				 * it. */
				if (k == 1 && src != NULL &&
				    as_in_source(src, root, p))
					continue;
				if (drop_at(root, p) == -1)
					goto out;
				strv_push(dropped, p);
				again = 1;
			}
		}
		if ((r = drop_entered(&g, root, &dirs, dropped)) == -1)
			goto out;
		if (r == 1)
			again = 1;
		strv_free(&dirs);
	}
	ret = again ? -1 : 0;
	if (again)
		warnx("the reused copy's ignore rules keep changing as they "
		    "go");
out:
	strv_free(&dirs);
	strv_free(&out);
	close(root);
	free(adm);
	return ret;
}
