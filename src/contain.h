/*
 * Containment (Linux): a command that may write nothing but the copy it
 * verifies, a temporary directory of its own and a few writable
 * exceptions, and, on request, that reaches no network.  Two ways:
 *
 *	namespaces	the whole file system read-only but for the copy
 *			and the exceptions, with a private, empty /tmp
 *			(and /dev/shm) of its own; a network of its own
 *			with only a loopback interface
 *	landlock	Landlock (landlock.h) lets it write only beneath
 *			the copy, the exceptions and a private TMPDIR that
 *			forge makes for the run; a seccomp filter lets it
 *			make no socket but AF_UNIX, loopback included
 *
 * Either way the command runs with no_new_privs: a set-user-ID program
 * gains nothing.
 *
 *	struct contain c;
 *	struct contain_opts o = CONTAIN_OPTS_INIT;
 *	o.fs = 1;  o.net = 1;
 *	o.method = CONTAIN_METHOD_AUTO;	or force one
 *	o.copy = copy;			writable, as are o.writable's
 *	o.writable = list;		absolute directories, or NULL
 *	o.protect = places;		may never be writable: a writable
 *					entry holding one, or inside one,
 *					is refused
 *	o.scratch = dir;		where Landlock's private TMPDIR is
 *					made (dir/tmp), or NULL: none
 *	if (contain_prepare(&c, &o) == -1)	a message says why
 *		...
 *	... contain_method(&c), contain_tmpdir(&c): what the command gets
 *	sp.hook = contain_hook(&c);	spawn.h: the child contains itself
 *	if (spawn_start(&sp) == -1 && sp.hook_what != -1)
 *		contain_explain(sp.hook_what, errno, NULL);
 *	...
 *	contain_end(&c);		the private TMPDIR goes
 *	contain_free(&c);
 *
 * contain_prepare() does everything that allocates, reads files or can
 * print, in the parent before the fork, and tries the plan in a child
 * that contains itself and exits (spawn_probe()).  With
 * CONTAIN_METHOD_AUTO it tries the namespaces first, then Landlock, and
 * takes the first that works; where none does, it names the cause for
 * each and fails.
 *
 * For namespaces the plan holds the paths, the uid and gid maps,
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
 *	8. no_new_privs.
 *
 * For Landlock the plan holds the ruleset and the filter, and the
 * private TMPDIR, made mode 0700 in o.scratch; the hook enforces them.
 *
 * It is a guard against accidents, not a boundary against hostile code:
 * a root command in namespaces can remount what it likes, and anything
 * may read what its user can read.  The failure a hook reports
 * (CONTAIN_* below and an errno) is explained by contain_explain(),
 * which names the cause and the setting to look at; the caller must then
 * not run the command.
 */
#ifndef CONTAIN_H
#define CONTAIN_H

#include <stddef.h>

#include "landlock.h"
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
	CONTAIN_LOCK,		/* the inner namespace that locks it */
	CONTAIN_NO_NEW_PRIVS,	/* prctl(PR_SET_NO_NEW_PRIVS) */
	/* Landlock's, in the order of landlock.h's LANDLOCK_*. */
	CONTAIN_LANDLOCK_ABI,	/* no Landlock here */
	CONTAIN_LANDLOCK_RULESET, /* making the ruleset */
	CONTAIN_LANDLOCK_FILTER, /* no seccomp filter for this machine */
	CONTAIN_LANDLOCK_NNP,	/* no_new_privs, before the filter */
	CONTAIN_LANDLOCK_SECCOMP, /* installing the filter */
	CONTAIN_LANDLOCK_RESTRICT, /* enforcing the ruleset */
	CONTAIN_TMPDIR		/* Landlock's TMPDIR, in the parent */
};

/* forge.containMethod. */
enum contain_method {
	CONTAIN_METHOD_AUTO,	/* namespaces, else Landlock */
	CONTAIN_METHOD_NAMESPACES,
	CONTAIN_METHOD_LANDLOCK
};

struct contain_opts {
	int			 fs;		/* read-only, private /tmp */
	int			 net;		/* loopback only */
	int			 method;	/* enum contain_method */
	const char		*copy;		/* writable; with fs */
	const char *const	*writable;	/* writable too, or NULL */
	const char *const	*protect;	/* never writable, or NULL */
	const char		*scratch;	/* Landlock's TMPDIR in it */
};

#define CONTAIN_OPTS_INIT	\
	{ 0, 0, CONTAIN_METHOD_AUTO, NULL, NULL, NULL, NULL }

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
	int			 method;	/* the one taken */
	struct landlock		 ll;		/* with Landlock */
	char			*tmpdir;	/* Landlock's TMPDIR, or
						   NULL */
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
/* The method taken: "namespaces" or "landlock". */
const char *contain_method(const struct contain *);
/* What TMPDIR the command gets: /tmp, Landlock's own, or NULL (as it
 * is: no o.fs). */
const char *contain_tmpdir(const struct contain *);
/* What the run is told: "contained in namespaces: all but ...". */
const char *contain_summary(const struct contain *);
/* The steps are over: Landlock's TMPDIR goes now, not with the plan. */
void	contain_end(struct contain *);
void	contain_free(struct contain *);
/* forge.containMethod's value (auto, namespaces, landlock), or -1; and
 * back. */
int	contain_method_parse(const char *);
const char *contain_method_name(int);
/*
 * Does method (not auto) work on this machine, for a command contained
 * and without network?  0, or -1 with the cause in a buffer of len
 * bytes.  (forge status.)
 */
int	contain_probe(int, char *, size_t);
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
