/* The seccomp filter of sockfilter.h, in classic BPF built by hand. */
/* By hand: forge depends on no seccomp library. */
#include "config.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sockfilter.h"

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS	0x80000000U
#endif
#ifndef SYS_SOCKET
#define SYS_SOCKET		1	/* linux/net.h: socketcall's calls */
#endif
#ifndef SYS_SOCKETPAIR
#define SYS_SOCKETPAIR		8
#endif
#define NR_IO_URING_SETUP	425	/* the same everywhere */

/* What the filter does with a system call. */
enum kind {
	DOMAIN,		/* socket, socketpair: AF_UNIX alone */
	SOCKETCALL,	/* no socket, no pair, whatever the family */
	ABSENT		/* ENOSYS */
};

struct rule {
	uint32_t	nr;
	enum kind	kind;
};

struct arch {
	uint32_t		 audit;
	const struct rule	*rules;
	size_t			 nrules;
};

#define NRULES(r)	(sizeof(r) / sizeof((r)[0]))

#if defined(__x86_64__)
#define X32	0x40000000U		/* __X32_SYSCALL_BIT */
static const struct rule native[] = {
	{ 41, DOMAIN }, { 53, DOMAIN }, { NR_IO_URING_SETUP, ABSENT },
	{ X32 | 41, DOMAIN }, { X32 | 53, DOMAIN },
	{ X32 | NR_IO_URING_SETUP, ABSENT },
};
static const struct rule compat[] = {
	{ 359, DOMAIN }, { 360, DOMAIN }, { 102, SOCKETCALL },
	{ NR_IO_URING_SETUP, ABSENT },
};
static const struct arch arches[] = {
	{ AUDIT_ARCH_X86_64, native, NRULES(native) },
	{ AUDIT_ARCH_I386, compat, NRULES(compat) },
};
#elif defined(__i386__)
static const struct rule native[] = {
	{ 359, DOMAIN }, { 360, DOMAIN }, { 102, SOCKETCALL },
	{ NR_IO_URING_SETUP, ABSENT },
};
static const struct arch arches[] = {
	{ AUDIT_ARCH_I386, native, NRULES(native) },
};
#elif defined(__aarch64__)
static const struct rule native[] = {
	{ 198, DOMAIN }, { 199, DOMAIN }, { NR_IO_URING_SETUP, ABSENT },
};
static const struct rule compat[] = {
	{ 281, DOMAIN }, { 288, DOMAIN }, { NR_IO_URING_SETUP, ABSENT },
};
static const struct arch arches[] = {
	{ AUDIT_ARCH_AARCH64, native, NRULES(native) },
	{ AUDIT_ARCH_ARM, compat, NRULES(compat) },
};
#elif defined(__riscv) && __riscv_xlen == 64
static const struct rule native[] = {
	{ 198, DOMAIN }, { 199, DOMAIN }, { NR_IO_URING_SETUP, ABSENT },
};
static const struct arch arches[] = {
	{ AUDIT_ARCH_RISCV64, native, NRULES(native) },
};
#else
#define NO_FILTER
#endif

#ifndef NO_FILTER
/* The low 32 bits of the first argument: an int, as the kernel reads it. */
#if __BYTE_ORDER == __BIG_ENDIAN
#define ARG0	(offsetof(struct seccomp_data, args[0]) + 4)
#else
#define ARG0	offsetof(struct seccomp_data, args[0])
#endif

static void
emit(struct sockfilter *f, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	struct sock_filter	i;

	i.code = code;
	i.jt = jt;
	i.jf = jf;
	i.k = k;
	if (f->len < SOCKFILTER_MAX)
		f->insns[f->len] = i;
	f->len++;
}

#define LD(off)		emit(f, BPF_LD | BPF_W | BPF_ABS, 0, 0, (off))
#define JEQ(k, t, e)	emit(f, BPF_JMP | BPF_JEQ | BPF_K, (t), (e), (k))
#define RET(k)		emit(f, BPF_RET | BPF_K, 0, 0, (k))

/* One architecture's rules, skipped as a whole for another's calls. */
static void
arch_block(struct sockfilter *f, const struct arch *a)
{
	size_t		i;
	unsigned short	start;

	LD(offsetof(struct seccomp_data, arch));
	start = f->len;
	JEQ(a->audit, 0, 0);
	LD(offsetof(struct seccomp_data, nr));
	for (i = 0; i < a->nrules; i++)
		switch (a->rules[i].kind) {
		case DOMAIN:
			JEQ(a->rules[i].nr, 0, 4);
			LD(ARG0);
			JEQ(AF_UNIX, 0, 1);
			RET(SECCOMP_RET_ALLOW);
			RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT);
			break;
		case SOCKETCALL:
			JEQ(a->rules[i].nr, 0, 5);
			LD(ARG0);
			JEQ(SYS_SOCKET, 2, 0);
			JEQ(SYS_SOCKETPAIR, 1, 0);
			RET(SECCOMP_RET_ALLOW);
			RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT);
			break;
		case ABSENT:
			JEQ(a->rules[i].nr, 0, 1);
			RET(SECCOMP_RET_ERRNO | ENOSYS);
			break;
		}
	RET(SECCOMP_RET_ALLOW);
	if (start < SOCKFILTER_MAX)
		f->insns[start].jf = (uint8_t)(f->len - start - 1);
}
#endif

int
sockfilter_prepare(struct sockfilter *f)
{
#ifdef NO_FILTER
	memset(f, 0, sizeof(*f));
	errno = ENOSYS;
	return -1;
#else
	size_t	i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		arch_block(f, &arches[i]);
	RET(SECCOMP_RET_KILL_PROCESS);
	if (f->len > SOCKFILTER_MAX) {
		errno = E2BIG;
		return -1;
	}
	return 0;
#endif
}

int
sockfilter_apply(const struct sockfilter *f)
{
	struct sock_fprog	prog;

	prog.len = f->len;
	prog.filter = (struct sock_filter *)f->insns;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
