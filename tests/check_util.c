/*
 * The small helpers: byte buffers, string vectors, sums, durations,
 * sizes and times, and allocation failure.
 */
#include "config.h"

#include "unit.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "strv.h"
#include "sum.h"
#include "timeutil.h"
#include "xmalloc.h"

/*
 * Under AddressSanitizer an impossible allocation aborts by default; the
 * allocation tests need malloc to fail the ordinary way.  The sanitizer
 * runtime looks this function up by name; elsewhere nothing calls it.
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* Have malloc(3) hand out memory that is not zero (glibc). */
static void
perturb_malloc(void)
{
#ifdef M_PERTURB
	(void)mallopt(M_PERTURB, 0x5a);
#endif
}

/* buf */

START_TEST(t_buf_empty)
{
	struct buf	 b = BUF_INIT;
	char		*s;

	ck_assert_ptr_null(b.data);
	s = buf_str(&b);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, "");
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_gt(b.cap, 0);
	buf_free(&b);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.cap, 0);
	/* Operations on a buffer that never held anything. */
	buf_rtrim(&b);
	buf_truncate(&b, 0);
	buf_reset(&b);
	ck_assert_uint_eq(b.len, 0);
	s = buf_detach(&b);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

START_TEST(t_buf_growth)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < 100000; i++) {
		buf_addc(&b, 'a' + (int)(i % 26));
		ck_assert_uint_eq(b.len, i + 1);
		ck_assert_uint_gt(b.cap, b.len);
		ck_assert_int_eq(b.data[b.len], '\0');
	}
	for (i = 0; i < 100000; i++)
		ck_assert_int_eq(b.data[i], 'a' + (int)(i % 26));
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_add)
{
	struct buf	 b = BUF_INIT;
	char		 big[5000];

	buf_add(&b, "a\0b", 3);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_mem_eq(b.data, "a\0b", 4);
	buf_add(&b, "", 0);
	buf_add(&b, NULL, 0);
	ck_assert_uint_eq(b.len, 3);
	buf_adds(&b, "cd");
	ck_assert_uint_eq(b.len, 5);
	ck_assert_mem_eq(b.data, "a\0bcd", 6);
	memset(big, 'x', sizeof(big));
	buf_add(&b, big, sizeof(big));
	ck_assert_uint_eq(b.len, 5 + sizeof(big));
	ck_assert_int_eq(b.data[b.len - 1], 'x');
	ck_assert_int_eq(b.data[b.len], '\0');
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_addf)
{
	struct buf	 b = BUF_INIT;
	char		 word[1001];

	buf_addf(&b, "%d-%s", 42, "x");
	ck_assert_str_eq(b.data, "42-x");
	buf_addf(&b, "%s", "");
	ck_assert_uint_eq(b.len, 4);
	/* Longer than anything allocated so far, in one call. */
	memset(word, 'w', 1000);
	word[1000] = '\0';
	buf_addf(&b, "[%s]%zu", word, sizeof(word));
	ck_assert_uint_eq(b.len, 4 + 1002 + 4);
	ck_assert_int_eq(b.data[4], '[');
	ck_assert_int_eq(b.data[1005], ']');
	ck_assert_str_eq(b.data + 1006, "1001");
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_truncate)
{
	struct buf	b = BUF_INIT;
	size_t		cap;

	buf_adds(&b, "hello world");
	buf_truncate(&b, 5);
	ck_assert_uint_eq(b.len, 5);
	ck_assert_str_eq(b.data, "hello");
	/* Never longer: truncating past the end changes nothing. */
	buf_truncate(&b, 50);
	ck_assert_uint_eq(b.len, 5);
	ck_assert_str_eq(b.data, "hello");
	cap = b.cap;
	buf_reset(&b);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_str_eq(b.data, "");
	ck_assert_uint_eq(b.cap, cap);
	buf_adds(&b, "again");
	ck_assert_str_eq(b.data, "again");
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_rtrim)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "  a b \t\n\r\v\f ");
	buf_rtrim(&b);
	ck_assert_str_eq(b.data, "  a b");
	ck_assert_uint_eq(b.len, 5);
	buf_reset(&b);
	buf_adds(&b, " \n\n");
	buf_rtrim(&b);
	ck_assert_str_eq(b.data, "");
	ck_assert_uint_eq(b.len, 0);
	buf_reset(&b);
	buf_adds(&b, "git version 2.39.5\n");
	buf_rtrim(&b);
	ck_assert_str_eq(b.data, "git version 2.39.5");
	/* A byte >= 0x80 is not space, whatever the locale says. */
	buf_reset(&b);
	buf_adds(&b, "x\xa0");
	buf_rtrim(&b);
	ck_assert_uint_eq(b.len, 2);
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_detach)
{
	struct buf	 b = BUF_INIT;
	char		*s;

	buf_adds(&b, "mine");
	s = buf_detach(&b);
	ck_assert_str_eq(s, "mine");
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	/* The buffer is usable again, and s is the caller's. */
	buf_adds(&b, "next");
	ck_assert_str_eq(s, "mine");
	ck_assert_str_eq(b.data, "next");
	free(s);
	buf_free(&b);
}
END_TEST

/* "b.data is always NUL-terminated": also when nothing was added to a
 * buffer that only grew, or read nothing.  Fresh memory is made
 * non-zero, so that the test does not pass by chance. */
START_TEST(t_buf_terminated)
{
	struct buf	b = BUF_INIT;
	int		p[2];

	perturb_malloc();
	buf_grow(&b, 100);
	ck_assert_ptr_nonnull(b.data);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_msg(b.data[0] == '\0', "buf_grow: not terminated");
	buf_free(&b);
	ck_assert_int_eq(pipe(p), 0);
	close(p[1]);
	ck_assert_int_eq(buf_read(&b, p[0], 4096), 0);
	close(p[0]);
	ck_assert_ptr_nonnull(b.data);
	ck_assert_msg(b.data[0] == '\0', "buf_read at EOF: not terminated");
	buf_free(&b);
}
END_TEST

START_TEST(t_buf_read)
{
	struct buf	b = BUF_INIT;
	int		p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "hello", 5), 5);
	close(p[1]);
	buf_adds(&b, ">");
	ck_assert_int_eq(buf_read(&b, p[0], 3), 3);
	ck_assert_str_eq(b.data, ">hel");
	ck_assert_int_eq(buf_read(&b, p[0], 100), 2);
	ck_assert_str_eq(b.data, ">hello");
	ck_assert_int_eq(buf_read(&b, p[0], 100), 0);
	ck_assert_str_eq(b.data, ">hello");
	close(p[0]);
	errno = 0;
	ck_assert_int_eq(buf_read(&b, p[0], 100), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_str_eq(b.data, ">hello");
	buf_free(&b);
}
END_TEST

/* strv */

START_TEST(t_strv_push)
{
	struct strv	 v = STRV_INIT;
	char		 src[] = "changeable";
	char		*const more[] = { "m1", "m2", NULL };
	size_t		 i;

	strv_push(&v, src);
	src[0] = 'X';
	ck_assert_str_eq(v.v[0], "changeable");
	strv_pushn(&v, "abcdef", 3);
	strv_pushn(&v, "ab", 10);
	strv_pushf(&v, "%s=%d", "n", 5);
	strv_pushv(&v, more);
	strv_pushv(&v, NULL);
	ck_assert_uint_eq(v.n, 6);
	ck_assert_str_eq(v.v[1], "abc");
	ck_assert_str_eq(v.v[2], "ab");
	ck_assert_str_eq(v.v[3], "n=5");
	ck_assert_str_eq(v.v[4], "m1");
	ck_assert_str_eq(v.v[5], "m2");
	ck_assert_ptr_null(v.v[6]);
	/* Many more: the array stays NULL-terminated as it grows. */
	for (i = 0; i < 1000; i++) {
		strv_pushf(&v, "%zu", i);
		ck_assert_ptr_null(v.v[v.n]);
	}
	ck_assert_uint_eq(v.n, 1006);
	ck_assert_str_eq(v.v[1005], "999");
	strv_free(&v);
	ck_assert_ptr_null(v.v);
	ck_assert_uint_eq(v.n, 0);
}
END_TEST

START_TEST(t_strv_pop_clear)
{
	struct strv	v = STRV_INIT;

	strv_pop(&v);
	ck_assert_uint_eq(v.n, 0);
	strv_push(&v, "a");
	strv_push(&v, "b");
	strv_pop(&v);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.v[0], "a");
	ck_assert_ptr_null(v.v[1]);
	strv_push(&v, "c");
	strv_clear(&v);
	ck_assert_uint_eq(v.n, 0);
	ck_assert_ptr_nonnull(v.v);
	ck_assert_ptr_null(v.v[0]);
	strv_push(&v, "d");
	ck_assert_str_eq(v.v[0], "d");
	strv_free(&v);
	strv_free(&v);
}
END_TEST

/* A pooled vector: strings of any length, past a block's size too, each
 * its own copy, every push function; pop and clear; freed whole (ASan
 * and valgrind see a leak or a double free). */
START_TEST(t_strv_pool)
{
	struct strv	 v = STRV_INIT;
	char		*big, want[32];
	size_t		 i;

	strv_pool(&v);
	big = malloc(200000);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 199999);
	big[199999] = '\0';
	for (i = 0; i < 20000; i++)
		strv_pushf(&v, "entry %zu", i);
	strv_push(&v, big);
	strv_pushn(&v, "cut here", 3);
	strv_take(&v, strdup("taken"));
	ck_assert_uint_eq(v.n, 20003);
	for (i = 0; i < 20000; i++) {
		snprintf(want, sizeof(want), "entry %zu", i);
		ck_assert_str_eq(v.v[i], want);
	}
	ck_assert_uint_eq(strlen(v.v[20000]), 199999);
	ck_assert_ptr_ne(v.v[20000], big);
	ck_assert_str_eq(v.v[20001], "cut");
	ck_assert_str_eq(v.v[20002], "taken");
	ck_assert_ptr_null(v.v[20003]);
	strv_pop(&v);
	ck_assert_uint_eq(v.n, 20002);
	strv_clear(&v);
	ck_assert_uint_eq(v.n, 0);
	strv_push(&v, "again");
	ck_assert_str_eq(v.v[0], "again");
	strv_free(&v);
	ck_assert_ptr_null(v.pool);
	strv_free(&v);
	free(big);
}
END_TEST

START_TEST(t_strv_join)
{
	struct strv	 v = STRV_INIT;
	char		*s;

	s = strv_join(&v, ",");
	ck_assert_str_eq(s, "");
	free(s);
	strv_push(&v, "a");
	s = strv_join(&v, ", ");
	ck_assert_str_eq(s, "a");
	free(s);
	strv_push(&v, "");
	strv_push(&v, "c");
	s = strv_join(&v, ", ");
	ck_assert_str_eq(s, "a, , c");
	free(s);
	s = strv_join(&v, "");
	ck_assert_str_eq(s, "ac");
	free(s);
	strv_free(&v);
}
END_TEST

START_TEST(t_strv_split_z)
{
	struct strv	v = STRV_INIT;

	strv_split_z(&v, "a\0\0bc\0", 6);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_str_eq(v.v[0], "a");
	ck_assert_str_eq(v.v[1], "bc");
	/* A last field without its NUL still counts; the vector grows. */
	strv_split_z(&v, "\0d\0e", 4);
	ck_assert_uint_eq(v.n, 4);
	ck_assert_str_eq(v.v[2], "d");
	ck_assert_str_eq(v.v[3], "e");
	ck_assert_ptr_null(v.v[4]);
	strv_split_z(&v, "", 0);
	strv_split_z(&v, "\0\0\0", 3);
	ck_assert_uint_eq(v.n, 4);
	strv_free(&v);
	/* Only len bytes are read: "xy" stops before the y. */
	strv_split_z(&v, "xy", 1);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_str_eq(v.v[0], "x");
	strv_free(&v);
}
END_TEST

static char *
shell_join(const char *const *words)
{
	return strv_join_shell((char *const *)words);
}

START_TEST(t_strv_join_shell)
{
	static const struct {
		const char	*words[4];
		const char	*want;
	} cases[] = {
		{ { "make", "-j4", "check", NULL }, "make -j4 check" },
		{ { "sh", "-c", "exit 3", NULL }, "sh -c 'exit 3'" },
		{ { "echo", "", NULL }, "echo ''" },
		{ { "echo", "it's", NULL }, "echo 'it'\\''s'" },
		{ { "echo", "$HOME", NULL }, "echo '$HOME'" },
		{ { "echo", "\"q\"", NULL }, "echo '\"q\"'" },
		{ { "a*b", "c?d", "[e]", NULL }, "'a*b' 'c?d' '[e]'" },
		{ { "~", "a;b", "a|b", NULL }, "'~' 'a;b' 'a|b'" },
		{ { "x\ny", "t\tu", "`c`", NULL }, "'x\ny' 't\tu' '`c`'" },
		{ { "--opt=a,b", "user@host:/p", "+%_.", NULL },
		  "--opt=a,b user@host:/p +%_." },
		{ { "''", NULL }, "''\\'''\\'''" },
		{ { "\xc3\xa9", NULL }, "'\xc3\xa9'" },
		{ { NULL }, "" },
	};
	size_t	 i;
	char	*s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = shell_join(cases[i].words);
		ck_assert_msg(strcmp(s, cases[i].want) == 0,
		    "case %zu: got <%s>", i, s);
		free(s);
	}
	s = strv_join_shell(NULL);
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* Run sh -c "printf '%s\0' JOINED" and collect what it printed. */
static size_t
sh_split(const char *joined, char *out, size_t max)
{
	char	*script, *argv[4];
	size_t	 len = 0;
	ssize_t	 r;
	pid_t	 pid;
	int	 p[2], ws;

	ck_assert_int_ne(asprintf(&script, "printf '%%s\\000' %s", joined),
	    -1);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv("/bin/sh", argv);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], out + len, max - len)) > 0)
		len += (size_t)r;
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "sh failed: %s",
	    script);
	free(script);
	return len;
}

/* What strv_join_shell() prints, a shell reads back as the same words. */
START_TEST(t_strv_join_shell_roundtrip)
{
	static const char	 alpha[] = " \t\n'\"\\$`!*?[]{}()<>|&;#~=%+,"
	    ".:/@^-_aZ09\x01\x7f\x80\xc3\xa9\xff";
	char			*words[6], *joined, want[1024], got[1024];
	uint32_t		 seed = 12345;
	size_t			 nw, i, k, len, wlen, glen;
	int			 iter;

	for (iter = 0; iter < 150; iter++) {
		seed = seed * 1103515245 + 12345;
		nw = 1 + (seed >> 16) % 5;
		wlen = 0;
		for (i = 0; i < nw; i++) {
			seed = seed * 1103515245 + 12345;
			len = (seed >> 16) % 8;
			words[i] = malloc(len + 1);
			ck_assert_ptr_nonnull(words[i]);
			for (k = 0; k < len; k++) {
				seed = seed * 1103515245 + 12345;
				words[i][k] = alpha[(seed >> 16) %
				    (sizeof(alpha) - 1)];
			}
			words[i][len] = '\0';
			memcpy(want + wlen, words[i], len + 1);
			wlen += len + 1;
		}
		words[nw] = NULL;
		joined = strv_join_shell(words);
		glen = sh_split(joined, got, sizeof(got));
		ck_assert_msg(glen == wlen && memcmp(got, want, wlen) == 0,
		    "iteration %d: <%s> read back differently", iter, joined);
		free(joined);
		for (i = 0; i < nw; i++)
			free(words[i]);
	}
}
END_TEST

/* timeutil */

START_TEST(t_duration_parse)
{
	static const struct {
		const char	*s;
		long long	 ms;
	} ok[] = {
		{ "0", 0 }, { "0s", 0 }, { "0ms", 0 }, { "0.0", 0 },
		{ "0d", 0 }, { "5", 5000 }, { "90s", 90000 },
		{ "250ms", 250 }, { "10m", 600000 }, { "1.5m", 90000 },
		{ "1.5h", 5400000 }, { "2h", 7200000 }, { "2d", 172800000 },
		{ "1.5", 1500 }, { "0.5s", 500 }, { "1.25s", 1250 },
		{ "0.001s", 1 }, { "1.0009s", 1000 }, { "007", 7000 },
		{ "100d", 8640000000LL }, { "2400h", 8640000000LL },
		{ "8640000000ms", 8640000000LL },
		/* A positive value that rounds to nothing is still one. */
		{ "0.0001s", 1 }, { "0.4ms", 1 }, { "0.9ms", 1 },
		{ "1.9ms", 1 },
	};
	static const char *const bad[] = {
		"", "s", "ms", "m", ".", "5.", "1.s", ".5.", "-1", "-0", "+1", "1x", "1.5.3",
		"1..5", "1 s", " 1s", "1s ", "1S", "1M", "1e3", "1sm",
		"1h30m", "1,5s", "101d", "2401h", "8640000001ms", "100.5d",
		"99999999999999999999", "99999999999999999999ms",
		"9223372036854775807", "0x10", "\xd9\xa1",
	};
	size_t	i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(timeutil_parse_duration(ok[i].s) == ok[i].ms,
		    "'%s': %lld, not %lld", ok[i].s,
		    timeutil_parse_duration(ok[i].s), ok[i].ms);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(timeutil_parse_duration(bad[i]) == -1,
		    "'%s' gave %lld",
		    bad[i], timeutil_parse_duration(bad[i]));
}
END_TEST

/* However many decimals it takes to say so, a positive duration is never
 * "no limit". */
START_TEST(t_duration_parse_tiny)
{
	static const char *const tiny[] = {
		"0.000001s", "0.0000001s", "0.00000001", "0.0000001d",
		"0.000000000001h",
	};
	size_t	i;

	for (i = 0; i < sizeof(tiny) / sizeof(tiny[0]); i++)
		ck_assert_msg(timeutil_parse_duration(tiny[i]) > 0,
		    "'%s' gave %lld: no limit at all", tiny[i],
		    timeutil_parse_duration(tiny[i]));
	/* 1e-7 days is 8.64ms. */
	ck_assert_int_eq(timeutil_parse_duration("0.0000001d"), 8);
}
END_TEST

START_TEST(t_duration_format)
{
	static const struct {
		long long	 ms;
		const char	*s;
	} cases[] = {
		{ 0, "0ms" }, { 1, "1ms" }, { 850, "850ms" }, { 999, "999ms" },
		{ 1000, "1.0s" }, { 1099, "1.0s" }, { 12345, "12.3s" },
		{ 59999, "59.9s" }, { 60000, "1m00s" }, { 245000, "4m05s" },
		{ 3599999, "59m59s" }, { 3600000, "1h00m" },
		{ 7260000, "2h01m" }, { 8640000000LL, "2400h00m" },
		{ -5, "0ms" },
	};
	char	buf[32];
	size_t	i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 'Z', sizeof(buf));
		ck_assert_str_eq(timeutil_duration(buf, sizeof(buf),
		    cases[i].ms), cases[i].s);
	}
	/* Cut to fit, and still a string. */
	memset(buf, 'Z', sizeof(buf));
	timeutil_duration(buf, 4, 850);
	ck_assert_str_eq(buf, "850");
	ck_assert_int_eq(buf[4], 'Z');
}
END_TEST

START_TEST(t_size_parse)
{
	static const struct {
		const char	*s;
		long long	 n;
	} ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "1k", 1024 }, { "1K", 1024 },
		{ "1kb", 1024 }, { "1KB", 1024 }, { "1KiB", 1024 },
		{ "1kib", 1024 }, { "1ki", 1024 }, { "10m", 10485760 },
		{ "2MiB", 2097152 }, { "1g", 1073741824 },
		{ "3G", 3221225472LL }, { "007k", 7168 },
		{ "1125899906842624", 1125899906842624LL },
		{ "1048576g", 1125899906842624LL },
	};
	static const char *const bad[] = {
		"", "k", "-1", "+1", "1x", "1t", "1kk", "1 k", " 1", "1k ",
		"1.5m", "1ib", "1kbi", "1kibb", "0x10",
		"1125899906842625", "99999999999999999999",
	};
	size_t	i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_msg(timeutil_parse_size(ok[i].s) == ok[i].n,
		    "'%s': %lld, not %lld", ok[i].s,
		    timeutil_parse_size(ok[i].s),
		    ok[i].n);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(timeutil_parse_size(bad[i]) == -1,
		    "'%s' gave %lld",
		    bad[i], timeutil_parse_size(bad[i]));
}
END_TEST

/* A size too big to hold is an error, never a wrapped-around number. */
START_TEST(t_size_parse_overflow)
{
	static const char *const big[] = {
		"8589934592g", "17179869184g", "1125899906842624g",
		"17592186044416m",
	};
	size_t	i;

	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		ck_assert_msg(timeutil_parse_size(big[i]) == -1,
		    "'%s' gave %lld",
		    big[i], timeutil_parse_size(big[i]));
}
END_TEST

START_TEST(t_time_rfc3339)
{
	static const struct {
		time_t		 t;
		const char	*s;
	} cases[] = {
		{ 0, "1970-01-01T00:00:00Z" },
		{ 1700000000, "2023-11-14T22:13:20Z" },
		{ 951782400, "2000-02-29T00:00:00Z" },
		{ 1483228799, "2016-12-31T23:59:59Z" },
		{ -1, "1969-12-31T23:59:59Z" },
		{ 4102444800LL, "2100-01-01T00:00:00Z" },
	};
	char	buf[RFC3339_LEN];
	size_t	i;

	/* Always UTC, whatever the local zone. */
	ck_assert_int_eq(setenv("TZ", "XYZ-13:45", 1), 0);
	tzset();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_str_eq(timeutil_rfc3339(buf, cases[i].t), cases[i].s);
	ck_assert_ptr_eq(timeutil_rfc3339(buf, 0), buf);
}
END_TEST

/* xmalloc: out of memory is forge's exit status 125, not a crash. */

START_TEST(t_xmalloc_fails)
{
	(void)xmalloc(SIZE_MAX - 16);
}
END_TEST

START_TEST(t_xreallocarray_overflow)
{
	(void)xreallocarray(NULL, SIZE_MAX / 2, 4);
}
END_TEST

START_TEST(t_xalloc)
{
	char	*p, *q;

	p = xstrndup("abcdef", 2);
	ck_assert_str_eq(p, "ab");
	free(p);
	p = xasprintf("%s-%d", "x", 3);
	ck_assert_str_eq(p, "x-3");
	free(p);
	/* Zero-sized requests still give memory to free. */
	p = xmalloc(0);
	ck_assert_ptr_nonnull(p);
	q = xcalloc(0, 0);
	ck_assert_ptr_nonnull(q);
	free(q);
	p = xreallocarray(p, 10, 10);
	memset(p, 1, 100);
	free(p);
	q = xcalloc(4, 4);
	for (p = q; p < q + 16; p++)
		ck_assert_int_eq(*p, 0);
	free(q);
}
END_TEST

/* The directories above a path, the top first; with a buffer, once
 * for paths in the same directory. */
START_TEST(t_strv_push_dirs)
{
	struct strv	 v = STRV_INIT;
	struct buf	 last = BUF_INIT;
	char		*j;

	strv_push_dirs(&v, NULL, "");
	ck_assert_uint_eq(v.n, 0);
	strv_push_dirs(&v, NULL, "top");
	strv_push_dirs(&v, NULL, "a/b/c");
	j = strv_join(&v, ",");
	ck_assert_str_eq(j, ",,a,a/b");
	free(j);
	strv_clear(&v);
	strv_push_dirs(&v, &last, "a/b/c");
	strv_push_dirs(&v, &last, "a/b/d");
	strv_push_dirs(&v, &last, "a/bc");
	strv_push_dirs(&v, &last, "a/e");
	strv_push_dirs(&v, &last, "x");
	strv_push_dirs(&v, &last, "y");
	j = strv_join(&v, ",");
	ck_assert_str_eq(j, ",a,a/b,,a,");
	free(j);
	strv_free(&v);
	buf_free(&last);
}
END_TEST

/* Sorted as strcmp() sorts; each string once, pooled or not. */
START_TEST(t_strv_sort_uniq)
{
	struct strv	 v = STRV_INIT;
	int		 pooled;

	for (pooled = 0; pooled < 2; pooled++) {
		if (pooled)
			strv_pool(&v);
		strv_sort_uniq(&v);
		ck_assert_uint_eq(v.n, 0);
		strv_push(&v, "b");
		strv_push(&v, "a/b");
		strv_push(&v, "b");
		strv_push(&v, "a");
		strv_push(&v, "b");
		strv_push(&v, "a-b");
		strv_sort(&v);
		ck_assert_uint_eq(v.n, 6);
		ck_assert_str_eq(v.v[0], "a");
		ck_assert_str_eq(v.v[1], "a-b");
		ck_assert_str_eq(v.v[2], "a/b");
		strv_sort_uniq(&v);
		ck_assert_uint_eq(v.n, 4);
		ck_assert_str_eq(v.v[3], "b");
		ck_assert_ptr_null(v.v[4]);
		ck_assert(strv_sorted_has(&v, "a/b"));
		ck_assert(!strv_sorted_has(&v, "c"));
		ck_assert(!strv_sorted_has(&v, "a/"));
		/* Where each would be: the first not before it. */
		ck_assert_uint_eq(strv_sorted_pos(&v, ""), 0);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a"), 0);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a."), 2);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a/"), 2);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a/b"), 2);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a/c"), 3);
		ck_assert_uint_eq(strv_sorted_pos(&v, "c"), 4);
		strv_free(&v);
		ck_assert_uint_eq(strv_sorted_pos(&v, "a"), 0);
		ck_assert(!strv_sorted_has(&v, "a"));
	}
}
END_TEST

/* sum.h: the same bytes, split any way, give the same sum. */
START_TEST(t_sum_split)
{
	unsigned char	 b[300];
	struct sum	 s;
	uint64_t	 whole[2], d[2];
	size_t		 i, at, n;
	unsigned int	 seed = 7;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(rand_r(&seed) >> 3);
	sum_init(&s);
	sum_add(&s, b, sizeof(b));
	sum_final(&s, whole);
	for (i = 0; i < 200; i++) {
		sum_init(&s);
		for (at = 0; at < sizeof(b); at += n) {
			n = (size_t)rand_r(&seed) % 19;
			if (n > sizeof(b) - at)
				n = sizeof(b) - at;
			sum_add(&s, b + at, n);
		}
		sum_final(&s, d);
		ck_assert(d[0] == whole[0] && d[1] == whole[1]);
	}
}
END_TEST

/* Every one-bit change, at every offset, and every length, shows. */
START_TEST(t_sum_changes)
{
	unsigned char	 b[41];
	struct sum	 s;
	uint64_t	 base[2], d[2], len[sizeof(b) + 1][2];
	size_t		 i, j;
	int		 bit;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 37);
	sum_init(&s);
	sum_add(&s, b, sizeof(b));
	sum_final(&s, base);
	for (i = 0; i < sizeof(b); i++)
		for (bit = 0; bit < 8; bit++) {
			b[i] ^= (unsigned char)(1 << bit);
			sum_init(&s);
			sum_add(&s, b, sizeof(b));
			sum_final(&s, d);
			b[i] ^= (unsigned char)(1 << bit);
			ck_assert(d[0] != base[0] || d[1] != base[1]);
		}
	/* Runs of NULs of each length: none looks like another. */
	memset(b, 0, sizeof(b));
	for (i = 0; i <= sizeof(b); i++) {
		sum_init(&s);
		sum_add(&s, b, i);
		sum_final(&s, len[i]);
		for (j = 0; j < i; j++)
			ck_assert(len[i][0] != len[j][0] ||
			    len[i][1] != len[j][1]);
	}
}
END_TEST

/* Strings are taken with their NULs: where one ends is in the sum. */
START_TEST(t_sum_strings)
{
	struct strv	 v = STRV_INIT, w = STRV_INIT;
	struct sum	 s;
	uint64_t	 a[2], b[2];
	char		*line, want[64];

	sum_init(&s);
	sum_str(&s, "ab");
	sum_str(&s, "c");
	sum_final(&s, a);
	sum_init(&s);
	sum_str(&s, "a");
	sum_str(&s, "bc");
	sum_final(&s, b);
	ck_assert(a[0] != b[0] || a[1] != b[1]);
	strv_push(&v, "x");
	strv_push(&v, "y");
	strv_push(&w, "x");
	sum_init(&s);
	strv_sum(&v, &s, "tag");
	sum_final(&s, a);
	sum_init(&s);
	strv_sum(&w, &s, "tag");
	sum_str(&s, "y");
	sum_final(&s, b);
	ck_assert(a[0] == b[0] && a[1] == b[1]);
	sum_init(&s);
	strv_sum(NULL, &s, "tag");
	sum_final(&s, b);
	ck_assert(a[0] != b[0] || a[1] != b[1]);
	/* The line says the sum so far, which goes on. */
	sum_init(&s);
	strv_sum(&v, &s, "tag");
	line = sum_line(&s, "p ");
	ck_assert_int_ne(snprintf(want, sizeof(want), "p %016llx%016llx\n",
	    (unsigned long long)a[0], (unsigned long long)a[1]), -1);
	ck_assert_str_eq(line, want);
	free(line);
	strv_free(&v);
	strv_free(&w);
}
END_TEST

/* What a file descriptor reads is summed as the same bytes added. */
START_TEST(t_sum_fd)
{
	static unsigned char	 b[200000];
	struct sum		 s;
	uint64_t		 a[2], d[2];
	size_t			 i;
	FILE			*f;
	char			*path;
	int			 fd;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 131 + i / 977);
	ck_assert_ptr_nonnull(f = tmpfile());
	fd = dup(fileno(f));
	fclose(f);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	sum_init(&s);
	sum_add(&s, b, sizeof(b));
	sum_final(&s, a);
	sum_init(&s);
	ck_assert_int_eq(sum_fd(&s, fd), 0);
	sum_final(&s, d);
	ck_assert(a[0] == d[0] && a[1] == d[1]);
	close(fd);
	/* The same by path; none there, none read. */
	ck_assert_int_ne(asprintf(&path, "%s/check_util.sum.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp"), -1);
	ck_assert_int_ne(fd = mkstemp(path), -1);
	ck_assert_int_eq(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	close(fd);
	sum_init(&s);
	ck_assert_int_eq(sum_file(&s, path), 0);
	sum_final(&s, d);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert(a[0] == d[0] && a[1] == d[1]);
	sum_init(&s);
	ck_assert_int_eq(sum_file(&s, path), -1);
	free(path);
	/* A descriptor that cannot be read. */
	sum_init(&s);
	ck_assert_int_eq(sum_fd(&s, fd), -1);
}
END_TEST

static Suite *
util_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("util");
	tc = tcase_create("buf");
	tcase_add_test(tc, t_buf_empty);
	tcase_add_test(tc, t_buf_growth);
	tcase_add_test(tc, t_buf_add);
	tcase_add_test(tc, t_buf_addf);
	tcase_add_test(tc, t_buf_truncate);
	tcase_add_test(tc, t_buf_rtrim);
	tcase_add_test(tc, t_buf_detach);
	tcase_add_test(tc, t_buf_terminated);
	tcase_add_test(tc, t_buf_read);
	suite_add_tcase(s, tc);

	tc = tcase_create("strv");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_strv_push);
	tcase_add_test(tc, t_strv_pop_clear);
	tcase_add_test(tc, t_strv_pool);
	tcase_add_test(tc, t_strv_join);
	tcase_add_test(tc, t_strv_split_z);
	tcase_add_test(tc, t_strv_sort_uniq);
	tcase_add_test(tc, t_strv_push_dirs);
	tcase_add_test(tc, t_strv_join_shell);
	tcase_add_test(tc, t_strv_join_shell_roundtrip);
	suite_add_tcase(s, tc);

	tc = tcase_create("sum");
	tcase_add_test(tc, t_sum_split);
	tcase_add_test(tc, t_sum_changes);
	tcase_add_test(tc, t_sum_strings);
	tcase_add_test(tc, t_sum_fd);
	suite_add_tcase(s, tc);

	tc = tcase_create("timeutil");
	tcase_add_test(tc, t_duration_parse);
	tcase_add_test(tc, t_duration_parse_tiny);
	tcase_add_test(tc, t_duration_format);
	tcase_add_test(tc, t_size_parse);
	tcase_add_test(tc, t_size_parse_overflow);
	tcase_add_test(tc, t_time_rfc3339);
	suite_add_tcase(s, tc);

	tc = tcase_create("xmalloc");
	tcase_add_exit_test(tc, t_xmalloc_fails, 125);
	tcase_add_exit_test(tc, t_xreallocarray_overflow, 125);
	tcase_add_test(tc, t_xalloc);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(util_suite)
