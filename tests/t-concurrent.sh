#!/bin/sh
# Sixteen verifications of one repository at once: each gets its own
# copy and its own verdict, the timeline gets exactly one well-formed
# event per run, the streak counts every failure once, and nothing is
# left behind.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
i=0
while [ $i -lt 100 ]; do
	printf '%s\n' "$i" >"src/file$i"
	i=$((i + 1))
done
git add -A && git commit -q -m more
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt
git config forge.breakerThreshold 0
before=$(state_of "$T/r")

# Each run claims its copy with a marker, sleeps so the runs overlap,
# checks the marker is still its own, then exits with its own status.
round() {
	i=0
	while [ $i -lt 16 ]; do
		code=$(($1 + i % $2))
		FORGE_SESSION="s$i" ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c '
			test ! -e claimed || exit 90
			echo "$1" >claimed
			grep -q edit hello.txt || exit 91
			test -f u.txt || exit 92
			sleep 0.3
			test "$(cat claimed)" = "$1" || exit 93
			exit "$2"' sh "$i" "$code" \
		    >"$T/out.$i" 2>"$T/err.$i" &
		i=$((i + 1))
	done
	wait
}

# Exit statuses are checked through the timeline, per session.
round 0 3
n=$(wc -l <.git/forge/timeline.jsonl)
is "16 runs append exactly 16 events" "$n" 16
ok "every event is one well-formed JSON object" \
    json_lines .git/forge/timeline.jsonl
i=0
bad=
while [ $i -lt 16 ]; do
	want=$((i % 3))
	got=$("$JSONPICK" -s ' ' session status <.git/forge/timeline.jsonl |
	    sed -n "s/^s$i //p")
	[ "$got" = "$want" ] ||
	    bad="$bad s$i:$got!=$want:$(grep -v '^Verify' "$T/err.$i" | tr '\n' ' ')"
	tail -n 1 "$T/err.$i" | grep -q "^Verify: .* Verdict: " ||
	    bad="$bad s$i:no-verdict"
	i=$((i + 1))
done
is "each run got its own copy and its own verdict" "$bad" ""
is "nothing is left behind" "$(leftovers "$T/r")" ""

# The breaker's streak is the run of FAILs at the end of the timeline,
# in the order the events were appended.
want=$("$JSONPICK" verdict <.git/forge/timeline.jsonl |
    awk '$1 == "PASS" { s = 0 } $1 == "FAIL" { s++ } END { print s }')
got=$("$JSONPICK" streak <.git/forge/breaker.json)
is "the streak matches the timeline's order" "$got" "$want"

round 1 1
is "16 failing runs add 16 events" "$(wc -l <.git/forge/timeline.jsonl)" 32
is "all of them FAIL" "$(tail -n 16 .git/forge/timeline.jsonl |
    "$JSONPICK" verdict | sort | uniq -c | sed 's/^ *//')" "16 FAIL" ||
    cat "$T"/err.* | grep -v '^Verify:' | sed 's/^/# /' >&2
is "and 16 to the streak, each counted once" \
    "$("$JSONPICK" streak <.git/forge/breaker.json)" "$((want + 16))"
is "nothing is left behind" "$(leftovers "$T/r")" ""
is "the source was never touched" "$(state_of "$T/r")" "$before"

done_testing
