/* The steps' output passed on live, and handed to the run's log. */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "capture.h"
#include "fs.h"
#include "pathmap.h"
#include "runlog.h"
#include "sig.h"
#include "spawn.h"
#include "xmalloc.h"

#define BUFSZ	(256 * 1024)
/* How long a path's possible start is held back while nothing comes. */
#define HOLD_MS	50

/* A pseudo-terminal that passes bytes as written, sized as to is. */
static int
pty_open(struct capture_chan *c, int to)
{
	struct termios	 t;
	struct winsize	 ws;
	char		 name[128];
	int		 m, s = -1;

	if ((m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		return -1;
	if (grantpt(m) == -1 || unlockpt(m) == -1 ||
	    ptsname_r(m, name, sizeof(name)) != 0 ||
	    (s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    tcgetattr(s, &t) == -1) {
		close(m);
		if (s != -1)
			close(s);
		return -1;
	}
	t.c_oflag &= ~(tcflag_t)OPOST;
	(void)tcsetattr(s, TCSANOW, &t);
	if (ioctl(to, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(s, TIOCSWINSZ, &ws);
	c->rfd = m;
	c->wfd = s;
	return 0;
}

static int
chan_open(struct capture_chan *c, int to)
{
	int	p[2];

	c->to = to;
	c->rfd = c->wfd = -1;
	if (!isatty(to) || pty_open(c, to) == -1) {
		if (pipe2(p, O_CLOEXEC) == -1)
			return -1;
		c->rfd = p[0];
		c->wfd = p[1];
		/* Fewer trips through forge for a step that writes much. */
		(void)fcntl(c->wfd, F_SETPIPE_SZ, BUFSZ);
	}
	(void)fcntl(c->rfd, F_SETFL, fcntl(c->rfd, F_GETFL) | O_NONBLOCK);
	return 0;
}

static void
map_free(struct pathmap *m)
{
	if (m != NULL) {
		pathmap_free(m);
		free(m);
	}
}

static void
chan_close(struct capture_chan *c)
{
	if (c->rfd != -1)
		close(c->rfd);
	if (c->wfd != -1)
		close(c->wfd);
	c->rfd = c->wfd = -1;
	map_free(c->map);
	c->map = NULL;
}

/* Where a channel's bytes go, and the first failure to write them. */
struct sink {
	int	fd;
	int	error;
};

static void
sink_write(void *arg, const char *p, size_t n)
{
	struct sink	*s = arg;

	if (s->error != EPIPE && fs_write_all(s->fd, p, n) == -1 &&
	    s->error == 0)
		s->error = errno != 0 ? errno : EIO;
}

/* Its reader gone, the channel goes too: the step's next write meets
 * the broken pipe it would have met without forge.  Any other failure
 * loses these bytes from the screen only. */
static void
sunk(struct capture_chan *c, const struct sink *s)
{
	if (s->error == EPIPE && c->rfd != -1) {
		close(c->rfd);
		c->rfd = -1;
	}
}

/* What a channel's map held back, passed on. */
static void
flush(struct capture_chan *c)
{
	struct sink	s = { c->to, 0 };

	if (c->map == NULL || pathmap_held(c->map) == 0)
		return;
	pathmap_flush(c->map, sink_write, &s);
	sunk(c, &s);
}

static int
held(const struct capture *cap)
{
	return (cap->out.map != NULL && pathmap_held(cap->out.map) > 0) ||
	    (cap->err.map != NULL && pathmap_held(cap->err.map) > 0);
}

/* What is there to read, passed on; 0 once nothing is. */
static int
pump(struct capture *cap, struct capture_chan *c, char *buf)
{
	struct sink	s = { c->to, 0 };
	ssize_t		n;

	if (c->rfd == -1)
		return 0;
	/* A pipe fails to read only when empty (or interrupted). */
	if ((n = read(c->rfd, buf, BUFSZ)) == -1)
		return errno == EINTR;
	if (n == 0) {
		flush(c);
		if (c->rfd != -1)
			close(c->rfd);
		c->rfd = -1;
		return 0;
	}
	if (cap->quiet)
		;	/* the log's alone */
	else if (c->map != NULL)
		pathmap_feed(c->map, buf, (size_t)n, sink_write, &s);
	else
		sink_write(&s, buf, (size_t)n);
	sunk(c, &s);
	/* The log keeps what the step wrote, as it wrote it. */
	if (cap->log != NULL)
		runlog_add(cap->log, buf, (size_t)n);
	return 1;
}

/* All there is to read, passed on, and what the maps held back. */
static void
drain(struct capture *cap, char *buf)
{
	while (pump(cap, &cap->out, buf) || pump(cap, &cap->err, buf))
		;
	flush(&cap->out);
	flush(&cap->err);
}

/* The maps capture_map() made take the channels' places, and the
 * channels' go back to it, to be freed. */
static void
swap_maps(struct capture *cap)
{
	struct pathmap	*m;

	m = cap->out.map;
	cap->out.map = cap->next[0];
	cap->next[0] = m;
	m = cap->err.map;
	cap->err.map = cap->next[1];
	cap->next[1] = m;
}

/* Told that a sync is done; a reply that cannot be written closes the
 * channel, so that no caller waits for it ever. */
static void
reply(struct capture *cap, char cmd)
{
	int	tries;

	if (cap->ack[1] == -1)
		return;
	for (tries = 0; tries < 4; tries++)
		if (fs_write_all(cap->ack[1], &cmd, 1) == 0)
			return;
	close(cap->ack[1]);
	cap->ack[1] = -1;
}

static void *
tee_thread(void *arg)
{
	struct capture	*cap = arg;
	char		*buf = cap->buf;
	struct pollfd	 pfd[3];
	char		 cmd;
	ssize_t		 n;
	int		 k;

	for (;;) {
		pfd[0].fd = cap->ctl[0];
		pfd[1].fd = cap->out.rfd;
		pfd[2].fd = cap->err.rfd;
		pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
		/* What could start a path waits for what follows, but not
		 * for long: a step that went quiet is seen to. */
		if ((k = poll(pfd, 3, held(cap) ? HOLD_MS : -1)) == -1)
			continue;
		if (k == 0) {
			flush(&cap->out);
			flush(&cap->err);
			continue;
		}
		if (pfd[1].revents != 0)
			(void)pump(cap, &cap->out, buf);
		if (pfd[2].revents != 0)
			(void)pump(cap, &cap->err, buf);
		if (pfd[0].revents == 0 || (n = read(cap->ctl[0], &cmd,
		    1)) == -1)
			continue;
		drain(cap, buf);
		/* Its end closed: stop. */
		if (n != 1)
			break;
		if (cmd == 'm')
			swap_maps(cap);
		reply(cap, cmd);
	}
	/* The last it touches of cap: capture_stop() waits for this. */
	if (cap->ack[1] != -1)
		close(cap->ack[1]);
	return NULL;
}

/* forge's own stderr: fd 2, and the log. */
static ssize_t
own_write(void *arg, const char *p, size_t n)
{
	struct capture	*cap = arg;

	if (!cap->quiet)
		(void)fs_write_all(STDERR_FILENO, p, n);
	if (n > 0 && p[0] != '\r' && cap->log != NULL)
		runlog_add(cap->log, p, n);
	return (ssize_t)n;
}

static int
same_file(int a, int b)
{
	struct stat	sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int
open_chans(struct capture *cap)
{
	struct stat	st;

	cap->out.rfd = cap->out.wfd = cap->err.rfd = cap->err.wfd = -1;
	if (fstat(STDOUT_FILENO, &st) == -1 || fstat(STDERR_FILENO, &st) ==
	    -1) {
		errno = EBADF;
		return -1;
	}
	if (chan_open(&cap->out, STDOUT_FILENO) == -1)
		return -1;
	if (same_file(STDOUT_FILENO, STDERR_FILENO))
		return 0;
	if (chan_open(&cap->err, STDERR_FILENO) == -1) {
		chan_close(&cap->out);
		return -1;
	}
	return 0;
}

int
capture_start(struct capture *cap, struct runlog *log, int flags)
{
	cookie_io_functions_t	 fns = { NULL, own_write, NULL, NULL };
	sigset_t		 old;

	memset(cap, 0, sizeof(*cap));
	cap->log = log;
	cap->quiet = (flags & CAPTURE_QUIET) != 0;
	/* Made now: the thread needs no allocation that could fail with
	 * the steps' output waiting. */
	if ((cap->buf = malloc(BUFSZ)) == NULL) {
		warn("the run's output will not be kept");
		return -1;
	}
	cap->ctl[0] = cap->ctl[1] = cap->ack[0] = cap->ack[1] = -1;
	if (open_chans(cap) == -1 || pipe2(cap->ctl, O_CLOEXEC) == -1 ||
	    pipe2(cap->ack, O_CLOEXEC) == -1) {
		warn("the run's output will not be kept");
		goto fail;
	}
	sig_block_all(&old);
	cap->running = pthread_create(&cap->thread, NULL, tee_thread, cap) == 0;
	sig_restore(&old);
	if (!cap->running) {
		warnx("the run's output will not be kept: no thread to pass "
		    "it on");
		goto fail;
	}
	if ((cap->mine = fopencookie(cap, "w", fns)) != NULL) {
		setvbuf(cap->mine, NULL, _IONBF, 0);
		fflush(stderr);
		cap->saved_stderr = stderr;
		stderr = cap->mine;
	}
	return 0;
fail:
	chan_close(&cap->out);
	chan_close(&cap->err);
	if (cap->ctl[0] != -1) {
		close(cap->ctl[0]);
		close(cap->ctl[1]);
	}
	if (cap->ack[0] != -1) {
		close(cap->ack[0]);
		close(cap->ack[1]);
	}
	free(cap->buf);
	memset(cap, 0, sizeof(*cap));
	return -1;
}

int
capture_out(const struct capture *cap)
{
	return cap->running && cap->out.wfd != -1 ? cap->out.wfd :
	    SPAWN_INHERIT;
}

int
capture_err(const struct capture *cap)
{
	if (!cap->running)
		return SPAWN_INHERIT;
	return cap->err.wfd != -1 ? cap->err.wfd : cap->out.wfd;
}

int
capture_map(struct capture *cap, const char *from, const char *to)
{
	struct pathmap	*m[2] = { NULL, NULL };
	char		 got, cmd = 'm';
	int		 i;

	/* Nothing is passed on from a quiet one. */
	if (!cap->running || cap->quiet)
		return 0;
	for (i = 0; i < 2 && from != NULL; i++) {
		m[i] = xmalloc(sizeof(*m[i]));
		if (pathmap_init(m[i], from, to) == -1) {
			free(m[i]);
			m[i] = NULL;
			map_free(m[0]);
			return -1;
		}
	}
	cap->next[0] = m[0];
	cap->next[1] = m[1];
	if (fs_write_all(cap->ctl[1], &cmd, 1) == -1) {
		map_free(m[0]);
		map_free(m[1]);
		cap->next[0] = cap->next[1] = NULL;
		return -1;
	}
	while ((i = (int)read(cap->ack[0], &got, 1)) == -1 && errno == EINTR)
		;
	/* No reply: the thread may yet take them; they are left to it. */
	if (i != 1)
		return -1;
	map_free(cap->next[0]);
	map_free(cap->next[1]);
	cap->next[0] = cap->next[1] = NULL;
	return 0;
}

void
capture_sync(struct capture *cap)
{
	char	got;
	char	cmd = 's';

	if (!cap->running || fs_write_all(cap->ctl[1], &cmd, 1) == -1)
		return;
	while (read(cap->ack[0], &got, 1) == -1 && errno == EINTR)
		;
}

void
capture_stop(struct capture *cap)
{
	char	c;

	if (!cap->running)
		return;
	if (cap->mine != NULL) {
		stderr = cap->saved_stderr;
		fclose(cap->mine);
	}
	/* Its control channel closed, the thread passes on what is left,
	 * then closes its reply channel as it ends. */
	close(cap->ctl[1]);
	while (read(cap->ack[0], &c, 1) != 0)
		;
	/* It is at its end (it closed the reply channel last): joined, so
	 * that what it did to cap happened before what is done here. */
	(void)pthread_join(cap->thread, NULL);
	chan_close(&cap->out);
	chan_close(&cap->err);
	close(cap->ctl[0]);
	close(cap->ack[0]);
	free(cap->buf);
	memset(cap, 0, sizeof(*cap));
}

FILE *
capture_stderr(const struct capture *cap)
{
	return cap->mine != NULL && stderr == cap->mine ? cap->saved_stderr :
	    stderr;
}
