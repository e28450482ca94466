#!/bin/sh
# --staged and --rev copies where git converts bytes are parked and
# reused, their files a fresh copy's byte for byte: after each change --
# CRLF content committed before `* text=auto` and renormalized, an
# attributes file in a subdirectory that changes how an unchanged blob
# is checked out, core.autocrlf flipped, ident after HEAD moves,
# attributes only in info/attributes, a filter's clean command changed
# -- and whatever each run's command did to the copy (every tracked file
# given other bytes of its blob and staged, its time put back).  A file
# git checks out through a smudge or process command is never reused:
# forge says so and makes a fresh copy.  And the commit hook, with
# forge.incremental, reuses its copy on a `* text=auto eol=lf` project
# and on a core.autocrlf one.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
printf 'zz-own/\n' >>.git/info/exclude
# CRLF committed before any attributes: the blob keeps its CRs.
printf 'one\r\ntwo\r\n' >dos.txt
printf 'version $Id$\n' >id.txt
mkdir -p sub
printf 'sub\n' >sub/s.txt
printf 'data\n' >blob.dat
git add -A
git commit -q -m 'before attributes'

# each_source DESCRIPTION: each source and mode, byte for byte: as the change
# finds the copy (untouched since the last run: only how git converts
# changed), then once more as the command left it.
each_source() {
	for src in --staged --rev=HEAD; do
		for mode in --reuse --incremental; do
			kept_as_fresh "$1, $src" "$mode" "$src"
			KEPT_QUIET=1
			kept_as_fresh "$1, $src, after a build" "$mode" "$src"
			KEPT_QUIET=
		done
	done
}

# warm: a copy parked for each kind of source (each has its own) and
# each mode.
warm() {
	for src in --staged --rev=HEAD; do
		for mode in --reuse --incremental; do
			run_forge verify "$mode" "$src" -- true
		done
	done
}
warm
printf '* text=auto eol=lf\n*.txt ident\n*.dat filter=nowhere\n' \
    >.gitattributes
git add .gitattributes
each_source "text=auto eol=lf staged, ident, a filter not configured"
git commit -q -m attributes
each_source "and committed"
ok "the CRLF blob is checked out with its CRs" \
    grep -q "^dos.txt	f	0644	10	" "$T/fresh.m"

git add --renormalize . >/dev/null 2>&1
each_source "renormalized, staged"
git commit -q -m renormalized
printf '*.txt text eol=crlf\n' >sub/.gitattributes
git add sub/.gitattributes
each_source "an attributes file in a subdirectory, sub/s.txt's blob unchanged"
git commit -q -m sub
printf 'other\n' >other.txt
git add other.txt
git commit -q -m 'HEAD moves'
each_source "ident, after HEAD moved"
printf 'version two $Id$\n' >id.txt
git add id.txt
each_source "ident, its blob changed"
git commit -q -m id

git config core.autocrlf true
each_source "core.autocrlf set"
git config core.autocrlf false
each_source "core.autocrlf unset"

git rm -q --cached .gitattributes sub/.gitattributes
rm .gitattributes sub/.gitattributes
git commit -q -m 'no attributes in the tree'
printf '*.txt text eol=crlf\n' >.git/info/attributes
each_source "attributes only in info/attributes"
ok "and they convert" grep -q "^other.txt	f	0644	7	" "$T/fresh.m"
rm .git/info/attributes
each_source "and gone"

# A filter whose checkout passes the blob as it is: its clean command,
# changed, is how git hashes, not what it writes.
printf '*.dat filter=up\n' >.gitattributes
git add .gitattributes
git commit -q -m up
git config filter.up.clean cat
each_source "a filter with a clean command only"
git config filter.up.clean 'cat -'
each_source "its clean command changed"

# A smudge command cannot be shown to write the same bytes twice.
git config filter.up.smudge cat
KEPT_FRESH=1
for src in --staged --rev=HEAD; do
	for mode in --reuse --incremental; do
		kept_as_fresh "a smudge command: fresh, $src" "$mode" "$src"
		like "a smudge command, $src $mode: says why" "$kept_err" \
		    'not reused: git checks out files of it through a filter command'
		unlike "a smudge command, $src $mode: made fresh" "$kept_err" \
		    'running verification in a reused'
	done
done
git config filter.up.smudge 'cat -'
kept_as_fresh "its smudge command changed: fresh still" --incremental --staged
like "saying why" "$kept_err" 'not reused: git checks out files'
git config --unset filter.up.smudge
git config filter.up.process 'never-run'
kept_as_fresh "a process command: fresh" --incremental --staged
like "saying why" "$kept_err" 'not reused: git checks out files'
git config --unset filter.up.process
# Required, with no smudge command: no checkout can be made, fresh or not.
git config filter.up.required true
kept_as_fresh "a required filter: the verdict a fresh copy's" --incremental \
    --staged
like "which is an error" "$kept_err" 'smudge filter up failed'
git config --unset filter.up.required
KEPT_FRESH=
warm
each_source "the filter's clean command alone again: reused"

# The hook: each commit a --staged run, incremental, in the copy the last
# one left, with its build output.
cat >"$T/build.sh" <<'EOF'
n=$(cat zz-own/n 2>/dev/null || echo 0)
mkdir -p zz-own && echo $((n + 1)) >zz-own/n
echo "built after $n" >&2
EOF
for kind in text=auto autocrlf; do
	forge gc --all >/dev/null 2>&1
	new_repo "$T/hook-$kind"
	git config forge.breakerThreshold 0
	printf 'zz-own/\n' >>.git/info/exclude
	if [ "$kind" = text=auto ]; then
		printf '* text=auto eol=lf\n' >.gitattributes
	else
		git config core.autocrlf true
	fi
	printf 'a\r\nb\r\n' >crlf.txt
	git add -A 2>/dev/null
	git commit -q -m start >/dev/null 2>&1
	git config forge.verify "sh $T/build.sh"
	git config forge.incremental true
	forge hook install pre-commit >/dev/null
	printf 'one\n' >>hello.txt
	git commit -q -am one >/dev/null 2>"$T/hook.err"
	is "$kind: a commit through the hook" "$?" 0
	printf 'two\n' >>hello.txt
	git commit -q -am two >/dev/null 2>"$T/hook.err"
	is "$kind: another" "$?" 0
	like "$kind: the hook's copy is reused" "$(cat "$T/hook.err")" \
	    'running verification in a reused incremental copy of the staged tree'
	like "$kind: with its build output" "$(cat "$T/hook.err")" \
	    'built after 1'
	unlike "$kind: no word of not reusing it" "$(cat "$T/hook.err")" \
	    'not reused'
	run_forge verify --incremental -- sh "$T/build.sh"
	run_forge verify --incremental -- sh "$T/build.sh"
	like "$kind: the working state's second incremental run reuses too" \
	    "$err" 'running verification in a reused incremental copy'
	# Side by side: neither kind of run cost the other its copy.
	printf 'three\n' >>hello.txt
	git commit -q -am three >/dev/null 2>"$T/hook.err"
	like "$kind: the next commit still has the hook's copy" \
	    "$(cat "$T/hook.err")" \
	    'running verification in a reused incremental copy of the staged tree'
	like "$kind: its build output too" "$(cat "$T/hook.err")" \
	    'built after 2'
	run_forge verify --incremental -- sh "$T/build.sh"
	like "$kind: and the working state's run still has its own" "$err" \
	    'running verification in a reused incremental copy, brought'
done

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""
done_testing
