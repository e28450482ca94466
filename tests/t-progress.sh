#!/bin/sh
# Progress on a terminal: building a copy that takes longer than a
# second shows one line on stderr that counts files, git's own for the
# checkout ("Updating files") and forge's for the untracked files; when
# stderr is not a terminal, nothing.  FORGE_TEST_PROGRESS_DELAY sets the
# delay (ms), so that nothing here waits or depends on the machine's
# speed.  The terminal is a pseudo-terminal made by script(1).
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

need_pty "a terminal"

# A submodule, checked out by a worktree of its own.
init_repo "$T/sub-up"
printf 'in the submodule\n' >"$T/sub-up/s.txt"
git -C "$T/sub-up" add s.txt && git -C "$T/sub-up" commit -q -m sub

new_repo "$T/r"
i=0
while [ $i -lt 40 ]; do
	printf '%s\n' "$i" >"f$i.txt"
	i=$((i + 1))
done
git -c protocol.file.allow=always submodule add -q "$T/sub-up" sub ||
    exit 99
git add -A && git commit -q -m files
tracked=$(git ls-files | wc -l)
tracked=$((tracked + 0))	# git counts the submodule's entry too
printf 'edit\n' >>hello.txt
i=0
while [ $i -lt 7 ]; do
	printf 'u%s\n' "$i" >"u$i.txt"
	i=$((i + 1))
done
before=$(state_of "$T/r")

export FORGE T

tty=$(FORGE_TEST_PROGRESS_DELAY=0 on_tty \
    '"$FORGE" verify --isolated -- cat u6.txt')
rc=$?
is "on a terminal, the run passes: the copy was proved" "$rc" 0
like "git shows its checkout, files done of total" "$tty" \
    "^Updating files: 100% \\($tracked/$tracked\\), done\\.\$"
like "on the way there" "$tty" "^Updating files: +[0-9]+% \\([0-9]+/$tracked\\)\$"
like "the submodule's checkout too" "$tty" \
    "^Updating files: 100% \\(1/1\\), done\\.\$"
like "forge counts the untracked files it copies" "$tty" \
    "^forge: copying untracked files: 100% \\(7/7\\), done\\.\$"
like "the command's output is there" "$tty" '^u6$'
is "the working tree is untouched" "$(state_of "$T/r")" "$before"

tty=$(FORGE_TEST_PROGRESS_DELAY=3600000 on_tty \
    '"$FORGE" verify --isolated -- true')
rc=$?
is "work done within the delay" "$rc" 0
unlike "shows no progress of git's" "$tty" 'Updating files'
unlike "nor of forge's" "$tty" 'copying untracked'

FORGE_TEST_PROGRESS_DELAY=0 run_forge verify --isolated -- true
is "without a terminal the run passes" "$rc" 0
unlike "with no progress of git's" "$err" 'Updating files'
unlike "nor of forge's" "$err" 'copying untracked'
is "not a carriage return on stderr" "$(tr -cd '\r' <"$T/.stderr" | wc -c)" 0

# A terminal on stdout only is not one for progress.
FORGE_TEST_PROGRESS_DELAY=0 script -qec \
    '"$FORGE" verify --isolated -- true 2>"$T/err.txt"' /dev/null \
    </dev/null >/dev/null 2>&1
is "stderr to a file, stdout a terminal: nothing" \
    "$(grep -c -e 'Updating files' -e 'copying untracked' "$T/err.txt")" 0

is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
