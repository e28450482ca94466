#!/bin/sh
# forge ... | head: a step killed by SIGPIPE because forge's own output
# has no reader left was stopped from outside, like a ^C: INTERRUPTED,
# no FAIL, and the breaker does not count it.  A step that dies of
# SIGPIPE while forge's output is read is a FAIL like any other.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# Where SIGPIPE is ignored, it is for every child too: a writer gets
# EPIPE, and nothing dies of the signal.
( yes 2>/dev/null; echo $? >"$T/yes.rc" ) | head -n 1 >/dev/null
if [ "$(cat "$T/yes.rc")" != 141 ]; then
	skip "a step killed by SIGPIPE" "SIGPIPE is ignored here"
	done_testing
	exit
fi

new_repo "$T/r"
git config forge.breakerThreshold 3
tl="$T/r/.git/forge/timeline.jsonl"
last() {
	grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" verdict status
}
streak() {
	forge status | sed -n 's/^breaker: closed (streak \([0-9]*\) of 3)$/\1/p'
}

# piped WHAT [forge args]: forge's stdout into head -n 1, which exits
# after a line; forge's exit status in $rc, its stderr in $err.
piped() {
	_what=$1
	shift
	{ forge "$@" 2>"$T/err"; echo $? >"$T/rc"; } | head -n 1 >/dev/null
	rc=$(cat "$T/rc")
	err=$(cat "$T/err")
}

for mode in --isolated --in-place; do
	piped "a command's" verify $mode -- yes
	is "forge $mode -- yes | head: INTERRUPTED" "$(last)" "INTERRUPTED	141"
	is "$mode: forge dies of SIGPIPE, as a pipeline's writer does" "$rc" 141
	like "$mode: the verdict line says so" "$err" \
	    'Verdict: INTERRUPTED \(interrupted by signal 13;'
	like "$mode: the timeline says why" \
	    "$(tail -n 1 "$tl" | "$JSONPICK" failed)" \
	    "^yes \\(its output's reader is gone\\)\$"
	is "$mode: the breaker is not fed" "$(streak)" 0
done
is "nothing is left behind" "$(leftovers "$T/r")" ""

# A shell step says its command's SIGPIPE as 141.
git config forge.verify 'yes; exit $?'
piped "a shell step's" verify --isolated
is "a shell step whose command died of it (141): INTERRUPTED" "$(last)" \
    "INTERRUPTED	141"
git config --unset forge.verify

# stderr is forge's output too.
{ forge verify --isolated -- sh -c 'yes >&2' 2>&1 >/dev/null; echo $? \
    >"$T/rc"; } | head -n 1 >/dev/null
is "through stderr: INTERRUPTED" "$(last)" "INTERRUPTED	141"
is "the breaker is still not fed" "$(streak)" 0

# While forge's output is read, SIGPIPE is the step's own failure: one of
# its own pipes, or a signal it sent itself.
run_forge verify --isolated -- sh -c 'kill -PIPE $$'
is "killed by SIGPIPE, forge's output to a file: FAIL" "$(last)" "FAIL	141"
is "the breaker counts it" "$(streak)" 1
{ forge verify --isolated -- sh -c 'echo one; kill -PIPE $$' 2>&1
    echo $? >"$T/rc"; } | cat >/dev/null
is "forge's output into a pipe that is read: FAIL" "$(last)" "FAIL	141"
is "forge exits with its status" "$(cat "$T/rc")" 141
is "the breaker counts it" "$(streak)" 2
run_forge verify --isolated -- sh -c 'exit 141'
is "a shell's 141, output read: FAIL" "$(last)" "FAIL	141"
like "the breaker counts it, and opens" "$(forge status)" \
    '^breaker: OPEN .*after 3 failed'


done_testing
