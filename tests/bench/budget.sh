#!/bin/sh
# budget.sh POYO - every preset x impulse over the Twemoji corpus: the share of
# files that pass the preset's own `poyo check`, the worst bytes against the
# preset's limit, the PSNR the --max-bytes search lost against the file made
# without a budget (median and worst, dB, as --json reports it) and the
# median time per file. A cell passes when every file was made and passes its
# check within the limit.
# To stay within minutes each cell takes every BUDGET_EVERY-th corpus file
# (default 21), the sample starting one file later for each impulse so the
# impulses of a preset see different files; BUDGET_EVERY=1 takes them all.
poyo=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${CORPUS:-$here/../shared/corpus}/twemoji64
work=$here/build/bench/budget
every=${BUDGET_EVERY:-21}
presets=${BUDGET_PRESETS:-"slack discord discord-sticker line line-emoji telegram telegram-emoji teams mastodon signal whatsapp"}
impulses=${BUDGET_IMPULSES:-"jump drop squash stretch poke shake twist wave pat"}
if [ ! -d "$corpus" ]; then
    echo "budget bench: corpus not found at $corpus; nothing to measure"
    exit 0
fi
total=$(ls "$corpus"/*.png | wc -l)
echo "== --max-bytes: every preset x impulse on the Twemoji corpus ($total files; a cell takes one file in ${every}, =="
echo "   the sample shifted by one file per impulse; PSNR lost is against the file made without a budget) =="
printf '%-16s %-8s %6s %7s %9s %9s %8s %6s %8s\n' preset impulse files pass "worst B" "/limit" "lost med" worst ms/file
rm -rf "$work"
mkdir -p "$work"
cells=0
bad=0
k=0
for imp in $impulses; do
    for p in $presets; do
        limit=$("$poyo" check --list-presets | awk -v p="$p" '$1 == p { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $i >= 1000) { print $i; exit } }')
        in=$work/in-$p-$imp
        out=$work/out-$p-$imp
        mkdir -p "$in" "$out"
        ls "$corpus"/*.png | awk -v n="$every" -v k="$k" '(NR - 1 + k) % n == 0' | while read -r f; do
            ln -s "$f" "$in/"
        done
        nice "$poyo" "$in" -p "$p" -i "$imp" -o "$out/" -j 2 --json -q >"$work/lines" 2>"$work/err"
        made=$(grep -c '"status": "ok"' "$work/lines")
        asked=$(ls "$in" | wc -l)
        pass=0
        for o in "$out"/*; do
            [ -f "$o" ] && "$poyo" check -q -p "$p" "$o" >/dev/null 2>&1 && pass=$((pass + 1))
        done
        cells=$((cells + 1))
        awk -v p="$p" -v imp="$imp" -v asked="$asked" -v made="$made" -v pass="$pass" -v limit="$limit" '
            /"status": "ok"/ {
                match($0, /"bytes": [0-9]+/); b = substr($0, RSTART + 9, RLENGTH - 9) + 0
                match($0, /"psnr_lost": -?[0-9.]+/); l = substr($0, RSTART + 13, RLENGTH - 13) + 0
                match($0, /"milliseconds": [0-9.]+/); t = substr($0, RSTART + 16, RLENGTH - 16) + 0
                n++; if (b > worst) worst = b; lost[n] = l; ms[n] = t
            }
            function med(a, n,   i, j, x) {
                for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            END {
                ok = made == asked && pass == asked && worst <= limit
                wl = 0; for (i = 1; i <= n; i++) if (lost[i] > wl) wl = lost[i]
                printf "%-16s %-8s %6d %6.0f%% %9d %9.3f %8.2f %6.2f %8.0f  %s\n", p, imp, asked,
                    asked ? 100 * pass / asked : 0, worst, limit ? worst / limit : 0,
                    n ? med(lost, n) : 0, wl, n ? med(ms, n) : 0, ok ? "pass" : "FAIL"
                exit ok ? 0 : 1
            }' "$work/lines" || { bad=$((bad + 1)); sed 's/^/    /' "$work/err" | head -n 3; }
    done
    k=$((k + 1))
done
echo "$((cells - bad)) of $cells cells pass"
