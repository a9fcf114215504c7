#!/bin/sh
# seeds.sh MKPNG DIR - writes the fuzzers' seed inputs: PNGs of every kind
# (good and broken) for the pipeline, option lines and scenes for the parser,
# and for each decoder and parser target its own; small animations poyo made
# are kept in seeds-static/TARGET and copied in.
set -e
mk=$1
out=$2
here=$(dirname "$0")
mkdir -p "$out/pipeline" "$out/options" "$out/png" "$out/gif" "$out/webp" "$out/webm" "$out/apng" "$out/scene" "$out/path"
for t in gif webp webm apng; do
    cp "$here/seeds-static/$t"/* "$out/$t/"
done
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

# decoders: every PNG kind and a JPEG for image_decode, tiny hostile animations
for k in rgba rgba16 rgb16 gray16 gray graya palette interlaced truncated corrupt-idat empty text zero-width huge; do
    "$mk" "$k" "$out/png/$k.png" 7 5
done
"$mk" jpeg-scans "$out/png/scans.jpg" 3 8
"$mk" webp-still "$out/png/still.webp" 6 4
"$mk" gif-frames "$out/gif/frames.gif" 8 8 5
"$mk" gif-frames "$out/gif/big-canvas.gif" 60000 60000 2
"$mk" webp-frames "$out/webp/frames.webp" 8 8 4
"$mk" webp-still "$out/webp/still.webp" 9 7
"$mk" apng-frames "$out/apng/declared.png" 8 8 3
"$mk" palette "$out/apng/still.png" 6 6
# SVG for image_decode: a stamp, one cut short, entities, a data: URL, a DOCTYPE prolog
cp "$here/../data/face.svg" "$out/png/face.svg"
head -c 200 "$here/../data/face.svg" >"$out/png/cut.svg"
cat >"$out/png/entity.svg" <<'EOF'
<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY c "<circle cx='4' cy='4' r='3'/>">]><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">&c;&c;</svg>
EOF
printf '%s' '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image href="data:image/png;base64,iVBORw0KGgo="/></svg>' >"$out/png/data.svg"
printf '%s' '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 6 4"><defs><rect id="r" width="2" height="2"/></defs><use xlink:href="#r"/><use xlink:href="#r" x="3" style="fill:url(#g)"/><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></svg>' >"$out/png/use.svg"
head -c 300 "$here/seeds-static/gif/a.gif" >"$out/gif/truncated.gif"
head -c 400 "$here/seeds-static/webp/a.webp" >"$out/webp/truncated.webp"
head -c 600 "$here/seeds-static/apng/a.apng" >"$out/apng/truncated.png"

# the scene language and path waypoints as text
printf '%s' "floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05)" >"$out/scene/basic"
printf '%s' "repeat(0.2,0.3,4,2) rbox(0.1,0.1,0.05,0.05,0.01) sub segment(0,0,1,1,0.02)" >"$out/scene/repeat"
printf '%s' "# walls
left(0.1) right(0.9)
ceiling(0.05); smine(0.02) plane(0.5,0.8,-15) wall(0.7) union segment(0.1,0.2,0.4,0.2)" >"$out/scene/lines"
printf '%s' "circle(0.5,0.5,-1)" >"$out/scene/negative"
printf '%s' "0.1,0.5,0 0.9,0.5,0" >"$out/path/line"
printf '%s' "0.1,0.8,-90 0.5,0.2,0 0.9,0.8,90" >"$out/path/arch"
printf '%s' "0.2,0.5,0;0.8,0.5,180	0.2,0.5,0" >"$out/path/loop"
printf '%s' "0.1,0.1,0 0.9,0.9,0
0.1,0.9,180 1e3,-1e3,720" >"$out/path/s-bend"
