#!/bin/sh
# What the steps of an isolated run write names the working tree's
# files, not the copy's, on forge's output (forge.mapPaths): a
# compiler's file:line opens the user's file.  The steps still see the
# copy, the stored log keeps the bytes as written, forge's own lines keep
# the copy's path, and a path is replaced however the reads cut it, but
# never held back for long.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/lib-functions.sh"

new_repo "$T/r"
git config forge.breakerThreshold 0
tl="$T/r/.git/forge/timeline.jsonl"
copy="$TMPDIR/forge-[^/]+/r"

# A step that fails with a compiler's errors, on stdout and on stderr,
# and says where it ran, aside.
STEP='echo "$PWD" >"$T/pwd"
echo "$PWD/file.c:1: error: x"
echo "$(pwd -P)/src/main.c:2:5: warning: y" >&2
echo "cd $PWD: done"
exit 1'
export T
run_forge verify --isolated -- sh -c "$STEP"
is "the step fails" "$rc" 1
like "the step ran in the copy, and saw it as such" "$(cat "$T/pwd")" \
    "^$copy\$"
like "forge's stdout names the working tree's file" "$out" \
    "^$T/r/file.c:1: error: x\$"
like "forge's stderr too, from the resolved path" "$err" \
    "^$T/r/src/main.c:2:5: warning: y\$"
like "a path that ends at a colon" "$out" "^cd $T/r: done\$"
unlike "no copy path is left on stdout" "$out" "$TMPDIR"
unlike "nor on stderr" "$err" "$TMPDIR/forge-[^/ ]+/r"
id=$(tail -n 1 "$tl" | "$JSONPICK" log)
run_forge show "$id"
like "the stored log has the copy's path, as written" "$out" \
    "^$copy/file.c:1: error: x\$"
like "both of them" "$out" "^$copy/src/main.c:2:5: warning: y\$"
unlike "and not the working tree's" "$out" "^$T/r/file.c"

# Off: forge passes on the bytes as written.
git config forge.mapPaths false
run_forge verify --isolated -- sh -c "$STEP"
like "forge.mapPaths=false: the copy's path on stdout" "$out" \
    "^$copy/file.c:1: error: x\$"
like "and on stderr" "$err" "^$copy/src/main.c:2:5: warning: y\$"
git config forge.mapPaths maybe
run_forge verify --isolated -- true
is "forge.mapPaths takes a boolean" "$rc" 64
like "saying so" "$err" "bad value 'maybe' for forge.mappaths: not a boolean"
git config --unset forge.mapPaths

# forge's own lines name the copy: it is what they are about.
run_forge verify --isolated --keep=always -- sh -c 'echo "$PWD/a.c"'
like "--keep: forge's line names the copy kept" "$err" \
    "^forge: kept the copy at $copy "
like "while the step's line names the working tree" "$out" "^$T/r/a.c\$"
forge gc --kept >/dev/null 2>&1

# A path cut between two writes, a moment apart, is still replaced.
run_forge verify --isolated -- sh -c \
    'printf "%s" "${PWD%/*}"; sleep 0.01; printf "/%s/cut.c:3: e\n" "${PWD##*/}"'
is "a path cut in two writes: replaced" "$out" "$T/r/cut.c:3: e"

# The last bytes a step writes, a path with nothing after it, come out
# before forge's verdict line: stdout and stderr are one file here, one
# channel.
forge verify --isolated -- sh -c 'printf "%s" "$PWD"' >"$T/all" 2>&1
like "a path at the very end is replaced, before the verdict" \
    "$(cat "$T/all")" "^$T/rVerify: "

# A possible start of a path is not held back while the step waits: it
# goes out once the step is quiet, as it is (the rest comes later).
rm -f "$T/go"
start_forge "$T/quiet.err" verify --isolated -- sh -c \
    'printf "%s" "${PWD%/*}" >&2
    i=0; while [ ! -e "$T/go" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
    test -e "$T/go"'
ok "a path's possible start, then quiet: it comes out" \
    wait_for 5 grep -q "$TMPDIR/forge-" "$T/quiet.err"
: >"$T/go"
wait "$forge_pid"
is "while the step was waiting for it" "$?" 0

# The working tree behind a symlink, TMPDIR too: the step's PWD and its
# resolved path are both the copy's, and both are replaced.
mkdir "$T/real-tmp"
ln -s real-tmp "$T/tmp-link"
(
	TMPDIR="$T/tmp-link"
	export TMPDIR
	forge verify --isolated -- sh -c \
	    'echo "L $PWD/l.c"; echo "P $(pwd -P)/p.c"' >"$T/link.out" 2>/dev/null
)
is "TMPDIR through a symlink: both forms replaced" "$(cat "$T/link.out")" \
    "L $T/r/l.c
P $T/r/p.c"

# Every isolated mode: --staged, --rev; and from a subdirectory.
printf 'x\n' >staged.txt
git add staged.txt
run_forge verify --staged -- sh -c 'echo "$PWD/s.c"'
is "--staged: replaced" "$out" "$T/r/s.c"
run_forge verify --isolated --rev=HEAD -- sh -c 'echo "$PWD/h.c"'
is "--rev: replaced" "$out" "$T/r/h.c"
(cd src && run_forge verify --isolated -- sh -c 'echo "$PWD/m.c"' &&
    printf '%s\n' "$out" >"$T/sub.out")
is "from a subdirectory: its counterpart, replaced" "$(cat "$T/sub.out")" \
    "$T/r/src/m.c"

# In place there is no copy: the bytes pass as written.
run_forge verify --in-place -- sh -c 'echo "$PWD/i.c"'
is "in place: the working tree's path, as written" "$out" "$T/r/i.c"

is "nothing is left behind" "$(leftovers "$T/r")" ""

# On a terminal, through the pseudo-terminal the step writes to, with
# the colours a compiler puts around a file name.
need_pty "on a terminal, a coloured path is replaced"
E=$(printf '\033')
shown=$(on_tty 'cd "$T/r" && ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- \
    sh -c '"'"'printf "\033[01m\033[K%s/t.c:4:\033[m\033[K error\n" "$PWD"'"'")
like "on a terminal, a coloured path is replaced" "$shown" \
    "^$E\\[01m$E\\[K$T/r/t.c:4:$E\\[m$E\\[K error\$"
done_testing
