#!/bin/sh
# The verdict cache's key holds every input forge knows the verdict to
# depend on: a PASS is replayed only for the very same inputs.  One check
# per input: changed, the verification runs again (and here, fails where
# a replayed PASS would have lied); unchanged, it is cached.  The key's
# fields themselves are check_cache's.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
tl=.git/forge/timeline.jsonl
git config forge.breakerThreshold 0
git config forge.cache true
: >"$T/count"
# runs DESCRIPTION N forge-args...: forge verify, which must have run the
# command N times in all by now.
runs() {
	_d=$1
	_want=$2
	shift 2
	run_forge verify "$@"
	is "$_d" "$(counter)" "$_want"
}

# The command's directory: ./t.sh in a passes, in b fails.
mkdir a b
printf '#!/bin/sh\n%s\nexit 0\n' "$(unaudited "echo a >>$T/count")" >a/t.sh
printf '#!/bin/sh\n%s\nexit 1\n' "$(unaudited "echo b >>$T/count")" >b/t.sh
chmod +x a/t.sh b/t.sh
git add a b
git commit -q -m scripts
cd a
run_forge verify --isolated -- ./t.sh
is "in a: PASS" "$rc" 0
run_forge verify --isolated -- ./t.sh
is "in a again: cached" "$rc $(counter)" "0 1"
cd ../b
run_forge verify --isolated -- ./t.sh
is "in b, the same command line is another command: it runs, and fails" \
    "$rc $(counter)" "1 2"
cd ../a
run_forge verify --in-place -- ./t.sh
cd ../b
run_forge verify --in-place -- ./t.sh
is "so it is in place" "$rc $(counter)" "1 4"
# A configured step runs at the top, wherever forge is started.
git config forge.verify "$(unaudited "echo v >>$T/count")"
cd ../a
run_forge verify --isolated
cd ../b
run_forge verify --isolated
is "a configured step is one command from anywhere: cached" \
    "$rc $(counter)" "0 5"
cd ..
git config --unset forge.verify

COUNT=$(unaudited "echo run >>$T/count")
: >"$T/count"
runs "the first run runs" 1 --isolated -- sh -c "$COUNT"
runs "and is cached" 1 --isolated -- sh -c "$COUNT"

# --timeout.
runs "another time limit: runs" 2 --isolated --timeout 1h -- sh -c "$COUNT"
runs "the same one: cached" 2 --isolated --timeout 1h -- sh -c "$COUNT"
git config forge.timeout 1h
runs "forge.timeout is the same limit" 2 --isolated -- sh -c "$COUNT"
git config --unset forge.timeout

# A clone is another copy: git in it cannot reach the repository.
runs "--clone: runs" 3 --isolated --clone -- sh -c "$COUNT"
runs "--clone again: cached" 3 --isolated --clone -- sh -c "$COUNT"
runs "a worktree copy again: cached as before" 3 --isolated -- sh -c "$COUNT"

# --incremental: a build on what an earlier one left.
runs "--incremental: runs" 4 --incremental -- sh -c "$COUNT"
runs "--incremental again: cached" 4 --incremental -- sh -c "$COUNT"
forge gc --all >/dev/null 2>&1

# Containment, where this machine can contain: all but the copy is
# read-only then, so the count is kept where forge.containWritable lets
# a contained command write.
mkdir "$T/cw" "$T/cw2"
git config forge.containWritable "$T/cw"
CCOUNT=$(unaudited "echo run >>$T/cw/count")
run_forge verify --isolated --contain --no-cache -- true
if [ "$rc" -eq 0 ]; then
	run_forge verify --isolated -- sh -c "$CCOUNT"
	run_forge verify --isolated --contain -- sh -c "$CCOUNT"
	is "--contain: runs" "$(counter "$T/cw/count")" 2
	run_forge verify --isolated --contain -- sh -c "$CCOUNT"
	is "--contain again: cached" "$(counter "$T/cw/count")" 2
	run_forge verify --isolated --no-network -- sh -c "$CCOUNT"
	is "--no-network: runs" "$(counter "$T/cw/count")" 3
	run_forge verify --isolated --contain --no-network -- sh -c "$CCOUNT"
	is "--contain --no-network: runs" "$(counter "$T/cw/count")" 4
	git config --add forge.containWritable "$T/cw2"
	run_forge verify --isolated --contain -- sh -c "$CCOUNT"
	is "another writable place, contained: runs" "$(counter "$T/cw/count")" 5
	run_forge verify --isolated -- sh -c "$CCOUNT"
	is "but not uncontained: cached" "$(counter "$T/cw/count")" 5
	git config --unset forge.containWritable "$T/cw2"
	# The method that contains: namespaces, or Landlock, which let a
	# command do different things (forge(1)).
	git config forge.containMethod namespaces
	run_forge verify --isolated --contain -- sh -c "$CCOUNT"
	is "forced to namespaces, as auto took: the same method, cached" \
	    "$rc $(counter "$T/cw/count")" "0 5"
	git config forge.containMethod landlock
	run_forge verify --isolated --contain -- sh -c "$CCOUNT"
	if [ "$rc" -eq 0 ]; then
		is "contained by Landlock: runs" "$(counter "$T/cw/count")" 6
		run_forge verify --isolated --contain -- sh -c "$CCOUNT"
		is "and again: cached" "$(counter "$T/cw/count")" 6
	else
		skip "contained by Landlock: runs" "no Landlock here"
		skip "and again: cached" "no Landlock here"
	fi
	git config --unset forge.containMethod
	# The case that was found: a PASS uncontained, where the command
	# fails contained.
	WRITE="git config forge.written yes"
	run_forge verify --isolated -- sh -c "$WRITE"
	run_forge verify --isolated --contain -- sh -c "$WRITE"
	is "what passes uncontained fails contained: not replayed" \
	    "$([ "$rc" -ne 0 ] && echo failed)" failed
	git config --unset forge.written
else
	for d in --contain "--contain again" --no-network \
	    "--contain --no-network" "writable place" "not uncontained" \
	    "namespaces" "Landlock" "Landlock again" "fails contained"; do
		skip "$d" "no containment here"
	done
fi
git config --unset-all forge.containWritable

# The environment: forge.cacheEnv's variables, PATH and CC among them by
# default.
: >"$T/count"
COUNT=$(unaudited "echo env >>$T/count")
runs "a first run" 1 --isolated -- sh -c "$COUNT"
oldpath=$PATH
PATH="$T:$PATH"
runs "another PATH (another compiler, say): runs" 2 --isolated -- \
    sh -c "$COUNT"
PATH=$oldpath
export CC=clang
runs "CC set: runs" 3 --isolated -- sh -c "$COUNT"
runs "CC the same: cached" 3 --isolated -- sh -c "$COUNT"
CC=gcc
runs "CC another: runs" 4 --isolated -- sh -c "$COUNT"
CC=
runs "CC set empty is not CC unset: runs" 5 --isolated -- sh -c "$COUNT"
unset CC
export LC_MESSAGES=C.UTF-8
runs "a locale variable (LC_*): runs" 6 --isolated -- sh -c "$COUNT"
unset LC_MESSAGES
export FOO=1
runs "a variable not named: cached" 6 --isolated -- sh -c "$COUNT"
git config forge.cacheEnv 'FOO BAR_*'
runs "named by forge.cacheEnv: runs" 7 --isolated -- sh -c "$COUNT"
runs "the same value: cached" 7 --isolated -- sh -c "$COUNT"
export BAR_X=2
runs "a variable of a prefix named: runs" 8 --isolated -- sh -c "$COUNT"
export CC=gcc
runs "forge.cacheEnv adds to the defaults: CC still counts" 9 --isolated \
    -- sh -c "$COUNT"
git config --add forge.cacheEnv ''
runs "(with all the variables cleared)" 10 --isolated -- sh -c "$COUNT"
CC=tcc
FOO=3
runs "an empty value clears them all: cached" 10 --isolated -- \
    sh -c "$COUNT"
unset CC FOO BAR_X
git config --unset-all forge.cacheEnv
git config forge.cacheEnv '1BAD'
run_forge verify --isolated -- true
is "a forge.cacheEnv that names no variable is a usage error" "$rc" 64
like "naming it" "$err" "forge.cacheenv"
git config --unset-all forge.cacheEnv

# The version of the git that runs (no variable counts here, PATH
# neither): what a command's git does, and how git converts files, are
# its version's.
: >"$T/count"
VCOUNT=$(unaudited "echo version >>$T/count")
git config forge.cacheEnv ''
other_git "$T/vgit" "$T/other-version"
oldpath=$PATH
PATH="$T/vgit:$PATH"
runs "a first run under a git" 1 --isolated -- sh -c "$VCOUNT"
runs "again: cached" 1 --isolated -- sh -c "$VCOUNT"
: >"$T/other-version"
runs "another version of git: runs" 2 --isolated -- sh -c "$VCOUNT"
rm "$T/other-version"
runs "the first version again: cached" 2 --isolated -- sh -c "$VCOUNT"
PATH=$oldpath
git config --unset-all forge.cacheEnv

# Where the steps were configured: the same text, from a tracked
# .forgeconfig and then from git config.
: >"$T/count"
printf '[forge]\n\tverify = %s\n' "$COUNT" >.forgeconfig
git add .forgeconfig
git commit -q -m forgeconfig
runs "steps from .forgeconfig: runs" 1 --isolated
runs "and again: cached" 1 --isolated
git config forge.verify "$COUNT"
runs "the same steps from git config: runs" 2 --isolated
runs "and again: cached" 2 --isolated
git config --unset forge.verify
# And where the setup steps were: the same text again.
printf '[forge]\n\tverify = %s\n\tsetup = true\n' "$COUNT" >.forgeconfig
git commit -q -am 'setup'
runs "setup from .forgeconfig: runs" 3 --isolated
runs "and again: cached" 3 --isolated
git config forge.setup true
runs "the same setup from git config: runs" 4 --isolated
runs "and again: cached" 4 --isolated
git config --unset forge.setup

# HEAD: the copy's history is the command's to read.
: >"$T/count"
RUN=$(unaudited "echo run >>$T/count")
CHECK="$RUN; git log -1 --format=%s | grep -q good"
git commit -q --allow-empty -m good
runs "a commit whose message a step checks: runs" 1 --isolated -- \
    sh -c "$CHECK"
git commit -q --allow-empty -m bad
run_forge verify --isolated -- sh -c "$CHECK"
is "the same tree at another commit: runs, and fails" "$rc $(counter)" "1 2"

# What the index stages, which the copy's index stages too.
: >"$T/count"
STAGED="$RUN; git diff --cached --quiet"
printf 'more\n' >>hello.txt
runs "unstaged: runs" 1 --isolated -- sh -c "$STAGED"
runs "again: cached" 1 --isolated -- sh -c "$STAGED"
git add hello.txt
run_forge verify --isolated -- sh -c "$STAGED"
is "the same files, staged: runs, and fails" "$rc $(counter)" "1 2"
git reset -q

# The umask: the modes a copy's files are checked out with, and those
# of whatever the steps make.
: >"$T/count"
MODE="$RUN; test \"\$(stat -c %a hello.txt)\" = 644"
umask 022
runs "under umask 022: runs" 1 --isolated -- sh -c "$MODE"
runs "again: cached" 1 --isolated -- sh -c "$MODE"
umask 002
run_forge verify --isolated -- sh -c "$MODE"
is "under umask 002: runs, and fails" "$rc $(counter)" "1 2"
umask 022
runs "022 again: cached" 2 --isolated -- sh -c "$MODE"

# An untracked file's permission bits, which the copy carries over (its
# content and x bit are the tree id's).
: >"$T/count"
printf 'data\n' >u.txt
chmod 644 u.txt
UMODE="$RUN; test \"\$(stat -c %a u.txt)\" = 644"
runs "an untracked file, 644: runs" 1 --isolated -- sh -c "$UMODE"
runs "again: cached" 1 --isolated -- sh -c "$UMODE"
chmod 600 u.txt
run_forge verify --isolated -- sh -c "$UMODE"
is "made 600: runs, and fails" "$rc $(counter)" "1 2"
chmod 644 u.txt
runs "644 again: cached" 2 --isolated -- sh -c "$UMODE"
rm u.txt
# And a flagged entry's file, copied as it is too.
git update-index --assume-unchanged hello.txt
runs "a flagged file: runs" 3 --isolated -- sh -c "$MODE"
runs "again: cached" 3 --isolated -- sh -c "$MODE"
chmod 600 hello.txt
run_forge verify --isolated -- sh -c "$MODE"
is "made 600: runs, and fails" "$rc $(counter)" "1 4"
chmod 644 hello.txt
git update-index --no-assume-unchanged hello.txt

# Every setting of every repository the copy is made of, whatever it
# is, and its attributes files: here, each makes a PASS a lie.
: >"$T/count"
ln -s hello.txt link.txt
git add link.txt && git commit -q -m link
LINK="$RUN; test -h link.txt"
runs "a tracked symlink: runs" 1 --isolated -- sh -c "$LINK"
runs "again: cached" 1 --isolated -- sh -c "$LINK"
git config core.symlinks false
run_forge verify --isolated -- sh -c "$LINK"
is "core.symlinks=false: runs, and fails: a plain file now" \
    "$rc $(counter)" "1 2"
git config --unset core.symlinks
runs "back as it was: cached" 2 --isolated -- sh -c "$LINK"
git config nosuch.setting yes
runs "a setting of no table: runs" 3 --isolated -- sh -c "$LINK"
runs "again: cached" 3 --isolated -- sh -c "$LINK"
git config --unset nosuch.setting
git rm -q link.txt && git commit -q -m unlink

# Who runs the steps: the gid and every group, not the uid alone.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	: >"$T/count"
	as() {
		_g=$1
		shift
		setpriv --reuid=0 --regid=0 --groups="$_g" "$FORGE" "$@" \
		    >"$T/.stdout" 2>"$T/.stderr" </dev/null
		rc=$?
	}
	as 0 verify --isolated -- sh -c "$COUNT"
	as 0 verify --isolated -- sh -c "$COUNT"
	is "in groups 0: one run, then cached" "$(counter)" 1
	as 0,27 verify --isolated -- sh -c "$COUNT"
	is "a group more: runs" "$(counter)" 2
	as 0 verify --isolated -- sh -c "$COUNT"
	is "a group less: cached as before" "$(counter)" 2
	setpriv --reuid=0 --regid=27 --groups=0 "$FORGE" verify --isolated \
	    -- sh -c "$COUNT" >/dev/null 2>&1 </dev/null
	is "another gid: runs" "$(counter)" 3
else
	skip "in groups 0: one run, then cached" "not root, or no setpriv"
	skip "a group more: runs" "not root, or no setpriv"
	skip "a group less: cached as before" "not root, or no setpriv"
	skip "another gid: runs" "not root, or no setpriv"
fi

# A submodule's own settings and attributes, in a copy of a tree.
init_repo "$T/libsrc"
(cd "$T/libsrc" && printf 'lf\n' >lib.txt && git add lib.txt &&
    git commit -q -m lib) || exit 99
git -c protocol.file.allow=always submodule -q add "$T/libsrc" lib
git commit -q -m lib
SUB="$RUN"'; ! grep -q "$(printf "\r")" lib/lib.txt'
: >"$T/count"
runs "--rev with a submodule: runs" 1 --rev=HEAD -- sh -c "$SUB"
runs "again: cached" 1 --rev=HEAD -- sh -c "$SUB"
git -C lib config core.autocrlf true
run_forge verify --rev=HEAD -- sh -c "$SUB"
is "the submodule's core.autocrlf: runs, and fails" "$rc $(counter)" "1 2"
git -C lib config --unset core.autocrlf
runs "without it again: cached as before" 2 --rev=HEAD -- sh -c "$SUB"
info=$(git -C lib rev-parse --git-common-dir)/info
mkdir -p "$info"
printf '* eol=crlf\n' >"$info/attributes"
run_forge verify --rev=HEAD -- sh -c "$SUB"
is "the submodule's info/attributes: runs, and fails" "$rc $(counter)" "1 3"
rm "$info/attributes"

# The key is a digest: no value of the environment is written down.
git config forge.cacheEnv SECRET
export SECRET=s3cr3t-value
run_forge verify --isolated -- true
unset SECRET
unlike "the cache holds no value of a variable" \
    "$(cat .git/forge/cache.jsonl)" 's3cr3t-value'
git config --unset forge.cacheEnv

done_testing
