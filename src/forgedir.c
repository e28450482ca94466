/* The paths under the common git dir that hold forge's state, named. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "forgedir.h"
#include "xmalloc.h"

/* Every path below starts here: the one spelling of the directory. */
#define FORGEDIR	"forge"

char *
forgedir_root(const char *common)
{
	return xasprintf("%s/" FORGEDIR, common);
}

char *
forgedir_timeline(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/timeline.jsonl", common);
}

char *
forgedir_timeline_old(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/timeline.jsonl.1", common);
}

char *
forgedir_breaker(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/breaker.json", common);
}

char *
forgedir_lock(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/lock", common);
}

char *
forgedir_cache(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/cache.jsonl", common);
}

char *
forgedir_logs(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/logs", common);
}

char *
forgedir_copies(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/copies", common);
}

char *
forgedir_record(const char *common, const char *run)
{
	return xasprintf("%s/" FORGEDIR "/copies/%s", common, run);
}

char *
forgedir_refs(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/refs", common);
}

char *
forgedir_refstamp(const char *common, const char *run)
{
	return xasprintf("%s/" FORGEDIR "/refs/%s", common, run);
}

char *
forgedir_reuse_lock(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/reuse.lock", common);
}

char *
forgedir_hookdirs(const char *common)
{
	return xasprintf("%s/" FORGEDIR "/hookdirs", common);
}

int
forgedir_records(const char *common, int (*fn)(const char *, void *),
    void *arg)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir, *path;
	int		 ret = 0;

	dir = forgedir_copies(common);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		/* A record is named by its run's id: a name with a dot is
		 * a temporary file's, or . or .. */
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (fn(path, arg) == -1)
			ret = -1;
		free(path);
	}
	closedir(d);
	free(dir);
	return ret;
}
