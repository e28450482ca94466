/* Recording copies before they exist, and reclaiming those of dead runs. */
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
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "journal.h"
#include "json.h"
#include "timeutil.h"
#include "xmalloc.h"

int
proc_start_time(pid_t pid, unsigned long long *start)
{
	struct buf	 b = BUF_INIT;
	char		 path[64], *p, *end;
	int		 field, ret = -1;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (fs_read_file(path, &b, 1 << 16) == -1)
		goto out;
	/* The command name may hold anything, ")" included: skip past
	 * the last one; the state is field 3, the start time field 22. */
	if ((p = strrchr(b.data, ')')) == NULL)
		goto out;
	p++;
	for (field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;
		if (*p == '\0')
			goto out;
	}
	while (*p == ' ')
		p++;
	*start = strtoull(p, &end, 10);
	if (end == p)
		goto out;
	ret = 0;
out:
	buf_free(&b);
	return ret;
}

const char *
boot_id(void)
{
	static char	id[64];
	struct buf	b = BUF_INIT;

	if (id[0] == '\0' &&
	    fs_read_file("/proc/sys/kernel/random/boot_id", &b, 256) == 0) {
		buf_rtrim(&b);
		strlcpy(id, b.data, sizeof(id));
	}
	buf_free(&b);
	return id;
}

void
journal_new_run_id(char *buf, size_t n)
{
	uint32_t	a = arc4random(), b = arc4random();

	snprintf(buf, n, "%08x%08x", a, b);
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
	dir = xasprintf("%s/forge/copies", common);
	if (fs_mkdirs(dir, 0777) == -1) {
		warn("cannot record the copy in %s", dir);
		free(dir);
		j->path = NULL;
		return -1;
	}
	j->path = xasprintf("%s/%s", dir, run);
	free(dir);
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
	json_str(&js, boot_id());
	json_key(&js, "top");
	json_str(&js, top);
	json_key(&js, "created");
	json_str(&js, time_rfc3339(ts, time(NULL)));
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
	int		ret;

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
	if ((ret = append_line(j, &line)) == -1)
		warn("cannot record the copy in %s", j->path);
	buf_free(&line);
	return ret;
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
		if ((s = jv_str(jv_get(v, "run"))) != NULL && e->run == NULL) {
			e->run = xstrdup(s);
			e->pid = (long)jv_num(jv_get(v, "pid"), 0);
			e->start = (unsigned long long)jv_num(jv_get(v,
			    "start"), 0);
			if ((s = jv_str(jv_get(v, "boot"))) != NULL)
				e->boot = xstrdup(s);
			if ((s = jv_str(jv_get(v, "top"))) != NULL)
				e->top = xstrdup(s);
			if ((s = jv_str(jv_get(v, "created"))) != NULL)
				e->created = xstrdup(s);
		} else if ((s = jv_str(jv_get(v, "repo"))) != NULL) {
			strv_push(&e->repos, s);
		} else if (jv_get(v, "child") != NULL) {
			e->child = (long)jv_num(jv_get(v, "child"), 0);
			e->child_start = (unsigned long long)jv_num(jv_get(v,
			    "start"), 0);
		} else if ((s = jv_str(jv_get(v, "kept"))) != NULL) {
			free(e->kept);
			e->kept = xstrdup(s);
		}
		jv_free(v);
	}
	return e->run != NULL ? 0 : -1;
}

/* Is pid the same process that had start time start (0: unknown)? */
static int
same_process(long pid, unsigned long long start)
{
	unsigned long long	now;

	if (pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
		return 0;
	if (start != 0 && proc_start_time((pid_t)pid, &now) == 0 &&
	    now != start)
		return 0;
	return 1;
}

static int
owner_alive(const struct journal_entry *e)
{
	if (e->boot != NULL && *e->boot != '\0' && *boot_id() != '\0' &&
	    strcmp(e->boot, boot_id()) != 0)
		return 0;	/* the machine rebooted since */
	return same_process(e->pid, e->start);
}

/* Does this worktree registration belong to the copy under top? */
static int
registration_is_ours(int admfd, const char *top, const char *run)
{
	struct buf	 b = BUF_INIT;
	char		*want;
	int		 fd, ours = 0;

	want = xasprintf("%s/", top);
	if ((fd = openat(admfd, "gitdir", O_RDONLY | O_CLOEXEC |
	    O_NOFOLLOW)) != -1) {
		while (buf_read(&b, fd, 4096) > 0)
			;
		close(fd);
		ours = b.data != NULL &&
		    strncmp(b.data, want, strlen(want)) == 0;
	}
	/* Killed inside git worktree add, before gitdir was written:
	 * the lock reason names the run. */
	if (!ours && run != NULL && (fd = openat(admfd, "locked",
	    O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) != -1) {
		char	*tag = xasprintf("forge run %s ", run);

		buf_reset(&b);
		while (buf_read(&b, fd, 4096) > 0)
			;
		close(fd);
		ours = b.data != NULL && strstr(b.data, tag) != NULL;
		free(tag);
	}
	free(want);
	buf_free(&b);
	return ours;
}

static int
remove_registrations(const char *common, const char *top, const char *run)
{
	struct dirent	*de;
	DIR		*d;
	char		*wtdir;
	int		 dfd, afd, ret = 0;

	wtdir = xasprintf("%s/worktrees", common);
	dfd = open(wtdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(wtdir);
	if (dfd == -1)
		return errno == ENOENT ? 0 : -1;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		afd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (afd == -1)
			continue;
		if (registration_is_ours(afd, top, run) &&
		    fs_rmtree_at(dfd, de->d_name) == -1) {
			warn("cannot remove %s/worktrees/%s", common,
			    de->d_name);
			ret = -1;
		}
		close(afd);
	}
	closedir(d);
	return ret;
}

/* A record could be edited by hand: only ever remove forge's own dirs. */
static int
top_is_sane(const char *top)
{
	const char	*base;
	struct stat	 st;

	if (top == NULL || top[0] != '/' || strstr(top, "/../") != NULL)
		return 0;
	base = fs_basename(top);
	if (strncmp(base, "forge-", 6) != 0 || strlen(base) < 10)
		return 0;
	if (lstat(top, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		return 0;
	return 1;
}

int
journal_remove_copy(const struct journal_entry *e)
{
	size_t	i;
	int	ret = 0;

	if (!top_is_sane(e->top)) {
		warnx("refusing to remove %s: not a forge copy",
		    e->top != NULL ? e->top : "(no path)");
		return -1;
	}
	for (i = 0; i < e->repos.n; i++)
		if (remove_registrations(e->repos.v[i], e->top, e->run) == -1)
			ret = -1;
	if (fs_rmtree(e->top) == -1) {
		warn("cannot remove %s", e->top);
		ret = -1;
	}
	return ret;
}

static void
kill_orphans(const struct journal_entry *e)
{
	long long	until;

	/* Without a start time, a live pid could be anyone's now. */
	if (e->child <= 0 || e->child_start == 0 ||
	    !same_process(e->child, e->child_start))
		return;
	/* The command outlived its forge: it must not run on in a copy
	 * that is about to disappear. */
	(void)kill(-(pid_t)e->child, SIGKILL);
	until = spawn_now_ms() + 2000;
	while (kill(-(pid_t)e->child, 0) == 0 && spawn_now_ms() < until)
		usleep(5000);
}

/* Registrations of copies that are gone: git's own bookkeeping. */
static void
prune(const struct strv *commons)
{
	const char *const	 a[] = { "worktree", "prune", NULL };
	struct git		 g;
	size_t			 i, k;

	for (i = 0; i < commons->n; i++) {
		for (k = 0; k < i; k++)
			if (strcmp(commons->v[k], commons->v[i]) == 0)
				break;
		if (k < i)
			continue;
		memset(&g, 0, sizeof(g));
		g.gitdir = commons->v[i];
		(void)git_run(&g, a, 0, NULL, NULL, NULL);
	}
}

int
journal_reclaim(const char *common, int flags, int *count)
{
	struct strv		 pruned = STRV_INIT;
	struct journal_entry	 e;
	struct dirent		*de;
	struct buf		 text = BUF_INIT;
	DIR			*d;
	char			*dir, *path;
	int			 fd, ret = 0, n = 0;

	*count = 0;
	dir = xasprintf("%s/forge/copies", common);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd == -1 || (flock(fd, LOCK_EX | LOCK_NB) == -1 &&
		    errno == EWOULDBLOCK)) {
			/* Held: its run is alive. */
			if (fd != -1)
				close(fd);
			free(path);
			continue;
		}
		buf_reset(&text);
		while (buf_read(&text, fd, 65536) > 0)
			;
		if (journal_parse(text.data != NULL ? text.data : "",
		    text.len, &e) == -1) {
			struct stat	st;

			/* Created and never written: a run that died at
			 * once, before it made anything -- or one starting
			 * right now, that has yet to lock it. */
			if (!(flags & JOURNAL_DRY_RUN) &&
			    fstat(fd, &st) == 0 &&
			    st.st_mtime < time(NULL) - 60)
				(void)unlink(path);
			journal_entry_free(&e);
			close(fd);
			free(path);
			continue;
		}
		if (owner_alive(&e) ||
		    (e.kept != NULL && !(flags & JOURNAL_KEPT))) {
			if (e.kept != NULL && (flags & JOURNAL_VERBOSE))
				printf("kept %s (forge gc --kept removes "
				    "it)\n", e.kept);
			journal_entry_free(&e);
			close(fd);
			free(path);
			continue;
		}
		if (flags & JOURNAL_DRY_RUN) {
			printf("would remove %s (%s pid %ld)\n", e.top,
			    e.kept != NULL ? "kept by" : "left by dead",
			    e.pid);
			n++;
		} else {
			kill_orphans(&e);
			if (journal_remove_copy(&e) == 0) {
				(void)unlink(path);
				strv_pushv(&pruned, e.repos.v);
				n++;
				if (flags & JOURNAL_VERBOSE)
					printf("removed %s (%s pid %ld)\n",
					    e.top, e.kept != NULL ?
					    "kept by" : "left by dead",
					    e.pid);
				else
					warnx("removed %s, left by a forge "
					    "run that died (pid %ld)", e.top,
					    e.pid);
			} else
				ret = -1;
		}
		journal_entry_free(&e);
		close(fd);
		free(path);
	}
	closedir(d);
	free(dir);
	buf_free(&text);
	prune(&pruned);
	strv_free(&pruned);
	*count = n;
	return ret;
}
