/*
 * vouch.c: reading git ls-files --debug, and the rule -- a file copied
 * whole is taken for the blob the source's index names only if its bytes
 * are the source file's, the source file is as git saw it, and it was not
 * changed just before git looked.
 */
#include "config.h"

#include "unit.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gitcmd.h"
#include "strv.h"
#include "unitfs.h"
#include "vouch.h"

#define A40	"1111111111111111111111111111111111111111"

START_TEST(t_parse)
{
	static const char out[] =
	    "100644 " A40 " 0\tdir/a b\0"
	    "  ctime: 1700000001:5\n  mtime: 1700000000:123456789\n"
	    "  dev: 2049\tino: 77\n  uid: 0\tgid: 0\n"
	    "  size: 4294967297\tflags: 0\n"
	    "100755 " A40 " 2\tconflict\0"
	    "  ctime: 0:0\n  mtime: 0:0\n  dev: 0\tino: 0\n  uid: 0\tgid: 0\n"
	    "  size: 0\tflags: 2000\n";
	struct vouch_entry	*v;
	size_t			 n;

	ck_assert_int_eq(vouch_parse(out, sizeof(out) - 1, &v, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(v[0].path, "dir/a b");
	ck_assert_str_eq(v[0].line, "100644 " A40 "\tdir/a b");
	ck_assert_uint_eq(v[0].mode, 0100644);
	ck_assert_int_eq(v[0].ctime_s, 1700000001);
	ck_assert_int_eq(v[0].ctime_ns, 5);
	ck_assert_int_eq(v[0].mtime_s, 1700000000);
	ck_assert_int_eq(v[0].mtime_ns, 123456789);
	ck_assert_uint_eq(v[0].dev, 2049);
	ck_assert_uint_eq(v[0].ino, 77);
	ck_assert_uint_eq(v[0].size, 1);	/* git keeps 32 bits */
	/* An unmerged stage is never proved: no mode. */
	ck_assert_uint_eq(v[1].mode, 0);
	vouch_entries_free(v, n);
	/* Cut short, or not git's: refused whole. */
	ck_assert_int_eq(vouch_parse(out, 60, &v, &n), -1);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(vouch_parse("junk\0", 5, &v, &n), -1);
	ck_assert_int_eq(vouch_parse("", 0, &v, &n), 0);
	ck_assert_uint_eq(n, 0);
	vouch_entries_free(v, n);
}
END_TEST

static char	*src, *dst;

static void
sh(const char *fmt, ...)
{
	char	cmd[4096];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ck_assert_int_eq(system(cmd), 0);
}

/* src: a repository whose index has big.bin and sub/b.bin as git saw
 * them, files last written a minute before; dst: the same files. */
static void
setup(void)
{
	char	*base;

	ck_assert_int_eq(git_init(), 0);
	base = unitfs_dir("v");
	ck_assert_int_ne(asprintf(&src, "%s/src", base), -1);
	ck_assert_int_ne(asprintf(&dst, "%s/dst", base), -1);
	sh("git init -q '%s' && cd '%s' && mkdir sub && "
	    "head -c 100000 /dev/urandom >big.bin && "
	    "printf 'small\\n' >sub/b.bin && ln -s big.bin link && "
	    "touch -m -d '-1 minute' big.bin && touch -m -r big.bin sub/b.bin && "
	    "git add big.bin sub/b.bin link && mkdir '%s' && "
	    "cp -p -R big.bin sub link '%s'", src, src, dst, dst);
	free(base);
}

/* vouch() of paths (a NULL-ended list), since: ms after the time
 * src/sub/b.bin and src/big.bin were last written (the same). */
static size_t
try(struct strv *edits, long ms, ...)
{
	struct strv	 paths = STRV_INIT, exclude = STRV_INIT;
	struct timespec	 since;
	struct stat	 st;
	struct git	 g;
	const char	*p;
	char		*f;
	va_list		 ap;
	size_t		 n;

	va_start(ap, ms);
	while ((p = va_arg(ap, const char *)) != NULL)
		strv_push(&paths, p);
	va_end(ap);
	ck_assert_int_ne(asprintf(&f, "%s/sub/b.bin", src), -1);
	ck_assert_int_eq(stat(f, &st), 0);
	free(f);
	since = st.st_mtim;
	since.tv_sec += ms / 1000;
	since.tv_nsec += (ms % 1000) * 1000000L;
	if (since.tv_nsec >= 1000000000L) {
		since.tv_sec++;
		since.tv_nsec -= 1000000000L;
	}
	memset(&g, 0, sizeof(g));
	g.dir = src;
	strv_clear(edits);
	n = vouch(&g, src, dst, "", &paths, &since, edits, &exclude);
	ck_assert_uint_eq(exclude.n, n);
	strv_free(&paths);
	strv_free(&exclude);
	return n;
}

START_TEST(t_vouch)
{
	struct strv	 edits = STRV_INIT;
	char		*want, *p;
	FILE		*fp;
	char		 oid[128];

	setup();
	sh("cd '%s' && git hash-object big.bin >oid", src);
	ck_assert_int_ne(asprintf(&p, "%s/oid", src), -1);
	fp = fopen(p, "r");
	ck_assert_ptr_nonnull(fp);
	ck_assert_ptr_nonnull(fgets(oid, sizeof(oid), fp));
	fclose(fp);
	unlink(p);
	free(p);
	oid[strcspn(oid, "\n")] = '\0';
	ck_assert_int_ne(asprintf(&want, "100644 %s\tbig.bin", oid), -1);

	/* The same bytes, the source as git saw it, a minute old. */
	ck_assert_uint_eq(try(&edits, 60000, "big.bin", "sub/b.bin", NULL), 2);
	ck_assert_str_eq(edits.v[0], want);
	/* A symlink is git's to look at. */
	ck_assert_uint_eq(try(&edits, 60000, "link", NULL), 0);
	/* Changed just before git looked: racily clean, not proved. */
	ck_assert_uint_eq(try(&edits, 20, "big.bin", NULL), 0);
	/* One byte of the copy differs, its size the same. */
	sh("cd '%s' && printf X | dd of=big.bin bs=1 seek=500 conv=notrunc "
	    "2>/dev/null", dst);
	ck_assert_uint_eq(try(&edits, 60000, "big.bin", "sub/b.bin", NULL), 1);
	ck_assert_str_eq(edits.v[0] + strlen(edits.v[0]) - 9, "sub/b.bin");
	sh("cp -p '%s/big.bin' '%s/big.bin'", src, dst);
	ck_assert_uint_eq(try(&edits, 60000, "big.bin", NULL), 1);
	/* The copy's mode not the entry's. */
	sh("chmod +x '%s/big.bin'", dst);
	ck_assert_uint_eq(try(&edits, 60000, "big.bin", NULL), 0);
	sh("chmod -x '%s/big.bin'", dst);
	/* A symlink on the way in the copy is not followed. */
	sh("cd '%s' && mv sub real && ln -s real sub", dst);
	ck_assert_uint_eq(try(&edits, 60000, "sub/b.bin", NULL), 0);
	sh("cd '%s' && rm sub && mv real sub", dst);
	ck_assert_uint_eq(try(&edits, 60000, "sub/b.bin", NULL), 1);
	/* The source changed since git saw it: its stat is not the
	 * entry's, even with the same bytes back (its ctime moved). */
	sh("cd '%s' && touch -m -d '-1 minute' big.bin && chmod 644 big.bin",
	    src);
	ck_assert_uint_eq(try(&edits, 60000, "big.bin", NULL), 0);
	/* Gone from the copy. */
	sh("rm '%s/sub/b.bin'", dst);
	ck_assert_uint_eq(try(&edits, 60000, "sub/b.bin", NULL), 0);
	strv_free(&edits);
	free(want);
	free(src);
	free(dst);
}
END_TEST

static Suite *
vouch_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("vouch");
	tc = tcase_create("parse");
	tcase_add_test(tc, t_parse);
	suite_add_tcase(s, tc);
	tc = tcase_create("git");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_vouch);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(vouch_suite)
