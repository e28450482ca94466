/*
 * Unit tests for progress.c: what a terminal on standard error shows, and
 * that anything else shows nothing.  The terminal is a pseudo-terminal;
 * FORGE_TEST_PROGRESS_DELAY sets the delay, so nothing here waits.
 */
#include "config.h"

#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "buf.h"
#include "progress.h"

static int	master = -1;

/* Standard error becomes a new pseudo-terminal, its output raw. */
static int
stderr_on_pty(void)
{
	struct termios	 t;
	char		*name;
	int		 slave;

	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) == -1 ||
	    grantpt(master) == -1 || unlockpt(master) == -1 ||
	    (name = ptsname(master)) == NULL ||
	    (slave = open(name, O_RDWR | O_NOCTTY)) == -1)
		return -1;
	if (tcgetattr(slave, &t) == 0) {
		t.c_oflag &= ~(tcflag_t)OPOST;
		(void)tcsetattr(slave, TCSANOW, &t);
	}
	if (dup2(slave, STDERR_FILENO) == -1)
		return -1;
	close(slave);
	return 0;
}

/* What the terminal got so far. */
static void
drain(struct buf *b)
{
	struct pollfd	p;
	char		chunk[4096];
	ssize_t		n;

	buf_reset(b);
	fflush(stderr);
	p.fd = master;
	p.events = POLLIN;
	while (poll(&p, 1, 50) == 1 && (n = read(master, chunk,
	    sizeof(chunk))) > 0)
		buf_add(b, chunk, (size_t)n);
	buf_str(b);
}

START_TEST(t_shown_on_terminal)
{
	struct buf	b = BUF_INIT;
	unsigned long long	i;

	ck_assert_int_eq(stderr_on_pty(), 0);
	ck_assert_int_eq(setenv("FORGE_TEST_PROGRESS_DELAY", "0", 1), 0);
	ck_assert_int_eq(progress_wanted(), 1);
	progress_start("copying", 200);
	for (i = 1; i <= 200; i++)
		progress_update(i);
	progress_end();
	drain(&b);
	/* The first file is drawn at once; the end says done. */
	ck_assert_ptr_nonnull(strstr(b.data, "\rforge: copying:   0% (1/200)"));
	ck_assert_ptr_nonnull(strstr(b.data,
	    "\rforge: copying: 100% (200/200), done.\n"));
	/* Redrawn at most every tenth of a second, and at 100%: a loop
	 * that changes the percentage 100 times draws a few lines. */
	ck_assert_int_lt((int)(strlen(b.data) / strlen("\rforge: copying: "
	    "100% (200/200)")), 50);
	buf_free(&b);
}
END_TEST

START_TEST(t_short_of_total)
{
	struct buf	b = BUF_INIT;

	ck_assert_int_eq(stderr_on_pty(), 0);
	ck_assert_int_eq(setenv("FORGE_TEST_PROGRESS_DELAY", "0", 1), 0);
	progress_start("copying", 10);
	progress_update(3);
	progress_end();
	drain(&b);
	ck_assert_ptr_nonnull(strstr(b.data, "\rforge: copying:  30% (3/10)\n"));
	ck_assert_ptr_null(strstr(b.data, "done"));
	/* A second start after an end draws its own line. */
	progress_start("syncing", 2);
	progress_update(1);
	progress_start("checking", 1);	/* ends "syncing" first */
	progress_update(1);
	progress_end();
	drain(&b);
	ck_assert_ptr_nonnull(strstr(b.data, "\rforge: syncing:  50% (1/2)\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
	    "\rforge: checking: 100% (1/1), done.\n"));
	buf_free(&b);
}
END_TEST

START_TEST(t_within_delay)
{
	struct buf	b = BUF_INIT;
	unsigned long long	i;

	ck_assert_int_eq(stderr_on_pty(), 0);
	ck_assert_int_eq(setenv("FORGE_TEST_PROGRESS_DELAY", "3600000", 1),
	    0);
	progress_start("copying", 100);
	for (i = 1; i <= 100; i++)
		progress_update(i);
	progress_end();
	drain(&b);
	ck_assert_str_eq(b.data, "");
	ck_assert_str_eq(progress_git_delay(), "3600");
	ck_assert_int_eq(unsetenv("FORGE_TEST_PROGRESS_DELAY"), 0);
	ck_assert_str_eq(progress_git_delay(), "1");
	buf_free(&b);
}
END_TEST

START_TEST(t_not_a_terminal)
{
	char	got[64];
	int	fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_ne(fcntl(fds[0], F_SETFL, O_NONBLOCK), -1);
	ck_assert_int_ne(dup2(fds[1], STDERR_FILENO), -1);
	ck_assert_int_eq(setenv("FORGE_TEST_PROGRESS_DELAY", "0", 1), 0);
	ck_assert_int_eq(progress_wanted(), 0);
	progress_start("copying", 5);
	progress_update(5);
	progress_end();
	fflush(stderr);
	ck_assert_int_eq((int)read(fds[0], got, sizeof(got)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

START_TEST(t_nothing_to_count)
{
	struct buf	b = BUF_INIT;

	ck_assert_int_eq(stderr_on_pty(), 0);
	ck_assert_int_eq(setenv("FORGE_TEST_PROGRESS_DELAY", "0", 1), 0);
	/* Updates without a start, and a total of 0, draw nothing. */
	progress_update(3);
	progress_end();
	progress_start("copying", 0);
	progress_update(0);
	progress_end();
	drain(&b);
	ck_assert_str_eq(b.data, "");
	buf_free(&b);
}
END_TEST

static Suite *
progress_suite(void)
{
	Suite	*s = suite_create("progress");
	TCase	*tc = tcase_create("progress");

	tcase_add_test(tc, t_shown_on_terminal);
	tcase_add_test(tc, t_short_of_total);
	tcase_add_test(tc, t_within_delay);
	tcase_add_test(tc, t_not_a_terminal);
	tcase_add_test(tc, t_nothing_to_count);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(progress_suite)
