#!/bin/sh
# run-cli.sh - runs every tests/cli/t_*.sh and adds up the results.
# Needs POYO and TOOLS in the environment; the images come from tests/data.
here=$(cd "$(dirname "$0")" && pwd)
DATA="$here/data"
SAMPLES="$here/../samples"
export POYO TOOLS DATA SAMPLES
passed=0 failed=0
for t in "$here"/cli/t_*.sh; do
    out=$(sh "$t" 2>&1)
    printf '%s\n' "$out" | grep -v '^ok ' 
    p=$(printf '%s\n' "$out" | grep -c '^ok ')
    f=$(printf '%s\n' "$out" | grep -c '^not ok ')
    if ! printf '%s\n' "$out" | grep -q '^# .*passed'; then
        echo "$(basename "$t"): ended early" >&2
        f=$((f + 1))
    fi
    passed=$((passed + p)) failed=$((failed + f))
done
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
