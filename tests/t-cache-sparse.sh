#!/bin/sh
# The verdict cache in a sparse checkout whose files are all on disk,
# none flagged skip-worktree: the working state's tree id, which the
# lookup computes before the copy is made, takes the files outside the
# patterns as git add --sparse does, as the copy's proof does -- never
# an ERROR where a run without the cache gives a verdict.  (Whether the
# cache is used then depends on the entries git still flags.)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
if ! git_at_least 2 36; then
	skip "a sparse checkout is copied, and cached" \
	    "git $GIT_VERSION: worktrees carry sparse patterns from 2.36 on"
	done_testing
	exit
fi
mkdir -p in out
printf 'ok\n' >in/f
printf 'ok\n' >out/f
git add -A && git commit -q -m both || exit 99
git sparse-checkout set in >/dev/null 2>&1 || exit 99
# Outside the cone, on disk again: one changed, one new.
mkdir -p out
printf 'bad\n' >out/f
printf 'new\n' >out/new
cat >"$T/check.sh" <<'EOS'
grep -q ok out/f && test -f out/new
EOS

run_forge verify --isolated --cache -- sh "$T/check.sh"
is "the lookup computes the tree: the run gives its verdict" "$rc" 1
unlike "and no error" "$err" 'cannot compute the tree'
run_forge verify --isolated --no-cache -- sh "$T/check.sh"
is "as a run without the cache" "$rc" 1
printf 'ok\n' >out/f
run_forge verify --isolated --cache -- sh "$T/check.sh"
is "the fixed state passes" "$rc" 0
run_forge verify --isolated --cache -- sh "$T/check.sh"
is "and again, cached or not" "$rc" 0
printf 'bad\n' >out/f
run_forge verify --isolated --cache -- sh "$T/check.sh"
is "an edit outside the patterns is a new tree: it runs" "$rc" 1
forge gc --all >/dev/null 2>&1
done_testing
