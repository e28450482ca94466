/* A JSON writer that loses no bytes, and a bounded recursive reader. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xmalloc.h"

void
json_init(struct json *j, struct buf *b)
{
	memset(j, 0, sizeof(*j));
	j->b = b;
}

/* Separate this value from the one before it in the same container. */
static void
sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0 && j->depth <= JSON_MAXDEPTH &&
	    j->count[j->depth - 1]++ > 0)
		buf_addc(j->b, ',');
}

void
json_open(struct json *j, int c)
{
	sep(j);
	buf_addc(j->b, c);
	if (j->depth < JSON_MAXDEPTH)
		j->count[j->depth] = 0;
	j->depth++;
}

void
json_close(struct json *j, int c)
{
	if (j->depth > 0)
		j->depth--;
	buf_addc(j->b, c);
}

void
json_key(struct json *j, const char *k)
{
	sep(j);
	json_quote(j->b, k, strlen(k));
	buf_addc(j->b, ':');
	j->after_key = 1;
}

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	uint32_t	cp;
	size_t		len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void
json_quote(struct buf *b, const char *s, size_t n)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, l;

	buf_addc(b, '"');
	while (i < n) {
		unsigned char	c = p[i];

		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n':
				buf_adds(b, "\\n");
				break;
			case '\t':
				buf_adds(b, "\\t");
				break;
			case '\r':
				buf_adds(b, "\\r");
				break;
			case '\b':
				buf_adds(b, "\\b");
				break;
			case '\f':
				buf_adds(b, "\\f");
				break;
			default:
				buf_adds(b, "\\u00");
				buf_addc(b, hex[c >> 4]);
				buf_addc(b, hex[c & 0xf]);
			}
			i++;
		} else if ((l = utf8_len(p + i, n - i)) > 0) {
			buf_add(b, p + i, l);
			i += l;
		} else {
			buf_adds(b, "\\udc");
			buf_addc(b, hex[c >> 4]);
			buf_addc(b, hex[c & 0xf]);
			i++;
		}
	}
	buf_addc(b, '"');
}

void
json_strn(struct json *j, const char *s, size_t n)
{
	sep(j);
	json_quote(j->b, s, n);
}

void
json_str(struct json *j, const char *s)
{
	if (s == NULL)
		json_null(j);
	else
		json_strn(j, s, strlen(s));
}

void
json_int(struct json *j, long long v)
{
	sep(j);
	buf_addf(j->b, "%lld", v);
}

void
json_bool(struct json *j, int v)
{
	sep(j);
	buf_adds(j->b, v ? "true" : "false");
}

void
json_null(struct json *j)
{
	sep(j);
	buf_adds(j->b, "null");
}

void
json_value(struct json *j, const struct jv *v)
{
	size_t	i;

	switch (v->type) {
	case JV_NULL:
		json_null(j);
		break;
	case JV_BOOL:
		json_bool(j, (int)v->num);
		break;
	case JV_NUM:
		json_int(j, v->num);
		break;
	case JV_STR:
		json_strn(j, v->str, v->len);
		break;
	case JV_ARR:
	case JV_OBJ:
		json_open(j, v->type == JV_ARR ? '[' : '{');
		for (i = 0; i < v->len; i++) {
			if (v->type == JV_OBJ)
				json_key(j, v->keys[i]);
			json_value(j, v->items[i]);
		}
		json_close(j, v->type == JV_ARR ? ']' : '}');
		break;
	}
}

/* The reader. */

struct reader {
	const char	*p;
	const char	*end;
	int		 depth;
};

static struct jv	*parse_value(struct reader *);

static void
skip_ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
	    *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
read_u4(struct reader *r, uint32_t *out)
{
	int	i, h;

	if (r->end - r->p < 4)
		return -1;
	*out = 0;
	for (i = 0; i < 4; i++) {
		if ((h = hexval((unsigned char)r->p[i])) == -1)
			return -1;
		*out = (*out << 4) | (uint32_t)h;
	}
	r->p += 4;
	return 0;
}

static void
put_utf8(struct buf *b, uint32_t cp)
{
	if (cp < 0x80) {
		buf_addc(b, (int)cp);
	} else if (cp < 0x800) {
		buf_addc(b, (int)(0xc0 | (cp >> 6)));
		buf_addc(b, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (int)(0xe0 | (cp >> 12)));
		buf_addc(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (int)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (int)(0xf0 | (cp >> 18)));
		buf_addc(b, (int)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(b, (int)(0x80 | (cp & 0x3f)));
	}
}

static int
parse_string(struct reader *r, struct buf *b)
{
	uint32_t	cp, lo;

	if (r->p >= r->end || *r->p != '"')
		return -1;
	r->p++;
	buf_str(b);
	while (r->p < r->end) {
		unsigned char	c = (unsigned char)*r->p++;

		if (c == '"')
			return 0;
		if (c < 0x20)
			return -1;
		if (c != '\\') {
			buf_addc(b, c);
			continue;
		}
		if (r->p >= r->end)
			return -1;
		switch (*r->p++) {
		case '"':
			buf_addc(b, '"');
			break;
		case '\\':
			buf_addc(b, '\\');
			break;
		case '/':
			buf_addc(b, '/');
			break;
		case 'b':
			buf_addc(b, '\b');
			break;
		case 'f':
			buf_addc(b, '\f');
			break;
		case 'n':
			buf_addc(b, '\n');
			break;
		case 'r':
			buf_addc(b, '\r');
			break;
		case 't':
			buf_addc(b, '\t');
			break;
		case 'u':
			if (read_u4(r, &cp) == -1)
				return -1;
			if (cp >= 0xdc80 && cp <= 0xdcff) {
				/* A raw byte, as json_quote wrote it. */
				buf_addc(b, (int)(cp & 0xff));
			} else if (cp >= 0xd800 && cp <= 0xdbff &&
			    r->end - r->p >= 6 && r->p[0] == '\\' &&
			    r->p[1] == 'u') {
				r->p += 2;
				if (read_u4(r, &lo) == -1)
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return -1;
				put_utf8(b, 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00));
			} else if (cp >= 0xd800 && cp <= 0xdfff) {
				put_utf8(b, 0xfffd);
			} else
				put_utf8(b, cp);
			break;
		default:
			return -1;
		}
	}
	return -1;
}

static struct jv *
new_value(enum jv_type t)
{
	struct jv	*v;

	v = xcalloc(1, sizeof(*v));
	v->type = t;
	return v;
}

static size_t
skip_digits(struct reader *r)
{
	size_t	n = 0;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++, n++;
	return n;
}

static struct jv *
parse_number(struct reader *r)
{
	const char		*start = r->p;
	struct jv		*v;
	unsigned long long	 n = 0, limit;
	int			 neg = 0, digits = 0, over = 0;

	if (r->p < r->end && *r->p == '-') {
		neg = 1;
		r->p++;
	}
	/* The magnitude LLONG_MIN has is one more than LLONG_MAX's. */
	limit = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
		unsigned	d = (unsigned)(*r->p - '0');

		if (n > (limit - d) / 10)
			over = 1;	/* out of range: clamp */
		else
			n = n * 10 + d;
		r->p++;
		digits++;
	}
	if (digits == 0 || (digits > 1 && start[neg] == '0'))
		return NULL;
	/* A fraction and an exponent are read, and dropped. */
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (skip_digits(r) == 0)
			return NULL;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (skip_digits(r) == 0)
			return NULL;
	}
	v = new_value(JV_NUM);
	if (over)
		n = limit;
	if (neg)
		v->num = n == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN :
		    -(long long)n;
	else
		v->num = (long long)n;
	return v;
}

static int
literal(struct reader *r, const char *word)
{
	size_t	len = strlen(word);

	if ((size_t)(r->end - r->p) < len || memcmp(r->p, word, len) != 0)
		return 0;
	r->p += len;
	return 1;
}

static void
append_item(struct jv *v, char *key, struct jv *item)
{
	v->items = xreallocarray(v->items, v->len + 1, sizeof(*v->items));
	if (v->type == JV_OBJ)
		v->keys = xreallocarray(v->keys, v->len + 1,
		    sizeof(*v->keys));
	v->items[v->len] = item;
	if (v->type == JV_OBJ)
		v->keys[v->len] = key;
	v->len++;
}

static struct jv *
parse_container(struct reader *r, int close)
{
	struct jv	*v, *item;
	struct buf	 key = BUF_INIT;

	if (++r->depth > JSON_MAXDEPTH)
		return NULL;
	v = new_value(close == '}' ? JV_OBJ : JV_ARR);
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		r->depth--;
		return v;
	}
	for (;;) {
		skip_ws(r);
		if (close == '}') {
			buf_reset(&key);
			if (parse_string(r, &key) == -1)
				goto fail;
			skip_ws(r);
			if (r->p >= r->end || *r->p++ != ':')
				goto fail;
		}
		if ((item = parse_value(r)) == NULL)
			goto fail;
		append_item(v, close == '}' ? buf_detach(&key) : NULL, item);
		skip_ws(r);
		if (r->p >= r->end)
			goto fail;
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ == close)
			break;
		goto fail;
	}
	buf_free(&key);
	r->depth--;
	return v;
fail:
	buf_free(&key);
	json_free(v);
	return NULL;
}

static struct jv *
parse_value(struct reader *r)
{
	struct jv	*v;
	struct buf	 s = BUF_INIT;

	skip_ws(r);
	if (r->p >= r->end)
		return NULL;
	switch (*r->p) {
	case '{':
		return parse_container(r, '}');
	case '[':
		return parse_container(r, ']');
	case '"':
		if (parse_string(r, &s) == -1) {
			buf_free(&s);
			return NULL;
		}
		v = new_value(JV_STR);
		v->len = s.len;
		v->str = buf_detach(&s);
		return v;
	case 't':
		if (!literal(r, "true"))
			return NULL;
		v = new_value(JV_BOOL);
		v->num = 1;
		return v;
	case 'f':
		if (!literal(r, "false"))
			return NULL;
		return new_value(JV_BOOL);
	case 'n':
		if (!literal(r, "null"))
			return NULL;
		return new_value(JV_NULL);
	default:
		return parse_number(r);
	}
}

struct jv *
json_parse(const char *text, size_t len)
{
	struct reader	 r;
	struct jv	*v;

	r.p = text;
	r.end = text + len;
	r.depth = 0;
	if ((v = parse_value(&r)) == NULL)
		return NULL;
	skip_ws(&r);
	if (r.p != r.end) {
		json_free(v);
		return NULL;
	}
	return v;
}

void
json_free(struct jv *v)
{
	size_t	i;

	if (v == NULL)
		return;
	if (v->type == JV_ARR || v->type == JV_OBJ) {
		for (i = 0; i < v->len; i++) {
			json_free(v->items[i]);
			if (v->keys != NULL)
				free(v->keys[i]);
		}
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

struct jv *
json_get(const struct jv *v, const char *key)
{
	size_t	i;

	if (v == NULL || v->type != JV_OBJ)
		return NULL;
	/* The last of duplicate keys wins, as in most readers. */
	for (i = v->len; i-- > 0;)
		if (strcmp(v->keys[i], key) == 0)
			return v->items[i];
	return NULL;
}

const char *
json_as_str(const struct jv *v)
{
	return v != NULL && v->type == JV_STR ? v->str : NULL;
}

long long
json_as_num(const struct jv *v, long long def)
{
	return v != NULL && v->type == JV_NUM ? v->num : def;
}

int
json_as_bool(const struct jv *v, int def)
{
	return v != NULL && v->type == JV_BOOL ? (int)v->num : def;
}

struct jv *
json_dup(const struct jv *v)
{
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct jv	*copy;

	/* Written out and read back: lossless, as json_value() says. */
	json_init(&j, &b);
	json_value(&j, v);
	copy = json_parse(b.data, b.len);
	buf_free(&b);
	return copy;
}
