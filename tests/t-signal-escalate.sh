#!/bin/sh
# A command that will not stop: one that ignores SIGTERM is killed with
# SIGKILL after forge.killAfter; a second signal to forge kills it at
# once; what the command leaves running in its process group is stopped
# too.  forge cleans up every time.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

ulimit -c 0

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
before=$(state_of "$T/r")

# elapsed_ms: since the last mark_time.
mark_time() {
	_t0=$(now_ms)
}
elapsed_ms() {
	echo $(($(now_ms) - _t0))
}

# 1. A command that ignores SIGTERM: after the grace period, SIGKILL.
# It waits on a FIFO nobody writes to, so that it has no children, whose
# orphans could take their own time to be reaped.
mkfifo "$T/never"
git config forge.killAfter 1s
for mode in --isolated --in-place; do
	rm -f "$T/ran"
	start_bg ${FORGE_WRAPPER:-} "$FORGE" verify $mode -- sh -c '
		trap "" TERM
		echo $$ >"$1.tmp" && mv "$1.tmp" "$1"
		read x <"$2"' sh "$T/ran" "$T/never"
	ok "$mode, ignoring SIGTERM: the command started" \
	    wait_until 30 test -s "$T/ran"
	mark_time
	kill -TERM "$pid"
	finish_bg
	t=$(elapsed_ms)
	is "$mode, ignoring SIGTERM: forge dies of SIGTERM" "$how" "signal 15"
	ok "$mode, ignoring SIGTERM: it waited the grace period (${t}ms)" \
	    test "$t" -ge 900
	ok "$mode, ignoring SIGTERM: forge.killAfter=1s, not the default 5s (${t}ms)" \
	    test "$t" -lt 4500
	ok "$mode, ignoring SIGTERM: the command is gone" \
	    wait_until 10 gone "$(cat "$T/ran")"
	is "$mode, ignoring SIGTERM: nothing is left behind" \
	    "$(leftovers "$T/r")" ""
	is "$mode, ignoring SIGTERM: the source is untouched" \
	    "$(state_of "$T/r")" "$before"
done

# 2. A command that handles SIGTERM and goes on: a second signal to
# forge kills it at once, long before forge.killAfter.
git config forge.killAfter 60s
for second in TERM INT; do
	rm -f "$T/ran" "$T/ran.term"
	start_bg ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c '
		trap "echo term >\"$1.term\"" TERM
		echo $$ >"$1.tmp" && mv "$1.tmp" "$1"
		while :; do sleep 0.05; done' sh "$T/ran"
	ok "then SIG$second: the command started" wait_until 30 test -s "$T/ran"
	kill -TERM "$pid"
	ok "then SIG$second: SIGTERM reached the command, which goes on" \
	    wait_until 30 test -s "$T/ran.term"
	ok "then SIG$second: forge is still waiting for it" \
	    sh -c '! test -s "$1"' sh "$T/bg.how"
	mark_time
	kill -s "$second" "$pid"
	finish_bg
	t=$(elapsed_ms)
	is "then SIG$second: forge dies of the first signal" "$how" "signal 15"
	ok "then SIG$second: at once, not after forge.killAfter (${t}ms)" \
	    test "$t" -lt 20000
	ok "then SIG$second: the command is gone" \
	    wait_until 10 gone "$(cat "$T/ran")"
	is "then SIG$second: nothing is left behind" "$(leftovers "$T/r")" ""
	is "then SIG$second: the source is untouched" "$(state_of "$T/r")" \
	    "$before"
done

# 3. A command that exits, leaving a process in its group that ignores
# SIGTERM: it is stopped before the copy goes, after the grace period.
git config forge.killAfter 1s
rm -f "$T/ran"
run_forge verify --isolated -- sh -c '
	sh -c "trap \"\" TERM; echo \$\$ >\"$1.tmp\" && mv \"$1.tmp\" \"$1\";
	    exec sleep 60" &
	while ! test -s "$1"; do sleep 0.02; done' sh "$T/ran"
is "a command leaving a stray process passes" "$rc" 0
ok "the stray process is gone when forge exits" gone "$(cat "$T/ran")"
is "and nothing is left behind" "$(leftovers "$T/r")" ""
git config --unset forge.killAfter

done_testing
