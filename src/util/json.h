/*
 * JSON: a writer for one value at a time, and a small reader.
 *
 * Writing:
 *	struct buf b = BUF_INIT;
 *	struct json j;
 *	json_init(&j, &b);
 *	json_open(&j, '{');
 *	json_key(&j, "path"); json_str(&j, name);
 *	json_key(&j, "n");    json_int(&j, 3);
 *	json_close(&j, '}');		b.data now holds {"path":"...","n":3}
 *
 * Strings are byte strings.  Valid UTF-8 is written as it is; control
 * characters, quotes and backslashes are escaped; every byte that is not
 * part of valid UTF-8 is written as the escape \udcXX, where XX is the
 * byte (0x80-0xff) -- a lone low surrogate, which no valid UTF-8 text can
 * produce, so json_parse() gives back the exact original bytes.
 *
 * Reading:
 *	struct jv *v = json_parse(text, len);	NULL: not one JSON value
 *	const char *s = json_as_str(json_get(v, "path"));
 *					NULL if absent or not a string
 *	json_free(v);
 * The tree owns its strings; string values may hold NUL bytes (jv->len).
 */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>

#include "buf.h"

#define JSON_MAXDEPTH	32

struct json {
	struct buf	*b;
	int		 depth;
	int		 count[JSON_MAXDEPTH];
	int		 after_key;
};

void	json_init(struct json *, struct buf *);
void	json_open(struct json *, int);
void	json_close(struct json *, int);
void	json_key(struct json *, const char *);
void	json_str(struct json *, const char *);
void	json_strn(struct json *, const char *, size_t);
void	json_int(struct json *, long long);
void	json_bool(struct json *, int);
void	json_null(struct json *);
/* Write a parsed value back out (losslessly, as json_quote does). */
struct jv;
void	json_value(struct json *, const struct jv *);
/* Append s to b as a JSON string literal, quotes included. */
void	json_quote(struct buf *, const char *, size_t);

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type	  type;
	long long	  num;		/* JV_NUM (integral part), JV_BOOL */
	char		 *str;		/* JV_STR, NUL-terminated */
	size_t		  len;		/* JV_STR length; JV_ARR/OBJ count */
	char		**keys;		/* JV_OBJ */
	struct jv	**items;	/* JV_ARR, JV_OBJ */
};

struct jv	*json_parse(const char *, size_t);
void		 json_free(struct jv *);
/* A copy of v that owns all of its own. */
struct jv	*json_dup(const struct jv *);
struct jv	*json_get(const struct jv *, const char *);
const char	*json_as_str(const struct jv *);
/* The number, or def when v is not a number. */
long long	 json_as_num(const struct jv *, long long);
int		 json_as_bool(const struct jv *, int);

#endif /* JSON_H */
