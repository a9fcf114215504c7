#!/bin/sh
# coverage.sh OBJDIR SRC... - prints the line coverage of each source file from
# the counters (.gcda) that an instrumented build (gcc --coverage) left in OBJDIR,
# where src/X.c was compiled to OBJDIR/X.o, then the total. A file that no run
# reached counts as 0 %; a file that was not built with --coverage is an error.
# The goal (every file at least 80 %, the total at least 90 %) is reported, not enforced.
objdir=$1
shift
command -v gcov >/dev/null 2>&1 || { echo "coverage.sh: gcov not found (it comes with gcc)" >&2; exit 1; }
for src in "$@"; do
    rel=${src#src/}
    gcno="$objdir/${rel%.c}.gcno"
    if [ ! -f "$gcno" ]; then
        echo "coverage.sh: $gcno missing: was $src built with --coverage?" >&2
        exit 1
    fi
    # gcov -n reports without writing .gcov files: "File 'S'" then "Lines executed:P% of N"
    gcov -n -o "$(dirname "$gcno")" "$src" 2>/dev/null |
        awk -v want="$src" '
            /^File / { f = $0; sub(/^File \047/, "", f); sub(/\047$/, "", f); next }
            /^Lines executed:/ && f == want {
                split($0, a, /[:% ]+/); print want, a[3], a[5]; f = ""; exit
            }
            /^No executable lines/ && f == want { print want, 0, 0; f = ""; exit }'
done | awk '
    { hit = int($2 * $3 / 100 + 0.5); lines[NR] = $1; n[NR] = $3; h[NR] = hit; th += hit; tn += $3 }
    END {
        low = 0
        for (i = 1; i <= NR; i++) {
            pct = n[i] ? 100 * h[i] / n[i] : 100
            mark = pct < 80 ? "  < 80 %" : ""
            if (pct < 80) low++
            printf "%-24s %6.1f %%  %5d of %5d lines%s\n", lines[i], pct, h[i], n[i], mark
        }
        if (NR == 0) { print "coverage.sh: no source files measured" > "/dev/stderr"; exit 1 }
        printf "%-24s %6.1f %%  %5d of %5d lines\n", "total", 100 * th / tn, th, tn
        if (100 * th / tn < 90 || low)
            printf "goal (each file 80 %%, total 90 %%) not met: %d file(s) under 80 %%%s\n", low,
                   (100 * th / tn < 90 ? ", total under 90 %" : "")
    }'
