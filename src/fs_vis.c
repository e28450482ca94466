/* Names made fit to print in a message. */
#include "config.h"

#include <sys/stat.h>

#include <stdlib.h>
#include <vis.h>

#include "fs_vis.h"

char *
fs_vis_dup(const char *p)
{
	char	*out;

	/* Not VIS_SAFE: a bell, backspace or carriage return in a file
	 * name must not get to rewrite what forge prints. */
	if (stravis(&out, p, VIS_OCTAL | VIS_CSTYLE | VIS_TAB | VIS_NL) ==
	    -1)
		return NULL;
	return out;
}

const char *
fs_vis(const char *p)
{
	static char	*ring[4];
	static int	 next;
	char		*out;

	if ((out = fs_vis_dup(p)) == NULL)
		return "(unprintable name)";
	free(ring[next]);
	ring[next] = out;
	next = (next + 1) % 4;
	return out;
}

const char *
fs_vis_type(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISLNK(m))
		return "symlink";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	return "special file";
}
