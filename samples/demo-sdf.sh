#!/bin/sh
# the pudding dropped onto a ramp in a distance-field scene (poyo sdf)
"$POYO" sdf pudding.png --scene 'floor(0.9); wall(0.02); wall(0.98); segment(0.02,0.25,0.55,0.5,0.02)' --at 0.2,0.05 --stamp-size 0.28 -s 200 --fps 20 -o sdf-ramp.gif -f
