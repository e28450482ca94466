#!/bin/sh
# The README's .forgeconfig for each kind of project, taken from the
# README as written, on a small generated project of that kind: a cold
# run passes, an edit rebuilds only what it touched and does not run
# setup again, a bug fails as a fresh copy fails, its fix passes, and a
# change to a setup input runs setup again.  No network: npm and pip are
# stand-ins that install what the manifest names.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

README="${top_srcdir:?}/README"
# The project's own make must not take this suite's make's variables
# (make check TESTS=...).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES TESTS
REAL_PYTHON=$(command -v python3)
mkdir -p "$T/bin"
PATH="$T/bin:$PATH"
export PATH

# example NAME: the README's block under "# .forgeconfig: NAME".
example() {
	awk -v name="$1" '
	    $0 == "    # .forgeconfig: " name { on = 1; next }
	    on && /^$/ { exit }
	    on { sub(/^    /, ""); print }' "$README"
}

# project DIR NAME: a repository in DIR whose .forgeconfig is NAME's.
project() {
	init_repo "$1"
	cd "$1" || exit 99
	git config forge.breakerThreshold 0
	example "$2" >.forgeconfig
	ok "$2: the README has its example" grep -q '^\[forge\]$' .forgeconfig
}

# commit_all: what the project starts with, committed.
commit_all() {
	git add -A && git commit -q -m project || exit 99
}

# fresh: the same verification in a fresh copy, its status in $fresh_rc.
fresh() {
	forge verify --no-reuse >/dev/null 2>&1
	fresh_rc=$?
}

count() { cat "$1" 2>/dev/null | wc -l | tr -d ' '; }

# --- autotools -----------------------------------------------------------
if command -v autoreconf >/dev/null 2>&1 &&
    command -v automake >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	project "$T/auto" autotools
	printf '/*\n!/.gitignore\n!/.forgeconfig\n!/configure.ac\n!/Makefile.am\n!/*.c\n!/check.sh\n' \
	    >.gitignore
	cat >configure.ac <<'EOF'
AC_INIT([demo], [1.0])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF
	printf 'bin_PROGRAMS = demo\ndemo_SOURCES = main.c add.c\nTESTS = check.sh\n' \
	    >Makefile.am
	printf '#include <stdio.h>\nint add(int, int);\nint main(void) { printf("%%d\\n", add(2, 3)); return 0; }\n' \
	    >main.c
	printf 'int add(int a, int b) { return a + b; }\n' >add.c
	printf '#!/bin/sh\ntest "$(./demo)" = 5\n' >check.sh
	chmod +x check.sh
	commit_all
	run_forge verify
	is "autotools: a cold run passes" "$rc" 0
	like "autotools: setup ran" "$out" 'checking for'
	printf '/* two */\n' >>add.c
	run_forge verify
	is "autotools: after an edit, it passes" "$rc" 0
	unlike "autotools: setup did not run again" "$out" 'checking for'
	like "autotools: the edited file is rebuilt" "$out" 'add\.c'
	unlike "autotools: and no other" "$out" 'main\.c'
	printf 'int add(int a, int b) { return a - b; }\n' >add.c
	run_forge verify
	fresh
	is "autotools: a bug fails" "$rc" 2
	is "autotools: as in a fresh copy" "$fresh_rc" "$rc"
	printf 'int add(int a, int b) { return a + b; }\n' >add.c
	run_forge verify
	is "autotools: its fix passes" "$rc" 0
	sed 's/1\.0/1.1/' configure.ac >c.new && mv c.new configure.ac
	run_forge verify
	is "autotools: configure.ac changed: it passes" "$rc" 0
	like "autotools: setup ran again" "$out" 'checking for'
	like "autotools: saying why" "$err" 'setup runs again: configure.ac changed'
else
	skip "autotools: the example" "autoreconf, automake or cc is missing"
fi

# --- npm -----------------------------------------------------------------
# npm: ci installs, after a moment, each dependency package.json names;
# test runs test.sh, which fails on a missing package as npm does.
cat >"$T/bin/npm" <<EOF
#!/bin/sh
case \$1 in
ci)	echo run >>"$T/npm-installs"
	sleep 0.2
	rm -rf node_modules && mkdir node_modules || exit 1
	for d in \$(sed -n 's/^ *"\\([a-z-]*\\)": "[0-9.]*",*\$/\\1/p' package.json); do
		mkdir node_modules/\$d && echo "\$d" >node_modules/\$d/index.js
	done ;;
test)	exec sh test.sh ;;
*)	exit 1 ;;
esac
EOF
chmod +x "$T/bin/npm"
project "$T/npm" npm
printf 'node_modules/\n' >.gitignore
printf '{\n  "name": "demo",\n  "dependencies": {\n    "left-pad": "1.3.0"\n  }\n}\n' \
    >package.json
cp package.json package-lock.json
printf 'require left-pad\nexport a + b\n' >index.js
cat >test.sh <<'EOF'
for d in $(sed -n 's/^require //p' index.js); do
	test -e "node_modules/$d/index.js" ||
	    { echo "Cannot find package '$d'"; exit 1; }
done
grep -q '^export a + b$' index.js || { echo "expected a + b"; exit 1; }
EOF
commit_all
run_forge verify
is "npm: a cold run passes" "$rc" 0
is "npm: it installed" "$(count "$T/npm-installs")" 1
printf '# a comment\n' >>index.js
run_forge verify
is "npm: after an edit, it passes" "$rc" 0
is "npm: nothing installed again" "$(count "$T/npm-installs")" 1
sed 's/a + b/a - b/' index.js >i.new && mv i.new index.js
run_forge verify
fresh
is "npm: a bug fails" "$rc" 1
is "npm: as in a fresh copy" "$fresh_rc" "$rc"
sed 's/a - b/a + b/' index.js >i.new && mv i.new index.js
run_forge verify
is "npm: its fix passes" "$rc" 0
n=$(count "$T/npm-installs")
printf '{\n  "name": "demo",\n  "dependencies": {\n    "left-pad": "1.3.0",\n    "is-odd": "3.0.1"\n  }\n}\n' \
    >package.json
cp package.json package-lock.json
printf 'require is-odd\n' >>index.js
run_forge verify
is "npm: a new dependency: it passes" "$rc" 0
is "npm: installed once more" "$(count "$T/npm-installs")" $((n + 1))

# --- python --------------------------------------------------------------
# python3 -m pip install --target DIR -r FILE: each requirement becomes a
# module; anything else is the real python3.
cat >"$T/bin/python3" <<EOF
#!/bin/sh
if [ "\$1 \$2" = "-m pip" ]; then
	shift 2
	while [ \$# -gt 0 ]; do
		case \$1 in
		--target) target=\$2; shift ;;
		-r) req=\$2; shift ;;
		esac
		shift
	done
	echo run >>"$T/pip-installs"
	mkdir -p "\$target" || exit 1
	for p in \$(sed 's/[=<>].*//; /^#/d' "\$req"); do
		echo "NAME = '\$p'" >"\$target/\$p.py"
	done
	exit 0
fi
exec "$REAL_PYTHON" "\$@"
EOF
chmod +x "$T/bin/python3"
project "$T/py" python
printf '.deps/\n__pycache__/\n' >.gitignore
printf 'sluglite==1.0\n' >requirements.txt
printf 'import sluglite\n\ndef add(a, b):\n    return a + b\n' >app.py
cat >test_app.py <<'EOF'
import unittest
import app

class TestApp(unittest.TestCase):
    def test_add(self):
        self.assertEqual(app.add(2, 3), 5)
EOF
commit_all
run_forge verify
is "python: a cold run passes" "$rc" 0
is "python: it installed" "$(count "$T/pip-installs")" 1
printf '# a comment\n' >>app.py
run_forge verify
is "python: after an edit, it passes" "$rc" 0
is "python: nothing installed again" "$(count "$T/pip-installs")" 1
sed 's/a + b/a - b/' app.py >a.new && mv a.new app.py
run_forge verify
fresh
is "python: a bug fails" "$rc" 1
is "python: as in a fresh copy" "$fresh_rc" "$rc"
sed 's/a - b/a + b/' app.py >a.new && mv a.new app.py
run_forge verify
is "python: its fix passes" "$rc" 0
n=$(count "$T/pip-installs")
printf 'extra==2\n' >requirements-dev.txt
printf 'extra\n' >>requirements.txt
printf 'import extra\n' >>app.py
run_forge verify
is "python: a new requirement: it passes" "$rc" 0
is "python: installed once more" "$(count "$T/pip-installs")" $((n + 1))

# --- submodules ----------------------------------------------------------
init_repo "$T/lib"
printf 'add() { echo $(($1 + $2)); }\n' >"$T/lib/lib.sh"
git -C "$T/lib" add -A && git -C "$T/lib" commit -q -m lib || exit 99
project "$T/sub" submodules
git submodule -q add "$T/lib" lib || exit 99
printf 'check:\n\tsh test.sh\n' >Makefile
printf '. ./lib/lib.sh\ntest "$(add 2 3)" = 5\n' >test.sh
commit_all
run_forge verify
is "submodules: a cold run passes" "$rc" 0
printf 'add() { echo $(($1 - $2)); }\n' >lib/lib.sh
run_forge verify
fresh
is "submodules: a bug in the submodule, uncommitted, fails" "$rc" 2
is "submodules: as in a fresh copy" "$fresh_rc" "$rc"
git -C lib checkout -q lib.sh
run_forge verify
is "submodules: its fix passes" "$rc" 0

cd "$T" || exit 99
for r in auto npm py sub; do
	[ -d "$T/$r" ] && (cd "$T/$r" && forge gc --all >/dev/null 2>&1)
done
is "nothing is left in TMPDIR" "$(ls -A "$TMPDIR")" ""
done_testing
