/* Changed files that are copied whole rather than patched. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigfile.h"
#include "buf.h"
#include "fs.h"
#include "fs_vis.h"
#include "lsfiles.h"
#include "patch.h"
#include "pathcopy.h"
#include "xmalloc.h"

enum { STEP_WAIT, STEP_RAW, STEP_SIZES, STEP_DIFF, STEP_DONE };

/* git's buffer_is_binary(): a NUL in the first 8000 bytes. */
#define FIRST_FEW_BYTES	8000

int
bigfile_is_binary(const char *p, size_t len)
{
	return memchr(p, '\0', len < FIRST_FEW_BYTES ? len :
	    FIRST_FEW_BYTES) != NULL;
}

static int
regular_mode(unsigned m)
{
	return m == 0100644 || m == 0100755;
}

int
bigfile_parse_raw(const char *p, size_t len, struct strv *changed,
    struct strv *gone, struct strv *want, struct strv *big,
    int (*isbig)(const char *, void *), void *arg)
{
	const char		*end = p + len;
	struct lsfiles_change	 c;
	int			 r;

	while ((r = lsfiles_raw_next(&p, end, &c)) == 1) {
		/* Gitlinks: the patch's, which leaves submodules alone. */
		if (c.old_mode == 0160000 || c.new_mode == 0160000)
			continue;
		strv_push(changed, c.path);
		/* Not in the index: whatever is on disk there is untracked
		 * (or ignored), for others to copy, or not. */
		if (c.new_mode == 0)
			strv_push(gone, c.path);
		else if (isbig(c.path, arg) == 1) {
			strv_push(big, c.path);
			continue;
		}
		if (regular_mode(c.old_mode) &&
		    strspn(c.old_oid, "0") < c.oidlen)
			strv_pushf(want, "%06o %.*s\t%s", c.old_mode,
			    (int)c.oidlen, c.old_oid, c.path);
	}
	return r;
}

/* Is path, or a directory above it, in the sorted vector v? */
static int
at_or_below(const struct strv *v, const char *path)
{
	char	*c = xstrdup(path), *slash;
	int	 found;

	found = strv_sorted_has(v, c);
	while (!found && (slash = strrchr(c, '/')) != NULL) {
		*slash = '\0';
		found = strv_sorted_has(v, c);
	}
	free(c);
	return found;
}

void
bigfile_close(struct strv *big, const struct strv *changed)
{
	struct strv	more = STRV_INIT;
	size_t		i;

	if (big->n == 0)
		return;
	strv_sort_uniq(big);
	for (i = 0; i < changed->n; i++)
		if (strchr(changed->v[i], '/') != NULL &&
		    !strv_sorted_has(big, changed->v[i]) &&
		    at_or_below(big, changed->v[i]))
			strv_push(&more, changed->v[i]);
	if (more.n == 0)
		return;
	for (i = 0; i < more.n; i++)
		strv_push(big, more.v[i]);
	strv_free(&more);
	bigfile_close(big, changed);
}

/* A directory of a tree, walked to without following symlinks, and kept
 * open for the next path in it. */
struct dircache {
	int		 root, fd;
	struct buf	 cur;
	int		 have;
	long long	 threshold;	/* of big_on_disk() */
};

static int
dc_open(struct dircache *dc, const char *top, long long threshold)
{
	memset(dc, 0, sizeof(*dc));
	dc->fd = -1;
	dc->threshold = threshold;
	dc->root = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dc->root == -1 ? -1 : 0;
}

/* The directory of path (-1 if there is none), and its last component. */
static int
dc_dir(struct dircache *dc, const char *path, const char **base)
{
	const char	*slash = strrchr(path, '/');
	size_t		 dlen = slash != NULL ? (size_t)(slash - path) : 0;

	*base = slash != NULL ? slash + 1 : path;
	if (dc->have && dc->cur.len == dlen &&
	    memcmp(dc->cur.data, path, dlen) == 0)
		return dc->fd;
	if (dc->fd != -1 && dc->fd != dc->root)
		close(dc->fd);
	buf_reset(&dc->cur);
	buf_add(&dc->cur, path, dlen);
	dc->have = 1;
	dc->fd = dlen == 0 ? dc->root : fs_open_dir(dc->root, dc->cur.data, 0,
	    0);
	return dc->fd;
}

static void
dc_close(struct dircache *dc)
{
	if (dc->fd != -1 && dc->fd != dc->root)
		close(dc->fd);
	if (dc->root != -1)
		close(dc->root);
	buf_free(&dc->cur);
}

/* 1: a regular file larger than the threshold, or binary; 0: another
 * regular file; -1: no regular file there. */
static int
big_on_disk(const char *path, void *arg)
{
	struct dircache	*dc = arg;
	struct stat	 st;
	const char	*base;
	char		 b[FIRST_FEW_BYTES];
	ssize_t		 n;
	size_t		 got = 0;
	int		 dir, fd, r;

	if ((dir = dc_dir(dc, path, &base)) == -1 ||
	    fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISREG(st.st_mode))
		return -1;
	if (st.st_size > dc->threshold)
		return 1;
	if ((fd = openat(dir, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1)
		return 0;
	while (got < sizeof(b) && (n = read(fd, b + got, sizeof(b) - got)) !=
	    0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	r = bigfile_is_binary(b, got);
	return r;
}

static char *
path_of(const struct bigfile *b, const char *what)
{
	return xasprintf("%s.%s", b->prefix, what);
}

static void
start(struct bigfile *b, const char *const *args, const char *in)
{
	char	*out = path_of(b, "out"), *err = path_of(b, "err");

	if (git_start(&b->job, &b->g, args, in, out, err) == -1)
		b->failed = 1;
	free(out);
	free(err);
}

static int
read_out(const struct bigfile *b, struct buf *out)
{
	char	*p = path_of(b, "out");
	int	 ret;

	buf_reset(out);
	if ((ret = fs_read_file(p, out, (size_t)1 << 30)) == -1)
		warn("cannot read %s", fs_vis(p));
	free(p);
	return ret;
}

/* Which files are big is known: the patch of the rest is made now, in
 * the background too. */
static void
finalize(struct bigfile *b)
{
	char	*err;
	size_t	 i, bytes = 0;
	int	 fd;

	bigfile_close(&b->paths, &b->changed);
	/* The working state is HEAD's: git diff would find nothing. */
	if (b->changed.n == 0 && b->gone.n == 0 && (fd = open(b->patch,
	    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) !=
	    -1) {
		close(fd);
		b->diff_ok = 1;
		b->step = STEP_DONE;
		return;
	}
	for (i = 0; i < b->paths.n; i++)
		bytes += strlen(b->paths.v[i]) + 20;
	if (b->paths.n > BIGFILE_MAX || bytes > BIGFILE_MAX_BYTES) {
		if (b->verbose)
			fprintf(stderr, "forge: %zu big changed files: too "
			    "many to leave out of the patch, which carries "
			    "them all\n", b->paths.n);
		strv_clear(&b->paths);
	}
	b->step = STEP_DIFF;
	err = path_of(b, "err");
	/* Should it not start, the patch is made when it is needed. */
	if (patch_start(&b->job, &b->g, b->head, &b->paths, b->patch, err) ==
	    -1)
		b->step = STEP_DONE;
	free(err);
}

/* git diff-index has listed the changes: judge each, and ask git the size
 * in HEAD of those that may have been big there. */
static void	ask_sizes(struct bigfile *);

static void
end_raw(struct bigfile *b)
{
	struct dircache		 dc;
	struct buf		 out = BUF_INIT;

	if (read_out(b, &out) == -1) {
		b->failed = 1;
		goto out;
	}
	if (dc_open(&dc, b->g.dir, b->threshold) == -1) {
		warn("cannot open %s", fs_vis(b->g.dir));
		b->failed = 1;
		goto out;
	}
	if (bigfile_parse_raw(out.data != NULL ? out.data : "", out.len,
	    &b->changed, &b->gone, &b->asked, &b->paths, big_on_disk,
	    &dc) == -1) {
		warnx("cannot parse the output of git diff-index");
		b->failed = 1;
	}
	dc_close(&dc);
	if (!b->failed)
		ask_sizes(b);
out:
	buf_free(&out);
}

/* Ask git cat-file the size in HEAD of each path asked (an entry, "mode
 * oid\tpath", lsfiles.h; of mode 0 for the path in HEAD), or go on
 * without if none. */
static void
ask_sizes(struct bigfile *b)
{
	const char *const	 args[] = { "cat-file", "--batch-check", NULL };
	struct lsfiles_entry	 e;
	struct buf		 in = BUF_INIT;
	char			*inp;
	size_t			 i;

	strv_sort(&b->gone);
	if (b->asked.n == 0) {
		finalize(b);
		return;
	}
	for (i = 0; i < b->asked.n; i++) {
		if (lsfiles_entry_parse(b->asked.v[i], &e) == -1)
			abort();	/* made here */
		if (e.mode == 0)
			buf_addf(&in, "%s:%s", b->head, e.path);
		else
			buf_add(&in, e.oid, e.oidlen);
		buf_addc(&in, '\n');
	}
	inp = path_of(b, "in");
	if (fs_write_atomic(inp, in.data, in.len, 0600) == -1) {
		warn("cannot write %s", fs_vis(inp));
		b->failed = 1;
	} else {
		b->step = STEP_SIZES;
		start(b, args, inp);
	}
	free(inp);
	buf_free(&in);
}

/* "oid blob size" for each path asked, in order. */
static void
end_sizes(struct bigfile *b)
{
	struct buf	 out = BUF_INIT;
	const char	*p, *end, *nl, *sp;
	size_t		 i;

	if (read_out(b, &out) == -1) {
		b->failed = 1;
		return;
	}
	p = out.data != NULL ? out.data : "";
	end = p + out.len;
	for (i = 0; i < b->asked.n && p < end; i++, p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		if (sp > p && strtoll(sp, NULL, 10) > b->threshold)
			strv_push(&b->paths,
			    lsfiles_entry_path(b->asked.v[i]));
	}
	buf_free(&out);
	finalize(b);
}

static void
end_step(struct bigfile *b, int st)
{
	struct buf	err = BUF_INIT;
	char		*p;

	if (b->step == STEP_DIFF) {
		/* Failed: the patch is made again, when needed, and then
		 * whatever went wrong is said. */
		b->diff_ok = st == 0;
		b->step = STEP_DONE;
		patch_note_peak(b->job.maxrss_kb);
		return;
	}
	if (st != 0) {
		if (st > 0) {
			p = path_of(b, "err");
			(void)fs_read_file(p, &err, 1 << 20);
			free(p);
			warnx("cannot read the uncommitted changes: git %s: %s",
			    b->step == STEP_RAW ? "diff-index" : "cat-file",
			    git_why(&err, st));
			buf_free(&err);
		}
		b->failed = 1;
		return;
	}
	if (b->step == STEP_RAW)
		end_raw(b);
	else
		end_sizes(b);
}

static void
start_raw(struct bigfile *b)
{
	const char *const	 args[] = { "diff-index", "-z", "--no-renames",
	    "--ignore-submodules=all", b->head, "--", NULL };
	/* The same raw lines, of the files whose content changed. */
	const char *const	 every[] = { "diff", "-z", "--raw", "--no-abbrev",
	    "--no-renames", "--no-ext-diff", "--no-textconv",
	    "--ignore-submodules=all", b->head, "--", NULL };

	b->step = STEP_RAW;
	start(b, b->every ? every : args, NULL);
}

void
bigfile_feed(struct bigfile *b, const struct strv *changed)
{
	struct dircache	 dc;
	struct stat	 st;
	const char	*path, *base;
	ssize_t		 e;
	size_t		 i;
	int		 dir;

	if (b == NULL || b->step != STEP_WAIT)
		return;
	if (changed == NULL) {
		start_raw(b);
		return;
	}
	if (dc_open(&dc, b->g.dir, b->threshold) == -1) {
		start_raw(b);
		return;
	}
	for (i = 0; i < changed->n; i++) {
		path = changed->v[i];
		strv_push(&b->changed, path);
		if ((e = entlist_find(b->entries, path)) == -1) {
			/* Untracked, or a conflict, if a file is there:
			 * not ours.  Gone, if not (a directory is no file):
			 * only its size in HEAD counts (one line a path for
			 * cat-file: not with a newline). */
			if ((dir = dc_dir(&dc, path, &base)) != -1 &&
			    fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISDIR(st.st_mode))
				continue;
			strv_push(&b->gone, path);
			if (strchr(path, '\n') == NULL)
				strv_pushf(&b->asked, "0 0\t%s", path);
		} else if (big_on_disk(path, &dc) == 1)
			strv_push(&b->paths, path);
		else if (regular_mode(entlist_mode(b->entries, (size_t)e)))
			/* Its size in the index: in HEAD, unless staged. */
			entlist_put(b->entries, (size_t)e, &b->asked);
	}
	dc_close(&dc);
	ask_sizes(b);
}

struct bigfile *
bigfile_begin(const struct git *src, const char *head, const char *scratch,
    const char *tag, const struct entlist *entries, long long threshold,
    int verbose)
{
	struct bigfile		*b;

	b = xcalloc(1, sizeof(*b));
	b->every = threshold == BIGFILE_EVERY;
	b->threshold = b->every ? 0 : threshold;
	b->verbose = verbose;
	b->g = *src;
	b->g.idle = NULL;
	b->head = xstrdup(head);
	b->prefix = xasprintf("%s/big-%s", scratch, tag);
	b->patch = path_of(b, "patch");
	b->job.done = 1;
	b->entries = entries;
	if (entries != NULL && !b->every)
		b->step = STEP_WAIT;	/* for bigfile_feed() */
	else
		start_raw(b);
	return b;
}

void
bigfile_poll(struct bigfile *b)
{
	while (b != NULL && !b->failed && b->step != STEP_WAIT &&
	    b->step != STEP_DONE && git_done(&b->job))
		end_step(b, b->job.status);
}

int
bigfile_finish(struct bigfile *b)
{
	/* No list came in time: git diff-index makes one. */
	bigfile_feed(b, NULL);
	while (!b->failed && b->step != STEP_DONE)
		end_step(b, b->job.done ? b->job.status :
		    git_finish(&b->job));
	if (!b->job.done)
		(void)git_finish(&b->job);
	return b->failed ? -1 : 0;
}

const char *
bigfile_patch(const struct bigfile *b)
{
	return b->diff_ok ? b->patch : NULL;
}

/* Remove path from the copy if it is no directory, then the directories
 * above it that this leaves empty, as git does. */
static int
clear_one(int root, const char *path)
{
	char		*dir = xstrdup(path), *slash;
	const char	*base;
	int		 fd, ret = 0, flags = 0;

	for (;;) {
		slash = strrchr(dir, '/');
		if (slash != NULL) {
			*slash = '\0';
			base = slash + 1;
			fd = fs_open_dir(root, dir, 0, 0);
		} else {
			base = dir;
			fd = root;
		}
		if (fd == -1)
			break;		/* nothing there to remove */
		if (unlinkat(fd, base, flags) == -1) {
			if (flags == 0 && errno != ENOENT && errno != EISDIR &&
			    errno != ENOTDIR && errno != EPERM)
				ret = -1;
			if (fd != root)
				close(fd);
			break;
		}
		if (fd != root)
			close(fd);
		if (slash == NULL)
			break;
		flags = AT_REMOVEDIR;
	}
	free(dir);
	return ret;
}

int
bigfile_clear(const struct bigfile *b, const char *dst)
{
	size_t	i;
	int	root, ret = 0;

	if (b->paths.n == 0)
		return 0;
	if ((root = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		warn("cannot open %s", fs_vis(dst));
		return -1;
	}
	/* Deepest first, for the directories they leave empty. */
	for (i = b->paths.n; i-- > 0 && ret == 0;)
		if (clear_one(root, b->paths.v[i]) == -1) {
			warn("cannot remove %s from the copy",
			    fs_vis(b->paths.v[i]));
			ret = -1;
		}
	close(root);
	return ret;
}

int
bigfile_copy(const struct bigfile *b, const char *src, const char *dst,
    const char *rel)
{
	struct pathcopy	 pc;
	struct stat	 st;
	long long	 bytes = 0;
	size_t		 i, n = 0;
	int		 r, ret = 0;

	if (b->paths.n == 0)
		return 0;
	if (pathcopy_open(&pc, src, dst) == -1) {
		warn("cannot open %s", fs_vis(src));
		return -1;
	}
	for (i = 0; i < b->paths.n && ret == 0; i++) {
		if (strv_sorted_has(&b->gone, b->paths.v[i]))
			continue;	/* deleted: cleared, and that is all */
		/* As the patch would write it: a checkout's mode. */
		if ((r = pathcopy_checkout(&pc, b->paths.v[i], &st)) == 0) {
			if (b->verbose && n < 10)
				fprintf(stderr, "forge: copied whole, not "
				    "patched: %s%s (%lld bytes)\n",
				    fs_vis(rel), fs_vis(b->paths.v[i]),
				    (long long)st.st_size);
			bytes += S_ISREG(st.st_mode) ? st.st_size : 0;
			n++;
			continue;
		}
		if (r == 1 || (errno == EINVAL && S_ISDIR(st.st_mode)))
			continue;	/* gone, or a directory: no file */
		if (errno == EINVAL)
			warnx("skipping %s%s: a %s, not a file or symlink",
			    fs_vis(rel), fs_vis(b->paths.v[i]),
			    fs_vis_type(st.st_mode));
		else if (errno == ENOSPC || errno == EDQUOT ||
		    errno == EFBIG) {
			/* As patch.c says it: a disk too small. */
			warnx("cannot write the uncommitted changes into the "
			    "copy: %s (in %s, copying %s%s): stopping before "
			    "running anything", strerror(errno), fs_vis(dst),
			    fs_vis(rel), fs_vis(b->paths.v[i]));
			ret = -1;
		} else {
			warn("cannot copy %s%s", fs_vis(rel),
			    fs_vis(b->paths.v[i]));
			ret = -1;
		}
	}
	pathcopy_close(&pc);
	if (b->verbose && n > 10)
		fprintf(stderr, "forge: ... and %zu more\n", n - 10);
	if (b->verbose && n > 0)
		fprintf(stderr, "forge: %zu changed file%s copied whole, not "
		    "patched: %lld bytes\n", n, n == 1 ? "" : "s", bytes);
	return ret;
}

void
bigfile_free(struct bigfile *b)
{
	static const char *const what[] = { "in", "out", "err", "patch" };
	size_t	 i;
	char	*p;

	if (b == NULL)
		return;
	if (!b->job.done)
		(void)git_finish(&b->job);
	for (i = 0; i < sizeof(what) / sizeof(*what); i++) {
		p = path_of(b, what[i]);
		(void)unlink(p);
		free(p);
	}
	strv_free(&b->paths);
	strv_free(&b->changed);
	strv_free(&b->gone);
	strv_free(&b->asked);
	free(b->head);
	free(b->prefix);
	free(b->patch);
	free(b);
}
