#!/bin/sh
# Settings of the user's git that change what git diff prints or what git
# apply accepts must not change the copy: for each, the copy holds exactly
# the working state and the verification passes.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "${TESTLIB%/*}/core-lib.sh"

mkdir -p "$T/bin"
# An external diff and a textconv driver that print garbage.
printf '#!/bin/sh\necho "garbage from the external diff"\n' >"$T/bin/ext-diff"
printf '#!/bin/sh\necho "garbage from textconv"\n' >"$T/bin/textconv"
chmod +x "$T/bin/ext-diff" "$T/bin/textconv"
# An order file that puts the children of changed paths first and
# symlinks before what they replace.
printf 'node/*\nswap\nsrc/*\n*\n' >"$T/order.list"

wide_name=$(printf 'caf\303\251 \342\230\225.txt')

# changes: commit a baseline in the current repository, then leave a
# working state that exercises everything a patch can carry.
changes() {
	printf '*.txt diff=x\n' >.gitattributes
	printf 'a\n\nb\nc\n\nd\n\n\ne\n' >blanks.txt
	printf 'clean\n' >ws.txt
	printf 'will be a link\n' >swap
	printf 'will be a directory\n' >node
	mkdir -p dir src
	printf 'will be a file\n' >dir/inner
	printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n' >orig.txt
	printf 'rename me, I am long enough to be found again\n' >old.txt
	printf 'gone soon\n' >delete.txt
	printf 'mode\n' >mode.sh
	printf 'sub\n' >src/lib.c
	printf 'wide\n' >"$wide_name"
	printf 'quoted\n' >'with "quotes" and spaces.txt'
	printf 'bin\000ary\001\n' >blob.bin
	git add -A && git commit -q -m baseline || exit 99

	sed 's/^c$/C/; s/^e$/E/' blanks.txt >x && mv x blanks.txt
	printf 'clean  \ntrailing\t\n' >ws.txt
	rm swap && ln -s hello.txt swap
	rm node && mkdir node && printf 'now inside\n' >node/child
	rm -r dir && printf 'now a file\n' >dir
	cp orig.txt copy.txt && git add copy.txt
	printf 'nine\n' >>orig.txt
	git mv old.txt renamed.txt
	git rm -q delete.txt
	chmod +x mode.sh
	printf 'changed\n' >>src/lib.c
	printf 'added in src\n' >src/new.c && git add src/new.c
	printf 'wider\n' >>"$wide_name"
	printf 'more\n' >>'with "quotes" and spaces.txt'
	printf 'bin\000ary\002\n' >blob.bin
	printf 'untracked\n' >untracked.txt
	printf 'ignored\n' >ignored.o
	printf 'staged\n' >>hello.txt && git add hello.txt
	printf 'then unstaged\n' >>hello.txt
}

# hostile NAME DIR COMMAND...: in a fresh repository with changes, run
# COMMAND (which sets the configuration up), then verify from DIR (a
# path in the repository) and compare the copy with the working state.
hostile() {
	_name=$1 _dir=$2
	shift 2
	_r="$T/$_name"
	new_repo "$_r"
	changes
	"$@" || { echo "Bail out! cannot set up $_name"; exit 99; }
	_before=$(state_at "$_r")
	cd "$_r/$_dir" || exit 99
	run_forge verify --isolated -- sh -c "$MANIFEST_SH" sh "$T/$_name.copy"
	cd "$_r" || exit 99
	is "$_name: the verification passes" "$rc" 0
	[ "$rc" -eq 0 ] || printf '%s\n' "$err" | sed 's/^/# /'
	like "$_name: the verdict is PASS" "$(printf '%s\n' "$err" | tail -n 1)" \
	    '^Verify: .* Verdict: PASS \(isolated'
	is "$_name: the copy holds exactly the working state" \
	    "$(cat "$T/$_name.copy" 2>/dev/null)" "$(manifest_source "$_r")"
	is "$_name: the source is untouched" "$(state_at "$_r")" "$_before"
	is "$_name: nothing is left behind" "$(leftovers "$_r")" ""
}

set_config() {
	while [ $# -gt 0 ]; do
		git config "$1" "$2" || return 1
		shift 2
	done
}

hostile baseline . true
# The baseline copy does hold every kind of change made above.
like "baseline: the manifest has the symlink" "$(cat "$T/baseline.copy")" \
    '^swap	l	'
like "baseline: and the new directory" "$(cat "$T/baseline.copy")" \
    '^node/child	f	'
like "baseline: and the mode change" "$(cat "$T/baseline.copy")" \
    '^mode\.sh	f	0755'

hostile color-ui . set_config color.ui always
hostile color-diff . set_config color.diff always color.ui never
hostile noprefix . set_config diff.noprefix true
hostile mnemonic-prefix . set_config diff.mnemonicPrefix true
hostile src-dst-prefix . set_config diff.srcPrefix x/ diff.dstPrefix y/
hostile external-diff . set_config diff.external "$T/bin/ext-diff"
hostile textconv . set_config diff.x.textconv "$T/bin/textconv"
hostile textconv-cached . set_config diff.x.textconv "$T/bin/textconv" \
    diff.x.cachetextconv true
hostile relative src set_config diff.relative true
hostile context-0 . set_config diff.context 0
hostile inter-hunk . set_config diff.interHunkContext 20 diff.context 0
hostile suppress-blank . set_config diff.suppressBlankEmpty true
hostile apply-ws-error . set_config apply.whitespace error \
    core.whitespace trailing-space,space-before-tab
hostile apply-ws-fix . set_config apply.whitespace fix
hostile apply-ignore-ws . set_config apply.ignoreWhitespace change
hostile quotepath-true . set_config core.quotePath true
hostile quotepath-false . set_config core.quotePath false
hostile orderfile . set_config diff.orderFile "$T/order.list"
hostile renames-copies . set_config diff.renames copies
hostile renames-true . set_config diff.renames true diff.renameLimit 1
hostile algorithm . set_config diff.algorithm patience diff.indentHeuristic false
hostile word-diff-color . set_config color.ui always diff.wsErrorHighlight all \
    diff.colorMoved zebra
hostile submodule-diff . set_config diff.submodule diff diff.ignoreSubmodules none
hostile global-everything . sh -c '
	git config --global color.ui always &&
	git config --global diff.noprefix true &&
	git config --global diff.external "$1" &&
	git config --global diff.context 0 &&
	git config --global apply.whitespace error &&
	git config --global diff.orderFile "$2" &&
	git config --global diff.renames copies' sh \
    "$T/bin/ext-diff" "$T/order.list"
for k in color.ui diff.noprefix diff.external diff.context apply.whitespace \
    diff.orderFile diff.renames; do
	git config --global --unset "$k"
done

# How the index is kept does not matter either.
hostile split-index . sh -c 'git config core.splitIndex true &&
    git config splitIndex.maxPercentChange 100 && git update-index --split-index'
hostile index-v4 . sh -c 'git config index.version 4 &&
    git config core.untrackedCache true && git update-index --index-version 4'
hostile many-files . set_config feature.manyFiles true

# The environment can say as much as the configuration.
GIT_EXTERNAL_DIFF="$T/bin/ext-diff"
export GIT_EXTERNAL_DIFF
hostile env-external-diff . true
unset GIT_EXTERNAL_DIFF
GIT_DIFF_OPTS=--unified=0
export GIT_DIFF_OPTS
hostile env-diff-opts . true
unset GIT_DIFF_OPTS

done_testing
