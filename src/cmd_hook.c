/*
 * forge hook: install or remove the git hooks that run forge verify on
 * what is being committed (pre-commit) or pushed (pre-push).
 */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "forge.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "repo.h"
#include "xmalloc.h"

static int	cmd_hook(int, char **);

const struct cmd_entry cmd_hook_entry = {
	"hook",
	"install pre-commit | pre-push\n"
	"uninstall [pre-commit | pre-push]",
	"Install writes a git hook into the repository's hooks directory\n"
	"(core.hooksPath if set).  The pre-commit hook verifies what is being\n"
	"committed, with forge verify --isolated --staged --no-breaker; the\n"
	"pre-push hook each commit pushed, with\n"
	"forge verify --isolated --rev=commit --no-breaker.\n"
	"Install refuses to overwrite a hook forge did not write; uninstall\n"
	"removes the hooks forge wrote, and nothing else.\n",
	NULL,
	cmd_hook
};

/* The line that tells forge's hooks from anyone else's. */
#define HOOK_MARK	"# forge hook: written by forge hook install; " \
			"forge hook uninstall removes it"

static const char *const hook_names[] = { "pre-commit", "pre-push", NULL };

static const char *const hook_bodies[] = {
	/* pre-commit: the tree being committed, with git commit's index. */
	"exec \"$forge\" verify --isolated --staged --no-breaker\n",
	/* pre-push: each commit a ref is pushed to ("<local ref> <local
	 * oid> <remote ref> <remote oid>" a line; all zeros: a deletion). */
	"while read -r lref loid rref roid; do\n"
	"\tcase $loid in *[!0]*) ;; *) continue ;; esac\n"
	"\t\"$forge\" verify --isolated --rev=\"$loid\" --no-breaker "
	"</dev/null || exit\n"
	"done\n"
	"exit 0\n"
};

/* The last value of core.hooksPath that git's configuration holds (not
 * forge's own -c, which points hooks at /dev/null), or NULL. */
static char *
hooks_path(const struct repo *r)
{
	const char *const	 a[] = { "config", "-z", "--show-origin",
	    "--get-all", "core.hooksPath", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;
	const char		*p, *end, *val;
	char			*found = NULL;

	repo_git(r, &g);
	(void)git_run(&g, a, 0, NULL, &out, NULL);
	/* "origin\0value\0" each. */
	for (p = out.data, end = p + out.len; p != NULL && p < end;
	    p = val + strlen(val) + 1) {
		val = p + strlen(p) + 1;
		if (val >= end)
			break;
		if (strncmp(p, "command line:", 13) == 0)
			continue;
		free(found);
		found = xstrdup(val);
	}
	buf_free(&out);
	return found;
}

/* The hooks directory: core.hooksPath (relative to the top, where git
 * runs hooks; ~/ is the home directory), else the common dir's hooks. */
static char *
hooks_dir(const struct repo *r)
{
	const char	*home;
	char		*hp, *dir;

	if ((hp = hooks_path(r)) == NULL || *hp == '\0') {
		free(hp);
		return xasprintf("%s/hooks", r->common);
	}
	if (hp[0] == '/')
		return hp;
	if (hp[0] == '~' && hp[1] == '/' && (home = getenv("HOME")) != NULL)
		dir = xasprintf("%s/%s", home, hp + 2);
	else
		dir = xasprintf("%s/%s", r->top, hp);
	free(hp);
	return dir;
}

static int
hook_index(const char *name)
{
	int	i;

	for (i = 0; hook_names[i] != NULL; i++)
		if (strcmp(hook_names[i], name) == 0)
			return i;
	warnx("%s: forge installs pre-commit or pre-push", fs_vis(name));
	return -1;
}

/* Is the file at path a hook forge wrote?  1 yes, 0 no, -1 no file. */
static int
is_forge_hook(const char *path)
{
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	int		 r;

	if (lstat(path, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode) || fs_read_file(path, &b, 1 << 16) == -1)
		return 0;
	r = b.data != NULL && strstr(b.data, "\n" HOOK_MARK "\n") != NULL;
	buf_free(&b);
	return r;
}

/* This forge, for the hook to run (else the one on PATH). */
static char *
self_path(void)
{
	char	buf[PATH_MAX];
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", buf, sizeof(buf) - 1)) <= 0)
		return xstrdup("forge");
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Quote s for sh, inside single quotes. */
static void
sh_quote(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

static int
install(const struct repo *r, int k)
{
	struct buf	 b = BUF_INIT;
	char		*dir, *path, *self;
	int		 ret = 1;

	dir = hooks_dir(r);
	path = xasprintf("%s/%s", dir, hook_names[k]);
	if (is_forge_hook(path) == 0) {
		warnx("%s exists and is not forge's: leaving it as it is; "
		    "move it away, or have it run forge verify itself",
		    fs_vis(path));
		goto out;
	}
	if (fs_mkdirs(dir, 0777) == -1) {
		warn("cannot create %s", fs_vis(dir));
		ret = EXIT_FORGE;
		goto out;
	}
	self = self_path();
	buf_adds(&b, "#!/bin/sh\n" HOOK_MARK "\n");
	buf_adds(&b, "forge=");
	sh_quote(&b, self);
	buf_adds(&b, "\ntest -x \"$forge\" || forge=forge\n");
	buf_adds(&b, hook_bodies[k]);
	free(self);
	if (fs_write_atomic(path, b.data, b.len, 0755) == -1) {
		warn("cannot write %s", fs_vis(path));
		ret = EXIT_FORGE;
		goto out;
	}
	printf("installed %s\n", fs_vis(path));
	ret = 0;
out:
	buf_free(&b);
	free(path);
	free(dir);
	return ret;
}

static int
uninstall(const struct repo *r, int k)
{
	char	*dir, *path;
	int	 ret = 0, f;

	dir = hooks_dir(r);
	path = xasprintf("%s/%s", dir, hook_names[k]);
	if ((f = is_forge_hook(path)) == 0) {
		warnx("%s is not forge's: leaving it as it is", fs_vis(path));
		ret = 1;
	} else if (f == 1 && unlink(path) == -1) {
		warn("cannot remove %s", fs_vis(path));
		ret = EXIT_FORGE;
	} else if (f == 1)
		printf("removed %s\n", fs_vis(path));
	free(path);
	free(dir);
	return ret;
}

static const struct option longopts[] = {
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

static int
cmd_hook(int argc, char **argv)
{
	struct repo	 r;
	int		 ch, k, st = 0, s;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			cmd_help(&cmd_hook_entry);
			return 0;
		default:
			cmd_usage(&cmd_hook_entry);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || (strcmp(argv[0], "install") != 0 &&
	    strcmp(argv[0], "uninstall") != 0) ||
	    (strcmp(argv[0], "install") == 0 && argc != 2)) {
		cmd_usage(&cmd_hook_entry);
		return EXIT_USAGE;
	}
	k = argc == 2 ? hook_index(argv[1]) : 0;
	if (k == -1)
		return EXIT_USAGE;
	if (git_init() == -1 || repo_open(&r) == -1)
		return EXIT_FORGE;
	if (strcmp(argv[0], "install") == 0)
		st = install(&r, k);
	else if (argc == 2)
		st = uninstall(&r, k);
	else
		for (k = 0; hook_names[k] != NULL; k++)
			if ((s = uninstall(&r, k)) != 0)
				st = s;
	repo_close(&r);
	return st;
}
