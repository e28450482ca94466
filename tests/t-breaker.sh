#!/bin/sh
# The circuit breaker: consecutive FAILs of the real repository open it,
# and forge verify then refuses until someone resets it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
tl=.git/forge/timeline.jsonl
bk=.git/forge/breaker.json

fails() {
	_k=0
	while [ $_k -lt "$1" ]; do
		forge verify --isolated -- sh -c 'exit 1' >/dev/null 2>&1
		_k=$((_k + 1))
	done
}

fails 2
run_forge status
like "after two failures: closed, streak 2 of 3" "$out" \
    '^breaker: closed \(streak 2 of 3\)'
# Longer than a second, so that its start and its end differ.
run_forge verify --isolated -- sh -c 'sleep 1.1; exit 1'
is "the third failure still reports its own status" "$rc" 1
like "and says the breaker opened" "$err" 'circuit breaker is now open'
is "which is an event" "$(tail -n 1 "$tl" | "$JSONPICK" event streak)" \
    "breaker-open	3"

run_forge verify --isolated -- touch "$T/ran"
is "the fourth run is refused" "$rc" 75
not_ok "and runs nothing" test -e "$T/ran"
like "saying why" "$err" '3 consecutive failed verifications, open since'
like "what failed last" "$err" \
    "last failure: sh -c 'sleep 1.1; exit 1' \\(exit status 1\\) at "
like "and how to reset it" "$err" 'forge breaker reset'
run_forge verify --in-place -- touch "$T/ran"
is "in place too" "$rc" 75
run_forge status
like "forge status shows it open" "$out" '^breaker: OPEN since'
like "and the last verdict" "$out" '^last verdict: FAIL'
# One run, one time: when it started, as the timeline has it.
t3=$(grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" time)
like "it opened with the run of $t3" "$out" "^breaker: OPEN since $t3,"
like "which is the last verdict's time" "$out" "^last verdict: FAIL at $t3 "
unlike "whose failure is not shown twice" "$out" '^last failure:'
is "the breaker records that time for the last failure" \
    "$("$JSONPICK" last_fail_at <"$bk")" "$t3"
run_forge breaker
like "forge breaker shows it too" "$out" 'OPEN \(streak 3 of 3\)'

# The state survives the copies: a corrupt breaker file is rebuilt from
# the timeline, and an open breaker stays open.
printf 'garbage' >"$bk"
run_forge verify --isolated -- touch "$T/ran"
is "a corrupt breaker file does not hide an open breaker" "$rc" 75
like "and forge warns that it rebuilt it" "$err" 'corrupt: rebuilding'
rm -f "$bk"
run_forge verify --isolated -- touch "$T/ran"
is "nor does a missing one" "$rc" 75
like "with a warning" "$err" 'missing: rebuilding'

FORGE_SESSION=alice run_forge breaker reset
is "reset succeeds" "$rc" 0
like "and says what it was" "$out" 'closed \(it was open, streak 3\)'
is "the reset is an event naming who" \
    "$(tail -n 1 "$tl" | "$JSONPICK" event session was_open)" \
    "breaker-reset	alice	true"
run_forge verify --isolated -- true
is "verification runs again" "$rc" 0

# What counts: a time-out is a FAIL; forge's errors and interruptions
# count neither way; a PASS ends the streak.
fails 2
git config forge.killAfter 1s
run_forge verify --isolated --timeout 200ms -- sleep 10
is "a time-out is a failure" "$rc" 124
like "that opens the breaker at the third" "$err" 'now open'
forge breaker reset >/dev/null 2>&1
fails 2
fake_git "$T/bad" '[ "$SUB" = apply ] && exit 1; exec "$REAL_GIT" "$@"'
PATH="$T/bad:$PATH" run_forge verify --isolated -- true
is "a forge error is exit 125" "$rc" 125
FORGE_TEST_STALL=checkout start_forge "$T/int.err" verify --isolated -- true
wait_for 30 grep -q 'test stall' "$T/int.err"
kill -TERM "$forge_pid"
wait "$forge_pid"
run_forge status
like "neither counted" "$out" 'streak 2 of 3'
# A direct command that cannot be started verified nothing: an ERROR,
# as often as it happens; a 127 from inside a shell is the step's FAIL.
for k in 1 2 3; do
	run_forge verify --isolated -- forge-no-such-command
done
is "a command not found still exits 127" "$rc" 127
is "and is an ERROR in the timeline" \
    "$(tail -n 1 "$tl" | "$JSONPICK" verdict status)" "ERROR	127"
chmod 644 hello.txt
for k in 1 2 3; do
	run_forge verify --isolated -- ./hello.txt
done
is "a command that cannot be executed still exits 126" "$rc" 126
run_forge status
like "neither feeds the breaker" "$out" 'streak 2 of 3'
run_forge verify --isolated -- sh -c 'forge-no-such-command'
is "a shell's own 127" "$rc" 127
like "is a FAIL that opens it" "$err" 'now open'
forge breaker reset >/dev/null 2>&1
fails 2
run_forge verify --isolated -- true
run_forge status
like "a pass ends the streak" "$out" 'streak 0 of 3'

# The threshold is configurable, from .forgeconfig too, and 0 disables.
printf '[forge]\n\tbreakerThreshold = 1\n' >.forgeconfig
run_forge verify --isolated -- false
like ".forgeconfig sets the threshold" "$err" 'now open'
forge breaker reset >/dev/null 2>&1
git config forge.breakerThreshold 0
fails 5
run_forge verify --isolated -- true
is "git config overrides it; 0 never opens" "$rc" 0
git config forge.breakerThreshold 2
fails 2
run_forge status
like "2 opens at two" "$out" 'OPEN'
git config forge.breakerThreshold -1
run_forge status
is "a negative threshold is a usage error" "$rc" 64

# Concurrent failures count once each (see t-concurrent.sh for 16).
git config forge.breakerThreshold 0
forge breaker reset >/dev/null 2>&1
forge verify --isolated -- false >/dev/null 2>&1 &
forge verify --isolated -- false >/dev/null 2>&1 &
forge verify --isolated -- false >/dev/null 2>&1 &
wait
is "three at once make a streak of three" \
    "$("$JSONPICK" streak <"$bk")" 3
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
