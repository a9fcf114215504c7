/* impulse.c - turns a named kick into initial velocities, gravity, a floor or a
 * periodic drive for the shape-matching body. Strengths are peak deformations
 * as a fraction of the body's height: a velocity pattern D is given the speed
 * strength * omega * D so the wobble it starts has that amplitude. */
#include "impulse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static const impulse_info table[IMPULSE_COUNT] = {
    { "squash", "pressed from above and released: the classic jelly wobble",
      0.20, 0.6, "peak squash, fraction of height", 0, { 0.5, 0.5 }, 0, 0.0, 0, 0.0, ANCHOR_BOTTOM, 0 },
    { "stretch", "pulled up and released",
      0.20, 0.6, "peak stretch, fraction of height", 0, { 0.5, 0.5 }, 0, 0.0, 0, 0.0, ANCHOR_BOTTOM, 0 },
    { "poke", "a finger pokes the body at a point: a dent that ripples outwards",
      0.25, 0.8, "dent depth, fraction of height", 1, { 0.5, 0.15 }, 1, NAN, 0, 0.0, ANCHOR_BOTTOM, 0 },
    { "shake", "a sideways shove: the body sways",
      0.15, 0.6, "peak sway, fraction of height", 0, { 0.5, 0.5 }, 1, 0.0, 0, 0.0, ANCHOR_BOTTOM, 0 },
    { "twist", "a turn about a point: the body twists and untwists",
      0.25, 1.0, "peak twist, radians", 1, { 0.5, 0.5 }, 0, 0.0, 0, 0.0, ANCHOR_BOTTOM, 0 },
    { "jump", "jumps off the floor, lands and squashes",
      0.50, 2.0, "jump height, fraction of height", 0, { 0.5, 0.5 }, 0, 0.0, 0, 0.0, ANCHOR_NONE, 1 },
    { "drop", "falls onto the floor from above and splats",
      0.60, 2.0, "drop height, fraction of height", 0, { 0.5, 0.5 }, 0, 0.0, 0, 0.0, ANCHOR_NONE, 1 },
    { "wave", "a steady side-to-side sway (periodic, loops exactly)",
      0.08, 0.5, "sway, fraction of height", 0, { 0.5, 0.5 }, 1, 0.0, 1, 1.2, ANCHOR_BOTTOM, 0 },
    { "pat", "patted on the head again and again (periodic, loops exactly)",
      0.15, 0.6, "dent depth per pat, fraction of height", 1, { 0.5, 0.0 }, 0, 90.0, 1, 1.5, ANCHOR_BOTTOM, 0 },
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

poyo_status impulse_resolve(impulse_def *d, poyo_error *err)
{
    const impulse_info *info = impulse_get_info(d->kind);
    if (!info)
        return poyo_fail(err, POYO_ERR_USAGE, "unknown impulse");
    if (isnan(d->strength))
        d->strength = info->strength;
    if (!(d->strength >= 0.0 && d->strength <= info->strength_max))
        return poyo_fail(err, POYO_ERR_USAGE, "--strength for %s must be 0 to %g, not %g", info->name,
                         info->strength_max, d->strength);
    if (isnan(d->at.x))
        d->at = info->at;
    if (!(fabs(d->at.x) <= 10.0 && fabs(d->at.y) <= 10.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--at must be within -10 to 10 (image fractions), not %g,%g", d->at.x, d->at.y);
    if (isnan(d->angle))
        d->angle = info->angle;
    if (!isnan(d->angle) && !(fabs(d->angle) <= 3600.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--angle must be -3600 to 3600 degrees, not %g", d->angle);
    if (isnan(d->rate))
        d->rate = info->rate;
    if (info->periodic && !(d->rate >= 0.1 && d->rate <= 20.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--rate must be 0.1 to 20 Hz, not %g", d->rate);
    return POYO_OK;
}

/* Floor contact: nodes below the floor go back on it; the normal velocity is
 * reflected with the restitution, the tangential one scaled by 1 - friction. */
static void floor_collide(void *user, double *x, double *y, double *vx, double *vy, int n)
{
    const impulse_run *run = user;
    for (int k = 0; k < n; k++) {
        if (y[k] < run->floor_y - 1.0)
            continue; /* well above the floor: no contact possible */
        v2 p = v2_make(x[k], y[k]), v = v2_make(vx[k], vy[k]);
        if (sdf_collide(run->floor, 0.0, run->restitution, run->friction, &p, &v)) {
            x[k] = p.x;
            y[k] = p.y;
            vx[k] = v.x;
            vy[k] = v.y;
        }
    }
}

static void drive_force(void *user, double t, const double *x, const double *y, double *ax, double *ay, int n)
{
    impulse_run *run = user;
    (void)x;
    (void)y;
    if (run->def.kind == IMPULSE_WAVE) {
        double s = sin(run->omega * t);
        for (int k = 0; k < n; k++) {
            ax[k] += run->drive_x[k] * s;
            ay[k] += run->drive_y[k] * s;
        }
    } else if (run->def.kind == IMPULSE_PAT) {
        /* one kick at the start of every period, spread over one step */
        double period = 2.0 * PI / run->omega;
        double start = floor(t / period + 1e-9) * period;
        if (start > run->last_period + 0.5 * period || run->last_period < 0.0) {
            run->last_period = start;
            run->kick_until = start + run->step_dt * 0.5;
        }
        if (t < run->kick_until)
            for (int k = 0; k < n; k++) {
                ax[k] += run->drive_x[k] / run->step_dt;
                ay[k] += run->drive_y[k] / run->step_dt;
            }
    }
}

poyo_status impulse_begin(impulse_run *run, const impulse_def *def, softbody *sb, const lattice *lat,
                          int iw, int ih, poyo_error *err)
{
    memset(run, 0, sizeof *run);
    run->def = *def;
    poyo_status st = impulse_resolve(&run->def, err);
    if (st != POYO_OK)
        return st;
    run->info = impulse_get_info(run->def.kind);
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    run->n = n;
    run->px = calloc((size_t)n, sizeof(double));
    run->py = calloc((size_t)n, sizeof(double));
    run->drive_x = calloc((size_t)n, sizeof(double));
    run->drive_y = calloc((size_t)n, sizeof(double));
    if (!run->px || !run->py || !run->drive_x || !run->drive_y) {
        impulse_end(run);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the impulse");
    }
    double top = nd.qy[0], bottom = nd.qy[0], left = nd.qx[0], right = nd.qx[0];
    for (int k = 1; k < n; k++) {
        if (nd.qy[k] < top) top = nd.qy[k];
        if (nd.qy[k] > bottom) bottom = nd.qy[k];
        if (nd.qx[k] < left) left = nd.qx[k];
        if (nd.qx[k] > right) right = nd.qx[k];
    }
    double size = bottom - top;
    if (size < lat->h)
        size = lat->h;
    run->size = size;
    double cx = 0.5 * (lat->bx0 + lat->bx1), cy = 0.5 * (lat->by0 + lat->by1);
    anchor_kind anchor = softbody_get_def(sb)->anchor;
    v2 at = v2_make(run->def.at.x * iw, run->def.at.y * ih);
    v2 dir;
    if (isnan(run->def.angle)) {
        dir = v2_normalize(v2_sub(v2_make(cx, cy), at));
        if (v2_len2(dir) == 0.0)
            dir = v2_make(0.0, 1.0);
    } else {
        dir = v2_from_angle(run->def.angle * PI / 180.0);
    }
    double sigma = 0.25 * (right - left > size ? right - left : size);
    for (int k = 0; k < n; k++) {
        double qx = nd.qx[k], qy = nd.qy[k];
        /* u: 0 at the anchored edge, 1 at the far edge; 1 everywhere when free */
        double u = 1.0;
        if (anchor == ANCHOR_BOTTOM)
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
    if (run->info->has_floor) {
        run->floor_y = bottom;
        st = sdf_scene_create(&run->floor, err);
        if (st == POYO_OK)
            st = sdf_scene_add(run->floor, SDF_UNION, 0.0, sdf_floor(bottom), err);
        if (st != POYO_OK) {
            impulse_end(run);
            return st;
        }
        run->restitution = 0.15;
        run->friction = 0.5;
        run->gravity = 12.0 * size;
        softbody_set_gravity(sb, 0.0, run->gravity);
        softbody_set_collide(sb, floor_collide, run);
    }
    if (run->info->periodic) {
        run->omega = 2.0 * PI * run->def.rate;
        run->last_period = -1.0;
        softbody_set_force(sb, drive_force, run);
    }
    return POYO_OK;
}

void impulse_kick(impulse_run *run, softbody *sb)
{
    double wn = 2.0 * PI * softbody_get_def(sb)->hz;
    double s = run->def.strength;
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    run->step_dt = softbody_dt(sb);
    switch (run->def.kind) {
    case IMPULSE_JUMP: {
        double v = sqrt(2.0 * run->gravity * s * run->size);
        for (int k = 0; k < n; k++)
            nd.vy[k] = -v;
        break;
    }
    case IMPULSE_DROP:
        for (int k = 0; k < n; k++)
            nd.y[k] -= s * run->size;
        break;
    case IMPULSE_WAVE:
        /* a sway force whose quasi-static deflection is strength * height */
        for (int k = 0; k < n; k++) {
            run->drive_x[k] = s * wn * wn * run->px[k];
            run->drive_y[k] = s * wn * wn * run->py[k];
        }
        break;
    case IMPULSE_PAT:
        for (int k = 0; k < n; k++) {
            run->drive_x[k] = s * wn * run->px[k];
            run->drive_y[k] = s * wn * run->py[k];
        }
        break;
    default: {
        /* the pattern's largest displacement becomes strength * height */
        double mx = 0;
        for (int k = 0; k < n; k++) {
            double l = sqrt(run->px[k] * run->px[k] + run->py[k] * run->py[k]);
            if (l > mx)
                mx = l;
        }
        double scale = run->def.kind == IMPULSE_TWIST ? s * wn : (mx > 0 ? s * wn * run->size / mx : 0.0);
        for (int k = 0; k < n; k++) {
            if (nd.pinned[k])
                continue;
            nd.vx[k] = scale * run->px[k];
            nd.vy[k] = scale * run->py[k];
        }
        break;
    }
    }
}

void impulse_end(impulse_run *run)
{
    free(run->px);
    free(run->py);
    free(run->drive_x);
    free(run->drive_y);
    run->px = run->py = run->drive_x = run->drive_y = NULL;
    sdf_scene_destroy(run->floor);
    run->floor = NULL;
}
