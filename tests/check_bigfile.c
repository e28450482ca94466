/*
 * bigfile.c's logic alone: reading git diff-index's raw output, which
 * paths need their size in HEAD asked, and the paths below a big one
 * that must be copied with it.
 */
#include "config.h"

#include "unit.h"

#include <string.h>

#include "bigfile.h"
#include "strv.h"

#define Z40	"0000000000000000000000000000000000000000"
#define A40	"1111111111111111111111111111111111111111"
#define B40	"2222222222222222222222222222222222222222"

/* The test's disk: "big*" are big files, "none*" no regular file. */
static int
fake_big(const char *path, void *arg)
{
	(void)arg;
	if (strncmp(path, "big", 3) == 0)
		return 1;
	return strncmp(path, "none", 4) == 0 ? -1 : 0;
}

START_TEST(t_parse)
{
	static const char raw[] =
	    ":100644 100644 " A40 " " Z40 " M\0big.bin\0"
	    ":100644 100644 " A40 " " Z40 " M\0small.txt\0"
	    ":000000 100644 " Z40 " " Z40 " A\0new.txt\0"
	    ":120000 100644 " B40 " " Z40 " T\0was-link\0"
	    ":100755 000000 " B40 " " Z40 " D\0none-gone\0"
	    ":160000 160000 " A40 " " B40 " M\0big-submodule\0"
	    ":100644 160000 " A40 " " B40 " T\0bigsub2\0"
	    ":100644 100644 " A40 " " Z40 " M\0sp ace/new\nline\0"
	    ":100644 000000 " A40 " " Z40 " D\0big-but-untracked\0";
	struct strv	changed = STRV_INIT, want = STRV_INIT, big = STRV_INIT;
	struct strv	gone = STRV_INIT;

	ck_assert_int_eq(bigfile_parse_raw(raw, sizeof(raw) - 1, &changed,
	    &gone, &want, &big, fake_big, NULL), 0);
	/* Gitlinks are left out altogether. */
	ck_assert_uint_eq(changed.n, 7);
	ck_assert_uint_eq(big.n, 1);
	ck_assert_str_eq(big.v[0], "big.bin");
	/* Deleted from the index: a file on disk there is untracked, and
	 * never big; only the old side counts. */
	ck_assert_uint_eq(gone.n, 2);
	ck_assert_str_eq(gone.v[0], "none-gone");
	ck_assert_str_eq(gone.v[1], "big-but-untracked");
	/* Old regular files not big on disk: their HEAD size is asked. */
	ck_assert_uint_eq(want.n, 4);
	ck_assert_str_eq(want.v[0], "100644 " A40 "\tsmall.txt");
	ck_assert_str_eq(want.v[1], "100755 " B40 "\tnone-gone");
	ck_assert_str_eq(want.v[2], "100644 " A40 "\tsp ace/new\nline");
	ck_assert_str_eq(want.v[3], "100644 " A40 "\tbig-but-untracked");
	strv_free(&changed);
	strv_free(&gone);
	strv_free(&want);
	strv_free(&big);
}
END_TEST

START_TEST(t_malformed)
{
	static const char *const bad[] = {
		":100644 100644 " A40 " " Z40 " M",	/* no path */
		":100644 100644 " A40 " " Z40 " M\0",	/* path unended */
		"100644 100644 " A40 " " Z40 " M\0p\0",
		":100644 100644 abc " Z40 " M\0p\0",
		NULL
	};
	struct strv	c = STRV_INIT, w = STRV_INIT, b = STRV_INIT;
	struct strv	g = STRV_INIT;
	size_t		i;

	for (i = 0; bad[i] != NULL; i++) {
		size_t	len = strlen(bad[i]);

		/* The NULs inside are part of the text. */
		if (i == 1 || i == 2 || i == 3)
			len += i == 1 ? 1 : 3;
		ck_assert_int_eq(bigfile_parse_raw(bad[i], len, &c, &g, &w, &b,
		    fake_big, NULL), -1);
	}
	ck_assert_int_eq(bigfile_parse_raw("", 0, &c, &g, &w, &b, fake_big,
	    NULL), 0);
	strv_free(&c);
	strv_free(&g);
	strv_free(&w);
	strv_free(&b);
}
END_TEST

START_TEST(t_close)
{
	struct strv	big = STRV_INIT, changed = STRV_INIT;

	strv_push(&big, "x");
	strv_push(&big, "a/b");
	strv_push(&big, "x");
	strv_push(&changed, "x");
	strv_push(&changed, "x/in");
	strv_push(&changed, "x/deep/er");
	strv_push(&changed, "x.txt");		/* a neighbour, not below */
	strv_push(&changed, "xy/z");
	strv_push(&changed, "a/b/c");
	strv_push(&changed, "a/bc");
	strv_push(&changed, "a/b");
	bigfile_close(&big, &changed);
	ck_assert_uint_eq(big.n, 5);
	ck_assert_str_eq(big.v[0], "a/b");
	ck_assert_str_eq(big.v[1], "a/b/c");
	ck_assert_str_eq(big.v[2], "x");
	ck_assert_str_eq(big.v[3], "x/deep/er");
	ck_assert_str_eq(big.v[4], "x/in");
	ck_assert_ptr_null(big.v[5]);
	strv_free(&big);
	strv_free(&changed);
}
END_TEST

START_TEST(t_binary)
{
	char	buf[9000];

	memset(buf, 'a', sizeof(buf));
	ck_assert_int_eq(bigfile_is_binary(buf, sizeof(buf)), 0);
	buf[7999] = '\0';
	ck_assert_int_eq(bigfile_is_binary(buf, sizeof(buf)), 1);
	buf[7999] = 'a';
	/* Past the first 8000 bytes, as git: text. */
	buf[8000] = '\0';
	ck_assert_int_eq(bigfile_is_binary(buf, sizeof(buf)), 0);
	ck_assert_int_eq(bigfile_is_binary("", 0), 0);
	ck_assert_int_eq(bigfile_is_binary("a\0", 2), 1);
}
END_TEST

static Suite *
bigfile_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("bigfile");
	tc = tcase_create("logic");
	tcase_add_test(tc, t_parse);
	tcase_add_test(tc, t_malformed);
	tcase_add_test(tc, t_close);
	tcase_add_test(tc, t_binary);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(bigfile_suite)
