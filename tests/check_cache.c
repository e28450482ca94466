/*
 * The verdict cache: a key that changes with every input it holds and
 * with nothing else; a hit only for the exact key, the newest entry of a
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
#include "strv.h"
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

/* A run's inputs, each set to something, as the base to change. */
struct key_fixture {
	struct strv		 argv, argv2, writable, env;
	struct cache_step	 steps[2];
	char			*environ[8];
	struct cache_in		 in;
};

static void
key_base(struct key_fixture *f)
{
	struct cache_in	base = CACHE_IN_INIT;

	memset(f, 0, sizeof(*f));
	strv_push(&f->argv, "make");
	strv_push(&f->argv, "check");
	strv_push(&f->argv2, "./configure");
	strv_push(&f->writable, "/w");
	strv_push(&f->env, "PATH");
	strv_push(&f->env, "LC_*");
	f->environ[0] = "PATH=/bin";
	f->environ[1] = "LC_ALL=C";
	f->environ[2] = "HOME=/h";
	f->environ[3] = NULL;
	f->steps[0].argv = &f->argv2;
	f->steps[0].dir = "";
	f->steps[0].setup = 1;
	f->steps[1].argv = &f->argv;
	f->steps[1].dir = "sub";
	f->in = base;
	f->in.version = "1.0";
	f->in.git = "2.39.5";
	f->in.mode = "isolated";
	f->in.tree = "t1";
	f->in.head = "h1";
	f->in.index = "i1";
	f->in.convert = "c1";
	f->in.as_is = "a1";
	f->in.writable = &f->writable;
	f->in.timeout_ms = 0;
	f->in.identity = "1000 1000 1000";
	f->in.settings = "s1";
	f->in.steps_from = "command line";
	f->in.setup_from = "git config";
	f->in.steps = f->steps;
	f->in.nsteps = 2;
	f->in.env = &f->env;
	f->in.environ = f->environ;
	f->in.umask = 022;
	f->in.modes = "m1";
}

static void
key_free(struct key_fixture *f)
{
	strv_free(&f->argv);
	strv_free(&f->argv2);
	strv_free(&f->writable);
	strv_free(&f->env);
}

/* Each way to change one input of the base. */
static void
change(struct key_fixture *f, int i)
{
	switch (i) {
	case 0: f->in.version = "1.1"; break;
	case 1: f->in.git = "2.25.5"; break;
	case 2: f->in.mode = "in-place"; break;
	case 3: f->in.tree = "t2"; break;
	case 4: f->in.head = "h2"; break;
	case 5: f->in.index = "i2"; break;
	case 6: f->in.index = NULL; break;
	case 7: f->in.clone = 1; break;
	case 8: f->in.incremental = 1; break;
	case 9: f->in.contain = 1; break;
	case 10: f->in.no_network = 1; break;
	case 11: f->in.contain_how = "landlock"; break;
	case 12: f->in.timeout_ms = 60000; break;
	case 13: f->in.identity = "0 1000 1000"; break;
	case 14: f->in.steps_from = ".forgeconfig"; break;
	case 15: f->in.setup_from = ":.forgeconfig"; break;
	case 16: f->steps[1].dir = ""; break;
	case 17: f->steps[1].dir = "sub/"; break;
	case 18: f->steps[1].setup = 1; break;
	case 19: strv_push(&f->argv, "-j2"); break;
	case 20: f->in.nsteps = 1; break;
	case 21: f->environ[0] = "PATH=/usr/bin:/bin"; break;
	case 22: f->environ[0] = "PATH="; break;
	case 23: f->environ[0] = "PATHX=/bin"; break;	/* PATH unset */
	case 24: f->environ[3] = "LC_MESSAGES=C"; f->environ[4] = NULL;
		break;
	case 25: strv_push(&f->env, "CC"); f->environ[3] = "CC=cc";
		f->environ[4] = NULL; break;
	/* A step's words, not their concatenation. */
	case 26: strv_clear(&f->argv); strv_push(&f->argv, "make check");
		break;
	case 27: f->in.umask = 002; break;
	case 28: f->in.umask = -1; break;
	case 29: f->in.modes = "m2"; break;
	case 30: f->in.modes = NULL; break;
	case 31: f->in.convert = "c2"; break;
	case 32: f->in.convert = NULL; break;
	case 33: f->in.as_is = "a2"; break;
	case 34: f->in.as_is = NULL; break;
	/* The gid, a group more: who can read what is another. */
	case 35: f->in.identity = "1000 100 1000"; break;
	case 36: f->in.identity = "1000 1000 27,1000"; break;
	case 37: f->in.settings = "s2"; break;
	case 38: f->in.settings = NULL; break;
	default: ck_abort();
	}
}
#define NCHANGES	39

START_TEST(t_key_inputs)
{
	struct key_fixture	 f;
	struct strv		 keys = STRV_INIT;
	char			*base, *k;
	int			 i;

	key_base(&f);
	base = cache_key(&f.in);
	ck_assert_uint_eq(strlen(base), 64);
	k = cache_key(&f.in);
	ck_assert_str_eq(k, base);
	free(k);
	strv_push(&keys, base);
	for (i = 0; i < NCHANGES; i++) {
		key_free(&f);
		key_base(&f);
		change(&f, i);
		k = cache_key(&f.in);
		if (strcmp(k, base) == 0)
			ck_abort_msg("change %d leaves the key as it was", i);
		strv_push(&keys, k);
		free(k);
	}
	/* And no two changes give the same key. */
	strv_sort_uniq(&keys);
	ck_assert_uint_eq(keys.n, NCHANGES + 1);
	free(base);
	strv_free(&keys);
	key_free(&f);
}
END_TEST

START_TEST(t_key_ignores)
{
	struct key_fixture	 f;
	char			*base, *k;

	key_base(&f);
	base = cache_key(&f.in);
	/* A variable not named, and the writable places uncontained. */
	f.environ[2] = "HOME=/elsewhere";
	f.environ[3] = "CCX=1";
	f.environ[4] = NULL;
	strv_push(&f.writable, "/w2");
	k = cache_key(&f.in);
	ck_assert_str_eq(k, base);
	free(k);
	/* Contained, they count. */
	f.in.contain = 1;
	k = cache_key(&f.in);
	free(base);
	base = cache_key(&f.in);
	strv_pop(&f.writable);
	free(k);
	k = cache_key(&f.in);
	ck_assert_str_ne(k, base);
	free(k);
	free(base);
	key_free(&f);
}
END_TEST

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
	tcase_add_test(tc, t_key_inputs);
	tcase_add_test(tc, t_key_ignores);
	tcase_add_test(tc, t_exact_key);
	tcase_add_test(tc, t_bounded);
	tcase_add_test(tc, t_bad_lines);
	tcase_add_test(tc, t_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(cache_suite)
