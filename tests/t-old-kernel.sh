#!/bin/sh
# On a kernel older than this one, removing a copy still never reaches
# through a mount left in it.  tests/oldkernel.so makes statx(2) answer
# as an older Linux does: without the mount-root flag (noroot), without
# mount ids either (nomnt: Linux 4.11 to 5.7), or not at all (enosys:
# before 4.11).  With mount ids, comparing them (and devices) keeps a
# removal out of a bind mount; without, only the device tells another
# file system, and the mount table is what keeps forge out of a bind
# mount of the same one -- by leaving the whole copy to forge gc.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

SHIM=${TREELIST%/*}/oldkernel.so
new_repo "$T/r"

# A repository elsewhere on the machine, the kind of thing a bind mount
# in the copy could expose.
git init -q "$T/victim"
printf 'precious\n' >"$T/victim/precious.txt"
git -C "$T/victim" add precious.txt
git -C "$T/victim" commit -q -m precious
victim_before=$(state_of "$T/victim")

if [ "$(id -u)" -ne 0 ]; then
	why="mounting needs root"
elif ! unshare -m --propagation private true 2>/dev/null; then
	why="no mount namespace here (unshare -m failed)"
elif [ ! -f "$SHIM" ]; then
	why="tests/oldkernel.so is not built"
else
	why=
fi
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi

# old_kernel_ns HOW SCRIPT: in_ns, with oldforge in SCRIPT being forge
# on a kernel as HOW says; TMPDIR and victim are in its environment
# too.  (Preloaded beside AddressSanitizer, the shim comes before its
# runtime, which it would otherwise refuse.)
victim=$T/victim
export victim
old_kernel_ns() {
	rm -f "$T/seen"
	_old=$(cat <<EOF
LD_PRELOAD='$SHIM' OLDKERNEL_STATX=$1 OLDKERNEL_SEEN='$T/seen'
ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0
oldforge() {
	LD_PRELOAD=\$LD_PRELOAD OLDKERNEL_STATX=\$OLDKERNEL_STATX \\
	    OLDKERNEL_SEEN=\$OLDKERNEL_SEEN ASAN_OPTIONS=\$ASAN_OPTIONS \\
	    \${FORGE_WRAPPER} "\$FORGE" "\$@"
}
EOF
)
	in_ns "$_old
$2"
}

for how in noroot nomnt enosys; do
	# The command bind-mounts a directory of the victim's, and mounts
	# a file system of its own, in the copy, and leaves them there.
	old_kernel_ns "$how" '
oldforge verify --isolated -- sh -c "mkdir -p sub/m sub/t &&
    mount --bind \"\$0\" sub/m && mount -t tmpfs t sub/t &&
    echo kept >sub/t/kept && echo beside >sub/beside" "$victim"
echo "verify: $?"
for copy in "$TMPDIR"/forge-*/r; do :; done
cat "$copy/sub/t/kept"
if [ -e "$copy/sub/beside" ]; then echo "beside: stayed"; fi
umount "$copy/sub/m" "$copy/sub/t"'
	like "[$how] mounts left in the copy: the run passes" "$out" \
	    '^verify: 0$'
	ok "[$how] forge asked the older kernel" test -e "$T/seen"
	is "[$how] the bind mount of the victim was not crossed" \
	    "$(state_of "$T/victim")" "$victim_before"
	like "[$how] nor the file system mounted in the copy" "$out" \
	    '^kept$'
	like "[$how] both are named, left in place" "$err" \
	    "a file system is mounted at $TMPDIR/forge-[0-9a-f]+/.*sub/[mt]"
	case $how in
	noroot)
		unlike "[$how] the rest of the copy went" "$out" \
		    'beside: stayed' ;;
	*)
		# Blind to bind mounts: the mount table says there are
		# mounts, and nothing of the copy is touched.
		like "[$how] with mounts in it, nothing of the copy went" \
		    "$out" 'beside: stayed' ;;
	esac
	run_forge gc
	is "[$how] once unmounted, gc removes the rest" "$rc" 0
	is "[$how] and nothing is left" "$(leftovers "$T/r")" ""
done

# Where only the device tells a mount apart: a file system mounted in a
# parked copy's scratch space, which the next run, finding the copy
# tampered with, empties by the directory (no mount table read) before
# it removes what it can of the copy.
old_kernel_ns nomnt '
oldforge verify --reuse -- true
echo "parked: $?"
for top in "$TMPDIR"/forge-*; do :; done
mkdir "$top/.forge/m" && mount -t tmpfs t "$top/.forge/m" &&
    echo kept >"$top/.forge/m/kept"
oldforge verify --reuse -- true
echo "verify: $?"
cat "$top/.forge/m/kept"
umount "$top/.forge/m"'
like "[nomnt] a mount in a parked copy's scratch space: the run passes" \
    "$out" '^verify: 0$'
like "[nomnt] the copy is not reused" "$err" 'was tampered with'
like "[nomnt] and what is mounted there is not emptied" "$out" '^kept$'
run_forge gc --all
is "[nomnt] once unmounted, gc removes what is left" "$rc" 0
is "[nomnt] and nothing is left" "$(leftovers "$T/r")" ""

# forge gc on a dead run's copy, a bind mount in it: the mount table
# keeps it out, and a later gc removes the rest.
old_kernel_ns nomnt '
LD_PRELOAD=$LD_PRELOAD OLDKERNEL_STATX=$OLDKERNEL_STATX \
    OLDKERNEL_SEEN=$OLDKERNEL_SEEN ASAN_OPTIONS=$ASAN_OPTIONS \
    ${FORGE_WRAPPER} "$FORGE" verify --isolated -- sh -c \
    "mkdir m && mount --bind \"\$0\" m && touch \"\$1\" && exec sleep 60" \
    "$victim" "$T/mounted" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$T/mounted" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
kill -KILL $pid
wait $pid
oldforge gc
echo "gc: $?"
for m in "$TMPDIR"/forge-*/r/m; do umount "$m"; done
oldforge gc
echo "gc again: $?"'
like "[nomnt] gc beside a mount in a dead copy: it says what stays" "$err" \
    'a file system is mounted at .*/m'
like "[nomnt] and fails, as something was left" "$out" '^gc: 125$'
is "[nomnt] the victim is whole" "$(state_of "$T/victim")" "$victim_before"
like "[nomnt] once unmounted, gc removes the rest" "$out" '^gc again: 0$'
is "[nomnt] and nothing is left" "$(leftovers "$T/r")" ""

done_testing
