/*
 * Index entries as forge holds a whole listing of them: each entry's
 * mode, its object id in bytes and its path, one after another in one
 * buffer, found by an offset each.  An entry as git ls-files -s prints
 * it, "100644 <40 hex digits>\tpath" and a pointer to it, takes about
 * twice the room; at 100,000 files that is 3 MB.
 *
 *	struct entlist el = ENTLIST_INIT;
 *	if (entlist_push(&el, mode, hex, hexlen, path, pathlen) == -1)
 *		...	hex is no object id, or not of the others' length;
 *			or the mode has more than 6 octal digits
 *	entlist_path(&el, i), entlist_mode(&el, i), entlist_oid(&el, i)
 *	(el.rawsz bytes), for i < el.n; the pointers are good until the
 *	next push
 *	line = entlist_line(&el, i, &buf);	"mode oid\tpath" (lsfiles.h),
 *						in buf
 *	entlist_put(&el, i, &v);		the same pushed onto a strv
 *	entlist_sum(&el, &s, "tag");		a tag, then each line, as
 *						strv_sum() of them (sum.h)
 *	i = entlist_find(&el, path);	-1 if none; the entries sorted by
 *					path, as an index is
 *	entlist_free(&el);
 */
#ifndef ENTLIST_H
#define ENTLIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "strv.h"
#include "sum.h"

/*
 * The entries are written into blocks of 64 KiB, an entry never across
 * two unless it is longer than one (then in blocks of its own, one
 * mapping), and the offsets into blocks of 16,384: nothing is ever
 * moved or copied as the list grows, so that a listing costs the room
 * it takes and no more.  Each block is mapped on its own, so that the
 * memory of a list freed goes back to the system.
 */
struct entlist {
	char		**blk;	/* each 64 KiB of the entries: its mode (4
				   bytes), its oid (rawsz), its path, a NUL */
	size_t		  nblk, blkcap;
	uint32_t	  len;	/* of the entries, across the blocks */
	uint32_t	**at;	/* where each entry starts */
	size_t		  n, natblk;
	size_t		  rawsz;	/* of every oid: 20 or 32 (0: none yet) */
};

#define ENTLIST_INIT	{ NULL, 0, 0, 0, NULL, 0, 0, 0 }

int		 entlist_push(struct entlist *, unsigned, const char *, size_t,
		    const char *, size_t);
const char	*entlist_path(const struct entlist *, size_t);
unsigned	 entlist_mode(const struct entlist *, size_t);
const unsigned char *entlist_oid(const struct entlist *, size_t);
const char	*entlist_line(const struct entlist *, size_t, struct buf *);
void		 entlist_put(const struct entlist *, size_t, struct strv *);
void		 entlist_sum(const struct entlist *, struct sum *, const char *);
ssize_t		 entlist_find(const struct entlist *, const char *);
void		 entlist_free(struct entlist *);

#endif /* ENTLIST_H */
