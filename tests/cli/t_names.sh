#!/bin/sh
# t_names.sh - the output's format follows -o's extension; extensions poyo
# cannot write or that contradict --format or the preset are usage errors;
# names poyo chooses are never the input; a preset with overrides makes a file
# its own check passes, or is refused before any work with the rule it breaks.
. "$(dirname "$0")/lib.sh"

EMOJI="$DATA/1f36e.png"

# magic FILE: gif, png, webp or webm, from the file's first bytes
magic() {
    h=$(od -An -tx1 -N12 "$1" | tr -d " \n")
    case $h in
    474946*) echo gif ;;
    89504e47*) echo png ;;
    52494646????????57454250) echo webp ;;
    1a45dfa3*) echo webm ;;
    *) echo "unknown $h" ;;
    esac
}

# refused EXPECTED-LINE ARGS...: exit 2, that one line, no output file and no temporary file
refused() {
    line=$1
    shift
    expect_exit 2 "$POYO" "$@" 2>err >out && expect_line err "$line" && test ! -s out &&
        [ "$(ls | grep -v -x -e err -e out -e a.png | wc -l)" -eq 0 ]
}

test_expect_success 'the format follows the extension of -o' '
    cp "$EMOJI" a.png &&
    for e in gif png webp webm; do $POYO a.png -s 32 -o "x.$e" || exit 1; done &&
    [ "$(magic x.gif)" = gif ] && [ "$(magic x.png)" = png ] && [ "$(magic x.webp)" = webp ] &&
    [ "$(magic x.webm)" = webm ] &&
    $POYO a.png -s 32 -o upper.GIF && [ "$(magic upper.GIF)" = gif ] &&
    $POYO a.png -s 32 -o y.apng && [ "$(magic y.apng)" = png ]
'

test_expect_success 'an extension of a format poyo cannot write is a usage error saying what works' '
    cp "$EMOJI" a.png &&
    refused "poyo: x.jpg: poyo cannot write .jpg files; name it .gif, .png (APNG), .webp or .webm" a.png -o x.jpg &&
    refused "poyo: x.mp4: poyo cannot write .mp4 files; name it .gif, .png (APNG), .webp or .webm" a.png -o x.mp4 &&
    refused "poyo: x.JPEG: poyo cannot write .JPEG files; use -o x.webm" a.png --format webm -o x.JPEG &&
    refused "poyo: x.mov: poyo cannot write .mov files; use -o x.webm" a.png -p telegram -o x.mov
'

test_expect_success 'a name that says nothing takes --format, the preset or GIF' '
    cp "$EMOJI" a.png &&
    $POYO a.png -s 32 -o plain && [ "$(magic plain)" = gif ] &&
    $POYO a.png -s 32 --format webp -o x.bin && [ "$(magic x.bin)" = webp ] &&
    $POYO a.png -p line-emoji -q -o sticker && [ "$(magic sticker)" = png ] &&
    $POYO check -q -p line-emoji sticker
'

test_expect_success 'an extension that contradicts --format is a usage error' '
    cp "$EMOJI" a.png &&
    refused "poyo: x.gif: .gif names a GIF file but --format asks for WebM; use -o x.webm or leave out --format" \
        a.png --format webm -o x.gif &&
    refused "poyo: x.webp: .webp names a WebP file but --format asks for APNG; use -o x.png or leave out --format" \
        a.png --format apng -o x.webp &&
    $POYO a.png -s 32 --format png -o x.apng && [ "$(magic x.apng)" = png ]
'

test_expect_success 'a format the preset does not take is a usage error, by name or by --format' '
    cp "$EMOJI" a.png &&
    refused "poyo: x.gif: a LINE sticker takes APNG, not GIF; use -o x.png" -p line a.png -o x.gif &&
    refused "poyo: t.webp: Telegram takes WebM, not WebP; use -o t.webm" -p telegram a.png -o t.webp &&
    refused "poyo: s.png: Slack takes GIF, not APNG; use -o s.gif" -p slack a.png -o s.png &&
    refused "poyo: --format: a WhatsApp sticker takes WebP, not GIF; use --format webp or leave it out" \
        -p whatsapp --format gif a.png &&
    refused "poyo: m.webm: Mastodon takes GIF, APNG or WebP, not WebM; use -o m.gif" -p mastodon a.png -o m.webm
'

test_expect_success 'a format the preset also takes is written and passes its check' '
    cp "$EMOJI" a.png &&
    $POYO -q -p mastodon a.png -o m.webp && [ "$(magic m.webp)" = webp ] && $POYO check -q -p mastodon m.webp &&
    $POYO -q -p mastodon a.png -o m.png && [ "$(magic m.png)" = png ] && $POYO check -q -p mastodon m.png
'

test_expect_success 'names poyo chooses: STEM.EXT; an APNG or an output of its input'"'"'s own extension is STEM.TAG.EXT' '
    cp "$EMOJI" a.png && cp a.png keep.png && $POYO -q a.png -s 32 -o b.gif &&
    $POYO -q a.png -s 32 && [ -f a.gif ] &&
    $POYO -q a.png -s 32 --format apng && [ "$(magic a.poyo.png)" = png ] &&
    $POYO -q -p line-emoji a.png && [ "$(magic a.line-emoji.png)" = png ] &&
    $POYO -q b.gif -s 32 && [ "$(magic b.poyo.gif)" = gif ] &&
    $POYO -q -p slack b.gif && [ "$(magic b.slack.gif)" = gif ] &&
    $POYO -q -p telegram-emoji a.png && [ "$(magic a.webm)" = webm ] &&
    cmp a.png keep.png &&
    $POYO check -q -p line-emoji a.line-emoji.png && $POYO check -q -p slack b.slack.gif
'

test_expect_success 'the chosen name is the same on every run and in -o DIR/' '
    cp "$EMOJI" a.png &&
    $POYO -q -p line-emoji a.png && $POYO -q -f -p line-emoji a.png 2>err && [ ! -s err ] &&
    [ "$(ls | tr "\n" " ")" = "a.line-emoji.png a.png err " ] &&
    $POYO -q -p line-emoji a.png -o out/ && [ -f out/a.line-emoji.png ] &&
    $POYO -q -f -p line-emoji . && [ "$(ls *.png | tr "\n" " ")" = "a.line-emoji.png a.png " ]
'

test_expect_success 'a preset override that breaks a rule is refused before any work, naming the rule' '
    cp "$EMOJI" a.png &&
    refused "poyo: --size: size 512x512, Slack needs a square of at most 128x128" -p slack --size 512 a.png &&
    refused "poyo: --size: size 320x300, a Discord sticker needs exactly 320x320" -p discord-sticker -s 320x300 a.png &&
    refused "poyo: --fps: fps 60, Telegram allows at most 30" -p telegram --fps 60 a.png &&
    refused "poyo: --loop: plays forever, a LINE sticker needs 1 to 4" -p line --loop 0 a.png &&
    refused "poyo: --loop: total 6 s (2 plays of 3 s), a LINE sticker allows at most 4 s in all" \
        -p line --duration 3 --loop 2 a.png &&
    refused "poyo: --duration: duration 6 s, a Discord sticker allows at most 5 s" -p discord-sticker --duration 6 a.png &&
    refused "poyo: --rate: duration 5 s (one period), Telegram allows at most 3 s" -p telegram -i wave --rate 0.2 a.png &&
    refused "poyo: --max-bytes: bytes 1000000, Slack allows at most 128000 (128 KB)" -p slack --max-bytes 1M a.png &&
    refused "poyo: --fps: frames 4 (2 s at 2 fps), a LINE sticker needs at least 5" -p line --fps 2 a.png
'

test_expect_success 'overrides within the rules make files that pass the preset'"'"'s check' '
    cp "$EMOJI" a.png &&
    $POYO -q -p slack --size 96 a.png -o s.gif && $POYO check -p slack s.gif >out && grep -q "96x96" out &&
    $POYO -q -p slack --max-bytes 40K a.png -o b.gif && $POYO check -q -p slack b.gif &&
    [ "$(wc -c <b.gif)" -le 40000 ] &&
    $POYO -q -p line-emoji --loop 4 a.png -o l4.png && $POYO check -q -p line-emoji l4.png &&
    $POYO -q -p line-emoji --loop 1 --duration 1.3 a.png -o l1.png && $POYO check -p line-emoji l1.png >out &&
    grep -q "1.00 s" out &&
    $POYO -q -p line-emoji -i wave --rate 1.3 a.png -o w.png && $POYO check -q -p line-emoji w.png &&
    $POYO -q -p telegram-emoji --fps 30 a.png -o t.webm && $POYO check -q -p telegram-emoji t.webm
'

test_done
