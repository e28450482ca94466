#!/bin/sh
# A sparse checkout stays sparse: the copy holds what the working tree
# holds, and the paths outside the patterns stay absent.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
if ! git_at_least 2 36; then
	# Before git 2.36 a new worktree does not carry the sparse patterns:
	# forge refuses a sparse checkout, and says why.
	{ git sparse-checkout init && git sparse-checkout set src; } \
	    >/dev/null 2>&1 || exit 99
	run_forge verify --isolated -- true
	is "before git 2.36, a sparse checkout is refused" "$rc" 125
	like "with the reason" "$err" \
	    'is a sparse checkout: forge needs git 2\.36 or later to copy one'
	run_forge verify --in-place -- true
	is "in place, it runs" "$rc" 0
	# The setting bare, without "= true" (git takes it for true).
	f=$(git config --show-origin --get core.sparseCheckout |
	    sed 's/^file:\([^	]*\)	.*/\1/')
	git config --file "$f" --unset core.sparseCheckout || exit 99
	printf '[core]\n\tsparseCheckout\n' >>"$f"
	is "git takes the bare setting for true" \
	    "$(git config --bool core.sparseCheckout)" true
	run_forge verify --isolated -- true
	is "set bare, it is refused all the same" "$rc" 125
	skip "a sparse checkout is copied and proved" \
	    "git $GIT_VERSION: worktrees carry sparse patterns from 2.36 on"
	done_testing
	exit
fi
mkdir -p dir/deeper outside/deeper
printf 'in the cone\n' >dir/a.txt
printf 'in the cone\n' >dir/deeper/b.txt
printf 'outside\n' >outside/o.txt
printf 'outside\n' >outside/deeper/p.txt
git add -A && git commit -q -m sparse || exit 99
ok "git sparse-checkout set dir" git sparse-checkout set dir
ok "the working tree lost the paths outside the cone" test ! -e outside
printf 'edited in the cone\n' >>dir/a.txt
printf 'untracked in the cone\n' >dir/new.txt
printf 'untracked at the top\n' >top-new.txt
printf 'staged\n' >dir/deeper/staged.txt
git add dir/deeper/staged.txt
copy_is_working_state "sparse checkout"
ok "the copy lacks the paths outside the cone" copy_lacks outside
ok "the copy lacks src, outside the cone too" copy_lacks src
ok "the edit in the cone arrived" copy_has dir/a.txt f
ok "the untracked file in the cone arrived" copy_has dir/new.txt f
ok "the files at the top level (always in a cone) are there" \
    copy_has hello.txt f

# A file outside the patterns that is on disk all the same (git then
# clears its skip-worktree bit) is copied: with the committed content, and
# edited.
mkdir -p outside
printf 'outside\n' >outside/o.txt
copy_is_working_state "a committed file outside the cone, on disk"
ok "the file on disk outside the cone arrived" copy_has outside/o.txt f
ok "the rest of outside/ did not" copy_lacks outside/deeper
printf 'edited outside the cone\n' >outside/o.txt
copy_is_working_state "an edited file outside the cone"
ok "the edited file outside the cone arrived" copy_has outside/o.txt f
# Deleted once git status has cleared its skip-worktree bit (git status
# says so): the deletion is the working state's.  The copy, checked out
# sparse, had no such file for git apply to delete, and forge stopped:
# the entry is checked out there first, as the source's is no longer
# skip-worktree, and the patch deletes it.
git status >/dev/null 2>&1
rm outside/o.txt
is "git status says the file outside the cone is deleted" \
    "$(git status --porcelain -- outside)" " D outside/o.txt"
copy_is_working_state "a file outside the cone, on disk once, deleted"
ok "the file deleted outside the cone is not in the copy" \
    copy_lacks outside/o.txt
git checkout -q -- outside/o.txt 2>/dev/null

# Non-cone patterns.
new_repo "$T/nocone"
mkdir -p keep drop
printf 'k\n' >keep/k.txt
printf 'd\n' >drop/d.txt
printf 'k\n' >keep/k.skip
git add -A && git commit -q -m files || exit 99
git sparse-checkout set --no-cone '/keep/' '!/keep/*.skip' '/hello.txt' \
    >/dev/null 2>&1
ok "the non-cone checkout dropped its paths" test ! -e drop/d.txt
printf 'edited\n' >>keep/k.txt
copy_is_working_state "non-cone sparse checkout"
ok "the excluded file stayed out" copy_lacks keep/k.skip
ok "the paths outside stayed out" copy_lacks drop

done_testing
