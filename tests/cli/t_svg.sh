#!/bin/sh
# t_svg.sh - SVG input from the command line: recognised by its content, taken
# from folders with and without -r, drawn at the size asked for; nothing it
# references outside itself is read (watched with strace); bombs and broken
# files fail with one line within bounded time and memory.
. "$(dirname "$0")/lib.sh"

INFO="$TOOLS/animinfo"
T="timeout 20"
TB="timeout 30"
FACE="$DATA/face.svg"

# uses_svg LEVELS: a circle, then LEVELS groups of ten uses of the group
# before, the last one used: 10^LEVELS circles drawn
uses_svg() {
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"64\" height=\"64\"><defs><circle id=\"a0\" cx=\"32\" cy=\"32\" r=\"20\"/>"
    i=1; while [ $i -le "$1" ]; do
        printf "<g id=\"a$i\">"; for k in 1 2 3 4 5 6 7 8 9 10; do printf "<use xlink:href=\"#a$((i - 1))\"/>"; done; printf "</g>"
        i=$((i + 1))
    done
    printf "</defs><use xlink:href=\"#a$1\"/></svg>"
}

test_expect_success 'an SVG animates whatever its name, at its viewBox size or the size asked for' '
    cp "$FACE" face.svg && cp "$FACE" face.dat &&
    $T $POYO face.svg -o a.gif && $T $POYO face.dat -o b.gif &&
    cmp a.gif b.gif &&
    "$INFO" a.gif >info && grep -qx "width 36" info && grep -qx "height 36" info &&
    [ "$(sed -n "s/^frames //p" info)" -gt 5 ] &&
    $T $POYO face.svg --size 300x200 -o c.gif && "$INFO" c.gif >info &&
    grep -qx "width 300" info && grep -qx "height 200" info &&
    $T $POYO -p telegram face.svg -o t.webm 2>/dev/null && $POYO check -p telegram t.webm &&
    cat face.svg | $T $POYO - -o - >d.gif && cmp a.gif d.gif &&
    $T $POYO rope face.svg --size 96 -o r.gif && "$INFO" r.gif >info && grep -qx "width 96" info
'

test_expect_success 'an SVG of 36 units moves at 512 px as the same drawing sized 512 does' '
    # the body is built on the drawing drawn as large as the canvas, not on
    # a 36 px raster: built there, the face sat 10 px low and its pinned
    # bottom wobbled by 5 px
    sed "s/<svg /<svg width=\"512\" height=\"512\" /" "$FACE" >big.svg &&
    grep -q "width=\"512\"" big.svg &&
    $T $POYO "$FACE" -s 512 --frames f36 -o s36.gif && $T $POYO big.svg -s 512 --frames f512 -o s512.gif &&
    for f in f512/*.png; do cmp "$f" "f36/$(basename "$f")" || exit 1; done &&
    [ "$(ls f36 | wc -l)" -eq "$(ls f512 | wc -l)" ] &&
    # drawn that large only within the bounds: refused before it is drawn
    expect_exit 1 $T $POYO "$FACE" -s 4096 --max-memory 64MiB -o huge.gif 2>err &&
    expect_line err "poyo: $FACE: drawing the SVG at 4096x4096 would take about 192 MiB, more than the 64 MiB memory limit; lower --size, or raise --max-memory" &&
    expect_no_file huge.gif
'

test_expect_success 'an OpenMoji SVG animates as its 512 px PNG does, at 64 and at 512 px' '
    # the same emoji, its SVG and the PNG rsvg-convert drew of it at 512 px:
    # the PNG clip'"'"'s frames against the SVG clip (APNG, alpha kept), mean
    # PSNR; at 64 px (below the SVG'"'"'s 72 units) the body is laid over the
    # drawing at its own size, at 512 px over the drawing drawn that large
    for s in 64 512; do
        $T $POYO "$DATA/openmoji-1F600-512.png" -s $s --frames ref$s -o png$s.png &&
        $T $POYO "$DATA/openmoji-1F600.svg" -s $s -o svg$s.png &&
        "$TOOLS/psnr" 25 ref$s svg$s.png >psnr$s || exit 1
    done &&
    awk "{ exit !(\$1 >= 32) }" psnr64 && awk "{ exit !(\$1 >= 40) }" psnr512
'

test_expect_success 'a folder takes its *.svg, -r those below it too' '
    mkdir -p in/sub && cp "$FACE" in/a.svg && cp "$FACE" in/sub/B.SVG &&
    cp "$DATA/1f600.png" in/c.png && echo "<svg>" >in/notes.txt &&
    $T $POYO in -o out/ 2>/dev/null && [ -s out/a.gif ] && [ -s out/c.gif ] &&
    expect_no_file out/notes.gif out/sub out/B.gif &&
    $T $POYO -r in -o rout/ 2>/dev/null && [ -s rout/a.gif ] && [ -s rout/c.gif ] && [ -s rout/sub/B.gif ]
'

# Files and addresses an SVG may name: none is ever opened, looked at or connected to.
# LeakSanitizer cannot work under ptrace (an ASan build fails at exit under
# strace), so the traced runs leave it off and are repeated untraced with it.
traced() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$@"
}
test_expect_success 'an SVG never reads what it references: files, file: and http: URLs, xml:base, entities' '
    cp "$DATA/1f600.png" secret.png && cp "$FACE" secret.svg &&
    cat >refs.svg <<EOF &&
<?xml version="1.0"?>
<!DOCTYPE svg [ <!ENTITY % dtd SYSTEM "file://$PWD/secret.svg"> <!ENTITY pic SYSTEM "secret.png"> ]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:xi="http://www.w3.org/2001/XInclude" width="64" height="64" xml:base="file://$PWD/">
  <?xml-stylesheet href="secret.css"?>
  <style>@import url("file://$PWD/secret.css"); @import url("http://127.0.0.1:9/secret.css");</style>
  <circle cx="32" cy="32" r="30" fill="#c02020"/>
  <image href="file://$PWD/secret.png" width="64" height="64"/>
  <image xlink:href="secret.png" width="64" height="64"/>
  <image href="http://127.0.0.1:9/secret.png" width="64" height="64"/>
  <use href="secret.svg#a"/>
  <rect width="9" height="9" fill="url(secret.svg#g)" filter="url(http://127.0.0.1:9/secret.svg#f)"/>
  <xi:include href="secret.svg" parse="xml"/>
</svg>
EOF
    traced trace -e trace=%file,%network $T $POYO refs.svg -o refs.gif &&
    [ -s refs.gif ] && grep -q "refs.svg" trace &&
    ! grep -E "secret|socket\(|connect\(" trace &&
    $T $POYO refs.svg -o refs2.gif && cmp refs.gif refs2.gif &&
    printf "<!DOCTYPE svg [<!ENTITY x SYSTEM \"file://%s/secret.svg\">]>\n<svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>\n" "$PWD" >ent.svg &&
    expect_exit 1 traced trace2 -e trace=%file,%network $T $POYO ent.svg -o ent.gif 2>err &&
    expect_line err "poyo: ent.svg: corrupt or truncated SVG (line 2: Entity '"'"'x'"'"' not defined)" &&
    ! grep -E "secret|socket\(|connect\(" trace2 && expect_no_file ent.gif &&
    expect_exit 1 $T $POYO ent.svg -o ent.gif 2>err2 && cmp err err2
'

test_expect_success 'an SVG embedding an image or a document (data: URL) is refused before anything decodes it' '
    { printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><image width=\"64\" height=\"64\" href=\"data:image/png;base64,"; base64 -w0 "$DATA/1f600.png"; printf "\"/></svg>"; } >img.svg &&
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><style>rect { fill: url(\"\\\\64 ata:image/svg+xml;base64,PHN2Zz4=#p\") }</style><rect width=\"64\" height=\"64\"/></svg>" >css.svg &&
    grep -q "64 ata" css.svg &&
    for f in img css; do
        expect_exit 1 $T $POYO $f.svg -o $f.gif 2>err &&
        expect_line err "poyo: $f.svg: SVG embeds an image or document (a data: URL), which poyo does not read" &&
        expect_no_file $f.gif || exit 1
    done
'

# bombs: each fails in one line, within 20 s and 600 MiB (about 20 MiB in a
# plain build; AddressSanitizer keeps up to 256 MiB of freed memory in its
# quarantine, which the <use> bomb fills)
test_expect_success 'SVG bombs are refused within bounded time and memory' '
    {
        echo "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY l0 \"lollollollollollollollollollol\">"
        i=1; while [ $i -le 9 ]; do
            printf "<!ENTITY l$i \"%s\">" "$(printf "&l$((i - 1));%.0s" 1 2 3 4 5 6 7 8 9 10)"; i=$((i + 1))
        done
        echo "]><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><text>&l9;</text></svg>"
    } >laughs.svg &&
    {
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\">"
        i=0; while [ $i -lt 300 ]; do printf "<g>"; i=$((i + 1)); done
        printf "<circle r=\"9\"/>"
        i=0; while [ $i -lt 300 ]; do printf "</g>"; i=$((i + 1)); done
        printf "</svg>"
    } >deep.svg &&
    uses_svg 12 >use.svg &&
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100000000\" height=\"100000000\"><circle r=\"9\"/></svg>" >huge.svg &&
    { printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><image width=\"64\" height=\"64\" href=\"data:image/svg+xml;base64,"; { printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"9\" height=\"9\">"; head -c 20000000 /dev/zero | tr "\\0" " "; printf "</svg>"; } | gzip -9 | base64 -w0; printf "\"/></svg>"; } >gz.svg &&
    for b in "laughs:corrupt or truncated SVG (line 1: Detected an entity reference loop)" \
             "deep:corrupt or truncated SVG (line 1: elements nested more than 256 deep)" \
             "use:SVG draws more than 100000 elements through its <use> references" \
             "huge:image is 100000000x100000000, more than the 16777216-pixel limit (see --max-pixels)" \
             "gz:SVG embeds an image or document (a data: URL), which poyo does not read"; do
        bomb=${b%%:*} msg=${b#*:}
        expect_exit 1 $TB $TOOLS/rusage $bomb.cost $POYO $bomb.svg -o $bomb.gif 2>err &&
        expect_line err "poyo: $bomb.svg: $msg" && expect_no_file $bomb.gif &&
        read secs mib <$bomb.cost && echo "$bomb: $secs s, $mib MiB" &&
        awk -v s="$secs" -v m="$mib" "BEGIN { exit !(s < 20 && m < 600) }" || exit 1
    done
'

test_expect_success 'an SVG that draws its parts again with <use> is drawn, a thousand of them or a loop' '
    # the bomb above with three levels: ten uses of ten uses of ten circles
    uses_svg 3 >thousand.svg &&
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\"><defs><g id=\"x\"><use href=\"#y\"/></g><g id=\"y\"><use href=\"#x\"/></g></defs><use href=\"#x\"/><circle r=\"9\" cx=\"30\" cy=\"30\"/></svg>" >loop.svg &&
    for f in thousand loop; do
        $POYO $f.svg -o $f.png --frames fr-$f -f && test -s fr-$f/frame_0000.png || exit 1
    done
'

test_expect_success 'empty, truncated, unsized and non-SVG XML files fail with one line and exit 1' '
    : >empty.svg && head -n 3 "$FACE" >cut.svg &&
    printf "<?xml version=\"1.0\"?>\n<html><body/></html>\n" >page.svg &&
    printf "<?xml version=\"1.0\"?>\n<!-- nothing else" >prolog.svg &&
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"9\"/></svg>" >nosize.svg &&
    expect_refused empty.svg "empty file" &&
    expect_refused cut.svg "corrupt or truncated SVG (line 4: Premature end of data in tag svg line 1)" &&
    expect_refused page.svg "XML whose root element is <html>, not an SVG image" &&
    expect_refused prolog.svg "corrupt or truncated XML (no root element), not an SVG image" &&
    expect_refused nosize.svg "SVG has no size (neither width and height in absolute units nor a viewBox)" &&
    expect_no_file o.gif && no_temp_files .
'

# The SVG libraries are loaded with dlopen when the first SVG is decoded, not
# at start-up (nor is any library that needs them, such as libavcodec).
test_expect_success 'poyo is not linked with librsvg, cairo, GIO, GObject, GLib or libxml2' '
    readelf -d "$POYO" >dyn && grep -q "(NEEDED)" dyn &&
    ! grep -E "(NEEDED).*(librsvg|libcairo|libgio|libgobject|libglib|libxml2)" dyn
'

test_expect_success 'a PNG never loads the SVG libraries; an SVG loads them' '
    traced trace -e trace=%file $T $POYO "$DATA/1f600.png" -o a.gif && [ -s a.gif ] &&
    ! grep -E "librsvg|libcairo|libgio|libgobject|libglib|libxml2" trace &&
    traced trace2 -e trace=%file $T $POYO "$FACE" -o b.gif && [ -s b.gif ] &&
    grep -q "librsvg-2\.so\.2" trace2 && grep -q "libxml2\.so\.2" trace2
'

# an empty librsvg-2.so.2 found first: dlopen takes it, dlsym finds nothing in it
test_expect_success 'without librsvg an SVG fails in one line, and every other input still works' '
    mkdir stub && ${CC:-cc} -shared -fPIC -o stub/librsvg-2.so.2 -x c /dev/null &&
    NOSVG="env LD_LIBRARY_PATH=$PWD/stub" &&
    why="SVG input needs librsvg2-2: $PWD/stub/librsvg-2.so.2: undefined symbol: rsvg_handle_new_from_stream_sync" &&
    cp "$FACE" face.svg &&
    expect_exit 1 $NOSVG $T $POYO face.svg -o f.gif 2>err &&
    expect_line err "poyo: face.svg: $why" && expect_no_file f.gif &&
    $NOSVG $T $POYO "$DATA/1f600.png" -o p.gif && $T $POYO "$DATA/1f600.png" -o q.gif && cmp p.gif q.gif &&
    mkdir in && cp "$FACE" in/a.svg && cp "$FACE" in/b.svg && cp "$DATA/1f600.png" in/c.png &&
    expect_exit 1 $NOSVG $T $POYO in -o out/ -j 2 2>err &&
    [ "$(grep -cF "$why" err)" -eq 2 ] && cmp p.gif out/c.gif && expect_no_file out/a.gif out/b.gif
'

test_done
