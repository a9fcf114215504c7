#!/bin/sh
# t_errors.sh - one shape for every message about an option: a value out of
# range or not a number, given to any option of any command that takes one
# (as each command's --help lists them), is one line "poyo: --OPTION: ..."
# and exit status 2.
. "$(dirname "$0")/lib.sh"

# the options of a command whose value is a number, from its --help
numeric_options() {
    "$POYO" "$1" --help |
        grep -oE '^ +(-[a-z], )?--[a-z-]+ (N|F|S|B|D|K|G|R|L|PX|Q|LEVEL|RATIO|HZ|DEG|W|E|MU|V|SIZE|PIXELS)( |$)' |
        grep -oE -- '--[a-z-]+' | sort -u
}

# runs command $1 with option $2 set to $3 and checks the message's shape
shape_holds() {
    cmd=$1 opt=$2 val=$3
    case $cmd in
    text) set -- x ;;
    path) set -- --through "0.1,0.5,0 0.9,0.5,0" stamp.png ;;
    *) set -- stamp.png ;;
    esac
    status=0
    "$POYO" "$cmd" "$opt" "$val" "$@" -o out.gif 2>err >/dev/null || status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <err)" -ne 1 ] || ! grep -q -- "^poyo: $opt: " err; then
        echo "$cmd $opt $val: exit $status: $(cat err)" >&2
        return 1
    fi
    expect_no_file out.gif
}

for cmd in animate text rope path sdf; do
    test_expect_success "every numeric option of poyo $cmd: a bad value is one line naming it" '
        cp "$DATA/1f600.png" stamp.png &&
        # poyo text takes every option of poyo animate (its --outline is a colour)
        opts=$(numeric_options '"$( [ "$cmd" = text ] && echo animate || echo "$cmd")"') && [ -n "$opts" ] &&
        for opt in $opts; do
            shape_holds '"$cmd"' "$opt" 1e30 && shape_holds '"$cmd"' "$opt" abc || exit 1
        done
    '
done

# Prints "OPTION LO HI" for each option of command $1 whose --help line gives
# a range "(LO to HI", but for those taking a pair X,Y.
documented_ranges() {
    "$POYO" "$1" --help | grep -E '^ +(-[a-z], )?--[a-z-]+ [A-Z][A-Z]*( |$)' |
        sed -n 's/^ *\(-[a-z], \)\{0,1\}\(--[a-z-]*\) [^(]*(\(-\{0,1\}[0-9.]*\) to \(-\{0,1\}[0-9.]*\).*/\2 \3 \4/p'
}

for cmd in animate rope path sdf; do
    test_expect_success "poyo $cmd refuses just above every range its --help gives, naming that range" '
        cp "$DATA/1f600.png" stamp.png &&
        documented_ranges '"$cmd"' >ranges && [ "$(wc -l <ranges)" -ge 10 ] &&
        while read -r opt lo hi; do
            above=$(awk -v h="$hi" "BEGIN { print h + 1 }") &&
            case '"$cmd"' in
            path) set -- --through "0.1,0.5,0 0.9,0.5,0" stamp.png ;;
            *) set -- stamp.png ;;
            esac &&
            expect_exit 2 "$POYO" '"$cmd"' "$opt" "$above" "$@" -o out.gif 2>err &&
            grep -q -- "^poyo: $opt: must be $lo to $hi" err || { echo "$opt $above: $(cat err)" >&2; exit 1; }
        done <ranges &&
        expect_no_file out.gif
    '
done

test_done
