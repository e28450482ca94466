#!/bin/sh
# A parked copy that is no longer provably what forge parked is not
# reused, and no more of it is removed than can be proven forge's: one
# whose directory lost the run's mark is left whole, whatever it holds;
# one with a repository of its own below its top (a .git that git run
# there would follow) is not reused, nor one whose registration its
# command rewrote; an incremental copy is not taken
# by a plain --reuse run, which would throw its build output away.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git config forge.breakerThreshold 0
printf 'edit\n' >>hello.txt

top() {
	ls -d "$TMPDIR"/forge-* 2>/dev/null
}

# The mark gone: the directory may be anyone's now.
run_forge verify --reuse -- true
is "a copy is parked" "$rc" 0
parked=$(top)
rm "$parked/.forge/run"
printf 'precious\n' >"$parked/precious"
run_forge verify --reuse -- true
is "without its mark, the next run passes" "$rc" 0
like "in a fresh copy" "$err" 'Verdict: PASS \(isolated, fresh'
is "the unmarked one is left whole" "$(cat "$parked/precious")" precious
ok "its copy too" test -f "$parked/r/hello.txt"
run_forge gc --all
like "gc --all refuses it, saying why" "$err" \
    "refusing to remove $parked: it is not empty, and holds no mark"
ok "and leaves it still" test -f "$parked/precious"
# By hand, as a user would once sure it is not theirs.
git -C "$T/r" worktree remove -f -f "$parked/r"
rm -rf "$parked" "$common"/forge/copies/*
is "nothing else is left" "$(leftovers "$T/r")" ""

# A .git below the copy's top, in a directory git tracks: not reused.
run_forge verify --reuse -- sh -c 'printf "gitdir: %s\n" "$1" >src/.git' \
    sh "$common"
is "a command leaves a .git in a subdirectory of its copy" "$rc" 0
run_forge verify --reuse -- true
like "the copy is not reused" "$err" 'has a \.git of its own'
like "the run is in a fresh one" "$err" 'Verdict: PASS \(isolated, fresh'
run_forge gc --all
is "gc --all removes what is parked" "$(leftovers "$T/r")" ""

# A copy's registration rewritten by its command (the common git
# directory is the command's to write): its gitdir pointing elsewhere,
# or its lock reason no longer the run's.  Either way it is not
# registered as forge made it: not reused.
for what in gitdir locked; do
	run_forge verify --reuse -- sh -c '
		adm=$(sed -n "s/^gitdir: //p" .git)
		echo "/elsewhere/.git" >"$adm/$1.new"
		[ "$1" = locked ] && echo "the user'\''s own" >"$adm/$1.new"
		mv "$adm/$1.new" "$adm/$1"' sh "$what"
	is "[$what] a command rewrites its registration's $what" "$rc" 0
	run_forge verify --reuse -- true
	like "[$what] the copy is not reused" "$err" \
	    'no longer registered as forge made it'
	like "[$what] the run is in a fresh copy" "$err" \
	    'Verdict: PASS \(isolated, fresh'
	run_forge gc --all
	is "[$what] nothing is left" "$(leftovers "$T/r")" ""
done

# An incremental copy, and a plain --reuse run.
run_forge verify --incremental -- sh -c 'mkdir -p build && echo o >build/o'
is "an incremental copy is parked" "$rc" 0
run_forge verify --reuse -- sh -c 'test ! -e build/o'
is "a plain --reuse run passes" "$rc" 0
like "in a fresh copy, not the incremental one" "$err" \
    'Verdict: PASS \(isolated, fresh'
run_forge verify --incremental -- sh -c 'cat build/o; true'
like "which the next incremental run gets back" "$err" \
    'Verdict: PASS \(isolated, (reused|incremental)'
is "build output and all" "$out" o
run_forge gc --all
is "nothing is left" "$(leftovers "$T/r")" ""
done_testing
