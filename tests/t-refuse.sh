#!/bin/sh
# Where forge verify refuses to work: outside a repository, in a bare
# one, inside the git directory, before the first commit.  Each refusal
# exits 125 with a message saying why, and runs nothing.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

# No repository above $T may count: the test must not depend on where
# the temporary directory lives.
GIT_CEILING_DIRECTORIES=$T
export GIT_CEILING_DIRECTORIES

# refused NAME MODE PATTERN: forge verify MODE, which would create a
# marker, must exit 125 with a message matching PATTERN and no verdict.
refused() {
	_m="$T/ran.$1"
	run_forge verify $2 -- sh -c ': >"$1"' sh "$_m"
	is "$1, $2: exit status 125" "$rc" 125
	like "$1, $2: says why" "$err" "$3"
	unlike "$1, $2: no verdict is claimed" "$err" 'Verdict: PASS'
	not_ok "$1, $2: the command did not run" test -e "$_m"
	is "$1, $2: nothing on stdout" "$out" ""
}

# Outside any repository.
mkdir "$T/plain"
cd "$T/plain" || exit 99
refused outside --isolated 'not a git repository'
refused outside --in-place 'not a git repository'
# Configured steps cannot be found without a repository either.
run_forge verify --isolated
is "outside, no command: exit status 125" "$rc" 125
is "outside: nothing was created here" "$(ls -A "$T/plain")" ""

# A bare repository, with commits.
new_repo "$T/r"
git clone -q --bare "$T/r" "$T/bare.git" || exit 99
cd "$T/bare.git" || exit 99
git config --add forge.verify ': >"$HOME/ran.bare-steps"'
before=$("$TREELIST" -a -m "$T/bare.git")
refused bare --isolated 'bare repository'
refused bare --in-place 'bare repository'
run_forge verify
is "bare, configured steps: exit status 125" "$rc" 125
not_ok "bare, configured steps: did not run" test -e "$HOME/ran.bare-steps"
is "bare: the repository is unchanged" \
    "$("$TREELIST" -a -m "$T/bare.git")" "$before"
cd "$T/bare.git/refs" || exit 99
refused bare-subdir --isolated 'bare repository'

# Inside the .git directory of a repository with a working tree.
cd "$T/r/.git" || exit 99
before=$(state_at "$T/r")
refused dotgit --isolated 'not inside a working tree'
refused dotgit --in-place 'not inside a working tree'
cd "$T/r/.git/objects" || exit 99
refused dotgit-objects --isolated 'not inside a working tree'
is "inside .git: the repository is unchanged" "$(state_at "$T/r")" "$before"
is "inside .git: nothing is left behind" "$(leftovers "$T/r")" ""

# A repository whose HEAD is unborn, with files staged and untracked.
git init -q "$T/unborn" || exit 99
cd "$T/unborn" || exit 99
printf 'staged\n' >staged.txt
printf 'loose\n' >loose.txt
git add staged.txt
before=$(state_at "$T/unborn")
refused unborn --isolated 'no commit yet'
refused unborn --in-place 'no commit yet'
mkdir sub
cd sub || exit 99
refused unborn-subdir --isolated 'no commit yet'
cd "$T/unborn" || exit 99
rmdir sub
is "unborn: the repository is unchanged" "$(state_at "$T/unborn")" "$before"
is "unborn: nothing is left behind" "$(leftovers "$T/unborn")" ""
not_ok "unborn: no harness state was written" test -e .git/forge

# A path with a newline: git's answer, a line each, cannot be read, and
# one of its lines could pass for HEAD's commit id.  Refused, with HEAD
# a commit or unborn, in a subdirectory or at a working tree's top.
oid=$(git -C "$T/r" rev-parse HEAD)
nl='
'
for h in born unborn; do
	git init -q "$T/nl-$h" || exit 99
	[ $h = unborn ] || git -C "$T/nl-$h" commit -q --allow-empty -m c ||
	    exit 99
	d="$T/nl-$h/a$nl$oid"
	mkdir "$d" || exit 99
	cd "$d" || exit 99
	refused "newline in the subdirectory, $h" --isolated 'holds a newline'
	w="$T/wt-$h$nl$oid"
	mkdir "$w" || exit 99
	cd "$w" || exit 99
	GIT_DIR="$T/nl-$h/.git" GIT_WORK_TREE="$w"
	export GIT_DIR GIT_WORK_TREE
	refused "newline in the working tree's path, $h" --isolated \
	    'holds a newline'
	# At its end: the line of the path is followed by an empty one,
	# beside a directory of the path without it -- which the caller's
	# object directory, without HEAD's commit, must not let through.
	w="$T/end-$h$nl"
	mkdir "$w" "$T/end-$h" || exit 99
	printf 'other\n' >"$T/end-$h/other"
	cd "$w" || exit 99
	GIT_WORK_TREE="$w"
	refused "a newline ending the working tree's path, $h" --isolated \
	    'holds a newline'
	mkdir -p "$T/no-objects"
	GIT_OBJECT_DIRECTORY="$T/no-objects"
	export GIT_OBJECT_DIRECTORY
	refused "the same, with the caller's empty object directory, $h" \
	    --isolated 'holds a newline'
	unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY
done
cd "$T/r" || exit 99
is "newlines: nothing is left behind" \
    "$(leftovers "$T/nl-born")$(leftovers "$T/nl-unborn")" ""

# HEAD is found in the repository itself, whatever the caller's object
# directory holds.
GIT_OBJECT_DIRECTORY="$T/no-objects"
export GIT_OBJECT_DIRECTORY
run_forge verify --isolated -- git rev-parse HEAD
unset GIT_OBJECT_DIRECTORY
is "a caller's empty object directory: the run passes" "$rc" 0
is "a caller's empty object directory: HEAD is the repository's" "$out" \
    "$oid"

done_testing
