/*
 * Reusable copies, module by module: parking and claiming records
 * (reuse_park.c, registration_of()), the sync, its marks and the copy's
 * own index (reuse_sync.c), the rule files (reuse_rules.c), the noted
 * paths, the fixes and the prefix (reuse_look.c), the modes git does
 * not record (reuse_modes.c).
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
#include "fs.h"
#include "git.h"
#include "registration.h"
#include "reuse.h"
#include "reuse_int.h"
#include "rundir.h"
#include "strv.h"
#include "unitfs.h"
#include "xmalloc.h"

static char	*base, *repo, *common, *head;

/* A repository of one commit, its run directories in base/tmp. */
static void
setup(void)
{
	char	*tmp, *c;

	ck_assert_int_eq(git_init(), 0);
	base = unitfs_dir("reuse");
	unitfs_home(base);
	tmp = unitfs_path(base, "tmp");
	ck_assert_int_eq(fs_mkdirs(tmp, 0700), 0);
	ck_assert_int_eq(setenv("TMPDIR", tmp, 1), 0);
	free(tmp);
	repo = unitfs_repo(base, "repo");
	free(unitfs_sh_in(repo, "printf 'a\\n' >a.txt && git add a.txt && "
	    "git commit -q -m t && mkdir -p .git/forge"));
	c = unitfs_path(repo, ".git");
	common = realpath(c, NULL);
	ck_assert_ptr_nonnull(common);
	free(c);
	head = unitfs_sh_in(repo, "git rev-parse HEAD");
}

static void
want_of(struct reuse_want *w, int incremental)
{
	memset(w, 0, sizeof(*w));
	w->source = repo;
	w->kind = REUSE_WORKTREE;
	w->incremental = incremental;
	w->max = 2;
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
	copy = unitfs_path(rd->top, "tree");
	free(unitfs_sh_in(repo, "git worktree add -q --detach '%s' HEAD && "
	    "git worktree lock --reason 'forge run %s pid 1: a copy' '%s'",
	    copy, rd->run, copy));
	return copy;
}

/* A copy parked by a run of that kind of source that is over, the pool
 * holding max; the caller frees the path. */
static char *
parked_as(int incremental, const char *kind, int max)
{
	struct reuse_want	 w;
	struct rundir		 rd;
	char			*copy;

	want_of(&w, incremental);
	w.kind = kind;
	w.max = max;
	copy = run_copy(&rd);
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w), 0);
	ck_assert(rundir_parked(&rd));
	rundir_free(&rd);
	/* Each use a later one, to the clock's grain. */
	usleep(20000);
	return copy;
}

static char *
parked_copy(int incremental)
{
	return parked_as(incremental, REUSE_WORKTREE, 2);
}

/* How many records the journal holds. */
static int
records(void)
{
	char	*n;
	int	 r;

	n = unitfs_sh_in(common, "ls forge/copies | grep -v '[.]' | wc -l");
	r = atoi(n);
	free(n);
	return r;
}

START_TEST(t_park_claim)
{
	struct reuse_want	 w;
	struct reuse_claimed	 c, again;
	struct rundir		 rd, busy;
	char			*copy, *adm, *file, *top;

	setup();
	copy = parked_copy(0);
	ck_assert_int_eq(records(), 1);
	want_of(&w, 0);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	ck_assert_str_eq(c.setup, "make");
	ck_assert_str_eq(c.copy, copy);
	ck_assert_str_eq(c.kind, REUSE_WORKTREE);
	top = unitfs_sh_in(base, "dirname '%s'", copy);
	ck_assert_str_eq(rd.top, top);
	/* Its registration is the claiming run's, as a fresh copy's. */
	adm = registration_of(c.copy, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	file = unitfs_path(c.copy, "a.txt");
	ck_assert(unitfs_exists(file));
	reuse_park_claimed_free(&c);
	/* Held: no second run gets it. */
	ck_assert_int_eq(reuse_park_claim(&busy, common, &w, &again), 0);
	ck_assert_ptr_null(again.setup);
	ck_assert_ptr_null(again.copy);
	/* Parked again, and claimed again. */
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w), 0);
	rundir_free(&rd);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	ck_assert_str_eq(c.copy, copy);
	reuse_park_claimed_free(&c);
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
	struct reuse_claimed	 c;
	struct rundir		 rd;
	char			*copy;

	setup();
	copy = parked_copy(1);
	/* Another kind, another working tree: not claimed, left as is. */
	want_of(&w, 0);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 0);
	want_of(&w, 1);
	w.source = base;
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 0);
	ck_assert(unitfs_exists(copy));
	want_of(&w, 1);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	reuse_park_claimed_free(&c);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(copy);
}
END_TEST

/* The last use of the record at path, its modification time. */
static char *
used(const char *copy)
{
	char	*top, *run, *t;

	top = unitfs_sh_in(base, "dirname '%s'", copy);
	run = unitfs_sh_in(top, "cat .forge/run");
	t = unitfs_sh_in(common, "stat -c %%y forge/copies/%s", run);
	free(top);
	free(run);
	return t;
}

/*
 * Copies of every kind of source share a pool: a run claims its own
 * kind's first, the most recently used; another kind's only where the
 * pool is full, the least recently used; and one it puts back keeps its
 * last use.
 */
START_TEST(t_claim_kinds)
{
	struct reuse_want	 w;
	struct reuse_claimed	 c;
	struct rundir		 rd;
	char			*wt1, *wt2, *st, *t0, *t1;

	setup();
	wt1 = parked_as(1, REUSE_WORKTREE, 3);
	st = parked_as(1, REUSE_STAGED, 3);
	wt2 = parked_as(1, REUSE_WORKTREE, 3);
	want_of(&w, 1);
	w.kind = REUSE_STAGED;
	w.max = 3;
	t0 = used(st);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	ck_assert_str_eq(c.copy, st);
	ck_assert_str_eq(c.kind, REUSE_STAGED);
	/* Put back: still the staged tree's, used when it was. */
	ck_assert_int_eq(reuse_park_unclaim(&rd, &w, &c), 0);
	rundir_free(&rd);
	reuse_park_claimed_free(&c);
	t1 = used(st);
	ck_assert_str_eq(t0, t1);
	free(t0);
	free(t1);
	/* The working state's: the most recently used of them. */
	w.kind = REUSE_WORKTREE;
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	ck_assert_str_eq(c.copy, wt2);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	reuse_park_claimed_free(&c);
	/* A commit's, with room for its own copy: none of the others. */
	w.kind = REUSE_REV;
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 0);
	ck_assert_ptr_null(c.copy);
	/* With none: the least recently used of them. */
	w.max = 2;
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 1);
	ck_assert_str_eq(c.copy, wt1);
	ck_assert_str_eq(c.kind, REUSE_WORKTREE);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	reuse_park_claimed_free(&c);
	ck_assert(unitfs_exists(st));
	free(wt1);
	free(wt2);
	free(st);
}
END_TEST

/* A record whose directory lost the run's mark is not provably forge's:
 * never claimed, never touched. */
START_TEST(t_claim_refuses_unproven)
{
	struct reuse_want	 w;
	struct reuse_claimed	 c;
	struct rundir		 rd;
	char			*copy, *mark;

	setup();
	copy = parked_copy(0);
	mark = unitfs_sh_in(base, "dirname '%s'", copy);
	free(unitfs_sh_in(mark, "rm .forge/run"));
	want_of(&w, 0);
	ck_assert_int_eq(reuse_park_claim(&rd, common, &w, &c), 0);
	ck_assert_ptr_null(c.copy);
	ck_assert(unitfs_exists(copy));
	ck_assert_int_eq(records(), 1);
	free(mark);
	free(copy);
}
END_TEST

/* A run's copy that lost the mark is removed, not parked; one past the
 * most that may be parked makes room, by removing the least recently
 * used -- or goes, where there is none to be made. */
START_TEST(t_park_refuses)
{
	struct reuse_want	 w;
	struct reuse_claimed	 c;
	struct rundir		 rd, held;
	char			*copy, *old, *other;

	setup();
	want_of(&w, 0);
	copy = run_copy(&rd);
	free(unitfs_sh_in(rd.top, "rm .forge/run"));
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w), -1);
	ck_assert(!rundir_parked(&rd));
	ck_assert(!unitfs_exists(copy));
	rundir_free(&rd);
	free(copy);
	old = parked_as(0, REUSE_STAGED, 2);
	other = parked_copy(0);
	copy = run_copy(&rd);
	w.max = 2;
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w), 0);
	rundir_free(&rd);
	ck_assert(unitfs_exists(copy));
	ck_assert(unitfs_exists(other));
	ck_assert(!unitfs_exists(old));
	ck_assert_int_eq(records(), 2);
	free(old);
	/* One in use is not removed: with it, the pool is full, and no
	 * parked one goes for nothing. */
	w.max = 1;
	ck_assert_int_eq(reuse_park_claim(&held, common, &w, &c), 1);
	ck_assert_str_eq(c.copy, copy);
	reuse_park_claimed_free(&c);
	old = run_copy(&rd);
	ck_assert_int_eq(reuse_park(&rd, common, old, &w), -1);
	rundir_free(&rd);
	ck_assert(!unitfs_exists(old));
	ck_assert(unitfs_exists(other));
	ck_assert(unitfs_exists(copy));
	ck_assert_int_eq(rundir_remove(&held), 0);
	rundir_free(&held);
	ck_assert_int_eq(records(), 1);
	(void)reuse_park_claim(&rd, common, &w, &c);
	ck_assert_str_eq(c.copy, other);
	reuse_park_claimed_free(&c);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(old);
	free(other);
	free(copy);
	/* None parked with a pool of none, and none removed. */
	other = parked_copy(0);
	w.max = 0;
	copy = run_copy(&rd);
	ck_assert_int_eq(reuse_park(&rd, common, copy, &w), -1);
	rundir_free(&rd);
	ck_assert(!unitfs_exists(copy));
	ck_assert(unitfs_exists(other));
	ck_assert_int_eq(records(), 1);
	free(copy);
	free(other);
}
END_TEST

/*
 * The copy's .git made to name dir below the common dir, which is made
 * to hold what the copy's registration holds -- its gitdir naming the
 * copy back, the run's lock -- and a file of its own: the registration
 * is not followed there.
 */
static void
posing(const char *copy, const char *run, const char *gitfile,
    const char *dir)
{
	char	*at, *p, *text;

	at = unitfs_path(common, dir);
	ck_assert_int_eq(fs_mkdirs(at, 0755), 0);
	p = unitfs_path(at, "gitdir");
	text = unitfs_path(copy, ".git\n");
	unitfs_write(p, text, 0644);
	free(p);
	free(text);
	p = unitfs_path(at, "locked");
	text = xasprintf("forge run %s pid 1: a copy\n", run);
	unitfs_write(p, text, 0644);
	free(p);
	free(text);
	text = xasprintf("gitdir: %s\n", at);
	unitfs_write(gitfile, text, 0644);
	free(text);
	if (registration_of(copy, common, run) != NULL)
		ck_abort_msg("a registration followed in %s", dir);
	p = unitfs_path(at, "gitdir");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	p = unitfs_path(at, "locked");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	free(at);
}

/* The registration a copy's .git names is followed only where it is
 * one of the repository's worktrees, names the copy back, and is locked
 * by the run. */
START_TEST(t_registration_of)
{
	struct rundir	 rd;
	char		*copy, *adm, *gitfile, *back, *text, *own;

	setup();
	copy = run_copy(&rd);
	adm = registration_of(copy, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	ck_assert_ptr_null(registration_of(copy, common, "0000000000000000"));
	ck_assert_ptr_null(registration_of(copy, base, rd.run));
	/* One that names another directory back. */
	back = unitfs_path(adm, "gitdir");
	text = unitfs_read(back, NULL);
	unitfs_write(back, "/elsewhere/.git\n", 0644);
	ck_assert_ptr_null(registration_of(copy, common, rd.run));
	unitfs_write(back, text, 0644);
	free(adm);
	adm = registration_of(copy, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	gitfile = unitfs_path(copy, ".git");
	own = unitfs_read(gitfile, NULL);
	unitfs_write(gitfile, "gitdir: /elsewhere/worktrees/tree\n", 0644);
	ck_assert_ptr_null(registration_of(copy, common, rd.run));
	/* A directory that holds what the registration would, anywhere
	 * but one name below the common dir's worktrees/: a command in
	 * the copy can write all of those, and a registration followed
	 * is pruned of what a fresh one lacks. */
	posing(copy, rd.run, gitfile, "elsewhere-in-the-common-dir");
	posing(copy, rd.run, gitfile, "worktrees/..");
	posing(copy, rd.run, gitfile, "worktrees/.hidden");
	posing(copy, rd.run, gitfile, "worktrees/");
	posing(copy, rd.run, gitfile, "worktrees/tree/logs");
	/* And the registration itself is followed again. */
	unitfs_write(gitfile, own, 0644);
	free(adm);
	adm = registration_of(copy, common, rd.run);
	ck_assert_ptr_nonnull(adm);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(gitfile);
	free(back);
	free(text);
	free(own);
	free(adm);
	free(copy);
}
END_TEST

START_TEST(t_noted_paths)
{
	struct strv	 v = STRV_INIT, got = STRV_INIT;
	char		*carry, *file;

	setup();
	carry = unitfs_path(base, "carry");
	file = unitfs_path(carry, "state.paths");
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), -1);
	strv_push(&v, "b/c");
	strv_push(&v, "a");
	ck_assert_int_eq(reuse_look_state_write(carry, NULL, &v), 0);
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), 0);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_str_eq(got.v[0], "a");
	ck_assert_str_eq(got.v[1], "b/c");
	strv_clear(&got);
	/* Cut short, or naming what no working state has: none. */
	unitfs_write(file, "a", 0600);
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), -1);
	ck_assert_uint_eq(got.n, 0);
	strv_push(&v, "x/../../y");
	ck_assert_int_eq(reuse_look_state_write(carry, NULL, &v), 0);
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), -1);
	strv_clear(&v);
	strv_push(&v, ".git/config");
	ck_assert_int_eq(reuse_look_state_write(carry, NULL, &v), 0);
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), -1);
	reuse_look_state_forget(carry, NULL);
	ck_assert(!unitfs_exists(file));
	/* A nested repository's, under a name of its own. */
	strv_clear(&v);
	strv_push(&v, "n");
	ck_assert_int_eq(reuse_look_state_write(carry, "abc", &v), 0);
	ck_assert_int_eq(reuse_look_state_read(carry, NULL, &got), -1);
	ck_assert_int_eq(reuse_look_state_read(carry, "abc", &got), 0);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_str_eq(got.v[0], "n");
	reuse_look_state_forget(carry, "abc");
	ck_assert_int_eq(reuse_look_state_read(carry, "abc", &got), -1);
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
	p = unitfs_path(src, "a.txt");
	unitfs_write(p, "new\n", 0644);
	free(p);
	free(unitfs_sh_in(copy, "printf 'old\\n' >a.txt && mkdir -p d/e && "
	    "printf 'x\\n' >d/e/gone.txt"));
	strv_push(&fix, "100644 100644\ta.txt");
	strv_push(&fix, "100644 000000\td/e/gone.txt");
	ck_assert_int_eq(reuse_look_fix(src, copy, &fix), 0);
	p = unitfs_path(copy, "a.txt");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "new\n");
	free(text);
	free(p);
	p = unitfs_path(copy, "d");
	ck_assert(!unitfs_exists(p));
	free(p);
	/* A submodule is not forge's to touch here. */
	strv_clear(&fix);
	strv_push(&fix, "160000 160000\tsub");
	ck_assert_int_eq(reuse_look_fix(src, copy, &fix), -1);
	strv_free(&fix);
	free(src);
	free(copy);
}
END_TEST

/* A tree's modes, as git ls-tree lists them, given as a checkout gives
 * them; a directory made unreadable is readable again. */
START_TEST(t_tree_modes)
{
	struct strv	 ls = STRV_INIT;
	struct stat	 st;
	char		*copy, *p;

	setup();
	copy = unitfs_dir("copy");
	free(unitfs_sh_in(copy, "mkdir d && printf 'x\\n' >d/f && "
	    "printf 'y\\n' >d/x && chmod 600 d/f && chmod 644 d/x && "
	    "chmod 700 d"));
	strv_push(&ls, "040000 0\td");
	strv_push(&ls, "100644 0\td/f");
	strv_push(&ls, "100755 0\td/x");
	ck_assert_int_eq(reuse_modes_tree(copy, &ls), 0);
	p = unitfs_path(copy, "d");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0777 & ~fs_umask());
	free(p);
	p = unitfs_path(copy, "d/f");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0666 & ~fs_umask());
	free(p);
	p = unitfs_path(copy, "d/x");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0777 & ~fs_umask());
	free(p);
	strv_free(&ls);
	free(copy);
}
END_TEST

/* A claimed copy brought to HEAD by the whole sync: a tracked file a
 * command changed is HEAD's again, an untracked one gone, HEAD detached
 * at the commit, and what was in progress dropped. */
START_TEST(t_sync)
{
	struct reuse_copy	 rc;
	struct rundir		 rd;
	char			*copy, *adm, *p, *text, *at;

	setup();
	copy = run_copy(&rd);
	free(unitfs_sh_in(copy,
	    "printf 'changed\\n' >a.txt && printf 'u\\n' >u.txt "
	    "&& git checkout -q -b side && printf '%%s\\n' %s >"
	    "\"$(git rev-parse --git-dir)/MERGE_HEAD\"", head));
	memset(&rc, 0, sizeof(rc));
	rc.copy = copy;
	rc.common = common;
	rc.run = rd.run;
	rc.scratch = rd.scratch;
	rc.head = head;
	ck_assert_int_eq(reuse_sync(&rc, NULL, &adm), 0);
	ck_assert_ptr_nonnull(adm);
	p = unitfs_path(copy, "a.txt");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "a\n");
	free(text);
	free(p);
	p = unitfs_path(copy, "u.txt");
	ck_assert(!unitfs_exists(p));
	free(p);
	p = unitfs_path(adm, "MERGE_HEAD");
	ck_assert(!unitfs_exists(p));
	free(p);
	at = unitfs_sh_in(copy,
	    "git rev-parse HEAD && git symbolic-ref -q HEAD "
	    "|| true");
	ck_assert_str_eq(at, head);
	free(at);
	/* Another run's registration: not synced. */
	rc.run = "0000000000000000";
	ck_assert_int_eq(reuse_sync(&rc, NULL, &at), -1);
	ck_assert_ptr_null(at);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	free(adm);
	free(copy);
}
END_TEST

/* A file rewritten to the content it had gets its time back; one that
 * changed keeps its new time. */
START_TEST(t_marks)
{
	struct reuse_marks	 m = REUSE_MARKS_INIT;
	struct strv		 paths = STRV_INIT;
	struct timespec		 t[2];
	struct stat		 st;
	char			*copy, *same, *other;

	setup();
	copy = unitfs_dir("copy");
	same = unitfs_path(copy, "same.c");
	other = unitfs_path(copy, "other.c");
	unitfs_write(same, "int a;\n", 0644);
	unitfs_write(other, "int b;\n", 0644);
	t[0].tv_sec = t[1].tv_sec = 1000000000;
	t[0].tv_nsec = t[1].tv_nsec = 0;
	ck_assert_int_eq(utimensat(AT_FDCWD, same, t, 0), 0);
	ck_assert_int_eq(utimensat(AT_FDCWD, other, t, 0), 0);
	strv_push(&paths, "same.c");
	strv_push(&paths, "other.c");
	reuse_sync_marks_add(&m, copy, &paths);
	/* Noted once: a second note of the same path changes nothing. */
	reuse_sync_marks_add(&m, copy, &paths);
	unitfs_write(same, "int a;\n", 0644);
	unitfs_write(other, "int c;\n", 0644);
	reuse_sync_marks_restore(&m);
	ck_assert_int_eq(stat(same, &st), 0);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
	ck_assert_int_eq(stat(other, &st), 0);
	ck_assert_int_ne(st.st_mtim.tv_sec, 1000000000);
	reuse_sync_marks_free(&m);
	strv_free(&paths);
	free(same);
	free(other);
	free(copy);
}
END_TEST

/* The working tree's changed paths put in the copy: copied, or removed
 * where the working tree has none; each one done, for git to look at. */
START_TEST(t_prefix)
{
	struct reuse_prefix_job	 job;
	struct strv		 gone = STRV_INIT, paths = STRV_INIT;
	struct strv		 done = STRV_INIT;
	char			*src, *copy, *p, *text;

	setup();
	src = unitfs_dir("src");
	copy = unitfs_dir("copy");
	free(unitfs_sh_in(src, "mkdir -p d && printf 'new\\n' >d/n.txt"));
	free(unitfs_sh_in(copy,
	    "printf 'old\\n' >g.txt && printf 'x\\n' >x.txt"));
	strv_push(&gone, "g.txt");
	strv_push(&paths, "d/n.txt");
	strv_push(&paths, "x.txt");
	reuse_look_prefix(src, copy, &gone, &paths, NULL, &done);
	strv_sort(&done);
	ck_assert_uint_eq(done.n, 3);
	ck_assert_str_eq(done.v[0], "d/n.txt");
	ck_assert_str_eq(done.v[1], "g.txt");
	ck_assert_str_eq(done.v[2], "x.txt");
	p = unitfs_path(copy, "d/n.txt");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "new\n");
	free(text);
	free(p);
	p = unitfs_path(copy, "g.txt");
	ck_assert(!unitfs_exists(p));
	free(p);
	p = unitfs_path(copy, "x.txt");
	ck_assert(!unitfs_exists(p));
	free(p);
	/* The same in a thread of its own. */
	free(unitfs_sh_in(src, "printf 'newer\\n' >d/n.txt"));
	reuse_look_prefix_start(&job, src, copy, &paths);
	reuse_look_prefix_wait(&job);
	ck_assert_uint_eq(job.done.n, 1);
	ck_assert_str_eq(job.done.v[0], "d/n.txt");
	reuse_look_prefix_free(&job);
	p = unitfs_path(copy, "d/n.txt");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "newer\n");
	free(text);
	free(p);
	strv_free(&gone);
	strv_free(&paths);
	strv_free(&done);
	free(src);
	free(copy);
}
END_TEST

/* The copy's own index, noted with its key: the same while nothing
 * writes it and the key is the same. */
START_TEST(t_index_note)
{
	char	*adm, *idx, *record;

	setup();
	adm = unitfs_dir("adm");
	idx = unitfs_path(adm, "index");
	record = unitfs_path(base, "index.own");
	unitfs_write(idx, "DIRC", 0644);
	ck_assert(!reuse_sync_index_same(adm, record, "key 1\n"));
	reuse_sync_index_note(adm, record, "key 1\n");
	ck_assert(reuse_sync_index_same(adm, record, "key 1\n"));
	ck_assert(!reuse_sync_index_same(adm, record, "key 2\n"));
	unitfs_write(idx, "DIRC", 0644);
	ck_assert(!reuse_sync_index_same(adm, record, "key 1\n"));
	free(adm);
	free(idx);
	free(record);
}
END_TEST

/* An incremental copy's ignored files that git reads as instructions
 * dropped, and an untracked one the working tree has not; its other
 * ignored files kept. */
START_TEST(t_drop_rules)
{
	struct reuse_copy	 rc;
	struct rundir		 rd;
	struct strv		 dropped = STRV_INIT;
	char			*copy, *index, *p;

	setup();
	free(unitfs_sh_in(repo,
	    "printf '*.log\\n.gitattributes\\n' >.gitignore && "
	    "git add .gitignore && git commit -q -m ignore"));
	copy = run_copy(&rd);
	free(unitfs_sh_in(copy, "printf '* -text\\n' >.gitattributes && "
	    "mkdir sub && printf 'x\\n' >sub/.gitignore && "
	    "printf 'y\\n' >sub/keep.log"));
	memset(&rc, 0, sizeof(rc));
	rc.copy = copy;
	rc.common = common;
	rc.run = rd.run;
	rc.scratch = rd.scratch;
	rc.head = head;
	rc.keep_ignored = 1;
	index = unitfs_path(common, "index");
	ck_assert_int_eq(reuse_rules_drop(&rc, repo, index, &dropped), 0);
	strv_sort(&dropped);
	ck_assert_uint_eq(dropped.n, 2);
	ck_assert_str_eq(dropped.v[0], ".gitattributes");
	ck_assert_str_eq(dropped.v[1], "sub/.gitignore");
	p = unitfs_path(copy, "sub/keep.log");
	ck_assert(unitfs_exists(p));
	free(p);
	p = unitfs_path(copy, ".gitattributes");
	ck_assert(!unitfs_exists(p));
	free(p);
	/* The working tree's own untracked rule file is the working
	 * state's: kept. */
	strv_clear(&dropped);
	free(unitfs_sh_in(repo,
	    "mkdir -p sub && printf 'x\\n' >sub/.gitignore"));
	free(unitfs_sh_in(copy, "printf 'x\\n' >sub/.gitignore"));
	ck_assert_int_eq(reuse_rules_drop(&rc, repo, index, &dropped), 0);
	ck_assert_uint_eq(dropped.n, 0);
	ck_assert_int_eq(rundir_remove(&rd), 0);
	rundir_free(&rd);
	strv_free(&dropped);
	free(index);
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
	tcase_add_test(tc, t_claim_kinds);
	tcase_add_test(tc, t_claim_refuses_unproven);
	tcase_add_test(tc, t_park_refuses);
	tcase_add_test(tc, t_registration_of);
	suite_add_tcase(s, tc);

	tc = tcase_create("sync");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_sync);
	tcase_add_test(tc, t_marks);
	tcase_add_test(tc, t_index_note);
	tcase_add_test(tc, t_drop_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("look");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_noted_paths);
	tcase_add_test(tc, t_fix);
	tcase_add_test(tc, t_prefix);
	tcase_add_test(tc, t_tree_modes);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(reuse_suite)
