#!/bin/sh
# forge.setupInputs: an incremental copy runs its setup again when a file
# it lists differs from the last setup's, and only then; without it,
# every file is setup's input.  Where a step fails after a change to a
# file setup commonly reads that is not listed, the hint names it.
# Every verdict equals a fresh copy's but that one, which is the hint's,
# and which its run does not audit: the incremental copy's own verdict,
# wrong on purpose, is what it checks.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
# An install step that stands in for npm: what it installs is what
# package.json and the requirements said when it ran.  The test fails
# unless they still agree.
printf 'node_modules/\n' >>.gitignore
printf '{"deps":["a"]}\n' >package.json
printf 'lock 1\n' >package-lock.json
cat >install.sh <<EOF
#!/bin/sh
[ -n "\${FORGE_AUDITING:-}" ] || echo run >>"$T/installs"
mkdir -p node_modules
cat package.json requirements*.txt 2>/dev/null >node_modules/installed
exit 0
EOF
cat >check.sh <<'EOF'
#!/bin/sh
cat package.json requirements*.txt 2>/dev/null >want
cmp -s node_modules/installed want || { echo "Cannot find package"; exit 1; }
EOF
chmod +x install.sh check.sh
git add -A && git commit -q -m npm-like
git config forge.setup ./install.sh
git config forge.verify ./check.sh
git config forge.setupInputs 'requirements*.txt'
installs() { cat "$T/installs" 2>/dev/null | wc -l | tr -d ' '; }

# both [ARG...]: each run, incremental (with ARGs) and fresh side by side:
# the same verdict.
both() {
	run_forge verify --incremental "$@"
	inc_rc=$rc inc_err=$err
	forge verify --isolated --no-reuse >/dev/null 2>&1
	fresh_rc=$?
}

both
is "the first incremental run installs and passes" "$inc_rc" 0
is "as a fresh copy does" "$fresh_rc" 0
n=$(installs)
both
is "unchanged: it passes" "$inc_rc" 0
is "setup did not run again" "$(installs)" $((n + 1))

# Not listed: the change goes unseen by setup, the step fails, and the
# hint says which file changed.  Not audited: an audit would make the
# fresh copy's PASS the run's.
printf '{"deps":["a","is-odd"]}\n' >package.json
both --no-audit
is "package.json changed, not listed: the incremental run fails" "$inc_rc" 1
is "a fresh copy passes: the hint is all there is" "$fresh_rc" 0
like "the hint names the file that changed" "$inc_err" \
    "forge: hint: package.json changed since the copy's setup last ran"
like "and how to list it" "$inc_err" \
    'git config --add forge.setupInputs package.json'

# Listed: setup runs again, once, and the run passes.
git config --add forge.setupInputs package.json
n=$(installs)
both
is "listed: the incremental run passes" "$inc_rc" 0
is "setup ran again" "$(installs)" $((n + 2))
unlike "no hint" "$inc_err" 'hint'
n=$(installs)
both
is "again, unchanged: it passes" "$inc_rc" 0
is "setup did not run" "$(installs)" $((n + 1))

printf '{"deps":["b"]}\n' >package.json
n=$(installs)
both
is "a second edit: passes" "$inc_rc" 0
is "setup ran again" "$(installs)" $((n + 2))
like "saying why" "$inc_err" \
    'forge: setup runs again: package.json changed since it last ran'

# A glob, an untracked file: a new requirements file counts.
printf 'six\n' >requirements-dev.txt
n=$(installs)
both
is "an untracked file the glob matches: passes" "$inc_rc" 0
is "setup ran again for it" "$(installs)" $((n + 2))
rm requirements-dev.txt
n=$(installs)
both
is "that file gone: passes" "$inc_rc" 0
is "setup ran again" "$(installs)" $((n + 2))

# A change elsewhere reruns nothing.
printf 'more\n' >>hello.txt
n=$(installs)
both
is "an unrelated change: passes" "$inc_rc" 0
is "setup did not run" "$(installs)" $((n + 1))

# The list itself is part of what setup ran with.
git config --add forge.setupInputs 'go.sum'
n=$(installs)
both
is "a pattern added: setup runs again" "$(installs)" $((n + 2))

# A pattern from the top; ** reaches into directories.
mkdir -p web
printf '{}\n' >web/package.json
n=$(installs)
both
is "package.json lists the top one only" "$(installs)" $((n + 1))
git config --add forge.setupInputs '**/package.json'
both
printf '{"x":1}\n' >web/package.json
n=$(installs)
both
is "**/package.json: a nested one reruns setup" "$(installs)" $((n + 2))

# --setup still runs it, listed inputs or not.
n=$(installs)
run_forge verify --incremental --setup
is "--setup runs setup" "$(installs)" $((n + 1))

# A hint only for what setup reads: an unrelated file that changed
# before a failure is never named.
both
printf 'broken\n' >>hello.txt
git config forge.verify 'exit 1'
run_forge verify --incremental
is "a failure with setup inputs unchanged" "$rc" 1
unlike "has no hint" "$err" 'hint'
git config forge.verify ./check.sh

# Setup that rewrites a file git tracks (npm install, its lockfile):
# the next run's copy puts the file back, so setup runs again there.
cat >install.sh <<EOF
#!/bin/sh
[ -n "\${FORGE_AUDITING:-}" ] || echo run >>"$T/installs"
mkdir -p node_modules
cat package.json requirements*.txt 2>/dev/null >node_modules/installed
echo "lock rewritten" >>package-lock.json
exit 0
EOF
cat >>check.sh <<'EOF'
grep -q 'lock rewritten' package-lock.json || { echo "stale lock"; exit 1; }
EOF
git add -A && git commit -q -m lock-rewriting
run_forge verify --incremental --setup
is "a setup that rewrites the lockfile: passes" "$rc" 0
n=$(installs)
both
is "a lockfile setup rewrote: the next run passes" "$inc_rc" 0
is "as a fresh copy does" "$fresh_rc" 0
is "setup ran again" "$(installs)" $((n + 2))
like "saying why" "$inc_err" \
    'setup runs again: it had changed package-lock.json, which the copy put back'

# Without forge.setupInputs, every file is setup's input.
git checkout -q HEAD~1 -- install.sh check.sh
git commit -q -am "install without the lockfile"
git config --unset-all forge.setupInputs
both
n=$(installs)
both
is "nothing listed, nothing changed: setup does not run" "$(installs)" \
    $((n + 1))
printf 'more\n' >>hello.txt
n=$(installs)
both
is "nothing listed, a file changed: setup runs again" "$(installs)" \
    $((n + 2))
like "saying why" "$inc_err" \
    'setup runs again: the working state changed since it last ran'

forge gc --all >/dev/null 2>&1
is "nothing is left in TMPDIR" "$(leftovers "$T/r")" ""
done_testing
