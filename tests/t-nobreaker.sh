#!/bin/sh
# forge verify --no-breaker: the run is recorded in the timeline, but
# neither feeds the circuit breaker nor obeys it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 2

# It does not feed it: failures leave the streak as it was.
run_forge verify --isolated --no-breaker -- false
is "a failure with --no-breaker keeps its status" "$rc" 1
run_forge verify --isolated --no-breaker -- false
run_forge verify --isolated --no-breaker -- false
run_forge status
like "three of them leave the breaker closed, streak 0" "$out" \
    '^breaker: closed \(streak 0 of 2\)'
is "each is recorded, saying so" \
    "$(grep -c '"event":"verify".*"no_breaker":true' "$tl")" 3
is "with its verdict" "$(tail -n 1 "$tl" | "$JSONPICK" verdict no_breaker)" \
    "FAIL	true"
run_forge verify --isolated -- false
run_forge status
like "without it, a failure counts" "$out" '^breaker: closed \(streak 1 of 2\)'
run_forge verify --isolated --no-breaker -- true
run_forge status
like "a PASS with --no-breaker does not end the streak" "$out" \
    '^breaker: closed \(streak 1 of 2\)'

# It does not obey it: an open breaker refuses the others, not it.
run_forge verify --isolated -- false
like "the next failure opens it" "$err" 'circuit breaker is now open'
run_forge verify --isolated -- touch "$T/gated"
is "then a run is refused" "$rc" 75
not_ok "and runs nothing" test -e "$T/gated"
run_forge verify --isolated --no-breaker -- touch "$T/ran"
is "a --no-breaker run still runs" "$rc" 0
ok "and ran its command" test -e "$T/ran"
unlike "without a word of the breaker" "$err" 'circuit breaker'
run_forge verify --staged --no-breaker -- true
is "--staged --no-breaker too" "$rc" 0
run_forge status
like "and the breaker stays open" "$out" '^breaker: OPEN since'
run_forge verify --isolated -- true
is "for the others, still" "$rc" 75
is "its PASS is in the timeline" \
    "$(grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" mode verdict no_breaker)" \
    "staged	PASS	true"

done_testing
