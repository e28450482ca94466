#!/bin/sh
# An untracked repository nested in the working tree arrives with its own
# working state; one without a commit is left out with a warning, and the
# verification goes on.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
git init -q nested || exit 99
(
	cd nested &&
	printf 'n\n' >n.txt && printf '*.log\n' >.gitignore &&
	mkdir -p lib && printf 'l\n' >lib/l.txt &&
	git add -A && git commit -q -m n
) || exit 99
printf 'nested: edit\n' >>nested/n.txt
printf 'nested: untracked\n' >nested/u.txt
printf 'nested: ignored\n' >nested/debug.log
git -C nested rm -q lib/l.txt
mkdir -p deep/er
git init -q deep/er/repo || exit 99
(
	cd deep/er/repo && printf 'd\n' >d.txt && git add -A &&
	git commit -q -m d && printf 'staged\n' >>d.txt && git add d.txt
) || exit 99
printf 'super: edit\n' >>hello.txt
copy_is_working_state "untracked nested repositories" nested deep/er/repo
ok "the nested repository's edit arrived" copy_has nested/n.txt f
ok "its untracked file arrived" copy_has nested/u.txt f
ok "its ignored file did not" copy_lacks nested/debug.log
ok "the file it deleted did not" copy_lacks nested/lib/l.txt
ok "the deeper one arrived" copy_has deep/er/repo/d.txt f

# A nested repository without a commit: left out, with a warning.
git init -q fresh || exit 99
printf 'not committed anywhere\n' >fresh/f.txt
copy_is_working_state "a nested repository without a commit" nested \
    deep/er/repo
like "a warning names the repository left out" "$err" \
    'leaving out fresh: a nested repository without a commit'
ok "its file is not in the copy" copy_lacks fresh/f.txt

done_testing
