/*
 * Files copied whole (bigfile.h), proved by comparison rather than hashed
 * a second time.  The source's side of the proof has git hash each one;
 * its index entry then holds the blob id and the file's stat data as git
 * saw it before reading.  A file in the copy whose bytes are those of the
 * source's file, itself unchanged since by that stat data (before and
 * after the comparison, and not "racily clean": older than the source's
 * side by more than the file system's clock step), holds that blob: the
 * copy's side takes the entry as it is and git does not hash the file
 * again -- for a 200 MB file, most of the proof's time.  Anything else
 * (a stat that differs, a file too recent, a symlink on the way, a
 * mismatch) leaves the path to git, as any other.
 *
 *	vouch_configure(verbose);	once: --verbose names each path
 *	n = vouch(&src, src_top, dst_top, rel, &paths, &since, &edits,
 *	    &exclude);
 *		src: git on the source, whose index is the source's side's
 *		final one; paths: those copied whole, sorted; since: when the
 *		source's side started.  For each path proved, pushes the
 *		update-index --index-info line ("mode oid\tpath") onto edits
 *		and the path onto exclude (what git add -A leaves alone);
 *		returns how many, never fails.  rel names the copy below the
 *		top one, for messages.
 *
 * The source's side must not have started from an index a run before
 * left (proof.c's carry): what a verification command could write is
 * never what the copy's side takes on trust.
 */
#ifndef VOUCH_H
#define VOUCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gitcmd.h"
#include "strv.h"

struct vouch_entry {
	char		*path;
	char		*line;		/* "mode oid\tpath" */
	unsigned	 mode;
	long long	 ctime_s, ctime_ns, mtime_s, mtime_ns;
	uint32_t	 dev, ino, size;
};

void	vouch_configure(int);
size_t	vouch(const struct git *, const char *, const char *, const char *,
	    const struct strv *, const struct timespec *, struct strv *,
	    struct strv *);
/* For tests: git ls-files -s --debug -z output into entries (the caller
 * frees them with vouch_entries_free()); -1 if malformed. */
int	vouch_parse(const char *, size_t, struct vouch_entry **, size_t *);
void	vouch_entries_free(struct vouch_entry *, size_t);

#endif /* VOUCH_H */
