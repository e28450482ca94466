#!/bin/sh
# src/README's module map against the code: every module is listed, and
# each calls only modules on lower floors; and the shape of every file.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# calls MAP FILE...: "caller -> callee" for each call that is not down
# the map's floors (a floor missing counts as -1); each caller's
# comments and strings are left out, and a function is another module's
# if that module defines it without static.
calls() {
	_map=$1
	shift
	awk '
	function strip(s,    out, i) {
		out = ""
		while (s != "") {
			if (incomment) {
				if ((i = index(s, "*/")) == 0)
					return out
				s = substr(s, i + 2)
				incomment = 0
			} else if ((i = index(s, "/*")) == 0) {
				out = out s
				s = ""
			} else {
				out = out substr(s, 1, i - 1)
				s = substr(s, i + 2)
				incomment = 1
			}
		}
		gsub(/"([^"\\]|\\.)*"/, "\"\"", out)
		return out
	}
	FNR == 1 {
		mod = FILENAME
		sub(/.*\//, "", mod)
		sub(/\.c$/, "", mod)
		incomment = 0
		prev = ""
		if (FILENAME ~ /README$/)
			pass = 0
		else if (FILENAME in seen)
			pass = 2
		else {
			pass = 1
			seen[FILENAME] = 1
		}
	}
	pass == 0 {
		if ($0 ~ /^ *[0-9]+ +[a-z_0-9]+ /)
			floor[$2] = $1 + 0
		next
	}
	pass == 1 {
		line = strip($0)
		if (line ~ /^[a-z_][a-z0-9_]*\(/ && prev !~ /^static/) {
			name = line
			sub(/\(.*/, "", name)
			def[name] = mod
		}
		prev = line
		next
	}
	pass == 2 {
		s = strip($0)
		while (match(s, /[a-z_][a-z0-9_]*\(/)) {
			name = substr(s, RSTART, RLENGTH - 1)
			s = substr(s, RSTART + RLENGTH)
			if (!(name in def) || def[name] == mod)
				continue
			to = def[name]
			f = mod in floor ? floor[mod] : -1
			g = to in floor ? floor[to] : -1
			if (f <= g)
				bad[mod " -> " to] = 1
		}
	}
	END {
		for (k in bad)
			print k
	}' "$_map" "$@" "$@" | sort
}

# shape FILE...: what breaks the house rules of src/ -- a function over
# 100 lines (its name's line to its closing brace), a static function
# named as another file exports one, a file that does not open with a
# one-line comment -- one line each.
shape() {
	awk '
	FNR == 1 {
		if ($0 !~ /^\/\* .* \*\/$/)
			print FILENAME ": no one-line comment first"
		prev = ""
	}
	/^[a-z_][a-z0-9_]*\(/ {
		name = $0
		sub(/\(.*/, "", name)
		start = FNR
		if (prev ~ /^static/)
			statics[name] = statics[name] " " FILENAME
		else
			exported[name] = FILENAME
	}
	/^}/ && start > 0 {
		if (FNR - start + 1 > 100)
			print FILENAME ": " name "() is " \
			    FNR - start + 1 " lines"
		start = 0
	}
	{ prev = $0 }
	END {
		for (n in statics)
			if (n in exported)
				print n ": static in" statics[n] \
				    ", exported by " exported[n]
	}' "$@" | sort
}

src=${top_srcdir:?}/src
listed=$(awk '/^ *[0-9]+ +[a-z_0-9]+ / { print $2 }' "$src/README" | sort)
files=$(cd "$src" && ls ./*.c | sed 's#^\./##; s#\.c$##' | sort)
is "every module of src/ is in the map, and nothing else" "$listed" "$files"
is "no module calls one on its own floor or above" \
    "$(calls "$src/README" "$src"/*.c)" ""

is "every function is short, every name its own, every file says its job" \
    "$(shape "$src"/*.c)" ""

# The check itself, on modules made up for it: a call up and a call
# sideways are named, a call down, a static of the same name and a name
# in a comment or a string are not.
mkdir "$T/m"
cat >"$T/m/README" <<'MAP'
floor module job
 0    low      the bottom
 1    mid      the middle
 1    side     beside it
 2    high     the top
MAP
cat >"$T/m/low.c" <<'C'
int
low_fn(void)
{
	/* high_fn() is named here only */
	return mid_fn() + printf("side_fn()");
}
C
cat >"$T/m/mid.c" <<'C'
int
mid_fn(void)
{
	return low_fn() + side_fn();
}
C
cat >"$T/m/side.c" <<'C'
int
side_fn(void)
{
	return 0;
}
C
cat >"$T/m/high.c" <<'C'
static int
side_fn(void)
{
	return 1;
}

int
high_fn(void)
{
	return side_fn() + low_fn();
}
C
is "a call up and a call sideways are named" \
    "$(calls "$T/m/README" "$T"/m/*.c)" "$(printf 'low -> mid\nmid -> side')"

# And the shape check: a long function, a static that takes an exported
# name, a file without its opening line are named; a long comment is not
# a function.
{
	echo '/* The high module. */'
	printf 'int\nlong_fn(void)\n{\n'
	i=0
	while [ $i -lt 99 ]; do echo '	;'; i=$((i + 1)); done
	printf '}\n'
} >"$T/m/long.c"
printf 'static int\nlow_fn(void)\n{\n\treturn 0;\n}\n' >"$T/m/dup.c"
is "a long function, a name taken and a file without its line are named" \
    "$(cd "$T/m" && shape dup.c long.c low.c)" \
    "$(printf '%s\n' 'dup.c: no one-line comment first' \
    'long.c: long_fn() is 102 lines' \
    'low.c: no one-line comment first' \
    'low_fn: static in dup.c, exported by low.c')"

done_testing
