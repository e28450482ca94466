/*
 * A file of lines, read from its end a block at a time: the last few
 * lines of a file cost what they hold, whatever the file's length.
 *
 *	struct tail t;
 *	tail_open(&t, fd);		the file as it is now: its size is
 *					taken here, and what is appended
 *					later is not read
 *	while ((r = tail_prev(&t, &line, &len)) == 1)
 *		... len bytes at line, its newline cut off (NUL in its
 *		    place), the last line first; t.off is where it starts
 *		    in the file; t.torn says it had no newline at all ...
 *	if (r == -1) ...		a read failed (errno set)
 *	tail_close(&t);
 *
 * The fd stays the caller's; a line is valid until the next call.  Only
 * the very last line can be torn (a write cut short); an empty line is
 * returned as one of length 0.  Memory holds one block and the longest
 * line met.
 */
#ifndef TAIL_H
#define TAIL_H

#include <sys/types.h>

#include <stddef.h>

#define TAIL_BLOCK	65536

struct tail {
	int	 fd;
	off_t	 off;		/* where the last line returned starts */
	int	 torn;		/* it had no newline */
	size_t	 block;		/* read at a time (TAIL_BLOCK) */
	char	*buf;		/* private: the bytes from lo on */
	size_t	 len;		/* private: unread bytes held */
	off_t	 lo;		/* private */
	int	 started;	/* private */
};

int	tail_open(struct tail *, int);
int	tail_prev(struct tail *, const char **, size_t *);
void	tail_close(struct tail *);

#endif /* TAIL_H */
