#!/bin/sh
# t_animate.sh - the main job from the command line: exit codes, exact
# messages, output naming and permissions, every input kind, bad inputs that
# leave nothing behind, and the GIF read back (frames, delays, loop,
# transparency, first frame = still image, last frame close to the first).
. "$(dirname "$0")/lib.sh"

MKPNG="$TOOLS/mkpng"
INFO="$TOOLS/animinfo"
info() { "$INFO" "$1" | sed -n "s/^$2 //p"; }

test_expect_success 'help, version and the impulse list exit 0' '
    $POYO --help >out && grep -q "^Usage: poyo" out &&
    $POYO animate --help >out && grep -q -- "--hz F" out &&
    $POYO --version >out && grep -q "^poyo [0-9]" out &&
    $POYO --list-impulses >out &&
    for i in squash stretch poke shake twist jump drop wave pat; do grep -q "^$i " out || exit 1; done
'

test_expect_success 'usage errors exit 2 with one line naming the problem' '
    expect_exit 2 $POYO 2>err && expect_line err "poyo: no input file (usage: poyo [animate] [OPTIONS] INPUT...; see poyo --help)" &&
    expect_exit 2 $POYO animate 2>err && expect_line err "poyo: no input file (usage: poyo [animate] [OPTIONS] INPUT...; see poyo --help)" &&
    expect_exit 2 $POYO --frobnicate x.png 2>err && expect_line err "poyo: --frobnicate: unknown option (see poyo --help)" &&
    expect_exit 2 $POYO --hz 99 x.png 2>err && expect_line err "poyo: --hz: must be 0.1 to 20, not 99" &&
    expect_exit 2 $POYO --damping -1 x.png 2>err && expect_line err "poyo: --damping: must be 0 to 1, not -1" &&
    expect_exit 2 $POYO --grid 2 x.png 2>err && expect_line err "poyo: --grid: must be 8 to 12 (a coarser or finer lattice tears thin parts apart), not 2" &&
    expect_exit 2 $POYO --grid 64 x.png 2>err &&
    expect_line err "poyo: --grid: must be 8 to 12 (a coarser or finer lattice tears thin parts apart), not 64" &&
    expect_exit 2 $POYO --fps abc x.png 2>err && expect_line err "poyo: --fps: '"'"'abc'"'"' is not a number" &&
    expect_exit 2 $POYO --size 0 x.png 2>err && expect_line err "poyo: --size: must be 1 to 4096 pixels per side, not 0" &&
    expect_exit 2 $POYO --impulse wobble x.png 2>err && expect_line err "poyo: --impulse: unknown impulse '"'"'wobble'"'"' (see poyo --list-impulses)" &&
    expect_exit 2 $POYO --strength 5 x.png 2>err && expect_line err "poyo: --strength: must be 0 to 0.32 for squash (beyond that the body folds over itself, tears or kinks), not 5" &&
    expect_exit 2 $POYO -i pat --rate 4 x.png 2>err && expect_line err "poyo: --rate: must be at most --hz (3) for pat (faster, the body is pumped until it tears), not 4" &&
    expect_exit 2 $POYO -i wave --hz 1 --rate 1.2 x.png 2>err && expect_line err "poyo: --rate: must be at most --hz (1) for wave (faster, the body is pumped until it tears), not 1.2" &&
    expect_exit 2 $POYO -i drop --anchor top x.png 2>err && expect_line err "poyo: --anchor: must be bottom, none or auto for drop (hanging, it tears as it falls), not top" &&
    expect_exit 2 $POYO -i jump --anchor top x.png 2>err && expect_line err "poyo: --anchor: must be bottom, none or auto for jump (hanging, it tears as it falls), not top" &&
    expect_exit 2 $POYO -p telegram -i wave --hz 0.5 x.png 2>err && expect_line err "poyo: --hz: duration 5 s (one period), Telegram allows at most 3 s (on a body under --hz 3 a wave repeats more slowly; give --rate)" &&
    expect_exit 2 $POYO --colors 1 x.png 2>err && expect_line err "poyo: --colors: must be 2 to 256, not 1" &&
    expect_exit 2 $POYO --lossy-gif 256 x.png 2>err && expect_line err "poyo: --lossy-gif: must be 0 to 255, not 256" &&
    expect_exit 2 $POYO --preset myspace x.png 2>err && grep -q "^poyo: --preset: unknown preset '"'"'myspace'"'"' (one of slack, " err &&
    expect_exit 2 $POYO --max-bytes 12Q x.png 2>err && expect_line err "poyo: --max-bytes: '"'"'12Q'"'"' is not a size (like 128K, 256KiB, 300KB or 2G)" &&
    expect_exit 2 $POYO --matte purple x.png 2>err && expect_line err "poyo: --matte: '"'"'purple'"'"' is not a colour (#rrggbb, white, black, light or dark)" &&
    expect_exit 2 $POYO --hz 2>err && expect_line err "poyo: --hz: needs a value"
'

# each option of the main job at both ends of the range the man page gives, and
# just past them: accepted (the run gets as far as the missing input, exit 1),
# or refused before any work (exit 2, the option and its range in one line)
test_expect_success 'every range in the man page: its ends accepted, past them refused' '
    while IFS=: read -r opt lo hi below above msg; do
        expect_exit 1 $POYO $opt $lo missing.png -o x.gif 2>err &&
        expect_line err "poyo: missing.png: cannot open: No such file or directory" &&
        expect_exit 1 $POYO $opt $hi missing.png -o x.gif 2>err &&
        expect_line err "poyo: missing.png: cannot open: No such file or directory" &&
        expect_exit 2 $POYO $opt $below missing.png -o x.gif 2>err &&
        expect_line err "poyo: $opt: $(printf "$msg" "$below")" &&
        expect_exit 2 $POYO $opt $above missing.png -o x.gif 2>err &&
        expect_line err "poyo: $opt: $(printf "$msg" "$above")" || { echo "($opt)"; return 1; }
    done <<-EOF &&
	--at:-10,-10:10,10:-10.01,0:0,10.01:must be -10 to 10 image fractions in both coordinates, not %s
	--angle:-3600:3600:-3600.5:3601:must be -3600 to 3600 degrees, not %s
	--rate:0.1:20:0.09:20.5:must be 0.1 to 20 Hz, not %s
	--hz:0.1:20:0.05:20.01:must be 0.1 to 20, not %s
	--damping:0:1:-0.01:1.01:must be 0 to 1, not %s
	--volume:0:0.8:-0.1:0.81:must be 0 to 0.8, not %s
	--drag:0:100:-1:101:must be 0 to 100, not %s
	--outline-stiffness:0:1:-0.5:1.5:must be 0 to 1, not %s
	--outline:0:1:-0.5:2:must be 0 to 1, not %s
	--grid:8:12:7:13:must be 8 to 12 (a coarser or finer lattice tears thin parts apart), not %s
	--substeps:1:64:0:65:must be 1 to 64, not %s
	--fps:1:100:0.5:101:must be 1 to 100, not %s
	--duration:0.1:60:0.05:61:must be 0.1 to 60 seconds, not %s
	--size:1:4096x4096:0:4097:must be 1 to 4096 pixels per side, not %s
	--loop:0:65535:-1:65536:must be 0 to 65535, not %s
	--colors:2:256:1:257:must be 2 to 256, not %s
	--dither:0:1:-0.1:1.1:must be 0 to 1, not %s
	--alpha-threshold:1:255:0:256:must be 1 to 255, not %s
	--quality:0:100:-1:101:must be 0 to 100, not %s
	--lossy-gif:0:255:-1:256:must be 0 to 255, not %s
	--max-pixels:1:1000000000:0:1000000001:must be 1 to 1000000000, not %s
	--max-memory:16MiB:1024GiB:16777215:1100GiB:must be 16MiB to 1024GiB, not %s
	--jobs:1:256:0:257:must be 1 to 256, not %s
	EOF
    for name in bottom top none auto; do
        expect_exit 1 $POYO --anchor $name missing.png -o x.gif 2>/dev/null || return 1
    done &&
    expect_exit 2 $POYO --anchor left missing.png 2>err &&
    expect_line err "poyo: --anchor: must be bottom, top, none or auto, not '"'"'left'"'"'" &&
    expect_exit 1 $POYO --fit none missing.png -o x.gif 2>/dev/null &&
    expect_exit 2 $POYO --fit tight missing.png 2>err &&
    expect_line err "poyo: --fit: must be auto or none, not '"'"'tight'"'"'" &&
    expect_no_file x.gif
'

test_expect_success 'each impulse takes strengths up to the largest --list-impulses gives, no more' '
    $POYO --list-impulses >list &&
    for spec in squash:0.32 stretch:0.3 poke:0.3 shake:0.3 twist:0.4 jump:0.8 drop:0.8 wave:0.3 pat:0.3; do
        i=${spec%:*} max=${spec#*:} && above=$(awk "BEGIN { print $max + 0.01 }") &&
        test "$(awk -v i=$i "\$1 == i { print \$3 }" list)" = "$max" &&
        expect_exit 1 $POYO -i $i --strength $max missing.png 2>/dev/null &&
        expect_exit 1 $POYO -i $i --strength 0 missing.png 2>/dev/null &&
        expect_exit 2 $POYO -i $i --strength $above missing.png 2>err &&
        expect_line err "poyo: --strength: must be 0 to $max for $i (beyond that the body folds over itself, tears or kinks), not $above" ||
        { echo "($i)"; return 1; }
    done
'

test_expect_success 'writes STEM.gif beside the input, with 0666 minus the umask' '
    $MKPNG rgba stamp.png 64 &&
    (umask 022 && $POYO stamp.png) && [ -f stamp.gif ] &&
    [ "$(stat -c %a stamp.gif)" = 644 ] &&
    rm stamp.gif && (umask 077 && $POYO stamp.png) && [ "$(stat -c %a stamp.gif)" = 600 ] &&
    rm stamp.gif && (umask 002 && $POYO stamp.png) && [ "$(stat -c %a stamp.gif)" = 664 ] &&
    no_temp_files .
'

test_expect_success 'refuses to overwrite without -f, and never the input' '
    $MKPNG rgba stamp.png 64 && $POYO stamp.png -o out.gif &&
    cp out.gif before.gif &&
    expect_exit 1 $POYO stamp.png -o out.gif 2>err &&
    expect_line err "poyo: out.gif: already exists (use -f to overwrite)" &&
    cmp out.gif before.gif &&
    $POYO -f stamp.png -o out.gif &&
    cp stamp.png keep.png &&
    expect_exit 1 $POYO -f stamp.png -o stamp.png 2>err &&
    expect_line err "poyo: stamp.png: is the input file; refusing to overwrite it" &&
    cmp stamp.png keep.png && no_temp_files .
'

test_expect_success 'standard input and output give the same bytes as files' '
    $MKPNG rgba stamp.png 48 &&
    $POYO stamp.png -o file.gif &&
    $POYO - -o piped.gif <stamp.png && cmp file.gif piped.gif &&
    $POYO stamp.png -o - >stdout.gif && cmp file.gif stdout.gif &&
    $POYO - <stamp.png >default.gif && cmp file.gif default.gif
'

test_expect_success 'the same input and options give the same bytes' '
    $MKPNG rgba stamp.png 64 &&
    $POYO stamp.png -i poke -o a.gif && $POYO stamp.png -i poke -o b.gif && cmp a.gif b.gif &&
    $POYO stamp.png -i jump --size 96 -o c.gif && $POYO stamp.png -i jump --size 96 -o d.gif && cmp c.gif d.gif
'

test_expect_success 'the GIF reads back: loop block, frames, delays, one transparent index' '
    $MKPNG rgba stamp.png 64 &&
    $POYO stamp.png -o out.gif --fps 25 &&
    [ "$(info out.gif format)" = gif ] && [ "$(info out.gif width)" = 64 ] &&
    [ "$(info out.gif plays)" = 0 ] &&
    frames=$(info out.gif frames) && [ "$frames" -ge 10 ] &&
    for d in $(info out.gif delays); do [ "$d" -ge 20 ] || exit 1; done &&
    [ "$(info out.gif gif_transparent_same)" = 1 ] &&
    [ "$(info out.gif gif_transparent_index)" -ge 0 ] &&
    [ "$(info out.gif semi_transparent)" = 0 ] &&
    $POYO stamp.png -o three.gif --loop 3 && [ "$(info three.gif plays)" = 3 ] &&
    $POYO stamp.png -o once.gif --loop 1 && [ "$(info once.gif loop)" = -1 ]
'

test_expect_success 'delays add up to the clip length at any frame rate' '
    $MKPNG rgba stamp.png 48 &&
    for fps in 20 25 30 50; do
        $POYO stamp.png -o f$fps.gif --fps $fps --duration 1.2 -f || exit 1
        total=$(info f$fps.gif duration_ms)
        [ "$total" -eq 1200 ] || { echo "fps $fps: $total ms"; exit 1; }
    done
'

test_expect_success 'first frame is the still image; the last frame is within a pixel of it' '
    $MKPNG rgba stamp.png 64 &&
    $POYO stamp.png -o out.gif --fit none &&
    "$INFO" --compare 0 stamp.png out.gif >cmp.txt &&
    [ "$(sed -n "s/^mask_mismatch //p" cmp.txt)" = 0 ] &&
    [ "$(sed -n "s/^max_error //p" cmp.txt)" -le 16 ] &&
    "$INFO" --diff 0 -1 out.gif >diff.txt &&
    changed=$(sed -n "s/^changed //p" diff.txt) && pixels=$(sed -n "s/^pixels //p" diff.txt) &&
    [ $((changed * 100)) -le $((pixels * 3)) ] &&
    "$INFO" --diff 0 3 out.gif >diff3.txt &&
    [ "$(sed -n "s/^changed //p" diff3.txt)" -gt "$changed" ]
'

test_expect_success '--alpha-threshold N: in the GIF exactly the pixels of alpha N or more are visible' '
    cp "$DATA/1f600.png" in.png &&
    for t in 1 128 255; do
        $POYO in.png --fit none --alpha-threshold $t -o a$t.gif &&
        "$INFO" --compare --alpha $t 0 in.png a$t.gif >c$t.txt &&
        [ "$(sed -n "s/^mask_mismatch //p" c$t.txt)" = 0 ] || { echo "threshold $t"; return 1; }
    done &&
    v1=$(sed -n "s/^visible //p" c1.txt) && v255=$(sed -n "s/^visible //p" c255.txt) &&
    echo "visible: $v1 at 1, $v255 at 255" && [ "$v1" -gt "$v255" ]
'

# pixel 10,8 of 1f600.png is (255,204,77) at alpha 190: an edge pixel
test_expect_success '--matte blends a semi-transparent edge onto the colour named, as the man page lists them' '
    cp "$DATA/1f600.png" in.png &&
    test "$("$INFO" --pixel 0 10 8 in.png)" = "255 204 77 190" &&
    $POYO in.png --fit none -o none.gif && test "$("$INFO" --pixel 0 10 8 none.gif)" = "255 204 77 255" &&
    for m in white:255,255,255 black:0,0,0 light:248,248,248 dark:26,29,33 "#102030:16,32,48"; do
        name=${m%:*} bg=${m#*:} &&
        $POYO in.png --fit none --matte "$name" -o m.gif -f &&
        "$INFO" --pixel 0 10 8 m.gif | awk -v bg="$bg" "{
            split(bg, b, \",\"); split(\"255 204 77\", c, \" \")
            for (k = 1; k <= 3; k++) { want = (c[k] * 190 + b[k] * 65) / 255; d = \$k - want
                if (d < -3 || d > 3) { print \"channel \" k \": \" \$k \", want \" want; exit 1 } }
            exit \$4 != 255 }" || { echo "--matte $name"; return 1; }
    done
'

test_expect_success 'every kind of PNG input works' '
    for k in rgba rgba16 rgb rgb16 gray gray16 graya palette interlaced; do
        $MKPNG $k $k.png 40 && $POYO $k.png -o $k.gif || { echo "kind $k failed"; exit 1; }
        [ "$(info $k.gif width)" = 40 ] || exit 1
    done &&
    $MKPNG rgba tiny.png 1 && $POYO tiny.png -o tiny.gif &&
    $MKPNG rgba wide.png 240 60 && $POYO wide.png -o wide.gif && [ "$(info wide.gif width)" = 240 ] &&
    $MKPNG rgba tall.png 60 240 && $POYO tall.png -o tall.gif && [ "$(info tall.gif height)" = 240 ]
'

test_expect_success 'opaque RGB: the whole rectangle is the body' '
    $MKPNG rgb box.png 48 && $POYO box.png -o box.gif --fit none &&
    "$INFO" --png 0 first.png box.gif && "$INFO" --compare 0 box.png box.gif >c.txt &&
    [ "$(sed -n "s/^mask_mismatch //p" c.txt)" = 0 ]
'

test_expect_success 'bad inputs: one line, exit 1, no output, no temporary file' '
    $MKPNG empty empty.png && $MKPNG text text.png && $MKPNG truncated trunc.png 64 &&
    $MKPNG corrupt-idat corrupt.png 64 && $MKPNG zero-width zero.png && $MKPNG huge huge.png &&
    $MKPNG transparent clear.png 32 && mkdir dir.png &&
    expect_exit 1 $POYO empty.png -o o1.gif 2>e1 && expect_line e1 "poyo: empty.png: empty file" &&
    expect_exit 1 $POYO text.png -o o2.gif 2>e2 && expect_line e2 "poyo: text.png: not a PNG or other supported image" &&
    expect_exit 1 $POYO trunc.png -o o3.gif 2>e3 && expect_line e3 "poyo: trunc.png: corrupt or truncated image data" &&
    expect_exit 1 $POYO corrupt.png -o o4.gif 2>e4 && expect_line e4 "poyo: corrupt.png: corrupt or truncated image data" &&
    expect_exit 1 $POYO zero.png -o o5.gif 2>e5 && expect_line e5 "poyo: zero.png: image has zero width or height (0x64)" &&
    expect_exit 1 $POYO huge.png -o o6.gif 2>e6 &&
    expect_line e6 "poyo: huge.png: image is 60000x60000, more than the 16777216-pixel limit (see --max-pixels)" &&
    expect_exit 1 $POYO clear.png -o o7.gif 2>e7 && expect_line e7 "poyo: clear.png: image is fully transparent: nothing to animate" &&
    expect_exit 1 $POYO dir.png 2>e8 && expect_line e8 "poyo: dir.png: is a directory with no PNG, JPEG, WebP, GIF or SVG files" &&
    expect_exit 2 $POYO dir.png -o o8.gif 2>e8 &&
    expect_line e8 "poyo: o8.gif: with several inputs or a directory, -o must name a directory (end it with /)" &&
    expect_exit 1 $POYO missing.png -o o9.gif 2>e9 && expect_line e9 "poyo: missing.png: cannot open: No such file or directory" &&
    expect_no_file o1.gif o2.gif o3.gif o4.gif o5.gif o6.gif o7.gif o8.gif o9.gif && no_temp_files .
'

test_expect_success 'unwritable outputs fail cleanly' '
    $MKPNG rgba stamp.png 32 &&
    expect_exit 1 $POYO stamp.png -o nodir/out.gif 2>e1 &&
    expect_line e1 "poyo: nodir/out.gif: cannot create a file there: No such file or directory" &&
    mkdir ro && chmod 555 ro &&
    if [ "$(id -u)" != 0 ]; then
        expect_exit 1 $POYO stamp.png -o ro/out.gif 2>e2 &&
        expect_line e2 "poyo: ro/out.gif: cannot create a file there: Permission denied"
    fi &&
    (ulimit -f 8; expect_exit 1 $POYO stamp.png -o big.gif --size 256 2>e3) &&
    expect_line e3 "poyo: big.gif: cannot write: File too large" &&
    expect_no_file nodir/out.gif ro/out.gif big.gif && no_temp_files . && no_temp_files ro
'

test_expect_success 'every impulse makes a loop; periodic ones a whole period' '
    $MKPNG rgba stamp.png 48 &&
    for i in squash stretch poke shake twist jump drop wave pat; do
        $POYO stamp.png -i $i -o $i.gif || { echo "impulse $i failed"; exit 1; }
    done &&
    [ "$(info wave.gif duration_ms)" -eq 840 ] && [ "$(info pat.gif duration_ms)" -eq 680 ] &&
    $POYO stamp.png -i wave --rate 2.5 -o w2.gif && [ "$(info w2.gif duration_ms)" -eq 400 ]
'

test_expect_success 'other formats by extension, frames and sprite sheets' '
    $MKPNG rgba stamp.png 40 &&
    $POYO stamp.png -o out.png && [ "$(info out.png format)" = apng ] && [ "$(info out.png semi_transparent)" = 1 ] &&
    $POYO stamp.png -o out.webp && [ "$(info out.webp format)" = webp ] &&
    $POYO stamp.png --format webp -o webp.bin && [ "$(info webp.bin format)" = webp ] &&
    $POYO stamp.png --frames fr --sheet sheet.png &&
    n=$(ls fr | wc -l) && [ "$n" -ge 10 ] && [ -f sheet.png ] && [ -f sheet.json ] &&
    grep -q "\"frame_count\": $n" sheet.json && grep -q "\"duration\": 40" sheet.json &&
    expect_no_file stamp.gif &&
    # a shorter clip over them with -f: no frame of the longer clip is left to play on
    $POYO stamp.png -i wave --hz 5 --rate 5 --frames fr -f -q -o w5.gif &&
    [ "$(ls fr | wc -l)" -eq 5 ] && [ -f fr/frame_0004.png ] && [ "$n" -gt 5 ]
'

test_expect_success 'WebP --effort: more effort, fewer bytes, the same frames; out of range refused' '
    cp "$DATA/1f600.png" . &&
    $POYO 1f600.png -s 96 -o e0.webp && $POYO 1f600.png -s 96 --effort 4 -o e4.webp &&
    [ "$(wc -c <e4.webp)" -lt "$(wc -c <e0.webp)" ] &&
    [ "$("$INFO" --hash e0.webp)" = "$("$INFO" --hash e4.webp)" ] &&
    expect_exit 2 $POYO 1f600.png --effort 7 -o e7.webp 2>err &&
    expect_line err "poyo: --effort: must be 0 to 6, not 7" && expect_no_file e7.webp
'

test_expect_success 'presets make files their own check accepts; --max-bytes fits or fails' '
    $MKPNG rgba stamp.png 64 &&
    $POYO -p slack stamp.png -o s.gif -q && $POYO check --preset slack s.gif >/dev/null &&
    $POYO -p line stamp.png -o l.png -q && $POYO check --preset line l.png >/dev/null &&
    $POYO stamp.png --size 128 --max-bytes 30K -o m.gif -q && [ "$(info m.gif bytes)" -le 30000 ] &&
    expect_exit 1 $POYO stamp.png --max-bytes 50 -o none.gif 2>err &&
    grep -q "^poyo: stamp.png: cannot fit 50 bytes: the smallest setting tried gives [0-9]* bytes$" err &&
    expect_no_file none.gif
'

test_expect_success '--max-bytes says in --json and -v what it chose and the PSNR it lost' '
    $MKPNG rgba stamp.png 64 &&
    $POYO stamp.png --size 128 --max-bytes 1M -o big.gif --json -q >j1 &&
    "$TOOLS/jsonlines" <j1 && grep -q "\"psnr_lost\": 0.00, \"search\": \"untouched, " j1 &&
    $POYO stamp.png --size 128 --max-bytes 12K -o small.gif --json -v >j2 2>err &&
    "$TOOLS/jsonlines" <j2 && [ "$(info small.gif bytes)" -le 12000 ] &&
    grep -q "\"psnr_lost\": [0-9]*\.[0-9][0-9], \"search\": \"" j2 && ! grep -q "untouched" j2 &&
    grep -q "^poyo: small.gif: [0-9]* bytes (budget 12000): .*, PSNR lost [0-9.]* dB$" err &&
    $POYO stamp.png --size 128 -o plain.gif -q && cmp -s plain.gif big.gif
'

test_expect_success 'corpus emoji: palette PNGs with tRNS and large RGBA' '
    $POYO "$DATA/1f36e.png" -o t.gif && [ "$(info t.gif width)" = 64 ] &&
    $POYO "$DATA/2757.png" -i shake -o bang.gif &&
    $POYO "$DATA/openmoji-1F600-512.png" --size 128 -o o.gif && [ "$(info o.gif width)" = 128 ]
'

test_expect_success 'lossy GIF: 0 is the exact file; more loss, fewer bytes, the same frames, close to the exact ones' '
    $POYO "$DATA/1f600.png" -s 96 --frames fr -o exact.gif &&
    $POYO "$DATA/1f600.png" -s 96 --lossy-gif 0 -o zero.gif && cmp exact.gif zero.gif &&
    $POYO "$DATA/1f600.png" -s 96 --lossy-gif 15 -o l15.gif &&
    $POYO "$DATA/1f600.png" -s 96 --lossy-gif 40 -o l40.gif &&
    e=$(wc -c <exact.gif) && a=$(wc -c <l15.gif) && b=$(wc -c <l40.gif) &&
    [ "$a" -lt $((e * 6 / 10)) ] && [ "$b" -lt "$a" ] &&
    [ "$(info l15.gif frames)" = "$(info exact.gif frames)" ] &&
    set -- $("$TOOLS/psnr" 25 fr exact.gif) && pe=$1 &&
    set -- $("$TOOLS/psnr" 25 fr l15.gif) &&
    awk -v e="$pe" -v l="$1" "BEGIN { exit !(l > e - 1.0 && l < e) }"
'

test_done
