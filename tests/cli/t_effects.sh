#!/bin/sh
# t_effects.sh - the body and GIF options do what the man page says, measured
# from the frames (tests/tools/motionstats): --volume keeps the area, --drag
# calms the wobble sooner, a finer --grid bends the body less as a whole, --dither
# dithers. Each compares two settings of one option on the same stamp, so an
# option that did nothing would fail.
. "$(dirname "$0")/lib.sh"

EMOJI="$DATA/1f600.png"

# figure NAME IMPULSE [X,Y] -- OPTIONS...: one figure of poyo's 128 px clip of
# IMPULSE (kicked at X,Y) with OPTIONS
figure() {
    name=$1 imp=$2 at=
    shift 2
    [ "$1" != -- ] && at=$1 && shift
    shift
    rm -rf fr &&
    "$POYO" "$EMOJI" -s 128 -i "$imp" ${at:+--at $at} "$@" --frames fr -f -q -o clip.gif &&
    "$MOTIONSTATS" --input "$EMOJI" --impulse "$imp" ${at:+--at $at} fr | sed -n "s/^$name //p"
}

# less A B: A < B, as numbers
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

test_expect_success '--volume: a gooier body keeps its area rather than its shape' '
    lo=$(figure area_dev squash -- --strength 0.3 --volume 0) &&
    hi=$(figure area_dev squash -- --strength 0.3 --volume 0.8) &&
    echo "area off at volume 0: $lo, at 0.8: $hi" &&
    less "$hi" "$lo"
'

test_expect_success '--drag: the wobble dies sooner' '
    free=$(figure moving_fraction squash -- --drag 0) &&
    held=$(figure moving_fraction squash -- --drag 20) &&
    echo "moving frames at drag 0: $free, at 20: $held" &&
    less "$held" "$free"
'

test_expect_success '--grid: more nodes bend the body less as a whole' '
    # the share of the squash no affine map explains
    coarse=$(figure jelly squash -- --grid 8) &&
    fine=$(figure jelly squash -- --grid 12) &&
    echo "jelly at grid 8: $coarse, at 12: $fine" &&
    less "$coarse" "$fine"
'

test_expect_success '--dither: fewer colours are dithered, not banded' '
    # the same frames at 8 colours: dithering breaks flat runs into noise,
    # which LZW stores in more bytes
    "$POYO" "$EMOJI" -s 128 --colors 8 --dither 0 -o flat.gif -f &&
    "$POYO" "$EMOJI" -s 128 --colors 8 --dither 1 -o dith.gif -f &&
    flat=$(wc -c <flat.gif) && dith=$(wc -c <dith.gif) &&
    echo "bytes undithered: $flat, dithered: $dith" &&
    less "$flat" "$dith"
'

test_done
