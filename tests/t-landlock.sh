#!/bin/sh
# --contain with Landlock and seccomp (forge.containMethod=landlock, and
# what auto comes to where namespaces are forbidden): the same adversary
# as in namespaces (t-contain.sh) finds every write outside the copy,
# its TMPDIR and the exceptions refused, and no socket but a unix one
# under --no-network.  Where it differs: /tmp and /dev/shm are the
# host's, read-only, and TMPDIR is a directory of the run's own, gone
# with it; root cannot mount.
#
# Run as root, the script runs itself once more as a user who is not,
# and reports those results too.
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/contain-lib.sh"

# The filter's own unit tests pass where the kernel has no 32-bit system
# calls (IA32_EMULATION off, ia32_emulation=0), skipping what needs them.
if [ ! -x "$B/tests/check_landlock" ]; then
	skip "[$me] check_landlock without 32-bit system calls" "not built"
else
	"$NOSHARE" -3 "$B/tests/check_landlock" >"$T/compat.tap" 2>&1
	case $? in
	77) skip "[$me] check_landlock without 32-bit system calls" \
	    "no seccomp filter here" ;;
	0)
		pass "[$me] check_landlock passes without 32-bit system calls"
		like "[$me] every test of it ran" "$(cat "$T/compat.tap")" \
		    '^1\.\.[1-9]'
		case $(uname -m) in
		x86_64)
			like "[$me] skipping the i386 checks, saying why" \
			    "$(cat "$T/compat.tap")" \
			    '^# SKIP: int \$0x80 is killed by signal [0-9]+: the kernel has no 32-bit system calls' ;;
		esac ;;
	*)
		fail "[$me] check_landlock passes without 32-bit system calls" \
		    "$(cat "$T/compat.tap")" ;;
	esac
fi

if [ "$(landlock_abi)" -eq 0 ]; then
	skip "Landlock" "not in this kernel, or disabled"
	done_testing
	exit
fi
adversary_setup
adversary landlock 'Permission denied'
setuid_gains landlock
"$NOSHARE" true
if [ $? -eq 77 ]; then
	skip "[$me auto without namespaces]" "no seccomp filter here"
else
	adversary 'auto without namespaces' 'Permission denied' "$NOSHARE"
fi
git config forge.containMethod landlock
before=$(real_state "$T/r")

# TMPDIR: a directory of the run's own, empty, private to the user, gone
# with the run; /tmp and /dev/shm are the host's, and read-only.
for keep in '' --keep; do
	run_forge verify --isolated --contain $keep -- sh -c '
		echo "TMPDIR=$TMPDIR"
		ls -A "$TMPDIR" | grep . && echo "TMPDIR not empty"
		ls -ld "$TMPDIR" | cut -c1-10
		mkdir "$TMPDIR/d" && echo x >"$TMPDIR/d/f" && echo tmpdir-ok
		mktemp >/dev/null && echo mktemp-ok
		echo x >/dev/null && echo devnull-ok
		echo x >"/tmp/$1" || echo "/tmp: failed"
		if [ -d /dev/shm ]; then
			echo x >"/dev/shm/$1" || echo "/dev/shm: failed"
		fi' sh "$(basename "$T").probe"
	l="[$me landlock${keep:+ $keep}]"
	is "$l TMPDIR is writable" "$rc" 0
	tmpdir=$(printf '%s\n' "$out" | sed -n 's/^TMPDIR=//p')
	like "$l TMPDIR is the run's own" "$tmpdir" \
	    "^$TMPDIR/forge-[0-9a-f]*/\\.forge/tmp\$"
	unlike "$l and empty" "$out" 'TMPDIR not empty'
	like "$l and the user's alone" "$out" '^drwx------$'
	like "$l it holds what the command writes" "$out" 'tmpdir-ok'
	like "$l mktemp(1) works" "$out" 'mktemp-ok'
	like "$l /dev/null is as writable as ever" "$out" 'devnull-ok'
	ok "$l and it goes with the run" test ! -e "$tmpdir"
	like "$l /tmp is read-only" "$err" "/tmp/$(basename "$T").probe: Permission denied"
	if [ -d /dev/shm ]; then
		like "$l and /dev/shm" "$err" \
		    "/dev/shm/$(basename "$T").probe: Permission denied"
	else
		skip "$l and /dev/shm" "no /dev/shm"
	fi
done
forge gc --all >/dev/null 2>&1
l="[$me landlock]"

# Setup steps too; and what a step left in TMPDIR, the next finds.
git config forge.setup 'echo first >"$TMPDIR/left"'
run_forge verify --isolated --contain -- sh -c 'cat "$TMPDIR/left"'
is "$l a setup step's TMPDIR is the steps'" "$out" first
git config forge.setup "echo x >'$T/r/probe'"
git config forge.contain true
run_forge verify --isolated -- true
is "$l setup steps are contained" "$rc" 2
like "$l their write fails" "$err" 'r/probe: Permission denied'
git config --unset forge.setup
git config --unset forge.contain

# Nor through another process's view of the file system, forge's.
run_forge verify --isolated --contain -- sh -c \
    'echo x >"/proc/$PPID/root$1/r/probe" || echo "/proc: failed"' sh "$T"
like "$l nor through another process's /proc/pid/root" "$out" \
    '^/proc: failed$'
ok "$l which stays out of reach" test ! -e "$T/r/probe"

# Root has no way around it: no mount, and no remount.
if [ "$(id -u)" -eq 0 ]; then
	run_forge verify --isolated --contain -- sh -c '
		mkdir m && mount -t tmpfs tmpfs m 2>/dev/null &&
		    echo mounted
		mount -o remount,rw / 2>/dev/null && echo remounted
		echo x >"$1/r/probe" || echo "write: failed"' sh "$T"
	unlike "$l root cannot mount" "$out" mounted
	like "$l and writes still fail" "$out" '^write: failed$'
else
	skip "$l root cannot mount" "not root"
	skip "$l and writes still fail" "not root"
fi

# What forge status says of this machine.
run_forge status --json
is "$l forge status says which ways this machine offers" \
    "$(printf '%s\n' "$out" | "$JSONPICK" containment.setting \
    containment.method containment.landlock.available \
    last_verdict.contain_method)" \
    "$(printf 'landlock\tlandlock\ttrue\tlandlock')"
like "$l and the ABI" "$(printf '%s\n' "$out" | "$JSONPICK" \
    containment.landlock.abi)" '^[1-9][0-9]*$'

# Forced, and not to be had: refused, naming the cause alone.
"$NOSHARE" true
if [ $? -ne 77 ]; then
	WRAP="$NOSHARE -l"
	cforge verify --isolated --contain -- sh -c 'echo ran >"$1/ran"' \
	    sh "$T"
	is "$l without Landlock, refused: 125" "$rc" 125
	like "$l naming the cause" "$err" \
	    '^forge: Landlock is not available: the kernel has none'
	unlike "$l and that alone" "$err" namespaces
	like "$l it will not run uncontained" "$err" \
	    'not running the command uncontained'
	ok "$l nothing ran" test ! -e "$T/ran"
	WRAP=
else
	skip "$l without Landlock" "no seccomp filter here"
fi

is "$l the real repository is byte-identical at the end" \
    "$(real_state "$T/r")" "$before"
is "$l nothing is left" "$(leftovers "$T/r")" ""
git config --unset forge.containMethod

as_unprivileged "$self"
done_testing
