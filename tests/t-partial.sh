#!/bin/sh
# A copy of a tree (--staged, --rev) is the whole tree: never sparse,
# whatever the working tree's sparse checkout, and each submodule at the
# commit the tree records.  What a copy still leaves out -- a submodule
# not initialized here, or whose commit its repository lacks; a nested
# repository without a commit -- makes the run partial: said in the
# verdict line, the event and forge status --json, and never cached.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

tl=.git/forge/timeline.jsonl
: >"$T/count"
COUNT=$(unaudited "echo run >>$T/count")

new_repo "$T/r"
git config forge.breakerThreshold 0
mkdir a b
printf 'ok\n' >a/f
printf 'BAD\n' >b/f
git add a b
git commit -q -m 'a and b'

# A sparse checkout of a alone: b/f is not on disk.
git sparse-checkout set a 2>/dev/null || git sparse-checkout set a/
before=$(state_of "$T/r")
sparse_before=$(git sparse-checkout list 2>/dev/null)
not_ok "the working tree is sparse" test -e b/f
WHOLE='test -f a/f && test -f b/f && test -f hello.txt &&
    test -z "$(git ls-files -t | grep -v "^H ")"'
run_forge verify --staged -- sh -c "$WHOLE"
is "--staged: the copy is the whole tree, none of it skipped" "$rc" 0
run_forge verify --rev=HEAD -- sh -c "$WHOLE"
is "--rev too" "$rc" 0
# The step that passes on the cone alone fails on the whole tree.
CLEAN='! grep -rq BAD --exclude-dir=.git .'
run_forge verify --staged --cache -- sh -c "$CLEAN"
is "a check the sparse part passes fails on the whole staged tree" "$rc" 1
run_forge verify --rev=HEAD --cache -- sh -c "$CLEAN"
is "and on the whole commit" "$rc" 1
is "the working tree is as it was" "$(state_of "$T/r")" "$before"
is "and still sparse, with its patterns" \
    "$(git sparse-checkout list 2>/dev/null)" "$sparse_before"
is "nothing is left behind" "$(leftovers "$T/r")" ""
# Its own copy stays sparse (where forge can copy one): the working
# state, as it is on disk, whose id holds more -- never cached.
if git_at_least 2 36; then
	run_forge verify --isolated --cache -- sh -c "$COUNT"
	is "the working state's copy is sparse, as the working tree is" \
	    "$rc" 0
	like "the cache is not used for it, and forge says why" "$err" \
	    'not using the verdict cache: entries flagged skip-worktree \(a sparse checkout'
	run_forge verify --isolated --cache -- sh -c "$COUNT"
	is "so it runs every time" "$(counter)" 2
else
	skip "the working state's copy is sparse" "git before 2.36"
	skip "the cache is not used for it" "git before 2.36"
	skip "so it runs every time" "git before 2.36"
fi
git sparse-checkout disable 2>/dev/null
git rm -q -r b
git commit -q -m 'no b'

# A submodule, and a clone of the repository that has not initialized it.
new_repo "$T/lib"
printf 'v1\n' >version
git add version
git commit -q -m v1
cd "$T/r" || exit 99
git submodule -q add "$T/lib" lib 2>/dev/null
git commit -q -m 'the lib submodule'
git clone -q "$T/r" "$T/clone"
cd "$T/clone" || exit 99
git config forge.breakerThreshold 0
: >"$T/count"
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT"
is "a submodule not initialized: the run runs, and passes" "$rc" 0
like "what is left out is said" "$err" \
    'leaving out lib: a submodule not initialized here'
like "the verdict line says the run is partial" "$err" \
    'Verdict: PASS \(rev, partial, tree [0-9a-f]{12}, '
is "the event lists what was left out" \
    "$(tail -n 1 "$tl" | "$JSONPICK" partial)" \
    '[{"path":"lib","why":"a submodule not initialized here"}]'
run_forge status --json
like "forge status --json says so" "$out" \
    '"partial":\[\{"path":"lib","why":"a submodule not initialized here"\}\]'
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT"
is "a partial PASS is not cached: it runs again" "$(counter)" 2
is "nor stored" "$(cat .git/forge/cache.jsonl 2>/dev/null)" ""
run_forge verify --staged --cache -- sh -c "$COUNT"
like "--staged, the same" "$err" 'Verdict: PASS \(staged, partial, '

# Initialized: whole, so cached.
git submodule -q update --init 2>/dev/null
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT && test -f lib/version"
is "initialized, it is copied: whole" "$rc $(counter)" "0 4"
unlike "and not partial" "$err" 'partial'
is "nor is the event" "$(tail -n 1 "$tl" | "$JSONPICK" partial)" -
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT && test -f lib/version"
is "a whole PASS is cached" "$(counter)" 4
run_forge status --json
like "forge status --json: a cached run is no verdict of its own" "$out" \
    '"last_verdict":\{[^}]*"partial":null'
# That PASS is of the whole tree: not replayed for a copy without lib
# (whose repository, and its settings, the key no longer holds).
git submodule -q deinit -f lib 2>/dev/null
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT && test -f lib/version"
unlike "deinitialized: the whole tree's PASS is not used" "$err" \
    'cached: tree'
is "the run runs, without lib, and fails" "$rc $(counter)" "1 5"

# A submodule commit its repository does not have.
git submodule -q update --init 2>/dev/null
cd "$T/lib" || exit 99
printf 'v2\n' >version
git commit -q -am v2
cd "$T/r/lib" || exit 99
git pull -q 2>/dev/null
cd "$T/r" || exit 99
git commit -q -am 'lib v2'
cd "$T/clone" || exit 99
git pull -q --no-recurse-submodules 2>/dev/null
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT"
like "a gitlink whose commit is not here: left out, said" "$err" \
    'leaving out lib: its repository has no commit [0-9a-f]{12}'
like "partial" "$err" 'Verdict: PASS \(rev, partial, '
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT"
is "and not cached" "$(counter)" 7
git submodule -q update 2>/dev/null
run_forge verify --rev=HEAD --cache -- sh -c "$COUNT"
unlike "fetched, it is whole" "$err" 'partial'

# The working state: a nested repository without a commit is left out.
cd "$T/r" || exit 99
git init -q fresh
printf 'x\n' >fresh/x
run_forge verify --isolated -- true
like "a nested repository without a commit: left out, said" "$err" \
    'leaving out fresh: a nested repository without a commit checked out'
like "the run is partial" "$err" 'Verdict: PASS \(isolated, partial, '
is "the event says which" "$(tail -n 1 "$tl" | "$JSONPICK" partial)" \
    '[{"path":"fresh","why":"a nested repository without a commit checked out"}]'
rm -rf fresh
# Its path is all of the path, a tab in it too.
tab=$(printf '\t')
git init -q "fr${tab}esh"
run_forge verify --isolated -- true
is "a path with a tab: the event names it whole" \
    "$(tail -n 1 "$tl" | "$JSONPICK" partial)" \
    '[{"path":"fr\tesh","why":"a nested repository without a commit checked out"}]'
rm -rf "fr${tab}esh"

done_testing
