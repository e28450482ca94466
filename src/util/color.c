/* When to colour, and in what colour: git's conventions. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "color.h"

int
color_decide(int mode, int tty, const char *term, const char *no_color)
{
	if (no_color != NULL && *no_color != '\0')
		return 0;
	if (mode == COLOR_ALWAYS || mode == COLOR_NEVER)
		return mode == COLOR_ALWAYS;
	return tty && term != NULL && strcmp(term, "dumb") != 0;
}

int
color_want(int mode, int fd)
{
	return color_decide(mode, isatty(fd), getenv("TERM"),
	    getenv("NO_COLOR"));
}

const char *
color_verdict(const char *v)
{
	if (v == NULL)
		return "";
	if (strcmp(v, "PASS") == 0)
		return "\033[32m";
	if (strcmp(v, "FAIL") == 0)
		return "\033[31m";
	if (strcmp(v, "ERROR") == 0 || strcmp(v, "INTERRUPTED") == 0)
		return "\033[33m";
	return "";
}
