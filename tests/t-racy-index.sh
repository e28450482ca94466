#!/bin/sh
# A file changed within the same timestamp tick as the index was written
# looks clean by its stat data alone; git knows to read such "racily
# clean" entries again, because their mtime is not older than the
# index's.  The tree id forge computes (the proof of the copy, and the
# tree it records) must see the file as git does.
#
# The race is made deterministic here: the stat data the index holds is
# made to match the changed file (same size, inode and mtime; ctime not
# trusted), and the index's mtime is set to the entry's, as a write in
# the same tick would leave it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

stamp='2020-01-01 00:00:00'

# racy CONFIG VALUE: a fresh repository where racy.txt is changed on disk
# but its index entry's stat data still matches.
racy() {
	new_repo "$T/r-$1"
	git config "$1" "$2"
	printf 'AAAA\n' >racy.txt
	touch -d "$stamp" racy.txt
	git add racy.txt && git commit -q -m racy
	printf 'BBBB\n' >racy.txt	# same size, same inode
	touch -d "$stamp" racy.txt .git/index
}

# true_tree: the working state's tree, from a fresh index (no stat cache).
true_tree() {
	mkdir -p "$T/obj"
	GIT_INDEX_FILE="$T/fresh-index" GIT_OBJECT_DIRECTORY="$T/obj" \
	    GIT_ALTERNATE_OBJECT_DIRECTORIES="$PWD/.git/objects" \
	    sh -c 'git add -A && git write-tree'
	rm -f "$T/fresh-index"
}

for setting in 'core.trustctime false' 'core.checkStat minimal'; do
	set -- $setting
	racy "$1" "$2"
	want=$(true_tree)
	# git itself sees the change.
	touch -d "$stamp" .git/index
	is "$1=$2: git diff sees the change" \
	    "$(git diff --name-only HEAD)" racy.txt
	touch -d "$stamp" .git/index

	run_forge verify --isolated -- cat racy.txt
	is "$1=$2: the isolated run passes" "$rc" 0
	is "$1=$2: the copy holds the change" "$out" BBBB
	unlike "$1=$2: the proof does not call the copy different" "$err" \
	    'is not the working state'
	like "$1=$2: the verdict names the working state's tree" \
	    "$(printf '%s\n' "$err" | tail -n 1)" \
	    "Verdict: PASS \\(isolated, tree $(printf '%.12s' "$want"),"

	touch -d "$stamp" .git/index
	run_forge verify --in-place -- true
	like "$1=$2: in place, the recorded tree is the working state's" \
	    "$(printf '%s\n' "$err" | tail -n 1)" \
	    "Verdict: PASS \\(in place, tree $(printf '%.12s' "$want"),"
	is "$1=$2: nothing is left behind" "$(leftovers "$PWD")" ""
done

# The copy's side of the proof takes each tracked file whose times are
# older than the end of the checkout as git wrote it.  One changed in the
# copy once the checkout ended -- same size, its mtime put back -- has a
# ctime that says so, and the proof refuses the copy.
new_repo "$T/after"
printf 'AAAA\n' >kept.txt
git add kept.txt && git commit -q -m kept
rm -f "$T/go"
FORGE_TEST_STALL=checkout FORGE_TEST_STALL_RELEASE="$T/go" \
    start_forge "$T/after.err" verify --isolated -- cat kept.txt
pid=$forge_pid
wait_for 30 grep -q "test stall: checkout" "$T/after.err"
copy=$(ls -d "$TMPDIR"/forge-*/after)
touch -r "$copy/kept.txt" "$T/stamp"
printf 'BBBB\n' >"$copy/kept.txt"
touch -r "$T/stamp" "$copy/kept.txt"
touch "$T/go"
wait "$pid"
is "a file changed in the copy after its checkout: forge refuses" "$?" 125
like "and names it" "$(cat "$T/after.err")" 'kept.txt'
unlike "and runs nothing" "$(cat "$T/after.err")" 'Verdict: PASS'

# The same where the copy's index is newer than the file by more than a
# tick, so that git, were it asked, would not take the entry for
# racily clean: the ctime alone tells.
rm -f "$T/go"
FORGE_TEST_STALL=checkout FORGE_TEST_STALL_RELEASE="$T/go" \
    start_forge "$T/after2.err" verify --isolated -- cat kept.txt
pid=$forge_pid
wait_for 30 grep -q "test stall: checkout" "$T/after2.err"
copy=$(ls -d "$TMPDIR"/forge-*/after)
touch -r "$copy/kept.txt" "$T/stamp"
printf 'CCCC\n' >"$copy/kept.txt"
touch -r "$T/stamp" "$copy/kept.txt"
touch -d "@$(($(date +%s) + 2))" \
    "$(git -C "$copy" rev-parse --git-path index)"
touch "$T/go"
wait "$pid"
is "changed after the checkout, not racily clean: forge refuses" "$?" 125
unlike "and runs nothing" "$(cat "$T/after2.err")" 'Verdict: PASS'

# The same where the copy's file system keeps whole seconds (ext4 with
# small inodes, as FAT, NFS or 9p may): a file changed after the
# checkout is stamped with the second it began in, earlier than the
# clock said the checkout ended.  Root only, to mount one.
fs="$T/fs"
mkdir -p "$fs"
if [ "$(id -u)" = 0 ] && truncate -s 32M "$T/fs.img" 2>/dev/null &&
    mkfs.ext4 -q -I 128 "$T/fs.img" >/dev/null 2>&1 &&
    mount -o loop "$T/fs.img" "$fs" 2>/dev/null; then
	mkdir "$fs/tmp"
	new_repo "$T/coarse"
	printf 'AAAA\n' >kept.txt
	git add kept.txt && git commit -q -m kept
	rm -f "$T/go"
	TMPDIR="$fs/tmp" FORGE_TEST_STALL=checkout \
	    FORGE_TEST_STALL_RELEASE="$T/go" start_forge "$T/coarse.err" \
	    verify --isolated -- cat kept.txt
	pid=$forge_pid
	wait_for 30 grep -q "test stall: checkout" "$T/coarse.err"
	copy=$(ls -d "$fs"/tmp/forge-*/coarse)
	touch -r "$copy/kept.txt" "$T/stamp"
	printf 'BBBB\n' >"$copy/kept.txt"
	touch -r "$T/stamp" "$copy/kept.txt"
	touch "$T/go"
	wait "$pid"
	is "whole seconds: a file changed after the checkout is refused" \
	    "$?" 125
	like "and named" "$(cat "$T/coarse.err")" 'differs: kept.txt'
	is "and nothing is left behind" "$(ls -A "$fs/tmp")" ""
	umount "$fs" 2>/dev/null || umount -l "$fs"
else
	skip "whole seconds: a file changed after the checkout is refused" \
	    "cannot mount a file system of whole seconds"
fi

done_testing
