#!/bin/sh
# The copy holds the uncommitted edits of tracked files byte for byte,
# staged or not: text and binary content, missing final newlines, CRLF,
# whitespace that git apply would like to fix, deletions.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/fidelity-lib.sh"

new_repo "$T/r"
printf 'one\ntwo\nthree\n' >text.txt
printf 'no final newline' >nonl.txt
printf 'dos\r\nlines\r\n' >crlf.txt
printf 'plain\n' >ws.txt
# A binary file large enough for git to send a delta.
i=0
while [ $i -lt 2000 ]; do
	printf 'record %d\000\001\377\n' $i
	i=$((i + 1))
done >blob.bin
printf '\000binary\n' >hello.bin
printf 'to be emptied\n' >empty-me.txt
: >empty.txt
git add -A && git commit -q -m content

# Text and binary edits, unstaged.
printf 'four\n' >>text.txt
printf 'still no final newline' >nonl.txt
printf 'now without one' >hello.txt
printf 'dos\r\nmore\r\nlines\r\n' >crlf.txt
printf 'mixed\r\nendings\n\r\n' >>text.txt
printf 'trailing   \n \tspace before tab\n\t \n\nblank at end\n\n\n' >ws.txt
sed 's/^record 1000/RECORD 1000/' blob.bin >blob.new &&	# same size
    cat blob.new >blob.bin && rm blob.new				# in place
printf '\000\001\002\377\376 new binary' >new.bin
printf '\000\001\002\377\376 grown' >>hello.bin
: >empty-me.txt
printf 'no longer empty\n' >empty.txt
is "git sees blob.bin as binary" "$(git diff --numstat -- blob.bin)" \
    "$(printf -- '-\t-\tblob.bin')"
copy_is_working_state "unstaged text and binary edits"

# The same kinds of edits, staged.
new_repo "$T/staged"
printf 'one\ntwo\n' >text.txt
printf 'dos\r\n' >crlf.txt
git add -A && git commit -q -m content
printf 'two and a half' >>text.txt
printf 'dos\r\nmore \r\n \t\r\n' >crlf.txt
printf '\377\000binary\000' >new.bin
printf 'trailing \t \n' >ws.txt
git add -A
copy_is_working_state "staged edits"

# Staged, unstaged and staged-then-edited-again changes side by side;
# intent to add; a file staged as new and then deleted; deletions staged
# and not.
new_repo "$T/index"
for f in staged unstaged both rm-staged rm-unstaged rm-cached recreated; do
	printf '%s: committed\n' $f >$f.txt
done
git add -A && git commit -q -m files
printf 'staged: edit\n' >>staged.txt
git add staged.txt
printf 'unstaged: edit\n' >>unstaged.txt
printf 'both: first edit, staged\n' >>both.txt
git add both.txt
printf 'both: second edit, not staged\n' >>both.txt
printf 'intent to add\n' >intent.txt
git add -N intent.txt
printf 'staged as new\n' >staged-new-gone.txt
git add staged-new-gone.txt
rm staged-new-gone.txt
git rm -q rm-staged.txt
rm rm-unstaged.txt
git rm -q --cached rm-cached.txt
git rm -q recreated.txt
printf 'recreated after git rm\n' >recreated.txt
copy_is_working_state "staged, unstaged and mixed changes"
ok "the intent-to-add file arrived" copy_has intent.txt f
ok "the file staged as new and then deleted did not" \
    copy_lacks staged-new-gone.txt
ok "the file removed with git rm did not" copy_lacks rm-staged.txt
ok "the file removed with rm did not" copy_lacks rm-unstaged.txt
ok "the file removed with git rm --cached is there, untracked" \
    copy_has rm-cached.txt f
ok "the file recreated after git rm is there" copy_has recreated.txt f

# Only deletions: the patch removes files and the directories they leave.
new_repo "$T/deletions"
mkdir -p gone/deeper
printf 'x\n' >gone/deeper/x
printf 'y\n' >gone/y
git add -A && git commit -q -m dirs
git rm -q -r gone/deeper
rm gone/y hello.txt
copy_is_working_state "deletions only"
ok "the emptied directory went with its files" copy_lacks gone/deeper

# A file whose stat data changed but not its content (touched, or written
# in the second the index was): git diff would refresh the index and
# write it, which forge must not let it do to the user's repository.
new_repo "$T/touched"
touch -d '2025-01-01 00:00:00' hello.txt
printf 'a real edit\n' >>src/main.c
copy_is_working_state "a touched file beside an edit"

done_testing
