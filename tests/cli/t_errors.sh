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

# every kind of option error, in every subcommand: "poyo: OPTION: ..." (the option as
# typed) alone on one line, exit 2, nothing written (cmd|arguments|the line)
test_expect_success 'each subcommand says every kind of option error in the one shape' '
    cp "$DATA/1f600.png" stamp.png &&
    while IFS="|" read -r cmd args line; do
        set -f && set -- $args && set +f &&
        case $cmd in
        path) set -- -o out.gif --through "0.1,0.5,0 0.9,0.5,0" "$@" ;;
        check) ;;
        *) set -- -o out.gif "$@" ;;
        esac &&
        status=0 && "$POYO" $cmd "$@" >/dev/null 2>err || status=$?
        if [ "$status" -ne 2 ] || [ "$(cat err)" != "$line" ] || [ "$(wc -l <err)" -ne 1 ]; then
            echo "poyo $cmd $args: exit $status, said: $(cat err); want: $line" >&2
            exit 1
        fi
        expect_no_file out.gif || exit 1
    done <<-EOF
	animate|--hz 40 stamp.png|poyo: --hz: must be 0.1 to 20, not 40
	animate|--grid 2.5 stamp.png|poyo: --grid: '"'"'2.5'"'"' is not a whole number
	animate|--anchor left stamp.png|poyo: --anchor: must be bottom, top, none or auto, not '"'"'left'"'"'
	animate|--at 11,0 stamp.png|poyo: --at: must be -10 to 10 image fractions in both coordinates, not 11,0
	animate|--max-bytes 2T stamp.png|poyo: --max-bytes: '"'"'2T'"'"' is not a size (like 128K, 256KiB, 300KB or 2G)
	animate|--strength 9 stamp.png|poyo: --strength: must be 0 to 0.32 for squash (beyond that the body folds over itself, tears or kinks), not 9
	animate|stamp.png --fps|poyo: --fps: needs a value
	text|--outline red,99 hi|poyo: --outline: width must be more than 0 and at most 64 pixels, not 99
	text|--fit wide hi|poyo: --fit: must be fill, keep, auto or none, not '"'"'wide'"'"'
	text|-s 5000 hi|poyo: -s: must be 1 to 4096 pixels per side, not 5000
	rope|--kick 6 stamp.png|poyo: --kick: must be 0 to 5 canvas heights/s, not 6
	rope|--anchor-at 0,3 stamp.png|poyo: --anchor-at: must be -1 to 2 in both coordinates, not 0,3
	rope|--format bmp stamp.png|poyo: --format: must be gif, apng, webp or webm, not '"'"'bmp'"'"'
	path|--core 1 stamp.png|poyo: --core: must be 0.05 to 0.9, not 1
	path|--sample x|poyo: --sample: '"'"'x'"'"' is not a whole number
	path|--wobble 1 stamp.png|poyo: --wobble: unknown option (see poyo --help)
	sdf|--friction 3 stamp.png|poyo: --friction: must be 0 to 2, not 3
	sdf|--velocity 0,101 stamp.png|poyo: --velocity: must be -100 to 100 in both coordinates, not 0,101
	sdf|--max-memory 1K stamp.png|poyo: --max-memory: must be 16MiB to 1024GiB, not 1K
	check|--max-memory 1K -p line stamp.png|poyo: --max-memory: must be 16MiB to 1024GiB, not 1K
	check|-p nowhere stamp.png|poyo: -p: unknown preset '"'"'nowhere'"'"' (one of slack, discord, discord-sticker, line, line-emoji, telegram, telegram-emoji, teams, mastodon, signal, whatsapp)
	EOF
'

test_done
