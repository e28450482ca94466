/*
 * Reading a git index file's entries and the stat data git keeps of each
 * (versions 2 to 4; see gitformat-index(5)): what git would compare with
 * a file to take it as unchanged.
 *
 *	struct gitindex ix;
 *	if (gitindex_read(&ix, path, 20) == 0) {	20: SHA-1, 32: SHA-256
 *		ix.v[i].path, ix.v[i].mtime, ...	sorted as git sorts
 *		gitindex_find(&ix, "dir/file");		NULL if none
 *		gitindex_pos(&ix, "dir/");	where it would be: the
 *						first entry not before it
 *		gitindex_free(&ix);
 *	}
 *
 *	gitindex_stale(e, &st, &since)	non-zero if git is to look at
 *			the file again: st (NULL: no file) is not as git
 *			saw it, or git saw it changed at since or later --
 *			since being a time taken before git looked, on the
 *			file's file system's clock (to the second where git
 *			kept no nanoseconds).  1: git's own look at its
 *			stat data would tell; 2: it might not (a git that
 *			keeps whole seconds), so its entry is to go first
 *	gitindex_empty(e, rawsz)	non-zero if e names the empty blob
 *	gitindex_look(top, &ix, &since, &stale, &unsure)	each path of
 *			ix, relative to the directory top, whose file is
 *			stale, onto stale, and if 2, onto unsure too (if
 *			not NULL); nothing written, no symlink followed.
 *			-1: top, or a file or directory on the way, could
 *			not be looked at (gone is stale, not an error)
 *	gitindex_look_fd(top, fd, rawsz, &since, &stale, &unsure)	the
 *			same of the index open at fd, read as
 *			gitindex_iter_fd() reads it, never held whole; -1
 *			also where it cannot be read (stale and unsure are
 *			then not to be used)
 *
 *	gitindex_count(path, rawsz, &n)	how many entries the index at
 *			path has, read as gitindex_read() reads it (the same
 *			refusals), none of them kept
 *	gitindex_each(path, rawsz, fn, arg, &n)	the same, each entry
 *			given to fn(e, arg) as it is read, in order (e and
 *			its path valid for the call only): -1 from fn stops
 *			the read, which is then -1 too.  An index found bad
 *			past an entry fn had is -1 all the same: what fn
 *			made of the entries is then not to be used
 *	gitindex_each_fd(fd, rawsz, fn, arg, &n)	the same of the index
 *			open at fd, read as gitindex_iter_fd() reads it
 *
 *	it = gitindex_iter_fd(fd, rawsz)	the index open at fd, read
 *			entry by entry from its start (pread(): fd's offset
 *			is left alone), never held whole; NULL if its
 *			header is not one forge reads
 *	gitindex_iter_next(it, &e)	1: the next entry, in order, into e
 *			(it and its path valid until the next call); 0: no
 *			more, and the rest of the file as forge reads it;
 *			-1: not an index forge reads (EINVAL), or unreadable
 *	gitindex_iter_count(it)	how many entries its header says it has
 *	gitindex_iter_free(it)	(NULL is nothing); fd is the caller's
 *
 *	gitindex_tree(&ix, hex)	the id of the tree git write-tree would
 *			write of ix, as hex digits into hex (2 * rawsz + 1
 *			bytes); -1 (EINVAL) where git would refuse to write
 *			one: an entry without an object, a file beside a
 *			directory of the same name
 *	gitindex_tree_fd(fd, rawsz, hex)	the same of the index open
 *			at fd, read as gitindex_iter_fd() reads it: held
 *			no more than the directories on the way to one
 *			entry; -1 also where it cannot be read
 *	gitindex_diff_fd(a, b, rawsz, &out)	each path whose entry
 *			differs between the indexes open at a and b (mode
 *			or object), onto out as "old new\tpath": the modes
 *			in six octal digits, 000000 where there is none, as
 *			git diff --raw has them; in the order of the paths,
 *			neither index held whole.  -1 (EINVAL) if either
 *			cannot be read: what is on out is then not to be
 *			used
 *
 * Only an index git can take every entry of at its stat data is read:
 * one with an entry marked as unchanged, skipped or added with intent,
 * of a conflict, of a sparse directory, or split (its entries in another
 * file) is refused (-1, errno EINVAL), as is one cut short or malformed.
 */
#ifndef GITINDEX_H
#define GITINDEX_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct gitindex_entry {
	const char	*path;
	uint32_t	 ctime, ctime_ns;
	uint32_t	 mtime, mtime_ns;
	uint32_t	 dev, ino, mode, uid, gid, size;
	unsigned char	 oid[32];	/* rawsz bytes of it */
};

struct strv;

struct gitindex {
	struct gitindex_entry	*v;
	size_t			 n;
	char			*names;
	size_t			 rawsz;
};

int	 gitindex_read(struct gitindex *, const char *, size_t);
/* gitindex_read() through a window of that many bytes, which slides
 * over the file: the file is never held whole (gitindex_read()'s window
 * is 64 KiB).  An entry longer than half of it is refused (EINVAL). */
int	 gitindex_read_window(struct gitindex *, const char *, size_t,
	    size_t);
typedef int	(*gitindex_each_fn)(const struct gitindex_entry *, void *);

int	 gitindex_count(const char *, size_t, size_t *);
int	 gitindex_each(const char *, size_t, gitindex_each_fn, void *,
	    size_t *);
int	 gitindex_each_fd(int, size_t, gitindex_each_fn, void *, size_t *);
int	 gitindex_parse(struct gitindex *, const unsigned char *, size_t,
	    size_t);
size_t	 gitindex_pos(const struct gitindex *, const char *);
const struct gitindex_entry *gitindex_find(const struct gitindex *,
	    const char *);
int	 gitindex_stale(const struct gitindex_entry *, const struct stat *,
	    const struct timespec *);
int	 gitindex_empty(const struct gitindex_entry *, size_t);
int	 gitindex_look(const char *, const struct gitindex *,
	    const struct timespec *, struct strv *, struct strv *);
int	 gitindex_look_fd(const char *, int, size_t, const struct timespec *,
	    struct strv *, struct strv *);
struct gitindex_iter;

struct gitindex_iter *gitindex_iter_fd(int, size_t);
int	 gitindex_iter_next(struct gitindex_iter *,
	    const struct gitindex_entry **);
size_t	 gitindex_iter_count(const struct gitindex_iter *);
void	 gitindex_iter_free(struct gitindex_iter *);
int	 gitindex_tree(const struct gitindex *, char *);
int	 gitindex_tree_fd(int, size_t, char *);
int	 gitindex_diff_fd(int, int, size_t, struct strv *);
void	 gitindex_free(struct gitindex *);

#endif /* GITINDEX_H */
