## The test suite: check unit programs and shell tests on real
## repositories, all speaking TAP to automake's driver.

# NO_COLOR: forge's verdicts without colour, whatever git configuration
# a test sets (color.ui=always, say); t-color.sh unsets it.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) \
	$(top_srcdir)/build-aux/tap-driver.sh
SH_LOG_DRIVER = $(LOG_DRIVER)
TEST_EXTENSIONS = .sh

AM_TESTS_ENVIRONMENT = \
	FORGE='$(abs_top_builddir)/forge'; export FORGE; \
	TREELIST='$(abs_top_builddir)/tests/treelist'; export TREELIST; \
	JSONPICK='$(abs_top_builddir)/tests/jsonpick'; export JSONPICK; \
	FORGE_WRAPPER='$(FORGE_WRAPPER)'; export FORGE_WRAPPER; \
	TESTLIB='$(abs_top_srcdir)/tests/lib.sh'; export TESTLIB; \
	MANPAGE='$(abs_top_srcdir)/man/forge.1'; export MANPAGE; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	NO_COLOR=1; export NO_COLOR;

check_PROGRAMS = tests/treelist tests/jsonpick
tests_treelist_SOURCES = tests/treelist.c
tests_treelist_LDADD = $(LIBBSD_LIBS)
tests_jsonpick_SOURCES = tests/jsonpick.c
tests_jsonpick_LDADD = libforge.a $(LIBBSD_LIBS)

# Unit tests: each tests/check_NAME.c is one check program, linked with
# the modules it tests (libforge.a, never main.c).  Shell tests are
# tests/t-NAME.sh.  Each area lists its own in an included file.
UNIT_TESTS_LIST =
SHELL_TESTS = tests/t-basic.sh tests/t-manpage.sh tests/t-completion.sh \
	tests/t-testlib.sh \
	tests/t-modmap.sh \
	tests/t-bootstrap.sh
# Shell tests that take the longest, run first: make -j then keeps every
# job busy to the end.
SLOW_TESTS =
TEST_CFLAGS_COMMON = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS_COMMON = libforge.a $(CHECK_LIBS) $(LIBBSD_LIBS)

include tests/unit.mk
include tests/core.mk
include tests/fidelity.mk
include tests/robust.mk
include tests/contain.mk

if UNIT_TESTS
check_PROGRAMS += $(UNIT_TESTS_LIST)
endif

TESTS = $(SLOW_TESTS) $(UNIT_TESTS_LIST) $(SHELL_TESTS)
EXTRA_DIST += tests/lib.sh tests/lib-functions.sh tests/zcomp.zsh $(SLOW_TESTS) $(SHELL_TESTS)

# The shell tests again, every forge run of theirs checking its fast
# verdicts (cache, reused and carried copies) against a fresh copy's,
# and failing on a divergence (tests/lib.sh: FORGE_TEST_AUDIT).
check-audit:
	FORGE_TEST_AUDIT=1 $(MAKE) $(AM_MAKEFLAGS) check \
	    TESTS="$(SLOW_TESTS) $(SHELL_TESTS)"
.PHONY: check-audit
