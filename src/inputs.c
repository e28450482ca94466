/* What a verdict depends on outside its tree: settings, attributes, who. */
#include "config.h"

#include <sys/types.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "convert.h"
#include "fs_vis.h"
#include "git.h"
#include "hash.h"
#include "inputs.h"
#include "repo.h"
#include "strv.h"
#include "xmalloc.h"

/*
 * The settings left out of the key, each with why: forge's own, that
 * decide nothing a step sees, or that are in the key otherwise.  Every
 * other setting of every scope is in.  A name ending in '.' stands for
 * every key of that section.
 */
static const struct {
	const char	*key;
	const char	*why;
} excluded[] = {
	{ "forge.audit", "whether a verdict is checked, not what it is" },
	{ "forge.breakerthreshold", "the breaker's, after the verdict" },
	{ "forge.cache", "whether the cache is used at all" },
	{ "forge.keep", "what is left after the run" },
	{ "forge.reusecopies", "how many parked copies are kept" },
	{ "forge.reuseexpiry", "when parked copies are removed" },
	{ "forge.refsexpiry", "when a clone's refs are removed" },
	{ "forge.timelinemaxsize", "the timeline's size" },
	{ "forge.logsize", "how much output is kept" },
	{ "forge.logtotal", "how much output is kept" },
	{ "forge.mappaths", "what forge shows, never what a step sees" },
	{ "forge.killafter", "only after the time limit: a FAIL, never "
	  "cached" },
	{ "forge.copythreshold", "how a change reaches the copy, which "
	  "the proof shows the same" },
	{ "forge.verify", "in the key as the steps, word by word, and "
	  "where they were set" },
	{ "forge.setup", "in the key as the steps, word by word, and "
	  "where they were set" },
	{ "forge.cacheenv", "in the key as the variables' values" },
	{ "forge.timeout", "in the key as the time limit" },
	{ "forge.contain", "in the key as the containment" },
	{ "forge.containmethod", "in the key as the method that contains" },
	{ "forge.containwritable", "in the key with the containment" },
	{ "forge.isolated", "in the key as the mode" },
	{ "forge.isolation", "in the key as worktree or clone" },
	{ "forge.reuse", "in the key as the mode" },
	{ "forge.incremental", "in the key as the mode" },
	{ "color.forge", "forge's own colours" },
};

#define NEXCLUDED	(sizeof(excluded) / sizeof(excluded[0]))

const char *
inputs_excluded(const char *key)
{
	size_t	i, n;

	for (i = 0; i < NEXCLUDED; i++) {
		n = strlen(excluded[i].key);
		if (excluded[i].key[n - 1] == '.' ?
		    strncasecmp(key, excluded[i].key, n) == 0 :
		    strcasecmp(key, excluded[i].key) == 0)
			return excluded[i].why;
	}
	return NULL;
}

/*
 * One repository's settings into h: "origin\0key\nvalue\0" as git
 * config -z --show-origin lists them, in its order, but the excluded.
 * -1 if git could not list them (said why).
 */
static int
hash_settings(struct hash *h, const struct git *g, const char *what)
{
	const char *const	 a[] = { "config", "-z", "--list",
	    "--show-origin", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end, *kv;
	char			*key;
	int			 st;

	if ((st = git_run(g, a, 0, NULL, &out, &err)) != 0) {
		if (st > 0)
			warnx("cannot list the settings of %s: git config: %s",
			    fs_vis(what), git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return -1;
	}
	hash_update(h, "settings", sizeof("settings"));
	for (p = out.data, end = p + out.len; p != NULL && p < end; ) {
		kv = p + strlen(p) + 1;
		if (kv >= end)
			break;
		key = xstrndup(kv, strcspn(kv, "\n"));
		if (inputs_excluded(key) == NULL) {
			hash_update(h, p, strlen(p) + 1);
			hash_update(h, kv, strlen(kv) + 1);
		}
		free(key);
		p = kv + strlen(kv) + 1;
	}
	buf_free(&out);
	buf_free(&err);
	return 0;
}

/* A repository's settings and attributes files into h. */
static int
hash_repo(struct hash *h, const struct git *g, const char *common,
    const char *what)
{
	char	*conv;
	int	 on;

	hash_update(h, what, strlen(what) + 1);
	if (hash_settings(h, g, what) == -1 ||
	    (conv = convert_digest(g, common, NULL, &on)) == NULL)
		return -1;
	hash_update(h, conv, strlen(conv) + 1);
	free(conv);
	return 0;
}

char *
inputs_settings(const struct repo *r, const struct strv *nested)
{
	struct hash	 h;
	struct git	 g;
	unsigned char	 raw[32];
	char		 hex[2 * 32 + 1], *gd, *cd, *hd;
	size_t		 i;
	int		 bad;

	(void)hash_init(&h, 32);
	hash_update(&h, "forge inputs 1", sizeof("forge inputs 1"));
	repo_git(r, &g);
	g.index = NULL;
	if (hash_repo(&h, &g, r->common, "the repository") == -1)
		return NULL;
	for (i = 0; nested != NULL && i < nested->n; i++) {
		if (repo_nested(nested->v[i], &gd, &cd, &hd) == -1) {
			warnx("cannot read the repository of %s",
			    fs_vis(nested->v[i]));
			return NULL;
		}
		memset(&g, 0, sizeof(g));
		g.dir = nested->v[i];
		g.gitdir = gd;
		bad = hash_repo(&h, &g, cd, nested->v[i]) == -1;
		free(gd);
		free(cd);
		free(hd);
		if (bad)
			return NULL;
	}
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	return xstrdup(hex);
}

static int
cmp_gid(const void *a, const void *b)
{
	gid_t	x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

char *
inputs_identity(void)
{
	struct buf	 b = BUF_INIT;
	gid_t		*v;
	int		 n, i;

	buf_addf(&b, "%ld %ld", (long)getuid(), (long)getgid());
	if ((n = getgroups(0, NULL)) > 0) {
		v = xreallocarray(NULL, (size_t)n, sizeof(*v));
		if ((n = getgroups(n, v)) > 0) {
			qsort(v, (size_t)n, sizeof(*v), cmp_gid);
			for (i = 0; i < n; i++)
				buf_addf(&b, "%c%ld", i == 0 ? ' ' : ',',
				    (long)v[i]);
		}
		free(v);
	}
	if (n < 0)
		buf_adds(&b, " ?");
	return buf_detach(&b);
}
