/*
 * json.c: the writer loses no bytes (invalid UTF-8 goes out as \udcXX and
 * comes back exactly), and the reader takes exactly one bounded value.
 */
#include "config.h"

#include "unit.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"

/* json_quote() of n bytes, as a string the caller frees. */
static char *
quote(const char *s, size_t n)
{
	struct buf	b = BUF_INIT;

	json_quote(&b, s, n);
	return buf_detach(&b);
}

/* Parse exactly len bytes held in a buffer of their own, so that
 * AddressSanitizer sees any read past the end of the input. */
static struct jv *
parse_exact(const char *text, size_t len)
{
	struct jv	*v;
	char		*copy;

	copy = malloc(len > 0 ? len : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len);
	v = json_parse(copy, len);
	free(copy);
	return v;
}

static struct jv *
parse(const char *text)
{
	return parse_exact(text, strlen(text));
}

static int
parses(const char *text)
{
	struct jv	*v;

	if ((v = parse(text)) == NULL)
		return 0;
	json_free(v);
	return 1;
}

/* Write v back out with json_value(). */
static char *
rewrite(const struct jv *v)
{
	struct buf	b = BUF_INIT;
	struct json	j;

	json_init(&j, &b);
	json_value(&j, v);
	return buf_detach(&b);
}

/*
 * Well-formed UTF-8 by the table of the Unicode standard (3.9, table
 * 3-7), written independently of json.c's decoder.
 */
static int
well_formed(const unsigned char *p, size_t n)
{
	size_t	i = 0, len, k;
	int	lo, hi;

	while (i < n) {
		unsigned char	c = p[i];

		lo = 0x80;
		hi = 0xbf;
		if (c <= 0x7f)
			len = 1;
		else if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c == 0xe0) {
			len = 3;
			lo = 0xa0;
		} else if (c == 0xed) {
			len = 3;
			hi = 0x9f;
		} else if (c >= 0xe1 && c <= 0xef)
			len = 3;
		else if (c == 0xf0) {
			len = 4;
			lo = 0x90;
		} else if (c == 0xf4) {
			len = 4;
			hi = 0x8f;
		} else if (c >= 0xf1 && c <= 0xf3)
			len = 4;
		else
			return 0;
		if (n - i < len)
			return 0;
		for (k = 1; k < len; k++) {
			if (p[i + k] < (k == 1 ? lo : 0x80) ||
			    p[i + k] > (k == 1 ? hi : 0xbf))
				return 0;
		}
		i += len;
	}
	return 1;
}

/* A small deterministic generator: failures must reproduce. */
static uint64_t	rng_state;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void
put_cp(struct buf *b, uint32_t cp)
{
	if (cp < 0x80)
		buf_addc(b, (int)cp);
	else if (cp < 0x800) {
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

/* Writer. */

START_TEST(t_quote_plain)
{
	char	*s;

	s = quote("hello, world", 12);
	ck_assert_str_eq(s, "\"hello, world\"");
	free(s);
	s = quote("", 0);
	ck_assert_str_eq(s, "\"\"");
	free(s);
	/* '/' needs no escape, and gets none. */
	s = quote("a/b", 3);
	ck_assert_str_eq(s, "\"a/b\"");
	free(s);
}
END_TEST

START_TEST(t_quote_escapes)
{
	char	*s;

	s = quote("say \"hi\"", 8);
	ck_assert_str_eq(s, "\"say \\\"hi\\\"\"");
	free(s);
	s = quote("C:\\dir\\", 7);
	ck_assert_str_eq(s, "\"C:\\\\dir\\\\\"");
	free(s);
	s = quote("\n\t\r\b\f", 5);
	ck_assert_str_eq(s, "\"\\n\\t\\r\\b\\f\"");
	free(s);
	/* Other control characters, NUL and DEL as \u00XX. */
	s = quote("\x01\x1f\x7f", 3);
	ck_assert_str_eq(s, "\"\\u0001\\u001f\\u007f\"");
	free(s);
	s = quote("a\0b", 3);
	ck_assert_str_eq(s, "\"a\\u0000b\"");
	free(s);
	s = quote("\x1b[31m", 5);
	ck_assert_str_eq(s, "\"\\u001b[31m\"");
	free(s);
}
END_TEST

START_TEST(t_quote_valid_utf8)
{
	static const char *const ok[] = {
		"\xc2\x80",			/* U+0080, the first 2-byte */
		"\xc3\xa9t\xc3\xa9",		/* été */
		"\xdf\xbf",			/* U+07FF */
		"\xe0\xa0\x80",			/* U+0800, the first 3-byte */
		"\xe2\x82\xac",			/* the euro sign */
		"\xed\x9f\xbf",			/* U+D7FF, below surrogates */
		"\xee\x80\x80",			/* U+E000, above them */
		"\xef\xbf\xbd",			/* U+FFFD */
		"\xef\xbf\xbf",			/* U+FFFF */
		"\xf0\x90\x80\x80",		/* U+10000, the first 4-byte */
		"\xf0\x9d\x84\x9e",		/* the G clef */
		"\xf4\x8f\xbf\xbf",		/* U+10FFFF, the last */
		"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	};
	size_t	i;
	char	*s, *want;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		s = quote(ok[i], strlen(ok[i]));
		ck_assert_int_ne(asprintf(&want, "\"%s\"", ok[i]), -1);
		ck_assert_msg(strcmp(s, want) == 0, "case %zu: %s", i, s);
		free(want);
		free(s);
	}
}
END_TEST

static const struct {
	const char	*in;
	const char	*out;
} invalid[] = {
	{ "\x80", "\\udc80" },				/* lone continuation */
	{ "a\xbf" "b", "a\\udcbfb" },
	{ "\x80\x80\x80", "\\udc80\\udc80\\udc80" },
	{ "\xc0\xaf", "\\udcc0\\udcaf" },		/* overlong '/' */
	{ "\xc1\xbf", "\\udcc1\\udcbf" },		/* overlong DEL */
	{ "\xe0\x80\xaf", "\\udce0\\udc80\\udcaf" },	/* overlong, 3 */
	{ "\xe0\x9f\xbf", "\\udce0\\udc9f\\udcbf" },	/* overlong U+07FF */
	{ "\xf0\x80\x80\xaf", "\\udcf0\\udc80\\udc80\\udcaf" },
	{ "\xf0\x8f\xbf\xbf", "\\udcf0\\udc8f\\udcbf\\udcbf" },
	{ "\xed\xa0\x80", "\\udced\\udca0\\udc80" },	/* U+D800 */
	{ "\xed\xbf\xbf", "\\udced\\udcbf\\udcbf" },	/* U+DFFF */
	{ "\xed\xa0\xbd\xed\xb2\xa9",			/* CESU-8 pair */
	  "\\udced\\udca0\\udcbd\\udced\\udcb2\\udca9" },
	{ "\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80" }, /* >10FFFF */
	{ "\xf5\x80\x80\x80", "\\udcf5\\udc80\\udc80\\udc80" },
	{ "\xf7\xbf\xbf\xbf", "\\udcf7\\udcbf\\udcbf\\udcbf" },
	{ "\xf8\x88\x80\x80\x80",
	  "\\udcf8\\udc88\\udc80\\udc80\\udc80" },	/* old 5-byte form */
	{ "\xfe\xff", "\\udcfe\\udcff" },
	{ "\xc3", "\\udcc3" },				/* truncated at end */
	{ "\xe2\x82", "\\udce2\\udc82" },
	{ "\xf0\x9d\x84", "\\udcf0\\udc9d\\udc84" },
	{ "\xe2\x82x", "\\udce2\\udc82x" },		/* cut by ASCII */
	{ "\xc3(", "\\udcc3(" },
	{ "\xe2\x82\xc3\xa9", "\\udce2\\udc82\xc3\xa9" }, /* then valid */
	{ "\xc3\xc3\xa9", "\\udcc3\xc3\xa9" },
	{ "\xc3\"", "\\udcc3\\\"" },			/* cut by a quote */
	{ "\xc3\n", "\\udcc3\\n" },
};

START_TEST(t_quote_invalid_utf8)
{
	struct jv	*v;
	const char	*in = invalid[_i].in;
	char		*s, *want;

	s = quote(in, strlen(in));
	ck_assert_int_ne(asprintf(&want, "\"%s\"", invalid[_i].out), -1);
	ck_assert_str_eq(s, want);
	/* And the reader gives back the very bytes. */
	v = parse(s);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, JV_STR);
	ck_assert_uint_eq(v->len, strlen(in));
	ck_assert_mem_eq(v->str, in, v->len);
	json_free(v);
	free(want);
	free(s);
}
END_TEST

/* Strings of bytes that are mostly trouble: every one must come back. */
START_TEST(t_roundtrip_random_bytes)
{
	static const unsigned char pool[] = {
		0x00, 0x01, 0x0a, 0x1f, 0x20, '"', '\\', '/', 'a', 0x7f,
		0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
		0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4,
		0xf5, 0xf8, 0xfe, 0xff
	};
	unsigned char	 in[48];
	struct buf	 out = BUF_INIT;
	struct jv	*v;
	size_t		 len, k;
	int		 iter;

	rng_state = 0x9e3779b97f4a7c15ULL;
	for (iter = 0; iter < 50000; iter++) {
		len = rng() % sizeof(in);
		for (k = 0; k < len; k++)
			in[k] = (rng() & 1) ? pool[rng() % sizeof(pool)] :
			    (unsigned char)rng();
		buf_reset(&out);
		json_quote(&out, (const char *)in, len);
		/* What goes out is text any JSON reader takes. */
		ck_assert_msg(well_formed((unsigned char *)out.data,
		    out.len), "iteration %d: output not UTF-8", iter);
		for (k = 0; k < out.len; k++)
			ck_assert_msg((unsigned char)out.data[k] >= 0x20 &&
			    out.data[k] != 0x7f, "iteration %d: raw control "
			    "byte in output", iter);
		v = parse_exact(out.data, out.len);
		ck_assert_msg(v != NULL, "iteration %d: %s", iter, out.data);
		ck_assert_int_eq(v->type, JV_STR);
		ck_assert_msg(v->len == len && memcmp(v->str, in, len) == 0,
		    "iteration %d: bytes changed: %s", iter, out.data);
		ck_assert_int_eq(v->str[len], '\0');
		json_free(v);
	}
	buf_free(&out);
}
END_TEST

/* Text that is valid UTF-8 is written as it is, never escaped. */
START_TEST(t_roundtrip_random_text)
{
	struct buf	 in = BUF_INIT, out = BUF_INIT;
	struct jv	*v;
	uint32_t	 cp;
	int		 iter, k, n;

	rng_state = 0x0123456789abcdefULL;
	for (iter = 0; iter < 20000; iter++) {
		buf_reset(&in);
		n = (int)(rng() % 12);
		for (k = 0; k < n; k++) {
			switch (rng() % 4) {
			case 0:
				cp = 0x20 + rng() % 0x5f;
				break;
			case 1:
				cp = 0x80 + rng() % 0x780;
				break;
			case 2:
				cp = 0x800 + rng() % 0xf800;
				break;
			default:
				cp = 0x10000 + rng() % 0x100000;
				break;
			}
			if ((cp >= 0xd800 && cp <= 0xdfff) || cp == '"' ||
			    cp == '\\')
				cp = 'x';
			put_cp(&in, cp);
		}
		buf_reset(&out);
		json_quote(&out, in.data, in.len);
		ck_assert_uint_eq(out.len, in.len + 2);
		ck_assert_mem_eq(out.data + 1, in.data, in.len);
		v = parse_exact(out.data, out.len);
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(v->len, in.len);
		ck_assert_mem_eq(v->str, in.data, in.len);
		json_free(v);
	}
	buf_free(&in);
	buf_free(&out);
}
END_TEST

START_TEST(t_writer_commas)
{
	struct buf	b = BUF_INIT;
	struct json	j;

	json_init(&j, &b);
	json_open(&j, '{');
	json_key(&j, "a");
	json_int(&j, 1);
	json_key(&j, "b");
	json_open(&j, '[');
	json_int(&j, 1);
	json_str(&j, "two");
	json_open(&j, '{');
	json_key(&j, "c");
	json_null(&j);
	json_key(&j, "d");
	json_open(&j, '[');
	json_close(&j, ']');
	json_close(&j, '}');
	json_open(&j, '[');
	json_open(&j, '[');
	json_close(&j, ']');
	json_bool(&j, 0);
	json_close(&j, ']');
	json_close(&j, ']');
	json_key(&j, "e");
	json_open(&j, '{');
	json_close(&j, '}');
	json_key(&j, "f");
	json_bool(&j, 1);
	json_key(&j, "g");
	json_str(&j, NULL);
	json_close(&j, '}');
	ck_assert_str_eq(b.data, "{\"a\":1,\"b\":[1,\"two\",{\"c\":null,"
	    "\"d\":[]},[[],false]],\"e\":{},\"f\":true,\"g\":null}");
	ck_assert_int_eq(j.depth, 0);
	ck_assert(parses(b.data));
	buf_free(&b);
}
END_TEST

/* One writer, one value: a second top-level value needs json_init. */
START_TEST(t_writer_reinit)
{
	struct buf	b = BUF_INIT;
	struct json	j;

	json_init(&j, &b);
	json_open(&j, '[');
	json_close(&j, ']');
	buf_addc(&b, '\n');
	json_init(&j, &b);
	json_open(&j, '[');
	json_int(&j, 7);
	json_close(&j, ']');
	ck_assert_str_eq(b.data, "[]\n[7]");
	buf_free(&b);
}
END_TEST

START_TEST(t_writer_keys_escaped)
{
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct jv	*v;

	json_init(&j, &b);
	json_open(&j, '{');
	json_key(&j, "we\"ird\n\xff");
	json_int(&j, -5);
	json_close(&j, '}');
	ck_assert_str_eq(b.data, "{\"we\\\"ird\\n\\udcff\":-5}");
	v = parse(b.data);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(json_as_num(json_get(v, "we\"ird\n\xff"), 0), -5);
	json_free(v);
	buf_free(&b);
}
END_TEST

START_TEST(t_writer_int_limits)
{
	struct buf	b = BUF_INIT;
	struct json	j;

	json_init(&j, &b);
	json_open(&j, '[');
	json_int(&j, 0);
	json_int(&j, -1);
	json_int(&j, LLONG_MAX);
	json_int(&j, LLONG_MIN);
	json_close(&j, ']');
	ck_assert_str_eq(b.data,
	    "[0,-1,9223372036854775807,-9223372036854775808]");
	buf_free(&b);
}
END_TEST

/* Reader. */

START_TEST(t_parse_numbers)
{
	static const struct {
		const char	*text;
		long long	 num;
	} ok[] = {
		{ "0", 0 }, { "-0", 0 }, { "7", 7 }, { "42", 42 },
		{ "-17", -17 }, { "1.5", 1 }, { "-2.75", -2 },
		{ "0.001", 0 }, { " 12 ", 12 }, { "\n\t\r 3\n", 3 },
		{ "1234567890123", 1234567890123LL },
		{ "-1234567890123", -1234567890123LL },
		{ "1000000000000000000", 1000000000000000000LL },
	};
	static const char *const bad[] = {
		"", " ", "-", "+1", "01", "-01", "00", "1.", ".5", "-.5",
		"1e", "1e+", "1E-", "--1", "0x10", "Infinity", "-Infinity",
		"NaN", "1_000", "\xd9\xa1",
	};
	struct jv	*v;
	size_t		 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = parse(ok[i].text);
		ck_assert_msg(v != NULL, "'%s' rejected", ok[i].text);
		ck_assert_int_eq(v->type, JV_NUM);
		ck_assert_msg(v->num == ok[i].num, "'%s' read as %lld",
		    ok[i].text, v->num);
		json_free(v);
	}
	/* Exponents are valid JSON, even if forge never writes them. */
	ck_assert(parses("1e3"));
	ck_assert(parses("2.5E-3"));
	ck_assert(parses("-1e+10"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!parses(bad[i]), "'%s' accepted", bad[i]);
}
END_TEST

/* Whatever json_int() writes, the reader must give back. */
START_TEST(t_parse_int_limits)
{
	static const long long	 n[] = {
		LLONG_MAX, LLONG_MIN, LLONG_MAX - 1, LLONG_MIN + 1,
		9223372036854775790LL, 999999999999999999LL,
		-999999999999999999LL,
	};
	struct buf		 b = BUF_INIT;
	struct json		 j;
	struct jv		*v;
	size_t			 i;

	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		buf_reset(&b);
		json_init(&j, &b);
		json_int(&j, n[i]);
		v = parse(b.data);
		ck_assert_ptr_nonnull(v);
		ck_assert_msg(v->num == n[i], "%s read back as %lld", b.data,
		    v->num);
		json_free(v);
	}
	buf_free(&b);
}
END_TEST

START_TEST(t_parse_literals)
{
	struct jv	*v;

	v = parse("true");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, JV_BOOL);
	ck_assert_int_eq(json_as_bool(v, -1), 1);
	json_free(v);
	v = parse(" false ");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, JV_BOOL);
	ck_assert_int_eq(json_as_bool(v, -1), 0);
	json_free(v);
	v = parse("null");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, JV_NULL);
	json_free(v);
	ck_assert(!parses("tru"));
	ck_assert(!parses("nul"));
	ck_assert(!parses("True"));
	ck_assert(!parses("NULL"));
	ck_assert(!parses("truex"));
	ck_assert(!parses("falsey"));
	ck_assert(!parses("[true false]"));
	ck_assert(!parses("undefined"));
}
END_TEST

START_TEST(t_parse_strings)
{
	static const struct {
		const char	*text;
		const char	*bytes;
		size_t		 len;
	} ok[] = {
		{ "\"\"", "", 0 },
		{ "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8 },
		{ "\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6 },
		{ "\"\\u0000x\"", "\0x", 2 },
		{ "\"\\ud834\\udd1e\"", "\xf0\x9d\x84\x9e", 4 },
		{ "\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", 4 },
		/* forge's raw bytes */
		{ "\"\\udc80\\udcff\\udcC3\"", "\x80\xff\xc3", 3 },
		/* lone surrogates that are not forge's: U+FFFD */
		{ "\"\\ud834\"", "\xef\xbf\xbd", 3 },
		{ "\"\\ud834x\"", "\xef\xbf\xbdx", 4 },
		{ "\"\\udc00\"", "\xef\xbf\xbd", 3 },
		{ "\"\\udfff\"", "\xef\xbf\xbd", 3 },
		/* raw UTF-8 and raw bytes are taken as they are */
		{ "\"\xc3\xa9\x7f\"", "\xc3\xa9\x7f", 3 },
	};
	static const char *const bad[] = {
		"\"", "\"abc", "\"abc\\\"", "\"\\x41\"", "\"\\u12\"",
		"\"\\u12G4\"", "\"\\U0041\"", "\"a\nb\"", "\"a\tb\"",
		"\"\x01\"", "'single'", "\"\\ud834\\u0041\"",
		"\"\\ud834\\ud834\"", "\"\\",
	};
	struct jv	*v;
	size_t		 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = parse(ok[i].text);
		ck_assert_msg(v != NULL, "%s rejected", ok[i].text);
		ck_assert_int_eq(v->type, JV_STR);
		ck_assert_msg(v->len == ok[i].len &&
		    memcmp(v->str, ok[i].bytes, v->len) == 0,
		    "%s: wrong bytes", ok[i].text);
		ck_assert_int_eq(v->str[v->len], '\0');
		json_free(v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!parses(bad[i]), "%s accepted", bad[i]);
}
END_TEST

static char *
nested(int depth, const char *open, const char *mid, const char *close)
{
	struct buf	b = BUF_INIT;
	int		i;

	for (i = 0; i < depth; i++)
		buf_adds(&b, open);
	buf_adds(&b, mid);
	for (i = 0; i < depth; i++)
		buf_adds(&b, close);
	return buf_detach(&b);
}

START_TEST(t_parse_depth)
{
	char	*s;

	s = nested(JSON_MAXDEPTH, "[", "1", "]");
	ck_assert(parses(s));
	free(s);
	s = nested(JSON_MAXDEPTH + 1, "[", "1", "]");
	ck_assert(!parses(s));
	free(s);
	s = nested(JSON_MAXDEPTH, "{\"k\":", "{}", "}");
	ck_assert(!parses(s));
	free(s);
	s = nested(JSON_MAXDEPTH - 1, "{\"k\":", "{}", "}");
	ck_assert(parses(s));
	free(s);
	/* Arrays and objects count alike: 2 * 15 + 2 levels. */
	s = nested(JSON_MAXDEPTH / 2 - 1, "[{\"k\":", "[[]]", "}]");
	ck_assert(parses(s));
	free(s);
	s = nested(JSON_MAXDEPTH / 2 - 1, "[{\"k\":", "[[[]]]", "}]");
	ck_assert(!parses(s));
	free(s);
	/* Deep enough to overflow a careless recursion's stack. */
	s = nested(200000, "[", "", "]");
	ck_assert(!parses(s));
	free(s);
	/* Depth is per path, not per document: siblings do not add up. */
	s = nested(JSON_MAXDEPTH - 1, "[", "[],[],[]", "]");
	ck_assert(parses(s));
	free(s);
}
END_TEST

START_TEST(t_parse_garbage)
{
	static const char *const bad[] = {
		"{} x", "1 2", "[1]]", "{}{}", "[1] [2]", "\"a\"\"b\"",
		"{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "[1,]", "[,1]",
		"{,}", "[", "]", "{", "}", "{\"a\":1 \"b\":2}", "[1 2]",
		"{\"a\" 1}", "{1:2}", "{\"a\"::1}", "[1,,2]",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!parses(bad[i]), "'%s' accepted", bad[i]);
	/* A NUL after the value is garbage too, not an end. */
	ck_assert_ptr_null(parse_exact("{}\0", 3));
	ck_assert(parses(" \t\r\n{ \"a\" : [ 1 , 2 ] }\n"));
	ck_assert(parses("[]"));
	ck_assert(parses("{}"));
}
END_TEST

/* A line cut short by a crash is never read as a value. */
START_TEST(t_parse_torn)
{
	static const char doc[] = "{\"event\":\"verify\",\"n\":[1,-2,3.5],"
	    "\"s\":\"a\\\"\\u00e9\\udc80\",\"o\":{\"t\":true,\"f\":false,"
	    "\"z\":null}}";
	struct jv	*v;
	size_t		 k;

	for (k = 0; k < sizeof(doc) - 1; k++) {
		v = parse_exact(doc, k);
		ck_assert_msg(v == NULL, "the first %zu bytes parsed", k);
	}
	v = parse_exact(doc, sizeof(doc) - 1);
	ck_assert_ptr_nonnull(v);
	json_free(v);
}
END_TEST

START_TEST(t_get_last_duplicate)
{
	struct jv	*v;

	v = parse("{\"a\":1,\"b\":\"x\",\"a\":2,\"b\":null}");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->type, JV_OBJ);
	ck_assert_uint_eq(v->len, 4);
	ck_assert_int_eq(json_as_num(json_get(v, "a"), 0), 2);
	ck_assert_int_eq(json_get(v, "b")->type, JV_NULL);
	ck_assert_ptr_null(json_as_str(json_get(v, "b")));
	ck_assert_ptr_null(json_get(v, "c"));
	ck_assert_ptr_null(json_get(v, ""));
	json_free(v);
}
END_TEST

/* A copy owns its own: it outlives the original, bytes and all. */
START_TEST(t_copy)
{
	static const char text[] = "{\"s\":\"a\\u0000b\\udcff\",\"n\":-7,"
	    "\"a\":[true,null,{\"k\":[]}]}";
	struct jv	*v, *c;

	v = json_parse(text, sizeof(text) - 1);
	ck_assert_ptr_nonnull(v);
	c = json_dup(v);
	json_free(v);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(json_get(c, "s")->len, 4);
	ck_assert_int_eq(memcmp(json_as_str(json_get(c, "s")), "a\0b\377", 4),
	    0);
	ck_assert_int_eq(json_as_num(json_get(c, "n"), 0), -7);
	ck_assert_int_eq(json_get(c, "a")->len, 3);
	ck_assert_int_eq(json_get(c, "a")->items[2]->type, JV_OBJ);
	json_free(c);
}
END_TEST

START_TEST(t_accessors)
{
	struct jv	*v;

	v = parse("{\"s\":\"str\",\"n\":5,\"t\":true,\"a\":[1],\"o\":{}}");
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_as_str(json_get(v, "s")), "str");
	ck_assert_ptr_null(json_as_str(json_get(v, "n")));
	ck_assert_int_eq(json_as_num(json_get(v, "n"), -1), 5);
	ck_assert_int_eq(json_as_num(json_get(v, "s"), -1), -1);
	ck_assert_int_eq(json_as_num(json_get(v, "t"), -1), -1);
	ck_assert_int_eq(json_as_bool(json_get(v, "t"), -1), 1);
	ck_assert_int_eq(json_as_bool(json_get(v, "n"), -1), -1);
	ck_assert_int_eq(json_as_bool(NULL, 7), 7);
	ck_assert_int_eq(json_as_num(NULL, 7), 7);
	ck_assert_ptr_null(json_as_str(NULL));
	/* Only objects have keys. */
	ck_assert_ptr_null(json_get(json_get(v, "a"), "0"));
	ck_assert_ptr_null(json_get(json_get(v, "s"), "s"));
	ck_assert_ptr_null(json_get(NULL, "s"));
	ck_assert_int_eq(json_get(v, "a")->type, JV_ARR);
	ck_assert_uint_eq(json_get(v, "a")->len, 1);
	ck_assert_int_eq(json_get(v, "a")->items[0]->num, 1);
	ck_assert_uint_eq(json_get(v, "o")->len, 0);
	json_free(v);
	json_free(NULL);
}
END_TEST

START_TEST(t_value_roundtrip)
{
	static const char in[] = " { \"s\" : \"a\\u00e9\\udcff\\n\\u0001\","
	    " \"n\" : -42 , \"t\":true,\"f\":false,\"z\":null,"
	    "\"a\":[1,[],{},\"\"],\"o\":{\"k\":\"v\",\"\\\"q\":[[0]]},"
	    "\"e\":\"\\u20ac\\ud834\\udd1e\"}";
	static const char out[] = "{\"s\":\"a\xc3\xa9\\udcff\\n\\u0001\","
	    "\"n\":-42,\"t\":true,\"f\":false,\"z\":null,"
	    "\"a\":[1,[],{},\"\"],\"o\":{\"k\":\"v\",\"\\\"q\":[[0]]},"
	    "\"e\":\"\xe2\x82\xac\xf0\x9d\x84\x9e\"}";
	struct jv	*v, *w;
	char		*s, *t;

	v = parse(in);
	ck_assert_ptr_nonnull(v);
	s = rewrite(v);
	ck_assert_str_eq(s, out);
	/* Written again from its own output: a fixed point. */
	w = parse(s);
	ck_assert_ptr_nonnull(w);
	t = rewrite(w);
	ck_assert_str_eq(t, s);
	ck_assert_uint_eq(json_get(w, "s")->len, 6);
	ck_assert_mem_eq(json_get(w, "s")->str, "a\xc3\xa9\xff\n\x01", 6);
	json_free(v);
	json_free(w);
	free(s);
	free(t);
}
END_TEST

/* json_value() inside a container a writer is already building. */
START_TEST(t_value_nested_in_writer)
{
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct jv	*v;

	v = parse("[1,{\"x\":[]}]");
	ck_assert_ptr_nonnull(v);
	json_init(&j, &b);
	json_open(&j, '{');
	json_key(&j, "first");
	json_value(&j, v);
	json_key(&j, "second");
	json_value(&j, v->items[1]);
	json_close(&j, '}');
	ck_assert_str_eq(b.data,
	    "{\"first\":[1,{\"x\":[]}],\"second\":{\"x\":[]}}");
	json_free(v);
	buf_free(&b);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("json");
	tc = tcase_create("writer");
	tcase_add_test(tc, t_quote_plain);
	tcase_add_test(tc, t_quote_escapes);
	tcase_add_test(tc, t_quote_valid_utf8);
	tcase_add_loop_test(tc, t_quote_invalid_utf8, 0,
	    (int)(sizeof(invalid) / sizeof(invalid[0])));
	tcase_add_test(tc, t_writer_commas);
	tcase_add_test(tc, t_writer_reinit);
	tcase_add_test(tc, t_writer_keys_escaped);
	tcase_add_test(tc, t_writer_int_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_roundtrip_random_bytes);
	tcase_add_test(tc, t_roundtrip_random_text);
	tcase_add_test(tc, t_value_roundtrip);
	tcase_add_test(tc, t_value_nested_in_writer);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_parse_numbers);
	tcase_add_test(tc, t_parse_int_limits);
	tcase_add_test(tc, t_parse_literals);
	tcase_add_test(tc, t_parse_strings);
	tcase_add_test(tc, t_parse_depth);
	tcase_add_test(tc, t_parse_garbage);
	tcase_add_test(tc, t_parse_torn);
	tcase_add_test(tc, t_get_last_duplicate);
	tcase_add_test(tc, t_accessors);
	tcase_add_test(tc, t_copy);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(json_suite)
