/* The verdict cache: PASS verdicts by what was verified, bounded. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cache.h"
#include "fsutil.h"
#include "json.h"
#include "state.h"
#include "xmalloc.h"

/* Each line of the file, with its key, oldest first. */
struct entry {
	const char	*line;
	size_t		 len;
	char		*key;
	char		*at;
};

static char *
cache_path(const struct state *st)
{
	return xasprintf("%s/cache.jsonl", st->dir);
}

/* Read the file into b and its good lines into *ev; -1 if unreadable
 * (a missing file is empty). */
static int
load(const struct state *st, struct buf *b, struct entry **ev, size_t *n)
{
	struct jv	*v;
	const char	*p, *end, *nl, *k, *a;
	char		*path;
	int		 r;

	*ev = NULL;
	*n = 0;
	path = cache_path(st);
	r = fs_read_file(path, b, 64 << 20);
	if (r == -1 && errno != ENOENT) {
		warn("cannot read %s", fs_vis(path));
		free(path);
		return -1;
	}
	free(path);
	if (r == -1)
		return 0;
	for (p = b->data, end = p + b->len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;		/* torn: not a whole line */
		if ((v = json_parse(p, (size_t)(nl - p))) == NULL)
			continue;
		k = jv_str(jv_get(v, "key"));
		a = jv_str(jv_get(v, "at"));
		if (k != NULL && a != NULL) {
			*ev = xreallocarray(*ev, *n + 1, sizeof(**ev));
			(*ev)[*n].line = p;
			(*ev)[*n].len = (size_t)(nl + 1 - p);
			(*ev)[*n].key = xstrdup(k);
			(*ev)[*n].at = xstrdup(a);
			(*n)++;
		}
		jv_free(v);
	}
	return 0;
}

static void
unload(struct entry *ev, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(ev[i].key);
		free(ev[i].at);
	}
	free(ev);
}

int
cache_lookup(struct state *st, const char *key, char **at)
{
	struct buf	 b = BUF_INIT;
	struct entry	*ev;
	size_t		 n, i;
	int		 ret = 0;

	*at = NULL;
	if (load(st, &b, &ev, &n) == -1) {
		buf_free(&b);
		return -1;
	}
	for (i = n; i > 0 && ret == 0; i--)
		if (strcmp(ev[i - 1].key, key) == 0) {
			*at = xstrdup(ev[i - 1].at);
			ret = 1;
		}
	unload(ev, n);
	buf_free(&b);
	return ret;
}

int
cache_store(struct state *st, const char *key, const char *at,
    const char *tree, size_t max)
{
	struct buf	 b = BUF_INIT, out = BUF_INIT;
	struct entry	*ev = NULL;
	struct json	 j;
	size_t		 n = 0, i, keep, skip;
	char		*path;
	int		 ret = -1;

	if (max == 0)
		return 0;
	if (state_lock(st) == -1)
		return -1;
	if (load(st, &b, &ev, &n) == -1)
		goto out;
	/* The newest max - 1 others, then this one. */
	for (i = 0, keep = 0; i < n; i++)
		if (strcmp(ev[i].key, key) != 0)
			keep++;
	skip = keep > max - 1 ? keep - (max - 1) : 0;
	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].key, key) == 0)
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		buf_add(&out, ev[i].line, ev[i].len);
	}
	json_init(&j, &out);
	json_open(&j, '{');
	json_key(&j, "key");
	json_str(&j, key);
	json_key(&j, "at");
	json_str(&j, at);
	json_key(&j, "tree");
	json_str(&j, tree);
	json_close(&j, '}');
	buf_addc(&out, '\n');
	path = cache_path(st);
	if ((ret = fs_write_atomic(path, out.data, out.len, 0666)) == -1)
		warn("cannot write %s", fs_vis(path));
	free(path);
out:
	state_unlock(st);
	unload(ev, n);
	buf_free(&b);
	buf_free(&out);
	return ret;
}
