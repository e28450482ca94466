#!/bin/sh
# A symlink in the copy that leads back into the real working tree or its
# git directory is named before the command runs: writes through it
# would change the real files.
. "$TESTLIB"

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
is "nothing is left" "$(leftovers "$T/r")" ""

done_testing
