#!/bin/sh
# t_batch.sh - many inputs: directories, -j workers giving the same bytes as a
# serial run, JSON lines, failures that do not stop the batch, name clashes,
# quiet and verbose, and interrupts that leave no temporary files.
. "$(dirname "$0")/lib.sh"

MKPNG="$TOOLS/mkpng"
MKH="$TOOLS/mkpng"

make_set() { # make_set DIR N [PREFIX]: N small stamps of different sizes in DIR
    mkdir -p "$1" && i=0 &&
    while [ $i -lt "$2" ]; do
        "$MKPNG" rgba "$1/${3:-s}$i.png" $((24 + i % 9)) || return 1
        i=$((i + 1))
    done
}

test_expect_success 'a directory with -o DIR/: one output per PNG, named after its stem' '
    make_set in 6 && echo "not a png" >in/readme.txt &&
    $POYO in -o out/ -q &&
    [ "$(ls out | wc -l)" -eq 6 ] && for i in 0 1 2 3 4 5; do [ -f out/s$i.gif ] || exit 1; done &&
    $POYO in -o apng/ --format apng -q && [ -f apng/s0.poyo.png ] && [ "$(ls apng | wc -l)" -eq 6 ]
'

test_expect_success '-j 2 writes exactly the bytes of a serial run' '
    make_set in 8 &&
    $POYO in -o serial/ -j 1 -q && $POYO in -o parallel/ -j 2 -q &&
    for f in serial/*.gif; do cmp "$f" "parallel/$(basename "$f")" || exit 1; done
'

test_expect_success 'one bad file fails alone: named, the rest written, exit 1, summary' '
    make_set in 4 && "$MKPNG" truncated in/bad.png 32 && "$MKPNG" empty in/empty.png &&
    expect_exit 1 $POYO in -o out/ 2>err &&
    grep -qx "poyo: in/bad.png: corrupt or truncated image data" err &&
    grep -qx "poyo: in/empty.png: empty file" err &&
    grep -q "^poyo: 4 written, 2 failed (" err &&
    [ "$(ls out | wc -l)" -eq 4 ] && no_temp_files out
'

test_expect_success '--json: one object per file with the facts a pipeline needs' '
    make_set in 3 && "$MKPNG" text in/x.png &&
    expect_exit 1 $POYO in -o out/ --json -q >lines 2>/dev/null &&
    [ "$(wc -l <lines)" -eq 4 ] &&
    [ "$(grep -c "\"status\": \"ok\"" lines)" -eq 3 ] &&
    grep "in/s0.png" lines | grep -q "\"output\": \"out/s0.gif\", \"status\": \"ok\", \"bytes\": [0-9]*, \"width\": 24, \"height\": 24, \"frames\": [0-9]*, \"duration\": [0-9.]*, \"strength\": 0.16, \"milliseconds\": [0-9.]*}" &&
    grep "in/x.png" lines | grep -q "\"output\": null, \"status\": \"error\", \"error\": \"not a PNG or other supported image\""
'

test_expect_success 'name clashes are reported, not overwritten' '
    mkdir a b && "$MKPNG" rgba a/same.png 24 && "$MKPNG" rgb b/same.png 24 &&
    expect_exit 1 $POYO a/same.png b/same.png -o out/ 2>err &&
    grep -qx "poyo: b/same.png: out/same.gif would also be written for a/same.png; skipped (name clash)" err &&
    "$TOOLS/animinfo" out/same.gif | grep -qx "semi_transparent 0"
'

test_expect_success '-r takes subdirectories; without it they are left alone' '
    make_set in 2 && make_set in/deeper 3 d &&
    $POYO in -o flat/ -q && [ "$(ls flat | wc -l)" -eq 2 ] &&
    $POYO -r in -o deep/ -q && [ "$(find deep -type f | wc -l)" -eq 5 ]
'

test_expect_success '-r mirrors the input tree under -o DIR/, making its folders with 0777 less the umask' '
    mkdir -p in/a in/b/c && "$MKPNG" rgba in/a/x.png 24 && "$MKPNG" rgb in/b/x.png 24 &&
    "$MKPNG" rgba in/b/c/y.png 26 && "$MKPNG" rgba in/top.png 28 &&
    (umask 027 && $POYO -r in/ -o out/ -q) &&
    [ -f out/a/x.gif ] && [ -f out/b/x.gif ] && [ -f out/b/c/y.gif ] && [ -f out/top.gif ] &&
    [ "$(find out -type f | wc -l)" -eq 4 ] &&
    [ "$(stat -c %a out/a)" = 750 ] && [ "$(stat -c %a out/b/c)" = 750 ] &&
    ! cmp -s out/a/x.gif out/b/x.gif &&
    $POYO -r in -o same/ -q && for f in a/x b/x b/c/y top; do cmp out/$f.gif same/$f.gif || exit 1; done
'

test_expect_success 'under -r a clash can only come from two inputs of one stem in one folder' '
    mkdir -p in/a in/b && "$MKPNG" rgba in/a/x.png 24 && "$MKPNG" rgba in/b/x.png 24 &&
    $POYO in/a/x.png -o in/a/x.webp -q &&
    expect_exit 1 $POYO -r in -o out/ 2>err &&
    grep -qx "poyo: in/a/x.webp: out/a/x.gif would also be written for in/a/x.png; skipped (name clash)" err &&
    grep -q "^poyo: 2 written, 1 failed (" err && [ -f out/a/x.gif ] && [ -f out/b/x.gif ]
'

test_expect_success 'a directory gives its PNG, JPEG, WebP and GIF files (by suffix, any case), nothing else' '
    mkdir in && "$MKPNG" rgba in/a.png 24 && "$MKPNG" webp-still in/b.WEBP 24 &&
    "$MKH" jpeg-scans in/c.jpg 3 24 && cp in/c.jpg in/d.JPEG && "$MKPNG" rgba s.png 24 &&
    $POYO s.png -o in/e.gif -q && echo text >in/f.txt && cp in/a.png in/g.bmp &&
    $POYO in -o out/ -q && [ "$(ls out | tr "\n" " ")" = "a.gif b.gif c.gif d.gif e.poyo.gif " ]
'

test_expect_success 'a rerun beside the inputs does not take the GIFs the last run wrote as inputs' '
    mkdir in && "$MKPNG" rgba in/a.png 24 && "$MKPNG" webp-still in/b.webp 24 &&
    $POYO in -q && [ -f in/a.gif ] && [ -f in/b.gif ] &&
    $POYO -f in -v 2>err &&
    grep -qx "poyo: in/a.gif: is the output of in/a.png; not taken as an input" err &&
    grep -qx "poyo: in/b.gif: is the output of in/b.webp; not taken as an input" err &&
    grep -q "^poyo: 2 written, 0 failed (" err
'

test_expect_success 'quiet on success, -v a line per file, no progress bar off a terminal' '
    make_set in 3 &&
    $POYO in -o q/ -q 2>err && [ ! -s err ] &&
    $POYO in -o v/ -v 2>err && [ "$(grep -c ": wrote v/" err)" -eq 3 ] &&
    ! grep -q "\[=" err
'

test_expect_success 'the long names --output, --jobs, --recursive, --verbose and --quiet do what -o, -j, -r, -v and -q do' '
    make_set in 2 && make_set in/deeper 1 d &&
    $POYO -r in -o short/ -j 2 -v 2>short.err &&
    $POYO --recursive in --output long/ --jobs 2 --verbose 2>long.err &&
    for f in s0 s1 deeper/d0; do cmp short/$f.gif long/$f.gif || exit 1; done &&
    [ "$(grep -c ": wrote long/" long.err)" -eq 3 ] &&
    [ "$(grep ": wrote " short.err | sed "s/short/long/g" | sort)" = "$(grep ": wrote " long.err | sort)" ] &&
    grep -q "^poyo: 3 written, 0 failed (" long.err &&
    $POYO --recursive in --output quiet/ --quiet 2>q.err && [ ! -s q.err ] && [ -f quiet/deeper/d0.gif ]
'

# script(1) gives poyo a terminal for standard error (util-linux, on every Debian machine)
test_expect_success 'on a terminal the progress bar and the notes never share a line' '
    make_set in 5 &&
    script -qec "$POYO -j 1 --max-bytes 100K -o out/ in" /dev/null >raw &&
    cr=$(printf "\r") && esc=$(printf "\033") &&
    sed "s/$cr$esc\[K/\n/g" raw | tr -d "\r" >lines &&
    grep -q "^\[=*>* *\] [0-9]/5 " lines &&
    [ "$(grep -c "^poyo: out/s[0-4].gif: [0-9]* bytes (budget 100000): " lines)" -eq 5 ] &&
    grep -qx "poyo: 5 written, 0 failed (.*)" lines &&
    ! grep -v "^poyo: " lines | grep -q "poyo: "
'

test_expect_success 'an interrupt stops the batch and leaves no temporary file' '
    make_set in 40 && "$MKPNG" rgba in/big.png 512 &&
    ( $POYO in -o out/ -j 2 --size 256 -q 2>/dev/null & echo $! >pid; wait ) &
    sleep 0.4 && kill -INT "$(cat pid)" && wait
    no_temp_files out &&
    for f in out/*.gif; do [ -f "$f" ] || continue; "$TOOLS/animinfo" "$f" >/dev/null || exit 1; done
'

test_expect_success 'every output of the batch loops and reads back' '
    make_set in 5 && $POYO in -o out/ -q &&
    for f in out/*.gif; do [ "$("$TOOLS/animinfo" "$f" | sed -n "s/^plays //p")" = 0 ] || exit 1; done
'

test_expect_success 'a 4096x4096 stamp scaled to 128 works; unreadable inputs fail cleanly' '
    "$MKPNG" rgba huge.png 4096 && $POYO huge.png --size 128 -o small.gif &&
    [ "$("$TOOLS/animinfo" small.gif | sed -n "s/^width //p")" = 128 ] &&
    "$MKPNG" rgba s.png 24 &&
    expect_exit 1 $POYO s.png/inner.png -o x.gif 2>err &&
    expect_line err "poyo: s.png/inner.png: cannot open: Not a directory" &&
    if [ "$(id -u)" != 0 ]; then
        chmod 000 s.png && expect_exit 1 $POYO s.png -o y.gif 2>err &&
        expect_line err "poyo: s.png: cannot open: Permission denied"
    fi &&
    expect_no_file x.gif y.gif
'

test_expect_success '--skip-existing: a rerun after adding one file writes that file alone' '
    make_set in 3 && $POYO in -o out/ -q &&
    stat -c "%n %y %s" out/*.gif >before &&
    "$MKPNG" rgba in/new.png 30 &&
    $POYO in -o out/ --skip-existing -v --json >lines 2>err &&
    stat -c "%n %y %s" out/s0.gif out/s1.gif out/s2.gif >after && cmp before after &&
    [ -s out/new.gif ] && [ "$(ls out | wc -l)" -eq 4 ] &&
    grep -qx "poyo: in/s1.png: skipped: out/s1.gif exists" err &&
    grep -qx "poyo: in/new.png: wrote out/new.gif (30x30, [0-9]* frames, [0-9.]* s, [0-9]* bytes)" err &&
    [ "$(grep -c ": skipped: " err)" -eq 3 ] &&
    grep -q "^poyo: 1 written, 3 skipped, 0 failed (" err &&
    grep "in/s2.png" lines | grep -q "\"output\": \"out/s2.gif\", \"status\": \"skipped\", \"milliseconds\": [0-9.]*}" &&
    [ "$(grep -c "\"status\": \"ok\"" lines)" -eq 1 ] &&
    $POYO in -o out/ --skip-existing 2>err && grep -q "^poyo: 0 written, 4 skipped, 0 failed (" err
'

test_expect_success '--skip-existing leaves an existing output without reading its input; it conflicts with -f' '
    "$MKPNG" text bad.png && echo old >bad.gif &&
    $POYO --skip-existing bad.png 2>err && [ ! -s err ] && [ "$(cat bad.gif)" = old ] &&
    expect_exit 2 $POYO --skip-existing -f bad.png 2>err &&
    expect_line err "poyo: --skip-existing: cannot be used with -f (--force)" &&
    expect_exit 2 $POYO -f bad.png --skip-existing 2>err &&
    expect_line err "poyo: --skip-existing: cannot be used with -f (--force)"
'

test_done
