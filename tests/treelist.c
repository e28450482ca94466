/*
 * treelist: print a manifest of a directory tree, one line per entry,
 * sorted by path, for tests to compare trees byte for byte.
 *
 *	treelist [-a] [-m] dir		walk dir, skipping every .git entry
 *	treelist [-a] [-m] -L dir	only the NUL-separated paths (relative
 *					to dir) read from stdin that exist
 *
 * A line is "path<TAB>type<TAB>mode<TAB>size<TAB>content", where type is
 * f (file), l (symlink), d (directory, with -a only), p, s, c or b;
 * content is an FNV-1a hash of the file or the link's target; -m adds the
 * mtime in nanoseconds.  Paths and targets are escaped (\ooo for bytes
 * outside printable ASCII, and for backslash) so any name fits a line.
 * Anything it cannot read or write (a directory it cannot read to its
 * end, a manifest it cannot print whole) exits 2, never a shorter list.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	 opt_all, opt_mtime;
static char	**lines;
static size_t	 nlines, caplines;

static void
add_line(char *s)
{
	if (nlines == caplines) {
		caplines = caplines ? caplines * 2 : 256;
		if ((lines = reallocarray(lines, caplines, sizeof(*lines))) ==
		    NULL)
			err(2, NULL);
	}
	lines[nlines++] = s;
}

static void
escape(FILE *fp, const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		unsigned char	c = (unsigned char)s[i];

		if (c < 0x21 || c > 0x7e || c == '\\')
			fprintf(fp, "\\%03o", c);
		else
			fputc(c, fp);
	}
}

static uint64_t
hash_fd(int fd)
{
	unsigned char	buf[65536];
	uint64_t	h = 1469598103934665603ULL;
	ssize_t		n, i;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 1099511628211ULL;
		}
	if (n == -1)
		err(2, "read");
	return h;
}

static void
entry(const char *root, const char *rel)
{
	struct stat	 st;
	char		*path, *out = NULL, target[8192];
	size_t		 outlen = 0;
	FILE		*fp;
	ssize_t		 n;
	int		 fd;
	char		 type;

	if (asprintf(&path, "%s/%s", root, rel) == -1)
		err(2, NULL);
	if (lstat(path, &st) == -1) {
		if (errno != ENOENT && errno != ENOTDIR)
			err(2, "%s", path);
		free(path);
		return;
	}
	if (S_ISDIR(st.st_mode) && !opt_all) {
		free(path);
		return;
	}
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		err(2, NULL);
	escape(fp, rel, strlen(rel));
	type = S_ISREG(st.st_mode) ? 'f' : S_ISLNK(st.st_mode) ? 'l' :
	    S_ISDIR(st.st_mode) ? 'd' : S_ISFIFO(st.st_mode) ? 'p' :
	    S_ISSOCK(st.st_mode) ? 's' : S_ISCHR(st.st_mode) ? 'c' : 'b';
	fprintf(fp, "\t%c\t%04o", type, (unsigned)(st.st_mode & 07777));
	if (type == 'f') {
		if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1)
			err(2, "%s", path);
		fprintf(fp, "\t%jd\t%016" PRIx64, (intmax_t)st.st_size,
		    hash_fd(fd));
		close(fd);
	} else if (type == 'l') {
		if ((n = readlink(path, target, sizeof(target))) == -1)
			err(2, "%s", path);
		fprintf(fp, "\t%zd\t", n);
		escape(fp, target, (size_t)n);
	} else
		fprintf(fp, "\t-\t-");
	if (opt_mtime)
		fprintf(fp, "\t%jd.%09ld", (intmax_t)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec);
	fclose(fp);
	add_line(out);
	free(path);
}

static void
walk(const char *root, const char *rel)
{
	struct dirent	*de;
	DIR		*d;
	char		*dir, *sub;

	if (asprintf(&dir, "%s%s%s", root, *rel ? "/" : "", rel) == -1)
		err(2, NULL);
	if ((d = opendir(dir)) == NULL)
		err(2, "%s", dir);
	/* A directory that cannot be read to its end is an error, not a
	 * shorter manifest. */
	while ((errno = 0, de = readdir(d)) != NULL) {
		struct stat	st;
		char		*full;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, ".git") == 0)
			continue;
		if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "",
		    de->d_name) == -1 ||
		    asprintf(&full, "%s/%s", dir, de->d_name) == -1)
			err(2, NULL);
		entry(root, sub);
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
			walk(root, sub);
		free(sub);
		free(full);
	}
	if (errno != 0)
		err(2, "%s", dir);
	closedir(d);
	free(dir);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char *argv[])
{
	char	*buf = NULL;
	size_t	 cap = 0, i;
	ssize_t	 n;
	int	 ch, list = 0;

	while ((ch = getopt(argc, argv, "amL")) != -1) {
		switch (ch) {
		case 'a':
			opt_all = 1;
			break;
		case 'm':
			opt_mtime = 1;
			break;
		case 'L':
			list = 1;
			break;
		default:
			fprintf(stderr, "usage: treelist [-a] [-m] [-L] dir\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: treelist [-a] [-m] [-L] dir\n");
		return 2;
	}
	if (list) {
		while ((n = getdelim(&buf, &cap, '\0', stdin)) > 0) {
			if (buf[n - 1] == '\0')
				n--;
			buf[n] = '\0';
			if (n > 0)
				entry(argv[optind], buf);
		}
		free(buf);
	} else
		walk(argv[optind], "");
	qsort(lines, nlines, sizeof(*lines), cmp);
	for (i = 0; i < nlines; i++) {
		/* A path listed twice (an unmerged entry) prints once. */
		if (i == 0 || strcmp(lines[i], lines[i - 1]) != 0)
			puts(lines[i]);
	}
	for (i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return 0;
}
