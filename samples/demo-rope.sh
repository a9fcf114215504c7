#!/bin/sh
# the slime hanging from a rope, swinging like a phone charm (poyo rope)
"$POYO" rope slime.png -o slime-charm.gif -f --size 128
