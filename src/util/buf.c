/* Growable, always NUL-terminated byte buffers. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "xmalloc.h"

void
buf_grow(struct buf *b, size_t more)
{
	size_t	 need;

	need = b->len + more + 1;
	if (need < b->len)
		need = (size_t)-1;	/* xreallocarray will fail loudly */
	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap > ((size_t)-1) / 2 ? need : b->cap * 2;
	b->data = xreallocarray(b->data, b->cap, 1);
	b->data[b->len] = '\0';
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, int c)
{
	char	ch = (char)c;

	buf_add(b, &ch, 1);
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
buf_truncate(struct buf *b, size_t len)
{
	if (len < b->len)
		b->len = len;
	if (b->data != NULL)
		b->data[b->len] = '\0';
}

void
buf_reset(struct buf *b)
{
	buf_truncate(b, 0);
}

char *
buf_str(struct buf *b)
{
	if (b->data == NULL)
		buf_grow(b, 0), b->data[0] = '\0';
	return b->data;
}

char *
buf_detach(struct buf *b)
{
	char	*p;

	p = buf_str(b);
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_rtrim(struct buf *b)
{
	while (b->len > 0 && isspace((unsigned char)b->data[b->len - 1]))
		b->len--;
	if (b->data != NULL)
		b->data[b->len] = '\0';
}

ssize_t
buf_read(struct buf *b, int fd, size_t n)
{
	ssize_t	r;

	buf_grow(b, n);
	b->data[b->len] = '\0';	/* terminated even if nothing comes */
	r = read(fd, b->data + b->len, n);
	if (r > 0) {
		b->len += (size_t)r;
		b->data[b->len] = '\0';
	}
	return r;
}
