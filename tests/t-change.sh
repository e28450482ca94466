#!/bin/sh
# forge verify --change[=BASE]: what is being verified, counted and
# listed before running, and kept in the timeline.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
printf 'second\n' >second.txt
git add second.txt && git commit -q -m second
printf 'edit\n' >>hello.txt
git mv src/main.c src/renamed.c
git rm -q second.txt
printf 'new\n' >added.txt
git add added.txt
printf 'u\n' >untracked.txt
printf 'ignored\n' >x.o

run_forge verify --isolated --change -- true
is "the run passes" "$rc" 0
like "the report counts each kind" "$err" \
    'change against HEAD \([0-9a-f]{12}\): 1 modified, 1 added, 1 deleted, 1 renamed, 1 untracked'
like "and lists a modification" "$err" 'forge:   M hello.txt'
like "a rename" "$err" 'forge:   R src/main.c -> src/renamed.c'
like "a deletion" "$err" 'forge:   D second.txt'
like "an addition" "$err" 'forge:   A added.txt'
like "an untracked file" "$err" 'forge:   \? untracked.txt'
unlike "but no ignored file" "$err" 'x\.o'
is "the event carries the report" \
    "$(tail -n 1 "$tl" | "$JSONPICK" change.base change.modified change.added change.deleted change.renamed change.untracked change.more)" \
    "HEAD	1	1	1	1	1	0"
is "with each path" \
    "$(tail -n 1 "$tl" | "$JSONPICK" change.paths.0.status change.paths.0.path)" \
    "A	added.txt"
like "forge log summarizes it" "$(forge log -n 1)" '1M 1A 1D 1R 1\?'

run_forge verify --isolated --change=HEAD~1 -- true
like "another base is named" "$err" 'change against HEAD~1 \('
like "and counted against" "$err" '1 modified, 1 added, 1 renamed, 1 untracked'

i=0
while [ $i -lt 30 ]; do
	printf '%s\n' "$i" >"more$i.txt"
	i=$((i + 1))
done
run_forge verify --isolated --change -- true
like "a long list is shortened" "$err" 'forge:   \.\.\. and 15 more'
is "in the event too" "$(tail -n 1 "$tl" | "$JSONPICK" change.more change.untracked)" \
    "15	31"

events=$(wc -l <"$tl")
run_forge verify --isolated --change=no-such-ref -- touch "$T/ran"
is "a bad base is a usage error" "$rc" 64
like "saying so" "$err" 'no-such-ref: no such commit'
not_ok "before anything runs" test -e "$T/ran"
is "nothing is left behind" "$(leftovers "$T/r")" ""
is "nor recorded" "$(wc -l <"$tl")" "$events"

# The base is one commit: not a range, a negation, an option or two.
for base in '^HEAD' 'HEAD~1..HEAD' 'HEAD...HEAD' 'HEAD^@' 'HEAD^!' \
    'HEAD^-' '--all' "HEAD --change=HEAD~1"; do
	# shellcheck disable=SC2086  # the last one is two options
	run_forge verify --isolated --change=$base -- touch "$T/ran"
	is "--change=$base is a usage error" "$rc" 64
	like "--change=$base: saying only one commit is accepted" "$err" \
	    'only one commit is accepted'
	not_ok "--change=$base: nothing ran" test -e "$T/ran"
	is "--change=$base: nothing recorded" "$(wc -l <"$tl")" "$events"
	is "--change=$base: nothing built" "$(leftovers "$T/r")" ""
done

run_forge verify --change= -- true
is "an empty base is a usage error" "$rc" 64

# A name that is not UTF-8 goes into the event without losing a byte.
rm -f more*.txt
name=$(printf 'caf\351.txt')
printf 'x\n' >"$name"
run_forge verify --isolated --change -- true
ok "the event is valid JSON" json_lines "$tl"
like "the byte is escaped" "$(tail -n 1 "$tl")" 'caf\\udce9\.txt'
is "and comes back exactly" \
    "$(tail -n 1 "$tl" | "$JSONPICK" change.paths.4.path | od -An -c)" \
    "$(printf '%s\n' "$name" | od -An -c)"

done_testing
