/* The proof that a copy is the working state, by tree ids. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "proof.h"
#include "sig.h"
#include "sum.h"
#include "treeid.h"
#include "xmalloc.h"

struct proof {
	struct proof_repo	 r;
	struct rundir		*rd;
	size_t			 id;		/* names its temporary files */
	struct strv		 edits;		/* flagged entries, as on disk */
	struct strv		 conflicts;	/* the source's conflicts' entries
						   (lsfiles.h) */
	struct strv		 look_only;	/* the source's paths git is to
						   look at (proof_look) */
	struct strv		 look_gone;	/* and those it has no longer */
	struct timespec		 src_since;	/* taken before the source's
						   side looked at its files */
	struct git		 src_git;
	struct treeid_req	 src_req;	/* the source's tree, computed */
	struct treeid_job	 src_job;	/* while the copy is built */
	int			 src_started;
	char			*dst_gitdir;	/* the copy's registration */
	struct git		 dst_git;
	struct strv		 prep_edits;	/* the copy's index, made ready
						   for its side of the proof */
	struct treeid_req	 prep_req;	/* as soon as the source's side */
	struct treeid_job	 prep_job;	/* and git are done */
	int			 prep_started;
	struct strv		 early_paths;	/* big files copied whole, */
	struct strv		 early_edits;	/* hashed in the copy as soon */
	struct treeid_req	 early_req;	/* as they are there, while */
	struct treeid_job	 early_job;	/* the source's side runs */
	int			 early_started;
	struct timespec		 early_at;	/* when its git started */
	struct strv		 early_done;	/* the paths it hashed */
	struct strv		 rest;		/* the paths where the source
						   differs from HEAD, but those
						   hashed early */
	char			*dst_index;
	int			 index_ready;	/* nothing more will write it */
	struct timespec		 checked_out;	/* when git worktree add was
						   done */
	char			*src_key;	/* what the source's carried
						   index is to be for */
	char			*src_carried;	/* that index, if the last run
						   left one sealed for it */
	char			*src_tree;	/* the source's side's tree */
	int			 src_failed;
	int			 src_afresh;	/* times computed again */
	char			*copy_index;	/* the index the copy's side
						   ended with, held */
	int			 copy_runs;
	struct spawn_idle	 copy_idle;	/* the source's side moved on */
	struct spawn_idle	 src_idle;	/* the early hash moved on */
	char			*settled;	/* the tree both sides had,
						   before the copy was built */
	char			*copy_carried;	/* the copy's carried index,
						   its last proof's */
	struct strv		 fixed;		/* the paths it had wrong */
	struct treeid_job	 fast_job;	/* its side, as it stands */
	int			 fast_started;
	struct strv		 fast_edits;
	int			 recent_only;	/* and nothing else */
	struct strv		 recent_files;	/* those not directories */
	struct strv		 recent;	/* the copy's paths to look at
						   again, for its carried index */
	struct strv		 written;	/* and those forge wrote */
};

static void	proof_poll_src_side(void *);
static void	poll_early(void *);

/* The size of the repository's object ids, from HEAD's: 20 or 32 bytes
 * (0: not known). */
static size_t
proof_hash_size(const struct proof *p)
{
	size_t	n = p->r.head != NULL ? strlen(p->r.head) : 0;

	return n == 40 || n == 64 ? n / 2 : 0;
}

/*
 * Changed files larger than forge.copyThreshold are hashed by git on
 * each side without their blob being written (treeid.h, q.big): writing
 * one would cost git a second hash of it besides the write, and a tree
 * id needs neither -- unless git may convert a file, which can depend on
 * the blob its entry names (core.autocrlf, text=auto: line endings
 * already in the index are kept), read when git adds it again.
 */
static long long
proof_big(const struct proof *p)
{
	long long	t = p->r.big;

	return t < 0 ? 1 : t < LLONG_MAX ? t + 1 : t;
}

/*
 * The source's side of a reused copy's proof starts from the index the
 * last run's source side ended with, not from the source's own: git's
 * stat cache then spares every file that did not change since, untracked
 * ones included, where the source's index would have git read again
 * each file it differs from, every run.  That index is git add -A's from
 * an index with the same entries, which is what the key says; what it
 * says of a file is git's own stat cache, no more trusted than git
 * trusts it.  The untracked files are in the key too: git add -A would
 * keep the entry it made of one that has since become ignored.  When
 * the two sides differ, the source's side is computed again without it
 * before anything is said.
 */
/*
 * What the key file holds: the key, and what the index kept with it was
 * as forge left it -- its inode, size and times, to the nanosecond (a
 * change time nothing can set), and the checksum git wrote at its end
 * -- so that an index anything but forge changed since (a git run with
 * it for GIT_INDEX_FILE, a command writing beside its copy) is not taken
 * for the one forge kept.  Nothing of it is read but its end: a digest
 * of it all cost each run a few milliseconds per index.  NULL if the
 * index cannot be looked at.
 */
static char *
seal_of(const char *key, const char *idx)
{
	struct stat	 st;
	struct sum	 s;
	unsigned char	 end[32];
	char		*prefix, *seal;
	int		 fd;

	if ((fd = open(idx, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(end) ||
	    pread(fd, end, sizeof(end), st.st_size - (off_t)sizeof(end)) !=
	    (ssize_t)sizeof(end)) {
		close(fd);
		return NULL;
	}
	close(fd);
	sum_init(&s);
	sum_add(&s, end, sizeof(end));
	prefix = xasprintf("%sindex %ju %ju %jd %jd.%09ld %jd.%09ld ", key,
	    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
	    (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
	    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
	    st.st_ctim.tv_nsec);
	seal = sum_line(&s, prefix);
	free(prefix);
	return seal;
}

/* Does the key file at path seal idx for key? */
static int
seal_holds(const char *path, const char *key, const char *idx)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*seal = NULL;
	int		 ok;

	ok = lstat(idx, &st) == 0 && S_ISREG(st.st_mode) &&
	    fs_read_file(path, &b, 4096) == 0 && b.data != NULL &&
	    (seal = seal_of(key, idx)) != NULL && strcmp(b.data, seal) == 0;
	free(seal);
	buf_free(&b);
	return ok;
}

/* Seal idx for key in the key file at path: -1 if it cannot be. */
static int
seal_write(const char *path, const char *key, const char *idx)
{
	char	*seal;
	int	 ret;

	if ((seal = seal_of(key, idx)) == NULL)
		return -1;
	ret = fs_write_atomic(path, seal, strlen(seal), 0600);
	free(seal);
	return ret;
}

static char *
proof_carry_src_key(const struct proof_repo *pr, const struct lsfiles *l)
{
	struct sum	 s;

	sum_init(&s);
	sum_str(&s, pr->src);
	sum_str(&s, pr->gitdir);
	sum_strv(&s, "entries", pr->entries);
	/* git add -A keeps an entry it made of an untracked file that has
	 * since become ignored: the same untracked files, or none. */
	sum_strv(&s, "untracked", &l->untracked);
	sum_strv(&s, "flagged", &l->flagged);
	sum_strv(&s, "nested", &l->nested);
	/* A conflict's path resolved with git rm --cached leaves the
	 * entries as they were. */
	sum_strv(&s, "conflicts", &l->conflicts);
	sum_strv(&s, "exclude", pr->exclude);
	return sum_line(&s, "forge carry 5 ");
}

/* A file of a carried index, in the carry directory: side "src" (the
 * source's) or "dst" (the copy's), what "index" or "key" (its seal). */
static char *
proof_carry_path(const struct rundir *rd, size_t id, const char *side,
    const char *what)
{
	return xasprintf("%s/%s%zu.%s", rd->carry, side, id, what);
}

/* The carried index of a side, if the last run left one for key. */
static char *
proof_carry_find(const struct rundir *rd, size_t id, const char *side,
    const char *key)
{
	char	*path, *idx;

	path = proof_carry_path(rd, id, side, "key");
	idx = proof_carry_path(rd, id, side, "index");
	if (!seal_holds(path, key, idx)) {
		free(idx);
		idx = NULL;
	}
	free(path);
	return idx;
}

static void
proof_carry_drop(const struct rundir *rd, size_t id, const char *side)
{
	char	*path;

	path = proof_carry_path(rd, id, side, "key");
	(void)unlink(path);
	free(path);
	path = proof_carry_path(rd, id, side, "index");
	(void)unlink(path);
	free(path);
}

/* Carry the source's side's index to the next run (if that fails, the
 * next run starts from the source's own). */
static void
proof_carry_leave_src(struct proof *p)
{
	struct timespec	 t[2];
	char		*idx, *key;

	proof_carry_drop(p->rd, p->id, "src");
	if (p->src_key == NULL || (mkdir(p->rd->carry, 0700) == -1 &&
	    errno != EEXIST))
		return;
	idx = proof_carry_path(p->rd, p->id, "src", "index");
	key = proof_carry_path(p->rd, p->id, "src", "key");
	/* Timed as the source's side began: a file changed since then may
	 * have changed after git looked at it (proof_look_start()). */
	t[0].tv_sec = 0;
	t[0].tv_nsec = UTIME_OMIT;
	t[1] = p->src_since;
	if (treeid_keep(&p->src_job, idx) == 0 &&
	    (utimensat(AT_FDCWD, idx, t, 0) == -1 ||
	    seal_write(key, p->src_key, idx) == -1))
		(void)unlink(idx);
	free(idx);
	free(key);
}

/*
 * The copy's side of a reused copy can start from the index the last
 * run's copy's side ended with: git's stat cache of the copy's own files,
 * which the next run's git compares with each file as it then stands.
 * It is forge's, in the run's scratch space, never the copy's index that
 * the command sees and may rewrite; it has no flag that would make git
 * take an entry as it is, and its time is set when it is carried, so
 * that git looks again at every file as recent as that ("racily clean").
 * The key names the copy and how its side is computed.
 */
static char *
copy_key_of(const char *dst, int own_ignored, const struct strv *exclude)
{
	struct sum	 s;
	char		 m[16];
	mode_t		 mask;

	/* A file git's stat data says is untouched keeps the mode it was
	 * given under this umask (reuse.h's reuse_look_end()). */
	mask = fs_umask();
	snprintf(m, sizeof(m), "%o", (unsigned)mask);
	sum_init(&s);
	sum_str(&s, dst);
	sum_str(&s, own_ignored ? "own" : "none");
	sum_strv(&s, "exclude", exclude);
	sum_str(&s, m);
	return sum_line(&s, "forge carry copy 3 ");
}

static char *
copy_key(const struct proof *p)
{
	return copy_key_of(p->r.dst, p->r.own_ignored, p->r.exclude);
}

static char *
proof_carry_copy_find(const struct proof *p)
{
	char	*key, *idx;

	key = copy_key(p);
	idx = proof_carry_find(p->rd, p->id, "dst", key);
	free(key);
	return idx;
}

char *
proof_copy_carried(struct rundir *rd, size_t id, const char *dst,
    int own_ignored, struct timespec *since)
{
	struct strv	 none = STRV_INIT;
	struct stat	 st;
	char		*key, *idx;

	key = copy_key_of(dst, own_ignored, &none);
	idx = proof_carry_find(rd, id, "dst", key);
	free(key);
	since->tv_sec = 0;
	since->tv_nsec = 0;
	if (idx != NULL && stat(idx, &st) == 0)
		*since = st.st_mtim;
	return idx;
}

/* Carry the index the copy's side ended with to the next run, timed
 * now: no later change to a file can look older. */
static void
proof_carry_leave_copy(struct proof *p)
{
	struct timespec	 t[2];
	char		*idx, *key, *k;

	proof_carry_drop(p->rd, p->id, "dst");
	if (p->copy_index == NULL || p->r.sparse ||
	    (mkdir(p->rd->carry, 0700) == -1 && errno != EEXIST))
		return;
	idx = proof_carry_path(p->rd, p->id, "dst", "index");
	key = proof_carry_path(p->rd, p->id, "dst", "key");
	k = copy_key(p);
	t[0].tv_sec = 0;
	t[0].tv_nsec = UTIME_OMIT;
	clock_gettime(CLOCK_REALTIME_COARSE, &t[1]);
	fs_present(p->r.dst, &t[1]);
	if (rename(p->copy_index, idx) == -1 ||
	    utimensat(AT_FDCWD, idx, t, 0) == -1 ||
	    seal_write(key, k, idx) == -1)
		(void)unlink(idx);
	free(p->copy_index);
	p->copy_index = NULL;
	free(idx);
	free(key);
	free(k);
}

/* The copy's git, for its side of the proof. */
static void
proof_dst_git(struct proof *p, const char *dst_gitdir)
{
	memset(&p->dst_git, 0, sizeof(p->dst_git));
	p->dst_git.dir = p->r.dst;
	p->dst_git.gitdir = dst_gitdir;
	p->dst_git.worktree = p->r.dst;
}

/* "0 <zeros>\tpath": the update-index --index-info line removing path. */
static void
push_removal(struct strv *v, const char *entry)
{
	const char	*sp = strchr(entry, ' ');
	const char	*tab = strchr(entry, '\t');
	struct buf	 b = BUF_INIT;
	size_t		 n;

	buf_adds(&b, "0 ");
	for (n = sp != NULL && tab > sp ? (size_t)(tab - sp - 1) : 40; n > 0;
	    n--)
		buf_addc(&b, '0');
	buf_addc(&b, '\t');
	buf_adds(&b, lsfiles_entry_path(entry));
	strv_push(v, b.data);
	buf_free(&b);
}

/*
 * For the proof of the source: flagged entries are taken as they are on
 * disk -- put back without stat data or flags, or removed where there
 * is no file (as copy_flagged() makes the copy).
 */
static void
flagged_edits(const char *top, const struct lsfiles *l, struct strv *edits)
{
	struct stat	 st;
	char		*p;
	size_t		 i;

	for (i = 0; i < l->flagged.n; i++) {
		p = xasprintf("%s/%s", top, lsfiles_entry_path(l->flagged.v[i]));
		if (lstat(p, &st) == 0 &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			strv_push(edits, l->flagged.v[i]);
		else
			push_removal(edits, l->flagged.v[i]);
		free(p);
	}
}

/* "0 <zeros>\tpath": path's entry removed. */
static void
proof_no_entry(const struct proof *p, struct strv *v, const char *path)
{
	struct buf	 b = BUF_INIT;
	size_t		 k, oidlen = strlen(p->r.head);

	buf_adds(&b, "0 ");
	for (k = 0; k < oidlen; k++)
		buf_addc(&b, '0');
	buf_addc(&b, '\t');
	buf_adds(&b, path);
	strv_push(v, b.data);
	buf_free(&b);
}

/*
 * The update-index --index-info lines that make git look at each path
 * afresh in the copy: the source's own entry for it, without stat data
 * (what git converts a file to can depend on the entry: line endings
 * already in the index are kept), or "0 <zeros>\tpath", removing it,
 * where the source's index has none.
 */
static void
proof_fresh_entries(const struct proof *p, struct strv *v,
    const struct strv *paths)
{
	const char	*e;
	size_t		 i;

	for (i = 0; i < paths->n; i++) {
		if ((e = lsfiles_find(p->r.entries, paths->v[i])) != NULL)
			strv_push(v, e);
		else
			proof_no_entry(p, v, paths->v[i]);
	}
}

/*
 * In a copy that keeps ignored files of its own, where git add -A leaves
 * out what the working state ignores as it does in the source, a
 * conflict's path is tracked as it is there (the source's index has its
 * stages): the entry of the stage git add takes the mode of, without
 * stat data, put in first for git to look at afresh.
 */
static void
proof_conflict_entries(const struct proof *p, struct strv *v)
{
	if (p->r.own_ignored)
		strv_pushv(v, p->conflicts.v);
}

/*
 * The update-index --index-info lines that remove each path's entry:
 * git then adds the file as it finds it, with nothing of the entry it
 * had -- and none at all where it will not take the path (a .gitmodules
 * that is a symlink, say), which the proof then sees.
 */
static void
removal_entries(const struct proof *p, struct strv *v,
    const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		proof_no_entry(p, v, paths->v[i]);
}

/* Is path below top a directory (no symlink followed at its end)? */
static int
is_dir(const char *top, const char *path)
{
	struct stat	 st;
	char		*full;
	int		 r;

	full = xasprintf("%s/%s", top, path);
	r = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
	free(full);
	return r;
}

/*
 * The entries the copy's changed paths start from: none
 * (removal_entries()), but where the working tree's is a symlink --
 * with core.symlinks false git keeps a link's mode for the file it
 * checked out, from that entry -- and the path is no directory now.
 */
static void
copy_entries(const struct proof *p, struct strv *v, const struct strv *paths)
{
	const char	*e;
	size_t		 i;

	for (i = 0; i < paths->n; i++) {
		e = lsfiles_find(p->r.entries, paths->v[i]);
		if (e != NULL && strncmp(e, "120000 ", 7) == 0 &&
		    !is_dir(p->r.dst, paths->v[i]))
			strv_push(v, e);
		else
			proof_no_entry(p, v, paths->v[i]);
	}
}

/* The paths whose file below top is not a directory (a file, a symlink,
 * or gone): git takes no directory for a path, where a file was. */
static void
not_dirs(const char *top, const struct strv *paths, struct strv *out)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		if (!is_dir(top, paths->v[i]))
			strv_push(out, paths->v[i]);
}

/* Is a later than or as late as b? */
static int
not_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/*
 * The tracked paths of the copy changed since its checkout, other than
 * the expected ones (sorted, as git lists them) -- but for those git
 * hashed early, changed since it started -- whatever changed them:
 * every change sets a file's ctime to the present, which nobody can set
 * back, so a ctime before the checkout's end means that the file is as
 * git wrote it -- and as its index entry says.  A path that is gone, or
 * that cannot be looked at, counts as changed: git is to look at it.
 */
static void
touched_since_checkout(const struct proof *p, struct strv *paths,
    const struct strv *expected, struct treeid_job *job)
{
	struct stat	 st;
	struct buf	 cur = BUF_INIT;
	const struct timespec *since;
	const char	*path, *slash;
	size_t		 i, k = 0, dlen;
	int		 root, dir = -1, c;

	root = open(p->r.dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_str(&cur);
	/* One lookup per file: its directory is opened once for all of
	 * its files, which the list holds together. */
	for (i = 0; i < p->r.entries->n; i++) {
		/* The job's next step starts as soon as its last ends. */
		if ((i & 255) == 0)
			treeid_poll(job);
		path = lsfiles_entry_path(p->r.entries->v[i]);
		for (c = 1; k < expected->n &&
		    (c = strcmp(expected->v[k], path)) < 0; k++)
			;
		/* Forge wrote it: git looks anyway -- or has looked,
		 * early, and what changed it since is to be seen. */
		since = &p->checked_out;
		if (c == 0 && !strv_sorted_has(&p->early_done, path))
			continue;
		if (c == 0)
			since = &p->early_at;
		slash = strrchr(path, '/');
		dlen = slash != NULL ? (size_t)(slash - path) : 0;
		if (dir == -1 || cur.len != dlen ||
		    memcmp(cur.data, path, dlen) != 0) {
			if (dir != -1 && dir != root)
				close(dir);
			buf_reset(&cur);
			buf_add(&cur, path, dlen);
			dir = dlen == 0 || root == -1 ? root :
			    fs_open_dir(root, cur.data, 0, 0);
		}
		if (dir == -1 || fstatat(dir, slash != NULL ? slash + 1 : path,
		    &st, AT_SYMLINK_NOFOLLOW) == -1) {
			/* In a sparse checkout, where git looks at every
			 * file, paths outside the patterns are gone. */
			if (!p->r.sparse)
				strv_push(paths, path);
			continue;
		}
		if (not_before(&st.st_ctim, since) ||
		    not_before(&st.st_mtim, since))
			strv_push(paths, path);
	}
	if (dir != -1 && dir != root)
		close(dir);
	if (root != -1)
		close(root);
	buf_free(&cur);
}


/*
 * The present on the source's file system's clock, as stamps its files,
 * from the harness's directory in common when it is on the same file
 * system; else the clock's, to two seconds down (fs_present()).
 */
static void
proof_src_clock(const char *src, const char *common, struct timespec *t)
{
	struct stat	 a, b;
	char		*dir;

	clock_gettime(CLOCK_REALTIME_COARSE, t);
	dir = xasprintf("%s/forge", common);
	if (stat(src, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev)
		fs_present(dir, t);
	else {
		t->tv_sec &= ~(time_t)1;
		t->tv_nsec = 0;
	}
	free(dir);
}

/* The look itself: in a thread of its own, nothing but lk touched. */
static void *
look_run(void *arg)
{
	struct proof_look	*lk = arg;
	struct stat		 st;

	/* Not if the clock was set back since: a change could then be
	 * stamped before that index's time. */
	if (stat(lk->idx, &st) == 0 && st.st_mtim.tv_sec <= lk->since.tv_sec &&
	    gitindex_read(&lk->had, lk->idx, lk->rawsz) == 0) {
		lk->ok = gitindex_look(lk->src, &lk->had, &st.st_mtim,
		    &lk->stale, &lk->unsure) == 0;
		lk->seen = st;
	}
	return NULL;
}

void
proof_look_start(struct proof_look *lk, struct rundir *rd, size_t id,
    const char *src, const char *common, const char *head)
{
	memset(lk, 0, sizeof(*lk));
	/* Taken before the look: what changes from now on is stamped no
	 * earlier. */
	proof_src_clock(src, common, &lk->since);
	/* Believed only if sealed for this run's key, which needs the
	 * listing: proof_begin() says. */
	lk->idx = proof_carry_path(rd, id, "src", "index");
	lk->src = xstrdup(src);
	lk->rawsz = strlen(head) / 2;
	lk->running = sig_thread(&lk->thread, look_run, lk);
}

void
proof_look_wait(struct proof_look *lk)
{
	if (lk->running)
		(void)pthread_join(lk->thread, NULL);
	lk->running = 0;
}

const struct strv *
proof_source_paths(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_only : NULL;
}

const struct strv *
proof_source_gone(const struct proof *p)
{
	return p->src_req.only != NULL ? &p->look_gone : NULL;
}

long
proof_source_looked(const struct proof *p)
{
	return p->src_req.only != NULL ? (long)p->look_only.n : -1;
}

void
proof_look_free(struct proof_look *lk)
{
	proof_look_wait(lk);
	gitindex_free(&lk->had);
	strv_free(&lk->stale);
	strv_free(&lk->unsure);
	free(lk->idx);
	free(lk->src);
	memset(lk, 0, sizeof(*lk));
}

/*
 * The source's side from the carried index and the look at the source
 * begun before (proof_look_start()): git looks at the paths whose files
 * changed since, the ones the working state has that the index has not,
 * and nothing else; what the index has that the working state has not
 * (an untracked file gone or now ignored) is removed.  0: so it is set
 * up; -1: git is to look at every file (git add -A).
 */
static int
proof_look_take(struct proof *p, const struct lsfiles *l)
{
	const struct proof_look	*lk = p->r.look;
	struct strv		 fresh = STRV_INIT, untracked = STRV_INIT;
	struct strv		 gone = STRV_INIT, stale = STRV_INIT;
	struct strv		 add = STRV_INIT;
	struct stat		 st;
	const char		**want, *w, *h;
	size_t			 i, j, k, m, n, u;
	int			 c, isdir;

	if (lk == NULL || !lk->ok || p->src_carried == NULL ||
	    l->flagged.n > 0 || p->r.convert || p->r.sparse ||
	    p->r.exclude->n > 0)
		return -1;
	/* The index looked at is the one sealed for this key. */
	if (stat(p->src_carried, &st) == -1 || st.st_ino != lk->seen.st_ino ||
	    st.st_dev != lk->seen.st_dev || st.st_size != lk->seen.st_size ||
	    st.st_mtim.tv_sec != lk->seen.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != lk->seen.st_mtim.tv_nsec ||
	    st.st_ctim.tv_sec != lk->seen.st_ctim.tv_sec ||
	    st.st_ctim.tv_nsec != lk->seen.st_ctim.tv_nsec)
		return -1;
	/* What the working state has, sorted as the index is: the
	 * entries, the untracked files and the conflicts' paths, each
	 * what is on disk (none of them an entry). */
	strv_pushv(&untracked, l->untracked.v);
	strv_pushv(&untracked, l->unmerged.v);
	strv_sort(&untracked);
	n = p->r.entries->n + untracked.n;
	want = xreallocarray(NULL, n + 1, sizeof(*want));
	for (i = j = k = 0; k < n; k++) {
		w = i < p->r.entries->n ?
		    lsfiles_entry_path(p->r.entries->v[i]) : NULL;
		if (w != NULL && (j == untracked.n ||
		    strcmp(w, untracked.v[j]) < 0)) {
			want[k] = w;
			i++;
		} else
			want[k] = untracked.v[j++];
	}
	/*
	 * Against what the carried index has: what the working state has
	 * that changed since or is not in it, git is to look at (its entry
	 * afresh); what it has not, removed (an untracked file gone, or
	 * now ignored).  The changed paths come in the index's order.
	 */
	for (i = k = m = u = 0; i < n || k < lk->had.n;) {
		h = k < lk->had.n ? lk->had.v[k].path : NULL;
		c = i == n ? 1 : h == NULL ? -1 : strcmp(want[i], h);
		if (c < 0)
			strv_push(&add, want[i++]);
		else if (c > 0) {
			strv_push(&gone, h);
			strv_push(&p->look_gone, h);
			k++;
		} else {
			while (m < lk->stale.n && strcmp(lk->stale.v[m], h) < 0)
				m++;
			while (u < lk->unsure.n &&
			    strcmp(lk->unsure.v[u], h) < 0)
				u++;
			/* Changed where git's own look might miss it: its
			 * entry goes first; and where it is a directory now,
			 * which git would not take for the file it was. */
			isdir = m < lk->stale.n &&
			    strcmp(lk->stale.v[m], h) == 0 &&
			    is_dir(p->r.src, h);
			if (isdir)
				strv_push(&gone, h);
			else if (u < lk->unsure.n &&
			    strcmp(lk->unsure.v[u], h) == 0) {
				if (lk->had.v[k].mode == 0120000)
					strv_push(&fresh, h);
				else
					strv_push(&gone, h);
			}
			if (!isdir && m < lk->stale.n &&
			    strcmp(lk->stale.v[m], h) == 0)
				strv_push(&stale, h);
			i++;
			k++;
		}
	}
	/* A symlink's entry kept (with core.symlinks false, git keeps one
	 * that is a file on disk), the others removed (removal_entries()). */
	proof_fresh_entries(p, &p->edits, &fresh);
	removal_entries(p, &p->edits, &gone);
	for (i = 0; i < stale.n; i++)
		strv_push(&p->look_only, stale.v[i]);
	not_dirs(p->r.src, &add, &p->look_only);
	free(want);
	strv_free(&fresh);
	strv_free(&gone);
	strv_free(&stale);
	strv_free(&add);
	strv_free(&untracked);
	return 0;
}

/*
 * An entry of the index's that the carried index has not -- a tracked
 * file that was gone from disk when that index was made, there again
 * now -- is put in it first (update-index --index-info) for git add -A
 * to look at as the tracked file it is: as an untracked one, it would
 * leave it out where the working state ignores it.  A conflict's path,
 * the same (with the entry of proof_conflict_entries()) -- always, where git
 * may convert files: the line endings git keeps are those of the blob
 * of that entry, not of the one the carried index has.  0: so it is;
 * -1: the carried index is not to be started from (it cannot be read).
 */
static int
carried_lacks(struct proof *p, const struct lsfiles *l, struct strv *edits)
{
	struct gitindex	 had;
	const char	*path;
	size_t		 i, k;
	int		 c;

	if (gitindex_read(&had, p->src_carried, proof_hash_size(p)) == -1)
		return -1;
	for (i = 0; i < l->conflicts.n; i++)
		if (p->r.convert || gitindex_find(&had,
		    lsfiles_entry_path(l->conflicts.v[i])) == NULL)
			strv_push(edits, l->conflicts.v[i]);
	for (i = k = 0; i < p->r.entries->n; i++) {
		path = lsfiles_entry_path(p->r.entries->v[i]);
		for (c = 1; k < had.n && (c = strcmp(had.v[k].path, path)) < 0;
		    k++)
			;
		if (c != 0)
			strv_push(edits, p->r.entries->v[i]);
	}
	gitindex_free(&had);
	return 0;
}

struct proof *
proof_begin(const struct proof_repo *pr, const struct lsfiles *l,
    struct rundir *rd, size_t id)
{
	struct proof	*p;
	char		 tag[32];

	p = xcalloc(1, sizeof(*p));
	p->r = *pr;
	p->rd = rd;
	p->id = id;
	if (pr->look != NULL)
		p->src_since = pr->look->since;
	else
		proof_src_clock(pr->src, pr->common, &p->src_since);
	flagged_edits(pr->src, l, &p->edits);
	strv_pushv(&p->conflicts, l->conflicts.v);
	if (!pr->sparse) {
		p->src_key = proof_carry_src_key(pr, l);
		p->src_carried = proof_carry_find(rd, id, "src", p->src_key);
	}
	memset(&p->src_git, 0, sizeof(p->src_git));
	p->src_git.dir = pr->src;
	p->src_git.gitdir = pr->gitdir;
	p->src_git.worktree = pr->src;
	p->src_git.index = pr->index;
	/* Waiting for it, the copy's early hash is moved on. */
	p->src_idle.fn = poll_early;
	p->src_idle.arg = p;
	p->src_git.idle = &p->src_idle;
	p->src_req = (struct treeid_req)TREEID_INIT;
	p->src_req.git = &p->src_git;
	p->src_req.index = pr->index;
	p->src_req.start = p->src_carried;
	proof_scratch(&p->src_req, rd);
	p->src_req.alternates = pr->objects;
	p->src_req.edits = &p->edits;
	p->src_req.exclude = pr->exclude;
	p->src_req.base = pr->reused ? NULL : pr->head;
	p->src_req.sparse = pr->sparse;
	/* The files git looks at: those changed since the carried index,
	 * as a look at the source found (only then is the edits list, of
	 * no flagged entry, made of them); else all. */
	if (proof_look_take(p, l) == 0) {
		p->src_req.only = &p->look_only;
		/* Nothing reads what they hold (no conversion): their
		 * ids will do, and the tree's id, computed here, too. */
		p->src_req.info_only = 1;
		p->src_req.own = proof_hash_size(p);
		p->src_req.own_early = 1;
	} else if (p->src_carried != NULL &&
	    carried_lacks(p, l, &p->edits) == -1) {
		free(p->src_carried);
		p->src_carried = NULL;
		p->src_req.start = NULL;
	}
	/* A carried index has git look at little, and diff-files would
	 * look at every file once more. */
	if (p->src_carried == NULL && !pr->convert)
		p->src_req.big = proof_big(p);
	snprintf(tag, sizeof(tag), "src%zu", id);
	p->src_started = 1;
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1) {
		proof_free(p);
		return NULL;
	}
	return p;
}

void
proof_scratch(struct treeid_req *q, const struct rundir *rd)
{
	q->scratch = rd->scratch;
	q->objdir = rd->objects;
	q->blobdir = rd->blobs;
	q->lastdir = rd->blobs_last;
}

/*
 * Into *t, a time that anything written into the copy from now on is
 * stamped no earlier than, and what was written so far earlier.
 */
static void
written_since(const struct proof *p, struct timespec *t)
{
	struct timespec	last, step = { 0, 500000 };
	int		i;

	/*
	 * The coarse clock: file times are taken from it, so anything
	 * written from now on is at least this recent.  Taken once it has
	 * moved past the latest time the file system has stamped anything
	 * with (a step is a few ms; the file system may stamp finer times,
	 * ahead of it), so that no file written so far is as recent: those
	 * are not taken for touched since, and looked at again, every run.
	 * Nothing writes into the copy in between.  A clock that does not
	 * move is taken as it is.
	 */
	clock_gettime(CLOCK_REALTIME_COARSE, t);
	if (fs_stamp(p->r.dst, &last) == -1 || !not_before(&last, t))
		last = *t;
	for (i = 0; i < 100 && not_before(&last, t); i++) {
		(void)nanosleep(&step, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, t);
	}
	fs_present(p->r.dst, t);
}

void
proof_checked_out(struct proof *p)
{
	written_since(p, &p->checked_out);
}

void
proof_index_ready(struct proof *p, const char *dst_gitdir)
{
	free(p->dst_gitdir);
	p->dst_gitdir = xstrdup(dst_gitdir);
	free(p->dst_index);
	p->dst_index = xasprintf("%s/index", dst_gitdir);
	p->index_ready = 1;
}

/*
 * Once the source's side knows which paths differ from HEAD, and git is
 * done with the copy's index, prepare that index for the copy's side:
 * those paths' entries lose their stat data (proof_fresh_entries()), so that
 * git looks at their files afresh.  The others keep what the checkout
 * recorded, which git compares with each file as it stands -- and forge
 * too, in touched_since_checkout(), for a change git's stat data could
 * not tell from the checkout.  So the index the copy's side ends with
 * holds nothing git did not see for itself: a reused copy's next proof
 * can start from it (proof_reused()).
 */
static void
start_prep(struct proof *p)
{
	const struct strv	*done = NULL;
	char			*early = NULL, tag[32];
	size_t			 i;

	if (p->prep_started || !p->index_ready || !p->src_started ||
	    !treeid_done(&p->src_job) || p->src_job.failed ||
	    (p->early_started && !treeid_done(&p->early_job)))
		return;
	p->prep_started = 1;
	/* What git hashed early keeps the stat data it found, which is
	 * git's own look at the file forge wrote last. */
	if (p->early_started && (early = treeid_finish(&p->early_job)) != NULL)
		done = &p->early_job.big;
	for (i = 0; done != NULL && i < done->n; i++)
		strv_push(&p->early_done, done->v[i]);
	for (i = 0; i < p->src_job.changed.n; i++)
		if (done == NULL || !strv_sorted_has(done,
		    p->src_job.changed.v[i]))
			strv_push(&p->rest, p->src_job.changed.v[i]);
	proof_fresh_entries(p, &p->prep_edits, &p->rest);
	proof_dst_git(p, p->dst_gitdir);
	p->prep_req = (struct treeid_req)TREEID_INIT;
	p->prep_req.git = &p->dst_git;
	p->prep_req.index = early != NULL ? early : p->dst_index;
	proof_scratch(&p->prep_req, p->rd);
	p->prep_req.alternates = p->r.objects;
	p->prep_req.edits = &p->prep_edits;
	p->prep_req.trust = 1;
	p->prep_req.edits_only = 1;
	snprintf(tag, sizeof(tag), "prep%zu", p->id);
	(void)treeid_start(&p->prep_job, &p->prep_req, tag);
	/* The prepared index is a copy: the early one can go. */
	if (p->early_started) {
		treeid_free(&p->early_job);
		p->early_started = 0;
	}
	free(early);
	p->prep_req.index = p->dst_index;
}

/*
 * The files copied whole are the large ones: git hashes those in the
 * copy as soon as forge has written them, while the source's side still
 * runs, rather than after it.  Each starts from the source's entry, as
 * proof_fresh_entries() makes it (what git converts a file to can depend on
 * it); those the source's index has no plain file entry for are left to
 * the copy's side.  The caller vouches that git would convert them as
 * the copy's side would (proof.h).  One that anything changes after
 * git started is looked at again (touched_since_checkout()).  Not for a
 * copy whose indexes are carried (its side may be proved as it stands,
 * from that index), nor in a sparse checkout.
 */
void
proof_copied(struct proof *p, const struct strv *paths)
{
	const char	*e;
	char		 tag[32];
	size_t		 i;

	if (p->early_started || p->prep_started || !p->index_ready ||
	    p->r.sparse || p->r.carry || p->r.convert)
		return;
	for (i = 0; i < paths->n; i++) {
		e = lsfiles_find(p->r.entries, paths->v[i]);
		if (e != NULL && (strncmp(e, "100644 ", 7) == 0 ||
		    strncmp(e, "100755 ", 7) == 0)) {
			strv_push(&p->early_paths, paths->v[i]);
			strv_push(&p->early_edits, e);
		}
	}
	if (p->early_paths.n == 0)
		return;
	proof_dst_git(p, p->dst_gitdir);
	/* Waiting for it, the source's side is moved on. */
	p->copy_idle.fn = proof_poll_src_side;
	p->copy_idle.arg = p;
	p->dst_git.idle = &p->copy_idle;
	p->early_req = (struct treeid_req)TREEID_INIT;
	p->early_req.git = &p->dst_git;
	p->early_req.index = p->dst_index;
	proof_scratch(&p->early_req, p->rd);
	p->early_req.alternates = p->r.objects;
	p->early_req.edits = &p->early_edits;
	p->early_req.trust = 1;
	p->early_req.edits_only = 1;
	p->early_req.big = proof_big(p);
	p->early_req.big_from = &p->early_paths;
	snprintf(tag, sizeof(tag), "early%zu", p->id);
	/* Each file changed from now on is looked at again (its stat data
	 * to the second could not tell). */
	written_since(p, &p->early_at);
	p->early_started = 1;
	if (treeid_start(&p->early_job, &p->early_req, tag) == -1) {
		treeid_free(&p->early_job);
		p->early_started = 0;
	}
}

int
proof_source_changed(const struct proof *p, const struct strv **changed)
{
	if (p->src_req.base == NULL || !treeid_done(&p->src_job))
		return 0;
	if (p->src_job.failed)
		return -1;
	*changed = &p->src_job.changed;
	return 1;
}

/* Asked for once a reused copy is not proved as it stood: that way
 * never needs them. */
int
proof_list_changed(struct proof *p)
{
	if (p->src_req.base != NULL)
		return 0;
	p->src_req.base = p->r.head;
	return treeid_changed(&p->src_job, p->r.head);
}

void
proof_poll(struct proof *p)
{
	if (p->src_started)
		treeid_poll(&p->src_job);
	if (p->fast_started)
		treeid_poll(&p->fast_job);
	if (p->early_started)
		treeid_poll(&p->early_job);
	start_prep(p);
	if (p->prep_started)
		treeid_poll(&p->prep_job);
}

/* Say how the two trees differ, at most 20 paths of it. */
static void
differs(const struct proof *p, const struct treeid_req *q, const char *a,
    const char *b)
{
	struct strv	paths = STRV_INIT;
	size_t		j;

	warnx("the copy is not the working state: tree %.12s in %s, %.12s "
	    "in the copy; refusing to verify", a, fs_vis(p->r.src), b);
	if (treeid_diff(q, a, b, &paths) == 0) {
		for (j = 0; j < paths.n && j < 20; j++)
			fprintf(stderr, "\tdiffers: %s%s\n", fs_vis(p->r.rel),
			    fs_vis(paths.v[j]));
		if (paths.n > 20)
			fprintf(stderr, "\t... and %zu more\n", paths.n - 20);
	}
	strv_free(&paths);
}

/*
 * The paths of v that changed in the copy since *t (or cannot be looked
 * at), into out: git hashed them then, before the add that took its
 * word for them.
 */
static void
changed_since(const struct proof *p, const struct strv *v,
    const struct timespec *t, struct strv *out)
{
	struct stat	st;
	size_t		i;
	int		root;

	root = open(p->r.dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < v->n; i++)
		if (root == -1 || fstatat(root, v->v[i], &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || not_before(&st.st_ctim, t) ||
		    not_before(&st.st_mtim, t))
			strv_push(out, v->v[i]);
	if (root != -1)
		close(root);
}

/* Hold the index a job of the copy's side ended with, for
 * proof_carry_leave_copy() once the two sides agree. */
static void
proof_hold_copy_index(struct proof *p, struct treeid_job *job)
{
	char	*path;

	path = xasprintf("%s/tree-copy%zu.kept", p->rd->scratch, p->id);
	if (p->copy_index != NULL)
		(void)unlink(p->copy_index);
	free(p->copy_index);
	p->copy_index = NULL;
	if (treeid_keep(job, path) == 0)
		p->copy_index = path;
	else
		free(path);
}

/*
 * The copy's side.  Its index is its checkout's, and git wrote it with
 * the files: all "racily clean", that recent, and git would read every
 * one of them again.  Instead, the entries of the paths where the source
 * differs from HEAD, which forge wrote, go, and git looks at those
 * afresh; the rest are taken as they are, without git looking at their
 * files -- once forge has seen that no other file changed since the
 * checkout, which it does while git works.  In a sparse checkout, git
 * looks at them and trusts their stat data instead.  Nothing git ignores
 * is ever in the copy, so a tracked file that an ignore rule matches
 * counts there too (-f) -- except in a copy that keeps ignored files of
 * its own (build output), where git must leave them out as it does in
 * the source: the source's staged files are tracked there too, by the
 * entries proof_fresh_entries() put back.
 */
static char *
copy_tree(struct proof *p, struct treeid_req *q, struct strv *edits)
{
	struct treeid_job	 job;
	struct timespec		 start;
	struct strv		 paths = STRV_INIT;
	char			*b = NULL, *ci, tag[32];

	/* The prepared index: usually ready by now. */
	if (p->early_started && !treeid_done(&p->early_job))
		free(treeid_finish(&p->early_job));
	start_prep(p);
	if (!p->prep_started || (ci = treeid_finish(&p->prep_job)) == NULL)
		return NULL;
	q->git = &p->dst_git;
	q->index = ci;
	proof_scratch(q, p->rd);
	q->alternates = p->r.objects;
	q->edits = edits;
	q->exclude = p->r.exclude;
	q->force = !p->r.own_ignored;
	proof_conflict_entries(p, edits);
	q->trust = 1;
	q->sparse = p->r.sparse;
	if (!p->r.convert) {
		q->big = proof_big(p);
		q->big_from = &p->rest;
	}
	/* What changes from now on is stamped no earlier (a file forge
	 * wrote this instant too, which costs git a look only). */
	clock_gettime(CLOCK_REALTIME_COARSE, &start);
	fs_present(p->r.dst, &start);
	snprintf(tag, sizeof(tag), "copy%zu", p->id);
	if (treeid_start(&job, q, tag) == 0) {
		touched_since_checkout(p, &paths, &p->src_job.changed, &job);
		if ((b = treeid_finish(&job)) != NULL)
			changed_since(p, &job.big, &start, &paths);
	}
	if (b != NULL && paths.n > 0) {
		/* Something else changed too: look at it as well, git
		 * adding each file itself. */
		treeid_free(&job);
		free(b);
		b = NULL;
		q->big = 0;
		q->big_from = NULL;
		proof_fresh_entries(p, edits, &paths);
		snprintf(tag, sizeof(tag), "copy%zu-again", p->id);
		if (treeid_start(&job, q, tag) == 0)
			b = treeid_finish(&job);
	}
	if (b != NULL)
		proof_hold_copy_index(p, &job);
	treeid_free(&job);
	strv_free(&paths);
	free(ci);
	q->index = NULL;
	return b;
}

/* The source's side again, from the source's own index: its job's
 * index is then that one's, for the next run. */
static char *
src_side_afresh(struct proof *p)
{
	char	tag[32];

	p->src_afresh++;
	treeid_free(&p->src_job);
	p->src_req.start = NULL;
	/* Every file looked at: the look's lists (of no flagged entry's
	 * edits: there was none) are for the carried index alone. */
	if (p->src_req.only != NULL) {
		p->src_req.only = NULL;
		p->src_req.info_only = 0;
		p->src_req.own = 0;
		strv_clear(&p->edits);
	}
	snprintf(tag, sizeof(tag), "src%zu-afresh", p->id);
	if (treeid_start(&p->src_job, &p->src_req, tag) == -1)
		return NULL;
	return treeid_finish(&p->src_job);
}

/* The source's side's tree, once: NULL if it failed (said why). */
static const char *
proof_src_side_tree(struct proof *p)
{
	const char	*t;

	if (p->src_tree != NULL || p->src_failed)
		return p->src_tree;
	/* The paths that differ from HEAD are listed after: not waited
	 * for (proof_source_changed()). */
	if ((t = treeid_wait_tree(&p->src_job)) != NULL)
		p->src_tree = xstrdup(t);
	else if (p->src_carried != NULL) {
		free(p->src_carried);
		p->src_carried = NULL;
		p->src_tree = src_side_afresh(p);
	}
	if (p->src_tree == NULL)
		p->src_failed = 1;
	return p->src_tree;
}

/* The source's side run to its end (the paths that differ from HEAD
 * listed too): -1 if it failed. */
static int
src_side_done(struct proof *p)
{
	if (!treeid_done(&p->src_job))
		free(treeid_finish(&p->src_job));
	return p->src_job.failed ? -1 : 0;
}

/* While the copy's side runs: the source's moves on too. */
static void
proof_poll_src_side(void *arg)
{
	struct proof	*p = arg;

	treeid_poll(&p->src_job);
}

/* While the source's side runs: the copy's early hash moves on too. */
static void
poll_early(void *arg)
{
	struct proof	*p = arg;

	if (p->early_started)
		treeid_poll(&p->early_job);
}

/*
 * "old new\tpath" for each path where tree b differs from tree a: the
 * modes, "000000" where a tree has none.  With index (b NULL), where the
 * tree that index would make differs from a -- and with swap, each line
 * the other way round: where a differs from that index's tree.
 */
static int
tree_changes(const struct git *dg, const struct rundir *rd,
    const char *objects, const char *a, const char *b, const char *index,
    int swap, struct strv *fix)
{
	const char *const	 trees[] = { "diff-tree", "-r", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, b, NULL };
	const char *const	 cached[] = { "diff-index", "--cached", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, "--", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	const char		*r, *path, *end;
	int			 st;

	g = *dg;
	g.index = index;
	g.idle = NULL;
	g.objdir = rd->objects;
	g.alternates = objects;
	if ((st = git_run(&g, index != NULL ? cached : trees, 0, NULL, &out,
	    NULL)) != 0) {
		buf_free(&out);
		return -1;
	}
	/* ":100644 100644 <oid> <oid> M" NUL path NUL, each. */
	for (r = out.data, end = r + out.len; r != NULL && r < end;
	    r = path + strlen(path) + 1) {
		path = r + strlen(r) + 1;
		if (path >= end || strlen(r) < 15 || r[0] != ':') {
			st = -1;
			break;
		}
		if (swap)
			strv_pushf(fix, "%.6s %.6s\t%s", r + 8, r + 1, path);
		else
			strv_pushf(fix, "%.6s %.6s\t%s", r + 1, r + 8, path);
	}
	buf_free(&out);
	return st == 0 ? 0 : -1;
}

const char *
proof_reused_index(struct proof *p)
{
	if (p->copy_carried == NULL && !p->r.sparse)
		p->copy_carried = proof_carry_copy_find(p);
	return p->copy_carried;
}

time_t
proof_reused_time(struct proof *p)
{
	struct stat	st;

	if (proof_reused_index(p) == NULL || stat(p->copy_carried, &st) == -1)
		return 0;
	return st.st_mtim.tv_sec;
}

void
proof_reused_look(struct proof *p, const struct strv *paths, int only)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->recent, paths->v[i]);
	p->recent_only = only;
}

void
proof_reused_written(struct proof *p, const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->written, paths->v[i]);
}

const char *
proof_copy_index(const struct proof *p)
{
	return p->copy_index;
}

int
proof_reused_start(struct proof *p, const char *dst_gitdir)
{
	struct treeid_req	 q = TREEID_INIT;
	char			*start, tag[32];

	if (p->r.sparse || p->settled != NULL || p->copy_runs > 1 ||
	    p->fast_started)
		return -1;
	if (p->dst_gitdir == NULL)
		p->dst_gitdir = xstrdup(dst_gitdir);
	if (p->copy_index != NULL)
		start = xstrdup(p->copy_index);
	else if (p->copy_runs > 0 || proof_reused_index(p) == NULL)
		return -1;
	else
		start = xstrdup(p->copy_carried);
	proof_dst_git(p, p->dst_gitdir);
	p->copy_idle.fn = proof_poll_src_side;
	p->copy_idle.arg = p;
	p->dst_git.idle = &p->copy_idle;
	q.git = &p->dst_git;
	q.start = start;
	proof_scratch(&q, p->rd);
	q.alternates = p->r.objects;
	q.exclude = p->r.exclude;
	q.force = !p->r.own_ignored;
	/*
	 * Once forge has put paths right, git looks at those again, and at
	 * nothing else: nothing but forge wrote in the copy since git
	 * looked at all of it, and each file forge wrote is a new inode
	 * (reuse_fix()), which git's stat data cannot take for the old.
	 */
	strv_free(&p->fast_edits);
	if (p->copy_runs > 0)
		q.only = &p->fixed;
	else {
		/* Each path whose file is not as git saw it last is looked
		 * at afresh, its entry gone first: git would otherwise
		 * trust its stat data where it cannot tell a change (a git
		 * that keeps whole seconds), or keep the entry of a path it
		 * will not take. */
		if (p->recent.n > 0) {
			if (p->recent_only)
				copy_entries(p, &p->fast_edits, &p->recent);
			else
				proof_fresh_entries(p, &p->fast_edits,
				    &p->recent);
			q.edits = &p->fast_edits;
		}
		if (p->recent_only) {
			strv_clear(&p->recent_files);
			not_dirs(p->r.dst, &p->recent, &p->recent_files);
			not_dirs(p->r.dst, &p->written, &p->recent_files);
			q.only = &p->recent_files;
		} else if (p->r.own_ignored && p->conflicts.n > 0) {
			proof_conflict_entries(p, &p->fast_edits);
			q.edits = &p->fast_edits;
		}
	}
	/* Proved as it stands only where git converts nothing
	 * (snapshot.c): the ids of what git hashes will do, and the
	 * tree's id, computed here. */
	q.info_only = 1;
	q.own = proof_hash_size(p);
	snprintf(tag, sizeof(tag), "reused%zu-%d", p->id, p->copy_runs++);
	p->fast_started = 1;
	if (treeid_start(&p->fast_job, &q, tag) == -1)
		p->fast_job.failed = 1;
	free(start);
	return 0;
}

/*
 * The source's side's entries, to compare the copy's with, as soon as
 * git has staged its files: those its job computed its tree from, else
 * those of the index git writes its tree from, while it still does
 * (read into own, which the caller frees).  NULL if neither: the tree
 * is to be waited for.
 */
static const struct gitindex *
src_side_entries(struct proof *p, size_t rawsz, struct gitindex *own)
{
	const struct gitindex	*e;
	const char		*idx;

	if (p->src_failed)
		return NULL;
	if (p->src_req.own != 0 &&
	    (e = treeid_wait_entries(&p->src_job)) != NULL)
		return e;
	if (p->src_tree != NULL ||
	    (idx = treeid_wait_added(&p->src_job)) == NULL ||
	    p->src_job.tree != NULL || gitindex_read(own, idx, rawsz) == -1)
		return NULL;
	return own;
}

int
proof_reused(struct proof *p, const char *dst_gitdir, struct strv *fix)
{
	const struct gitindex	*ours, *theirs = NULL;
	struct gitindex		 read;
	const char		*a, *idx;
	char			*b = NULL;
	size_t			 i;
	int			 ret = -1, afresh;

	memset(&read, 0, sizeof(read));
	if (!p->fast_started && proof_reused_start(p, dst_gitdir) == -1)
		return -1;
	p->fast_started = 0;
	/* The copy's entries as git staged its files (no tree hashed:
	 * the same entries as the source's are the same tree), else the
	 * tree git wrote. */
	ours = p->fast_job.failed ? NULL : treeid_wait_entries(&p->fast_job);
	if (ours == NULL && !p->fast_job.failed)
		b = treeid_finish(&p->fast_job);
	p->dst_git.idle = NULL;
	if (ours == NULL && b == NULL)
		goto out;
	proof_hold_copy_index(p, &p->fast_job);
	if (ours != NULL) {
		afresh = p->src_afresh;
		if ((theirs = src_side_entries(p, ours->rawsz, &read)) != NULL)
			gitindex_diff(ours, theirs, fix);
		else if ((a = proof_src_side_tree(p)) == NULL ||
		    p->copy_index == NULL || tree_changes(&p->dst_git, p->rd,
		    p->r.objects, a, NULL, p->copy_index, 1, fix) == -1)
			goto out;
		if (fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		/* The same entries: the source's tree -- of those entries,
		 * not one computed again since (its git failed). */
		if ((a = proof_src_side_tree(p)) == NULL ||
		    (theirs != NULL && p->src_afresh != afresh))
			goto out;
		p->settled = xstrdup(a);
		ret = 1;
		goto out;
	}
	/*
	 * The source's tree may still be being written (git writes each
	 * tree that changed): what differs is then found from the index it
	 * is written from, and the copy put right meanwhile.  Only when
	 * nothing does is the tree waited for here.
	 */
	if (p->src_tree == NULL && !p->src_failed &&
	    (idx = treeid_wait_added(&p->src_job)) != NULL &&
	    p->src_job.tree == NULL && treeid_entries(&p->src_job) == NULL) {
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    idx, 0, fix) == 0 && fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		strv_clear(fix);
	}
	if ((a = proof_src_side_tree(p)) == NULL)
		goto out;
	if (strcmp(a, b) == 0) {
		p->settled = b;
		b = NULL;
		ret = 1;
	} else if (treeid_entries(&p->src_job) != NULL) {
		/* No tree of the source's for git to read. */
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    p->src_job.index, 0, fix) == 0)
			ret = 0;
	} else if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, a,
	    NULL, 0, fix) == 0)
		ret = 0;
fixed:
	for (i = 0; ret == 0 && i < fix->n; i++)
		strv_push(&p->fixed, strchr(fix->v[i], '\t') + 1);
out:
	if (theirs == &read)
		gitindex_free(&read);
	treeid_free(&p->fast_job);
	if (ret == -1) {
		/* The full way, from the copy's checkout index. */
		if (p->copy_index != NULL)
			(void)unlink(p->copy_index);
		free(p->copy_index);
		p->copy_index = NULL;
		strv_clear(fix);
	}
	free(b);
	return ret;
}

char *
proof_finish(struct proof *p)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	const char		*src;
	char			*a = NULL, *b = NULL;

	if ((src = proof_src_side_tree(p)) == NULL || src_side_done(p) == -1)
		goto fail;
	a = xstrdup(src);
	if (p->settled != NULL) {
		/* Proved before the copy was touched: nothing since. */
		b = p->settled;
		p->settled = NULL;
	} else {
		if (p->copy_index != NULL) {
			/* A reused copy's side that was not settled. */
			(void)unlink(p->copy_index);
			free(p->copy_index);
			p->copy_index = NULL;
		}
		if ((b = copy_tree(p, &q, &edits)) == NULL)
			goto fail;
	}
	if (strcmp(a, b) != 0 && p->src_carried != NULL) {
		/* Not a word before the source's side is its own. */
		proof_carry_drop(p->rd, p->id, "src");
		free(a);
		free(p->src_carried);
		p->src_carried = NULL;
		free(p->src_tree);
		if ((p->src_tree = src_side_afresh(p)) == NULL) {
			p->src_failed = 1;
			goto fail;
		}
		a = xstrdup(p->src_tree);
	}
	if (strcmp(a, b) != 0) {
		differs(p, &q, a, b);
		goto fail;
	}
	if (p->r.carry) {
		proof_carry_leave_src(p);
		proof_carry_leave_copy(p);
	}
	free(b);
	strv_free(&edits);
	return a;
fail:
	proof_carry_drop(p->rd, p->id, "src");
	proof_carry_drop(p->rd, p->id, "dst");
	free(a);
	free(b);
	strv_free(&edits);
	return NULL;
}

void
proof_free(struct proof *p)
{
	if (p == NULL)
		return;
	if (p->src_started)
		treeid_free(&p->src_job);
	if (p->prep_started)
		treeid_free(&p->prep_job);
	if (p->early_started)
		treeid_free(&p->early_job);
	strv_free(&p->early_paths);
	strv_free(&p->early_edits);
	strv_free(&p->early_done);
	strv_free(&p->rest);
	strv_free(&p->edits);
	strv_free(&p->conflicts);
	strv_free(&p->look_only);
	strv_free(&p->look_gone);
	strv_free(&p->recent_files);
	strv_free(&p->prep_edits);
	free(p->dst_index);
	free(p->dst_gitdir);
	free(p->src_key);
	free(p->src_carried);
	free(p->src_tree);
	if (p->copy_index != NULL)
		(void)unlink(p->copy_index);
	free(p->copy_index);
	free(p->settled);
	free(p->copy_carried);
	strv_free(&p->fixed);
	strv_free(&p->recent);
	strv_free(&p->written);
	if (p->fast_started)
		treeid_free(&p->fast_job);
	strv_free(&p->fast_edits);
	free(p);
}

char *
proof_source_tree(struct rundir *rd, const struct repo *r)
{
	struct treeid_req	 q = TREEID_INIT;
	struct strv		 edits = STRV_INIT;
	struct lsfiles		 l;
	struct git		 g;
	char			*idx, *tree = NULL, *p;

	p = repo_index_path(r);
	idx = rundir_index(rd, p);
	free(p);
	if (idx == NULL)
		return NULL;
	repo_git(r, &g);
	g.index = idx;
	if (lsfiles_read(&l, &g) == -1) {
		free(idx);
		return NULL;
	}
	flagged_edits(r->top, &l, &edits);
	q.git = &g;
	q.index = idx;
	proof_scratch(&q, rd);
	q.alternates = r->objects;
	q.edits = &edits;
	tree = treeid_compute(&q, "src");
	free(idx);
	strv_free(&edits);
	lsfiles_free(&l);
	return tree;
}
