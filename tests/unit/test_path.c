/* test_path.c - involute path segments: fits meet their ends, closed forms agree
 * with numeric integration and brute-force search, S requests split cleanly. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "geom/path.h"
#include "geom/vec2.h"

#define TWO_PI (2.0 * PI)

/* splitmix64: a deterministic stream of uniform numbers in [0, 1). */
static double rnd(uint64_t *st)
{
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static double rnd_in(uint64_t *st, double lo, double hi) { return lo + (hi - lo) * rnd(st); }

/* |x - y| between two angles, modulo 2 pi. */
static double angle_diff(double x, double y) { return fabs(path_wrap_angle(x - y)); }

/* Integral of (a + b phi)(cos phi, sin phi) over [0, t] by composite Simpson. */
static v2 integrate_local(double a, double b, double t)
{
    const int n = 2000;
    double h = t / n;
    v2 sum = v2_make(0.0, 0.0);
    for (int i = 0; i <= n; i++) {
        double phi = h * i, w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum = v2_madd(sum, w * (a + b * phi), v2_from_angle(phi));
    }
    return v2_scale(sum, h / 3.0);
}

/* A request one involute arc can meet: its start and the end reached by
 * integrating a random non-negative radius of curvature over a random turn. */
static void random_request(uint64_t *st, double tmin, double tmax, path_point *p0, path_point *p1)
{
    double th = rnd_in(st, tmin, tmax), sgn = rnd(st) < 0.5 ? -1.0 : 1.0;
    double r0 = rnd_in(st, 0.0, 1.5), r1 = rnd_in(st, 0.0, 1.5);
    if (rnd(st) < 0.1)
        r0 = 0.0;
    else if (rnd(st) < 0.1)
        r1 = 0.0;
    if (r0 + r1 < 0.05)
        r1 = 0.05;
    double b = (r1 - r0) / th;
    p0->p = v2_make(rnd_in(st, -1.0, 1.0), rnd_in(st, -1.0, 1.0));
    p0->angle = rnd_in(st, -PI, PI);
    v2 l = integrate_local(r0, b, th);
    p1->p = v2_add(p0->p, v2_rotate(v2_make(l.x, sgn * l.y), p0->angle));
    p1->angle = p0->angle + sgn * th;
}

static int segment_valid(const path_segment *s)
{
    return s->straight || (s->a >= 0.0 && s->a + s->b * s->theta_end >= 0.0 && s->theta_end > 0.0 &&
                           s->theta_end < TWO_PI);
}

/* |d/dt path_segment_point| by central differences. */
static double speed(const path_segment *s, double t)
{
    const double h = 1e-5;
    return v2_dist(path_segment_point(s, t + h), path_segment_point(s, t - h)) / (2.0 * h);
}

static double simpson_rec(const path_segment *s, double lo, double hi, double flo, double fmid, double fhi,
                          double whole, double tol, int depth)
{
    double mid = 0.5 * (lo + hi), lm = 0.5 * (lo + mid), rm = 0.5 * (mid + hi);
    double flm = speed(s, lm), frm = speed(s, rm);
    double left = (mid - lo) / 6.0 * (flo + 4.0 * flm + fmid), right = (hi - mid) / 6.0 * (fmid + 4.0 * frm + fhi);
    if (depth <= 0 || fabs(left + right - whole) <= 15.0 * tol)
        return left + right + (left + right - whole) / 15.0;
    return simpson_rec(s, lo, mid, flo, flm, fmid, left, 0.5 * tol, depth - 1) +
           simpson_rec(s, mid, hi, fmid, frm, fhi, right, 0.5 * tol, depth - 1);
}

/* Arc length of the evaluated curve over parameter [0, t], adaptive Simpson. */
static double numeric_length(const path_segment *s, double t)
{
    if (t <= 0.0)
        return 0.0;
    double f0 = speed(s, 0.0), fm = speed(s, 0.5 * t), f1 = speed(s, t);
    return simpson_rec(s, 0.0, t, f0, fm, f1, t / 6.0 * (f0 + 4.0 * fm + f1), 1e-10, 40);
}

/* Parameter range of a segment as path_segment_point reads it. */
static double param_end(const path_segment *s) { return s->straight ? s->length : s->theta_end; }

static void test_fit_meets_endpoints(void)
{
    uint64_t st = 1;
    path_def def = path_default_def();
    for (int i = 0; i < 2000; i++) {
        path_point p0, p1;
        path_segment seg[2];
        int count = 0;
        poyo_error err = { "" };
        random_request(&st, i < 1500 ? 0.05 : 1e-7, i < 1500 ? TWO_PI - 0.3 : 0.05, &p0, &p1);
        ENSURE_MSG(path_segment_join(&def, p0, p1, seg, &count, &err) == POYO_OK, "request %d: %s", i, err.msg);
        ENSURE_MSG(count == 1, "request %d split although one arc fits", i);
        ENSURE(segment_valid(&seg[0]));
        v2 q0, q1;
        double a0, a1;
        path_segment_eval(&seg[0], 0.0, &q0, &a0);
        path_segment_eval(&seg[0], seg[0].length, &q1, &a1);
        ENSURE_MSG(v2_dist(q0, p0.p) <= 1e-9 && v2_dist(q1, p1.p) <= 1e-9, "request %d misses an end by %g, %g", i,
                   v2_dist(q0, p0.p), v2_dist(q1, p1.p));
        ENSURE_MSG(angle_diff(a0, p0.angle) <= 1e-9 && angle_diff(a1, p1.angle) <= 1e-9,
                   "request %d misses a tangent by %g, %g", i, angle_diff(a0, p0.angle), angle_diff(a1, p1.angle));
    }
}

static void test_position_matches_integral(void)
{
    uint64_t st = 2;
    path_def def = path_default_def();
    for (int i = 0; i < 200; i++) {
        path_point p0, p1;
        path_segment seg;
        random_request(&st, 0.05, TWO_PI - 0.3, &p0, &p1);
        ENSURE(path_segment_fit(&def, p0, p1, &seg, NULL) == POYO_OK);
        for (int k = 1; k <= 4; k++) {
            double t = seg.theta_end * k / 4.0;
            v2 l = integrate_local(seg.a, seg.b, t);
            v2 want = v2_add(seg.origin, v2_rotate(v2_make(l.x, seg.turn * l.y), seg.heading));
            ENSURE_MSG(v2_dist(path_segment_point(&seg, t), want) <= 1e-10, "segment %d at %g off by %g", i, t,
                       v2_dist(path_segment_point(&seg, t), want));
        }
    }
}

static void test_arc_length_matches_numeric(void)
{
    uint64_t st = 3;
    path_def def = path_default_def();
    for (int i = 0; i < 200; i++) {
        path_point p0, p1;
        path_segment seg;
        random_request(&st, 0.05, TWO_PI - 0.3, &p0, &p1);
        ENSURE(path_segment_fit(&def, p0, p1, &seg, NULL) == POYO_OK);
        ENSURE_NEAR(seg.length, numeric_length(&seg, seg.theta_end), 1e-6);
        double t = rnd_in(&st, 0.0, seg.theta_end);
        ENSURE_NEAR(path_segment_length_at(&seg, t), numeric_length(&seg, t), 1e-6);
    }
}

static void test_inverse_arc_length_round_trips(void)
{
    uint64_t st = 4;
    path_def def = path_default_def();
    for (int i = 0; i < 500; i++) {
        path_point p0, p1;
        path_segment seg;
        random_request(&st, i % 5 ? 0.05 : 1e-6, TWO_PI - 0.3, &p0, &p1);
        ENSURE(path_segment_fit(&def, p0, p1, &seg, NULL) == POYO_OK);
        if (i % 7 == 0) { /* a circle, and one a rounding error away from it */
            seg.b = i % 14 ? 0.0 : 1e-18;
            seg.a = fmax(seg.a, 0.1);
            seg.length = seg.theta_end * (seg.a + 0.5 * seg.b * seg.theta_end);
        }
        for (int k = 0; k <= 10; k++) {
            double s = seg.length * k / 10.0;
            ENSURE_NEAR(path_segment_length_at(&seg, path_segment_theta_at(&seg, s)), s, 1e-12 * (1.0 + seg.length));
            double t = seg.theta_end * k / 10.0, r = seg.a + seg.b * t;
            if (r > 1e-3)
                ENSURE_NEAR(path_segment_theta_at(&seg, path_segment_length_at(&seg, t)), t, 1e-9);
        }
        ENSURE(path_segment_theta_at(&seg, -1.0) == 0.0);
        ENSURE(path_segment_theta_at(&seg, seg.length * 2.0) == seg.theta_end);
    }
}

/* Waypoints of a test path: a loop, an S that must split, a straight run. */
static const path_point demo_points[] = {
    { { 0.1, 0.2 }, 0.0 },  { { 0.5, 0.5 }, 1.2 },  { { 0.3, 0.9 }, 3.0 },  { { -0.2, 0.6 }, -1.9 },
    { { 0.1, 0.1 }, -0.3 }, { { 0.6, 0.3 }, -0.3 }, { { 1.0, 0.18 }, -0.3 }, { { 1.4, 0.18 }, 0.0 },
};

static path *demo_path(void)
{
    path_def def = path_default_def();
    path *p = NULL;
    poyo_error err = { "" };
    if (path_create(&def, demo_points, (int)(sizeof demo_points / sizeof demo_points[0]), &p, &err) != POYO_OK) {
        fprintf(stderr, "  demo path: %s\n", err.msg);
        return NULL;
    }
    return p;
}

/* Locates q on segment seg by scanning then golden-section search; returns the distance. */
static double locate(const path_segment *seg, v2 q, double *t_out)
{
    const int n = 2000;
    double end = param_end(seg), best = INFINITY, bt = 0.0;
    for (int i = 0; i <= n; i++) {
        double d = v2_dist(path_segment_point(seg, end * i / n), q);
        if (d < best) {
            best = d;
            bt = end * i / n;
        }
    }
    double lo = fmax(bt - end / n, 0.0), hi = fmin(bt + end / n, end), g = 0.5 * (sqrt(5.0) - 1.0);
    for (int it = 0; it < 200 && hi - lo > 1e-15; it++) {
        double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        if (v2_dist(path_segment_point(seg, m1), q) < v2_dist(path_segment_point(seg, m2), q))
            hi = m2;
        else
            lo = m1;
    }
    *t_out = 0.5 * (lo + hi);
    return fmin(best, v2_dist(path_segment_point(seg, *t_out), q));
}

static void test_equal_arc_sampling(void)
{
    enum { N = 40 };
    path *p = demo_path();
    ENSURE(p);
    int ns = path_segment_count(p);
    double before[64];
    ENSURE(ns < 64);
    before[0] = 0.0;
    for (int i = 0; i < ns; i++) {
        const path_segment *seg = path_segment_get(p, i);
        before[i + 1] = before[i] + numeric_length(seg, param_end(seg));
    }
    v2 pos[N];
    double ang[N], s_num[N];
    ENSURE(path_sample(p, N, pos, ang, NULL) == POYO_OK);
    for (int k = 0; k < N; k++) {
        double best = INFINITY;
        for (int i = 0; i < ns; i++) {
            double t, d = locate(path_segment_get(p, i), pos[k], &t);
            if (d < best) {
                best = d;
                s_num[k] = before[i] + numeric_length(path_segment_get(p, i), t);
            }
        }
        ENSURE_MSG(best <= 1e-9, "sample %d is %g off the path", k, best);
    }
    double step = path_length(p) / (N - 1);
    ENSURE_NEAR(before[ns], path_length(p), 1e-6);
    for (int k = 0; k + 1 < N; k++)
        ENSURE_NEAR(s_num[k + 1] - s_num[k], step, 1e-6);
    path_destroy(p);
}

/* Checks the closed-form nearest point against 10,000 samples of the segment. */
static int nearest_agrees(const path_segment *seg, v2 q)
{
    const int n = 10000;
    double end = param_end(seg), brute = INFINITY, spacing = 0.0, s;
    v2 prev = path_segment_point(seg, 0.0), pos;
    for (int i = 0; i <= n; i++) {
        v2 c = path_segment_point(seg, end * i / n);
        brute = fmin(brute, v2_dist(c, q));
        spacing = fmax(spacing, v2_dist(c, prev));
        prev = c;
    }
    double d = path_segment_nearest(seg, q, &s, &pos);
    v2 at;
    path_segment_eval(seg, s, &at, NULL);
    if (!(d <= brute + 1e-12) || !(brute - d <= spacing) || v2_dist(at, pos) > 1e-9 ||
        fabs(v2_dist(pos, q) - d) > 1e-12) {
        fprintf(stderr, "  nearest %g brute %g spacing %g (s %g, pos off %g)\n", d, brute, spacing, s,
                v2_dist(at, pos));
        return 0;
    }
    return 1;
}

static void test_nearest_matches_brute_force(void)
{
    uint64_t st = 5;
    path_def def = path_default_def();
    for (int i = 0; i < 150; i++) {
        path_point p0, p1;
        path_segment seg;
        random_request(&st, 0.05, TWO_PI - 0.3, &p0, &p1);
        ENSURE(path_segment_fit(&def, p0, p1, &seg, NULL) == POYO_OK);
        v2 centre = v2_add(seg.origin, v2_rotate(v2_make(-seg.b, seg.turn * seg.a), seg.heading));
        for (int k = 0; k < 8; k++) {
            v2 q = v2_make(rnd_in(&st, -3.0, 3.0), rnd_in(&st, -3.0, 3.0));
            if (k == 0) /* the centre of the evolute circle */
                q = centre;
            else if (k == 1) /* a point on the curve */
                q = path_segment_point(&seg, rnd_in(&st, 0.0, seg.theta_end));
            else if (k < 4) /* near the curve */
                q = v2_add(path_segment_point(&seg, rnd_in(&st, 0.0, seg.theta_end)),
                           v2_make(rnd_in(&st, -0.1, 0.1), rnd_in(&st, -0.1, 0.1)));
            ENSURE_MSG(nearest_agrees(&seg, q), "segment %d (a %g, b %g, turn %g) query %d", i, seg.a, seg.b,
                       seg.theta_end, k);
        }
    }
    path_point a = { { 0.0, 0.0 }, 0.5 }, b = { { 2.0 * cos(0.5), 2.0 * sin(0.5) }, 0.5 };
    path_segment line;
    ENSURE(path_segment_fit(&def, a, b, &line, NULL) == POYO_OK);
    for (int k = 0; k < 50; k++)
        ENSURE(nearest_agrees(&line, v2_make(rnd_in(&st, -2.0, 3.0), rnd_in(&st, -2.0, 3.0))));

    path *p = demo_path();
    ENSURE(p);
    for (int k = 0; k < 50; k++) {
        v2 q = v2_make(rnd_in(&st, -0.5, 1.6), rnd_in(&st, -0.2, 1.2)), pos, at;
        double s, d = path_nearest(p, q, &s, &pos), brute = INFINITY;
        for (int i = 0; i <= 10000; i++) {
            path_eval(p, path_length(p) * i / 10000.0, &at, NULL);
            brute = fmin(brute, v2_dist(at, q));
        }
        path_eval(p, s, &at, NULL);
        ENSURE(d <= brute + 1e-12);
        ENSURE(brute - d <= 2.0 * path_length(p) / 10000.0);
        ENSURE_SMALL(v2_dist(at, pos), 1e-9);
    }
    path_destroy(p);
}

static void test_s_split_is_tangent_continuous(void)
{
    uint64_t st = 6;
    path_def def = path_default_def();
    int splits = 0;
    for (int i = 0; i < 300; i++) {
        path_point p0, p1;
        path_segment seg[2];
        int count = 0;
        poyo_error err = { "" };
        double bend = rnd_in(&st, -1.0, 1.0), off = rnd_in(&st, 0.1, 0.8) * (bend > 0.0 ? -1.0 : 1.0);
        p0.p = v2_make(rnd_in(&st, -1.0, 1.0), rnd_in(&st, -1.0, 1.0));
        p0.angle = rnd_in(&st, -PI, PI);
        p1.p = v2_madd(p0.p, rnd_in(&st, 0.2, 2.0), v2_from_angle(p0.angle + off));
        p1.angle = p0.angle + bend;
        if (i == 0) { /* parallel tangents, endpoint to the side: the classic S */
            p0 = (path_point){ { 0.0, 0.0 }, 0.0 };
            p1 = (path_point){ { 2.0, 1.0 }, 0.0 };
        }
        if (path_segment_fit(&def, p0, p1, &seg[0], &err) == POYO_OK)
            continue;
        ENSURE(err.msg[0] != '\0');
        ENSURE_MSG(path_segment_join(&def, p0, p1, seg, &count, &err) == POYO_OK, "request %d: %s", i, err.msg);
        ENSURE(count == 2);
        splits++;
        ENSURE(segment_valid(&seg[0]) && segment_valid(&seg[1]));
        v2 q0, q1, q2, q3;
        double a0, a1, a2, a3;
        path_segment_eval(&seg[0], 0.0, &q0, &a0);
        path_segment_eval(&seg[0], seg[0].length, &q1, &a1);
        path_segment_eval(&seg[1], 0.0, &q2, &a2);
        path_segment_eval(&seg[1], seg[1].length, &q3, &a3);
        ENSURE_SMALL(v2_dist(q0, p0.p), 1e-9);
        ENSURE_SMALL(v2_dist(q3, p1.p), 1e-9);
        ENSURE_SMALL(v2_dist(q1, q2), 1e-9);
        ENSURE_SMALL(angle_diff(a0, p0.angle), 1e-9);
        ENSURE_SMALL(angle_diff(a3, p1.angle), 1e-9);
        ENSURE_SMALL(angle_diff(a1, a2), 1e-9);
        if (i == 0)
            ENSURE(seg[0].turn != seg[1].turn);
    }
    ENSURE_MSG(splits >= 100, "only %d requests needed a split", splits);
}

static void test_degenerate_requests_fail(void)
{
    path_def def = path_default_def();
    path *p = (path *)&def; /* must be reset to NULL on failure */
    poyo_error err;
    double nan = NAN;
    path_point good[2] = { { { 0.0, 0.0 }, 0.0 }, { { 1.0, 0.5 }, 0.9 } };
    struct {
        path_point pts[3];
        int n;
        const char *word;
    } bad[] = {
        { { { { 0.0, 0.0 }, 0.0 }, { { 0.0, 0.0 }, 1.0 } }, 2, "coincide" },
        { { { { 0.0, 0.0 }, 0.0 }, { { 1.0, 0.0 }, 0.0 }, { { 1.0, 0.0 }, 0.0 } }, 3, "waypoints 2 and 3" },
        { { { { 0.0, 0.0 }, 0.0 }, { { nan, 0.0 }, 0.0 } }, 2, "waypoint 2" },
        { { { { 0.0, 0.0 }, INFINITY }, { { 1.0, 0.0 }, 0.0 } }, 2, "waypoint 1" },
        { { { { 0.0, 0.0 }, 0.0 }, { { 1e300, 0.0 }, 0.0 } }, 2, "beyond" },
        { { { { 0.0, 0.0 }, 0.0 } }, 1, "at least 2" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        p = (path *)&def;
        ENSURE_MSG(path_create(&def, bad[i].pts, bad[i].n, &p, &err) == POYO_ERR_USAGE, "case %zu", i);
        ENSURE(p == NULL);
        ENSURE_MSG(strstr(err.msg, bad[i].word) != NULL, "case %zu: \"%s\"", i, err.msg);
    }
    ENSURE(path_create(&def, NULL, 2, &p, &err) == POYO_ERR_USAGE && p == NULL);
    ENSURE(path_create(&def, good, 2, NULL, &err) == POYO_ERR_USAGE);
    path_def odd = def;
    odd.straight_tolerance = NAN;
    ENSURE(path_create(&odd, good, 2, &p, &err) == POYO_ERR_USAGE && p == NULL);
    odd = def;
    odd.max_points = 1;
    ENSURE(path_create(&odd, good, 2, &p, &err) == POYO_ERR_USAGE && p == NULL);
    ENSURE(path_create(NULL, good, 2, &p, &err) == POYO_ERR_USAGE && p == NULL);

    /* An S with splitting switched off names the pair and the reason. */
    path_point s[2] = { { { 0.0, 0.0 }, 0.0 }, { { 2.0, 1.0 }, 0.0 } };
    odd = def;
    odd.allow_split = 0;
    err.msg[0] = '\0';
    ENSURE(path_create(&odd, s, 2, &p, &err) == POYO_ERR_USAGE && p == NULL);
    ENSURE_MSG(strstr(err.msg, "waypoints 1 and 2") && strstr(err.msg, "both ways"), "\"%s\"", err.msg);
    ENSURE(path_create(&def, s, 2, &p, &err) == POYO_OK);
    ENSURE(path_segment_count(p) == 2);
    path_destroy(p);

    path_segment seg;
    err.msg[0] = '\0';
    ENSURE(path_segment_fit(&def, good[0], good[0], &seg, &err) == POYO_ERR_USAGE && err.msg[0]);
    path_destroy(NULL);
}

static void test_straight_segments(void)
{
    path_def def = path_default_def();
    path_point pts[3] = { { { 1.0, 1.0 }, 0.25 * PI }, { { 3.0, 3.0 }, 0.25 * PI }, { { 4.0, 4.0 }, 0.25 * PI } };
    path *p = NULL;
    ENSURE(path_create(&def, pts, 3, &p, NULL) == POYO_OK);
    ENSURE(path_segment_count(p) == 2);
    ENSURE(path_segment_get(p, 0)->straight && path_segment_get(p, 1)->straight);
    ENSURE_NEAR(path_length(p), 3.0 * sqrt(2.0), 1e-12);
    for (int k = 0; k <= 10; k++) {
        v2 pos;
        double ang, s = path_length(p) * k / 10.0;
        path_eval(p, s, &pos, &ang);
        ENSURE_SMALL(v2_dist(pos, v2_madd(pts[0].p, s / sqrt(2.0), v2_make(1.0, 1.0))), 1e-12);
        ENSURE_SMALL(angle_diff(ang, 0.25 * PI), 1e-12);
    }
    v2 pos;
    double s, d = path_nearest(p, v2_make(3.0, 1.0), &s, &pos);
    ENSURE_NEAR(d, sqrt(2.0), 1e-12);
    ENSURE_NEAR(s, sqrt(2.0), 1e-12);
    ENSURE_NEAR(path_nearest(p, v2_make(0.0, 1.0), &s, &pos), 1.0, 1e-12); /* before the start */
    ENSURE(s == 0.0);
    path_destroy(p);

    /* Straight but off the tangent line, or backwards, is not one arc. */
    path_point side = { { 3.0, 1.1 }, 0.0 }, back = { { -3.0, 1.0 }, 0.0 }, start = { { 1.0, 1.0 }, 0.0 };
    path_segment seg;
    ENSURE(path_segment_fit(&def, start, side, &seg, NULL) == POYO_ERR_USAGE);
    ENSURE(path_segment_fit(&def, start, back, &seg, NULL) == POYO_ERR_USAGE);
}

static void test_turn_direction_and_range(void)
{
    path_def def = path_default_def();
    path_segment seg;
    path_point o = { { 0.0, 0.0 }, 0.0 };
    path_point up = { { 0.0, 1.0 }, PI }, down = { { 0.0, -1.0 }, PI }, down2 = { { 0.0, -1.0 }, -PI };
    /* Half circles of diameter 1, bending towards whichever side the end lies. */
    ENSURE(path_segment_fit(&def, o, up, &seg, NULL) == POYO_OK);
    ENSURE(seg.turn > 0.0);
    ENSURE_NEAR(seg.length, 0.5 * PI, 1e-12);
    ENSURE(path_segment_fit(&def, o, down, &seg, NULL) == POYO_OK);
    ENSURE(seg.turn < 0.0);
    ENSURE_NEAR(seg.length, 0.5 * PI, 1e-12);
    ENSURE(path_segment_fit(&def, o, down2, &seg, NULL) == POYO_OK);
    ENSURE_NEAR(seg.length, 0.5 * PI, 1e-12);
    /* Three quarters of the unit circle about (0, 1): the short way round cannot get there. */
    path_point three = { { -1.0, 1.0 }, -0.5 * PI };
    ENSURE(path_segment_fit(&def, o, three, &seg, NULL) == POYO_OK);
    ENSURE(seg.turn > 0.0);
    ENSURE_NEAR(seg.theta_end, 1.5 * PI, 1e-12);
    ENSURE_NEAR(seg.length, 1.5 * PI, 1e-9);
    v2 mid;
    path_segment_eval(&seg, 0.75 * PI, &mid, NULL);
    ENSURE_SMALL(v2_dist(mid, v2_make(sin(0.75 * PI), 1.0 - cos(0.75 * PI))), 1e-9);
}

static void test_path_joins_are_continuous(void)
{
    path *p = demo_path();
    ENSURE(p);
    int ns = path_segment_count(p), n = (int)(sizeof demo_points / sizeof demo_points[0]);
    ENSURE(ns > n - 1); /* the S between waypoints 4 and 5 splits */
    double sum = 0.0;
    for (int i = 0; i < ns; i++) {
        const path_segment *seg = path_segment_get(p, i);
        ENSURE(segment_valid(seg));
        ENSURE_NEAR(path_segment_offset(p, i), sum, 1e-12);
        sum += seg->length;
        if (i + 1 < ns) {
            v2 e, b;
            double ae, ab;
            path_segment_eval(seg, seg->length, &e, &ae);
            path_segment_eval(path_segment_get(p, i + 1), 0.0, &b, &ab);
            ENSURE_SMALL(v2_dist(e, b), 1e-9);
            ENSURE_SMALL(angle_diff(ae, ab), 1e-9);
        }
    }
    ENSURE_NEAR(path_length(p), sum, 1e-12);
    int hit = 0;
    for (int k = 0; k < n; k++) { /* every waypoint lies on the path with its tangent */
        v2 pos;
        double s, ang;
        ENSURE_SMALL(path_nearest(p, demo_points[k].p, &s, &pos), 1e-9);
        path_eval(p, s, NULL, &ang);
        hit += angle_diff(ang, demo_points[k].angle) <= 1e-9;
    }
    ENSURE(hit == n);
    v2 a, b;
    path_eval(p, -5.0, &a, NULL);
    path_eval(p, NAN, &b, NULL);
    ENSURE(v2_dist(a, demo_points[0].p) <= 1e-12 && v2_dist(b, demo_points[0].p) <= 1e-12);
    path_eval(p, 1e9, &a, NULL);
    ENSURE_SMALL(v2_dist(a, demo_points[n - 1].p), 1e-9);
    ENSURE(path_sample(p, 0, &a, NULL, NULL) == POYO_ERR_USAGE);
    ENSURE(path_sample(p, 1, &a, NULL, NULL) == POYO_OK && v2_dist(a, demo_points[0].p) <= 1e-12);
    path_destroy(p);
}

static void test_svg_d_follows_the_path(void)
{
    const double scale = 100.0, tol = 0.05;
    path *p = demo_path();
    ENSURE(p);
    size_t need = 0, again = 0;
    poyo_error err;
    ENSURE(path_svg_d(p, scale, scale, tol, NULL, 0, &need, &err) == POYO_OK);
    ENSURE(need > 10);
    char *buf = malloc(need + 1), small[16];
    ENSURE(buf);
    ENSURE(path_svg_d(p, scale, scale, tol, buf, need + 1, &again, &err) == POYO_OK);
    ENSURE(again == need && strlen(buf) == need && buf[0] == 'M');
    ENSURE(path_svg_d(p, scale, scale, tol, small, sizeof small, &again, &err) == POYO_OK);
    ENSURE(again == need && strlen(small) == sizeof small - 1 && strncmp(small, buf, sizeof small - 1) == 0);
    ENSURE(path_svg_d(p, scale, scale, 0.0, buf, need + 1, &again, &err) == POYO_ERR_USAGE);

    /* Every vertex and every chord midpoint lies within the tolerance of the path. */
    const char *c = buf;
    v2 prev = v2_make(0.0, 0.0);
    int count = 0, ok = 1;
    while (*c && ok) {
        char cmd;
        double x, y;
        int used = 0;
        if (sscanf(c, " %c%lf %lf%n", &cmd, &x, &y, &used) != 3) {
            ok = 0;
            break;
        }
        c += used;
        v2 q = v2_make(x / scale, y / scale);
        ok = (count == 0) == (cmd == 'M') && path_nearest(p, q, NULL, NULL) * scale <= 0.5 * tol;
        if (count > 0 && ok)
            ok = path_nearest(p, v2_lerp(prev, q, 0.5), NULL, NULL) * scale <= tol;
        prev = q;
        count++;
    }
    ENSURE_MSG(ok && count > 20, "vertex %d of the SVG path is off", count);
    ENSURE_SMALL(v2_dist(prev, demo_points[sizeof demo_points / sizeof demo_points[0] - 1].p), 1e-4);
    free(buf);
    path_destroy(p);
}

const struct test_case test_cases[] = {
    { "fit_meets_endpoints", test_fit_meets_endpoints },
    { "position_matches_integral", test_position_matches_integral },
    { "arc_length_matches_numeric", test_arc_length_matches_numeric },
    { "inverse_arc_length_round_trips", test_inverse_arc_length_round_trips },
    { "equal_arc_sampling", test_equal_arc_sampling },
    { "nearest_matches_brute_force", test_nearest_matches_brute_force },
    { "s_split_is_tangent_continuous", test_s_split_is_tangent_continuous },
    { "degenerate_requests_fail", test_degenerate_requests_fail },
    { "straight_segments", test_straight_segments },
    { "turn_direction_and_range", test_turn_direction_and_range },
    { "path_joins_are_continuous", test_path_joins_are_continuous },
    { "svg_d_follows_the_path", test_svg_d_follows_the_path },
    { NULL, NULL },
};
