/* Run records: each copy recorded before it exists, appended as it goes. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_RANDOM_H
#include <sys/random.h>
#endif

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_vis.h"
#include "journal.h"
#include "json.h"
#include "proc.h"
#include "timeutil.h"
#include "xmalloc.h"

/*
 * Bytes for a run id, drawn without ever exiting: libbsd's arc4random()
 * exits, with status 1 and not a word, when it cannot map its state --
 * and 1 reads as the command's FAIL.  getrandom(2), else /dev/urandom,
 * else the clock and the pid: an id must be new, not secret (its record
 * and its directory are made with O_EXCL, so a clash is an error, never
 * a copy shared).
 */
static void
random_bytes(unsigned char *p, size_t n)
{
	struct timespec	 ts;
	uint64_t	 x;
	ssize_t		 r;
	size_t		 got = 0, i;
	int		 fd;

#ifdef HAVE_GETRANDOM
	while (got < n) {
		if ((r = getrandom(p + got, n - got, 0)) == -1) {
			if (errno == EINTR)
				continue;
			break;		/* ENOSYS: before Linux 3.17 */
		}
		got += (size_t)r;
	}
#endif
	if (got < n && (fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) !=
	    -1) {
		while (got < n) {
			if ((r = read(fd, p + got, n - got)) == -1 &&
			    errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		close(fd);
	}
	if (got == n)
		return;
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	x = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
	    ((uint64_t)getpid() << 40);
	for (i = got; i < n; i++) {
		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

void
journal_new_run_id(char *buf, size_t n)
{
	unsigned char	b[8];

	random_bytes(b, sizeof(b));
	snprintf(buf, n, "%02x%02x%02x%02x%02x%02x%02x%02x", b[0], b[1],
	    b[2], b[3], b[4], b[5], b[6], b[7]);
}

static int
append_line(struct journal *j, struct buf *line)
{
	ssize_t	w;
	size_t	off = 0;

	buf_addc(line, '\n');
	while (off < line->len) {
		w = write(j->fd, line->data + off, line->len - off);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return fsync(j->fd);
}

/* A note of the record, said if it cannot be written; line is freed. */
static int
append_note(struct journal *j, struct buf *line)
{
	int	ret;

	if ((ret = append_line(j, line)) == -1)
		warn("cannot record the copy in %s", j->path);
	buf_free(line);
	return ret;
}

int
journal_open(struct journal *j, const char *common, const char *run,
    const char *top)
{
	struct timespec		 pause = { 0, 2 * 1000 * 1000 };
	struct buf		 line = BUF_INIT;
	struct json		 js;
	unsigned long long	 start = 0;
	char			*dir, ts[RFC3339_LEN];
	int			 saved, tries;

	j->fd = -1;
	dir = forgedir_copies(common);
	if (fs_mkdirs(dir, 0777) == -1) {
		warn("cannot record the copy in %s", dir);
		free(dir);
		j->path = NULL;
		return -1;
	}
	free(dir);
	j->path = forgedir_record(common, run);
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC, 0666);
	if (j->fd == -1) {
		warn("cannot record the copy in %s", j->path);
		goto fail;
	}
	/*
	 * Locked before anything is written.  Another run's reclaim may be
	 * holding the lock for the instant it takes to see that the record
	 * is new and empty (it leaves those alone): wait that out.
	 */
	for (tries = 0; flock(j->fd, LOCK_EX | LOCK_NB) == -1; tries++) {
		if (errno == ENOLCK || errno == EOPNOTSUPP)
			break;	/* no locks here: the pid check remains */
		if ((errno != EWOULDBLOCK && errno != EINTR) || tries > 1000) {
			warn("cannot lock %s", j->path);
			goto fail;
		}
		(void)nanosleep(&pause, NULL);
	}
	(void)proc_start_time(getpid(), &start);
	json_init(&js, &line);
	json_open(&js, '{');
	json_key(&js, "run");
	json_str(&js, run);
	json_key(&js, "pid");
	json_int(&js, (long long)getpid());
	json_key(&js, "start");
	json_int(&js, (long long)start);
	json_key(&js, "boot");
	json_str(&js, proc_boot_id());
	json_key(&js, "top");
	json_str(&js, top);
	json_key(&js, "created");
	json_str(&js, timeutil_rfc3339(ts, time(NULL)));
	json_close(&js, '}');
	if (append_line(j, &line) == -1) {
		warn("cannot record the copy in %s", j->path);
		goto fail;
	}
	buf_free(&line);
	return 0;
fail:
	saved = errno;
	buf_free(&line);
	if (j->fd != -1) {
		unlink(j->path);
		close(j->fd);
		j->fd = -1;
	}
	free(j->path);
	j->path = NULL;
	errno = saved;
	return -1;
}

static int
note(struct journal *j, const char *key, const char *s, long long n,
    const char *key2, long long n2)
{
	struct buf	line = BUF_INIT;
	struct json	js;

	if (j->fd == -1)
		return 0;
	json_init(&js, &line);
	json_open(&js, '{');
	json_key(&js, key);
	if (s != NULL)
		json_str(&js, s);
	else
		json_int(&js, n);
	if (key2 != NULL) {
		json_key(&js, key2);
		json_int(&js, n2);
	}
	json_close(&js, '}');
	return append_note(j, &line);
}

int
journal_note_repo(struct journal *j, const char *common)
{
	return note(j, "repo", common, 0, NULL, 0);
}

int
journal_note_child(struct journal *j, pid_t pid)
{
	unsigned long long	start = 0;

	(void)proc_start_time(pid, &start);
	return note(j, "child", NULL, pid, "start", (long long)start);
}

int
journal_note_kept(struct journal *j, const char *copy)
{
	return note(j, "kept", copy, 0, NULL, 0);
}

int
journal_note_reuse(struct journal *j, const struct journal_reuse *r)
{
	struct buf	line = BUF_INIT;
	struct json	js;
	struct timespec	t[2];

	json_init(&js, &line);
	json_open(&js, '{');
	json_key(&js, "reuse");
	json_str(&js, r->copy);
	json_key(&js, "source");
	json_str(&js, r->source);
	json_key(&js, "kind");
	json_str(&js, r->kind);
	json_key(&js, "incremental");
	json_bool(&js, r->incremental);
	json_key(&js, "setup");
	json_str(&js, r->setup);
	json_close(&js, '}');
	if (append_note(j, &line) == -1)
		return -1;
	if (r->used != NULL) {
		t[0].tv_sec = 0;
		t[0].tv_nsec = UTIME_OMIT;
		t[1] = *r->used;
		(void)futimens(j->fd, t);
	}
	return 0;
}

/* The run taking a parked copy over becomes its owner: its pid, start
 * time and boot are what reclaim checks from now on. */
int
journal_note_use(struct journal *j)
{
	struct buf		 line = BUF_INIT;
	struct json		 js;
	unsigned long long	 start = 0;
	char			 ts[RFC3339_LEN];

	(void)proc_start_time(getpid(), &start);
	json_init(&js, &line);
	json_open(&js, '{');
	json_key(&js, "use");
	json_str(&js, timeutil_rfc3339(ts, time(NULL)));
	json_key(&js, "pid");
	json_int(&js, (long long)getpid());
	json_key(&js, "start");
	json_int(&js, (long long)start);
	json_key(&js, "boot");
	json_str(&js, proc_boot_id());
	json_close(&js, '}');
	return append_note(j, &line);
}

int
journal_claim(struct journal *j, const char *path, struct journal_entry *e)
{
	struct buf	text = BUF_INIT;
	struct stat	st;
	int		fd;

	memset(e, 0, sizeof(*e));
	j->fd = -1;
	j->path = NULL;
	if ((fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1)
		return errno == ENOENT ? 1 : -1;
	/* Held: another run has it, or a gc is looking at it. */
	if (flock(fd, LOCK_EX | LOCK_NB) == -1 ||
	    fstat(fd, &st) == -1 || st.st_nlink == 0 || !S_ISREG(st.st_mode))
		goto busy;
	while (buf_read(&text, fd, 65536) > 0)
		;
	if (journal_parse(text.data != NULL ? text.data : "", text.len,
	    e) == -1 || e->reuse == NULL ||
	    strcmp(e->run, fs_basename(path)) != 0)
		goto busy;
	j->fd = fd;
	j->path = xstrdup(path);
	buf_free(&text);
	return 0;
busy:
	journal_entry_free(e);
	buf_free(&text);
	close(fd);
	return 1;
}

void
journal_close(struct journal *j, int remove)
{
	if (j->path != NULL && remove)
		(void)unlink(j->path);
	if (j->fd != -1)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}

void
journal_entry_free(struct journal_entry *e)
{
	free(e->run);
	free(e->boot);
	free(e->top);
	free(e->created);
	free(e->kept);
	free(e->reuse);
	free(e->reuse_source);
	free(e->reuse_setup);
	free(e->reuse_kind);
	strv_free(&e->repos);
	memset(e, 0, sizeof(*e));
}

int
journal_parse(const char *text, size_t len, struct journal_entry *e)
{
	const char	*p = text, *end = text + len, *nl;
	struct jv	*v;
	const char	*s;

	memset(e, 0, sizeof(*e));
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;	/* a torn last line will not parse */
		v = json_parse(p, (size_t)(nl - p));
		p = nl + 1;
		if (v == NULL)
			continue;
		if ((s = json_as_str(json_get(v, "run"))) != NULL &&
		    e->run == NULL) {
			e->run = xstrdup(s);
			e->pid = (long)json_as_num(json_get(v, "pid"), 0);
			e->start = (unsigned long long)json_as_num(json_get(v,
			    "start"), 0);
			if ((s = json_as_str(json_get(v, "boot"))) != NULL)
				e->boot = xstrdup(s);
			if ((s = json_as_str(json_get(v, "top"))) != NULL)
				e->top = xstrdup(s);
			if ((s = json_as_str(json_get(v, "created"))) != NULL)
				e->created = xstrdup(s);
		} else if ((s = json_as_str(json_get(v, "repo"))) != NULL) {
			strv_push(&e->repos, s);
		} else if (json_get(v, "child") != NULL) {
			e->child = (long)json_as_num(json_get(v, "child"), 0);
			e->child_start = (unsigned long long)json_as_num(
			    json_get(v, "start"), 0);
		} else if ((s = json_as_str(json_get(v, "kept"))) != NULL) {
			free(e->kept);
			e->kept = xstrdup(s);
			free(e->reuse);
			e->reuse = NULL;
		} else if ((s = json_as_str(json_get(v, "reuse"))) != NULL) {
			free(e->reuse);
			e->reuse = xstrdup(s);
			free(e->reuse_source);
			s = json_as_str(json_get(v, "source"));
			e->reuse_source = s != NULL ? xstrdup(s) : NULL;
			free(e->reuse_setup);
			e->reuse_setup = xstrdup((s = json_as_str(json_get(v,
			    "setup"))) != NULL ? s : "");
			free(e->reuse_kind);
			s = json_as_str(json_get(v, "kind"));
			e->reuse_kind = s != NULL ? xstrdup(s) : NULL;
			e->incremental = json_as_bool(json_get(v,
			    "incremental"), 0);
			e->reusable = 1;
		} else if (json_get(v, "use") != NULL) {
			/* Taken over: in use, by a new owner. */
			free(e->reuse);
			e->reuse = NULL;
			e->pid = (long)json_as_num(json_get(v, "pid"), 0);
			e->start = (unsigned long long)json_as_num(json_get(v,
			    "start"), 0);
			free(e->boot);
			s = json_as_str(json_get(v, "boot"));
			e->boot = s != NULL ? xstrdup(s) : NULL;
		}
		json_free(v);
	}
	return e->run != NULL ? 0 : -1;
}
