#!/bin/sh
# The copy's index mirrors the source's: what is staged there is staged
# in the copy, what is not is not, so git status in the copy says what it
# says in the source (ignored files aside, which the copy lacks).  First
# by hand, then across the random working states of the property test.
#
#	FIDELITY_CASES	how many random cases (default 20)
#	FIDELITY_SEED	the seed of the first (default 1)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"
. "$top_srcdir/tests/fidelity-gen.sh"

# status_same (lib-functions.sh) compares git status, and the staged
# diff's paths, in the copy and here.

new_repo "$T/r"
printf 'a\n' >a.txt
printf 'b\n' >b.txt
printf 'c\n' >c.txt
printf 'd\n' >d.txt
printf 'e\n' >e.txt
git add -A && git commit -q -m more

printf 'staged\n' >>hello.txt
git add hello.txt
status_same "a staged edit"
printf 'unstaged\n' >>hello.txt
status_same "a staged edit, then an unstaged one"
printf 'new\n' >new.txt
git add new.txt
status_same "a staged new file"
git rm -q --cached a.txt
status_same "a staged deletion, the file kept untracked"
git rm -q b.txt
status_same "a staged deletion of the file"
git mv c.txt c2.txt
status_same "a staged rename"
printf 'ita\n' >ita.txt
git add -N ita.txt
status_same "an intent-to-add file"
rm d.txt
status_same "an unstaged deletion"
chmod +x e.txt
git add e.txt
status_same "a staged mode change"
printf 'x\n' >>src/main.c
git update-index --assume-unchanged src/main.c
status_same "an assume-unchanged file, changed"
printf 'y\n' >>run.sh
git update-index --skip-worktree run.sh
status_same "a skip-worktree file, changed"
printf 'untracked\n' >notes.txt
printf 'ignored\n' >x.o
status_same "untracked and ignored files"
printf 'staged new, then deleted\n' >gone.txt
git add gone.txt
rm gone.txt
status_same "a staged new file, deleted since"
git reset -q e.txt
status_same "a staged change unstaged again"

# A submodule whose gitlink is flagged: git status in the source does
# not look into it, nor must it in the copy.
new_repo "$T/sub-up"
new_repo "$T/flagged-link"
git -c protocol.file.allow=always submodule add -q "$T/sub-up" sub ||
    exit 99
git commit -q -m sub || exit 99
printf 'dirty\n' >>sub/hello.txt
git update-index --skip-worktree sub
status_same "a skip-worktree submodule, modified"
git update-index --no-skip-worktree sub
git update-index --assume-unchanged sub
status_same "an assume-unchanged submodule, modified"

# The random working states.
cases=${FIDELITY_CASES:-20}
seed=${FIDELITY_SEED:-1}
cp "$HOME/.gitconfig" "$T/gitconfig"
i=0
while [ $i -lt "$cases" ]; do
	s=$((seed + i))
	i=$((i + 1))
	cd "$T" || exit 99
	cp "$T/gitconfig" "$HOME/.gitconfig"
	chmod -R u+rwx "$T/case" 2>/dev/null
	rm -rf "$T/case" "$T/case.log" "$T/case.tools"
	if ! gen_case "$T/case" "$s"; then
		fail "seed $s: the repository could be made" \
		    "$(cat "$T/case.log" 2>/dev/null)"
		continue
	fi
	status_same "seed $s: git status in the copy is the source's"
done

done_testing
