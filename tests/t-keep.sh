#!/bin/sh
# --keep leaves the copy for debugging; forge gc removes kept copies only
# when asked with --kept.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt

run_forge verify --isolated --keep -- sh -c 'echo made-in-copy >artifact; exit 4'
is "a kept run keeps its verdict's status" "$rc" 4
copy=$(printf '%s\n' "$err" | sed -n 's/^forge: kept the copy at \(.*\) (forge gc --kept removes it)$/\1/p')
like "it prints the copy's path" "$copy" "^$TMPDIR/forge-[0-9a-f]+/r\$"
ok "the copy is still there, with what the command left" test -f "$copy/artifact"
ok "and with the uncommitted edit" grep -q edit "$copy/hello.txt"
is "the timeline names the kept copy" \
    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" kept)" "$copy"

run_forge verify --isolated -- true
ok "a later run does not reclaim a kept copy" test -d "$copy"
run_forge gc
ok "nor does forge gc" test -d "$copy"
like "which says it is kept" "$out" "^kept $copy"
run_forge gc --kept --dry-run
like "gc --kept --dry-run lists it" "$out" "would remove .*forge-"
ok "and keeps it" test -d "$copy"
run_forge gc --kept
is "gc --kept succeeds" "$rc" 0
like "and says what it removed" "$out" "^removed .*forge-[0-9a-f]+ \\(kept by pid"
not_ok "the copy is gone" test -e "$copy"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# kept_copy: the path the last run said it kept, or nothing.
kept_copy() {
	printf '%s\n' "$err" |
	    sed -n 's/^forge: kept the copy at \(.*\) (forge gc --kept removes it)$/\1/p'
}

# --keep=failure: a FAIL leaves its copy, a PASS does not.  (These fail
# often: the breaker would stop them.)
git config forge.breakerThreshold 0
run_forge verify --isolated --keep=failure -- true
is "--keep=failure: a pass exits 0" "$rc" 0
is "and keeps nothing" "$(kept_copy)" ""
is "nothing is left of it" "$(leftovers "$T/r")" ""
unlike "the timeline names no copy" "$(tail -n 1 .git/forge/timeline.jsonl)" \
    '"kept"'
run_forge verify --isolated --keep=failure -- sh -c 'echo log >test.log; exit 3'
is "--keep=failure: a failure keeps its status" "$rc" 3
copy=$(kept_copy)
like "and prints the kept copy's path" "$copy" "^$TMPDIR/forge-[0-9a-f]+/r\$"
ok "whose failure logs are there to read" grep -q log "$copy/test.log"
is "the timeline names it" \
    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" verdict kept)" \
    "FAIL	$copy"
# An ERROR verified nothing: no copy is evidence of it.
run_forge verify --isolated --keep=failure -- forge-no-such-command
is "a command that cannot start is not a failure to keep" "$(kept_copy)" ""

# forge.keep says the same, and --keep overrides it.
git config forge.keep failure
run_forge verify --isolated -- true
is "forge.keep=failure: a pass keeps nothing" "$(kept_copy)" ""
run_forge verify --isolated -- false
copy2=$(kept_copy)
ok "forge.keep=failure: a failure is kept" test -d "$copy2"
run_forge verify --isolated --keep=never -- false
is "--keep=never overrides it" "$(kept_copy)" ""
run_forge verify --in-place -- false
is "in place, forge.keep does not apply" "$rc" 1
git config forge.keep always
run_forge verify --isolated -- true
copy3=$(kept_copy)
ok "forge.keep=always: a pass is kept too" test -d "$copy3"
git config forge.keep sometimes
run_forge verify --isolated -- true
is "a bad forge.keep is a usage error" "$rc" 64
like "that names the setting" "$err" "forge.keep"
git config --unset forge.keep
run_forge verify --isolated --keep=sometimes -- true
is "so is a bad --keep=" "$rc" 64

# gc --kept takes them all; nothing else does, until they expire.
run_forge gc
is "gc leaves the three kept copies" "$(printf '%s\n' "$out" | grep -c '^kept ')" 3
run_forge gc --kept
is "gc --kept removes them" "$(printf '%s\n' "$out" | grep -c '^removed .*(kept by pid')" 3
is "nothing is left behind" "$(leftovers "$T/r")" ""

# Expiry: a kept copy unused for forge.reuseExpiry (7 days) goes at gc.
run_forge verify --isolated --keep -- true
old=$(kept_copy)
run_forge verify --isolated --keep -- true
new=$(kept_copy)
oldrun=$(basename "$(dirname "$old")")
oldrun=${oldrun#forge-}
touch -d '8 days ago' ".git/forge/copies/$oldrun"
run_forge gc --dry-run
like "a dry run names the expired one" "$out" \
    "^would remove ${old%/r} \(kept by pid [0-9]+, unused past forge.reuseExpiry\)"
ok "and keeps it" test -d "$old"
run_forge gc
like "gc removes the copy unused for 8 days" "$out" \
    "^removed ${old%/r} \(kept by pid [0-9]+, unused past forge.reuseExpiry\)"
not_ok "it is gone" test -e "$old"
ok "the one kept just now stays" test -d "$new"
like "and is named as kept" "$out" "^kept $new "
newrun=$(basename "$(dirname "$new")")
newrun=${newrun#forge-}
touch -d '3 days ago' ".git/forge/copies/$newrun"
git config forge.reuseExpiry 4d
run_forge gc
ok "forge.reuseExpiry=4d: one unused for 3 days stays" test -d "$new"
git config forge.reuseExpiry never
touch -d '90 days ago' ".git/forge/copies/$newrun"
run_forge gc
ok "forge.reuseExpiry=never: nothing expires" test -d "$new"
git config forge.reuseExpiry 2d
run_forge gc
not_ok "forge.reuseExpiry=2d: the one unused for 90 days goes" test -e "$new"
git config forge.reuseExpiry soon
run_forge gc
is "a bad forge.reuseExpiry is a usage error" "$rc" 64
like "that names the setting" "$err" "forge.reuseexpiry"
git config --unset forge.reuseExpiry
is "nothing is left behind" "$(leftovers "$T/r")" ""

run_forge verify --in-place --keep -- true
is "--keep with --in-place is a usage error" "$rc" 64
run_forge verify --in-place --keep=failure -- true
is "--keep=failure with --in-place is a usage error" "$rc" 64
run_forge gc extra
is "gc takes no operands" "$rc" 64
run_forge gc --bogus
is "gc rejects unknown options" "$rc" 64

done_testing
