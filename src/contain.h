/*
 * Containment (Linux): a command that sees the whole file system
 * read-only but for the copy it verifies and a few writable exceptions,
 * with a private, empty /tmp (and /dev/shm) of its own, and, on request,
 * a network of its own with only a loopback interface.
 *
 *	struct contain c;
 *	struct contain_opts o = CONTAIN_OPTS_INIT;
 *	o.fs = 1;  o.net = 1;
 *	o.copy = copy;			writable, as are o.writable's
 *	o.writable = list;		absolute directories, or NULL
 *	o.protect = places;		may never be writable: a writable
 *					entry holding one, or inside one,
 *					is refused
 *	if (contain_prepare(&c, &o) == -1)	a message says why
 *		...
 *	sp.hook = contain_hook(&c);	spawn.h: the child contains itself
 *	if (spawn_start(&sp) == -1 && sp.hook_what != -1)
 *		contain_explain(sp.hook_what, errno, NULL);
 *	...
 *	contain_free(&c);
 *
 * contain_prepare() does everything that allocates, reads files or can
 * print, in the parent before the fork: the paths, the uid and gid maps,
 * /proc/self/mountinfo, and an O_PATH descriptor (O_CLOEXEC) on each
 * writable directory, which reaches it once a tmpfs hides the /tmp it is
 * in.  The hook, in the child, then makes only system calls:
 *
 *	1. unshare: a user namespace unless root, a mount namespace with
 *	   o.fs, a network namespace with o.net;
 *	2. map our uid and gid to themselves (setgroups denied);
 *	3. make every mount private and read-only, recursively with
 *	   mount_setattr(2) (Linux 5.12), or else by remounting each mount
 *	   of mountinfo in turn (a mount it cannot reach is hidden anyway);
 *	4. a fresh tmpfs on /tmp and on /dev/shm;
 *	5. bind each writable directory back at its own path, writable,
 *	   and the protected places a fresh tmpfs hid, read-only (the
 *	   copy's .git leads into the real git directory);
 *	6. bring up the loopback interface of the new network;
 *	7. unless root, enter one more user and mount namespace, so that
 *	   the read-only mounts are locked.  (A command that is not root
 *	   has no capabilities once it execs, so it cannot remount them
 *	   anyway; the lock holds should one regain them in the namespace.)
 *
 * It is a guard against accidents, not a boundary against hostile code:
 * a root command can remount what it likes, and anything may read what
 * its user can read.  The failure a hook reports (CONTAIN_* below and an
 * errno) is explained by contain_explain(), which names the cause and
 * the setting to look at; the caller must then not run the command.
 */
#ifndef CONTAIN_H
#define CONTAIN_H

#include <stddef.h>

#include "spawn.h"

/* What the child was doing when it failed: spawn's hook_what. */
enum contain_stage {
	CONTAIN_UNSHARE,	/* unshare(2) of the namespaces */
	CONTAIN_MAP,		/* /proc/self/{setgroups,uid_map,gid_map} */
	CONTAIN_PRIVATE,	/* making the mounts private */
	CONTAIN_READONLY,	/* making everything read-only */
	CONTAIN_TMP,		/* the private /tmp and /dev/shm */
	CONTAIN_BIND,		/* the writable directories */
	CONTAIN_NET,		/* bringing up the loopback interface */
	CONTAIN_LOCK		/* the inner namespace that locks it */
};

struct contain_opts {
	int			 fs;		/* read-only, private /tmp */
	int			 net;		/* loopback only */
	const char		*copy;		/* writable; with fs */
	const char *const	*writable;	/* writable too, or NULL */
	const char *const	*protect;	/* never writable, or NULL */
};

#define CONTAIN_OPTS_INIT	{ 0, 0, NULL, NULL, NULL }

/* One mount of mountinfo, for kernels without mount_setattr(2). */
struct contain_mount {
	char		*path;
	unsigned long	 flags;		/* MS_NOSUID... to keep */
};

struct contain_bind {
	char		*path;		/* real path, no symlinks */
	int		 fd;		/* O_PATH, O_CLOEXEC */
	char		 via[40];	/* /proc/self/fd/N */
	unsigned long	 flags;		/* of the mount that holds it */
	int		 rw;		/* or shown read-only */
};

struct contain {
	int			 fs, net;
	int			 userns;	/* not root */
	int			 legacy;	/* no mount_setattr: remount
						   each of mounts */
	unsigned int		 uid, gid;
	char			 uidmap[32], gidmap[32];
	struct contain_mount	*mounts;
	size_t			 nmounts;
	int			 proc;		/* /proc is a mount point */
	unsigned long		 proc_flags;	/* and its flags */
	struct contain_bind	*binds;		/* outermost first */
	size_t			 nbinds;
	char			*tmps[2];	/* /tmp, /dev/shm, or NULL */
	char			**mkdirs;	/* made in a fresh tmpfs */
	size_t			 nmkdirs;
	struct spawn_hook	 hook;
};

int	contain_prepare(struct contain *, const struct contain_opts *);
const struct spawn_hook	*contain_hook(struct contain *);
void	contain_free(struct contain *);
/* The child side, as spawn's hook calls it: async-signal-safe. */
int	contain_child(const void *, int *);
/*
 * Why containment failed, on stderr: the cause and the setting that
 * decides it.  procsys is where the sysctl files are (NULL:
 * /proc/sys), for tests.
 */
void	contain_explain(int, int, const char *);
/* The same, into a buffer of len bytes, for a user namespace (not
 * root) or not (tests). */
void	contain_why(char *, size_t, int, int, int, const char *);
/* A mountinfo line's mount point and options (tests): 0, or -1 if it
 * is not one.  The path is allocated. */
int	contain_mountinfo_line(const char *, char **, unsigned long *);

#endif /* CONTAIN_H */
