/*
 * clone.c: which refs of a clone are its results -- the branches and
 * tags created or moved since it started, and nothing else.
 */
#include "config.h"

#include "unit.h"

#include <string.h>

#include "clone.h"
#include "strv.h"

#define A	"1111111111111111111111111111111111111111"
#define B	"2222222222222222222222222222222222222222"
#define C	"3333333333333333333333333333333333333333"

static char *
moved(const char *start, const char *now)
{
	struct strv	 v = STRV_INIT;
	char		*s;

	clone_moved(start, now, &v);
	s = strv_join(&v, ",");
	strv_free(&v);
	return s;
}

#define MOVED(start, now, want) do {					\
	char	*got_ = moved((start), (now));				\
	ck_assert_str_eq(got_, (want));					\
	free(got_);							\
} while (0)

START_TEST(t_unchanged)
{
	const char	*refs = A " refs/heads/main\n" B " refs/tags/v1\n";

	MOVED(refs, refs, "");
	MOVED("", "", "");
}
END_TEST

START_TEST(t_created_and_moved)
{
	MOVED(A " refs/heads/main\n",
	    B " refs/heads/main\n" A " refs/heads/topic\n" C " refs/tags/t\n",
	    "refs/heads/main,refs/heads/topic,refs/tags/t");
	/* Nothing at the start: everything is new. */
	MOVED("", A " refs/heads/x\n", "refs/heads/x");
}
END_TEST

START_TEST(t_deleted)
{
	/* A ref deleted, or moved back where it started, is no result. */
	MOVED(A " refs/heads/main\n" A " refs/heads/side\n",
	    A " refs/heads/main\n", "");
}
END_TEST

START_TEST(t_only_heads_and_tags)
{
	MOVED("", A " refs/stash\n" B " refs/remotes/origin/x\n"
	    C " refs/notes/commits\n" A " refs/forge/runs/x/heads/y\n"
	    B " refs/headsx\n", "");
}
END_TEST

START_TEST(t_same_id_other_name)
{
	/* The line is what counts: the same id under a new name is new,
	 * and a name that is a prefix of another is another ref. */
	MOVED(A " refs/heads/main\n" A " refs/heads/ma\n",
	    A " refs/heads/main\n" A " refs/heads/ma\n" A " refs/heads/m\n"
	    A " refs/tags/main\n", "refs/heads/m,refs/tags/main");
}
END_TEST

START_TEST(t_no_final_newline)
{
	MOVED(A " refs/heads/main", A " refs/heads/main", "");
	MOVED(A " refs/heads/main", B " refs/heads/main", "refs/heads/main");
}
END_TEST

static Suite *
clone_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("clone");
	tc = tcase_create("moved");
	tcase_add_test(tc, t_unchanged);
	tcase_add_test(tc, t_created_and_moved);
	tcase_add_test(tc, t_deleted);
	tcase_add_test(tc, t_only_heads_and_tags);
	tcase_add_test(tc, t_same_id_other_name);
	tcase_add_test(tc, t_no_final_newline);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(clone_suite)
