/* Discovery of the repository forge works on, through git rev-parse. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "fs_vis.h"
#include "repo.h"
#include "xmalloc.h"

void
repo_git(const struct repo *r, struct git *g)
{
	memset(g, 0, sizeof(*g));
	g->dir = r->top;
	g->gitdir = r->gitdir;
	g->worktree = r->top;
	g->index = r->index;
}

char *
repo_index_path(const struct repo *r)
{
	if (r->index != NULL)
		return xstrdup(r->index);
	return xasprintf("%s/index", r->gitdir);
}

/* The one object id spec names, or NULL. */
static char *
rev_parse_id(const struct repo *r, const char *spec)
{
	struct git	 g;
	struct buf	 out = BUF_INIT;
	int		 st;

	repo_git(r, &g);
	{
		const char *const	a[] = { "rev-parse", "--verify", "-q",
		    "--end-of-options", spec, NULL };

		st = git_run(&g, a, 0, NULL, &out, NULL);
	}
	buf_rtrim(&out);
	/* One id, and nothing else: a range or a negation that slipped
	 * through prints "^id" or several lines, and git 2.39 exits 0
	 * after some of them. */
	if (st != 0 || (out.len != 40 && out.len != 64) ||
	    strspn(out.data, "0123456789abcdef") != out.len) {
		buf_free(&out);
		/* --verify -q says 1, and nothing, for what names no commit;
		 * anything else is a git that could not answer (said by
		 * git_run() if it could not be run). */
		if (st > 1)
			warnx("cannot resolve %s: git rev-parse: exit status "
			    "%d", fs_vis(spec), st);
		errno = st == 0 || st == 1 ? ENOENT : EIO;
		return NULL;
	}
	return buf_detach(&out);
}

char *
repo_resolve_commit(const struct repo *r, const char *rev)
{
	char	*spec, *id = NULL, *c;

	/* ":/text" takes all that follows for its pattern, a "^{commit}"
	 * too: the object it names is peeled on its own. */
	if (strncmp(rev, ":/", 2) == 0) {
		if ((id = rev_parse_id(r, rev)) == NULL)
			return NULL;
		rev = id;
	}
	spec = xasprintf("%s^{commit}", rev);
	c = rev_parse_id(r, spec);
	free(spec);
	free(id);
	return c;
}

enum rev_kind
repo_rev_kind(const char *rev)
{
	const char	*p, *close;
	size_t		 n;

	if (*rev == '\0')
		return REV_EMPTY;
	if (*rev == '-')
		return REV_OPTION;
	if (*rev == '^')
		return REV_NEGATED;
	for (p = rev; *p != '\0'; p++) {
		/* A path, an index entry, or a message search: no more
		 * revision syntax after it. */
		if (*p == ':')
			return REV_ONE;
		if (*p == '{' && p > rev && (p[-1] == '@' || p[-1] == '^')) {
			/* A regular expression may hold anything. */
			if (p[-1] == '^' && p[1] == '/')
				return REV_ONE;
			if ((close = strchr(p, '}')) == NULL)
				return REV_ONE;
			p = close;
			continue;
		}
		if (p[0] == '.' && p[1] == '.')
			return REV_RANGE;
	}
	n = (size_t)(p - rev);
	if (n >= 2 && (strcmp(p - 2, "^@") == 0 || strcmp(p - 2, "^!") == 0))
		return REV_PARENTS;
	/* A^- and A^-N: A^N..A. */
	for (p = rev; (p = strstr(p, "^-")) != NULL; p += 2)
		if (strspn(p + 2, "0123456789") == strlen(p + 2))
			return REV_PARENTS;
	return REV_ONE;
}

const char *
repo_rev_kind_name(enum rev_kind k)
{
	switch (k) {
	case REV_ONE:
		return "one revision";
	case REV_EMPTY:
		return "empty";
	case REV_OPTION:
		return "an option, not a revision";
	case REV_NEGATED:
		return "a negation (^A)";
	case REV_RANGE:
		return "a range (A..B, A...B)";
	case REV_PARENTS:
		return "several commits (A^@, A^!, A^-)";
	}
	return "not one revision";
}

/*
 * rev-parse's options for the git dir and the common dir: absolute on
 * every git.  An older git prints --path-format=absolute back as a line,
 * and gives relative paths without a word (see absolute_in()).
 */
static void
dir_args(struct strv *a)
{
	strv_push(a, "rev-parse");
	if (git_has(GIT_PATH_FORMAT)) {
		strv_push(a, "--path-format=absolute");
		strv_push(a, "--git-dir");
	} else
		strv_push(a, "--absolute-git-dir");
	strv_push(a, "--git-common-dir");
}

/* A path git printed, relative to dir (NULL: here), made absolute and
 * real, as --path-format=absolute would have printed it. */
static char *
absolute_in(const char *dir, const char *p)
{
	char	*joined, *real;

	if (*p == '/')
		joined = xstrdup(p);
	else if (dir != NULL)
		joined = xasprintf("%s/%s", dir, p);
	else
		joined = fs_path_absolute(p);
	if ((real = realpath(joined, NULL)) == NULL)
		return joined;
	free(joined);
	return real;
}

/* One object id in hex, and nothing else. */
static int
is_id(const char *s)
{
	size_t	n = strlen(s);

	return (n == 40 || n == 64) && strspn(s, "0123456789abcdef") == n;
}

/* Take the next line of a rev-parse answer. */
static char *
next_line(char **p)
{
	char	*line;

	if (*p == NULL)
		return NULL;
	line = strsep(p, "\n");
	return line;
}

/*
 * Where the repository is, and its commit, asked with git's own
 * questions (git_init_with()): rev-parse without --path-format, which
 * git_init() has yet to learn git has, the paths made absolute here.
 * Its commit is taken from that run only where the caller's
 * environment sets no repository-local variable (which that run keeps,
 * and forge's others drop); else, and where it has none, asked again
 * (repo_resolve_commit(), which tells no commit from a git that
 * failed).
 */
int
repo_open(struct repo *r)
{
	const char *const	 a[] = { "rev-parse", "--absolute-git-dir",
	    "--git-common-dir", "--is-bare-repository",
	    "--is-inside-work-tree", "--show-prefix", "--show-toplevel",
	    "-q", "--verify", "HEAD^{commit}", NULL };
	struct buf		 out = BUF_INIT, errb = BUF_INIT;
	/* The caller's GIT_DIR and GIT_WORK_TREE count here, and only
	 * here. */
	struct git_call		 c = { NULL, a, GIT_USER_ENV, &out, &errb, 0 };
	char			*p, *gitdir, *common, *bare, *inside;
	char			*prefix, *top, *head, *idx;
	int			 ret = -1, st;

	memset(r, 0, sizeof(*r));
	if (git_init_with(&c, 1) == -1)
		goto out;
	if ((st = c.status) == -1)
		goto out;
	p = out.data;
	gitdir = next_line(&p);
	common = next_line(&p);
	bare = next_line(&p);
	inside = next_line(&p);
	prefix = next_line(&p);
	top = next_line(&p);
	head = st == 0 ? next_line(&p) : NULL;
	if (gitdir == NULL || *gitdir == '\0' || common == NULL ||
	    bare == NULL || inside == NULL) {
		buf_rtrim(&errb);
		if (strstr(errb.data != NULL ? errb.data : "",
		    "not a git repository") != NULL)
			warnx("not a git repository (or any parent up to "
			    "the mount point): forge verifies a git working "
			    "tree");
		else if (errb.len > 0)
			warnx("cannot find the repository: %s", errb.data);
		else
			warnx("cannot find the repository: git rev-parse "
			    "exited with status %d", st);
		goto out;
	}
	if (strcmp(bare, "true") == 0) {
		warnx("%s is a bare repository: forge needs a working tree",
		    gitdir);
		goto out;
	}
	if (strcmp(inside, "true") != 0 || top == NULL || *top == '\0') {
		warnx("not inside a working tree (inside %s?): run forge "
		    "from the working tree", gitdir);
		goto out;
	}
	if (p != NULL && *p != '\0') {
		warnx("the repository's path holds a newline; forge cannot "
		    "work on it");
		goto out;
	}
	r->gitdir = absolute_in(NULL, gitdir);
	r->common = absolute_in(NULL, common);
	r->prefix = xstrdup(prefix);
	r->top = xstrdup(top);
	r->objects = xasprintf("%s/objects", r->common);
	/* Relative, it is relative to the top, where git works. */
	if ((idx = getenv("GIT_INDEX_FILE")) != NULL && *idx != '\0')
		r->index = *idx == '/' ? xstrdup(idx) :
		    xasprintf("%s/%s", r->top, idx);
	if (head != NULL && !git_user_env_local() && is_id(head))
		r->head = xstrdup(head);
	else if ((r->head = repo_resolve_commit(r, "HEAD")) == NULL) {
		if (errno == ENOENT)
			warnx("%s has no commit yet: forge verifies from "
			    "HEAD, so commit something first", r->top);
		goto out;
	}
	ret = 0;
out:
	if (ret == -1)
		repo_close(r);
	buf_free(&out);
	buf_free(&errb);
	return ret;
}

void
repo_close(struct repo *r)
{
	free(r->top);
	free(r->gitdir);
	free(r->common);
	free(r->objects);
	free(r->prefix);
	free(r->head);
	free(r->index);
	memset(r, 0, sizeof(*r));
}

int
repo_nested(const char *dir, char **gitdir, char **common, char **head)
{
	struct strv	 a = STRV_INIT;
	struct stat	 st;
	struct git	 g;
	struct buf	 out = BUF_INIT;
	char		*p, *top, *gd, *cd, *h;
	int		 ret = -1;

	/* No directory there (a submodule the working tree has none of):
	 * no repository, and no git to fail to run in it. */
	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
		return -1;
	memset(&g, 0, sizeof(g));
	g.dir = dir;
	/* Where it is, and its commit, in one run: without one (HEAD
	 * unborn), git fails. */
	dir_args(&a);
	strv_push(&a, "--show-toplevel");
	strv_push(&a, "-q");
	strv_push(&a, "--verify");
	strv_push(&a, "HEAD^{commit}");
	if (git_run(&g, (const char *const *)a.v, 0, NULL, &out, NULL) != 0)
		goto out;
	p = out.data;
	gd = strsep(&p, "\n");
	cd = strsep(&p, "\n");
	top = strsep(&p, "\n");
	h = strsep(&p, "\n");
	if (h == NULL || *h == '\0' || (p != NULL && *p != '\0') ||
	    strcmp(top, dir) != 0)
		goto out;
	*gitdir = absolute_in(dir, gd);
	*common = absolute_in(dir, cd);
	*head = xstrdup(h);
	ret = 0;
out:
	strv_free(&a);
	buf_free(&out);
	return ret;
}

