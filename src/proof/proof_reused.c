/* The proof of a reused copy as it stands. */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "git.h"
#include "gitindex.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "treeid.h"
#include "xmalloc.h"

/*
 * The entries the copy's changed paths start from: none
 * (proof_look_no_entry()), but where the working tree's is a symlink --
 * with core.symlinks false git keeps a link's mode for the file it
 * checked out, from that entry -- and the path is no directory now.
 */
static void
copy_entries(const struct proof *p, struct strv *v, const struct strv *paths)
{
	ssize_t		 e;
	size_t		 i;

	for (i = 0; i < paths->n; i++) {
		e = entlist_find(p->r.entries, paths->v[i]);
		if (e != -1 && entlist_mode(p->r.entries, (size_t)e) ==
		    0120000 && !proof_look_is_dir(p->r.dst, paths->v[i]))
			entlist_put(p->r.entries, (size_t)e, v);
		else
			proof_look_no_entry(p, v, paths->v[i]);
	}
}

/*
 * "old new\tpath" for each path where tree b differs from tree a: the
 * modes, "000000" where a tree has none.  With index (b NULL), where the
 * tree that index would make differs from a -- and with swap, each line
 * the other way round: where a differs from that index's tree.
 */
static int
tree_changes(const struct git *dg, const struct rundir *rd,
    const char *objects, const char *a, const char *b, const char *index,
    int swap, struct strv *fix)
{
	const char *const	 trees[] = { "diff-tree", "-r", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, b, NULL };
	const char *const	 cached[] = { "diff-index", "--cached", "-z",
	    "--no-renames", "--raw", "--no-abbrev", a, "--", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	struct lsfiles_change	 c;
	const char		*r, *end;
	int			 st;

	g = *dg;
	g.index = index;
	g.idle = NULL;
	g.objdir = rd->objects;
	g.alternates = objects;
	if ((st = git_run(&g, index != NULL ? cached : trees, 0, NULL, &out,
	    NULL)) != 0) {
		buf_free(&out);
		return -1;
	}
	r = out.data != NULL ? out.data : "";
	end = r + out.len;
	while ((st = lsfiles_raw_next(&r, end, &c)) == 1)
		strv_pushf(fix, "%06o %06o\t%s",
		    swap ? c.new_mode : c.old_mode,
		    swap ? c.old_mode : c.new_mode, c.path);
	buf_free(&out);
	return st;
}

const char *
proof_reused_index(struct proof *p)
{
	if (p->copy_carried == NULL && !p->r.sparse)
		p->copy_carried = proof_carry_copy_find(p);
	return p->copy_carried;
}

time_t
proof_reused_time(struct proof *p)
{
	struct stat	st;

	if (proof_reused_index(p) == NULL || stat(p->copy_carried, &st) == -1)
		return 0;
	return st.st_mtim.tv_sec;
}

void
proof_reused_look(struct proof *p, const struct strv *paths, int only)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->recent, paths->v[i]);
	p->recent_only = only;
}

void
proof_reused_written(struct proof *p, const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++)
		strv_push(&p->written, paths->v[i]);
}

const char *
proof_reused_copy_index(const struct proof *p)
{
	return p->copy_index;
}

int
proof_reused_start(struct proof *p, const char *dst_gitdir)
{
	struct treeid_req	 q = TREEID_INIT;
	char			*start, tag[32];

	if (p->r.sparse || p->settled != NULL || p->copy_runs > 1 ||
	    p->fast_started)
		return -1;
	if (p->dst_gitdir == NULL)
		p->dst_gitdir = xstrdup(dst_gitdir);
	if (p->copy_index != NULL)
		start = xstrdup(p->copy_index);
	else if (p->copy_runs > 0 || proof_reused_index(p) == NULL)
		return -1;
	else
		start = xstrdup(p->copy_carried);
	proof_dst_git(p, p->dst_gitdir);
	p->copy_idle.fn = proof_poll_src_side;
	p->copy_idle.arg = p;
	p->dst_git.idle = &p->copy_idle;
	q.git = &p->dst_git;
	q.start = start;
	proof_copy_scratch(&q, p->rd);
	q.alternates = p->r.objects;
	q.exclude = p->r.exclude;
	q.force = !p->r.own_ignored;
	/*
	 * Once forge has put paths right, git looks at those again, and at
	 * nothing else: nothing but forge wrote in the copy since git
	 * looked at all of it, and each file forge wrote is a new inode
	 * (reuse_look_fix()), which git's stat data cannot take for the old.
	 */
	strv_free(&p->fast_edits);
	if (p->copy_runs > 0)
		q.only = &p->fixed;
	else {
		/* Each path whose file is not as git saw it last is looked
		 * at afresh, its entry gone first: git would otherwise
		 * trust its stat data where it cannot tell a change (a git
		 * that keeps whole seconds), or keep the entry of a path it
		 * will not take. */
		if (p->recent.n > 0) {
			if (p->recent_only)
				copy_entries(p, &p->fast_edits, &p->recent);
			else
				proof_look_fresh_entries(p, &p->fast_edits,
				    &p->recent);
			q.edits = &p->fast_edits;
		}
		if (p->recent_only) {
			strv_clear(&p->recent_files);
			proof_look_not_dirs(p->r.dst, &p->recent,
			    &p->recent_files);
			proof_look_not_dirs(p->r.dst, &p->written,
			    &p->recent_files);
			q.only = &p->recent_files;
		} else if (p->r.own_ignored && p->conflicts.n > 0) {
			proof_conflict_entries(p, &p->fast_edits);
			q.edits = &p->fast_edits;
		}
	}
	/* Proved as it stands only where git converts nothing
	 * (snapshot.c): the ids of what git hashes will do, and the
	 * tree's id, computed here. */
	q.info_only = 1;
	q.own = proof_hash_size(p);
	q.own_unhashed = 1;
	snprintf(tag, sizeof(tag), "reused%zu-%d", p->id, p->copy_runs++);
	p->fast_started = 1;
	if (treeid_start(&p->fast_job, &q, tag) == -1)
		p->fast_job.failed = 1;
	free(start);
	return 0;
}

/*
 * The copy's side's entries (the index open at fd) against the source's
 * side as soon as git has staged its files: the index its job computed
 * its tree from, else the one git writes its tree from, while it still
 * does -- read side by side, neither held.  1: the same; 0: not, the
 * paths where they differ onto fix; -1: not known so (the source's tree
 * is to be waited for).
 */
static int
src_side_compare(struct proof *p, int fd, struct strv *fix)
{
	const char	*idx;
	size_t		 rawsz = proof_hash_size(p);
	int		 sfd, r;

	if (p->src_failed)
		return -1;
	if (p->src_req.own != 0 && treeid_wait_own(&p->src_job) != NULL)
		r = gitindex_diff_fd(fd, treeid_own_fd(&p->src_job), rawsz,
		    fix);
	else {
		if (p->src_tree != NULL ||
		    (idx = treeid_wait_added(&p->src_job)) == NULL ||
		    p->src_job.tree != NULL || (sfd = open(idx, O_RDONLY |
		    O_CLOEXEC | O_NOCTTY)) == -1)
			return -1;
		r = gitindex_diff_fd(fd, sfd, rawsz, fix);
		close(sfd);
	}
	if (r == -1) {
		strv_clear(fix);
		return -1;
	}
	return fix->n == 0;
}

int
proof_reused(struct proof *p, const char *dst_gitdir, struct strv *fix)
{
	const char		*a, *idx;
	struct lsfiles_change	 c;
	char			*b = NULL;
	size_t			 i;
	int			 ret = -1, afresh, same = -1, ours = -1;

	if (!p->fast_started && proof_reused_start(p, dst_gitdir) == -1)
		return -1;
	p->fast_started = 0;
	/* The copy's entries as git staged its files (no tree hashed: the
	 * same entries as the source's are the same tree), else the tree
	 * git wrote. */
	if (!p->fast_job.failed) {
		(void)treeid_wait_own(&p->fast_job);
		ours = treeid_own_fd(&p->fast_job);
	}
	if (ours == -1 && !p->fast_job.failed)
		b = treeid_finish(&p->fast_job);
	p->dst_git.idle = NULL;
	if (ours == -1 && b == NULL)
		goto out;
	proof_hold_copy_index(p, &p->fast_job);
	if (ours != -1) {
		afresh = p->src_afresh;
		if ((same = src_side_compare(p, ours, fix)) == 0) {
			ret = 0;
			goto fixed;
		}
		if (same == -1 && ((a = proof_src_side_tree(p)) == NULL ||
		    p->copy_index == NULL || tree_changes(&p->dst_git, p->rd,
		    p->r.objects, a, NULL, p->copy_index, 1, fix) == -1))
			goto out;
		if (fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		/* The same entries: the source's tree -- of those entries,
		 * not one computed again since (its git failed). */
		if ((a = proof_src_side_tree(p)) == NULL ||
		    (same == 1 && p->src_afresh != afresh))
			goto out;
		p->settled = xstrdup(a);
		ret = 1;
		goto out;
	}
	/*
	 * The source's tree may still be being written (git writes each
	 * tree that changed): what differs is then found from the index it
	 * is written from, and the copy put right meanwhile.  Only when
	 * nothing does is the tree waited for here.
	 */
	if (p->src_tree == NULL && !p->src_failed &&
	    (idx = treeid_wait_added(&p->src_job)) != NULL &&
	    p->src_job.tree == NULL && treeid_own(&p->src_job) == NULL) {
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    idx, 0, fix) == 0 && fix->n > 0) {
			ret = 0;
			goto fixed;
		}
		strv_clear(fix);
	}
	if ((a = proof_src_side_tree(p)) == NULL)
		goto out;
	if (strcmp(a, b) == 0) {
		p->settled = b;
		b = NULL;
		ret = 1;
	} else if (treeid_own_fd(&p->src_job) != -1) {
		/* No tree of the source's for git to read. */
		if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, NULL,
		    p->src_job.index, 0, fix) == 0)
			ret = 0;
	} else if (tree_changes(&p->dst_git, p->rd, p->r.objects, b, a,
	    NULL, 0, fix) == 0)
		ret = 0;
fixed:
	for (i = 0; ret == 0 && i < fix->n; i++)
		if (lsfiles_change_parse(fix->v[i], &c) == 0)
			strv_push(&p->fixed, c.path);
out:
	treeid_free(&p->fast_job);
	if (ret == -1) {
		/* The full way, from the copy's checkout index. */
		if (p->copy_index != NULL)
			(void)unlink(p->copy_index);
		free(p->copy_index);
		p->copy_index = NULL;
		strv_clear(fix);
	}
	free(b);
	return ret;
}
