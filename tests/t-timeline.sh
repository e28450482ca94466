#!/bin/sh
# The timeline: one well-formed JSON event per verification, in the real
# repository's common git dir, whatever the mode, the worktree or the
# bytes involved; readers skip damage and go on.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt
tl="$T/r/.git/forge/timeline.jsonl"
git config forge.breakerThreshold 0

# The tree id git itself gives the working state.
cp .git/index "$T/idx"
want_tree=$(GIT_INDEX_FILE="$T/idx" git add -A &&
    GIT_INDEX_FILE="$T/idx" git write-tree)

FORGE_SESSION=agent-7 run_forge verify --isolated -- sh -c 'exit 0'
is "an isolated run passes" "$rc" 0
ok "the timeline is JSON Lines" json_lines "$tl"
ev=$(tail -n 1 "$tl")
is "it records the event type, mode, session and verdict" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" event mode session verdict status)" \
    "verify	isolated	agent-7	PASS	0"
is "it records HEAD" "$(printf '%s\n' "$ev" | "$JSONPICK" head)" \
    "$(git rev-parse HEAD)"
is "it records the verified tree, the working state's own" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" tree)" "$want_tree"
like "the summary line shows the same tree" "$err" \
    "tree $(printf '%.12s' "$want_tree")"
like "it records the time in UTC, RFC 3339" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" time)" \
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
like "each step: command, status, duration" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" -s '|' steps.0.command steps.0.status steps.0.duration_ms)" \
    "^sh -c 'exit 0'\\|0\\|[0-9]+\$"
like "the total duration and forge's version" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" duration_ms version)" \
    "^[0-9]+	[0-9]+\\.[0-9]+"

run_forge verify --in-place -- sh -c 'exit 5'
is "in place, too: one more event" "$(wc -l <"$tl")" 2
is "with its mode, status and no session" \
    "$(tail -n 1 "$tl" | "$JSONPICK" mode verdict status session)" \
    "in-place	FAIL	5	null"
is "and what failed" "$(tail -n 1 "$tl" | "$JSONPICK" failed)" \
    "sh -c 'exit 5' (exit status 5)"

# From a linked worktree: the same timeline, in the common dir.
git worktree add -q "$T/wt" HEAD
(cd "$T/wt" && forge verify --isolated -- true >/dev/null 2>&1)
is "a linked worktree's run lands in the common dir" "$(wc -l <"$tl")" 3
not_ok "and not in its own git dir" test -e "$T/r/.git/worktrees/wt/forge"
git worktree remove "$T/wt"

# The copy never holds harness state.
run_forge verify --isolated -- sh -c \
    'd=$(git rev-parse --git-dir); test ! -e "$d/forge" && test ! -e forge'
is "no state is written into the copy" "$rc" 0

# Forge's own failures and interruptions are events too.
fake_git "$T/bad" '[ "$SUB" = apply ] && exit 1; exec "$REAL_GIT" "$@"'
PATH="$T/bad:$PATH" run_forge verify --isolated -- true
is "a patch that fails is an ERROR event" \
    "$(tail -n 1 "$tl" | "$JSONPICK" verdict status)" "ERROR	125"
is "that says where forge failed" "$(tail -n 1 "$tl" | "$JSONPICK" failed)" \
    "forge could not build and prove the copy"
FORGE_TEST_STALL=untracked start_forge "$T/int.err" verify --isolated -- true
wait_for 30 grep -q 'test stall' "$T/int.err"
kill -TERM "$forge_pid"
wait "$forge_pid"
is "an interrupted run is an INTERRUPTED event" \
    "$(tail -n 1 "$tl" | "$JSONPICK" verdict status signal)" \
    "INTERRUPTED	143	15"

# Strings: quotes, control characters and bytes that are not UTF-8 are
# escaped and come back exactly.
sess=$(printf 'q"uo\\te\t\001\nx\377\303(\342\202\254')
FORGE_SESSION=$sess run_forge verify --isolated -- true
ok "hostile bytes still make a valid line" json_lines "$tl"
like "invalid UTF-8 is written as \\udcXX escapes" "$(tail -n 1 "$tl")" \
    '\\udcff\\udcc3\('
is "and read back byte for byte" \
    "$(tail -n 1 "$tl" | "$JSONPICK" session | od -An -c)" \
    "$(printf '%s\n' "$sess" | od -An -c)"

# A torn last line (a crash mid-write) and a hand-edited garbage line:
# verifications go on, readers skip them with a warning.
printf '{"event":"verify","time":"2026-' >>"$tl"
run_forge verify --isolated -- true
is "a torn line does not stop a verification" "$rc" 0
ok "the event after it is on a line of its own" \
    sh -c 'tail -n 1 "$1" | "$JSONPICK" -c' sh "$tl"
printf 'this is not json\n' >>"$tl"
run_forge verify --isolated -- true
is "nor does a garbage line" "$rc" 0
run_forge log -n 3
is "forge log still works" "$rc" 0
like "and warns about each bad line" "$err" 'timeline.jsonl:[0-9]+: skipping'
is "showing the good events" "$(printf '%s\n' "$out" | grep -c PASS)" 3

# Rotation past forge.timelineMaxSize keeps the previous file.
git config forge.timelineMaxSize 4k
i=0
while [ $i -lt 12 ]; do
	forge verify --in-place -- true >/dev/null 2>&1
	i=$((i + 1))
done
ok "past the limit the timeline is rotated" test -s "$tl.1"
size=$(wc -c <"$tl")
ok "the live file stays small" test "$size" -lt 8192
run_forge log -n 1000 --json
total=$(cat "$tl.1" "$tl" | "$JSONPICK" event 2>/dev/null | wc -l)
is "forge log reads both files" "$(printf '%s\n' "$out" | grep -c '"event"')" \
    "$total"

# The last events are read from the end: damage far back in a long
# history is not even read, unless the events asked for reach it.
new_repo "$T/long"
tl="$T/long/.git/forge/timeline.jsonl"
forge verify --in-place -- true >/dev/null 2>&1
{
	printf 'damage from long ago\n'
	i=0
	while [ $i -lt 300 ]; do
		tail -n 1 "$tl"
		i=$((i + 1))
	done
} >"$T/long.jsonl"
mv "$T/long.jsonl" "$tl"
forge verify --in-place -- false >/dev/null 2>&1
run_forge log -n 5
is "forge log -n 5 shows five events" \
    "$(printf '%s\n' "$out" | grep -c -e PASS -e FAIL)" 5
is "without reading back to the damage" "$err" ""
run_forge status
like "forge status has the last verdict" "$out" '^last verdict: FAIL'
is "without reading back to it either" "$err" ""
run_forge log -n 1000
like "forge log -n 1000 reads that far, and says so" "$err" \
    'timeline.jsonl:1: skipping a line that is not a JSON object'
is "showing every good event" \
    "$(printf '%s\n' "$out" | grep -c -e PASS -e FAIL)" 301

# Every mode is shown as what it is, and the same by every reader: an
# incremental run builds on what the last one left, and is no clean
# isolated build -- of the staged tree or of a commit either, whose
# event keeps its mode and says "incremental" beside it.
for m in in-place isolated reuse incremental staged rev staged-incremental \
    rev-incremental; do
	case $m in
	reuse) args=--reuse want=isolated ;;
	rev) args=--rev=HEAD want=rev ;;
	staged-incremental) args="--staged --incremental" want=staged ;;
	rev-incremental) args="--rev=HEAD --incremental" want=rev ;;
	*) args=--$m want=$m ;;
	esac
	case $m in
	*-incremental) shown="$want, incremental" ;;
	*) shown=$want ;;
	esac
	# (twice: the second of --reuse and --incremental takes the copy)
	forge verify $args -- true >/dev/null 2>&1
	run_forge verify $args -- true
	is "$m: the event's mode" \
	    "$(tail -n 1 "$tl" | "$JSONPICK" mode verdict)" "$want	PASS"
	run_forge log -n 1
	like "$m: forge log shows it" "$out" "^[^ ]+ +- +$shown +PASS "
	run_forge log --json -n 1
	is "$m: forge log --json too" \
	    "$(printf '%s\n' "$out" | "$JSONPICK" mode)" "$want"
	run_forge status
	like "$m: and forge status" "$out" \
	    "^last verdict: PASS at [^ ]+ \\($shown, tree "
	run_forge status --json
	is "$m: and forge status --json" \
	    "$(printf '%s\n' "$out" | "$JSONPICK" last_verdict.mode)" "$want"
done
is "the incremental runs' events say so" \
    "$(tail -n 1 "$tl" | "$JSONPICK" incremental)" true
run_forge log -n 8
is "the columns stay aligned" \
    "$(printf '%s\n' "$out" | awk 'NR == 1 { h = index($0, "VERDICT") }
	/ staged, incremental / { print index($0, "PASS") == h; exit }')" 1
is "for every row" \
    "$(printf '%s\n' "$out" | awk 'NR == 1 { h = index($0, "VERDICT") }
	NR > 1 && index($0, "PASS") != h { print }')" ""
# A PASS an incremental run takes from the cache is shown so too.
forge verify --rev=HEAD --incremental --cache -- true >/dev/null 2>&1
run_forge verify --rev=HEAD --incremental --cache -- true
like "(an incremental run's PASS cached)" "$err" 'PASS \(cached'
run_forge log -n 1
like "a cached incremental PASS of a commit: rev, incremental" "$out" \
    "^[^ ]+ +- +rev, incremental +CACHED "
forge gc --all >/dev/null 2>&1

done_testing
