#!/bin/sh
# The property, for ranges: over random stacks of commits (files written,
# broken, mended and removed, some with CRLF; attributes files that turn
# their directory's line endings, its blobs the same; some stacks with
# core.autocrlf; the steps changed on the way), each commit's verdict in
# a range -- its copy carried, incremental or not, cached or not, N
# commits at once (--jobs) or one -- is the verdict of that commit
# verified alone in a fresh copy with --rev --no-cache.  Each run's steps
# leave junk behind and fail if they find any of the last commit's (an
# ignored .gitattributes among it, which would have git write CRLF), or
# by the text files' bytes.  --bisect's measured verdicts are the fresh ones
# too, and the commit it names fails where the one before it passes.
#
#	RANGE_STACKS	how many stacks (default 3)
#	RANGE_SEED	the generator's seed (default 1)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

stacks=${RANGE_STACKS:-3}
seed=${RANGE_SEED:-1}
case $stacks$seed in
*[!0-9]*)
	echo "Bail out! RANGE_STACKS and RANGE_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (RANGE_SEED=$seed RANGE_STACKS=$stacks to replay)"

R=$seed
# rand N: R moves on, r is in 0..N-1.
rand() {
	R=$(((R * 1103515245 + 12345) % 2147483648))
	r=$(((R / 65536) % $1))
}

# The steps: nothing of the last commit's run may be left, and no file
# may say "bad" (strict: nor "fine"), and a third of the text files' bytes
# fail first (their line endings: any byte the copy has wrong changes a
# third of the exit statuses); then junk for the next one.
cat >"$T/check.sh" <<'EOF'
test -z "$(git status --porcelain --untracked-files=all)" || exit 2
sum=$(find . -name '*.txt' ! -path './.git/*' | LC_ALL=C sort |
    xargs cat 2>/dev/null | cksum | cut -d' ' -f1)
[ $((sum % 3)) -ne 0 ] || exit 4
if grep -rqsx bad --include='*.txt' .; then exit 1; fi
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

# stack N: a repository of random commits in $T/sN.
stack() {
	new_repo "$T/s$1"
	git config forge.breakerThreshold 0
	printf 'out/\n/.gitattributes\n' >>.gitignore
	cp "$T/check.sh" check.sh
	mkdir d0 d1
	printf 'fine\n' >d0/f0.txt
	printf '[forge]\n\tverify = sh check.sh\n' >.forgeconfig
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
			0|1) echo "ok $R" >"$f" ;;
			2) echo bad >"$f" ;;
			3) rm -f "$f" ;;
			4) printf 'ok %s\r\n' "$R" >"$f" ;;
			# How git checks out the directory's files, their
			# blobs the same.
			5) printf '*.txt text eol=crlf\n' >"$d/.gitattributes" ;;
			6) printf '*.txt text=auto\n' >"$d/.gitattributes" ;;
			7) rm -f "$d/.gitattributes" ;;
			*) echo fine >"$f" ;;
			esac
		done
		rand 4
		if [ "$r" = 0 ]; then
			rand 2
			printf '[forge]\n\tverify = sh check.sh%s\n' \
			    "$([ "$r" = 0 ] && echo ' strict')" >.forgeconfig
		fi
		git add -A
		git commit -q --allow-empty -m "c$i"
	done
}

# range_verdicts FILE N: the last N events' commits, verdicts and exit
# statuses (a cached PASS has none: 0).
range_verdicts() {
	tail -n "$2" .git/forge/timeline.jsonl |
	    "$JSONPICK" rev verdict status |
	    sed 's/	PASS	-$/	PASS	0/' >"$1"
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
	: >"$T/fresh"
	for c in $(git rev-list --reverse "$base..HEAD"); do
		forge verify --rev="$c" --no-cache >/dev/null 2>&1
		range_verdicts "$T/one" 1
		cat "$T/one" >>"$T/fresh"
	done
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
	is "stack $s: nothing is left behind" "$(leftovers "$T/s$s")" ""
done
done_testing
