/* forge show: the output a run of forge verify kept, printed again. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "context.h"
#include "event.h"
#include "forge.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_vis.h"
#include "json.h"
#include "runlog.h"
#include "state.h"
#include "xmalloc.h"

static const struct cmd_opt show_opts[] = {
	CMD_END
};

static int	cmd_show(int, char **);

const struct cmd_entry cmd_show_entry = {
	"show",
	"[run]",
	"Print the output a run of forge verify kept: its steps' output and\n"
	"forge's own lines, as they were streamed.  run is the id forge log\n"
	"shows in [log run]; without it, the last run that did not pass.\n",
	show_opts,
	cmd_show
};

struct last_failed {
	char	*id;		/* its log, or NULL */
	char	*time;
	int	 found;
};

static int
find_failed(const struct jv *ev, void *arg)
{
	struct last_failed	*lf = arg;
	struct event		 e;

	event_decode(&e, ev);
	if (e.type == NULL || strcmp(e.type, "verify") != 0 ||
	    e.verdict == NULL || strcmp(e.verdict, "PASS") == 0)
		return 0;
	lf->found = 1;
	if (e.log != NULL)
		lf->id = xstrdup(e.log);
	if (e.time != NULL)
		lf->time = xstrdup(e.time);
	return 1;
}

static int
print_file(const char *path)
{
	int	fd, ret;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		warn("%s", fs_vis(path));
		return -1;
	}
	fflush(stdout);
	if ((ret = fs_copy_fd(fd, STDOUT_FILENO)) == -1 && errno != EPIPE)
		warn("stdout");
	close(fd);
	return ret;
}

static int
show(struct context *ctx, const char *id)
{
	struct last_failed	 lf = { NULL, NULL, 0 };
	char			*logs, *path = NULL;
	int			 whole, alive, st = 1;

	if (id == NULL) {
		(void)state_events_back(&ctx->state, find_failed, &lf);
		if (!lf.found) {
			warnx("no run has failed yet");
			return 1;
		}
		id = lf.id;
	}
	logs = forgedir_logs(ctx->repo.common);
	if (id == NULL || (path = runlog_find(logs, id, &whole,
	    &alive)) == NULL) {
		if (lf.found)
			warnx("the last run that did not pass (%s) has no "
			    "output kept: forge.logSize was 0, or its log "
			    "went to keep forge.logTotal", lf.time != NULL ?
			    fs_vis(lf.time) : "?");
		else
			warnx("no output kept for run %s", fs_vis(id));
		goto out;
	}
	if (print_file(path) == -1) {
		st = EXIT_FORGE;
		goto out;
	}
	st = 0;
	if (!whole && alive)
		warnx("run %s is still running: this is its output so far",
		    id);
	else if (!whole) {
		warnx("run %s ended before its output was written whole: "
		    "this is only part of it", id);
		st = 1;
	}
out:
	free(path);
	free(logs);
	free(lf.id);
	free(lf.time);
	return st;
}

static int
cmd_show(int argc, char **argv)
{
	struct context	 ctx;
	int		 n, st;

	switch (n = cmd_parse(&cmd_show_entry, argc, argv, NULL)) {
	case CMD_HELP:
		cmd_help(&cmd_show_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	if (argc - n > 1) {
		cmd_usage(&cmd_show_entry);
		return EXIT_USAGE;
	}
	if ((st = context_open(&ctx, 0)) != 0) {
		context_close(&ctx);
		return st;
	}
	st = show(&ctx, n < argc ? argv[n] : NULL);
	context_close(&ctx);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return EXIT_FORGE;
	}
	return st;
}
