#!/bin/sh
# bench.sh POYO TOOLS - the numbers `make bench` prints: time per stage, the
# whole process (64, 512 and 1024 px inputs; median and quartiles), peak
# memory, GIF bytes, PSNR and time side by side with ffmpeg, gifsicle (-O3,
# --lossy) and ImageMagick on the same frames with ratios to poyo's, APNG and
# WebP encodes as ratios to the GIF encode of the same frames, poyo's GIF
# writer against giflib's and cgif's on the same palette indices, the whole
# process of the APNG presets per file, and batch throughput. Peers and the full Twemoji set are skipped with a message when
# they are not on the machine.
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
echo "== whole process: poyo IN --size 128 --duration 2 (21 runs: median, p25-p75) =="
# median and quartiles of the numbers on standard input
spread() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f ms (%.1f-%.1f)", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'; }
for f in "$corpus/twemoji64/1f600.png" "$corpus/openmoji512/1F600.png" "$work/big1024.png"; do
    if [ "$f" = "$work/big1024.png" ]; then
        # a 1024 px input: the OpenMoji stamp drawn at twice its size
        "$poyo" "$corpus/openmoji512/1F600.png" --size 1024 --fit none --duration 0.1 --fps 10 --frames "$work/big" -q -f >/dev/null &&
            cp "$work/big/frame_0000.png" "$f" || continue
    fi
    i=0
    : >"$work/times"
    while [ $i -lt 21 ]; do
        # timed by rusage (fork, exec, wait), not by date(1) on both sides,
        # whose own two processes added about 2 ms to every run
        "$tools/rusage" "$work/ru" "$poyo" "$f" --size 128 --duration 2 -o "$work/w.gif" -f -q
        awk '{ print $1 * 1000 }' "$work/ru" >>"$work/times"
        i=$((i + 1))
    done
    rss=$( { /usr/bin/time -f "%M" "$poyo" "$f" --size 128 --duration 2 -o "$work/w.gif" -f -q; } 2>&1 | tail -n 1)
    printf '%-20s %-28s peak RSS %s KB\n' "$(basename "$f")" "$(spread <"$work/times")" "$rss"
done

echo
echo "== GIF at 128 px, 2 s, 25 fps, on the same RGBA frames: poyo and its peers, side by side =="
echo "   (PSNR in dB over mid-grey; ms = median of 3 runs of the whole encoder process; ratios are peer / poyo)"
have() { command -v "$1" >/dev/null 2>&1; }
have_ffmpeg=0; have ffmpeg && have_ffmpeg=1
have_gifsicle=0; have gifsicle && have_gifsicle=1
have_magick=0
if have magick && magick -version 2>/dev/null | grep -q ImageMagick; then magick=magick; have_magick=1
elif have convert && convert -version 2>/dev/null | grep -q ImageMagick; then magick=convert; have_magick=1; fi
[ $have_ffmpeg = 1 ] || echo "   ffmpeg not installed: its rows are skipped (apt-get install ffmpeg)"
[ $have_gifsicle = 1 ] || echo "   gifsicle not installed: its rows are skipped (apt-get install gifsicle)"
[ $have_magick = 1 ] || echo "   ImageMagick not installed: its rows are skipped (apt-get install imagemagick)"
# time3 OUT CMD...: runs CMD three times, writes the median milliseconds to OUT
time3() {
    out=$1; shift
    : >"$work/t3"
    for k in 1 2 3; do
        t0=$(ms_now); "$@" || return 1; t1=$(ms_now)
        echo $(((t1 - t0) / 1000)) >>"$work/t3"
    done
    sort -n "$work/t3" | sed -n 2p | awk '{ print $1 / 1000 }' >"$out"
}
: >"$work/rows"
for e in 1f600 1f36e 1f431 1f680 2764-fe0f 1f4a9 1f984 1f438; do
    src="$corpus/twemoji64/$e.png"
    [ -f "$src" ] || continue
    rm -rf "$work/fr"
    "$poyo" "$src" --size 128 --duration 2 --frames "$work/fr" -q -f
    row() { # ENCODER FILE MS
        set -- "$1" "$3" $("$tools/psnr" 25 "$work/fr" "$2")
        echo "$e $1 $5 $3 $2" >>"$work/rows"
    }
    time3 "$work/ms" "$poyo" "$src" --size 128 --duration 2 -o "$work/p.gif" -f -q && row poyo "$work/p.gif" "$(cat "$work/ms")"
    for l in 5 10 15 20; do
        time3 "$work/ms" "$poyo" "$src" --size 128 --duration 2 --lossy-gif $l -o "$work/pl.gif" -f -q &&
            row "poyo-lossy-gif-$l" "$work/pl.gif" "$(cat "$work/ms")"
    done
    if [ $have_gifsicle = 1 ]; then
        for l in 20 40 80; do
            time3 "$work/ms" gifsicle -O3 --lossy=$l "$work/p.gif" -o "$work/pl.gif" &&
                row "poyo+gifsicle-lossy$l" "$work/pl.gif" "$(awk -v a="$(cat "$work/ms")" -v b="$(grep "^$e poyo " "$work/rows" | cut -d' ' -f5)" 'BEGIN { print a + b }')"
        done
    fi
    if [ $have_ffmpeg = 1 ]; then
        time3 "$work/ms" ffmpeg -v error -y -framerate 25 -i "$work/fr/frame_%04d.png" \
            -vf "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse" -loop 0 "$work/f.gif" &&
            row ffmpeg "$work/f.gif" "$(cat "$work/ms")"
        if [ $have_gifsicle = 1 ]; then
            time3 "$work/ms" gifsicle -O3 "$work/f.gif" -o "$work/g.gif" &&
                row "ffmpeg+gifsicle-O3" "$work/g.gif" "$(awk -v a="$(cat "$work/ms")" -v b="$(grep "^$e ffmpeg " "$work/rows" | cut -d' ' -f5)" 'BEGIN { print a + b }')"
        fi
    fi
    if [ $have_magick = 1 ]; then
        time3 "$work/ms" $magick -delay 4 -dispose background "$work/fr/frame_*.png" -loop 0 "$work/m.gif" &&
            row imagemagick "$work/m.gif" "$(cat "$work/ms")"
    fi
done
# per encoder: mean bytes, PSNR and ms over the stamps, and the ratios to poyo's
awk '
    { n[$2]++; b[$2] += $3; g[$2] += $4; t[$2] += $5; if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
    END {
        printf "%-22s %9s %7s %8s %9s %9s %8s\n", "encoder", "bytes", "dB", "ms", "bytes/p", "dB-p", "ms/p"
        for (i = 1; i <= k; i++) {
            e = order[i]
            printf "%-22s %9.0f %7.2f %8.1f %9.3f %+9.2f %8.2f\n", e, b[e] / n[e], g[e] / n[e], t[e] / n[e],
                b[e] / b["poyo"], g[e] / n[e] - g["poyo"] / n["poyo"], t[e] / t["poyo"]
        }
    }' "$work/rows"
if [ $have_gifsicle = 1 ]; then
    # lossy GIF, poyo against gifsicle over poyo's exact GIF: poyo's mean bytes at each of
    # gifsicle's mean PSNRs, read off poyo's own levels (linear between the two around it)
    echo "lossy GIF at the same PSNR (mean over the stamps; poyo's bytes between its two levels around that PSNR):"
    awk '
        { n[$2]++; b[$2] += $3; g[$2] += $4 }
        END {
            for (e in n) { b[e] /= n[e]; g[e] /= n[e] }
            split("0 5 10 15 20", lv, " ")
            for (s = 20; s <= 80; s *= 2) {
                e = "poyo+gifsicle-lossy" s
                if (!(e in n)) continue
                for (i = 1; i < 5; i++) {
                    hi = i == 1 ? "poyo" : "poyo-lossy-gif-" lv[i]; lo = "poyo-lossy-gif-" lv[i + 1]
                    if (g[hi] >= g[e] && g[lo] <= g[e] && g[hi] > g[lo]) {
                        pb = b[lo] + (b[hi] - b[lo]) * (g[e] - g[lo]) / (g[hi] - g[lo])
                        printf "   gifsicle --lossy=%-3d %7.0f B at %.2f dB; poyo %7.0f B there: x%.3f\n", s, b[e], g[e], pb, pb / b[e]
                        break
                    }
                }
                if (i == 5) printf "   gifsicle --lossy=%-3d %7.0f B at %.2f dB: outside poyo'"'"'s levels\n", s, b[e], g[e]
            }
        }' "$work/rows"
fi

echo
echo "== encoders on the same frames: median ms of 9 encodes (quartiles), bytes, and the median as a ratio to GIF's =="
echo "   (GIF includes its palette; each encoder on one thread, then on two (2t) as a single file is written, each"
echo "   ratio to the GIF on as many threads; the 512 px"
echo "   clips are those -p signal and -p whatsapp draw, the 320 px one -p discord-sticker's; the goal: at most x3) =="
"$tools/encbench" -n 9 -s 128 "$corpus/twemoji64/1f600.png"
"$tools/encbench" -n 9 -p signal "$corpus/twemoji64/1f600.png"
"$tools/encbench" -n 9 -p whatsapp "$corpus/twemoji64/1f600.png"
"$tools/encbench" -n 9 -p discord-sticker "$corpus/openmoji512/1F600.png"

echo
echo "== GIF writers on the same palette indices: median ms of 9 writes (quartiles), bytes, ratios to poyo's =="
echo "   (giflib and cgif write whole frames: neither plans changed areas of frames that carry transparency) =="
"$tools/gifbench" -n 9 -s 128 "$corpus/twemoji64/1f600.png"
"$tools/gifbench" -n 9 -s 512 "$corpus/openmoji512/1F600.png"

echo
echo "== the APNG presets, whole process per file: the OpenMoji and four Twemoji (median s, p25-p75) =="
for p in signal discord-sticker; do
    : >"$work/times"
    for f in "$corpus"/openmoji512/*.png "$corpus"/twemoji64/1f600.png "$corpus"/twemoji64/1f36e.png \
        "$corpus"/twemoji64/1f431.png "$corpus"/twemoji64/1f680.png; do
        [ -f "$f" ] || continue
        t0=$(ms_now)
        "$poyo" "$f" -p "$p" -o "$work/preset.png" -f -q || continue
        t1=$(ms_now)
        echo $(((t1 - t0) / 1000000)) | awk '{ print $1 / 1000 }' >>"$work/times"
    done
    printf '%-20s %s files: ' "-p $p" "$(wc -l <"$work/times")"
    sort -n "$work/times" | awk '{ v[NR] = $1 } END { printf "%.2f s (%.2f-%.2f)\n", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
done

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
