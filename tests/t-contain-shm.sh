#!/bin/sh
# --contain for a repository that lives under /dev/shm, which a contained
# step sees as it sees /tmp: a private tmpfs of its own, with the way to
# the copy and to the real tree and its git directory bound in, the
# copy writable, the rest read-only.  Once with the copy in TMPDIR (under
# /tmp), once with TMPDIR under /dev/shm too.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

if [ ! -d /dev/shm ] || [ ! -w /dev/shm ]; then
	echo "1..0 # SKIP no writable /dev/shm"
	exit 0
fi
S=$(mktemp -d /dev/shm/forge-test.XXXXXX) || exit 99
S=$(cd "$S" && pwd -P)
trap 'chmod -R u+rwx "$S" 2>/dev/null; rm -rf "$S"; cleanup_test_dir' EXIT

new_repo "$S/r"
git config forge.breakerThreshold 0
printf 'edit\n' >>hello.txt
printf 'untracked\n' >notes.txt
forge verify --isolated -- true >/dev/null 2>&1
run_forge verify --isolated --contain -- true
if [ "$rc" -ne 0 ]; then
	echo "1..0 # SKIP --contain cannot run here: $(printf '%s\n' "$err" |
	    tail -n 1)"
	exit 0
fi

before=$(real_state "$S/r")

for where in tmp shm; do
	if [ "$where" = shm ]; then
		mkdir "$S/tmp"
		TMPDIR=$S/tmp
	fi
	run_forge verify --isolated --contain -- sh -c '
		echo bad >"$1/hello.txt" || echo "tree: read-only"
		echo bad >"$1/.git/config" || echo "git dir: read-only"
		git status --porcelain >/dev/null && echo "git: works"
		git diff --quiet HEAD -- hello.txt
		[ $? -eq 1 ] && echo "copy: edited"
		echo ok >written-in-copy && echo "copy: writable"
		echo probe >/dev/shm/probe.$$ && echo "shm: writable"
		ls /dev/shm | grep -v "^probe\." | tr "\n" " "; echo
		' sh "$S/r"
	is "[$where] a repository under /dev/shm: the contained run passes" \
	    "$rc" 0
	like "[$where] its tree is read-only" "$out" 'tree: read-only'
	like "[$where] and so is its git directory" "$out" 'git dir: read-only'
	like "[$where] git works in the copy" "$out" 'git: works'
	like "[$where] which is the working state" "$out" 'copy: edited'
	like "[$where] and writable" "$out" 'copy: writable'
	like "[$where] /dev/shm is writable" "$out" 'shm: writable'
	is "[$where] and private" "$(ls /dev/shm | grep -c '^probe\.')" 0
	is "[$where] nothing outside the copy changed" \
	    "$(real_state "$S/r")" "$before"
	is "[$where] nothing is left" "$(leftovers "$S/r")" ""
done
done_testing
