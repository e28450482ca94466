#!/bin/sh
# scripts/bootstrap: quiet, with the whole transcript in bootstrap.log,
# and idempotent: on an up-to-date tree it neither runs autoreconf nor
# configure again.  The tools it runs are fakes that say they ran.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

src="$T/src"
mkdir -p "$src/scripts" "$T/bin"
cp "$top_srcdir/scripts/bootstrap" "$src/scripts/"
: >"$src/configure.ac"
: >"$src/Makefile.am"
calls="$T/calls"

# fake NAME SCRIPT: a command NAME in $T/bin that records its arguments
# in $calls, then runs SCRIPT.
fake() {
	{
		echo '#!/bin/sh'
		echo "echo \"$1 \$*\" >>'$calls'"
		printf '%s\n' "$2"
	} >"$T/bin/$1"
	chmod +x "$T/bin/$1"
}
noise='i=0; while [ $i -lt 40 ]; do echo "$0: line $i of the transcript"; i=$((i + 1)); done'
fake autoreconf "$noise"'
printf "#!/bin/sh\necho \"configure \$*\" >>\"%s\"\n: >Makefile\n" "'"$calls"'" >configure
chmod +x configure
: >Makefile.in'
fake make "$noise"'
[ -z "${MAKE_FAILS:-}" ] || { echo "make: *** [all] Error 2"; exit 2; }
[ -e forge ] || : >forge'
for c in cc automake git mandoc strace; do
	fake "$c" ''
done
fake pkg-config 'case " $* " in *" ${PKG_MISSING:-none} "*) exit 1 ;; esac'
fake apt-get ''
fake id 'echo "${FAKE_UID:-0}"'
PATH="$T/bin:$PATH"

# boot [ARGS]: scripts/bootstrap in the tree, the tools it ran in
# $ran, its output in $out and $err, its status in $rc.
boot() {
	: >"$calls"
	"$src/scripts/bootstrap" "$@" >"$T/.stdout" 2>"$T/.stderr" </dev/null
	rc=$?
	out=$(cat "$T/.stdout")
	err=$(cat "$T/.stderr")
	ran=$(sed -n 's/^\(autoreconf\|configure\|make\|apt-get\) .*/\1/p' \
	    "$calls" | tr '\n' ' ')
}

boot
is "a fresh tree: bootstrap succeeds" "$rc" 0
is "it runs autoreconf, configure and make" "$ran" "autoreconf configure make "
ok "and says so in a few lines" test "$(printf '%s\n' "$out" | wc -l)" -le 5
is "with nothing on stderr" "$err" ""
like "what was configured" "$out" '^bootstrap: configured \(./configure\)$'
like "where the binary is" "$out" '^bootstrap: built ./forge'
like "and how to put it on PATH" "$out" \
    "^bootstrap: to run it as forge: export PATH=\"$src:\\\$PATH\", or make install\$"
like "where the transcript is" "$out" 'transcript in bootstrap.log$'
unlike "which is not on screen" "$out" 'of the transcript'
is "but in the log, in the tree" \
    "$(grep -c 'of the transcript' "$src/bootstrap.log")" 80

boot
is "a second run succeeds" "$rc" 0
is "running make alone" "$ran" "make "
like "saying it is configured" "$out" '^bootstrap: already configured'
like "and ./forge up to date" "$out" '^bootstrap: ./forge is up to date$'
is "its log is this run's" \
    "$(grep -c 'of the transcript' "$src/bootstrap.log")" 40

boot --prefix=/opt/forge
is "arguments configure again" "$ran" "configure make "
like "and are said" "$out" 'configured \(./configure --prefix=/opt/forge\)'

boot -v
like "-v: the transcript on screen" "$out" 'make: line 39 of the transcript'
like "and in the log" "$(cat "$src/bootstrap.log")" 'line 39 of the transcript'

MAKE_FAILS=1 boot
is "a failing step fails bootstrap" "$rc" 1
like "showing the end of its transcript" "$err" 'Error 2'
like "and where the rest is" "$err" 'make failed \(exit status 2\); the whole transcript is in bootstrap.log'

rm -f "$src/Makefile"
touch -d '2001-01-01' "$src/configure"
boot
is "configure.ac newer than configure: autoreconf again" "$ran" \
    "autoreconf configure make "

# A missing dependency: installed by apt-get as root, else the command.
PKG_MISSING=check boot
is "as root, a missing package is installed" "$ran" \
    "apt-get apt-get make "
is "with apt-get install" "$(grep '^apt-get install' "$calls")" \
    "apt-get install -y -q --no-install-recommends check"
like "which says so" "$out" '^bootstrap: installed: check$'
PKG_MISSING=check FAKE_UID=1000 boot
is "otherwise, bootstrap stops" "$rc" 1
is "installing nothing" "$ran" ""
like "and says what to run" "$err" 'sudo apt-get install check'

# The transcript stays out of git.
# (The real git: the one on PATH is a fake that says yes.)
"$REAL_GIT" init -q "$T/ign"
if [ -f "$top_srcdir/.gitignore" ]; then
	cp "$top_srcdir/.gitignore" "$T/ign/"
	ok "git ignores bootstrap.log" \
	    "$REAL_GIT" -C "$T/ign" check-ignore -q bootstrap.log
else
	skip "git ignores bootstrap.log" "no .gitignore in a release tarball"
fi

# The README's quick start: bootstrap and the demo, one command for the
# suite, in parallel (and how long it took), and where the binary is;
# CI runs that command first.
readme="$top_srcdir/README"
if [ -f "$readme" ]; then
	qs=$(sed -n '/^Quick start$/,/^Installing$/p' "$readme")
	like "README: bootstrap and the demo" "$qs" \
	    '^    scripts/bootstrap && scripts/demo '
	like "README: bootstrap and the suite, in parallel" "$qs" \
	    '^    scripts/bootstrap && make -j"\$\(nproc\)" check '
	is "README: one command runs the suite" \
	    "$(printf '%s\n' "$qs" | grep -c '^    .*make .*check')" 1
	like "README: how long it took, on how many CPUs" "$qs" \
	    '[0-9.]+ minutes on two CPUs'
	like "README: the binary's place, and how to put it on PATH" "$qs" \
	    '^    export PATH="\$PWD:\$PATH" '
else
	skip "README's quick start" "no README here"
fi
if [ -f "$top_srcdir/.ci/run" ]; then
	ci=$(cat "$top_srcdir/.ci/run")
	like "CI: the README's command, bootstrap" "$ci" '^scripts/bootstrap$'
	like "CI: then the suite, a job per CPU" "$ci" \
	    '^make -j"\$jobs" check( |$)'
	like "CI: as many as nproc says" "$ci" '^jobs=\$\(nproc\)$'
else
	skip "CI runs the README's command" "no .ci/run here"
fi

done_testing
