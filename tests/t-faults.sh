#!/bin/sh
# Every system call can fail: forge verify with one call failing, aimed
# at the calls whose failure once left something behind or ended in the
# wrong status (tests/faults-lib.sh says how, and what each run must
# show).  First, a clean run of each mode, traced as the injected runs
# are: it must pass on a copy that is the working state.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/faults-lib.sh"

why=$(fault_skip_reason)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
fault_setup
for mode in $FAULT_ALL_MODES; do
	fault_plan "$mode" || continue
	case $mode in
	isolated|staged|contain)
		# A registration whose gitdir would not go keeps its lock
		# reason, which proves it forge's: gc removes the rest.
		fault_aim "$mode" unlinkat EBUSY \
		    "$(fault_at "$mode" unlinkat '"gitdir"')" '"gitdir"' ;;
	esac
	[ "$mode" = isolated ] || continue
	# A verdict whose record fails to reach the disk is no record: not
	# a PASS left in the timeline beside the ERROR forge exits with.
	fault_path "$mode" fsync EIO "$TL"
	# The first gits that cannot be started: forge's own failure
	# (125), whatever git it was to ask.
	for what in version rev-parse config; do
		fault_aim "$mode" clone EAGAIN \
		    "$(fault_spawn_of "$mode" "\"$what\"")" \
		    "cannot run git $what"
	done
done
done_testing
