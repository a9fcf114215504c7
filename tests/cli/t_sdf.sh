#!/bin/sh
# t_sdf.sh - poyo sdf: usage and exit codes, scene errors that name their column,
# distances, normals and ray hits against analytic values, field pictures of the
# requested size, and a stamp dropped on a floor: written, held at rest, and
# deterministic.
. "$(dirname "$0")/lib.sh"

STAMP=$TRASH/stamp.png
"$TOOLS/mkpng" rgba "$STAMP" 48
"$TOOLS/mkpng" transparent "$TRASH/clear.png"

# near A B TOL: |A - B| <= TOL
near() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' || {
        echo "expected $2 (within $3), got $1" >&2
        return 1
    }
}

test_expect_success 'help exits 0 and documents the scene language and the queries' '
    "$POYO" sdf --help >help.txt &&
    grep -q -- "--scene TEXT" help.txt &&
    grep -q "distance D normal NX NY" help.txt &&
    grep -q "hit X Y distance T" help.txt &&
    grep -q "restarts" help.txt
'

test_expect_success 'nothing to do is a usage error' '
    expect_exit 2 "$POYO" sdf 2>err &&
    expect_line err "poyo: nothing to do: give a STAMP, --query, --ray or --render (see poyo sdf --help)"
'

test_expect_success 'an unclosed shape names the column after the text' '
    s="floor(0.9); circle(0.5,0.3,0.1) smin(0.05) box(0.2,0.6,0.1,0.05" &&
    expect_exit 2 "$POYO" sdf --scene "$s" --query 0.5,0.5 >out 2>err &&
    expect_line err "poyo: --scene: column $((${#s} + 1)): expected '\'')'\'' after hh of box, found end of text" &&
    test ! -s out
'

test_expect_success 'a misplaced number names its column' '
    expect_exit 2 "$POYO" sdf --scene "floor(0.9); circle(0.5,,0.1)" --query 0,0 2>err &&
    expect_line err "poyo: --scene: column 24: expected a number for y of circle, found '\'','\''"
'

test_expect_success 'an unknown shape names its column' '
    expect_exit 2 "$POYO" sdf --scene "floor(0.9); blob(1)" --query 0,0 2>err &&
    grep -q "^poyo: --scene: column 13: unknown shape '\''blob'\''" err &&
    test "$(wc -l <err)" -eq 1
'

test_expect_success 'a scene file error names line and column' '
    printf "floor(0.9)\n# a ball\ncircle(0.5,0.3,)\n" >bad.scene &&
    expect_exit 2 "$POYO" sdf --scene-file bad.scene --query 0,0 2>err &&
    expect_line err "poyo: bad.scene: line 3, column 16: expected a number for r of circle, found '\'')'\''"
'

test_expect_success 'bad query values are usage errors' '
    expect_exit 2 "$POYO" sdf --query 0.5 2>err &&
    expect_line err "poyo: --query: '\''0.5'\'' is not a point X,Y" &&
    expect_exit 2 "$POYO" sdf --ray 0.5,0.5,0,0 2>err &&
    expect_line err "poyo: --ray: the direction DX,DY must not be 0,0" &&
    expect_exit 2 "$POYO" sdf --query nan,0 2>/dev/null &&
    expect_exit 2 "$POYO" sdf --size 0 --query 0,0 2>/dev/null
'

test_expect_success 'query: distance and normal of a circle match the geometry' '
    # 200x100 canvas: lengths scale by 100; circle at (100,50) px of radius 25 px;
    # the point (140,80) px lies 50 px from the centre along (0.8,0.6)
    "$POYO" sdf -s 200x100 --scene "circle(0.5,0.5,0.25)" --query 0.7,0.8 --query 0.5,0.5 >out &&
    test "$(wc -l <out)" -eq 2 &&
    set -- $(sed -n 1p out) && test "$1 $3" = "distance normal" &&
    near "$2" 0.25 1e-6 && near "$4" 0.8 1e-6 && near "$5" 0.6 1e-6 &&
    set -- $(sed -n 2p out) && near "$2" -0.25 1e-6
'

test_expect_success 'query: distance to a floor, inside and out, with the up normal' '
    "$POYO" sdf -s 200x100 --scene "floor(0.8)" --query 0.3,0.1 --query 0.9,0.95 >out &&
    set -- $(sed -n 1p out) && near "$2" 0.7 1e-6 && near "$4" 0 1e-9 && near "$5" -1 1e-9 &&
    set -- $(sed -n 2p out) && near "$2" -0.15 1e-6
'

test_expect_success 'ray: hits a floor where the line meets it, misses going up' '
    # from (50,10) px along (200,100) px: meets y = 80 px at x = 190 px after 70*sqrt(5) px
    "$POYO" sdf -s 200x100 --scene "floor(0.8)" --ray 0.25,0.1,1,1 --ray 0.5,0.5,0,-1 >out &&
    set -- $(sed -n 1p out) && test "$1 $4" = "hit distance" &&
    near "$2" 0.95 1e-4 && near "$3" 0.8 1e-4 &&
    near "$5" "$(awk "BEGIN { print 70 * sqrt(5) / 100 }")" 1e-4 &&
    test "$(sed -n 2p out)" = miss
'

test_expect_success 'render: a PNG of the canvas size' '
    "$POYO" sdf -s 120x80 --scene "floor(0.8); circle(0.5,0.4,0.2)" --render field.png &&
    test "$(od -An -c -j1 -N3 field.png | tr -d " ")" = PNG &&
    test "$(od -An -tu1 -j16 -N8 field.png | tr -s " " | sed "s/^ //")" = "0 0 0 120 0 0 0 80" &&
    expect_exit 2 "$POYO" sdf --render field.gif 2>err &&
    grep -q "writes a PNG" err
'

test_expect_success 'render refuses to overwrite without -f' '
    "$POYO" sdf --render f2.png &&
    expect_exit 1 "$POYO" sdf --render f2.png 2>err &&
    "$POYO" sdf -f --render f2.png
'

test_expect_success 'drop: a GIF of the canvas size that rests and holds its last frame' '
    "$POYO" sdf "$STAMP" -s 160x120 --scene "floor(0.85)" -o drop.gif -v 2>err &&
    grep -q "comes to rest" err &&
    test "$(od -An -c -N6 drop.gif | tr -d " ")" = GIF89a &&
    test "$(od -An -tu1 -j6 -N4 drop.gif | tr -s " " | sed "s/^ //")" = "160 0 120 0" &&
    "$TOOLS/animinfo" drop.gif >info &&
    grep -q "^width 160$" info &&
    last=$(sed -n "s/^delays //p" info | awk "{ print \$NF }") &&
    test "$last" = 600 &&
    no_temp_files .
'

test_expect_success 'drop: same command, same bytes' '
    "$POYO" sdf "$STAMP" --scene "floor(0.9); circle(0.6,0.6,0.1)" --at 0.5,0.2 --spin 60 -o a.gif &&
    "$POYO" sdf "$STAMP" --scene "floor(0.9); circle(0.6,0.6,0.1)" --at 0.5,0.2 --spin 60 -o b.gif &&
    cmp a.gif b.gif
'

test_expect_success 'drop: without -o the clip goes beside the stamp; no overwrite without -f' '
    mkdir -p beside && cp "$STAMP" beside/ &&
    "$POYO" sdf beside/stamp.png --duration 0.5 &&
    test -s beside/stamp.gif &&
    expect_exit 1 "$POYO" sdf beside/stamp.png --duration 0.5 2>err &&
    grep -q "^poyo: beside/stamp.gif: " err
'

test_expect_success 'drop: a fixed duration gives that many frames; --frames writes them' '
    "$POYO" sdf "$STAMP" --duration 1 --fps 20 --frames fr -s 64 &&
    test "$(ls fr | wc -l)" -eq 20 &&
    test -s fr/frame_0000.png && test -s fr/frame_0019.png
'

test_expect_success 'drop: with no floor the clip ends when the stamp has fallen out' '
    "$POYO" sdf "$STAMP" --scene "ceiling(-1)" -o out.gif -v 2>err &&
    grep -q "leaves the canvas" err &&
    "$TOOLS/animinfo" out.gif >info &&
    frames=$(sed -n "s/^frames //p" info) && test "$frames" -lt 50
'

test_expect_success 'drop: bad stamps and values fail cleanly, leaving nothing' '
    cp "$TRASH/clear.png" . &&
    expect_exit 1 "$POYO" sdf clear.png -o c.gif 2>err &&
    expect_line err "poyo: clear.png: image is fully transparent: nothing to animate" && expect_no_file c.gif &&
    expect_exit 1 "$POYO" sdf missing.png -o m.gif 2>/dev/null && expect_no_file m.gif &&
    expect_exit 2 "$POYO" sdf "$STAMP" --friction 3 -o x.gif 2>err &&
    expect_line err "poyo: --friction: must be 0 to 2, not 3" &&
    expect_exit 2 "$POYO" sdf "$STAMP" --stamp-size nan -o x.gif 2>/dev/null &&
    expect_exit 2 "$POYO" sdf "$STAMP" --velocity 1e308,0 -o x.gif 2>/dev/null &&
    expect_no_file x.gif && no_temp_files .
'

test_expect_success 'queries need no stamp; -o without one is an error' '
    expect_exit 2 "$POYO" sdf --query 0,0 -o x.gif 2>err &&
    expect_line err "poyo: -o: needs a STAMP to drop"
'

test_expect_success 'the solids are painted in --scene-color, shaded no darker than 0.78 inside' '
    "$POYO" sdf "$STAMP" -s 32 --duration 0.2 --scene "floor(0.5)" --scene-color cc6633 -o c.png &&
    set -- $("$TOOLS/animinfo" --pixel 0 0 31 c.png) &&
    echo "deep in the floor: $*" && test "$4" -eq 255 &&
    test "$1" -le 204 && test "$1" -ge 159 && near "$(($1 * 100 / $2))" 200 3 && near "$(($2 * 100 / $3))" 200 5 &&
    set -- $("$TOOLS/animinfo" --pixel 0 0 16 c.png) && echo "at the surface: $*" && near "$1" 204 4 &&
    set -- $("$TOOLS/animinfo" --pixel 0 0 2 c.png) && test "$4" -eq 0 &&
    "$POYO" sdf "$STAMP" -s 32 --duration 0.2 --scene "floor(0.5)" --scene-color "#CC6633" -o hash.png &&
    cmp c.png hash.png &&
    "$POYO" sdf "$STAMP" -s 32 --duration 0.2 --scene "floor(0.5)" --no-scene -o bare.png &&
    set -- $("$TOOLS/animinfo" --pixel 0 0 31 bare.png) && test "$4" -eq 0 &&
    expect_exit 2 "$POYO" sdf "$STAMP" --scene-color red -o x.gif 2>err &&
    expect_line err "poyo: --scene-color: '\''red'\'' is not a colour like 5F6B7A" && expect_no_file x.gif
'

test_expect_success 'the resting frame is held --hold seconds, in whole frames' '
    # the last frames of the fall may already look like the resting one, and
    # a GIF shows them as one frame: the hold adds to what they show
    last() { "$TOOLS/animinfo" "$1" | sed -n "s/^delays //p" | awk "{ print \$NF }"; } &&
    "$POYO" sdf "$STAMP" -s 48 --scene "floor(0.85)" --hold 1.5 --fps 20 -o h.gif -v 2>err &&
    grep -q "comes to rest" err &&
    "$POYO" sdf "$STAMP" -s 48 --scene "floor(0.85)" --hold 1.53 --fps 20 -o h2.gif &&
    a=$(last h.gif) && b=$(last h2.gif) &&
    test "$a" -ge 1500 && test "$a" -lt 1750 && test $((a % 50)) = 0 && test $((b - a)) = 50 &&
    expect_exit 2 "$POYO" sdf "$STAMP" --hold 11 -o x.gif 2>err &&
    expect_line err "poyo: --hold: must be 0 to 10 seconds, not 11"
'

test_expect_success 'a stamp on standard input gives the clip on standard output' '
    "$POYO" sdf - -s 32 --duration 0.2 <"$STAMP" >out.gif &&
    test "$(head -c 6 out.gif)" = GIF89a &&
    test "$("$TOOLS/animinfo" out.gif | sed -n "s/^frames //p")" = 5 &&
    expect_exit 2 "$POYO" sdf - --query 0,0 <"$STAMP" >out 2>err &&
    expect_line err "poyo: -o: the clip and the query answers cannot share standard output" && test ! -s out
'

test_expect_success 'the scene from a file or standard input, never both with the stamp or --scene' '
    printf "floor(0.8) # the ground\n" >s.scene &&
    "$POYO" sdf -s 200x100 --scene-file s.scene --query 0.3,0.1 >a &&
    "$POYO" sdf -s 200x100 --scene-file - --query 0.3,0.1 <s.scene >b &&
    set -- $(cat a) && near "$2" 0.7 1e-6 && cmp a b &&
    expect_exit 2 "$POYO" sdf --scene "floor(1)" --scene-file s.scene --query 0,0 2>err &&
    expect_line err "poyo: --scene-file: give the scene as --scene TEXT or --scene-file FILE, not both" &&
    expect_exit 2 "$POYO" sdf - --scene-file - -o x.gif <s.scene 2>err &&
    expect_line err "poyo: -: the stamp and the scene cannot both come from standard input" &&
    printf "floor(0.8)\000" >nul.scene &&
    expect_exit 1 "$POYO" sdf --scene-file nul.scene --query 0,0 >out 2>err &&
    expect_line err "poyo: nul.scene: the scene file holds a NUL byte; it must be text" && test ! -s out &&
    expect_exit 1 "$POYO" sdf --scene-file missing.scene --query 0,0 2>err &&
    expect_line err "poyo: missing.scene: cannot open: No such file or directory" &&
    expect_no_file x.gif
'

test_expect_success 'one stamp at a time; answers that cannot be written fail' '
    expect_exit 2 "$POYO" sdf "$STAMP" "$STAMP" -o x.gif 2>err &&
    expect_line err "poyo: $STAMP: one stamp at a time (a second one was given)" &&
    if [ -w /dev/full ]; then
        expect_exit 1 "$POYO" sdf --query 0,0 >/dev/full 2>err &&
        expect_line err "poyo: standard output: No space left on device"
    fi
'

test_expect_success 'with --gravity 0 a still stamp floats where it starts; --velocity carries it' '
    "$POYO" sdf "$STAMP" -s 48 --gravity 0 --duration 0.4 -o still.gif &&
    test "$("$TOOLS/animinfo" --diff 0 -1 still.gif | sed -n "s/^changed //p")" = 0 &&
    "$POYO" sdf "$STAMP" -s 48 --gravity 0 --velocity 1,0 --duration 0.4 -o moving.gif &&
    # the stamp starts centred at x 24 px and moves 1 canvas width a second, 19 px in 0.4 s
    set -- $("$TOOLS/animinfo" --pixel 0 24 12 moving.gif) && test "$4" -eq 255 &&
    set -- $("$TOOLS/animinfo" --pixel 0 42 12 moving.gif) && test "$4" -eq 0 &&
    set -- $("$TOOLS/animinfo" --pixel -1 24 12 moving.gif) && test "$4" -eq 0 &&
    set -- $("$TOOLS/animinfo" --pixel -1 42 12 moving.gif) && test "$4" -eq 255
'

test_expect_success 'a stamp that keeps no bounce comes to rest sooner; --tilt turns frame 0' '
    "$POYO" sdf "$STAMP" -s 48 --restitution 0 -o dead.gif -v 2>e0 &&
    "$POYO" sdf "$STAMP" -s 48 --restitution 0.9 -o bouncy.gif -v 2>e9 &&
    grep -q "comes to rest" e0 &&
    f0=$("$TOOLS/animinfo" dead.gif | sed -n "s/^frames //p") &&
    f9=$("$TOOLS/animinfo" bouncy.gif | sed -n "s/^frames //p") &&
    echo "frames: $f0 at restitution 0, $f9 at 0.9" && test "$f0" -lt "$f9" &&
    "$POYO" sdf "$STAMP" -s 48 --duration 0.2 -o t0.gif &&
    "$POYO" sdf "$STAMP" -s 48 --duration 0.2 --tilt 90 -o t90.gif &&
    "$TOOLS/animinfo" --png 0 f0.png t0.gif && "$TOOLS/animinfo" --png 0 f90.png t90.gif && ! cmp -s f0.png f90.png &&
    for bad in "--restitution 1.1:--restitution: must be 0 to 1, not 1.1" \
               "--tilt 361:--tilt: must be -360 to 360 degrees, not 361" \
               "--gravity 101:--gravity: must be -100 to 100, not 101"; do
        expect_exit 2 "$POYO" sdf "$STAMP" ${bad%%:*} -o x.gif 2>err && expect_line err "poyo: ${bad#*:}" || return 1
    done && expect_no_file x.gif
'

test_expect_success '--iso 0 changes the picture (no iso-lines); below 2 pixels is refused' '
    "$POYO" sdf -s 64 --render plain.png --iso 0 && "$POYO" sdf -s 64 --render lines.png &&
    ! cmp -s plain.png lines.png &&
    expect_exit 2 "$POYO" sdf --render x.png --iso 1 2>err &&
    expect_line err "poyo: --iso: must be 2 to 4096, not 1" && expect_no_file x.png
'

# tan 20 degrees = 0.364: a square set down flat on a 20-degree slope stands with
# friction 0.45 (atan 24 degrees) and slides off with 0.3 (atan 17 degrees)
test_expect_success 'a square set down on a slope stands when atan(friction) is steeper, slides when not' '
    "$TOOLS/mkpng" rgb box.png 48 &&
    for mu in 0.45 0.3; do
        "$POYO" sdf box.png -s 96 --scene "plane(0.5,0.75,20)" --tilt -20 --at 0.5,0.56 --restitution 0 \
            --no-scene --friction $mu -o box$mu.gif -v 2>err$mu || return 1
    done &&
    grep -q "comes to rest" err0.45 && grep -q "leaves the canvas" err0.3 &&
    set -- $("$TOOLS/animinfo" --bbox 0 box0.45.gif) $("$TOOLS/animinfo" --bbox -1 box0.45.gif) &&
    echo "frame 0 at $1,$2; at rest at $5,$6" &&
    test $(($1 - $5)) -le 8 && test $(($6 - $2)) -le 8
'

test_done
