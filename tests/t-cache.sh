#!/bin/sh
# The verdict cache: with forge.cache (or --cache), a PASS of the same
# tree, steps, mode and forge version is not run again; anything else
# is.  FAILs are never cached.  Concurrent runs share it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
cache=.git/forge/cache.jsonl
git config forge.breakerThreshold 0
printf 'edit\n' >>hello.txt
printf 'new\n' >new.txt

: >"$T/count"
COUNT=$(unaudited "echo run >>$T/count")

run_forge verify --isolated --cache -- sh -c "$COUNT"
is "the first run runs" "$rc $(counter)" "0 1"
tree=$(tail -n 1 "$tl" | "$JSONPICK" tree)
run_forge verify --isolated --cache -- sh -c "$COUNT"
is "the same verification again does not" "$rc $(counter)" "0 1"
like "it says the verdict is cached, with the tree and when" "$err" \
    "Verdict: PASS \\(cached: tree $(printf '%.12s' "$tree"), verified at 20[0-9-]+T[0-9:]+Z\\)"
is "a cached event is recorded" \
    "$(tail -n 1 "$tl" | "$JSONPICK" event tree mode)" "cached	$tree	isolated"
run_forge log -n 1
like "forge log shows it, with the tree and when it passed" "$out" \
    "isolated +CACHED +- +$(printf '%.10s' "$tree") PASS verified at 20"
is "which does not count as a verification" \
    "$(grep -c '"event":"verify"' "$tl")" 1

run_forge verify --isolated --no-cache -- sh -c "$COUNT"
is "--no-cache runs it" "$(counter)" 2
run_forge verify --isolated -- sh -c "$COUNT"
is "without forge.cache or --cache, it runs" "$(counter)" 3
git config forge.cache true
run_forge verify --isolated -- sh -c "$COUNT"
is "forge.cache=true: cached" "$(counter)" 3
run_forge verify --isolated --no-cache -- sh -c "$COUNT"
is "--no-cache overrides it" "$(counter)" 4

# A miss after any change: the tree, an untracked file, the steps, the
# mode, the setup steps.
printf 'more\n' >>hello.txt
run_forge verify --isolated -- sh -c "$COUNT"
is "a changed file: runs" "$(counter)" 5
printf 'x\n' >untracked.txt
run_forge verify --isolated -- sh -c "$COUNT"
is "a new untracked file: runs" "$(counter)" 6
run_forge verify --isolated -- sh -c "$COUNT"
is "and then is cached" "$(counter)" 6
run_forge verify --isolated -- sh -c "$COUNT; true"
is "another command: runs" "$(counter)" 7
run_forge verify --in-place -- sh -c "$COUNT"
is "another mode: runs" "$(counter)" 8
run_forge verify --in-place -- sh -c "$COUNT"
is "in place, cached too" "$(counter)" 8
git config forge.setup 'true'
run_forge verify --isolated -- sh -c "$COUNT"
is "a setup step added: runs" "$(counter)" 9
git config --unset forge.setup
printf 'more\n' >>hello.txt
git add hello.txt
run_forge verify --staged -- sh -c "$COUNT"
is "--staged: runs" "$(counter)" 10
printf 'unstaged\n' >>hello.txt
run_forge verify --staged -- sh -c "$COUNT"
is "an unstaged change is not what --staged verifies: cached" "$(counter)" 10
run_forge verify --rev=HEAD -- sh -c "$COUNT"
run_forge verify --rev=main -- sh -c "$COUNT"
is "--rev: one run for one commit" "$(counter)" 11

# A nested repository's changes do not show in the tree id: no cache for
# such a working state, in a copy or in place; --rev is a commit's tree,
# its submodules at the commits it records: cached.
git init -q nested
printf 'one\n' >nested/f
git -C nested add f
git -C nested commit -q -m one
run_forge verify --isolated -- sh -c "$COUNT"
like "a nested repository: the cache is not used, and forge says why" \
    "$err" 'not using the verdict cache: the working state holds nested'
printf 'two\n' >nested/f
run_forge verify --isolated -- sh -c "$COUNT"
run_forge verify --in-place -- sh -c "$COUNT"
run_forge verify --in-place -- sh -c "$COUNT"
is "so a change inside it is verified, every time" "$(counter)" 15
rm -rf nested
git commit -q -m 'another commit'
run_forge verify --rev=HEAD -- sh -c "$COUNT"
run_forge verify --rev=HEAD -- sh -c "$COUNT"
is "--rev of another commit: one run" "$(counter)" 16
: >"$T/count"

# One entry flagged skip-worktree by hand, no sparse checkout: its file
# may be missing from the copy as from the working tree, so no cache
# either, and forge says why in words true of it.
git update-index --skip-worktree hello.txt
run_forge verify --isolated -- sh -c "$COUNT"
like "a lone skip-worktree entry: the cache is not used, and forge says why" \
    "$err" 'not using the verdict cache: entries flagged skip-worktree'
unlike "without calling it a sparse checkout's copy" "$err" \
    'the copy of a sparse checkout'
git update-index --no-skip-worktree hello.txt
: >"$T/count"

# FAILs, and interrupted runs, are never cached.
run_forge verify --isolated -- sh -c "$COUNT; exit 1"
run_forge verify --isolated -- sh -c "$COUNT; exit 1"
is "a FAIL runs every time" "$rc $(counter)" "1 2"
run_forge verify --isolated -- sh -c "$COUNT; kill -TERM \$PPID; sleep 5"
run_forge verify --isolated -- sh -c "$COUNT; kill -TERM \$PPID; sleep 5"
is "an interrupted run, too" "$(counter)" 4
unlike "neither is in the cache" "$(cat "$cache")" 'exit 1|kill'

# 16 concurrent runs, each on its own commit, share the cache: none is
# lost, and each is then a hit.
i=0
while [ $i -lt 16 ]; do
	printf '%s\n' "$i" >n.txt
	git add n.txt
	git commit -q -m "n $i"
	i=$((i + 1))
done
: >"$T/count"
pids=
i=0
while [ $i -lt 16 ]; do
	forge verify --rev="HEAD~$i" -- sh -c "$COUNT" >"$T/conc.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
bad=0 said=
i=0
for p in $pids; do
	if ! wait "$p"; then
		bad=$((bad + 1))
		said="$said
run $i: $(tail -n 5 "$T/conc.$i")"
	fi
	i=$((i + 1))
done
is "16 concurrent runs pass" "$bad" 0
[ -z "$said" ] || printf '%s\n' "$said" | sed 's/^/# /'
is "each ran" "$(counter)" 16
ok "the cache is whole JSON lines" json_lines "$cache"
i=0
while [ $i -lt 16 ]; do
	forge verify --rev="HEAD~$i" -- sh -c "$COUNT" >/dev/null 2>&1
	i=$((i + 1))
done
is "then every one of them is cached" "$(counter)" 16
git config forge.cache maybe
run_forge verify --isolated -- true
is "forge.cache that is no boolean is a usage error" "$rc" 64
like "naming it" "$err" 'forge.cache'
git config forge.cache true

# (Its bound, and writers that lose nothing, are check_cache's.)

done_testing
