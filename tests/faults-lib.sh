# Fault injection: forge verify with one system call failing, one run
# at a time; sourced after lib.sh, never run.  strace(1) does the
# failing (-e inject=SYSCALL:error=ERRNO:when=N), so forge needs no code
# of its own for it:
#
#	own	the Nth call of forge's own process (its main thread)
#	all	strace -f: the Nth call of every process of the run, each
#		counted on its own -- forge, its threads, every git it
#		starts and the command
#
# in a repository holding every kind of change, under each mode (see
# fault_flags).  After each run, whatever it did:
#
#   - forge did not die of a signal, and no sanitizer spoke;
#   - exit 0 only with a PASS recorded, of the tree a clean run
#     verified, and only if the command ran and printed the manifest of
#     a copy that is the working state (the staged tree for --staged,
#     HEAD's for --rev);
#   - a PASS recorded only with exit 0; exit 125 only with an ERROR or
#     nothing recorded, and with a message that says what failed (the
#     error's text); in own runs nothing but 0 and 125, since the
#     command itself is never failed there;
#   - after one forge gc, without injection: gc succeeds, no copy, no
#     record, no worktree registration, no process of the run is left,
#     but the parked copies forge status lists;
#   - the repository is as it was: every file of the working tree and of
#     its git directory (forge's own state aside) with its mode, content
#     and mtime, and the user's other worktree.
#
#	fault_setup			the repository, in $R; cd there
#	fault_plan MODE			a clean run, traced: the baseline,
#					and what calls it makes ($T/plan.MODE)
#	fault_sweep MODE HOW QUOTA ALL [PHASE PERIOD]
#					inject each call of the plan in turn,
#					at QUOTA occurrences spread over
#					its count, with its first errno
#					(ALL=1: its errnos in turn)
#	fault_once MODE HOW CALL ERRNO N	one injected run, one TAP line
#	fault_at MODE CALL PATTERN	which occurrence of CALL, in MODE's
#					plan, is the first that matches
#	fault_before MODE CALL PATTERN	how many calls of CALL come before
#	fault_spawn_call MODE		the call that starts a process
#	fault_spawn_of MODE PATTERN	which of those started that process
#	fault_aim MODE CALL ERRNO N PATTERN
#					fault_once, at that very call
#	fault_path MODE CALL ERRNO PATH	fault_once, at the first call on
#					PATH
#	fault_failpath MODE PATTERN ERRNO
#					forge with the open of those paths
#					failing (tests/failpath.so)
#
# FAULT_ONLY (a grep -E pattern) narrows a sweep to the calls that match
# it; FAULT_KEEP=DIR keeps the logs of each failing run.  FAULT_RUNS,
# FAULT_REACHED and FAULT_FAILED count the injected runs, those where the
# call failed was reached, and those that failed a check.

# The modes, and the flags of each.
FAULT_ALL_MODES="isolated reuse incremental clone staged rev contain"
fault_flags() {
	case $1 in
	isolated) echo "--isolated --no-reuse" ;;
	reuse) echo "--isolated --reuse" ;;
	incremental) echo "--isolated --incremental" ;;
	clone) echo "--isolated --clone" ;;
	staged) echo "--staged" ;;
	rev) echo "--rev=main" ;;
	contain) echo "--isolated --contain --no-reuse" ;;
	esac
}

# fault_skip_reason: why this machine cannot run the suite, or nothing.
fault_skip_reason() {
	if ! command -v strace >/dev/null 2>&1; then
		echo "strace is not installed (Debian: apt-get install strace)"
	elif ! strace -qq -o /dev/null -e trace=getppid \
	    -e inject=getppid:error=EIO:when=1 true 2>/dev/null; then
		echo "strace cannot trace or inject here (ptrace forbidden," \
		    "or a strace before 4.15)"
	elif [ -n "${FORGE_WRAPPER:-}" ]; then
		echo "forge runs under a wrapper: its calls are not forge's"
	fi
}

# fault_excluded CALL: why a call is never failed, or nothing.  These
# are the calls whose failure Linux does not produce for the arguments
# forge gives them, or where an injected error is not a failure at all.
fault_excluded() {
	case $1 in
	close)
		# Linux releases the descriptor whatever close returns
		# (EINTR and EIO included): a failed close that leaves it
		# open is not a thing that happens.
		echo "the descriptor is released even when close fails" ;;
	exit|exit_group|getpid|getppid|gettid|getuid|geteuid|getgid|\
	getegid|getpgrp|umask|set_tid_address|set_robust_list|rseq|\
	sched_yield|sched_getaffinity|rt_sigreturn|arch_prctl|uname|\
	sysinfo)
		echo "cannot fail" ;;
	rt_sigaction|rt_sigprocmask|sigaltstack|rt_sigsuspend)
		# Only EINVAL or EFAULT, for a bad signal or pointer.
		echo "fails only on arguments forge never gives" ;;
	brk)
		# The kernel never returns an error: it returns the break
		# it kept, and the C library compares; an injected -ENOMEM
		# would read as an address.
		echo "the kernel answers with the old break, never an error" ;;
	munmap|madvise|mprotect)
		# The C library's own bookkeeping, that ignores or cannot
		# meet these (a failed mprotect of a new arena is another
		# mmap's failure).
		echo "memory bookkeeping of the C library" ;;
	lseek)
		# On the files and pipes forge seeks, with offsets it
		# computed, none fails; ENXIO from SEEK_DATA is an answer
		# (no data beyond), which an injected one would make a
		# lie about a file that has data.
		echo "no failure for the offsets forge asks; ENXIO is an answer" ;;
	execve|execveat)
		# Counted in each process from its start, so the first
		# is the exec that made it what it is: forge's is strace's
		# own, and a child's (a git, the command) is its first call
		# of the kind, which an occurrence past forge's start-up
		# never reaches.
		echo "the exec that starts a process, counted as its first" ;;
	getdents64|getdents)
		# git's walk of a directory takes a failed read of it for
		# its end (dir.c checks no errno after readdir), so every
		# git of the run agrees on a working state with less in it,
		# and succeeds: nothing for forge to see.
		[ "${2:-own}" = all ] &&
		    echo "git takes a failed readdir for the directory's end" ;;
	esac
}

# fault_errnos CALL: the errors to fail CALL with, the most telling
# first: what the call can really meet.
fault_errnos() {
	case $1 in
	openat|open) echo "EMFILE EACCES EIO ENOSPC" ;;
	read|readv|pread64) echo "EIO EINTR" ;;
	write|writev|pwrite64) echo "ENOSPC EIO EINTR" ;;
	newfstatat|fstat|lstat|stat|statx|statfs|fstatfs) echo "EIO ENOMEM" ;;
	getdents64|getdents) echo "EIO" ;;
	mkdir|mkdirat) echo "ENOSPC EACCES" ;;
	unlink|unlinkat|rmdir) echo "EBUSY EIO EACCES" ;;
	rename|renameat|renameat2) echo "EIO EBUSY ENOSPC" ;;
	link|linkat|symlink|symlinkat) echo "ENOSPC EIO" ;;
	fsync|fdatasync) echo "EIO" ;;
	ftruncate|fallocate) echo "EIO ENOSPC" ;;
	flock) echo "ENOLCK EINTR" ;;
	fcntl) echo "EMFILE" ;;
	dup|dup2|dup3) echo "EMFILE" ;;
	pipe|pipe2) echo "EMFILE ENFILE" ;;
	clone|clone3|fork|vfork) echo "EAGAIN ENOMEM" ;;
	execve|execveat) echo "ENOMEM EACCES" ;;
	wait4|waitid) echo "EINTR" ;;
	poll|ppoll|select|pselect6) echo "EINTR ENOMEM" ;;
	nanosleep|clock_nanosleep) echo "EINTR" ;;
	kill|tgkill) echo "ESRCH EPERM" ;;
	setpgid) echo "EPERM" ;;
	prctl) echo "EINVAL" ;;
	prlimit64|getrlimit|setrlimit) echo "EPERM" ;;
	getcwd) echo "ENOENT" ;;
	chdir|fchdir) echo "EACCES" ;;
	access|faccessat|faccessat2) echo "EACCES EIO" ;;
	readlink|readlinkat) echo "EIO EACCES" ;;
	utimensat|futimesat) echo "EPERM EROFS" ;;
	chmod|fchmod|fchmodat|fchmodat2|fchown|fchownat) echo "EPERM EIO" ;;
	copy_file_range|sendfile) echo "EIO EXDEV ENOSPC" ;;
	ioctl) echo "EIO ENOTTY" ;;
	getrandom) echo "ENOSYS EAGAIN EINTR" ;;
	# A wait (a thread joined, a lock): what the kernel answers one
	# with; the C library stops the process on any other answer (an
	# ENOMEM is only for priority-inheritance locks, which no
	# process of the run takes).
	futex) echo "EINTR EAGAIN" ;;
	mmap) echo "ENOMEM" ;;
	unshare|setns) echo "EPERM ENOSPC EINVAL" ;;
	mount|umount2|mount_setattr|pivot_root|open_tree|move_mount)
		echo "EPERM ENOMEM" ;;
	landlock_*) echo "ENOSYS EOPNOTSUPP" ;;
	socket|socketpair|bind|listen|connect|setsockopt) echo "ENOMEM EACCES" ;;
	*) echo "ENOMEM" ;;
	esac
}

# Built with AddressSanitizer: its allocator's mmap is not forge's, and
# LeakSanitizer cannot run under a tracer.
if grep -qa __asan_init "$FORGE" 2>/dev/null; then
	FAULT_ASAN=1
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
else
	FAULT_ASAN=
fi

# fault_setup: the repository $R, with every kind of change, a linked
# worktree of the user's own, a hook, and a setting of its own.
fault_setup() {
	R=$T/r
	init_repo "$R"
	cd "$R" || exit 99
	printf 'one\n' >a.txt
	printf 'two\n' >b.txt
	mkdir -p dir sub/deep
	printf 'three\n' >dir/c.txt
	printf 'deep\n' >sub/deep/d.txt
	printf 'gone\n' >del.txt
	printf 'staged gone\n' >sdel.txt
	printf 'moving\n' >old.txt
	printf '#!/bin/sh\n' >mode.sh
	printf '\000\001\002binary\377\n' >bin.dat
	ln -s a.txt link
	printf '*.o\nbuild/\n' >.gitignore
	git add -A && git commit -q -m initial || exit 99
	git worktree add -q "$T/mine" -b mine || exit 99
	printf 'mine, unstaged\n' >>"$T/mine/a.txt"
	printf 'staged\n' >>a.txt			# staged
	git add a.txt
	printf 'unstaged\n' >>b.txt			# unstaged
	printf 'first\n' >>dir/c.txt			# staged, then unstaged
	git add dir/c.txt
	printf 'second\n' >>dir/c.txt
	rm del.txt					# deleted
	git rm -q sdel.txt				# deleted, staged
	git mv old.txt new.txt				# renamed
	chmod +x mode.sh				# mode change
	rm link && ln -s b.txt link			# symlink retargeted
	ln -s dir/c.txt ulink				# new symlink
	printf '\000\377\376changed\n' >bin.dat		# binary
	printf '\000new binary\n' >nbin.dat
	git add nbin.dat				# binary, staged new
	printf 'untracked\n' >u.txt			# untracked
	mkdir -p udir && printf 'u2\n' >udir/u2.txt
	printf 'ignored\n' >x.o				# ignored
	mkdir -p build && printf 'out\n' >build/out
	printf '#!/bin/sh\nexit 0\n' >.git/hooks/pre-commit
	chmod +x .git/hooks/pre-commit
	# The command, an ignored file of the working tree: in sight of a
	# contained step wherever the build is (a private /tmp hides the
	# rest of it), and in no copy.
	FAULT_CMD=$R/build/treelist
	cp "$TREELIST" "$FAULT_CMD" || exit 99
	git config forge.breakerThreshold 0
	git config fault.mark kept
	COMMON=$R/.git
	TL=$COMMON/forge/timeline.jsonl
	# Once, so that forge's state directory exists before the first
	# picture of the repository.
	forge verify -- true >/dev/null 2>&1
	fault_guarded >"$T/guarded"
	# Kept, to put back after a run that changed them: the next runs
	# are judged on their own.
	cp -a "$R" "$T/r.kept" && cp -a "$T/mine" "$T/mine.kept" || exit 99
	# What each copy must be: the working state; for --staged, what
	# the index holds.
	manifest_source "$R" >"$T/want.worktree"
	mkdir "$T/staged"
	git checkout-index -a --prefix="$T/staged/" || exit 99
	"$TREELIST" "$T/staged" >"$T/want.staged"
	# For --rev=main, HEAD's tree, through an index of the test's own.
	mkdir "$T/rev"
	GIT_INDEX_FILE=$T/rev.index git read-tree HEAD || exit 99
	GIT_INDEX_FILE=$T/rev.index git checkout-index -a \
	    --prefix="$T/rev/" || exit 99
	"$TREELIST" "$T/rev" >"$T/want.rev"
	rm -rf "$T/staged" "$T/rev" "$T/rev.index"
}

# fault_guarded: what no run may change.  The git directory's files with
# their times (a directory's time aside: .git/worktrees changes with
# each copy), but forge's own state and the registrations of its copies.
fault_guarded() {
	"$TREELIST" -a -m "$R"
	echo "--- .git"
	(cd "$COMMON" && find . -mindepth 1 \( -path ./forge -o \
	    -path ./objects -o \
	    \( -path './worktrees/*' ! -path ./worktrees/mine \
	    ! -path './worktrees/mine/*' \) \) -prune -o -print0) |
	    "$TREELIST" -a -m -L "$COMMON" |
	    awk -F '\t' -v OFS='\t' '$2 == "d" { NF = 5 } { print }'
	echo "--- mine"
	"$TREELIST" -a -m "$T/mine"
}

# fault_objects: the repository's objects, without their times: git
# refreshes the time of an object it is asked to write wherever it
# finds it, the repository's own object directory included (the proof
# writes into a directory of its own, borrowing the repository's).
fault_objects() {
	(cd "$COMMON" && find ./objects -print0) | "$TREELIST" -a -L "$COMMON"
}

# fault_want MODE: the manifest the command must print.
fault_want() {
	case $1 in
	staged|rev) cat "$T/want.$1" ;;
	*) cat "$T/want.worktree" ;;
	esac
}

# The copies forge keeps on purpose, as forge status lists them: their
# tops, one a line.
fault_parked() {
	forge status --json 2>/dev/null >"$T/status.json"
	for f_k in reusable kept; do
		f_i=0
		while :; do
			f_p=$("$JSONPICK" "copies.$f_k.$f_i.path" <"$T/status.json")
			[ "$f_p" = - ] || [ -z "$f_p" ] && break
			echo "${f_p%/*}"
			f_i=$((f_i + 1))
		done
	done
}

# fault_left: what one forge gc leaves that it should not, one a line.
fault_left() {
	fault_parked >"$T/parked"
	for f_e in "$TMPDIR"/* "$TMPDIR"/.[!.]*; do
		[ -e "$f_e" ] || [ -L "$f_e" ] || continue
		grep -qxF "$f_e" "$T/parked" || echo "in TMPDIR: ${f_e##*/}"
	done
	for f_e in "$COMMON"/forge/copies/*; do
		[ -e "$f_e" ] || continue
		grep -qxF "$TMPDIR/forge-${f_e##*/}" "$T/parked" ||
		    echo "a record: ${f_e##*/}"
	done
	for f_e in "$COMMON"/worktrees/*; do
		[ -e "$f_e" ] || continue
		[ "${f_e##*/}" = mine ] && continue
		f_g=$(cat "$f_e/gitdir" 2>/dev/null)
		f_top=${f_g%/*}
		f_top=${f_top%/*}
		grep -qxF "$f_top" "$T/parked" ||
		    echo "a registration: ${f_e##*/} ($(ls "$f_e" | tr '\n' ' '))"
	done
	git -C "$R" worktree list --porcelain |
	    sed -n 's/^worktree //p' | while read -r f_w; do
		case $f_w in
		"$R"|"$T/mine") ;;
		*) grep -qxF "${f_w%/*}" "$T/parked" ||
		    echo "a worktree listed: $f_w" ;;
		esac
	done
	# A process of a run: started by forge (its run id in the
	# environment) in this test (its TMPDIR).
	for f_f in $(grep -lsz "^TMPDIR=$TMPDIR\$" /proc/[0-9]*/environ); do
		grep -qsz '^FORGE_RUN=' "$f_f" || continue
		f_p=${f_f%/environ}
		echo "a process: ${f_p#/proc/} $(tr '\0' ' ' <"$f_p/cmdline" \
		    2>/dev/null)"
	done
}

# fault_events: how many verify events the timeline holds.
fault_events() {
	cat "$TL" 2>/dev/null | grep -c '"event":"verify"'
}

# fault_new_events N: the verify events after the first N.
fault_new_events() {
	grep '"event":"verify"' "$TL" 2>/dev/null | awk -v n="$1" 'NR > n'
}

# fault_plan MODE: a clean run of MODE, traced with -f: it must pass on
# the right copy, and sets what injected runs are compared with
# (the tree id, in $T/tree.MODE).  $T/plan.MODE gets one line per call:
# "name pre own all" -- forge's own calls before main, forge's own after
# (its main thread), and the most any one process of the run made.
fault_plan() {
	f_m=$1
	forge gc --all >/dev/null 2>&1
	# A run first, so that the traced one does what those after it
	# will: finds forge's state as a run of the mode leaves it, and for
	# a reused mode, a copy parked.
	# shellcheck disable=SC2046 # flags, split on purpose
	forge verify $(fault_flags "$f_m") -- true >/dev/null 2>&1
	f_before=$(fault_events)
	# shellcheck disable=SC2046
	strace -f -qq -o "$T/plan.$f_m.log" "$FORGE" verify \
	    $(fault_flags "$f_m") -- "$FAULT_CMD" . >"$T/plan.out" \
	    2>"$T/plan.err" </dev/null
	f_rc=$?
	f_ev=$(fault_new_events "$f_before")
	f_tree=$(printf '%s\n' "$f_ev" | "$JSONPICK" tree)
	printf '%s\n' "$f_tree" >"$T/tree.$f_m"
	fault_want "$f_m" >"$T/want"
	if [ "$f_rc" -eq 0 ] && cmp -s "$T/plan.out" "$T/want" &&
	    [ "$(printf '%s\n' "$f_ev" | "$JSONPICK" verdict)" = PASS ]; then
		pass "$f_m: a clean run, traced, passes on the copy it must"
	else
		fail "$f_m: a clean run, traced, passes on the copy it must" \
		    "exit $f_rc" "$(tail -n 5 "$T/plan.err")" \
		    "$(diff "$T/want" "$T/plan.out" | head -n 20)"
		return 1
	fi
	awk '
	NR == 1 { main = $1 }
	{
		pid = $1
		line = $0
		sub(/^[0-9]+ +/, "", line)
		if (line !~ /^[a-z_0-9]+\(/)
			next
		name = line
		sub(/\(.*/, "", name)
		names[name] = 1
		n[pid, name]++
		if (n[pid, name] > all[name])
			all[name] = n[pid, name]
		if (pid != main)
			next
		if (!started && line ~ /^openat\(AT_FDCWD, "\/dev\/null", O_RDWR\)/) {
			started = 1
		}
		if (started)
			own[name]++
		else
			pre[name]++
	}
	END {
		for (name in names)
			printf "%s %d %d %d\n", name, pre[name], own[name], all[name]
	}' "$T/plan.$f_m.log" | sort >"$T/plan.$f_m"
	forge gc >/dev/null 2>&1
	fault_parked >"$T/parked"
	fault_park "$f_m"
	fault_objects >"$T/objects"
}

# fault_at MODE CALL PATTERN: which of forge's own calls of CALL, in the
# plan of MODE, is the first whose line matches PATTERN (grep -E): the
# occurrence that fault_once is to fail to fail that very call.
fault_at() {
	awk -v call="$2" -v pat="$3" '
	NR == 1 { main = $1 }
	$1 == main {
		line = $0
		sub(/^[0-9]+ +/, "", line)
		if (index(line, call "(") != 1)
			next
		n++
		if (line ~ pat) {
			print n
			exit
		}
	}' "$T/plan.$1.log"
}

# fault_before MODE CALL PATTERN: how many of forge's own calls of CALL,
# in the plan of MODE, come after its start-up and before the first
# line that matches PATTERN.
fault_before() {
	awk -v call="$2" -v pat="$3" '
	NR == 1 { main = $1 }
	$1 == main {
		line = $0
		sub(/^[0-9]+ +/, "", line)
		if (line ~ /^openat\(AT_FDCWD, "\/dev\/null", O_RDWR\)/)
			started = 1
		if (line ~ pat)
			exit
		if (started && index(line, call "(") == 1)
			n++
	}
	END { print n + 0 }' "$T/plan.$1.log"
}

# fault_spawn_call MODE: the call forge starts a process without a hook
# with, as MODE's plan shows it: vfork, or clone where the C library
# makes its vfork of clone (CLONE_VFORK).
fault_spawn_call() {
	if awk 'NR == 1 { main = $1 }
	    $1 == main && $2 ~ /^vfork\(/ { found = 1; exit }
	    END { exit !found }' "$T/plan.$1.log"; then
		echo vfork
	else
		echo clone
	fi
}

# fault_spawn_of MODE PATTERN: which of forge's own calls of that kind,
# in the plan of MODE, started the first process whose exec matches
# PATTERN.  Its parent waits until it execs: the child's lines come
# before the call's end, and the first new process after the call's
# start is the child.
fault_spawn_of() {
	awk -v pat="$2" -v call="$(fault_spawn_call "$1")" '
	NR == 1 { main = $1 }
	{
		line = $0
		sub(/^[0-9]+ +/, "", line)
	}
	$1 == main && index(line, call "(") == 1 {
		n++
		if (match(line, /= [0-9]+$/))
			at[substr(line, RSTART + 2)] = n
		else
			pending = n
		next
	}
	$1 == main && index(line, "<... " call " resumed>") == 1 {
		if (pending && match(line, /= [0-9]+$/) &&
		    !(substr(line, RSTART + 2) in at))
			at[substr(line, RSTART + 2)] = pending
		pending = 0
		next
	}
	$1 != main && !($1 in seen) {
		seen[$1] = 1
		if (pending && !($1 in at))
			at[$1] = pending
	}
	$1 != main && index(line, "execve(") == 1 && line ~ pat &&
	    ($1 in at) {
		print at[$1]
		exit
	}' "$T/plan.$1.log"
}

# fault_park MODE: for a reused mode, a copy parked for the next run to
# reuse, if the last left none ($T/parked lists those it left).
fault_park() {
	case $1 in
	reuse|incremental)
		if ! grep -q . "$T/parked"; then
			# shellcheck disable=SC2046 # flags, split on purpose
			forge verify $(fault_flags "$1") -- true \
			    >/dev/null 2>&1
			fault_parked >"$T/parked"
		fi ;;
	esac
}

# fault_spread COUNT QUOTA: QUOTA occurrences out of 1..COUNT, the first
# and the last among them, the rest evenly between.
fault_spread() {
	awk -v c="$1" -v q="$2" 'BEGIN {
		if (c < 1 || q < 1)
			exit
		if (c <= q) {
			for (i = 1; i <= c; i++)
				print i
			exit
		}
		if (q == 1) {
			print 1
			exit
		}
		last = 0
		for (i = 0; i < q; i++) {
			k = 1 + int((c - 1) * i / (q - 1) + 0.5)
			if (k != last)
				print k
			last = k
		}
	}'
}

FAULT_RUNS=0
FAULT_REACHED=0
FAULT_FAILED=0

# fault_once MODE HOW CALL ERRNO N: forge verify in MODE with the Nth
# CALL failing with ERRNO (HOW: own or all); one TAP line.
fault_once() {
	f_m=$1 f_how=$2 f_sc=$3 f_e=$4 f_n=$5
	f_d="$f_m $f_how $f_sc#$f_n $f_e"
	f_before=$(fault_events)
	f_f=
	[ "$f_how" = all ] && f_f=-f
	# execve too: forge's pid is the first line's.  With FAULT_PATH,
	# only the calls on that path count (strace -P); N 0 injects
	# nothing (FAULT_SETENV: strace -E options, for a shim).
	f_inject="-e inject=$f_sc:error=$f_e:when=$f_n"
	[ "$f_n" = 0 ] && f_inject=
	# shellcheck disable=SC2046,SC2086 # flags, split on purpose
	strace $f_f -q -o "$T/f.log" ${FAULT_PATH:+-P "$FAULT_PATH"} \
	    ${FAULT_SETENV:-} -e trace="execve,$f_sc" $f_inject \
	    "$FORGE" verify $(fault_flags "$f_m") -- "$FAULT_CMD" . \
	    >"$T/f.out" 2>"$T/f.err" </dev/null
	f_rc=$?
	FAULT_RUNS=$((FAULT_RUNS + 1))
	f_why=
	f_inj=$(grep -m 1 '(INJECTED)' "$T/f.log")
	[ -n "$f_inj" ] && FAULT_REACHED=$((FAULT_REACHED + 1))
	f_main=$(sed -n '1s/^\([0-9]*\) .*/\1/p' "$T/f.log")
	if [ -n "$f_f" ]; then
		f_death=$(grep -E "^$f_main +\\+\\+\\+ killed by" "$T/f.log")
	else
		f_death=$(grep -E '^\+\+\+ killed by' "$T/f.log")
	fi
	[ -z "$f_death" ] || f_why="$f_why died-of-a-signal"
	grep -Eq 'Sanitizer|runtime error:' "$T/f.err" &&
	    f_why="$f_why sanitizer"
	f_ev=$(fault_new_events "$f_before")
	f_nev=$(printf '%s' "$f_ev" | grep -c '"event"')
	f_verdict=$(printf "%s" "$f_ev" | "$JSONPICK" verdict)
	[ "$f_nev" -le 1 ] || f_why="$f_why $f_nev-events"
	case $f_rc in
	0)
		[ "$f_verdict" = PASS ] || f_why="$f_why exit-0-without-a-PASS"
		[ "$(printf '%s\n' "$f_ev" | "$JSONPICK" tree)" = \
		    "$(cat "$T/tree.$f_m")" ] || f_why="$f_why another-tree"
		fault_want "$f_m" >"$T/want"
		cmp -s "$T/f.out" "$T/want" || f_why="$f_why not-the-copy"
		;;
	*)
		[ "$f_verdict" != PASS ] || f_why="$f_why a-PASS-with-exit-$f_rc"
		if [ "$f_rc" -eq 125 ]; then
			[ "$f_nev" -eq 0 ] || [ "$f_verdict" = ERROR ] ||
			    f_why="$f_why exit-125-with-$f_verdict"
			grep -q '^forge: ' "$T/f.err" ||
			    f_why="$f_why exit-125-unexplained"
			# What failed is said: the error's own text.
			f_txt=$(printf '%s\n' "$f_inj" |
			    sed -n 's/.* = -1 E[A-Z]* (\(.*\)) (INJECTED)$/\1/p')
			if [ -z "$f_f" ] && [ -n "$f_txt" ] &&
			    ! grep -qF "$f_txt" "$T/f.err"; then
				f_why="$f_why error-not-said"
			fi
		elif [ -z "$f_f" ]; then
			# The command is never failed: forge's own runs end
			# in 0 or 125.
			f_why="$f_why exit-$f_rc"
		elif [ "$(printf '%s' "$f_ev" | "$JSONPICK" status)" != \
		    "$f_rc" ]; then
			# The command's own failure (a call of its own
			# failed), recorded as such, or nothing else.
			f_why="$f_why exit-$f_rc-not-the-command's"
		fi
		;;
	esac
	f_left=$(forge gc 2>&1 >/dev/null) || f_why="$f_why gc-failed"
	[ -z "$f_left" ] || f_why="$f_why gc-said-something"
	f_gone=$(fault_left)
	[ -z "$f_gone" ] || f_why="$f_why left-behind"
	f_left="$f_left${f_gone:+
$f_gone}"
	fault_guarded >"$T/guarded.now"
	cmp -s "$T/guarded" "$T/guarded.now" ||
	    f_why="$f_why repository-changed"
	fault_objects >"$T/objects.now"
	if [ -n "$(comm -23 "$T/objects" "$T/objects.now")" ]; then
		f_why="$f_why objects-changed"
	elif [ "$f_m" != staged ] && ! cmp -s "$T/objects" "$T/objects.now"
	then
		# --staged writes the trees of the index it verifies.
		f_why="$f_why objects-added"
	fi
	if [ -z "$f_why" ]; then
		pass "$f_d: exit $f_rc${f_verdict:+ $f_verdict}"
	else
		FAULT_FAILED=$((FAULT_FAILED + 1))
		fail "$f_d:$f_why" "exit $f_rc, verdict ${f_verdict:-none}" \
		    "injected: ${f_inj:-(never reached)}" \
		    "stderr:" "$(tail -n 8 "$T/f.err")" \
		    "left:" "$f_left" \
		    "repository (- before, + now):" \
		    "$(diff "$T/guarded" "$T/guarded.now" | head -n 10)" \
		    "replay: scripts/faults -1 '$f_m $f_how $f_sc $f_e $f_n'"
		if [ -n "${FAULT_KEEP:-}" ]; then
			f_k=$FAULT_KEEP/$f_m-$f_how-$f_sc-$f_n-$f_e
			mkdir -p "$f_k"
			cp "$T/f.log" "$T/f.err" "$T/f.out" "$f_k/" 2>/dev/null
		fi
		fault_scrub
	fi
	fault_park "$f_m"
}

# fault_scrub: what a failed run left, gone, so that the next run is
# judged on its own: every copy, record and registration but the user's,
# and the repository and the user's worktree as they were kept, if the
# run changed them.
fault_scrub() {
	forge gc --all >/dev/null 2>&1
	chmod -R u+rwx "$TMPDIR" 2>/dev/null
	rm -rf "$TMPDIR" "$COMMON"/forge/copies/*
	mkdir -p "$TMPDIR"
	git -C "$R" worktree prune
	if ! cmp -s "$T/guarded" "$T/guarded.now"; then
		cd "$T" && rm -rf "$R" "$T/mine" &&
		    cp -a "$T/r.kept" "$R" && cp -a "$T/mine.kept" "$T/mine" &&
		    cd "$R" || exit 99
		fault_objects >"$T/objects"
	fi
	: >"$T/parked"
}

# fault_aim MODE CALL ERRNO N PATTERN: fault_once MODE own CALL ERRNO N,
# aimed at the call that PATTERN (grep -E) finds in the line of the
# call failed or in what forge said: the order of forge's calls can vary
# a little from run to run (gits end in their own time), so the places
# around N are tried in turn until one is that call.  Each try is a run
# like any other; a last line says whether the call was hit.
fault_aim() {
	f_tries=0
	if [ -z "$4" ]; then
		fail "$1: the call aimed at is in the plan" "no $2 found"
		return
	fi
	for f_try in 0 1 -1 2 -2 3 -3 4 -4 5; do
		[ $(($4 + f_try)) -ge 1 ] || continue
		fault_once "$1" own "$2" "$3" $(($4 + f_try))
		f_tries=$((f_tries + 1))
		if grep '(INJECTED)' "$T/f.log" | cat - "$T/f.err" |
		    grep -Eq -- "$5"; then
			pass "$1: the call aimed at was hit ($f_tries runs)"
			return
		fi
	done
	fail "$1: the call aimed at was hit" "no $2 matched /$5/ near #$4"
}

# fault_path MODE CALL ERRNO PATH: fault_once MODE own CALL ERRNO 1, on
# the first CALL that names PATH or a descriptor open on it, and a line
# that says whether one was failed.
fault_path() {
	FAULT_PATH=$4 fault_once "$1" own "$2" "$3" 1
	if grep -q '(INJECTED)' "$T/f.log"; then
		pass "$1: the $2 of ${4##*/} was failed"
	else
		fail "$1: the $2 of ${4##*/} was failed" "no $2 on $4"
	fi
}

# fault_failpath MODE PATTERN ERRNO: forge verify in MODE, with open(2)
# of a path that PATTERN (fnmatch) matches failing with ERRNO, through
# tests/failpath.so: for a path known only once the run names it (the
# copy's); then a line that says whether the error was said.
fault_failpath() {
	f_shim=${TREELIST%/*}/failpath.so
	f_no=$(perl -MPOSIX -e "print POSIX::$3()")
	f_said=$(perl -e "\$! = $f_no; print \"\$!\"")
	FAULT_SETENV="-E LD_PRELOAD=$f_shim -E FAILPATH=$2 -E FAILPATH_ERRNO=$f_no
	    -E ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	    fault_once "$1" own openat "$3" 0
	like "$1: the open of $2 that failed ($3) is said" \
	    "$(cat "$T/f.err")" "$f_said"
}

# fault_sweep MODE HOW QUOTA ALL [PHASE PERIOD]: each call of MODE's
# plan, at QUOTA occurrences, with its first errno (ALL=1: its errnos in
# turn).  With PERIOD, the occurrences are those of PHASE (0 to
# PERIOD-1) in a spread of QUOTA * PERIOD: sweeps of PERIOD modes, each
# with its own PHASE, fail each call at different places.
fault_sweep() {
	f_sm=$1 f_sh=$2 f_sq=$3 f_sa=$4 f_phase=${5:-0} f_period=${6:-1}
	while read -r f_name f_pre f_own f_all <&4; do
		if [ -n "${FAULT_ONLY:-}" ] &&
		    ! printf '%s\n' "$f_name" | grep -Eq -- "$FAULT_ONLY"; then
			continue
		fi
		[ -z "$(fault_excluded "$f_name" "$f_sh")" ] || continue
		if [ -n "$FAULT_ASAN" ]; then
			case $f_name in mmap) continue ;; esac
		fi
		# Past forge's own start-up (the dynamic loader's calls, in
		# all runs those of every process up to the count of
		# forge's): a loader that cannot map a library is not forge.
		if [ "$f_sh" = own ]; then
			f_count=$f_own
		else
			f_count=$((f_all - f_pre))
		fi
		f_errs=$(fault_errnos "$f_name")
		[ "$f_sa" = 1 ] || f_errs=${f_errs%% *}
		f_j=0
		for f_k in $(fault_spread "$f_count" \
		    $((f_sq * f_period)) | awk -v p="$f_phase" \
		    -v n="$f_period" '(NR - 1) % n == p % n'); do
			# Each occurrence with the next errno, round.
			set -- $f_errs
			f_i=$((f_j % $#))
			shift "$f_i"
			f_at=$((f_pre + f_k))
			fault_once "$f_sm" "$f_sh" "$f_name" "$1" "$f_at"
			f_j=$((f_j + 1))
		done
	done 4<"$T/plan.$f_sm"
}
