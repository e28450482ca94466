#!/bin/sh
# The property, for reused copies: one repository walked through many
# random working states (tests/fidelity-gen.sh's edits, and commits,
# resets, checkouts of other commits, stashes), each verified with
# --reuse and then with --incremental, each run's command leaving junk
# behind in its copy (untracked and ignored files, a tampered tracked
# file, a flagged index entry).  After every run: forge passed with its
# proof, and the copy held exactly the working state -- for
# --incremental, plus only the copy's own ignored files.
#
#	REUSE_STEPS	how many states (default 12)
#	REUSE_SEED	the generator's seed (default 1)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"
. "$top_srcdir/tests/fidelity-gen.sh"

steps=${REUSE_STEPS:-12}
seed=${REUSE_SEED:-1}
case $steps$seed in
*[!0-9]*)
	echo "Bail out! REUSE_STEPS and REUSE_SEED must be numbers"
	exit 1
	;;
esac
# Nested repositories are never reused (a fresh copy each time, which
# t-property.sh covers): left out here, so every run reuses.
GEN_NO_NESTED=yes

gen_case "$T/r" "$seed" >/dev/null 2>&1 || { echo "Bail out! gen_case"; exit 1; }
wt=$(pwd -P)
git config forge.breakerThreshold 0
# The copy's own junk goes where every state ignores it.
exclude=$(git rev-parse --git-path info/exclude)
case $exclude in /*) ;; *) exclude=$wt/$exclude ;; esac
printf 'zz-own/\n' >>"$exclude"

# history: something other than an edit that moves HEAD or the state.
history() {
	gen_rand 6
	case $R in
	0) git add -A >/dev/null 2>&1 &&
	    git commit -qm "step $1" --no-verify >/dev/null 2>&1 ;;
	1) git reset -q --hard HEAD~1 >/dev/null 2>&1 ;;
	2) git checkout -q --detach HEAD~1 >/dev/null 2>&1 ;;
	3) git stash -q -u >/dev/null 2>&1 ;;
	4) git stash pop -q >/dev/null 2>&1 ;;
	5) git checkout -q -f main >/dev/null 2>&1 ||
	    git checkout -q -f master >/dev/null 2>&1 ;;
	esac
	true
}

# verify_as MODE STEP: one run, its checks, of the copy the run had (an
# audit's fresh copy writes no manifest).
verify_as() {
	_mode=$1 _step=$2
	source_manifest "$wt" >"$T/src.m"
	state_of "$wt" >"$T/before"
	run_forge verify "--$_mode" -- sh -c "$(unaudited '"$1" . >"$2"')"'
	    mkdir -p zz-own && echo "$3" >"zz-own/run-$3"
	    echo junk >"zz-untracked-$3"
	    printf tampered >>.gitignore
	    git update-index --assume-unchanged .gitignore 2>/dev/null
	    true' sh "$TREELIST" "$T/copy.m" "$_step"
	_why=
	printf '%s\n' "$err" | tail -n 1 |
	    grep -Eq "Verdict: PASS \(isolated, (fresh|reused|incremental), (audited, )?tree [0-9a-f]{12}" ||
	    _why="$_why forge-failed"
	grep -v '^zz-own/' "$T/copy.m" >"$T/copy-src.m"
	cmp -s "$T/copy-src.m" "$T/src.m" || _why="$_why copy-differs"
	state_of "$wt" >"$T/after"
	cmp -s "$T/before" "$T/after" || _why="$_why source-changed"
	_own=$(grep -c '^zz-own/' "$T/copy.m")
	if [ "$_mode" = reuse ] && [ "$_own" -ne 0 ]; then
		_why="$_why ignored-files-kept"
	fi
	if [ "$_mode" = incremental ] && [ "$_step" -gt 1 ] &&
	    ! grep -q "^zz-own/run-$((_step - 1))	" "$T/copy.m"; then
		_why="$_why own-ignored-files-lost"
	fi
	if [ "$_step" -gt 1 ] && { ! printf '%s\n' "$err" |
	    grep -q 'reused .*copy, brought up to date' ||
	    printf '%s\n' "$err" | grep -q 'building a fresh one'; }; then
		_why="$_why not-reused"
	fi
	if [ -z "$_why" ]; then
		pass "step $_step, --$_mode: the copy is the working state"
	else
		fail "step $_step, --$_mode: the copy is the working state" \
		    "failed:$_why (seed $seed)" "stderr:" "$err" \
		    "manifest diff (- source, + copy):" \
		    "$(diff -u "$T/src.m" "$T/copy-src.m" | sed '1,2d' |
			head -n 30)" "what was done:" "$(cat "$GEN_LOG")"
	fi
}

i=1
while [ "$i" -le "$steps" ]; do
	GEN_COMMITS=yes
	gen_rand 4
	_k=$((R + 1))
	while [ "$_k" -gt 0 ]; do
		gen_op >/dev/null 2>&1
		_k=$((_k - 1))
	done
	gen_rand 2
	[ "$R" -eq 0 ] && history "$i"
	GEN_COMMITS=
	# The generator may have emptied info/exclude: the copy's own junk
	# is to be ignored in every state still.
	grep -qx 'zz-own/' "$exclude" || printf 'zz-own/\n' >>"$exclude"
	echo "--- step $i" >>"$GEN_LOG"
	verify_as reuse "$i"
	verify_as incremental "$i"
	i=$((i + 1))
done

forge gc --all >/dev/null 2>&1
is "gc --all leaves nothing behind" "$(leftovers "$wt")" ""
done_testing
