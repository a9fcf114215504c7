#!/bin/sh
# t_check.sh - poyo check: platform rules on real files, exit codes, messages.
. "$(dirname "$0")/lib.sh"

NAMES="slack, discord, discord-sticker, line, line-emoji, telegram, telegram-emoji, teams, mastodon, signal, whatsapp"
EMOJI="$DATA/1f36e.png"
# clips of a fixed length made with --damping 0.02 keep moving, so hardly any
# frames are merged (the first, still frames of the press may be)

# gif2 FILE [DELAY]: a 1x1 two-frame GIF made by hand (not by poyo); DELAY is
# each frame's delay in centiseconds as a printf octal escape (default \000).
gif2() {
    d=${2:-\\000}
    printf 'GIF89a\001\000\001\000\200\000\000\000\000\000\377\377\377' >"$1" &&
    printf '\041\377\013NETSCAPE2.0\003\001\000\000\000' >>"$1" &&
    printf "\\041\\371\\004\\000$d\\000\\000\\000" >>"$1" &&
    printf '\054\000\000\000\000\001\000\001\000\000\002\002\114\001\000' >>"$1" &&
    printf "\\041\\371\\004\\000$d\\000\\000\\000" >>"$1" &&
    printf '\054\000\000\000\000\001\000\001\000\000\002\002\104\001\000' >>"$1" &&
    printf '\073' >>"$1"
}

test_expect_success 'help and the preset table' '
    expect_exit 0 $POYO check --help >help &&
    grep -q -- "--preset NAME" help &&
    expect_exit 0 $POYO check --list-presets >list &&
    for p in slack discord discord-sticker line line-emoji telegram telegram-emoji teams mastodon; do
        grep -q "^$p " list || { echo "missing $p" >&2; exit 1; }
    done &&
    grep -q "checked 2026-11-21" list
'

test_expect_success 'unknown preset exits 2 with the list of names' '
    gif2 a.gif &&
    expect_exit 2 $POYO check --preset myspace a.gif >out 2>err &&
    expect_line err "poyo: --preset: unknown preset '\''myspace'\'' (one of $NAMES)" &&
    test ! -s out
'

test_expect_success 'usage errors exit 2' '
    gif2 a.gif &&
    expect_exit 2 $POYO check a.gif 2>err &&
    expect_line err "poyo: check needs --preset NAME (one of $NAMES)" &&
    expect_exit 2 $POYO check --preset slack 2>err &&
    grep -q "no file to check" err &&
    expect_exit 2 $POYO check --preset slack --nope a.gif 2>err &&
    expect_line err "poyo: --nope: unknown option (see poyo --help)"
'

test_expect_success 'unreadable files exit 1, the others are still checked' '
    echo hello >x.txt && : >empty.gif && gif2 a.gif &&
    expect_exit 1 $POYO check --preset mastodon x.txt missing.gif empty.gif a.gif >out 2>err &&
    grep -qx "poyo: x.txt: not a GIF, PNG, WebP or WebM file" err &&
    grep -q "^poyo: missing.gif: " err &&
    grep -q "^poyo: empty.gif: " err &&
    test "$(wc -l <err)" -eq 3 &&
    expect_line out "a.gif: fail: delay 0 ms (frame 1; 2 of 2 frames under 20 ms), GIF players show such frames for 100 ms"
'

test_expect_success 'a GIF from elsewhere passes when its delays are fine' '
    gif2 b.gif "\\005" &&
    bytes=$(wc -c <b.gif | tr -d " ") &&
    expect_exit 0 $POYO check --preset discord b.gif >out &&
    expect_line out "b.gif: ok (preset discord: gif, 1x1, 2 frames, 0.10 s, $bytes bytes)"
'

test_expect_success 'a still PNG: fine for Slack, not a LINE animation' '
    $TOOLS/mkpng rgba still.png 64 64 &&
    expect_exit 0 $POYO check --preset slack still.png >out &&
    grep -q "^still.png: ok (preset slack: png, 64x64, 1 frame, " out &&
    expect_exit 1 $POYO check --preset line still.png >out &&
    cat >want <<-EOF &&
	still.png: fail: format png (still), a LINE sticker takes APNG
	still.png: fail: size 64x64, a LINE sticker needs at most 320x270 with one side at least 270
	still.png: fail: frames 1, a LINE sticker needs 5 to 20
	EOF
    diff want out
'

test_expect_success 'slack: a 128 px GIF of about 48 frames passes, its frames and bytes reported' '
    $POYO "$EMOJI" -o s.gif --size 128 --fps 20 --duration 2.4 --colors 32 --damping 0.02 &&
    bytes=$(wc -c <s.gif | tr -d " ") &&
    test "$bytes" -le 128000 &&
    frames=$("$TOOLS/animinfo" s.gif | sed -n "s/^frames //p") &&
    test "$frames" -ge 45 &&
    expect_exit 0 $POYO check --preset slack s.gif >out &&
    expect_line out "s.gif: ok (preset slack: gif, 128x128, $frames frames, 2.40 s, $bytes bytes)" &&
    expect_exit 0 $POYO check -q --preset slack s.gif >out &&
    test ! -s out
'

test_expect_success 'slack: wrong size fails naming the size rule' '
    $POYO "$EMOJI" -o big.gif --size 256x192 --fps 20 --duration 2 &&
    expect_exit 1 $POYO check --preset slack big.gif >out &&
    grep -qx "big.gif: fail: size 256x192, Slack needs a square of at most 128x128" out &&
    ! grep -q "fail: frames" out
'

test_expect_success 'slack: too many frames and too many bytes are both named' '
    $POYO "$EMOJI" -o long.gif --size 128 --fps 25 --duration 3 --damping 0.02 &&
    expect_exit 1 $POYO check --preset slack long.gif >out &&
    grep -q "^long.gif: fail: frames [0-9]*, Slack allows at most 50$" out &&
    n=$(sed -n "s/^long.gif: fail: frames \([0-9]*\),.*/\1/p" out) && test "$n" -gt 50 &&
    bytes=$(wc -c <long.gif | tr -d " ") &&
    if [ "$bytes" -gt 128000 ]; then
        grep -qx "long.gif: fail: bytes $bytes, Slack allows at most 128000 (128 KB)" out
    else
        ! grep -q "fail: bytes" out
    fi
'

test_expect_success 'discord, teams and mastodon take a 128 px GIF; discord refuses 160 px' '
    $POYO "$EMOJI" -o d.gif --size 128 --fps 20 --duration 2 --colors 64 &&
    for p in discord teams mastodon; do
        expect_exit 0 $POYO check --preset $p d.gif >/dev/null || exit 1
    done &&
    $POYO "$EMOJI" -o d160.gif --size 160 --fps 20 --duration 2 --colors 64 &&
    expect_exit 1 $POYO check --preset discord d160.gif >out &&
    expect_line out "d160.gif: fail: size 160x160, Discord needs a square of at most 128x128" &&
    expect_exit 0 $POYO check --preset teams d160.gif
'

test_expect_success 'line-emoji: 10 frames played twice pass; forever and 8 s in all fail' '
    $POYO "$EMOJI" -o e.png --size 180 --fps 5 --duration 2 --loop 2 &&
    expect_exit 0 $POYO check --preset line-emoji e.png >out &&
    grep -q "^e.png: ok (preset line-emoji: apng, 180x180, 10 frames, 2.00 s, " out &&
    expect_exit 1 $POYO check --preset line e.png >out &&
    expect_line out "e.png: fail: size 180x180, a LINE sticker needs at most 320x270 with one side at least 270" &&
    $POYO "$EMOJI" -o e0.png --size 180 --fps 5 --duration 2 --loop 0 &&
    expect_exit 1 $POYO check --preset line-emoji e0.png >out &&
    expect_line out "e0.png: fail: plays forever, a LINE emoji needs 1 to 4" &&
    $POYO "$EMOJI" -o e4.png --size 180 --fps 5 --duration 2 --loop 4 &&
    expect_exit 1 $POYO check --preset line-emoji e4.png >out &&
    expect_line out "e4.png: fail: total 8.00 s (4 plays of 2.00 s), a LINE emoji allows at most 4 s in all"
'

test_expect_success 'line: a GIF breaks format, size, frames and plays at once' '
    $POYO "$EMOJI" -o g.gif --size 128 --fps 20 --duration 2 --damping 0.02 &&
    expect_exit 1 $POYO check --preset line g.gif >out &&
    grep -qx "g.gif: fail: format gif, a LINE sticker takes APNG" out &&
    grep -q "^g.gif: fail: size 128x128, " out &&
    grep -qx "g.gif: fail: frames $("$TOOLS/animinfo" g.gif | sed -n "s/^frames //p"), a LINE sticker needs 5 to 20" out &&
    grep -qx "g.gif: fail: plays forever, a LINE sticker needs 1 to 4" out
'

test_expect_success 'telegram: a VP9 WebM with one side 512 passes; emoji needs 100x100; 50 fps is too fast' '
    $POYO "$EMOJI" -o t.webm --size 512x384 --fps 10 --duration 2 --damping 0.02 &&
    expect_exit 0 $POYO check --preset telegram t.webm >out &&
    grep -q "^t.webm: ok (preset telegram: webm (vp9, alpha, no audio), 512x384, 20 frames, 2.00 s, " out &&
    expect_exit 1 $POYO check --preset telegram-emoji t.webm >out &&
    grep -qx "t.webm: fail: size 512x384, a Telegram emoji needs exactly 100x100" out &&
    $POYO "$EMOJI" -o f.webm --size 100 --fps 50 --duration 1 &&
    expect_exit 1 $POYO check --preset telegram-emoji f.webm >out &&
    expect_line out "f.webm: fail: fps 50.0 (a 20 ms frame), a Telegram emoji allows at most 30" &&
    $POYO "$EMOJI" -o l.webm --size 100 --fps 10 --duration 4 &&
    expect_exit 1 $POYO check --preset telegram-emoji l.webm >out &&
    expect_line out "l.webm: fail: duration 4.00 s, a Telegram emoji allows at most 3 s"
'

test_expect_success 'telegram takes video as WebM only: an animated WebP or GIF fails the format rule' '
    $POYO "$EMOJI" -o t.webp --size 512 --fps 10 --duration 1 --quality 50 &&
    expect_exit 1 $POYO check --preset telegram t.webp >out &&
    expect_line out "t.webp: fail: format webp, Telegram takes WebM or still PNG" &&
    $POYO "$EMOJI" -o t.gif --size 512 --fps 10 --duration 1 --max-bytes 200K -q &&
    expect_exit 1 $POYO check --preset telegram t.gif >out &&
    expect_line out "t.gif: fail: format gif, Telegram takes WebM or still PNG"
'

test_expect_success 'check --json: one valid object per file, a verdict for every rule' '
    $POYO "$EMOJI" -o ok.webm --size 512 --fps 10 --duration 1 &&
    $POYO "$EMOJI" -o big.webm --size 200 --fps 10 --duration 1 &&
    echo junk >bad.webm &&
    expect_exit 1 $POYO check --json --preset telegram ok.webm big.webm bad.webm >out 2>err &&
    [ "$(wc -l <out)" -eq 3 ] && "$TOOLS/jsonlines" <out &&
    grep -qx "poyo: bad.webm: not a GIF, PNG, WebP or WebM file" err &&
    sed -n 1p out | grep -q "^{\"file\": \"ok.webm\", \"preset\": \"telegram\", \"ok\": true, \"format\": \"webm\", \"codec\": \"vp9\", \"width\": 512, \"height\": 512, \"frames\": 10, \"duration\": 1.000, \"fps\": 10.000, \"alpha\": true, \"audio_tracks\": 0, " &&
    for r in format codec audio size animated frames duration plays total fps delay first-frame bytes; do
        [ "$(grep -o "\"rule\": \"$r\", \"verdict\": \"[a-z]*\"" out | wc -l)" -eq 2 ] ||
            { echo "rule $r: not one verdict per file" >&2; exit 1; }
    done &&
    sed -n 1p out | grep -q "\"rule\": \"codec\", \"verdict\": \"pass\"" &&
    sed -n 1p out | grep -q "\"rule\": \"plays\", \"verdict\": \"none\"" &&
    ! sed -n 1p out | grep -q "\"verdict\": \"fail\"" &&
    sed -n 2p out | grep -q "\"ok\": false" &&
    sed -n 2p out | grep -q "{\"rule\": \"size\", \"verdict\": \"fail\", \"why\": \"size 200x200, Telegram needs one side exactly 512 and the other at most 512\"}" &&
    [ "$(sed -n 2p out | grep -o "\"verdict\": \"fail\"" | wc -l)" -eq 1 ] &&
    sed -n 3p out | grep -qx "{\"file\": \"bad.webm\", \"preset\": \"telegram\", \"ok\": false, \"error\": \"not a GIF, PNG, WebP or WebM file\"}"
'

test_expect_success 'check --json on images: the text rules and the JSON agree' '
    $POYO "$EMOJI" -o s.gif --size 200 --fps 10 --duration 1 &&
    expect_exit 1 $POYO check --preset slack s.gif >text &&
    expect_exit 1 $POYO check --json --preset slack s.gif >out &&
    "$TOOLS/jsonlines" <out &&
    grep -q "\"format\": \"gif\", \"codec\": \"gif\"" out &&
    sed "s/^s.gif: fail: //" text | while IFS= read -r why; do
        grep -qF "\"verdict\": \"fail\", \"why\": \"$why\"" out || { echo "missing: $why" >&2; exit 1; }
    done &&
    [ "$(grep -o "\"verdict\": \"fail\"" out | wc -l)" -eq "$(wc -l <text)" ]
'

test_expect_success 'several files: exit 1 when one fails, each named' '
    $POYO "$EMOJI" -o ok.gif --size 64 --fps 10 --duration 1 &&
    $POYO "$EMOJI" -o no.gif --size 200 --fps 10 --duration 1 &&
    expect_exit 1 $POYO check --preset slack ok.gif no.gif >out &&
    grep -q "^ok.gif: ok " out &&
    grep -q "^no.gif: fail: size 200x200" out &&
    expect_exit 0 $POYO check --preset slack ok.gif - <ok.gif >out &&
    grep -q "^-: ok " out
'

test_expect_success 'every preset makes a file its own check accepts' '
    for p in slack discord discord-sticker line line-emoji telegram telegram-emoji teams mastodon; do
        fmt=$($POYO check --list-presets | awk -v p=$p "\$1 == p { print \$2 }") &&
        case $fmt in gif) ext=gif ;; apng) ext=png ;; webm) ext=webm ;; *) ext=webp ;; esac &&
        $POYO --preset $p "$EMOJI" -o "p-$p.$ext" &&
        $POYO check --preset $p "p-$p.$ext" || { echo "preset $p" >&2; exit 1; }
    done
'

test_done
