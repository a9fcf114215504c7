#!/bin/sh
# t_glyphs.sh - poyo text --per-glyph: each glyph a soft body of its own,
# joined to its neighbours by soft links. With -i jump the letters of LGTM and
# of すごい leave the floor and peak one after another; every impulse's clip ends as it
# starts, the word never spread apart; free letters swayed or patted stay on the
# canvas; the same command makes the same bytes.
# Needs the fonts make deps installs (IPAex Gothic).
. "$(dirname "$0")/lib.sh"

INFO="$TOOLS/animinfo"
T="timeout 60"

info() {
    "$INFO" "$1" | sed -n "s/^$2 //p"
}

# bottom FILE F C0 C1: the row under the lowest visible one of frame F within
# columns [C0, C1).
bottom() {
    set -- $("$INFO" --bbox "$2" "$3" "$4" "$1")
    echo "$4"
}

# peaks_in_order FILE GLYPHS: the canvas's width split into GLYPHS equal
# bands, the middle half of each band peaks (its foot highest, more than 4
# pixels off the floor) at a later frame than the band before. The foot, not
# the head: a letter's head is lifted too by a neighbour that flies.
peaks_in_order() {
    n=$(info "$1" frames) w=$(info "$1" width) prev=-1 k=0
    while [ "$k" -lt "$2" ]; do
        c0=$((w * (4 * k + 1) / (4 * $2))) c1=$((w * (4 * k + 3) / (4 * $2)))
        rest=$(bottom "$1" 0 "$c0" "$c1") high=$rest best=0 f=1
        while [ "$f" -lt "$n" ]; do
            t=$(bottom "$1" "$f" "$c0" "$c1")
            [ "$t" -lt "$high" ] && high=$t best=$f
            f=$((f + 1))
        done
        if [ "$high" -ge $((rest - 4)) ] || [ "$best" -le "$prev" ]; then
            echo "glyph $k of $1 peaks at frame $best (row $high, $rest at rest), the one before at $prev" >&2
            return 1
        fi
        prev=$best k=$((k + 1))
    done
}

# ends_at_rest FILE: the last frame shows what the first does.
ends_at_rest() {
    n=$(info "$1" frames)
    "$INFO" --diff 0 $((n - 1)) "$1" | grep -qx "changed 0"
}

test_expect_success 'jump: the letters leave the floor and peak one after another, and land back at rest' '
    $T $POYO text LGTM -i jump --per-glyph -s 128 -o lgtm.gif &&
    peaks_in_order lgtm.gif 4 && ends_at_rest lgtm.gif &&
    $T $POYO text "すごい" -i jump --per-glyph -s 128 -o sugoi.gif &&
    peaks_in_order sugoi.gif 3 && ends_at_rest sugoi.gif
'

test_expect_success 'every impulse: the word stays together and the clip ends as it starts' '
    for i in squash stretch poke shake twist drop; do
        $T $POYO text LGTM -i $i --per-glyph -s 96 -o $i.gif && ends_at_rest $i.gif || { echo "$i" >&2; exit 1; }
        n=$(info $i.gif frames) f=0
        set -- $("$INFO" --bbox 0 $i.gif)
        rest=$(($3 - $1))
        while [ "$f" -lt "$n" ]; do
            set -- $("$INFO" --bbox $f $i.gif)
            # a fifth wider at most: a letter turned 0.2 rad swings its top corners out
            [ $(($3 - $1)) -le $((rest + rest / 5)) ] || { echo "$i: frame $f spans $(($3 - $1)) px, $rest at rest" >&2; exit 1; }
            f=$((f + 1))
        done
    done &&
    for i in wave pat; do
        $T $POYO text LGTM -i $i --per-glyph -s 96 -o $i.gif && [ "$(info $i.gif frames)" -gt 5 ] || exit 1
    done
'

test_expect_success 'wave and pat on free letters: the word stays where it rests, as wide as held' '
    # driven alone, the free letters drifted off the canvas and every frame was empty
    for i in wave pat; do
        $T $POYO text LGTM -i $i --per-glyph -s 96 -f -o held.gif &&
        $T $POYO text LGTM -i $i --per-glyph -s 96 --anchor none -f -o free.gif &&
        set -- $("$INFO" --bbox 0 held.gif) && held=$(($3 - $1)) &&
        n=$(info free.gif frames) && f=0 &&
        while [ "$f" -lt "$n" ]; do
            set -- $("$INFO" --bbox $f free.gif)
            [ $# -eq 4 ] && [ $((($3 - $1) * 10)) -ge $((held * 9)) ] ||
                { echo "$i: frame $f of the free word spans $*, $held px held" >&2; exit 1; }
            f=$((f + 1))
        done
    done
'

test_expect_success 'the same command makes the same bytes' '
    $T $POYO text LGTM -i poke --per-glyph -s 64 -o a.gif &&
    $T $POYO text LGTM -i poke --per-glyph -s 64 -o b.gif && cmp a.gif b.gif &&
    $T $POYO text "すごい" -i wave --per-glyph -s 64 -o c.webp &&
    $T $POYO text "すごい" -i wave --per-glyph -s 64 -o d.webp && cmp c.webp d.webp
'

test_done
