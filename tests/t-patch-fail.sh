#!/bin/sh
# When the uncommitted changes cannot be carried into the copy, forge
# stops before running anything (exit 125), says why, and leaves nothing.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'added\n' >added.txt
git add added.txt
printf 'untracked\n' >notes.txt
before=$(state_of "$T/r")
use_fake_git
export FAKEGIT_ON FAKEGIT_DO

# broken WHAT SUBCOMMAND ACTION PATTERN: with the fake git doing ACTION on
# SUBCOMMAND, an isolated run stops with 125 and a message matching
# PATTERN, runs nothing and leaves nothing.
broken() {
	FAKEGIT_ON=$2 FAKEGIT_DO=$3
	rm -f "$T/ran"
	run_forge verify --isolated -- touch "$T/ran"
	FAKEGIT_ON= FAKEGIT_DO=
	is "$1: exit status 125" "$rc" 125
	like "$1: says why" "$err" "$4"
	not_ok "$1: the command did not run" test -e "$T/ran"
	like "$1: the verdict is ERROR" "$(printf '%s\n' "$err" | tail -n 1)" \
	    '^Verify: .* Verdict: ERROR \(forge could not verify, exit status 125;'
	is "$1: nothing on stdout" "$out" ""
	is "$1: the source is untouched" "$(state_of "$T/r")" "$before"
	is "$1: nothing is left behind" "$(leftovers "$T/r")" ""
}

run_forge verify --isolated -- true
is "through the delegating git, a run passes" "$rc" 0

broken "git apply fails" apply fail \
    'changes did not apply to the copy .*stopping before running anything'
like "git apply's own complaint is shown" "$err" 'fake git: apply refused'

# git apply that claims success without doing anything: the proof
# catches the copy that is not the working state.
broken "git apply does nothing" apply noop 'copy is not the working state'
like "the paths that differ are named" "$err" 'differs: added\.txt'
like "every one of them" "$err" 'differs: hello\.txt'

broken "git diff fails" diff fail \
    'git diff failed|cannot read the uncommitted changes'
broken "git worktree add fails" worktree-add fail \
    'cannot check out HEAD into the copy|git worktree add failed'

# A patch far larger than a pipe holds, refused at once by git apply:
# forge must neither hang nor die of SIGPIPE.
i=0
while [ $i -lt 2000 ]; do
	printf '%0500d\n' "$i"
	i=$((i + 1))
done >big.txt
git add big.txt && git commit -q -m big
i=0
while [ $i -lt 2000 ]; do
	printf '%0499dx\n' "$i"
	i=$((i + 1))
done >big.txt
before=$(state_of "$T/r")
broken "a megabyte patch that git apply refuses" apply fail \
    'changes did not apply to the copy'

# In place, git apply plays no part.
FAKEGIT_ON=apply FAKEGIT_DO=fail
run_forge verify --in-place -- true
FAKEGIT_ON= FAKEGIT_DO=
is "in place, a broken git apply does not matter" "$rc" 0

done_testing
