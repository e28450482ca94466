/*
 * git.c, against a stand-in for git: the command line and environment
 * every run gets, stdin and stdout, the one-line cause of a failure, the
 * retry when another git holds a lock, several gits at once, and
 * git_init()'s checks.
 */
#include "config.h"

#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "git.h"
#include "unitfs.h"

/*
 * The stand-in: it counts its runs, records its arguments, environment
 * and directory, and does what $FAKE_GIT says.
 */
static const char fake_git[] =
    "#!/bin/sh\n"
    "n=$(cat \"$FAKE_DIR/count\" 2>/dev/null || echo 0)\n"
    "n=$((n + 1))\n"
    "echo $n >\"$FAKE_DIR/count\"\n"
    "printf '%s\\n' \"$@\" >\"$FAKE_DIR/args\"\n"
    "env >\"$FAKE_DIR/env\"\n"
    "pwd -P >\"$FAKE_DIR/pwd\"\n"
    "for a; do last=$a; done\n"
    "case $FAKE_GIT in\n"
    "echo)\tcat; printf '|out'; exit 0 ;;\n"
    "status)\texit 3 ;;\n"
    "slow)\tsleep 0.3; exit 0 ;;\n"
    "records)\tawk 'BEGIN { for (i = 0; i < 50000; i++) "
    "printf \"rec%d%c\", i, 0; printf \"last\" }'; exit 0 ;;\n"
    "chatty)\tprintf 'hint: try this\\nerror: the cause\\nfatal: later\\n' "
    ">&2; exit 128 ;;\n"
    "plain)\tprintf 'warning: first\\n\\nthe last line\\n\\n' >&2; "
    "exit 1 ;;\n"
    "busy)\tif [ $n -le 2 ]; then printf 'partial'; printf \"fatal: "
    "Unable to create '/r/.git/index.lock': File exists.\\n\" >&2; "
    "exit 128; fi; printf done; exit 0 ;;\n"
    "meet)\t: >\"$FAKE_DIR/$last.here\"; o=a; [ $last = a ] && o=b\n"
    "\ti=0; while [ ! -e \"$FAKE_DIR/$o.here\" ] && [ $i -lt 100 ]; do\n"
    "\t\tsleep 0.05; i=$((i + 1)); done\n"
    "\tif [ -e \"$FAKE_DIR/$o.here\" ]; then printf '%s met %s, GIT_DIR=%s' "
    "$last $o \"$GIT_DIR\"; else printf '%s alone' $last; fi\n"
    "\techo \"err $last\" >&2; [ $last = a ]; exit $(($? * 3)) ;;\n"
    "old|new)\tcase $last in\n"
    "\tversion) if [ $FAKE_GIT = old ]; then echo 'git version 2.20.1'; "
    "else echo 'git version 2.39.5'; fi ;;\n"
    "\t--local-env-vars) printf 'GIT_DIR\\nGIT_FAKE_LOCAL\\n' ;;\n"
    "\tesac; exit 0 ;;\n"
    "esac\n"
    "exit 99\n";

static char	*fakedir;

/* Put the stand-in first on PATH, in a directory of its own. */
static void
use_fake_git(const char *mode)
{
	char	*p, *pathvar;

	free(fakedir);		/* a test may switch modes */
	fakedir = unitfs_dir("git");
	p = unitfs_path(fakedir, "git");
	unitfs_write(p, fake_git, 0755);
	free(p);
	ck_assert_int_ne(asprintf(&pathvar, "%s:%s", fakedir,
	    getenv("PATH") != NULL ? getenv("PATH") : "/bin:/usr/bin"), -1);
	ck_assert_int_eq(setenv("PATH", pathvar, 1), 0);
	free(pathvar);
	ck_assert_int_eq(setenv("FAKE_DIR", fakedir, 1), 0);
	ck_assert_int_eq(setenv("FAKE_GIT", mode, 1), 0);
}

static char *
fake_file(const char *name)
{
	char	*p, *text;

	p = unitfs_path(fakedir, name);
	text = unitfs_read(p, NULL);
	free(p);
	return text;
}

static int
runs(void)
{
	char	*text;
	int	 n;

	text = fake_file("count");
	n = atoi(text);
	free(text);
	return n;
}

/* Does the recorded environment hold this exact line? */
static int
env_has(const char *line)
{
	char	*env, *p;
	size_t	 len = strlen(line);
	int	 found = 0;

	env = fake_file("env");
	for (p = env; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p != NULL ? p + 1 : NULL)
		if (strncmp(p, line, len) == 0 && (p[len] == '\n' ||
		    p[len] == '\0'))
			found = 1;
	free(env);
	return found;
}

/* Does the recorded environment set this variable at all? */
static int
env_sets(const char *name)
{
	char	*env, *p;
	size_t	 len = strlen(name);
	int	 found = 0;

	env = fake_file("env");
	for (p = env; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p != NULL ? p + 1 : NULL)
		if (strncmp(p, name, len) == 0 && p[len] == '=')
			found = 1;
	free(env);
	return found;
}

START_TEST(t_run_io)
{
	const char *const	 a[] = { "hash-object", "--stdin", NULL };
	struct git		 g;
	struct buf		 in = BUF_INIT, out = BUF_INIT;
	char			*text, *dir, *real;

	use_fake_git("echo");
	dir = unitfs_dir("work");
	real = realpath(dir, NULL);
	buf_adds(&in, "to git's stdin");
	buf_adds(&out, "kept:");
	memset(&g, 0, sizeof(g));
	g.dir = dir;
	g.gitdir = "/r/.git";
	g.index = "/tmp/forge-x/index";
	ck_assert_int_eq(git_run(&g, a, 0, &in, &out, NULL), 0);
	ck_assert_str_eq(out.data, "kept:to git's stdin|out");
	/* The options every run gets, then ours. */
	text = fake_file("args");
	ck_assert_str_eq(text, "--no-optional-locks\n-c\ncore.fsmonitor=\n"
	    "-c\ncore.hooksPath=/dev/null\n-c\ncore.trustctime=true\n"
	    "-c\ncore.checkStat=default\n-c\ncore.splitIndex=false\n"
	    "hash-object\n--stdin\n");
	free(text);
	text = fake_file("pwd");
	ck_assert_int_eq(strncmp(text, real, strlen(real)), 0);
	free(text);
	ck_assert(env_has("GIT_DIR=/r/.git"));
	ck_assert(env_has("GIT_INDEX_FILE=/tmp/forge-x/index"));
	ck_assert(env_has("LC_ALL=C"));
	ck_assert(env_has("GIT_NO_REPLACE_OBJECTS=1"));
	ck_assert(!env_sets("GIT_WORK_TREE"));
	buf_free(&in);
	buf_free(&out);
	free(real);
	free(dir);
}
END_TEST

struct seen {
	size_t	n;
	size_t	stop_at;	/* 0: never */
	int	bad;
};

static int
record(const char *rec, size_t len, void *arg)
{
	struct seen	*s = arg;
	char		 want[32];

	if (s->n < 50000)
		snprintf(want, sizeof(want), "rec%zu", s->n);
	else
		snprintf(want, sizeof(want), "last");
	if (strlen(rec) != len || strcmp(rec, want) != 0)
		s->bad = 1;
	if (++s->n == s->stop_at)
		return -1;
	return 0;
}

/* git_each(): every record, in order, across the pipe's chunks, the
 * last one without its NUL too; a callback that says stop stops git. */
START_TEST(t_each)
{
	const char *const	 a[] = { "ls-files", "-z", NULL };
	struct git_each		 e;
	struct seen		 s;

	use_fake_git("records");
	memset(&s, 0, sizeof(s));
	e.fn = record;
	e.arg = &s;
	ck_assert_int_eq(git_each(NULL, a, &e, NULL), 0);
	ck_assert_uint_eq(s.n, 50001);
	ck_assert_int_eq(s.bad, 0);
	memset(&s, 0, sizeof(s));
	s.stop_at = 10;
	ck_assert_int_eq(git_each(NULL, a, &e, NULL), -1);
	ck_assert_uint_eq(s.n, 10);
	ck_assert_int_eq(s.bad, 0);
	/* git's own failure is its status, as with git_run(). */
	use_fake_git("status");
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(git_each(NULL, a, &e, NULL), 3);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* What a git hook (or the user) exported does not reach forge's git. */
START_TEST(t_run_scrubbed)
{
	const char *const	 a[] = { "status", NULL };
	struct git		 g;

	memset(&g, 0, sizeof(g));
	use_fake_git("echo");
	ck_assert_int_eq(setenv("GIT_DIR", "/evil/.git", 1), 0);
	ck_assert_int_eq(setenv("GIT_INDEX_FILE", "/evil/index", 1), 0);
	ck_assert_int_eq(setenv("GIT_WORK_TREE", "/evil", 1), 0);
	ck_assert_int_eq(setenv("GIT_DIFF_OPTS", "-u9", 1), 0);
	ck_assert_int_eq(setenv("GIT_EXTERNAL_DIFF", "evil", 1), 0);
	ck_assert_int_eq(setenv("LC_ALL", "fr_FR.UTF-8", 1), 0);
	ck_assert_int_eq(git_run(&g, a, 0, NULL, NULL, NULL), 0);
	ck_assert(!env_sets("GIT_DIR"));
	ck_assert(!env_sets("GIT_INDEX_FILE"));
	ck_assert(!env_sets("GIT_WORK_TREE"));
	ck_assert(!env_sets("GIT_DIFF_OPTS"));
	ck_assert(!env_sets("GIT_EXTERNAL_DIFF"));
	ck_assert(env_has("LC_ALL=C"));
	ck_assert(env_has("FAKE_GIT=echo"));
	/* Nor do the user's replace refs. */
	ck_assert_int_eq(setenv("GIT_NO_REPLACE_OBJECTS", "", 1), 0);
	ck_assert_int_eq(git_run(&g, a, 0, NULL, NULL, NULL), 0);
	ck_assert(env_has("GIT_NO_REPLACE_OBJECTS=1"));
	/* Unless the caller means it: finding the repository. */
	ck_assert_int_eq(git_run(NULL, a, GIT_USER_ENV, NULL, NULL, NULL), 0);
	ck_assert(env_has("GIT_DIR=/evil/.git"));
	ck_assert(env_has("LC_ALL=C"));
	ck_assert(env_has("GIT_NO_REPLACE_OBJECTS=1"));
	ck_assert_int_eq(unsetenv("GIT_NO_REPLACE_OBJECTS"), 0);
}
END_TEST

START_TEST(t_run_failures)
{
	const char *const	 a[] = { "diff", NULL };
	struct buf		 err = BUF_INIT, other = BUF_INIT;

	use_fake_git("status");
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, &err), 3);
	ck_assert_str_eq(git_why(&err, 3), "exit status 3");
	/* The first error: or fatal: line, without its prefix. */
	ck_assert_int_eq(setenv("FAKE_GIT", "chatty", 1), 0);
	buf_reset(&err);
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, &err), 128);
	ck_assert_str_eq(git_why(&err, 128), "the cause");
	/* Else the last line that says anything. */
	ck_assert_int_eq(setenv("FAKE_GIT", "plain", 1), 0);
	buf_reset(&err);
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, &err), 1);
	ck_assert_str_eq(git_why(&err, 1), "the last line");
	/* The caller's err gets all of it. */
	ck_assert_int_eq(setenv("FAKE_GIT", "chatty", 1), 0);
	buf_reset(&err);
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, &err), 128);
	ck_assert_str_eq(err.data, "hint: try this\nerror: the cause\n"
	    "fatal: later\n");
	/* And it is the caller's alone: another run, another buffer,
	 * leaves it as it was. */
	ck_assert_int_eq(setenv("FAKE_GIT", "plain", 1), 0);
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, &other), 1);
	ck_assert_str_eq(git_why(&err, 128), "the cause");
	ck_assert_str_eq(git_why(&other, 1), "the last line");
	/* Nothing said at all. */
	buf_reset(&err);
	ck_assert_str_eq(git_why(&err, 0), "no message");
	buf_free(&err);
	buf_free(&other);
}
END_TEST

/*
 * Several at once, each with its own output, error, status and
 * environment, and one that cannot start without the others minding:
 * and they do run at once, each waiting to meet the other.
 */
START_TEST(t_run_all)
{
	const char *const	 a[] = { "rev-parse", "a", NULL };
	const char *const	 b[] = { "rev-parse", "b", NULL };
	const char *const	 c[] = { "rev-parse", "c", NULL };
	struct buf		 oa = BUF_INIT, ea = BUF_INIT, ob = BUF_INIT;
	struct git		 nowhere;
	struct git_call		 calls[3];

	memset(&nowhere, 0, sizeof(nowhere));
	nowhere.dir = "/nonexistent/forge-test";
	use_fake_git("meet");
	ck_assert_int_eq(setenv("GIT_DIR", "/caller/.git", 1), 0);
	calls[0] = (struct git_call){ NULL, a, 0, &oa, &ea, 0 };
	calls[1] = (struct git_call){ &nowhere, c, 0, NULL, NULL, 0 };
	calls[2] = (struct git_call){ NULL, b, GIT_USER_ENV, &ob, NULL, 0 };
	git_run_all(calls, 3);
	ck_assert_int_eq(calls[0].status, 0);
	ck_assert_int_eq(calls[1].status, -1);
	ck_assert_int_eq(calls[2].status, 3);
	ck_assert_str_eq(buf_str(&oa), "a met b, GIT_DIR=");
	ck_assert_str_eq(buf_str(&ea), "err a\n");
	ck_assert_str_eq(buf_str(&ob), "b met a, GIT_DIR=/caller/.git");
	ck_assert_int_eq(unsetenv("GIT_DIR"), 0);
	buf_free(&oa);
	buf_free(&ea);
	buf_free(&ob);
}
END_TEST

static int	idle_calls;

static void
count_idle(void *arg)
{
	(void)arg;
	idle_calls++;
}

/* A job's git_finish() calls the git's idle hook as it waits, for other
 * work to move on meanwhile; a job without one waits all the same. */
START_TEST(t_finish_idle)
{
	const char *const	 a[] = { "status", NULL };
	struct spawn_idle	 id = { count_idle, NULL };
	struct git		 g;
	struct git_job		 j;
	char			*dir, *out, *err;

	use_fake_git("slow");
	dir = unitfs_dir("job");
	ck_assert_int_ne(asprintf(&out, "%s/out", dir), -1);
	ck_assert_int_ne(asprintf(&err, "%s/err", dir), -1);
	memset(&g, 0, sizeof(g));
	g.idle = &id;
	idle_calls = 0;
	ck_assert_int_eq(git_start(&j, &g, a, NULL, out, err), 0);
	ck_assert_int_eq(git_finish(&j), 0);
	ck_assert_int_gt(idle_calls, 0);
	g.idle = NULL;
	idle_calls = 0;
	ck_assert_int_eq(git_start(&j, &g, a, NULL, out, err), 0);
	ck_assert_int_eq(git_finish(&j), 0);
	ck_assert_int_eq(idle_calls, 0);
	free(out);
	free(err);
	free(dir);
}
END_TEST

START_TEST(t_run_not_found)
{
	const char *const	 a[] = { "status", NULL };
	char			*empty;

	empty = unitfs_dir("empty");
	ck_assert_int_eq(setenv("PATH", empty, 1), 0);
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, NULL, NULL), -1);
	free(empty);
}
END_TEST

/* Another git holds the index lock: wait and run again, and the output
 * is that of the run that worked, alone. */
START_TEST(t_run_retry)
{
	const char *const	 a[] = { "update-index", "--refresh", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;

	use_fake_git("busy");
	buf_adds(&out, "kept:");
	ck_assert_int_eq(git_run(NULL, a, GIT_RETRY, NULL, &out, &err), 0);
	ck_assert_int_eq(runs(), 3);
	ck_assert_str_eq(out.data, "kept:done");
	ck_assert_uint_eq(err.len, 0);
	buf_free(&out);
	buf_free(&err);
	/* Without GIT_RETRY, the first failure is the answer. */
	use_fake_git("busy");
	ck_assert_int_eq(git_run(NULL, a, 0, NULL, &out, &err), 128);
	ck_assert_int_eq(runs(), 1);
	ck_assert_str_eq(git_why(&err, 128), "Unable to create "
	    "'/r/.git/index.lock': File exists.");
	buf_free(&out);
	buf_free(&err);
}
END_TEST

START_TEST(t_init)
{
	struct strv	 env = STRV_INIT;
	char		*want;
	size_t		 i;
	int		 seen = 0;

	use_fake_git("new");
	ck_assert_int_eq(git_init(), 0);
	ck_assert_str_eq(git_version_string(), "git version 2.39.5");
	ck_assert(git_version_at_least(2, 33));
	ck_assert(git_version_at_least(1, 99));
	ck_assert(!git_version_at_least(2, 40));
	ck_assert(!git_version_at_least(3, 0));
	ck_assert_int_ne(asprintf(&want, "%s/git", fakedir), -1);
	ck_assert_str_eq(git_path(), want);
	free(want);
	/* What git says is local to a repository is what is unset. */
	git_unset_local(&env);
	for (i = 0; i < env.n; i++)
		seen |= strcmp(env.v[i], "GIT_FAKE_LOCAL") == 0;
	ck_assert(seen);
	strv_free(&env);
}
END_TEST

START_TEST(t_init_too_old)
{
	use_fake_git("old");
	ck_assert_int_eq(git_init(), -1);
}
END_TEST

START_TEST(t_init_missing)
{
	char	*empty;

	empty = unitfs_dir("empty");
	ck_assert_int_eq(setenv("PATH", empty, 1), 0);
	ck_assert_int_eq(git_init(), -1);
	free(empty);
}
END_TEST

static Suite *
gitcmd_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("gitcmd");
	tc = tcase_create("run");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_run_io);
	tcase_add_test(tc, t_each);
	tcase_add_test(tc, t_run_scrubbed);
	tcase_add_test(tc, t_run_failures);
	tcase_add_test(tc, t_run_all);
	tcase_add_test(tc, t_run_not_found);
	tcase_add_test(tc, t_finish_idle);
	tcase_add_test(tc, t_run_retry);
	tcase_add_test(tc, t_init);
	tcase_add_test(tc, t_init_too_old);
	tcase_add_test(tc, t_init_missing);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(gitcmd_suite)
