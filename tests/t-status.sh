#!/bin/sh
# forge status --json: the breaker, the last verdict and the copies forge
# keeps, as one JSON object whose fields a gate can rely on.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl="$T/r/.git/forge/timeline.jsonl"

# status_json PATH...: the fields at those paths of forge status --json.
status_json() {
	forge status --json 2>"$T/status.err" >"$T/status.json" || return 1
	"$JSONPICK" "$@" <"$T/status.json"
}

run_forge status --json
is "with no history: exit 0" "$rc" 0
is "one line" "$(printf '%s\n' "$out" | wc -l)" 1
ok "that is one JSON object" json_lines "$T/.stdout"
is "the breaker: closed, streak 0 of 3, not open since anything" \
    "$(status_json breaker.state breaker.streak breaker.threshold breaker.since breaker.last_failure)" \
    "closed	0	3	null	null"
is "no last verdict" "$(status_json last_verdict)" null
is "no copies kept, and none for reuse" \
    "$(status_json copies.kept copies.reusable)" "[]	[]"
like "forge's version" "$(status_json version)" '^[0-9]+\.[0-9]+'

FORGE_SESSION=s1 forge verify --isolated -- sh -c 'exit 3' >/dev/null 2>&1
ev=$(tail -n 1 "$tl")
is "a FAIL: the last verdict, as the timeline has it" \
    "$(status_json last_verdict.time last_verdict.session last_verdict.mode last_verdict.tree last_verdict.verdict last_verdict.status last_verdict.failed)" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" time session mode tree verdict status failed)"
is "with its steps" \
    "$(status_json last_verdict.steps.0.command last_verdict.steps.0.status)" \
    "sh -c 'exit 3'	3"
is "and its duration" "$(status_json last_verdict.duration_ms)" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" duration_ms)"
is "the breaker counts it, at the run's time" \
    "$(status_json breaker.streak breaker.last_failure.time breaker.last_failure.failed)" \
    "1	$(printf '%s\n' "$ev" | "$JSONPICK" time)	sh -c 'exit 3' (exit status 3)"

forge verify --isolated -- false >/dev/null 2>&1
forge verify --isolated -- false >/dev/null 2>&1
opened=$(grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" time)
is "open, since the run that opened it" \
    "$(status_json breaker.state breaker.streak breaker.since)" \
    "open	3	$opened"
forge breaker reset >/dev/null
git config forge.breakerThreshold 0
is "off when the threshold is 0" "$(status_json breaker.state breaker.threshold)" \
    "off	0"
git config --unset forge.breakerThreshold

# A kept copy: its path, the bytes it takes, when it was last used.
run_forge verify --isolated --keep -- sh -c 'head -c 300000 /dev/zero >big'
kept=$(printf '%s\n' "$err" | sed -n 's/^forge: kept the copy at \(.*\) (.*/\1/p')
is "the kept copy is listed" "$(status_json copies.kept.0.path)" "$kept"
size=$(status_json copies.kept.0.size)
ok "with its size on disk ($size bytes)" test "$size" -ge 300000
like "and its last use" "$(status_json copies.kept.0.last_use)" \
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
is "one kept, none reusable" "$(status_json copies.kept.1 copies.reusable)" \
    "-	[]"
# A record written by hand names no copy of forge's.
mkdir -p "$T/mine/forge-00000000000000dd/copy"
printf '{"run":"00000000000000dd","pid":1,"start":1,"boot":"","top":"%s"}\n{"kept":"%s"}\n' \
    "$T/mine/forge-00000000000000dd" "$T/mine/forge-00000000000000dd/copy" \
    >"$T/r/.git/forge/copies/00000000000000dd"
is "a record written by hand lists nothing" "$(status_json copies.kept.1)" "-"
rm -f "$T/r/.git/forge/copies/00000000000000dd"
forge gc --kept >/dev/null
is "gone once gc --kept removed it" "$(status_json copies.kept)" "[]"

run_forge status --json extra
is "no argument" "$rc" 64
run_forge status --help
like "--help lists --json" "$out" '--json'
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
