#!/bin/sh
# Nested repositories where git converts bytes -- a submodule whose
# attributes turn line endings and expand $Id$, an untracked repository
# nested in the working tree with core.autocrlf of its own -- are parked
# with the copy they are in and taken back by the next run, the working
# state's and the staged tree's, their files a fresh copy's byte for
# byte: after each change and whatever the last run's command did to
# them.  A file nothing touched is not written again, nor, in an
# incremental copy, one whose bytes stay the same.  One whose filter
# cannot be redone is copied afresh each time, the top copy reused.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

init_repo "$T/lib-up"
(
	cd "$T/lib-up" &&
	printf '*.txt text eol=crlf ident\n' >.gitattributes &&
	printf 'lib $Id$\n' >lib.txt &&
	printf 'keep\n' >keep.txt &&
	git add -A 2>/dev/null && git commit -q -m lib
) || exit 99
new_repo "$T/r"
git config forge.breakerThreshold 0
printf 'zz-own/\n' >>.git/info/exclude
git -c protocol.file.allow=always submodule -q add "$T/lib-up" lib ||
    exit 99
git commit -q -m lib || exit 99
init_repo inner
(
	cd inner && git config core.autocrlf true &&
	printf 'a\nb\n' >a.txt && printf 'keep\n' >keep.txt &&
	printf 'one line, no newline' >nl.txt &&
	git add -A 2>/dev/null && git commit -q -m inner
) || exit 99
ok "lib's files are checked out with CRLF" grep -q "$(printf '\r')" lib/lib.txt

# all DESCRIPTION: the working state and the staged tree, both modes,
# byte for byte: as the change finds the copy, then as the command left
# it.
all() {
	for mode in --reuse --incremental; do
		for src in "" --staged; do
			kept_as_fresh "$1, ${src:-the working state}" "$mode" \
			    $src
			KEPT_QUIET=1
			kept_as_fresh "$1, ${src:-the working state}, after a build" \
			    "$mode" $src
			KEPT_QUIET=
		done
	done
}

# kept_times MODE [FLAG]: what a run in MODE finds of the files no
# command touches.
kept_times() {
	run_forge verify "$@" -- sh -c \
	    'stat -c "%n %y" lib/keep.txt inner/keep.txt 2>/dev/null; true'
	printf '%s\n' "$out"
}

for mode in --reuse --incremental; do
	run_forge verify "$mode" -- true
	run_forge verify "$mode" --staged -- true
done
all "a submodule and a nested repository that convert"
for mode in --reuse --incremental; do
	t1=$(kept_times "$mode")
	like "$mode: the nested files are there" "$t1" 'inner/keep.txt'
	is "$mode: a file nothing touched is not written again" \
	    "$(kept_times "$mode")" "$t1"
	t1=$(kept_times "$mode" --staged)
	like "$mode --staged: the submodule's files are there" "$t1" \
	    'lib/keep.txt'
	is "$mode --staged: a file nothing touched is not written again" \
	    "$(kept_times "$mode" --staged)" "$t1"
done

(cd lib && printf '*.txt text eol=lf\n' >.gitattributes &&
    git commit -q -am 'lf now') || exit 99
all "the submodule's attributes changed, its blobs not"
git add lib && git commit -q -m 'lib lf'
all "and committed"
printf 'more $Id$\n' >>lib/lib.txt
all "a file of the submodule changed"
# An incremental copy's file whose bytes a new setting leaves as they
# were keeps its time, in a nested repository too.
run_forge verify --incremental -- true
run_forge verify --incremental -- stat -c %y inner/nl.txt
t1=$out
git -C inner config core.autocrlf false
run_forge verify --incremental -- sh -c \
    'stat -c %y inner/nl.txt; ! grep -q "$(printf "\r")" inner/a.txt'
is "core.autocrlf unset in inner: its copy has LF" "$rc" 0
is "a file of one line without a newline keeps its time" "$out" "$t1"
all "inner's core.autocrlf unset"
git -C inner config core.autocrlf true
printf 'c\r\n' >>inner/a.txt
all "and set again, CRLF content in the working tree"

# A filter whose smudge command cannot be shown to be the same each time:
# that repository's copy is made afresh, the rest reused.
printf '*.txt filter=twice\n' >inner/.gitattributes
git -C inner add .gitattributes
git -C inner commit -q -m filter
git -C inner config filter.twice.smudge cat
git -C inner config filter.twice.clean cat
all "inner checks out through a smudge command"
for mode in --reuse --incremental; do
	t1=$(kept_times "$mode")
	t2=$(kept_times "$mode")
	is "$mode: lib's untouched file is kept" \
	    "$(printf '%s\n' "$t2" | grep lib/)" \
	    "$(printf '%s\n' "$t1" | grep lib/)"
	n_inner=$(printf '%s\n%s\n' "$t1" "$t2" | grep -c inner/ || true)
	is "$mode: inner is there each time" "$n_inner" 2
	ok "$mode: inner's copy is made afresh" test \
	    "$(printf '%s\n' "$t2" | grep inner/)" != \
	    "$(printf '%s\n' "$t1" | grep inner/)"
done
git -C inner config --unset filter.twice.smudge
all "and not any more"

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""
done_testing
