/* Names made fit to print in a message. */
#include "config.h"

#include <sys/stat.h>

#include <pthread.h>
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

/*
 * The last few names made fit, each thread its own: a helper thread's
 * warning never frees a name the main thread is printing.  A thread's
 * go when it ends.
 */
struct ring {
	char	*v[4];
	int	 next;
};

static pthread_key_t	ring_key;
static int		ring_keyed;

static void
ring_free(void *arg)
{
	struct ring	*r = arg;
	int		 i;

	for (i = 0; i < 4; i++)
		free(r->v[i]);
	free(r);
}

/* Made before main(), before any thread: nothing to wait on (not even
 * pthread_once(), whose wake-up glibc aborts on if it fails). */
static void	ring_init(void) __attribute__((constructor));

static void
ring_init(void)
{
	ring_keyed = pthread_key_create(&ring_key, ring_free) == 0;
}

const char *
fs_vis(const char *p)
{
	struct ring	*r;
	char		*out;

	if (!ring_keyed)
		return "(unprintable name)";
	if ((r = pthread_getspecific(ring_key)) == NULL) {
		if ((r = calloc(1, sizeof(*r))) == NULL ||
		    pthread_setspecific(ring_key, r) != 0) {
			free(r);
			return "(unprintable name)";
		}
	}
	if ((out = fs_vis_dup(p)) == NULL)
		return "(unprintable name)";
	free(r->v[r->next]);
	r->v[r->next] = out;
	r->next = (r->next + 1) % 4;
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
