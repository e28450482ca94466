#!/bin/sh
# A forge killed outright leaves its copy behind; the next run, or forge
# gc, removes it -- and never touches the copy of a run that is alive.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt
common="$T/r/.git"
before=$(state_of "$T/r")

# kill9 PHASE: start a run stalled at PHASE, kill it with SIGKILL there.
kill9() {
	FORGE_TEST_STALL=$1 start_forge "$T/stall.err" verify --isolated -- true
	_pid=$forge_pid
	wait_for 30 grep -q "test stall: $1" "$T/stall.err"
	kill -KILL "$_pid"
	wait "$_pid" 2>/dev/null
}

for phase in journal scratch checkout apply untracked proof; do
	kill9 "$phase"
	like "killed at $phase: a journal entry remains" \
	    "$(ls "$common/forge/copies")" '^[0-9a-f]{16}$'
	[ "$phase" != journal ] &&
	    like "killed at $phase: the copy remains" "$(ls "$TMPDIR")" '^forge-'
	run_forge verify --isolated -- true
	is "killed at $phase: the next run passes" "$rc" 0
	like "killed at $phase: and says what it removed" "$err" \
	    'removed .*forge-[0-9a-f]+, left by a forge run that died'
	is "killed at $phase: nothing is left" "$(leftovers "$T/r")" ""
done

# Killed while git worktree add runs, before and after it did its work.
for when in before after; do
	fake_git "$T/bin-$when" "
case \"\$SUB \$SUB2\" in
'worktree add')
	[ $when = after ] && \"\$REAL_GIT\" \"\$@\"
	touch '$T/in-add'
	exec sleep 30 ;;
esac
exec \"\$REAL_GIT\" \"\$@\""
	rm -f "$T/in-add"
	PATH="$T/bin-$when:$PATH" start_forge "$T/add.err" \
	    verify --isolated -- true
	pid=$forge_pid
	wait_for 30 test -e "$T/in-add"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	run_forge gc
	is "killed in worktree add ($when): forge gc succeeds" "$rc" 0
	like "killed in worktree add ($when): gc says what it removed" "$out" \
	    '^removed .*forge-[0-9a-f]+ \(left by dead pid [0-9]+\)'
	is "killed in worktree add ($when): nothing is left" \
	    "$(leftovers "$T/r")" ""
done

# Killed while the command runs: the command must not run on in a copy
# that is about to go; the next run stops it.
start_forge "$T/cmd.err" verify --isolated -- sh -c \
    'echo $$ >"$0"; exec sleep 60' "$T/cmd.pid"
pid=$forge_pid
wait_for 30 test -s "$T/cmd.pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
cmd=$(cat "$T/cmd.pid")
ok "killed while the command runs: the command outlives forge" kill -0 "$cmd"
run_forge gc --dry-run
like "gc --dry-run lists the copy" "$out" '^would remove .*forge-'
ok "gc --dry-run removes nothing" test -n "$(ls "$TMPDIR")"
run_forge gc
is "gc removes it" "$rc" 0
wait_for 10 dead "$cmd"
ok "and the orphaned command is gone" dead "$cmd"
is "nothing is left" "$(leftovers "$T/r")" ""
run_forge gc
like "a second gc has nothing to do" "$out" 'nothing removed'

# A live run's copy is never touched, however old.
FORGE_TEST_STALL=untracked FORGE_TEST_STALL_RELEASE="$T/go" \
    start_forge "$T/live.err" verify --isolated -- true
live=$forge_pid
wait_for 30 grep -q "test stall: untracked" "$T/live.err"
copy=$(ls "$TMPDIR")
# The lock file itself: worktree list shows the reason from git 2.31 on.
like "the copy is registered locked, naming forge and its pid" \
    "$(cat "$common"/worktrees/*/locked)" "^forge run [0-9a-f]+ pid $live"
git worktree prune
run_forge gc
like "gc leaves a live run's copy alone" "$out" 'nothing removed'
run_forge verify --in-place -- true
is "another run leaves it alone too" "$(ls "$TMPDIR")" "$copy"
is "git worktree prune left the registration" \
    "$(ls "$common"/worktrees/*/locked | wc -l)" 1
touch "$T/go"
wait "$live"
is "the live run then finishes and passes" "$?" 0
is "and cleans up after itself" "$(leftovers "$T/r")" ""

# A journal entry whose pid is now someone else's is reclaimed.
mkdir -p "$TMPDIR/forge-0123456789abcdef"
printf '{"run":"0123456789abcdef","pid":%d,"start":1,"boot":"","top":"%s"}\n' \
    "$$" "$TMPDIR/forge-0123456789abcdef" \
    >"$common/forge/copies/0123456789abcdef"
run_forge gc
like "a recycled pid does not keep a copy alive" "$out" \
    '^removed .*forge-0123456789abcdef'
# A hand-edited journal never removes anything but forge's own copies.
mkdir -p "$T/precious"
printf '{"run":"00000000000000aa","pid":999999999,"top":"%s"}\n' \
    "$T/precious" >"$common/forge/copies/00000000000000aa"
run_forge gc
ok "a journal pointing elsewhere removes nothing" test -d "$T/precious"
like "and gc says it refused" "$err" 'refusing to remove'
rm -f "$common/forge/copies/00000000000000aa"

# A registration of forge's left alone by all else (its copy and its
# record gone) is removed by gc -- only if it is still the one gc found
# forge's: here another took its name as gc was about to.
new_repo "$T/o"
FORGE_TEST_STALL=proof start_forge "$T/orphan.err" verify --isolated \
    -- true
pid=$forge_pid
wait_for 30 grep -q "test stall: proof" "$T/orphan.err"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
name=$(ls "$T/o/.git/worktrees")
[ -n "$name" ] || echo "Bail out! no registration left by the killed run"
rm -rf "$TMPDIR"/forge-* "$T/o/.git/forge/copies"/*
FORGE_TEST_STALL=unregister FORGE_TEST_STALL_RELEASE="$T/go-gc" \
    start_forge "$T/gc.err" gc
pid=$forge_pid
wait_for 30 grep -q "test stall: unregister" "$T/gc.err"
mv "$T/o/.git/worktrees/$name" "$T/forge-reg"
mkdir "$T/o/.git/worktrees/$name"
printf 'not forge'"'"'s\n' >"$T/o/.git/worktrees/$name/marker"
touch "$T/go-gc"
wait "$pid"
is "gc, its registration swapped as it was about to remove it, ends well" \
    "$?" 0
is "the registration that took its name is left alone" \
    "$(cat "$T/o/.git/worktrees/$name/marker")" "not forge's"
is "and nothing said of it" "$(grep -v 'test stall' "$T/gc.err")" ""
rm -rf "$T/o/.git/worktrees/$name"
mv "$T/forge-reg" "$T/o/.git/worktrees/$name"
run_forge gc
like "put back, gc removes forge's" "$out" "$name"
is "and nothing is left" "$(leftovers "$T/o")" ""
cd "$T/r" || exit 99

is "the source was never touched" "$(state_of "$T/r")" "$before"
done_testing
