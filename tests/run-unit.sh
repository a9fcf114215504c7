#!/bin/sh
# run-unit.sh BIN... - runs each unit-test binary and adds up the counts.
passed=0 failed=0
for bin in "$@"; do
    out=$("$bin" 2>&1)
    line=$(printf '%s\n' "$out" | tail -n 1)
    p=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(printf '%s\n' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        printf '%s\n' "$out" | grep -v '^ok ' >&2
        echo "$(basename "$bin"): crashed or ended early" >&2
        failed=$((failed + 1))
        continue
    fi
    printf '%s\n' "$out" | grep -v '^ok ' | sed '$d' >&2
    echo "$(basename "$bin"): $p passed, $f failed"
    passed=$((passed + p)) failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
