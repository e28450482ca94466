#!/bin/sh
# Nested copies that cannot be parked -- a submodule's whose files git
# converts (attributes of its tree, or untracked ones of its working
# tree's, which the copy of the working state has), and every nested
# copy of a clone -- are not set aside as the top copy is parked, and
# leave no registration in their repository: the next run makes them
# afresh.  One that can be, beside them, is set aside, and keeps its
# registration.
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
new_repo "$T/r"
git config forge.breakerThreshold 0
git -c protocol.file.allow=always submodule -q add "$T/plain-up" plain ||
    exit 99
git -c protocol.file.allow=always submodule -q add "$T/conv-up" conv ||
    exit 99
git -c protocol.file.allow=always submodule -q add "$T/loose-up" loose ||
    exit 99
git commit -q -m subs || exit 99
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

# A copy of a tree has no untracked file: there, the submodule with one
# is parked.
for mode in --reuse "--staged --reuse" "--rev=HEAD --reuse"; do
	loose=0
	[ "$mode" = --reuse ] || loose=1
	run_forge verify $mode -- cat conv/t.txt
	is "$mode: the run passes" "$rc" 0
	is "$mode: the copy is parked, the nested copies that can be set aside" \
	    "$(parked):$(set_aside)" "1:$((1 + loose))"
	is "$mode: the converted submodules' registrations are gone" \
	    "$(registrations conv):$(registrations loose)" "0:$loose"
	is "$mode: the other's stays with its parked copy" \
	    "$(registrations plain)" 1
	run_forge verify $mode -- cat conv/t.txt
	is "$mode: the next run passes" "$rc" 0
	like "$mode: in the reused copy" "$err" "reused"
	is "$mode: its converted file as a checkout writes it" "$out" \
	    "$(printf 't\r')"
	forge gc --all >/dev/null 2>&1
done

# One set aside that cannot be taken back as it is now: attributes
# committed in the submodule since, where a checkout would write its
# files otherwise -- made afresh.  And an entry flagged skip-worktree by
# hand since: its file is in the copy only where the working tree has
# it, as in a fresh one.
run_forge verify --reuse -- true
is "the submodule's copy is set aside" "$(set_aside)" 1
(cd plain && printf '*.txt text eol=crlf\n' >.gitattributes &&
    git add .gitattributes && git commit -q -m crlf) || exit 99
run_forge verify --reuse -- sh -c 'grep -q "$(printf "\r")" plain/p.txt'
is "attributes committed in the submodule since: as a checkout writes it" \
    "$rc" 0
forge gc --all >/dev/null 2>&1
(cd plain && git rm -q --cached .gitattributes && rm .gitattributes &&
    git commit -q -m lf && rm p.txt && git checkout -q p.txt) || exit 99
run_forge verify --reuse -- true
is "set aside again" "$(set_aside)" 1
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
    "$(registrations conv):$(registrations loose):$(registrations plain)" 0:0:0
git config --unset forge.reuse

forge gc --all >/dev/null 2>&1
is "nothing is left behind" "$(leftovers "$T/r")" ""

done_testing
