/* A run's output kept in a file of its own, capped, written aside. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "fs_vis.h"
#include "journal.h"
#include "runlog.h"
#include "sig.h"
#include "xmalloc.h"

/* What the writer may fall behind by before bytes are dropped: the
 * pipe's size, if Linux grants it (pipe-max-size is 1 MiB unless set). */
#define PIPE_SIZE	(1024 * 1024)
#define CHUNK		(64 * 1024)

/* The writer's side of a chunk: the head to the file, the rest kept in
 * the tail, a ring of its own that only the last tsize bytes stay in. */
static void
take(struct runlog *lg, const char *p, size_t n)
{
	size_t	k, at;

	if (lg->written < lg->head_max) {
		k = (size_t)(lg->head_max - lg->written);
		if (k > n)
			k = n;
		if (lg->err == 0 && fs_write_all(lg->fd, p, k) == -1)
			lg->err = errno;
		lg->written += (long long)k;
		p += k;
		n -= k;
	}
	while (n > 0 && lg->tsize > 0) {
		at = (size_t)(lg->tail_seen % (long long)lg->tsize);
		k = lg->tsize - at < n ? lg->tsize - at : n;
		memcpy(lg->tail + at, p, k);
		lg->tail_seen += (long long)k;
		p += k;
		n -= k;
	}
}

/*
 * Detached, and waited for through done: the thread makes no call that
 * takes a lock (no allocation, no stdio), and nothing waits on a futex
 * for it, which the C library would abort on should it fail.
 */
static void *
writer(void *arg)
{
	/* One log at a time. */
	static char	 chunk[CHUNK];
	struct runlog	*lg = arg;
	ssize_t		 n;

	/* Until every writer has closed its end; on an error the pipe
	 * fills, and what follows is counted as dropped. */
	while ((n = read(lg->pipe[0], chunk, CHUNK)) > 0 ||
	    (n == -1 && errno == EINTR))
		if (n > 0)
			take(lg, chunk, (size_t)n);
	if (n == -1)
		lg->err = errno;
	/* The last it touches of lg. */
	close(lg->done[1]);
	return NULL;
}

/* The writer's end: done's other end closed. */
static void
writer_wait(struct runlog *lg)
{
	char	c;

	/* Nothing is ever written there: only its end is read. */
	while (read(lg->done[0], &c, 1) != 0)
		;
	close(lg->done[0]);
	/* At its end: joined, so that what it did to lg happened before
	 * what the caller does next. */
	(void)pthread_join(lg->thread, NULL);
}

void
runlog_add(struct runlog *lg, const void *p, size_t n)
{
	const char	*s = p;
	ssize_t		 w;

	if (lg == NULL || !lg->running)
		return;
	while (n > 0) {
		if ((w = write(lg->pipe[1], s, n)) == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
	/* Full (the disk is slow), or failing: never wait for it. */
	if (n > 0)
		(void)__atomic_fetch_add(&lg->dropped, (long long)n,
		    __ATOMIC_RELAXED);
}

/*
 * A new <id>.part, locked.  Locked after it is made, so a pruner may
 * take it for a dead run's in between and remove it: then the name no
 * longer leads to the file locked, and another id is tried.
 */
static int
create_part(struct runlog *lg)
{
	struct stat	a, b;
	char		run[32];
	int		tries;

	for (tries = 0; tries < 16; tries++) {
		journal_new_run_id(run, sizeof(run));
		memcpy(lg->id, run, RUNLOG_ID_LEN);
		lg->id[RUNLOG_ID_LEN] = '\0';
		free(lg->part);
		lg->part = xasprintf("%s/%s.part", lg->dir, lg->id);
		lg->fd = open(lg->part, O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC | O_NOFOLLOW, 0600);
		if (lg->fd == -1 && errno == EEXIST)
			continue;
		if (lg->fd == -1)
			return -1;
		/* Where the file system takes no locks (ENOLCK), the
		 * file is taken for a live run's by everyone: it stays. */
		(void)flock(lg->fd, LOCK_EX);
		if (fstat(lg->fd, &a) == 0 &&
		    lstat(lg->part, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return 0;
		close(lg->fd);
		lg->fd = -1;
	}
	errno = EEXIST;
	return -1;
}

int
runlog_open(struct runlog *lg, const char *logs, long long cap,
    long long total)
{
	sigset_t	old;

	memset(lg, 0, sizeof(*lg));
	lg->fd = -1;
	lg->pipe[0] = lg->pipe[1] = lg->done[0] = lg->done[1] = -1;
	lg->total = total;
	lg->dir = xstrdup(logs);
	if ((mkdir(lg->dir, 0700) == -1 && errno != EEXIST) ||
	    create_part(lg) == -1) {
		warn("the run's output will not be kept: %s", fs_vis(lg->dir));
		goto fail;
	}
	lg->path = xasprintf("%s/%s.log", lg->dir, lg->id);
	lg->head_max = cap / 2;
	lg->tsize = (size_t)(cap - lg->head_max);
	lg->tail = xmalloc(lg->tsize > 0 ? lg->tsize : 1);
	if (pipe2(lg->pipe, O_CLOEXEC) == -1) {
		warn("the run's output will not be kept");
		lg->pipe[0] = lg->pipe[1] = -1;
		goto fail;
	}
	if (pipe2(lg->done, O_CLOEXEC) == -1) {
		warn("the run's output will not be kept");
		lg->done[0] = lg->done[1] = -1;
		goto fail;
	}
	(void)fcntl(lg->pipe[1], F_SETFL, O_NONBLOCK);
	(void)fcntl(lg->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
	/* Signals are the main thread's to take. */
	sig_block_all(&old);
	lg->running = pthread_create(&lg->thread, NULL, writer, lg) == 0;
	sig_restore(&old);
	if (lg->running)
		return 0;
	warnx("the run's output will not be kept: no thread to write it");
fail:
	if (lg->pipe[0] != -1) {
		close(lg->pipe[0]);
		close(lg->pipe[1]);
	}
	if (lg->done[0] != -1) {
		close(lg->done[0]);
		close(lg->done[1]);
	}
	if (lg->part != NULL && lg->fd != -1)
		(void)unlink(lg->part);
	if (lg->fd != -1)
		close(lg->fd);
	free(lg->tail);
	free(lg->dir);
	free(lg->part);
	free(lg->path);
	memset(lg, 0, sizeof(*lg));
	lg->fd = -1;
	lg->pipe[0] = lg->pipe[1] = -1;
	return -1;
}

/* The tail, after a line saying what was left out before it. */
static void
write_tail(struct runlog *lg)
{
	char		line[160];
	long long	left;
	size_t		at, n;

	if (lg->tail_seen == 0 || lg->err != 0)
		return;
	if ((left = lg->tail_seen - (long long)lg->tsize) > 0) {
		n = (size_t)snprintf(line, sizeof(line), "\n[forge: %lld bytes "
		    "of output left out here: more than forge.logSize]\n",
		    left);
		if (fs_write_all(lg->fd, line, n) == -1)
			lg->err = errno;
	}
	at = left > 0 ? (size_t)(lg->tail_seen % (long long)lg->tsize) : 0;
	n = left > 0 ? lg->tsize : (size_t)lg->tail_seen;
	if (lg->err == 0 && fs_write_all(lg->fd, lg->tail + at, n - at) == -1)
		lg->err = errno;
	if (lg->err == 0 && fs_write_all(lg->fd, lg->tail, at) == -1)
		lg->err = errno;
}

int
runlog_close(struct runlog *lg, int keep)
{
	char	line[160];
	int	ret = -1;
	size_t	n;

	if (!lg->running)
		return -1;
	/* The last writer's end closed: the thread reads to the end. */
	close(lg->pipe[1]);
	writer_wait(lg);
	close(lg->pipe[0]);
	lg->running = 0;
	if (!keep) {
		(void)unlink(lg->part);
		lg->err = ECANCELED;
	}
	write_tail(lg);
	if (lg->dropped > 0 && lg->err == 0) {
		n = (size_t)snprintf(line, sizeof(line), "\n[forge: %lld bytes "
		    "of output not kept: the log could not keep up]\n",
		    lg->dropped);
		if (fs_write_all(lg->fd, line, n) == -1)
			lg->err = errno;
	}
	/* Whole on disk before it is named whole. */
	if (lg->err == 0 && fdatasync(lg->fd) == -1 && errno != EINVAL)
		lg->err = errno;
	if (lg->err == 0 && rename(lg->part, lg->path) == -1)
		lg->err = errno;
	if (lg->err != 0 && keep) {
		warnc(lg->err, "the run's output could not be kept");
		(void)unlink(lg->part);
	} else
		ret = 0;
	close(lg->fd);
	if (ret == 0)
		(void)runlog_prune(lg->dir, lg->total, lg->id, 0, NULL);
	free(lg->tail);
	free(lg->dir);
	free(lg->part);
	free(lg->path);
	lg->tail = NULL;
	lg->dir = lg->part = lg->path = NULL;
	lg->fd = -1;
	return ret;
}

/* Is the writer of this .part still running?  It holds its lock; a
 * lock that cannot be taken for any other reason says nothing, and the
 * file is left as a live run's. */
static int
part_alive(const char *path)
{
	int	fd, alive;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	alive = flock(fd, LOCK_EX | LOCK_NB) == -1;
	close(fd);
	return alive;
}

char *
runlog_find(const char *logs, const char *id, int *whole, int *alive)
{
	struct stat	 st;
	char		*p;
	const char	*s;

	*whole = *alive = 0;
	for (s = id; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			break;
	if (*s != '\0' || s == id) {
		errno = ENOENT;
		return NULL;
	}
	p = xasprintf("%s/%s.log", logs, id);
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
		*whole = 1;
		return p;
	}
	free(p);
	p = xasprintf("%s/%s.part", logs, id);
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
		*alive = part_alive(p);
		return p;
	}
	free(p);
	errno = ENOENT;
	return NULL;
}

struct kept_log {
	char		*name;
	struct timespec	 mtime;
	long long	 size;
};

static int
older(const void *a, const void *b)
{
	const struct kept_log	*x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t	n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* Remove a file of logs, or with dry set only name it. */
static void
drop(const char *logs, const char *name, int dry, struct strv *gone)
{
	char	*p = xasprintf("%s/%s", logs, name);

	if (dry || unlink(p) == 0 || errno == ENOENT) {
		if (gone != NULL)
			strv_push(gone, p);
	} else
		warn("cannot remove %s", fs_vis(p));
	free(p);
}

int
runlog_prune(const char *logs, long long total, const char *keep, int dry,
    struct strv *gone)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	struct kept_log	*v = NULL;
	size_t		 n = 0, cap = 0, i, klen;
	long long	 sum = 0;
	char		*p;

	if ((d = opendir(logs)) == NULL)
		return errno == ENOENT ? 0 : -1;
	klen = keep != NULL ? strlen(keep) : 0;
	while ((de = readdir(d)) != NULL) {
		p = xasprintf("%s/%s", logs, de->d_name);
		if (lstat(p, &st) == -1 || !S_ISREG(st.st_mode))
			;
		else if (ends_with(de->d_name, ".part")) {
			if (!part_alive(p))
				drop(logs, de->d_name, dry, gone);
		} else if (ends_with(de->d_name, ".log")) {
			if (n == cap)
				v = xreallocarray(v, cap = cap ? cap * 2 : 16,
				    sizeof(*v));
			v[n].name = xstrdup(de->d_name);
			v[n].mtime = st.st_mtim;
			v[n].size = (long long)st.st_size;
			sum += v[n++].size;
		}
		free(p);
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), older);
	for (i = 0; i < n; i++) {
		if (sum > total && !(klen > 0 && strncmp(v[i].name, keep,
		    klen) == 0 && strcmp(v[i].name + klen, ".log") == 0)) {
			drop(logs, v[i].name, dry, gone);
			sum -= v[i].size;
		}
		free(v[i].name);
	}
	free(v);
	return 0;
}
