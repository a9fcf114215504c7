/* stagger.c - parts of a stamp as bodies of their own joined by soft links
 * (links.c): each part kicked by the same impulse, placed where the whole
 * stamp is, started one after another (or phase-lagged, for a periodic
 * drive), all stepped together as one driver of the clip engine so that the
 * motion of one part pulls on its neighbours, and composited per frame. */
#include "stagger.h"

#include "links.h"
#include "geom/vec2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The links' frequency over the bodies' own and their damping ratio: a
 * neighbour follows a part about as readily as the part springs back. */
#define STAGGER_LINK_HZ 0.4
#define STAGGER_LINK_DAMPING 0.3

/* One part's body and the impulse that kicks it. */
typedef struct part_body {
    softbody *sb;
    impulse_run run;
    int steps;        /* solver steps per frame */
    int start;        /* frame the part starts moving; it is still before */
} part_body;

/* Every part stepped together: the clip engine's driver. */
typedef struct chain {
    int n;
    part_body p[STAGGER_MAX_PARTS];
    softbody_nodes nd[STAGGER_MAX_PARTS];
    int first[STAGGER_MAX_PARTS + 1]; /* each part's first node in the recorded frames; first[n] = all */
    links lk;
    long frame;       /* frames stepped */
    double fps;
} chain;

/* Builds part i's lattice (into m), body and impulse, calibrated and kicked;
 * wall (or NULL) keeps its nodes inside the canvas, drawn scale canvas pixels
 * per image pixel. */
static poyo_status part_begin(chain *c, int i, const image *src, const animate_def *def, const double *wall,
                              double scale, motion *m, poyo_error *err)
{
    part_body *p = &c->p[i];
    poyo_status st = lattice_build(src, def->grid, &m->lat, err);
    if (st != POYO_OK)
        return st;
    const impulse_info *info = impulse_get_info(def->impulse.kind);
    if (!info)
        return poyo_fail(err, POYO_ERR_USAGE, "unknown impulse");
    int land;
    softbody_def body = animate_body_for(def, info, &land);
    if ((st = softbody_create(&m->lat, &body, &p->sb, err)) != POYO_OK)
        return st;
    /* the parts of one stamp take one strength: a wide part (a long dash)
     * does not sway further than its neighbours (impulse_default_strength) */
    impulse_def imp = def->impulse;
    if (isnan(imp.strength))
        imp.strength = info->strength;
    if ((st = impulse_begin(&p->run, &imp, p->sb, &m->lat, src->w, src->h, err)) != POYO_OK)
        return st;
    m->strength = p->run.def.strength;
    if (wall)
        impulse_expect_walls(&p->run, p->sb);
    if ((st = softbody_calibrate(p->sb, p->run.px, p->run.py, def->fps, err)) != POYO_OK)
        return st;
    if (land) {
        softbody_unpin_all(p->sb);
        p->run.lands = 1;
    }
    if (wall)
        animate_set_walls(&p->run, p->sb, wall, scale);
    c->nd[i] = softbody_view(p->sb);
    m->n = c->nd[i].n;
    m->steps = p->steps = softbody_steps(p->sb);
    m->lambda = softbody_lambda(p->sb);
    m->qx = malloc((size_t)m->n * sizeof(double));
    m->qy = malloc((size_t)m->n * sizeof(double));
    if (!m->qx || !m->qy)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
    memcpy(m->qx, c->nd[i].qx, (size_t)m->n * sizeof(double));
    memcpy(m->qy, c->nd[i].qy, (size_t)m->n * sizeof(double));
    if (info->periodic)
        p->run.omega = 2.0 * PI * def->fps / animate_drive_period(&p->run, def);
    else
        p->run.cap_energy = animate_caps_energy(info, &body);
    impulse_kick(&p->run, p->sb);
    return POYO_OK;
}

/* One frame: every part that has started takes its solver steps, the steps
 * of all parts interleaved in time, each after the links' pull on it. */
static void chain_step(void *user, long f)
{
    chain *c = user;
    int done[STAGGER_MAX_PARTS] = { 0 };
    (void)f;
    for (;;) {
        int next = -1;
        double t_next = 2.0;
        for (int i = 0; i < c->n; i++) {
            double t = (done[i] + 0.5) / c->p[i].steps;
            if (c->frame >= c->p[i].start && done[i] < c->p[i].steps && t < t_next) {
                t_next = t;
                next = i;
            }
        }
        if (next < 0)
            break;
        links_pull(&c->lk, next, c->nd, softbody_dt(c->p[next].sb));
        softbody_step(c->p[next].sb);
        done[next]++;
    }
    for (int i = 0; i < c->n; i++)
        if (c->frame >= c->p[i].start)
            impulse_frame_end(&c->p[i].run, (c->frame - c->p[i].start + 1) / c->fps);
    c->frame++;
}

/* 1 while a part that flies has not landed (or not started). */
static int chain_in_flight(void *user)
{
    const chain *c = user;
    for (int i = 0; i < c->n; i++)
        if (impulse_in_flight(&c->p[i].run))
            return 1;
    return 0;
}

static void chain_capture(void *user, double *x, double *y, double *e)
{
    chain *c = user;
    (void)e;
    for (int i = 0; i < c->n; i++)
        softbody_positions(c->p[i].sb, x + c->first[i], y + c->first[i]);
}

/* Frees the bodies and the links. */
static void chain_free(chain *c)
{
    for (int i = 0; i < c->n; i++) {
        impulse_end(&c->p[i].run);
        softbody_destroy(c->p[i].sb);
    }
    links_free(&c->lk);
    free(c);
}

/* How the clip of all parts is filmed (as the main job's, animate.c): one
 * period of a periodic drive, or from rest until the last part has settled,
 * the parts starting s->delay frames apart. rest holds every part's rest
 * pose, in the order of the recorded frames. */
static void plan(const chain *c, const animate_def *def, const stagger *s, const double *rest_x,
                 const double *rest_y, clip_def *cd)
{
    const impulse_run *run = &c->p[0].run;
    if (run->info->periodic) {
        cd->kind = CLIP_PERIODIC;
        cd->period = animate_drive_period(run, def);
        return;
    }
    animate_plan_oneshot(def, softbody_get_def(c->p[0].sb)->hz, cd);
    int later = (c->n - 1) * s->delay;
    if (cd->fixed)
        cd->fixed += later;
    cd->max_frames += later;
    /* each part has wobbled a while since its start, and landed if it flies (chain_in_flight) */
    for (int i = 0; i < c->n; i++) {
        int min = c->p[i].start + animate_min_frames(def);
        if (min > cd->min_frames)
            cd->min_frames = min;
    }
    cd->rest_x = rest_x;
    cd->rest_y = rest_y;
}

/* Each part's frames out of the clip of all parts (whose arrays are freed). */
static poyo_status split_frames(const chain *c, clip_frames *cf, stagger *s, poyo_error *err)
{
    poyo_status st = POYO_OK;
    s->count = cf->count;
    for (int i = 0; i < c->n && st == POYO_OK; i++) {
        motion *m = &s->m[i];
        size_t len = (size_t)cf->count * (size_t)m->n;
        m->x = malloc(len * sizeof(double));
        m->y = malloc(len * sizeof(double));
        if (!m->x || !m->y) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the clip");
            break;
        }
        for (int f = 0; f < cf->count; f++) {
            size_t from = (size_t)f * (size_t)cf->n + (size_t)c->first[i];
            memcpy(m->x + (size_t)f * m->n, cf->x + from, (size_t)m->n * sizeof(double));
            memcpy(m->y + (size_t)f * m->n, cf->y + from, (size_t)m->n * sizeof(double));
        }
        m->count = cf->count;
        m->periodic = cf->periodic;
        m->settled = cf->settled;
    }
    clip_free(cf);
    return st;
}

/* Every part's rest pose, one after another; NULL when out of memory. */
static double *rest_of(const stagger *s, int total, int y)
{
    double *r = malloc((size_t)total * sizeof *r);
    for (int i = 0, at = 0; r && i < s->n; at += s->m[i].n, i++)
        memcpy(r + at, y ? s->m[i].qy : s->m[i].qx, (size_t)s->m[i].n * sizeof *r);
    return r;
}

/* Links the parts, plans the clip and films it. */
static poyo_status film(chain *c, const image *whole, const animate_def *def, stagger *s, poyo_error *err)
{
    const lattice *lat[STAGGER_MAX_PARTS];
    for (int i = 0; i < c->n; i++)
        lat[i] = &s->m[i].lat;
    poyo_status st = links_build(lat, c->nd, c->n, STAGGER_LINK_HZ * softbody_get_def(c->p[0].sb)->hz,
                                 STAGGER_LINK_DAMPING, &c->lk, err);
    if (st != POYO_OK)
        return st;
    int total = c->first[c->n];
    double *rx = rest_of(s, total, 0), *ry = rest_of(s, total, 1);
    if (!rx || !ry) {
        free(rx);
        free(ry);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
    }
    clip_def cd;
    memset(&cd, 0, sizeof cd);
    cd.width = def->width ? def->width : whole->w;
    cd.height = def->height ? def->height : whole->h;
    cd.sx = cd.sy = fmin((double)cd.width / whole->w, (double)cd.height / whole->h);
    cd.fps = def->fps;
    cd.snap = 1.0;
    plan(c, def, s, rx, ry, &cd);
    clip_driver drv = { c, total, 0, chain_step, chain_capture, NULL, NULL, chain_in_flight, NULL, NULL, NULL };
    clip_frames cf;
    st = clip_film(&cd, &drv, &cf, err);
    free(rx);
    free(ry);
    return st == POYO_OK ? split_frames(c, &cf, s, err) : st;
}

/* The frames between one part's start and the next's: a one-shot impulse
 * 0.1 s (all within 0.6 s), a periodic drive half a period over all parts. */
static int start_gap(const chain *c, const animate_def *def)
{
    int n = c->n;
    if (n < 2)
        return 0;
    if (c->p[0].run.info->periodic)
        return (int)lround(animate_drive_period(&c->p[0].run, def) / (2.0 * n));
    return (int)lround(fmin(0.1, 0.6 / (n - 1)) * def->fps);
}

poyo_status stagger_simulate(const image *whole, const image *parts, int n, const animate_def *def, stagger *out,
                             poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > STAGGER_MAX_PARTS)
        return poyo_fail(err, POYO_ERR_USAGE, "a stamp of %d parts (1 to %d)", n, STAGGER_MAX_PARTS);
    /* where the whole stamp sits with this motion: every part is placed there,
     * and kept inside the canvas's edges when the whole had to be */
    motion all;
    poyo_status st = animate_simulate(whole, def, &all, err);
    if (st != POYO_OK)
        return st;
    chain *c = calloc(1, sizeof *c);
    if (!c) {
        motion_free(&all);
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
    }
    c->fps = def->fps;
    double scale = fmin((double)all.canvas_w / whole->w, (double)all.canvas_h / whole->h);
    out->parts = parts;
    for (int i = 0; i < n && st == POYO_OK; i++) {
        c->n = out->n = i + 1;
        /* the whole's walls, moved in where its curves still reached the edge */
        st = part_begin(c, i, &parts[i], def, all.walled ? all.wall : NULL, scale, &out->m[i], err);
        c->first[i + 1] = c->first[i] + out->m[i].n;
        out->m[i].place = all.place;
        out->m[i].canvas_w = all.canvas_w;
        out->m[i].canvas_h = all.canvas_h;
        out->m[i].walled = all.walled;
    }
    motion_free(&all);
    if (st == POYO_OK) {
        out->periodic = c->p[0].run.info->periodic;
        out->delay = start_gap(c, def);
        for (int i = 0; i < n; i++)
            c->p[i].start = i * out->delay;
        st = film(c, whole, def, out, err);
    }
    chain_free(c);
    if (st != POYO_OK)
        stagger_free(out);
    return st;
}

poyo_status stagger_render(const stagger *s, const animate_def *def, anim *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    poyo_status st = POYO_OK;
    for (int i = 0; i < s->n && st == POYO_OK; i++) {
        anim a;
        st = animate_render(&s->parts[i], &s->m[i], def, &a, err);
        if (st != POYO_OK)
            break;
        if (i == 0)
            st = anim_init(out, a.width, a.height, s->count, a.fps, err);
        if (st == POYO_OK) {
            out->loop = a.loop;
            size_t px = (size_t)a.width * (size_t)a.height;
            for (int f = 0; f < s->count; f++) {
                uint8_t *dst = anim_frame(out, f);
                const uint8_t *src = anim_frame(&a, f);
                for (size_t p = 0; p < px; p++)
                    anim_blend_over(dst + 4 * p, src + 4 * p);
            }
        }
        anim_free(&a);
    }
    if (st != POYO_OK)
        anim_free(out);
    return st;
}

void stagger_free(stagger *s)
{
    for (int i = 0; i < s->n; i++)
        motion_free(&s->m[i]);
    s->n = 0;
}
