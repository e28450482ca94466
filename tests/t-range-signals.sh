#!/bin/sh
# A range interrupted: forge (and with --jobs, each forge verifying a
# slice) passes the signal on, removes its copies and dies of it, the
# commit running then recorded INTERRUPTED; killed outright, the next
# forge removes what it left.  The working tree stays as it was.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

ulimit -c 0
new_repo "$T/r"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
# Every commit's step notes its pid, then sleeps.
printf '[forge]\n\tverify = echo $$ >>%s && exec sleep 60\n' "$T/ran" \
    >.forgeconfig
git add .forgeconfig
git commit -q -m one
for i in 2 3 4; do
	git commit -q --allow-empty -m "c$i"
done
printf 'edit\n' >>hello.txt
before=$(state_of "$T/r")

# sleepers_gone: every step that started has ended.
sleepers_gone() {
	for _p in $(cat "$T/ran"); do
		gone "$_p" || return 1
	done
}
lines() {
	[ -f "$T/ran" ] && [ "$(wc -l <"$T/ran")" -ge "$1" ]
}

for jobs in 1 2; do
	for sig in INT TERM; do
		rm -f "$T/ran"
		start_bg "$FORGE" verify --rev="$start..main" --jobs "$jobs" ||
		    fail "forge started" "$(cat "$T/bg.err")"
		wait_until 30 lines "$jobs" ||
		    fail "--jobs $jobs: the steps started" "$(cat "$T/bg.err")"
		kill -s "$sig" "$pid"
		finish_bg
		is "--jobs $jobs, SIG$sig: forge dies of it" "$how" \
		    "signal $(signum "$sig")"
		ok "--jobs $jobs, SIG$sig: every step it started is gone" \
		    wait_until 10 sleepers_gone
		like "--jobs $jobs, SIG$sig: the table says so" \
		    "$(cat "$T/bg.err")" "  [0-9a-f]{12}  INTERRUPTED +ran"
		is "--jobs $jobs, SIG$sig: recorded INTERRUPTED" \
		    "$(tail -n "$jobs" "$tl" | "$JSONPICK" verdict | sort -u)" \
		    INTERRUPTED
		is "--jobs $jobs, SIG$sig: nothing is left behind" \
		    "$(leftovers "$T/r")" ""
	done
done
is "the working tree, index and HEAD are as they were" \
    "$(state_of "$T/r")" "$before"

# Killed outright, with its workers: the next forge cleans up.
rm -f "$T/ran"
start_bg "$FORGE" verify --rev="$start..main" --jobs 2 ||
    fail "forge started" "$(cat "$T/bg.err")"
wait_until 30 lines 2 || fail "the steps started" "$(cat "$T/bg.err")"
# forge first: a worker killed before it would be seen dying, and forge
# end with its own status before its SIGKILL came.
kids=$(cat /proc/"$pid"/task/*/children)
kill -KILL "$pid"
kill -KILL $kids 2>/dev/null
finish_bg
is "SIGKILL: forge died of it" "$how" "signal 9"
run_forge gc
is "forge gc after it succeeds" "$rc" 0
ok "the steps it left running are ended" wait_until 10 sleepers_gone
is "and nothing is left behind" "$(leftovers "$T/r")" ""
is "the working tree, index and HEAD are still as they were" \
    "$(state_of "$T/r")" "$before"
done_testing
