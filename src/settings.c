/* Reading forge.* settings from git config and from .forgeconfig. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bigfile.h"
#include "buf.h"
#include "color.h"
#include "contain.h"
#include "settings.h"
#include "forge.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "repo.h"
#include "timeutil.h"
#include "xmalloc.h"

void
settings_init(struct settings *c)
{
	memset(c, 0, sizeof(*c));
	c->grace_ms = DEFAULT_GRACE_MS;
	c->threshold = DEFAULT_THRESHOLD;
	c->timeline_max = DEFAULT_TIMELINE_MAX;
	c->reuse_copies = DEFAULT_REUSE_COPIES;
	c->keep = KEEP_NEVER;
	c->reuse_expiry_ms = DEFAULT_REUSE_EXPIRY_MS;
	c->copy_threshold = BIGFILE_DEFAULT;
	c->color = COLOR_AUTO;
	c->color_forge = -1;
	c->color_ui = -1;
	c->refs_expiry_ms = 30LL * 24 * 3600 * 1000;
	settings_cache_env_default(&c->cache_env);
}

/*
 * What a build or its tests commonly read of the environment: the
 * programs found (PATH), the compilers and their flags, where libraries
 * and modules are looked for, the locale and the time zone.
 */
static const char *const cache_env_default[] = {
	"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "CC", "CXX", "CPP",
	"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "LIBS",
	"PKG_CONFIG_PATH", "PYTHONPATH", "VIRTUAL_ENV", "NODE_OPTIONS",
	"NODE_PATH", "GOFLAGS", "RUSTFLAGS", "JAVA_HOME", "CLASSPATH",
	"LANG", "LC_*", "TZ", NULL
};

void
settings_cache_env_default(struct strv *v)
{
	size_t	i;

	strv_clear(v);
	for (i = 0; cache_env_default[i] != NULL; i++)
		strv_push(v, cache_env_default[i]);
}

/* A forge.cacheEnv value: names of variables, or PREFIX* for those that
 * begin so, apart by blanks, each added; empty, the list emptied.  -1 if
 * a word is no name. */
static int
cache_env_value(struct strv *v, const char *val)
{
	const char	*p, *e;
	size_t		 len, i;

	if (val == NULL || *val == '\0') {
		strv_clear(v);
		return 0;
	}
	for (p = val; *p != '\0'; p = e) {
		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t");
		e = p + len;
		for (i = 0; i < len; i++)
			if (!(p[i] == '_' || (p[i] >= 'A' && p[i] <= 'Z') ||
			    (p[i] >= 'a' && p[i] <= 'z') ||
			    (i > 0 && p[i] >= '0' && p[i] <= '9') ||
			    (i > 0 && i == len - 1 && p[i] == '*')))
				return -1;
	}
	for (p = val; *p != '\0'; p = e) {
		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t");
		e = p + len;
		strv_pushf(v, "%.*s", (int)len, p);
	}
	return 0;
}

void
settings_free(struct settings *c)
{
	strv_free(&c->verify);
	strv_free(&c->setup);
	strv_free(&c->contain_writable);
	strv_free(&c->cache_env);
	free(c->verify_from);
	free(c->setup_from);
	buf_free(&c->core);
}

int
settings_bool(const char *v)
{
	const char	*p;

	if (v == NULL || strcasecmp(v, "true") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcasecmp(v, "on") == 0)
		return 1;
	if (*v == '\0' || strcasecmp(v, "false") == 0 ||
	    strcasecmp(v, "no") == 0 || strcasecmp(v, "off") == 0)
		return 0;
	/* As git: any integer, non-zero for true. */
	p = v;
	if (*p == '-' || *p == '+')
		p++;
	if (*p == '\0' || strspn(p, "0123456789") != strlen(p))
		return -1;
	return strspn(p, "0") != strlen(p);
}

int
settings_keep(const char *v)
{
	if (v != NULL && strcasecmp(v, "never") == 0)
		return KEEP_NEVER;
	if (v != NULL && strcasecmp(v, "failure") == 0)
		return KEEP_FAILURE;
	if (v != NULL && strcasecmp(v, "always") == 0)
		return KEEP_ALWAYS;
	switch (settings_bool(v)) {
	case 1:
		return KEEP_ALWAYS;
	case 0:
		return KEEP_NEVER;
	default:
		return -1;
	}
}

long long
settings_reuse_expiry(const char *v)
{
	long long	n;

	if (v == NULL || *v == '\0')
		return -2;
	if (strcasecmp(v, "never") == 0)
		return REUSE_EXPIRY_NEVER;
	return (n = duration_parse(v)) < 0 ? -2 : n;
}

/* A color.* value as git takes it: auto, always, never, or a boolean,
 * true being auto (a bare key is true); -1 if it is none. */
static int
color_value(const char *v)
{
	if (v != NULL) {
		if (strcasecmp(v, "never") == 0)
			return COLOR_NEVER;
		if (strcasecmp(v, "always") == 0)
			return COLOR_ALWAYS;
		if (strcasecmp(v, "auto") == 0)
			return COLOR_AUTO;
	}
	switch (settings_bool(v)) {
	case 1:
		return COLOR_AUTO;
	case 0:
		return COLOR_NEVER;
	default:
		return -1;
	}
}

/* Colour is cosmetic, and the setting git's: a bad one is no reason
 * to stop, but is said. */
static void
apply_color(struct settings *c, const char *key, const char *val,
    const char *origin)
{
	int	m;

	if ((m = color_value(val)) == -1)
		warnx("%s: bad value '%s' for %s: not auto, always, never or "
		    "a boolean (ignored)", origin, fs_vis(val), key);
	else if (strcmp(key, "color.forge") == 0)
		c->color_forge = m;
	else
		c->color_ui = m;
	c->color = c->color_forge != -1 ? c->color_forge :
	    c->color_ui != -1 ? c->color_ui : COLOR_AUTO;
}

static int
bad(const char *key, const char *val, const char *origin, const char *what)
{
	warnx("%s: bad value '%s' for %s: %s", origin, fs_vis(val), key,
	    what);
	return -1;
}

/*
 * A value of a multi-valued key: the first in a layer replaces the list
 * the layers before made, and an empty one clears it.
 */
static void
list_value(struct strv *list, int *seen, const char *val)
{
	if (!*seen) {
		strv_clear(list);
		*seen = 1;
	}
	if (val == NULL || *val == '\0')
		strv_clear(list);
	else
		strv_push(list, val);
}

int
settings_apply(struct settings *c, const char *text, size_t len,
    const char *origin, int *verify_set)
{
	const char	*p = text, *end = text + len, *rec, *nl, *val;
	char		*key;
	long long	 n;
	size_t		 rlen;
	int		 b, setup_set, writable_set, ret = 0;

	*verify_set = 0;
	setup_set = writable_set = 0;
	while (p < end) {
		rec = p;
		rlen = strnlen(rec, (size_t)(end - p));
		p += rlen + 1;
		/* "key\nvalue", or just "key" for a bare boolean. */
		if ((nl = memchr(rec, '\n', rlen)) != NULL) {
			key = xstrndup(rec, (size_t)(nl - rec));
			val = nl + 1;
		} else {
			key = xstrndup(rec, rlen);
			val = NULL;
		}
		if (strcmp(key, "forge.verify") == 0) {
			if (!*verify_set) {
				free(c->verify_from);
				c->verify_from = xstrdup(origin);
			}
			list_value(&c->verify, verify_set, val);
		} else if (strcmp(key, "forge.setup") == 0) {
			if (!setup_set) {
				free(c->setup_from);
				c->setup_from = xstrdup(origin);
			}
			list_value(&c->setup, &setup_set, val);
		} else if (strcmp(key, "forge.cacheenv") == 0) {
			if (cache_env_value(&c->cache_env, val) == -1)
				ret = bad(key, val, origin, "not names of "
				    "environment variables (PATH CC, or a "
				    "prefix such as LC_*)");
		} else if (strcmp(key, "forge.contain") == 0) {
			if ((b = settings_bool(val)) == -1)
				ret = bad(key, val, origin, "not a boolean");
			else
				c->contain = b;
		} else if (strcmp(key, "forge.containwritable") == 0) {
			/* A tracked file may not open the copy's walls. */
			if (strcmp(origin, "git config") != 0)
				warnx("%s: %s is taken from git config alone "
				    "(ignored)", origin, key);
			else if (val != NULL && *val != '\0' && *val != '/' &&
			    strncmp(val, "~/", 2) != 0)
				ret = bad(key, val, origin, "not an absolute "
				    "path (/dir or ~/dir)");
			else
				list_value(&c->contain_writable,
				    &writable_set, val);
		} else if (strcmp(key, "forge.containmethod") == 0) {
			/* Which one works is the machine's to say, not a
			 * tracked file's. */
			if (strcmp(origin, "git config") != 0)
				warnx("%s: %s is taken from git config alone "
				    "(ignored)", origin, key);
			else if ((b = contain_method_parse(val)) == -1)
				ret = bad(key, val ? val : "", origin,
				    "say auto, namespaces or landlock");
			else
				c->contain_method = b;
		} else if (strcmp(key, "forge.isolated") == 0) {
			if ((b = settings_bool(val)) == -1)
				ret = bad(key, val, origin, "not a boolean");
			else
				c->isolated = b;
		} else if (strcmp(key, "forge.reuse") == 0) {
			if ((b = settings_bool(val)) == -1)
				ret = bad(key, val, origin, "not a boolean");
			else
				c->reuse = b;
		} else if (strcmp(key, "forge.incremental") == 0) {
			if ((b = settings_bool(val)) == -1)
				ret = bad(key, val, origin, "not a boolean");
			else
				c->incremental = b;
		} else if (strcmp(key, "forge.reusecopies") == 0) {
			const char	*e = NULL;

			n = val != NULL ? strtonum(val, 0, 64, &e) : 0;
			if (val == NULL || e != NULL)
				ret = bad(key, val ? val : "", origin,
				    "not a whole number from 0 to 64");
			else
				c->reuse_copies = (int)n;
		} else if (strcmp(key, "forge.cache") == 0) {
			if ((b = settings_bool(val)) == -1)
				ret = bad(key, val, origin, "not a boolean");
			else
				c->cache = b;
		} else if (strcmp(key, "forge.isolation") == 0) {
			if (val != NULL && strcmp(val, "worktree") == 0)
				c->clone = 0;
			else if (val != NULL && strcmp(val, "clone") == 0)
				c->clone = 1;
			else
				ret = bad(key, val ? val : "", origin,
				    "say worktree or clone");
		} else if (strcmp(key, "forge.refsexpiry") == 0) {
			if (val == NULL || (n = duration_parse(val)) <= 0)
				ret = bad(key, val ? val : "", origin,
				    "not a positive duration such as 30d");
			else
				c->refs_expiry_ms = n;
		} else if (strcmp(key, "forge.timeout") == 0) {
			if (val == NULL || (n = duration_parse(val)) < 0)
				ret = bad(key, val ? val : "", origin,
				    "not a duration such as 90s or 10m");
			else
				c->timeout_ms = n;
		} else if (strcmp(key, "forge.killafter") == 0) {
			if (val == NULL || (n = duration_parse(val)) <= 0)
				ret = bad(key, val ? val : "", origin,
				    "not a positive duration such as 5s");
			else
				c->grace_ms = n;
		} else if (strcmp(key, "forge.breakerthreshold") == 0) {
			const char	*e = NULL;

			n = val != NULL ? strtonum(val, 0, 1000000, &e) : 0;
			if (val == NULL || e != NULL)
				ret = bad(key, val ? val : "", origin,
				    "not a whole number from 0 (off) up");
			else
				c->threshold = (int)n;
		} else if (strcmp(key, "forge.timelinemaxsize") == 0) {
			if (val == NULL || (n = size_parse(val)) < 4096)
				ret = bad(key, val ? val : "", origin,
				    "not a size of at least 4k, such as 10m");
			else
				c->timeline_max = n;
		} else if (strcmp(key, "forge.keep") == 0) {
			if ((b = settings_keep(val)) == -1)
				ret = bad(key, val ? val : "", origin,
				    "not never, failure or always");
			else
				c->keep = b;
		} else if (strcmp(key, "forge.reuseexpiry") == 0) {
			if ((n = settings_reuse_expiry(val)) == -2)
				ret = bad(key, val ? val : "", origin,
				    "not never or a duration such as 7d or "
				    "12h");
			else
				c->reuse_expiry_ms = n;
		} else if (strcmp(key, "forge.copythreshold") == 0) {
			if (val == NULL || (n = size_parse(val)) < 0)
				ret = bad(key, val ? val : "", origin,
				    "not a size such as 1m or 512k");
			else
				c->copy_threshold = n;
		} else if (strcmp(key, "color.forge") == 0 ||
		    strcmp(key, "color.ui") == 0) {
			apply_color(c, key, val, origin);
		} else if (strcmp(key, "core.filemode") == 0 ||
		    strcmp(key, "core.sparsecheckout") == 0 ||
		    strcmp(key, "core.autocrlf") == 0 ||
		    strcmp(key, "core.attributesfile") == 0) {
			/* Read with forge's own, for the copy to take as
			 * git lists them. */
			buf_add(&c->core, rec, rlen);
			buf_addc(&c->core, '\0');
		} else {
			warnx("%s: unknown setting %s (ignored)", origin,
			    fs_vis(key));
		}
		free(key);
	}
	return ret;
}

/* One layer's settings: forge.* of a file (file, or blob: a blob's id),
 * or those and colour of git's configuration. */
static int
read_layer(const struct repo *r, const char *file, const char *blob,
    const char *origin, struct buf *out)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	struct buf	 err = BUF_INIT;
	int		 st, ret = 0;

	repo_git(r, &g);
	strv_push(&a, "config");
	strv_push(&a, "-z");
	if (file != NULL) {
		strv_push(&a, "--file");
		strv_push(&a, file);
	} else if (blob != NULL) {
		strv_push(&a, "--blob");
		strv_push(&a, blob);
	}
	strv_push(&a, "--get-regexp");
	strv_push(&a, file != NULL || blob != NULL ? "^forge\\." :
	    "^(forge\\.|color\\.(forge|ui)$|"
	    "core\\.(filemode|sparsecheckout|autocrlf|attributesfile)$)");
	st = git_run(&g, (const char *const *)a.v, 0, NULL, out, &err);
	strv_free(&a);
	/* 1: no such key, which is fine. */
	if (st == 1)
		buf_reset(out);
	else if (st != 0) {
		if (st > 0)
			warnx("cannot read %s: git config: %s", origin,
			    git_why(&err, st));
		ret = -1;
	}
	buf_free(&err);
	return ret;
}

/*
 * The blob of the .forgeconfig that the index (commit NULL) or a commit
 * holds, into *blob (NULL: none, or no regular file there).  -1: git
 * could not say (said why).
 */
static int
tree_blob(const struct repo *r, const char *commit, char **blob)
{
	struct git	 g;
	struct buf	 out = BUF_INIT, err = BUF_INIT;
	const char	*p, *end, *tab, *sp;
	int		 st;

	*blob = NULL;
	repo_git(r, &g);
	if (commit == NULL) {
		const char *const	a[] = { "ls-files", "-z", "-s", "--",
		    ".forgeconfig", NULL };

		st = git_run(&g, a, 0, NULL, &out, &err);
	} else {
		const char *const	a[] = { "ls-tree", "-z", commit, "--",
		    ".forgeconfig", NULL };

		st = git_run(&g, a, 0, NULL, &out, &err);
	}
	if (st != 0) {
		if (st > 0)
			warnx("cannot read the .forgeconfig of %s: git %s: %s",
			    commit != NULL ? commit : "the index",
			    commit != NULL ? "ls-tree" : "ls-files",
			    git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return -1;
	}
	/*
	 * "100644 oid 0\t.forgeconfig" (ls-files), "100644 blob
	 * oid\t.forgeconfig" (ls-tree): a regular file at the top, of stage
	 * 0, and nothing else -- not a symlink, not what a directory
	 * of that name holds.
	 */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p += strlen(p) + 1) {
		if ((tab = strchr(p, '\t')) == NULL ||
		    strcmp(tab + 1, ".forgeconfig") != 0 ||
		    (strncmp(p, "100644 ", 7) != 0 &&
		    strncmp(p, "100755 ", 7) != 0))
			continue;
		sp = p + 7;
		if (commit != NULL && strncmp(sp, "blob ", 5) == 0)
			sp += 5;
		else if (commit == NULL && (tab - sp < 2 ||
		    strncmp(tab - 2, " 0", 2) != 0))
			continue;
		*blob = xstrndup(sp, strcspn(sp, " \t"));
		break;
	}
	buf_free(&out);
	buf_free(&err);
	return 0;
}

int
settings_load(struct settings *c, const struct repo *r, const char *from)
{
	struct stat	 st;
	struct buf	 out = BUF_INIT;
	char		*path = NULL, *blob = NULL, *origin = NULL;
	int		 set, ret = -1;

	settings_init(c);
	/*
	 * .forgeconfig first: any git config layer overrides it, and a
	 * forge.verify there replaces its list (settings_apply clears).
	 * The working tree's, or the one of the tree to be verified: the
	 * index's (":"), a commit's.
	 */
	if (from == NULL) {
		path = xasprintf("%s/.forgeconfig", r->top);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			origin = xstrdup(".forgeconfig");
	} else {
		if (tree_blob(r, strcmp(from, ":") == 0 ? NULL : from,
		    &blob) == -1) {
			ret = -2;
			goto out;
		}
		if (blob != NULL)
			origin = strcmp(from, ":") == 0 ?
			    xstrdup(":.forgeconfig") :
			    xasprintf("%.12s:.forgeconfig", from);
	}
	/* A git that fails is forge's failure (-2), a bad value the
	 * user's (-1). */
	ret = -2;
	if (origin != NULL && read_layer(r, blob != NULL ? NULL : path, blob,
	    origin, &out) == -1)
		goto out;
	ret = -1;
	if (origin != NULL && settings_apply(c, out.data ? out.data : "",
	    out.len, origin, &set) == -1)
		goto out;
	buf_reset(&out);
	ret = -2;
	if (read_layer(r, NULL, NULL, "forge.* settings", &out) == -1)
		goto out;
	ret = -1;
	if (settings_apply(c, out.data ? out.data : "", out.len, "git config",
	    &set) == -1)
		goto out;
	ret = 0;
out:
	free(path);
	free(blob);
	free(origin);
	buf_free(&out);
	return ret;
}
