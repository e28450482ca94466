#!/bin/sh
# Every system call can fail: forge verify with each of forge's own
# calls failing in turn, under each mode (tests/faults-lib.sh says how,
# and what each run must show).  Short: each call at one place per mode,
# a different place in each mode.  scripts/faults runs it at length.
#
#	FAULT_MODES	the modes (default: all of them)
#	FAULT_HOW	own (default), all (strace -f), or "own all"
#	FAULT_QUOTA	places for each call in each mode (default 1)
#	FAULT_QUOTA_ALL	the same for all runs (default FAULT_QUOTA)
#	FAULT_ALL=1	each call's errnos in turn, not its first alone
#	FAULT_PERIOD	1: the same places in each mode (default: the
#			number of modes, each mode with places of its own)
#	FAULT_ONE="MODE HOW CALL ERRNO N"	that one run, and all it said
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/faults-lib.sh"

why=$(fault_skip_reason)
if [ -n "$why" ]; then
	echo "1..0 # SKIP $why"
	exit 0
fi
fault_setup
if [ -n "${FAULT_ONE:-}" ]; then
	# shellcheck disable=SC2086 # five words, split on purpose
	set -- $FAULT_ONE
	fault_plan "$1" && fault_once "$@"
	for f in f.err f.out f.log; do
		echo "--- $f"
		cat "$T/$f"
	done | sed 's/^/# /'
	done_testing
	exit
fi
modes=${FAULT_MODES:-$FAULT_ALL_MODES}
period=${FAULT_PERIOD:-$(echo $modes | wc -w)}
phase=0
for mode in $modes; do
	fault_plan "$mode" || continue
	for how in ${FAULT_HOW:-own}; do
		runs=$FAULT_RUNS reached=$FAULT_REACHED failed=$FAULT_FAILED
		quota=${FAULT_QUOTA:-1}
		[ "$how" = own ] || quota=${FAULT_QUOTA_ALL:-$quota}
		fault_sweep "$mode" "$how" "$quota" "${FAULT_ALL:-0}" \
		    "$phase" "$period"
		echo "# $mode $how: $((FAULT_RUNS - runs)) injected runs," \
		    "$((FAULT_REACHED - reached)) reached the call," \
		    "$((FAULT_FAILED - failed)) failed"
	done
	phase=$((phase + 1))
done
echo "# in all: $FAULT_RUNS injected runs, $FAULT_REACHED reached the call," \
    "$FAULT_FAILED failed"
done_testing
