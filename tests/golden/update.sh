#!/bin/sh
# update.sh POYO TOOLS - rewrites the hashes of tests/golden/clips.txt from what
# poyo makes now, and prints the clips whose hash moved.
set -e
here=$(cd "$(dirname "$0")" && pwd)
POYO=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TOOLS=$(cd "$2" && pwd)
DATA="$here/../data"
work=$(mktemp -d "${TMPDIR:-/tmp}/poyo-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT
while IFS= read -r line; do
    case "$line" in
    '#'* | '') printf '%s\n' "$line"; continue ;;
    esac
    name=${line%% *}
    rest=${line#"$name"}
    rest=${rest#"${rest%%[! ]*}"}
    old=${rest%% *}
    args=${rest#"$old" }
    rm -rf "$work/run" && mkdir "$work/run"
    (cd "$work/run" && eval "\"\$POYO\" $args") >&2
    new=$("$TOOLS/animinfo" --hash "$work"/run/out.*)
    [ "$new" = "$old" ] || echo "moved: $name" >&2
    printf '%-19s %s %s\n' "$name" "$new" "$args"
done <"$here/clips.txt" >"$work/clips.txt"
cp "$work/clips.txt" "$here/clips.txt"
