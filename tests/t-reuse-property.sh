#!/bin/sh
# The property, for reused copies: one repository walked through many
# random working states (tests/fidelity-gen.sh's edits, and commits,
# resets, checkouts of other commits, stashes), with what the working
# state does not hold changed on the way (tests/walk-moves.sh: git's
# settings in every scope and in a submodule, info/attributes files,
# core.symlinks, the groups forge runs with as root), setup steps that
# write build output, append to a tracked file, write an untracked one
# and delete a tracked one (with forge.setupInputs or without), and on
# odd seeds a submodule, committed, changed and deinitialized; each
# state verified in a fresh copy, then with --reuse and with
# --incremental (at times with --audit), each run's command leaving junk
# behind in its copy (untracked and ignored files, a tampered tracked
# file, a flagged index entry).  After every run: forge passed or failed
# with its proof, and as the fresh copy did; the copy held what the fresh
# copy held, and git status and the groups said there what they said
# there -- for --incremental, plus only the copy's own ignored files;
# the audit found no divergence; and, while nothing converts (no setting
# or attributes file of the walk's), the copy held exactly the working
# state, and, with no submodule either, was reused.
#
#	REUSE_STEPS	how many states per seed (default 8)
#	REUSE_SEED	the first seed (default 1)
#	REUSE_SEEDS	how many seeds, from it (default 1)
#
# A failing check says its seed and step; scripts/fuzz-walk reuse runs
# the walk at length.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"
. "$top_srcdir/tests/fidelity-gen.sh"
. "$top_srcdir/tests/walk-moves.sh"

steps=${REUSE_STEPS:-8}
seed0=${REUSE_SEED:-1}
nseeds=${REUSE_SEEDS:-1}
case $steps$seed0$nseeds in
*[!0-9]*)
	echo "Bail out! REUSE_STEPS, REUSE_SEED and REUSE_SEEDS must be numbers"
	exit 1
	;;
esac
echo "# seeds $seed0 to $((seed0 + nseeds - 1)), $steps steps each" \
    "(REUSE_SEED=$seed0 REUSE_SEEDS=$nseeds REUSE_STEPS=$steps to replay)"
# Nested repositories that are not submodules are the generator's to
# make: left out (t-property.sh covers them).
GEN_NO_NESTED=yes

# The command: the copy's manifest, git status and the groups, a verdict
# by their digest (but for the copy's own ignored files), then junk.
mkdir -p "$T/bin"
cat >"$T/bin/cmd.sh" <<'EOF'
out=$2
# The audit's fresh copy (--audit) runs this too: where it writes is
# another file, what it says the same.
[ "${FORGE_AUDITING:-}" = 1 ] && out=$2.audit
"$1" . >"$out"
# Where git may convert (a filter command, line endings, an attributes
# file anywhere), git status in a fresh checkout depends on its timing:
# an entry as recent as the index is read again, through a filter that
# need not undo itself or attributes that came after the checkout (an
# untracked attributes file), one not so recent is not.
converts() {
	git config --get-regexp '^(filter\..*\.(smudge|clean|process)|core\.(autocrlf|eol|attributesfile))$' \
	    >/dev/null 2>&1 && return 0
	[ -s "$(git rev-parse --git-path info/attributes)" ] && return 0
	[ -n "$(find . -name .gitattributes ! -path './.git/*' | head -n 1)" ]
}
{
	if converts; then
		echo "status: git may convert, and says by its timing"
	else
		git status --porcelain --untracked-files=all
	fi
	id -G | tr ' ' '\n' | sort -n
} >"$out.st" 2>&1
sum=$({ grep -v '^zz-own/' "$out"; cat "$out.st"; } | cksum | cut -d' ' -f1)
mkdir -p zz-own && echo "$3" >"zz-own/run-$3"
echo junk >"zz-untracked-$3"
printf tampered >>.gitignore
git update-index --assume-unchanged .gitignore 2>/dev/null
exit $((sum % 2))
EOF
# The setup: build output from the bytes of zz-in.h (the one file
# forge.setupInputs names, when it names one), and what FLAGS say: t
# appends to the tracked zz-t.h, u writes zz-gen.h, which git does not
# ignore, d deletes the tracked zz-d.h.
cat >"$T/bin/setup.sh" <<'EOF'
mkdir -p zz-out && { echo "$1"; cksum <zz-in.h 2>/dev/null; } >zz-out/setup
case $2 in *t*) test -f zz-t.h && echo "set up by $1" >>zz-t.h ;; esac
case $2 in *u*) { echo "$1"; cksum <zz-in.h 2>/dev/null; } >zz-gen.h ;; esac
case $2 in *d*) rm -f zz-d.h ;; esac
exit 0
EOF

init_repo "$T/lib"
echo v1 >"$T/lib/v"
echo 'a lib' >"$T/lib/w.txt"
ln -s w.txt "$T/lib/lnk"
git -C "$T/lib" add -A
git -C "$T/lib" commit -q -m v1

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
	esac </dev/null
	gen_note history "$R"
}

# move: one of the walk's own changes, said in the generator's log.
move() {
	gen_rand 11
	case $R in
	0 | 1) walk_setting ;;
	9 | 10)
		# How git converts what the working state holds: an
		# attributes file at the top or in a/, staged or not, or gone;
		# core.autocrlf; CRLF content, staged or not.
		gen_rand 8
		case $R in
		0) printf '* text=auto\n' >.gitattributes ;;
		1) printf '* text=auto eol=crlf\n*.txt ident\n' >.gitattributes ;;
		2) mkdir -p a && printf '* text=auto eol=lf\n' >a/.gitattributes ;;
		3) rm -f .gitattributes a/.gitattributes ;;
		4) git add -A -- .gitattributes a/.gitattributes \
		    >/dev/null 2>&1 ;;
		5) gen_rand 3
		   set -- true input false
		   shift $R
		   git config core.autocrlf "$1" ;;
		6) printf 'crlf\r\nline\r\n' >crlf.txt ;;
		*) mkdir -p a && printf 'lf\nthen crlf\r\n' >a/mixed.txt &&
		    git add a/mixed.txt >/dev/null 2>&1 ;;
		esac
		walk_converted=yes
		did="how git converts: $R" ;;
	2) walk_attributes ;;
	3) walk_symlinks ;;
	4)
		# Once there is one, the setup changes but never goes: an
		# incremental copy keeps what the last one made.
		gen_rand 3
		setup=S$((R % 2 + 1))
		gen_rand 8
		sflags=
		[ $((R & 1)) -ne 0 ] && sflags=${sflags}t
		[ $((R & 2)) -ne 0 ] && sflags=${sflags}u
		[ $((R & 4)) -ne 0 ] && sflags=${sflags}d
		git config forge.setup "sh $T/bin/setup.sh $setup ${sflags:-none}"
		gen_rand 2
		if [ "$R" -eq 0 ]; then
			git config forge.setupInputs zz-in.h
		else
			git config --unset-all forge.setupInputs
		fi
		did="setup $setup ${sflags:-none}, inputs $R"
		;;
	5)
		# The setup's files, tracked, as history may have taken them.
		printf 'in %s\n' "$_gen_state" >>zz-in.h
		[ -f zz-t.h ] || echo t >zz-t.h
		[ -f zz-d.h ] || echo d >zz-d.h
		git add zz-in.h zz-t.h zz-d.h >/dev/null 2>&1
		gen_rand 2
		[ "$R" -eq 0 ] && git commit -qm zz --no-verify -- zz-in.h \
		    zz-t.h zz-d.h >/dev/null 2>&1
		did="zz-in.h appended to, the setup's files tracked"
		;;
	*)
		if [ -z "$WALK_SUB" ]; then
			walk_setting
			return
		fi
		gen_rand 4
		case $R in
		0)
			printf 'w%s\n' "$_gen_state" >"$T/lib/v"
			git -C "$T/lib" commit -q -am "w$_gen_state" \
			    >/dev/null 2>&1
			git -C lib pull -q >/dev/null 2>&1 </dev/null
			did="a new lib commit, pulled" ;;
		1)
			printf 'w%s\n' "$_gen_state" >>lib/w.txt 2>/dev/null
			did="lib/w.txt appended to" ;;
		2)
			if [ -e lib/.git ]; then
				git submodule -q deinit -f lib >/dev/null 2>&1
				did="submodule deinit"
			else
				git submodule -q update --init >/dev/null 2>&1
				did="submodule update --init"
			fi </dev/null ;;
		*)
			git add lib >/dev/null 2>&1
			did="git add lib" ;;
		esac
		;;
	esac
}

# own_excluded: the copy's own junk, and the setup's build output, go
# where every state ignores them.
own_excluded() {
	for _p in zz-own/ zz-out/; do
		grep -qx "$_p" "$exclude" || printf '%s\n' "$_p" >>"$exclude"
	done
}

# fresh_as STEP: the fresh copy's run, what it held and its status.
fresh_as() {
	rm -f "$T/fresh.m" "$T/fresh.m.st"
	run_forge verify --isolated --no-reuse --no-cache -- \
	    sh "$T/bin/cmd.sh" "$TREELIST" "$T/fresh.m" "$1"
	fresh_rc=$rc
	fresh_err=$err
	[ -f "$T/fresh.m" ] || : >"$T/fresh.m"
	grep -v '^zz-own/' "$T/fresh.m" >"$T/fresh-src.m"
}

# verify_as MODE STEP: one run, its checks.
verify_as() {
	_mode=$1 _step=$2
	if [ -e lib/.git ]; then
		source_manifest "$wt" lib >"$T/src.m"
	else
		source_manifest "$wt" >"$T/src.m"
	fi
	state_of "$wt" >"$T/before"
	_audit=
	gen_rand 4
	[ "$R" -eq 0 ] && _audit=--audit
	rm -f "$T/copy.m" "$T/copy.m.st"
	run_forge verify "--$_mode" $_audit --no-cache -- \
	    sh "$T/bin/cmd.sh" "$TREELIST" "$T/copy.m" "$_step"
	[ -f "$T/copy.m" ] || : >"$T/copy.m"
	_why=
	if [ "$fresh_rc" -gt 1 ]; then
		# The fresh copy could not verify (a setting git fails
		# with): the fast path may not either.
		[ "$rc" = "$fresh_rc" ] || _why="$_why verdict-not-fresh($rc,$fresh_rc)"
		state_of "$wt" >"$T/after"
		cmp -s "$T/before" "$T/after" || _why="$_why source-changed"
		if [ -z "$_why" ]; then
			pass "seed $seed, step $_step, --$_mode: as the fresh copy, which could not verify"
		else
			fail "seed $seed, step $_step, --$_mode: as the fresh copy" \
			    "failed:$_why (REUSE_SEED=$seed REUSE_STEPS=$_step)" \
			    "stderr:" "$err" "the fresh copy's stderr:" "$fresh_err"
		fi
		return 0
	fi
	printf '%s\n' "$err" | tail -n 1 |
	    grep -Eq "Verdict: (PASS|FAIL) \((exit status 1; )?isolated, (fresh|reused|incremental)(, audited)?, tree [0-9a-f]{12}" ||
	    _why="$_why forge-failed"
	[ "$rc" = "$fresh_rc" ] || _why="$_why verdict-not-fresh($rc,$fresh_rc)"
	grep -v '^zz-own/' "$T/copy.m" >"$T/copy-src.m"
	cmp -s "$T/copy-src.m" "$T/fresh-src.m" || _why="$_why copy-not-fresh"
	cmp -s "$T/copy.m.st" "$T/fresh.m.st" || _why="$_why status-not-fresh"
	if ! walk_converts; then
		if [ -n "$setup" ]; then
			grep -Ev '^zz-(out/|gen\.h|t\.h|d\.h)' "$T/copy-src.m" \
			    >"$T/a.m"
			grep -Ev '^zz-(out/|gen\.h|t\.h|d\.h)' "$T/src.m" >"$T/b.m"
		else
			cp "$T/copy-src.m" "$T/a.m"
			cp "$T/src.m" "$T/b.m"
		fi
		cmp -s "$T/a.m" "$T/b.m" || _why="$_why copy-differs"
	fi
	state_of "$wt" >"$T/after"
	cmp -s "$T/before" "$T/after" || _why="$_why source-changed"
	_own=$(grep -c '^zz-own/' "$T/copy.m")
	if [ "$_mode" = reuse ] && [ "$_own" -ne 0 ]; then
		_why="$_why ignored-files-kept"
	fi
	_reused=0
	case $err in
	*'building a fresh one'*) ;;
	*'in a reused'*) _reused=1 ;;
	esac
	if [ "$_mode" = incremental ] && [ "$_reused" -eq 1 ] &&
	    [ "$parked_incr" = "$((_step - 1))" ] &&
	    ! grep -q "^zz-own/run-$((_step - 1))	" "$T/copy.m"; then
		_why="$_why own-ignored-files-lost"
	fi
	# Reused, but where git may convert, a setting keeps copies from
	# reuse, or a submodule is there: where a reused copy may be brought
	# up to date whole, or not at all, what counts is the verdict.
	_last=$parked_reuse
	[ "$_mode" = reuse ] || _last=$parked_incr
	if [ "$_step" -gt 1 ] && [ "$_reused" -eq 0 ] &&
	    [ "$_last" = "$((_step - 1))" ] &&
	    ! walk_converts && ! walk_unreusable &&
	    [ ! -e lib/.git ]; then
		_why="$_why not-reused"
	fi
	case $err in
	*'the copy stays at'*)
		if [ "$_mode" = incremental ]; then
			parked_incr=$_step
		else
			parked_reuse=$_step
		fi ;;
	esac
	if [ "$(walk_divergences "$wt")" -ne "$divs" ]; then
		_why="$_why audit-divergence"
		divs=$(walk_divergences "$wt")
	fi
	if [ -z "$_why" ]; then
		pass "seed $seed, step $_step, --$_mode: as the fresh copy${_audit:+, audited}"
	else
		fail "seed $seed, step $_step, --$_mode: as the fresh copy" \
		    "failed:$_why (REUSE_SEED=$seed REUSE_STEPS=$_step)" \
		    "stderr:" "$err" "the fresh copy's stderr:" "$fresh_err" \
		    "manifest diff (- fresh copy, + copy):" \
		    "$(diff -u "$T/fresh-src.m" "$T/copy-src.m" | sed '1,2d' |
			head -n 30)" \
		    "status diff (- fresh copy, + copy):" \
		    "$(diff -u "$T/fresh.m.st" "$T/copy.m.st" | sed '1,2d' |
			head -n 30)" \
		    "manifest diff (- source, + copy):" \
		    "$(diff -u "$T/b.m" "$T/a.m" | sed '1,2d' | head -n 30)" \
		    "what was done:" "$(cat "$GEN_LOG")"
	fi
}

seed=$seed0
while [ "$seed" -lt $((seed0 + nseeds)) ]; do
	cd "$T" || exit 99
	rm -rf "$T/r" "$T/r.log" "$T/r.tools"
	sub=$((seed % 2))
	if [ "$sub" -eq 1 ]; then
		walk_init "$T/r" lib
	else
		walk_init "$T/r"
	fi
	gen_case "$T/r" "$seed" >/dev/null 2>&1 ||
	    { echo "Bail out! gen_case"; exit 1; }
	wt=$(pwd -P)
	git config forge.breakerThreshold 0
	exclude=$(git rev-parse --git-path info/exclude)
	case $exclude in /*) ;; *) exclude=$wt/$exclude ;; esac
	mkdir -p "${exclude%/*}"
	own_excluded
	echo in >zz-in.h
	echo t >zz-t.h
	echo d >zz-d.h
	git add zz-in.h zz-t.h zz-d.h
	if [ "$sub" -eq 1 ]; then
		git submodule -q add "$T/lib" lib >/dev/null 2>&1
	fi
	git commit -qm zz --no-verify -- zz-in.h zz-t.h zz-d.h \
	    ${WALK_SUB:+.gitmodules lib} >/dev/null 2>&1
	setup=
	parked_incr= parked_reuse=
	divs=0
	fresh_rc=0
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
		gen_rand 3
		_k=$R
		[ "$i" -eq 1 ] && _k=1
		while [ "$_k" -gt 0 ]; do
			move
			gen_note "$did"
			_k=$((_k - 1))
		done
		if [ "${fresh_rc:-0}" -eq 125 ]; then
			# The fresh copy could not verify: one of the walk's
			# settings or attributes files is taken back.
			walk_recover
			gen_note "$did"
		fi
		gen_rand 3
		if [ "$R" -eq 0 ]; then
			walk_groups
			gen_note "$did"
		fi
		# The generator may have emptied info/exclude: the copy's own
		# junk is to be ignored in every state still.
		own_excluded
		echo "--- step $i" >>"$GEN_LOG"
		fresh_as "$i"
		verify_as reuse "$i"
		verify_as incremental "$i"
		i=$((i + 1))
	done
	forge gc --all >/dev/null 2>&1
	is "seed $seed: gc --all leaves nothing behind" "$(leftovers "$wt")" ""
	seed=$((seed + 1))
done
done_testing
