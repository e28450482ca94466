## Tests: containment in namespaces -- a read-only world, a private /tmp, no network --
## and by Landlock and seccomp, where namespaces are denied.

UNIT_TESTS_LIST += tests/check_contain
tests_check_contain_SOURCES = tests/check_contain.c $(UNITFS)
tests_check_contain_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_contain_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_contain_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_landlock
tests_check_landlock_SOURCES = tests/check_landlock.c $(UNITFS)
tests_check_landlock_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_landlock_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_landlock_LDADD = $(TEST_LIBS_COMMON)

# noshare: runs a program under a seccomp filter that makes unshare(2)
# fail, as a machine without namespaces would.
check_PROGRAMS += tests/noshare
tests_noshare_SOURCES = tests/noshare.c

SHELL_TESTS += tests/t-contain.sh tests/t-landlock.sh
EXTRA_DIST += tests/contain-lib.sh
SHELL_TESTS += tests/t-contain-shm.sh

# netprobe: a listener on the host's loopback, and a client that says
# whether it reached it.
check_PROGRAMS += tests/netprobe
tests_netprobe_SOURCES = tests/netprobe.c
