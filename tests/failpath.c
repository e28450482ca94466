/*
 * failpath.so: open(2) of one path failing, for a program run with
 * LD_PRELOAD=tests/failpath.so, where the path cannot be known before
 * the program runs (a copy's, named by a random run id).
 *
 *	FAILPATH=pattern	a path that fnmatch(3) finds matches it
 *				(a '*' matches slashes too)
 *	FAILPATH_ERRNO=n	fails with errno n (default EACCES)
 *
 * open, open64, openat and openat64 are failed; nothing else is.  The
 * program's children do not inherit it: LD_PRELOAD and FAILPATH are
 * taken out of the environment as the program starts.
 */
#define _GNU_SOURCE

#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char	*pattern;
static int	 fail_errno = EACCES;

__attribute__((constructor)) static void
failpath_init(void)
{
	const char	*s = getenv("FAILPATH"), *e = getenv("FAILPATH_ERRNO");

	if (s != NULL && *s != '\0')
		pattern = strdup(s);
	if (e != NULL && atoi(e) > 0)
		fail_errno = atoi(e);
	unsetenv("LD_PRELOAD");
	unsetenv("FAILPATH");
	unsetenv("FAILPATH_ERRNO");
}

static int
fails(const char *path)
{
	return pattern != NULL && path != NULL &&
	    fnmatch(pattern, path, 0) == 0;
}

static int
do_openat(int dirfd, const char *path, int flags, va_list ap)
{
	mode_t	mode = 0;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	if (fails(path)) {
		errno = fail_errno;
		return -1;
	}
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

int
open(const char *path, int flags, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, flags);
	r = do_openat(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return r;
}

int
open64(const char *path, int flags, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, flags);
	r = do_openat(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return r;
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, flags);
	r = do_openat(dirfd, path, flags, ap);
	va_end(ap);
	return r;
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, flags);
	r = do_openat(dirfd, path, flags, ap);
	va_end(ap);
	return r;
}
