/* forge verify: parsed, then one run or a range, then the exit. */
#include "config.h"

#include "cmd.h"
#include "forge.h"
#include "verify_one.h"
#include "verify_opts.h"
#include "verify_range.h"

int	cmd_verify(int, char **);

const struct cmd_entry cmd_verify_entry = {
	"verify",
	"\n[--] [command [argument ...]]",
	"Verify runs command (or the forge.verify steps) and records the "
	"verdict.\nWith --isolated it runs in an ephemeral copy of the "
	"working state:\na detached worktree at HEAD, plus the uncommitted "
	"changes, plus the\nuntracked files git does not ignore.  The copy "
	"is proved equal to the\nworking tree before anything runs, and "
	"removed afterwards.  With --staged\nthe copy is HEAD plus the index, "
	"what git commit would record; with\n--rev, that commit's tree, or "
	"each commit's of a range A..B in turn,\nin one copy carried from "
	"commit to commit.  With --clone the copy is a\nprivate clone: git "
	"in it cannot change the repository, and the\nbranches and tags it "
	"makes come back under refs/forge/runs/<run>/.\n",
	verify_options,
	cmd_verify
};

int
cmd_verify(int argc, char **argv)
{
	struct verify_opts	 o;

	if (verify_opts_parse(argc, argv, &o) == -1)
		return EXIT_USAGE;
	if (o.help) {
		cmd_help(&cmd_verify_entry);
		return 0;
	}
	return o.range ? verify_range(&o) : verify_one(&o);
}
