/* Landlock's ruleset, made before the fork, and applied in the child. */
/*
 * As landlock.h says.  Raw system calls: the C library has no wrappers,
 * and the kernel's header, where there is one, may be older than the
 * kernel.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifdef HAVE_LINUX_LANDLOCK_H
#include <linux/landlock.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "landlock.h"
#include "sockfilter.h"

/* The same number on every architecture. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset	444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule		445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self	446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION	(1U << 0)
#endif

/* The rights, by ABI: 1 unless said. */
#define FS_WRITE_FILE		(1ULL << 1)
#define FS_REMOVE_DIR		(1ULL << 4)
#define FS_REMOVE_FILE		(1ULL << 5)
#define FS_MAKE_CHAR		(1ULL << 6)
#define FS_MAKE_DIR		(1ULL << 7)
#define FS_MAKE_REG		(1ULL << 8)
#define FS_MAKE_SOCK		(1ULL << 9)
#define FS_MAKE_FIFO		(1ULL << 10)
#define FS_MAKE_BLOCK		(1ULL << 11)
#define FS_MAKE_SYM		(1ULL << 12)
#define FS_REFER		(1ULL << 13)	/* 2 */
#define FS_TRUNCATE		(1ULL << 14)	/* 3 */
#define FS_IOCTL_DEV		(1ULL << 15)	/* 5 */
#define NET_BIND_TCP		(1ULL << 0)	/* 4 */
#define NET_CONNECT_TCP		(1ULL << 1)	/* 4 */
#define SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* 6 */

#define RULE_PATH_BENEATH	1

/* The kernel's structs, as the newest ABI has them: an older kernel
 * takes a larger one whose fields it does not know are zero. */
struct ruleset_attr {
	uint64_t	handled_access_fs;
	uint64_t	handled_access_net;
	uint64_t	scoped;
};

struct path_beneath {
	uint64_t	allowed_access;
	int32_t		parent_fd;
} __attribute__((__packed__));

/* Beneath a writable directory: everything that writes, but devices. */
static uint64_t
write_rights(int abi)
{
	uint64_t	r;

	r = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR |
	    FS_MAKE_REG | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_SYM;
	if (abi >= 2)
		r |= FS_REFER;
	if (abi >= 3)
		r |= FS_TRUNCATE;
	return r;
}

/* On a device, and beneath a directory of them. */
static uint64_t
dev_rights(int abi)
{
	return FS_WRITE_FILE | (abi >= 5 ? FS_IOCTL_DEV : 0);
}

int
landlock_abi(void)
{
	long	abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		if (abi == 0)
			errno = ENOSYS;
		return -1;
	}
	return (int)abi;
}

static int
add_rule(int ruleset, int fd, uint64_t rights)
{
	struct path_beneath	pb;

	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = rights;
	pb.parent_fd = fd;
	return (int)syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH,
	    &pb, 0);
}

static int
add_path(int ruleset, const char *path, uint64_t rights)
{
	int	fd, ret, saved;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	ret = add_rule(ruleset, fd, rights);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

/*
 * The devices stay as writable as their modes make them, a terminal
 * opened anew and /dev/null first: each device of /dev, and each
 * directory of them (/dev/pts), but those where files are made and
 * shared.
 */
static int
add_devices(int ruleset, int abi)
{
	static const char *const shared[] = { "shm", "mqueue", "hugepages" };
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	size_t		 i;
	int		 fd, ret = 0;

	if ((d = opendir("/dev")) == NULL)
		return errno == ENOENT ? 0 : -1;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
			if (strcmp(de->d_name, shared[i]) == 0)
				break;
		if (i < sizeof(shared) / sizeof(shared[0]))
			continue;
		if ((fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;	/* gone meanwhile */
		if (fstat(fd, &st) == 0 && (S_ISCHR(st.st_mode) ||
		    S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode)))
			ret = add_rule(ruleset, fd, dev_rights(abi));
		close(fd);
	}
	closedir(d);
	return ret;
}

int
landlock_prepare(struct landlock *l, const struct landlock_opts *o,
    int *what)
{
	struct ruleset_attr	attr;
	size_t			i;
	int			saved;

	memset(l, 0, sizeof(*l));
	l->ruleset = -1;
	l->net = o->net;
	*what = LANDLOCK_ABI;
	if ((l->abi = landlock_abi()) == -1)
		return -1;
	*what = LANDLOCK_FILTER;
	if (o->net && sockfilter_prepare(&l->filter) == -1)
		return -1;
	memset(&attr, 0, sizeof(attr));
	if (o->fs) {
		attr.handled_access_fs = write_rights(l->abi) | FS_MAKE_CHAR |
		    FS_MAKE_BLOCK | dev_rights(l->abi);
	}
	if (o->net && l->abi >= 4)
		attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
	if (o->net && l->abi >= 6)
		attr.scoped = SCOPE_ABSTRACT_UNIX;
	if (attr.handled_access_fs == 0 && attr.handled_access_net == 0 &&
	    attr.scoped == 0)
		return 0;		/* the filter alone */
	*what = LANDLOCK_RULESET;
	if ((l->ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sizeof(attr), 0)) == -1)
		return -1;
	if (o->fs) {
		for (i = 0; o->writable != NULL && o->writable[i] != NULL;
		    i++)
			if (add_path(l->ruleset, o->writable[i],
			    write_rights(l->abi)) == -1)
				goto fail;
		if (add_devices(l->ruleset, l->abi) == -1)
			goto fail;
	}
	return 0;
fail:
	saved = errno;
	landlock_free(l);
	errno = saved;
	return -1;
}

int
landlock_child(const struct landlock *l, int *what)
{
	*what = LANDLOCK_NO_NEW_PRIVS;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	*what = LANDLOCK_SECCOMP;
	if (l->net && sockfilter_apply(&l->filter) == -1)
		return -1;
	*what = LANDLOCK_RESTRICT;
	if (l->ruleset != -1 && syscall(SYS_landlock_restrict_self,
	    l->ruleset, 0) == -1)
		return -1;
	return 0;
}

void
landlock_free(struct landlock *l)
{
	if (l->ruleset != -1)
		close(l->ruleset);
	memset(l, 0, sizeof(*l));
	l->ruleset = -1;
}
