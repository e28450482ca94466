# Shared setup for forge's shell tests; sourced, never run.
#
# Each test runs in a fresh mktemp -d directory ($T) with HOME, TMPDIR
# and the git configuration all inside it, every GIT_* variable unset,
# LC_ALL=C and TZ=UTC, and writes nothing anywhere else.  Output is TAP.
#
#	. "$TESTLIB"
#	new_repo r
#	ok "it passes" forge verify --isolated -- true
#	...
#	done_testing

set -u

: "${FORGE:?FORGE must name the forge binary}"
: "${TREELIST:?TREELIST must name the treelist helper}"

for _v in $(env | sed -n 's/^\(GIT_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$_v"
done
unset _v FORGE_SESSION FORGE_AUDITING
export LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z'
export GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

T=$(mktemp -d "${TMPDIR:-/tmp}/forge-test.XXXXXX") || exit 99
T=$(cd "$T" && pwd -P)
export HOME="$T/home"
export TMPDIR="$T/tmp"
mkdir -p "$HOME" "$TMPDIR"
cleanup_test_dir() {
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup_test_dir EXIT

# git_at_least MAJOR MINOR: is the git under test that recent?  The suite
# runs on every git forge supports (scripts/git-matrix); what an older one
# lacks is skipped with the reason, or set up another way.
GIT_VERSION=$(git --version | sed -n 's/^git version \([0-9]*\.[0-9]*\).*/\1/p')
git_at_least() {
	_have_major=${GIT_VERSION%%.*}
	_have_minor=${GIT_VERSION#*.}
	[ "$_have_major" -gt "$1" ] ||
	    { [ "$_have_major" -eq "$1" ] && [ "$_have_minor" -ge "$2" ]; }
}

git config --global user.name "Forge Test"
git config --global user.email "test@forge.invalid"
git config --global init.defaultBranch main
git config --global advice.detachedHead false
git config --global protocol.file.allow always

# How forge runs: a wrapper (valgrind) may be put in front.
forge() {
	${FORGE_WRAPPER:-} "$FORGE" "$@"
}

# start_forge ERRFILE [forge args]: forge in the background, its stderr
# in ERRFILE, its pid in $forge_pid.  (A shell function run with & is a
# subshell, so $! would not be forge's pid; this runs forge itself.)
start_forge() {
	_errfile=$1
	shift
	# Emptied now, not when the background shell gets to it: a
	# wait_for on the file must never see what a run before left.
	: >"$_errfile"
	${FORGE_WRAPPER:-} "$FORGE" "$@" >/dev/null 2>"$_errfile" </dev/null &
	forge_pid=$!
}

_n=0
_failed=0

pass() {
	_n=$((_n + 1))
	echo "ok $_n - $1"
}

# KNOWN_BUG="what": while set, a check that fails is reported as a TAP
# TODO (an expected failure that does not fail the suite), so a bug of
# forge that is known and reported keeps its test without breaking
# `make check`; checks that pass are reported as usual.  Unset it after.
# FIDELITY_STRICT=1 in the environment makes those failures count.
KNOWN_BUG=
fail() {
	_n=$((_n + 1))
	if [ -n "$KNOWN_BUG" ] && [ -z "${FIDELITY_STRICT:-}" ]; then
		echo "not ok $_n - $1 # TODO known forge bug: $KNOWN_BUG"
	else
		_failed=$((_failed + 1))
		echo "not ok $_n - $1"
	fi
	shift
	for _line in "$@"; do
		printf '%s\n' "$_line" | sed 's/^/# /'
	done
}

skip() {
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP ${2:-}"
}

# ok DESCRIPTION COMMAND...: the command must succeed.
ok() {
	_d=$1
	shift
	if "$@" >"$T/.out" 2>&1; then
		pass "$_d"
	else
		fail "$_d" "command: $*" "$(tail -n 20 "$T/.out")"
	fi
}

# not_ok DESCRIPTION COMMAND...: the command must fail.
not_ok() {
	_d=$1
	shift
	if "$@" >"$T/.out" 2>&1; then
		fail "$_d" "command succeeded: $*" "$(tail -n 20 "$T/.out")"
	else
		pass "$_d"
	fi
}

# is DESCRIPTION GOT WANT
is() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "got:  $2" "want: $3"
	fi
}

# like DESCRIPTION TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		pass "$1"
	else
		fail "$1" "no match for /$3/ in:" "$2"
	fi
}

unlike() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		fail "$1" "unexpected match for /$3/ in:" "$2"
	else
		pass "$1"
	fi
}

# FORGE_TEST_AUDIT=1 (the audit pass of .ci/run, make check-audit): every
# forge run of the test checks its fast verdicts against a fresh copy
# (FORGE_AUDIT=1), and done_testing fails if any fresh copy said
# otherwise -- a "divergence" in any timeline under $T -- or held
# another tree than the fast path proved (an audit "other tree"): only
# a working state changed as the run went on does that.  A test that
# makes either on purpose names that repository's common dir in
# AUDIT_EXPECTED.
AUDIT_EXPECTED=
if [ -n "${FORGE_TEST_AUDIT:-}" ]; then
	export FORGE_AUDIT=1
else
	unset FORGE_AUDIT
fi

# audit_divergences: each timeline under $T with a divergence that no
# AUDIT_EXPECTED names, and its divergences.
audit_divergences() {
	find "$T" -name 'timeline.jsonl*' -path '*/forge/*' 2>/dev/null |
	while IFS= read -r _tl; do
		_common=${_tl%/forge/*}
		case " $AUDIT_EXPECTED " in
		*" $_common "*) continue ;;
		esac
		grep -e '"event":"divergence"' -e '"audit":"other tree"' "$_tl" |
		    sed "s#^#$_tl: #"
	done
}

done_testing() {
	if [ -n "${FORGE_TEST_AUDIT:-}" ]; then
		_div=$(audit_divergences)
		if [ -z "$_div" ]; then
			pass "audit: every fast verdict was a fresh copy's"
		else
			fail "audit: a fast verdict was not a fresh copy's" \
			    "$_div"
		fi
	fi
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}

# run_forge [forge args]: runs forge, keeping stdout, stderr and status
# in $out, $err and $rc.
run_forge() {
	forge "$@" >"$T/.stdout" 2>"$T/.stderr" </dev/null
	rc=$?
	out=$(cat "$T/.stdout")
	err=$(cat "$T/.stderr")
}

# init_repo DIR: git init, its first branch called main on every git
# (init.defaultBranch, which the global configuration sets, is 2.28's).
init_repo() {
	git init -q "$1" || exit 99
	git -C "$1" symbolic-ref HEAD refs/heads/main || exit 99
}

# new_repo DIR: a repository with a few committed files; cd into it.
new_repo() {
	init_repo "$1"
	cd "$1" || exit 99
	printf 'hello\n' >hello.txt
	mkdir -p src
	printf 'int main(void) { return 0; }\n' >src/main.c
	printf '#!/bin/sh\necho run\n' >run.sh
	chmod +x run.sh
	printf '*.o\nbuild/\n' >.gitignore
	git add -A && git commit -q -m initial || exit 99
}

# state_of DIR: everything a verification must leave as it was: every
# file of the working tree (ignored ones too) with modes and mtimes, the
# index, HEAD and all refs.
state_of() {
	"$TREELIST" -a -m "$1"
	echo "--- index"
	cksum <"$(git -C "$1" rev-parse --git-path index)"
	echo "--- HEAD"
	cat "$(git -C "$1" rev-parse --git-dir)/HEAD"
	echo "--- refs"
	git -C "$1" for-each-ref --format='%(refname) %(objectname)'
}

# leftovers REPO: what a run may have left behind, empty if nothing.
leftovers() {
	_gd=$(git -C "$1" rev-parse --git-common-dir)
	case $_gd in /*) ;; *) _gd="$1/$_gd" ;; esac
	ls -A "$TMPDIR"
	git -C "$1" worktree list --porcelain | grep '^worktree ' | sed 1d
	[ -d "$_gd/worktrees" ] && ls -A "$_gd/worktrees"
	[ -d "$_gd/forge/copies" ] && ls -A "$_gd/forge/copies"
	true
}

# manifest_source DIR: files and links of the working state that git
# does not ignore (what the copy must hold).
manifest_source() {
	git -C "$1" ls-files -z -c -o --exclude-standard |
	    "$TREELIST" -L "$1"
}

# wait_for SECONDS COMMAND...: poll (every 0.05s) until the command
# succeeds; fails after SECONDS.
wait_for() {
	_limit=$(($1 * 20))
	shift
	_i=0
	while ! "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ "$_i" -gt "$_limit" ] && return 1
		sleep 0.05
	done
	return 0
}

# dead PID: the process is gone, or a zombie its parent has yet to reap
# (killed all the same; kill -0 still finds it).
dead() {
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" \
	    2>/dev/null)" = Z ]
}

# REAL_GIT: the git forge would find before a test changes PATH.
REAL_GIT=$(command -v git)

# fake_git DIR SCRIPT: a "git" in DIR that runs SCRIPT (sh code with "$@"
# as git's arguments and $REAL_GIT to delegate); put DIR first in PATH.
# forge puts global options before the subcommand (--no-optional-locks,
# -c name=value), so SCRIPT gets the subcommand and the word after it in
# $SUB and $SUB2.
fake_git() {
	mkdir -p "$1"
	{
		echo '#!/bin/sh'
		echo "REAL_GIT='$REAL_GIT'"
		cat <<'PREAMBLE'
SUB= SUB2= _skip=
for _a in "$@"; do
	if [ -n "$_skip" ]; then _skip=; continue; fi
	if [ -z "$SUB" ]; then
		case $_a in
		-c|-C) _skip=1; continue ;;
		-*) continue ;;
		esac
		SUB=$_a
	else
		SUB2=$_a
		break
	fi
done
PREAMBLE
		printf '%s\n' "$2"
	} >"$1/git"
	chmod +x "$1/git"
}

# json_lines FILE: every line of FILE is a JSON object (jsonpick -c).
json_lines() {
	"$JSONPICK" -c <"$1"
}

# The helpers more than one test needs.
. "${TESTLIB%/*}/lib-functions.sh"
