/* The change report: counts and paths relative to a base commit. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "change.h"
#include "event.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "repo.h"
#include "rundir.h"
#include "xmalloc.h"

void
change_free(struct change *c)
{
	free(c->base);
	free(c->base_id);
	strv_free(&c->lines);
	strv_free(&c->from);
	memset(c, 0, sizeof(*c));
}

int
change_parse_diff(struct change *c, const char *p, size_t len)
{
	const char	*end = p + len, *status, *a, *b;
	struct buf	 line = BUF_INIT;

	while (p < end) {
		status = p;
		p += strnlen(p, (size_t)(end - p)) + 1;
		if (p >= end)
			goto bad;
		a = p;
		p += strnlen(p, (size_t)(end - p)) + 1;
		b = NULL;
		if (status[0] == 'R' || status[0] == 'C') {
			if (p >= end)
				goto bad;
			b = p;
			p += strnlen(p, (size_t)(end - p)) + 1;
		}
		buf_reset(&line);
		strv_push(&c->from, status[0] == 'R' ? a : "");
		switch (status[0]) {
		case 'R':
			c->renamed++;
			buf_addf(&line, "R\t%s", b);
			break;
		case 'C':
			/* A copy adds the new path. */
			c->added++;
			buf_addf(&line, "A\t%s", b);
			break;
		case 'A':
			c->added++;
			buf_addf(&line, "A\t%s", a);
			break;
		case 'D':
			c->deleted++;
			buf_addf(&line, "D\t%s", a);
			break;
		case 'M':
		case 'T':
		case 'U':
			c->modified++;
			buf_addf(&line, "M\t%s", a);
			break;
		default:
			goto bad;
		}
		strv_push(&c->lines, line.data);
	}
	buf_free(&line);
	return 0;
bad:
	buf_free(&line);
	return -1;
}

void
change_add_untracked(struct change *c, const struct strv *paths)
{
	size_t	i;

	for (i = 0; i < paths->n; i++) {
		c->untracked++;
		strv_pushf(&c->lines, "?\t%s", paths->v[i]);
		strv_push(&c->from, "");
	}
}

int
change_compute(struct change *c, const struct repo *r, const char *base,
    struct rundir *rd)
{
	const char *const	 others[] = { "-o", "--exclude-standard",
	    NULL };
	struct git		 g;
	struct strv		 a = STRV_INIT, untracked = STRV_INIT;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			*idx, *real;
	int			 st, ret = -1;

	memset(c, 0, sizeof(*c));
	c->base = xstrdup(base);
	if ((c->base_id = repo_resolve_commit(r, base)) == NULL) {
		if (errno == ENOENT)
			warnx("--change=%s: no such commit", fs_vis(base));
		change_free(c);
		return -1;
	}
	repo_git(r, &g);
	/* git diff may write back a refreshed index: never the user's. */
	real = repo_index_path(r);
	idx = rundir_index(rd, real);
	free(real);
	if (idx == NULL)
		goto out;
	g.index = idx;
	strv_push(&a, "diff");
	strv_push(&a, "-z");
	strv_push(&a, "--name-status");
	strv_push(&a, "-M");
	strv_push(&a, "--no-ext-diff");
	strv_push(&a, "--no-textconv");
	strv_push(&a, "--no-color");
	/* Paths from the top, whatever diff.relative says (2.28 on). */
	if (git_has(GIT_NO_RELATIVE))
		strv_push(&a, "--no-relative");
	strv_push(&a, c->base_id);
	strv_push(&a, "--");
	st = git_run(&g, (const char *const *)a.v, 0, NULL, &out, &err);
	strv_free(&a);
	if (st != 0) {
		if (st > 0)
			warnx("git diff failed: %s", git_why(&err, st));
		goto out;
	}
	if (change_parse_diff(c, out.data != NULL ? out.data : "",
	    out.len) == -1) {
		warnx("cannot parse the output of git diff --name-status");
		goto out;
	}
	buf_reset(&out);
	buf_reset(&err);
	if ((st = lsfiles_paths(&g, others, &untracked, &err)) != 0) {
		if (st > 0)
			warnx("git ls-files failed: %s", git_why(&err, st));
		goto out;
	}
	change_add_untracked(c, &untracked);
	ret = 0;
out:
	if (ret == -1)
		change_free(c);
	free(idx);
	strv_free(&untracked);
	buf_free(&out);
	buf_free(&err);
	return ret;
}

char *
change_summary(const struct change *c)
{
	struct buf	b = BUF_INIT;

#define PART(n, word) do {						\
	if ((n) > 0)							\
		buf_addf(&b, "%s%zu " word, b.len ? ", " : "", (n));	\
} while (0)
	PART(c->modified, "modified");
	PART(c->added, "added");
	PART(c->deleted, "deleted");
	PART(c->renamed, "renamed");
	PART(c->untracked, "untracked");
#undef PART
	if (b.len == 0)
		buf_adds(&b, "no changes");
	return buf_detach(&b);
}

/* "M path" or "R old -> new", printable. */
static void
line_text(const struct change *c, size_t i, struct buf *out)
{
	const char	*l = c->lines.v[i];

	buf_reset(out);
	buf_addc(out, l[0]);
	buf_addc(out, ' ');
	if (l[0] == 'R') {
		buf_adds(out, fs_vis(c->from.v[i]));
		buf_adds(out, " -> ");
	}
	buf_adds(out, fs_vis(l + 2));
}

void
change_print(const struct change *c, FILE *fp, size_t max)
{
	struct buf	 line = BUF_INIT;
	char		*sum;
	size_t		 i;

	sum = change_summary(c);
	fprintf(fp, "forge: change against %s (%.12s): %s\n",
	    fs_vis(c->base), c->base_id, sum);
	free(sum);
	for (i = 0; i < c->lines.n && i < max; i++) {
		line_text(c, i, &line);
		fprintf(fp, "forge:   %s\n", line.data);
	}
	if (c->lines.n > max)
		fprintf(fp, "forge:   ... and %zu more\n", c->lines.n - max);
	buf_free(&line);
}

void
change_json(const struct change *c, struct json *j, size_t max)
{
	const char	*l;
	size_t		 i;

	json_open(j, '{');
	json_key(j, EVENT_CHANGE_BASE);
	json_str(j, c->base);
	json_key(j, EVENT_CHANGE_BASE_COMMIT);
	json_str(j, c->base_id);
	json_key(j, EVENT_CHANGE_MODIFIED);
	json_int(j, (long long)c->modified);
	json_key(j, EVENT_CHANGE_ADDED);
	json_int(j, (long long)c->added);
	json_key(j, EVENT_CHANGE_DELETED);
	json_int(j, (long long)c->deleted);
	json_key(j, EVENT_CHANGE_RENAMED);
	json_int(j, (long long)c->renamed);
	json_key(j, EVENT_CHANGE_UNTRACKED);
	json_int(j, (long long)c->untracked);
	json_key(j, EVENT_CHANGE_PATHS);
	json_open(j, '[');
	for (i = 0; i < c->lines.n && i < max; i++) {
		l = c->lines.v[i];
		json_open(j, '{');
		json_key(j, EVENT_CHANGE_STATUS);
		json_strn(j, l, 1);
		if (l[0] == 'R') {
			json_key(j, EVENT_CHANGE_FROM);
			json_str(j, c->from.v[i]);
		}
		json_key(j, EVENT_CHANGE_PATH);
		json_str(j, l + 2);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_key(j, EVENT_CHANGE_MORE);
	json_int(j, (long long)(c->lines.n > max ? c->lines.n - max : 0));
	json_close(j, '}');
}
