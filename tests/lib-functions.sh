# Helpers that more than one shell test needs; lib.sh sources this file
# after its own setup, so every test has them.  A function two tests
# would each write goes here, once (t-testlib.sh fails otherwise).
#
#	last_verify REPO		the newest verify event of REPO's timeline
#	unaudited CMD			CMD, not in an audit's fresh copy
#	counter [FILE]			how many runs a counting command recorded
#	fresh_status [ARGS]		the status of a fresh copy's run
#	tree_now			the working state's tree, abbreviated
#	parked				how many copies are parked in TMPDIR
#	real_state REPO			state_of, and REPO's git directory
#	status_same DESCRIPTION [MODE]	git status in the copy is the source's
#	need_pty DESCRIPTION		a pseudo-terminal, or the whole test skips
#	on_tty CODE			sh code run on a new terminal
#	in_ns CODE [ARG...]		sh code run in a mount namespace of its own
#	other_git DIR FLAG		git saying another version while FLAG exists
#	kept_as_fresh DESC MODE [FLAG...]	a kept copy's files are a fresh
#					copy's, byte for byte
#	kept_script			its command, in $T/.kept.sh

# common_dir REPO: REPO's common git directory, as an absolute path.
common_dir() {
	(cd "$1" && cd "$(git rev-parse --git-common-dir)" && pwd -P)
}

# last_verify REPO: the newest verify event of REPO's timeline (a JSON
# line), empty if there is none.
last_verify() {
	_tl="$(common_dir "$1")/forge/timeline.jsonl"
	grep '"event":"verify"' "$_tl" | tail -n 1
}

# unaudited CMD: a sh command that runs CMD, a step's effect outside the
# copy that the test counts or reads (echo run >>$T/count), except in an
# audit's fresh copy (FORGE_AUDITING=1), where it does nothing and exits
# 0: a test counts the runs of the path it tests, not the audit's runs
# of them again.  It adds no quote and no semicolon to CMD, so that it
# may be a value in a git configuration file too.
unaudited() {
	printf '(test ${FORGE_AUDITING:-0} = 1 || (%s))\n' "$1"
}

# counter [FILE]: how many lines a command that counts its runs (echo run
# >>FILE, unaudited) has written to FILE, $T/count unless given; 0 before
# it ever ran.
counter() {
	_cf=${1:-$T/count}
	if [ -f "$_cf" ]; then
		wc -l <"$_cf" | tr -d ' '
	else
		echo 0
	fi
}

# fresh_status [ARG...]: the same verification in a fresh copy (forge
# verify --isolated --no-reuse ARG...), its status in $fresh_rc; what a
# reused or incremental run's status must equal.
fresh_status() {
	forge verify --isolated --no-reuse "$@" >/dev/null 2>&1 </dev/null
	fresh_rc=$?
}

# tree_now: the tree git makes of the working state of the repository
# here, every change added to a copy of its index, abbreviated as forge's
# verdict line shows it.
tree_now() {
	cp -p "$(git rev-parse --git-path index)" "$T/.tree.index" &&
	    GIT_INDEX_FILE="$T/.tree.index" git add -A &&
	    GIT_INDEX_FILE="$T/.tree.index" git write-tree | cut -c1-12
}

# parked: how many copies are in TMPDIR, parked for reuse.
parked() {
	ls "$TMPDIR" | grep -c '^forge-' || true
}

# real_state REPO: what a verification must never change in REPO: its
# state_of, its configuration, and what its git directory holds.
real_state() {
	state_of "$1"
	cksum <"$1/.git/config"
	ls -A "$1/.git"
}

# status_same DESCRIPTION [MODE]: forge verify MODE (--isolated unless
# given) runs git status in the copy, with every untracked file listed,
# renames found and the files on disk read whatever a monitor hook
# claims, and lists the staged diff's paths: the run passes and all of
# it is what the same commands say here.  A nested repository forge says
# it left out (it has no commit) is taken out of the source's list.
STATUS_SAME='git -c core.fsmonitor= -c status.renames=true status --porcelain --untracked-files=all'
status_same() {
	eval "$STATUS_SAME" >"$T/src.st" 2>&1
	git -c core.fsmonitor= diff --cached --name-status HEAD \
	    >>"$T/src.st" 2>&1
	rm -f "$T/copy.st"
	run_forge verify "${2:---isolated}" -- \
	    sh -c "$STATUS_SAME"' >"$1" 2>&1;
	    git -c core.fsmonitor= diff --cached --name-status HEAD >>"$1" 2>&1' \
	    sh "$T/copy.st"
	[ -f "$T/copy.st" ] || : >"$T/copy.st"
	printf '%s\n' "$err" | sed -n 's/^forge: leaving out \(.*\): a nested repository without a commit checked out$/?? \1\//p' >"$T/left-out"
	if [ -s "$T/left-out" ]; then
		grep -vxF -f "$T/left-out" "$T/src.st" >"$T/src.st.new"
		mv "$T/src.st.new" "$T/src.st"
	fi
	if [ "$rc" -eq 0 ] && cmp -s "$T/src.st" "$T/copy.st"; then
		pass "$1"
	else
		fail "$1" "exit status $rc; stderr:" "$err" \
		    "status diff (- source, + copy):" \
		    "$(diff -u "$T/src.st" "$T/copy.st" | sed '1,2d' | head -n 40)"
	fi
}

# need_pty DESCRIPTION: script(1) from util-linux makes pseudo-terminals
# here; if not, the whole test is one skip, DESCRIPTION, and ends.
# After it, SHELL is /bin/sh, the shell script(1) runs.
need_pty() {
	if ! script --version 2>/dev/null | grep -q util-linux; then
		skip "$1" "script(1) from util-linux is not installed"
	elif ! SHELL=/bin/sh script -qec \
	    'test -t 0 && test -t 1 && test -t 2' /dev/null </dev/null \
	    >/dev/null 2>&1; then
		skip "$1" "script(1) cannot make a pseudo-terminal here"
	else
		SHELL=/bin/sh
		export SHELL
		return 0
	fi
	done_testing
	exit
}

# on_tty CODE: sh code run on a new terminal (see need_pty), from here,
# with the environment's variables.  Prints what the terminal showed,
# stdout and stderr as they came, each line without the carriage return
# that ends it, and with any other one (a line redrawn in place) made a
# line break; its status is the code's.
on_tty() {
	printf '%s\n' "$1" >"$T/.tty.sh"
	rm -f "$T/.tty.rc"
	script -qec "sh '$T/.tty.sh'; echo \$? >'$T/.tty.rc'" /dev/null \
	    </dev/null >"$T/.tty.out" 2>&1
	_cr=$(printf '\r')
	sed "s/$_cr\$//" "$T/.tty.out" | tr '\r' '\n'
	[ -s "$T/.tty.rc" ] || return 99
	return "$(cat "$T/.tty.rc")"
}

# in_ns CODE [ARG...]: sh code run with ARGs in a private mount namespace
# of its own, so that nothing it mounts outlives it (root and unshare(1)
# needed); FORGE, FORGE_WRAPPER and T are in its environment.  Its
# stdout, stderr and status in $out, $err and $rc, as run_forge leaves
# forge's.
in_ns() {
	printf '%s\n' "$1" >"$T/.ns.sh"
	shift
	FORGE_WRAPPER=${FORGE_WRAPPER:-} T=$T FORGE=$FORGE \
	    unshare -m --propagation private sh "$T/.ns.sh" "$@" \
	    >"$T/.stdout" 2>"$T/.stderr" </dev/null
	rc=$?
	out=$(cat "$T/.stdout")
	err=$(cat "$T/.stderr")
}

# lcg_next N: the next number of the walk seeded by $rand, 0 to N-1, in
# R (a linear congruential generator: the same seed, the same walk, in
# any sh).
lcg_next() {
	rand=$(( (rand * 1103515245 + 12345) % 2147483648 ))
	R=$(( (rand / 65536) % $1 ))
}

# other_git DIR FLAG: a git in DIR (put DIR first in PATH) that is the
# real one, but says another version -- its own, ".other" after it --
# while the file FLAG exists.
other_git() {
	fake_git "$1" '
if [ "$SUB" = version ] && [ -f "'"$2"'" ]; then
	"$REAL_GIT" version | sed "s/\$/.other/"
	exit
fi
exec "$REAL_GIT" "$@"'
}

# kept_as_fresh DESCRIPTION MODE [FLAG...]: forge verify MODE FLAG...
# (MODE --reuse or --incremental, FLAG --staged, --rev=...), its command
# listing every file of the copy with its bytes' digest (but zz-own/,
# where it leaves build output, which the repository must ignore), then
# leaving what a build might: each tracked file of each repository in it
# given the other line endings and $Id$ collapsed (other bytes of the
# same blob where git converts), staged, its time put back (not if
# KEPT_QUIET is set: the next run then finds every file as it was
# noted).  Then the same fresh (--no-reuse).  Passes if the first reused
# a copy (unless KEPT_FRESH is set: one not to be reused), and the two
# listed the same files, byte for byte, with the same verdict.  The
# lists are left in $T/kept.m and $T/fresh.m, the first run's standard
# error in $kept_err.
kept_as_fresh() {
	_kd=$1 _km=$2
	shift 2
	kept_script
	rm -f "$T/kept.m" "$T/fresh.m"
	run_forge verify "$_km" "$@" -- sh "$T/.kept.sh" "$T/kept.m" \
	    ${KEPT_QUIET:+quiet}
	_krc=$rc
	kept_err=$err
	run_forge verify --isolated --no-reuse "$@" -- sh "$T/.kept.sh" \
	    "$T/fresh.m" quiet
	_kwhy=
	[ "$_krc" = "$rc" ] || _kwhy="$_kwhy verdicts $_krc, fresh $rc;"
	# A copy that could not be made lists nothing: nor may the other.
	if [ -f "$T/kept.m" ] || [ -f "$T/fresh.m" ]; then
		cmp -s "$T/kept.m" "$T/fresh.m" || _kwhy="$_kwhy files differ;"
	fi
	if [ -z "${KEPT_FRESH:-}" ] && ! printf '%s\n' "$kept_err" |
	    grep -Eq 'running verification in a reused|carried to commit'; then
		_kwhy="$_kwhy not reused;"
	fi
	if [ -z "$_kwhy" ]; then
		pass "$_kd ($_km)"
	else
		fail "$_kd ($_km)" "$_kwhy" \
		    "files (- fresh, + kept):" \
		    "$(diff "$T/fresh.m" "$T/kept.m" | head -n 20)" \
		    "the kept run said:" "$kept_err" "the fresh run said:" "$err"
	fi
}

# kept_script: kept_as_fresh's command, sh "$T/.kept.sh" LIST [quiet]
# (an audit's fresh copy lists nothing).
kept_script() {
	cat >"$T/.kept.sh" <<EOF
$(unaudited '"$TREELIST" . | grep -v "^zz-own/" >"$1"')
EOF
	cat >>"$T/.kept.sh" <<'EOF'
[ -z "${2:-}" ] || exit 0
mkdir -p zz-own
own=$(pwd)/zz-own
cr=$(printf '\r')
find . -name zz-own -prune -o -name .git -print | while IFS= read -r g; do
	(
	cd "${g%/.git}" || exit 1
	git ls-files -z | tr '\0' '\n' | while IFS= read -r f; do
		[ -f "$f" ] && [ ! -h "$f" ] || continue
		cp -p "$f" "$own/t"
		if grep -q "$cr" "$own/t"; then
			tr -d '\r' <"$own/t" >"$f"
		else
			awk '{ printf "%s\r\n", $0 }' "$own/t" >"$f"
		fi
		sed 's/[$]Id: [0-9a-f]* [$]/$Id$/' "$f" >"$own/u" &&
		    cat "$own/u" >"$f"
		touch -r "$own/t" "$f"
	done
	git add -u >/dev/null 2>&1
	)
done
echo built >zz-own/out
exit 0
EOF
}
