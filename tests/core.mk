## Tests: shell tests of forge verify: refusals, exit statuses, steps, hooks, hostile settings, signals.
EXTRA_DIST += tests/core-lib.sh
SHELL_TESTS += tests/t-refuse.sh
SHELL_TESTS += tests/t-exit.sh
SHELL_TESTS += tests/t-steps.sh
SHELL_TESTS += tests/t-subdir.sh
SHELL_TESTS += tests/t-hook.sh
SHELL_TESTS += tests/t-hostile-config.sh
SHELL_TESTS += tests/t-racy-index.sh
SHELL_TESTS += tests/t-patch-fail.sh
