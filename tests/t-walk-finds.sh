#!/bin/sh
# What the differential walks (t-cache-property.sh, t-reuse-property.sh,
# t-range-property.sh) found, each made small: a fast verdict -- a
# reused or incremental copy's, a cached one -- that is not the verdict
# a fresh copy gives for the same source.  Each check runs the fast
# path, then the same steps with --no-reuse, and compares.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

git config --global forge.breakerThreshold 0
# Under the audit pass (FORGE_TEST_AUDIT), the known bugs below are
# divergences: expected there.
AUDIT_EXPECTED="$T/links/.git $T/retarget/.git $T/ignorestat/.git"
AUDIT_EXPECTED="$AUDIT_EXPECTED $T/eol/.git $T/threshold/.git $T/sparse/.git"

# fast_is_fresh DESCRIPTION MODE FAST [STEP...]: forge verify MODE FAST, then
# MODE --no-reuse: the same status.
fast_is_fresh() {
	_d=$1 _m=$2 _f=$3
	shift 3
	run_forge verify "$_m" "$_f" -- "$@"
	_fast=$rc
	run_forge verify "$_m" --no-reuse -- "$@"
	is "$_d" "$_fast" "$rc"
}

# --- core.symlinks turned off after a copy was parked -----------------
# A copy parked while core.symlinks was true has the tracked symbolic
# link as a link; a fresh copy made with core.symlinks false has a plain
# file holding the target.  The reused one is brought up to date
# without a checkout of that path: its stat data matches the index.
init_repo "$T/links"
cd "$T/links" || exit 99
echo data >f
ln -s f link
git add -A && git commit -q -m links
KNOWN_BUG="a reused copy keeps a tracked symbolic link that core.symlinks=false makes a file"
for mode in --isolated --staged --rev=HEAD; do
	for fast in --reuse --incremental; do
		git config --unset core.symlinks
		forge verify "$mode" "$fast" -- true >/dev/null 2>&1
		git config core.symlinks false
		fast_is_fresh "$mode $fast: core.symlinks set false since: a file, as fresh" \
		    "$mode" "$fast" test ! -L link
		forge gc --all >/dev/null 2>&1
	done
done
KNOWN_BUG=
# Turned on again, the file the copy had is a link: git sees it differ.
forge verify --isolated --incremental -- true >/dev/null 2>&1
git config --unset core.symlinks
fast_is_fresh "core.symlinks back to true: the link is a link, as fresh" \
    --isolated --incremental test -L link

# --- a symbolic link retargeted while core.symlinks is false ---------
# A fresh copy checks the link out as a file, which git apply cannot
# retarget: it stops, an ERROR.  A reused copy takes the working tree's
# link as it is, proves it, and runs the steps.
init_repo "$T/retarget"
cd "$T/retarget" || exit 99
echo a >a
echo b >b
ln -s a lnk
git add -A && git commit -q -m retarget
git config core.symlinks false
KNOWN_BUG="a reused copy takes a retargeted link that a fresh copy under core.symlinks=false cannot"
for fast in --reuse --incremental; do
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	rm lnk
	ln -s b lnk
	fast_is_fresh "$fast, a link retargeted under core.symlinks=false: as fresh" \
	    --isolated "$fast" true
	rm lnk
	ln -s a lnk
	forge gc --all >/dev/null 2>&1
done
KNOWN_BUG=

# --- core.ignoreStat in the repository -------------------------------
# It has git take every file of an index as unchanged (and mark the
# entries it writes so, as git reset does).  A fresh copy has the change
# the proof sees; a reused one is brought up to date by git, which
# believes the index, and keeps the file as the last run had it: the
# steps run on other bytes than the proved tree's.
init_repo "$T/ignorestat"
cd "$T/ignorestat" || exit 99
echo before >f
git add -A && git commit -q -m ignorestat
git config core.ignoreStat true
echo other >f
git add f
git reset -q --hard
KNOWN_BUG="a reused copy is not brought up to date under core.ignoreStat=true"
for fast in --reuse --incremental; do
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	echo after >f
	git add f
	fast_is_fresh "$fast, a staged change under core.ignoreStat: as fresh" \
	    --isolated "$fast" grep -qx after f
	git reset -q --hard
	forge gc --all >/dev/null 2>&1
done
KNOWN_BUG=

# --- an attributes file that normalizes line endings, added ----------
# f was committed with a CRLF line; once info/attributes says
# '* text eol=lf', git takes it as changed (its normalized bytes are
# another blob), and a copy takes it as the working tree has it: with
# forge.copyThreshold 0, copied whole, CR and all.  A copy parked before
# the attributes file came, with a link of the working state's turned
# into a file, and claimed after, has f checked out again: normalized.
init_repo "$T/eol"
cd "$T/eol" || exit 99
printf 'crlf\r\nlf\n' >f
ln -s f l
git add -A && git commit -q -m eol
git config forge.copyThreshold 0
rm l
printf 'a file now\n' >l
sleep 1
KNOWN_BUG="a reused copy normalizes a file a fresh one takes as the working tree has it"
for fast in --reuse --incremental; do
	rm -f .git/info/attributes
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	mkdir -p .git/info
	printf '* text eol=lf\n' >.git/info/attributes
	fast_is_fresh "$fast, '* text eol=lf' added since: f as fresh" \
	    --isolated "$fast" sh -c 'test "$(wc -c <f)" -eq 9'
	forge gc --all >/dev/null 2>&1
done
KNOWN_BUG=

# --- a file git normalizes, patched or copied whole ------------------
# The same working state, copied with forge.copyThreshold 0 (changed
# files copied whole) and without (patched): f has the working tree's
# bytes, CR and all, or git's normalized ones.  The threshold is not in
# the cache key ("which the proof shows the same"), but the steps see
# other bytes: a PASS cached with one is replayed with the other.
init_repo "$T/threshold"
cd "$T/threshold" || exit 99
printf 'crlf\r\nlf\n' >f
git add -A && git commit -q -m threshold
mkdir -p .git/info
printf '* text eol=lf\n' >.git/info/attributes
git config forge.copyThreshold 0
run_forge verify --isolated --cache -- sh -c 'test "$(wc -c <f)" -eq 9'
is "copied whole, f has the working tree's bytes: PASS, cached" "$rc" 0
git config --unset forge.copyThreshold
KNOWN_BUG="a changed file's bytes in a copy depend on forge.copyThreshold, which the cache key leaves out"
fast_is_fresh "patched since: the cached PASS is not replayed" \
    --isolated --cache sh -c 'test "$(wc -c <f)" -eq 9'
run_forge verify --isolated --no-cache -- sh -c 'test "$(wc -c <f)" -eq 9'
is "patched, f has the working tree's bytes too" "$rc" 0
KNOWN_BUG=

# --- a sparse checkout's settings in a reused copy of a tree ----------
# A copy of a tree (--staged, --rev) is never sparse: a fresh one's
# core.sparseCheckout is false.  One parked before the working tree
# went sparse, claimed after, takes the working tree's settings as they
# are now, and is sparse to the git a step runs there.
init_repo "$T/sparse"
cd "$T/sparse" || exit 99
mkdir a b
echo a >a/f
echo b >b/f
git add -A && git commit -q -m sparse
forge verify --staged --reuse -- true >/dev/null 2>&1
git sparse-checkout set a >/dev/null 2>&1
KNOWN_BUG="a reused copy of a tree takes the working tree's sparse checkout"
fast_is_fresh "--staged --reuse, the working tree sparse since: as fresh" \
    --staged --reuse sh -c 'test "$(git config --bool core.sparseCheckout)" != true'
KNOWN_BUG=
forge gc --all >/dev/null 2>&1

done_testing
