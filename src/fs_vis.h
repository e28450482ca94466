/*
 * Names made fit to print in a message: a file name is the user's, or
 * a hostile command's, and may hold bytes that would rewrite what forge
 * prints.
 */
#ifndef FS_VIS_H
#define FS_VIS_H

#include <sys/types.h>

/* A path made safe to print (control and non-ASCII bytes as octal
 * escapes); valid until the fourth call after on the same thread (each
 * thread has its own few), or the thread's end. */
const char *fs_vis(const char *);
/* The same, a string of its own (NULL if it cannot be made). */
char	*fs_vis_dup(const char *);
/* Human-readable type of a stat mode: "fifo", "socket", ... */
const char *fs_vis_type(mode_t);

#endif /* FS_VIS_H */
