#!/bin/sh
# A hostile machine: each case gives one clear line naming the cause,
# exit 125, nothing left behind and the source untouched.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/r"
printf 'edit\n' >>hello.txt
printf 'untracked\n' >u.txt
before=$(state_of "$T/r")

# expect_125 NAME PATTERN: the last run refused as it should.
expect_125() {
	is "$1: exit 125" "$rc" 125
	like "$1: the message names the cause" "$err" "$2"
	not_ok "$1: the command did not run" test -e "$T/ran"
	is "$1: nothing is left behind" "$(leftovers "$T/r")" ""
	is "$1: the source is untouched" "$(state_of "$T/r")" "$before"
	rm -f "$T/ran"
}

# As root, permissions do not stop writes: a private mount namespace with
# a read-only bind mount, or a small tmpfs, does.  Otherwise chmod does.
can_mount=no
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1"' sh "$T/tmp" \
    2>/dev/null; then
	can_mount=yes
fi

PATH=/nonexistent "$FORGE" verify --isolated -- touch "$T/ran" \
    >"$T/.stdout" 2>"$T/.stderr"
rc=$? err=$(cat "$T/.stderr")
expect_125 "git not on PATH" 'git not found on PATH'

# A git on PATH that cannot be run (its interpreter missing): said once,
# though forge starts two gits at once.
mkdir "$T/badgit"
printf '#!/nonexistent/sh\n' >"$T/badgit/git"
chmod +x "$T/badgit/git"
PATH="$T/badgit:$PATH" run_forge verify --isolated -- touch "$T/ran"
expect_125 "git cannot be run" 'git not found on PATH'
is "git cannot be run: said once" "$(printf '%s\n' "$err" | grep -c git)" 1

fake_git "$T/oldgit" '[ "$SUB" = version ] && { echo "git version 2.20.1"; exit 0; }
exec "$REAL_GIT" "$@"'
PATH="$T/oldgit:$PATH" run_forge verify --isolated -- touch "$T/ran"
expect_125 "git too old" 'git version 2\.20\.1 is too old: forge needs git 2\.25 or later'

# (Not under a wrapper: valgrind itself needs a usable TMPDIR.)
TMPDIR="$T/missing" FORGE_WRAPPER= run_forge verify --isolated -- touch "$T/ran"
expect_125 "TMPDIR missing" "TMPDIR .*/missing: No such file or directory"

printf 'x' >"$T/afile"
TMPDIR="$T/afile" FORGE_WRAPPER= run_forge verify --isolated -- touch "$T/ran"
expect_125 "TMPDIR a file" "TMPDIR .*/afile is not a directory"

mkdir -p "$T/ro"
if [ "$(id -u)" -ne 0 ]; then
	chmod 555 "$T/ro"
	TMPDIR="$T/ro" run_forge verify --isolated -- touch "$T/ran"
	expect_125 "TMPDIR not writable" "Permission denied"
	chmod 755 "$T/ro"
elif [ $can_mount = yes ]; then
	TMPDIR="$T/ro" in_ns 'mount --bind "$TMPDIR" "$TMPDIR" &&
	    mount -o remount,ro,bind "$TMPDIR" "$TMPDIR" &&
	    exec "$FORGE" verify --isolated -- touch "$T/ran"'
	expect_125 "TMPDIR not writable" "Read-only file system"
else
	skip "TMPDIR not writable" "root without mount namespaces"
fi

# Full: a big tracked file that cannot fit.
head -c 300000 /dev/zero | tr '\0' 'x' >big.txt
git add big.txt && git commit -q -m big
before=$(state_of "$T/r")
if [ $can_mount = yes ]; then
	in_ns 'mount -t tmpfs -o size=128k tmpfs "$TMPDIR" &&
	    exec "$FORGE" verify --isolated -- touch "$T/ran"'
	expect_125 "TMPDIR full" "No space left on device"
else
	# Without a small file system, a file size limit does the same.
	(ulimit -f 128 && exec "$FORGE" verify --isolated -- touch "$T/ran" \
	    >"$T/.stdout" 2>"$T/.stderr")
	rc=$? err=$(cat "$T/.stderr")
	expect_125 "TMPDIR full (file size limit)" "File too large|git"
fi

# The repository's .git read-only.
if [ "$(id -u)" -ne 0 ]; then
	chmod -R a-w .git
	run_forge verify --isolated -- touch "$T/ran"
	chmod -R u+w .git
	expect_125 ".git read-only" "Permission denied"
elif [ $can_mount = yes ]; then
	in_ns 'mount --bind .git .git && mount -o remount,ro,bind .git .git &&
	    exec "$FORGE" verify --isolated -- touch "$T/ran"'
	expect_125 ".git read-only" "Read-only file system"
else
	skip ".git read-only" "root without mount namespaces"
fi

# A path too long for the copy's location: long enough whatever $T is,
# with the copy's own prefix and the 151 bytes of the path below.
long="$T/long"
while [ ${#long} -lt 3950 ]; do
	long="$long/dddddddddddddddddddddddddddddddddddddddddddddddd"
done
mkdir -p "$long"
deep=a234567890123456789012345678901234567890123456789
mkdir -p "$deep/$deep/$deep"
printf 'deep\n' >"$deep/$deep/$deep/f"
git add -A && git commit -q -m deep
before=$(state_of "$T/r")
TMPDIR="$long" run_forge verify --isolated -- touch "$T/ran"
expect_125 "path too long" "too long for a copy in .*set TMPDIR to a shorter directory"
ok "TMPDIR is left empty" test -z "$(ls -A "$long")"

run_forge verify --isolated -- "$T/no-such-command"
is "a missing command exits 127" "$rc" 127
like "with a clear message" "$err" "no-such-command: command not found"
printf 'echo hi\n' >"$T/noexec"
chmod 644 "$T/noexec"
run_forge verify --isolated -- "$T/noexec"
is "a command that is not executable exits 126" "$rc" 126
like "with a clear message" "$err" "noexec: Permission denied"
is "nothing is left behind" "$(leftovers "$T/r")" ""

# Output into a pipe that closes: the command gets SIGPIPE, forge cleans up.
${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c 'while :; do echo y; done' 2>"$T/pipe.err" |
    head -n 1 >"$T/pipe.out"
is "the reader got its line" "$(cat "$T/pipe.out")" y
like "the writer died of SIGPIPE, its reader gone: INTERRUPTED" \
    "$(tail -n 1 "$T/pipe.err")" \
    'Verdict: INTERRUPTED \(interrupted by signal 13'
is "nothing is left behind" "$(leftovers "$T/r")" ""
${FORGE_WRAPPER:-} "$FORGE" verify --isolated -- sh -c 'sleep 0.2; echo more' 2>&1 | head -n 1 \
    >/dev/null
is "nor when forge's own messages hit the closed pipe" \
    "$(leftovers "$T/r")" ""

is "the source was never touched" "$(state_of "$T/r")" "$before"
done_testing
