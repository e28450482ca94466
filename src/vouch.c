/* Files copied whole, proved by comparison with the source's (vouch.h). */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsutil.h"
#include "gitcmd.h"
#include "strv.h"
#include "vouch.h"
#include "xmalloc.h"

/* Compared so many bytes at a time, from each side. */
#define CHUNK	(256 * 1024)

static int	verbose;

void
vouch_configure(int v)
{
	verbose = v;
}

void
vouch_entries_free(struct vouch_entry *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].line);
	}
	free(v);
}

/* One "  name: a:b" or "  name: a\tname: b" line of --debug output. */
static int
debug_line(const char **pp, const char *end, const char *fmt,
    unsigned long long *a, unsigned long long *b)
{
	const char	*nl;
	char		*line;
	int		 r;

	if ((nl = memchr(*pp, '\n', (size_t)(end - *pp))) == NULL)
		return -1;
	line = xstrndup(*pp, (size_t)(nl - *pp));
	r = sscanf(line, fmt, a, b);
	free(line);
	*pp = nl + 1;
	return r == 2 ? 0 : -1;
}

int
vouch_parse(const char *p, size_t len, struct vouch_entry **out, size_t *nout)
{
	const char		*end = p + len, *nul, *tab;
	struct vouch_entry	*v = NULL, *e;
	unsigned long long	 a, b;
	unsigned		 mode, stage;
	size_t			 n = 0;
	char			 oid[65];

	while (p < end) {
		/* "mode oid stage\tpath", NUL, then five lines. */
		if ((nul = memchr(p, '\0', (size_t)(end - p))) == NULL ||
		    (tab = memchr(p, '\t', (size_t)(nul - p))) == NULL ||
		    sscanf(p, "%o %64[0-9a-f] %u", &mode, oid, &stage) != 3)
			goto bad;
		v = xreallocarray(v, n + 1, sizeof(*v));
		e = &v[n++];
		memset(e, 0, sizeof(*e));
		e->mode = stage == 0 ? mode : 0;
		e->path = xstrndup(tab + 1, (size_t)(nul - tab - 1));
		e->line = xasprintf("%06o %s\t%s", mode, oid, e->path);
		p = nul + 1;
		if (debug_line(&p, end, " ctime: %llu:%llu", &a, &b) == -1)
			goto bad;
		e->ctime_s = (long long)a;
		e->ctime_ns = (long long)b;
		if (debug_line(&p, end, " mtime: %llu:%llu", &a, &b) == -1)
			goto bad;
		e->mtime_s = (long long)a;
		e->mtime_ns = (long long)b;
		if (debug_line(&p, end, " dev: %llu ino: %llu", &a, &b) == -1)
			goto bad;
		e->dev = (uint32_t)a;
		e->ino = (uint32_t)b;
		if (debug_line(&p, end, " uid: %llu gid: %llu", &a, &b) == -1 ||
		    debug_line(&p, end, " size: %llu flags: %llx", &a, &b) ==
		    -1)
			goto bad;
		e->size = (uint32_t)a;
	}
	*out = v;
	*nout = n;
	return 0;
bad:
	vouch_entries_free(v, n);
	*out = NULL;
	*nout = 0;
	return -1;
}

/* Is st what git saw, as its index entry keeps it (32 bits of each, and
 * no nanoseconds where git keeps none)? */
static int
as_seen(const struct vouch_entry *e, const struct stat *st)
{
	int	ns = e->mtime_ns != 0 || e->ctime_ns != 0;

	return S_ISREG(st->st_mode) &&
	    (uint32_t)st->st_size == e->size &&
	    (uint32_t)st->st_ino == e->ino &&
	    (uint32_t)st->st_dev == e->dev &&
	    (uint32_t)st->st_mtim.tv_sec == (uint32_t)e->mtime_s &&
	    (uint32_t)st->st_ctim.tv_sec == (uint32_t)e->ctime_s &&
	    (!ns || (st->st_mtim.tv_nsec == e->mtime_ns &&
	    st->st_ctim.tv_nsec == e->ctime_ns));
}

/*
 * Was the file last changed well before git looked at it?  Then any
 * change since would have given it a later time: the file system's clock
 * moves in steps of a few milliseconds (seconds, where git keeps no
 * nanoseconds).
 */
static int
settled(const struct vouch_entry *e, const struct timespec *since)
{
	long long	m, s;

	if (e->mtime_ns == 0 && e->ctime_ns == 0)
		return e->mtime_s + 2 <= (long long)since->tv_sec;
	m = e->mtime_s * 1000000000LL + e->mtime_ns;
	s = (long long)since->tv_sec * 1000000000LL + since->tv_nsec;
	return m + 50000000LL <= s;
}

/* Open path below root, following no symlink on the way; its directory's
 * descriptor in *dir.  -1 if anything is not as expected. */
static int
open_below(int root, const char *path, int *dir)
{
	const char	*slash = strrchr(path, '/');
	char		*d;
	int		 fd;

	d = xstrndup(path, slash != NULL ? (size_t)(slash - path) : 0);
	*dir = fs_open_dir(root, d, 0, 0);
	free(d);
	if (*dir == -1)
		return -1;
	if ((fd = openat(*dir, slash != NULL ? slash + 1 : path, O_RDONLY |
	    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) == -1) {
		close(*dir);
		*dir = -1;
	}
	return fd;
}

/* Do two descriptors hold the same bytes, to their end? */
static int
same_bytes(int a, int b, char *ba, char *bb)
{
	ssize_t	na, nb, got;

	for (;;) {
		if ((na = read(a, ba, CHUNK)) == -1)
			return 0;
		/* b in as many bytes, however the reads split them. */
		for (nb = 0; nb < na; nb += got)
			if ((got = read(b, bb + nb, (size_t)(na - nb))) <= 0)
				return 0;
		if (na == 0)
			return read(b, bb, 1) == 0;
		if (memcmp(ba, bb, (size_t)na) != 0)
			return 0;
	}
}

/* Does the copy's file hold the blob e names? */
static int
proved(const struct vouch_entry *e, int sroot, int droot,
    const struct timespec *since, char *ba, char *bb)
{
	struct stat	st, dt;
	const char	*base;
	int		sdir = -1, ddir = -1, sfd, dfd = -1, ok = 0;

	if ((e->mode != 0100644 && e->mode != 0100755) || !settled(e, since))
		return 0;
	base = strrchr(e->path, '/') != NULL ? strrchr(e->path, '/') + 1 :
	    e->path;
	if ((sfd = open_below(sroot, e->path, &sdir)) == -1)
		return 0;
	if ((dfd = open_below(droot, e->path, &ddir)) == -1 ||
	    fstat(sfd, &st) == -1 || !as_seen(e, &st) ||
	    fstat(dfd, &dt) == -1 || !S_ISREG(dt.st_mode) ||
	    dt.st_size != st.st_size ||
	    ((dt.st_mode & S_IXUSR) != 0) != (e->mode == 0100755))
		goto out;
	if (!same_bytes(sfd, dfd, ba, bb))
		goto out;
	/* Unchanged while it was read, and still the file at that name. */
	ok = fstat(sfd, &st) == 0 && as_seen(e, &st) &&
	    fstatat(sdir, base, &dt, AT_SYMLINK_NOFOLLOW) == 0 &&
	    dt.st_ino == st.st_ino && dt.st_dev == st.st_dev;
out:
	close(sfd);
	if (dfd != -1)
		close(dfd);
	if (sdir != -1)
		close(sdir);
	if (ddir != -1)
		close(ddir);
	return ok;
}

size_t
vouch(const struct git *src, const char *stop, const char *dtop,
    const char *rel, const struct strv *paths, const struct timespec *since,
    struct strv *edits, struct strv *exclude)
{
	struct strv		 args = STRV_INIT;
	struct buf		 out = BUF_INIT;
	struct vouch_entry	*v = NULL;
	size_t			 i, nv = 0, n = 0;
	char			*ba = NULL, *bb = NULL;
	int			 sroot = -1, droot = -1;

	if (paths == NULL || paths->n == 0)
		return 0;
	strv_push(&args, "ls-files");
	strv_push(&args, "-s");
	strv_push(&args, "--debug");
	strv_push(&args, "-z");
	strv_push(&args, "--");
	for (i = 0; i < paths->n; i++)
		strv_pushf(&args, ":(literal)%s", paths->v[i]);
	if (git_run(src, (const char *const *)args.v, 0, NULL, &out, NULL) !=
	    0 || vouch_parse(out.data != NULL ? out.data : "", out.len, &v,
	    &nv) == -1)
		goto out;
	if ((sroot = open(stop, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (droot = open(dtop, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		goto out;
	ba = xmalloc(CHUNK);
	bb = xmalloc(CHUNK);
	for (i = 0; i < nv; i++) {
		if (!proved(&v[i], sroot, droot, since, ba, bb))
			continue;
		strv_push(edits, v[i].line);
		strv_push(exclude, v[i].path);
		n++;
		if (verbose)
			fprintf(stderr, "forge: proved by comparison with the "
			    "source, not hashed again: %s%s\n", fs_vis(rel),
			    fs_vis(v[i].path));
	}
out:
	if (sroot != -1)
		close(sroot);
	if (droot != -1)
		close(droot);
	free(ba);
	free(bb);
	vouch_entries_free(v, nv);
	strv_free(&args);
	buf_free(&out);
	return n;
}
