/*
 * The verdict cache: a hit only for the exact key, the newest entry of a
 * key kept, a bound on the entries (the oldest go), lines that do not
 * parse skipped, and concurrent writers that lose nothing.
 */
#include "config.h"

#include "unit.h"

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "state.h"
#include "unitfs.h"
#include "xmalloc.h"

static void
open_state(struct state *st, const char *name)
{
	char	*common = unitfs_dir(name);

	ck_assert_int_eq(state_open(st, common, NULL), 0);
	free(common);
}

static int
hit(struct state *st, const char *key, const char *want_at)
{
	char	*at;
	int	 r;

	r = cache_lookup(st, key, &at);
	if (r == 1 && want_at != NULL)
		ck_assert_str_eq(at, want_at);
	if (r != 1)
		ck_assert_ptr_null(at);
	free(at);
	return r;
}

START_TEST(t_exact_key)
{
	struct state	st;

	open_state(&st, "exact");
	ck_assert_int_eq(hit(&st, "k", NULL), 0);
	ck_assert_int_eq(cache_store(&st, "k", "t1", "tree", 8), 0);
	ck_assert_int_eq(hit(&st, "k", "t1"), 1);
	ck_assert_int_eq(hit(&st, "K", NULL), 0);
	ck_assert_int_eq(hit(&st, "k ", NULL), 0);
	ck_assert_int_eq(hit(&st, "", NULL), 0);
	/* Quotes, backslashes, newlines: stored as JSON, found as given. */
	ck_assert_int_eq(cache_store(&st, "a\"b\\c\nd", "t2", "tree", 8), 0);
	ck_assert_int_eq(hit(&st, "a\"b\\c\nd", "t2"), 1);
	ck_assert_int_eq(hit(&st, "a\"b\\c", NULL), 0);
	/* The same key again: one entry, the newest time. */
	ck_assert_int_eq(cache_store(&st, "k", "t3", "tree", 8), 0);
	ck_assert_int_eq(hit(&st, "k", "t3"), 1);
	state_close(&st);
}
END_TEST

static size_t
lines(const char *dir)
{
	char	*p, *text;
	size_t	 len, i, n = 0;

	p = xasprintf("%s/cache.jsonl", dir);
	text = unitfs_read(p, &len);
	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	free(text);
	free(p);
	return n;
}

START_TEST(t_bounded)
{
	struct state	st;
	char		key[16];
	int		i;

	open_state(&st, "bounded");
	for (i = 0; i < 10; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		ck_assert_int_eq(cache_store(&st, key, "t", "tree", 4), 0);
	}
	ck_assert_uint_eq(lines(st.dir), 4);
	/* The newest four stay; the oldest went. */
	ck_assert_int_eq(hit(&st, "k9", NULL), 1);
	ck_assert_int_eq(hit(&st, "k6", NULL), 1);
	ck_assert_int_eq(hit(&st, "k5", NULL), 0);
	ck_assert_int_eq(hit(&st, "k0", NULL), 0);
	/* Storing a key again makes it the newest: k6 outlives k7. */
	ck_assert_int_eq(cache_store(&st, "k6", "t", "tree", 4), 0);
	ck_assert_int_eq(cache_store(&st, "k10", "t", "tree", 4), 0);
	ck_assert_int_eq(hit(&st, "k6", NULL), 1);
	ck_assert_int_eq(hit(&st, "k7", NULL), 0);
	ck_assert_uint_eq(lines(st.dir), 4);
	state_close(&st);
}
END_TEST

START_TEST(t_bad_lines)
{
	struct state	 st;
	char		*p;

	open_state(&st, "bad");
	p = xasprintf("%s/cache.jsonl", st.dir);
	unitfs_write(p, "garbage\n{\"key\":\"k1\",\"at\":\"t1\"}\n{\"key\":3}\n"
	    "{\"key\":\"torn\",\"at\":\"t", 0644);
	ck_assert_int_eq(hit(&st, "k1", "t1"), 1);
	ck_assert_int_eq(hit(&st, "torn", NULL), 0);
	/* A store keeps the good lines only. */
	ck_assert_int_eq(cache_store(&st, "k2", "t2", "tree", 8), 0);
	ck_assert_uint_eq(lines(st.dir), 2);
	ck_assert_int_eq(hit(&st, "k1", "t1"), 1);
	ck_assert_int_eq(hit(&st, "k2", "t2"), 1);
	free(p);
	state_close(&st);
}
END_TEST

START_TEST(t_concurrent)
{
	struct state	 st;
	char		 key[32];
	pid_t		 pids[16];
	int		 i, k, status;

	open_state(&st, "concurrent");
	for (i = 0; i < 16; i++) {
		if ((pids[i] = fork()) == 0) {
			struct state	s2;
			char		*common = xstrdup(st.dir);

			*strrchr(common, '/') = '\0';
			if (state_open(&s2, common, NULL) == -1)
				_exit(1);
			for (k = 0; k < 8; k++) {
				snprintf(key, sizeof(key), "w%d-%d", i, k);
				if (cache_store(&s2, key, "t", "tree", 1000) ==
				    -1)
					_exit(1);
			}
			_exit(0);
		}
		ck_assert_int_ne(pids[i], -1);
	}
	for (i = 0; i < 16; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	/* Nothing lost: every writer's every entry is there. */
	ck_assert_uint_eq(lines(st.dir), 16 * 8);
	for (i = 0; i < 16; i++)
		for (k = 0; k < 8; k++) {
			snprintf(key, sizeof(key), "w%d-%d", i, k);
			ck_assert_int_eq(hit(&st, key, NULL), 1);
		}
	state_close(&st);
}
END_TEST

static Suite *
cache_suite(void)
{
	Suite	*s = suite_create("cache");
	TCase	*tc = tcase_create("cache");

	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_exact_key);
	tcase_add_test(tc, t_bounded);
	tcase_add_test(tc, t_bad_lines);
	tcase_add_test(tc, t_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(cache_suite)
