/*
 * Allocation that cannot fail.
 *
 * Every function either returns memory the caller owns and frees with
 * free(3), or, when the system is out of memory, prints a message and
 * exits with status 125.  That exit runs the atexit cleanup, so no copy is
 * left behind; it is the one place outside main.c and cmd_*.c that exits.
 */
#ifndef XMALLOC_H
#define XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
char	*xvasprintf(const char *, va_list)
	    __attribute__((__format__(__printf__, 1, 0)));

#endif /* XMALLOC_H */
