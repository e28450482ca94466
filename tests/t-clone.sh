#!/bin/sh
# --clone: the copy is a private clone.  git in it cannot reach the real
# repository; the branches and tags it makes come back under
# refs/forge/runs/<run>/, which forge gc removes when they expire.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git tag v1
git tag -a -m annotated v1a
git branch side
# A stash, a worktree of the user's whose directory is away for a while
# (git worktree prune would take it), and an unreachable object.
printf 'stashed\n' >>hello.txt
git stash -q
git worktree add -q --detach "$T/away"
mv "$T/away" "$T/away.moved"
loose=$(printf 'unreachable\n' | git hash-object -w --stdin)
# The working state: an edit and an untracked file.
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt

# git_state: the real repository's git metadata, byte for byte.
git_state() {
	for _f in config HEAD index packed-refs logs/refs/stash; do
		echo "--- $_f"
		[ -f "$common/$_f" ] && cksum <"$common/$_f"
	done
	echo "--- refs"
	git for-each-ref --format='%(refname) %(objectname)' |
	    grep -v '^refs/forge/'
	echo "--- stash"
	git stash list
	echo "--- worktrees"
	ls -A "$common/worktrees"
	git worktree list --porcelain
	echo "--- objects"
	git cat-file -t "$loose"
}
before=$(git_state)
tree_before=$("$TREELIST" -a -m "$T/r")

# Everything the issue of a shared .git allowed, in the copy.
cat >"$T/vandal.sh" <<'EOF'
set -e
# The clone has the real refs: an annotated tag peels to its commit.
test "$(git rev-parse 'v1a^{commit}')" = "$(git rev-parse HEAD)"
test "$(git rev-parse --abbrev-ref HEAD)" = main
git branch -D side
git tag -d v1 v1a
git config user.name vandal
git config core.bare true
git config core.bare false
git stash clear
h=$(git rev-parse HEAD)
git update-ref -d refs/heads/main
git update-ref refs/heads/main "$h"
git worktree prune
git reflog expire --expire=now --all
git gc -q --prune=now
git add -A
git commit -q -m vandal
git checkout -q --detach
echo done >"$1"
EOF
run_forge verify --clone -- sh "$T/vandal.sh" "$T/vandal.done"
is "git in the clone: forge passes" "$rc" 0
ok "the vandal ran to its end" test -f "$T/vandal.done"
is "the real repository's refs, config, stash, worktrees, index and HEAD are as they were" \
    "$(git_state)" "$before"
is "its working tree too" "$("$TREELIST" -a -m "$T/r")" "$tree_before"
is "nothing is left behind" "$(ls -A "$TMPDIR"; ls -A "$common/forge/copies")" ""
# The commit on main, the branch HEAD was on, came back.
like "the commit on main came back" "$err" \
    'forge: the copy made refs/forge/runs/[0-9a-f]{16}/heads/main at [0-9a-f]{12} \(git log refs/forge/runs/[0-9a-f]{16}/heads/main\)'
unlike "a deleted branch does not" "$err" 'heads/side'
ref=$(git for-each-ref --format='%(refname)' refs/forge/runs/)
like "it is the one ref under refs/forge/runs" "$ref" \
    '^refs/forge/runs/[0-9a-f]{16}/heads/main$'
is "with its commit" "$(git log -1 --format=%s "$ref")" vandal
ok "whose parent is HEAD" test "$(git rev-parse "$ref^")" = \
    "$(git rev-parse HEAD)"
git update-ref -d "$ref"
rm -rf "$common/forge/refs"
before=$(git_state)

# The same in a worktree reaches the repository: what --clone is for.
run_forge verify --worktree -- git branch -D side
is "in a worktree, git branch -D succeeds" "$rc" 0
not_ok "and the branch is gone from the real repository" \
    git rev-parse -q --verify refs/heads/side
git branch side HEAD
before=$(git_state)

# A branch and tags made in the copy come back; nothing else moves.
run_forge verify --clone -- sh -c 'git checkout -q -b topic &&
    git commit -q --allow-empty -m "on topic" && git tag t1 && git tag -a -m a t2 &&
    git config user.name other'
is "a commit on a new branch: forge passes" "$rc" 0
run=$(printf '%s\n' "$err" | sed -n 's|.*refs/forge/runs/\([0-9a-f]*\)/heads/topic .*|\1|p')
like "the run's refs are named after it" "$run" '^[0-9a-f]{16}$'
is "the branch arrived under refs/forge/runs/<run>/heads" \
    "$(git log -1 --format=%s "refs/forge/runs/$run/heads/topic")" "on topic"
is "the tags under .../tags" \
    "$(git rev-parse "refs/forge/runs/$run/tags/t1" \
    "refs/forge/runs/$run/tags/t2^{commit}" | sort -u | wc -l)" 1
is "the annotated tag is a tag" \
    "$(git cat-file -t "refs/forge/runs/$run/tags/t2")" tag
is "those three, no more" \
    "$(git for-each-ref --format='%(refname)' refs/forge/ | wc -l)" 3
ok "the objects are the real repository's now" \
    git cat-file -e "refs/forge/runs/$run/heads/topic^{tree}"
like "each is printed with its commit" "$err" \
    "refs/forge/runs/$run/tags/t1 at [0-9a-f]{12}"
is "the user's branches, HEAD, index and config are as they were" \
    "$(git_state)" "$before"
event=$(tail -n 1 "$common/forge/timeline.jsonl")
like "the timeline event records the refs" "$event" \
    "\"refs\":\\{\"refs/forge/runs/$run/heads/topic\":\"$(git rev-parse \
    "refs/forge/runs/$run/heads/topic")\""
like "and that the copy was a clone" "$event" '"isolation":"clone"'
if git_at_least 2 29; then
	not_ok "no FETCH_HEAD is written" test -e "$common/FETCH_HEAD"
fi

# Nothing made: nothing fetched, nothing said.
run_forge verify --clone -- git status
is "a clone where nothing is committed: forge passes" "$rc" 0
unlike "no refs are printed" "$err" 'the copy made'
is "no refs arrive" \
    "$(git for-each-ref --format='%(refname)' refs/forge/ | wc -l)" 3

# forge.isolation, and the options that override it.
git config forge.isolation clone
run_forge verify --isolated -- sh -c 'test -d .git && git branch -D side'
is "forge.isolation=clone: an isolated copy is a clone" "$rc" 0
ok "the branch stays in the real repository" git rev-parse -q --verify side
run_forge verify --worktree --isolated -- sh -c 'test -f .git'
is "--worktree overrides it" "$rc" 0
git config forge.isolation sideways
run_forge verify -- true
is "a bad forge.isolation is refused" "$rc" 64
like "naming the setting" "$err" 'forge.isolation'
git config --unset forge.isolation
run_forge verify --clone --in-place -- true
is "--clone --in-place is refused" "$rc" 64
run_forge verify --clone -- sh -c 'test -d .git'
is "--clone alone means --isolated" "$rc" 0

# A copy whose .git the command replaced: nothing is fetched from it.
run_forge verify --clone -- sh -c 'git commit -q --allow-empty -m x &&
    rm -rf .git && ln -s "$1" .git' sh "$common"
is "a .git replaced by a symlink: the verdict stands" "$rc" 0
like "forge says it fetched nothing" "$err" 'no results to fetch'
is "and nothing arrived" \
    "$(git for-each-ref --format='%(refname)' refs/forge/ | wc -l)" 3

# forge gc: the refs expire after forge.refsExpiry; --refs removes now.
run_forge gc
is "forge gc keeps refs younger than forge.refsExpiry" \
    "$(git for-each-ref refs/forge/ | wc -l)" 3
touch -d '2000-01-01 00:00:00' "$common/forge/refs/$run"
git config forge.refsExpiry 30d
run_forge gc --dry-run
like "gc --dry-run names expired refs" "$out" \
    "would remove 3 refs of forge run $run"
is "and leaves them" "$(git for-each-ref refs/forge/ | wc -l)" 3
run_forge gc
is "forge gc removes them once expired" "$rc" 0
like "saying so" "$out" "removed 3 refs of forge run $run"
is "they are gone" "$(git for-each-ref refs/forge/ | wc -l)" 0
ok "and so is their date" test ! -e "$common/forge/refs/$run"
run_forge verify --clone -- git commit -q --allow-empty -m again
run_forge gc
is "fresh refs stay" "$(git for-each-ref refs/forge/ | wc -l)" 1
run_forge gc --refs
like "forge gc --refs removes them now" "$out" 'removed 1 ref of forge run'
is "all of them" "$(git for-each-ref refs/forge/ | wc -l)" 0
git config forge.refsExpiry soon
run_forge gc
is "a bad forge.refsExpiry is refused" "$rc" 64
git config --unset forge.refsExpiry

# gc --refs beside a live run leaves that run's refs alone.
FORGE_TEST_STALL=checkout start_forge "$T/live.err" verify --clone -- true
live=$forge_pid
wait_for 30 grep -q "test stall: checkout" "$T/live.err"
id=$(ls "$common/forge/copies")
is "a clone registers nothing in the real repository" \
    "$(ls -A "$common/worktrees")" away
git update-ref "refs/forge/runs/$id/heads/x" HEAD
run_forge gc --refs
is "forge gc --refs beside a live run succeeds" "$rc" 0
ok "and leaves the live run's refs" \
    git rev-parse -q --verify "refs/forge/runs/$id/heads/x"
kill -KILL "$live"
wait "$live" 2>/dev/null
like "a clone killed with SIGKILL leaves its copy" "$(ls "$TMPDIR")" '^forge-'
run_forge gc --refs
like "forge gc removes the copy of the killed clone" "$out" \
    'removed .*forge-[0-9a-f]+ \(left by dead pid'
like "and, with --refs, the dead run's refs" "$out" \
    "removed 1 ref of forge run $id"
is "nothing is left behind" "$(leftovers "$T/r" | grep -v away)" ""

# Killed while the command runs in the clone: the next run reclaims.
start_forge "$T/cmd.err" verify --clone -- sh -c \
    'git commit -q --allow-empty -m lost; echo $$ >"$0"; exec sleep 60' \
    "$T/cmd.pid"
pid=$forge_pid
wait_for 30 test -s "$T/cmd.pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
run_forge verify --clone -- true
is "after a SIGKILL mid-command, the next clone run passes" "$rc" 0
like "and says what it removed" "$err" 'removed .*forge-[0-9a-f]+'
ok "the command left running is gone" dead "$(cat "$T/cmd.pid")"
is "nothing is left behind" "$(leftovers "$T/r" | grep -v away)" ""

# Two clones at once, each committing: each run's refs are its own.
for b in one two; do
	start_forge "$T/$b.err" verify --clone -- sh -c \
	    "git checkout -q -b $b && git commit -q --allow-empty -m $b"
	eval "pid_$b=\$forge_pid"
done
wait "$pid_one"
st_one=$?
wait "$pid_two"
st_two=$?
is "two clones at once both pass" "$st_one $st_two" "0 0"
is "each branch arrived once" \
    "$(git for-each-ref --format='%(refname)' refs/forge/ |
    sed 's|refs/forge/runs/[0-9a-f]*/||' | sort | tr '\n' ' ')" \
    "heads/one heads/two "
is "under two runs" "$(git for-each-ref --format='%(refname)' refs/forge/ |
    cut -d/ -f4 | sort -u | wc -l)" 2
is "nothing is left behind" "$(leftovers "$T/r" | grep -v away)" ""

# A submodule becomes a clone of its own: git there cannot reach the
# real submodule's repository (its git dir inside the top one's, with a
# core.worktree pointing at the real submodule's working tree).
git init -q "$T/subup"
git -C "$T/subup" commit -q --allow-empty -m sub
git submodule -q add "$T/subup" sub 2>/dev/null
git commit -q -m "add sub"
git -C sub tag st
subbefore=$(git -C sub for-each-ref; git -C sub config --list --local)
run_forge verify --clone -- sh -c 'test -d sub/.git &&
    test "$(git -C sub rev-parse --show-toplevel)" = "$(pwd -P)/sub" &&
    git -C sub tag -d st && git -C sub config x.y 1 &&
    git -C sub commit -q --allow-empty -m inside'
is "a submodule's clone: forge passes" "$rc" 0
is "the real submodule's refs and config are as they were" \
    "$(git -C sub for-each-ref; git -C sub config --list --local)" \
    "$subbefore"

# A clone whose refs git keeps in a reftable (the user's
# init.defaultRefFormat): the refs are created by git update-ref.
if git_at_least 2 45; then
	git config --global init.defaultRefFormat reftable
	run_forge verify --clone -- sh -c 'test -d .git/reftable &&
	    git rev-parse -q --verify "v1a^{commit}" >/dev/null &&
	    git checkout -q -b rt && git commit -q --allow-empty -m rt'
	is "a reftable clone: forge passes" "$rc" 0
	like "its branch came back" "$err" 'runs/[0-9a-f]{16}/heads/rt at '
	git config --global --unset init.defaultRefFormat
else
	skip "a reftable clone" "git 2.45 or later"
	skip "its branch came back" "git 2.45 or later"
fi

# From a linked worktree of the user's: the clone is on its branch, and
# the result comes back into the repository all worktrees share.
git worktree add -q -b wtb "$T/wt"
cd "$T/wt" || exit 99
run_forge verify --clone -- sh -c \
    'test "$(git rev-parse --abbrev-ref HEAD)" = wtb &&
    git commit -q --allow-empty -m "from wt"'
is "from a linked worktree: forge passes" "$rc" 0
like "the worktree's branch came back" "$err" 'runs/[0-9a-f]{16}/heads/wtb at '
is "and is seen from the main worktree" "$(git -C "$T/r" log -1 --format=%s \
    "$(git -C "$T/r" for-each-ref --format='%(refname)' refs/forge/ |
    grep '/heads/wtb$')")" \
    "from wt"
is "the worktree's branch did not move" \
    "$(git rev-parse wtb)" "$(git -C "$T/r" rev-parse main)"

done_testing
