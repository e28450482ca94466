/* The copy as a private clone, and its branches and tags fetched back. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clone.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_vis.h"
#include "git.h"
#include "repo.h"
#include "timeutil.h"
#include "xmalloc.h"

/* A value for a git config file or an alternates line, quoted: any path
 * at all survives it. */
static void
quote(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '"':
		case '\\':
			buf_addc(b, '\\');
			buf_addc(b, *s);
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		default:
			buf_addc(b, *s);
		}
	}
	buf_addc(b, '"');
}

/* Run git on the clone's git dir (and its working tree, if wt). */
static int
in_clone(const char *gitdir, const char *wt, const char *const *args,
    const struct buf *in, struct buf *out, const struct spawn_idle *idle)
{
	struct git	g;
	struct buf	err = BUF_INIT;
	int		st;

	memset(&g, 0, sizeof(g));
	g.dir = wt != NULL ? wt : gitdir;
	g.gitdir = gitdir;
	g.worktree = wt;
	g.idle = idle;
	if ((st = git_run(&g, args, 0, in, out, &err)) > 0)
		warnx("cannot make the clone: git %s: %s", args[0],
		    git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/* Append to a file of the clone's. */
static int
append(const char *path, const struct buf *b)
{
	ssize_t	w;
	size_t	off = 0;
	int	fd, ret = 0;

	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		warn("cannot write %s", fs_vis(path));
		return -1;
	}
	while (off < b->len) {
		if ((w = write(fd, b->data + off, b->len - off)) == -1) {
			if (errno == EINTR)
				continue;
			warn("cannot write %s", fs_vis(path));
			ret = -1;
			break;
		}
		off += (size_t)w;
	}
	if (close(fd) == -1 && ret == 0) {
		warn("cannot write %s", fs_vis(path));
		ret = -1;
	}
	return ret;
}

/*
 * The clone's config: the source's own (so filters, attributes, line
 * endings and identity are as in a worktree), then what is the clone's
 * alone.  git reads core.bare, core.worktree and the extensions from the
 * clone's own file only, never from an included one: what git init
 * wrote there stands, and nothing included points the clone back.
 */
static int
write_config(const struct clone_src *cs, const char *gd)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*path;
	int		 ret;

	buf_adds(&b, "[include]\n\tpath = ");
	path = xasprintf("%s/config", cs->common);
	quote(&b, path);
	free(path);
	buf_addc(&b, '\n');
	path = xasprintf("%s/config.worktree", cs->gitdir);
	if (lstat(path, &st) == 0) {
		buf_adds(&b, "\tpath = ");
		quote(&b, path);
		buf_addc(&b, '\n');
	}
	free(path);
	buf_adds(&b, "[core]\n\thooksPath = /dev/null\n\tfsmonitor = false\n");
	if (cs->sparse)
		buf_adds(&b, "\tsparseCheckout = true\n");
	path = xasprintf("%s/config", gd);
	ret = append(path, &b);
	free(path);
	buf_free(&b);
	return ret;
}

/* Borrow the source's objects, read-only; and its shallow boundary and
 * sparse patterns, if it has them. */
static int
borrow(const struct clone_src *cs, const char *gd)
{
	struct buf	 b = BUF_INIT;
	char		*from, *to;
	int		 ret = 0;

	if (strpbrk(cs->objects, "\"\\\n\t") != NULL || cs->objects[0] == '#')
		quote(&b, cs->objects);
	else
		buf_adds(&b, cs->objects);
	buf_addc(&b, '\n');
	to = xasprintf("%s/objects/info/alternates", gd);
	if (fs_write_atomic(to, b.data, b.len, 0644) == -1) {
		warn("cannot write %s", fs_vis(to));
		ret = -1;
	}
	free(to);
	buf_free(&b);
	from = xasprintf("%s/shallow", cs->common);
	to = xasprintf("%s/shallow", gd);
	if (ret == 0 && fs_copy_file(from, to) == -1 && errno != ENOENT) {
		warn("cannot copy %s", fs_vis(from));
		ret = -1;
	}
	free(from);
	free(to);
	if (ret == 0 && cs->sparse) {
		from = xasprintf("%s/info/sparse-checkout", cs->gitdir);
		to = xasprintf("%s/info", gd);
		if (fs_mkdirs(to, 0777) == -1) {
			warn("cannot create %s", fs_vis(to));
			ret = -1;
		}
		free(to);
		to = xasprintf("%s/info/sparse-checkout", gd);
		if (ret == 0 && fs_copy_file(from, to) == -1 &&
		    errno != ENOENT) {
			warn("cannot copy %s", fs_vis(from));
			ret = -1;
		}
		free(from);
		free(to);
	}
	return ret;
}

/*
 * Every ref of the source but forge's own results, created in the clone;
 * HEAD on the source's branch, or detached.  start gets the refs as
 * listed.  With the files backend, the refs are written as the clone's
 * packed-refs file (its format is git's documented one, lines of "<id>
 * <ref>" that git sorts and peels itself without the header's traits),
 * as git clone writes them: one file, where git update-ref would write
 * one file per ref, and a repository can have thousands.  Otherwise, in
 * one git update-ref transaction.
 */
static int
copy_refs(const struct clone_src *cs, const char *gd,
    const struct spawn_idle *idle, struct buf *start)
{
	const char *const	 list[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", NULL };
	const char *const	 symref[] = { "symbolic-ref", "-q", "HEAD",
	    NULL };
	const char *const	 update[] = { "update-ref", "--stdin", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT, in = BUF_INIT, head = BUF_INIT;
	struct buf		 err = BUF_INIT, packed = BUF_INIT;
	struct stat		 sb;
	const char		*p, *nl, *sp;
	char			*want, *path;
	int			 st, files, ret = -1;

	memset(&g, 0, sizeof(g));
	g.dir = cs->gitdir;
	g.gitdir = cs->gitdir;
	g.idle = idle;
	if ((st = git_run(&g, list, 0, NULL, &out, &err)) != 0 ||
	    ((st = git_run(&g, symref, 0, NULL, &head, &err)) != 0 &&
	    st != 1)) {
		if (st > 0)
			warnx("cannot list the refs of %s: %s",
			    fs_vis(cs->common), git_why(&err, st));
		goto out;
	}
	buf_rtrim(&head);
	buf_str(&head);
	buf_str(&out);
	path = xasprintf("%s/reftable", gd);
	files = lstat(path, &sb) == -1 && errno == ENOENT;
	free(path);
	buf_adds(&packed, "# pack-refs with: \n");
	for (p = out.data; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if ((sp = memchr(p, ' ', (size_t)(nl - p))) == NULL ||
		    strncmp(sp + 1, CLONE_REFS "/", strlen(CLONE_REFS) + 1) ==
		    0)
			continue;
		buf_adds(&in, "create ");
		buf_add(&in, sp + 1, (size_t)(nl - sp - 1));
		buf_addc(&in, ' ');
		buf_add(&in, p, (size_t)(sp - p));
		buf_addc(&in, '\n');
		buf_add(&packed, p, (size_t)(nl - p) + 1);
		buf_add(start, p, (size_t)(nl - p) + 1);
	}
	buf_str(start);
	/* On the branch only if the branch is at the commit being copied. */
	want = xasprintf("\n%s %s\n", cs->head, head.data);
	if (strncmp(head.data, "refs/heads/", 11) != 0 ||
	    (strncmp(start->data, want + 1, strlen(want + 1)) != 0 &&
	    strstr(start->data, want) == NULL)) {
		buf_reset(&head);
	}
	free(want);
	if (files && in.len > 0) {
		path = xasprintf("%s/packed-refs", gd);
		st = fs_write_atomic(path, packed.data, packed.len, 0644);
		if (st == -1)
			warn("cannot write %s", fs_vis(path));
		free(path);
		if (st == -1)
			goto out;
	} else if (in.len > 0 &&
	    in_clone(gd, NULL, update, &in, NULL, idle) == -1)
		goto out;
	/* HEAD apart from the refs: git init pointed it at a branch that
	 * may be among them, and one transaction cannot move both. */
	if (head.len > 0) {
		const char *const	 sym[] = { "symbolic-ref", "HEAD",
		    head.data, NULL };

		if (in_clone(gd, NULL, sym, NULL, NULL, idle) == -1)
			goto out;
	} else {
		const char *const	 detach[] = { "update-ref", "--no-deref",
		    "HEAD", cs->head, NULL };

		if (in_clone(gd, NULL, detach, NULL, NULL, idle) == -1)
			goto out;
	}
	ret = 0;
out:
	buf_free(&out);
	buf_free(&in);
	buf_free(&head);
	buf_free(&err);
	buf_free(&packed);
	return ret;
}

int
clone_add(const struct clone_src *cs, const char *dst,
    const struct spawn_idle *idle, char **gitdirp, char **startp)
{
	const char *const	 reset[] = { "reset", "--hard", "--quiet",
	    "--no-recurse-submodules", NULL };
	struct git		 g;
	struct strv		 a = STRV_INIT;
	struct buf		 err = BUF_INIT, start = BUF_INIT;
	char			*gd;
	int			 st;

	*gitdirp = *startp = NULL;
	/* Never in a directory that may be gone: the caller's. */
	memset(&g, 0, sizeof(g));
	g.dir = cs->gitdir;
	g.idle = idle;
	strv_push(&a, "init");
	strv_push(&a, "--quiet");
	strv_push(&a, "--template=");	/* no hooks, no samples */
	if (strlen(cs->head) == 64)
		strv_push(&a, "--object-format=sha256");
	strv_push(&a, "--");
	strv_push(&a, dst);
	st = git_run(&g, (const char *const *)a.v, 0, NULL, NULL, &err);
	strv_free(&a);
	if (st != 0) {
		if (st > 0)
			warnx("cannot make the clone: git init: %s",
			    git_why(&err, st));
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	gd = xasprintf("%s/.git", dst);
	if (borrow(cs, gd) == -1 || write_config(cs, gd) == -1 ||
	    copy_refs(cs, gd, idle, &start) == -1 ||
	    in_clone(gd, dst, reset, NULL, NULL, idle) == -1) {
		free(gd);
		buf_free(&start);
		return -1;
	}
	*gitdirp = gd;
	*startp = buf_detach(&start);
	return 0;
}

void
clone_moved(const char *start, const char *now, struct strv *moved)
{
	struct strv	 was = STRV_INIT;
	const char	*p, *nl, *sp;
	char		*line;

	for (p = start; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		strv_pushn(&was, p, (size_t)(nl - p) + (*nl != '\n'));
	}
	strv_sort(&was);
	for (p = now; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		line = xstrndup(p, (size_t)(nl - p) + (*nl != '\n'));
		if ((sp = strchr(line, ' ')) != NULL &&
		    (strncmp(sp + 1, "refs/heads/", 11) == 0 ||
		    strncmp(sp + 1, "refs/tags/", 10) == 0) &&
		    !strv_sorted_has(&was, line))
			strv_push(moved, sp + 1);
		free(line);
	}
	strv_free(&was);
}

/* Where a run's results are dated: its age is theirs. */
static char *
stamp_path(const char *common, const char *run)
{
	return forgedir_refstamp(common, run);
}

/* The date of a run's fetched refs written; -1 with a message. */
static int
stamp_write(const char *common, const char *run)
{
	char	*dir, *path, *line, ts[RFC3339_LEN];
	int	 ret = 0;

	dir = forgedir_refs(common);
	path = stamp_path(common, run);
	line = xasprintf("%s\n", timeutil_rfc3339(ts, time(NULL)));
	if (fs_mkdirs(dir, 0777) == -1 || fs_write_atomic(path, line,
	    strlen(line), 0644) == -1) {
		warn("cannot write %s", fs_vis(path));
		ret = -1;
	}
	free(dir);
	free(path);
	free(line);
	return ret;
}

int
clone_results(const struct repo *r, const char *clonegit, const char *start,
    const char *run, struct strv *refs)
{
	const char *const	 list[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", "refs/heads", "refs/tags",
	    NULL };
	struct git		 g;
	struct strv		 moved = STRV_INIT, a = STRV_INIT;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	struct stat		 st;
	const char		*p, *nl;
	size_t			 i;
	int			 s, ret = -1;

	/* The command may have replaced .git: only a directory is the
	 * clone forge made (a symlink could lead anywhere). */
	if (lstat(clonegit, &st) == -1 || !S_ISDIR(st.st_mode)) {
		warnx("no results to fetch: %s is no longer the clone's git "
		    "directory", fs_vis(clonegit));
		return -1;
	}
	memset(&g, 0, sizeof(g));
	g.dir = clonegit;
	g.gitdir = clonegit;
	if ((s = git_run(&g, list, 0, NULL, &out, &err)) != 0) {
		if (s > 0)
			warnx("cannot list the clone's refs: %s",
			    git_why(&err, s));
		goto out;
	}
	buf_str(&out);
	clone_moved(start, out.data, &moved);
	if (moved.n == 0) {
		ret = 0;
		goto out;
	}
	/* Dated before they exist: forge gc never finds them undated. */
	if (stamp_write(r->common, run) == -1)
		goto out;
	strv_push(&a, "-c");
	strv_push(&a, "protocol.file.allow=always");
	strv_push(&a, "fetch");
	strv_push(&a, "--quiet");
	strv_push(&a, "--no-tags");
	strv_push(&a, "--no-prune");
	strv_push(&a, "--no-recurse-submodules");
	strv_push(&a, "--no-auto-gc");
	strv_push(&a, "--no-write-commit-graph");
	if (git_has(GIT_FETCH_NO_HEAD))
		strv_push(&a, "--no-write-fetch-head");
	strv_push(&a, "--");
	strv_push(&a, clonegit);
	for (i = 0; i < moved.n; i++)
		strv_pushf(&a, "+%s:%s/%s/%s", moved.v[i], CLONE_REFS, run,
		    moved.v[i] + 5);
	repo_git(r, &g);
	buf_reset(&err);
	if ((s = git_run(&g, (const char *const *)a.v, 0, NULL, NULL,
	    &err)) != 0) {
		if (s > 0)
			warnx("cannot fetch the copy's branches and tags: git "
			    "fetch: %s", git_why(&err, s));
		goto out;
	}
	/* What arrived, as the real repository has it now. */
	strv_clear(&a);
	strv_push(&a, "for-each-ref");
	strv_push(&a, "--format=%(refname) %(objectname)");
	strv_pushf(&a, "%s/%s/", CLONE_REFS, run);
	buf_reset(&out);
	if ((s = git_run(&g, (const char *const *)a.v, 0, NULL, &out,
	    &err)) != 0) {
		if (s > 0)
			warnx("cannot list the fetched refs: %s",
			    git_why(&err, s));
		goto out;
	}
	buf_str(&out);
	for (p = out.data; *p != '\0' && (nl = strchr(p, '\n')) != NULL;
	    p = nl + 1)
		strv_pushn(refs, p, (size_t)(nl - p));
	ret = 0;
out:
	strv_free(&moved);
	strv_free(&a);
	buf_free(&out);
	buf_free(&err);
	return ret;
}

/* Does a run of this id live (its journal record is locked)? */
static int
run_alive(const char *common, const char *run)
{
	char	*path;
	int	 fd, alive = 0;

	path = forgedir_record(common, run);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) != -1) {
		alive = flock(fd, LOCK_SH | LOCK_NB) == -1 &&
		    errno == EWOULDBLOCK;
		close(fd);
	}
	free(path);
	return alive;
}

/* Are a run's results older than expiry?  Undated ones are. */
static int
expired(const char *common, const char *run, long long expiry)
{
	struct stat	 st;
	char		*path;
	int		 old;

	if (expiry == 0)
		return 1;
	path = stamp_path(common, run);
	old = lstat(path, &st) == -1 ||
	    (long long)(time(NULL) - st.st_mtime) * 1000 >= expiry;
	free(path);
	return old;
}

int
clone_refs_gc(const char *common, const char *gitdir, long long expiry,
    int flags, struct strv *removed)
{
	const char *const	 list[] = { "for-each-ref",
	    "--format=%(objectname) %(refname)", CLONE_REFS "/", NULL };
	const char *const	 update[] = { "update-ref", "--stdin", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT, err = BUF_INIT, in = BUF_INIT;
	struct strv		 runs = STRV_INIT;
	const char		*p, *nl, *ref, *id, *slash;
	char			*run = NULL, *path;
	size_t			 i, n = 0;
	int			 st, ret = -1, gone = 0;

	/* forge gc may run in a kept copy it has just removed: git runs
	 * in the git dir, never in a directory that is gone. */
	memset(&g, 0, sizeof(g));
	g.dir = gitdir;
	g.gitdir = gitdir;
	if ((st = git_run(&g, list, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot list %s: %s", CLONE_REFS,
			    git_why(&err, st));
		goto out;
	}
	buf_str(&out);
	/* Listed in order: a run's refs are together. */
	for (p = out.data; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		if ((ref = memchr(p, ' ', (size_t)(nl - p))) == NULL)
			continue;
		id = ref + 1 + strlen(CLONE_REFS) + 1;
		if (id >= nl || (slash = memchr(id, '/',
		    (size_t)(nl - id))) == NULL)
			continue;	/* no run of forge's */
		if (run == NULL || strlen(run) != (size_t)(slash - id) ||
		    strncmp(run, id, (size_t)(slash - id)) != 0) {
			if (run != NULL && n > 0)
				strv_pushf(removed, "%zu ref%s of forge run %s", n,
				    n == 1 ? "" : "s", run);
			free(run);
			run = xstrndup(id, (size_t)(slash - id));
			n = 0;
			if ((gone = !run_alive(common, run) &&
			    expired(common, run, expiry)))
				strv_push(&runs, run);
		}
		if (!gone)
			continue;
		n++;
		buf_adds(&in, "delete ");
		buf_add(&in, ref + 1, (size_t)(nl - ref - 1));
		buf_addc(&in, ' ');
		buf_add(&in, p, (size_t)(ref - p));
		buf_addc(&in, '\n');
	}
	if (run != NULL && n > 0)
		strv_pushf(removed, "%zu ref%s of forge run %s", n,
		    n == 1 ? "" : "s", run);
	if (in.len > 0 && !(flags & CLONE_GC_DRY_RUN)) {
		buf_reset(&err);
		if ((st = git_run(&g, update, 0, &in, NULL, &err)) != 0) {
			if (st > 0)
				warnx("cannot remove the refs of forge runs: "
				    "git update-ref: %s", git_why(&err, st));
			strv_clear(removed);
			goto out;
		}
	}
	if (!(flags & CLONE_GC_DRY_RUN))
		for (i = 0; i < runs.n; i++) {
			path = stamp_path(common, runs.v[i]);
			(void)unlink(path);
			free(path);
		}
	ret = 0;
out:
	free(run);
	strv_free(&runs);
	buf_free(&out);
	buf_free(&err);
	buf_free(&in);
	return ret;
}
