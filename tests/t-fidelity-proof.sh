#!/bin/sh
# forge proves the copy before running anything: the tree id of the copy
# must be that of the working state, which is reported and recorded; a
# copy that differs stops the run; --no-check skips the proof.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
ln -s hello.txt tracked-link
git add tracked-link && git commit -q -m link || exit 99
printf 'edit\n' >>hello.txt
printf 'staged\n' >staged.txt
git add staged.txt
printf 'untracked\n' >untracked.txt
chmod -x run.sh
ln -s hello.txt link
printf 'ignored\n' >x.o
want=$(expected_tree)
like "the expected tree id is a tree id" "$want" '^[0-9a-f]{40}$'

# By default the proof runs; the verdict line carries its tree id...
before=$(state_of "$T/r")
run_forge verify --isolated --verbose -- true
is "forge passes" "$rc" 0
short=$(printf '%s' "$want" | cut -c 1-12)
like "the verdict line names the tree of the working state" \
    "$(printf '%s\n' "$err" | tail -n 1)" \
    "^Verify: true \.\.\. Verdict: PASS \(isolated, tree $short, "
like "--verbose names it in full" "$err" "verifying tree $want \(HEAD "
# ...and the timeline records it.
like "the timeline records it" "$(forge log --json | tail -n 1)" \
    "\"tree\":\"$want\""
is "the source is unchanged" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""
# In place too, the tree is that of the working state.
run_forge verify --in-place -- true
like "an in-place run names the same tree" \
    "$(printf '%s\n' "$err" | tail -n 1)" "in place, tree $short, "
is "the source is unchanged by the in-place proof" "$(state_of "$T/r")" \
    "$before"

# A git that corrupts the copy: the real git, but after a successful
# `git apply`, it damages the copy as $CORRUPT says (untracked files are
# copied after that: damage to them would be repaired).  With
# CORRUPT_ALIGN, it starts `git worktree add` at the start of a second
# and returns from `git apply` a second after the damage.
real_git=$(command -v git)
mkdir "$T/bin"
cat >"$T/bin/git" <<WRAPPER
#!/bin/sh
for a; do [ "\$a" = apply ] || [ "\$a" = worktree ] && break; done
if [ "\$a" = worktree ] && [ -n "\${CORRUPT_ALIGN:-}" ]; then
	t=\$(date +%s)
	while [ "\$(date +%s)" = "\$t" ]; do :; done
fi
"$real_git" "\$@" || exit
[ "\$a" = apply ] || exit 0
case \$PWD in *"\${CORRUPT_IN:-}") ;; *) exit 0 ;; esac
p=\$CORRUPT_PATH
case \$CORRUPT in
append) printf x >>"\$p" ;;
rewrite) tr a-z A-Z <"\$p" >"\$p.tmp" && cat "\$p.tmp" >"\$p" && rm "\$p.tmp" ;;
delete) rm -f "\$p" ;;
extra) mkdir -p "\$(dirname "\$p")" && printf 'extra\n' >"\$p" ;;
extralink) ln -s hello.txt "\$p" ;;
extrarepo) (unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR \
	    GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
	"$real_git" init -q "\$p" &&
	"$real_git" -C "\$p" -c user.name=x -c user.email=x@x.invalid \
	    commit -q --allow-empty -m x) ;;
fifo) mkfifo "\$p" ;;
chmod) chmod +x "\$p" ;;
retarget) rm -f "\$p" && ln -s elsewhere "\$p" ;;
esac
[ -z "\${CORRUPT_ALIGN:-}" ] || sleep 1
WRAPPER
chmod +x "$T/bin/git"

# corrupted HOW PATH DESCRIPTION [SHOWN]: forge, with the corrupting git,
# refuses (125) naming PATH (or SHOWN), runs nothing, leaves nothing and
# changes nothing.
corrupted() {
	rm -f "$T/ran"
	before=$(state_of "$T/r")
	CORRUPT=$1 CORRUPT_PATH=$2 PATH="$T/bin:$PATH" run_forge verify \
	    --isolated -- sh -c 'touch "$1"' sh "$T/ran"
	is "$3: forge refuses" "$rc" 125
	like "$3: it says the copy is not the working state" "$err" \
	    'the copy is not the working state'
	like "$3: it names the path" "$err" "differs: ${4:-$2}\$"
	ok "$3: the command did not run" test ! -e "$T/ran"
	like "$3: the verdict is an error" "$(printf '%s\n' "$err" |
	    tail -n 1)" 'Verdict: ERROR .*tree unchecked'
	is "$3: the source is unchanged" "$(state_of "$T/r")" "$before"
	is "$3: nothing is left behind" "$(leftovers "$T/r")" ""
}

corrupted append hello.txt "a byte more in a patched file"
corrupted rewrite hello.txt "a patched file rewritten"
corrupted append src/main.c "a byte more in an unpatched file"
corrupted delete staged.txt "a file deleted"
corrupted delete src/main.c "an unpatched file deleted"
corrupted delete tracked-link "an unpatched link deleted"
corrupted extra extra.txt "a file too many"
# Where git looks at the paths forge wrote alone, forge counts the rest:
# anything else in the copy, anywhere, is still found.
corrupted extra src/extra.c "a file too many beside tracked ones"
corrupted extra new/deep/er/extra.txt "a file too many in a new directory"
corrupted extralink extra-link "a link too many"
corrupted extrarepo nested "a repository too many"
# A fifo git leaves out; forge, which cannot tell what it is, has git
# walk the whole copy, which passes it.
CORRUPT=fifo CORRUPT_PATH=fifo PATH="$T/bin:$PATH" run_forge verify \
    --isolated -- test -p fifo
is "a fifo in the copy: git adds none, nor is it counted" "$rc" 0
corrupted chmod hello.txt "a mode changed"
corrupted retarget tracked-link "a link retargeted"

# The stat data git keeps in the index says which files to read again:
# an unpatched file rewritten in place with the same size, in the second
# of the checkout, looks untouched to it; only the index file's own mtime
# (git's racy-entry check) tells, and the proof must keep it.
CORRUPT_ALIGN=1
export CORRUPT_ALIGN
corrupted rewrite src/main.c "an unpatched file rewritten in place, same size"
unset CORRUPT_ALIGN

# The proof covers nested repositories: damage in a submodule's copy.
git init -q "$T/sub-up" || exit 99
(cd "$T/sub-up" && printf 's\n' >s.txt && git add -A && git commit -q -m s) ||
    exit 99
git -c protocol.file.allow=always submodule add -q "$T/sub-up" sub || exit 99
git commit -q -m sub || exit 99
printf 'sub edit\n' >>sub/s.txt
CORRUPT_IN=/sub
export CORRUPT_IN
corrupted append s.txt "a byte more in a submodule's file" sub/s.txt
unset CORRUPT_IN

# --no-check: no proof; the damaged copy is verified, and says so.
CORRUPT=append CORRUPT_PATH=hello.txt PATH="$T/bin:$PATH" run_forge verify \
    --isolated --no-check -- tail -c 1 hello.txt
is "--no-check: forge passes" "$rc" 0
is "the command saw the damage nobody checked" "$out" x
like "the verdict line says the tree is unchecked" \
    "$(printf '%s\n' "$err" | tail -n 1)" \
    'Verdict: PASS \(isolated, tree unchecked, '
like "and so does the timeline" "$(forge log --json | tail -n 1)" \
    '"tree":null'
is "nothing is left behind" "$(leftovers "$T/r")" ""

# The same on the source's side: an index written afresh (no earlier
# index, so no entry was smudged as racily clean) and a file rewritten in
# place, same size, in the same second.  git itself sees the edit (the
# index's mtime says the entry is racy); the proof must see it too.
new_repo "$T/racy"
printf 'aaaa\n' >f
git add f && git commit -q -m f || exit 99
tries=0
while [ $tries -lt 5 ]; do
	t=$(date +%s)
	while [ "$(date +%s)" = "$t" ]; do :; done
	rm .git/index && git reset -q --hard HEAD && printf 'bbbb\n' >f
	[ "$(stat -c %Y f .git/index | uniq | wc -l)" -eq 1 ] && break
	tries=$((tries + 1))
done
if [ $tries -lt 5 ]; then
	sleep 1
	want=$(expected_tree)
	copy_is_working_state "a same-size edit in the second of a fresh index"
	like "the tree is that of the working state" \
	    "$(printf '%s\n' "$err" | tail -n 1)" \
	    "tree $(printf '%s' "$want" | cut -c 1-12), "
else
	skip "a same-size edit in the second of a fresh index" \
	    "could not write the index and the file in one second"
fi


# A replace ref: git's checkout writes the replacement's bytes under the
# replaced blob's id, and a proof that took the index's word for them
# would call that the working state.  forge's gits see the objects the
# ids name: the copy holds what the working tree holds, whatever the
# command's own git shows.
new_repo "$T/repl"
printf 'bad\n' >f
git add f && git commit -q -m f || exit 99
good=$(printf 'good\n' | git hash-object -w --stdin)
git replace "$(git rev-parse HEAD:f)" "$good" || exit 99
is "the working tree holds the real bytes, clean" \
    "$(cat f) $(git status --porcelain)" "bad "
run_forge verify --isolated --no-cache -- grep -q bad f
is "the copy holds them too" "$rc" 0
run_forge verify --isolated --no-cache -- grep -q good f
is "not the replacement's" "$rc" 1
run_forge verify --isolated --no-cache -- sh -c \
    'test "$(git cat-file blob HEAD:f)" = good'
is "the command's git still honours the replace ref" "$rc" 0
run_forge verify --rev=HEAD --no-cache -- grep -q bad f
is "--rev: the commit's bytes, proved" "$rc" 0
run_forge verify --staged --no-cache -- grep -q bad f
is "--staged too" "$rc" 0
git replace -d "$(git rev-parse HEAD:f)" >/dev/null
run_forge verify --isolated --cache -- grep -q bad f
is "without the replace ref: a PASS, cached" "$rc" 0
git replace "$(git rev-parse HEAD:f)" "$good" || exit 99
run_forge verify --isolated --cache -- grep -q bad f
is "with it, the same bytes: the cached PASS is true" "$rc" 0
run_forge verify --isolated --no-cache -- grep -q bad f
is "as a fresh run says" "$rc" 0
is "nothing is left behind" "$(leftovers "$T/repl")" ""

# An entry git added under attributes since dropped: "* text=auto" made
# the staged blob of a CRLF file with LF endings, and without the
# attribute the file hashes to another blob -- but its stat data is as
# git kept it, and git takes the entry's word.  The copy holds the file
# as the working tree has it, and the proof says so: the source's side
# looks at what differs afresh, and the tree is that of the files as they
# are (the tree expected_tree makes).
new_repo "$T/stale"
printf '* text=auto\n' >.gitattributes
git add .gitattributes && git commit -q -m attributes || exit 99
printf 'new\r\n' >n.txt
cp n.txt "$T/n.txt.want"
# Older than the index git writes next: not racily clean.
touch -d '@1700000000' n.txt
git add n.txt && git rm -q --cached .gitattributes && rm .gitattributes ||
    exit 99
stale=$(git write-tree)
want=$(expected_tree)
if [ "$(git status --porcelain -- n.txt)" = "A  n.txt" ] &&
    [ "$stale" != "$want" ]; then
	run_forge verify --isolated --no-cache -- cmp -s n.txt \
	    "$T/n.txt.want"
	is "an entry stale against today's attributes: forge passes" "$rc" 0
	like "with the tree of the file as it is" \
	    "$(printf '%s\n' "$err" | tail -n 1)" \
	    "tree $(printf '%s' "$want" | cut -c 1-12), "
	run_forge verify --reuse --no-cache -- cmp -s n.txt "$T/n.txt.want"
	run_forge verify --reuse --no-cache -- cmp -s n.txt "$T/n.txt.want"
	is "reused: it passes too" "$rc" 0
	like "reused, the same tree" "$(printf '%s\n' "$err" | tail -n 1)" \
	    "reused, (audited, )?tree $(printf '%s' "$want" | cut -c 1-12), "
	is "the user's index is as it was" "$(git write-tree)" "$stale"
	forge gc --all >/dev/null 2>&1
	is "nothing is left behind" "$(leftovers "$T/stale")" ""
else
	skip "an entry stale against today's attributes" \
	    "git read the file again: its entry is not stale"
fi

done_testing
