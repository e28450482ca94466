#!/bin/sh
# The shell tests share their helpers through lib.sh and
# lib-functions.sh: no function is defined in two of tests/*.sh, the
# libraries included, so that a helper is not copied into a second
# script again, and no script quietly replaces a shared one with its
# own.  The check is first run on files made to be caught.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# defined FILE...: "NAME FILE" for each function each FILE defines,
# written NAME(), NAME () or function NAME, at any indentation (in a
# here-document too: a script a test writes counts as the test's).
defined() {
	for _f in "$@"; do
		sed -n -E \
		    -e 's/^[[:space:]]*function[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' \
		    -e 's/^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\([[:space:]]*\).*/\1/p' \
		    "$_f" | sort -u | sed "s|\$| ${_f##*/}|"
	done
}

# twice FILE...: each name that more than one FILE defines, then the
# files, one name a line, sorted.
twice() {
	defined "$@" | sort -k1,1 -k2,2 | awk '
	$1 != name { if (n > 1) print line; name = $1; line = $0; n = 1; next }
	{ line = line " " $2; n++ }
	END { if (n > 1) print line }'
}

mkdir "$T/probe"
cat >"$T/probe/a.sh" <<'EOF'
one() {
	:
}
	two () {
		:
	}
function three {
	:
}
four(){ :; }
alone() {
	one
}
EOF
cat >"$T/probe/b.sh" <<'EOF'
# one() in a comment is not a definition; two() below is.
x=$(one)
two() { :; }
  function one() {
	:
}
cat >script <<EOS
four () {
	:
}
EOS
EOF
cat >"$T/probe/c.sh" <<'EOF'
three	( ) {
	:
}
three
five() { :; }
EOF

is "the check finds each way of defining a function" \
    "$(defined "$T/probe/a.sh" | tr '\n' ' ')" \
    "alone a.sh four a.sh one a.sh three a.sh two a.sh "
is "and names each one defined in two files or more, with the files" \
    "$(twice "$T/probe/a.sh" "$T/probe/b.sh" "$T/probe/c.sh")" \
    "$(printf '%s\n' 'four a.sh b.sh' 'one a.sh b.sh' \
    'three a.sh c.sh' 'two a.sh b.sh')"
is "but not a name only called, or defined in one file" \
    "$(twice "$T/probe/a.sh" "$T/probe/c.sh")" "three a.sh c.sh"

dups=$(twice "$top_srcdir"/tests/*.sh)
is "no function is defined in two test scripts (move it to lib-functions.sh)" \
    "$dups" ""
like "and the check read them: lib.sh's own functions are found" \
    "$(defined "$top_srcdir"/tests/*.sh)" '^run_forge lib\.sh$'
like "and lib-functions.sh's" "$(defined "$top_srcdir"/tests/*.sh)" \
    '^last_verify lib-functions\.sh$'

done_testing
