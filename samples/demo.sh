#!/bin/sh
# demo.sh POYO - animates the sample stamps (the main job and each subcommand)
# into samples/*.gif; the README shows them.
set -e
poyo=$(cd "$(dirname "${1:-build/poyo}")" && pwd)/$(basename "${1:-build/poyo}")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
run() {
    echo "poyo $*"
    "$poyo" "$@"
}
run pudding.png -o pudding.gif -f --size 128
run slime.png -i jump -o slime-jump.gif -f --size 128
run mochi.png -i poke --at 0.35,0.45 -o mochi-poke.gif -f --size 128
run bottle.png -i shake -o bottle-shake.gif -f --size 128
run pudding.png -i wave -o pudding-wave.gif -f --size 128
for extra in demo-*.sh; do
    [ -f "$extra" ] && POYO="$poyo" sh "$extra"
done
ls -l *.gif
