# Helpers for the fidelity tests: does the copy hold exactly the working
# state?  Sourced after "$TESTLIB", never run.
#
#	new_repo "$T/r"
#	...put the working tree in some state...
#	copy_is_working_state "edits"		# from the top of the work tree
#	copy_is_working_state "submodule" sub sub/inner
#
# copy_is_working_state runs `forge verify --isolated` with a command that
# writes the copy's manifest, and checks five things: forge passes, the
# proof ran (a tree id in the verdict line), the copy's manifest is the
# source's (the files and links git does not ignore, in the top repository
# and in each nested repository named after the description), the source
# is unchanged, and nothing is left behind.  After it, $rc, $out and $err
# are forge's, $T/copy.m is the copy's manifest (files and links) and
# $T/copy-all.m the same with directories.

# A check known to fail for a bug of forge sets KNOWN_BUG (see lib.sh)
# while it runs.

# same DESCRIPTION GOT-FILE WANT-FILE: the two files are equal.
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "diff (- want, + got):" \
		    "$(diff -u "$3" "$2" | sed '1,2d' | head -n 40)"
	fi
}

# source_manifest TOP [NESTED...]: the manifest the copy must match: the
# working state of TOP minus what git ignores, and that of each nested
# repository NESTED (a path below TOP), each in its own repository's terms.
source_manifest() {
	_top=$1
	shift
	{
		manifest_source "$_top"
		for _sub in "$@"; do
			manifest_source "$_top/$_sub" |
			    sed "s|^|$(printf '%s' "$_sub" | sed 's/[|&\\]/\\&/g')/|"
		done
	} | LC_ALL=C sort
}

# source_state TOP [NESTED...]: state_of for TOP and each nested repository.
source_state() {
	_top=$1
	shift
	state_of "$_top"
	for _sub in "$@"; do
		echo "--- nested $_sub"
		state_of "$_top/$_sub"
	done
}

# all_leftovers TOP [NESTED...]: leftovers of TOP, and the linked worktrees
# still registered in each nested repository.
all_leftovers() {
	_top=$1
	shift
	leftovers "$_top"
	for _sub in "$@"; do
		_gd=$(git -C "$_top/$_sub" rev-parse --path-format=absolute \
		    --git-common-dir)
		git -C "$_top/$_sub" worktree list --porcelain |
		    grep "^worktree " | sed 1d
		[ -d "$_gd/worktrees" ] && ls -A "$_gd/worktrees"
	done
	true
}

# copy_manifest [FORGE OPTIONS]: run forge verify --isolated in the current
# directory with a command that writes the copy's manifests (the run's
# copy's: not an audit's fresh copy's).  The options in FIDELITY_OPTS
# come first (--clone: the same checks for a clone).
copy_manifest() {
	rm -f "$T/copy.m" "$T/copy-all.m"
	# shellcheck disable=SC2086 # options, split on purpose
	run_forge verify --isolated ${FIDELITY_OPTS:-} "$@" -- sh -c \
	    "$(unaudited '"$1" . >"$2" && "$1" -a . >"$3"')" sh \
	    "$TREELIST" "$T/copy.m" "$T/copy-all.m"
}

# passed DESCRIPTION: forge exited 0 with a proved PASS verdict.
passed() {
	if [ "$rc" -eq 0 ] && printf '%s\n' "$err" | tail -n 1 |
	    grep -Eq 'Verdict: PASS \(isolated(, partial)?, tree [0-9a-f]{12}, '; then
		pass "$1"
	else
		fail "$1" "exit status $rc, stderr:" "$err"
	fi
}

# copy_is_working_state DESCRIPTION [NESTED...]: see the top of the file.
copy_is_working_state() {
	_desc=$1
	shift
	_wt=$(pwd -P)
	source_manifest "$_wt" "$@" >"$T/src.m"
	[ -s "$T/src.m" ] || { echo "Bail out! empty source manifest"; exit 1; }
	source_state "$_wt" "$@" >"$T/state.before"
	copy_manifest
	passed "$_desc: forge passes, the copy proved"
	[ -f "$T/copy-all.m" ] || : >"$T/copy-all.m"
	[ -f "$T/copy.m" ] || : >"$T/copy.m"
	same "$_desc: the copy is the working state" "$T/copy.m" "$T/src.m"
	source_state "$_wt" "$@" >"$T/state.after"
	same "$_desc: the source is unchanged" "$T/state.after" \
	    "$T/state.before"
	is "$_desc: nothing is left behind" "$(all_leftovers "$_wt" "$@")" ""
}

# expected_tree: the tree id of the working state of the current
# directory's repository as `git add -A && git write-tree` would make it,
# from a copy of the index, with the objects in a scratch directory --
# but each path staged other than HEAD has it hashed as it is on disk,
# not as git's stat data vouches: an entry added under attributes since
# changed names another blob than its file hashes to now, and the copy
# holds the file.  (Simple paths only: no newline in one.)
expected_tree() {
	_gd=$(git rev-parse --absolute-git-dir)
	rm -rf "$T/.xt"
	mkdir -p "$T/.xt/objects"
	# -p: git needs the index's mtime to tell racily clean entries.
	cp -p "$_gd/index" "$T/.xt/index"
	GIT_INDEX_FILE="$T/.xt/index" git diff-index --cached -z \
	    --no-renames HEAD | tr '\0' '\n' |
	    while IFS= read -r _meta && IFS= read -r _path; do
		# shellcheck disable=SC2086
		set -- $_meta
		case $5 in D|U) continue ;; esac
		printf '%s %s\t%s\n' "$2" "$4" "$_path"
	done | GIT_INDEX_FILE="$T/.xt/index" git update-index --index-info
	GIT_INDEX_FILE="$T/.xt/index" GIT_OBJECT_DIRECTORY="$T/.xt/objects" \
	    GIT_ALTERNATE_OBJECT_DIRECTORIES="$_gd/objects" \
	    git add -A >/dev/null 2>&1 &&
	GIT_INDEX_FILE="$T/.xt/index" GIT_OBJECT_DIRECTORY="$T/.xt/objects" \
	    GIT_ALTERNATE_OBJECT_DIRECTORIES="$_gd/objects" \
	    git write-tree
	rm -rf "$T/.xt"
}

# copy_has PATH TYPE [MODE]: the copy held PATH (as treelist prints it:
# octal escapes for spaces, backslashes and bytes outside printable ASCII)
# as TYPE (f, l or d), with MODE (such as 0755) if given.
copy_has() {
	_P=$1 _Y=$2 _M=${3:-} awk -F '\t' '
	    $1 == ENVIRON["_P"] && $2 == ENVIRON["_Y"] &&
	    (ENVIRON["_M"] == "" || $3 == ENVIRON["_M"]) { found = 1 }
	    END { exit !found }' "$T/copy-all.m"
}

# copy_lacks PATH: the copy did not hold PATH at all.
copy_lacks() {
	_P=$1 awk -F '\t' '$1 == ENVIRON["_P"] { found = 1 }
	    END { exit found }' "$T/copy-all.m"
}
