#!/bin/sh
# Messages name the real cause: a full disk, a TMPDIR inside the tree, a
# wait for another forge's lock; stale links where copies were go; an
# untracked sparse file stays sparse in the copy.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"

# TMPDIR inside the working tree, not ignored: refused before anything is
# built.  Ignored, it is fine.
mkdir "$T/r/tmp-in-tree"
TMPDIR="$T/r/tmp-in-tree" run_forge verify --isolated -- true
is "TMPDIR inside the tree and not ignored: refused" "$rc" 125
like "with the reason" "$err" \
    "TMPDIR $T/r/tmp-in-tree is inside the working tree and not ignored"
is "before anything was built" "$(ls -A "$T/r/tmp-in-tree")" ""
is "and nothing was recorded as run" \
    "$(grep -c '"event":"verify"' "$common/forge/timeline.jsonl" 2>/dev/null || echo 0)" 0
printf 'tmp-in-tree/\n' >>"$T/r/.git/info/exclude"
TMPDIR="$T/r/tmp-in-tree" run_forge verify --isolated -- true
is "ignored, it is fine" "$rc" 0
is "and left nothing behind" "$(ls -A "$T/r/tmp-in-tree")" ""
run_forge verify --in-place -- true
is "in place, TMPDIR does not matter" "$rc" 0
rmdir "$T/r/tmp-in-tree"

# Another forge holds the state lock: after a second, forge says it is
# waiting; the wait counts against --timeout.
mkdir -p "$common/forge"
flock "$common/forge/lock" sleep 3 &
holder=$!
wait_for 10 sh -c "! flock -n '$common/forge/lock' true"
run_forge verify -- true
is "a held lock: forge waits, then passes" "$rc" 0
like "and says what it waited for" "$err" \
    'waiting for another forge to release .*/forge/lock'
wait "$holder"
flock "$common/forge/lock" sleep 5 &
holder=$!
wait_for 10 sh -c "! flock -n '$common/forge/lock' true"
run_forge verify --timeout 1500ms -- true
is "a lock held past --timeout: 124" "$rc" 124
like "said" "$err" 'gave up waiting for .*/forge/lock: the time limit passed'
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# The run's directory cannot be made (something took its name meanwhile):
# an ERROR, said, and nothing of the run is left -- nor, under valgrind
# or ASan, anything the half-made run held.
FORGE_TEST_STALL=journal FORGE_TEST_STALL_RELEASE="$T/go" \
    start_forge "$T/taken.err" verify --isolated -- true
wait_for 30 grep -q "test stall: journal" "$T/taken.err"
run=$(ls "$common/forge/copies")
printf 'taken\n' >"$TMPDIR/forge-$run"
touch "$T/go"
wait "$forge_pid"
is "the run's name taken: 125" "$?" 125
like "and said" "$(cat "$T/taken.err")" "cannot create .*forge-$run"
rm -f "$TMPDIR/forge-$run" "$T/go"
is "nothing is left" "$(leftovers "$T/r")" ""

# A stale symlink where a dead run's copy was: gc removes the link, never
# what it points to.
mkdir -p "$T/target"
printf 'keep me\n' >"$T/target/file"
ln -s "$T/target" "$TMPDIR/forge-00000000000000cc"
mkdir -p "$common/forge/copies"
printf '{"run":"00000000000000cc","pid":999999999,"start":1,"boot":"","top":"%s"}\n' \
    "$TMPDIR/forge-00000000000000cc" >"$common/forge/copies/00000000000000cc"
run_forge gc
is "a stale symlink: gc succeeds" "$rc" 0
ok "the link is gone" test ! -L "$TMPDIR/forge-00000000000000cc"
is "what it pointed to is untouched" "$(cat "$T/target/file")" "keep me"
is "nothing is left" "$(leftovers "$T/r")" ""

# An untracked sparse file stays sparse in the copy.
truncate -s 1G "$T/r/sparse.bin"
printf 'data' | dd of="$T/r/sparse.bin" bs=1 seek=4096 conv=notrunc 2>/dev/null
if [ "$(stat -c %b "$T/r/sparse.bin")" -gt 1024 ]; then
	skip "a sparse untracked file stays sparse" "no sparse files here"
else
	# Without the proof, which reads every byte on both sides.
	run_forge verify --isolated --no-check -- sh -c \
	    'stat -c "%s %b" sparse.bin; dd if=sparse.bin bs=1 skip=4096 count=4 2>/dev/null'
	is "a 1 GiB sparse untracked file: the run passes" "$rc" 0
	set -- $out
	is "in the copy it has its size" "$1" 1073741824
	ok "and few blocks (it has $2)" test "$2" -le 1024
	is "and its data" "$3" data
fi
rm -f "$T/r/sparse.bin"

# A disk that fills while the uncommitted changes are written (without
# the proof, whose objects would fill it at another moment).
if [ "$(id -u)" -ne 0 ] || ! unshare -m --propagation private true 2>/dev/null
then
	skip "a full disk while applying is named as such" \
	    "needs root and a mount namespace for a small tmpfs"
else
	# small SIZE: forge verify with TMPDIR a tmpfs of SIZE of its own.
	small() {
		mkdir -p "$T/small"
		printf '%s\n' "mount -t tmpfs -o size=$1 tmpfs \"\$T/small\" &&
TMPDIR=\$T/small \${FORGE_WRAPPER:-} \"\$FORGE\" verify --isolated --no-check -- true" \
		    >"$T/ns.sh"
		(cd "$T/r" && T=$T FORGE=$FORGE unshare -m --propagation private \
		    sh "$T/ns.sh" >"$T/.stdout" 2>"$T/.stderr" </dev/null)
		rc=$?
		err=$(cat "$T/.stderr")
	}
	head -c 3000000 /dev/zero | tr '\0' 'x' | fold -w 100 >"$T/r/hello.txt"
	small 1m
	is "a full disk while applying: 125" "$rc" 125
	like "is named as such" "$err" \
	    'cannot write the uncommitted changes into the copy: No space left on device'
	unlike "not as a patch git refused" "$err" 'git apply refused'
	# The same, with the file copied whole (past forge.copyThreshold)
	# and then through the patch.  The patch, made while git checks
	# out, has room; the file it makes has not.
	like "copied whole, named as such" "$err" \
	    'cannot write the uncommitted changes into the copy: No space left on device \(in .*, copying hello.txt\)'
	git -C "$T/r" config forge.copyThreshold 10m
	small 5m
	is "a full disk while applying the patch: 125" "$rc" 125
	like "is named as such too" "$err" \
	    'cannot write the uncommitted changes into the copy: No space left on device'
	unlike "not as a patch git refused either" "$err" 'git apply refused'
	# Whichever fills the disk first, the patch or the checkout, the
	# disk is named.  With a 1 MiB file system the patch may: it has
	# no room even for itself.
	small 1m
	is "a patch with no room: 125" "$rc" 125
	like "the full disk is named" "$err" 'No space left on device'
	unlike "not as a patch git refused" "$err" 'git apply refused'
	git -C "$T/r" config --unset forge.copyThreshold
	git -C "$T/r" checkout -q -- hello.txt

	# A checkout that fills the disk with many small files: git says
	# only "unable to write file"; each file takes a whole block.
	mkdir "$T/r/many"
	i=0
	while [ $i -lt 400 ]; do
		printf 'file %d\n' $i >"$T/r/many/f$i"
		i=$((i + 1))
	done
	git -C "$T/r" add many && git -C "$T/r" commit -q -m many
	small 1m
	is "a checkout of small files that cannot fit: 125" "$rc" 125
	like "the full disk is named, with what the checkout needs" "$err" \
	    'cannot check out HEAD into the copy: No space left on device: .* has [0-9]+ KiB free, the checkout of HEAD needs about [0-9]+ KiB'
	git -C "$T/r" rm -rq many && git -C "$T/r" commit -q -m "no more"
fi

done_testing
