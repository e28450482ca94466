#!/bin/sh
# The property, for ranges: over random stacks of commits (files written,
# broken, mended and removed, some with CRLF; attributes files that turn
# their directory's line endings, its blobs the same; some stacks with
# core.autocrlf; the steps and the setup steps changed on
# the way, a tracked symbolic link retargeted, a submodule added and its
# commit moved), each commit's verdict in a range -- its copy carried,
# incremental or not, cached or not, N commits at once (--jobs) or one --
# is the verdict of that commit verified alone in a fresh copy with --rev
# --no-cache.  Then, round after round, one input the commits do not
# hold changes (tests/walk-moves.sh: a setting in any scope or in the
# submodule, an info/attributes file, core.symlinks, the groups forge
# runs with as root), and the range, cached, incremental and audited,
# gives each commit's fresh verdict under it: no cached PASS, no parked
# copy answers for what changed.  --bisect's measured verdicts are the
# fresh ones too, and the commit it names fails where the one before it
# passes.
#
# Each run's steps leave junk behind and fail if they find any of the
# last commit's (an ignored .gitattributes among it, which would have git
# write CRLF), if a file says "bad", if the setup's build output, the
# file it writes, the tracked one it appends to or the one it deletes are
# not as the commit's setup makes them, if the tracked symbolic link is
# a plain file, and for one commit in four by a digest of the settings
# git lists in the copy, the groups and the commit.
#
#	RANGE_STACKS	how many stacks (default 2)
#	RANGE_ROUNDS	how many changed inputs per stack (default 1)
#	RANGE_SEED	the generator's seed (default 4)
#
# scripts/fuzz-walk range runs the walk at length, over many seeds.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-gen.sh"
. "$top_srcdir/tests/walk-moves.sh"

stacks=${RANGE_STACKS:-2}
rounds=${RANGE_ROUNDS:-1}
seed=${RANGE_SEED:-4}
case $stacks$rounds$seed in
*[!0-9]*)
	echo "Bail out! RANGE_STACKS, RANGE_ROUNDS and RANGE_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (RANGE_SEED=$seed RANGE_STACKS=$stacks" \
    "RANGE_ROUNDS=$rounds to replay)"

rstate=$seed
# rand N: rstate moves on, r is in 0..N-1.
rand() {
	rstate=$(((rstate * 1103515245 + 12345) % 2147483648))
	r=$(((rstate / 65536) % $1))
}
# The moves of walk-moves.sh draw from their own generator (gen_rand,
# into R).
gen_srand "$((seed + 7))"

# The steps: nothing of the last commit's run may be left but what
# setup makes, no file may say "bad" (strict: nor "fine"), none of d1/
# or lib/ has CRLF line endings, what setup makes is as it makes it from
# d0/f0.txt, the link is a link, and one commit in four fails by a
# digest of the settings, the groups and the commit, and one in three
# by the text files' bytes (any byte the copy has wrong changes a third
# of the exit statuses); then junk for the next one.
cat >"$T/check.sh" <<'EOF'
test -z "$(git status --porcelain --untracked-files=all -- . \
    ':!gen.txt' ':!t.txt' ':!del.txt')" || exit 2
if grep -rqsx bad --include='*.txt' .; then exit 1; fi
if grep -rqs "$(printf '\r')" --include='*.txt' d1 lib; then exit 4; fi
flags=$(git config -f .forgeconfig forge.setup 2>/dev/null |
    sed -n 's/^sh setup\.sh //p')
if [ -n "$flags" ]; then
	want=$(cat d0/f0.txt 2>/dev/null | cksum)
	[ "$(cat out/stamp 2>/dev/null)" = "$want" ] || exit 6
	case $flags in *u*) [ "$(cat gen.txt 2>/dev/null)" = "$want" ] ||
	    exit 6 ;; esac
	case $flags in *t*) [ "$(grep -c '^set up$' t.txt)" = 1 ] || exit 6 ;; esac
	case $flags in *d*) [ ! -e del.txt ] || exit 6 ;; esac
fi
if git ls-files -s lnk | grep -q '^120000' && [ ! -L lnk ]; then exit 5; fi
sum=$({
	git config -l | grep -v '^core\.worktree='
	[ -e lib/.git ] && git -C lib config -l | grep -v '^core\.worktree='
	id -G | tr ' ' '\n' | sort -n
	git rev-parse HEAD
} | cksum | cut -d' ' -f1)
[ $((sum % 4)) -ne 0 ] || exit 7
sum=$(find . -name '*.txt' ! -path './.git/*' ! -path './lib/*' |
    LC_ALL=C sort | xargs cat 2>/dev/null | cksum | cut -d' ' -f1)
[ $((sum % 3)) -ne 0 ] || exit 8
if [ "${1:-}" = strict ] && grep -rqsx fine --include='*.txt' .; then
	exit 3
fi
echo junk >junk.txt
mkdir -p out && echo built >>out/o
printf '* text eol=crlf\n' >.gitattributes
for f in d0/*.txt d1/*.txt; do
	[ -f "$f" ] && echo tampered >>"$f" && break
done
exit 0
EOF
# The setup: build output from d0/f0.txt's bytes (the input
# forge.setupInputs names, when it names one), and what FLAGS say: t
# appends to a tracked file, u writes an untracked one, d deletes a
# tracked one.
cat >"$T/setup.sh" <<'EOF'
mkdir -p out && cat d0/f0.txt 2>/dev/null | cksum >out/stamp
case $1 in *t*) [ -f t.txt ] && echo 'set up' >>t.txt ;; esac
case $1 in *u*) cat d0/f0.txt 2>/dev/null | cksum >gen.txt ;; esac
case $1 in *d*) rm -f del.txt ;; esac
exit 0
EOF

init_repo "$T/lib"
printf 'ok\n' >"$T/lib/v.txt"
git -C "$T/lib" add -A
git -C "$T/lib" commit -q -m lib

# forgeconfig: the steps, and at times a setup, in .forgeconfig.
forgeconfig() {
	rand 2
	printf '[forge]\n\tverify = sh check.sh%s\n' \
	    "$([ "$r" = 0 ] && echo ' strict')" >.forgeconfig
	rand 3
	[ "$r" = 0 ] && return 0
	rand 8
	_f=
	[ $((r & 1)) -ne 0 ] && _f=${_f}t
	[ $((r & 2)) -ne 0 ] && _f=${_f}u
	[ $((r & 4)) -ne 0 ] && _f=${_f}d
	printf '\tsetup = sh setup.sh %s\n' "${_f:-none}" >>.forgeconfig
	rand 3
	[ "$r" != 0 ] && printf '\tsetupInputs = d0/f0.txt\n' >>.forgeconfig
}

# stack N: a repository of random commits in $T/sN.
stack() {
	new_repo "$T/s$1"
	git config forge.breakerThreshold 0
	printf 'out/\n/.gitattributes\n' >>.gitignore
	cp "$T/check.sh" "$T/setup.sh" .
	mkdir d0 d1
	printf 'fine\n' >d0/f0.txt
	printf 't\n' >t.txt
	printf 'd\n' >del.txt
	ln -s d0/f0.txt lnk
	forgeconfig
	rand 2
	sub=$r
	if [ "$sub" -eq 1 ]; then
		git submodule -q add "$T/lib" lib >/dev/null 2>&1
		walk_init "$T/s$1" lib
	else
		walk_init "$T/s$1"
	fi
	git add -A
	git commit -q -m base
	rand 4
	n=$((r + 4))
	i=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		rand 3
		ops=$((r + 1))
		while [ "$ops" -gt 0 ]; do
			ops=$((ops - 1))
			rand 6
			d=d$((r % 2))
			f=$d/f$r.txt
			rand 9
			case $r in
			0|1) echo "ok $rstate" >"$f" ;;
			2) echo bad >"$f" ;;
			3) rm -f "$f" ;;
			4) printf 'ok %s\r\n' "$rstate" >"$f" ;;
			# How git checks out the directory's files, their
			# blobs the same.
			5) printf '*.txt text eol=crlf\n' >"$d/.gitattributes" ;;
			6) printf '*.txt text=auto\n' >"$d/.gitattributes" ;;
			7) rm -f "$d/.gitattributes" ;;
			*) echo fine >"$f" ;;
			esac
		done
		rand 8
		case $r in
		0 | 1) forgeconfig ;;
		2)
			rand 4
			set -- d0/f0.txt d1/f1.txt nowhere ../out
			shift "$r"
			rm -f lnk
			ln -s "$1" lnk ;;
		3)
			if [ "$sub" -eq 1 ]; then
				rand 4
				if [ "$r" -eq 0 ]; then
					echo bad >"$T/lib/v.txt"
				else
					echo "ok $rstate" >"$T/lib/v.txt"
				fi
				git -C "$T/lib" commit -q -am "lib $rstate"
				git -C lib pull -q >/dev/null 2>&1 </dev/null
			fi ;;
		esac
		git add -A
		git commit -q --allow-empty -m "c$i"
	done
}

# range_verdicts FILE N: the last N commits' verdicts and exit statuses
# (verify and cached events: not the audit's divergences; a cached PASS
# has no status: 0), with the commits.
range_verdicts() {
	grep -E '"event":"(verify|cached)"' .git/forge/timeline.jsonl |
	    tail -n "$2" | "$JSONPICK" rev verdict status |
	    sed 's/	PASS	-$/	PASS	0/' >"$1"
}

# fresh_verdicts: each commit alone in a fresh copy, into $T/fresh.
fresh_verdicts() {
	: >"$T/fresh"
	for c in $(git rev-list --reverse "$base..HEAD"); do
		forge verify --rev="$c" --no-cache --no-reuse >/dev/null 2>&1
		range_verdicts "$T/one" 1
		cat "$T/one" >>"$T/fresh"
	done
}

s=0
while [ "$s" -lt "$stacks" ]; do
	s=$((s + 1))
	stack "$s"
	# Or every file's line endings turned, for the whole stack.
	rand 3
	if [ "$r" = 0 ]; then
		git config core.autocrlf true
		echo "# stack $s: core.autocrlf true"
	fi
	base=$(git rev-list --max-parents=0 HEAD)
	fresh_verdicts
	n=$(wc -l <"$T/fresh" | tr -d ' ')
	echo "# stack $s, fresh: $(cut -f2 "$T/fresh" | tr '\n' ' ')"
	for mode in "" --incremental --cache --cache "--jobs 2" \
	    "--jobs 3 --incremental"; do
		run_forge verify --rev="$base..HEAD" --keep-going $mode
		range_verdicts "$T/range" "$n"
		# In the order they ended: with --jobs, not the range's.
		is "stack $s (seed $seed), ${mode:-carried}: each verdict is the fresh one" \
		    "$(sort "$T/range")" "$(sort "$T/fresh")"
	done
	run_forge verify --rev="$base..HEAD" --bisect
	k=$(printf '%s\n' "$err" | grep -c '^forge: commit ')
	range_verdicts "$T/bisect" "$k"
	is "stack $s (seed $seed), --bisect: what it ran is as fresh" \
	    "$(sort "$T/bisect")" "$(sort "$T/bisect" | grep -Fxf "$T/fresh")"
	first=$(printf '%s\n' "$err" |
	    sed -n 's/.*the first failing commit is \([0-9a-f]*\);.*/\1/p')
	if [ -n "$first" ]; then
		at=$(grep -n "^$first" "$T/fresh" | cut -d: -f1)
		is "stack $s (seed $seed), --bisect names a failing commit" \
		    "$(sed -n "${at}p" "$T/fresh" | cut -f2)" FAIL
		is "stack $s (seed $seed), the one before it passes" \
		    "$( [ "$at" -gt 1 ] && sed -n "$((at - 1))p" "$T/fresh" |
		    cut -f2 || echo PASS)" PASS
	else
		is "stack $s (seed $seed), --bisect found none: the last passes" \
		    "$(tail -n 1 "$T/fresh" | cut -f2)" PASS
	fi
	# Rounds: one input changed, then the range as the fresh copies.
	v=0
	while [ "$v" -lt "$rounds" ]; do
		v=$((v + 1))
		gen_rand 6
		case $R in
		0 | 1) walk_setting ;;
		2) walk_attributes ;;
		3) walk_symlinks ;;
		4) walk_groups ;;
		*) walk_recover ;;
		esac
		what=$did
		fresh_verdicts
		divs=$(walk_divergences "$T/s$s")
		for mode in "--cache --audit" --incremental; do
			run_forge verify --rev="$base..HEAD" --keep-going $mode
			range_verdicts "$T/range" "$n"
			is "stack $s (seed $seed), round $v ($what), $mode: each verdict is the fresh one" \
			    "$(sort "$T/range")" "$(sort "$T/fresh")"
		done
		is "stack $s (seed $seed), round $v: the audit found no divergence" \
		    "$(walk_divergences "$T/s$s")" "$divs"
	done
	FORGE_WRAPPER=$WALK_WRAPPER0
	is "stack $s: nothing is left behind" "$(leftovers "$T/s$s")" ""
done
done_testing
