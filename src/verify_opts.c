/* forge verify's command line: its options, parsed. */
#include "config.h"

#include <err.h>
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "cmd_verify.h"
#include "fsutil.h"
#include "repo.h"
#include "settings.h"
#include "timeutil.h"

static const struct option longopts[] = {
	{ "isolated",	no_argument,		NULL, 'i' },
	{ "in-place",	no_argument,		NULL, 'I' },
	{ "clone",	no_argument,		NULL, 'L' },
	{ "worktree",	no_argument,		NULL, 'W' },
	{ "no-check",	no_argument,		NULL, 'N' },
	{ "keep",	optional_argument,	NULL, 'k' },
	{ "reuse",	no_argument,		NULL, 'U' },
	{ "no-reuse",	no_argument,		NULL, 'R' },
	{ "incremental", no_argument,		NULL, 'M' },
	{ "setup",	no_argument,		NULL, 's' },
	{ "timeout",	required_argument,	NULL, 't' },
	{ "change",	optional_argument,	NULL, 'c' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "exit",	required_argument,	NULL, 'e' },
	{ "contain",	no_argument,		NULL, 'C' },
	{ "no-contain",	no_argument,		NULL, 'P' },
	{ "no-network",	no_argument,		NULL, 'n' },
	{ "staged",	no_argument,		NULL, 'S' },
	{ "rev",	required_argument,	NULL, 'r' },
	{ "no-breaker",	no_argument,		NULL, 'B' },
	{ "cache",	no_argument,		NULL, 'K' },
	{ "no-cache",	no_argument,		NULL, 'X' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
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

int
verify_parse(int argc, char **argv, struct verify_opts *o)
{
	int	ch;

	memset(o, 0, sizeof(*o));
	o->isolated = -1;
	o->reuse = -1;
	o->incremental = -1;
	o->clone = -1;
	o->check = 1;
	o->timeout_ms = -1;
	o->contain = -1;
	o->cache = -1;
	o->keep = -1;
	optind = 0;	/* GNU: start afresh, as tests parse repeatedly */
	/* "+": the first non-option is COMMAND; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+ikt:vh", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'i':
			o->isolated = 1;
			break;
		case 'I':
			o->isolated = 0;
			break;
		case 'L':
			o->clone = 1;
			break;
		case 'W':
			o->clone = 0;
			break;
		case 'N':
			o->check = 0;
			break;
		case 'k':
			if (optarg == NULL)
				o->keep = KEEP_ALWAYS;
			else if (*optarg == '\0' ||
			    (o->keep = settings_keep(optarg)) == -1) {
				warnx("--keep=%s: say --keep=always, "
				    "--keep=failure or --keep=never",
				    fs_vis(optarg));
				return -1;
			}
			break;
		case 'U':
			o->reuse = 1;
			break;
		case 'R':
			o->reuse = 0;
			o->incremental = 0;
			break;
		case 'M':
			o->incremental = 1;
			break;
		case 's':
			o->setup = 1;
			break;
		case 't':
			if ((o->timeout_ms = duration_parse(optarg)) < 0) {
				warnx("--timeout %s: not a duration such as "
				    "90s, 10m or 1.5h", fs_vis(optarg));
				return -1;
			}
			break;
		case 'c':
			if (optarg != NULL && *optarg == '\0') {
				warnx("--change=: the base is empty");
				return -1;
			}
			if (one_commit("change", o->change, optarg != NULL ?
			    optarg : "HEAD") == -1)
				return -1;
			o->change = optarg != NULL ? optarg : "HEAD";
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'e':
			if (strcmp(optarg, "verdict") == 0)
				o->exit_verdict = 1;
			else if (strcmp(optarg, "status") == 0)
				o->exit_verdict = 0;
			else {
				warnx("--exit=%s: say --exit=verdict or "
				    "--exit=status", fs_vis(optarg));
				return -1;
			}
			break;
		case 'C':
			o->contain = 1;
			break;
		case 'P':
			o->contain = 0;
			break;
		case 'n':
			o->no_network = 1;
			break;
		case 'S':
			o->staged = 1;
			break;
		case 'r':
			if (*optarg == '\0') {
				warnx("--rev=: the revision is empty");
				return -1;
			}
			if (one_commit("rev", o->rev, optarg) == -1)
				return -1;
			o->rev = optarg;
			break;
		case 'B':
			o->no_breaker = 1;
			break;
		case 'K':
			o->cache = 1;
			break;
		case 'X':
			o->cache = 0;
			break;
		case 'h':
			o->help = 1;
			return 0;
		default:
			cmd_usage(&cmd_verify_entry);
			return -1;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->clone == 1 && o->isolated == 0) {
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
	if (o->keep > KEEP_NEVER && o->isolated == 0) {
		warnx("--keep keeps the isolated copy: it makes no sense with "
		    "--in-place");
		return -1;
	}
	if ((o->reuse == 1 || o->incremental == 1) && o->isolated == 0) {
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
	/* Only a copy can be reused. */
	if (o->reuse == 1 || o->incremental == 1)
		o->isolated = 1;
	if (o->staged && o->rev != NULL) {
		warnx("--staged and --rev name two different trees: give one");
		return -1;
	}
	if ((o->staged || o->rev != NULL) && o->change != NULL) {
		warnx("--change reports on the working state: it makes no "
		    "sense with --%s", o->staged ? "staged" : "rev");
		return -1;
	}
	if ((o->staged || o->rev != NULL) && o->isolated == 0) {
		warnx("--%s verifies in a copy: it makes no sense with "
		    "--in-place", o->staged ? "staged" : "rev");
		return -1;
	}
	if ((o->staged || o->rev != NULL) && (o->reuse == 1 ||
	    o->incremental == 1)) {
		warnx("--%s makes a copy of its own: it cannot be reused",
		    o->staged ? "staged" : "rev");
		return -1;
	}
	return 0;
}
