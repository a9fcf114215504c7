#!/bin/sh
# t_text.sh - poyo text from the command line: Latin, kana and kanji, an emoji,
# vertical writing, outline and gradient make stamps of the size asked; the
# output is named after the text; every animate option applies; presets pass
# poyo check; bad text, options and fonts fail in one line with exit 2 (or 1),
# leaving no file; the text libraries are loaded only by poyo text. Needs the
# fonts make deps installs (IPAex Gothic, Noto Color Emoji).
. "$(dirname "$0")/lib.sh"

INFO="$TOOLS/animinfo"
T="timeout 30"

info() {
    "$INFO" "$1" | sed -n "s/^$2 //p"
}

# first_moved FILE C0 C1: the first frame whose visible box within columns
# [C0, C1) is not frame 0's (the frame count when none)
first_moved() {
    _rest=$("$INFO" --bbox 0 "$2" "$3" "$1") _f=1 _n=$(info "$1" frames)
    while [ "$_f" -lt "$_n" ] && [ "$("$INFO" --bbox "$_f" "$2" "$3" "$1")" = "$_rest" ]; do
        _f=$((_f + 1))
    done
    echo "$_f"
}

test_expect_success 'Latin, kana and kanji, an emoji, vertical, outline and gradient make 128x128 clips' '
    $T $POYO text LGTM -o a.gif &&
    $T $POYO text "すごい" --outline white,3 --gradient red,orange -o b.gif &&
    $T $POYO text "了解👍" --fit keep -o c.gif &&
    $T $POYO text "ありがとう" --vertical --color navy --outline white -o d.gif &&
    $T $POYO text "LGTM\\nok" --fit keep --align right --gradient "#ff0000,#0000ff,0" -o e.gif &&
    for f in a b c d e; do
        [ "$(info $f.gif width)" = 128 ] && [ "$(info $f.gif height)" = 128 ] &&
        [ "$(info $f.gif frames)" -gt 5 ] || { echo "$f.gif:"; "$INFO" $f.gif; exit 1; }
    done &&
    ! cmp a.gif b.gif
'

test_expect_success 'without -o the output is named after the text; -o DIR/ puts it there' '
    $T $POYO text LGTM &&
    $T $POYO text "すごい" --format webp &&
    $T $POYO text "a/b c.d" &&
    mkdir out && $T $POYO text LGTM -o out/ &&
    [ -s LGTM.gif ] && [ -s すごい.webp ] && [ -s a_b_c_d.gif ] && [ -s out/LGTM.gif ] &&
    expect_exit 1 $POYO text LGTM 2>err && grep -q "^poyo: LGTM.gif: " err
'

test_expect_success 'two words are one text; \n and a real newline both break lines' '
    $T $POYO text LGTM OK -s 64 -o a.png && $T $POYO text "LGTM OK" -s 64 -o b.png && cmp a.png b.png &&
    $T $POYO text "A\\nB" -s 64 -o c.png && $T $POYO text "A
B" -s 64 -o d.png && cmp c.png d.png && ! cmp a.png c.png
'

test_expect_success 'the animate options apply: impulse, size, sheet, frames, preset' '
    $T $POYO text LGTM -i jump -s 96x64 --fps 10 --sheet s.png --frames fr -o j.gif &&
    [ "$(info j.gif width)" = 96 ] && [ "$(info j.gif height)" = 64 ] &&
    [ -s s.png ] && [ -s s.json ] && [ -s fr/frame_0000.png ] &&
    $T $POYO text "すごい" -p slack -o slack.gif 2>/dev/null && $POYO check -p slack slack.gif &&
    $T $POYO text "OK" -p telegram -o t.webm 2>/dev/null && $POYO check -p telegram t.webm
'

test_expect_success 'poyo text "すごい" -p slack passes poyo check -p slack' '
    $T $POYO text "すごい" --outline white,3 --gradient red,orange -p slack 2>/dev/null &&
    $POYO check -p slack すごい.gif >out && grep -q "^すごい.gif: ok" out
'

test_expect_success '--outline-stiffness is the body option in both commands; animate --outline is its alias' '
    $T $POYO "$DATA/1f600.png" -s 48 --outline 0.5 -o a.gif &&
    $T $POYO "$DATA/1f600.png" -s 48 --outline-stiffness 0.5 -o b.gif && cmp a.gif b.gif &&
    $T $POYO "$DATA/1f600.png" -s 48 -o c.gif && ! cmp a.gif c.gif &&
    $T $POYO text OK -s 48 --outline-stiffness 0.5 -o d.gif && $T $POYO text OK -s 48 -o e.gif && ! cmp d.gif e.gif &&
    $POYO text --help >help && grep -q "^      --outline C\[,WIDTH\]" help && grep -q "outline-stiffness" help &&
    $POYO animate --help >help2 && grep -q "outline-stiffness K" help2
'

test_expect_success 'an absent font or font file fails in one line naming it (exit 2), a non-font file with exit 1' '
    expect_exit 2 $POYO text x --font NoSuchFont -o a.gif 2>err &&
    [ "$(wc -l <err)" -eq 1 ] && grep -q "^poyo: --font: no installed font matches '"'"'NoSuchFont'"'"' (the nearest is " err &&
    echo "not a font" >fake.ttf &&
    expect_exit 1 $POYO text x --font ./fake.ttf -o b.gif 2>err &&
    expect_line err "poyo: cannot read the font ./fake.ttf (not a font FreeType and HarfBuzz can open)" &&
    expect_exit 2 $POYO text x --font ./missing.ttf -o b.gif 2>err &&
    expect_line err "poyo: --font: cannot open the font file ./missing.ttf (No such file or directory)" &&
    mkdir fonts.ttf && expect_exit 2 $POYO text x --font ./fonts.ttf -o b.gif 2>err &&
    expect_line err "poyo: --font: ./fonts.ttf is not a regular file" &&
    expect_no_file b.gif &&
    $T $POYO text x --font IPAexGothic -s 32 -o c.gif && $T $POYO text x --font serif -s 32 -o d.gif &&
    $T $POYO text x --font /usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf -s 32 -o e.gif && cmp c.gif e.gif &&
    expect_no_file a.gif b.gif && no_temp_files .
'

test_expect_success 'bad text and option values: one line, exit 2, no file' '
    long=$(printf "%0300d" 0) &&
    for c in "::no text (usage: poyo text [OPTIONS] TEXT...; see poyo text --help)" \
             "x:--color nope:--color: '"'"'nope'"'"' is not a colour (#rrggbb, #rgb or a name such as red, orange, white, black)" \
             "x:--gradient red:--gradient: needs two colours, C1,C2[,ANGLE], not '"'"'red'"'"'" \
             "x:--outline red,0:--outline: width must be more than 0 and at most 64 pixels, not 0" \
             "x:--outline red,65:--outline: width must be more than 0 and at most 64 pixels, not 65" \
             "x:--align up:--align: must be left, center, right, top, middle or bottom, not '"'"'up'"'"'" \
             "x:--fit wide:--fit: must be fill, keep, auto or none, not '"'"'wide'"'"'" \
             "x:-s 2:a 2x2 canvas is too small for 1 line of text" \
             "   :-s 64:no text to draw" \
             "$long:-s 64:text has more than 256 characters"; do
        text=${c%%:*} rest=${c#*:} opts=${rest%%:*} msg=${rest#*:}
        if [ -n "$text" ]; then
            expect_exit 2 $POYO text "$text" $opts -o o.gif 2>err || exit 1
        else
            expect_exit 2 $POYO text $opts -o o.gif 2>err || exit 1
        fi
        expect_line err "poyo: $msg" && expect_no_file o.gif || exit 1
    done &&
    expect_exit 2 $POYO text "$(printf "a\\377b")" -o o.gif 2>err &&
    expect_line err "poyo: text is not valid UTF-8 (byte 2)" &&
    expect_exit 2 $POYO text "$(printf "a\\tb")" -o o.gif 2>err &&
    expect_line err "poyo: text holds a control character (U+0009)" &&
    expect_exit 2 $POYO text "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n12\\n13\\n14\\n15\\n16\\n17" -o o.gif 2>err &&
    expect_line err "poyo: text has more than 16 lines" && expect_no_file o.gif
'

test_expect_success '--per-glyph: each glyph a body of its own, kicked one after another' '
    $T $POYO text LGTM -i jump --per-glyph -s 64 --frames pg -o pg.gif &&
    $T $POYO text LGTM -i jump -s 64 --frames whole -o whole.gif &&
    [ "$(first_moved pg.gif 0 16)" -lt "$(first_moved pg.gif 48 64)" ] &&
    [ "$(first_moved whole.gif 0 16)" -eq "$(first_moved whole.gif 48 64)" ] &&
    cmp pg/frame_0000.png whole/frame_0000.png &&
    $T $POYO text LGTM -i wave --per-glyph -s 64 -o wave.gif && [ "$(info wave.gif frames)" -gt 5 ] &&
    $T $POYO text "すごい" --per-glyph -p slack -o slack.gif 2>/dev/null && $POYO check -p slack slack.gif &&
    expect_exit 2 $POYO text "abcdefghijklmnopqrstuvwxyzabcdefg" --per-glyph -o many.gif 2>err &&
    expect_line err "poyo: --per-glyph: the text has 33 glyphs, more than 32" &&
    expect_exit 2 $POYO "$DATA/1f600.png" --per-glyph -o no.gif 2>err &&
    expect_line err "poyo: --per-glyph: unknown option (see poyo --help)" && expect_no_file many.gif no.gif
'

# LeakSanitizer cannot work under ptrace, so traced runs leave it off.
traced() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$@"
}
test_expect_success 'poyo is not linked with the text libraries; only poyo text loads them' '
    readelf -d "$POYO" >dyn && grep -q "(NEEDED)" dyn && ! grep -E "(NEEDED).*(harfbuzz|freetype|fontconfig)" dyn &&
    traced v.trace -e trace=%file $POYO --version >/dev/null &&
    traced p.trace -e trace=%file $T $POYO "$DATA/1f600.png" -s 32 -o a.gif &&
    ! grep -E "libharfbuzz|libfreetype|libfontconfig" v.trace p.trace &&
    traced t.trace -e trace=%file $T $POYO text OK -s 32 -o b.gif &&
    grep -q "libharfbuzz\.so\.0" t.trace && grep -q "libfreetype\.so\.6" t.trace && grep -q "libfontconfig\.so\.1" t.trace
'

# an empty libharfbuzz.so.0 found first: dlopen takes it, dlsym finds nothing in it
test_expect_success 'without HarfBuzz poyo text fails in one line, and everything else still works' '
    mkdir stub && ${CC:-cc} -shared -fPIC -o stub/libharfbuzz.so.0 -x c /dev/null &&
    NOTEXT="env LD_LIBRARY_PATH=$PWD/stub" &&
    expect_exit 1 $NOTEXT $T $POYO text OK -o a.gif 2>err && [ "$(wc -l <err)" -eq 1 ] &&
    grep -q "^poyo: text needs libfreetype6, libharfbuzz0b and libfontconfig1: .*undefined symbol: hb_" err &&
    expect_no_file a.gif &&
    $NOTEXT $T $POYO "$DATA/1f600.png" -s 32 -o p.gif && $T $POYO "$DATA/1f600.png" -s 32 -o q.gif && cmp p.gif q.gif &&
    $NOTEXT $POYO --version >/dev/null
'

test_done
