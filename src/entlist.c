/* Index entries held compactly: mode, object id in bytes, path. */
#include "config.h"

#include <sys/mman.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "entlist.h"
#include "forge.h"
#include "hash.h"
#include "strv.h"
#include "sum.h"
#include "xmalloc.h"

#define BLK_SHIFT	16
#define BLK		((size_t)1 << BLK_SHIFT)
#define AT_SHIFT	14
#define AT_BLK		((size_t)1 << AT_SHIFT)

/* Each byte's value as a hex digit, either case; -1 if it is none. */
static const signed char	hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The rawsz bytes of 2 * rawsz hex digits into raw; -1 if one is none. */
static int
unhex(const char *hex, size_t rawsz, unsigned char *raw)
{
	size_t	i;
	int	hi, lo;

	for (i = 0; i < rawsz; i++) {
		hi = hexval[(unsigned char)hex[2 * i]] - 1;
		lo = hexval[(unsigned char)hex[2 * i + 1]] - 1;
		if (hi < 0 || lo < 0)
			return -1;
		raw[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* size bytes mapped on their own, given back whole when unmapped: a
 * listing freed is memory the process no longer holds, wherever the
 * heap's top is. */
static void *
map(size_t size)
{
	void	*p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		err(EXIT_FORGE, "mmap");
	return p;
}

/* Room for need bytes at el->len, in one piece: a new block if the one
 * being filled (the last) has not that much left, blocks of their own
 * for more than one holds.  Where they go; el->len where they start. */
static char *
room(struct entlist *el, size_t need)
{
	size_t	off = el->len & (BLK - 1), k, i;
	char	*b;

	if (el->nblk > 0 && off != 0 && BLK - off >= need)
		return el->blk[el->nblk - 1] + off;
	k = (need + BLK - 1) / BLK;
	if (((uint64_t)el->nblk + k) << BLK_SHIFT > UINT32_MAX)
		errx(EXIT_FORGE, "an index listing past 4 GiB");
	if (el->nblk + k > el->blkcap) {
		el->blkcap = el->blkcap == 0 ? 64 : el->blkcap * 2;
		if (el->blkcap < el->nblk + k)
			el->blkcap = el->nblk + k;
		el->blk = xreallocarray(el->blk, el->blkcap, sizeof(*el->blk));
	}
	b = map(k * BLK);
	el->blk[el->nblk] = b;
	for (i = 1; i < k; i++)
		el->blk[el->nblk + i] = NULL;	/* b's too */
	el->len = (uint32_t)(el->nblk << BLK_SHIFT);
	el->nblk += k;
	return b;
}

int
entlist_push(struct entlist *el, unsigned mode, const char *hex,
    size_t hexlen, const char *path, size_t pathlen)
{
	unsigned char	 raw[32];
	uint32_t	 m = mode;
	size_t		 rawsz = hexlen / 2, need;
	char		*p;

	if (mode > 0777777 || (rawsz != 20 && rawsz != 32) ||
	    hexlen % 2 != 0 || (el->rawsz != 0 && el->rawsz != rawsz) ||
	    unhex(hex, rawsz, raw) == -1)
		return -1;
	el->rawsz = rawsz;
	need = sizeof(m) + rawsz + pathlen + 1;
	p = room(el, need);
	if ((el->n & (AT_BLK - 1)) == 0) {
		el->at = xreallocarray(el->at, el->natblk + 1,
		    sizeof(*el->at));
		el->at[el->natblk++] = map(AT_BLK * sizeof(**el->at));
	}
	el->at[el->n >> AT_SHIFT][el->n & (AT_BLK - 1)] = el->len;
	el->n++;
	memcpy(p, &m, sizeof(m));
	memcpy(p + sizeof(m), raw, rawsz);
	memcpy(p + sizeof(m) + rawsz, path, pathlen);
	p[need - 1] = '\0';
	/* After blocks of its own, the next entry starts a block. */
	if (need > BLK)
		el->len = (uint32_t)(el->nblk << BLK_SHIFT);
	else
		el->len += (uint32_t)need;
	return 0;
}

/* Where entry i starts. */
static const char *
entry(const struct entlist *el, size_t i)
{
	uint32_t	a = el->at[i >> AT_SHIFT][i & (AT_BLK - 1)];

	return el->blk[a >> BLK_SHIFT] + (a & (BLK - 1));
}

const char *
entlist_path(const struct entlist *el, size_t i)
{
	return entry(el, i) + sizeof(uint32_t) + el->rawsz;
}

unsigned
entlist_mode(const struct entlist *el, size_t i)
{
	uint32_t	m;

	memcpy(&m, entry(el, i), sizeof(m));
	return m;
}

const unsigned char *
entlist_oid(const struct entlist *el, size_t i)
{
	return (const unsigned char *)entry(el, i) + sizeof(uint32_t);
}

/*
 * Entry i's line, "mode oid\tpath" (git's "%06o %s\t%s"), into b, after
 * what b holds: made a piece at a time, as a listing's sums take every
 * entry's (no printf).
 */
static void
line_add(const struct entlist *el, size_t i, struct buf *b)
{
	const char	*path = entlist_path(el, i);
	unsigned	 mode = entlist_mode(el, i);
	char		 head[80];
	size_t		 k, n;

	for (k = 6; k-- > 0; mode >>= 3)
		head[k] = (char)('0' + (mode & 7));
	head[6] = ' ';
	n = 7;
	hash_hex(entlist_oid(el, i), el->rawsz, head + n);
	n += 2 * el->rawsz;
	head[n++] = '\t';
	buf_add(b, head, n);
	buf_add(b, path, strlen(path));
}

const char *
entlist_line(const struct entlist *el, size_t i, struct buf *b)
{
	buf_reset(b);
	line_add(el, i, b);
	return buf_str(b);
}

void
entlist_put(const struct entlist *el, size_t i, struct strv *v)
{
	struct buf	b = BUF_INIT;

	strv_push(v, entlist_line(el, i, &b));
	buf_free(&b);
}

void
entlist_sum(const struct entlist *el, struct sum *s, const char *tag)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	sum_str(s, tag);
	for (i = 0; el != NULL && i < el->n; i++) {
		buf_reset(&b);
		line_add(el, i, &b);
		sum_add(s, b.data, b.len + 1);
	}
	buf_free(&b);
}

ssize_t
entlist_find(const struct entlist *el, const char *path)
{
	size_t	lo = 0, hi = el->n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(path, entlist_path(el, mid))) == 0)
			return (ssize_t)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

void
entlist_free(struct entlist *el)
{
	size_t	i, k;

	for (i = 0; i < el->nblk; i += k) {
		/* An entry's blocks of its own: one mapping, the slots
		 * after its first NULL. */
		for (k = 1; i + k < el->nblk && el->blk[i + k] == NULL; k++)
			;
		(void)munmap(el->blk[i], k * BLK);
	}
	for (i = 0; i < el->natblk; i++)
		(void)munmap(el->at[i], AT_BLK * sizeof(**el->at));
	free(el->blk);
	free(el->at);
	memset(el, 0, sizeof(*el));
}
