#!/bin/sh
# forge hook install: a pre-commit hook that verifies exactly what git
# commit records -- with git commit, git commit PATH and git commit -a,
# which hand the hook a temporary index -- without touching the working
# tree, and without the circuit breaker; a pre-push hook that verifies
# each commit pushed; and uninstall, which removes only forge's.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
# The project's check: test.js says ok, and every file it needs exists.
printf 'ok\n' >test.js
: >needs
git add test.js needs
git commit -q -m 'a project with a check'
git config forge.verify 'grep -qx ok test.js'
git config --add forge.verify 'for f in $(cat needs); do test -f "$f" || exit 1; done'
tl=.git/forge/timeline.jsonl

run_forge hook install pre-commit
is "install succeeds" "$rc" 0
like "and says where" "$out" "^installed $T/r/.git/hooks/pre-commit\$"
like "and which steps it runs, from where" "$out" \
    "^it runs forge.verify's steps, from git config \\($T/r/.git/config\\): grep -qx ok test.js && for f in"
like "the hook says where its steps come from" "$(cat .git/hooks/pre-commit)" \
    "^# forge hook steps: forge.verify's"
ok "the hook is executable" test -x .git/hooks/pre-commit
like "it runs forge verify --staged --no-breaker" \
    "$(cat .git/hooks/pre-commit)" 'verify --isolated --staged --no-breaker'

commit() {
	git commit -q "$@" >"$T/commit.out" 2>&1
}

# 1. A broken test.js staged, fixed in the working tree but not staged:
# the commit is refused, and the fix is still there, unstaged.
printf 'broken\n' >test.js
git add test.js
printf 'ok\n' >test.js
head=$(git rev-parse HEAD)
not_ok "a broken staged file is refused, though fixed unstaged" commit -m broken
is "HEAD did not move" "$(git rev-parse HEAD)" "$head"
like "the hook said FAIL of the staged tree" "$(cat "$T/commit.out")" \
    'Verdict: FAIL \(exit status 1; staged,'
is "the working tree still has the fix" "$(cat test.js)" ok
is "and the index the broken file" "$(git show :test.js)" broken
is "the timeline's mode is staged" \
    "$(grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" mode verdict)" \
    "staged	FAIL"

# 2. Only a README change staged, with test.js broken but not staged:
# the commit goes in.
git add test.js
git commit -q -m 'nothing broken' --no-verify 2>/dev/null
printf 'readme\n' >README
git add README
printf 'broken\n' >test.js
ok "a good staged change goes in, whatever is unstaged" commit -m readme
is "the commit holds the README" "$(git show HEAD:README)" readme
run_forge log -n 1
like "forge log shows the command of a PASS row" "$out" \
    " staged +PASS .* grep -qx ok test.js && for f in \\\$\\(cat needs\\)"
is "the broken file stayed unstaged" "$(git status --porcelain test.js)" \
    " M test.js"

# An untracked file the commit lacks plays no part.
printf 'ok\n' >test.js
printf 'lib.js\n' >needs
printf 'lib\n' >lib.js
git add needs
not_ok "a commit needing a file it lacks is refused" commit -m needs
ok "with the file staged, it goes in" sh -c 'git add lib.js && git commit -q -m needs'

# 3. Refused commits do not open the breaker: a good one still goes in.
printf 'broken\n' >test.js
git add test.js
for i in 1 2 3 4; do
	commit -m "broken $i"
done
like "the fourth refusal is a FAIL, not the breaker" "$(cat "$T/commit.out")" \
    'Verdict: FAIL'
run_forge status
like "the breaker is still closed" "$out" '^breaker: closed \(streak 0 of 3\)'
printf 'ok\n' >test.js
printf 'fixed\n' >README
git add test.js README
ok "and a good commit goes in" commit -m fixed

# 4. git commit PATH: the temporary index holds HEAD plus PATH, not what
# the repository's index stages.
printf 'broken\n' >test.js
git add test.js
printf 'readme 2\n' >README
ok "git commit PATH verifies HEAD plus PATH" commit -m 'readme 2' README
is "which went in alone" "$(git show HEAD:test.js) $(git show HEAD:README)" \
    "ok readme 2"
printf 'readme 3\n' >README
not_ok "git commit PATH with a broken PATH is refused" commit -m 'test' test.js
git reset -q test.js

# 5. git commit -a: the broken working tree is what would be committed.
printf 'ok\n' >test.js
git add test.js
printf 'broken\n' >test.js
head=$(git rev-parse HEAD)
not_ok "git commit -a of a broken working tree is refused" commit -a -m all
is "HEAD did not move" "$(git rev-parse HEAD)" "$head"
printf 'ok\n' >test.js
ok "git commit -a of a good one goes in" commit -a -m all
is "nothing is left behind" "$(leftovers "$T/r")" ""

# pre-push: each commit pushed, through --rev.
git init -q --bare "$T/remote.git"
git remote add origin "$T/remote.git"
run_forge hook install pre-push
is "install pre-push succeeds" "$rc" 0
ok "a good commit is pushed" git push -q origin main
printf 'broken\n' >test.js
git commit -q -a -m 'broken' --no-verify
not_ok "a broken commit is not" git push -q origin main
is "the remote kept the good one" "$(git --git-dir="$T/remote.git" rev-parse main)" \
    "$(git rev-parse HEAD~1)"
is "the timeline's mode is rev, with the commit" \
    "$(grep '"event":"verify"' "$tl" | tail -n 1 | "$JSONPICK" mode rev verdict)" \
    "rev	$(git rev-parse HEAD)	FAIL"
git reset -q --hard HEAD~1
git push -q origin main:doomed
ok "deleting a remote branch verifies nothing" git push -q origin :doomed
run_forge hook install pre-push
is "installing forge's hook again replaces it" "$rc" 0

# Someone else's hook: never overwritten, never removed.
printf '#!/bin/sh\nexit 0\n' >.git/hooks/post-commit
printf '#!/bin/sh\necho mine\n' >"$T/mine"
run_forge hook uninstall pre-commit
is "uninstall removes forge's hook" "$rc" 0
not_ok "which is gone" test -e .git/hooks/pre-commit
cp "$T/mine" .git/hooks/pre-commit
run_forge hook install pre-commit
is "install refuses to overwrite a hook that is not forge's" "$rc" 1
like "saying why" "$err" 'pre-commit exists and is not forge'"'"'s'
ok "which is as it was" cmp .git/hooks/pre-commit "$T/mine"
run_forge hook uninstall
is "uninstall leaves it too" "$rc" 1
ok "it is still there" cmp .git/hooks/pre-commit "$T/mine"
not_ok "forge's pre-push is gone" test -e .git/hooks/pre-push
ok "the other hook is untouched" test -e .git/hooks/post-commit

# core.hooksPath, relative to the top.
git config core.hooksPath githooks
run_forge hook install pre-commit
like "install honours core.hooksPath" "$out" "^installed $T/r/githooks/pre-commit\$"
ok "the hook is there" test -x githooks/pre-commit
printf 'broken\n' >test.js
git add test.js
not_ok "and git runs it" commit -m broken
run_forge hook uninstall pre-commit
not_ok "uninstall removes it from there" test -e githooks/pre-commit
not_ok "and the directory install made for it" test -e githooks
like "saying so" "$out" "^removed $T/r/githooks, which install made\$"

run_forge hook uninstall
is "uninstall with nothing of forge's left succeeds" "$rc" 0
mkdir githooks
ln -s "$T/mine" githooks/pre-commit
run_forge hook install pre-commit
is "a symbolic link in the hook's place is not forge's either" "$rc" 1
ok "and stays" test -L githooks/pre-commit

rm -r githooks

# Uninstall removes the directories install made, and only those: not one
# that was there before, nor one that holds anyone else's files.
mkdir -p tools
printf 'mine\n' >tools/build.sh
git config core.hooksPath tools/git/hooks
run_forge hook install pre-commit
run_forge hook install pre-push
ok "install makes the directories core.hooksPath names" \
    test -x tools/git/hooks/pre-push
run_forge hook uninstall pre-commit
ok "while forge's pre-push is in it, the directory stays" \
    test -x tools/git/hooks/pre-push
run_forge hook uninstall pre-push
is "then uninstall removes both directories it made" \
    "$(ls -A tools)" build.sh
is "saying so, deepest first" "$out" "removed $T/r/tools/git/hooks/pre-push
removed $T/r/tools/git/hooks, which install made
removed $T/r/tools/git, which install made"
ok "not the one that was there" test -f tools/build.sh

run_forge hook install pre-commit
printf '#!/bin/sh\n' >tools/git/hooks/post-commit
mkdir tools/git/other
run_forge hook uninstall
is "a directory holding someone's files: uninstall succeeds" "$rc" 0
ok "the directories stay, with what they hold" \
    test -f tools/git/hooks/post-commit -a -d tools/git/other
not_ok "forge's hook is gone" test -e tools/git/hooks/pre-commit
rm tools/git/hooks/post-commit
run_forge hook uninstall
is "once it is emptied, uninstall removes what install made" \
    "$(ls -A tools tools/git)" "tools:
build.sh
git

tools/git:
other"

# A directory that was there before install is not install's to remove;
# nor is one made again in the place of one install made.
mkdir -p pre/hooks
git config core.hooksPath pre/hooks
run_forge hook install pre-commit
run_forge hook uninstall
ok "a directory that was there stays, empty" test -d pre/hooks
git config core.hooksPath again/hooks
run_forge hook install pre-commit
rm again/hooks/pre-commit
mv again/hooks again/made	# (kept: its inode is not to be had again)
mkdir again/hooks
run_forge hook uninstall
is "a directory made again in its place: uninstall succeeds" "$rc" 0
ok "and leaves it" test -d again/hooks
git config --unset core.hooksPath
rm -rf pre again

run_forge hook install post-commit
is "an unknown hook is a usage error" "$rc" 64
run_forge hook frob
is "so is an unknown action" "$rc" 64

# No steps configured: a hook would refuse every commit, and cannot be
# given a command; install refuses, and says how to configure them.
new_repo "$T/s"
printf 'ok\n' >test.js
git add test.js && git commit -q -m test.js
for h in pre-commit pre-push; do
	run_forge hook install $h
	is "$h without steps: install refuses, a usage error" "$rc" 64
	like "$h: saying how to give them" "$err" \
	    "no steps to verify.*forge hook install $h -- make check.*git config forge.verify"
	unlike "$h: not as a command to a hook" "$err" 'forge verify --'
	ok "$h: nothing is written" test ! -e ".git/hooks/$h"
done
printf '[forge]\n\tverify = grep -qx ok test.js\n' >.forgeconfig
run_forge hook install pre-commit
is "an untracked .forgeconfig is no commit's: refused" "$rc" 64
git add .forgeconfig
run_forge hook install pre-commit
is "a tracked one's steps: installed" "$rc" 0
like "saying they are the .forgeconfig's each commit holds" "$out" \
    "^it runs forge.verify's steps, from the .forgeconfig each commit holds \\(now: grep -qx ok test.js\\)\$"
git rm -q --cached .forgeconfig
rm .forgeconfig .git/hooks/pre-commit
git config forge.verify ''
run_forge hook install pre-commit
is "steps cleared by an empty forge.verify: refused" "$rc" 64
git config --unset forge.verify

# The steps on install's command line: the hook's alone, written into
# it; forge verify keeps the steps it has, and git config is left alone.
printf '[forge]\n\tverify = echo committed steps\n' >.forgeconfig
git add .forgeconfig
git commit -q -m forgeconfig
config_before=$(cat .git/config)
run_forge hook install pre-commit -- sh -c 'grep -qx ok test.js'
is "install -- command: installed" "$rc" 0
is "saying where, and which step the hook runs" "$out" \
    "installed $T/s/.git/hooks/pre-commit
it runs sh -c 'grep -qx ok test.js', as given here (forge verify's own steps are unchanged)"
is "the git config is as it was" "$(cat .git/config)" "$config_before"
like "the command is in the hook" "$(cat .git/hooks/pre-commit)" \
    "verify --isolated --staged --no-breaker -- sh -c 'grep -qx ok test.js'\$"
run_forge verify
is "forge verify runs the committed .forgeconfig's steps still" "$out" \
    "committed steps"
printf 'broken\n' >test.js
git add test.js
not_ok "the hook refuses a broken commit" commit -m broken
like "having verified with its own step" "$(cat "$T/commit.out")" \
    "Verify: sh -c 'grep -qx ok test.js' \\.\\.\\. Verdict: FAIL"
printf 'ok\n' >test.js
git add test.js
printf 'readme\n' >README
git add README
ok "and takes a good one" commit -m readme
unlike "without running the .forgeconfig's" "$(cat "$T/commit.out")" \
    'committed steps'
run_forge hook install pre-push -- true
is "install pre-push -- command: installed" "$rc" 0
like "the pre-push hook runs it for each commit" \
    "$(cat .git/hooks/pre-push)" \
    'verify --isolated --rev="\$loid" --no-breaker -- true </dev/null \|\| exit$'
is "the git config is still as it was" "$(cat .git/config)" "$config_before"

# Steps of a wider scope play no part in the hook's run; forge verify
# runs them, as git config's.
git config --global forge.verify 'echo global steps'
run_forge hook install pre-commit -- sh -c 'echo only mine'
is "with forge.verify in the global config: installed" "$rc" 0
printf 'readme 2\n' >README
git add README
ok "the hook passes" commit -m 'readme 2'
like "running the step given" "$(cat "$T/commit.out")" "^only mine\$"
unlike "alone" "$(cat "$T/commit.out")" 'global steps'
run_forge verify
is "forge verify runs git config's" "$out" "global steps"
git config --global --unset forge.verify

# Uninstall removes what install wrote, and git config was never touched.
run_forge hook uninstall
is "uninstall succeeds" "$rc" 0
is "both hooks are gone" "$(ls .git/hooks | grep -v '\.sample$')" ""
is "the git config is as it was before install" "$(cat .git/config)" \
    "$config_before"

# A command that cannot be run would refuse every commit: refused, and
# nothing changes.
before=$(cat .git/config; ls .git/hooks)
run_forge hook install pre-commit -- 'grep -q ok test.js && true'
is "a shell line given as one word: refused" "$rc" 64
like "saying how to give one" "$err" \
    "command not found; for a shell command line, give -- sh -c"
run_forge hook install pre-commit -- no-such-command-here
is "a command not found: refused" "$rc" 64
is "neither changed the config or the hooks" "$(cat .git/config; \
    ls .git/hooks)" "$before"
run_forge hook install pre-commit --
is "install HOOK -- with no command is a usage error" "$rc" 64
run_forge hook uninstall pre-commit -- true
is "uninstall takes no command" "$rc" 64
cp "$T/mine" .git/hooks/pre-commit
run_forge hook install pre-commit -- false
is "a hook that is not forge's: refused with a command too" "$rc" 1
ok "and it is left as it was" cmp .git/hooks/pre-commit "$T/mine"
rm .git/hooks/pre-commit

# Hooks an older forge wrote: no line for their steps, and the command
# given to install was written to forge.verify in the repository's git
# config (after an empty value, when a wider scope set it too), where
# every forge verify ran it over the .forgeconfig's.
older_hook() {
	{
		printf '#!/bin/sh\n# forge hook: written by forge hook install; '
		printf 'forge hook uninstall removes it\n'
		printf "forge='%s'\n" "$FORGE"
		printf 'test -x "$forge" || forge=forge\n'
		case $1 in
		pre-commit)
			printf 'exec "$forge" verify --isolated --staged --no-breaker\n' ;;
		pre-push)
			printf 'while read -r lref loid rref roid; do\n'
			printf '\tcase $loid in *[!0]*) ;; *) continue ;; esac\n'
			printf '\t"$forge" verify --isolated --rev="$loid" --no-breaker </dev/null || exit\n'
			printf 'done\nexit 0\n' ;;
		esac
	} >.git/hooks/$1
	chmod +x .git/hooks/$1
}
older_hook pre-commit
git config forge.verify "sh -c 'echo older'"
run_forge verify
is "older: forge verify ran the hook's command" "$out" older
run_forge hook install pre-commit -- sh -c 'echo older'
is "older: install again with the same command succeeds" "$rc" 0
like "older: says it removed what the older install wrote" "$out" \
    "^removed forge.verify 'sh -c 'echo older'' from $T/s/.git/config, where an older forge hook install put it"
is "older: it is gone from git config" \
    "$(git config --local --get-all forge.verify)" ""
run_forge verify
is "older: forge verify runs the .forgeconfig's again" "$out" \
    "committed steps"
run_forge hook install pre-commit -- sh -c 'echo older'
unlike "a hook of this forge's replaced: nothing said of git config" \
    "$out$err" 'forge.verify '"'"

older_hook pre-commit
git config --global forge.verify 'echo global steps'
git config forge.verify ''
git config --add forge.verify 'true'
run_forge hook install pre-commit -- true
is "older, after an empty value: removed too" \
    "$(git config --local --get-all forge.verify)" ""
git config --global --unset forge.verify

older_hook pre-commit
older_hook pre-push
git config forge.verify 'true'
run_forge hook install pre-commit -- true
is "older, with an older pre-push hook left: installed" "$rc" 0
is "its steps stay, for that hook runs them" \
    "$(git config --local --get-all forge.verify)" true
like "saying so" "$err" \
    "forge.verify 'true' in $T/s/.git/config applies to every forge verify.*an older forge wrote runs it"

older_hook pre-commit
run_forge hook install pre-commit -- sh -c 'echo other'
is "older, steps that are not the command given: installed" "$rc" 0
is "they stay" "$(git config --local --get-all forge.verify)" true
like "and how to remove them is said" "$err" \
    "git config --local --unset-all forge.verify removes it"

older_hook pre-commit
run_forge hook uninstall
is "older: uninstall removes the hooks" "$(ls .git/hooks | grep -v '\.sample$')" ""
is "and leaves git config's steps, whoever set them" \
    "$(git config --local --get-all forge.verify)" true
like "saying how to remove them" "$err" \
    "forge.verify 'true' in $T/s/.git/config applies to every forge verify, over a .forgeconfig's steps; if an older forge hook install put it there, git config --local --unset-all forge.verify removes it"
git config --unset forge.verify
older_hook pre-commit
run_forge hook uninstall
is "older, no steps in git config: uninstall says nothing more" "$err" ""

done_testing
