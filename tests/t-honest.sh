#!/bin/sh
# What forge records is what it exits with; --exit=verdict tells a gate a
# failing test from forge; closed standard descriptors harm nothing.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
timeline="$common/forge/timeline.jsonl"

# A verdict that cannot be recorded as it is becomes an ERROR, and the
# timeline says so too.  The breaker cannot be saved here: a directory
# stands where its file goes.
run_forge verify -- false
is "a failing run first: exit 1" "$rc" 1
rm -f "$common/forge/breaker.json"
mkdir "$common/forge/breaker.json"
run_forge verify -- true
is "a pass whose breaker cannot be saved exits 125" "$rc" 125
like "and says the verdict could not be recorded" "$err" \
    'the verdict could not be recorded'
like "the summary says ERROR" "$err" 'Verdict: ERROR'
like "the timeline says ERROR too, never PASS" "$(last_verify "$T/r")" \
    '"verdict":"ERROR","status":125'
run_forge log -n 1
like "and so does forge log" "$out" 'ERROR'
rmdir "$common/forge/breaker.json"

# A time limit, then a verdict that cannot be recorded: ERROR, and what
# forge exits with says the same (not the time limit's 124).
run_forge verify --in-place --no-check --exit=verdict --timeout 1s -- \
    sh -c 'rm -f .git/forge/breaker.json; mkdir .git/forge/breaker.json; sleep 5'
is "timed out, then not recorded: exit 125" "$rc" 125
like "the summary says ERROR" "$err" 'Verdict: ERROR'
like "and so does the timeline" "$(last_verify "$T/r")" '"verdict":"ERROR"'
unlike "without a time limit's mark" "$(last_verify "$T/r")" '"timed_out"'
rmdir "$common/forge/breaker.json"

# A signal between two steps: the second never ran, and is not recorded.
git config --add forge.verify 'echo one'
git config --add forge.verify 'echo two >"$0"'
FORGE_TEST_STALL=step start_forge "$T/step.err" verify
wait_for 30 grep -q "test stall: step" "$T/step.err"
kill -TERM "$forge_pid"
wait "$forge_pid"
is "interrupted between steps: forge dies of the signal" "$?" 143
ev=$(last_verify "$T/r")
like "the event says INTERRUPTED with 128+N" "$ev" \
    '"verdict":"INTERRUPTED","status":143'
is "and lists only the step that ran" \
    "$(printf "%s\n" "$ev" | "$JSONPICK" steps.1.command)" "-"
is "the step that ran is there" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" steps.0.command)" "echo one"
git config --unset-all forge.verify

# A lost breaker.json is rebuilt as the breaker was, not as today's
# threshold would have it.
git config forge.breakerThreshold 3
forge breaker reset >/dev/null
run_forge verify -- false
run_forge verify -- false
git config forge.breakerThreshold 2
rm "$common/forge/breaker.json"
run_forge breaker
like "rebuilt: two failures under a threshold of 3 left it closed" "$out" \
    '^breaker: closed \(streak 2 of 2\)'
run_forge verify -- false
is "the next failure opens it, as it would have" "$rc" 1
run_forge breaker
like "now open, with its streak" "$out" '^breaker: OPEN \(streak 3 of 2\)'
rm "$common/forge/breaker.json"
run_forge breaker
like "rebuilt: open, with its streak" "$out" '^breaker: OPEN \(streak 3 of 2\)'
forge breaker reset >/dev/null
rm "$common/forge/breaker.json"
run_forge breaker
like "rebuilt after a reset: closed" "$out" '^breaker: closed \(streak 0 of 2\)'
git config forge.breakerThreshold 0

# --exit=verdict: PASS 0, FAIL 1, TIMEOUT 124, ERROR 125, INTERRUPTED
# 128+N; the default stays the command's own status.
for code in 64 75 124 125; do
	run_forge verify -- sh -c "exit $code"
	is "a step exiting $code: forge exits $code by default" "$rc" "$code"
	run_forge verify --exit=verdict -- sh -c "exit $code"
	is "with --exit=verdict it is a FAIL: 1" "$rc" 1
done
run_forge verify --exit=verdict -- true
is "--exit=verdict: PASS is 0" "$rc" 0
run_forge verify --exit=verdict --timeout 0.2s -- sleep 5
is "--exit=verdict: a timeout is 124" "$rc" 124
run_forge verify --exit=verdict -- no-such-command-anywhere
is "--exit=verdict: a command not found is an ERROR: 125" "$rc" 125
TMPDIR="$T/no-such-dir" run_forge verify --exit=verdict --isolated -- true
is "--exit=verdict: forge's own failure is 125" "$rc" 125
like "an ERROR" "$err" 'Verdict: ERROR'
run_forge verify --exit=verdict --isolated -- sh -c 'kill -TERM $PPID; sleep 5'
is "--exit=verdict: interrupted is 128+N" "$rc" 143
run_forge verify --exit=sometimes -- true
is "--exit takes verdict or status only" "$rc" 64
like "and says so" "$err" '--exit=sometimes'
git config forge.breakerThreshold 1
run_forge verify -- false
run_forge verify --exit=verdict -- true
is "--exit=verdict: breaker open is 75" "$rc" 75
forge breaker reset >/dev/null
git config forge.breakerThreshold 0

# Started with standard input, output and error closed.  A missing
# breaker.json makes forge warn while it holds the state lock.
: >"$common/forge/lock"
rm -f "$common/forge/breaker.json"
# (forge itself: a wrapper such as valgrind needs its own descriptors.)
"$FORGE" verify --isolated -- sh -c 'echo out; echo err >&2' <&- >&- 2>&-
is "closed 0, 1 and 2: the run passes" "$?" 0
is "the state lock got no message" "$(wc -c <"$common/forge/lock")" 0
ok "the timeline is all JSON" json_lines "$timeline"
is "nothing is left" "$(leftovers "$T/r")" ""
rm -f "$common/forge/breaker.json"
"$FORGE" verify -- false 2>&-
is "closed 2 and a failure: the status is the step's" "$?" 1
is "the state lock still got nothing" "$(wc -c <"$common/forge/lock")" 0
ok "nor the timeline" json_lines "$timeline"

done_testing
