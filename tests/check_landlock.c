/*
 * landlock.c and sockfilter.c, each layer on its own: Landlock lets a
 * process write beneath its writable directories alone, and not around
 * them (a link, a rename, a truncation, a device node); its network
 * rules refuse TCP and reach no abstract socket outside; the seccomp
 * filter refuses every socket family but AF_UNIX, and io_uring.  Each in
 * a child of the test's own, which contains itself and reports.  And the
 * filter's program run by the test itself, for the calls of every
 * architecture, where no process here could make them.
 */
#include "config.h"

#include "unit.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock.h"
#include "sockfilter.h"
#include "unitfs.h"

/* What the child found, one bit each: a bit set is a check that failed. */
static unsigned int	found;

#define CHECK(bit, cond)	do { if (!(cond)) found |= 1U << (bit); } \
	while (0)

/* Run fn contained by l in a child: the bits of the checks that failed. */
static unsigned int
contained(const struct landlock *l, void (*fn)(void *), void *arg)
{
	pid_t	pid;
	int	st, what;

	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0) {
		found = 0;
		if (landlock_child(l, &what) == -1)
			abort();
		fn(arg);
		_exit((int)(found & 0xff));
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "the child could not contain itself");
	return (unsigned int)WEXITSTATUS(st);
}

static int
have_landlock(int abi)
{
	int	have = landlock_abi();

	if (have < abi) {
		fprintf(stderr, "# SKIP: Landlock ABI %d is needed, %d here\n",
		    abi, have);
		return 0;
	}
	return 1;
}

struct places {
	char	*in;		/* writable */
	char	*out;		/* not */
};

static int
writes(const char *path)
{
	int	fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	close(fd);
	return 0;
}

static void
file_checks(void *arg)
{
	struct places	*p = arg;
	char		 a[4096], b[4096];

	snprintf(a, sizeof(a), "%s/new", p->in);
	CHECK(0, writes(a) == 0);
	snprintf(b, sizeof(b), "%s/new", p->out);
	CHECK(1, writes(b) == -1 && errno == EACCES);
	/* Out by a rename, and in by a link to a file outside. */
	CHECK(2, rename(a, b) == -1 && errno == EACCES);
	snprintf(a, sizeof(a), "%s/victim", p->out);
	snprintf(b, sizeof(b), "%s/link", p->in);
	CHECK(3, link(a, b) == -1 && (errno == EXDEV || errno == EACCES));
	CHECK(4, truncate(a, 0) == -1 && errno == EACCES);
	/* A device node could lead anywhere. */
	snprintf(b, sizeof(b), "%s/null", p->in);
	CHECK(5, mknod(b, S_IFCHR | 0666, makedev(1, 3)) == -1);
	CHECK(6, writes("/dev/null") == 0);
	/* Moving from one directory to another, in the writable one. */
	snprintf(a, sizeof(a), "%s/a", p->in);
	snprintf(b, sizeof(b), "%s/b", p->in);
	CHECK(7, mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0);
	snprintf(a, sizeof(a), "%s/a/f", p->in);
	snprintf(b, sizeof(b), "%s/b/f", p->in);
	CHECK(7, writes(a) == 0 && rename(a, b) == 0);
}

START_TEST(t_files)
{
	struct landlock		 l;
	struct landlock_opts	 o = LANDLOCK_OPTS_INIT;
	struct places		 p;
	const char		*dirs[2];
	char			*victim, *text;
	int			 what;

	if (!have_landlock(3))
		return;
	p.in = unitfs_dir("in");
	p.out = unitfs_dir("out");
	ck_assert_int_ne(asprintf(&victim, "%s/victim", p.out), -1);
	unitfs_write(victim, "kept\n", 0644);
	dirs[0] = p.in;
	dirs[1] = NULL;
	o.fs = 1;
	o.writable = dirs;
	ck_assert_int_eq(landlock_prepare(&l, &o, &what), 0);
	ck_assert_uint_eq(contained(&l, file_checks, &p), 0);
	text = unitfs_read(victim, NULL);
	ck_assert_str_eq(text, "kept\n");
	free(text);
	free(victim);
	ck_assert_int_ne(asprintf(&victim, "%s/new", p.out), -1);
	ck_assert(!unitfs_exists(victim));
	landlock_free(&l);
	free(victim);
	free(p.in);
	free(p.out);
}
END_TEST

/* Devices: what the contained child is to find of them. */
struct devices {
	char	*in;		/* writable */
	char	*shm;		/* a file of /dev/shm's, or NULL */
	char	*pty;		/* a terminal below /dev/pts, or NULL */
};

static void
device_checks(void *arg)
{
	struct devices	*d = arg;
	char		 b[4096];
	int		 fd;

	/* No block device made, even beneath a writable directory: one
	 * could name any disk. */
	snprintf(b, sizeof(b), "%s/disk", d->in);
	CHECK(0, mknod(b, S_IFBLK | 0600, makedev(7, 0)) == -1);
	/* /dev/shm holds files that others share: none written there. */
	if (d->shm != NULL)
		CHECK(1, open(d->shm, O_WRONLY | O_CLOEXEC) == -1 &&
		    errno == EACCES);
	/* A terminal in a directory of devices is written to. */
	if (d->pty != NULL) {
		CHECK(2, (fd = open(d->pty, O_WRONLY | O_NOCTTY |
		    O_CLOEXEC)) != -1);
		if (fd != -1)
			close(fd);
	}
}

START_TEST(t_devices)
{
	struct landlock		 l;
	struct landlock_opts	 o = LANDLOCK_OPTS_INIT;
	struct devices		 d;
	const char		*dirs[2];
	int			 what, master, fd;

	if (!have_landlock(3))
		return;
	memset(&d, 0, sizeof(d));
	d.in = unitfs_dir("in");
	ck_assert_int_ne(asprintf(&d.shm, "/dev/shm/forge-check-%ld",
	    (long)getpid()), -1);
	if ((fd = open(d.shm, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		fprintf(stderr, "# SKIP: no /dev/shm here\n");
		free(d.shm);
		d.shm = NULL;
	} else
		close(fd);
	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) == -1 ||
	    grantpt(master) == -1 || unlockpt(master) == -1 ||
	    ptsname(master) == NULL)
		fprintf(stderr, "# SKIP: no terminal to open here\n");
	else
		d.pty = strdup(ptsname(master));
	dirs[0] = d.in;
	dirs[1] = NULL;
	o.fs = 1;
	o.writable = dirs;
	ck_assert_int_eq(landlock_prepare(&l, &o, &what), 0);
	ck_assert_uint_eq(contained(&l, device_checks, &d), 0);
	landlock_free(&l);
	if (d.shm != NULL)
		ck_assert_int_eq(unlink(d.shm), 0);
	if (master != -1)
		close(master);
	free(d.shm);
	free(d.pty);
	free(d.in);
}
END_TEST

/* A listener on 127.0.0.1: its fd, and its port in *port. */
static int
tcp_listener(int *port)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ne(fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0),
	    -1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

static void
tcp_checks(void *arg)
{
	struct sockaddr_in	sin;
	int			fd;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((unsigned short)*(int *)arg);
	/* The socket is made (no filter here); Landlock says no after. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(0, fd != -1);
	CHECK(1, connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno == EACCES);
	close(fd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_port = 0;
	CHECK(2, bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno == EACCES);
	close(fd);
}

START_TEST(t_tcp)
{
	struct landlock		 l;
	struct landlock_opts	 o = LANDLOCK_OPTS_INIT;
	int			 what, port, fd;

	if (!have_landlock(4))
		return;
	fd = tcp_listener(&port);
	o.net = 1;
	ck_assert_int_eq(landlock_prepare(&l, &o, &what), 0);
	ck_assert_int_ne(l.ruleset, -1);
	l.net = 0;		/* Landlock's rules alone, no filter */
	ck_assert_uint_eq(contained(&l, tcp_checks, &port), 0);
	landlock_free(&l);
	close(fd);
}
END_TEST

static void
abstract_checks(void *arg)
{
	struct sockaddr_un	sun;
	const char		*name = arg;
	int			fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(0, fd != -1);
	CHECK(1, connect(fd, (struct sockaddr *)&sun, (socklen_t)(offsetof(
	    struct sockaddr_un, sun_path) + 1 + strlen(name))) == -1 &&
	    errno == EPERM);
	close(fd);
}

START_TEST(t_abstract)
{
	struct landlock		 l;
	struct landlock_opts	 o = LANDLOCK_OPTS_INIT;
	struct sockaddr_un	 sun;
	char			 name[64];
	int			 what, fd;

	if (!have_landlock(6))
		return;
	snprintf(name, sizeof(name), "forge-check-%ld", (long)getpid());
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name, strlen(name));
	ck_assert_int_ne(fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
	    -1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, (socklen_t)(
	    offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	o.net = 1;
	ck_assert_int_eq(landlock_prepare(&l, &o, &what), 0);
	ck_assert_uint_eq(contained(&l, abstract_checks, name), 0);
	landlock_free(&l);
	close(fd);
}
END_TEST

static void
filter_checks(void *arg)
{
	static const int refused[] = { AF_INET, AF_INET6, AF_NETLINK,
	    AF_PACKET, AF_VSOCK, AF_ALG };
	int	sv[2], fd;
	size_t	i;

	(void)arg;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		CHECK(0, socket(refused[i], SOCK_DGRAM, 0) == -1 &&
		    errno == EAFNOSUPPORT);
	CHECK(1, socketpair(AF_INET, SOCK_STREAM, 0, sv) == -1 &&
	    errno == EAFNOSUPPORT);
	/* Whatever else the first argument holds, the kernel reads an int. */
	CHECK(2, syscall(SYS_socket, 0x100000000L | AF_INET, SOCK_DGRAM, 0) ==
	    -1 && errno == EAFNOSUPPORT);
	CHECK(3, (fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	close(fd);
	CHECK(4, socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(5, syscall(425, 1, calloc(1, 120)) == -1 && errno == ENOSYS);
}

START_TEST(t_filter)
{
	struct landlock	l;

	memset(&l, 0, sizeof(l));
	l.ruleset = -1;		/* the filter alone */
	l.net = 1;
	if (sockfilter_prepare(&l.filter) == -1) {
		ck_assert_int_eq(errno, ENOSYS);
		fprintf(stderr, "# SKIP: no filter for this machine\n");
		return;
	}
	ck_assert_uint_eq(contained(&l, filter_checks, NULL), 0);
}
END_TEST

/*
 * The filter's program run as the kernel runs it, on the data of one
 * system call -- of any architecture, where a process can only make its
 * own machine's calls and those of its compatibility mode: an
 * instruction no process here reaches is run all the same.  Only what
 * sockfilter.c emits is known: a load of a word of the data, a jump if
 * equal, a return; anything else fails the test, as does a jump out of
 * the program or a load out of the data.
 */
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS	0x80000000U
#endif

static uint32_t
run_filter(const struct sockfilter *f, const struct seccomp_data *d)
{
	const struct sock_filter	*i;
	uint32_t			 a = 0;
	size_t				 pc = 0;

	for (;;) {
		ck_assert_uint_lt(pc, f->len);
		i = &f->insns[pc++];
		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ck_assert_uint_eq(i->k % 4, 0);
			ck_assert_uint_le(i->k + 4, sizeof(*d));
			memcpy(&a, (const char *)d + i->k, sizeof(a));
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			ck_abort_msg("instruction %zu: code %#x", pc - 1,
			    (unsigned int)i->code);
		}
	}
}

static uint32_t
verdict(const struct sockfilter *f, uint32_t arch, long nr, uint64_t arg0)
{
	struct seccomp_data	d;

	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = (int)nr;
	d.args[0] = arg0;
	return run_filter(f, &d);
}

#define REFUSED		(SECCOMP_RET_ERRNO | EAFNOSUPPORT)
#define ABSENT		(SECCOMP_RET_ERRNO | ENOSYS)

#if defined(__x86_64__)
#define NATIVE_ARCH	AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define NATIVE_ARCH	AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define NATIVE_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH	AUDIT_ARCH_RISCV64
#endif

START_TEST(t_filter_program)
{
	/* No kernel reports these: none is this machine's or its
	 * compatibility mode's. */
	static const uint32_t	 foreign[] = { 0, 0xffffffffU,
	    AUDIT_ARCH_S390X };
	struct sockfilter	 f;
	const struct sock_filter *i;
	size_t			 k;

	if (sockfilter_prepare(&f) == -1) {
		ck_assert_int_eq(errno, ENOSYS);
		fprintf(stderr, "# SKIP: no filter for this machine\n");
		return;
	}
	/* Every jump lands in the program, which ends in a return. */
	ck_assert_uint_le(f.len, SOCKFILTER_MAX);
	ck_assert_uint_gt(f.len, 0);
	for (k = 0; k < f.len; k++) {
		i = &f.insns[k];
		if (i->code == (BPF_JMP | BPF_JEQ | BPF_K)) {
			ck_assert_uint_lt(k + 1 + i->jt, f.len);
			ck_assert_uint_lt(k + 1 + i->jf, f.len);
		}
	}
	ck_assert_uint_eq(f.insns[f.len - 1].code, BPF_RET | BPF_K);
#ifdef NATIVE_ARCH
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_socket, AF_INET),
	    REFUSED);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_socket,
	    0x100000000ULL | AF_INET6), REFUSED);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_socket, AF_UNIX),
	    SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_socketpair, AF_INET),
	    REFUSED);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_socketpair, AF_UNIX),
	    SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, 425, 1), ABSENT);
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, SYS_getpid, AF_INET),
	    SECCOMP_RET_ALLOW);
#endif
#if defined(__x86_64__)
	/* x32's calls, and i386's: socket, socketcall, io_uring_setup,
	 * getpid. */
	ck_assert_uint_eq(verdict(&f, NATIVE_ARCH, 0x40000000L | SYS_socket,
	    AF_INET), REFUSED);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 359, AF_INET),
	    REFUSED);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 359, AF_UNIX),
	    SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 102, 1), REFUSED);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 102, 5),
	    SECCOMP_RET_ALLOW);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 425, 1), ABSENT);
	ck_assert_uint_eq(verdict(&f, AUDIT_ARCH_I386, 20, AF_INET),
	    SECCOMP_RET_ALLOW);
#endif
	/* A call of an architecture the filter does not know: the process
	 * dies, whatever the call -- its numbers are not this one's. */
	for (k = 0; k < sizeof(foreign) / sizeof(foreign[0]); k++) {
		ck_assert_uint_eq(verdict(&f, foreign[k], SYS_getpid, 0),
		    SECCOMP_RET_KILL_PROCESS);
		ck_assert_uint_eq(verdict(&f, foreign[k], SYS_socket, AF_UNIX),
		    SECCOMP_RET_KILL_PROCESS);
	}
}
END_TEST

#if defined(__x86_64__)
/* A system call of i386's, as a 32-bit program makes it: the filter sees
 * another architecture, with other numbers. */
static long
int80(long nr, long a, long b, long c)
{
	long	ret;

	__asm__ volatile ("int $0x80" : "=a" (ret) : "a" (nr), "b" (a),
	    "c" (b), "d" (c) : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

#define I386_GETPID	20
#define I386_SOCKETCALL	102
#define I386_SOCKET	359
#define X32		0x40000000L

/*
 * Can a 64-bit process make i386's system calls here?  Not where the
 * kernel has no 32-bit emulation (built without IA32_EMULATION, or
 * booted with ia32_emulation=0): int $0x80 is then a SIGSEGV.  Asked in
 * a child, with getpid, harmless: 1, or 0 and why.
 */
static int
have_int80(char *why, size_t len)
{
	pid_t	pid;
	int	st;

	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0)
		_exit(int80(I386_GETPID, 0, 0, 0) == (long)getpid() ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 1;
	if (WIFSIGNALED(st))
		snprintf(why, len, "int $0x80 is killed by signal %d: the "
		    "kernel has no 32-bit system calls (IA32_EMULATION off, "
		    "or ia32_emulation=0)", WTERMSIG(st));
	else
		snprintf(why, len, "int $0x80 does not answer getpid");
	return 0;
}

static void
compat_checks(void *arg)
{
	long	fd;

	(void)arg;
	CHECK(0, int80(I386_SOCKET, AF_INET, SOCK_DGRAM, 0) == -EAFNOSUPPORT);
	CHECK(1, (fd = int80(I386_SOCKET, AF_UNIX, SOCK_DGRAM, 0)) >= 0);
	close((int)fd);
	/* Its family out of sight: no socket at all. */
	CHECK(2, int80(I386_SOCKETCALL, 1, 0, 0) == -EAFNOSUPPORT);
	CHECK(3, syscall(X32 | SYS_socket, AF_INET, SOCK_DGRAM, 0) == -1 &&
	    errno == EAFNOSUPPORT);
}

START_TEST(t_filter_compat)
{
	struct landlock	l;
	long		fd;
	char		why[160];

	/* Only where a 64-bit process can make i386's calls, socket(2)
	 * among them (Linux 4.3). */
	if (!have_int80(why, sizeof(why))) {
		fprintf(stderr, "# SKIP: %s\n", why);
		return;
	}
	if ((fd = int80(I386_SOCKET, AF_INET, SOCK_DGRAM, 0)) < 0) {
		fprintf(stderr, "# SKIP: no i386 socket(2) here\n");
		return;
	}
	close((int)fd);
	memset(&l, 0, sizeof(l));
	l.ruleset = -1;
	l.net = 1;
	ck_assert_int_eq(sockfilter_prepare(&l.filter), 0);
	ck_assert_uint_eq(contained(&l, compat_checks, NULL), 0);
}
END_TEST
#endif

static Suite *
landlock_suite(void)
{
	Suite	*s = suite_create("landlock");
	TCase	*tc;

	tc = tcase_create("layers");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_add_test(tc, t_files);
	tcase_add_test(tc, t_devices);
	tcase_add_test(tc, t_tcp);
	tcase_add_test(tc, t_abstract);
	tcase_add_test(tc, t_filter);
	tcase_add_test(tc, t_filter_program);
#if defined(__x86_64__)
	tcase_add_test(tc, t_filter_compat);
#endif
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(landlock_suite)
