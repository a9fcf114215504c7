#!/bin/sh
# t_limits.sh - the memory bound every command keeps: work estimated above it
# (1 GiB, or --max-memory) is refused before it starts, with one line giving
# the estimate, the bound and the options, quickly and in little memory; work
# under it runs and stays under it. Inputs whose size sets the time (scenes,
# waypoints) are bounded the same way. Each poyo run goes through the rusage tool,
# which records its seconds and peak resident memory.
. "$(dirname "$0")/lib.sh"

MKPNG="$TOOLS/mkpng"
RU="timeout 60 $TOOLS/rusage"
# The sanitizer build keeps freed blocks in a quarantine before reusing them;
# what it holds there is not poyo's memory, so the peaks here are measured
# without it (a build without the sanitizer ignores the variable).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
export ASAN_OPTIONS
"$MKPNG" rgba "$TRASH/stamp.png" 48

# cost_under FILE SECONDS MIB: the run recorded in FILE took less than both
cost_under() {
    read secs mib <"$1" && echo "$1: $secs s, $mib MiB" &&
    awk -v s="$secs" -v m="$mib" -v ms="$2" -v mm="$3" 'BEGIN { exit !(s < ms && m < mm) }'
}

LOWER="lower --size, --fps or --duration, or raise --max-memory"

test_expect_success 'a long clip on a large canvas is refused before any frame is made' '
    expect_exit 1 $RU cost $POYO ../stamp.png --size 2048 --duration 10 -o a.gif 2>err &&
    grep -q "^poyo: ../stamp.png: 250 frames of 2048x2048 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err && [ $(wc -l <err) -eq 1 ] &&
    cost_under cost 2 64 && expect_no_file a.gif
'

test_expect_success 'a byte budget on a 4096 px canvas is refused before the search starts' '
    expect_exit 1 $RU cost $POYO ../stamp.png --max-bytes 1 --size 4096 -o b.gif 2>err &&
    grep -q "^poyo: ../stamp.png: [0-9]* frames of 4096x4096 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 64 && expect_no_file b.gif
'

test_expect_success 'a small PNG declaring 4096x4096 is refused with the default options, under the bound' '
    "$MKPNG" palette big.png 4096 4096 && [ $(wc -c <big.png) -lt 65536 ] &&
    expect_exit 1 $RU cost $POYO big.png -o c.gif 2>err &&
    grep -q "^poyo: big.png: [0-9]* frames of 4096x4096 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 1024 && expect_no_file c.gif
'

test_expect_success 'an estimate between two bounds: refused under the lower, made under the higher and within it' '
    expect_exit 1 $RU cost $POYO ../stamp.png --size 1024 --duration 2 --max-memory 200MiB -o d.gif 2>err &&
    grep -q "^poyo: ../stamp.png: 50 frames of 1024x1024 would take about [0-9]* MiB, more than the 200 MiB memory limit; $LOWER\$" err &&
    cost_under cost 2 64 && expect_no_file d.gif &&
    $RU cost $POYO ../stamp.png --size 1024 --duration 2 --max-memory 400MiB -o d.gif &&
    [ -s d.gif ] && cost_under cost 30 400
'

test_expect_success 'files drawn side by side share the bound' '
    cp ../stamp.png a.png && cp ../stamp.png b.png && mkdir out &&
    $RU cost $POYO a.png b.png -j 2 --size 1024 --duration 2 --max-memory 400MiB -q -o out/ &&
    [ -s out/a.gif ] && [ -s out/b.gif ] && cost_under cost 60 400
'

test_expect_success 'the budget search and dithering are counted: what passes plain may not pass with them' '
    $POYO ../stamp.png --size 512 --duration 2 --max-memory 100MiB -o e.gif && [ -s e.gif ] &&
    expect_exit 1 $POYO ../stamp.png --size 512 --duration 2 --max-memory 100MiB --dither 1 -o f.gif 2>err &&
    grep -q "more than the 100 MiB memory limit" err &&
    expect_exit 1 $POYO ../stamp.png --size 512 --duration 2 --max-memory 100MiB --max-bytes 50K -o g.gif 2>err &&
    grep -q "more than the 100 MiB memory limit" err && expect_no_file f.gif g.gif
'

test_expect_success 'decoding an image is bounded too' '
    "$MKPNG" palette big.png 2048 2048 &&
    expect_exit 1 $POYO big.png --max-memory 32MiB -o h.gif 2>err &&
    expect_line err "poyo: big.png: decoding a 2048x2048 image would take about 48 MiB, more than the 32 MiB memory limit; raise --max-memory"
'

test_expect_success 'stamps of every day stay well under the bound' '
    $RU cost $POYO ../stamp.png -o n.gif && cost_under cost 10 256 &&
    $RU cost $POYO ../stamp.png --size 1024 -o s.gif && cost_under cost 20 512 &&
    $RU cost $POYO ../stamp.png -p telegram -o t.webm 2>/dev/null && cost_under cost 30 512 &&
    $RU cost $POYO ../stamp.png -p telegram-emoji -o te.webm 2>/dev/null && cost_under cost 30 512 &&
    $RU cost $POYO ../stamp.png --size 128 --duration 10 -o long.gif && cost_under cost 10 256 &&
    [ -s n.gif ] && [ -s s.gif ] && [ -s t.webm ] && [ -s te.webm ] && [ -s long.gif ]
'

test_expect_success 'rope, path and sdf refuse above the bound and take --max-memory' '
    expect_exit 1 $RU cost $POYO rope ../stamp.png --size 2048 --duration 20 -o r.gif 2>err &&
    grep -q "^poyo: ../stamp.png: [0-9]* frames of 2048x2048 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 1024 &&
    expect_exit 1 $POYO rope ../stamp.png --size 512 --max-memory 16MiB -o r.gif 2>err &&
    grep -q "more than the 16 MiB memory limit" err && [ $(wc -l <err) -eq 1 ] &&
    expect_exit 2 $RU cost $POYO path --through "0.1,0.5,0 0.9,0.5,0" ../stamp.png --size 4096 --duration 10 -o p.gif 2>err &&
    grep -q "^poyo: [0-9]* frames of 4096x4096 would take about [0-9.]* GiB, more than the 1 GiB memory limit; lower --size, --fps or the duration, or raise --max-memory\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 64 &&
    $POYO path --through "0.1,0.5,0 0.9,0.5,0" ../stamp.png --size 256 --duration 0.5 --max-memory 512MiB -o p.gif &&
    expect_exit 1 $RU cost $POYO sdf --scene "box(0.5,0.9,0.5,0.05)" ../stamp.png --size 2048 --duration 3 -o s2.gif 2>err &&
    grep -q "^poyo: ../stamp.png: 75 frames of 2048x2048 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 64 &&
    $POYO sdf --scene "box(0.5,0.9,0.5,0.05)" ../stamp.png --size 128 --max-memory 64MiB -o s2.gif &&
    [ -s p.gif ] && [ -s s2.gif ] && expect_no_file r.gif
'

test_expect_success 'poyo text checks the drawing and the clip against the bound' '
    expect_exit 2 $POYO text hello --size 4096 --max-memory 100MiB -o t.gif 2>err &&
    expect_line err "poyo: drawing the text at 4096x4096 would take about 192 MiB, more than the 100 MiB memory limit; lower --size, or raise --max-memory" &&
    expect_exit 1 $RU cost $POYO text hello --size 2048 --duration 3 -o t.gif 2>err &&
    grep -q "^poyo: hello: 75 frames of 2048x2048 would take about [0-9.]* GiB, more than the 1 GiB memory limit; $LOWER\$" err &&
    [ $(wc -l <err) -eq 1 ] && cost_under cost 2 1024 && expect_no_file t.gif
'

test_expect_success 'check holds decoded frames to --max-memory' '
    "$MKPNG" gif-frames g.gif 1024 1024 20 &&
    expect_exit 1 $RU cost $POYO check -p slack --max-memory 64MiB g.gif 2>err &&
    expect_line err "poyo: g.gif: 20 frames of 1024x1024 would take about 88 MiB, more than the 64 MiB memory limit; raise --max-memory" &&
    cost_under cost 2 64 &&
    $POYO check -p slack --max-memory 128MiB g.gif >out; [ $? -le 1 ] && grep -q "^g.gif: " out
'

SCENE_BOUND="the scene holds more than 64 shapes (a shape repeated along one axis counts 3, along both 9)"
test_expect_success 'a 1 MB scene file is refused at its 65th shape, at once; 64 shapes are drawn' '
    yes "circle(0.5,0.5,0.01)" | head -c 1000000 >big.txt && [ $(wc -c <big.txt) -eq 1000000 ] &&
    expect_exit 2 $RU cost $POYO sdf --scene-file big.txt ../stamp.png -o s.gif 2>err &&
    expect_line err "poyo: big.txt: line 65, column 1: $SCENE_BOUND" &&
    cost_under cost 2 64 && expect_no_file s.gif &&
    expect_exit 2 $RU cost $POYO sdf --scene-file big.txt --render r.png 2>err &&
    expect_line err "poyo: big.txt: line 65, column 1: $SCENE_BOUND" &&
    cost_under cost 2 64 && expect_no_file r.png &&
    expect_exit 2 $POYO sdf --scene "floor(0.9) repeat(0.1,0.1) circle(0.5,0.5,0.01) $(head -n 55 big.txt)" \
        --query 0.5,0.5 2>err &&
    grep -q "^poyo: --scene: line 55, column 1: $SCENE_BOUND\$" err &&
    head -n 64 big.txt >ok.txt && $RU cost $POYO sdf --scene-file ok.txt --render r.png && [ -s r.png ] &&
    cost_under cost 20 64
'

test_expect_success 'a path of more than 1000 waypoints is refused at once; 1000 are drawn' '
    awk "BEGIN { srand(2); for (i = 0; i < 1000; i++) printf \"%.4f,%.4f,%d \", rand(), rand(), int(rand() * 360) - 180 }" >w &&
    $RU cost $POYO path --through "$(cat w)" --svg p.svg && [ -s p.svg ] && cost_under cost 20 64 &&
    expect_exit 2 $RU cost $POYO path --through "$(cat w)" --through "0.5,0.5,0" --svg q.svg 2>err &&
    expect_line err "poyo: --through: more than 1000 waypoints" && cost_under cost 2 64 && expect_no_file q.svg
'

test_expect_success 'every subcommand documents --max-memory; bad sizes are usage errors' '
    for c in animate text rope path sdf check; do
        $POYO $c --help >help && grep -q -- "--max-memory SIZE" help || exit 1
    done &&
    expect_exit 2 $POYO ../stamp.png --max-memory 1K 2>err &&
    expect_line err "poyo: --max-memory: must be 16MiB to 1024GiB, not 1K" &&
    expect_exit 2 $POYO rope ../stamp.png --max-memory lots 2>err &&
    expect_line err "poyo: --max-memory: '"'"'lots'"'"' is not a size (like 128K, 256KiB, 300KB or 2G)" &&
    expect_exit 2 $POYO check -p slack --max-memory 2T x.gif 2>err &&
    expect_line err "poyo: --max-memory: '"'"'2T'"'"' is not a size (like 128K, 256KiB, 300KB or 2G)"
'

test_done
