#!/bin/sh
# In the middle of a merge that stopped on conflicts, the copy holds each
# unmerged path as it is on disk, conflict markers included, and the
# paths that merged cleanly as they were merged.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
printf '1\n2\n3\n' >both-modified.txt
printf 'base\n' >modify-delete.txt
printf 'base\n' >delete-modify.txt
printf 'base\n' >mode.sh
printf '\000base\n' >binary.bin
git add -A && git commit -q -m base

git checkout -q -b other
printf '1\nother\n3\n' >both-modified.txt
printf 'modified by other\n' >delete-modify.txt
git rm -q modify-delete.txt
printf 'added by other\n' >both-added.txt
printf 'merged cleanly\n' >clean.txt
printf '\000other\n' >binary.bin
chmod +x mode.sh
git add -A && git commit -q -m other

git checkout -q main
printf '1\nmain\n3\n' >both-modified.txt
printf 'modified by main\n' >modify-delete.txt
git rm -q delete-modify.txt
printf 'added by main\n' >both-added.txt
printf '\000main\n' >binary.bin
printf 'main\n' >mode.sh
git add -A && git commit -q -m main

not_ok "the merge stops on conflicts" git merge -q other
like "several kinds of unmerged paths" "$(git status --porcelain)" \
    '^UU both-modified.txt'
like "added by both" "$(git status --porcelain)" '^AA both-added.txt'
like "deleted by them" "$(git status --porcelain)" '^UD modify-delete.txt'
like "deleted by us" "$(git status --porcelain)" '^DU delete-modify.txt'
# Someone is resolving: one conflict edited, not yet added.
printf 'half resolved\n' >>both-added.txt
copy_is_working_state "unmerged paths"
ok "the conflicted file has its markers on disk" \
    grep -q '^<<<<<<< HEAD$' "$T/r/both-modified.txt"
is "and is in the copy as it is on disk" \
    "$(grep '^both-modified\.txt	' "$T/copy.m")" \
    "$(grep '^both-modified\.txt	' "$T/src.m")"
ok "the binary conflict is there too" copy_has binary.bin f
ok "the file merged cleanly is there" copy_has clean.txt f
ok "the file deleted by us and modified by them is there" \
    copy_has delete-modify.txt f

# The command sees the markers too.
run_forge verify --isolated -- grep -q '^>>>>>>> other$' both-modified.txt
is "a command in the copy reads the conflict markers" "$rc" 0

done_testing
