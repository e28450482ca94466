/*
 * Saying why before a run fails for the wrong reason: a copy holds only
 * what git does not ignore, so a build input that git ignores (a
 * generated Makefile or configure script, node_modules) is not in it.
 *
 *	hint_ignored_inputs(&repo, "src/");
 *
 * looks in that directory of the working tree (relative to its top:
 * "" or "a/b/", as repo.prefix) for such an input, and prints at most
 * one line on standard error, naming it and the forge.setup step that
 * would make it.  The caller asks only for a run in a copy with no
 * setup step configured.  Nothing is changed, and a failure to ask git
 * is silent: a hint is never a reason to stop.
 *
 *	hint_setup_inputs(&changed);
 *
 * after a step failed in an incremental copy whose setup did not run
 * again: names the first of the changed files setup commonly reads
 * (setupin.h), and how to have setup follow it.
 */
#ifndef HINT_H
#define HINT_H

struct repo;
struct strv;

void	hint_ignored_inputs(const struct repo *, const char *);
void	hint_setup_inputs(const struct strv *);

#endif /* HINT_H */
