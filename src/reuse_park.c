/* Parked copies: a run's copy parked when it ends, claimed by the next. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "fsutil.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "registration.h"
#include "reuse.h"
#include "rundir.h"
#include "sig.h"
#include "xmalloc.h"

struct record {
	char	*path;
	time_t	 mtime;
};

static int
newest_first(const void *a, const void *b)
{
	const struct record	*x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The records of the journal, most recently used first. */
static size_t
records(const char *common, struct record **out)
{
	struct record	*v = NULL;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	char		*dir, *path;
	size_t		 n = 0;

	*out = NULL;
	dir = xasprintf("%s/forge/copies", common);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		/* As the reclaim: temporary files have a dot. */
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n].path = path;
		v[n].mtime = st.st_mtime;
		n++;
	}
	closedir(d);
	free(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), newest_first);
	*out = v;
	return n;
}

static void
records_free(struct record *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

static int
wanted(const struct journal_entry *e, const struct reuse_want *w)
{
	return e->reuse_source != NULL &&
	    strcmp(e->reuse_source, w->source) == 0 &&
	    e->incremental == w->incremental;
}

/* Is the parked copy still what was parked: the run's own directory,
 * the copy a directory in it, nothing mounted anywhere below? */
static int
intact(const struct journal_entry *e)
{
	struct stat	st;
	size_t		n = strlen(e->top);

	if (!journal_top_is_runs(e))
		return 0;
	if (strncmp(e->reuse, e->top, n) != 0 || e->reuse[n] != '/' ||
	    strchr(e->reuse + n + 1, '/') != NULL ||
	    lstat(e->reuse, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	return fs_mounts_below(e->top, NULL) == 0;
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

int
reuse_claim(struct rundir *rd, const char *common, const struct reuse_want *w,
    char **had, char **copy)
{
	struct journal_entry	 e;
	struct journal		 j;
	struct record		*v;
	size_t			 i, n;
	int			 st, ret = 0;

	*had = NULL;
	*copy = NULL;
	n = records(common, &v);
	for (i = 0; i < n && ret == 0; i++) {
		if ((st = journal_claim(&j, v[i].path, &e)) != 0)
			continue;	/* busy, or not parked */
		if (!wanted(&e, w)) {
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		if (!journal_top_is_runs(&e)) {
			/* Not provably the run's: not ours to touch. */
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		if (!intact(&e)) {
			/* Not to be trusted, nor left: it goes, as far as
			 * it safely can (what stays is said). */
			warnx("the reusable copy %s was tampered with: "
			    "removing it", fs_vis(e.top));
			if (journal_note_use(&j) == -1)
				journal_close(&j, 0);
			else {
				/* Adopted or not, the run directory is rd's
				 * now, the journal with it. */
				if (rundir_adopt(rd, &j, &e) == 0)
					(void)rundir_remove(rd);
				rundir_free(rd);
			}
			journal_entry_free(&e);
			continue;
		}
		/* Locked, still parked: a death here leaves it parked. */
		sig_test_stall("claim");
		if (journal_note_use(&j) == -1) {
			journal_close(&j, 0);
			journal_entry_free(&e);
			continue;
		}
		/* The run's from here: a death leaves it to the reclaim. */
		sig_test_stall("adopt");
		if (rundir_adopt(rd, &j, &e) != 0)
			rundir_free(rd);
		else if (made_fresh(rd, e.reuse, common, w) == -1) {
			if (!sig_pending())
				warnx("the reusable copy %s cannot be given a "
				    "fresh copy's registration: removing it",
				    fs_vis(e.top));
			(void)rundir_remove(rd);
			rundir_free(rd);
		} else {
			*had = xstrdup(e.reuse_setup != NULL ? e.reuse_setup :
			    "");
			*copy = xstrdup(e.reuse);
			ret = 1;
		}
		journal_entry_free(&e);
	}
	records_free(v, n);
	return ret;
}

/* Parked (or in use, after a park) copies of the same working tree and
 * kind, but for the run's own. */
static int
count_parked(const char *common, const struct reuse_want *w,
    const char *own)
{
	struct journal_entry	 e;
	struct record		*v;
	struct buf		 text = BUF_INIT;
	size_t			 i, n;
	int			 fd, count = 0;

	n = records(common, &v);
	for (i = 0; i < n; i++) {
		if (strcmp(fs_basename(v[i].path), own) == 0 ||
		    (fd = open(v[i].path, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		buf_reset(&text);
		while (buf_read(&text, fd, 65536) > 0)
			;
		close(fd);
		if (journal_parse(text.data != NULL ? text.data : "",
		    text.len, &e) == 0 && e.reusable && wanted(&e, w) &&
		    e.kept == NULL)
			count++;
		journal_entry_free(&e);
	}
	buf_free(&text);
	records_free(v, n);
	return count;
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
    const struct reuse_want *w, int max)
{
	char	*lock;
	int	 fd, ret = -1;

	/* Counting and parking are one step: two runs ending at once must
	 * not both find room for one more. */
	lock = xasprintf("%s/forge/reuse.lock", common);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd != -1)
		(void)flock(fd, LOCK_EX);
	if (!provable(rd, copy))
		warnx("the copy %s is no longer provably forge's: removing "
		    "it, not parking it", fs_vis(rd->top));
	else if (count_parked(common, w, rd->run) < max &&
	    rundir_park(rd, copy, w->source, w->incremental, w->setup) == 0)
		ret = 0;
	if (fd != -1)
		close(fd);
	free(lock);
	if (ret == -1)
		(void)rundir_remove(rd);
	return ret;
}
