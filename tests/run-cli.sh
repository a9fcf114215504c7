#!/bin/sh
# run-cli.sh - runs every tests/cli/t_*.sh, two at a time (CLI_JOBS), and adds up
# the results, each script's lines printed whole and in name order.
# Needs POYO and TOOLS in the environment; the images come from tests/data.
here=$(cd "$(dirname "$0")" && pwd)
DATA="$here/data"
SAMPLES="$here/../samples"
export POYO TOOLS DATA SAMPLES
out=$(mktemp -d "${TMPDIR:-/tmp}/poyo-cli.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
trap 'exit 1' INT TERM
# each script's output goes to its own file; the scripts keep their own
# temporary folders, so two run side by side
ls "$here"/cli/t_*.sh | xargs -P "${CLI_JOBS:-2}" -I{} sh -c 'sh "$1" >"$2/$(basename "$1").out" 2>&1' run-cli {} "$out"
passed=0 failed=0
for t in "$here"/cli/t_*.sh; do
    o="$out/$(basename "$t").out"
    grep -v '^ok ' "$o"
    p=$(grep -c '^ok ' "$o")
    f=$(grep -c '^not ok ' "$o")
    if ! grep -q '^# .*passed' "$o"; then
        echo "$(basename "$t"): ended early" >&2
        f=$((f + 1))
    fi
    passed=$((passed + p)) failed=$((failed + f))
done
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
