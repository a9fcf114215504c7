/* impulse.c - turns a named kick into a press, gravity, a floor or a periodic
 * drive for the shape-matching body. A one-shot impulse is a press: a few
 * handle nodes are led over a few frames from rest to the peak pose that the
 * strength names (a fraction of the body's height, or radians), held, and let
 * go; the body around them follows by shape matching and then springs back by
 * itself. */
#include "impulse.h"
#include "image/render.h"
#include "geom/vec2.h"
#include "util/rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const impulse_info table[IMPULSE_COUNT] = {
    [IMPULSE_SQUASH] = {
        .name = "squash",
        .summary = "pressed from above and released: the classic jelly wobble",
        .strength = 0.16,
        /* at 0.4 the thin pole of a flag 1f6a9 pinched apart under the palm
         * at --volume 0 and 0.3; at 0.38 with --volume 0.8, 11 of 65 stamps
         * held at their foot and 10 free turned their outline more than 30
         * degrees past rest where it was smooth at rest (kink_new; the fire
         * 1f525's flames folded under the palm), at 0.32 3 and 3 */
        .strength_max = 0.32,
        .strength_unit = "peak squash, fraction of height",
        .at = { 0.5, 0.5 },
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_STRETCH] = {
        .name = "stretch",
        .summary = "pulled up and released",
        .strength = 0.12,
        /* stretched to 0.6 with --volume 0.8, 18 of 65 stamps held at their
         * foot and 21 free turned their outline more than 30 degrees past
         * rest where it was smooth at rest (kink_new); at 0.4, none and 5;
         * at 0.3, none and 1 */
        .strength_max = 0.3,
        .strength_unit = "peak stretch, fraction of height",
        .at = { 0.5, 0.5 },
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_POKE] = {
        .name = "poke",
        .summary = "a finger pokes the body at a point: a dent that ripples outwards",
        .strength = 0.18,
        /* deeper, a finger pressed a round face flat with its sides bulging
         * out as ears, and at 0.4 a cell next to the finger folded over */
        .strength_max = 0.3,
        /* a fraction of a low bar's height is a small dent: at the plain
         * default the bar lying across the square (5.6:1) was dented 3 px and
         * moved in 0.45 of its frames (0.55 free); at its largest, 0.3, in
         * 0.81 (0.76 free, see press_timing) */
        .wide_grows = 0.5,
        .strength_unit = "dent depth, fraction of height",
        .uses_at = 1,
        .at = { 0.5, 0.15 },
        .uses_angle = 1,
        .angle = NAN,
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_SHAKE] = {
        .name = "shake",
        .summary = "a sideways shove: the body sways",
        .strength = 0.12,
        /* at 0.5, on lattices of 8 to 11 nodes, the party popper's confetti
         * ran into its streamers and the chain 26d3 opened a new hole; at
         * 0.4 none of 65 stamps turns its outline more than 30 degrees past
         * rest where it was smooth at rest (kink_new), held or free, at the
         * default volume or 0.8 (see SHAKE_FROM). The
         * bar lying across the square (5.8:1) takes 0.29 by default, and
         * capped at 0.24 it moved in 0.71 of its frames */
        .strength_max = 0.3,
        .wide_grows = 0.5,
        .strength_unit = "peak sway, fraction of height",
        .at = { 0.5, 0.5 },
        .uses_angle = 1,
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_TWIST] = {
        .name = "twist",
        .summary = "a turn about a point, more the higher up: the body twists and untwists",
        .strength = 0.20,
        .strength_max = 0.4,
        .strength_unit = "peak twist, radians",
        .uses_at = 1,
        .at = { 0.5, 0.5 },
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_JUMP] = {
        .name = "jump",
        .summary = "crouches, jumps off the floor, lands and squashes",
        .strength = 0.22,
        /* from twice its height and more, the balloon 1f388 landed on its
         * string and tore it (at 1.75 and 2); from 1.5 with --volume 0.8
         * the landing splatted 32 of 65 stamps into skirts and ears that
         * turned their outline more than 30 degrees past rest (kink_new),
         * from 0.8 none */
        .strength_max = 0.8,
        .wide_grows = 0.5,
        .strength_unit = "jump height, fraction of height",
        .at = { 0.5, 0.5 },
        .anchor = ANCHOR_NONE,
        .has_floor = 1,
    },
    [IMPULSE_DROP] = {
        .name = "drop",
        .summary = "lifted from the floor, falls back onto it and splats",
        .strength = 0.25,
        /* as a jump's: from 1.5 with --volume 0.8, 25 of 65 stamps turned
         * their outline more than 30 degrees past rest, from 0.8 none */
        .strength_max = 0.8,
        .wide_grows = 0.5,
        .strength_unit = "drop height, fraction of height",
        .at = { 0.5, 0.5 },
        .anchor = ANCHOR_NONE,
        .has_floor = 1,
    },
    [IMPULSE_WAVE] = {
        .name = "wave",
        .summary = "a steady side-to-side sway (periodic, loops exactly)",
        .strength = 0.08,
        /* at 0.5 with --volume 0.8, 2 of 65 stamps turned their outline
         * more than 30 degrees past rest (kink_new), at 0.4 none; but at
         * 0.4 with the default volume the flag 1f6a9's thin pole buckled
         * under the drive and the body tangled: 2.7 times its area at
         * rest, from its first frame on. At 0.35 its area swung 3.2 %, at
         * 0.3 0.13 %, and at 0.3 no stamp kinks, held at --volume 0, 0.3,
         * 0.5 or 0.8, nor free at 0 or 0.3 */
        .strength_max = 0.3,
        .wide_grows = 0.5,
        .strength_unit = "sway, fraction of height",
        .at = { 0.5, 0.5 },
        .uses_angle = 1,
        .periodic = 1,
        .rate = 1.2,
        .anchor = ANCHOR_BOTTOM,
    },
    [IMPULSE_PAT] = {
        .name = "pat",
        .summary = "patted on the head again and again (periodic, loops exactly)",
        .strength = 0.15,
        .strength_max = 0.3,
        .wide_grows = 0.25,
        .strength_unit = "dent depth per pat, fraction of height",
        .uses_at = 1,
        .at = { 0.5, 0.0 },
        .angle = 90.0,
        .periodic = 1,
        .rate = 1.5,
        .anchor = ANCHOR_BOTTOM,
    },
};

const impulse_info *impulse_get_info(impulse_kind kind)
{
    return kind >= 0 && kind < IMPULSE_COUNT ? &table[kind] : NULL;
}

int impulse_lookup(const char *name)
{
    for (int k = 0; k < IMPULSE_COUNT; k++)
        if (strcmp(table[k].name, name) == 0)
            return k;
    return -1;
}

impulse_def impulse_default_def(void)
{
    impulse_def d;
    d.kind = IMPULSE_SQUASH;
    d.strength = NAN;
    d.at = v2_make(NAN, NAN);
    d.angle = NAN;
    d.rate = NAN;
    return d;
}

/* Gravity of a jump or a drop on a body of SOFTBODY_HZ_DEFAULT or faster,
 * body heights per second squared: standing, it sags 3.4 % of its height
 * (g / (2 pi hz)^2). */
#define FLOOR_GRAVITY 12.0

/* How many times slower than at SOFTBODY_HZ_DEFAULT, the --hz the impulses'
 * timings and gravity are set for, a body of the --hz asked moves: at least
 * 1. A slower body takes its kicks as slowly as it moves: a press, a hold and
 * a let-go (a jump's crouch and leap too) take this many times as long, a
 * wave or a pat repeats as much more slowly when no --rate is asked, and a
 * jump's or a drop's gravity shrinks by its square, so the body sags and
 * squashes at the landing as much as at the default: a jump or a drop is the
 * default's, played as many times more slowly (and its clip may run as many
 * times longer, animate_plan_oneshot).
 * Under the full gravity, a body of --hz 1 sagged 30 % of its height: landing
 * flattened a face to half its height and tore a balloon off its string.
 * Pressed at full speed, a squash at --hz 1 lost more than 5 % of its area on
 * 18 of 65 stamps (at 0.5, 3 tore or opened holes), a palm going down faster
 * than the body could follow; pressed as slowly as it moves, 8 of 65 still do
 * (and at 0.5, none tears). A crouch and a leap at full speed on a body of
 * --hz 0.3 jumped 1.37 times as high as asked (the trial leap, watched for
 * 3 s, ended before the body's top), its largest step 7.2 times the median.
 * Patted at 1.5 Hz, a bar lying across the square on a body of --hz 0.3
 * tore in two. */
double impulse_slowness(double hz) { return fmax(1.0, SOFTBODY_HZ_DEFAULT / hz); }
static double tempo_slowness(const softbody *sb) { return impulse_slowness(softbody_get_def(sb)->hz); }

double impulse_default_rate(const impulse_info *info, double hz)
{
    return fmax(IMPULSE_RATE_MIN, info->rate / impulse_slowness(hz));
}

poyo_status impulse_resolve(impulse_def *d, double hz, poyo_error *err)
{
    const impulse_info *info = impulse_get_info(d->kind);
    if (!info)
        return poyo_fail(err, POYO_ERR_USAGE, "unknown impulse");
    if (isnan(d->strength))
        d->strength = info->strength;
    if (!(d->strength >= 0.0 && d->strength <= info->strength_max))
        return poyo_fail(err, POYO_ERR_USAGE,
                         "--strength: must be 0 to %g for %s (beyond that the body folds over itself, tears or "
                         "kinks), not %g",
                         info->strength_max, info->name, d->strength);
    if (isnan(d->at.x))
        d->at = info->at;
    if (!(fabs(d->at.x) <= IMPULSE_AT_MAX && fabs(d->at.y) <= IMPULSE_AT_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--at: must be %g to %g image fractions in both coordinates, not %g,%g",
                         -IMPULSE_AT_MAX, IMPULSE_AT_MAX, d->at.x, d->at.y);
    if (isnan(d->angle))
        d->angle = info->angle;
    if (!isnan(d->angle) && !(fabs(d->angle) <= IMPULSE_ANGLE_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--angle: must be %g to %g degrees, not %g", -IMPULSE_ANGLE_MAX,
                         IMPULSE_ANGLE_MAX, d->angle);
    /* a rate is checked where it matters and where it was given for nothing */
    if (!isnan(d->rate) || info->periodic) {
        if (isnan(d->rate))
            d->rate = impulse_default_rate(info, hz);
        if (!(d->rate >= IMPULSE_RATE_MIN && d->rate <= IMPULSE_RATE_MAX))
            return poyo_fail(err, POYO_ERR_USAGE, "--rate: must be %g to %g Hz, not %g", IMPULSE_RATE_MIN,
                             IMPULSE_RATE_MAX, d->rate);
        /* driven faster than it wobbles, a body is pumped until it tears:
         * at --hz 3, a pat at 4 Hz tore 1 of 65 stamps and at 6 Hz tore
         * a balloon off its string; at 3 Hz, none */
        if (info->periodic && d->rate > hz)
            return poyo_fail(err, POYO_ERR_USAGE,
                             "--rate: must be at most --hz (%g) for %s (faster, the body is pumped until it tears), not %g",
                             hz, info->name, d->rate);
    }
    return POYO_OK;
}

/* Floor contact: nodes below the floor go back on it; the normal velocity is
 * reflected with the restitution, and the tangential one loses at most the
 * friction times the normal change (Coulomb): a landing grips, a foot at rest
 * on the floor slides freely (the floor carries the body's weight, see
 * floor_carries), so the pull that brings a body home sideways is not fought
 * by a floor that stopped every sideways step. */
static void floor_collide(void *user, double *x, double *y, double *vx, double *vy, int n)
{
    impulse_run *run = user;
    (void)x;
    double mu = run->friction;
    for (int k = 0; k < n; k++) {
        if (y[k] <= run->floor_y)
            continue;
        run->touched = 1;
        y[k] = run->floor_y;
        if (vy[k] > 0.0) {
            double dvn = (1.0 + run->restitution) * vy[k], cut = fmin(fabs(vx[k]), mu * dvn);
            vy[k] = -run->restitution * vy[k];
            vx[k] -= copysign(cut, vx[k]);
        }
    }
}

/* A node touching a sticky palm stays where it touched: its sideways step is
 * taken back. */
static void palm_holds(const impulse_run *run, double *x, double *vx)
{
    if (run->palm_sticky) {
        *x -= *vx * run->step_dt;
        *vx = 0.0;
    }
}

static void walls_hold_nodes(const impulse_run *run, const double *w, double *x, double *y, double *vx, double *vy,
                             int n);
static void walls_hold_picture(const impulse_run *run, const double *w, double *x, double *y, double *vx, double *vy);
static void floor_holds_picture(impulse_run *run, double *y, double *vy);

/* Floor contact and the walls of the canvas: what impulses collide with. */
static void body_collide(void *user, double *x, double *y, double *vx, double *vy, int n)
{
    impulse_run *run = user;
    if (run->floor)
        floor_collide(user, x, y, vx, vy, n);
    /* the palm: nothing above it; a sticky one holds what it touches where it
     * touched, so a thin stem under a heavy top (a flag on its pole) bends
     * instead of buckling over as its top slides away */
    if (run->plane && run->held)
        for (int k = 0; k < n; k++)
            if (y[k] < run->palm_y) {
                y[k] = run->palm_y;
                vy[k] = fmax(vy[k], 0.0);
                palm_holds(run, &x[k], &vx[k]);
            }
    if (run->plane_up && run->held) /* the palm from below: nothing under it */
        for (int k = 0; k < n; k++)
            if (y[k] > run->palm_up_y) {
                y[k] = run->palm_up_y;
                vy[k] = fmin(vy[k], 0.0);
                if (!run->under_slides)
                    palm_holds(run, &x[k], &vx[k]);
            }
    if (run->floor)
        floor_holds_picture(run, y, vy);
    if (!run->walls)
        return;
    const double *w = run->wall;
    walls_hold_nodes(run, w, x, y, vx, vy, n);
    walls_hold_picture(run, w, x, y, vx, vy);
}

/* Where point p is along one axis for node coordinates c (x or y). */
static double point_at(const impulse_picture_point *p, const double *c)
{
    return p->w[0] * c[p->k[0]] + p->w[1] * c[p->k[1]] + p->w[2] * c[p->k[2]] + p->w[3] * c[p->k[3]];
}

/* Moves a point's four nodes so that the point moves by d along one axis
 * (pos, vel and pin: x or y), the least squared moves that do it; each node
 * moved stops moving back out (sign: the way out), and a pinned one is held
 * where it went: a hand that turns the body's top does not carry its pixels
 * through a wall. With pin NULL the pinned nodes stay and the others move
 * the point. Returns 0 when no node may move it. */
static int push_point(const impulse_picture_point *p, const unsigned char *pinned, double *pos, double *vel, double *pin,
                      double d, double sign)
{
    double sum = 0.0;
    for (int i = 0; i < 4; i++)
        if (pin || !pinned[p->k[i]])
            sum += p->w[i] * p->w[i];
    if (!(sum > 0.0))
        return 0;
    for (int i = 0; i < 4; i++) {
        int k = p->k[i];
        if (p->w[i] == 0.0 || (!pin && pinned[k]))
            continue;
        pos[k] += p->w[i] * d / sum;
        vel[k] = sign > 0 ? fmin(vel[k], 0.0) : fmax(vel[k], 0.0);
        if (pin && pinned[k])
            pin[k] = pos[k];
    }
    return 1;
}

/* The walls hold the picture itself: each corner of the box of the opaque
 * pixels in each drawn cell stays inside them. A node's own allowance (its
 * reach past the pixels at rest) holds neither a cell squeezed or turned
 * against a wall nor the nodes a hand holds: a keycap twisted on a free body,
 * its top in the hand, drew on the canvas's top row in 4 frames. */
static void walls_hold_picture(const impulse_run *run, const double *w, double *x, double *y, double *vx, double *vy)
{
    softbody_nodes nd = softbody_view(run->sb);
    for (int j = 0; j < run->nwall; j++) {
        const impulse_picture_point *p = &run->wp[j];
        double px = point_at(p, x), py = point_at(p, y);
        if (px < w[0])
            push_point(p, nd.pinned, x, vx, nd.pinx, w[0] - px, -1.0);
        else if (px > w[2])
            push_point(p, nd.pinned, x, vx, nd.pinx, w[2] - px, 1.0);
        if (py < w[1])
            push_point(p, nd.pinned, y, vy, nd.piny, w[1] - py, -1.0);
        else if (py > w[3])
            push_point(p, nd.pinned, y, vy, nd.piny, w[3] - py, 1.0);
    }
}

/* The floor holds the picture: no point of it goes below the picture's
 * bottom at rest. The nodes under the picture reach below it, up to a cell
 * (the flag 1f1ef-1f1f5's lowest row, 4 of its 6 px); with only they held,
 * a landing pressed the row of nodes above them down onto them and the
 * picture's foot into the floor (the flag's 1.7 px, the largest steps of
 * 1f9d6's drop blurred to 0.947 of its rest sharpness). A point below the
 * floor is moved up by its nodes that nothing pins, and they stop going
 * down; the body is on the floor (run->touched). Sideways, the floor's
 * friction acts on the nodes that meet it, below the picture. (Under an
 * anchor the same hold made a squash against the canvas's walls lose area:
 * the flags and the keycap 6 %, the nearly empty cells under the picture no
 * longer crushed to keep it.) */
static void floor_holds_picture(impulse_run *run, double *y, double *vy)
{
    softbody_nodes nd = softbody_view(run->sb);
    for (int j = 0; j < run->nwp; j++) {
        const impulse_picture_point *p = &run->wp[j];
        double d = run->picture_floor - point_at(p, y);
        if (d < 0.0 && push_point(p, nd.pinned, y, vy, NULL, d, 1.0))
            run->touched = 1;
    }
}

/* Each node inside the walls, but for its allowance past them (slack). */
static void walls_hold_nodes(const impulse_run *run, const double *w, double *x, double *y, double *vx, double *vy,
                             int n)
{
    for (int k = 0; k < n; k++) {
        const double *s = run->slack + 4 * k;
        if (x[k] < w[0] - s[0]) {
            x[k] = w[0] - s[0];
            vx[k] = fmax(vx[k], 0.0);
        } else if (x[k] > w[2] + s[2]) {
            x[k] = w[2] + s[2];
            vx[k] = fmin(vx[k], 0.0);
        }
        if (y[k] < w[1] - s[1]) {
            y[k] = w[1] - s[1];
            vy[k] = fmax(vy[k], 0.0);
        } else if (y[k] > w[3] + s[3]) {
            y[k] = w[3] + s[3];
            vy[k] = fmin(vy[k], 0.0);
        }
    }
}

/* Adds to run->wp the corners of the box of the opaque pixels in each drawn
 * cell that lie on one of its nodes (at_nodes) or that do not. */
static void add_picture_points(impulse_run *run, int at_nodes)
{
    const lattice *l = run->lat;
    for (int cj = 0; cj + 1 < l->ny; cj++)
        for (int ci = 0; ci + 1 < l->nx; ci++) {
            const float *b = l->cell_box + 4 * ((size_t)cj * (l->nx - 1) + ci);
            double rx0 = l->ox + ci * l->h, ry0 = l->oy + cj * l->h;
            /* a pixel whose centre is in the cell may reach half a pixel past it */
            double cx0 = b[0], cx1 = b[2], cy0 = b[1], cy1 = b[3];
            if (!l->cell[(size_t)cj * (l->nx - 1) + ci] || cx0 > cx1 || cy0 > cy1)
                continue;
            for (int c = 0; c < 4; c++) {
                double u = ((c & 1 ? cx1 : cx0) - rx0) / l->h, v = ((c >> 1 ? cy1 : cy0) - ry0) / l->h;
                if (((u == 0.0 || u == 1.0) && (v == 0.0 || v == 1.0)) != at_nodes)
                    continue;
                impulse_picture_point *p = &run->wp[run->nwp++];
                for (int i = 0; i < 4; i++) {
                    p->k[i] = l->index[(size_t)(cj + (i >> 1)) * l->nx + ci + (i & 1)];
                    p->w[i] = (i & 1 ? u : 1.0 - u) * (i >> 1 ? v : 1.0 - v);
                }
            }
        }
}

/* The picture's points: first those the walls hold (a corner on a node is
 * held by the node's own slack of 0), then the rest. */
static void picture_points(impulse_run *run)
{
    run->nwp = 0;
    add_picture_points(run, 0);
    run->nwall = run->nwp;
    add_picture_points(run, 1);
}

/* Each node may pass the walls by as far as it lies past the visible pixels
 * at rest, on that side: a node inside them, when it meets a wall, has its
 * pixels beside it. With one margin for all nodes (the lattice's widest reach
 * past the pixels), a triangle twisted on a free body drew its tip on the
 * canvas's edge in 5 frames. */
void impulse_set_walls(impulse_run *run, softbody *sb, const double box[4])
{
    softbody_nodes nd = softbody_view(sb);
    const lattice *l = run->lat;
    memcpy(run->wall, box, sizeof run->wall);
    for (int k = 0; k < nd.n; k++) {
        double *s = run->slack + 4 * k;
        s[0] = fmax(0.0, l->bx0 - nd.qx[k]);
        s[1] = fmax(0.0, l->by0 - nd.qy[k]);
        s[2] = fmax(0.0, nd.qx[k] - l->bx1);
        s[3] = fmax(0.0, nd.qy[k] - l->by1);
    }
    run->walls = 1;
    softbody_set_collide(sb, body_collide, run);
}

static void keep_pose(impulse_run *run, int place, const double *x, const double *y, double *ax, double *ay,
                      int n);

static void drive_force(void *user, double t, const double *x, const double *y, double *ax, double *ay, int n)
{
    impulse_run *run = user;
    /* a free body sways and is patted where it rests, upright: driven
     * alone, it drifted off its place by a third of its width over the
     * warm-up, and the frames cut off what the canvas no longer held */
    if (run->free)
        keep_pose(run, 1, x, y, ax, ay, n);
    if (run->def.kind == IMPULSE_WAVE) {
        double s = run->gain * sin(run->omega * t);
        for (int k = 0; k < n; k++) {
            ax[k] += run->drive_x[k] * s;
            ay[k] += run->drive_y[k] * s;
        }
    } else if (run->def.kind == IMPULSE_PAT) {
        /* a finger presses in and lets go at the start of every period: a smooth
         * push on the nodes under it, sin^2 over the press */
        double period = 2.0 * PI / run->omega, phase = t - floor(t / period + 1e-9) * period;
        if (phase >= run->t_press)
            return;
        double a = sin(PI * phase / run->t_press);
        a *= a * run->gain;
        for (int h = 0; h < run->nh; h++) {
            ax[run->hk[h]] += a * run->hdx[h];
            ay[run->hk[h]] += a * run->hdy[h];
        }
    }
}

/* Where a free body patted keeps its place: behind the spot patted, as a
 * hand holds what it pats, instead of at its centre. Each node's share grows
 * as the cube of how far past the centre it lies along the pat (dir) and
 * falls off across it (a Gaussian of 0.12 of the body's size from the line
 * through the kick point), summing to one. Held at its centre, a body patted
 * on its top gave way at both ends: the tall "!" lost 21 % of its height for
 * the 14 % asked, and 8.7 % of its area; a wide one bent as a whole, its
 * far side moving as much as the spot patted.
 *
 * The hand also holds each node behind the spot where it rests (hold_w: the
 * same cube, across a Gaussian of 0.3 of the size, 1 at the node held
 * most; see keep_pose). Held only by the pull on its place, a free Tokyo
 * tower patted on its top splayed its legs 12 % wider and drew them 12 % in,
 * every period: the pat's second harmonic is the free body's main wobble,
 * and the legs' splay, alike on both sides, leaves the place where it was.
 * The canvas fitted the splay, and the tower stood at 0.82 of full size.
 * Returns 0 when out of memory. */
static int place_behind(impulse_run *run, const softbody_nodes *nd, v2 dir)
{
    double cx = 0.0, cy = 0.0, sum = 0.0, most = 0.0, across = 0.12 * run->size, hold_across = 0.3 * run->size;
    for (int k = 0; k < nd->n; k++)
        cx += nd->qx[k], cy += nd->qy[k];
    cx /= nd->n, cy /= nd->n;
    run->place_w = malloc((size_t)nd->n * sizeof(double));
    run->hold_w = malloc((size_t)nd->n * sizeof(double));
    if (!run->place_w || !run->hold_w)
        return 0;
    for (int k = 0; k < nd->n; k++) {
        double along = fmax(0.0, (nd->qx[k] - cx) * dir.x + (nd->qy[k] - cy) * dir.y);
        double side = (nd->qy[k] - run->at_px.y) * dir.x - (nd->qx[k] - run->at_px.x) * dir.y;
        double cube = along * along * along;
        run->place_w[k] = cube * exp(-side * side / (2.0 * across * across));
        run->hold_w[k] = cube * exp(-side * side / (2.0 * hold_across * hold_across));
        sum += run->place_w[k];
        most = fmax(most, run->hold_w[k]);
    }
    if (!(sum > 0.0)) { /* nothing behind the spot: the centre, and no hand (most > 0 when sum is) */
        free(run->place_w);
        free(run->hold_w);
        run->place_w = run->hold_w = NULL;
        return 1;
    }
    for (int k = 0; k < nd->n; k++) {
        run->place_w[k] /= sum;
        run->hold_w[k] /= most;
    }
    return 1;
}

/* How long a hand that lets go of a free body draws back with it first, s
 * (see draw_then_roll). */
#define DRAW_BACK_TIME 0.08

static double smoothstep(double t) { return t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3.0 - 2.0 * t); }

/* A body that lands keeps upright, as a stamp should: a turn away from how it
 * stands at rest is pulled back (2.5 Hz, well damped), so a tall shape on a
 * small foot wobbles on it instead of toppling over, and a free body does not
 * spin away. A free body let go from a twist rocks back and forth instead
 * (damping ratio 0.04), as a standing body's twist rings: well damped, it
 * crept back upright in steps a third the size of the turn's, so that most of
 * the clip looked still. With place, a free body (no anchor, no floor) also
 * keeps its place: its centre is pulled back to where it rests (2 Hz, well
 * damped), so the stamp wobbles in place instead of drifting off; patted, the
 * place pulled back is that of its side away from the finger (place_behind),
 * though the pull still acts on the whole body alike, and the hand behind the
 * spot also holds each node there where it rests (hold_w). */
static void keep_pose(impulse_run *run, int place, const double *x, const double *y, double *ax, double *ay,
                      int n)
{
    softbody_nodes nd = softbody_view(run->sb);
    double qx = 0, qy = 0, cx = 0, cy = 0, vx = 0, vy = 0;
    for (int k = 0; k < n; k++) {
        qx += nd.qx[k], qy += nd.qy[k], cx += x[k], cy += y[k];
        vx += nd.vx[k], vy += nd.vy[k];
    }
    qx /= n, qy /= n, cx /= n, cy /= n, vx /= n, vy /= n;
    double fx = 0.0, fy = 0.0;
    if (place) {
        /* the place kept is the centre's, or where place_w puts it */
        double ex = cx - qx, ey = cy - qy, evx = vx, evy = vy;
        if (run->place_w) {
            ex = ey = evx = evy = 0.0;
            for (int k = 0; k < n; k++) {
                double w = run->place_w[k];
                ex += w * (x[k] - nd.qx[k]), ey += w * (y[k] - nd.qy[k]);
                evx += w * nd.vx[k], evy += w * nd.vy[k];
            }
        }
        double wp = 2.0 * PI * 2.0;
        fx = -wp * wp * ex - 2.0 * 0.8 * wp * evx;
        fy = -wp * wp * ey - 2.0 * 0.8 * wp * evy;
        if (run->hold_w) {
            /* the hand behind a patted spot: each node it holds is pulled back
             * to where it rests, the one held most at 2.6 Hz and damped past
             * critical (ratio 1.3). The free tower stands at 0.87 of full size */
            double wh = 2.0 * PI * 2.6, zh = 1.3;
            for (int k = 0; k < n; k++) {
                double h = run->hold_w[k];
                ax[k] -= h * (wh * wh * (x[k] - nd.qx[k]) + 2.0 * zh * wh * nd.vx[k]);
                ay[k] -= h * (wh * wh * (y[k] - nd.qy[k]) + 2.0 * zh * wh * nd.vy[k]);
            }
        }
    } else if (run->floor && !run->held) {
        /* a body on the floor comes home sideways: a rocket that lands on its
         * slanted fins slid 10 px and stood there, still, for a second */
        double wp = 2.0 * PI * 1.0;
        fx = -wp * wp * (cx - qx) - 2.0 * 0.8 * wp * vx;
    }
    double dot = 0, cross = 0, mom = 0, r2 = 0;
    for (int k = 0; k < n; k++) {
        double rx = nd.qx[k] - qx, ry = nd.qy[k] - qy, sx = x[k] - cx, sy = y[k] - cy;
        dot += rx * sx + ry * sy;
        cross += rx * sy - ry * sx;
        mom += sx * (nd.vy[k] - vy) - sy * (nd.vx[k] - vx);
        r2 += sx * sx + sy * sy;
    }
    double alpha = 0.0;
    if (r2 > 0) {
        double theta = atan2(cross, dot), omega = mom / r2;
        /* with a part that integrates the tilt: a stamp whose foot is off its
         * centre (a flag on its pole) would otherwise rest where the floor's
         * push and the pull balance, leaning, instead of standing upright; it
         * starts when the hand lets go, so it does not fight a twist. A
         * rocking free body has no floor to lean on and goes without it: with
         * it, a damping ratio under 0.16 rocks wider and wider */
        double wn = 2.0 * PI * 2.5;
        int rocks = run->free && run->turn;
        if (!run->held && !rocks)
            run->tilt_sum += theta * run->step_dt;
        alpha = -wn * wn * (theta + 5.0 * run->tilt_sum) - 2.0 * (rocks ? 0.04 : 0.8) * wn * omega;
    }
    for (int k = 0; k < n; k++) {
        ax[k] += fx - alpha * (y[k] - cy);
        ay[k] += fy + alpha * (x[k] - cx);
    }
}

/* 1 when the body's lowest point (of nodes y) is within half a pixel of the floor. */
static int on_floor(const impulse_run *run, const double *y, int n)
{
    for (int k = 0; k < n; k++)
        if (y[k] >= run->floor_y - 0.5)
            return 1;
    return 0;
}

/* A body standing on the floor is carried by it as a whole: its weight does
 * not sag it. Gravity pulls it only while it is off the floor (its lowest
 * point more than half a pixel up, on_floor); a stamp standing on a thin stem
 * (a balloon on its string, a flag on its pole) sank onto the stem after
 * every landing and stood there bent until the loop snapped it back. */
static void floor_carries(const impulse_run *run, const double *y, double *ay, int n)
{
    if (!on_floor(run, y, n))
        return;
    for (int k = 0; k < n; k++)
        ay[k] -= run->gravity;
}

/* The hand lets go of every handle. A free body keeps its place: the press
 * gives it no drift. */
static void let_go(impulse_run *run)
{
    softbody *sb = run->sb;
    softbody_nodes nd = softbody_view(sb);
    for (int h = 0; h < run->nh; h++)
        softbody_set_pinned(sb, run->hk[h], 0);
    run->held = 0;
    softbody_set_pressure_gain(sb, 1.0);
    if (softbody_pinned_count(sb) == 0 && !run->floor) {
        double mx = 0.0, my = 0.0;
        for (int k = 0; k < nd.n; k++) {
            mx += nd.vx[k];
            my += nd.vy[k];
        }
        for (int k = 0; k < nd.n; k++) {
            nd.vx[k] -= mx / nd.n;
            nd.vy[k] -= my / nd.n;
        }
    }
    if (run->cap_energy)
        softbody_cap_energy(sb);
}

/* The leap, u (0 to 1) of the way through: the hand lifts the body out of its
 * crouch back to its own shape, gaining the launch speed evenly, and lets go
 * of it in the air at that speed. Let go crouched, the body sprang up off its
 * foot and turned about it: a flag on its pole spun over. */
static void leap_pins(impulse_run *run, double u)
{
    softbody_nodes nd = softbody_view(run->sb);
    double e = 1.0 - smoothstep(u), rise = 0.5 * run->launch * run->t_lift * u * u;
    for (int h = 0; h < run->nh; h++) {
        int k = run->hk[h];
        nd.pinx[k] = nd.qx[k] + e * run->hdx[h];
        nd.piny[k] = nd.qy[k] + e * run->hdy[h] - rise;
    }
}

/* A finger rolls off, f (0 to 1) of the way: the handles dented least let go
 * first, the deepest last, each at once, so the dent springs back over a few
 * frames and keeps its energy. The handles that do not move (the hand on a
 * free body's far side) hold on until the impulse lets go. */
static void roll_off(impulse_run *run, double f)
{
    double most = 0.0;
    for (int h = 0; h < run->nh; h++)
        most = fmax(most, hypot(run->hdx[h], run->hdy[h]));
    for (int h = 0; h < run->nh; h++) {
        double d = hypot(run->hdx[h], run->hdy[h]);
        if (d > 0.0 && f >= d / most)
            softbody_set_pinned(run->sb, run->hk[h], 0);
    }
}

/* A finger on a held body (not a low bar) loosens,
 * f (0 to 1) of the way through its lift: its handles, let go of their pins,
 * are each pulled a share 1 - smoothstep(f) of the way back to where the pin
 * held them, and lose that share of their speed, every step. The dent keeps
 * its smooth shape as it springs back. Rolled off, the handles dented least let go first and the
 * deepest last: the body around the one pin left sprang back first, and the
 * frame that fell on it showed a notch at the dent's middle (held pokes of
 * 17 of 65 stamps turned their outline more than 30 degrees where it was
 * smooth at rest at the default, 8 loosened), and then a nub where it sprang
 * out. */
static void loosen(impulse_run *run, double f, const double *x, const double *y, double *ax, double *ay)
{
    softbody_nodes nd = softbody_view(run->sb);
    double dt = softbody_dt(run->sb), b = 1.0 - smoothstep(f);
    for (int h = 0; h < run->nh; h++) {
        int k = run->hk[h];
        softbody_set_pinned(run->sb, k, 0);
        double tx = nd.qx[k] + run->gain * run->hdx[h], ty = nd.qy[k] + run->gain * run->hdy[h];
        ax[k] += b * ((tx - x[k]) / (dt * dt) - nd.vx[k] / dt);
        ay[k] += b * ((ty - y[k]) / (dt * dt) - nd.vy[k] / dt);
    }
}

/* Where a turn of the hand carries point (qx, qy) of a twist: turned about
 * the pivot by turn radians (its share of the hand's), grown by turn_grow. */
static void turned(const impulse_run *run, double qx, double qy, double turn, double *x, double *y)
{
    double rx = qx - run->pivot.x, ry = qy - run->pivot.y, ct = cos(turn), st = sin(turn);
    double grow = run->turn_grow * turn;
    *x = run->pivot.x + ct * rx - st * ry + grow * rx;
    *y = run->pivot.y + st * rx + ct * ry + grow * ry;
}

/* A hand that turns a free body keeps the picture inside the walls: where
 * the hand's turn at a, given to each of the picture's points by its share
 * (as if the body followed the hand), carries some of them past a wall, the
 * hand moves back by as far, each handle by its share of the turn, so the
 * side held still stays. Without it the walls held what the turn carried
 * past them: a free body fills its canvas, and twisted at the default, the
 * unicorn 1f984's horn and the ruler 1f4d0's tip rose into the top wall and
 * were pressed flat there, their outlines turning 75 and 54 degrees past
 * rest (12 and 13 now). It costs some area: the keycap 0034-fe0f-20e3,
 * square, is pressed down and loses 4.8 % (0.8 % when the walls flattened
 * its corner). Moved whole instead, the body kept its area, but the unicorn
 * still turned 31 degrees, pressed against the bottom wall. */
static void turn_inside(impulse_run *run, double a)
{
    softbody_nodes nd = softbody_view(run->sb);
    const double *w = run->wall;
    double past[4] = { 0.0, 0.0, 0.0, 0.0 }; /* past x0, y0, x1, y1 */
    for (int j = 0; j < run->nwall; j++) {
        const impulse_picture_point *p = &run->wp[j];
        double x, y;
        turned(run, point_at(p, nd.qx), point_at(p, nd.qy), a * run->angle * point_at(p, run->share), &x, &y);
        past[0] = fmax(past[0], w[0] - x), past[1] = fmax(past[1], w[1] - y);
        past[2] = fmax(past[2], x - w[2]), past[3] = fmax(past[3], y - w[3]);
    }
    double mx = past[0] - past[2], my = past[1] - past[3];
    if (mx == 0.0 && my == 0.0)
        return;
    for (int h = 0; h < run->nh; h++) {
        int k = run->hk[h];
        nd.pinx[k] += mx * run->hdx[h];
        nd.piny[k] += my * run->hdx[h];
    }
}

/* The palms and the handles' pins at a (the share of the press's peak). */
static void press_pins(impulse_run *run, double a)
{
    softbody_nodes nd = softbody_view(run->sb);
    run->palm_y = run->plane_top + a * run->plane_depth;
    run->palm_up_y = run->plane_bottom - a * run->plane_up_depth;
    for (int h = 0; h < run->nh; h++) {
        int k = run->hk[h];
        if (run->turn) {
            turned(run, nd.qx[k], nd.qy[k], a * run->angle * run->hdx[h], &nd.pinx[k], &nd.piny[k]);
        } else {
            nd.pinx[k] = nd.qx[k] + a * run->hdx[h];
            nd.piny[k] = nd.qy[k] + a * run->hdy[h];
        }
    }
    if (run->turn && run->walls && run->free)
        turn_inside(run, a);
    /* turn_grow keeps a turn's area to first order; past that the band
     * does: a diagonal ruler 1f4d0 twisted at 0.4 with --volume 0.8 gained
     * 7.6 % of its picture, 3.8 % with it, as far turned (solving the growth
     * exactly at the peak turned it 0.65 of what was asked) */
    if (run->turn)
        softbody_band_pins(run->sb, run->hk, run->nh);
}

/* A hand draws back with the body, lift (0 to 1) of the way through its
 * lift: by `back` of its press over t_draw, then it rolls off over
 * the rest (see roll_off). */
static void draw_then_roll(impulse_run *run, double lift, double back)
{
    double draw = run->t_draw / run->t_lift;
    if (lift <= draw)
        press_pins(run, run->gain * (1.0 - back * smoothstep(lift / draw)));
    else
        roll_off(run, (lift - draw) / (1.0 - draw));
}

/* The pressure's gain while a hand holds the body: at the pressure's own
 * strength a squash lost up to 9 % of its area under the palm and a poke 11 %
 * under the finger. At 2 a poke kept more (area misses 14 instead of 17 of
 * 65 stamps) but the bar lying across the square was squashed 0.185 deep,
 * past the 0.184 its strength allows. */
#define HOLD_PRESSURE_GAIN 1.5

/* After a quick palm (press_timing) lets go, the pressure eases back from
 * its gain while held to its own strength over one wobble: dropped at once,
 * the squash gave its area up as it sprang back (the kneeling woman
 * 1f9ce...27a1 5.2 % a frame after the palm let go; eased back, 4.0 %). */
static void pressure_eases_back(impulse_run *run, double t)
{
    double u = (t - impulse_release_time(run)) * softbody_get_def(run->sb)->hz;
    if (u < 1.5) /* from the step after the one it lets go in (at its own strength), to that strength */
        softbody_set_pressure_gain(run->sb, 1.0 + (HOLD_PRESSURE_GAIN - 1.0) * (1.0 - smoothstep(u)));
}

/* The free node next to pinned node k along its column, away from the
 * anchored edge (toward: the row step), or -1. */
static int above_pin(const lattice *l, const softbody_nodes *nd, int k, int toward)
{
    int j = l->nj[k] + toward;
    if (j < 0 || j >= l->ny)
        return -1;
    int a = l->index[(size_t)j * l->nx + l->ni[k]];
    return a >= 0 && !nd->pinned[a] ? a : -1;
}

/* 1 when node k is one the anchor pins: pinned, and not a hand's handle. */
static int on_foot(const impulse_run *run, const softbody_nodes *nd, int k)
{
    if (!nd->pinned[k])
        return 0;
    for (int h = 0; h < run->nh; h++)
        if (run->hk[h] == k)
            return 0;
    return 1;
}

/* A low bar squashed on its anchored edge slides on it: each pin of that
 * edge keeps its node where the node next to it along the column is,
 * sideways (x: the nodes' positions now), but for the middle one, which
 * holds the bar in place. Pinned fast there, the edge did not widen with
 * the rows the palm pressed, and the bar lying across the square, two
 * cells tall, squashed 0.82 of the strength asked. */
static void slide_foot(impulse_run *run, const double *x)
{
    softbody_nodes nd = softbody_view(run->sb);
    const lattice *l = run->lat;
    int toward = softbody_get_def(run->sb)->anchor == ANCHOR_TOP ? 1 : -1;
    for (int k = 0; k < nd.n; k++) {
        int a = nd.pinned[k] && k != run->foot_hold ? above_pin(l, &nd, k, toward) : -1;
        if (a >= 0)
            nd.pinx[k] = x[a] + nd.qx[k] - nd.qx[a];
    }
}

/* A body squashed as deep as the default or deeper spreads on its anchored edge as
 * the body just inside it widens: each pin of that edge moves sideways from
 * the pins' middle by the scale, least squares, that takes the next nodes
 * along their columns from their rest places to where they are now (their
 * sideways shift and shear left out, so the edge does not slide off with a
 * body that leans), within SPREAD_MIN to SPREAD_MAX. It runs for the whole
 * clip, so the foot gathers back as the body comes to rest; stretched past
 * the default, the foot gathers as the body narrows. The pins of a
 * stretch's hand are left to it (on_foot). Held as narrow as at
 * rest, a face pressed flat bulged over its foot into notches either side:
 * squashed at 0.32, 16 of 65 stamps turned their outline more than 30
 * degrees past rest (spreading, 10), the smiling face with heart eyes
 * 1f60d 49 (24); at 0.38 with --volume 0.8, 27 (17); at 0.3 with it, 13
 * (5). Slid with the node above it instead, as a low bar's foot does
 * (slide_foot), the foot of a body that leans slid off with it: the rocket
 * 1f680 squashed at 0.32 flailed, 175 degrees. A foot with fewer than
 * SPREAD_PINS_MIN pins next to a free node is a stem and stays: spread, the
 * flag 1f6a9's pole (three) squashed at 0.38 with --volume 0 tore apart.
 * A standing body spreads at the default too: held as narrow as at rest,
 * the dog 1f436's tongue, which it stands on, was pressed flat into points,
 * its outline turned 34 degrees past rest (19 spreading), and of 65 stamps
 * the worst turned 34 and the 90th percentile 20.9 (24.8 and 19.4). Below
 * the default the foot holds: spreading at half the default, the handshake
 * 1faf1-1f3ff-200d-1faf2-1f3fc was squashed 1.15 times as deep as asked. So
 * does a hanging body's at the default: spreading, the flag 1f1ef-1f1f5
 * hanging was squashed 0.83 times as deep as asked, and the worst of 65
 * turned 29.6 degrees instead of 23.9. Poked past the default, a held
 * body spreads its foot too, to at most SPREAD_MAX_POKE times its width:
 * held as narrow as at rest, the post office 1f3e4 poked at 0.3 with
 * --volume 0.8 bulged over its foot into corners that turned its outline
 * 43 degrees past rest (17 spreading), and 12 of 65 stamps more than 30 (4);
 * spreading up to SPREAD_MAX, 7, the woman tipping her hand 1f481 73
 * (26), where her head was pressed into her raised arm. Hanging, poked
 * at 0.3 with --volume 0.8, 15 of 65 turn more than 30 degrees (14 held
 * as narrow) and 8 take a step between frames over 3 times the median
 * (14). */
#define SPREAD_MIN 0.8
#define SPREAD_MAX 1.6
#define SPREAD_MAX_POKE 1.2
#define SPREAD_PINS_MIN 4
/* Spreads the pinned nodes edge[0..m) sideways from their middle by the
 * scale, least squares, that takes the nodes next to them along their
 * columns (toward: -1 up, 1 down) from rest to x, within SPREAD_MIN to
 * most; a stem of fewer than SPREAD_PINS_MIN such neighbours stays. */
static void spread_edge(const impulse_run *run, const double *x, const int *edge, int m, int toward, double most)
{
    softbody_nodes nd = softbody_view(run->sb);
    int next[LATTICE_GRID_MAX * LATTICE_GRID_MAX];
    double n = 0.0, q = 0.0, now = 0.0, mid = 0.0;
    for (int i = 0; i < m; i++) {
        /* the neighbours, and the means: rest and now of the nodes inside,
         * rest of the pins */
        next[i] = above_pin(run->lat, &nd, edge[i], toward);
        mid += nd.qx[edge[i]];
        if (next[i] >= 0) {
            n += 1.0;
            q += nd.qx[next[i]];
            now += x[next[i]];
        }
    }
    if (n < SPREAD_PINS_MIN)
        return;
    q /= n;
    now /= n;
    mid /= m;
    double num = 0.0, den = 0.0;
    for (int i = 0; i < m; i++) {
        int a = next[i];
        if (a >= 0) {
            num += (nd.qx[a] - q) * (x[a] - now);
            den += (nd.qx[a] - q) * (nd.qx[a] - q);
        }
    }
    if (!(den > 0.0))
        return;
    double scale = fmin(most, fmax(SPREAD_MIN, num / den));
    for (int i = 0; i < m; i++)
        nd.pinx[edge[i]] = mid + (nd.qx[edge[i]] - mid) * scale;
}

/* A held body's foot (the anchor's pins, on_foot) spreads: see above. */
static void spread_foot(impulse_run *run, const double *x)
{
    softbody_nodes nd = softbody_view(run->sb);
    int foot[LATTICE_GRID_MAX * LATTICE_GRID_MAX], m = 0;
    for (int k = 0; k < nd.n && m < LATTICE_GRID_MAX * LATTICE_GRID_MAX; k++)
        if (on_foot(run, &nd, k))
            foot[m++] = k;
    spread_edge(run, x, foot, m, softbody_get_def(run->sb)->anchor == ANCHOR_TOP ? 1 : -1,
                run->def.kind == IMPULSE_POKE ? SPREAD_MAX_POKE : SPREAD_MAX);
}

/* The second hand of a free body poked past the default from above or
 * below spreads its hold on the far side as spread_foot spreads a held
 * body's foot, while it holds. Held as narrow as at rest, the notes 1f3b5
 * poked at 0.3 with --volume 0.8 pressed their beam down onto the left
 * stem into a corner that turned the outline 37 degrees past rest (16
 * with their heads spreading), and 12 of 65 free stamps turned more than
 * 30 (7); at 0.27, 5 either way. */
static void spread_far(impulse_run *run, const double *x)
{
    softbody_nodes nd = softbody_view(run->sb);
    int far[LATTICE_GRID_MAX * LATTICE_GRID_MAX], m = 0;
    for (int h = run->far_from; h < run->nh && m < LATTICE_GRID_MAX * LATTICE_GRID_MAX; h++)
        if (nd.pinned[run->hk[h]])
            far[m++] = run->hk[h];
    spread_edge(run, x, far, m, -run->far_spreads, SPREAD_MAX_POKE);
}

/* Moves the handles' pins to the press at time t, or lets go once it is over. */
static void press_force(void *user, double t, const double *x, const double *y, double *ax, double *ay, int n)
{
    impulse_run *run = user;
    if (run->foot_slides)
        slide_foot(run, x);
    if (run->foot_spreads)
        spread_foot(run, x);
    if (run->floor || run->free) /* while held, the hand keeps a free body in place */
        keep_pose(run, run->free && !run->held, x, y, ax, ay, n);
    if (run->floor)
        floor_carries(run, y, ay, n);
    if (!run->held) {
        if (run->quick_palm)
            pressure_eases_back(run, t);
        return;
    }
    double te = t + run->step_dt; /* where the pins must be at the end of this step */
    double t_off = run->t_press + run->t_hold; /* when the lift begins */
    double lift = run->t_lift > 0.0 ? (te - t_off) / run->t_lift : 0.0; /* share of the lift done */
    if (te > t_off + run->t_lift + 1e-9)
        let_go(run);
    else if (te > t_off && run->launch > 0.0)
        leap_pins(run, fmin(1.0, lift));
    else if (te > t_off && run->t_draw > 0.0)
        /* a hand on a free body draws back with it, then rolls off (see press_timing) */
        draw_then_roll(run, lift, run->back);
    else if (te > t_off && run->back > 0.0)
        /* a hand turns or eases back with the body and lets go there (see press_timing) */
        press_pins(run, run->gain * (1.0 - run->back * smoothstep(lift)));
    else if (te > t_off && run->loosens)
        loosen(run, lift, x, y, ax, ay);
    else if (te > t_off && run->t_lift > 0.0)
        roll_off(run, lift);
    else
        press_pins(run, run->gain * smoothstep(te / run->t_press));
    if (run->far_spreads)
        spread_far(run, x);
}

/* Adds node k as a handle displaced by (dx, dy) at the peak. */
static void add_handle(impulse_run *run, int k, double dx, double dy)
{
    run->hk[run->nh] = k;
    run->hdx[run->nh] = dx;
    run->hdy[run->nh] = dy;
    run->nh++;
}

/* The stamp's opaque box (alpha at least one half), or its visible box when
 * no pixel is that opaque: x0, y0, x1, y1 in image pixels. */
static void opaque_box(const lattice *l, double b[4])
{
    int solid = l->sx1 > l->sx0 && l->sy1 > l->sy0;
    b[0] = solid ? l->sx0 : l->bx0;
    b[1] = solid ? l->sy0 : l->by0;
    b[2] = solid ? l->sx1 : l->bx1;
    b[3] = solid ? l->sy1 : l->by1;
}

double impulse_default_strength(const impulse_info *info, const lattice *lat)
{
    double box[4];
    opaque_box(lat, box);
    double w = box[2] - box[0], h = box[3] - box[1];
    double s = info->strength;
    if (info->wide_grows > 0.0 && w > h && h > 0.0)
        s *= pow(w / h, info->wide_grows);
    return fmin(s, info->strength_max);
}

/* How far the body's rest point (px, py) moves from pose a to pose b (the
 * nodes' positions), pixels, from the nodes of its lattice cell; 0 when the
 * cell is not whole. */
static int moved_between(const lattice *l, const double *ax, const double *ay, const double *bx, const double *by,
                         double px, double py, double *dx, double *dy)
{
    double u = (px - l->ox) / l->h, v = (py - l->oy) / l->h;
    int i = (int)floor(u), j = (int)floor(v);
    if (i < 0 || j < 0 || i >= l->nx - 1 || j >= l->ny - 1)
        return 0;
    int k00 = l->index[j * l->nx + i], k10 = l->index[j * l->nx + i + 1];
    int k01 = l->index[(j + 1) * l->nx + i], k11 = l->index[(j + 1) * l->nx + i + 1];
    if (k00 < 0 || k10 < 0 || k01 < 0 || k11 < 0)
        return 0;
    double fu = u - i, fv = v - j;
    double w00 = (1 - fu) * (1 - fv), w10 = fu * (1 - fv), w01 = (1 - fu) * fv, w11 = fu * fv;
    *dx = w00 * (bx[k00] - ax[k00]) + w10 * (bx[k10] - ax[k10]) + w01 * (bx[k01] - ax[k01]) +
          w11 * (bx[k11] - ax[k11]);
    *dy = w00 * (by[k00] - ay[k00]) + w10 * (by[k10] - ay[k10]) + w01 * (by[k01] - ay[k01]) +
          w11 * (by[k11] - ay[k11]);
    return 1;
}

/* Displacement of the body at rest point (px, py), pixels, from positions (rx, ry)
 * to now (moved_between). */
static int displacement_at(const impulse_run *run, const softbody_nodes *nd, const double *rx, const double *ry,
                           double px, double py, double *dx, double *dy)
{
    return moved_between(run->lat, rx, ry, nd->x, nd->y, px, py, dx, dy);
}

/* How far a fingertip pushes the body aside as it presses in: a handle at a
 * distance s across dir from the tip moves s / sigma times this much of its
 * depth away from the tip's line. Pressed straight in, the body between the
 * finger and its far side was squeezed like a spring: poked from the side,
 * the cat's far side moved a third as far as the dent (2.99 times less, the
 * grinning face 3.43); at 0.1, 3.06 and 3.55 times less. At 0.2 (3.15) the
 * tall bar poked on its top widened, 5.6 % more area, and moving frames of
 * three more stamps lost sharpness. A finger that loosens (see loosen) pushes
 * aside by FINGER_ASIDE_LOOSE: at 0.1 the cat and the face read 2.99 and
 * 3.48, at 0.15 3.03 and 3.56. Others keep 0.1: at 0.15 the balloon 1f388
 * patted looped with a seam 1.56 times the steps beside it, and poked at 0.3
 * with --volume 0.8 by a finger that rolled off lost 5.2 % of its area (held,
 * the finger now loosens at any depth, and it loses 1.6 %). */
#define FINGER_ASIDE 0.1
#define FINGER_ASIDE_LOOSE 0.15

/* How much farther a poke's press reaches into the body, along its
 * direction, than it spreads across it: the handles' depth falls off over
 * sigma across the finger's line and over FINGER_DEEP times sigma ahead of
 * the tip, as the body under a point load gives way deeper than it is
 * dented wide. Round, the press squeezed a part as thin as the dent is deep
 * between the tip and the body below: the thumb of 1f44d, poked at the
 * defaults, was pressed to half its height and bulged over the fist into
 * a crease (the outline turned 99 degrees past rest; at 1.5, 30; at 1.75,
 * 12), and 8 of 65 stamps turned more than 30 degrees (at 1.5, 1; at 1.75,
 * 1, the post office 1f3e4; free, 7, 3 and 1). At 2 the banana 1f34c's dent
 * was 2.56 times what its far side moved (at 1.75, 3.26).
 * A low bar's finger stays round: its dent reaches its far side anyway,
 * and at 1.5 the bar lying across the square was dented only 2.66 times as
 * far as its far side moved. So does a pat's: at 1.5 the balloon 1f388's
 * loop closed with a seam 1.58 times the steps beside it and the flag 1f6a9
 * was patted 0.78 as deep as asked. A finger that presses deeper than the
 * stamp's default reaches deeper ahead by the share of the default in its
 * strength (at 0.3 on a stamp whose default is 0.18, 1.45 times), held or
 * free. At 1.75, poked at 0.3 with --volume 0.8, the free luggage 1f9f3
 * lost 10.8 % of its area and the free balloon 1f388 7.4 %, and the held
 * luggage pushed its handle down into its case, whose corners swelled out
 * by 9.8 % of its area (at 1.45: 4.4 %, 3.1 % and 4.0 %). Round on a free
 * body, the finger at 1.5 times the default pressed the part under it flat
 * into its neighbours: 13 of 65 free stamps turned their outline more than
 * 30 degrees past rest (5 now), the two friends 1f46c-1f3fb 87 (24), and at
 * 0.3 the flag 1f6a9 80 (27). */
#define FINGER_DEEP 1.75

/* A finger that lands where it was asked on a part narrower across its line
 * than FINGER_NARROW times sigma (its spread across) reaches
 * FINGER_DEEP_NARROW instead of FINGER_DEEP times as far ahead: it cannot
 * dent a part that narrow, and presses it into the body under it. Reaching
 * as far as on a wide part, it pressed the post office 1f3e4's dome into
 * the ledge under it, whose corner tipped up into a point (the outline
 * turned 49 degrees past rest); now 15. The part is measured across the
 * line through the tip (part_across): the post office's dome is 1.73 sigma
 * wide there, the thumb of 1f44d 1.51 and the tower 1f5fc 1.12, the round
 * faces 5.7 and more. 9 of 65 stamps are poked so at the defaults; each
 * still dents 3.2 times as far as its far side moves or more (the popper
 * 1f389 3.28). A finger moved onto the picture (onto_picture; the banana
 * 1f34c lands on its peel's edge) keeps FINGER_DEEP: reaching deeper, the
 * banana's dent was 1.56 times what its far side moved (3.26 before). So
 * does one that presses deeper than the stamp's default: at 0.3 with
 * --volume 0.8, reaching 2.2 times as far ahead (FINGER_DEEP_NARROW by the
 * default's share, as FINGER_DEEP is taken), the tower lost 15 % of its
 * area and the tall exclamation mark 2757 12.6 %. */
#define FINGER_NARROW 2.0
#define FINGER_DEEP_NARROW 3.0

static double part_across(const lattice *l, v2 at, v2 dir);

/* 1 when the impulse is no stronger than the stamp's default
 * (impulse_default_strength). */
static int within_default(const impulse_run *run)
{
    return run->def.strength <= impulse_default_strength(run->info, run->lat) * (1.0 + 1e-9);
}

/* 1 when the impulse is weaker than the stamp's default. */
static int below_default(const impulse_run *run)
{
    return run->def.strength < impulse_default_strength(run->info, run->lat) * (1.0 - 1e-9);
}

/* How far past the stamp's default the impulse is: 0 at the default or
 * weaker, evenly up to 1 at twice the default and stronger. */
static double past_default(const impulse_run *run)
{
    return fmin(1.0, fmax(0.0, run->def.strength / impulse_default_strength(run->info, run->lat) - 1.0));
}

/* How much wider a finger patting a free body spreads its dent past the
 * default, at twice the default and stronger (evenly from none at the
 * default). As narrow as at the default, the finger pressed a notch into
 * round faces patted at 0.3: the grinning face 1f600, the full moon 1f315
 * and the angry face 1f621 turned their outlines 32.9 degrees past rest,
 * and the tall "!" 2757 with --volume 0 was pressed onto its dot (the two
 * parts merged; at 0.3 no more, at 0.28 and 0.29 still). Free stamps
 * patted at 0.3 turning more than 30 degrees at --volume 0.8 / 0.3 / 0:
 * 1 / 4 / 10 before, 0 / 1 / 2 at 0.45; at 0.3, 0 / 1 / 4 (the "!" still
 * merged); at 0.6, 1 / 4 / 2 (the unicorn 1f984 50). At 0.2 and 0.25,
 * over the three volumes, 8 before, 2 now. A held body keeps the default's
 * finger: widened by 0.3 there too, 10 held stamps turned more than 30
 * degrees at 0.3 with --volume 0 instead of 3. */
#define FINGER_WIDE_PAT_FREE 0.45

/* Handles under a fingertip at the kick point, moved by depth along dir at the
 * peak (less the farther they are from the tip), and aside from it. */
static void add_finger(impulse_run *run, const softbody_nodes *nd, const lattice *lat, double size, v2 dir,
                       double depth)
{
    /* the dent's slope stays below one, so no cell of the lattice folds over */
    double wide = run->def.kind == IMPULSE_PAT && run->free ? 1.0 + FINGER_WIDE_PAT_FREE * past_default(run) : 1.0;
    double sigma = fmax(fmax(0.6 * lat->h, 0.06 * size), 0.7 * wide * depth), reach = fmax(1.2 * lat->h, 2.2 * sigma);
    double aside = run->loosens ? FINGER_ASIDE_LOOSE : FINGER_ASIDE;
    /* a point off the body is moved to the nearest free node: the finger lands on the body */
    int nearest = -1;
    double best = INFINITY;
    for (int k = 0; k < nd->n; k++) {
        double d = hypot(nd->qx[k] - run->at_px.x, nd->qy[k] - run->at_px.y);
        if (!nd->pinned[k] && d < best)
            best = d, nearest = k;
    }
    double dx, dy;
    if (nearest < 0)
        return;
    if (!displacement_at(run, nd, nd->qx, nd->qy, run->at_px.x, run->at_px.y, &dx, &dy))
        run->at_px = v2_make(nd->qx[nearest], nd->qy[nearest]);
    double deep = 1.0;
    if (run->def.kind == IMPULSE_POKE && !run->low_bar) {
        double across = run->at_asked && within_default(run) ? part_across(lat, run->at_px, dir) : 0.0;
        int narrow = across > 0.0 && across < FINGER_NARROW * sigma;
        double far = narrow ? FINGER_DEEP_NARROW : FINGER_DEEP;
        deep += (far - 1.0) * fmin(1.0, impulse_default_strength(run->info, run->lat) / run->def.strength);
    }
    double shed = 1.0 - 1.0 / (deep * deep); /* the share of the distance ahead left out */
    for (int k = 0; k < nd->n; k++) {
        double ex = nd->qx[k] - run->at_px.x, ey = nd->qy[k] - run->at_px.y;
        double ahead = fmax(0.0, ex * dir.x + ey * dir.y), across = ey * dir.x - ex * dir.y;
        double d2 = ex * ex + ey * ey - ahead * ahead * shed;
        if (nd->pinned[k] || d2 > reach * reach)
            continue;
        double w = depth * exp(-d2 / (2.0 * sigma * sigma));
        double side = across / sigma;
        add_handle(run, k, (dir.x - aside * side * dir.y) * w, (dir.y + aside * side * dir.x) * w);
    }
}

/* A palm or a hand on an anchored body that pressed deeper than this many
 * times its impulse's default (the table's, which --list-impulses shows)
 * eases back with the body to that depth, as fast as it pressed, and lets go
 * there. Let go at the peak, a stretch at its largest strength 0.6 sprang
 * back from 1.6 times the body's height to 0.66 of it within four frames and
 * crumpled: at --volume 0.8, 47 of 65 stamps showed more than 5 % of their
 * area gained or lost, the tower 1f5fc folded into a heap, and the spring
 * back was the largest step, 8.4 times the median on the grinning face.
 * Eased back to twice the default, 15 did (the rest swelled at the peak,
 * where the hand still holds them; see add_stretch and STRETCH_CELL_FLOOR);
 * the shove at 0.5 (then its largest), 46, 47 and 39 at --volume 0, 0.3 and 0.8
 * before and 1, 0 and 0 after. At the defaults only the shove of a wide
 * stamp, whose default grows with its width, eases back. */
#define EASE_BACK_FROM 2.0

/* The share of its press a hand eases back by before it lets go: 0 up to
 * EASE_BACK_FROM times the default, then what brings it back to that depth. */
static double ease_back_share(const impulse_run *run)
{
    return fmax(0.0, 1.0 - EASE_BACK_FROM * run->info->strength / run->def.strength);
}

/* The handles of a one-shot impulse and how they move. */
/* How long a one-shot impulse presses, holds and lets go. */
static void press_timing(impulse_run *run)
{
    /* a press no faster than the body can follow: longer for a deeper one,
     * and for a finger or a hand on a free body, whose dent or turn is all
     * the motion there is until it lets go (a free poke pressed over four
     * frames' time: the press's steps were the clip's largest, over 3 times
     * the median in 3 of 65 stamps; over six, in 1, the mean ratio 2.3 to
     * 2.0; a free twist, see below). A crouch is as deep at any
     * strength: slowed as a press is, a jump at strength 2 crouched for
     * 1.5 s and its landing was cut off by the clip's end */
    /* A palm squashes a standing body over three frames' time: pressed over
     * four, a round face was scaled, not squashed (the best affine map left
     * 0.20 to 0.27 of the motion at its deepest frames, the smiling face
     * with heart eyes 1f60d 0.28 and the cat 1f431 0.32 over the three
     * farthest from rest); pressed over three, its cheeks and ears lag the
     * palm (0.36 to 0.54 on the six round faces of the corpus). A free body,
     * held between two palms, keeps four: pressed over three, the balloon
     * 1f388 lost 5.2 % of its area under them. A low bar, three times wider
     * than tall or more, is squashed over six (a deeper squash no faster
     * than on another body): it must widen as much as it is squashed to
     * keep its area, and the palms and the foot it slides on
     * (setup_press) let it, but not that fast. Over four, the bar lying
     * across the square lost 5.3 % of its area standing; over five, 5.1 %
     * free; over six, 4.5 % and 4.8 %; over eight, 4.5 % and 5.1 %, and
     * free it moved in 0.70 of its frames. It is stretched over six too:
     * over four, standing, it stretched 1.07 times as far as asked (1.24
     * at --fps 30), over six 1.00 (1.10) */
    double box[4];
    opaque_box(run->lat, box);
    int low_bar = box[2] - box[0] >= 3.0 * (box[3] - box[1]);
    int bar_palm = run->def.kind == IMPULSE_SQUASH && low_bar;
    int slow_bar = low_bar && (run->def.kind == IMPULSE_SQUASH || run->def.kind == IMPULSE_STRETCH);
    run->low_bar = low_bar;
    run->tall_bar = box[3] - box[1] >= 3.0 * (box[2] - box[0]);
    run->quick_palm = run->def.kind == IMPULSE_SQUASH && softbody_get_def(run->sb)->anchor == ANCHOR_BOTTOM && !low_bar;
    int slow_hand = run->free && ((run->def.kind == IMPULSE_POKE && !low_bar) || run->def.kind == IMPULSE_TWIST);
    run->t_press = (slow_hand ? 0.24 : run->quick_palm ? 0.12 : 0.16) *
                   (run->def.kind == IMPULSE_JUMP ? 1.0
                                                  : fmax(slow_bar ? 1.5 : 1.0, run->def.strength / run->info->strength));
    /* a palm or a hand lets go at the peak, where it stops anyway; a finger holds
     * its dent a moment (the body around it settles), and so does a crouch before the leap */
    run->t_hold = run->def.kind == IMPULSE_JUMP || run->def.kind == IMPULSE_POKE ? 0.04 : 0.0;
    /* and on a held body (not a low bar) loosens over two frames' time
     * (see below): let go all at once, the dent sprang back within one frame,
     * the clip's largest step by far. On a free body
     * the finger first draws back with it (see below) and rolls off
     * over three frames' time, keeping the far side held (rolled off its far
     * side first, the body hung from the finger's last pins and swung); the
     * hand that twists turns back over three frames' time (two in the air)
     * and lets go (let go at the peak, the turn sprang back up to 30 px
     * within one frame). The palms that squash a free body and the hands
     * that stretch it draw back with it to half their press too and let go a
     * frame's time later, their handles rolled off: let go at the peak, the
     * free body sprang back up to 18 px within one frame, 8.7 times the
     * clip's median step. The hand that shoves a free body draws back with
     * it to half its shove and rolls off over three frames' time: let go at
     * the peak, the spring back was the largest step, over 3 times the
     * median in 2 of 65 stamps (3.6 on the robot 1f916); rolled off over two
     * frames' time, in 2 others */
    /* the share of its press a hand draws or eases back by before it lets
     * go (back), and on a free body how long it draws back before it rolls
     * off (t_draw) */
    int kind = run->def.kind, palm = kind == IMPULSE_SQUASH || kind == IMPULSE_STRETCH;
    double ease = ease_back_share(run);
    run->t_lift = run->t_draw = run->back = 0.0;
    run->loosens = 0;
    if (kind == IMPULSE_POKE && (run->free || low_bar)) {
        /* the finger draws back with the body to half its depth, then rolls
         * off, on a free body its far side held until it is done. Let go at
         * once at half, the dent sprang back within one frame, the clip's
         * largest step more than 3 times the median in 16 of 65 free pokes;
         * rolled off, in 3. A low bar's dent is all the motion there is:
         * let go over a frame's time, it sprang back within one, 3.5 times
         * the median step of the bar lying across the square poked 0.3 deep;
         * held, drawn back and rolled off over four frames' time, 2.5 times
         * (over two, 2.6 and the bar moved in 0.64 of its frames, not 0.81).
         * On a free bar the finger presses as on a held one: over the slow
         * hand's time the press was a third of the clip and the bar moved in
         * 0.74 of its frames, not 0.76 */
        run->back = 0.5;
        run->t_draw = DRAW_BACK_TIME;
        run->t_lift = DRAW_BACK_TIME + (run->free ? 0.12 : 0.16);
    } else if (kind == IMPULSE_POKE) {
        /* the finger loosens over two frames' time (see loosen), at any
         * depth. Rolled off over a frame's time, the edge of the dent
         * first, a dent deeper than the default left the pin at its middle
         * last, and the frame that fell on it showed a notch there: poked
         * at 0.3, 25 of 65 stamps turned their outline more than 30
         * degrees past rest (loosened, 12), the round faces up to 72
         * (loosened, under 30); at 0.22 with --volume 0.8, 28 (3); at 0.3
         * with it, 34 (15). In those three runs, four stamps turn past 30
         * where they did not rolled off: at 0.3 the flag 1f6a9, whose thin pole
         * bulges at the foot, 55 (rolled off, 29; loosened with a round
         * finger, it crumpled, 163, and tore a part off; with the finger as
         * deep ahead as at the default, 24, but see FINGER_DEEP), the
         * luggage 1f9f3 54 (26) and the man shrugging 1f937-1f3fd-200d-2642
         * 36 (27); at 0.3 with --volume 0.8 the man 1f468-1f3fd-200d-1f9b0
         * 34 (29); at 0.22 with it the luggage 33 (26) */
        run->loosens = 1;
        run->t_lift = 0.08;
    } else if (kind == IMPULSE_TWIST) {
        /* a twist is a turn of the whole hand: it turns back with the body,
         * to 40 % of its turn on its foot and to 55 % in the air, and lets go
         * there. Let go at the peak, the turn sprang back within one frame;
         * rolled off after turning back, a square filling its canvas twisted
         * on its foot bent between its nodes past the room its placement gave
         * it. On its foot, let go at 60 %, the spring back was the largest
         * step, up to 3.3 times the median. In the air, turned over four
         * frames' time and let go at 40 %, the free body rocked on less and
         * the turn itself was the largest step, over 3 times the median in
         * 26 of 65 stamps; let go at 60 %, the spring back, in 3; turned
         * over six and let go at 55 %, in 1 (the mean ratio 2.3 to 1.9).
         * With the turn's share growing evenly from the foot (setup_press),
         * in 2: the snake 1f40d springs back 5 times the median step, the
         * keycap 3.4; let go at 40 % or 30 %, or rolled off, other stamps
         * took their place (at 35 %, 13 of 65) */
        run->back = run->free ? 0.45 : 0.6;
        run->t_lift = DRAW_BACK_TIME + (run->free ? 0.0 : 0.04);
    } else if ((run->free || bar_palm) && (palm || kind == IMPULSE_SHAKE)) {
        /* the palms or hands draw back to half their press over two frames'
         * time and roll off, and so does the palm on a standing low bar (let
         * go at its peak, the bar swung from its press to 6.6 % more area
         * than at rest); ones that squash or stretch past EASE_BACK_FROM
         * times the default draw back to half or to that depth, whichever is
         * further, as slowly as they pressed. At --strength 0.6 --volume
         * 0.8, 21 of 65 free stretches showed more than 5 % of their area
         * gained or lost and the banana 1f34c tore; drawn back so, 10 did
         * and none tore (at 0.36, 7 and 3; a squash at 0.4, 9 and 4). The
         * shove does not: drawn back so at 0.5 (then its largest), the
         * party popper 1f389 tore at --volume 0. The hands that stretch a
         * free low bar draw back to 0.4 of their pull: drawn back to half,
         * the bar lying across the square wobbled less than a pixel from
         * rest after 0.56 s and moved in 0.71 of its frames, 0.76 now */
        run->back = palm ? fmax(kind == IMPULSE_STRETCH && low_bar ? 0.4 : 0.5, ease) : 0.5;
        run->t_draw = palm && ease > 0.0 ? fmax(DRAW_BACK_TIME, run->t_press * run->back) : DRAW_BACK_TIME;
        run->t_lift = run->t_draw + (palm ? 0.04 : 0.12);
    } else if ((palm || kind == IMPULSE_SHAKE) && ease > 0.0) {
        run->back = ease; /* see EASE_BACK_FROM */
        run->t_lift = run->t_press * ease;
    }
}

/* The crouch before a leap. The hand squats the whole body onto its foot, 12 %
 * of its height, widening it as much (its area kept): a palm on the top bent a
 * thin stem under a heavy top over (a flag toppled 45 degrees on its pole, a
 * balloon folded onto its string). */
static void add_crouch(impulse_run *run, const softbody_nodes *nd, const lattice *lat, double top, double bottom,
                       double size)
{
    double c = 0.12 * size / fmax(bottom - top, 1.0), cx = 0.5 * (lat->bx0 + lat->bx1);
    for (int k = 0; k < nd->n; k++)
        if (!nd->pinned[k])
            add_handle(run, k, (nd->qx[k] - cx) * c / (1.0 - c), (bottom - nd->qy[k]) * c);
    run->launch = sqrt(2.0 * run->gravity * run->def.strength * size);
    run->t_lift = 0.12; /* the leap */
}

/* How far a hand that stretches a body past its impulse's default (the
 * table's) draws each column's end in towards the middle, in times what
 * keeps the stretch beyond the default its area: a body stretched evenly by
 * e keeps its area drawn in to 1 / (1 + e) of its width, and only the
 * columns' ends are held, so the body between them thins at its waist.
 * Lifted straight up, stamps stretched to the largest strength with
 * --volume 0.8 lost area there: the flag 1f6a9 7.7 % on a free body, the
 * heart 2764 5.3 %, and standing the heart, the handshake 1faf1 and the tower
 * 1f5fc 5.4 to 5.7 %. Drawn in by 2.5 times that share, none on a free body
 * and the tower 5.0 % standing; by 2, the flag 5.7 % free; by 2.75 and 3,
 * the fire 1f525 lost 6 to 7 % and the chains 26d3 opened holes. Up to the
 * default a stretch is not drawn in: drawn in by 1.5 times the share of
 * the whole stretch, a free body's stretch at the default was an even
 * scaling more than a jelly's (the part of its motion the best affine map
 * leaves fell from 0.43 to 0.33 on the median stamp) and the tower's spring
 * back the clip's largest step, 3.2 times the median. A low bar is drawn
 * in too (not drawn in, the bar lying across the square grew horns at its
 * ends; drawn in, stretched to twice the default it rises 1.02 times the
 * height asked). On a body held at its foot the
 * band keeps the picture's area (softbody), and the draw-in is what
 * STRETCH_DRAW_IN says. On a free body this is what a tall bar's top is
 * drawn in by (see STRETCH_DRAW_IN), up to STRETCH_DRAW_IN_TOP_MAX of its
 * way to the middle: drawn in by half its way at 0.4 with --volume 0.8,
 * the tall "!" 2757's top came to a point that turned its outline 38
 * degrees past rest (29 now; by 0.25, 31), its area kept as well (1.9 %
 * off). */
#define STRETCH_DRAW_IN_TOP 2.5
#define STRETCH_DRAW_IN_TOP_MAX 0.2

/* The draw-in of a stretch, at the top of a body held at its foot and at
 * both ends of a free one. Drawn in by 2.5, the top of a round face came to
 * a point: stretched to 0.6 with --volume 0.8, the grinning face 1f600 held
 * at its foot turned 49 degrees past rest at its tip and the cat 1f431 55
 * (kink_new), and 48 of 65 stamps more than 30. Drawn in by 1.25, 24 and 21
 * degrees and 31 stamps, none off its area by more than 4.1 % (with the
 * foot gathering too, spread_foot, 20 stamps, the tall "!" 2757 4.96 %); by 0.75, 28
 * stamps, the handshake 1faf1 5.0 % off. On a free body both ends are held
 * and the band cannot keep the area alone: drawn in at its top alone by
 * 1.25, the flag 1f6a9 was off its area by 6.8 %, and by 2.5, 47 of 65
 * stamps turned more than 30 degrees, the grinning face 48 at its pointed
 * top. The hand at a free body's foot now draws it in as the top's does, no
 * farther than the top is lifted: 24 of 65, the face 19, the flag 4.7 %
 * off. A tall bar, three times taller than wide or more, is drawn in at its
 * top alone, by STRETCH_DRAW_IN_TOP: drawn in at its foot too, the tall
 * "!" 2757 gained 5.8 % of its area. */
#define STRETCH_DRAW_IN 1.25

/* The sideways move of a column's end off the middle by off, drawn in by the
 * share in, no farther than it is lifted (dy): drawn in farther, 8 of 65
 * stamps stretched free to the largest strength with --volume 0.8 were off
 * their area by more than 5 %, among them the flags 1f1ef-1f1f5 and
 * 1f1f1-1f1ee and the pudding 1f36e, and 2 others opened holes. */
static double draw_in(double off, double in, double dy)
{
    return fmax(-fabs(dy), fmin(fabs(dy), -off * in));
}

/* A stretch: the whole top edge is lifted by from_top of depth, ears and horns
 * too, and the bottom edge pulled down by the rest (held where it is, with
 * hold, when none is left for it). Each column's end is moved by its share of
 * depth as far from the anchor, or from a free body's held foot, as it is (of
 * the lattice's top to bottom), as a body stretched evenly would move it.
 * Moved all the same on an anchored body, the legs of the tower 1f5fc, whose
 * column tops stand low, were drawn up as far as its spire's, and at
 * --strength 0.6 --volume 0.8 it swelled by 26 %; lifted so, by 9 %, and 8 of
 * 65 stamps were off their area by more than 5 % instead of 15. On a free body
 * too: lifted all the same there, the tower swelled by 21 % and its spire came
 * apart, and 5 of 65 stamps were off their area by more than 5 %; lifted so,
 * 3, and none came apart. The ends are drawn in towards the middle as they
 * go (STRETCH_DRAW_IN, STRETCH_DRAW_IN_TOP), a low bar's too, and so are a
 * free body's bottom ends, but a tall bar's. */
static void add_stretch(impulse_run *run, const softbody_nodes *nd, const lattice *lat, double from_top, double depth,
                        int hold, double top, double bottom)
{
    double span = fmax(bottom - top, 1.0), e = depth / span, cx = 0.5 * (lat->bx0 + lat->bx1);
    double e0 = run->info->strength * run->size / span; /* e at the default */
    int both = run->free && !run->tall_bar; /* the hand at the foot draws it in too */
    double past = fmax(0.0, e - e0) / (1.0 + e); /* the stretch past the default, as a share */
    double in = run->free && run->tall_bar ? fmin(STRETCH_DRAW_IN_TOP_MAX, STRETCH_DRAW_IN_TOP * past)
                                           : STRETCH_DRAW_IN * past;
    /* the top and bottom node of every column */
    int *coltop = run->hk + nd->n, *colbot = coltop + lat->nx; /* scratch after the handle list */
    for (int i = 0; i < lat->nx; i++)
        coltop[i] = colbot[i] = -1;
    for (int k = 0; k < nd->n; k++) {
        int i = lat->ni[k];
        if (coltop[i] < 0 || lat->nj[k] < lat->nj[coltop[i]])
            coltop[i] = k;
        if (colbot[i] < 0 || lat->nj[k] > lat->nj[colbot[i]])
            colbot[i] = k;
    }
    for (int i = 0; i < lat->nx; i++) {
        if (coltop[i] < 0)
            continue;
        int t = coltop[i], b = colbot[i];
        double up = fmin(1.0, fmax(0.0, (bottom - nd->qy[t]) / span));
        double down = hold ? 1.0 : fmin(1.0, fmax(0.0, (nd->qy[b] - top) / span));
        if (from_top > 0.0 && !nd->pinned[t]) {
            double dy = -from_top * depth * up;
            add_handle(run, t, draw_in(nd->qx[t] - cx, in * up, dy), dy);
        }
        if ((from_top < 1.0 || hold) && b != t && !nd->pinned[b]) {
            double dy = (1.0 - from_top) * depth * down;
            add_handle(run, b, draw_in(nd->qx[b] - cx, in * down, both ? depth * down : dy), dy);
        }
    }
}

/* The other hand of a free body: it holds the body's far side from the hand
 * that presses (along dir) where it rests, as an anchor holds a standing
 * body's foot: the farthest node of every column (of every row, when dir is
 * more sideways than up or down) that reaches the farthest quarter, as
 * handles that do not move. Turned by one hand alone, a twisted body's foot
 * lagged and its corners folded up, and the turn reached half of what it
 * reached anchored; poked, the whole body gave way, its far side moving
 * almost as much as the dent. */
static void hold_far_side(impulse_run *run, const softbody_nodes *nd, const lattice *lat, v2 dir)
{
    int rows = fabs(dir.x) > fabs(dir.y), sign = (rows ? dir.x : dir.y) > 0.0 ? 1 : -1, moved = run->nh;
    run->far_from = run->nh;
    run->far_spreads = run->def.kind == IMPULSE_POKE && !rows && !within_default(run) ? sign : 0;
    for (int line = 0; line < (rows ? lat->ny : lat->nx); line++) {
        int k = lattice_far_node(lat, rows, sign, line), held = 0;
        if (k < 0 || nd->pinned[k])
            continue;
        for (int h = 0; h < moved && !held; h++)
            held = run->hk[h] == k;
        if (!held)
            add_handle(run, k, 0.0, 0.0);
    }
}

/* How much the handles of a twist grow about its pivot, per radian of their
 * turn, so that the picture keeps its area. A turn whose share g varies over
 * the body changes a cell's area per radian by g's change across it times
 * its distance from the pivot (g'(y) (x - pivot x) where g grows with the
 * height alone), which adds up to nothing on a shape as wide on both sides
 * of the pivot at every height but not on a diagonal one: a banana and a
 * ruler twisted on their feet lost 5.7 % and 5.6 % of their area. The
 * growth, weighed by the same share, makes up for it to first order over
 * the cells the picture fills, from the handles' own shares, each cell
 * weighed by its share of opaque pixels; 0 when the turn keeps the area or
 * growth cannot change it. */
static double turn_grow(const impulse_run *run, const softbody_nodes *nd, const lattice *lat)
{
    const double *share = run->share;
    double turned = 0.0, grown = 0.0, area = 0.0;
    static const int ci[4] = { 0, 1, 1, 0 }, cj[4] = { 0, 0, 1, 1 };
    for (int j = 0; j + 1 < lat->ny; j++)
        for (int i = 0; i + 1 < lat->nx; i++) {
            size_t c = (size_t)j * (lat->nx - 1) + i;
            double w = lat->cell_opaque[c];
            int k[4], whole = 1;
            for (int v = 0; v < 4; v++) {
                k[v] = lat->index[(size_t)(j + cj[v]) * lat->nx + i + ci[v]];
                whole = whole && k[v] >= 0;
            }
            if (!(w > 0.0) || !whole)
                continue;
            /* the first-order change of the quad's area (shoelace) under each field */
            for (int v = 0; v < 4; v++) {
                int a = k[v], next = k[(v + 1) % 4], prev = k[(v + 3) % 4];
                double ex = nd->qx[next] - nd->qx[prev], ey = nd->qy[next] - nd->qy[prev];
                double rx = nd->qx[a] - run->pivot.x, ry = nd->qy[a] - run->pivot.y, g = share[a];
                turned += w * 0.5 * (-g * ry * ey - g * rx * ex);
                grown += w * 0.5 * (g * rx * ey - g * ry * ex);
                area += w * 0.5 * (nd->qx[a] * (nd->qy[next] - nd->qy[prev]));
            }
        }
    if (!(fabs(grown) > 1e-9 * fabs(area)))
        return 0.0;
    double grow = -turned / grown;
    return fmax(-1.0, fmin(1.0, grow));
}

/* The share of the opaque box's width that the picture's lowest row of
 * opaque samples covers: near 1 on a flat foot (a bust cut off at its
 * shoulders, a flag), small on a round one (a face, 0.19). */
static double flat_foot(const lattice *l)
{
    double low = -INFINITY, w = l->sx1 - l->sx0;
    for (int k = 0; k < l->op_n; k++)
        low = fmax(low, l->op_y[k]);
    int on = 0;
    for (int k = 0; k < l->op_n; k++)
        on += l->op_y[k] > low - 0.5 * l->op_stride;
    return w > 0.0 ? on * l->op_stride / w : 0.0;
}

/* A foot is flat when flat_foot is at least this. At 0.35 the unicorn
 * 1f984 (0.38, its neck) slid too, and squashed free at half the default
 * it folded its mane, 73 degrees past rest. */
#define FLAT_FOOT 0.5

/* A shove's share of the sway grows as a smoothstep from SHAKE_FROM of the
 * body's height from the anchor (the bottom when free) over SHAKE_SPAN of it.
 * Past the stamp's default it spreads down the body, evenly in the strength,
 * to the whole height at twice the default, so the body leans from its foot
 * instead of shearing at the row the shove begins at. Held there, at 0.3
 * with the default volume the house 1f3e0 shaken free sheared into a step
 * that turned its outline 41 degrees past rest (9 now) and the tall "!"
 * bent into an S, 47 (12); 20 of 65 stamps shaken free and 4 held turned
 * more than 30 degrees, with --volume 0.8 7 and 3 (none now, nor at 0.18,
 * 0.24 or --volume 0). Spread at the default too, the shove moved the
 * whole body at once: 17 of 65 stamps shaken free took a step between
 * frames over 3 times the median (none held at SHAKE_FROM). */
#define SHAKE_FROM 0.35
#define SHAKE_SPAN 0.4

/* The share of a low bar's half width, either side of the middle of its
 * opaque box, where its foot is still held while it is twisted: held at
 * its foot, the anchor lets the rest of the foot go; held by nothing, the
 * hand holds the foot's middle still. All the rest turns in full: the
 * whole bar turns, rocking on the middle of its foot. A bar four times
 * wider than tall has its ends two of its heights or more from the turn's
 * centre: held along its whole foot and turned more the higher up, it was
 * pressed flat at the end that turned down, and carried up and down half
 * as far as the turn would carry it, the hand turned further to reach the
 * turn asked. The "!" lying on its side (2757 drawn 4 times wider),
 * twisted at the default, had a cell crushed to 0.49 of its area (now
 * 0.80) and folded one from 0.34 on (at 0.4 it keeps 0.59); held, its end
 * thinned into a wedge whose outline turned 38 degrees past rest at 0.3
 * and 34 to 48 at 0.4 (free, 30 to 60), now at most 15 held or free at any
 * --volume, its turn within 2 % of the strength. */
#define TWIST_BAR_HOLD 0.2
/* 1 when node k is one of the nodes a low bar rocks on: on its foot (held
 * there by the anchor, or the lowest of its column on a free body), within
 * TWIST_BAR_HOLD of the middle of its opaque box (box). */
static int rocks_on(const softbody_nodes *nd, const lattice *lat, const double box[4], int k, int free_body)
{
    double mid = 0.5 * (box[0] + box[2]), half = 0.5 * (box[2] - box[0]);
    if (fabs(nd->qx[k] - mid) > TWIST_BAR_HOLD * half)
        return 0;
    return free_body ? lattice_far_node(lat, 0, 1, lat->ni[k]) == k : nd->pinned[k];
}

/* The share of a body's foot (of the span of its anchored nodes, or on a
 * free body of the nodes the second hand holds still, either side of the
 * span's middle) still held while it is twisted past its default: all of it
 * at the default, down evenly in the strength to TWIST_FOOT_HOLD at twice
 * the default. The rest of the foot is let go, so the body rocks on the
 * foot's middle as it turns. Held along the whole foot, the side turning
 * down was pressed together into a point: at 0.4, 8 of 65 stamps standing
 * turned their outline more than 30 degrees past rest (the post office
 * 1f3e4 48, thumbs up 1f44d 43), 2 now (the heart eyes 1f60d 40), and 5
 * free (the unicorn 1f984 70), none now. A body three times taller than
 * wide or more, whose foot is a point already, keeps it: rocking on its
 * middle, the tall "!" sprang back in one step 3.8 times the clip's
 * median. */
#define TWIST_FOOT_HOLD 0.35
static double twist_foot_hold(const impulse_run *run)
{
    return run->tall_bar ? 1.0 : 1.0 - (1.0 - TWIST_FOOT_HOLD) * past_default(run);
}

/* The middle of the span of nodes[0 .. count) along x and its half width. */
static void span_x(const softbody_nodes *nd, const int *nodes, int count, double *mid, double *half)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < count; i++) {
        lo = fmin(lo, nd->qx[nodes[i]]);
        hi = fmax(hi, nd->qx[nodes[i]]);
    }
    *mid = 0.5 * (lo + hi);
    *half = 0.5 * (hi - lo);
}

/* The second hand on a free body (hold_far_side) lets go of its handles
 * farther from the middle of their span than hold times its half. */
static void let_far_sides_go(impulse_run *run, const softbody_nodes *nd, double hold)
{
    if (hold >= 1.0 || run->nh <= run->far_from)
        return;
    double mid, half;
    span_x(nd, run->hk + run->far_from, run->nh - run->far_from, &mid, &half);
    int m = run->far_from;
    for (int h = run->far_from; h < run->nh; h++)
        if (fabs(nd->qx[run->hk[h]] - mid) <= hold * half + 1e-9) {
            run->hk[m] = run->hk[h];
            run->hdx[m] = run->hdx[h];
            run->hdy[m] = run->hdy[h];
            m++;
        }
    run->nh = m;
}

/* Lets go of the anchored nodes farther from the middle of their span than
 * hold times its half (hold 1: none), as let_far_sides_go does of its handles. */
static void let_foot_sides_go(impulse_run *run, const softbody_nodes *nd, double hold)
{
    if (hold >= 1.0)
        return;
    int pins[LATTICE_GRID_MAX * LATTICE_GRID_MAX], m = 0;
    for (int k = 0; k < nd->n && m < LATTICE_GRID_MAX * LATTICE_GRID_MAX; k++)
        if (nd->pinned[k])
            pins[m++] = k;
    double mid, half;
    span_x(nd, pins, m, &mid, &half);
    for (int i = 0; i < m; i++)
        if (fabs(nd->qx[pins[i]] - mid) > hold * half + 1e-9)
            softbody_set_pinned(run->sb, pins[i], 0);
}

static int setup_press(impulse_run *run, const softbody_nodes *nd, const lattice *lat, double top, double bottom,
                       double size, v2 dir)
{
    double s = run->def.strength;
    int n = nd->n;
    run->gain = 1.0;
    press_timing(run);
    /* squash and stretch work against the anchor: from the top of a standing
     * body, from the bottom of a hanging one; a free one is squashed from the
     * top onto a palm held under it, and stretched up from a hand that holds
     * its bottom */
    anchor_kind anchor = softbody_get_def(run->sb)->anchor;
    int free_body = anchor == ANCHOR_NONE;
    double from_top = anchor == ANCHOR_TOP ? 0.0 : 1.0;
    /* how far a node at rest height y is from the anchored edge (the bottom when free) */
#define from_anchor(y) (anchor == ANCHOR_TOP ? (y) - top : bottom - (y))

    /* a held body squashed, stretched or poked past the default, and a
     * standing one squashed at the default, spreads and gathers its foot
     * with the body above it (spread_foot); a low bar only stretched (held
     * as wide as at rest, with its top not drawn in, the bar lying across
     * the square stretched at 0.36 with --volume 0.8 grew horns at its
     * ends: its outline turned 56 degrees past rest, 19 now, and free 56,
     * 21 now) */
    int from_default = run->def.kind == IMPULSE_SQUASH && anchor == ANCHOR_BOTTOM;
    int pressed = run->def.kind == IMPULSE_SQUASH || run->def.kind == IMPULSE_POKE;
    run->foot_spreads = (run->def.kind == IMPULSE_STRETCH || (pressed && !run->low_bar)) && !free_body &&
                        (from_default ? !below_default(run) : !within_default(run));
    switch (run->def.kind) {
    case IMPULSE_STRETCH:
        /* past the default a held body's foot gathers as the body above it
         * narrows (spread_foot): held as wide as at rest, the keycap
         * 0034-fe0f-20e3 stretched at 0.6 with --volume 0.8 flared out over
         * it into corners that turned its outline 34 degrees past rest (21
         * now), and 31 of 65 stamps turned more than 30 (20 now) */
        add_stretch(run, nd, lat, from_top, s * size, free_body, top, bottom);
        break;
    case IMPULSE_SQUASH:
        /* a low bar slides under the palms and on its foot, but for the
         * foot's middle (slide_foot): it widens as they squash it. Held
         * where they touched it, the bar lying across the square lost 8.3 %
         * of its area between two palms (4.8 % now), and standing under a
         * palm that held it, 5.0 % (4.5 %). A free body squashed deeper
         * than the default slides on the palm under it (under_slides): held
         * where it touched it, it bulged out over it into notches. The palm
         * that presses still holds: sliding under both, squashed at 0.32,
         * the Tokyo tower's spire slid off the top and the tower buckled
         * over (its outline turned 48 degrees past rest, held 25), and on a
         * body held at its foot, whose foot spreads (spread_foot), 17 of 65
         * stamps turned more than 30 degrees squashed at 0.32 (held, 10)
         * and the flag 1f6a9 squashed only 0.81 of the strength asked.
         * A free body on a flat foot (FLAT_FOOT) slides on it at any
         * depth: held where it touched, the foot stayed as wide as at rest
         * while the body bulged out above it, and at the default the
         * detective 1f575-1f3ff-200d-2640-fe0f's shoulder met its foot in
         * a corner that turned its outline 37 degrees past rest (24 now).
         * A round foot still holds: a round face's bulge above its foot is
         * most of its jelly, sliding, the grinning face 1f600 squashed
         * free at the default showed 0.32 of its motion past its best
         * affine map instead of 0.41 */
        run->palm_sticky = !run->low_bar;
        run->under_slides = free_body && (!within_default(run) || flat_foot(lat) >= FLAT_FOOT);
        if (run->low_bar && !free_body) {
            double box[4], best = INFINITY;
            opaque_box(lat, box);
            double mid = 0.5 * (box[0] + box[2]);
            for (int k = 0; k < n; k++)
                if (nd->pinned[k] && fabs(nd->qx[k] - mid) < best) {
                    best = fabs(nd->qx[k] - mid);
                    run->foot_hold = k;
                }
            run->foot_slides = best < INFINITY;
        }
        run->plane = from_top > 0.0;
        run->plane_top = top;
        run->plane_depth = from_top * s * size;
        run->plane_up = from_top < 1.0 || free_body;
        run->plane_bottom = bottom;
        run->plane_up_depth = (1.0 - from_top) * s * size;
        break;
    case IMPULSE_JUMP: /* a crouch, then the leap */
        add_crouch(run, nd, lat, top, bottom, size);
        break;
    case IMPULSE_DROP:
        /* lifted from where it stands and let fall at the top, where the
         * hand stops anyway (a slower lift or a pause there were runs of
         * still frames beside the landing's fast ones) */
        for (int k = 0; k < n; k++)
            if (!nd->pinned[k])
                add_handle(run, k, 0.0, -s * size);
        run->t_press = 0.25;
        run->t_hold = 0.0;
        break;
    case IMPULSE_POKE:
        add_finger(run, nd, lat, size, dir, s * size);
        if (free_body)
            hold_far_side(run, nd, lat, dir);
        break;
    case IMPULSE_SHAKE: {
        /* the part far from the anchor is shoved (the top quarter of a standing
         * body) all the way, less nearer the anchor: at the default from
         * SHAKE_FROM of the height to SHAKE_FROM + SHAKE_SPAN, spreading past
         * it to the whole height at twice the default (see SHAKE_FROM) */
        double past = past_default(run);
        double from = SHAKE_FROM * (1.0 - past), span = SHAKE_SPAN + (1.0 - SHAKE_SPAN) * past;
        for (int k = 0; k < n; k++) {
            double g = smoothstep((from_anchor(nd->qy[k]) / size - from) / span);
            if (!nd->pinned[k] && g > 0.0)
                add_handle(run, k, dir.x * s * size * g, dir.y * s * size * g);
        }
        break;
    }
    case IMPULSE_TWIST: {
        /* the part far from the anchor turns, more the farther: a twist, not
         * a tilt. Its share of the turn grows evenly with the height above
         * the column's foot (the node the anchor holds, which climbs a round
         * face's side; the anchored edge on a free body), so the side
         * turning toward the anchor is pressed together evenly. A share
         * growing from a fifth of the height as a smoothstep crushed that
         * side: the twist asked is measured over the whole picture, so the
         * hand turned the top up to four times as far, and at --strength 0.4
         * (twice the default) 6 of 65 Twemoji on their foot and 9 free tore
         * or opened a hole (a post office's roof folded into a fan), and 4
         * free ones fell 15 % short of the strength. Now none does, and the
         * Tokyo tower turns 0.198 at the default, not 0.136. Measured from
         * the anchored edge instead of the foot, a node just above a foot
         * high on a round face's side turned below it */
        double foot[LATTICE_GRID_MAX]; /* each column's foot, from_anchor */
        int held[LATTICE_GRID_MAX] = { 0 }, any = 0;
        for (int k = 0; k < n; k++)
            if (nd->pinned[k]) { /* the anchor holds one node per column at most */
                foot[lat->ni[k]] = from_anchor(nd->qy[k]);
                held[lat->ni[k]] = any = 1;
            }
        /* a column the anchor does not reach (the outer ones of a round face)
         * stands on its nearest held neighbour's foot */
        for (int i = 0; i < lat->nx; i++) {
            if (held[i])
                continue;
            foot[i] = 0.0;
            for (int d = 1; any && d < lat->nx; d++) {
                int l = i - d, r = i + d;
                int hl = l >= 0 && held[l], hr = r < lat->nx && held[r];
                if (hl || hr) {
                    foot[i] = hl && hr ? 0.5 * (foot[l] + foot[r]) : hl ? foot[l] : foot[r];
                    break;
                }
            }
        }
        /* a low bar rocks on the middle of its foot (TWIST_BAR_HOLD), and
         * past the default a standing body lets go of the foot's sides
         * (twist_foot_hold) */
        double box[4];
        opaque_box(lat, box);
        if (run->low_bar && !free_body) {
            for (int k = 0; k < n; k++)
                if (nd->pinned[k] && !rocks_on(nd, lat, box, k, 0))
                    softbody_set_pinned(run->sb, k, 0);
        } else if (!free_body) {
            let_foot_sides_go(run, nd, twist_foot_hold(run));
        }
        run->turn = 1;
        run->pivot = run->at_px;
        run->angle = s;
        for (int k = 0; k < n; k++) {
            double g = fmin(1.0, (from_anchor(nd->qy[k]) - foot[lat->ni[k]]) / size);
            if (run->low_bar)
                g = rocks_on(nd, lat, box, k, free_body) ? 0.0 : 1.0;
            if (!nd->pinned[k] && g > 0.0)
                add_handle(run, k, g, 0.0); /* hdx holds the share of the turn */
        }
        if (!(run->share = calloc((size_t)n, sizeof *run->share)))
            return 0;
        for (int h = 0; h < run->nh; h++)
            run->share[run->hk[h]] = run->hdx[h];
        run->turn_grow = turn_grow(run, nd, lat);
        if (free_body) {
            hold_far_side(run, nd, lat, v2_make(0.0, 1.0));
            if (!run->low_bar)
                let_far_sides_go(run, nd, twist_foot_hold(run));
        }
        break;
    }
    default:
        break;
    }
#undef from_anchor
    double slow = tempo_slowness(run->sb);
    run->t_press *= slow;
    run->t_hold *= slow;
    run->t_lift *= slow;
    run->t_draw *= slow;
    return 1;
}

/* The turn of the best affine map of the displacement over the opaque
 * pixels (the rotation of p -> p + A p, radians): what a viewer sees turn,
 * where the picture is and not the air between a tower's legs. */
static double affine_turn(const impulse_run *run, const softbody_nodes *nd, const double *rx, const double *ry)
{
    const lattice *l = run->lat;
    double s[12] = { 0 }; /* n, x, y, fx, fy, xx, xy, yy, x fx, y fx, x fy, y fy */
    for (int k = 0; k < l->op_n; k++) {
        double x = l->op_x[k], y = l->op_y[k], fx, fy;
        if (!displacement_at(run, nd, rx, ry, x, y, &fx, &fy))
            continue;
        double v[12] = { 1, x, y, fx, fy, x * x, x * y, y * y, x * fx, y * fx, x * fy, y * fy };
        for (int i = 0; i < 12; i++)
            s[i] += v[i];
    }
    if (s[0] < 3)
        return 0.0;
    double n = s[0], cx = s[1] / n, cy = s[2] / n, mx = s[3] / n, my = s[4] / n;
    double sxx = s[5] - n * cx * cx, sxy = s[6] - n * cx * cy, syy = s[7] - n * cy * cy;
    double bx0 = s[8] - n * cx * mx, bx1 = s[9] - n * cy * mx, by0 = s[10] - n * cx * my, by1 = s[11] - n * cy * my;
    double det = sxx * syy - sxy * sxy;
    if (!(fabs(det) > 1e-12))
        return 0.0;
    double a11 = (syy * bx0 - sxy * bx1) / det, a12 = (sxx * bx1 - sxy * bx0) / det;
    double a21 = (syy * by0 - sxy * by1) / det, a22 = (sxx * by1 - sxy * by0) / det;
    return atan2(a21 - a12, 2 + a11 + a22);
}

/* The highest and lowest opaque pixel for the nodes' heights y: the
 * picture's points (see picture_points). Returns 0 when it has none. */
static int opaque_rows(const impulse_run *run, const double *y, double *top, double *bottom)
{
    *top = INFINITY;
    *bottom = -INFINITY;
    for (int j = 0; j < run->nwp; j++) {
        double py = point_at(&run->wp[j], y);
        *top = fmin(*top, py);
        *bottom = fmax(*bottom, py);
    }
    return *bottom > *top;
}

/* How much shorter (squash) or taller (stretch) the opaque box is now, over
 * its height. Squash: the mean move of its top and of its bottom edge,
 * sampled across its width where cells are drawn (the nodes reach past the
 * opaque edges, a cell's worth on a thin bar, so pressing them moves the
 * edges less than the nodes). Stretch, and a squash at the default whose
 * foot spreads (spread_foot): the height of the opaque pixels themselves,
 * which a viewer and the strength figure see: scaled by its edges' mean
 * move, 65 stamps stretched 0.96 to 1.11 times the height asked, by the
 * pixels' height 0.94 to 1.02; and as its foot spread, the flag
 * 1f1ef-1f1f5's bottom corners sank, and it was squashed at the default
 * 0.84 times as deep as asked by its edges' mean move, 0.90 by the pixels'
 * height. Deeper, the edges' mean move: squashed at 0.38 by the pixels'
 * height, the flag 1f6a9 tore its pole. */
static double height_change(const impulse_run *run, const softbody_nodes *nd, const double *rx, const double *ry)
{
    double t0, b0, t1, b1;
    int rows = run->def.kind == IMPULSE_STRETCH || (run->foot_spreads && within_default(run));
    if (rows && opaque_rows(run, ry, &t0, &b0) &&
        opaque_rows(run, nd->y, &t1, &b1))
        return run->def.kind == IMPULSE_STRETCH ? (b1 - t1) / (b0 - t0) - 1.0 : 1.0 - (b1 - t1) / (b0 - t0);
    double box[4];
    opaque_box(run->lat, box);
    double x0 = box[0], y0 = box[1], x1 = box[2], y1 = box[3];
    double top = 0.0, bottom = 0.0, dx, dy;
    int nt = 0, nb = 0;
    for (int a = 0; a <= 8; a++) {
        double px = x0 + (x1 - x0) * (a / 8.0);
        if (displacement_at(run, nd, rx, ry, px, y0, &dx, &dy))
            top += dy, nt++;
        if (displacement_at(run, nd, rx, ry, px, y1, &dx, &dy))
            bottom += dy, nb++;
    }
    if (!nt || !nb)
        return 0.0;
    double change = (bottom / nb - top / nt) / (y1 - y0);
    return run->def.kind == IMPULSE_SQUASH ? -change : change;
}

/* The deformation now in the strength's own units (poke and pat: the mean
 * displacement within 0.1 of the height around the kick point over the
 * height, as drawn, of the pixels there in the first frame, rx and ry, a
 * periodic loop's; twist: the turn of the best affine map over the opaque
 * pixels, radians). A dent is worked out in the run's scratch field. */
static double press_measure(impulse_run *run, const softbody_nodes *nd, const double *rx, const double *ry)
{
    if (!rx) {
        rx = nd->qx;
        ry = nd->qy;
    }
    if (run->def.kind == IMPULSE_WAVE) {
        /* the mean sideways move of the top quarter of the opaque box, over
         * points in drawn cells (where the pixels are) */
        const lattice *l = run->lat;
        double box[4];
        opaque_box(l, box);
        double sum = 0.0, hq = 0.25 * (box[3] - box[1]);
        int count = 0;
        for (int a = 0; a <= 16; a++)
            for (int b = 0; b <= 4; b++) {
                double px = box[0] + (box[2] - box[0]) * a / 16.0, py = box[1] + hq * b / 4.0, dx, dy;
                int ci = (int)floor((px - l->ox) / l->h), cj = (int)floor((py - l->oy) / l->h);
                if (ci < 0 || cj < 0 || ci >= l->nx - 1 || cj >= l->ny - 1 || !l->cell[(size_t)cj * (l->nx - 1) + ci] ||
                    !displacement_at(run, nd, rx, ry, px, py, &dx, &dy))
                    continue;
                sum += dx;
                count++;
            }
        return count ? fabs(sum / count) / run->size : 0.0;
    }
    if (run->def.kind == IMPULSE_SQUASH || run->def.kind == IMPULSE_STRETCH)
        return height_change(run, nd, rx, ry);
    if (run->def.kind == IMPULSE_TWIST)
        return fabs(affine_turn(run, nd, rx, ry));
    /* poke, pat: the dent as the frames draw it, through the warp's spline
     * (a dent a few cells wide is fuller between the nodes than their
     * bilinear mean: measured so, 9 of 65 stamps poked at half the default
     * dented 1.15 to 1.45 times as deep as asked), over the opaque pixels
     * near the kick point, or points of whole cells around it at rest where
     * none is */
    const lattice *l = run->lat;
    for (int k = 0; k < nd->n; k++) {
        run->warp_x[k] = nd->x[k] - rx[k] + l->ox + l->ni[k] * l->h;
        run->warp_y[k] = nd->y[k] - ry[k] + l->oy + l->nj[k] * l->h;
    }
    render_warp_field(l, run->warp_x, run->warp_y, run->field_x, run->field_y, run->field_filled);
    double r = 0.1 * run->size, sum = 0, dx, dy;
    int count = 0;
    /* the pixels near the kick point where the first frame shows them, as
     * the figures take them: a periodic loop's first frame is not at rest.
     * Taken where they rest, a rocket (OpenMoji 1F680) patted on its nose,
     * 13 % of its height off its rest there, dented 1.17 times as deep as
     * asked */
    int moved = rx != nd->qx;
    for (int k = 0; k < l->op_n; k++) {
        double ox = l->op_x[k] - run->at_px.x, oy = l->op_y[k] - run->at_px.y, sx, sy;
        if (moved && moved_between(l, nd->qx, nd->qy, rx, ry, l->op_x[k], l->op_y[k], &sx, &sy))
            ox += sx, oy += sy;
        if (ox * ox + oy * oy > r * r)
            continue;
        render_warp_at(l, run->field_x, run->field_y, l->op_x[k], l->op_y[k], &dx, &dy);
        sum += sqrt(dx * dx + dy * dy);
        count++;
    }
    if (!count)
        for (int a = -4; a <= 4; a++)
            for (int b = -4; b <= 4; b++) {
                double px = run->at_px.x + r * a / 4.0, py = run->at_px.y + r * b / 4.0;
                if (a * a + b * b > 16 || !displacement_at(run, nd, rx, ry, px, py, &dx, &dy))
                    continue;
                render_warp_at(l, run->field_x, run->field_y, px, py, &dx, &dy);
                sum += sqrt(dx * dx + dy * dy);
                count++;
            }
    return count ? sum / count / run->size : 0.0;
}

/* The body back at rest after a trial press, its handles let go. */
static void press_reset(impulse_run *run, softbody *sb)
{
    softbody_reset(sb);
    for (int h = 0; h < run->nh; h++)
        softbody_set_pinned(sb, run->hk[h], 0);
}

/* Pins the handles at rest and starts the press. */
static void press_start(impulse_run *run, softbody *sb)
{
    for (int h = 0; h < run->nh; h++)
        softbody_set_pinned(sb, run->hk[h], 1);
    run->held = run->nh > 0 || run->launch > 0.0 || run->plane || run->plane_up;
    softbody_set_pressure_gain(sb, run->held ? HOLD_PRESSURE_GAIN : 1.0);
    run->palm_y = run->plane_top;
    run->palm_up_y = run->plane_bottom;
    run->tilt_sum = 0.0;
    softbody_set_force(sb, press_force, run);
    if (run->plane || run->plane_up)
        softbody_set_collide(sb, body_collide, run);
}

/* The opaque pixel (of the lattice's samples) nearest p when none lies within
 * r of it; else p. */
static v2 onto_picture(const lattice *lat, v2 p, double r)
{
    int best = -1;
    double bd = INFINITY;
    for (int k = 0; k < lat->op_n; k++) {
        double d = hypot(lat->op_x[k] - p.x, lat->op_y[k] - p.y);
        if (d < bd)
            bd = d, best = k;
    }
    return best >= 0 && bd > r ? v2_make(lat->op_x[best], lat->op_y[best]) : p;
}

/* The kick point in image pixels and the kick's direction: --at in image
 * fractions (a default point outside the opaque box is taken in fractions of
 * the box instead, so a stamp with wide margins, a bar lying across the square,
 * is poked on its own top, not in the air; a point asked for outside it is
 * moved to the box's nearest point: a finger far off the stamp touched nothing,
 * and a turn about a point ten images away swept the body across the canvas
 * and tore it); a poke's or pat's point off the picture lands on it
 * (onto_picture); --angle, or towards the centre. */
static v2 kick_point(impulse_run *run, const impulse_def *def, const lattice *lat, int iw, int ih, v2 *dir)
{
    double cx = 0.5 * (lat->bx0 + lat->bx1), cy = 0.5 * (lat->by0 + lat->by1);
    v2 at = v2_make(run->def.at.x * iw, run->def.at.y * ih);
    double b[4];
    opaque_box(lat, b);
    if (isnan(def->at.x) && (at.x < b[0] || at.x > b[2] || at.y < b[1] || at.y > b[3]))
        at = v2_make(b[0] + run->def.at.x * (b[2] - b[0]), b[1] + run->def.at.y * (b[3] - b[1]));
    at = v2_make(fmin(fmax(at.x, b[0]), b[2]), fmin(fmax(at.y, b[1]), b[3]));
    /* a finger lands on the picture: a point with no opaque pixel within the
     * 0.1 of the height its dent is measured over (the top middle of a
     * banana, between a cat's ears) moves to the nearest one. Pressed there,
     * it dented the lattice in empty space, and the picture beside it moved
     * 0.31 of the strength asked (the banana 1f34c poked) */
    if (run->def.kind == IMPULSE_POKE || run->def.kind == IMPULSE_PAT) {
        v2 on = onto_picture(lat, at, 0.1 * run->size);
        run->at_asked = on.x == at.x && on.y == at.y;
        at = on;
    }
    if (isnan(run->def.angle)) {
        *dir = v2_normalize(v2_sub(v2_make(cx, cy), at));
        if (v2_len2(*dir) == 0.0)
            *dir = v2_make(0.0, 1.0);
    } else {
        *dir = v2_from_angle(run->def.angle * PI / 180.0);
    }
    return at;
}

/* The shape of the kick per node (run->px, run->py), whose main wobble the
 * calibration tunes: a squash, a stretch, a dent at the kick point, a sway or
 * a turn, growing away from the anchor. */
static void kick_shape(impulse_run *run, const softbody_nodes *nd, const lattice *lat, v2 at, v2 dir, double top,
                       double bottom, double width, double size)
{
    double cx = 0.5 * (lat->bx0 + lat->bx1), cy = 0.5 * (lat->by0 + lat->by1);
    anchor_kind anchor = softbody_get_def(run->sb)->anchor;
    int n = nd->n;
    double sigma = 0.25 * (width > size ? width : size);
    /* a turn, a shove or a sway of a free body grows from its bottom, as on
     * a standing one: the same everywhere, a turn or a shove is rigid
     * motion, which has no wobble to tune (softbody_main_lambda leaves it
     * out), and a sway force only shifts the body to and fro */
    int from_bottom = run->def.kind == IMPULSE_TWIST || run->def.kind == IMPULSE_SHAKE || run->def.kind == IMPULSE_WAVE;
    for (int k = 0; k < n; k++) {
        double qx = nd->qx[k], qy = nd->qy[k];
        /* u: 0 at the anchored edge, 1 at the far edge; on a free body 1
         * everywhere, or from the bottom (from_bottom) */
        double u = 1.0;
        if (anchor == ANCHOR_BOTTOM || (anchor == ANCHOR_NONE && from_bottom))
            u = (bottom - qy) / size;
        else if (anchor == ANCHOR_TOP)
            u = (qy - top) / size;
        double sx = 0, sy = 0; /* squash pattern */
        if (anchor == ANCHOR_BOTTOM) {
            sy = (bottom - qy);
            sx = (qx - cx) * u;
        } else if (anchor == ANCHOR_TOP) {
            sy = -(qy - top);
            sx = (qx - cx) * u;
        } else {
            sy = -(qy - cy);
            sx = (qx - cx);
        }
        double gx = 0, gy = 0;
        switch (run->def.kind) {
        case IMPULSE_SQUASH:
        case IMPULSE_JUMP:
        case IMPULSE_DROP:
            gx = sx;
            gy = sy;
            break;
        case IMPULSE_STRETCH:
            gx = -sx;
            gy = -sy;
            break;
        case IMPULSE_POKE:
        case IMPULSE_PAT: {
            double d2 = (qx - at.x) * (qx - at.x) + (qy - at.y) * (qy - at.y);
            double w = size * exp(-d2 / (2.0 * sigma * sigma));
            gx = dir.x * w;
            gy = dir.y * w;
            break;
        }
        case IMPULSE_SHAKE:
        case IMPULSE_WAVE:
            gx = dir.x * size * u;
            gy = dir.y * size * u;
            break;
        case IMPULSE_TWIST:
            gx = -(qy - at.y) * u;
            gy = (qx - at.x) * u;
            break;
        default:
            break;
        }
        run->px[k] = gx;
        run->py[k] = gy;
    }
}

/* A floor under the body at its rest bottom, and gravity. */
static void set_floor(impulse_run *run, softbody *sb, double bottom, double size)
{
    run->floor = 1;
    run->floor_y = bottom;
    run->restitution = 0.15;
    run->friction = 1.0;
    double slow = tempo_slowness(sb);
    run->gravity = FLOOR_GRAVITY * size / (slow * slow);
    softbody_set_gravity(sb, 0.0, run->gravity);
    softbody_set_collide(sb, body_collide, run);
}

/* The least weight of a cell in the picture's area its pressure keeps
 * (softbody_keep_picture_area), for the impulses that keep it. A squash
 * keeps its plain area, but on a free body, inside the canvas's walls and
 * deeper than EASE_BACK_FROM times its default: kept to the plain area, a
 * free body lost 5 to 11 % of its picture under the palms, a stamp widening
 * against the walls as much, and at --strength 0.4 --volume 0.8 28 of 65
 * stamps more than 5 % (kept to the picture's, 5; at 0.38, 3). At the
 * default, kept to the picture's, a flag standing on its thin pole leaned 14
 * degrees as it sprang back, against 5.5. Its nearly empty cells weigh 0.8:
 * at the poke's 0.4 the flag's pole whipped. */
#define POKE_CELL_FLOOR 0.4
#define SQUASH_CELL_FLOOR 0.8
/* A stretch keeps the picture's area too, its nearly empty cells weighing as
 * a squash's do: kept to the plain area, the cells of the antialiased rim
 * gave back what the picture gained, and at --strength 0.6 --volume 0.8 8 of
 * 65 stamps swelled by more than 5 % at the peak (the penguin 1f427 by 9.6 %),
 * and 3 with the picture's (4 with a floor of 0.4). */
#define STRETCH_CELL_FLOOR 0.8

void impulse_expect_walls(impulse_run *run, softbody *sb)
{
    if (run->def.kind == IMPULSE_SQUASH)
        softbody_keep_picture_area(sb, SQUASH_CELL_FLOOR);
}

poyo_status impulse_begin(impulse_run *run, const impulse_def *def, softbody *sb, const lattice *lat,
                          int iw, int ih, poyo_error *err)
{
    memset(run, 0, sizeof *run);
    run->def = *def;
    poyo_status st = impulse_resolve(&run->def, softbody_get_def(sb)->hz, err);
    if (st != POYO_OK)
        return st;
    run->info = impulse_get_info(run->def.kind);
    if (isnan(def->strength))
        run->def.strength = impulse_default_strength(run->info, lat);
    if (softbody_get_def(sb)->anchor == ANCHOR_TOP) {
        /* a hanging body is poked and patted at its free end, from below, by
         * default: at the top, next to the pinned edge, a poke sprang back
         * within a frame and squeezed the body against its pins */
        if (run->info->uses_at && isnan(def->at.x))
            run->def.at.y = 1.0 - run->def.at.y;
        if (run->info->uses_at && isnan(def->angle) && !isnan(run->def.angle))
            run->def.angle = -run->def.angle;
    }
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    run->n = n;
    run->px = calloc((size_t)n, sizeof(double));
    run->py = calloc((size_t)n, sizeof(double));
    run->drive_x = calloc((size_t)n, sizeof(double));
    run->drive_y = calloc((size_t)n, sizeof(double));
    run->hk = malloc(((size_t)n + 2 * (size_t)lat->nx) * sizeof(int));
    run->hdx = calloc((size_t)n, sizeof(double));
    run->hdy = calloc((size_t)n, sizeof(double));
    run->slack = calloc(4 * (size_t)n, sizeof(double));
    size_t grid = (size_t)lat->nx * lat->ny;
    run->warp_x = malloc(2 * (size_t)n * sizeof(double));
    run->warp_y = run->warp_x ? run->warp_x + n : NULL;
    run->field_x = malloc(2 * grid * sizeof(double));
    run->field_y = run->field_x ? run->field_x + grid : NULL;
    run->field_filled = malloc(grid);
    run->wp = malloc(4 * (size_t)(lat->nx - 1) * (size_t)(lat->ny - 1) * sizeof *run->wp);
    run->nwp = run->nwall = 0;
    run->sb = sb;
    run->lat = lat;
    if (!run->px || !run->py || !run->drive_x || !run->drive_y || !run->hk || !run->hdx || !run->hdy || !run->slack ||
        !run->wp || !run->warp_x || !run->field_x || !run->field_filled) {
        impulse_end(run);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the impulse");
    }
    picture_points(run);
    double top = nd.qy[0], bottom = nd.qy[0], left = nd.qx[0], right = nd.qx[0];
    for (int k = 1; k < n; k++) {
        if (nd.qy[k] < top) top = nd.qy[k];
        if (nd.qy[k] > bottom) bottom = nd.qy[k];
        if (nd.qx[k] < left) left = nd.qx[k];
        if (nd.qx[k] > right) right = nd.qx[k];
    }
    /* strengths are fractions of the opaque height (the faint fringe of an
     * antialiased edge is a fifth of a thin bar's visible height; the nodes
     * reach a little past it) */
    double box[4];
    opaque_box(lat, box);
    double size = box[3] - box[1];
    if (size < lat->h)
        size = fmax(bottom - top, lat->h);
    run->size = size;
    v2 dir, at = kick_point(run, def, lat, iw, ih, &dir);
    run->at_px = at;
    kick_shape(run, &nd, lat, at, dir, top, bottom, right - left, size);
    if (run->info->has_floor)
        set_floor(run, sb, bottom, size);
    if (run->floor) { /* set_floor made body_collide the body's collision */
        run->picture_floor = -INFINITY;
        for (int j = 0; j < run->nwp; j++)
            run->picture_floor = fmax(run->picture_floor, point_at(&run->wp[j], nd.qy));
    }
    /* a body with no floor and no anchor: held by the hands alone */
    run->free = !run->floor && softbody_get_def(sb)->anchor == ANCHOR_NONE;
    /* a poke keeps the picture's area: kept by its cells' plain area, the
     * dent swelled the nearly empty cells of the rim instead of the picture
     * (a cell weighs at least 0.4: at 0 the pressure kept the area by crushing
     * the cells only an antialiased rim crosses, as far as the fold guard
     * allows). A squash of a free body keeps it too (and a deep one, and one
     * inside walls, impulse_expect_walls; see SQUASH_CELL_FLOOR), and so does a stretch
     * (STRETCH_CELL_FLOOR). A pat of a free body keeps it as a poke does:
     * kept to the plain area, the body held only behind the spot patted gave
     * its picture's area up under the finger (the balloon 1f388 6.1 %, the
     * flag 1f6a9 6.2 %, the tall ! 5.75 %; at twice the default strength 42
     * of 65 stamps more than 5 %, the tall ! 12.5 %); kept to the picture's,
     * at most 2.3 % (4.4 % at twice the default).
     * The other impulses keep the plain area: kept to the picture's, a pat
     * of a standing body found its wobble in the rim of a teddy bear's ears,
     * three times softer than its body's, and its calibrated body shook at
     * twice the rate asked; a free twist reached 0.85 of its strength on 14
     * stamps instead of 6 */
    int deep = ease_back_share(run) > 0.0; /* pressed past EASE_BACK_FROM times the default */
    int dents = run->def.kind == IMPULSE_POKE || (run->def.kind == IMPULSE_PAT && run->free);
    softbody_keep_picture_area(sb, dents                                                    ? POKE_CELL_FLOOR
                                   : run->def.kind == IMPULSE_SQUASH && (run->free || deep) ? SQUASH_CELL_FLOOR
                                   : run->def.kind == IMPULSE_STRETCH                       ? STRETCH_CELL_FLOOR
                                                                                            : 0.0);
    if (run->info->periodic) {
        run->omega = 2.0 * PI * run->def.rate;
        softbody_set_force(sb, drive_force, run);
        if (run->def.kind == IMPULSE_PAT) { /* the finger, shaped for a dent of the strength asked */
            add_finger(run, &nd, lat, size, dir, run->def.strength * size);
            if (run->free && !place_behind(run, &nd, dir)) {
                impulse_end(run);
                return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the impulse");
            }
        }
    } else {
        run->dir = dir;
        if (!setup_press(run, &nd, lat, top, bottom, size, dir)) {
            impulse_end(run);
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the impulse");
        }
    }
    return POYO_OK;
}

double impulse_release_time(const impulse_run *run)
{
    return run->info && !run->info->periodic ? run->t_press + run->t_hold + run->t_lift : 0.0;
}

/* 1 when the body may fly: it falls on a floor and nothing holds it. */
static int may_fly(const impulse_run *run) { return run->info && run->info->has_floor && run->lands; }

void impulse_frame_end(impulse_run *run, double t)
{
    if (!may_fly(run) || run->flight_over)
        return;
    /* on the floor: a node went into it during the frame, or is where the
     * floor carries the body at the frame's end */
    softbody_nodes nd = softbody_view(run->sb);
    int down = run->touched || on_floor(run, nd.y, nd.n);
    run->touched = 0;
    if (down && run->air_frames >= 2)
        run->flight_over = 1; /* landed */
    run->air_frames = down ? 0 : run->air_frames + 1;
    if (run->air_frames < 2 && t > impulse_release_time(run) + 0.25)
        run->flight_over = 1; /* it never left the floor */
}

int impulse_in_flight(const impulse_run *run) { return may_fly(run) && !run->flight_over; }

/* The largest distance of a node along x or y between two poses of n nodes. */
static double pose_dist(int n, const double *ax, const double *ay, const double *bx, const double *by)
{
    double m = 0.0;
    for (int k = 0; k < n; k++)
        m = fmax(m, fmax(fabs(ax[k] - bx[k]), fabs(ay[k] - by[k])));
    return m;
}

/* Steps the body until softbody time t. */
static void run_until(softbody *sb, double t, double dt)
{
    while (softbody_time(sb) < t - 0.5 * dt)
        softbody_step(sb);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* How far the picture moves from pose a to pose b (the nodes' positions):
 * the larger of the shift of its centre and the 95th percentile of its
 * steps, over every stride-th of the lattice's opaque samples, as the motion
 * figures measure a step from the pixels (tests/tools/motionstats.c,
 * fig_steps), in image pixels (tmp: op_n scratch numbers). Over the nodes,
 * the empty corners of the cells along a banana 1f34c counted as much as its
 * peel, and its pat's loop started where the picture's seam was 1.47 times
 * the steps beside it. */
static double pose_step(const lattice *l, const double *ax, const double *ay, const double *bx, const double *by,
                        int stride, double *tmp)
{
    double mx = 0.0, my = 0.0, dx, dy;
    int m = 0;
    for (int k = 0; k < l->op_n; k += stride)
        if (moved_between(l, ax, ay, bx, by, l->op_x[k], l->op_y[k], &dx, &dy)) {
            mx += dx, my += dy;
            tmp[m++] = hypot(dx, dy);
        }
    if (!m)
        return 0.0;
    return fmax(hypot(mx, my) / m, rank_kth(tmp, m, (int)floor(0.95 * (m - 1))));
}

/* How far the picture's size with the nodes at (x, y) is from its size at
 * rest (qx, qy): the shares the width and the height of the opaque samples'
 * extent are off the opaque box's, added. The samples lie on a grid inside
 * the box, so at rest they span a few hundredths less: a frame drawn a
 * little larger than at rest ranks nearer than one as much smaller. Ranked
 * against the samples' own extent at rest, 5 more of the 65 Twemoji patted
 * on a free body at --fps 20, and one at 25, started their loop at a frame
 * drawn under 0.85 of their full size. */
static double size_off(const lattice *l, const double *qx, const double *qy, const double *x, const double *y)
{
    double b[4] = { INFINITY, INFINITY, -INFINITY, -INFINITY }, dx, dy;
    for (int k = 0; k < l->op_n; k++)
        if (moved_between(l, qx, qy, x, y, l->op_x[k], l->op_y[k], &dx, &dy)) {
            b[0] = fmin(b[0], l->op_x[k] + dx);
            b[1] = fmin(b[1], l->op_y[k] + dy);
            b[2] = fmax(b[2], l->op_x[k] + dx);
            b[3] = fmax(b[3], l->op_y[k] + dy);
        }
    double w0 = l->sx1 - l->sx0, h0 = l->sy1 - l->sy0;
    if (!(b[2] >= b[0]) || !(b[3] >= b[1]) || !(w0 > 0.0) || !(h0 > 0.0))
        return 0.0;
    return fabs((b[2] - b[0] + 1.0) / w0 - 1.0) + fabs((b[3] - b[1] + 1.0) / h0 - 1.0);
}

/* The opaque samples impulse_pose_step looks at, at most: a clip's steps are
 * judged on every frame (clip.c), and over all 2048 samples of a Twemoji the
 * whole process took 11 % longer. */
#define POSE_STEP_SAMPLES 256

double impulse_pose_step(const lattice *l, const double *ax, const double *ay, const double *bx, const double *by,
                         double *tmp)
{
    return pose_step(l, ax, ay, bx, by, (l->op_n + POSE_STEP_SAMPLES - 1) / POSE_STEP_SAMPLES, tmp);
}

/* A loop's seam, the step from its last frame into its first, passes as
 * smooth up to this share over the mean of the steps beside it (a viewer
 * notices 1.25). At 1.1, measured on the picture, the custard 1f36e patted
 * free started its loop a frame off the finger's landing, and its first
 * frame showed it squashed, 0.84 of its size. */
#define SEAM_SMOOTH 1.2
/* A start the loop moves to has a seam this smooth where one has: the
 * trials from there change the drive, and the seam with it. Moved to starts
 * smooth to SEAM_SMOOTH, the clapping hands 1f44f patted at the default
 * frame rate filmed a seam 1.27 times the steps beside it. */
#define SEAM_MOVE 1.0

/* The frame of a period of nf frames (x, y: the nodes' positions, frame
 * after frame) the loop starts at: `from`, the start now, while the seam
 * there is smooth; otherwise, of the frames where it is smooth with room to
 * spare (SEAM_MOVE), or else just smooth, the one whose picture is nearest
 * its size at rest (qx, qy; size_off): the first frame is the still image a
 * viewer who asks for less motion sees, and the one the stamp's size is
 * judged on. Of two as near, the one nearest the start of the drive's
 * period (0, then the frames before and after it, one by one); with none,
 * `from`. A pat's finger lands at 0; on the flame 1f525 the head had just
 * turned there, and the loop cut there jerked, its seam 1.7 times the steps
 * beside it. Started at the smooth frame nearest 0 instead, a heart 2764
 * patted at --fps 20 showed its first frame squashed, 7 % shorter than at
 * rest, and 0.81 of the strength asked measured from it. */
static int loop_start(const lattice *l, int n, int nf, const double *x, const double *y, const double *qx,
                      const double *qy, int from)
{
    if (nf < 3)
        return 0;
    double *step = malloc((size_t)(nf + l->op_n) * sizeof *step);
    if (!step)
        return from;
    double *tmp = step + nf;
    for (int f = 0; f < nf; f++) {
        size_t a = (size_t)f * n, b = (size_t)((f + 1) % nf) * n;
        step[f] = pose_step(l, x + a, y + a, x + b, y + b, 1, tmp);
    }
    double nearest[2] = { INFINITY, INFINITY }; /* within SEAM_MOVE, within SEAM_SMOOTH only */
    int best[2] = { -1, -1 };
    for (int i = -1; i < nf; i++) {
        /* from, then 0, -1, 1, -2, 2, ... */
        int r = i < 0 ? from : ((i & 1 ? -(i + 1) / 2 : i / 2) % nf + nf) % nf;
        double seam = step[(r + nf - 1) % nf], side = 0.5 * (step[(r + nf - 2) % nf] + step[r]);
        if (seam > SEAM_SMOOTH * side)
            continue;
        if (i < 0)
            break;
        size_t a = (size_t)r * n;
        double off = size_off(l, qx, qy, x + a, y + a);
        int tier = seam > SEAM_MOVE * side;
        if (off < nearest[tier]) {
            nearest[tier] = off;
            best[tier] = r;
        }
    }
    free(step);
    return best[0] >= 0 ? best[0] : best[1] >= 0 ? best[1] : from;
}

/* The largest press over nf poses of the nodes (x, y: pose after pose),
 * measured from the pose rx, ry (NULL: from rest). */
static double frames_peak(impulse_run *run, const softbody_nodes *nd, int nf, const double *x, const double *y,
                          const double *rx, const double *ry)
{
    size_t n = (size_t)nd->n;
    softbody_nodes at = *nd;
    double peak = 0.0;
    for (int f = 0; f < nf; f++) {
        at.x = (double *)x + (size_t)f * n;
        at.y = (double *)y + (size_t)f * n;
        peak = fmax(peak, press_measure(run, &at, rx, ry));
    }
    return peak;
}

/* The largest press over the nf frames of a period filmed (fr: the nodes'
 * x, frame after frame, then their y), measured from its frame `start`. */
static double period_peak(impulse_run *run, const softbody_nodes *nd, int nf, double *fr, int start)
{
    size_t n = (size_t)nd->n;
    double *fx = fr, *fy = fr + (size_t)nf * n;
    return frames_peak(run, nd, nf, fx, fy, fx + (size_t)start * n, fy + (size_t)start * n);
}

/* Trials of a periodic drive: at most this many from the period's own start,
 * two more from each start the seam moves the loop to, this many in all. */
#define DRIVE_TRIALS 3
#define DRIVE_TRIALS_MAX 5
/* The loop moves its start only on a drive this steady: the last period of
 * its warm-up ended within this many canvas pixels of where the one before
 * it ended. A loop started a few frames into the period films them from the
 * period after the one the trial measured: a flag 1f6a9 on its thin pole,
 * still swaying 7 px from period to period, showed 1.7 times the pat asked
 * from the start its trial had settled on. */
#define DRIVE_STEADY 1.0
/* A wave's sway force is at most this many times the one whose quasi-static
 * sway is the strength asked. The Twemoji at half, one and two times the
 * default strength take at most 1.42 times it (the balloon 1f388); swayed up
 * and down (--angle 90), against the anchor, the trials pumped it up to 317
 * times, and 6 of 65 stamps tore, their area 34 to 95 % off; capped, none,
 * each swaying less than asked instead. */
#define WAVE_GAIN_MAX 4.0

/* How far a pat's trials may scale its finger's push, at most, over the one
 * a finger of the strength asked gets first. Patted where the body can
 * hardly dent (--at 1,1: a corner of the picture's box beside the anchor),
 * the trials pumped it 130 to 8500 times, and 6 of the 13 images of
 * tests/data tore or opened holes; capped, none, each dented less than
 * asked instead. At the defaults and at twice the default strength, the
 * Twemoji corpus takes at most 27 times (the flag 1f6a9, on its thin pole). */
#define PAT_GAIN_MAX 32.0

/* The factor a periodic drive of this gain is scaled by after a trial that
 * swayed peak against the strength s asked, by the power law of exponent k,
 * the gain scaled at most to gain_max (capped: settled where it is). */
static double drive_step(double s, double peak, double k, double gain, double gain_max)
{
    return fmin(gain_max / gain, fmin(64.0, fmax(1.0 / 64.0, pow(s / peak, 1.0 / k))));
}

/* How far past the strength asked, and how far short of it, a periodic
 * drive's last trial may sway or pat for the clip to be that trial's period
 * (otherwise the clip films the drive scaled to the strength anew). Taken
 * 3.2 % past, a flag 1f6a9 patted at 0.3 with --volume 0.8 kept its area
 * within 6.1 % (4.5 % filmed anew). A pat's dent drawn in the frames may
 * show a few percent less than the nodes the trial measures: taken 1.4 %
 * short, a space invader 1f47e patted free showed 0.849 of the strength
 * asked (0.861 filmed anew). */
#define DRIVE_TAKE_PAST 0.03
#define DRIVE_TAKE_SHORT 0.03
#define DRIVE_TAKE_SHORT_PAT 0.01

/* Puts the body back at rest for the next trial, or for the clip after
 * them: each starts upright anew. */
static void drive_restart(impulse_run *run, softbody *sb)
{
    softbody_reset(sb);
    run->tilt_sum = 0.0;
}

/* Keeps the period the last trial filmed (fr, nf frames from the period's
 * start, after p periods of warm-up) as the clip's, from its frame
 * run->period_start on, the drive put back to the trial's (gain): the
 * frames past the period are filmed on (the body is as the trial left it,
 * on its last frame), with the pose after them. */
static void take_trial(impulse_run *run, softbody *sb, int nf, const double *fr, int p, double period, double gain)
{
    softbody_nodes nd = softbody_view(sb);
    size_t n = (size_t)nd.n, count = (size_t)nf + 1;
    int start = run->period_start;
    double *t = malloc(2 * count * n * sizeof *t);
    if (!t)
        return;
    run->gain = gain; /* the frames past the period, driven as the period was */
    double *tx = t, *ty = t + count * n;
    const double *fx = fr, *fy = fr + (size_t)nf * n;
    for (int f = start; f <= start + nf; f++) {
        size_t to = (size_t)(f - start) * n;
        if (f < nf) {
            memcpy(tx + to, fx + (size_t)f * n, n * sizeof *tx);
            memcpy(ty + to, fy + (size_t)f * n, n * sizeof *ty);
            continue;
        }
        run_until(sb, (p + (double)f / nf) * period, run->step_dt);
        memcpy(tx + to, nd.x, n * sizeof *tx);
        memcpy(ty + to, nd.y, n * sizeof *ty);
    }
    run->taken = t;
}

/* Scales a periodic drive on a trial run: wave, a sway force whose
 * quasi-static deflection is strength * height; pat, a finger's push over a
 * third of a period (at most 0.2 s). In the steady state the motion within
 * one period, over its frames (when run->period_frames says where they
 * fall), is then the strength asked.
 * A body whose sway is far from linear in the drive (a flag on a thin pole
 * swayed 3.6 times the strength on the first trial, and 1.8 times once scaled)
 * is tried again while a trial is more than 10 % off (DRIVE_TRIALS), each new
 * drive set by the power law of sway in drive that fits the last two trials
 * from the same start frame (loop_start; the first from a start moved to by
 * the exponent the two before it fitted), a wave's within WAVE_GAIN_MAX and
 * a pat's within PAT_GAIN_MAX. A drive still unsteady (the last period of
 * its warm-up ended DRIVE_STEADY or more from where the one before it did,
 * so its loop keeps its start) whose trials swayed both less and more than
 * asked is set between the nearest two of those, by the power law through
 * them, and tried on to DRIVE_TRIALS_MAX: the balloon 1f388 patted at 0.3
 * buckles its string between a push of 679 (a pat of 0.16) and one of 837
 * (0.51), and the drive its third trial's exponent carried it to patted it
 * 1.74 times as hard as asked (0.92 now). */
static void scale_drive(impulse_run *run, softbody *sb, double wn)
{
    double s = run->def.strength, dt = run->step_dt;
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n, nf = run->period_frames;
    double period = 2.0 * PI / run->omega;
    if (run->def.kind == IMPULSE_WAVE)
        for (int k = 0; k < n; k++) {
            run->drive_x[k] = wn * wn * run->px[k];
            run->drive_y[k] = wn * wn * run->py[k];
        }
    run->t_press = fmin(0.2, period / 3.0);
    run->gain = run->def.kind == IMPULSE_WAVE ? s : wn * wn;
    double gain_max = (run->def.kind == IMPULSE_WAVE ? WAVE_GAIN_MAX : PAT_GAIN_MAX) * run->gain;
    run->period_start = 0;
    /* the pose a period started from; the frames of the period measured
     * (without room for them, measured as they pass, from the period's start) */
    double *rx = malloc(2 * (size_t)n * sizeof *rx), *fr = nf > 0 ? malloc(2 * (size_t)nf * n * sizeof *fr) : NULL;
    if (!rx) {
        free(fr);
        return;
    }
    if (!fr)
        nf = 0;
    /* without a cap (the parts of a stamp, stagger.c): the longer of 3 s
     * and 4 periods, less the one measured */
    int max_periods = run->warm_cap > 0 ? run->warm_cap : (int)ceil(fmax(3.0, 4.0 * period) / period) - 1;
    double scale = run->period_scale > 0.0 ? run->period_scale : 1.0;
    double prev_peak = 0.0, prev_gain = 0.0; /* the trial before */
    /* the trials from the start now; the drive kept in case a start moved to
     * does not settle: the last that did, or the period's own start's (a
     * start the loop moved back to does not undo one that settled) */
    int last_trial = DRIVE_TRIALS - 1, measured = 0, settled = 0, kept_start = -1, kept_warm = 0, last_p = 0;
    double last_g = 0.0; /* the factor the last trial scaled the drive by */
    double kept_gain = 0.0;
    /* the trials from the start now nearest the strength below it and above */
    double lo_gain = 0.0, lo_peak = 0.0, hi_gain = 0.0, hi_peak = 0.0;
    for (int trial = 0; trial < DRIVE_TRIALS_MAX; trial++) {
        /* the steady state: whole periods until one ends within 0.025
         * canvas px of where the one before it ended, run->warm_cap at
         * most; the clip films the period after as many (a flag on a thin
         * pole still sways from its start after 4 periods: measured there
         * and filmed after 18, its pat was 0.84 of the strength asked) */
        int p = 0;
        double drift = 0.0; /* how far the warm-up's last period ended from the one before */
        last_g = 0.0;       /* none until this trial scales the drive */
        if (trial > 0)
            drive_restart(run, sb);
        memcpy(rx, nd.x, (size_t)n * sizeof *rx);
        memcpy(rx + n, nd.y, (size_t)n * sizeof *rx);
        for (;;) {
            run_until(sb, ++p * period, dt);
            drift = scale * pose_dist(n, nd.x, nd.y, rx, rx + n);
            memcpy(rx, nd.x, (size_t)n * sizeof *rx);
            memcpy(rx + n, nd.y, (size_t)n * sizeof *rx);
            if ((p >= 2 && drift < 0.025) || p >= max_periods)
                break;
        }
        run->warm_periods = p;
        double peak = 0.0;
        /* the next period, measured on its frames when they are known */
        memcpy(rx, nd.x, (size_t)n * sizeof *rx);
        memcpy(rx + n, nd.y, (size_t)n * sizeof *rx);
        if (nf > 0) {
            double *fx = fr, *fy = fr + (size_t)nf * n;
            for (int f = 0; f < nf; f++) {
                if (f > 0)
                    run_until(sb, (p + (double)f / nf) * period, dt);
                memcpy(fx + (size_t)f * n, nd.x, (size_t)n * sizeof *fx);
                memcpy(fy + (size_t)f * n, nd.y, (size_t)n * sizeof *fy);
            }
            peak = period_peak(run, &nd, nf, fr, run->period_start);
        } else {
            while (softbody_time(sb) < (p + 1) * period - 0.5 * dt) {
                softbody_step(sb);
                peak = fmax(peak, press_measure(run, &nd, rx, rx + n));
            }
        }
        last_p = p;
        if (!(peak > 1e-9))
            break;
        /* a keycap swaying against the canvas's walls answered 0.71 of the
         * first drive with half the sway; a trial within 10 % of the sway
         * asked is the last (within 20 %, the unicorn swayed 0.81 of it) */
        double k = measured > 0 && fabs(peak - prev_peak) > 1e-3 * peak
                       ? fmin(3.0, fmax(0.3, log(peak / prev_peak) / log(run->gain / prev_gain)))
                       : 1.0;
        double g = drive_step(s, peak, k, run->gain, gain_max);
        if (peak < s && (lo_gain == 0.0 || peak > lo_peak))
            lo_gain = run->gain, lo_peak = peak;
        if (peak > s && (hi_gain == 0.0 || peak < hi_peak))
            hi_gain = run->gain, hi_peak = peak;
        /* an unsteady drive tried both short of the strength and past it:
         * between the two nearest it, by the power law through them */
        int bracketed = lo_gain > 0.0 && hi_gain > lo_gain && !(drift < DRIVE_STEADY);
        if (bracketed)
            g = fmin(gain_max, lo_gain * pow(s / lo_peak, log(hi_gain / lo_gain) / log(hi_peak / lo_peak))) / run->gain;
        prev_peak = peak;
        prev_gain = run->gain;
        last_g = g;
        run->gain *= g;
        measured++;
        settled = fabs(log(g)) < log(1.1);
        if (!settled && bracketed && trial == last_trial)
            last_trial = DRIVE_TRIALS_MAX - 1;
        if (!settled && trial < last_trial)
            continue;
        if (settled || kept_start < 0) {
            kept_start = run->period_start;
            kept_gain = run->gain;
            kept_warm = run->warm_periods;
        }
        /* the loop starts where the seam is smooth; when that moved (on a
         * steady drive only), the strength is measured again from there, as
         * the clip shows it */
        int r = nf > 0 ? loop_start(run->lat, n, nf, fr, fr + (size_t)nf * n, nd.qx, nd.qy, run->period_start) : 0;
        if (r == run->period_start || trial == DRIVE_TRIALS_MAX - 1 || !(drift < DRIVE_STEADY))
            break;
        /* the period just filmed, measured from the new start, is the first
         * trial from there, and the drive it ran with (prev_gain) is scaled
         * by the exponent the last two trials from the old start fitted (the
         * next trial fits its own from the two from the new one). Tried anew
         * with the drive of the old start, a keycap 0034-fe0f-20e3 patted at
         * --fps 20 showed 0.59 of the strength asked from the new start, the
         * two trials left did not settle, and the loop went back to its jerky
         * seam (2.1 times the steps beside it) */
        double from_r = period_peak(run, &nd, nf, fr, r);
        if (!(from_r > 1e-9))
            break;
        run->period_start = r;
        lo_gain = hi_gain = 0.0;
        prev_peak = from_r;
        run->gain = prev_gain * drive_step(s, from_r, k, prev_gain, gain_max);
        last_trial = trial + 2 < DRIVE_TRIALS_MAX - 1 ? trial + 2 : DRIVE_TRIALS_MAX - 1;
        measured = 1;
        settled = 0;
    }
    /* a drive that did not settle from the start it moved to (a flag on a
     * thin pole swung twice as far as asked) gives way to the one kept */
    int kept = !settled && kept_start >= 0;
    if (kept) {
        run->period_start = kept_start;
        run->gain = kept_gain;
        run->warm_periods = kept_warm;
    }
    /* a last trial that came within DRIVE_TAKE_PAST past the strength and
     * DRIVE_TAKE_SHORT short of it is the clip's period: filmed again with
     * the drive scaled, the clip would come closer by less than that, and
     * the film would cost as much as the trial did */
    if (run->may_take && nf > 0 && settled && !kept && last_p > 0 && last_g > 1.0 / (1.0 + DRIVE_TAKE_PAST) &&
        last_g < 1.0 + (run->def.kind == IMPULSE_PAT ? DRIVE_TAKE_SHORT_PAT : DRIVE_TAKE_SHORT))
        take_trial(run, sb, nf, fr, last_p, period, prev_gain);
    drive_restart(run, sb);
    free(rx);
    free(fr);
}

/* A poke's finger pressed depth deep, the far side of a free body held again. */
static void place_finger(impulse_run *run, const softbody_nodes *nd, double depth)
{
    run->nh = 0;
    run->finger = depth;
    add_finger(run, nd, run->lat, run->size, run->dir, depth);
    if (run->free)
        hold_far_side(run, nd, run->lat, run->dir);
}

/* How many fingers a poke tries, and how close to the dent asked one must
 * come (a ratio) to end the trials. */
#define POKE_TRIALS 4
#define POKE_CLOSE 1.05

/* A poke's film whose frames show a dent within this ratio of the one asked
 * is kept; one further off is filmed again with a finger pressed anew
 * (impulse_retune). The trials measure the dent at every step of the
 * solver, the frames only at theirs: where a dent rings faster than the
 * frames are taken, the frames fall between its peaks. A flag 1f6a9 poked
 * on its cloth at half the default rings on its thin pole at 13 Hz, 25
 * frames a second: its trials came within 5 % of the dent asked, its frames
 * showed 0.82 of it. At this ratio 2 of 63 Twemoji poked at the default are
 * filmed again, once each. */
#define POKE_FILM_CLOSE 1.08

/* How deep a poke's finger may press, in times the dent asked (beside the
 * anchor less, POKE_BESIDE_PIN). Where the body can hardly dent, at a
 * corner of the picture's box or on a thin part, the trials pressed 2 to
 * 3.8 times as deep: on lattices of 8 to 12 nodes the party popper 1f389
 * poked at --at 1,1 crushed its streamer into shards, and the banana 1f34c
 * opened holes and flailed. The corpus's pokes need at most 1.41 times at
 * the default strength and 1.61 at half of it. */
#define POKE_DEPTH_MAX 1.75

/* A poke point nearer a pinned node than this many times the dent asked is
 * beside the anchor, and there the finger presses no deeper than asked, nor
 * past where the next part begins beyond the part it presses (part_ahead).
 * Beside the anchor the body is held by its pins and hardly dents, so the
 * trials pressed deeper, and the pressed part tore from its pins or was
 * pushed into its neighbour: poked at a bottom corner of its box (--at 0,1
 * and 1,1) on lattices of 8 to 10 nodes, the "!" 2757 pushed its dot into
 * its bar and the clapping hands 1f44f their motion lines into a hand;
 * poked on its bottom edge (--at 0.25,0.9 and 0.75,0.9) at the largest
 * strength, a dent of 17.5 pixels asked, the "!" pushed its dot into its
 * bar too, and the line the finger presses along meets the bar 10 pixels
 * past the dot's side. The default poke point of every corpus stamp lies
 * farther from the pins, at every strength up to the largest, so no poke
 * there changed. */
#define POKE_BESIDE_PIN 0.875

/* The opaque samples near a line through at, sorted into t (room for
 * l->op_n): with across 0, those within 0.75 of a spacing of the line along
 * dir, from 0.75 of a spacing behind at on, as their distances along it; with
 * across 1, those within 0.75 of a spacing of the line across dir through at,
 * as their offsets across it. Returns how many. A part of the picture
 * ends along such a line where two samples lie more than LINE_PART_GAP
 * spacings apart. */
#define LINE_BAND 0.75
#define LINE_PART_GAP 2.0
static int line_samples(const lattice *l, v2 at, v2 dir, int across, double *t)
{
    double band = LINE_BAND * l->op_stride;
    int m = 0;
    for (int k = 0; k < l->op_n; k++) {
        double ox = l->op_x[k] - at.x, oy = l->op_y[k] - at.y;
        double a = ox * dir.x + oy * dir.y, c = ox * dir.y - oy * dir.x;
        if (!across && fabs(c) <= band && a >= -band)
            t[m++] = a;
        else if (across && fabs(a) <= band)
            t[m++] = c;
    }
    qsort(t, (size_t)m, sizeof *t, cmp_double);
    return m;
}

/* Along the line from at in dir: how far it is from the first opaque
 * sample on it (from three quarters of a spacing behind at on) to the first
 * sample of the next part beyond, or INFINITY when the line meets no other
 * part or the memory to measure is not there. The line is as wide as 1.5
 * times the samples' spacing, and a part ends where two samples along it
 * lie more than two spacings apart. */
static double part_ahead(const lattice *l, v2 at, v2 dir)
{
    double ahead = INFINITY;
    double *t = malloc(((size_t)l->op_n + 1) * sizeof *t);
    if (!t)
        return ahead;
    int m = line_samples(l, at, dir, 0, t);
    for (int i = 1; i < m; i++)
        if (t[i] - t[i - 1] > LINE_PART_GAP * l->op_stride) {
            ahead = t[i] - t[0];
            break;
        }
    free(t);
    return ahead;
}

/* Across the line from at in dir: how wide the part under at is, pixels,
 * from the samples within 0.75 of a spacing of the line across at (the part
 * ends where two of them lie more than two spacings apart); 0 when at is not
 * on the picture (no sample within 0.75 of a spacing of it) or the memory to
 * measure is not there. */
static double part_across(const lattice *l, v2 at, v2 dir)
{
    double band = LINE_BAND * l->op_stride, gap = LINE_PART_GAP * l->op_stride, width = 0.0;
    double *t = malloc(((size_t)l->op_n + 1) * sizeof *t);
    if (!t)
        return width;
    int m = line_samples(l, at, dir, 1, t), near = -1;
    for (int i = 0; i < m; i++)
        if (fabs(t[i]) <= band && (near < 0 || fabs(t[i]) < fabs(t[near])))
            near = i;
    if (near >= 0) {
        int lo = near, hi = near;
        while (lo > 0 && t[lo] - t[lo - 1] <= gap)
            lo--;
        while (hi < m - 1 && t[hi + 1] - t[hi] <= gap)
            hi++;
        width = t[hi] - t[lo] + l->op_stride;
    }
    free(t);
    return width;
}

/* The deepest a poke's finger may press for a dent asked deep. */
static double finger_depth_max(const impulse_run *run, const softbody_nodes *nd, double asked)
{
    for (int k = 0; k < nd->n; k++)
        if (nd->pinned[k] && hypot(nd->qx[k] - run->at_px.x, nd->qy[k] - run->at_px.y) < POKE_BESIDE_PIN * asked)
            return fmin(asked, part_ahead(run->lat, run->at_px, run->dir));
    return POKE_DEPTH_MAX * asked;
}

/* The factor the next finger's depth is scaled by, within lo to hi, after
 * one pressed `depth` deep dented `dent` for the dent s asked: by the growth
 * of the dent with the depth that it and the one before (last_depth deep,
 * last_dent; 0: none) show, when that lies within 0.5 to 3, else in
 * proportion. */
static double finger_scale(double s, double dent, double depth, double last_depth, double last_dent, double lo,
                           double hi)
{
    double grow = last_dent > 0.0 && depth != last_depth ? log(dent / last_dent) / log(depth / last_depth) : 1.0;
    if (!(grow >= 0.5 && grow <= 3.0))
        grow = 1.0;
    return fmin(hi, fmax(lo, pow(s / dent, 1.0 / grow)));
}

/* A trial press for poke, twist, squash and stretch: its peak, measured as
 * the strength is, scales the real one. Twist, squash and stretch scale the
 * hand; poke presses a finger anew as deep as that asks (at most
 * finger_depth_max, and its first finger no deeper either), with a tip as wide
 * as the new depth (so the dent's slope stays below one and no cell folds),
 * the far side of a free body held again, and is tried again; the finger
 * kept is the one tried that came closest. A dent grows faster than the
 * depth, and by jumps where the wider tip takes in more nodes: each new
 * depth scaled by the ratio asked, the third trial's finger was kept
 * untried and a free poke at half its default dented 1.26 times as deep as
 * asked on the median stamp (59 of 65 more than 1.15 times). */
static void scale_press(impulse_run *run, softbody *sb)
{
    double s = run->def.strength;
    softbody_nodes nd = softbody_view(sb);
    int cap = run->cap_energy;
    run->cap_energy = 0;
    double depth = s * run->size, last_depth = 0.0, last_peak = 0.0, best_depth = depth, best_off = INFINITY;
    int by_gain = run->def.kind != IMPULSE_POKE, twist = run->def.kind == IMPULSE_TWIST;
    int stretch = run->def.kind == IMPULSE_STRETCH;
    double most = by_gain ? depth : finger_depth_max(run, &nd, depth);
    if (most < depth) {
        depth = best_depth = most;
        place_finger(run, &nd, depth);
    }
    for (int trial = 0; trial < (by_gain ? 2 : POKE_TRIALS); trial++) {
        press_start(run, sb);
        double peak = 0.0, t_after = INFINITY;
        long steps = 0;
        while (run->held || softbody_time(sb) < t_after) {
            softbody_step(sb);
            if (!stretch || ++steps % softbody_steps(sb) == 0)
                peak = fmax(peak, press_measure(run, &nd, NULL, NULL));
            /* a dent springs back past rest after the finger lets go, and a
             * free body rocks on past the turn it was let go at: half a wobble
             * more. A stretched body let go is watched for a whole wobble
             * more, when the frames are taken: a bar lying across the square
             * bends as it rings, its ends rising above the height it was
             * pulled to. Watched only while held, it stretched 1.2 times as
             * far as asked at half the default; watched at every step, the
             * trials took peaks of the bending that fall between the frames
             * for its stretch, and it stretched 0.89, 0.85 and 0.81 times as
             * far as asked at half, one and two times the default (0.93,
             * 0.89 and 0.86 now) */
            if (!run->held && isinf(t_after)) {
                double wobbles = stretch ? 1.0 : by_gain && !(twist && run->free) ? 0.0 : 0.5;
                t_after = softbody_time(sb) + wobbles / softbody_get_def(sb)->hz;
            }
        }
        press_reset(run, sb);
        if (!(peak > 1e-9))
            break;
        /* the hand turns at most four times as far as asked in all: a shape
         * that bends more than it turns turns less than asked rather than
         * folding over */
        double g = fmin(twist ? 4.0 / run->gain : 3.0, fmax(0.25, s / peak));
        if (by_gain) {
            run->gain *= g;
            if (fabs(log(g)) < log(1.1))
                break;
            continue;
        }
        double off = fabs(log(peak / s));
        if (off < best_off)
            best_off = off, best_depth = depth;
        if (off < log(POKE_CLOSE) || trial == POKE_TRIALS - 1)
            break;
        /* the dent grows faster than the depth (a deeper finger has a wider
         * tip and holds more nodes): the next depth follows the growth the
         * last two trials show */
        g = finger_scale(s, peak, depth, last_depth, last_peak, 0.25, 3.0);
        last_depth = depth, last_peak = peak;
        depth = fmin(depth * g, most);
        if (depth == last_depth)
            break; /* as deep as a finger presses there */
        place_finger(run, &nd, depth);
    }
    if (!by_gain && depth != best_depth) /* the finger that came closest of those tried */
        place_finger(run, &nd, best_depth);
    run->cap_energy = cap;
}

/* Trial leaps: the crouch and the spring of the body change how high the
 * launch carries it, so the launch is scaled to the height asked. */
static void scale_leap(impulse_run *run, softbody *sb)
{
    double s = run->def.strength;
    softbody_nodes nd = softbody_view(sb);
    for (int trial = 0; trial < 2; trial++) {
        double bottom0 = -1e300;
        for (int k = 0; k < nd.n; k++)
            bottom0 = fmax(bottom0, nd.qy[k]);
        press_start(run, sb);
        double rise = 0.0, t_end = impulse_release_time(run) + 3.0 * tempo_slowness(sb);
        while (softbody_time(sb) < t_end) {
            softbody_step(sb);
            double b = -1e300, vy = 0.0;
            for (int k = 0; k < nd.n; k++) {
                b = fmax(b, nd.y[k]);
                vy += nd.vy[k];
            }
            rise = fmax(rise, bottom0 - b);
            if (!run->held && vy >= 0.0 && rise > 0.0)
                break; /* past the top */
        }
        softbody_reset(sb);
        if (rise > 1e-6)
            run->launch *= fmin(3.0, sqrt(s * run->size / rise));
    }
}

/* The press peaks on a frame: it lasts the whole number of frames nearest
 * its time, at least two (rounded up, a poke at 0.2 pressed over five frames
 * instead of 4.4, and the side of the disc away from the finger moved 0.6
 * as far as the dent instead of a third). A palm lets go at its peak and a
 * finger or a hand turns back from it; peaking between two frames, the clip
 * never showed the depth asked: at --fps 10 a squash 0.68 of it on the
 * grinning face 1f600, a stretch 0.70 on the flag 1f6a9, a twist 0.85, and
 * at --fps 15 a poke 0.74 on the flag. A clip filmed again half a frame
 * later (film_oneshot) shows the peak between two frames: pressed half a
 * frame longer for it, a poke of the disc at 0.2 moved its far side 0.6 as
 * far as the dent. What follows the press keeps its time: the poke's
 * release made shorter with its press, 0.67 as far. */
static void press_on_frames(impulse_run *run, const softbody *sb)
{
    double frame = softbody_steps(sb) * softbody_dt(sb);
    run->t_press = fmax(2.0, round(run->t_press / frame)) * frame;
}

void impulse_kick(impulse_run *run, softbody *sb)
{
    run->step_dt = softbody_dt(sb);
    switch (run->def.kind) {
    case IMPULSE_WAVE:
    case IMPULSE_PAT:
        scale_drive(run, sb, 2.0 * PI * softbody_get_def(sb)->hz);
        break;
    default:
        if (run->def.kind == IMPULSE_POKE || run->def.kind == IMPULSE_TWIST || run->def.kind == IMPULSE_SQUASH ||
            run->def.kind == IMPULSE_STRETCH) {
            press_on_frames(run, sb);
            scale_press(run, sb);
        }
        if (run->def.kind == IMPULSE_JUMP && run->launch > 0.0)
            scale_leap(run, sb);
        press_start(run, sb);
        break;
    }
}

void impulse_restart(impulse_run *run, softbody *sb)
{
    press_reset(run, sb);
    press_start(run, sb);
}

int impulse_retune(impulse_run *run, softbody *sb, const double *x, const double *y, int count, double *off)
{
    *off = 0.0;
    if (run->def.kind != IMPULSE_POKE || run->nh == 0 || count < 1)
        return 0;
    softbody_nodes nd = softbody_view(sb);
    double dent = frames_peak(run, &nd, count, x, y, NULL, NULL), s = run->def.strength;
    if (!(dent > 1e-9)) {
        *off = INFINITY;
        return 0;
    }
    *off = fabs(log(dent / s));
    if (*off < log(POKE_FILM_CLOSE))
        return 0;
    /* the next depth as the trials set theirs, by the growth the last two
     * films show (from the first, in proportion), the step smaller */
    double g = finger_scale(s, dent, run->finger, run->film_finger, run->film_dent, 0.5, 2.0);
    double depth = fmin(run->finger * g, finger_depth_max(run, &nd, s * run->size));
    run->film_finger = run->finger;
    run->film_dent = dent;
    if (depth == run->finger)
        return 0; /* as deep as a finger presses there */
    place_finger(run, &nd, depth);
    impulse_restart(run, sb);
    return 1;
}

void impulse_end(impulse_run *run)
{
    free(run->hk);
    free(run->hdx);
    free(run->hdy);
    free(run->slack);
    run->slack = NULL;
    free(run->place_w);
    free(run->hold_w);
    run->place_w = run->hold_w = NULL;
    free(run->wp);
    run->wp = NULL;
    run->nwp = run->nwall = 0;
    run->hk = NULL;
    run->hdx = run->hdy = NULL;
    free(run->warp_x);
    free(run->field_x);
    free(run->field_filled);
    run->warp_x = run->warp_y = run->field_x = run->field_y = NULL;
    run->field_filled = NULL;
    free(run->share);
    run->share = NULL;
    free(run->px);
    free(run->py);
    free(run->drive_x);
    free(run->drive_y);
    run->px = run->py = run->drive_x = run->drive_y = NULL;
    free(run->taken);
    run->taken = NULL;
    run->floor = 0;
}
