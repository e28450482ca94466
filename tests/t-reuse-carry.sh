#!/bin/sh
# A reused copy's proof starts the source's side from the index the last
# run's ended with (git's stat cache, carried over): kept with the copy,
# dropped when the source's index entries change, and never believed
# over the files -- a carried index that lies costs a second look, not a
# wrong verdict.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
for i in 1 2 3 4 5 6; do printf 'file %s\n' "$i" >"f$i"; done
git add -A && git commit -q -m files

carried() {
	ls "$TMPDIR"/forge-*/.forge/carry/src*.index 2>/dev/null | head -n 1
}

printf 'edited\n' >>f1
printf 'untracked\n' >u1
run_forge verify --reuse -- true
is "a first --reuse run passes" "$rc" 0
isnt_empty=$(carried)
ok "it leaves the source's index for the next run" test -n "$isnt_empty"

printf 'again\n' >>f2
run_forge verify --reuse -- cat f2
is "a run that starts from it passes" "$rc" 0
like "with the new edit" "$out" 'again'
like "and the tree of the working state" "$err" \
    "Verdict: PASS \\(isolated, reused, (audited, )?tree $(tree_now)"

# A lie: the carried index takes f3 as it was (assume-unchanged), and f3
# changes.  The source's side is computed again, from the source's own.
idx=$(carried)
GIT_INDEX_FILE="$idx" git update-index --assume-unchanged f3
printf 'changed\n' >>f3
run_forge verify --reuse -- cat f3
is "a carried index that lies: the run still passes" "$rc" 0
like "with the file as it is" "$out" 'changed'
like "and the tree of the working state, not the one it said" "$err" \
    "Verdict: PASS \\(isolated, reused, (audited, )?tree $(tree_now)"
GIT_INDEX_FILE="$(carried)" git ls-files -v f3 >"$T/flags"
is "the lie is not carried over" "$(cut -c1 "$T/flags")" H

# The source's index changes: the carried one is not for it.
printf 'new\n' >f7
git add f7
git rm -q --cached u1 2>/dev/null || true
printf 'u1\n' >>.git/info/exclude
run_forge verify --reuse -- sh -c 'ls f7 u1 2>&1; true'
is "after the index changed, the run passes" "$rc" 0
like "with the staged file" "$out" '^f7$'
like "without the now ignored one" "$out" 'u1.*No such file'
like "and the tree of the working state" "$err" \
    "Verdict: PASS \\(isolated, reused, (audited, )?tree $(tree_now)"

# The copy tampered with between runs is still caught, carry or not.
copy=$(ls -d "$TMPDIR"/forge-*/r)
printf 'tampered\n' >"$copy/f4"
run_forge verify --reuse -- cat f4
is "a copy tampered with between runs: the run passes" "$rc" 0
is "with the working tree's content" "$out" "file 4"

# A large file changed at every run: a reused copy's proof has git
# hash it without writing its blob (only the id is needed), so the
# parked copy's scratch space does not grow run after run.
head -c 3145728 /dev/urandom >big.bin
git add big.bin && git commit -q -m big
scratch_kib() {
	du -sk "$TMPDIR"/forge-*/.forge/objects | awk '{ print $1 }'
}
# Where in the scratch space blob id $1 is, if anywhere.
blob_at() {
	find "$TMPDIR"/forge-*/.forge -path "*/${1%"${1#??}"}/${1#??}"
}
for round in 1 2 3 4 5; do
	printf 'round %s' "$round" | dd of=big.bin bs=1 seek=4096 \
	    conv=notrunc 2>/dev/null
	eval "blob$round=\$(git hash-object big.bin)"
	run_forge verify --reuse -- true
	is "a big file changed, round $round: the run passes" "$rc" 0
done
kib=$(scratch_kib)
if [ "$kib" -lt 1024 ]; then
	pass "the carried trees stay small ($kib KiB after 5 rounds)"
else
	fail "the carried trees stay small" "$kib KiB after 5 rounds"
fi
is "no run wrote a blob of the big file" \
    "$(blob_at "$blob1")$(blob_at "$blob2")$(blob_at "$blob3")$(blob_at \
    "$blob4")$(blob_at "$blob5")" ""
big=$(find "$TMPDIR"/forge-*/.forge -type f -size +1024k | wc -l)
is "no big file is in the scratch space" "$big" 0

# A file system mounted among the carried objects: the next run keeps
# nothing of them, and removes nothing in it -- not even a file as large
# as the big blobs it lets go of.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
	objs=$(ls -d "$TMPDIR"/forge-*/.forge/objects)
	mkdir -p "$T/mounted" "$objs/ab"
	head -c 2097152 /dev/zero >"$T/mounted/precious"
	unshare -m sh -c 'mount --bind "$1" "$2/ab" &&
	    "$3" verify --reuse -- true' sh "$T/mounted" "$objs" "$FORGE" \
	    >"$T/mounted.out" 2>&1
	is "a mount among the carried objects: the file in it survives" \
	    "$(wc -c <"$T/mounted/precious" | tr -d ' ')" 2097152
	like "and the run passes" "$(cat "$T/mounted.out")" 'Verdict: PASS'
	# The run's mark outlived the partial removal: gc can finish it.
	forge gc --all >/dev/null 2>&1
	is "forge gc then removes what the mount kept" "$(ls -A "$TMPDIR")" ""
	run_forge verify --reuse -- true
	# A parked copy that cannot be cleared for reuse (a file system
	# mounted in its scratch space): the run goes on in a fresh copy,
	# and what it let go of is not used again.
	top=$(ls -d "$TMPDIR"/forge-*)
	unshare -m sh -c 'mkdir -p "$1/.forge/mnt" &&
	    mount -t tmpfs none "$1/.forge/mnt" &&
	    "$2" verify --reuse -- true' sh "$top" "$FORGE" \
	    >"$T/mounted2.out" 2>&1
	like "a parked copy with a mount in its scratch space: a fresh copy" \
	    "$(cat "$T/mounted2.out")" 'Verdict: PASS \(isolated, fresh'
	forge gc --all >/dev/null 2>&1
	is "forge gc then removes both" "$(ls -A "$TMPDIR")" ""
	run_forge verify --reuse -- true
	# A file system a command mounts among the last run's blobs: the
	# copy is not parked (nor its blobs removed as it would be), and
	# nothing in the mount is removed.
	run_forge verify --reuse -- true
	unshare -m sh -c '"$1" verify --reuse -- sh -c "mkdir -p \
	    ../.forge/blobs.last/ab && mount --bind \"\$0\" \
	    ../.forge/blobs.last/ab" "$2"' sh "$FORGE" "$T/mounted" \
	    >"$T/mounted3.out" 2>&1
	is "a mount among the last run's blobs: the file in it survives" \
	    "$(wc -c <"$T/mounted/precious" | tr -d ' ')" 2097152
	like "and the run passes" "$(cat "$T/mounted3.out")" 'Verdict: PASS'
	like "the copy is not parked" "$(cat "$T/mounted3.out")" \
	    'no longer provably forge.s: removing it, not parking it'
	forge gc --all >/dev/null 2>&1
	is "forge gc then removes what the mount kept" "$(ls -A "$TMPDIR")" ""
	run_forge verify --reuse -- true
else
	skip "a mount among the carried objects" "needs root and unshare -m"
	skip "a mount among the carried objects: the run" \
	    "needs root and unshare -m"
	skip "a mount among the carried objects: gc" \
	    "needs root and unshare -m"
	skip "a parked copy with a mount in its scratch space" \
	    "needs root and unshare -m"
	skip "a parked copy with a mount in its scratch space: gc" \
	    "needs root and unshare -m"
	skip "a mount among the last run's blobs" "needs root and unshare -m"
	skip "a mount among the last run's blobs: the run" \
	    "needs root and unshare -m"
	skip "a mount among the last run's blobs: not parked" \
	    "needs root and unshare -m"
	skip "a mount among the last run's blobs: gc" \
	    "needs root and unshare -m"
fi

# What is kept beside the copy for the next run, made to lead out of it
# by a command: the next run follows none of it, and leaves what is
# outside as it was.
mkdir "$T/away" && printf 'mine\n' >"$T/away/keep"
touch -d '2001-01-01 00:00:00 UTC' "$T/away/keep"
n=0
for how in 'rm -rf ../.forge/carry && ln -s "$1" ../.forge/carry' \
    'rm -rf ../.forge/objects && ln -s "$1" ../.forge/objects' \
    'mkdir -p ../.forge/objects/pack && rm -rf ../.forge/objects/pack &&
    ln -s "$1" ../.forge/objects/pack &&
    for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
    for e in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
    rm -rf ../.forge/objects/$d$e && ln -s "$1" ../.forge/objects/$d$e;
    done; done' \
    'rm -rf ../.forge/blobs && ln -s "$1" ../.forge/blobs' \
    'rm -rf ../.forge/blobs.last && ln -s "$1" ../.forge/blobs.last' \
    'for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
    for e in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
    rm -rf ../.forge/blobs/$d$e && ln -s "$1" ../.forge/blobs/$d$e;
    done; done' \
    'mkdir -p "../.forge/blobs/${FUT%"${FUT#??}"}" &&
    ln -s "$1/keep" "../.forge/blobs/${FUT%"${FUT#??}"}/${FUT#??}"' \
    'mkdir -p "../.forge/blobs/${FUT%"${FUT#??}"}" &&
    ln "$1/keep" "../.forge/blobs/${FUT%"${FUT#??}"}/${FUT#??}"' \
    'mkdir -p ../.forge/objects/00 &&
    ln "$1/keep" "../.forge/objects/00/$(printf "%038d" 0)"'; do
	n=$((n + 1))
	printf 'x %s\n' "$n" >>f5
	# The blob f5 is to have next: a symlink by its name would have
	# git take the file it leads to for it (and touch its mtime).
	FUT=$({ cat f5; printf 'y %s\n' "$n"; } | git hash-object --stdin)
	export FUT
	run_forge verify --reuse -- sh -c "$how" sh "$T/away"
	is "tamper $n: the run passes" "$rc" 0
	printf 'y %s\n' "$n" >>f5
	run_forge verify --reuse -- cat f5
	is "tamper $n: the next run passes" "$rc" 0
	like "tamper $n: with the file as it is" "$out" "y $n"
	is "tamper $n: nothing outside was touched" "$(ls -A "$T/away")" keep
	is "tamper $n: not even the mtime of what is there" \
	    "$(stat -c %Y "$T/away/keep")" 978307200
	find "$T/away" -mindepth 1 ! -name keep -exec rm -rf {} + 2>/dev/null
done

# The copy's HEAD is detached at the working tree's by git only where it
# is not already; a command that moved it has it put back.
run_forge verify --reuse -- true
run_forge verify --reuse -- git update-ref --no-deref HEAD HEAD~1
is "a command that moves the copy's HEAD: the run passes" "$rc" 0
run_forge verify --reuse -- git rev-parse HEAD
is "the next run's copy is at the working tree's HEAD again" "$out" \
    "$(git rev-parse HEAD)"

# A tracked file the working state ignores, gone from disk when the last
# run's index was made and there again now, is the tracked file it is:
# in the copy, and in the tree proved.  (With a flagged entry, git looks
# at every file: git add -A, which takes no ignored file it does not
# track.)
printf 'kept ignored\n' >tracked.log
git add tracked.log && git commit -q -m tracked-log
printf '*.log\n' >>"$(git rev-parse --git-path info/exclude)"
git update-index --skip-worktree f6
run_forge verify --reuse -- true
rm tracked.log
run_forge verify --reuse -- true
is "a tracked ignored file gone from disk: the run passes" "$rc" 0
printf 'back again\n' >tracked.log
run_forge verify --reuse -- cat tracked.log
is "and there again: the run passes" "$rc" 0
is "the copy has it" "$out" "back again"
like "and the tree proved is the working state's" "$err" "tree $(tree_now)"
git update-index --no-skip-worktree f6
git rm -q tracked.log && git commit -q -m no-log

# The same for a conflict's path: no entry to put back, so the carried
# index is not started from.
git checkout -q -b side
printf 'theirs\n' >conflict.log
git add -f conflict.log && git commit -q -m side
git checkout -q main
printf 'ours\n' >conflict.log
git add -f conflict.log && git commit -q -m ours
git merge -q side >/dev/null 2>&1
git update-index --skip-worktree f6
run_forge verify --reuse -- true
rm conflict.log
run_forge verify --reuse -- true
printf 'resolved\n' >conflict.log
run_forge verify --reuse -- cat conflict.log
is "a conflict's ignored path gone, then there again: the run passes" "$rc" 0
is "the copy has it" "$out" resolved
like "and the tree proved is the working state's" "$err" "tree $(tree_now)"
git update-index --no-skip-worktree f6
git add -f conflict.log && git commit -q -m merged
git branch -q -D side

# A conflict's ignored path resolved with git rm --cached leaves the
# index's entries as they were: the carried index, which has an entry
# for it, is not the one to start from.
printf 'base\n' >rm.log
git add -f rm.log && git commit -q -m rm-base
git checkout -q -b side
printf 'theirs\n' >rm.log
git add -f rm.log && git commit -q -m theirs
git checkout -q main
git rm -q rm.log && git commit -q -m ours-deletes
git merge -q side >/dev/null 2>&1
git update-index --skip-worktree f6
run_forge verify --reuse -- true
run_forge verify --reuse -- true
git rm -q --cached rm.log
run_forge verify --reuse -- sh -c 'ls rm.log 2>&1 || true'
is "a conflict's ignored path resolved by git rm --cached: passes" "$rc" 0
like "the copy has it no more" "$out" 'No such file'
like "and the tree proved is the working state's" "$err" "tree $(tree_now)"
git update-index --no-skip-worktree f6
git commit -q -m resolved
rm -f rm.log
git branch -q -D side

# A split index: each index forge's gits write is one file, and none of
# them a shared index in the repository's git directory.
shared_indexes() {
	ls "$(git rev-parse --git-dir)" | grep -c '^sharedindex'
}
git config core.splitIndex true
git update-index --split-index
shared=$(shared_indexes)
git update-index --skip-worktree f6
for i in 1 2 3; do
	printf 'split %s\n' "$i" >>f2
	run_forge verify --reuse -- true
done
is "a split index: the runs pass" "$rc" 0
is "and leave no shared index in the repository" \
    "$(shared_indexes)" "$shared"
# Nor where the index is one file while core.splitIndex says otherwise
# (set after git last wrote it): --staged writes its tree from a copy.
printf 'staged\n' >>f3
git add f3
git update-index --no-split-index
shared=$(shared_indexes)
for i in 1 2; do
	printf 'unstaged %s\n' "$i" >>f3
	run_forge verify --staged -- true
done
is "a --staged run passes" "$rc" 0
is "and leaves no shared index either" \
    "$(shared_indexes)" "$shared"
git commit -q -m staged
git update-index --no-skip-worktree f6
git config --unset core.splitIndex
git update-index --no-split-index


run_forge gc --all
is "gc removes the copy and what it carries" "$(ls -A "$TMPDIR")" ""
done_testing
