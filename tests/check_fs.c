/*
 * fs.c: tree removal that no depth, permission or symlink can stop
 * or redirect, entry copies that never open what is not a regular file,
 * and the fd-relative walk that refuses symlinks.
 */
#include "config.h"

#include "fs_mount.h"
#include "unit.h"

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "strv.h"
#include "unitfs.h"
#include "xmalloc.h"

static void
mkdir_in(const char *dir, const char *name, mode_t mode)
{
	char	*p = unitfs_path(dir, name);

	ck_assert_msg(mkdir(p, 0700) == 0, "mkdir %s: %s", p,
	    strerror(errno));
	ck_assert_int_eq(chmod(p, mode), 0);
	free(p);
}

static void
file_in(const char *dir, const char *name, const char *text, mode_t mode)
{
	char	*p = unitfs_path(dir, name);

	unitfs_write(p, text, mode);
	free(p);
}

static void
link_in(const char *dir, const char *name, const char *target)
{
	char	*p = unitfs_path(dir, name);

	ck_assert_int_eq(symlink(target, p), 0);
	free(p);
}

static void
fifo_in(const char *dir, const char *name)
{
	char	*p = unitfs_path(dir, name);

	ck_assert_int_eq(mkfifo(p, 0644), 0);
	free(p);
}

static void
chmod_in(const char *dir, const char *name, mode_t mode)
{
	char	*p = unitfs_path(dir, name);

	ck_assert_int_eq(chmod(p, mode), 0);
	free(p);
}

static int
rmtree_in(const char *dir, const char *name)
{
	char	*p = unitfs_path(dir, name);
	int	 r, saved;

	r = fs_remove(p);
	saved = errno;
	free(p);
	errno = saved;
	return r;
}

static int
exists_in(const char *dir, const char *name)
{
	char	*p = unitfs_path(dir, name);
	int	 r;

	r = unitfs_exists(p);
	free(p);
	return r;
}

static int
open_dir(const char *p)
{
	int	fd;

	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_msg(fd != -1, "open %s: %s", p, strerror(errno));
	return fd;
}

static size_t
count_entries(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	size_t		 n = 0;

	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* A directory outside the tree under test, with things worth keeping. */
static char *
outside(void)
{
	char	*o = unitfs_dir("outside");

	file_in(o, "precious", "keep me\n", 0644);
	mkdir_in(o, "sub", 0755);
	file_in(o, "sub/also", "and me\n", 0644);
	return o;
}

static void
outside_intact(const char *o)
{
	char	*p, *text;

	p = unitfs_path(o, "precious");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "keep me\n");
	free(text);
	free(p);
	p = unitfs_path(o, "sub/also");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "and me\n");
	free(text);
	free(p);
}

/* fs_remove */

START_TEST(t_rmtree_basic)
{
	char	*d, *top;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "a", "a", 0644);
	file_in(top, ".hidden", "h", 0600);
	mkdir_in(top, "empty", 0755);
	mkdir_in(top, "sub", 0755);
	mkdir_in(top, "sub/subsub", 0755);
	file_in(top, "sub/subsub/x", "x", 0755);
	file_in(top, "sub/name with\nnewline", "n", 0644);
	link_in(top, "dangling", "no/such/thing");
	link_in(top, "self", ".");
	fifo_in(d, "top/fifo");
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	ck_assert_uint_eq(count_entries(d), 0);
	/* Nothing there: nothing to do, and that is fine. */
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert_int_eq(fs_remove("/nonexistent-forge-unit/x/y"), 0);
	free(top);
	free(d);
}
END_TEST

START_TEST(t_rmtree_file_and_relative)
{
	char	*d, *cwd;

	d = unitfs_dir("rm");
	file_in(d, "plain", "p", 0444);
	ck_assert_int_eq(rmtree_in(d, "plain"), 0);
	ck_assert(!exists_in(d, "plain"));
	/* A name without a slash is relative to the current directory. */
	cwd = getcwd(NULL, 0);
	ck_assert_int_eq(chdir(d), 0);
	mkdir_in(".", "rel", 0755);
	file_in("rel", "f", "f", 0644);
	ck_assert_int_eq(fs_remove("rel"), 0);
	ck_assert(!exists_in(d, "rel"));
	ck_assert_int_eq(chdir(cwd), 0);
	free(cwd);
	free(d);
}
END_TEST

/* `rm -rf dir/` removes dir; success must mean it is gone. */
START_TEST(t_rmtree_trailing_slash)
{
	char	*d, *top, *slash;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "f", "f", 0644);
	slash = unitfs_path(top, "");
	if (fs_remove(slash) == 0)
		ck_assert_msg(!unitfs_exists(top),
		    "fs_remove(\"%s\") returned 0 and left the tree", slash);
	free(slash);
	free(top);
	free(d);
}
END_TEST

/* Far deeper than the descriptors a walk holding one per level has. */
START_TEST(t_rmtree_deep)
{
	struct rlimit	 old, rl;
	char		*d, *top;
	int		 dfd;

	d = unitfs_dir("deep");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	unitfs_deep(top, 2000);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	rl = old;
	rl.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	/* And through fs_remove_at. */
	mkdir_in(d, "top", 0755);
	unitfs_deep(top, 2000);
	dfd = open_dir(d);
	ck_assert_int_eq(fs_remove_at(dfd, "top"), 0);
	ck_assert_uint_eq(count_entries(d), 0);
	close(dfd);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
	free(top);
	free(d);
}
END_TEST

/* Directories a build made read-only, or closed entirely. */
START_TEST(t_rmtree_modes)
{
	char	*d, *top;
	int	 unpriv;

	d = unitfs_dir("modes");
	unpriv = unitfs_unprivileged(d);
	ck_assert_int_ge(unpriv, -1);
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	mkdir_in(top, "ro", 0755);
	file_in(top, "ro/f", "f", 0444);
	mkdir_in(top, "ro/inner", 0755);
	file_in(top, "ro/inner/g", "g", 0644);
	mkdir_in(top, "closed", 0755);
	file_in(top, "closed/f", "f", 0644);
	mkdir_in(top, "closed/inner", 0755);
	file_in(top, "closed/inner/g", "g", 0644);
	mkdir_in(top, "wx", 0755);
	file_in(top, "wx/f", "f", 0644);
	chmod_in(top, "ro/inner", 0555);
	chmod_in(top, "ro", 0555);
	chmod_in(top, "closed/inner", 0000);
	chmod_in(top, "closed", 0000);
	chmod_in(top, "wx", 0300);
	ck_assert_int_eq(chmod(top, 0500), 0);
	ck_assert_msg(fs_remove(top) == 0, "fs_remove: %s%s", strerror(errno),
	    unpriv == 1 ? " (as an unprivileged user)" : "");
	ck_assert(!unitfs_exists(top));
	free(top);
	free(d);
}
END_TEST

/* The top itself closed: it must be opened to be emptied. */
START_TEST(t_rmtree_closed_top)
{
	char	*d, *top;

	d = unitfs_dir("modes");
	(void)unitfs_unprivileged(d);
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "f", "f", 0644);
	ck_assert_int_eq(chmod(top, 0000), 0);
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	free(top);
	free(d);
}
END_TEST

START_TEST(t_rmtree_symlinks_not_followed)
{
	char	*d, *top, *o, *target;

	o = outside();
	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	mkdir_in(top, "sub", 0755);
	link_in(top, "to-outside", o);
	target = unitfs_path(o, "precious");
	link_in(top, "sub/to-file", target);
	free(target);
	target = unitfs_path(o, "sub");
	link_in(top, "sub/to-subdir", target);
	free(target);
	link_in(top, "relative", "../../");
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	outside_intact(o);
	/* The top itself a symlink: the link goes, not what it names. */
	link_in(d, "linktop", o);
	ck_assert_int_eq(rmtree_in(d, "linktop"), 0);
	ck_assert(!exists_in(d, "linktop"));
	outside_intact(o);
	free(top);
	free(d);
	free(o);
}
END_TEST

/* A fifo in the tree is unlinked, never opened (an open would hang). */
START_TEST(t_rmtree_special_files)
{
	struct sockaddr_un	 sun;
	char			*d, *top, *sock;
	int			 s;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	fifo_in(top, "fifo");
	sock = unitfs_path(top, "sock");
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(sock) < sizeof(sun.sun_path)) {
		strlcpy(sun.sun_path, sock, sizeof(sun.sun_path));
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert_int_ne(s, -1);
		ck_assert_int_eq(bind(s, (struct sockaddr *)&sun,
		    sizeof(sun)), 0);
		close(s);
	}
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	free(sock);
	free(top);
	free(d);
}
END_TEST

/* fs_copy_entry */

static void
check_copy_file(const char *src, const char *dst, const char *name,
    const char *text, mode_t mode)
{
	struct stat	 st, dst_st;
	char		*p, *got;
	int		 sfd, dfd;

	file_in(src, name, text, mode);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	memset(&st, 0, sizeof(st));
	ck_assert_msg(fs_copy_entry(sfd, name, dfd, name, &st) == 0,
	    "copy %s: %s", name, strerror(errno));
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, mode);
	p = unitfs_path(dst, name);
	ck_assert_int_eq(lstat(p, &dst_st), 0);
	ck_assert(S_ISREG(dst_st.st_mode));
	ck_assert_msg((dst_st.st_mode & 0777) == (mode & 0777),
	    "%s: mode %o, not %o", name, dst_st.st_mode & 07777,
	    mode & 0777);
	got = unitfs_read(p, NULL);
	ck_assert_str_eq(got, text);
	free(got);
	free(p);
	close(sfd);
	close(dfd);
}

static const struct file_case {
	const char	*name;
	const char	*text;
	mode_t		 mode;
} file_cases[] = {
	{ "script", "#!/bin/sh\nexit 0\n", 0755 },
	{ "private", "secret", 0600 },
	{ "shared", "text", 0664 },
	{ "readonly", "ro", 0444 },
	{ "odd", "x", 0517 },
	{ "empty", "", 0644 },
	{ "name with\ttab\nand newline", "n", 0644 },
};

START_TEST(t_copy_file_modes)
{
	const struct file_case	*c = &file_cases[_i];
	char			*src, *dst;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	/* The source's bits, not the umask's. */
	umask(077);
	check_copy_file(src, dst, c->name, c->text, c->mode);
	umask(022);
	ck_assert_uint_eq(count_entries(dst), 1);
	free(src);
	free(dst);
}
END_TEST

/* The set-id bits are not permission bits: they are not carried over. */
START_TEST(t_copy_file_setid)
{
	struct stat	 st;
	char		*src, *dst, *p;
	int		 sfd, dfd;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	file_in(src, "suid", "x", 0755);
	p = unitfs_path(src, "suid");
	ck_assert_int_eq(chmod(p, 04755), 0);
	free(p);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	ck_assert_int_eq(fs_copy_entry(sfd, "suid", dfd, "suid", &st), 0);
	p = unitfs_path(dst, "suid");
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	free(p);
	close(sfd);
	close(dfd);
	free(src);
	free(dst);
}
END_TEST

START_TEST(t_copy_file_large)
{
	struct stat	 st;
	size_t		 len = (3 << 20) + 12345, i, glen;
	char		*src, *dst, *data, *p, *got;
	int		 sfd, dfd, fd;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	data = malloc(len);
	ck_assert_ptr_nonnull(data);
	for (i = 0; i < len; i++)
		data[i] = (char)((i * 2654435761u) >> 13);
	p = unitfs_path(src, "big");
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(p);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	ck_assert_int_eq(fs_copy_entry(sfd, "big", dfd, "copy", &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)len);
	p = unitfs_path(dst, "copy");
	got = unitfs_read(p, &glen);
	ck_assert_uint_eq(glen, len);
	ck_assert(memcmp(got, data, len) == 0);
	free(got);
	free(p);
	free(data);
	close(sfd);
	close(dfd);
	free(src);
	free(dst);
}
END_TEST

static void
check_copy_link(const char *src, const char *dst, const char *name,
    const char *target)
{
	struct stat	 st;
	char		*p, buf[PATH_MAX + 1];
	ssize_t		 n;
	int		 sfd, dfd;

	link_in(src, name, target);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	ck_assert_msg(fs_copy_entry(sfd, name, dfd, name, &st) == 0,
	    "copy link %s: %s", name, strerror(errno));
	ck_assert(S_ISLNK(st.st_mode));
	p = unitfs_path(dst, name);
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	n = readlink(p, buf, sizeof(buf));
	ck_assert_int_eq(n, (ssize_t)strlen(target));
	ck_assert(memcmp(buf, target, (size_t)n) == 0);
	free(p);
	close(sfd);
	close(dfd);
}

/* A link's target: as written, or a directory outside, or a file in it,
 * or 4000 bytes long. */
enum target { AS_IS, OUTSIDE, OUTSIDE_FILE, LONG };

static const struct link_case {
	const char	*name;
	enum target	 kind;
	const char	*target;
} link_cases[] = {
	{ "rel", AS_IS, "real" },
	{ "up", AS_IS, "../../etc/passwd" },
	{ "dangling", AS_IS, "does/not/exist" },
	{ "abs-dir", OUTSIDE, NULL },
	{ "abs-file", OUTSIDE_FILE, NULL },
	{ "long", LONG, NULL },
};

START_TEST(t_copy_symlinks)
{
	const struct link_case	*c = &link_cases[_i];
	char			*src, *dst, *o, *target;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	o = outside();
	file_in(src, "real", "real", 0644);
	switch (c->kind) {
	case AS_IS:
		target = xstrdup(c->target);
		break;
	case OUTSIDE:
		target = xstrdup(o);
		break;
	case OUTSIDE_FILE:
		target = unitfs_path(o, "precious");
		break;
	default:
		target = xmalloc(4001);
		memset(target, 'x', 4000);
		target[4000] = '\0';
		break;
	}
	check_copy_link(src, dst, c->name, target);
	/* Copying a link to a directory copied nothing from inside it. */
	outside_intact(o);
	ck_assert_uint_eq(count_entries(dst), 1);
	free(target);
	free(o);
	free(src);
	free(dst);
}
END_TEST

START_TEST(t_copy_fifo_not_opened)
{
	struct stat	 st;
	char		*src, *dst;
	int		 sfd, dfd, r;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	/* No writer will ever come: an open for reading would block. */
	fifo_in(src, "fifo");
	sfd = open_dir(src);
	dfd = open_dir(dst);
	memset(&st, 0, sizeof(st));
	errno = 0;
	r = fs_copy_entry(sfd, "fifo", dfd, "fifo", &st);
	ck_assert_int_eq(r, -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert(!exists_in(dst, "fifo"));
	close(sfd);
	close(dfd);
	free(src);
	free(dst);
}
END_TEST

START_TEST(t_copy_other_types)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	char			*src, *dst, *sock;
	int			 sfd, dfd, s;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	mkdir_in(src, "dir", 0755);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	errno = 0;
	ck_assert_int_eq(fs_copy_entry(sfd, "dir", dfd, "dir", &st), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_str_eq(fs_vis_type(st.st_mode), "directory");
	sock = unitfs_path(src, "sock");
	if (strlen(sock) < sizeof(sun.sun_path)) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		strlcpy(sun.sun_path, sock, sizeof(sun.sun_path));
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert_int_ne(s, -1);
		ck_assert_int_eq(bind(s, (struct sockaddr *)&sun,
		    sizeof(sun)), 0);
		errno = 0;
		ck_assert_int_eq(fs_copy_entry(sfd, "sock", dfd, "sock",
		    &st), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert(S_ISSOCK(st.st_mode));
		close(s);
	}
	errno = 0;
	ck_assert_int_eq(fs_copy_entry(sfd, "missing", dfd, "missing", &st),
	    -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(count_entries(dst), 0);
	close(sfd);
	close(dfd);
	free(sock);
	free(src);
	free(dst);
}
END_TEST

/* Whatever is at the destination goes, and only it. */
START_TEST(t_copy_replaces)
{
	struct stat	 st;
	char		*src, *dst, *o, *p, *text, buf[64];
	ssize_t		 n;
	int		 sfd, dfd;

	src = unitfs_dir("src");
	dst = unitfs_dir("dst");
	o = outside();
	file_in(src, "f", "new content", 0644);
	link_in(src, "l", "new-target");
	sfd = open_dir(src);
	dfd = open_dir(dst);

	/* A file over a directory tree, with a closed directory in it. */
	mkdir_in(dst, "tree", 0755);
	mkdir_in(dst, "tree/closed", 0755);
	file_in(dst, "tree/closed/x", "x", 0644);
	chmod_in(dst, "tree/closed", 0);
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "tree", &st), 0);
	p = unitfs_path(dst, "tree");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "new content");
	free(text);
	free(p);

	/* A file over a symlink to a directory outside: the link goes. */
	link_in(dst, "dirlink", o);
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "dirlink", &st), 0);
	ck_assert_int_eq(fstatat(dfd, "dirlink", &st, AT_SYMLINK_NOFOLLOW),
	    0);
	ck_assert(S_ISREG(st.st_mode));
	outside_intact(o);
	ck_assert(!exists_in(o, "dirlink"));

	/* A file over a symlink to a file outside: never written through. */
	p = unitfs_path(o, "precious");
	link_in(dst, "filelink", p);
	free(p);
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "filelink", &st), 0);
	outside_intact(o);

	/* A file over a fifo: replaced, not opened. */
	fifo_in(dst, "fifo");
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "fifo", &st), 0);
	ck_assert_int_eq(fstatat(dfd, "fifo", &st, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert(S_ISREG(st.st_mode));

	/* A file over a read-only file. */
	file_in(dst, "ro", "old", 0444);
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "ro", &st), 0);
	p = unitfs_path(dst, "ro");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "new content");
	free(text);
	free(p);

	/* A symlink over a file, and over a directory. */
	file_in(dst, "wasfile", "old", 0644);
	ck_assert_int_eq(fs_copy_entry(sfd, "l", dfd, "wasfile", &st), 0);
	n = readlinkat(dfd, "wasfile", buf, sizeof(buf));
	ck_assert_int_eq(n, 10);
	ck_assert(memcmp(buf, "new-target", 10) == 0);
	mkdir_in(dst, "wasdir", 0755);
	file_in(dst, "wasdir/x", "x", 0644);
	ck_assert_int_eq(fs_copy_entry(sfd, "l", dfd, "wasdir", &st), 0);
	ck_assert_int_eq(readlinkat(dfd, "wasdir", buf, sizeof(buf)), 10);
	/* And a symlink over a symlink. */
	ck_assert_int_eq(fs_copy_entry(sfd, "l", dfd, "wasdir", &st), 0);
	ck_assert_int_eq(readlinkat(dfd, "wasdir", buf, sizeof(buf)), 10);

	close(sfd);
	close(dfd);
	free(o);
	free(src);
	free(dst);
}
END_TEST

/* A copy that cannot read its source leaves the destination alone. */
START_TEST(t_copy_unreadable)
{
	struct stat	 st;
	char		*d, *src, *dst, *p, *text;
	int		 sfd, dfd;

	d = unitfs_dir("unreadable");
	if (unitfs_unprivileged(d) != 1 && geteuid() == 0) {
		free(d);
		return;		/* root reads anything: nothing to show */
	}
	src = unitfs_path(d, "src");
	dst = unitfs_path(d, "dst");
	mkdir_in(d, "src", 0755);
	mkdir_in(d, "dst", 0755);
	file_in(src, "f", "unreadable", 0000);
	file_in(dst, "f", "old", 0644);
	sfd = open_dir(src);
	dfd = open_dir(dst);
	errno = 0;
	ck_assert_int_eq(fs_copy_entry(sfd, "f", dfd, "f", &st), -1);
	ck_assert_int_eq(errno, EACCES);
	p = unitfs_path(dst, "f");
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "old");
	free(text);
	free(p);
	close(sfd);
	close(dfd);
	free(src);
	free(dst);
	free(d);
}
END_TEST

/* fs_open_dir */

START_TEST(t_open_dir_self)
{
	struct stat	 a, b;
	char		*d;
	int		 dfd, fd;

	d = unitfs_dir("open");
	dfd = open_dir(d);
	fd = fs_open_dir(dfd, "", 0, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(fd, dfd);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_int_eq(fstat(dfd, &b), 0);
	ck_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* "." and empty components are the same directory. */
	fd = fs_open_dir(dfd, "././/", 0, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert(a.st_ino == b.st_ino);
	close(fd);
	close(dfd);
	free(d);
}
END_TEST

START_TEST(t_open_dir_create)
{
	struct stat	 a, b;
	char		*d, *p;
	int		 dfd, fd;

	d = unitfs_dir("open");
	dfd = open_dir(d);
	errno = 0;
	ck_assert_int_eq(fs_open_dir(dfd, "a/b/c", 0, 0755), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert(!exists_in(d, "a"));
	umask(022);
	fd = fs_open_dir(dfd, "a/b/c", 1, 0750);
	ck_assert_int_ge(fd, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	p = unitfs_path(d, "a/b/c");
	ck_assert_int_eq(stat(p, &a), 0);
	ck_assert_int_eq(fstat(fd, &b), 0);
	ck_assert(a.st_ino == b.st_ino && S_ISDIR(a.st_mode));
	ck_assert_int_eq(a.st_mode & 0777, 0750);
	free(p);
	close(fd);
	/* Existing components are fine. */
	fd = fs_open_dir(dfd, "a/b/c/d", 1, 0755);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = fs_open_dir(dfd, "a/b", 0, 0755);
	ck_assert_int_ge(fd, 0);
	close(fd);
	close(dfd);
	free(d);
}
END_TEST

/* What fs_open_dir refuses, and with what errno. */
static const struct refuse_case {
	const char	*path;
	int		 create;
	int		 error;
} refuse_cases[] = {
	/* Through a symlink: never, not even to create. */
	{ "link", 0, ENOTDIR },
	{ "link/sub", 0, ENOTDIR },
	{ "link/new/deeper", 1, ENOTDIR },
	{ "real/inner/new", 1, ENOTDIR },
	{ "dangling/new", 1, ENOTDIR },
	/* Not a directory. */
	{ "file", 1, ENOTDIR },
	{ "file/x", 1, ENOTDIR },
	/* No way up. */
	{ "..", 0, EINVAL },
	{ "real/../../x", 1, EINVAL },
};

START_TEST(t_open_dir_refuses)
{
	const struct refuse_case	*c = &refuse_cases[_i];
	char				*d, *o;
	int				 dfd;

	d = unitfs_dir("open");
	o = outside();
	mkdir_in(d, "real", 0755);
	link_in(d, "link", o);
	link_in(d, "real/inner", o);
	link_in(d, "dangling", "nowhere");
	file_in(d, "file", "f", 0644);
	dfd = open_dir(d);
	errno = 0;
	ck_assert_int_eq(fs_open_dir(dfd, c->path, c->create, 0755), -1);
	ck_assert_int_eq(errno, c->error);
	/* Nothing was made, anywhere. */
	ck_assert(!exists_in(o, "new"));
	ck_assert_uint_eq(count_entries(o), 2);
	outside_intact(o);
	ck_assert(exists_in(d, "dangling"));
	ck_assert(!exists_in(d, "x"));
	ck_assert_uint_eq(count_entries(d), 4);
	close(dfd);
	free(o);
	free(d);
}
END_TEST

/* fs_pair: each directory once, in both trees, never through a symlink;
 * fresh called before each new one, with the last. */
struct fresh_log {
	char	log[512];
	int	fail;
};

static int
log_fresh(const char *dir, const char *prev, void *arg)
{
	struct fresh_log	*f = arg;
	size_t			 n = strlen(f->log);

	snprintf(f->log + n, sizeof(f->log) - n, "[%s<%s]", dir, prev);
	return f->fail ? -1 : 0;
}

START_TEST(t_pair)
{
	struct fs_pair		 p;
	struct fresh_log	 f;
	struct stat		 st;
	const char		*base;
	char			*s, *d, *o;

	s = unitfs_dir("src");
	d = unitfs_dir("dst");
	o = outside();
	mkdir_in(s, "a", 0755);
	mkdir_in(d, "a", 0755);
	mkdir_in(s, "b", 0755);
	link_in(d, "b", o);		/* a symlink where the source has a
					   directory */
	file_in(s, "a/x", "s", 0644);
	file_in(d, "a/x", "d", 0644);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(fs_pair_open(&p, s, d), 0);
	ck_assert_int_eq(fs_pair_to(&p, "top", &base, log_fresh, &f), 0);
	ck_assert_str_eq(base, "top");
	ck_assert_int_eq(p.sfd, p.sroot);
	ck_assert_int_eq(p.dfd, p.droot);
	ck_assert_int_eq(fs_pair_to(&p, "a/x", &base, log_fresh, &f), 0);
	ck_assert_str_eq(base, "x");
	ck_assert_int_ne(p.sfd, -1);
	ck_assert_int_eq(fstatat(p.dfd, base, &st, 0), 0);
	ck_assert_int_eq(st.st_size, 1);
	/* The same directory: not opened again, fresh not called. */
	ck_assert_int_eq(fs_pair_to(&p, "a/y", &base, log_fresh, &f), 0);
	ck_assert_str_eq(base, "y");
	ck_assert_int_eq(fs_pair_to(&p, "b/precious", &base, log_fresh, &f),
	    0);
	ck_assert_int_ne(p.sfd, -1);
	ck_assert_int_eq(p.dfd, -1);
	ck_assert_str_eq(f.log, "[<][a<][b<a]");
	/* fresh's failure is said, and the directories opened all the
	 * same. */
	f.fail = 1;
	ck_assert_int_eq(fs_pair_to(&p, "a/z", &base, log_fresh, &f), -1);
	ck_assert_int_ne(p.dfd, -1);
	fs_pair_close(&p);
	ck_assert_int_eq(p.sroot, -1);
	outside_intact(o);
	/* The copy alone. */
	ck_assert_int_eq(fs_pair_open(&p, NULL, d), 0);
	ck_assert_int_eq(fs_pair_to(&p, "a/x", &base, NULL, NULL), 0);
	ck_assert_int_eq(p.sfd, -1);
	ck_assert_int_ne(p.dfd, -1);
	ck_assert_int_eq(fs_pair_to(&p, "x", &base, NULL, NULL), 0);
	ck_assert_int_eq(p.sfd, -1);
	ck_assert_int_eq(p.dfd, p.droot);
	fs_pair_close(&p);
	/* A top that does not open, or the copy's a symlink. */
	ck_assert_int_eq(fs_pair_open(&p, s, o), 0);
	fs_pair_close(&p);
	link_in(d, "top-link", o);
	free(o);
	o = unitfs_path(d, "top-link");
	errno = 0;
	ck_assert_int_eq(fs_pair_open(&p, s, o), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_int_eq(fs_pair_open(&p, "/nonexistent/forge", d), -1);
	free(o);
	free(s);
	free(d);
}
END_TEST

/* fs_write_atomic, fs_read_file, fs_mkdirs */

START_TEST(t_write_atomic)
{
	struct stat	 a, b;
	struct buf	 rb = BUF_INIT;
	char		*d, *p, *text, *o, *target;

	d = unitfs_dir("atomic");
	p = unitfs_path(d, "breaker.json");
	umask(022);
	ck_assert_int_eq(fs_write_atomic(p, "{\"a\":1}\n", 8, 0666), 0);
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "{\"a\":1}\n");
	free(text);
	ck_assert_int_eq(stat(p, &a), 0);
	ck_assert_int_eq(a.st_mode & 0777, 0644);
	/* Replaced by a new file (rename), not rewritten in place. */
	ck_assert_int_eq(fs_write_atomic(p, "second", 6, 0666), 0);
	ck_assert_int_eq(stat(p, &b), 0);
	ck_assert(a.st_ino != b.st_ino);
	ck_assert_int_eq(fs_read_file(p, &rb, 100), 0);
	ck_assert_str_eq(rb.data, "second");
	/* Empty content. */
	ck_assert_int_eq(fs_write_atomic(p, "", 0, 0666), 0);
	ck_assert_int_eq(stat(p, &b), 0);
	ck_assert_int_eq(b.st_size, 0);
	/* Nothing left behind: no temporary files. */
	ck_assert_uint_eq(count_entries(d), 1);
	/* A symlink at the path is replaced; its target is not written. */
	o = outside();
	target = unitfs_path(o, "precious");
	free(p);
	p = unitfs_path(d, "link");
	ck_assert_int_eq(symlink(target, p), 0);
	ck_assert_int_eq(fs_write_atomic(p, "over", 4, 0600), 0);
	ck_assert_int_eq(lstat(p, &a), 0);
	ck_assert(S_ISREG(a.st_mode));
	outside_intact(o);
	free(target);
	free(o);
	free(p);
	buf_free(&rb);
	free(d);
}
END_TEST

START_TEST(t_write_atomic_fails)
{
	char	*d, *p, *cwd, *text;

	d = unitfs_dir("atomic");
	p = unitfs_path(d, "missing/dir/file");
	errno = 0;
	ck_assert_int_eq(fs_write_atomic(p, "x", 1, 0644), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(count_entries(d), 0);
	free(p);
	/* A bare name is in the current directory. */
	cwd = getcwd(NULL, 0);
	ck_assert_int_eq(chdir(d), 0);
	ck_assert_int_eq(fs_write_atomic("bare", "b", 1, 0644), 0);
	text = unitfs_read("bare", NULL);
	ck_assert_str_eq(text, "b");
	free(text);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_uint_eq(count_entries(d), 1);
	free(cwd);
	free(d);
}
END_TEST

START_TEST(t_read_file)
{
	struct buf	 b = BUF_INIT;
	char		*d, *p, big[70000];

	d = unitfs_dir("read");
	p = unitfs_path(d, "f");
	unitfs_write(p, "0123456789", 0644);
	buf_adds(&b, "prefix:");
	ck_assert_int_eq(fs_read_file(p, &b, 10), 0);
	ck_assert_str_eq(b.data, "prefix:0123456789");
	/* The limit counts what this call reads, not what b held. */
	buf_reset(&b);
	errno = 0;
	ck_assert_int_eq(fs_read_file(p, &b, 9), -1);
	ck_assert_int_eq(errno, EFBIG);
	/* Past one read's worth. */
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	unitfs_write(p, big, 0644);
	buf_reset(&b);
	ck_assert_int_eq(fs_read_file(p, &b, sizeof(big) - 1), 0);
	ck_assert_uint_eq(b.len, sizeof(big) - 1);
	buf_reset(&b);
	errno = 0;
	ck_assert_int_eq(fs_read_file(p, &b, sizeof(big) - 2), -1);
	ck_assert_int_eq(errno, EFBIG);
	/* Empty, missing, a directory.  An empty file read into a new
	 * buffer is "", in memory that was not zero before. */
#ifdef M_PERTURB
	(void)mallopt(M_PERTURB, 0x5a);
#endif
	unitfs_write(p, "", 0644);
	buf_free(&b);
	ck_assert_int_eq(fs_read_file(p, &b, 10), 0);
	ck_assert_ptr_nonnull(b.data);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_msg(b.data[0] == '\0', "an empty file read as a string "
	    "that is not empty: not NUL-terminated");
	free(p);
	p = unitfs_path(d, "missing");
	errno = 0;
	ck_assert_int_eq(fs_read_file(p, &b, 10), -1);
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_int_eq(fs_read_file(d, &b, 10), -1);
	ck_assert_int_eq(errno, EISDIR);
	buf_free(&b);
	free(p);
	free(d);
}
END_TEST

START_TEST(t_mkdirs)
{
	struct stat	 st;
	char		*d, *p;

	d = unitfs_dir("mkdirs");
	umask(022);
	p = unitfs_path(d, "a/b//c/");
	ck_assert_int_eq(fs_mkdirs(p, 0755), 0);
	free(p);
	p = unitfs_path(d, "a/b/c");
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(fs_mkdirs(p, 0755), 0);
	free(p);
	file_in(d, "file", "f", 0644);
	p = unitfs_path(d, "file/sub");
	errno = 0;
	ck_assert_int_eq(fs_mkdirs(p, 0755), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	free(p);
	p = unitfs_path(d, "file");
	errno = 0;
	ck_assert_int_eq(fs_mkdirs(p, 0755), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	free(p);
	/* A symlink to a directory is a directory here, as for mkdir -p. */
	link_in(d, "ln", "a");
	p = unitfs_path(d, "ln/new");
	ck_assert_int_eq(fs_mkdirs(p, 0755), 0);
	ck_assert(exists_in(d, "a/new"));
	free(p);
	free(d);
}
END_TEST

START_TEST(t_mkdirs_empty)
{
	errno = 0;
	ck_assert_int_eq(fs_mkdirs("", 0755), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST


/*
 * Mounts of this test's own: as root, in a mount namespace of this
 * test's child (check's fork mode), so they vanish with it.  0 where
 * that cannot be done here; the shell tests say SKIP there.
 */
static int
private_mounts(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		fprintf(stderr, "# no private mount namespace here: the mount "
		    "tests check nothing\n");
		return 0;
	}
	return 1;
}

static void
bind_mount(const char *from, const char *to)
{
	ck_assert_msg(mount(from, to, NULL, MS_BIND, NULL) == 0,
	    "mount --bind %s %s: %s", from, to, strerror(errno));
}

static int
left_has(const struct strv *left, const char *text)
{
	size_t	i;

	for (i = 0; i < left->n; i++)
		if (strstr(left->v[i], text) != NULL)
			return 1;
	return 0;
}

/* top removed again, nothing mounted in it now: all of it goes, without
 * a word, and victim's precious file stays. */
static void
removed_whole(const char *top, const char *victim, struct strv *left)
{
	strv_clear(left);
	ck_assert_int_eq(fs_remove_path(top, NULL, left), 0);
	ck_assert_uint_eq(left->n, 0);
	ck_assert(!unitfs_exists(top));
	ck_assert(exists_in(victim, "precious"));
}

/* What a command left mounted in a copy is never emptied. */
START_TEST(t_rmtree_bind_mount)
{
	struct strv	 left = STRV_INIT;
	struct stat	 st;
	char		*d, *top, *victim, *m, *want;
	int		 dfd;

	if (!private_mounts())
		return;
	d = unitfs_dir("mnt");
	victim = unitfs_path(d, "victim");
	mkdir_in(d, "victim", 0755);
	ck_assert_int_eq(chmod(victim, 0755), 0);
	mkdir_in(victim, ".git", 0755);
	file_in(victim, ".git/HEAD", "ref: refs/heads/main\n", 0644);
	file_in(victim, "precious", "p", 0644);
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "a", "a", 0644);
	mkdir_in(top, "deep", 0755);
	mkdir_in(top, "deep/m", 0755);
	file_in(top, "deep/b", "b", 0644);
	m = unitfs_path(top, "deep/m");
	/* Same file system, so the same st_dev: only the mount differs. */
	bind_mount(victim, m);
	dfd = open_dir(d);
	errno = 0;
	ck_assert_int_eq(fs_remove_report(dfd, "top", d, &left), -1);
	ck_assert_int_eq(errno, EBUSY);
	close(dfd);
	ck_assert_msg(exists_in(victim, ".git/HEAD") &&
	    exists_in(victim, "precious"), "the mounted directory was emptied");
	/* Nor was its mode touched. */
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	/* The rest went; the way to the mount point stays. */
	ck_assert(!exists_in(top, "a"));
	ck_assert(!exists_in(top, "deep/b"));
	ck_assert(exists_in(top, "deep/m"));
	ck_assert_uint_eq(left.n, 1);
	want = xasprintf("a file system is mounted at %s", m);
	ck_assert_str_eq(left.v[0], want);
	free(want);
	/* The mount table sees it too (the way without mount ids). */
	strv_clear(&left);
	ck_assert_int_eq(fs_mount_below(top, &left), 1);
	want = xasprintf("a file system is mounted at %s", m);
	ck_assert_str_eq(left.v[0], want);
	free(want);
	ck_assert_int_eq(fs_mount_below(victim, NULL), 0);
	/* Unmounted, the next try removes it all. */
	ck_assert_int_eq(umount(m), 0);
	ck_assert_int_eq(fs_mount_below(top, NULL), 0);
	removed_whole(top, victim, &left);
	strv_free(&left);
	free(m);
	free(top);
	free(victim);
	free(d);
}
END_TEST

/* A mount in the entry that goes last: the entry within it that goes
 * last of all ("a/b") outlives the partial removal. */
START_TEST(t_rmtree_mount_in_last)
{
	struct strv	 left = STRV_INIT;
	char		*d, *top, *victim, *at;

	if (!private_mounts())
		return;
	d = unitfs_dir("mnt");
	victim = unitfs_path(d, "victim");
	mkdir_in(d, "victim", 0755);
	file_in(victim, "precious", "p", 0644);
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "f", "copy's", 0644);
	mkdir_in(top, ".mark", 0700);
	file_in(top, ".mark/run", "run", 0600);
	file_in(top, ".mark/zz", "z", 0600);
	mkdir_in(top, ".mark/objects", 0700);
	mkdir_in(top, ".mark/objects/ab", 0700);
	at = unitfs_path(top, ".mark/objects/ab");
	bind_mount(victim, at);
	ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), -1);
	ck_assert(left_has(&left, "a file system is mounted at"));
	ck_assert(exists_in(top, ".mark/run"));
	ck_assert(!exists_in(top, "f"));
	ck_assert(!exists_in(top, ".mark/zz"));
	ck_assert(exists_in(victim, "precious"));
	ck_assert_int_eq(umount(at), 0);
	strv_clear(&left);
	ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), 0);
	ck_assert(!unitfs_exists(top));
	ck_assert(exists_in(victim, "precious"));
	strv_free(&left);
	free(at);
	free(top);
	free(victim);
	free(d);
}
END_TEST

/* A file mounted over one of the copy's, and a mount on the top itself. */
START_TEST(t_rmtree_mounted_file_and_top)
{
	struct strv	 left = STRV_INIT;
	struct stat	 st;
	char		*d, *top, *victim, *f;

	if (!private_mounts())
		return;
	d = unitfs_dir("mnt");
	victim = unitfs_path(d, "victim");
	mkdir_in(d, "victim", 0755);
	file_in(victim, "precious", "p", 0644);
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	file_in(top, "f", "copy's", 0644);
	f = unitfs_path(top, "f");
	free(victim);
	victim = unitfs_path(d, "victim/precious");
	bind_mount(victim, f);
	/* A mark that must outlive a partial removal goes last. */
	mkdir_in(top, ".mark", 0700);
	file_in(top, ".mark/run", "run", 0600);
	file_in(top, "other", "o", 0644);
	ck_assert_int_eq(fs_remove_path(top, ".mark", &left), -1);
	ck_assert(left_has(&left, "a file system is mounted at"));
	ck_assert(left_has(&left, "/top/f"));
	ck_assert(exists_in(top, ".mark/run"));
	ck_assert(!exists_in(top, "other"));
	free(victim);
	victim = unitfs_path(d, "victim");
	ck_assert(exists_in(victim, "precious"));
	ck_assert_int_eq(umount(f), 0);
	strv_clear(&left);
	ck_assert_int_eq(fs_remove_path(top, ".mark", &left), 0);
	ck_assert(!unitfs_exists(top));
	mkdir_in(d, "top", 0755);
	/* The top itself a mount point: nothing below it is touched, nor
	 * its mode. */
	ck_assert_int_eq(chmod(victim, 0751), 0);
	bind_mount(victim, top);
	strv_clear(&left);
	ck_assert_int_eq(fs_remove_path(top, NULL, &left), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert(left_has(&left, "a file system is mounted at"));
	ck_assert(exists_in(victim, "precious"));
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0751);
	ck_assert_int_eq(umount(top), 0);
	ck_assert_int_eq(fs_remove_path(top, NULL, NULL), 0);
	ck_assert(!unitfs_exists(top));
	strv_free(&left);
	free(f);
	free(top);
	free(victim);
	free(d);
}
END_TEST

/* Whatever will not go stays, and everything else still goes. */
START_TEST(t_rmtree_goes_on)
{
	struct strv	 left = STRV_INIT;
	char		*d, *top;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	mkdir_in(top, "keep", 0755);
	file_in(top, "keep/x", "x", 0644);
	file_in(top, "other", "o", 0644);
	mkdir_in(top, "z", 0755);
	file_in(top, "z/y", "y", 0644);
	/* A name that is not there at all must not stop it either. */
	ck_assert_int_eq(fs_remove_path(top, NULL, &left), 0);
	ck_assert_uint_eq(left.n, 0);
	ck_assert(!unitfs_exists(top));
	strv_free(&left);
	free(top);
	free(d);
}
END_TEST

/*
 * fdopendir(3) as the removal meets it, the program linked with
 * -Wl,--wrap=fdopendir: for the directory armed (its device and inode)
 * it fails with EIO, or once moves that directory to moved, as another
 * process could while the removal is in it.  Any other passes through.
 */
DIR	*__real_fdopendir(int);
DIR	*__wrap_fdopendir(int);

static struct {
	dev_t		 dev;
	ino_t		 ino;
	int		 armed;
	const char	*from;		/* move it from here */
	const char	*moved;		/* to here */
} odd;

static void
arm(const char *dir, const char *from, const char *moved)
{
	struct stat	st;

	ck_assert_int_eq(stat(dir, &st), 0);
	odd.dev = st.st_dev;
	odd.ino = st.st_ino;
	odd.from = from;
	odd.moved = moved;
	odd.armed = 1;
}

DIR *
__wrap_fdopendir(int fd)
{
	struct stat	st;

	if (odd.armed && fstat(fd, &st) == 0 && st.st_dev == odd.dev &&
	    st.st_ino == odd.ino) {
		if (odd.from == NULL) {
			errno = EIO;
			return NULL;
		}
		ck_assert_int_eq(rename(odd.from, odd.moved), 0);
		odd.armed = 0;
	}
	return __real_fdopendir(fd);
}

/* A removal that fails part-way, skipping nothing -- a directory that
 * cannot be read -- leaves the mark that goes last, whichever directory
 * that is: what stays is still provably forge's. */
START_TEST(t_rmtree_fails_keeps_mark)
{
	struct strv	 left = STRV_INIT;
	char		*d, *top, *mark;
	int		 i;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mark = unitfs_path(d, "top/.mark");
	for (i = 0; i < 2; i++) {
		mkdir_in(d, "top", 0755);
		file_in(top, "f", "copy's", 0644);
		mkdir_in(top, "sub", 0755);
		file_in(top, "sub/g", "copy's", 0644);
		mkdir_in(top, ".mark", 0700);
		file_in(top, ".mark/run", "run", 0600);
		file_in(top, ".mark/zz", "z", 0600);
		/* The top, then the directory the mark is in. */
		arm(i == 0 ? top : mark, NULL, NULL);
		ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), -1);
		ck_assert_int_eq(errno, EIO);
		ck_assert(exists_in(top, ".mark/run"));
		odd.armed = 0;
		ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), 0);
		ck_assert(!unitfs_exists(top));
	}
	strv_free(&left);
	free(mark);
	free(top);
	free(d);
}
END_TEST

/* The tree moved away while the removal is in it: climbing back by ".."
 * leads elsewhere, where nothing is removed.  It stops there, the mark
 * left. */
START_TEST(t_rmtree_moved_tree)
{
	struct strv	 left = STRV_INIT;
	char		*d, *top, *from, *to, *away;

	d = unitfs_dir("rm");
	top = unitfs_path(d, "top");
	mkdir_in(d, "top", 0755);
	mkdir_in(top, "a", 0755);
	mkdir_in(top, "a/b", 0755);
	file_in(top, "a/b/f", "copy's", 0644);
	mkdir_in(top, ".mark", 0700);
	file_in(top, ".mark/run", "run", 0600);
	away = unitfs_path(d, "away");
	mkdir_in(d, "away", 0755);
	file_in(away, "precious", "p", 0644);
	from = unitfs_path(top, "a/b");
	to = unitfs_path(away, "b");
	arm(from, from, to);
	ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), -1);
	ck_assert_int_eq(errno, ESTALE);
	ck_assert(!odd.armed);
	ck_assert(exists_in(away, "precious"));
	ck_assert(exists_in(away, "b"));
	ck_assert(exists_in(top, ".mark/run"));
	ck_assert_int_eq(fs_remove_path(top, ".mark/run", &left), 0);
	ck_assert(!unitfs_exists(top));
	ck_assert(exists_in(away, "precious"));
	strv_free(&left);
	free(away);
	free(from);
	free(to);
	free(top);
	free(d);
}
END_TEST

/* A tree of n directories of 30 files each, and in each a directory s
 * of 5 more: large enough for a second thread to take part of it. */
static void
wide_tree(const char *top, int n)
{
	char	 name[64];
	int	 i, k;

	mkdir_in(top, "", 0755);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "d%02d", i);
		mkdir_in(top, name, i % 7 == 0 ? 0500 : 0755);
		chmod_in(top, name, 0755);
		for (k = 0; k < 30; k++) {
			snprintf(name, sizeof(name), "d%02d/f%02d", i, k);
			file_in(top, name, "x", 0644);
		}
		snprintf(name, sizeof(name), "d%02d/s", i);
		mkdir_in(top, name, 0755);
		for (k = 0; k < 5; k++) {
			snprintf(name, sizeof(name), "d%02d/s/g%d", i, k);
			file_in(top, name, "y", 0644);
		}
		/* A read-only directory is made writable on the way, by
		 * either thread. */
		if (i % 7 == 0) {
			snprintf(name, sizeof(name), "d%02d", i);
			chmod_in(top, name, 0555);
		}
	}
}

/* A large tree goes on two threads; a small one on one. */
START_TEST(t_rmtree_lends)
{
	char	*d, *top;
	size_t	 before;

	d = unitfs_dir("lend");
	top = unitfs_path(d, "top");
	wide_tree(top, 40);
	before = fs_remove_lent();
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	ck_assert_msg(fs_remove_lent() > before, "no subtree went to the "
	    "second thread");
	before = fs_remove_lent();
	wide_tree(top, 3);
	ck_assert_int_eq(fs_remove(top), 0);
	ck_assert(!unitfs_exists(top));
	ck_assert_uint_eq(fs_remove_lent(), before);
	free(top);
	free(d);
}
END_TEST

/* What is mounted in a subtree the second thread takes is left, and
 * named with its whole path, as the walk names its own. */
START_TEST(t_rmtree_lent_mounts)
{
	struct strv	 left = STRV_INIT;
	char		*d, *top, *victim, *at, *want, name[32];
	size_t		 before;
	int		 i;

	if (!private_mounts())
		return;
	d = unitfs_dir("lendmnt");
	victim = unitfs_path(d, "victim");
	mkdir_in(d, "victim", 0755);
	file_in(victim, "precious", "p", 0644);
	top = unitfs_path(d, "top");
	wide_tree(top, 40);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "d%02d/s", i);
		at = unitfs_path(top, name);
		bind_mount(victim, at);
		free(at);
	}
	before = fs_remove_lent();
	ck_assert_int_eq(fs_remove_path(top, NULL, &left), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert(fs_remove_lent() > before);
	ck_assert_uint_eq(left.n, 40);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "d%02d/s", i);
		at = unitfs_path(top, name);
		want = xasprintf("a file system is mounted at %s", at);
		ck_assert_msg(left_has(&left, want), "not said: %s", want);
		ck_assert(unitfs_exists(at));
		free(want);
		snprintf(name, sizeof(name), "d%02d/f00", i);
		ck_assert(!exists_in(top, name));
		ck_assert_int_eq(umount(at), 0);
		free(at);
	}
	ck_assert(exists_in(victim, "precious"));
	removed_whole(top, victim, &left);
	strv_free(&left);
	free(top);
	free(victim);
	free(d);
}
END_TEST

/* A sparse file stays sparse, and its data is all there. */
START_TEST(t_copy_sparse)
{
	struct stat	 st;
	char		*d, *src, *dst, buf[8];
	off_t		 size = (off_t)256 << 20;
	int		 fd, sfd, dfd;

	d = unitfs_dir("sparse");
	src = unitfs_path(d, "src");
	dst = unitfs_path(d, "dst");
	fd = open(src, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(pwrite(fd, "head", 4, 0), 4);
	ck_assert_int_eq(pwrite(fd, "middle", 6, (off_t)100 << 20), 6);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
	ck_assert_int_eq(stat(src, &st), 0);
	if (st.st_blocks * 512 > (off_t)16 << 20) {
		fprintf(stderr, "# no sparse files here\n");
		goto out;
	}
	sfd = open_dir(d);
	dfd = open_dir(d);
	ck_assert_int_eq(fs_copy_entry(sfd, "src", dfd, "dst", &st), 0);
	close(sfd);
	close(dfd);
	ck_assert_int_eq(stat(dst, &st), 0);
	ck_assert_int_eq(st.st_size, size);
	ck_assert_msg(st.st_blocks * 512 < (off_t)16 << 20,
	    "a 256 MiB sparse file took %lld bytes in the copy",
	    (long long)st.st_blocks * 512);
	fd = open(dst, O_RDONLY);
	ck_assert_int_eq(pread(fd, buf, 4, 0), 4);
	ck_assert(memcmp(buf, "head", 4) == 0);
	ck_assert_int_eq(pread(fd, buf, 6, (off_t)100 << 20), 6);
	ck_assert(memcmp(buf, "middle", 6) == 0);
	ck_assert_int_eq(pread(fd, buf, 1, size - 1), 1);
	ck_assert_int_eq(buf[0], 0);
	close(fd);
out:
	free(src);
	free(dst);
	free(d);
}
END_TEST

/* fs_copy_fd, the small helpers */

START_TEST(t_copy_fd)
{
	char	*d, *p, *text;
	int	 pp[2], in, out;

	d = unitfs_dir("copyfd");
	/* From a pipe, where copy_file_range(2) cannot work. */
	ck_assert_int_eq(pipe(pp), 0);
	ck_assert_int_eq(write(pp[1], "through a pipe", 14), 14);
	close(pp[1]);
	p = unitfs_path(d, "out");
	out = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ne(out, -1);
	ck_assert_int_eq(fs_copy_fd(pp[0], out), 0);
	close(pp[0]);
	close(out);
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "through a pipe");
	free(text);
	/* From where the input's offset stands. */
	in = open(p, O_RDONLY);
	ck_assert_int_ne(in, -1);
	ck_assert_int_eq(lseek(in, 8, SEEK_SET), 8);
	free(p);
	p = unitfs_path(d, "tail");
	out = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_eq(fs_copy_fd(in, out), 0);
	close(in);
	close(out);
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "a pipe");
	free(text);
	free(p);
	free(d);
}
END_TEST

/* Files and symlinks are counted in every directory, but the top's
 * entry that is left out; directories and what symlinks point at are
 * not.  Anything else, or that name again below the top: not known. */
START_TEST(t_count_files)
{
	char	*d, *p;
	int	 fd;

	d = unitfs_dir("count");
	file_in(d, "a", "a", 0644);
	link_in(d, "l", "a");
	link_in(d, "ld", "sub");
	mkdir_in(d, "sub", 0755);
	file_in(d, "sub/b", "b", 0644);
	mkdir_in(d, "sub/deeper", 0755);
	file_in(d, "sub/deeper/c", "c", 0755);
	mkdir_in(d, "empty", 0755);
	mkdir_in(d, ".git", 0755);
	file_in(d, ".git/x", "x", 0644);
	file_in(d, ".git/y", "y", 0644);
	fd = open(d, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fs_count_files(fd, ".git"), 5);
	ck_assert_int_eq(fs_count_files(fd, NULL), 7);
	ck_assert_int_eq(fs_count_files(fd, "sub"), 5);
	/* The caller's fd is the caller's still. */
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	/* The name again below the top, even empty, even a file. */
	mkdir_in(d, "sub/.git", 0755);
	ck_assert_int_eq(fs_count_files(fd, ".git"), -1);
	ck_assert_int_eq(fs_count_files(fd, NULL), 7);
	p = unitfs_path(d, "sub/.git");
	ck_assert_int_eq(rmdir(p), 0);
	free(p);
	file_in(d, "sub/deeper/.git", "gitdir: x", 0644);
	ck_assert_int_eq(fs_count_files(fd, ".git"), -1);
	p = unitfs_path(d, "sub/deeper/.git");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	ck_assert_int_eq(fs_count_files(fd, ".git"), 5);
	/* A fifo: neither file nor directory. */
	fifo_in(d, "sub/fifo");
	ck_assert_int_eq(fs_count_files(fd, ".git"), -1);
	p = unitfs_path(d, "sub/fifo");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	/* A directory that cannot be read: not known. */
	p = unitfs_path(d, "sub/deeper");
	ck_assert_int_eq(chmod(p, 0), 0);
	if (geteuid() != 0)
		ck_assert_int_eq(fs_count_files(fd, ".git"), -1);
	ck_assert_int_eq(chmod(p, 0755), 0);
	free(p);
	ck_assert_int_eq(fs_count_files(fd, ".git"), 5);
	close(fd);
	free(d);
}
END_TEST

START_TEST(t_small_helpers)
{
	const char	*a, *b, *c, *e, *p;
	char		 name[4];
	int		 i;

	ck_assert_str_eq(fs_basename("a/b/c"), "c");
	ck_assert_str_eq(fs_basename("c"), "c");
	ck_assert_str_eq(fs_basename("/c"), "c");
	ck_assert_str_eq(fs_basename("a/"), "");
	ck_assert_str_eq(fs_vis("plain/name.c"), "plain/name.c");
	ck_assert_str_eq(fs_vis("a\nb\tc"), "a\\nb\\tc");
	ck_assert_str_eq(fs_vis("\x1b[2J"), "\\033[2J");
	ck_assert_str_eq(fs_vis("\xc3\xa9"), "\\303\\251");
	ck_assert_str_eq(fs_vis("back\\slash"), "back\\\\slash");
	/* No control byte gets through: a carriage return or a backspace
	 * in a file name could rewrite what the terminal shows. */
	for (i = 1; i < 256; i++) {
		if (i >= 0x20 && i < 0x7f)
			continue;
		name[0] = 'a';
		name[1] = (char)i;
		name[2] = 'b';
		name[3] = '\0';
		for (p = fs_vis(name); *p != '\0'; p++)
			ck_assert_msg((unsigned char)*p >= 0x20 &&
			    (unsigned char)*p < 0x7f,
			    "byte 0x%02x printed as it is", i);
	}
	/* Four results stay valid at once. */
	a = fs_vis("one");
	b = fs_vis("two");
	c = fs_vis("three");
	e = fs_vis("four");
	ck_assert_str_eq(a, "one");
	ck_assert_str_eq(b, "two");
	ck_assert_str_eq(c, "three");
	ck_assert_str_eq(e, "four");
	ck_assert_str_eq(fs_vis_type(S_IFREG | 0644), "file");
	ck_assert_str_eq(fs_vis_type(S_IFDIR), "directory");
	ck_assert_str_eq(fs_vis_type(S_IFLNK), "symlink");
	ck_assert_str_eq(fs_vis_type(S_IFIFO), "fifo");
	ck_assert_str_eq(fs_vis_type(S_IFSOCK), "socket");
	ck_assert_str_eq(fs_vis_type(S_IFCHR), "character device");
	ck_assert_str_eq(fs_vis_type(S_IFBLK), "block device");
}
END_TEST

static Suite *
fsutil_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("fsutil");
	tc = tcase_create("rmtree");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_rmtree_basic);
	tcase_add_test(tc, t_rmtree_file_and_relative);
	tcase_add_test(tc, t_rmtree_trailing_slash);
	tcase_add_test(tc, t_rmtree_deep);
	tcase_add_test(tc, t_rmtree_modes);
	tcase_add_test(tc, t_rmtree_closed_top);
	tcase_add_test(tc, t_rmtree_symlinks_not_followed);
	tcase_add_test(tc, t_rmtree_special_files);
	tcase_add_test(tc, t_rmtree_bind_mount);
	tcase_add_test(tc, t_rmtree_mounted_file_and_top);
	tcase_add_test(tc, t_rmtree_mount_in_last);
	tcase_add_test(tc, t_rmtree_goes_on);
	tcase_add_test(tc, t_rmtree_fails_keeps_mark);
	tcase_add_test(tc, t_rmtree_moved_tree);
	tcase_add_test(tc, t_rmtree_lends);
	tcase_add_test(tc, t_rmtree_lent_mounts);
	suite_add_tcase(s, tc);

	tc = tcase_create("copy");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, t_copy_file_modes, 0, NCASES(file_cases));
	tcase_add_test(tc, t_copy_file_setid);
	tcase_add_test(tc, t_copy_file_large);
	tcase_add_loop_test(tc, t_copy_symlinks, 0, NCASES(link_cases));
	tcase_add_test(tc, t_copy_fifo_not_opened);
	tcase_add_test(tc, t_copy_other_types);
	tcase_add_test(tc, t_copy_replaces);
	tcase_add_test(tc, t_copy_unreadable);
	tcase_add_test(tc, t_copy_fd);
	tcase_add_test(tc, t_copy_sparse);
	suite_add_tcase(s, tc);

	tc = tcase_create("paths");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_open_dir_self);
	tcase_add_test(tc, t_open_dir_create);
	tcase_add_loop_test(tc, t_open_dir_refuses, 0,
	    NCASES(refuse_cases));
	tcase_add_test(tc, t_pair);
	tcase_add_test(tc, t_write_atomic);
	tcase_add_test(tc, t_write_atomic_fails);
	tcase_add_test(tc, t_read_file);
	tcase_add_test(tc, t_mkdirs);
	tcase_add_test(tc, t_mkdirs_empty);
	tcase_add_test(tc, t_count_files);
	tcase_add_test(tc, t_small_helpers);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fsutil_suite)
