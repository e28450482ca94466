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
