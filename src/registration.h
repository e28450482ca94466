/*
 * A parked copy's registration -- its git dir, <common>/worktrees/<id>,
 * which every git run in the copy reads -- made what `git worktree add
 * --detach --lock` would make of it now.  A command in the copy may have
 * written there: settings (config.worktree), a commondir naming another
 * git dir, refs of its own (refs/worktree/, refs/bisect/), reflogs,
 * sparse patterns; and the working tree's own config.worktree, which
 * worktree add copies (git 2.36 and later, with worktree configuration),
 * may have changed since the copy was made.  The registration is forge's
 * (the copy's); nothing else is touched.
 *
 *	registration_fresh(adm, copy, common, src_gitdir, head)
 *			once claimed, before any git runs in the copy: adm
 *			(the registration, checked to be the copy's)
 *			holds what a fresh one holds and nothing else --
 *			commondir naming common, config.worktree as
 *			worktree add would copy src_gitdir's now (or
 *			none), no refs or reflogs of its own but HEAD's
 *			(its refs in a reftable made afresh, HEAD and
 *			ORIG_HEAD at head), no sparse patterns, nothing
 *			in progress; the index, HEAD and the lock are the
 *			sync's (reuse.h).  -1 with a message: it could not
 *			be made so, and the copy is not to be used
 *	registration_own_worktree(adm, copy, common)
 *			where the repository has worktree configuration
 *			(extensions.worktreeConfig), core.worktree set to
 *			the copy in adm's config.worktree: a core.worktree
 *			of the shared configuration (git submodule puts one
 *			there) would take the real working tree for the
 *			copy's, for every git a command runs in it.  Also
 *			done by registration_fresh(), and after each git
 *			worktree add (snapshot.h).  -1 with a message
 *	registration_detached(adm, head)
 *			once the sync detached HEAD at head, where refs are
 *			files: HEAD's reflog its last entry alone, as a
 *			fresh copy's one, and ORIG_HEAD head, as worktree
 *			add's checkout leaves it
 *	registration_of(copy, common, run)
 *			the copy's registration, as its .git file names
 *			it (for the caller to free), if it is one of
 *			common's worktrees, names the copy back, and is
 *			locked by the run; else NULL: not to be followed
 */
#ifndef REGISTRATION_H
#define REGISTRATION_H

int	registration_fresh(const char *, const char *, const char *,
	    const char *, const char *);
int	registration_own_worktree(const char *, const char *, const char *);
void	registration_detached(const char *, const char *);
char	*registration_of(const char *, const char *, const char *);

#endif /* REGISTRATION_H */
