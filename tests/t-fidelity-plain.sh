#!/bin/sh
# A copy of nothing but files: git looks at the paths forge wrote alone,
# and forge counts whatever else is there.  A random walk over working
# states, each copy damaged at random or not once it is made, before the
# proof: a copy left alone is proved, with the tree git add -A makes of
# the working state; a damaged one is refused, whatever the damage --
# among them those that keep the number of files (one gone and one too
# many, a file made a directory of one file).
#
#	PLAIN_STEPS	how many states (default 24)
#	PLAIN_SEED	their seed (default: from the clock, printed)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

steps=${PLAIN_STEPS:-24}
seed=${PLAIN_SEED:-$(( $(date +%s) % 100000 ))}
case $steps$seed in
*[!0-9]*)
	echo "Bail out! PLAIN_STEPS and PLAIN_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (PLAIN_SEED=$seed reruns it)"
rand=$seed

# Each run stalls once the copy is made, before it is proved: the copy
# is damaged then ($DAMAGE, run in it), or not.  Its gits note where
# they add everything.
real_git=$(command -v git)
mkdir "$T/bin"
cat >"$T/bin/git" <<WRAPPER
#!/bin/sh
case " \$* " in *" add -A "*) pwd -P >>"$T/add-all.log" ;; esac
exec "$real_git" "\$@"
WRAPPER
chmod +x "$T/bin/git"
new_repo "$T/r"
git config forge.breakerThreshold 0
mkdir -p a/b c d1 d2
for f in a/one a/b/two c/three four d1/f d2/f; do
	printf '%s\n' "$f" >"$f"
done
: >c/empty
ln -s four link
git add -A && git commit -q -m files || exit 99
# Half the walks where git may convert files: blobs are then written.
lcg_next 2
if [ "$R" -eq 1 ]; then
	printf '* text=auto\n' >.gitattributes
	git add .gitattributes && git commit -q -m attributes || exit 99
	echo "# with * text=auto"
fi

# pick_file: a file of the working state (tracked or not, not ignored),
# into P.
pick_file() {
	git ls-files -z -c -o --exclude-standard | tr '\0' '\n' |
	    sort -u | while IFS= read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] && printf '%s\n' "$f"
	done >"$T/tracked"
	cnt=$(wc -l <"$T/tracked")
	[ "$cnt" -gt 0 ] || { P=; return; }
	lcg_next "$cnt"
	P=$(sed -n "$((R + 1))p" "$T/tracked")
}

# manifest_of DIR: what the copy has of DIR, the files git does not
# ignore, with their ids, their paths below DIR.
manifest_of() {
	[ -d "$1" ] && [ ! -L "$1" ] || return 0
	git ls-files -z -c -o --exclude-standard -- "$1" | tr '\0' '\n' |
	    sort -u | while IFS= read -r f; do
		if [ -L "$f" ]; then
			printf '%s link %s\n' "${f#"$1"/}" "$(readlink "$f")"
		elif [ -f "$f" ]; then
			printf '%s %s %s\n' "${f#"$1"/}" "$(stat -c %A "$f")" \
			    "$(git hash-object -- "$f")"
		fi
	done
}

# pick_dir: a directory of the working tree (not .git), into D.
pick_dir() {
	find . -path ./.git -prune -o -type d -print | sed 's|^\./||;s|^\.$||' |
	    sort >"$T/dirs"
	lcg_next "$(wc -l <"$T/dirs")"
	D=$(sed -n "$((R + 1))p" "$T/dirs")
	D=${D:+$D/}
}

# damaged_run DESCRIPTION: a run, its copy damaged by $DAMAGE once made
# (none if empty): refused then, else proved with the tree $want.
damaged_run() {
	rm -f "$T/go" "$T/stall.err"
	: >"$T/add-all.log"
	PATH="$T/bin:$PATH" FORGE_TEST_STALL=proof \
	    FORGE_TEST_STALL_RELEASE="$T/go" start_forge "$T/stall.err" \
	    verify --isolated --no-reuse --no-cache -- true
	pid=$forge_pid
	wait_for 30 grep -q "test stall: proof" "$T/stall.err"
	if [ -n "$DAMAGE" ]; then
		(cd "$(ls -d "$TMPDIR"/forge-*/r)" && eval "$DAMAGE") ||
		    echo "Bail out! the damage could not be done: $DAMAGE"
	fi
	touch "$T/go"
	wait "$pid"
	rc=$?
	err=$(grep -v "test stall" "$T/stall.err")
	if [ -z "$DAMAGE" ]; then
		is "$1: a copy left alone is proved" "$rc" 0
		like "$1: with the tree of the working state" \
		    "$(printf '%s\n' "$err" | tail -n 1)" \
		    "tree $(printf '%s' "$want" | cut -c 1-12), "
		# Git looked at what forge wrote alone.
		is "$1: git did not walk the whole copy" "$(grep -c \
		    "^$(cd "$TMPDIR" && pwd -P)/forge-" "$T/add-all.log")" 0
	else
		is "$1: a copy damaged ($DAMAGE) is refused" "$rc" 125
		like "$1: as not the working state" "$err" \
		    'the copy is not the working state'
	fi
}

# First the damage that keeps every path, every file's times and the
# count: found by the files' inodes.
printf 'edit\n' >>hello.txt
want=$(expected_tree)
DAMAGE="mv d1 swap && mv d2 d1 && mv swap d2"
damaged_run "two directories of the same names swapped"
rm -rf "$T/stash" && mkdir "$T/stash" && cp -a d1 "$T/stash/d1" &&
    printf 'other\n' >>"$T/stash/d1/f"
DAMAGE="rm -rf d1 && mv '$T/stash/d1' d1"
damaged_run "a directory made before the run put in the place of its own"
DAMAGE=
damaged_run "the same, left alone"

step=1
while [ "$step" -le "$steps" ]; do
	# The working state moves on.
	lcg_next 10
	pick_file
	pick_dir
	case $R in
	0) [ -z "$P" ] || printf 'edit %s\n' "$step" >>"$P" ;;
	1) printf 'new %s\r\n' "$step" >"${D}n$step.txt" ;;
	2) [ -z "$P" ] || rm -f "$P" ;;
	3) git add -A >/dev/null 2>&1 ;;
	4) [ -z "$P" ] || git rm -q --cached "$P" ;;
	5) [ -z "$P" ] || chmod +x "$P" ;;
	6) [ -z "$P" ] || { rm -f "$P" && ln -s four "$P"; } ;;
	7) [ -z "$P" ] || { rm -f "$P" && mkdir "$P" &&
	    printf 'in\n' >"$P/in"; } ;;
	8) printf 'staged %s\n' "$step" >"${D}s$step" &&
	    git add "${D}s$step" && rm "${D}s$step" ;;
	9) git add -A >/dev/null 2>&1 &&
	    git commit -q -m "step $step" >/dev/null 2>&1 ;;
	esac
	printf 'ignored\n' >"${D}x$step.o"
	want=$(expected_tree)
	# And the copy is damaged, or not.
	pick_file
	pick_dir
	lcg_next 11
	kind=$R
	case $kind in
	0) DAMAGE= ;;
	1) DAMAGE="mkdir -p './$D' && printf stray >'${D}stray$step'" ;;
	2) DAMAGE="rm -f '$P'" ;;
	3) DAMAGE="printf x >>'$P'" ;;
	4) DAMAGE="rm -f '$P' && mkdir -p './$D' &&
	    printf stray >'${D}stray$step'" ;;
	5) DAMAGE="rm -f '$P' && mkdir '$P' && printf x >'$P/x'" ;;
	6) DAMAGE="mkdir -p './$D' && ln -s '$P' '${D}stray$step'" ;;
	7) DAMAGE="mkdir -p '${D}new$step/deeper' &&
	    printf x >'${D}new$step/deeper/x'" ;;
	8) DAMAGE="mkdir -p './$D' && mv '$P' '${D}moved$step'" ;;
	# Two directories swapped: every file keeps its times, and the
	# count holds.
	9) DAMAGE="mv a swap && mv c a && mv swap c" ;;
	# A directory put in the place of another, made before the run:
	# the same paths, the same number of files, older times.
	10) rm -rf "$T/stash" && mkdir -p "$T/stash" &&
	    cp -a c "$T/stash/a" && printf 'other\n' >>"$T/stash/a/three"
	    DAMAGE="rm -rf a && mv '$T/stash/a' a" ;;
	esac
	# (Where nothing would change: no file to damage, a directory gone
	# or its contents the same.)
	[ -n "$P" ] || case $kind in 2|3|4|5|8) DAMAGE= kind=0 ;; esac
	case $kind in
	9) [ "$(manifest_of a)" != "$(manifest_of c)" ] &&
	    [ -n "$(manifest_of a)" ] && [ -n "$(manifest_of c)" ] ||
	    DAMAGE= kind=0 ;;
	10) [ -d c ] && [ ! -L c ] || DAMAGE= kind=0 ;;
	esac
	damaged_run "step $step"
	step=$((step + 1))
done
is "nothing is left behind" "$(leftovers "$T/r")" ""

# Paths git update-index will not take as they are -- a file below what
# is now a symlink, a file that is now a directory with its file staged:
# git walks the whole copy after all, and nothing is said of it.
new_repo "$T/q"
mkdir sd && printf 's\n' >sd/s && printf 'f\n' >fd
git add -A && git commit -q -m q || exit 99
rm -r sd && ln -s . sd
rm fd && mkdir fd && printf 'in\n' >fd/in && git add fd/in
want=$(expected_tree)
run_forge verify --isolated --no-reuse --no-cache -- true
is "a symlink and a directory where files were: forge passes" "$rc" 0
like "with the tree of the working state" \
    "$(printf '%s\n' "$err" | tail -n 1)" \
    "tree $(printf '%s' "$want" | cut -c 1-12), "
is "and says nothing of git refusing a path" \
    "$(printf '%s\n' "$err" | grep -c 'cannot compute')" 0
copy_is_working_state "a symlink and a directory where files were"

done_testing
