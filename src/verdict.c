/* A verdict's name, both ways. */
#include "config.h"

#include <string.h>

#include "verdict.h"

static const char *const names[] = { "PASS", "FAIL", "ERROR", "INTERRUPTED" };

const char *
verdict_name(enum verdict v)
{
	return (unsigned)v < 4 ? names[v] : "ERROR";
}

int
verdict_parse(const char *s, enum verdict *v)
{
	int	i;

	for (i = 0; s != NULL && i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*v = (enum verdict)i;
			return 0;
		}
	return -1;
}
