## Tests: shell tests of forge verify: refusals, exit statuses, steps, hooks, hostile settings, signals.

# Helpers: the functions the tests share, and a program that tells how a
# background command ended (killed by a signal, or exited).
EXTRA_DIST += tests/core-lib.sh
check_PROGRAMS += tests/waitstatus
tests_waitstatus_SOURCES = tests/waitstatus.c

SHELL_TESTS += tests/t-refuse.sh
SHELL_TESTS += tests/t-exit.sh
SHELL_TESTS += tests/t-steps.sh
SHELL_TESTS += tests/t-subdir.sh
SHELL_TESTS += tests/t-hook.sh
SHELL_TESTS += tests/t-staged.sh
SHELL_TESTS += tests/t-staged-steps.sh
SHELL_TESTS += tests/t-range.sh
SHELL_TESTS += tests/t-range-carry.sh
SHELL_TESTS += tests/t-range-convert.sh
SHELL_TESTS += tests/t-range-property.sh
SHELL_TESTS += tests/t-range-signals.sh
SHELL_TESTS += tests/t-nobreaker.sh
SHELL_TESTS += tests/t-hookinstall.sh
SHELL_TESTS += tests/t-cache.sh
SHELL_TESTS += tests/t-audit.sh
SHELL_TESTS += tests/t-cache-key.sh
SHELL_TESTS += tests/t-cache-convert.sh
SHELL_TESTS += tests/t-cache-sparse.sh
SHELL_TESTS += tests/t-hostile-config.sh
SHELL_TESTS += tests/t-racy-index.sh
SHELL_TESTS += tests/t-patch-fail.sh
SHELL_TESTS += tests/t-signals.sh
SHELL_TESTS += tests/t-signal-escalate.sh
SHELL_TESTS += tests/t-brokenpipe.sh
SHELL_TESTS += tests/t-terminal.sh
SHELL_TESTS += tests/t-mappaths.sh
SHELL_TESTS += tests/t-color.sh
SHELL_TESTS += tests/t-honest.sh
SHELL_TESTS += tests/t-escape.sh
SHELL_TESTS += tests/t-setup.sh
SHELL_TESTS += tests/t-setup-inputs.sh
SHELL_TESTS += tests/t-setup-effects.sh
# The README's example for each kind of project; autotools is slow.
SLOW_TESTS += tests/t-projects.sh
SHELL_TESTS += tests/t-reuse.sh
SHELL_TESTS += tests/t-reuse-carry.sh
SHELL_TESTS += tests/t-reuse-asis.sh
SHELL_TESTS += tests/t-reuse-look.sh
SHELL_TESTS += tests/t-reuse-rules.sh
SHELL_TESTS += tests/t-reuse-worktrees.sh
SHELL_TESTS += tests/t-reuse-unproven.sh
SHELL_TESTS += tests/t-reuse-registration.sh
SHELL_TESTS += tests/t-reuse-convert.sh
SHELL_TESTS += tests/t-reuse-submodule.sh
SHELL_TESTS += tests/t-reuse-nested.sh
SHELL_TESTS += tests/t-reuse-nested-build.sh
SHELL_TESTS += tests/t-reuse-unparked.sh
SHELL_TESTS += tests/t-reuse-source.sh
SHELL_TESTS += tests/t-reuse-kinds.sh
SHELL_TESTS += tests/t-reuse-convert-source.sh
SHELL_TESTS += tests/t-reuse-convert-nested.sh
SHELL_TESTS += tests/t-hint.sh
SHELL_TESTS += tests/t-progress.sh
