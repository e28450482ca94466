#!/bin/sh
# Parked copies of each kind of source -- the working state, the staged
# tree the commit hook verifies, a commit -- live side by side in one
# pool of forge.reuseCopies: a run takes one parked for its own kind of
# source, another's only when the pool is full (the least recently used
# of them), and none where its copy is never parked.  One it claims and
# then finds it cannot use goes back as it was; past the limit, the least
# recently used goes first.  No run costs another's parked copy.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git config forge.breakerThreshold 0
printf 'x\n' >data.dat
git add data.dat && git commit -q -m data

# The build: says which copy it runs in (the kind of source that made
# it) and how many runs it saw, its output ignored (build/).
cat >"$T/build.sh" <<'EOF'
mkdir -p build
[ -f build/made ] || echo "$1" >build/made
n=$(cat build/n 2>/dev/null || echo 0)
echo "made by $(cat build/made), run $n"
echo $((n + 1)) >build/n
EOF
# kind_run KIND ARGS...: forge verify --incremental ARGS in a copy of KIND.
kind_run() {
	_kind=$1
	shift
	run_forge verify --incremental "$@" -- sh "$T/build.sh" "$_kind"
}
# pool: "kind last_use" of each parked copy, least recently used first.
pool() {
	forge status --json | "$JSONPICK" -s ' ' \
	    copies.reusable.0.kind copies.reusable.0.last_use \
	    copies.reusable.1.kind copies.reusable.1.last_use \
	    copies.reusable.2.kind copies.reusable.2.last_use |
	    sed 's/ - -//g'
}
# records: every record of the journal, as it stands on disk (a claim
# appends to one, and changes its time); uses: each one's last use alone,
# to the nanosecond.
records() {
	"$TREELIST" -m "$common/forge/copies"
}
uses() {
	"$TREELIST" -m "$common/forge/copies" | cut -f1,6
}

kind_run worktree
is "the working state's run passes" "$rc" 0
like "and parks its copy" "$err" 'the copy stays at'
like "forge status --json shows it, of the working state" "$(pool)" \
    '^worktree 20[0-9-]+T[0-9:]+Z$'
run_forge status
like "and forge status" "$out" '^  incremental worktree '

# The hook's run (--staged --incremental) whose copy is not to be parked:
# a filter git runs as it checks files out.
git config filter.keep.clean cat
git config filter.keep.smudge cat
printf '*.dat filter=keep\n' >.gitattributes
git add .gitattributes
before=$(pool) recs=$(records)
kind_run staged --staged
is "a --staged run that cannot reuse passes" "$rc" 0
like "it says why it is not reused" "$err" 'not reused: '
is "the working state's copy is still parked, as it was" "$(pool)" \
    "$before"
is "its record not even claimed" "$(records)" "$recs"
kind_run worktree
like "the next working state's run reuses it" "$err" \
    'running verification in a reused incremental copy'
like "with its build output" "$out" '^made by worktree, run 1$'
git rm -q --cached .gitattributes && rm .gitattributes

# Both kinds parked at once, within the default forge.reuseCopies (2).
printf 'staged\n' >>hello.txt
git add hello.txt
kind_run staged --staged
is "a --staged run that can reuse passes" "$rc" 0
like "with room in the pool, its copy is a fresh one" "$err" \
    'ephemeral copy of the staged tree'
like "and parked" "$err" 'the copy stays at'
like "both parked, the working state's and the staged tree's" \
    "$(pool)" '^worktree [^ ]+ staged [^ ]+$'
kind_run staged --staged
like "the next --staged run reuses its own" "$out" \
    '^made by staged, run 1$'
kind_run worktree
like "the working state's run its own" "$out" '^made by worktree, run 2$'
kind_run staged --staged
like "and the hook's again" "$out" '^made by staged, run 2$'

# The reverse: a working state's run whose copy is not to be parked (a
# sparse checkout, known from its settings) takes none.
git config core.sparseCheckout true
printf '/*\n' >"$(git rev-parse --git-path info/sparse-checkout)"
before=$(pool) recs=$(records)
kind_run worktree
is "a sparse checkout's run passes" "$rc" 0
like "it says why it is not reused" "$err" \
    'not reused: a sparse checkout'
is "both copies still parked, as they were" "$(pool)" "$before"
is "neither record claimed" "$(records)" "$recs"
git config --unset core.sparseCheckout
rm -f "$(git rev-parse --git-path info/sparse-checkout)"

# A run that finds, once it claimed one, that it cannot use it: back as
# it was, for the kind of run it was parked for.  The staged tree's copy,
# brought to a tree that now has the filter; then the working state's,
# where a conflict over a submodule is only seen as git lists it.
printf '*.dat filter=keep\n' >.gitattributes
git add .gitattributes
before=$(pool) used=$(uses)
kind_run staged --staged
is "a --staged run that claimed its copy and cannot use it: passes" \
    "$rc" 0
like "it says why" "$err" 'not reused: '
is "the copy goes back" "$(pool)" "$before"
is "its last use as it was" "$(uses)" "$used"
git rm -q --cached .gitattributes && rm .gitattributes
kind_run staged --staged
like "the next --staged run reuses it" "$err" \
    'running verification in a reused incremental copy'
like "with its build output" "$out" '^made by staged, run 3$'

branch=$(git symbolic-ref --short HEAD)
new_repo "$T/subsrc"
cd "$T/r" || exit 99
git -c protocol.file.allow=always submodule -q add "$T/subsrc" sub
git commit -q -am sub
kind_run worktree
like "a working state's run with a submodule reuses its copy" "$out" \
    '^made by worktree, run 3$'
git -C sub checkout -q -b one
printf 'one\n' >sub/s && git -C sub add s && git -C sub commit -q -m one
git checkout -q -b side
git -C sub checkout -q -b two HEAD~1
printf 'two\n' >sub/s && git -C sub add s && git -C sub commit -q -m two
git add sub && git commit -q -m side
git checkout -q "$branch"
git -C sub checkout -q one
git add sub && git commit -q -m ours
git merge -q side >/dev/null 2>&1
before=$(pool) used=$(uses)
kind_run worktree
is "a conflict over a submodule: the run passes" "$rc" 0
like "it says why it is not reused" "$err" \
    'not reused: a conflict over a submodule'
is "the copy it claimed goes back" "$(pool)" "$before"
is "its last use as it was" "$(uses)" "$used"
git merge --abort 2>/dev/null || git reset -q --merge
kind_run worktree
like "the next run reuses it" "$err" \
    'running verification in a reused incremental copy'
like "with its build output" "$out" '^made by worktree, run 4$'

# The least recently used goes first.  Three parked (a commit's too), then
# a limit of two: the working state's run parks its copy again, and the
# staged tree's, the least recently used, goes.
git config forge.reuseCopies 3
kind_run rev --rev=HEAD
like "a --rev run with room gets a fresh copy" "$err" \
    'ephemeral copy of the commit'
like "three parked" "$(pool)" '^staged [^ ]+ worktree [^ ]+ rev [^ ]+$'
git config forge.reuseCopies 2
kind_run worktree
like "over the limit, a run reuses its own" "$out" \
    '^made by worktree, run 5$'
like "and parking it removes the least recently used" "$err" \
    'removed the least recently used reusable copy .*forge.reuseCopies is 2'
like "the staged tree's" "$(pool)" '^rev [^ ]+ worktree [^ ]+$'
# The pool full, a run with none of its own takes the least recently
# used of the others: the commit's.
kind_run staged --staged
like "the pool full, a --staged run takes another kind's" "$out" \
    '^made by rev, run 1$'
like "the least recently used, parked as the staged tree's now" \
    "$(pool)" '^worktree [^ ]+ staged [^ ]+$'
git config forge.reuseCopies 1
kind_run worktree
like "a limit of one: the working state's run takes its own" "$out" \
    '^made by worktree, run 6$'
like "and the hook's goes" "$(pool)" '^worktree [^ ]+$'
kind_run staged --staged
like "the hook's run then takes the working state's" "$out" \
    '^made by worktree, run 7$'
git config --unset forge.reuseCopies

forge gc --all >/dev/null 2>&1
is "forge gc --all leaves nothing behind" "$(leftovers "$T/r")" ""
done_testing
