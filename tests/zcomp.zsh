#!/bin/zsh -f
# zcomp.zsh DIR LINE: the matches zsh's completion system offers at the
# end of the command line LINE, one a line, with the completion
# functions of DIR first in fpath.  An interactive zsh on a
# pseudo-terminal (zpty) does the completing, compadd wrapped to print
# each match, between two marker lines; it exits after one completion.
zmodload zsh/zpty 2>/dev/null || exit 77
setup=$(mktemp "${TMPDIR:-/tmp}/zcomp.XXXXXX") || exit 99
cat >"$setup" <<SETUP
PROMPT= RPROMPT=
fpath=(${(q)1} \$fpath)
autoload -Uz compinit && compinit -u -D
bindkey '^I' complete-word
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
_zcomp_mark() { print -r -- ZCOMP-MARK }
compprefuncs=(_zcomp_mark)
comppostfuncs=(_zcomp_mark exit)
compadd() {
	# Only filling arrays (-O, -A, -D): nothing is offered.
	if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then
		builtin compadd "\$@"
		return
	fi
	local -a _hits _p _s
	zparseopts -E P:=_p S:=_s
	builtin compadd -A _hits "\$@"
	local h
	for h in \$_hits; do
		print -r -- "\${_p[2]-}\$h\${_s[2]-}"
	done
	builtin compadd "\$@"
}
print -r -- ZCOMP-READY
SETUP
zpty z zsh -f -i || exit 77
zpty -w z "source ${(q)setup}"
while zpty -r z line; do
	[[ $line == ZCOMP-READY* ]] && break
done
rm -f "$setup"
zpty -w -n z "$2"$'\t'
on=0
while zpty -r z line; do
	line=${line//$'\r'/}
	line=${line%$'\n'}
	if [[ $line == *ZCOMP-MARK* ]]; then
		(( on++ )) && break
		continue
	fi
	(( on )) && print -r -- "$line"
done
zpty -d z
