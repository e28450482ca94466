#!/bin/sh
# A submodule's own build output in an incremental copy, where the top
# project's setup writes it (jq's configure writes vendor/oniguruma's
# Makefile): kept with the submodule's copy from run to run, for the
# working state and for the commit hook's staged tree alike, so that
# make rebuilds only what changed and the runs pass as a fresh copy
# does.  An ignore rule of the submodule changed: what it no longer
# ignores goes, and so does what forge put there that it ignores now.
# Where the submodule's copy is made afresh, setup runs again.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

# The project's own make must not take this suite's make's variables.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES TESTS
command -v make >/dev/null 2>&1 || {
	echo "1..0 # SKIP make is missing"
	exit 0
}

# onig: the submodule, whose build output its own rules ignore.
init_repo "$T/onig"
(
	cd "$T/onig" && printf 'a\n' >a.c && printf 'b\n' >b.c &&
	printf 'Makefile\n*.o\nlibonig.a\n.gitattributes\n' >.gitignore &&
	git add -A && git commit -q -m onig
) || exit 99
new_repo "$T/r"
git config forge.breakerThreshold 0
git -c protocol.file.allow=always submodule -q add "$T/onig" vendor/onig ||
    exit 99
# The top project's configure writes the submodule's Makefile.
cat >configure.sh <<'EOF'
echo configured
cat >vendor/onig/Makefile <<'MK'
all: libonig.a
libonig.a: a.o b.o
	cat a.o b.o >libonig.a
.SUFFIXES: .c .o
.c.o:
	cp $< $@
MK
EOF
git add -A && git commit -q -m top || exit 99
git config forge.setup 'sh configure.sh'
git config forge.verify 'make -C vendor/onig'
# objects: each object of the submodule's copy, with its mtime.
objects='"$1" -m vendor/onig | grep "\.o	"'

# onig_run [ARGS...]: an incremental run of make and then of objects.
onig_run() {
	run_forge verify --incremental "$@" -- sh -c \
	    "make -C vendor/onig && $objects" sh "$TREELIST"
}
# line PATTERN: the line of the last run's output that matches.
line() {
	printf '%s\n' "$out" | grep -- "$1"
}

for kind in worktree staged; do
	forge gc --all >/dev/null 2>&1
	args=
	[ "$kind" = staged ] && args=--staged
	onig_run $args
	is "$kind: the first run passes" "$rc" 0
	like "$kind: setup ran, make built all" "$out" 'cp a\.c a\.o'
	a1=$(line '^a\.o	') b1=$(line '^b\.o	')
	onig_run $args
	is "$kind: the second run passes, as a fresh copy does" "$rc" 0
	like "$kind: in the copy the first parked" "$err" \
	    'running verification in a reused incremental copy'
	unlike "$kind: setup did not run again" "$out" '^configured$'
	like "$kind: nothing to rebuild" "$out" 'Nothing to be done'
	is "$kind: an object keeps its mtime" "$(line '^a\.o	')" "$a1"
	is "$kind: and the other" "$(line '^b\.o	')" "$b1"
	# An edit to one source of the submodule: its object alone.
	printf 'b %s\n' "$kind" >>vendor/onig/b.c
	if [ "$kind" = staged ]; then
		git -C vendor/onig commit -q -am "b" && git add vendor/onig
	fi
	onig_run $args
	is "$kind: after an edit in the submodule, a run passes" "$rc" 0
	like "$kind: the edited source rebuilt" "$out" 'cp b\.c b\.o'
	unlike "$kind: the other not" "$out" 'cp a\.c a\.o'
	is "$kind: the object its edit did not touch keeps its mtime" \
	    "$(line '^a\.o	')" "$a1"
	run_forge verify --isolated --no-reuse
	is "$kind: a fresh copy passes as well" "$rc" 0
	if [ "$kind" = staged ]; then
		git commit -q -m "onig b"
	else
		git -C vendor/onig checkout -q .
	fi
done

# An ignore rule of the submodule changed in the working tree: the
# objects its copy kept are no longer ignored, and a fresh copy has none
# of them; an untracked file forge put there is ignored now, and goes.
onig_run
printf 'notes\n' >vendor/onig/notes.txt
onig_run
run_forge verify --incremental -- sh -c 'cd vendor/onig &&
    git status --porcelain --ignored'
like "the untracked file is in the copy" "$out" '^\?\? notes\.txt$'
like "beside the objects, ignored" "$out" '^!! a\.o$'
printf 'Makefile\nlibonig.a\nnotes.txt\n' >vendor/onig/.gitignore
run_forge verify --incremental -- sh -c 'cd vendor/onig &&
    git status --porcelain --ignored; make'
is "the rules changed: the run passes" "$rc" 0
like "in the copy it reused" "$err" \
    'running verification in a reused incremental copy'
unlike "the objects no longer ignored are gone, as from a fresh copy" \
    "$out" '^(\?\?|!!) a\.o$'
like "so make builds them" "$(printf '%s\n' "$out" | grep '^cp')" \
    'cp a\.c a\.o'
unlike "the file ignored now is gone too" "$out" 'notes\.txt'
like "what is still ignored is kept" "$out" '^!! libonig\.a$'
git -C vendor/onig checkout -q .gitignore
# A command that made the copy ignore the file forge put there; the
# working tree ignores it too by the next run: the copy's own it is not.
onig_run
run_forge verify --incremental -- sh -c \
    'echo notes.txt >>vendor/onig/.gitignore'
echo notes.txt >>vendor/onig/.gitignore
run_forge verify --incremental -- sh -c 'cd vendor/onig &&
    git status --porcelain --ignored'
like "a command ignored what forge put there: the next run reuses" \
    "$err" 'running verification in a reused incremental copy'
unlike "and the file is gone, as from a fresh copy" "$out" 'notes\.txt'
like "what is the copy's own is kept" "$out" '^!! a\.o$'
git -C vendor/onig checkout -q .gitignore
rm vendor/onig/notes.txt

# A rule file a command left in the submodule's copy, ignored there: not
# the copy's to keep, as git would read it.
onig_run
run_forge verify --incremental -- sh -c \
    'printf "* text eol=crlf\n" >vendor/onig/.gitattributes'
printf 'b again\n' >>vendor/onig/b.c
run_forge verify --incremental -- sh -c 'ls -A vendor/onig; od -c vendor/onig/b.c'
is "a rule file a command left: the next run passes" "$rc" 0
like "it says it removed it" "$err" \
    'removed from the incremental copy 1 file of its own that git reads as instructions \(vendor/onig/\.gitattributes\)'
unlike "it is gone" "$out" '^\.gitattributes$'
unlike "and the file git wrote has no CR" "$out" '\\r'
git -C vendor/onig checkout -q b.c

# The submodule's copy made afresh (what the run noted of it lost, as
# with a copy an older forge parked): setup runs again, and the run
# passes.
forge gc --all >/dev/null 2>&1
onig_run
parked=$(forge status --json | "$JSONPICK" copies.reusable.0.path)
rm -f "${parked%/*}"/.forge/carry/state-*.paths
onig_run
is "the submodule's copy without its noted paths: the run passes" "$rc" 0
like "setup runs again, and says why" "$err" \
    'setup runs again: the copy of vendor/onig is a fresh one'
like "it ran" "$out" '^configured$'
onig_run
unlike "the next run keeps it all again" "$out" '^configured$'
like "nothing to rebuild" "$out" 'Nothing to be done'

forge gc --all >/dev/null 2>&1
is "forge gc --all leaves nothing behind" "$(leftovers "$T/r")" ""
done_testing
