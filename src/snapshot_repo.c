/* One repository of a copy: a git in its source or its copy; conversions. */
#include "config.h"

#include <string.h>

#include "convert.h"
#include "gitcmd.h"
#include "lsfiles.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "strv.h"

/*
 * The git context for reading a source repository's working state,
 * through the private copy of its index: git diff may refresh an index
 * and write it back, and the user's must stay as it is.
 */
void
snapshot_src_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->src;
	g->gitdir = sr->gitdir;
	g->worktree = sr->src;
	g->index = sr->index;
}

void
snapshot_dst_git(const struct snap_repo *sr, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = sr->dst;
	g->gitdir = sr->dst_gitdir;
	g->worktree = sr->dst;
}

/* An attributes file in the list of "mode oid\tpath" entries (or of
 * paths): at the top or below. */
int
snapshot_has_attributes(const struct strv *v, int entries)
{
	size_t	i;

	for (i = 0; i < v->n; i++)
		if (convert_is_attributes(entries ?
		    lsfiles_entry_path(v->v[i]) : v->v[i]))
			return 1;
	return 0;
}

/*
 * Can git convert what it reads or writes (line endings, filters,
 * ident, an encoding)?  Then a file's bytes on disk may differ from
 * what a checkout would write while its blob is the same, which a tree
 * id cannot see: the copy is then written whole, as git writes it.
 * Any attributes file counts, whatever it says.
 */
int
snapshot_may_convert(const struct snap_repo *sr, const struct lsfiles *l)
{
	return sr->convert || snapshot_has_attributes(&sr->entries, 1) ||
	    snapshot_has_attributes(&l->untracked, 0) ||
	    convert_outside(sr->common);
}
