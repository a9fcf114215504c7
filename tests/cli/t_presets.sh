#!/bin/sh
# t_presets.sh - every preset's file passes its own `poyo check`, for each of
# the nine impulses, each on another emoji of tests/data (the openmoji one is
# 512 px, the others 64 px); LINE's plays add up to whole seconds.
. "$(dirname "$0")/lib.sh"

IMPULSES="squash stretch poke shake twist jump drop wave pat"
# emoji_for N: the N-th emoji (1 to 9)
emoji_for() {
    set -- "$1" 1f36e 1f388 1f431 1f4af 1f600 1f680 2757 2757-wide openmoji-1F600-512
    shift "$1"
    echo "$DATA/$1.png"
}

# the presets and the format each writes, from the table poyo prints
"$POYO" check --list-presets | awk 'NR > 1 && NF > 3 && $2 ~ /^(gif|apng|webp|webm)$/ { print $1, $2 }' >"$TRASH/presets"

test_expect_success 'the table lists the eleven presets, signal and whatsapp among them' '
    [ "$(wc -l <"$TRASH/presets")" -eq 11 ] &&
    grep -qx "signal apng" "$TRASH/presets" && grep -qx "whatsapp webp" "$TRASH/presets"
'

n=0
for imp in $IMPULSES; do
    n=$((n + 1))
    emoji=$(emoji_for $n)
    test_expect_success "every preset, $imp on $(basename "$emoji"): the file passes its own check" '
        failed=0 &&
        while read -r p fmt; do
            ext=$fmt && [ "$fmt" = apng ] && ext=png
            if ! "$POYO" -q -p "$p" -i '"$imp"' "'"$emoji"'" -o "$p.$ext" 2>err; then
                echo "$p: $(cat err)"; failed=1; continue
            fi
            "$POYO" check -p "$p" "$p.$ext" >out || { cat out; failed=1; }
        done <"$TRASH/presets" &&
        [ "$failed" -eq 0 ]
    '
done

# total FILE: milliseconds of all plays, from check --json
total_ms() {
    "$POYO" check --json -p line "$1" | sed 's/.*"duration": \([0-9.]*\),.*"plays": \([0-9]*\),.*/\1 \2/' |
        awk '{ printf "%d\n", $1 * $2 * 1000 + 0.5 }'
}

test_expect_success 'LINE: wave and pat play a whole number of seconds in all (they played 3.2 s and 2.8 s)' '
    for imp in wave pat; do
        "$POYO" -q -p line -i $imp "$DATA/1f36e.png" -o $imp.png &&
        t=$(total_ms $imp.png) && echo "$imp: $t ms" &&
        [ $((t % 1000)) -eq 0 ] && [ "$t" -ge 1000 ] && [ "$t" -le 4000 ] || exit 1
    done
'

test_expect_success 'a slow body keeps the length a platform allows (its default clip does not grow with it)' '
    # grown as for a body of --hz 0.2 with no platform, the clip ran 9.7 s
    # and Telegram (at most 3 s) refused it after 38 s of work
    for p in telegram line; do
        ext=webm && [ $p = line ] && ext=png
        "$POYO" -q -p $p --hz 0.2 "$DATA/1f600.png" -o slow.$ext &&
        "$POYO" check -q -p $p slow.$ext || exit 1
    done
'

test_expect_success 'a Discord sticker squeezed to a few colours keeps a clear background (no box)' '
    "$POYO" -p discord-sticker --max-bytes 120K "$DATA/1f600.png" -o d.png 2>err &&
    grep -q " [0-9]* colours, " err && "$POYO" check -q -p discord-sticker d.png &&
    "$TOOLS/animinfo" d.png >info && grep -qx "corner_alpha_max 0" info
'

test_expect_success 'a tight budget shrinks a canvas the platform lets shrink (Slack), never an exact one' '
    "$POYO" -q -p slack --max-bytes 3K "$DATA/openmoji-1F600-512.png" -o s.gif &&
    "$POYO" check -p slack s.gif >out && ! grep -q "128x128" out && [ "$(wc -c <s.gif)" -le 3000 ] &&
    # an exact canvas keeps its size and gives up frames instead, down to a sixth of the rate
    "$POYO" -q -p discord-sticker --max-bytes 20K "$DATA/1f600.png" -o d20.png &&
    [ "$(wc -c <d20.png)" -le 20000 ] && "$POYO" check -q -p discord-sticker d20.png &&
    [ "$("$TOOLS/animinfo" d20.png | sed -n "s/^width //p")" -eq 320 ] &&
    expect_exit 1 "$POYO" -p discord-sticker --max-bytes 5K "$DATA/1f600.png" -o d.png 2>err &&
    grep -q "^poyo: .*1f600.png: cannot fit 5000 bytes: the smallest setting tried gives [0-9]* bytes$" err &&
    [ "$(wc -l <err)" -eq 1 ] && expect_no_file d.png
'

test_expect_success 'a WhatsApp sticker (exactly 512x512) fits 64 KB: lossy WebP lowers the alpha plane too' '
    "$POYO" -q -p whatsapp --max-bytes 64K "$DATA/1f600.png" -o w.webp &&
    [ "$(wc -c <w.webp)" -le 64000 ] && "$POYO" check -q -p whatsapp w.webp &&
    [ "$("$TOOLS/animinfo" w.webp | sed -n "s/^width //p")" -eq 512 ]
'

test_done
