/* Tree ids of working trees, by git runs that may go on in the background. */
/* Through a temporary index and object dir, as a chain of git runs. */
#include "config.h"

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
#include "fs.h"
#include "fs_copy.h"
#include "fs_vis.h"
#include "hash.h"
#include "sig.h"
#include "treeid.h"
#include "xmalloc.h"

enum {
	STEP_EDITS, STEP_LIST, STEP_ATTR, STEP_HASH, STEP_ADD, STEP_WRITE,
	STEP_CHANGED, STEP_DONE
};

/* At most this many hashed files are left out of the add by name. */
#define BIG_LEFT_OUT	64

/* What git may convert a file by, from wherever it takes attributes
 * (attributes files, ignored ones too, git's own, attr.tree). */
static const char *const conv_attrs[] = {
	"text", "eol", "crlf", "filter", "ident", "working-tree-encoding", NULL
};

static char *
path_of(const struct treeid_job *j, const char *what)
{
	return xasprintf("%s.%s", j->prefix, what);
}

static int
read_file(const struct treeid_job *j, const char *what, struct buf *b)
{
	char	*p = path_of(j, what);
	int	 ret;

	ret = fs_read_file(p, b, (size_t)1 << 30);
	free(p);
	return ret;
}

/*
 * Make the index newer than any file here, so that no entry is racily
 * clean.  Again before each step that reads it: a step that writes the
 * index gives it the current time, and even git write-tree, which writes
 * the index back, would read every racily clean file to decide how to
 * write its entry.
 */
static int
trust_index(struct treeid_job *j)
{
	struct timespec	times[2];

	times[0].tv_sec = 0;
	times[0].tv_nsec = UTIME_OMIT;
	clock_gettime(CLOCK_REALTIME, &times[1]);
	times[1].tv_sec += 2;
	if (utimensat(AT_FDCWD, j->index, times, 0) == -1 &&
	    errno != ENOENT) {
		warn("cannot set the time of %s", fs_vis(j->index));
		return -1;
	}
	return 0;
}

/* Is path one of q.exclude's, or below one? */
static int
excluded(const struct treeid_req *q, const char *path)
{
	size_t	i, n;

	for (i = 0; q->exclude != NULL && i < q->exclude->n; i++) {
		n = strlen(q->exclude->v[i]);
		if (strncmp(path, q->exclude->v[i], n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/*
 * The paths of v that are regular files of q.big bytes or more, into
 * j->big: those git is to hash before the add.  A path the add leaves
 * out (q.exclude) is left to it, and so is anything git refuses.
 */
static void
pick_big(struct treeid_job *j, const struct strv *v)
{
	struct stat	st;
	size_t		i;
	int		dfd;

	dfd = open(j->g.dir != NULL ? j->g.dir : ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	for (i = 0; dfd != -1 && i < v->n; i++)
		if (!excluded(&j->q, v->v[i]) && fstatat(dfd, v->v[i], &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size >= j->q.big)
			strv_push(&j->big, v->v[i]);
	if (dfd != -1)
		close(dfd);
}

/*
 * Of j->big, keep the files git converts by no attribute, from git
 * check-attr -z's "path NUL attribute NUL value NUL" in b: what git makes
 * of a file it converts can depend on the blob its index entry names,
 * which a hash without its blob would leave unwritten.
 */
static void
keep_unconverted(struct treeid_job *j, const struct buf *b)
{
	struct strv	 out = STRV_INIT, keep = STRV_INIT;
	size_t		 i, k;

	strv_split_z(&out, b->data != NULL ? b->data : "", b->len);
	for (i = 0, k = 0; i < j->big.n; i++) {
		int	plain = 1, said = 0;

		/* A path listed twice (a conflict) has its answers once. */
		for (; k + 2 < out.n && strcmp(out.v[k], j->big.v[i]) == 0;
		    k += 3, said++)
			if (strcmp(out.v[k + 2], "unspecified") != 0)
				plain = 0;
		if (plain && said > 0)
			strv_push(&keep, j->big.v[i]);
	}
	/* Not as many answers as questions: none is taken. */
	if (out.n != j->big.n * (sizeof(conv_attrs) / sizeof(*conv_attrs) -
	    1) * 3)
		strv_clear(&keep);
	strv_free(&j->big);
	j->big = keep;
	strv_free(&out);
}

/* Skip the steps this job has nothing for; STEP_DONE when all are done. */
static void
next_step(struct treeid_job *j)
{
	int	big;

	big = j->q.big > 0 && j->q.only == NULL && !j->q.sparse;
	for (;;) {
		if (j->step == STEP_EDITS && (j->q.edits == NULL ||
		    j->q.edits->n == 0)) {
			j->step++;
			continue;
		}
		if (j->step == STEP_LIST && (!big || j->q.big_from != NULL)) {
			if (big)
				pick_big(j, j->q.big_from);
			j->step++;
			continue;
		}
		if ((j->step == STEP_ATTR || j->step == STEP_HASH) &&
		    j->big.n == 0) {
			j->step++;
			continue;
		}
		if (j->step == STEP_ADD && j->q.edits_only)
			j->step = STEP_DONE;
		else if (j->step == STEP_ADD && j->q.only != NULL &&
		    j->q.only->n == 0) {
			/* No path to look at: the index as it is. */
			j->step++;
			continue;
		} else if (j->step == STEP_CHANGED && j->q.base == NULL)
			j->step++;
		return;
	}
}

/* How git is to add files, for the add and for what comes before it. */
static void
add_config(const struct treeid_job *j, struct strv *args)
{
	/* The modes on disk, as the verification sees them, even where
	 * git is told to ignore them (core.fileMode false). */
	strv_push(args, "-c");
	strv_push(args, "core.fileMode=true");
	/* Nothing that would let a later run's git take an entry on
	 * trust: no assume-unchanged bit set as files are added, no cache
	 * of untracked directories, one index file and no shared one. */
	strv_push(args, "-c");
	strv_push(args, "core.ignoreStat=false");
	strv_push(args, "-c");
	strv_push(args, "core.untrackedCache=false");
	strv_push(args, "-c");
	strv_push(args, "core.splitIndex=false");
	/* The objects are thrown away with the run: compressing them is
	 * only time (seconds for a large file; a file past git's
	 * core.bigFileThreshold is streamed as into a pack, and deflated
	 * even where nothing is written). */
	strv_push(args, "-c");
	strv_push(args, "core.looseCompression=0");
	strv_push(args, "-c");
	strv_push(args, "pack.compression=0");
	/* Preloading the index would lstat every entry in threads, those
	 * marked as unchanged too, which git add itself leaves alone. */
	if (j->q.trust) {
		strv_push(args, "-c");
		strv_push(args, "core.preloadIndex=false");
	}
}

/* git add -A, of everything in the working tree, into the temporary
 * object directory. */
static void
add_args(const struct treeid_job *j, struct strv *args)
{
	size_t	i;

	add_config(j, args);
	if (j->q.only != NULL) {
		/* What is in the way of a path is replaced. */
		strv_push(args, "update-index");
		strv_push(args, "--add");
		strv_push(args, "--remove");
		strv_push(args, "--replace");
		if (j->q.info_only)
			strv_push(args, "--info-only");
		strv_push(args, "-z");
		strv_push(args, "--stdin");
		return;
	}
	strv_push(args, "add");
	strv_push(args, "-A");
	if (j->q.force)
		strv_push(args, "-f");
	/* Files outside sparse patterns that are on disk count (git 2.34
	 * on; a sparse checkout is refused below 2.36 anyway). */
	if (j->q.sparse && git_has(GIT_ADD_SPARSE))
		strv_push(args, "--sparse");
	strv_push(args, "--");
	strv_push(args, ".");
	for (i = 0; j->q.exclude != NULL && i < j->q.exclude->n; i++)
		strv_pushf(args, ":(exclude,literal)%s", j->q.exclude->v[i]);
	/* What git just hashed is left out: as recent as the index, it
	 * would be "racily clean", which git add takes for changed, and
	 * hash and write again (git's stat data is to the second). */
	for (i = 0; !j->add_all && j->big.n <= BIG_LEFT_OUT && i < j->big.n;
	    i++)
		strv_pushf(args, ":(exclude,literal)%s", j->big.v[i]);
}

/* The git command of the job's current step. */
static void
step_args(const struct treeid_job *j, struct strv *args)
{
	switch (j->step) {
	case STEP_EDITS:
		strv_push(args, "update-index");
		strv_push(args, "-z");
		strv_push(args, "--index-info");
		break;
	case STEP_LIST:
		strv_push(args, "-c");
		strv_push(args, "core.ignoreStat=false");
		strv_push(args, "diff-files");
		/* Not a git status in each submodule: a gitlink is no
		 * big file. */
		strv_push(args, "--ignore-submodules");
		strv_push(args, "--name-only");
		strv_push(args, "-z");
		break;
	case STEP_ATTR:
		strv_push(args, "check-attr");
		strv_push(args, "-z");
		strv_push(args, "--stdin");
		strv_pushv(args, (char *const *)conv_attrs);
		break;
	case STEP_HASH:
		add_config(j, args);
		strv_push(args, "update-index");
		strv_push(args, "--add");
		strv_push(args, "--replace");
		strv_push(args, "--info-only");
		strv_push(args, "-z");
		strv_push(args, "--stdin");
		break;
	case STEP_ADD:
		add_args(j, args);
		break;
	case STEP_WRITE:
		/* Only the id is wanted: skip the check that each of the
		 * index's blobs exists, which git add has just seen to.
		 * Its trees are thrown away like the blobs: not worth
		 * compressing. */
		strv_push(args, "-c");
		strv_push(args, "core.looseCompression=0");
		strv_push(args, "write-tree");
		strv_push(args, "--missing-ok");
		break;
	case STEP_CHANGED:
		strv_push(args, "-c");
		strv_push(args, "core.fileMode=true");
		strv_push(args, "diff-index");
		strv_push(args, "--cached");
		strv_push(args, "--name-only");
		strv_push(args, "--no-renames");
		strv_push(args, "-z");
		strv_push(args, j->q.base);
		strv_push(args, "--");
		break;
	}
}

/* The paths a step reads on its standard input, in a file; NULL if it
 * reads none, or (failed set) if the file could not be written. */
static char *
step_input(struct treeid_job *j)
{
	const struct strv	*v;
	struct buf		 in = BUF_INIT;
	char			*inp;
	size_t			 i;

	if (j->step == STEP_EDITS)
		v = j->q.edits;
	else if (j->step == STEP_ADD && j->q.only != NULL)
		v = j->q.only;
	else if (j->step == STEP_ATTR || j->step == STEP_HASH)
		v = &j->big;
	else
		return NULL;
	for (i = 0; i < v->n; i++)
		buf_add(&in, v->v[i], strlen(v->v[i]) + 1);
	inp = path_of(j, "in");
	if (fs_write_atomic(inp, in.data, in.len, 0600) == -1) {
		warn("cannot write %s", fs_vis(inp));
		j->failed = 1;
	}
	buf_free(&in);
	return inp;
}

/*
 * Where git adding files finds objects: the repository's, and the blobs
 * an earlier request wrote (lastdir).  NULL: the repository's alone, as
 * also where a path would need quoting in the list (a colon).
 */
static char *
blob_alternates(const struct treeid_req *q)
{
	if (q->lastdir == NULL || strchr(q->lastdir, ':') != NULL ||
	    q->lastdir[0] == '"')
		return NULL;
	if (q->alternates == NULL)
		return xstrdup(q->lastdir);
	if (strchr(q->alternates, ':') != NULL || q->alternates[0] == '"')
		return NULL;
	return xasprintf("%s:%s", q->alternates, q->lastdir);
}

/*
 * q.own: the tree id of the index git made, computed here rather than
 * by git write-tree, which writes every tree that changed (and the
 * index again) for an id alone; the index kept open, for a comparison
 * with another (treeid_own_fd()), whatever becomes of its name.  -1 if
 * the index is not one forge reads (gitindex_iter_fd()), or one git
 * would write no tree of.  With q.own_unhashed, no id: its header is
 * all that is read.
 */
static int
own_tree(struct treeid_job *j)
{
	struct gitindex_iter	*it;
	char			 hex[2 * HASH_MAX + 1];
	int			 fd;

	if ((fd = open(j->index, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	if (j->q.own_unhashed) {
		if ((it = gitindex_iter_fd(fd, j->q.own)) == NULL) {
			close(fd);
			return -1;
		}
		gitindex_iter_free(it);
	} else if (gitindex_tree_fd(fd, j->q.own, hex) == -1) {
		close(fd);
		return -1;
	} else {
		free(j->tree);
		j->tree = xstrdup(hex);
		j->own = xstrdup(hex);
	}
	j->own_fd = fd;
	j->have_own = 1;
	return 0;
}

/* Start the step j->step, or the next one that has work. */
static void
start_step(struct treeid_job *j)
{
	struct strv	 args = STRV_INIT;
	struct git	 g;
	char		*inp, *outp, *errp, *alt = NULL;

	next_step(j);
	if (j->step == STEP_WRITE && j->q.own != 0 && own_tree(j) == 0) {
		j->step++;
		next_step(j);
	}
	if (j->step == STEP_DONE)
		return;
	if (j->q.trust && j->step != STEP_CHANGED && trust_index(j) == -1) {
		j->failed = 1;
		return;
	}
	inp = step_input(j);
	if (j->failed) {
		free(inp);
		return;
	}
	step_args(j, &args);
	outp = path_of(j, j->step == STEP_WRITE ? "tree" : "out");
	errp = path_of(j, "err");
	g = j->g;
	/* The steps that hash files: the add writes their blobs. */
	if ((j->step == STEP_ADD || j->step == STEP_HASH) &&
	    j->q.blobdir != NULL) {
		g.objdir = j->q.blobdir;
		if ((alt = blob_alternates(&j->q)) != NULL)
			g.alternates = alt;
	}
	if (git_start(&j->job, &g, (const char *const *)args.v, inp, outp,
	    errp) == -1)
		j->failed = 1;
	free(outp);
	free(errp);
	free(inp);
	free(alt);
	strv_free(&args);
}

static const char *const step_names[] = {
	"git update-index", "git diff-files", "git check-attr",
	"git update-index", "git add", "git write-tree", "git diff-index"
};

/* The step has ended with status st: take its result, start the next. */
static void
end_step(struct treeid_job *j, int st)
{
	struct buf	b = BUF_INIT;

	if (st > 0 && (j->step == STEP_LIST || j->step == STEP_ATTR ||
	    j->step == STEP_HASH) && !sig_pending()) {
		/* The add does it all: git stopped before it wrote the
		 * index.  None was hashed, then. */
		strv_free(&j->big);
		j->step = STEP_ADD;
		start_step(j);
		return;
	}
	if (st == 1 && j->step == STEP_ADD && j->q.only == NULL &&
	    !j->add_all && j->big.n > 0 && j->big.n <= BIG_LEFT_OUT &&
	    !sig_pending()) {
		/* git add takes a path left out that the working state
		 * ignores (a tracked file) for one it was asked to add,
		 * refuses it, and says 1 (it added the rest): all again,
		 * none left out -- still the files hashed before, which
		 * the caller may look at again (treeid.h). */
		j->add_all = 1;
		start_step(j);
		return;
	}
	if (st != 0) {
		if (st > 0 && !j->q.quiet) {
			(void)read_file(j, "err", &b);
			warnx("cannot compute the tree of %s: %s: %s",
			    j->g.dir != NULL ? fs_vis(j->g.dir) : ".",
			    j->step == STEP_ADD && j->q.only != NULL ?
			    "git update-index" : step_names[j->step],
			    git_why(&b, st));
		}
		j->failed = 1;
		buf_free(&b);
		return;
	}
	if (j->step == STEP_WRITE) {
		if (read_file(j, "tree", &b) == -1) {
			warn("cannot read the tree id");
			j->failed = 1;
		} else {
			buf_rtrim(&b);
			j->tree = buf_detach(&b);
		}
	} else if (j->step == STEP_LIST) {
		struct strv	listed = STRV_INIT;

		/* Unread, the add does it all. */
		if (read_file(j, "out", &b) != -1) {
			strv_split_z(&listed, b.data, b.len);
			pick_big(j, &listed);
		}
		strv_free(&listed);
	} else if (j->step == STEP_ATTR) {
		/* Unread, nothing is hashed before the add. */
		if (read_file(j, "out", &b) == -1)
			strv_free(&j->big);
		else
			keep_unconverted(j, &b);
	} else if (j->step == STEP_CHANGED) {
		if (read_file(j, "out", &b) == -1) {
			warn("cannot read the changed paths");
			j->failed = 1;
		} else
			strv_split_z(&j->changed, b.data, b.len);
	}
	buf_free(&b);
	if (!j->failed) {
		j->step++;
		start_step(j);
	}
}

/*
 * The index a job starts from, at to.  One it starts from that a run
 * carried (q->start), which nothing writes in place, is linked there:
 * git writes an index anew and renames it over, through its lock file,
 * so the carried one stays as it was -- but not one whose times the job
 * sets (q->trust: trust_index()).  Else, or where no link can be made,
 * a copy that keeps its mtime: git trusts an entry's stat data only if
 * the file is older than the index ("racily clean" otherwise), and a
 * fresh mtime would make it trust a same-size edit it never looked at.
 */
static int
start_index(const struct treeid_req *q, const char *to)
{
	if (q->start != NULL && !q->trust && link(q->start, to) == 0)
		return 0;
	return fs_copy_file(q->start != NULL ? q->start : q->index, to);
}

int
treeid_start(struct treeid_job *j, const struct treeid_req *q,
    const char *tag)
{
	memset(j, 0, sizeof(*j));
	j->q = *q;
	j->job.done = 1;
	j->prefix = xasprintf("%s/tree-%s", q->scratch, tag);
	j->index = path_of(j, "index");
	if ((q->start != NULL || q->index != NULL) &&
	    start_index(q, j->index) == -1 && errno != ENOENT) {
		warn("cannot copy the index %s", fs_vis(q->start != NULL ?
		    q->start : q->index));
		j->failed = 1;
		return -1;
	}
	j->g = *q->git;
	j->g.index = j->index;
	j->g.objdir = q->objdir;
	j->g.alternates = q->alternates;
	j->step = STEP_EDITS;
	start_step(j);
	return j->failed ? -1 : 0;
}

void
treeid_poll(struct treeid_job *j)
{
	while (!j->failed && j->step != STEP_DONE && git_done(&j->job))
		end_step(j, j->job.status);
}

int
treeid_done(const struct treeid_job *j)
{
	return j->failed || j->step == STEP_DONE;
}

char *
treeid_finish(struct treeid_job *j)
{
	char	*tree;

	while (j->step != STEP_DONE && !j->failed) {
		if (j->job.done && j->job.status == -1) {
			j->failed = 1;
			break;
		}
		end_step(j, git_finish(&j->job));
	}
	if (!j->job.done)
		(void)git_finish(&j->job);	/* failed: still reaped */
	if (j->failed)
		return NULL;
	if (j->q.edits_only)
		return xstrdup(j->index);	/* a non-NULL "done" */
	tree = j->tree;
	j->tree = NULL;
	return tree;
}

int
treeid_changed(struct treeid_job *j, const char *base)
{
	if (j->failed)
		return -1;
	if (j->q.base != NULL)
		return 0;
	j->q.base = base;
	/* Still on its way: it lists them when it gets there.  Ended: it
	 * runs again, for that step alone, while forge goes on. */
	if (j->step == STEP_DONE) {
		j->step = STEP_CHANGED;
		start_step(j);
	}
	return j->failed ? -1 : 0;
}

const char *
treeid_wait_added(struct treeid_job *j)
{
	while (j->step <= STEP_ADD && !j->failed) {
		if (j->job.done && j->job.status == -1) {
			j->failed = 1;
			break;
		}
		end_step(j, git_finish(&j->job));
	}
	return j->failed || j->q.edits_only ? NULL : j->index;
}

const char *
treeid_wait_tree(struct treeid_job *j)
{
	treeid_wait_own(j);
	return j->failed ? NULL : j->tree;
}

const char *
treeid_wait_own(struct treeid_job *j)
{
	while (j->tree == NULL && !j->have_own && j->step != STEP_DONE &&
	    !j->failed) {
		if (j->job.done && j->job.status == -1) {
			j->failed = 1;
			break;
		}
		end_step(j, git_finish(&j->job));
	}
	return treeid_own(j);
}

const char *
treeid_own(const struct treeid_job *j)
{
	return j->have_own && !j->failed ? j->own : NULL;
}

int
treeid_own_fd(const struct treeid_job *j)
{
	return j->have_own && !j->failed ? j->own_fd : -1;
}

void
treeid_free(struct treeid_job *j)
{
	static const char *const what[] = { "in", "out", "err", "tree",
	    "index" };
	size_t	 i;
	char	*p;

	/* Waited for without the idle hook: it moves jobs on, this one
	 * and others a caller is freeing too. */
	j->job.idle = NULL;
	if (!j->job.done)
		(void)git_finish(&j->job);
	for (i = 0; j->prefix != NULL && i < sizeof(what) / sizeof(*what);
	    i++) {
		p = path_of(j, what[i]);
		(void)unlink(p);
		free(p);
	}
	free(j->prefix);
	free(j->index);
	free(j->tree);
	strv_free(&j->changed);
	strv_free(&j->big);
	if (j->have_own)
		close(j->own_fd);
	free(j->own);
	memset(j, 0, sizeof(*j));
	/* Inert until started again: moved on, a zeroed job would start
	 * its next git with no index of its own -- on the repository's
	 * -- and write its output where forge stands. */
	j->job.done = 1;
	j->failed = 1;
}

int
treeid_keep(struct treeid_job *j, const char *path)
{
	/* A rename keeps the mtime git gave it, which its stat cache
	 * depends on (racily clean entries are those not older). */
	if (j->index == NULL || rename(j->index, path) == -1)
		return -1;
	return 0;
}

char *
treeid_compute(const struct treeid_req *q, const char *tag)
{
	struct treeid_job	 j;
	char			*tree = NULL;

	if (treeid_start(&j, q, tag) == 0)
		tree = treeid_finish(&j);
	treeid_free(&j);
	return tree;
}

int
treeid_diff(const struct treeid_req *q, const char *a, const char *b,
    struct strv *paths)
{
	const char *const	 args[] = { "diff-tree", "-r", "-z",
	    "--no-renames", "--name-only", a, b, NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	int			 st;

	g = *q->git;
	g.index = NULL;
	g.objdir = q->objdir;
	g.alternates = q->alternates;
	st = git_run(&g, args, 0, NULL, &out, NULL);
	if (st == 0)
		strv_split_z(paths, out.data != NULL ? out.data : "",
		    out.len);
	buf_free(&out);
	return st == 0 ? 0 : -1;
}
