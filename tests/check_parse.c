/*
 * Everything forge reads that it did not write: its command line, git's
 * configuration output, git ls-files and git diff -z records, git's
 * version string and its lock messages.
 */
#include "config.h"

#include "unit.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "change.h"
#include "cmd.h"
#include "verify_opts.h"
#include "color.h"
#include "contain.h"
#include "git.h"
#include "json.h"
#include "settings.h"
#include "lsfiles.h"
#include "repo.h"
#include "strv.h"
#include "sum.h"
#include "xmalloc.h"

#define OID	"78981922613b2afb6025042ff6bd878ac1994e85"
#define EMPTY	"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

/* Records joined with NUL bytes, as git -z prints them; each record is
 * followed by its NUL. */
static size_t
zjoin(struct buf *b, const char *const *recs)
{
	buf_reset(b);
	for (; *recs != NULL; recs++)
		buf_add(b, *recs, strlen(*recs) + 1);
	return b->len;
}

/* verify_opts_parse */

/* o->argv points into the vector parsed: it must outlive the call. */
static int
vparse(struct verify_opts *o, const char *const *args)
{
	static char	*argv[16];
	int		 argc = 0;

	argv[argc++] = "verify";
	for (; *args != NULL; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return verify_opts_parse(argc, argv, o);
}

#define V(...)	((const char *const []){ __VA_ARGS__, NULL })

START_TEST(t_verify_defaults)
{
	struct verify_opts	o;

	ck_assert_int_eq(vparse(&o, (const char *const []){ NULL }), 0);
	ck_assert_int_eq(o.isolated, -1);
	ck_assert_int_eq(o.check, 1);
	ck_assert_int_eq(o.keep, -1);
	ck_assert_int_eq(o.verbose, 0);
	ck_assert_int_eq(o.timeout_ms, -1);
	ck_assert_ptr_null(o.change);
	ck_assert_ptr_null(o.argv);
}
END_TEST

/* A field of struct verify_opts, and what a parse leaves in it. */
enum { W_END, W_INT, W_LONG, W_STR, W_ARGV0 };
struct want {
	int		 kind;
	size_t		 off;
	long long	 n;
	const char	*s;		/* W_STR, W_ARGV0: NULL for none */
};

#define WI(f, v)	{ W_INT, offsetof(struct verify_opts, f), (v), NULL }
#define WL(f, v)	{ W_LONG, offsetof(struct verify_opts, f), (v), NULL }
#define WS(f, v)	{ W_STR, offsetof(struct verify_opts, f), 0, (v) }
#define WARGV(v)	{ W_ARGV0, 0, 0, (v) }

/* W_ARGV0 is of a struct verify_opts. */
static void
check_wants(const void *base, const struct want *w, size_t k)
{
	const struct verify_opts	*o = base;
	const char			*p, *got;

	for (; w->kind != W_END; w++) {
		p = (const char *)base + w->off;
		switch (w->kind) {
		case W_INT:
			ck_assert_msg(*(const int *)(const void *)p == w->n,
			    "case %zu: field at %zu is %d, not %lld", k,
			    w->off, *(const int *)(const void *)p, w->n);
			break;
		case W_LONG:
			ck_assert_msg(*(const long long *)(const void *)p ==
			    w->n, "case %zu: field at %zu is %lld, not %lld",
			    k, w->off, *(const long long *)(const void *)p,
			    w->n);
			break;
		case W_STR:
		case W_ARGV0:
			got = w->kind == W_STR ?
			    *(const char *const *)(const void *)p :
			    o->argv != NULL ? o->argv[0] : NULL;
			ck_assert_msg((got == NULL && w->s == NULL) ||
			    (got != NULL && w->s != NULL &&
			    strcmp(got, w->s) == 0), "case %zu: %s, not %s",
			    k, got != NULL ? got : "NULL",
			    w->s != NULL ? w->s : "NULL");
			break;
		}
	}
}

/* Each command line parses, and leaves these fields so. */
START_TEST(t_verify_options)
{
	const struct {
		const char *const	*args;
		struct want		 want[7];
	} cases[] = {
		{ V("--isolated", "--no-check", "--keep", "--timeout", "10m",
		    "--verbose"), { WI(isolated, 1), WI(check, 0),
		    WI(keep, KEEP_ALWAYS), WL(timeout_ms, 600000),
		    WI(verbose, 1), WARGV(NULL) } },
		{ V("-i", "-k", "-t", "90s", "-v"), { WI(isolated, 1),
		    WI(keep, KEEP_ALWAYS), WL(timeout_ms, 90000),
		    WI(verbose, 1) } },
		{ V("--timeout=1.5h", "-t0"), { WL(timeout_ms, 0) } },
		{ V("--in-place"), { WI(isolated, 0) } },
		/* The last of two says. */
		{ V("--in-place", "--isolated"), { WI(isolated, 1) } },
		{ V("--isolated", "--in-place"), { WI(isolated, 0) } },
		/* --keep is fine once --isolated has the last word. */
		{ V("--in-place", "--keep", "--isolated"),
		    { WI(keep, KEEP_ALWAYS) } },
		/* When: the value is attached with "=", and the last one
		 * says. */
		{ V("--keep=failure"), { WI(keep, KEEP_FAILURE) } },
		{ V("--keep=never", "--keep=always"),
		    { WI(keep, KEEP_ALWAYS) } },
		{ V("--keep=always", "--keep=never"),
		    { WI(keep, KEEP_NEVER) } },
		{ V("--keep", "failure"), { WI(keep, KEEP_ALWAYS),
		    WARGV("failure") } },
		/* Keeping nothing is no conflict with --in-place. */
		{ V("--keep=never", "--in-place"), { WI(keep, KEEP_NEVER) } },
		/* What the copy is made of. */
		{ V("--staged"), { WI(staged, 1), WS(rev, NULL),
		    WI(no_breaker, 0), WI(cache, -1) } },
		{ V("--rev=HEAD~2", "--no-breaker"), { WS(rev, "HEAD~2"),
		    WI(staged, 0), WI(no_breaker, 1) } },
		{ V("--rev", "main", "--isolated"), { WS(rev, "main") } },
		{ V("--cache"), { WI(cache, 1) } },
		{ V("--cache", "--no-cache"), { WI(cache, 0) } },
		{ V("--no-cache", "--cache"), { WI(cache, 1) } },
		/* After the command, they are the command's. */
		{ V("--", "make", "--staged"), { WI(staged, 0),
		    WARGV("make") } },
		/* Reused, incremental or not; --no-reuse ends both, and is
		 * a copy too. */
		{ V("--reuse"), { WI(reuse, 1), WI(isolated, 1) } },
		{ V("--incremental"), { WI(incremental, 1), WI(isolated, 1) } },
		{ V("--incremental", "--no-reuse"), { WI(reuse, 0),
		    WI(incremental, 0), WI(isolated, 1) } },
		{ V("--no-reuse"), { WI(reuse, 0), WI(isolated, 1) } },
		{ V("--clone"), { WI(clone, 1) } },
		{ V("--clone", "--worktree"), { WI(clone, 0) } },
		{ V("--setup", "--exit=verdict"), { WI(setup, 1),
		    WI(exit_verdict, 1) } },
		{ V("--exit=verdict", "--exit=status"),
		    { WI(exit_verdict, 0) } },
	};
	struct verify_opts	o;
	size_t			i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(vparse(&o, cases[i].args) == 0, "case %zu "
		    "refused", i);
		check_wants(&o, cases[i].want, i);
	}
}
END_TEST

/* The command's options are its own. */
START_TEST(t_verify_command)
{
	struct verify_opts	o;

	ck_assert_int_eq(vparse(&o, V("--isolated", "--", "make", "-j4")), 0);
	ck_assert_ptr_nonnull(o.argv);
	ck_assert_str_eq(o.argv[0], "make");
	ck_assert_str_eq(o.argv[1], "-j4");
	ck_assert_ptr_null(o.argv[2]);
	ck_assert_int_eq(o.isolated, 1);
	/* Without "--", the first word that is not an option starts it. */
	ck_assert_int_eq(vparse(&o, V("-i", "make", "-j4", "--keep", "-t",
	    "bogus")), 0);
	ck_assert_str_eq(o.argv[0], "make");
	ck_assert_str_eq(o.argv[2], "--keep");
	ck_assert_int_eq(o.keep, -1);
	ck_assert_int_eq(o.timeout_ms, -1);
	/* After "--", even forge's own options are the command's. */
	ck_assert_int_eq(vparse(&o, V("--", "--isolated", "--", "x")), 0);
	ck_assert_int_eq(o.isolated, -1);
	ck_assert_str_eq(o.argv[0], "--isolated");
	ck_assert_str_eq(o.argv[1], "--");
	ck_assert_str_eq(o.argv[2], "x");
	/* "--" and nothing: no command. */
	ck_assert_int_eq(vparse(&o, V("--keep", "--")), 0);
	ck_assert_ptr_null(o.argv);
	/* "-" is a word, not an option. */
	ck_assert_int_eq(vparse(&o, V("-", "x")), 0);
	ck_assert_str_eq(o.argv[0], "-");
	/* POSIXLY_CORRECT or not, nothing is permuted. */
	ck_assert_int_eq(setenv("POSIXLY_CORRECT", "1", 1), 0);
	ck_assert_int_eq(vparse(&o, V("sh", "-c", "exit 0")), 0);
	ck_assert_str_eq(o.argv[1], "-c");
	ck_assert_int_eq(unsetenv("POSIXLY_CORRECT"), 0);
}
END_TEST

START_TEST(t_verify_change)
{
	struct verify_opts	o;

	ck_assert_int_eq(vparse(&o, V("--change")), 0);
	ck_assert_str_eq(o.change, "HEAD");
	ck_assert_int_eq(vparse(&o, V("--change=origin/main")), 0);
	ck_assert_str_eq(o.change, "origin/main");
	ck_assert_ptr_null(o.argv);
	/* The base is attached with "=", never the next word: that is the
	 * command. */
	ck_assert_int_eq(vparse(&o, V("--change", "origin/main")), 0);
	ck_assert_str_eq(o.change, "HEAD");
	ck_assert_str_eq(o.argv[0], "origin/main");
	ck_assert_int_eq(vparse(&o, V("--change=")), -1);
}
END_TEST

/* What a --rev or --change value is, by its syntax. */
START_TEST(t_rev_kind)
{
	static const struct {
		const char	*rev;
		enum rev_kind	 kind;
	} cases[] = {
		{ "HEAD", REV_ONE },
		{ "HEAD~2", REV_ONE },
		{ "HEAD^2", REV_ONE },
		{ "main@{1}", REV_ONE },
		{ "@{-1}", REV_ONE },
		{ "main@{2 days ago}", REV_ONE },
		{ "HEAD@{a..b}", REV_ONE },	/* ".." in braces is theirs */
		{ "v1.0^{commit}", REV_ONE },
		{ "HEAD^{/fix..bug}", REV_ONE },
		{ "HEAD^{/a}..b}", REV_ONE },	/* the pattern holds it all */
		{ ":/fix..bug", REV_ONE },
		{ "HEAD:a..b", REV_ONE },	/* a path: not a commit */
		{ "HEAD^-x", REV_ONE },		/* no such thing */
		{ "0123456789abcdef0123456789abcdef01234567", REV_ONE },
		{ "", REV_EMPTY },
		{ "-n", REV_OPTION },
		{ "--all", REV_OPTION },
		{ "--", REV_OPTION },
		{ "^HEAD", REV_NEGATED },
		{ "^HEAD~1", REV_NEGATED },
		{ "A..B", REV_RANGE },
		{ "A...B", REV_RANGE },
		{ "..B", REV_RANGE },
		{ "A..", REV_RANGE },
		{ "...", REV_RANGE },
		{ "main@{u}..HEAD", REV_RANGE },
		{ "HEAD^{tree}..x", REV_RANGE },
		{ "HEAD^@", REV_PARENTS },
		{ "HEAD^!", REV_PARENTS },
		{ "HEAD^-", REV_PARENTS },
		{ "HEAD^-2", REV_PARENTS },
		{ "HEAD~3^-1", REV_PARENTS },
	};
	struct verify_opts	o;
	size_t			i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(repo_rev_kind(cases[i].rev) == cases[i].kind,
		    "%s: kind %d, want %d", cases[i].rev,
		    (int)repo_rev_kind(cases[i].rev), (int)cases[i].kind);
		ck_assert_ptr_nonnull(repo_rev_kind_name(cases[i].kind));
		/* --change takes one revision, and nothing else; --rev
		 * a range too, each of its commits in turn. */
		if (cases[i].kind == REV_EMPTY)
			continue;
		{
			char	*rev = NULL, *change = NULL;

			rev = xasprintf("--rev=%s", cases[i].rev);
			change = xasprintf("--change=%s", cases[i].rev);
			ck_assert_int_eq(vparse(&o, V(rev)),
			    cases[i].kind == REV_ONE ||
			    cases[i].kind == REV_RANGE ? 0 : -1);
			ck_assert_int_eq(o.range, cases[i].kind == REV_RANGE);
			ck_assert_int_eq(vparse(&o, V(change)),
			    cases[i].kind == REV_ONE ? 0 : -1);
			free(rev);
			free(change);
		}
	}
	/* Given apart, "--rev X" takes X whatever it looks like. */
	ck_assert_int_eq(vparse(&o, V("--rev", "--all")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev", "^HEAD")), -1);
	/* Two revisions are two commits; the same one twice is one. */
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--rev=HEAD~1")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--rev=HEAD")), 0);
	ck_assert_int_eq(vparse(&o, V("--change=HEAD~1", "--change")), -1);
	ck_assert_int_eq(vparse(&o, V("--change", "--change=HEAD")), 0);
	/* A range and a commit, or two ranges, are two things. */
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--rev=HEAD")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--rev=A..B")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--rev=A..C")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--rev=A..B")), 0);
	/* What only a range has. */
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--keep-going",
	    "--first-parent", "-j", "4")), 0);
	ck_assert_int_eq(o.keep_going && o.first_parent && o.jobs == 4, 1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--bisect")), 0);
	ck_assert_int_eq(o.bisect, 1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B")), 0);
	ck_assert_int_eq(o.jobs, 1);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--keep-going")), -1);
	ck_assert_int_eq(vparse(&o, V("--bisect")), -1);
	ck_assert_int_eq(vparse(&o, V("--first-parent")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--jobs", "2")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--jobs", "0")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--jobs", "65")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--bisect",
	    "--keep-going")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--bisect", "-j2")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--keep")), -1);
	/* A range's copy goes on incrementally; it is never parked.  One
	 * commit's copy is parked and reused, as the working state's. */
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--incremental")), 0);
	ck_assert_int_eq(vparse(&o, V("--rev=A..B", "--reuse")), -1);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--incremental")), 0);
	ck_assert_int_eq(vparse(&o, V("--rev=HEAD", "--reuse")), 0);
	ck_assert_int_eq(vparse(&o, V("--staged", "--incremental")), 0);
}
END_TEST

START_TEST(t_verify_bad)
{
	const char *const *const bad[] = {
		V("--timeout", "abc"),
		V("--timeout", "-1"),
		V("--timeout=1x"),
		V("-t", ""),
		V("--timeout"),
		V("-t"),
		V("--bogus"),
		V("-x"),
		V("--keep", "--in-place"),
		V("--in-place", "--keep"),
		V("-k", "--in-place", "--", "make"),
		V("--no-check=yes"),
		V("--isolated=1"),
		V("--keep=sometimes"),
		V("--keep="),
		V("--keep=failure", "--in-place"),
		V("--contain", "--in-place"),
		V("--in-place", "--contain"),
		/* Two trees, a copy's tree in place, or the working state's
		 * change report. */
		V("--staged", "--rev=HEAD"),
		V("--staged", "--in-place"),
		V("--rev=HEAD", "--in-place"),
		V("--staged", "--change"),
		V("--rev="),
		V("--exit=bogus"),
		V("--exit"),
		V("--no-reuse", "--incremental"),
		V("--clone", "--in-place"),
		V("--clone", "--staged"),
		V("--reuse", "--in-place"),
		V("--no-reuse", "--in-place"),
		V("--in-place", "--no-reuse"),
	};
	struct verify_opts	o;
	size_t			i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(vparse(&o, bad[i]) == -1, "case %zu accepted",
		    i);
	/* And a good one after the bad ones still parses from scratch. */
	ck_assert_int_eq(vparse(&o, V("-k", "--", "true")), 0);
	ck_assert_int_eq(o.keep, KEEP_ALWAYS);
	ck_assert_str_eq(o.argv[0], "true");
}
END_TEST

/* A conflict the settings may make is decided where they are known too,
 * by the same rule: --keep, or containment, in place. */
START_TEST(t_verify_conflicts)
{
	struct verify_opts	o;

	ck_assert_int_eq(vparse(&o, V("--keep")), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 1, 0), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 0), -1);
	ck_assert_int_eq(vparse(&o, V("--keep=never")), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 0), 0);
	ck_assert_int_eq(vparse(&o, V("--contain")), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 1, 1), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 1), -1);
	/* forge.contain, in place. */
	ck_assert_int_eq(vparse(&o, V("true")), 0);
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 1), -1);
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 0), 0);
	/* --reuse makes it isolated: no conflict left for later; and so
	 * does --no-reuse, whatever forge.isolated says. */
	ck_assert_int_eq(vparse(&o, V("--reuse")), 0);
	ck_assert_int_eq(o.isolated, 1);
	ck_assert_int_eq(vparse(&o, V("--no-reuse")), 0);
	ck_assert_int_eq(o.isolated, 1);
	ck_assert_int_eq(verify_opts_conflicts(&o, o.isolated, 0), 0);
	/* The option is refused in place, not the rule: an audit's fresh
	 * run in place reuses nothing either. */
	ck_assert_int_eq(verify_opts_conflicts(&o, 0, 0), 0);
}
END_TEST

START_TEST(t_verify_help)
{
	struct verify_opts	o;

	(void)vparse(&o, V("--help"));
}
END_TEST

/* cmd.c: a command's table of options, parsed and printed */

struct toy {
	int		 flag;
	int		 bits;
	const char	*name;
	const char	*opt;		/* "none": given without a value */
	const char	*wide;
};

static int
toy_opt(void *opts, const char *arg)
{
	struct toy	*t = opts;

	if (arg != NULL && strcmp(arg, "bad") == 0)
		return -1;
	t->opt = arg != NULL ? arg : "none";
	return 0;
}

static const struct cmd_opt toy_opts[] = {
	CMD_FLAG("on", 'o', offsetof(struct toy, flag), 1, 0, "turn it on"),
	CMD_FLAG("off", 0, offsetof(struct toy, flag), 0, CMD_OR,
	    "turn it off,\nwhatever came before"),
	CMD_BITS("alpha", 'a', offsetof(struct toy, bits), 1, CMD_BREAK,
	    "bit one"),
	CMD_BITS("beta", 0, offsetof(struct toy, bits), 2, 0, "bit two"),
	CMD_STRING("name", 'n', "name", offsetof(struct toy, name),
	    CMD_UNLISTED, "a name"),
	CMD_CALL("opt", 'p', optional_argument, "value", "V", toy_opt,
	    0, "an optional value"),
	CMD_STRING("a-rather-wide-one", 0, "argument",
	    offsetof(struct toy, wide), CMD_EQ | CMD_BREAK,
	    "too wide for its column"),
	CMD_END
};

static const struct cmd_entry toy_entry = {
	"toy", "[file ...]", "Toy.\n", toy_opts, NULL
};

/* Parse args after "toy": what cmd_parse() returns. */
static int
toy_parse(struct toy *t, const char *const *args)
{
	static char	*argv[16];
	int		 argc = 0;

	memset(t, 0, sizeof(*t));
	argv[argc++] = "toy";
	for (; *args != NULL; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return cmd_parse(&toy_entry, argc, argv, t);
}

START_TEST(t_cmd_parse)
{
	const struct {
		const char *const	*args;
		int			 ret;		/* operand or -1 */
		int			 flag, bits;
		const char		*name, *opt;
	} cases[] = {
		{ V("--on", "-a", "--beta", "--name", "x", "file"), 6, 1, 3,
		    "x", NULL },
		{ V("-o", "--off"), 3, 0, 0, NULL, NULL },
		/* A letter help does not list works all the same. */
		{ V("-n", "y", "-a", "-a"), 5, 0, 1, "y", NULL },
		/* An optional value is attached, never the letter's. */
		{ V("--opt"), 2, 0, 0, NULL, "none" },
		{ V("--opt=v"), 2, 0, 0, NULL, "v" },
		{ V("-p", "v"), 2, 0, 0, NULL, "none" },
		/* Abbreviated, as getopt_long takes them. */
		{ V("--na", "z", "--al"), 4, 0, 1, "z", NULL },
		/* The first operand, or "--", ends the options. */
		{ V("file", "--on"), 1, 0, 0, NULL, NULL },
		{ V("--", "--on"), 2, 0, 0, NULL, NULL },
		{ V("--opt=bad"), -1, 0, 0, NULL, NULL },
		{ V("--nope"), -1, 0, 0, NULL, NULL },
		{ V("-z"), -1, 0, 0, NULL, NULL },
		{ V("--on=1"), -1, 0, 0, NULL, NULL },
		{ V("--name"), -1, 0, 0, NULL, NULL },
		/* Help, wherever it is, before anything is wrong. */
		{ V("-h"), CMD_HELP, 0, 0, NULL, NULL },
		{ V("--on", "--help", "--nope"), CMD_HELP, 1, 0, NULL, NULL },
	};
	struct toy	t;
	size_t		i;
	int		r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = toy_parse(&t, cases[i].args);
		ck_assert_msg(r == cases[i].ret, "case %zu: %d, not %d", i, r,
		    cases[i].ret);
		if (r < 0 && r != CMD_HELP)
			continue;
		ck_assert_int_eq(t.flag, cases[i].flag);
		ck_assert_int_eq(t.bits, cases[i].bits);
		ck_assert_pstr_eq(t.name, cases[i].name);
		ck_assert_pstr_eq(t.opt, cases[i].opt);
	}
}
END_TEST

/* The synopsis and the option lines, as --help prints them. */
START_TEST(t_cmd_help)
{
	char	 buf[2048];
	FILE	*f;
	size_t	 n;
	int	 saved;

	ck_assert_ptr_nonnull(f = tmpfile());
	fflush(stdout);
	ck_assert_int_ne(saved = dup(STDOUT_FILENO), -1);
	ck_assert_int_ne(dup2(fileno(f), STDOUT_FILENO), -1);
	cmd_help(&toy_entry);
	fflush(stdout);
	ck_assert_int_ne(dup2(saved, STDOUT_FILENO), -1);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_str_eq(buf,
	    "usage: forge toy [--on | --off]\n"
	    "                 [--alpha] [--beta] [--name name] "
	    "[--opt[=value]]\n"
	    "                 [--a-rather-wide-one=argument] [file ...]\n"
	    "\n"
	    "Toy.\n"
	    "\n"
	    "  -o, --on            turn it on\n"
	    "      --off           turn it off,\n"
	    "                      whatever came before\n"
	    "  -a, --alpha         bit one\n"
	    "      --beta          bit two\n"
	    "      --name name     a name\n"
	    "  -p, --opt[=V]       an optional value\n"
	    "      --a-rather-wide-one=argument\n"
	    "                      too wide for its column\n");
}
END_TEST

/* settings_apply, settings_bool */

static int
apply(struct settings *c, const char *const *recs, int *set)
{
	struct buf	b = BUF_INIT;
	int		r;

	zjoin(&b, recs);
	r = settings_apply(c, b.data != NULL ? b.data : "", b.len, "test",
	    set);
	buf_free(&b);
	return r;
}

#define SI(f, v)	{ W_INT, offsetof(struct settings, f), (v), NULL }
#define SL(f, v)	{ W_LONG, offsetof(struct settings, f), (v), NULL }

/* What settings_init() takes from the rows, as forge(1) documents it. */
START_TEST(t_settings_defaults)
{
	const struct want	want[] = {
		SI(isolated, 0), SI(reuse, 0), SI(incremental, 0),
		SI(reuse_copies, 2), SI(cache, 0), SI(clone, 0),
		SL(refs_expiry_ms, 30LL * 24 * 3600 * 1000), SL(timeout_ms, 0),
		SL(grace_ms, 5000), SI(threshold, 3),
		SL(timeline_max, 10 << 20), SI(keep, KEEP_NEVER),
		SL(reuse_expiry_ms, 7LL * 24 * 3600 * 1000),
		SL(copy_threshold, 1 << 20), SI(color, COLOR_AUTO),
		SI(color_forge, -1), SI(color_ui, -1), SI(contain, 0),
		SI(contain_method, CONTAIN_METHOD_AUTO),
		{ W_END, 0, 0, NULL }
	};
	struct settings	c;
	int		set = -1;

	settings_init(&c);
	check_wants(&c, want, 0);
	ck_assert_uint_eq(c.verify.n, 0);
	ck_assert_uint_eq(c.setup.n, 0);
	ck_assert_uint_eq(c.contain_writable.n, 0);
	ck_assert_str_eq(c.cache_env.v[0], "PATH");
	ck_assert_ptr_null(c.verify_from);
	ck_assert_int_eq(settings_apply(&c, "", 0, "test", &set), 0);
	ck_assert_int_eq(set, 0);
	ck_assert_int_eq(c.threshold, 3);
	settings_free(&c);
}
END_TEST

START_TEST(t_settings_verify)
{
	struct settings	c;
	int		set;

	settings_init(&c);
	ck_assert_int_eq(apply(&c, V("forge.verify\nmake -j4",
	    "forge.verify\nmake check"), &set), 0);
	ck_assert_int_eq(set, 1);
	ck_assert_uint_eq(c.verify.n, 2);
	ck_assert_str_eq(c.verify.v[0], "make -j4");
	ck_assert_str_eq(c.verify.v[1], "make check");
	/* A layer without forge.verify leaves the steps alone. */
	ck_assert_int_eq(apply(&c, V("forge.timeout\n1m"), &set), 0);
	ck_assert_int_eq(set, 0);
	ck_assert_uint_eq(c.verify.n, 2);
	/* A layer with it replaces the list as a whole. */
	ck_assert_int_eq(apply(&c, V("forge.verify\nnpm test"), &set), 0);
	ck_assert_int_eq(set, 1);
	ck_assert_uint_eq(c.verify.n, 1);
	ck_assert_str_eq(c.verify.v[0], "npm test");
	/* An empty value clears what came before it; so does a bare key. */
	ck_assert_int_eq(apply(&c, V("forge.verify\na", "forge.verify\n",
	    "forge.verify\nb", "forge.verify\nc"), &set), 0);
	ck_assert_uint_eq(c.verify.n, 2);
	ck_assert_str_eq(c.verify.v[0], "b");
	ck_assert_int_eq(apply(&c, V("forge.verify\na", "forge.verify"),
	    &set), 0);
	ck_assert_uint_eq(c.verify.n, 0);
	/* A value keeps its newlines. */
	ck_assert_int_eq(apply(&c, V("forge.verify\nmake &&\nmake check"),
	    &set), 0);
	ck_assert_str_eq(c.verify.v[0], "make &&\nmake check");
	settings_free(&c);
}
END_TEST

START_TEST(t_settings_isolated)
{
	static const struct {
		const char	*rec;
		int		 want;
	} cases[] = {
		{ "forge.isolated", 1 },	/* "[forge] isolated" */
		{ "forge.isolated\n", 0 },	/* "isolated =" */
		{ "forge.isolated\ntrue", 1 }, { "forge.isolated\nTrue", 1 },
		{ "forge.isolated\nyes", 1 }, { "forge.isolated\non", 1 },
		{ "forge.isolated\n1", 1 }, { "forge.isolated\nfalse", 0 },
		{ "forge.isolated\nNO", 0 }, { "forge.isolated\noff", 0 },
		{ "forge.isolated\n0", 0 },
	};
	struct settings	c;
	size_t		i;
	int		set;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		settings_init(&c);
		c.isolated = !cases[i].want;
		ck_assert_int_eq(apply(&c, V(cases[i].rec), &set), 0);
		ck_assert_msg(c.isolated == cases[i].want, "%s: %d",
		    cases[i].rec, c.isolated);
		settings_free(&c);
	}
	settings_init(&c);
	ck_assert_int_eq(apply(&c, V("forge.isolated\ntrue",
	    "forge.isolated\nfalse"), &set), 0);
	ck_assert_int_eq(c.isolated, 0);
	ck_assert_int_eq(apply(&c, V("forge.isolated\nmaybe"), &set), -1);
	ck_assert_int_eq(c.isolated, 0);
	settings_free(&c);
}
END_TEST

/* The parse forge.reuseExpiry's row uses, on its own. */
START_TEST(t_settings_reuse_expiry)
{
	ck_assert(settings_reuse_expiry("7d") == DEFAULT_REUSE_EXPIRY_MS);
	ck_assert(settings_reuse_expiry("NEVER") == REUSE_EXPIRY_NEVER);
	ck_assert(settings_reuse_expiry("0") == 0);
	ck_assert(settings_reuse_expiry("") == -2);
	ck_assert(settings_reuse_expiry("-1d") == -2);
	ck_assert(settings_reuse_expiry(NULL) == -2);
}
END_TEST

START_TEST(t_settings_bool)
{
	ck_assert_int_eq(settings_bool(NULL), 1);
	ck_assert_int_eq(settings_bool("TRUE"), 1);
	ck_assert_int_eq(settings_bool("Yes"), 1);
	ck_assert_int_eq(settings_bool("oN"), 1);
	ck_assert_int_eq(settings_bool("1"), 1);
	ck_assert_int_eq(settings_bool(""), 0);
	ck_assert_int_eq(settings_bool("False"), 0);
	ck_assert_int_eq(settings_bool("no"), 0);
	ck_assert_int_eq(settings_bool("OFF"), 0);
	ck_assert_int_eq(settings_bool("0"), 0);
	ck_assert_int_eq(settings_bool("maybe"), -1);
	ck_assert_int_eq(settings_bool(" true"), -1);
	ck_assert_int_eq(settings_bool("true "), -1);
	ck_assert_int_eq(settings_bool("y"), -1);
}
END_TEST

/* git takes any integer as a boolean (0 false, else true), as
 * `git config --type=bool` shows; forge must read the same config the
 * same way. */
START_TEST(t_settings_bool_integers)
{
	ck_assert_int_eq(settings_bool("2"), 1);
	ck_assert_int_eq(settings_bool("-1"), 1);
	ck_assert_int_eq(settings_bool("010"), 1);
	ck_assert_int_eq(settings_bool("00"), 0);
}
END_TEST

/* Each layer is taken, and leaves these fields so. */
START_TEST(t_settings_values)
{
	const struct {
		const char *const	*recs;
		struct want		 want[3];
	} cases[] = {
		{ V("forge.timeout\n10m"), { SL(timeout_ms, 600000) } },
		{ V("forge.timeout\n0"), { SL(timeout_ms, 0) } },
		{ V("forge.killafter\n2.5s"), { SL(grace_ms, 2500) } },
		{ V("forge.refsexpiry\n1d"), { SL(refs_expiry_ms, 86400000) } },
		{ V("forge.breakerthreshold\n5"), { SI(threshold, 5) } },
		{ V("forge.breakerthreshold\n0"), { SI(threshold, 0) } },
		{ V("forge.breakerthreshold\n1000000"),
		    { SI(threshold, 1000000) } },
		{ V("forge.reusecopies\n0"), { SI(reuse_copies, 0) } },
		{ V("forge.reusecopies\n64"), { SI(reuse_copies, 64) } },
		{ V("forge.timelinemaxsize\n1m"),
		    { SL(timeline_max, 1 << 20) } },
		{ V("forge.timelinemaxsize\n4k"), { SL(timeline_max, 4096) } },
		{ V("forge.copythreshold\n512k"),
		    { SL(copy_threshold, 512 << 10) } },
		{ V("forge.copythreshold\n0"), { SL(copy_threshold, 0) } },
		{ V("forge.contain\nyes"), { SI(contain, 1) } },
		{ V("forge.reuse"), { SI(reuse, 1) } },
		{ V("forge.incremental\non", "forge.cache\n1"),
		    { SI(incremental, 1), SI(cache, 1) } },
		{ V("forge.isolation\nclone"), { SI(clone, 1) } },
		{ V("forge.isolation\nclone", "forge.isolation\nworktree"),
		    { SI(clone, 0) } },
		{ V("forge.keep\nfailure"), { SI(keep, KEEP_FAILURE) } },
		{ V("forge.keep\nAlways"), { SI(keep, KEEP_ALWAYS) } },
		{ V("forge.keep\nalways", "forge.keep\nnever"),
		    { SI(keep, KEEP_NEVER) } },
		/* A boolean, as git would read one: true is always. */
		{ V("forge.keep"), { SI(keep, KEEP_ALWAYS) } },
		{ V("forge.keep\nalways", "forge.keep\nfalse"),
		    { SI(keep, KEEP_NEVER) } },
		{ V("forge.reuseexpiry\n12h"),
		    { SL(reuse_expiry_ms, 12LL * 3600 * 1000) } },
		{ V("forge.reuseexpiry\nnever"),
		    { SL(reuse_expiry_ms, REUSE_EXPIRY_NEVER) } },
		{ V("forge.reuseexpiry\n2d"),
		    { SL(reuse_expiry_ms, 2LL * 24 * 3600 * 1000) } },
		/* 0: whatever is unused now goes at the next gc. */
		{ V("forge.reuseexpiry\n0"), { SL(reuse_expiry_ms, 0) } },
	};
	struct settings	c;
	size_t		i;
	int		set;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		settings_init(&c);
		ck_assert_msg(apply(&c, cases[i].recs, &set) == 0,
		    "case %zu refused", i);
		check_wants(&c, cases[i].want, i);
		settings_free(&c);
	}
}
END_TEST

START_TEST(t_settings_bad)
{
	static const char *const bad[] = {
		"forge.timeout", "forge.timeout\n", "forge.timeout\nsoon",
		"forge.timeout\n-1", "forge.timeout\n101d",
		"forge.killafter", "forge.killafter\n0", "forge.killafter\n0s",
		"forge.killafter\nx",
		"forge.breakerthreshold", "forge.breakerthreshold\n",
		"forge.breakerthreshold\n-1", "forge.breakerthreshold\nthree",
		"forge.breakerthreshold\n1000001",
		"forge.breakerthreshold\n3 ",
		"forge.timelinemaxsize", "forge.timelinemaxsize\n4095",
		"forge.timelinemaxsize\n1k", "forge.timelinemaxsize\nbig",
		"forge.isolated\n2x", "forge.keep\nfailures",
		"forge.reuseexpiry\nsoon", "forge.reuseexpiry",
		"forge.reuseexpiry\n", "forge.reuseexpiry\n-1d",
		"forge.reusecopies\n65", "forge.reusecopies",
		"forge.isolation\nClone", "forge.isolation",
		"forge.refsexpiry\n0", "forge.copythreshold\n1x",
		"forge.cacheenv\n1BAD", "forge.cacheenv\nA B*C",
	};
	struct settings	c, before;
	size_t		i;
	int		set;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		settings_init(&c);
		memcpy(&before, &c, sizeof(c));
		ck_assert_msg(apply(&c, V(bad[i]), &set) == -1,
		    "accepted: %s", bad[i]);
		/* A bad value changes nothing. */
		ck_assert_msg(memcmp(&before, &c, sizeof(c)) == 0,
		    "changed by: %s", bad[i]);
		settings_free(&c);
	}
	/* One bad value spoils the layer, wherever it is. */
	settings_init(&c);
	ck_assert_int_eq(apply(&c, V("forge.timeout\nsoon",
	    "forge.breakerthreshold\n4"), &set), -1);
	settings_free(&c);
}
END_TEST

START_TEST(t_settings_unknown)
{
	struct settings	c;
	int		set;

	settings_init(&c);
	/* git lower-cases the section and the key; anything else is not
	 * ours to understand, and only warned about. */
	ck_assert_int_eq(apply(&c, V("forge.colour\nblue", "forge.verbose",
	    "forge.killAfter\n1s", "forge.verify.extra\nx",
	    "forge.breakerthreshold\n4"), &set), 0);
	ck_assert_int_eq(c.grace_ms, 5000);
	ck_assert_int_eq(c.threshold, 4);
	ck_assert_uint_eq(c.verify.n, 0);
	ck_assert_int_eq(set, 0);
	settings_free(&c);
}
END_TEST

/* The core.* settings a copy is made by: kept as git listed them, in
 * order, for snapshot.c; no other core.* key. */
START_TEST(t_settings_core)
{
	struct settings	c;
	int		set;

	settings_init(&c);
	ck_assert_int_eq(apply(&c, V("core.filemode\nfalse", "core.autocrlf",
	    "forge.timeout\n1m", "core.bare\ntrue",
	    "core.attributesfile\n/a"), &set), 0);
	ck_assert_uint_eq(c.core.len, strlen("core.filemode\nfalse") + 1 +
	    strlen("core.autocrlf") + 1 + strlen("core.attributesfile\n/a") +
	    1);
	ck_assert_str_eq(c.core.data, "core.filemode\nfalse");
	ck_assert_str_eq(c.core.data + strlen("core.filemode\nfalse") + 1,
	    "core.autocrlf");
	ck_assert_int_eq(c.timeout_ms, 60000);
	settings_free(&c);
}
END_TEST

/* Colour: color.forge over color.ui, whatever their order; git's values
 * and booleans; a bad value ignored, never an error. */
START_TEST(t_settings_color)
{
	struct settings	c;
	int		set;

	settings_init(&c);
	ck_assert_int_eq(c.color, COLOR_AUTO);
	ck_assert_int_eq(apply(&c, V("color.ui\nnever"), &set), 0);
	ck_assert_int_eq(c.color, COLOR_NEVER);
	ck_assert_int_eq(apply(&c, V("color.forge\nAlways", "color.ui\nauto"),
	    &set), 0);
	ck_assert_int_eq(c.color, COLOR_ALWAYS);
	ck_assert_int_eq(apply(&c, V("color.forge\nfalse"), &set), 0);
	ck_assert_int_eq(c.color, COLOR_NEVER);
	settings_free(&c);
	settings_init(&c);
	ck_assert_int_eq(apply(&c, V("color.ui\ntrue"), &set), 0);
	ck_assert_int_eq(c.color, COLOR_AUTO);
	ck_assert_int_eq(apply(&c, V("color.ui\n0"), &set), 0);
	ck_assert_int_eq(c.color, COLOR_NEVER);
	/* A bare key is true: auto. */
	ck_assert_int_eq(apply(&c, V("color.ui"), &set), 0);
	ck_assert_int_eq(c.color, COLOR_AUTO);
	ck_assert_int_eq(apply(&c, V("color.ui\nnever", "color.forge\nblue"),
	    &set), 0);
	ck_assert_int_eq(c.color, COLOR_NEVER);
	settings_free(&c);
}
END_TEST

START_TEST(t_color_decide)
{
	/* auto: a terminal that is not dumb. */
	ck_assert_int_eq(color_decide(COLOR_AUTO, 1, "xterm", NULL), 1);
	ck_assert_int_eq(color_decide(COLOR_AUTO, 0, "xterm", NULL), 0);
	ck_assert_int_eq(color_decide(COLOR_AUTO, 1, "dumb", NULL), 0);
	ck_assert_int_eq(color_decide(COLOR_AUTO, 1, NULL, NULL), 0);
	ck_assert_int_eq(color_decide(COLOR_ALWAYS, 0, NULL, NULL), 1);
	ck_assert_int_eq(color_decide(COLOR_NEVER, 1, "xterm", NULL), 0);
	/* NO_COLOR, unless empty, means never. */
	ck_assert_int_eq(color_decide(COLOR_AUTO, 1, "xterm", "1"), 0);
	ck_assert_int_eq(color_decide(COLOR_ALWAYS, 0, NULL, "0"), 0);
	ck_assert_int_eq(color_decide(COLOR_ALWAYS, 0, NULL, ""), 1);
	ck_assert_int_eq(color_decide(COLOR_AUTO, 1, "xterm", ""), 1);
	ck_assert_str_eq(color_verdict("PASS"), "\033[32m");
	ck_assert_str_eq(color_verdict("FAIL"), "\033[31m");
	ck_assert_str_eq(color_verdict("ERROR"), "\033[33m");
	ck_assert_str_eq(color_verdict("INTERRUPTED"), "\033[33m");
	ck_assert_str_eq(color_verdict("BREAKER-OPEN"), "");
	ck_assert_str_eq(color_verdict(NULL), "");
}
END_TEST

/* lsfiles_parse */

static int
ls(struct lsfiles *l, const char *const *recs)
{
	struct buf	b = BUF_INIT;
	int		r;

	zjoin(&b, recs);
	r = lsfiles_parse(b.data != NULL ? b.data : "", b.len, l);
	buf_free(&b);
	return r;
}

START_TEST(t_lsfiles)
{
	struct lsfiles	l;

	ck_assert_int_eq(ls(&l, V(
	    "? nested/",
	    "? untracked",
	    "? dir/file",
	    "H 100644 " OID " 0\tplain",
	    "H 100755 " OID " 0\tbin/tool",
	    "H 120000 " OID " 0\tlink",
	    "H 160000 " OID " 0\tsubmodule",
	    "S 100644 " OID " 0\tsparse/a",
	    "h 100644 " OID " 0\tassumed",
	    "s 100755 " OID " 0\tboth")), 0);
	ck_assert_uint_eq(l.untracked.n, 2);
	ck_assert_str_eq(l.untracked.v[0], "untracked");
	ck_assert_str_eq(l.untracked.v[1], "dir/file");
	ck_assert_uint_eq(l.nested.n, 2);
	ck_assert_str_eq(l.nested.v[0], "nested");
	ck_assert_str_eq(l.nested.v[1], "submodule");
	ck_assert_uint_eq(l.gitlinks.n, 1);
	ck_assert_str_eq(l.gitlinks.v[0], "160000 " OID "\tsubmodule");
	/* As update-index --index-info takes them back. */
	ck_assert_uint_eq(l.flagged.n, 3);
	ck_assert_str_eq(l.flagged.v[0], "100644 " OID "\tsparse/a");
	ck_assert_str_eq(l.flagged.v[1], "100644 " OID "\tassumed");
	ck_assert_str_eq(l.flagged.v[2], "100755 " OID "\tboth");
	ck_assert_int_eq(l.sparse, 1);
	ck_assert_uint_eq(l.maxlen, 9);
	/* The flags, by path, for the copy's index (mirror.h). */
	ck_assert_uint_eq(l.skips.n, 2);
	ck_assert_str_eq(l.skips.v[0], "sparse/a");
	ck_assert_str_eq(l.skips.v[1], "both");
	ck_assert_uint_eq(l.assumes.n, 2);
	ck_assert_str_eq(l.assumes.v[0], "assumed");
	ck_assert_str_eq(l.assumes.v[1], "both");
	ck_assert_uint_eq(l.unmerged.n, 0);
	lsfiles_free(&l);
}
END_TEST

/* lsfiles_staged_parse, lsfiles_tree_parse */

START_TEST(t_lsfiles_listed)
{
	struct lsfiles_entry	e;
	int			stage = -1;

	ck_assert_int_eq(lsfiles_staged_parse("100644 " OID " 0\ta b", &e,
	    &stage), 0);
	ck_assert_uint_eq(e.mode, 0100644);
	ck_assert_int_eq(stage, 0);
	ck_assert_uint_eq(e.oidlen, 40);
	ck_assert_str_eq(e.path, "a b");
	ck_assert_int_eq(lsfiles_staged_parse("120000 " OID " 3\t\tt", &e,
	    &stage), 0);
	ck_assert_int_eq(stage, 3);
	ck_assert_str_eq(e.path, "\tt");
	/* No stage, a stage out of range or of two digits, no path. */
	ck_assert_int_eq(lsfiles_staged_parse("100644 " OID "\ta", &e,
	    &stage), -1);
	ck_assert_int_eq(lsfiles_staged_parse("100644 " OID " 4\ta", &e,
	    &stage), -1);
	ck_assert_int_eq(lsfiles_staged_parse("100644 " OID " 00\ta", &e,
	    &stage), -1);
	ck_assert_int_eq(lsfiles_staged_parse("100644 " OID " 0\t", &e,
	    &stage), -1);
	ck_assert_int_eq(lsfiles_staged_parse("100644  0\ta", &e, &stage),
	    -1);

	ck_assert_int_eq(lsfiles_tree_parse("100755 blob " OID "\tx/y", &e),
	    0);
	ck_assert_uint_eq(e.mode, 0100755);
	ck_assert_int_eq(strncmp(e.oid, OID, e.oidlen), 0);
	ck_assert_str_eq(e.path, "x/y");
	ck_assert_int_eq(lsfiles_tree_parse("040000 tree " OID "\td", &e), 0);
	ck_assert_uint_eq(e.mode, 040000);
	ck_assert_int_eq(lsfiles_tree_parse("160000 commit " OID "\ts", &e),
	    0);
	ck_assert_uint_eq(e.mode, 0160000);
	/* The type the mode's, and there. */
	ck_assert_int_eq(lsfiles_tree_parse("100644 tree " OID "\tx", &e), -1);
	ck_assert_int_eq(lsfiles_tree_parse("160000 blob " OID "\tx", &e), -1);
	ck_assert_int_eq(lsfiles_tree_parse("040000 commit " OID "\tx", &e),
	    -1);
	ck_assert_int_eq(lsfiles_tree_parse("100644 " OID "\tx", &e), -1);
	ck_assert_int_eq(lsfiles_tree_parse("100644 blob " OID "\t", &e), -1);
	ck_assert_int_eq(lsfiles_tree_parse("100644 blob \tx", &e), -1);
}
END_TEST

/* lsfiles_raw_next, lsfiles_change_parse */

/* The records of git diff --raw -z output (NULs written as "|"), each
 * as "old new oidlen status path", one per line; "!" after a malformed
 * one. */
static char *
raw_records(const char *text)
{
	struct lsfiles_change	 c;
	struct buf		 in = BUF_INIT, got = BUF_INIT;
	const char		*p, *end;
	size_t			 i;
	int			 r;

	buf_adds(&in, text);
	for (i = 0; i < in.len; i++)
		if (in.data[i] == '|')
			in.data[i] = '\0';
	p = in.data != NULL ? in.data : "";
	end = p + in.len;
	while ((r = lsfiles_raw_next(&p, end, &c)) == 1) {
		buf_addf(&got, "%o %o %zu %c %s\n", c.old_mode, c.new_mode,
		    c.oidlen, c.status, c.path);
		ck_assert_ptr_eq(c.new_oid, c.old_oid + c.oidlen + 1);
	}
	if (r == -1)
		buf_adds(&got, "!");
	buf_free(&in);
	buf_str(&got);
	return got.data;
}

#define ZERO	"0000000000000000000000000000000000000000"

START_TEST(t_lsfiles_raw)
{
	struct lsfiles_change	 c;
	char			*got;
	static const char	 o256[] = "473a0f4c3be8a93681a267e3b1e9a7dc"
	    "da1185436fe141f7749120a303721813";
	char			 line[256];

	got = raw_records(":100644 100755 " OID " " OID " M|a b|"
	    ":000000 120000 " ZERO " " OID " A|l\tx|"
	    ":160000 000000 " OID " " ZERO " D|sub|");
	ck_assert_str_eq(got, "100644 100755 40 M a b\n"
	    "0 120000 40 A l\tx\n160000 0 40 D sub\n");
	free(got);
	snprintf(line, sizeof(line), ":100644 100644 %s %s M|f|", o256, o256);
	got = raw_records(line);
	ck_assert_str_eq(got, "100644 100644 64 M f\n");
	free(got);
	/* Nothing: none. */
	got = raw_records("");
	ck_assert_str_eq(got, "");
	free(got);
	/* Cut short: no path, or its NUL missing; an empty path. */
	got = raw_records(":100644 100644 " OID " " OID " M|");
	ck_assert_str_eq(got, "!");
	free(got);
	got = raw_records(":100644 100644 " OID " " OID " M|a|:100644");
	ck_assert_str_eq(got, "100644 100644 40 M a\n!");
	free(got);
	got = raw_records(":100644 100644 " OID " " OID " M||");
	ck_assert_str_eq(got, "!");
	free(got);
	/* Not raw: no colon, a bad mode, abbreviated or unequal oids, no
	 * status. */
	got = raw_records("100644 100644 " OID " " OID " M|a|");
	ck_assert_str_eq(got, "!");
	free(got);
	got = raw_records(":100648 100644 " OID " " OID " M|a|");
	ck_assert_str_eq(got, "!");
	free(got);
	got = raw_records(":100644 100644 1234567 7654321 M|a|");
	ck_assert_str_eq(got, "!");
	free(got);
	snprintf(line, sizeof(line), ":100644 100644 %s %s M|a|", OID, o256);
	got = raw_records(line);
	ck_assert_str_eq(got, "!");
	free(got);
	got = raw_records(":100644 100644 " OID " " OID "|a|");
	ck_assert_str_eq(got, "!");
	free(got);

	/* "old new\tpath", as forge carries a change. */
	ck_assert_int_eq(lsfiles_change_parse("100644 000000\ta\tb", &c), 0);
	ck_assert_uint_eq(c.old_mode, 0100644);
	ck_assert_uint_eq(c.new_mode, 0);
	ck_assert_str_eq(c.path, "a\tb");
	ck_assert_ptr_null(c.old_oid);
	ck_assert_int_eq(lsfiles_change_parse("000000 160000\t s ", &c), 0);
	ck_assert_uint_eq(c.new_mode, 0160000);
	ck_assert_str_eq(c.path, " s ");
	ck_assert_int_eq(lsfiles_change_parse("100644 100644\t", &c), -1);
	ck_assert_int_eq(lsfiles_change_parse("100644 100644 a", &c), -1);
	ck_assert_int_eq(lsfiles_change_parse("10644 100644\ta", &c), -1);
	ck_assert_int_eq(lsfiles_change_parse("100644 10064\ta", &c), -1);
	ck_assert_int_eq(lsfiles_change_parse("100694 100644\ta", &c), -1);
	ck_assert_int_eq(lsfiles_change_parse("", &c), -1);
}
END_TEST

/* lsfiles_entry_parse */

START_TEST(t_lsfiles_entry)
{
	struct lsfiles_entry	e;
	static const char	sha256[] = "473a0f4c3be8a93681a267e3b1e9a7dc"
	    "da1185436fe141f7749120a303721813";
	char			line[128];

	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID "\ta/b", &e), 0);
	ck_assert_uint_eq(e.mode, 0100644);
	ck_assert_uint_eq(e.oidlen, 40);
	ck_assert_int_eq(strncmp(e.oid, OID, 40), 0);
	ck_assert_str_eq(e.path, "a/b");
	ck_assert_int_eq(lsfiles_entry_parse("160000 " OID "\tsub", &e), 0);
	ck_assert_uint_eq(e.mode, 0160000);
	/* The removal update-index takes: mode 0, the oid all zeros. */
	ck_assert_int_eq(lsfiles_entry_parse("0 "
	    "0000000000000000000000000000000000000000\tgone", &e), 0);
	ck_assert_uint_eq(e.mode, 0);
	ck_assert_uint_eq(e.oidlen, 40);
	snprintf(line, sizeof(line), "120000 %s\tlink", sha256);
	ck_assert_int_eq(lsfiles_entry_parse(line, &e), 0);
	ck_assert_uint_eq(e.oidlen, 64);
	ck_assert_ptr_eq(e.oid, line + 7);
	ck_assert_str_eq(e.path, "link");
	/* A tab or a space in the path is the path's. */
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID "\ta\tb", &e), 0);
	ck_assert_str_eq(e.path, "a\tb");
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID "\t a b ", &e), 0);
	ck_assert_str_eq(e.path, " a b ");
	ck_assert_uint_eq(e.oidlen, 40);
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID "\t\t", &e), 0);
	ck_assert_str_eq(e.path, "\t");
	/* No tab, or nothing after it. */
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID, &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID " a", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID "\t", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("", &e), -1);
	/* A stage, or ls-tree's type: not an entry. */
	ck_assert_int_eq(lsfiles_entry_parse("100644 " OID " 0\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("100644 blob " OID "\ta", &e),
	    -1);
	/* A bad mode: none, not octal, too long, a sign, a space first. */
	ck_assert_int_eq(lsfiles_entry_parse(" " OID "\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("100844 " OID "\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("1006440 " OID "\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("+100644 " OID "\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse(" 100644 " OID "\ta", &e), -1);
	ck_assert_int_eq(lsfiles_entry_parse("100644\t" OID "\ta", &e), -1);
	/* No oid. */
	ck_assert_int_eq(lsfiles_entry_parse("100644 \ta", &e), -1);
	/* The removal. */
	{
		struct strv	v = STRV_INIT;

		lsfiles_push_removal(&v, "a\tb", 40);
		lsfiles_push_removal(&v, "c", 64);
		ck_assert_int_eq(lsfiles_entry_parse(v.v[0], &e), 0);
		ck_assert_uint_eq(e.mode, 0);
		ck_assert_uint_eq(e.oidlen, 40);
		ck_assert_uint_eq(strspn(e.oid, "0"), 40);
		ck_assert_str_eq(e.path, "a\tb");
		ck_assert_str_eq(v.v[1], "0 0000000000000000000000000000000000"
		    "000000000000000000000000000000\tc");
		strv_free(&v);
	}
	/* The accessors. */
	ck_assert_uint_eq(lsfiles_entry_mode("100755 " OID "\tx"), 0100755);
	ck_assert_uint_eq(lsfiles_entry_mode("100755 " OID), 0);
	ck_assert_uint_eq(lsfiles_entry_oidlen(line), 64);
	ck_assert_uint_eq(lsfiles_entry_oidlen("x " OID "\ta"), 0);
	ck_assert_str_eq(lsfiles_entry_path("100644 " OID "\ta\tb"), "a\tb");
	ck_assert_str_eq(lsfiles_entry_path("no tab"), "no tab");
}
END_TEST

START_TEST(t_lsfiles_find)
{
	struct lsfiles	l;
	struct buf	b = BUF_INIT;

	ck_assert_int_eq(ls(&l, V("H 100644 " OID " 0\ta",
	    "H 100644 " OID " 0\ta b",
	    "H 100755 " OID " 0\tdir/x",
	    "H 160000 " OID " 0\tsub",
	    "H 160000 " OID " 0\tsub2",
	    "H 100644 " OID " 0\tz")), 0);
	/* The gitlinks apart, as their lines. */
	ck_assert_str_eq(lsfiles_find(&l.gitlinks, "sub2"),
	    "160000 " OID "\tsub2");
	ck_assert_ptr_null(lsfiles_find(&l.gitlinks, "a"));
	ck_assert_int_eq(entlist_find(&l.entries, "sub"), -1);
	ck_assert_int_eq(entlist_find(&l.entries, "a"), 0);
	ck_assert_int_eq(entlist_find(&l.entries, "a b"), 1);
	ck_assert_str_eq(entlist_line(&l.entries, 2, &b),
	    "100755 " OID "\tdir/x");
	ck_assert_int_eq(entlist_find(&l.entries, "z"), 3);
	ck_assert_int_eq(entlist_find(&l.entries, "dir"), -1);
	ck_assert_int_eq(entlist_find(&l.entries, "b"), -1);
	ck_assert_ptr_null(lsfiles_find(&l.nested, "a"));	/* empty */
	lsfiles_free(&l);
	buf_free(&b);
}
END_TEST

START_TEST(t_lsfiles_unmerged)
{
	struct lsfiles	l;
	struct buf	b = BUF_INIT;

	/* A conflict's stages are no entries: its path is listed once. */
	ck_assert_int_eq(ls(&l, V("H 100644 " OID " 0\ta",
	    "M 100644 " OID " 1\tc",
	    "M 100644 " OID " 2\tc",
	    "M 100644 " OID " 3\tc",
	    "M 100644 " OID " 2\tcd",
	    "M 100644 " OID " 3\tcd",
	    "H 100644 " OID " 0\te")), 0);
	ck_assert_uint_eq(l.entries.n, 2);
	ck_assert_str_eq(entlist_line(&l.entries, 0, &b), "100644 " OID "\ta");
	ck_assert_str_eq(entlist_line(&l.entries, 1, &b), "100644 " OID "\te");
	ck_assert_uint_eq(l.unmerged.n, 2);
	ck_assert_str_eq(l.unmerged.v[0], "c");
	ck_assert_str_eq(l.unmerged.v[1], "cd");
	ck_assert_uint_eq(l.skips.n + l.assumes.n + l.flagged.n, 0);
	/* Each one's entry git add takes the mode of: stage 2's. */
	ck_assert_uint_eq(l.conflicts.n, 2);
	ck_assert_str_eq(l.conflicts.v[0], "100644 " OID "\tc");
	ck_assert_str_eq(l.conflicts.v[1], "100644 " OID "\tcd");
	ck_assert_uint_eq(l.nested.n, 0);
	lsfiles_free(&l);

	/* Else stage 1's, else 3's. */
	ck_assert_int_eq(ls(&l, V("M 100755 " OID " 1\tb",
	    "M 120000 " OID " 3\tb",
	    "M 160000 " OID " 3\ts",
	    "M 100644 " OID " 3\tt")), 0);
	/* With the empty blob (but a gitlink's commit): the line endings
	 * git keeps are stage 2's blob's only. */
	ck_assert_uint_eq(l.conflicts.n, 3);
	ck_assert_str_eq(l.conflicts.v[0], "100755 " EMPTY "\tb");
	ck_assert_str_eq(l.conflicts.v[1], "160000 " OID "\ts");
	ck_assert_str_eq(l.conflicts.v[2], "100644 " EMPTY "\tt");
	/* What is on disk there may be a submodule to copy. */
	ck_assert_uint_eq(l.nested.n, 1);
	ck_assert_str_eq(l.nested.v[0], "s");
	lsfiles_free(&l);
	/* Once, whichever stages are gitlinks. */
	ck_assert_int_eq(ls(&l, V("M 160000 " OID " 1\ts",
	    "M 100644 " OID " 2\ts",
	    "M 160000 " OID " 3\ts")), 0);
	ck_assert_uint_eq(l.nested.n, 1);
	ck_assert_str_eq(l.nested.v[0], "s");
	lsfiles_free(&l);
	ck_assert_int_eq(ls(&l, V("M 120000 " OID " 3\tb",
	    "M 100755 " OID " 2\tb")), 0);
	ck_assert_str_eq(l.conflicts.v[0], "100755 " OID "\tb");
	lsfiles_free(&l);
	buf_free(&b);
}
END_TEST

/*
 * An entry list gives back each entry as it was pushed: paths of every
 * length, one longer than a block and one that fills a block to its
 * last byte among them, across the offsets' blocks of 16,384; an entry
 * is found by its path, and nothing else is; an id that is not one, or
 * of another length than the others', is refused.
 */
START_TEST(t_entlist)
{
	struct entlist	 el = ENTLIST_INIT;
	struct strv	 want = STRV_INIT, v = STRV_INIT;
	struct buf	 b = BUF_INIT, path = BUF_INIT;
	const char	*hex = "0123456789abcdef0123456789ABCDEF01234567";
	char		 oid[41], sha256[65];
	unsigned	 mode;
	size_t		 i, n = 40000, len;
	int		 k;

	for (i = 0; i < n; i++) {
		buf_reset(&path);
		buf_addf(&path, "d%05zu/", i);
		/* A path past a block of 64 KiB, then one past three; one
		 * whose entry fills a block exactly; one past a block
		 * followed by short ones. */
		len = i == 1234 ? 70000 : i == 1235 ? 3 * 65536 :
		    i == 1236 ? 65536 - 4 - 20 - 1 - path.len :
		    i == 2000 ? 100000 : i % 37;
		while (len-- > 0)
			buf_addc(&path, 'a' + (int)(i % 26));
		snprintf(oid, sizeof(oid), "%040zx", i * 2654435761u);
		mode = i % 3 == 0 ? 0100755 : i % 3 == 1 ? 0100644 : 0120000;
		ck_assert_int_eq(entlist_push(&el, mode, oid, 40, path.data,
		    path.len), 0);
		strv_pushf(&want, "%06o %s\t%s", mode, oid, path.data);
	}
	ck_assert_uint_eq(el.n, n);
	ck_assert_uint_eq(el.rawsz, 20);
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(entlist_line(&el, i, &b), want.v[i]);
		ck_assert_str_eq(entlist_path(&el, i),
		    lsfiles_entry_path(want.v[i]));
		ck_assert_uint_eq(entlist_mode(&el, i),
		    lsfiles_entry_mode(want.v[i]));
		ck_assert_int_eq(entlist_find(&el, entlist_path(&el, i)),
		    (ssize_t)i);
	}
	/* Pushed onto a vector and summed as the lines are. */
	for (i = 0; i < n; i += 997)
		entlist_put(&el, i, &v);
	for (i = 0; i < v.n; i++)
		ck_assert_str_eq(v.v[i], want.v[i * 997]);
	{
		struct sum	 s, t;
		uint64_t	 x[2], y[2];

		sum_init(&s);
		sum_init(&t);
		entlist_sum(&el, &s, "tag");
		strv_sum(&want, &t, "tag");
		sum_final(&s, x);
		sum_final(&t, y);
		ck_assert(x[0] == y[0] && x[1] == y[1]);
	}
	ck_assert_int_eq(entlist_find(&el, ""), -1);
	ck_assert_int_eq(entlist_find(&el, "d00000"), -1);
	ck_assert_int_eq(entlist_find(&el, "d00001/c"), -1);
	ck_assert_int_eq(entlist_find(&el, "e"), -1);
	/* The case of an id's digits is not kept: git prints lower. */
	ck_assert_int_eq(entlist_push(&el, 0100644, hex, 40, "zz", 2), 0);
	ck_assert_str_eq(entlist_line(&el, n, &b), "100644 0123456789abcdef"
	    "0123456789abcdef01234567\tzz");
	/* No id, an odd one, one of another length. */
	ck_assert_int_eq(entlist_push(&el, 0100644, "0123456789abcdef012345"
	    "6789abcdef0123456g", 40, "z1", 2), -1);
	ck_assert_int_eq(entlist_push(&el, 0100644, hex, 39, "z2", 2), -1);
	ck_assert_int_eq(entlist_push(&el, 0100644, hex, 38, "z3", 2), -1);
	ck_assert_int_eq(entlist_push(&el, 01000000, hex, 40, "z5", 2), -1);
	ck_assert_int_eq(entlist_push(&el, 0777777, hex, 40, "zz0", 3), 0);
	ck_assert_str_eq(entlist_line(&el, n + 1, &b), "777777 0123456789abcdef"
	    "0123456789abcdef01234567\tzz0");
	ck_assert_int_eq(entlist_push(&el, 0, hex, 40, "zz1", 3), 0);
	ck_assert_str_eq(entlist_line(&el, n + 2, &b), "000000 0123456789abcdef"
	    "0123456789abcdef01234567\tzz1");
	memset(sha256, 'f', 64);
	sha256[64] = '\0';
	ck_assert_int_eq(entlist_push(&el, 0100644, sha256, 64, "z4", 2), -1);
	ck_assert_uint_eq(el.n, n + 3);
	entlist_free(&el);
	ck_assert_uint_eq(el.n, 0);
	/* SHA-256, into a list emptied. */
	ck_assert_int_eq(entlist_push(&el, 0160000, sha256, 64, "s", 1), 0);
	ck_assert_uint_eq(el.rawsz, 32);
	ck_assert_str_eq(entlist_line(&el, 0, &b), "160000 ffffffffffffffff"
	    "ffffffffffffffffffffffffffffffffffffffffffffffff\ts");
	for (k = 0; k < 32; k++)
		ck_assert_uint_eq(entlist_oid(&el, 0)[k], 0xff);
	ck_assert_int_eq(entlist_push(&el, 0100644, hex, 40, "t", 1), -1);
	entlist_free(&el);
	strv_free(&want);
	strv_free(&v);
	buf_free(&b);
	buf_free(&path);
}
END_TEST

START_TEST(t_lsfiles_sparse)
{
	struct lsfiles	l;

	ck_assert_int_eq(ls(&l, V("H 100644 " OID " 0\ta",
	    "h 100644 " OID " 0\tb")), 0);
	ck_assert_int_eq(l.sparse, 0);
	ck_assert_uint_eq(l.flagged.n, 1);
	lsfiles_free(&l);
	/* Skip-worktree and assume-unchanged at once: git prints "s".  It
	 * is skip-worktree all the same. */
	ck_assert_int_eq(ls(&l, V("H 100644 " OID " 0\ta",
	    "s 100644 " OID " 0\tb")), 0);
	ck_assert_uint_eq(l.flagged.n, 1);
	ck_assert_int_eq(l.sparse, 1);
	lsfiles_free(&l);
}
END_TEST

/* A conflict is what is on disk: its stages are not flagged. */
START_TEST(t_lsfiles_stages)
{
	struct lsfiles	l;

	ck_assert_int_eq(ls(&l, V(
	    "M 100644 " OID " 1\tconflicted",
	    "M 100644 " OID " 2\tconflicted",
	    "M 100644 " OID " 3\tconflicted",
	    "m 100644 " OID " 2\tx",
	    "S 160000 " OID " 1\tgitlink-in-conflict")), 0);
	ck_assert_uint_eq(l.flagged.n, 0);
	/* No flag counts; but a submodule may be checked out there. */
	ck_assert_uint_eq(l.nested.n, 1);
	ck_assert_str_eq(l.nested.v[0], "gitlink-in-conflict");
	ck_assert_uint_eq(l.untracked.n, 0);
	ck_assert_uint_eq(l.maxlen, strlen("gitlink-in-conflict"));
	lsfiles_free(&l);
}
END_TEST

/* Names hold anything but NUL. */
START_TEST(t_lsfiles_names)
{
	struct lsfiles	l;

	ck_assert_int_eq(ls(&l, V(
	    "? new\nline",
	    "? tab\there",
	    "? \xff\xfe",
	    "? space ",
	    "S 100644 " OID " 0\twith\ttab and\nnewline",
	    "H 160000 " OID " 0\tsub\tmodule")), 0);
	ck_assert_str_eq(l.untracked.v[0], "new\nline");
	ck_assert_str_eq(l.untracked.v[1], "tab\there");
	ck_assert_str_eq(l.untracked.v[2], "\xff\xfe");
	ck_assert_str_eq(l.untracked.v[3], "space ");
	ck_assert_str_eq(l.flagged.v[0], "100644 " OID
	    "\twith\ttab and\nnewline");
	ck_assert_str_eq(l.nested.v[0], "sub\tmodule");
	ck_assert_uint_eq(l.maxlen, strlen("with\ttab and\nnewline"));
	lsfiles_free(&l);
	ck_assert_int_eq(ls(&l, (const char *const []){ NULL }), 0);
	ck_assert_uint_eq(l.untracked.n + l.nested.n + l.flagged.n, 0);
	ck_assert_uint_eq(l.maxlen, 0);
	lsfiles_free(&l);
}
END_TEST

START_TEST(t_lsfiles_bad)
{
	static const char *const bad[] = {
		"x", "?", "? ", "?path", "H100644 " OID " 0\tp",
		"H 100644 " OID " 0 path-without-tab",
	};
	struct lsfiles	l;
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(ls(&l, V("? fine", bad[i])) == -1,
		    "accepted: %s", bad[i]);
		lsfiles_free(&l);
	}
}
END_TEST

/* change_parse_diff and friends */

START_TEST(t_change_parse)
{
	struct change	c;
	struct buf	b = BUF_INIT;
	struct strv	u = STRV_INIT;

	memset(&c, 0, sizeof(c));
	zjoin(&b, V("M", "src/main.c", "A", "new file", "D", "gone",
	    "T", "now-a-link", "U", "conflicted", "R100", "old name",
	    "new\tname", "C075", "orig", "copy", "M", "line\nbreak"));
	ck_assert_int_eq(change_parse_diff(&c, b.data, b.len), 0);
	ck_assert_uint_eq(c.modified, 4);
	ck_assert_uint_eq(c.added, 2);
	ck_assert_uint_eq(c.deleted, 1);
	ck_assert_uint_eq(c.renamed, 1);
	ck_assert_uint_eq(c.untracked, 0);
	ck_assert_uint_eq(c.lines.n, 8);
	ck_assert_uint_eq(c.from.n, 8);
	ck_assert_str_eq(c.lines.v[0], "M\tsrc/main.c");
	ck_assert_str_eq(c.lines.v[1], "A\tnew file");
	ck_assert_str_eq(c.lines.v[2], "D\tgone");
	ck_assert_str_eq(c.lines.v[3], "M\tnow-a-link");
	ck_assert_str_eq(c.lines.v[4], "M\tconflicted");
	ck_assert_str_eq(c.lines.v[5], "R\tnew\tname");
	ck_assert_str_eq(c.from.v[5], "old name");
	ck_assert_str_eq(c.lines.v[6], "A\tcopy");
	ck_assert_str_eq(c.from.v[6], "");
	ck_assert_str_eq(c.lines.v[7], "M\tline\nbreak");
	ck_assert_str_eq(c.from.v[0], "");
	strv_push(&u, "u1");
	strv_push(&u, "dir/u 2");
	strv_push(&u, "last");
	change_add_untracked(&c, &u);
	strv_free(&u);
	ck_assert_uint_eq(c.untracked, 3);
	ck_assert_uint_eq(c.lines.n, 11);
	ck_assert_uint_eq(c.from.n, 11);
	ck_assert_str_eq(c.lines.v[8], "?\tu1");
	ck_assert_str_eq(c.lines.v[9], "?\tdir/u 2");
	ck_assert_str_eq(c.lines.v[10], "?\tlast");
	change_free(&c);
	ck_assert_uint_eq(c.lines.n, 0);
	/* Nothing at all. */
	ck_assert_int_eq(change_parse_diff(&c, "", 0), 0);
	change_add_untracked(&c, &u);
	ck_assert_uint_eq(c.lines.n, 0);
	change_free(&c);
	buf_free(&b);
}
END_TEST

START_TEST(t_change_parse_bad)
{
	const char *const *const bad[] = {
		V("X", "path"),
		V("M"),
		V("R100", "old"),
		V("C050", "orig"),
		V("M", "ok", "D"),
	};
	struct change	c;
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0, sizeof(c));
		zjoin(&b, bad[i]);
		ck_assert_msg(change_parse_diff(&c, b.data, b.len) == -1,
		    "case %zu accepted", i);
		change_free(&c);
	}
	buf_free(&b);
}
END_TEST

START_TEST(t_change_summary)
{
	struct change	 c;
	char		*s;

	memset(&c, 0, sizeof(c));
	s = change_summary(&c);
	ck_assert_str_eq(s, "no changes");
	free(s);
	c.untracked = 1;
	s = change_summary(&c);
	ck_assert_str_eq(s, "1 untracked");
	free(s);
	c.modified = 3;
	c.added = 2;
	c.deleted = 1;
	c.renamed = 4;
	s = change_summary(&c);
	ck_assert_str_eq(s, "3 modified, 2 added, 1 deleted, 4 renamed, "
	    "1 untracked");
	free(s);
	c.added = 0;
	c.untracked = 0;
	s = change_summary(&c);
	ck_assert_str_eq(s, "3 modified, 1 deleted, 4 renamed");
	free(s);
}
END_TEST

static struct change
sample_change(void)
{
	struct change	c;
	struct buf	b = BUF_INIT;
	struct strv	u = STRV_INIT;

	memset(&c, 0, sizeof(c));
	c.base = strdup("origin/main");
	c.base_id = strdup(OID);
	zjoin(&b, V("M", "a.c", "R090", "old", "new", "D", "evil\x1b[2J",
	    "A", "cr\rhidden"));
	ck_assert_int_eq(change_parse_diff(&c, b.data, b.len), 0);
	strv_push(&u, "u");
	change_add_untracked(&c, &u);
	strv_free(&u);
	buf_free(&b);
	return c;
}

START_TEST(t_change_print)
{
	struct change	 c = sample_change();
	char		*text = NULL;
	size_t		 len = 0;
	FILE		*fp;

	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	change_print(&c, fp, 3);
	fclose(fp);
	ck_assert_str_eq(text,
	    "forge: change against origin/main (78981922613b): "
	    "1 modified, 1 added, 1 deleted, 1 renamed, 1 untracked\n"
	    "forge:   M a.c\n"
	    "forge:   R old -> new\n"
	    "forge:   D evil\\033[2J\n"
	    "forge:   ... and 2 more\n");
	free(text);
	/* A carriage return in a name must not let it rewrite the line. */
	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	change_print(&c, fp, 10);
	fclose(fp);
	ck_assert_msg(strchr(text, '\r') == NULL, "raw CR printed: %s", text);
	free(text);
	change_free(&c);
}
END_TEST

START_TEST(t_change_json)
{
	struct change	 c = sample_change();
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct jv	*v, *paths;

	json_init(&j, &b);
	change_json(&c, &j, 2);
	v = json_parse(b.data, b.len);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(json_as_str(json_get(v, "base")), "origin/main");
	ck_assert_str_eq(json_as_str(json_get(v, "base_commit")), OID);
	ck_assert_int_eq(json_as_num(json_get(v, "modified"), -1), 1);
	ck_assert_int_eq(json_as_num(json_get(v, "added"), -1), 1);
	ck_assert_int_eq(json_as_num(json_get(v, "deleted"), -1), 1);
	ck_assert_int_eq(json_as_num(json_get(v, "renamed"), -1), 1);
	ck_assert_int_eq(json_as_num(json_get(v, "untracked"), -1), 1);
	ck_assert_int_eq(json_as_num(json_get(v, "more"), -1), 3);
	paths = json_get(v, "paths");
	ck_assert_ptr_nonnull(paths);
	ck_assert_uint_eq(paths->len, 2);
	ck_assert_str_eq(json_as_str(json_get(paths->items[0], "status")), "M");
	ck_assert_str_eq(json_as_str(json_get(paths->items[0], "path")), "a.c");
	ck_assert_ptr_null(json_get(paths->items[0], "from"));
	ck_assert_str_eq(json_as_str(json_get(paths->items[1], "status")), "R");
	ck_assert_str_eq(json_as_str(json_get(paths->items[1], "from")), "old");
	ck_assert_str_eq(json_as_str(json_get(paths->items[1], "path")), "new");
	json_free(v);
	/* All of them, with the raw bytes of the hostile name. */
	buf_reset(&b);
	json_init(&j, &b);
	change_json(&c, &j, 20);
	v = json_parse(b.data, b.len);
	ck_assert_ptr_nonnull(v);
	paths = json_get(v, "paths");
	ck_assert_uint_eq(paths->len, 5);
	ck_assert_str_eq(json_as_str(json_get(paths->items[2], "path")),
	    "evil\x1b[2J");
	ck_assert_str_eq(json_as_str(json_get(paths->items[3], "path")),
	    "cr\rhidden");
	ck_assert_str_eq(json_as_str(json_get(paths->items[4], "status")), "?");
	ck_assert_int_eq(json_as_num(json_get(v, "more"), -1), 0);
	json_free(v);
	buf_free(&b);
	change_free(&c);
}
END_TEST

/* git.c */

START_TEST(t_git_version)
{
	static const struct {
		const char	*s;
		int		 major, minor;
	} ok[] = {
		{ "git version 2.39.5", 2, 39 },
		{ "git version 2.39.5\n", 2, 39 },
		{ "git version 2.40.0.rc1", 2, 40 },
		{ "git version 2.39.5.windows.1", 2, 39 },
		{ "git version 2.37.1 (Apple Git-137.1)", 2, 37 },
		{ "git version 3.0", 3, 0 },
		{ "git version 1.8.3.1", 1, 8 },
	};
	static const char *const bad[] = {
		"", "git", "git version", "git version ", "git version x.y",
		"git version 2", "git version 2.", "git version .39",
		"git version  2.39.5", "Git version 2.39.5", "hub version 2.1",
		"git version 2.x", "git version -2.39",
		"git version 99999999999999999999.1",
		"git version 2.99999999999999999999",
	};
	size_t	i;
	int	major, minor;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		major = minor = -7;
		ck_assert_msg(git_parse_version(ok[i].s, &major, &minor) == 0,
		    "rejected: %s", ok[i].s);
		ck_assert_int_eq(major, ok[i].major);
		ck_assert_int_eq(minor, ok[i].minor);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(git_parse_version(bad[i], &major, &minor) == -1,
		    "accepted: %s", bad[i]);
}
END_TEST

START_TEST(t_git_lock_busy)
{
	ck_assert(git_lock_busy("fatal: Unable to create '/r/.git/index.lock'"
	    ": File exists.\n\nAnother git process seems to be running"));
	ck_assert(git_lock_busy("error: could not lock config file "
	    ".git/config: File exists"));
	ck_assert(git_lock_busy("error: cannot lock ref 'refs/x': Unable to "
	    "create '/r/.git/refs/x.lock': File exists."));
	/* Another git worktree add, half way through registering. */
	ck_assert(git_lock_busy("fatal: failed to read "
	    "/r/.git/worktrees/copy1/commondir: Success"));
	/* Another run's registration, removed as ours listed it. */
	ck_assert(git_lock_busy("fatal: Invalid path '/r/.git/worktrees/r2': "
	    "No such file or directory"));
	ck_assert(!git_lock_busy("fatal: Invalid path '/r/src/x': No such "
	    "file or directory"));
	ck_assert(!git_lock_busy("fatal: failed to read object abc: "
	    "Input/output error"));
	ck_assert(!git_lock_busy(""));
	ck_assert(!git_lock_busy("fatal: not a git repository"));
	ck_assert(!git_lock_busy("error: patch failed: a.c:1\n"
	    "error: a.c: patch does not apply"));
}
END_TEST

/* The variables a GIT_USER_ENV run keeps and the others drop: any one
 * of them set says so (repo_open() then asks for HEAD again). */
START_TEST(t_git_user_env_local)
{
	const char *const	 v[] = { "GIT_DIR", "GIT_COMMON_DIR",
	    "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE", NULL };
	size_t			 i;

	for (i = 0; v[i] != NULL; i++)
		unsetenv(v[i]);
	unsetenv("GIT_WORK_TREE");
	ck_assert_int_eq(git_user_env_local(), 0);
	for (i = 0; v[i] != NULL; i++) {
		setenv(v[i], "/x", 1);
		ck_assert_int_eq(git_user_env_local(), 1);
		unsetenv(v[i]);
	}
	/* Not one of them. */
	setenv("GIT_AUTHOR_NAME", "x", 1);
	ck_assert_int_eq(git_user_env_local(), 0);
	unsetenv("GIT_AUTHOR_NAME");
}
END_TEST

START_TEST(t_git_env_argv)
{
	const char *const	 args[] = { "ls-files", "-z", NULL };
	struct git		 g;
	struct strv		 env = STRV_INIT, argv = STRV_INIT;
	size_t			 i;
	int			 unset_dir = 0, unset_index = 0, lc = 0;
	int			 unset_diff = 0, unset_ext = 0;

	memset(&g, 0, sizeof(g));
	g.gitdir = "/r/.git";
	g.index = "/tmp/idx";
	git_env(&g, &env);
	for (i = 0; i < env.n; i++) {
		unset_dir |= strcmp(env.v[i], "GIT_DIR") == 0;
		unset_index |= strcmp(env.v[i], "GIT_INDEX_FILE") == 0;
		lc |= strcmp(env.v[i], "LC_ALL=C") == 0;
		unset_diff |= strcmp(env.v[i], "GIT_DIFF_OPTS") == 0;
		unset_ext |= strcmp(env.v[i], "GIT_EXTERNAL_DIFF") == 0;
	}
	/* What would change git diff's output behind its options goes. */
	ck_assert(unset_diff && unset_ext);
	/* Every inherited repository variable goes first, then ours. */
	ck_assert(unset_dir && unset_index && lc);
	ck_assert_str_eq(env.v[env.n - 2], "GIT_DIR=/r/.git");
	ck_assert_str_eq(env.v[env.n - 1], "GIT_INDEX_FILE=/tmp/idx");
	strv_free(&env);
	git_env(NULL, &env);
	ck_assert_str_eq(env.v[env.n - 2], "LC_ALL=C");
	ck_assert_str_eq(env.v[env.n - 1], "GIT_NO_REPLACE_OBJECTS=1");
	strv_free(&env);
	git_argv(&argv, args);
	ck_assert_str_eq(argv.v[1], "--no-optional-locks");
	ck_assert_str_eq(argv.v[argv.n - 2], "ls-files");
	ck_assert_str_eq(argv.v[argv.n - 1], "-z");
	for (i = 0; i < argv.n; i++)
		if (strcmp(argv.v[i], "-c") == 0)
			ck_assert(strcmp(argv.v[i + 1], "core.fsmonitor=")
			    == 0 || strcmp(argv.v[i + 1],
			    "core.hooksPath=/dev/null") == 0 ||
			    strcmp(argv.v[i + 1], "core.trustctime=true") == 0 ||
			    strcmp(argv.v[i + 1], "core.checkStat=default") ==
			    0 || strcmp(argv.v[i + 1],
			    "core.splitIndex=false") == 0);
	strv_free(&argv);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("parse");
	tc = tcase_create("verify");
	tcase_add_test(tc, t_verify_defaults);
	tcase_add_test(tc, t_verify_options);
	tcase_add_test(tc, t_verify_command);
	tcase_add_test(tc, t_verify_change);
	tcase_add_test(tc, t_rev_kind);
	tcase_add_test(tc, t_verify_bad);
	tcase_add_test(tc, t_verify_conflicts);
	tcase_add_exit_test(tc, t_verify_help, 0);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd");
	tcase_add_test(tc, t_cmd_parse);
	tcase_add_test(tc, t_cmd_help);
	suite_add_tcase(s, tc);

	tc = tcase_create("settings");
	tcase_add_test(tc, t_settings_defaults);
	tcase_add_test(tc, t_settings_verify);
	tcase_add_test(tc, t_settings_isolated);
	tcase_add_test(tc, t_settings_reuse_expiry);
	tcase_add_test(tc, t_settings_bool);
	tcase_add_test(tc, t_settings_bool_integers);
	tcase_add_test(tc, t_settings_values);
	tcase_add_test(tc, t_settings_bad);
	tcase_add_test(tc, t_settings_unknown);
	tcase_add_test(tc, t_settings_core);
	tcase_add_test(tc, t_settings_color);
	tcase_add_test(tc, t_color_decide);
	suite_add_tcase(s, tc);

	tc = tcase_create("git");
	tcase_add_test(tc, t_lsfiles);
	tcase_add_test(tc, t_lsfiles_sparse);
	tcase_add_test(tc, t_lsfiles_unmerged);
	tcase_add_test(tc, t_lsfiles_find);
	tcase_add_test(tc, t_entlist);
	tcase_add_test(tc, t_lsfiles_entry);
	tcase_add_test(tc, t_lsfiles_raw);
	tcase_add_test(tc, t_lsfiles_listed);
	tcase_add_test(tc, t_lsfiles_stages);
	tcase_add_test(tc, t_lsfiles_names);
	tcase_add_test(tc, t_lsfiles_bad);
	tcase_add_test(tc, t_change_parse);
	tcase_add_test(tc, t_change_parse_bad);
	tcase_add_test(tc, t_change_summary);
	tcase_add_test(tc, t_change_print);
	tcase_add_test(tc, t_change_json);
	tcase_add_test(tc, t_git_version);
	tcase_add_test(tc, t_git_lock_busy);
	tcase_add_test(tc, t_git_user_env_local);
	tcase_add_test(tc, t_git_env_argv);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(parse_suite)
