/*
 * Copying paths, one at a time, from a source tree into a copy of it.
 *
 *	struct pathcopy pc;
 *	if (pathcopy_open(&pc, "/src", "/copy") == -1) ...
 *	r = pathcopy_copy(&pc, "a/b/file", &st);
 *		0: copied (a file with its permission bits, or a symlink)
 *		1: the source has no such path
 *		-1: errno EINVAL: st says what it is (fifo...), never opened;
 *		    anything else: it could not be copied
 *	r = pathcopy_checkout(&pc, "a/b/file", &st);
 *		the same, but a file gets the mode a checkout (or git
 *		apply) gives a tracked file: 0777 if its owner may run
 *		it, else 0666, less the umask -- not its own bits
 *	r = pathcopy_replace(&pc, "a/b/file", &st);
 *		the same, but the copy is made beside what is there and
 *		renamed over it (a directory there is removed first):
 *		never with the inode of what it replaces
 *	pathcopy_clear(&pc, "a/b/file");	remove a non-directory there
 *	pathcopy_forget(&pc);	directories are opened afresh from now
 *				on (one may have been removed)
 *	pathcopy_close(&pc);
 *
 * Directories are walked from the two roots one component at a time,
 * without following symlinks, and each is opened once for a run of
 * paths in it (ls-files lists paths sorted).  Missing directories are
 * created in the copy.  A path given must be relative, without "..".
 */
#ifndef PATHCOPY_H
#define PATHCOPY_H

#include <sys/stat.h>

#include "buf.h"

struct pathcopy {
	int		 sroot, droot;
	int		 sfd, dfd;
	struct buf	 cur, dir;
	int		 have;
	long		 pid;		/* of the temporary files' names */
};

int	pathcopy_open(struct pathcopy *, const char *, const char *);
int	pathcopy_copy(struct pathcopy *, const char *, struct stat *);
int	pathcopy_checkout(struct pathcopy *, const char *, struct stat *);
int	pathcopy_replace(struct pathcopy *, const char *, struct stat *);
int	pathcopy_clear(struct pathcopy *, const char *);
void	pathcopy_forget(struct pathcopy *);
void	pathcopy_close(struct pathcopy *);

#endif /* PATHCOPY_H */
