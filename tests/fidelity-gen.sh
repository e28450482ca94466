# Random repositories in random working states, for the property test
# (tests/t-property.sh) and scripts/fuzz-fidelity.  Sourced, never run;
# POSIX sh only, so the random numbers come from shell arithmetic.
#
#	gen_case DIR SEED	make a repository in DIR (which must not
#				exist) and leave it in a working state drawn
#				from SEED; cd into it
#
# Afterwards $GEN_NESTED lists the nested repositories made (paths below
# DIR, space-separated, plain names), and $GEN_LOG names a file saying
# what was done, one step a line.  The same SEED makes the same state.
# With $GEN_NO_NESTED set, a step that would make a nested repository
# writes a file instead.
#
# The mix: text (CRLF, whitespace errors, no final newline, lines that
# look like patch syntax) and binary content, and files past
# forge.copyThreshold (set low for most cases), which forge copies
# whole -- growing past it and shrinking below it as they are rewritten;
# adds, staged and unstaged
# edits, intent to add; deletions with git rm and rm; renames with git mv
# and mv; modes; symbolic links made and retargeted; files turned into
# links and directories and back; untracked directories, ignored files,
# odd names; .gitignore edits; nested repositories; skip-worktree and
# assume-unchanged files; hostile git settings.  core.autocrlf set after
# the checkout, where forge's copy is checked out as git would check it
# out now (a documented limitation), is only drawn with
# FIDELITY_KNOWN_BUGS=1.
#
# Settings go into the repository's own configuration, except the global
# ones, which go into $HOME/.gitconfig: the caller restores it between
# cases.

# The generator: a linear congruential one, modulo 2^31 (shell arithmetic
# is at least 64 bits wide in every shell we run under).
gen_srand() {
	_gen_state=$(($1 % 2147483648))
}

# gen_rand N: a number in [0, N) in $R, from the state's high bits.
gen_rand() {
	_gen_state=$(((_gen_state * 1103515245 + 12345) % 2147483648))
	R=$(((_gen_state / 65536) % $1))
}

# The pool of names, and of directories to put them in: paths are made by
# picking one of each, so that operations keep meeting the same paths.
gen_names() {
	GN0=f1
	GN1=f2.txt
	GN2='with space'
	GN3=-dash
	GN4=$(printf 'tab\there')
	GN5=$(printf 'new\nline')
	GN6=$(printf 'caf\351')
	GN7=$(printf '%s' "q\"'\\")
	GN8='$(x);*?'
	GN9=n.tmp
	GN10=x.o			# ignored, at first
	GN11=$(printf '%0200d' 0 | tr 0 L)
	GN12=.hidden
	GN13=$(printf 'caf\303\251')
	GN_N=14
	GD0=
	GD1=a/
	GD2='sp ace/'
	GD3=a/b/
	GD4=-d/
	GD5=$(printf 'd\351/')
	GD6=build/			# ignored, at first
	GD7=a/b/c/d/e/f/g/h/
	GD_N=8
}

# gen_pick: a random path from the pool, in $P; mostly from its first few
# directories and names, so that operations keep meeting each other.
gen_pick() {
	gen_rand 10
	if [ $R -lt 7 ]; then
		gen_rand 3
		eval "P=\$GD$R"
		gen_rand 5
		eval "P=\$P\$GN$R"
	else
		gen_rand $GD_N
		eval "P=\$GD$R"
		gen_rand $GN_N
		eval "P=\$P\$GN$R"
	fi
}

# gen_pick_file: like gen_pick, but tries a few times for a path that is
# a file (not a link).
gen_pick_file() {
	for _g_try in 1 2 3 4; do
		gen_pick
		[ -f "$P" ] && [ ! -L "$P" ] && return 0
	done
	return 1
}

# gen_pick_entry: the same, for a path that exists in any form.
gen_pick_entry() {
	for _g_try in 1 2 3 4; do
		gen_pick
		{ [ -e "$P" ] || [ -L "$P" ]; } && return 0
	done
	return 1
}

# gen_pick_dir: a random directory of the pool (never the top), in $P.
gen_pick_dir() {
	gen_rand $((GD_N - 1))
	eval "P=\$GD$((R + 1))"
	P=${P%/}
}

# gen_note WORDS...: one line of the log.
gen_note() {
	printf '%s' "$*" | tr '\n\t' '|>' >>"$GEN_LOG"
	echo >>"$GEN_LOG"
}

# git, with pathspecs taken literally (names hold * and ?), quietly.
gen_git() {
	git --literal-pathspecs "$@" >/dev/null 2>&1
}

# gen_parent_ok PATH: every directory above PATH is a directory or
# missing, and none is a symbolic link: writing there stays in the tree.
gen_parent_ok() {
	_g_p=$1
	while :; do
		case $_g_p in
		*/*) _g_p=${_g_p%/*} ;;
		*) return 0 ;;
		esac
		[ -L "$_g_p" ] && return 1
		[ -e "$_g_p" ] && [ ! -d "$_g_p" ] && return 1
	done
}

# gen_mkparent PATH: make the directories above PATH.
gen_mkparent() {
	case $1 in
	*/*) mkdir -p -- "${1%/*}" 2>/dev/null ;;
	esac
}

# gen_text: random text on stdout.
gen_text() {
	gen_rand 6
	_g_lines=$((R + 1))
	while [ $_g_lines -gt 0 ]; do
		gen_rand 12
		case $R in
		0|1) printf 'line %d\n' $_gen_state ;;
		2) printf 'trailing spaces   \n' ;;
		3) printf ' \tspace before tab\n' ;;
		4) printf 'crlf line\r\n' ;;
		5) printf '\n' ;;
		6) printf '\ttab\tinside\t\n' ;;
		7) printf '\\ No newline at end of file\n' ;;
		8) printf '@@ -1,2 +1,2 @@\n-minus\n+plus\n' ;;
		9) printf 'diff --git a/x b/x\n--- a/x\n+++ b/x\n' ;;
		10) printf 'lone cr\rin the middle\n' ;;
		11) printf 'no final newline %d' $_g_lines ;;
		esac
		_g_lines=$((_g_lines - 1))
	done
}

# gen_binary: random binary content on stdout.
gen_binary() {
	gen_rand 4
	_g_lines=$((R * 50 + 1))
	gen_rand 256
	_g_b=$R
	while [ $_g_lines -gt 0 ]; do
		printf '\000\001\377%d %d\n' $_g_b $_g_lines
		_g_lines=$((_g_lines - 1))
	done
}

# gen_big: content past forge.copyThreshold on stdout: text or binary,
# a few KiB more than $GEN_BIG_KIB.
gen_big() {
	gen_rand 3
	_g_kib=$((GEN_BIG_KIB + R + 1))
	gen_rand 2
	[ $R -eq 0 ] && printf '\000\001\377binary\n'
	awk -v n="$_g_kib" -v s="$_gen_state" 'BEGIN {
		for (i = 0; i < n * 16; i++)
			printf "big %010d line %044d\n", s, i }'
}

# gen_write PATH: new content for PATH (made if need be).
gen_write() {
	gen_parent_ok "$1" || return 0
	[ -d "$1" ] && [ ! -L "$1" ] && return 0
	gen_mkparent "$1"
	[ -L "$1" ] && rm -f -- "$1"
	gen_rand 5
	if [ $R -eq 0 ]; then
		gen_binary >"$1"
		gen_note write binary "$1"
	else
		gen_text >"$1"
		gen_note write text "$1"
	fi
}

# The operations.  Each takes a random path (or none) and does something
# sensible with whatever is there, or nothing.

op_write() {
	gen_pick
	gen_write "$P"
}

# A file past the threshold, where anything but a directory is.
op_big() {
	gen_pick
	gen_parent_ok "$P" || return 0
	[ -d "$P" ] && [ ! -L "$P" ] && return 0
	gen_mkparent "$P"
	[ -L "$P" ] && rm -f -- "$P"
	gen_big >"$P"
	gen_note write big "$P"
}

op_append() {
	gen_pick_file || return 0
	gen_text >>"$P"
	gen_note append "$P"
}

op_add() {
	gen_pick_entry || return 0
	gen_git add -- "$P"
	gen_note git add "$P"
}

op_add_n() {
	gen_pick_file || return 0
	gen_git add -N -- "$P"
	gen_note git add -N "$P"
}

op_add_all() {
	gen_git add -A
	gen_note git add -A
}

op_commit() {
	gen_rand 2
	if [ $R -eq 0 ]; then
		gen_git add -A
	fi
	gen_git commit -q --no-verify -m "commit $_gen_state"
	gen_note git commit
}

op_git_rm() {
	gen_pick_entry || return 0
	gen_rand 3
	case $R in
	0) gen_git rm -q -r -f -- "$P" ; gen_note git rm "$P" ;;
	1) gen_git rm -q -r --cached -- "$P" ; gen_note git rm --cached "$P" ;;
	2) gen_pick_dir ; gen_git rm -q -r -f -- "$P" ; gen_note git rm -r "$P" ;;
	esac
}

op_rm() {
	gen_rand 4
	if [ $R -eq 0 ]; then
		gen_pick_dir
	else
		gen_pick_entry || return 0
	fi
	gen_parent_ok "$P" || return 0
	[ -e "$P" ] || [ -L "$P" ] || return 0
	rm -rf -- "$P"
	gen_note rm "$P"
}

op_move() {
	gen_rand 3
	if [ $R -eq 0 ]; then
		gen_pick_dir
	else
		gen_pick_entry || return 0
	fi
	_g_from=$P
	gen_parent_ok "$_g_from" || return 0
	[ -e "$_g_from" ] || [ -L "$_g_from" ] || return 0
	gen_pick
	_g_to=$P
	gen_parent_ok "$_g_to" || return 0
	[ -e "$_g_to" ] || [ -L "$_g_to" ] && return 0
	case $_g_to in "$_g_from"/*) return 0 ;; esac
	gen_mkparent "$_g_to"
	gen_rand 2
	if [ $R -eq 0 ]; then
		gen_git mv -k -- "$_g_from" "$_g_to"
		gen_note git mv "$_g_from" "$_g_to"
	else
		mv -- "$_g_from" "$_g_to" 2>/dev/null
		gen_note mv "$_g_from" "$_g_to"
	fi
}

op_chmod() {
	gen_pick_file || return 0
	if [ -x "$P" ]; then
		chmod a-x -- "$P"
		gen_note chmod -x "$P"
	else
		chmod +x -- "$P"
		gen_note chmod +x "$P"
	fi
}

op_symlink() {
	gen_pick
	_g_link=$P
	gen_parent_ok "$_g_link" || return 0
	[ -d "$_g_link" ] && [ ! -L "$_g_link" ] && return 0
	gen_rand 7
	case $R in
	0) _g_target=f1 ;;
	1) _g_target=a/b ;;
	2) _g_target=../f2.txt ;;
	3) _g_target=dangling ;;
	4) _g_target=$GN4 ;;
	5) _g_target=/nonexistent/forge/target ;;
	6) gen_pick ; _g_target=$P ;;
	esac
	gen_mkparent "$_g_link"
	rm -f -- "$_g_link"
	ln -s -- "$_g_target" "$_g_link"
	gen_note ln -s "$_g_target" "$_g_link"
}

op_to_dir() {
	gen_pick
	gen_parent_ok "$P" || return 0
	[ -d "$P" ] && [ ! -L "$P" ] && return 0
	rm -f -- "$P"
	mkdir -p -- "$P"
	gen_write "$P/inside"
	gen_note to directory "$P"
}

op_dir_to_file() {
	gen_pick_dir
	gen_parent_ok "$P" || return 0
	[ -d "$P" ] && [ ! -L "$P" ] || return 0
	rm -rf -- "$P"
	gen_write "$P"
	gen_note directory to file "$P"
}

op_untracked_dir() {
	gen_rand 1000
	_g_d="new$R/sub dir$R"
	mkdir -p "$_g_d"
	gen_write "$_g_d/$GN2"
	gen_write "$_g_d/$GN10"
	gen_rand 2
	if [ $R -eq 0 ]; then
		mkdir -p "$_g_d/build/out"
		gen_write "$_g_d/build/out/bin"
	fi
	gen_note untracked directory "$_g_d"
}

op_ignore() {
	gen_rand 3
	case $R in
	0) _g_ign=.gitignore ;;
	1) _g_ign=a/.gitignore ;;
	2) _g_ign=.git/info/exclude ;;
	esac
	gen_parent_ok "$_g_ign" || return 0
	[ -d "$_g_ign" ] && return 0
	gen_mkparent "$_g_ign"
	gen_rand 9
	case $R in
	0) _g_rule='*.tmp' ;;
	1) _g_rule='with space' ;;
	2) _g_rule='-d/' ;;
	3) _g_rule='!x.o' ;;
	4) _g_rule=f1 ;;
	5) _g_rule='!build/' ;;
	6) _g_rule='*.txt' ;;
	7) _g_rule='b/' ;;
	8) : >"$_g_ign" ; gen_note emptied "$_g_ign" ; return 0 ;;
	esac
	printf '%s\n' "$_g_rule" >>"$_g_ign"
	gen_note ignore "$_g_rule" in "$_g_ign"
}

# A nested repository; a write instead with $GEN_NO_NESTED set.
op_nested() {
	if [ -n "${GEN_NO_NESTED:-}" ]; then
		op_write
		return
	fi
	gen_rand 1000
	_g_n=nest$R
	[ -e "$_g_n" ] && return 0
	git init -q "$_g_n" || return 0
	gen_rand 3
	if [ $R -eq 0 ]; then
		gen_text >"$_g_n/uncommitted"
		gen_note nested repository without a commit "$_g_n"
		return 0
	fi
	(
		cd "$_g_n" || exit
		printf '*.log\n' >.gitignore
		printf 'one\n' >one.txt
		printf 'two\n' >"$GN2"
		gen_git add -A && gen_git commit -q -m nested
	)
	gen_text >>"$_g_n/one.txt"
	gen_text >"$_g_n/untracked"
	gen_text >"$_g_n/ignored.log"
	rm -f "$_g_n/$GN2"
	GEN_NESTED="$GEN_NESTED $_g_n"
	gen_note nested repository "$_g_n"
}

# Skip-worktree and assume-unchanged, on files as committed, then edited
# or deleted.  Only at the end, so that later operations do not undo them.
op_flag() {
	gen_pick_entry || return 0
	[ -f "$P" ] || [ -L "$P" ] || return 0
	gen_git cat-file -e "HEAD:$P" || return 0
	gen_git diff --cached --quiet HEAD -- "$P" || return 0
	gen_rand 2
	if [ $R -eq 0 ]; then
		gen_git update-index --skip-worktree -- "$P"
		gen_note skip-worktree "$P"
	else
		gen_git update-index --assume-unchanged -- "$P"
		gen_note assume-unchanged "$P"
	fi
	if [ -L "$P" ]; then
		rm -f -- "$P"
		ln -s -- retargeted "$P"
		gen_note retarget "$P"
		return 0
	fi
	gen_rand 4
	case $R in
	0) gen_text >>"$P" ; gen_note append "$P" ;;
	1) gen_binary >"$P" ; gen_note write binary "$P" ;;
	2) op_flagged_chmod ;;
	3)
		rm -f -- "$P"
		gen_note rm flagged "$P"
		;;
	esac
}

op_flagged_chmod() {
	if [ -x "$P" ]; then
		chmod a-x -- "$P"
	else
		chmod +x -- "$P"
	fi
	gen_note chmod flagged "$P"
}

# A hostile setting, sometimes global.
op_setting() {
	gen_rand 2
	if [ $R -eq 0 ]; then
		_g_scope=--global
	else
		_g_scope=--local
	fi
	gen_rand 24
	case $R in
	0) _g_kv='color.ui always' ;;
	1) _g_kv='diff.noprefix true' ;;
	2) _g_kv='diff.mnemonicPrefix true' ;;
	3) _g_kv='diff.relative true' ;;
	4) _g_kv='diff.context 0' ;;
	5) _g_kv='diff.renames copies' ;;
	6) _g_kv='diff.algorithm patience' ;;
	7) _g_kv='diff.suppressBlankEmpty true' ;;
	8) _g_kv="diff.external $GEN_TOOLS/ext-diff" ;;
	9) _g_kv='core.quotePath false' ;;
	10) _g_kv='apply.whitespace fix' ;;
	11) _g_kv='apply.ignoreWhitespace change' ;;
	12) _g_kv='core.whitespace trailing-space,space-before-tab,cr-at-eol,blank-at-eof' ;;
	13) _g_kv="diff.orderFile $GEN_TOOLS/order" ;;
	14) _g_kv='diff.interHunkContext 50' ;;
	15) _g_kv='color.diff always' ;;
	16)
		printf '* diff=shout\n' >"$GEN_TOOLS/attributes"
		git config "$_g_scope" diff.shout.textconv 'tr a-z A-Z'
		_g_kv="core.attributesFile $GEN_TOOLS/attributes"
		;;
	17) _g_kv='diff.statGraphWidth 5' ;;
	18) _g_kv="core.excludesFile $GEN_TOOLS/excludes" ;;
	19) _g_kv='core.abbrev 5' ;;
	20)
		[ -n "${FIDELITY_KNOWN_BUGS:-}" ] || return 0
		_g_kv='core.autocrlf true'
		;;
	21)
		_g_scope=--local
		_g_kv='core.fileMode false'
		;;
	22) _g_kv='core.trustctime false' ;;
	23) _g_kv='diff.ignoreSubmodules all' ;;
	esac
	gen_git config "$_g_scope" ${_g_kv%% *} "${_g_kv#* }"
	gen_note setting "$_g_scope" "$_g_kv"
}

# The tools the settings name: an external diff, an order file, a lying
# fsmonitor hook, an excludes file.
gen_tools() {
	GEN_TOOLS=$1
	mkdir -p "$GEN_TOOLS"
	printf '#!/bin/sh\necho "external diff, not a patch"\n' \
	    >"$GEN_TOOLS/ext-diff"
	printf '#!/bin/sh\nprintf "token\\000"\n' >"$GEN_TOOLS/fsmonitor"
	chmod +x "$GEN_TOOLS/ext-diff" "$GEN_TOOLS/fsmonitor"
	printf 'f*\n*.txt\n' >"$GEN_TOOLS/order"
	printf '*.secret\n%s\n' "$GN9" >"$GEN_TOOLS/excludes"
}

# gen_op: one random operation; commits only if $GEN_COMMITS is set.
gen_op() {
	gen_rand 43
	case $R in
	0|1|2|3|4|5) op_write ;;
	6|7|8) op_append ;;
	9|10|11) op_add ;;
	12) op_add_n ;;
	13) op_add_all ;;
	14|15)
		if [ -n "$GEN_COMMITS" ]; then
			op_commit
		else
			op_write
		fi
		;;
	16|17) op_git_rm ;;
	18|19) op_rm ;;
	20|21|22) op_move ;;
	23|24) op_chmod ;;
	25|26|27) op_symlink ;;
	28) op_to_dir ;;
	29) op_dir_to_file ;;
	30|31) op_untracked_dir ;;
	32|33) op_ignore ;;
	34) op_nested ;;
	35|36) op_setting ;;
	37|38|39) op_write ;;
	40|41|42) op_big ;;
	esac
}

# gen_lie: a core.fsmonitor hook that says nothing ever changes, then a
# few edits that it hides from git status and git diff.  Last of all: the
# generator's own git commands would believe it too.
gen_lie() {
	gen_git config core.fsmonitor "$GEN_TOOLS/fsmonitor"
	gen_git status
	gen_note setting core.fsmonitor, lying
	gen_rand 3
	_g_k=$((R + 1))
	while [ $_g_k -gt 0 ]; do
		gen_rand 3
		case $R in
		0) op_append ;;
		1) op_chmod ;;
		2) op_write ;;
		esac
		_g_k=$((_g_k - 1))
	done
}

gen_case() {
	gen_srand "$2"
	GEN_NESTED=
	GEN_LOG=$1.log
	: >"$GEN_LOG"
	gen_names
	gen_tools "$1.tools"
	git init -q "$1" || return 1
	cd "$1" || return 1
	printf '*.o\nbuild/\n' >.gitignore
	# forge copies changed files past forge.copyThreshold whole: mostly
	# a low one, so that small files cross it; at times none (every
	# changed file copied) or the default.
	gen_rand 4
	case $R in
	0) GEN_BIG_KIB=1024 ;;
	1) GEN_BIG_KIB=0 ; gen_git config forge.copyThreshold 0 ;;
	*) GEN_BIG_KIB=$((R * 2)) ; gen_git config forge.copyThreshold ${GEN_BIG_KIB}k ;;
	esac
	gen_note forge.copyThreshold "${GEN_BIG_KIB}k"
	# What is committed: a few files of the pool, maybe two commits.
	gen_rand 10
	_g_k=$((R + 5))
	while [ $_g_k -gt 0 ]; do
		op_write
		gen_rand 6
		[ $R -eq 0 ] && op_symlink
		[ $R -eq 1 ] && op_chmod
		_g_k=$((_g_k - 1))
	done
	gen_git add -A
	gen_git commit -q --no-verify -m initial || return 1
	gen_note git commit, initial
	# Some history, then the working state: random walks from there.
	GEN_COMMITS=yes
	gen_rand 10
	_g_k=$R
	while [ $_g_k -gt 0 ]; do
		gen_op
		_g_k=$((_g_k - 1))
	done
	op_commit
	GEN_COMMITS=
	gen_rand 25
	_g_k=$((R + 8))
	while [ $_g_k -gt 0 ]; do
		gen_op
		_g_k=$((_g_k - 1))
	done
	# Flagged files last (see op_flag).
	gen_rand 4
	_g_k=$R
	while [ $_g_k -gt 0 ]; do
		op_flag
		_g_k=$((_g_k - 1))
	done
	gen_rand 5
	[ $R -eq 0 ] && gen_lie
	return 0
}
