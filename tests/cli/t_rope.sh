#!/bin/sh
# t_rope.sh - poyo rope: help and exit codes, every range named in its error,
# the particle dump (rope lengths, the pinned anchor, rest at frame 0,
# determinism), the charm animation (format, size, seamless loop) and no
# output when the stamp is bad.
. "$(dirname "$0")/lib.sh"

# max_length_error CSV WANT [LAST]: the largest relative error of the distance
# between consecutive particles (up to particle LAST) against WANT (canvas
# fractions, square canvas)
max_length_error() {
    awk -F, -v want="$2" -v last="${3:-1000000}" 'NR > 1 {
        if ($1 == f && $3 == p + 1 && $3 <= last) {
            d = sqrt(($4 - x) ^ 2 + ($5 - y) ^ 2); e = (d - want) / want; if (e < 0) e = -e
            if (e > worst) worst = e
        }
        f = $1; p = $3; x = $4; y = $5
    } END { printf "%.6f\n", worst }' "$1"
}

# below A B: A < B as numbers
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# gif_size FILE: "W H" from the logical screen descriptor
gif_size() { od -A n -t u1 -j 6 -N 4 "$1" | awk '{ print $1 + 256 * $2, $3 + 256 * $4 }'; }

# inputs shared by the tests (each test runs in a folder of its own)
"$TOOLS/mkpng" rgba "$TRASH/stamp.png" 48
printf 'this is not a picture\n' >"$TRASH/notapng.png"
"$TOOLS/mkpng" transparent "$TRASH/clear.png"

test_expect_success 'rope --help prints the usage and exits 0' '
    expect_exit 0 "$POYO" rope --help >help.txt &&
    grep -q "^Usage: poyo rope" help.txt &&
    grep -q -- "--rope-color" help.txt && grep -q -- "--csv" help.txt
'

test_expect_success 'rope with nothing to do is a usage error' '
    expect_exit 2 "$POYO" rope 2>err.txt &&
    expect_line err.txt "poyo: no stamp (usage: poyo rope [OPTIONS] STAMP.png, or --csv/--json; see poyo rope --help)"
'

test_expect_success 'an unknown option is a usage error' '
    expect_exit 2 "$POYO" rope --swing 3 --csv 2>err.txt &&
    expect_line err.txt "poyo: --swing: unknown option (see poyo --help)"
'

test_expect_success 'each bad value exits 2 naming the option and its range' '
    for bad in "--length 9:--length: must be 0.01 to 4 canvas heights, not 9" \
               "--segments 0:--segments: must be 1 to 200, not 0" \
               "--stiffness 0:--stiffness: must be 0.01 to 1, not 0" \
               "--iterations 500:--iterations: must be 1 to 200, not 500" \
               "--rope-damping 1.5:--rope-damping: must be 0 to 1, not 1.5" \
               "--drag -1:--drag: must be 0 to 100, not -1" \
               "--gravity 0:--gravity: must be 0.1 to 100 canvas heights/s^2, not 0" \
               "--rope-mass 20:--rope-mass: must be 0.01 to 10, not 20" \
               "--stamp-size 2:--stamp-size: must be 0.05 to 1, not 2" \
               "--wobble 30:--wobble: must be 0 to 20, not 30" \
               "--kick 9:--kick: must be 0 to 5 canvas heights/s, not 9" \
               "--hz 30:--hz: must be 0.1 to 20, not 30" \
               "--damping 2:--damping: must be 0 to 1, not 2" \
               "--fps 0:--fps: must be 1 to 100, not 0" \
               "--duration 100:--duration: must be 0.1 to 60 seconds, not 100" \
               "--rope-width 0:--rope-width: must be 0.5 to 64 pixels, not 0" \
               "--anchor-at 3,0:--anchor-at: must be -1 to 2 in both coordinates, not 3,0" \
               "--size 0:--size: must be 1 to 4096 pixels per side, not 0" \
               "--grid 2:--grid: must be 8 to 12 (a coarser or finer lattice tears thin parts apart), not 2" \
               "--length nan:--length: '"'"'nan'"'"' is not a number" \
               "--kick inf:--kick: '"'"'inf'"'"' is not a number" \
               "--rope-color red:--rope-color: '"'"'red'"'"' is not a colour like #8b5a3c"; do
        args=${bad%%:*} msg=${bad#*:}
        # shellcheck disable=SC2086
        expect_exit 2 "$POYO" rope --csv $args >out.txt 2>err.txt &&
        expect_line err.txt "poyo: $msg" && test ! -s out.txt || return 1
    done
'

test_expect_success '--csv with --json, or a second stamp, is a usage error' '
    expect_exit 2 "$POYO" rope --csv --json 2>err.txt &&
    expect_line err.txt "poyo: --json: cannot be combined with --csv" &&
    expect_exit 2 "$POYO" rope a.png b.png 2>err.txt &&
    expect_line err.txt "poyo: b.png: poyo rope takes one stamp (already have a.png)"
'

test_expect_success 'CSV: header, one row per particle per frame, times are frame / fps' '
    "$POYO" rope --csv --segments 8 --fps 20 --duration 1.5 >r.csv &&
    test "$(head -n 1 r.csv)" = "frame,time,particle,x,y" &&
    test "$(($(wc -l <r.csv) - 1))" -eq $((30 * 9)) &&
    awk -F, "NR > 1 { t = \$1 / 20; if (\$2 - t > 1e-6 || t - \$2 > 1e-6 || \$3 < 0 || \$3 > 8) bad++ }
             END { exit bad > 0 }" r.csv
'

test_expect_success 'CSV: the top particle stays on the anchor in every frame' '
    "$POYO" rope --csv --anchor-at 0.3,0.1 --kick 2 >a.csv &&
    awk -F, "NR > 1 && \$3 == 0 { n++; if ((\$4 - 0.3) ^ 2 + (\$5 - 0.1) ^ 2 > 1e-12) bad++ }
             END { exit !(n == 50 && bad == 0) }" a.csv
'

test_expect_success 'CSV: frame 0 is the rope hanging straight down at rest' '
    "$POYO" rope --csv --segments 10 --length 0.5 >s.csv &&
    awk -F, "NR > 1 && \$1 == 0 { n++; y = 0.05 + \$3 * 0.05
             if ((\$4 - 0.5) ^ 2 > 1e-12 || (\$5 - y) ^ 2 > 1e-12) bad++ }
             END { exit !(n == 11 && bad == 0) }" s.csv
'

test_expect_success 'CSV: consecutive particles stay length / segments apart while swinging' '
    "$POYO" rope --csv --segments 12 --length 0.6 --kick 1.5 --duration 3 >l.csv &&
    err=$(max_length_error l.csv 0.05) && echo "worst $err" && below "$err" 0.01 &&
    "$POYO" rope --csv --segments 5 --length 0.25 --stiffness 0.5 >l2.csv &&
    err2=$(max_length_error l2.csv 0.05) && echo "stretchy $err2" && below "$err" "$err2" && below "$err2" 0.5
'

test_expect_success 'CSV: the rope moves after the kick, to the side it was kicked' '
    "$POYO" rope --csv --angle 180 --duration 0.2 >k.csv &&
    awk -F, "\$1 == 4 && \$3 == 16 { exit !(\$4 < 0.49) }" k.csv &&
    "$POYO" rope --csv --duration 0.2 >k2.csv &&
    awk -F, "\$1 == 4 && \$3 == 16 { exit !(\$4 > 0.51) }" k2.csv
'

test_expect_success 'CSV and JSON are deterministic' '
    "$POYO" rope --csv --kick 1.2 --angle 20 >d1.csv && "$POYO" rope --csv --kick 1.2 --angle 20 >d2.csv &&
    cmp d1.csv d2.csv &&
    "$POYO" rope --json >j1.json && "$POYO" rope --json >j2.json && cmp j1.json j2.json
'

test_expect_success 'JSON holds the same points as CSV' '
    "$POYO" rope --json --segments 3 --duration 0.2 >p.json &&
    "$POYO" rope --csv --segments 3 --duration 0.2 >p.csv &&
    test "$(grep -c "\"frame\": " p.json)" -eq 5 &&
    grep -q "\"particles\": 4" p.json &&
    row=$(awk -F, "\$1 == 3 && \$3 == 2 { printf \"[%s, %s]\", \$4, \$5 }" p.csv) &&
    grep "\"frame\": 3," p.json | grep -qF "$row"
'

cp "$DATA/1f36e.png" "$TRASH/flan.png"
    test_expect_success 'CSV with a stamp: its centre follows the rope end at a fixed distance' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope --csv flan.png --duration 2 >f.csv &&
        test "$(awk -F, "NR > 1 && \$1 == 0" f.csv | wc -l)" -eq 18 &&
        err=$(max_length_error f.csv 0.01875 16) && echo "worst $err" && below "$err" 0.02 &&
        awk -F, "\$3 == 16 { x = \$4; y = \$5 } \$3 == 17 { d = sqrt((\$4 - x) ^ 2 + (\$5 - y) ^ 2)
                 if (n++ == 0) d0 = d; else if ((d - d0) ^ 2 > 1e-8) bad++ } END { exit bad > 0 }" f.csv
    '
    test_expect_success 'a GIF of the requested size that loops forever' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -o charm.gif --size 120x100 &&
        test "$(head -c 6 charm.gif)" = GIF89a &&
        test "$(gif_size charm.gif)" = "120 100" &&
        "$TOOLS/animinfo" charm.gif >info.txt && grep -q "^loop 0$" info.txt
    '
    test_expect_success 'the GIF is deterministic' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -o c1.gif -s 96 && "$POYO" rope flan.png -o c2.gif -s 96 && cmp c1.gif c2.gif
    '
    test_expect_success 'the last frame leads into the first like any two neighbours' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -o loop.gif -s 128 &&
        n=$("$TOOLS/animinfo" loop.gif | awk "/^frames / { print \$2 }") && test "$n" -ge 10 &&
        worst=0 && i=0 &&
        while [ $i -lt $((n - 1)) ]; do
            c=$("$TOOLS/animinfo" --diff $i $((i + 1)) loop.gif | awk "/^changed / { print \$2 }")
            [ "$c" -gt "$worst" ] && worst=$c
            i=$((i + 1))
        done &&
        seam=$("$TOOLS/animinfo" --diff $((n - 1)) 0 loop.gif | awk "/^changed / { print \$2 }") &&
        echo "seam $seam, worst neighbours $worst" && test "$seam" -le "$worst"
    '
    test_expect_success 'APNG and WebP by extension, frames and a sheet' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -o charm.png -s 64 && od -A n -c -j 1 -N 3 charm.png | grep -q "P   N   G" &&
        "$POYO" rope flan.png -o charm.webp -s 64 && test "$(od -A n -c -j 8 -N 4 charm.webp | tr -d " ")" = WEBP &&
        "$POYO" rope flan.png --frames fr --sheet sheet.png -s 64 &&
        test -f fr/frame_0000.png && test -f sheet.png && test -f sheet.json && expect_no_file flan.gif
    '
    test_expect_success 'without -o the charm is STEM.gif beside the stamp; no overwrite without -f' '
        mkdir -p d && cp "$TRASH/flan.png" d/ && "$POYO" rope d/flan.png -s 64 && test -f d/flan.gif &&
        cp d/flan.gif before.gif &&
        expect_exit 1 "$POYO" rope d/flan.png -s 64 --kick 2 2>err.txt &&
        expect_line err.txt "poyo: d/flan.gif: already exists (use -f to overwrite)" && cmp before.gif d/flan.gif &&
        "$POYO" rope d/flan.png -s 64 --kick 2 -f && ! cmp -s before.gif d/flan.gif
    '
    test_expect_success 'with --drag the swing dies down and the clip ends at rest' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -o drag.gif -s 64 --drag 2 -v 2>err.txt &&
        grep -q "settled" err.txt
    '

    test_expect_success '--rope-color paints the rope (with or without #); -v says what was written, -q nothing' '
        cp "$TRASH/flan.png" . &&
        "$POYO" rope flan.png -s 64 --rope-color "#00ff00" -o green.png -v 2>err.txt &&
        grep -q "^poyo: flan.png: wrote green.png (64x64, [0-9]* frames, " err.txt &&
        test "$(wc -l <err.txt)" -eq 1 &&
        test "$("$TOOLS/animinfo" --pixel 0 32 8 green.png)" = "0 255 0 255" &&
        "$POYO" rope flan.png -s 64 --rope-color 00FF00 -o green2.png -q 2>err2.txt &&
        test ! -s err2.txt && cmp green.png green2.png
    '
    test_expect_success 'a stamp on standard input gives the clip on standard output; --format names it' '
        "$POYO" rope - -s 48 <"$TRASH/flan.png" >out.gif &&
        test "$(head -c 6 out.gif)" = GIF89a && test "$(gif_size out.gif)" = "48 48" &&
        "$POYO" rope "$TRASH/flan.png" -s 48 --format webp -o clip &&
        test "$(od -A n -c -j 8 -N 4 clip | tr -d " ")" = WEBP
    '
    test_expect_success 'the dump and a clip together; never both on standard output' '
        "$POYO" rope "$TRASH/flan.png" -s 48 --csv --duration 0.2 -o both.gif >d.csv &&
        test "$(head -c 6 both.gif)" = GIF89a && test "$(sed -n 1p d.csv)" = "frame,time,particle,x,y" &&
        expect_exit 2 "$POYO" rope "$TRASH/flan.png" --csv -o - >out 2>err.txt &&
        expect_line err.txt "poyo: -o: standard output already carries the CSV" && test ! -s out &&
        expect_exit 2 "$POYO" rope --json -o - >out 2>err.txt &&
        expect_line err.txt "poyo: -o: standard output already carries the JSON"
    '

test_expect_success 'a dump that cannot be written fails' '
    if [ -w /dev/full ]; then
        expect_exit 1 "$POYO" rope --csv >/dev/full 2>err.txt &&
        expect_line err.txt "poyo: -: cannot write: No space left on device"
    fi
'

test_expect_success 'a stamp drawn by the tests works too' '
    cp "$TRASH/stamp.png" . &&
    "$POYO" rope stamp.png -o s.gif -s 80 && test "$(gif_size s.gif)" = "80 80"
'

test_expect_success 'a stamp that is not an image fails with exit 1 and leaves no file' '
    cp "$TRASH/notapng.png" . &&
    expect_exit 1 "$POYO" rope notapng.png -o out.gif 2>err.txt &&
    expect_line err.txt "poyo: notapng.png: not a PNG or other supported image" &&
    expect_no_file out.gif notapng.gif && no_temp_files .
'

test_expect_success 'a stamp with nothing visible fails with exit 1 and leaves no file' '
    cp "$TRASH/clear.png" . &&
    expect_exit 1 "$POYO" rope clear.png -o out.gif 2>err.txt &&
    expect_line err.txt "poyo: clear.png: the stamp has no visible pixels" &&
    expect_no_file out.gif && no_temp_files .
'

test_expect_success 'a missing stamp fails with exit 1 and no CSV' '
    expect_exit 1 "$POYO" rope --csv missing.png >out.csv 2>err.txt &&
    grep -q "^poyo: missing.png: " err.txt && test ! -s out.csv
'

test_done
