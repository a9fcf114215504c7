#!/bin/sh
# t_webm.sh - WebM output: the name picks it, the Telegram presets write it
# within their rules and budgets, and it reads back (through poyo's own reader)
# as VP9 with an alpha plane that is clear where the stamp is not.
. "$(dirname "$0")/lib.sh"

EMOJI="$DATA/1f600.png"

# fact FILE KEY: the value animinfo reports for KEY
fact() {
    "$TOOLS/animinfo" "$1" | sed -n "s/^$2 //p"
}

test_expect_success '-o x.webm writes a WebM; --format webm writes the same bytes under any name' '
    $POYO "$EMOJI" -s 64 -o a.webm &&
    [ "$(od -An -tx1 -N4 a.webm | tr -d " ")" = 1a45dfa3 ] &&
    [ "$(fact a.webm format)" = webm ] && [ "$(fact a.webm codec)" = vp9 ] &&
    $POYO "$EMOJI" -s 64 --format webm -o b.bin &&
    cmp a.webm b.bin &&
    $POYO "$EMOJI" -s 64 -o c.WEBM &&
    cmp a.webm c.WEBM
'

test_expect_success 'without -o, --format webm writes STEM.webm beside the input' '
    cp "$EMOJI" stamp.png &&
    $POYO --format webm -s 48 stamp.png &&
    [ "$(fact stamp.webm format)" = webm ] && expect_no_file stamp.gif
'

test_expect_success 'a WebM keeps every frame and its timing' '
    $POYO "$EMOJI" -s 64 --fps 20 --duration 1.5 --damping 0.02 --frames fr -o w.webm &&
    n=$(ls fr | wc -l) && [ "$n" -ge 25 ] &&
    [ "$(fact w.webm frames)" -eq "$n" ] &&
    [ "$(fact w.webm duration_ms)" = 1500 ] &&
    for d in $(fact w.webm delays); do [ "$d" -eq 50 ] || { echo "a $d ms frame" >&2; exit 1; }; done &&
    "$TOOLS/animinfo" --compare --alpha 128 0 fr/frame_0000.png w.webm >cmp &&
    grep -q "^mask_mismatch [0-9]$" cmp
'

test_expect_success 'telegram: VP9 with alpha, clear corners, one side 512, <= 3 s, <= 30 fps, <= 256 KB' '
    $POYO -p telegram "$EMOJI" -o t.webm 2>note &&
    grep -q "^poyo: t.webm: [0-9]* bytes (budget 256000): " note &&
    expect_exit 0 $POYO check -p telegram t.webm >out &&
    grep -q "^t.webm: ok (preset telegram: webm (vp9, alpha, no audio), " out &&
    "$TOOLS/animinfo" t.webm >facts &&
    grep -qx "codec vp9" facts && grep -qx "alpha 1" facts && grep -qx "audio_tracks 0" facts &&
    w=$(fact t.webm width) && h=$(fact t.webm height) &&
    { [ "$w" -eq 512 ] && [ "$h" -le 512 ] || [ "$h" -eq 512 ] && [ "$w" -le 512 ]; } &&
    [ "$(fact t.webm duration_ms)" -le 3000 ] &&
    for d in $(fact t.webm delays); do [ "$d" -ge 33 ] || { echo "a $d ms frame" >&2; exit 1; }; done &&
    [ "$(fact t.webm bytes)" -le 256000 ] &&
    [ "$(fact t.webm corner_alpha_max)" -lt 16 ] &&
    [ "$(fact t.webm alpha_max)" -eq 255 ]
'

test_expect_success 'telegram-emoji: 100x100 within 64 KB, passing its own check' '
    $POYO -p telegram-emoji -i wave "$DATA/1f431.png" -o e.webm 2>/dev/null &&
    expect_exit 0 $POYO check -p telegram-emoji e.webm >/dev/null &&
    [ "$(fact e.webm width)x$(fact e.webm height)" = 100x100 ] &&
    [ "$(fact e.webm bytes)" -le 64000 ] &&
    [ "$(fact e.webm corner_alpha_max)" -lt 16 ]
'

test_expect_success '--max-bytes on a WebM raises the crf until it fits, else fails writing nothing' '
    $POYO "$EMOJI" -s 256 --fps 10 --duration 1 -o free.webm &&
    free=$(fact free.webm bytes) &&
    budget=$((free * 2 / 3)) &&
    $POYO "$EMOJI" -s 256 --fps 10 --duration 1 --max-bytes $budget -o fit.webm 2>note &&
    grep -q "^poyo: fit.webm: [0-9]* bytes (budget $budget): crf [0-9]*, " note &&
    [ "$(fact fit.webm bytes)" -le $budget ] &&
    [ "$(fact fit.webm codec)" = vp9 ] &&
    expect_exit 1 $POYO "$EMOJI" -s 256 --fps 10 --duration 1 --max-bytes 300 -o no.webm 2>err &&
    grep -q "cannot fit 300 bytes" err &&
    expect_no_file no.webm && no_temp_files .
'

test_expect_success 'check: a WebM with an audio track or in VP8 fails that rule alone' '
    $POYO -p telegram "$EMOJI" -o t.webm 2>/dev/null &&
    "$TOOLS/mkwebm" audio t.webm sound.webm &&
    expect_exit 1 $POYO check -p telegram sound.webm >out &&
    expect_line out "sound.webm: fail: audio 1 track, Telegram takes video without sound" &&
    [ "$(fact sound.webm audio_tracks)" = 1 ] &&
    "$TOOLS/mkwebm" vp8 old.webm 512 512 10 &&
    expect_exit 1 $POYO check -p telegram old.webm >out &&
    expect_line out "old.webm: fail: codec vp8, Telegram takes vp9 video only" &&
    [ "$(fact old.webm alpha)" = 0 ] && [ "$(fact old.webm corner_alpha_max)" = 255 ]
'

# libav* is loaded only when a WebM is written or read: with a broken
# libavcodec (an empty file) or a libavformat without its functions (a stub
# built here) first on LD_LIBRARY_PATH, WebM fails in one line and the rest
# works (were libav* linked, poyo would not even start).
av_major() {
    pkg-config --modversion "$1" | cut -d. -f1
}

test_expect_success 'without a loadable libavcodec, WebM fails in one line; every other format still works' '
    util=$(av_major libavutil) && codec=$(av_major libavcodec) && format=$(av_major libavformat) &&
    $POYO "$EMOJI" -s 48 -o good.webm &&
    mkdir lib && : >lib/libavcodec.so.$codec &&
    LD_LIBRARY_PATH=$PWD/lib expect_exit 1 $POYO "$EMOJI" -s 48 -o no.webm 2>err &&
    [ "$(wc -l <err)" -eq 1 ] &&
    grep -q "^poyo: no.webm: WebM needs libavutil$util, libavcodec$codec and libavformat$format: .*libavcodec\.so\.$codec" err &&
    expect_no_file no.webm && no_temp_files . &&
    LD_LIBRARY_PATH=$PWD/lib expect_exit 1 $POYO check -p telegram good.webm >out 2>err &&
    grep -q "^poyo: good.webm: WebM needs libavutil$util, libavcodec$codec and libavformat$format: " err &&
    LD_LIBRARY_PATH=$PWD/lib $POYO --version >/dev/null &&
    LD_LIBRARY_PATH=$PWD/lib $POYO "$EMOJI" -s 48 -o yes.gif 2>/dev/null &&
    LD_LIBRARY_PATH=$PWD/lib $POYO "$EMOJI" -s 48 -o yes.webp 2>/dev/null &&
    LD_LIBRARY_PATH=$PWD/lib expect_exit 0 $POYO check -p discord yes.gif >/dev/null
'

test_expect_success 'a libavformat without the functions poyo calls: WebM names the missing one' '
    format=$(av_major libavformat) &&
    mkdir lib &&
    echo "int poyo_stub;" >stub.c &&
    ${CC:-cc} -shared -fPIC -Wl,-soname,libavformat.so.$format -o lib/libavformat.so.$format stub.c &&
    LD_LIBRARY_PATH=$PWD/lib expect_exit 1 $POYO "$EMOJI" -s 48 -o no.webm 2>err &&
    [ "$(wc -l <err)" -eq 1 ] &&
    grep -q "^poyo: no.webm: WebM needs .*: .*libavformat\.so\.$format: undefined symbol: av" err &&
    expect_no_file no.webm &&
    LD_LIBRARY_PATH=$PWD/lib $POYO "$EMOJI" -s 48 -o yes.gif
'

test_done
