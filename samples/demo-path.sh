#!/bin/sh
# the pudding carried round a closed path (poyo path)
"$POYO" path pudding.png --through "0.5,0.25,0 0.8,0.5,90 0.5,0.75,180 0.2,0.5,-90 0.5,0.25,0" --duration 2.4 --size 160 -o path.gif -f
