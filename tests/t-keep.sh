#!/bin/sh
# --keep leaves the copy for debugging; forge gc removes kept copies only
# when asked with --kept.
. "$TESTLIB"

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

run_forge verify --in-place --keep -- true
is "--keep with --in-place is a usage error" "$rc" 64
run_forge gc extra
is "gc takes no operands" "$rc" 64
run_forge gc --bogus
is "gc rejects unknown options" "$rc" 64

done_testing
