/* The timeline and the circuit breaker, on disk and locked. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs_vis.h"
#include "event.h"
#include "forgedir.h"
#include "fs.h"
#include "sig.h"
#include "state.h"
#include "tail.h"
#include "timeutil.h"
#include "xmalloc.h"

int
state_open(struct state *st, const char *common, const struct state_limits *c)
{
	memset(st, 0, sizeof(*st));
	st->lockfd = -1;
	st->common = xstrdup(common);
	st->dir = forgedir_root(common);
	st->timeline = forgedir_timeline(common);
	st->breaker = forgedir_breaker(common);
	st->threshold = c != NULL ? c->threshold : DEFAULT_THRESHOLD;
	st->max_size = c != NULL ? c->max_size : DEFAULT_TIMELINE_MAX;
	if (fs_mkdirs(st->dir, 0777) == -1) {
		warn("cannot create %s", fs_vis(st->dir));
		return -1;
	}
	return 0;
}

void
state_close(struct state *st)
{
	state_unlock(st);
	free(st->common);
	free(st->dir);
	free(st->timeline);
	free(st->breaker);
	memset(st, 0, sizeof(*st));
	st->lockfd = -1;
}

int
state_lock(struct state *st)
{
	struct timespec	 ts = { 0, 2 * 1000 * 1000 };
	long long	 start, now;
	char		*path;
	int		 said = 0, saved;

	if (st->lockfd != -1)
		return 0;
	path = forgedir_lock(st->common);
	st->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0666);
	if (st->lockfd == -1) {
		warn("cannot open %s", fs_vis(path));
		free(path);
		return -1;
	}
	start = timeutil_now_ms();
	/* Poll rather than block, so that a signal still gets through. */
	while (flock(st->lockfd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			if (errno == ENOLCK || errno == EOPNOTSUPP)
				break;	/* no locks here: go on */
			warn("cannot lock %s", fs_vis(path));
			goto fail;
		}
		if (sig_pending())
			goto fail;
		now = timeutil_now_ms();
		if (!said && now - start >= 1000) {
			warnx("waiting for another forge to release %s",
			    fs_vis(path));
			said = 1;
		}
		if (st->deadline_ms > 0 && now >= st->deadline_ms) {
			warnx("gave up waiting for %s: the time limit passed",
			    fs_vis(path));
			st->waited_ms += now - start;
			errno = ETIMEDOUT;
			goto fail;
		}
		nanosleep(&ts, NULL);
	}
	st->waited_ms += timeutil_now_ms() - start;
	free(path);
	return 0;
fail:
	saved = errno;
	free(path);
	close(st->lockfd);
	st->lockfd = -1;
	errno = saved;
	return -1;
}

void
state_unlock(struct state *st)
{
	if (st->lockfd != -1)
		close(st->lockfd);
	st->lockfd = -1;
}

void
state_event_begin(struct json *j, const char *type, const char *now)
{
	const char	*session = getenv("FORGE_SESSION");

	json_open(j, '{');
	json_key(j, EVENT_TYPE);
	json_str(j, type);
	json_key(j, EVENT_TIME);
	json_str(j, now);
	json_key(j, EVENT_SESSION);
	if (session != NULL && *session != '\0')
		json_str(j, session);
	else
		json_null(j);
	json_key(j, EVENT_VERSION);
	json_str(j, PACKAGE_VERSION);
}

int
state_timeline_parse(const char *text, size_t len, const char *origin,
    void (*fn)(const struct jv *, void *), void *arg)
{
	const char	*p = text, *end = text + len, *nl;
	struct jv	*v;
	size_t		 lineno = 0;
	int		 bad = 0;

	while (p < end) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			/* No newline: a write that never finished. */
			warnx("%s:%zu: skipping a torn last line", origin,
			    lineno);
			bad++;
			break;
		}
		if (nl == p) {
			p++;
			continue;
		}
		v = json_parse(p, (size_t)(nl - p));
		if (v == NULL || v->type != JV_OBJ) {
			warnx("%s:%zu: skipping a line that is not a JSON "
			    "object", origin, lineno);
			bad++;
		} else if (fn != NULL)
			fn(v, arg);
		json_free(v);
		p = nl + 1;
	}
	return bad;
}

static int
read_events(const char *path, void (*fn)(const struct jv *, void *),
    void *arg)
{
	struct buf	b = BUF_INIT;

	if (fs_read_file(path, &b, (size_t)1 << 30) == -1) {
		buf_free(&b);
		if (errno == ENOENT)
			return 0;
		warn("cannot read %s", fs_vis(path));
		return -1;
	}
	(void)state_timeline_parse(b.data != NULL ? b.data : "", b.len, path,
	    fn, arg);
	buf_free(&b);
	return 0;
}

int
state_events(struct state *st, void (*fn)(const struct jv *, void *),
    void *arg)
{
	char	*old;
	int	 ret;

	old = forgedir_timeline_old(st->common);
	ret = read_events(old, fn, arg);
	free(old);
	if (read_events(st->timeline, fn, arg) == -1)
		ret = -1;
	return ret;
}

/* The line number of the line at off, counted only when a warning
 * needs it: reading from the end, nothing else does. */
static size_t
line_number(int fd, off_t off)
{
	char	 b[65536], *p, *end;
	size_t	 n = 1;
	off_t	 at = 0;
	ssize_t	 r;

	while (at < off) {
		r = pread(fd, b, off - at < (off_t)sizeof(b) ?
		    (size_t)(off - at) : sizeof(b), at);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (p = b, end = b + r; (p = memchr(p, '\n',
		    (size_t)(end - p))) != NULL; p++)
			n++;
		at += r;
	}
	return n;
}

/* One file from its end; 1 once fn asked to stop. */
static int
events_back(const char *path, int fd, int (*fn)(const struct jv *, void *),
    void *arg)
{
	struct tail	 t;
	struct jv	*v;
	const char	*line;
	size_t		 len;
	int		 r, stop = 0;

	if (tail_open(&t, fd) == -1) {
		warn("cannot read %s", fs_vis(path));
		return 0;
	}
	while (!stop && (r = tail_prev(&t, &line, &len)) == 1) {
		if (len == 0)
			continue;
		if (t.torn) {
			/* A write that never finished. */
			warnx("%s:%zu: skipping a torn last line", path,
			    line_number(fd, t.off));
			continue;
		}
		v = json_parse(line, len);
		if (v == NULL || v->type != JV_OBJ)
			warnx("%s:%zu: skipping a line that is not a JSON "
			    "object", path, line_number(fd, t.off));
		else
			stop = fn(v, arg) != 0;
		json_free(v);
	}
	if (!stop && r == -1)
		warn("cannot read %s", fs_vis(path));
	tail_close(&t);
	return stop;
}

int
state_events_back(struct state *st, int (*fn)(const struct jv *, void *),
    void *arg)
{
	struct stat	 a, b;
	char		*old;
	int		 fd, fd1, stop = 0, ret = 0;

	/* The live file first: if it is rotated between the two opens,
	 * the old name then holds the file already read. */
	fd = open(st->timeline, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1 && errno != ENOENT) {
		warn("cannot read %s", fs_vis(st->timeline));
		ret = -1;
	}
	old = forgedir_timeline_old(st->common);
	fd1 = open(old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd1 == -1 && errno != ENOENT) {
		warn("cannot read %s", fs_vis(old));
		ret = -1;
	}
	if (fd != -1 && fd1 != -1 && fstat(fd, &a) == 0 &&
	    fstat(fd1, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino) {
		close(fd1);
		fd1 = -1;
	}
	if (fd != -1)
		stop = events_back(st->timeline, fd, fn, arg);
	if (!stop && fd1 != -1)
		(void)events_back(old, fd1, fn, arg);
	if (fd != -1)
		close(fd);
	if (fd1 != -1)
		close(fd1);
	free(old);
	return ret;
}

/* The events of one type in one file, newest first: counted, the first
 * met's time kept.  Only their lines are parsed. */
static void
count_back(int fd, const char *prefix, long long *n, char **last)
{
	struct tail	 t;
	struct jv	*v;
	struct event	 e;
	const char	*line;
	size_t		 len, plen = strlen(prefix);

	if (tail_open(&t, fd) == -1)
		return;
	while (tail_prev(&t, &line, &len) == 1) {
		if (t.torn || len < plen || memcmp(line, prefix, plen) != 0)
			continue;
		if (*last == NULL && (v = json_parse(line, len)) != NULL) {
			event_decode(&e, v);
			if (e.time != NULL)
				*last = xstrdup(e.time);
			json_free(v);
		}
		(*n)++;
	}
	tail_close(&t);
}

long long
state_events_count(struct state *st, const char *type, char **last)
{
	struct stat	 a, b;
	char		*old, *prefix;
	long long	 n = 0;
	int		 fd, fd1;

	*last = NULL;
	/* As the writer begins every event (state_event_begin()). */
	prefix = xasprintf("{\"" EVENT_TYPE "\":\"%s\",", type);
	fd = open(st->timeline, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	old = forgedir_timeline_old(st->common);
	fd1 = open(old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd != -1 && fd1 != -1 && fstat(fd, &a) == 0 &&
	    fstat(fd1, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino) {
		close(fd1);
		fd1 = -1;
	}
	if (fd != -1) {
		count_back(fd, prefix, &n, last);
		close(fd);
	}
	if (fd1 != -1) {
		count_back(fd1, prefix, &n, last);
		close(fd1);
	}
	free(old);
	free(prefix);
	return n;
}

struct replay {
	struct breaker	*b;
	int		 threshold;
};

static void
replay_one(const struct jv *ev, void *arg)
{
	struct replay	*r = arg;
	struct event	 e;

	event_decode(&e, ev);
	breaker_replay(r->b, &e, r->threshold);
}

int
state_breaker(struct state *st, struct breaker *b)
{
	struct replay	 r;
	struct buf	 text = BUF_INIT;
	struct stat	 sb;
	int		 exists;

	breaker_init(b);
	exists = lstat(st->breaker, &sb) == 0;
	if (exists) {
		if (fs_read_file(st->breaker, &text, 1 << 20) == 0 &&
		    breaker_from_json(b, text.data, text.len) == 0) {
			buf_free(&text);
			return 0;
		}
		warnx("%s is corrupt: rebuilding the breaker from the "
		    "timeline", fs_vis(st->breaker));
	} else if (lstat(st->timeline, &sb) == 0) {
		warnx("%s is missing: rebuilding the breaker from the "
		    "timeline", fs_vis(st->breaker));
	}
	buf_free(&text);
	/* The timeline has the whole story; with none, start fresh. */
	breaker_init(b);
	r.b = b;
	r.threshold = st->threshold;
	return state_events(st, replay_one, &r);
}

int
state_begin(struct state *st, struct state_txn *tx)
{
	struct buf	file = BUF_INIT;

	memset(&tx->old, 0, sizeof(tx->old));
	breaker_init(&tx->b);
	tx->on_disk = 0;
	if (state_lock(st) == -1)
		return -1;
	(void)state_breaker(st, &tx->b);
	breaker_to_json(&tx->b, &tx->old);
	/* Rebuilt, or written some other way: the commit saves it. */
	if (fs_read_file(st->breaker, &file, 1 << 20) == 0) {
		buf_rtrim(&file);
		tx->on_disk = file.len == tx->old.len &&
		    memcmp(file.data, tx->old.data, file.len) == 0;
	}
	buf_free(&file);
	return 0;
}

void
state_end(struct state *st, struct state_txn *tx)
{
	state_unlock(st);
	breaker_free(&tx->b);
	buf_free(&tx->old);
}

int
state_commit(struct state *st, struct state_txn *tx, const struct buf *events)
{
	struct buf	now = BUF_INIT;
	int		changed, ret = -1;

	breaker_to_json(&tx->b, &now);
	changed = now.len != tx->old.len ||
	    memcmp(now.data, tx->old.data, now.len) != 0;
	/*
	 * The timeline is the truth, breaker.json its summary.  A change
	 * unlinks the summary first, so that at every instant -- a crash
	 * included -- it is either right or missing, and a missing one is
	 * rebuilt from the timeline.  Only if it cannot go is nothing
	 * written.
	 */
	if (changed && unlink(st->breaker) == -1 && errno != ENOENT) {
		warn("cannot replace %s", fs_vis(st->breaker));
		goto out;
	}
	if (events != NULL && events->len > 0 &&
	    state_append(st, events) == -1)
		goto out;		/* not recorded; no summary either */
	/* A summary that fails to save is rebuilt next time. */
	if (changed || !tx->on_disk)
		(void)state_save_breaker(st, &tx->b);
	ret = 0;
out:
	buf_free(&now);
	state_end(st, tx);
	return ret;
}

int
state_save_breaker(struct state *st, const struct breaker *b)
{
	struct buf	out = BUF_INIT;
	int		ret;

	breaker_to_json(b, &out);
	buf_addc(&out, '\n');
	if ((ret = fs_write_atomic(st->breaker, out.data, out.len, 0666)) ==
	    -1)
		warn("cannot write %s", fs_vis(st->breaker));
	buf_free(&out);
	return ret;
}

int
state_append(struct state *st, const struct buf *lines)
{
	struct stat	 sb;
	char		*old;
	ssize_t		 w;
	off_t		 end;
	int		 fd, saved;

	/* Rotation happens under the state lock, which callers hold. */
	if (stat(st->timeline, &sb) == 0 && sb.st_size > 0 &&
	    (long long)sb.st_size + (long long)lines->len > st->max_size) {
		old = forgedir_timeline_old(st->common);
		if (rename(st->timeline, old) == -1)
			warn("cannot rotate %s", fs_vis(st->timeline));
		free(old);
	}
	fd = open(st->timeline, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0666);
	if (fd == -1) {
		warn("cannot open %s", fs_vis(st->timeline));
		return -1;
	}
	/* A line torn by a crash must not swallow this one. */
	if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
		char	last;

		if (pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n')
			(void)write(fd, "\n", 1);
	}
	end = lseek(fd, 0, SEEK_END);
	/* One write: a reader sees the whole of it or none of it. */
	do
		w = write(fd, lines->data, lines->len);
	while (w == -1 && errno == EINTR);
	if (w != (ssize_t)lines->len || fsync(fd) == -1) {
		saved = w == -1 || w == (ssize_t)lines->len ? errno : EIO;
		/* Not recorded, so not there: what was written of it goes,
		 * lest a reader take a verdict for recorded that the caller
		 * says was not (the state lock is held). */
		if (end != -1)
			(void)ftruncate(fd, end);
		close(fd);
		errno = saved;
		warn("cannot append to %s", fs_vis(st->timeline));
		return -1;
	}
	return close(fd);
}
