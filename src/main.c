/*
 * forge: verify a project -- run its build and tests -- against an
 * ephemeral copy of the repository's working state.  Global options, the
 * subcommand table and the exit.
 */
#include "config.h"

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"
#include "forge.h"
#include "sig.h"

static void
help(void)
{
	printf("usage: forge verify [--isolated | --in-place] [--no-check] "
	    "[--keep]\n"
	    "                    [--timeout duration] [--change[=base]] "
	    "[--verbose]\n"
	    "                    [--exit=verdict | status] "
	    "[--] [command [argument ...]]\n"
	    "       forge status\n"
	    "       forge log [-n count] [--session id] [--json]\n"
	    "       forge breaker [show | reset]\n"
	    "       forge gc [--dry-run] [--kept]\n"
	    "       forge --help | --version\n"
	    "\n"
	    "Verify runs command (or the forge.verify steps) and records the "
	    "verdict.\n"
	    "With --isolated it runs in an ephemeral copy of the working "
	    "state:\n"
	    "a detached worktree at HEAD, plus the uncommitted changes, "
	    "plus the\n"
	    "untracked files git does not ignore.  The copy is proved "
	    "equal to the\n"
	    "working tree before anything runs, and removed afterwards.\n"
	    "\n"
	    "  -i, --isolated      run in an ephemeral copy (forge.isolated)\n"
	    "      --in-place      run in the working tree itself\n"
	    "      --no-check      do not prove the copy first (unsafe)\n"
	    "  -k, --keep          keep the copy and print its path\n"
	    "  -t, --timeout D     stop after D (90s, 10m, 1h; "
	    "forge.timeout)\n"
	    "      --change[=B]    report what changed since B (HEAD)\n"
	    "  -v, --verbose       say where the time went\n"
	    "      --exit=verdict  exit 0 PASS, 1 FAIL, 124 timeout, 125 "
	    "ERROR\n"
	    "\n"
	    "Exit status: 0 passed; the failing step's status (126, 127, "
	    "128+N);\n"
	    "124 timed out; 125 forge could not verify; %d usage; "
	    "%d breaker open.\n"
	    "See forge(1).\n", EXIT_USAGE, EXIT_BREAKER);
}

/*
 * Started with 0, 1 or 2 closed, the first file forge opens would get
 * that number, and a message meant for stderr would land in it (the
 * state lock, a journal record).  /dev/null takes their place first.
 */
static void
std_fds(void)
{
	int	fd;

	for (;;) {
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			err(EXIT_FORGE, "/dev/null");
		if (fd > 2) {
			close(fd);
			return;
		}
	}
}

int
main(int argc, char *argv[])
{
	const struct cmd	*c;

	std_fds();
	sig_init();
	cleanup_init();
	if (argc < 2) {
		cmd_usage(NULL);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help();
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("forge %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (c = cmds; c->name != NULL; c++)
		if (strcmp(c->name, argv[1]) == 0)
			cleanup_exit(c->run(argc - 1, argv + 1));
	warnx("%s: no such command", argv[1]);
	cmd_usage(NULL);
	return EXIT_USAGE;
}
