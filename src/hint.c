/* Hints for a copy that lacks its build inputs: ignored, or stale. */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "git.h"
#include "hint.h"
#include "repo.h"
#include "strv.h"
#include "xmalloc.h"

/* The inputs looked for, in the order a hint names them. */
enum {
	IN_GNUMAKEFILE,
	IN_MAKEFILE_LC,
	IN_MAKEFILE,
	IN_CONFIGURE,
	IN_NODE_MODULES,
	IN_N
};

static const char *const inputs[IN_N] = {
	"GNUmakefile", "makefile", "Makefile", "configure", "node_modules"
};

static int
exists(const char *dir, const char *name)
{
	struct stat	 sb;
	char		*p;
	int		 ret;

	p = xasprintf("%s/%s", dir, name);
	ret = lstat(p, &sb) == 0;
	free(p);
	return ret;
}

/* A directory name a shell takes as one word, unquoted. */
static int
plain_word(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._/+-") == strlen(s) && *s != '-';
}

/* What would make the input, run at the directory itself; or NULL. */
static const char *
remedy(const char *dir, int in, const int *ignored)
{
	int	autoconf = exists(dir, "configure.ac") ||
		    exists(dir, "configure.in");

	switch (in) {
	case IN_CONFIGURE:
		return autoconf ? "autoreconf -fi" : NULL;
	case IN_NODE_MODULES:
		if (exists(dir, "package-lock.json") ||
		    exists(dir, "npm-shrinkwrap.json"))
			return "npm ci";
		if (exists(dir, "yarn.lock"))
			return "yarn install --frozen-lockfile";
		if (exists(dir, "pnpm-lock.yaml"))
			return "pnpm install --frozen-lockfile";
		return "npm install";
	default:
		if (exists(dir, "configure") && !ignored[IN_CONFIGURE])
			return "./configure";
		if (autoconf)
			return "autoreconf -fi && ./configure";
		if (exists(dir, "CMakeLists.txt"))
			return "cmake .";
		return NULL;
	}
}

/* Which of the paths asked about git ignores: -z output, as given. */
static void
mark_ignored(const struct buf *out, const char *prefix, int *ignored)
{
	const char	*p, *end;
	size_t		 plen = strlen(prefix);
	int		 i;

	if (out->data == NULL)
		return;
	for (p = out->data, end = out->data + out->len; p < end;
	    p += strlen(p) + 1) {
		if (strncmp(p, prefix, plen) != 0)
			continue;
		for (i = 0; i < IN_N; i++)
			if (strcmp(p + plen, inputs[i]) == 0)
				ignored[i] = 1;
	}
}

void
hint_ignored_inputs(const struct repo *repo, const char *prefix)
{
	struct git	 g;
	struct strv	 a = STRV_INIT;
	struct buf	 in = BUF_INIT, out = BUF_INIT;
	const char	*fix;
	char		*dir, *sub;
	int		 ignored[IN_N], i, n = 0, st;

	memset(ignored, 0, sizeof(ignored));
	dir = xasprintf("%s/%s", repo->top, prefix);
	strv_push(&a, "check-ignore");
	strv_push(&a, "-z");
	strv_push(&a, "--stdin");
	for (i = 0; i < IN_N; i++) {
		/* node_modules matters only beside a package.json. */
		if (i == IN_NODE_MODULES && !exists(dir, "package.json"))
			continue;
		if (exists(dir, inputs[i])) {
			buf_adds(&in, prefix);
			buf_add(&in, inputs[i], strlen(inputs[i]) + 1);
			n++;
		}
	}
	/* Tracked files are never reported: they are in the copy. */
	if (n == 0)
		goto out;
	repo_git(repo, &g);
	st = git_run(&g, (const char *const *)a.v, 0, &in, &out, NULL);
	if (st != 0)		/* 1: none ignored; else no hint either */
		goto out;
	mark_ignored(&out, prefix, ignored);
	for (i = 0; i < IN_N && !ignored[i]; i++)
		;
	if (i == IN_N)
		goto out;
	/* Setup steps run at the copy's top. */
	fix = remedy(dir, i, ignored);
	sub = *prefix == '\0' ? xstrdup("") :
	    xasprintf("cd %.*s && ", (int)strlen(prefix) - 1, prefix);
	if (fix != NULL && (*prefix == '\0' || plain_word(prefix)))
		fprintf(stderr, "forge: hint: %s is ignored here, so the copy "
		    "has none; configure a setup step: git config --add "
		    "forge.setup '%s%s'\n", inputs[i], sub, fix);
	else
		fprintf(stderr, "forge: hint: %s is ignored here, so the copy "
		    "has none; configure a setup step that makes it: git "
		    "config --add forge.setup COMMAND\n", inputs[i]);
	free(sub);
out:
	buf_free(&in);
	buf_free(&out);
	strv_free(&a);
	free(dir);
}

/*
 * The files named are paths from the top, as the setup record shows them
 * (escaped); the first is what the hint offers to list.
 */
void
hint_setup_inputs(const struct strv *changed)
{
	const char	*p = changed->v[0];

	fprintf(stderr, "forge: hint: %s%s changed since the copy's setup "
	    "last ran, which did not run again, as forge.setupInputs does "
	    "not list %s: ", p, changed->n > 1 ? " (and more)" : "",
	    changed->n > 1 ? "them" : "it");
	if (plain_word(p))
		fprintf(stderr, "git config --add forge.setupInputs %s", p);
	else
		fprintf(stderr, "list it in forge.setupInputs");
	fprintf(stderr, " (or run setup once: forge verify --setup)\n");
}
