/*
 * treeid.c, against the real git: the tree id of a working tree computed
 * from a throwaway index, entries that git is to take as they are
 * (valid), entries put back so that git looks again (edits), and the
 * paths that differ from a base commit, in the index as given and in the
 * tree.
 */
#include "config.h"

#include <sys/stat.h>

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "git.h"
#include "strv.h"
#include "treeid.h"
#include "unitfs.h"

static char	*repo, *gitdir, *objects, *scratch, *objdir;

static char *
blob(const char *text)
{
	return unitfs_sh_in(repo, "printf %%s '%s' | git hash-object -w "
	    "--stdin", text);
}

/* The tree of a.txt and b.txt with these contents. */
static char *
tree_of(const char *a, const char *b)
{
	char	*ba = blob(a), *bb = blob(b), *list, *t;

	ck_assert_int_ne(asprintf(&list, "100644 blob %s\ta.txt\n"
	    "100644 blob %s\tb.txt\n", ba, bb), -1);
	t = unitfs_sh_in(repo, "printf '%s' | git mktree", list);
	free(ba);
	free(bb);
	free(list);
	return t;
}

/*
 * A repository with a.txt and b.txt committed, then both rewritten in
 * place with their sizes kept, and c.txt staged as new and deleted.
 */
static void
setup_repo(void)
{
	char	*base;

	ck_assert_int_eq(git_init(), 0);
	base = unitfs_dir("t");
	repo = unitfs_repo(base, "repo");
	ck_assert_int_ne(asprintf(&gitdir, "%s/.git", repo), -1);
	ck_assert_int_ne(asprintf(&objects, "%s/objects", gitdir), -1);
	ck_assert_int_ne(asprintf(&scratch, "%s/scratch", base), -1);
	ck_assert_int_ne(asprintf(&objdir, "%s/objdir", base), -1);
	free(unitfs_sh_in(base, "mkdir scratch objdir"));
	free(unitfs_sh_in(repo, "printf 'aaaa\\n' >a.txt && "
	    "printf 'bbbb\\n' >b.txt && git add a.txt b.txt && "
	    "git commit -q -m t && printf 'c\\n' >c.txt && git add c.txt && "
	    "rm c.txt && printf 'AAAA\\n' >a.txt && printf 'BBBB\\n' >b.txt"));
	free(base);
}

static void
request(struct treeid_req *q, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = repo;
	g->gitdir = gitdir;
	*q = (struct treeid_req)TREEID_INIT;
	q->git = g;
	q->index = NULL;
	q->scratch = scratch;
	q->objdir = objdir;
	q->alternates = objects;
}

/* Every file is looked at; the base's differences are listed. */
START_TEST(t_tree)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	char			*tree, *want, *index;

	setup_repo();
	request(&q, &g);
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	q.index = index;
	q.base = "HEAD";
	ck_assert_int_eq(treeid_start(&j, &q, "t"), 0);
	tree = treeid_finish(&j);
	want = tree_of("AAAA\n", "BBBB\n");
	ck_assert_str_eq(tree, want);
	/* c.txt differs from HEAD in the index as given, not in the tree. */
	ck_assert_uint_eq(j.changed.n, 2);
	ck_assert_str_eq(j.changed.v[0], "a.txt");
	ck_assert_str_eq(j.changed.v[1], "b.txt");
	treeid_free(&j);
	/* The repository's own index is as it was. */
	free(tree);
	tree = unitfs_sh_in(repo, "git ls-files -s | wc -l");
	ck_assert_str_eq(tree, "3");
	free(tree);
	free(want);
	free(index);
}
END_TEST

/* With only, git looks at those paths and at nothing else: the caller
 * vouches for the rest. */
START_TEST(t_only)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	struct strv		 only = STRV_INIT;
	char			*tree, *want, *index, *kept, *ba, *bb, *bd;
	char			*list;

	setup_repo();
	request(&q, &g);
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	ck_assert_int_ne(asprintf(&kept, "%s/kept-index", scratch), -1);
	q.index = index;
	ck_assert_int_eq(treeid_start(&j, &q, "first"), 0);
	tree = treeid_finish(&j);
	ck_assert_ptr_nonnull(tree);
	ck_assert_int_eq(treeid_keep(&j, kept), 0);
	treeid_free(&j);
	free(tree);
	/* a.txt is rewritten and listed, d.txt new and listed; b.txt is
	 * rewritten too but not listed, and e.txt is new and not listed. */
	free(unitfs_sh_in(repo, "printf 'Aa\\n' >a.txt && "
	    "printf 'Bb\\n' >b.txt && printf 'd\\n' >d.txt && "
	    "printf 'e\\n' >e.txt"));
	strv_push(&only, "a.txt");
	strv_push(&only, "d.txt");
	q.start = kept;
	q.only = &only;
	tree = treeid_compute(&q, "only");
	ba = blob("Aa\n");
	bb = blob("BBBB\n");
	bd = blob("d\n");
	ck_assert_int_ne(asprintf(&list, "100644 blob %s\ta.txt\n"
	    "100644 blob %s\tb.txt\n100644 blob %s\td.txt\n", ba, bb, bd),
	    -1);
	want = unitfs_sh_in(repo, "printf '%s' | git mktree", list);
	free(ba);
	free(bb);
	free(bd);
	free(list);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	/* A listed path whose file is gone goes from the tree. */
	free(unitfs_sh_in(repo, "rm d.txt"));
	tree = treeid_compute(&q, "gone");
	want = tree_of("Aa\n", "BBBB\n");
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	strv_free(&only);
	free(kept);
	free(index);
}
END_TEST

/* The tree id is there before what follows it is done; the job, once
 * finished, still has it and the list of paths. */
START_TEST(t_wait_tree)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	const char		*early;
	char			*tree, *want, *index;

	setup_repo();
	request(&q, &g);
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	q.index = index;
	q.base = "HEAD";
	ck_assert_int_eq(treeid_start(&j, &q, "wait"), 0);
	early = treeid_wait_tree(&j);
	want = tree_of("AAAA\n", "BBBB\n");
	ck_assert_ptr_nonnull(early);
	ck_assert_str_eq(early, want);
	tree = treeid_finish(&j);
	ck_assert_str_eq(tree, want);
	ck_assert_uint_eq(j.changed.n, 2);
	treeid_free(&j);
	free(tree);
	free(want);
	free(index);
}
END_TEST

/* The index the tree is written from is there before the tree: what it
 * holds is the files as added, and the tree is the one it makes. */
START_TEST(t_wait_added)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	const char		*idx;
	char			*tree, *want, *index, *listed, *cmd, *blob;

	setup_repo();
	request(&q, &g);
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	q.index = index;
	ck_assert_int_eq(treeid_start(&j, &q, "added"), 0);
	idx = treeid_wait_added(&j);
	ck_assert_ptr_nonnull(idx);
	ck_assert_ptr_null(j.tree);
	blob = unitfs_sh_in(repo, "printf 'AAAA\\n' | "
	    "git hash-object --stdin");
	ck_assert_int_ne(asprintf(&cmd, "GIT_INDEX_FILE='%s' git ls-files -s "
	    "a.txt | cut -d ' ' -f 2", idx), -1);
	listed = unitfs_sh_in(repo, "%s", cmd);
	ck_assert_str_eq(listed, blob);
	tree = treeid_finish(&j);
	want = tree_of("AAAA\n", "BBBB\n");
	ck_assert_str_eq(tree, want);
	treeid_free(&j);
	free(tree);
	free(want);
	free(listed);
	free(blob);
	free(cmd);
	free(index);
}
END_TEST

/* No base: nothing listed, until asked -- after the job has ended (the
 * paths listed then), or while it runs (listed on its way). */
START_TEST(t_changed_later)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	char			*tree, *want, *index;
	int			 when;

	setup_repo();
	want = tree_of("AAAA\n", "BBBB\n");
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	for (when = 0; when < 2; when++) {
		request(&q, &g);
		q.index = index;
		ck_assert_int_eq(treeid_start(&j, &q, "later"), 0);
		if (when == 0) {
			tree = treeid_finish(&j);
			ck_assert_uint_eq(j.changed.n, 0);
			ck_assert(treeid_done(&j));
			/* Ended: it runs again, and ends again. */
			ck_assert_int_eq(treeid_changed(&j, "HEAD"), 0);
			ck_assert(!treeid_done(&j));
			ck_assert_ptr_null(treeid_finish(&j));
			ck_assert(!j.failed);
		} else {
			ck_assert_int_eq(treeid_changed(&j, "HEAD"), 0);
			tree = treeid_finish(&j);
		}
		ck_assert_str_eq(tree, want);
		ck_assert(treeid_done(&j));
		ck_assert_uint_eq(j.changed.n, 2);
		ck_assert_str_eq(j.changed.v[0], "a.txt");
		ck_assert_str_eq(j.changed.v[1], "b.txt");
		/* Asked again: listed once. */
		ck_assert_int_eq(treeid_changed(&j, "HEAD"), 0);
		ck_assert_uint_eq(j.changed.n, 2);
		treeid_free(&j);
		free(tree);
	}
	/* A base git cannot read: the job has failed. */
	request(&q, &g);
	q.index = index;
	ck_assert_int_eq(treeid_start(&j, &q, "bad"), 0);
	tree = treeid_finish(&j);
	ck_assert_ptr_nonnull(tree);
	ck_assert_int_eq(treeid_changed(&j, "no-such-commit"), 0);
	ck_assert_ptr_null(treeid_finish(&j));
	ck_assert(j.failed);
	treeid_free(&j);
	free(tree);
	free(want);
	free(index);
}
END_TEST

/* An index kept from a job is a start for the next: the same tree. */
START_TEST(t_start)
{
	struct treeid_req	 q;
	struct treeid_job	 j;
	struct git		 g;
	char			*tree, *want, *index, *kept;

	setup_repo();
	request(&q, &g);
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	ck_assert_int_ne(asprintf(&kept, "%s/kept-index", scratch), -1);
	q.index = index;
	q.base = "HEAD";
	ck_assert_int_eq(treeid_start(&j, &q, "first"), 0);
	tree = treeid_finish(&j);
	ck_assert_ptr_nonnull(tree);
	ck_assert_int_eq(treeid_keep(&j, kept), 0);
	treeid_free(&j);
	free(tree);
	/* What the kept index says of a.txt is not looked at again. */
	free(unitfs_sh_in(repo, "GIT_INDEX_FILE='%s' git update-index "
	    "--assume-unchanged a.txt && printf 'XXXX\\n' >a.txt", kept));
	q.start = kept;
	ck_assert_int_eq(treeid_start(&j, &q, "again"), 0);
	tree = treeid_finish(&j);
	want = tree_of("AAAA\n", "BBBB\n");
	ck_assert_str_eq(tree, want);
	treeid_free(&j);
	free(tree);
	free(want);
	/* The source's own index looks at it. */
	q.start = NULL;
	tree = treeid_compute(&q, "own");
	want = tree_of("XXXX\n", "BBBB\n");
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	free(kept);
	free(index);
}
END_TEST

static struct treeid_job	*polled;
static int			 hook_calls;

/* An idle hook that moves another job on, as the snapshot's does. */
static void
poll_other(void *arg)
{
	(void)arg;
	hook_calls++;
	if (polled != NULL)
		treeid_poll(polled);
}

/*
 * A job freed while its git runs waits for it without calling the idle
 * hook (which may move on jobs being freed), and a freed job is inert:
 * moved on by a hook that still knows it, it starts no git -- one with
 * no index of its own would work on the repository's.
 */
START_TEST(t_free_running)
{
	struct treeid_req	 q;
	struct treeid_job	 a, b;
	struct spawn_idle	 idle = { poll_other, NULL };
	struct git		 g;
	struct stat		 st;
	char			*index;

	setup_repo();
	request(&q, &g);
	g.idle = &idle;
	ck_assert_int_ne(asprintf(&index, "%s/index", gitdir), -1);
	q.index = index;
	ck_assert_int_eq(treeid_start(&a, &q, "a"), 0);
	ck_assert_int_eq(treeid_start(&b, &q, "b"), 0);
	/* Where a job with no prefix would write its files. */
	ck_assert_int_eq(chdir(scratch), 0);
	polled = &a;
	hook_calls = 0;
	treeid_free(&a);
	treeid_free(&b);
	ck_assert_int_eq(hook_calls, 0);
	treeid_poll(&a);
	ck_assert(treeid_done(&a));
	ck_assert_ptr_null(treeid_finish(&a));
	ck_assert_int_eq(stat("(null).out", &st), -1);
	ck_assert_int_eq(stat("(null).err", &st), -1);
	free(index);
	index = unitfs_sh_in(repo, "git ls-files -s | wc -l");
	ck_assert_str_eq(index, "3");
	free(index);
	polled = NULL;
	treeid_free(&a);
}
END_TEST

static Suite *
treeid_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("treeid");
	tc = tcase_create("git");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_tree);
	tcase_add_test(tc, t_only);
	tcase_add_test(tc, t_wait_tree);
	tcase_add_test(tc, t_changed_later);
	tcase_add_test(tc, t_wait_added);
	tcase_add_test(tc, t_start);
	tcase_add_test(tc, t_free_running);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(treeid_suite)
