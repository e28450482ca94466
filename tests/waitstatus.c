/*
 * waitstatus: run a command and say how it ended, for tests that must
 * tell "killed by signal N" from "exited with status 128+N", which a
 * shell's $? cannot.
 *
 *	waitstatus pidfile outfile command [argument ...]
 *
 * Once the command is started its pid is written to pidfile (complete
 * when the file appears); when it ends, "signal N" or "exit N" is written
 * to outfile.  waitstatus itself exits 0, or 2 on its own errors.  It
 * changes no signal disposition: the command inherits them as they are.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
put(const char *path, const char *text)
{
	char	*tmp;
	FILE	*fp;

	if (asprintf(&tmp, "%s.tmp", path) == -1)
		err(2, NULL);
	if ((fp = fopen(tmp, "w")) == NULL)
		err(2, "%s", tmp);
	if (fputs(text, fp) == EOF || fclose(fp) == EOF)
		err(2, "%s", tmp);
	if (rename(tmp, path) == -1)
		err(2, "%s", path);
	free(tmp);
}

int
main(int argc, char *argv[])
{
	char	buf[64];
	pid_t	pid;
	int	ws;

	if (argc < 4) {
		fprintf(stderr, "usage: waitstatus pidfile outfile command "
		    "[argument ...]\n");
		return 2;
	}
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		warn("%s", argv[3]);
		_exit(127);
	}
	snprintf(buf, sizeof(buf), "%ld\n", (long)pid);
	put(argv[1], buf);
	while (waitpid(pid, &ws, 0) == -1)
		if (errno != EINTR)
			err(2, "waitpid");
	if (WIFSIGNALED(ws))
		snprintf(buf, sizeof(buf), "signal %d\n", WTERMSIG(ws));
	else
		snprintf(buf, sizeof(buf), "exit %d\n", WEXITSTATUS(ws));
	put(argv[2], buf);
	return 0;
}
