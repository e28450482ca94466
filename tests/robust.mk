## Tests: shell tests of crash recovery, concurrency, time limits, hostile machines, and the harness state.
SHELL_TESTS += tests/t-crash.sh
SHELL_TESTS += tests/t-concurrent.sh
SHELL_TESTS += tests/t-timeout.sh
SHELL_TESTS += tests/t-keep.sh
SHELL_TESTS += tests/t-hostile.sh
SHELL_TESTS += tests/t-timeline.sh
SHELL_TESTS += tests/t-runlog.sh
SHELL_TESTS += tests/t-status.sh
SHELL_TESTS += tests/t-breaker.sh
SHELL_TESTS += tests/t-change.sh
SHELL_TESTS += tests/t-safe-remove.sh
SHELL_TESTS += tests/t-old-kernel.sh
SHELL_TESTS += tests/t-gc-live.sh
SHELL_TESTS += tests/t-gc-dry.sh
SHELL_TESTS += tests/t-reuse-crash.sh
SHELL_TESTS += tests/t-clone.sh
SHELL_TESTS += tests/t-clone-property.sh
SHELL_TESTS += tests/t-messages.sh
SHELL_TESTS += tests/t-search-only.sh

# Fault injection through strace: faults-lib.sh holds what the scripts
# share; scripts/faults runs the sweeps at length.  The sweeps are the
# slowest tests of all: they start first.
EXTRA_DIST += tests/faults-lib.sh scripts/faults scripts/mutate \
	scripts/mutations
SLOW_TESTS += tests/t-faults-sweep.sh tests/t-faults-git.sh
SHELL_TESTS += tests/t-faults.sh

# oldkernel.so: statx(2) as older kernels answer it, for forge under
# LD_PRELOAD (t-old-kernel.sh).
check_PROGRAMS += tests/oldkernel.so
tests_oldkernel_so_SOURCES = tests/oldkernel.c
tests_oldkernel_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_oldkernel_so_LDFLAGS = -shared

# failpath.so: open(2) of a path failing, for forge under LD_PRELOAD
# (t-faults.sh).
check_PROGRAMS += tests/failpath.so
tests_failpath_so_SOURCES = tests/failpath.c
tests_failpath_so_CFLAGS = $(AM_CFLAGS) -fPIC
tests_failpath_so_LDFLAGS = -shared
