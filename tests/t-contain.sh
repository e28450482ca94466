#!/bin/sh
# --contain: everything but the copy is read-only -- the real working tree
# and its git directory included, through an absolute path or a symlink
# that leads out of the copy -- and /tmp is private; --no-network leaves
# only a loopback interface of the command's own.  Where namespaces are
# forbidden, forge refuses (125) rather than run uncontained.
#
# Run as root, the script runs itself once more as the unprivileged user
# forgetest where the machine has one (user namespaces then, not root's
# plain mount namespace), and reports those results too.
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

B=$(dirname "$FORGE")
NOSHARE=$B/tests/noshare
NETPROBE=$B/tests/netprobe
me=$(id -un)

# What a contained command may not change: the tree, index, HEAD, refs,
# and the repository's configuration.
real_state() {
	state_of "$T/r"
	cksum <"$T/r/.git/config"
	ls -A "$T/r/.git"
}

new_repo "$T/r"
printf 'untracked\n' >notes.txt
ln -s "$T/r/hello.txt" out-link
ln -s "$T/outside" out-dir
mkdir "$T/outside"
git config forge.breakerThreshold 0
# Once uncontained: what any run leaves in .git (forge's state) is there.
forge verify --isolated -- true >/dev/null 2>&1
before=$(real_state)

run_forge verify --isolated --contain -- sh -c '
	echo bad >"$1/hello.txt" || echo "absolute: failed"
	echo bad >"$1/new-file" || echo "new file: failed"
	echo bad >"$1/.git/config" || echo "git config file: failed"
	echo bad >out-link || echo "symlink: failed"
	echo bad >out-dir/f || echo "outside: failed"
	test -w /var/tmp && echo "/var/tmp is writable"
	git branch from-the-copy || echo "git branch: failed"
	git config forge.contained yes || echo "git config: failed"
	' sh "$T/r"
is "[$me] writes out of the copy fail, and the command goes on" "$rc" 0
like "[$me] through an absolute path into the tree: read-only" "$err" \
    "$T/r/hello.txt: Read-only file system"
like "[$me] a new file in the tree: read-only" "$err" \
    "$T/r/new-file: Read-only file system"
like "[$me] the git directory: read-only" "$err" \
    ".git/config: Read-only file system"
like "[$me] through a symlink out of the copy: read-only" "$err" \
    "out-link: Read-only file system"
# Under /tmp, the private /tmp hides it; elsewhere it is read-only.
like "[$me] anywhere else: hidden or read-only" "$err" \
    "out-dir/f: (Read-only file system|Directory nonexistent)"
if [ -d /var/tmp ] && [ -w /var/tmp ]; then
	unlike "[$me] /var/tmp is read-only" "$out" '/var/tmp is writable'
else
	skip "[$me] /var/tmp is read-only" "not writable here anyway"
fi
is "[$me] each write failed" "$(printf '%s\n' "$out" | grep -c ': failed$')" 7
like "[$me] the run says it is contained" "$err" \
    '^forge: contained: all but the copy is read-only, /tmp is private$'
is "[$me] the real repository is byte-identical" "$(real_state)" "$before"
is "[$me] nothing written outside" "$(ls -A "$T/outside")" ""

run_forge verify --isolated --contain -- sh -c '
	echo made >made.txt && cat made.txt &&
	mkdir -p build/deep && echo o >build/deep/x.o &&
	echo edit >>hello.txt && rm notes.txt && echo copy-ok'
is "[$me] writes inside the copy work" "$rc" 0
like "[$me] all of them" "$out" 'copy-ok'
is "[$me] and none reach the tree" "$(real_state)" "$before"

# Unless root, a step cannot undo it: mount(2) itself, not mount(8),
# which would refuse before asking.
if [ "$(id -u)" -ne 0 ] && command -v python3 >/dev/null; then
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
is "[$me] the timeline says it was contained" \
    "$(printf '%s\n' "$ev" | "$JSONPICK" contain)" true
run_forge verify --in-place -- true
is "[$me] containment needs the copy" "$rc" 64
like "[$me] and says so" "$err" 'it needs the isolated copy'
git config --unset forge.contain

# forge.containWritable: the exceptions, and what it may not open.
mkdir "$T/cache"
git config forge.containWritable "$T/cache"
git config --add forge.containWritable "$T/no-such-dir"
run_forge verify --isolated --contain -- sh -c '
	echo c >"$1/cache/entry" && echo cache-ok
	echo x >"$1/outside/f" || echo "outside: failed"' sh "$T"
is "[$me] a writable exception" "$rc" 0
ok "[$me] is written" test -f "$T/cache/entry"
like "[$me] while the rest stays read-only" "$out" 'outside: failed'
like "[$me] a missing one is named" "$err" \
    "forge.containWritable $T/no-such-dir: not made writable"
git config --unset-all forge.containWritable
git config forge.containWritable "$T"
run_forge verify --isolated --contain -- sh -c 'echo ran >"$1/ran"' sh "$T"
is "[$me] one that holds the working tree is refused" "$rc" 125
like "[$me] naming it" "$err" \
    "forge.containWritable $T: it would make $T/r writable"
ok "[$me] and nothing ran" test ! -e "$T/ran"
git config --unset-all forge.containWritable
printf '[forge]\n\tcontainWritable = %s\n' "$T/outside" >.forgeconfig
git add .forgeconfig && git commit -q -m forgeconfig
run_forge verify --isolated --contain -- sh -c 'echo x >"$1/outside/f"' \
    sh "$T"
like "[$me] a tracked .forgeconfig cannot open it" "$err" \
    'containwritable is taken from git config alone'
is "[$me] the write fails" "$rc" 2
git rm -q .forgeconfig && git commit -q -m 'no forgeconfig'
before=$(real_state)

# --no-network: a listener on the host's loopback is out of reach.
"$NETPROBE" listen "$T/port" &
lpid=$!
while [ ! -s "$T/port" ] && kill -0 "$lpid" 2>/dev/null; do
	sleep 0.05
done
port=$(cat "$T/port")
run_forge verify --isolated -- "$NETPROBE" connect "$port"
is "[$me] without --no-network the listener is reached" "$rc" 0
run_forge verify --isolated --no-network -- "$NETPROBE" connect "$port"
is "[$me] with it, it is not" "$rc" 1
like "[$me] the connection is refused" "$err" 'connect: Connection refused'
like "[$me] and forge said so" "$err" '^forge: no network but loopback$'
# (bash's /dev/tcp: the build directory may be out of sight.)
run_forge verify --isolated --contain -- bash -c \
    'exec 3<>"/dev/tcp/127.0.0.1/$1"' bash "$port"
is "[$me] --contain alone keeps the network" "$rc" 0
run_forge verify --isolated --contain --no-network -- bash -c \
    'exec 3<>"/dev/tcp/127.0.0.1/$1"' bash "$port"
is "[$me] nor with --contain" "$rc" 1
like "[$me] refused there too" "$err" 'Connection refused'

run_forge verify --in-place --no-network -- "$NETPROBE" connect "$port"
is "[$me] nor in place" "$rc" 1
kill "$lpid"
wait "$lpid" 2>/dev/null

# Namespaces forbidden (a seccomp filter, as some containers have):
# refused, never run uncontained.
"$NOSHARE" true
if [ $? -eq 77 ]; then
	skip "[$me] refused without namespaces" "no seccomp filter here"
else
	"$NOSHARE" "$FORGE" verify --isolated --contain -- \
	    sh -c 'echo ran >"$1/ran"' sh "$T" >"$T/.stdout" 2>"$T/.stderr"
	rc=$?
	err=$(cat "$T/.stderr")
	is "[$me] without namespaces, --contain is refused: 125" "$rc" 125
	like "[$me] naming the cause" "$err" \
	    'cannot create namespaces: Operation not permitted \(namespaces are forbidden here'
	like "[$me] and that it will not run uncontained" "$err" \
	    'not running the command uncontained'
	like "[$me] an ERROR, not a FAIL" "$err" 'Verdict: ERROR'
	ev=$(tail -n 1 "$T/r/.git/forge/timeline.jsonl")
	is "[$me] recorded as such, with the reason" \
	    "$(printf '%s\n' "$ev" | "$JSONPICK" verdict status failed)" \
	    "$(printf 'ERROR\t125\tforge could not contain the command')"
	ok "[$me] nothing ran" test ! -e "$T/ran"
	"$NOSHARE" "$FORGE" verify --isolated --no-network -- true \
	    >/dev/null 2>&1
	is "[$me] --no-network too" "$?" 125
fi
is "[$me] the real repository is byte-identical at the end" \
    "$(real_state)" "$before"
is "[$me] nothing is left" "$(leftovers "$T/r")" ""

# Once more as an unprivileged user, where there is one and namespaces
# allow it; the inner run reports its own results, named as its user's.
if [ "$(id -u)" -eq 0 ] && [ -z "${FORGE_CONTAIN_INNER:-}" ] &&
    id forgetest >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	chmod 711 "$T"
	mkdir "$T/user" && chown forgetest "$T/user"
	as_user() {
		setpriv --reuid=forgetest --regid="$(id -g forgetest)" \
		    --clear-groups --inh-caps=-all -- env TMPDIR="$T/user" \
		    FORGE_CONTAIN_INNER=1 "$@"
	}
	if ! as_user sh -c 'test -x "$FORGE" && test -r "$TESTLIB"'; then
		skip "[forgetest] the same" "forgetest cannot reach the build"
	elif ! as_user unshare -Urm true 2>/dev/null; then
		skip "[forgetest] the same" "no unprivileged user namespaces" \
		    "here: $(sysctl kernel.unprivileged_userns_clone \
		    user.max_user_namespaces 2>&1 | tr '\n' ' ')"
	else
		as_user sh "$self" >"$T/user.tap" 2>&1
		while IFS= read -r line; do
			case $line in
			"ok "*) pass "${line#ok [0-9]* - }" ;;
			"not ok "*) fail "${line#not ok [0-9]* - }" ;;
			"#"*) echo "$line" ;;
			esac
		done <"$T/user.tap"
		grep -q '^1\.\.' "$T/user.tap" ||
		    fail "[forgetest] the run ended" "$(tail -n 20 "$T/user.tap")"
	fi
fi

done_testing
