#!/bin/sh
# t_golden.sh - determinism across builds and commits: every impulse and every
# subcommand makes exactly the frames stored in tests/golden/clips.txt.
. "$(dirname "$0")/lib.sh"
GOLDEN="$DATA/../golden/clips.txt"

while IFS= read -r line; do
    case "$line" in
    '#'* | '') continue ;;
    esac
    name=${line%% *}
    rest=${line#"$name"}
    rest=${rest#"${rest%%[! ]*}"}
    want=${rest%% *}
    args=${rest#"$want" }
    test_expect_success "golden: $name" '
        eval "\"\$POYO\" $args" &&
        got=$("$TOOLS/animinfo" --hash out.*) &&
        if [ "$got" != "$want" ]; then echo "hash $got, golden $want: poyo $args" >&2; false; fi
    '
done <"$GOLDEN"

test_done
