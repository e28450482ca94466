/* A parked copy where git converts: files as a fresh checkout writes them. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "convert.h"
#include "fs_vis.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "gitindex.h"
#include "hash.h"
#include "lsfiles.h"
#include "reconvert.h"
#include "reuse.h"
#include "strv.h"
#include "xmalloc.h"

/* Ends the note: no path of a tree's. */
#define NOTE_END	"//"

static char *
note_path(const char *carry)
{
	return xasprintf("%s/convert", carry);
}

int
reconvert_read(const char *carry, struct reconvert_note *n)
{
	struct buf	 b = BUF_INIT;
	struct strv	 v = STRV_INIT;
	char		*path;
	size_t		 i;

	memset(n, 0, sizeof(*n));
	path = note_path(carry);
	if (fs_read_file(path, &b, (size_t)1 << 30) == 0 && b.data != NULL)
		strv_split_z(&v, b.data, b.len);
	free(path);
	buf_free(&b);
	/* The digest, the paths, the end: whole, as written. */
	if (v.n >= 2 && strcmp(v.v[v.n - 1], NOTE_END) == 0) {
		n->digest = xstrdup(v.v[0]);
		for (i = 1; i + 1 < v.n; i++)
			strv_push(&n->paths, v.v[i]);
		strv_sort_uniq(&n->paths);
	}
	strv_free(&v);
	return n->digest != NULL ? 0 : -1;
}

void
reconvert_forget(const char *carry)
{
	char	*path;

	path = note_path(carry);
	if (unlink(path) == -1 && errno != ENOENT)
		warn("cannot remove %s", fs_vis(path));
	free(path);
}

int
reconvert_write(const char *carry, const char *digest,
    const struct strv *paths)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	size_t		 i;
	int		 ret = -1;

	buf_add(&b, digest, strlen(digest) + 1);
	for (i = 0; i < paths->n; i++)
		buf_add(&b, paths->v[i], strlen(paths->v[i]) + 1);
	buf_add(&b, NOTE_END, sizeof(NOTE_END));
	path = note_path(carry);
	/* Not synced: what a crash leaves reads as no note at all (its
	 * end is missing), never as another. */
	if ((mkdir(carry, 0700) == 0 || errno == EEXIST) &&
	    fs_write_replace(path, b.data, b.len, 0600) == 0)
		ret = 0;
	free(path);
	if (ret == -1)
		reconvert_forget(carry);
	buf_free(&b);
	return ret;
}

void
reconvert_note_free(struct reconvert_note *n)
{
	free(n->digest);
	strv_free(&n->paths);
	memset(n, 0, sizeof(*n));
}

int
reconvert_head(const struct git *g, struct strv *entries)
{
	const char *const	 a[] = { "ls-files", "-z", "-s", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end, *sp, *tab;
	int			 st;

	if ((st = git_run(g, a, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("git ls-files failed in the reused copy: %s",
			    git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return -1;
	}
	/* "mode oid stage\tpath": kept as "mode oid\tpath". */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if ((tab = strchr(p, '\t')) == NULL ||
		    strncmp(p, "160000 ", 7) == 0 ||
		    (sp = memchr(p + 7, ' ', (size_t)(tab - p - 7))) == NULL)
			continue;
		strv_pushf(entries, "%.*s%s", (int)(sp - p), p, tab);
	}
	buf_free(&out);
	buf_free(&err);
	return 0;
}

char *
reconvert_digest(const struct git *g, const char *common,
    const struct strv *entries)
{
	struct strv	 attrs = STRV_INIT;
	const char	*e, *path;
	char		*d;
	size_t		 i;
	int		 on;

	/* A checkout reads the attributes of the tree it writes. */
	for (i = 0; i < entries->n; i++) {
		e = entries->v[i];
		path = lsfiles_entry_path(e);
		if (convert_is_attributes(path))
			strv_pushf(&attrs, "%.*s %s", (int)(path - e - 1), e,
			    path);
	}
	d = convert_digest(g, common, &attrs, &on);
	strv_free(&attrs);
	return d;
}

/* Is the carried entry c what e ("mode oid\tpath") says? */
static int
same_entry(const struct gitindex_entry *c, const char *e, size_t rawsz)
{
	char	 want[2 * HASH_MAX + 16];
	char	 hex[2 * HASH_MAX + 1];

	hash_hex(c->oid, rawsz, hex);
	snprintf(want, sizeof(want), "%06o %s\t", (unsigned)c->mode, hex);
	return strncmp(e, want, strlen(want)) == 0;
}

int
reconvert_paths(const char *copy, const struct strv *entries,
    const char *carried, const struct timespec *since,
    const struct strv *noted, struct strv *paths)
{
	struct gitindex		 had;
	struct strv		 stale = STRV_INIT;
	struct timespec		 now;
	const struct gitindex_entry *c;
	const char		*e, *path, *sp, *tab;
	size_t			 i, rawsz = 20;
	int			 ret = -1;

	/* The id's length, from an entry: "mode oid\tpath". */
	if (entries->n > 0 && (sp = strchr(entries->v[0], ' ')) != NULL &&
	    (tab = strchr(sp, '\t')) != NULL)
		rawsz = (size_t)(tab - sp - 1) / 2;
	/* A clock set back since could stamp a change before it. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (carried == NULL || since->tv_sec <= 0 ||
	    now.tv_sec < since->tv_sec ||
	    gitindex_read(&had, carried, rawsz) == -1)
		return -1;
	/* Each file of that index that anything wrote since it was kept
	 * (forge too: it wrote the copy before it proved it). */
	if (gitindex_look(copy, &had, since, &stale, NULL) == -1)
		goto out;
	strv_sort_uniq(&stale);
	for (i = 0; i < entries->n; i++) {
		e = entries->v[i];
		path = lsfiles_entry_path(e);
		if ((c = gitindex_find(&had, path)) == NULL ||
		    !same_entry(c, e, rawsz) ||
		    strv_sorted_has(&stale, path) ||
		    strv_sorted_has(noted, path))
			strv_push(paths, e);
	}
	ret = 0;
out:
	strv_free(&stale);
	gitindex_free(&had);
	return ret;
}

int
reconvert_checkout(const struct git *g, const char *copy,
    const struct strv *entries, struct reuse_marks *marks)
{
	const char *const	 forget[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 checkout[] = { "checkout-index", "-f", "-u",
	    "-z", "--stdin", NULL };
	struct strv		 paths = STRV_INIT;
	struct buf		 info = BUF_INIT, in = BUF_INIT, err = BUF_INIT;
	const char		*cmd = forget[0];
	size_t			 i;
	int			 st;

	if (entries->n == 0)
		return 0;
	for (i = 0; i < entries->n; i++) {
		buf_add(&info, entries->v[i], strlen(entries->v[i]) + 1);
		strv_push(&paths, lsfiles_entry_path(entries->v[i]));
		buf_add(&in, paths.v[i], strlen(paths.v[i]) + 1);
	}
	if (marks != NULL)
		reuse_marks_add(marks, copy, &paths);
	/*
	 * git writes no file whose stat data its index entry matches, -f
	 * or not: the entries are put back without it first, the same
	 * blob and mode.
	 */
	if ((st = git_run(g, forget, 0, &info, NULL, &err)) == 0) {
		cmd = checkout[0];
		st = git_run(g, checkout, 0, &in, NULL, &err);
	}
	if (st > 0)
		warnx("git %s failed in the reused copy: %s", cmd,
		    git_why(&err, st));
	strv_free(&paths);
	buf_free(&info);
	buf_free(&in);
	buf_free(&err);
	return st == 0 ? 0 : -1;
}
