#!/bin/sh
# The manual is clean mdoc, and says what --help says.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

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
for key in forge.verify forge.setup forge.isolated forge.timeout forge.killAfter \
    forge.breakerThreshold forge.timelineMaxSize forge.copyThreshold \
    forge.mapPaths; do
	like "forge.1 documents $key" "$(cat "$MANPAGE")" "Va $key"
done
for status in 0 64 75 124 125 126 127; do
	like "forge.1 lists exit status $status" "$(cat "$MANPAGE")" "^\.It $status"
done

# Each command's help: on standard output, exit 0, with its synopsis as
# forge --help gives it and its options; usage errors stay on stderr, 64.
cd "$T" && git init -q h && cd h && git commit -q --allow-empty -m h
for cmd in verify status log breaker gc; do
	run_forge "$cmd" --help
	is "forge $cmd --help exits 0" "$rc" 0
	is "forge $cmd --help prints nothing on stderr" "$err" ""
	first=$(printf '%s\n' "$out" | sed -n 1p)
	like "forge $cmd --help starts with its synopsis" "$first" \
	    "^usage: forge $cmd( |\$)"
	like "forge --help has the same synopsis" "$help" \
	    "$(printf '%s\n' "${first#usage: }" | sed 's/[][|.*]/\\&/g')"
	run_forge "$cmd" --no-such-option
	is "forge $cmd --no-such-option exits 64" "$rc" 64
	is "and prints nothing on stdout" "$out" ""
	like "but its synopsis on stderr" "$err" "usage: forge $cmd"
done
run_forge verify --help
like "forge verify --help lists its options" "$out" '--exit=verdict'
run_forge log -h
like "forge log -h lists its options" "$out" '--session id'
run_forge help gc
like "forge help gc is gc's help" "$out" '^usage: forge gc'
run_forge status extra
is "forge status takes no argument" "$rc" 64
run_forge breaker frob
is "forge breaker frob is a usage error" "$rc" 64

if [ -w /dev/full ]; then
	forge --help >/dev/full 2>"$T/full.err"
	is "help that cannot be written: exit 125" "$?" 125
	like "and said" "$(cat "$T/full.err")" 'standard output'
else
	skip "help that cannot be written: exit 125" "no /dev/full"
fi

version=$(forge --version)
like "forge --version names the version" "$version" '^forge [0-9]+\.[0-9]+'

run_forge
is "no command is a usage error" "$rc" 64
run_forge frobnicate
is "an unknown command is a usage error" "$rc" 64
like "and says so" "$err" 'frobnicate: no such command'

done_testing
