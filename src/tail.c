/* Reading a file of lines backwards, one block at a time. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tail.h"
#include "xmalloc.h"

int
tail_open(struct tail *t, int fd)
{
	struct stat	sb;

	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->block = TAIL_BLOCK;
	if (fstat(fd, &sb) == -1)
		return -1;
	/* Nothing is held yet: the unread bytes end at the file's end. */
	t->lo = sb.st_size;
	t->off = sb.st_size;
	return 0;
}

void
tail_close(struct tail *t)
{
	free(t->buf);
	t->buf = NULL;
	t->len = 0;
}

/* The block before what is held, put in front of it. */
static int
read_before(struct tail *t)
{
	size_t	 n = t->lo < (off_t)t->block ? (size_t)t->lo : t->block;
	size_t	 got = 0;
	ssize_t	 r;
	char	*b;

	/* One byte more, for the NUL that ends a line in place. */
	b = xmalloc(n + t->len + 1);
	while (got < n) {
		r = pread(t->fd, b + got, n - got, t->lo - (off_t)n +
		    (off_t)got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* Shorter than it was: not the file we measured. */
			if (r == 0)
				errno = EIO;
			free(b);
			return -1;
		}
		got += (size_t)r;
	}
	if (t->len > 0)
		memcpy(b + n, t->buf, t->len);
	free(t->buf);
	t->buf = b;
	t->len += n;
	t->lo -= (off_t)n;
	return 0;
}

int
tail_prev(struct tail *t, const char **line, size_t *len)
{
	const char	*nl;
	size_t		 end;

	if (t->len == 0 && t->lo == 0)
		return 0;
	if (t->len == 0 && read_before(t) == -1)
		return -1;
	/* Every line ends in a newline, but a last one cut short. */
	t->torn = !t->started && t->buf[t->len - 1] != '\n';
	t->started = 1;
	end = t->torn ? t->len : t->len - 1;
	while ((nl = memrchr(t->buf, '\n', end)) == NULL && t->lo > 0) {
		/* The line starts before what is held. */
		end += t->lo < (off_t)t->block ? (size_t)t->lo : t->block;
		if (read_before(t) == -1)
			return -1;
	}
	*line = nl != NULL ? nl + 1 : t->buf;
	*len = (size_t)(t->buf + end - *line);
	t->buf[end] = '\0';
	t->len = (size_t)(*line - t->buf);
	t->off = t->lo + (off_t)t->len;
	return 1;
}
