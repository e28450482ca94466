/* The copy's index, made to stage what the source's stages. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "git.h"
#include "lsfiles.h"
#include "mirror.h"
#include "strv.h"
#include "sum.h"
#include "xmalloc.h"

/* Run git in the copy with lines, each NUL-terminated, on its stdin. */
static int
git_feed(const struct git *g, const char *const *args, const struct strv *in)
{
	struct buf	b = BUF_INIT, err = BUF_INIT;
	size_t		i;
	int		st;

	if (in->n == 0)
		return 0;
	for (i = 0; i < in->n; i++)
		buf_add(&b, in->v[i], strlen(in->v[i]) + 1);
	if ((st = git_run(g, args, GIT_RETRY, &b, NULL, &err)) > 0)
		warnx("cannot stage the copy's changes as the source has "
		    "them: git %s: %s", args[0], git_why(&err, st));
	buf_free(&b);
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

/*
 * The update-index --index-info lines for the staged paths: the source's
 * entry or gitlink ("mode oid\tpath"), or "0 <zeros>\tpath" removing it; unmerged
 * paths left alone.
 */
static void
staged_lines(const struct strv *staged, const struct entlist *entries,
    const struct strv *gitlinks, const struct strv *unmerged, size_t oidlen,
    struct strv *lines)
{
	const char	*e;
	ssize_t		 at;
	size_t		 i;

	for (i = 0; i < staged->n; i++) {
		if (strv_sorted_has(unmerged, staged->v[i]))
			continue;
		if ((at = entlist_find(entries, staged->v[i])) != -1)
			entlist_put(entries, (size_t)at, lines);
		else if ((e = lsfiles_find(gitlinks, staged->v[i])) != NULL)
			strv_push(lines, e);
		else
			lsfiles_push_removal(lines, staged->v[i], oidlen);
	}
}

/* git add -N, in the copy, of the intent-to-add paths it has a file for
 * (one whose file is gone has nothing to add). */
static int
add_ita(const struct git *dst, const struct strv *ita)
{
	struct strv	 a = STRV_INIT;
	struct buf	 err = BUF_INIT;
	struct stat	 st;
	char		*p;
	size_t		 i, n;
	int		 r = 0;

	strv_push(&a, "add");
	strv_push(&a, "--intent-to-add");
	strv_push(&a, "--force");
	strv_push(&a, "--");
	n = a.n;
	for (i = 0; i < ita->n; i++) {
		p = xasprintf("%s/%s", dst->worktree, ita->v[i]);
		if (lstat(p, &st) == 0)
			strv_pushf(&a, ":(literal)%s", ita->v[i]);
		free(p);
	}
	if (a.n > n) {
		if ((r = git_run(dst, (const char *const *)a.v, GIT_RETRY,
		    NULL, NULL, &err)) > 0)
			warnx("cannot stage the copy's changes as the source "
			    "has them: git add -N: %s", git_why(&err, r));
	}
	strv_free(&a);
	buf_free(&err);
	return r == 0 ? 0 : -1;
}

/*
 * What the two git diff-index runs below say depends on the index git
 * reads and on HEAD alone: a reused copy's runs keep it in a file, keyed
 * by a sum of that index as it is read, and the next run reads it there
 * when the source's index did not change since.  The file is forge's,
 * beside the copy, and sealed by a sum of what it holds, like the index
 * the proof carries: a file anything else wrote is not believed.
 */
#define PLAN_MAGIC	"forge mirror plan 1\n"
#define PLAN_MAX	(64 << 20)
#define PLAN_SEAL	37		/* "sum <32 hex digits>\n" */

/*
 * The index's content is known by the checksum git writes at its end,
 * a hash of all of it: read rather than the 1.6 MB of 20,000 entries.
 * Where git wrote none (index.skipHash), by a sum of it all.
 */
static char *
plan_key(const struct git *src, const char *head)
{
	static const unsigned char	 none[20];
	unsigned char			 end[32];
	struct stat			 st;
	struct sum			 s;
	int				 fd, r;

	if (src->index == NULL)
		return NULL;
	sum_init(&s);
	sum_str(&s, head);
	sum_str(&s, git_version_string());
	if ((fd = open(src->index, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > (off_t)sizeof(end) &&
	    pread(fd, end, sizeof(end), st.st_size - (off_t)sizeof(end)) ==
	    (ssize_t)sizeof(end) &&
	    memcmp(end + sizeof(end) - sizeof(none), none, sizeof(none)) != 0) {
		sum_str(&s, "checksum");
		sum_add(&s, end, sizeof(end));
		r = 0;
	} else
		r = sum_fd(&s, fd);
	close(fd);
	return r == -1 ? NULL : sum_line(&s, "key ");
}

static char *
plan_seal(const char *data, size_t len)
{
	struct sum	 s;

	sum_init(&s);
	sum_add(&s, data, len);
	return sum_line(&s, "sum ");
}

/* One "name LEN\n" and its LEN bytes at *p, before end: into out. */
static int
plan_part(const char **p, const char *end, const char *name, struct buf *out)
{
	const char	*nl;
	char		*e;
	size_t		 nlen = strlen(name);
	unsigned long long len;

	if ((size_t)(end - *p) <= nlen + 1 || memcmp(*p, name, nlen) != 0 ||
	    (*p)[nlen] != ' ' ||
	    (nl = memchr(*p, '\n', (size_t)(end - *p))) == NULL)
		return -1;
	errno = 0;
	len = strtoull(*p + nlen + 1, &e, 10);
	if (errno != 0 || e != nl || len > (unsigned long long)(end - nl - 1))
		return -1;
	buf_add(out, nl + 1, (size_t)len);
	*p = nl + 1 + len;
	return 0;
}

/* What path holds for key, if it is sealed: 0, and the two lists. */
static int
plan_read(const char *path, const char *key, struct buf *staged,
    struct buf *visible)
{
	struct buf	 b = BUF_INIT;
	const char	*p, *end, *sum;
	char		*seal = NULL;
	size_t		 klen = strlen(key), mlen = strlen(PLAN_MAGIC);
	int		 ret = -1;

	if (fs_read_file(path, &b, PLAN_MAX) == -1 || b.data == NULL ||
	    b.len < mlen + klen + PLAN_SEAL)
		goto out;
	sum = b.data + b.len - PLAN_SEAL;
	seal = plan_seal(b.data, b.len - PLAN_SEAL);
	if (strlen(seal) != PLAN_SEAL || memcmp(sum, seal, PLAN_SEAL) != 0 ||
	    memcmp(b.data, PLAN_MAGIC, mlen) != 0 ||
	    memcmp(b.data + mlen, key, klen) != 0)
		goto out;
	p = b.data + mlen + klen;
	end = sum;
	if (plan_part(&p, end, "staged", staged) == 0 &&
	    plan_part(&p, end, "visible", visible) == 0 && p == end)
		ret = 0;
out:
	if (ret == -1) {
		buf_reset(staged);
		buf_reset(visible);
	}
	free(seal);
	buf_free(&b);
	return ret;
}

static void
plan_write(const char *path, const char *key, const struct buf *staged,
    const struct buf *visible)
{
	struct buf	 b = BUF_INIT;
	char		*seal;

	buf_adds(&b, PLAN_MAGIC);
	buf_adds(&b, key);
	buf_addf(&b, "staged %zu\n", staged->len);
	buf_add(&b, staged->data, staged->len);
	buf_addf(&b, "visible %zu\n", visible->len);
	buf_add(&b, visible->data, visible->len);
	seal = plan_seal(b.data, b.len);
	buf_adds(&b, seal);
	if (b.len > PLAN_MAX ||
	    fs_write_atomic(path, b.data, b.len, 0600) == -1)
		(void)unlink(path);
	free(seal);
	buf_free(&b);
}

/* git's -z output of args into out: -1 with a message if it fails. */
static int
git_raw(const struct git *g, const char *const *args, struct buf *out)
{
	struct buf	err = BUF_INIT;
	int		st;

	if ((st = git_run(g, args, 0, NULL, out, &err)) > 0)
		warnx("cannot read the index for the copy: git diff-index: %s",
		    git_why(&err, st));
	buf_free(&err);
	return st == 0 ? 0 : -1;
}

int
mirror_plan(const struct git *src, const char *head,
    const struct entlist *entries, const struct lsfiles *l, const char *cache,
    struct mirror_plan *mp)
{
	const char *const	 staged_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ita-invisible-in-index",
	    "--ignore-submodules=none", head, "--", NULL };
	const char *const	 visible_args[] = { "diff-index", "--cached",
	    "--no-renames", "--name-only", "-z", "--ignore-submodules=none",
	    head, "--", NULL };
	struct strv		 staged = STRV_INIT, visible = STRV_INIT;
	struct buf		 so = BUF_INIT, vo = BUF_INIT;
	char			*key = NULL;
	size_t			 i;
	int			 ret = -1;

	memset(mp, 0, sizeof(*mp));
	mp->l = l;
	if (cache != NULL)
		key = plan_key(src, head);
	if (key == NULL || plan_read(cache, key, &so, &vo) == -1) {
		if (git_raw(src, staged_args, &so) == -1 ||
		    git_raw(src, visible_args, &vo) == -1)
			goto out;
		if (key != NULL)
			plan_write(cache, key, &so, &vo);
	}
	strv_split_z(&staged, so.data != NULL ? so.data : "", so.len);
	strv_split_z(&visible, vo.data != NULL ? vo.data : "", vo.len);
	strv_sort(&staged);
	/* Listed only when intent-to-add entries are visible: those. */
	for (i = 0; i < visible.n; i++)
		if (!strv_sorted_has(&staged, visible.v[i]))
			strv_push(&mp->ita, visible.v[i]);
	staged_lines(&staged, entries, &l->gitlinks, &l->unmerged,
	    strlen(head), &mp->lines);
	ret = 0;
out:
	free(key);
	buf_free(&so);
	buf_free(&vo);
	strv_free(&staged);
	strv_free(&visible);
	return ret;
}

int
mirror_apply(const struct git *dst, const struct mirror_plan *mp)
{
	const char *const	 info[] = { "update-index", "-z",
	    "--index-info", NULL };
	const char *const	 skip[] = { "update-index", "-z",
	    "--skip-worktree", "--stdin", NULL };
	const char *const	 assume[] = { "update-index", "-z",
	    "--assume-unchanged", "--stdin", NULL };

	if (git_feed(dst, info, &mp->lines) == -1 ||
	    add_ita(dst, &mp->ita) == -1 ||
	    git_feed(dst, skip, &mp->l->skips) == -1 ||
	    git_feed(dst, assume, &mp->l->assumes) == -1)
		return -1;
	return 0;
}

char *
mirror_key(const struct mirror_plan *mp, const char *head, const char *dst)
{
	struct sum	 s;
	struct stat	 st;
	char		*p;
	size_t		 i;

	sum_init(&s);
	sum_str(&s, head);
	strv_sum(&mp->lines, &s, "lines");
	strv_sum(&mp->ita, &s, "ita");
	/* add -N adds only those it finds a file for. */
	for (i = 0; i < mp->ita.n; i++) {
		p = xasprintf("%s/%s", dst, mp->ita.v[i]);
		sum_str(&s, lstat(p, &st) == 0 ? "there" : "gone");
		free(p);
	}
	strv_sum(&mp->l->skips, &s, "skips");
	strv_sum(&mp->l->assumes, &s, "assumes");
	return sum_line(&s, "forge mirror 2 ");
}

void
mirror_plan_free(struct mirror_plan *mp)
{
	strv_free(&mp->lines);
	strv_free(&mp->ita);
	memset(mp, 0, sizeof(*mp));
}

int
mirror_index(const struct git *src, const struct git *dst, const char *head,
    const struct entlist *entries, const struct lsfiles *l)
{
	struct mirror_plan	mp;
	int			ret = -1;

	if (mirror_plan(src, head, entries, l, NULL, &mp) == 0)
		ret = mirror_apply(dst, &mp);
	mirror_plan_free(&mp);
	return ret;
}
