#!/bin/sh
# Untracked files arrive, wherever they are; ignored ones do not, by
# whichever rule ignores them, the uncommitted rules included.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

# Untracked files in new nested directories, with ignored files among
# them (the top .gitignore has *.o and build/).
new_repo "$T/r"
mkdir -p new/deeper/deepest src/new-in-tracked
printf 'a\n' >new/a.txt
printf 'b\n' >new/deeper/deepest/b.txt
printf 'c\n' >src/new-in-tracked/c.c
printf 'ignored\n' >new/a.o
printf 'ignored\n' >new/deeper/deepest/b.o
mkdir -p new/build/out src/build
printf 'ignored\n' >new/build/out/bin
printf 'ignored\n' >src/build/lib.a
mkdir -p only-ignored/build
printf 'ignored\n' >only-ignored/x.o
printf 'ignored\n' >only-ignored/build/y
mkdir empty-untracked-dir
copy_is_working_state "untracked files in new directories"
ok "a deep untracked file arrived" copy_has new/deeper/deepest/b.txt f
ok "an ignored file beside it did not" copy_lacks new/deeper/deepest/b.o
ok "an ignored directory inside an untracked one did not" \
    copy_lacks new/build
ok "nor a directory holding only ignored files" copy_lacks only-ignored

# The rules in effect are the working tree's: an edited, uncommitted
# .gitignore applies; so do nested .gitignore files, negations,
# .git/info/exclude and the global core.excludesFile.
new_repo "$T/rules"
printf 'tracked but matching a rule now\n' >kept.log
git add kept.log && git commit -q -m log
printf '*.o\n*.log\n!important.log\n' >.gitignore	# build/ no longer
printf 'tracked files stay\n' >>kept.log
mkdir -p build sub
printf 'un-ignored by the edit\n' >build/now-wanted
printf 'newly ignored\n' >debug.log
printf 'negated\n' >important.log
printf '*.tmp\n' >sub/.gitignore
printf 'ignored below sub\n' >sub/x.tmp
printf 'not ignored at the top\n' >x.tmp
printf 'local-only\n' >>.git/info/exclude
printf 'excluded locally\n' >local-only
printf '*.secret\n' >"$HOME/global-ignore"
git config --global core.excludesFile "$HOME/global-ignore"
printf 'excluded globally\n' >key.secret
printf 'also excluded\n' >sub/key.secret
copy_is_working_state "ignore rules of the working tree"
ok "the file the edited .gitignore stopped ignoring arrived" \
    copy_has build/now-wanted f
ok "the file it newly ignores did not" copy_lacks debug.log
ok "a tracked file matching a rule did, edited" copy_has kept.log f
ok "a negated rule let its file through" copy_has important.log f
ok "a nested .gitignore applied" copy_lacks sub/x.tmp
ok "but only below it" copy_has x.tmp f
ok ".git/info/exclude applied" copy_lacks local-only
ok "core.excludesFile applied" copy_lacks key.secret
ok "in subdirectories too" copy_lacks sub/key.secret

# Files in the index that an ignore rule matches are not untracked: they
# arrive like any staged file, whether added with --force, ignored after
# they were added, or moved into an ignored directory.
new_repo "$T/staged-ignored"
printf 'forced\n' >forced.o
git add -f forced.o
printf 'staged, then ignored\n' >later.txt
git add later.txt
printf 'later.txt\n' >>.gitignore
printf 'moved\n' >moved.txt
git add moved.txt && git commit -q -m moved || exit 99
mkdir build
git mv moved.txt build/moved.txt
copy_is_working_state "staged files matching ignore rules"
ok "the force-added file arrived" copy_has forced.o f
ok "the file ignored after git add arrived" copy_has later.txt f
ok "the file moved into an ignored directory arrived" \
    copy_has build/moved.txt f

done_testing
