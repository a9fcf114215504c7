/* clip.c - the clip engine: films a driver frame by frame (one-shot clips until
 * the body settles, eased back to rest; periodic drives as one steady-state
 * period with the seam closed), within one memory bound, and draws the frames
 * on several threads. */
#include "clip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/memclip.h"
#include "util/memlimit.h"
#include "util/rank.h"

poyo_status clip_check_memory(int frames, int w, int h, const char *shorter, poyo_error *err)
{
    memlimit_clip c = { 0, 0, frames, w, h, 0, FORMAT_AUTO, NULL, 0, 0, 0, 0, 0.0 };
    return memlimit_check_clip(&c, shorter, err);
}

void clip_set_length(clip_def *d, double duration, double max_duration)
{
    d->fixed = 0;
    if (duration > 0.0) {
        d->fixed = (int)lround(duration * d->fps);
        if (d->fixed < 2)
            d->fixed = 2;
    }
    d->max_frames = (int)lround(max_duration * d->fps);
}

placement clip_place(int iw, int ih, const double box[4], double side, int w, int h)
{
    double vw = fmax(box[2] - box[0], 1.0), vh = fmax(box[3] - box[1], 1.0);
    double s = side / fmax(vw, vh);
    /* transparent margins may spill off the canvas, but not without bound */
    s = fmin(s, 4.0 * fmax(w, h) / fmax(iw, ih));
    placement p;
    p.pw = (int)floor(s * iw + 0.5);
    p.ph = (int)floor(s * ih + 0.5);
    if (p.pw < 1)
        p.pw = 1;
    if (p.ph < 1)
        p.ph = 1;
    p.sx = (double)p.pw / iw;
    p.sy = (double)p.ph / ih;
    p.ox = (int)floor(0.5 * w - p.sx * 0.5 * (box[0] + box[2]) + 0.5);
    p.oy = (int)floor(0.5 * h - p.sy * 0.5 * (box[1] + box[3]) + 0.5);
    return p;
}

void clip_free(clip_frames *c)
{
    if (!c)
        return;
    free(c->x);
    free(c->y);
    free(c->e);
    memset(c, 0, sizeof *c);
}

/* Room for `need` frames; fails past the memory bound. */
static poyo_status reserve(clip_frames *c, int need, const clip_def *d, poyo_error *err)
{
    if (need <= c->cap)
        return POYO_OK;
    if (need * c->frame_bytes > (double)memlimit_get()) {
        char what[64];
        snprintf(what, sizeof what, "%d frames of %dx%d", need, d->width, d->height);
        return memlimit_check(need * c->frame_bytes, what, "--size, --fps or --duration", POYO_ERR_USAGE, err);
    }
    int nc = c->cap ? c->cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    size_t nodes = (size_t)nc * (size_t)c->n + 1, extras = (size_t)nc * (size_t)c->extra + 1;
    double *nx = realloc(c->x, nodes * sizeof *nx);
    if (nx)
        c->x = nx;
    double *ny = nx ? realloc(c->y, nodes * sizeof *ny) : NULL;
    if (ny)
        c->y = ny;
    double *ne = ny ? realloc(c->e, extras * sizeof *ne) : NULL;
    if (!ne)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for %d frames", need);
    c->e = ne;
    c->cap = nc;
    return POYO_OK;
}

static double *fx(const clip_frames *c, int f) { return c->x + (size_t)f * c->n; }
static double *fy(const clip_frames *c, int f) { return c->y + (size_t)f * c->n; }
static double *fe(const clip_frames *c, int f) { return c->e + (size_t)f * c->extra; }

/* Records the driver's state as frame f. */
static void record(clip_frames *c, const clip_driver *dr, int f)
{
    dr->capture(dr->user, fx(c, f), fy(c, f), fe(c, f));
}

/* Largest distance between two recorded states, canvas pixels (nodes scaled by
 * the placement, extras as they are). */
static double state_dist(const clip_def *d, int n, int ne, const double *ax, const double *ay, const double *ae,
                         const double *bx, const double *by, const double *be)
{
    double m = 0.0;
    for (int k = 0; k < n; k++)
        m = fmax(m, fmax(fabs(ax[k] - bx[k]) * d->sx, fabs(ay[k] - by[k]) * d->sy));
    for (int k = 0; k < ne; k++)
        m = fmax(m, fabs(ae[k] - be[k]));
    return m;
}

static int frame_finite(const clip_frames *c, int f)
{
    const double *x = fx(c, f), *y = fy(c, f), *e = fe(c, f);
    for (int k = 0; k < c->n; k++)
        if (!isfinite(x[k]) || !isfinite(y[k]))
            return 0;
    for (int k = 0; k < c->extra; k++)
        if (!isfinite(e[k]))
            return 0;
    return 1;
}

/* The rest pose of a one-shot clip: def's, or frame 0's where it gives none. */
static void rest_pose(const clip_frames *c, const clip_def *d, const double **rx, const double **ry,
                      const double **re)
{
    *rx = d->rest_x ? d->rest_x : fx(c, 0);
    *ry = d->rest_y ? d->rest_y : fy(c, 0);
    *re = d->rest_e ? d->rest_e : fe(c, 0);
}

/* How far frame f of a one-shot clip is from rest, canvas pixels. */
static double from_rest(const clip_frames *c, const clip_def *d, int f)
{
    const double *rx, *ry, *re;
    rest_pose(c, d, &rx, &ry, &re);
    return state_dist(d, c->n, c->extra, fx(c, f), fy(c, f), fe(c, f), rx, ry, re);
}

static double smoothstep(double t) { return t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3.0 - 2.0 * t); }

/* The last frames of a one-shot clip blended into the rest pose, so the clip flows on into it. */
static void ease_to_rest(clip_frames *c, const clip_def *d, const double *rx, const double *ry, const double *re)
{
    int ease = d->ease;
    if (d->ease_from > 0) {
        if (ease > c->count - d->ease_from)
            ease = c->count - d->ease_from;
        if (ease < 1)
            return;
    } else {
        if (ease > c->count / 3)
            ease = c->count / 3;
        if (ease < 1)
            ease = 1;
    }
    int k0 = c->count - ease - 1;
    int span = d->ease_to_end ? c->count - 1 - k0 : c->count - k0;
    for (int k = k0 + 1; k < c->count; k++) {
        double w = smoothstep((double)(k - k0) / span);
        double *x = fx(c, k), *y = fy(c, k), *e = fe(c, k);
        for (int i = 0; i < c->n; i++) {
            x[i] += w * (rx[i] - x[i]);
            y[i] += w * (ry[i] - y[i]);
        }
        for (int i = 0; i < c->extra; i++)
            e[i] += w * (re[i] - e[i]);
    }
}

/* From the start until the body settles, leaves, or the fixed length is reached. */
static poyo_status film_until_settled(const clip_def *d, const clip_driver *dr, clip_frames *c, poyo_error *err)
{
    int fixed = d->fixed > 0;
    int maxf = fixed ? d->fixed : d->max_frames;
    if (maxf < 2)
        maxf = 2;
    poyo_status st = reserve(c, 1, d, err);
    if (st != POYO_OK)
        return st;
    record(c, dr, 0);
    if (d->frame0_rest && d->rest_x) {
        memcpy(fx(c, 0), d->rest_x, (size_t)c->n * sizeof(double));
        memcpy(fy(c, 0), d->rest_y, (size_t)c->n * sizeof(double));
    }
    int quiet = 0, flew = 0, f;
    double peak = 0.0;
    for (f = 1; f < maxf; f++) {
        dr->step(dr->user, f - 1);
        if ((st = reserve(c, f + 1, d, err)) != POYO_OK)
            return st;
        record(c, dr, f);
        if (!frame_finite(c, f))
            return poyo_fail(err, POYO_ERR_INPUT, "the simulation became unstable at frame %d", f + 1);
        double away = 0.0;
        if (d->near > 0.0) {
            away = from_rest(c, d, f);
            peak = fmax(peak, away);
        }
        if (fixed)
            continue;
        if (dr->gone && dr->gone(dr->user)) {
            c->left = 1;
            f++;
            break;
        }
        if (dr->busy && dr->busy(dr->user)) {
            /* in the air: and once down, the ease does not start on the landing */
            quiet = -d->ease;
            flew = 1;
            continue;
        }
        /* a body that has landed counts its still frames from then on, before
         * min_frames too (it still lasts that long): counted from min_frames
         * only, the flag 1f6a9 dropped stood 3 to 4 px off rest for 9 frames
         * more before its ease, its landing step 3.5 times the median (2.2).
         * Any other body counts from min_frames: counted from where they
         * began, its clip ended there still wobbling a little, the ease drew
         * that in, and the OpenMoji custard 1F36E shoved free moved in 0.70
         * of its frames, not 0.80 */
        if (f < d->min_frames && !flew)
            continue;
        double mv = state_dist(d, c->n, c->extra, fx(c, f), fy(c, f), fe(c, f), fx(c, f - 1), fy(c, f - 1),
                               fe(c, f - 1));
        int ok = mv < d->still;
        if (ok && d->near > 0.0)
            ok = away < fmax(d->near, d->fade * peak);
        quiet = ok ? quiet + 1 : 0;
        if (quiet >= (d->quiet > 1 ? d->quiet : 1) && f >= d->min_frames) {
            c->settled = 1;
            f++;
            break;
        }
    }
    c->count = f;
    return POYO_OK;
}

/* Frames of a one-shot clip, before its last `ease` frames, within a pixel
 * of rest while the frames on either side are two pixels or more from it:
 * where a wobble passes through rest just as a frame is taken. */
static int frames_at_rest(const clip_frames *c, const clip_def *d)
{
    int at = 0, end = c->count - d->ease;
    if (end < 3)
        return 0;
    double before = from_rest(c, d, 0), now = from_rest(c, d, 1);
    for (int f = 1; f + 1 < end; f++) {
        double after = from_rest(c, d, f + 1);
        at += now < 1.0 && before >= 2.0 && after >= 2.0;
        before = now, now = after;
    }
    return at;
}

/* Frames within def->snap of frame 0 become copies of it. */
static void snap_to_first(clip_frames *c, const clip_def *d)
{
    for (int f = 1; f < c->count; f++)
        if (state_dist(d, c->n, c->extra, fx(c, f), fy(c, f), fe(c, f), c->x, c->y, c->e) < d->snap) {
            memcpy(fx(c, f), c->x, (size_t)c->n * sizeof(double));
            memcpy(fy(c, f), c->y, (size_t)c->n * sizeof(double));
            memcpy(fe(c, f), c->e, (size_t)c->extra * sizeof(double));
        }
}

/* 1 when frame f is a copy of frame 0. */
static int same_as_first(const clip_frames *c, int f)
{
    return !memcmp(fx(c, f), c->x, (size_t)c->n * sizeof(double)) &&
           !memcmp(fy(c, f), c->y, (size_t)c->n * sizeof(double)) &&
           !memcmp(fe(c, f), c->e, (size_t)c->extra * sizeof(double));
}

/* A one-shot clip that comes home before its end keeps one copy of frame 0
 * at the end: the loop rests there and on frame 0, not for a run of still frames. */
static void trim_rest_tail(clip_frames *c, const clip_def *d)
{
    while (c->count > 2 && c->count > d->min_frames && same_as_first(c, c->count - 1) &&
           same_as_first(c, c->count - 2))
        c->count--;
}

/* The largest step between the frames of a one-shot clip over their median
 * (the lower middle one), each as the driver's `moved` measures it: infinite
 * when most steps are none but one is not; NaN without that measure or when
 * memory is short. */
static double jump_of(const clip_frames *c, const clip_driver *dr)
{
    int n = c->count - 1;
    double *step = dr->moved && n >= 2 ? malloc((size_t)n * sizeof *step) : NULL;
    if (!step)
        return NAN;
    double most = 0.0;
    for (int f = 0; f < n; f++) {
        step[f] = dr->moved(dr->user, fx(c, f), fy(c, f), fx(c, f + 1), fy(c, f + 1));
        most = fmax(most, step[f]);
    }
    double median = rank_kth(step, n, (n + 1) / 2 - 1);
    free(step);
    return median > 0.0 ? most / median : most > 0.0 ? INFINITY : 0.0;
}

/* What a viewer sees wrong in a one-shot film: frames still in the middle
 * of the motion (frames_at_rest), and a step far larger than the rest (a
 * motion that jumps in one frame; its largest step over its median). */
typedef struct film_flaws {
    int at_rest;
    double jump;
} film_flaws;

/* A step more than this many times the median is a jump. */
#define CLIP_JUMP 3.0
/* A second film is kept for its smaller jump when it is smaller by this
 * share at least. Measured between the nodes' bilinear poses, the steps
 * differ from those of the frames drawn: the tower 1f5fc stretched free
 * jumped 3.32 times the median so measured and 3.30 filmed later, but its
 * frames 2.56 and 3.12 times. */
#define CLIP_JUMP_GAIN 0.9

/* Films one-shot clip *c until it settles, eased back to rest, its near-still
 * frames drawn as frame 0 and its still tail cut, and says what is wrong with
 * it when the driver can film it again. */
static poyo_status film_eased(const clip_def *d, const clip_driver *dr, clip_frames *c, film_flaws *flaws,
                              poyo_error *err)
{
    poyo_status st = film_until_settled(d, dr, c, err);
    if (st != POYO_OK)
        return st;
    if (d->ease > 0) {
        const double *rx, *ry, *re;
        rest_pose(c, d, &rx, &ry, &re);
        ease_to_rest(c, d, rx, ry, re);
    }
    if (d->snap > 0.0)
        snap_to_first(c, d);
    if (d->fixed <= 0 && d->frame0_rest)
        trim_rest_tail(c, d);
    if (dr->restart) {
        flaws->at_rest = frames_at_rest(c, d);
        flaws->jump = jump_of(c, dr);
    }
    return POYO_OK;
}

/* A one-shot clip, eased back to rest. Where the frames fall on the motion
 * decides what they show. A wobble of about a whole number of frames per half
 * period passes through rest at nearly the same moment of a frame each time:
 * when that moment is near a frame's, those frames show the stamp still in
 * the middle of its motion. And a fast swing (a dent springing back, a
 * release) moves further in one frame when the frame before it falls just
 * before it starts. When two or more frames are still mid-motion, or one step
 * is more than CLIP_JUMP times the median (not in a clip of a fixed length),
 * the motion is filmed again half a frame later (the driver restarted half a
 * frame ahead), and that film is kept if it has fewer still frames, or as
 * many and a jump (largest step over the median) smaller by a tenth; if it
 * cannot be made, the first is kept. */
static poyo_status film_oneshot(const clip_def *d, const clip_driver *dr, clip_frames *c, poyo_error *err)
{
    film_flaws first = { 0, NAN }, second = { 0, NAN };
    poyo_status st = film_eased(d, dr, c, &first, err);
    /* a clip of a fixed length may rest for most of it: its median step says nothing */
    int jumps = d->fixed <= 0 && first.jump > CLIP_JUMP;
    if (st != POYO_OK || !dr->restart || (first.at_rest < 2 && !jumps) || !dr->restart(dr->user, 0.5))
        return st;
    clip_frames later = { .n = c->n, .extra = c->extra, .frame_bytes = c->frame_bytes };
    poyo_error ignored;
    if (film_eased(d, dr, &later, &second, &ignored) == POYO_OK &&
        (second.at_rest < first.at_rest ||
         (second.at_rest == first.at_rest && second.jump < CLIP_JUMP_GAIN * first.jump))) {
        clip_free(c);
        *c = later;
    } else {
        clip_free(&later);
    }
    return POYO_OK;
}

/* How many times a one-shot clip is filmed again for a driver that retunes, at most. */
#define CLIP_RETUNES 3

/* The one-shot film *c measured by the driver, and filmed again while the
 * driver retunes itself (at most CLIP_RETUNES times); the film it finds
 * closest to what it was asked for is kept. */
static void film_retuned(const clip_def *d, const clip_driver *dr, clip_frames *c)
{
    double off;
    int again = dr->retune(dr->user, c, &off);
    for (int t = 0; again && t < CLIP_RETUNES; t++) {
        clip_frames later = { .n = c->n, .extra = c->extra, .frame_bytes = c->frame_bytes };
        poyo_error ignored;
        double later_off;
        if (film_oneshot(d, dr, &later, &ignored) != POYO_OK) {
            clip_free(&later);
            break;
        }
        again = dr->retune(dr->user, &later, &later_off);
        if (later_off < off) {
            clip_free(c);
            *c = later;
            off = later_off;
        } else {
            clip_free(&later);
        }
    }
}

/* Whole periods until one ends where the one before it did (or
 * d->warm_periods of them), then one period recorded from its frame
 * d->start into frames 0 to period - 1, and the state after it into frame b
 * (frame a: scratch). */
static void run_period(const clip_def *d, const clip_driver *dr, clip_frames *c, int period, int a, int b)
{
    int max_periods = (int)ceil(CLIP_MAX_WARMUP * d->fps / period);
    if (max_periods < 3)
        max_periods = 3;
    for (int p = 0; p < d->warm_periods; p++)
        for (int f = 0; f < period; f++)
            dr->step(dr->user, f);
    for (int p = 0; p < max_periods && d->warm_periods <= 0; p++) {
        record(c, dr, a);
        for (int f = 0; f < period; f++)
            dr->step(dr->user, f);
        record(c, dr, b);
        double diff = state_dist(d, c->n, c->extra, fx(c, a), fy(c, a), fe(c, a), fx(c, b), fy(c, b), fe(c, b));
        if (p >= 1 && diff < 0.025)
            break;
    }
    int start = d->start > 0 ? d->start % period : 0;
    for (int f = 0; f < start; f++)
        dr->step(dr->user, f);
    for (int f = 0; f < period; f++) {
        record(c, dr, f);
        dr->step(dr->user, (start + f) % period);
    }
    record(c, dr, b);
}

/* The period the driver filmed already (d->taken) where run_period puts it. */
static void take_period(const clip_def *d, clip_frames *c, int period, int b)
{
    size_t n = (size_t)c->n;
    const double *tx = d->taken, *ty = d->taken + (size_t)(period + 1) * n;
    for (int f = 0; f <= period; f++) {
        int to = f < period ? f : b;
        memcpy(fx(c, to), tx + (size_t)f * n, n * sizeof(double));
        memcpy(fy(c, to), ty + (size_t)f * n, n * sizeof(double));
    }
}

/* One steady-state period (run_period, or the driver's own when it filmed
 * it already), what is left of the mismatch between its end and its start
 * spread over it so the last frame leads into the first. */
static poyo_status film_periodic(const clip_def *d, const clip_driver *dr, clip_frames *c, poyo_error *err)
{
    int period = d->period < 2 ? 2 : d->period;
    /* two scratch frames past the period: the state before a period and after the last */
    poyo_status st = reserve(c, period + 2, d, err);
    if (st != POYO_OK)
        return st;
    int a = period, b = period + 1;
    if (d->taken && c->extra == 0)
        take_period(d, c, period, b);
    else
        run_period(d, dr, c, period, a, b);
    for (int f = 0; f < period; f++)
        if (!frame_finite(c, f))
            return poyo_fail(err, POYO_ERR_INPUT, "the simulation became unstable at frame %d", f + 1);
    for (int f = 1; f < period; f++) {
        double w = (double)f / period;
        double *x = fx(c, f), *y = fy(c, f), *e = fe(c, f);
        const double *ex = fx(c, b), *ey = fy(c, b), *ee = fe(c, b);
        for (int k = 0; k < c->n; k++) {
            x[k] -= w * (ex[k] - c->x[k]);
            y[k] -= w * (ey[k] - c->y[k]);
        }
        for (int k = 0; k < c->extra; k++)
            e[k] -= w * (ee[k] - c->e[k]);
    }
    c->count = period;
    c->periodic = 1;
    return POYO_OK;
}

/* The whole periods from ta (span seconds, count frames) resampled from the
 * held frames recorded from frame base on: frame k at ta + k span / count, and
 * what is left of the drift between the last and the first spread over them. */
static poyo_status resample_periods(const clip_def *d, clip_frames *c, int held, int base, double ta, double span,
                                    int count, double period, poyo_error *err)
{
    double fps = d->fps;
    poyo_status st;
    /* the sample at k = count measures the drift */
    clip_frames out;
    memset(&out, 0, sizeof out);
    out.n = c->n;
    out.extra = c->extra;
    out.frame_bytes = c->frame_bytes;
    if ((st = reserve(&out, count + 1, d, err)) != POYO_OK)
        return st;
    for (int k = 0; k <= count; k++) {
        double pos = (ta + span * k / count) * fps - base;
        int i = (int)floor(pos);
        if (i < 0)
            i = 0;
        if (i > held - 2)
            i = held - 2;
        double u = pos - i;
        const double *x0 = fx(c, i), *x1 = fx(c, i + 1), *y0 = fy(c, i), *y1 = fy(c, i + 1);
        const double *e0 = fe(c, i), *e1 = fe(c, i + 1);
        double *x = fx(&out, k), *y = fy(&out, k), *e = fe(&out, k);
        for (int j = 0; j < c->extra; j++)
            e[j] = e0[j] + u * (e1[j] - e0[j]);
        for (int j = 0; j < c->n; j++) {
            x[j] = x0[j] + u * (x1[j] - x0[j]);
            y[j] = y0[j] + u * (y1[j] - y0[j]);
        }
    }
    const double *ex = fx(&out, count), *ey = fy(&out, count), *ee = fe(&out, count);
    for (int k = 1; k < count; k++) {
        double w = (double)k / count;
        double *x = fx(&out, k), *y = fy(&out, k), *e = fe(&out, k);
        for (int j = 0; j < c->extra; j++)
            e[j] += w * (out.e[j] - ee[j]);
        for (int j = 0; j < c->n; j++) {
            x[j] += w * (out.x[j] - ex[j]);
            y[j] += w * (out.y[j] - ey[j]);
        }
    }
    clip_free(c);
    *c = out;
    c->count = count;
    c->periodic = 1;
    c->period = period;
    return POYO_OK;
}

/* Whole periods of a steady motion whose period is measured: runs until the
 * transients have faded, starts where the phase signal rises through zero,
 * measures the period at the next rise, and resamples whole periods to whole
 * frames. The drift left over the clip is spread over it so the last frame
 * leads into the first. Leaves count 0 when there is no steady motion. */
static poyo_status film_measured(const clip_def *d, const clip_driver *dr, clip_frames *c, poyo_error *err)
{
    double fps = d->fps, ta = -1.0, span = 0.0, period = 0.0, amp = 0.0, prev = dr->phase(dr->user);
    int held = 0, base = 0, last = -1, count = 0;
    int maxf = (int)ceil((d->warmup + 20.0 + d->duration) * fps);
    poyo_status st;
    for (int f = 0; f <= maxf; f++) {
        if (f > 0)
            dr->step(dr->user, f - 1);
        if (ta < 0.0 && held == 2) { /* until the clip starts, keep the last frame only */
            memcpy(fx(c, 0), fx(c, 1), (size_t)c->n * sizeof(double));
            memcpy(fy(c, 0), fy(c, 1), (size_t)c->n * sizeof(double));
            memcpy(fe(c, 0), fe(c, 1), (size_t)c->extra * sizeof(double));
            held = 1;
            base++;
        }
        if ((st = reserve(c, held + 1, d, err)) != POYO_OK)
            return st;
        record(c, dr, held);
        if (held++ == 0)
            base = f;
        double phi = dr->phase(dr->user);
        if (ta >= 0.0)
            amp = fmax(amp, fabs(phi));
        int rose = f > 0 && f >= d->warmup * fps && prev < 0.0 && phi >= 0.0 && fabs(phi - prev) < 1.0;
        if (rose && last < 0) {
            double tc = (f - 1 + prev / (prev - phi)) / fps;
            if (ta < 0.0) {
                ta = tc;
            } else {
                period = tc - ta;
                if (!(amp > d->min_swing && period > 2.0 / fps))
                    return POYO_OK;
                int periods = d->duration > 0.0 ? (int)lround(d->duration / period) : 1;
                if (periods < 1)
                    periods = 1;
                span = periods * period;
                count = (int)lround(span * fps);
                if (count < 2)
                    count = 2;
                last = (int)ceil((ta + span) * fps) + 1;
            }
        }
        prev = phi;
        if (last >= 0 && f >= last)
            break;
    }
    if (last < 0 || base + held <= last)
        return POYO_OK;
    return resample_periods(d, c, held, base, ta, span, count, period, err);
}

poyo_status clip_film(const clip_def *def, const clip_driver *driver, clip_frames *out, poyo_error *err)
{
    memset(out, 0, sizeof *out);
    if (!def || !driver || !driver->step || !driver->capture || driver->n < 0 || driver->extra < 0 ||
        !(def->fps > 0.0) || !(def->sx > 0.0) || !(def->sy > 0.0) || (def->kind == CLIP_MEASURED && !driver->phase))
        return poyo_fail(err, POYO_ERR_USAGE, "clip engine: a bad driver or definition");
    out->n = driver->n;
    out->extra = driver->extra;
    out->frame_bytes = (double)def->width * def->height * 4.0 + 16.0 * driver->n + 8.0 * driver->extra;
    poyo_status st = def->kind == CLIP_PERIODIC   ? film_periodic(def, driver, out, err)
                     : def->kind == CLIP_MEASURED ? film_measured(def, driver, out, err)
                                                  : film_oneshot(def, driver, out, err);
    if (st == POYO_OK && def->kind == CLIP_ONESHOT && driver->retune)
        film_retuned(def, driver, out);
    if (st == POYO_OK && def->kind != CLIP_ONESHOT && def->snap > 0.0)
        snap_to_first(out, def);
    if (st != POYO_OK)
        clip_free(out);
    return st;
}

poyo_status clip_render(const clip_view *v, const double *x, const double *y, int n, int count, anim *out,
                        poyo_error *err)
{
    memset(out, 0, sizeof *out);
    renderer r;
    memset(&r, 0, sizeof r);
    memlimit_clip lc = { 0, 0, count, v->width, v->height, v->src != NULL, FORMAT_AUTO, NULL, 0, 0, 0, 0, 0.0 };
    poyo_status st = memlimit_check_clip(&lc, "--size, --fps or --duration", err);
    if (st != POYO_OK)
        return st;
    if (v->src && (st = renderer_init_from(&r, v->src, v->made, v->lat, v->width, v->height, v->place, err)) !=
                      POYO_OK)
        return st;
    /* with a stamp, every pixel of every frame is drawn (renderer_draw_frames) */
    st = v->src ? anim_init_undrawn(out, v->width, v->height, count, v->fps, err)
                : anim_init(out, v->width, v->height, count, v->fps, err);
    if (st != POYO_OK)
        goto done;
    out->loop = v->loop;
    if (v->src && (st = renderer_draw_frames(&r, x, y, n, count, out->rgba, v->threads, err)) != POYO_OK)
        goto done;
    if (v->layer)
        for (int f = 0; f < count; f++)
            v->layer(v->user, f, anim_frame(out, f), out->width, out->height);
done:
    if (st != POYO_OK)
        anim_free(out);
    renderer_free(&r);
    return st;
}
