#!/bin/sh
# --contain in namespaces: everything but the copy is read-only -- the
# real working tree and its git directory included, through an absolute
# path or a link that leads out of the copy -- and /tmp is private;
# --no-network leaves only a loopback interface of the command's own.
# Where namespaces are forbidden, forge contains the command with
# Landlock instead, and where that cannot be had either, it refuses
# (125) rather than run uncontained, naming both causes.
#
# Run as root, the script runs itself once more as a user who is not
# (user namespaces then, not root's plain mount namespace), and reports
# those results too.  t-landlock.sh runs the same adversary against the
# Landlock method.
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"
. "$top_srcdir/tests/contain-lib.sh"

adversary_setup
adversary namespaces 'Read-only file system'
setuid_gains namespaces
git config --unset forge.containMethod
before=$(real_state "$T/r")

# Unless root, a step cannot undo it: mount(2) itself, not mount(8),
# which would refuse before asking.
if [ "$(id -u)" -ne 0 ] && python3 -c 1 2>/dev/null; then
	run_forge verify --isolated --contain -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
# MS_REMOUNT | MS_BIND, without MS_RDONLY
r = libc.mount(None, b"/", None, 32 | 4096, None)
print("remount", r, os.strerror(ctypes.get_errno()))'
	like "[$me] a step cannot remount / writable" "$out" \
	    '^remount -1 Operation not permitted$'
else
	skip "[$me] a step cannot remount / writable" "root, or no python3"
fi

# /tmp: empty but for the way to the copy, and private both ways.
probe=/tmp/$(basename "$T").probe
touch "$T/host-file"
run_forge verify --isolated --contain -- sh -c '
	echo "TMPDIR=$TMPDIR"
	echo private >"$2" && cat "$2"
	mkdir /tmp/a-dir && echo x >/tmp/a-dir/y && echo tmp-ok
	if [ -d /dev/shm ]; then
		echo x >"/dev/shm/${2##*/}" && echo shm-ok
	fi
	test -e "$1/host-file" && echo "host file seen"
	echo "in /tmp: $(ls -A /tmp | grep -v a-dir | tr "\n" " ")"
	true' sh "$T" "$probe"
is "[$me] /tmp is writable" "$rc" 0
like "[$me] TMPDIR is the private /tmp" "$out" '^TMPDIR=/tmp$'
like "[$me] /tmp holds what the command writes" "$out" 'tmp-ok'
case $T in
/tmp/*)
	unlike "[$me] the host's files in /tmp are not there" "$out" \
	    'host file seen'
	want=$(printf '%s\n' "$(echo "$T" | cut -d/ -f3)" \
	    "$(basename "$probe")" | sort | tr '\n' ' ')
	like "[$me] /tmp holds only the way to the copy and the tree" \
	    "$out" "^in /tmp: $want\$"
	;;
*)
	skip "[$me] the host's files in /tmp are not there" "not in /tmp"
	skip "[$me] /tmp holds only the way to the copy and the tree" \
	    "not in /tmp"
	;;
esac
if [ -d /dev/shm ]; then
	like "[$me] /dev/shm is writable" "$out" 'shm-ok'
	if [ -e "/dev/shm/${probe##*/}" ]; then
		fail "[$me] and private" "/dev/shm/${probe##*/} exists"
		rm -f "/dev/shm/${probe##*/}"
	else
		pass "[$me] and private"
	fi
else
	skip "[$me] /dev/shm is writable" "no /dev/shm"
	skip "[$me] and private" "no /dev/shm"
fi
if [ -e "$probe" ]; then
	fail "[$me] what it wrote to /tmp stays private" "$probe exists"
	rm -f "$probe"
else
	pass "[$me] what it wrote to /tmp stays private"
fi

# forge.contain, --no-contain, and the setup steps.
git config forge.contain true
run_forge verify --isolated -- sh -c 'echo x >"$1/r/probe"' sh "$T"
is "[$me] forge.contain contains" "$rc" 2
like "[$me] so the write fails" "$err" 'r/probe: Read-only file system'
run_forge verify --isolated --no-contain -- sh -c 'echo x >"$1/r/probe"' \
    sh "$T"
is "[$me] --no-contain overrides it" "$rc" 0
ok "[$me] and the write is made" test -f "$T/r/probe"
rm -f "$T/r/probe"
git config forge.setup "echo x >'$T/r/probe'"
run_forge verify --isolated -- true
is "[$me] setup steps are contained too" "$rc" 2
like "[$me] their write fails" "$err" 'r/probe: Read-only file system'
git config --unset forge.setup
ev=$(tail -n 1 "$T/r/.git/forge/timeline.jsonl")
is "[$me] the timeline says it was contained, and how" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" contain contain_method)" \
    "$(printf 'true\tnamespaces')"
run_forge verify --in-place -- true
is "[$me] containment needs the copy" "$rc" 64
like "[$me] and says so" "$err" 'it needs the isolated copy'
git config --unset forge.contain

# forge.containWritable: one that is not there is named and skipped; a
# tracked file cannot open one.
git config forge.containWritable "$T/no-such-dir"
run_forge verify --isolated --contain -- true
is "[$me] a missing exception is no reason to stop" "$rc" 0
like "[$me] it is named" "$err" \
    "forge.containWritable $T/no-such-dir: not made writable"
git config --unset-all forge.containWritable
printf '[forge]\n\tcontainWritable = %s\n\tcontainMethod = landlock\n' \
    "$T/outside" >.forgeconfig
git add .forgeconfig && git commit -q -m forgeconfig
run_forge verify --isolated --contain -- sh -c 'echo x >"$1/outside/f"' \
    sh "$T"
like "[$me] a tracked .forgeconfig cannot open a hole" "$err" \
    'containwritable is taken from git config alone'
like "[$me] nor choose the method" "$err" \
    'containmethod is taken from git config alone'
is "[$me] the write fails" "$rc" 2
like "[$me] in namespaces" "$err" 'contained \(namespaces\)'
git rm -q .forgeconfig && git commit -q -m 'no forgeconfig'
git config forge.containMethod sandbox
run_forge verify --isolated --contain -- true
is "[$me] a method forge does not know is a usage error" "$rc" 64
like "[$me] naming the ones it knows" "$err" \
    "bad value 'sandbox' for forge.containmethod: say auto, namespaces or landlock"
git config --unset forge.containMethod
before=$(real_state "$T/r")

# --no-network, in place too.
port=$(cat "$T/port")
run_forge verify --isolated -- "$NETPROBE" connect "$port"
is "[$me] without --no-network the listener is reached" "$rc" 0
run_forge verify --in-place --no-network -- "$NETPROBE" connect "$port"
is "[$me] nor in place" "$rc" 1
like "[$me] where the verdict line says how" "$err" \
    'Verdict: FAIL \(exit status 1; in place, no network \(namespaces\),'

# Uncontained, a step keeps the fds forge was started with (make's
# jobserver, say), and gets none of forge's own: it holds what the same
# command holds when started the same way without forge, whether in
# place, in a fresh copy or in a reused one.  An audit's fresh copy
# writes nothing to fd 3: the line there is the run's.
want=$(perl -e "$FDLIST" 3>>"$T/fd3" 9<"$T/fd3" </dev/null 2>/dev/null)
like "[$me] (what a command started so holds)" "$want" '^0 1 2 3 9( |$)'
for how in in-place isolated reuse reused; do
	: >"$T/fd3"
	run_forge verify --"${how%d}" -- sh -c \
	    "$(unaudited 'echo inherited >&3')"'; exec perl -e "$1"' sh \
	    "$FDLIST" 3>>"$T/fd3" 9<"$T/fd3"
	is "[$me] uncontained, $how: fd 3 is written to" "$(cat "$T/fd3")" \
	    inherited
	is "[$me] $how: the step holds just what it was started with" \
	    "$out" "$want"
done
like "[$me] (the last run reused its copy)" "$err" 'Verdict: PASS .*reused'
forge gc --all >/dev/null 2>&1
git config forge.setup "echo setup >&3"
: >"$T/fd3"
run_forge verify --isolated -- true 3>>"$T/fd3"
is "[$me] uncontained, a setup step has it too" "$(cat "$T/fd3")" setup
git config --unset forge.setup
before=$(real_state "$T/r")

# Namespaces forbidden (a seccomp filter, as some containers have): the
# command is contained all the same, with Landlock, where forge used to
# refuse; forced to namespaces, or with Landlock gone too, it refuses
# and names the causes, never running uncontained.
"$NOSHARE" true
if [ $? -eq 77 ]; then
	skip "[$me] without namespaces" "no seccomp filter here"
else
	WRAP=$NOSHARE
	cforge verify --isolated --contain -- sh -c \
	    'echo x >"$1/r/hello.txt"; echo ran >ran; cat ran' sh "$T"
	is "[$me] without namespaces, --contain still contains" "$rc" 0
	like "[$me] with Landlock" "$err" '^forge: contained \(landlock\)'
	like "[$me] the command ran" "$out" '^ran$'
	like "[$me] and could not write the tree" "$err" \
	    'r/hello.txt: Permission denied'
	is "[$me] which is intact" "$(real_state "$T/r")" "$before"

	git config forge.containMethod namespaces
	cforge verify --isolated --contain -- sh -c 'echo ran >"$1/ran"' \
	    sh "$T"
	is "[$me] forced to namespaces, it is refused: 125" "$rc" 125
	like "[$me] naming the cause" "$err" \
	    'cannot create namespaces: Operation not permitted \(namespaces are forbidden here'
	like "[$me] and that it will not run uncontained" "$err" \
	    'not running the command uncontained'
	like "[$me] an ERROR, not a FAIL" "$err" 'Verdict: ERROR'
	unlike "[$me] nor said to be contained" "$err" 'contained \('
	ev=$(tail -n 1 "$T/r/.git/forge/timeline.jsonl")
	is "[$me] recorded as such, with the reason" \
	    "$(printf '%s\n' "$ev" | "$JSONPICK" verdict status failed \
	    contain_method)" \
	    "$(printf 'ERROR\t125\tforge could not contain the command\t-')"
	ok "[$me] nothing ran" test ! -e "$T/ran"
	cforge verify --isolated --no-network -- true
	is "[$me] --no-network too" "$rc" 125
	git config --unset forge.containMethod

	WRAP="$NOSHARE -l"
	cforge verify --isolated --contain -- sh -c 'echo ran >"$1/ran"' \
	    sh "$T"
	is "[$me] without Landlock either, it is refused: 125" "$rc" 125
	like "[$me] naming both causes: namespaces" "$err" \
	    '^forge: namespaces: cannot create namespaces: Operation not permitted'
	like "[$me] and Landlock" "$err" \
	    '^forge: landlock: Landlock is not available: the kernel has none'
	like "[$me] and that it will not run uncontained" "$err" \
	    'not running the command uncontained'
	ok "[$me] nothing ran" test ! -e "$T/ran"
	cforge status --json
	is "[$me] forge status says which ways this machine offers" \
	    "$(printf '%s\n' "$out" | "$JSONPICK" containment.method \
	    containment.namespaces.available containment.landlock.available)" \
	    "$(printf 'null\tfalse\tfalse')"
	WRAP=
fi
is "[$me] the real repository is byte-identical at the end" \
    "$(real_state "$T/r")" "$before"
is "[$me] nothing is left" "$(leftovers "$T/r")" ""

NEEDS_USERNS=1 as_unprivileged "$self"
done_testing
