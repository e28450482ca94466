#!/bin/sh
# forge verify's exit status is the command's, with the shell's
# conventions (126, 127, 128+N), 64 for usage errors; the verdict line
# ends stderr and the command's stdout stays on stdout, untouched.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
before=$(state_of "$T/r")

last_line() {
	printf '%s\n' "$1" | tail -n 1
}

for mode in --isolated --in-place; do
	run_forge verify $mode -- true
	is "$mode: a passing command exits 0" "$rc" 0
	like "$mode: the verdict is PASS" "$(last_line "$err")" \
	    '^Verify: true \.\.\. Verdict: PASS \('

	for n in 1 3 42 123; do
		run_forge verify $mode -- sh -c "exit $n"
		is "$mode: a command exiting $n makes forge exit $n" "$rc" "$n"
		like "$mode: exit $n: verdict FAIL with the status" \
		    "$(last_line "$err")" "Verdict: FAIL \\(exit status $n;"
	done

	run_forge verify $mode -- forge-no-such-command --flag
	is "$mode: a missing command exits 127" "$rc" 127
	like "$mode: missing: says command not found" "$err" \
	    'forge-no-such-command: command not found'
	like "$mode: missing: the verdict is ERROR, saying why" \
	    "$(last_line "$err")" \
	    'Verdict: ERROR \(the command could not be started, exit status 127;'
	is "$mode: missing: the timeline says ERROR, status 127" \
	    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" verdict status)" \
	    "ERROR	127"
	like "$mode: missing: and what could not start" \
	    "$(tail -n 1 .git/forge/timeline.jsonl | "$JSONPICK" failed)" \
	    'forge-no-such-command --flag \(command not found\)'

	run_forge verify $mode -- sh -c 'forge-no-such-command'
	is "$mode: a shell's own 127 exits 127" "$rc" 127
	like "$mode: and is the shell's FAIL" "$(last_line "$err")" \
	    'Verdict: FAIL \(exit status 127;'

	run_forge verify $mode -- ./no-such-file
	is "$mode: a missing file given by path exits 127" "$rc" 127

	run_forge verify $mode -- sh -c 'kill -TERM $$'
	is "$mode: a command killed by SIGTERM exits 143" "$rc" 143
	like "$mode: killed: the verdict is FAIL" "$(last_line "$err")" \
	    'Verdict: FAIL \(exit status 143;'

	run_forge verify $mode -- sh -c 'kill -KILL $$'
	is "$mode: a command killed by SIGKILL exits 137" "$rc" 137

	# Whatever the caller ignores stays ignored for the command: make
	# SIGINT deliverable, whoever runs the suite.
	FORGE_WRAPPER="env --default-signal=INT ${FORGE_WRAPPER:-}" \
	    run_forge verify $mode -- sh -c 'kill -INT $$'
	is "$mode: a command killing itself with SIGINT exits 130" "$rc" 130
	like "$mode: SIGINT from itself is a failure, not an interruption" \
	    "$(last_line "$err")" 'Verdict: FAIL \(exit status 130;'
done

# Files that cannot be executed: 126.
printf '#!/bin/sh\necho should not run\n' >plain.sh
chmod 644 plain.sh
git add plain.sh && git commit -q -m 'a script without x bits'
mkdir -p "$T/bin"
printf '#!/bin/sh\necho should not run\n' >"$T/bin/forge-noexec"
chmod 644 "$T/bin/forge-noexec"
before=$(state_of "$T/r")
for mode in --isolated --in-place; do
	run_forge verify $mode -- ./plain.sh
	is "$mode: a file without execute permission exits 126" "$rc" 126
	unlike "$mode: noexec: it did not run" "$out" 'should not run'
	like "$mode: noexec: the verdict is ERROR" "$(last_line "$err")" \
	    'Verdict: ERROR \(the command could not be started, exit status 126;'

	run_forge verify $mode -- ./src
	is "$mode: a directory exits 126" "$rc" 126

	PATH="$T/bin:$PATH" run_forge verify $mode -- forge-noexec
	is "$mode: a non-executable file found on PATH exits 126" "$rc" 126
done

# Output: the command's stdout is forge's stdout, exactly; everything
# forge says goes to stderr, and the verdict is the last line there.
for mode in --isolated --in-place; do
	run_forge verify $mode -- sh -c \
	    'printf "one\n\n  two  \nthree"; echo to-stderr >&2'
	is "$mode: stdout holds exactly the command's output" "$out" \
	    "$(printf 'one\n\n  two  \nthree')"
	is "$mode: byte for byte" "$(od -An -c "$T/.stdout")" \
	    "$(printf 'one\n\n  two  \nthree' | od -An -c)"
	like "$mode: the command's stderr is on stderr" "$err" '^to-stderr$'
	like "$mode: the verdict line is the last line of stderr" \
	    "$(last_line "$err")" '^Verify: sh -c .* Verdict: PASS \('
	unlike "$mode: no forge message on stdout" "$out" \
	    'forge|Verify|Verdict'

	run_forge verify $mode -- true
	is "$mode: a silent command leaves stdout empty" "$out" ""
	is "$mode: forge prints nothing of its own on stdout" \
	    "$(wc -c <"$T/.stdout" | tr -d ' ')" 0

	run_forge verify $mode -- sh -c 'echo failing; exit 7'
	is "$mode: a failing command's output is on stdout too" "$out" failing
	like "$mode: after a failure, the verdict is the last line" \
	    "$(last_line "$err")" '^Verify: .* Verdict: FAIL \(exit status 7;'
done
like "isolated: the verdict names the mode and the tree" "$(
    run_forge verify --isolated -- true; last_line "$err")" \
    'Verdict: PASS \(isolated, tree [0-9a-f]{12}, '
like "in place: the verdict names the mode" "$(
    run_forge verify --in-place -- true; last_line "$err")" \
    'Verdict: PASS \(in place, tree [0-9a-f]{12}, '

# Usage errors: 64, and nothing runs.
usage() {
	_d=$1
	shift
	rm -f "$T/ran"
	run_forge verify "$@"
	is "usage: $_d exits 64" "$rc" 64
	not_ok "usage: $_d: nothing ran" test -e "$T/ran"
	unlike "usage: $_d: no verdict" "$err" 'Verdict:'
}
usage "an unknown option" --no-such-option -- touch "$T/ran"
usage "an unknown short option" -Z -- touch "$T/ran"
usage "--timeout without a value" --timeout
usage "--timeout abc" --timeout abc -- touch "$T/ran"
usage "--timeout -5" --timeout -5 -- touch "$T/ran"
usage "--timeout 10x" --timeout 10x -- touch "$T/ran"
usage "--keep with --in-place" --keep --in-place -- touch "$T/ran"
like "usage: --timeout abc: says what is wrong" "$(
    run_forge verify --timeout abc -- true; echo "$err")" \
    'timeout.*abc.*duration'
usage "nothing to verify" --isolated
like "usage: nothing to verify: says how to give something" "$err" \
    'nothing to verify'
usage "nothing to verify, in place" --in-place
git config forge.timeout soon
usage "a bad forge.timeout" -- touch "$T/ran"
git config --unset forge.timeout
git config forge.isolated maybe
usage "a bad forge.isolated" -- touch "$T/ran"
git config --unset forge.isolated

run_forge no-such-subcommand
is "an unknown subcommand exits 64" "$rc" 64
run_forge
is "no subcommand at all exits 64" "$rc" 64

# Usage errors are found before the repository is looked at.
mkdir "$T/plain"
(
	cd "$T/plain" || exit 99
	GIT_CEILING_DIRECTORIES=$T
	export GIT_CEILING_DIRECTORIES
	run_forge verify --no-such-option -- true
	exit "$rc"
)
is "outside a repository, a bad option is still a usage error" "$?" 64

is "the source is untouched by all of this" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
