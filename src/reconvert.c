/* A kept copy where git converts: files as a fresh checkout writes them. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "convert.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "gitindex.h"
#include "hash.h"
#include "lsfiles.h"
#include "reconvert.h"
#include "reuse.h"
#include "strv.h"
#include "xmalloc.h"

/* Begins a note of this form; ends it, being no path of a tree's. */
#define NOTE_TAG	"forge convert 2"
#define NOTE_END	"//"

/* The largest note read. */
#define NOTE_MAX	((size_t)1 << 30)

static const char	why_filter[] = "git checks out files of it through "
    "a filter command (filter.<driver>.smudge or .process), which cannot "
    "be shown to write the same bytes twice";

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The hex digits of s, len of them, as bytes into raw; -1 if they are
 * not all hex digits (as git writes them: lower case). */
static int
unhex(const char *s, size_t len, unsigned char *raw)
{
	size_t	i;
	int	hi, lo;

	for (i = 0; i + 1 < len; i += 2) {
		if ((hi = hexval(s[i])) == -1 || (lo = hexval(s[i + 1])) == -1)
			return -1;
		raw[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return len % 2 == 0 ? 0 : -1;
}

/*
 * One file of a note: "mode oid\tpath" and "ctime ctime_ns mtime
 * mtime_ns ino uid gid size", as git keeps them (the low 32 bits), into
 * e, whose path points into the entry.  -1 if it is malformed.
 */
static int
parse_file(struct gitindex_entry *e, char *entry, const char *stat,
    size_t *rawsz)
{
	struct lsfiles_entry	 le;
	size_t			 len;

	memset(e, 0, sizeof(*e));
	if (lsfiles_entry_parse(entry, &le) == -1)
		return -1;
	len = le.oidlen;
	if ((len != 40 && len != 64) || (*rawsz != 0 && len != 2 * *rawsz) ||
	    unhex(le.oid, len, e->oid) == -1)
		return -1;
	*rawsz = len / 2;
	e->mode = (uint32_t)le.mode;
	e->path = le.path;
	if (sscanf(stat, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32
	    " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32, &e->ctime,
	    &e->ctime_ns, &e->mtime, &e->mtime_ns, &e->ino, &e->uid, &e->gid,
	    &e->size) != 8)
		return -1;
	return 0;
}

/* The note of c, into c->had; -1 (and nothing) if there is none, or it
 * is not whole, or not of this form. */
static int
read_note(struct reconvert *c)
{
	struct reconvert_note	*n = &c->had;
	struct buf		 b = BUF_INIT;
	char			*p, *end, *f[3];
	size_t			 i, cap = 0, rawsz = 0;
	long long		 sec;
	long			 nsec;
	int			 ok = 0;

	memset(n, 0, sizeof(*n));
	if (fs_read_file(c->note, &b, NOTE_MAX) == -1 || b.data == NULL ||
	    b.len == 0 || b.data[b.len - 1] != '\0') {
		buf_free(&b);
		return -1;
	}
	p = b.data;
	end = b.data + b.len;
	for (i = 0; i < 3 && p < end; i++, p += strlen(p) + 1)
		f[i] = p;
	if (i < 3 || strcmp(f[0], NOTE_TAG) != 0 ||
	    sscanf(f[2], "%lld %ld", &sec, &nsec) != 2 || nsec < 0 ||
	    nsec >= 1000000000L) {
		buf_free(&b);
		return -1;
	}
	n->since.tv_sec = (time_t)sec;
	n->since.tv_nsec = nsec;
	while (p < end) {
		if (strcmp(p, NOTE_END) == 0) {
			ok = p + strlen(p) + 1 == end;
			break;
		}
		if (p + strlen(p) + 1 >= end)
			break;
		if (n->files.n == cap) {
			cap = cap == 0 ? 256 : cap * 2;
			n->files.v = xreallocarray(n->files.v, cap,
			    sizeof(*n->files.v));
		}
		if (parse_file(&n->files.v[n->files.n], p, p + strlen(p) + 1,
		    &rawsz) == -1)
			break;
		/* Sorted as git sorts, for gitindex_find(). */
		if (n->files.n > 0 && strcmp(n->files.v[n->files.n - 1].path,
		    n->files.v[n->files.n].path) >= 0)
			break;
		n->files.n++;
		p += strlen(p) + 1;
		p += strlen(p) + 1;
	}
	if (!ok) {
		free(n->files.v);
		memset(n, 0, sizeof(*n));
		buf_free(&b);
		return -1;
	}
	n->digest = xstrdup(f[1]);
	n->files.rawsz = rawsz != 0 ? rawsz : 20;
	n->files.names = buf_detach(&b);
	return 0;
}

void
reconvert_init(struct reconvert *c, const char *carry, const char *name,
    int reused)
{
	memset(c, 0, sizeof(*c));
	c->note = xasprintf("%s/%s", carry, name);
	c->reused = reused;
	if (!reused)
		return;
	(void)read_note(c);
	/* Not noted again until this run's files are proved, whatever it
	 * changes in between: a run that ends first leaves no note. */
	if (unlink(c->note) == -1 && errno != ENOENT)
		warn("cannot remove %s", fs_vis(c->note));
}

void
reconvert_before(struct reconvert *c, const struct git *g,
    const char *common)
{
	int	on;

	free(c->before);
	c->before = convert_digest(g, common, NULL, &on);
}

/* The index's entries, "mode oid\tpath" (lsfiles.h) but gitlinks, as git
 * ls-files lists them.  -1 with a message. */
static int
index_entries(const struct git *g, struct strv *entries)
{
	struct buf	err = BUF_INIT;
	int		st;

	if ((st = lsfiles_index(g, NULL, entries, &err)) != 0 && st > 0)
		warnx("git ls-files failed in the copy %s: %s",
		    fs_vis(g->dir), git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/*
 * How git checks out a tree with those entries: a digest of outside, the
 * digest of what is outside the tree (convert.h), and of the entries'
 * attributes files ("mode oid\tpath" each, as the tree holds them).  on:
 * whether it has any.
 */
static char *
tree_digest(const char *outside, const struct strv *entries, int *on)
{
	struct hash	 h;
	unsigned char	 raw[32];
	const char	*e, *path;
	char		 hex[2 * 32 + 1];
	size_t		 i;

	(void)hash_init(&h, 32);
	hash_update(&h, "forge convert tree 1", sizeof("forge convert tree 1"));
	hash_update(&h, outside, strlen(outside) + 1);
	for (i = 0; i < entries->n; i++) {
		e = entries->v[i];
		path = lsfiles_entry_path(e);
		if (convert_is_attributes(path)) {
			hash_update(&h, e, strlen(e) + 1);
			*on = 1;
		}
	}
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	return xstrdup(hex);
}

/*
 * Can git's checkout of entries (g's index: the attributes files git
 * reads as it checks out) be redone to the byte?  Not where a file's
 * filter attribute names one of drivers, which git runs a command of
 * (sorted).  1, 0, or -1 if git could not say (said why).
 */
static int
exact(const struct git *g, const struct strv *entries,
    const struct strv *drivers)
{
	const char *const	 a[] = { "check-attr", "-z", "--stdin",
	    "--cached", "filter", NULL };
	struct buf		 in = BUF_INIT, out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end, *path;
	size_t			 i;
	int			 st, k, r = 1;

	if (drivers->n == 0 || entries->n == 0)
		return 1;
	for (i = 0; i < entries->n; i++) {
		path = lsfiles_entry_path(entries->v[i]);
		buf_add(&in, path, strlen(path) + 1);
	}
	if ((st = git_run(g, a, 0, &in, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot read the copy's filter attributes: git "
			    "check-attr: %s", git_why(&err, st));
		r = -1;
	}
	/* "path\0filter\0value\0" each: a value that names a driver. */
	for (p = out.data, end = p + out.len, k = 0; r == 1 && p != NULL &&
	    p < end; p += strlen(p) + 1, k = (k + 1) % 3)
		if (k == 2 && strv_sorted_has(drivers, p))
			r = 0;
	buf_free(&in);
	buf_free(&out);
	buf_free(&err);
	return r;
}

/* Is the noted file n what e ("mode oid\tpath") says? */
static int
same_entry(const struct gitindex_entry *n, const char *e, size_t rawsz)
{
	char	 want[2 * HASH_MAX + 16];
	char	 hex[2 * HASH_MAX + 1];

	hash_hex(n->oid, rawsz, hex);
	snprintf(want, sizeof(want), "%06o %s\t", (unsigned)n->mode, hex);
	return strncmp(e, want, strlen(want)) == 0;
}

/*
 * Of c->entries, those to check out again, onto paths: those the note
 * has not, or not for the same entry, and those whose file is not as it
 * was noted, or was changed at the time it was noted or later.  -1 if
 * the copy cannot be looked at: each one is to be.
 */
static int
stale_entries(struct reconvert *c, const char *copy, struct strv *paths)
{
	const struct gitindex	*had = &c->had.files;
	const struct gitindex_entry *f;
	struct strv		 stale = STRV_INIT;
	struct timespec		 now;
	const char		*e, *path;
	size_t			 i;

	/* A clock set back since could stamp a change before it. */
	clock_gettime(CLOCK_REALTIME, &now);
	if (c->had.since.tv_sec <= 0 || now.tv_sec < c->had.since.tv_sec ||
	    gitindex_look(copy, had, &c->had.since, &stale, NULL) == -1) {
		strv_free(&stale);
		return -1;
	}
	strv_sort_uniq(&stale);
	c->same = xcalloc(c->entries.n > 0 ? c->entries.n : 1, 1);
	for (i = 0; i < c->entries.n; i++) {
		e = c->entries.v[i];
		path = lsfiles_entry_path(e);
		if ((f = gitindex_find(had, path)) == NULL ||
		    !same_entry(f, e, had->rawsz) ||
		    strv_sorted_has(&stale, path))
			strv_push(paths, e);
		else
			c->same[i] = 1;
	}
	strv_free(&stale);
	return 0;
}

/*
 * The files of entries checked out again (git checkout-index -f -u, the
 * entries put back without stat data first: git writes no file whose
 * stat data its entry matches, -f or not), each file's time noted first
 * into marks, if not NULL.  -1 with a message.
 */
static int
checkout(const struct git *g, const char *copy, const struct strv *entries,
    struct reuse_marks *marks)
{
	const char *const	 forget[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 co[] = { "checkout-index", "-f", "-u", "-z",
	    "--stdin", NULL };
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
		reuse_sync_marks_add(marks, copy, &paths);
	if ((st = git_run(g, forget, 0, &info, NULL, &err)) == 0) {
		cmd = co[0];
		st = git_run(g, co, 0, &in, NULL, &err);
	}
	if (st > 0)
		warnx("git %s failed in the copy %s: %s", cmd, fs_vis(copy),
		    git_why(&err, st));
	strv_free(&paths);
	buf_free(&info);
	buf_free(&in);
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

int
reconvert_copy(struct reconvert *c, const struct git *dg,
    const struct git *sg, const char *common, int maybe,
    struct reuse_marks *marks, const char **why)
{
	struct strv	 paths = STRV_INIT, drivers = STRV_INIT;
	const char	*had = c->had.digest;
	char		*outside;
	int		 on = 0, r;

	*why = NULL;
	free(c->digest);
	c->digest = NULL;
	free(c->same);
	c->same = NULL;
	strv_clear(&c->entries);
	if (!maybe) {
		c->digest = xstrdup("none");
		/* Nothing converts, nor did. */
		if (!c->reused || (had != NULL && strcmp(had, "none") == 0))
			return 1;
	}
	if (index_entries(dg, &c->entries) == -1)
		return -1;
	/*
	 * Not known: nothing is noted, and the next run checks out every
	 * file again -- so where what is outside the tree changed as git
	 * wrote, which way it wrote is not known.  Known, it is never
	 * "none", even where nothing converts as git checks out: what may
	 * convert as git hashes (an untracked attributes file) lets a
	 * command stage other bytes of a file's blob.
	 */
	if (maybe && (outside = convert_digest_filters(sg, common, &on,
	    &drivers)) != NULL) {
		c->digest = tree_digest(outside, &c->entries, &on);
		if (c->before == NULL || strcmp(outside, c->before) != 0) {
			free(c->digest);
			c->digest = NULL;
		}
		free(outside);
		if (on && (r = exact(dg, &c->entries, &drivers)) != 1) {
			if (r == 0)
				*why = why_filter;
			strv_free(&drivers);
			return r;
		}
	}
	strv_free(&drivers);
	if (!c->reused)
		return 1;
	if (had != NULL && c->digest != NULL && strcmp(had, c->digest) == 0 &&
	    strcmp(had, "none") == 0)
		return 1;
	if (had == NULL || c->digest == NULL || strcmp(had, c->digest) != 0 ||
	    stale_entries(c, dg->worktree, &paths) == -1) {
		strv_clear(&paths);
		strv_pushv(&paths, c->entries.v);
	}
	r = checkout(dg, dg->worktree, &paths, marks);
	strv_free(&paths);
	return r == 0 ? 1 : -1;
}

void
reconvert_as_is(struct reconvert *c)
{
	free(c->digest);
	c->digest = xstrdup("none");
}

void
reconvert_written(struct reconvert *c, const struct strv *paths)
{
	strv_pushv(&c->written, paths->v);
}

void
reconvert_unknown(struct reconvert *c)
{
	free(c->digest);
	c->digest = NULL;
}

/* A file's stat data as a note keeps it. */
static void
stat_line(char *line, size_t size, const struct gitindex_entry *f)
{
	snprintf(line, size, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32
	    " %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32, f->ctime,
	    f->ctime_ns, f->mtime, f->mtime_ns, f->ino, f->uid, f->gid,
	    f->size);
}

/*
 * Each entry's file that git wrote, with its stat data, into b.  One the
 * last note had, found as it was noted and not written again since
 * (c->same), is noted as it was: whatever changed it since would have
 * changed its change time, which the next run then finds.  The others
 * are looked at.
 */
static void
note_files(const struct reconvert *c, const char *copy, struct buf *b)
{
	struct strv	 written = STRV_INIT;
	struct gitindex_entry f;
	const struct gitindex_entry *had;
	struct fs_pair	 dirs;
	struct stat	 st;
	const char	*e, *path, *base;
	char		 line[256];
	size_t		 i;

	/* Paths of a directory come together: each opened once, from the
	 * top, no symlink followed. */
	if (fs_pair_open(&dirs, NULL, copy) == -1)
		return;
	strv_pushv(&written, c->written.v);
	strv_sort_uniq(&written);
	for (i = 0; i < c->entries.n; i++) {
		e = c->entries.v[i];
		path = lsfiles_entry_path(e);
		/* Once a path (an index with conflicts lists each stage). */
		if (strv_sorted_has(&written, path) || (i > 0 &&
		    strcmp(path, lsfiles_entry_path(c->entries.v[i - 1])) == 0))
			continue;
		if (c->same != NULL && c->same[i] &&
		    (had = gitindex_find(&c->had.files, path)) != NULL) {
			stat_line(line, sizeof(line), had);
			buf_add(b, e, strlen(e) + 1);
			buf_add(b, line, strlen(line) + 1);
			continue;
		}
		(void)fs_pair_to(&dirs, path, &base, NULL, NULL);
		if (dirs.dfd == -1 || fstatat(dirs.dfd, base, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		memset(&f, 0, sizeof(f));
		f.ctime = (uint32_t)st.st_ctim.tv_sec;
		f.ctime_ns = (uint32_t)st.st_ctim.tv_nsec;
		f.mtime = (uint32_t)st.st_mtim.tv_sec;
		f.mtime_ns = (uint32_t)st.st_mtim.tv_nsec;
		f.ino = (uint32_t)st.st_ino;
		f.uid = (uint32_t)st.st_uid;
		f.gid = (uint32_t)st.st_gid;
		f.size = (uint32_t)st.st_size;
		stat_line(line, sizeof(line), &f);
		buf_add(b, e, strlen(e) + 1);
		buf_add(b, line, strlen(line) + 1);
	}
	fs_pair_close(&dirs);
	strv_free(&written);
}

int
reconvert_note(struct reconvert *c, const char *copy)
{
	struct buf	 b = BUF_INIT;
	struct timespec	 now = { 0, 0 };
	char		*dir, *slash, line[64];
	int		 ret = -1;

	if (c->digest == NULL)
		return 0;
	/* A change from now on is stamped no earlier. */
	if (strcmp(c->digest, "none") != 0) {
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
		fs_present(copy, &now);
	}
	buf_add(&b, NOTE_TAG, sizeof(NOTE_TAG));
	buf_add(&b, c->digest, strlen(c->digest) + 1);
	snprintf(line, sizeof(line), "%lld %ld", (long long)now.tv_sec,
	    now.tv_nsec);
	buf_add(&b, line, strlen(line) + 1);
	if (strcmp(c->digest, "none") != 0)
		note_files(c, copy, &b);
	buf_add(&b, NOTE_END, sizeof(NOTE_END));
	dir = xstrdup(c->note);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	/* Not synced: what a crash leaves reads as no note at all (its
	 * end is missing), never as another. */
	if ((mkdir(dir, 0700) == 0 || errno == EEXIST) &&
	    fs_write_replace(c->note, b.data, b.len, 0600) == 0)
		ret = 0;
	else
		(void)unlink(c->note);
	free(dir);
	buf_free(&b);
	return ret;
}

void
reconvert_free(struct reconvert *c)
{
	free(c->note);
	free(c->had.digest);
	gitindex_free(&c->had.files);
	free(c->before);
	free(c->digest);
	free(c->same);
	strv_free(&c->entries);
	strv_free(&c->written);
	memset(c, 0, sizeof(*c));
}
