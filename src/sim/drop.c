/* drop.c - a shape-matching soft body (Müller et al. 2005) dropped into a 2-D
 * distance field: contacts projected out along the gradient, restitution, and
 * Coulomb friction on velocities and positions as position based dynamics does. */
#include "drop.h"

#include "clip.h"
#include "geom/vec2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

drop_def drop_default_def(void)
{
    drop_def d;
    sdf_def s = sdf_default_def();
    d.width = 256;
    d.height = 256;
    d.stamp_size = 0.3;
    d.at = v2_make(0.5, 0.25);
    d.velocity = v2_make(0.0, 0.0);
    d.spin = 0.0;
    d.tilt = 0.0;
    d.gravity = 3.0;
    d.restitution = s.restitution;
    d.friction = s.friction;
    d.grid = 12;
    d.body = softbody_default_def();
    d.body.anchor = ANCHOR_NONE;
    d.fps = 25.0;
    d.duration = 0.0;
    d.max_duration = 8.0;
    d.hold = 0.6;
    d.loop = 0;
    d.threads = 1;
    d.draw_scene = 1;
    d.scene_rgb[0] = 0x5f;
    d.scene_rgb[1] = 0x6b;
    d.scene_rgb[2] = 0x7a;
    return d;
}

static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

poyo_status drop_check_def(const drop_def *d, poyo_error *err)
{
    if (d->width < 1 || d->width > ANIM_SIDE_MAX || d->height < 1 || d->height > ANIM_SIDE_MAX)
        return poyo_fail(err, POYO_ERR_USAGE, "--size: must be 1 to %d pixels per side, not %dx%d", ANIM_SIDE_MAX,
                         d->width, d->height);
    poyo_status st = poyo_check_range(err, "--stamp-size", d->stamp_size, DROP_STAMP_SIZE_MIN, 1.0, "");
    if (st != POYO_OK)
        return st;
    if (d->stamp_size * fmin(d->width, d->height) < 2.0)
        return poyo_fail(err, POYO_ERR_USAGE, "--stamp-size: %g gives a stamp under 2 pixels on a %dx%d canvas",
                         d->stamp_size, d->width, d->height);
    if (!in_range(d->at.x, -DROP_AT_MAX, DROP_AT_MAX) || !in_range(d->at.y, -DROP_AT_MAX, DROP_AT_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--at: must be %g to %g canvas fractions in both coordinates, not %g,%g",
                         -DROP_AT_MAX, DROP_AT_MAX, d->at.x, d->at.y);
    if (!in_range(d->velocity.x, -DROP_VELOCITY_MAX, DROP_VELOCITY_MAX) ||
        !in_range(d->velocity.y, -DROP_VELOCITY_MAX, DROP_VELOCITY_MAX))
        return poyo_fail(err, POYO_ERR_USAGE, "--velocity: must be %g to %g in both coordinates, not %g,%g",
                         -DROP_VELOCITY_MAX, DROP_VELOCITY_MAX, d->velocity.x, d->velocity.y);
    if (st == POYO_OK) st = poyo_check_range(err, "--spin", d->spin, -DROP_SPIN_MAX, DROP_SPIN_MAX, "degrees per second");
    if (st == POYO_OK) st = poyo_check_range(err, "--tilt", d->tilt, -DROP_TILT_MAX, DROP_TILT_MAX, "degrees");
    if (st == POYO_OK) st = poyo_check_range(err, "--gravity", d->gravity, -DROP_GRAVITY_MAX, DROP_GRAVITY_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--restitution", d->restitution, 0.0, 1.0, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--friction", d->friction, 0.0, DROP_FRICTION_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--grid", d->grid, LATTICE_GRID_MIN, LATTICE_GRID_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "--fps", d->fps, ANIM_FPS_MIN, ANIM_FPS_MAX, "");
    if (st == POYO_OK && d->duration != 0.0)
        st = poyo_check_range(err, "--duration", d->duration, ANIM_DURATION_MIN, ANIM_DURATION_MAX, "seconds");
    if (st == POYO_OK)
        st = poyo_check_range(err, "the longest clip", d->max_duration, ANIM_DURATION_MIN, ANIM_DURATION_MAX, "seconds");
    if (st == POYO_OK) st = poyo_check_range(err, "--hold", d->hold, 0.0, DROP_HOLD_MAX, "seconds");
    if (st == POYO_OK) st = poyo_check_range(err, "--loop", d->loop, 0, ANIM_LOOP_MAX, "");
    if (st == POYO_OK) st = poyo_check_range(err, "render threads", d->threads, 1, 8, "");
    return st == POYO_OK ? softbody_check_def(&d->body, err) : st;
}

void drop_motion_free(drop_motion *m)
{
    if (!m)
        return;
    lattice_free(&m->lat);
    free(m->x);
    free(m->y);
    memset(m, 0, sizeof *m);
}

v2 drop_node_canvas(const drop_motion *m, int f, int k)
{
    size_t i = (size_t)f * m->n + k;
    return v2_make(m->place.sx * m->x[i] + m->place.ox, m->place.sy * m->y[i] + m->place.oy);
}

#define SUPPORT_N 360

/* What the contact pass needs. Rest shapes are in canvas pixels around the
 * rest centroid of the nodes. */
typedef struct world {
    const sdf_scene *scene;
    placement place;
    const double *rx, *ry;   /* rest node offsets */
    const double *support;   /* SUPPORT_N samples of max dot(P, u) over the opaque pixels, u at angle 2 pi i / N */
    double margin;           /* canvas pixels kept between the opaque pixels and a surface */
    double restitution, friction;
    double dt;               /* seconds per solver step */
    v2 contact;              /* sum of the outward normals at the nodes that touched in the last call */
} world;

/* t shortened by len (never past zero). */
static v2 shrink(v2 t, double len)
{
    double l = v2_len(t);
    return l > len ? v2_scale(t, 1.0 - len / l) : v2_make(0.0, 0.0);
}

/* The part of v along the surface with unit normal n. */
static v2 tangential(v2 v, v2 n) { return v2_madd(v, -v2_dot(v, n), n); }

/* Coulomb friction on a velocity: the sliding part loses at most friction * dvn,
 * where dvn >= 0 is the normal speed the contact just added. */
static v2 coulomb(v2 v, v2 n, double dvn, double friction)
{
    return v2_madd(shrink(tangential(v, n), friction * fmax(dvn, 0.0)), v2_dot(v, n), n);
}

/* The support function of the opaque pixels in direction u (rest frame). */
static double support_at(const double *h, v2 u)
{
    double a = atan2(u.y, u.x) * (SUPPORT_N / (2.0 * PI));
    if (a < 0.0)
        a += SUPPORT_N;
    int i = (int)a;
    double t = a - i;
    i %= SUPPORT_N;
    return h[i] + t * (h[(i + 1) % SUPPORT_N] - h[i]);
}

/* Contact radius of node k against a surface whose outward normal is n: a node that
 * sticks out beyond the opaque pixels towards the surface may sink in by as much,
 * so that the drawn body, not its lattice, touches the surface. Never positive. */
static double contact_radius(const world *w, int k, v2 n, double c, double s)
{
    v2 u = v2_neg(n);
    v2 ur = v2_make(c * u.x + s * u.y, -s * u.x + c * u.y); /* into the rest frame */
    double stick = w->rx[k] * ur.x + w->ry[k] * ur.y - support_at(w->support, ur);
    return fmin(0.0, w->margin - stick);
}

/* Sphere tracing from p along the unit dir for len: 1 and the distance in *t when the
 * path comes within eps of a surface, or crawls along one so closely that the steps
 * run out (a graze counts as a touch); 0 when it gets through. */
static int trace(const sdf_scene *scene, v2 p, v2 dir, double len, double eps, double *t)
{
    double s = 0.0;
    for (int i = 0; i < 64; i++) {
        double d = sdf_eval(scene, v2_madd(p, s, dir));
        if (!(d >= eps)) {
            *t = s;
            return 1;
        }
        s += d;
        if (s >= len)
            return 0;
    }
    *t = s;
    return 1;
}

/* The body's turn from its rest shape, as a cosine and a sine (the closed-form
 * 2-D polar decomposition of its nodes about their centre). */
static void body_turn(const world *w, const double *x, const double *y, int n, double *cos_out, double *sin_out)
{
    const placement *pl = &w->place;
    double mx = 0, my = 0;
    for (int k = 0; k < n; k++) {
        mx += pl->sx * x[k];
        my += pl->sy * y[k];
    }
    mx /= n;
    my /= n;
    double c = 0, s = 0;
    for (int k = 0; k < n; k++) {
        double px = pl->sx * x[k] - mx, py = pl->sy * y[k] - my;
        c += px * w->rx[k] + py * w->ry[k];
        s += w->rx[k] * py - w->ry[k] * px;
    }
    double cl = hypot(c, s);
    if (cl > 1e-12 && isfinite(cl)) {
        c /= cl;
        s /= cl;
    } else {
        c = 1.0;
        s = 0.0;
    }
    *cos_out = c;
    *sin_out = s;
}

/* Node k at *pp (scene units), d inside the scene, moving at *vp: pushed out to
 * its contact radius on the side it came from, with restitution and friction.
 * 0 when it may stay where it is. */
static int collide_inside(world *w, int k, double d, double c, double s, v2 *pp, v2 *vp)
{
    v2 p = *pp, v = *vp, v0 = v;
    v2 n0 = sdf_normal(w->scene, p);
    double r = contact_radius(w, k, n0, c, s);
    if (r < 0.0) {
        /* probe the solid at the allowed depth below the surface point: in a shape
         * thinner than that, sink at most a quarter of the way through, or the
         * node would cross the middle and be pushed out on the far side */
        double dq = sdf_eval(w->scene, v2_madd(p, r - d, n0));
        if (dq > r + 1e-6 * (1.0 - r))
            r = fmax(r, -0.25 * (-r - dq));
    }
    if (!(d < r))
        return 0;
    v2 prev = v2_madd(p, -w->dt, v0), nrm;
    v2 nprev = sdf_normal(w->scene, prev);
    if (v2_dot(nprev, n0) < 0.0) {
        /* past the middle of a thin shape: back to the side the node came from */
        p = prev;
        nrm = nprev;
        double vn = v2_dot(v, nrm);
        if (vn < 0.0)
            v = v2_madd(v, -(1.0 + w->restitution) * vn, nrm);
    } else {
        sdf_collide(w->scene, r, w->restitution, 0.0, &p, &v);
        nrm = sdf_normal(w->scene, p);
    }
    w->contact = v2_add(w->contact, nrm);
    /* friction on positions too (as position based dynamics does): the step's slide
     * along the surface is held back by up to friction times the step's motion into
     * it, so a body can stand on a slope instead of creeping down it */
    v2 step = v2_scale(v0, w->dt), slide = tangential(step, nrm);
    p = v2_add(v2_sub(p, slide), shrink(slide, w->friction * fmax(-v2_dot(step, nrm), 0.0)));
    v = coulomb(v, nrm, v2_dot(v2_sub(v, v0), nrm), w->friction);
    *pp = p;
    *vp = v;
    return 1;
}

/* A node outside everything at *pp, moving at *vp: when its step passed through
 * a thin shape it stops at the surface; 0 when it did not. */
static int collide_swept(world *w, v2 *pp, v2 *vp)
{
    v2 p = *pp, v = *vp, v0 = v;
    const double eps = 1e-3;
    v2 prev = v2_madd(p, -w->dt, v);
    v2 step = v2_sub(p, prev);
    double len = v2_len(step), t;
    if (!(len > 1e-9))
        return 0;
    v2 dir = v2_scale(step, 1.0 / len), hit;
    /* a node touching a surface may leave it */
    if (sdf_eval(w->scene, prev) < eps && v2_dot(dir, sdf_normal(w->scene, prev)) >= 0.0)
        return 0;
    if (!trace(w->scene, prev, dir, len, eps, &t))
        return 0;
    hit = v2_madd(prev, t, dir);
    v2 nrm = sdf_normal(w->scene, hit);
    if (v2_dot(nrm, dir) >= 0.0)
        nrm = v2_neg(dir);
    /* stop at the surface, keep what friction leaves of the slide in the rest of the step */
    v2 rest = v2_scale(step, 1.0 - t / len);
    rest = shrink(tangential(rest, nrm), w->friction * fmax(-v2_dot(rest, nrm), 0.0));
    p = v2_madd(v2_add(hit, rest), 0.01, nrm);
    w->contact = v2_add(w->contact, nrm);
    double vn = v2_dot(v, nrm);
    if (vn < 0.0)
        v = v2_madd(v, -(1.0 + w->restitution) * vn, nrm);
    v = coulomb(v, nrm, v2_dot(v2_sub(v, v0), nrm), w->friction);
    *pp = p;
    *vp = v;
    return 1;
}

static void collide(world *w, double *x, double *y, double *vx, double *vy, int n)
{
    w->contact = v2_make(0.0, 0.0);
    const placement *pl = &w->place;
    double c, s;
    body_turn(w, x, y, n, &c, &s);
    for (int k = 0; k < n; k++) {
        v2 p = v2_make(pl->sx * x[k] + pl->ox, pl->sy * y[k] + pl->oy);
        v2 v = v2_make(pl->sx * vx[k], pl->sy * vy[k]);
        if (!isfinite(p.x) || !isfinite(p.y))
            continue;
        double d = sdf_eval(w->scene, p);
        if (!(d < 0.0 ? collide_inside(w, k, d, c, s, &p, &v) : collide_swept(w, &p, &v)))
            continue;
        x[k] = (p.x - pl->ox) / pl->sx;
        y[k] = (p.y - pl->oy) / pl->sy;
        vx[k] = v.x / pl->sx;
        vy[k] = v.y / pl->sy;
    }
}

/* In contact, the motions that the soft body's damping leaves alone in free flight
 * are damped too: the spin about the centroid at the body's own rate (so rocking and
 * rolling die out like the wobble), and the motion along the contact normal at that
 * rate plus one that leaves about the restitution's share of the landing speed after
 * half a wobble (so the restitution sets how high the whole body rebounds). Sliding
 * is left to friction. */
static void damp_contact(softbody *sb, const world *w)
{
    v2 nrm = v2_normalize(w->contact);
    if (v2_len2(nrm) == 0.0)
        return;
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    nrm = v2_normalize(v2_make(nrm.x / w->place.sx, nrm.y / w->place.sy)); /* into image pixels */
    double e = fmax(w->restitution, 1e-3);
    double cdamp = softbody_step_damping(sb);
    double k = 1.0 - (1.0 - cdamp) * exp(2.0 * softbody_get_def(sb)->hz * log(e) * softbody_dt(sb));
    double cx = 0, cy = 0, un = 0;
    for (int i = 0; i < n; i++) {
        cx += nd.x[i];
        cy += nd.y[i];
        un += nd.vx[i] * nrm.x + nd.vy[i] * nrm.y;
    }
    cx /= n;
    cy /= n;
    un *= k / n;
    double L = 0, I = 0;
    for (int i = 0; i < n; i++) {
        double rx = nd.x[i] - cx, ry = nd.y[i] - cy;
        L += rx * nd.vy[i] - ry * nd.vx[i];
        I += rx * rx + ry * ry;
    }
    double om = I > 1e-300 ? cdamp * L / I : 0.0;
    for (int i = 0; i < n; i++) {
        double rx = nd.x[i] - cx, ry = nd.y[i] - cy;
        nd.vx[i] -= un * nrm.x - om * ry;
        nd.vy[i] -= un * nrm.y + om * rx;
    }
}

/* Support function of the opaque pixels (alpha >= 128) of im scaled by (sx, sy) around
 * (gx, gy): h[i] = max dot(P, u_i) over the pixels' corners. Only the first and last
 * opaque pixel of each row can be extreme. Returns 0 when no pixel is opaque. */
static int opaque_support(const image *im, double sx, double sy, double gx, double gy, double *h)
{
    int any = 0;
    for (int i = 0; i < SUPPORT_N; i++)
        h[i] = -INFINITY;
    for (int yy = 0; yy < im->h; yy++) {
        const uint8_t *row = im->rgba + (size_t)yy * (size_t)im->w * 4u;
        int a = -1, b = -1;
        for (int xx = 0; xx < im->w; xx++)
            if (row[4 * xx + 3] >= 128) {
                if (a < 0)
                    a = xx;
                b = xx;
            }
        if (a < 0)
            continue;
        any = 1;
        double cx[2] = { sx * (a - gx), sx * (b + 1 - gx) }, cy[2] = { sy * (yy - gy), sy * (yy + 1 - gy) };
        for (int i = 0; i < SUPPORT_N; i++) {
            double th = 2.0 * PI * i / SUPPORT_N, ux = cos(th), uy = sin(th);
            double best = fmax(cx[0] * ux, cx[1] * ux) + fmax(cy[0] * uy, cy[1] * uy);
            if (best > h[i])
                h[i] = best;
        }
    }
    return any;
}

/* Where the rest image sits: scaled so the visible box's longer side is the stamp
 * size, its visible box centred on the canvas (so the visible part is inside). */
static placement place_stamp(const image *src, const lattice *lat, const drop_def *def)
{
    double box[4] = { lat->bx0, lat->by0, lat->bx1, lat->by1 };
    return clip_place(src->w, src->h, box, def->stamp_size * fmin(def->width, def->height), def->width, def->height);
}

/* The dropped body as the clip engine's driver: contacts are resolved after
 * each solver step rather than through softbody_set_collide, because the soft body damps
 * all motion of a body in contact (so a landing settles in place), while a
 * dropped body must keep sliding and rolling; restitution and friction take
 * the energy out instead. */
typedef struct dropped {
    softbody *sb;
    world *w;
    const drop_def *def;
} dropped;

static void dropped_step(void *user, long f)
{
    dropped *d = user;
    (void)f;
    softbody_nodes nd = softbody_view(d->sb);
    int steps = softbody_steps(d->sb);
    for (int s = 0; s < steps; s++) {
        softbody_step(d->sb);
        collide(d->w, nd.x, nd.y, nd.vx, nd.vy, nd.n);
        damp_contact(d->sb, d->w);
    }
}

static void dropped_capture(void *user, double *x, double *y, double *e)
{
    const dropped *d = user;
    (void)e;
    softbody_positions(d->sb, x, y);
}

/* Gone for good: outside the canvas and moving (or pulled) away. */
static int dropped_gone(void *user)
{
    const dropped *d = user;
    softbody_nodes nd = softbody_view(d->sb);
    const placement *pl = &d->w->place;
    double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY, mvx = 0, mvy = 0;
    for (int k = 0; k < nd.n; k++) {
        double cx = pl->sx * nd.x[k] + pl->ox, cy = pl->sy * nd.y[k] + pl->oy;
        bx0 = fmin(bx0, cx);
        bx1 = fmax(bx1, cx);
        by0 = fmin(by0, cy);
        by1 = fmax(by1, cy);
        mvx += nd.vx[k];
        mvy += nd.vy[k];
    }
    double g = d->def->gravity;
    int W = d->def->width, H = d->def->height;
    return (by0 > H && mvy >= 0 && g >= 0) || (by1 < 0 && mvy <= 0 && g <= 0) || (bx0 > W && mvx >= 0) ||
           (bx1 < 0 && mvx <= 0);
}

/* The squash of a body standing on its bottom edge, which a landing excites
 * (px, py, for the calibration), and each node's offset from the centre of
 * its nodes (gx, gy) in canvas pixels (rx, ry, for the collisions). */
static void landing_shape(const softbody_nodes *nd, const lattice *lat, const placement *pl, double gx, double gy,
                          double *px, double *py, double *rx, double *ry)
{
    int n = nd->n;
    double top = nd->qy[0], bottom = nd->qy[0];
    for (int k = 1; k < n; k++) {
        top = fmin(top, nd->qy[k]);
        bottom = fmax(bottom, nd->qy[k]);
    }
    double size = fmax(bottom - top, lat->h);
    for (int k = 0; k < n; k++) {
        px[k] = (nd->qx[k] - gx) * (bottom - nd->qy[k]) / size;
        py[k] = bottom - nd->qy[k];
        rx[k] = pl->sx * (nd->qx[k] - gx);
        ry[k] = pl->sy * (nd->qy[k] - gy);
    }
}

/* The start: the body tilted about its visible centre, which goes to def->at,
 * moving at def->velocity and spinning at def->spin. */
static void start_pose(const softbody_nodes *nd, const lattice *lat, const placement *pl, const drop_def *def)
{
    int W = def->width, H = def->height;
    double cx = 0.5 * (lat->bx0 + lat->bx1), cy = 0.5 * (lat->by0 + lat->by1);
    double tx = (def->at.x * W - pl->ox) / pl->sx, ty = (def->at.y * H - pl->oy) / pl->sy;
    double a = def->tilt * PI / 180.0, ca = cos(a), sa = sin(a);
    double om = def->spin * PI / 180.0;
    double v0x = def->velocity.x * W / pl->sx, v0y = def->velocity.y * H / pl->sy;
    for (int k = 0; k < nd->n; k++) {
        double dx = nd->qx[k] - cx, dy = nd->qy[k] - cy;
        double ux = ca * dx - sa * dy, uy = sa * dx + ca * dy;
        nd->x[k] = tx + ux;
        nd->y[k] = ty + uy;
        nd->vx[k] = v0x - om * uy;
        nd->vy[k] = v0y + om * ux;
    }
}

/* A one-shot clip until the body rests, leaves or the clip is long enough. */
static clip_def drop_clip(const drop_def *def, const placement *pl)
{
    clip_def cd;
    memset(&cd, 0, sizeof cd);
    cd.kind = CLIP_ONESHOT;
    cd.width = def->width;
    cd.height = def->height;
    cd.sx = pl->sx;
    cd.sy = pl->sy;
    cd.fps = def->fps;
    clip_set_length(&cd, def->duration, def->max_duration);
    cd.min_frames = (int)ceil(0.5 * def->fps);
    /* at rest: nothing moves a twentieth of a canvas pixel a frame for 0.2 s */
    cd.still = 0.05;
    cd.quiet = (int)ceil(0.2 * def->fps);
    return cd;
}

poyo_status drop_simulate(const image *src, const sdf_scene *scene, const drop_def *def, drop_motion *m,
                          poyo_error *err)
{
    memset(m, 0, sizeof *m);
    softbody *sb = NULL;
    double *buf = NULL;
    poyo_status st;
    if (!src || !src->rgba || !scene || !def)
        return poyo_fail(err, POYO_ERR_USAGE, "drop needs an image, a scene and a definition");
    if ((st = drop_check_def(def, err)) != POYO_OK)
        return st;
    if ((st = lattice_build(src, def->grid, &m->lat, err)) != POYO_OK)
        return st;
    softbody_def body = def->body;
    /* a dropped body spends its time standing on something: calibrate its wobble
     * anchored at the bottom (as the main job's landing impulses do), then free it */
    body.anchor = ANCHOR_BOTTOM;
    int W = def->width, H = def->height;
    m->place = place_stamp(src, &m->lat, def);
    const placement *pl = &m->place;
    /* solver steps: a node should move at most about two canvas pixels per step */
    double vmax = sqrt(2.0 * fabs(def->gravity) * H * (double)(W + H)) + hypot(def->velocity.x * W, def->velocity.y * H) +
                  fabs(def->spin) * PI / 180.0 * def->stamp_size * fmin(W, H);
    double need = ceil(vmax / def->fps / 2.0);
    if (need > body.substeps)
        body.substeps = need > 64 ? 64 : (int)need;
    if ((st = softbody_create(&m->lat, &body, &sb, err)) != POYO_OK)
        goto fail;
    softbody_nodes nd = softbody_view(sb);
    int n = nd.n;
    m->n = n;
    buf = malloc(((size_t)4 * n + SUPPORT_N) * sizeof *buf);
    if (!buf) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
        goto fail;
    }
    double *px = buf, *py = buf + n, *rx = buf + 2 * n, *ry = buf + 3 * n, *support = buf + 4 * n;
    double gx = 0, gy = 0;
    for (int k = 0; k < n; k++) {
        gx += nd.qx[k];
        gy += nd.qy[k];
    }
    gx /= n;
    gy /= n;
    landing_shape(&nd, &m->lat, pl, gx, gy, px, py, rx, ry);
    if (!opaque_support(src, pl->sx, pl->sy, gx, gy, support)) {
        st = poyo_fail(err, POYO_ERR_INPUT, "no pixel is opaque enough to collide (alpha 128 or more)");
        goto fail;
    }
    if ((st = softbody_calibrate(sb, px, py, def->fps, err)) != POYO_OK)
        goto fail;
    softbody_unpin_all(sb);
    m->steps = softbody_steps(sb);
    /* half a pixel of margin covers the resampling of the drawn edge */
    world w = { scene, *pl, rx, ry, support, 0.5, def->restitution, def->friction, softbody_dt(sb), { 0.0, 0.0 } };
    softbody_set_gravity(sb, 0.0, def->gravity * H / pl->sy);
    start_pose(&nd, &m->lat, pl, def);
    dropped dr = { sb, &w, def };
    clip_driver drv = { &dr, n, 0, dropped_step, dropped_capture, dropped_gone, NULL, NULL, NULL, NULL, NULL };
    clip_def cd = drop_clip(def, pl);
    clip_frames c;
    if ((st = clip_film(&cd, &drv, &c, err)) != POYO_OK)
        goto fail;
    m->x = c.x;
    m->y = c.y;
    m->count = c.count;
    m->settled = c.settled;
    m->left = c.left;
    free(c.e);
    free(buf);
    softbody_destroy(sb);
    return POYO_OK;
fail:
    free(buf);
    softbody_destroy(sb);
    drop_motion_free(m);
    return st;
}

static double clamp01(double v) { return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v; }

void drop_paint_scene(const sdf_scene *scene, const unsigned char rgb[3], uint8_t *rgba, int w, int h)
{
    if (!scene || !rgb || !rgba || w <= 0 || h <= 0)
        return;
    double depth = 0.25 * (w < h ? w : h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            v2 g;
            double d = sdf_eval_grad(scene, v2_make(x + 0.5, y + 0.5), &g);
            uint8_t *o = rgba + ((size_t)y * (size_t)w + (size_t)x) * 4u;
            double gl = v2_len(g);
            double px = isfinite(d) ? d / fmax(gl, 0.1) : INFINITY;
            /* the solid, plus a one-pixel stroke so shapes of no width (bare segments) show */
            double cov = fmax(clamp01(0.5 - px), clamp01(1.0 - fabs(px)));
            if (cov <= 0.0) {
                memset(o, 0, 4);
                continue;
            }
            /* a little darker deep inside, so the surface reads as the lit edge */
            double shade = 1.0 - 0.22 * clamp01(-d / depth);
            for (int i = 0; i < 3; i++)
                o[i] = (uint8_t)lrint(rgb[i] * shade);
            o[3] = (uint8_t)lrint(cov * 255.0);
        }
}

/* Straight-alpha "over": src over dst, into dst. */
static void composite(uint8_t *dst, const uint8_t *src, size_t pixels)
{
    for (size_t i = 0; i < pixels; i++, dst += 4, src += 4) {
        unsigned as = src[3];
        if (as == 0)
            continue;
        if (as == 255 || dst[3] == 0) {
            memcpy(dst, src, 4);
            continue;
        }
        double a = as / 255.0, b = dst[3] / 255.0 * (1.0 - a), oa = a + b;
        for (int c = 0; c < 3; c++)
            dst[c] = (uint8_t)lrint((src[c] * a + dst[c] * b) / oa);
        dst[3] = (uint8_t)lrint(oa * 255.0);
    }
}

/* The stamp drawn into rgba put over the scene layer. */
typedef struct over_scene {
    const uint8_t *layer;
} over_scene;

static void stamp_over_scene(void *user, int f, uint8_t *rgba, int w, int h)
{
    const over_scene *o = user;
    (void)f;
    size_t px = (size_t)w * (size_t)h;
    for (size_t i = 0; i < px; i++) {
        uint8_t *p = rgba + 4 * i, out[4];
        memcpy(out, o->layer + 4 * i, 4);
        composite(out, p, 1);
        memcpy(p, out, 4);
    }
}

poyo_status drop_render(const image *src, const sdf_scene *scene, const drop_motion *m, const drop_def *def,
                        anim *out, poyo_error *err)
{
    int W = def->width, H = def->height;
    memset(out, 0, sizeof *out);
    uint8_t *layer = calloc((size_t)W * H, 4);
    if (!layer)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a %dx%d canvas", W, H);
    if (def->draw_scene && scene)
        drop_paint_scene(scene, def->scene_rgb, layer, W, H);
    over_scene os = { layer };
    clip_view v = { src, &m->lat, m->place, W, H, def->fps, def->loop, def->threads, stamp_over_scene, &os, NULL };
    poyo_status st = clip_render(&v, m->x, m->y, m->n, m->count, out, err);
    if (st == POYO_OK && m->settled) {
        long hold = lround(def->hold * def->fps);
        out->hold[m->count - 1] = hold > 1 ? (int)hold : 1;
    }
    free(layer);
    return st;
}
