#!/bin/sh
# A parked copy is reused only by the working tree that parked it: a
# second linked worktree of the same repository, with its own working
# state, never takes the first one's copy, and each gets its own back.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git config forge.breakerThreshold 0
git worktree add -q "$T/second" -b second
printf 'first edit\n' >>"$T/r/hello.txt"
printf 'second edit\n' >>"$T/second/hello.txt"

# reuse_in DIR: forge verify --reuse in DIR, its copy's hello.txt in
# $T/seen.
reuse_in() {
	(cd "$1" && run_forge verify --reuse -- sh -c 'cat hello.txt >"$1"' \
	    sh "$T/seen"
	printf '%s\n%s\n' "$rc" "$err" >"$T/run")
	rc=$(sed -n 1p "$T/run")
	err=$(sed 1d "$T/run")
}

reuse_in "$T/r"
is "the first worktree parks a copy" "$rc" 0
like "a fresh one" "$err" 'Verdict: PASS \(isolated, fresh'
first=$(ls "$TMPDIR")

reuse_in "$T/second"
is "the second worktree passes" "$rc" 0
like "in a fresh copy: the first one's is not its own" "$err" \
    'Verdict: PASS \(isolated, fresh'
like "of its own working state" "$(cat "$T/seen")" 'second edit'
is "both copies are parked" "$(ls "$TMPDIR" | wc -l | tr -d ' ')" 2

reuse_in "$T/r"
like "the first worktree gets its own copy back" "$err" \
    'Verdict: PASS \(isolated, reused'
like "of its working state" "$(cat "$T/seen")" 'first edit'
ok "the same copy" test -d "$TMPDIR/$first"
reuse_in "$T/second"
like "and so does the second" "$err" 'Verdict: PASS \(isolated, reused'
like "of its own" "$(cat "$T/seen")" 'second edit'

run_forge gc --all
is "gc removes both" "$rc" 0
is "nothing is left" "$(leftovers "$T/r" | grep -v '^second$\|/second$')" ""
done_testing
