#!/bin/sh
# --staged and --rev verify a tree that is not the working tree's: the
# steps .forgeconfig configures are that tree's too -- the index's, the
# commit's -- so an unstaged or untracked .forgeconfig never turns the
# gate into something else.  The user's own git config still applies.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 0
printf 'ok\n' >f
printf '[forge]\n\tverify = grep -q ok f\n' >.forgeconfig
git add f .forgeconfig
git commit -q -m 'a check'
good=$(git rev-parse HEAD)

# A broken f staged; the working tree's .forgeconfig made a no-op.
printf 'bad\n' >f
git add f
printf '[forge]\n\tverify = true\n' >.forgeconfig
run_forge verify --staged
is "an unstaged .forgeconfig does not apply to --staged: it fails" "$rc" 1
like "with the staged steps" "$err" 'Verify: grep -q ok f \.\.\. Verdict: FAIL'
is "recorded so" "$(tail -n 1 "$tl" | "$JSONPICK" mode verdict)" \
    "staged	FAIL"
run_forge verify --isolated
is "the working state's own steps are its .forgeconfig's" "$rc" 0

# Staged, the new steps are what --staged runs.
git add .forgeconfig
run_forge verify --staged
is "a staged .forgeconfig applies to --staged" "$rc" 0
like "its steps ran" "$err" 'Verify: true \.\.\. Verdict: PASS'
git reset -q .forgeconfig
git checkout -q .forgeconfig

# An untracked .forgeconfig is no part of the index nor of a commit.
git rm -q --cached .forgeconfig
git commit -q -m 'no .forgeconfig'
printf '[forge]\n\tverify = true\n' >.forgeconfig
run_forge verify --staged
is "an untracked .forgeconfig does not apply to --staged" "$rc" 64
like "there is nothing to verify, and forge says how to configure it" \
    "$err" 'nothing to verify'
run_forge verify --rev=HEAD
is "nor to --rev" "$rc" 64
rm .forgeconfig

# --rev: that commit's .forgeconfig, whatever the index and working tree.
printf '[forge]\n\tverify = false\n' >.forgeconfig
git add .forgeconfig
run_forge verify --rev="$good"
is "--rev runs the steps of that commit's .forgeconfig" "$rc" 0
like "as it configures them" "$err" 'Verify: grep -q ok f \.\.\. Verdict: PASS'
git reset -q .forgeconfig
rm .forgeconfig
run_forge verify --rev=HEAD
is "a commit without .forgeconfig has none" "$rc" 64

# git config still applies, over the tree's .forgeconfig, as ever.
git config forge.verify 'test -f f'
run_forge verify --rev="$good"
is "forge.verify in git config applies to --rev" "$rc" 0
like "over the commit's .forgeconfig" "$err" 'Verify: test -f f \.\.\. '
git config --unset forge.verify

# Every forge.* setting of the tree's .forgeconfig, not only its steps:
# the working tree's bad value plays no part.
git checkout -q "$good" -- .forgeconfig f
printf '[forge]\n\ttimeout = never-a-duration\n' >>.forgeconfig
run_forge verify --staged
is "a bad value in an unstaged .forgeconfig does not stop --staged" "$rc" 0
run_forge verify --isolated
is "where the working state's own run refuses it" "$rc" 64
git add .forgeconfig
run_forge verify --staged
is "staged, it does stop --staged" "$rc" 64
like "naming where it is" "$err" ':\.forgeconfig: bad value'
git reset -q --hard

# A .forgeconfig that is a symlink in the tree is no configuration, as
# in the working tree.
printf '[forge]\n\tverify = true\n' >real
ln -s real .forgeconfig
git add real .forgeconfig
run_forge verify --staged
is "a staged symlink .forgeconfig is not read" "$rc" 64
git rm -q --cached .forgeconfig
rm .forgeconfig

# From a commit hook, whose GIT_INDEX_FILE names the index to commit.
cp .git/index .git/hook-index
printf '[forge]\n\tverify = grep -q bad f\n' >.forgeconfig
GIT_INDEX_FILE=.git/hook-index git add .forgeconfig
rm .forgeconfig
GIT_INDEX_FILE=$PWD/.git/hook-index
export GIT_INDEX_FILE
run_forge verify --staged
unset GIT_INDEX_FILE
is "GIT_INDEX_FILE's index is the one whose .forgeconfig applies" "$rc" 0
like "its steps ran" "$err" 'Verify: grep -q bad f'
run_forge verify --staged
is "the repository's own has none" "$rc" 64


# --rev names one commit, resolved once: a branch that moves while forge
# starts (here, stopped as it opens its run directory) moves neither the
# steps nor the tree -- both are the commit it named when forge began.
git reset -q --hard
printf '[forge]\n\tverify = true\n' >.forgeconfig
git add .forgeconfig
git commit -q -m 'verify: true'
git branch -q rel
A=$(git rev-parse HEAD)
printf '[forge]\n\tverify = false\n' >.forgeconfig
git commit -q -am 'verify: false'
B=$(git rev-parse HEAD)
rm -f "$T/go"
FORGE_TEST_STALL=journal FORGE_TEST_STALL_RELEASE="$T/go" \
    start_forge "$T/rev.err" verify --rev=rel
if wait_for 20 grep -q 'test stall' "$T/rev.err"; then
	git update-ref refs/heads/rel "$B"
	: >"$T/go"
	wait "$forge_pid"
	rc=$?
	is "the branch moved as forge started: A's steps, PASS" "$rc" 0
	like "they ran" "$(cat "$T/rev.err")" 'Verify: true \.\.\. Verdict: PASS'
	is "on A's tree: the event records A" \
	    "$(tail -n 1 "$tl" | "$JSONPICK" rev)" "$A"
	is "whose tree it is" "$(tail -n 1 "$tl" | "$JSONPICK" tree)" \
	    "$(git rev-parse "$A^{tree}")"
else
	fail "the branch moved as forge started" "$(cat "$T/rev.err")"
fi
run_forge verify --rev=rel
is "now the branch names B: its steps, FAIL" "$rc" 1

done_testing
