#!/bin/sh
# FIFOs and sockets are never opened (opening a FIFO that has no writer
# would hang) and never copied.  git does not list them as untracked, so
# forge does not see those; one it does see -- a flagged tracked path
# that became a FIFO -- is skipped with a warning naming it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
mkdir -p untracked-dir
printf 'a file beside them\n' >untracked-dir/file.txt
ok "a FIFO with no writer" mkfifo lonely.fifo
ok "a FIFO in an untracked directory" mkfifo untracked-dir/watched.fifo
# Its writer blocks in open(2) until someone opens the FIFO to read, and
# then leaves a mark: if forge opened it, the mark would be there.
sh -c 'exec 3>untracked-dir/watched.fifo; echo opened >"$1"' sh \
    "$T/opened" </dev/null >/dev/null 2>&1 &
writer=$!
trap 'kill "$writer" 2>/dev/null; cleanup_test_dir' EXIT
if command -v perl >/dev/null 2>&1 &&
    perl -e 'use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die;
	bind($s, pack_sockaddr_un($ARGV[0])) or die' untracked-dir/sock; then
	have_socket=yes
else
	have_socket=
fi

# At most two minutes, however forge misbehaves.
saved_wrapper=${FORGE_WRAPPER:-}
if command -v timeout >/dev/null 2>&1; then
	FORGE_WRAPPER="timeout -s KILL 120 $saved_wrapper"
fi
start=$(date +%s)
copy_is_working_state "FIFOs and sockets among untracked files"
elapsed=$(($(date +%s) - start))
FORGE_WRAPPER=$saved_wrapper
ok "the run finished quickly (${elapsed}s)" test "$elapsed" -lt 60
is "the watched FIFO was never opened" "$(cat "$T/opened" 2>/dev/null)" ""
ok "the FIFOs are not in the copy" copy_lacks lonely.fifo
ok "nor in the untracked directory" copy_lacks untracked-dir/watched.fifo
ok "the file beside them is" copy_has untracked-dir/file.txt f
if [ -n "$have_socket" ]; then
	ok "the socket is not in the copy" copy_lacks untracked-dir/sock
else
	skip "the socket is not in the copy" "perl cannot make a socket"
fi

# A tracked file marked skip-worktree, then replaced by a FIFO: forge
# lists it, and must skip it, say so, and never open it.
git update-index --skip-worktree hello.txt
rm hello.txt
mkfifo hello.txt
run_forge verify --isolated -- sh -c 'test ! -e hello.txt && test -f run.sh'
is "a flagged file replaced by a FIFO: the copy lacks it, and passes" "$rc" 0
like "a warning names the FIFO and what it is" "$err" \
    'skipping hello\.txt: a fifo, not a file or symlink'
is "nothing is left behind" "$(leftovers "$T/r")" ""
rm hello.txt

# Release the writer (its mark no longer matters) and reap it.
cat untracked-dir/watched.fifo >/dev/null
wait "$writer"

done_testing
