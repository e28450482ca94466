/*
 * Scratch files for the check unit tests.
 *
 *	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
 *	...
 *	char *d = unitfs_dir("copy");	a new directory of this test's own
 *	unitfs_write(path, "text", 0644);
 *	free(d);
 *
 * The fixture is unchecked, so it runs in the runner process around the
 * whole test case: the scratch tree under $TMPDIR is removed even when a
 * test fails half way (a failing test's child exits at once, skipping any
 * teardown of its own).  The removal uses rm(1), not the code under test.
 * Every function here fails the test on an error.
 */
#ifndef UNITFS_H
#define UNITFS_H

#include <sys/types.h>

#include <stddef.h>

void	 unitfs_setup(void);
void	 unitfs_teardown(void);
/* The scratch directory of the test case. */
const char *unitfs_base(void);
/* A new, empty directory below it; the caller frees the path. */
char	*unitfs_dir(const char *);
/* Make or replace path with text and mode (umask ignored). */
void	 unitfs_write(const char *, const char *, mode_t);
/* The whole content of path, NUL-terminated; the caller frees. */
char	*unitfs_read(const char *, size_t *);
/* Does path exist (without following a final symlink)? */
int	 unitfs_exists(const char *);
/* Build a chain of depth directories named "d" below dir, one fd at a
 * time, so that neither the path length nor the fd limit matters. */
void	 unitfs_deep(const char *, int);
/*
 * Permission bits do not stop root.  In a test running as root in its
 * own child (check's fork mode), give dir to an unprivileged user and
 * become that user: 1.  Not root: 0, nothing done.  Not possible here
 * (no fork mode): -1.
 */
int	 unitfs_unprivileged(const char *);
/* What a shell command run in dir prints, trailing newlines cut (it
 * must succeed); the caller frees. */
char	*unitfs_sh_in(const char *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* dir/name; the caller frees. */
char	*unitfs_path(const char *, const char *);

#endif /* UNITFS_H */
