#!/bin/sh
# --staged and --rev runs reuse parked copies as a working state's run
# does: the same copy, brought to HEAD and the index, or to the commit,
# its own ignored files kept under --incremental (never a file git reads
# as instructions), and the commit hook follows forge.reuse and
# forge.incremental.  A run takes a copy parked for its own kind of
# source, and another kind's only when the pool is full.  Over random
# edits, stages and commits, attributes files, core.autocrlf and CRLF
# content, each reused verdict and copy is a fresh copy's.
#
#	SOURCE_STEPS	how many random states (default 12)
#	SOURCE_SEED	their seed (default: from the clock, printed)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

steps=${SOURCE_STEPS:-12}
seed=${SOURCE_SEED:-$(( $(date +%s) % 100000 ))}
case $steps$seed in
*[!0-9]*)
	echo "Bail out! SOURCE_STEPS and SOURCE_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (SOURCE_SEED=$seed reruns it)"

new_repo "$T/r"
git config forge.breakerThreshold 0
printf '*.o\nbuild/\n.gitattributes\nsrc/.gitignore\n' >.gitignore
git add .gitignore && git commit -q -m ignores
wt=$(pwd -P)

# What a run does: the copy listed (but for its own build output), then
# junk of every kind left in it: build output (its own, ignored), an
# untracked file, a tracked file tampered with, rule files git would read
# (ignored here, so kept were they not dropped).
cat >"$T/look.sh" <<'EOF2'
"$TREELIST" -a . | grep -v '^build'
git status --porcelain --ignored=no
n=$(cat build/n 2>/dev/null || echo 0)
echo "own output $n"
mkdir -p build && echo $((n + 1)) >build/n
echo junk >zz-untracked
printf 'tampered\n' >>hello.txt
printf '* text eol=crlf\n' >.gitattributes
mkdir -p src && printf 'main.c\n' >src/.gitignore
true
EOF2

# fresh_and_reused DESC ARGS...: a fresh run and a reused one, the same
# (reused unless no copy can be proved: git converts a blob with CRs it
# would not write again, say).  A refused run drops the copy it took, so
# after one the pool is empty: each kind of run first parks a copy again.
drained=no
fresh_and_reused() {
	_desc=$1
	shift
	run_forge verify --isolated --no-reuse "$@" -- sh "$T/look.sh"
	_fresh="$rc $(printf '%s\n' "$out" | grep -v '^own output')"
	_frc=$rc
	for _m in --reuse --incremental; do
		[ "$drained" = no ] ||
		    run_forge verify $_m "$@" -- sh "$T/look.sh"
		run_forge verify $_m "$@" -- sh "$T/look.sh"
		is "$_desc: $_m, the copy a fresh one's" \
		    "$rc $(printf '%s\n' "$out" | grep -v '^own output')" \
		    "$_fresh"
		[ "$_frc" -eq 125 ] ||
		like "$_desc: $_m, reused" "$err" \
		    'running verification in a reused'
	done
	if [ "$_frc" -eq 125 ]; then drained=yes; else drained=no; fi
}

printf 'staged\n' >>hello.txt
git add hello.txt
printf 'unstaged\n' >>hello.txt
echo new >untracked.txt
forge gc --all >/dev/null 2>&1
run_forge verify --incremental --staged -- sh "$T/look.sh"
is "--staged --incremental: passes" "$rc" 0
like "its copy: HEAD and the index" "$out" 'hello.txt'
unlike "without the untracked file" "$out" 'untracked.txt'
run_forge verify --incremental --staged -- sh "$T/look.sh"
is "again: passes" "$rc" 0
like "the copy is reused" "$err" 'running verification in a reused'
like "its own build output kept" "$out" 'own output 1'
unlike "not a word of not reusing it" "$err" 'not reused'
like "the staged tree, not the working tree's" "$(cat "$wt/hello.txt")" \
    unstaged
run_forge verify --incremental --rev=HEAD -- sh "$T/look.sh"
is "--rev: passes" "$rc" 0
like "with room for its own copy, a fresh one" "$err" \
    'ephemeral copy of the commit'
like "no build output of the staged tree's copy" "$out" 'own output 0'
run_forge status --json
is "both parked, each for its kind of source" "$(printf '%s\n' "$out" |
    "$JSONPICK" copies.reusable.0.kind copies.reusable.1.kind)" \
    "$(printf 'staged\trev')"
run_forge verify --incremental --rev=HEAD -- sh "$T/look.sh"
like "the next --rev run reuses its own" "$err" \
    'running verification in a reused'
like "with its build output" "$out" 'own output 1'
run_forge verify --incremental -- sh "$T/look.sh"
like "the working state's run, the pool full, reuses another's" "$err" \
    'running verification in a reused'
like "the least recently used: the staged tree's" "$out" 'own output 2'
like "and the untracked file" "$out" 'untracked.txt'
run_forge verify --reuse --staged -- sh "$T/look.sh"
is "--staged --reuse: passes" "$rc" 0
unlike "no build output kept" "$out" 'own output [1-9]'

# The walk: one copy a pool, which each kind of source takes from the
# last.
git config forge.reuseCopies 1

# The random walk.
rand=$seed
step=1
while [ "$step" -le "$steps" ]; do
	lcg_next 11
	case $R in
	0) printf 'edit %s\n' "$step" >>hello.txt ;;
	1) git add -A >/dev/null 2>&1 ;;
	2) git commit -q -m "step $step" >/dev/null 2>&1 ;;
	3) mkdir -p "d$step" && echo "$step" >"d$step/f" ;;
	4) git add "d$step" >/dev/null 2>&1 || git add -A >/dev/null 2>&1 ;;
	5) git reset -q >/dev/null 2>&1 ;;
	6) git rm -q --cached -r src >/dev/null 2>&1 ;;
	7) printf 'int x%s;\n' "$step" >src/main.c && git add src ;;
	# How git converts (the attributes file is ignored here: added
	# with -f), and CRLF content.
	8) lcg_next 3
	   case $R in
	   0) printf '* text=auto\n' >.gitattributes ;;
	   1) printf '*.txt text eol=crlf\n*.c ident\n' >.gitattributes ;;
	   *) rm -f .gitattributes ;;
	   esac
	   lcg_next 2
	   [ "$R" -eq 0 ] && { git add -f .gitattributes >/dev/null 2>&1 ||
	       git rm -q --cached .gitattributes >/dev/null 2>&1; } ;;
	9) lcg_next 2
	   if [ "$R" -eq 0 ]; then git config core.autocrlf true
	   else git config --unset core.autocrlf; fi ;;
	10) printf 'crlf %s\r\n' "$step" >>"d$step.txt" &&
	    git add "d$step.txt" >/dev/null 2>&1 ;;
	esac
	lcg_next 3
	case $R in
	0) fresh_and_reused "seed $seed, step $step, --staged" --staged ;;
	1) fresh_and_reused "seed $seed, step $step, --rev=HEAD" --rev=HEAD ;;
	2) if git rev-parse -q --verify HEAD~1 >/dev/null; then
		fresh_and_reused "seed $seed, step $step, --rev=HEAD~1" --rev=HEAD~1
	   else
		fresh_and_reused "seed $seed, step $step, --staged" --staged
	   fi ;;
	esac
	step=$((step + 1))
done
git config --unset forge.reuseCopies

# The commit hook follows forge.incremental (its script in LF).
git config --unset core.autocrlf
git rm -q --cached --ignore-unmatch .gitattributes
rm -f .gitattributes
cat >build.sh <<'EOF2'
mkdir -p build
n=$(cat build/n 2>/dev/null || echo 0)
echo $((n + 1)) >build/n
echo "built $n" >&2
EOF2
git add -A >/dev/null 2>&1
git commit -q -m before-hook
git config --add forge.verify 'sh build.sh'
git config forge.incremental true
forge hook install pre-commit >/dev/null
printf 'one\n' >>hello.txt
git commit -q -am one >/dev/null 2>"$T/hook.err"
is "a commit through the hook: done" "$?" 0
printf 'two\n' >>hello.txt
git commit -q -am two >/dev/null 2>"$T/hook.err"
is "another: done" "$?" 0
like "the hook's copy is reused" "$(cat "$T/hook.err")" \
    'running verification in a reused incremental copy'
like "with its build output" "$(cat "$T/hook.err")" 'built [1-9]'
run_forge log --json
like "the timeline says so" "$out" '"mode":"staged","copy":"reused"'

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""
done_testing
