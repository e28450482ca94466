#!/bin/sh
# What the differential walks (t-cache-property.sh, t-reuse-property.sh,
# t-range-property.sh) found, each made small: a fast verdict -- a
# reused or incremental copy's, a cached one -- that was not the verdict
# a fresh copy gives for the same source.  Each check runs the fast
# path, then the same steps with --no-reuse, and compares.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

git config --global forge.breakerThreshold 0

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
# file holding the target.  Brought up to date, the reused one would keep
# its link (its stat data matches the index): under core.symlinks false
# no copy is reused, of the working state or of a tree.
init_repo "$T/links"
cd "$T/links" || exit 99
echo data >f
ln -s f link
git add -A && git commit -q -m links
for mode in --isolated --staged --rev=HEAD; do
	for fast in --reuse --incremental; do
		git config --unset core.symlinks
		forge verify "$mode" "$fast" -- true >/dev/null 2>&1
		git config core.symlinks false
		fast_is_fresh "$mode $fast: core.symlinks set false since: a file, as fresh" \
		    "$mode" "$fast" test ! -L link
		run_forge verify "$mode" "$fast" -- true
		like "$mode $fast: not reused, saying why" "$err" \
		    "forge: not reused: core.symlinks is false"
		is "$mode $fast: nor parked: the one parked before is all" \
		    "$(parked)" 1
		forge gc --all >/dev/null 2>&1
	done
done
# Turned on again, the file the copy had is a link: git sees it differ.
forge verify --isolated --incremental -- true >/dev/null 2>&1
git config --unset core.symlinks
fast_is_fresh "core.symlinks back to true: the link is a link, as fresh" \
    --isolated --incremental test -L link

# --- a symbolic link retargeted while core.symlinks is false ---------
# A fresh copy checks the link out as a file, which git apply cannot
# turn into the link the working tree has: it stops, an ERROR.  A reused
# copy took the working tree's link as it is, proved it, and ran the
# steps.  No copy is reused under core.symlinks false: as fresh.
init_repo "$T/retarget"
cd "$T/retarget" || exit 99
echo a >a
echo b >b
ln -s a lnk
git add -A && git commit -q -m retarget
git config core.symlinks false
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

# --- core.ignoreStat in the repository -------------------------------
# It has git take every file of an index as unchanged (and mark the
# entries it writes so, as git reset does).  A fresh copy has the change
# the proof sees; a reused one, brought up to date by git, which
# believes the index, would keep the file as the last run had it: the
# steps would run on other bytes than the proved tree's.  It is not
# reused.
init_repo "$T/ignorestat"
cd "$T/ignorestat" || exit 99
echo before >f
git add -A && git commit -q -m ignorestat
git config core.ignoreStat true
echo other >f
git add f
git reset -q --hard
for fast in --reuse --incremental; do
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	echo after >f
	git add f
	fast_is_fresh "$fast, a staged change under core.ignoreStat: as fresh" \
	    --isolated "$fast" grep -qx after f
	run_forge verify --isolated "$fast" -- true
	like "$fast: not reused, saying why" "$err" \
	    "forge: not reused: core.ignoreStat is set"
	git reset -q --hard
	forge gc --all >/dev/null 2>&1
done

# --- an attributes file that normalizes line endings, added ----------
# f was committed with a CRLF line; once info/attributes says
# '* text eol=lf', git takes it as changed (its normalized bytes are
# another blob), and a copy takes it as the working tree has it: with
# forge.copyThreshold 0, copied whole, CR and all.  A copy parked before
# the attributes file came, with a link of the working state's turned
# into a file, and claimed after, had f through the patch: normalized
# (the proof, from the index the copy carried, did not single it out as
# changed).  Where git may convert, every change is copied whole.
init_repo "$T/eol"
cd "$T/eol" || exit 99
printf 'crlf\r\nlf\n' >f
ln -s f l
git add -A && git commit -q -m eol
git config forge.copyThreshold 0
rm l
printf 'a file now\n' >l
sleep 1
for fast in --reuse --incremental; do
	rm -f .git/info/attributes
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	mkdir -p .git/info
	printf '* text eol=lf\n' >.git/info/attributes
	# git status, finding f changed while its entry was racy, leaves
	# the entry for git to read f again each time: git diff sees what
	# the attributes make of it, while the index the copy carried says
	# nothing changed.
	git status >/dev/null 2>&1
	fast_is_fresh "$fast, '* text eol=lf' added since: f as fresh" \
	    --isolated "$fast" sh -c 'test "$(wc -c <f)" -eq 9'
	forge gc --all >/dev/null 2>&1
done

# --- a file git normalizes, patched or copied whole ------------------
# The same working state, copied with forge.copyThreshold 0 (changed
# files copied whole) and without (patched): f has the working tree's
# bytes, CR and all, either way: the threshold, which the cache key
# leaves out, changes how the copy is made, never what it holds.
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
fast_is_fresh "patched since: the cached PASS is not replayed" \
    --isolated --cache sh -c 'test "$(wc -c <f)" -eq 9'
run_forge verify --isolated --no-cache -- sh -c 'test "$(wc -c <f)" -eq 9'
is "patched, f has the working tree's bytes too" "$rc" 0

# --- a sparse checkout's settings in a reused copy of a tree ----------
# A copy of a tree (--staged, --rev) is never sparse: a fresh one's
# core.sparseCheckout is false.  One parked before the working tree
# went sparse, claimed after, would take the working tree's settings as
# they are now, and be sparse to the git a step runs there: in a sparse
# checkout no copy is reused, of the working state or of a tree.
init_repo "$T/sparse"
cd "$T/sparse" || exit 99
mkdir a b
echo a >a/f
echo b >b/f
git add -A && git commit -q -m sparse
forge verify --staged --reuse -- true >/dev/null 2>&1
git sparse-checkout set a >/dev/null 2>&1
fast_is_fresh "--staged --reuse, the working tree sparse since: as fresh" \
    --staged --reuse sh -c 'test "$(git config --bool core.sparseCheckout)" != true'
run_forge verify --staged --reuse -- true
like "not reused, saying why" "$err" "forge: not reused: a sparse checkout"
forge gc --all >/dev/null 2>&1


# --- a conflict whose side is a link, under core.symlinks false -------
# The source's git add takes the mode of the conflict's stage 2, a link's,
# and hashes the file as the link's target; a copy that does not keep
# ignored files of its own started from HEAD's entry, a file's, and its
# proof failed, where an incremental copy's passed (the conflict's entry
# put in first there).
init_repo "$T/conflink"
cd "$T/conflink" || exit 99
git config core.symlinks false
printf 'data\n' >f1
git add f1 && git commit -q -m base
base=$(git rev-parse :f1)
l2=$(printf 'a/b' | git hash-object -w --stdin)
l3=$(printf 'c/d' | git hash-object -w --stdin)
printf '0 %s\tf1\n100644 %s 1\tf1\n120000 %s 2\tf1\n120000 %s 3\tf1\n' \
    0000000000000000000000000000000000000000 "$base" "$l2" "$l3" |
    git update-index --index-info
printf 'resolved\n' >f1
run_forge verify --isolated --no-reuse -- true
is "a fresh copy is proved" "$rc" 0
fast_is_fresh "an incremental one, as fresh" --isolated --incremental true
forge gc --all >/dev/null 2>&1
# --- a blob its attributes do not convert back to, and staged changes -
# mixed.txt's blob has a CRLF line and ends without a CR; under
# "* text eol=crlf" a checkout writes it with a CRLF at its end, which
# git, reading the file again, would store as another blob.  The source
# keeps the entry git took as clean.  The copy's side of the proof
# started from the copy's index whenever it was ready, after or before
# the copy was staged as the source is (git update-index, which read
# again the entries as recent as the index, to the second, and marked
# that one changed): a fresh copy was refused at times, or always
# where the source's side was slow (a clean filter), as here.  It
# starts from the index as the checkout left it.
init_repo "$T/unround"
cd "$T/unround" || exit 99
printf 'crlf line\r\nlone cr\rin the middle\n' >mixed.txt
echo a >staged.txt
git add -A && git commit -q -m base
# The source's entries older than its index, to the second: clean.
sleep 1
git update-index --refresh >/dev/null 2>&1
printf '* text eol=crlf\nslow.dat filter=slow\n' >.git/info/attributes
git config filter.slow.clean 'sleep 1; cat'
echo slow >slow.dat
echo b >staged.txt
git add staged.txt 2>/dev/null
k=0
for i in 1 2 3; do
	run_forge verify --isolated --no-reuse -- true
	[ "$rc" -eq 0 ] && k=$((k + 1))
done
is "a checkout's entry git would read as changed: fresh copies proved" \
    "$k" 3
unlike "nothing refused" "$err" "not the working state"
forge gc --all >/dev/null 2>&1
# --- a setting git reads only as it locks a ref ------------------------
# core.filesRefLockTimeout with a value git cannot read: git worktree
# add fails as it sets a fresh copy's HEAD, an ERROR.  A reused copy
# whose HEAD was there already had git leave its HEAD alone, and gave a
# verdict.  Its HEAD is set by git every run.
init_repo "$T/reflock"
cd "$T/reflock" || exit 99
echo data >f
git add f && git commit -q -m base
for fast in --reuse --incremental; do
	git config --unset core.filesRefLockTimeout
	forge verify --isolated "$fast" -- true >/dev/null 2>&1
	git config core.filesRefLockTimeout lib
	fast_is_fresh "$fast: a ref's lock git cannot read the settings of: as fresh" \
	    --isolated "$fast" true
	is "$fast: an ERROR" "$rc" 125
done
git config --unset core.filesRefLockTimeout
forge gc --all >/dev/null 2>&1
# --- how git converts changed, the tree not ----------------------------
# Setup reads a tracked file; forge.setupInputs is not set, so every file
# is its input, which the tree ids stood for.  An attributes file outside
# the tree (info/attributes) then has git check the file out with CRLF
# line endings: the same tree, other bytes.  The incremental copy, its
# files written again as git now converts them, skipped setup, and its
# steps read what setup had made of the old bytes.
init_repo "$T/convsetup"
cd "$T/convsetup" || exit 99
printf 'one\ntwo\n' >in.txt
printf 'out/\n' >.gitignore
git add -A && git commit -q -m base
git config forge.setup 'sh -c "mkdir -p out && cksum <in.txt >out/sum"'
check='cksum <in.txt | cmp -s - out/sum'
forge verify --incremental -- sh -c "$check" >/dev/null 2>&1
printf '* text eol=crlf\n' >.git/info/attributes
fast_is_fresh "setup's input converted otherwise: incremental, as fresh" \
    --isolated --incremental sh -c "$check"
is "the fresh verdict: setup's output is of the file as the copy has it" \
    "$rc" 0
# The same for a copy of a tree.
for mode in --staged --rev=HEAD; do
	rm -f .git/info/attributes
	forge verify "$mode" --incremental -- sh -c "$check" >/dev/null 2>&1
	printf '* text eol=crlf\n' >.git/info/attributes
	fast_is_fresh "$mode: setup's input converted otherwise: as fresh" \
	    "$mode" --incremental sh -c "$check"
	is "$mode: the fresh verdict" "$rc" 0
done
rm -f .git/info/attributes
forge gc --all >/dev/null 2>&1
done_testing
