#!/bin/sh
# Reused copies against the worst: a forge killed outright at each step
# of claiming, bringing up to date and parking a copy; forge gc while a
# run works in one; and commands that do their worst to the copy they
# leave behind.  After each, the next run's copy is the working state,
# file for file, nothing is left behind, and nothing outside the copy
# (the working tree, another worktree, a file a symlink points to) is
# touched.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
common="$T/r/.git"
git config forge.breakerThreshold 0
for i in 1 2 3 4; do printf 'file %s\n' "$i" >"f$i"; done
git add -A && git commit -q -m files
# A worktree of the user's own, and one whose directory is away for a
# while: neither is forge's to prune.
git worktree add -q --detach "$T/mine" HEAD
git worktree add -q --detach "$T/away" HEAD
mv "$T/away" "$T/away.moved"
printf 'edit\n' >>f1
printf 'untracked\n' >u1
mkdir -p "$T/outside"
printf 'sentinel\n' >"$T/outside/s"
printf 'outside\n' >"$T/outside/main.c"
# What nothing may ever change: the working tree, the user's worktrees,
# the files outside.
guarded() {
	state_of "$T/r"
	"$TREELIST" -a -m "$T/mine"
	"$TREELIST" -a -m "$T/outside"
	git worktree list --porcelain | sed -n 's/^worktree //p' |
	    grep -v "^$TMPDIR/"
	cat "$common/worktrees/mine/gitdir" "$common/worktrees/away/gitdir"
}
before=$(guarded)

# What a run may have left behind, the user's worktrees aside.
left() {
	leftovers "$T/r" | grep -v '^mine$\|^away$\|/mine$\|/away$'
}

# check_next MODE WHAT HOW: the next run passes in a copy that is the
# working state file for file, a copy HOW (fresh or reused) says.
check_next() {
	run_forge verify "--$1" -- sh -c '"$1" -a . >"$2"' sh "$TREELIST" \
	    "$T/copy.m"
	is "$2: the next run passes" "$rc" 0
	like "$2: in a $3 copy" "$err" "Verdict: PASS \\(isolated, ($3|incremental)"
	if [ "$1" = incremental ]; then
		like "$2: an incremental one" "$err" \
		    "reused incremental copy|isolated, incremental"
	fi
	"$TREELIST" -a . | grep -v '^\.git	' >"$T/src.m"
	grep -v '^\.git	' "$T/copy.m" >"$T/copy2.m"
	if cmp -s "$T/src.m" "$T/copy2.m"; then
		pass "$2: the copy is the working state, file for file"
	else
		fail "$2: the copy is the working state, file for file" \
		    "$(diff "$T/src.m" "$T/copy2.m" | head -n 20)"
	fi
	is "$2: one copy is parked" "$(parked)" 1
	is "$2: with one record and one registration" \
	    "$(ls "$common/forge/copies" | wc -l | tr -d ' ') $(ls \
	    "$common/worktrees" | grep -vc '^mine$\|^away$')" "1 1"
	is "$2: nothing outside the copy was touched" "$(guarded)" "$before"
}

# stall PHASE: a --reuse run stalled at PHASE (its command leaves junk
# and an edit in the copy), its pid in $pid.
stall() {
	FORGE_TEST_STALL=$1 start_forge "$T/stall.err" verify --reuse -- \
	    sh -c 'echo junk >junk; echo tampered >>f2; mkdir -p build;
	    echo o >build/x.o'
	pid=$forge_pid
	wait_for 30 grep -q "test stall: $1" "$T/stall.err"
}

run_forge verify --reuse -- true
is "a first run parks its copy" "$(parked)" 1

# Killed while the record is locked but the copy still parked (claim),
# and when parked again but not yet let go (parked): it stays parked,
# and the next run reuses it.  Killed once the run owns it (adopt), half
# brought up to date (sync), or before the park is written (park): the
# copy is a dead run's, and goes (fix: proved as it stood, half put
# right; prefix: as the working tree's changes are to be copied in).
for phase in claim adopt sync fix prefix park parked; do
	# Something to put right, for the copy proved as it stood.
	[ "$phase" = fix ] && run_forge verify --reuse -- sh -c \
	    'echo tampered >>f2'
	stall "$phase"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	run_forge gc --dry-run
	is "killed at $phase: forge gc --dry-run works" "$rc" 0
	dry=$out
	run_forge status
	is "killed at $phase: forge status works" "$rc" 0
	case $phase in
	claim|parked)
		# (The output the dead run was keeping is not whole: that
		# goes.)
		unlike "killed at $phase: gc would keep the copy" "$dry" \
		    'would remove .*forge-[0-9a-f]+ '
		like "killed at $phase: gc says it is reusable" "$dry" \
		    '^reusable .*forge-[0-9a-f]+/r \(forge gc --all removes it\)$'
		like "killed at $phase: status lists it as reusable" "$out" \
		    'copies: 0 kept, 1 reusable'
		check_next reuse "killed at $phase" reused
		;;
	*)
		like "killed at $phase: gc would remove it, as a dead run's" \
		    "$dry" '^would remove .*forge-[0-9a-f]+ \(left by dead pid'
		like "killed at $phase: status removes it, and says so" "$err" \
		    'removed .*forge-[0-9a-f]+, left by a forge run that died'
		unlike "killed at $phase: and lists no reusable copy" "$out" \
		    'reusable'
		check_next reuse "killed at $phase" fresh
		;;
	esac
done

# The same with an incremental copy, killed half brought up to date.
forge gc --all >/dev/null 2>&1
run_forge verify --incremental -- sh -c 'echo o >obj.o'
FORGE_TEST_STALL=sync start_forge "$T/stall.err" verify --incremental -- true
pid=$forge_pid
wait_for 30 grep -q "test stall: sync" "$T/stall.err"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check_next incremental "incremental, killed at sync" fresh
forge gc --all >/dev/null 2>&1
run_forge verify --reuse -- true

# forge gc, and gc --all, while a run claims a reused copy, works in it
# (between two steps), or has just parked it again: it is the run's, and
# stays; the run passes in it, and parks it again.
git config --add forge.verify 'echo one >one.txt'
git config --add forge.verify 'cat f1; pwd'
copy=$(ls -d "$TMPDIR"/forge-*/r)
for phase in claim step parked; do
	for how in gc 'gc --all'; do
		rm -f "$T/go"
		FORGE_TEST_STALL=$phase FORGE_TEST_STALL_RELEASE="$T/go" \
		    start_forge "$T/step.err" verify --reuse
		pid=$forge_pid
		wait_for 30 grep -q "test stall: $phase" "$T/step.err"
		# shellcheck disable=SC2086
		run_forge $how
		is "forge $how at $phase succeeds" "$rc" 0
		unlike "forge $how at $phase removes nothing" "$out" \
		    "removed .*forge-"
		ok "forge $how at $phase leaves the copy in place" \
		    test -f "$copy/f1"
		# The lock file itself: git worktree list --porcelain
		# says "locked" only from git 2.31 on.
		admin=$(sed -n 's/^gitdir: //p' "$copy/.git")
		ok "at $phase, its registration is still there, locked" \
		    test -f "$admin/locked"
		if [ "$phase" = step ]; then
			run_forge status --json
			is "forge status says it is in use" \
			    "$(printf '%s\n' "$out" |
			    "$JSONPICK" copies.reusable.0.in_use)" true
		fi
		touch "$T/go"
		wait "$pid"
		is "forge $how at $phase: the run passes" "$?" 0
		like "forge $how at $phase: in the reused copy" \
		    "$(cat "$T/step.err")" 'Verdict: PASS \(isolated, reused'
		like "forge $how at $phase: which stays for the next run" \
		    "$(cat "$T/step.err")" "the copy stays at $copy for the next"
		is "forge $how at $phase: one copy parked" "$(parked)" 1
	done
done
git config --unset-all forge.verify
is "the user's worktrees were left alone" "$(guarded)" "$before"
check_next reuse "after gc beside a run" reused

# tamper MODE WHAT COMMAND: a run whose command does COMMAND in its copy;
# the run after it must still be right.
tamper() {
	run_forge verify "--$1" -- sh -c "$3"
	is "$2: the run passes" "$rc" 0
}

for mode in reuse incremental; do
	forge gc --all >/dev/null 2>&1
	run_forge verify "--$mode" -- true
	# A tracked file rewritten with its size and time kept, and the
	# copy's index made to match it: the index then names the rewritten
	# content, which the next run must not keep.
	tamper "$mode" "$mode: same size and time, git add" \
	    'cp -p f3 .keep; printf "FILE 3\n" >f3; touch -r .keep f3;
	    rm .keep; git add f3'
	check_next "$mode" "$mode: after same size and time, git add" reused
	tamper "$mode" "$mode: same size and time, update-index" \
	    'cp -p f4 .keep; printf "FILE 4\n" >f4; touch -r .keep f4;
	    rm .keep; git update-index -q --refresh; git update-index f4'
	check_next "$mode" "$mode: after same size and time, update-index" \
	    reused
	# ... and the one the index already matched, rewritten with its
	# stat data kept but for the ctime, no git run at all.
	tamper "$mode" "$mode: same size and time, index untouched" \
	    'cp -p hello.txt .keep; printf "HELLO\n" >hello.txt;
	    touch -r .keep hello.txt; rm .keep'
	check_next "$mode" "$mode: after same size and time, index untouched" \
	    reused
	# A tracked file, and a tracked directory, made symlinks to outside:
	# never followed, neither for writing nor removing.
	tamper "$mode" "$mode: a file made a symlink" \
	    "ln -sf '$T/outside/s' f2"
	check_next "$mode" "$mode: after a file made a symlink" reused
	tamper "$mode" "$mode: a directory made a symlink" \
	    "rm -rf src; ln -s '$T/outside' src"
	check_next "$mode" "$mode: after a directory made a symlink" reused
	# Directories no one can enter, modes git does not record: a
	# checkout's own come back.
	tamper "$mode" "$mode: chmod 000" \
	    'chmod 000 src; mkdir -p new/deep; echo x >new/deep/y;
	    chmod 000 new/deep new'
	check_next "$mode" "$mode: after chmod 000" reused
	tamper "$mode" "$mode: chmod of files and the copy" \
	    'chmod 600 f1; chmod 666 f2; chmod 000 src/main.c; chmod 700 .'
	check_next "$mode" "$mode: after chmod of files and the copy" reused
	# A process left behind, holding a file in the copy, writing later.
	rm -f "$T/bg.pid"
	tamper "$mode" "$mode: a process left behind" \
	    "setsid sh -c 'echo \$\$ >\"$T/bg.pid\"; exec 3>>f1; sleep 2;
	    echo late >&3; echo late >f3' >/dev/null 2>&1 &
	    while [ ! -s '$T/bg.pid' ]; do sleep 0.05; done"
	bg=$(cat "$T/bg.pid")
	wait_for 10 dead "$bg"
	ok "$mode: the process left behind is ended with the run" dead "$bg"
	check_next "$mode" "$mode: after a process left behind" reused
	# Files named like forge's own state, in the copy and beside it.
	tamper "$mode" "$mode: forge's names in the copy" \
	    'mkdir -p .forge && echo 0000000000000000 >.forge/run;
	    echo x >.forge/objects; echo stray >../stray'
	check_next "$mode" "$mode: after forge's names in the copy" reused
	# The copy's .git made something else: the registration is not
	# followed, the copy is rebuilt.
	tamper "$mode" "$mode: .git a symlink to the working tree's" \
	    "rm .git && ln -s '$T/r/.git' .git"
	check_next "$mode" "$mode: after .git a symlink" fresh
	tamper "$mode" "$mode: .git a repository of its own" \
	    'rm .git && git init -q . && git add -A && git commit -qm own'
	check_next "$mode" "$mode: after .git a repository" fresh
	# A .git below the top, naming the working tree's: git run there
	# would work on the real repository.  No fresh copy has one.
	tamper "$mode" "$mode: a .git below the top" \
	    "ln -s '$T/r/.git' src/.git"
	check_next "$mode" "$mode: after a .git below the top" fresh
	tamper "$mode" "$mode: a .git in a new directory" \
	    "mkdir -p junk/deep && ln -s '$T/r/.git' junk/deep/.git"
	check_next "$mode" "$mode: after a .git in a new directory" reused
	# The proof beside the copy that it is forge's, undone: the copy is
	# removed, not parked where no one could claim or remove it.
	for how in 'echo 0000000000000000 >../.forge/run' 'chmod 755 ..' \
	    'rm -rf ../.forge'; do
		tamper "$mode" "$mode: $how" "$how"
		like "$mode: $how: the run says it removed the copy" "$err" \
		    "no longer provably forge's: removing it"
		is "$mode: $how: nothing is parked" "$(parked)" 0
		is "$mode: $how: nothing is left" "$(left)" ""
		check_next "$mode" "$mode: after $how" fresh
	done
done

run_forge gc --all
is "gc --all at the end succeeds" "$rc" 0
is "and leaves nothing behind" "$(left)" ""
is "nothing outside a copy was ever touched" "$(guarded)" "$before"
mv "$T/away.moved" "$T/away"
is "the user's worktrees are all still registered" \
    "$(git worktree list --porcelain | grep -c '^worktree ')" 3
done_testing
