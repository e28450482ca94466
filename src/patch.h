/*
 * Replaying uncommitted changes: `git diff HEAD` in the source working
 * tree, streamed into `git apply` in the copy.
 *
 *	struct git src, dst;	the source (read through a private index)
 *				and the copy
 *	if (patch_replay(&src, &dst, head) == -1)
 *		...		a message says why; nothing more to do
 *
 * Every option that the user's configuration or environment could change
 * in the patch text, or in what git apply accepts, is fixed.  src.idle,
 * if set, runs while git works (spawn.h).  git apply checks a
 * whole patch before it writes anything; when it refuses one, the
 * deletions are replayed first and the rest after, which is what a
 * symlink replaced by a directory of files needs.
 *
 *	patch_replay_except(&src, &dst, head, &paths)
 *			the same, leaving out the paths named (literally,
 *			and whatever is below them): bigfile.h copies
 *			those
 *	patch_start(&job, &src, head, &paths, out, err)
 *			the diff alone, in the background, into the file
 *			out (git.h's git_start())
 *	patch_replay_file(&src, &dst, head, &paths, out)
 *			once that job ended well: git apply < out, and if
 *			it refuses, the deletions and the rest as above;
 *			out NULL is patch_replay_except()
 *	patch_peak_kb()	the most memory the gits of any replay so far
 *			took, in KiB (patch_note_peak() tells it that of a
 *			patch_start() job)
 */
#ifndef PATCH_H
#define PATCH_H

struct git;
struct git_job;
struct strv;

int	patch_replay(const struct git *, const struct git *, const char *);
int	patch_replay_except(const struct git *, const struct git *,
	    const char *, const struct strv *);
int	patch_start(struct git_job *, const struct git *, const char *,
	    const struct strv *, const char *, const char *);
int	patch_replay_file(const struct git *, const struct git *,
	    const char *, const struct strv *, const char *);
long	patch_peak_kb(void);
void	patch_note_peak(long);

#endif /* PATCH_H */
