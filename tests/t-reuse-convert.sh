#!/bin/sh
# A reused copy where git converts bytes (line endings, filters) ends
# with the bytes a fresh copy has: when git's settings or HEAD's
# attributes change between runs, every tracked file is checked out
# again; when a command rewrote a file to other bytes of the same blob
# and staged it in the copy's own index, that file is.  Files nothing
# touched are not rewritten, and an incremental copy's files whose bytes
# stay the same keep their times.  Each check: the reused run's verdict
# is the fresh one's, and at the end its files are, byte for byte.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
printf 'a\nb\n' >f.txt
printf 'one line, no newline' >g.txt
git add f.txt g.txt
git commit -q -m files
NOCR='! grep -q "$(printf "\r")" f.txt'
CR='grep -q "$(printf "\r")" f.txt'

# as_fresh DESCRIPTION MODE CMD: a run with MODE (--reuse, --incremental),
# then a fresh one: the same verdict.
as_fresh() {
	run_forge verify "$2" -- sh -c "$3"
	_a=$rc
	run_forge verify --isolated --no-reuse -- sh -c "$3"
	is "$1" "$_a" "$rc"
}

for mode in --reuse --incremental; do
	run_forge verify "$mode" -- sh -c "$NOCR"
	is "$mode: a first run passes" "$rc" 0
	run_forge verify "$mode" -- sh -c "$NOCR"
	like "$mode: and reuses its copy" "$err" 'Verdict: PASS \(isolated, (reused|incremental)'
	git config core.autocrlf true
	as_fresh "$mode: core.autocrlf set since: CRLF, as in a fresh copy" \
	    "$mode" "$NOCR"
	as_fresh "$mode: and again" "$mode" "$CR"
	git config --unset core.autocrlf
	as_fresh "$mode: unset since: LF again" "$mode" "$NOCR"
	printf 'f.txt text eol=crlf\n' >.gitattributes
	git add .gitattributes
	git commit -q -m crlf
	as_fresh "$mode: an attributes file committed since: CRLF" "$mode" "$CR"
	git rm -q .gitattributes
	git commit -q -m lf
	as_fresh "$mode: and removed: LF" "$mode" "$NOCR"
	forge gc --all >/dev/null 2>&1
done

# A command rewrites a file with other bytes of the same blob, and stages
# it: the copy's own index then takes it for checked out.
printf '* text=auto\n' >.gitattributes
git add .gitattributes
git commit -q -m auto
DIRTY='grep -q "$(printf "\r")" f.txt; st=$?; printf "a\r\nb\r\n" >f.txt;
    git add f.txt; exit $st'
for mode in --reuse --incremental; do
	run_forge verify "$mode" -- sh -c "$DIRTY"
	is "$mode: text=auto, a command leaves CRLF staged: LF first" "$rc" 1
	as_fresh "$mode: LF again, as fresh" "$mode" "$DIRTY"
	as_fresh "$mode: and again" "$mode" "$DIRTY"
	forge gc --all >/dev/null 2>&1
done
git config core.autocrlf true
LFDIRTY='grep -q "$(printf "\r")" f.txt; st=$?; printf "a\nb\n" >f.txt;
    git add f.txt; exit $st'
run_forge verify --reuse -- sh -c "$LFDIRTY"
is "core.autocrlf: a command leaves LF staged: CRLF first" "$rc" 0
as_fresh "CRLF again, as fresh" --reuse "$LFDIRTY"
git config --unset core.autocrlf
forge gc --all >/dev/null 2>&1

# Only what may have changed is checked out again.
printf 'c\n' >h.txt
git add h.txt
git commit -q -m h
STAT="$(unaudited 'stat -c "%y" f.txt h.txt >"$1"'); touch h.txt"
run_forge verify --reuse -- sh -c "$STAT" sh "$T/s1"
sleep 1
run_forge verify --reuse -- sh -c "$STAT" sh "$T/s2"
sleep 1
run_forge verify --reuse -- sh -c "$STAT" sh "$T/s3"
is "a file nothing touched is not written again" \
    "$(sed -n 1p "$T/s3")" "$(sed -n 1p "$T/s1")"
ok "one the command touched is" test "$(sed -n 2p "$T/s3")" != \
    "$(sed -n 2p "$T/s2")"
forge gc --all >/dev/null 2>&1

# An incremental copy: a file whose bytes the new setting leaves as they
# were keeps its time (only what changed is rebuilt).
MT=$(unaudited 'stat -c "%y" g.txt >"$1"')
run_forge verify --incremental -- sh -c "$MT" sh "$T/g1"
sleep 1
git config core.autocrlf true
run_forge verify --incremental -- sh -c "$MT; $CR" sh "$T/g2"
is "core.autocrlf set: the incremental copy has CRLF" "$rc" 0
is "a file of one line without a newline keeps its time" \
    "$(cat "$T/g2")" "$(cat "$T/g1")"
git config --unset core.autocrlf
forge gc --all >/dev/null 2>&1

# How git converts is its version's: under another git, every file is
# checked out again, as where a setting changed.
git config core.autocrlf true
other_git "$T/vgit" "$T/other-version"
oldpath=$PATH
PATH="$T/vgit:$PATH"
MT=$(unaudited 'stat -c "%y" f.txt >"$1"')
run_forge verify --reuse -- sh -c "$MT" sh "$T/v1"
sleep 1
run_forge verify --reuse -- sh -c "$MT" sh "$T/v2"
is "under the same git, a file nothing touched is not written again" \
    "$(cat "$T/v2")" "$(cat "$T/v1")"
: >"$T/other-version"
run_forge verify --reuse -- sh -c "$MT; $CR" sh "$T/v3"
is "under another version of git: the run passes" "$rc" 0
ok "and every file is checked out again" \
    test "$(cat "$T/v3")" != "$(cat "$T/v2")"
PATH=$oldpath
git config --unset core.autocrlf

# Byte for byte, after each change and whatever the last run's command
# did (kept_as_fresh): CRLF committed before the attributes, then
# renormalized; an attributes file in a subdirectory that changes how an
# unchanged blob is checked out; ident after HEAD moves; core.autocrlf
# flipped; attributes only in info/attributes; a filter's clean command
# changed.  A smudge command is never reused: forge says so.
new_repo "$T/w"
git config forge.breakerThreshold 0
printf 'zz-own/\n' >>.git/info/exclude
printf 'one\r\ntwo\r\n' >dos.txt
printf 'version $Id$\n' >id.txt
mkdir sub
printf 'sub\n' >sub/s.txt
git add -A
git commit -q -m 'before attributes'
# each DESCRIPTION: both modes, byte for byte: as the change finds the
# copy (untouched since the last run), then as the command left it.
each() {
	for mode in --reuse --incremental; do
		kept_as_fresh "$1" "$mode"
		KEPT_QUIET=1
		kept_as_fresh "$1, after a build" "$mode"
		KEPT_QUIET=
	done
}
for mode in --reuse --incremental; do
	run_forge verify "$mode" -- true
done
printf '* text=auto eol=lf\n*.txt ident\n' >.gitattributes
each "text=auto, not committed"
git add .gitattributes
git commit -q -m attributes
each "text=auto, ident, committed"
git add --renormalize . >/dev/null 2>&1
each "renormalized, staged"
git commit -q -m renormalized
printf '*.txt text eol=crlf\n' >sub/.gitattributes
git add sub/.gitattributes
git commit -q -m sub
each "an attributes file in a subdirectory, the blob unchanged"
printf 'more\n' >>hello.txt
git commit -q -am 'HEAD moves'
each "ident, after HEAD moved"
git config core.autocrlf true
each "core.autocrlf set"
git config core.autocrlf false
each "core.autocrlf false"
git rm -q .gitattributes sub/.gitattributes
git commit -q -m 'no attributes'
printf 'sub/s.txt eol=crlf\n' >.git/info/attributes
each "attributes only in info/attributes"
rm .git/info/attributes
printf 'hello.txt filter=up\n' >.gitattributes
git add .gitattributes
git commit -q -m filter
git config filter.up.clean cat
each "a clean command"
git config filter.up.clean 'cat -'
each "the clean command changed"
git config filter.up.smudge cat
KEPT_FRESH=1
each "a smudge command: made fresh"
like "saying why" "$kept_err" \
    'not reused: git checks out files of it through a filter command'
KEPT_FRESH=
git config --unset filter.up.smudge
for mode in --reuse --incremental; do
	run_forge verify "$mode" -- true
done
each "no smudge command any more"
forge gc --all >/dev/null 2>&1

# A file forge wrote into the copy (a change of the working state's,
# copied as the working tree has it) is not what a checkout writes: it
# is checked out again at the next run, not taken for git's.  Committed
# since, with core.autocrlf the working tree's LF file is the same blob,
# and the copy's index already has it; a fresh copy has CRLF: a file
# whose blob is HEAD's is as a checkout writes it, whatever its stat
# data says.
new_repo "$T/w"
git config forge.breakerThreshold 0
printf 'a\n' >w.txt
git add w.txt
git commit -q -m w
git config core.autocrlf true
printf 'b\n' >w.txt
WCR='grep -q "$(printf "\r")" w.txt'
for mode in --reuse --incremental; do
	git reset -q --hard HEAD
	printf 'b\n' >w.txt
	run_forge verify "$mode" -- sh -c "! $WCR"
	is "$mode: a changed file, the working tree's LF bytes" "$rc" 0
	git commit -q -am "b $mode" 2>/dev/null
	# Written again, its stat data other than its entry's: git diff-index
	# lists it, git diff does not (its blob is HEAD's).
	printf 'b\n' >w.txt
	touch -m -d "@$(($(date +%s) + 5))" w.txt
	run_forge verify "$mode" -- sh -c "$WCR"
	is "$mode: committed since: CRLF, checked out again" "$rc" 0
	like "$mode: in the reused copy" "$err" \
	    "Verdict: PASS \\(isolated, (reused|incremental)"
	run_forge verify --no-reuse -- sh -c "$WCR"
	is "$mode: as in a fresh copy" "$rc" 0
	forge gc --all >/dev/null 2>&1
	printf 'a\n' >w.txt
	git commit -q -am "a again $mode" 2>/dev/null
done

done_testing
