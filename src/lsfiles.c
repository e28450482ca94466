/* git's listings -- ls-files, ls-tree, diff --raw -- run and read. */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "entlist.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "xmalloc.h"

void
lsfiles_free(struct lsfiles *l)
{
	strv_free(&l->untracked);
	strv_free(&l->nested);
	strv_free(&l->flagged);
	entlist_free(&l->entries);
	strv_free(&l->gitlinks);
	strv_free(&l->skips);
	strv_free(&l->assumes);
	strv_free(&l->unmerged);
	strv_free(&l->conflicts);
	memset(l, 0, sizeof(*l));
}

/* The mode at the start of line, 1 to 6 octal digits and a space, into
 * *mode: what follows, or NULL if it is not there. */
static const char *
mode_word(const char *line, unsigned *mode)
{
	const char	*p = line;

	for (*mode = 0; *p >= '0' && *p <= '7' && p - line < 6; p++)
		*mode = *mode << 3 | (unsigned)(*p - '0');
	return p == line || *p != ' ' ? NULL : p + 1;
}

/* "oid\tpath" at p into e (the oid holds no space nor tab, the path is
 * all after the tab, not empty): 0, or -1. */
static int
oid_path(const char *p, struct lsfiles_entry *e)
{
	e->oid = p;
	p += strcspn(p, " \t");
	if (p == e->oid || *p != '\t' || p[1] == '\0')
		return -1;
	e->oidlen = (size_t)(p - e->oid);
	e->path = p + 1;
	return 0;
}

int
lsfiles_entry_parse(const char *entry, struct lsfiles_entry *e)
{
	const char	*p;

	/* The mode and oid hold no tab: the first one ends them, and a
	 * path may hold more. */
	if ((p = mode_word(entry, &e->mode)) == NULL)
		return -1;
	return oid_path(p, e);
}

int
lsfiles_staged_parse(const char *line, struct lsfiles_entry *e, int *stage)
{
	const char	*p;

	/* "mode oid stage\tpath": the oid ends at a space, the stage is
	 * one digit. */
	if ((p = mode_word(line, &e->mode)) == NULL)
		return -1;
	e->oid = p;
	p += strcspn(p, " \t");
	if (p == e->oid || p[0] != ' ' || p[1] < '0' || p[1] > '3' ||
	    p[2] != '\t' || p[3] == '\0')
		return -1;
	e->oidlen = (size_t)(p - e->oid);
	*stage = p[1] - '0';
	e->path = p + 3;
	return 0;
}

int
lsfiles_tree_parse(const char *line, struct lsfiles_entry *e)
{
	const char	*type, *want;
	size_t		 tlen;

	/* "mode type oid\tpath", the type the mode's. */
	if ((type = mode_word(line, &e->mode)) == NULL)
		return -1;
	tlen = strcspn(type, " \t");
	want = e->mode == 040000 ? "tree" : e->mode == 0160000 ? "commit" :
	    "blob";
	if (type[tlen] != ' ' || tlen != strlen(want) ||
	    strncmp(type, want, tlen) != 0)
		return -1;
	return oid_path(type + tlen + 1, e);
}

/* Push e onto v as "mode oid\tpath", the mode in six digits. */
static void
push_entry(struct strv *v, const struct lsfiles_entry *e)
{
	strv_pushf(v, "%06o %.*s\t%s", e->mode, (int)e->oidlen, e->oid,
	    e->path);
}

/* Six octal digits at p into *mode; -1 if they are not. */
static int
mode6(const char *p, unsigned *mode)
{
	int	i;

	for (*mode = 0, i = 0; i < 6; i++) {
		if (p[i] < '0' || p[i] > '7')
			return -1;
		*mode = *mode << 3 | (unsigned)(p[i] - '0');
	}
	return 0;
}

int
lsfiles_change_parse(const char *line, struct lsfiles_change *c)
{
	memset(c, 0, sizeof(*c));
	if (mode6(line, &c->old_mode) == -1 || line[6] != ' ' ||
	    mode6(line + 7, &c->new_mode) == -1 || line[13] != '\t' ||
	    line[14] == '\0')
		return -1;
	c->path = line + 14;
	return 0;
}

int
lsfiles_raw_next(const char **p, const char *end, struct lsfiles_change *c)
{
	const char	*rec = *p, *path, *o, *n;
	size_t		 rlen, plen;

	if (rec >= end)
		return 0;
	/* ":old new <oid> <oid> S" NUL path NUL; the modes six digits,
	 * the oids of one length, 40 hex digits at least (--no-abbrev). */
	rlen = strnlen(rec, (size_t)(end - rec));
	if (rlen == (size_t)(end - rec))
		return -1;
	path = rec + rlen + 1;
	plen = strnlen(path, (size_t)(end - path));
	if (plen == 0 || plen == (size_t)(end - path))
		return -1;
	memset(c, 0, sizeof(*c));
	if (rlen < 15 || rec[0] != ':' || mode6(rec + 1, &c->old_mode) == -1 ||
	    rec[7] != ' ' || mode6(rec + 8, &c->new_mode) == -1 ||
	    rec[14] != ' ')
		return -1;
	o = rec + 15;
	c->oidlen = strspn(o, "0123456789abcdef");
	n = o + c->oidlen + 1;
	if (c->oidlen < 40 || o[c->oidlen] != ' ' ||
	    strspn(n, "0123456789abcdef") != c->oidlen ||
	    n[c->oidlen] != ' ' || n[c->oidlen + 1] == '\0')
		return -1;
	c->old_oid = o;
	c->new_oid = n;
	c->status = n[c->oidlen + 1];
	c->path = path;
	*p = path + plen + 1;
	return 1;
}

unsigned
lsfiles_entry_mode(const char *entry)
{
	struct lsfiles_entry	e;

	return lsfiles_entry_parse(entry, &e) == 0 ? e.mode : 0;
}

size_t
lsfiles_entry_oidlen(const char *entry)
{
	struct lsfiles_entry	e;

	return lsfiles_entry_parse(entry, &e) == 0 ? e.oidlen : 0;
}

const char *
lsfiles_entry_path(const char *entry)
{
	const char	*tab = strchr(entry, '\t');

	return tab != NULL ? tab + 1 : entry;
}

void
lsfiles_push_removal(struct strv *v, const char *path, size_t oidlen)
{
	char	*line;

	/* "0 <zeros>\tpath", as git update-index --index-info takes it. */
	line = xmalloc(2 + oidlen + 1 + strlen(path) + 1);
	memcpy(line, "0 ", 2);
	memset(line + 2, '0', oidlen);
	line[2 + oidlen] = '\t';
	strcpy(line + 3 + oidlen, path);
	strv_push(v, line);
	free(line);
}

static int
cmp_entry_path(const void *a, const void *b)
{
	return strcmp(lsfiles_entry_path(*(char *const *)a),
	    lsfiles_entry_path(*(char *const *)b));
}

void
lsfiles_sort(struct strv *entries)
{
	if (entries->n > 1)
		qsort(entries->v, entries->n, sizeof(*entries->v),
		    cmp_entry_path);
}

const char *
lsfiles_find(const struct strv *entries, const char *path)
{
	size_t	lo = 0, hi = entries->n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(lsfiles_entry_path(entries->v[mid]), path)) ==
		    0)
			return entries->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Is the last path of v the plen bytes at path?  (Stages of one path
 * come one after the other.) */
static int
same_path(const struct strv *v, const char *path, size_t plen)
{
	const char	*last;

	if (v->n == 0)
		return 0;
	last = v->v[v->n - 1];
	return strlen(last) == plen && memcmp(last, path, plen) == 0;
}

/*
 * One record: "? path" for an untracked path (a nested repository ends
 * in '/'), "T mode oid stage\tpath" for an index entry, where T is 'S'
 * for skip-worktree and lower case for assume-unchanged.  -1 if it is
 * neither.
 */
/* In "mode oid", the oid made the empty blob's, of its length. */
static void
empty_blob(char *e, size_t mlen)
{
	static const char	sha1[] = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
	static const char	sha256[] = "473a0f4c3be8a93681a267e3b1e9a7dcda1185436"
	    "fe141f7749120a303721813";
	char			*oid = memchr(e, ' ', mlen);
	size_t			 n;

	if (oid == NULL)
		return;
	n = mlen - (size_t)(++oid - e);
	if (n == sizeof(sha1) - 1)
		memcpy(oid, sha1, n);
	else if (n == sizeof(sha256) - 1)
		memcpy(oid, sha256, n);
}

static int
record(struct lsfiles *l, const char *rec, size_t rlen)
{
	struct lsfiles_entry	 le;
	const char	*tab, *path;
	size_t		 plen, mlen, elen;
	char		*e, small[512];
	int		 tag;

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
		goto len;
	}
	if ((tab = memchr(rec, '\t', rlen)) == NULL)
		return -1;
	path = tab + 1;
	plen = rlen - (size_t)(path - rec);
	if (tab < rec + 4 || tab[-2] != ' ')
		goto len;
	/* "mode oid\tpath", as update-index takes it: the record less its
	 * tag and stage. */
	mlen = (size_t)(tab - 2 - (rec + 2));
	elen = mlen + 1 + plen;
	e = elen < sizeof(small) ? small : xmalloc(elen + 1);
	memcpy(e, rec + 2, mlen);
	e[mlen] = '\t';
	memcpy(e + mlen + 1, path, plen);
	e[elen] = '\0';
	/* Only stage 0: a conflict is what is on disk.  Its stages come
	 * together: the one kept is stage 2's, else 1's, else 3's, with
	 * the empty blob for these two: git keeps the line endings of
	 * stage 2's blob only. */
	if (tab[-1] != '0' && tab[-1] != '2' &&
	    strncmp(rec + 2, "160000 ", 7) != 0)
		empty_blob(e, mlen);
	if (tab[-1] != '0') {
		/* What is on disk there may be a submodule's checkout: one
		 * to copy as any other (if it is one). */
		if (strncmp(rec + 2, "160000 ", 7) == 0 &&
		    !same_path(&l->nested, path, plen))
			strv_pushn(&l->nested, path, plen);
		if (!same_path(&l->unmerged, path, plen)) {
			strv_pushn(&l->unmerged, path, plen);
			strv_pushn(&l->conflicts, e, elen);
			l->conflict_stage = tab[-1];
		} else if (tab[-1] == '2' || (tab[-1] == '1' &&
		    l->conflict_stage == '3')) {
			strv_pop(&l->conflicts);
			strv_pushn(&l->conflicts, e, elen);
			l->conflict_stage = tab[-1];
		}
		goto done;
	}
	/* A gitlink's flags are the index's too, for the copy's to mirror. */
	if (tag == 'S' || tag == 's')
		strv_pushn(&l->skips, path, plen);
	if (islower(tag))
		strv_pushn(&l->assumes, path, plen);
	if (strncmp(rec + 2, "160000 ", 7) == 0) {
		strv_pushn(&l->nested, path, plen);
		strv_pushn(&l->gitlinks, e, elen);
		goto done;
	}
	if (tag == 'S' || islower(tag))
		strv_pushn(&l->flagged, e, elen);
	if (lsfiles_entry_parse(e, &le) == -1 || entlist_push(&l->entries,
	    le.mode, le.oid, le.oidlen, le.path, strlen(le.path)) == -1) {
		if (e != small)
			free(e);
		return -1;
	}
	/* 's': skip-worktree and assume-unchanged. */
	if (tag == 'S' || tag == 's')
		l->sparse = 1;
done:
	if (e != small)
		free(e);
len:
	if (plen > l->maxlen)
		l->maxlen = plen;
	return 0;
}

int
lsfiles_parse(const char *p, size_t len, struct lsfiles *l)
{
	const char	*end = p + len;
	size_t		 rlen;

	memset(l, 0, sizeof(*l));
	while (p < end) {
		rlen = strnlen(p, (size_t)(end - p));
		if (record(l, p, rlen) == -1)
			return -1;
		p += rlen + 1;
	}
	return 0;
}

int
lsfiles_index(const struct git *g, struct strv *links, struct strv *others,
    struct buf *err)
{
	const char *const	 a[] = { "ls-files", "-z", "-s", NULL };
	struct buf		 out = BUF_INIT;
	struct strv		*v;
	struct lsfiles_entry	 e;
	const char		*p, *end;
	int			 st, stage;

	if ((st = git_run(g, a, 0, NULL, &out, err)) != 0) {
		buf_free(&out);
		return st;
	}
	/* "mode oid stage\tpath", kept as "mode oid\tpath". */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if (lsfiles_staged_parse(p, &e, &stage) == -1)
			continue;
		v = e.mode == 0160000 ? links : others;
		if (v != NULL)
			push_entry(v, &e);
	}
	buf_free(&out);
	return 0;
}

/* git ls-tree -r -z of tree, with -t too if trees: each entry as "mode
 * oid\tpath", a gitlink's onto links, another onto others (either may be
 * NULL). */
static int
ls_tree(const struct git *g, const char *tree, int trees, struct strv *links,
    struct strv *others, struct buf *err)
{
	const char *const	 a[] = { "ls-tree", "-r", "-z", tree, NULL };
	const char *const	 t[] = { "ls-tree", "-r", "-t", "-z", tree,
	    NULL };
	struct buf		 out = BUF_INIT;
	struct strv		*v;
	struct lsfiles_entry	 e;
	const char		*p, *end;
	int			 st;

	if ((st = git_run(g, trees ? t : a, 0, NULL, &out, err)) != 0) {
		buf_free(&out);
		return st;
	}
	/* "mode type oid\tpath", kept as "mode oid\tpath". */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if (lsfiles_tree_parse(p, &e) == -1)
			continue;
		v = e.mode == 0160000 ? links : others;
		if (v != NULL)
			push_entry(v, &e);
	}
	buf_free(&out);
	return 0;
}

int
lsfiles_tree(const struct git *g, const char *tree, struct strv *links,
    struct strv *others, struct buf *err)
{
	return ls_tree(g, tree, 0, links, others, err);
}

int
lsfiles_at(const struct git *g, const char *tree, const char *path,
    struct strv *entries, struct buf *err)
{
	const char *const	 ix[] = { "ls-files", "-z", "-s", "--", path,
	    NULL };
	const char *const	 tr[] = { "ls-tree", "-z", tree, "--", path,
	    NULL };
	struct buf		 out = BUF_INIT;
	struct lsfiles_entry	 e;
	const char		*p, *end;
	int			 st, stage = 0;

	if ((st = git_run(g, tree != NULL ? tr : ix, 0, NULL, &out,
	    err)) != 0) {
		buf_free(&out);
		return st;
	}
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1)
		if ((tree != NULL ? lsfiles_tree_parse(p, &e) :
		    lsfiles_staged_parse(p, &e, &stage)) == 0 && stage == 0)
			push_entry(entries, &e);
	buf_free(&out);
	return 0;
}

int
lsfiles_tree_size(const struct git *g, const char *tree, unsigned long block,
    unsigned long long *bytes, unsigned long long *files)
{
	const char *const	 a[] = { "ls-tree", "-r", "-l", "-z",
	    "--full-tree", tree, NULL };
	struct buf		 out = BUF_INIT;
	const char		*p, *end;
	char			*f;
	unsigned long long	 n;
	int			 st;

	*bytes = *files = 0;
	if ((st = git_run(g, a, 0, NULL, &out, NULL)) != 0) {
		buf_free(&out);
		return -1;
	}
	/* "mode type oid size\tpath": the size is the fourth field ("-"
	 * for a gitlink). */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		f = strchr(p, ' ');
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		f = f != NULL ? strchr(f + 1, ' ') : NULL;
		if (f == NULL)
			break;
		n = strtoull(f + 1, NULL, 10);
		/* A short symlink takes no block of its own. */
		if (block > 0 && n % block != 0 && strncmp(p, "120000", 6) != 0)
			n += block - n % block;
		*bytes += n;
		(*files)++;
	}
	buf_free(&out);
	return 0;
}

int
lsfiles_tree_all(const struct git *g, const char *tree, struct strv *entries,
    struct buf *err)
{
	return ls_tree(g, tree, 1, entries, entries, err);
}

int
lsfiles_paths(const struct git *g, const char *const *opts,
    struct strv *paths, struct buf *err)
{
	struct strv	 a = STRV_INIT;
	struct buf	 out = BUF_INIT;
	int		 st;

	strv_push(&a, "ls-files");
	strv_push(&a, "-z");
	strv_pushv(&a, (char *const *)opts);
	if ((st = git_run(g, (const char *const *)a.v, 0, NULL, &out,
	    err)) == 0 && out.len > 0)
		strv_split_z(paths, out.data, out.len);
	buf_free(&out);
	strv_free(&a);
	return st;
}

int
lsfiles_tagged(const struct git *g, const char *opt, struct strv *paths,
    struct buf *tags, struct buf *err)
{
	const char *const	 a[] = { "ls-files", "-z", opt, NULL };
	struct buf		 out = BUF_INIT;
	const char		*p, *end;
	int			 st;

	if ((st = git_run(g, a, 0, NULL, &out, err)) != 0) {
		buf_free(&out);
		return st;
	}
	/* "T path": a letter, a space, the path. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if (p[0] == '\0' || p[1] != ' ' || p[2] == '\0')
			continue;
		buf_addc(tags, p[0]);
		strv_push(paths, p + 2);
	}
	buf_free(&out);
	return 0;
}

int
lsfiles_unmerged(const struct git *g, struct strv *paths, struct buf *err)
{
	const char *const	 a[] = { "ls-files", "-z", "-u", NULL };
	struct buf		 out = BUF_INIT;
	const char		*p, *end, *path, *last = "";
	int			 st;

	if ((st = git_run(g, a, 0, NULL, &out, err)) != 0) {
		buf_free(&out);
		return st;
	}
	/* "mode oid stage\tpath", one line per stage of each path. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if ((path = strchr(p, '\t')) == NULL ||
		    strcmp(++path, last) == 0)
			continue;
		strv_push(paths, path);
		last = path;
	}
	buf_free(&out);
	return 0;
}

struct reading {
	struct lsfiles	*l;
	int		 bad;
};

static int
each(const char *rec, size_t len, void *arg)
{
	struct reading	*r = arg;

	if (record(r->l, rec, len) == 0)
		return 0;
	r->bad = 1;
	return -1;
}

static const char *const	 ls_args[] = { "ls-files", "-z", "-v", "-s",
    "-c", "-o", "--exclude-standard", NULL };

/* What git said went wrong, as lsfiles_read() says it. */
static void
ls_failed(const struct git *g, struct buf *err, int st)
{
	warnx("git ls-files failed in %s: %s", g->dir != NULL ?
	    fs_vis(g->dir) : ".", git_why(err, st));
}

int
lsfiles_start(struct lsfiles_job *j, const struct git *g, const char *dir)
{
	memset(j, 0, sizeof(*j));
	j->g = g;
	j->out = xasprintf("%s/ls-files.out", dir);
	j->err = xasprintf("%s/ls-files.err", dir);
	if (git_start(&j->job, g, ls_args, NULL, j->out, j->err) == -1) {
		free(j->out);
		free(j->err);
		memset(j, 0, sizeof(*j));
		return -1;
	}
	j->started = 1;
	return 0;
}

int
lsfiles_finish(struct lsfiles_job *j, struct lsfiles *l)
{
	struct buf	 err = BUF_INIT;
	struct reading	 r = { l, 0 };
	struct git_each	 e = { each, &r };
	int		 status, fd = -1, ret = -1;

	memset(l, 0, sizeof(*l));
	if (!j->started)
		return -1;
	status = git_finish(&j->job);
	j->started = 0;
	if (status != 0) {
		if (fs_read_file(j->err, &err, 1 << 16) == -1)
			buf_reset(&err);
		ls_failed(j->g, &err, status);
		goto out;
	}
	/* Read a piece at a time, as lsfiles_read() reads git's pipe: a
	 * large tree's listing is never held whole; its untracked paths in
	 * blocks, not one allocation each (its entries are an entlist). */
	strv_pool(&l->untracked);
	if ((fd = open(j->out, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1 ||
	    git_each_fd(fd, &e) == -1) {
		if (r.bad)
			warnx("cannot parse the output of git ls-files");
		else
			warn("cannot read %s", fs_vis(j->out));
		lsfiles_free(l);
		goto out;
	}
	ret = 0;
out:
	if (fd != -1)
		close(fd);
	(void)unlink(j->out);
	(void)unlink(j->err);
	free(j->out);
	free(j->err);
	buf_free(&err);
	memset(j, 0, sizeof(*j));
	return ret;
}

void
lsfiles_cancel(struct lsfiles_job *j)
{
	struct lsfiles	l;

	if (j->started && lsfiles_finish(j, &l) == 0)
		lsfiles_free(&l);
}

int
lsfiles_read(struct lsfiles *l, const struct git *g)
{
	const char *const	*a = ls_args;
	struct reading		 r;
	struct git_each		 e;
	struct buf		 err = BUF_INIT;
	int			 st;

	memset(l, 0, sizeof(*l));
	/* The untracked paths in blocks, not one allocation each. */
	strv_pool(&l->untracked);
	r.l = l;
	r.bad = 0;
	e.fn = each;
	e.arg = &r;
	/* Parsed as it comes: the listing of a large tree is never held
	 * whole. */
	if ((st = git_each(g, a, &e, &err)) != 0) {
		if (r.bad)
			warnx("cannot parse the output of git ls-files");
		else if (st > 0)
			ls_failed(g, &err, st);
		lsfiles_free(l);
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	return 0;
}
