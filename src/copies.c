/* Listing the copies forge keeps, with their size and last use. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "copies.h"
#include "forgedir.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "xmalloc.h"

/* nftw(3) takes no argument for its callback. */
static long long	du_total;

static int
du_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag != FTW_NS)
		du_total += (long long)sb->st_blocks * 512;
	return 0;
}

/* What a tree takes on disk, as du(1) counts it: links are not
 * followed, and nothing mounted inside is counted. */
static long long
disk_usage(const char *top)
{
	du_total = 0;
	(void)nftw(top, du_one, 16, FTW_PHYS | FTW_MOUNT);
	return du_total;
}

static int
in_top(const struct journal_entry *e, const char *copy)
{
	size_t	n = strlen(e->top);

	return strncmp(copy, e->top, n) == 0 && copy[n] == '/' &&
	    strstr(copy + n, "/../") == NULL;
}

static void
add_copy(struct copy **v, size_t *n, const char *path,
    const struct journal_entry *e, const struct timespec *last_use)
{
	struct copy	*k;

	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	k = &(*v)[(*n)++];
	memset(k, 0, sizeof(*k));
	k->path = xstrdup(path);
	k->size = disk_usage(e->top);
	k->last_use = last_use->tv_sec;
	k->last_use_ns = last_use->tv_nsec;
	k->incremental = e->incremental;
	if (e->kept == NULL)
		k->kind = xstrdup(e->reuse_kind != NULL ? e->reuse_kind :
		    JOURNAL_WORKTREE);
}

static int
add_record(const char *path, void *arg)
{
	struct copies		*c = arg;
	struct journal_entry	 e;
	struct buf		 text = BUF_INIT;
	struct stat		 sb, cs;
	const char		*copy;
	int			 fd, in_use;

	memset(&e, 0, sizeof(e));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	while (buf_read(&text, fd, 65536) > 0)
		;
	if (fstat(fd, &sb) == -1 || journal_parse(text.data != NULL ?
	    text.data : "", text.len, &e) == -1)
		goto out;
	/* A reusable copy a run took over: its record is locked. */
	in_use = e.reusable && e.reuse == NULL && e.kept == NULL &&
	    flock(fd, LOCK_SH | LOCK_NB) == -1;
	copy = e.kept != NULL ? e.kept : e.reuse;
	if (copy == NULL && in_use)
		copy = e.top;	/* shown as its run directory */
	/* Only a copy in its run's own directory: not one a record
	 * written by hand names, nor one removed by hand. */
	if (copy == NULL || !journal_reclaim_top_is_runs(&e) ||
	    (copy != e.top && !in_top(&e, copy)) ||
	    lstat(copy, &cs) == -1 || !S_ISDIR(cs.st_mode))
		goto out;
	/* The kept or reuse note is the record's last line. */
	if (e.kept != NULL)
		add_copy(&c->kept, &c->nkept, copy, &e, &sb.st_mtim);
	else {
		add_copy(&c->reusable, &c->nreusable, copy, &e,
		    &sb.st_mtim);
		c->reusable[c->nreusable - 1].in_use = in_use;
	}
out:
	journal_entry_free(&e);
	buf_free(&text);
	close(fd);
	return 0;
}

static int
by_use(const void *a, const void *b)
{
	const struct copy	*x = a, *y = b;

	if (x->last_use != y->last_use)
		return x->last_use < y->last_use ? -1 : 1;
	if (x->last_use_ns != y->last_use_ns)
		return x->last_use_ns < y->last_use_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

void
copies_list(struct copies *c, const char *common)
{
	memset(c, 0, sizeof(*c));
	(void)forgedir_records(common, add_record, c);
	if (c->nkept > 1)
		qsort(c->kept, c->nkept, sizeof(*c->kept), by_use);
	if (c->nreusable > 1)
		qsort(c->reusable, c->nreusable, sizeof(*c->reusable),
		    by_use);
}

void
copies_free(struct copies *c)
{
	size_t	i;

	for (i = 0; i < c->nkept; i++)
		free(c->kept[i].path);
	free(c->kept);
	for (i = 0; i < c->nreusable; i++) {
		free(c->reusable[i].path);
		free(c->reusable[i].kind);
	}
	free(c->reusable);
	memset(c, 0, sizeof(*c));
}
