#!/bin/sh
# A range's copy carried from commit to commit: what a commit's steps
# leave behind is gone before the next commit's run, but for the build
# output an incremental copy keeps -- so a make project rebuilds only
# what each commit changed -- and never an ignored file that git reads
# as instructions.  Where a carried copy could not be exact, a fresh one
# is made.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)

# A small make project; the compiler counts its runs.
cat >"$T/cc" <<EOF
#!/bin/sh
$(unaudited "echo \"\$*\" >>$T/cc.log")
exec cc "\$@"
EOF
chmod +x "$T/cc"
cat >Makefile <<'EOF'
OBJS = a.o b.o c.o
prog: $(OBJS)
	$(CC) -o prog $(OBJS)
.c.o:
	$(CC) -c -o $@ $<
EOF
printf 'prog\n' >>.gitignore
printf 'int a(void) { return 1; }\n' >a.c
printf 'int b(void) { return 2; }\n' >b.c
printf 'int a(void); int b(void);\nint main(void) { return a() + b() - 3; }\n' >c.c
printf '[forge]\n\tverify = make CC=%s && ./prog\n' "$T/cc" >.forgeconfig
git add -A
git commit -q -m project
printf 'int b(void) { return 2 + 0; }\n' >b.c
git commit -q -am 'b changes'
printf 'docs\n' >README
git add README
git commit -q -m 'no source changes'
printf 'int a(void); int b(void);\nint main(void) { return a() + b() - 3 + 0; }\n' >c.c
git commit -q -am 'c changes'
compiles() {
	_n=$(wc -l <"$T/cc.log" | tr -d ' ')
	: >"$T/cc.log"
	echo "$_n"
}
: >"$T/cc.log"

run_forge verify --rev="$start..main"
is "a range of four commits passes" "$rc" 0
is "without --incremental each commit builds from nothing" "$(compiles)" 16
run_forge verify --rev="$start..main" --incremental
is "--incremental passes too" "$rc" 0
# 3 compiles and a link, then b and a link, nothing, c and a link.
is "and rebuilds only what each commit changed" "$(compiles)" 8
like "its copy is carried, incremental" "$err" \
    "in the range's incremental copy, carried to commit"
tail -n 4 .git/forge/timeline.jsonl | "$JSONPICK" incremental >"$T/inc"
is "each event says incremental" "$(sort -u "$T/inc")" true

# Setup steps: in every commit's copy, but an incremental copy keeps
# what they made, while they stay as they are and pass, and the inputs
# forge.setupInputs names stay as they were.  Without it, every file is
# setup's input, and each commit's differ.
git config forge.setup "$(unaudited "echo setup >>$T/setup")"
: >"$T/setup"
run_forge verify --rev="$start..main"
is "setup runs for every commit of a plain range" \
    "$(wc -l <"$T/setup" | tr -d ' ')" 4
: >"$T/setup"
run_forge verify --rev="$start..main" --incremental
is "and of an incremental one, where every file is its input" \
    "$(wc -l <"$T/setup" | tr -d ' ')" 4
like "saying why" "$err" \
    "setup runs again: the working state changed since it last ran"
git config forge.setupInputs setup.cfg
: >"$T/setup"
run_forge verify --rev="$start..main" --incremental
is "but once for an incremental one whose inputs stay" \
    "$(wc -l <"$T/setup" | tr -d ' ')" 1
: >"$T/setup"
run_forge verify --rev="$start..main" --incremental --setup
is "unless --setup" "$(wc -l <"$T/setup" | tr -d ' ')" 4
git config forge.setup "$(unaudited "echo setup >>$T/setup") && false"
: >"$T/setup"
run_forge verify --rev="$start..main" --incremental --keep-going
is "and again after it failed" "$(wc -l <"$T/setup" | tr -d ' ')" 4
git config --unset forge.setup
git config --unset forge.setupInputs
: >"$T/cc.log"

# What a commit's steps leave behind.
new_repo "$T/s"
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
printf '/.gitattributes\nout/\n' >>.gitignore
cat >check.sh <<'EOF'
# Nothing but the commit's files, and no line ending but LF.
test -z "$(git status --porcelain --untracked-files=all)" || exit 2
! grep -q "$(printf '\r')" hello.txt || exit 3
# Nothing in progress.
test ! -e "$(git rev-parse --git-path MERGE_HEAD)" || exit 4
# Leave junk: untracked, ignored, a rule file git would read, a tracked
# file changed and one removed, a commit, a merge begun.
echo junk >junk.txt
mkdir -p out && echo built >>out/o
printf '* text eol=crlf\n' >.gitattributes
echo tampered >>run.sh
rm -f src/main.c
git -c user.name=n -c user.email=e commit -qam junk
git rev-parse HEAD >"$(git rev-parse --git-path MERGE_HEAD)"
EOF
printf '[forge]\n\tverify = sh check.sh\n' >.forgeconfig
git add -A
git commit -q -m 'checks'
for i in 1 2 3; do
	printf 'line %s\n' "$i" >>hello.txt
	git commit -q -am "hello $i"
done
before=$(state_of "$T/s")
for mode in "" --incremental; do
	run_forge verify --rev="$start..main" $mode
	is "${mode:-plain}: every commit finds only its own files" "$rc" 0
	is "${mode:-plain}: in one copy carried three times" \
	    "$(printf '%s\n' "$err" | grep -c 'carried to commit')" 3
done
like "the incremental copy dropped the rule file it kept" "$err" \
    "removed from the incremental copy 1 file of its own that git reads as instructions \\(\\.gitattributes\\)"
is "the working tree, index and HEAD are as they were" \
    "$(state_of "$T/s")" "$before"
is "nothing is left behind" "$(leftovers "$T/s")" ""

# An attributes file in a commit: carried across all the same
# (t-range-convert.sh compares the bytes).
printf 'hello.txt -text\n' >.gitattributes
git add -f .gitattributes
git commit -q -m attributes
printf 'line 4\n' >>hello.txt
git commit -q -am 'hello 4'
git rm -q --cached .gitattributes
rm .gitattributes
git commit -q -m 'no attributes'
run_forge verify --rev="main~4..main"
is "a range across an attributes file passes" "$rc" 0
is "carried to each commit" \
    "$(printf '%s\n' "$err" | grep -c 'carried to commit')" 3
is "nothing is left behind" "$(leftovers "$T/s")" ""

# A copy its step broke (its .git file gone) cannot be carried: the next
# commit gets a fresh one, and the broken one goes all the same.
new_repo "$T/b"
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
printf '[forge]\n\tverify = test -f .git && rm .git\n' >.forgeconfig
git add .forgeconfig
git commit -q -m one
git commit -q --allow-empty -m two
run_forge verify --rev="$start..main"
is "a range whose steps break the copy passes" "$rc" 0
like "the next commit gets a fresh copy, saying why" "$err" \
    "in a fresh copy of commit [0-9a-f]{12}: it could not be carried there"
is "nothing is left behind" "$(leftovers "$T/b")" ""

# Where git converts files by its settings, a step may leave bytes that
# git takes for the same blob, which the copy's own index does not tell
# from a checkout's: carried all the same, each commit's files are as a
# checkout writes them (t-range-convert.sh compares them byte for byte).
new_repo "$T/crlf"
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
cat >check.sh <<'EOF'
grep -q "$(printf '\r')" hello.txt || exit 3
printf 'hello\n' >hello.txt
EOF
printf '[forge]\n\tverify = sh check.sh\n' >.forgeconfig
git add -A && git commit -q -m check
git commit -q --allow-empty -m again
git config core.autocrlf true
run_forge verify --rev="$start..main"
is "core.autocrlf: a range whose steps rewrite line endings passes" "$rc" 0
like "its copy carried" "$err" "carried to commit [0-9a-f]{12}"
git config --unset core.autocrlf
is "nothing is left behind" "$(leftovers "$T/crlf")" ""

# A commit that makes a directory a submodule: the proof does not look
# inside a submodule's path, where a carried copy would keep what the
# directory held, so that commit gets a fresh copy, its submodule an
# empty directory.
init_repo "$T/up"
(cd "$T/up" && printf 'u\n' >u && git add u && git commit -q -m u) ||
    exit 99
up=$(git -C "$T/up" rev-parse HEAD)
new_repo "$T/m"
git config forge.breakerThreshold 0
start=$(git rev-parse HEAD)
mkdir lib && printf 'int l;\n' >lib/l.c
cat >check.sh <<'EOF'
# A submodule not initialized is an empty directory; the directory it
# was gets build output.
if [ "$(git ls-files -s lib | cut -c1-6)" = 160000 ]; then
	test -z "$(ls -A lib)" || exit 3
else
	printf 'o\n' >lib/l.o
fi
EOF
printf '[forge]\n\tverify = sh check.sh\n' >.forgeconfig
git add -A && git commit -q -m lib
git rm -rq lib && git update-index --add --cacheinfo "160000,$up,lib" &&
    git commit -q -m 'lib a submodule'
for mode in "" --incremental; do
	run_forge verify --rev="$start..main" $mode
	is "${mode:-plain}: a range that makes a directory a submodule passes" \
	    "$rc" 0
	like "${mode:-plain}: that commit's copy is a fresh one, saying why" \
	    "$err" "in a fresh copy of commit [0-9a-f]{12}: it records a submodule"
	# The working tree has no directory there: a submodule not
	# initialized, and no git to run in it.
	unlike "${mode:-plain}: no git fails to run where it has none" \
	    "$err" "cannot run git"
done
is "nothing is left behind" "$(leftovers "$T/m")" ""
done_testing
