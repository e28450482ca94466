/* A parked copy's registration made what a fresh worktree add makes. */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "git.h"
#include "registration.h"
#include "strv.h"
#include "xmalloc.h"

/* What git worktree add makes in a registration, where refs are files
 * and where they are a reftable; everything else goes. */
static const char *const	files_kept[] = { "gitdir", "locked",
	"commondir", "HEAD", "ORIG_HEAD", "index", "logs", "refs",
	"config.worktree", NULL };
static const char *const	table_kept[] = { "gitdir", "locked",
	"commondir", "HEAD", "index", "refs", "reftable", "config.worktree",
	NULL };
static const char *const	logs_kept[] = { "HEAD", NULL };
static const char *const	refs_kept[] = { "heads", NULL };
static const char *const	none_kept[] = { NULL };
static const char *const	stack_kept[] = { "tables.list", NULL };

/* Where the common dir keeps its refs in a reftable, so do worktrees. */
static int
reftable(const char *adm)
{
	struct stat	 st;
	char		*p;
	int		 r;

	p = xasprintf("%s/../../reftable", adm);
	r = lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return r;
}

static int
listed(const char *const *v, const char *name)
{
	for (; *v != NULL; v++)
		if (strcmp(*v, name) == 0)
			return 1;
	return 0;
}

/* Every entry of the directory dfd but those of keep removed; what names
 * it in a message. */
static int
prune(int dfd, const char *const *keep, const char *what)
{
	struct strv	 gone = STRV_INIT;
	struct dirent	*de;
	DIR		*d;
	size_t		 i;
	int		 fd, ret = 0;

	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || (d = fdopendir(fd)) == NULL) {
		warn("cannot read %s", fs_vis(what));
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    !listed(keep, de->d_name))
			strv_push(&gone, de->d_name);
	closedir(d);
	for (i = 0; i < gone.n && ret == 0; i++)
		if (fs_remove_at(dfd, gone.v[i]) == -1) {
			warn("cannot remove %s/%s", fs_vis(what),
			    fs_vis(gone.v[i]));
			ret = -1;
		}
	strv_free(&gone);
	return ret;
}

/* The directory name in dfd, pruned to keep; a non-directory there
 * removed.  No directory: nothing to do. */
static int
prune_below(int dfd, const char *name, const char *const *keep,
    const char *adm)
{
	struct stat	 st;
	char		*what;
	int		 fd, r;

	what = xasprintf("%s/%s", adm, name);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		r = errno == ENOENT ? 0 : -1;
		if (r == -1)
			warn("cannot look at %s", fs_vis(what));
		free(what);
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		if ((r = unlinkat(dfd, name, 0)) == -1)
			warn("cannot remove %s", fs_vis(what));
		free(what);
		return r;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(what));
		free(what);
		return -1;
	}
	r = prune(fd, keep, what);
	close(fd);
	free(what);
	return r;
}

/* The regular file name in dfd (no symlink followed, at most 1 MiB)
 * into b; -1 if there is none such. */
static int
read_at(int dfd, const char *name, struct buf *b)
{
	struct stat	 st;
	int		 fd, r = 0;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > (1 << 20))
		r = -1;
	while (r == 0 && (r = (int)buf_read(b, fd, 65536)) > 0)
		r = 0;
	close(fd);
	return r == 0 ? 0 : -1;
}

/* Is the regular file name in dfd exactly the len bytes of want? */
static int
holds(int dfd, const char *name, const char *want, size_t len)
{
	struct buf	 b = BUF_INIT;
	int		 same;

	same = read_at(dfd, name, &b) == 0 && b.len == len &&
	    (len == 0 || memcmp(b.data, want, len) == 0);
	buf_free(&b);
	return same;
}

/* The file name in the directory dfd (dir) made the len bytes of data,
 * unless it is so already. */
static int
put(int dfd, const char *dir, const char *name, const char *data,
    size_t len)
{
	char	*path;
	int	 r;

	if (holds(dfd, name, data, len))
		return 0;
	path = xasprintf("%s/%s", dir, name);
	/* A directory there is no file rename() replaces. */
	(void)fs_remove_at(dfd, name);
	if ((r = fs_write_replace(path, data, len, 0644)) == -1)
		warn("cannot write %s", fs_vis(path));
	free(path);
	return r;
}

/* git's status, said if it is neither 0 nor ok. */
static int
run(const struct git *g, const char *const *a, const struct buf *in,
    struct buf *out, int ok)
{
	struct buf	err = BUF_INIT;
	int		st;

	st = git_run(g, a, 0, in, out, &err);
	if (st > 0 && st != ok)
		warnx("git %s failed for the reused copy's registration: %s",
		    a[0], git_why(&err, st));
	buf_free(&err);
	return st;
}

/* A boolean git config prints for key in file: 1, 0, or -1 if git
 * could not say (said why); unset, 0. */
static int
file_bool(const struct git *g, const char *file, const char *key)
{
	const char *const	 a[] = { "config", "--file", file, "--bool",
	    "--get", key, NULL };
	struct buf		 out = BUF_INIT;
	int			 st, r;

	st = run(g, a, NULL, &out, 1);
	buf_rtrim(&out);
	r = st == 1 ? 0 : st == 0 ? strcmp(buf_str(&out), "true") == 0 : -1;
	buf_free(&out);
	return r;
}

/* Is the word in the len bytes at p, in any case? */
static int
mentions(const char *p, size_t len, const char *word)
{
	size_t	i, k, n = strlen(word);

	for (i = 0; i + n <= len; i++) {
		for (k = 0; k < n && tolower((unsigned char)p[i + k]) ==
		    word[k]; k++)
			;
		if (k == n)
			return 1;
	}
	return 0;
}

/*
 * What git worktree add copies of the source's config.worktree leaves
 * out (the calls it makes, failures and all: 5 is nothing to unset).
 */
static int
unset_bare(const struct git *g, const char *cfg)
{
	const char *const	bare[] = { "config", "--file", cfg, "--unset",
	    "core.bare", "true", NULL };
	const char *const	wt[] = { "config", "--file", cfg, "--unset",
	    "core.worktree", NULL };
	int			b;

	if ((b = file_bool(g, cfg, "core.bare")) == -1 ||
	    (b == 1 && run(g, bare, NULL, NULL, 5) < 0) ||
	    run(g, wt, NULL, NULL, 5) < 0)
		return -1;
	return 0;
}

/*
 * config.worktree as git worktree add makes it: since git 2.36, where
 * the repository has worktree configuration (extensions.worktreeConfig,
 * read as git reads the repository's format: from the common config
 * file alone), a copy of the working tree's own, without core.bare if
 * true and without core.worktree; else none.
 */
static int
worktree_config(int dfd, const struct git *g, const char *adm,
    const char *common, const char *src_gitdir)
{
	struct buf	 src = BUF_INIT;
	char		*path, *cfg;
	int		 on = 0, ret = -1;

	path = xasprintf("%s/config.worktree", src_gitdir);
	if (git_has(GIT_WORKTREE_CONFIG) &&
	    fs_read_file(path, &src, 1 << 20) == 0) {
		cfg = xasprintf("%s/config", common);
		on = file_bool(g, cfg, "extensions.worktreeConfig");
		free(cfg);
	}
	free(path);
	if (on == 1 && put(dfd, adm, "config.worktree", src.data != NULL ?
	    src.data : "", src.len) == 0) {
		ret = 0;
		/* Only then can it hold either key: most never do. */
		if (mentions(src.data, src.len, "bare") ||
		    mentions(src.data, src.len, "worktree")) {
			cfg = xasprintf("%s/config.worktree", adm);
			ret = unset_bare(g, cfg);
			free(cfg);
		}
	} else if (on == 0) {
		ret = 0;
		if (unlinkat(dfd, "config.worktree", 0) == -1 &&
		    errno != ENOENT && fs_remove_at(dfd, "config.worktree") ==
		    -1) {
			warn("cannot remove %s/config.worktree", fs_vis(adm));
			ret = -1;
		}
	}
	buf_free(&src);
	return ret;
}

int
registration_own_worktree(const char *adm, const char *copy,
    const char *common)
{
	struct git	 g;
	struct buf	 text = BUF_INIT;
	char		*cfg, *own;
	int		 on, ret = 0;
	const char	*a[] = { "config", "--file", NULL, "core.worktree",
	    copy, NULL };

	/* Read as git reads the repository's format: from the common
	 * config file alone.  Most never mention it. */
	cfg = xasprintf("%s/config", common);
	if (fs_read_file(cfg, &text, 1 << 20) == -1 || text.data == NULL ||
	    !mentions(text.data, text.len, "worktreeconfig")) {
		free(cfg);
		buf_free(&text);
		return 0;
	}
	buf_free(&text);
	memset(&g, 0, sizeof(g));
	g.dir = copy;
	g.gitdir = adm;
	g.worktree = copy;
	if ((on = file_bool(&g, cfg, "extensions.worktreeConfig")) == 1) {
		own = xasprintf("%s/config.worktree", adm);
		a[2] = own;
		if (run(&g, a, NULL, NULL, 0) != 0)
			ret = -1;
		free(own);
	} else if (on == -1)
		ret = -1;
	free(cfg);
	return ret;
}

/* Where refs are files: no ref, no reflog but HEAD's; refs/ there,
 * empty, as git 2.44 and later make it, or none. */
static int
files_afresh(int dfd, const char *adm)
{
	if (prune_below(dfd, "logs", logs_kept, adm) == -1)
		return -1;
	if (!git_has(GIT_WORKTREE_REFS)) {
		if (fs_remove_at(dfd, "refs") == -1) {
			warn("cannot remove %s/refs", fs_vis(adm));
			return -1;
		}
		return 0;
	}
	if (prune_below(dfd, "refs", none_kept, adm) == -1)
		return -1;
	if (mkdirat(dfd, "refs", 0777) == -1 && errno != EEXIST) {
		warn("cannot make %s/refs", fs_vis(adm));
		return -1;
	}
	return 0;
}

/* A reftable of the registration's own made afresh: no table, then HEAD
 * and ORIG_HEAD at head, HEAD's reflog that one entry. */
static int
table_afresh(int dfd, const struct git *g, const char *adm,
    const char *head)
{
	const char *const	 a[] = { "update-ref", "--no-deref", "--stdin",
	    NULL };
	struct buf		 in = BUF_INIT;
	char			*dir;
	int			 fd, r;

	dir = xasprintf("%s/reftable", adm);
	if ((fd = openat(dfd, "reftable", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(dir));
		free(dir);
		return -1;
	}
	r = prune(fd, stack_kept, dir) == -1 ||
	    put(fd, dir, "tables.list", "", 0) == -1 ? -1 : 0;
	close(fd);
	free(dir);
	if (r == -1)
		return -1;
	buf_addf(&in, "update HEAD %s\nupdate ORIG_HEAD %s\n", head, head);
	r = run(g, a, &in, NULL, 0);
	buf_free(&in);
	return r == 0 ? 0 : -1;
}

int
registration_fresh(const char *adm, const char *copy, const char *common,
    const char *src_gitdir, const char *head)
{
	struct git	 g;
	int		 dfd, table, ret = -1;

	if ((dfd = open(adm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(adm));
		return -1;
	}
	memset(&g, 0, sizeof(g));
	g.dir = copy;
	g.gitdir = adm;
	g.worktree = copy;
	table = reftable(adm);
	/* First what git finds the rest by: the common dir. */
	if (put(dfd, adm, "commondir", "../..\n", 6) == -1 ||
	    prune(dfd, table ? table_kept : files_kept, adm) == -1)
		goto out;
	/* A reftable's refs/ holds but a stub, for older gits to see. */
	if (table ? prune_below(dfd, "refs", refs_kept, adm) == -1 ||
	    table_afresh(dfd, &g, adm, head) == -1 : files_afresh(dfd, adm) ==
	    -1)
		goto out;
	if ((ret = worktree_config(dfd, &g, adm, common, src_gitdir)) == 0)
		ret = registration_own_worktree(adm, copy, common);
out:
	close(dfd);
	return ret;
}

void
registration_detached(const char *adm, const char *head)
{
	struct buf	 b = BUF_INIT, line = BUF_INIT;
	const char	*last;
	char		*dir;
	size_t		 n = strlen(head), i;
	int		 dfd, lfd;

	if (reftable(adm) || (dfd = open(adm, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	/* "old new ident time zone\tmessage": the last entry, which HEAD
	 * is at, alone and from nothing; none, if HEAD is not at it. */
	dir = xasprintf("%s/logs", adm);
	if ((lfd = openat(dfd, "logs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) != -1 && read_at(lfd, "HEAD", &b) == 0 && b.len > 0 &&
	    b.data[b.len - 1] == '\n') {
		b.data[--b.len] = '\0';
		last = strrchr(b.data, '\n') != NULL ?
		    strrchr(b.data, '\n') + 1 : b.data;
		if (strlen(last) > 2 * n + 1 && last[n] == ' ' &&
		    strncmp(last + n + 1, head, n) == 0 &&
		    last[2 * n + 1] == ' ') {
			for (i = 0; i < n; i++)
				buf_addc(&line, '0');
			buf_addf(&line, "%s\n", last + n);
		}
	}
	if (lfd != -1 && line.len > 0)
		(void)put(lfd, dir, "HEAD", line.data, line.len);
	else if (lfd != -1)
		(void)unlinkat(lfd, "HEAD", 0);
	if (lfd != -1)
		close(lfd);
	free(dir);
	buf_reset(&line);
	buf_addf(&line, "%s\n", head);
	(void)put(dfd, adm, "ORIG_HEAD", line.data, line.len);
	close(dfd);
	buf_free(&b);
	buf_free(&line);
}

/*
 * The copy's registration: what its .git file names, which must be one
 * of common's worktrees, pointing back at the copy, locked by the run.
 * A .git file a command rewrote to point elsewhere is not followed.
 */
char *
registration_of(const char *copy, const char *common, const char *run)
{
	struct buf	 b = BUF_INIT;
	char		*path, *adm = NULL, *want, *real, *base = NULL;
	char		*tag;
	int		 ok = 0;

	path = xasprintf("%s/.git", copy);
	if (fs_read_file(path, &b, 4096) == 0) {
		buf_rtrim(&b);
		if (b.data != NULL && strncmp(b.data, "gitdir: ", 8) == 0)
			adm = xstrdup(b.data + 8);
	}
	free(path);
	if (adm == NULL)
		goto out;
	if ((real = realpath(common, NULL)) != NULL) {
		base = xasprintf("%s/worktrees/", real);
		free(real);
	}
	if (base == NULL || strncmp(adm, base, strlen(base)) != 0 ||
	    strchr(adm + strlen(base), '/') != NULL ||
	    adm[strlen(base)] == '\0' || adm[strlen(base)] == '.')
		goto out;
	path = xasprintf("%s/gitdir", adm);
	want = xasprintf("%s/.git", copy);
	buf_reset(&b);
	if (fs_read_file(path, &b, 4096) == 0) {
		buf_rtrim(&b);
		ok = b.data != NULL && strcmp(b.data, want) == 0;
	}
	free(path);
	free(want);
	path = xasprintf("%s/locked", adm);
	tag = xasprintf("forge run %s ", run);
	buf_reset(&b);
	if (!ok || fs_read_file(path, &b, 4096) == -1 || b.data == NULL ||
	    strncmp(b.data, tag, strlen(tag)) != 0)
		ok = 0;
	free(path);
	free(tag);
out:
	free(base);
	buf_free(&b);
	if (!ok) {
		free(adm);
		return NULL;
	}
	return adm;
}
