/* Reading a git index file: its entries, and git's stat data of each. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "gitindex.h"
#include "hash.h"
#include "strv.h"
#include "xmalloc.h"

/* Past this, not an index forge reads (git's own limit is 4 GiB). */
#define INDEX_MAX	((size_t)1 << 30)
/* How much of an index is read at once. */
#define INDEX_WINDOW	((size_t)64 << 10)

#define CE_ASSUME_VALID	0x8000
#define CE_EXTENDED	0x4000
#define CE_STAGEMASK	0x3000
#define CE_NAMEMASK	0x0fff
/* Of the second flags word: skip-worktree, intent-to-add, and what no
 * git has given a meaning yet, the reserved bit among them. */
#define CE_EXT_ANY	0xffff

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* Index version 4's path prefix: git's varint (each continuation adds
 * one, so that no number has two spellings). */
static int
get_varint(const unsigned char **pp, const unsigned char *end, size_t *out)
{
	const unsigned char	*p = *pp;
	size_t			 v;
	unsigned char		 c;

	if (p >= end)
		return -1;
	c = *p++;
	v = c & 127;
	while (c & 128) {
		if (p >= end || v > (SIZE_MAX >> 8))
			return -1;
		c = *p++;
		v = ((v + 1) << 7) | (c & 127);
	}
	*pp = p;
	*out = v;
	return 0;
}

/* An entry's stat data and object id, from p; its flags. */
static uint32_t
entry_stat(struct gitindex_entry *e, const unsigned char *p, size_t rawsz)
{
	/* ctime, mtime (each seconds and nanoseconds), dev, ino, mode,
	 * uid, gid, size; the object id; the flags. */
	e->ctime = get32(p);
	e->ctime_ns = get32(p + 4);
	e->mtime = get32(p + 8);
	e->mtime_ns = get32(p + 12);
	e->dev = get32(p + 16);
	e->ino = get32(p + 20);
	e->mode = get32(p + 24);
	e->uid = get32(p + 28);
	e->gid = get32(p + 32);
	e->size = get32(p + 36);
	memcpy(e->oid, p + 40, rawsz);
	return (uint32_t)p[40 + rawsz] << 8 | p[41 + rawsz];
}

/* The end of a version 2 or 3 entry that starts at start, hlen bytes
 * before its name of nlen: NULs to a multiple of 8 bytes from its start,
 * at least one.  NULL if that is past end. */
static const unsigned char *
padded_end(const unsigned char *start, size_t hlen, size_t nlen,
    const unsigned char *end)
{
	size_t	elen = (hlen + nlen + 8) & ~(size_t)7;

	return (size_t)(end - start) < elen ? NULL : start + elen;
}

/*
 * Where the parse reads from: the whole file in memory (fd -1), or a
 * window onto it that slides as the entries go by, so that a large
 * index is never held whole (its parsed entries are).  end is the
 * window's end; left, what of the file before its checksum is not in
 * the window yet, which starts at off (read with pread(), so that two
 * reads of one file descriptor never meet).
 */
struct src {
	const unsigned char	*p, *end;
	int			 fd;
	unsigned char		*win;
	size_t			 cap;
	size_t			 left;
	off_t			 off;
};

/* At least want bytes from s->p on, or all that is left: the window
 * refilled, what it holds moved to its start.  -1 if the file cannot be
 * read or ends early. */
static int
src_fill(struct src *s, size_t want)
{
	size_t	avail = (size_t)(s->end - s->p), n;
	ssize_t	r;

	if (avail >= want || s->left == 0)
		return 0;
	memmove(s->win, s->p, avail);
	s->p = s->win;
	s->end = s->win + avail;
	while (s->left > 0 && avail < s->cap) {
		n = s->cap - avail < s->left ? s->cap - avail : s->left;
		if ((r = pread(s->fd, s->win + avail, n, s->off)) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EINVAL;
			return -1;
		}
		avail += (size_t)r;
		s->left -= (size_t)r;
		s->off += (off_t)r;
		s->end = s->win + avail;
	}
	return 0;
}

/* n bytes passed over; -1 if there are not as many. */
static int
src_skip(struct src *s, size_t n)
{
	size_t	avail = (size_t)(s->end - s->p);

	if (n <= avail) {
		s->p += n;
		return 0;
	}
	n -= avail;
	s->p = s->end;
	if (n > s->left)
		return -1;
	s->left -= n;
	s->off += (off_t)n;
	return 0;
}

/*
 * s a window of at most window bytes onto the index open at fd, read
 * from its start; its size into *len.  -1 if it is not a regular file,
 * or larger than forge reads.
 */
static int
src_open(struct src *s, int fd, size_t rawsz, size_t window, size_t *len)
{
	struct stat	st;

	memset(s, 0, sizeof(*s));
	s->fd = fd;
	if (fstat(fd, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > INDEX_MAX) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		return -1;
	}
	*len = (size_t)st.st_size;
	s->left = *len > rawsz ? *len - rawsz : 0;
	s->cap = s->left < window ? s->left : window;
	s->win = xmalloc(s->cap > 0 ? s->cap : 1);
	s->p = s->end = s->win;
	return 0;
}

/* The extensions, to the checksum: none that holds entries elsewhere
 * (a split index's "link") or says the index is sparse. */
static int
extensions_ok(struct src *s)
{
	uint32_t	esz;

	for (;;) {
		if (src_fill(s, 8) == -1)
			return 0;
		if (s->p == s->end)
			return 1;
		if (s->end - s->p < 8)
			return 0;
		esz = get32(s->p + 4);
		if (memcmp(s->p, "link", 4) == 0 ||
		    memcmp(s->p, "sdir", 4) == 0 || src_skip(s, 8) == -1 ||
		    src_skip(s, esz) == -1)
			return 0;
	}
}

/*
 * The next entry from s, its stat data into e and its path into prev
 * (which holds the one before: version 4 keeps what their paths share);
 * s moved past it.  -1 if it is not one forge reads.
 */
static int
entry_read(struct src *s, struct gitindex_entry *e, uint32_t version,
    size_t rawsz, struct buf *prev)
{
	const unsigned char	*p, *end, *nul;
	size_t			 fixed = 40 + rawsz + 2, hlen, nlen, strip;
	uint32_t		 flags;

	/* The whole entry in the window: an entry longer than half of it
	 * is refused with the rest. */
	if (src_fill(s, s->cap / 2) == -1)
		return -1;
	p = s->p;
	end = s->end;
	if ((size_t)(end - p) < fixed)
		return -1;
	flags = entry_stat(e, p, rawsz);
	if (flags & (CE_ASSUME_VALID | CE_STAGEMASK))
		return -1;
	p += fixed;
	if (flags & CE_EXTENDED) {
		if (version < 3 || end - p < 2 ||
		    ((uint32_t)p[0] << 8 | p[1]) & CE_EXT_ANY)
			return -1;
		p += 2;
	}
	/* The regular files, symlinks and submodules of a full index: a
	 * directory's entry is a sparse index's. */
	if (e->mode != 0100644 && e->mode != 0100755 &&
	    e->mode != 0120000 && e->mode != 0160000)
		return -1;
	if (version == 4) {
		if (get_varint(&p, end, &strip) == -1 || strip > prev->len)
			return -1;
		prev->len -= strip;
	} else
		buf_reset(prev);
	if ((nul = memchr(p, '\0', end - p)) == NULL)
		return -1;
	nlen = nul - p;
	buf_add(prev, p, nlen);
	buf_str(prev);
	if (prev->len == 0 || ((flags & CE_NAMEMASK) != CE_NAMEMASK &&
	    (flags & CE_NAMEMASK) != prev->len) ||
	    strlen(prev->data) != prev->len)
		return -1;
	hlen = fixed + ((flags & CE_EXTENDED) ? 2 : 0);
	if (version == 4)
		p = nul + 1;
	else if ((p = padded_end(p - hlen, hlen, nlen, end)) == NULL)
		return -1;
	s->p = p;
	return 0;
}

/* An index read entry by entry, from s: what its header says, how many
 * entries were read, the last one (e, its path in prev) and its path
 * before that (last). */
struct walk {
	struct src		 s;
	struct buf		 prev, last;
	uint32_t		 version, count, i;
	size_t			 rawsz;
	struct gitindex_entry	 e;
};

/* w's header read, of an index of len bytes (its checksum among them)
 * whose ids are rawsz bytes.  -1 if it is not one forge reads. */
static int
walk_begin(struct walk *w, size_t len, size_t rawsz)
{
	struct src	*s = &w->s;

	w->prev = (struct buf)BUF_INIT;
	w->last = (struct buf)BUF_INIT;
	w->i = w->count = 0;
	w->rawsz = rawsz;
	/* Header, at least; the trailing checksum is not looked at: what
	 * forge reads it sealed itself. */
	if (len < 12 + rawsz || (rawsz != 20 && rawsz != 32) ||
	    src_fill(s, 12) == -1 || s->end - s->p < 12 ||
	    memcmp(s->p, "DIRC", 4) != 0)
		return -1;
	w->version = get32(s->p + 4);
	w->count = get32(s->p + 8);
	if (w->version < 2 || w->version > 4)
		return -1;
	s->p += 12;
	/* No more entries than the file has room for (stat data, object
	 * id, flags: entry_stat()). */
	if (w->count > (len - rawsz - 12) / (40 + rawsz + 2))
		return -1;
	return 0;
}

/* 1: the next entry, in w->e (its path valid until the next call); 0:
 * there are no more, and what follows them is as forge reads it; -1:
 * the index is not one forge reads. */
static int
walk_next(struct walk *w)
{
	if (w->i == w->count)
		return extensions_ok(&w->s) ? 0 : -1;
	if (entry_read(&w->s, &w->e, w->version, w->rawsz, &w->prev) == -1)
		return -1;
	/* Sorted as git sorts, each path once. */
	if (w->i > 0 && strcmp(w->last.data, w->prev.data) >= 0)
		return -1;
	buf_reset(&w->last);
	buf_add(&w->last, w->prev.data, w->prev.len + 1);
	w->e.path = w->prev.data;
	w->i++;
	return 1;
}

static void
walk_free(struct walk *w)
{
	buf_free(&w->prev);
	buf_free(&w->last);
}

/* The entries from w, len bytes in all (the checksum's among them), into
 * ix. */
static int
parse(struct gitindex *ix, struct walk *w, size_t len, size_t rawsz)
{
	struct buf	 names = BUF_INIT;
	const char	*base;
	size_t		*offs = NULL, i, last;
	int		 r = -1;

	memset(ix, 0, sizeof(*ix));
	if (walk_begin(w, len, rawsz) == -1)
		goto out;
	ix->v = xreallocarray(NULL, w->count > 0 ? w->count : 1,
	    sizeof(*ix->v));
	/*
	 * Versions 2 and 3 have each path whole, ended by one NUL or more:
	 * room for all of them is known, and each entry's path is set as it
	 * is read.  Version 4's are cut by the one before, and the room
	 * they take grows: their offsets are made paths at the end.
	 */
	if (w->version < 4)
		buf_grow(&names, len - rawsz - 12 -
		    (size_t)w->count * (40 + rawsz + 2));
	else
		offs = xreallocarray(NULL, w->count > 0 ? w->count : 1,
		    sizeof(*offs));
	base = names.data;
	for (i = 0; (r = walk_next(w)) == 1; i++) {
		last = names.len;
		buf_add(&names, w->prev.data, w->prev.len + 1);
		ix->v[i] = w->e;
		if (offs != NULL)
			offs[i] = last;
		else if (names.data != base) {
			/* Never moved: there was room for every path. */
			r = -1;
			break;
		} else
			ix->v[i].path = names.data + last;
	}
	if (r == 0) {
		ix->n = w->count;
		ix->rawsz = rawsz;
		ix->names = buf_detach(&names);
		for (i = 0; offs != NULL && i < ix->n; i++)
			ix->v[i].path = ix->names + offs[i];
	}
out:
	if (r == -1) {
		free(ix->v);
		memset(ix, 0, sizeof(*ix));
		buf_free(&names);
		errno = EINVAL;
	}
	walk_free(w);
	free(offs);
	return r;
}

int
gitindex_parse(struct gitindex *ix, const unsigned char *data, size_t len,
    size_t rawsz)
{
	struct walk	w;

	memset(&w, 0, sizeof(w));
	w.s.fd = -1;
	w.s.p = data;
	w.s.end = data + (len > rawsz ? len - rawsz : 0);
	return parse(ix, &w, len, rawsz);
}

int
gitindex_read_window(struct gitindex *ix, const char *path, size_t rawsz,
    size_t window)
{
	struct walk	w;
	size_t		len;
	int		fd, r = -1, saved;

	memset(ix, 0, sizeof(*ix));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	if (src_open(&w.s, fd, rawsz, window, &len) == 0)
		r = parse(ix, &w, len, rawsz);
	saved = errno;
	free(w.s.win);
	close(fd);
	errno = saved;
	return r;
}

int
gitindex_read(struct gitindex *ix, const char *path, size_t rawsz)
{
	return gitindex_read_window(ix, path, rawsz, INDEX_WINDOW);
}

struct gitindex_iter {
	struct walk	w;
};

struct gitindex_iter *
gitindex_iter_fd(int fd, size_t rawsz)
{
	struct gitindex_iter	*it = xmalloc(sizeof(*it));
	size_t			 len;
	int			 saved;

	memset(it, 0, sizeof(*it));
	if (src_open(&it->w.s, fd, rawsz, INDEX_WINDOW, &len) == 0) {
		if (walk_begin(&it->w, len, rawsz) == 0)
			return it;
		errno = EINVAL;
	}
	saved = errno;
	gitindex_iter_free(it);
	errno = saved;
	return NULL;
}

int
gitindex_iter_next(struct gitindex_iter *it, const struct gitindex_entry **e)
{
	int	r;

	*e = NULL;
	if ((r = walk_next(&it->w)) == 1)
		*e = &it->w.e;
	else if (r == -1)
		errno = EINVAL;
	return r;
}

size_t
gitindex_iter_count(const struct gitindex_iter *it)
{
	return it->w.count;
}

void
gitindex_iter_free(struct gitindex_iter *it)
{
	if (it == NULL)
		return;
	walk_free(&it->w);
	free(it->w.s.win);
	free(it);
}

int
gitindex_each_fd(int fd, size_t rawsz, gitindex_each_fn each, void *arg,
    size_t *n)
{
	struct gitindex_iter		*it;
	const struct gitindex_entry	*e;
	int				 r, saved;

	if ((it = gitindex_iter_fd(fd, rawsz)) == NULL)
		return -1;
	while ((r = gitindex_iter_next(it, &e)) == 1)
		if (each != NULL && each(e, arg) == -1) {
			r = -1;
			break;
		}
	if (r == 0 && n != NULL)
		*n = gitindex_iter_count(it);
	saved = errno;
	gitindex_iter_free(it);
	errno = saved;
	return r;
}

int
gitindex_each(const char *path, size_t rawsz, gitindex_each_fn each,
    void *arg, size_t *n)
{
	int	fd, r, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	r = gitindex_each_fd(fd, rawsz, each, arg, n);
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

int
gitindex_count(const char *path, size_t rawsz, size_t *n)
{
	return gitindex_each(path, rawsz, NULL, NULL, n);
}

size_t
gitindex_pos(const struct gitindex *ix, const char *path)
{
	size_t	lo = 0, hi = ix->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ix->v[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct gitindex_entry *
gitindex_find(const struct gitindex *ix, const char *path)
{
	size_t	i = gitindex_pos(ix, path);

	return i < ix->n && strcmp(ix->v[i].path, path) == 0 ? &ix->v[i] :
	    NULL;
}

/* Is the time git kept (seconds, and nanoseconds where its git keeps
 * them) the file's? */
static int
same_time(uint32_t sec, uint32_t nsec, const struct timespec *t)
{
	return sec == (uint32_t)t->tv_sec && (nsec == 0 ||
	    nsec == (uint32_t)t->tv_nsec);
}

/*
 * Was the time git kept, (sec, nsec), not before t?  Where git kept no
 * nanoseconds (a git built without them), to the second: the file's
 * time may have been later in that second.
 */
static int
not_before(uint32_t sec, uint32_t nsec, const struct timespec *t)
{
	if ((time_t)sec != t->tv_sec)
		return (time_t)sec > t->tv_sec;
	return nsec == 0 || (long)nsec >= t->tv_nsec;
}

int
gitindex_stale(const struct gitindex_entry *e, const struct stat *st,
    const struct timespec *since)
{
	if (st == NULL || since->tv_sec <= 0)
		return 1;
	switch (e->mode) {
	case 0100644:
		if (!S_ISREG(st->st_mode) || (st->st_mode & S_IXUSR))
			return 1;
		break;
	case 0100755:
		if (!S_ISREG(st->st_mode) || !(st->st_mode & S_IXUSR))
			return 1;
		break;
	case 0120000:
		if (!S_ISLNK(st->st_mode))
			return 1;
		break;
	default:
		return 1;	/* a submodule: git looks inside */
	}
	/*
	 * As git compares them, but with the change time whatever git is
	 * told of it: the file as git saw it has the same times, inode,
	 * owner and size (the low 32 bits each) -- an empty one is looked
	 * at anyway, as git keeps a size of 0 for a file it must look at
	 * again.
	 */
	if (e->mtime != (uint32_t)st->st_mtim.tv_sec ||
	    e->ctime != (uint32_t)st->st_ctim.tv_sec ||
	    e->ino != (uint32_t)st->st_ino || e->uid != (uint32_t)st->st_uid ||
	    e->gid != (uint32_t)st->st_gid ||
	    e->size != (uint32_t)st->st_size)
		return 1;
	/* What a git that keeps whole seconds takes as it was. */
	if (!same_time(e->mtime, e->mtime_ns, &st->st_mtim) ||
	    !same_time(e->ctime, e->ctime_ns, &st->st_ctim) || e->size == 0)
		return 2;
	/*
	 * And it was not changed at since or later: a change after git
	 * looked is stamped no earlier than since, and one stamped with
	 * the very time git kept would not show.  The change time is
	 * enough (nothing sets it back); the modification time is looked
	 * at too.
	 */
	return not_before(e->ctime, e->ctime_ns, since) ||
	    not_before(e->mtime, e->mtime_ns, since) ? 2 : 0;
}

int
gitindex_empty(const struct gitindex_entry *e, size_t rawsz)
{
	static const char	sha1[] =
	    "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
	static const char	sha256[] =
	    "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813";
	char			hex[2 * HASH_MAX + 1];

	if (rawsz != 20 && rawsz != 32)
		return 0;
	hash_hex(e->oid, rawsz, hex);
	return strcmp(hex, rawsz == 20 ? sha1 : sha256) == 0;
}

/* A look under way (gitindex_look()): the top, the directory open and
 * its path (cur; fd -1 if gone), and what was found. */
struct look {
	int				 root, dfd;
	struct buf			 cur;
	const struct timespec		*since;
	struct strv			*stale, *unsure;
};

static int
look_begin(struct look *lk, const char *top, const struct timespec *since,
    struct strv *stale, struct strv *unsure)
{
	memset(lk, 0, sizeof(*lk));
	if ((lk->root = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	lk->dfd = -2;		/* none open yet */
	lk->cur = (struct buf)BUF_INIT;
	lk->since = since;
	lk->stale = stale;
	lk->unsure = unsure;
	return 0;
}

/* e's file against e, in the look arg (a gitindex_each_fn). */
static int
look_one(const struct gitindex_entry *e, void *arg)
{
	struct look	*lk = arg;
	struct stat	 st;
	const char	*path = e->path, *slash = strrchr(path, '/');
	size_t		 dlen = slash != NULL ? (size_t)(slash - path) : 0;
	int		 r, k;

	if (lk->dfd == -2 || lk->cur.len != dlen ||
	    memcmp(lk->cur.data, path, dlen) != 0) {
		if (lk->dfd >= 0 && lk->dfd != lk->root)
			close(lk->dfd);
		buf_reset(&lk->cur);
		buf_add(&lk->cur, path, dlen);
		buf_str(&lk->cur);
		lk->dfd = dlen == 0 ? lk->root : fs_open_dir(lk->root,
		    lk->cur.data, 0, 0);
		/* Gone: its files are.  Anything else (a symlink on the
		 * way): not for this look. */
		if (lk->dfd == -1 && errno != ENOENT)
			return -1;
	}
	r = lk->dfd >= 0 && fstatat(lk->dfd, path + (dlen > 0 ? dlen + 1 : 0),
	    &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!r && lk->dfd >= 0 && errno != ENOENT)
		return -1;
	if ((k = gitindex_stale(e, r ? &st : NULL, lk->since)) != 0) {
		strv_push(lk->stale, path);
		if (k == 2 && lk->unsure != NULL)
			strv_push(lk->unsure, path);
	}
	return 0;
}

static void
look_end(struct look *lk)
{
	if (lk->dfd >= 0 && lk->dfd != lk->root)
		close(lk->dfd);
	close(lk->root);
	buf_free(&lk->cur);
}

int
gitindex_look(const char *top, const struct gitindex *ix,
    const struct timespec *since, struct strv *stale, struct strv *unsure)
{
	struct look	lk;
	size_t		i;
	int		ret = 0;

	if (look_begin(&lk, top, since, stale, unsure) == -1)
		return -1;
	for (i = 0; i < ix->n && ret == 0; i++)
		ret = look_one(&ix->v[i], &lk);
	look_end(&lk);
	return ret;
}

int
gitindex_look_fd(const char *top, int fd, size_t rawsz,
    const struct timespec *since, struct strv *stale, struct strv *unsure)
{
	struct look	lk;
	int		r;

	if (look_begin(&lk, top, since, stale, unsure) == -1)
		return -1;
	r = gitindex_each_fd(fd, rawsz, look_one, &lk, NULL);
	look_end(&lk);
	return r;
}

/* The mode of an entry in its tree, as git writes it: octal digits. */
static const char *
tree_mode(uint32_t mode)
{
	switch (mode) {
	case 0100644:
		return "100644";
	case 0100755:
		return "100755";
	case 0120000:
		return "120000";
	default:
		return "160000";	/* the four gitindex_parse() takes */
	}
}

/*
 * A tree hashed as an index's entries go by, in the index's order --
 * which sorts the entries of a directory together, as a tree sorts its
 * names (with a slash after a directory's): for each directory open on
 * the way to the last entry (lv[0] the top), its entries so far, each
 * the mode in octal, a space, the name, a NUL and the object id; and
 * where its name ends in that entry's path (at, past its slash).
 */
struct treeb {
	size_t		 rawsz;
	struct buf	 path;
	struct buf	*lv;
	size_t		*at;
	size_t		 n, cap;
};

static void
treeb_init(struct treeb *tb, size_t rawsz)
{
	memset(tb, 0, sizeof(*tb));
	tb->rawsz = rawsz;
	tb->path = (struct buf)BUF_INIT;
	tb->cap = 8;
	tb->lv = xreallocarray(NULL, tb->cap, sizeof(*tb->lv));
	tb->at = xreallocarray(NULL, tb->cap, sizeof(*tb->at));
	tb->lv[0] = (struct buf)BUF_INIT;
	tb->at[0] = 0;
	tb->n = 1;
}

/* A directory opened, its name ending at at in the path. */
static void
treeb_push(struct treeb *tb, size_t at)
{
	if (tb->n == tb->cap) {
		tb->cap *= 2;
		tb->lv = xreallocarray(tb->lv, tb->cap, sizeof(*tb->lv));
		tb->at = xreallocarray(tb->at, tb->cap, sizeof(*tb->at));
	}
	tb->lv[tb->n] = (struct buf)BUF_INIT;
	tb->at[tb->n++] = at;
}

/* The object "tree", a space, the size of b in decimal, a NUL and b:
 * its id into oid. */
static void
treeb_hash(const struct treeb *tb, const struct buf *b, unsigned char *oid)
{
	struct hash	h;
	char		head[32];
	int		n;

	n = snprintf(head, sizeof(head), "tree %zu", b->len);
	(void)hash_init(&h, tb->rawsz);
	hash_update(&h, head, (size_t)n + 1);
	hash_update(&h, b->data != NULL ? b->data : "", b->len);
	hash_final(&h, oid);
}

/* The innermost open directory hashed, and given to the one it is in. */
static void
treeb_pop(struct treeb *tb)
{
	unsigned char	 oid[HASH_MAX];
	struct buf	*up = &tb->lv[tb->n - 2];
	size_t		 from = tb->at[tb->n - 2], to = tb->at[tb->n - 1];

	treeb_hash(tb, &tb->lv[tb->n - 1], oid);
	buf_free(&tb->lv[--tb->n]);
	buf_add(up, "40000 ", 6);
	buf_add(up, tb->path.data + from, to - 1 - from);
	buf_add(up, "", 1);
	buf_add(up, oid, tb->rawsz);
}

/*
 * e added to the tree arg, after those before it in the index.  -1
 * where git write-tree refuses: an entry without an object, a file
 * beside a directory of the same name (next to each other, as git
 * looks).
 */
static int
treeb_add(const struct gitindex_entry *e, void *arg)
{
	static const unsigned char	null_oid[HASH_MAX];
	struct treeb			*tb = arg;
	const char			*mode, *p = e->path, *slash;
	size_t				 plen = tb->path.len;

	if (memcmp(e->oid, null_oid, tb->rawsz) == 0 || (plen > 0 &&
	    strncmp(p, tb->path.data, plen) == 0 && p[plen] == '/'))
		return -1;
	/* The directories this one is not in, closed. */
	while (tb->n > 1 && strncmp(p, tb->path.data, tb->at[tb->n - 1]) != 0)
		treeb_pop(tb);
	buf_reset(&tb->path);
	buf_adds(&tb->path, p);
	buf_str(&tb->path);
	/* Those it is in, opened. */
	while ((slash = strchr(p + tb->at[tb->n - 1], '/')) != NULL)
		treeb_push(tb, (size_t)(slash - p) + 1);
	mode = tree_mode(e->mode);
	buf_adds(&tb->lv[tb->n - 1], mode);
	buf_add(&tb->lv[tb->n - 1], " ", 1);
	buf_add(&tb->lv[tb->n - 1], p + tb->at[tb->n - 1],
	    strlen(p + tb->at[tb->n - 1]) + 1);
	buf_add(&tb->lv[tb->n - 1], e->oid, tb->rawsz);
	return 0;
}

/* The tree's id, as hex digits into hex (unless NULL); tb freed. */
static void
treeb_end(struct treeb *tb, char *hex)
{
	unsigned char	oid[HASH_MAX];

	while (tb->n > 1)
		treeb_pop(tb);
	if (hex != NULL) {
		treeb_hash(tb, &tb->lv[0], oid);
		hash_hex(oid, tb->rawsz, hex);
	}
	buf_free(&tb->lv[0]);
	buf_free(&tb->path);
	free(tb->lv);
	free(tb->at);
}

int
gitindex_tree(const struct gitindex *ix, char *hex)
{
	struct treeb	tb;
	size_t		i;

	if (ix->rawsz != 20 && ix->rawsz != 32) {
		errno = EINVAL;
		return -1;
	}
	treeb_init(&tb, ix->rawsz);
	for (i = 0; i < ix->n; i++)
		if (treeb_add(&ix->v[i], &tb) == -1) {
			treeb_end(&tb, NULL);
			errno = EINVAL;
			return -1;
		}
	treeb_end(&tb, hex);
	return 0;
}

int
gitindex_tree_fd(int fd, size_t rawsz, char *hex)
{
	struct treeb	tb;
	int		r;

	treeb_init(&tb, rawsz);
	r = gitindex_each_fd(fd, rawsz, treeb_add, &tb, NULL);
	treeb_end(&tb, r == 0 ? hex : NULL);
	if (r == -1)
		errno = EINVAL;
	return r;
}

/* One line of gitindex_diff_fd(): the modes ("000000" for none), a tab
 * and the path. */
static void
diff_line(struct strv *out, const struct gitindex_entry *a,
    const struct gitindex_entry *b)
{
	strv_pushf(out, "%06o %06o\t%s", a != NULL ? (unsigned)a->mode : 0u,
	    b != NULL ? (unsigned)b->mode : 0u, a != NULL ? a->path : b->path);
}

int
gitindex_diff_fd(int afd, int bfd, size_t rawsz, struct strv *out)
{
	struct gitindex_iter		*a, *b = NULL;
	const struct gitindex_entry	*x = NULL, *y = NULL;
	int				 ra = 0, rb = 0, c;

	if ((a = gitindex_iter_fd(afd, rawsz)) == NULL ||
	    (b = gitindex_iter_fd(bfd, rawsz)) == NULL ||
	    (ra = gitindex_iter_next(a, &x)) == -1 ||
	    (rb = gitindex_iter_next(b, &y)) == -1)
		goto out;
	while (ra == 1 || rb == 1) {
		if (ra == 0)
			c = 1;
		else if (rb == 0)
			c = -1;
		else
			c = strcmp(x->path, y->path);
		if (c < 0)
			diff_line(out, x, NULL);
		else if (c > 0)
			diff_line(out, NULL, y);
		else if (x->mode != y->mode || memcmp(x->oid, y->oid, rawsz) != 0)
			diff_line(out, x, y);
		if (c <= 0 && (ra = gitindex_iter_next(a, &x)) == -1)
			break;
		if (c >= 0 && (rb = gitindex_iter_next(b, &y)) == -1)
			break;
	}
out:
	gitindex_iter_free(a);
	gitindex_iter_free(b);
	if (a == NULL || b == NULL || ra == -1 || rb == -1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

void
gitindex_free(struct gitindex *ix)
{
	free(ix->v);
	free(ix->names);
	memset(ix, 0, sizeof(*ix));
}
