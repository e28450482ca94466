/* NULL-terminated string vectors for argv and environments. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "strv.h"
#include "sum.h"
#include "xmalloc.h"

/* A block of a pooled vector's strings; blocks are chained, the newest
 * first. */
struct strv_block {
	struct strv_block	*next;
	size_t			 size;
	size_t			 used;
	char			 data[];
};

#define STRV_BLOCK	65536

void
strv_pool(struct strv *sv)
{
	if (sv->pool == NULL && sv->n == 0) {
		sv->pool = xmalloc(sizeof(*sv->pool) + STRV_BLOCK);
		sv->pool->next = NULL;
		sv->pool->size = STRV_BLOCK;
		sv->pool->used = 0;
	}
}

static void
append(struct strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xreallocarray(sv->v, sv->cap, sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

/* n bytes of s and a NUL, in the pool. */
static void
pool_pushn(struct strv *sv, const char *s, size_t n)
{
	struct strv_block	*b = sv->pool;
	size_t			 size;
	char			*p;

	if (b->size - b->used < n + 1) {
		size = n + 1 > STRV_BLOCK ? n + 1 : STRV_BLOCK;
		b = xmalloc(sizeof(*b) + size);
		b->size = size;
		b->used = 0;
		b->next = sv->pool;
		sv->pool = b;
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	p[n] = '\0';
	b->used += n + 1;
	append(sv, p);
}

void
strv_take(struct strv *sv, char *s)
{
	if (sv->pool != NULL) {
		pool_pushn(sv, s, strlen(s));
		free(s);
	} else
		append(sv, s);
}

void
strv_push(struct strv *sv, const char *s)
{
	if (sv->pool != NULL)
		pool_pushn(sv, s, strlen(s));
	else
		append(sv, xstrdup(s));
}

void
strv_pushn(struct strv *sv, const char *s, size_t n)
{
	if (sv->pool != NULL)
		pool_pushn(sv, s, strnlen(s, n));
	else
		append(sv, xstrndup(s, n));
}

void
strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strv_take(sv, s);
}

void
strv_pushv(struct strv *sv, char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		strv_push(sv, *v);
}

void
strv_pop(struct strv *sv)
{
	if (sv->n == 0)
		return;
	--sv->n;
	if (sv->pool == NULL)
		free(sv->v[sv->n]);
	sv->v[sv->n] = NULL;
}

void
strv_clear(struct strv *sv)
{
	while (sv->n > 0)
		strv_pop(sv);
}

void
strv_free(struct strv *sv)
{
	struct strv_block	*b;

	strv_clear(sv);
	free(sv->v);
	sv->v = NULL;
	sv->cap = 0;
	while ((b = sv->pool) != NULL) {
		sv->pool = b->next;
		free(b);
	}
}

char *
strv_join(const struct strv *sv, const char *sep)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < sv->n; i++) {
		if (i > 0)
			buf_adds(&b, sep);
		buf_adds(&b, sv->v[i]);
	}
	return buf_detach(&b);
}

void
strv_split_z(struct strv *sv, const char *p, size_t len)
{
	const char	*end = p + len, *nul;

	while (p < end) {
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL)
			nul = end;
		if (nul > p)
			strv_pushn(sv, p, (size_t)(nul - p));
		p = nul + 1;
	}
}

static int
needs_quotes(const char *s)
{
	if (*s == '\0')
		return 1;
	for (; *s != '\0'; s++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-", *s) ==
		    NULL)
			return 1;
	return 0;
}

char *
strv_join_shell(char *const *v)
{
	struct buf	 b = BUF_INIT;
	const char	*p;

	for (; v != NULL && *v != NULL; v++) {
		if (b.len > 0)
			buf_addc(&b, ' ');
		if (!needs_quotes(*v)) {
			buf_adds(&b, *v);
			continue;
		}
		buf_addc(&b, '\'');
		for (p = *v; *p != '\0'; p++) {
			if (*p == '\'')
				buf_adds(&b, "'\\''");
			else
				buf_addc(&b, *p);
		}
		buf_addc(&b, '\'');
	}
	return buf_detach(&b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
strv_sorted_has(const struct strv *v, const char *s)
{
	size_t	i = strv_sorted_pos(v, s);

	return i < v->n && strcmp(v->v[i], s) == 0;
}

size_t
strv_sorted_pos(const struct strv *v, const char *s)
{
	size_t	lo = 0, hi = v->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v->v[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
strv_sort(struct strv *v)
{
	if (v->n > 1)
		qsort(v->v, v->n, sizeof(*v->v), cmp_str);
}

void
strv_sort_uniq(struct strv *v)
{
	size_t	i, j;

	strv_sort(v);
	for (i = j = 1; i < v->n; i++) {
		if (strcmp(v->v[i], v->v[j - 1]) != 0)
			v->v[j++] = v->v[i];
		else if (v->pool == NULL)
			free(v->v[i]);
	}
	if (v->n > 0) {
		v->n = j;
		v->v[j] = NULL;
	}
}

void
strv_push_dirs(struct strv *v, struct buf *last, const char *path)
{
	const char	*slash = strrchr(path, '/'), *p;
	size_t		 n = slash != NULL ? (size_t)(slash - path) : 0;

	if (last != NULL) {
		if (last->data != NULL && last->len == n &&
		    memcmp(last->data, path, n) == 0)
			return;
		buf_reset(last);
		buf_add(last, path, n);
		buf_str(last);
	}
	if (*path == '\0')
		return;
	strv_push(v, "");
	for (p = path; (p = strchr(p, '/')) != NULL; p++)
		strv_pushf(v, "%.*s", (int)(p - path), path);
}

void
strv_sum(const struct strv *v, struct sum *s, const char *tag)
{
	size_t	i;

	sum_str(s, tag);
	for (i = 0; v != NULL && i < v->n; i++)
		sum_str(s, v->v[i]);
}
