/*
 * The path replacer: what it replaces and what it leaves, the same
 * however the stream is cut -- at every offset, byte by byte -- and
 * against a plain reference on random streams (the seed is printed).
 */
#include "config.h"

#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "pathmap.h"

static void
collect(void *arg, const char *p, size_t n)
{
	ck_assert_uint_gt(n, 0);
	buf_add(arg, p, n);
}

/* in fed in pieces cut at the offsets cuts (ncuts of them, ascending),
 * then flushed: what came out, which the caller frees. */
static char *
run_cut(const char *from, const char *to, const char *in, const size_t *cuts,
    size_t ncuts)
{
	struct pathmap	 m;
	struct buf	 out = BUF_INIT;
	size_t		 i, at = 0, n = strlen(in);

	ck_assert_int_eq(pathmap_init(&m, from, to), 0);
	for (i = 0; i <= ncuts; i++) {
		size_t	end = i < ncuts ? cuts[i] : n;

		pathmap_feed(&m, in + at, end - at, collect, &out);
		ck_assert_uint_le(pathmap_held(&m), strlen(from));
		at = end;
	}
	pathmap_flush(&m, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 0);
	pathmap_free(&m);
	buf_addc(&out, '\0');
	out.len--;
	return buf_detach(&out);
}

/* in, fed whole, cut once at every offset, twice at every pair, and
 * byte by byte: want each time. */
static void
check_all_cuts(const char *from, const char *to, const char *in,
    const char *want)
{
	size_t	 n = strlen(in), cuts[2], i, j, *each;
	char	*got;

	got = run_cut(from, to, in, NULL, 0);
	ck_assert_msg(strcmp(got, want) == 0, "whole \"%s\": got \"%s\", "
	    "want \"%s\"", in, got, want);
	free(got);
	for (i = 0; i <= n; i++) {
		cuts[0] = i;
		got = run_cut(from, to, in, cuts, 1);
		ck_assert_msg(strcmp(got, want) == 0, "\"%s\" cut at %zu: got "
		    "\"%s\", want \"%s\"", in, i, got, want);
		free(got);
		for (j = i; j <= n; j++) {
			cuts[1] = j;
			got = run_cut(from, to, in, cuts, 2);
			ck_assert_msg(strcmp(got, want) == 0, "\"%s\" cut at "
			    "%zu and %zu: got \"%s\"", in, i, j, got);
			free(got);
		}
	}
	each = calloc(n + 1, sizeof(*each));
	ck_assert_ptr_nonnull(each);
	for (i = 0; i < n; i++)
		each[i] = i + 1;
	got = run_cut(from, to, in, each, n > 0 ? n - 1 : 0);
	ck_assert_msg(strcmp(got, want) == 0, "\"%s\" byte by byte: got "
	    "\"%s\"", in, got);
	free(got);
	free(each);
}

static const struct {
	const char	*in;
	const char	*want;
} cases[] = {
	{ "", "" },
	{ "no path here\n", "no path here\n" },
	{ "/t/copy", "/home/me/src" },
	{ "/t/copy/a.c:3:1: error: x\n", "/home/me/src/a.c:3:1: error: x\n" },
	{ "In file included from /t/copy/b.h:2,\n/t/copy/a.c:1: e\n",
	  "In file included from /home/me/src/b.h:2,\n"
	  "/home/me/src/a.c:1: e\n" },
	{ "cd /t/copy: no\n", "cd /home/me/src: no\n" },
	{ "\"/t/copy\" '/t/copy/x'", "\"/home/me/src\" '/home/me/src/x'" },
	{ "PWD=/t/copy\n", "PWD=/home/me/src\n" },
	{ "//t/copy/a", "//home/me/src/a" },
	{ "file:///t/copy/a", "file:///home/me/src/a" },
	{ "/t/copy/a /t/copy/b", "/home/me/src/a /home/me/src/b" },
	/* Another path, that only starts or ends the same. */
	{ "/t/copy2/a.c", "/t/copy2/a.c" },
	{ "/t/copy.log", "/t/copy.log" },
	{ "/t/copy-old", "/t/copy-old" },
	/* Colour: the sequences end in letters. */
	{ "\x1b[1m/t/copy/a.c\x1b[0m", "\x1b[1m/home/me/src/a.c\x1b[0m" },
	{ "\x1b[01m\x1b[K/t/copy/a.c:1:\x1b[m\x1b[K",
	  "\x1b[01m\x1b[K/home/me/src/a.c:1:\x1b[m\x1b[K" },
	{ "/t/cop", "/t/cop" },
	{ "/t/cop/t/copy", "/t/cop/home/me/src" },
	{ "/t/co/t/copy", "/t/co/home/me/src" },
	{ "/t//t/copy", "/t//home/me/src" },
	{ "/", "/" },
	{ "////", "////" },
	{ "/t/copy\n/t/copy", "/home/me/src\n/home/me/src" },
};

START_TEST(t_cases)
{
	check_all_cuts("/t/copy", "/home/me/src", cases[_i].in,
	    cases[_i].want);
}
END_TEST

/* Output is held back only while it may still be a path's start: the
 * rest of a read goes out at once. */
START_TEST(t_held)
{
	struct pathmap	m;
	struct buf	out = BUF_INIT;

	ck_assert_int_eq(pathmap_init(&m, "/t/copy", "/W"), 0);
	pathmap_feed(&m, "make: ok\n", 9, collect, &out);
	ck_assert_uint_eq(out.len, 9);
	ck_assert_uint_eq(pathmap_held(&m), 0);
	pathmap_feed(&m, "in /t/co", 8, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 5);
	ck_assert_uint_eq(out.len, 12);
	pathmap_feed(&m, "py", 2, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 7);	/* the byte after it? */
	pathmap_feed(&m, "/a.c ", 5, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 0);
	buf_addc(&out, '\0');
	ck_assert_str_eq(out.data, "make: ok\nin /W/a.c ");
	out.len = 0;
	/* Flushed while it could still be one: passed on as it is, and
	 * what follows is another start. */
	pathmap_feed(&m, "/t/co", 5, collect, &out);
	pathmap_flush(&m, collect, &out);
	pathmap_feed(&m, "py/b /t/copy", 12, collect, &out);
	pathmap_flush(&m, collect, &out);
	buf_addc(&out, '\0');
	ck_assert_str_eq(out.data, "/t/copy/b /W");
	/* Not the start of from: nothing held. */
	out.len = 0;
	pathmap_feed(&m, "a/t/cx/t", 8, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 2);
	pathmap_feed(&m, "t", 1, collect, &out);
	ck_assert_uint_eq(pathmap_held(&m), 0);
	pathmap_free(&m);
	buf_free(&out);
}
END_TEST

START_TEST(t_from)
{
	struct pathmap	m;

	ck_assert_int_eq(pathmap_init(&m, "relative", "/W"), -1);
	ck_assert_int_eq(pathmap_init(&m, "", "/W"), -1);
	ck_assert_int_eq(pathmap_init(&m, "/", "/W"), -1);
	ck_assert_int_eq(pathmap_init(&m, "//", "/W"), -1);
	ck_assert_int_eq(pathmap_init(&m, "/a//", "/W"), 0);
	ck_assert_str_eq(m.from, "/a");
	pathmap_free(&m);
}
END_TEST

/* The rule, on a whole stream at once, written plainly. */
static int
is_name(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static void
reference(const char *from, const char *to, const char *in, size_t n,
    struct buf *out)
{
	size_t	i = 0, len = strlen(from);

	while (i < n) {
		if (n - i >= len && memcmp(in + i, from, len) == 0 &&
		    (i + len == n || in[i + len] == '/' ||
		    !is_name((unsigned char)in[i + len]))) {
			buf_adds(out, to);
			i += len;
		} else
			buf_addc(out, in[i++]);
	}
}

START_TEST(t_random)
{
	static const char	 alpha[] = "/tcopyr-x. :\n";
	static const char	*const pieces[] = { "/t/copy", "/t/c", "/t/" };
	struct pathmap		 m;
	struct buf		 in = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
	uint32_t		 seed, s;
	size_t			 round, n, i, at, k;

	seed = (uint32_t)time(NULL);
	if (getenv("PATHMAP_SEED") != NULL)
		seed = (uint32_t)strtoul(getenv("PATHMAP_SEED"), NULL, 10);
	printf("# pathmap seed %u (PATHMAP_SEED= to repeat)\n", seed);
	s = seed;
	for (round = 0; round < 3000; round++) {
		in.len = want.len = got.len = 0;
		s = s * 1103515245 + 12345;
		n = (s >> 16) % 64;
		for (i = 0; i < n; i++) {
			s = s * 1103515245 + 12345;
			/* Often pieces of from, to meet it often. */
			if ((s >> 16) % 3 == 0)
				buf_adds(&in, pieces[(s >> 18) % 3]);
			else
				buf_addc(&in, alpha[(s >> 16) % (sizeof(alpha)
				    - 1)]);
		}
		reference("/t/copy", "/W", in.data != NULL ? in.data : "",
		    in.len, &want);
		ck_assert_int_eq(pathmap_init(&m, "/t/copy", "/W"), 0);
		for (at = 0; at < in.len; at += k) {
			s = s * 1103515245 + 12345;
			k = 1 + (s >> 16) % 12;
			if (k > in.len - at)
				k = in.len - at;
			pathmap_feed(&m, in.data + at, k, collect, &got);
			ck_assert_uint_le(pathmap_held(&m), 7);
		}
		pathmap_flush(&m, collect, &got);
		pathmap_free(&m);
		ck_assert_msg(got.len == want.len && (got.len == 0 ||
		    memcmp(got.data, want.data, got.len) == 0),
		    "seed %u round %zu: \"%.*s\" gave \"%.*s\", want \"%.*s\"",
		    seed, round, (int)in.len, in.data ? in.data : "",
		    (int)got.len, got.data ? got.data : "", (int)want.len,
		    want.data ? want.data : "");
	}
	buf_free(&in);
	buf_free(&want);
	buf_free(&got);
}
END_TEST

static Suite *
pathmap_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("pathmap");
	tc = tcase_create("pathmap");
	tcase_add_loop_test(tc, t_cases, 0,
	    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, t_held);
	tcase_add_test(tc, t_from);
	tcase_add_test(tc, t_random);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(pathmap_suite)
