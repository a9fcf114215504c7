#!/bin/sh
# demo-text.sh - words as stamps (poyo text) into samples/text-*.gif; needs
# the fonts make deps installs (IPAex Gothic for the Japanese).
set -e
cd "$(dirname "$0")"
echo "poyo text すごい --outline white,3 --gradient red,orange"
"$POYO" text "すごい" --outline white,3 --gradient red,orange -o text-sugoi.gif -f
echo "poyo text LGTM -i jump --per-glyph --outline white,3"
"$POYO" text LGTM -i jump --per-glyph --outline white,3 -o text-lgtm.gif -f
