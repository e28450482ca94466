#!/bin/sh
# Inside a git hook, GIT_DIR, GIT_INDEX_FILE and friends point at the real
# repository: the command in the copy must not see them, so that git in
# the copy works on the copy.  And a real pre-commit hook running forge
# verify --isolated sees what is being committed and leaves nothing.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

LOCAL_VARS=$(git rev-parse --local-env-vars | tr '\n' ' ')
export LOCAL_VARS

# Run in the copy: report leaked variables, where git thinks it is, and
# what git status and git add do there.
PROBE='
leaked=
for v in $LOCAL_VARS; do
	eval "test -n \"\${$v+set}\"" && leaked="$leaked $v"
done
echo "leaked: ${leaked:-none}"
echo "top: $(git rev-parse --show-toplevel)"
cd "$(git rev-parse --show-toplevel)" || exit 1
echo "status: $(git status --porcelain --untracked-files=all | sort | tr "\n" " ")"
echo copy-only >added.txt
git add added.txt hello.txt || echo "add failed"
echo "staged: $(git diff --cached --name-only | tr "\n" " ")"
'

field() {
	printf '%s\n' "$out" | sed -n "s/^$1: //p"
}

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'new\n' >new.txt
git add new.txt
printf 'untracked\n' >notes.txt
copy_top="^$TMPDIR/forge-[^/]+/r\$"
# What the probe says of the copy, passed on as written.
git config forge.mapPaths false

# 1. As git runs a pre-commit hook: GIT_DIR relative, GIT_INDEX_FILE
# naming the index, at the top of the working tree.
cp .git/index "$T/index.saved"
before=$(state_of "$T/r")
(
	GIT_DIR=.git GIT_INDEX_FILE=.git/index
	export GIT_DIR GIT_INDEX_FILE
	run_forge verify --isolated -- sh -c "$PROBE"
	printf '%s\n' "$rc" >"$T/rc"
	printf '%s\n' "$out" >"$T/out"
)
rc=$(cat "$T/rc")
out=$(cat "$T/out")
is "hook-like environment: the command passes" "$rc" 0
is "no repository-local variable reaches the command" "$(field leaked)" none
like "git in the copy finds the copy" "$(field top)" "$copy_top"
# (The copy's index stages what the source's does: new.txt is staged.)
is "git status in the copy shows the copy's changes" "$(field status)" \
    " M hello.txt ?? notes.txt A  new.txt "
like "git add in the copy stages in the copy" "$(field staged)" \
    "^added\.txt hello\.txt "
ok "the real index is byte for byte as it was" cmp .git/index "$T/index.saved"
not_ok "nothing was added to the real index" \
    sh -c 'git ls-files --error-unmatch added.txt'
not_ok "the file created in the copy is not in the source" test -e added.txt
is "the source is untouched" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# 2. Every variable git lists, set to values that point at the real
# repository, absolute paths, and another index file as git commit -a
# uses; from a subdirectory.
cp .git/index "$T/r/.git/other-index"
printf 'more\n' >src/more.c
GIT_INDEX_FILE="$T/r/.git/other-index" git add src/more.c
cp .git/other-index "$T/other-index.saved"
cp .git/index "$T/index.saved"
mkdir -p "$T/empty-objects"
before=$(state_of "$T/r")
(
	cd src || exit 99
	GIT_DIR="$T/r/.git"
	GIT_WORK_TREE="$T/r"
	GIT_INDEX_FILE="$T/r/.git/other-index"
	GIT_COMMON_DIR="$T/r/.git"
	GIT_OBJECT_DIRECTORY="$T/r/.git/objects"
	GIT_ALTERNATE_OBJECT_DIRECTORIES="$T/empty-objects"
	# As the git under test writes it: quoted apart from 2.31 on.
	if git_at_least 2 31; then
		GIT_CONFIG_PARAMETERS="'color.ui'='always'"
	else
		GIT_CONFIG_PARAMETERS="'color.ui=always'"
	fi
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.quotePath GIT_CONFIG_VALUE_0=false
	GIT_CONFIG="$T/no-such-config"
	GIT_PREFIX=src/
	GIT_NO_REPLACE_OBJECTS=1
	GIT_REPLACE_REF_BASE=refs/replace/
	GIT_GRAFT_FILE="$T/no-such-grafts"
	GIT_SHALLOW_FILE="$T/no-such-shallow"
	export GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR \
	    GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
	    GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 \
	    GIT_CONFIG_VALUE_0 GIT_CONFIG GIT_PREFIX GIT_NO_REPLACE_OBJECTS \
	    GIT_REPLACE_REF_BASE GIT_GRAFT_FILE GIT_SHALLOW_FILE
	run_forge verify --isolated -- sh -c "$PROBE"
	printf '%s\n' "$rc" >"$T/rc"
	printf '%s\n' "$out" >"$T/out"
)
rc=$(cat "$T/rc")
out=$(cat "$T/out")
is "every local variable set: the command passes" "$rc" 0
is "none of them reaches the command" "$(field leaked)" none
like "git in the copy finds the copy" "$(field top)" "$copy_top"
is "git status in the copy shows the copy's changes, as that index has them" \
    "$(field status)" " M hello.txt ?? notes.txt A  new.txt A  src/more.c "
like "git add in the copy stages in the copy" "$(field staged)" \
    "^added\.txt hello\.txt "
ok "the hook's index is byte for byte as it was" \
    cmp .git/other-index "$T/other-index.saved"
ok "the real index is byte for byte as it was" cmp .git/index "$T/index.saved"
is "the source is untouched" "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""
rm -f .git/other-index

# 3. A real pre-commit hook.  It runs forge verify --isolated on a check
# of what is being committed, and writes what it saw to $HOOKLOG.
HOOKLOG="$T/hook.log"
export HOOKLOG
cat >.git/hooks/pre-commit <<'EOF'
#!/bin/sh
exec ${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c '
	{
		echo "top: $(git rev-parse --show-toplevel)"
		for f in hello.txt new.txt src/more.c; do
			test -f "$f" && echo "has: $f $(tail -n 1 "$f")"
		done
		for v in $LOCAL_VARS; do
			eval "test -n \"\${$v+set}\"" && echo "leaked: $v"
		done
		test ! -e FAIL-ME
	} >>"$HOOKLOG"' 2>>"$HOOKLOG.err"
EOF
chmod +x .git/hooks/pre-commit

hook_saw() {
	grep -v '^top: ' "$HOOKLOG" | sort | tr '\n' ' '
}

# git commit: the staged changes, with nothing else in the way.
git add hello.txt
rm -f "$HOOKLOG"
ok "git commit with the hook succeeds" git commit -q -m 'with a hook'
like "the hook's verification ran in a copy" \
    "$(sed -n 's/^top: //p' "$HOOKLOG")" "$copy_top"
is "it saw the staged changes (and the untracked file)" "$(hook_saw)" \
    "has: hello.txt edit has: new.txt new has: src/more.c more "
like "the hook's verdict was PASS" "$(tail -n 1 "$HOOKLOG.err")" \
    'Verdict: PASS \(isolated'
is "the commit holds what the hook saw" \
    "$(git show HEAD:hello.txt | tail -n 1) $(git show HEAD:new.txt)" \
    "edit new"
is "git status is clean but for the untracked files" \
    "$(git status --porcelain | tr '\n' ' ')" "?? notes.txt ?? src/more.c "
is "after the hook, nothing is left behind" "$(leftovers "$T/r")" ""

# git commit -a: git hands the hook a temporary index.
printf 'second\n' >>hello.txt
rm -f "$HOOKLOG"
ok "git commit -a with the hook succeeds" git commit -q -a -m 'all'
is "the hook saw the change -a staged" "$(hook_saw)" \
    "has: hello.txt second has: new.txt new has: src/more.c more "
is "the commit holds it" "$(git show HEAD:hello.txt | tail -n 1)" second
is "after commit -a, nothing is left behind" "$(leftovers "$T/r")" ""

# git commit PATH: another temporary index, holding HEAD and PATH.
git add src/more.c
rm -f "$HOOKLOG"
ok "git commit PATH with the hook succeeds" git commit -q -m path src/more.c
is "the hook saw the path being committed" "$(hook_saw)" \
    "has: hello.txt second has: new.txt new has: src/more.c more "
is "after commit PATH, nothing is left behind" "$(leftovers "$T/r")" ""

# A failing check stops the commit, and still leaves nothing behind.
head=$(git rev-parse HEAD)
printf 'third\n' >>hello.txt
printf 'x\n' >FAIL-ME
git add hello.txt FAIL-ME
staged=$(git ls-files -s)
rm -f "$HOOKLOG"
not_ok "a failing verification stops the commit" git commit -q -m 'no'
is "HEAD did not move" "$(git rev-parse HEAD)" "$head"
like "the hook's verdict was FAIL" "$(tail -n 1 "$HOOKLOG.err")" \
    'Verdict: FAIL \(exit status 1;'
is "the index stages what it did before the commit" "$(git ls-files -s)" \
    "$staged"
is "after a failed hook, nothing is left behind" "$(leftovers "$T/r")" ""
unlike "no hook ever saw a repository-local variable" \
    "$(cat "$HOOKLOG")" 'leaked'

done_testing
