# Moves that the differential walks of the fast paths share
# (t-cache-property.sh, t-reuse-property.sh, t-range-property.sh): each
# changes an input a verdict may depend on that the working state does
# not hold -- git's settings in every scope, attributes files outside
# the tree, core.symlinks, the identity the steps run as -- so that a
# fast path that overlooks one answers otherwise than a fresh copy.
# Sourced after lib.sh and fidelity-gen.sh (whose gen_rand draws), never
# run.
#
#	walk_init TOP [SUB]	the moves act on the repository whose working
#				tree is TOP, and on its submodule at SUB (a
#				path below TOP), if given; the global
#				configuration is put back as the test began
#	walk_setting		a setting set or unset, in TOP, SUB or the
#				global configuration: one that changes a
#				checkout, or any that git help --config names
#	walk_attributes		info/attributes of TOP or SUB written or
#				removed
#	walk_recover		one of the walk's settings unset, or all of
#				them, or its info/attributes files removed:
#				for a state forge cannot verify in
#	walk_symlinks		core.symlinks flipped in TOP or SUB
#	walk_retarget LINK...	one of the tracked symbolic links LINK
#				(paths from TOP) pointed elsewhere
#	walk_groups		the identity of the next runs drawn: as root
#				with setpriv(1), another group id and list
#				of supplementary groups; forge is run through
#				it (FORGE_WRAPPER); else nothing
#	walk_converts		succeeds while a move of the walk is in
#				effect that may make a copy's bytes other
#				than the working tree's (a setting, an
#				attributes file; or walk_converted set, by
#				a walk's own such move)
#	walk_divergences TOP	how many divergence events TOP's timeline
#				holds (the audit's)
#	walk_unreusable		succeeds while a setting of TOP's has its
#				copies never reused (forge(1): core.symlinks
#				false, core.ignoreStat, a sparse checkout)
#
# Each move says what it did in $did.  The files settings name (an
# included file, core.attributesFile) are in HOME, where a user's are: a
# walk whose steps are contained lets them read HOME
# (forge.containWritable), or git in a contained step would not see the
# settings the copy was made with.  Settings are drawn with values git
# accepts: a drawn value that makes git status, diff, ls-files or
# worktree list fail is taken back.  Never drawn, with the reason:
#	core.bare, core.worktree, core.repositoryFormatVersion,
#	extensions.*	what the repository is: git would no longer see a
#			working tree, and forge rightly refuses
#	includeIf.*	conditions; include.path is drawn (walk_setting)
#	core.fsmonitor, fsmonitor.*	start a daemon that outlives the test
#	gc.*, maintenance.*	start git's work in the background
#	trace2.*	writes files where git runs: in the working tree
#			while forge reads it
#	what a scope held before the walk (user.name, protocol.file.allow)
#	forge's own settings (none is in git help --config)

# walk_init TOP [SUB]
walk_init() {
	WALK_TOP=$1
	WALK_SUB=${2:-}
	WALK_SET=$T/.walk-set
	: >"$WALK_SET"
	if [ ! -f "$T/.walk-names" ]; then
		git help --config 2>/dev/null | grep -v '\*' |
		    grep -Eiv '^(core\.(bare|worktree|repositoryformatversion|fsmonitor.*)|extensions\..*|includeif\..*|fsmonitor\..*|gc\..*|maintenance\..*|trace2\..*)$' \
		    >"$T/.walk-names"
	fi
	WALK_NNAMES=$(wc -l <"$T/.walk-names" | tr -d ' ')
	if [ -f "$T/.walk-global" ]; then
		cp "$T/.walk-global" "$HOME/.gitconfig"
	else
		cp "$HOME/.gitconfig" "$T/.walk-global"
	fi
	rm -f "$HOME/.walk-attrs" "$HOME/.walk-inc"
	FORGE_WRAPPER=${WALK_WRAPPER0-${FORGE_WRAPPER:-}}
	WALK_WRAPPER0=$FORGE_WRAPPER
	if [ -z "${WALK_SAID:-}" ] && { [ "$(id -u)" -ne 0 ] ||
	    ! command -v setpriv >/dev/null 2>&1; }; then
		echo "# the groups forge runs with are not varied: not root," \
		    "or no setpriv(1)"
	fi
	WALK_SAID=1
}

# walk_cfg SCOPE ARGS...: git config in a scope: top, sub or global.
walk_cfg() {
	_w_scope=$1
	shift
	case $_w_scope in
	top) git -C "$WALK_TOP" config "$@" ;;
	sub) git config --file "$(walk_subgit)/config" "$@" ;;
	*) git config --global "$@" ;;
	esac
}

# walk_subgit: the submodule's git directory (made by submodule add, and
# kept when it is deinitialized).
walk_subgit() {
	printf '%s/modules/%s\n' \
	    "$(cd "$WALK_TOP" && cd "$(git rev-parse --git-common-dir)" &&
	    pwd -P)" "$WALK_SUB"
}

# walk_scope: a scope drawn, in $S: the top repository's mostly, the
# submodule's mostly with WALK_PREFER_SUB set.
walk_scope() {
	gen_rand 10
	if [ -z "$WALK_SUB" ] || [ ! -f "$(walk_subgit)/config" ]; then
		S=top
		[ "$R" -lt 8 ] || S=global
	elif [ -n "${WALK_PREFER_SUB:-}" ]; then
		S=sub
		[ "$R" -lt 7 ] || S=top
		[ "$R" -lt 9 ] || S=global
	else
		S=top
		[ "$R" -lt 5 ] || S=sub
		[ "$R" -lt 8 ] || S=global
	fi
}

# walk_probe: git still works in the top repository and in the
# submodule -- and still commits, as the range walk's stacks do (a dry
# run exits 1 with nothing to commit, 128 where git refuses a setting:
# commit.cleanup=true, say).
walk_probe() {
	for _w_d in "$WALK_TOP" ${WALK_SUB:+"$WALK_TOP/$WALK_SUB"}; do
		[ "$_w_d" = "$WALK_TOP" ] || [ -e "$_w_d/.git" ] || continue
		git -C "$_w_d" status --porcelain >/dev/null 2>&1 </dev/null &&
		    git -C "$_w_d" diff HEAD >/dev/null 2>&1 </dev/null &&
		    git -C "$_w_d" ls-files -o >/dev/null 2>&1 </dev/null &&
		    git -C "$_w_d" worktree list >/dev/null 2>&1 </dev/null ||
		    return 1
		git -C "$_w_d" commit --dry-run --allow-empty -q -m probe \
		    >/dev/null 2>&1 </dev/null
		[ $? -ne 128 ] || return 1
	done
	return 0
}

# walk_set SCOPE NAME VALUE: set, remembered, and taken back if git
# then fails; did says which.
walk_set() {
	if walk_cfg "$1" --get-all "$2" >/dev/null 2>&1 &&
	    ! grep -qxF "$1 $2" "$WALK_SET"; then
		did="(not $2 in $1: set before the walk)"
		return 0
	fi
	walk_cfg "$1" --replace-all "$2" "$3" >/dev/null 2>&1 || {
		did="(git config refused $1 $2=$3)"
		return 0
	}
	if walk_probe; then
		grep -qxF "$1 $2" "$WALK_SET" || printf '%s %s\n' "$1" "$2" \
		    >>"$WALK_SET"
		did="$1: $2=$3"
	else
		walk_cfg "$1" --unset-all "$2" >/dev/null 2>&1
		grep -vxF "$1 $2" "$WALK_SET" >"$WALK_SET.new"
		mv "$WALK_SET.new" "$WALK_SET"
		did="(git fails with $1 $2=$3: taken back)"
	fi
}

# walk_unset: one setting the walk made taken away.
walk_unset() {
	_w_n=$(wc -l <"$WALK_SET" | tr -d ' ')
	if [ "$_w_n" -eq 0 ]; then
		did="(no setting to unset)"
		return 0
	fi
	gen_rand "$_w_n"
	_w_line=$(sed -n "$((R + 1))p" "$WALK_SET")
	walk_cfg "${_w_line%% *}" --unset-all "${_w_line#* }" >/dev/null 2>&1
	grep -vxF "$_w_line" "$WALK_SET" >"$WALK_SET.new"
	mv "$WALK_SET.new" "$WALK_SET"
	did="unset ${_w_line#* } in ${_w_line%% *}"
}

# walk_word: a plain word in $W.
walk_word() {
	gen_rand 4
	case $R in
	0) W=x ;;
	1) W=lib ;;
	2) W=main ;;
	*) W=w$_gen_state ;;
	esac
}

# walk_value: a value for a setting of unknown type, in $V.
walk_value() {
	gen_rand 6
	case $R in
	0 | 1) V=true ;;
	2) V=false ;;
	3) V=1 ;;
	4) V=0 ;;
	*) walk_word; V=$W ;;
	esac
}

# walk_attrs_line: an attributes rule, in $L.
walk_attrs_line() {
	gen_rand 11
	case $R in
	0) L='* text eol=crlf' ;;
	1) L='*.txt eol=crlf' ;;
	2) L='* text=auto' ;;
	3) L='* -text' ;;
	4) L='*.txt filter=x' ;;
	5) L='* filter=x' ;;
	6) L='*.c text eol=crlf' ;;
	7) L='* ident' ;;
	8) L='*.h text eol=crlf' ;;
	9) L='* text eol=lf' ;;
	*) L='*.c -text' ;;
	esac
}

# walk_setting: see the top.
walk_setting() {
	walk_scope
	gen_rand 8
	case $R in
	0 | 1) walk_unset; return 0 ;;
	2 | 3)
		# Any name git help --config lists.
		gen_rand "$WALK_NNAMES"
		_w_name=$(sed -n "$((R + 1))p" "$T/.walk-names")
		while :; do
			case $_w_name in
			*'<'*'>'*)
				walk_word
				_w_name=$(printf '%s' "$_w_name" |
				    sed "s/<[^>]*>/$W/")
				;;
			*) break ;;
			esac
		done
		walk_value
		walk_set "$S" "$_w_name" "$V"
		return 0
		;;
	4)
		# An included file, its settings changed as the walk goes.
		gen_rand 4
		case $R in
		0) printf '[core]\n\tautocrlf = true\n' ;;
		1) printf '[core]\n\tsymlinks = false\n' ;;
		2) printf '[core]\n\teol = crlf\n' ;;
		*) printf '[x]\n\ty = %s\n' "$_gen_state" ;;
		esac >"$HOME/.walk-inc"
		walk_set "$S" include.path "$HOME/.walk-inc"
		did="$did ($(tr '\n\t' '  ' <"$HOME/.walk-inc"))"
		return 0
		;;
	esac
	# One that changes how files are checked out, or read.
	gen_rand 15
	case $R in
	0) gen_rand 3; set -- core.autocrlf true false input ;;
	1) gen_rand 3; set -- core.eol lf crlf native ;;
	2) gen_rand 3; set -- core.safecrlf true false warn ;;
	3) gen_rand 2; set -- core.ignoreCase true false ;;
	4) gen_rand 2; set -- core.symlinks false true ;;
	5 | 6)
		# A filter whose clean undoes its smudge, mostly; else one
		# that does not, which a copy cannot be proved with.
		gen_rand 3
		if [ "$R" -eq 0 ]; then
			walk_set "$S" filter.x.smudge 'tr a-z A-Z'
		else
			walk_set "$S" filter.x.smudge 'sed s/a/@/g'
			walk_set "$S" filter.x.clean 'sed s/@/a/g'
			did="$S: filter.x.smudge/clean a to @ and back"
		fi
		return 0
		;;
	7) gen_rand 2; set -- core.ignoreStat true false ;;
	8) gen_rand 2; set -- submodule.recurse true false ;;
	9) gen_rand 2; set -- core.checkRoundtripEncoding UTF-16 SHIFT-JIS ;;
	10) gen_rand 2; set -- core.precomposeUnicode true false ;;
	11) gen_rand 2; set -- core.protectNTFS true false ;;
	12) gen_rand 2; set -- core.fileMode false true ;;
	13) gen_rand 2; set -- core.checkStat minimal default ;;
	*)
		walk_attrs_line
		printf '%s\n' "$L" >"$HOME/.walk-attrs"
		walk_set "$S" core.attributesFile "$HOME/.walk-attrs"
		did="$did ($L)"
		return 0
		;;
	esac
	_w_name=$1
	shift $((R + 1))
	walk_set "$S" "$_w_name" "$1"
}

# walk_attributes: see the top.
walk_attributes() {
	if [ -n "$WALK_SUB" ] && [ -d "$(walk_subgit)" ]; then
		gen_rand 2
		[ -n "${WALK_PREFER_SUB:-}" ] && R=1
	else
		R=0
	fi
	if [ "$R" -eq 0 ]; then
		_w_f="$(cd "$WALK_TOP" && git rev-parse --git-common-dir)"
		case $_w_f in /*) ;; *) _w_f=$WALK_TOP/$_w_f ;; esac
		_w_f=$_w_f/info/attributes
		_w_in=top
	else
		_w_f=$(walk_subgit)/info/attributes
		_w_in=sub
	fi
	mkdir -p "${_w_f%/*}"
	gen_rand 4
	if [ "$R" -eq 0 ]; then
		rm -f "$_w_f"
		did="$_w_in: no info/attributes"
		return 0
	fi
	walk_attrs_line
	printf '%s\n' "$L" >"$_w_f"
	did="$_w_in: info/attributes '$L'"
}

# walk_recover: one of the walk's settings unset, or all of them, or its
# info/attributes files removed.
walk_recover() {
	gen_rand 3
	if [ "$R" -eq 0 ] && [ -s "$WALK_SET" ]; then
		walk_unset
		return 0
	fi
	if [ "$R" -eq 1 ]; then
		while [ -s "$WALK_SET" ]; do
			walk_unset
		done
		did="no setting of the walk's"
		return 0
	fi
	for _w_f in "$(git -C "$WALK_TOP" rev-parse --git-common-dir)" \
	    ${WALK_SUB:+"$(walk_subgit)"}; do
		case $_w_f in /*) ;; *) _w_f=$WALK_TOP/$_w_f ;; esac
		rm -f "$_w_f/info/attributes"
	done
	did="no info/attributes anywhere"
}

# walk_symlinks: see the top.
walk_symlinks() {
	S=top
	if [ -n "$WALK_SUB" ] && [ -f "$(walk_subgit)/config" ]; then
		gen_rand 3
		[ "$R" -eq 0 ] && S=sub
		[ -n "${WALK_PREFER_SUB:-}" ] && [ "$R" -ne 2 ] && S=sub
	fi
	gen_rand 3
	case $R in
	0) walk_set "$S" core.symlinks false ;;
	1) walk_set "$S" core.symlinks true ;;
	*)
		walk_cfg "$S" --unset-all core.symlinks >/dev/null 2>&1
		grep -vxF "$S core.symlinks" "$WALK_SET" >"$WALK_SET.new"
		mv "$WALK_SET.new" "$WALK_SET"
		did="$S: core.symlinks unset"
		;;
	esac
}

# walk_retarget LINK...: see the top.
walk_retarget() {
	gen_rand $#
	shift "$R"
	_w_link=$1
	gen_rand 6
	case $R in
	0) _w_to=top.txt ;;
	1) _w_to=a/f ;;
	2) _w_to=../top.txt ;;
	3) _w_to=nowhere ;;
	4) _w_to=src ;;
	*) _w_to=/nonexistent/forge ;;
	esac
	mkdir -p "$WALK_TOP/$(dirname "$_w_link")"
	rm -rf "${WALK_TOP:?}/$_w_link"
	ln -s "$_w_to" "$WALK_TOP/$_w_link"
	did="ln -sf $_w_to $_w_link"
}

# walk_groups: see the top.
walk_groups() {
	FORGE_WRAPPER=$WALK_WRAPPER0
	WALK_ID=
	if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
		did="(groups: not root, or no setpriv)"
		return 0
	fi
	gen_rand 6
	case $R in
	0) did="groups as the test's"; return 0 ;;
	1) WALK_ID="0 0" ;;
	2) WALK_ID="0 0,4242" ;;
	3) WALK_ID="4242 0" ;;
	4) WALK_ID="0 4242,4343" ;;
	*) WALK_ID="4343 0,4242,4343" ;;
	esac
	FORGE_WRAPPER="setpriv --reuid=0 --regid=${WALK_ID% *} --groups=${WALK_ID#* } -- $WALK_WRAPPER0"
	did="gid ${WALK_ID% *}, groups ${WALK_ID#* }"
}

# walk_converts: see the top.
walk_converts() {
	# A walk's own move that changed how git converts (walk_converted).
	[ -n "${walk_converted:-}" ] && return 0
	[ -s "$WALK_SET" ] && return 0
	for _w_d in "$WALK_TOP" ${WALK_SUB:+"$WALK_TOP/$WALK_SUB"}; do
		[ -e "$_w_d/.git" ] || continue
		_w_f=$(git -C "$_w_d" rev-parse --git-path info/attributes)
		case $_w_f in /*) ;; *) _w_f=$_w_d/$_w_f ;; esac
		[ -s "$_w_f" ] && return 0
	done
	[ -n "$WALK_SUB" ] && [ -s "$(walk_subgit)/info/attributes" ] &&
	    return 0
	return 1
}

# walk_divergences TOP: see the top.
walk_divergences() {
	_w_d=$(common_dir "$1")/forge
	cat "$_w_d"/timeline.jsonl* 2>/dev/null |
	    grep -c '"event":"divergence"' || true
}

# walk_unreusable: see the top.
walk_unreusable() {
	[ "$(git -C "$WALK_TOP" config --bool core.symlinks)" = false ] ||
	    [ "$(git -C "$WALK_TOP" config --bool core.ignoreStat)" = true ] ||
	    [ "$(git -C "$WALK_TOP" config --bool core.sparseCheckout)" = true ]
}
