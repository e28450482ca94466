#!/bin/sh
# The verdict cache and the bytes git converts: a tree id holds one blob
# for a file with LF and with CRLF line endings (text, eol, core.autocrlf)
# or before and after a filter, so the key holds how git converts (its
# settings, the attributes files outside the tree) and, for a copy of the
# working state, the bytes of the files it takes as they are; in place,
# where git may convert, there is no cache.  Each check: what a fresh run
# fails is never a cached PASS.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

unset XDG_CONFIG_HOME
new_repo "$T/r"
git config forge.breakerThreshold 0
git config forge.cache true
printf 'a\nb\n' >f.txt
git add f.txt
git commit -q -m lf
NOCR='! grep -q "$(printf "\r")" "$0"'

# verdicts DESCRIPTION WANT FILE forge-args...: a run that may use the
# cache, then a fresh one; WANT: their verdicts, "PASS FAIL" say, with
# "cached" for a replayed PASS.
verdicts() {
	_d=$1
	_want=$2
	_f=$3
	shift 3
	run_forge verify "$@" -- sh -c "$NOCR" "$_f"
	_a=$(printf '%s\n' "$err" | sed -n 's/.*Verdict: \([A-Z]*\) (\(cached\)\{0,1\}.*/\1\2/p')
	run_forge verify --no-cache "$@" -- sh -c "$NOCR" "$_f"
	_b=$(printf '%s\n' "$err" | sed -n 's/.*Verdict: \([A-Z]*\) .*/\1/p')
	is "$_d" "$_a $_b" "$_want"
}

verdicts "a first run passes" "PASS PASS" f.txt --isolated
verdicts "and is cached" "PASScached PASS" f.txt --isolated
git config core.autocrlf true
verdicts "core.autocrlf set: not cached, and it fails" "FAIL FAIL" f.txt \
    --isolated
git config --unset core.autocrlf
verdicts "unset: the PASS of before" "PASScached PASS" f.txt --isolated

printf '* text eol=crlf\n' >.git/info/attributes
verdicts "info/attributes: not cached, and it fails" "FAIL FAIL" f.txt \
    --isolated
rm .git/info/attributes
mkdir -p "$HOME/.config/git"
printf '*.txt text eol=crlf\n' >"$HOME/.config/git/attributes"
verdicts "the global attributes file: not cached" "FAIL FAIL" f.txt \
    --isolated
rm "$HOME/.config/git/attributes"
printf '*.txt text eol=crlf\n' >"$T/attrs"
git config core.attributesFile "$T/attrs"
verdicts "core.attributesFile: not cached" "FAIL FAIL" f.txt --isolated
printf '*.txt -text\n' >"$T/attrs"
verdicts "the content of that file counts" "PASS PASS" f.txt --isolated
git config --unset core.attributesFile

# A filter: its settings are in the key.
printf '*.txt filter=up\n' >.git/info/attributes
git config filter.up.smudge cat
git config filter.up.clean cat
verdicts "a filter that changes nothing passes" "PASS PASS" f.txt --isolated
verdicts "cached" "PASScached PASS" f.txt --isolated
git config filter.up.smudge 'awk '\''{ printf "%s\r\n", $0 }'\'''
verdicts "another smudge command: not cached" "FAIL FAIL" f.txt --isolated
rm .git/info/attributes
git config --remove-section filter.up

# --rev: the commit's tree, checked out with the repository's settings.
verdicts "--rev passes" "PASS PASS" f.txt --rev=HEAD
verdicts "cached" "PASScached PASS" f.txt --rev=HEAD
printf '* text eol=crlf\n' >.git/info/attributes
verdicts "--rev, info/attributes: not cached" "FAIL FAIL" f.txt --rev=HEAD
rm .git/info/attributes

# text=auto: LF in the blob, whatever the working tree has.
printf '* text=auto\n' >.gitattributes
git add .gitattributes
git commit -q -m auto
verdicts "text=auto, in a copy: passes" "PASS PASS" f.txt --isolated
verdicts "cached" "PASScached PASS" f.txt --isolated
# An untracked file the copy takes as it is.
printf 'x\ny\n' >u.txt
verdicts "an untracked file: passes" "PASS PASS" u.txt --isolated
verdicts "cached" "PASScached PASS" u.txt --isolated
printf 'x\r\ny\r\n' >u.txt
ok "its CRLF is the same blob" sh -c \
    '[ "$(git hash-object u.txt)" = "$(printf "x\ny\n" | git hash-object --stdin)" ]'
verdicts "rewritten with CRLF: not cached, it fails" "FAIL FAIL" u.txt \
    --isolated
rm u.txt

# In place, the command reads the working tree's bytes.
run_forge verify --in-place -- sh -c "$NOCR" f.txt
is "in place, text=auto: passes" "$rc" 0
like "without the cache, said" "$err" \
    'not using the verdict cache: git may convert'
printf 'a\r\nb\r\n' >f.txt
ok "an editor's CRLF: git sees no change" git diff --quiet
verdicts "in place: not cached, it fails" "FAIL FAIL" f.txt --in-place
git checkout -q -- f.txt

done_testing
