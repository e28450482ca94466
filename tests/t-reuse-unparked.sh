#!/bin/sh
# Nested copies that cannot be parked -- a submodule's that git checks
# out through a filter command, which cannot be shown to write the same
# bytes twice, and every nested copy of a clone -- are not set aside as
# the top copy is parked, and leave no registration in their repository:
# the next run makes them afresh.  Those that can be, beside them, are
# set aside and keep their registrations -- whose files git converts
# too (attributes of their tree, or untracked ones of their working
# tree's, which the copy of the working state has): the next run checks
# out again what may not be as a checkout writes it.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

init_repo "$T/plain-up"
(cd "$T/plain-up" && printf 'p\n' >p.txt && git add -A &&
    git commit -q -m p) || exit 99
init_repo "$T/loose-up"
(cd "$T/loose-up" && printf 'l\n' >l.txt && git add -A &&
    git commit -q -m l) || exit 99
init_repo "$T/conv-up"
(cd "$T/conv-up" && printf '* text eol=crlf\n' >.gitattributes &&
    printf 't\n' >t.txt && git add -A && git commit -q -m t) || exit 99
init_repo "$T/filt-up"
(cd "$T/filt-up" && printf '*.txt filter=twice\n' >.gitattributes &&
    printf 'f\n' >f.txt && git add -A && git commit -q -m f) || exit 99
new_repo "$T/r"
git config forge.breakerThreshold 0
git -c protocol.file.allow=always submodule -q add "$T/plain-up" plain ||
    exit 99
git -c protocol.file.allow=always submodule -q add "$T/conv-up" conv ||
    exit 99
git -c protocol.file.allow=always submodule -q add "$T/loose-up" loose ||
    exit 99
git -c protocol.file.allow=always submodule -q add "$T/filt-up" filt ||
    exit 99
git commit -q -m subs || exit 99
git -C filt config filter.twice.smudge cat
git -C filt config filter.twice.clean cat
printf '*.txt text eol=crlf\n' >loose/.gitattributes
ok "the submodule's files are converted" grep -q "$(printf '\r')" conv/t.txt

# set_aside: how many nested copies the parked copies keep set aside.
set_aside() {
	ls -A "$TMPDIR"/forge-*/.nested 2>/dev/null | grep -c . || true
}
# registrations NAME: how many worktrees submodule NAME's repository has
# registered.
registrations() {
	ls -A ".git/modules/$1/worktrees" 2>/dev/null | grep -c . || true
}

for mode in --reuse "--staged --reuse" "--rev=HEAD --reuse"; do
	run_forge verify $mode -- cat conv/t.txt
	is "$mode: the run passes" "$rc" 0
	is "$mode: the copy is parked, the nested copies that can be set aside" \
	    "$(parked):$(set_aside)" "1:3"
	is "$mode: the filtered submodule's registration is gone" \
	    "$(registrations filt)" 0
	is "$mode: the others' stay with their parked copies" \
	    "$(registrations plain):$(registrations conv):$(registrations loose)" \
	    1:1:1
	run_forge verify $mode -- sh -c 'cat conv/t.txt && echo sentinel \
	    >>conv/t.txt && git -C conv add t.txt'
	is "$mode: the next run passes" "$rc" 0
	like "$mode: in the reused copy" "$err" "reused"
	is "$mode: its converted file as a checkout writes it" "$out" \
	    "$(printf 't\r')"
	run_forge verify $mode -- cat conv/t.txt
	is "$mode: and again, whatever the last run left" "$out" \
	    "$(printf 't\r')"
	forge gc --all >/dev/null 2>&1
done

# One set aside whose files a checkout would write otherwise now:
# attributes committed in the submodule since -- checked out again.
# And an entry flagged skip-worktree by hand since: its file is in the
# copy only where the working tree has it, as in a fresh one.
run_forge verify --reuse -- true
is "the submodules' copies are set aside" "$(set_aside)" 3
(cd plain && printf '*.txt text eol=crlf\n' >.gitattributes &&
    git add .gitattributes && git commit -q -m crlf) || exit 99
run_forge verify --reuse -- sh -c 'grep -q "$(printf "\r")" plain/p.txt'
is "attributes committed in the submodule since: as a checkout writes it" \
    "$rc" 0
forge gc --all >/dev/null 2>&1
(cd plain && git rm -q --cached .gitattributes && rm .gitattributes &&
    git commit -q -m lf && rm p.txt && git checkout -q p.txt) || exit 99
run_forge verify --reuse -- true
is "set aside again" "$(set_aside)" 3
git -C plain update-index --skip-worktree p.txt && rm plain/p.txt
run_forge verify --reuse -- test ! -e plain/p.txt
is "an entry flagged skip-worktree since: its file only where it is" \
    "$rc" 0
git -C plain update-index --no-skip-worktree p.txt &&
    git -C plain checkout -q p.txt
forge gc --all >/dev/null 2>&1

# A clone is never parked, forge.reuse or not, nor are its nested
# copies.
git config forge.reuse true
run_forge verify --clone -- cat conv/t.txt
is "a clone: the run passes" "$rc" 0
is "no copy parked, none set aside" "$(parked):$(set_aside)" 0:0
is "no registration left" \
    "$(registrations conv):$(registrations loose):$(registrations plain):$(registrations filt)" \
    0:0:0:0
git config --unset forge.reuse

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
