/*
 * What the files of reusable copies share; nothing but them includes it.
 * Callers read reuse.h, the manual.
 *
 *	reuse_park.c	parking a run's copy, claiming a parked one
 *	reuse_sync.c	a claimed copy brought to HEAD: the whole sync,
 *			the copy readied to be proved as it stands, the
 *			times of rewritten files, the copy's own index
 *	reuse_rules.c	an incremental copy rid of ignored files git
 *			reads as instructions
 *	reuse_look.c	the look from the last proof's index, and the
 *			paths put right one by one (fix, prefix), and an
 *			incremental copy's noted working state
 *	reuse_modes.c	the modes git does not record, and the walk over
 *			the copy's directories that sees to them
 *
 * Each function here is one a file of them had to itself before; each
 * says what it does beside its definition.
 */
#ifndef REUSE_INT_H
#define REUSE_INT_H

#include <sys/types.h>

#include "buf.h"
#include "git.h"
#include "reuse.h"

struct gitindex;
struct stat;

/* reuse_sync.c */
int	reuse_sync_git(const struct git *, const char *const *,
	    const struct buf *, struct buf *);
int	reuse_sync_ls(const struct git *, const char *const *, struct strv *);
int	reuse_sync_begin(const struct reuse_copy *, struct git *, char **);
int	reuse_sync_clean(const struct git *, int, int);
int	reuse_sync_clean_detach(struct git *, const char *, int, int);
int	reuse_sync_detach_start(struct git_job *, const struct git *,
	    const char *, const char *, const char *);
int	reuse_sync_detach_finish(struct git_job *, const char *, const char *,
	    const char *);
extern const char *const	reuse_clean_all[];
extern const char *const	reuse_clean_keep[];

/* reuse_modes.c */
int	reuse_modes_parent_of(int, const char *, const char **);
int	reuse_modes_fix(int, const char *, const char *, int, mode_t);
int	reuse_modes_fix_st(int, const char *, const char *, int, mode_t,
	    struct stat *);
void	reuse_modes_drop_special_top(const char *);
int	reuse_modes_tree(const char *, const struct strv *);
int	reuse_modes_prune_dir(int, const char *, const struct strv *);

/*
 * What else dir_modes() sees to in each directory it gives a mode: if
 * drop, that it holds nothing no fresh copy has (drop_special()); if
 * changed is not NULL, the directory's path pushed there, for what it
 * holds to be seen to once the walk is over (reuse_modes_prune_dir()) --
 * but not one whose modification and change times are both older than
 * since, if not NULL: whatever made, took or renamed a name in it since
 * would have stamped the one, and a directory put in its place
 * (renamed there) the other, so it holds what it held then.
 */
struct reuse_care {
	int			 drop;
	const struct timespec	*since;
	struct strv		*changed;
};
int	reuse_modes_unchanged_since(const struct stat *,
	    const struct timespec *);

extern const struct reuse_care	reuse_care_drop;

/*
 * The directory of each path in turn, the paths sorted as git sorts them
 * (a directory's files come together, after its parent's own, so a
 * directory is new when it is not the last one or above it): each new
 * directory on the way from the top given mode want and seen to as care
 * says (dir_modes()), then opened, no symlink on the way followed.
 *
 *	reuse_modes_walk_init(&w, root, want, care, &dirs);
 *	r = reuse_modes_walk_to(&w, path, &base, &dfd);	-1: dir_modes() failed;
 *					dfd -1: the directory cannot be
 *					opened (gone, or a symlink)
 *	reuse_modes_walk_end(&w);
 */
struct reuse_walk {
	int			 root, dfd;
	struct buf		 cur, prefix;
	mode_t			 want;
	const struct reuse_care	*care;
	int			*dirs;
};
void	reuse_modes_walk_init(struct reuse_walk *, int, mode_t,
	    const struct reuse_care *, int *);
int	reuse_modes_walk_to(struct reuse_walk *, const char *, const char **,
	    int *);
void	reuse_modes_walk_end(struct reuse_walk *);

#endif /* REUSE_INT_H */
