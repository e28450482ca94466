#!/bin/sh
# forge verify --staged: the copy is HEAD plus the index, the tree git
# commit would record -- no unstaged change, no untracked file, no
# intent-to-add entry -- proved against git write-tree of that index.
# And --rev: any commit's tree, whatever the working tree holds.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
# Failures here are expected: the breaker is t-nobreaker.sh's.
git config forge.breakerThreshold 0
# Run in the copy: what it holds, and what git says of it.
PROBE='cd "$(git rev-parse --show-toplevel)" || exit 9
for f in hello.txt staged.txt ita.txt notes.txt src/main.c; do
	if test -f "$f"; then echo "$f: $(tail -n 1 "$f")"; else echo "$f: -"; fi
done
echo "status: $(git status --porcelain --untracked-files=all | tr "\n" " ")"'

printf 'staged\n' >>hello.txt
git add hello.txt
printf 'unstaged\n' >>hello.txt
printf 'new\n' >staged.txt
git add staged.txt
printf 'notes\n' >notes.txt
printf 'ita\n' >ita.txt
git add -N ita.txt
printf 'int broken;\n' >>src/main.c
want=$(git write-tree)
before=$(state_of "$T/r")

run_forge verify --staged -- sh -c "$PROBE"
is "--staged passes" "$rc" 0
is "the copy holds the staged content, not the unstaged one" \
    "$(printf '%s\n' "$out" | sed -n 's/^hello.txt: //p')" staged
is "a staged new file is there" \
    "$(printf '%s\n' "$out" | sed -n 's/^staged.txt: //p')" new
is "an untracked file is not" \
    "$(printf '%s\n' "$out" | sed -n 's/^notes.txt: //p')" -
is "nor an intent-to-add one, which commit leaves out" \
    "$(printf '%s\n' "$out" | sed -n 's/^ita.txt: //p')" -
is "an unstaged change to another file is not" \
    "$(printf '%s\n' "$out" | sed -n 's/^src\/main.c: //p')" \
    'int main(void) { return 0; }'
is "the copy's changes are staged there, as here" \
    "$(printf '%s\n' "$out" | sed -n 's/^status: //p')" \
    "M  hello.txt A  staged.txt "
like "the verdict names the mode and the tree" "$err" \
    "Verdict: PASS \\(staged, tree $(printf '%.12s' "$want"),"
is "the timeline's mode is staged, its tree write-tree's" \
    "$(tail -n 1 "$tl" | "$JSONPICK" mode tree)" "staged	$want"
is "the source is untouched" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# A failing check of the staged tree fails, whatever the working tree.
run_forge verify --staged -- sh -c 'grep -q staged hello.txt && ! grep -q unstaged hello.txt'
is "a check of the staged content sees only it" "$rc" 0
run_forge verify --staged -- grep -q broken src/main.c
is "an unstaged breakage plays no part" "$rc" 1

# GIT_INDEX_FILE, relative to the top as git gives it, from a
# subdirectory: that index is the one verified.
cp .git/index .git/other-index
printf 'other\n' >other.txt
GIT_INDEX_FILE=.git/other-index git add other.txt
git rm -q --cached staged.txt
(
	cd src || exit 99
	GIT_INDEX_FILE=.git/other-index
	export GIT_INDEX_FILE
	run_forge verify --staged -- sh -c 'test -f ../other.txt && test -f ../staged.txt'
	echo "$rc" >"$T/rc"
	echo "$err" >"$T/err"
)
is "GIT_INDEX_FILE names the index verified" "$(cat "$T/rc")" 0
run_forge verify --staged -- sh -c 'test -f other.txt || test -f staged.txt'
is "without it, the repository's own" "$rc" 1
rm -f .git/other-index

# --no-check skips the proof, and says so in the tree.
run_forge verify --staged --no-check -- true
like "--no-check: the tree is unchecked" "$err" 'staged, tree unchecked'

# A copy that is not the staged tree is refused: a smudge filter that
# changes what checkout writes, which its clean filter does not undo.
printf 'f.txt filter=twist\n' >.gitattributes
printf 'filtered\n' >f.txt
git add f.txt .gitattributes
git commit -q -m 'f' f.txt .gitattributes
git config filter.twist.smudge 'sed s/filtered/twisted/'
git config filter.twist.clean cat
printf 'filtered again\n' >f.txt
git add f.txt
run_forge verify --staged -- touch "$T/ran"
is "a copy that differs from the staged tree is refused" "$rc" 125
like "saying it is not the staged tree" "$err" 'the copy is not the staged tree'
like "and what differs" "$err" 'differs: f.txt'
not_ok "nothing ran" test -e "$T/ran"
git config --unset filter.twist.smudge

# Unmerged entries: refused, with the paths.
rm -f "$T/ran"
git reset -q --hard
git clean -fdq
git checkout -q -b side
printf 'side\n' >hello.txt
git commit -q -am side
git checkout -q main
printf 'main\n' >hello.txt
git commit -q -am main
git merge -q side >/dev/null 2>&1
run_forge verify --staged -- touch "$T/ran"
is "an index with unmerged entries is refused" "$rc" 125
like "saying why" "$err" 'the index has unmerged entries'
like "and which" "$err" 'unmerged: hello.txt'
not_ok "nothing ran" test -e "$T/ran"
is "the refusal is recorded as an ERROR" \
    "$(tail -n 1 "$tl" | "$JSONPICK" mode verdict)" "staged	ERROR"
git merge --abort

# --rev: an older commit's tree, whatever the working tree and index hold.
old=$(git rev-parse HEAD~2)
printf 'dirty\n' >>hello.txt
git add hello.txt
printf 'untracked\n' >u.txt
before=$(state_of "$T/r")
run_forge verify --rev=HEAD~2 -- sh -c 'echo "$(git rev-parse HEAD) $(git status --porcelain --untracked-files=all | wc -l)"; cat hello.txt; test ! -e u.txt'
is "--rev on an older commit passes" "$rc" 0
is "the copy is that commit, clean" "$(printf '%s\n' "$out" | sed -n 1p)" "$old 0"
is "holding its files" "$(printf '%s\n' "$out" | sed 1d | tr '\n' ' ')" \
    "hello "
is "the timeline's mode is rev, with the commit and its tree" \
    "$(tail -n 1 "$tl" | "$JSONPICK" mode rev tree)" \
    "rev	$old	$(git rev-parse "$old^{tree}")"
is "the source is untouched" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""
# Submodules: each at the commit the tree records, from its local
# repository; one not initialized stays an empty directory.
git reset -q --hard
git clean -fdq
new_repo "$T/lib"
printf 'v1\n' >version
git add version && git commit -q -m v1
cd "$T/r" || exit 99
git submodule -q add "$T/lib" lib 2>/dev/null
git commit -q -m 'the lib submodule'
printf 'v2\n' >lib/version
git -C lib commit -q -am v2
git add lib
v2=$(git -C lib rev-parse HEAD)
v1=$(git -C lib rev-parse HEAD~1)
printf 'v3\n' >lib/version
git -C lib commit -q -am v3
printf 'dirty\n' >lib/version
SUBPROBE='cat lib/version; git -C lib rev-parse HEAD; git status --porcelain'
run_forge verify --staged -- sh -c "$SUBPROBE"
is "--staged: the submodule is copied" "$rc" 0
is "at the commit the staged gitlink names, without its changes" \
    "$(printf '%s\n' "$out" | sed -n 1,2p | tr '\n' ' ')" \
    "v2 $v2 "
like "the copy's git status shows the staged gitlink" "$out" '^M  lib$'
run_forge verify --rev=HEAD -- sh -c "$SUBPROBE"
is "--rev: the submodule at the commit HEAD records" \
    "$(printf '%s\n' "$out" | sed -n 1,2p | tr '\n' ' ')" \
    "v1 $v1 "
git clone -q "$T/r" "$T/clone"
cd "$T/clone" || exit 99
run_forge verify --rev=HEAD -- sh -c 'test -d lib && test -z "$(ls -A lib)"'
is "an uninitialized submodule is an empty directory" "$rc" 0
cd "$T/r" || exit 99

# Killed outright once the submodule's copy is made: forge gc removes
# both copies' registrations, the submodule's too.
FORGE_TEST_STALL=proof start_forge "$T/stall.err" verify --staged -- true
wait_for 30 grep -q "test stall: proof" "$T/stall.err"
is "killed at the proof: the submodule's copy is registered" \
    "$(git -C lib worktree list --porcelain | grep -c '^worktree ')" 2
kill -KILL "$forge_pid"
wait "$forge_pid" 2>/dev/null
run_forge gc
is "forge gc then succeeds" "$rc" 0
is "nothing is left of the top copy" "$(leftovers "$T/r")" ""
is "nor of the submodule's" \
    "$(git -C lib worktree list --porcelain | grep -c '^worktree ')" 1
git reset -q lib

run_forge verify --rev=no-such-thing -- touch "$T/ran"
is "--rev naming no commit is a usage error" "$rc" 64
like "saying so" "$err" '--rev=no-such-thing: no such commit'
# Anything but one commit is a usage error, said before anything is
# built or recorded: negations, a commit's parents, an option, two
# revisions, a revision and a range.  (Each of these names commits here;
# a range alone is each of its commits in turn, t-range.sh.)
tl="$T/r/.git/forge/timeline.jsonl"
for rev in '^HEAD' 'HEAD^@' 'HEAD^!' 'HEAD^-' 'HEAD^-1' '--all' '-n' \
    "HEAD --rev=HEAD~1" "HEAD --rev=HEAD~1..HEAD" "HEAD~1..HEAD --rev=HEAD"; do
	events=$(wc -l <"$tl")
	# shellcheck disable=SC2086  # the last one is two options
	run_forge verify --rev=$rev -- touch "$T/ran"
	is "--rev=$rev is a usage error" "$rc" 64
	like "--rev=$rev: saying only one commit is accepted" "$err" \
	    'only one commit is accepted'
	ok "--rev=$rev: nothing ran" test ! -e "$T/ran"
	is "--rev=$rev: nothing was recorded" "$(wc -l <"$tl")" "$events"
	is "--rev=$rev: nothing was built" "$(leftovers "$T/r")" ""
done
like "a range is called one where one commit is wanted" \
    "$(forge verify --change=HEAD~1..HEAD 2>&1)" \
    'HEAD~1\.\.HEAD: a range'
run_forge verify --rev=HEAD --rev=HEAD -- true
is "the same commit twice is one" "$rc" 0
run_forge verify --rev=HEAD --staged -- true
is "--rev and --staged together are refused" "$rc" 64
run_forge verify --staged --in-place -- true
is "--staged --in-place is refused" "$rc" 64
run_forge verify --staged --change -- true
is "--staged --change is refused" "$rc" 64
like "--change is about the working state" "$err" \
    '--change reports on the working state'
run_forge verify --rev=HEAD --change=HEAD~1 -- true
is "--rev --change too" "$rc" 64

# A message search may hold "..": one commit all the same.
new_repo "$T/msg"
git commit -q --allow-empty -m 'fix..bug'
git commit -q --allow-empty -m 'later'
run_forge verify --rev=':/fix..bug' -- sh -c 'git log -1 --format=%s'
is "--rev=:/fix..bug is one commit" "$rc" 0
is "that commit" "$out" 'fix..bug'

# The staged tree's files are checked out as that tree says, not HEAD's
# kept where the blob is the same: a staged attributes file changes how
# an unchanged file is written.
new_repo "$T/attr"
printf 'a\nb\n' >f.txt
git add f.txt
git commit -q -m lf
printf 'f.txt text eol=crlf\n' >.gitattributes
git add .gitattributes
CR='grep -q "$(printf "\r")" f.txt'
run_forge verify --staged --no-cache -- sh -c "$CR"
is "--staged: a staged eol=crlf has f.txt checked out with CRLF" "$rc" 0
git commit -q -m crlf
run_forge verify --rev=HEAD --no-cache -- sh -c "$CR"
is "as the commit of that tree has" "$rc" 0
git rm -q --cached .gitattributes
run_forge verify --staged --no-cache -- sh -c "! $CR"
is "and one staged away: LF, as a checkout of that tree" "$rc" 0

done_testing
