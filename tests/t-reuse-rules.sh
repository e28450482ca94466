#!/bin/sh
# An incremental copy keeps the ignored files a command made (build
# output), but never one git reads as instructions -- .gitattributes,
# .gitignore, .gitmodules, .lfsconfig, in any directory git enters --
# which would change what git hashes, checks out, lists or cleans there:
# the proof would see the working state's tree where the copy holds other
# bytes, or other files.  Each run's verdict is the one a fresh copy
# gives.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
# Every dot file ignored but .gitignore: what a command leaves of them is
# the copy's own ignored files.
printf '.*\n!.gitignore\n*.o\nbuild/\n' >.gitignore
printf 'hello\n' >f
git add .gitignore f
git commit -q -m 'ignore dot files'

# both_runs NAME: an incremental run, then a fresh one of the same
# command: their exit statuses in $both, the first one's stderr in $ierr.
both_runs() {
	run_forge verify --incremental -- sh "$T/$1"
	both=$rc
	ierr=$err
	run_forge verify --isolated --no-reuse -- sh "$T/$1"
	both="$both $rc"
}

# Attributes: a step that passes only on CRLF bytes, which rewrites f so
# and leaves * text eol=crlf behind.  git would convert CRLF back while
# hashing: the proof would see f as the working tree has it.
cat >"$T/crlf.sh" <<'EOF'
grep -q "$(printf '\r')" f && exit 0
printf '* text eol=crlf\n' >.gitattributes
printf 'hello\r\n' >f
exit 1
EOF
both_runs crlf.sh
is "a first incremental run fails, as a fresh one" "$both" "1 1"
both_runs crlf.sh
is "the next one too: CRLF is not what the working tree has" "$both" "1 1"
like "forge says what it removed" "$ierr" \
    'removed from the incremental copy 1 file of its own that git reads as instructions \(\.gitattributes\)'

# The same attributes file staged in the copy's own index by the step
# (git add -f): what is tracked is what the working state's index says,
# not what the copy's own, the command's to rewrite, does.
cat >"$T/crlf-add.sh" <<'EOF'
grep -q "$(printf '\r')" f && exit 0
printf '* text eol=crlf\n' >.gitattributes
git add -f .gitattributes
printf 'hello\r\n' >f
exit 1
EOF
both_runs crlf-add.sh
both_runs crlf-add.sh
is "one the step staged in the copy's index: as a fresh copy" "$both" "1 1"

# Ignore rules: a .gitignore below that hides a file from git, so that
# git clean keeps it and the proof does not see it.
mkdir -p src
printf 'int main;\n' >src/main.c
git add src/main.c
git commit -q -m src
cat >"$T/shield.sh" <<'EOF'
test -e src/extra.c && exit 0
printf 'extra.c\n' >src/.gitignore
printf 'int extra;\n' >src/extra.c
exit 1
EOF
both_runs shield.sh
both_runs shield.sh
is "a file a stray .gitignore hid is gone at the next run" "$both" "1 1"

# Submodules' and Git LFS's settings go too.
cat >"$T/others.sh" <<'EOF'
found=0
for f in .gitmodules .lfsconfig src/.gitmodules; do
	test -e "$f" && found=1
done
printf '[submodule "x"]\n\tpath = x\n' >.gitmodules
printf '[submodule "y"]\n\tpath = y\n' >src/.gitmodules
printf '[lfs]\n\turl = file:///x\n' >.lfsconfig
exit $found
EOF
both_runs others.sh
both_runs others.sh
is "ignored .gitmodules and .lfsconfig files are gone at the next run" "$both" "0 0"

# One that hid a directory whole hid another rule file in it: listed
# again once the first is gone.
cat >"$T/deep.sh" <<'EOF'
found=0
test -e src/gen/.gitignore && found=1
mkdir -p src/gen
printf 'gen/\n' >src/.gitignore
printf '*\n' >src/gen/.gitignore
printf 'x\n' >src/gen/out.txt
exit $found
EOF
both_runs deep.sh
both_runs deep.sh
is "a rule file in a directory another one hid is found and removed" "$both" "0 0"

# One that hid nothing but let a file through that the working tree
# ignores: an untracked file it has too, kept at first -- ignored once
# the rule file is gone, and no fresh copy has it.
printf 'only here\n' >src/.gitattributes
cat >"$T/letthrough.sh" <<EOF
found=0
test -e src/.gitattributes && found=1
printf '!.gitattributes\n' >src/.gitignore
cp "$T/r/src/.gitattributes" src/.gitattributes
exit \$found
EOF
both_runs letthrough.sh
both_runs letthrough.sh
is "a file a rule file let through is gone at the next run" "$both" "0 0"
rm src/.gitattributes

# A directory that holds nothing but a directory hidden by its own rule
# file: git lists the outer one whole, yet enters both.  As every git
# version lists it.
cat >"$T/nested.sh" <<'EOF'
found=0
test -e src/only/sub/.gitignore && found=1
mkdir -p src/only/sub
printf '*\n' >src/only/sub/.gitignore
printf 'x\n' >src/only/sub/out.txt
exit $found
EOF
both_runs nested.sh
both_runs nested.sh
is "a rule file below a directory git lists whole is found and removed" \
    "$both" "0 0"
like "and said" "$ierr" 'src/only/sub/\.gitignore'

# Build output stays: ignored files, and rule files in a directory git
# ignores whole (a tool's cache keeping a .gitignore of its own), which
# git never reads.  The step lists what it finds of them, and passes
# either way, as in a fresh copy, which has none.
cat >"$T/build.sh" <<'EOF'
ls build/out.o build/.gitignore main.o 2>/dev/null
mkdir -p build
printf 'o\n' >build/out.o
printf '*\n' >build/.gitignore
printf 'o\n' >main.o
exit 0
EOF
run_forge verify --incremental -- sh "$T/build.sh"
run_forge verify --incremental -- sh "$T/build.sh"
is "build output and a rule file in an ignored directory are kept" \
    "$rc $out" "0 $(printf 'build/.gitignore\nbuild/out.o\nmain.o')"
unlike "which forge does not remove" "$err" 'removed from the incremental'

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
