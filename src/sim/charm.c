/* charm.c - a stamp swinging on a rope: Position Based Dynamics (Mueller et al.
 * 2007) for the rope plus a rigid arm to the stamp's centre of mass, the
 * paper's momentum-keeping damping over both, and shape matching (Mueller et
 * al. 2005) for the stamp's wobble in the arm's moving, turning frame. */
#include "charm.h"

#include "clip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geom/rope.h"
#include "geom/vec2.h"

/* Most soft body steps per frame. */
#define CHARM_MAX_STEPS 64
/* Most bytes of RGBA frames a clip may take. */
/* Longest rope step, seconds. */
#define CHARM_ROPE_DT 0.001

charm_def charm_default_def(void)
{
    charm_def d;
    d.width = 256;
    d.height = 256;
    d.anchor = v2_make(0.5, 0.05);
    d.length = 0.3;
    d.segments = 16;
    d.stiffness = 1.0;
    d.iterations = 20;
    d.rope_damping = 0.1;
    d.drag = 0.0;
    d.gravity = 8.0;
    d.rope_mass = 0.2;
    d.stamp_size = 0.45;
    d.grid = 12;
    d.wobble = 4.0;
    d.body = softbody_default_def();
    d.body.anchor = ANCHOR_NONE;
    d.kick = 0.8;
    d.angle = 0.0;
    d.fps = 25.0;
    d.duration = 0.0;
    d.max_duration = 8.0;
    d.rope_rgb[0] = 0x8b;
    d.rope_rgb[1] = 0x5a;
    d.rope_rgb[2] = 0x3c;
    d.rope_width = 3.0;
    d.loop = 0;
    d.threads = 1;
    return d;
}

static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

poyo_status charm_check_def(const charm_def *d, poyo_error *err)
{
    if (d->width < 1 || d->width > ANIM_SIDE_MAX || d->height < 1 || d->height > ANIM_SIDE_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--size: must be 1 to %d pixels per side, not %dx%d", ANIM_SIDE_MAX,
                         d->width, d->height);
    if (!in_range(d->anchor.x, CHARM_ANCHOR_MIN, CHARM_ANCHOR_MAX) ||
        !in_range(d->anchor.y, CHARM_ANCHOR_MIN, CHARM_ANCHOR_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--anchor-at: must be %g to %g in both coordinates, not %g,%g",
                         CHARM_ANCHOR_MIN, CHARM_ANCHOR_MAX, d->anchor.x, d->anchor.y);
    poyo_status st = POYO_OK;
    if (st == POYO_OK) st = poyo_check_range(err, "--length", d->length, CHARM_LENGTH_MIN, CHARM_LENGTH_MAX, "canvas heights");
    if (st == POYO_OK) st = poyo_check_range(err, "--segments", d->segments, 1, CHARM_SEGMENTS_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--stiffness", d->stiffness, CHARM_STIFFNESS_MIN, 1.0, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--iterations", d->iterations, 1, CHARM_ITERATIONS_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--rope-damping", d->rope_damping, 0.0, 1.0, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--drag", d->drag, 0.0, CHARM_DRAG_MAX, "");
    if (st == POYO_OK)
        st = poyo_check_range(err, "--gravity", d->gravity, CHARM_GRAVITY_MIN, CHARM_GRAVITY_MAX, "canvas heights/s^2");
    if (st == POYO_OK) st = poyo_check_range(err, "--rope-mass", d->rope_mass, CHARM_ROPE_MASS_MIN, CHARM_ROPE_MASS_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--stamp-size", d->stamp_size, CHARM_STAMP_SIZE_MIN, 1.0, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--grid", d->grid, LATTICE_GRID_MIN, LATTICE_GRID_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--wobble", d->wobble, 0.0, CHARM_WOBBLE_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--kick", d->kick, 0.0, CHARM_KICK_MAX, "canvas heights/s");
    if (st == POYO_OK) st = poyo_check_range(err, "--angle", d->angle, -CHARM_ANGLE_MAX, CHARM_ANGLE_MAX, "degrees");
    if (st == POYO_OK) st = poyo_check_range(err, "--fps", d->fps, ANIM_FPS_MIN, ANIM_FPS_MAX, "");
    if (st == POYO_OK && d->duration != 0.0)
        st = poyo_check_range(err, "--duration", d->duration, ANIM_DURATION_MIN, ANIM_DURATION_MAX, "seconds");
    if (st == POYO_OK)
        st = poyo_check_range(err, "the longest clip", d->max_duration, ANIM_DURATION_MIN, ANIM_DURATION_MAX, "seconds");
    if (st == POYO_OK)
        st = poyo_check_range(err, "--rope-width", d->rope_width, CHARM_ROPE_WIDTH_MIN, CHARM_ROPE_WIDTH_MAX, "pixels");
    if (st == POYO_OK) st = poyo_check_range(err, "--loop", d->loop, 0, ANIM_LOOP_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "render threads", d->threads, 1, 8, "");
    return st == POYO_OK ? softbody_check_def(&d->body, err) : st;
}

struct charm {
    charm_def def;
    rope *r;
    int np;                 /* rope particles */
    double h;               /* seconds per solver step */
    int spf;                /* solver steps per frame */
    int rope_subs;          /* rope steps per solver step */
    long steps;             /* solver steps taken */
    v2 anchor;              /* canvas pixels */
    v2 g;                   /* gravity, canvas pixels/s^2 */
    double kd;              /* damping share per step */
    /* the stamp: centre of mass on an arm of length arm from the rope's end */
    int has_stamp;
    double mass;            /* of the stamp */
    v2 c, vc, cp;           /* centre of mass: position, velocity, prediction */
    double arm;             /* canvas pixels */
    v2 arm_rest;            /* arm from the attachment to the centre of mass, unrotated stamp, canvas pixels */
    double theta0;          /* stamp rotation at rest, radians */
    double theta, omega;    /* stamp rotation and its rate */
    double alpha_acc;       /* angular acceleration, rad/s^2 */
    v2 va, acc_a;           /* attachment velocity and acceleration */
    int first;              /* no earlier step to difference */
    softbody *sb;
    image stamp;            /* cropped */
    lattice lat;
    placement place;
    v2 attach;              /* attachment point, cropped stamp pixels */
    double size;            /* longer side of the visible stamp, image pixels */
    double max_acc;         /* largest push on a node in the arm's frame, image pixels/s^2 */
    /* scratch for the damping over rope and stamp */
    v2 *dx, *dv, *dv0;
    double *dm;
};

int charm_point_count(const charm *c) { return c->np + (c->has_stamp ? 1 : 0); }

double charm_time(const charm *c) { return (double)c->steps * c->h; }

void charm_points(const charm *c, v2 *out)
{
    memcpy(out, rope_positions(c->r), (size_t)c->np * sizeof *out);
    if (c->has_stamp)
        out[c->np] = c->c;
}

void charm_destroy(charm *c)
{
    if (!c)
        return;
    rope_destroy(c->r);
    softbody_destroy(c->sb);
    image_free(&c->stamp);
    lattice_free(&c->lat);
    free(c->dx);
    free(c->dv);
    free(c->dv0);
    free(c->dm);
    free(c);
}

/* The rope's end and the stamp's centre of mass keep their distance (PBD). */
static void project_arm(void *user, v2 *p, const double *inv_mass, int n)
{
    charm *c = user;
    double wa = inv_mass[n - 1], wc = 1.0 / c->mass;
    v2 d = v2_sub(c->cp, p[n - 1]);
    double len = v2_len(d);
    if (!(len > 1e-9))
        return;
    v2 corr = v2_scale(d, (len - c->arm) / (len * (wa + wc)));
    p[n - 1] = v2_madd(p[n - 1], wa, corr);
    c->cp = v2_madd(c->cp, -wc, corr);
}

/* Accelerations of the stamp's nodes in the arm's frame (image pixels/s^2):
 * gravity minus the attachment's acceleration, turned into the frame, less the
 * load it carries at rest (the drawn stamp is its shape hanging still), plus
 * the Euler, centrifugal and Coriolis terms of the turning frame. --wobble
 * scales the first two; scaled, the others would make the wobble chaotic. */
static void frame_forces(void *user, double t, const double *x, const double *y, double *ax, double *ay, int n)
{
    charm *c = user;
    (void)t;
    v2 a = v2_sub(c->g, c->acc_a);
    v2 loc = v2_sub(v2_rotate(a, -c->theta), v2_rotate(c->g, -c->theta0));
    double sx = c->place.sx, sy = c->place.sy;
    double w = c->omega, al = c->alpha_acc, gain = c->def.wobble, amax = c->max_acc;
    softbody_nodes nd = softbody_view(c->sb);
    const double *vx = nd.vx, *vy = nd.vy;
    for (int k = 0; k < n; k++) {
        double rx = x[k] - c->attach.x, ry = y[k] - c->attach.y;
        double fx = gain * (loc.x / sx + al * ry) + w * w * rx + 2.0 * w * vy[k];
        double fy = gain * (loc.y / sy - al * rx) + w * w * ry - 2.0 * w * vx[k];
        /* a fast spin must not pull the stamp apart: the push stays below what
         * bends it by half its size */
        double f = sqrt(fx * fx + fy * fy);
        if (f > amax) {
            fx *= amax / f;
            fy *= amax / f;
        }
        ax[k] += fx;
        ay[k] += fy;
    }
}

/* Copies the visible part of src with a pixel of margin. */
static poyo_status crop_visible(const image *src, image *out, poyo_error *err)
{
    int x0, y0, x1, y1;
    if (!image_visible_bbox(src, &x0, &y0, &x1, &y1))
        return poyo_fail(err, POYO_ERR_INPUT, "the stamp has no visible pixels");
    x0 = x0 > 0 ? x0 - 1 : 0;
    y0 = y0 > 0 ? y0 - 1 : 0;
    x1 = x1 < src->w ? x1 + 1 : src->w;
    y1 = y1 < src->h ? y1 + 1 : src->h;
    return image_crop(src, x0, y0, x1, y1, out, err);
}

/* The attachment point: the top edge of the highest clearly visible pixel near
 * the middle (height and distance from the middle count alike). */
static v2 find_attach(const image *im)
{
    int bx0, by0, bx1, by1;
    image_visible_bbox(im, &bx0, &by0, &bx1, &by1);
    double mid = 0.5 * (bx0 + bx1);
    for (int thr = 128; thr >= 1; thr -= 127) {
        double best = 1e300;
        v2 at = v2_make(mid, by0);
        for (int x = bx0; x < bx1; x++)
            for (int y = by0; y < by1; y++) {
                if (im->rgba[((size_t)y * im->w + x) * 4u + 3] < thr)
                    continue;
                double score = y + fabs(x + 0.5 - mid);
                if (score < best) {
                    best = score;
                    at = v2_make(x + 0.5, y);
                }
                break;
            }
        if (best < 1e300)
            return at;
    }
    return v2_make(mid, by0);
}

/* Alpha-weighted centre of the stamp, image pixels. */
static v2 centre_of_mass(const image *im)
{
    double sw = 0, sx = 0, sy = 0;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            double a = im->rgba[((size_t)y * im->w + x) * 4u + 3];
            sw += a;
            sx += a * (x + 0.5);
            sy += a * (y + 0.5);
        }
    return sw > 0 ? v2_make(sx / sw, sy / sw) : v2_make(0.5 * im->w, 0.5 * im->h);
}

/* Builds the stamp's body: crop, place, lattice, pins near the attachment, calibration. */
static poyo_status build_stamp(charm *c, const image *src, poyo_error *err)
{
    const charm_def *d = &c->def;
    poyo_status st = crop_visible(src, &c->stamp, err);
    if (st != POYO_OK)
        return st;
    const image *im = &c->stamp;
    double box[4] = { 0.0, 0.0, im->w, im->h }; /* the crop is the visible box */
    placement p = clip_place(im->w, im->h, box, fmin(d->width, d->height) * d->stamp_size, d->width, d->height);
    c->place = p;
    st = lattice_build(im, d->grid, &c->lat, err);
    if (st != POYO_OK)
        return st;
    softbody_def body = d->body;
    body.anchor = ANCHOR_NONE;
    st = softbody_create(&c->lat, &body, &c->sb, err);
    if (st != POYO_OK)
        return st;
    softbody *sb = c->sb;
    const lattice *lat = &c->lat;
    c->attach = find_attach(im);
    /* pin the top node of each column near the attachment: the stamp hangs from there */
    double reach = fmax(1.01 * lat->h, 0.3 * (lat->bx1 - lat->bx0));
    for (int i = 0; i < lat->nx; i++) {
        if (fabs(lat->ox + i * lat->h - c->attach.x) > reach)
            continue;
        for (int j = 0; j < lat->ny; j++) {
            int k = lat->index[(size_t)j * lat->nx + i];
            if (k >= 0) {
                softbody_set_pinned(sb, k, 1);
                break;
            }
        }
    }
    int n = softbody_count(sb);
    if (softbody_pinned_count(sb) == 0 || softbody_pinned_count(sb) >= n)
        return poyo_fail(err, POYO_ERR_INPUT, "the stamp is too small to hang and wobble");
    double *px = malloc((size_t)n * sizeof *px), *py = calloc((size_t)n, sizeof *py);
    if (!px || !py) {
        free(px);
        free(py);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the stamp");
    }
    for (int k = 0; k < n; k++)
        px[k] = 1.0;
    st = softbody_calibrate(sb, px, py, d->fps, err);
    free(px);
    free(py);
    if (st != POYO_OK)
        return st;
    /* a stiff wobble on a fine lattice: cap the work, the wobble comes out slower */
    softbody_limit_steps(sb, CHARM_MAX_STEPS);
    softbody_set_gravity(sb, 0.0, 0.0);
    c->size = fmax(lat->bx1 - lat->bx0, lat->by1 - lat->by0);
    double wn = 2.0 * PI * d->body.hz;
    c->max_acc = 0.5 * wn * wn * c->size;
    softbody_set_force(sb, frame_forces, c);
    v2 com = centre_of_mass(im);
    c->arm_rest = v2_make((com.x - c->attach.x) * p.sx, (com.y - c->attach.y) * p.sy);
    if (v2_len(c->arm_rest) < 1e-3)
        c->arm_rest = v2_make(0.0, 1e-3);
    c->arm = v2_len(c->arm_rest);
    c->theta0 = atan2(1.0, 0.0) - atan2(c->arm_rest.y, c->arm_rest.x);
    c->theta = c->theta0;
    return POYO_OK;
}

poyo_status charm_create(const charm_def *def, const image *src, charm **out, poyo_error *err)
{
    *out = NULL;
    poyo_status st = charm_check_def(def, err);
    if (st != POYO_OK)
        return st;
    charm *c = calloc(1, sizeof *c);
    if (!c)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the charm");
    c->def = *def;
    c->mass = 1.0;
    c->first = 1;
    double H = def->height;
    c->anchor = v2_make(def->anchor.x * def->width, def->anchor.y * H);
    c->g = v2_make(0.0, def->gravity * H);
    c->spf = def->body.substeps;
    if (src) {
        c->has_stamp = 1;
        st = build_stamp(c, src, err);
        if (st != POYO_OK)
            goto fail;
        c->spf = softbody_steps(c->sb);
    }
    c->h = 1.0 / (def->fps * c->spf);
    /* a heavy stamp on a light rope stretches it unless the rope's steps are short */
    c->rope_subs = (int)ceil(c->h / CHARM_ROPE_DT - 1e-9);
    if (c->rope_subs < 1)
        c->rope_subs = 1;
    double hr = c->h / c->rope_subs;
    c->kd = 1.0 - pow(1.0 - def->rope_damping, 25.0 * hr);
    c->np = def->segments + 1;
    rope_def rd = rope_default_def();
    rd.count = c->np;
    rd.length = def->length * H;
    rd.gravity = c->g;
    rd.mass = c->has_stamp ? def->rope_mass * c->mass : 1.0;
    rd.load_mass = 0.0;
    rd.stiffness = 1.0 - pow(1.0 - def->stiffness, 1.0 / ((double)c->spf * c->rope_subs));
    rd.iterations = def->iterations;
    rd.substeps = 1;
    rd.damping = 0.0;
    rd.drag = def->drag;
    rd.pin = ROPE_PIN_START;
    rd.project = c->has_stamp ? project_arm : NULL;
    rd.project_user = c;
    st = rope_create(&rd, c->anchor, c->anchor, &c->r, err);
    if (st != POYO_OK)
        goto fail;
    int nd = c->np + 1;
    c->dx = malloc((size_t)nd * sizeof *c->dx);
    c->dv = malloc((size_t)nd * sizeof *c->dv);
    c->dv0 = malloc((size_t)nd * sizeof *c->dv0);
    c->dm = malloc((size_t)nd * sizeof *c->dm);
    if (!c->dx || !c->dv || !c->dv0 || !c->dm) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the charm");
        goto fail;
    }
    const v2 *x = rope_positions(c->r);
    double a = def->angle * PI / 180.0;
    v2 kick = v2_scale(v2_make(cos(a), sin(a)), def->kick * H);
    if (c->has_stamp) {
        c->c = v2_add(x[c->np - 1], v2_make(0.0, c->arm));
        c->vc = kick;
    } else {
        st = rope_apply_impulse(c->r, c->np - 1, kick, err);
        if (st != POYO_OK)
            goto fail;
    }
    *out = c;
    return POYO_OK;
fail:
    charm_destroy(c);
    return st;
}

/* The PBD paper's damping over the free rope particles and the stamp together. */
static void damp(charm *c)
{
    if (c->kd <= 0.0)
        return;
    const v2 *x = rope_positions(c->r), *v = rope_velocities(c->r);
    const double *m = rope_masses(c->r);
    int n = c->np;
    for (int i = 0; i < n; i++) {
        c->dx[i] = x[i];
        c->dv[i] = c->dv0[i] = v[i];
        c->dm[i] = rope_is_pinned(c->r, i) ? 0.0 : m[i];
    }
    if (c->has_stamp) {
        c->dx[n] = c->c;
        c->dv[n] = c->vc;
        c->dm[n] = c->mass;
        n++;
    }
    rope_damp_velocities(c->dx, c->dv, c->dm, n, c->kd);
    for (int i = 0; i < c->np; i++)
        if (c->dm[i] > 0.0)
            rope_apply_impulse(c->r, i, v2_sub(c->dv[i], c->dv0[i]), NULL);
    if (c->has_stamp)
        c->vc = c->dv[c->np];
}

/* One rope step of h seconds: the chain of rope and stamp by PBD. */
static void rope_substep(charm *c, double h)
{
    damp(c);
    if (c->has_stamp) {
        c->vc = v2_scale(v2_madd(c->vc, h, c->g), exp(-c->def.drag * h));
        c->cp = v2_madd(c->c, h, c->vc);
    }
    rope_step(c->r, h, NULL);
    if (c->has_stamp) {
        c->vc = v2_scale(v2_sub(c->cp, c->c), 1.0 / h);
        c->c = c->cp;
    }
}

/* One solver step of c->h seconds: the chain, then the stamp's wobble in the arm's frame. */
static void step(charm *c)
{
    double h = c->h;
    for (int s = 0; s < c->rope_subs; s++)
        rope_substep(c, h / c->rope_subs);
    c->steps++;
    if (!c->has_stamp)
        return;
    const v2 *x = rope_positions(c->r), *v = rope_velocities(c->r);
    v2 a = x[c->np - 1], va = v[c->np - 1];
    v2 arm = v2_sub(c->c, a), varm = v2_sub(c->vc, va);
    double l2 = v2_len2(arm);
    double omega = l2 > 1e-12 ? v2_cross(arm, varm) / l2 : 0.0;
    double theta = atan2(arm.y, arm.x) - atan2(c->arm_rest.y, c->arm_rest.x);
    /* keep theta continuous across the atan2 cut */
    theta += 2.0 * PI * floor((c->theta - theta) / (2.0 * PI) + 0.5);
    if (c->first) {
        c->acc_a = v2_make(0.0, 0.0);
        c->alpha_acc = 0.0;
        c->first = 0;
    } else {
        c->acc_a = v2_scale(v2_sub(va, c->va), 1.0 / h);
        c->alpha_acc = (omega - c->omega) / h;
    }
    c->va = va;
    c->omega = omega;
    c->theta = theta;
    softbody *sb = c->sb;
    softbody_step(sb);
    softbody_nodes nd = softbody_view(sb);
    /* a safety net: no node strays further than the stamp's size from rest */
    for (int k = 0; k < nd.n; k++) {
        double dx = nd.x[k] - nd.qx[k], dy = nd.y[k] - nd.qy[k], dd = sqrt(dx * dx + dy * dy);
        if (!(dd <= c->size)) {
            double keep = dd > 0.0 && isfinite(dd) ? c->size / dd : 0.0;
            nd.x[k] = nd.qx[k] + dx * keep;
            nd.y[k] = nd.qy[k] + dy * keep;
            nd.vx[k] = nd.vy[k] = 0.0;
        }
    }
}

void charm_step_frame(charm *c)
{
    for (int s = 0; s < c->spf; s++)
        step(c);
}

/* Rope points (canvas pixels) and node positions for the renderer now. */
static void capture(const charm *c, v2 *pts, double *x, double *y)
{
    memcpy(pts, rope_positions(c->r), (size_t)c->np * sizeof *pts);
    if (!c->has_stamp)
        return;
    softbody_nodes nd = softbody_view(c->sb);
    v2 a = rope_positions(c->r)[c->np - 1];
    double co = cos(c->theta), si = sin(c->theta);
    const placement *p = &c->place;
    for (int k = 0; k < nd.n; k++) {
        double rx = (nd.x[k] - c->attach.x) * p->sx, ry = (nd.y[k] - c->attach.y) * p->sy;
        double wx = a.x + co * rx - si * ry, wy = a.y + si * rx + co * ry;
        x[k] = (wx - p->ox) / p->sx;
        y[k] = (wy - p->oy) / p->sy;
    }
}

/* Angle of the stamp (the rope's end) around the anchor, radians from straight down. */
static double swing_angle(const charm *c)
{
    v2 e = c->has_stamp ? c->c : rope_positions(c->r)[c->np - 1];
    v2 d = v2_sub(e, c->anchor);
    return atan2(d.x, d.y);
}

void charm_clip_free(charm_clip *clip)
{
    if (!clip)
        return;
    free(clip->rope);
    free(clip->x);
    free(clip->y);
    image_free(&clip->stamp);
    lattice_free(&clip->lat);
    memset(clip, 0, sizeof *clip);
}

static poyo_status alloc_clip(charm_clip *clip, const charm *c, int count, poyo_error *err)
{
    clip->count = count;
    clip->npoints = c->np;
    clip->n = c->has_stamp ? softbody_count(c->sb) : 0;
    clip->rope = malloc((size_t)count * clip->npoints * sizeof *clip->rope);
    clip->x = malloc(((size_t)count * clip->n + 1) * sizeof *clip->x);
    clip->y = malloc(((size_t)count * clip->n + 1) * sizeof *clip->y);
    if (!clip->rope || !clip->x || !clip->y)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d frames", count);
    return POYO_OK;
}

/* The charm as the clip engine's driver: rope points and stamp nodes. */
static void charm_drive(void *user, long f)
{
    (void)f;
    charm_step_frame(user);
}

static void charm_capture(void *user, double *x, double *y, double *e)
{
    const charm *c = user;
    v2 *pts = c->dv0; /* scratch of np points, free between steps */
    capture(c, pts, x, y);
    for (int j = 0; j < c->np; j++) {
        e[2 * j] = pts[j].x;
        e[2 * j + 1] = pts[j].y;
    }
}

/* The swing's angle, signed so that it rises through zero where the stamp
 * passes under the anchor in the direction of the kick. */
static double charm_phase(void *user)
{
    const charm *c = user;
    return (cos(c->def.angle * PI / 180.0) >= 0.0 ? 1.0 : -1.0) * swing_angle(c);
}

/* Moves the engine's frames into the clip's rope points and node positions. */
static poyo_status take_frames(charm_clip *clip, const charm *c, clip_frames *k, poyo_error *err)
{
    poyo_status st = alloc_clip(clip, c, k->count, err);
    if (st == POYO_OK) {
        for (size_t j = 0; j < (size_t)k->count * c->np; j++)
            clip->rope[j] = v2_make(k->e[2 * j], k->e[2 * j + 1]);
        memcpy(clip->x, k->x, (size_t)k->count * clip->n * sizeof(double));
        memcpy(clip->y, k->y, (size_t)k->count * clip->n * sizeof(double));
        clip->settled = k->settled;
        clip->periodic = k->periodic;
        clip->period = k->period;
    }
    clip_free(k);
    return st;
}

/* What the engine needs of every charm clip. */
static void charm_clip_def(const charm *c, clip_def *cd)
{
    const charm_def *d = &c->def;
    memset(cd, 0, sizeof *cd);
    cd->width = d->width;
    cd->height = d->height;
    cd->sx = c->has_stamp ? c->place.sx : 1.0;
    cd->sy = c->has_stamp ? c->place.sy : 1.0;
    cd->fps = d->fps;
}

/* Whole periods of the steady swing, from where the stamp passes under the
 * anchor in the direction of the kick, once the rope's and the wobble's own
 * motions have faded. Leaves clip->count 0 when the charm does not swing. */
static poyo_status film_swing(charm *c, charm_clip *clip, poyo_error *err)
{
    const charm_def *d = &c->def;
    /* how fast the free wobbles fade, amplitude per second */
    double rate_body = c->has_stamp ? d->body.damping * 2.0 * PI * d->body.hz : 1e9;
    double rate_rope = -0.5 * log(fmax(1e-9, 1.0 - d->rope_damping)) * 25.0;
    double rate = fmin(rate_body, rate_rope);
    double warm = rate > 0.0 ? 6.0 / rate : 8.0;
    clip_driver drv = { c, c->has_stamp ? softbody_count(c->sb) : 0, 2 * c->np, charm_drive, charm_capture, NULL,
                        charm_phase, NULL, NULL, NULL, NULL };
    clip_def cd;
    charm_clip_def(c, &cd);
    cd.kind = CLIP_MEASURED;
    cd.warmup = warm < 1.0 ? 1.0 : warm > 8.0 ? 8.0 : warm;
    cd.min_swing = 0.5 * PI / 180.0;
    cd.duration = d->duration;
    clip_frames k;
    poyo_status st = clip_film(&cd, &drv, &k, err);
    if (st != POYO_OK)
        return st;
    if (k.count == 0) {
        clip_free(&k);
        return POYO_OK;
    }
    return take_frames(clip, c, &k, err);
}

/* From the kick until the swing settles (or for the duration asked), the last
 * frames eased back to rest so the clip flows into frame 0. */
static poyo_status film_settle(charm *c, charm_clip *clip, poyo_error *err)
{
    const charm_def *d = &c->def;
    clip_driver drv = { c, c->has_stamp ? softbody_count(c->sb) : 0, 2 * c->np, charm_drive, charm_capture, NULL,
                        NULL, NULL, NULL, NULL, NULL };
    clip_def cd;
    charm_clip_def(c, &cd);
    cd.kind = CLIP_ONESHOT;
    clip_set_length(&cd, d->duration, d->max_duration);
    cd.min_frames = (int)ceil(0.4 * d->fps);
    /* settled: within a quarter of a canvas pixel of rest, and as still */
    cd.still = 0.25;
    cd.near = 0.25;
    cd.quiet = 1;
    cd.ease = (int)lround(0.3 * d->fps);
    clip_frames k;
    poyo_status st = clip_film(&cd, &drv, &k, err);
    if (st != POYO_OK)
        return st;
    return take_frames(clip, c, &k, err);
}

poyo_status charm_simulate(const charm_def *def, const image *src, charm_clip *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    charm *c = NULL;
    poyo_status st = charm_create(def, src, &c, err);
    if (st != POYO_OK)
        goto done;
    if (def->drag == 0.0 && def->kick > 0.0) {
        st = film_swing(c, out, err);
        if (st != POYO_OK || out->count > 0)
            goto keep;
        /* no steady swing (over the top, or too slow): the clip from the kick instead */
        charm_destroy(c);
        c = NULL;
        st = charm_create(def, src, &c, err);
        if (st != POYO_OK)
            goto done;
    }
    st = film_settle(c, out, err);
keep:
    if (st == POYO_OK && c->has_stamp) {
        out->stamp = c->stamp;
        out->lat = c->lat;
        out->place = c->place;
        memset(&c->stamp, 0, sizeof c->stamp);
        memset(&c->lat, 0, sizeof c->lat);
    }
done:
    charm_destroy(c);
    if (st != POYO_OK)
        charm_clip_free(out);
    return st;
}

/* Catmull-Rom point between p1 and p2 at t. */
static v2 catmull(v2 p0, v2 p1, v2 p2, v2 p3, double t)
{
    double t2 = t * t, t3 = t2 * t;
    double w0 = 0.5 * (-t + 2.0 * t2 - t3), w1 = 0.5 * (2.0 - 5.0 * t2 + 3.0 * t3);
    double w2 = 0.5 * (t + 4.0 * t2 - 3.0 * t3), w3 = 0.5 * (-t2 + t3);
    return v2_make(w0 * p0.x + w1 * p1.x + w2 * p2.x + w3 * p3.x, w0 * p0.y + w1 * p1.y + w2 * p2.y + w3 * p3.y);
}

/* Coverage of a capsule of radius rad around segment ab, kept as the maximum per pixel. */
static void cover_segment(float *cov, int w, int h, v2 a, v2 b, double rad)
{
    double pad = rad + 1.0;
    int x0 = (int)floor(fmin(a.x, b.x) - pad), x1 = (int)ceil(fmax(a.x, b.x) + pad);
    int y0 = (int)floor(fmin(a.y, b.y) - pad), y1 = (int)ceil(fmax(a.y, b.y) + pad);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w - 1) x1 = w - 1;
    if (y1 > h - 1) y1 = h - 1;
    v2 ab = v2_sub(b, a);
    double l2 = v2_len2(ab);
    double fat = fmin(1.0, 2.0 * rad); /* lines thinner than a pixel are drawn fainter */
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            v2 p = v2_make(x + 0.5, y + 0.5);
            v2 ap = v2_sub(p, a);
            double t = l2 > 0.0 ? v2_dot(ap, ab) / l2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            double dist = v2_dist(p, v2_madd(a, t, ab));
            double cv = (rad + 0.5 - dist) * fat;
            if (cv <= 0.0)
                continue;
            if (cv > fat)
                cv = fat;
            float *q = cov + (size_t)y * w + x;
            if (cv > *q)
                *q = (float)cv;
        }
}

void charm_draw_rope(uint8_t *rgba, int w, int h, const v2 *pts, int n, double width, const uint8_t rgb[3],
                     float *cov)
{
    if (n < 2 || w < 1 || h < 1)
        return;
    memset(cov, 0, (size_t)w * h * sizeof *cov);
    double rad = 0.5 * width;
    for (int i = 0; i + 1 < n; i++) {
        v2 p0 = pts[i > 0 ? i - 1 : 0], p1 = pts[i], p2 = pts[i + 1], p3 = pts[i + 2 < n ? i + 2 : n - 1];
        double len = v2_dist(p1, p2);
        int sub = (int)ceil(len / 3.0);
        if (sub < 1) sub = 1;
        if (sub > 16) sub = 16;
        if (!isfinite(len))
            continue;
        v2 a = p1;
        for (int s = 1; s <= sub; s++) {
            v2 b = s == sub ? p2 : catmull(p0, p1, p2, p3, (double)s / sub);
            cover_segment(cov, w, h, a, b, rad);
            a = b;
        }
    }
    /* the stamp goes over the rope: out = stamp + rope (1 - stamp alpha) */
    for (size_t i = 0; i < (size_t)w * h; i++) {
        float cr = cov[i];
        if (cr <= 0.0f)
            continue;
        uint8_t *d = rgba + 4 * i;
        float sa = d[3] / 255.0f, ra = cr * (1.0f - sa), oa = sa + ra;
        if (oa <= 0.0f)
            continue;
        for (int ch = 0; ch < 3; ch++) {
            float v = (d[ch] * sa + rgb[ch] * ra) / oa;
            d[ch] = (uint8_t)(v + 0.5f);
        }
        float av = oa * 255.0f + 0.5f;
        d[3] = (uint8_t)(av > 255.0f ? 255.0f : av);
    }
}

/* The rope of frame f drawn under the stamp already in rgba. */
typedef struct rope_layer {
    const charm_def *def;
    const charm_clip *clip;
    float *cov;
} rope_layer;

static void draw_rope_under(void *user, int f, uint8_t *rgba, int w, int h)
{
    const rope_layer *l = user;
    charm_draw_rope(rgba, w, h, l->clip->rope + (size_t)f * l->clip->npoints, l->clip->npoints, l->def->rope_width,
                    l->def->rope_rgb, l->cov);
}

poyo_status charm_render(const charm_def *def, const charm_clip *clip, anim *out, poyo_error *err)
{
    int W = def->width, H = def->height;
    memset(out, 0, sizeof *out);
    float *cov = malloc((size_t)W * H * sizeof *cov);
    if (!cov)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d canvas", W, H);
    rope_layer rl = { def, clip, cov };
    clip_view v = { clip->n > 0 ? &clip->stamp : NULL, &clip->lat, clip->place, W, H, def->fps, def->loop,
                    def->threads, draw_rope_under, &rl, NULL };
    poyo_status st = clip_render(&v, clip->x, clip->y, clip->n, clip->count, out, err);
    free(cov);
    return st;
}
