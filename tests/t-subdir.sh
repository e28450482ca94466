#!/bin/sh
# A command runs in the copy's counterpart of the current directory, with
# PWD saying so; a directory that holds only ignored files is created in
# the copy, empty, and forge says so.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

new_repo "$T/r"
mkdir -p src/deep/er build/out lib
printf 'deep\n' >src/deep/er/file.txt
printf 'object\n' >build/out/main.o
printf 'object\n' >lib/only.o
git add src/deep && git commit -q -m deep
printf 'untracked\n' >src/deep/new.txt
before=$(state_of "$T/r")
copies="$TMPDIR/forge-[^/]+/r"
# Where the command ran, as it says it: the copy's paths passed on as
# written, not named as the working tree's.
git config forge.mapPaths false

cd "$T/r/src" || exit 99
run_forge verify --isolated -- pwd
is "from src/, the command passes" "$rc" 0
unlike "with nothing said about ignored files" "$err" 'ignores'
like "from src/, it runs in the copy's src/" "$out" "^$copies/src\$"
unlike "not in the source's src/" "$out" "^$T/r"

run_forge verify --isolated -- env
pwd_seen=$(printf '%s\n' "$out" | sed -n 's/^PWD=//p')
like "PWD in its environment names the copy's src/" "$pwd_seen" \
    "^$copies/src/?\$"
like "in the form a shell gives it: no trailing slash" "$pwd_seen" \
    "^$copies/src\$"

run_forge verify --isolated -- sh -c 'pwd; pwd -P'
is "a shell's logical and physical directories agree" \
    "$(printf '%s\n' "$out" | sed -n 1p)" "$(printf '%s\n' "$out" | sed -n 2p)"

# In one run: PWD names the directory the command is in.  A shell would
# mend a wrong PWD, so look at it through a kept copy instead.
run_forge verify --isolated --keep -- env
kept=$(printf '%s\n' "$err" | sed -n 's/^forge: kept the copy at \(.*\) (.*/\1/p')
pwd_seen=$(printf '%s\n' "$out" | sed -n 's/^PWD=//p')
is "PWD is the kept copy's src/" "${pwd_seen%/}" "$kept/src"
ok "and that directory is the copy's src/" test -f "$pwd_seen/main.c"
ok "forge gc --kept removes the kept copy" forge gc --kept
is "nothing is left after gc" "$(leftovers "$T/r")" ""

run_forge verify --isolated -- cat main.c
is "relative paths work from the subdirectory" "$out" \
    'int main(void) { return 0; }'

cd "$T/r/src/deep/er" || exit 99
run_forge verify --isolated -- sh -c 'pwd -P; ls'
like "from src/deep/er/, it runs in the copy's src/deep/er/" \
    "$(printf '%s\n' "$out" | head -n 1)" "^$copies/src/deep/er\$"
is "which holds what the source's does" \
    "$(printf '%s\n' "$out" | sed 1d)" file.txt

cd "$T/r/src" || exit 99
run_forge verify --in-place -- pwd
is "in place, from src/, it runs in src/ itself" "$out" "$T/r/src"

# Directories holding only ignored files.
cd "$T/r/build/out" || exit 99
run_forge verify --isolated -- sh -c 'pwd -P; ls -A'
is "from a directory of ignored files, the command passes" "$rc" 0
like "it runs in the copy's counterpart" \
    "$(printf '%s\n' "$out" | head -n 1)" "^$copies/build/out\$"
is "which is empty: ignored files are not copied" \
    "$(printf '%s\n' "$out" | sed 1d)" ""
is "forge says so, in one line" \
    "$(printf '%s\n' "$err" | grep -c 'build/out/ holds only files git ignores')" 1
like "naming the empty directory it runs in" "$err" \
    '^forge: build/out/ holds only files git ignores \(or none\): the command runs in an empty build/out/ in the copy$'
run_forge verify --isolated -- env
like "PWD there names the copy's counterpart" \
    "$(printf '%s\n' "$out" | sed -n 's/^PWD=//p')" "^$copies/build/out/?\$"
cd "$T/r/lib" || exit 99
run_forge verify --isolated -- pwd
like "from lib/ (only *.o inside), it runs in the copy's lib/" "$out" \
    "^$copies/lib\$"

# An empty directory, and one whose name needs care.
mkdir -p "$T/r/empty dir/-n"
cd "$T/r/empty dir/-n" || exit 99
run_forge verify --isolated -- pwd
like "from an empty directory with an awkward name, it runs there" \
    "$out" "^$copies/empty dir/-n\$"
like "and says so" "$err" "^forge: empty dir/-n/ holds only files git ignores"
cd "$T/r" || exit 99
rmdir "$T/r/empty dir/-n" "$T/r/empty dir"

# At the top, a command runs at the top of the copy.
run_forge verify --isolated -- pwd
like "from the top, it runs at the top of the copy" "$out" "^$copies\$"
cd "$T/r/build/out" || exit 99
git config forge.verify pwd
run_forge verify --isolated
like "configured steps run at the top, wherever forge is started" "$out" \
    "^$copies\$"
unlike "and nothing is said about ignored files" "$err" 'ignores'
git config --unset forge.verify
cd "$T/r" || exit 99

# Where the copy has a symlink on the way to that directory -- a commit's
# (--rev, --staged), or one a command left among a reused copy's ignored
# files -- the command does not run beyond it, nor is a directory made
# there: an ERROR.
new_repo "$T/sl"
git config forge.breakerThreshold 0
mkdir -p "$T/outside"
ln -s "$T/outside" out
git add out && git commit -q -m 'out, a symlink'
rm out
mkdir -p out/b
cd out/b || exit 99
for mode in --rev=HEAD --staged; do
	run_forge verify $mode -- sh -c 'pwd -P; : >written'
	is "$mode, a symlink on the way: exit 125" "$rc" 125
	like "$mode: forge says why" "$err" \
	    'cannot run the command in out/b in the copy: it is no directory there, or lies beyond a symlink'
	like "$mode: an ERROR" "$err" 'Verdict: ERROR'
	is "$mode: nothing was made or written outside the copy" \
	    "$(ls -A "$T/outside")" ""
done
cd "$T/sl" || exit 99
git rm -q --cached out
printf 'out\n' >.gitignore
git add .gitignore && git commit -q -m 'out, ignored'
run_forge verify --incremental -- sh -c 'rm -rf out && ln -s "$1" out' sh \
    "$T/outside"
is "a command leaves a symlink among the copy's ignored files" "$rc" 0
cd out/b || exit 99
run_forge verify --incremental -- sh -c 'pwd -P; : >written'
is "--incremental, the command's symlink on the way: exit 125" "$rc" 125
is "--incremental: nothing was made or written outside the copy" \
    "$(ls -A "$T/outside")" ""
cd "$T/sl" || exit 99
forge gc --all >/dev/null 2>&1
cd "$T/r" || exit 99

is "the source is untouched" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
