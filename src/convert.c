/* What git converts a file's bytes by: the inputs, and a digest of them. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "convert.h"
#include "fs.h"
#include "git.h"
#include "hash.h"
#include "settings.h"
#include "strv.h"
#include "xmalloc.h"

/* Where git's prefix puts the system's attributes file: /usr's, and
 * the others'. */
static const char *const	system_attributes[] = { "/etc/gitattributes",
	"/usr/etc/gitattributes", "/usr/local/etc/gitattributes", NULL };

/* An attributes file larger than this is hashed by its stat data. */
#define ATTRIBUTES_MAX	(16 << 20)

int
convert_is_attributes(const char *path)
{
	const char	*base = strrchr(path, '/');

	return strcmp(base != NULL ? base + 1 : path, ".gitattributes") == 0;
}

/* The global attributes file, as git finds it when core.attributesFile
 * is not set (the caller frees); NULL: no home to look in. */
static char *
global_attributes(void)
{
	const char	*xdg, *home;

	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && *xdg != '\0')
		return xasprintf("%s/git/attributes", xdg);
	if ((home = getenv("HOME")) != NULL && *home != '\0')
		return xasprintf("%s/.config/git/attributes", home);
	return NULL;
}

int
convert_outside(const char *common)
{
	struct stat	 st;
	char		*p;
	size_t		 i;
	int		 found;

	p = xasprintf("%s/info/attributes", common);
	found = stat(p, &st) == 0;
	free(p);
	if (!found && (p = global_attributes()) != NULL) {
		found = stat(p, &st) == 0;
		free(p);
	}
	for (i = 0; !found && system_attributes[i] != NULL; i++)
		found = stat(system_attributes[i], &st) == 0;
	return found;
}

/*
 * A file into h, tagged: its content, or what stands for it -- none,
 * or one that cannot be read by its stat data.  1 if it is there.
 */
static int
hash_file(struct hash *h, const char *tag, const char *path)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		 line[128];
	int		 there = 1;

	hash_update(h, tag, strlen(tag) + 1);
	hash_update(h, path, strlen(path) + 1);
	if (fs_read_file(path, &b, ATTRIBUTES_MAX) == 0) {
		hash_update(h, "content", sizeof("content"));
		if (b.data != NULL)
			hash_update(h, b.data, b.len);
		snprintf(line, sizeof(line), "%zu", b.len);
	} else if (stat(path, &st) == -1 && (errno == ENOENT ||
	    errno == ENOTDIR)) {
		snprintf(line, sizeof(line), "none");
		there = 0;
	} else if (stat(path, &st) == -1)
		snprintf(line, sizeof(line), "unreadable");
	else
		snprintf(line, sizeof(line), "unread %jd %jd.%09ld %jd.%09ld "
		    "%ju", (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
		    st.st_ctim.tv_nsec, (uintmax_t)st.st_ino);
	hash_update(h, line, strlen(line) + 1);
	buf_free(&b);
	return there;
}

/* core.attributesFile as git expands it (~, ~user), relative to where
 * g's git runs; NULL if git could not say (said why). */
static char *
attributes_file(const struct git *g)
{
	const char *const	 a[] = { "config", "-z", "--path", "--get",
	    "core.attributesfile", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			*p = NULL;
	int			 st;

	if ((st = git_run(g, a, 0, NULL, &out, &err)) == 0 &&
	    out.data != NULL) {
		if (out.data[0] == '/' || g->dir == NULL)
			p = xstrdup(out.data);
		else
			p = xasprintf("%s/%s", g->dir, out.data);
	} else if (st > 0)
		warnx("cannot read core.attributesFile: git config: %s",
		    git_why(&err, st));
	buf_free(&out);
	buf_free(&err);
	return p;
}

/*
 * A "filter.<driver>.<key>" setting, len bytes at p, value v (NULL: set
 * bare, true): onto filters the driver's name, if git runs a command of
 * it as it checks out -- a smudge or process command, or required (a
 * checkout without a command then fails).
 */
static void
checkout_filter(const char *p, size_t len, const char *v,
    struct strv *filters)
{
	const char	*name = p + strlen("filter."), *dot, *key;
	size_t		 klen;

	if (len <= strlen("filter.") || strncmp(p, "filter.", 7) != 0)
		return;
	/* The driver's name may hold dots: up to the last. */
	for (dot = p + len; dot > name && dot[-1] != '.'; dot--)
		;
	if (dot - 1 <= name)
		return;
	key = dot;
	klen = (size_t)(p + len - key);
	if (klen == strlen("required") && memcmp(key, "required", klen) == 0 ?
	    settings_bool(v) == 1 : ((klen == strlen("smudge") &&
	    memcmp(key, "smudge", klen) == 0) || (klen == strlen("process") &&
	    memcmp(key, "process", klen) == 0)) && v != NULL && *v != '\0')
		strv_pushn(filters, name, (size_t)(dot - 1 - name));
}

static char *
digest(const struct git *g, const char *common, const struct strv *in_tree,
    int *on, struct strv *filters)
{
	const char *const	 a[] = { "config", "-z", "--get-regexp",
	    "^(core\\.(autocrlf|eol|safecrlf|checkroundtripencoding|"
	    "attributesfile)|filter\\..*)$", NULL };
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	struct hash		 h;
	unsigned char		 raw[32];
	const char		*p, *end, *nl, *v = git_version_string();
	char			*path, hex[2 * 32 + 1];
	size_t			 i, len;
	int			 st, attrfile = 0;

	*on = 0;
	/* 1: not one of them is set. */
	if ((st = git_run(g, a, 0, NULL, &out, &err)) != 0 && st != 1) {
		if (st > 0)
			warnx("cannot read how git converts files: git "
			    "config: %s", git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return NULL;
	}
	buf_free(&err);
	(void)hash_init(&h, 32);
	hash_update(&h, "forge convert 1", sizeof("forge convert 1"));
	/* What git makes of the same settings is its version's. */
	hash_update(&h, v, strlen(v) + 1);
	hash_update(&h, "config", sizeof("config"));
	if (st == 0 && out.data != NULL)
		hash_update(&h, out.data, out.len);
	/* "key\nvalue" each, or "key" alone: a boolean set bare, true. */
	for (p = out.data, end = p + out.len; st == 0 && p != NULL &&
	    p < end; p += strlen(p) + 1) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len == strlen("core.autocrlf") &&
		    memcmp(p, "core.autocrlf", len) == 0)
			*on = settings_bool(nl != NULL ? nl + 1 : NULL) != 0;
		else if (len == strlen("core.attributesfile") &&
		    memcmp(p, "core.attributesfile", len) == 0)
			attrfile = 1;
		else if (filters != NULL)
			checkout_filter(p, len, nl != NULL ? nl + 1 : NULL,
			    filters);
	}
	buf_free(&out);
	if (filters != NULL)
		strv_sort_uniq(filters);
	if (attrfile) {
		if ((path = attributes_file(g)) == NULL)
			return NULL;
		(void)hash_file(&h, "attributesfile", path);
		*on = 1;
	} else if ((path = global_attributes()) != NULL)
		*on |= hash_file(&h, "global", path);
	free(path);
	path = xasprintf("%s/info/attributes", common);
	*on |= hash_file(&h, "info", path);
	free(path);
	for (i = 0; system_attributes[i] != NULL; i++)
		*on |= hash_file(&h, "system", system_attributes[i]);
	hash_update(&h, "tree", sizeof("tree"));
	for (i = 0; in_tree != NULL && i < in_tree->n; i++) {
		hash_update(&h, in_tree->v[i], strlen(in_tree->v[i]) + 1);
		*on = 1;
	}
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
	return xstrdup(hex);
}

char *
convert_digest(const struct git *g, const char *common,
    const struct strv *in_tree, int *on)
{
	return digest(g, common, in_tree, on, NULL);
}

char *
convert_digest_filters(const struct git *g, const char *common, int *on,
    struct strv *filters)
{
	return digest(g, common, NULL, on, filters);
}
