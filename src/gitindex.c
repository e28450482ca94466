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
#define INDEX_WINDOW	((size_t)256 << 10)

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
 * the window yet.
 */
struct src {
	const unsigned char	*p, *end;
	int			 fd;
	unsigned char		*win;
	size_t			 cap;
	size_t			 left;
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
		if ((r = read(s->fd, s->win + avail, n)) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EINVAL;
			return -1;
		}
		avail += (size_t)r;
		s->left -= (size_t)r;
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
	if (n > s->left || lseek(s->fd, (off_t)n, SEEK_CUR) == (off_t)-1)
		return -1;
	s->left -= n;
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

/* The entries from s, len bytes in all (the checksum's among them);
 * with keep 0, only counted, and each given to each (if not NULL) as it
 * is read: ix->v is then one entry, the last. */
static int
parse(struct gitindex *ix, struct src *s, size_t len, size_t rawsz,
    int keep, gitindex_each_fn each, void *arg)
{
	struct buf		 names = BUF_INIT, prev = BUF_INIT;
	const char		*base;
	size_t			*offs = NULL, fixed, i, body, last = 0;
	uint32_t		 version, count;
	int			 ret = -1;

	memset(ix, 0, sizeof(*ix));
	/* Header, at least; the trailing checksum is not looked at: what
	 * forge reads it sealed itself. */
	if (len < 12 + rawsz || (rawsz != 20 && rawsz != 32) ||
	    src_fill(s, 12) == -1 || s->end - s->p < 12 ||
	    memcmp(s->p, "DIRC", 4) != 0)
		goto bad;
	version = get32(s->p + 4);
	count = get32(s->p + 8);
	if (version < 2 || version > 4)
		goto bad;
	s->p += 12;
	/* Stat data, object id, flags (entry_stat()). */
	fixed = 40 + rawsz + 2;
	/* No more entries than the file has room for. */
	body = len - rawsz - 12;
	if (count > body / fixed)
		goto bad;
	ix->v = xreallocarray(NULL, count > 0 && keep ? count : 1,
	    sizeof(*ix->v));
	/*
	 * Versions 2 and 3 have each path whole, ended by one NUL or more:
	 * room for all of them is known, and each entry's path is set as it
	 * is read.  Version 4's are cut by the one before, and the room
	 * they take grows: their offsets are made paths at the end.
	 */
	if (keep && version < 4)
		buf_grow(&names, body - (size_t)count * fixed);
	else if (keep)
		offs = xreallocarray(NULL, count > 0 ? count : 1,
		    sizeof(*offs));
	base = names.data;
	for (i = 0; i < count; i++) {
		struct gitindex_entry	*e = &ix->v[keep ? i : 0];

		if (entry_read(s, e, version, rawsz, &prev) == -1)
			goto bad;
		/* Sorted as git sorts, each path once. */
		if (i > 0 && strcmp(names.data + last, prev.data) >= 0)
			goto bad;
		if (each != NULL) {
			e->path = prev.data;
			if (each(e, arg) == -1)
				goto stopped;
		}
		if (!keep)
			buf_reset(&names);
		last = names.len;
		if (offs != NULL)
			offs[i] = last;
		buf_add(&names, prev.data, prev.len + 1);
		if (offs == NULL && keep) {
			/* Never moved: there was room for every path. */
			if (names.data != base)
				goto bad;
			e->path = names.data + last;
		}
	}
	if (!extensions_ok(s))
		goto bad;
	ix->n = count;
	ix->rawsz = rawsz;
	ix->names = buf_detach(&names);
	for (i = 0; offs != NULL && i < count; i++)
		ix->v[i].path = ix->names + offs[i];
	if (!keep)
		ix->v[0].path = NULL;
	ret = 0;
bad:
	if (ret == -1)
		errno = EINVAL;
stopped:
	if (ret == -1) {
		free(ix->v);
		memset(ix, 0, sizeof(*ix));
		buf_free(&names);
	}
	buf_free(&prev);
	free(offs);
	return ret;
}

int
gitindex_parse(struct gitindex *ix, const unsigned char *data, size_t len,
    size_t rawsz)
{
	struct src	s;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	s.p = data;
	s.end = data + (len > rawsz ? len - rawsz : 0);
	return parse(ix, &s, len, rawsz, 1, NULL, NULL);
}

/* gitindex_read_window(), or with keep 0 gitindex_each()'s. */
static int
read_window(struct gitindex *ix, const char *path, size_t rawsz,
    size_t window, int keep, gitindex_each_fn each, void *arg)
{
	struct stat	st;
	struct src	s;
	int		r = -1, saved;

	memset(ix, 0, sizeof(*ix));
	memset(&s, 0, sizeof(s));
	if ((s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	if (fstat(s.fd, &st) == -1)
		goto out;
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > INDEX_MAX) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		goto out;
	}
	s.left = (size_t)st.st_size > rawsz ? (size_t)st.st_size - rawsz : 0;
	s.cap = s.left < window ? s.left : window;
	s.win = xmalloc(s.cap > 0 ? s.cap : 1);
	s.p = s.end = s.win;
	r = parse(ix, &s, (size_t)st.st_size, rawsz, keep, each, arg);
out:
	saved = errno;
	free(s.win);
	close(s.fd);
	errno = saved;
	return r;
}

int
gitindex_read_window(struct gitindex *ix, const char *path, size_t rawsz,
    size_t window)
{
	return read_window(ix, path, rawsz, window, 1, NULL, NULL);
}

int
gitindex_each(const char *path, size_t rawsz, gitindex_each_fn each,
    void *arg, size_t *n)
{
	struct gitindex	ix;

	if (read_window(&ix, path, rawsz, INDEX_WINDOW, 0, each, arg) == -1)
		return -1;
	if (n != NULL)
		*n = ix.n;
	gitindex_free(&ix);
	return 0;
}

int
gitindex_count(const char *path, size_t rawsz, size_t *n)
{
	return gitindex_each(path, rawsz, NULL, NULL, n);
}

int
gitindex_read(struct gitindex *ix, const char *path, size_t rawsz)
{
	return gitindex_read_window(ix, path, rawsz, INDEX_WINDOW);
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

int
gitindex_look(const char *top, const struct gitindex *ix,
    const struct timespec *since, struct strv *stale, struct strv *unsure)
{
	struct stat	 st;
	const char	*path, *slash, *dir;
	char		*d;
	size_t		 i, dlen, clen = 0;
	int		 root, dfd = -1, ret = 0, r, k;

	if ((root = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	dir = NULL;
	for (i = 0; i < ix->n && ret == 0; i++) {
		path = ix->v[i].path;
		slash = strrchr(path, '/');
		dlen = slash != NULL ? (size_t)(slash - path) : 0;
		if (dir == NULL || clen != dlen || memcmp(dir, path, dlen) !=
		    0) {
			if (dfd != -1 && dfd != root)
				close(dfd);
			dir = path;
			clen = dlen;
			if (dlen == 0)
				dfd = root;
			else {
				d = xstrndup(path, dlen);
				dfd = fs_open_dir(root, d, 0, 0);
				free(d);
				/* Gone: its files are.  Anything else (a
				 * symlink on the way): not for this look. */
				if (dfd == -1 && errno != ENOENT)
					ret = -1;
			}
		}
		r = dfd != -1 && fstatat(dfd, path + (dlen > 0 ? dlen + 1 : 0),
		    &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (!r && dfd != -1 && errno != ENOENT)
			ret = -1;
		else if ((k = gitindex_stale(&ix->v[i], r ? &st : NULL,
		    since)) != 0) {
			strv_push(stale, path);
			if (k == 2 && unsure != NULL)
				strv_push(unsure, path);
		}
	}
	if (dfd != -1 && dfd != root)
		close(dfd);
	close(root);
	return ret;
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
 * Into oid, the id of the tree of entries lo to hi, whose paths all go
 * through the directory of their first plen bytes (0 for the top):
 * for each name in it, the mode in octal, a space, the name, a NUL and
 * the object id, in the order of the index -- which sorts the entries
 * of a directory together, where a tree would sort its name with a
 * slash after it.  The object is "tree", a space, its size in decimal,
 * a NUL and that.
 */
static void
tree_of(const struct gitindex *ix, size_t lo, size_t hi, size_t plen,
    unsigned char *oid)
{
	struct buf	 b = BUF_INIT;
	struct hash	 h;
	unsigned char	 sub[HASH_MAX];
	const char	*name, *slash, *mode;
	char		 head[32];
	size_t		 i, j, nlen;
	int		 n;

	for (i = lo; i < hi; i = j) {
		name = ix->v[i].path + plen;
		if ((slash = strchr(name, '/')) == NULL) {
			mode = tree_mode(ix->v[i].mode);
			buf_add(&b, mode, strlen(mode));
			buf_add(&b, " ", 1);
			buf_add(&b, name, strlen(name) + 1);
			buf_add(&b, ix->v[i].oid, ix->rawsz);
			j = i + 1;
			continue;
		}
		nlen = (size_t)(slash - name) + 1;
		for (j = i + 1; j < hi && strncmp(ix->v[j].path + plen, name,
		    nlen) == 0; j++)
			;
		tree_of(ix, i, j, plen + nlen, sub);
		buf_add(&b, "40000 ", 6);
		buf_add(&b, name, nlen - 1);
		buf_add(&b, "", 1);
		buf_add(&b, sub, ix->rawsz);
	}
	n = snprintf(head, sizeof(head), "tree %zu", b.len);
	(void)hash_init(&h, ix->rawsz);
	hash_update(&h, head, (size_t)n + 1);
	hash_update(&h, b.data != NULL ? b.data : "", b.len);
	hash_final(&h, oid);
	buf_free(&b);
}

int
gitindex_treeable(const struct gitindex *ix)
{
	static const unsigned char	null_oid[HASH_MAX];
	size_t				i, n;

	if (ix->rawsz != 20 && ix->rawsz != 32)
		goto refused;
	for (i = 0; i < ix->n; i++) {
		/* git write-tree refuses an entry without an object, and
		 * a file next to a directory of the same name. */
		if (memcmp(ix->v[i].oid, null_oid, ix->rawsz) == 0)
			goto refused;
		n = strlen(ix->v[i].path);
		if (i + 1 < ix->n && strncmp(ix->v[i + 1].path,
		    ix->v[i].path, n) == 0 && ix->v[i + 1].path[n] == '/')
			goto refused;
	}
	return 0;
refused:
	errno = EINVAL;
	return -1;
}

int
gitindex_tree(const struct gitindex *ix, char *hex)
{
	unsigned char	oid[HASH_MAX];

	if (gitindex_treeable(ix) == -1)
		return -1;
	tree_of(ix, 0, ix->n, 0, oid);
	hash_hex(oid, ix->rawsz, hex);
	return 0;
}

/* One line of gitindex_diff(): the modes ("000000" for none), a tab and
 * the path. */
static void
diff_line(struct strv *out, const struct gitindex_entry *a,
    const struct gitindex_entry *b)
{
	strv_pushf(out, "%06o %06o\t%s", a != NULL ? (unsigned)a->mode : 0u,
	    b != NULL ? (unsigned)b->mode : 0u, a != NULL ? a->path : b->path);
}

void
gitindex_diff(const struct gitindex *a, const struct gitindex *b,
    struct strv *out)
{
	size_t	i = 0, j = 0;
	int	c;

	while (i < a->n || j < b->n) {
		if (i == a->n)
			c = 1;
		else if (j == b->n)
			c = -1;
		else
			c = strcmp(a->v[i].path, b->v[j].path);
		if (c < 0)
			diff_line(out, &a->v[i++], NULL);
		else if (c > 0)
			diff_line(out, NULL, &b->v[j++]);
		else {
			if (a->v[i].mode != b->v[j].mode ||
			    memcmp(a->v[i].oid, b->v[j].oid, a->rawsz) != 0)
				diff_line(out, &a->v[i], &b->v[j]);
			i++;
			j++;
		}
	}
}

void
gitindex_free(struct gitindex *ix)
{
	free(ix->v);
	free(ix->names);
	memset(ix, 0, sizeof(*ix));
}
