#!/bin/sh
# Configured steps: forge.verify values run in order with /bin/sh -c at
# the top level (of the copy, or of the working tree in place), stop at
# the first failure; .forgeconfig supplies steps that git config
# overrides; an empty value clears; forge.isolated picks the default mode.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

STEPLOG="$T/steps.log"
export STEPLOG

# steps: the log the steps wrote, then empty it.
steps() {
	[ -f "$STEPLOG" ] && cat "$STEPLOG"
	rm -f "$STEPLOG"
}

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
before=$(state_of "$T/r")
copy_top="^$TMPDIR/forge-[^/]+/r\$"

git config --add forge.verify 'echo one >>"$STEPLOG"'
git config --add forge.verify 'echo "two $0" >>"$STEPLOG"'
git config --add forge.verify 'x=3; test "$x" = 3 && echo "three $(pwd)" >>"$STEPLOG"'
git config --add forge.verify 'test -f notes.txt && grep -q edit hello.txt && echo four >>"$STEPLOG"'

cd src || exit 99
run_forge verify --isolated
is "isolated steps from a subdirectory pass" "$rc" 0
log=$(steps)
is "every step ran, in order" "$(printf '%s\n' "$log" | cut -d' ' -f1)" \
    "$(printf '%s\n' one two three four)"
is "each step runs under /bin/sh -c" \
    "$(printf '%s\n' "$log" | sed -n 's/^two //p')" /bin/sh
like "isolated steps run at the top of the copy, not in src/" \
    "$(printf '%s\n' "$log" | sed -n 's/^three //p')" "$copy_top"
like "the verdict line names the steps joined by &&" \
    "$(printf '%s\n' "$err" | tail -n 1)" \
    '^Verify: echo one >>"\$STEPLOG" && echo "two \$0" .* Verdict: PASS'

run_forge verify --in-place
is "in place steps from a subdirectory pass" "$rc" 0
is "in place steps run at the top of the working tree" \
    "$(steps | sed -n 's/^three //p')" "$T/r"
cd "$T/r" || exit 99

# A command on the command line replaces the configured steps.
run_forge verify --isolated -- true
is "with a command, the steps do not run" "$(steps)" ""

# The first failing step stops the run, and its status is forge's.
git config --unset-all forge.verify
git config --add forge.verify 'echo a >>"$STEPLOG"'
git config --add forge.verify 'echo b >>"$STEPLOG"; exit 5'
git config --add forge.verify 'echo c >>"$STEPLOG"'
for mode in --isolated --in-place; do
	run_forge verify $mode
	is "$mode: a failing step's status is forge's" "$rc" 5
	is "$mode: the steps after it did not run" "$(steps)" \
	    "$(printf 'a\nb')"
	like "$mode: the verdict is FAIL with the status" \
	    "$(printf '%s\n' "$err" | tail -n 1)" \
	    'Verdict: FAIL \(exit status 5;'
done
git config --unset-all forge.verify
git config --add forge.verify 'echo a >>"$STEPLOG"'
git config --add forge.verify 'forge-no-such-command'
git config --add forge.verify 'echo c >>"$STEPLOG"'
run_forge verify --isolated
is "a step naming a missing command exits 127" "$rc" 127
is "and stops the run" "$(steps)" a

# .forgeconfig, tracked at the top: its steps run, git config's replace
# them, and an empty value clears what came before.
git config --unset-all forge.verify
printf '[forge]\n\tverify = echo file-1 >>"$STEPLOG"\n\tverify = echo file-2 >>"$STEPLOG"\n' \
    >.forgeconfig
git add .forgeconfig && git commit -q -m 'ship the steps'
before=$(state_of "$T/r")
cd src || exit 99
run_forge verify --isolated
is ".forgeconfig steps run" "$rc" 0
is ".forgeconfig steps run in order" "$(steps)" "$(printf 'file-1\nfile-2')"
cd "$T/r" || exit 99
is "the source is untouched so far" "$(state_of "$T/r")" "$before"

git config forge.timeout 10m
run_forge verify --in-place
is "other settings in git config leave .forgeconfig's steps" "$(steps)" \
    "$(printf 'file-1\nfile-2')"
git config --unset forge.timeout

git config --add forge.verify 'echo git-1 >>"$STEPLOG"'
run_forge verify --isolated
is "git config steps replace .forgeconfig's" "$(steps)" git-1
git config --global --add forge.verify 'echo global-1 >>"$STEPLOG"'
run_forge verify --isolated
is "git config layers add up, global first" "$(steps)" \
    "$(printf 'global-1\ngit-1')"
git config --global --unset-all forge.verify

git config --add forge.verify ''
git config --add forge.verify 'echo git-2 >>"$STEPLOG"'
run_forge verify --isolated
is "an empty value clears the steps before it" "$(steps)" git-2

git config --unset-all forge.verify
git config --add forge.verify ''
run_forge verify --isolated
is "an empty value alone clears .forgeconfig's steps: nothing to verify" \
    "$rc" 64
is "and nothing ran" "$(steps)" ""
git config --unset-all forge.verify

printf '[forge]\n\tverify = echo file-1 >>"$STEPLOG"\n\tverify =\n\tverify = echo file-3 >>"$STEPLOG"\n' \
    >.forgeconfig
run_forge verify --in-place
is "an empty value in .forgeconfig clears the steps before it" \
    "$(steps)" file-3
git checkout -q .forgeconfig
before=$(state_of "$T/r")

# forge.isolated makes isolation the default; --in-place overrides it.
git config --add forge.verify 'pwd >>"$STEPLOG"'
run_forge verify
is "by default, steps run in place" "$(steps)" "$T/r"
like "and say so" "$err" 'in place: running verification in the working tree'
git config forge.isolated true
run_forge verify
like "forge.isolated=true: steps run in a copy" "$(steps)" "$copy_top"
like "forge.isolated=true: it says so" "$err" \
    'isolated: running verification in an ephemeral copy'
like "forge.isolated=true: the verdict says isolated" \
    "$(printf '%s\n' "$err" | tail -n 1)" 'Verdict: PASS \(isolated, '
run_forge verify --in-place
is "--in-place overrides forge.isolated=true" "$(steps)" "$T/r"
like "--in-place: the verdict says in place" \
    "$(printf '%s\n' "$err" | tail -n 1)" 'Verdict: PASS \(in place, '
# (Where it ran, as it says it: the copy's path passed on as written.)
git config forge.mapPaths false
run_forge verify -- pwd
like "forge.isolated=true applies to a command too" "$out" \
    "^$TMPDIR/forge-[^/]+/r\$"
git config --unset forge.mapPaths
git config forge.isolated false
run_forge verify --isolated
like "--isolated overrides forge.isolated=false" "$(steps)" "$copy_top"
git config --unset forge.isolated
is "the source is untouched" "$(state_of "$T/r")" "$before"
printf '[forge]\n\tisolated = true\n' >>.forgeconfig
run_forge verify
like "forge.isolated in .forgeconfig counts" "$(steps)" "$copy_top"
git config forge.isolated false
run_forge verify
is "and git config overrides it" "$(steps)" "$T/r"
git config --unset forge.isolated
git checkout -q .forgeconfig
git config --unset-all forge.verify

is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
