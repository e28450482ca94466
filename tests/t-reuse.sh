#!/bin/sh
# --reuse and --incremental: a copy parked after a run and brought up to
# date by the next one, never trusted without the proof; the pool's
# limits, concurrency, expiry and removal.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git config forge.breakerThreshold 0
for i in 1 2 3 4 5 6 7 8; do printf 'file %s\n' "$i" >"f$i"; done
git add -A && git commit -q -m files

# A first run makes a fresh copy and parks it.
printf 'edited\n' >>f1
printf 'untracked\n' >u1
run_forge verify --reuse -- sh -c 'cat f1; echo junk >junk.txt;
    mkdir -p build; echo out >build/out; echo o >x.o; pwd >"$1"' sh \
    "$T/where1"
is "a first --reuse run passes" "$rc" 0
like "its verdict line says the copy was fresh" "$err" \
    'Verdict: PASS \(isolated, fresh, tree [0-9a-f]{12}'
like "it says the copy stays for the next run" "$err" \
    'the copy stays at .* for the next run to reuse'
is "one copy is parked" "$(parked)" 1
is "the timeline says so" \
    "$(last_verify "$T/r" | "$JSONPICK" mode copy)" "$(printf 'isolated\tfresh')"

# The next run reuses it: same place, up to date, nothing of the last.
printf 'again\n' >>f2
rm u1
printf 'other\n' >u2
git rm -q f3
run_forge verify --reuse -v -- sh -c "$(unaudited 'pwd >"$1"; ls -A >"$2";
    git status --porcelain >"$3"'); cat f2" sh "$T/where2" "$T/ls2" \
    "$T/status2"
is "the second run passes" "$rc" 0
like "its verdict line says reused" "$err" \
    'Verdict: PASS \(isolated, reused, (audited, )?tree [0-9a-f]{12}'
is "it ran in the same copy" "$(cat "$T/where2")" "$(cat "$T/where1")"
is "the copy holds the working state, and nothing of the last run" \
    "$(cat "$T/ls2" | tr '\n' ' ')" \
    ".git .gitignore f1 f2 f4 f5 f6 f7 f8 hello.txt run.sh src u2 "
like "the new edit is there" "$out" '^again$'
is "the timeline says reused" "$(last_verify "$T/r" | "$JSONPICK" copy)" reused
is "still one copy parked" "$(parked)" 1

# The copy is proved like a fresh one: verify the manifest.
run_forge verify --reuse -- sh -c '"$1" -a . >"$2"' sh "$TREELIST" \
    "$T/copy.m"
"$TREELIST" -a . | grep -v '^\.git	' >"$T/src.m"
grep -v '^\.git	' "$T/copy.m" >"$T/copy2.m"
# The source has no ignored files, so the manifests must be equal.
if cmp -s "$T/src.m" "$T/copy2.m"; then
	pass "a reused copy is the working state, file for file"
else
	fail "a reused copy is the working state, file for file" \
	    "$(diff "$T/src.m" "$T/copy2.m" | head -n 20)"
fi

# HEAD moves: a commit, a reset, a branch switch.
git add -A && git commit -q -m more
run_forge verify --reuse -- sh -c 'git log --format=%s -1 HEAD'
is "after a commit, the copy is at the new HEAD" "$out" more
git reset -q --hard HEAD~1
run_forge verify --reuse -- sh -c 'git log --format=%s -1 HEAD; ls f3'
is "after a reset, at the older one, with its files" "$out" \
    "$(printf 'files\nf3')"
git checkout -q -b other
printf 'branch file\n' >b.txt
git add b.txt && git commit -q -m branch
git checkout -q main
run_forge verify --reuse -- sh -c 'ls b.txt 2>&1 || true'
like "after a branch switch, the other branch's file is gone" "$out" \
    'No such file'
printf 'edited\n' >>f1
git stash -q
run_forge verify --reuse -- sh -c 'cat f1'
is "after a stash, the stashed edit is gone from the copy" "$out" \
    "file 1"
git stash pop -q
run_forge verify --reuse -- sh -c 'cat f1'
is "and back after the pop" "$out" "$(printf 'file 1\nedited')"

# What a command did to the copy's git state is undone.
run_forge verify --reuse -- sh -c 'git update-index --assume-unchanged f4
    echo tampered >f4; git update-index --skip-worktree f5;
    echo tampered >f5; git checkout -q -b in-copy; git add -A;
    git commit -qm in-copy; echo x >"$(git rev-parse --git-dir)/MERGE_HEAD"'
is "a command that rewrites the copy's git state passes" "$rc" 0
run_forge verify --reuse -- sh -c 'cat f4 f5;
    git status --porcelain --untracked-files=no;
    ls "$(git rev-parse --git-dir)/MERGE_HEAD" 2>/dev/null; true'
is "the next run had the working tree's files, not the tampered ones" \
    "$out" "$(printf 'file 4\nfile 5\n M f1')"
git branch -D in-copy >/dev/null 2>&1

# Damage and tampering between runs: repaired, or rebuilt.
copy=$(cat "$T/where1")
printf 'tampered\n' >"$copy/f6"
chmod 000 "$copy/src"
run_forge verify --reuse -- cat f6
is "a copy tampered with between runs: the run still passes" "$rc" 0
is "with the working tree's content" "$out" "file 6"
chmod 755 "$copy/src" 2>/dev/null || true
printf 'gitdir: %s\n' "$T/elsewhere" >"$copy/.git"
run_forge verify --reuse -- cat f6
is "a copy whose .git was rewritten: the run passes" "$rc" 0
like "it says the copy was rebuilt" "$err" \
    'could not be brought up to date: building a fresh one'
like "a fresh copy it was" "$err" 'Verdict: PASS \(isolated, fresh'
is "and one copy is parked, not two" "$(parked)" 1
run_forge verify --reuse -- true
like "the rebuilt copy is reused in turn" "$err" 'isolated, reused'

# A copy with something mounted in it is not reused.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
	copy=$(ls -d "$TMPDIR"/forge-*/r)
	mkdir -p "$T/outside"
	echo precious >"$T/outside/keep"
	unshare -m sh -c 'mount --bind "$1" "$2/src" &&
	    "$3" verify --reuse -- true' sh "$T/outside" "$copy" "$FORGE" \
	    >"$T/mnt.out" 2>&1
	is "a mount in the parked copy: the file it covers survives" \
	    "$(cat "$T/outside/keep")" precious
	like "the run says it took a fresh copy" "$(cat "$T/mnt.out")" \
	    'Verdict: PASS \(isolated, fresh'
else
	skip "a mount in the parked copy" "needs root and unshare -m"
	skip "a mount in the parked copy: the run" "needs root and unshare -m"
fi

# A mount made in the copy once it is claimed, before forge looks at it
# (by a git wrapper, as forge asks git whether the Makefile beside it is
# ignored): forge removes nothing in it, and takes a fresh copy.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
	run_forge verify --reuse -- true
	copy=$(ls -d "$TMPDIR"/forge-*/r)
	mkdir -p "$T/later" "$T/mgit"
	echo precious >"$T/later/keep"
	cat >"$T/mgit/git" <<EOF
#!/bin/sh
case " \$* " in
*" check-ignore "*)
	mount --bind "$T/later" "$copy/src" || exit 99 ;;
esac
exec "$(command -v git)" "\$@"
EOF
	chmod +x "$T/mgit/git"
	: >Makefile
	PATH="$T/mgit:$PATH" unshare -m sh -c '"$1" verify --reuse -- true' \
	    sh "$FORGE" >"$T/mnt2.out" 2>&1
	rm Makefile
	is "a mount made after the claim: the file in it survives" \
	    "$(cat "$T/later/keep" 2>&1)" precious
	like "forge says so" "$(cat "$T/mnt2.out")" \
	    'a file system is mounted at .*src in the reused copy'
	like "and the run passes in a fresh copy" "$(cat "$T/mnt2.out")" \
	    'Verdict: PASS \(isolated, fresh'
else
	skip "a mount made after the claim" "needs root and unshare -m"
	skip "a mount made after the claim: forge says so" \
	    "needs root and unshare -m"
	skip "a mount made after the claim: the run" "needs root and unshare -m"
fi

# mount_at_stall PHASE OUT DIR TARGET ARGS...: forge verify ARGS in a
# mount namespace of its own, held at the test stall PHASE, where DIR is
# bind-mounted on TARGET before it goes on; what it says into OUT.
mount_at_stall() {
	_phase=$1 _out=$2 _dir=$3 _target=$4
	shift 4
	rm -f "$T/go"
	FORGE_TEST_STALL=$_phase FORGE_TEST_STALL_RELEASE="$T/go" \
	    unshare -m sh -c '
	    phase=$1 out=$2 dir=$3 target=$4 go=$5
	    shift 5
	    "$@" >"$out" 2>&1 &
	    pid=$!
	    i=0
	    while ! grep -q "test stall: $phase" "$out" &&
	        [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	    mount --bind "$dir" "$target"
	    : >"$go"
	    wait $pid' sh "$_phase" "$_out" "$_dir" "$_target" "$T/go" \
	    "$FORGE" verify "$@"
}

# A mount made in the copy after forge looked at it, as it is about to
# copy the working tree's changes into it (a test stall holds it there):
# nothing is written, removed or made in what is mounted, and the run
# does not pass on a copy that is not the working state.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
	run_forge verify --reuse -- true
	run_forge verify --reuse -- true
	copy=$(ls -d "$TMPDIR"/forge-*/r)
	rm -rf "$T/late2" && mkdir -p "$T/late2"
	printf 'theirs\n' >"$T/late2/keep"
	ls -A src >"$T/late2.list"
	for f in $(cat "$T/late2.list"); do
		[ -f "src/$f" ] && printf 'outside\n' >"$T/late2/$f"
	done
	ls -A "$T/late2" >"$T/late2.before"
	for f in $(cat "$T/late2.list"); do
		[ -f "src/$f" ] && printf 'changed\n' >>"src/$f"
	done
	mount_at_stall prefix "$T/late2.out" "$T/late2" "$copy/src" \
	    --reuse -- true
	ok "a mount made as the changes are copied: forge stalled there" \
	    grep -q "test stall: prefix" "$T/late2.out"
	is "nothing in it was written" "$(cat "$T/late2/keep")" theirs
	is "nor added or removed" "$(ls -A "$T/late2")" "$(cat "$T/late2.before")"
	ok "nor any file changed" sh -c '! grep -rl changed "$1"' sh "$T/late2"
	unlike "and the run did not pass in that copy" "$(cat "$T/late2.out")" \
	    'Verdict: PASS \(isolated, reused'
	run_forge verify --reuse -- sh -c 'cat src/*'
	is "the next run passes" "$rc" 0
	like "with the working tree's files" "$out" 'changed'
	git checkout -q -- src
else
	skip "a mount made as the changes are copied" "needs root and unshare -m"
	for n in 1 2 3 4 5 6; do
		skip "a mount made as the changes are copied ($n)" \
		    "needs root and unshare -m"
	done
fi

# A file forge put in an incremental copy, gone from the working state
# since: removed from the copy as it is brought up to date -- but not
# through a mount made in its place after forge looked at the copy (a
# test stall holds it there).
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
	new_repo "$T/im"
	git config forge.breakerThreshold 0
	mkdir new
	printf 'mine\n' >new/gone.txt
	run_forge verify --incremental -- true
	run_forge verify --incremental -- true
	copy=$(ls -d "$TMPDIR"/forge-*/im)
	rm new/gone.txt
	rm -rf "$T/late3" && mkdir -p "$T/late3"
	printf 'theirs\n' >"$T/late3/gone.txt"
	mount_at_stall sync "$T/late3.out" "$T/late3" "$copy/new" \
	    --incremental -- ls new
	ok "a mount where a file forge put is to go: forge stalled there" \
	    grep -q "test stall: sync" "$T/late3.out"
	is "the file in the mount survives" "$(cat "$T/late3/gone.txt")" theirs
	is "and nothing else is in it" "$(ls -A "$T/late3")" gone.txt
	like "forge says so" "$(cat "$T/late3.out")" \
	    'mounted at .*/new in the reused copy'
	like "and does not use that copy" "$(cat "$T/late3.out")" \
	    'could not be brought up to date: building a fresh one'
	forge gc --all >/dev/null 2>&1
	is "forge gc then removes every copy" \
	    "$(ls -d "$TMPDIR"/forge-*/im 2>/dev/null)" ""
	cd "$T/r" || exit 99
else
	skip "a mount where a file forge put is to go" \
	    "needs root and unshare -m"
	for n in 1 2 3 4 5; do
		skip "a mount where a file forge put is to go ($n)" \
		    "needs root and unshare -m"
	done
fi

# The pool: at most forge.reuseCopies, per working tree and kind.
forge gc --all >/dev/null 2>&1
is "gc --all removes every parked copy" "$(parked)" 0
is "and their records" "$(ls "$common/forge/copies" | wc -l | tr -d ' ')" 0
git config forge.reuseCopies 2
i=0
while [ $i -lt 16 ]; do
	forge verify --reuse -- sleep 0.3 >"$T/c$i.out" 2>&1 &
	i=$((i + 1))
done
wait
fails=0
i=0
while [ $i -lt 16 ]; do
	grep -q 'Verdict: PASS' "$T/c$i.out" || fails=$((fails + 1))
	i=$((i + 1))
done
is "16 concurrent --reuse runs all pass" "$fails" 0
is "and leave forge.reuseCopies copies parked" "$(parked)" 2
i=0
while [ $i -lt 8 ]; do
	forge verify --reuse -- sh -c 'pwd; sleep 0.3' >"$T/d$i.out" 2>&1 &
	i=$((i + 1))
done
wait
is "runs at once never share a copy" \
    "$(cat "$T"/d*.out | grep "^$TMPDIR" | sort | uniq -d)" ""
is "still two parked" "$(parked)" 2
git config forge.reuseCopies 0
run_forge verify --reuse -- true
is "with forge.reuseCopies 0 a run still reuses a parked one" "$rc" 0
is "but parks nothing more: one fewer" "$(parked)" 1
git config --unset forge.reuseCopies

# A plain run never takes a parked copy, nor removes it.
run_forge verify --isolated -- true
is "a run without --reuse leaves parked copies alone" "$(parked)" 1
run_forge status
is "forge status runs beside them" "$rc" 0
like "forge status lists the parked copy with its kind, size and last use" \
    "$out" '^  reusable +worktree +[0-9.]+[BKMGT]  last used 20[0-9-]+T[0-9:]+Z  /'
run_forge status --json
is "forge status --json lists it" "$(printf '%s\n' "$out" |
    "$JSONPICK" copies.reusable.0.kind copies.reusable.0.incremental \
    copies.reusable.0.in_use)" "$(printf 'worktree\tfalse\tfalse')"
start_forge "$T/busy.err" verify --reuse -- sh -c 'echo up >"$1"; sleep 30' \
    sh "$T/busy"
wait_for 10 test -s "$T/busy"
run_forge status --json
is "a copy a run has now is in use" "$(printf '%s\n' "$out" |
    "$JSONPICK" copies.reusable.0.in_use)" true
kill -TERM "$forge_pid"
wait "$forge_pid" 2>/dev/null
is "a run interrupted in a reused copy parks it again" "$(parked)" 1

# Expiry: unused for forge.reuseExpiry, gc removes it.
forge gc >/dev/null 2>&1
is "gc keeps a recently used copy" "$(parked)" 1
for rec in "$common"/forge/copies/*; do
	touch -d '10 days ago' "$rec"
done
run_forge gc --dry-run
like "gc --dry-run names the expired copy" "$out" 'would remove .*reusable'
is "and leaves it" "$(parked)" 1
git config forge.reuseExpiry 30d
forge gc >/dev/null 2>&1
is "a longer forge.reuseExpiry keeps it" "$(parked)" 1
git config --unset forge.reuseExpiry
run_forge gc
like "gc says it removed it" "$out" 'removed .*reusable'
is "gc removes a copy unused for 7 days" "$(parked)" 0
git config forge.reuseExpiry soon
run_forge verify --reuse -- true
is "a bad forge.reuseExpiry is refused" "$rc" 64
like "with the reason" "$err" 'forge.reuseexpiry: not never or a duration'
git config --unset forge.reuseExpiry

# A run killed outright while it uses a parked copy: reclaimed as usual.
run_forge verify --reuse -- true
start_forge "$T/kill.err" verify --reuse -- sh -c 'echo up >"$1"; sleep 30' \
    sh "$T/up"
wait_for 10 test -s "$T/up"
kill -9 "$forge_pid"
wait "$forge_pid" 2>/dev/null
run_forge gc
is "after a SIGKILL, gc removes the copy in use" "$(parked)" 0
is "and nothing is left" "$(leftovers "$T/r")" ""

# --incremental: the copy's own ignored files stay; setup runs once.
printf 'gen.cfg\n' >>.gitignore
git add .gitignore && git commit -q -m ignore-gen
setups=$(unaudited 'echo setup ran >>"$HOME/setups"')
git config forge.setup "$setups; echo c >gen.cfg"
# Its inputs: a file none of the edits below touches.
git config forge.setupInputs setup.cfg
printf 'ignored in the source\n' >source.o
run_forge verify --incremental -- sh -c 'ls source.o 2>/dev/null;
    cat gen.cfg; echo built >obj.o'
is "a first --incremental run passes" "$rc" 0
is "the source's ignored files are never copied" "$out" c
like "its verdict line says incremental" "$err" \
    'Verdict: PASS \(isolated, incremental, tree'
is "the timeline says incremental" \
    "$(last_verify "$T/r" | "$JSONPICK" incremental)" true
printf 'edit\n' >>f2
run_forge verify --incremental -- sh -c 'cat obj.o gen.cfg; echo u >junk'
is "the next run finds its build output" "$out" "$(printf 'built\nc')"
is "setup ran once, when the copy was made" "$(cat "$HOME/setups" |
    wc -l | tr -d ' ')" 1
run_forge verify --incremental -- sh -c 'ls junk 2>&1 || true'
like "untracked files it made are gone" "$out" 'No such file'
# A file of the working state's, which forge put in the copy, that the
# working state then ignores: not the copy's own, so gone from it -- also
# when the copy is brought up to date the whole way (a .gitignore
# changed).  The steps that look for the build output print what they
# find and pass either way: an audit's fresh copy has none.
printf 'secret\n' >later-ignored
run_forge verify --incremental -- true
exclude=$(git rev-parse --git-path info/exclude)
cp "$exclude" "$T/exclude.saved"
printf 'later-ignored\n' >>"$exclude"
printf '*.tmp\n' >>.gitignore
run_forge verify --incremental -- sh -c 'ls later-ignored 2>&1; cat obj.o;
    true'
is "a file the working state now ignores: the run passes" "$rc" 0
like "and the copy has it no more" "$out" 'later-ignored.*No such file'
like "while its own build output stays" "$out" 'built'
# Put there by a run that proved nothing (--no-check), then ignored: the
# same, whichever way the copy is brought up to date.
printf 'secret\n' >nocheck-secret
run_forge verify --incremental --no-check -- true
printf 'nocheck-secret\n' >>"$exclude"
run_forge verify --incremental -- sh -c 'ls nocheck-secret 2>&1; cat obj.o;
    true'
is "put there by a run with no proof, then ignored: the run passes" "$rc" 0
like "and the copy has it no more" "$out" 'nocheck-secret.*No such file'
like "while its own build output stays" "$out" 'built'
# What forge put there not known (a copy an older forge parked, a list
# tampered with): every ignored file of the copy's goes, once.
state=$(ls "$TMPDIR"/forge-*/.forge/carry/state.paths)
copydir=$(dirname "$(dirname "$(dirname "$state")")")
printf 'keep\n' >"$copydir/outside"
printf '../outside\0.git\0//\0' >"$state"
run_forge verify --incremental -- sh -c 'ls obj.o 2>&1; echo built >obj.o'
is "a list tampered with: the run passes" "$rc" 0
like "the copy's ignored files are gone" "$out" 'obj.o.*No such file'
is "nothing it names outside the copy was touched" \
    "$(cat "$copydir/outside")" keep
rm -f "$copydir/outside"
rm -f "$state"
run_forge verify --incremental -- sh -c 'ls obj.o 2>&1; echo built >obj.o'
is "no list: the run passes" "$rc" 0
like "the copy's ignored files are gone" "$out" 'obj.o.*No such file'
run_forge verify --incremental -- sh -c 'cat obj.o; true'
like "the next run has its build output again" "$out" built
cp "$T/exclude.saved" "$exclude"
git checkout -q -- .gitignore
rm later-ignored nocheck-secret
printf 'dirty\n' >>f7
printf 'dirty\n' >>f8
run_forge verify --incremental -- stat -c %y f7 f8
t7=$(printf '%s\n' "$out" | sed -n 1p)
t8=$(printf '%s\n' "$out" | sed -n 2p)
sleep 1
printf 'changed again\n' >>f8
run_forge verify --incremental -- stat -c %y f7 f8
is "an uncommitted edit unchanged since the last run keeps its time" \
    "$(printf '%s\n' "$out" | sed -n 1p)" "$t7"
isnt_t8=$(printf '%s\n' "$out" | sed -n 2p)
if [ "$isnt_t8" != "$t8" ]; then
	pass "a file changed since gets a new one"
else
	fail "a file changed since gets a new one" "both $t8"
fi
run_forge verify --incremental --setup -- true
is "--setup runs it again" "$(wc -l <"$HOME/setups" | tr -d ' ')" 2
git config forge.setup "$setups; echo d >gen.cfg"
run_forge verify --incremental -- cat gen.cfg
is "a changed setup step runs again" "$out" d
run_forge verify --reuse -- sh -c 'ls obj.o 2>&1 || true; cat gen.cfg'
like "a --reuse run takes no incremental copy: no build output" "$out" \
    'No such file'
like "and its setup ran (a reused copy is clean)" "$out" 'd$'
git config --unset forge.setup

# Bad combinations.
run_forge verify --in-place --reuse -- true
is "--reuse --in-place is refused" "$rc" 64
run_forge verify --no-reuse --incremental -- true
is "--no-reuse --incremental is refused" "$rc" 64
git config forge.reuse true
run_forge verify --isolated --no-reuse -- true
like "--no-reuse overrides forge.reuse" "$err" 'Verdict: PASS \(isolated, tree'
run_forge verify --isolated -- true
like "forge.reuse makes --isolated runs reuse" "$err" \
    'Verdict: PASS \(isolated, (fresh|reused)'
git config forge.reuse maybe
run_forge verify --isolated -- true
is "a bad forge.reuse is refused" "$rc" 64
git config --unset forge.reuse

# --no-reuse is a fresh copy, as --reuse is a reused one: it implies
# --isolated, and nothing set makes it reuse or run in place.
forge gc --all >/dev/null 2>&1
run_forge verify --in-place --no-reuse -- true
is "--no-reuse --in-place is refused" "$rc" 64
like "saying why" "$err" \
    'no-reuse makes a fresh isolated copy: it makes no sense with --in-place'
for set in "" forge.reuse forge.incremental; do
	git config forge.isolated false
	[ -n "$set" ] && git config "$set" true
	before=$(real_state "$T/r")
	# (The path spelt out of reach of forge.mapPaths.)
	run_forge verify --no-reuse -- sh -c 'pwd -P | tr / :
	    echo x >>notes.txt'
	is "--no-reuse${set:+ with $set}: passes" "$rc" 0
	like "in a fresh copy, whatever forge.isolated says" "$err" \
	    'Verdict: PASS \(isolated, tree'
	like "not the working tree, but a copy" "$out" \
	    "^$(cd "$TMPDIR" && pwd -P | tr / :):forge-[0-9a-f]+:r\$"
	is "which is untouched" "$(real_state "$T/r")" "$before"
	is "and no copy is parked" "$(parked)" 0
	[ -n "$set" ] && git config --unset "$set"
	git config --unset forge.isolated
done

# The verdict cache: a hit leaves the parked copy as it was; a PASS in
# an incremental copy is no PASS of a clean build.
forge gc --all >/dev/null 2>&1
run_forge verify --reuse --cache -- true
is "a --reuse --cache run passes" "$rc" 0
run_forge verify --reuse --cache -- true
like "the same tree again is a cached PASS" "$err" 'PASS \(cached: tree'
is "and the parked copy is still there" "$(parked)" 1
run_forge verify --reuse -- true
like "and is reused by the next run" "$err" 'isolated, reused'
forge gc --all >/dev/null 2>&1
printf 'a tree not verified before\n' >cache-probe
run_forge verify --incremental --cache -- true
run_forge verify --isolated --cache -- true
unlike "an incremental PASS is not served to a clean run" "$err" 'cached'
run_forge verify --isolated --reuse --staged -- true
is "--reuse with --staged: passes" "$rc" 0
git config forge.reuse true
run_forge verify --staged -- true
is "forge.reuse: a --staged run passes" "$rc" 0
like "in the copy the last one parked" "$err" \
    'reused copy of the staged tree'
git config --unset forge.reuse
rm cache-probe

# A conflict's path that the working state ignores is tracked as in the
# working tree (its index has the stages), in an incremental copy too.
branch=$(git symbolic-ref --short HEAD)
# conflict PATH BASE THEIRS OURS [KEY VALUE]: PATH in conflict, merging a
# branch side whose PATH holds THEIRS, where the current one's holds OURS
# (none: deleted); both from BASE (none: added on both).  The setting KEY
# is VALUE for the merge (after the commits, which it could change).
conflict() {
	if [ -n "$2" ]; then
		printf '%b' "$2" >"$1"
		git add -f "$1" && git commit -q -m "base of $1"
	fi
	git checkout -q -b side
	printf '%b' "$3" >"$1"
	git add -f "$1" && git commit -q -m "theirs of $1"
	git checkout -q "$branch"
	if [ -n "$4" ]; then
		printf '%b' "$4" >"$1"
		git add -f "$1" && git commit -q -m "ours of $1"
	else
		git rm -q "$1" && git commit -q -m "ours deletes $1"
	fi
	[ -z "${5:-}" ] || git config "$5" "$6"
	git merge -q side >/dev/null 2>&1
}
# resolved PATH: out of the index, the working tree and the history.
resolved() {
	git rm -q --cached "$1" && git commit -q -m "no $1"
	rm -f "$1"
	git branch -q -D side
}
conflict merge.tmp "" 'theirs\n' 'ours\n'
cp "$exclude" "$T/exclude.saved"
printf 'merge.tmp\n' >>"$exclude"
run_forge verify --incremental -- cat merge.tmp
is "a conflict's ignored path, --incremental: the run passes" "$rc" 0
like "the copy has the working tree's file" "$out" '^<<<<<<<'
cp "$T/exclude.saved" "$exclude"
resolved merge.tmp
# The stage git takes the mode of: a conflict over a symlink, where
# core.symlinks is false (the file on disk holds the target).
git config core.symlinks false
git checkout -q -b side
printf 'theirs-target' >lnk
git update-index --add --cacheinfo "120000,$(git hash-object -w lnk),lnk"
git commit -q -m side
git checkout -q "$branch"
printf 'ours-target' >lnk
git update-index --add --cacheinfo "120000,$(git hash-object -w lnk),lnk"
git commit -q -m ours
git merge -q side >/dev/null 2>&1
forge gc --all >/dev/null 2>&1
for n in fresh reused; do
	run_forge verify --incremental -- cat lnk
	is "a conflict over a symlink, core.symlinks false ($n): passes" \
	    "$rc" 0
	is "with the file as it is ($n)" "$out" ours-target
done
git rm -q --cached lnk && git commit -q -m no-lnk
rm -f lnk
git config --unset core.symlinks
git branch -q -D side

# A conflict over a submodule: not reused (a fresh copy each run), and
# proved so.
new_repo "$T/subsrc"
cd "$T/r"
git -c protocol.file.allow=always submodule -q add "$T/subsrc" sub
git commit -q -m sub
git -C sub checkout -q -b one
printf 'one\n' >sub/s && git -C sub add s && git -C sub commit -q -m one
git checkout -q -b side
git -C sub checkout -q -b two HEAD~1
printf 'two\n' >sub/s && git -C sub add s && git -C sub commit -q -m two
git add sub && git commit -q -m side
git checkout -q "$branch"
git -C sub checkout -q one
git add sub && git commit -q -m ours
git merge -q side >/dev/null 2>&1
for n in 1 2; do
	run_forge verify --reuse -- true
	is "a conflict over a submodule, run $n: passes" "$rc" 0
	like "run $n: proved the working state's tree" "$err" \
	    "tree $(tree_now)"
done
like "and the copy is not reused" "$err" \
    'with (nested repositories|a conflict over a submodule) is not reused|isolated, fresh'
# The copy holds the submodule's checkout, as the working tree does, on
# our side's commit or another.
run_forge verify --reuse -- cat sub/s
is "the copy has the submodule's files" "$out" one
git -C sub checkout -q two
run_forge verify --reuse -- cat sub/s
is "the submodule on their side's commit: passes" "$rc" 0
is "with that commit's files" "$out" two
like "proved the working state's tree" "$err" "tree $(tree_now)"
git merge --abort 2>/dev/null || git reset -q --merge
git checkout -q "$branch"
git reset -q --hard HEAD~2
git submodule -q deinit -f sub 2>/dev/null
rm -rf sub .git/modules/sub
git branch -q -D side

# Line endings: where git converts, it keeps those of stage 2's blob of a
# conflict, and of no other (here there is none: modify/delete).
conflict crlf.txt 'base\r\n' 'theirs\r\n' "" core.autocrlf true
mv crlf.txt "$T/crlf.saved"
for mode in --incremental --reuse; do
	run_forge verify $mode -- true
	is "a conflict's file gone, core.autocrlf ($mode): passes" "$rc" 0
done
mv "$T/crlf.saved" crlf.txt
for mode in --incremental --reuse; do
	run_forge verify $mode -- true
	is "and there again ($mode): passes" "$rc" 0
	like "proving the tree git makes of it ($mode)" "$err" \
	    "tree $(tree_now)"
done
git config --unset core.autocrlf
resolved crlf.txt

# Stage 2's blob has CRLF: git keeps the line endings of a file as the
# working tree has it then, which the carried index's entry of the file
# as it was must not change.
conflict crlf2.txt 'base\r\n' 'theirs\r\n' 'ours\r\n' core.autocrlf true
printf 'x\n' >crlf2.txt
run_forge verify --reuse -- true
run_forge verify --reuse -- true
printf 'y\r\n' >crlf2.txt
run_forge verify --reuse -- true
if [ "$rc" -eq 0 ]; then
	like "CRLF after LF in a conflict: a PASS proves git's tree" "$err" \
	    "tree $(tree_now)"
else
	is "CRLF after LF in a conflict: or the run refuses" "$rc" 125
fi
git config --unset core.autocrlf
resolved crlf2.txt

forge gc --all >/dev/null 2>&1
is "gc --all leaves nothing behind" "$(leftovers "$T/r")" ""
done_testing
