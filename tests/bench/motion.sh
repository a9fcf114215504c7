#!/bin/sh
# motion.sh POYO TOOLS - how each impulse moves a stamp, measured from the frames alone
# (TOOLS/motionstats, F from the render grid of the same clip, --exact): poyo runs every impulse at -s 128 on a sample of the Twemoji corpus
# (every STEP-th file, STEP=5 unless MOTION_STEP says otherwise, plus three round faces) and
# on the tall and wide shapes of tests/data, and one table shows each figure per impulse as
# median/worst, where worst is the clip farthest on the failing side of the goal (or the
# lowest/highest value when no clip has one). A trailing ! marks a worst that misses it.
# A second table counts the clips that miss each goal.
# Without the corpus, every image in tests/data is used instead.
poyo=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tools=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${CORPUS:-$here/../shared/corpus}
step=${MOTION_STEP:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/poyo-motion.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

data=$here/tests/data
echo "== motion: figures measured from the frames (tests/tools/motionstats), -s 128 =="
mkdir -p "$work/in"
if [ -d "$corpus/twemoji64" ]; then
    echo "motion: Twemoji corpus at $corpus/twemoji64, every ${step}th file plus three round faces"
    LC_ALL=C ls "$corpus/twemoji64" | grep '\.png$' | awk -v s="$step" '(NR - 1) % s == 0' >"$work/pick"
    for f in 1f600 1f60d 1f62d; do echo "$f.png"; done >>"$work/pick"
    LC_ALL=C sort -u "$work/pick" | while read -r f; do
        [ -f "$corpus/twemoji64/$f" ] && ln -sf "$corpus/twemoji64/$f" "$work/in/$f"
    done
    round="1f600 1f60d 1f62d"
else
    echo "motion: corpus not found at $corpus/twemoji64; measuring the images in tests/data"
    for f in "$data"/*.png; do
        case $(basename "$f") in 2757*) ;; *) ln -sf "$f" "$work/in/$(basename "$f")" ;; esac
    done
    round="1f600 1f431"
fi
# the long shapes always come from tests/data (names kept apart from the corpus's 2757.png)
ln -sf "$data/2757.png" "$work/in/tall-2757.png"
ln -sf "$data/2757-wide.png" "$work/in/wide-2757.png"

impulses="squash stretch poke shake twist jump drop wave pat"
free="squash stretch poke shake twist wave pat"
strong="--volume 0.8"
# each impulse's default and largest strength
"$poyo" --list-impulses | awk 'NR > 1 { print $1, $2, $3 }' >"$work/strengths"
# top_of IMPULSE: the strength its IMPULSE/max rows ask, its largest but at most 0.6
top_of() { awk -v i="$1" '$1 == i { print ($3 < 0.6 ? $3 : 0.6) }' "$work/strengths"; }

# one job per impulse and input: frames, then the figures; the in-place
# impulses once more on a free body (--anchor none, rows named IMPULSE/free),
# every impulse at the top of its range (its largest strength, at most 0.6)
# with the most area kept ($strong, rows IMPULSE/max and, for the in-place
# ones on a free body, IMPULSE/max/free), where only the area (the landing's
# for jump and drop) and the clean body are judged, and
# every impulse at half and twice its default strength (--list-impulses; twice
# at most its largest), rows IMPULSE/half and IMPULSE/twice, where only the
# strength is judged, and a poke from the side (--at 0.15,0.5, row
# poke/side), where only the dent is judged, on the round faces
for imp in $impulses; do
    for f in "$work"/in/*.png; do echo "$imp $f"; done
done >"$work/jobs"
for imp in $impulses; do
    half=$(awk -v i="$imp" '$1 == i { print $2 / 2 }' "$work/strengths")
    twice=$(awk -v i="$imp" '$1 == i { print (2 * $2 < $3 ? 2 * $2 : $3) }' "$work/strengths")
    for f in "$work"/in/*.png; do echo "$imp $f half $half"; echo "$imp $f twice $twice"; done
done >>"$work/jobs"
for imp in $free; do
    for f in "$work"/in/*.png; do echo "$imp $f free"; done
done >>"$work/jobs"
for imp in $impulses; do
    top=$(top_of "$imp")
    for f in "$work"/in/*.png; do echo "$imp $f max $top"; done
done >>"$work/jobs"
for imp in $free; do
    top=$(top_of "$imp")
    for f in "$work"/in/*.png; do echo "$imp $f maxfree $top"; done
done >>"$work/jobs"
for f in "$work"/in/*.png; do echo "poke $f side"; done >>"$work/jobs"
nclips=$(wc -l <"$work/jobs")
echo "motion: $nclips clips (9 impulses, 7 on a free body, each at the top of its range, held and free, 9 at half and twice their strength, a poke from the side, x $(ls "$work/in" | wc -l) stamps), 2 at a time"
t0=$(date +%s)
mkdir -p "$work/res"
xargs -P 2 -L 1 sh -c '
    poyo=$1 tools=$2 work=$3 strong=$4 imp=$5 f=$6 variant=$7 strength=$8
    name=$(basename "$f" .png)
    row=$imp opts="-s 128 -i $imp" at=""
    [ "$variant" = free ] && row=$imp/free opts="$opts --anchor none"
    [ "$variant" = max ] && row=$imp/max opts="$opts --strength $strength $strong"
    [ "$variant" = maxfree ] && row=$imp/max/free opts="$opts --strength $strength $strong --anchor none"
    [ "$variant" = half ] || [ "$variant" = twice ] && row=$imp/$variant opts="$opts --strength $strength"
    [ "$variant" = side ] && row=$imp/side opts="$opts --at 0.15,0.5" at="--at 0.15,0.5"
    dir=$work/fr-$imp$variant-$name
    per=""
    [ "$imp" = wave ] || [ "$imp" = pat ] && per=--periodic
    [ "$imp" = jump ] || [ "$imp" = drop ] && per=--landing
    if "$poyo" "$f" $opts --frames "$dir" -q -f --json >"$dir.json" &&
        "$tools/motionstats" --impulse "$imp" --input "$f" $per $at --exact "$opts" "$dir" >"$dir.txt"; then
        # the strength poyo took (its default grows on a wide stamp for some impulses)
        asked=$(sed -n "s/.*\"strength\": \([-0-9.e+]*\).*/\1/p" "$dir.json")
        { echo "clip $row $name"; echo "asked $asked"; cat "$dir.txt"; } >"$work/res/$imp$variant-$name.txt"
    else
        echo "motion: $row on $name failed" >&2
    fi
    rm -rf "$dir" "$dir.txt" "$dir.json"
' motion-job "$poyo" "$tools" "$work" "$strong" <"$work/jobs"
t1=$(date +%s)
echo "motion: measured in $((t1 - t0)) s"
echo

cat "$work"/res/*.txt | awk -v impulses="$impulses" -v free="$free" -v strong="$strong" -v round="$round" -v sfile="$work/strengths" '
function isnum(v) { return v != "nan" && v != "inf" && v != "-nan" && v != "" }
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return ""
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(v, col) {
    if (v == "") return "-"
    if (col ~ /^(edge|parts|holes|twink|incnv|sprd)$/) return sprintf("%.0f", v)
    if (col ~ /^(kink|axis)$/) return sprintf("%.1f", v)
    if (col ~ /^(srat)$/) return sprintf("%.1f", v)
    return sprintf("%.2f", v)
}
# goal of figure col for this clip: sets G_op (">=", "<=", "in", "") and G_a, G_b
function goal(col, imp, name, long, med,   jd, maxrow, strrow) {
    maxrow = imp ~ /\/max(\/free)?$/
    strrow = imp ~ /\/(half|twice)$/
    siderow = imp ~ /\/side$/
    sub(/\/.*$/, "", imp)
    G_op = ""; jd = (imp == "jump" || imp == "drop")
    if (col == "size") { G_op = ">="; G_a = long && jd ? 0.6 : jd ? 0.75 : 0.85 }
    else if (col == "edge") { G_op = "<="; G_a = 0 }
    else if (col == "move") { G_op = ">="; G_a = 0.75 }
    else if (col == "peak") { G_op = ">="; G_a = (imp ~ /^(squash|stretch|jump|drop)$/) ? 0.10 : 0.06 }
    else if (col == "str") { G_op = "in"; G_a = 0.85; G_b = 1.15 }
    else if (col == "jelly") {
        if (isround[name] && imp == "poke") { G_op = ">="; G_a = 0.50 }
        else if (isround[name] && (imp == "squash" || imp == "twist")) { G_op = ">="; G_a = 0.32 }
    }
    # the dent is a poke figure (a pat lays a palm over the top, and on a free
    # body the far side goes down with it); from the side on the round faces,
    # where the two points are a face apart
    else if (col == "dent") { if (imp == "poke" && (!siderow || isround[name])) { G_op = ">="; G_a = 3 } }
    else if (col == "area") { if (!jd) { G_op = "<="; G_a = 0.05 } }
    else if (col == "land") { G_op = "<="; G_a = 0.08 }
    else if (col == "parts" || col == "holes") { G_op = "<="; G_a = 0 }
    else if (col == "kink") { G_op = "<="; G_a = 30 }
    else if (col == "srat") { G_op = "<="; G_a = 3 }
    else if (col == "seam") { G_op = "<="; G_a = imp ~ /^(wave|pat)/ ? 1.25 : med > 1 ? med : 1 }
    else if (col == "axis") { if (jd) { G_op = "<="; G_a = 10 } }
    else if (col == "incnv") { if (imp !~ /^(wave|pat)$/) { G_op = ">="; G_a = 1 } }
    else if (col == "sharp") { G_op = ">="; G_a = 0.95 }
    else if (col == "twink") { G_op = "<="; G_a = 0 }
    if (maxrow && col !~ /^(area|land|parts|holes|kink)$/) G_op = ""
    if (strrow && col != "str") G_op = ""
    if (siderow && col != "dent") G_op = ""
}
# how far past its goal a value is (positive = misses)
function miss(v) {
    if (G_op == ">=") return G_a - v
    if (G_op == "<=") return v - G_a
    if (G_op == "in") return (v < G_a ? G_a - v : v > G_b ? v - G_b : -((v - G_a) < (G_b - v) ? v - G_a : G_b - v))
    return 0
}
BEGIN {
    ncol = split("size edge move peak str jelly dent sprd area land parts holes kink srat seam axis incnv sharp twink flow", cols, " ")
    key["size"] = "size_ratio"; key["edge"] = "edge_touch"; key["move"] = "moving_fraction"
    key["peak"] = "peak_d_rel"; key["str"] = "strength"; key["jelly"] = "jelly"; key["dent"] = "dent_ratio"
    key["sprd"] = "dent_spread"; key["area"] = "area_dev"; key["land"] = "area_dev_landing"
    key["parts"] = "parts_changed"; key["holes"] = "holes_new"; key["kink"] = "kink_new"
    key["srat"] = "step_ratio"; key["seam"] = "seam"; key["axis"] = "axis_dev_max"
    key["incnv"] = "in_canvas"; key["sharp"] = "sharp_min"; key["twink"] = "twinkle"; key["flow"] = "flow_error"
    # the side that is bad when no goal applies: low (-1) or high (+1)
    bad["size"] = -1; bad["edge"] = 1; bad["move"] = -1; bad["peak"] = -1; bad["str"] = -1
    bad["jelly"] = -1; bad["dent"] = -1; bad["sprd"] = -1; bad["area"] = 1; bad["land"] = 1
    bad["parts"] = 1; bad["holes"] = 1; bad["kink"] = 1; bad["srat"] = 1; bad["seam"] = 1
    bad["axis"] = 1; bad["incnv"] = -1; bad["sharp"] = -1; bad["twink"] = 1; bad["flow"] = 1
    n = split(round, r, " "); for (i = 1; i <= n; i++) isround[r[i]] = 1
    while ((getline line < sfile) > 0) { split(line, p, " "); req[p[1]] = p[2] }
}
function flush(   c, col, v, long) {
    if (cimp == "") return
    long = (F["w0"] >= 3 * F["h0"] || F["h0"] >= 3 * F["w0"])
    nclip[cimp]++
    for (c = 1; c <= ncol; c++) {
        col = cols[c]; v = F[key[col]]
        # the seam of a periodic clip is judged against the two steps beside it
        if (col == "seam" && cimp ~ /^(wave|pat)/) v = F["seam_ratio"]
        # the strength a max row asked is its own, not the default
        if (col == "str" && isnum(v) && !isnum(F["asked"]) && cimp ~ /\/max(\/free)?$/) continue
        if (col == "str" && isnum(v)) { base = cimp; sub(/\/.*$/, "", base); v = v / (isnum(F["asked"]) ? F["asked"] : req[base]) }
        if (!isnum(v)) continue
        vals[cimp, col] = vals[cimp, col] " " v
        goal(col, cimp, cname, long, F["step_median"])
        m = G_op == "" ? bad[col] * v : miss(v)
        hasgoal = G_op != ""
        if (hasgoal) { ngoal[cimp, col]++; if (m > 1e-9) nmiss[cimp, col]++ }
        # a clip with a goal outranks any without one
        if (!((cimp, col) in wm) || hasgoal > wg[cimp, col] || (hasgoal == wg[cimp, col] && m > wm[cimp, col])) {
            wm[cimp, col] = m; wv[cimp, col] = v; wg[cimp, col] = hasgoal
            wf[cimp, col] = hasgoal && m > 1e-9
            wn[cimp, col] = cname
        }
    }
    delete F
}
$1 == "clip" { flush(); cimp = $2; cname = $3; next }
{ F[$1] = $2 }
END {
    flush()
    printf "%-16s %3s", "impulse", "n"
    for (c = 1; c <= ncol; c++) printf " %11s", cols[c]
    printf "\n%-16s %3s", "goal", ""
    split(">=.85 =0 >=.75 >=.10/.06 0.85-1.15 >=.50/.32 >=3 - <=.05 <=.08 =0 =0 <=30 <=3 <=max(s,1)/1.25 <=10 =1 >=.95 =0 -", gl, " ")
    for (c = 1; c <= ncol; c++) printf " %11s", gl[c]
    printf "\n"
    n = split(impulses, imps, " ")
    nh = split(impulses, hi, " ")
    nf = split(free, fr, " ")
    for (i = 1; i <= nf; i++) imps[n + i] = fr[i] "/free"
    n += nf
    for (i = 1; i <= nh; i++) imps[++n] = hi[i] "/max"
    for (i = 1; i <= nf; i++) imps[++n] = fr[i] "/max/free"
    for (i = 1; i <= nh; i++) { imps[++n] = hi[i] "/half"; imps[++n] = hi[i] "/twice" }
    imps[++n] = "poke/side"
    for (i = 1; i <= n; i++) {
        imp = imps[i]
        printf "%-16s %3d", imp, nclip[imp]
        for (c = 1; c <= ncol; c++) {
            col = cols[c]
            if (!((imp, col) in wv)) { printf " %11s", "-"; continue }
            cell = fmt(median(vals[imp, col]), col) "/" fmt(wv[imp, col], col) (wf[imp, col] ? "!" : "")
            printf " %11s", cell
            if (wf[imp, col]) wl = wl sprintf(" %s %s", col, wn[imp, col])
        }
        printf "\n"
        if (wl != "") worst = worst sprintf("  %-16s%s\n", imp, wl)
        wl = ""
    }
    print ""
    print "size: size_ratio (goal .85; jump, drop .75, of shapes 3:1 or longer .6)   edge: frames touching the canvas edge"
    print "move: moving_fraction   peak: peak_d_rel (goal .10 squash stretch jump drop, .06 the others)"
    print "str: strength / the strength poyo took (its --json)   jelly: goal on round faces (" round "), .50 poke, .32 squash twist"
    print "dent, sprd: dent_ratio, dent_spread (poke, pat; goal poke)   area: area_dev (no goal for jump, drop)   land: area_dev_landing"
    print "parts, holes: frames that tear a part off or run two together, or open a hole (seen through, alpha < 64, where the body was opaque)   kink: kink_new (degrees the outline turns past rest where it was smooth)   srat: step_ratio   seam: seam (px; wave, pat: over the steps beside it)"
    print "axis: axis_dev_max (degrees a shape with a 2:1 second-moment ratio turns: its body, and its principal axis when within 30 of upright or level; goal from touchdown, jump and drop)"
    print "incnv: in_canvas, back at rest by the last frame (one-shot clips)   sharp: sharp_min   IMPULSE/free: --anchor none"
    print "IMPULSE/max: the largest --strength (--list-impulses), at most 0.6, at " strong "; IMPULSE/max/free: the same on a free body (only area, land, parts, holes and kink judged; not in the all line)"
    print "IMPULSE/half, IMPULSE/twice: half and twice the default --strength (--list-impulses), twice at most the largest (only str judged; not in the all line)"
    print "poke/side: poked from the side, --at 0.15,0.5 (only dent judged, on the round faces; not in the all line)"
    print "twink: twinkle   flow: flow_error, the frame-only F against the render grid F, which the figures use"
    if (worst != "") { print ""; print "the worst clip of each missed goal:"; printf "%s", worst }
    # how many clips miss each goal (of those it applies to), per impulse
    print ""
    print "clips that miss each goal (- where no clip has one):"
    printf "%-16s %3s", "impulse", "n"
    for (c = 1; c <= ncol; c++) printf " %6s", cols[c]
    printf "\n"
    for (i = 1; i <= n; i++) {
        imp = imps[i]
        printf "%-16s %3d", imp, nclip[imp]
        for (c = 1; c <= ncol; c++) {
            col = cols[c]
            if (!((imp, col) in ngoal)) { printf " %6s", "-"; continue }
            printf " %6d", nmiss[imp, col]
            if (imp !~ /\/(max(\/free)?|half|twice|side)$/)
                tmiss[col] += nmiss[imp, col]
        }
        printf "\n"
    }
    printf "%-16s %3s", "all", ""
    for (c = 1; c <= ncol; c++) { col = cols[c]; printf " %6s", (col in tmiss) ? tmiss[col] : "-" }
    printf "\n"
}'
