/* Processes, read from /proc: who is alive, and who is using a directory. */
#include "config.h"

#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "proc.h"
#include "timeutil.h"

int
proc_stat(pid_t pid, struct proc_stat *ps)
{
	struct buf	 b = BUF_INIT;
	char		 path[64], *p, *end;
	int		 field, ret = -1;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (fs_read_file(path, &b, 1 << 16) == -1)
		goto out;
	/* "pid (comm) state ppid pgrp ...": comm may hold anything, ")"
	 * included, so start after the last one. */
	if ((p = strrchr(b.data, ')')) == NULL)
		goto out;
	p++;
	for (field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			goto out;
		switch (field) {
		case 3:
			ps->state = *p;
			break;
		case 4:
			ps->ppid = (pid_t)strtol(p, &end, 10);
			break;
		case 5:
			ps->pgrp = (pid_t)strtol(p, &end, 10);
			break;
		case 22:
			ps->start = strtoull(p, &end, 10);
			if (end == p)
				goto out;
			break;
		}
		while (*p != ' ' && *p != '\0')
			p++;
	}
	ret = 0;
out:
	buf_free(&b);
	return ret;
}

int
proc_start_time(pid_t pid, unsigned long long *start)
{
	struct proc_stat	ps;

	if (proc_stat(pid, &ps) == -1)
		return -1;
	*start = ps.start;
	return 0;
}

int
proc_is(pid_t pid, unsigned long long start)
{
	struct proc_stat	ps;

	return start != 0 && proc_stat(pid, &ps) == 0 && ps.start == start;
}

int
proc_alive(pid_t pid, unsigned long long start)
{
	struct proc_stat	ps;

	if (pid <= 0 || proc_stat(pid, &ps) == -1)
		return 0;
	if (ps.state == 'Z' || ps.state == 'X')
		return 0;	/* exited; only its parent has yet to look */
	return start == 0 || ps.start == start;
}

const char *
proc_boot_id(void)
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

static int
link_in(const char *link, const char *dir)
{
	char	target[PATH_MAX + 16];
	ssize_t	n;

	if ((n = readlink(link, target, sizeof(target) - 1)) <= 0)
		return 0;
	target[n] = '\0';
	return fs_path_in(target, dir);
}

int
proc_uses_dir(pid_t pid, const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[96];
	int		 found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/cwd", (long)pid);
	if (link_in(path, dir))
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/root", (long)pid);
	if (link_in(path, dir))
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fd/%.16s", (long)pid,
		    de->d_name);
		found = link_in(path, dir);
	}
	closedir(d);
	return found;
}

/* This process and its ancestors, up to n of them; how many. */
static size_t
ancestors(pid_t *v, size_t n)
{
	struct proc_stat	ps;
	pid_t			p = getpid();
	size_t			k = 0;

	while (p > 1 && k < n) {
		v[k++] = p;
		if (proc_stat(p, &ps) == -1)
			break;
		p = ps.ppid;
	}
	return k;
}

static int
is_one_of(pid_t pid, const pid_t *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

int
proc_has_env(pid_t pid, const char *entry)
{
	struct buf	 b = BUF_INIT;
	char		 path[64];
	const char	*p, *end;
	size_t		 n = strlen(entry);
	int		 found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if (fs_read_file(path, &b, 1 << 22) == -1) {
		buf_free(&b);
		return 0;
	}
	for (p = b.data, end = p + b.len; p != NULL && p < end;
	    p += strlen(p) + 1)
		if (strlen(p) == n && memcmp(p, entry, n) == 0) {
			found = 1;
			break;
		}
	buf_free(&b);
	return found;
}

/* A handle on pid that a recycled pid cannot fool; -1 if none. */
static int
pid_handle(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* SIGKILL the process the handle holds (or, without one, pid). */
static void
kill_handle(int fd, pid_t pid)
{
#ifdef SYS_pidfd_send_signal
	if (fd != -1) {
		(void)syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		return;
	}
#endif
	(void)fd;
	(void)kill(pid, SIGKILL);
}

/* One pass: signal every process of the run in dir; how many. */
static int
kill_pass(const char *dir, const char *tag)
{
	struct proc_stat	 ps;
	struct dirent		*de;
	DIR			*d;
	pid_t			 mine[64];
	size_t			 nmine;
	char			*end;
	long			 pid;
	int			 fd, n = 0;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	nmine = ancestors(mine, 64);
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		/* Never forge itself, nor whoever started it. */
		if (pid <= 0 || *end != '\0' || is_one_of((pid_t)pid, mine,
		    nmine))
			continue;
		/* Held first: the checks below are then about the process
		 * the signal goes to, even if pid is reused meanwhile. */
		fd = pid_handle((pid_t)pid);
		/* The dead hold no directory; their parent reaps them.  A
		 * process that merely works there (a user's shell in a
		 * copy left in place) does not carry the run's mark. */
		if (proc_stat((pid_t)pid, &ps) == 0 && ps.state != 'Z' &&
		    ps.state != 'X' && proc_uses_dir((pid_t)pid, dir) &&
		    proc_has_env((pid_t)pid, tag)) {
			kill_handle(fd, (pid_t)pid);
			n++;
		}
		if (fd != -1)
			close(fd);
	}
	closedir(d);
	return n;
}

int
proc_kill_in(const char *dir, const char *tag, long long ms)
{
	struct timespec	 pause = { 0, 10 * 1000 * 1000 };
	long long	 until = timeutil_now_ms() + ms;
	int		 n, total = 0;

	/* Killed, a process lets go of its directories as it exits, a
	 * moment later; and one may have started another meanwhile. */
	while ((n = kill_pass(dir, tag)) > 0) {
		total += n;
		if (timeutil_now_ms() >= until)
			break;
		(void)nanosleep(&pause, NULL);
	}
	return total;
}
