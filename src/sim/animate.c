/* animate.c - the main job: the kicked body is the clip engine's driver
 * (clip.h films it: one-shot impulses until the body settles, eased back to
 * rest; periodic drives as one steady-state period), then rendered. */
#include "animate.h"

#include "clip.h"
#include "geom/vec2.h"
#include "util/workers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

animate_def animate_default_def(void)
{
    animate_def d;
    d.grid = 12;
    d.body = softbody_default_def();
    /* a stamp rings a little longer than a plain body: its wobble stays lively to the end of the clip */
    d.body.damping = 0.08;
    d.anchor_auto = 1;
    d.impulse = impulse_default_def();
    d.fps = 25.0;
    d.duration = 0.0;
    d.max_duration = 2.0;
    d.max_grows = 1;
    d.width = 0;
    d.height = 0;
    d.fit = FIT_AUTO;
    d.loop = 0;
    d.threads = 1;
    return d;
}

poyo_status animate_check_def(const animate_def *d, poyo_error *err)
{
    if (d->grid < LATTICE_GRID_MIN || d->grid > LATTICE_GRID_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--grid: must be %d to %d, not %d", LATTICE_GRID_MIN, LATTICE_GRID_MAX,
                         d->grid);
    poyo_status st = poyo_check_range(err, "--fps", d->fps, ANIM_FPS_MIN, ANIM_FPS_MAX, "");
    if (st == POYO_OK && d->duration != 0.0)
        st = poyo_check_range(err, "--duration", d->duration, ANIM_DURATION_MIN, ANIM_DURATION_MAX, "seconds");
    if (st != POYO_OK)
        return st;
    if (d->width < 0 || d->width > ANIM_SIDE_MAX || d->height < 0 || d->height > ANIM_SIDE_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--size: must be 1 to %d pixels per side, not %dx%d", ANIM_SIDE_MAX,
                         d->width, d->height);
    if (d->threads < 1 || d->threads > 8)
        return poyo_fail(err, POYO_ERR_USAGE, "render threads must be 1 to 8, not %d", d->threads);
    if (d->loop < 0 || d->loop > ANIM_LOOP_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--loop: must be 0 to %d, not %d", ANIM_LOOP_MAX, d->loop);
    st = softbody_check_def(&d->body, err);
    if (st != POYO_OK)
        return st;
    impulse_def imp = d->impulse;
    st = impulse_resolve(&imp, d->body.hz, err);
    if (st != POYO_OK)
        return st;
    /* a body that falls onto the floor cannot hang: held by its top, a
     * jump or a drop tore off whatever the pins held */
    const impulse_info *info = impulse_get_info(imp.kind);
    if (info->has_floor && !d->anchor_auto && d->body.anchor == ANCHOR_TOP)
        return poyo_fail(err, POYO_ERR_USAGE,
                         "--anchor: must be bottom, none or auto for %s (hanging, it tears as it falls), not top",
                         info->name);
    return POYO_OK;
}

void motion_free(motion *m)
{
    if (!m)
        return;
    lattice_free(&m->lat);
    render_source_free(&m->made);
    free(m->x);
    free(m->y);
    free(m->qx);
    free(m->qy);
    memset(m, 0, sizeof *m);
}

void motion_drop_source(motion *m) { render_source_free(&m->made); }

void motion_take(motion *m, clip_frames *c)
{
    m->x = c->x;
    m->y = c->y;
    m->count = c->count;
    m->periodic = c->periodic;
    m->settled = c->settled;
    free(c->e);
    memset(c, 0, sizeof *c);
}

/* The clip engine's driver: the body and what kicked it (the impulse acts
 * through the body's own callbacks). */
typedef struct kicked {
    softbody *sb;
    impulse_run *run;
    double fps;
    const lattice *lat;
    double *tmp; /* lat->op_n scratch numbers for body_moved (NULL: not measured) */
} kicked;

static void body_step(void *user, long f)
{
    kicked *k = user;
    softbody_step_frame(k->sb);
    impulse_frame_end(k->run, (f + 1) / k->fps);
}

static void body_capture(void *user, double *x, double *y, double *e)
{
    kicked *k = user;
    (void)e;
    softbody_positions(k->sb, x, y);
}

static int body_in_flight(void *user)
{
    const kicked *k = user;
    return impulse_in_flight(k->run);
}

static int body_restart(void *user, double lead)
{
    kicked *k = user;
    int steps = softbody_steps(k->sb), ahead = (int)lround(lead * steps);
    if (ahead <= 0 || ahead >= steps)
        return 0; /* a frame of one solver step has no part to run */
    impulse_restart(k->run, k->sb);
    for (int s = 0; s < ahead; s++)
        softbody_step(k->sb);
    return 1;
}

static int body_retune(void *user, const clip_frames *c, double *off)
{
    kicked *k = user;
    return impulse_retune(k->run, k->sb, c->x, c->y, c->count, off);
}

static double body_moved(void *user, const double *ax, const double *ay, const double *bx, const double *by)
{
    kicked *k = user;
    return impulse_pose_step(k->lat, ax, ay, bx, by, k->tmp);
}

/* Canvas pixels per image pixel of a still emoji on def's canvas. */
static double def_scale(const image *src, const animate_def *def)
{
    int W = def->width ? def->width : src->w, H = def->height ? def->height : src->h;
    return fmin((double)W / src->w, (double)H / src->h);
}

/* The body the impulse acts on: its anchor the impulse's own unless given; a
 * body that lands is calibrated standing (*land set) and let go after. */
softbody_def animate_body_for(const animate_def *def, const impulse_info *info, int *land)
{
    softbody_def body = def->body;
    if (def->anchor_auto)
        body.anchor = info->anchor;
    /* a body that lands on a floor wobbles as if standing on it: calibrate it
     * anchored at the bottom, then let it go */
    *land = info->has_floor && body.anchor == ANCHOR_NONE;
    if (*land)
        body.anchor = ANCHOR_BOTTOM;
    return body;
}

/* Walls for the nodes: the canvas's inner box wall (image pixels) less a
 * canvas pixel for the curves drawn between nodes; each node may pass them by
 * its own reach past the visible pixels (impulse_set_walls). With two canvas
 * pixels a twisted triangle's tip stayed off the canvas's edge, but a squash
 * pressed against the walls lost more of its area. */
void animate_set_walls(impulse_run *run, softbody *sb, const double wall[4], double scale)
{
    double px = 1.0 / scale, w[4] = { wall[0] + px, wall[1] + px, wall[2] - px, wall[3] - px };
    impulse_set_walls(run, sb, w);
}

/* How long a periodic drive warms up at most before the period filmed, s.
 * The drive's trial measures the period the clip films, so the strength
 * holds on a body still settling; warmed up for as long as the steady
 * state took (12 s at most), three trials took a flag on a 48-node grid (a
 * --grid poyo took then) from 0.55 s to 8.5 s, and its pat tore. */
#define DRIVE_MAX_WARMUP 2.0

/* Kicks the body and says how its clip is filmed: one period of a periodic
 * drive, or a one-shot clip from rest until it is over. */
static void kick_and_plan(impulse_run *run, softbody *sb, const impulse_info *info, const softbody_def *body,
                          const animate_def *def, const motion *m, clip_def *cd)
{
    if (info->periodic) {
        int period = animate_drive_period(run, def);
        run->omega = 2.0 * PI * def->fps / period;
        /* the drive's trial measures the period after the same warm-up the clip films */
        run->period_frames = period;
        run->period_scale = cd->sx;
        run->warm_cap = (int)fmax(3.0, ceil(DRIVE_MAX_WARMUP * def->fps / period));
        run->may_take = 1;
        impulse_kick(run, sb);
        cd->kind = CLIP_PERIODIC;
        cd->period = period;
        cd->warm_periods = run->warm_periods;
        cd->start = run->period_start;
        cd->taken = run->taken;
        return;
    }
    run->cap_energy = animate_caps_energy(info, body);
    impulse_kick(run, sb);
    animate_plan_oneshot(def, body->hz, cd);
    cd->min_frames = animate_min_frames(def);
    cd->rest_x = m->qx;
    cd->rest_y = m->qy;
}

int animate_period_frames(double fps, double rate)
{
    long period = rate > 0.0 ? lround(fps / rate) : 2;
    return period < 2 ? 2 : (int)period;
}

int animate_drive_period(const impulse_run *run, const animate_def *def)
{
    return animate_period_frames(def->fps, run->def.rate);
}

void animate_plan_oneshot(const animate_def *def, double hz, clip_def *cd)
{
    cd->kind = CLIP_ONESHOT;
    /* a slower body's longest clip is as much longer as it takes its kicks
     * more slowly (impulse_slowness), unless a platform's rule fixed it:
     * held to 2 s, a squash at --hz 0.2 was cut before its first rebound and
     * eased home in a few frames, its largest step 9.4 times the median, and
     * at --hz 0.1 the clip ended before the palm had pressed half as deep as
     * asked */
    double longest = def->max_duration * (def->max_grows ? impulse_slowness(hz) : 1.0);
    clip_set_length(cd, def->duration, fmin(ANIM_DURATION_MAX, longest));
    /* over: for half a wobble the body stays within two fifths of its largest
     * excursion (and a pixel) of rest (a body that lands, from 0.2 s after
     * it is down: film_until_settled); the ease then brings it home */
    cd->still = INFINITY;
    cd->near = 1.0;
    cd->fade = 0.4;
    cd->quiet = (int)ceil(0.5 * def->fps / hz);
    cd->frame0_rest = 1; /* frame 0 is the still image */
    /* the ease lasts a fifth of the main wobble, at least 0.2 s: held to
     * 0.2 s, a squash on a body of --hz 0.2 was eased home from 5 px in four
     * frames, its largest step 3.6 times the median; grown to 0.6 s at
     * --hz 1, a free twist's end was slow enough that its median step fell,
     * and 55 of 65 stamps twisted free stepped more than 3 times it (11 with
     * 0.2 s) */
    cd->ease = (int)lround(fmax(0.2, 0.2 / hz) * def->fps);
    cd->ease_to_end = 1; /* home by the last frame, even when the clip ran to its longest */
}

/* The linear mode is not derived from a potential and can feed energy in.
 * Over an undamped body it does; at the default damping, past this --volume
 * too: at 0.8 a banana 1f34c poked at its default flailed its peel from 8 px
 * to 40 px off rest over 2 s, and at --strength 0.3 5 of 65 Twemoji still
 * flailed when the clip was cut at its longest (and 2 opened a hole). Capped,
 * none does. Capped at the default 0.3 too, on the images of tests/data a
 * free shake moved in 0.73 of its frames (not 0.77) and a poke reached 0.86
 * of its strength. */
#define ANIMATE_CAP_VOLUME 0.5

int animate_caps_energy(const impulse_info *info, const softbody_def *body)
{
    return !info->has_floor && (body->damping < 0.05 || body->volume > ANIMATE_CAP_VOLUME);
}

int animate_min_frames(const animate_def *def) { return (int)ceil(0.8 * def->fps); }

/* One simulation of the clip; with wall not NULL the nodes stay inside it
 * and lambda is the main wobble's eigenvalue the run without walls found. */
static poyo_status simulate_once(const image *src, const animate_def *def, const double *wall, double lambda,
                                 motion *m, poyo_error *err)
{
    memset(m, 0, sizeof *m);
    softbody *sb = NULL;
    impulse_run run;
    memset(&run, 0, sizeof run);
    poyo_status st = lattice_build(src, def->grid, &m->lat, err);
    if (st != POYO_OK)
        return st;
    const impulse_info *info = impulse_get_info(def->impulse.kind);
    if (!info) {
        st = poyo_fail(err, POYO_ERR_USAGE, "unknown impulse");
        goto fail;
    }
    int land;
    softbody_def body = animate_body_for(def, info, &land);
    st = softbody_create(&m->lat, &body, &sb, err);
    if (st != POYO_OK)
        goto fail;
    st = impulse_begin(&run, &def->impulse, sb, &m->lat, src->w, src->h, err);
    if (st != POYO_OK)
        goto fail;
    m->strength = run.def.strength;
    if (wall)
        impulse_expect_walls(&run, sb);
    st = wall ? softbody_calibrate_lambda(sb, lambda, def->fps, err)
              : softbody_calibrate(sb, run.px, run.py, def->fps, err);
    if (st != POYO_OK)
        goto fail;
    if (land) {
        softbody_unpin_all(sb);
        run.lands = 1;
    }
    if (wall)
        animate_set_walls(&run, sb, wall, def_scale(src, def));
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    m->n = n;
    m->steps = softbody_steps(sb);
    m->lambda = softbody_lambda(sb);
    m->qx = malloc((size_t)n * sizeof(double));
    m->qy = malloc((size_t)n * sizeof(double));
    if (!m->qx || !m->qy) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
        goto fail;
    }
    memcpy(m->qx, nd.qx, (size_t)n * sizeof(double));
    memcpy(m->qy, nd.qy, (size_t)n * sizeof(double));
    kicked kick = { sb, &run, def->fps, &m->lat, malloc((size_t)(m->lat.op_n + 1) * sizeof(double)) };
    /* a body that flies is filmed once: its landing is not restarted */
    clip_driver drv = { &kick, n, 0, body_step, body_capture, NULL, NULL, body_in_flight, land ? NULL : body_restart,
                        kick.tmp ? body_moved : NULL, land ? NULL : body_retune };
    clip_def cd;
    memset(&cd, 0, sizeof cd);
    cd.width = def->width ? def->width : src->w;
    cd.height = def->height ? def->height : src->h;
    cd.sx = cd.sy = def_scale(src, def);
    cd.fps = def->fps;
    cd.snap = 1.0;
    kick_and_plan(&run, sb, info, &body, def, m, &cd);
    clip_frames c;
    st = clip_film(&cd, &drv, &c, err);
    free(kick.tmp);
    if (st != POYO_OK)
        goto fail;
    motion_take(m, &c);
    impulse_end(&run);
    softbody_destroy(sb);
    return POYO_OK;
fail:
    impulse_end(&run);
    softbody_destroy(sb);
    motion_free(m);
    return st;
}

/* The smallest share of a still emoji's size the stamp may shrink to so that
 * its motion stays on the canvas: 0.86 in place, 0.76 for jumps and drops,
 * 0.62 for long shapes (one side 3 times the other) jumping or dropping, at
 * the default strength or below (times sqrt(default / strength) above it;
 * asked NAN: the default). Motion that needs more room is kept inside by the
 * canvas's edges. */
static double fill_floor(const impulse_info *info, const lattice *lat, double asked)
{
    double w = lat->bx1 - lat->bx0, h = lat->by1 - lat->by0;
    double floor = !info->has_floor ? 0.86 : fmax(w, h) >= 3.0 * fmin(w, h) ? 0.62 : 0.76;
    /* a stronger kick than the default may shrink the stamp further, so it keeps its strength */
    double d = impulse_default_strength(info, lat);
    return asked > d ? floor * sqrt(d / asked) : floor;
}

/* The run inside walls (part 0) and the source for its placement (part 1). */
typedef struct rerun {
    const image *src;
    const animate_def *def;
    const double *wall;
    double lambda;         /* the main wobble's eigenvalue the first run found */
    motion *m;
    poyo_status st;
    poyo_error *err;
    placement place;
    int w, h;
    render_source made;    /* empty when it could not be made: the renderer makes its own */
} rerun;

static void rerun_part(void *arg, int i)
{
    rerun *r = arg;
    if (i == 0) {
        r->st = simulate_once(r->src, r->def, r->wall, r->lambda, r->m, r->err);
    } else {
        poyo_error ignored;
        if (render_source_make(r->src, r->w, r->h, r->place, &r->made, &ignored) != POYO_OK)
            render_source_free(&r->made);
    }
}

/* How many times a walled run is filmed again with the walls moved in, at most. */
#define WALL_TRIES 2

/* The walls hold the picture's points between the nodes as the nodes' bilinear
 * blend, but the frames draw the spline through them, which bulges further
 * where the lattice bends hard: the snake 1f40d on a 3-node grid twisted,
 * or patted with --damping 0, drew on the canvas's outermost pixels (2.2 and
 * 3.2 canvas pixels past the walls). When what motion m draws (render_bounds,
 * less its half-pixel blend) passes inner (the canvas's inner box, image
 * pixels) by more than half a canvas pixel (sx, sy: canvas pixels per image
 * pixel), moves each wall it passes in by as much and a canvas pixel more,
 * and returns 1 (at the defaults, no walled clip of a Twemoji passes them,
 * so none is filmed again). 0 when no wall moves, or *st (from
 * render_bounds) is not POYO_OK. */
static int walls_move_in(const motion *m, const double inner[4], double sx, double sy, double wall[4],
                         poyo_status *st, poyo_error *err)
{
    double drawn[4] = { 1e300, 1e300, -1e300, -1e300 };
    *st = render_bounds(&m->lat, m->x, m->y, (size_t)m->n, m->count, drawn, err);
    if (*st != POYO_OK)
        return 0;
    double past[4] = { inner[0] - drawn[0], inner[1] - drawn[1], drawn[2] - inner[2], drawn[3] - inner[3] };
    int moved = 0;
    for (int a = 0; a < 4; a++) {
        double scale = a % 2 ? sy : sx, over = past[a] - 0.5; /* render_bounds' blend, image pixels */
        if (over * scale <= 0.5)
            continue;
        double in = over + 1.0 / scale;
        wall[a] += a < 2 ? in : -in;
        moved = 1;
    }
    return moved;
}

/* A squash held in by the canvas's edges that loses more than this share of
 * its picture's area presses again less deep, to lose SQUASH_WALLED_AREA_AIM
 * (see shallower_in_walls). */
#define SQUASH_WALLED_AREA_MAX 0.048
#define SQUASH_WALLED_AREA_AIM 0.04

/* The area the picture covers with the nodes at (x, y): each cell's quad
 * weighted by the share of its pixels that are opaque, image pixels. */
static double picture_area(const lattice *l, const double *x, const double *y)
{
    double sum = 0.0;
    for (int cj = 0; cj + 1 < l->ny; cj++)
        for (int ci = 0; ci + 1 < l->nx; ci++) {
            float share = l->cell_opaque[(size_t)cj * (l->nx - 1) + ci];
            int k[4] = { l->index[cj * l->nx + ci], l->index[cj * l->nx + ci + 1], l->index[(cj + 1) * l->nx + ci + 1],
                         l->index[(cj + 1) * l->nx + ci] };
            if (share <= 0.0f || k[0] < 0 || k[1] < 0 || k[2] < 0 || k[3] < 0)
                continue;
            double a = 0.0;
            for (int e = 0; e < 4; e++)
                a += x[k[e]] * y[k[(e + 1) % 4]] - x[k[(e + 1) % 4]] * y[k[e]];
            sum += share * 0.5 * fabs(a);
        }
    return sum;
}

/* The largest share of the picture's area at rest that a frame of m loses. */
static double area_lost(const motion *m)
{
    const lattice *l = &m->lat;
    double a0 = picture_area(l, m->qx, m->qy), lost = 0.0;
    for (int f = 0; a0 > 0.0 && f < m->count; f++)
        lost = fmax(lost, 1.0 - picture_area(l, m->x + (size_t)f * m->n, m->y + (size_t)f * m->n) / a0);
    return lost;
}

/* A squash held in by the canvas's edges (wall) whose picture, pressed as
 * deep as asked, loses more than SQUASH_WALLED_AREA_MAX of its area (m):
 * pressed again as much less deep as it lost more than
 * SQUASH_WALLED_AREA_AIM, the strength asked kept as m's. A square that
 * fills its canvas has no room to bulge: the keycap 0034-fe0f-20e3 lost
 * 5.3 % of its area at the 0.16 asked, and 3.8 % at 0.146. */
static poyo_status shallower_in_walls(const image *src, const animate_def *def, const double wall[4], double lambda,
                                      motion *m, poyo_error *err)
{
    if (def->impulse.kind != IMPULSE_SQUASH)
        return POYO_OK;
    double lost = area_lost(m);
    if (!(lost > SQUASH_WALLED_AREA_MAX))
        return POYO_OK;
    animate_def shallower = *def;
    double asked = m->strength;
    shallower.impulse.strength = fmax(0.5 * asked, asked - (lost - SQUASH_WALLED_AREA_AIM));
    motion_free(m);
    poyo_status st = simulate_once(src, &shallower, wall, lambda, m, err);
    m->strength = asked;
    return st;
}

/* How much of a free stretch's dip below its rest the canvas keeps room for
 * when the stretch does not fit, canvas pixels (see room_above_stretch). */
#define STRETCH_ROOM_BELOW 2.5

/* A free body stretched up from its held bottom, too tall for the canvas at
 * its smallest size: its tallest frame rises from where it rests, and only
 * the wobble after it dips below, less deep. Centred, the whole motion's
 * overflow was shared between the top and the bottom, and the walls cut the
 * stretch: the ruler 1f4d0 reached 0.84 of the stretch asked, with 3 canvas
 * pixels left empty below it. The body is moved down (never up) until
 * STRETCH_ROOM_BELOW pixels of its dip are left below it (or its motion's
 * top is at the canvas's): with none, resting on the wall below, the Tokyo
 * tower's legs slid along it as it sprang back, its largest step 3.6 times
 * the median. p: the placement render_fit made (h: the canvas's height;
 * box: the motion's bounding box and rest_bottom the body's bottom at rest,
 * image pixels). */
static void room_above_stretch(placement *p, int h, const double box[4], double rest_bottom)
{
    double below = fmin(fmax(0.0, (box[3] - rest_bottom) * p->sy), STRETCH_ROOM_BELOW);
    int oy = (int)floor(h - 1.0 - below - p->sy * rest_bottom + 1e-9);
    double top = 1.0 - p->sy * box[1]; /* the offset that puts the motion's top on the canvas's */
    if (oy > top)
        oy = (int)ceil(top - 1e-9);
    if (oy > p->oy)
        p->oy = oy;
}

poyo_status animate_simulate(const image *src, const animate_def *def, motion *m, poyo_error *err)
{
    poyo_status st = simulate_once(src, def, NULL, 0.0, m, err);
    if (st != POYO_OK)
        return st;
    int W = def->width ? def->width : src->w, H = def->height ? def->height : src->h;
    const impulse_info *info = impulse_get_info(def->impulse.kind);
    impulse_def imp = def->impulse;
    if (impulse_resolve(&imp, def->body.hz, err) != POYO_OK) {
        motion_free(m);
        return POYO_ERR_USAGE;
    }
    /* the bounding box of what the frames draw, image pixels */
    double box[4] = { 1e300, 1e300, -1e300, -1e300 };
    st = render_bounds(&m->lat, m->x, m->y, (size_t)m->n, m->count, box, err);
    if (st != POYO_OK) {
        motion_free(m);
        return st;
    }
    /* motion too tall for the canvas keeps the bottom in view (a floor, an
     * anchor, the palm under a free squash), but a free body stretched up
     * from its held bottom is centred, then moved down to give its stretch
     * the room above (room_above_stretch): with the whole motion's bottom
     * kept in view, its top pressed flat against the canvas's edge at two
     * thirds of the stretch asked */
    int fits = 1, land;
    int keep_bottom = imp.kind != IMPULSE_STRETCH || animate_body_for(def, info, &land).anchor != ANCHOR_NONE;
    placement place = render_fit(src->w, src->h, W, H, def->fit, box,
                                 fill_floor(info, &m->lat, def->impulse.strength), keep_bottom, &fits);
    if (!fits && !keep_bottom)
        room_above_stretch(&place, H, box, m->lat.by1);
    int walled = 0;
    if (!fits && def->fit == FIT_AUTO) {
        /* at the smallest size allowed the motion still leaves the canvas: run it again inside walls */
        double wall[4], rest[4] = { m->lat.bx0, m->lat.by0, m->lat.bx1, m->lat.by1 };
        render_keep_rest(&place, W, H, rest);
        render_inner_box(place, W, H, wall);
        rerun r = { src, def, wall, m->lambda, m, POYO_OK, err, place, W, H, { 0 } };
        motion_free(m);
        /* the source the frames are drawn from depends on the placement
         * alone: made on another thread while the walled run films */
        workers_run(2, def->threads, rerun_part, &r);
        double inner[4]; /* the walls before any moved in */
        memcpy(inner, wall, sizeof inner);
        for (int tries = 0; r.st == POYO_OK && tries < WALL_TRIES; tries++) {
            if (!walls_move_in(m, inner, place.sx, place.sy, wall, &r.st, err))
                break;
            motion_free(m);
            r.st = simulate_once(src, def, wall, r.lambda, m, err);
        }
        if (r.st == POYO_OK)
            r.st = shallower_in_walls(src, def, wall, r.lambda, m, err);
        if (r.st != POYO_OK) {
            render_source_free(&r.made);
            motion_free(m);
            return r.st;
        }
        m->made = r.made;
        memcpy(m->wall, wall, sizeof m->wall);
        walled = 1;
    }
    m->place = place;
    m->canvas_w = W;
    m->canvas_h = H;
    m->walled = walled;
    return POYO_OK;
}

poyo_status animate_render(const image *src, const motion *m, const animate_def *def, anim *out, poyo_error *err)
{
    int W = def->width ? def->width : src->w, H = def->height ? def->height : src->h;
    placement p = m->place;
    if (W != m->canvas_w || H != m->canvas_h) {
        /* another canvas (a smaller one for a byte budget): the same placement, scaled */
        double r = fmin((double)W / m->canvas_w, (double)H / m->canvas_h);
        p.pw = (int)floor(m->place.pw * r + 1e-9);
        p.ph = (int)floor(m->place.ph * r + 1e-9);
        if (p.pw < 1) p.pw = 1;
        if (p.ph < 1) p.ph = 1;
        p.sx = (double)p.pw / src->w;
        p.sy = (double)p.ph / src->h;
        p.ox = (int)floor(m->place.ox * r + 0.5 * (W - m->canvas_w * r) + 0.5);
        p.oy = (int)floor(m->place.oy * r + 0.5 * (H - m->canvas_h * r) + 0.5);
    }
    clip_view v = { src, &m->lat, p, W, H, def->fps, def->loop, def->threads, NULL, NULL, &m->made };
    return clip_render(&v, m->x, m->y, m->n, m->count, out, err);
}
