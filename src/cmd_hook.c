/* forge hook: install or remove the git hooks that run forge verify. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "forge.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "repo.h"
#include "spawn.h"
#include "strv.h"
#include "xmalloc.h"

static int	cmd_hook(int, char **);

const struct cmd_entry cmd_hook_entry = {
	"hook",
	"install pre-commit | pre-push [-- command [argument ...]]\n"
	"uninstall [pre-commit | pre-push]",
	"Install writes a git hook into the repository's hooks directory\n"
	"(core.hooksPath if set).  The pre-commit hook verifies what is being\n"
	"committed, with forge verify --isolated --staged --no-breaker; the\n"
	"pre-push hook each commit pushed, with\n"
	"forge verify --isolated --rev=commit --no-breaker.\n"
	"The hook runs the command given after --, written into it, and\n"
	"forge verify keeps its own steps; without one, the hook runs the\n"
	"forge.verify steps, and with none configured install refuses.\n"
	"Install refuses to overwrite a hook forge did not write; uninstall\n"
	"removes the hooks forge wrote, and the directories install made for\n"
	"them once empty, and nothing else.\n",
	NULL,
	cmd_hook
};

/* The line that tells forge's hooks from anyone else's. */
#define HOOK_MARK	"# forge hook: written by forge hook install; " \
			"forge hook uninstall removes it"
/* The line that says where its steps come from, which the hooks of
 * older forges lack. */
#define HOOK_STEPS	"# forge hook steps: "

static const char *const hook_names[] = { "pre-commit", "pre-push", NULL };

/* Each hook's run of forge verify, to which install adds -- and the
 * command given to it, if any; then what ends the hook. */
static const char *const hook_run[] = {
	/* pre-commit: the tree being committed, with git commit's index. */
	"exec \"$forge\" verify --isolated --staged --no-breaker",
	/* pre-push: each commit a ref is pushed to ("<local ref> <local
	 * oid> <remote ref> <remote oid>" a line; all zeros: a deletion). */
	"while read -r lref loid rref roid; do\n"
	"\tcase $loid in *[!0]*) ;; *) continue ;; esac\n"
	"\t\"$forge\" verify --isolated --rev=\"$loid\" --no-breaker"
};

static const char *const hook_end[] = {
	"\n",
	" </dev/null || exit\n"
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

/* Is the file at path a hook forge wrote?  1 yes (*older: by a forge
 * that kept its steps in git config), 0 no, -1 no file. */
static int
is_forge_hook(const char *path, int *older)
{
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	int		 r;

	*older = 0;
	if (lstat(path, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode) || fs_read_file(path, &b, 1 << 16) == -1)
		return 0;
	r = b.data != NULL && strstr(b.data, "\n" HOOK_MARK "\n") != NULL;
	*older = r && strstr(b.data, "\n" HOOK_STEPS) == NULL;
	buf_free(&b);
	return r;
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

/*
 * The directories install made for the hooks (core.hooksPath, and what
 * led to it), recorded in the repository's forge directory, so that
 * uninstall removes them and no directory it did not make: one record of
 * "dev ino path" each, NUL-terminated.  A directory is only ever removed
 * empty, and only while it is the very one made (same device and inode).
 */
static char *
dirs_record(const struct repo *r)
{
	return forgedir_hookdirs(r->common);
}

/* mkdir -p dir, adding each directory made to the record; -1 (errno) if
 * dir cannot be had. */
static int
make_dirs(const struct repo *r, const char *dir)
{
	struct stat	 st;
	struct buf	 rec = BUF_INIT;
	char		*p, *s, *path, *forge, c;
	int		 ret = 0, made = 0, saved;

	path = dirs_record(r);
	(void)fs_read_file(path, &rec, 1 << 20);
	p = xstrdup(dir);
	for (s = p + 1; ret == 0; s++) {
		if ((*s != '/' || s[1] == '/') && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0777) == 0 && lstat(p, &st) == 0) {
			buf_addf(&rec, "%llu %llu %s", (unsigned long long)
			    st.st_dev, (unsigned long long)st.st_ino, p);
			buf_addc(&rec, '\0');
			made = 1;
		} else if (errno != EEXIST)
			ret = -1;
		*s = c;
		if (c == '\0')
			break;
	}
	saved = errno;
	if (made) {
		forge = forgedir_root(r->common);
		if (fs_mkdirs(forge, 0777) == -1 ||
		    fs_write_atomic(path, rec.data, rec.len, 0666) == -1)
			warn("cannot record in %s the directories made for "
			    "the hooks", fs_vis(path));
		free(forge);
	}
	if (ret == 0 && (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode))) {
		saved = errno != 0 ? errno : ENOTDIR;
		ret = -1;
	}
	free(p);
	free(path);
	buf_free(&rec);
	errno = saved;
	return ret;
}

/* Remove the directories install made that are empty now, deepest
 * first; the record keeps those that stay. */
static int
remove_dirs(const struct repo *r)
{
	struct stat		 st;
	struct buf		 rec = BUF_INIT, keep = BUF_INIT;
	struct strv		 v = STRV_INIT;
	unsigned long long	 dev, ino;
	const char		*dir;
	char			*path;
	size_t			 i;
	int			 n, ret = 0, *stays;

	path = dirs_record(r);
	if (fs_read_file(path, &rec, 1 << 20) == -1) {
		free(path);
		return 0;
	}
	strv_split_z(&v, rec.data != NULL ? rec.data : "", rec.len);
	stays = xcalloc(v.n + 1, sizeof(*stays));
	/* Made in order, parents first: the last is the deepest. */
	for (i = v.n; i-- > 0;) {
		n = 0;
		if (sscanf(v.v[i], "%llu %llu %n", &dev, &ino, &n) != 2 ||
		    n == 0)
			continue;
		dir = v.v[i] + n;
		if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
		    st.st_dev != (dev_t)dev || st.st_ino != (ino_t)ino)
			continue;	/* not the one made: not ours */
		if (rmdir(dir) == 0)
			printf("removed %s, which install made\n", fs_vis(dir));
		else if (errno == ENOTEMPTY || errno == EEXIST)
			stays[i] = 1;	/* it holds someone's files */
		else {
			warn("cannot remove %s", fs_vis(dir));
			stays[i] = 1;
			ret = EXIT_FORGE;
		}
	}
	for (i = 0; i < v.n; i++)
		if (stays[i])
			buf_add(&keep, v.v[i], strlen(v.v[i]) + 1);
	if (keep.len == 0 ? unlink(path) == -1 && errno != ENOENT :
	    fs_write_atomic(path, keep.data, keep.len, 0666) == -1) {
		warn("cannot update %s", fs_vis(path));
		ret = EXIT_FORGE;
	}
	free(stays);
	strv_free(&v);
	free(path);
	buf_free(&rec);
	buf_free(&keep);
	return ret;
}

/*
 * The steps verify will find, from forge.verify's values as git lists
 * them (z: "value\0" each, or with origins "origin\0value\0"): an
 * empty value clears those before it.  Values that forge's own gits get
 * on their command line are not the user's.  The origins of the values
 * that stay go to from, once each.  1 if there was any value.
 */
static int
steps_of(const struct buf *z, int origins, struct strv *steps,
    struct strv *from)
{
	const char	*p, *end, *val, *o;
	int		 any = 0;

	strv_clear(steps);
	strv_clear(from);
	for (p = z->data, end = p + z->len; p != NULL && p < end;
	    p = val + strlen(val) + 1) {
		val = p;
		if (origins) {
			val = p + strlen(p) + 1;
			if (val >= end)
				break;
			if (strncmp(p, "command line:", 13) == 0)
				continue;
		}
		any = 1;
		if (*val == '\0') {
			strv_clear(steps);
			strv_clear(from);
			continue;
		}
		strv_push(steps, val);
		o = !origins ? NULL : strncmp(p, "file:", 5) == 0 ? p + 5 : p;
		if (o != NULL && (from->n == 0 ||
		    strcmp(from->v[from->n - 1], o) != 0))
			strv_push(from, o);
	}
	return any;
}

/* forge.verify as verify will read it: git config's values (every
 * scope), else those of the .forgeconfig that git tracks, as the index
 * holds it: what a commit's hook verifies with.  from: the files of git
 * config that set them, or none for the .forgeconfig. */
static void
configured_steps(const struct repo *r, struct strv *steps, struct strv *from)
{
	const char *const	 a[] = { "config", "-z", "--show-origin",
	    "--get-all", "forge.verify", NULL };
	const char *const	 t[] = { "config", "-z",
	    "--blob=:.forgeconfig", "--get-all", "forge.verify", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT;

	repo_git(r, &g);
	if (git_run(&g, a, 0, NULL, &out, NULL) != 0)
		buf_reset(&out);
	if (!steps_of(&out, 1, steps, from)) {
		buf_reset(&out);
		if (git_run(&g, t, 0, NULL, &out, NULL) != 0)
			buf_reset(&out);
		(void)steps_of(&out, 0, steps, from);
	}
	buf_free(&out);
}

/* A command given to install must be one verify can run, without a
 * shell: one that cannot be found would fail every commit.  0, or an
 * exit status (said why). */
static int
check_command(char *const *argv)
{
	char	*found;

	if ((found = spawn_which(argv[0], getenv("PATH"))) == NULL) {
		warnx("%s: command not found; for a shell command line, "
		    "give -- sh -c '...'", fs_vis(argv[0]));
		return EXIT_USAGE;
	}
	free(found);
	return 0;
}

/* Say which steps the hook runs, and where they come from. */
static void
say_steps(const struct repo *r, int k, char *const *argv)
{
	struct strv	 steps = STRV_INIT, from = STRV_INIT;
	char		*line, *files;

	if (argv != NULL) {
		line = strv_join_shell(argv);
		printf("it runs %s, as given here (forge verify's own steps "
		    "are unchanged)\n", fs_vis(line));
		free(line);
		return;
	}
	configured_steps(r, &steps, &from);
	line = strv_join(&steps, " && ");
	if (from.n > 0) {
		files = strv_join(&from, ", ");
		printf("it runs forge.verify's steps, from git config (%s): "
		    "%s\n", fs_vis(files), fs_vis(line));
		free(files);
	} else
		printf("it runs forge.verify's steps, from the .forgeconfig "
		    "each %s holds (now: %s)\n", k == 0 ? "commit" :
		    "commit pushed", fs_vis(line));
	free(line);
	strv_free(&steps);
	strv_free(&from);
}

/*
 * forge.verify's values in the repository's own git config, empty ones
 * too, into v; -1 if git cannot say (said why).
 */
static int
local_steps(const struct repo *r, struct strv *v)
{
	const char *const	 a[] = { "config", "--local", "-z",
	    "--get-all", "forge.verify", NULL };
	struct git		 g;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	const char		*p, *end;
	int			 st;

	repo_git(r, &g);
	strv_clear(v);
	if ((st = git_run(&g, a, 0, NULL, &out, &err)) != 0 && st != 1) {
		warnx("cannot read forge.verify in %s/config: %s",
		    fs_vis(r->common), git_why(&err, st));
		buf_free(&out);
		buf_free(&err);
		return -1;
	}
	for (p = out.data, end = p + out.len; st == 0 && p != NULL && p < end;
	    p += strlen(p) + 1)
		strv_push(v, p);
	buf_free(&out);
	buf_free(&err);
	return 0;
}

/*
 * An older forge wrote the command given to install into forge.verify,
 * in the repository's own git config, where every forge verify found
 * it, over a .forgeconfig's steps (and an empty value before it, when a
 * wider scope set forge.verify too).  Its hooks, without a step line,
 * still run those steps.  When no such hook is left, and the values are
 * what an older install of this same command wrote, they go; any other
 * values are left, and said, for only the user knows whose they are.
 */
static void
older_steps(const struct repo *r, char *const *argv, int hooks_left)
{
	const char *const	 a[] = { "config", "--local", "--unset-all",
	    "forge.verify", NULL };
	struct strv		 v = STRV_INIT;
	struct git		 g;
	struct buf		 err = BUF_INIT;
	char			*line = NULL, *now = NULL;
	int			 st;

	if (local_steps(r, &v) == -1 || v.n == 0)
		goto out;
	if (argv != NULL)
		line = strv_join_shell(argv);
	now = strv_join(&v, "' '");
	if (line != NULL && !hooks_left && strcmp(v.v[v.n - 1], line) == 0 &&
	    (v.n == 1 || (v.n == 2 && *v.v[0] == '\0'))) {
		repo_git(r, &g);
		if ((st = git_run(&g, a, 0, NULL, NULL, &err)) != 0)
			warnx("cannot unset forge.verify in %s/config: %s",
			    fs_vis(r->common), git_why(&err, st));
		else
			printf("removed forge.verify '%s' from %s/config, "
			    "where an older forge hook install put it: "
			    "forge verify takes its steps from .forgeconfig "
			    "or git config again\n", fs_vis(now),
			    fs_vis(r->common));
		goto out;
	}
	warnx("forge.verify '%s' in %s/config applies to every forge verify, "
	    "over a .forgeconfig's steps%s; if an older forge hook install "
	    "put it there, git config --local --unset-all forge.verify "
	    "removes it", fs_vis(now), fs_vis(r->common), hooks_left ?
	    ", and a hook an older forge wrote runs it: install that hook "
	    "again" : "");
out:
	free(line);
	free(now);
	strv_free(&v);
	buf_free(&err);
}

static void
hook_path_of(const struct repo *r, int k, char **dir, char **path)
{
	*dir = hooks_dir(r);
	*path = xasprintf("%s/%s", *dir, hook_names[k]);
}

/* Is a hook an older forge wrote still in place? */
static int
older_hook(const struct repo *r)
{
	char	*dir, *path;
	int	 k, older, found = 0;

	for (k = 0; hook_names[k] != NULL && !found; k++) {
		hook_path_of(r, k, &dir, &path);
		found = is_forge_hook(path, &older) == 1 && older;
		free(path);
		free(dir);
	}
	return found;
}

static int
install(const struct repo *r, int k, char *const *argv)
{
	struct strv	 steps = STRV_INIT, from = STRV_INIT;
	struct buf	 b = BUF_INIT;
	char		*dir, *path, *self, *line;
	int		 ret = 1, older;

	hook_path_of(r, k, &dir, &path);
	if (is_forge_hook(path, &older) == 0) {
		warnx("%s exists and is not forge's: leaving it as it is; "
		    "move it away, or have it run forge verify itself",
		    fs_vis(path));
		goto out;
	}
	/* A hook without steps would refuse every commit. */
	if (argv != NULL && (ret = check_command(argv)) != 0)
		goto out;
	if (argv == NULL)
		configured_steps(r, &steps, &from);
	if (argv == NULL && steps.n == 0) {
		warnx("no steps to verify: the %s hook would refuse every "
		    "%s; give them here (forge hook install %s -- make "
		    "check), or set forge.verify (git config forge.verify "
		    "'make check', or in a tracked .forgeconfig)",
		    hook_names[k], k == 0 ? "commit" : "push", hook_names[k]);
		ret = EXIT_USAGE;
		goto out;
	}
	if (make_dirs(r, dir) == -1) {
		warn("cannot create %s", fs_vis(dir));
		ret = EXIT_FORGE;
		goto out;
	}
	self = self_path();
	buf_adds(&b, "#!/bin/sh\n" HOOK_MARK "\n");
	buf_adds(&b, argv != NULL ? HOOK_STEPS "the command given to forge "
	    "hook install, below\n" : HOOK_STEPS "forge.verify's, from git "
	    "config or the .forgeconfig of the tree verified\n");
	buf_adds(&b, "forge=");
	sh_quote(&b, self);
	buf_adds(&b, "\ntest -x \"$forge\" || forge=forge\n");
	buf_adds(&b, hook_run[k]);
	/* Run as forge verify -- command runs it: without a shell. */
	if (argv != NULL) {
		line = strv_join_shell(argv);
		buf_adds(&b, " -- ");
		buf_adds(&b, line);
		free(line);
	}
	buf_adds(&b, hook_end[k]);
	free(self);
	if (fs_write_atomic(path, b.data, b.len, 0755) == -1) {
		warn("cannot write %s", fs_vis(path));
		ret = EXIT_FORGE;
		goto out;
	}
	printf("installed %s\n", fs_vis(path));
	say_steps(r, k, argv);
	if (older)
		older_steps(r, argv, older_hook(r));
	ret = 0;
out:
	strv_free(&steps);
	strv_free(&from);
	buf_free(&b);
	free(path);
	free(dir);
	return ret;
}

static int
uninstall(const struct repo *r, int k)
{
	char	*dir, *path;
	int	 ret = 0, f, older;

	hook_path_of(r, k, &dir, &path);
	if ((f = is_forge_hook(path, &older)) == 0) {
		warnx("%s is not forge's: leaving it as it is", fs_vis(path));
		ret = 1;
	} else if (f == 1 && unlink(path) == -1) {
		warn("cannot remove %s", fs_vis(path));
		ret = EXIT_FORGE;
	} else if (f == 1) {
		printf("removed %s\n", fs_vis(path));
		if (older && !older_hook(r))
			older_steps(r, NULL, 0);
	}
	free(path);
	free(dir);
	return ret;
}

static int
cmd_hook(int argc, char **argv)
{
	struct repo	 r;
	char		**command = NULL;
	int		 n, k, st = 0, s;

	switch (n = cmd_parse(&cmd_hook_entry, argc, argv, NULL)) {
	case CMD_HELP:
		cmd_help(&cmd_hook_entry);
		return 0;
	case -1:
		return EXIT_USAGE;
	}
	argc -= n;
	argv += n;
	/* install HOOK -- command ...: the steps. */
	if (argc > 3 && strcmp(argv[0], "install") == 0 &&
	    strcmp(argv[2], "--") == 0) {
		command = argv + 3;
		argc = 2;
	}
	if (argc < 1 || argc > 2 || (strcmp(argv[0], "install") != 0 &&
	    strcmp(argv[0], "uninstall") != 0) ||
	    (strcmp(argv[0], "install") == 0 && argc != 2)) {
		cmd_usage(&cmd_hook_entry);
		return EXIT_USAGE;
	}
	k = argc == 2 ? hook_index(argv[1]) : 0;
	if (k == -1)
		return EXIT_USAGE;
	if (repo_open(&r) == -1)
		return EXIT_FORGE;
	if (strcmp(argv[0], "install") == 0)
		st = install(&r, k, command);
	else {
		if (argc == 2)
			st = uninstall(&r, k);
		else
			for (k = 0; hook_names[k] != NULL; k++)
				if ((s = uninstall(&r, k)) != 0)
					st = s;
		/* Then what install made for them, once empty. */
		if ((s = remove_dirs(&r)) != 0 && st == 0)
			st = s;
	}
	repo_close(&r);
	return st;
}
