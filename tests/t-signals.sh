#!/bin/sh
# SIGINT, SIGTERM, SIGHUP and SIGQUIT at each phase of an isolated run:
# while git worktree add runs, while the patch is applied, while the
# untracked files are copied, at every stall point forge offers tests,
# and while the command runs.  Each time forge dies of that same signal,
# its children are gone, and nothing is left: no worktree, no directory
# in $TMPDIR, no .git/worktrees entry, no journal entry; the source is
# untouched.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

# forge dies of SIGQUIT: no core file may land in the working tree.
ulimit -c 0

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'added\n' >added.txt
git add added.txt
printf 'untracked\n' >notes.txt
printf 'object\n' >main.o
before=$(state_of "$T/r")
use_fake_git
export FAKEGIT_ON FAKEGIT_DO FAKEGIT_MARK
FAKEGIT_MARK="$T/stalled"

# The command leaves its pid in $T/ran, then sleeps.
CMD='echo $$ >"$1.tmp" && mv "$1.tmp" "$1" && exec sleep 60'

# interrupt WHAT SIGNAL READY...: start an isolated run in the
# background, wait until READY succeeds, send SIGNAL to forge, and check
# how it ended and what it left.  $victim, if set, names a file holding
# the pid of a child that must be gone afterwards.
interrupt() {
	_w=$1 _sig=$2
	shift 2
	rm -f "$T/ran" "$T/stalled"
	if ! start_bg ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- \
	    sh -c "$CMD" sh "$T/ran"; then
		fail "$_w: forge started" "$(cat "$T/bg.err")"
		return
	fi
	if ! wait_until 30 "$@"; then
		fail "$_w, SIG$_sig: the run reached the phase" \
		    "$(cat "$T/bg.err")"
		kill -KILL "$pid"
		finish_bg
		return
	fi
	kill -s "$_sig" "$pid"
	finish_bg
	is "$_w, SIG$_sig: forge dies of SIG$_sig" "$how" \
	    "signal $(signum "$_sig")"
	like "$_w, SIG$_sig: the verdict says interrupted" \
	    "$(tail -n 1 "$T/bg.err")" \
	    "^Verify: .* Verdict: INTERRUPTED \\(interrupted by signal $(signum "$_sig");"
	if [ "$_w" != "the command" ]; then
		not_ok "$_w, SIG$_sig: the command did not run" test -e "$T/ran"
	fi
	if [ -n "${victim:-}" ]; then
		ok "$_w, SIG$_sig: the child it was waiting for is gone" \
		    wait_until 10 gone "$(cat "$victim")"
	fi
	is "$_w, SIG$_sig: nothing is left behind" "$(leftovers "$T/r")" ""
	is "$_w, SIG$_sig: the source is untouched" "$(state_of "$T/r")" \
	    "$before"
}

stalled() {
	test -s "$T/stalled"
}

announced() {
	has_line "$T/bg.err" "^forge: test stall: $1\$"
}

for sig in INT TERM HUP QUIT; do
	# Inside git worktree add, before it has done anything.
	FAKEGIT_ON=worktree-add FAKEGIT_DO=stall victim="$T/stalled"
	interrupt "git worktree add (before)" "$sig" stalled

	# Inside git worktree add, after it has registered the worktree and
	# checked it out.
	FAKEGIT_DO=stall-after
	interrupt "git worktree add (after)" "$sig" stalled

	# Inside git apply, with the patch waiting in its pipe.
	FAKEGIT_ON=apply FAKEGIT_DO=stall
	interrupt "git apply" "$sig" stalled
	FAKEGIT_ON= FAKEGIT_DO= victim=

	# At each stall point of forge itself.
	for phase in journal checkout apply untracked proof; do
		FORGE_TEST_STALL=$phase
		export FORGE_TEST_STALL
		interrupt "stall at $phase" "$sig" announced "$phase"
		unset FORGE_TEST_STALL
	done

	# While the command runs.
	victim="$T/ran"
	interrupt "the command" "$sig" test -s "$T/ran"
	victim=
done

# In place, a signal reaches the command too, and forge dies of it.
for sig in INT TERM HUP QUIT; do
	rm -f "$T/ran"
	start_bg ${FORGE_WRAPPER:-} "$FORGE" verify --in-place -- \
	    sh -c "$CMD" sh "$T/ran"
	if wait_until 30 test -s "$T/ran"; then
		kill -s "$sig" "$pid"
		finish_bg
		is "in place, SIG$sig: forge dies of SIG$sig" "$how" \
		    "signal $(signum "$sig")"
		ok "in place, SIG$sig: the command is gone" \
		    wait_until 10 gone "$(cat "$T/ran")"
	else
		fail "in place, SIG$sig: the command started" \
		    "$(cat "$T/bg.err")"
		kill -KILL "$pid"
		finish_bg
	fi
done
is "in place: nothing is left behind" "$(leftovers "$T/r")" ""
is "in place: the source is untouched" "$(state_of "$T/r")" "$before"

done_testing
