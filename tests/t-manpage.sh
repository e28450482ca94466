#!/bin/sh
# The manual is clean mdoc, and says what --help says.
. "$TESTLIB"

if command -v mandoc >/dev/null 2>&1; then
	lint=$(mandoc -T lint -W warning "$MANPAGE" 2>&1)
	is "forge.1 is clean under mandoc -T lint" "$lint" ""
else
	skip "forge.1 is clean under mandoc -T lint" "mandoc is not installed"
fi

help=$(forge --help)
rc=$?
is "forge --help exits 0" "$rc" 0
for word in verify status log breaker gc --isolated --in-place --no-check \
    --keep --timeout --change --verbose --exit --session --json --dry-run \
    --kept; do
	like "--help mentions $word" "$help" "(^|[^a-z-])$word"
	like "forge.1 documents $word" "$(sed 's/\\-/-/g; s/^\.Fl /--/; s/ Fl / -/g' "$MANPAGE")" \
	    "(Fl|Cm|^|[ -])${word#--}"
done
for key in forge.verify forge.isolated forge.timeout forge.killAfter \
    forge.breakerThreshold forge.timelineMaxSize; do
	like "forge.1 documents $key" "$(cat "$MANPAGE")" "Va $key"
done
for status in 0 64 75 124 125 126 127; do
	like "forge.1 lists exit status $status" "$(cat "$MANPAGE")" "^\.It $status"
done

version=$(forge --version)
like "forge --version names the version" "$version" '^forge [0-9]+\.[0-9]+'

run_forge
is "no command is a usage error" "$rc" 64
run_forge frobnicate
is "an unknown command is a usage error" "$rc" 64
like "and says so" "$err" 'frobnicate: no such command'

done_testing
