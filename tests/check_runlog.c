/*
 * runlog.c and setupin.c's comparison: a log holds exactly what was
 * added, or its first and last halves and what was left out between; a
 * .part is never taken for whole; pruning removes the oldest first and
 * never a live run's; changed setup inputs are found wherever they are.
 */
#include "config.h"

#include "unit.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runlog.h"
#include "setupin.h"
#include "unitfs.h"
#include "xmalloc.h"

/* A log opened in state's logs directory, as forge's state dir holds it. */
static int
open_in(struct runlog *lg, const char *state, long long cap)
{
	char	*logs;
	int	 ret;

	logs = xasprintf("%s/logs", state);
	ret = runlog_open(lg, logs, cap, 1 << 30);
	free(logs);
	return ret;
}

static char *
log_text(const char *state, const char *id, size_t *len)
{
	char	*p, *t;

	p = xasprintf("%s/logs/%s.log", state, id);
	t = unitfs_read(p, len);
	free(p);
	return t;
}

START_TEST(t_whole)
{
	struct runlog	 lg;
	char		*state = unitfs_dir("state"), *t, buf[3000];
	size_t		 len, i;
	struct stat	 st;

	ck_assert_int_eq(open_in(&lg, state, 1 << 20), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	/* In pieces of every size up to 100, binary bytes and all. */
	for (i = 0; i < sizeof(buf); i += i % 100 + 1)
		runlog_add(&lg, buf + i, i + i % 100 + 1 <= sizeof(buf) ?
		    i % 100 + 1 : sizeof(buf) - i);
	ck_assert_int_eq(runlog_close(&lg, 1), 0);
	t = log_text(state, lg.id, &len);
	ck_assert_uint_eq(len, sizeof(buf));
	ck_assert_int_eq(memcmp(t, buf, len), 0);
	free(t);
	t = xasprintf("%s/logs/%s.log", state, lg.id);
	ck_assert_int_eq(stat(t, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	free(t);
	t = xasprintf("%s/logs/%s.part", state, lg.id);
	ck_assert(!unitfs_exists(t));
	free(t);
	free(state);
}
END_TEST

START_TEST(t_cap)
{
	struct runlog	 lg;
	char		*state = unitfs_dir("state"), *t, line[32];
	const char	*mark;
	size_t		 len, i;

	ck_assert_int_eq(open_in(&lg, state, 1000), 0);
	for (i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line), "%04zu\n", i);
		runlog_add(&lg, line, 5);
	}
	ck_assert_int_eq(runlog_close(&lg, 1), 0);
	t = log_text(state, lg.id, &len);
	/* The first 500 bytes: lines 0 to 99; the last 500: 900 to 999. */
	ck_assert_int_eq(strncmp(t, "0000\n0001\n", 10), 0);
	ck_assert_int_eq(strncmp(t + 495, "0099\n", 5), 0);
	mark = "\n[forge: 4000 bytes of output left out here: more than "
	    "forge.logSize]\n";
	ck_assert_int_eq(strncmp(t + 500, mark, strlen(mark)), 0);
	ck_assert_int_eq(strncmp(t + 500 + strlen(mark), "0900\n", 5), 0);
	ck_assert_uint_eq(len, 1000 + strlen(mark));
	ck_assert_int_eq(strncmp(t + len - 5, "0999\n", 5), 0);
	free(t);
	free(state);
}
END_TEST

START_TEST(t_unkept)
{
	struct runlog	 lg;
	char		*state = unitfs_dir("state"), *p, *part;
	int		 whole, alive;

	/* Not kept: nothing is left. */
	ck_assert_int_eq(open_in(&lg, state, 1000), 0);
	runlog_add(&lg, "x\n", 2);
	p = xasprintf("%s/logs", state);
	/* While it runs: a .part, not whole, its writer alive. */
	ck_assert_ptr_nonnull(part = runlog_find(p, lg.id, &whole, &alive));
	ck_assert(!whole);
	ck_assert(alive);
	free(part);
	(void)runlog_close(&lg, 0);
	ck_assert_ptr_null(runlog_find(p, lg.id, &whole, &alive));
	/* No id but hex names a file. */
	ck_assert_ptr_null(runlog_find(p, "../logs/x", &whole, &alive));
	ck_assert_ptr_null(runlog_find(p, "", &whole, &alive));
	free(p);
	free(state);
}
END_TEST

START_TEST(t_prune)
{
	char		*state = unitfs_dir("state"), *logs, *p, *q;
	struct timespec	 ts[2];
	struct strv	 gone = STRV_INIT;
	const char	*names[] = { "00000001", "00000002", "00000003" };
	int		 i, fd, whole, alive;

	logs = xasprintf("%s/logs", state);
	ck_assert_int_eq(mkdir(logs, 0700), 0);
	/* Three logs of 100 bytes, the first the newest. */
	for (i = 0; i < 3; i++) {
		p = xasprintf("%s/%s.log", logs, names[i]);
		unitfs_write(p, "0123456789012345678901234567890123456789"
		    "0123456789012345678901234567890123456789"
		    "01234567890123456789", 0600);
		ts[0].tv_sec = ts[1].tv_sec = 1000000 - i * 10;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
		free(p);
	}
	/* A dead run's .part, and a live one's, locked. */
	p = xasprintf("%s/0000000d.part", logs);
	unitfs_write(p, "half", 0600);
	free(p);
	p = xasprintf("%s/0000000e.part", logs);
	unitfs_write(p, "running", 0600);
	ck_assert_int_ne(fd = open(p, O_RDONLY), -1);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	p[strlen(p) - 5] = '\0';
	ck_assert_ptr_nonnull(q = runlog_find(logs, p + strlen(logs) + 1,
	    &whole, &alive));
	ck_assert(alive);
	free(q);
	free(p);
	/* A dry run only names; then 250 bytes keep the two newest. */
	ck_assert_int_eq(runlog_prune(logs, 250, NULL, 1, &gone), 0);
	ck_assert_uint_eq(gone.n, 2);
	strv_free(&gone);
	ck_assert_int_eq(runlog_prune(logs, 250, NULL, 0, &gone), 0);
	ck_assert_uint_eq(gone.n, 2);
	p = xasprintf("%s/00000003.log", logs);
	ck_assert(!unitfs_exists(p));
	free(p);
	p = xasprintf("%s/0000000d.part", logs);
	ck_assert(!unitfs_exists(p));
	free(p);
	p = xasprintf("%s/0000000e.part", logs);
	ck_assert(unitfs_exists(p));
	free(p);
	ck_assert_ptr_nonnull(p = runlog_find(logs, "00000002", &whole,
	    &alive));
	ck_assert(whole);
	free(p);
	/* Nothing fits in 0, but the one spared. */
	ck_assert_int_eq(runlog_prune(logs, 0, "00000002", 0, NULL), 0);
	p = xasprintf("%s/00000001.log", logs);
	ck_assert(!unitfs_exists(p));
	free(p);
	p = xasprintf("%s/00000002.log", logs);
	ck_assert(unitfs_exists(p));
	free(p);
	close(fd);
	strv_free(&gone);
	free(logs);
	free(state);
}
END_TEST

START_TEST(t_changed)
{
	struct strv	v = STRV_INIT;

	setupin_changed("a x\nb y\n", "a x\nb y\n", &v);
	ck_assert_uint_eq(v.n, 0);
	/* Gone, changed, added: by path, in order. */
	setupin_changed("a x\nb y\nc z\n", "b y\nd z\ne zz\n", &v);
	ck_assert_uint_eq(v.n, 3);
	ck_assert_str_eq(v.v[0], "x");
	ck_assert_str_eq(v.v[1], "z");
	ck_assert_str_eq(v.v[2], "zz");
	strv_free(&v);
	setupin_changed("", "a x\n", &v);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.v[0], "x");
	strv_free(&v);
	setupin_changed("a x\n", NULL, &v);
	ck_assert_uint_eq(v.n, 1);
	strv_free(&v);
}
END_TEST

static Suite *
runlog_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("runlog");
	tc = tcase_create("core");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_whole);
	tcase_add_test(tc, t_cap);
	tcase_add_test(tc, t_unkept);
	tcase_add_test(tc, t_prune);
	tcase_add_test(tc, t_changed);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(runlog_suite)
