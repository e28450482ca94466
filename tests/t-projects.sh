#!/bin/sh
# The README's .forgeconfig for each kind of project, taken from the
# README as written, on a small generated project of that kind: a cold
# run passes, an edit rebuilds only what it touched and does not run
# setup again, a bug fails as a fresh copy fails, its fix passes, and a
# change to a setup input runs setup again.  No network: cmake, npm
# without a lockfile (local dependencies) and python3 with the system's
# packages are the real ones, where installed; npm ci and pip are
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

# --- a configure that rewrites tracked files (zlib's shape) --------------
# The autotools example, its setup zlib's own ./configure, which
# overwrites the tracked placeholder Makefile and zconf.h: the next copy
# puts them back, so setup runs again each run, saying why, and a syntax
# error fails as in a fresh copy (make on the placeholder Makefile would
# pass).
if command -v cc >/dev/null 2>&1; then
	project "$T/zlib" autotools
	sed 's|^\( *setup = \).*|\1./configure|
	    s|^\( *setupInputs = \)configure\.ac$|\1configure|
	    /^ *setupInputs = \*\*\/Makefile\.am$/d
	    s|^\( *verify = \).*|\1make test|' .forgeconfig >c.new &&
	    mv c.new .forgeconfig
	printf 'test:\n\t@echo run ./configure first\n' >Makefile
	printf '#define Z 0\n' >zconf.h
	cat >configure <<'EOF'
#!/bin/sh
echo "checking for a C compiler... cc"
printf 'test:\n\tcc -c -o z.o z.c\n' >Makefile
printf '#define Z 1\n' >zconf.h
EOF
	chmod +x configure
	printf '#include "zconf.h"\nint z(void) { return Z; }\n' >z.c
	printf '*.o\n' >.gitignore
	commit_all
	run_forge verify
	is "zlib's shape: a cold run passes" "$rc" 0
	like "zlib's shape: configure ran" "$out" 'checking for'
	printf '#include "zconf.h"\nint z(void) { return Z }\n' >z.c
	run_forge verify
	fresh
	is "zlib's shape: a syntax error fails" "$rc" 2
	is "zlib's shape: as in a fresh copy" "$fresh_rc" "$rc"
	like "zlib's shape: setup runs again, saying why" "$err" \
	    'setup runs again: it had changed Makefile'
	printf '#include "zconf.h"\nint z(void) { return Z; }\n' >z.c
	run_forge verify
	is "zlib's shape: its fix passes" "$rc" 0
	is "zlib's shape: the working tree's placeholder untouched" \
	    "$(git status --porcelain)" ""
else
	skip "zlib's shape" "cc is missing"
fi

# --- cmake ---------------------------------------------------------------
# The real cmake and ctest, on a C project whose build directory is
# ignored.
if command -v cmake >/dev/null 2>&1 && command -v ctest >/dev/null 2>&1 &&
    command -v cc >/dev/null 2>&1; then
	project "$T/cmake" cmake
	printf 'build/\n' >.gitignore
	cat >CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(demo C)
enable_testing()
include(cmake/sum.cmake)
add_executable(demo main.c add.c)
target_compile_definitions(demo PRIVATE SUM=${SUM})
add_test(NAME demo COMMAND demo)
EOF
	mkdir cmake
	printf 'set(SUM 5)\n' >cmake/sum.cmake
	printf 'int add(int, int);\nint main(void) { return add(2, 3) == SUM ? 0 : 1; }\n' \
	    >main.c
	printf 'int add(int a, int b) { return a + b; }\n' >add.c
	commit_all
	run_forge verify
	is "cmake: a cold run passes" "$rc" 0
	like "cmake: setup configured the build directory" "$out" \
	    'Build files have been written to'
	like "cmake: ctest ran the test" "$out" '100% tests passed'
	printf '/* two */\n' >>add.c
	run_forge verify
	is "cmake: after an edit, it passes" "$rc" 0
	like "cmake: in the copy the last run left" "$err" \
	    'running verification in a reused incremental copy'
	unlike "cmake: setup did not run again" "$out" 'Build files have been written'
	like "cmake: the edited file is rebuilt" "$out" 'add\.c\.o'
	unlike "cmake: and no other" "$out" 'main\.c\.o'
	printf 'int add(int a, int b) { return a - b; }\n' >add.c
	run_forge verify
	fresh
	is "cmake: a bug fails" "$rc" 8
	like "cmake: in ctest" "$err" 'Verdict: FAIL \(exit status 8;'
	is "cmake: as in a fresh copy" "$fresh_rc" "$rc"
	printf 'int add(int a, int b) { return a + b; }\n' >add.c
	run_forge verify
	is "cmake: its fix passes" "$rc" 0
	printf 'add_test(NAME again COMMAND demo)\n' >>CMakeLists.txt
	run_forge verify
	is "cmake: CMakeLists.txt changed: it passes" "$rc" 0
	like "cmake: setup ran again" "$out" 'Build files have been written to'
	like "cmake: saying why" "$err" 'setup runs again: CMakeLists.txt changed'
	like "cmake: with the new test" "$out" 'tests passed, 0 tests failed out of 2'
	printf 'int add(int a, int b) { return 0; }\n' >add.c
	run_forge verify
	is "cmake: a bug after it fails" "$rc" 8
	printf 'int add(int a, int b) { return a + b; }\n' >add.c
	printf 'set(SUM 6)\n' >cmake/sum.cmake
	run_forge verify
	fresh
	unlike "cmake: another file configure reads changed: setup did not run" \
	    "$err" 'setup runs again'
	is "cmake: cmake --build configured again, and it fails" "$rc" 8
	is "cmake: as in a fresh copy" "$fresh_rc" "$rc"
else
	skip "cmake: the example" "cmake, ctest or cc is missing"
fi

# --- npm without a lockfile ----------------------------------------------
# The real npm, with package-lock=false and local file: dependencies, so
# that npm install needs no registry; nor does it ask one for an audit or
# for a newer npm.
npm_quiet() {
	npm_config_audit=false npm_config_fund=false \
	    npm_config_update_notifier=false "$@"
}
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
	project "$T/npmi" "npm without a lockfile"
	printf 'node_modules/\n' >.gitignore
	printf 'package-lock=false\n' >.npmrc
	mkdir add
	printf '{ "name": "add", "version": "1.0.0", "main": "index.js" }\n' \
	    >add/package.json
	printf 'module.exports = (a, b) => a + b;\n' >add/index.js
	cat >package.json <<'EOF'
{
  "name": "demo",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "node test.js" },
  "dependencies": { "add": "file:./add" }
}
EOF
	cat >test.js <<'EOF'
const add = require("add");
if (add(2, 3) !== 5) {
	console.error("add(2, 3) is " + add(2, 3));
	process.exit(1);
}
console.log("tests ok");
EOF
	commit_all
	npm_quiet run_forge verify
	is "npm without a lockfile: a cold run passes" "$rc" 0
	like "npm without a lockfile: npm install ran" "$out" 'added 1 package'
	like "npm without a lockfile: the test ran" "$out" '^tests ok$'
	printf '// a comment\n' >>test.js
	npm_quiet run_forge verify
	is "npm without a lockfile: after an edit, it passes" "$rc" 0
	like "npm without a lockfile: in the copy the last run left" "$err" \
	    'running verification in a reused incremental copy'
	unlike "npm without a lockfile: nothing installed again" "$out" 'added'
	printf 'module.exports = (a, b) => a - b;\n' >add/index.js
	npm_quiet run_forge verify
	is "npm without a lockfile: a bug fails" "$rc" 1
	like "npm without a lockfile: saying where" "$err" 'add\(2, 3\) is -1'
	npm_quiet fresh
	is "npm without a lockfile: as in a fresh copy" "$fresh_rc" "$rc"
	printf 'module.exports = (a, b) => a + b;\n' >add/index.js
	npm_quiet run_forge verify
	is "npm without a lockfile: its fix passes" "$rc" 0
	mkdir twice
	printf '{ "name": "twice", "version": "1.0.0", "main": "index.js" }\n' \
	    >twice/package.json
	printf 'module.exports = (a) => 2 * a;\n' >twice/index.js
	sed 's|"add": "file:./add"|"add": "file:./add", "twice": "file:./twice"|' \
	    package.json >p.new && mv p.new package.json
	printf 'if (require("twice")(2) !== 4) process.exit(1);\n' >>test.js
	npm_quiet run_forge verify
	is "npm without a lockfile: a new dependency: it passes" "$rc" 0
	like "npm without a lockfile: installed" "$out" 'added 1 package'
	like "npm without a lockfile: saying why" "$err" \
	    'setup runs again: package.json changed'
else
	skip "npm without a lockfile: the example" "npm or node is missing"
fi

# --- python with the system's packages -----------------------------------
# The real python3, with nothing installed.
project "$T/pysys" "python with the system's packages"
printf '__pycache__/\n' >.gitignore
printf 'import json\n\ndef add(a, b):\n    return json.loads(json.dumps(a + b))\n' \
    >app.py
cat >test_app.py <<'EOF'
import unittest
import app

class TestApp(unittest.TestCase):
    def test_add(self):
        self.assertEqual(app.add(2, 3), 5)
EOF
commit_all
run_forge verify
is "python with the system's packages: a cold run passes" "$rc" 0
like "python with the system's packages: the test ran" "$err" '^Ran 1 test'
printf '# a comment\n' >>app.py
run_forge verify
is "python with the system's packages: after an edit, it passes" "$rc" 0
like "python with the system's packages: in the copy the last run left" \
    "$err" 'running verification in a reused incremental copy'
sed 's/a + b/a - b/' app.py >a.new && mv a.new app.py
run_forge verify
fresh
is "python with the system's packages: a bug fails" "$rc" 1
like "python with the system's packages: saying where" "$err" \
    'AssertionError: -1 != 5'
is "python with the system's packages: as in a fresh copy" "$fresh_rc" "$rc"
sed 's/a - b/a + b/' app.py >a.new && mv a.new app.py
run_forge verify
is "python with the system's packages: its fix passes" "$rc" 0

# --- npm -----------------------------------------------------------------
# npm: ci installs, after a moment, each dependency package.json names;
# test runs test.sh, which fails on a missing package as npm does.
cat >"$T/bin/npm" <<EOF
#!/bin/sh
case \$1 in
ci)	$(unaudited "echo run >>$T/npm-installs")
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
# python3 -m pip install --target DIR -r FILE: each requirement NAME==V
# becomes a module NAME of VERSION V -- but, as pip does, one already in
# DIR stays as it is without --upgrade; anything else is the real python3.
cat >"$T/bin/python3" <<EOF
#!/bin/sh
if [ "\$1 \$2" = "-m pip" ]; then
	shift 2
	upgrade=
	while [ \$# -gt 0 ]; do
		case \$1 in
		--target) target=\$2; shift ;;
		-r) req=\$2; shift ;;
		--upgrade|-U) upgrade=1 ;;
		esac
		shift
	done
	$(unaudited "echo run >>$T/pip-installs")
	mkdir -p "\$target" || exit 1
	sed '/^#/d; s/==/ /' "\$req" | while read -r p v; do
		if [ -e "\$target/\$p.py" ] && [ -z "\$upgrade" ]; then
			echo "WARNING: Target directory \$target/\$p already exists." >&2
			continue
		fi
		printf "NAME = '%s'\\nVERSION = '%s'\\n" "\$p" "\$v" >"\$target/\$p.py"
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
import sluglite

class TestApp(unittest.TestCase):
    def test_add(self):
        self.assertEqual(app.add(2, 3), 5)

    def test_pinned(self):
        with open("requirements.txt") as f:
            pin = f.readline().strip().split("==")[1]
        self.assertEqual(sluglite.VERSION, pin)
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
sed 's/sluglite==1.0/sluglite==1.1/' requirements.txt >r.new &&
    mv r.new requirements.txt
run_forge verify
is "python: a requirement's new version: it passes" "$rc" 0
is "python: installed, over the old one" "$(count "$T/pip-installs")" $((n + 2))

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
for r in auto zlib cmake npmi pysys npm py sub; do
	[ -d "$T/$r" ] && (cd "$T/$r" && forge gc --all >/dev/null 2>&1)
done
is "nothing is left in TMPDIR" "$(ls -A "$TMPDIR")" ""
done_testing
