#!/bin/sh
# forge.setup: steps run by sh -c at the top of every fresh copy before
# the verification -- what a copy lacks because git ignores it
# (configure's output, node_modules) is made there.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'generated.cfg\n' >>.gitignore
git add .gitignore && git commit -q -m ignore
git config forge.breakerThreshold 0
git config --add forge.setup 'echo made >generated.cfg'
git config --add forge.setup 'echo second setup step'
before=$(state_of "$T/r")

run_forge verify --isolated -- cat generated.cfg
is "in a copy, the setup steps run first: the command passes" "$rc" 0
like "what setup made is there" "$out" '^made$'
like "setup's own output is shown" "$out" 'second setup step'
like "the verdict line names the verification" "$err" \
    'Verify: cat generated.cfg \.\.\. Verdict: PASS'
ev=$(last_verify "$T/r")
is "the timeline records the setup steps as such" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" steps.0.command steps.0.setup)" \
    "$(printf 'setup: echo made >generated.cfg\ttrue')"
is "and the verification after them" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" steps.2.command steps.2.setup)" \
    "$(printf 'cat generated.cfg\t-')"
is "the working tree is untouched" "$(state_of "$T/r")" "$before"

# A line marks where each step starts, so that setup's output does not
# run into the verification's: each setup step, and the verification
# after it; and the stored output has them too.
forge verify --isolated -- sh -c 'echo testing' >"$T/all" 2>&1
is "a line before each step, in order with what they write" \
    "$(grep -v -e '^forge: isolated:' -e '^Verify:' "$T/all")" \
    "forge: setup: echo made >generated.cfg
forge: setup: echo second setup step
second setup step
forge: step: sh -c 'echo testing'
testing"
run_forge show "$(last_verify "$T/r" | "$JSONPICK" log)"
like "forge show has them" "$out" '^forge: step: sh -c .echo testing.$'
# A lone step has none: the run's own line is just above it.
run_forge verify --in-place -- echo lone
is "a lone step has no line of its own" \
    "$(printf '%s\n' "$err" | grep -c '^forge: step')" 0
git config --add forge.verify 'echo one' && git config --add forge.verify \
    'echo two'
run_forge verify --in-place
is "several steps have theirs, in place too" \
    "$(printf '%s\n' "$err" | grep '^forge: step')" \
    "forge: step: echo one
forge: step: echo two"
git config --unset-all forge.verify
# An incremental copy that has had setup says so, once, then marks the
# verification; --setup runs it again, each step marked.
run_forge verify --incremental -- cat generated.cfg
run_forge verify --incremental -- cat generated.cfg
is "setup not run again in an incremental copy: one line says so" \
    "$(printf '%s\n' "$err" | grep '^forge: s')" \
    "forge: setup: skipped: this copy has had it (--setup runs it again)
forge: step: cat generated.cfg"
run_forge verify --incremental --setup -- cat generated.cfg
is "--setup: each setup step marked again" \
    "$(printf '%s\n' "$err" | grep -c '^forge: setup: echo')" 2
forge gc --all >/dev/null 2>&1

run_forge verify --in-place -- sh -c 'test ! -e generated.cfg'
is "in place, no setup runs" "$rc" 0

# A failing setup step fails the verification, named as the setup step;
# the verification itself never runs.
git config --add forge.setup 'exit 3'
run_forge verify --isolated -- touch "$T/ran"
is "a failing setup step: its status" "$rc" 3
like "the verdict is FAIL" "$err" 'Verdict: FAIL \(exit status 3'
like "and names the setup step" "$(last_verify "$T/r")" \
    '"failed":"setup: exit 3 \(exit status 3\)"'
ok "the verification did not run" test ! -e "$T/ran"
git config --unset-all forge.setup

# From a tracked .forgeconfig too; git config overrides it as a whole,
# and an empty value clears it.
printf '[forge]\n\tsetup = echo from-forgeconfig >generated.cfg\n' \
    >.forgeconfig
git add .forgeconfig && git commit -q -m forgeconfig
run_forge verify --isolated -- cat generated.cfg
like ".forgeconfig's setup runs" "$out" '^from-forgeconfig$'
git config forge.setup ''
run_forge verify --isolated -- sh -c 'test ! -e generated.cfg'
is "an empty forge.setup in git config clears it" "$rc" 0
is "nothing is left" "$(leftovers "$T/r")" ""

done_testing
