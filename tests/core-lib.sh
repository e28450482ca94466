# Helpers shared by the shell tests of forge verify's core behaviour;
# sourced after lib.sh, never run:
#
#	. "$TESTLIB"
#	. "${TESTLIB%/*}/core-lib.sh"

# These tests fail on purpose, many times in a row: the circuit breaker
# (tested elsewhere) would stop them.
git config --global forge.breakerThreshold 0

# The real git, found before any test puts a wrapper in front of it.
REAL_GIT=${REAL_GIT:-$(command -v git)} || exit 99

# now_ms: milliseconds on a clock good for measuring short intervals.
now_ms() {
	_s=$(date +%s%N)
	echo $((_s / 1000000))
}

# wait_until SECONDS COMMAND...: poll (every 20ms) until the command
# succeeds; false if it did not within SECONDS.
wait_until() {
	_limit=$(($(now_ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$_limit" ] || return 1
		sleep 0.02
	done
}

# has_line FILE PATTERN: FILE exists and has a line matching PATTERN.
has_line() {
	[ -f "$1" ] && grep -Eq -- "$2" "$1"
}

# exited PID: the process is gone or a zombie waiting to be reaped.
exited() {
	_state=$(sed -n 's/^.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -z "$_state" ] || [ "$_state" = Z ]
}

# The helper that tells how a command ended (see waitstatus.c).
WAITSTATUS=${TREELIST%/*}/waitstatus

# start_bg COMMAND...: start a command in the background, its output in
# $T/bg.out and $T/bg.err, with SIGINT, SIGQUIT and SIGHUP at their
# defaults: a background job of a non-interactive shell starts with the
# first two ignored, a suite run under nohup(1) with the third, and
# forge, like a shell, keeps ignored what it finds ignored.  Sets
# $pid to the command's pid once it has started.
start_bg() {
	rm -f "$T/bg.pid" "$T/bg.how"
	"$WAITSTATUS" "$T/bg.pid" "$T/bg.how" env --default-signal=INT,QUIT,HUP \
	    "$@" >"$T/bg.out" 2>"$T/bg.err" </dev/null &
	_bg=$!
	wait_until 30 test -s "$T/bg.pid" || return 1
	pid=$(cat "$T/bg.pid")
}

# finish_bg [SECONDS]: wait for the command of start_bg and set $how to
# "signal N" or "exit N"; if it still runs after SECONDS (30), kill it
# and set $how to "timeout".
finish_bg() {
	if wait_until "${1:-30}" gone "$_bg"; then
		wait "$_bg"
		how=$(cat "$T/bg.how" 2>/dev/null) || how=unknown
	else
		kill -KILL "$pid" 2>/dev/null
		wait "$_bg"
		how=timeout
	fi
}

# signum NAME: the number of a signal.
signum() {
	case $1 in
	HUP) echo 1 ;;
	INT) echo 2 ;;
	QUIT) echo 3 ;;
	KILL) echo 9 ;;
	TERM) echo 15 ;;
	*) kill -l "$1" ;;
	esac
}

# gone PID: no such process (a zombie counts as gone).
gone() {
	! kill -0 "$1" 2>/dev/null || exited "$1"
}

# A git in front of the real one, to fail or stall a chosen subcommand.
# It finds the subcommand after git's own options and, when it is
# $FAKEGIT_ON ("apply", "worktree-add", ...), acts on $FAKEGIT_DO:
#
#	fail		print a complaint and exit 1 without running git
#	noop		exit 0 without running git, reading its input
#	stall		write its pid to $FAKEGIT_MARK and sleep, without
#			running git
#	stall-after	run git, then write its pid and sleep
#
# Anything else goes to the real git untouched.  Put it first in PATH
# with use_fake_git.
make_fake_git() {
	mkdir -p "$T/fakebin"
	{
		echo '#!/bin/sh'
		printf 'real=%s\n' "'$REAL_GIT'"
		cat <<'EOF'
sub=
for a; do
	if [ -n "${skip:-}" ]; then skip=; continue; fi
	case $a in
	-c|-C) skip=1 ;;
	-*) ;;
	*)
		if [ -z "$sub" ]; then
			sub=$a
			[ "$sub" = worktree ] || break
		else
			sub=$sub-$a
			break
		fi ;;
	esac
done
if [ -n "${FAKEGIT_ON:-}" ] && [ "$sub" = "$FAKEGIT_ON" ]; then
	case ${FAKEGIT_DO:-} in
	fail)
		echo "fake git: $sub refused" >&2
		exit 1 ;;
	noop)
		cat >/dev/null
		exit 0 ;;
	stall)
		echo $$ >"$FAKEGIT_MARK.tmp" && mv "$FAKEGIT_MARK.tmp" "$FAKEGIT_MARK"
		exec sleep 60 ;;
	stall-after)
		"$real" "$@" || exit
		echo $$ >"$FAKEGIT_MARK.tmp" && mv "$FAKEGIT_MARK.tmp" "$FAKEGIT_MARK"
		exec sleep 60 ;;
	esac
fi
exec "$real" "$@"
EOF
	} >"$T/fakebin/git"
	chmod +x "$T/fakebin/git"
}

use_fake_git() {
	[ -x "$T/fakebin/git" ] || make_fake_git
	PATH="$T/fakebin:$PATH"
	export PATH
}

# A script for sh -c that, run anywhere in the copy, writes the manifest
# of the copy's whole tree into the file named by its first argument:
#	run_forge verify --isolated -- sh -c "$MANIFEST_SH" sh "$T/copy.manifest"
MANIFEST_SH='"$TREELIST" "$(git rev-parse --show-toplevel)" >"$1"'

# state_at DIR: state_of DIR from any current directory (state_of reads
# the git paths relative to the current one).
state_at() {
	(cd "$1" && state_of "$1")
}
