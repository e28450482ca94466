/* A path in a stream replaced by another, however reads cut it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pathmap.h"
#include "xmalloc.h"

int
pathmap_init(struct pathmap *m, const char *from, const char *to)
{
	size_t	len;

	memset(m, 0, sizeof(*m));
	len = strlen(from);
	while (len > 1 && from[len - 1] == '/')
		len--;
	/* "/" would be every path's start. */
	if (from[0] != '/' || len < 2) {
		errno = EINVAL;
		return -1;
	}
	m->from = xstrndup(from, len);
	m->fromlen = len;
	m->to = xstrdup(to);
	m->tolen = strlen(to);
	/* A whole from waits for the byte after it. */
	m->hold = xmalloc(len + 1);
	return 0;
}

/* Can c go on a file name?  Then from followed by it is another path's
 * start. */
static int
name_byte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/*
 * Pass on p[0..n) as far as it can be told, replacing from where it is
 * found: the number of bytes told, the rest being the start of a from
 * that the bytes to come may finish (none, if final: the stream ends
 * there).
 */
static size_t
scan(struct pathmap *m, const char *p, size_t n, int final,
    pathmap_emit_fn *emit, void *arg)
{
	const char	*q;
	size_t		 i = 0, start = 0, len = m->fromlen;

	while (i < n) {
		/* from starts with a slash. */
		if ((q = memchr(p + i, '/', n - i)) == NULL) {
			i = n;
			break;
		}
		i = (size_t)(q - p);
		if (n - i <= len) {
			/* Cut short, or whole with what follows to come. */
			if (!final && memcmp(p + i, m->from, n - i) == 0)
				break;
			if (n - i < len || memcmp(p + i, m->from, len) != 0) {
				i++;
				continue;
			}
		} else if (memcmp(p + i, m->from, len) != 0 ||
		    (p[i + len] != '/' &&
		    name_byte((unsigned char)p[i + len]))) {
			i++;
			continue;
		}
		if (i > start)
			emit(arg, p + start, i - start);
		emit(arg, m->to, m->tolen);
		i += len;
		start = i;
	}
	if (i > start)
		emit(arg, p + start, i - start);
	return i;
}

void
pathmap_feed(struct pathmap *m, const char *p, size_t n,
    pathmap_emit_fn *emit, void *arg)
{
	size_t	k, c, room = m->fromlen + 1;

	/* What was held back goes first, with as much of p as it needs to
	 * be told: a full hold always tells its first byte. */
	while (m->held > 0 && n > 0) {
		k = room - m->held < n ? room - m->held : n;
		memcpy(m->hold + m->held, p, k);
		m->held += k;
		p += k;
		n -= k;
		c = scan(m, m->hold, m->held, 0, emit, arg);
		memmove(m->hold, m->hold + c, m->held - c);
		m->held -= c;
	}
	if (n == 0)
		return;
	c = scan(m, p, n, 0, emit, arg);
	memcpy(m->hold, p + c, n - c);
	m->held = n - c;
}

void
pathmap_flush(struct pathmap *m, pathmap_emit_fn *emit, void *arg)
{
	if (m->held == 0)
		return;
	(void)scan(m, m->hold, m->held, 1, emit, arg);
	m->held = 0;
}

size_t
pathmap_held(const struct pathmap *m)
{
	return m->held;
}

void
pathmap_free(struct pathmap *m)
{
	free(m->from);
	free(m->to);
	free(m->hold);
	memset(m, 0, sizeof(*m));
}
