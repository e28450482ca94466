/*
 * A one-line progress display on standard error, for work that counts
 * what it has done (files checked out, synced or copied): shown only
 * when standard error is a terminal whose foreground forge holds, and
 * only once the work has taken longer than PROGRESS_DELAY_MS; nothing at
 * all otherwise, so logs and pipes never see it.
 *
 *	progress_start("copying untracked files", total);
 *	for (i = 0; i < total; i++) {
 *		... one file ...
 *		progress_update(i + 1);
 *	}
 *	progress_end();		ends the line with ", done." if it was shown
 *
 *	forge: copying untracked files:  45% (4500/10000)
 *
 * One display at a time: a start while one is going ends it first.  The
 * label is copied.  progress_update() is cheap enough to call for every
 * file: it redraws only when the percentage changes, at most every
 * tenth of a second.
 *
 * progress_wanted() says whether a display would be shown at all, for
 * work that git does: git shows its own (progress_git_delay() says after
 * how long, in seconds) when its standard error is the terminal.
 * FORGE_TEST_PROGRESS_DELAY=<ms> in the environment replaces the delay,
 * so that tests need not wait.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#define PROGRESS_DELAY_MS	1000

int	progress_wanted(void);
/* The same delay for git's GIT_PROGRESS_DELAY: whole seconds. */
const char *progress_git_delay(void);
void	progress_start(const char *, unsigned long long);
void	progress_update(unsigned long long);
void	progress_end(void);

#endif /* PROGRESS_H */
