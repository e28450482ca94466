#!/bin/sh
# --rev=A..B: each commit of the range verified in turn, in one copy
# carried from commit to commit, each with its own steps and its own
# event; stopped at the first commit that does not pass unless
# --keep-going; --bisect runs only what a binary search needs.  The
# working tree, the index and HEAD stay as they were.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 0
: >"$T/ran"
# Each commit's step notes its subject and fails where "bad" exists.
cat >.forgeconfig <<EOF
[forge]
	verify = $(unaudited "git log -1 --format=%s >>$T/ran") && test ! -f bad
EOF
git add .forgeconfig
git commit -q -m base
base=$(git rev-parse HEAD)
for i in 1 2 3 4 5; do
	printf '%s\n' "$i" >"f$i"
	[ "$i" = 3 ] && printf 'exit 3\n' >bad
	[ "$i" = 4 ] && rm bad
	git add -A
	git commit -q -m "c$i"
done
tip=$(git rev-parse HEAD)
c3=$(git rev-parse HEAD~2)
ran() {
	tr '\n' ' ' <"$T/ran"
	: >"$T/ran"
}

# What the working tree holds, which nothing may touch.
printf 'uncommitted\n' >>hello.txt
git add hello.txt
printf 'unstaged\n' >>f1
printf 'untracked\n' >untracked.txt
mkdir -p build && printf 'ignored\n' >build/out
before=$(state_of "$T/r")

run_forge verify --rev="$base..$tip"
is "the first failing commit's status is forge's" "$rc" 1
is "the commits ran in order, up to the first that fails" "$(ran)" \
    "c1 c2 c3 "
like "a table row for each commit: the failing one named" "$err" \
    "  $(printf '%.12s' "$c3")  FAIL +ran .* c3 \\(.*git log"
like "the ones after it not run" "$err" "  [0-9a-f]{12}  - +not run +- +c5"
like "the table's head counts them" "$err" \
    "Range $base\\.\\.$tip: 5 commits: 2 passed, 1 failed, 0 not verified, 2 not run"
is "one event a commit, each its commit's" \
    "$(tail -n 3 "$tl" | "$JSONPICK" rev verdict | tr '\t\n' ' ,')" \
    "$(git rev-parse HEAD~4) PASS,$(git rev-parse HEAD~3) PASS,$c3 FAIL,"
is "all three of one range" \
    "$(tail -n 3 "$tl" | "$JSONPICK" range | sort -u | wc -l | tr -d ' ')" 1
is "the working tree, index and HEAD are as they were" \
    "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

run_forge verify --rev="$base..$tip" --keep-going
is "--keep-going: every commit runs" "$(ran)" "c1 c2 c3 c4 c5 "
is "the status is still the first failing commit's" "$rc" 1
like "and the table says so" "$err" \
    "5 commits: 4 passed, 1 failed, 0 not verified, 0 not run"

# --jobs: the same verdicts, each commit's output whole.
run_forge verify --rev="$base..$tip" --keep-going --jobs 3
is "--jobs 3 fails as --jobs 1 does" "$rc" 1
is "every commit ran once" "$(sort "$T/ran" | tr '\n' ' ')" "c1 c2 c3 c4 c5 "
: >"$T/ran"
is "with the same verdicts, one event each" \
    "$(tail -n 5 "$tl" | "$JSONPICK" rev verdict | sort)" \
    "$(tail -n 10 "$tl" | head -n 5 | "$JSONPICK" rev verdict | sort)"
is "each commit's output whole: its verdict line right after its own" \
    "$(printf '%s\n' "$err" | awk '/^forge: commit / { n = $5 }
	/^Verify: / { print n }' | tr '\n' ' ')" \
    "$(printf '%s\n' "$err" | awk '/^forge: commit / { print $5 }' |
    tr '\n' ' ')"
like "and the table in order" "$err" "c1
.*c2
.*c3
.*c4
.*c5"
run_forge verify --rev="$base..$tip" --keep-going --exit=verdict
is "--exit=verdict: the worst verdict" "$rc" 1
: >"$T/ran"

# A bad commit's own status.
git config forge.verify 'test ! -f bad || sh bad'
run_forge verify --rev="$base..$tip"
is "the status is the failing step's own" "$rc" 3
: >"$T/ran"
git config --unset forge.verify

# --bisect: a binary search for the first failing commit.
run_forge verify --rev="$base..$tip" --bisect
is "--bisect fails as the first failing commit does" "$rc" 1
is "it ran two of five commits" "$(ran)" "c3 c2 "
like "it names the first failing commit" "$err" \
    "first failing commit is $(printf '%.12s' "$c3"); 2 of 5 commits ran, 1 before it inferred to pass"
like "the one before it inferred, not measured" "$err" \
    "  [0-9a-f]{12}  PASS +inferred +- +c1"
like "the ones it ran shown as run" "$err" \
    "  [0-9a-f]{12}  PASS +ran .* c2"
like "those after it not run" "$err" "  [0-9a-f]{12}  - +not run +- +c4"
is "only what ran is recorded" \
    "$(tail -n 2 "$tl" | "$JSONPICK" verdict | tr '\n' ' ')" "FAIL PASS "
run_forge verify --rev="$base..$tip~3" --bisect
is "--bisect of a good range passes" "$rc" 0
like "and says nothing failed" "$err" "no failing commit found; 1 of 2 commits ran, 1 inferred to pass"
: >"$T/ran"

# Usage.
run_forge verify --rev="$tip..$tip"
is "a range of no commit is a usage error" "$rc" 64
like "said so" "$err" "the range holds no commit"
run_forge verify --rev="$tip..nosuch"
is "a range git cannot resolve too" "$rc" 64
run_forge verify --rev=HEAD --keep-going
is "--keep-going needs a range" "$rc" 64
run_forge verify --rev="$base..$tip" --bisect --keep-going
is "--bisect and --keep-going conflict" "$rc" 64
run_forge verify --rev="$base..$tip" --keep
is "--keep keeps no range's copy" "$rc" 64
run_forge verify --rev=HEAD --jobs 2
is "--jobs needs a range" "$rc" 64
run_forge verify --rev="$base..$tip" --jobs 0
is "--jobs 0 is no number of commits" "$rc" 64
run_forge verify --rev="$base..$tip" --jobs 2 --bisect
is "--bisect and --jobs conflict" "$rc" 64
run_forge verify --rev="$base..$tip" --reuse
is "a range's copy is not parked" "$rc" 64
is "nothing of it ran" "$(ran)" ""

is "the working tree, index and HEAD are still as they were" \
    "$(state_of "$T/r")" "$before"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# Each commit's steps are its own .forgeconfig's; a merge is verified
# like any commit, and --first-parent follows first parents only.
new_repo "$T/s"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
step() {
	printf '[forge]\n\tverify = %s\n' "$(unaudited "echo $1 >>$T/ran")" \
	    >.forgeconfig
	git add .forgeconfig
	git commit -q -m "$1"
}
step one
step two
git checkout -q -b side
printf 'side\n' >side.txt
git add side.txt
step side
git checkout -q main
step three
# Both changed .forgeconfig: the merge commit says what it is.
git merge -q --no-commit side >/dev/null 2>&1
step merged
run_forge verify --rev="$start..main"
is "every commit ran, the merge too" "$rc" 0
is "each with the steps its own .forgeconfig says" "$(ran)" \
    "one two side three merged "
like "the merge is in the table" "$err" "  [0-9a-f]{12}  PASS +ran .* merged"
run_forge verify --rev="$start..main" --first-parent
is "--first-parent leaves the side branch out" "$(ran)" \
    "one two three merged "

# The cache: a commit whose tree passed under the same key is not run.
run_forge verify --rev="$start..main" --first-parent --cache
is "a first run with --cache runs them all" "$(ran)" \
    "one two three merged "
run_forge verify --rev="main~1" --cache
is "a --rev run of one of them is cached too" "$rc $(ran)" "0 "
run_forge verify --rev="$start..main" --cache
is "the range again runs only what is not cached" "$rc $(ran)" "0 side "
like "cached commits are shown as cached" "$err" \
    "  [0-9a-f]{12}  PASS +cached +- +two"
is "and recorded as cached, of the range" \
    "$(tail -n 5 "$tl" | "$JSONPICK" event | sort | uniq -c | tr -s ' ')" \
    " 4 cached
 1 verify"
run_forge verify --rev="$start..main" --cache --incremental
is "an incremental run is of another key" "$(ran)" \
    "one two side three merged "

# A commit that cannot be checked out (a blob missing) is an ERROR, named.
{
	git ls-tree HEAD
	printf '100644 blob %s\tghost\n' \
	    "$(printf 'gone\n' | git hash-object --stdin)"
} >"$T/tree"
ghost=$(git commit-tree -p HEAD -m ghost "$(git mktree --missing <"$T/tree")")
after=$(git commit-tree -p "$ghost" -m after "$(git rev-parse 'HEAD^{tree}')")
before=$(state_of "$T/s")
run_forge verify --rev="HEAD..$after"
is "a commit that cannot be checked out stops the range" \
    "$rc $(ran | wc -w | tr -d ' ')" "125 0"
like "an ERROR, named in the table" "$err" \
    "  $(printf '%.12s' "$ghost")  ERROR +ran .* ghost \\(forge could not build"
run_forge verify --rev="HEAD..$after" --keep-going
is "--keep-going goes past it: the next commit runs" "$rc $(ran)" "125 merged "
is "recorded as ERROR, then PASS" \
    "$(tail -n 2 "$tl" | "$JSONPICK" rev verdict | tr '\t\n' ' ,')" \
    "$ghost ERROR,$after PASS,"
run_forge log -n 2
like "forge log shows the range as one group, its first failure's verdict" \
    "$out" "^[0-9TZ:-]+ +- +range +ERROR .* - +2 commits, 1 passed"
like "then each commit, indented, its id first" "$out" \
    "^  [0-9TZ:-]+ +- +rev +ERROR .* $(printf '%.12s' "$ghost") forge could"
like "the passing one too" "$out" \
    "^  [0-9TZ:-]+ +- +rev +PASS .* $(printf '%.12s' "$after") .*echo merged"
is "the working tree, index and HEAD are as they were" \
    "$(state_of "$T/s")" "$before"
is "nothing is left behind" "$(leftovers "$T/s")" ""
done_testing
