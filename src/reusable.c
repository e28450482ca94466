/* Which working trees a parked copy can be made of, and why not. */
#include "config.h"

#include <string.h>

#include "lsfiles.h"
#include "reusable.h"
#include "strv.h"

static int
listed(const struct strv *v, const char *path)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], path) == 0)
			return 1;
	return 0;
}

const char *
reusable_why_not(const struct lsfiles *l, int how)
{
	size_t	i;

	if (how & REUSABLE_SPARSE)
		return "a sparse checkout";
	if (how & REUSABLE_NOLINKS)
		return "core.symlinks is false";
	if (how & REUSABLE_IGNORESTAT)
		return "core.ignoreStat is set";
	for (i = 0; i < l->nested.n; i++)
		if (listed(&l->unmerged, l->nested.v[i]))
			return "a conflict over a submodule";
	return NULL;
}
