/* A copy's files as they stand, by their stat data: what setup changed. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lsfiles.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "source.h"
#include "strv.h"
#include "xmalloc.h"

/* "<path>\t<signature>" of one file: what any write changes (a write
 * gives the file a new ctime, which no one can set back), or "-" where
 * there is none. */
static void
push_sig(struct strv *out, const char *top, const char *rel,
    const char *path)
{
	struct stat	 st;
	char		*full;

	full = xasprintf("%s/%s%s", top, rel, path);
	if (lstat(full, &st) == -1)
		strv_pushf(out, "%s%s\t-", rel, path);
	else
		strv_pushf(out, "%s%s\t%o %llu %lld %lld.%09ld %lld.%09ld",
		    rel, path, (unsigned)st.st_mode,
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		    (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	free(full);
}

/* The path of a "<path>\t<signature>" line, its length. */
static size_t
path_len(const char *line)
{
	return strcspn(line, "\t");
}

/* By path alone: a byte below the tab in a name sorts as in git. */
static int
cmp_path(const char *a, const char *b)
{
	size_t	la = path_len(a), lb = path_len(b);
	int	c;

	if ((c = memcmp(a, b, la < lb ? la : lb)) != 0)
		return c;
	return la < lb ? -1 : la > lb ? 1 : 0;
}

static int
cmp_line(const void *a, const void *b)
{
	return cmp_path(*(char *const *)a, *(char *const *)b);
}

int
snapshot_state(const struct snapshot *s, struct strv *out)
{
	struct lsfiles	 l;
	struct git	 g;
	size_t		 i, k;

	strv_clear(out);
	for (i = 0; i < s->nrepos; i++) {
		snapshot_repo_dst_git(s->repos[i], &g);
		if (lsfiles_read(&l, &g) == -1)
			return -1;
		/* Its tracked files and links, and those it does not track
		 * or ignore; a nested repository is listed on its own. */
		for (k = 0; k < l.entries.n; k++)
			push_sig(out, s->copy, s->repos[i]->rel,
			    entlist_path(&l.entries, k));
		for (k = 0; k < l.untracked.n; k++)
			push_sig(out, s->copy, s->repos[i]->rel,
			    l.untracked.v[k]);
		lsfiles_free(&l);
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_line);
	return 0;
}

void
snapshot_state_changed(const struct strv *a, const struct strv *b,
    struct strv *changed)
{
	size_t	i = 0, j = 0;
	int	c;

	while (i < a->n || j < b->n) {
		if (i == a->n)
			c = 1;
		else if (j == b->n)
			c = -1;
		else
			c = cmp_path(a->v[i], b->v[j]);
		if (c < 0)
			strv_pushn(changed, a->v[i], path_len(a->v[i]));
		else if (c > 0)
			strv_pushn(changed, b->v[j], path_len(b->v[j]));
		else if (strcmp(a->v[i], b->v[j]) != 0)
			strv_pushn(changed, a->v[i], path_len(a->v[i]));
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
}

/* Two open files, the same bytes? */
static int
same_bytes(int a, int b)
{
	char	ba[65536], bb[65536];
	ssize_t	na, nb;

	for (;;) {
		if ((na = read(a, ba, sizeof(ba))) == -1 ||
		    (nb = read(b, bb, (size_t)na)) != na)
			return 0;
		if (na == 0)
			return 1;
		if (memcmp(ba, bb, (size_t)na) != 0)
			return 0;
	}
}

int
snapshot_state_kept(const struct snapshot *s, const char *path)
{
	struct stat	 sa, sb;
	char		*a, *b, la[4096], lb[4096];
	ssize_t		 na, nb;
	int		 fa = -1, fb = -1, same = 0;

	if (s->source != NULL && s->source->kind != SOURCE_WORKTREE)
		return 0;
	a = xasprintf("%s/%s", s->copy, path);
	b = xasprintf("%s/%s", s->repos[0]->src, path);
	if (lstat(a, &sa) == -1 || lstat(b, &sb) == -1 ||
	    (sa.st_mode & S_IFMT) != (sb.st_mode & S_IFMT) ||
	    sa.st_size != sb.st_size)
		goto out;
	if (S_ISLNK(sa.st_mode)) {
		na = readlink(a, la, sizeof(la));
		nb = readlink(b, lb, sizeof(lb));
		same = na >= 0 && na == nb && (size_t)na < sizeof(la) &&
		    memcmp(la, lb, (size_t)na) == 0;
		goto out;
	}
	/* A file: its bytes, and the bit git records of its mode. */
	if (!S_ISREG(sa.st_mode) ||
	    ((sa.st_mode ^ sb.st_mode) & S_IXUSR) != 0)
		goto out;
	if ((fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1 &&
	    (fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1)
		same = same_bytes(fa, fb);
out:
	if (fa != -1)
		close(fa);
	if (fb != -1)
		close(fb);
	free(a);
	free(b);
	return same;
}
