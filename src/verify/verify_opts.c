/* forge verify's command line: its options, declared once, and parsed. */
#include "config.h"

#include <err.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "verify_opts.h"
#include "fs_vis.h"
#include "repo.h"
#include "settings.h"
#include "timeutil.h"

#define O(field)	offsetof(struct verify_opts, field)

static int	opt_rev(void *, const char *);
static int	opt_keep(void *, const char *);
static int	opt_no_reuse(void *, const char *);
static int	opt_timeout(void *, const char *);
static int	opt_change(void *, const char *);
static int	opt_exit(void *, const char *);
static int	opt_jobs(void *, const char *);

const struct cmd_opt verify_options[] = {
	CMD_FLAG("isolated", 'i', O(isolated), 1, 0,
	    "run in an ephemeral copy (forge.isolated)"),
	CMD_FLAG("in-place", 0, O(isolated), 0, CMD_OR,
	    "run in the working tree itself"),
	CMD_FLAG("clone", 0, O(clone), 1, 0,
	    "the copy is a private clone (forge.isolation)"),
	CMD_FLAG("worktree", 0, O(clone), 0, CMD_OR,
	    "the copy is a linked worktree (the default)"),
	CMD_FLAG("staged", 0, O(staged), 1, CMD_BREAK,
	    "verify HEAD plus the index, in a copy"),
	CMD_CALL("rev", 0, required_argument, "rev", "REV", opt_rev,
	    CMD_OR | CMD_EQ, "verify commit REV's tree, in a copy; or\n"
	    "each commit of a range A..B in turn"),
	CMD_FLAG("keep-going", 0, O(keep_going), 1, CMD_BREAK,
	    "a range goes on past a failing commit"),
	CMD_FLAG("bisect", 0, O(bisect), 1, CMD_OR,
	    "search a range for its first failing commit"),
	CMD_FLAG("first-parent", 0, O(first_parent), 1, 0,
	    "a range follows only first parents"),
	CMD_CALL("jobs", 'j', required_argument, "n", "N", opt_jobs, 0,
	    "verify up to N commits of a range at once"),
	CMD_FLAG("no-check", 0, O(check), 0, 0,
	    "do not prove the copy first (unsafe)"),
	CMD_CALL("keep", 'k', optional_argument, "when", "W", opt_keep,
	    CMD_BREAK, "keep the copy and print its path: W is always\n"
	    "(the default), failure or never (forge.keep)"),
	CMD_FLAG("reuse", 0, O(reuse), 1, 0,
	    "bring a copy a run before left up to date,\n"
	    "and leave this one for the next (forge.reuse)"),
	CMD_CALL("no-reuse", 0, no_argument, NULL, NULL, opt_no_reuse, CMD_OR,
	    "a fresh copy, removed afterwards, whatever\n"
	    "forge.reuse and forge.incremental say"),
	CMD_FLAG("incremental", 0, O(incremental), 1, CMD_OR,
	    "reuse, keeping the copy's own ignored files:\n"
	    "build output (forge.incremental)"),
	CMD_FLAG("setup", 0, O(setup), 1, 0,
	    "run forge.setup even in a set-up copy"),
	CMD_CALL("timeout", 't', required_argument, "duration", "D",
	    opt_timeout, CMD_BREAK,
	    "stop after D (90s, 10m, 1h; forge.timeout)"),
	CMD_CALL("change", 0, optional_argument, "base", "B", opt_change, 0,
	    "report what changed since B (HEAD)"),
	CMD_FLAG("verbose", 'v', O(verbose), 1, 0, "say where the time went"),
	CMD_FLAG("no-breaker", 0, O(no_breaker), 1, 0,
	    "neither feed nor obey the circuit breaker"),
	CMD_FLAG("cache", 0, O(cache), 1, CMD_BREAK,
	    "reuse a PASS of the same inputs: tree, steps,\n"
	    "mode, environment (forge.cache)"),
	CMD_FLAG("no-cache", 0, O(cache), 0, CMD_OR,
	    "run even if a PASS is cached"),
	CMD_FLAG("audit", 0, O(audit), 1, CMD_BREAK,
	    "check a verdict from the cache or a reused copy\n"
	    "against a fresh copy's (forge.audit)"),
	CMD_FLAG("no-audit", 0, O(audit), 0, CMD_OR,
	    "trust the fast paths, whatever forge.audit says"),
	CMD_CALL("exit", 0, required_argument, "verdict | status", "verdict",
	    opt_exit, CMD_EQ, "exit 0 PASS, 1 FAIL, 124 timeout, 125 ERROR"),
	CMD_FLAG("contain", 0, O(contain), 1, CMD_BREAK,
	    "all but the copy and TMPDIR read-only, in\n"
	    "namespaces or with Landlock (forge.contain,\n"
	    "forge.containMethod)"),
	CMD_FLAG("no-contain", 0, O(contain), 0, CMD_OR,
	    "not contained, whatever forge.contain says"),
	CMD_FLAG("no-network", 0, O(no_network), 1, 0,
	    "no network: a loopback of its own at most"),
	CMD_END
};

/*
 * --rev and --change name exactly one commit: a range, a negation or an
 * option is refused here, before anything is built, and so is a second
 * revision.  (Whether it names a commit, start() asks git.)
 */
static int
one_commit(const char *opt, const char *was, const char *rev)
{
	enum rev_kind	k;

	if (was != NULL && strcmp(was, rev) != 0) {
		warnx("--%s=%s and --%s=%s: only one commit is accepted",
		    opt, fs_vis(was), opt, fs_vis(rev));
		return -1;
	}
	if ((k = repo_rev_kind(rev)) != REV_ONE) {
		warnx("--%s=%s: %s: only one commit is accepted", opt,
		    fs_vis(rev), repo_rev_kind_name(k));
		return -1;
	}
	return 0;
}

static int
opt_rev(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	if (*arg == '\0') {
		warnx("--rev=: the revision is empty");
		return -1;
	}
	/* A range: each of its commits in turn (verify_range.h). */
	if (repo_rev_kind(arg) == REV_RANGE && (o->rev == NULL ||
	    strcmp(o->rev, arg) == 0)) {
		o->rev = arg;
		o->range = 1;
		return 0;
	}
	if (one_commit("rev", o->rev, arg) == -1)
		return -1;
	o->rev = arg;
	return 0;
}

/* -k and --keep are --keep=always. */
static int
opt_keep(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	if (arg == NULL)
		o->keep = KEEP_ALWAYS;
	else if (*arg == '\0' || (o->keep = settings_keep(arg)) == -1) {
		warnx("--keep=%s: say --keep=always, --keep=failure or "
		    "--keep=never", fs_vis(arg));
		return -1;
	}
	return 0;
}

/* Not reused, so not incremental either, whatever came before. */
static int
opt_no_reuse(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	(void)arg;
	o->reuse = 0;
	o->incremental = 0;
	return 0;
}

static int
opt_timeout(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	if ((o->timeout_ms = timeutil_parse_duration(arg)) < 0) {
		warnx("--timeout %s: not a duration such as 90s, 10m or 1.5h",
		    fs_vis(arg));
		return -1;
	}
	return 0;
}

/* The base is attached with "=": the next word is the command. */
static int
opt_change(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	if (arg != NULL && *arg == '\0') {
		warnx("--change=: the base is empty");
		return -1;
	}
	if (one_commit("change", o->change, arg != NULL ? arg : "HEAD") == -1)
		return -1;
	o->change = arg != NULL ? arg : "HEAD";
	return 0;
}

static int
opt_exit(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;

	if (strcmp(arg, "verdict") == 0)
		o->exit_verdict = 1;
	else if (strcmp(arg, "status") == 0)
		o->exit_verdict = 0;
	else {
		warnx("--exit=%s: say --exit=verdict or --exit=status",
		    fs_vis(arg));
		return -1;
	}
	return 0;
}

static int
opt_jobs(void *opts, const char *arg)
{
	struct verify_opts	*o = opts;
	const char		*e;

	o->jobs = (int)strtonum(arg, 1, 64, &e);
	if (e != NULL) {
		warnx("--jobs %s: say a number of commits at once, 1 to 64",
		    fs_vis(arg));
		return -1;
	}
	return 0;
}

int
verify_opts_conflicts(const struct verify_opts *o, int isolated, int contain)
{
	if (o->clone == 1 && isolated == 0) {
		warnx("--clone makes the isolated copy a clone: it makes no "
		    "sense with --in-place");
		return -1;
	}
	if (o->clone == 1 && (o->staged || o->rev != NULL ||
	    o->reuse == 1 || o->incremental == 1)) {
		warnx("--clone makes a fresh copy of the working state: it "
		    "cannot be given with --staged, --rev, --reuse or "
		    "--incremental");
		return -1;
	}
	if (o->keep > KEEP_NEVER && isolated == 0) {
		warnx("--keep keeps the isolated copy: in place there is none "
		    "(add --isolated)");
		return -1;
	}
	if ((o->reuse == 1 || o->incremental == 1) && isolated == 0) {
		warnx("--%s reuses an isolated copy: it makes no sense with "
		    "--in-place", o->incremental == 1 ? "incremental" :
		    "reuse");
		return -1;
	}
	if (o->reuse == 0 && o->incremental == 1) {
		warnx("--incremental reuses the copy: it makes no sense with "
		    "--no-reuse");
		return -1;
	}
	if (o->staged && o->rev != NULL) {
		warnx("--staged and --rev name two different trees: give one");
		return -1;
	}
	if ((o->staged || o->rev != NULL) && o->change != NULL) {
		warnx("--change reports on the working state: it makes no "
		    "sense with --%s", o->staged ? "staged" : "rev");
		return -1;
	}
	if ((o->staged || o->rev != NULL) && isolated == 0) {
		warnx("--%s verifies in a copy: it makes no sense with "
		    "--in-place", o->staged ? "staged" : "rev");
		return -1;
	}
	if ((o->keep_going || o->bisect || o->first_parent ||
	    o->jobs > 1) && !o->range) {
		warnx("--%s goes through a range of commits: give one with "
		    "--rev=A..B", o->keep_going ? "keep-going" : o->bisect ?
		    "bisect" : o->first_parent ? "first-parent" : "jobs");
		return -1;
	}
	if (o->bisect && o->jobs > 1) {
		warnx("--bisect verifies one commit at a time, each choosing "
		    "the next: it makes no sense with --jobs");
		return -1;
	}
	if (o->keep_going && o->bisect) {
		warnx("--bisect stops at the first failing commit it finds: "
		    "it makes no sense with --keep-going");
		return -1;
	}
	if (o->range && o->keep > KEEP_NEVER) {
		warnx("--keep keeps one run's copy: a range's goes on from "
		    "commit to commit");
		return -1;
	}
	if (o->range && o->reuse == 1) {
		warnx("--reuse parks one run's copy: a range's goes on from "
		    "commit to commit");
		return -1;
	}
	if (contain == 1 && isolated == 0) {
		warnx("containment keeps the working tree read-only: it needs "
		    "the isolated copy (add --isolated, or --no-contain for "
		    "forge.contain)");
		return -1;
	}
	return 0;
}

int
verify_opts_parse(int argc, char **argv, struct verify_opts *o)
{
	int	n;

	memset(o, 0, sizeof(*o));
	o->isolated = -1;
	o->reuse = -1;
	o->incremental = -1;
	o->clone = -1;
	o->check = 1;
	o->timeout_ms = -1;
	o->contain = -1;
	o->cache = -1;
	o->audit = -1;
	o->keep = -1;
	o->jobs = 1;
	switch (n = cmd_parse(&cmd_verify_entry, argc, argv, o)) {
	case CMD_HELP:
		o->help = 1;
		return 0;
	case -1:
		return -1;
	}
	if (n < argc)
		o->argv = argv + n;
	if (verify_opts_conflicts(o, o->isolated, o->contain) == -1)
		return -1;
	/* The option, not the rule: an audit's fresh run in place reuses
	 * nothing either (verify_audit.h). */
	if (o->reuse == 0 && o->isolated == 0) {
		warnx("--no-reuse makes a fresh isolated copy: it makes no "
		    "sense with --in-place");
		return -1;
	}
	/* Only a copy can be reused, or made afresh. */
	if (o->reuse != -1 || o->incremental == 1)
		o->isolated = 1;
	return 0;
}
