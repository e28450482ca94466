/*
 * Containment without namespaces: Landlock (Linux 5.13) for the files,
 * a seccomp filter (sockfilter.h) and Landlock's network rules for the
 * network.  Neither needs a privilege, nor anything a container's
 * default policy forbids.
 *
 *	struct landlock l;
 *	struct landlock_opts o = LANDLOCK_OPTS_INIT;
 *	o.fs = 1;			nothing is writable ...
 *	o.writable = dirs;		... but beneath these (absolute,
 *					resolved, NULL-terminated)
 *	o.net = 1;			no socket but AF_UNIX
 *	if (landlock_prepare(&l, &o, &what) == -1)
 *		...			what (LANDLOCK_*) and errno say why
 *	... in the child, between fork and exec:
 *	if (landlock_child(&l, &what) == -1)
 *		...
 *	landlock_free(&l);
 *
 * landlock_prepare() makes the ruleset in the parent, with the highest
 * ABI the kernel offers: the ruleset's descriptor (O_CLOEXEC) is the
 * struct's until landlock_free().  With o.fs, every right that writes
 * is handled (truncation from ABI 3, ioctl on devices from ABI 5), and
 * granted beneath each writable directory, but for making device nodes;
 * a file may move or be linked from one of its directories to another
 * from ABI 2 (never before), and never in or out.  The devices of /dev
 * may be written and ioctl'ed as before, /dev/shm, /dev/mqueue and
 * /dev/hugepages aside.  Reading and executing are left alone.  With
 * o.net, TCP binds and connections are refused from ABI 4, and no
 * abstract unix socket made outside the command can be reached from
 * ABI 6.  The child only sets no_new_privs (always), installs the filter
 * (o.net) and enforces the ruleset: system calls alone.
 */
#ifndef LANDLOCK_H
#define LANDLOCK_H

#include "sockfilter.h"

/* What failed: landlock_prepare()'s and landlock_child()'s what. */
enum landlock_stage {
	LANDLOCK_ABI,		/* no Landlock here */
	LANDLOCK_RULESET,	/* making the ruleset */
	LANDLOCK_FILTER,	/* no seccomp filter for this machine */
	LANDLOCK_NO_NEW_PRIVS,	/* prctl(PR_SET_NO_NEW_PRIVS) */
	LANDLOCK_SECCOMP,	/* installing the filter */
	LANDLOCK_RESTRICT	/* landlock_restrict_self(2) */
};

struct landlock_opts {
	int			 fs;
	int			 net;
	const char *const	*writable;
};

#define LANDLOCK_OPTS_INIT	{ 0, 0, NULL }

struct landlock {
	int			 abi;
	int			 ruleset;	/* -1: nothing to enforce */
	int			 net;
	struct sockfilter	 filter;	/* with net */
};

/* The Landlock ABI the kernel offers (1 and up), or -1, errno set. */
int	landlock_abi(void);
int	landlock_prepare(struct landlock *, const struct landlock_opts *,
	    int *);
/* The child side, as spawn's hook calls it: async-signal-safe. */
int	landlock_child(const struct landlock *, int *);
void	landlock_free(struct landlock *);

#endif /* LANDLOCK_H */
