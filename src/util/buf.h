/*
 * Growable byte buffers.
 *
 *	struct buf b = BUF_INIT;
 *	buf_add(&b, data, len); buf_addf(&b, "%d", n); buf_addc(&b, 'x');
 *	... b.data is always NUL-terminated (b.len excludes the NUL) ...
 *	buf_free(&b);
 *
 * The buffer owns b.data; buf_detach() hands it to the caller.  Growth
 * goes through xmalloc.h, so these functions cannot fail.
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>
#include <sys/types.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};

#define BUF_INIT	{ NULL, 0, 0 }

void	 buf_grow(struct buf *, size_t);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addc(struct buf *, int);
void	 buf_addf(struct buf *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
void	 buf_truncate(struct buf *, size_t);
void	 buf_reset(struct buf *);
char	*buf_detach(struct buf *);
char	*buf_str(struct buf *);
void	 buf_free(struct buf *);
void	 buf_rtrim(struct buf *);
/* Read up to n bytes more from fd; returns bytes read, 0 at EOF, -1. */
ssize_t	 buf_read(struct buf *, int, size_t);

#endif /* BUF_H */
