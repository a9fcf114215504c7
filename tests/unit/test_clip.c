/* test_clip.c - the clip engine's one-shot films: a wobble whose half period
 * is a whole number of frames, started so it passes through rest just as
 * frames are taken, is filmed again half a frame later and then never shows
 * rest in the middle of its motion; a driver that cannot restart keeps those
 * still frames; a wobble that passes through rest between frames, and one
 * too small to be seen far from rest, are filmed once; a swing that lasts a
 * frame and falls within one frame's step is filmed again, over two; a
 * driver that retunes itself after a film is filmed again, a few times at
 * most, and the film closest to what it was asked for is kept; a periodic
 * driver's period filmed already is the period the engine would film. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "sim/clip.h"

#define FPS 25.0
#define PERIOD 8.0 /* frames */
#define TAU 6.283185307179586

/* One node moving along x from rest at 0, kicked at time 0. */
typedef struct mover {
    double (*x_at)(const struct mover *m, double frames); /* where it is that many frames after the kick */
    double amplitude; /* pixels */
    double offset;    /* a wobble: frames its crossings of rest lie past a frame's time */
    double t;         /* seconds since the kick */
    int restarts;
} mover;

/* Wobbling about rest, decaying over a second. */
static double wobble_at(const mover *m, double fr)
{
    return m->amplitude * exp(-fr / FPS) * sin(TAU * (fr - m->offset) / PERIOD);
}

/* Swung by the amplitude in a frame's time, from 3 to 4 frames after the
 * kick, then back to rest over a second. */
static double swing_at(const mover *m, double fr)
{
    return fr < 3.0 ? 0.0 : fr < 4.0 ? m->amplitude * (fr - 3.0) : m->amplitude * exp(-2.0 * (fr - 4.0) / FPS);
}

static void mover_step(void *user, long f)
{
    (void)f;
    ((mover *)user)->t += 1.0 / FPS;
}

static void mover_capture(void *user, double *x, double *y, double *e)
{
    const mover *m = user;
    (void)e;
    *x = m->x_at(m, m->t * FPS);
    *y = 0.0;
}

static int mover_restart(void *user, double lead)
{
    mover *m = user;
    m->t = lead / FPS;
    m->restarts++;
    return 1;
}

static double mover_moved(void *user, const double *ax, const double *ay, const double *bx, const double *by)
{
    (void)user, (void)ay, (void)by;
    return fabs(*bx - *ax);
}

static const double rest[1] = { 0.0 };

/* A clip of this kind on a 16 px canvas at FPS, one canvas pixel a pixel. */
static clip_def clip_of(clip_kind kind)
{
    clip_def d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.width = d.height = 16;
    d.sx = d.sy = 1.0;
    d.fps = FPS;
    return d;
}

static clip_def oneshot(void)
{
    clip_def d = clip_of(CLIP_ONESHOT);
    d.min_frames = 20;
    d.max_frames = 50;
    d.still = INFINITY;
    d.near = 1.0;
    d.fade = 0.4;
    d.quiet = 4;
    d.rest_x = d.rest_y = rest;
    d.frame0_rest = 1;
    d.ease = 5;
    d.ease_to_end = 1;
    d.snap = 1.0;
    return d;
}

/* Frames before the ease within a pixel of rest between frames two or more from it. */
static int still_frames(const clip_frames *c, int ease)
{
    int still = 0;
    for (int f = 1; f + 1 < c->count - ease; f++)
        still += fabs(c->x[f]) < 1.0 && fabs(c->x[f - 1]) >= 2.0 && fabs(c->x[f + 1]) >= 2.0;
    return still;
}

static void film(mover *m, int can_restart, clip_frames *c)
{
    clip_def d = oneshot();
    clip_driver dr = { m, 1, 0, mover_step, mover_capture, NULL, NULL, NULL, can_restart ? mover_restart : NULL,
                       mover_moved, NULL };
    poyo_error err;
    ENSURE_MSG(clip_film(&d, &dr, c, &err) == POYO_OK, "%s", err.msg);
}

/* Films m and returns how many of its frames show rest mid-motion (-1 when
 * filming failed); *count: its frames. */
static int still_in_film(mover *m, int can_restart, int *count)
{
    clip_frames c;
    film(m, can_restart, &c);
    int still = test_failed() ? -1 : still_frames(&c, 5);
    *count = c.count;
    clip_free(&c);
    return still;
}

static void test_rest_at_frames_filmed_between(void)
{
    mover w = { wobble_at, 12.0, 0.0, 0.0, 0 };
    int count, still = still_in_film(&w, 0, &count);
    ENSURE_MSG(still >= 2, "filmed once, %d frames show rest", still);
    w = (mover){ wobble_at, 12.0, 0.0, 0.0, 0 };
    still = still_in_film(&w, 1, &count);
    ENSURE(w.restarts == 1);
    ENSURE_MSG(still == 0, "filmed again, %d frames still show rest", still);
    ENSURE(count >= 20);
}

static void test_rest_between_frames_filmed_once(void)
{
    mover w = { wobble_at, 12.0, 0.5, 0.0, 0 };
    int count, still = still_in_film(&w, 1, &count);
    ENSURE(w.restarts == 0);
    ENSURE(still == 0);
}

/* A wobble of 2.5 pixels passes through rest at frames too, but the frames
 * beside them are within 2 pixels of it: not a stamp seen still mid-motion. */
static void test_small_wobble_filmed_once(void)
{
    mover w = { wobble_at, 2.5, 0.0, 0.0, 0 };
    clip_frames c;
    film(&w, 1, &c);
    clip_free(&c);
    ENSURE(w.restarts == 0);
}

static void test_swing_filmed_over_two_frames(void)
{
    mover s = { swing_at, 10.0, 0.0, 0.0, 0 };
    clip_frames c;
    film(&s, 1, &c);
    if (test_failed())
        return;
    double most = 0.0;
    for (int f = 0; f + 1 < c.count; f++)
        most = fmax(most, fabs(c.x[f + 1] - c.x[f]));
    int count = c.count;
    clip_free(&c);
    ENSURE(s.restarts == 1);
    ENSURE(count >= 20);
    ENSURE_MSG(most < 6.0, "the largest step is %g pixels", most);
}

/* A driver asked for a peak of TUNE_ASKED pixels that answers its retunes
 * with the amplitudes of `tuned` in turn, one per film, whatever it asks. */
#define TUNE_ASKED 10.0
#define TUNE_FILMS 5
typedef struct tuner {
    mover m;
    int films;               /* films measured */
    double peak[TUNE_FILMS]; /* the largest |x| of each film measured */
    int again;               /* 1: ask for another film after every film */
} tuner;

static const double tuned[TUNE_FILMS] = { 6.0, 10.5, 15.0, 7.0, 10.0 };

static double peak_of(const clip_frames *c)
{
    double peak = 0.0;
    for (int f = 0; f < c->count; f++)
        peak = fmax(peak, fabs(c->x[f]));
    return peak;
}

static int tuner_retune(void *user, const clip_frames *c, double *off)
{
    tuner *t = user;
    double peak = peak_of(c);
    *off = fabs(log(peak / TUNE_ASKED));
    if (t->films < TUNE_FILMS)
        t->peak[t->films] = peak;
    t->films++;
    if (!t->again || t->films >= TUNE_FILMS)
        return 0;
    t->m.amplitude = tuned[t->films];
    t->m.t = 0.0;
    return 1;
}

/* Films t and returns the largest |x| of the film kept (-1 when filming failed). */
static double kept_peak(tuner *t)
{
    clip_def d = oneshot();
    clip_driver dr = { t, 1, 0, mover_step, mover_capture, NULL, NULL, NULL, mover_restart, mover_moved, tuner_retune };
    poyo_error err;
    clip_frames c;
    if (clip_film(&d, &dr, &c, &err) != POYO_OK) {
        test_fail(__FILE__, __LINE__, "%s", err.msg);
        return -1.0;
    }
    double kept = peak_of(&c);
    clip_free(&c);
    return kept;
}

/* Filmed again while the driver retunes, at most three times more, the film
 * kept is the one closest to what the driver was asked for, not the last. */
static void test_retuned_keeps_closest(void)
{
    tuner t = { { wobble_at, 6.0, 0.5, 0.0, 0 }, 0, { 0 }, 1 };
    double kept = kept_peak(&t);
    ENSURE(kept >= 0.0);
    ENSURE_MSG(t.films == 4, "%d films measured", t.films);
    /* the second film (10.5) is the closest of the four measured */
    ENSURE_MSG(fabs(kept - t.peak[1]) < 1e-9, "kept a film of peak %g, the second's is %g", kept, t.peak[1]);
    ENSURE(fabs(t.peak[1] - t.peak[3]) > 1.0);
}

/* A driver content with its first film is filmed once. */
static void test_content_driver_filmed_once(void)
{
    tuner t = { { wobble_at, 10.0, 0.5, 0.0, 0 }, 0, { 0 }, 0 };
    double kept = kept_peak(&t);
    ENSURE(kept >= 0.0);
    ENSURE(t.films == 1);
    ENSURE(fabs(kept - t.peak[0]) < 1e-9);
}

/* A steady periodic motion with a drift: one node, stepped a frame at a time. */
typedef struct pacer {
    long t;     /* frames stepped */
    int steps;  /* steps taken */
} pacer;

/* A triangle wave and a drift, in sums exact in doubles: the same on every
 * compiler whether or not it fuses a multiply and an add. */
static double pacer_x(long t)
{
    static const double tri[8] = { 0.0, 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0 };
    return tri[t % 8] + 0.125 * (double)t;
}

static void pacer_step(void *user, long f)
{
    pacer *p = user;
    (void)f;
    p->t++;
    p->steps++;
}

static void pacer_capture(void *user, double *x, double *y, double *e)
{
    const pacer *p = user;
    (void)e;
    *x = pacer_x(p->t);
    *y = -pacer_x(p->t);
}

/* A period the driver filmed already (warm-up, then from frame `start`, and
 * the pose after it) is the clip the engine films from the same driver, seam
 * closed the same way, and the driver takes no step for it. */
static void test_taken_period_is_the_period_filmed(void)
{
    const int period = (int)PERIOD, warm = 2, start = 3;
    clip_def d = clip_of(CLIP_PERIODIC);
    d.period = period;
    d.warm_periods = warm;
    d.start = start;
    pacer p = { 0, 0 };
    clip_driver dr = { &p, 1, 0, pacer_step, pacer_capture, NULL, NULL, NULL, NULL, NULL, NULL };
    poyo_error err;
    clip_frames filmed, taken;
    ENSURE_MSG(clip_film(&d, &dr, &filmed, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(p.steps == (warm + 1) * period + start, "%d steps", p.steps);
    double poses[2 * (8 + 1)];
    for (int f = 0; f <= period; f++) {
        poses[f] = pacer_x((long)warm * period + start + f);
        poses[period + 1 + f] = -poses[f];
    }
    d.taken = poses;
    p.steps = 0;
    ENSURE_MSG(clip_film(&d, &dr, &taken, &err) == POYO_OK, "%s", err.msg);
    ENSURE_MSG(p.steps == 0, "%d steps for a period taken", p.steps);
    ENSURE(filmed.count == period && taken.count == period && taken.periodic);
    for (int f = 0; f < period; f++) {
        ENSURE_MSG(filmed.x[f] == taken.x[f] && filmed.y[f] == taken.y[f], "frame %d: %g %g filmed, %g %g taken", f,
                   filmed.x[f], filmed.y[f], taken.x[f], taken.y[f]);
    }
    /* the drift is spread: the last frame leads into the first */
    ENSURE(fabs(taken.x[period - 1] - pacer_x((long)warm * period + start + period - 1)) > 0.5);
    clip_free(&filmed);
    clip_free(&taken);
}

const struct test_case test_cases[] = {
    { "rest_at_frames_filmed_between", test_rest_at_frames_filmed_between },
    { "rest_between_frames_filmed_once", test_rest_between_frames_filmed_once },
    { "small_wobble_filmed_once", test_small_wobble_filmed_once },
    { "swing_filmed_over_two_frames", test_swing_filmed_over_two_frames },
    { "retuned_keeps_closest", test_retuned_keeps_closest },
    { "content_driver_filmed_once", test_content_driver_filmed_once },
    { "taken_period_is_the_period_filmed", test_taken_period_is_the_period_filmed },
    { NULL, NULL },
};
