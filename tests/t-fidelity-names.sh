#!/bin/sh
# File names that quoting, shells, pathspecs or encodings could mangle
# reach the copy unchanged: tracked and edited, untracked, as directory
# names, as link targets, and at the limits of a name's length and a
# path's depth.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

# odd_name N: the Nth awkward name (none ends in a newline: a command
# substitution would eat it; see the last one).
odd_name() {
	case $1 in
	1) printf 'with space' ;;
	2) printf '  spaces around  ' ;;
	3) printf 'double"quote' ;;
	4) printf "single'quote" ;;
	5) printf 'back\\slash' ;;
	6) printf 'tab\there' ;;
	7) printf 'new\nline' ;;
	8) printf -- '-leading-dash' ;;
	9) printf -- '--' ;;
	10) printf '$(x)' ;;
	11) printf 'semi;colon' ;;
	12) printf 'star*' ;;
	13) printf '?[a-z]' ;;
	14) printf 'caf\351' ;;			# Latin-1: not UTF-8
	15) printf 'caf\303\251' ;;		# UTF-8
	16) printf '\377\376' ;;
	17) printf ':(exclude)magic' ;;		# pathspec magic
	18) printf '\\"\\t\\n' ;;		# C-quoting look-alikes
	19) printf '#~!|&<>`{}' ;;
	20) printf '\001control\177' ;;
	21) printf -- '-' ;;
	22) printf '%0255d' 0 | tr 0 n ;;	# NAME_MAX bytes
	23) printf '%0254d\351' 0 | tr 0 x ;;	# and one not UTF-8
	*) return 1 ;;
	esac
}

# each_odd_name COMMAND...: run COMMAND NAME for every odd name, and once
# more with a name that ends in a newline.
each_odd_name() {
	_i=1
	while _name=$(odd_name $_i); do
		"$@" "$_name" || return
		_i=$((_i + 1))
	done
	_name=$(printf 'ends with a newline\n.')
	"$@" "${_name%.}"
}

commit_one() {
	printf 'committed\n' >"t/$1"
}
edit_one() {
	printf 'edited\n' >>"t/$1"
	printf 'untracked\n' >"u/$1"
}
top_one() {
	printf 'untracked at the top\n' >"$1"
}

new_repo "$T/r"
mkdir t u
each_odd_name commit_one
git add -A && git commit -q -m 'odd names' || exit 99
each_odd_name edit_one
each_odd_name top_one
copy_is_working_state "odd names, tracked and edited, and untracked"
is "every odd name was listed" "$(grep -c '^t/' "$T/src.m")" 24

# Odd names renamed, as directories, as link targets, staged.
new_repo "$T/more"
odd_dir=$(printf 'dir \t"\\$(x);*\351')
mkdir "$odd_dir"
printf 'x\n' >"$odd_dir/$(odd_name 8)"
printf 'y\n' >"$(odd_name 7)"
git add -A && git commit -q -m 'odd dir' || exit 99
git mv -- "$(odd_name 7)" "$(odd_name 10)"
mv -- "$odd_dir/$(odd_name 8)" "$odd_dir/$(odd_name 6)"
printf 'staged\n' >"$odd_dir/$(odd_name 14)"
git add -- "$odd_dir/$(odd_name 14)"
ln -s -- "$odd_dir/$(odd_name 6)" "$(odd_name 4)"
ln -s -- "$(odd_name 20)" "$(odd_name 3)"
mkdir -- "$(odd_name 2)"
printf 'z\n' >"$(odd_name 2)/$(odd_name 5)"
copy_is_working_state "odd names renamed, as directories and link targets"

# A path 100 directories deep, tracked and edited, and another untracked;
# a tracked directory of NAME_MAX-byte names.
new_repo "$T/deep"
d=deep
i=1
while [ $i -lt 100 ]; do
	d="$d/level$i"
	i=$((i + 1))
done
long=$(odd_name 22)
mkdir -p "$d" "$long/$long"
printf 'deep\n' >"$d/file"
printf 'long\n' >"$long/$long/$long"
git add -A && git commit -q -m deep || exit 99
printf 'edited\n' >>"$d/file"
printf 'edited\n' >>"$long/$long/$long"
printf 'new\n' >"$d/untracked"
mkdir -p "untracked-$d"
printf 'new\n' >"untracked-$d/file"
printf 'new\n' >"$long/$(odd_name 23)"
copy_is_working_state "deep paths and long names"
ok "the deep edit arrived" copy_has "$d/file" f
ok "the deep untracked file arrived" copy_has "untracked-$d/file" f

done_testing
