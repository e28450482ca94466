/* inputs: every setting of every repository, and who runs it, in the key. */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git.h"
#include "inputs.h"
#include "repo.h"
#include "strv.h"
#include "unit.h"
#include "unitfs.h"

static char		*top, *lib;
static struct strv	 nested = STRV_INIT;

#define GIT	"git -c user.name=t -c user.email=t@t -c protocol.file.allow=always"

/*
 * A repository with a submodule, lib, initialized; HOME and the system's
 * configuration out of the way, so that only what a test sets differs.
 */
static void
setup(void)
{
	char	*home, *src;

	ck_assert_int_eq(git_init(), 0);
	home = unitfs_dir("home");
	unitfs_home(home);
	src = unitfs_dir("libsrc");
	free(unitfs_sh_in(src, "git init -q . && echo l >l.txt && "
	    GIT " add l.txt && " GIT " commit -q -m l"));
	top = unitfs_dir("top");
	free(unitfs_sh_in(top, "git init -q . && echo t >t.txt && "
	    GIT " add t.txt && " GIT " commit -q -m t && "
	    GIT " submodule -q add %s lib && " GIT " commit -q -m lib", src));
	lib = NULL;
	if (asprintf(&lib, "%s/lib", top) == -1)
		ck_abort();
	strv_clear(&nested);
	strv_push(&nested, lib);
	ck_assert_int_eq(chdir(top), 0);
	free(home);
	free(src);
}

static char *
digest(void)
{
	struct repo	 r;
	char		*d;

	ck_assert_int_eq(repo_open(&r), 0);
	d = inputs_settings(&r, &nested);
	ck_assert_ptr_nonnull(d);
	repo_close(&r);
	return d;
}

/* Settings that change how a copy is checked out or what a step sees,
 * and one no table of forge's names: each is in the key. */
static const char *const flips[][2] = {
	{ "core.symlinks", "false" },
	{ "core.autocrlf", "true" },
	{ "core.eol", "crlf" },
	{ "core.safecrlf", "true" },
	{ "core.checkRoundtripEncoding", "UTF-16" },
	{ "core.attributesFile", "/nowhere/attributes" },
	{ "core.ignoreCase", "true" },
	{ "core.precomposeUnicode", "true" },
	{ "core.protectNTFS", "false" },
	{ "filter.crlf.smudge", "unix2dos" },
	{ "submodule.recurse", "true" },
	{ "nosuch.tablenames", "this" },
};
#define NFLIPS	(sizeof(flips) / sizeof(flips[0]))

START_TEST(t_settings_top_and_sub)
{
	char		*base, *d;
	const char	*where;
	size_t		 i;
	int		 w;

	setup();
	base = digest();
	d = digest();
	ck_assert_str_eq(d, base);
	free(d);
	for (i = 0; i < NFLIPS; i++)
		for (w = 0; w < 2; w++) {
			where = w == 0 ? top : lib;
			free(unitfs_sh_in(where, "git config %s %s",
			    flips[i][0], flips[i][1]));
			d = digest();
			if (strcmp(d, base) == 0)
				ck_abort_msg("%s in %s leaves the key as it "
				    "was", flips[i][0], w == 0 ? "the top "
				    "repository" : "the submodule");
			free(d);
			free(unitfs_sh_in(where, "git config --unset %s",
			    flips[i][0]));
			d = digest();
			ck_assert_str_eq(d, base);
			free(d);
		}
	free(base);
}
END_TEST

/* Every scope: global, an included file, the environment's. */
START_TEST(t_settings_scopes)
{
	char	*base, *d, *inc;

	setup();
	base = digest();
	free(unitfs_sh_in(top, "git config --global core.symlinks false"));
	d = digest();
	ck_assert_str_ne(d, base);
	free(d);
	free(unitfs_sh_in(top, "git config --global --unset core.symlinks"));
	inc = unitfs_dir("inc");
	free(unitfs_sh_in(top, "git config include.path %s/more", inc));
	free(unitfs_sh_in(inc, "printf '[core]\\n\\tautocrlf = false\\n' "
	    ">more"));
	d = digest();
	ck_assert_str_ne(d, base);
	free(base);
	base = d;
	free(unitfs_sh_in(inc, "printf '[core]\\n\\tautocrlf = true\\n' "
	    ">more"));
	d = digest();
	ck_assert_msg(strcmp(d, base) != 0, "an included file's change "
	    "leaves the key as it was");
	free(d);
	ck_assert_int_eq(setenv("GIT_CONFIG_COUNT", "1", 1), 0);
	ck_assert_int_eq(setenv("GIT_CONFIG_KEY_0", "core.eol", 1), 0);
	ck_assert_int_eq(setenv("GIT_CONFIG_VALUE_0", "crlf", 1), 0);
	d = digest();
	ck_assert_msg(!git_version_at_least(2, 31) || strcmp(d, base) != 0,
	    "a setting from the environment leaves the key as it was");
	free(d);
	unsetenv("GIT_CONFIG_COUNT");
	free(base);
	free(inc);
}
END_TEST

/* The attributes files each repository reads, the submodule's too. */
START_TEST(t_attributes)
{
	char	*base, *d;

	setup();
	base = digest();
	free(unitfs_sh_in(top, "mkdir -p \"$(git rev-parse --git-common-dir)"
	    "/modules/lib/info\" && printf '* eol=crlf\\n' "
	    ">\"$(git -C lib rev-parse --git-common-dir)/info/attributes\""));
	d = digest();
	ck_assert_msg(strcmp(d, base) != 0, "the submodule's "
	    "info/attributes leaves the key as it was");
	free(d);
	free(unitfs_sh_in(top, "rm \"$(git -C lib rev-parse "
	    "--git-common-dir)/info/attributes\""));
	d = digest();
	ck_assert_str_eq(d, base);
	free(d);
	free(unitfs_sh_in(top, "mkdir -p \"$HOME/.config/git\" && "
	    "printf '* text\\n' >\"$HOME/.config/git/attributes\""));
	d = digest();
	ck_assert_str_ne(d, base);
	free(d);
	free(base);
}
END_TEST

/* forge's own bookkeeping is left out, each setting with its reason. */
START_TEST(t_excluded)
{
	static const char *const out[] = { "forge.logSize", "forge.keep",
	    "forge.breakerThreshold", "forge.audit", "forge.reuseCopies",
	    "color.forge", NULL };
	char	*base, *d;
	size_t	 i;

	setup();
	base = digest();
	for (i = 0; out[i] != NULL; i++) {
		ck_assert_ptr_nonnull(inputs_excluded(out[i]));
		free(unitfs_sh_in(top, "git config %s 7", out[i]));
		d = digest();
		ck_assert_msg(strcmp(d, base) == 0, "%s changes the key",
		    out[i]);
		free(d);
	}
	ck_assert_ptr_null(inputs_excluded("forge.setupInputs"));
	ck_assert_ptr_null(inputs_excluded("core.symlinks"));
	ck_assert_ptr_null(inputs_excluded("forge.verifyx"));
	free(base);
}
END_TEST

/* The identity: the groups, sorted; a group more or less is another. */
START_TEST(t_identity)
{
	gid_t	 g1[] = { 0 }, g2[] = { 27, 0 }, g3[] = { 0, 27 };
	char	*a, *b, *c;

	if (geteuid() != 0)
		return;		/* setgroups(2) is root's */
	ck_assert_int_eq(setgroups(1, g1), 0);
	a = inputs_identity();
	ck_assert_int_eq(setgroups(2, g2), 0);
	b = inputs_identity();
	ck_assert_int_eq(setgroups(2, g3), 0);
	c = inputs_identity();
	ck_assert_str_ne(a, b);
	ck_assert_str_eq(b, c);
	ck_assert_int_eq(setgid(27), 0);
	free(a);
	a = inputs_identity();
	ck_assert_str_ne(a, c);
	free(a);
	free(b);
	free(c);
}
END_TEST

static Suite *
inputs_suite(void)
{
	Suite	*s = suite_create("inputs");
	TCase	*tc = tcase_create("inputs");

	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_settings_top_and_sub);
	tcase_add_test(tc, t_settings_scopes);
	tcase_add_test(tc, t_attributes);
	tcase_add_test(tc, t_excluded);
	tcase_add_test(tc, t_identity);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(inputs_suite)
