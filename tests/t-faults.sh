#!/bin/sh
# Every system call can fail: forge verify with one call failing, aimed
# at the calls whose failure once left something behind or ended in the
# wrong status (tests/faults-lib.sh says how, and what each run must
# show).
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/faults-lib.sh"

why=$(fault_skip_reason)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
fault_setup
for mode in isolated staged contain; do
	fault_plan "$mode" || continue
	# A registration whose gitdir would not go keeps its lock reason,
	# which proves it forge's: gc removes the rest.
	fault_aim "$mode" unlinkat EBUSY \
	    "$(fault_at "$mode" unlinkat '"gitdir"')" '"gitdir"'
	# One whose directory would not go once the lock reason had (the
	# first unlinkat in .git/worktrees is its rmdir): the reason is
	# written back, and gc removes it all.
	fault_path "$mode" unlinkat EBUSY "$R/.git/worktrees"
	if [ "$mode" = contain ]; then
		# The tree's path that cannot be resolved as the step's
		# mounts are planned: forge's failure, said (it was taken
		# for a place not there, and left out of the step's sight).
		for k in 1 2 3 4; do
			FAULT_PATH=$R fault_once "$mode" own readlink EIO "$k"
		done
	fi
	[ "$mode" = isolated ] || continue
	# The copy's .git file that cannot be read is said so, not taken
	# for one git did not write.
	fault_failpath "$mode" "*/forge-*/r/.git" EACCES
	unlike "$mode: not said to be missing" "$(cat "$T/f.err")" \
	    'left no .git file'
	# A verdict whose record fails to reach the disk is no record: not
	# a PASS left in the timeline beside the ERROR forge exits with.
	fault_path "$mode" fsync EIO "$TL"
	# The first gits that cannot be started: forge's own failure
	# (125), whatever git it was to ask.
	for what in version rev-parse config; do
		fault_aim "$mode" "$(fault_spawn_call "$mode")" EAGAIN \
		    "$(fault_spawn_of "$mode" "\"$what\"")" \
		    "cannot run git $what"
	done
	# HEAD that git could not be asked for is not a repository without
	# commits.
	fault_aim "$mode" "$(fault_spawn_call "$mode")" EAGAIN \
	    "$(fault_spawn_of "$mode" '"HEAD\^\{commit\}"')" \
	    'cannot run git rev-parse'
	unlike "$mode: which is not said to have no commit" \
	    "$(cat "$T/f.err")" 'no commit yet'
	# A poll of git's output that fails: said, and forge's failure.
	fault_aim "$mode" poll ENOMEM "$(fault_at "$mode" poll \
	    '^poll\(\[\{fd=[0-9]+, events=[A-Z]+\}, \{')" \
	    'poll\(\[\{fd=[0-9]+, events=[A-Z]+\}, \{'
	# Memory that cannot be had, up to the run's record, each time in
	# turn: 125 or a PASS, never another status (a random number
	# drawn from libbsd exited 1 then).
	if [ -z "$FAULT_ASAN" ]; then
		pre=$(awk '$1 == "mmap" { print $2 }' "$T/plan.$mode")
		n=$(fault_before "$mode" mmap \
		    'forge/copies/[0-9a-f]+", O_WRONLY')
		k=1
		while [ "$k" -le "$n" ]; do
			fault_once "$mode" own mmap ENOMEM $((pre + k))
			k=$((k + 1))
		done
	fi
done
# Nor is a --rev that git could not be asked about a usage error.
fault_plan rev &&
    fault_aim rev "$(fault_spawn_call rev)" EAGAIN \
    "$(fault_spawn_of rev '"main\^\{commit\}"')" \
    'cannot run git rev-parse'
unlike "rev: which is not said to be no commit" "$(cat "$T/f.err")" \
    'no such commit'
done_testing
