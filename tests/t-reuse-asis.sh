#!/bin/sh
# A reused copy proved as it stands, before anything is done to it: when
# it holds the working state, or does once the paths that differ are put
# right, nothing else in it is rewritten.  Whatever a command did to it
# in between is still undone, the index kept for it beside the copy is
# believed only as forge left it, and a copy that cannot be put right
# path by path is synced whole.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
for i in 1 2 3 4 5 6; do printf 'file %s\n' "$i" >"f$i"; done
mkdir d && printf 'deep\n' >d/g
git add -A && git commit -q -m files

asis() {
	printf '%s\n' "$err" | grep -q 'proved as it stood'
}
# stat_cmd PATH FILE: inode and mtime of PATH in the copy, as the
# command saw, in FILE (not an audit's fresh copy's).
stat_cmd=$(unaudited 'stat -c "%i %Y.%y" "$1" >"$2"')

printf 'edited\n' >>f1
printf 'untracked\n' >u1
run_forge verify --reuse -v -- true
is "a first --reuse run passes" "$rc" 0

run_forge verify --reuse -v -- sh -c "$stat_cmd" sh f1 "$T/f1.a"
is "a second run passes" "$rc" 0
ok "the copy is proved as it stood" asis
like "with nothing to put right" "$err" 'proved as it stood: 0 paths'
run_forge verify --reuse -v -- sh -c "$stat_cmd" sh f1 "$T/f1.b"
is "so does a third" "$rc" 0
is "an edited file that did not change since is not rewritten" \
    "$(cat "$T/f1.b")" "$(cat "$T/f1.a")"

# The working state changes: only that is put right.
printf 'more\n' >>f2
rm f3
printf 'new\n' >u2
run_forge verify --reuse -v -- sh -c 'cat f2; ls; '"$stat_cmd" sh f1 "$T/f1.c"
is "after edits, the run passes" "$rc" 0
like "the paths that differ are put right" "$err" \
    'proved as it stood once 3 paths put right'
like "with the edit" "$out" 'more'
ok "without the removed file" sh -c '! printf "%s\n" "$1" | grep -qx f3' \
    sh "$out"
like "with the new untracked file" "$out" 'u2'
is "and nothing else rewritten" "$(cat "$T/f1.c")" "$(cat "$T/f1.a")"

# The command tampers with the copy: a same-size rewrite in place with
# its time put back, a new file, a file made a directory, a directory
# made a symlink out of the copy, a mode, an empty directory, a nested
# repository.  All of it is undone, nothing outside is touched.
mkdir "$T/away" && printf 'mine\n' >"$T/away/keep"
run_forge verify --reuse -- sh -c '
    cp -p f4 "$2/f4.saved"
    printf "FILE 4\n" >f4 && touch -r "$2/f4.saved" f4
    echo junk >zz-junk
    rm f5 && mkdir f5 && echo x >f5/inside
    rm -r d && ln -s "$1" d
    chmod 600 f6
    mkdir -p empty/deeper
    git init -q nested && (cd nested && echo n >n &&
        git add n && git -c user.name=a -c user.email=a@b commit -qm n)
    ' sh "$T/away" "$T"
is "a run that tampers with its copy passes" "$rc" 0
run_forge verify --reuse -v -- sh -c 'cat f4 f5 d/g; ls -A; stat -c %a f6' sh
is "the next run passes" "$rc" 0
like "with the file rewritten in place put back" "$out" '^file 4$'
like "with the file made a directory put back" "$out" '^file 5$'
like "with the directory made a symlink put back" "$out" '^deep$'
ok "without the junk, the empty directory, the nested repository" \
    sh -c '! printf "%s\n" "$1" | grep -Eqx "zz-junk|empty|nested"' sh "$out"
like "with a fresh copy's mode" "$out" "^$(printf '%o' $((0666 & ~$(umask))))\$"
is "nothing outside the copy was touched" "$(ls -A "$T/away")" "keep"
is "not even the file in it" "$(cat "$T/away/keep")" "mine"

# A directory forge need not read again is one whose times are both
# older than the copy's proof: a file the command leaves in one, and a
# directory of the same name put in another's place, made before with
# an extra file and old times, renamed there -- which its change time
# tells.  Both are undone.
run_forge verify --reuse -- sh -c '
    echo junk >d/junk
    mkdir "$1/old" && cp -a d "$1/old/d" && rm "$1/old/d/junk" &&
    echo extra >"$1/old/d/extra" &&
    touch -d @1700000000 "$1/old/d/extra" "$1/old/d/g" "$1/old/d" &&
    rm -r d && mv "$1/old/d" d && rmdir "$1/old"' sh "$T"
is "a run that leaves a file and a directory with old times passes" \
    "$rc" 0
run_forge verify --reuse -v -- sh -c 'ls -A d; cat d/g' sh
is "the next run passes" "$rc" 0
is "without either file left in that directory" "$out" "$(printf 'g\ndeep')"

# Two directories swapped: what each has below it keeps its own times
# (rename(2) stamps only what it moves), and each is read all the same
# -- the files below them are not the ones the proof saw there.
mkdir -p s1/sub s2/sub
printf 'one\n' >s1/sub/x
printf 'two\n' >s2/sub/x
printf 'two y\n' >s2/sub/y
git add s1 s2 && git commit -q -m swap
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'mv s1 t && mv s2 s1 && mv t s2'
is "a run that swaps two directories passes" "$rc" 0
run_forge verify --reuse -v -- sh -c 'ls -A s1/sub s2/sub; cat s1/sub/x' sh
is "the next run passes" "$rc" 0
is "with each directory below them as the working tree has it" "$out" \
    "$(printf 's1/sub:\nx\n\ns2/sub:\nx\ny\none')"

# And a directory that came along, whose files below it are the proof's
# own: a directory of them moved in whole, into one below it.  What it
# holds is read all the same.
mkdir -p m1/p/c/g m2/p/c
printf 'f\n' >m1/p/c/g/f
printf 'h\n' >m2/p/c/h
printf 'y\n' >m2/p/y
git add m1 m2 && git commit -q -m moved
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'printf changed >m2/p/y &&
    mv m1 t && mv m2 m1 && mv t m2 && mv m2/p/c/g m1/p/c/g'
is "a run that moves directories about passes" "$rc" 0
run_forge verify --reuse -v -- sh -c 'find m1 m2 -type f | sort' sh
is "the next run passes" "$rc" 0
is "with the files where the working tree has them" "$out" \
    "$(find m1 m2 -type f | sort)"

# A file changed at every run, keeping its size: each run puts it right
# path by path, never believing a file forge wrote to be the one it
# replaced (same size, same second, maybe the same inode).
head -c 65536 /dev/urandom >same.bin
git add same.bin && git commit -q -m same
run_forge verify --reuse -- true
n=0
for round in 1 2 3 4 5 6; do
	printf 'round %s' "$round" | dd of=same.bin bs=1 seek=100 \
	    conv=notrunc 2>/dev/null
	run_forge verify --reuse -v -- sh -c 'git hash-object same.bin'
	if [ "$rc" -eq 0 ] && [ "$out" = "$(git hash-object same.bin)" ] &&
	    printf '%s\n' "$err" | grep -q 'once 1 path put right'; then
		n=$((n + 1))
	fi
done
is "a file rewritten at every run: put right path by path, each time" \
    "$n" 6

# The index kept beside the copy, changed by anything but forge (here a
# flag that would have git take a file as it is), is not believed.
carry=$(ls "$TMPDIR"/forge-*/.forge/carry/dst*.index)
run_forge verify --reuse -- sh -c 'printf "lied\n" >f2; touch -r f1 f2'
GIT_INDEX_FILE="$carry" git update-index --assume-unchanged f2
run_forge verify --reuse -v -- cat f2
is "a run after the kept index was changed passes" "$rc" 0
like "with the file as it is in the working tree" "$out" '^more$'
ok "the changed index was not used" sh -c '! printf "%s\n" "$1" |
    grep -q "proved as it stood"' sh "$err"
# Written over with what it held, its time put back: its change time
# tells, whatever it holds.
run_forge verify --reuse -- true
carry=$(ls "$TMPDIR"/forge-*/.forge/carry/dst*.index)
cp -p "$carry" "$T/kept" && cat "$T/kept" >"$carry" && touch -r "$T/kept" "$carry"
run_forge verify --reuse -v -- cat f2
is "a run after the kept index was written again passes" "$rc" 0
ok "that index was not used" sh -c '! printf "%s\n" "$1" |
    grep -q "proved as it stood"' sh "$err"
run_forge verify --reuse -v -- cat f2
like "and the next run's is" "$err" 'proved as it stood'

# The command's own index and HEAD: made a fresh copy's again.
run_forge verify --reuse -- sh -c 'git add -A >/dev/null 2>&1;
    git -c user.name=a -c user.email=a@b commit -qm junk >/dev/null 2>&1;
    true'
run_forge verify --reuse -v -- sh -c 'git rev-parse HEAD; git status --porcelain'
is "after a command committed in its copy, the run passes" "$rc" 0
like "HEAD is the working tree's" "$out" "^$(git rev-parse HEAD)\$"
is "and the copy's status is the working tree's" \
    "$(printf '%s\n' "$out" | sed 1d | LC_ALL=C sort)" \
    "$(git status --porcelain | LC_ALL=C sort)"

# The copy's own index is made again only when what it is made of
# changed, or a command wrote it: each time, git status in the copy is
# the working tree's.
st="git status in the copy is the working tree's"
status_same "nothing changed: $st" --reuse
git add f2
status_same "a file staged: $st" --reuse
printf 'again\n' >>f2
status_same "staged, then changed again: $st" --reuse
git reset -q f2
status_same "unstaged: $st" --reuse
printf 'n\n' >itanew && git add -N itanew
status_same "added with intent to add: $st" --reuse
git rm -q --cached f6
status_same "removed from the index only: $st" --reuse
run_forge verify --reuse -- sh -c 'git add -A && git reset -q f1 &&
    git update-index --assume-unchanged f4'
status_same "after a command staged in its copy: $st" --reuse
git add f6 itanew
# What git said the source stages is kept for the next run, sealed: a
# record that says otherwise, written by anything but forge, is not
# believed.
git add f2
status_same "staged, kept for the next run: $st" --reuse
status_same "staged, read where it was kept: $st" --reuse
plan=$(ls "$TMPDIR"/forge-*/.forge/carry/mirror.plan)
{ printf 'forge mirror plan 1\n'; sed -n 2p "$plan"
  printf 'staged 0\nvisible 0\nsum 0123456789abcdef0123456789abcdef\n'
} >"$plan.new" && mv "$plan.new" "$plan"
run_forge verify --reuse -- sh -c 'git add -A && git reset -q'
status_same \
    "a record that lies, and the copy's index changed by a command: $st" \
    --reuse
git reset -q f2

# Something that cannot be put right path by path: the copy is synced
# whole, and still exact.
run_forge verify --reuse -- sh -c 'rm -rf d && mkdir d && echo x >d/own &&
    chmod 500 d'
run_forge verify --reuse -v -- sh -c 'ls -A d; cat d/g'
is "a copy that needs more than paths put right: the run passes" "$rc" 0
is "with the directory as it is in the working tree" "$out" "$(printf 'g\ndeep')"

forge gc --all >/dev/null 2>&1
is "gc --all leaves nothing behind" "$(leftovers "$T/r")" ""

# --incremental: the copy's own ignored files are kept while ignored;
# once the rules change so that they are not, they go, as from a fresh
# copy -- whether the working tree's rules changed or the command's.
new_repo "$T/inc"
git config forge.breakerThreshold 0
printf 'a\n' >a && printf '*.o\n' >.gitignore
git add -A && git commit -q -m inc
run_forge verify --incremental -- sh -c 'echo obj >main.o'
run_forge verify --incremental -- ls
like "--incremental: the copy's own ignored file is kept" "$out" '^main\.o$'
printf '# nothing ignored\n' >.gitignore
run_forge verify --incremental -- ls -A
is "--incremental, the rules changed: the run passes" "$rc" 0
ok "the file no longer ignored is gone" sh -c '! printf "%s\n" "$1" |
    grep -qx main.o' sh "$out"
run_forge verify --incremental -- sh -c "echo 'junk*' >>.gitignore;
    echo j >junk1"
run_forge verify --incremental -- ls -A
is "--incremental, the command changed the rules: the run passes" "$rc" 0
ok "what they made it keep is gone" sh -c '! printf "%s\n" "$1" |
    grep -qx junk1' sh "$out"
forge gc --all >/dev/null 2>&1

# An untracked file that becomes ignored: gone from the copy, and from
# the tree proved -- not kept by the indexes kept from the last run.
new_repo "$T/ig"
git config forge.breakerThreshold 0
printf 'x\n' >a && git add a && git commit -q -m a
printf 'u\n' >u.log
run_forge verify --reuse -- true
run_forge verify --reuse -- true
printf '*.log\n' >.gitignore
run_forge verify --reuse -- ls -A
is "an untracked file become ignored: the run passes" "$rc" 0
ok "the copy does not have it" sh -c '! printf "%s\n" "$1" |
    grep -qx u.log' sh "$out"
like "the tree proved is the working state's" "$err" \
    "Verdict: PASS \\(isolated, reused, (audited, )?tree $(tree_now)"

# A directory of untracked files made read-only by a command: a fresh
# copy's mode again.
mkdir ud && printf 'z\n' >ud/z
run_forge verify --reuse -- chmod 555 ud
run_forge verify --reuse -- stat -c %a ud
is "an untracked file's directory: the run passes" "$rc" 0
is "with a fresh copy's mode" "$out" "$(printf '%o' $((0777 & ~$(umask))))"

# A reused run computes the trees' ids from the indexes git made, and
# what differs between them: no git writes a tree or lists a difference.
# What is counted is the reused run's own git, not an audit's fresh copy's,
# which writes trees: the run is not audited.
mkdir "$T/gitl"
cat >"$T/gitl/git" <<EOF
#!/bin/sh
skip=
for a; do
	if [ -n "\$skip" ]; then
		skip=
		continue
	fi
	case \$a in
	-c|-C) skip=1 ;;
	-*) ;;
	*) echo "\$a" >>"$T/gits"
	   break ;;
	esac
done
exec "$(command -v git)" "\$@"
EOF
chmod +x "$T/gitl/git"
run_forge verify --reuse -- true
printf 'once more\n' >>a
rm -f "$T/gits"
PATH="$T/gitl:$PATH" run_forge verify --reuse --no-audit -v -- cat a
is "the trees computed by forge: the run passes" "$rc" 0
like "one path put right" "$err" 'proved as it stood once 1 path'
is "with the file as it is now" "$out" "$(cat a)"
like "git looked at the changed file" "$(cat "$T/gits")" 'update-index'
unlike "no git wrote a tree" "$(cat "$T/gits")" 'write-tree'
unlike "no git listed what differs" "$(cat "$T/gits")" 'diff-'

# The working tree's changed files are put in the copy before git looks
# at either side; where the command left a directory in the way, or a
# symlink out of the copy on the way, they are not -- that is for the
# comparison to find, and put right path by path -- and nothing outside
# the copy is written.
mkdir -p sub/deep && printf 'one\n' >sub/deep/s && printf 'two\n' >t2 &&
    git add sub t2 && git commit -q -m sub
mkdir "$T/out2" && mkdir -p "$T/out2/deep" && printf 'theirs\n' >"$T/out2/deep/s"
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'rm t2 && mkdir t2 && echo x >t2/in &&
    rm -r sub && ln -s "$1" sub' sh "$T/out2"
printf 'TWO\n' >t2 && printf 'ONE\n' >sub/deep/s
run_forge verify --reuse -v -- sh -c 'cat t2 sub/deep/s; if test -L sub; then echo link; fi'
is "a directory and a symlink in the way of changed files: the run passes" \
    "$rc" 0
like "put right path by path" "$err" 'proved as it stood once'
is "the copy holds the working tree's files" "$out" "$(printf 'TWO\nONE')"
is "and nothing outside was written" "$(cat "$T/out2/deep/s")" "theirs"
is "nor added" "$(ls -A "$T/out2" "$T/out2/deep" | tr '\n' ' ')" \
    "$T/out2: deep  $T/out2/deep: s "

# A file put right is written beside the old under a name of forge's:
# never one the working state has.  In a PID namespace forge is process
# 1, whose names these would be.
if unshare -pf --mount-proc true 2>/dev/null; then
	mkdir -p nm/.forge-new.1 && printf 'mine\n' >nm/.forge-new.1/keep &&
	    printf 'also mine\n' >nm/.forge-new.1.0 && printf 'v1\n' >nm/v &&
	    git add nm && git commit -q -m nm
	run_forge verify --reuse -- true
	printf 'v2\n' >nm/v
	unshare -pf --mount-proc "$FORGE" verify --reuse -v -- sh -c \
	    'cat nm/v nm/.forge-new.1/keep nm/.forge-new.1.0' \
	    >"$T/.stdout" 2>"$T/.stderr"
	rc=$? out=$(cat "$T/.stdout") err=$(cat "$T/.stderr")
	is "a file named as forge's would be, beside one put right: passes" \
	    "$rc" 0
	like "put right" "$err" 'proved as it stood once 1 path'
	is "with both kept" "$out" "$(printf 'v2\nmine\nalso mine')"
else
	skip "a file named as forge's would be" "no PID namespace here"
fi

# An untracked file of a mode no checkout gives, committed as it is: the
# reused copy gives it a checkout's mode, as a fresh copy would.
printf 'mine\n' >private && chmod 640 private
run_forge verify --reuse -- true
git add private && git commit -q -m private
run_forge verify --reuse -- stat -c %a private
is "an untracked file of mode 640 committed: the run passes" "$rc" 0
is "with a checkout's mode" "$out" "$(printf '%o' $((0666 & ~$(umask))))"

# A changed untracked file the command removed, and the working tree too,
# leaving its directory empty: no empty directory in the copy either,
# as in a fresh one.
mkdir newd && printf 'f\n' >newd/f
run_forge verify --reuse -- true
run_forge verify --reuse -- rm -r newd
rm newd/f
run_forge verify --reuse -- ls -A
is "a directory the working tree emptied: the run passes" "$rc" 0
unlike "the copy has no such directory" "$out" '^newd$'
rmdir newd

# The copy is put right while git still writes the working tree's tree
# (where git adds every file: an entry marked unchanged): what differs is
# found from the index that tree is written from.  A wrapper holds the
# working tree's git write-tree until the copy's paths are put right (3
# seconds at most), and says which came first: in the reused run, not
# audited, as an audit's fresh copy writes that tree again.
mkdir "$T/gitw"
cat >"$T/gitw/git" <<EOF
#!/bin/sh
real="$(command -v git)"
case " \$* :\${GIT_INDEX_FILE:-}" in
*" write-tree "*tree-src*)
	i=0
	while [ ! -f "$T/fixed" ] && [ \$i -lt 60 ]; do
		sleep 0.05
		i=\$((i + 1))
	done
	[ -f "$T/fixed" ] && echo "fixed first" >>"$T/order" ||
	    echo "tree first" >>"$T/order" ;;
*" update-index --add --remove --replace "*)
	"\$real" "\$@"
	rc=\$?
	: >"$T/fixed"
	exit \$rc ;;
esac
exec "\$real" "\$@"
EOF
chmod +x "$T/gitw/git"
git update-index --assume-unchanged a
run_forge verify --reuse -- true
printf 'while written\n' >>f3
rm -f "$T/fixed" "$T/order"
PATH="$T/gitw:$PATH" run_forge verify --reuse --no-audit -v -- cat f3
git update-index --no-assume-unchanged a
is "put right as the tree is written: the run passes" "$rc" 0
like "one path put right" "$err" 'proved as it stood once 1 path'
is "with the file as it is now" "$out" "$(cat f3)"
is "the copy was put right before the working tree's tree was written" \
    "$(cat "$T/order" 2>/dev/null)" "fixed first"

# The working tree's side, where git writes its tree (an entry marked
# unchanged there), found to have the copy's entries; then git fails to
# write that tree, and the working tree changes before it is computed
# again (found in review).  The tree computed again is not one the copy
# was compared with: the copy is brought up to date the full way, and
# holds what the run reports.
git update-index --assume-unchanged a
run_forge verify --reuse -- true
mkdir "$T/gitf"
cat >"$T/gitf/git" <<EOF
#!/bin/sh
case " \$* :\${GIT_INDEX_FILE:-}" in
*" write-tree "*tree-src[0-9].index)
	if [ -f "$T/failwt" ]; then
		rm -f "$T/failwt"
		printf 'late\n' >>"$PWD/late"
		exit 128
	fi ;;
esac
exec "$(command -v git)" "\$@"
EOF
chmod +x "$T/gitf/git"
printf 'early\n' >late && git add late && git commit -q -m late
run_forge verify --reuse -- true
printf 'edit\n' >>f3
: >"$T/failwt"
PATH="$T/gitf:$PATH" run_forge verify --reuse -v -- cat late
is "the working tree's tree failed, then changed: the run passes" "$rc" 0
is "the copy holds what the working tree has now" "$out" "$(cat late)"
like "the tree reported is git's of it" "$err" \
    "tree $(git update-index --no-assume-unchanged a && tree_now)"

# Where git wrote the working tree's side's tree (an entry flagged there)
# before the copy's side is known (here a wrapper holds git's look at the
# copy for a second), the copy's index is compared with that tree: a
# file the working tree changed where the command left a directory is
# in the copy, the directory gone.
mkdir "$T/gits2"
cat >"$T/gits2/git" <<EOF
#!/bin/sh
case " \$* :\${GIT_INDEX_FILE:-}" in
*" update-index "*tree-reused*) sleep 1 ;;
esac
exec "$(command -v git)" "\$@"
EOF
chmod +x "$T/gits2/git"
printf 'sw\n' >sw && git add sw && git commit -q -m sw
git update-index --assume-unchanged a
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'rm sw && mkdir sw && echo x >sw/in'
printf 'SW\n' >sw
PATH="$T/gits2:$PATH" run_forge verify --reuse -v -- cat sw
is "git's tree against the copy's index: the run passes" "$rc" 0
like "the copy put right path by path" "$err" 'proved as it stood once'
is "with the working tree's file" "$out" "SW"
git update-index --no-assume-unchanged a

# Files a command left with modes of their own, that the working tree
# then tracks: git clean removes them from the copy as forge sees to
# their modes, which is no error (a race: the test cannot make it
# happen, only show the way through).
many='mkdir mm && cd mm && seq 2000 | sed s/^/f/ | xargs touch'
run_forge verify --reuse -- sh -c "$many && chmod 600 f*"
(eval "$many") && git add mm && git commit -q -m mm
run_forge verify --reuse -v -- true
is "files left with modes of their own, then tracked: the run passes" \
    "$rc" 0
unlike "with no word of a mode it could not reset" "$err" 'cannot reset'
ok "in the copy proved as it stood" asis

# A tracked directory a command made unreadable, with a stray file left
# in it: git clean, which runs as forge sees to the modes, could not
# enter it (but as root), and runs again once it has its mode back.
mkdir td && printf 't\n' >td/t && git add td && git commit -q -m td
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'printf s >td/stray && chmod 000 td'
run_forge verify --reuse -v -- sh -c 'stat -c %a td && ls -A td'
is "a stray file in a directory made unreadable: the run passes" "$rc" 0
ok "the copy was proved as it stood" asis
is "the directory has a fresh copy's mode, and the stray file is gone" \
    "$out" "$(printf '%o\nt' $((0777 & ~$(umask))))"
forge gc --all >/dev/null 2>&1

# What git looks at in a reused copy is what forge finds changed since
# the last proof, against the stat data git kept then -- with the
# change time, whatever git is told of it.  A wrapper notes each git
# that adds files to the copy's side of the proof, and the paths given.
cat >"$T/gitw/git" <<EOF
#!/bin/sh
real="$(command -v git)"
case " \$* :\${GIT_INDEX_FILE:-}" in
*" add "*tree-reused*)
	echo "add \$*" >>"$T/looked" ;;
*" update-index --add --remove --replace "*tree-reused*)
	cat >"$T/in"
	{ tr '\0' '\n' <"$T/in"; echo --; } >>"$T/looked"
	exec "\$real" "\$@" <"$T/in" ;;
esac
exec "\$real" "\$@"
EOF
new_repo "$T/look"
git config forge.breakerThreshold 0
for i in 1 2 3 4; do printf 'look %s\n' "$i" >"l$i"; done
mkdir sub && printf 's\n' >sub/s && printf 'u\n' >untracked
git add l1 l2 l3 l4 sub && git commit -q -m look
run_forge verify --reuse -- true
sleep 1
run_forge verify --reuse -- true
rm -f "$T/looked"
PATH="$T/gitw:$PATH" run_forge verify --reuse -v -- true
is "a copy nothing touched: the run passes" "$rc" 0
ok "proved as it stood" asis
ok "with no file of the copy looked at again" test ! -e "$T/looked"
# Its time put back, a same-size rewrite in place shows only in the
# change time; the repository tells git not to trust it, and to check
# only sizes and modification times.  forge looks at the change time
# itself, and has git trust it too.
git config core.trustctime false
git config core.checkStat minimal
run_forge verify --reuse -- sh -c '
    cp -p l2 "$1/l2.saved" && printf "LOOK 2\n" >l2 &&
    touch -r "$1/l2.saved" l2 && chmod 600 l3 && rm l4 &&
    printf "U\n" >untracked && printf "S\n" >sub/s && echo new >new' \
    sh "$T"
rm -f "$T/looked"
PATH="$T/gitw:$PATH" run_forge verify --reuse -v -- sh -c \
    'cat l2 l4 untracked sub/s; ls; stat -c %a l3'
is "a copy a command changed, with git trusting little: the run passes" \
    "$rc" 0
ok "proved as it stood" asis
is "with each file as the working tree has it" "$out" "look 2
look 4
u
s
hello.txt
l1
l2
l3
l4
run.sh
src
sub
untracked
$(printf '%o' $((0666 & ~$(umask))))"
is "git looked at what the command changed, then what forge put right" \
    "$(cat "$T/looked")" "l2
l3
l4
sub/s
untracked
--
l2
l4
sub/s
untracked
--"
git config --unset core.trustctime
git config --unset core.checkStat
# What a command left where the last proof had nothing goes, as the
# copy is looked at: beside tracked files, deep in a new directory, in
# a directory that held only others, and a directory where a file was
# (then put right as the copy stood).
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c '
    echo j >sub/junk && mkdir -p sub/new/deeper && echo j >sub/new/deeper/j &&
    rm l3 && mkdir -p l3/in && echo j >l3/in/j && ln -s /nowhere sub/dangling'
run_forge verify --reuse -v -- sh -c 'ls -A . sub; cat l3'
is "junk a command left: the run passes" "$rc" 0
ok "proved as it stood" asis
unlike "without the junk" "$out" 'junk|new|dangling|deeper|^in$'
like "with the file that was made a directory" "$out" '^look 3$'
# A tracked file, and an untracked one, that a command replaced with a
# hard link to a file of its own outside the copy, with the content the
# working tree has: nothing is done to that file through the copy (its
# mode, its time), and the copy's files are the working tree's again.
mkdir "$T/outside"
cat l1 >"$T/outside/tracked" && chmod 600 "$T/outside/tracked"
cat untracked >"$T/outside/untracked" && chmod 640 "$T/outside/untracked"
touch -d '2001-02-03' "$T/outside/tracked" "$T/outside/untracked"
outside() {
	stat -c '%a %Y %h' "$T/outside/tracked" "$T/outside/untracked"
	cat "$T/outside/tracked" "$T/outside/untracked"
}
before=$(outside)
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c '
    rm l1 untracked && ln "$1/outside/tracked" l1 &&
    ln "$1/outside/untracked" untracked' sh "$T"
run_forge verify --reuse -v -- sh -c \
    'stat -c "%a %h" l1 untracked && cat l1 untracked'
is "hard links to files outside: the run passes" "$rc" 0
is "the files outside are as they were" "$(outside)" \
    "$(printf '%s\n' "$before" | sed 's/ 2$/ 1/')"
is "and the copy's are the working tree's, no links" "$out" \
    "$(printf '%o 1\n%s 1\n' $((0666 & ~$(umask))) \
    "$(stat -c %a untracked)")
$(cat l1 untracked)"
# A path git will not take as it is: a .gitmodules made a symlink out of
# the copy.  git ignores it as it looks again, and the entry is gone, not
# kept from the last run: the proof sees it.
mkdir -p sub/lib && printf '[submodule "a"]\n\tpath = a\n\turl = x\n' \
    >sub/lib/.gitmodules && git add sub/lib && git commit -q -m gitmodules
printf 'EVIL\n' >"$T/evil"
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c \
    'rm sub/lib/.gitmodules && ln -s "$1/evil" sub/lib/.gitmodules' sh "$T"
run_forge verify --reuse -v -- cat sub/lib/.gitmodules
is "a .gitmodules made a symlink: the run passes" "$rc" 0
is "with the working tree's file" "$out" "$(cat sub/lib/.gitmodules)"
run_forge verify --reuse -v -- cat sub/lib/.gitmodules
is "and the next run too" "$out" "$(cat sub/lib/.gitmodules)"
# What git's walks pass over, which git clean leaves: a FIFO a command
# made, at the top and beside tracked files, is gone all the same.
run_forge verify --reuse -- sh -c 'mkfifo top-fifo sub/fifo'
run_forge verify --reuse -v -- sh -c 'ls -A . sub'
is "FIFOs a command left: the run passes" "$rc" 0
unlike "without them" "$out" 'fifo'
run_forge verify --reuse -- sh -c 'mkfifo top-fifo sub/fifo'
run_forge verify --incremental -v -- sh -c 'ls -A . sub'
unlike "--incremental: without them too" "$out" 'fifo'
# Under another umask, a fresh copy's files and directories have other
# modes: so does the reused copy, untouched files too.
run_forge verify --reuse -- true
(umask 077 && run_forge verify --reuse -v -- stat -c '%a %n' l1 sub sub/s &&
    printf '%s\n' "$rc" "$out" >"$T/masked")
is "under another umask, a reused copy has a fresh copy's modes" \
    "$(cat "$T/masked")" "0
600 l1
700 sub
600 sub/s"
forge gc --all >/dev/null 2>&1

# Line endings: git may write a file other than it reads it, and a tree
# id cannot tell the two apart.  With an attributes file, a reused copy
# is written as git checks it out, never taken as it stands -- but for
# the working state's changes, copied whole as the working tree has them
# (b.crlf, LF), as in a fresh copy.
new_repo "$T/eol"
git config forge.breakerThreshold 0
printf '* text=auto\n*.crlf text eol=crlf\n' >.gitattributes
printf 'one\n' >a.txt && printf 'one\n' >b.crlf
git add -A && git commit -q -m eol
run_forge verify --reuse -- true
run_forge verify --reuse -v -- sh -c "printf 'one\\r\\n' >a.txt"
printf 'two\n' >b.crlf
run_forge verify --reuse -v -- od -An -c a.txt b.crlf
is "line endings a command changed: the run passes" "$rc" 0
is "the files are as git writes them, the changed one as it is" \
    "$(printf '%s\n' "$out" | tr -s ' ')" ' o n e \n t w o \n'
ok "the copy was not taken as it stood" sh -c '! printf "%s\n" "$1" |
    grep -q "proved as it stood"' sh "$err"
run_forge verify --no-reuse -- od -An -c a.txt b.crlf
is "as in a fresh copy" "$(printf '%s\n' "$out" | tr -s ' ')" \
    ' o n e \n t w o \n'
forge gc --all >/dev/null 2>&1

# A command that changes a file's mode (its ctime, not its mtime) as the
# next run starts, then rewrites it in place in that same second with
# its mtime put back: git's stat data (whole seconds) would not tell.
new_repo "$T/race"
git config forge.breakerThreshold 0
printf 'hello world\n' >a.txt && git add a.txt && git commit -q -m a
run_forge verify --reuse -- true
sleep 1
hit=
for try in 1 2 3 4 5 6 7 8 9 10; do
	run_forge verify --reuse -- chmod 600 a.txt
	run_forge verify --reuse -- sh -c '
	    [ "$(date +%s)" = "$(stat -c %Z a.txt)" ] || exit 0
	    cp -p a.txt "$1/ref" && printf "HELLO WORLD\n" >a.txt &&
	    touch -r "$1/ref" a.txt && echo HIT' sh "$T"
	case $out in *HIT*) hit=1; break ;; esac
done
if [ -n "$hit" ]; then
	run_forge verify --reuse -- cat a.txt
	is "a same-second rewrite after a mode change: the run passes" "$rc" 0
	is "with the file as it is in the working tree" "$out" "hello world"
else
	skip "a same-second rewrite after a mode change" \
	    "the rewrite never fell in the same second"
	skip "a same-second rewrite: the file" "no rewrite"
fi
forge gc --all >/dev/null 2>&1
# A directory that holds nothing but a submodule not initialized (an
# empty directory, as a fresh clone has it) is the copy's all the same:
# what a command leaves there goes.
new_repo "$T/g"
git config forge.breakerThreshold 0
mkdir -p deps/libfoo
git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),deps/libfoo"
git commit -q -m gitlink
run_forge verify --reuse -- true
run_forge verify --reuse -- sh -c 'echo stray >deps/stray'
is "a run that leaves a file beside a submodule passes" "$rc" 0
run_forge verify --reuse -v -- ls -A deps
is "the next run passes" "$rc" 0
is "without the file" "$out" "libfoo"
forge gc --all >/dev/null 2>&1
is "nothing is left of the submodule's repository's copies" \
    "$(leftovers "$T/g")" ""

done_testing
