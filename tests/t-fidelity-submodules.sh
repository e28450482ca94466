#!/bin/sh
# Initialized submodules arrive at the commit they have checked out, with
# their own uncommitted and untracked changes, recursively, and from the
# local repository only; uninitialized ones stay empty.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

# Upstreams: inner (two commits), and sub (three commits, the middle one
# adding inner as a submodule of its own).
git init -q "$T/inner-up" || exit 99
(
	cd "$T/inner-up" &&
	printf 'inner 1\n' >i.txt && git add -A && git commit -q -m i1 &&
	printf 'inner 2\n' >>i.txt && git commit -q -a -m i2
) || exit 99
git init -q "$T/sub-up" || exit 99
(
	cd "$T/sub-up" &&
	printf 's1\n' >s.txt && printf '*.log\n' >.gitignore &&
	git add -A && git commit -q -m s1 &&
	git -c protocol.file.allow=always submodule add -q "$T/inner-up" \
	    inner && git commit -q -m inner &&
	printf 's3\n' >>s.txt && git commit -q -a -m s3
) || exit 99

new_repo "$T/r"
git -c protocol.file.allow=always submodule add -q "$T/sub-up" sub ||
    exit 99
git commit -q -m 'add sub' || exit 99
git -c protocol.file.allow=always submodule update -q --init --recursive ||
    exit 99

# Checked out at the commit recorded: only the superproject's own edits.
printf 'super edit\n' >>hello.txt
copy_is_working_state "a clean submodule" sub sub/inner
ok "the submodule's files arrived" copy_has sub/s.txt f
ok "and those of the submodule inside it" copy_has sub/inner/i.txt f

# The submodule at another commit than recorded, with changes of its own,
# and its own submodule likewise.
git -C sub checkout -q HEAD~1 || exit 99
printf 'sub: uncommitted edit\n' >>sub/s.txt
printf 'sub: staged\n' >sub/staged.txt
git -C sub add staged.txt
printf 'sub: untracked\n' >sub/untracked.txt
printf 'sub: ignored by its own .gitignore\n' >sub/debug.log
git -C sub/inner checkout -q HEAD~1 || exit 99
printf 'inner: edit\n' >>sub/inner/i.txt
mkdir sub/inner/new
printf 'inner: untracked\n' >sub/inner/new/u.txt
like "git sees the submodule moved and modified" "$(git status --porcelain)" \
    '^ M sub$'
copy_is_working_state "a moved, modified submodule, recursively" sub sub/inner
ok "the ignored file of the submodule did not arrive" copy_lacks sub/debug.log
ok "the submodule's untracked file did" copy_has sub/untracked.txt f
ok "so did that of the submodule inside it" copy_has sub/inner/new/u.txt f

# No network: with both upstreams gone, and .gitmodules and the
# configuration pointing nowhere, the copy is made all the same, even
# when the user's configuration asks git to recurse into submodules.
git config --global submodule.recurse true
git config --global fetch.recurseSubmodules true
mv "$T/sub-up" "$T/sub-up.gone"
mv "$T/inner-up" "$T/inner-up.gone"
git config -f .gitmodules submodule.sub.url "$T/nowhere/sub"
git config submodule.sub.url "$T/nowhere/sub"
git -C sub config -f .gitmodules submodule.inner.url "$T/nowhere/inner"
git -C sub config submodule.inner.url "$T/nowhere/inner"
copy_is_working_state "submodules whose upstreams are gone" sub sub/inner
ok "the submodule still arrived" copy_has sub/s.txt f
ok "and the one inside it" copy_has sub/inner/i.txt f
mv "$T/sub-up.gone" "$T/sub-up"
mv "$T/inner-up.gone" "$T/inner-up"

# A clone without --recurse-submodules: the submodule is not initialized,
# and stays an empty directory in the copy too, even though its upstream
# could be reached.
git clone -q "$T/r" "$T/clone" || exit 99
cd "$T/clone" || exit 99
ok "the clone's submodule is an empty directory" \
    test -z "$(ls -A sub)"
printf 'clone edit\n' >>hello.txt
copy_is_working_state "an uninitialized submodule"
ok "the copy has the submodule's directory" copy_has sub d
is "and nothing in it" "$(grep -c '^sub/' "$T/copy-all.m")" 0

# A submodule below a directory that the working tree has replaced with
# a symlink: no repository of the working state's.  The symlink leads, in
# the copy, to a directory outside it (../../victim beside the copies),
# where an empty directory stands in for whatever is there: forge must
# not remove it (the copy's path is followed from its top, no symlink on
# the way) -- a gitlink or a conflict over one alike.
mkdir -p "$T/deep/er"
git -c protocol.file.allow=always clone -q "$T/sub-up" "$T/deep/er/s" ||
    exit 99
new_repo "$T/deep/er/w"
git -c protocol.file.allow=always submodule add -q "$T/deep/er/s" a/x ||
    exit 99
git commit -q -m 'add a/x' || exit 99
for kind in gitlink conflict; do
	if [ $kind = conflict ]; then
		git -C a/x checkout -q -b one HEAD~1 &&
		    git add a/x && git commit -q -m ours &&
		    git checkout -q -b side HEAD~1 &&
		    git -C a/x checkout -q -b two HEAD~1 &&
		    printf 'two\n' >a/x/two && git -C a/x add two &&
		    git -C a/x commit -q -m two &&
		    git add a/x && git commit -q -m side &&
		    git checkout -q - && git -C a/x checkout -q one || exit 99
		git merge -q side >/dev/null 2>&1
		is "$kind: the merge left a conflict over a/x" \
		    "$(git ls-files -u a/x | wc -l | tr -d ' ')" 3
	fi
	mv a "$T/a.saved"
	ln -s ../../victim a
	mkdir -p "$TMPDIR/victim/x"
	run_forge verify --isolated -- true
	is "$kind below a symlink: forge passes" "$rc" 0
	ok "$kind below a symlink: nothing outside the copy was removed" \
	    test -d "$TMPDIR/victim/x"
	rm -rf "$TMPDIR/victim" a
	# The symlink to a directory of the working tree's, that holds
	# the repository: copied as the symlink and that directory.
	mv "$T/a.saved" b
	ln -s b a
	run_forge verify --isolated -- sh -c 'readlink a; ls b/x/s.txt'
	is "$kind below a symlink within the tree: forge passes" "$rc" 0
	is "and the copy has the symlink, and the repository beside" "$out" \
	    "$(printf 'b\nb/x/s.txt')"
	rm a
	mv b a
done
git merge --abort 2>/dev/null || git reset -q --merge

done_testing
