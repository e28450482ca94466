/*
 * contain.c: the options and settings, mountinfo as it is read, the
 * causes a refusal names, and the namespaces themselves --
 * every mount read-only but the copy, /proc and the private tmpfs, with
 * mount_setattr(2) and with the remounts older kernels need, as root and
 * in a user namespace.
 */
#include "config.h"

#include "unit.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "verify_opts.h"
#include "contain.h"
#include "fs.h"
#include "landlock.h"
#include "settings.h"
#include "spawn.h"
#include "unitfs.h"

START_TEST(t_mountinfo_line)
{
	char		*path;
	unsigned long	 fl;

	ck_assert_int_eq(contain_mountinfo_line("36 35 98:0 /mnt1 /mnt\\040a"
	    "\\134b rw,nosuid,noexec,relatime shared:1 - ext3 /dev/root rw",
	    &path, &fl), 0);
	ck_assert_str_eq(path, "/mnt a\\b");
	ck_assert_uint_eq(fl, MS_NOSUID | MS_NOEXEC | MS_RELATIME);
	free(path);
	ck_assert_int_eq(contain_mountinfo_line("1 0 0:1 / / ro,nodev,noatime "
	    "- tmpfs x ro", &path, &fl), 0);
	ck_assert_str_eq(path, "/");
	ck_assert_uint_eq(fl, MS_NODEV | MS_NOATIME);
	free(path);
	ck_assert_int_eq(contain_mountinfo_line("", &path, &fl), -1);
	ck_assert_int_eq(contain_mountinfo_line("1 2 3", &path, &fl), -1);
}
END_TEST

static int
vparse(struct verify_opts *o, const char *const *args)
{
	static char	*argv[16];
	int		 argc = 0;

	argv[argc++] = "verify";
	for (; *args != NULL; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return verify_opts_parse(argc, argv, o);
}

#define V(...)	((const char *const []){ __VA_ARGS__, NULL })

START_TEST(t_options)
{
	struct verify_opts	o;

	ck_assert_int_eq(vparse(&o, V("true")), 0);
	ck_assert_int_eq(o.contain, -1);
	ck_assert_int_eq(o.no_network, 0);
	ck_assert_int_eq(vparse(&o, V("--contain", "--no-network", "true")),
	    0);
	ck_assert_int_eq(o.contain, 1);
	ck_assert_int_eq(o.no_network, 1);
	ck_assert_int_eq(vparse(&o, V("--contain", "--no-contain", "true")),
	    0);
	ck_assert_int_eq(o.contain, 0);
	/* The command's own options are its own. */
	ck_assert_int_eq(vparse(&o, V("--", "x", "--contain")), 0);
	ck_assert_int_eq(o.contain, -1);
}
END_TEST

static int
apply(struct settings *c, const char *text, const char *origin)
{
	int	set;

	return settings_apply(c, text, strlen(text) + 1, origin, &set);
}

START_TEST(t_settings)
{
	struct settings	c;

	settings_init(&c);
	ck_assert_int_eq(apply(&c, "forge.contain\ntrue", "git config"), 0);
	ck_assert_int_eq(c.contain, 1);
	ck_assert_int_eq(apply(&c, "forge.contain\nmaybe", "git config"), -1);
	/* A tracked file may turn containment on, never open a hole. */
	ck_assert_int_eq(apply(&c, "forge.containwritable\n/var/cache",
	    ".forgeconfig"), 0);
	ck_assert_uint_eq(c.contain_writable.n, 0);
	ck_assert_int_eq(apply(&c, "forge.containwritable\n~/.ccache",
	    "git config"), 0);
	ck_assert_uint_eq(c.contain_writable.n, 1);
	ck_assert_str_eq(c.contain_writable.v[0], "~/.ccache");
	ck_assert_int_eq(apply(&c, "forge.containwritable\nrelative/dir",
	    "git config"), -1);
	/* The method is the machine's: a tracked file has no say. */
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_AUTO);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nlandlock",
	    ".forgeconfig"), 0);
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_AUTO);
	/* Nor the index's, nor a commit's (--staged, --rev). */
	ck_assert_int_eq(apply(&c, "forge.containmethod\nlandlock",
	    ":.forgeconfig"), 0);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nlandlock",
	    "0123456789ab:.forgeconfig"), 0);
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_AUTO);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nlandlock",
	    "git config"), 0);
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_LANDLOCK);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nnamespaces",
	    "git config"), 0);
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_NAMESPACES);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nauto",
	    "git config"), 0);
	ck_assert_int_eq(c.contain_method, CONTAIN_METHOD_AUTO);
	ck_assert_int_eq(apply(&c, "forge.containmethod\nLandlock",
	    "git config"), -1);
	ck_assert_int_eq(apply(&c, "forge.containmethod", "git config"), -1);
	settings_free(&c);
}
END_TEST

static void
sysctl_file(const char *dir, const char *name, const char *val)
{
	char	*p = unitfs_path(dir, name);

	ck_assert_int_eq(fs_mkdirs(p, 0755), 0);
	ck_assert_int_eq(rmdir(p), 0);
	unitfs_write(p, val, 0644);
	free(p);
}

START_TEST(t_why)
{
	char	buf[512], *sys;

	sys = unitfs_dir("sys");
	contain_why(buf, sizeof(buf), CONTAIN_UNSHARE, EPERM, 1, sys);
	ck_assert_msg(strstr(buf, "cannot create namespaces: Operation not "
	    "permitted (namespaces are forbidden here") != NULL, "%s", buf);
	sysctl_file(sys, "kernel/apparmor_restrict_unprivileged_userns", "1\n");
	contain_why(buf, sizeof(buf), CONTAIN_MAP, EPERM, 1, sys);
	ck_assert_msg(strstr(buf, "AppArmor restricts unprivileged user "
	    "namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns "
	    "= 1") != NULL, "%s", buf);
	/* Root makes no user namespace: AppArmor's rule is not the cause. */
	contain_why(buf, sizeof(buf), CONTAIN_UNSHARE, EPERM, 0, sys);
	ck_assert_msg(strstr(buf, "AppArmor") == NULL, "%s", buf);
	sysctl_file(sys, "kernel/unprivileged_userns_clone", "0\n");
	contain_why(buf, sizeof(buf), CONTAIN_UNSHARE, EPERM, 1, sys);
	ck_assert_msg(strstr(buf, "unprivileged user namespaces are disabled "
	    "(sysctl kernel.unprivileged_userns_clone = 0)") != NULL, "%s",
	    buf);
	contain_why(buf, sizeof(buf), CONTAIN_UNSHARE, EPERM, 0, sys);
	ck_assert_msg(strstr(buf, "unprivileged_userns_clone") == NULL, "%s",
	    buf);
	sysctl_file(sys, "user/max_user_namespaces", "0\n");
	contain_why(buf, sizeof(buf), CONTAIN_UNSHARE, ENOSPC, 0, sys);
	ck_assert_msg(strstr(buf, "(sysctl user.max_user_namespaces = 0)") !=
	    NULL, "%s", buf);
	contain_why(buf, sizeof(buf), CONTAIN_TMP, ENOMEM, 1, sys);
	ck_assert_msg(strstr(buf, "cannot mount a private /tmp: ") == buf,
	    "%s", buf);
	/* Landlock's: a kernel without it, one that has it off, a policy
	 * that forbids it. */
	contain_why(buf, sizeof(buf), CONTAIN_LANDLOCK_ABI, ENOSYS, 1, sys);
	ck_assert_str_eq(buf, "Landlock is not available: the kernel has "
	    "none (it needs Linux 5.13 or later, built with "
	    "CONFIG_SECURITY_LANDLOCK)");
	contain_why(buf, sizeof(buf), CONTAIN_LANDLOCK_ABI, EOPNOTSUPP, 1,
	    sys);
	ck_assert_msg(strstr(buf, "it is disabled (not among the security "
	    "modules the kernel was booted with") != NULL, "%s", buf);
	contain_why(buf, sizeof(buf), CONTAIN_LANDLOCK_ABI, EPERM, 1, sys);
	ck_assert_msg(strstr(buf, "forbidden here") != NULL, "%s", buf);
	contain_why(buf, sizeof(buf), CONTAIN_LANDLOCK_FILTER, ENOSYS, 1, sys);
	ck_assert_msg(strstr(buf, "cannot make the seccomp filter: forge has "
	    "none for this machine's architecture") == buf, "%s", buf);
	contain_why(buf, sizeof(buf), CONTAIN_LANDLOCK_RESTRICT, E2BIG, 0,
	    sys);
	ck_assert_msg(strstr(buf, "too many Landlock layers") != NULL, "%s",
	    buf);
	contain_why(buf, sizeof(buf), CONTAIN_NO_NEW_PRIVS, EINVAL, 0, sys);
	ck_assert_msg(strstr(buf, "cannot set no_new_privs: ") == buf, "%s",
	    buf);
	free(sys);
}
END_TEST

/* Can this machine make the namespaces at all?  (As root, it can
 * nearly always; elsewhere the shell tests say why not.) */
static int
can_contain(void)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_exit	 ex;
	struct contain		 c;
	struct contain_opts	 o = CONTAIN_OPTS_INIT;
	char			*argv[] = { "true", NULL };
	int			 ok;

	o.fs = 1;
	ck_assert_int_eq(contain_prepare(&c, &o), 0);
	sp.argv = argv;
	sp.hook = contain_hook(&c);
	ok = spawn_start(&sp) == 0 && spawn_wait(&sp, NULL, &ex) == 0 &&
	    ex.status == 0;
	contain_free(&c);
	return ok;
}

/*
 * mountinfo as a contained command sees it: every mount read-only but
 * /proc, the private tmpfs and what is bound in it, and the copy.
 */
static void
check_mounts(int legacy, int userns)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_stream	 st;
	struct spawn_exit	 ex;
	struct contain		 c;
	struct contain_opts	 o = CONTAIN_OPTS_INIT;
	struct buf		 out = BUF_INIT;
	char			*argv[] = { "cat", "/proc/self/mountinfo",
				    NULL };
	char			*copy, *real, *p, *line, *path, *later;
	unsigned long		 fl;
	int			 copy_rw = 0, tmp_rw = 0, nro = 0, hidden;

	if (!can_contain()) {
		fprintf(stderr, "# SKIP: no namespaces here\n");
		return;
	}
	copy = unitfs_dir("copy");
	ck_assert_ptr_nonnull(real = realpath(copy, NULL));
	o.fs = 1;
	o.copy = copy;
	ck_assert_int_eq(contain_prepare(&c, &o), 0);
	c.legacy = legacy;
	c.userns = userns;
	sp.argv = argv;
	sp.hook = contain_hook(&c);
	sp.out = SPAWN_PIPE;
	ck_assert_int_eq(spawn_start(&sp), 0);
	spawn_stream_init(&st, sp.out, 0, &out, -1);
	ck_assert_int_eq(spawn_io(&st, 1, NULL), 0);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	buf_addc(&out, '\0');
	for (p = out.data; (line = strsep(&p, "\n")) != NULL;) {
		if (*line == '\0')
			continue;
		ck_assert_int_eq(contain_mountinfo_line(line, &path, &fl), 0);
		/* A mount under another at the same place is out of reach
		 * (and the old kernels' remounts cannot reach it). */
		hidden = 0;
		for (later = p; later != NULL && (later = strstr(later,
		    path)) != NULL; later++)
			if (later[-1] == ' ' && later[strlen(path)] == ' ')
				hidden = 1;
		if (hidden)
			;
		else if (strcmp(path, real) == 0)
			copy_rw |= strstr(line, " rw") != NULL;
		else if (strcmp(path, "/tmp") == 0 &&
		    strstr(line, " - tmpfs ") != NULL)
			tmp_rw |= strstr(line, " rw") != NULL;
		else if (strcmp(path, "/proc") != 0 &&
		    !fs_path_in(path, "/tmp") &&
		    !fs_path_in(path, "/dev/shm")) {
			ck_assert_msg(strstr(line, " ro,") != NULL ||
			    strstr(line, " ro ") != NULL, "writable: %s",
			    line);
			nro++;
		}
		free(path);
	}
	ck_assert_int_gt(nro, 0);
	ck_assert_msg(copy_rw, "the copy is not writable");
	ck_assert_msg(tmp_rw, "no private /tmp");
	contain_free(&c);
	buf_free(&out);
	free(real);
	free(copy);
}

START_TEST(t_mounts_setattr)
{
	check_mounts(0, geteuid() != 0);
}
END_TEST

START_TEST(t_mounts_legacy)
{
	check_mounts(1, geteuid() != 0);
}
END_TEST

/* As root, the unprivileged path too: a user namespace mapping root. */
START_TEST(t_mounts_userns)
{
	check_mounts(0, 1);
	check_mounts(1, 1);
}
END_TEST

START_TEST(t_method_names)
{
	int	m;

	for (m = CONTAIN_METHOD_AUTO; m <= CONTAIN_METHOD_LANDLOCK; m++)
		ck_assert_int_eq(contain_method_parse(contain_method_name(m)),
		    m);
	ck_assert_str_eq(contain_method_name(CONTAIN_METHOD_LANDLOCK),
	    "landlock");
	ck_assert_int_eq(contain_method_parse(""), -1);
	ck_assert_int_eq(contain_method_parse(NULL), -1);
}
END_TEST

/*
 * Landlock's plan: TMPDIR made afresh in the scratch directory (what a
 * run before left there goes), the user's alone, and gone at the end.
 */
START_TEST(t_landlock_tmpdir)
{
	struct contain		 c;
	struct contain_opts	 o = CONTAIN_OPTS_INIT;
	struct stat		 st;
	char			*scratch, *copy, *stale, made[4096];
	const char		*tmp;

	if (landlock_abi() < 1) {
		fprintf(stderr, "# SKIP: no Landlock here\n");
		return;
	}
	scratch = unitfs_dir("scratch");
	copy = unitfs_dir("copy");
	ck_assert_int_ne(asprintf(&stale, "%s/tmp/stale", scratch), -1);
	ck_assert_int_eq(fs_mkdirs(stale, 0755), 0);
	o.fs = 1;
	o.method = CONTAIN_METHOD_LANDLOCK;
	o.copy = copy;
	o.scratch = scratch;
	ck_assert_int_eq(contain_prepare(&c, &o), 0);
	ck_assert_str_eq(contain_method(&c), "landlock");
	ck_assert_ptr_nonnull(tmp = contain_tmpdir(&c));
	ck_assert_int_eq(strncmp(tmp, scratch, strlen(scratch)), 0);
	ck_assert_str_eq(tmp + strlen(scratch), "/tmp");
	ck_assert_int_eq(stat(tmp, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert(!unitfs_exists(stale));
	snprintf(made, sizeof(made), "%s", tmp);
	contain_end(&c);
	ck_assert(!unitfs_exists(made));
	ck_assert_ptr_null(contain_tmpdir(&c));
	contain_free(&c);
	/* In namespaces, /tmp is the command's own. */
	o.method = CONTAIN_METHOD_NAMESPACES;
	if (can_contain()) {
		ck_assert_int_eq(contain_prepare(&c, &o), 0);
		ck_assert_str_eq(contain_tmpdir(&c), "/tmp");
		contain_free(&c);
	}
	free(stale);
	free(copy);
	free(scratch);
}
END_TEST

static Suite *
contain_suite(void)
{
	Suite	*s = suite_create("contain");
	TCase	*tc;

	tc = tcase_create("plan");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_options);
	tcase_add_test(tc, t_settings);
	tcase_add_test(tc, t_mountinfo_line);
	tcase_add_test(tc, t_why);
	tcase_add_test(tc, t_method_names);
	tcase_add_test(tc, t_landlock_tmpdir);
	suite_add_tcase(s, tc);

	tc = tcase_create("namespaces");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_mounts_setattr);
	tcase_add_test(tc, t_mounts_legacy);
	tcase_add_test(tc, t_mounts_userns);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(contain_suite)
