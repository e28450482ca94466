#!/bin/sh
# --audit, forge.audit and FORGE_AUDIT: a verdict a fast path gave (the
# cache, a reused or incremental copy, a range's carried copy) checked
# against a fresh copy's; a divergence said, recorded, and answered with
# the fresh verdict.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# This test makes divergences on purpose, and says when it expects one.
unset FORGE_AUDIT

new_repo "$T/r"
R=$T/r
AUDIT_EXPECTED=$(common_dir "$R")
TL=$AUDIT_EXPECTED/forge/timeline.jsonl

divergences() {
	grep -c '"event":"divergence"' "$TL" || true
}

# --- A cached PASS, an input deliberately outside the key -------------
# X is no variable forge.cacheEnv names: the cache cannot see it change.
X=1 run_forge verify --isolated --cache -- sh -c 'test "$X" = 1'
is "a first run passes and is cached" "$rc" 0
X=2 run_forge verify --isolated --cache -- sh -c 'test "$X" = 1'
is "without the audit, the cache replays its PASS" "$rc" 0
like "said as cached" "$err" "cached: tree"
X=2 run_forge verify --isolated --cache --audit -- sh -c 'test "$X" = 1'
is "with --audit, the fresh copy's FAIL is the verdict" "$rc" 1
like "the divergence is said" "$err" \
    "AUDIT DIVERGENCE: the cache said PASS, a fresh copy says FAIL"
like "the verdict line says whose verdict it is" "$err" \
    "isolated, a fresh copy.s verdict, tree"
is "a divergence event is recorded" "$(divergences)" 1
ev=$(grep '"event":"divergence"' "$TL" | tail -n 1)
is "with the fast path" "$(printf '%s' "$ev" | "$JSONPICK" fast)" cache
is "its verdict" "$(printf '%s' "$ev" | "$JSONPICK" fast_verdict)" PASS
is "the fresh verdict" "$(printf '%s' "$ev" | "$JSONPICK" fresh_verdict)" FAIL
is "the fresh status" "$(printf '%s' "$ev" | "$JSONPICK" fresh_status)" 1
is "the mode" "$(printf '%s' "$ev" | "$JSONPICK" mode)" isolated
is "the tree" "$(printf '%s' "$ev" | "$JSONPICK" tree | cut -c1-12)" \
    "$(tree_now)"
ev=$(last_verify "$R")
is "the run's event is the fresh verdict" \
    "$(printf '%s' "$ev" | "$JSONPICK" verdict)" FAIL
is "and says it diverged" "$(printf '%s' "$ev" | "$JSONPICK" audit)" diverged
X=2 run_forge verify --isolated --cache -- sh -c 'test "$X" = 1'
is "the cached PASS was dropped: the next run runs, and fails" "$rc" 1
unlike "not cached" "$err" "cached: tree"

run_forge status
like "forge status counts the divergences" "$out" \
    "audit: 1 divergence found"
run_forge status --json
is "status --json: audit.divergences" \
    "$(printf '%s' "$out" | "$JSONPICK" audit.divergences)" 1
run_forge log
like "forge log shows it" "$out" "DIVERGENCE"

# --- Agreement ---------------------------------------------------------
run_forge verify --isolated --cache -- true
run_forge verify --isolated --cache --audit -- true
is "an audited cached PASS that holds passes" "$rc" 0
like "the fresh copy agrees" "$err" "forge: audit: a fresh copy agrees: PASS"
like "the verdict line says cached" "$err" "cached: tree"
is "no divergence" "$(divergences)" 1
is "the cached event says it was audited" \
    "$(grep '"event":"cached"' "$TL" | tail -n 1 | "$JSONPICK" audit)" agrees
is "nothing is left behind" "$(leftovers "$R")" ""

# --- A reused incremental copy that reads what the last run left -------
# The step passes only where its stamp is not there yet: a fresh copy
# has none, an incremental one keeps the last run's.
STAMP='test ! -e build/stamp && mkdir -p build && touch build/stamp'
run_forge verify --incremental -- sh -c "$STAMP"
is "a first incremental run passes" "$rc" 0
run_forge verify --incremental -- sh -c "$STAMP"
is "the reused copy's own build output fails the next one" "$rc" 1
n=$(divergences)
run_forge verify --incremental --audit -- sh -c "$STAMP"
is "audited, the fresh copy's PASS is the verdict" "$rc" 0
like "said" "$err" "the incremental copy said FAIL, a fresh copy says PASS"
like "the copy is not parked" "$err" "the copy is not parked"
is "one more divergence" "$(divergences)" $((n + 1))
is "no copy parked" "$(parked)" 0
is "nothing left behind" "$(leftovers "$R")" ""

# --- forge.audit, FORGE_AUDIT, --no-audit ------------------------------
run_forge verify --reuse -- true
git config forge.audit true
run_forge verify --reuse -- true
like "forge.audit=true audits a reused copy" "$err" \
    "audit: the reused copy's verdict, checked in a fresh copy"
like "the verdict line says audited" "$err" "reused, audited"
run_forge verify --reuse --no-audit -- true
unlike "--no-audit does not" "$err" "audit:"
git config forge.audit false
FORGE_AUDIT=1 run_forge verify --reuse -- true
like "FORGE_AUDIT=1 audits" "$err" "audit: the reused copy"
FORGE_AUDIT=1 run_forge verify --reuse --no-audit -- true
unlike "--no-audit overrides FORGE_AUDIT" "$err" "audit:"
FORGE_AUDIT=bogus run_forge verify --reuse -- true
like "a bad FORGE_AUDIT is said, and ignored" "$err" \
    "FORGE_AUDIT=bogus is not a boolean or a whole number: ignored"
is "and the run goes on" "$rc" 0
git config forge.audit bogus
run_forge verify --reuse -- true
is "a bad forge.audit is a usage error" "$rc" 64
like "named" "$err" "forge.audit"
git config forge.audit 2
a=0 u=0 i=0
while [ $i -lt 40 ]; do
	run_forge verify --reuse -- true
	case $err in
	*"audit: the reused copy"*) a=$((a + 1)) ;;
	*) u=$((u + 1)) ;;
	esac
	i=$((i + 1))
done
ok "forge.audit=2: some runs audited ($a of 40)" test "$a" -gt 0
ok "forge.audit=2: some not ($u of 40)" test "$u" -gt 0
git config --unset forge.audit
run_forge verify --no-reuse --audit -- true
unlike "a fresh copy is never audited: nothing to check" "$err" "audit:"

# --- What the audit's steps see ----------------------------------------
run_forge verify --reuse -- true
echo given | forge verify --reuse --audit -- sh -c \
    'echo "visible-$FORGE_AUDITING"; read x && printf "st%s-%s\\n" din "$x"
    true' >"$T/.stdout" 2>"$T/.stderr"
out=$(cat "$T/.stdout")
like "the fast run's output is shown" "$out" "visible-"
like "the fast run reads forge's stdin" "$out" "stdin-given"
unlike "the audit's output is not shown" "$out" "visible-1"
run_forge show "$(last_verify "$R" | "$JSONPICK" log)"
like "it is in the run's log" "$out" "visible-1"
is "where the audit's steps read nothing: stdin is /dev/null" \
    "$(printf '%s\n' "$out" | grep -c '^stdin-')" 1

# --- In place: a cached PASS is audited by running in place ------------
X=1 run_forge verify --in-place --cache -- sh -c 'test "$X" = 1'
X=2 run_forge verify --in-place --cache --audit -- sh -c 'test "$X" = 1'
is "in place, audited: the fresh run's FAIL" "$rc" 1
like "said" "$err" "the cache said PASS"

# --- --staged, as the hook runs it -------------------------------------
printf 'staged\n' >>hello.txt
git add hello.txt
run_forge verify --staged --reuse -- true
run_forge verify --staged --reuse --audit -- true
is "a reused --staged copy, audited: passes" "$rc" 0
like "its copy was checked" "$err" "audit: a fresh copy agrees: PASS"
git commit -q -m staged

# --- A range: each carried commit audited ------------------------------
run_forge gc --all
is "the parked copies are gone" "$(leftovers "$R")" ""
printf 'one\n' >one && git add one && git commit -q -m one
printf 'two\n' >two && git add two && git commit -q -m two
printf 'three\n' >three && git add three && git commit -q -m three
run_forge verify --rev=HEAD~3..HEAD --incremental --audit -- true
is "an audited range passes" "$rc" 0
is "each carried commit agreed" \
    "$(printf '%s\n' "$err" | grep -c 'audit: a fresh copy agrees')" 2
# A carried copy that keeps a stamp: the second commit fails there, a
# fresh copy passes it, and the third is not carried from a copy found
# wrong.
n=$(divergences)
run_forge verify --rev=HEAD~3..HEAD --incremental --audit --keep-going -- \
    sh -c "$STAMP"
is "the range passes: each verdict a fresh copy's" "$rc" 0
is "a divergence for each carried commit" "$(divergences)" $((n + 1))
like "the copy is not carried on" "$err" \
    "the last commit's copy cannot be carried on"
is "nothing left behind" "$(leftovers "$R")" ""

# --- Another tree: the working state changed as the run went on --------
# The command writes in the working tree itself: the audit's fresh copy
# holds another tree, and the fast verdict stands unchecked, recorded
# so (a suite in which nothing changes fails on it: tests/lib.sh).
run_forge verify --reuse -- true
run_forge verify --reuse --audit -- sh -c "printf 'late\\n' >'$R/late.txt'"
is "a fast verdict, the working tree written meanwhile: it stands" "$rc" 0
like "another tree said" "$err" \
    'audit: the fresh copy holds another tree .*: the reused copy.s verdict stands unchecked'
is "recorded as another tree" \
    "$(last_verify "$R" | "$JSONPICK" audit)" "other tree"
is "no divergence" "$(divergences)" $((n + 1))
rm late.txt
run_forge gc --all

done_testing
