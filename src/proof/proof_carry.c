/* The indexes a proof carries to the next run, each sealed for its key. */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "sum.h"
#include "treeid.h"
#include "xmalloc.h"

/*
 * The seal, what the key file holds: the key, and what the index carried
 * with it was as forge left it -- its inode, size and times, to the
 * nanosecond (a change time nothing can set), and the checksum git wrote
 * at its end -- so that an index anything but forge changed since (a git
 * run with it for GIT_INDEX_FILE, a command writing beside its copy) is
 * not taken for the one forge carried.  Nothing of it is read but its
 * end: a digest of it all cost each run a few milliseconds per index.
 * NULL if the index cannot be looked at.
 */
static char *
seal_of(const char *key, const char *idx)
{
	struct stat	 st;
	struct sum	 s;
	unsigned char	 end[32];
	char		*prefix, *seal;
	int		 fd;

	if ((fd = open(idx, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(end) ||
	    pread(fd, end, sizeof(end), st.st_size - (off_t)sizeof(end)) !=
	    (ssize_t)sizeof(end)) {
		close(fd);
		return NULL;
	}
	close(fd);
	sum_init(&s);
	sum_add(&s, end, sizeof(end));
	prefix = xasprintf("%sindex %ju %ju %jd %jd.%09ld %jd.%09ld ", key,
	    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
	    (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
	    st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
	    st.st_ctim.tv_nsec);
	seal = sum_line(&s, prefix);
	free(prefix);
	return seal;
}

/* Does the key file at path seal idx for key -- is its seal one of the
 * file's lines? */
static int
seal_holds(const char *path, const char *key, const char *idx)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	const char	*line;
	char		*seal = NULL;
	size_t		 n;
	int		 ok = 0;

	if (lstat(idx, &st) == 0 && S_ISREG(st.st_mode) &&
	    fs_read_file(path, &b, 4096) == 0 && b.data != NULL &&
	    (seal = seal_of(key, idx)) != NULL) {
		/* Each seal is a line, its newline and all. */
		n = strlen(seal);
		for (line = b.data; !ok && *line != '\0';
		    line += strcspn(line, "\n") + (line[strcspn(line, "\n")] ==
		    '\n'))
			ok = strncmp(line, seal, n) == 0;
	}
	free(seal);
	buf_free(&b);
	return ok;
}

/* Seal idx for key, and for key2 too if not NULL, in the key file at
 * path: -1 if it cannot be. */
static int
seal_write(const char *path, const char *key, const char *key2,
    const char *idx)
{
	char	*seal, *seal2 = NULL, *both;
	int	 ret = -1;

	if ((seal = seal_of(key, idx)) == NULL ||
	    (key2 != NULL && (seal2 = seal_of(key2, idx)) == NULL))
		goto out;
	both = xasprintf("%s%s", seal, seal2 != NULL ? seal2 : "");
	ret = fs_write_atomic(path, both, strlen(both), 0600);
	free(both);
out:
	free(seal);
	free(seal2);
	return ret;
}

/* A file of a carried index, in the carry directory: side "src" (the
 * source's) or "dst" (the copy's), what "index" or "key" (its seal). */
char *
proof_carry_path(const struct rundir *rd, size_t id, const char *side,
    const char *what)
{
	return xasprintf("%s/%s%zu.%s", rd->carry, side, id, what);
}

/* The carried index of a side, if the last run left one for key. */
char *
proof_carry_find(const struct rundir *rd, size_t id, const char *side,
    const char *key)
{
	char	*path, *idx;

	path = proof_carry_path(rd, id, side, "key");
	idx = proof_carry_path(rd, id, side, "index");
	if (!seal_holds(path, key, idx)) {
		free(idx);
		idx = NULL;
	}
	free(path);
	return idx;
}

void
proof_carry_drop(const struct rundir *rd, size_t id, const char *side)
{
	char	*path;

	path = proof_carry_path(rd, id, side, "key");
	(void)unlink(path);
	free(path);
	path = proof_carry_path(rd, id, side, "index");
	(void)unlink(path);
	free(path);
	path = proof_carry_path(rd, id, side, "clock");
	(void)unlink(path);
	free(path);
}

/*
 * The clocks now, as one line: the boot's id, the real-time clock and
 * the boot-time clock (which no one sets) in nanoseconds.  -1 if the
 * boot cannot be told.
 */
static int
clocks(char *line, size_t n)
{
	struct timespec	 r, b;
	char		 boot[64];
	FILE		*f;
	int		 ok;

	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re")) == NULL)
		return -1;
	ok = fgets(boot, sizeof(boot), f) != NULL;
	fclose(f);
	if (!ok || clock_gettime(CLOCK_REALTIME, &r) == -1 ||
	    clock_gettime(CLOCK_BOOTTIME, &b) == -1)
		return -1;
	boot[strcspn(boot, "\n")] = '\0';
	snprintf(line, n, "%s %lld %lld\n", boot,
	    (long long)r.tv_sec * 1000000000LL + r.tv_nsec,
	    (long long)b.tv_sec * 1000000000LL + b.tv_nsec);
	return 0;
}

int
proof_carry_clock_steady(const struct rundir *rd, size_t id)
{
	struct buf	 b = BUF_INIT;
	char		 now[128], was_boot[64], now_boot[64], *path;
	long long	 r0, b0, r1, b1;
	int		 ok = 0;

	path = proof_carry_path(rd, id, "dst", "clock");
	if (fs_read_file(path, &b, 256) == 0 && clocks(now, sizeof(now)) == 0 &&
	    sscanf(buf_str(&b), "%63s %lld %lld", was_boot, &r0, &b0) == 3 &&
	    sscanf(now, "%63s %lld %lld", now_boot, &r1, &b1) == 3 &&
	    strcmp(was_boot, now_boot) == 0 &&
	    r1 - r0 >= b1 - b0 - 1000000000LL)
		ok = 1;
	free(path);
	buf_free(&b);
	return ok;
}

/*
 * The source's side of a reused copy's proof starts from the index the
 * last run's source side ended with, not from the source's own: git's
 * stat cache then spares every file that did not change since, untracked
 * ones included, where the source's index would have git read again
 * each file it differs from, every run.  That index is git add -A's from
 * an index with the same entries, which is what the key says; what it
 * says of a file is git's own stat cache, no more trusted than git
 * trusts it.  The untracked files are in the key too: git add -A would
 * keep the entry it made of one that has since become ignored.  When
 * the two sides differ, the source's side is computed again without it
 * before anything is said.
 */
/* Into s, for each gitlink of v, whether top has a directory there. */
static void
gitlinks_there(struct sum *s, const char *top, const struct strv *v)
{
	struct stat	 st;
	char		*p;
	size_t		 i;

	for (i = 0; i < v->n; i++) {
		p = xasprintf("%s/%s", top, lsfiles_entry_path(v->v[i]));
		sum_str(s, lstat(p, &st) == 0 && S_ISDIR(st.st_mode) ?
		    "dir" : "none");
		free(p);
	}
}

char *
proof_carry_src_key(const struct proof_repo *pr, const struct lsfiles *l,
    char **look)
{
	struct sum	 s, f;
	char		*key;

	sum_init(&s);
	sum_str(&s, pr->src);
	sum_str(&s, pr->gitdir);
	strv_sum(&l->flagged, &s, "flagged");
	strv_sum(&l->nested, &s, "nested");
	/* A submodule's commit, and whether its directory is there: git
	 * add -A keeps the entry it has of one not initialized, whatever
	 * the index says now, and never makes one again of an empty
	 * directory once it went. */
	strv_sum(&l->gitlinks, &s, "gitlinks");
	gitlinks_there(&s, pr->src, &l->gitlinks);
	/* A conflict's path resolved with git rm --cached leaves the
	 * entries as they were. */
	strv_sum(&l->conflicts, &s, "conflicts");
	strv_sum(pr->exclude, &s, "exclude");
	*look = sum_line(&s, "forge carry 6 look ");
	/* git add -A keeps an entry it made of an untracked file that has
	 * since become ignored, and an entry it found in the index it
	 * starts from: the same untracked files and entries, or none.  Not
	 * so the look (proof_look_take()), which removes what the carried
	 * index has that the working state has not, has git look at what
	 * it has that the index has not, and at every file whose stat data
	 * changed: what the working tree's index stages since changes
	 * nothing it sees. */
	sum_init(&f);
	sum_str(&f, *look);
	entlist_sum(pr->entries, &f, "entries");
	strv_sum(&l->untracked, &f, "untracked");
	key = sum_line(&f, "forge carry 6 ");
	return key;
}

/* Carry the source's side's index to the next run (if that fails, the
 * next run starts from the source's own). */
void
proof_carry_leave_src(struct proof *p)
{
	struct timespec	 t[2];
	char		*idx, *key;

	proof_carry_drop(p->rd, p->id, "src");
	if (p->src_key == NULL || (mkdir(p->rd->carry, 0700) == -1 &&
	    errno != EEXIST))
		return;
	idx = proof_carry_path(p->rd, p->id, "src", "index");
	key = proof_carry_path(p->rd, p->id, "src", "key");
	/* Timed as the source's side began: a file changed since then may
	 * have changed after git looked at it (proof_look_start()). */
	t[0].tv_sec = 0;
	t[0].tv_nsec = UTIME_OMIT;
	t[1] = p->src_since;
	if (treeid_keep(&p->src_job, idx) == 0 &&
	    (utimensat(AT_FDCWD, idx, t, 0) == -1 ||
	    seal_write(key, p->src_key, p->src_look_key, idx) == -1))
		(void)unlink(idx);
	free(idx);
	free(key);
}

/*
 * The copy's side of a reused copy can start from the index the last
 * run's copy's side ended with: git's stat cache of the copy's own files,
 * which the next run's git compares with each file as it then stands.
 * It is forge's, in the run's scratch space, never the copy's index that
 * the command sees and may rewrite; it has no flag that would make git
 * take an entry as it is, and its time is set when it is carried, so
 * that git looks again at every file as recent as that ("racily clean").
 * The key names the copy and how its side is computed.
 */
static char *
copy_key_of(const char *dst, int own_ignored, const struct strv *exclude)
{
	struct sum	 s;
	char		 m[16];
	mode_t		 mask;

	/* A file git's stat data says is untouched keeps the mode it was
	 * given under this umask (reuse.h's reuse_look_end()). */
	mask = fs_umask();
	snprintf(m, sizeof(m), "%o", (unsigned)mask);
	sum_init(&s);
	sum_str(&s, dst);
	sum_str(&s, own_ignored ? "own" : "none");
	strv_sum(exclude, &s, "exclude");
	sum_str(&s, m);
	return sum_line(&s, "forge carry copy 3 ");
}

static char *
copy_key(const struct proof *p)
{
	return copy_key_of(p->r.dst, p->r.own_ignored, p->r.exclude);
}

char *
proof_carry_copy_find(const struct proof *p)
{
	char	*key, *idx;

	key = copy_key(p);
	idx = proof_carry_find(p->rd, p->id, "dst", key);
	free(key);
	return idx;
}

char *
proof_carry_copy_index(struct rundir *rd, size_t id, const char *dst,
    int own_ignored, struct timespec *since)
{
	struct strv	 none = STRV_INIT;
	struct stat	 st;
	char		*key, *idx;

	key = copy_key_of(dst, own_ignored, &none);
	idx = proof_carry_find(rd, id, "dst", key);
	free(key);
	since->tv_sec = 0;
	since->tv_nsec = 0;
	if (idx != NULL && stat(idx, &st) == 0)
		*since = st.st_mtim;
	return idx;
}

/* Beside the copy's carried index, the clocks as it was timed: a
 * real-time clock set back since could stamp a directory changed after
 * it older than it (proof_carry_clock_steady()). */
static void
write_clocks(const struct proof *p)
{
	char	line[128], *path;

	if (clocks(line, sizeof(line)) == -1)
		return;
	path = proof_carry_path(p->rd, p->id, "dst", "clock");
	(void)fs_write_atomic(path, line, strlen(line), 0600);
	free(path);
}

/* Carry the index the copy's side ended with to the next run, timed
 * now: no later change to a file can look older. */
void
proof_carry_leave_copy(struct proof *p)
{
	struct timespec	 t[2];
	char		*idx, *key, *k;

	proof_carry_drop(p->rd, p->id, "dst");
	if (p->copy_index == NULL || p->r.sparse ||
	    (mkdir(p->rd->carry, 0700) == -1 && errno != EEXIST))
		return;
	idx = proof_carry_path(p->rd, p->id, "dst", "index");
	key = proof_carry_path(p->rd, p->id, "dst", "key");
	k = copy_key(p);
	t[0].tv_sec = 0;
	t[0].tv_nsec = UTIME_OMIT;
	clock_gettime(CLOCK_REALTIME_COARSE, &t[1]);
	fs_present(p->r.dst, &t[1]);
	if (rename(p->copy_index, idx) == -1 ||
	    utimensat(AT_FDCWD, idx, t, 0) == -1 ||
	    seal_write(key, k, NULL, idx) == -1)
		(void)unlink(idx);
	else
		write_clocks(p);
	free(p->copy_index);
	p->copy_index = NULL;
	free(idx);
	free(key);
	free(k);
}
