#!/bin/sh
# layers.sh SRC [OBJ] - fails when the layering of src/README.md is broken: a
# file outside the layer folders, an include of a higher layer (or of a lower
# one by bare name, or of a header that is not there), or, given the objects
# of a build in OBJ, a module below cli/ that prints or exits.
LAYERS="util geom image sim cli" # bottom to top
src=${1:?usage: layers.sh SRC [OBJ]}
obj=$2
bad=0

rank() { # the layer's place from the bottom, or nothing
    r=0
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $r; return; }
        r=$((r + 1))
    done
}

for f in "$src"/* "$src"/*/*; do
    case $f in
    "$src"/README.md) continue ;;
    esac
    [ -d "$f" ] && continue
    d=$(basename "$(dirname "$f")")
    if [ "$(dirname "$f")" = "$src" ] || [ -z "$(rank "$d")" ]; then
        echo "layers: $f is outside the layer folders ($LAYERS)" >&2
        bad=1
    fi
done
for d in "$src"/*/; do
    d=$(basename "$d")
    [ -n "$(rank "$d")" ] || { echo "layers: $src/$d/ is not a layer ($LAYERS)" >&2; bad=1; }
done

for l in $LAYERS; do
    mine=$(rank "$l")
    for f in "$src/$l"/*.c "$src/$l"/*.h; do
        [ -f "$f" ] || continue
        # each include as LINE:NAME
        for inc in $(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
                     sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/'); do
            line=${inc%%:*} name=${inc#*:}
            case $name in
            */*)
                other=${name%%/*}
                theirs=$(rank "$other")
                if [ ! -f "$src/$name" ]; then
                    echo "$f:$line: includes $name, which is not in $src/" >&2
                    bad=1
                elif [ -z "$theirs" ]; then
                    echo "$f:$line: includes $name, outside the layer folders" >&2
                    bad=1
                elif [ "$theirs" -gt "$mine" ]; then
                    echo "$f:$line: includes $name: $other/ is above $l/" >&2
                    bad=1
                elif [ "$theirs" -eq "$mine" ]; then
                    echo "$f:$line: includes $name: a header of its own folder is named without it" >&2
                    bad=1
                fi ;;
            *)
                if [ ! -f "$src/$l/$name" ]; then
                    echo "$f:$line: includes $name, which is not in $l/ (a lower layer's header is named with its folder)" >&2
                    bad=1
                fi ;;
            esac
        done
    done
done

# printing and exiting belong to cli/: no object below it may call them
if [ -n "$obj" ]; then
    for l in $LAYERS; do
        [ "$l" = cli ] && continue
        for o in "$obj/$l"/*.o; do
            [ -f "$o" ] || continue
            calls=$(nm -u "$o" | awk '{ print $NF }' | grep -E \
                '^(_*(v?f?printf|puts|fputs|putc|fputc|putchar|perror|exit|_Exit|quick_exit|abort|err|errx|warn|warnx|stdout|stderr)|__v?f?printf_chk)$' |
                tr '\n' ' ' | sed 's/ $//')
            if [ -n "$calls" ]; then
                echo "layers: $o ($l/) calls $calls: only cli/ prints or exits" >&2
                bad=1
            fi
        done
    done
fi

[ "$bad" -eq 0 ] && echo "layers: $LAYERS, each using only those below it"
[ "$bad" -eq 0 ]
