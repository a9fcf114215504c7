#!/bin/sh
# t_tty.sh - an image is never written to a terminal: `-o -` with standard
# output on a terminal is refused by every subcommand that writes one, with one
# line saying what to do and exit status 1, before any work.
. "$(dirname "$0")/lib.sh"

T="timeout 20"
msg="poyo: -: standard output is a terminal; use -o FILE or redirect it"

# on_tty COMMAND: COMMAND run by script(1) (util-linux, on every Debian
# machine), its standard output a terminal; what it printed in out, its exit
# status in rc
on_tty() {
    $T script -qec "$1" /dev/null >raw
    rc=$?
    tr -d "\r" <raw >out
}

for cmd in animate rope sdf path; do
    extra=
    [ $cmd = path ] && extra="--through 0.2,0.5,0 --through 0.8,0.5,0"
    test_expect_success "poyo $cmd: -o - on a terminal is refused" '
        on_tty "$POYO '"$cmd"' $DATA/1f36e.png '"$extra"' -s 48 -o -" ;
        [ $rc -eq 1 ] && expect_line out "$msg" && [ "$(wc -l <out)" -eq 1 ]
    '
done

test_expect_success 'poyo text: -o - on a terminal is refused' '
    on_tty "$POYO text LGTM -s 48 -o -" ;
    [ $rc -eq 1 ] && expect_line out "$msg" && [ "$(wc -l <out)" -eq 1 ]
'

test_expect_success 'redirected, the same command writes the image' '
    $T $POYO $DATA/1f36e.png -s 48 -o - >img.gif &&
    [ "$(head -c 6 img.gif)" = GIF89a ]
'

test_done
