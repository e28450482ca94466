#!/bin/sh
# src/README's module map against the code: every module is listed, and
# each calls and includes only modules on lower floors; every exported
# name carries its file's prefix; and the shape of every file.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# An awk function the checks share: strip(line) is the line without its
# comments (incomment carries a comment over to the next line) and with
# each string emptied.
strip_awk='
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
	}'

# Two passes the call and include checks share: the map's floors, from
# src/README (pass 0), and the module that defines each function
# without static (pass 1; mod names the file's module).
floors_awk='
	pass == 0 {
		if ($0 ~ /^ *[0-9]+ +[a-z_0-9]+ /)
			floor[$2] = $1 + 0
		next
	}'
defs_awk='
	pass == 1 {
		line = strip($0)
		if (line ~ /^[a-z_][a-z0-9_]*\(/ && prev !~ /^static/) {
			name = line
			sub(/\(.*/, "", name)
			def[name] = mod
		}
		prev = line
		next
	}'

# calls MAP FILE...: "caller -> callee" for each call that is not down
# the map's floors (a floor missing counts as -1); each caller's
# comments and strings are left out, and a function is another module's
# if that module defines it without static.
calls() {
	_map=$1
	shift
	awk "$strip_awk"'
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
	'"$floors_awk"'
	'"$defs_awk"'
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

# includes MAP FILE.c... FILE.h...: "file -> header" for each include of
# a module's header that does not go down the map's floors (the .c
# files come first).  A header is the module's whose functions it
# declares, or else the module's it is named after; one several modules
# share (proof.h) sits on the lowest one's floor.  A file may include
# its own headers, its family's (proof.c and proof_*.c: proof.h and the
# private proof_int.h) and those of modules below it; a private header,
# only its family.  A header's includes count as its modules' (a
# private one's, serving a family on many floors, only for other
# families' private headers); headers no module has (config.h, forge.h,
# <...>) are left out.
includes() {
	_map=$1
	shift
	awk "$strip_awk"'
	function stem(f) {
		sub(/\.[ch]$/, "", f)
		return f
	}
	function infam(f, p) {
		f = stem(f)
		return f == p || index(f, p "_") == 1
	}
	# The lowest floor of the modules listed in m (-1 for one unmapped).
	function low(m,    n, o, i, l) {
		n = split(m, o, " ")
		for (i = 1; i <= n; i++)
			if (!(o[i] in floor))
				return -1
			else if (i == 1 || floor[o[i]] < l)
				l = floor[o[i]]
		return l
	}
	function shared(a, b,    n, o, i) {
		n = split(a, o, " ")
		for (i = 1; i <= n; i++)
			if (index(b, " " o[i] " ") > 0)
				return 1
		return 0
	}
	function fine(f, h,    p) {
		p = stem(h)
		if (p ~ /_int$/) {
			sub(/_int$/, "", p)
			return infam(f, p)
		}
		if ((p in fam) && infam(f, p))
			return 1
		if (!(h in owners))
			return 1
		return shared(owners[f], owners[h]) ||
		    low(owners[f]) > low(owners[h])
	}
	FNR == 1 {
		file = FILENAME
		sub(/.*\//, "", file)
		incomment = 0
		depth = 0
		prev = ""
		if (FILENAME ~ /README$/)
			pass = 0
		else if (file ~ /\.c$/) {
			pass = 1
			mod = stem(file)
			owners[file] = " " mod " "
			ismod[mod] = 1
		} else
			pass = 2
		if (file ~ /_int\.h$/)
			fam[substr(file, 1, length(file) - 6)] = 1
	}
	'"$floors_awk"'
	/^#[ \t]*include[ \t]*"/ && !incomment {
		h = $0
		sub(/^[^"]*"/, "", h)
		sub(/".*/, "", h)
		inc[file] = inc[file] " " h
		if (h ~ /_int\.h$/)
			fam[substr(h, 1, length(h) - 6)] = 1
	}
	'"$defs_awk"'
	# What a header declares: the names before a "(" outside braces
	# and directives, which a module defines.
	pass == 2 {
		s = strip($0)
		if (depth == 0 && s !~ /^#/)
			for (t = s; match(t, /[a-z_][a-z0-9_]*\(/); ) {
				name = substr(t, RSTART, RLENGTH - 1)
				t = substr(t, RSTART + RLENGTH)
				if (!(name in def))
					continue
				o = " " def[name] " "
				if (index(owners[file], o) == 0)
					owners[file] = owners[file] o
			}
		depth += gsub(/[{]/, "", s) - gsub(/[}]/, "", s)
	}
	END {
		for (f in inc) {
			n = split(f inc[f], hs, " ")
			for (i = 1; i <= n; i++) {
				h = hs[i]
				if (!(h in owners) && (stem(h) in ismod))
					owners[h] = " " stem(h) " "
			}
		}
		for (f in inc) {
			if (f ~ /_int\.h$/)
				private = 1
			else if (!(f in owners))
				continue
			else
				private = 0
			n = split(inc[f], hs, " ")
			for (i = 1; i <= n; i++) {
				h = hs[i]
				if (private && h !~ /_int\.h$/)
					continue
				if (!fine(f, h))
					print f " -> " h
			}
		}
	}' "$_map" "$@" | sort -u
}

# names ALLOW FILE...: "file: name" for each function a FILE defines
# without static whose name does not carry the file's prefix: the file's
# name (buf.c: buf, buf_*), or another ALLOW gives it.  ALLOW's lines are
# "GLOB PREFIX..." (# starts a comment); a row no name needs is named
# too, "ALLOW: GLOB PREFIX...", so the list never outlives its reasons.
names() {
	_allow=$1
	shift
	awk -v allow="$_allow" "$strip_awk"'
	FNR == 1 {
		file = FILENAME
		sub(/.*\//, "", file)
		stem = file
		sub(/\.c$/, "", stem)
		incomment = 0
		prev = ""
	}
	FILENAME == allow {
		sub(/#.*/, "")
		if (NF < 2)
			next
		rows++
		row[rows] = $0
		re = $1
		gsub(/\./, "\\.", re)
		gsub(/\*/, "[^/]*", re)
		glob[rows] = "^" re "$"
		pre[rows] = $0
		sub(/^[^ \t]*/, "", pre[rows])
		pre[rows] = pre[rows] " "
		next
	}
	{
		line = strip($0)
		if (line ~ /^[a-z_][a-z0-9_]*\(/ && prev !~ /^static/) {
			name = line
			sub(/\(.*/, "", name)
			if (name != stem && index(name, stem "_") != 1 &&
			    !allowed(file, name))
				print file ": " name
		}
		prev = line
	}
	function allowed(f, n,    r, p, k, ps) {
		for (r = 1; r <= rows; r++) {
			if (f !~ glob[r])
				continue
			k = split(pre[r], ps, " ")
			for (p = 1; p <= k; p++)
				if (n == ps[p] || index(n, ps[p] "_") == 1) {
					used[r] = 1
					return 1
				}
		}
		return 0
	}
	END {
		for (r = 1; r <= rows; r++)
			if (!(r in used)) {
				$0 = row[r]
				$1 = $1
				print "ALLOW: " $0
			}
	}' "$_allow" "$@" | sort
}

src=${top_srcdir:?}/src
# The modules of src/ and of its families' folders (src/proof/, ...),
# each named by its file's name.
c_files=$(find "$src" -name '*.c' | sort)
h_files=$(find "$src" -name '*.h' | sort)
listed=$(awk '/^ *[0-9]+ +[a-z_0-9]+ / { print $2 }' "$src/README" | sort)
files=$(printf '%s\n' $c_files | sed 's#.*/##; s#\.c$##' | sort)
is "every module of src/ is in the map, and nothing else" "$listed" "$files"
is "no module calls one on its own floor or above" \
    "$(calls "$src/README" $c_files)" ""

is "no file includes a header up or sideways" \
    "$(includes "$src/README" $c_files $h_files)" ""

# The one convention src/README names: xmalloc.c's are the x*() of
# every C program (the check fails on a row no name needs, too).
cat >"$T/names.allow" <<'ALLOW'
xmalloc.c	xasprintf xcalloc xreallocarray xstrdup xstrndup xvasprintf
ALLOW
is "every exported function carries its file's prefix" \
    "$(names "$T/names.allow" $c_files)" ""

is "every function is short, every name its own, every file says its job" \
    "$(shape $c_files)" ""

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

# The include check, on modules made up for it: an include up (of a
# header by what it declares, and of one by its name alone), one
# sideways (of a header named for no module, but declaring one's
# function), a family's private header outside it, and a header's own
# include sideways are named; one down, a family's own headers, and
# headers no module has are not.
mkdir "$T/i"
cat >"$T/i/README" <<'MAP'
floor module job
 0    low      the bottom
 1    mid      the middle
 1    side     beside it
 2    high     the top
 2    fam      a family's first
 3    fam_x    and its second
MAP
printf 'int\t%s(void);\n' low_fn >"$T/i/low.h"
printf 'int\t%s(void);\n' side_fn >"$T/i/opts.h"
printf '#include "low.h"\n\nint\t%s(void);\n' mid_fn >"$T/i/mid.h"
printf '#include "mid.h"\n\nint\t%s(void);\n' high_fn >"$T/i/high.h"
printf '#include "high.h"\n\nint\t%s(void);\n' fam_fn >"$T/i/fam.h"
printf '#include "side.h"\n\nint\t%s(void);\n' fam_x_fn >"$T/i/fam_int.h"
for m in low mid side high fam fam_x; do
	printf 'int\n%s_fn(void)\n{\n\treturn 0;\n}\n' $m >"$T/i/$m.c"
done
cat >>"$T/i/low.c" <<'C'
#include "config.h"
#include <stdio.h>
#include "low.h"
#include "forge.h"
#include "high.h"
#include "side.h"
C
cat >>"$T/i/mid.c" <<'C'
#include "mid.h"
#include "opts.h"
#include "fam_int.h"
C
cat >>"$T/i/high.c" <<'C'
#include "high.h"
#include "opts.h"
C
cat >>"$T/i/fam_x.c" <<'C'
#include "fam.h"
#include "fam_int.h"
#include "high.h"
C
is "an include up or sideways, and another family's private one, are named" \
    "$(includes "$T/i/README" "$T"/i/*.c "$T"/i/*.h)" \
    "$(printf '%s\n' 'fam.h -> high.h' 'low.c -> high.h' 'low.c -> side.h' \
    'mid.c -> fam_int.h' 'mid.c -> opts.h')"

# And the name check: a function exported under another prefix is
# named, and a row of ALLOW that no name needs; a static function, and
# one ALLOW gives its file, are not.
cat >>"$T/i/low.c" <<'C'

int
helper(void)
{
	return 0;
}

static int
other(void)
{
	return 0;
}
C
printf 'int\nfam_other(void)\n{\n\treturn 0;\n}\n' >>"$T/i/fam_x.c"
printf 'fam_x.c fam # the family name\nmid.c gone\n' >"$T/i/allow"
is "a name without its file's prefix, and a row no name needs, are named" \
    "$(names "$T/i/allow" "$T"/i/*.c)" \
    "$(printf '%s\n' 'ALLOW: mid.c gone' 'low.c: helper')"

done_testing
