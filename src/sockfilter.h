/*
 * A seccomp filter that leaves a command no network: creating a socket
 * of any family but AF_UNIX fails with EAFNOSUPPORT, and io_uring, which
 * can make sockets of its own, is not there (ENOSYS).
 *
 *	struct sockfilter f;
 *	if (sockfilter_prepare(&f) == -1)	errno ENOSYS: no filter for
 *		...				this architecture
 *	... in the child, between fork and exec, with no_new_privs set:
 *	if (sockfilter_apply(&f) == -1)		errno from the kernel
 *		...
 *
 * The filter is built in the struct itself, which owns nothing: the
 * child only hands it to the kernel.  It knows the machine's own system
 * calls and those of its 32-bit compatibility mode (where socketcall(2)
 * makes sockets, every socket it would make is refused, AF_UNIX too, as
 * its family cannot be seen); a process of any other architecture is
 * killed at its first system call.
 */
#ifndef SOCKFILTER_H
#define SOCKFILTER_H

#include <linux/filter.h>

#define SOCKFILTER_MAX	64

struct sockfilter {
	struct sock_filter	insns[SOCKFILTER_MAX];
	unsigned short		len;
};

int	sockfilter_prepare(struct sockfilter *);
int	sockfilter_apply(const struct sockfilter *);

#endif /* SOCKFILTER_H */
