/* follow.c - carries a shape-matching soft body (Müller et al. 2005) along an
 * involute path: the nodes of a core around the centre are pinned to the
 * path's frame each solver step and the rest follows; closed and round-trip
 * clips run to their periodic steady state and the residual is spread over it. */
#include "follow.h"

#include "clip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 6000

follow_def follow_default_def(void)
{
    follow_def d;
    d.width = 256;
    d.height = 256;
    d.stamp_size = 0.3;
    d.duration = 2.0;
    d.fps = 25.0;
    d.mode = FOLLOW_ONCE;
    d.turn = 1;
    d.facing = NAN;
    d.core = 0.35;
    d.grid = 12;
    d.body = softbody_default_def();
    d.body.hz = 2.5;
    d.body.damping = 0.15;
    d.body.anchor = ANCHOR_NONE;
    d.max_hold = 2.0;
    d.loop = 0;
    d.threads = 1;
    return d;
}

int follow_trip_frames(const follow_def *def)
{
    double f = def->duration * def->fps;
    int n = f < MAX_FRAMES ? (int)lround(f) : MAX_FRAMES;
    return n < 2 ? 2 : n;
}

/* Frames the clip can have at most. */
static int max_frames(const follow_def *d)
{
    int n = follow_trip_frames(d);
    if (d->mode == FOLLOW_BOUNCE)
        return 2 * n;
    if (d->mode == FOLLOW_ONCE)
        return n + 1 + (int)ceil(d->max_hold * d->fps);
    return n;
}

poyo_status follow_check_def(const follow_def *d, poyo_error *err)
{
    if (d->width < 1 || d->width > ANIM_SIDE_MAX || d->height < 1 || d->height > ANIM_SIDE_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--size: must be 1 to %d pixels per side, not %dx%d", ANIM_SIDE_MAX,
                         d->width, d->height);
    if (!(d->stamp_size >= FOLLOW_STAMP_SIZE_MIN && d->stamp_size <= 1.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--stamp-size: must be %g to 1, not %g", FOLLOW_STAMP_SIZE_MIN,
                         d->stamp_size);
    if (!(d->duration >= ANIM_DURATION_MIN && d->duration <= ANIM_DURATION_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "one trip along the path must take %g to %g seconds, not %g",
                         ANIM_DURATION_MIN, ANIM_DURATION_MAX, d->duration);
    if (poyo_check_range(err, "--fps", d->fps, ANIM_FPS_MIN, ANIM_FPS_MAX, "") != POYO_OK)
        return POYO_ERR_USAGE;
    if (d->mode != FOLLOW_ONCE && d->mode != FOLLOW_LOOP && d->mode != FOLLOW_BOUNCE)
        return poyo_fail(err, POYO_ERR_USAGE, "unknown follow mode");
    if (!isnan(d->facing) && !isfinite(d->facing))
        return poyo_fail(err, POYO_ERR_USAGE, "--facing: must be a finite angle");
    if (poyo_check_range(err, "--core", d->core, FOLLOW_CORE_MIN, FOLLOW_CORE_MAX, "") != POYO_OK)
        return POYO_ERR_USAGE;
    if (d->grid < LATTICE_GRID_MIN || d->grid > LATTICE_GRID_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--grid: must be %d to %d, not %d", LATTICE_GRID_MIN, LATTICE_GRID_MAX,
                         d->grid);
    if (!(d->max_hold >= 0.0 && d->max_hold <= 10.0))
        return poyo_fail(err, POYO_ERR_USAGE, "the settling time must be 0 to 10 seconds, not %g", d->max_hold);
    if (d->loop < 0 || d->loop > ANIM_LOOP_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--loop: must be 0 to %d, not %d", ANIM_LOOP_MAX, d->loop);
    poyo_status st = softbody_check_def(&d->body, err);
    if (st != POYO_OK)
        return st;
    int frames = max_frames(d);
    if (frames > MAX_FRAMES)
        return poyo_fail(err, POYO_ERR_USAGE,
                         "the clip would have %d frames, more than %d; lower --fps or the duration", frames,
                         MAX_FRAMES);
    if (d->threads < 1 || d->threads > 8)
        return poyo_fail(err, POYO_ERR_USAGE, "render threads must be 1 to 8, not %d", d->threads);
    return clip_check_memory(frames, d->width, d->height, "--size, --fps or the duration", err);
}

placement follow_placement(int iw, int ih, const lattice *lat, const follow_def *d)
{
    double box[4] = { lat->bx0, lat->by0, lat->bx1, lat->by1 };
    return clip_place(iw, ih, box, d->stamp_size * fmin(d->width, d->height), d->width, d->height);
}

/* The path and body quantities a clip needs at every step. */
typedef struct run {
    const path *p;
    const follow_def *def;
    placement place;
    double len;          /* path length, canvas pixels */
    double trip;         /* seconds per trip, a whole number of frames */
    double facing;       /* radians */
    double cx, cy;       /* rest centre of the body, image pixels */
    int period;          /* frames per period (loop, bounce) */
} run;

/* Arc length at time t seconds. */
static double arc_at(const run *r, double t)
{
    double u = t / r->trip;
    switch (r->def->mode) {
    case FOLLOW_LOOP: u -= floor(u); break;
    case FOLLOW_BOUNCE:
        u = fmod(u, 2.0);
        if (u > 1.0)
            u = 2.0 - u;
        break;
    case FOLLOW_ONCE: u = fmin(u, 1.0); break;
    }
    return r->len * fmax(u, 0.0);
}

/* Rigid pose of the body at time t: node k sits at (x[k], y[k]), image pixels. */
static void pose(const run *r, const double *qx, const double *qy, int n, double t, double *x, double *y)
{
    v2 pos;
    double angle;
    path_eval(r->p, arc_at(r, t), &pos, &angle);
    double rot = r->def->turn ? angle - r->facing : 0.0;
    double c = cos(rot), s = sin(rot);
    double px = (pos.x - r->place.ox) / r->place.sx, py = (pos.y - r->place.oy) / r->place.sy;
    for (int k = 0; k < n; k++) {
        double dx = qx[k] - r->cx, dy = qy[k] - r->cy;
        x[k] = px + c * dx - s * dy;
        y[k] = py + s * dx + c * dy;
    }
}

/* Advances the body by one frame, from frame f to f + 1, moving the core's pins each step. */
static void step_frame(const run *r, softbody *sb, long f)
{
    double fps = r->def->fps;
    softbody_nodes nd = softbody_view(sb);
    int steps = softbody_steps(sb);
    for (int k = 0; k < steps; k++) {
        double t = ((double)f + (double)(k + 1) / steps) / fps;
        pose(r, nd.qx, nd.qy, nd.n, t, nd.pinx, nd.piny);
        softbody_step(sb);
    }
}

/* Pins the nodes within the core's radius of the centre, at least four (the nearest). */
static poyo_status pin_core(softbody *sb, const lattice *lat, const run *r, double core, poyo_error *err)
{
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    double size = fmax(lat->bx1 - lat->bx0, lat->by1 - lat->by0);
    double rad = 0.5 * core * size;
    double *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the soft body");
    for (int k = 0; k < n; k++) {
        d[k] = hypot(nd.qx[k] - r->cx, nd.qy[k] - r->cy);
        softbody_set_pinned(sb, k, d[k] <= rad);
    }
    int want = n < 4 ? n : 4, count = softbody_pinned_count(sb);
    while (count < want) {
        int best = -1;
        for (int k = 0; k < n; k++)
            if (!nd.pinned[k] && (best < 0 || d[k] < d[best]))
                best = k;
        softbody_set_pinned(sb, best, 1);
        count++;
    }
    free(d);
    if (count >= n)
        return poyo_fail(err, POYO_ERR_INPUT, "the whole shape is inside the core; lower --core or raise --grid");
    return POYO_OK;
}

/* The carried body as the clip engine's driver. */
typedef struct carried {
    const run *r;
    softbody *sb;
} carried;

static void carried_step(void *user, long f)
{
    carried *c = user;
    step_frame(c->r, c->sb, f);
}

static void carried_capture(void *user, double *x, double *y, double *e)
{
    const carried *c = user;
    (void)e;
    softbody_positions(c->sb, x, y);
}

/* Films the clip: one lap or round trip of the steady state (loop, bounce), or
 * the trip from rest and the settling at its end, eased into the rest pose there (once). */
static poyo_status film(const run *r, softbody *sb, motion *m, double *bx, double *by, poyo_error *err)
{
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    double dt = softbody_dt(sb);
    double fps = r->def->fps;
    carried cr = { r, sb };
    clip_driver drv = { &cr, n, 0, carried_step, carried_capture, NULL, NULL, NULL, NULL, NULL, NULL };
    clip_def cd;
    memset(&cd, 0, sizeof cd);
    cd.width = r->def->width;
    cd.height = r->def->height;
    cd.sx = r->place.sx;
    cd.sy = r->place.sy;
    cd.fps = fps;
    pose(r, nd.qx, nd.qy, n, 0.0, nd.x, nd.y);
    if (r->def->mode == FOLLOW_ONCE) {
        int trip = r->period;
        int hold_max = (int)ceil(r->def->max_hold * fps), hold_min = (int)ceil(0.2 * fps);
        if (hold_min > hold_max)
            hold_min = hold_max;
        pose(r, nd.qx, nd.qy, n, r->trip, bx, by); /* the rest pose at the end */
        cd.kind = CLIP_ONESHOT;
        cd.min_frames = trip + hold_min;
        cd.max_frames = trip + 1 + hold_max;
        cd.still = 0.25;
        cd.near = 0.25;
        cd.quiet = 1;
        cd.rest_x = bx;
        cd.rest_y = by;
        cd.ease = (int)lround(0.3 * fps);
        cd.ease_from = trip + 1;
        cd.ease_to_end = 1;
    } else {
        /* start moving rigidly with the path so the transient is small */
        pose(r, nd.qx, nd.qy, n, dt, bx, by);
        for (int k = 0; k < n; k++) {
            nd.vx[k] = (bx[k] - nd.x[k]) / dt;
            nd.vy[k] = (by[k] - nd.y[k]) / dt;
        }
        cd.kind = CLIP_PERIODIC;
        cd.period = r->period;
    }
    clip_frames c;
    poyo_status st = clip_film(&cd, &drv, &c, err);
    if (st != POYO_OK)
        return st;
    motion_take(m, &c);
    return POYO_OK;
}

poyo_status follow_simulate(const image *src, const path *p, const follow_def *def, motion *m, poyo_error *err)
{
    memset(m, 0, sizeof *m);
    softbody *sb = NULL;
    double *bx = NULL, *by = NULL, *px = NULL, *py = NULL;
    poyo_status st = follow_check_def(def, err);
    if (st != POYO_OK)
        return st;
    if (!p || !(path_length(p) > 0.0) || !isfinite(path_length(p)))
        return poyo_fail(err, POYO_ERR_USAGE, "the path has no length");
    st = lattice_build(src, def->grid, &m->lat, err);
    if (st != POYO_OK)
        goto done;
    softbody_def body = def->body;
    body.anchor = ANCHOR_NONE;
    st = softbody_create(&m->lat, &body, &sb, err);
    if (st != POYO_OK)
        goto done;
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    run r;
    r.p = p;
    r.def = def;
    r.place = follow_placement(src->w, src->h, &m->lat, def);
    r.len = path_length(p);
    int trip = follow_trip_frames(def);
    r.trip = trip / def->fps;
    r.period = def->mode == FOLLOW_BOUNCE ? 2 * trip : trip;
    if (isnan(def->facing))
        path_eval(p, 0.0, NULL, &r.facing);
    else
        r.facing = def->facing;
    r.cx = r.cy = 0;
    for (int k = 0; k < n; k++) {
        r.cx += nd.qx[k];
        r.cy += nd.qy[k];
    }
    r.cx /= n;
    r.cy /= n;
    st = pin_core(sb, &m->lat, &r, def->core, err);
    if (st != POYO_OK)
        goto done;
    bx = malloc((size_t)n * sizeof(double));
    by = malloc((size_t)n * sizeof(double));
    px = malloc((size_t)n * sizeof(double));
    py = malloc((size_t)n * sizeof(double));
    m->qx = malloc((size_t)n * sizeof(double));
    m->qy = malloc((size_t)n * sizeof(double));
    if (!bx || !by || !px || !py || !m->qx || !m->qy) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
        goto done;
    }
    /* the wobble a sideways push of the free part excites sets the time step */
    for (int k = 0; k < n; k++) {
        px[k] = 1.0;
        py[k] = 0.5;
    }
    st = softbody_calibrate(sb, px, py, def->fps, err);
    if (st != POYO_OK)
        goto done;
    m->n = n;
    m->steps = softbody_steps(sb);
    m->lambda = softbody_lambda(sb);
    memcpy(m->qx, nd.qx, (size_t)n * sizeof(double));
    memcpy(m->qy, nd.qy, (size_t)n * sizeof(double));
    st = film(&r, sb, m, bx, by, err);
done:
    free(bx);
    free(by);
    free(px);
    free(py);
    softbody_destroy(sb);
    if (st != POYO_OK)
        motion_free(m);
    return st;
}

poyo_status follow_render(const image *src, const motion *m, const follow_def *def, anim *out, poyo_error *err)
{
    clip_view v = { src, &m->lat, follow_placement(src->w, src->h, &m->lat, def), def->width, def->height, def->fps,
                    def->loop, def->threads, NULL, NULL, NULL };
    return clip_render(&v, m->x, m->y, m->n, m->count, out, err);
}
