/*
 * The main of every check unit test program: run the suite that the
 * program defines and report in TAP on standard output, which automake's
 * TAP driver reads.  Each test runs in its own child (check's default),
 * so a crash fails one test, not the program.  NCASES() counts a table
 * of cases.
 */
#ifndef UNIT_H
#define UNIT_H

#include <check.h>
#include <signal.h>
#include <stdlib.h>

/* How many rows a table of cases has, for tcase_add_loop_test. */
#define NCASES(t)	((int)(sizeof(t) / sizeof((t)[0])))

/*
 * The fatal signals start at their defaults, as in a shell's foreground
 * job: a suite started under nohup(1), as build daemons do, inherits an
 * ignored SIGHUP, which forge (rightly) would keep ignored.
 */
#define UNIT_MAIN(suite_fn)						\
int									\
main(void)								\
{									\
	SRunner	*sr;							\
	int	 failed;						\
									\
	signal(SIGHUP, SIG_DFL);					\
	signal(SIGINT, SIG_DFL);					\
	signal(SIGQUIT, SIG_DFL);					\
	signal(SIGTERM, SIG_DFL);					\
	sr = srunner_create((suite_fn)());				\
	srunner_set_tap(sr, "-");					\
	srunner_run_all(sr, CK_SILENT);					\
	failed = srunner_ntests_failed(sr);				\
	srunner_free(sr);						\
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;		\
}

#endif /* UNIT_H */
