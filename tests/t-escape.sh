#!/bin/sh
# A symlink in the copy that leads back into the real working tree or its
# git directory is named before the command runs: writes through it
# would change the real files.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
ln -s "$T/r/hello.txt" abs-tracked
mkdir -p deep/er
ln -s ../../../../../../../../../../../.. deep/er/to-root
git add abs-tracked deep/er/to-root
git commit -q -m links
# Untracked: one that climbs out of the copy with "..", whatever the
# copy's depth, into the real repository; one into its git directory.
ln -s "$(printf '../%.0s' $(seq 1 30))$T/r/src" up-and-in
ln -s "$T/r/.git/config" gitconfig
# Through links outside, a ".." after a link, and targets that do not
# exist yet (a write through them creates the file in the tree).
ln -s "$T/r/src" "$T/lnk"
ln -s "$T/r" "$T/alias"
ln -s "$T/lnk/../hello.txt" dotdot
ln -s "$T/alias/newfile" dangling
ln -s deep/er d
ln -s "d/../../$(printf '../%.0s' $(seq 1 30))$T/r/hello.txt" rel-through
# Links that stay inside the copy, or lead elsewhere, are fine.
ln -s hello.txt inside
ln -s src/../hello.txt inside-too
ln -s /usr/share outside
ln -s "$T/r-not-this-one" sibling

run_forge verify --isolated -- sh -c 'echo RUNNING >&2'
is "links out: the run passes" "$rc" 0
like "a tracked absolute link into the tree is named" "$err" \
    "warning: the symlink abs-tracked -> $T/r/hello.txt leads out of the copy into the real repository"
like "a link that climbs out with .. is named" "$err" \
    'warning: the symlink up-and-in -> (\.\./)+.* leads out of the copy'
like "a link into the git directory is named" "$err" \
    "warning: the symlink gitconfig -> $T/r/.git/config leads out"
like "a link to a directory that holds the tree is named" "$err" \
    'warning: the symlink deep/er/to-root -> (\.\./)+\.\. leads out'
like "a .. after a link outside is followed as the kernel would" "$err" \
    'warning: the symlink dotdot -> .* leads out of the copy'
like "a link to a file not there yet is named" "$err" \
    'warning: the symlink dangling -> .* leads out of the copy'
like "a .. after a link in the copy too" "$err" \
    'warning: the symlink rel-through -> .* leads out of the copy'
unlike "a link inside the copy is not" "$err" 'symlink inside'
unlike "nor one that only passes through the copy" "$err" 'inside-too'
unlike "nor one leading elsewhere" "$err" 'symlink outside'
unlike "nor a sibling whose name merely starts like the tree's" "$err" \
    'symlink sibling'
is "one line per link, all before the command runs" \
    "$(printf '%s\n' "$err" | sed -n '/RUNNING/q;/warning: the symlink/p' | wc -l)" 7
is "and none after" \
    "$(printf '%s\n' "$err" | sed -n '/RUNNING/,$p' | grep -c 'warning: the symlink')" 0
run_forge verify --in-place -- true
unlike "in place there is no copy to leave" "$err" 'warning: the symlink'

# A reused copy, proved as it stood, is looked at only where its files
# can be symlinks: the same links are named, and those that came since.
links() {
	printf '%s\n' "$err" |
	    sed -n 's/.*warning: the symlink \([^ ]*\) ->.*/\1/p' | sort |
	    tr '\n' ' '
}
all='abs-tracked dangling deep/er/to-root dotdot gitconfig rel-through up-and-in '
git config forge.breakerThreshold 0
run_forge verify --reuse -- true
is "--reuse, a fresh copy: the same links are named" "$(links)" "$all"
run_forge verify --reuse -v -- true
like "a reused copy proved as it stood" "$err" 'proved as it stood'
is "the same links are named" "$(links)" "$all"
mv hello.txt hello.real && ln -s "$T/r/hello.real" hello.txt
mkdir -p new/dir && ln -s "$T/r/.git" new/dir/git
run_forge verify --reuse -v -- true
like "edited since: a copy put right path by path" "$err" \
    'proved as it stood once [1-9]'
like "a tracked file made a link out is named" "$err" \
    "warning: the symlink hello.txt -> $T/r/hello.real leads out"
like "a new untracked one, deeper, is named" "$err" \
    "warning: the symlink new/dir/git -> $T/r/.git leads out"
run_forge verify --reuse -- sh -c 'rm abs-tracked && echo plain >abs-tracked'
run_forge verify --reuse -v -- true
like "after a command replaced a link with a file, it is named again" \
    "$err" "warning: the symlink abs-tracked -> $T/r/hello.txt leads out"

# A conflict's path is no stage-0 entry: a link the working tree has
# there is named in a reused copy too, once.
new_repo "$T/m"
git config forge.breakerThreshold 0
echo base >c && git add c && git commit -q -m base
git checkout -q -b other && echo other >c && git commit -q -am other
git checkout -q - && echo mine >c && git commit -q -am mine
git merge -q other >/dev/null 2>&1
rm c && ln -s "$T/m/hello.txt" c
run_forge verify --reuse -- true
run_forge verify --reuse -v -- true
like "a conflict's path: the copy is proved as it stood" "$err" \
    'proved as it stood'
is "a link at a conflict's path is named, once" "$(links)" "c "
forge gc --all >/dev/null 2>&1
cd "$T/r"

# --incremental: a link the command made among the copy's own ignored
# files is named before the next run's command.
printf 'build/\n' >.gitignore
run_forge verify --incremental -- sh -c \
    "mkdir -p build && ln -s '$T/r/hello.real' build/out"
run_forge verify --incremental -- true
like "--incremental: a link out among its own ignored files is named" \
    "$err" "warning: the symlink build/out -> $T/r/hello.real leads out"
forge gc --all >/dev/null 2>&1
is "nothing is left" "$(leftovers "$T/r")" ""

done_testing
