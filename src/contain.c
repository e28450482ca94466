/* Containment: chosen and planned before the fork, namespaces in the child. */
/*
 * The method chosen and the plan made before the fork, and the system
 * calls that carry out the namespaces' in the child, as contain.h says;
 * Landlock's are landlock.c's.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <net/if.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "contain.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "landlock.h"
#include "xmalloc.h"

static const char uncontained[] = "not running the command uncontained: "
    "without --contain and --no-network (and forge.contain unset) it runs "
    "as it would without them";

#ifndef SYS_mount_setattr
#define SYS_mount_setattr	442	/* the same on every architecture */
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif
#define ATTR_RDONLY		0x1	/* linux/mount.h MOUNT_ATTR_RDONLY */

/* linux/mount.h's struct mount_attr, which older headers lack. */
struct mattr {
	uint64_t	attr_set;
	uint64_t	attr_clr;
	uint64_t	propagation;
	uint64_t	userns_fd;
};

/* The mount flags a remount must keep: a user namespace may not drop
 * them, and the atime ones are the mount's own. */
static const struct {
	const char	*name;
	unsigned long	 flag;
} mount_opts[] = {
	{ "nosuid",	MS_NOSUID },
	{ "nodev",	MS_NODEV },
	{ "noexec",	MS_NOEXEC },
	{ "noatime",	MS_NOATIME },
	{ "nodiratime",	MS_NODIRATIME },
	{ "relatime",	MS_RELATIME },
	{ "strictatime", MS_STRICTATIME },
};

int
contain_mountinfo_line(const char *line, char **path, unsigned long *flags)
{
	char		*copy, *p, *f[6], *o;
	size_t		 i, n;

	copy = xstrdup(line);
	p = copy;
	for (n = 0; n < 6 && (f[n] = strsep(&p, " ")) != NULL; n++)
		;
	if (n < 6 || *f[4] != '/') {
		free(copy);
		return -1;
	}
	*flags = 0;
	for (p = f[5]; (o = strsep(&p, ",")) != NULL;)
		for (i = 0; i < sizeof(mount_opts) / sizeof(mount_opts[0]);
		    i++)
			if (strcmp(o, mount_opts[i].name) == 0)
				*flags |= mount_opts[i].flag;
	fs_mount_unescape(f[4]);
	*path = xstrdup(f[4]);
	free(copy);
	return 0;
}

static int
read_mounts(struct contain *c)
{
	struct buf	 b = BUF_INIT;
	char		*p, *line, *path;
	unsigned long	 fl;

	if (fs_read_file("/proc/self/mountinfo", &b, 1 << 24) == -1) {
		warn("cannot read /proc/self/mountinfo");
		buf_free(&b);
		return -1;
	}
	buf_addc(&b, '\0');
	for (p = b.data; (line = strsep(&p, "\n")) != NULL;) {
		if (contain_mountinfo_line(line, &path, &fl) == -1)
			continue;
		c->mounts = xreallocarray(c->mounts, c->nmounts + 1,
		    sizeof(*c->mounts));
		if (strcmp(path, "/proc") == 0) {
			c->proc = 1;
			c->proc_flags = fl;
		}
		c->mounts[c->nmounts].path = path;
		c->mounts[c->nmounts++].flags = fl;
	}
	buf_free(&b);
	return 0;
}

/* The flags of the mount that holds path: the last one mounted on the
 * longest mount point above it. */
static unsigned long
flags_at(const struct contain *c, const char *path)
{
	size_t		i, best = 0, len;
	unsigned long	fl = 0;

	for (i = 0; i < c->nmounts; i++) {
		len = strlen(c->mounts[i].path);
		if (fs_path_in(path, c->mounts[i].path) && len >= best) {
			best = len;
			fl = c->mounts[i].flags;
		}
	}
	return fl;
}

static void
add_mkdir(struct contain *c, char *path)
{
	c->mkdirs = xreallocarray(c->mkdirs, c->nmkdirs + 1,
	    sizeof(*c->mkdirs));
	c->mkdirs[c->nmkdirs++] = path;
}

/* A writable directory under a fresh tmpfs needs its path made there. */
static void
plan_mkdirs(struct contain *c, const char *path)
{
	const char	*s;
	size_t		 i;

	for (i = 0; i < 2; i++) {
		if (c->tmps[i] == NULL || strcmp(path, c->tmps[i]) == 0 ||
		    !fs_path_in(path, c->tmps[i]))
			continue;
		for (s = path + strlen(c->tmps[i]) + 1; (s = strchr(s, '/'))
		    != NULL; s++)
			add_mkdir(c, xstrndup(path, (size_t)(s - path)));
		add_mkdir(c, xstrdup(path));
	}
}

/* Is one of a and b inside the other? */
static int
overlaps(const char *a, const char *b)
{
	return fs_path_in(a, b) || fs_path_in(b, a);
}

/* Is path below a fresh tmpfs's directory? */
static int
under_tmp(const struct contain *c, const char *path)
{
	size_t	i;

	for (i = 0; i < 2; i++)
		if (c->tmps[i] != NULL && fs_path_in(path, c->tmps[i]))
			return 1;
	return 0;
}

/*
 * A directory bound at its own path in the child: the copy (user 0), a
 * forge.containWritable entry (user 1), or (rw 0) a protected place a
 * fresh tmpfs would hide, shown read-only.
 */
static int
add_bind(struct contain *c, const char *path, int user, int rw,
    const char *const *protect)
{
	struct contain_bind	*b;
	struct stat		 st;
	const char		*home;
	char			*want, *real;
	size_t			 i;
	int			 fd, ret = -1;

	if (user && strncmp(path, "~/", 2) == 0 &&
	    (home = getenv("HOME")) != NULL)
		want = xasprintf("%s/%s", home, path + 2);
	else
		want = xstrdup(path);
	if ((real = realpath(want, NULL)) == NULL ||
	    stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		if (real != NULL)
			errno = ENOTDIR;
		/* A protected place that is not there is nothing to show;
		 * one that could not be resolved (EIO, EACCES) is. */
		if (!rw && (errno == ENOENT || errno == ENOTDIR))
			ret = 0;
		else if (!user)
			warn("cannot contain the command in %s", fs_vis(want));
		else {
			warn("forge.containWritable %s: not made writable",
			    fs_vis(want));
			ret = 0;
		}
		goto out;
	}
	for (i = 0; user && protect != NULL && protect[i] != NULL; i++)
		if (overlaps(real, protect[i])) {
			warnx("forge.containWritable %s: it would make %s "
			    "writable, which containment keeps read-only",
			    fs_vis(want), fs_vis(protect[i]));
			goto out;
		}
	/* A place for the descriptor the child opens there: an fd number
	 * that is ours until contain_free(). */
	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		warn("/dev/null");
		goto out;
	}
	c->binds = xreallocarray(c->binds, c->nbinds + 1, sizeof(*c->binds));
	b = &c->binds[c->nbinds++];
	b->path = real;
	real = NULL;
	b->fd = fd;
	snprintf(b->via, sizeof(b->via), "/proc/self/fd/%d", fd);
	b->flags = flags_at(c, b->path);
	b->rw = rw;
	ret = 0;
out:
	free(want);
	free(real);
	return ret;
}

static int
by_length(const void *a, const void *b)
{
	size_t	la = strlen(((const struct contain_bind *)a)->path);
	size_t	lb = strlen(((const struct contain_bind *)b)->path);

	return la < lb ? -1 : la > lb;
}

/* A directory to put a fresh tmpfs on, if there is one. */
static char *
tmp_target(const char *path)
{
	struct stat	 st;
	char		*real;

	if ((real = realpath(path, NULL)) == NULL)
		return NULL;
	if (stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}

static const char *const method_names[] = { "auto", "namespaces",
    "landlock" };

int
contain_method_parse(const char *s)
{
	size_t	i;

	for (i = 0; s != NULL && i < sizeof(method_names) /
	    sizeof(method_names[0]); i++)
		if (strcmp(s, method_names[i]) == 0)
			return (int)i;
	return -1;
}

const char *
contain_method_name(int m)
{
	return m >= 0 && (size_t)m < sizeof(method_names) /
	    sizeof(method_names[0]) ? method_names[m] : "?";
}

/*
 * Landlock's part of the plan: a TMPDIR of the command's own in scratch,
 * and the ruleset that lets it write there, in the copy and in the
 * exceptions alone.  -1 with *what and errno saying why.
 */
static int
plan_landlock(struct contain *c, const char *scratch, int *what)
{
	struct landlock_opts	 o = LANDLOCK_OPTS_INIT;
	const char		**dirs;
	size_t			 i, n = 0;
	int			 lw, saved;

	*what = CONTAIN_TMPDIR;
	if (c->fs && scratch != NULL) {
		c->tmpdir = xasprintf("%s/tmp", scratch);
		/* What a run before left there is not this one's. */
		if (fs_remove(c->tmpdir) == -1 ||
		    mkdir(c->tmpdir, 0700) == -1) {
			free(c->tmpdir);
			c->tmpdir = NULL;
			return -1;
		}
	}
	dirs = xreallocarray(NULL, c->nbinds + 2, sizeof(*dirs));
	for (i = 0; i < c->nbinds; i++)
		if (c->binds[i].rw)
			dirs[n++] = c->binds[i].path;
	if (c->tmpdir != NULL)
		dirs[n++] = c->tmpdir;
	dirs[n] = NULL;
	o.fs = c->fs;
	o.net = c->net;
	o.writable = dirs;
	if (landlock_prepare(&c->ll, &o, &lw) == -1) {
		saved = errno;
		*what = CONTAIN_LANDLOCK_ABI + lw;
		free(dirs);
		errno = saved;
		return -1;
	}
	free(dirs);
	return 0;
}

/* Landlock's part undone, for another method or none. */
static void
unplan_landlock(struct contain *c)
{
	landlock_free(&c->ll);
	if (c->tmpdir != NULL) {
		(void)fs_remove(c->tmpdir);
		free(c->tmpdir);
		c->tmpdir = NULL;
	}
}

/*
 * The method m, planned and tried: 0, or -1 with the cause in why (len
 * bytes).  A child that contains itself the same way may still fail,
 * and says why then.
 */
static int
try_method(struct contain *c, int m, const char *scratch, char *why,
    size_t len)
{
	int	what;

	c->method = m;
	if (m == CONTAIN_METHOD_LANDLOCK && plan_landlock(c, scratch,
	    &what) == -1)
		goto fail;
	if (spawn_probe(&c->hook, &what) == 0)
		return 0;
fail:
	contain_why(why, len, what, errno, c->userns, NULL);
	if (m == CONTAIN_METHOD_LANDLOCK)
		unplan_landlock(c);
	return -1;
}

/* What the namespaces and Landlock share: the writable directories,
 * checked; and the namespaces' own plan, which costs nothing unused. */
static int
plan_common(struct contain *c, const struct contain_opts *o)
{
	size_t	i;

	memset(c, 0, sizeof(*c));
	c->fs = o->fs;
	c->net = o->net;
	c->ll.ruleset = -1;
	c->userns = geteuid() != 0;
	c->uid = (unsigned int)geteuid();
	c->gid = (unsigned int)getegid();
	snprintf(c->uidmap, sizeof(c->uidmap), "%u %u 1\n", c->uid, c->uid);
	snprintf(c->gidmap, sizeof(c->gidmap), "%u %u 1\n", c->gid, c->gid);
	c->hook.fn = contain_child;
	c->hook.arg = c;
	if (!c->fs)
		return 0;
	if (read_mounts(c) == -1)
		return -1;
	c->tmps[0] = tmp_target("/tmp");
	c->tmps[1] = tmp_target("/dev/shm");
	if (o->copy != NULL && add_bind(c, o->copy, 0, 1, NULL) == -1)
		return -1;
	for (i = 0; o->writable != NULL && o->writable[i] != NULL; i++)
		if (add_bind(c, o->writable[i], 1, 1, o->protect) == -1)
			return -1;
	/* The real tree and its git directory stay in sight, read-only:
	 * the copy's .git leads there. */
	for (i = 0; o->protect != NULL && o->protect[i] != NULL; i++)
		if (under_tmp(c, o->protect[i]) &&
		    add_bind(c, o->protect[i], 0, 0, NULL) == -1)
			return -1;
	/* Outermost first: an inner one is bound inside the outer. */
	if (c->nbinds > 1)
		qsort(c->binds, c->nbinds, sizeof(*c->binds), by_length);
	for (i = 0; i < c->nbinds; i++)
		plan_mkdirs(c, c->binds[i].path);
	return 0;
}

int
contain_prepare(struct contain *c, const struct contain_opts *o)
{
	char	why[2][512];
	int	m;

	if (plan_common(c, o) == -1)
		goto fail;
	if (o->method != CONTAIN_METHOD_AUTO) {
		if (try_method(c, o->method, o->scratch, why[0],
		    sizeof(why[0])) == 0)
			return 0;
		warnx("%s", why[0]);
		goto refuse;
	}
	for (m = CONTAIN_METHOD_NAMESPACES; m <= CONTAIN_METHOD_LANDLOCK; m++)
		if (try_method(c, m, o->scratch, why[m - 1],
		    sizeof(why[0])) == 0)
			return 0;
	warnx("cannot contain the command: neither namespaces nor Landlock "
	    "work here");
	warnx("namespaces: %s", why[0]);
	warnx("landlock: %s", why[1]);
refuse:
	warnx("%s", uncontained);
fail:
	contain_free(c);
	return -1;
}

int
contain_probe(int m, char *why, size_t len)
{
	struct contain		c;
	struct contain_opts	o = CONTAIN_OPTS_INIT;
	int			ret = -1;

	o.fs = o.net = 1;
	if (plan_common(&c, &o) == -1)
		snprintf(why, len, "cannot plan the containment");
	else
		ret = try_method(&c, m, NULL, why, len);
	contain_free(&c);
	return ret;
}

const struct spawn_hook *
contain_hook(struct contain *c)
{
	return &c->hook;
}

const char *
contain_method(const struct contain *c)
{
	return contain_method_name(c->method);
}

const char *
contain_tmpdir(const struct contain *c)
{
	if (!c->fs)
		return NULL;
	return c->method == CONTAIN_METHOD_LANDLOCK ? c->tmpdir : "/tmp";
}

const char *
contain_summary(const struct contain *c)
{
	if (c->method == CONTAIN_METHOD_LANDLOCK) {
		if (!c->fs)
			return "no network (landlock): no socket but a "
			    "unix one";
		if (c->net)
			return "contained (landlock): all but the copy and "
			    "TMPDIR is read-only; no network: no socket but a "
			    "unix one";
		return "contained (landlock): all but the copy and TMPDIR is "
		    "read-only";
	}
	if (!c->fs)
		return "no network (namespaces): loopback only";
	if (c->net)
		return "contained (namespaces): all but the copy is read-only, "
		    "/tmp is private; no network: loopback only";
	return "contained (namespaces): all but the copy is read-only, /tmp "
	    "is private";
}

void
contain_end(struct contain *c)
{
	if (c->tmpdir != NULL && fs_remove(c->tmpdir) == -1)
		warn("cannot remove %s", fs_vis(c->tmpdir));
	free(c->tmpdir);
	c->tmpdir = NULL;
}

void
contain_free(struct contain *c)
{
	size_t	i;

	contain_end(c);
	landlock_free(&c->ll);
	for (i = 0; i < c->nmounts; i++)
		free(c->mounts[i].path);
	free(c->mounts);
	for (i = 0; i < c->nbinds; i++) {
		free(c->binds[i].path);
		if (c->binds[i].fd != -1)
			close(c->binds[i].fd);
	}
	free(c->binds);
	for (i = 0; i < c->nmkdirs; i++)
		free(c->mkdirs[i]);
	free(c->mkdirs);
	free(c->tmps[0]);
	free(c->tmps[1]);
	memset(c, 0, sizeof(*c));
	c->ll.ruleset = -1;
}

/*
 * The child's side, from here on: system calls only, on what the plan
 * holds.
 */

static size_t
slen(const char *s)
{
	size_t	n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

static int
put(const char *path, const char *s)
{
	ssize_t	n = (ssize_t)slen(s);
	int	fd, saved;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	if (write(fd, s, (size_t)n) != n) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

static int
map_ids(const struct contain *c)
{
	/* setgroups must be denied before an unprivileged gid_map. */
	if (put("/proc/self/setgroups", "deny") == -1 && errno != ENOENT)
		return -1;
	if (put("/proc/self/uid_map", c->uidmap) == -1)
		return -1;
	return put("/proc/self/gid_map", c->gidmap);
}

static int
setattr(const char *path, uint64_t set, uint64_t clr, int rec)
{
	struct mattr	a = { 0, 0, 0, 0 };

	a.attr_set = set;
	a.attr_clr = clr;
	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path,
	    rec ? AT_RECURSIVE : 0, &a, sizeof(a));
}

/* Not a mount point we can reach: another mount hides it. */
static int
unreachable(int e)
{
	return e == ENOENT || e == EACCES || e == ENOTDIR || e == ELOOP ||
	    e == EINVAL;
}

static int
read_only(const struct contain *c)
{
	size_t	i;

	if (!c->legacy) {
		if (setattr("/", ATTR_RDONLY, 0, 1) == 0)
			goto proc;
		if (errno != ENOSYS)
			return -1;
	}
	for (i = 0; i < c->nmounts; i++)
		if (mount(NULL, c->mounts[i].path, NULL, MS_REMOUNT | MS_BIND |
		    MS_RDONLY | c->mounts[i].flags, NULL) == -1 &&
		    !unreachable(errno))
			return -1;
proc:
	/*
	 * /proc stays writable, for the inner namespace's uid_map: it
	 * holds no files of the user's, and its magic links (/proc/PID/root)
	 * lead where they lead whatever its flags.
	 */
	if (c->proc && mount(NULL, "/proc", NULL, MS_REMOUNT | MS_BIND |
	    c->proc_flags, NULL) == -1)
		return -1;
	return 0;
}

static int
writable(const struct contain *c, const struct contain_bind *b)
{
	if (!c->legacy) {
		if (setattr(b->path, 0, ATTR_RDONLY, 1) == 0)
			return 0;
		if (errno != ENOSYS)
			return -1;
	}
	return mount(NULL, b->path, NULL, MS_REMOUNT | MS_BIND | b->flags,
	    NULL);
}

static int
loopback_up(void)
{
	struct ifreq	ifr;
	int		fd, ret = -1, saved;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_name[0] = 'l';
	ifr.ifr_name[1] = 'o';
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

static int
file_system(const struct contain *c, int *what)
{
	size_t	i;
	int	fd;

	*what = CONTAIN_PRIVATE;
	/* Nothing we mount reaches the host, nor the host's mounts us. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return -1;
	*what = CONTAIN_BIND;
	/* Held before a tmpfs hides them, in this namespace's mounts. */
	for (i = 0; i < c->nbinds; i++) {
		if ((fd = open(c->binds[i].path, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			return -1;
		if (dup3(fd, c->binds[i].fd, O_CLOEXEC) == -1)
			return -1;
		close(fd);
	}
	*what = CONTAIN_READONLY;
	if (read_only(c) == -1)
		return -1;
	*what = CONTAIN_TMP;
	for (i = 0; i < 2; i++)
		if (c->tmps[i] != NULL && mount("tmpfs", c->tmps[i], "tmpfs",
		    MS_NOSUID | MS_NODEV, "mode=1777") == -1)
			return -1;
	for (i = 0; i < c->nmkdirs; i++)
		if (mkdir(c->mkdirs[i], 0700) == -1 && errno != EEXIST)
			return -1;
	*what = CONTAIN_BIND;
	for (i = 0; i < c->nbinds; i++) {
		if (mount(c->binds[i].via, c->binds[i].path, NULL,
		    MS_BIND | MS_REC, NULL) == -1)
			return -1;
		if (c->binds[i].rw && writable(c, &c->binds[i]) == -1)
			return -1;
		close(c->binds[i].fd);
	}
	return 0;
}

int
contain_child(const void *arg, int *what)
{
	const struct contain	*c = arg;
	int			 flags = 0;

	if (c->method == CONTAIN_METHOD_LANDLOCK) {
		if (landlock_child(&c->ll, &flags) == -1) {
			*what = CONTAIN_LANDLOCK_ABI + flags;
			return -1;
		}
		return 0;
	}

	if (c->userns)
		flags |= CLONE_NEWUSER;
	if (c->fs)
		flags |= CLONE_NEWNS;
	if (c->net)
		flags |= CLONE_NEWNET;
	*what = CONTAIN_UNSHARE;
	if (unshare(flags) == -1)
		return -1;
	*what = CONTAIN_MAP;
	if (c->userns && map_ids(c) == -1)
		return -1;
	if (c->fs && file_system(c, what) == -1)
		return -1;
	*what = CONTAIN_NET;
	if (c->net && loopback_up() == -1)
		return -1;
	/*
	 * Mounts passed to a less privileged namespace are locked: the
	 * command, root in neither, cannot make them writable again.
	 */
	*what = CONTAIN_LOCK;
	if (c->userns && c->fs && (unshare(CLONE_NEWUSER | CLONE_NEWNS) ==
	    -1 || map_ids(c) == -1))
		return -1;
	/* As with Landlock: a set-user-ID program gains nothing. */
	*what = CONTAIN_NO_NEW_PRIVS;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* A sysctl's value, as a number; -1 if there is none. */
static long
sysctl_value(const char *procsys, const char *name)
{
	char	path[512], val[32];
	ssize_t	n;
	int	fd;

	snprintf(path, sizeof(path), "%s/%s", procsys, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	val[n] = '\0';
	return strtol(val, NULL, 10);
}

static const char *const stage_names[] = {
	"cannot create namespaces",
	"cannot map the user and group ids into the user namespace",
	"cannot make the mounts private",
	"cannot make the file system read-only",
	"cannot mount a private /tmp",
	"cannot bind the copy writable",
	"cannot bring up the loopback interface",
	"cannot lock the read-only mounts",
	"cannot set no_new_privs",
	"Landlock is not available",
	"cannot make the Landlock rules",
	"cannot make the seccomp filter",
	"cannot set no_new_privs",
	"cannot install the seccomp filter",
	"cannot enforce the Landlock rules",
	"cannot make the command's TMPDIR",
};

/* Why Landlock and its filter cannot be had, where the kernel says. */
static const char *
landlock_cause(int what, int err)
{
	switch (what) {
	case CONTAIN_LANDLOCK_ABI:
		if (err == ENOSYS)
			return "the kernel has none (it needs Linux 5.13 or "
			    "later, built with CONFIG_SECURITY_LANDLOCK)";
		if (err == EOPNOTSUPP)
			return "it is disabled (not among the security modules "
			    "the kernel was booted with: lsm=...,landlock)";
		if (err == EPERM)
			return "forbidden here (a seccomp filter or a "
			    "container's policy)";
		break;
	case CONTAIN_LANDLOCK_FILTER:
		if (err == ENOSYS)
			return "forge has none for this machine's "
			    "architecture";
		break;
	case CONTAIN_LANDLOCK_SECCOMP:
		if (err == EINVAL)
			return "the kernel has no seccomp filters "
			    "(CONFIG_SECCOMP_FILTER)";
		break;
	case CONTAIN_LANDLOCK_RESTRICT:
		if (err == E2BIG)
			return "too many Landlock layers already (16 at most)";
		break;
	}
	return NULL;
}

void
contain_why(char *buf, size_t len, int what, int err, int userns,
    const char *procsys)
{
	const char	*stage, *cause;

	if (procsys == NULL)
		procsys = "/proc/sys";
	stage = what >= 0 && (size_t)what < sizeof(stage_names) /
	    sizeof(stage_names[0]) ? stage_names[what] : "cannot contain";
	if ((cause = landlock_cause(what, err)) != NULL) {
		snprintf(buf, len, "%s: %s", stage, cause);
		return;
	}
	if (what == CONTAIN_UNSHARE || what == CONTAIN_MAP ||
	    what == CONTAIN_LOCK) {
		if (sysctl_value(procsys, "kernel/unprivileged_userns_clone")
		    == 0 && userns) {
			snprintf(buf, len, "%s: unprivileged user namespaces "
			    "are disabled (sysctl "
			    "kernel.unprivileged_userns_clone = 0)", stage);
			return;
		}
		if (sysctl_value(procsys, "user/max_user_namespaces") == 0) {
			snprintf(buf, len, "%s: user namespaces are disabled "
			    "(sysctl user.max_user_namespaces = 0)", stage);
			return;
		}
		if (err == ENOSPC) {
			snprintf(buf, len, "%s: too many namespaces (sysctl "
			    "user.max_user_namespaces and its kin)", stage);
			return;
		}
		if (sysctl_value(procsys,
		    "kernel/apparmor_restrict_unprivileged_userns") == 1 &&
		    userns) {
			snprintf(buf, len, "%s: AppArmor restricts "
			    "unprivileged user namespaces (sysctl "
			    "kernel.apparmor_restrict_unprivileged_userns = 1; "
			    "a profile for forge may allow them)", stage);
			return;
		}
		if (err == EPERM || err == ENOSYS || err == EINVAL) {
			snprintf(buf, len, "%s: %s (namespaces are forbidden "
			    "here: a seccomp filter, a container's policy or a "
			    "kernel without them)", stage, strerror(err));
			return;
		}
	}
	snprintf(buf, len, "%s: %s", stage, strerror(err));
}

void
contain_explain(int what, int err, const char *procsys)
{
	char	buf[512];

	contain_why(buf, sizeof(buf), what, err, geteuid() != 0, procsys);
	warnx("%s", buf);
	warnx("%s", uncontained);
}
