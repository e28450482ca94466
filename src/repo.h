/*
 * Finding the repository forge was started in.
 *
 *	struct repo r;
 *	if (repo_open(&r) == -1)	prints why (no git, too old a git,
 *		exit(125);		not a repository, bare, inside .git,
 *					no commit yet)
 *	... r.top, r.gitdir, r.common, r.prefix, r.head ...
 *	repo_close(&r);
 *
 * repo_open() readies git first (git_init()), its gits and the one
 * that finds the repository run side by side.
 * Discovery honours the caller's GIT_DIR and GIT_WORK_TREE, as the user's
 * own git would; afterwards forge names the repository explicitly (see
 * repo_git()), so nothing else in the environment can redirect it.  All
 * strings are owned by the struct.
 */
#ifndef REPO_H
#define REPO_H

#include "git.h"

struct repo {
	char	*top;		/* absolute top level of the working tree */
	char	*gitdir;	/* absolute git dir of this worktree */
	char	*common;	/* absolute common dir, shared by worktrees */
	char	*objects;	/* absolute object directory */
	char	*prefix;	/* caller's directory under top: "" or "a/b/" */
	char	*head;		/* full id of the HEAD commit */
	char	*index;		/* the caller's GIT_INDEX_FILE, absolute, or
				   NULL for the repository's own index */
	const struct buf *core;	/* its core.* settings for a copy, as
				   settings_load() read them, or NULL:
				   not read (borrowed) */
};

int	repo_open(struct repo *);
void	repo_close(struct repo *);
/* A git context for commands that read this repository's working state. */
void	repo_git(const struct repo *, struct git *);
/* The index file the working state is described by. */
char	*repo_index_path(const struct repo *);
/* The repository whose top level is dir (a nested one): its absolute
 * git dir, common dir and HEAD commit, which the caller frees; -1 if dir
 * is no repository's top, or has no commit checked out. */
int	repo_nested(const char *, char **, char **, char **);
/* Resolve a commit-ish to a full commit id; NULL, errno ENOENT, if it
 * names no commit, or anything but exactly one; EIO if git could not
 * tell (said). */
char	*repo_resolve_commit(const struct repo *, const char *);

/*
 * What a revision given on the command line is, by its syntax alone
 * (gitrevisions(7)), before any git is asked: whether it resolves to a
 * commit is repo_resolve_commit()'s to say.  A regular expression (":/",
 * "^{/") and a path after ':' are opaque; a brace group is skipped.
 */
enum rev_kind {
	REV_ONE,	/* one revision: HEAD~2, v1.0, main@{1}, an id */
	REV_EMPTY,	/* "" */
	REV_OPTION,	/* "-x", "--all": would be read as an option */
	REV_NEGATED,	/* ^A */
	REV_RANGE,	/* A..B, A...B, either side may be empty */
	REV_PARENTS	/* A^@, A^!, A^-, A^-N: several commits, or a range */
};

enum rev_kind	 repo_rev_kind(const char *);
/* What the kind is called, for a message: "a range" ... */
const char	*repo_rev_kind_name(enum rev_kind);

#endif /* REPO_H */
