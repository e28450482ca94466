/*
 * What an incremental copy's setup steps read: the digests of their
 * input files, so that setup runs again when one of them changes, as a
 * CI cache keyed on hashFiles(...) is made again.
 *
 *	struct buf b = BUF_INIT;
 *	if (setupin_digest(copy, &cfg.setup_inputs, &b) == -1)
 *		...		git could not list them: said why; the caller
 *				runs setup again, never trusting an old one
 *	b: "<sha-256> <path>\n" a file, sorted by path, for every file of
 *	the copy (tracked, or untracked and not ignored) that one of the
 *	patterns matches: git glob pathspecs from the top ("*" stays in a
 *	directory, "**" goes through them); a symlink by its target.
 *
 *	setupin_known(copy, &b);	the same, for the files a setup step
 *				commonly reads whether or not they are
 *				listed (package.json, lockfiles,
 *				requirements*.txt, configure.ac...): what a
 *				hint names when a step fails after one of
 *				them changed and setup did not run again
 *	setupin_changed(then, now, &paths);	the paths whose lines differ
 *				between two such lists (changed, added or
 *				gone), in order
 */
#ifndef SETUPIN_H
#define SETUPIN_H

#include "buf.h"
#include "strv.h"

int	setupin_digest(const char *, const struct strv *, struct buf *);
int	setupin_known(const char *, struct buf *);
void	setupin_changed(const char *, const char *, struct strv *);

#endif /* SETUPIN_H */
