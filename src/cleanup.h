/*
 * Things to undo when forge exits, however it exits.
 *
 *	cleanup_init();			once, in main: installs the atexit hook
 *	h = cleanup_push(fn, arg);	fn(arg) will run once at exit, last
 *					pushed first, and only in the process
 *					that pushed it (a forked child never
 *					removes its parent's copy)
 *	cleanup_pop(h, run);		forget h, running it first if run != 0
 *	cleanup_run();			run everything still registered
 *	cleanup_exit(status);		cleanup_run(); then die of the fatal
 *					signal recorded by sig.c if there is
 *					one, so the parent sees the real cause,
 *					else exit(status)
 *
 * The functions run in the main flow or from exit(3), never in a signal
 * handler, so they may fork, allocate and walk directory trees.  The list
 * owns its entries; arg stays the caller's.
 */
#ifndef CLEANUP_H
#define CLEANUP_H

struct cleanup;

void		 cleanup_init(void);
struct cleanup	*cleanup_push(void (*)(void *), void *);
void		 cleanup_pop(struct cleanup *, int);
void		 cleanup_run(void);
void		 cleanup_exit(int) __attribute__((__noreturn__));

#endif /* CLEANUP_H */
