/* The digests of the files a copy's setup reads, listed and known. */
#include "config.h"

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "hash.h"
#include "lsfiles.h"
#include "setupin.h"
#include "xmalloc.h"

/* Read by setup steps of every common kind, wherever they are. */
static const char *const known[] = {
	"package.json", "package-lock.json", "npm-shrinkwrap.json",
	"yarn.lock", "pnpm-lock.yaml", "requirements*.txt",
	"constraints*.txt", "pyproject.toml", "setup.py", "setup.cfg",
	"Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "Cargo.toml",
	"Cargo.lock", "go.mod", "go.sum", "Gemfile", "Gemfile.lock",
	"configure.ac", "configure.in", "Makefile.am", "CMakeLists.txt",
	"meson.build", "composer.json", "composer.lock", NULL
};

/* A file's digest: its bytes, a symlink's target, or "-" if none. */
static void
digest_file(int top, const char *path, char *hex)
{
	struct hash	 h;
	struct stat	 st;
	unsigned char	 raw[HASH_MAX];
	char		 buf[65536];
	ssize_t		 n;
	int		 fd;

	strlcpy(hex, "-", 2);
	hash_init(&h, 32);
	if (fstatat(top, path, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(top, path, buf, sizeof(buf))) == -1)
			return;
		hash_update(&h, "link ", 5);
		hash_update(&h, buf, (size_t)n);
	} else {
		if (!S_ISREG(st.st_mode) || (fd = openat(top, path, O_RDONLY |
		    O_CLOEXEC | O_NOFOLLOW)) == -1)
			return;
		while ((n = read(fd, buf, sizeof(buf))) > 0 ||
		    (n == -1 && errno == EINTR))
			if (n > 0)
				hash_update(&h, buf, (size_t)n);
		close(fd);
		if (n == -1)
			return;
	}
	hash_final(&h, raw);
	hash_hex(raw, 32, hex);
}

/* Every file of the copy the pathspecs match, with its digest. */
static int
digest_specs(const char *copy, const struct strv *specs, struct buf *out)
{
	struct git	 g;
	struct strv	 a = STRV_INIT, paths = STRV_INIT;
	struct buf	 err = BUF_INIT;
	char		 hex[2 * HASH_MAX + 1];
	size_t		 i;
	int		 st, top, ret = -1;

	memset(&g, 0, sizeof(g));
	g.dir = copy;
	strv_push(&a, "--cached");
	strv_push(&a, "--others");
	strv_push(&a, "--exclude-standard");
	strv_push(&a, "--");
	for (i = 0; i < specs->n; i++)
		strv_pushf(&a, "%s%s", specs->v[i][0] == ':' ? "" :
		    ":(top,glob)", specs->v[i]);
	if ((st = lsfiles_paths(&g, (const char *const *)a.v, &paths,
	    &err)) != 0) {
		warnx("cannot list forge.setupInputs in the copy: %s",
		    git_why(&err, st));
		goto out;
	}
	if ((top = open(copy, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		warn("%s", fs_vis(copy));
		goto out;
	}
	strv_sort_uniq(&paths);
	for (i = 0; i < paths.n; i++) {
		digest_file(top, paths.v[i], hex);
		buf_addf(out, "%s %s\n", hex, fs_vis(paths.v[i]));
	}
	close(top);
	ret = 0;
out:
	strv_free(&a);
	strv_free(&paths);
	buf_free(&err);
	return ret;
}

int
setupin_digest(const char *copy, const struct strv *patterns,
    struct buf *out)
{
	return patterns->n == 0 ? 0 : digest_specs(copy, patterns, out);
}

int
setupin_known(const char *copy, struct buf *out)
{
	struct strv	specs = STRV_INIT;
	size_t		i;
	int		ret;

	for (i = 0; known[i] != NULL; i++)
		strv_pushf(&specs, "**/%s", known[i]);
	ret = digest_specs(copy, &specs, out);
	strv_free(&specs);
	return ret;
}

/* The lines of a list, each "<digest> <path>". */
static void
lines(const char *s, struct strv *v)
{
	const char	*nl;

	while (s != NULL && *s != '\0') {
		if ((nl = strchr(s, '\n')) == NULL)
			nl = s + strlen(s);
		if (nl > s)
			strv_pushn(v, s, (size_t)(nl - s));
		s = *nl != '\0' ? nl + 1 : nl;
	}
}

static const char *
path_of(const char *line)
{
	const char	*sp = strchr(line, ' ');

	return sp != NULL ? sp + 1 : line;
}

void
setupin_changed(const char *then, const char *now, struct strv *changed)
{
	struct strv	a = STRV_INIT, b = STRV_INIT;
	size_t		i, j;
	int		c;

	lines(then, &a);
	lines(now, &b);
	/* Both sorted by path: walk them side by side. */
	for (i = j = 0; i < a.n || j < b.n; ) {
		c = i == a.n ? 1 : j == b.n ? -1 :
		    strcmp(path_of(a.v[i]), path_of(b.v[j]));
		if (c == 0 && strcmp(a.v[i], b.v[j]) != 0)
			strv_push(changed, path_of(a.v[i]));
		if (c < 0)
			strv_push(changed, path_of(a.v[i]));
		if (c > 0)
			strv_push(changed, path_of(b.v[j]));
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	strv_free(&a);
	strv_free(&b);
}
