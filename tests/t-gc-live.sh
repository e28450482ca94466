#!/bin/sh
# forge gc beside live runs disturbs none of them; a dead run is dead even
# unreaped, and what it left running ends -- and nothing else does.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt
common="$T/r/.git"
git config forge.breakerThreshold 0

# Runs beside two loops of forge gc.
gc_loop() {
	while [ ! -e "$T/stop" ]; do
		forge gc >>"$T/gc.out" 2>>"$T/gc.err"
	done
}
gc_loop &
gc1=$!
gc_loop &
gc2=$!
bad=0
for batch in 1 2 3; do
	pids=
	for i in 1 2 3 4 5 6 7 8; do
		forge verify --isolated -- sleep 0.5 \
		    >"$T/run.$batch.$i.out" 2>"$T/run.$batch.$i.err" </dev/null &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || bad=$((bad + 1))
	done
done
touch "$T/stop"
wait "$gc1" "$gc2"
is "24 runs beside gc: every one passes" "$bad" 0
is "and none says it could not do something" \
    "$(cat "$T"/run.*.err | grep -Ei 'cannot|could not|error' | head -n 5)" ""
is "gc never failed either" \
    "$(grep -Ei 'cannot|could not' "$T/gc.err" | head -n 5)" ""
is "nothing is left" "$(leftovers "$T/r")" ""

# A forge that was killed and whose parent has not reaped it (a zombie)
# is dead: gc reclaims its copy, and ends the command it left.
sh -c '"$0" verify --isolated -- sh -c "echo \$\$ >\"\$0\"; exec sleep 60" \
    "$1" >/dev/null 2>&1 </dev/null & echo $! >"$2"; exec sleep 60' \
    "$FORGE" "$T/cmd.pid" "$T/forge.pid" &
parent=$!
wait_for 30 test -s "$T/cmd.pid"
fpid=$(cat "$T/forge.pid")
cmd=$(cat "$T/cmd.pid")
kill -KILL "$fpid"
wait_for 10 sh -c "grep -q '^State:.Z' /proc/$fpid/status"
like "the killed forge is a zombie, unreaped" \
    "$(sed -n 's/^State:[[:space:]]*//p' "/proc/$fpid/status")" '^Z'
run_forge gc
is "gc succeeds" "$rc" 0
like "and counts the zombie as dead" "$out" \
    "^removed .*forge-[0-9a-f]+ \(left by dead pid $fpid\)"
wait_for 10 dead "$cmd"
ok "the command it left is gone" dead "$cmd"
is "nothing is left" "$(leftovers "$T/r")" ""
kill -KILL "$parent" 2>/dev/null
wait "$parent" 2>/dev/null

# A command that left forge's process group (setsid), working in the
# copy, outlives a SIGKILL of forge; gc ends it before the copy goes.
start_forge "$T/s.err" verify --isolated -- sh -c \
    'mkdir -p deep && cd deep && setsid sh -c "echo \$\$ >\"\$0\"; exec sleep 60" "$0" & exec sleep 60' \
    "$T/setsid.pid"
pid=$forge_pid
wait_for 30 test -s "$T/setsid.pid"
escaped=$(cat "$T/setsid.pid")
kill -KILL "$pid"
wait "$pid" 2>/dev/null
ok "the setsid process outlives forge" kill -0 "$escaped"
run_forge gc
is "gc succeeds" "$rc" 0
wait_for 10 dead "$escaped"
ok "and the setsid process working in the copy is gone" dead "$escaped"
is "nothing is left" "$(leftovers "$T/r")" ""

# Someone who went into a dead run's copy afterwards (a shell, an editor)
# is not the run's: gc ends the run's command, and leaves them alone.
start_forge "$T/d.err" verify --isolated -- sh -c \
    'echo $$ >"$0"; exec sleep 60' "$T/dead-cmd.pid"
pid=$forge_pid
wait_for 30 test -s "$T/dead-cmd.pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
deadcmd=$(cat "$T/dead-cmd.pid")
copy=$(ls -d "$TMPDIR"/forge-*/r)
env -u FORGE_RUN setsid sh -c 'cd "$0" && exec sleep 60' "$copy" &
visitor=$!
wait_for 10 sh -c "readlink /proc/$visitor/cwd | grep -q forge-"
run_forge gc
wait_for 10 dead "$deadcmd"
ok "gc ends the dead run's command" dead "$deadcmd"
ok "and leaves the visitor in its copy alone" kill -0 "$visitor"
kill -KILL "$visitor"
wait "$visitor" 2>/dev/null
is "nothing is left" "$(leftovers "$T/r")" ""

# A hand-written record naming a directory someone works in, and that
# someone's pid as the command, kills nothing.
fake=$TMPDIR/forge-00000000000000bb
mkdir -m 700 "$fake"
(cd "$fake" && exec setsid sleep 60) &
bystander=$!
wait_for 10 sh -c "test \"\$(readlink /proc/$bystander/cwd)\" = '$fake'"
start=$(sed 's/^.*) //' "/proc/$bystander/stat" | cut -d' ' -f20)
boot=$(cat /proc/sys/kernel/random/boot_id)
printf '{"run":"00000000000000bb","pid":999999999,"start":1,"boot":"%s","top":"%s"}\n{"child":%d,"start":%s}\n' \
    "$boot" "$fake" "$bystander" "$start" \
    >"$common/forge/copies/00000000000000bb"
run_forge gc
ok "a hand-written record kills no one" kill -0 "$bystander"
kill -KILL "$bystander"
wait "$bystander" 2>/dev/null
is "nothing is left" "$(leftovers "$T/r")" ""

# A hand-written record naming a directory of the user's that happens to
# be called forge-something: nothing in it is removed, by gc or by the
# reclaim at the start of any run.
mkdir -p "$HOME/src/forge-tools"
printf 'my work\n' >"$HOME/src/forge-tools/main.c"
printf '{"run":"00000000000000dd","pid":999999999,"start":1,"top":"%s"}\n' \
    "$HOME/src/forge-tools" >"$common/forge/copies/00000000000000dd"
run_forge verify -- true
is "a record naming the user's forge-tools: the run passes" "$rc" 0
is "and removes nothing of it" "$(cat "$HOME/src/forge-tools/main.c")" \
    "my work"
run_forge gc
is "nor does gc" "$(cat "$HOME/src/forge-tools/main.c")" "my work"
like "which says why" "$err" \
    "refusing to remove $HOME/src/forge-tools: it is not empty"
rm "$common/forge/copies/00000000000000dd"

# A record that names another run (a live one, a kept one) is not that
# run's: it kills nothing and removes nothing.
start_forge "$T/live.err" verify --isolated -- sh -c 'sleep 3; echo ok'
live=$forge_pid
wait_for 30 sh -c "ls '$TMPDIR' | grep -q forge-"
top=$(ls -d "$TMPDIR"/forge-*)
run=${top##*forge-}
setsid sleep 60 &
bystander=$!
wait_for 10 test -r "/proc/$bystander/stat"
start=$(sed 's/^.*) //' "/proc/$bystander/stat" | cut -d' ' -f20)
printf '{"run":"%s","pid":999999999,"start":1,"top":"%s"}\n{"repo":"%s"}\n{"child":%d,"start":%s}\n' \
    "$run" "$top" "$common" "$bystander" "$start" \
    >"$common/forge/copies/aaaabbbbccccdddd"
run_forge gc
like "a record under another run's name is ignored, and said" "$err" \
    "ignoring .*aaaabbbbccccdddd: it is the record of run $run"
wait "$live"
is "the live run it names is undisturbed" "$?" 0
ok "the process it names is alive" kill -0 "$bystander"
kill -KILL "$bystander"
wait "$bystander" 2>/dev/null
rm "$common/forge/copies/aaaabbbbccccdddd"
is "nothing is left" "$(leftovers "$T/r")" ""

# forge gc --kept removes a kept copy; someone working in it (the user
# looking at it), and gc's own shell, are left alone.
run_forge verify --isolated --keep -- true
kept=$(sed -n 's/^forge: kept the copy at \(.*\) (forge gc.*/\1/p' "$T/.stderr")
(cd "$kept" && exec sleep 60) &
looker=$!
wait_for 10 test -r "/proc/$looker/cwd"
(cd "$kept" && forge gc --kept >"$T/gc.out" 2>&1; echo "gc=$?" >>"$T/gc.out")
like "gc --kept run from inside the kept copy finishes" "$(cat "$T/gc.out")" \
    'gc=0'
like "and removes it" "$(cat "$T/gc.out")" 'removed .*\(kept by pid'
ok "the user's process working there is alive" kill -0 "$looker"
kill -KILL "$looker"
wait "$looker" 2>/dev/null
is "nothing is left" "$(leftovers "$T/r")" ""

# Where the file system takes no locks (flock says ENOLCK: NFS without a
# lock daemon), the record's pid, start time and boot are all that tell
# a live run: gc still leaves its copy alone.
if command -v strace >/dev/null 2>&1; then
	FORGE_TEST_STALL=proof start_forge "$T/stall.err" verify --isolated \
	    -- true
	wait_for 30 grep -q "test stall: proof" "$T/stall.err"
	# LeakSanitizer cannot run under a tracer (a sanitized build).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	    strace -f -qq -o /dev/null -e trace=flock \
	    -e inject=flock:error=ENOLCK "$FORGE" gc >"$T/.stdout" \
	    2>"$T/.stderr" </dev/null
	is "no locks: gc succeeds" "$?" 0
	like "and leaves the live run's copy" "$(cat "$T/.stdout")" \
	    '^nothing removed$'
	ok "which is still there" test -d "$TMPDIR/forge-$(ls \
	    "$common/forge/copies")"
	kill -TERM "$forge_pid"
	wait "$forge_pid" 2>/dev/null
	is "the run ends, and nothing is left" "$(leftovers "$T/r")" ""
else
	for d in "no locks: gc succeeds" "and leaves the live run's copy" \
	    "which is still there" "the run ends, and nothing is left"; do
		skip "$d" "no strace here"
	done
fi

done_testing
