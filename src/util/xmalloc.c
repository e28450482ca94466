/* Allocation wrappers that exit with forge's own status on failure. */
#include "config.h"

#include <err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forge.h"
#include "xmalloc.h"

void *
xmalloc(size_t size)
{
	void	*p;

	if ((p = malloc(size == 0 ? 1 : size)) == NULL)
		err(EXIT_FORGE, "malloc");
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if ((p = calloc(nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size)) == NULL)
		err(EXIT_FORGE, "calloc");
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;

	if ((p = reallocarray(ptr, nmemb == 0 ? 1 : nmemb,
	    size == 0 ? 1 : size)) == NULL)
		err(EXIT_FORGE, "reallocarray");
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		err(EXIT_FORGE, "strdup");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	if ((p = strndup(s, n)) == NULL)
		err(EXIT_FORGE, "strndup");
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*p;

	if (vasprintf(&p, fmt, ap) == -1)
		err(EXIT_FORGE, "vasprintf");
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
