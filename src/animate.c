/* animate.c - runs the main job: simulate the kicked body frame by frame,
 * make the clip loop (one-shot impulses settle and ease back to rest,
 * periodic drives give exactly one steady-state period), then render. */
#include "animate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

animate_def animate_default_def(void)
{
    animate_def d;
    d.grid = 12;
    d.body = softbody_default_def();
    d.anchor_auto = 1;
    d.impulse = impulse_default_def();
    d.fps = 25.0;
    d.duration = 0.0;
    d.max_duration = 6.0;
    d.width = 0;
    d.height = 0;
    d.fit = FIT_AUTO;
    d.loop = 0;
    d.threads = 1;
    return d;
}

poyo_status animate_check_def(const animate_def *d, poyo_error *err)
{
    if (d->grid < 3 || d->grid > 64)
        return poyo_fail(err, POYO_ERR_USAGE, "--grid must be 3 to 64, not %d", d->grid);
    if (!(d->fps >= 1.0 && d->fps <= 100.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--fps must be 1 to 100, not %g", d->fps);
    if (d->duration != 0.0 && !(d->duration >= 0.1 && d->duration <= 60.0))
        return poyo_fail(err, POYO_ERR_USAGE, "--duration must be 0.1 to 60 seconds, not %g", d->duration);
    if (d->width < 0 || d->width > 4096 || d->height < 0 || d->height > 4096)
        return poyo_fail(err, POYO_ERR_USAGE, "--size must be 1 to 4096 pixels per side");
    if (d->threads < 1 || d->threads > 8)
        return poyo_fail(err, POYO_ERR_USAGE, "render threads must be 1 to 8, not %d", d->threads);
    if (d->loop < 0 || d->loop > 65535)
        return poyo_fail(err, POYO_ERR_USAGE, "--loop must be 0 to 65535, not %d", d->loop);
    poyo_status st = softbody_check_def(&d->body, err);
    if (st != POYO_OK)
        return st;
    impulse_def imp = d->impulse;
    return impulse_resolve(&imp, err);
}

void motion_free(motion *m)
{
    if (!m)
        return;
    lattice_free(&m->lat);
    free(m->x);
    free(m->y);
    free(m->qx);
    free(m->qy);
    memset(m, 0, sizeof *m);
}

static int grow_frames(motion *m, int *cap, int need)
{
    if (need <= *cap)
        return 0;
    int nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    double *nx = realloc(m->x, (size_t)nc * m->n * sizeof(double));
    if (!nx)
        return -1;
    m->x = nx;
    double *ny = realloc(m->y, (size_t)nc * m->n * sizeof(double));
    if (!ny)
        return -1;
    m->y = ny;
    *cap = nc;
    return 0;
}

static void record(motion *m, const softbody *sb, int f)
{
    memcpy(m->x + (size_t)f * m->n, sb->x, (size_t)m->n * sizeof(double));
    memcpy(m->y + (size_t)f * m->n, sb->y, (size_t)m->n * sizeof(double));
}

static double smoothstep(double t) { return t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3.0 - 2.0 * t); }

poyo_status animate_simulate(const image *src, const animate_def *def, motion *m, poyo_error *err)
{
    memset(m, 0, sizeof *m);
    softbody *sb = NULL;
    impulse_run run;
    memset(&run, 0, sizeof run);
    poyo_status st = lattice_build(src, def->grid, &m->lat, err);
    if (st != POYO_OK)
        return st;
    softbody_def body = def->body;
    const impulse_info *info = impulse_get_info(def->impulse.kind);
    if (!info) {
        st = poyo_fail(err, POYO_ERR_USAGE, "unknown impulse");
        goto fail;
    }
    if (def->anchor_auto)
        body.anchor = info->anchor;
    /* a body that lands on a floor wobbles as if standing on it: calibrate it
     * anchored at the bottom, then let it go */
    int land = info->has_floor && body.anchor == ANCHOR_NONE;
    if (land)
        body.anchor = ANCHOR_BOTTOM;
    st = softbody_create(&m->lat, &body, &sb, err);
    if (st != POYO_OK)
        goto fail;
    st = impulse_begin(&run, &def->impulse, sb, &m->lat, src->w, src->h, err);
    if (st != POYO_OK)
        goto fail;
    st = softbody_calibrate(sb, run.px, run.py, def->fps, err);
    if (st != POYO_OK)
        goto fail;
    if (land)
        softbody_unpin_all(sb);
    int n = sb->n;
    m->n = n;
    m->steps = sb->steps;
    m->lambda = sb->lambda;
    m->qx = malloc((size_t)n * sizeof(double));
    m->qy = malloc((size_t)n * sizeof(double));
    if (!m->qx || !m->qy) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
        goto fail;
    }
    memcpy(m->qx, sb->qx, (size_t)n * sizeof(double));
    memcpy(m->qy, sb->qy, (size_t)n * sizeof(double));
    int W = def->width ? def->width : src->w, H = def->height ? def->height : src->h;
    double scale0 = fmin((double)W / src->w, (double)H / src->h);
    double tol = 0.25 / scale0; /* a quarter of an output pixel, in image pixels */
    double still = 0.3 / scale0; /* frame-to-frame motion no eye follows, in image pixels */
    int cap = 0, f = 0;
    if (info->periodic) {
        int period = (int)lround(def->fps / run.def.rate);
        if (period < 2)
            period = 2;
        run.omega = 2.0 * 3.14159265358979323846 * def->fps / period;
        impulse_kick(&run, sb);
        double *bx = malloc((size_t)n * sizeof(double)), *by = malloc((size_t)n * sizeof(double));
        if (!bx || !by) {
            free(bx);
            free(by);
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
            goto fail;
        }
        /* run whole periods until one period ends where the previous one did */
        int max_periods = (int)ceil(12.0 * def->fps / period);
        for (int p = 0; p < max_periods; p++) {
            memcpy(bx, sb->x, (size_t)n * sizeof(double));
            memcpy(by, sb->y, (size_t)n * sizeof(double));
            for (int k = 0; k < period; k++)
                softbody_step_frame(sb);
            double d = 0;
            for (int k = 0; k < n; k++)
                d = fmax(d, fmax(fabs(sb->x[k] - bx[k]), fabs(sb->y[k] - by[k])));
            if (p >= 1 && d < 0.1 * tol)
                break;
        }
        free(bx);
        free(by);
        if (grow_frames(m, &cap, period) != 0) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
            goto fail;
        }
        for (f = 0; f < period; f++) {
            record(m, sb, f);
            softbody_step_frame(sb);
        }
        m->count = period;
        m->periodic = 1;
    } else {
        impulse_kick(&run, sb);
        /* the cap guards undamped bodies; damping outruns what the linear mode can feed in */
        if (!info->has_floor && body.damping < 0.05)
            sb->energy_cap = softbody_energy(sb);
        int fixed = def->duration > 0.0;
        int maxf = (int)lround((fixed ? def->duration : def->max_duration) * def->fps);
        if (maxf < 2)
            maxf = 2;
        if (grow_frames(m, &cap, 1) != 0) {
            st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
            goto fail;
        }
        memcpy(m->x, m->qx, (size_t)n * sizeof(double)); /* frame 0 is the still image */
        memcpy(m->y, m->qy, (size_t)n * sizeof(double));
        int minf = (int)ceil(0.4 * def->fps);
        /* settled: no node moved more than tol per frame for a whole wobble period */
        int quiet_need = (int)ceil(def->fps / body.hz), quiet = 0;
        for (f = 1; f < maxf; f++) {
            softbody_step_frame(sb);
            if (grow_frames(m, &cap, f + 1) != 0) {
                st = poyo_fail(err, POYO_ERR_NOMEM, "out of memory for the simulation");
                goto fail;
            }
            record(m, sb, f);
            if (fixed || f < minf)
                continue;
            const double *px = m->x + (size_t)(f - 1) * n, *py = m->y + (size_t)(f - 1) * n;
            double mv = 0;
            for (int k = 0; k < n; k++)
                mv = fmax(mv, fmax(fabs(sb->x[k] - px[k]), fabs(sb->y[k] - py[k])));
            quiet = mv < still ? quiet + 1 : 0;
            if (quiet >= quiet_need) {
                m->settled = 1;
                f++;
                break;
            }
        }
        m->count = f;
        /* ease the last frames back to rest so the clip flows into frame 0 */
        int ease = (int)lround(0.3 * def->fps);
        if (ease > m->count / 3)
            ease = m->count / 3;
        if (ease < 1)
            ease = 1;
        int k0 = m->count - ease - 1;
        for (int k = k0 + 1; k < m->count; k++) {
            double w = smoothstep((double)(k - k0) / (m->count - k0));
            double *fx = m->x + (size_t)k * n, *fy = m->y + (size_t)k * n;
            for (int i = 0; i < n; i++) {
                fx[i] += w * (m->qx[i] - fx[i]);
                fy[i] += w * (m->qy[i] - fy[i]);
            }
        }
    }
    impulse_end(&run);
    softbody_destroy(sb);
    return POYO_OK;
fail:
    impulse_end(&run);
    softbody_destroy(sb);
    motion_free(m);
    return st;
}

poyo_status animate_render(const image *src, const motion *m, const animate_def *def, anim *out, poyo_error *err)
{
    int W = def->width ? def->width : src->w, H = def->height ? def->height : src->h;
    double box[4] = { 1e300, 1e300, -1e300, -1e300 };
    for (int f = 0; f < m->count; f++)
        render_bounds(&m->lat, m->x + (size_t)f * m->n, m->y + (size_t)f * m->n, box);
    placement place = render_fit(src->w, src->h, W, H, def->fit, box);
    renderer r;
    poyo_status st = renderer_init(&r, src, &m->lat, W, H, place, err);
    if (st != POYO_OK)
        return st;
    st = anim_init(out, W, H, m->count, def->fps, err);
    if (st != POYO_OK) {
        renderer_free(&r);
        return st;
    }
    out->loop = def->loop;
    st = renderer_draw_frames(&r, m->x, m->y, m->n, m->count, out->rgba, def->threads, err);
    renderer_free(&r);
    if (st != POYO_OK)
        anim_free(out);
    return st;
}
