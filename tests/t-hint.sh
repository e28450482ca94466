#!/bin/sh
# A copy holds only what git does not ignore: when the command's
# directory has a build input git ignores (a generated Makefile or
# configure, node_modules beside a package.json) and no setup step
# makes it, forge says so once, before running.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
pat='^forge: hint: '

# hints: the hint lines of the last run.
hints() {
	printf '%s\n' "$err" | grep -c "$pat"
}

# A tracked configure script, and the Makefile it made, ignored.
printf '#!/bin/sh\necho all: >Makefile\n' >configure
chmod +x configure
printf 'Makefile\n' >>.gitignore
git add configure .gitignore && git commit -q -m configure
printf 'check:\n\ttrue\n' >Makefile
before=$(state_of "$T/r")

run_forge verify --isolated -- sh -c 'echo ran >&2; test -f Makefile'
is "without its Makefile, the copy's build fails as before" "$rc" 1
is "one hint" "$(hints)" 1
like "that names the input and the setup step to make it" "$err" \
    "${pat}Makefile is ignored here, so the copy has none; configure a setup step: git config --add forge.setup './configure'\$"
is "before the command runs" \
    "$(printf '%s\n' "$err" | grep -n -e "$pat" -e '^ran$' | cut -d: -f2 | tr '\n' ' ')" \
    "forge ran "
is "the working tree is untouched" "$(state_of "$T/r")" "$before"

run_forge verify --in-place -- true
is "in place, the Makefile is there: no hint" "$(hints)" 0

git config --add forge.setup './configure'
run_forge verify --isolated -- test -f Makefile
is "with a setup step, the build has its Makefile" "$rc" 0
is "and there is no hint" "$(hints)" 0
git config --unset-all forge.setup

# The steps of forge.verify run at the top: that is where it looks.
git config forge.verify 'test -f Makefile'
cd src
run_forge verify --isolated
is "forge.verify steps from a subdirectory: the hint for the top" \
    "$(hints)" 1
git config --unset forge.verify
run_forge verify --isolated -- true
is "a command in src/, which has no Makefile: no hint" "$(hints)" 0
cd ..

# A tracked Makefile that an ignore pattern matches is in the copy.
rm Makefile
printf 'check:\n\ttrue\n' >Makefile
git add -f Makefile && git commit -q -m 'tracked Makefile'
run_forge verify --isolated -- true
is "a tracked Makefile, even one a pattern matches: no hint" "$(hints)" 0
git rm -q --cached Makefile && git commit -q -m 'untrack it'

# An untracked one that is not ignored is copied: no hint either.
printf 'Makefile\n' >.git/info/exclude
sed -i '/^Makefile$/d' .gitignore
git commit -q -am 'not ignored'
: >.git/info/exclude
run_forge verify --isolated -- test -f Makefile
is "an untracked Makefile git does not ignore is copied" "$rc" 0
is "and there is no hint" "$(hints)" 0

# Autotools: configure and the Makefile both generated.
init_repo "$T/at"
cd "$T/at"
printf 'AC_INIT([x], [1])\n' >configure.ac
printf '/configure\n/Makefile\n' >.gitignore
git add -A && git commit -q -m autotools
: >configure
: >Makefile
run_forge verify --isolated -- make
like "autotools: configure is to be made first" "$err" \
    "${pat}Makefile is ignored here, so the copy has none; configure a setup step: git config --add forge.setup 'autoreconf -fi && \\./configure'\$"
is "one hint only" "$(hints)" 1
rm Makefile
run_forge verify --isolated -- sh -c 'test -x ./configure'
like "configure alone ignored" "$err" \
    "${pat}configure is ignored here, so the copy has none; configure a setup step: git config --add forge.setup 'autoreconf -fi'\$"

# npm: node_modules matters only beside a package.json.
init_repo "$T/js"
cd "$T/js"
printf 'node_modules/\n' >.gitignore
mkdir -p node_modules/ava
git add -A && git commit -q -m js
run_forge verify --isolated -- true
is "node_modules without a package.json: no hint" "$(hints)" 0
printf '{}\n' >package.json
git add package.json && git commit -q -m package
run_forge verify --isolated -- true
like "node_modules ignored beside a package.json" "$err" \
    "${pat}node_modules is ignored here, so the copy has none; configure a setup step: git config --add forge.setup 'npm install'\$"
printf '{}\n' >package-lock.json
git add package-lock.json && git commit -q -m lock
run_forge verify --isolated -- true
like "with a lock file: npm ci" "$err" "forge.setup 'npm ci'\$"
rm -r node_modules
run_forge verify --isolated -- true
is "no node_modules at all: nothing the copy lacks" "$(hints)" 0

# In a subdirectory, the setup step (run at the top) goes there first.
mkdir -p "$T/js/web app" "$T/js/web"
printf '{}\n' >"$T/js/web/package.json"
printf '{}\n' >"$T/js/web app/package.json"
git add -A && git commit -q -m subdirs
mkdir -p "$T/js/web/node_modules" "$T/js/web app/node_modules"
cd "$T/js/web"
run_forge verify --isolated -- true
like "from a subdirectory: cd there first" "$err" \
    "${pat}node_modules is ignored here.* forge.setup 'cd web && npm install'\$"
cd "$T/js/web app"
run_forge verify --isolated -- true
like "a directory a shell would split: no command to paste" "$err" \
    "${pat}node_modules is ignored here, so the copy has none; configure a setup step that makes it: git config --add forge.setup COMMAND\$"
is "nothing is left behind" "$(leftovers "$T/js")" ""

done_testing
