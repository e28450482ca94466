#!/bin/sh
# The property: whatever the working state, and whatever the user's git
# settings, the copy forge verifies is that working state.  Each case is
# a random repository in a random working state (tests/fidelity-gen.sh),
# drawn from its own seed; forge verify --isolated must pass with its
# proof, the copy's manifest must be the source's, the source must be as
# it was and nothing may be left behind.
#
#	FIDELITY_CASES	how many cases (default 30: well under a minute)
#	FIDELITY_SEED	the seed of the first case (default 1); case i has
#			seed FIDELITY_SEED + i
#	FIDELITY_KNOWN_BUGS=1	also set core.autocrlf after the checkout (see forge(1))
#	FIDELITY_KEEP=DIR	keep each failing case's repository in DIR
#
# scripts/fuzz-fidelity runs more cases; `scripts/fuzz-fidelity 1 SEED`
# replays one.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"
. "$top_srcdir/tests/fidelity-gen.sh"

cases=${FIDELITY_CASES:-30}
seed=${FIDELITY_SEED:-1}
case $cases$seed in
*[!0-9]*)
	echo "Bail out! FIDELITY_CASES and FIDELITY_SEED must be numbers"
	exit 1
	;;
esac
cp "$HOME/.gitconfig" "$T/gitconfig"

# on_disk COMMAND...: run COMMAND with any fsmonitor hook turned off for
# git: the truth is what is on disk, whatever a hook says.
on_disk() {
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor \
	    GIT_CONFIG_VALUE_0=false
	export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
	"$@"
	unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
}

# check_case SEED: the property, for the repository in the current
# directory; one TAP line.
check_case() {
	_wt=$(pwd -P)
	# shellcheck disable=SC2086 # plain names, split on purpose
	on_disk source_manifest "$_wt" $GEN_NESTED >"$T/src.m"
	# shellcheck disable=SC2086
	on_disk source_state "$_wt" $GEN_NESTED >"$T/state.before"
	copy_manifest
	[ -f "$T/copy.m" ] || : >"$T/copy.m"
	_why=
	if [ "$rc" -ne 0 ] || ! printf '%s\n' "$err" | tail -n 1 |
	    grep -Eq 'Verdict: PASS \(isolated(, partial)?, tree [0-9a-f]{12}, '; then
		_why="$_why forge-failed"
	fi
	cmp -s "$T/copy.m" "$T/src.m" || _why="$_why copy-differs"
	# shellcheck disable=SC2086
	on_disk source_state "$_wt" $GEN_NESTED >"$T/state.after"
	cmp -s "$T/state.before" "$T/state.after" ||
	    _why="$_why source-changed"
	# shellcheck disable=SC2086
	[ -z "$(all_leftovers "$_wt" $GEN_NESTED)" ] ||
	    _why="$_why left-behind"
	_desc="seed $1: the copy is the working state"
	if [ -z "$_why" ]; then
		pass "$_desc"
		return
	fi
	_replay="scripts/fuzz-fidelity 1 $1"
	[ -z "${FIDELITY_KNOWN_BUGS:-}" ] ||
	    _replay="FIDELITY_KNOWN_BUGS=1 $_replay"
	fail "$_desc" "failed:$_why (replay: $_replay)" \
	    "exit status $rc, stderr:" "$err" \
	    "manifest diff (- source, + copy):" \
	    "$(diff -u "$T/src.m" "$T/copy.m" | sed '1,2d' | head -n 40)" \
	    "state diff (- before, + after):" \
	    "$(diff -u "$T/state.before" "$T/state.after" | sed '1,2d' |
		head -n 20)" \
	    "what was done:" "$(cat "$GEN_LOG")"
	if [ -n "${FIDELITY_KEEP:-}" ]; then
		mkdir -p "$FIDELITY_KEEP" &&
		    cp -a "$_wt" "$FIDELITY_KEEP/seed-$1" &&
		    cp "$GEN_LOG" "$FIDELITY_KEEP/seed-$1.log"
	fi
}

i=0
while [ $i -lt "$cases" ]; do
	s=$((seed + i))
	i=$((i + 1))
	cd "$T" || exit 99
	cp "$T/gitconfig" "$HOME/.gitconfig"
	chmod -R u+rwx "$T/case" 2>/dev/null
	rm -rf "$T/case" "$T/case.log" "$T/case.tools"
	if ! gen_case "$T/case" "$s"; then
		fail "seed $s: the repository could be made" \
		    "$(cat "$T/case.log" 2>/dev/null)"
		continue
	fi
	check_case "$s"
done

done_testing
