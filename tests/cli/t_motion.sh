#!/bin/sh
# t_motion.sh - the look at chat size, measured from the frames a user gets
# (tests/tools/motionstats, with F from the render grid of the same clip): on
# two round faces at 128 px every impulse at its defaults shows the stamp at
# full size and off the canvas's edge, moves in most frames, reaches a visible
# peak and the strength asked, keeps its area, neither tears nor opens a hole,
# loops without a jump, stays as crisp as at rest and does not shimmer when
# still, hanging or free too; a poke is a dent and a twist is not a tilt.
. "$(dirname "$0")/lib.sh"
MKPNG="$TOOLS/mkpng"

# measure IMAGE IMPULSE [POYO OPTIONS]: poyo's frames at 128 px and their figures in fig.txt
measure() {
    img=$1 imp=$2
    shift 2
    "$POYO" "$DATA/$img" -s 128 -i "$imp" "$@" --frames fr -f -q -o clip.gif &&
    case $imp in
    wave | pat) extra=--periodic ;;
    jump | drop) extra=--landing ;;
    *) extra= ;;
    esac &&
    # the kick point is the tool's too (KICK when poyo finds it by itself);
    # every option tells it how the clip was made
    at=$(echo "$*" | sed -n 's/.*--at \([^ ]*\).*/--at \1/p') &&
    at=${KICK:+--at $KICK}${KICK:-$at} &&
    # shellcheck disable=SC2086
    "$MOTIONSTATS" --impulse "$imp" --input "$DATA/$img" $extra $at --exact "-s 128 -i $imp $*" fr >fig.txt
}

# holds NAME EXPR: EXPR, an awk condition over the figures of fig.txt (as
# variables), is true, and no figure it names is NaN (not measured: awk
# may take a NaN as greater and smaller than anything); otherwise it says so
# with the figures' values
holds() {
    nan=$(awk -v e="$2" '$2 ~ /nan/ && e ~ ("(^|[^A-Za-z0-9_])" $1 "([^A-Za-z0-9_]|$)") { print $1; exit }' fig.txt)
    if [ -n "$nan" ]; then
        echo "$1: $2 names $nan, which is not measured (NaN); the figures were:" >&2
        cat fig.txt >&2
        return 1
    fi
    args=$(awk '{ printf "-v %s=%s ", $1, $2 }' fig.txt)
    # shellcheck disable=SC2086
    if ! awk $args "BEGIN { exit !($2) }"; then
        echo "$1: $2 is false; the figures were:" >&2
        cat fig.txt >&2
        return 1
    fi
}

# disc_clip DIR KIND: a clip of three frames in DIR, mkpng's disc, its picture KIND, the disc
disc_clip() {
    mkdir "$1" &&
    "$MKPNG" rgba "$1/frame_0000.png" 128 && "$MKPNG" "$2" "$1/frame_0001.png" 128 &&
    "$MKPNG" rgba "$1/frame_0002.png" 128
}

strength_of() { "$POYO" --list-impulses | awk -v i="$1" '$1 == i { print $2 }'; }
largest_of() { "$POYO" --list-impulses | awk -v i="$1" '$1 == i { print $3 }'; }
# grid_range: the fewest and the most lattice nodes --help gives for --grid, "LO HI"
grid_range() { "$POYO" animate --help | sed -n 's/.*--grid N.*(\([0-9]*\) to \([0-9]*\),.*/\1 \2/p'; }

for img in 1f600.png 1f431.png; do
    for imp in squash stretch poke shake twist jump drop wave pat; do
        test_expect_success "$imp on $img: full size, lively, visible, honest, area kept, whole, smooth, seamless, crisp, no shimmer" '
            measure '"$img"' '"$imp"' &&
            s=$(strength_of '"$imp"') &&
            case '"$imp"' in
            jump | drop) holds size "size_ratio >= 0.75" && holds landing "area_dev_landing <= 0.08" &&
                         holds peak "peak_d_rel >= 0.10" ;;
            squash | stretch) holds size "size_ratio >= 0.85" && holds area "area_dev <= 0.05" &&
                         holds peak "peak_d_rel >= 0.10" ;;
            *) holds size "size_ratio >= 0.85" && holds area "area_dev <= 0.05" && holds peak "peak_d_rel >= 0.06" ;;
            esac &&
            holds edge "edge_touch == 0" &&
            holds lively "moving_fraction >= 0.75" &&
            holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
            holds crisp "sharp_min >= 0.95" &&
            holds shimmer "twinkle == 0" &&
            holds whole "parts_changed == 0 && holes_new == 0" &&
            holds smooth "kink_new <= 30" &&
            holds steps "step_ratio <= 3" &&
            case '"$imp"' in
            wave | pat) holds seam "seam_ratio <= 1.25" ;;
            *) holds seam "seam <= (step_median > 1 ? step_median : 1)" ;;
            esac
        '
    done
done

test_expect_success 'a flag on a thin pole is patted as hard as asked in the period the clip films' '
    # the drive was scaled on the fourth period while the flag still swayed
    # from its start, and the clip filmed the eighteenth: the pat was 0.84
    # of the strength
    measure 1f6a9.png pat &&
    s=$(strength_of pat) &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s"
'

test_expect_success 'a pat that lands just as the head turns loops without a jerk, as hard as asked' '
    # the loop began where the finger lands; on the balloon the head had
    # just turned there and the seam was 1.56 times the steps beside it
    measure 1f388.png pat &&
    s=$(strength_of pat) &&
    holds seam "seam_ratio <= 1.25" &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s"
'

test_expect_success 'a balloon whose string buckles is patted as hard as asked at twice the default' '
    # the string buckles between a push of 679 (a pat of 0.16 of its
    # height) and one of 837 (0.51), and the balloon swings on from period
    # to period: the drive the third trial extrapolated to patted it 1.74
    # times as hard as asked
    s=$(awk -v s="$(strength_of pat)" -v m="$(largest_of pat)" "BEGIN { v = 2 * s; print v < m ? v : m }") &&
    measure 1f388.png pat --strength $s &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s"
'

test_expect_success 'a pat at 20 fps (Slack'"'"'s) loops without a jerk from a frame near rest, as hard as asked' '
    # at 20 fps the finger landed where the keycap and the custard were
    # swinging fastest: the seam was 2.1 and 1.4 times the steps beside it
    # (and the trials from a smoother start did not settle, so the loop
    # went back there)
    s=$(strength_of pat) &&
    for img in 0034-fe0f-20e3.png 1f36e.png; do
        measure $img pat --fps 20 &&
        holds seam "seam_ratio <= 1.25" &&
        holds size "size_ratio >= 0.85" &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds area "area_dev <= 0.05" || return 1
    done
'

# a free body swayed or patted again and again stays where it rests
for imp in wave pat; do
    test_expect_success "$imp on a free body: where it rests at full size, lively, honest, area kept, whole, seamless" '
        # driven alone, the free body drifted a third of its width off its
        # place over the warm-up and the frames cut off what left the canvas
        measure 1f600.png '"$imp"' --anchor none &&
        s=$(strength_of '"$imp"') &&
        holds size "size_ratio >= 0.85" && holds edge "edge_touch == 0" &&
        holds lively "moving_fraction >= 0.75" && holds peak "peak_d_rel >= 0.06" &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds area "area_dev <= 0.05" && holds whole "parts_changed == 0 && holes_new == 0" &&
        holds crisp "sharp_min >= 0.95" && holds steps "step_ratio <= 3" && holds seam "seam_ratio <= 1.25"
    '
done

for imp in poke pat; do
    test_expect_success "$imp lands on the picture: a banana dents as deep as asked above its curve, a pat loops smoothly" '
        # its default point, in the middle of the top of its box, is off the
        # picture: pressed there, the finger dented empty space and the peel
        # beside it moved 0.31 (poke) and 0.54 (pat) of the strength asked
        measure 1f34c.png '"$imp"' &&
        s=$(strength_of '"$imp"') &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds dent "dent_ratio >= 3" &&
        # patted, its loop started where the steps of the lattice nodes
        # passed smoothly, the empty corners of the cells along it counted
        # as much as its peel: the seam of its picture was 1.47 times the
        # steps beside it
        case '"$imp"' in
        pat) holds seam "seam_ratio <= 1.25" ;;
        esac
    '
done

test_expect_success 'a tall free body patted on its top gives way there, not at both ends' '
    # held at its centre, the tall ! gave way at both ends: a dent 1.8 times
    # what its foot moved, 8.7 % of its area lost and frames at 0.92 of its
    # rest sharpness
    measure 2757.png pat --anchor none &&
    holds dent "dent_ratio >= 3" &&
    holds area "area_dev <= 0.05" && holds crisp "sharp_min >= 0.95" &&
    holds size "size_ratio >= 0.85" && holds edge "edge_touch == 0"
'

test_expect_success 'a free tower patted on its top is held at its foot: full size, its legs kept' '
    # held only by a pull on its place, the tower splayed its legs 12 %
    # wider and drew them 12 % in every period (the second harmonic of the
    # pat is the main wobble of the free body), and stood at 0.82 of full size
    measure 1f5fc.png pat --anchor none &&
    s=$(strength_of pat) &&
    holds size "size_ratio >= 0.85" && holds edge "edge_touch == 0" &&
    holds lively "moving_fraction >= 0.75" &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
    holds area "area_dev <= 0.05" && holds whole "parts_changed == 0 && holes_new == 0" &&
    holds steps "step_ratio <= 3" && holds seam "seam_ratio <= 1.25"
'

test_expect_success 'a free body patted keeps the area of its picture under the finger' '
    # kept to the lattice plain area, the balloon gave up 6.1 % of its
    # picture, the tall ! 5.75 % (12.5 % at twice the default strength)
    measure 1f388.png pat --anchor none &&
    holds area "area_dev <= 0.05" &&
    measure 2757.png pat --anchor none --strength 0.3 &&
    holds area "area_dev <= 0.05"
'

# squash and stretch press against the anchor; a free body wobbles in place
for anchor in none top; do
    for imp in squash stretch poke shake twist; do
        # a shake's strength is measured on the top quarter, which hangs from a top anchor
        honest='holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s"'
        [ "$anchor $imp" = "top shake" ] && honest=true
        # a hanging body is poked at its free end
        kick=
        [ "$anchor $imp" = "top poke" ] && kick=0.5,0.85
        # the peak asked of squash and stretch is a tenth of the height, the others' 6 %
        visible=0.06
        case $imp in squash | stretch) visible=0.10 ;; esac
        test_expect_success "$imp with --anchor $anchor: full size, in the canvas, back at rest, honest, visible, no jump" '
            KICK='"$kick"' measure 1f600.png '"$imp"' --anchor '"$anchor"' &&
            holds steps "step_ratio <= 3" &&
            s=$(strength_of '"$imp"') &&
            holds peak "peak_d_rel >= '"$visible"'" &&
            holds size "size_ratio >= 0.85" && holds edge "edge_touch == 0" && holds rest "in_canvas == 1" &&
            holds lively "moving_fraction >= 0.75" && holds area "area_dev <= 0.05" &&
            '"$honest"'
        '
    done
done

test_expect_success 'a square squashed against the canvas edges keeps its area, pressed a little less deep' '
    # pressed as deep as asked with no room to bulge, the keycap lost 5.3 %
    # of its area held and free
    s=$(strength_of squash) &&
    for anchor in bottom none; do
        measure 0034-fe0f-20e3.png squash --anchor $anchor &&
        holds area "area_dev <= 0.05" &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" || return 1
    done
'

test_expect_success 'a free stretch too tall for the canvas keeps its room above, not below' '
    # centred, the walls cut the party popper stretched free to 0.88 of the
    # stretch asked, with canvas pixels left empty under it
    measure 1f389.png stretch --anchor none &&
    s=$(strength_of stretch) &&
    holds strength "strength >= 0.92 * $s && strength <= 1.15 * $s" &&
    holds size "size_ratio >= 0.85" && holds steps "step_ratio <= 3" && holds edge "edge_touch == 0"
'

test_expect_success 'a wobble that passes through rest as its frames are taken is filmed between them' '
    # the balloon stretched wobbles at 8 and a third frames a period, and
    # passed within a pixel of rest in 4 of its frames after the start
    # (0.74 of its frames moved; 0.91 filmed half a frame later)
    measure 1f388.png stretch &&
    holds lively "moving_fraction >= 0.85" && holds steps "step_ratio <= 3"
'

test_expect_success 'a free body twisted into the canvas'"'"'s walls is drawn off its edge' '
    # the walls held every node by the lattice'"'"'s widest reach past the
    # pixels, so a node among the pixels passed them: the streamers drew on
    # the canvas'"'"'s outermost pixels in 5 frames
    measure 1f389.png twist --anchor none &&
    holds walled "size_ratio < 0.87" &&
    holds edge "edge_touch == 0"
'

test_expect_success 'a free body turned by the hand against a wall keeps its pixels off the edge' '
    # the walls held nodes, and not the nodes the turning hand held: the
    # hand carried the keycap'"'"'s top corner through the top wall, and it
    # drew on the canvas'"'"'s top row in 4 frames
    measure 0034-fe0f-20e3.png twist --anchor none &&
    holds walled "size_ratio < 0.87" &&
    holds edge "edge_touch == 0"
'

test_expect_success 'a body bent hard against the walls draws its curves off the edge too' '
    # the walls held the picture between the nodes as their bilinear blend,
    # and the curves drawn through the nodes bulged past it: the balloon
    # patted undamped drew on the canvas'"'"'s outermost pixels in 2 frames
    measure 1f388.png pat --damping 0 &&
    holds edge "edge_touch == 0 && parts_changed == 0 && holes_new == 0"
'

test_expect_success 'the coarsest and the finest lattice --grid takes keep thin parts whole' '
    # at --grid 64 the keycap squashed and the party popper poked opened
    # holes, at 20 the balloon squashed at its largest lost its string, at
    # 13, 14 and 16 the balloon jumping at its largest lost it; at 4 and 5 the
    # wide bar twisted at its largest thinned into a wedge and broke, the
    # banana poked at its largest tore and the popper squashed free at its
    # largest opened a hole; shaken free at 0.5, the popper came apart at 8
    range=$(grid_range) &&
    test -n "$range" &&
    for grid in $range; do
        for run in "0034-fe0f-20e3.png squash" "1f389.png poke" \
                   "1f388.png squash --strength $(largest_of squash) --volume 0.8" \
                   "1f388.png jump --strength $(largest_of jump)" \
                   "1f389.png shake --anchor none --strength $(largest_of shake)" \
                   "1f389.png squash --anchor none --strength $(largest_of squash)" \
                   "2757-wide.png twist --strength $(largest_of twist)" \
                   "1f34c.png poke --strength $(largest_of poke)"; do
            measure $run --grid $grid &&
            holds "$run --grid $grid" "parts_changed == 0 && holes_new == 0 && edge_touch == 0" || return 1
        done
    done
'

test_expect_success 'a pat where the body can hardly dent, beside its anchor, does not tear it' '
    # patted at a corner of the picture'"'"'s box beside the anchor, the
    # trials pumped the finger up to thousands of times what a dent of the
    # strength asked takes: the keycap came apart in 2 and opened 13 holes,
    # the banana'"'"'s peel in 9
    for img in 0034-fe0f-20e3.png 1f34c.png 1f388.png 1f389.png; do
        measure $img pat --at 1,1 &&
        holds "pat --at 1,1 on $img" "parts_changed == 0 && holes_new == 0 && edge_touch == 0" || return 1
    done
'

test_expect_success 'a poke where the body can hardly dent, at a corner of its box, does not tear it' '
    # the trials pressed the finger 2 to 3.8 times as deep as the dent
    # asked: the party popper crushed its streamer into shards, and on the
    # coarsest lattice the banana opened holes
    measure 1f389.png poke --at 1,1 &&
    holds "poke --at 1,1 on the popper" "parts_changed == 0 && holes_new == 0 && edge_touch == 0" &&
    range=$(grid_range) && grid=${range%% *} &&
    test -n "$grid" &&
    measure 1f34c.png poke --at 1,1 --grid $grid &&
    holds "poke --at 1,1 --grid $grid on the banana" "parts_changed == 0 && holes_new == 0 && edge_touch == 0"
'

test_expect_success 'a poke beside the anchor dents the part it presses without pushing it into its neighbour' '
    # the "!" poked at a bottom corner of its box is poked on its dot, held
    # by its pins: pressed deeper by the trials, the dot was pushed into the
    # bar on lattices of 8 to 10 nodes (2 to 4 frames changed parts); poked
    # on its bottom edge beside its dot at the largest strength, a dent as
    # deep as asked (17.5 pixels, where the line of the finger meets the bar
    # 10 pixels past the side of the dot) did the same on the coarsest
    range=$(grid_range) && lo=${range%% *} &&
    test -n "$lo" &&
    for run in "--at 0,1 --grid $lo" "--at 0,1 --grid $((lo + 1))" \
               "--at 0.25,0.9 --grid $lo --strength $(largest_of poke)"; do
        measure 2757.png poke $run &&
        holds "poke $run on the tall bar" \
              "parts_changed == 0 && holes_new == 0 && edge_touch == 0 && peak_d_rel >= 0.06" || return 1
    done
'

test_expect_success 'a free body twisted turns as far as asked, keeps its area and rocks back upright without a jump' '
    # turned by one hand alone, the popper reached 0.74 of the turn asked and
    # lost 6 % of its area as its foot folded up; let go, the balloon, the
    # flag and the tall "!" crept back upright, so the press was a step more
    # than 3 times the median (3.1 to 4.4)
    measure 1f389.png twist --anchor none &&
    s=$(strength_of twist) &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" && holds area "area_dev <= 0.05" &&
    for img in 1f388.png 1f6a9.png 2757.png; do
        measure $img twist --anchor none && holds steps "step_ratio <= 3" || exit 1
    done
'

test_expect_success 'a twist keeps the area of a shape that leans, on its foot and free' '
    # the hand turns the body more the higher up: on a shape wider on one
    # side of the turn'"'"'s centre low down and on the other high up, that
    # alone took 5.7 % of the banana'"'"'s area, on its foot and free
    s=$(strength_of twist) &&
    for anchor in bottom none; do
        measure 1f34c.png twist --anchor $anchor && holds area "area_dev <= 0.05" &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" || exit 1
    done
'

test_expect_success 'a jump at its largest strength crouches as quickly, leaps as high as asked and lands in the clip' '
    # its crouch, slowed as a deeper press is, took 1.5 s: the leap reached
    # 1.2 of the 2 asked and its landing was cut off by the clip'"'"'s end
    s=$(largest_of jump) &&
    measure 1f600.png jump --strength $s &&
    holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" && holds steps "step_ratio <= 3" &&
    holds seam "seam <= (step_median > 1 ? step_median : 1)"
'

test_expect_success 'a balloon jumps and drops at their largest strength without tearing its string' '
    # at 2 it landed on its string and tore it, jumping and dropping
    for imp in jump drop; do
        measure 1f388.png $imp --strength $(largest_of $imp) &&
        holds "$imp at its largest" "parts_changed == 0 && holes_new == 0 && edge_touch == 0" || return 1
    done
'

test_expect_success 'a twist about a point off the centre keeps the area, on its foot and free' '
    # turned about its lower left, the face'"'"'s area was 7 % off (8 % free) and it squared
    # against the canvas walls, with a blob of its chin hanging below
    s=$(strength_of twist) &&
    for anchor in bottom none; do
        measure 1f600.png twist --at 0.1,0.9 --anchor $anchor && holds area "area_dev <= 0.05" &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" || exit 1
    done
'

test_expect_success 'a free body poked is dented, not pushed away, and keeps its area whole' '
    # held by the finger alone, the whole body gave way: the balloon'"'"'s far
    # side moved 0.41 as far as the dent, the tall "!" lost 6 % of its area and
    # the popper opened a hole in 17 frames
    measure 1f388.png poke --anchor none && holds dent "dent_ratio >= 3" &&
    measure 2757.png poke --anchor none && holds area "area_dev <= 0.05" &&
    measure 1f389.png poke --anchor none && holds whole "holes_new == 0 && parts_changed == 0" &&
    # poked from the side, the tall bar is held along its rows, more than
    # twice as many as the lattice has columns
    measure 2757.png poke --anchor none --at 1,0.5 --angle 180 &&
    holds whole "holes_new == 0 && parts_changed == 0" && holds edge "edge_touch == 0"
'

test_expect_success 'a poked stamp keeps the area its picture covers' '
    # the cells of an antialiased rim and of a balloon string are mostly
    # empty: kept by their plain area, the dent swelled them and the balloon
    # showed 11 % less of itself where the dent was deepest, the faces 3 and 4 %
    measure 1f388.png poke && holds area "area_dev <= 0.05" &&
    for img in 1f600.png 1f431.png; do
        measure $img poke && holds area "area_dev <= 0.025" || { echo "($img)"; return 1; }
    done
'

test_expect_success 'a hanging body is poked and patted at its free end, from below' '
    for imp in poke pat; do
        "$POYO" "$DATA/1f600.png" -s 64 -i $imp --anchor top -o default.gif -f -q &&
        case $imp in poke) at=0.5,0.85 ;; pat) at="0.5,1 --angle -90" ;; esac &&
        "$POYO" "$DATA/1f600.png" -s 64 -i $imp --anchor top --at $at -o asked.gif -f -q &&
        cmp default.gif asked.gif &&
        "$POYO" "$DATA/1f600.png" -s 64 -i $imp --anchor top --at 0.5,0.15 -o top.gif -f -q &&
        ! cmp -s default.gif top.gif || exit 1
    done
'

test_expect_success 'a stamp on a thin stem jumps and drops as high as asked and lands upright' '
    for img in 1f388.png 1f6a9.png; do
        for imp in jump drop; do
            measure $img $imp && s=$(strength_of $imp) &&
            holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
            holds upright "axis_dev_max <= 10" && holds landing "area_dev_landing <= 0.08" || exit 1
        done
    done &&
    measure 1f388.png jump && holds steps "step_ratio <= 3"
'

test_expect_success 'a poke at half its default dents as deep as asked, held on a thin bar and on a free face' '
    # the dent was measured by the nodes'"'"' bilinear mean, and the third of
    # three fingers tried was kept untried: the bar dented 1.21 times as deep
    # as asked, the free face 1.26 times
    half=$(awk -v s="$(strength_of poke)" "BEGIN { print s / 2 }") &&
    measure 2757.png poke --strength $half &&
    holds strength "strength >= 0.85 * $half && strength <= 1.15 * $half" &&
    measure 1f600.png poke --strength $half --anchor none &&
    holds strength "strength >= 0.85 * $half && strength <= 1.15 * $half"
'

test_expect_success 'a flag poked on its cloth dents as deep as asked at half, one and the largest strength' '
    # the cloth rings on the thin pole at 13 Hz, faster than the 25 frames a
    # second can follow: measured at every step the trials came within 5 %
    # of the dent asked, while the frames fell between its peaks and showed
    # 0.82, 0.92 and 0.66 of it; a film that shows a dent off by more than
    # 8 % is filmed again with the finger pressed anew
    for s in $(awk -v s="$(strength_of poke)" "BEGIN { print s / 2, s }") "$(largest_of poke)"; do
        measure 1f6a9.png poke --strength $s &&
        holds "strength at $s" "strength >= 0.85 * $s && strength <= 1.15 * $s" || exit 1
    done
'

test_expect_success 'a poke is a dent that spreads, not a lean of the whole face' '
    for img in 1f600.png 1f431.png; do
        measure $img poke && holds jelly "jelly >= 0.50" && holds spread "dent_spread == 1" &&
        measure $img poke --at 0.15,0.5 && holds dent "dent_ratio >= 3" || exit 1
    done
'

test_expect_success 'a dent that springs back fast is filmed without a jump' '
    # poked from the side, the grinning face sprang back from its dent in a
    # step 3.31 times the median; filmed half a frame later, 2.73
    measure 1f600.png poke --at 0.15,0.5 &&
    holds steps "step_ratio <= 3" && holds dent "dent_ratio >= 3"
'

test_expect_success 'a default kick point off the stamp lands on it: a bar lying across the square' '
    # 0.5,0.15 and 0.5,0 of the square are in the air above the bar; the
    # defaults are taken in its opaque box, where the tool measures them too
    for imp in poke pat; do
        "$POYO" "$DATA/2757-wide.png" -s 128 -i $imp -o bar.gif -f --json >bar.json &&
        took=$(sed -n "s/.*\"strength\": \([-0-9.e+]*\).*/\1/p" bar.json) &&
        measure 2757-wide.png $imp && holds strength "strength >= 0.85 * $took && strength <= 1.15 * $took" &&
        holds dent "dent_ratio >= 3" || exit 1
    done
'

test_expect_success 'a bar lying across the square is patted deeper than a square, lively' '
    # its default is the plain one times the fourth root of width over
    # height; at the plain default the bar moved in 71 % of the frames and
    # its far edge a third as much as the pat
    "$POYO" "$DATA/2757-wide.png" -s 128 -i pat -o bar.gif -f --json >bar.json &&
    took=$(sed -n "s/.*\"strength\": \([-0-9.e+]*\).*/\1/p" bar.json) &&
    s=$(strength_of pat) &&
    awk -v t="$took" -v s="$s" "BEGIN { exit !(t >= 1.5 * s && t < 1.6 * s) }" &&
    measure 2757-wide.png pat && holds lively "moving_fraction >= 0.75" && holds area "area_dev <= 0.05"
'

test_expect_success 'a bar lying across the square is poked deeper than a square, lively, held or free' '
    # its default is the plain one times the square root of width over
    # height, at most the largest; at the plain default the bar moved in 45 %
    # of its frames (55 % free). Its finger draws back with the dent before
    # it rolls off: let go at once, the spring back was 3.5 times the median step
    for anchor in bottom none; do
        "$POYO" "$DATA/2757-wide.png" -s 128 -i poke --anchor $anchor -o bar.gif -f --json >bar.json &&
        took=$(sed -n "s/.*\"strength\": \([-0-9.e+]*\).*/\1/p" bar.json) &&
        s=$(strength_of poke) &&
        awk -v t="$took" -v s="$s" "BEGIN { exit !(t >= 1.6 * s) }" || { echo "poke took $took, default $s" >&2; exit 1; }
        measure 2757-wide.png poke --anchor $anchor && holds lively "moving_fraction >= 0.75" &&
        holds strength "strength >= 0.85 * $took && strength <= 1.15 * $took" &&
        holds steps "step_ratio <= 3" && holds area "area_dev <= 0.05" || exit 1
    done
'

test_expect_success 'a bar lying across the square sways and hops as far as a square of its area, lively and honest' '
    # its strength is the default times the square root of width over height,
    # which --json gives; at the plain default a wave moved 1.7 px, 62 % of frames
    for imp in shake wave jump drop; do
        "$POYO" "$DATA/2757-wide.png" -s 128 -i $imp -o bar.gif -f --json >bar.json &&
        took=$(sed -n "s/.*\"strength\": \([-0-9.e+]*\).*/\1/p" bar.json) &&
        s=$(strength_of $imp) &&
        awk -v t="$took" -v s="$s" "BEGIN { exit !(t >= 2 * s) }" || { echo "$imp took $took, default $s" >&2; exit 1; }
        measure 2757-wide.png $imp && holds lively "moving_fraction >= 0.75" &&
        holds strength "strength >= 0.85 * $took && strength <= 1.15 * $took" &&
        case $imp in
        # a jump or a drop gives up the most area in its landing frames (held
        # up by the floor, no longer sunk into the cells under it), which may
        # give up to 8 %: the whole clip is held to that
        jump | drop) holds area "area_dev <= 0.08" ;;
        *) holds area "area_dev <= 0.05" ;;
        esac &&
        holds whole "parts_changed == 0 && holes_new == 0" || exit 1
    done &&
    # asked, it is taken as asked
    "$POYO" "$DATA/2757-wide.png" -s 128 -i wave --strength 0.08 -o bar.gif -f --json >bar.json &&
    grep -q "\"strength\": 0.08," bar.json
'

test_expect_success 'a bar standing or lying is squashed and stretched as much as asked, held or free' '
    # the nodes reach a cell past a thin bar'"'"'s opaque edges and its antialiased
    # fringe is a fifth of its height: the press is measured on the opaque box
    for img in 2757.png 2757-wide.png; do
        for imp in squash stretch; do
            for anchor in bottom none; do
                measure $img $imp --anchor $anchor && s=$(strength_of $imp) &&
                holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" || exit 1
                # the standing bar keeps its area under the palm (at the
                # pressure'"'"'s own strength it lost 6.2 %)
                if [ "$img $imp $anchor" = "2757.png squash bottom" ]; then holds area "area_dev <= 0.05" || exit 1; fi
            done
        done
    done
'

test_expect_success 'a bar lying across the square rings after its stretch no higher than asked' '
    # let go, the bar bends as it rings, its ends rising above the height it
    # was pulled to: scaled on the pull alone, at half the default it
    # stretched 1.2 times as far as asked
    s=$(strength_of stretch) &&
    for m in 0.5 2; do
        t=$(awk -v s=$s -v m=$m "BEGIN { print s * m }") &&
        measure 2757-wide.png stretch --strength $t &&
        holds strength "strength >= 0.85 * $t && strength <= 1.15 * $t" || exit 1
    done
'

test_expect_success 'a bar lying across the square is squashed and stretched lively, its area kept, held or free' '
    # pressed and pulled over six frames; the palms and its foot let it slide
    # as it is squashed (but for the foot'"'"'s middle), and the hands that
    # stretch it free draw back to 0.4 of their pull. Held where they touched
    # it and pressed over four, the bar lost 8.0 % of its area standing and
    # 9.6 % free; stretched free over four and drawn back to half, it
    # wobbled under a pixel from rest after 0.56 s and moved in 0.62 of its frames
    for imp in squash stretch; do
        for anchor in bottom none; do
            measure 2757-wide.png $imp --anchor $anchor && s=$(strength_of $imp) &&
            holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
            holds area "area_dev <= 0.05" && holds lively "moving_fraction >= 0.75" &&
            holds steps "step_ratio <= 3" && holds whole "parts_changed == 0 && holes_new == 0" || exit 1
        done
    done
'

test_expect_success 'a bar lying across the square is twisted as much as asked without a wedge at its end, held or free' '
    # turned in full about its middle, the bar went down at its far end by
    # half its height, pressed onto its foot into a wedge whose tip turned
    # its outline 38 degrees past rest; carried up and down half as far, 15
    # held and 17 free; rocking on the middle of its foot, 9 and 8
    for anchor in bottom none; do
        measure 2757-wide.png twist --anchor $anchor && s=$(strength_of twist) &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds smooth "kink_new <= 30" && holds area "area_dev <= 0.05" || exit 1
    done
'

test_expect_success 'a bar lying across the square twisted at the top of the range rocks on its foot, at any volume' '
    # held along its whole foot, its end turning down was pressed into a
    # wedge that turned its outline 34 to 48 degrees past rest at 0.4, and
    # free, carried up and down half as far, 60
    s=$(largest_of twist) &&
    for run in "--volume 0" "--volume 0.8" "--volume 0 --anchor none" "--volume 0.8 --anchor none"; do
        measure 2757-wide.png twist --strength $s $run &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds smooth "kink_new <= 30" && holds area "area_dev <= 0.05" &&
        holds whole "parts_changed == 0 && holes_new == 0" &&
        holds lively "moving_fraction >= 0.75 && step_ratio <= 3" || exit 1
    done
'

test_expect_success 'a body twisted at the top of the range rocks on its foot instead of pinching its side' '
    # held along its whole foot at 0.4, the post office pressed the side
    # turning down into a point: its outline turned 34 to 48 degrees past
    # rest standing, and 48 free with --volume 0.8
    s=$(largest_of twist) &&
    for run in "--volume 0" "--volume 0.3" "--volume 0.8" "--volume 0.8 --anchor none"; do
        measure 1f3e4.png twist --strength $s $run &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds smooth "kink_new <= 30" && holds area "area_dev <= 0.05" &&
        holds whole "parts_changed == 0 && holes_new == 0" || exit 1
    done
'

test_expect_success 'a free body patted at the top of the range is dented round, not notched' '
    # patted as narrow as at the default, the grinning face and the balloon
    # were notched under the finger: their outlines turned 32.9 and 34.3
    # degrees past rest
    s=$(largest_of pat) &&
    for img in 1f600.png 1f388.png; do
        measure $img pat --anchor none --strength $s &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds smooth "kink_new <= 30" && holds area "area_dev <= 0.05" &&
        holds whole "parts_changed == 0 && holes_new == 0" || exit 1
    done
'

test_expect_success 'a twist turns the picture as much as asked, not the lattice around a string' '
    # the turn is that of the opaque pixels; the lattice around a balloon'"'"'s
    # string is mostly air, and turning its nodes by 0.2 turned the picture 0.25
    for anchor in bottom none; do
        measure 1f388.png twist --anchor $anchor && s=$(strength_of twist) &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" || exit 1
    done
'

test_expect_success 'a thin body held by nothing comes to rest instead of wobbling ever wider' '
    # five seconds of the tall "!" shaken and twisted free: near rest after
    # one, it must not grow a wobble of its own
    for imp in shake twist; do
        "$POYO" "$DATA/2757.png" -s 128 -i $imp --anchor none --duration 5 --frames fr -f -q -o clip.gif &&
        "$MOTIONSTATS" --impulse $imp --input "$DATA/2757.png" fr >fig.txt &&
        holds area "area_dev <= 0.06" && holds smooth "kink_new <= 30" || exit 1
    done
'

test_expect_success 'a free body let go from a twist rocks to rest, not wider and wider' '
    # kept upright with a part that integrates its tilt and little damping,
    # the face rocked on with no end, still 5 px from rest after 8 s
    "$POYO" "$DATA/1f600.png" -s 128 -i twist --anchor none --duration 10 --frames fr -f -q -o clip.gif &&
    "$MOTIONSTATS" --impulse twist --input "$DATA/1f600.png" --per-frame fr >per.txt &&
    awk "/^frame / && \$2 >= 100 && \$4 > 1 { print; bad = 1 } END { exit bad }" per.txt
'

test_expect_success 'a press peaks on a frame at a low frame rate, as deep as asked' '
    # peaking between two frames, the clip never showed the depth asked:
    # at --fps 10 a squash of the face 0.68 of it, a stretch of the flag
    # 0.70, a twist of the flag 0.85 (its largest step 4.1 times the
    # median); at --fps 15 a poke of the flag 0.74
    for case in "1f600.png squash 10" "1f6a9.png stretch 10" "1f6a9.png twist 10" "1f6a9.png poke 15"; do
        set -- $case &&
        measure $1 $2 --fps $3 && s=$(strength_of $2) &&
        holds strength "strength >= 0.85 * $s && strength <= 1.15 * $s" &&
        holds steps "step_ratio <= 3" || exit 1
    done
'

test_expect_success 'a twist bends the face, it does not tilt it' '
    for img in 1f600.png 1f431.png; do
        measure $img twist && holds jelly "jelly >= 0.32" || exit 1
    done
'

test_expect_success 'a squash bends the face, it does not scale it' '
    # pressed over four frames the cat 1f431 was scaled: the best affine map
    # left 0.32 of the motion at its three frames farthest from rest, and
    # 0.24 at its deepest two
    for img in 1f600.png 1f431.png; do
        measure $img squash && holds jelly "jelly >= 0.32" &&
        holds area "area_dev <= 0.05" && holds steps "step_ratio <= 3" || exit 1
    done
'

test_expect_success 'the frame-only estimate of the motion follows the render grid' '
    measure 1f600.png squash && holds flow "flow_error <= 0.2"
'

test_expect_success 'a flag waved at the largest strength, at the default volume, keeps its shape' '
    # at 0.4 its thin pole buckled under the drive and the body tangled
    # from its first frame on: 2.7 times its area at rest, 61 degrees
    measure 1f6a9.png wave --strength $(largest_of wave) &&
    holds flag "area_dev <= 0.05 && kink_new <= 30 && parts_changed == 0 && holes_new == 0 && size_ratio >= 0.85"
'

test_expect_success 'the area of a periodic clip is measured against the body at rest, not its first frame' '
    # a loop of a steady pat starts at a moment of its motion: measured from
    # it, the fire 1f525 patted at 0.3 with --volume 0.8 read 5.2 % off
    # while its area stayed within 3.5 % of rest. Every frame made a copy of
    # the one farthest from rest in area: from rest they are that far off,
    # from their first frame not at all
    measure 1f6a9.png pat --strength 0.3 --volume 0.8 &&
    "$MOTIONSTATS" --impulse pat --periodic --per-frame fr 2>&1 |
        awk "\$1 == \"frame\" && \$2 == 0 { a0 = \$10 } \$1 == \"frame\" { d = \$10 - a0; d = d < 0 ? -d : d; if (d >= m) { m = d; f = \$2 } } END { printf \"%04d\n\", f }" >far &&
    for f in fr/frame_*.png; do cp "fr/frame_$(cat far).png" "$f.new" && mv "$f.new" "$f" || exit 1; done &&
    "$MOTIONSTATS" --impulse pat --periodic fr >fig.txt && holds "from frame 0" "area_dev == 0" &&
    "$MOTIONSTATS" --impulse pat --periodic --input "$DATA/1f6a9.png" --exact "-s 128 -i pat --strength 0.3 --volume 0.8" fr >fig.txt &&
    holds "from rest" "area_dev >= 0.02" &&
    measure 1f6a9.png squash && cp fig.txt exact.txt &&
    "$MOTIONSTATS" --impulse squash fr >fig.txt &&
    test "$(grep "^area_dev " exact.txt)" = "$(grep "^area_dev " fig.txt)"
'

test_expect_success 'a slanting rocket lands without turning, and a turn of it is seen' '
    # its landing squash turned the principal axis of the rocket (45 degrees,
    # 4:1) by 10 degrees and the banana'"'"'s by 21 while their bodies turned 4 and 2
    for imp in jump drop; do
        measure 1f680.png $imp && holds upright "axis_dev_max <= 10" || exit 1
    done &&
    measure 1f680.png twist --anchor none --strength 0.3 && holds turn "axis_dev_max >= 14"
'

test_expect_success 'a piece cut off by a gap seen through is a part of its own, and one joined is not' '
    mkdir torn joined &&
    "$MKPNG" invader torn/frame_0000.png 128 &&
    "$MKPNG" invader-torn torn/frame_0001.png 128 &&
    "$MKPNG" invader torn/frame_0002.png 128 &&
    "$MOTIONSTATS" torn >fig.txt &&
    holds torn "parts_changed == 1" &&
    "$MKPNG" invader-torn joined/frame_0000.png 128 &&
    "$MKPNG" invader joined/frame_0001.png 128 &&
    "$MKPNG" invader-torn joined/frame_0002.png 128 &&
    "$MOTIONSTATS" joined >fig.txt &&
    holds joined "parts_changed == 1"
'

test_expect_success 'a hole opened through the body is seen, a slit pressed shut is not a hole' '
    disc_clip holed holed &&
    "$MOTIONSTATS" holed >fig.txt &&
    holds opened "holes_new == 1" &&
    # the popper'"'"'s streamer pressed onto its cone shuts the slit between
    # them at its mouth: 15 frames of its drop had a hole by the count alone
    # (and its confetti a pixel apart, one part across the gap at rest, do
    # not count as torn as they move apart)
    for imp in poke stretch drop wave pat; do
        measure 1f389.png $imp && holds whole "holes_new == 0 && parts_changed == 0" || exit 1
    done
'

test_expect_success 'a body squashed at the default spreads the foot it stands on rather than pressing it flat into points' '
    # the dog stands on the tip of its tongue: held as narrow as at rest,
    # the tongue was pressed flat under the face into points (34 degrees)
    measure 1f436.png squash &&
    s=$(strength_of squash) &&
    holds dog "kink_new <= 30 && area_dev <= 0.05 && strength >= 0.85 * $s && strength <= 1.15 * $s"
'

test_expect_success 'a finger on a part narrower than itself presses it into the body, not the ledge beside it into a point' '
    # the post office'"'"'s dome is 1.73 times as wide as the finger'"'"'s spread
    # across: reaching no deeper ahead than on a wide part, the finger pressed
    # the dome into the ledge under it, whose corner tipped up into a point
    # (49 degrees past rest); it is still a dent, 3 times its far side or more
    measure 1f3e4.png poke &&
    holds "post office" "kink_new <= 30 && dent_ratio >= 3 && area_dev <= 0.05"
'

test_expect_success 'a notch pressed into a smooth outline is a kink, a corner the picture has at rest is not' '
    disc_clip notched notched &&
    "$MOTIONSTATS" notched >fig.txt &&
    holds notch "kink_new >= 45" &&
    # the invader'"'"'s corners turn some 80 degrees at rest, and as far squashed
    "$MKPNG" invader invader.png 64 &&
    "$POYO" invader.png -s 128 -i squash --frames fr -f -q -o clip.gif &&
    "$MOTIONSTATS" --impulse squash --input invader.png --exact "-s 128 -i squash" fr >fig.txt &&
    holds corners "kink_rest >= 60 && kink_max >= 60 && kink_new <= 30" &&
    # nor is a notch the picture has at rest pressed shut along its sides:
    # the detective'"'"'s hair meets her shoulder in one, and poked at 0.3
    # with --volume 0.8 her head sinks into her collar, squeezing the
    # outline beside the notch along its length: the notch'"'"'s turn moves
    # to points matched more than 2 points from it at rest (judged against
    # the rest turns 2 points either side of their own matches alone, 73
    # degrees)
    rm -rf fr &&
    measure 1f575-1f3ff-200d-2640-fe0f.png poke --strength 0.3 --volume 0.8 &&
    holds "notch pressed shut" "kink_new <= 30" &&
    # with the default volume the notch is squeezed further: its corner,
    # matched 3 points back from a point turning past it, lies within the
    # 3 px either side its turn is measured over, but neither within 2
    # points of its match nor at the matches of the points 2 either side
    # (judged against those alone, 33 degrees)
    measure 1f575-1f3ff-200d-2640-fe0f.png poke --strength 0.3 &&
    holds "notch squeezed" "kink_new <= 30"
'

test_expect_success 'where one part crosses another, the outline turns from one to the other, and that is no kink' '
    # the kneeling woman jumping twice as high as the default swings her
    # ponytail over her back; the points of the outline crowd into the
    # notch where it crosses, so the 3 points either side of one whose turn
    # reaches into it were matched along her hair alone (73 degrees)
    measure 1f9ce-1f3ff-200d-2640-fe0f-200d-27a1-fe0f.png jump --strength 0.44 &&
    holds ponytail "kink_new <= 30"
'

test_expect_success 'pixel art whose squares meet at corners stays whole, held or free' '
    "$MKPNG" invader invader.png 64 &&
    for imp in squash stretch poke shake twist jump drop wave pat; do
        for anchor in bottom none; do
            case $imp-$anchor in wave-none | pat-none) continue ;; esac
            rm -rf fr &&
            "$POYO" invader.png -s 128 -i $imp --anchor $anchor --frames fr -f -q -o clip.gif &&
            "$MOTIONSTATS" --impulse $imp --input invader.png --exact "-s 128 -i $imp --anchor $anchor" fr >fig.txt &&
            holds "$imp, --anchor $anchor" "parts_changed == 0 && holes_new == 0" || exit 1
        done
    done
'

test_expect_success 'the gooiest body shoved as hard as it goes stays whole and keeps its area within 5 %' '
    # let go at the peak, the flag lost 8.3 % and the balloon 13.3 %; the
    # hand eases back to twice the default shove first
    s=$(largest_of shake) &&
    for img in 1f6a9.png 1f388.png; do
        measure $img shake --strength $s --volume 0.8 &&
        holds "$img" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05 && strength > 0.85 * $s && strength < 1.15 * $s" ||
        exit 1
    done
'

test_expect_success 'a body shaken past its default leans from its foot instead of shearing at a row, held or free' '
    # the shove began at 0.35 of the height at any strength: at the largest,
    # with the default volume, the "!" shaken free bent into an S that
    # turned its outline 48 degrees past rest and the detective held sheared
    # under her shoulders, 36
    s=$(largest_of shake) &&
    measure 2757.png shake --anchor none --strength $s && holds "free !" "kink_new <= 30 && strength >= 0.85 * $s" &&
    measure 1f575-1f3ff-200d-2640-fe0f.png shake --strength $s && holds detective "kink_new <= 30 && strength >= 0.85 * $s"
'

test_expect_success 'a stretch at its largest strength, at --volume 0.8, keeps its area within 5 %, whole and as tall as asked' '
    # let go at the peak, a grinning face, a banana and a custard crumpled as
    # they sprang back: 5.9 %, 11.1 % and 13.6 % off their area
    s=$(largest_of stretch) &&
    for img in 1f600.png 1f34c.png 1f36e.png; do
        measure $img stretch --strength $s --volume 0.8 &&
        holds "$img" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05 &&
                      strength > 0.85 * $s && strength < 1.15 * $s" ||
        exit 1
    done
'

test_expect_success 'a round face stretched to the top of the range keeps a round top, not a point' '
    # drawn in towards the middle as on a free body, the grinning face came
    # to a point that turned 49 degrees past rest, the cat 55
    s=$(largest_of stretch) &&
    for img in 1f600.png 1f431.png; do
        measure $img stretch --strength $s --volume 0.8 && holds "$img" "kink_new <= 30" || exit 1
    done
'

test_expect_success 'a bar lying across the square stretched past its default grows no horns, held or free' '
    # held as wide as at rest, its ends bowed in between corners that
    # turned its outline 49 degrees past rest at the largest strength held,
    # 46 free
    s=$(largest_of stretch) &&
    measure 2757-wide.png stretch --strength $s --volume 0.8 && holds held "kink_new <= 30" &&
    measure 2757-wide.png stretch --strength $s --volume 0.8 --anchor none && holds free "kink_new <= 30"
'

test_expect_success 'a body poked past its default spreads its foot, not a skirt over it' '
    # held as narrow as at rest, the post office poked at the top of the
    # range with --volume 0.8 bulged over its foot into corners that turned
    # its outline 43 degrees past rest
    s=$(largest_of poke) &&
    measure 1f3e4.png poke --strength $s --volume 0.8 && holds "post office" "kink_new <= 30 && area_dev <= 0.05"
'

test_expect_success 'a free body poked past its default spreads its far side as it widens' '
    # held as narrow as at rest by the second hand, the notes poked at the
    # top of the range with --volume 0.8 pressed their beam down onto the
    # left stem into a corner that turned the outline 37 degrees past rest
    s=$(largest_of poke) &&
    measure 1f3b5.png poke --strength $s --volume 0.8 --anchor none && holds notes "kink_new <= 30 && area_dev <= 0.05"
'

test_expect_success 'a poked dent springs back without a notch at its middle' '
    # rolled off, the edge of the dent first, the finger held the middle of
    # the dent after the rest had sprung back: the keycap turned its outline
    # 32 degrees past rest there, the flag 36; loosened, 15 and 26
    for img in 0034-fe0f-20e3.png 1f6a9.png; do
        measure $img poke && holds "$img" "kink_new <= 30" || exit 1
    done
'

test_expect_success 'a finger presses a thin part down without creasing it' '
    # pressed as deep ahead of the tip as across it, the finger squeezed the
    # banana'"'"'s tip against its peel into a crease that turned its outline
    # 100 degrees past rest (held and free), and the popper'"'"'s streamer 49;
    # reaching 1.75 times as deep, 20, 18 and 21
    measure 1f34c.png poke && holds banana "kink_new <= 30" &&
    measure 1f34c.png poke --anchor none && holds "free banana" "kink_new <= 30" &&
    measure 1f389.png poke && holds popper "kink_new <= 30"
'

test_expect_success 'a body squashed past the default widens onto its foot' '
    # its foot held as narrow as at rest, the grinning face squashed at 0.38
    # with --volume 0.8 bulged over it into a notch that turned its outline
    # 32 degrees past rest; with the foot spreading as the body widens, 16.
    # Hung from its top, the foot it spreads is its top edge: 29 before, 14
    s=$(largest_of squash) &&
    measure 1f600.png squash --strength $s --volume 0.8 && holds face "kink_new <= 30 && area_dev <= 0.05" &&
    measure 1f600.png squash --anchor top --strength $s --volume 0.8 &&
    holds hanging "kink_new <= 30 && area_dev <= 0.05 && parts_changed == 0"
'

test_expect_success 'a free body squashed past the default slides on the palm under it' '
    # held where it touched the palm under it, the popper squashed free at
    # 0.32 bulged over it into a notch that turned its outline 32 degrees
    # past rest, and the flag at 0.25 with --volume 0.8 31; sliding, 20 and 19
    measure 1f389.png squash --anchor none --strength 0.32 && holds popper "kink_new <= 30 && parts_changed == 0" &&
    measure 1f6a9.png squash --anchor none --strength 0.25 --volume 0.8 &&
    holds flag "kink_new <= 30 && parts_changed == 0"
'

test_expect_success 'a free body twisted at the default does not press its tip flat against the canvas edge' '
    # the ruler fills its canvas; twisted free, its tip rose into the top
    # wall and was pressed flat there, and its outline turned 54 degrees
    # past rest. The hand now moves back by what its turn carries past a
    # wall: 13. The keycap, square, is pressed down by the hand instead of
    # having its corner flattened and is off its area by 4.8 % (0.8 %
    # before), within the 5 % every clip keeps
    measure 1f4d0.png twist --anchor none && holds ruler "kink_new <= 30 && area_dev <= 0.05 && edge_touch == 0" &&
    measure 0034-fe0f-20e3.png twist --anchor none && holds keycap "kink_new <= 30 && area_dev <= 0.05"
'

test_expect_success 'a free body on a flat foot slides on the palm under it, a round one keeps its jelly' '
    # held where it touched the palm under it, the detective'"'"'s foot (her
    # shoulders) stayed as wide as at rest while her body bulged out above
    # it, into a corner that turned the outline 37 degrees past rest; sliding,
    # 24. A round foot still holds: sliding, the grinning face showed 0.32 of
    # its motion past its best affine map instead of 0.41
    measure 1f575-1f3ff-200d-2640-fe0f.png squash --anchor none && s=$(strength_of squash) &&
    holds detective "kink_new <= 30 && area_dev <= 0.05 && strength >= 0.85 * $s" &&
    measure 1f600.png squash --anchor none && holds face "jelly >= 0.38"
'

test_expect_success 'a body stretched past the default gathers its foot as it narrows' '
    # held as wide as at rest, the keycap stretched at the top of the range
    # with --volume 0.8 flared out over its foot into corners that turned
    # its outline 34 degrees past rest; gathering, 21
    s=$(largest_of stretch) &&
    measure 0034-fe0f-20e3.png stretch --strength $s --volume 0.8 &&
    holds keycap "kink_new <= 30 && area_dev <= 0.05 && strength >= 0.85 * $s"
'

test_expect_success 'a free body stretched at the top of the range is drawn in at both ends, a tall bar at its top' '
    # drawn in at its top alone, by twice as much, the grinning face came
    # to a point that turned its outline 48 degrees past rest; drawn in at
    # both ends, 19. The flag (drawn in at its top alone by 1.25 it was off
    # its area by 6.8 %) and the tall "!" (drawn in at its foot too, it
    # gained 5.8 %) keep their area within 5 %, as they did before. Drawn
    # in by half its way to the middle, the "!" came to a point at its top
    # that turned 38 degrees past rest
    s=$(largest_of stretch) &&
    measure 1f600.png stretch --anchor none --strength $s --volume 0.8 && holds face "kink_new <= 30" &&
    measure 1f6a9.png stretch --anchor none --strength $s --volume 0.8 && holds flag "area_dev <= 0.05" &&
    measure 2757.png stretch --anchor none --strength $s --volume 0.8 && holds "!" "area_dev <= 0.05 && kink_new <= 30"
'

test_expect_success 'a flag poked at the top of the range keeps its pole whole' '
    # loosened at 0.3 with a round finger, the pole crumpled: its outline
    # turned 163 degrees and a part tore off. Rolled off, 29; loosened with
    # a finger 1.45 times as deep ahead, 55, where the pole bulges at its
    # foot (BUGS in the man page)
    measure 1f6a9.png poke --strength 0.3 &&
    holds whole "parts_changed == 0 && holes_new == 0" && holds "not crumpled" "kink_new <= 60"
'

test_expect_success 'a dent deeper than the default springs back without a notch at its middle' '
    # rolled off, the edge of the dent first, the finger held the middle of
    # the dent after the rest had sprung back: the grinning face poked at
    # 0.3 turned its outline 72 degrees past rest there; with --volume 0.8
    # the keycap 33 and the "!" 52. Loosened, 13, 14 and 15
    measure 1f600.png poke --strength 0.3 && holds face "kink_new <= 30" &&
    measure 0034-fe0f-20e3.png poke --strength 0.3 --volume 0.8 && holds keycap "kink_new <= 30" &&
    measure 2757.png poke --strength 0.3 --volume 0.8 && holds "!" "kink_new <= 30"
'

test_expect_success 'a free body stretched at the top of the range, at --volume 0.8, keeps its area within 5 % and stays whole' '
    # drawn back to half and let go, the banana tore and lost 9.4 %; each
    # column lifted all the same, the tower swelled by 21 % and its spire came
    # apart; lifted straight up, the flag lost 7.7 % at its waist
    s=$(largest_of stretch) &&
    for img in 1f600.png 1f34c.png 1f5fc.png 1f6a9.png; do
        measure $img stretch --strength $s --volume 0.8 --anchor none &&
        holds "$img" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05 &&
                      strength > 0.85 * $s && strength < 1.15 * $s" ||
        exit 1
    done
'

test_expect_success 'a squash at its largest strength, at --volume 0.8, keeps its area within 5 %, whole and as deep as asked' '
    # kept to the cells'"'"' plain area, the cat lost 5.4 % of its picture under the palm
    s=$(largest_of squash) &&
    for img in 1f431.png 1f600.png 1f34c.png; do
        measure $img squash --strength $s --volume 0.8 &&
        holds "$img" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05 &&
                      strength > 0.85 * $s && strength < 1.15 * $s" ||
        exit 1
    done
'

test_expect_success 'a balloon and a free flag poked as hard as they go, at --volume 0.8, keep their area within 5 % and stay whole' '
    # the pressure, a spring, let the balloon'"'"'s picture shrink 6.8 % under
    # the finger and the free flag'"'"'s 9.5 %, its pole bulging at the foot
    s=$(largest_of poke) &&
    measure 1f388.png poke --strength $s --volume 0.8 &&
    holds balloon "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05" &&
    measure 1f6a9.png poke --strength $s --volume 0.8 --anchor none &&
    holds flag "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05"
'

test_expect_success 'a free flag and a free banana poked as hard as they go, at --volume 0.8, keep a smooth outline' '
    # a round finger pressed the flag'"'"'s cloth flat into its pole (the
    # outline turned 80 degrees past rest) and the banana'"'"'s peel into a
    # point (54)
    s=$(largest_of poke) &&
    measure 1f6a9.png poke --strength $s --volume 0.8 --anchor none &&
    holds flag "kink_new <= 30" &&
    measure 1f34c.png poke --strength $s --volume 0.8 --anchor none &&
    holds banana "kink_new <= 30"
'

test_expect_success 'a flag squashed at its largest strength keeps its thin pole whole at any --volume' '
    # at 0.4 the pole pinched apart at --volume 0 and 0.3
    s=$(largest_of squash) &&
    for v in 0 0.3 0.8; do
        measure 1f6a9.png squash --strength $s --volume $v &&
        holds "--volume $v" "parts_changed == 0 && holes_new == 0" ||
        exit 1
    done
'

test_expect_success 'a banana poked at --volume 0.8 does not flail its peel' '
    # uncapped, the linear mode fed the peel energy after the finger let go:
    # it swung from 8 px to 40 px off rest (0.30 of the height) until the clip
    # was cut at its longest, 2 s. Landed on the peel, the dent itself
    # reaches 0.19 of the height
    measure 1f34c.png poke --volume 0.8 &&
    holds calm "peak_d_rel <= 0.22 && duration < 1.5 && in_canvas == 1 && holes_new == 0"
'

test_expect_success 'a twist twice its default turns a custard on its plate and a party popper as far as asked, whole, held or free' '
    for img in 1f36e.png 1f389.png; do
        for anchor in bottom none; do
            measure $img twist --strength 0.4 --anchor $anchor &&
            holds "$img, --anchor $anchor" "parts_changed == 0 && holes_new == 0 && strength > 0.34 && strength < 0.46" ||
            exit 1
        done
    done
'

test_expect_success 'a slow body jumps and drops as high as asked and lands whole, not flattened' '
    # under the gravity of a body of --hz 3, one of --hz 1 sagged 30 % of its
    # height: landing flattened the grinning face to half its height (area
    # 11 % off) and tore the balloon off its string
    for img in 1f600.png 1f388.png 2757.png; do
        for imp in jump drop; do
            s=$(strength_of $imp) &&
            measure $img $imp --hz 1 &&
            holds "$imp --hz 1 on $img" "parts_changed == 0 && holes_new == 0 && area_dev_landing <= 0.08 &&
                strength >= 0.85 * $s && strength <= 1.15 * $s" ||
            exit 1
        done
    done &&
    # slower still, it is the same jump played slower: crouched and leapt at
    # full speed, the balloon at --hz 0.3 jumped 1.37 times as high as asked
    # (the clip, held to 2 s, ended before it landed), its largest step 7.2
    # times the median
    s=$(strength_of jump) &&
    measure 1f388.png jump --hz 0.3 &&
    holds "jump --hz 0.3" "parts_changed == 0 && holes_new == 0 && area_dev_landing <= 0.08 &&
        strength >= 0.85 * $s && strength <= 1.15 * $s && step_ratio <= 3"
'

test_expect_success 'a slow body'"'"'s clip runs as much longer as it moves more slowly' '
    # held to 2 s, on a body of --hz 0.2 the squash was cut before its
    # rebound and eased home in a few frames (largest step 9.4 times the
    # median), and the drop ended before the face had fallen back (0.46 of
    # the height asked)
    for imp in squash drop; do
        s=$(strength_of $imp) &&
        measure 1f600.png $imp --hz 0.2 &&
        holds "$imp --hz 0.2" "duration > 4 && duration <= 20 && step_ratio <= 3 &&
            strength >= 0.85 * $s && strength <= 1.15 * $s && parts_changed == 0 && holes_new == 0" ||
        exit 1
    done &&
    # asked, the length is what --duration says
    measure 1f600.png squash --hz 0.2 --duration 1.5 &&
    holds "--duration 1.5" "frames == 38"
'

test_expect_success 'a slow body is patted and waved as slowly as it moves, and stays whole' '
    # patted at 1.5 Hz, a bar lying across the square on a body of --hz 0.3
    # tore in two (in 6 frames), and the exclamation mark standing up on one
    # of --hz 0.2 (in 9); now the pats come at 0.15 and 0.1 Hz, loops of 167
    # and 250 frames
    measure 2757-wide.png pat --hz 0.3 &&
    holds "pat --hz 0.3" "parts_changed == 0 && holes_new == 0 && frames == 167" &&
    measure 2757.png pat --hz 0.2 &&
    holds "pat --hz 0.2" "parts_changed == 0 && holes_new == 0 && frames == 250" &&
    measure 1f388.png wave --hz 0.5 &&
    holds "wave --hz 0.5" "parts_changed == 0 && holes_new == 0 && frames == 125"
'

test_expect_success 'a slow body is squashed as slowly as it moves: as deep as asked, its area kept, whole' '
    # pressed as fast as a body of --hz 3, the party popper at --hz 0.5 lost
    # 5.9 % of its area and opened 2 holes
    s=$(strength_of squash) &&
    measure 1f389.png squash --hz 0.5 &&
    holds "squash --hz 0.5" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.05 &&
        strength >= 0.85 * $s && strength <= 1.15 * $s"
'

test_expect_success 'a kick point off the stamp is its box'"'"'s nearest point: a finger there pokes the edge, a twist turns about it whole' '
    # a finger ten images away touched nothing (the shape had "no free part
    # that can wobble"), and a turn about that point swept the face across
    # the canvas and opened 3 holes
    measure 1f600.png poke --at -10,-10 &&
    holds "poke --at -10,-10" "parts_changed == 0 && holes_new == 0 && peak_d_rel >= 0.06" &&
    measure 1f600.png twist --at -10,-10 &&
    holds "twist --at -10,-10" "parts_changed == 0 && holes_new == 0 && in_canvas == 1"
'

test_expect_success 'a wave swayed up and down against the anchor stays whole' '
    # the drive trials pumped the sway force up to hundreds of times the one
    # asked: the party popper tore and lost a third of its area
    measure 1f389.png wave --angle 90 &&
    holds "wave --angle 90" "parts_changed == 0 && holes_new == 0 && area_dev <= 0.1 && peak_d_rel >= 0.03"
'

for anchor in bottom none; do
    test_expect_success "a flag on a thin pole squashed with --anchor $anchor stays as crisp as at rest, its area kept" '
        # squashed, the body widens and draws the pole'"'"'s and the flag'"'"'s
        # upright edges over more pixels: unsharpened, the frames fell to
        # 0.94 (held) and 0.92 (free) of the rest frame'"'"'s sharpness
        measure 1f6a9.png squash --anchor '"$anchor"' &&
        holds crisp "sharp_min >= 0.95" &&
        holds area "area_dev <= 0.05" &&
        holds whole "parts_changed == 0 && holes_new == 0"
    '
done

test_done
