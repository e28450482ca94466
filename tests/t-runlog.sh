#!/bin/sh
# Each run's output kept in the real repository: what was streamed,
# byte for byte, capped per run and in all, never shown whole when it is
# not, readable again with forge show.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
logs="$T/r/.git/forge/logs"
tl="$T/r/.git/forge/timeline.jsonl"
last_log() { tail -n 1 "$tl" | "$JSONPICK" log; }

# The live stream and the log, side by side: stdout and stderr into one
# file keep one channel, so the order is the order they were written.
forge verify --isolated -- sh -c 'echo one; echo two >&2; echo three;
    exit 3' >"$T/all" 2>&1
is "a failing run fails as before" "$?" 3
id=$(last_log)
like "the event names its log" "$id" '^[0-9a-f]{8}$'
ok "the log is there, whole" test -f "$logs/$id.log"
not_ok "and no part of it is left" test -e "$logs/$id.part"
is "the log is the stream, in order, but the line that names it" \
    "$(grep -v '^forge: its output is kept' "$T/all")" "$(cat "$logs/$id.log")"
like "the log holds forge's own lines" "$(cat "$logs/$id.log")" \
    '^forge: isolated: running verification'
like "and the verdict's" "$(tail -n 1 "$logs/$id.log")" \
    'Verdict: FAIL \(exit status 3;'
like "the stream says how to see it again" "$(cat "$T/all")" \
    "forge: its output is kept: forge show $id"
like "just above the verdict line, which stays the last" \
    "$(tail -n 2 "$T/all" | head -n 1)" "^forge: its output is kept: forge show $id\$"
is "the log is the owner's alone" "$(stat -c %a "$logs/$id.log")" 600
is "in a directory of the owner's alone" "$(stat -c %a "$logs")" 700

run_forge show
is "forge show: the last failed run's output" "$out" "$(cat "$logs/$id.log")"
is "and exits 0" "$rc" 0
run_forge show "$id"
is "forge show ID: the same" "$out" "$(cat "$logs/$id.log")"
run_forge log
like "forge log marks the run that has one" "$out" "exit status 3\\) \\[log $id\\]"

# A PASS is kept too, and says nothing more.
run_forge verify --in-place -- sh -c 'echo in place'
is "in place, a pass" "$rc" 0
pid=$(last_log)
ok "its log is kept too" grep -q '^in place$' "$logs/$pid.log"
unlike "a pass does not announce it" "$err" 'forge show'
run_forge show
is "forge show still shows the last run that did not pass" "$out" \
    "$(cat "$logs/$id.log")"

# Binary output: every byte, as written.
dd if=/dev/urandom of="$T/bytes" bs=4096 count=1 2>/dev/null
run_forge verify --in-place -- sh -c "cat '$T/bytes'; exit 1"
bid=$(last_log)
forge show "$bid" >"$T/shown" 2>/dev/null
skip1=$(($(head -n 1 "$T/shown" | wc -c) + 1))
ok "binary output is kept byte for byte" sh -c \
    "tail -c +$skip1 '$T/shown' | head -c 4096 | cmp -s - '$T/bytes'"

# The cap: the first half and the last half, and what was left out.
git config forge.logSize 4k
run_forge verify --in-place -- sh -c 'echo FIRST; i=0;
    while [ $i -lt 3000 ]; do echo "line $i of the middle"; i=$((i+1)); done;
    echo LAST'
cid=$(last_log)
size=$(wc -c <"$logs/$cid.log")
ok "a huge output's log stays near its cap ($size bytes)" test "$size" -lt 4300
ok "it keeps the beginning" grep -q '^FIRST$' "$logs/$cid.log"
ok "and the end" grep -q '^LAST$' "$logs/$cid.log"
ok "and says what it left out" grep -q \
    '^\[forge: [0-9]* bytes of output left out here: more than forge.logSize\]$' \
    "$logs/$cid.log"
ok "the stream itself is whole" sh -c 'printf "%s\n" "$1" | grep -q "line 1500 of"' \
    - "$out"
git config --unset forge.logSize

# forge.logSize 0: nothing kept.
git config forge.logSize 0
n=$(ls "$logs" | wc -l)
run_forge verify --in-place -- sh -c 'echo unkept; exit 1'
is "forge.logSize 0: no log" "$(ls "$logs" | wc -l)" "$n"
is "and the event names none" "$(last_log)" "-"
unlike "nor does the stream" "$err" 'forge show'
run_forge show
like "forge show says the last failed run has none" "$err" \
    'has no output kept'
is "and exits 1" "$rc" 1
git config --unset forge.logSize

# An old timeline's event, with no log field: read as before.
printf '%s\n' '{"event":"verify","time":"2020-01-01T00:00:00Z","session":null,"mode":"isolated","verdict":"FAIL","status":1,"duration_ms":5}' >>"$tl"
run_forge log -n 1
like "an event from before logs reads as before" "$out" \
    '2020-01-01T00:00:00Z .* FAIL'
unlike "with no mark" "$out" '\[log'
run_forge show
is "forge show: that run has no output kept" "$rc" 1
run_forge show 0123abcd
is "an unknown id: exit 1" "$rc" 1
like "saying so" "$err" 'no output kept for run 0123abcd'
run_forge show ../../x
is "an id that is no id: the same" "$rc" 1

# The total cap: the oldest go first, the newest stays.
git config forge.logTotal 1k
for i in 1 2 3; do
	forge verify --in-place -- sh -c "head -c 600 /dev/zero | tr '\\\\0' x; echo; echo run $i" \
	    >/dev/null 2>&1
	eval "id$i=\$(last_log)"
	sleep 0.01
done
not_ok "past forge.logTotal the oldest goes" test -e "$logs/$id1.log"
ok "the newest stays" test -e "$logs/$id3.log"
git config --unset forge.logTotal

# Two runs at once: each its own log, nothing of the other's.
rm -f "$T/go"
forge verify --in-place -- sh -c "echo from-a; while [ ! -e '$T/go' ]; do sleep 0.05; done; echo end-a" \
    >/dev/null 2>&1 &
a=$!
wait_for 10 sh -c "grep -l '^from-a$' '$logs'/*.part"
forge verify --in-place -- sh -c 'echo from-b' >/dev/null 2>&1
b_id=$(last_log)
touch "$T/go"
wait "$a"
a_id=$(last_log)
ok "the first run's log has its output" grep -q '^end-a$' "$logs/$a_id.log"
not_ok "and none of the second's" grep -q 'from-b' "$logs/$a_id.log"
not_ok "nor the second's of the first's" grep -q 'from-a' "$logs/$b_id.log"

# A run killed with SIGKILL: its log is never shown as whole.
rm -f "$T/go"
start_forge "$T/err" verify --isolated -- sh -c "echo before-kill; while [ ! -e '$T/go' ]; do sleep 0.05; done"
wait_for 10 sh -c "grep -l '^before-kill$' '$logs'/*.part"
part=$(grep -l '^before-kill$' "$logs"/*.part)
kill -KILL "$forge_pid"
wait "$forge_pid" 2>/dev/null
kid=$(basename "$part" .part)
run_forge show "$kid"
is "a dead run's log: forge show exits 1" "$rc" 1
like "saying it is only part" "$err" "ended before its output was written whole"
like "what there is is shown" "$out" 'before-kill'
touch "$T/go"
run_forge gc
like "forge gc removes it" "$out" "removed .*$kid.part"
not_ok "it is gone" test -e "$part"

# A step that leaves a process behind holding its output: the run still
# ends with the step.
run_forge verify --in-place -- sh -c "sleep 1000 & echo \$! >'$T/bg'; echo left"
is "a run whose step left a process holding its output ends" "$rc" 0
kill "$(cat "$T/bg")" 2>/dev/null

# Where the log cannot be written (a file size limit, as a full disk),
# the run and its live stream go on, and no half log is left.
n=$(ls "$logs" | wc -l)
(ulimit -f 16; forge verify --in-place -- sh -c \
    'i=0; while [ $i -lt 2000 ]; do echo "line $i, of a run that outgrows the disk"; i=$((i+1)); done; exit 1' \
    2>"$T/err" | wc -l >"$T/count")
is "the stream is whole" "$(cat "$T/count")" 2000
like "forge says the log could not be kept" "$(cat "$T/err")" \
    "the run's output could not be kept"
like "and still gives the verdict" "$(cat "$T/err")" 'Verdict: FAIL'
is "no half log is left" "$(ls "$logs" | wc -l)" "$n"

# A cached PASS runs nothing: no log.
git config forge.cache true
forge verify --isolated -- true >/dev/null 2>&1
n=$(ls "$logs" | wc -l)
run_forge verify --isolated -- true
like "a cached run" "$err" 'cached'
is "keeps no log" "$(ls "$logs" | wc -l)" "$n"
git config --unset forge.cache

is "nothing is left in TMPDIR" "$(leftovers "$T/r")" ""
done_testing
