#!/bin/sh
# With a terminal, the command gets it: a tty on its standard streams, the
# terminal's foreground while it runs (so ^C and ^\ typed there reach it),
# and the foreground goes back to the caller afterwards.  ^C stops the
# command, and forge then dies of SIGINT, leaving nothing.  The terminal
# is a pseudo-terminal made by script(1) from util-linux.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

ulimit -c 0

need_pty "a terminal"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
before=$(state_of "$T/r")

# A check for sh -c: say whether this process group holds the terminal's
# foreground (fields 5 and 8 of /proc/PID/stat: pgrp and tpgid).
FG='set -- $(sed "s/^.*) //" /proc/$$/stat)
if [ "$3" = "$6" ]; then echo "foreground: yes"; else echo "foreground: no"; fi'

# on_terminal SCRIPT [KEYS READY]: run the shell script SCRIPT (a file)
# on a new terminal, from the repository, with $T, $FORGE, $WAITSTATUS and
# $FG set; if KEYS is given, type it once READY (a file) is not empty.
# The session's output (the terminal's) goes to $T/tty.out.
on_terminal() {
	{
		echo 'cd "$T/r" || exit 99'
		cat "$1"
	} >"$T/session.sh"
	rm -f "$T/ran" "$T/how" "$T/pid"
	{
		if [ $# -gt 1 ]; then
			wait_until 30 test -s "$2" && printf "$3"
		fi
		# Keep the terminal's input open until the session is done.
		wait_until 30 test -s "$T/how"
	} | T=$T WAITSTATUS=$WAITSTATUS FG=$FG timeout 60 \
	    script -qec 'sh "$T/session.sh"' /dev/null >"$T/tty.out" 2>&1
	tty_out=$(tr -d '\r' <"$T/tty.out")
	how=$(cat "$T/how" 2>/dev/null)
}

# The command sees a terminal, and holds its foreground; the caller gets
# it back.
cat >"$T/s1" <<'EOF'
"$WAITSTATUS" "$T/pid" "$T/how.1" ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c '
	test -t 0 && echo "stdin: tty"
	test -t 1 && echo "stdout: tty"
	test -t 2 && echo "stderr: tty"
	eval "$FG"'
sh -c "$FG" | sed 's/^/after /'
mv "$T/how.1" "$T/how"
EOF
on_terminal "$T/s1"
is "on a terminal, forge passes" "$how" "exit 0"
like "the command's stdin is the terminal" "$tty_out" '^stdin: tty$'
like "its stdout is the terminal" "$tty_out" '^stdout: tty$'
like "its stderr is the terminal" "$tty_out" '^stderr: tty$'
like "it holds the terminal's foreground" "$tty_out" '^foreground: yes$'
like "the caller has the foreground back afterwards" "$tty_out" \
    '^after foreground: yes$'
is "nothing is left behind" "$(leftovers "$T/r")" ""

# ^C typed at the terminal stops the command, and forge dies of SIGINT.
# ^\ likewise, with SIGQUIT.
for key in INT QUIT; do
	case $key in
	INT) keys='\003' ;;
	QUIT) keys='\034' ;;
	esac
	cat >"$T/s2" <<'EOF'
"$WAITSTATUS" "$T/pid" "$T/how" env --default-signal=INT,QUIT,HUP \
    ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- \
    sh -c 'echo $$ >"$1.tmp" && mv "$1.tmp" "$1"; exec sleep 30' sh "$T/ran"
EOF
	on_terminal "$T/s2" "$T/ran" "$keys"
	is "SIG$key typed at the terminal: forge dies of SIG$key" "$how" \
	    "signal $(signum "$key")"
	like "SIG$key typed: the verdict says interrupted" "$tty_out" \
	    "Verdict: INTERRUPTED \\(interrupted by signal $(signum "$key");"
	if [ -s "$T/ran" ]; then
		ok "SIG$key typed: the command is gone" \
		    wait_until 10 gone "$(cat "$T/ran")"
	else
		fail "SIG$key typed: the command started" "$tty_out"
	fi
	is "SIG$key typed: nothing is left behind" "$(leftovers "$T/r")" ""
	is "SIG$key typed: the source is untouched" "$(state_of "$T/r")" \
	    "$before"
done

done_testing
