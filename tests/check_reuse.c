/*
 * Reusable copies, module by module: parking and claiming records
 * (reuse_park.c, registration_of()), the noted paths and the fixes
 * (reuse_look.c), the modes git does not record (reuse_modes.c).
 */
#include "config.h"

#include "unit.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "registration.h"
#include "reuse.h"
#include "reuse_int.h"
#include "rundir.h"
#include "strv.h"
#include "unitfs.h"

static char	*base, *repo, *common, *head;

/* What a shell command in dir prints, trailing newlines cut. */
static char *
sh_in(const char *dir, const char *fmt, ...)
{
	char	 cmd[4096], out[1024];
	FILE	*fp;
	va_list	 ap;
	size_t	 n;

	snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
	n = strlen(cmd);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	n = fread(out, 1, sizeof(out) - 1, fp);
	ck_assert_msg(pclose(fp) == 0, "failed: %s", cmd);
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
	return strdup(out);
}

static char *
path_of(const char *dir, const char *name)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", dir, name), -1);
	return p;
}

/* A repository of one commit, its run directories in base/tmp. */
static void
setup(void)
{
	char	*tmp, *c;

	ck_assert_int_eq(git_init(), 0);
	base = unitfs_dir("reuse");
	ck_assert_int_eq(setenv("HOME", base, 1), 0);
	ck_assert_int_eq(setenv("GIT_CONFIG_NOSYSTEM", "1", 1), 0);
	tmp = path_of(base, "tmp");
	ck_assert_int_eq(fs_mkdirs(tmp, 0700), 0);
	ck_assert_int_eq(setenv("TMPDIR", tmp, 1), 0);
	free(tmp);
	free(sh_in(base, "git init -q repo"));
	repo = path_of(base, "repo");
	free(sh_in(repo, "git config user.name t && git config user.email "
	    "t@t && printf 'a\\n' >a.txt && git add a.txt && "
	    "git commit -q -m t && mkdir -p .git/forge"));
	c = path_of(repo, ".git");
	common = realpath(c, NULL);
	ck_assert_ptr_nonnull(common);
	free(c);
	head = sh_in(repo, "git rev-parse HEAD");
}

static void
want_of(struct reuse_want *w, int incremental)
{
	memset(w, 0, sizeof(*w));
	w->source = repo;
	w->incremental = incremental;
	w->setup = "make";
	w->gitdir = common;
	w->head = head;
}

/* A run's copy, as a run makes it: a worktree in its run directory,
 * locked with the run's reason.  The caller frees the path. */
static char *
run_copy(struct rundir *rd)
{
	char	*copy;

	ck_assert_int_eq(rundir_open(rd, common), 0);
	ck_assert_int_eq(rundir_note_repo(rd, common), 0);
	copy = path_of(rd->top, "tree");
	free(sh_in(repo, "git worktree add -q --detach '%s' HEAD && "
	    "git worktree lock --reason 'forge run %s pid 1: a copy' '%s'",
	    copy, rd->run, copy));
	return copy;
}

/* A copy parked by a run that is over; the caller frees the path. */
static char *
parked_copy(int incremental)
{
	struct reuse_want	 w;
	struct rundir		 rd;
	char			*copy;

	want_of(&w, incremental);
	copy = run_copy(&rd);
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w, 2), 0);
	ck_assert(rundir_parked(&rd));
	rundir_free(&rd);
	return copy;
}

/* How many records the journal holds. */
static int
records(void)
{
	char	*n;
	int	 r;

	n = sh_in(common, "ls forge/copies | grep -v '[.]' | wc -l");
	r = atoi(n);
	free(n);
	return r;
}

START_TEST(t_park_claim)
{
	struct reuse_want	 w;
	struct rundir		 rd, busy;
	char			*copy, *had, *got, *again, *adm, *file, *top;

	setup();
	copy = parked_copy(0);
	ck_assert_int_eq(records(), 1);
	want_of(&w, 0);
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 1);
	ck_assert_str_eq(had, "make");
	ck_assert_str_eq(got, copy);
	top = sh_in(base, "dirname '%s'", copy);
	ck_assert_str_eq(rd.top, top);
	/* Its registration is the claiming run's, as a fresh copy's. */
	adm = registration_of(got, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	file = path_of(got, "a.txt");
	ck_assert(unitfs_exists(file));
	/* Held: no second run gets it. */
	ck_assert_int_eq(reuse_claim(&busy, common, &w, &again, &got), 0);
	ck_assert_ptr_null(again);
	/* Parked again, and claimed again. */
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w, 2), 0);
	rundir_free(&rd);
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 1);
	ck_assert_str_eq(got, copy);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	ck_assert(!unitfs_exists(copy));
	ck_assert_int_eq(records(), 0);
	free(adm);
	free(file);
	free(top);
	free(copy);
}
END_TEST

START_TEST(t_claim_wants)
{
	struct reuse_want	 w;
	struct rundir		 rd;
	char			*copy, *had, *got;

	setup();
	copy = parked_copy(1);
	/* Another kind, another working tree: not claimed, left as is. */
	want_of(&w, 0);
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 0);
	want_of(&w, 1);
	w.source = base;
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 0);
	ck_assert(unitfs_exists(copy));
	want_of(&w, 1);
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 1);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(copy);
}
END_TEST

/* A record whose directory lost the run's mark is not provably forge's:
 * never claimed, never touched. */
START_TEST(t_claim_refuses_unproven)
{
	struct reuse_want	 w;
	struct rundir		 rd;
	char			*copy, *mark, *had, *got;

	setup();
	copy = parked_copy(0);
	mark = sh_in(base, "dirname '%s'", copy);
	free(sh_in(mark, "rm .forge/run"));
	want_of(&w, 0);
	ck_assert_int_eq(reuse_claim(&rd, common, &w, &had, &got), 0);
	ck_assert_ptr_null(got);
	ck_assert(unitfs_exists(copy));
	ck_assert_int_eq(records(), 1);
	free(mark);
	free(copy);
}
END_TEST

/* A run's copy that lost the mark is removed, not parked; so is one past
 * the most that may be parked. */
START_TEST(t_park_refuses)
{
	struct reuse_want	 w;
	struct rundir		 rd;
	char			*copy, *other;

	setup();
	want_of(&w, 0);
	copy = run_copy(&rd);
	free(sh_in(rd.top, "rm .forge/run"));
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w, 2), -1);
	ck_assert(!rundir_parked(&rd));
	ck_assert(!unitfs_exists(copy));
	rundir_free(&rd);
	free(copy);
	other = parked_copy(0);
	copy = run_copy(&rd);
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w, 1), -1);
	ck_assert(!unitfs_exists(copy));
	ck_assert(unitfs_exists(other));
	rundir_free(&rd);
	ck_assert_int_eq(records(), 1);
	free(copy);
	free(other);
}
END_TEST

/* The registration a copy's .git names is followed only where it is
 * one of the repository's worktrees, names the copy back, and is locked
 * by the run. */
START_TEST(t_registration_of)
{
	struct rundir	 rd;
	char		*copy, *adm, *gitfile, *back, *text;

	setup();
	copy = run_copy(&rd);
	adm = registration_of(copy, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	ck_assert_ptr_null(registration_of(copy, common, "0000000000000000"));
	ck_assert_ptr_null(registration_of(copy, base, rd.run));
	/* One that names another directory back. */
	back = path_of(adm, "gitdir");
	text = unitfs_read(back, NULL);
	unitfs_write(back, "/elsewhere/.git\n", 0644);
	ck_assert_ptr_null(registration_of(copy, common, rd.run));
	unitfs_write(back, text, 0644);
	ck_assert_ptr_nonnull(registration_of(copy, common, rd.run));
	gitfile = path_of(copy, ".git");
	unitfs_write(gitfile, "gitdir: /elsewhere/worktrees/tree\n", 0644);
	ck_assert_ptr_null(registration_of(copy, common, rd.run));
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(gitfile);
	free(back);
	free(text);
	free(adm);
	free(copy);
}
END_TEST

START_TEST(t_noted_paths)
{
	struct strv	 v = STRV_INIT, got = STRV_INIT;
	char		*carry, *file;

	setup();
	carry = path_of(base, "carry");
	file = path_of(carry, "state.paths");
	ck_assert_int_eq(reuse_state_read(carry, &got), -1);
	strv_push(&v, "b/c");
	strv_push(&v, "a");
	ck_assert_int_eq(reuse_state_write(carry, &v), 0);
	ck_assert_int_eq(reuse_state_read(carry, &got), 0);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_str_eq(got.v[0], "a");
	ck_assert_str_eq(got.v[1], "b/c");
	strv_clear(&got);
	/* Cut short, or naming what no working state has: none. */
	unitfs_write(file, "a", 0600);
	ck_assert_int_eq(reuse_state_read(carry, &got), -1);
	ck_assert_uint_eq(got.n, 0);
	strv_push(&v, "x/../../y");
	ck_assert_int_eq(reuse_state_write(carry, &v), 0);
	ck_assert_int_eq(reuse_state_read(carry, &got), -1);
	strv_clear(&v);
	strv_push(&v, ".git/config");
	ck_assert_int_eq(reuse_state_write(carry, &v), 0);
	ck_assert_int_eq(reuse_state_read(carry, &got), -1);
	reuse_state_forget(carry);
	ck_assert(!unitfs_exists(file));
	strv_free(&v);
	strv_free(&got);
	free(carry);
	free(file);
}
END_TEST

/* Each path put right from the source: rewritten, or removed where the
 * working state has none, directories left empty with it. */
START_TEST(t_fix)
{
	struct strv	 fix = STRV_INIT;
	char		*src, *copy, *p, *text;

	setup();
	src = unitfs_dir("src");
	copy = unitfs_dir("copy");
	p = path_of(src, "a.txt");
	unitfs_write(p, "new\n", 0644);
	free(p);
	free(sh_in(copy, "printf 'old\\n' >a.txt && mkdir -p d/e && "
	    "printf 'x\\n' >d/e/gone.txt"));
	strv_push(&fix, "100644 100644\ta.txt");
	strv_push(&fix, "100644 000000\td/e/gone.txt");
	ck_assert_int_eq(reuse_fix(src, copy, &fix), 0);
	p = path_of(copy, "a.txt");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "new\n");
	free(text);
	free(p);
	p = path_of(copy, "d");
	ck_assert(!unitfs_exists(p));
	free(p);
	/* A submodule is not forge's to touch here. */
	strv_clear(&fix);
	strv_push(&fix, "160000 160000\tsub");
	ck_assert_int_eq(reuse_fix(src, copy, &fix), -1);
	strv_free(&fix);
	free(src);
	free(copy);
}
END_TEST

/* A tree's modes, as git ls-tree lists them, given as a checkout gives
 * them; a directory made unreadable is readable again. */
START_TEST(t_tree_modes)
{
	struct buf	 ls = BUF_INIT;
	struct stat	 st;
	char		*copy, *p;

	setup();
	copy = unitfs_dir("copy");
	free(sh_in(copy, "mkdir d && printf 'x\\n' >d/f && "
	    "printf 'y\\n' >d/x && chmod 600 d/f && chmod 644 d/x && "
	    "chmod 700 d"));
	buf_add(&ls, "040000 tree 0\td", 16);
	buf_add(&ls, "100644 blob 0\td/f", 18);
	buf_add(&ls, "100755 blob 0\td/x", 18);
	ck_assert_int_eq(reuse_tree_modes(copy, &ls), 0);
	p = path_of(copy, "d");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0777 & ~fs_umask());
	free(p);
	p = path_of(copy, "d/f");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0666 & ~fs_umask());
	free(p);
	p = path_of(copy, "d/x");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0777 & ~fs_umask());
	free(p);
	buf_free(&ls);
	free(copy);
}
END_TEST

static Suite *
reuse_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("reuse");
	tc = tcase_create("park");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_park_claim);
	tcase_add_test(tc, t_claim_wants);
	tcase_add_test(tc, t_claim_refuses_unproven);
	tcase_add_test(tc, t_park_refuses);
	tcase_add_test(tc, t_registration_of);
	suite_add_tcase(s, tc);

	tc = tcase_create("look");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_noted_paths);
	tcase_add_test(tc, t_fix);
	tcase_add_test(tc, t_tree_modes);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(reuse_suite)
