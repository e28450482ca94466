#!/bin/sh
# Submodules and reused copies.  A submodule that is not initialized is an
# empty directory in a fresh copy, and in a reused one too, whatever a
# command left in it: it never stops --reuse or --incremental.  Where a
# copy still cannot be reused, one line says why, with or without
# --verbose, and the timeline's event holds the reason.
#
#	SUBMOD_STEPS	how many random states (default 10)
#	SUBMOD_SEED	their seed (default: from the clock, printed)
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

steps=${SUBMOD_STEPS:-10}
seed=${SUBMOD_SEED:-$(( $(date +%s) % 100000 ))}
case $steps$seed in
*[!0-9]*)
	echo "Bail out! SUBMOD_STEPS and SUBMOD_SEED must be numbers"
	exit 1
	;;
esac
echo "# seed $seed (SUBMOD_SEED=$seed reruns it)"

new_repo "$T/subsrc"
new_repo "$T/r"
git config forge.breakerThreshold 0
git config protocol.file.allow always
git -c protocol.file.allow=always submodule -q add "$T/subsrc" lib/sub
git commit -q -m sub
git submodule -q deinit -f lib/sub
rm -rf .git/modules/lib
is "the submodule is not initialized: an empty directory" \
    "$(ls -A lib/sub)" ""

# The command a run does: what the copy holds (every directory too, with
# its mode), then junk in every submodule's directory: files, a .git.
cat >"$T/look.sh" <<'EOF2'
"$TREELIST" -a . | grep -v '^\.forge'
find . -name .git ! -path ./.git
for d in lib/sub lib/sub2 top; do
	[ -d "$d" ] || continue
	echo junk >"$d/junk"
	mkdir -p "$d/.git" "$d/dir"
	chmod 700 "$d"
done
true
EOF2

tree_of_now() {
	cp -p "$(git rev-parse --git-path index)" "$T/now.index"
	GIT_INDEX_FILE="$T/now.index" git add -A &&
	    GIT_INDEX_FILE="$T/now.index" git write-tree | cut -c1-12
}
for mode in --reuse --incremental; do
	forge gc --all >/dev/null 2>&1
	run_forge verify $mode -- sh "$T/look.sh"
	is "$mode, first run: passes" "$rc" 0
	first=$out
	run_forge verify $mode -- sh "$T/look.sh"
	is "$mode, second run: passes" "$rc" 0
	like "$mode, second run: the copy is reused" "$err" \
	    'Verdict: PASS \(isolated, (reused|incremental), (audited, )?tree'
	is "$mode, second run: not a fresh copy" "$(printf '%s\n' "$err" |
	    grep -v '^forge: audit:' | grep -c 'fresh\|ephemeral copy (')" 0
	like "$mode: said so" "$err" 'running verification in a reused'
	unlike "$mode: no word of not reusing it" "$err" 'not reused'
	like "$mode: proved the working state's tree, the submodule's too" \
	    "$err" "tree $(tree_of_now)"
	run_forge verify $mode -- sh "$T/look.sh"
	like "$mode, third run: the same" "$err" "tree $(tree_of_now)"
	is "$mode: the submodule's directory as a fresh copy has it" \
	    "$out" "$first"
done
like "the listing has the empty directory" "$out" 'lib/sub	d'

# The random walk: every reused run's copy is a fresh one's.  A gitlink
# added or removed is committed at once: a fresh copy cannot replay one
# that is only staged (git apply leaves the copy's index alone).
git config core.fileMode true
rand=$seed
commit=$(git rev-parse HEAD)
run_forge verify --reuse -- true
step=1
gone_reuse=0 gone_incremental=0
gitlinks() { git ls-files -s | sed -n 's/^160000 [0-9a-f]* 0	//p'; }
while [ "$step" -le "$steps" ]; do
	gitlinks >"$T/links.before"
	lcg_next 8
	case $R in
	0) printf 'edit %s\n' "$step" >>hello.txt ;;
	1) mkdir -p lib/sub2 && git update-index --add --cacheinfo \
	    "160000,$commit,lib/sub2" && git commit -q -m "step $step" ;;
	2) git rm -q --cached lib/sub2 >/dev/null 2>&1 &&
	    git commit -q -m "step $step"; rm -rf lib/sub2 ;;
	3) git add -A >/dev/null 2>&1 &&
	    git commit -q -m "step $step" >/dev/null 2>&1 ;;
	4) rm -rf lib/sub ;;
	5) mkdir -p lib/sub ;;
	6) mkdir -p top && git update-index --add --cacheinfo \
	    "160000,$commit,top" 2>/dev/null &&
	    git commit -q -m "step $step" ;;
	7) git ls-files -s | grep -q '^160000 .*	lib/sub$' &&
	    git update-index --cacheinfo \
	    "160000,$(git rev-parse "HEAD~$((step % 2))"),lib/sub" &&
	    git commit -q -m "step $step" ;;
	esac
	gitlinks >"$T/links.after"
	if [ -n "$(comm -23 "$T/links.before" "$T/links.after")" ]; then
		gone_reuse=1 gone_incremental=1
	fi
	lcg_next 2
	mode=--reuse
	[ "$R" -eq 1 ] && mode=--incremental
	run_forge verify --isolated --no-reuse -- sh "$T/look.sh"
	fresh="$rc $out"
	run_forge verify $mode -- sh "$T/look.sh"
	is "seed $seed, step $step ($mode): the copy is a fresh one's" \
	    "$rc $out" "$fresh"
	like "seed $seed, step $step ($mode): the working state's tree" \
	    "$err" "tree $(tree_of_now)"
	# A gitlink gone since the copy's last run, whose directory that
	# run's command made a repository of: git will not look past that
	# .git, and the copy is built afresh.
	eval "gone=\$gone_${mode#--}"
	if [ "$gone" -eq 0 ]; then
		like "seed $seed, step $step ($mode): reused" "$err" \
		    'running verification in a reused'
	fi
	eval "gone_${mode#--}=0"
	step=$((step + 1))
done
git reset -q --hard
git rm -q --cached -r --ignore-unmatch top lib/sub2 lib/sub
rm -rf top lib/sub2 lib/sub
mkdir -p lib/sub
git update-index --add --cacheinfo \
    "160000,$(git -C "$T/subsrc" rev-parse HEAD),lib/sub"
git commit -q -m 'the submodule alone' >/dev/null 2>&1

# Initialized, the submodule's copy is parked with the top copy and
# taken back (t-reuse-nested.sh has the rest): nothing to say.
git -c protocol.file.allow=always submodule -q update --init lib/sub
for n in 1 2; do
	run_forge verify --reuse -- true
	is "an initialized submodule, run $n: passes" "$rc" 0
	unlike "run $n: no word of not reusing it" "$err" 'not reused'
done
like "an initialized submodule: the copy is reused" "$err" \
    'running verification in a reused'

# A gitlink the carried index has at the commit the submodule has checked
# out is not written into it again: the source's side rewrites no index
# for it (a wrapper notes each git that would, run in the top).  Once the
# submodule's commit moves, its entry is written, and the tree is the
# working state's.
mkdir -p "$T/gitw"
cat >"$T/gitw/git" <<EOF
#!/bin/sh
case "\$*:\$PWD" in
*"update-index -z --index-info:$T/r")
	echo "\$*" >>"$T/edits" ;;
esac
exec "$(command -v git)" "\$@"
EOF
chmod +x "$T/gitw/git"
echo edit >>hello.txt
run_forge verify --reuse -- true
rm -f "$T/edits"
echo edit >>hello.txt
PATH="$T/gitw:$PATH" run_forge verify --reuse -- true
is "an initialized submodule, its commit as carried: passes" "$rc" 0
like "the copy is reused" "$err" 'running verification in a reused'
ok "its gitlink is not written again" test ! -e "$T/edits"
like "the tree is the working state's" "$err" "tree $(tree_of_now)"
(cd lib/sub && echo moved >moved && git add moved && git commit -q -m moved)
PATH="$T/gitw:$PATH" run_forge verify --reuse -- true
is "its commit moved: passes" "$rc" 0
ok "its gitlink is written" test -s "$T/edits"
like "the tree is the working state's, at the new commit" "$err" \
    "tree $(tree_of_now)"
rm -f "$T/edits"
echo edit >>hello.txt
PATH="$T/gitw:$PATH" run_forge verify --reuse -- true
ok "the run after: not written again" test ! -e "$T/edits"
like "its tree the working state's still" "$err" "tree $(tree_of_now)"
git checkout -q hello.txt
git submodule -q deinit -f lib/sub
rm -rf .git/modules/lib

# A nested repository: the same.
git init -q nest
(cd nest && echo n >n && git add n && git commit -q -m n)
run_forge verify --incremental -- true
run_forge verify --incremental -- true
like "a nested repository: the copy is reused" "$err" \
    'running verification in a reused'
unlike "a nested repository: no word of not reusing it" "$err" \
    'not reused'
rm -rf nest

# A sparse checkout, a private clone: not reused, said every run.
if git_at_least 2 36; then
	git sparse-checkout init >/dev/null 2>&1 &&
	    git sparse-checkout set src >/dev/null 2>&1
	run_forge verify --reuse -- true
	like "a sparse checkout: said" "$err" \
	    'forge: not reused: a sparse checkout \(see forge\(1\)\)'
	git sparse-checkout disable >/dev/null 2>&1
fi
git config forge.reuse true
git config forge.isolation clone
for n in 1 2; do
	run_forge verify --isolated -- true
	like "a private clone, run $n: one line says why it is not reused" \
	    "$err" 'forge: not reused: a private clone \(see forge\(1\)\)'
	is "run $n: once" "$(printf '%s\n' "$err" | grep -c 'not reused')" 1
done
git config --unset forge.isolation
git config --unset forge.reuse
run_forge log --json
like "the event holds the reason" "$out" '"not_reused":"a private clone"'
run_forge status
like "forge status says it" "$out" 'last copy not reused: a private clone'
# An old event, without the reason: the readers take it as it is.
run_forge verify --reuse -- true
unlike "reused again: nothing said" "$err" 'not reused'
run_forge status
is "forge status reads an event without one" "$rc" 0
unlike "and says nothing of it" "$out" 'not reused'

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""
done_testing
