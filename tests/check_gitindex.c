/*
 * gitindex.c, against index files the real git writes: versions 2 and 4,
 * SHA-1 and SHA-256, long and shared-prefix paths, symlinks, the entries
 * it refuses (flags, conflicts, a split index), every cut-short or
 * altered copy of a good one, and when a file is stale against its entry.
 */
#include "config.h"

#include "unit.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "gitindex.h"
#include "strv.h"
#include "unitfs.h"

static char	*repo, *index_path;

/* A time of whole seconds, for gitindex_stale(). */
#define SINCE(sec)	(&(struct timespec){ (sec), 0 })

/* repo, a new directory for a repository, and its index_path. */
static void
repo_dir(const char *name)
{
	char	*base;

	base = unitfs_dir(name);
	free(repo);
	free(index_path);
	ck_assert_int_ne(asprintf(&repo, "%s/repo", base), -1);
	ck_assert_int_ne(asprintf(&index_path, "%s/.git/index", repo), -1);
	free(base);
	ck_assert_int_eq(fs_mkdirs(repo, 0755), 0);
}

/* A repository (of object format fmt) with these files added: a, b/c,
 * b/cd (a shared prefix), an executable, a symlink, and a path longer
 * than the 12 bits of an entry's name length. */
static void
setup_repo(const char *fmt)
{
	char	long_name[4096];
	size_t	i;

	repo_dir("g");
	free(unitfs_sh_in(repo, "git init -q %s%s . && "
	    "mkdir -p b d1/d2/d3/d4/d5/d6/d7/d8 && printf a >a && "
	    "printf cc >b/c && printf ccc >b/cd && printf x >x && "
	    "printf deep >d1/d2/d3/d4/d5/d6/d7/d8/deep && "
	    "chmod 755 x && ln -s a l && : >empty", fmt != NULL ?
	    "--object-format=" : "", fmt != NULL ? fmt : ""));
	/* 4,095 bytes: past the 12 bits of an entry's name length, and a
	 * path the system takes (relative, as git has it). */
	for (i = 0; i < 4095; i++)
		long_name[i] = i >= 4000 ? 'f' : i % 100 == 99 ? '/' : 'd';
	long_name[4095] = '\0';
	long_name[3999] = '\0';
	free(unitfs_sh_in(repo, "mkdir -p %s", long_name));
	long_name[3999] = '/';
	free(unitfs_sh_in(repo, "printf long >%s && git add -A", long_name));
}

/* setup_repo()'s index, in index version v, read whole into b. */
static void
index_of_version(int v, struct buf *b)
{
	setup_repo(NULL);
	free(unitfs_sh_in(repo, "git update-index --index-version %d", v));
	buf_reset(b);
	ck_assert_int_eq(fs_read_file(index_path, b, 1 << 20), 0);
}

/* Every entry as git lists it, with its mode: "mode path" lines. */
static char *
git_list(void)
{
	return unitfs_sh_in(repo, "git ls-files -s | "
	    "sed 's/ [0-9a-f]* 0\t/ /'");
}

/* The index read, against git's list and each file's lstat. */
static void
check_index(size_t rawsz)
{
	struct gitindex	 ix;
	struct stat	 st, ist;
	struct buf	 b = BUF_INIT;
	char		*want;
	size_t		 i;

	ck_assert_int_eq(chdir(repo), 0);
	ck_assert_int_eq(gitindex_read(&ix, index_path, rawsz), 0);
	for (i = 0; i < ix.n; i++) {
		buf_addf(&b, "%s%o %s", i > 0 ? "\n" : "",
		    (unsigned)ix.v[i].mode, ix.v[i].path);
		/* Relative, as git has them: the long one is too long for
		 * the system whole. */
		ck_assert_int_eq(lstat(ix.v[i].path, &st), 0);
		ck_assert_uint_eq(ix.v[i].ino, (uint32_t)st.st_ino);
		ck_assert_uint_eq(ix.v[i].mtime, (uint32_t)st.st_mtime);
		ck_assert_uint_eq(ix.v[i].ctime, (uint32_t)st.st_ctime);
		ck_assert_uint_eq(ix.v[i].size, (uint32_t)st.st_size);
		ck_assert_uint_eq(ix.v[i].uid, (uint32_t)st.st_uid);
		ck_assert_ptr_eq(gitindex_find(&ix, ix.v[i].path), &ix.v[i]);
		/* Not stale against a time later than the file's, unless
		 * empty (git keeps 0 for a file it must look at again). */
		ck_assert_int_eq(gitindex_stale(&ix.v[i], &st,
		    SINCE((st.st_mtime > st.st_ctime ? st.st_mtime :
		    st.st_ctime) + 1)), st.st_size == 0 ? 2 : 0);
	}
	ck_assert_ptr_null(gitindex_find(&ix, "b"));
	ck_assert_ptr_null(gitindex_find(&ix, "zz"));
	want = git_list();
	buf_str(&b);
	ck_assert_str_eq(b.data, want);
	ck_assert_uint_eq(ix.n, 8);
	ck_assert_int_eq(lstat(index_path, &ist), 0);
	free(want);
	buf_free(&b);
	gitindex_free(&ix);
}

START_TEST(t_v2)
{
	setup_repo(NULL);
	free(unitfs_sh_in(repo, "git update-index --index-version 2"));
	check_index(20);
}
END_TEST

START_TEST(t_v4)
{
	setup_repo(NULL);
	free(unitfs_sh_in(repo, "git update-index --index-version 4"));
	check_index(20);
}
END_TEST

START_TEST(t_sha256)
{
	struct gitindex	 ix;
	char		*probe, *cmd;
	int		 r;

	/* git 2.29 on: before, no SHA-256 repository to read. */
	probe = unitfs_dir("probe");
	ck_assert_int_ne(asprintf(&cmd, "git init -q --object-format=sha256 "
	    "'%s' >/dev/null 2>&1", probe), -1);
	r = system(cmd);
	free(cmd);
	free(probe);
	if (r != 0)
		return;
	setup_repo("sha256");
	check_index(32);
	free(unitfs_sh_in(repo, "git update-index --index-version 4"));
	check_index(32);
	/* Read as SHA-1, it is no index. */
	ck_assert_int_eq(gitindex_read(&ix, index_path, 20), -1);
}
END_TEST

/* Entries git would not take at their stat data, and split indexes:
 * refused. */
START_TEST(t_refused)
{
	static const char *const how[] = {
		"git update-index --assume-unchanged a",
		"git update-index --skip-worktree a",
		"git rm -q --cached b/c && git add -N b/c",
		"git update-index --split-index",
		"printf 'x\\n' >c && git update-index --add --cacheinfo "
		"100644,$(git hash-object -w c),c && "
		"git update-index --index-info <<EOF\n"
		"0 0000000000000000000000000000000000000000\tc\n"
		"100644 $(git hash-object -w a) 1\tc\n"
		"100644 $(git hash-object -w x) 2\tc\n"
		"EOF",
		NULL
	};
	struct gitindex	 ix;
	size_t		 i, n;

	for (i = 0; how[i] != NULL; i++) {
		setup_repo(NULL);
		ck_assert_int_eq(gitindex_read(&ix, index_path, 20), 0);
		gitindex_free(&ix);
		n = 0;
		ck_assert_int_eq(gitindex_count(index_path, 20, &n), 0);
		ck_assert_uint_eq(n, 8);
		free(unitfs_sh_in(repo, "%s", how[i]));
		errno = 0;
		ck_assert_msg(gitindex_read(&ix, index_path, 20) == -1,
		    "read after %s", how[i]);
		ck_assert_int_eq(errno, EINVAL);
		/* Nor counted: a split index's entries are not all in it. */
		errno = 0;
		ck_assert_msg(gitindex_count(index_path, 20, &n) == -1,
		    "counted after %s", how[i]);
		ck_assert_int_eq(errno, EINVAL);
	}
	ck_assert_int_eq(gitindex_read(&ix, "/nonexistent/index", 20), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* The reserved bit of an entry's second flags word, which no git
 * writes (git refuses such an index), refused too; the word clear, the
 * entry is read. */
START_TEST(t_reserved_flag)
{
	struct gitindex	 ix;
	struct buf	 b = BUF_INIT;
	unsigned char	*p, *name;
	size_t		 n;

	setup_repo(NULL);
	/* An intent-to-add entry has the second word: version 3. */
	free(unitfs_sh_in(repo, "git rm -q --cached b/c && git add -N b/c"));
	ck_assert_int_eq(fs_read_file(index_path, &b, 1 << 20), 0);
	n = b.len;
	p = (unsigned char *)b.data;
	ck_assert_uint_eq(p[7], 3);
	name = memmem(p + 12, n - 12, "b/c", 4);
	ck_assert_ptr_nonnull(name);
	/* The word just before the name. */
	ck_assert_uint_eq((unsigned)(name[-2] << 8 | name[-1]), 0x2000);
	name[-2] = 0x80;
	ck_assert_int_eq(gitindex_parse(&ix, p, n, 20), -1);
	name[-2] = 0;
	ck_assert_int_eq(gitindex_parse(&ix, p, n, 20), 0);
	gitindex_free(&ix);
	buf_free(&b);
}
END_TEST

/* Every prefix of a good index, and every byte of it changed, is read
 * safely (ASan and valgrind see every access): a prefix that cuts its
 * entries is never an index (git writes these with no extension after
 * them), and a change never gives paths that are out of order. */
START_TEST(t_damaged)
{
	struct gitindex	 ix;
	struct buf	 b = BUF_INIT;
	unsigned char	*copy;
	size_t		 n, i, k;
	int		 v;

	for (v = 2; v <= 4; v += 2) {
		index_of_version(v, &b);
		n = b.len;
		for (i = 0; i < n - 20; i++) {
			/* Exactly as long as needed: no byte to spare. */
			copy = malloc(i > 0 ? i : 1);
			ck_assert_ptr_nonnull(copy);
			memcpy(copy, b.data, i);
			ck_assert_int_eq(gitindex_parse(&ix, copy, i, 20), -1);
			free(copy);
		}
		copy = malloc(n);
		ck_assert_ptr_nonnull(copy);
		for (i = 0; i < n - 20; i++) {
			memcpy(copy, b.data, n);
			copy[i] ^= 0x5a;
			if (gitindex_parse(&ix, copy, n, 20) == 0) {
				for (k = 1; k < ix.n; k++)
					ck_assert_int_lt(strcmp(ix.v[k - 1].path,
					    ix.v[k].path), 0);
				gitindex_free(&ix);
			}
		}
		free(copy);
	}
	buf_free(&b);
}
END_TEST

/* Two sets of entries alike, field by field. */
static void
same_entries(const struct gitindex *a, const struct gitindex *b)
{
	size_t	i;

	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->rawsz, b->rawsz);
	for (i = 0; i < a->n; i++) {
		const struct gitindex_entry	*x = &a->v[i], *y = &b->v[i];

		ck_assert_str_eq(x->path, y->path);
		ck_assert(x->ctime == y->ctime && x->ctime_ns == y->ctime_ns &&
		    x->mtime == y->mtime && x->mtime_ns == y->mtime_ns &&
		    x->dev == y->dev && x->ino == y->ino &&
		    x->mode == y->mode && x->uid == y->uid &&
		    x->gid == y->gid && x->size == y->size);
		ck_assert_int_eq(memcmp(x->oid, y->oid, a->rawsz), 0);
	}
}

/* What each_entry() compares the entries given one by one with. */
struct each_check {
	const struct gitindex	*whole;
	size_t			 i;
	size_t			 stop;		/* stop at this one */
	struct gitindex		 one;		/* its v: the entry given */
};

static int
each_entry(const struct gitindex_entry *e, void *arg)
{
	struct each_check	*c = arg;

	ck_assert_uint_lt(c->i, c->whole->n);
	c->one.v = (struct gitindex_entry *)e;
	c->one.n = 1;
	c->one.rawsz = c->whole->rawsz;
	{
		struct gitindex	w = *c->whole;

		w.v += c->i;
		w.n = 1;
		same_entries(&w, &c->one);
	}
	return ++c->i == c->stop ? -1 : 0;
}

/* Each entry given as it is read: in order, each as gitindex_read()
 * reads it; -1 from the callback stops the read, at once. */
START_TEST(t_each)
{
	struct gitindex		whole;
	struct each_check	c;
	size_t			n;
	int			v;

	for (v = 2; v <= 4; v += 2) {
		setup_repo(NULL);
		free(unitfs_sh_in(repo, "git update-index --index-version %d",
		    v));
		ck_assert_int_eq(gitindex_read(&whole, index_path, 20), 0);
		memset(&c, 0, sizeof(c));
		c.whole = &whole;
		n = 0;
		ck_assert_int_eq(gitindex_each(index_path, 20, each_entry, &c,
		    &n), 0);
		ck_assert_uint_eq(c.i, whole.n);
		ck_assert_uint_eq(n, whole.n);
		memset(&c, 0, sizeof(c));
		c.whole = &whole;
		c.stop = 3;
		ck_assert_int_eq(gitindex_each(index_path, 20, each_entry, &c,
		    NULL), -1);
		ck_assert_uint_eq(c.i, 3);
		gitindex_free(&whole);
	}
}
END_TEST

/* The empty blob's entry, of either hash, and no other. */
START_TEST(t_empty)
{
	struct gitindex		ix;
	const struct gitindex_entry *e;

	setup_repo(NULL);
	ck_assert_int_eq(gitindex_read(&ix, index_path, 20), 0);
	ck_assert_ptr_nonnull(e = gitindex_find(&ix, "empty"));
	ck_assert(gitindex_empty(e, 20));
	ck_assert(!gitindex_empty(e, 32));
	ck_assert_ptr_nonnull(e = gitindex_find(&ix, "a"));
	ck_assert(!gitindex_empty(e, 20));
	gitindex_free(&ix);
}
END_TEST

/* An index read through windows of sizes from about the smallest its
 * entries fit (its longest entry, about 150 bytes, is half of 300) to
 * past the whole file: the same entries as the whole file
 * parsed, versions 2 to 4, with extensions (the cache tree, the
 * untracked cache) to pass over after them, some longer than a window. */
START_TEST(t_window)
{
	static const size_t	 wins[] = { 300, 301, 302, 333, 400, 512,
	    1000, 4096, 65536, 1 << 20 };
	struct gitindex		 whole, part;
	struct buf		 b = BUF_INIT;
	size_t			 i, n;
	int			 v;

	repo_dir("w");
	/* 400 paths of 1 to 80 bytes, many sharing a prefix, in 40
	 * directories; an untracked file and directory for the cache. */
	free(unitfs_sh_in(repo, "git init -q . && i=0 && "
	    "while [ $i -lt 400 ]; do d=dir$((i %% 40)); mkdir -p $d && "
	    "n=$(printf '%%*s' $((i %% 70)) '' | tr ' ' x) && "
	    "printf %%s $i >$d/f$i$n; i=$((i + 1)); done && "
	    "git add -A && git -c user.name=u -c user.email=u@e "
	    "commit -q -m c && mkdir u && : >u/untracked && "
	    "git -c core.untrackedCache=true update-index "
	    "--untracked-cache && git -c core.untrackedCache=true "
	    "status --porcelain >/dev/null"));
	for (v = 2; v <= 4; v++) {
		free(unitfs_sh_in(repo, "git update-index --index-version %d",
		    v));
		buf_reset(&b);
		ck_assert_int_eq(fs_read_file(index_path, &b, 1 << 22), 0);
		ck_assert_uint_gt(b.len, 8192);
		ck_assert_ptr_nonnull(memmem(b.data, b.len, "TREE", 4));
		ck_assert_ptr_nonnull(memmem(b.data, b.len, "UNTR", 4));
		ck_assert_int_eq(gitindex_parse(&whole,
		    (const unsigned char *)b.data, b.len, 20), 0);
		ck_assert_uint_eq(whole.n, 400);
		for (i = 0; i < sizeof(wins) / sizeof(*wins); i++) {
			ck_assert_msg(gitindex_read_window(&part, index_path,
			    20, wins[i]) == 0, "version %d, window %zu", v,
			    wins[i]);
			same_entries(&whole, &part);
			gitindex_free(&part);
		}
		ck_assert_int_eq(gitindex_read(&part, index_path, 20), 0);
		same_entries(&whole, &part);
		gitindex_free(&part);
		/* Counted, none kept: as many as read. */
		n = 0;
		ck_assert_int_eq(gitindex_count(index_path, 20, &n), 0);
		ck_assert_uint_eq(n, 400);
		/* An entry longer than half the window: refused. */
		errno = 0;
		ck_assert_int_eq(gitindex_read_window(&part, index_path, 20,
		    100), -1);
		ck_assert_int_eq(errno, EINVAL);
		gitindex_free(&whole);
	}
	buf_free(&b);
}
END_TEST

/* Every prefix of a good index file, read through a small window: its
 * entries cut, it is never an index. */
START_TEST(t_window_cut)
{
	struct gitindex	 ix;
	struct buf	 b = BUF_INIT;
	char		*cut;
	size_t		 n, i, count;
	int		 v, fd;

	for (v = 2; v <= 4; v += 2) {
		index_of_version(v, &b);
		n = b.len;
		ck_assert_int_ne(asprintf(&cut, "%s.cut", index_path), -1);
		for (i = 0; i < n; i += i < 64 ? 1 : 7) {
			fd = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			ck_assert_int_ne(fd, -1);
			ck_assert_int_eq(write(fd, b.data, i), (ssize_t)i);
			close(fd);
			errno = 0;
			ck_assert_msg(gitindex_read_window(&ix, cut, 20,
			    16384) == -1, "version %d, %zu of %zu bytes", v, i,
			    n);
			ck_assert_int_eq(errno, EINVAL);
			/* Nor are its entries counted. */
			errno = 0;
			ck_assert_msg(gitindex_count(cut, 20, &count) == -1,
			    "counted: version %d, %zu of %zu bytes", v, i, n);
			ck_assert_int_eq(errno, EINVAL);
		}
		/* Whole, it is. */
		ck_assert_int_eq(gitindex_read_window(&ix, index_path, 20,
		    16384), 0);
		gitindex_free(&ix);
		free(cut);
	}
	buf_free(&b);
}
END_TEST

/* A file is stale against its entry when anything git keeps of it
 * changed, or when it could have changed unseen: in the second of the
 * index, or later. */
START_TEST(t_stale)
{
	struct gitindex_entry	 e;
	struct stat		 st, s2;
	char			*path;

	setup_repo(NULL);
	ck_assert_int_ne(asprintf(&path, "%s/b/c", repo), -1);
	ck_assert_int_eq(lstat(path, &st), 0);
	memset(&e, 0, sizeof(e));
	e.path = "b/c";
	e.mode = 0100644;
	e.mtime = (uint32_t)st.st_mtime;
	e.ctime = (uint32_t)st.st_ctime;
	e.ino = (uint32_t)st.st_ino;
	e.uid = (uint32_t)st.st_uid;
	e.gid = (uint32_t)st.st_gid;
	e.size = (uint32_t)st.st_size;
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 1)), 0);
	/* The index's own second, or one before either time: a change
	 * git's look might miss (2); any other change, one it sees (1). */
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime)), 2);
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_ctime)), 2);
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(0)), 1);
	ck_assert_int_eq(gitindex_stale(&e, NULL, SINCE(st.st_mtime + 1)), 1);
	s2 = st;
	s2.st_mtim.tv_sec++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_ctim.tv_sec++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_ino++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_size += 1ULL << 32;	/* git keeps 32 bits */
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 0);
	s2.st_size++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_uid++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_gid++;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	/* The x bit, and the type. */
	s2 = st;
	s2.st_mode |= S_IXUSR;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	e.mode = 0100755;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 0);
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 5)), 1);
	e.mode = 0120000;
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 5)), 1);
	s2 = st;
	s2.st_mode = S_IFLNK | 0777;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 0);
	e.mode = 0160000;
	s2.st_mode = S_IFDIR | 0755;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 1);
	/* Nanoseconds count where git kept them. */
	e.mode = 0100644;
	e.mtime_ns = (uint32_t)st.st_mtim.tv_nsec + 1;
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 5)), 2);
	e.mtime_ns = 0;
	e.ctime_ns = (uint32_t)st.st_ctim.tv_nsec ^ 1;
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 5)), 2);
	e.ctime_ns = 0;
	ck_assert_int_eq(gitindex_stale(&e, &st, SINCE(st.st_mtime + 5)), 0);
	/* Where git kept nanoseconds, the time is taken to the
	 * nanosecond: changed at since, or later, is stale. */
	e.mtime_ns = (uint32_t)st.st_mtim.tv_nsec;
	e.ctime_ns = (uint32_t)st.st_ctim.tv_nsec;
	if (e.mtime_ns != 0 && e.ctime_ns != 0) {
		struct timespec	 t = st.st_ctim;

		ck_assert_int_eq(gitindex_stale(&e, &st, &t), 2);
		t.tv_nsec++;
		if (t.tv_nsec == 1000000000) {
			t.tv_sec++;
			t.tv_nsec = 0;
		}
		ck_assert_int_eq(gitindex_stale(&e, &st, &t),
		    st.st_mtim.tv_sec > t.tv_sec ||
		    (st.st_mtim.tv_sec == t.tv_sec &&
		    st.st_mtim.tv_nsec >= t.tv_nsec) ? 2 : 0);
		t = st.st_mtim;
		ck_assert_int_eq(gitindex_stale(&e, &st, &t), 2);
	}
	/* Without them, to the second. */
	e.mtime_ns = e.ctime_ns = 0;
	ck_assert_int_eq(gitindex_stale(&e, &st,
	    &(struct timespec){ st.st_ctime, 999999999 }), 2);
	/* Empty: always looked at. */
	e.size = 0;
	s2 = st;
	s2.st_size = 0;
	ck_assert_int_eq(gitindex_stale(&e, &s2, SINCE(st.st_mtime + 5)), 2);
	free(path);
}
END_TEST

/* A look at a working tree: each path whose file is not as the index
 * says, gone ones too; nothing written; a symlink on the way is no
 * directory to look in. */
START_TEST(t_look)
{
	struct gitindex	 ix;
	struct strv	 stale = STRV_INIT, unsure = STRV_INIT;
	struct stat	 st;
	struct timespec	 later;
	char		*path;
	size_t		 i;

	setup_repo(NULL);
	ck_assert_int_eq(lstat(index_path, &st), 0);
	later = st.st_mtim;
	later.tv_sec += 2;
	ck_assert_int_eq(gitindex_read(&ix, index_path, 20), 0);
	ck_assert_int_eq(gitindex_look(repo, &ix, &later, &stale, &unsure), 0);
	/* empty: always, as git might take it as it was */
	ck_assert_uint_eq(stale.n, 1);
	ck_assert_str_eq(stale.v[0], "empty");
	ck_assert_uint_eq(unsure.n, 1);
	ck_assert_str_eq(unsure.v[0], "empty");
	strv_clear(&stale);
	strv_clear(&unsure);
	free(unitfs_sh_in(repo, "printf A >a && rm b/cd && chmod 755 b/c && "
	    "rm -r d1/d2/d3 && rm l && ln -s x l"));
	ck_assert_int_eq(gitindex_look(repo, &ix, &later, &stale, &unsure), 0);
	ck_assert_uint_eq(stale.n, 6);
	ck_assert_str_eq(stale.v[0], "a");
	ck_assert_str_eq(stale.v[1], "b/c");
	ck_assert_str_eq(stale.v[2], "b/cd");
	ck_assert_str_eq(stale.v[3], "d1/d2/d3/d4/d5/d6/d7/d8/deep");
	ck_assert_str_eq(stale.v[4], "empty");
	ck_assert_str_eq(stale.v[5], "l");
	/* The empty file, and those changed in the second they were made
	 * with their size kept (an inode may be used again): changes git
	 * might not see. */
	ck_assert(strv_sorted_has(&unsure, "empty"));
	for (i = 0; i < unsure.n; i++)
		ck_assert(strcmp(unsure.v[i], "a") == 0 ||
		    strcmp(unsure.v[i], "b/c") == 0 ||
		    strcmp(unsure.v[i], "empty") == 0 ||
		    strcmp(unsure.v[i], "l") == 0);
	/* Since the index, or nothing to look at: stale. */
	strv_clear(&stale);
	ck_assert_int_eq(gitindex_look(repo, &ix, SINCE(0), &stale, NULL), 0);
	ck_assert_uint_eq(stale.n, ix.n);
	/* A directory made a symlink: -1, not followed. */
	strv_clear(&stale);
	free(unitfs_sh_in(repo, "mv b bb && ln -s bb b"));
	ck_assert_int_eq(gitindex_look(repo, &ix, &later, &stale, &unsure), -1);
	ck_assert_int_ne(asprintf(&path, "%s/nothere", repo), -1);
	ck_assert_int_eq(gitindex_look(path, &ix, &later, &stale, NULL), -1);
	free(path);
	strv_free(&stale);
	strv_free(&unsure);
	gitindex_free(&ix);
}
END_TEST

/* The tree forge computes from the index is the one git writes. */
static void
check_tree(size_t rawsz)
{
	struct gitindex	 ix;
	char		 hex[2 * 32 + 1], *want;

	int		 fd;

	ck_assert_int_eq(gitindex_read(&ix, index_path, rawsz), 0);
	ck_assert_int_eq(gitindex_tree(&ix, hex), 0);
	want = unitfs_sh_in(repo, "git write-tree");
	ck_assert_str_eq(hex, want);
	/* The same as the entries go by, none held. */
	memset(hex, 0, sizeof(hex));
	fd = open(index_path, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(gitindex_tree_fd(fd, rawsz, hex), 0);
	ck_assert_str_eq(hex, want);
	close(fd);
	free(want);
	gitindex_free(&ix);
}

/* Names that sort either side of a directory's ("a/" after "a-b" and
 * "a.b", before "a0"), a submodule, an empty tree. */
static void
add_edges(void)
{
	free(unitfs_sh_in(repo, "mkdir -p a-b 'sp ace' && printf 1 >a-b/y && "
	    "printf 2 >a.b && printf 3 >a0 && printf 4 >b-c && "
	    "printf 5 >'sp ace/\303\251' && printf 6 >b.c && "
	    "git add -A && git update-index --add --cacheinfo "
	    "160000,$(git hash-object -w a),sub"));
}

START_TEST(t_tree)
{
	static const char *const	 fmts[] = { NULL, "sha256" };
	size_t				 f, rawsz;
	int				 v;
	char				*probe, *cmd;

	for (f = 0; f < 2; f++) {
		if (fmts[f] != NULL) {
			/* git 2.29 on. */
			probe = unitfs_dir("probe");
			ck_assert_int_ne(asprintf(&cmd, "git init -q "
			    "--object-format=sha256 '%s' >/dev/null 2>&1",
			    probe), -1);
			v = system(cmd);
			free(cmd);
			free(probe);
			if (v != 0)
				continue;
		}
		rawsz = fmts[f] != NULL ? 32 : 20;
		setup_repo(fmts[f]);
		check_tree(rawsz);
		add_edges();
		for (v = 2; v <= 4; v++) {
			free(unitfs_sh_in(repo, "git update-index "
			    "--index-version %d", v));
			check_tree(rawsz);
		}
		/* Nothing in it: the empty tree. */
		free(unitfs_sh_in(repo, "git rm -q -r --cached ."));
		check_tree(rawsz);
	}
}
END_TEST

/* Many paths from a few names, that sort every way against each other,
 * at random: as git writes them. */
START_TEST(t_tree_random)
{
	static const char *const	 names[] = { "a", "b", "a-b", "a.b",
	    "a0", "a b", "-", "A", "\303\251" };
	char				 path[256], *full;
	size_t				 k, d, depth, nn;
	int				 fd, round;

	nn = sizeof(names) / sizeof(*names);
	for (round = 0; round < 4; round++) {
		setup_repo(NULL);
		srand((unsigned)round + 1);
		for (k = 0; k < 200; k++) {
			depth = 1 + (size_t)rand() % 4;
			path[0] = '\0';
			for (d = 0; d < depth; d++) {
				if (d > 0)
					strcat(path, "/");
				strcat(path, names[(size_t)rand() % nn]);
			}
			ck_assert_int_ne(asprintf(&full, "%s/r/%s", repo, path),
			    -1);
			*strrchr(full, '/') = '\0';
			/* A file already where a directory would be, or
			 * the other way: passed over. */
			if (fs_mkdirs(full, 0755) == 0) {
				*(full + strlen(full)) = '/';
				fd = open(full, O_WRONLY | O_CREAT | O_TRUNC,
				    rand() % 3 == 0 ? 0755 : 0644);
				if (fd != -1) {
					ck_assert_int_eq(write(fd, path,
					    k % 5), (ssize_t)(k % 5));
					close(fd);
				}
			}
			free(full);
		}
		free(unitfs_sh_in(repo, "git add -A && git update-index "
		    "--index-version %d", 2 + round % 3));
		check_tree(20);
	}
}
END_TEST

/* An entry without an object, a file beside a directory of its name
 * (git write-tree refuses both when they are next to each other), and
 * the empty index. */
START_TEST(t_tree_refused)
{
	struct gitindex_entry	 e[3];
	struct gitindex		 ix;
	char			 hex[2 * 32 + 1];

	memset(e, 0, sizeof(e));
	memset(&ix, 0, sizeof(ix));
	ix.v = e;
	ix.rawsz = 20;
	ck_assert_int_eq(gitindex_tree(&ix, hex), 0);
	ck_assert_str_eq(hex, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	ix.rawsz = 32;
	ck_assert_int_eq(gitindex_tree(&ix, hex), 0);
	ck_assert_str_eq(hex, "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14"
	    "b4b9b939dd74decc5321");
	ix.rawsz = 16;
	ck_assert_int_eq(gitindex_tree(&ix, hex), -1);
	ix.rawsz = 20;
	e[0].path = "x";
	e[0].mode = 0100644;
	ix.n = 1;
	ck_assert_int_eq(gitindex_tree(&ix, hex), -1);
	memset(e[0].oid, 0x11, sizeof(e[0].oid));
	ck_assert_int_eq(gitindex_tree(&ix, hex), 0);
	e[1] = e[0];
	e[1].path = "x/y";
	ix.n = 2;
	ck_assert_int_eq(gitindex_tree(&ix, hex), -1);
	e[2] = e[1];
	e[1].path = "x-";
	ix.n = 3;
	ck_assert_int_eq(gitindex_tree(&ix, hex), 0);
}
END_TEST

/* Where two indexes' trees differ: as git diff-index --raw has it,
 * neither held whole; an index that cannot be read, -1. */
START_TEST(t_diff)
{
	struct strv	 out = STRV_INIT;
	struct buf	 got = BUF_INIT;
	char		*want, *older;
	size_t		 i;
	int		 a, b, bad;

	setup_repo(NULL);
	add_edges();
	free(unitfs_sh_in(repo, "cp -p .git/index .git/index.a"));
	free(unitfs_sh_in(repo, "printf A >a && rm b/cd && chmod 755 b/c && "
	    "rm l && printf l >l && printf n >b/n && rm a0 && mkdir a0 && "
	    "printf in >a0/f && rm -r a-b && printf f >a-b && "
	    "git rm -q --cached sub && mkdir sub && printf s >sub/s && "
	    "git add -A"));
	want = unitfs_sh_in(repo, "GIT_INDEX_FILE=.git/index.a "
	    "git write-tree >.git/ta && "
	    "git diff-index --cached --raw --no-abbrev --no-renames "
	    "$(cat .git/ta) | sed 's/^:\\([0-7]*\\) \\([0-7]*\\) "
	    "[^\t]*\t/\\1 \\2\t/'");
	ck_assert_int_ne(asprintf(&older, "%s.a", index_path), -1);
	a = open(older, O_RDONLY);
	ck_assert_int_ne(a, -1);
	b = open(index_path, O_RDONLY);
	ck_assert_int_ne(b, -1);
	ck_assert_int_eq(gitindex_diff_fd(a, b, 20, &out), 0);
	for (i = 0; i < out.n; i++)
		buf_addf(&got, "%s%s", i > 0 ? "\n" : "", out.v[i]);
	buf_str(&got);
	ck_assert_str_eq(got.data, want);
	ck_assert_uint_ge(out.n, 10);
	/* Nothing differs from itself, read twice at once through one
	 * file descriptor. */
	strv_clear(&out);
	ck_assert_int_eq(gitindex_diff_fd(b, b, 20, &out), 0);
	ck_assert_uint_eq(out.n, 0);
	/* One that is not an index, or is cut short. */
	free(unitfs_sh_in(repo, "head -c 200 .git/index >.git/index.cut && "
	    "printf nothing >.git/index.not"));
	for (i = 0; i < 2; i++) {
		free(older);
		ck_assert_int_ne(asprintf(&older, "%s.%s", index_path,
		    i == 0 ? "cut" : "not"), -1);
		bad = open(older, O_RDONLY);
		ck_assert_int_ne(bad, -1);
		errno = 0;
		ck_assert_int_eq(gitindex_diff_fd(a, bad, 20, &out), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(gitindex_diff_fd(bad, a, 20, &out), -1);
		close(bad);
	}
	close(a);
	close(b);
	free(older);
	free(want);
	buf_free(&got);
	strv_free(&out);
}
END_TEST

/* An index read entry by entry: as gitindex_read() reads it, two reads
 * of one file descriptor apart, its offset left alone; the end said
 * again once there. */
START_TEST(t_iter)
{
	struct gitindex_iter		*x, *y;
	const struct gitindex_entry	*e, *f;
	struct gitindex			 whole, one;
	size_t				 i;
	int				 v, fd;

	for (v = 2; v <= 4; v++) {
		setup_repo(NULL);
		add_edges();
		free(unitfs_sh_in(repo, "git update-index --index-version %d",
		    v));
		ck_assert_int_eq(gitindex_read(&whole, index_path, 20), 0);
		fd = open(index_path, O_RDONLY);
		ck_assert_int_ne(fd, -1);
		x = gitindex_iter_fd(fd, 20);
		ck_assert_ptr_nonnull(x);
		ck_assert_uint_eq(gitindex_iter_count(x), whole.n);
		/* The second a step behind the first. */
		ck_assert_int_eq(gitindex_iter_next(x, &e), 1);
		y = gitindex_iter_fd(fd, 20);
		ck_assert_ptr_nonnull(y);
		for (i = 0; i < whole.n; i++) {
			one = whole;
			one.v += i;
			one.n = 1;
			ck_assert_int_eq(gitindex_iter_next(y, &f), 1);
			if (i + 1 < whole.n) {
				ck_assert_int_eq(gitindex_iter_next(x, &e), 1);
				ck_assert_str_eq(e->path, whole.v[i + 1].path);
			} else
				ck_assert_int_eq(gitindex_iter_next(x, &e), 0);
			one.v = (struct gitindex_entry *)f;
			{
				struct gitindex	w = whole;

				w.v += i;
				w.n = 1;
				same_entries(&w, &one);
			}
		}
		ck_assert_int_eq(gitindex_iter_next(y, &f), 0);
		ck_assert_ptr_null(f);
		ck_assert_int_eq(gitindex_iter_next(y, &f), 0);
		ck_assert_int_eq((int)lseek(fd, 0, SEEK_CUR), 0);
		gitindex_iter_free(x);
		gitindex_iter_free(y);
		gitindex_iter_free(NULL);
		close(fd);
		gitindex_free(&whole);
	}
	/* Not an index: no iterator. */
	free(unitfs_sh_in(repo, "printf DIRC >.git/index"));
	fd = open(index_path, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	errno = 0;
	ck_assert_ptr_null(gitindex_iter_fd(fd, 20));
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
}
END_TEST

static Suite *
gitindex_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("gitindex");
	tc = tcase_create("git");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, t_v2);
	tcase_add_test(tc, t_v4);
	tcase_add_test(tc, t_sha256);
	tcase_add_test(tc, t_refused);
	tcase_add_test(tc, t_reserved_flag);
	tcase_add_test(tc, t_damaged);
	tcase_add_test(tc, t_window);
	tcase_add_test(tc, t_each);
	tcase_add_test(tc, t_empty);
	tcase_add_test(tc, t_window_cut);
	tcase_add_test(tc, t_stale);
	tcase_add_test(tc, t_look);
	tcase_add_test(tc, t_tree);
	tcase_add_test(tc, t_tree_random);
	tcase_add_test(tc, t_tree_refused);
	tcase_add_test(tc, t_diff);
	tcase_add_test(tc, t_iter);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(gitindex_suite)
