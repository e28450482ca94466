/*
 * A path replaced by another in a stream of bytes, however the reads
 * that bring it cut it.
 *
 *	struct pathmap m;
 *	if (pathmap_init(&m, from, to) == -1)	from is not an absolute
 *		...				path other than "/" (EINVAL)
 *	pathmap_feed(&m, p, n, emit, arg);	what can be told now goes to
 *					emit(arg, bytes, len), in order, in
 *					pieces; what could still be from is
 *					held back
 *	pathmap_held(&m)		bytes held back: at most from's length
 *	pathmap_flush(&m, emit, arg);	what was held back, as at the end of
 *					the stream (feed may go on after it)
 *	pathmap_free(&m);
 *
 * from is replaced where it stands as a whole path or a path's first
 * components: the byte after it is a '/' or none of a file name's
 * (letters, digits, '.', '_', '-').  So /t/copy is replaced in
 * /t/copy/a.c and "/t/copy: error", not in /t/copy2 or /t/copy.log;
 * that byte after it is why a whole from is held back until the next
 * byte comes, or the stream ends.  The byte before it is not looked at:
 * a terminal's colour sequence ends in a letter ("\033[1m/t/copy"), and
 * from is a directory with a name of its own (mkdtemp), which no other
 * path ends with.  A trailing slash of from's is dropped.
 *
 * The struct owns its strings and its buffer (xmalloc.h); emit is called
 * only from feed and flush, and nothing is allocated there.
 */
#ifndef PATHMAP_H
#define PATHMAP_H

#include <stddef.h>

typedef void	pathmap_emit_fn(void *, const char *, size_t);

struct pathmap {
	char	*from;
	size_t	 fromlen;
	char	*to;
	size_t	 tolen;
	char	*hold;		/* the bytes held back, with room for
				   from and the byte after it */
	size_t	 held;
};

int	pathmap_init(struct pathmap *, const char *, const char *);
void	pathmap_feed(struct pathmap *, const char *, size_t,
	    pathmap_emit_fn *, void *);
void	pathmap_flush(struct pathmap *, pathmap_emit_fn *, void *);
size_t	pathmap_held(const struct pathmap *);
void	pathmap_free(struct pathmap *);

#endif /* PATHMAP_H */
