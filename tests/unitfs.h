/*
 * Scratch files and repositories for the check unit tests, and the
 * shell commands that make and read them.
 *
 *	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
 *	...
 *	char *d = unitfs_dir("copy");	a new directory of this test's own
 *	char *p = unitfs_path(d, "f");
 *	unitfs_write(p, "text", 0644);
 *	unitfs_home(d);			git reads no configuration of ours
 *	char *r = unitfs_repo(d, "repo");
 *	char *head = unitfs_sh_in(r, "git commit -q --allow-empty -m t && "
 *	    "git rev-parse HEAD");
 *	free(head); free(r); free(p); free(d);
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
/* All that a shell command run in dir prints on its standard output,
 * trailing newlines cut (it must succeed); the caller frees. */
char	*unitfs_sh_in(const char *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* dir/name; the caller frees. */
char	*unitfs_path(const char *, const char *);
/*
 * Point HOME at dir and keep the system's and XDG configuration from git,
 * so that only what a test sets differs between runs.  The environment
 * is the test's process's: with check's fork mode, the test's alone.
 */
void	 unitfs_home(const char *);
/* A new repository dir/name, with an author to commit as (user t,
 * t@t) in its own configuration; the caller frees its path. */
char	*unitfs_repo(const char *, const char *);

#endif /* UNITFS_H */
