#!/bin/sh
# What setup changes that git does not ignore survives reuse: an
# incremental copy's next run puts such a path back (it is not the
# working state's), so setup runs again there, and says why.  Each
# verdict is checked against a fresh copy's.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# same_as_fresh DESCRIPTION [ARGS]: the last run's status is a fresh
# copy's.
same_as_fresh() {
	_d=$1
	_rc=$rc
	shift
	fresh_status "$@"
	is "$_d: as a fresh copy says" "$_rc" "$fresh_rc"
	rc=$_rc
}

# The runs here fail on purpose, many in a row.
git config --global forge.breakerThreshold 0

# --- configure that overwrites a tracked placeholder Makefile ---------
init_repo "$T/z"
cd "$T/z" || exit 99
cat >Makefile <<'EOF'
# A placeholder: ./configure writes the real one.
test:
	@echo "run ./configure first"
EOF
cat >configure <<'EOF'
#!/bin/sh
echo configured >>"$COUNT_FILE"
printf 'test:\n\tcc -c -o a.o a.c\n' >Makefile
printf '#define Z 1\n' >zconf.h
EOF
chmod +x configure
printf '#define Z 0\n' >zconf.h
printf '#include "zconf.h"\nint f(void) { return Z; }\n' >a.c
printf '*.o\n' >.gitignore
git add -A && git commit -q -m placeholder
export COUNT_FILE="$T/configured"
git config forge.setup ./configure
git config forge.setupInputs configure
git config forge.verify 'make test'
run_forge verify --incremental
is "zlib's shape: a cold run passes" "$rc" 0
is "configure ran" "$(counter "$COUNT_FILE")" 1
printf '#include "zconf.h"\nint f(void) { return Z }\n' >a.c
run_forge verify --incremental
is "a syntax error fails in the reused copy" "$rc" 2
same_as_fresh "the syntax error"
like "setup runs again, and says why" "$err" \
    "setup runs again: it had changed Makefile and more, which the copy put back"
printf '#include "zconf.h"\nint f(void) { return Z; }\n' >a.c
run_forge verify --incremental
is "its fix passes" "$rc" 0
same_as_fresh "the fix"
printf '/* x */\n' >>a.c
run_forge verify --staged --incremental
is "--staged, incremental: passes" "$rc" 0
git add a.c
printf '#include "zconf.h"\nint f(void) { return Z }\n' >a.c
git add a.c
run_forge verify --staged --incremental
run_forge verify --staged --incremental
is "--staged, reused: the staged syntax error fails" "$rc" 2
like "setup ran again there too" "$err" "setup runs again: it had changed"
same_as_fresh "--staged" --staged
git checkout -q -- a.c 2>/dev/null
git reset -q --hard

# A range carried from commit to commit, incremental: setup runs again
# at each commit, as the copy is put back to it.
printf '/* 1 */\n' >>a.c && git commit -q -am one
printf 'int g(void) { return 0 }\n' >>a.c && git commit -q -am broken
printf '/* 3 */\n' >>a.c && git commit -q -am three
run_forge verify --rev=HEAD~3..HEAD --incremental --keep-going
is "a range with the broken commit fails" "$rc" 2
like "setup ran again at a carried commit" "$err" \
    "setup runs again: it had changed Makefile"
like "the broken commit failed" "$out$err" "FAIL"
git reset -q --hard HEAD~3

# --- npm install rewriting a tracked lockfile -------------------------
init_repo "$T/npm"
cd "$T/npm" || exit 99
printf '{ "lockfileVersion": 0 }\n' >package-lock.json
printf '{ "name": "demo" }\n' >package.json
printf 'node_modules/\n' >.gitignore
# install: node_modules, and a lockfile rewritten; the test needs both.
cat >install.sh <<'EOF'
mkdir -p node_modules/dep
echo dep >node_modules/dep/index.js
printf '{ "lockfileVersion": 3 }\n' >package-lock.json
EOF
cat >test.sh <<'EOF'
test -f node_modules/dep/index.js || { echo "no dep"; exit 1; }
grep -q '"lockfileVersion": 3' package-lock.json || { echo "old lock"; exit 1; }
grep -q 'ok' index.js
EOF
printf 'ok\n' >index.js
git add -A && git commit -q -m npm
git config forge.setup 'sh install.sh'
git config forge.setupInputs package.json
git config forge.verify 'sh test.sh'
run_forge verify --incremental
is "npm's shape: a cold run passes" "$rc" 0
printf 'ok again\n' >index.js
run_forge verify --incremental
is "an edit passes, the lockfile installed again" "$rc" 0
same_as_fresh "npm"
like "said" "$err" "it had changed package-lock.json"

# --- a setup that deletes a tracked file ------------------------------
init_repo "$T/del"
cd "$T/del" || exit 99
printf 'stale\n' >stale.cfg
printf 'ok\n' >main.txt
git add -A && git commit -q -m del
git config forge.setup 'rm stale.cfg'
git config forge.setupInputs setup.sh
git config forge.verify 'test ! -e stale.cfg && grep -q ok main.txt'
run_forge verify --incremental
is "a setup that deletes a tracked file: passes" "$rc" 0
printf 'ok, edited\n' >main.txt
run_forge verify --incremental
is "the next run deletes it again, and passes" "$rc" 0
same_as_fresh "the deletion"
like "said" "$err" "it had changed stale.cfg"

# --- a setup that makes an untracked file git does not ignore ---------
init_repo "$T/gen"
cd "$T/gen" || exit 99
printf 'ok\n' >main.txt
git add -A && git commit -q -m gen
git config forge.setup 'echo generated >config.h'
git config forge.setupInputs setup.sh
git config forge.verify 'test -f config.h && grep -q ok main.txt'
run_forge verify --incremental
is "a setup that makes an untracked file: passes" "$rc" 0
printf 'ok, edited\n' >main.txt
run_forge verify --incremental
is "the next run makes it again, and passes" "$rc" 0
same_as_fresh "the untracked file"
like "said" "$err" "it had changed config.h"

# --- a setup that writes a file again as it was ----------------------
init_repo "$T/same"
cd "$T/same" || exit 99
printf 'ok\n' >main.txt
git add -A && git commit -q -m same
git config forge.setup "cp main.txt m.tmp && mv m.tmp main.txt &&
    touch main.txt && $(unaudited "echo run >>$T/same-count")"
git config forge.setupInputs setup.sh
git config forge.verify 'grep -q ok main.txt'
run_forge verify --incremental
printf 'ok, edited\n' >main.txt
run_forge verify --incremental
is "a tracked file written again with its own bytes: passes" "$rc" 0
is "and setup is not run again for it" "$(counter "$T/same-count")" 1

# --- a setup that writes only what git ignores stays skipped ----------
init_repo "$T/ign"
cd "$T/ign" || exit 99
printf 'build/\n' >.gitignore
printf 'ok\n' >main.txt
git add -A && git commit -q -m ign
git config forge.setup "mkdir -p build && echo x >build/gen &&
    $(unaudited "echo run >>$T/ign-count")"
git config forge.setupInputs setup.sh
git config forge.verify 'test -f build/gen && grep -q ok main.txt'
run_forge verify --incremental
printf 'ok, edited\n' >main.txt
run_forge verify --incremental
is "setup that writes ignored files only: passes" "$rc" 0
is "and is not run again" "$(counter "$T/ign-count")" 1
unlike "nothing said" "$err" "setup runs again"

# --- no forge.setupInputs: every file is setup's input ----------------
git config --unset forge.setupInputs
run_forge verify --incremental
is "without forge.setupInputs, the first run sets up" \
    "$(counter "$T/ign-count")" 2
run_forge verify --incremental
is "and nothing changed: it does not set up again" \
    "$(counter "$T/ign-count")" 2
printf 'ok, again\n' >main.txt
run_forge verify --incremental
is "any file changed: it sets up again" "$(counter "$T/ign-count")" 3
like "and says why" "$err" \
    "setup runs again: the working state changed since it last ran"

# --- a setup that writes into a submodule what it does not ignore ------
init_repo "$T/subsrc"
(cd "$T/subsrc" && printf 'lib\n' >lib.txt && git add -A &&
    git commit -q -m lib) || exit 99
init_repo "$T/top"
cd "$T/top" || exit 99
git submodule -q add "$T/subsrc" vendor 2>/dev/null || exit 99
printf 'ok\n' >main.txt
git add -A && git commit -q -m top
git config forge.setup 'echo generated >vendor/Makefile'
git config forge.setupInputs setup.sh
git config forge.verify 'test -f vendor/Makefile && grep -q ok main.txt'
run_forge verify --incremental
is "a setup that writes into a submodule: passes" "$rc" 0
printf 'ok, edited\n' >main.txt
run_forge verify --incremental
is "the next run writes it again, and passes" "$rc" 0
same_as_fresh "the submodule"
like "said" "$err" "it had changed vendor/Makefile"

done_testing
