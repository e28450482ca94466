/* Scratch directories for the unit tests, removed whatever happened. */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unitfs.h"

static char	*base;

/* Run a program and wait for it; its status, or -1. */
static int
run(char *const argv[])
{
	pid_t	pid;
	int	ws;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

void
unitfs_setup(void)
{
	const char	*t = getenv("TMPDIR");
	char		 tmpl[PATH_MAX];

	if (t == NULL || *t == '\0')
		t = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/forge-unit.XXXXXX", t);
	if (mkdtemp(tmpl) == NULL) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
		abort();
	}
	/* Canonical, so that tests may compare paths the kernel reports. */
	if ((base = realpath(tmpl, NULL)) == NULL)
		abort();
}

void
unitfs_teardown(void)
{
	char	*chmod_argv[] = { "chmod", "-R", "u+rwx", base, NULL };
	char	*rm_argv[] = { "rm", "-rf", base, NULL };

	if (base == NULL)
		return;
	/* A test may leave 000-mode directories behind; rm needs in. */
	(void)run(chmod_argv);
	if (run(rm_argv) != 0 || access(base, F_OK) == 0)
		fprintf(stderr, "could not remove %s\n", base);
	free(base);
	base = NULL;
}

const char *
unitfs_base(void)
{
	ck_assert_msg(base != NULL, "no scratch directory: fixture missing");
	return base;
}

char *
unitfs_dir(const char *name)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/%s.XXXXXX", unitfs_base(), name),
	    -1);
	ck_assert_msg(mkdtemp(p) != NULL, "mkdtemp: %s", strerror(errno));
	return p;
}

void
unitfs_write(const char *path, const char *text, mode_t mode)
{
	size_t	len = strlen(text);
	int	fd;

	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_msg(fd != -1, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	ck_assert_int_eq(close(fd), 0);
}

char *
unitfs_read(const char *path, size_t *lenp)
{
	char	*data = NULL;
	size_t	 len = 0, cap = 0;
	ssize_t	 r;
	int	 fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd != -1, "open %s: %s", path, strerror(errno));
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			data = realloc(data, cap);
			ck_assert_ptr_nonnull(data);
		}
		r = read(fd, data + len, 4096);
		ck_assert_int_ge(r, 0);
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	data[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return data;
}

int
unitfs_exists(const char *path)
{
	struct stat	st;

	return lstat(path, &st) == 0;
}

void
unitfs_deep(const char *dir, int depth)
{
	int	fd, next, i;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ne(fd, -1);
	for (i = 0; i < depth; i++) {
		ck_assert_int_eq(mkdirat(fd, "d", 0755), 0);
		/* A file at every level, so that each must be emptied. */
		next = openat(fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		ck_assert_int_ne(next, -1);
		close(next);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ne(next, -1);
		close(fd);
		fd = next;
	}
	close(fd);
}

int
unitfs_unprivileged(const char *dir)
{
	const char	*fork_mode = getenv("CK_FORK");
	struct passwd	*pw;
	uid_t		 uid = 65534;
	gid_t		 gid = 65534;
	pid_t		 pid;
	int		 ws;

	if (geteuid() != 0)
		return 0;
	if (fork_mode != NULL && strcmp(fork_mode, "no") == 0)
		return -1;
	if ((pw = getpwnam("nobody")) != NULL) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	/* The user must be able to reach dir: traversal only. */
	ck_assert_int_eq(chmod(unitfs_base(), 0711), 0);
	ck_assert_int_eq(chown(dir, uid, gid), 0);
	/* An ancestor of $TMPDIR may still be closed to the user. */
	if ((pid = fork()) == 0) {
		if (setgroups(0, NULL) == -1 || setgid(gid) == -1 ||
		    setuid(uid) == -1)
			_exit(1);
		_exit(access(dir, R_OK | W_OK | X_OK) == 0 ? 0 : 1);
	}
	ck_assert_int_ne(pid, -1);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		return -1;
	ck_assert_int_eq(setgroups(0, NULL), 0);
	ck_assert_int_eq(setgid(gid), 0);
	ck_assert_int_eq(setuid(uid), 0);
	ck_assert_int_ne(geteuid(), 0);
	return 1;
}

/*
 * What a shell command in dir prints, trailing newlines cut.  The command
 * and its output may be of any length: a test's paths can be longer than
 * PATH_MAX, and so can a listing of them.
 */
char *
unitfs_sh_in(const char *dir, const char *fmt, ...)
{
	char	*body, *cmd, *out = NULL;
	size_t	 len = 0, cap = 0, n;
	FILE	*fp;
	va_list	 ap;

	va_start(ap, fmt);
	ck_assert_int_ne(vasprintf(&body, fmt, ap), -1);
	va_end(ap);
	ck_assert_int_ne(asprintf(&cmd, "cd '%s' && %s", dir, body), -1);
	free(body);
	fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	do {
		if (cap - len < 4096 + 1) {
			cap = cap ? cap * 2 : 8192;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		n = fread(out + len, 1, 4096, fp);
		len += n;
	} while (n > 0);
	ck_assert_msg(pclose(fp) == 0, "failed: %s", cmd);
	free(cmd);
	out[len] = '\0';
	while (len > 0 && out[len - 1] == '\n')
		out[--len] = '\0';
	return out;
}

char *
unitfs_path(const char *dir, const char *name)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", dir, name), -1);
	return p;
}

void
unitfs_home(const char *dir)
{
	ck_assert_int_eq(setenv("HOME", dir, 1), 0);
	ck_assert_int_eq(setenv("GIT_CONFIG_NOSYSTEM", "1", 1), 0);
	ck_assert_int_eq(unsetenv("XDG_CONFIG_HOME"), 0);
}

char *
unitfs_repo(const char *dir, const char *name)
{
	char	*repo;

	free(unitfs_sh_in(dir, "git init -q '%s'", name));
	repo = unitfs_path(dir, name);
	free(unitfs_sh_in(repo, "git config user.name t && "
	    "git config user.email t@t"));
	return repo;
}
