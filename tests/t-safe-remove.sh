#!/bin/sh
# Removing a copy never reaches outside it: not through a mount that the
# command left in it, not into a user's own worktree registration.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"

# A repository elsewhere on the machine, the kind of thing a bind mount
# in the copy could expose.
git init -q "$T/victim"
printf 'precious\n' >"$T/victim/precious.txt"
git -C "$T/victim" add precious.txt
git -C "$T/victim" commit -q -m precious
victim_before=$(state_of "$T/victim")

# Mounts need root and a mount namespace of the test's own, so that
# nothing it mounts outlives it.
if [ "$(id -u)" -ne 0 ]; then
	why="mounting needs root"
elif ! unshare -m --propagation private true 2>/dev/null; then
	why="no mount namespace here (unshare -m failed)"
else
	why=
fi

# The code in_ns runs finds the victim in its environment.
victim=$T/victim
export victim

if [ -n "$why" ]; then
	for d in "a bind mount left in the copy empties nothing" \
	    "the copy around a mount point is left, and named" \
	    "gc later removes the rest" "gc beside a mount in a dead copy" \
	    "gc --dry-run said the mount point would stay" \
	    "and would not say the copy goes" "with gc's exit status" \
	    "once unmounted, gc removes the rest" \
	    "a mount point's mode is left as it was" \
	    "a mount over TMPDIR: the copy is named as out of reach"; do
		skip "$d" "$why"
	done
else
	# The command mounts a directory of the victim inside the copy and
	# leaves it there; forge removes the copy while it is mounted.
	in_ns '${FORGE_WRAPPER} "$FORGE" verify --isolated -- sh -c \
	    "mkdir -p sub/m && mount --bind \"\$0\" sub/m" "$victim"'
	is "a bind mount left in the copy: the run passes" "$rc" 0
	is "a bind mount left in the copy empties nothing" \
	    "$(state_of "$T/victim")" "$victim_before"
	like "the mount point is named, with the reason, in one line" "$err" \
	    "a file system is mounted at $TMPDIR/forge-[0-9a-f]+/.*/sub/m: left in place, forge gc will try again"
	like "the verdict is still the command's" "$err" 'Verdict: PASS'
	like "and is recorded as such" \
	    "$(grep '"event":"verify"' "$common/forge/timeline.jsonl")" \
	    '"verdict":"PASS"'
	like "the copy's record is kept for gc" \
	    "$(ls "$common/forge/copies")" '^[0-9a-f]{16}$'
	like "and so is what was around the mount point" "$(ls "$TMPDIR")" \
	    '^forge-[0-9a-f]{16}$'
	run_forge gc
	is "gc later removes the rest" "$rc" 0
	is "and nothing is left" "$(leftovers "$T/r")" ""
	is "the victim is still whole" "$(state_of "$T/victim")" \
	    "$victim_before"

	# A run killed outright with a mount in its copy: gc, in the same
	# namespace, ends the command and still never empties the mount.
	in_ns '
${FORGE_WRAPPER} "$FORGE" verify --isolated -- sh -c \
    "mkdir m && mount --bind \"\$0\" m && touch \"\$1\" && exec sleep 60" \
    "$victim" "$T/mounted" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$T/mounted" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
kill -KILL $pid
wait $pid
${FORGE_WRAPPER} "$FORGE" gc --dry-run 2>&1 | sed "s/^/dry: /"
${FORGE_WRAPPER} "$FORGE" gc --dry-run >/dev/null 2>&1
echo "gc --dry-run: $?"
${FORGE_WRAPPER} "$FORGE" gc
echo "gc: $?"
ls -A "$victim"
for m in $(sed -n "s/^[^ ]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .*/\1/p" /proc/self/mountinfo | grep "/forge-"); do
	umount "$m"
done
${FORGE_WRAPPER} "$FORGE" gc
echo "gc again: $?"'
	like "gc beside a mount in a dead copy: it says what stays" "$err" \
	    'a file system is mounted at .*/m: left in place'
	like "and fails, as something was left" "$out" '^gc: 125'
	like "gc --dry-run said the mount point would stay" "$out" \
	    '^dry: forge: a file system is mounted at .*/m: forge gc would leave it in place'
	unlike "and would not say the copy goes" "$out" '^dry: would remove .*/forge-[0-9a-f]+'
	like "with gc's exit status" "$out" '^gc --dry-run: 125'
	is "the victim is still whole" "$(state_of "$T/victim")" \
	    "$victim_before"
	like "once unmounted, gc removes the rest" "$out" 'gc again: 0'
	is "and nothing is left" "$(leftovers "$T/r")" ""

	# A mount point's mode is not changed either.
	chmod 755 "$T/victim"
	in_ns '${FORGE_WRAPPER} "$FORGE" verify --isolated -- sh -c \
	    "mkdir m && mount --bind \"\$0\" m" "$victim"'
	is "a mount point's mode is left as it was" \
	    "$(stat -c %a "$T/victim")" 755
	forge gc >/dev/null 2>&1

	# A file system mounted over TMPDIR hides the copy: it is not taken
	# for gone, and its record stays for gc.
	in_ns '${FORGE_WRAPPER} "$FORGE" verify --isolated -- sh -c \
	    "mount -t tmpfs hide \"\$0\"" "$TMPDIR"'
	is "a mount over TMPDIR: the run passes" "$rc" 0
	like "the copy is named as out of reach" "$err" \
	    'forge-[0-9a-f]+ is out of reach: something was mounted over its directory'
	like "its record is kept" "$(ls "$common/forge/copies")" '^[0-9a-f]{16}$'
	run_forge gc
	is "once the mount is gone, gc removes it" "$rc" 0
	is "and nothing is left" "$(leftovers "$T/r")" ""
fi

# A symlink in the copy to the outside is removed, never followed.
run_forge verify --isolated -- sh -c 'ln -s "$0" out && ln -s "$0/.git" g' \
    "$T/victim"
is "links out of the copy: the run passes" "$rc" 0
is "and what they point to is untouched" "$(state_of "$T/victim")" \
    "$victim_before"
is "nothing is left" "$(leftovers "$T/r")" ""

# The user's own linked worktree, with a staged change, whose directory
# is away for a while (an unmounted disk, a renamed folder).
git -C "$T/r" worktree add -q "$T/mine" -b mine
printf 'staged in mine\n' >"$T/mine/hello.txt"
git -C "$T/mine" add hello.txt
mine_index=$(cksum <"$common/worktrees/mine/index")
mv "$T/mine" "$T/mine.away"

# A dead run's copy for the next run to reclaim.
FORGE_TEST_STALL=checkout start_forge "$T/stall.err" verify --isolated -- true
wait_for 30 grep -q "test stall: checkout" "$T/stall.err"
kill -KILL "$forge_pid"
wait "$forge_pid" 2>/dev/null
run_forge verify --isolated -- true
like "a reclaiming run removes the dead run's copy" "$err" 'removed .*forge-'
run_forge gc
is "forge gc succeeds" "$rc" 0
ok "the user's worktree keeps its registration" test -d "$common/worktrees/mine"
is "and its index, with the staged change" \
    "$(cksum <"$common/worktrees/mine/index")" "$mine_index"
mv "$T/mine.away" "$T/mine"
is "back in place, it still has its staged change" \
    "$(git -C "$T/mine" diff --cached --name-only)" "hello.txt"
git -C "$T/r" worktree remove --force "$T/mine"
is "nothing of forge's is left" "$(leftovers "$T/r")" ""

# A registration of forge's own whose copy went some other way (its
# record too) is removed by gc, alone; the user's locked one is not.
# (A file of its own: the last run's stall message must not be read as
# this one's.)
FORGE_TEST_STALL=checkout start_forge "$T/stall2.err" verify --isolated -- true
wait_for 30 grep -q "test stall: checkout" "$T/stall2.err"
kill -KILL "$forge_pid"
wait "$forge_pid" 2>/dev/null
rm -rf "$TMPDIR"/forge-* "$common"/forge/copies/*
git -C "$T/r" worktree add -q "$T/theirs" -b theirs
git -C "$T/r" worktree lock --reason "on a removable disk" "$T/theirs"
mv "$T/theirs" "$T/theirs.away"
run_forge gc
is "gc: forge's orphaned registration goes" "$rc" 0
like "and gc says so" "$out" '^removed the registration .*\(forge run [0-9a-f]{16}\)'
is "only that one" "$(ls "$common/worktrees")" "theirs"
mv "$T/theirs.away" "$T/theirs"
git -C "$T/r" worktree unlock "$T/theirs"
git -C "$T/r" worktree remove --force "$T/theirs"

# reg_of DIR: the worktree registration whose copy is below DIR, if any.
reg_of() {
	for _r in "$common"/worktrees/*; do
		case $(cat "$_r/gitdir" 2>/dev/null) in
		"$1"/*) echo "${_r##*/}" ;;
		esac
	done
}

# A kept copy whose record went (removed by hand): gc leaves its
# registration while the copy is there, and removes it with the copy.
run_forge verify --isolated --keep -- true
kept=$(ls -d "$TMPDIR"/forge-*)
rm "$common/forge/copies/${kept##*/forge-}"
run_forge gc
is "a kept copy without its record: gc succeeds" "$rc" 0
ok "and leaves its registration while the copy is there" \
    test -n "$(reg_of "$kept")"
rm -rf "$kept"
run_forge gc
like "once the copy is gone, gc removes the registration" "$out" \
    '^removed the registration'
is "and nothing is left" "$(leftovers "$T/r")" ""

# A kept copy moved away, its record still there: the record says what
# to do, and it keeps the registration of a kept copy.
run_forge verify --isolated --keep -- true
kept=$(ls -d "$TMPDIR"/forge-*)
mv "$kept" "$T/kept.away"
run_forge gc
ok "a kept copy moved away keeps its registration" \
    test -n "$(reg_of "$kept")"
mv "$T/kept.away" "$kept"
run_forge gc --kept
is "back, gc --kept removes it" "$rc" 0
is "and nothing is left" "$(leftovers "$T/r")" ""

# A record, written by hand, that names another run's copy (its mark
# says which): gc removes nothing of that copy.
run_forge verify --isolated --keep -- true
kept=$(ls -d "$TMPDIR"/forge-*)
printf '{"run":"0123456789abcdef","pid":999999999,"start":1,"boot":"",'\
'"top":"%s","created":"2026-01-01T00:00:00Z"}\n' "$kept" \
    >"$common/forge/copies/0123456789abcdef"
run_forge gc
ok "a record naming another run's copy: that copy is whole" \
    test -f "$kept/r/hello.txt"
ok "and registered" test -n "$(reg_of "$kept")"
rm -f "$common/forge/copies/0123456789abcdef"
run_forge gc --kept
is "gc --kept removes it" "$rc" 0
is "and nothing is left" "$(leftovers "$T/r")" ""

# A dead run's record naming a directory of another user's, which holds
# the run's mark all the same: not a copy of forge's, whatever it holds.
# Root alone can give it to another (nobody, 65534); once it is root's,
# the very same directory is the run's, and goes.
run=fedcba9876543210
top="$TMPDIR/forge-$run"
printf '{"run":"%s","pid":999999999,"start":1,"boot":"","top":"%s",'\
'"created":"2026-01-01T00:00:00Z"}\n' "$run" "$top" \
    >"$common/forge/copies/$run"
mkdir -m 700 "$top" "$top/.forge" "$top/r"
printf '%s\n' "$run" >"$top/.forge/run"
printf 'theirs\n' >"$top/r/theirs.txt"
if [ "$(id -u)" -ne 0 ]; then
	for d in "another user's directory named by a dead run: gc refuses it" \
	    "saying it is not forge's" "all it holds stays" \
	    "the user's, but open to others: gc refuses it too" \
	    "all it holds stays there too" \
	    "once the user's own, it goes"; do
		skip "$d" "giving a directory to another user needs root"
	done
elif ! chown -R 65534:65534 "$top"; then
	skip "another user's directory named by a dead run" "chown failed"
else
	run_forge gc
	is "another user's directory named by a dead run: gc refuses it" \
	    "$rc" 125
	like "saying it is not forge's" "$err" \
	    "refusing to remove $top: not a forge copy"
	ok "all it holds stays" test -f "$top/r/theirs.txt" -a \
	    -f "$top/.forge/run"
	chown -R 0:0 "$top"
	# Nor one others may write in: no run makes its directory so.
	chmod 770 "$top"
	run_forge gc
	is "the user's, but open to others: gc refuses it too" "$rc" 125
	ok "all it holds stays there too" test -f "$top/r/theirs.txt"
	chmod 700 "$top"
	run_forge gc
	is "once the user's own, it goes" "$rc:$(ls -A "$TMPDIR")" 0:
fi
rm -rf "$top" "$common/forge/copies/$run"
is "and nothing is left" "$(leftovers "$T/r")" ""

done_testing
