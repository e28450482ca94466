#!/bin/sh
# The user's git configuration does not change what the copy holds:
# settings that change what git diff prints or what git apply accepts,
# external diff and textconv drivers, a lying fsmonitor hook, hooks,
# end-of-line conversion, the stat cache; nor does running from inside a
# git hook, with GIT_DIR and GIT_INDEX_FILE exported.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

# A working state whose patch every setting below would mangle: blank
# lines, whitespace errors, a rename, a mode change, odd and non-ASCII
# names, a binary file, edits far apart in one file.
hostile_edits() {
	printf 'line one\n\nline three\n' >blank.txt
	printf 'moved\n' >to-move.txt
	seq 1 60 >long.txt
	printf '\000binary\n' >data.bin
	printf 'plain\n' >"$(printf 'caf\303\251 tab\there')"
	printf '*.txt diff=shout\n' >.gitattributes
	git add -A && git commit -q -m 'before the edits' || exit 99
	printf 'line one\n\nline three \t\n  \tspace before tab\n\n\n' \
	    >blank.txt
	git mv to-move.txt moved.txt
	sed 's/^5$/five  /; s/^50$/fifty\t/' long.txt >long.new &&
	    mv long.new long.txt
	chmod +x blank.txt
	printf '\000binary\001edited\n' >data.bin
	printf 'edited\r\n' >>"$(printf 'caf\303\251 tab\there')"
	printf 'new, with \\ and "quotes"\n' >"$(printf 'new\351.txt')"
	mkdir -p sub/dir
	printf 'untracked\n' >sub/dir/u.txt
}

# hostile_settings SCOPE: settings that would each change the patch, if
# obeyed.
hostile_settings() {
	printf '#!/bin/sh\necho "external diff: not a patch"\n' >"$T/ext-diff"
	chmod +x "$T/ext-diff"
	printf 'z*\nlong.txt\n' >"$T/order"
	while read -r key value; do
		git config "$1" "$key" "$value" || exit 99
	done <<-SETTINGS
	color.ui always
	color.diff always
	diff.noprefix true
	diff.mnemonicPrefix true
	diff.relative true
	diff.context 0
	diff.interHunkContext 20
	diff.renames copies
	diff.algorithm histogram
	diff.suppressBlankEmpty true
	diff.orderFile $T/order
	diff.external $T/ext-diff
	diff.shout.textconv tr a-z A-Z
	diff.shout.binary true
	diff.ignoreSubmodules all
	diff.colorMoved zebra
	diff.wsErrorHighlight all
	core.quotePath false
	core.whitespace trailing-space,space-before-tab,indent-with-non-tab,cr-at-eol,blank-at-eof
	apply.whitespace fix
	apply.ignoreWhitespace change
	core.abbrev 4
	SETTINGS
}

new_repo "$T/global"
hostile_edits
hostile_settings --global
like "the user's git diff runs the external diff" "$(git diff HEAD)" \
    'external diff: not a patch'
copy_is_working_state "hostile global configuration"
ok "the whitespace errors arrived untouched" copy_has blank.txt f 0755
for key in $(git config --global --name-only --list | grep -v '^user\.\|^init\.\|^advice\.\|^protocol\.'); do
	git config --global --unset-all "$key"
done

new_repo "$T/local"
hostile_edits
hostile_settings --local
copy_is_working_state "hostile repository configuration"

# core.fsmonitor: a hook that swears nothing ever changed.
new_repo "$T/fsmonitor"
printf '#!/bin/sh\n# protocol 2: a token, then the paths changed: none\n' \
    >"$T/fsmonitor-hook"
printf "printf 'token\\\\000'\n" >>"$T/fsmonitor-hook"
chmod +x "$T/fsmonitor-hook"
# Old files and a fresh index: nothing racily clean, which git would
# read whatever the hook says.
find . -path ./.git -prune -o -type f -exec touch -d '2020-01-01 00:00' {} +
git update-index -q --refresh
git config core.fsmonitor "$T/fsmonitor-hook"
git status --porcelain >/dev/null	# the index learns to trust the hook
git status --porcelain >/dev/null
printf 'edited behind the hook\n' >>hello.txt
printf 'edited too\n' >>src/main.c
# A precondition, not forge's doing: git has to believe the hook for
# this case to mean anything.
if [ -z "$(git diff --name-only HEAD)" ]; then
	pass "the lying hook hides the edits from git"
else
	skip "the lying hook hides the edits from git" \
	    "git did not take the hook's word this time"
fi
copy_is_working_state "a lying fsmonitor hook"
ok "the hidden edit arrived" copy_has hello.txt f

# Hooks that git worktree add or a checkout would run do not run.
new_repo "$T/hooks"
mkdir -p "$T/hooks-dir"
for h in post-checkout post-index-change reference-transaction; do
	printf '#!/bin/sh\necho ran >"%s"\necho hooked >"$PWD/hooked"\n' \
	    "$T/ran-$h" >".git/hooks/$h"
	chmod +x ".git/hooks/$h"
	cp ".git/hooks/$h" "$T/hooks-dir/$h"
done
printf 'edit\n' >>hello.txt
copy_is_working_state "hooks in the repository"
is "no hook ran" "$(cd "$T" && ls -d ran-* 2>/dev/null)" ""
git config --global core.hooksPath "$T/hooks-dir"
copy_is_working_state "hooks in core.hooksPath"
is "no hook ran" "$(cd "$T" && ls -d ran-* 2>/dev/null)" ""
git config --global --unset core.hooksPath

# core.autocrlf set before the checkout: the working tree has CRLF, and
# so has the copy.
new_repo "$T/crlf-up"
printf 'a\nb\n' >lf.txt
printf 'crlf\r\n' >crlf.txt
git add -A && git commit -q -m eol || exit 99
git -c core.autocrlf=true clone -q "$T/crlf-up" "$T/crlf" || exit 99
cd "$T/crlf" || exit 99
git config core.autocrlf true
printf 'c\r\n' >>lf.txt
printf 'new\r\nlines\r\n' >new.txt
printf 'lf only\n' >new-lf.txt
copy_is_working_state "core.autocrlf true from the start"
# A file of the copy that something touched after the checkout is looked
# at afresh, with the same index entry as the source's: git keeps line
# endings that the index already holds, and must do so on both sides.
fake_git "$T/toucher" '
"$REAL_GIT" "$@"
st=$?
[ "$SUB" = apply ] && touch crlf.txt
exit $st'
PATH="$T/toucher:$PATH" run_forge verify --isolated -- sh -c \
    'od -c crlf.txt | grep -q "\\r"'
is "a touched CRLF file is proved as the source's, and keeps its CR" "$rc" 0
# Set after the checkout: the files on disk have LF, and so must the
# copy's, though git would check them out with CRLF now.
cd "$T/crlf-up" || exit 99
git config --global core.autocrlf true
printf 'c\n' >>lf.txt
KNOWN_BUG="core.autocrlf set after checkout: the copy is checked out as git would now (a documented limitation); the proof compares normalized content"
copy_is_working_state "core.autocrlf set after the checkout"
KNOWN_BUG=
git config --global --unset core.autocrlf

# The stat cache: an edit that keeps the size and the mtime.  git sees it
# through the ctime (in whole seconds: hence the sleep), unless the user
# turned that off.
new_repo "$T/stat"
touch -d '2025-01-01 00:00:00' hello.txt
git update-index --refresh >/dev/null
sleep 1
printf 'HELLO\n' >hello.txt
touch -d '2025-01-01 00:00:00' hello.txt
copy_is_working_state "an edit keeping size and mtime"
git checkout -q hello.txt
touch -d '2025-01-01 00:00:00' hello.txt
git update-index --refresh >/dev/null
sleep 1
git config core.trustctime false
printf 'HELLO\n' >hello.txt
touch -d '2025-01-01 00:00:00' hello.txt
is "git itself no longer sees the edit" "$(git diff --name-only HEAD)" ""
copy_is_working_state "the same, with core.trustctime false"

# core.fileMode false: git ignores the executable bit; the copy must not.
new_repo "$T/filemode"
git config core.fileMode false
chmod +x hello.txt
chmod -x run.sh
copy_is_working_state "core.fileMode false"
# With a symlink where the index has a directory: the source's exec bits
# go to the copy's files, and to none outside it through the copy's
# symlink, which leads elsewhere than the working tree's.
new_repo "$T/fm/deep/filemode"
git config core.fileMode false
mkdir -p "$T/fm/victim" "$TMPDIR/victim"
printf 'src\n' >"$T/fm/victim/main.c"
chmod 755 "$T/fm/victim/main.c"
printf 'outside\n' >"$TMPDIR/victim/main.c"
chmod 644 "$TMPDIR/victim/main.c"
rm -rf src
ln -s ../../victim src
run_forge verify --isolated -- readlink src
is "core.fileMode false, a symlink for a directory: forge passes" "$rc" 0
is "the copy has the symlink" "$out" ../../victim
is "the file it leads to from the copy keeps its mode" \
    "$(stat -c %a "$TMPDIR/victim/main.c")" 644
rm -rf "$TMPDIR/victim"

# From inside a git hook: GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE
# exported and relative, as git may leave them for hooks; the index a
# temporary one holding other staged content.
new_repo "$T/in-hook"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >new.txt
cp .git/index "$T/other-index"
GIT_INDEX_FILE="$T/other-index" git add new.txt
GIT_DIR=.git GIT_WORK_TREE=. GIT_INDEX_FILE=../other-index
export GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
copy_is_working_state "GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE exported"
run_forge verify --isolated -- sh -c \
    'env | grep -E "^GIT_(DIR|WORK_TREE|INDEX_FILE)=" || true'
is "the command in the copy saw none of them" "$out" ""
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE

# And from a real pre-commit hook of `git commit -a`, which runs with its
# own temporary index.
manifest_source "$T/in-hook" >"$T/hook-src.m"
cat >.git/hooks/pre-commit <<'HOOK'
#!/bin/sh
env | grep '^GIT_' >"$HOOK_OUT.env"
"$FORGE" verify --isolated -- sh -c '"$1" . >"$2"' sh "$TREELIST" \
    "$HOOK_OUT.m" 2>"$HOOK_OUT.err"
echo $? >"$HOOK_OUT.rc"
exit 1	# no commit: the working state stays as it is
HOOK
chmod +x .git/hooks/pre-commit
HOOK_OUT=$T/hook FORGE=$FORGE TREELIST=$TREELIST git commit -q -a -m no \
    >/dev/null 2>&1
like "the hook ran with git's variables" "$(cat "$T/hook.env")" \
    '^GIT_INDEX_FILE='
is "forge passed inside the hook" "$(cat "$T/hook.rc")" 0
[ -f "$T/hook.m" ] || : >"$T/hook.m"
same "the copy made inside the hook is the working state" "$T/hook.m" \
    "$T/hook-src.m"
is "nothing is left behind" "$(leftovers "$T/in-hook")" ""

done_testing
