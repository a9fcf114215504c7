#!/bin/sh
# seeds.sh MKPNG DIR - writes the fuzzers' seed inputs: PNGs of every kind
# (good and broken) for the pipeline, option lines and scenes for the parser.
set -e
mk=$1
out=$2
mkdir -p "$out/pipeline" "$out/options"
for k in rgba rgba16 rgb gray graya palette interlaced truncated corrupt-idat zero-width huge transparent; do
    "$mk" "$k" "$out/pipeline/$k.png" 12 9
done
"$mk" rgba "$out/pipeline/wide.png" 40 6
seed() { printf '%s' "$2" >"$out/options/$1"; }
seed help "0--help"
seed hz "0--hz
3
-i
poke
--at
0.3,0.4
x.png"
seed bad "0--fps
abc
x.png"
seed preset "0-p
slack
--max-bytes
128K
--matte
#ffffff
a.png"
seed size "0--size
128x96
--fit
none
--colors
16
--json
-j
2
in/"
seed scene "1floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)"
seed scene2 "1repeat(0.2,0.3) rbox(0.1,0.1,0.05,0.05,0.01) sub segment(0,0,1,1,0.02)"
