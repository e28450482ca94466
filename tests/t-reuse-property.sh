#!/bin/sh
# The property, for reused copies: one repository walked through many
# random working states (tests/fidelity-gen.sh's edits, and commits,
# resets, checkouts of other commits, stashes, and what changes how git
# converts: attributes files, info/attributes, core.autocrlf, CRLF
# content), each verified with --reuse and then with --incremental, each
# run's command leaving junk behind in its copy (untracked and ignored
# files, a tampered tracked file, a flagged index entry, CRLF staged).
# After every run: forge passed with its proof, and the copy held
# exactly the working state -- for --incremental, plus only the copy's
# own ignored files; where git may convert, the copy and the verdict
# are a fresh copy's, byte for byte.
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
info_attr=$(git rev-parse --git-path info/attributes)
case $info_attr in /*) ;; *) info_attr=$wt/$info_attr ;; esac

# convert_move: something that changes how git converts: an attributes
# file at the top or in a/ (roundtrips each: text=auto leaves a blob
# with CRs as it is), staged or not, or gone; core.autocrlf;
# info/attributes; CRLF content.
convert_move() {
	gen_rand 9
	case $R in
	0) printf '* text=auto\n' >.gitattributes ;;
	1) printf '* text=auto eol=crlf\n*.txt ident\n' >.gitattributes ;;
	2) mkdir -p a && printf '* text=auto eol=lf\n' >a/.gitattributes ;;
	3) rm -f .gitattributes a/.gitattributes ;;
	4) git add -A -- .gitattributes a/.gitattributes >/dev/null 2>&1 ;;
	5) gen_rand 3
	   case $R in
	   0) git config core.autocrlf true ;;
	   1) git config core.autocrlf input ;;
	   *) git config --unset core.autocrlf ;;
	   esac ;;
	6) if [ -f "$info_attr" ]; then
		rm -f "$info_attr"
	   else
		printf '*.txt text=auto eol=crlf\n' >"$info_attr"
	   fi ;;
	7) printf 'crlf\r\nline\r\n' >crlf.txt ;;
	*) mkdir -p a && printf 'lf\nthen crlf\r\n' >a/mixed.txt &&
	    git add a/mixed.txt >/dev/null 2>&1 ;;
	esac
	echo "convert move $R" >>"$GEN_LOG"
	converted=yes
}

# converting: might git have converted a file of the working state, now
# or since it was written?  Then the copy holds what a checkout writes
# now, not the working tree's bytes (forge(1), CAVEATS): it is compared
# with a fresh copy alone.  Once the walk changed how git converts, it
# is so to its end.
converting() {
	[ -n "$converted" ]
}
converted=

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

# The command: the copy listed (not by an audit's fresh copy), then junk
# (and, where git converts, the files of the tree given CRLF, staged).
cat >"$T/run.sh" <<EOF
$(unaudited '"$TREELIST" . >"$1"')
EOF
cat >>"$T/run.sh" <<'EOF'
mkdir -p zz-own && echo "$2" >"zz-own/run-$2"
echo junk >"zz-untracked-$2"
printf tampered >>.gitignore
git update-index --assume-unchanged .gitignore 2>/dev/null
for f in crlf.txt a/mixed.txt; do
	[ -f "$f" ] && printf 'x\r\n' >>"$f" && git add "$f" 2>/dev/null
done
true
EOF

# fresh_copy: a fresh copy's list and exit status, for verify_as to
# compare with.
fresh_copy() {
	rm -f "$T/fresh.m"
	run_forge verify --isolated --no-reuse -- sh "$T/run.sh" "$T/fresh.m" 0
	fresh_rc=$rc
}

# verify_as MODE STEP: one run, its checks, of the copy the run had (an
# audit's fresh copy writes no manifest).
verify_as() {
	_mode=$1 _step=$2
	source_manifest "$wt" >"$T/src.m"
	state_of "$wt" >"$T/before"
	rm -f "$T/copy.m"
	run_forge verify "--$_mode" -- sh "$T/run.sh" "$T/copy.m" "$_step"
	_why=
	if [ -f "$T/copy.m" ]; then
		grep -v '^zz-own/' "$T/copy.m" >"$T/copy-src.m"
	else
		: >"$T/copy-src.m"
	fi
	if converting; then
		[ "$rc" = "$fresh_rc" ] || _why="$_why verdict-not-fresh"
		[ "$rc" -ne 0 ] || [ "$fresh_rc" -ne 0 ] ||
		    cmp -s "$T/copy-src.m" "$T/fresh.m" ||
		    _why="$_why copy-not-fresh"
		# Seen once, as it was before reused copies of trees that
		# convert: the proofs of a fresh copy and of a reused one
		# weigh a file's attributes differently, with an attributes
		# file deleted from the working tree but not from the index.
		[ "$rc" -eq 0 ] && [ "$fresh_rc" -eq 125 ] &&
		    KNOWN_BUG="a reused copy's proof passes where a fresh one's is refused"
	else
		printf '%s\n' "$err" | tail -n 1 |
		    grep -Eq "Verdict: PASS \(isolated, (fresh|reused|incremental), (audited, )?tree [0-9a-f]{12}" ||
		    _why="$_why forge-failed"
		cmp -s "$T/copy-src.m" "$T/src.m" || _why="$_why copy-differs"
	fi
	state_of "$wt" >"$T/after"
	cmp -s "$T/before" "$T/after" || _why="$_why source-changed"
	_own=$(grep -c '^zz-own/' "$T/copy.m")
	if [ "$_mode" = reuse ] && [ "$_own" -ne 0 ]; then
		_why="$_why ignored-files-kept"
	fi
	# Only a copy that was parked (its run passed) is reused, and keeps
	# its own ignored files.
	eval "_parked=\${parked_$_mode:-}"
	if [ "$_mode" = incremental ] && [ -n "$_parked" ] && [ "$rc" -eq 0 ] &&
	    ! grep -q "^zz-own/run-$((_step - 1))	" "$T/copy.m"; then
		_why="$_why own-ignored-files-lost"
	fi
	if [ -n "$_parked" ] && [ "$rc" -eq 0 ] && { ! printf '%s\n' "$err" |
	    grep -q 'reused .*copy, brought up to date' ||
	    printf '%s\n' "$err" | grep -q 'building a fresh one'; }; then
		_why="$_why not-reused"
	fi
	if [ "$rc" -eq 0 ]; then
		eval "parked_$_mode=yes"
	else
		eval "parked_$_mode="
	fi
	if [ -z "$_why" ]; then
		pass "step $_step, --$_mode: the copy is the working state"
	else
		fail "step $_step, --$_mode: the copy is the working state" \
		    "failed:$_why (seed $seed)" "stderr:" "$err" \
		    "manifest diff (- source, + copy):" \
		    "$(diff -u "$T/src.m" "$T/copy-src.m" | sed '1,2d' |
			head -n 30)" \
		    "manifest diff (- fresh copy, + copy):" \
		    "$(diff -u "$T/fresh.m" "$T/copy-src.m" | sed '1,2d' |
			head -n 30)" "what was done:" "$(cat "$GEN_LOG")"
	fi
	KNOWN_BUG=
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
	# The first half of the walk as it always was; then what changes
	# how git converts too.
	gen_rand 2
	[ "$R" -eq 0 ] && [ "$i" -gt $((steps / 2)) ] && convert_move
	echo "--- step $i" >>"$GEN_LOG"
	fresh_copy
	verify_as reuse "$i"
	verify_as incremental "$i"
	i=$((i + 1))
done

forge gc --all >/dev/null 2>&1
is "gc --all leaves nothing behind" "$(leftovers "$wt")" ""
done_testing
