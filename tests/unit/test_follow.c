/* test_follow.c - a soft stamp carried along a path: starts and ends at rest,
 * loops without a seam, stays with the path, turns with it, sways, repeats. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "geom/vec2.h"
#include "sim/follow.h"

/* A 40x40 opaque disc of radius 16. */
static int make_disc(image *im)
{
    if (image_alloc(im, 40, 40, NULL) != POYO_OK)
        return 0;
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < 40; x++) {
            double dx = x + 0.5 - 20, dy = y + 0.5 - 20;
            uint8_t *p = im->rgba + ((size_t)y * 40 + x) * 4;
            if (dx * dx + dy * dy <= 16.0 * 16.0) {
                p[0] = 200;
                p[1] = 40;
                p[2] = 40;
                p[3] = 255;
            }
        }
    return 1;
}

static follow_def small_def(follow_mode mode)
{
    follow_def d = follow_default_def();
    d.width = d.height = 128;
    d.fps = 20;
    d.duration = 1.0;
    d.grid = 8;
    d.mode = mode;
    return d;
}

static path *line_path(void)
{
    path_point pts[2] = { { { 20, 64 }, 0.0 }, { { 108, 64 }, 0.0 } };
    path_def pd = path_default_def();
    path *p = NULL;
    return path_create(&pd, pts, 2, &p, NULL) == POYO_OK ? p : NULL;
}

/* A circle of radius 40 about the canvas centre, clockwise on screen, closed. */
static path *ring_path(void)
{
    path_point pts[5] = { { { 64, 24 }, 0.0 }, { { 104, 64 }, PI / 2 }, { { 64, 104 }, PI },
                          { { 24, 64 }, -PI / 2 }, { { 64, 24 }, 0.0 } };
    path_def pd = path_default_def();
    path *p = NULL;
    return path_create(&pd, pts, 5, &p, NULL) == POYO_OK ? p : NULL;
}

/* Mean node position of frame f, on the canvas. */
static v2 centroid(const motion *m, int f, placement pl)
{
    double sx = 0, sy = 0;
    for (int k = 0; k < m->n; k++) {
        sx += m->x[(size_t)f * m->n + k];
        sy += m->y[(size_t)f * m->n + k];
    }
    return v2_make(pl.sx * sx / m->n + pl.ox, pl.sy * sy / m->n + pl.oy);
}

/* Largest distance of frame f's nodes from the rest shape moved to its centroid (image pixels). */
static double deformation(const motion *m, int f)
{
    double cx = 0, cy = 0, qx = 0, qy = 0, worst = 0;
    int n = m->n;
    const double *x = m->x + (size_t)f * n, *y = m->y + (size_t)f * n;
    for (int k = 0; k < n; k++) {
        cx += x[k];
        cy += y[k];
        qx += m->qx[k];
        qy += m->qy[k];
    }
    cx /= n, cy /= n, qx /= n, qy /= n;
    for (int k = 0; k < n; k++)
        worst = fmax(worst, hypot(x[k] - cx - (m->qx[k] - qx), y[k] - cy - (m->qy[k] - qy)));
    return worst;
}

/* Angle of node 0 about the centroid in frame f. */
static double node_angle(const motion *m, int f)
{
    double cx = 0, cy = 0;
    int n = m->n;
    const double *x = m->x + (size_t)f * n, *y = m->y + (size_t)f * n;
    for (int k = 0; k < n; k++) {
        cx += x[k];
        cy += y[k];
    }
    return atan2(y[0] - cy / n, x[0] - cx / n);
}

static void once_starts_and_ends_at_rest(void)
{
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    path *p = line_path();
    follow_def d = small_def(FOLLOW_ONCE);
    ENSURE(p && make_disc(&im));
    poyo_status st = follow_simulate(&im, p, &d, &m, NULL);
    placement pl = follow_placement(im.w, im.h, &m.lat, &d);
    int trip = follow_trip_frames(&d);
    int ok = st == POYO_OK && m.count > trip + 1;
    v2 c0 = ok ? centroid(&m, 0, pl) : v2_make(0, 0), c1 = ok ? centroid(&m, m.count - 1, pl) : v2_make(0, 0);
    double d0 = ok ? deformation(&m, 0) : 1e9, d1 = ok ? deformation(&m, m.count - 1) : 1e9;
    double dmid = 0;
    for (int f = 1; ok && f <= trip; f++)
        dmid = fmax(dmid, deformation(&m, f));
    motion_free(&m);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE_NEAR(c0.x, 20.0, 0.6);
    ENSURE_NEAR(c0.y, 64.0, 0.6);
    ENSURE_NEAR(c1.x, 108.0, 0.6);
    ENSURE_NEAR(c1.y, 64.0, 0.6);
    ENSURE_SMALL(d0, 1e-9);
    ENSURE_SMALL(d1, 1e-9);
    ENSURE_MSG(dmid > 0.3, "the body never lags: largest deformation %g image pixels", dmid);
}

/* An oval 80 wide and 50 tall, clockwise on screen, closed: its curvature varies. */
static path *oval_path(void)
{
    path_point pts[5] = { { { 64, 39 }, 0.0 }, { { 104, 64 }, PI / 2 }, { { 64, 89 }, PI },
                          { { 24, 64 }, -PI / 2 }, { { 64, 39 }, 0.0 } };
    path_def pd = path_default_def();
    path *p = NULL;
    return path_create(&pd, pts, 5, &p, NULL) == POYO_OK ? p : NULL;
}

/* Largest node acceleration (second difference, image pixels) at frame f of a looping clip. */
static double node_accel(const motion *m, int f)
{
    int n = m->n, N = m->count, a = (f + N - 1) % N, b = (f + 1) % N;
    double worst = 0;
    for (int k = 0; k < n; k++)
        worst = fmax(worst, hypot(m->x[(size_t)b * n + k] - 2 * m->x[(size_t)f * n + k] + m->x[(size_t)a * n + k],
                                  m->y[(size_t)b * n + k] - 2 * m->y[(size_t)f * n + k] + m->y[(size_t)a * n + k]));
    return worst;
}

/* The oval looks the same after half a lap, so a steady, seamless loop moves
 * the same at frame f and f + N/2 - including across the wrap. */
static void loop_is_seamless(void)
{
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    path *p = oval_path();
    follow_def d = small_def(FOLLOW_LOOP);
    d.body.damping = 0.05;
    /* a lap of 1.4 s: at half that the disc is flung so hard that its cells
     * would fold, and the guard that keeps them from folding is not smooth */
    d.duration = 1.4;
    ENSURE(p && make_disc(&im));
    poyo_status st = follow_simulate(&im, p, &d, &m, NULL);
    int ok = st == POYO_OK && m.count == follow_trip_frames(&d) && m.count % 2 == 0 && m.periodic;
    double top = 0, worst = 0;
    int at = -1;
    for (int f = 0; ok && f < m.count; f++)
        top = fmax(top, node_accel(&m, f));
    for (int f = 0; ok && f < m.count / 2; f++) {
        double e = fabs(node_accel(&m, f) - node_accel(&m, f + m.count / 2));
        if (e > worst) {
            worst = e;
            at = f;
        }
    }
    motion_free(&m);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE_MSG(worst <= 0.01 * top, "frames %d and half a lap later differ in acceleration by %g (largest %g)", at,
               worst, top);
}

static void body_stays_with_the_path_and_turns(void)
{
    image im = { 0 };
    motion m, still;
    memset(&m, 0, sizeof m);
    memset(&still, 0, sizeof still);
    path *p = ring_path();
    follow_def d = small_def(FOLLOW_LOOP), dn = d;
    dn.turn = 0;
    ENSURE(p && make_disc(&im));
    int ok = follow_simulate(&im, p, &d, &m, NULL) == POYO_OK && follow_simulate(&im, p, &dn, &still, NULL) == POYO_OK;
    placement pl = ok ? follow_placement(im.w, im.h, &m.lat, &d) : (placement){ 0, 0, 0, 0, 1, 1 };
    double worst = 0, size = fmax(m.lat.bx1 - m.lat.bx0, m.lat.by1 - m.lat.by0) * pl.sx;
    for (int f = 0; ok && f < m.count; f++) {
        v2 at;
        path_eval(p, path_length(p) * f / m.count, &at, NULL);
        worst = fmax(worst, v2_dist(centroid(&m, f, pl), at));
    }
    int q = ok ? m.count / 4 : 0;
    double turned = ok ? path_wrap_angle(node_angle(&m, q) - node_angle(&m, 0)) : 0;
    double kept = ok ? path_wrap_angle(node_angle(&still, q) - node_angle(&still, 0)) : 9;
    motion_free(&m);
    motion_free(&still);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE_MSG(worst < 0.25 * size, "the body strays %g pixels from the path (size %g)", worst, size);
    ENSURE_NEAR(turned, PI / 2, 0.35);
    ENSURE_NEAR(kept, 0.0, 0.35);
}

static void bounce_is_a_round_trip(void)
{
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    path *p = line_path();
    follow_def d = small_def(FOLLOW_BOUNCE);
    ENSURE(p && make_disc(&im));
    int ok = follow_simulate(&im, p, &d, &m, NULL) == POYO_OK;
    placement pl = ok ? follow_placement(im.w, im.h, &m.lat, &d) : (placement){ 0, 0, 0, 0, 1, 1 };
    int trip = follow_trip_frames(&d);
    int count = m.count;
    v2 far = ok && count == 2 * trip ? centroid(&m, trip, pl) : v2_make(0, 0);
    motion_free(&m);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE(count == 2 * trip);
    ENSURE_NEAR(far.x, 108.0, 8.0);
}

static void same_input_same_motion(void)
{
    image im = { 0 };
    motion a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    path *p = ring_path();
    follow_def d = small_def(FOLLOW_LOOP);
    ENSURE(p && make_disc(&im));
    int ok = follow_simulate(&im, p, &d, &a, NULL) == POYO_OK && follow_simulate(&im, p, &d, &b, NULL) == POYO_OK &&
             a.count == b.count && a.n == b.n;
    int same = ok && memcmp(a.x, b.x, (size_t)a.count * a.n * sizeof(double)) == 0 &&
               memcmp(a.y, b.y, (size_t)a.count * a.n * sizeof(double)) == 0;
    motion_free(&a);
    motion_free(&b);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE(same);
}

static void render_draws_the_stamp_where_it_is(void)
{
    image im = { 0 };
    motion m;
    memset(&m, 0, sizeof m);
    anim a;
    memset(&a, 0, sizeof a);
    path *p = line_path();
    follow_def d = small_def(FOLLOW_ONCE);
    ENSURE(p && make_disc(&im));
    int ok = follow_simulate(&im, p, &d, &m, NULL) == POYO_OK && follow_render(&im, &m, &d, &a, NULL) == POYO_OK;
    /* frame 0: the disc centred on the path's start, nothing on the far side */
    int at_start = ok ? anim_frame(&a, 0)[(64 * 128 + 20) * 4 + 3] : 0;
    int far_side = ok ? anim_frame(&a, 0)[(64 * 128 + 108) * 4 + 3] : 255;
    int at_end = ok ? anim_frame(&a, a.count - 1)[(64 * 128 + 108) * 4 + 3] : 0;
    anim_free(&a);
    motion_free(&m);
    image_free(&im);
    path_destroy(p);
    ENSURE(ok);
    ENSURE(at_start == 255);
    ENSURE(far_side == 0);
    ENSURE(at_end == 255);
}

static void bad_definitions_are_refused(void)
{
    follow_def good = follow_default_def(), d;
    poyo_error err;
    ENSURE(follow_check_def(&good, &err) == POYO_OK);
    d = good, d.width = 0;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.stamp_size = NAN;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.duration = 0.01;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.fps = INFINITY;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.core = 1.0;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.facing = INFINITY;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.body.hz = 0;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    d = good, d.width = d.height = 4096, d.duration = 60;
    ENSURE(follow_check_def(&d, &err) == POYO_ERR_USAGE);
    ENSURE_MSG(strstr(err.msg, "more than the 1 GiB memory limit") != NULL, "%s", err.msg);
}

static void a_path_without_length_or_an_invisible_stamp_fails(void)
{
    image im = { 0 };
    motion m;
    follow_def d = small_def(FOLLOW_ONCE);
    path *p = line_path();
    ENSURE(p && image_alloc(&im, 8, 8, NULL) == POYO_OK);
    poyo_status st = follow_simulate(&im, p, &d, &m, NULL);
    poyo_status st2 = follow_simulate(&im, NULL, &d, &m, NULL);
    image_free(&im);
    path_destroy(p);
    ENSURE(st == POYO_ERR_INPUT);
    ENSURE(st2 == POYO_ERR_USAGE);
}

const struct test_case test_cases[] = {
    { "once_starts_and_ends_at_rest", once_starts_and_ends_at_rest },
    { "loop_is_seamless", loop_is_seamless },
    { "body_stays_with_the_path_and_turns", body_stays_with_the_path_and_turns },
    { "bounce_is_a_round_trip", bounce_is_a_round_trip },
    { "same_input_same_motion", same_input_same_motion },
    { "render_draws_the_stamp_where_it_is", render_draws_the_stamp_where_it_is },
    { "bad_definitions_are_refused", bad_definitions_are_refused },
    { "a_path_without_length_or_an_invisible_stamp_fails", a_path_without_length_or_an_invisible_stamp_fails },
    { NULL, NULL },
};
