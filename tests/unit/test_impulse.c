/* test_impulse.c - the presses that start a one-shot clip: they take several
 * frames, reach the strength asked at their peak (squash, stretch, twist),
 * dent locally (poke from the side: the poked part moves 3 times as far as the
 * part across the centre), crouch before a jump, lift before a drop, and leave a
 * free body where it was. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "geom/vec2.h"
#include "sim/animate.h"

/* A w x h image holding an opaque disc. */
static image make_disc(int w, int h)
{
    image im;
    image_alloc(&im, w, h, NULL);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double dx = (x + 0.5) / w - 0.5, dy = (y + 0.5) / h - 0.5;
            double d = (0.46 - sqrt(dx * dx + dy * dy)) * w;
            uint8_t *p = im.rgba + 4 * ((size_t)y * w + x);
            p[0] = 250, p[1] = 200, p[2] = 60;
            p[3] = (uint8_t)(d > 1 ? 255 : d < 0 ? 0 : d * 255);
        }
    image_clear_invisible(&im);
    return im;
}

/* The clip of impulse kind at strength s on a 64 px disc (NAN: the default). */
static int clip_of(impulse_kind kind, double s, v2 at, anchor_kind anchor, motion *m)
{
    image im = make_disc(64, 64);
    animate_def d = animate_default_def();
    d.impulse.kind = kind;
    d.impulse.strength = s;
    if (!isnan(at.x))
        d.impulse.at = at;
    if (anchor != (anchor_kind)-1) {
        d.anchor_auto = 0;
        d.body.anchor = anchor;
    }
    int ok = animate_simulate(&im, &d, m, NULL) == POYO_OK;
    image_free(&im);
    return ok;
}

static const double *fx(const motion *m, int f) { return m->x + (size_t)f * m->n; }
static const double *fy(const motion *m, int f) { return m->y + (size_t)f * m->n; }

/* Height of the nodes' box in frame f. */
static double height(const motion *m, int f)
{
    double lo = 1e300, hi = -1e300;
    for (int k = 0; k < m->n; k++) {
        lo = fmin(lo, fy(m, f)[k]);
        hi = fmax(hi, fy(m, f)[k]);
    }
    return hi - lo;
}

static void squash_and_stretch_reach_their_strength(void)
{
    const impulse_kind kinds[] = { IMPULSE_SQUASH, IMPULSE_STRETCH };
    const double strengths[] = { 0.08, 0.16, 0.3 };
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 3; s++) {
            motion m;
            ENSURE(clip_of(kinds[k], strengths[s], v2_make(NAN, NAN), (anchor_kind)-1, &m));
            double h0 = height(&m, 0), lo = h0, hi = h0;
            int peak = 0;
            for (int f = 0; f < m.count; f++) {
                double h = height(&m, f);
                if (k == 0 ? h < lo : h > hi)
                    peak = f;
                lo = fmin(lo, h);
                hi = fmax(hi, h);
            }
            double got = k == 0 ? 1.0 - lo / h0 : hi / h0 - 1.0;
            ENSURE_MSG(fabs(got - strengths[s]) <= 0.15 * strengths[s], "%s %g: peak %g",
                       k == 0 ? "squash" : "stretch", strengths[s], got);
            /* the press takes several frames (a palm on a standing body three,
             * the hand that stretches it four), it is not a kick that lands at once */
            ENSURE_MSG(peak >= (k == 0 ? 2 : 3), "the peak comes at frame %d", peak);
            ENSURE(fabs(height(&m, 1) - h0) < 0.5 * strengths[s] * h0);
            motion_free(&m);
        }
}

static void poke_dents_locally(void)
{
    motion m;
    ENSURE(clip_of(IMPULSE_POKE, 0.2, v2_make(0.15, 0.5), (anchor_kind)-1, &m));
    /* nodes near the poked point and near its mirror image across the centre */
    double cx = 0, cy = 0;
    for (int k = 0; k < m.n; k++)
        cx += m.qx[k], cy += m.qy[k];
    cx /= m.n, cy /= m.n;
    double px = 0.15 * 64, py = 0.5 * 64, mx = 2 * cx - px, my = 2 * cy - py, r = 0.15 * 64;
    double best = 0, far_at_best = 0;
    for (int f = 0; f < m.count; f++) {
        double near = 0, far = 0;
        int nn = 0, nf = 0;
        for (int k = 0; k < m.n; k++) {
            double d = hypot(fx(&m, f)[k] - m.qx[k], fy(&m, f)[k] - m.qy[k]);
            if (hypot(m.qx[k] - px, m.qy[k] - py) < r)
                near += d, nn++;
            if (hypot(m.qx[k] - mx, m.qy[k] - my) < r)
                far += d, nf++;
        }
        ENSURE(nn > 0 && nf > 0);
        if (near / nn > best) {
            best = near / nn;
            far_at_best = far / nf;
        }
    }
    ENSURE_MSG(best >= 3.0 * far_at_best, "dent %g, far side %g", best, far_at_best);
    motion_free(&m);
}

static void twist_turns_as_much_as_asked(void)
{
    motion m;
    ENSURE(clip_of(IMPULSE_TWIST, 0.2, v2_make(NAN, NAN), (anchor_kind)-1, &m));
    double most = 0;
    for (int f = 0; f < m.count; f++) {
        double qx = 0, qy = 0, px = 0, py = 0, dot = 0, cross = 0;
        for (int k = 0; k < m.n; k++)
            qx += m.qx[k], qy += m.qy[k], px += fx(&m, f)[k], py += fy(&m, f)[k];
        qx /= m.n, qy /= m.n, px /= m.n, py /= m.n;
        for (int k = 0; k < m.n; k++) {
            double rx = m.qx[k] - qx, ry = m.qy[k] - qy, sx = fx(&m, f)[k] - px, sy = fy(&m, f)[k] - py;
            dot += rx * sx + ry * sy;
            cross += rx * sy - ry * sx;
        }
        most = fmax(most, fabs(atan2(cross, dot)));
    }
    ENSURE_MSG(fabs(most - 0.2) <= 0.03, "turned %g radians", most);
    motion_free(&m);
}

static void jump_crouches_and_drop_rises_first(void)
{
    motion m;
    ENSURE(clip_of(IMPULSE_JUMP, NAN, v2_make(NAN, NAN), (anchor_kind)-1, &m));
    double bottom0 = -1e300, top0 = 1e300;
    for (int k = 0; k < m.n; k++)
        bottom0 = fmax(bottom0, m.qy[k]), top0 = fmin(top0, m.qy[k]);
    /* the first frames: the top comes down while the bottom stays on the floor */
    double top = 1e300, bottom = -1e300;
    for (int k = 0; k < m.n; k++)
        top = fmin(top, fy(&m, 3)[k]), bottom = fmax(bottom, fy(&m, 3)[k]);
    ENSURE_MSG(top > top0 + 0.02 * (bottom0 - top0), "no crouch: top %g, at rest %g", top, top0);
    ENSURE(fabs(bottom - bottom0) < 0.5);
    motion_free(&m);
    ENSURE(clip_of(IMPULSE_DROP, 0.35, v2_make(NAN, NAN), (anchor_kind)-1, &m));
    double size = bottom0 - top0, lift = 0, first_lift = 0;
    int first_up = -1;
    for (int f = 0; f < m.count; f++) {
        double b = -1e300;
        for (int k = 0; k < m.n; k++)
            b = fmax(b, fy(&m, f)[k]);
        lift = fmax(lift, bottom0 - b);
        if (first_up < 0 && bottom0 - b > 0.5) {
            first_up = f;
            first_lift = bottom0 - b;
        }
    }
    /* it leaves the floor gradually (no jump to the top) and reaches the height asked */
    ENSURE_MSG(fabs(lift - 0.35 * size) <= 0.05 * size, "lifted %g of %g", lift, size);
    ENSURE_MSG(first_up >= 1 && first_lift < 0.25 * lift, "frame %d lifted %g of %g", first_up, first_lift, lift);
    motion_free(&m);
}

/* The least-squares turn of frame f from rest about the centre, degrees. */
static double tilt_of(const motion *m, int f)
{
    double qx = 0, qy = 0, cx = 0, cy = 0, dot = 0, cross = 0;
    for (int k = 0; k < m->n; k++)
        qx += m->qx[k], qy += m->qy[k], cx += fx(m, f)[k], cy += fy(m, f)[k];
    qx /= m->n, qy /= m->n, cx /= m->n, cy /= m->n;
    for (int k = 0; k < m->n; k++) {
        double rx = m->qx[k] - qx, ry = m->qy[k] - qy, sx = fx(m, f)[k] - cx, sy = fy(m, f)[k] - cy;
        dot += rx * sx + ry * sy;
        cross += rx * sy - ry * sx;
    }
    return fabs(atan2(cross, dot)) * 180.0 / PI;
}

/* Simulates impulse kind at its default strength on the flag (1f6a9) at 128
 * px into *m, with its definition in *d. */
static poyo_status flag_clip(impulse_kind kind, animate_def *d, motion *m)
{
    image im;
    poyo_error err;
    poyo_status st = image_load("tests/data/1f6a9.png", IMAGE_DEFAULT_MAX_PIXELS, &im, &err);
    if (st != POYO_OK)
        return st;
    *d = animate_default_def();
    d->impulse.kind = kind;
    d->impulse.strength = impulse_get_info(kind)->strength;
    d->width = d->height = 128;
    st = animate_simulate(&im, d, m, &err);
    image_free(&im);
    return st;
}

static void a_flag_on_its_pole_lands_upright_and_settles(void)
{
    /* the flag stands on the foot of its pole, far left of its centre: after
     * the jump it must land on its foot and stay nearly upright, not topple
     * or rest turned over until the clip's longest length (its clip ends once
     * it has landed and its wobble has faded, then eases home) */
    animate_def d;
    motion m;
    ENSURE(flag_clip(IMPULSE_JUMP, &d, &m) == POYO_OK);
    ENSURE_MSG(m.settled, "the clip ran to its longest length, %d frames", m.count);
    ENSURE_MSG(m.count <= (int)lround(1.2 * d.fps), "the clip lasts %d frames", m.count);
    /* the turn from rest, least squares about the centre */
    for (int f = 0; f < m.count; f++) {
        double tilt = tilt_of(&m, f);
        ENSURE_MSG(tilt < 8.0, "frame %d of %d leans %g degrees", f, m.count, tilt);
    }
    motion_free(&m);
}

/* The motion of impulse kind at strength s on 1f600 at side px, anchor as
 * the impulse says or `anchor`, into *m and its definition into *d. */
static void face_clip(impulse_kind kind, double s, int side, int own_anchor, anchor_kind anchor, animate_def *d,
                      motion *m)
{
    image im;
    poyo_error err;
    ENSURE(image_load("tests/data/1f600.png", IMAGE_DEFAULT_MAX_PIXELS, &im, &err) == POYO_OK);
    *d = animate_default_def();
    d->impulse.kind = kind;
    d->impulse.strength = s;
    d->anchor_auto = own_anchor;
    d->body.anchor = anchor;
    d->width = d->height = side;
    ENSURE(animate_simulate(&im, d, m, &err) == POYO_OK);
    image_free(&im);
}

static void a_strong_drop_lands_before_its_clip_ends(void)
{
    /* dropped from its largest height (0.8 times its own), the face is
     * lifted and in the air for over half a second: its clip must not end,
     * nor ease it home, before it is down, and it wobbles a while on the
     * floor before the ease begins */
    animate_def d;
    motion m;
    face_clip(IMPULSE_DROP, impulse_get_info(IMPULSE_DROP)->strength_max, 64, 1, ANCHOR_NONE, &d, &m);
    double floor_y = -1e300;
    for (int k = 0; k < m.n; k++)
        floor_y = fmax(floor_y, m.qy[k]);
    int up = 0, landed = -1;
    for (int f = 1; f < m.count && landed < 0; f++) {
        double low = -1e300;
        for (int k = 0; k < m.n; k++)
            low = fmax(low, fy(&m, f)[k]);
        if (low < floor_y - 2.0)
            up++;
        else if (up >= 2)
            landed = f;
    }
    int ease = (int)lround(0.2 * d.fps);
    ENSURE_MSG(landed > (int)lround(0.5 * d.fps), "landed at frame %d", landed);
    /* the last `ease` frames are eased: two or more before them are on the floor */
    ENSURE_MSG(m.count - ease - landed >= 2, "landed at frame %d of %d", landed, m.count);
    motion_free(&m);
}

static void a_jump_held_by_its_foot_settles_without_flying(void)
{
    /* anchored, a jumping body cannot leave the floor: its clip must not
     * wait for a landing that never comes, up to its longest length */
    animate_def d;
    motion m;
    face_clip(IMPULSE_JUMP, impulse_get_info(IMPULSE_JUMP)->strength, 64, 0, ANCHOR_BOTTOM, &d, &m);
    ENSURE_MSG(m.settled, "the clip ran to its longest length, %d frames", m.count);
    ENSURE_MSG(m.count <= (int)lround(1.2 * d.fps), "the clip lasts %d frames", m.count);
    motion_free(&m);
}

static void a_squashed_flag_bends_its_pole_without_toppling(void)
{
    /* pressed from above, the pole under the flag bends; it must not buckle
     * over as the flag slides away under the palm */
    animate_def d;
    motion m;
    ENSURE(flag_clip(IMPULSE_SQUASH, &d, &m) == POYO_OK);
    double most = 0.0;
    int at = 0;
    for (int f = 0; f < m.count; f++)
        if (tilt_of(&m, f) > most)
            most = tilt_of(&m, f), at = f;
    ENSURE_MSG(most < 12.0, "frame %d of %d leans %g degrees", at, m.count, most);
    motion_free(&m);
}

static void free_body_stays_in_place(void)
{
    motion m;
    ENSURE(clip_of(IMPULSE_SHAKE, 0.2, v2_make(NAN, NAN), ANCHOR_NONE, &m));
    double drift = 0;
    for (int f = 0; f < m.count; f++) {
        double cx = 0, cy = 0;
        for (int k = 0; k < m.n; k++)
            cx += fx(&m, f)[k] - m.qx[k], cy += fy(&m, f)[k] - m.qy[k];
        drift = fmax(drift, hypot(cx, cy) / m.n);
    }
    /* the shove moves the body, but it does not fly off: its centre stays within a fifth of its size */
    ENSURE_MSG(drift < 0.2 * 64, "the centre drifted %g pixels", drift);
    motion_free(&m);
}

/* The smallest share of its rest area any drawn lattice cell keeps over the
 * clip, counting a cell whose corners turn the wrong way (folded, or a bow tie)
 * as 0; a cell under 5 % is taken as folded flat. */
static double least_cell_share(const motion *m)
{
    const lattice *l = &m->lat;
    double least = 1e300;
    for (int f = 0; f < m->count; f++)
        for (int j = 0; j + 1 < l->ny; j++)
            for (int i = 0; i + 1 < l->nx; i++) {
                if (!l->cell[(size_t)j * (l->nx - 1) + i])
                    continue;
                int q[4] = { l->index[j * l->nx + i], l->index[j * l->nx + i + 1], l->index[(j + 1) * l->nx + i + 1],
                             l->index[(j + 1) * l->nx + i] };
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[3] < 0)
                    continue;
                double area = 0, turn = 1e300;
                for (int c = 0; c < 4; c++) {
                    int a = q[c], b = q[(c + 1) & 3], d = q[(c + 2) & 3];
                    area += 0.5 * (fx(m, f)[a] * fy(m, f)[b] - fx(m, f)[b] * fy(m, f)[a]);
                    double ux = fx(m, f)[b] - fx(m, f)[a], uy = fy(m, f)[b] - fy(m, f)[a];
                    double vx = fx(m, f)[d] - fx(m, f)[b], vy = fy(m, f)[d] - fy(m, f)[b];
                    turn = fmin(turn, ux * vy - uy * vx);
                }
                least = fmin(least, turn <= 0 ? 0.0 : area / (l->h * l->h));
            }
    return least;
}

/* The least share of its area any cell keeps (see least_cell_share) when
 * impulse kind at strength moves stamp (a file; NULL: a 64 px disc) with
 * the body's volume (NAN: its default) on a canvas of side canvas (0: the
 * stamp's own size); NAN when the stamp cannot be read or simulated. */
static double least_share_after(const char *stamp, impulse_kind kind, double strength, double volume, int canvas)
{
    image im;
    poyo_error err;
    if (stamp && image_load(stamp, IMAGE_DEFAULT_MAX_PIXELS, &im, &err) != POYO_OK)
        return NAN;
    if (!stamp)
        im = make_disc(64, 64);
    animate_def d = animate_default_def();
    d.impulse.kind = kind;
    d.impulse.strength = strength;
    if (!isnan(volume))
        d.body.volume = volume;
    d.width = d.height = canvas;
    motion m;
    poyo_status st = animate_simulate(&im, &d, &m, NULL);
    image_free(&im);
    if (st != POYO_OK)
        return NAN;
    double least = least_cell_share(&m);
    motion_free(&m);
    return least;
}

static void no_cell_folds_at_the_defaults(void)
{
    /* every impulse at its default strength, with the body's volume at either end
     * (stronger presses can still fold cells of some shapes) */
    const double volumes[] = { 0.0, 0.8 };
    for (int k = 0; k < IMPULSE_COUNT; k++)
        for (int v = 0; v < 2; v++) {
            const impulse_info *info = impulse_get_info((impulse_kind)k);
            double least = least_share_after(NULL, (impulse_kind)k, info->strength, volumes[v], 0);
            ENSURE_MSG(least >= 0.05, "%s at %g, volume %g: a cell keeps %g of its area", info->name, info->strength,
                       volumes[v], least);
        }
}

static void a_poke_up_to_its_default_folds_no_cell(void)
{
    /* a shallow poke is scaled up on its trial press; the finger must widen
     * with it, or the dent's slope passes one and the cells under it fold */
    const char *faces[] = { "tests/data/1f600.png", "tests/data/1f431.png" };
    const double strengths[] = { 0.05, 0.1, 0.2 };
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++) {
            double least = least_share_after(faces[f], IMPULSE_POKE, strengths[s], NAN, 128);
            ENSURE_MSG(least >= 0.05, "poke at %g on %s: a cell keeps %g of its area", strengths[s], faces[f], least);
        }
}

static void a_shape_on_a_corner_folds_no_cell(void)
{
    /* the rocket stands on its lower left corner: only the columns that reach
     * its foot are held, so nothing pins the underside of what overhangs and
     * the upper body turns without folding a cell against it */
    for (int k = 0; k < IMPULSE_COUNT; k++) {
        const impulse_info *info = impulse_get_info((impulse_kind)k);
        double least = least_share_after("tests/data/1f680.png", (impulse_kind)k, info->strength, NAN, 128);
        ENSURE_MSG(least >= 0.05, "%s at %g on 1f680: a cell keeps %g of its area", info->name, info->strength, least);
    }
}

static void no_cell_folds_over_the_documented_range(void)
{
    /* --list-impulses's ranges are those where the body never folds over
     * itself: each impulse at a quarter, half, three quarters and all of its
     * range, on round faces, a shape on a corner, a balloon on a string, thin
     * strokes, a bar lying on its side and a disc, at either end of --volume
     * and at its default (the bar, twisted along its whole foot, folded a
     * cell from 0.34 on) */
    const char *stamps[] = { "tests/data/1f600.png", "tests/data/1f431.png", "tests/data/1f680.png",
                             "tests/data/1f388.png", "tests/data/1f4af.png", "tests/data/2757-wide.png", NULL };
    const double volumes[] = { 0.0, 0.3, 0.8 };
    for (int k = 0; k < IMPULSE_COUNT; k++)
        for (int q = 1; q <= 4; q++)
            for (int v = 0; v < 3; v++)
                for (size_t f = 0; f < sizeof stamps / sizeof *stamps; f++) {
                    const impulse_info *info = impulse_get_info((impulse_kind)k);
                    double strength = q * info->strength_max / 4;
                    double least = least_share_after(stamps[f], (impulse_kind)k, strength, volumes[v], 128);
                    ENSURE_MSG(least >= 0.05, "%s at %g, volume %g, on %s: a cell keeps %g of its area", info->name,
                               strength, volumes[v], stamps[f] ? stamps[f] : "a disc", least);
                }
}

const struct test_case test_cases[] = {
    { "no_cell_folds_over_the_documented_range", no_cell_folds_over_the_documented_range },
    { "a_shape_on_a_corner_folds_no_cell", a_shape_on_a_corner_folds_no_cell },
    { "a_poke_up_to_its_default_folds_no_cell", a_poke_up_to_its_default_folds_no_cell },
    { "squash_and_stretch_reach_their_strength", squash_and_stretch_reach_their_strength },
    { "poke_dents_locally", poke_dents_locally },
    { "twist_turns_as_much_as_asked", twist_turns_as_much_as_asked },
    { "jump_crouches_and_drop_rises_first", jump_crouches_and_drop_rises_first },
    { "a_flag_on_its_pole_lands_upright_and_settles", a_flag_on_its_pole_lands_upright_and_settles },
    { "a_jump_held_by_its_foot_settles_without_flying", a_jump_held_by_its_foot_settles_without_flying },
    { "a_strong_drop_lands_before_its_clip_ends", a_strong_drop_lands_before_its_clip_ends },
    { "a_squashed_flag_bends_its_pole_without_toppling", a_squashed_flag_bends_its_pole_without_toppling },
    { "free_body_stays_in_place", free_body_stays_in_place },
    { "no_cell_folds_at_the_defaults", no_cell_folds_at_the_defaults },
    { NULL, NULL },
};
