#!/bin/sh
# Tracked files flagged skip-worktree or assume-unchanged are invisible to
# git diff; the copy must still hold what is on disk.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

flagged_repo() {
	new_repo "$1"
	mkdir -p dir
	for f in skip assume skip-gone assume-gone skip-dir assume-dir; do
		printf '%s: committed\n' $f >$f.txt
		printf '%s: committed\n' $f >dir/$f.txt
	done
	printf '#!/bin/sh\n' >skip-mode.sh
	git add -A && git commit -q -m flagged || exit 99
	git update-index --skip-worktree skip.txt dir/skip.txt \
	    skip-gone.txt skip-dir.txt skip-mode.sh
	git update-index --assume-unchanged assume.txt dir/assume.txt \
	    assume-gone.txt assume-dir.txt
}

flagged_repo "$T/r"
printf 'skip: edited on disk\n' >>skip.txt
printf 'skip: edited on disk\n' >dir/skip.txt
printf 'assume: edited on disk\n' >>assume.txt
printf 'assume: rewritten\n' >dir/assume.txt
chmod +x skip-mode.sh
is "git diff does not see the edits" "$(git diff --name-only HEAD)" ""
copy_is_working_state "flagged files modified"
ok "the skip-worktree edit arrived" copy_has skip.txt f
ok "the mode change of a skip-worktree file arrived" \
    copy_has skip-mode.sh f 0755

# Deleted from the working tree: gone from the copy.
flagged_repo "$T/gone"
printf 'skip: edited on disk\n' >>skip.txt
rm skip-gone.txt assume-gone.txt
copy_is_working_state "flagged files deleted"
ok "the deleted skip-worktree file is not in the copy" \
    copy_lacks skip-gone.txt
ok "nor the deleted assume-unchanged one" copy_lacks assume-gone.txt

# Replaced by a directory: the directory's files arrive.
flagged_repo "$T/dir"
rm skip-dir.txt assume-dir.txt
mkdir skip-dir.txt assume-dir.txt
printf 'inside\n' >skip-dir.txt/inside
printf 'inside\n' >assume-dir.txt/inside
copy_is_working_state "flagged files replaced by directories"
ok "the directory's file arrived" copy_has skip-dir.txt/inside f

done_testing
