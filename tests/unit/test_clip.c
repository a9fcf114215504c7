/* test_clip.c - the clip engine's one-shot films: a wobble whose half period
 * is a whole number of frames, started so it passes through rest just as
 * frames are taken, is filmed again half a frame later and then never shows
 * rest in the middle of its motion; a driver that cannot restart keeps those
 * still frames; a wobble that passes through rest between frames, and one
 * too small to be seen far from rest, are filmed once; a swing that lasts a
 * frame and falls within one frame's step is filmed again, over two. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "sim/clip.h"

#define FPS 25.0
#define PERIOD 8.0 /* frames */
#define TAU 6.283185307179586

/* One node wobbling along x about 0 from a kick at time 0, decaying over a second. */
typedef struct wobble {
    double amplitude; /* pixels */
    double offset;    /* frames the crossings of rest lie past a frame's time */
    double t;         /* seconds since the kick */
    int restarts;
} wobble;

static void wobble_step(void *user, long f)
{
    (void)f;
    ((wobble *)user)->t += 1.0 / FPS;
}

static void wobble_capture(void *user, double *x, double *y, double *e)
{
    const wobble *w = user;
    (void)e;
    *x = w->amplitude * exp(-w->t) * sin(TAU * (w->t * FPS - w->offset) / PERIOD);
    *y = 0.0;
}

static int wobble_restart(void *user, double lead)
{
    wobble *w = user;
    w->t = lead / FPS;
    w->restarts++;
    return 1;
}

static const double rest[1] = { 0.0 };

static clip_def oneshot(void)
{
    clip_def d;
    memset(&d, 0, sizeof d);
    d.kind = CLIP_ONESHOT;
    d.width = d.height = 16;
    d.sx = d.sy = 1.0;
    d.fps = FPS;
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

static void film(wobble *w, int can_restart, clip_frames *c)
{
    clip_def d = oneshot();
    clip_driver dr = { w, 1, 0, wobble_step, wobble_capture, NULL, NULL, NULL, can_restart ? wobble_restart : NULL, NULL };
    poyo_error err;
    ENSURE_MSG(clip_film(&d, &dr, c, &err) == POYO_OK, "%s", err.msg);
}

static void test_rest_at_frames_filmed_between(void)
{
    wobble w = { 12.0, 0.0, 0.0, 0 };
    clip_frames c;
    film(&w, 0, &c);
    int still = still_frames(&c, 5);
    clip_free(&c);
    ENSURE_MSG(still >= 2, "filmed once, %d frames show rest", still);

    w = (wobble){ 12.0, 0.0, 0.0, 0 };
    film(&w, 1, &c);
    still = still_frames(&c, 5);
    int count = c.count;
    clip_free(&c);
    ENSURE(w.restarts == 1);
    ENSURE_MSG(still == 0, "filmed again, %d frames still show rest", still);
    ENSURE(count >= 20);
}

static void test_rest_between_frames_filmed_once(void)
{
    wobble w = { 12.0, 0.5, 0.0, 0 };
    clip_frames c;
    film(&w, 1, &c);
    int still = still_frames(&c, 5);
    clip_free(&c);
    ENSURE(w.restarts == 0);
    ENSURE(still == 0);
}

/* A wobble of 2.5 pixels passes through rest at frames too, but the frames
 * beside them are within 2 pixels of it: not a stamp seen still mid-motion. */
static void test_small_wobble_filmed_once(void)
{
    wobble w = { 2.5, 0.0, 0.0, 0 };
    clip_frames c;
    film(&w, 1, &c);
    clip_free(&c);
    ENSURE(w.restarts == 0);
}

/* One node swung 10 pixels in a frame's time, from 3 to 4 frames after the
 * kick, then back to rest over a second. */
typedef struct swing {
    double t;
    int restarts;
} swing;

static void swing_step(void *user, long f)
{
    (void)f;
    ((swing *)user)->t += 1.0 / FPS;
}

static void swing_capture(void *user, double *x, double *y, double *e)
{
    const swing *s = user;
    double fr = s->t * FPS;
    (void)e;
    *x = fr < 3.0 ? 0.0 : fr < 4.0 ? 10.0 * (fr - 3.0) : 10.0 * exp(-2.0 * (fr - 4.0) / FPS);
    *y = 0.0;
}

static int swing_restart(void *user, double lead)
{
    swing *s = user;
    s->t = lead / FPS;
    s->restarts++;
    return 1;
}

static double swing_moved(void *user, const double *ax, const double *ay, const double *bx, const double *by)
{
    (void)user, (void)ay, (void)by;
    return fabs(*bx - *ax);
}

static void test_swing_filmed_over_two_frames(void)
{
    swing s = { 0.0, 0 };
    clip_def d = oneshot();
    clip_driver dr = { &s, 1, 0, swing_step, swing_capture, NULL, NULL, NULL, swing_restart, swing_moved };
    clip_frames c;
    poyo_error err;
    ENSURE_MSG(clip_film(&d, &dr, &c, &err) == POYO_OK, "%s", err.msg);
    double most = 0.0;
    for (int f = 0; f + 1 < c.count; f++)
        most = fmax(most, fabs(c.x[f + 1] - c.x[f]));
    int count = c.count;
    clip_free(&c);
    ENSURE(s.restarts == 1);
    ENSURE(count >= 20);
    ENSURE_MSG(most < 6.0, "the largest step is %g pixels", most);
}

const struct test_case test_cases[] = {
    { "rest_at_frames_filmed_between", test_rest_at_frames_filmed_between },
    { "rest_between_frames_filmed_once", test_rest_between_frames_filmed_once },
    { "small_wobble_filmed_once", test_small_wobble_filmed_once },
    { "swing_filmed_over_two_frames", test_swing_filmed_over_two_frames },
    { NULL, NULL },
};
