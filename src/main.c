/* Start-up: global options, the dispatch to a command (cmd.h), the exit. */
/*
 * forge: verify a project -- run its build and tests -- against an
 * ephemeral copy of the repository's working state.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cmd.h"
#include "forge.h"
#include "sig.h"

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

/*
 * What was printed must have reached standard output: a full disk or a
 * closed pipe is an error, though a reader that stopped reading (head)
 * needs no message.
 */
static int
flushed(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (errno != EPIPE)
			warn("standard output");
		return status == 0 ? EXIT_FORGE : status;
	}
	return status;
}

int
main(int argc, char *argv[])
{
	const struct cmd_entry	*c;

	std_fds();
	sig_init();
	cleanup_init();
	if (argc < 2) {
		cmd_usage(NULL);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (c = cmd_find(argv[2])) != NULL)
			cmd_help(c);
		else
			cmd_help(NULL);
		return flushed(0);
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("forge %s\n", PACKAGE_VERSION);
		return flushed(0);
	}
	if ((c = cmd_find(argv[1])) != NULL)
		cleanup_exit(flushed(c->exec(argc - 1, argv + 1)));
	warnx("%s: no such command", argv[1]);
	cmd_usage(NULL);
	return EXIT_USAGE;
}
