#!/bin/sh
# --timeout and forge.timeout: the command's whole process group gets
# SIGTERM, then SIGKILL after the grace period; forge cleans up and exits
# 124 as timeout(1) does; nothing of the group survives.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
git config forge.killAfter 1s
git config forge.breakerThreshold 0
before=$(state_of "$T/r")

run_forge verify --isolated --timeout 1s -- sleep 30
is "a command past its time limit makes forge exit 124" "$rc" 124
like "the verdict is FAIL, timed out" "$(printf '%s\n' "$err" | tail -n 1)" \
    'Verdict: FAIL \(timed out, exit status 124'
is "nothing is left behind" "$(leftovers "$T/r")" ""
is "the timeline records the time-out" \
    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" verdict status timed_out)" \
    "FAIL	124	true"

# A child that ignores SIGTERM, a grandchild in the background that
# ignores it too: both are gone when forge exits.
run_forge verify --isolated --timeout 1s -- sh -c '
	trap "" TERM
	sh -c "trap \"\" TERM; echo \$\$ >\"$1/grandchild\"; while :; do sleep 1; done" &
	echo $$ >"$1/child"
	while :; do sleep 1; done' sh "$T"
is "SIGTERM ignored: still 124" "$rc" 124
ok "the child is gone" sh -c '! kill -0 "$(cat "$1")" 2>/dev/null' sh "$T/child"
ok "the background grandchild is gone" \
    sh -c '! kill -0 "$(cat "$1")" 2>/dev/null' sh "$T/grandchild"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# A command that exits in time, having left a background job running:
# the job is stopped too, since the copy under it is about to go.
run_forge verify --isolated -- sh -c \
    '(echo $$ >/dev/null; exec sleep 60) & echo $! >"$1/bg"' sh "$T"
is "a command that finishes in time passes" "$rc" 0
ok "its background job does not outlive forge" \
    sh -c '! kill -0 "$(cat "$1")" 2>/dev/null' sh "$T/bg"

# forge.timeout, and --timeout overriding it.
git config forge.timeout 1s
run_forge verify --in-place -- sleep 30
is "forge.timeout limits in place too" "$rc" 124
run_forge verify --in-place --timeout 0 -- sh -c 'sleep 1.5; exit 7'
is "--timeout 0 means no limit, over forge.timeout" "$rc" 7
run_forge verify --in-place --timeout 500ms -- sleep 30
is "milliseconds work" "$rc" 124
git config --unset forge.timeout

# The limit covers all the steps together.
git config --add forge.verify 'sleep 0.6'
git config --add forge.verify 'sleep 0.6'
git config --add forge.verify 'touch "$0.third"'
run_forge verify --isolated --timeout 1s
is "the limit is for the whole verification" "$rc" 124
is "the timed-out run recorded two steps" \
    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" steps.1.status steps.2.status)" \
    "143	-"
git config --unset-all forge.verify

# Bad durations are usage errors, before anything runs.
for bad in 1x -1 '' 5.m abc 99999999d; do
	run_forge verify --timeout "$bad" -- touch "$T/ran"
	is "--timeout '$bad' is a usage error" "$rc" 64
done
git config forge.timeout soon
run_forge verify -- touch "$T/ran"
is "a bad forge.timeout is a usage error" "$rc" 64
like "that names the setting" "$err" 'forge.timeout'
git config --unset forge.timeout
not_ok "and nothing ran" test -e "$T/ran"

is "the source was never touched" "$(state_of "$T/r")" "$before"
done_testing
