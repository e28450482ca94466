#!/bin/sh
# Every system call can fail, a git's too: forge verify under strace -f,
# the same call failing at the same place in each process of the run --
# forge, every git it starts, the command -- under each mode.  A git
# that fails inside forge's work makes an ERROR, never a PASS of another
# tree (tests/faults-lib.sh says what each run must show).  Short: the
# calls that move data and processes, at one place per mode;
# scripts/faults runs every call at length.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/faults-lib.sh"

why=$(fault_skip_reason)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
fault_setup
calls='^(openat|read|write|clone|vfork|pipe2|wait4|rename|unlinkat)$'
FAULT_ONLY=${FAULT_ONLY:-$calls}
period=$(echo $FAULT_ALL_MODES | wc -w)
phase=0
for mode in $FAULT_ALL_MODES; do
	fault_plan "$mode" || continue
	fault_sweep "$mode" all 1 0 "$phase" "$period"
	phase=$((phase + 1))
done
echo "# $FAULT_RUNS injected runs, $FAULT_REACHED reached the call," \
    "$FAULT_FAILED failed"
done_testing
