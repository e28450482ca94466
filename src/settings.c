/* forge.* settings, one row each, read from git config and .forgeconfig. */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "color.h"
#include "contain.h"
#include "forge.h"
#include "fs_vis.h"
#include "git.h"
#include "lsfiles.h"
#include "repo.h"
#include "settings.h"
#include "state.h"
#include "timeutil.h"
#include "xmalloc.h"

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
	strv_free(&c->setup_inputs);
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

int
settings_audit(const char *v)
{
	const char	*e;
	long long	 n;

	if (v != NULL && *v >= '0' && *v <= '9') {
		n = strtonum(v, 0, AUDIT_MAX, &e);
		return e == NULL ? (int)n : -1;
	}
	switch (settings_bool(v)) {
	case 1:
		return 1;
	case 0:
		return 0;
	default:
		return -1;
	}
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

/* forge.isolation: the copy a linked worktree (0) or a clone (1). */
static int
isolation_value(const char *v)
{
	if (v != NULL && strcmp(v, "worktree") == 0)
		return 0;
	if (v != NULL && strcmp(v, "clone") == 0)
		return 1;
	return -1;
}

/* A forge.containWritable value: an absolute path, one below ~/, or
 * empty (the list emptied); -1 if it is none. */
static int
writable_value(const char *v)
{
	if (v != NULL && *v != '\0' && *v != '/' && strncmp(v, "~/", 2) != 0)
		return -1;
	return 0;
}

/* What a setting's value is, and where it goes. */
enum setting_type {
	SET_BOOL,		/* int: git's boolean */
	SET_NUMBER,		/* int: a whole number, min to max */
	SET_DURATION,		/* long long: ms, min at least */
	SET_SIZE,		/* long long: bytes, min at least */
	SET_CHOICE,		/* int: what fn makes of it (-1: bad) */
	SET_LIST,		/* struct strv: the first value of a layer
				   replaces the list the layers before made,
				   an empty one empties it; fn, if any, is -1
				   of a bad value */
	SET_NAMES,		/* struct strv: names of variables, each value
				   adding to the default (cache_env_value) */
	SET_COLOR,		/* int: a colour; a bad one is only said */
	SET_CORE		/* kept in core, as git listed it */
};

/* Setting flags. */
#define SET_GIT_ONLY	0x01	/* from git config alone: a .forgeconfig
				   that sets it is warned about and ignored */
#define SET_NEVER	0x02	/* SET_DURATION: "never" is -1 */
#define SET_FROM	0x04	/* SET_LIST: from names where a layer set
				   the list */

struct setting {
	const char		*name;		/* as forge(1) spells it */
	enum setting_type	 type;
	size_t			 off;		/* its field's */
	long long		 def;		/* SET_LIST, SET_NAMES,
						   SET_CORE: none */
	long long		 min;
	long long		 max;
	int			(*fn)(const char *);
	size_t			 from;		/* SET_FROM: of the char * */
	int			 flags;
	const char		*bad;		/* what a bad value is not */
};

#define F(field)	offsetof(struct settings, field)

/*
 * Every setting forge reads: the forge.* keys of git config and of
 * .forgeconfig, and the colour and core.* keys of git config alone,
 * which read_layer() asks only git config for.
 */
static const struct setting settings_table[] = {
	{ .name = "forge.verify", .type = SET_LIST, .off = F(verify),
	  .flags = SET_FROM, .from = F(verify_from) },
	{ .name = "forge.setup", .type = SET_LIST, .off = F(setup),
	  .flags = SET_FROM, .from = F(setup_from) },
	{ .name = "forge.setupInputs", .type = SET_LIST,
	  .off = F(setup_inputs) },
	{ .name = "forge.cacheEnv", .type = SET_NAMES, .off = F(cache_env),
	  .bad = "not names of environment variables (PATH CC, or a prefix "
	  "such as LC_*)" },
	{ .name = "forge.contain", .type = SET_BOOL, .off = F(contain),
	  .bad = "not a boolean" },
	/* A tracked file may not open the copy's walls. */
	{ .name = "forge.containWritable", .type = SET_LIST,
	  .off = F(contain_writable), .fn = writable_value,
	  .flags = SET_GIT_ONLY,
	  .bad = "not an absolute path (/dir or ~/dir)" },
	/* Which one works is the machine's to say, not a tracked file's. */
	{ .name = "forge.containMethod", .type = SET_CHOICE,
	  .off = F(contain_method), .def = CONTAIN_METHOD_AUTO,
	  .fn = contain_method_parse, .flags = SET_GIT_ONLY,
	  .bad = "say auto, namespaces or landlock" },
	{ .name = "forge.isolated", .type = SET_BOOL, .off = F(isolated),
	  .bad = "not a boolean" },
	{ .name = "forge.reuse", .type = SET_BOOL, .off = F(reuse),
	  .bad = "not a boolean" },
	{ .name = "forge.incremental", .type = SET_BOOL,
	  .off = F(incremental), .bad = "not a boolean" },
	{ .name = "forge.reuseCopies", .type = SET_NUMBER,
	  .off = F(reuse_copies), .def = DEFAULT_REUSE_COPIES, .min = 0,
	  .max = 64, .bad = "not a whole number from 0 to 64" },
	{ .name = "forge.cache", .type = SET_BOOL, .off = F(cache),
	  .bad = "not a boolean" },
	{ .name = "forge.audit", .type = SET_CHOICE, .off = F(audit),
	  .fn = settings_audit,
	  .bad = "not a boolean or a whole number N (one run in N)" },
	{ .name = "forge.isolation", .type = SET_CHOICE, .off = F(clone),
	  .fn = isolation_value, .bad = "say worktree or clone" },
	{ .name = "forge.refsExpiry", .type = SET_DURATION,
	  .off = F(refs_expiry_ms), .def = 30LL * 24 * 3600 * 1000, .min = 1,
	  .bad = "not a positive duration such as 30d" },
	{ .name = "forge.timeout", .type = SET_DURATION, .off = F(timeout_ms),
	  .bad = "not a duration such as 90s or 10m" },
	{ .name = "forge.killAfter", .type = SET_DURATION, .off = F(grace_ms),
	  .def = DEFAULT_GRACE_MS, .min = 1,
	  .bad = "not a positive duration such as 5s" },
	{ .name = "forge.breakerThreshold", .type = SET_NUMBER,
	  .off = F(threshold), .def = DEFAULT_THRESHOLD, .min = 0,
	  .max = 1000000, .bad = "not a whole number from 0 (off) up" },
	{ .name = "forge.timelineMaxSize", .type = SET_SIZE,
	  .off = F(timeline_max), .def = DEFAULT_TIMELINE_MAX, .min = 4096,
	  .bad = "not a size of at least 4k, such as 10m" },
	{ .name = "forge.logSize", .type = SET_SIZE, .off = F(log_size),
	  .def = DEFAULT_LOG_SIZE,
	  .bad = "not a size such as 2m, or 0 to keep no output" },
	{ .name = "forge.logTotal", .type = SET_SIZE, .off = F(log_total),
	  .def = DEFAULT_LOG_TOTAL, .bad = "not a size such as 64m" },
	{ .name = "forge.keep", .type = SET_CHOICE, .off = F(keep),
	  .def = KEEP_NEVER, .fn = settings_keep,
	  .bad = "not never, failure or always" },
	{ .name = "forge.reuseExpiry", .type = SET_DURATION,
	  .off = F(reuse_expiry_ms), .def = DEFAULT_REUSE_EXPIRY_MS,
	  .flags = SET_NEVER,
	  .bad = "not never or a duration such as 7d or 12h" },
	{ .name = "forge.copyThreshold", .type = SET_SIZE,
	  .off = F(copy_threshold), .def = DEFAULT_COPY_THRESHOLD,
	  .bad = "not a size such as 1m or 512k" },
	{ .name = "forge.mapPaths", .type = SET_BOOL, .off = F(map_paths),
	  .def = 1, .bad = "not a boolean" },
	/* The user's: git config alone, by read_layer(). */
	{ .name = "color.forge", .type = SET_COLOR, .off = F(color_forge),
	  .def = -1, .bad = "not auto, always, never or a boolean (ignored)" },
	{ .name = "color.ui", .type = SET_COLOR, .off = F(color_ui),
	  .def = -1, .bad = "not auto, always, never or a boolean (ignored)" },
	/* How a copy is made (snapshot.c), as the repository says. */
	{ .name = "core.fileMode", .type = SET_CORE },
	{ .name = "core.sparseCheckout", .type = SET_CORE },
	{ .name = "core.autocrlf", .type = SET_CORE },
	{ .name = "core.attributesFile", .type = SET_CORE },
	{ .name = "core.symlinks", .type = SET_CORE },
	{ .name = "core.ignoreStat", .type = SET_CORE },
};

#define NSETTINGS	(sizeof(settings_table) / sizeof(settings_table[0]))

/* The setting git lists as key: its name, lowercased as git lowercases
 * it (a key in any other case is no setting of forge's). */
static const struct setting *
setting_find(const char *key)
{
	const char	*k, *n;
	size_t		 i;

	for (i = 0; i < NSETTINGS; i++) {
		for (k = key, n = settings_table[i].name; *n != '\0' &&
		    *k == tolower((unsigned char)*n); k++, n++)
			;
		if (*n == '\0' && *k == '\0')
			return &settings_table[i];
	}
	return NULL;
}

#define INT_AT(c, s)	((int *)(void *)((char *)(c) + (s)->off))
#define LL_AT(c, s)	((long long *)(void *)((char *)(c) + (s)->off))
#define STRV_AT(c, s)	((struct strv *)(void *)((char *)(c) + (s)->off))

/* color.forge over color.ui, else auto. */
static void
color_resolve(struct settings *c)
{
	c->color = c->color_forge != -1 ? c->color_forge :
	    c->color_ui != -1 ? c->color_ui : COLOR_AUTO;
}

void
settings_init(struct settings *c)
{
	const struct setting	*s;

	memset(c, 0, sizeof(*c));
	for (s = settings_table; s < settings_table + NSETTINGS; s++)
		switch (s->type) {
		case SET_BOOL:
		case SET_NUMBER:
		case SET_CHOICE:
		case SET_COLOR:
			*INT_AT(c, s) = (int)s->def;
			break;
		case SET_DURATION:
		case SET_SIZE:
			*LL_AT(c, s) = s->def;
			break;
		case SET_NAMES:
			settings_cache_env_default(STRV_AT(c, s));
			break;
		case SET_LIST:
		case SET_CORE:
			break;
		}
	color_resolve(c);
}

/* A duration or a size, of at least s->min: -1 if it is none. */
static int
amount_value(const struct setting *s, const char *v, long long *n)
{
	if (v == NULL)
		return -1;
	if ((s->flags & SET_NEVER) && strcasecmp(v, "never") == 0) {
		*n = -1;
		return 0;
	}
	*n = s->type == SET_SIZE ? timeutil_parse_size(v) :
	    timeutil_parse_duration(v);
	return *n < s->min ? -1 : 0;
}

long long
settings_reuse_expiry(const char *v)
{
	long long	n;

	return amount_value(setting_find("forge.reuseexpiry"), v, &n) == 0 ?
	    n : -2;
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

/*
 * Key (as git lists it) is s, set to val (NULL: a bare key, which git
 * reads as true) by origin; seen says whether this layer set it before.
 * -1 if the value is bad (said).
 */
static int
apply_value(struct settings *c, const struct setting *s, const char *key,
    const char *val, const char *origin, int *seen)
{
	const char	*e = NULL;
	char		**from;
	long long	 n;

	switch (s->type) {
	case SET_BOOL:
		if ((n = settings_bool(val)) == -1)
			return bad(key, val, origin, s->bad);
		*INT_AT(c, s) = (int)n;
		break;
	case SET_NUMBER:
		n = val != NULL ? strtonum(val, s->min, s->max, &e) : 0;
		if (val == NULL || e != NULL)
			return bad(key, val ? val : "", origin, s->bad);
		*INT_AT(c, s) = (int)n;
		break;
	case SET_DURATION:
	case SET_SIZE:
		if (amount_value(s, val, &n) == -1)
			return bad(key, val ? val : "", origin, s->bad);
		*LL_AT(c, s) = n;
		break;
	case SET_CHOICE:
		if ((n = s->fn(val)) == -1)
			return bad(key, val ? val : "", origin, s->bad);
		*INT_AT(c, s) = (int)n;
		break;
	case SET_LIST:
		if (s->fn != NULL && s->fn(val) == -1)
			return bad(key, val, origin, s->bad);
		if ((s->flags & SET_FROM) && !*seen) {
			from = (char **)(void *)((char *)c + s->from);
			free(*from);
			*from = xstrdup(origin);
		}
		list_value(STRV_AT(c, s), seen, val);
		break;
	case SET_NAMES:
		if (cache_env_value(STRV_AT(c, s), val) == -1)
			return bad(key, val, origin, s->bad);
		break;
	case SET_COLOR:
		/* Colour is cosmetic, and the setting git's: a bad one is
		 * no reason to stop, but is said. */
		if ((n = color_value(val)) == -1)
			warnx("%s: bad value '%s' for %s: %s", origin,
			    fs_vis(val), key, s->bad);
		else
			*INT_AT(c, s) = (int)n;
		color_resolve(c);
		break;
	case SET_CORE:
		/* Read with forge's own, for the copy to take as git lists
		 * them. */
		buf_adds(&c->core, key);
		if (val != NULL) {
			buf_addc(&c->core, '\n');
			buf_adds(&c->core, val);
		}
		buf_addc(&c->core, '\0');
		break;
	}
	return 0;
}

int
settings_apply(struct settings *c, const char *text, size_t len,
    const char *origin, int *verify_set)
{
	const struct setting	*s;
	const char		*p = text, *end = text + len, *rec, *nl, *val;
	char			*key;
	size_t			 rlen;
	int			 seen[NSETTINGS], ret = 0;

	memset(seen, 0, sizeof(seen));
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
		if ((s = setting_find(key)) == NULL)
			warnx("%s: unknown setting %s (ignored)", origin,
			    fs_vis(key));
		else if ((s->flags & SET_GIT_ONLY) &&
		    strcmp(origin, "git config") != 0)
			warnx("%s: %s is taken from git config alone "
			    "(ignored)", origin, key);
		else if (apply_value(c, s, key, val, origin,
		    &seen[s - settings_table]) == -1)
			ret = -1;
		free(key);
	}
	*verify_set = seen[setting_find("forge.verify") - settings_table];
	return ret;
}

/* What git config is asked for: every forge.* key, and the others the
 * table has (of .forgeconfig: only forge.* keys). */
static char *
layer_regexp(int file)
{
	struct buf	 b = BUF_INIT;
	const char	*n;
	size_t		 i;

	buf_adds(&b, file ? "^forge\\." : "^(forge\\.");
	for (i = 0; i < NSETTINGS && !file; i++) {
		if (strncmp(settings_table[i].name, "forge.", 6) == 0)
			continue;
		buf_addc(&b, '|');
		for (n = settings_table[i].name; *n != '\0'; n++) {
			if (*n == '.')
				buf_addc(&b, '\\');
			buf_addc(&b, tolower((unsigned char)*n));
		}
		buf_addc(&b, '$');
	}
	if (!file)
		buf_addc(&b, ')');
	return buf_detach(&b);
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
	strv_take(&a, layer_regexp(file != NULL || blob != NULL));
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
	struct git		 g;
	struct strv		 entries = STRV_INIT;
	struct buf		 err = BUF_INIT;
	struct lsfiles_entry	 e;
	size_t			 i;
	int			 st;

	*blob = NULL;
	repo_git(r, &g);
	if ((st = lsfiles_at(&g, commit, ".forgeconfig", &entries,
	    &err)) != 0) {
		if (st > 0)
			warnx("cannot read the .forgeconfig of %s: git %s: %s",
			    commit != NULL ? commit : "the index",
			    commit != NULL ? "ls-tree" : "ls-files",
			    git_why(&err, st));
		strv_free(&entries);
		buf_free(&err);
		return -1;
	}
	/* A regular file at the top, and nothing else -- not a symlink,
	 * not what a directory of that name holds. */
	for (i = 0; i < entries.n; i++)
		if (lsfiles_entry_parse(entries.v[i], &e) == 0 &&
		    strcmp(e.path, ".forgeconfig") == 0 &&
		    (e.mode == 0100644 || e.mode == 0100755)) {
			*blob = xstrndup(e.oid, e.oidlen);
			break;
		}
	strv_free(&entries);
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
