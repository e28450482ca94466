#!/bin/sh
# forge gc --dry-run says what forge gc then does: the same copies
# removed, the same refusals, the same exit status, and nothing touched.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
copies="$common/forge/copies"

# record RUN TOP: a record of a dead run (no such pid) naming TOP.
record() {
	printf '{"run":"%s","pid":999999999,"start":1,"boot":"","top":"%s"}\n{"repo":"%s"}\n' \
	    "$1" "$2" "$common" >"$copies/$1"
}

# everything gc could touch, to see that a dry run touches none of it
world() {
	ls -lAR "$TMPDIR" "$copies" "$T/mine" 2>&1
	git worktree list --porcelain
}

# as_done: a dry run's lines, said as the real run says them.
as_done() {
	sed -e 's/^would remove /removed /' \
	    -e 's/^forge: would refuse to remove /forge: refusing to remove /' \
	    -e 's/: forge gc would leave it in place$/: left in place, forge gc will try again/' \
	    -e 's/^nothing to remove$/nothing removed/' "$1" | sort
}

# compare WHAT: run gc --dry-run, then gc, and compare.
compare() {
	_before=$(world)
	forge gc --dry-run >"$T/dry" 2>&1 </dev/null
	_drc=$?
	is "$1: a dry run touches nothing" "$(world)" "$_before"
	forge gc >"$T/real" 2>&1 </dev/null
	_rrc=$?
	is "$1: the dry run said what gc did" "$(as_done "$T/dry")" \
	    "$(sort "$T/real")"
	is "$1: with gc's exit status" "$_drc" "$_rrc"
}

mkdir -p "$copies"

# A dead run's copy, killed outright while it was being made.
FORGE_TEST_STALL=checkout start_forge "$T/stall.err" verify --isolated -- true
wait_for 30 grep -q "test stall: checkout" "$T/stall.err"
kill -KILL "$forge_pid"
wait "$forge_pid" 2>/dev/null
compare "a dead run's copy"
like "which gc removed" "$(cat "$T/real")" '^removed .*/forge-[0-9a-f]{16} '
is "nothing is left" "$(leftovers "$T/r")" ""

# Records naming what is not a forge copy, and what cannot be proven a
# run's: the refusals are the dry run's too.
mkdir -p "$T/mine/precious" "$TMPDIR/forge-00000000000000a2/.forge/objects"
printf 'mine\n' >"$T/mine/precious/f"
printf 'mine\n' >"$TMPDIR/forge-00000000000000a2/.forge/objects/f"
mkdir -m 700 -p "$TMPDIR/forge-00000000000000a3/.forge/objects"
ln -s "$T/mine" "$TMPDIR/forge-00000000000000a4"
printf 'a file\n' >"$TMPDIR/forge-00000000000000a5"
mkdir -m 700 "$TMPDIR/forge-00000000000000a6"
printf 'x\n' >"$TMPDIR/forge-00000000000000a6/.forge"
record 00000000000000a1 "$T/mine/precious"
record 00000000000000a2 "$TMPDIR/forge-00000000000000a2"
record 00000000000000a3 "$TMPDIR/forge-00000000000000a3"
record 00000000000000a4 "$TMPDIR/forge-00000000000000a4"
record 00000000000000a5 "$TMPDIR/forge-00000000000000a5"
record 00000000000000a6 "$TMPDIR/forge-00000000000000a6"
record 00000000000000a7 "relative/forge-00000000000000a7"
printf '{"run":"00000000000000b0","pid":999999999,"top":"%s"}\n' \
    "$TMPDIR/forge-00000000000000a3" >"$copies/00000000000000a8"
forge gc --dry-run >"$T/dry" 2>&1 </dev/null
for refused in "$T/mine/precious: not a forge copy" \
    "forge-00000000000000a2: it is not empty" \
    "forge-00000000000000a5: not a forge copy" \
    "forge-00000000000000a6: it is not empty" \
    "relative/forge-00000000000000a7: not a forge copy"; do
	like "the dry run refuses ${refused%%:*}" "$(cat "$T/dry")" \
	    "^forge: would refuse to remove .*$refused"
done
unlike "and would remove none of those" "$(cat "$T/dry")" \
    'would remove .*(/precious|forge-0+a[2567])( |$)'
like "an empty directory a run began would go" "$(cat "$T/dry")" \
    '^would remove .*forge-00000000000000a3 '
like "a stale symlink would go" "$(cat "$T/dry")" \
    '^would remove .*forge-00000000000000a4 '
compare "hand-written records"
is "what was refused is all there" "$(cat "$T/mine/precious/f" \
    "$TMPDIR/forge-00000000000000a2/.forge/objects/f")" "mine
mine"
ok "the symlink's target stays" test -d "$T/mine/precious"
rm -rf "$copies"/00000000000000a[1-8] "$TMPDIR"/forge-*

# A directory a run began, its scratch space a symlink planted there:
# what it leads to is never removed, not even an empty directory.
mkdir -p "$T/outside/objects"
mkdir -m 700 "$TMPDIR/forge-00000000000000a9"
ln -s "$T/outside" "$TMPDIR/forge-00000000000000a9/.forge"
record 00000000000000a9 "$TMPDIR/forge-00000000000000a9"
compare "a symlink for the scratch space"
like "gc refuses the directory" "$(cat "$T/real")" \
    'refusing to remove .*forge-00000000000000a9: it is not empty'
ok "and the empty directory the symlink leads to stays" \
    test -d "$T/outside/objects"
rm -rf "$copies/00000000000000a9" "$TMPDIR"/forge-*

# Kept copies: left alone without --kept, in a dry run as in gc.
run_forge verify --isolated --keep -- true
compare "a kept copy"
like "which stays" "$(cat "$T/real")" '^kept .*forge-'
forge gc --kept --dry-run >"$T/dry" 2>&1 </dev/null
like "gc --kept --dry-run would remove it" "$(cat "$T/dry")" \
    '^would remove .*forge-.* \(kept by pid'
forge gc --kept >/dev/null 2>&1

compare "nothing at all"
is "nothing is left" "$(leftovers "$T/r")" ""

done_testing
