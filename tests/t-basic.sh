#!/bin/sh
# The seed demonstration: a command that wrecks the copy leaves the
# source as it was, and the copy is gone afterwards.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'uncommitted edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
printf 'object\n' >main.o
before=$(state_of "$T/r")

run_forge verify --isolated -- sh -c '
	test -f notes.txt || exit 11
	test ! -e main.o || exit 12
	grep -q "uncommitted edit" hello.txt || exit 13
	rm hello.txt && echo new >created.txt'
is "the destructive command passes in the copy" "$rc" 0
like "the run says it is isolated" "$err" \
    'isolated: running verification in an ephemeral copy'
like "the run ends with a verdict line" "$(printf '%s\n' "$err" | tail -n 1)" \
    '^Verify: sh -c .* Verdict: PASS'
is "the source is untouched" "$(state_of "$T/r")" "$before"
ok "the tracked file keeps its uncommitted edit" grep -q "uncommitted edit" hello.txt
not_ok "the file created in the copy is not in the source" test -e created.txt
is "nothing is left behind" "$(leftovers "$T/r")" ""

run_forge verify -- sh -c 'exit 3'
is "in place, a failing command's status is forge's" "$rc" 3
like "and the verdict says FAIL" "$err" 'Verdict: FAIL \(exit status 3'

done_testing
