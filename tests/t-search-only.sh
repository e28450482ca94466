#!/bin/sh
# For a user who is not root, directories that may be searched but not
# read (mode 311): forge walks the copy and the working tree through no
# symlink, and such a directory is no reason to leave a submodule out, to
# refuse the command's directory, or to lose a file's exec bit.  Also: a
# submodule whose directory the working tree has removed leaves nothing
# in the copy.  As root, a user who is not is nobody (65534) here.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

new_repo "$T/sub-up"

# The last: where the submodule is, nothing is left.
new_repo "$T/g"
git -c protocol.file.allow=always submodule add -q "$T/sub-up" d/sub ||
    exit 99
git commit -q -m sub || exit 99
rm -rf d
run_forge verify --isolated -- sh -c 'test -e d && echo there || echo gone'
is "a submodule's directories removed: forge passes" "$rc" 0
is "and the copy has none of them" "$out" gone

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1 ||
    ! setpriv --reuid=65534 --regid=65534 --clear-groups \
    sh -c 'test -x "$1" && test -r "$2"' sh "$FORGE" "$TESTLIB" \
    2>/dev/null; then
	for n in 1 2 3 4 5 6; do
		skip "search-only directories ($n)" \
		    "needs root, setpriv, and a build nobody can run"
	done
	done_testing
	exit
fi

# Everything below as nobody, in a directory of nobody's.
chmod 711 "$T"
U="$T/u"
mkdir -p "$U/home" "$U/tmp"
cp -R "$T/sub-up" "$U/sub-up"
chown -R 65534:65534 "$U"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env \
	    HOME="$U/home" TMPDIR="$U/tmp" GIT_CONFIG_NOSYSTEM=1 "$@"
}
as_nobody git config --global user.name nobody
as_nobody git config --global user.email nobody@example.invalid
as_nobody git config --global protocol.file.allow always
as_nobody sh -e -c '
	cd "$1"
	git init -q w && cd w
	git config forge.breakerThreshold 0
	mkdir -p d src/sub
	printf "#!/bin/sh\n" >d/run.sh
	printf "a\n" >src/sub/a
	git add -A && git commit -q -m files
	git submodule add -q "$1/sub-up" d/sub && git commit -q -m sub
	' sh "$U" >/dev/null 2>&1 || exit 99

# A submodule in a directory of mode 311 in the working tree.
chmod 311 "$U/w/d"
as_nobody sh -c 'cd "$1" && "$2" verify --isolated -- cat d/sub/hello.txt' \
    sh "$U/w" "$FORGE" >"$T/o1" 2>&1
like "a submodule below a search-only directory: in the copy" \
    "$(cat "$T/o1")" '^hello$'
like "and forge passes" "$(cat "$T/o1")" 'Verdict: PASS'

# core.fileMode false, an exec bit below such a directory.
chmod 755 "$U/w/d"
chmod +x "$U/w/d/run.sh"
chmod 311 "$U/w/d"
as_nobody sh -c 'cd "$1" && git config core.fileMode false &&
    "$2" verify --isolated -- sh -c "test -x d/run.sh && echo exec"' \
    sh "$U/w" "$FORGE" >"$T/o2" 2>&1
like "core.fileMode false: the exec bit below it is in the copy" \
    "$(cat "$T/o2")" '^exec$'
like "and forge passes" "$(cat "$T/o2")" 'Verdict: PASS'
chmod 755 "$U/w/d"

# The copy's top made search-only by a setup step: the command still
# runs in the copy's counterpart of the directory forge started in.
as_nobody sh -c 'cd "$1/src/sub" && git config forge.setup "chmod 311 ." &&
    "$2" verify --isolated -- cat a' sh "$U/w" "$FORGE" >"$T/o3" 2>&1
like "a search-only top: the command runs in src/sub" "$(cat "$T/o3")" '^a$'
like "and forge passes" "$(cat "$T/o3")" 'Verdict: PASS'
as_nobody sh -c 'cd "$1" && git config --unset forge.setup' sh "$U/w"

done_testing
