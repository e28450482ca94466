/*
 * Building, proving and removing the ephemeral copy of a working state.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "sig.h"
#include "snapshot.h"
#include "spawn.h"
#include "treeid.h"
#include "xmalloc.h"

enum { ST_NEW, ST_LIVE, ST_GONE, ST_KEPT };

/* One repository of the copy: the top one, or a nested one. */
struct snap_repo {
	char		*src;		/* its working tree */
	char		*gitdir;
	char		*common;
	char		*objects;
	char		*index;		/* the index describing it */
	const char	*user_index;	/* the caller's GIT_INDEX_FILE */
	char		*head;		/* the commit checked out */
	char		*dst;		/* its copy */
	char		*dst_gitdir;	/* the copy's registration */
	char		*rel;		/* dst below the top copy */
	struct strv	 reflag;	/* for treeid.h */
	struct strv	 exclude;
};

static int	copy_repo(struct snapshot *, struct snap_repo *);

/*
 * For the test suite: FORGE_TEST_STALL=<phase> makes forge announce the
 * phase on stderr and wait there -- until a signal comes, or until the
 * file FORGE_TEST_STALL_RELEASE names exists, or a minute has passed --
 * so a test can act at that exact point.  The phases are journal,
 * checkout, apply, untracked and proof.
 */
static void
test_stall(const char *phase)
{
	const char	*want = getenv("FORGE_TEST_STALL");
	const char	*release = getenv("FORGE_TEST_STALL_RELEASE");
	long long	 until;
	struct stat	 st;

	if (want == NULL || strcmp(want, phase) != 0)
		return;
	fprintf(stderr, "forge: test stall: %s\n", phase);
	until = spawn_now_ms() + 60000;
	while (!sig_pending() && spawn_now_ms() < until &&
	    (release == NULL || stat(release, &st) == -1)) {
		struct pollfd	pfd;

		pfd.fd = sig_fd();
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, 50);
		sig_drain();
	}
}

void
lsfiles_free(struct lsfiles *l)
{
	strv_free(&l->untracked);
	strv_free(&l->nested);
	strv_free(&l->flagged);
	memset(l, 0, sizeof(*l));
}

/*
 * Records are "? path" for untracked paths (a nested repository ends
 * in '/') and "T mode oid stage\tpath" for index entries, where T is
 * 'S' for skip-worktree and lower case for assume-unchanged.
 */
int
lsfiles_parse(const char *p, size_t len, struct lsfiles *l)
{
	const char	*end = p + len, *rec, *tab, *path;
	size_t		 rlen, plen;
	int		 tag;

	memset(l, 0, sizeof(*l));
	while (p < end) {
		rec = p;
		rlen = strnlen(rec, (size_t)(end - p));
		p += rlen + 1;
		if (rlen < 3 || rec[1] != ' ')
			return -1;
		tag = (unsigned char)rec[0];
		if (tag == '?') {
			path = rec + 2;
			plen = rlen - 2;
			if (path[plen - 1] == '/')
				strv_pushn(&l->nested, path, plen - 1);
			else
				strv_pushn(&l->untracked, path, plen);
		} else {
			if ((tab = memchr(rec, '\t', rlen)) == NULL)
				return -1;
			path = tab + 1;
			plen = rlen - (size_t)(path - rec);
			/* Only stage 0: a conflict is what is on disk. */
			if (tab < rec + 4 || tab[-1] != '0' || tab[-2] != ' ')
				goto len;
			if (strncmp(rec + 2, "160000 ", 7) == 0) {
				strv_pushn(&l->nested, path, plen);
			} else if (tag == 'S' || islower(tag)) {
				struct buf	f = BUF_INIT;

				/* "mode oid\tpath", as update-index takes */
				buf_add(&f, rec + 2, (size_t)(tab - 2 -
				    (rec + 2)));
				buf_addc(&f, '\t');
				buf_add(&f, path, plen);
				strv_push(&l->flagged, f.data);
				buf_free(&f);
			}
			/* 's': skip-worktree and assume-unchanged. */
			if (tag == 'S' || tag == 's')
				l->sparse = 1;
		}
len:
		if (plen > l->maxlen)
			l->maxlen = plen;
	}
	return 0;
}

static void
sr_free(struct snap_repo *sr)
{
	free(sr->src);
	free(sr->gitdir);
	free(sr->common);
	free(sr->objects);
	free(sr->index);
	free(sr->head);
	free(sr->dst);
	free(sr->dst_gitdir);
	free(sr->rel);
	strv_free(&sr->reflag);
	strv_free(&sr->exclude);
	free(sr);
}

/* The git context for reading a source repository's working state. */
static void
src_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->src;
	g->gitdir = sr->gitdir;
	g->worktree = sr->src;
	g->index = sr->user_index;
}

static void
dst_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->dst;
	g->gitdir = sr->dst_gitdir;
	g->worktree = sr->dst;
}

static void
on_exit_remove(void *arg)
{
	struct snapshot	*s = arg;

	if (s->state == ST_LIVE)
		(void)snapshot_remove(s);
}

/*
 * $TMPDIR, resolved: git records a worktree by its real path, and the
 * journal must name the copy the same way to find its registration.
 */
static char *
tmpdir(void)
{
	const char	*t = getenv("TMPDIR");
	char		*d, *real;
	size_t		 n;

	if (t == NULL || *t == '\0')
		t = "/tmp";
	d = path_absolute(t);
	if ((real = realpath(d, NULL)) != NULL) {
		free(d);
		d = real;
	}
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	return d;
}

static int
check_tmpdir(const char *d)
{
	struct stat	st;

	if (stat(d, &st) == -1) {
		warn("TMPDIR %s", d);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		warnx("TMPDIR %s is not a directory", d);
		return -1;
	}
	if (access(d, W_OK | X_OK) == -1) {
		warn("TMPDIR %s is not writable", d);
		return -1;
	}
	return 0;
}

/* What `gitdir: <path>` in a worktree's .git file says. */
static char *
read_gitfile(const char *wt)
{
	struct buf	 b = BUF_INIT;
	char		*path, *r = NULL;

	path = xasprintf("%s/.git", wt);
	if (fs_read_file(path, &b, 1 << 16) == 0) {
		buf_rtrim(&b);
		if (strncmp(b.data, "gitdir: ", 8) == 0)
			r = xstrdup(b.data + 8);
	}
	free(path);
	buf_free(&b);
	if (r != NULL && r[0] != '/') {
		char	*abs = xasprintf("%s/%s", wt, r);

		free(r);
		r = abs;
	}
	return r;
}

static int
list_files(struct snap_repo *sr, struct lsfiles *l)
{
	const char *const	 a[] = { "ls-files", "-z", "-v", "-s", "-c",
	    "-o", "--exclude-standard", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	int			 st;

	src_git(sr, &g);
	if ((st = git_run(&g, a, 0, NULL, &out, NULL)) != 0) {
		if (st > 0)
			warnx("git ls-files failed in %s: %s",
			    fs_vis(sr->src), git_error());
		buf_free(&out);
		return -1;
	}
	if (lsfiles_parse(out.data != NULL ? out.data : "", out.len, l) ==
	    -1) {
		warnx("cannot parse the output of git ls-files");
		buf_free(&out);
		return -1;
	}
	buf_free(&out);
	return 0;
}

static int
sparse_supported(struct snap_repo *sr)
{
	const char *const	 a[] = { "config", "--type=bool", "--get",
	    "core.sparseCheckout", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	int			 sparse;

	if (git_version_at_least(2, 36))
		return 1;
	src_git(sr, &g);
	(void)git_run(&g, a, GIT_QUIET, NULL, &out, NULL);
	sparse = out.data != NULL && strncmp(out.data, "true", 4) == 0;
	buf_free(&out);
	if (sparse)
		warnx("%s is a sparse checkout: forge needs git 2.36 or later "
		    "to copy one (this is %s)", fs_vis(sr->src),
		    git_version_string());
	return !sparse;
}

/*
 * git worktree add says only "unable to write file" when the disk is
 * full, and cleans up after itself so the space is free again by the
 * time we look: compare what HEAD holds with what the file system has.
 */
static int
no_space(struct snap_repo *sr, const char *dir, struct buf *why)
{
	const char *const	 a[] = { "ls-tree", "-r", "-l", "-z",
	    "--full-tree", NULL };
	struct statvfs		 vfs;
	struct strv		 args = STRV_INIT;
	struct buf		 out = BUF_INIT;
	struct git		 g;
	unsigned long long	 need = 0, files = 0, avail;
	const char		*p, *end;
	char			*f, *e;
	int			 i, ret = 0;

	if (statvfs(dir, &vfs) == -1)
		return 0;
	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	for (i = 0; a[i] != NULL; i++)
		strv_push(&args, a[i]);
	strv_push(&args, sr->head);
	if (git_run(&g, (const char *const *)args.v, GIT_QUIET, NULL, &out,
	    NULL) != 0)
		goto out;
	/* "mode type oid size\tpath": the size is the fourth field. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		f = strchr(p, ' ');
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		if (f == NULL)
			break;
		need += strtoull(f + 1, &e, 10);
		files++;
	}
	avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	if (need > avail) {
		buf_addf(why, "No space left on device: %s has %llu KiB free, "
		    "HEAD holds %llu KiB", fs_vis(dir), avail / 1024,
		    need / 1024);
		ret = 1;
	} else if (vfs.f_files > 0 && files > vfs.f_favail) {
		buf_addf(why, "No space left on device: %s has %llu inodes "
		    "free, HEAD holds %llu files", fs_vis(dir),
		    (unsigned long long)vfs.f_favail, files);
		ret = 1;
	}
out:
	strv_free(&args);
	buf_free(&out);
	return ret;
}

static int
add_worktree(struct snapshot *s, struct snap_repo *sr)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	int		 st;

	if (journal_note_repo(&s->journal, sr->common) == -1)
		return -1;
	strv_push(&s->commons, sr->common);
	memset(&g, 0, sizeof(g));
	g.dir = sr->src;
	g.gitdir = sr->gitdir;
	strv_push(&a, "worktree");
	strv_push(&a, "add");
	strv_push(&a, "--detach");
	strv_push(&a, "--quiet");
	strv_push(&a, "--lock");
	strv_push(&a, "--reason");
	strv_pushf(&a, "forge run %s pid %ld: an ephemeral copy, removed "
	    "when forge exits (forge gc removes it if forge died)", s->run,
	    (long)getpid());
	strv_push(&a, "--");
	strv_push(&a, sr->dst);
	strv_push(&a, sr->head);
	st = git_run(&g, (const char *const *)a.v, GIT_RETRY, NULL, NULL,
	    NULL);
	strv_free(&a);
	if (st != 0) {
		if (st > 0) {
			struct buf	why = BUF_INIT;
			char		*said = xstrdup(git_error());

			if (no_space(sr, s->top, &why))
				warnx("cannot check out HEAD into the copy: %s",
				    why.data);
			else
				warnx("cannot check out HEAD into the copy: "
				    "git worktree add: %s", said);
			free(said);
			buf_free(&why);
		}
		return -1;
	}
	if ((sr->dst_gitdir = read_gitfile(sr->dst)) == NULL) {
		warnx("git worktree add left no .git file in %s",
		    fs_vis(sr->dst));
		return -1;
	}
	return 0;
}

static void
stream(struct spawn_stream *st, int fd, int write, struct buf *b, int relay)
{
	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->write = write;
	st->buf = b;
	st->relay_to = relay;
}

/*
 * git diff HEAD, streamed into git apply in the copy.  Every option that
 * user configuration could change in the patch text is fixed here.
 */
static int
apply_changes(struct snap_repo *sr)
{
	const char *const	 diff[] = { "-c", "diff.suppressBlankEmpty=false",
	    "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
	    "diff", "--binary", "--no-color", "--no-ext-diff",
	    "--no-textconv", "--full-index", "--no-renames", "--no-relative",
	    "-U3", "--src-prefix=a/", "--dst-prefix=b/",
	    "--ignore-submodules=all", "-O/dev/null", NULL };
	const char *const	 apply[] = { "-c", "apply.whitespace=nowarn",
	    "-c", "apply.ignoreWhitespace=no", "-c", "core.whitespace=",
	    "apply", "--whitespace=nowarn", "-p1", "-", NULL };
	struct spawn		 dsp = SPAWN_INIT, asp = SPAWN_INIT;
	struct spawn_stream	 st[5];
	struct spawn_exit	 dex, aex;
	struct strv		 dargv = STRV_INIT, denv = STRV_INIT;
	struct strv		 aargv = STRV_INIT, aenv = STRV_INIT;
	struct buf		 rd = BUF_INIT, pipe_buf = BUF_INIT;
	struct buf		 derr = BUF_INIT, aerr = BUF_INIT;
	struct buf		 junk = BUF_INIT;
	struct git		 g;
	size_t			 i, n;
	int			 r, ret = -1, started = 0;

	src_git(sr, &g);
	git_argv(&dargv, diff);
	strv_push(&dargv, sr->head);
	strv_push(&dargv, "--");
	git_env(&g, &denv);
	dsp.argv = dargv.v;
	dsp.env = denv.v;
	dsp.dir = sr->src;
	dsp.in = SPAWN_NULL;
	dsp.out = SPAWN_PIPE;
	dsp.err = SPAWN_PIPE;
	dsp.flags = SPAWN_TIED;
	if (spawn_start(&dsp) == -1) {
		warn("cannot run git diff");
		goto out;
	}

	stream(&st[0], dsp.out, 0, &rd, -1);
	st[0].stop_on_data = 1;
	stream(&st[1], dsp.err, 0, &derr, -1);
	n = 2;
	r = spawn_io(st, n);
	if (r == 1) {
		/* There is a patch: only now is git apply worth running. */
		dst_git(sr, &g);
		git_argv(&aargv, apply);
		git_env(&g, &aenv);
		asp.argv = aargv.v;
		asp.env = aenv.v;
		asp.dir = sr->dst;
		asp.in = SPAWN_PIPE;
		asp.out = SPAWN_PIPE;
		asp.err = SPAWN_PIPE;
		asp.flags = SPAWN_TIED;
		if (spawn_start(&asp) == -1) {
			warn("cannot run git apply");
		} else {
			started = 1;
			buf_add(&pipe_buf, rd.data, rd.len);
			buf_reset(&rd);
			st[0].stop_on_data = 0;
			st[0].relay_to = 2;
			stream(&st[2], asp.in, 1, &pipe_buf, -1);
			stream(&st[3], asp.out, 0, &junk, -2);
			stream(&st[4], asp.err, 0, &aerr, -1);
			n = 5;
			r = spawn_io(st, n);
		}
	}
	for (i = 0; i < n; i++)
		if (st[i].fd != -1)
			close(st[i].fd);
	if (spawn_wait(&dsp, NULL, &dex) == -1 ||
	    (started && spawn_wait(&asp, NULL, &aex) == -1)) {
		warn("waiting for git");
		goto out;
	}
	if (r == -1 || sig_pending() || (!started && r == 1))
		goto out;
	if (dex.status != 0) {
		buf_rtrim(&derr);
		if (derr.len > 0)
			fprintf(stderr, "%s\n", derr.data);
		warnx("git diff failed (status %d): cannot read the "
		    "uncommitted changes", dex.status);
		goto out;
	}
	if (started && aex.status != 0) {
		buf_rtrim(&aerr);
		if (aerr.len > 0)
			fprintf(stderr, "%s\n", aerr.data);
		warnx("the uncommitted changes did not apply to the copy "
		    "(git apply status %d): stopping before running anything",
		    aex.status);
		goto out;
	}
	ret = 0;
out:
	strv_free(&dargv);
	strv_free(&denv);
	strv_free(&aargv);
	strv_free(&aenv);
	buf_free(&rd);
	buf_free(&pipe_buf);
	buf_free(&derr);
	buf_free(&aerr);
	buf_free(&junk);
	return ret;
}

/* The directory part of a path ("" for none), and the last component. */
static void
split_path(const char *p, struct buf *dir, const char **base)
{
	const char	*slash = strrchr(p, '/');

	buf_reset(dir);
	if (slash == NULL) {
		buf_str(dir);
		*base = p;
	} else {
		buf_add(dir, p, (size_t)(slash - p));
		*base = slash + 1;
	}
}

/*
 * Copy paths from the source tree into the copy, opening each directory
 * once for a run of paths in it (ls-files lists them sorted).
 */
struct copier {
	int		 sroot, droot;
	int		 sfd, dfd;
	struct buf	 cur, dir;
	int		 have;
};

static int
copier_open(struct copier *c, struct snap_repo *sr)
{
	memset(c, 0, sizeof(*c));
	c->sfd = c->dfd = -1;
	c->sroot = open(sr->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->droot = open(sr->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->sroot == -1 || c->droot == -1) {
		warn("cannot open %s", fs_vis(c->sroot == -1 ? sr->src :
		    sr->dst));
		return -1;
	}
	return 0;
}

static void
copier_close(struct copier *c)
{
	if (c->sfd != -1)
		close(c->sfd);
	if (c->dfd != -1)
		close(c->dfd);
	if (c->sroot != -1)
		close(c->sroot);
	if (c->droot != -1)
		close(c->droot);
	buf_free(&c->cur);
	buf_free(&c->dir);
	c->sfd = c->dfd = c->sroot = c->droot = -1;
}

/* Point the copier at path's directory; 1 if the source has none. */
static int
copier_cd(struct copier *c, const char *path, const char **base)
{
	split_path(path, &c->dir, base);
	if (c->have && strcmp(c->dir.data, c->cur.data) == 0)
		return c->sfd == -1 ? 1 : 0;
	if (c->sfd != -1)
		close(c->sfd);
	if (c->dfd != -1)
		close(c->dfd);
	c->sfd = c->dfd = -1;
	buf_reset(&c->cur);
	buf_adds(&c->cur, c->dir.data);
	c->have = 1;
	if ((c->sfd = fs_open_dir(c->sroot, c->dir.data, 0, 0)) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	if ((c->dfd = fs_open_dir(c->droot, c->dir.data, 1, 0777)) == -1) {
		close(c->sfd);
		c->sfd = -1;
		c->have = 0;
		return -1;
	}
	return 0;
}

/*
 * Copy one path; 0 copied, 1 absent from the source, -1 failed.
 * Special files are skipped with a warning and never opened.
 */
static int
copy_path(struct copier *c, struct snap_repo *sr, const char *path)
{
	struct stat	 st;
	const char	*base;
	int		 r;

	if ((r = copier_cd(c, path, &base)) != 0) {
		if (r == -1)
			warn("cannot copy %s%s", fs_vis(sr->rel), fs_vis(path));
		return r;
	}
	if (fs_copy_entry(c->sfd, base, c->dfd, base, &st) == 0)
		return 0;
	if (errno == ENOENT)
		return 1;
	if (errno == EINVAL) {
		warnx("skipping %s%s: a %s, not a file or symlink",
		    fs_vis(sr->rel), fs_vis(path), fs_type_name(st.st_mode));
		return 0;
	}
	warn("cannot copy %s%s", fs_vis(sr->rel), fs_vis(path));
	return -1;
}

static int
copy_untracked(struct snap_repo *sr, const struct lsfiles *l)
{
	struct copier	c;
	size_t		i;
	int		ret = 0;

	if (l->untracked.n == 0)
		return 0;
	if (copier_open(&c, sr) == -1) {
		copier_close(&c);
		return -1;
	}
	for (i = 0; i < l->untracked.n && ret == 0; i++) {
		if (copy_path(&c, sr, l->untracked.v[i]) == -1)
			ret = -1;
		if (i == 0)
			test_stall("untracked");
		if ((i & 255) == 0 && sig_pending())
			ret = -1;
	}
	copier_close(&c);
	return ret;
}

/*
 * Entries flagged skip-worktree or assume-unchanged are invisible to git
 * diff, yet what is on disk is what the user has: make the copy match the
 * source path by path, and tell the proof to look at them afresh.
 */
static int
copy_flagged(struct snap_repo *sr, const struct lsfiles *l)
{
	struct copier	 c;
	const char	*path, *base;
	size_t		 i;
	int		 r, ret = 0;

	if (l->flagged.n == 0)
		return 0;
	if (copier_open(&c, sr) == -1) {
		copier_close(&c);
		return -1;
	}
	for (i = 0; i < l->flagged.n && ret == 0; i++) {
		path = strchr(l->flagged.v[i], '\t') + 1;
		{
			struct stat	st;
			char		*sp = xasprintf("%s/%s", sr->src, path);

			r = lstat(sp, &st);
			free(sp);
			if (r == 0 && S_ISDIR(st.st_mode))
				continue;
			if (r == -1) {
				/* Gone from the source: gone from the copy. */
				split_path(path, &c.dir, &base);
				{
					int	d = fs_open_dir(c.droot,
					    c.dir.data, 0, 0);

					if (d != -1) {
						(void)unlinkat(d, base, 0);
						close(d);
					}
				}
				continue;
			}
		}
		if ((r = copy_path(&c, sr, path)) == -1)
			ret = -1;
		else if (r == 0)
			strv_push(&sr->reflag, l->flagged.v[i]);
	}
	copier_close(&c);
	return ret;
}

/* Find a nested repository; 0 and its details, or -1 (no commit...). */
static int
nested_repo(const char *dir, char **gitdir, char **common, char **head)
{
	const char *const	 a[] = { "rev-parse", "--path-format=absolute",
	    "--show-toplevel", "--git-dir", "--git-common-dir", NULL };
	const char *const	 h[] = { "rev-parse", "-q", "--verify",
	    "HEAD^{commit}", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	char			*p, *top, *gd, *cd;
	int			 ret = -1;

	memset(&g, 0, sizeof(g));
	g.dir = dir;
	if (git_run(&g, a, GIT_QUIET, NULL, &out, NULL) != 0)
		goto out;
	p = out.data;
	top = strsep(&p, "\n");
	gd = strsep(&p, "\n");
	cd = strsep(&p, "\n");
	if (top == NULL || gd == NULL || cd == NULL || strcmp(top, dir) != 0)
		goto out;
	*gitdir = xstrdup(gd);
	*common = xstrdup(cd);
	buf_reset(&out);
	if (git_run(&g, h, GIT_QUIET, NULL, &out, NULL) != 0) {
		free(*gitdir);
		free(*common);
		goto out;
	}
	buf_rtrim(&out);
	*head = buf_detach(&out);
	ret = 0;
out:
	buf_free(&out);
	return ret;
}

static int
copy_nested(struct snapshot *s, struct snap_repo *sr,
    const struct lsfiles *l)
{
	struct snap_repo	*child;
	struct stat		 st;
	char			*sp, *dp, *dotgit, *gitdir, *common, *head;
	size_t			 i;
	int			 ret = 0, isrepo, fd, dfd;

	for (i = 0; i < l->nested.n && ret == 0; i++) {
		const char	*np = l->nested.v[i];

		sp = xasprintf("%s/%s", sr->src, np);
		dp = xasprintf("%s/%s", sr->dst, np);
		dotgit = xasprintf("%s/.git", sp);
		if (lstat(sp, &st) == -1 || !S_ISDIR(st.st_mode)) {
			/* Removed in the source: an empty directory left
			 * by the checkout goes too. */
			(void)rmdir(dp);
			goto next;
		}
		isrepo = lstat(dotgit, &st) == 0;
		/* Walked from the copy's root: no symlink in it is followed. */
		if ((fd = open(sr->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
		    -1 || (dfd = fs_open_dir(fd, np, 1, 0777)) == -1) {
			warn("cannot create %s", fs_vis(dp));
			if (fd != -1)
				close(fd);
			ret = -1;
			goto next;
		}
		close(dfd);
		close(fd);
		if (!isrepo)
			goto next;	/* uninitialized: empty, as here */
		if (nested_repo(sp, &gitdir, &common, &head) == -1) {
			warnx("leaving out %s%s: a nested repository without "
			    "a commit checked out", fs_vis(sr->rel),
			    fs_vis(np));
			strv_push(&sr->exclude, np);
			goto next;
		}
		child = xcalloc(1, sizeof(*child));
		child->src = sp;
		child->dst = dp;
		sp = dp = NULL;
		child->gitdir = gitdir;
		child->common = common;
		child->head = head;
		child->objects = xasprintf("%s/objects", common);
		child->index = xasprintf("%s/index", gitdir);
		child->rel = xasprintf("%s%s/", sr->rel, np);
		s->repos = xreallocarray(s->repos, s->nrepos + 1,
		    sizeof(*s->repos));
		s->repos[s->nrepos++] = child;
		if (copy_repo(s, child) == -1)
			ret = -1;
next:
		free(sp);
		free(dp);
		free(dotgit);
	}
	return ret;
}

static int
copy_repo(struct snapshot *s, struct snap_repo *sr)
{
	struct lsfiles	l;
	long long	t;
	int		ret = -1;

	if (list_files(sr, &l) == -1)
		return -1;
	if (strlen(sr->dst) + 1 + l.maxlen >= PATH_MAX) {
		warnx("a path in %s is too long for a copy in %s: %zu bytes "
		    "with the copy's prefix, the limit is %d; set TMPDIR to a "
		    "shorter directory", fs_vis(sr->src), fs_vis(s->top),
		    strlen(sr->dst) + 1 + l.maxlen, PATH_MAX - 1);
		goto out;
	}
	if (l.sparse && !sparse_supported(sr))
		goto out;
	t = spawn_now_ms();
	if (sig_pending() || add_worktree(s, sr) == -1)
		goto out;
	s->ms[SNAP_CHECKOUT] += spawn_now_ms() - t;
	test_stall("checkout");
	t = spawn_now_ms();
	if (sig_pending() || apply_changes(sr) == -1)
		goto out;
	test_stall("apply");
	s->ms[SNAP_APPLY] += spawn_now_ms() - t;
	t = spawn_now_ms();
	if (sig_pending() || copy_flagged(sr, &l) == -1)
		goto out;
	if (sig_pending() || copy_untracked(sr, &l) == -1)
		goto out;
	s->ms[SNAP_UNTRACKED] += spawn_now_ms() - t;
	if (sig_pending() || copy_nested(s, sr, &l) == -1)
		goto out;
	ret = 0;
out:
	lsfiles_free(&l);
	return ret;
}

static int
prove(struct snapshot *s)
{
	struct treeid_req	 q = TREEID_INIT;
	struct snap_repo	*sr;
	struct strv		 paths = STRV_INIT;
	struct git		 g;
	char			*a = NULL, *b = NULL, *objdir, tag[32];
	size_t			 i, j;

	objdir = xasprintf("%s/objects", s->scratch);
	for (i = 0; i < s->nrepos; i++) {
		sr = s->repos[i];
		q.scratch = s->scratch;
		q.objdir = objdir;
		q.alternates = sr->objects;
		q.reflag = &sr->reflag;
		q.exclude = &sr->exclude;

		src_git(sr, &g);
		q.git = &g;
		q.index = sr->index;
		snprintf(tag, sizeof(tag), "src%zu", i);
		if ((a = treeid_compute(&q, tag)) == NULL)
			goto fail;
		dst_git(sr, &g);
		q.index = NULL;
		{
			char	*ci = xasprintf("%s/index", sr->dst_gitdir);

			q.index = ci;
			snprintf(tag, sizeof(tag), "copy%zu", i);
			b = treeid_compute(&q, tag);
			free(ci);
		}
		if (b == NULL)
			goto fail;
		if (strcmp(a, b) != 0) {
			warnx("the copy is not the working state: tree %.12s "
			    "in %s, %.12s in the copy; refusing to verify",
			    a, fs_vis(sr->src), b);
			if (treeid_diff(&q, a, b, &paths) == 0) {
				for (j = 0; j < paths.n && j < 20; j++)
					fprintf(stderr, "\tdiffers: %s%s\n",
					    fs_vis(sr->rel),
					    fs_vis(paths.v[j]));
				if (paths.n > 20)
					fprintf(stderr, "\t... and %zu more\n",
					    paths.n - 20);
			}
			goto fail;
		}
		if (i == 0)
			s->tree = xstrdup(a);
		free(a);
		free(b);
		a = b = NULL;
	}
	free(objdir);
	strv_free(&paths);
	return 0;
fail:
	free(objdir);
	free(a);
	free(b);
	strv_free(&paths);
	return -1;
}

int
snapshot_create(struct snapshot *s, const struct repo *r, int flags)
{
	struct snap_repo	*sr;
	char			*tmp, *objects;
	const char		*name;
	long long		 t;

	memset(s, 0, sizeof(*s));
	s->journal.fd = -1;
	s->repo = r;
	journal_new_run_id(s->run, sizeof(s->run));
	tmp = tmpdir();
	if (check_tmpdir(tmp) == -1) {
		free(tmp);
		return -1;
	}
	s->top = xasprintf("%s/forge-%s", tmp, s->run);
	free(tmp);
	if (journal_open(&s->journal, r->common, s->run, s->top) == -1)
		return -1;
	strv_push(&s->commons, r->common);
	s->state = ST_LIVE;
	s->cleanup = cleanup_push(on_exit_remove, s);
	test_stall("journal");

	if (mkdir(s->top, 0700) == -1) {
		warn("cannot create the copy's directory %s", fs_vis(s->top));
		goto fail;
	}
	s->scratch = xasprintf("%s/.forge", s->top);
	objects = xasprintf("%s/objects", s->scratch);
	if (mkdir(s->scratch, 0700) == -1 || mkdir(objects, 0700) == -1) {
		warn("cannot create %s", fs_vis(objects));
		free(objects);
		goto fail;
	}
	free(objects);

	name = fs_basename(r->top);
	if (*name == '\0' || strcmp(name, ".forge") == 0)
		name = "tree";
	s->copy = xasprintf("%s/%s", s->top, name);

	sr = xcalloc(1, sizeof(*sr));
	sr->src = xstrdup(r->top);
	sr->gitdir = xstrdup(r->gitdir);
	sr->common = xstrdup(r->common);
	sr->objects = xstrdup(r->objects);
	sr->index = repo_index_path(r);
	sr->user_index = r->index;
	sr->head = xstrdup(r->head);
	sr->dst = xstrdup(s->copy);
	sr->rel = xstrdup("");
	s->repos = xreallocarray(NULL, 1, sizeof(*s->repos));
	s->repos[0] = sr;
	s->nrepos = 1;

	if (copy_repo(s, sr) == -1)
		goto fail;
	test_stall("proof");
	t = spawn_now_ms();
	if (!(flags & SNAP_NOCHECK) && (sig_pending() || prove(s) == -1))
		goto fail;
	s->ms[SNAP_PROOF] = spawn_now_ms() - t;
	return 0;
fail:
	(void)snapshot_remove(s);
	return -1;
}

int
snapshot_remove(struct snapshot *s)
{
	struct journal_entry	e;
	int			ret;

	if (s->state != ST_LIVE)
		return 0;
	memset(&e, 0, sizeof(e));
	e.run = s->run;
	e.top = s->top;
	e.repos = s->commons;
	ret = journal_remove_copy(&e);
	if (ret == 0) {
		journal_close(&s->journal, 1);
		s->state = ST_GONE;
	} else {
		warnx("could not remove all of %s: forge gc will try again",
		    fs_vis(s->top));
		journal_close(&s->journal, 0);
		s->state = ST_GONE;
	}
	return ret;
}

int
snapshot_keep(struct snapshot *s)
{
	if (s->state != ST_LIVE)
		return -1;
	(void)journal_note_kept(&s->journal, s->copy);
	journal_close(&s->journal, 0);
	s->state = ST_KEPT;
	s->kept = 1;
	return 0;
}

void
snapshot_free(struct snapshot *s)
{
	size_t	i;

	if (s->cleanup != NULL)
		cleanup_pop(s->cleanup, 1);
	s->cleanup = NULL;
	for (i = 0; i < s->nrepos; i++)
		sr_free(s->repos[i]);
	free(s->repos);
	free(s->top);
	free(s->copy);
	free(s->scratch);
	free(s->tree);
	strv_free(&s->commons);
	memset(s, 0, sizeof(*s));
	s->journal.fd = -1;
}

char *
snapshot_source_tree(const struct repo *r)
{
	struct treeid_req	 q = TREEID_INIT;
	struct journal_entry	 e;
	struct journal		 j;
	struct snap_repo	 sr;
	struct lsfiles		 l;
	struct git		 g;
	char			*top, *objdir, *tmp, *tree = NULL, *idx;
	char			 run[32];
	size_t			 i;

	memset(&sr, 0, sizeof(sr));
	sr.src = r->top;
	sr.gitdir = r->gitdir;
	sr.user_index = r->index;
	if (list_files(&sr, &l) == -1)
		return NULL;
	tmp = tmpdir();
	if (check_tmpdir(tmp) == -1) {
		free(tmp);
		lsfiles_free(&l);
		return NULL;
	}
	journal_new_run_id(run, sizeof(run));
	top = xasprintf("%s/forge-%s", tmp, run);
	objdir = xasprintf("%s/objects", top);
	free(tmp);
	/* Recorded like a copy, so a run killed here leaves nothing. */
	if (journal_open(&j, r->common, run, top) == -1)
		goto out;
	if (mkdir(top, 0700) == -1 || mkdir(objdir, 0700) == -1) {
		warn("cannot create %s", fs_vis(objdir));
		goto remove;
	}
	for (i = 0; i < l.flagged.n; i++) {
		struct stat	 st;
		char		*p = xasprintf("%s/%s", r->top,
		    strchr(l.flagged.v[i], '\t') + 1);

		if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			strv_push(&sr.reflag, l.flagged.v[i]);
		free(p);
	}
	src_git(&sr, &g);
	idx = repo_index_path(r);
	q.git = &g;
	q.index = idx;
	q.scratch = top;
	q.objdir = objdir;
	q.alternates = r->objects;
	q.reflag = &sr.reflag;
	tree = treeid_compute(&q, "src");
	free(idx);
remove:
	memset(&e, 0, sizeof(e));
	e.run = run;
	e.top = top;
	if (journal_remove_copy(&e) == 0)
		journal_close(&j, 1);
	else
		journal_close(&j, 0);
out:
	free(top);
	free(objdir);
	strv_free(&sr.reflag);
	lsfiles_free(&l);
	return tree;
}
