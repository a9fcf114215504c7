#!/bin/sh
# t_hostile.sh - inputs and commands a hostile sender or a careless user
# would try: decompression bombs, files that are not what their names say,
# crafted animations for check, outputs that are not plain files, batches that
# loop or clash. Every poyo run is bounded by timeout so a hang fails the test.
. "$(dirname "$0")/lib.sh"

MKPNG="$TOOLS/mkpng"
MKH="$TOOLS/mkpng"
T="timeout 20"

# zlib header bytes CMF FLG for window CINFO and level FLEVEL, without a dictionary
zhdr() {
    cmf=$(($1 * 16 + 8))
    base=$(($2 * 64))
    flg=$((base + 31 - (cmf * 256 + base) % 31))
    [ $flg -ge $((base + 31)) ] && flg=$((flg - 31))
    echo "$cmf $flg"
}

test_expect_success 'a PNG bomb is refused behind every zlib window size and level' '
    for cinfo in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        $MKH png-bomb b$cinfo.png 8 $(zhdr $cinfo $((cinfo % 4))) || exit 1
        expect_exit 1 $T $POYO b$cinfo.png -o b$cinfo.gif 2>err &&
        expect_line err "poyo: b$cinfo.png: corrupt PNG: its image data inflates to more than a 64x64 image holds" &&
        expect_no_file b$cinfo.gif || exit 1
    done
'

test_expect_success 'a zlib header asking for a preset dictionary or another method is refused' '
    $MKH png-bomb dict.png 1 120 190 &&
    expect_exit 1 $T $POYO dict.png 2>err &&
    expect_line err "poyo: dict.png: corrupt PNG: its compressed image data is not valid zlib data" &&
    $MKH png-bomb method.png 1 121 0 &&
    expect_exit 1 $T $POYO method.png 2>err &&
    expect_line err "poyo: method.png: corrupt PNG: its compressed image data is not valid zlib data" &&
    expect_no_file dict.gif method.gif
'

test_expect_success 'an Apple CgBI PNG (headerless deflate) is refused before inflating' '
    $MKH png-cgbi cgbi.png 8 &&
    expect_exit 1 $T $POYO cgbi.png 2>err &&
    expect_line err "poyo: cgbi.png: an Apple CgBI PNG (made for iOS), not a standard PNG; convert it first" &&
    expect_no_file cgbi.gif
'

test_expect_success 'ordinary PNGs of every kind still decode' '
    for k in rgba rgba16 rgb gray16 graya palette interlaced; do
        $MKPNG $k $k.png 48 && $T $POYO $k.png -o $k.gif && [ -s $k.gif ] || exit 1
    done
'

test_expect_success 'files that are not PNG, JPEG, WebP or GIF never reach a decoder, whatever their name' '
    { printf "P5\n256 256\n65535\n"; head -c 131072 /dev/zero; } >pgm16.png &&
    printf "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 64 +X 64\n\002\002\000" >hdr.png &&
    printf "\000\000\002\000\000\000\000\000\000\000\000\000\100\000\100\000\040\010" >tga.png &&
    printf "BM\066\000\000\000\000\000\000\000\066\000\000\000" >bmp.png &&
    printf "8BPS\000\001" >psd.png &&
    printf "RIFF\004\000\000\000WAVE" >wav.png &&
    for f in pgm16 hdr tga bmp psd wav; do
        expect_exit 1 $T $POYO $f.png 2>err &&
        expect_line err "poyo: $f.png: not a PNG or other supported image" &&
        expect_no_file $f.gif || exit 1
    done
'

test_expect_success 'a JPEG is read; one with more than 500 scans is refused before decoding' '
    $MKH jpeg-scans ok.jpg 3 64 && $T $POYO ok.jpg -o ok.gif && [ -s ok.gif ] &&
    $MKH jpeg-scans many.jpg 501 64 &&
    expect_exit 1 $T $POYO many.jpg -o many.gif 2>err &&
    expect_line err "poyo: many.jpg: JPEG has more than 500 scans" &&
    expect_no_file many.gif &&
    $MKH jpeg-scans edge.jpg 500 64 && $T $POYO edge.jpg -o edge.gif && [ -s edge.gif ]
'

test_expect_success 'a still WebP, an animated WebP, a GIF and an animated GIF go in, whatever their names' '
    $MKH webp-still still.webp 48 && $MKPNG rgba stamp.png 48 &&
    $T $POYO stamp.png -o anim.webp && $T $POYO stamp.png -o anim.gif &&
    $T $POYO stamp.png --fps 1 --duration 1 -o one.gif &&
    cp still.webp still.png && cp anim.gif anim-gif.png &&
    for f in still.webp anim.webp anim.gif one.gif still.png anim-gif.png; do
        $T $POYO $f -o $f.out.gif && [ "$(head -c 6 $f.out.gif)" = GIF89a ] || exit 1
    done &&
    $TOOLS/animinfo anim.webp.out.gif >info && grep -qx "width 48" info && grep -qx "height 48" info
'

test_expect_success 'a WebP or GIF cut inside its first frame fails with one line, exit 1, and no output' '
    $MKPNG rgba stamp.png 48 && $T $POYO stamp.png -o anim.webp && $T $POYO stamp.png -o anim.gif &&
    $MKH webp-still still.webp 48 &&
    head -c 16 anim.webp >head.webp && head -c 100 anim.webp >frame1.webp &&
    head -c $(($(wc -c <still.webp) / 2)) still.webp >cut.webp &&
    head -c 400 anim.gif >head.gif && head -c 1000 anim.gif >cut.gif &&
    expect_refused head.webp "corrupt or truncated WebP header" &&
    expect_refused frame1.webp "corrupt or truncated WebP animation (a chunk runs past the end of the file)" &&
    expect_refused cut.webp "corrupt or truncated image data (WebP)" &&
    expect_refused head.gif "corrupt or truncated GIF header" &&
    expect_refused cut.gif "corrupt or truncated image data (GIF: the file is truncated)" &&
    printf "GIF89a\001\000\001\000\000\000\000;" >empty.gif &&
    expect_refused empty.gif "GIF has no frames" &&
    expect_no_file o.gif
'

test_expect_success 'a WebP or GIF declaring a huge canvas is refused by the pixel limit before decoding' '
    $MKH webp-frames huge.webp 16384 16384 1 && $MKH gif-frames huge.gif 60000 60000 1 &&
    [ $(wc -c <huge.webp) -lt 200 ] &&
    expect_refused huge.webp "image is 16384x16384, more than the 16777216-pixel limit (see --max-pixels)" &&
    expect_refused huge.gif "image is 60000x60000, more than the 16777216-pixel limit (see --max-pixels)" &&
    $MKH webp-still s.webp 48 &&
    expect_exit 1 $T $POYO --max-pixels 2000 s.webp -o o.gif 2>err &&
    expect_line err "poyo: s.webp: image is 48x48, more than the 2000-pixel limit (see --max-pixels)" &&
    $MKH gif-offcanvas off.gif 1 &&
    expect_exit 1 $T $POYO --max-pixels 1000000 off.gif -o o.gif 2>err &&
    expect_line err "poyo: off.gif: GIF frame 1 is 4096x4096, more than the 1000000-pixel limit (see --max-pixels)" &&
    expect_no_file o.gif
'

test_expect_success 'check refuses tiny GIF, APNG and WebP files that declare more than 1 GiB of frames' '
    $MKH gif-frames g.gif 4096 4096 200 && $MKH apng-frames a.png 4096 4096 1000 &&
    $MKH webp-frames w.webp 4096 4096 200 && [ $(wc -c <g.gif) -lt 10000 ] &&
    expect_exit 1 $T $POYO check -p slack g.gif 2>err &&
    expect_line err "poyo: g.gif: 200 frames of 4096x4096 would take about 12.6 GiB, more than the 1 GiB memory limit; raise --max-memory" &&
    expect_exit 1 $T $POYO check -p slack a.png 2>err &&
    expect_line err "poyo: a.png: 1000 frames of 4096x4096 would take about 62.6 GiB, more than the 1 GiB memory limit; raise --max-memory" &&
    expect_exit 1 $T $POYO check -p slack w.webp 2>err &&
    expect_line err "poyo: w.webp: 200 frames of 4096x4096 would take about 12.6 GiB, more than the 1 GiB memory limit; raise --max-memory"
'

test_expect_success 'check refuses GIF, APNG and WebP files of more than 10000 frames at once, however small' '
    $MKH gif-frames g.gif 1 1 1000000 && $MKH apng-frames a.png 1 1 10001 && $MKH webp-frames w.webp 1 1 10001 &&
    for f in g.gif a.png w.webp; do
        expect_exit 1 $TOOLS/rusage cost $POYO check -p slack $f 2>err &&
        expect_line err "poyo: $f: animation has more than 10000 frames" &&
        read secs mib <cost && echo "$f: $secs s, $mib MiB" && awk -v s="$secs" "BEGIN { exit !(s < 2) }" || exit 1
    done &&
    $MKH gif-frames ok.gif 1 1 10000 && expect_exit 1 $T $POYO check -p slack ok.gif >out 2>err && [ ! -s err ] &&
    grep -qx "ok.gif: fail: frames 10000, Slack allows at most 50" out
'

test_expect_success 'check refuses a GIF whose frames declare more pixels than the budget, before decoding them' '
    $MKH gif-offcanvas off.gif 17 &&
    expect_exit 1 $T $POYO check -p slack off.gif 2>err &&
    expect_line err "poyo: off.gif: GIF frames hold 285212672 pixels in all, more than the limit of 268435456"
'

test_expect_success 'check passes over GIF frames off the canvas without decoding them' '
    $MKH gif-offcanvas off.gif 16 &&
    expect_exit 1 $T $POYO check -p mastodon off.gif >out &&
    expect_line out "off.gif: fail: delay 0 ms (frame 1; 16 of 16 frames under 20 ms), GIF players show such frames for 100 ms"
'

test_expect_success '-f replaces only regular files: FIFOs and symbolic links are refused' '
    $MKPNG rgba stamp.png 32 && mkfifo fifo.gif &&
    expect_exit 1 $T $POYO -f stamp.png -o fifo.gif 2>err &&
    expect_line err "poyo: fifo.gif: is not a regular file (a FIFO, device or socket); refusing to replace it" &&
    [ -p fifo.gif ] &&
    echo keep >target.gif && ln -s target.gif link.gif && ln -s missing.gif dangling.gif &&
    for l in link.gif dangling.gif; do
        expect_exit 1 $T $POYO -f stamp.png -o $l 2>err &&
        expect_line err "poyo: $l: is a symbolic link; refusing to replace it or write through it" &&
        [ -L $l ] || exit 1
    done &&
    [ "$(cat target.gif)" = keep ] && expect_no_file missing.gif && no_temp_files .
'

test_expect_success '-f keeps the permissions of the file it replaces' '
    $MKPNG rgba stamp.png 32 && echo old >out.gif && chmod 600 out.gif &&
    (umask 022 && $T $POYO -f stamp.png -o out.gif) &&
    [ "$(stat -c %a out.gif)" = 600 ] && [ "$(head -c 3 out.gif)" = GIF ] &&
    chmod 640 out.gif && $T $POYO -f stamp.png -o out.gif && [ "$(stat -c %a out.gif)" = 640 ]
'

test_expect_success 'without -f an existing output is refused before the input is decoded, in every subcommand' '
    $MKPNG text bad.png && echo old >bad.gif && $MKPNG rgba a.png 32 && mkdir out && echo old >out/bad.gif &&
    for cmd in animate rope "path --through 0.2,0.5,0 --through 0.8,0.5,0" sdf; do
        expect_exit 1 $T $POYO $cmd bad.png -o bad.gif 2>err &&
        expect_line err "poyo: bad.gif: already exists (use -f to overwrite)" || exit 1
    done &&
    [ "$(cat bad.gif)" = old ] &&
    expect_exit 1 $T $POYO -o out/ bad.png a.png 2>err &&
    grep -qx "poyo: out/bad.gif: already exists (use -f to overwrite)" err &&
    grep -q "^poyo: 1 written, 1 failed (" err && [ "$(cat out/bad.gif)" = old ] && [ -s out/a.gif ] &&
    "$MKPNG" rgba big.png 2000 && echo old >big.gif &&
    expect_exit 1 $TOOLS/rusage cost $POYO big.png 2>err &&
    expect_line err "poyo: big.gif: already exists (use -f to overwrite)" &&
    read secs mib <cost && echo "$secs s, $mib MiB" &&
    awk -v s="$secs" -v m="$mib" "BEGIN { exit !(s < 2 && m < 32) }" && [ "$(cat big.gif)" = old ]
'

test_expect_success 'output names of 248 to 255 bytes are written (the temporary name fits)' '
    $MKPNG rgba stamp.png 32 &&
    for n in 244 247 251; do
        name=$(printf "%${n}s" "" | tr " " a).gif &&
        $T $POYO stamp.png -o $name && [ -s $name ] || exit 1
    done &&
    no_temp_files .
'

test_expect_success 'a --frames run that fails part-way leaves no frames behind' '
    $MKPNG rgba stamp.png 32 && mkdir -p fr/frame_0003.png &&
    expect_exit 1 $T $POYO stamp.png --frames fr 2>err &&
    grep -q "^poyo: fr: frame_0003.png: is a directory" err &&
    [ "$(ls fr)" = frame_0003.png ] && no_temp_files fr
'

test_expect_success 'a sprite sheet whose JSON cannot be written is removed again' '
    $MKPNG rgba stamp.png 32 && mkdir sheet.json &&
    expect_exit 1 $T $POYO stamp.png --sheet sheet.png 2>err &&
    expect_line err "poyo: sheet.png: sheet.json: is a directory" &&
    expect_no_file sheet.png && no_temp_files .
'

test_expect_success 'endless standard input stops at the 256 MiB input limit' '
    expect_exit 1 $T $POYO - -o out.gif </dev/zero 2>err &&
    expect_line err "poyo: -: standard input is larger than the 256 MiB limit on inputs" &&
    expect_exit 1 $T $POYO check -p slack - </dev/zero 2>err &&
    expect_line err "poyo: -: standard input is larger than the 256 MiB limit on inputs" &&
    expect_no_file out.gif
'

test_expect_success 'a FIFO named as an input is refused at once, not waited on' '
    mkfifo pipe.png &&
    expect_exit 1 $T $POYO pipe.png 2>err &&
    expect_line err "poyo: pipe.png: is not a regular file (a FIFO, device or socket); use - to read a pipe" &&
    expect_exit 1 $T $POYO check -p slack pipe.png 2>err &&
    expect_line err "poyo: pipe.png: is not a regular file (a FIFO, device or socket); use - to read a pipe"
'

test_expect_success 'an input is never overwritten by another input'"'"'s output, even with -f' '
    $MKPNG rgba a.png 32 && $MKPNG rgba b.png 40 && cp b.png a.gif &&
    expect_exit 1 $T $POYO -f a.png a.gif 2>err &&
    grep -qx "poyo: a.gif: is an input file; refusing to overwrite it" err &&
    cmp a.gif b.png
'

test_expect_success 'two inputs with one output: the first in order wins, whatever finishes first' '
    $MKPNG rgba a.png 32 && $MKPNG rgba big.png 200 && mkdir d && cp big.png d/a.png &&
    for i in 1 2 3; do
        rm -rf out && expect_exit 1 $T $POYO -j 2 -o out/ d/a.png ./a.png 2>err &&
        grep -qx "poyo: ./a.png: out/a.gif would also be written for d/a.png; skipped (name clash)" err &&
        [ "$($TOOLS/animinfo out/a.gif | sed -n "s/^width //p")" = 200 ] || exit 1
    done &&
    expect_exit 1 $T $POYO ./a.png a.png 2>err &&
    grep -qx "poyo: a.png: a.gif would also be written for ./a.png; skipped (name clash)" err &&
    grep -qx "poyo: 1 written, 1 failed (.*)" err && [ -s a.gif ]
'

test_expect_success 'control characters in names are escaped on the terminal and in JSON' '
    printf junk >"$(printf "bad\033[2J.png")" && printf junk >"$(printf "n\377.png")" &&
    expect_exit 1 $T $POYO --json -o out/ ./*.png >json 2>err &&
    grep -qx "poyo: ./bad\\\\033\[2J.png: not a PNG or other supported image" err &&
    ! grep -q "$(printf "\033")" err &&
    grep -q "\"input\": \"./bad\\\\u001b\[2J.png\"" json &&
    grep -q "\"input\": \"./n\\\\ufffd.png\"" json &&
    ! grep -q "$(printf "\377")" json
'

msg_json_stdout="poyo: --json: cannot be used when the image goes to standard output (-o - or input -); use -o FILE"
test_expect_success '--json with the image on standard output is a usage error' '
    $MKPNG rgba a.png 32 &&
    expect_exit 2 $T $POYO --json a.png -o - >out 2>err &&
    expect_line err "$msg_json_stdout" && [ ! -s out ] &&
    expect_exit 2 $T $POYO --json - <a.png >out 2>err &&
    expect_line err "$msg_json_stdout" && [ ! -s out ] &&
    expect_exit 2 $T $POYO --json - a.png <a.png >out 2>err &&
    expect_line err "$msg_json_stdout" && [ ! -s out ] && expect_no_file a.gif &&
    $T $POYO --json - --frames fr <a.png >out && [ -s fr/frame_0000.png ] &&
    grep -q "\"input\": \"-\", \"output\": null, \"status\": \"ok\"" out
'

# script(1) gives poyo a terminal for standard output (util-linux, on every Debian machine)
test_expect_success '--json with the image on standard output is refused before the terminal is looked at' '
    $MKPNG rgba a.png 32 &&
    expect_exit 2 $T script -qec "$POYO --json a.png -o -" /dev/null >raw &&
    tr -d "\r" <raw >out && expect_line out "$msg_json_stdout"
'

test_expect_success '--sheet and --frames never overwrite the input, even with -f' '
    $MKPNG rgba s.png 32 && cp s.png keep.png &&
    expect_exit 1 $T $POYO -f s.png --sheet s.png 2>err &&
    expect_line err "poyo: s.png: is the input file; refusing to overwrite it" &&
    cmp s.png keep.png && expect_no_file s.json s.gif &&
    cp s.png j.json &&
    expect_exit 1 $T $POYO -f j.json --sheet j.png 2>err &&
    expect_line err "poyo: j.png: j.json: is the input file; refusing to overwrite it" &&
    cmp j.json keep.png && expect_no_file j.png j.gif &&
    mkdir fr && cp s.png fr/frame_0000.png &&
    expect_exit 1 $T $POYO -f fr/frame_0000.png --frames fr 2>err &&
    expect_line err "poyo: fr: frame_0000.png: is the input file; refusing to overwrite it" &&
    cmp fr/frame_0000.png keep.png && [ "$(ls fr)" = frame_0000.png ] &&
    no_temp_files . && no_temp_files fr
'

test_expect_success 'rope, path and sdf: --sheet and --frames never overwrite the stamp' '
    $MKPNG rgba s.png 32 && cp s.png keep.png && mkdir fr && cp s.png fr/frame_0000.png &&
    for cmd in rope "path --through 0.2,0.5,0 --through 0.8,0.5,0" sdf; do
        expect_exit 1 $T $POYO $cmd -f s.png --sheet s.png 2>err &&
        expect_line err "poyo: s.png: is the input file; refusing to overwrite it" &&
        cmp s.png keep.png && expect_no_file s.json s.gif &&
        expect_exit 1 $T $POYO $cmd -f fr/frame_0000.png --frames fr 2>err &&
        expect_line err "poyo: fr: frame_0000.png: is the input file; refusing to overwrite it" &&
        cmp fr/frame_0000.png keep.png && [ "$(ls fr)" = frame_0000.png ] || exit 1
    done &&
    no_temp_files . && no_temp_files fr
'

test_expect_success 'control characters in names are escaped in the messages of every subcommand' '
    bad=$(printf "x\033[2J") && mkdir "$bad.d" &&
    expect_exit 1 $T $POYO "$bad.d" 2>err &&
    expect_line err "poyo: x\\033[2J.d: is a directory with no PNG, JPEG, WebP, GIF or SVG files" &&
    for cmd in animate rope sdf "path --through 0.2,0.5,0 --through 0.8,0.5,0" "check -p slack"; do
        expect_exit 1 $T $POYO $cmd "$bad.png" 2>err &&
        expect_line err "poyo: x\\033[2J.png: cannot open: No such file or directory" || exit 1
    done &&
    $MKPNG rgba "$bad.png" 32 &&
    $T $POYO rope -v "$bad.png" -o out.gif 2>err &&
    grep -q "^poyo: x\\\\033\[2J.png: wrote out.gif (" err &&
    $T $POYO -v --max-bytes 100K "$bad.png" -o "$bad.gif" 2>err &&
    grep -q "^poyo: x\\\\033\[2J.gif: [0-9]* bytes (budget 100000): " err &&
    ! grep -q "$(printf "\033")" err
'

test_expect_success '-r reads a directory once: links back to a parent or to itself are not followed again' '
    $MKPNG rgba a.png 32 && mkdir -p d/sub && cp a.png d/ && cp a.png d/sub/b.png &&
    ln -s .. d/sub/up && ln -s . d/self && ln -s sub d/twin &&
    { $T $POYO -r -o out/ d 2>err || { echo "exit $?" && cat err && false; }; } &&
    sed "s/ ([0-9.]* s)\$//" err >msgs &&
    printf "%s\n" "poyo: d/self: leads back to d (a file system loop); not read again" \
        "poyo: d/sub/up: leads back to d (a file system loop); not read again" \
        "poyo: d/twin: is the directory d/sub again; not read twice" \
        "poyo: 2 written, 0 failed" >want &&
    cmp want msgs && find out -type f | sort >got && printf "out/a.gif\nout/sub/b.gif\n" >want && cmp want got &&
    rm -r out && $T $POYO -q -r -o out/ d 2>err && cat err && [ ! -s err ] && [ -s out/sub/b.gif ]
'

test_expect_success 'FIFOs, devices and sockets named like images in a folder are passed over with a note' '
    $MKPNG rgba a.png 32 && mkdir d && cp a.png d/a.png && mkfifo d/b.png && ln -s /dev/null d/c.png &&
    $MKH socket d/e.png &&
    [ -p d/b.png ] && [ -c d/c.png ] && [ -S d/e.png ] &&
    $T $POYO -v -o out/ d 2>err && sed "s/ ([0-9.]* s)\$//;s/ (32x32, .*//" err >msgs &&
    printf "%s\n" "poyo: d/b.png: is not a regular file (a FIFO, device or socket); skipped" \
        "poyo: d/c.png: is not a regular file (a FIFO, device or socket); skipped" \
        "poyo: d/e.png: is not a regular file (a FIFO, device or socket); skipped" \
        "poyo: d/a.png: wrote out/a.gif" >want &&
    cmp want msgs && [ "$(ls out)" = a.gif ] &&
    rm -r out && $T $POYO -q -r -o out/ d 2>err && [ ! -s err ] && [ "$(ls out)" = a.gif ] &&
    expect_exit 1 $T $POYO d/e.png -o e.gif 2>err &&
    expect_line err "poyo: d/e.png: is not a regular file (a FIFO, device or socket); use - to read a pipe" &&
    expect_no_file e.gif
'

# Root reads any directory; without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH it cannot.
NOCAP=
[ "$(id -u)" = 0 ] && NOCAP="setpriv --bounding-set=-dac_override,-dac_read_search"
test_expect_success 'a directory can be made unreadable here (the test below needs it)' '
    mkdir probe && chmod 000 probe && ! $NOCAP ls probe >/dev/null 2>&1; rc=$?; chmod 755 probe; [ $rc = 0 ]
'
test_expect_success 'an unreadable directory under -r is one failure; everything else is converted' '
    $MKPNG rgba a.png 32 && mkdir -p d/locked d/ok && cp a.png d/ && cp a.png d/ok/c.png &&
    cp a.png d/locked/x.png && chmod 000 d/locked &&
    $NOCAP $T $POYO -j 1 -r -o out/ d 2>err; rc=$? &&
    sed "s/ ([0-9.]* s)\$//" err >msgs &&
    printf "%s\n" "poyo: d/locked: cannot read the directory: Permission denied" \
        "poyo: 2 written, 1 failed" >want &&
    chmod 755 d/locked && [ $rc = 1 ] && cmp want msgs &&
    [ "$(find out -type f | sort)" = "$(printf "out/a.gif\nout/ok/c.gif")" ] &&
    mkdir top && chmod 000 top &&
    $NOCAP $T $POYO -o out2/ top a.png 2>err; rc=$? &&
    chmod 755 top && [ $rc = 1 ] &&
    grep -qx "poyo: top: cannot read the directory: Permission denied" err && [ -s out2/a.gif ]
'

# strace delivers SIGTERM the moment poyo sets the mode of a temporary file it
# has just written, so the interrupt lands while that file exists (make deps
# installs strace).
interrupt() {
    when=$1
    shift
    $T strace -f -o /dev/null -e trace=fchmod -e inject=fchmod:signal=TERM:when=$when "$@"
}
test_expect_success 'an interrupt of rope, path or sdf leaves no temporary file; finished files stay' '
    $MKPNG rgba s.png 32 &&
    for cmd in rope "path --through 0.2,0.5,0 --through 0.8,0.5,0" sdf; do
        expect_exit 143 interrupt 1 $POYO $cmd s.png -o out.gif &&
        expect_no_file out.gif && no_temp_files . &&
        expect_exit 143 interrupt 3 $POYO $cmd s.png --frames fr &&
        [ "$(ls fr)" = "$(printf "frame_0000.png\nframe_0001.png")" ] && no_temp_files fr &&
        rm -r fr || exit 1
    done &&
    expect_exit 143 interrupt 1 $POYO path --through "0.2,0.5,0 0.8,0.5,0" --svg p.svg &&
    expect_exit 143 interrupt 1 $POYO sdf --render r.png &&
    expect_no_file p.svg r.png && no_temp_files . &&
    expect_exit 143 interrupt 1 $POYO s.png -o out.gif && expect_no_file out.gif && no_temp_files .
'

# patch FILE HEXFROM OCTALTO: overwrites the first occurrence of the bytes
# HEXFROM (grep -P escapes) with OCTALTO (printf escapes), same length
patch_bytes() {
    off=$(LC_ALL=C grep -obUaP "$2" "$1" | head -n 1 | cut -d: -f1) &&
    [ -n "$off" ] && printf "$3" | dd of="$1" bs=1 seek="$off" conv=notrunc 2>/dev/null
}

test_expect_success 'cut, empty and noisy WebM files: one line each, exit 1, nothing on stdout' '
    $POYO "$DATA/1f600.png" -s 64 --fps 10 --duration 1 -o s.webm &&
    len=$(wc -c <s.webm) &&
    : >empty.webm && head -c 4 s.webm >magic.webm && head -c 60 s.webm >head.webm &&
    head -c $((len / 2)) s.webm >half.webm && head -c $((len - 1)) s.webm >short.webm &&
    { head -c 4 s.webm; i=0; while [ $i -lt 200 ]; do printf "\\377\\001\\200"; i=$((i + 1)); done; } >noise.webm &&
    for f in empty magic head half short noise; do
        expect_exit 1 $T $POYO check --preset telegram $f.webm >out 2>err &&
        [ "$(wc -l <err)" -eq 1 ] && grep -q "^poyo: $f.webm: " err && test ! -s out || { echo "case $f" >&2; exit 1; }
    done &&
    expect_exit 1 $T $POYO check --preset telegram half.webm 2>err &&
    expect_line err "poyo: half.webm: WebM is truncated: its segment ends at byte $len, the file has $((len / 2))" &&
    expect_exit 1 $T $POYO check --preset telegram empty.webm 2>err &&
    expect_line err "poyo: empty.webm: file is empty"
'

test_expect_success 'a WebM declaring a 65535x65535 video is refused before decoding' '
    $POYO "$DATA/1f600.png" -s 512 --fps 10 --duration 1 -o big.webm &&
    patch_bytes big.webm "\\xb0\\x82\\x02\\x00\\xba\\x82\\x02\\x00" "\\260\\202\\377\\377\\272\\202\\377\\377" &&
    expect_exit 1 $T $POYO check --preset telegram big.webm 2>err &&
    expect_line err "poyo: big.webm: WebM video is 65535x65535, more than 16777216 pixels"
'

test_expect_success 'a WebM whose frames differ from the size its track declares is refused' '
    $POYO "$DATA/1f600.png" -s 64 --fps 10 --duration 1 -o odd.webm &&
    patch_bytes odd.webm "\\xb0\\x81\\x40\\xba\\x81\\x40" "\\260\\201\\101" &&
    expect_exit 1 $T $POYO check --preset telegram odd.webm 2>err &&
    expect_line err "poyo: odd.webm: WebM frame 1 is corrupt or not 65x64 as its track declares"
'

test_expect_success 'a WebM given as the image to animate is refused in one line' '
    $POYO "$DATA/1f600.png" -s 32 -o in.webm &&
    expect_exit 1 $T $POYO in.webm -o out.gif 2>err &&
    [ "$(wc -l <err)" -eq 1 ] && grep -q "^poyo: in.webm: " err && expect_no_file out.gif
'

test_done
