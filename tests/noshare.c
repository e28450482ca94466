/*
 * noshare [-l] [-3] program [argument ...]: runs program where
 * namespaces cannot be made, as under a container's seccomp policy that
 * forbids them: unshare(2), and clone(2) with a namespace flag, fail
 * with EPERM; clone3(2), whose flags a filter cannot see, with ENOSYS
 * (the C library then falls back to clone).  With -l, Landlock's system
 * calls fail with ENOSYS too, as on a kernel without it.  With -3, a
 * system call of another architecture (i386's, by int $0x80) kills the
 * process, as on a kernel without 32-bit emulation (where it is a
 * SIGSEGV; here a SIGSYS).  Exits 77 where it cannot set up the filter.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH	AUDIT_ARCH_AARCH64
#endif

#define NR_CLONE3		435	/* the same everywhere */
#define NR_LANDLOCK_FIRST	444	/* create_ruleset, add_rule, */
#define NR_LANDLOCK_LAST	446	/* restrict_self */

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS	0x80000000U
#endif

#define NAMESPACES	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | \
	CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

int
main(int argc, char **argv)
{
#ifdef ARCH
	struct sock_filter	f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		/* 2: another architecture's, unless -3 */
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		/* 4 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_CLONE3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		/* 8: Landlock's, unless -l (then jt is 0) */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, NR_LANDLOCK_FIRST, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 4, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 11: Landlock's? */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, NR_LANDLOCK_LAST, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		/* 14: clone's flags, the first argument's low half */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACES, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = { sizeof(f) / sizeof(f[0]), f };
	int			i = 1, landlock = 0;

	for (; i < argc && argv[i][0] == '-'; i++)
		if (strcmp(argv[i], "-l") == 0)
			landlock = 1;
		else if (strcmp(argv[i], "-3") == 0)
			f[2].k = SECCOMP_RET_KILL_PROCESS;
		else
			break;
	if (!landlock)
		f[8].jt = 0;	/* Landlock's go on to the clone test */
	if (argc <= i || argv[i][0] == '-') {
		fprintf(stderr, "usage: noshare [-l] [-3] program "
		    "[argument ...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1) {
		perror("noshare: seccomp");
		return 77;
	}
	execvp(argv[i], argv + i);
	perror(argv[i]);
	return 127;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "noshare: no seccomp filter for this machine\n");
	return 77;
#endif
}
