/*
 * forgedir.c: each path under the common git dir, byte for byte; the
 * walk of the run records visits each record and nothing else, goes on
 * past a failing one, and finds none where there is no directory.
 */
#include "config.h"

#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "forgedir.h"
#include "strv.h"
#include "unitfs.h"
#include "xmalloc.h"

/* A common dir with a space and a dot, passed through as it is. */
#define COMMON	"/r/my repo/.git"

static const struct {
	char		*(*fn)(const char *);
	const char	*want;
} one[] = {
	{ forgedir_root, COMMON "/forge" },
	{ forgedir_timeline, COMMON "/forge/timeline.jsonl" },
	{ forgedir_timeline_old, COMMON "/forge/timeline.jsonl.1" },
	{ forgedir_breaker, COMMON "/forge/breaker.json" },
	{ forgedir_lock, COMMON "/forge/lock" },
	{ forgedir_cache, COMMON "/forge/cache.jsonl" },
	{ forgedir_logs, COMMON "/forge/logs" },
	{ forgedir_copies, COMMON "/forge/copies" },
	{ forgedir_refs, COMMON "/forge/refs" },
	{ forgedir_reuse_lock, COMMON "/forge/reuse.lock" },
	{ forgedir_hookdirs, COMMON "/forge/hookdirs" },
};

START_TEST(t_path)
{
	char	*p;

	p = one[_i].fn(COMMON);
	ck_assert_str_eq(p, one[_i].want);
	free(p);
}
END_TEST

START_TEST(t_run_paths)
{
	char	*p;

	p = forgedir_record(COMMON, "0123456789abcdef");
	ck_assert_str_eq(p, COMMON "/forge/copies/0123456789abcdef");
	free(p);
	p = forgedir_refstamp(COMMON, "0123456789abcdef");
	ck_assert_str_eq(p, COMMON "/forge/refs/0123456789abcdef");
	free(p);
	/* A relative common dir stays relative. */
	p = forgedir_logs(".git");
	ck_assert_str_eq(p, ".git/forge/logs");
	free(p);
}
END_TEST

struct seen {
	struct strv	 paths;
	const char	*fail;		/* the record whose call fails */
};

static int
see(const char *path, void *arg)
{
	struct seen	*s = arg;

	strv_push(&s->paths, path);
	return s->fail != NULL && strcmp(path, s->fail) == 0 ? -1 : 0;
}

START_TEST(t_records)
{
	struct seen	 s;
	char		*common, *dir, *p, *want;

	memset(&s, 0, sizeof(s));
	common = unitfs_dir("common");
	/* No forge directory yet: no record, no error. */
	ck_assert_int_eq(forgedir_records(common, see, &s), 0);
	ck_assert_uint_eq(s.paths.n, 0);

	dir = forgedir_copies(common);
	free(unitfs_sh_in(common, "mkdir -p forge/copies"));
	unitfs_write((p = unitfs_path(dir, "aaaa")), "", 0644);
	free(p);
	unitfs_write((p = unitfs_path(dir, "bbbb")), "", 0644);
	want = p;
	/* A temporary file, and a hidden one: not records. */
	unitfs_write((p = unitfs_path(dir, "aaaa.tmp")), "", 0644);
	free(p);
	unitfs_write((p = unitfs_path(dir, ".cccc")), "", 0644);
	free(p);

	s.fail = want;
	ck_assert_int_eq(forgedir_records(common, see, &s), -1);
	ck_assert_uint_eq(s.paths.n, 2);
	strv_sort(&s.paths);
	p = unitfs_path(dir, "aaaa");
	ck_assert_str_eq(s.paths.v[0], p);
	ck_assert_str_eq(s.paths.v[1], want);
	free(p);

	/* The same walk with no call failing. */
	strv_free(&s.paths);
	s.fail = NULL;
	ck_assert_int_eq(forgedir_records(common, see, &s), 0);
	ck_assert_uint_eq(s.paths.n, 2);
	strv_free(&s.paths);
	free(want);
	free(dir);
	free(common);
}
END_TEST

static Suite *
forgedir_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("forgedir");
	tc = tcase_create("core");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_loop_test(tc, t_path, 0, NCASES(one));
	tcase_add_test(tc, t_run_paths);
	tcase_add_test(tc, t_records);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(forgedir_suite)
