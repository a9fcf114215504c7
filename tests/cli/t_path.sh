#!/bin/sh
# t_path.sh - poyo path: usage and exit codes, samples equally spaced in arc
# length, nearest points, S requests split with continuous tangents, SVG, and
# a stamp carried along a path written deterministically.
. "$(dirname "$0")/lib.sh"

ARC="0.2,0.5,-90 0.8,0.5,90"          # a half circle of radius 0.3 about 0.5,0.5, over the top
S="0.1,0.3,0 0.9,0.7,0"               # needs an inflection: split into two arcs
RING="0.5,0.2,0 0.8,0.5,90 0.5,0.8,180 0.2,0.5,-90 0.5,0.2,0"
STAMP=$DATA/1f36e.png

test_expect_success 'help exits 0 and says which way angles turn' '
    "$POYO" path --help >help.txt &&
    grep -q -- "--through" help.txt &&
    grep -q "CLOCKWISE" help.txt &&
    grep -q "x y angle s distance" help.txt
'

test_expect_success 'no --through is a usage error' '
    expect_exit 2 "$POYO" path --sample 3 2>err &&
    expect_line err "poyo: no path: give --through \"X,Y,DEG X,Y,DEG ...\" (see poyo path --help)"
'

test_expect_success 'nothing to do is a usage error' '
    expect_exit 2 "$POYO" path --through "$ARC" 2>err &&
    grep -q "nothing to do" err
'

test_expect_success 'a malformed waypoint is named' '
    expect_exit 2 "$POYO" path --through "0.1,0.3,0 0.5,x,90" --sample 3 2>err &&
    expect_line err "poyo: --through: waypoint 2 '\''0.5,x,90'\'' is not X,Y,DEG (canvas fractions and degrees)"
'

test_expect_success 'one waypoint is not a path' '
    expect_exit 2 "$POYO" path --through "0.1,0.3,0" --sample 3 2>err &&
    expect_line err "poyo: --through: needs at least 2 waypoints, got 1"
'

test_expect_success 'coincident waypoints exit 2 naming them' '
    expect_exit 2 "$POYO" path --through "0.1,0.1,0 0.5,0.5,0 0.5,0.5,90" --sample 3 >out 2>err &&
    expect_line err "poyo: --through: cannot join waypoints 2 and 3: the points coincide" &&
    test ! -s out
'

test_expect_success 'unquoted waypoints get a hint' '
    expect_exit 2 "$POYO" path --through 0.1,0.1,0 0.5,0.5,0 --sample 3 2>err &&
    grep -q "looks like a waypoint" err
'

test_expect_success 'bad option values are usage errors' '
    expect_exit 2 "$POYO" path --through "$ARC" --sample 0 2>/dev/null &&
    expect_exit 2 "$POYO" path --through "$ARC" --nearest 0.5 2>/dev/null &&
    expect_exit 2 "$POYO" path --through "$ARC" --size 0 --sample 2 2>/dev/null &&
    expect_exit 2 "$POYO" path --through "$ARC" --bogus 2>/dev/null &&
    expect_exit 2 "$POYO" path --through "$ARC" -o x.gif 2>/dev/null &&
    expect_no_file x.gif
'

test_expect_success 'what a run cannot do is named before any work' '
    expect_exit 2 "$POYO" path --through "  " --sample 2 2>err &&
    expect_line err "poyo: --through: no waypoints in '\''  '\'' (give X,Y,DEG X,Y,DEG ...)" &&
    expect_exit 2 "$POYO" path --through "0.2,0.5,0 1001,0.5,0" --sample 2 2>err &&
    expect_line err "poyo: --through: waypoint 2 '\''1001,0.5,0'\'' lies beyond 1000 canvas fractions" &&
    expect_exit 2 "$POYO" path --through "$ARC" --nearest 0,-1001 2>err &&
    expect_line err "poyo: --nearest: must be -1000 to 1000 canvas fractions in both coordinates, not 0,-1001" &&
    expect_exit 2 "$POYO" path --through "$ARC" --speed 0 --sample 2 2>err &&
    expect_line err "poyo: --speed: must be a positive number of canvas widths per second, not 0" &&
    expect_exit 2 "$POYO" path --through "$ARC" --svg - --sample 2 >out 2>err &&
    expect_line err "poyo: --svg: standard output is taken by other output; give the SVG a file name" &&
    expect_exit 2 "$POYO" path --through "$ARC" -o x.gif --sample 2 >out 2>err &&
    expect_line err "poyo: -o: needs a STAMP to animate" &&
    expect_exit 2 "$POYO" path --through "$ARC" "$STAMP" -o - --sample 2 >out 2>err &&
    expect_line err "poyo: -o: standard output is taken by --sample/--nearest; give the clip a file name" &&
    expect_exit 2 "$POYO" path --through "$ARC" "$STAMP" "$STAMP" --sample 2 >out 2>err &&
    expect_line err "poyo: $STAMP: one stamp at a time (already have $STAMP)" &&
    test ! -s out && expect_no_file x.gif
'

test_expect_success '--svg - writes the SVG to standard output; -v says what was written' '
    "$POYO" path --through "$ARC" --svg - >p.svg &&
    "$POYO" path --through "$ARC" --svg file.svg -v 2>err &&
    cmp p.svg file.svg && grep -q "^<svg" p.svg &&
    expect_line err "poyo: path: wrote file.svg (2 waypoints, 1 arcs)" &&
    "$POYO" path --through "$ARC" --svg q.svg -q 2>err && test ! -s err
'

test_expect_success 'samples lie on the half circle, equally spaced in arc length' '
    "$POYO" path --through "$ARC" --sample 101 >s.txt &&
    test "$(wc -l <s.txt)" -eq 101 &&
    awk "
        { r = sqrt((\$1 - 0.5) ^ 2 + (\$2 - 0.5) ^ 2); if (r < 0.29999 || r > 0.30001) bad = \"off the circle: \" \$0 }
        NR > 1 {
            ds = \$4 - s; c = sqrt((\$1 - x) ^ 2 + (\$2 - y) ^ 2)
            if (NR == 2) { ds0 = ds; c0 = c }
            if (ds - ds0 > 2e-6 || ds0 - ds > 2e-6) bad = \"unequal s steps at \" NR
            if (c - c0 > 2e-5 || c0 - c > 2e-5) bad = \"unequal chords at \" NR
            if (c > ds + 2e-6 || c < ds * 0.999) bad = \"chord and arc disagree at \" NR
        }
        { x = \$1; y = \$2; s = \$4 }
        END {
            pi = atan2(0, -1)
            if (s < 0.3 * pi - 2e-6 || s > 0.3 * pi + 2e-6) bad = \"length \" s \" is not 0.3 pi\"
            if (bad) { print bad; exit 1 }
        }" s.txt
'

test_expect_success 'first and last samples are the first and last waypoints' '
    "$POYO" path --through "0.15,0.3,0 0.85,0.7,0 0.5,0.9,180" --sample 7 >s.txt &&
    test "$(head -n 1 s.txt)" = "0.150000 0.300000 0.000000 0.000000" &&
    tail -n 1 s.txt | awk "{ exit !(\$1 == \"0.500000\" && \$2 == \"0.900000\" && \$3 == \"180.000000\") }"
'

test_expect_success 'one sample is the start' '
    "$POYO" path --through "$ARC" --sample 1 >s.txt &&
    expect_line s.txt "0.200000 0.500000 -90.000000 0.000000"
'

test_expect_success 'the nearest point to a point on the path is that point' '
    "$POYO" path --through "0.15,0.3,0 0.85,0.7,0 0.5,0.9,180" --sample 9 >s.txt &&
    q=$(sed -n 4p s.txt) &&
    set -- $q &&
    "$POYO" path --through "0.15,0.3,0 0.85,0.7,0 0.5,0.9,180" --nearest "$1,$2" >n.txt &&
    test "$(wc -l <n.txt)" -eq 1 &&
    awk -v x="$1" -v y="$2" -v a="$3" -v s="$4" "
        function abs(v) { return v < 0 ? -v : v }
        { exit !(\$1 == x && \$2 == y && abs(\$3 - a) < 1e-3 && abs(\$4 - s) < 2e-6 && \$5 + 0 < 2e-6) }" n.txt
'

test_expect_success 'the nearest point of the half circle lies along the radius' '
    "$POYO" path --through "$ARC" --nearest 0.5,0.1 --nearest 0.5,0.45 >n.txt &&
    test "$(wc -l <n.txt)" -eq 2 &&
    awk "NR == 1 && !(\$1 == \"0.500000\" && \$2 == \"0.200000\" && \$5 == \"0.100000\") { exit 1 }
         NR == 2 && !(\$1 == \"0.500000\" && \$2 == \"0.200000\" && \$5 == \"0.250000\") { exit 1 }" n.txt
'

test_expect_success 'an S request is split and its tangent stays continuous' '
    "$POYO" path --through "$S" --sample 201 >s.txt &&
    awk "
        function deg(r) { return r * 45 / atan2(1, 1) }
        NR > 1 {
            d = \$3 - a; if (d < 0) d = -d
            if (d > 2) bad = \"tangent jumps by \" d \" at line \" NR
            chord = deg(atan2(\$2 - y, \$1 - x)); mid = (\$3 + a) / 2
            e = chord - mid; if (e < 0) e = -e
            if (e > 0.5) bad = \"tangent \" mid \" does not follow the points (\" chord \") at line \" NR
        }
        { if (\$3 > top) top = \$3; x = \$1; y = \$2; a = \$3 }
        END {
            if (top < 20) bad = \"never bends: \" top
            if (a != 0) bad = \"ends at \" a
            if (bad) { print bad; exit 1 }
        }" s.txt &&
    "$POYO" path --through "$S" --svg s.svg &&
    grep -q "2 arcs" s.svg
'

test_expect_success '--svg writes an SVG and refuses to overwrite without -f' '
    "$POYO" path --through "$RING" --svg ring.svg &&
    head -c 5 ring.svg | grep -q "^<?xml" &&
    grep -q "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 256 256\">" ring.svg &&
    grep -q "closed" ring.svg &&
    cp ring.svg ring.bak &&
    expect_exit 1 "$POYO" path --through "$ARC" --svg ring.svg 2>err &&
    expect_line err "poyo: ring.svg: already exists (use -f to overwrite)" &&
    cmp ring.svg ring.bak &&
    "$POYO" path --through "$ARC" --svg ring.svg -f --size 300x200 &&
    grep -q "viewBox=\"0 0 300 200\"" ring.svg &&
    no_temp_files .
'

    test_expect_success 'a stamp along a path makes a GIF, the same bytes twice' '
        "$POYO" path "$STAMP" --through "$S" --size 64 --fps 10 --duration 1 -o a.gif &&
        "$POYO" path "$STAMP" --through "$S" --size 64 --fps 10 --duration 1 -o b.gif &&
        test "$(head -c 6 a.gif)" = "GIF89a" &&
        test "$(od -An -tu1 -j6 -N4 a.gif | tr -s " ")" = " 64 0 64 0" &&
        cmp a.gif b.gif &&
        no_temp_files .
    '

    test_expect_success 'a closed path loops one lap, --bounce one round trip' '
        "$POYO" path "$STAMP" --through "$RING" --size 48 --fps 10 --duration 1.2 --sheet ring.png &&
        test "$(grep -c "\"filename\"" ring.json)" -eq 12 &&
        "$POYO" path "$STAMP" --through "$ARC" --bounce --size 48 --fps 10 --duration 1.2 --sheet arc.png &&
        test "$(grep -c "\"filename\"" arc.json)" -eq 24 &&
        expect_no_file ring.gif arc.gif
    '

    test_expect_success 'an open path settles at the end: more frames than the trip' '
        "$POYO" path "$STAMP" --through "$ARC" --size 48 --fps 10 --duration 1 --sheet once.png &&
        test "$(grep -c "\"filename\"" once.json)" -gt 11
    '

    test_expect_success '--speed sets the trip time from the path length' '
        "$POYO" path "$STAMP" --through "0.1,0.5,0 0.9,0.5,0" --speed 0.4 --size 48 --fps 10 --sheet sp.png &&
        test "$(grep -c "\"filename\"" sp.json)" -gt 20 &&
        expect_exit 2 "$POYO" path "$STAMP" --through "0.1,0.5,0 0.9,0.5,0" --speed 100 -o sp.gif 2>err &&
        grep -q "0.1 to 60 seconds" err &&
        expect_no_file sp.gif
    '

    test_expect_success 'absurd clip sizes are refused before any work' '
        expect_exit 2 "$POYO" path "$STAMP" --through "$ARC" --size 4096 --duration 60 --fps 100 -o big.gif 2>err &&
        expect_no_file big.gif
    '

    test_expect_success 'an existing output is kept without -f; the input is never overwritten' '
        echo keep >k.gif &&
        expect_exit 1 "$POYO" path "$STAMP" --through "$ARC" --size 32 --fps 5 -o k.gif 2>err &&
        test "$(cat k.gif)" = keep &&
        cp "$STAMP" in.png &&
        expect_exit 1 "$POYO" path in.png --through "$ARC" --size 32 --fps 5 -f -o in.png 2>err &&
        expect_line err "poyo: in.png: is the input file; refusing to overwrite it" &&
        cmp in.png "$STAMP"
    '

    test_expect_success 'on a straight path turning changes nothing: --facing 0, start and --no-turn give the same bytes' '
        L="0.2,0.5,0 0.8,0.5,0" &&
        "$POYO" path "$STAMP" --through "$L" -s 48 --fps 10 -o a.gif &&
        "$POYO" path "$STAMP" --through "$L" -s 48 --fps 10 --facing 0 -o b.gif &&
        "$POYO" path "$STAMP" --through "$L" -s 48 --fps 10 --facing start -o c.gif &&
        "$POYO" path "$STAMP" --through "$L" -s 48 --fps 10 --no-turn -o d.gif &&
        cmp a.gif b.gif && cmp a.gif c.gif && cmp a.gif d.gif &&
        "$POYO" path "$STAMP" --through "$L" -s 48 --fps 10 --facing 180 -o e.gif && ! cmp -s a.gif e.gif &&
        "$POYO" path "$STAMP" --through "$RING" -s 48 --fps 10 --duration 1 -o ring.gif &&
        "$POYO" path "$STAMP" --through "$RING" -s 48 --fps 10 --duration 1 --no-turn -o still.gif &&
        ! cmp -s ring.gif still.gif &&
        expect_exit 2 "$POYO" path "$STAMP" --through "$L" --facing x -o x.gif 2>err &&
        expect_line err "poyo: --facing: '\''x'\'' is not a number" &&
        expect_exit 2 "$POYO" path "$STAMP" --through "$L" --core 0.95 -o x.gif 2>err &&
        expect_line err "poyo: --core: must be 0.05 to 0.9, not 0.95" &&
        expect_no_file x.gif
    '

test_expect_success 'a missing stamp exits 1 and writes nothing' '
    expect_exit 1 "$POYO" path missing.png --through "$ARC" -o m.gif 2>err &&
    expect_line err "poyo: missing.png: cannot open: No such file or directory" &&
    expect_no_file m.gif
'

test_expect_success 'a file that is not an image exits 1 and writes nothing' '
    echo "not a png" >bad.png &&
    expect_exit 1 "$POYO" path bad.png --through "$ARC" -o bad.gif 2>/dev/null &&
    expect_no_file bad.gif &&
    no_temp_files .
'

test_done
