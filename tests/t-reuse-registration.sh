#!/bin/sh
# A reused copy's registration -- its git dir, .git/worktrees/<id>, which
# every git run in the copy reads -- is the one git worktree add would
# make now: config.worktree as the working tree's is (worktree add copies
# it), commondir naming the repository, no refs, reflog entries, sparse
# patterns or state of its own that a command left there.  What a
# command wrote there is undone; the working tree's settings are read
# afresh.  Each run's verdict is the one a fresh copy gives.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
git config forge.cache false

# agree DESCRIPTION CMD: the command run in a reused copy (after a run
# that parks one) and in an incremental one gives the verdict a fresh
# copy gives, which must be want.
agree() {
	_d=$1
	_want=$2
	shift 2
	run_forge verify --no-reuse --isolated -- sh -c "$1"
	is "$_d: a fresh copy" "$rc" "$_want"
	for _how in --reuse --incremental; do
		run_forge verify "$_how" -- sh -c "$1"
		run_forge verify "$_how" -- sh -c "$1"
		like "$_d: $_how, reused" "$err" 'in a reused'
		is "$_d: $_how, the same verdict" "$rc" "$_want"
	done
	forge gc --all >/dev/null 2>&1
}

# A command's own settings in its registration, and the repository's
# worktree configuration on, as git config --worktree would need.
git config extensions.worktreeConfig true
MARK='n=$(git config test.mark); git config --worktree test.mark set;
    test -z "$n"'
agree "a setting a command left in config.worktree" 0 "$MARK"

# The working tree's own config.worktree, which worktree add copies (git
# 2.36 and later), as it is now, not as it was when the copy was made.
WANT='test "$(git config test.mark)" = yes'
git config --worktree test.mark yes
if git_at_least 2 36; then
	agree "the working tree's config.worktree" 0 "$WANT"
	for change in "test.mark no" "--unset test.mark"; do
		git config --worktree test.mark yes
		run_forge verify --reuse -- sh -c "$WANT"
		run_forge verify --incremental -- sh -c "$WANT"
		# shellcheck disable=SC2086 # the words of the change
		git config --worktree $change
		run_forge verify --reuse -- sh -c "$WANT"
		is "git config --worktree $change since: --reuse fails" \
		    "$rc" 1
		run_forge verify --incremental -- sh -c "$WANT"
		is "and --incremental" "$rc" 1
		run_forge verify --no-reuse --isolated -- sh -c "$WANT"
		is "as a fresh copy does" "$rc" 1
		forge gc --all >/dev/null 2>&1
	done
else
	# Older, a fresh copy has none, and a reused one neither.
	agree "the working tree's config.worktree: none in a copy" 1 "$WANT"
	git config --worktree --unset test.mark
fi
# What worktree add leaves out of its copy: core.bare, core.worktree --
# which forge sets to the copy, as the shared one would apply there.
if git_at_least 2 36; then
	git config --worktree core.worktree "$T/r"
	git config --worktree test.mark yes
	BARE="test \"\$(git config core.worktree)\" != '$T/r' &&
	    test \"\$(git rev-parse --show-toplevel)\" = \"\$(pwd -P)\" &&
	    test \"\$(git config test.mark)\" = yes"
	agree "core.worktree is not copied" 0 "$BARE"
	git config --worktree --unset core.worktree
	git config --worktree --unset test.mark
else
	skip "core.worktree is not copied" "git before 2.36"
fi
# Off, git reads no config.worktree: none is left in the copy either.
git config --unset extensions.worktreeConfig
LEFT='! test -e "$(git rev-parse --git-dir)/config.worktree";
    st=$?; echo "[test]" >"$(git rev-parse --git-dir)/config.worktree";
    exit $st'
agree "without worktree configuration, no config.worktree" 0 "$LEFT"

# An incremental copy's ignored file a command hid with core.excludesFile
# in its registration: a fresh copy does not have it.
git config extensions.worktreeConfig true
mkdir -p lib
printf 'int a;\n' >lib/a.c
git add lib && git commit -q -m lib
HIDE='n=$(ls lib | wc -l); echo extra >lib/extra.c;
    echo lib/extra.c >"$PWD/../excl";
    git config --worktree core.excludesFile "$PWD/../excl"; test "$n" -eq 1'
run_forge verify --incremental -- sh -c "$HIDE"
run_forge verify --incremental -- sh -c "$HIDE"
is "a file hidden by the registration's own excludesFile is not kept" \
    "$rc" 0
forge gc --all >/dev/null 2>&1
git config --unset extensions.worktreeConfig

# commondir pointed at a git dir of the command's own, with other
# settings: the registration names the repository again.
REDIRECT='adm=$(git rev-parse --absolute-git-dir);
    n=$(git config test.mark);
    if [ ! -d "$TMPDIR/../evil" ]; then
        cp -a "$(git rev-parse --git-common-dir)" "$TMPDIR/../evil" &&
        git --git-dir="$TMPDIR/../evil" config test.mark evil; fi;
    (cd "$TMPDIR/../evil" && pwd) >"$adm/commondir"; test -z "$n"'
agree "a commondir a command redirected" 0 "$REDIRECT"
is "the repository's own config is untouched" \
    "$(git config test.mark || echo unset)" unset

# Refs of the copy's own (refs/worktree/, refs/bisect/, refs/rewritten/),
# reflog entries, ORIG_HEAD, state in progress, sparse patterns: none
# survives into the next run.
REFS='adm=$(git rev-parse --git-dir);
    n=$(git for-each-ref refs/worktree refs/bisect refs/rewritten | wc -l);
    l=$(git reflog | wc -l); o=$(git rev-parse ORIG_HEAD);
    git update-ref refs/worktree/mine HEAD;
    git update-ref refs/bisect/bad HEAD;
    git update-ref refs/rewritten/x HEAD;
    git commit -q --allow-empty -m more; git update-ref ORIG_HEAD HEAD;
    git checkout -q --detach HEAD~1;
    mkdir -p "$adm/info"; echo "/src/" >"$adm/info/sparse-checkout";
    git rev-parse HEAD >"$adm/REBASE_HEAD";
    test "$n $l $o" = "0 1 $(git rev-parse HEAD)"'
agree "refs, reflog entries, ORIG_HEAD a command left" 0 "$REFS"

# The registration as a whole: the same files as a fresh one's.
LIST='adm=$(git rev-parse --git-dir); (cd "$adm" && find . | LC_ALL=C sort |
    grep -v "^\./index$") >"$TMPDIR/../list.$1";
    mkdir -p "$adm/refs/x" "$adm/logs/refs/x" "$adm/sequencer";
    : >"$adm/logs/refs/x/y"; : >"$adm/NOTES_MERGE_REF";
    git rev-parse HEAD >"$adm/REBASE_HEAD"; mkdir -p "$adm/info";
    echo "/*" >"$adm/info/sparse-checkout"'
run_forge verify --no-reuse --isolated -- sh -c "$LIST" sh fresh
for how in --reuse --incremental; do
	run_forge verify "$how" -- sh -c "$LIST" sh first
	run_forge verify "$how" -- sh -c "$LIST" sh again
	like "$how: reused" "$err" 'in a reused'
	is "$how: the reused registration holds what a fresh one does" \
	    "$(cat "$T/list.again")" "$(cat "$T/list.fresh")"
	forge gc --all >/dev/null 2>&1
done

# The same where refs are a reftable (git 2.45 and later).
if git_at_least 2 45; then
	cd "$T" || exit 99
	git init -q --ref-format=reftable "$T/rt" || exit 99
	cd "$T/rt" || exit 99
	git symbolic-ref HEAD refs/heads/main
	printf 'x\n' >f
	git add f && git commit -q -m f || exit 99
	git config forge.breakerThreshold 0
	agree "reftable: refs, reflog entries, ORIG_HEAD a command left" 0 \
	    "$REFS"
	run_forge verify --no-reuse --isolated -- sh -c "$LIST" sh fresh
	run_forge verify --reuse -- sh -c "$LIST" sh first
	run_forge verify --reuse -- sh -c "$LIST" sh again
	like "reftable: reused" "$err" 'in a reused'
	is "reftable: the reused registration holds what a fresh one does" \
	    "$(grep -v '^\./reftable/' "$T/list.again")" \
	    "$(grep -v '^\./reftable/' "$T/list.fresh")"
	forge gc --all >/dev/null 2>&1
else
	for d in "a fresh copy" "--reuse, reused" "--reuse, the same verdict" \
	    "--incremental, reused" "--incremental, the same verdict" \
	    "reused" "the reused registration"; do
		skip "reftable: $d" "git before 2.45"
	done
fi

is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
