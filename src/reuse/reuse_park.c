/* Parked copies: a run's copy parked when it ends, claimed by the next. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_vis.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "registration.h"
#include "reuse.h"
#include "rundir.h"
#include "sig.h"
#include "strv.h"
#include "xmalloc.h"

struct record {
	char		*path;
	struct timespec	 mtime;		/* its last use */
};

static int
newest_first(const void *a, const void *b)
{
	const struct record	*x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The records read so far, in the walk's order. */
struct records {
	struct record	*v;
	size_t		 n;
};

/* A record of the journal kept, if it is a regular file. */
static int
keep_record(const char *path, void *arg)
{
	struct records	*r = arg;
	struct stat	 st;

	if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return 0;
	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	r->v[r->n].path = xstrdup(path);
	r->v[r->n].mtime = st.st_mtim;
	r->n++;
	return 0;
}

/* The records of the journal, most recently used first: a record's
 * modification time is its last use (a park, or a claim). */
static size_t
records(const char *common, struct record **out)
{
	struct records	 r = { NULL, 0 };

	(void)forgedir_records(common, keep_record, &r);
	if (r.n > 1)
		qsort(r.v, r.n, sizeof(*r.v), newest_first);
	*out = r.v;
	return r.n;
}

static void
records_free(struct record *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* Of w's pool: a copy of the same working tree, incremental or not as
 * w is, parked or in use (a record that was parked keeps its source). */
static int
wanted(const struct journal_entry *e, const struct reuse_want *w)
{
	return e->reuse_source != NULL &&
	    strcmp(e->reuse_source, w->source) == 0 &&
	    e->incremental == w->incremental && e->kept == NULL;
}

/* The kind of source the copy was last parked for. */
static const char *
kind_of(const struct journal_entry *e)
{
	return e->reuse_kind != NULL ? e->reuse_kind : REUSE_WORKTREE;
}

/* A record read as it stands, without its lock: 0, e filled. */
static int
peek(const char *path, struct journal_entry *e)
{
	struct buf	text = BUF_INIT;
	int		fd, r;

	memset(e, 0, sizeof(*e));
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	while (buf_read(&text, fd, 65536) > 0)
		;
	close(fd);
	r = journal_parse(text.data != NULL ? text.data : "", text.len, e);
	buf_free(&text);
	return r;
}

/* How many copies w's pool holds, parked or in use, but for the run
 * own's (NULL: none); and of them in use, into *busy if not NULL. */
static int
pool_size(const struct record *v, size_t n, const struct reuse_want *w,
    const char *own, int *busy)
{
	struct journal_entry	e;
	size_t			i;
	int			count = 0;

	if (busy != NULL)
		*busy = 0;
	for (i = 0; i < n; i++) {
		if (own != NULL && strcmp(fs_basename(v[i].path), own) == 0)
			continue;
		if (peek(v[i].path, &e) == 0 && e.reusable && wanted(&e, w)) {
			count++;
			if (busy != NULL && e.reuse == NULL)
				(*busy)++;
		}
		journal_entry_free(&e);
	}
	return count;
}

/* Is the parked copy still what was parked: the run's own directory,
 * the copy a directory in it, nothing mounted anywhere below? */
static int
intact(const struct journal_entry *e)
{
	struct stat	st;
	size_t		n = strlen(e->top);

	if (!journal_reclaim_top_is_runs(e))
		return 0;
	if (strncmp(e->reuse, e->top, n) != 0 || e->reuse[n] != '/' ||
	    strchr(e->reuse + n + 1, '/') != NULL ||
	    lstat(e->reuse, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	return fs_mount_below(e->top, NULL) == 0;
}

/*
 * A claimed copy's registration made what a fresh copy's would be now
 * (registration.h), before any git runs in it.  One that is no longer
 * the run's is left as it is: the sync refuses it (reuse_sync_begin()).
 */
static int
made_fresh(const struct rundir *rd, const char *copy, const char *common,
    const struct reuse_want *w)
{
	char	*adm;
	int	 r;

	if ((adm = registration_of(copy, common, rd->run)) == NULL)
		return 0;
	r = registration_fresh(adm, copy, common, w->gitdir, w->head);
	free(adm);
	return r;
}

/*
 * The record at path claimed for the run, if it is of w's pool and, as
 * same says, last parked for w's kind of source or for another: 1, rd
 * and c filled; 0, not (left as it was, or removed if tampered with).
 */
static int
claim_one(struct rundir *rd, const char *common, const struct reuse_want *w,
    const char *path, int same, struct reuse_claimed *c)
{
	struct journal_entry	 e;
	struct journal		 j;
	struct stat		 st;
	int			 ret = 0;

	if (journal_claim(&j, path, &e) != 0)
		return 0;	/* busy, or not parked */
	if (!wanted(&e, w) || (strcmp(kind_of(&e), w->kind) == 0) != same ||
	    !journal_reclaim_top_is_runs(&e)) {
		/* Not for this run; or not provably the run's: not ours to
		 * touch. */
		journal_close(&j, 0);
		journal_entry_free(&e);
		return 0;
	}
	if (!intact(&e)) {
		/* Not to be trusted, nor left: it goes, as far as it
		 * safely can (what stays is said). */
		warnx("the reusable copy %s was tampered with: removing it",
		    fs_vis(e.top));
		if (journal_note_use(&j) == -1)
			journal_close(&j, 0);
		else {
			/* Adopted or not, the run directory is rd's now,
			 * the journal with it. */
			if (rundir_adopt(rd, &j, &e) == 0)
				(void)rundir_remove(rd);
			rundir_free(rd);
		}
		journal_entry_free(&e);
		return 0;
	}
	/* Its last use, as it is locked: a put back keeps it. */
	if (fstat(j.fd, &st) == 0)
		c->used = st.st_mtim;
	/* Locked, still parked: a death here leaves it parked. */
	sig_test_stall("claim");
	if (journal_note_use(&j) == -1) {
		journal_close(&j, 0);
		journal_entry_free(&e);
		return 0;
	}
	/* The run's from here: a death leaves it to the reclaim. */
	sig_test_stall("adopt");
	if (rundir_adopt(rd, &j, &e) != 0)
		rundir_free(rd);
	else if (made_fresh(rd, e.reuse, common, w) == -1) {
		if (!sig_pending())
			warnx("the reusable copy %s cannot be given a fresh "
			    "copy's registration: removing it", fs_vis(e.top));
		(void)rundir_remove(rd);
		rundir_free(rd);
	} else {
		c->setup = xstrdup(e.reuse_setup != NULL ? e.reuse_setup : "");
		c->copy = xstrdup(e.reuse);
		c->kind = xstrdup(kind_of(&e));
		ret = 1;
	}
	journal_entry_free(&e);
	return ret;
}

int
reuse_park_claim(struct rundir *rd, const char *common,
    const struct reuse_want *w, struct reuse_claimed *c)
{
	struct record	*v;
	size_t		 i, n;
	int		 ret = 0;

	memset(c, 0, sizeof(*c));
	n = records(common, &v);
	/* The closest first: the most recently used of its own kind. */
	for (i = 0; i < n && ret == 0; i++)
		ret = claim_one(rd, common, w, v[i].path, 1, c);
	/* Another kind's only where this run's copy would leave no room
	 * for it (reuse_park()): the one that would go first. */
	if (ret == 0 && pool_size(v, n, w, NULL, NULL) >= w->max)
		for (i = n; i-- > 0 && ret == 0;)
			ret = claim_one(rd, common, w, v[i].path, 0, c);
	records_free(v, n);
	return ret;
}

void
reuse_park_claimed_free(struct reuse_claimed *c)
{
	free(c->setup);
	free(c->copy);
	free(c->kind);
	memset(c, 0, sizeof(*c));
}

/*
 * The parked copy at path removed with its record, for room: 1; 0 if it
 * is not of w's pool, or busy (a run has it), or would not go (said).
 */
static int
evict(const char *path, const struct reuse_want *w)
{
	struct journal_entry	 e;
	struct journal		 j;
	struct strv		 left = STRV_INIT;
	size_t			 i;
	int			 ret = 0;

	if (journal_claim(&j, path, &e) != 0)
		return 0;
	if (!wanted(&e, w)) {
		journal_close(&j, 0);
		journal_entry_free(&e);
		return 0;
	}
	if (journal_reclaim_copy(&e, 0, &left) == 0) {
		fprintf(stderr, "forge: removed the least recently used "
		    "reusable copy %s, as forge.reuseCopies is %d\n",
		    fs_vis(e.reuse), w->max);
		ret = 1;
	} else
		for (i = 0; i < left.n; i++)
			warnx("%s: left in place, forge gc will try again",
			    left.v[i]);
	journal_close(&j, ret);
	journal_entry_free(&e);
	strv_free(&left);
	return ret;
}

/* Room in w's pool for the run own's copy, made by removing the least
 * recently used parked ones: is there?  None is removed where the
 * copies in use leave no room anyway. */
static int
room(const char *common, const struct reuse_want *w, const char *own)
{
	struct record	*v;
	size_t		 i, n;
	int		 count, busy;

	if (w->max <= 0)
		return 0;
	n = records(common, &v);
	count = pool_size(v, n, w, own, &busy);
	for (i = n; i-- > 0 && count >= w->max && busy < w->max;)
		if (strcmp(fs_basename(v[i].path), own) != 0 &&
		    evict(v[i].path, w))
			count--;
	records_free(v, n);
	return count < w->max;
}

/*
 * Is the run's copy fit to park: would the next run find it intact?  Its
 * command could have undone the proof that the directory is the run's
 * (the mark beside the copy, the directory's mode); parked so, it could
 * never be claimed, nor removed by anyone but the run: it goes now.
 */
static int
provable(const struct rundir *rd, const char *copy)
{
	struct journal_entry	e;
	int			ok;

	memset(&e, 0, sizeof(e));
	e.run = xstrdup(rd->run);
	e.top = xstrdup(rd->top);
	e.reuse = xstrdup(copy);
	ok = intact(&e);
	journal_entry_free(&e);
	return ok;
}

int
reuse_park(struct rundir *rd, const char *common, const char *copy,
    const struct reuse_want *w)
{
	struct journal_reuse	 note;
	char			*lock;
	int			 fd, ret = -1;

	memset(&note, 0, sizeof(note));
	note.copy = copy;
	note.source = w->source;
	note.kind = w->kind;
	note.incremental = w->incremental;
	note.setup = w->setup;
	/* Counting and parking are one step: two runs ending at once must
	 * not both find room for one more. */
	lock = forgedir_reuse_lock(common);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd != -1)
		(void)flock(fd, LOCK_EX);
	if (!provable(rd, copy))
		warnx("the copy %s is no longer provably forge's: removing "
		    "it, not parking it", fs_vis(rd->top));
	else if (room(common, w, rd->run) && rundir_park(rd, &note) == 0)
		ret = 0;
	if (fd != -1)
		close(fd);
	free(lock);
	if (ret == -1)
		(void)rundir_remove(rd);
	return ret;
}

int
reuse_park_unclaim(struct rundir *rd, const struct reuse_want *w,
    const struct reuse_claimed *c)
{
	struct journal_reuse	note;

	memset(&note, 0, sizeof(note));
	note.copy = c->copy;
	note.source = w->source;
	note.kind = c->kind;
	note.incremental = w->incremental;
	note.setup = c->setup;
	if (c->used.tv_sec != 0 || c->used.tv_nsec != 0)
		note.used = &c->used;
	if (!provable(rd, c->copy)) {
		warnx("the copy %s is no longer provably forge's: removing "
		    "it, not parking it", fs_vis(rd->top));
		(void)rundir_remove(rd);
		return -1;
	}
	if (rundir_park(rd, &note) == -1) {
		(void)rundir_remove(rd);
		return -1;
	}
	return 0;
}
