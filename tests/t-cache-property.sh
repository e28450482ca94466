#!/bin/sh
# The differential property of every fast path: a verdict forge gives
# from its cache, or from a reused or incremental copy, is the verdict a
# fresh run gives.  One repository walked through random steps -- edits,
# staging, commits, a sparse checkout on and off, a submodule initialized
# and not, attributes files, core.autocrlf and CRLF content, the
# directory forge starts in, its flags, the steps and where
# they are configured, the environment, setup steps, tracked symbolic
# links retargeted, and what the working state does not hold
# (tests/walk-moves.sh): git's settings set and unset in every scope and
# in the submodule, info/attributes files, core.symlinks, and as root
# the group id and groups forge runs with -- and after each, the same
# verification twice: with --cache (and --reuse or --incremental, at
# times --audit), then fresh with --no-cache --no-reuse.  The two must
# agree, and the audit must find no divergence.  Half the steps change
# one input the working state does not hold and keep the last step's
# flags, so that a cached PASS or a parked copy is there to answer if
# forge overlooks it; a step after one forge could not verify in takes
# one of the walk's settings or attributes files back.
#
# The command reads everything a verdict can depend on -- every file
# and symbolic link of the copy but its build output, their modes, git
# status, what is staged, HEAD, the settings git lists in the copy and in
# its submodule, the directory it runs in, CC, the groups it runs with,
# whether it can write the git directory, the network it has, what setup
# made -- and passes or fails by a digest of it: any input forge
# overlooks flips half the verdicts.  The setup steps write build output
# from the bytes of a file (forge.setupInputs names it, or nothing), and
# at random append to a tracked file, write an untracked one and delete
# a tracked one.  A setup step, once configured, changes but never goes:
# an incremental copy keeps what the last one made, as build output,
# where a fresh copy has none (forge(1)).  Then the command leaves what a
# hostile build might: an ignored .gitattributes that turns a file's line
# endings, a .gitignore hiding a file, untracked junk, a tracked file
# rewritten and made executable, index flags, and build output.
#
#	CACHE_STEPS	steps per seed (default 8)
#	CACHE_SEED	the first seed (default 1)
#	CACHE_SEEDS	how many seeds, from it (default 2)
#
# Each seed is one test; a failing one prints the step, what was done
# and both runs' output: scripts/fuzz-cache replays it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-gen.sh"
. "$top_srcdir/tests/walk-moves.sh"

steps=${CACHE_STEPS:-8}
seed0=${CACHE_SEED:-1}
nseeds=${CACHE_SEEDS:-2}
case $steps$seed0$nseeds in
*[!0-9]*)
	echo "Bail out! CACHE_STEPS, CACHE_SEED and CACHE_SEEDS must be numbers"
	exit 1
	;;
esac
echo "# seeds $seed0 to $((seed0 + nseeds - 1)), $steps steps each" \
    "(CACHE_SEED=$seed0 CACHE_SEEDS=$nseeds CACHE_STEPS=$steps to replay)"

# The command: a verdict by a digest of all it can see, then junk.  It
# and the setup are where a contained step can read them, and so is HOME
# (forge.containWritable): /tmp, which holds them, is private there.
mkdir -p "$T/bin"
cat >"$T/bin/check.sh" <<'EOF'
arg=$1
top=$(git rev-parse --show-toplevel) || exit 9
prefix=$(git rev-parse --show-prefix)
cd "$top" || exit 9
{
	echo "arg $arg"
	echo "cwd $prefix"
	echo "CC ${CC-unset}"
	echo "id $(id -u) $(id -g) $(id -G | tr ' ' '\n' | sort -n | tr '\n' ' ')"
	echo "head $(git log -1 --format='%H %s')"
	echo "staged $(git diff --cached --name-status | tr '\n' ' ')"
	# Where git may convert (a filter command, line endings, an
	# attributes file anywhere), git status in a fresh checkout depends
	# on its timing: an entry as recent as the index is read again,
	# through a filter that need not undo itself or attributes that came
	# after the checkout, one not so recent is not.
	if git config --get-regexp '^(filter\..*\.(smudge|clean|process)|core\.(autocrlf|eol|attributesfile))$' \
	    >/dev/null 2>&1 ||
	    [ -s "$(git rev-parse --git-path info/attributes)" ] ||
	    [ -n "$(find . -name .gitattributes ! -path './.git/*' | head -n 1)" ]
	then
		echo "status: git may convert, and says by its timing"
	else
		echo "status $(git status --porcelain | tr '\n' ' ')"
	fi
	# But core.worktree, which names the copy.
	echo "config $(git config -l | grep -v '^core\.worktree=' |
	    tr '\n' ' ')"
	if [ -e lib/.git ]; then
		echo "lib config $(git -C lib config -l |
		    grep -v '^core\.worktree=' | tr '\n' ' ')"
	fi
	if touch "$(git rev-parse --git-dir)/probe" 2>/dev/null; then
		echo "gitdir writable"
	else
		echo "gitdir read-only"
	fi
	echo "net $(ls /sys/class/net 2>/dev/null | tr '\n' ' ')"
	echo "setup $(cat out/setup 2>/dev/null)"
	find . -name .git -prune -o -path ./out -prune -o \
	    \( -type f -o -type l \) ! -name '*.o' -print | LC_ALL=C sort |
	while IFS= read -r f; do
		if [ -L "$f" ]; then
			printf '%s link %s\n' "$f" "$(readlink "$f")"
		else
			printf '%s %s %s\n' "$f" "$(stat -c %a "$f")" \
			    "$(cksum <"$f")"
		fi
	done
} >"$top/out-digest.o"
sum=$(cksum <"$top/out-digest.o" | cut -d' ' -f1)
# What it read, for a walk that fails to show (but for the audit's
# fresh copy, which runs this too).
[ "${FORGE_AUDITING:-}" = 1 ] ||
    cp "$top/out-digest.o" "$(dirname "$0")/digest" 2>/dev/null
test -f slow && sleep 5
# Junk, for the next run in this copy to find.
mkdir -p out src
echo "$sum" >"out/run-$sum"
echo o >junk.o
printf '* text eol=crlf\n' >.gitattributes
test -f top.txt && printf 'crlf\r\n' >top.txt
printf 'extra.c\n' >src/.gitignore
echo 'int extra;' >src/extra.c
echo junk >junk.txt
test -f a/f && chmod +x a/f
git update-index --assume-unchanged b/f 2>/dev/null
git add junk.txt 2>/dev/null
exit $((sum % 2))
EOF
# The setup: build output from the bytes of src/x.c (the one file
# forge.setupInputs names, when it names one), and what FLAGS say: t
# appends to a tracked file, u writes an untracked one git does not
# ignore, d deletes a tracked one.
cat >"$T/bin/setup.sh" <<'EOF'
mkdir -p out && { echo "$1"; cksum <src/x.c 2>/dev/null; } >out/setup
case $2 in *t*) test -f top.txt && echo "set up by $1" >>top.txt ;; esac
case $2 in *u*) { echo "$1"; cksum <src/x.c 2>/dev/null; } >gen.txt ;; esac
case $2 in *d*) rm -f b/f ;; esac
exit 0
EOF

run_forge verify --isolated --contain --no-cache -- true 2>/dev/null
can_contain=0
[ "$rc" -eq 0 ] && can_contain=1
cd "$T" || exit 99

# A random word for a file's content.
word() {
	gen_rand 4
	case $R in
	0) W=alpha ;;
	1) W=beta ;;
	2) W=gamma ;;
	*) W=delta ;;
	esac
}

# edit [N]: one random change (move N, if given), said in $did.
edit() {
	gen_rand 27
	[ $# -eq 0 ] || R=$1
	case $R in
	0 | 1 | 2)
		gen_rand 6
		set -- a/f b/f src/x.c top.txt new.txt a/new.txt
		shift $R
		word
		mkdir -p "$(dirname "$1")"
		printf '%s\n' "$W" >>"$1"
		did="append $W to $1" ;;
	3)
		gen_rand 4
		set -- a/f b/f new.txt a/new.txt
		shift $R
		rm -f "$1"
		did="rm $1" ;;
	4) git add -A >/dev/null 2>&1; did="git add -A" ;;
	5)
		gen_rand 3
		set -- a/f top.txt new.txt
		shift $R
		git add -- "$1" >/dev/null 2>&1
		did="git add $1" ;;
	6) git reset -q >/dev/null 2>&1; did="git reset" ;;
	7) git commit -q -m "c$i" >/dev/null 2>&1; did="git commit" ;;
	8)
		word
		git commit -q --allow-empty -m "$W" >/dev/null 2>&1
		did="git commit --allow-empty -m $W" ;;
	9)
		gen_rand 3
		if [ -f slow ]; then rm slow; did="rm slow"
		elif [ "$R" -eq 0 ]; then echo s >slow; did="make slow"
		else did="(nothing)"; fi ;;
	10)
		if git sparse-checkout list >/dev/null 2>&1 &&
		    [ ! -f b/f ] && [ -n "$(git ls-files b/f)" ]; then
			git sparse-checkout disable >/dev/null 2>&1
			did="sparse-checkout disable"
		else
			git sparse-checkout set a src >/dev/null 2>&1
			did="sparse-checkout set a src"
		fi ;;
	11)
		if [ "$sub" -eq 0 ]; then
			edit
			return
		fi
		if [ -f lib/v ]; then
			git submodule -q deinit -f lib >/dev/null 2>&1
			did="submodule deinit"
		else
			git submodule -q update --init >/dev/null 2>&1
			did="submodule update --init"
		fi ;;
	12)
		gen_rand 3
		set -- "" a src
		shift $R
		cwd=$1
		did="cd /$cwd" ;;
	13)
		gen_rand 4
		case $R in
		0) unset CC; did="unset CC" ;;
		1) CC=gcc; export CC; did="CC=gcc" ;;
		2) CC=clang; export CC; did="CC=clang" ;;
		*) CC=; export CC; did="CC=" ;;
		esac ;;
	14)
		gen_rand 5
		case $R in
		0) stepsfrom=cmd; arg=A ;;
		1) stepsfrom=cmd; arg=B ;;
		2) stepsfrom=config; arg=A ;;
		3) stepsfrom=config; arg=B ;;
		*) stepsfrom=file ;;
		esac
		git config --unset-all forge.verify
		if [ "$stepsfrom" = config ]; then
			git config forge.verify "sh $T/bin/check.sh $arg"
		fi
		if [ "$stepsfrom" = file ]; then
			word
			printf '[forge]\n\tverify = sh %s %s\n' "$T/bin/check.sh" \
			    "$W" >.forgeconfig
			gen_rand 4
			[ "$R" -ne 0 ] && git add .forgeconfig
		fi
		did="steps from $stepsfrom ($arg)" ;;
	15)
		# Once there is one, the setup changes but never goes: an
		# incremental copy keeps what the last one made (build
		# output, forge(1) says), which the check reads.
		if [ -n "$setup" ]; then
			gen_rand 2
			R=$((R + 1))
		else
			gen_rand 3
		fi
		git config --unset-all forge.setup
		case $R in
		0) did="no setup" ;;
		1) setup=S1 ;;
		*) setup=S2 ;;
		esac
		if [ -n "$setup" ]; then
			gen_rand 8
			sflags=
			[ $((R & 1)) -ne 0 ] && sflags=${sflags}t
			[ $((R & 2)) -ne 0 ] && sflags=${sflags}u
			[ $((R & 4)) -ne 0 ] && sflags=${sflags}d
			git config forge.setup \
			    "sh $T/bin/setup.sh $setup ${sflags:-none}"
			gen_rand 2
			if [ "$R" -eq 0 ]; then
				git config forge.setupInputs src/x.c
				did="setup $setup ${sflags:-none}, its input src/x.c"
			else
				git config --unset-all forge.setupInputs
				did="setup $setup ${sflags:-none}, every file its input"
			fi
		fi ;;
	16 | 17 | 18) walk_setting ;;
	19) walk_attributes ;;
	20) walk_symlinks ;;
	21) walk_retarget link a/up ;;
	22)
		if [ "$sub" -eq 0 ] || [ ! -e lib/.git ]; then
			edit
			return
		fi
		word
		gen_rand 2
		set -- lib/v lib/w.txt
		shift $R
		printf '%s\n' "$W" >>"$1"
		did="append $W to $1" ;;
	23)
		# How git converts: an attributes file (ignored here, so
		# added with -f), at the top or in a/, staged or not, gone.
		gen_rand 2
		set -- .gitattributes a/.gitattributes
		shift $R
		gen_rand 5
		case $R in
		0) printf '* text=auto\n' >"$1" ;;
		1) printf '*.txt text eol=crlf\n' >"$1" ;;
		2) printf '* text=auto eol=crlf\n*.c ident\n' >"$1" ;;
		3) rm -f "$1" ;;
		*) git add -f -- "$1" >/dev/null 2>&1 ||
		    git rm -q --cached -- "$1" >/dev/null 2>&1 ;;
		esac
		did="attributes $1 ($R)" ;;
	24)
		gen_rand 3
		case $R in
		0) git config core.autocrlf true ;;
		1) git config core.autocrlf input ;;
		*) git config --unset core.autocrlf ;;
		esac
		did="core.autocrlf ($R)" ;;
	25)
		gen_rand 3
		set -- top.txt a/f src/x.c
		shift $R
		printf 'crlf\r\n' >>"$1"
		did="CRLF appended to $1" ;;
	*)
		if [ "$sub" -eq 0 ]; then
			edit
			return
		fi
		word
		printf '%s\n' "$W" >"$T/lib/v"
		git -C "$T/lib" commit -q -am "$W" >/dev/null 2>&1
		if [ -f lib/v ]; then
			git -C lib pull -q >/dev/null 2>&1
			gen_rand 2
			[ "$R" -eq 0 ] && git add lib
		fi
		did="a new lib commit, pulled" ;;
	esac
}

# flags: the verification's options, drawn afresh each step, into $@ of
# the caller through $flags; $fast is what the first run adds.
draw_flags() {
	flags=
	gen_rand 6
	# With a submodule, a copy of the working state is never cached:
	# trees are drawn more.
	[ "$sub" -eq 1 ] && [ "$R" -eq 2 ] && R=3
	case $R in
	0 | 1 | 2) mode=isolated ;;
	3) mode=staged ;;
	4) mode=rev ;;
	*) mode=rev1 ;;
	esac
	if [ "$mode" = rev1 ] && ! git rev-parse -q --verify HEAD~1 >/dev/null
	then
		mode=rev
	fi
	case $mode in
	isolated) flags=--isolated ;;
	staged) flags=--staged ;;
	rev) flags=--rev=HEAD ;;
	rev1) flags=--rev=HEAD~1 ;;
	esac
	fast=--cache
	gen_rand 4
	case $R in
	0) fast="--cache --incremental" ;;
	1) fast="--cache --reuse" ;;
	esac
	if [ "$mode" = isolated ] && [ "$fast" = --cache ]; then
		gen_rand 2
		[ "$R" -eq 0 ] && flags="$flags --clone"
	fi
	gen_rand 4
	[ "$R" -eq 0 ] && fast="$fast --audit"
	if [ "$can_contain" -eq 1 ]; then
		gen_rand 4
		[ "$R" -eq 0 ] && flags="$flags --contain"
		gen_rand 4
		[ "$R" -eq 0 ] && flags="$flags --no-network"
	fi
	gen_rand 8
	[ "$R" -eq 0 ] && flags="$flags --timeout 3s"
	true
}

failed=0
s=$seed0
while [ "$s" -lt $((seed0 + nseeds)) ]; do
	gen_srand "$s"
	rm -rf "$T/r" "$T/lib"
	# Seeds alternate: with a submodule (its working state never
	# cached), and without.
	sub=$((s % 2))
	if [ "$sub" -eq 1 ]; then
		walk_init "$T/r" lib
	else
		walk_init "$T/r"
	fi
	init_repo "$T/lib"
	echo v1 >"$T/lib/v"
	echo 'a lib' >"$T/lib/w.txt"
	ln -s w.txt "$T/lib/lnk"
	git -C "$T/lib" add -A
	git -C "$T/lib" commit -q -m v1
	init_repo "$T/r"
	cd "$T/r" || exit 99
	mkdir -p a b src
	echo f >a/f
	echo f >b/f
	echo 'int x; /* a */' >src/x.c
	echo 'top data' >top.txt
	ln -s a/f link
	ln -s ../top.txt a/up
	printf 'out/\n*.o\n.*\n!.gitignore\n!.forgeconfig\n!.gitmodules\n' >.gitignore
	git add -A
	if [ "$sub" -eq 1 ]; then
		git submodule -q add "$T/lib" lib >/dev/null 2>&1
	fi
	git commit -q -m init
	git config forge.breakerThreshold 0
	git config forge.containWritable "$T/bin"
	git config --add forge.containWritable "$HOME"
	unset CC
	divs=0
	rc=0
	ncached=0 nreused=0 nerror=0
	cwd=
	setup=
	stepsfrom=cmd
	arg=A
	why=
	log=
	i=1
	while [ "$i" -le "$steps" ]; do
		# A step of its own, at times, for one input the working
		# state does not hold, the flags kept: a cached PASS or a
		# copy the last step left is what answers if forge overlooks
		# it.  Else a few moves, and flags drawn anew.
		gen_rand 2
		focus=$R
		if [ "$i" -gt 1 ] && [ "$rc" -eq 125 ]; then
			# The fresh copy could not verify: one of the walk's
			# settings or attributes files is taken back, so
			# that the one forge cannot prove a copy with soon
			# goes.
			walk_recover
			log="$log$i: $did
"
		fi
		if [ "$i" -gt 1 ] && [ "$focus" -eq 0 ]; then
			# With a submodule, its settings mostly.
			WALK_PREFER_SUB=1
			gen_rand 9
			case $R in
			0 | 1) edit 16 ;;
			2) edit 19 ;;
			3) edit 20 ;;
			4) edit 15 ;;
			5) edit 13 ;;
			6) edit 21 ;;
			7) walk_groups ;;
			*) did="nothing: the same again" ;;
			esac
			WALK_PREFER_SUB=
			log="$log$i: $did (alone)
"
		else
			gen_rand 3
			n=$((R + 1))
			while [ "$n" -gt 0 ]; do
				edit
				log="$log$i: $did
"
				n=$((n - 1))
			done
			draw_flags
			gen_rand 3
			if [ "$R" -eq 0 ]; then
				walk_groups
				log="$log$i: $did
"
			fi
		fi
		set --
		[ "$stepsfrom" = cmd ] && set -- -- sh "$T/bin/check.sh" "$arg"
		cd "$T/r/$cwd" 2>/dev/null || cd "$T/r" || exit 99
		rm -f "$T/bin/digest" "$T/fast.digest" "$T/fresh.digest"
		# shellcheck disable=SC2086 # options, split on purpose
		run_forge verify --exit=verdict $flags $fast "$@"
		a_rc=$rc
		a_err=$err
		mv "$T/bin/digest" "$T/fast.digest" 2>/dev/null
		# shellcheck disable=SC2086
		run_forge verify --exit=verdict $flags --no-cache --no-reuse "$@"
		mv "$T/bin/digest" "$T/fresh.digest" 2>/dev/null
		cd "$T/r" || exit 99
		log="$log$i: verify $flags [$fast] $*: $a_rc, fresh $rc
"
		if [ "$a_rc" != "$rc" ]; then
			why="step $i: verify $flags $fast $*: $a_rc, but fresh: $rc"
			break
		fi
		case $a_err in
		*'Verdict: PASS (cached'*) ncached=$((ncached + 1)) ;;
		*'in a reused'*) nreused=$((nreused + 1)) ;;
		esac
		if [ "$rc" -ge 64 ]; then
			nerror=$((nerror + 1))
			log="$log$i: fresh: $(printf '%s\n' "$err" |
			    grep -v '^forge: \(isolated\|contained\|its output\)' |
			    head -n 2 | tr '\n' ' ')
"
		fi
		if [ "$(walk_divergences "$T/r")" -ne "$divs" ]; then
			why="step $i: verify $flags $fast $*: the audit found a divergence"
			break
		fi
		i=$((i + 1))
	done
	forge gc --all >/dev/null 2>&1
	if [ -z "$why" ]; then
		pass "seed $s: $steps steps ($ncached cached, $nreused reused, $nerror not run), the fast verdict is the fresh one"
	else
		failed=$((failed + 1))
		fail "seed $s: the fast verdict is not the fresh one" \
		    "$why (replay: scripts/fuzz-cache $steps 1 $s)" \
		    "what was done:" "$log" "the fast run said:" "$a_err" \
		    "the fresh run said:" "$err" \
		    "what the command read (- fast, + fresh; none if cached):" \
		    "$(diff -u "$T/fast.digest" "$T/fresh.digest" 2>&1 |
			sed '1,2d' | head -n 40)"
	fi
	cd "$T" || exit 99
	s=$((s + 1))
done

done_testing
