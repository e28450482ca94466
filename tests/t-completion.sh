#!/bin/sh
# Shell completion: the bash script, sourced in bash, completes forge's
# commands, every option each command's --help lists, and the values of
# --timeout, --exit= and --change=; the zsh one likewise, where zsh is
# installed (through tests/zcomp.zsh).
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

bashcomp="$top_srcdir/completion/bash/forge"
zshdir="$top_srcdir/completion/zsh"
new_repo "$T/r"
git branch -q feature
git tag v1

if ! command -v bash >/dev/null 2>&1; then
	skip "bash completion" "bash is not installed"
else
	# comp WORD...: what bash offers for the command line WORD... (the
	# last word is the one completed), one a line, sorted.
	comp() {
		bash --norc --noprofile -c '
. "$1" || exit 99
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_forge forge
[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' bash "$bashcomp" "$@" | sort | tr '\n' ' '
	}

	is "sourcing registers the completion" \
	    "$(bash --norc --noprofile -c '. "$1" && complete -p forge' bash "$bashcomp")" \
	    "complete -F _forge forge"
	is "the commands" "$(comp forge '')" \
	    "breaker gc help hook log show status verify "
	is "forge's own options" "$(comp forge -)" "--help --version "
	is "a command begun" "$(comp forge st)" "status "
	like "verify's options" "$(comp forge verify --)" \
	    "--change --change= .*--exit= .*--timeout"
	is "--exit= values, '=' a word of its own (bash's way)" \
	    "$(comp forge verify --exit = '')" "status verdict "
	is "--exit= values, begun" "$(comp forge verify --exit = ver)" "verdict "
	is "--keep= values" "$(comp forge verify --keep = '')" \
	    "always failure never "
	is "--keep= values in one word" "$(comp forge verify --keep=f)" \
	    "--keep=failure "
	is "--exit= values in one word" "$(comp forge verify --exit=s)" \
	    "--exit=status "
	is "--timeout: the units after a number" \
	    "$(comp forge verify --timeout 10)" "10d 10h 10m 10ms 10s "
	is "after a fraction and a unit begun" "$(comp forge verify -t 1.5m)" \
	    "1.5m 1.5ms "
	is "--timeout=" "$(comp forge verify --timeout = 2)" "2d 2h 2m 2ms 2s "
	is "--change= refs" "$(comp forge verify --change = '')" \
	    "HEAD feature main v1 "
	is "--change= refs begun, in one word" \
	    "$(comp forge verify --change=fe)" "--change=feature "
	like "the command verified: a command name" \
	    "$(comp forge verify -- gi)" "(^| )git( |$)"
	like "without --" "$(comp forge verify --isolated gi)" "(^| )git( |$)"
	is "its options are not forge's" \
	    "$(comp forge verify -- make --timeout 1)" ""
	is "breaker's actions" "$(comp forge breaker '')" "reset show "
	is "hook's actions" "$(comp forge hook '')" "install uninstall "
	is "hook's hooks" "$(comp forge hook install pre-)" "pre-commit pre-push "
	is "install's step, after --" "$(comp forge hook install pre-commit -)" \
	    "-- "
	like "the step's command" "$(comp forge hook install pre-commit -- gi)" \
	    "(^| )git( |$)"
	is "its options are not forge's" \
	    "$(comp forge hook install pre-commit -- make --timeout 1)" ""
	is "uninstall takes no step" "$(comp forge hook uninstall pre-commit -)" \
	    "--help -h "
	is "help's commands" "$(comp forge help l)" "log "
	is "status's option" "$(comp forge status --j)" "--json "
	is "log -n takes a count, not an option" "$(comp forge log -n '')" ""

	# Every option a command's help lists is offered.
	for cmd in verify status log breaker gc hook; do
		offered=$(comp forge "$cmd" -)
		missing=
		for o in $(forge "$cmd" --help | sed -n 's/^ *\(-[a-z]\)\{0,1\},\{0,1\} *\(--[a-z-]*\).*/\2/p'); do
			case " $offered" in
			*" $o "* | *" $o= "*) ;;
			*) missing="$missing $o" ;;
			esac
		done
		is "forge $cmd: every option of its --help is offered" \
		    "$missing" ""
	done

	# With bash-completion, git's own completion gives the refs.
	bc=/usr/share/bash-completion/bash_completion
	if [ -r "$bc" ] && [ -r "${bc%/*}/completions/git" ]; then
		refs=$(bash --norc --noprofile -c '
. "$1" >/dev/null 2>&1
. "$2" || exit 99
COMP_WORDS=(forge verify --change = fe)
COMP_CWORD=4
_forge forge
declare -F __git_refs >/dev/null && printf "%s\n" "${COMPREPLY[@]}"' \
		    bash "$bc" "$bashcomp")
		is "with bash-completion, through git's completion" "$refs" feature
	else
		skip "with bash-completion, through git's completion" \
		    "bash-completion is not installed"
	fi
fi

# zcomp LINE: what zsh offers at the end of LINE, sorted, on one line.
zcomp() {
	timeout 30 zsh -f "$top_srcdir/tests/zcomp.zsh" "$zshdir" "$1" |
	    sort -u | tr '\n' ' '
}
if ! command -v zsh >/dev/null 2>&1; then
	skip "zsh completion" "zsh is not installed"
elif ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
	ok "the zsh completion parses" zsh -n "$zshdir/_forge"
	skip "zsh completion" "zsh has no zpty module"
else
	ok "the zsh completion parses" zsh -n "$zshdir/_forge"
	is "zsh: the commands" "$(zcomp 'forge ')" \
	    "breaker gc help hook log show status verify "
	is "zsh: --exit= values" "$(zcomp 'forge verify --exit=')" \
	    "status verdict "
	is "zsh: --timeout units" "$(zcomp 'forge verify --timeout 10')" \
	    "10d 10h 10m 10ms 10s "
	is "zsh: --change= refs" "$(zcomp 'forge verify --change=fe')" \
	    "feature "
	is "zsh: --keep= values" "$(zcomp 'forge verify --keep=')" \
	    "always failure never "
	is "zsh: breaker's actions" "$(zcomp 'forge breaker ')" "reset show "
	like "zsh: gc's options" "$(zcomp 'forge gc --')" "--dry-run .*--kept"
	like "zsh: the command after --" "$(zcomp 'forge verify -- gi')" \
	    "(^| )git( |$)"
	is "zsh: hook install's step begins with --" \
	    "$(zcomp 'forge hook install pre-commit ')" "-- "
	like "zsh: hook install's step after --" \
	    "$(zcomp 'forge hook install pre-commit -- gi')" "(^| )git( |$)"
fi

done_testing
