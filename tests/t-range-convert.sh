#!/bin/sh
# A range whose commits git converts -- CRLF content committed before
# `* text=auto`, then renormalized; an attributes file in a subdirectory
# that changes how unchanged blobs are checked out, then removed; ident
# after HEAD moves; core.autocrlf and info/attributes, from one range to
# the next -- carries one copy from commit to commit, each commit's
# files those of a fresh copy of it byte for byte, whatever the last
# commit's steps did to them (every tracked file given other bytes of
# its blob and staged, its time put back), or with nothing done to them
# (only how git converts changed).  A filter git runs a smudge
# command of is not carried: each commit gets a fresh copy, saying why.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
printf 'zz-own/\n' >>.git/info/exclude
base=$(git rev-parse HEAD)
range_commit() {
	git add -A 2>/dev/null
	git commit -q --allow-empty -m "$1" 2>/dev/null
}
printf 'one\r\ntwo\r\n' >dos.txt
printf 'version $Id$\n' >id.txt
mkdir sub
printf 'sub\n' >sub/s.txt
range_commit 'CRLF content, no attributes'
printf '* text=auto\n*.txt ident\n' >.gitattributes
range_commit 'text=auto, ident'
printf 'more\n' >>hello.txt
range_commit 'HEAD moves'
git add --renormalize . >/dev/null 2>&1
range_commit renormalized
printf '*.txt text eol=crlf\n' >sub/.gitattributes
range_commit 'sub/s.txt checked out with CRLF, its blob the same'
printf 'two $Id$\n' >>id.txt
range_commit 'ident, the blob changed'
rm sub/.gitattributes
range_commit 'sub/.gitattributes gone'
git rm -q .gitattributes
range_commit 'no attributes'
printf '* text eol=crlf\n' >.gitattributes
range_commit 'every file CRLF'
n=$(git rev-list --count "$base..HEAD")
kept_script

# The fresh copy of each commit, listed into $T/fresh/.
fresh_lists() {
	rm -rf "$T/fresh"
	mkdir "$T/fresh"
	for c in $(git rev-list "$base..HEAD"); do
		forge verify --rev="$c" --no-reuse -- sh "$T/.kept.sh" \
		    "$T/fresh/$c" quiet >/dev/null 2>&1
	done
}

# ranges DESCRIPTION: the range, carried and carried incremental, each
# commit's copy listed as the fresh one is.
ranges() {
	fresh_lists
	is "$1: a fresh copy of each commit" \
	    "$(ls "$T/fresh" | wc -l | tr -d ' ')" "$n"
	for mode in "" --incremental "quiet" "quiet --incremental"; do
		rm -rf "$T/kept"
		mkdir "$T/kept"
		# shellcheck disable=SC2086 # the mode, split on purpose
		run_forge verify --rev="$base..HEAD" --keep-going \
		    ${mode#quiet} -- sh -c \
		    'sh "$1" "$2/$(git rev-parse HEAD)" $3' sh "$T/.kept.sh" \
		    "$T/kept" "$(case $mode in quiet*) echo quiet ;; esac)"
		is "$1, ${mode:-plain}: passes" "$rc" 0
		is "$1, ${mode:-plain}: one copy, carried to each commit" \
		    "$(printf '%s\n' "$err" | grep -c 'carried to commit')" \
		    $((n - 1))
		if diff -r "$T/fresh" "$T/kept" >"$T/diff"; then
			pass "$1, ${mode:-plain}: each commit's files a fresh copy's"
		else
			fail "$1, ${mode:-plain}: each commit's files a fresh copy's" \
			    "$(head -n 30 "$T/diff")"
		fi
	done
}

ranges "conversions in the tree"
# An incremental copy's file whose bytes stay the same keeps its time,
# however how git checks out others changes on the way: src/main.c
# changes only in the last commit, which turns every file's line
# endings.
run_forge verify --rev="$base..HEAD" --keep-going --incremental -- \
    stat -c %y src/main.c
printf '%s\n' "$out" | grep '^[0-9]' >"$T/times"
is "--incremental: src/main.c's time, each commit" \
    "$(uniq -c "$T/times" | awk '{ print $1 }' | tr '\n' ' ')" \
    "$((n - 1)) 1 "
ok "a commit's CRLF is checked out with it" \
    grep -q "^sub/s.txt	f	0644	5	" "$T/fresh/$(git rev-parse HEAD~4)"
git config core.autocrlf true
ranges "core.autocrlf set"
git config --unset core.autocrlf
printf 'hello.txt eol=crlf\nsub/s.txt eol=crlf\n' >.git/info/attributes
ranges "info/attributes"
rm .git/info/attributes

# A smudge command: not carried.
printf '*.txt filter=twice\n' >sub/.gitattributes
range_commit 'a filter'
git config filter.twice.smudge cat
git config filter.twice.clean cat
run_forge verify --rev=HEAD~3..HEAD -- true
is "a smudge command: the range passes" "$rc" 0
is "its commit is not carried to" \
    "$(printf '%s\n' "$err" | grep -c 'carried to commit')" 1
like "saying why" "$err" \
    'fresh copy of commit [0-9a-f]{12}: git checks out files of it through a filter command'

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""
done_testing
