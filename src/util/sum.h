/*
 * A fast 128-bit checksum of bytes, for telling whether something forge
 * made is still what it made: an index it carries, a file of a reused
 * copy, a list of paths.  It guards against accidents, not hostile code
 * (see CAVEATS): a change to any one 8-byte word always shows.
 *
 *	struct sum s;
 *	uint64_t d[2];
 *	sum_init(&s);
 *	sum_add(&s, p, n); ...		any split of the same bytes gives
 *					the same sum
 *	sum_str(&s, "tag");		a string and its NUL
 *	strv_sum(&v, &s, "tag");	a tag, then each string of v
 *					(strv.h)
 *	sum_fd(&s, fd);			what fd reads to its end (-1: a
 *					read failed)
 *	sum_file(&s, path);		the same of the file at path, not
 *					a symlink (-1: none to read)
 *	sum_final(&s, d);
 *	line = sum_line(&s, "prefix ");	"prefix <32 hex digits>\n", of the
 *					sum so far, to free
 */
#ifndef SUM_H
#define SUM_H

#include <stddef.h>
#include <stdint.h>

struct sum {
	uint64_t	h[2];
	uint64_t	len;
	unsigned char	tail[8];	/* len % 8 bytes not yet taken */
};

void	 sum_init(struct sum *);
void	 sum_add(struct sum *, const void *, size_t);
void	 sum_str(struct sum *, const char *);
int	 sum_fd(struct sum *, int);
int	 sum_file(struct sum *, const char *);
void	 sum_final(const struct sum *, uint64_t[2]);
char	*sum_line(const struct sum *, const char *);

#endif /* SUM_H */
