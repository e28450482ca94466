#!/bin/sh
# Nested repositories and reused copies: an initialized submodule (with a
# submodule of its own) and an untracked repository nested in the working
# tree are each a worktree of their own repository in the copy, parked
# with it and brought back by the next --reuse or --incremental run.  A
# reused copy holds what a fresh one does -- an --incremental one, and its
# nested copies, plus only their own ignored files -- after any change to
# the working state (an ignore rule too) and whatever a command did to the
# nested copies; nothing outside the copy is changed; forge gc --all
# leaves nothing behind.
#
#	NESTED_STEPS	how many random changes (default 8)
#	NESTED_SEED	their seed (default: from the clock, printed)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

steps=${NESTED_STEPS:-8}
seed=${NESTED_SEED:-$(( $(date +%s) % 100000 ))}
case $steps$seed in
*[!0-9]*)
	echo "Bail out! NESTED_STEPS and NESTED_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (NESTED_SEED=$seed reruns it)"

# deep, a submodule of sub, a submodule of r at lib/sub (sub ignores *.o,
# as new_repo makes it), and nest and nest2 (its git directory elsewhere),
# repositories of their own in r that git does not track.
init_repo "$T/deep-up"
(
	cd "$T/deep-up" && printf 'd\n' >d.txt && git add -A &&
	git commit -q -m d
) || exit 99
new_repo "$T/sub-up"
git -c protocol.file.allow=always submodule -q add "$T/deep-up" deep ||
    exit 99
git commit -q -m deep || exit 99
new_repo "$T/r"
git config forge.breakerThreshold 0
git -c protocol.file.allow=always submodule -q add "$T/sub-up" lib/sub ||
    exit 99
git commit -q -m sub || exit 99
git -c protocol.file.allow=always submodule -q update --init --recursive ||
    exit 99
init_repo nest
(cd nest && printf 'n\n' >n.txt && git add -A && git commit -q -m n) ||
    exit 99
git init -q --separate-git-dir "$T/nest2.git" nest2 &&
    (cd nest2 && printf 'n2\n' >n2.txt && git add -A &&
    git commit -q -m n2) || exit 99
ok "the submodule and the one inside it are initialized" \
    test -f lib/sub/deep/d.txt
is "nest and nest2 are repositories git does not track" \
    "$(git status --porcelain)" "$(printf '?? nest/\n?? nest2/')"

# The command: what the copy holds (every file and directory, the nested
# repositories' too, never a .git), and in each repository its HEAD, the
# branch it is on, its status, refs of the worktree's own, a bisection,
# and its configuration.  Then it leaves junk in each nested copy: an
# edit, a staged change (a mode: no object is written in the repository
# the copy shares), untracked and ignored files, a directory's mode.
cat >"$T/look.sh" <<'EOF'
"$TREELIST" -a .
for d in . lib/sub lib/sub/deep nest nest2; do
	if [ ! -e "$d/.git" ]; then
		echo "--- $d: no repository"
		continue
	fi
	echo "--- $d"
	(
		cd "$d" || exit 1
		git rev-parse HEAD
		git rev-parse --symbolic-full-name HEAD
		git status --porcelain
		git for-each-ref --format='%(refname) %(objectname)' \
		    refs/worktree/ refs/bisect/
		[ -e "$(git rev-parse --git-path BISECT_LOG)" ] &&
		    echo bisecting
		# Its own working tree, wherever the copy is.
		git config --list | sed "s|=$(pwd -P)\$|=<this copy>|" | sort
	)
done
for d in lib/sub lib/sub/deep nest nest2; do
	[ -e "$d/.git" ] || continue
	echo junk >"$d/junk.txt"
	echo junk >"$d/junk.o"
	mkdir -p "$d/junkdir"
	echo junk >"$d/junkdir/j"
	for f in "$d"/*.txt; do
		echo junk >>"$f"
	done
	git -C "$d" ls-files -s | sed -n '1s/^[0-9]* \([0-9a-f]*\) 0	/\1,/p' |
	    xargs -I{} git -C "$d" update-index --cacheinfo 100755,{}
	chmod 700 "$d"
done
true
EOF

# nested_same DESCRIPTION GOT WANT: is, showing only what differs.
nested_same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		printf '%s\n' "$3" >"$T/.want"
		printf '%s\n' "$2" >"$T/.got"
		fail "$1" "diff (- want, + got):" \
		    "$(diff -u "$T/.want" "$T/.got" | sed '1,2d' | head -n 40)"
	fi
}
# copy_reused: the last run's verdict says it ran in a reused copy, and
# nothing says it was not reused.
copy_reused() {
	printf '%s\n' "$err" | grep -q 'running verification in a reused' &&
	    printf '%s\n' "$err" |
	    grep -Eq 'Verdict: PASS \(isolated, (reused|incremental), ' &&
	    ! printf '%s\n' "$err" | grep -q 'not reused'
}

# nested_result [MODE]: the last run's exit status, the tree its verdict
# line names (what it proved the copy to be), and the command's output --
# for --incremental, but for the submodule's own ignored files (sub
# ignores *.o), which its copy keeps, as a fresh one has none.
nested_result() {
	_own=
	[ "${1:-}" = --incremental ] && [ -e lib/sub/.git ] &&
	    git -C lib/sub check-ignore -q junk.o && _own=1
	printf '%s %s\n%s\n' "$rc" "$(printf '%s\n' "$err" |
	    sed -n 's/.*Verdict: .* tree \([0-9a-f]*\),.*/\1/p')" "$out" |
	    if [ -n "$_own" ]; then
		grep -v '^lib/sub/[^/	]*\.o	'
	    else
		cat
	    fi
}
# fresh_look: nested_result of the command in a fresh copy, in $fresh.
fresh_look() {
	run_forge verify --isolated --no-reuse -- sh "$T/look.sh"
	fresh=$(nested_result)
}

for mode in --reuse --incremental; do
	forge gc --all >/dev/null 2>&1
	fresh_look
	like "$mode: a fresh copy passes" "$fresh" '^0 [0-9a-f]{12}$'
	like "$mode: it holds the submodule's files" "$out" \
	    '^lib/sub/hello.txt	f'
	like "$mode: and those of the one inside it" "$out" \
	    '^lib/sub/deep/d.txt	f'
	like "$mode: and nest's" "$out" '^nest/n.txt	f'
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "$mode, first run: the copy is a fresh one's" \
	    "$(nested_result $mode)" "$fresh"
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "$mode, second run: passes, the copy a fresh one's" \
	    "$(nested_result $mode)" "$fresh"
	ok "$mode, second run: the copy is reused" copy_reused
	unlike "$mode, second run: no word of not reusing it" "$err" \
	    'not reused'
	# The junk the last run left: ignored in the submodule, kept as
	# its own by an incremental copy alone; not ignored, gone.
	if [ "$mode" = --incremental ]; then
		like "$mode: the submodule's copy kept its own ignored file" \
		    "$out" '^lib/sub/junk\.o	f'
	else
		unlike "$mode: the submodule's copy kept no ignored file" \
		    "$out" '^lib/sub/junk\.o	'
	fi
	unlike "$mode: nor an untracked one" "$out" '^lib/sub/junk\.txt	'
	unlike "$mode: nor one the submodule of it does not ignore" "$out" \
	    '^lib/sub/deep/junk\.o	'
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "$mode, third run: the same" "$(nested_result $mode)" \
	    "$fresh"
	ok "$mode, third run: reused" copy_reused
done

# The random walk: after each change to the working state, a reused copy
# (--reuse or --incremental at random) is what a fresh one is.  forge gc
# --all took the --reuse one: one is parked again.
run_forge verify --reuse -- true
# nested_trees: the working tree, every file with its mtime, and the
# nested repositories' as git sees them.
nested_trees() {
	"$TREELIST" -a -m .
	for d in lib/sub lib/sub/deep nest nest2; do
		echo "--- $d"
		[ -e "$d/.git" ] &&
		    git -C "$d" --no-optional-locks status --porcelain --ignored
	done
	true
}
# nested_registrations: each worktree registration in the nested
# repositories, "repository: name".
nested_registrations() {
	for g in .git/modules/lib/sub .git/modules/lib/sub/modules/deep \
	    nest/.git "$T/nest2.git"; do
		[ -d "$g/worktrees" ] && ls -A "$g/worktrees" | sed "s|^|$g: |"
	done
	true
}
rand=$seed
step=1
while [ "$step" -le "$steps" ]; do
	lcg_next 23
	what=$R
	sub= deep=
	[ -e lib/sub/.git ] && sub=1
	[ -e lib/sub/deep/.git ] && deep=1
	case $what in
	0) printf 'top %s\n' "$step" >>hello.txt ;;
	1) [ -n "$sub" ] && printf 'sub %s\n' "$step" >>lib/sub/hello.txt ;;
	2) [ -n "$deep" ] && printf 'deep %s\n' "$step" >>lib/sub/deep/d.txt ;;
	3) [ -d nest ] && printf 'nest %s\n' "$step" >>nest/n.txt ;;
	4) printf 'u\n' >"u$step.txt" ;;
	5) [ -n "$sub" ] && printf 'u\n' >"lib/sub/u$step.txt" ;;
	6) [ -n "$deep" ] && printf 'u\n' >"lib/sub/deep/u$step.txt" ;;
	7) [ -d nest ] && printf 'u\n' >"nest/u$step.txt" ;;
	8) [ -n "$sub" ] && printf 'ignored\n' >"lib/sub/i$step.o" ;;
	9) [ -n "$sub" ] && printf 'staged %s\n' "$step" >>lib/sub/src/main.c &&
	    git -C lib/sub add src/main.c ;;
	10) [ -n "$sub" ] && printf 'commit %s\n' "$step" >>lib/sub/run.sh &&
	    git -C lib/sub commit -q -a -m "step $step" ;;
	11) [ -n "$sub" ] && git -C lib/sub checkout -q HEAD~1 >/dev/null 2>&1 ;;
	12) git add lib/sub && git commit -q -m "step $step" >/dev/null 2>&1 ;;
	13) rm -rf nest ;;
	14) [ -d nest ] || {
		init_repo nest
		(cd nest && printf 'n %s\n' "$step" >n.txt &&
		    git add -A && git commit -q -m "n $step") || exit 99
	    } ;;
	# The submodule no longer initialized, its repository kept or not
	# (the parked copy's registration with it), then initialized again.
	15) [ -n "$sub" ] && git submodule -q deinit -f lib/sub ;;
	16) [ -n "$sub" ] && git submodule -q deinit -f lib/sub &&
	    rm -rf .git/modules/lib ;;
	17) [ -n "$sub" ] || git -c protocol.file.allow=always submodule -q \
	    update --init --recursive lib/sub >/dev/null 2>&1 ;;
	# nest without a commit (left out), nest2 (its git directory
	# elsewhere) changed.
	18) rm -rf nest && git init -q nest && printf 'x\n' >nest/x ;;
	19) printf 'nest2 %s\n' "$step" >>nest2/n2.txt ;;
	20) printf 'u\n' >"nest2/u$step.txt" ;;
	# An ignore rule of the submodule changed: what its copy keeps as
	# its own no longer ignored, or what forge put there ignored now.
	21|22) [ -n "$sub" ] && {
		rule='*.o'
		[ "$what" -eq 22 ] && rule='u*.txt'
		if grep -qxF "$rule" lib/sub/.gitignore; then
			grep -vxF "$rule" lib/sub/.gitignore >"$T/gi"
		else
			{ cat lib/sub/.gitignore; echo "$rule"; } >"$T/gi"
		fi
		cat "$T/gi" >lib/sub/.gitignore
	    } ;;
	esac
	lcg_next 2
	mode=--reuse
	[ "$R" -eq 1 ] && mode=--incremental
	at="seed $seed, step $step (change $what, $mode)"
	trees0=$(nested_trees)
	fresh_look
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "$at: the working tree untouched" "$(nested_trees)" \
	    "$trees0"
	nested_same "$at: the copy is a fresh one's" \
	    "$(nested_result $mode)" "$fresh"
	like "$at: a fresh copy passes" "$fresh" '^0 [0-9a-f]{12}$'
	# Known (NESTED_SEED=9980 and 68174, step 6): with the submodule
	# no longer initialized, the index the copy's side of the proof
	# carried from the last run has lib/sub's gitlink at the commit the
	# nested copy had checked out, which git add -A keeps for a
	# directory that is no repository now; the working state's is the
	# index's.  The proof refuses the reused copy and a fresh one is
	# built: the verdict is right (above), the reuse is lost.
	if [ ! -e lib/sub/.git ] && ! copy_reused &&
	    printf '%s\n' "$err" | grep -q 'differs: lib/sub$'; then
		like "$at: a fresh copy, for the known loss of reuse" "$err" \
		    'reused copy could not be brought up to date'
	else
		ok "$at: reused" copy_reused
	fi
	is "$at: no registration left but the two parked copies'" \
	    "$(nested_registrations | cut -d: -f1 | uniq -c | awk '$1 > 2')" ""
	step=$((step + 1))
done

# A known state for what follows: the submodule at its first commit with
# deep, recorded in the top, and changes of every kind in each nested
# repository.
[ -e lib/sub/.git ] || git -c protocol.file.allow=always submodule -q \
    update --init lib/sub >/dev/null 2>&1
git -C lib/sub checkout -q -f --detach "$(git -C "$T/sub-up" rev-parse HEAD)" &&
    git -C lib/sub clean -q -fdx &&
    git -C lib/sub submodule -q update --init --force deep &&
    git -C lib/sub/deep clean -q -fdx &&
    git add lib/sub && { git diff --cached --quiet -- lib/sub ||
    git commit -q -m 'known state' -- lib/sub; } || {
	echo "Bail out! cannot set the submodule back"
	exit 99
}
git -C nest rev-parse -q --verify HEAD >/dev/null 2>&1 || {
	rm -rf nest
	init_repo nest
	(cd nest && printf 'n\n' >n.txt && git add -A &&
	    git commit -q -m n) || exit 99
}
printf 'nest2: edit\n' >>nest2/n2.txt
printf 'sub: edit\n' >>lib/sub/hello.txt
printf 'sub: edit\n' >>lib/sub/src/main.c
printf 'sub: untracked\n' >lib/sub/src/untracked.c
printf 'sub: staged\n' >lib/sub/staged.txt
git -C lib/sub add staged.txt
printf 'sub: untracked\n' >lib/sub/untracked.txt
printf 'sub: ignored\n' >lib/sub/ignored.o
printf 'deep: edit\n' >>lib/sub/deep/d.txt
printf 'nest: edit\n' >>nest/n.txt
printf 'nest: untracked\n' >nest/untracked.txt

# Tampering: a command does something to the copy's nested repositories;
# the next runs' copies are still fresh ones', and nothing outside the
# copy changed: the working trees of the submodules and nest, their
# repositories (forge's own registrations in worktrees/ aside), the
# scratch directory a symlink or a setting points to.
mkdir -p "$T/scratch"
printf 'x\n' >"$T/scratch/x"
subgit=$(common_dir lib/sub)
# nested_repos: the nested repositories' refs, settings and git
# directories; nested_scratch: the scratch directory.
nested_repos() {
	for d in lib/sub lib/sub/deep nest nest2; do
		echo "--- $d"
		git -C "$d" for-each-ref
		git -C "$d" config --list --local
		"$TREELIST" -a "$(common_dir "$d")" |
		    grep -Ev '^(modules/[^	]*/)?worktrees(/|	)'
	done
}
nested_scratch() {
	"$TREELIST" -a -m "$T/scratch"
	cat "$T/scratch/.git" 2>/dev/null
	true
}
# nested_tamper NAME CODE [HOW...]: CODE run in a reused copy ($1 the
# submodule's git directory, $2 the scratch directory, which it may
# write), then the runs after it.  HOW "shared" when CODE itself writes
# in the repositories the copy shares (a branch, a commit): then only the
# runs after it must leave them alone; "afresh" when the next run may
# build the whole copy again rather than reuse it.
nested_tamper() {
	run_forge verify --reuse -- true
	trees0=$(nested_trees) repos0=$(nested_repos)
	run_forge verify --reuse -- sh -c "$2" sh "$subgit" "$T/scratch"
	if [ "$rc" -eq 0 ]; then
		pass "$1: the command ran"
	else
		fail "$1: the command ran" "exit status $rc" "$err"
	fi
	trees1=$(nested_trees) repos1=$(nested_repos)
	scratch1=$(nested_scratch)
	nested_same "$1: its run changed no working tree outside the copy" \
	    "$trees1" "$trees0"
	case " $* " in
	*" shared "*) ;;
	*) nested_same "$1: nor any repository" "$repos1" "$repos0" ;;
	esac
	fresh_look
	run_forge verify --reuse -- sh "$T/look.sh"
	nested_same "$1: the next run's copy is a fresh one's" \
	    "$(nested_result)" "$fresh"
	like "$1: it passes" "$err" 'Verdict: PASS'
	case " $* " in
	*" afresh "*)
		copy_reused && echo "# $1: the copy was reused" ||
		    echo "# $1: the copy was made afresh"
		;;
	*) ok "$1: reused" copy_reused ;;
	esac
	run_forge verify --reuse -- sh "$T/look.sh"
	nested_same "$1: and the run after it" "$(nested_result)" "$fresh"
	nested_same "$1: the runs after it changed no working tree outside the copy" \
	    "$(nested_trees)" "$trees1"
	nested_same "$1: nor any repository" "$(nested_repos)" "$repos1"
	nested_same "$1: the scratch directory is as the command left it" \
	    "$(nested_scratch)" "$scratch1"
}

nested_tamper "(a) edits, untracked and ignored files, modes" '
	echo evil >>lib/sub/hello.txt && echo evil >lib/sub/evil.txt &&
	echo evil >lib/sub/evil.o && echo evil >lib/sub/deep/evil.o &&
	echo evil >>lib/sub/deep/d.txt && echo evil >nest/evil.o &&
	chmod 700 lib/sub/src nest'
nested_tamper "(b) the submodule's .git names the real git directory" '
	printf "gitdir: %s\n" "$1" >lib/sub/.git'
nested_tamper "(c) the submodule a symlink to a directory outside" '
	rm -rf lib/sub && ln -s "$2" lib/sub'
# The directory outside with the copy's .git file, naming the
# registration that names the copy's path back, through the symlink.
printf 'x\n' >"$T/scratch/x"
nested_tamper "(c+) and that directory has the copy's .git" '
	cp lib/sub/.git "$2/.git" && rm -rf lib/sub && ln -s "$2" lib/sub'
rm -f "$T/scratch/.git"
nested_tamper "(c2) lib, above the submodule, a symlink outside" '
	mkdir -p "$2/sub" && echo y >"$2/sub/y" && rm -rf lib &&
	ln -s "$2" lib'
rm -rf "$T/scratch/sub"
nested_tamper "(c3) the submodule's own submodule a symlink outside" '
	rm -rf lib/sub/deep && ln -s "$2" lib/sub/deep'
nested_tamper "(b2) the submodule's .git a repository of its own" '
	rm -f lib/sub/.git && git init -q lib/sub'
# The .git of the submodule's copy naming the registration of another
# parked copy's (the incremental one's): neither may take the other's.
run_forge verify --incremental -- true
nested_tamper "(b3) the submodule's .git names another copy's registration" '
	own=$(cd lib/sub && cd "$(git rev-parse --git-dir)" && pwd -P)
	for r in "$1"/worktrees/*; do
		[ "$r" = "$own" ] && continue
		printf "gitdir: %s\n" "$r" >lib/sub/.git
		exit 0
	done
	exit 1'
fresh_look
run_forge verify --incremental -- sh "$T/look.sh"
nested_same "(b3) the other copy's next run: a fresh one's" \
    "$(nested_result --incremental)" "$fresh"
ok "(b3) the other copy reused" copy_reused
# Where the run's directory keeps the nested copies while parked (beside
# the copy, where the command can write), a symlink out of it.
run_forge verify --reuse -- true
parked_at=$(printf '%s\n' "$err" |
    sed -n 's/^forge: the copy stays at \(.*\) for the next run.*/\1/p')
ok "a parked copy keeps its nested copies in .nested" \
    test -d "${parked_at%/*}/.nested"
nested_tamper "(k) the parked copies' directory a symlink outside" '
	rm -rf ../.nested && ln -s "$2" ../.nested' afresh
# The user unlocks and prunes the registrations of the parked copies of
# the submodule: the next run copies it afresh.
run_forge verify --reuse -- true
git -C lib/sub worktree list --porcelain | sed -n '1d; s/^worktree //p' |
    while read -r p; do
	git -C lib/sub worktree unlock "$p"
done
git -C lib/sub worktree prune
trees0=$(nested_trees) repos0=$(nested_repos)
fresh_look
run_forge verify --reuse -- sh "$T/look.sh"
nested_same "(l) registrations pruned: the next run's copy is a fresh one's" \
    "$(nested_result)" "$fresh"
ok "(l) reused" copy_reused
run_forge verify --incremental -- sh "$T/look.sh"
nested_same "(l) and the incremental one's" \
    "$(nested_result --incremental)" "$fresh"
nested_same "(l) nothing outside the copy changed" \
    "$(nested_trees; nested_repos)" "$trees0
$repos0"
# Worktree settings turned on by hand (extensions.worktreeConfig) in the
# submodule's repository, whose shared configuration has core.worktree
# (git submodule puts it there; git 2.25 to 2.35 turn the extension on
# in git sparse-checkout init): git then takes it for every worktree
# whose own settings do not say otherwise -- the real submodule's for a
# copy's, where a command's git clean would empty it.  The copy's own
# settings say otherwise; bringing the copy back touches nothing outside
# it either.
git -C lib/sub config extensions.worktreeConfig true
nested_tamper "(d0) worktree settings on, core.worktree shared" true
for mode in --no-reuse --reuse --reuse; do
	run_forge verify --isolated $mode -- sh -c \
	    'cd lib/sub && test "$(git rev-parse --show-toplevel)" = \
	    "$(pwd -P)" && git clean -fdxq'
	is "(d0) $mode: git in the copy's submodule works on the copy" \
	    "$rc" 0
	is "(d0) $mode: the submodule's repository is whole" \
	    "$(git -C lib/sub rev-parse --is-inside-work-tree 2>&1)" true
done
# As git itself sets them up (git sparse-checkout init): core.worktree
# the main worktree's own.  A command sets the copy's own settings: the
# scratch directory its working tree (git run there before they are
# undone would clean it), hooks and a file system monitor of its own
# there, which must not run.  Its branch is made in the repository the
# copies share: an audit's fresh copy, which finds it there, does not
# make it again.
wt=$(git -C lib/sub config core.worktree) &&
    git -C lib/sub config --worktree core.worktree "$wt" &&
    git -C lib/sub config --unset core.worktree || exit 99
nested_tamper "(d) settings, a branch, refs, a bisection of the worktree" '
	cd lib/sub && '"$(unaudited 'git checkout -q -b evil')"' &&
	git update-ref refs/worktree/x HEAD~1 &&
	git bisect start >/dev/null &&
	for h in post-checkout post-index-change reference-transaction \
	    fsmonitor; do
		printf "#!/bin/sh\necho %s >>\"%s/../hooked\"\n" $h "$2" \
		    >"$2/$h" && chmod +x "$2/$h" || exit 1
	done &&
	git config --worktree core.hooksPath "$2" &&
	git config --worktree core.fsmonitor "$2/fsmonitor" &&
	git config --worktree core.worktree "$2"' shared
is "(d) no hook or monitor the command set ran" \
    "$(cat "$T/hooked" 2>/dev/null)" ""
git -C lib/sub branch -q -D evil 2>/dev/null
nested_tamper "(e) the submodule removed" 'rm -rf lib/sub'
# A repository the command made: git in it works on whatever its .git
# names, so the whole copy may be made afresh instead.
run_forge verify --reuse -- true
repos0=$(nested_repos)
run_forge verify --reuse -- sh -c 'git init -q extra && cd extra &&
    echo e >e && git add e && git commit -q -m e'
is "(f) a new nested repository: the command ran" "$rc" 0
fresh_look
run_forge verify --reuse -- sh "$T/look.sh"
nested_same "(f) the next run's copy is a fresh one's" \
    "$(nested_result)" "$fresh"
unlike "(f) it holds no extra/" "$out" '^extra'
nested_same "(f) nothing outside the copy changed" "$(nested_repos)" \
    "$repos0"
copy_reused && echo "# (f) the copy was reused" ||
    echo "# (f) the copy was made afresh"
nested_tamper "(g) a commit in the copy's submodule" '
	git -C lib/sub commit -q --allow-empty -m x' shared
# What git's own look at the copy does not see: index flags hiding an
# edit, and an edit that keeps a file's size and mtime where ctime is not
# trusted (the submodule's setting), made once git has written its index
# a second after the file's mtime (so that the entry is not racy).
nested_tamper "(n) index flags of the submodule's copy hide edits" '
	git -C lib/sub update-index --assume-unchanged hello.txt &&
	git -C lib/sub update-index --skip-worktree run.sh &&
	echo evil >>lib/sub/hello.txt && echo evil >>lib/sub/run.sh &&
	git -C lib/sub/deep update-index --assume-unchanged d.txt &&
	echo evil >>lib/sub/deep/d.txt'
git -C lib/sub config core.trustctime false
nested_tamper "(o) an edit of the same size and mtime" '
	sleep 1.1 && git -C lib/sub status >/dev/null &&
	git -C nest status >/dev/null &&
	cp -p lib/sub/.gitignore ref.tmp && printf "*.x\nbuild/\n" \
	    >lib/sub/.gitignore && touch -r ref.tmp lib/sub/.gitignore &&
	cp -p nest/n.txt ref.tmp && tr a-z A-Z <ref.tmp >nest/n.txt &&
	touch -r ref.tmp nest/n.txt && rm ref.tmp'
nested_tamper "(p) a directory of the submodule's copy a symlink outside" '
	rm -rf lib/sub/src && ln -s "$2" lib/sub/src'
# Hard links to a file outside: a file is written anew, never through.
nested_tamper "(q) files of the submodule's copy hard links to one outside" '
	for f in hello.txt untracked.txt src/main.c src/untracked.c; do
		ln -f "$2/x" "lib/sub/$f" || exit 1
	done'
nested_tamper "(r) unreadable: the submodule's .git and a directory" '
	chmod 000 lib/sub/.git lib/sub/src nest/.git'
# Locked by another, the registration is not forge's to remove, nor its
# path to register again: the copy may be made afresh.
nested_tamper "(h) the registration unlocked, and locked by another" '
	git -C lib/sub worktree unlock "$PWD/lib/sub" &&
	git -C lib/sub worktree lock --reason evil "$PWD/lib/sub"' afresh
nested_tamper "(i) the registration names another path back" '
	printf "%s/.git\n" "$2" >"$(git -C lib/sub rev-parse --git-dir)/gitdir"'

# Two runs at once: the second finds the parked copy busy and makes its
# own, its nested copies registered beside the first's; both park.  Each
# run after them is a fresh copy's, and each nested repository has one
# registration a parked copy at most.
forge gc --all >/dev/null 2>&1
run_forge verify --reuse -- true
start_forge "$T/first.err" verify --reuse -- sh -c \
    'touch "$1/first.started"; while [ ! -e "$1/second.done" ]; do
	sleep 0.05; done' sh "$T"
first_pid=$forge_pid
if wait_for 60 test -e "$T/first.started"; then
	fresh_look
	run_forge verify --reuse -- sh "$T/look.sh"
	nested_same "(s) the second run at once: a fresh copy's" \
	    "$(nested_result)" "$fresh"
	touch "$T/second.done"
	wait "$first_pid"
	is "(s) the first run passes" "$?" 0
	for n in 1 2 3; do
		run_forge verify --reuse -- sh "$T/look.sh"
		nested_same "(s) then run $n: a fresh copy's" \
		    "$(nested_result)" "$fresh"
		ok "(s) run $n: reused" copy_reused
	done
	is "(s) one registration a parked copy at most" \
	    "$(nested_registrations | cut -d: -f1 | uniq -c | awk '$1 > 2')" ""
else
	fail "(s) the first run started" "$(cat "$T/first.err")"
	touch "$T/second.done"
	wait "$first_pid"
fi

# The submodule's HEAD moved away from the commit the top records, a run,
# then the submodule no longer initialized: the tree is the index's
# gitlink again, and the next run proves that one, as a fresh copy does.
for mode in --reuse --incremental; do
	git -C lib/sub commit -q --allow-empty -m "moved $mode" || exit 99
	run_forge verify $mode -- sh "$T/look.sh"
	git submodule -q deinit -f lib/sub
	fresh_look
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "(m) $mode, the submodule moved, then not initialized" \
	    "$(nested_result $mode)" "$fresh"
	ok "(m) $mode: reused" copy_reused
	git -c protocol.file.allow=always submodule -q update --init \
	    --recursive lib/sub || exit 99
	fresh_look
	run_forge verify $mode -- sh "$T/look.sh"
	nested_same "(m) $mode, and initialized again" \
	    "$(nested_result $mode)" "$fresh"
	ok "(m) $mode: reused again" copy_reused
done

# Killed outright as the nested copies are set aside, and as one is
# taken back: the copy is a dead run's and goes, registrations and all;
# the next run's copy is a fresh one's, and nothing outside it changed.
run_forge verify --reuse -- true
for phase in set-aside take-back; do
	trees0=$(nested_trees) repos0=$(nested_repos)
	FORGE_TEST_STALL=$phase start_forge "$T/stall.err" verify --reuse -- true
	wait_for 30 grep -q "test stall: $phase" "$T/stall.err"
	kill -KILL "$forge_pid"
	wait "$forge_pid" 2>/dev/null
	run_forge gc
	is "(x) killed at $phase: forge gc works" "$rc" 0
	like "(x) killed at $phase: it removes the dead run's copy" "$out" \
	    'removed .*forge-[0-9a-f]+ \(left by dead pid'
	fresh_look
	run_forge verify --reuse -- sh "$T/look.sh"
	nested_same "(x) killed at $phase: the next run's copy is a fresh one's" \
	    "$(nested_result)" "$fresh"
	nested_same "(x) killed at $phase: nothing outside the copy changed" \
	    "$(nested_trees; nested_repos)" "$trees0
$repos0"
done

# A file system mounted in a nested copy: nothing is set aside, the copy
# is not parked, the mount is named where it is and left in place; once
# it is gone, forge gc removes the rest.  Not in an audit's fresh copy,
# whose mount the test would not know to take away.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	run_forge verify --reuse -- true
	run_forge verify --reuse -- sh -c "$(unaudited \
	    'mkdir -p lib/sub/mnt && mount -t tmpfs none lib/sub/mnt &&
	    echo x >lib/sub/mnt/x')"
	like "(y) a mount in the submodule's copy: named where it is" "$err" \
	    'a file system is mounted at .*/lib/sub/mnt: left in place'
	like "(y) and the copy not parked" "$err" \
	    'no longer provably forge.s: removing it, not parking it'
	mnt=$(printf '%s\n' "$err" |
	    sed -n 's/.*a file system is mounted at \(.*\): left in place.*/\1/p')
	ok "(y) the mount is still there" grep -q " $mnt " /proc/mounts
	umount "$mnt"
	run_forge gc
	is "(y) then forge gc removes the rest" "$rc" 0
	fresh_look
	run_forge verify --reuse -- sh "$T/look.sh"
	nested_same "(y) the next run's copy is a fresh one's" \
	    "$(nested_result)" "$fresh"
else
	skip "(y) a mount in the submodule's copy" "not root, or no mounts"
fi

forge gc --all >/dev/null 2>&1
for d in . lib/sub lib/sub/deep nest nest2; do
	is "after forge gc --all, nothing is left of $d's copies" \
	    "$(leftovers "$T/r/$d")" ""
	is "and git -C $d worktree list has one line" \
	    "$(git -C "$d" worktree list | wc -l | tr -d ' ')" 1
done
done_testing
