#!/bin/sh
# bench.sh POYO TOOLS - the numbers `make bench` prints: time per stage, the
# whole process, peak memory, GIF bytes and PSNR against ffmpeg and gifsicle
# on the same frames, and batch throughput. Peers and the full Twemoji set are
# skipped with a message when they are not on the machine.
poyo=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tools=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${CORPUS:-$here/../shared/corpus}
work=$here/build/bench
mkdir -p "$work"
if [ ! -d "$corpus/twemoji64" ]; then
    echo "bench: corpus not found at $corpus; nothing to measure"
    exit 0
fi

ms_now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== stages (median of 15 runs, ms; render on 1 thread, then on 2 as a single file is) =="
"$tools/stagebench" -n 15 -s 128 -d 2 "$corpus/twemoji64/1f600.png"
"$tools/stagebench" -n 15 -s 128 -d 2 -t 2 "$corpus/twemoji64/1f600.png"
"$tools/stagebench" -n 15 -s 128 -d 2 "$corpus/openmoji512/1F600.png"
"$tools/stagebench" -n 15 -s 128 -d 2 -t 2 "$corpus/openmoji512/1F600.png"

echo
echo "== whole process: poyo IN --size 128 --duration 2 (median of 21 runs) =="
for f in "$corpus/twemoji64/1f600.png" "$corpus/openmoji512/1F600.png"; do
    i=0
    : >"$work/times"
    while [ $i -lt 21 ]; do
        t0=$(ms_now)
        "$poyo" "$f" --size 128 --duration 2 -o "$work/w.gif" -f -q
        t1=$(ms_now)
        echo $(((t1 - t0) / 1000)) >>"$work/times"
        i=$((i + 1))
    done
    med=$(median <"$work/times")
    rss=$( { /usr/bin/time -f "%M" "$poyo" "$f" --size 128 --duration 2 -o "$work/w.gif" -f -q; } 2>&1 | tail -n 1)
    printf '%-32s %8.1f ms  peak RSS %s KB\n' "$(basename "$f")" "$(echo "$med" | awk '{ print $1 / 1000 }')" "$rss"
done

echo
echo "== GIF quality and size at 128 px, 2 s, 25 fps, on the same RGBA frames =="
echo "   (PSNR in dB over mid-grey / over white; ms = encoding time)"
printf '%-22s %-9s %9s %7s %7s %8s\n' stamp encoder bytes grey white ms
have_ffmpeg=0
command -v ffmpeg >/dev/null 2>&1 && have_ffmpeg=1
have_gifsicle=0
command -v gifsicle >/dev/null 2>&1 && have_gifsicle=1
[ $have_ffmpeg = 1 ] || echo "   ffmpeg not installed: its rows are skipped"
[ $have_gifsicle = 1 ] || echo "   gifsicle not installed: its rows are skipped"
sum() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
tp=0; tf=0; tg=0; bp=0; bf=0; bg=0; gp=0; gf=0; gg=0; n=0
for e in 1f600 1f36e 1f431 1f680 2764-fe0f 1f4a9 1f984 1f438; do
    src="$corpus/twemoji64/$e.png"
    [ -f "$src" ] || continue
    rm -rf "$work/fr"
    "$poyo" "$src" --size 128 --duration 2 --frames "$work/fr" -q -f
    t0=$(ms_now)
    "$poyo" "$src" --size 128 --duration 2 -o "$work/p.gif" -f -q
    t1=$(ms_now)
    set -- $("$tools/psnr" 25 "$work/fr" "$work/p.gif")
    printf '%-22s %-9s %9s %7s %7s %8s\n' "$e" poyo "$3" "$1" "$2" $(((t1 - t0) / 1000000))
    n=$((n + 1)); gp=$(sum $gp $1); bp=$(sum $bp $3)
    if [ $have_ffmpeg = 1 ]; then
        t0=$(ms_now)
        ffmpeg -v error -y -framerate 25 -i "$work/fr/frame_%04d.png" \
            -vf "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse" -loop 0 "$work/f.gif"
        t1=$(ms_now)
        set -- $("$tools/psnr" 25 "$work/fr" "$work/f.gif")
        printf '%-22s %-9s %9s %7s %7s %8s\n' "" ffmpeg "$3" "$1" "$2" $(((t1 - t0) / 1000000))
        gf=$(sum $gf $1); bf=$(sum $bf $3)
        if [ $have_gifsicle = 1 ]; then
            t0=$(ms_now)
            gifsicle -O3 "$work/f.gif" -o "$work/g.gif"
            t1=$(ms_now)
            set -- $("$tools/psnr" 25 "$work/fr" "$work/g.gif")
            printf '%-22s %-9s %9s %7s %7s %8s\n' "" "gifsicle" "$3" "$1" "$2" $(((t1 - t0) / 1000000))
            gg=$(sum $gg $1); bg=$(sum $bg $3)
        fi
    fi
done
if [ $n -gt 0 ]; then
    awk -v n=$n -v gp=$gp -v bp=$bp 'BEGIN { printf "mean poyo:     %9.0f bytes  %.2f dB grey\n", bp / n, gp / n }'
    [ $have_ffmpeg = 1 ] && awk -v n=$n -v g=$gf -v b=$bf 'BEGIN { printf "mean ffmpeg:   %9.0f bytes  %.2f dB grey\n", b / n, g / n }'
    [ $have_ffmpeg = 1 ] && [ $have_gifsicle = 1 ] &&
        awk -v n=$n -v g=$gg -v b=$bg 'BEGIN { printf "mean gifsicle: %9.0f bytes  %.2f dB grey (-O3 on ffmpeg'"'"'s GIF)\n", b / n, g / n }'
fi

echo
echo "== batch: the corpus's $(ls "$corpus"/twemoji64/*.png | wc -l) Twemoji at 64 px, -j 2 =="
rm -rf "$work/out"
t0=$(ms_now)
"$poyo" "$corpus/twemoji64" -o "$work/out/" -j 2 -q
t1=$(ms_now)
cnt=$(ls "$work/out" | wc -l)
awk -v c=$cnt -v t=$(((t1 - t0) / 1000000)) 'BEGIN { printf "%d files in %.2f s, %.1f files/s\n", c, t / 1000, c / (t / 1000) }'

full=$work/twemoji-full/package/img/twitter/64
if [ ! -d "$full" ] && command -v npm >/dev/null 2>&1; then
    mkdir -p "$work/twemoji-full"
    (cd "$work/twemoji-full" && npm pack emoji-datasource-twitter@16.0.0 >/dev/null 2>&1 &&
        tar xzf emoji-datasource-twitter-16.0.0.tgz package/img/twitter/64 2>/dev/null) || true
fi
if [ -d "$full" ]; then
    echo
    echo "== batch: the full Twemoji set, $(ls "$full" | wc -l) files at 64 px, -j 2 =="
    rm -rf "$work/full-out"
    t0=$(ms_now)
    rss=$( { /usr/bin/time -f "%M" "$poyo" "$full" -o "$work/full-out/" -j 2 -q; } 2>&1 | tail -n 1)
    t1=$(ms_now)
    cnt=$(ls "$work/full-out" | wc -l)
    awk -v c=$cnt -v t=$(((t1 - t0) / 1000000)) -v r=$rss 'BEGIN { printf "%d files in %.1f s, %.1f files/s, peak RSS %d KB\n", c, t / 1000, c / (t / 1000), r }'
    mkdir -p "$work/first100" "$work/first3000"
    ls "$full" | head -n 100 | while read -r f; do ln -sf "$full/$f" "$work/first100/$f"; done
    ls "$full" | head -n 3000 | while read -r f; do ln -sf "$full/$f" "$work/first3000/$f"; done
    for k in 100 3000; do
        rm -rf "$work/o$k"
        rss=$( { /usr/bin/time -f "%M" "$poyo" "$work/first$k" -o "$work/o$k/" -j 2 -q; } 2>&1 | tail -n 1)
        echo "peak RSS after $k files: $rss KB"
    done
else
    echo
    echo "full Twemoji set not found (npm pack emoji-datasource-twitter@16.0.0 failed or npm is missing): skipped"
fi
echo && sh "$here/tests/bench/motion.sh" "$poyo" "$tools"
