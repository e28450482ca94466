#!/bin/sh
# Colour where it helps: the verdict of forge verify's last line and the
# VERDICT column of forge log, on a terminal, decided as git decides it
# (color.forge, then color.ui), with NO_COLOR meaning never.  The
# terminal is a pseudo-terminal made by script(1) from util-linux.
. "${TESTLIB:?make check runs the tests: TESTLIB names tests/lib.sh}"

need_pty "colour on a terminal"

new_repo "$T/r"
git config forge.breakerThreshold 0
unset NO_COLOR
export TERM=xterm
E=$(printf '\033')
GREEN="$E\\[32m"
RED="$E\\[31m"
YELLOW="$E\\[33m"
RESET="$E\\[m"

F='${FORGE_WRAPPER:-} "$FORGE"'

out=$(on_tty "$F verify -- true")
like "on a terminal, PASS is green" "$out" \
    "Verdict: ${GREEN}PASS$RESET \\(in place, tree "
out=$(on_tty "$F verify -- false")
like "FAIL is red" "$out" "Verdict: ${RED}FAIL$RESET \\(exit status 1;"
printf 'edit\n' >>hello.txt
fake_git "$T/bad" '[ "$SUB" = apply ] && exit 1; exec "$REAL_GIT" "$@"'
out=$(PATH="$T/bad:$PATH" on_tty "$F verify --isolated -- true")
like "ERROR is yellow" "$out" "Verdict: ${YELLOW}ERROR$RESET \\(forge could"
git checkout -q hello.txt

out=$(on_tty "$F log")
like "in forge log, PASS is green" "$out" " ${GREEN}PASS$RESET +[0-9]"
like "FAIL red" "$out" " ${RED}FAIL$RESET +[0-9]"
like "ERROR yellow" "$out" " ${YELLOW}ERROR$RESET +[0-9]"
is "the header is not coloured" "$(printf '%s\n' "$out" | sed -n 1p)" \
    "$(forge log | sed -n 1p)"
is "the columns stay where they were" \
    "$(printf '%s\n' "$out" | sed "s/$E\\[[0-9]*m//g")" "$(forge log)"
out=$(on_tty "$F status")
like "forge status's events too" "$out" " ${GREEN}PASS$RESET +[0-9]"

# Not a terminal: never, unless asked.
unlike "forge log into a pipe: no colour" "$(forge log)" "$E"
run_forge verify -- true
unlike "verify's line into a file: no colour" "$err" "$E"
on_tty "$F verify -- true 2>'$T/err'; $F log >'$T/out'" >/dev/null
like "on a terminal, stderr into a file" "$(cat "$T/err")" "Verdict: PASS"
unlike "gets no colour" "$(cat "$T/err")" "$E"
like "nor does stdout into a file" "$(cat "$T/out")" " PASS "
unlike "in forge log" "$(cat "$T/out")" "$E"

# git's settings, and NO_COLOR.
git config color.ui never
unlike "color.ui never: none on a terminal" "$(on_tty "$F log; $F verify -- true")" "$E"
git config color.forge always
like "color.forge always wins over color.ui" "$(on_tty "$F log")" "$GREEN"
like "and colours a pipe too" "$(forge log)" "$GREEN"
run_forge verify -- true
like "and a file" "$err" "Verdict: ${GREEN}PASS$RESET"
unlike "NO_COLOR set means never" "$(NO_COLOR=1 forge log)" "$E"
unlike "on a terminal too" "$(NO_COLOR=1 on_tty "$F log")" "$E"
like "NO_COLOR empty is not set" "$(NO_COLOR= forge log)" "$GREEN"
git config --unset color.forge
git config color.ui false
unlike "color.ui false: none" "$(on_tty "$F log")" "$E"
git config color.ui true
like "color.ui true is auto: colour on a terminal" "$(on_tty "$F log")" "$GREEN"
unlike "and none in a pipe" "$(forge log)" "$E"
unlike "a dumb terminal gets none" "$(TERM=dumb on_tty "$F log")" "$E"
unlike "nor one with no TERM" "$(env -u TERM SHELL=/bin/sh script -qec "$F log" /dev/null </dev/null)" "$E"
git config color.ui bogus
run_forge log
is "a bad value is not an error" "$rc" 0
like "but is said" "$err" "bad value 'bogus' for color.ui"
like "and taken as auto" "$(on_tty "$F log 2>/dev/null")" "$GREEN"
git config --unset color.ui
printf '[color]\n\tui = always\n' >.forgeconfig
unlike "colour is the user's: .forgeconfig does not set it" "$(forge log)" "$E"
run_forge log
is "nor warns about it" "$err" ""

done_testing
