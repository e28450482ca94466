/* The verdict cache: PASS verdicts by what was verified, bounded. */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cache.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_vis.h"
#include "hash.h"
#include "json.h"
#include "state.h"
#include "strv.h"
#include "xmalloc.h"

extern char	**environ;

/* Each line of the file, with its key, oldest first. */
struct entry {
	const char	*line;
	size_t		 len;
	char		*key;
	char		*at;
};

/* A string, or null where the run has none. */
static void
str_or_null(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	if (v != NULL)
		json_str(j, v);
	else
		json_null(j);
}

/* The environment variables names lists, each as [name, value], null
 * where it is not set; a name ending in '*' stands for every variable
 * that begins so, in the order of their names. */
static void
env_json(struct json *j, const struct strv *names, char *const *env)
{
	struct strv	 found = STRV_INIT;
	const char	*n, *eq;
	size_t		 i, k, len;
	int		 prefix;

	json_open(j, '[');
	for (i = 0; names != NULL && i < names->n; i++) {
		n = names->v[i];
		len = strlen(n);
		if ((prefix = len > 0 && n[len - 1] == '*'))
			len--;
		strv_clear(&found);
		for (k = 0; env[k] != NULL; k++)
			if ((eq = strchr(env[k], '=')) != NULL &&
			    strncmp(env[k], n, len) == 0 &&
			    (prefix || (size_t)(eq - env[k]) == len))
				strv_push(&found, env[k]);
		strv_sort(&found);
		json_open(j, '[');
		json_str(j, n);
		if (found.n == 0 && !prefix)
			json_null(j);
		for (k = 0; k < found.n; k++)
			json_str(j, found.v[k]);
		json_close(j, ']');
	}
	json_close(j, ']');
	strv_free(&found);
}

char *
cache_key(const struct cache_in *in)
{
	struct buf	 b = BUF_INIT;
	struct json	 j;
	struct hash	 h;
	unsigned char	 raw[32];
	char		 hex[2 * 32 + 1];
	size_t		 i, k;

	json_init(&j, &b);
	json_open(&j, '{');
	str_or_null(&j, "version", in->version);
	str_or_null(&j, "git", in->git);
	str_or_null(&j, "mode", in->mode);
	str_or_null(&j, "tree", in->tree);
	str_or_null(&j, "head", in->head);
	str_or_null(&j, "index", in->index);
	str_or_null(&j, "convert", in->convert);
	str_or_null(&j, "as_is", in->as_is);
	json_key(&j, "clone");
	json_bool(&j, in->clone);
	json_key(&j, "incremental");
	json_bool(&j, in->incremental);
	json_key(&j, "contain");
	json_bool(&j, in->contain);
	json_key(&j, "no_network");
	json_bool(&j, in->no_network);
	str_or_null(&j, "contain_how", in->contain_how);
	json_key(&j, "writable");
	json_open(&j, '[');
	for (i = 0; in->contain && in->writable != NULL &&
	    i < in->writable->n; i++)
		json_str(&j, in->writable->v[i]);
	json_close(&j, ']');
	json_key(&j, "timeout_ms");
	json_int(&j, in->timeout_ms);
	str_or_null(&j, "identity", in->identity);
	str_or_null(&j, "settings", in->settings);
	str_or_null(&j, "steps_from", in->steps_from);
	str_or_null(&j, "setup_from", in->setup_from);
	json_key(&j, "steps");
	json_open(&j, '[');
	for (i = 0; i < in->nsteps; i++) {
		json_open(&j, '{');
		json_key(&j, "setup");
		json_bool(&j, in->steps[i].setup);
		str_or_null(&j, "dir", in->steps[i].dir);
		json_key(&j, "argv");
		json_open(&j, '[');
		for (k = 0; k < in->steps[i].argv->n; k++)
			json_str(&j, in->steps[i].argv->v[k]);
		json_close(&j, ']');
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_key(&j, "env");
	env_json(&j, in->env, in->environ != NULL ? in->environ : environ);
	json_key(&j, "umask");
	json_int(&j, in->umask);
	str_or_null(&j, "modes", in->modes);
	json_close(&j, '}');
	/* Hashed: the values (a token in the environment) stay unwritten. */
	(void)hash_init(&h, 32);
	hash_update(&h, b.data, b.len);
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	buf_free(&b);
	return xstrdup(hex);
}

static char *
cache_path(const struct state *st)
{
	return forgedir_cache(st->common);
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
		k = json_as_str(json_get(v, "key"));
		a = json_as_str(json_get(v, "at"));
		if (k != NULL && a != NULL) {
			*ev = xreallocarray(*ev, *n + 1, sizeof(**ev));
			(*ev)[*n].line = p;
			(*ev)[*n].len = (size_t)(nl + 1 - p);
			(*ev)[*n].key = xstrdup(k);
			(*ev)[*n].at = xstrdup(a);
			(*n)++;
		}
		json_free(v);
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
cache_drop(struct state *st, const char *key)
{
	struct buf	 b = BUF_INIT, out = BUF_INIT;
	struct entry	*ev = NULL;
	size_t		 n = 0, i;
	char		*path;
	int		 ret = -1, found = 0;

	if (state_lock(st) == -1)
		return -1;
	if (load(st, &b, &ev, &n) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (strcmp(ev[i].key, key) == 0) {
			found = 1;
			continue;
		}
		buf_add(&out, ev[i].line, ev[i].len);
	}
	ret = 0;
	if (!found)
		goto out;
	path = cache_path(st);
	if ((ret = fs_write_atomic(path, out.data != NULL ? out.data : "",
	    out.len, 0666)) == -1)
		warn("cannot write %s", fs_vis(path));
	free(path);
out:
	state_unlock(st);
	unload(ev, n);
	buf_free(&b);
	buf_free(&out);
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
