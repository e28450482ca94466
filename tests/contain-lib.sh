# The adversary's list for the containment tests, run against one method
# at a time.  Sourced after "$TESTLIB", never run.
#
#	. "$top_srcdir/tests/contain-lib.sh"
#	adversary_setup			a repository in $T/r, and what
#					lies around it to go for
#	adversary namespaces 'Read-only file system'
#	adversary landlock 'Permission denied' [wrapper]
#	as_unprivileged "$self"		the same script again, as a user
#					who is not root, its results
#					reported as its own
#
# adversary METHOD DENIED [WRAPPER]: forge.containMethod is METHOD (auto
# under a wrapper such as noshare, which must then lead forge to
# Landlock), and DENIED is how a write the method refuses fails.  Every
# check is named [user method].
B=$(dirname "$FORGE")
NOSHARE=$B/tests/noshare
NETPROBE=$B/tests/netprobe
me=$(id -un)
# The fds a program holds, as perl -e "$FDLIST" prints them: "0 1 2".
FDLIST='opendir(D, "/proc/self/fd") or die "/proc/self/fd: $!\n";
	$d = fileno(D);
	print join(" ", sort { $a <=> $b } grep { /^[0-9]+$/ && $_ != $d }
	    readdir(D)), "\n"'

# cforge [forge args]: run_forge, under the wrapper if there is one.
cforge() {
	$WRAP "$FORGE" "$@" >"$T/.stdout" 2>"$T/.stderr" </dev/null
	rc=$?
	out=$(cat "$T/.stdout")
	err=$(cat "$T/.stderr")
}

adversary_setup() {
	new_repo "$T/r"
	printf 'untracked\n' >notes.txt
	ln -s "$T/r/hello.txt" out-link
	ln -s "$T/outside" out-dir
	mkdir "$T/outside" "$T/cache"
	printf 'kept\n' >"$T/outside/victim"
	git config forge.breakerThreshold 0
	# Once uncontained: what any run leaves in .git (forge's state) is
	# there.
	forge verify --isolated -- true >/dev/null 2>&1
	before=$(real_state "$T/r")
	# Where the host's /tmp, /dev/shm and /run are written to, if at all.
	hostprobe=$(basename "$T").probe
	# A listener on the host's loopback, v4 and v6, and an abstract
	# unix socket.
	"$NETPROBE" listen "$T/port" 127.0.0.1 &
	listeners=$!
	"$NETPROBE" listen "$T/port6" ::1 2>/dev/null &
	listeners="$listeners $!"
	"$NETPROBE" listen-unix "@$hostprobe" "$T/abstract" &
	listeners="$listeners $!"
	wait_for 10 test -s "$T/port" -a -s "$T/abstract" || exit 99
	wait_for 2 test -s "$T/port6" || :
	trap 'kill $listeners 2>/dev/null; cleanup_test_dir' EXIT
}

# Nothing the command wrote outside got there.
nothing_outside() {
	_l="[$me $1]"
	is "$_l the real repository is byte-identical" \
	    "$(real_state "$T/r")" "$before"
	is "$_l nothing written outside" "$(ls -A "$T/outside")" victim
	is "$_l which is intact" "$(cat "$T/outside/victim")" kept
	for _p in "/tmp/$hostprobe" "/dev/shm/$hostprobe" \
	    "/run/$hostprobe" "/var/tmp/$hostprobe" "$HOME/$hostprobe"; do
		if [ -e "$_p" ]; then
			fail "$_l nothing written to $_p"
			rm -f "$_p"
		else
			pass "$_l nothing written to $_p"
		fi
	done
}

adversary() {
	_m=$1 denied=$2 WRAP=${3:-}
	l="[$me $_m]"
	if [ -n "$WRAP" ]; then
		git config --unset forge.containMethod
		_want=landlock
	else
		git config forge.containMethod "$_m"
		_want=$_m
	fi
	before=$(real_state "$T/r")
	_abi=99
	[ "$_want" = landlock ] && _abi=$(landlock_abi)

	# Writes everywhere outside the copy, directly and through links
	# planted in it; each says how it failed, and the command goes on.
	cforge verify --isolated --contain -- sh -c '
		T=$1 p=$2
		echo bad >"$T/r/hello.txt" || echo "absolute: failed"
		echo bad >"$T/r/new-file" || echo "new file: failed"
		echo bad >"$T/r/.git/config" || echo "git config file: failed"
		echo bad >out-link || echo "tracked symlink: failed"
		echo bad >out-dir/f || echo "symlinked directory: failed"
		ln -s "$T/r/hello.txt" planted && { echo bad >planted ||
		    echo "planted symlink: failed"; }
		ln "$T/r/hello.txt" hard 2>/dev/null ||
		    echo "hard link: failed"
		[ -f hard ] && echo bad >>hard
		ln "$T/outside/victim" hard2 2>/dev/null ||
		    echo "hard link outside: failed"
		[ -f hard2 ] && echo bad >>hard2
		# truncate(2) itself, which opens nothing (Landlock covers it
		# from ABI 3).
		if [ "$3" -ge 3 ]; then
			perl -e "truncate(\$ARGV[0], 0) or exit 1" \
			    "$T/r/hello.txt" || echo "truncate: failed"
		fi
		mv hello.txt "$T/r/moved.txt" 2>/dev/null ||
		    echo "rename out: failed"
		mv "$T/outside/victim" . 2>/dev/null ||
		    echo "rename in: failed"
		mv src "$T/r/moved-src" 2>/dev/null ||
		    echo "directory out: failed"
		rm "$T/outside/victim" 2>/dev/null || echo "remove: failed"
		echo bad >"$HOME/$p" 2>/dev/null || echo "HOME: failed"
		for d in /var/tmp /run; do
			if [ -w "$d" ] || [ "$(id -u)" -eq 0 ]; then
				echo bad >"$d/$p" 2>/dev/null ||
				    echo "$d: failed"
			else
				echo "$d: failed"
			fi
		done
		git branch from-the-copy 2>/dev/null || echo "git branch: failed"
		git config forge.contained yes 2>/dev/null ||
		    echo "git config: failed"
		grep "^NoNewPrivs:" /proc/self/status
		' sh "$T" "$hostprobe" "$_abi"
	is "$l writes out of the copy fail, and the command goes on" "$rc" 0
	like "$l the method is said" "$err" "^forge: contained \\($_want\\)"
	like "$l and in the verdict line" "$err" \
	    "Verdict: PASS \\(isolated, contained \\($_want\\), tree"
	like "$l through an absolute path into the tree" "$err" \
	    "$T/r/hello.txt: $denied"
	like "$l a new file in the tree" "$err" "$T/r/new-file: $denied"
	like "$l the git directory" "$err" ".git/config: $denied"
	like "$l through a tracked symlink out of the copy" "$err" \
	    "out-link: $denied"
	for what in "symlinked directory" "planted symlink" "hard link" \
	    "hard link outside" truncate "rename out" "rename in" \
	    "directory out" remove HOME /var/tmp /run "git branch" \
	    "git config"; do
		if [ "$what" = truncate ] && [ "$_abi" -lt 3 ]; then
			skip "$l $what: failed" "Landlock ABI $_abi: no" \
			    "truncation rights before 3 (forge(1))"
			continue
		fi
		like "$l $what: failed" "$out" "^$what: failed\$"
	done
	like "$l with no_new_privs" "$out" '^NoNewPrivs:[[:space:]]*1$'
	ev=$(tail -n 1 "$T/r/.git/forge/timeline.jsonl")
	is "$l the timeline says how" \
	    "$(printf '%s\n' "$ev" | "$JSONPICK" contain contain_method)" \
	    "$(printf 'true\t%s' "$_want")"
	nothing_outside "$_m"
	# What did reach the host's /tmp would be there now.
	cforge verify --isolated --contain -- sh -c \
	    'echo bad >"/tmp/$1"; echo bad >"/dev/shm/$1"; true' sh "$hostprobe"
	nothing_outside "$_m /tmp"

	# Stdin, stdout and stderr alone: an fd forge was started with is
	# no way out, for a setup step either, nor with --no-network alone.
	git config forge.setup 'echo bad >&3 || echo "setup fd 3: failed"'
	cforge verify --isolated --contain -- sh -c '
		echo bad >&3 || echo "fd 3: failed"
		echo bad >&9 || echo "fd 9: failed"
		exec perl -e "$1"' sh "$FDLIST" \
	    3>>"$T/outside/victim" 9>>"$T/outside/victim"
	git config --unset forge.setup
	is "$l an inherited fd is no reason to stop" "$rc" 0
	like "$l a setup step has no fd 3" "$out" '^setup fd 3: failed$'
	like "$l nor a step" "$out" '^fd 3: failed$'
	like "$l nor fd 9" "$out" '^fd 9: failed$'
	is "$l stdin, stdout and stderr alone" \
	    "$(printf '%s\n' "$out" | tail -n 1)" "0 1 2"
	cforge verify --in-place --no-network -- perl -e "$FDLIST" \
	    3>>"$T/outside/victim" 9<"$T/outside/victim"
	is "$l with --no-network alone, in place too" "$out" "0 1 2"
	nothing_outside "$_m fds"

	# Inside the copy, anything goes.
	cforge verify --isolated --contain -- sh -c '
		echo made >made.txt && cat made.txt &&
		mkdir -p build/deep && echo o >build/deep/x.o &&
		mv build/deep/x.o src/ && ln src/x.o src/x2.o &&
		ln -s src/x.o y.o &&
		: >hello.txt && chmod +x made.txt && touch -d @0 run.sh &&
		echo edit >>hello.txt && rm notes.txt && echo copy-ok'
	is "$l writes inside the copy work" "$rc" 0
	like "$l all of them" "$out" 'copy-ok'
	is "$l and none reach the tree" "$(real_state "$T/r")" "$before"

	# forge.containWritable: the exceptions, and what it may not open,
	# however it is spelt.
	git config forge.containWritable "$T/cache"
	cforge verify --isolated --contain -- sh -c '
		echo c >"$1/cache/entry" && echo cache-ok
		echo x >"$1/outside/f" || echo "outside: failed"' sh "$T"
	is "$l a writable exception" "$rc" 0
	ok "$l is written" test -f "$T/cache/entry"
	like "$l while the rest stays read-only" "$out" '^outside: failed$'
	rm -f "$T/cache/entry"
	ln -s "$T/r" "$T/link-to-r"
	for v in "$T/cache/../r" "$T/cache/.." "$T/link-to-r" "$T/r/src" \
	    "~/../r/.git" "$T/r/.git/../.git/refs"; do
		git config forge.containWritable "$v"
		cforge verify --isolated --contain -- sh -c \
		    'echo ran >"$1/ran"' sh "$T"
		is "$l containWritable $v: refused" "$rc" 125
		like "$l naming what it opens" "$err" \
		    "forge.containWritable .*: it would make $T/r.* writable"
		ok "$l and nothing ran" test ! -e "$T/ran"
	done
	rm "$T/link-to-r"
	git config --unset-all forge.containWritable

	# No network but AF_UNIX: the host's loopback, v4 and v6, and its
	# abstract sockets are out of reach; unix sockets of the command's
	# own still work.
	port=$(cat "$T/port")
	cforge verify --isolated --no-network -- "$NETPROBE" connect "$port"
	is "$l 127.0.0.1 is out of reach" "$rc" 1
	like "$l the method is said" "$err" "^forge: no network \\($_want\\)"
	if [ "$_want" = landlock ]; then
		like "$l no socket is made" "$err" \
		    'socket: Address family not supported by protocol'
	else
		like "$l the connection is refused" "$err" \
		    'connect: Connection refused'
	fi
	if [ -s "$T/port6" ]; then
		cforge verify --isolated --no-network -- \
		    "$NETPROBE" connect "$(cat "$T/port6")" ::1
		is "$l ::1 too" "$rc" 1
		like "$l and said" "$err" "(Address family not supported|Connection refused)"
	else
		skip "$l ::1 too" "no IPv6 loopback here"
		skip "$l and said" "no IPv6 loopback here"
	fi
	cforge verify --isolated --no-network -- "$NETPROBE" connect-unix \
	    "@$hostprobe"
	if [ "$_abi" -lt 6 ]; then
		skip "$l the host's abstract sockets too" \
		    "Landlock ABI $_abi: no scoping before 6"
	else
		is "$l the host's abstract sockets too" "$rc" 1
	fi
	cforge verify --isolated --no-network -- sh -c '
		"$1" pair 1 && echo unix-pair-ok
		"$1" listen-unix "$PWD/s" ready & p=$!
		while [ ! -s ready ]; do sleep 0.05; done
		"$1" connect-unix "$PWD/s" && echo unix-ok
		kill $p' sh "$NETPROBE"
	like "$l a unix socket pair still works" "$out" unix-pair-ok
	like "$l and a unix socket of its own" "$out" unix-ok
	if [ "$_want" = landlock ]; then
		# Inet, inet6, netlink, packet... all but AF_UNIX.
		cforge verify --isolated --no-network -- "$NETPROBE" families
		is "$l no socket of any other family" "$out" 1
		cforge verify --isolated --no-network -- "$NETPROBE" uring
		like "$l nor an io_uring to make one" "$err" \
		    'io_uring_setup: Function not implemented'
	else
		cforge verify --isolated --no-network -- cat /proc/self/net/dev
		is "$l a network with loopback alone" "$(printf '%s\n' "$out" |
		    sed -n 's/^ *\([^ :]*\):.*/\1/p')" lo
	fi
	# (bash's /dev/tcp: in namespaces the build directory may be out of
	# sight.)
	cforge verify --isolated --contain -- bash -c \
	    'exec 3<>"/dev/tcp/127.0.0.1/$1"' bash "$port"
	is "$l --contain alone keeps the network" "$rc" 0
}

# The Landlock ABI of this kernel, 0 if none, as forge status says in a
# repository of its own.
landlock_abi() {
	if [ ! -s "$T/.abi/value" ]; then
		git init -q "$T/.abi" &&
		    git -C "$T/.abi" commit -q --allow-empty -m abi || exit 99
		(cd "$T/.abi" && "$FORGE" status --json 2>/dev/null) |
		    sed -n 's/.*"landlock":{[^}]*"abi":\([0-9]*\).*/\1/p' \
		    >"$T/.abi/value"
		[ -s "$T/.abi/value" ] || echo 0 >"$T/.abi/value"
	fi
	cat "$T/.abi/value"
}

# as_unprivileged SCRIPT: as root, run SCRIPT again as a user who is not
# (forgetest if the machine has one, else nobody), with the outer $T's
# setuid probe, and report its results; a reason to skip otherwise.
as_unprivileged() {
	[ "$(id -u)" -eq 0 ] && [ -z "${FORGE_CONTAIN_INNER:-}" ] || return 0
	_u=nobody
	id forgetest >/dev/null 2>&1 && _u=forgetest
	if ! id "$_u" >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
		skip "[$_u] the same" "no such user, or no setpriv"
		return 0
	fi
	chmod 711 "$T"
	mkdir "$T/user" && chown "$_u" "$T/user"
	# A set-user-ID root program that says whom it runs as.
	mkdir "$T/suid"
	cp "$(command -v id)" "$T/suid/id" && chmod 4755 "$T/suid/id"
	_as() {
		setpriv --reuid="$_u" --regid="$(id -g "$_u")" \
		    --clear-groups --inh-caps=-all -- env TMPDIR="$T/user" \
		    FORGE_CONTAIN_INNER=1 SUID_ID="$T/suid/id" "$@"
	}
	if ! _as sh -c 'test -x "$FORGE" && test -r "$TESTLIB"'; then
		skip "[$_u] the same" "$_u cannot reach the build"
		return 0
	fi
	if [ -n "${NEEDS_USERNS:-}" ] && ! _as unshare -Urm true 2>/dev/null
	then
		skip "[$_u] the same" "no unprivileged user namespaces" \
		    "here: $(sysctl kernel.unprivileged_userns_clone \
		    user.max_user_namespaces 2>&1 | tr '\n' ' ')"
		return 0
	fi
	_as sh "$1" >"$T/user.tap" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*) pass "${line#ok [0-9]* - }" ;;
		"not ok "*) fail "${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$T/user.tap"
	grep -q '^1\.\.' "$T/user.tap" ||
	    fail "[$_u] the run ended" "$(tail -n 20 "$T/user.tap")"
}

# setuid_gains METHOD: unless root, a set-user-ID program gains nothing
# under containment (no_new_privs; a user namespace too).
setuid_gains() {
	l="[$me $1]"
	if [ "$(id -u)" -eq 0 ] || [ -z "${SUID_ID:-}" ] ||
	    [ "$("$SUID_ID" -u 2>/dev/null)" != 0 ]; then
		skip "$l a set-user-ID program gains nothing" \
		    "root, or no set-user-ID program that works uncontained"
		return 0
	fi
	# Where namespaces hide the outer /tmp, an exception shows it.
	git config forge.containWritable "$(dirname "$SUID_ID")"
	cforge verify --isolated --contain -- "$SUID_ID" -u
	is "$l a set-user-ID program gains nothing" "$out" "$(id -u)"
	git config --unset-all forge.containWritable
}
