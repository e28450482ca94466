#!/bin/sh
# A reused copy's run looks at the working tree's files against the
# index its source's side ended with in the last run, and has git look
# again only at those that changed since, and at those the working state
# has that index has not.  After each change the tree forge proves is the
# one git makes of the working state itself (git add -A into a copy of
# the index), and the copy holds it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
for i in 1 2 3 4 5 6; do printf 'file %s\n' "$i" >"f$i"; done
mkdir -p d/e && printf 'deep\n' >d/e/g && ln -s f1 link && ln -s d sl
printf 'x\n' >x && chmod 644 x
git add -A && git commit -q -m files
printf 'untracked\n' >u
printf 'intent\n' >ita && git add -N ita

# The tree git makes of the working state, from a copy of the index
# that keeps its time: git takes a file changed in the same second as
# the index for possibly changed only by that time ("racily clean").
git_tree() {
	cp -p "$(git rev-parse --git-path index)" "$T/idx"
	GIT_INDEX_FILE="$T/idx" git add -A >/dev/null 2>&1
	GIT_INDEX_FILE="$T/idx" git write-tree
}
# check DESCRIPTION N: a --reuse run in which git looked at N of the
# working tree's files ("all": at every one; "0-1": at none or one); its
# tree git's, and the copy's files the working tree's.
cat >"$T/list.sh" <<'EOF'
# Each file git lists, and u: its name, mode and content (a symlink's
# target); directories and what is not there left out.
for f in $(git ls-files) u; do
	if [ -d "$f" ] || { [ ! -e "$f" ] && [ ! -L "$f" ]; }; then
		continue
	fi
	printf '%s ' "$f"
	ls -ld "$f" | cut -c1-10
	cat "$f" 2>/dev/null || readlink "$f"
done
EOF
check() {
	want=$(git_tree | cut -c1-12)
	run_forge verify --reuse -v -- sh "$T/list.sh"
	is "$1: the run passes" "$rc" 0
	like "$1: the tree proved is git's" "$err" "tree $want"
	got=$(printf '%s\n' "$err" |
	    sed -n "s/.*changed since the last run: \([0-9]*\),.*/\1/p")
	if [ "$2" = all ]; then
		is "$1: git looked at every file of the working tree" "$got" ""
	elif [ "$2" = 0-1 ]; then
		like "$1: git looked at no file, or one racily clean" \
		    "$got" '^[01]$'
	else
		is "$1: git looked at $2 of the working tree's files" "$got" "$2"
	fi
	is "$1: the copy holds the working tree" "$out" "$(sh "$T/list.sh")"
}

# next_second: wait for the clock's next second.  A file written in the
# second the run's index is then is "racily clean" to git, looked at
# again by the next run too: the counts below are of files written
# before the second a run begins.
next_second() {
	_s=$(date +%s)
	while [ "$(date +%s)" = "$_s" ]; do sleep 0.1; done
}

run_forge verify --reuse -- true
run_forge verify --reuse -- true
check "nothing changed" 0
printf 'FILE 1\n' >f1
check "a file rewritten, its size kept" 1
printf 'file 1\n' >f1 && touch -d '2001-01-01' f1
check "rewritten again, its time put back far" 1
chmod +x f2
check "a file made executable" 1
rm f3
check "a file removed" 1
printf 'file 3\n' >f3
check "the same file back" 1
rm f4 && ln -s f5 f4
check "a file made a symlink" 1
rm link && printf 'not a link\n' >link
check "a symlink made a file" 1
rm sl && mkdir sl && : >sl/ignored.o
check "a symlink made a directory of ignored files" 0
rm -r sl && ln -s d sl
check "and a symlink again" 1
printf 'UNTRACKED\n' >u
check "an untracked file rewritten" 1
chmod 600 u
check "an untracked file's mode changed" 1
run_forge verify --reuse -- chmod 640 u
check "and then the copy's, by a command" 0
printf 'more intent\n' >ita
check "a file added with intent rewritten" 1
printf 'edit\n' >>d/e/g && printf 'edit\n' >>f6
check "two files, one deep" 2

# The same file changed again within the second of the run that saw it
# first, its size and times kept: its change time tells.
printf 'aaaa\n' >f5
run_forge verify --reuse -- true
cp -p f5 "$T/f5.saved" && printf 'bbbb\n' >f5 && touch -r "$T/f5.saved" f5
check "a same-size rewrite just after a run, its times put back" 1

# The same where the file's time is far in the past, so that git does
# not take its entry for racily clean: a git that keeps whole seconds
# finds its stat data as it was, the change time's second too when the
# rewrite is in the second of the write git saw.  Its entry goes, and git
# hashes it again.  (A run takes well under a second; begun as a second
# begins, tried again where it still crossed into the next.)
second_start() {
	while [ "$(date +%N | cut -c1)" != 0 ]; do
		sleep 0.01
	done
}
same_second=
for try in 1 2 3 4 5 6 7 8; do
	second_start
	printf 'cccc\n' >f5 && touch -d '2001-01-01' f5
	was=$(stat -c %Z f5)
	run_forge verify --reuse -- true
	cp -p f5 "$T/f5.saved" && printf '%s\n' "$try$try$try$try" >f5 &&
	    touch -r "$T/f5.saved" f5
	if [ "$(stat -c %Z f5)" = "$was" ]; then
		same_second=1
		break
	fi
done
if [ -n "$same_second" ]; then
	check "a same-size rewrite in the second of the last, its old time kept" 1
else
	skip "a same-size rewrite in the second of the last" \
	    "no run here ended within the second it began"
fi

# A conflict: what is on disk, whatever it is.
git stash -q -u && git checkout -q -b other && printf 'theirs\n' >x &&
    git commit -q -am other && git checkout -q - &&
    printf 'ours\n' >x && git commit -q -am ours &&
    { git merge -q other >/dev/null 2>&1; true; } && git stash pop -q
run_forge verify --reuse -- true
run_forge verify --reuse -- true
check "a conflict, unchanged" 0
printf 'resolved\n' >x
check "a conflict's file rewritten" 1
rm x && ln -s f1 x
check "a conflict's file made a symlink" 1

# What changes the untracked files is a look all the same: git looks at
# a new one alone, and what the working state no longer has (one
# removed, one ignored since) goes from both sides, and from the copy.
printf 'new\n' >v
next_second
check "a new untracked file" 1
check "then nothing changed" 0
rm v
check "an untracked file removed" 0
run_forge verify --reuse -- test ! -e v
is "the copy does not have it" "$rc" 0
printf 'soon ignored\n' >v2
check "another new untracked file" 1
printf 'v2\n' >>.gitignore
check "that file ignored since" 1
run_forge verify --reuse -- test ! -e v2
is "the copy does not have it" "$rc" 0
git checkout -q -- .gitignore
check "and no longer ignored" 2
run_forge verify --reuse -- cat v2
is "the copy has it again" "$out" "soon ignored"
rm v2
check "then removed" 0
# What the index stages counts for which files are tracked alone: a
# new file added to it is a new file; one staged as it is, nothing new;
# one staged executable, where git takes no mode from disk, is what the
# file is; one no longer tracked and ignored goes.
printf 'staged\n' >v3 && git add v3
check "a new file added to the index" 1
git add f6
check "a file staged as it is" 0
git -c core.fileMode=false update-index --chmod=+x f2 f6
check "files staged executable" 0
printf 'v3\n' >>.gitignore && git add .gitignore
check "the ignore rules changed and staged" 1
git rm -q --cached v3
check "an ignored file no longer tracked" 0
run_forge verify --reuse -- test ! -e v3
is "the copy does not have it" "$rc" 0
git reset -q && git checkout -q -- .gitignore && rm v3
check "all of it undone" 1

# A file made while a run was under way, once git had listed the working
# tree and before the source's side looked at every file (a new listing:
# no look), is in the index that side leaves to the next run, though not
# in the listing that index is kept for; the copy has it put right.
# Gone before the next run, with the same listing: its entry goes from
# both sides, and the copy does not keep it.
fake_git "$T/late-git" '
if [ "$SUB" = ls-files ] && [ -f "'"$T"'/make-late" ]; then
	case " $* " in
	*" -v "*)
		"$REAL_GIT" "$@"
		st=$?
		rm -f "'"$T"'/make-late"
		printf "late\n" >"'"$T"'/r/late"
		exit $st
		;;
	esac
fi
exec "$REAL_GIT" "$@"'
printf 'new too\n' >w
next_second
: >"$T/make-late"
saved_path=$PATH
PATH="$T/late-git:$PATH"
# (Not audited: a fresh copy would have the late file.)
run_forge verify --reuse --no-audit -- true
PATH=$saved_path
is "a file made as the run went on: the run passes" "$rc" 0
ok "made once git had listed the working tree" \
    test -f late -a ! -f "$T/make-late"
rm late
check "that file gone" 0-1
run_forge verify --reuse -- test ! -e late
is "the copy does not have it" "$rc" 0
forge gc --all >/dev/null 2>&1

# With core.symlinks false, a symlink is checked out as a file holding
# its target, and git keeps the link's mode for it from its entry: so
# do both sides of the proof, when it changes.  No copy is reused there
# (a copy parked under true would keep its links): each run's is fresh,
# the changed file copied whole, which git apply could not retarget.
new_repo "$T/nolinks"
git config forge.breakerThreshold 0
ln -s hello.txt link && git add link && git commit -q -m link
git config core.symlinks false
rm link && git checkout -- link
run_forge verify --reuse -- true
run_forge verify --reuse -- true
printf 'other.txt' >link
run_forge verify --reuse -v -- cat link
is "core.symlinks false, a link's file changed: the run passes" "$rc" 0
like "not reused, saying why" "$err" 'not reused: core.symlinks is false'
like "with git's tree" "$err" "tree $(git_tree | cut -c1-12)"
is "and the file" "$out" "other.txt"
run_forge verify --reuse -- sh -c 'printf x >link'
run_forge verify --reuse -v -- cat link
is "and the copy's changed by a command: the run passes" "$rc" 0
like "not reused" "$err" 'not reused: core.symlinks is false'
is "with the working tree's file" "$out" "other.txt"
forge gc --all >/dev/null 2>&1

# An attributes file the working state ignores: git converts by it in
# the working tree, and no copy has it -- so a reused copy's look, which
# takes the files it found unchanged as git last hashed them, could
# prove another tree than a fresh copy.  Not reused, saying why; the
# tree and the copy a fresh copy's.  (Found in review: a file staged
# renormalized, and an attributes file new with the rule ignoring it.)
new_repo "$T/attrs"
git config forge.breakerThreshold 0
printf 'a\r\nb\r\n' >t.txt && git add t.txt && git commit -q -m crlf
run_forge verify --reuse -- true
run_forge verify --reuse -- true
echo .gitattributes >>.git/info/exclude
printf '*.txt text eol=lf\n' >.gitattributes
git add --renormalize t.txt
lf='! grep -q "$(printf "\r")" t.txt'
run_forge verify --reuse -v -- sh -c "$lf"
is "an ignored attributes file, a file staged renormalized: passes" "$rc" 0
like "not reused, saying why" "$err" \
    'not reused: an ignored .gitattributes, which git reads and no copy has'
like "the tree a fresh copy's" "$err" "tree $(git_tree | cut -c1-12)"
git reset -q --hard && rm .gitattributes && git checkout -q -- .
sed -i '/^.gitattributes$/d' .git/info/exclude
run_forge verify --reuse -- true
run_forge verify --reuse -- true
mkdir -p sub && printf 'c\r\n' >sub/v.txt && git add sub/v.txt &&
    git commit -q -m sub
run_forge verify --reuse -- true
printf '*.txt text eol=lf\n' >sub/.gitattributes
printf '.gitattributes\n' >sub/.gitignore
git add --renormalize sub/v.txt
run_forge verify --reuse -v -- true
is "one in a directory, ignored by a rule as new: passes" "$rc" 0
like "not reused" "$err" 'not reused: an ignored .gitattributes'
like "with git's tree" "$err" "tree $(git_tree | cut -c1-12)"
rm sub/.gitignore
run_forge verify --reuse -v -- true
run_forge verify --reuse -v -- true
unlike "no longer ignored: reused again" "$err" 'not reused'
like "with git's tree" "$err" "tree $(git_tree | cut -c1-12)"
forge gc --all >/dev/null 2>&1

done_testing
