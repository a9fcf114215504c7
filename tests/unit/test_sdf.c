/* test_sdf.c - properties of the 2-D signed distance module: exact distances against
 * brute-force outlines, unit gradients, smooth-minimum bounds, repetition, sphere
 * tracing against analytic intersections, and the particle collision response. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "geom/sdf.h"
#include "geom/vec2.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

/* Uniform in [lo, hi), deterministic (xorshift64*). */
static double rnd(double lo, double hi)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    uint64_t x = g_rng * 0x2545F4914F6CDD1Dull;
    return lo + (hi - lo) * (double)(x >> 11) / 9007199254740992.0;
}

/* Distance from p to the segment a-b: to an end, or along the perpendicular. */
static double dist_point_segment(v2 p, v2 a, v2 b)
{
    v2 d = v2_sub(b, a);
    double len = v2_len(d);
    if (len == 0.0)
        return v2_dist(p, a);
    v2 u = v2_scale(d, 1.0 / len);
    double t = v2_dot(v2_sub(p, a), u);
    if (t <= 0.0)
        return v2_dist(p, a);
    if (t >= len)
        return v2_dist(p, b);
    return fabs(v2_cross(u, v2_sub(p, a)));
}

/* Distance from p to a closed polyline of n points. */
static double dist_polyline(v2 p, const v2 *pts, int n)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        best = fmin(best, dist_point_segment(p, pts[i], pts[(i + 1) % n]));
    return best;
}

/* Outline of a rounded rectangle (r = 0: a box), counter-clockwise, in pts (>= 4 * (q + 1)). */
static int rbox_outline(v2 c, v2 h, double r, int q, v2 *pts)
{
    v2 corner[4] = { { h.x - r, h.y - r }, { -(h.x - r), h.y - r }, { -(h.x - r), -(h.y - r) }, { h.x - r, -(h.y - r) } };
    int n = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i <= q; i++) {
            double ang = k * PI / 2 + (PI / 2) * i / q;
            pts[n++] = v2_add(c, v2_add(corner[k], v2_make(r * cos(ang), r * sin(ang))));
        }
    return n;
}

/* Whether p lies inside the rounded rectangle, tested by its definition. */
static int rbox_inside(v2 p, v2 c, v2 h, double r)
{
    double dx = fabs(p.x - c.x), dy = fabs(p.y - c.y);
    if (dx > h.x || dy > h.y)
        return 0;
    if (dx > h.x - r && dy > h.y - r)
        return hypot(dx - (h.x - r), dy - (h.y - r)) < r;
    return 1;
}

static void test_circle_exact(void)
{
    sdf_shape s = sdf_circle(v2_make(1.0, -2.0), 0.75);
    static v2 pts[4096];
    int n = 4096;
    for (int i = 0; i < n; i++)
        pts[i] = v2_make(1.0 + 0.75 * cos(2 * PI * i / n), -2.0 + 0.75 * sin(2 * PI * i / n));
    ENSURE_NEAR(sdf_shape_eval(&s, v2_make(1.0, -2.0), NULL), -0.75, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&s, v2_make(1.0 + 3.0, -2.0 + 4.0), NULL), 5.0 - 0.75, 1e-12);
    for (int i = 0; i < 300; i++) {
        v2 p = v2_make(rnd(-1.0, 3.0), rnd(-4.0, 0.0));
        double want = dist_polyline(p, pts, n);
        if (hypot(p.x - 1.0, p.y + 2.0) < 0.75)
            want = -want;
        ENSURE_NEAR(sdf_shape_eval(&s, p, NULL), want, 1e-5);
    }
}

static void test_box_and_rbox_exact(void)
{
    static v2 pts[4 * 801];
    v2 c = v2_make(-0.5, 0.25), h = v2_make(1.2, 0.6);
    sdf_shape box = sdf_box(c, h);
    /* A point beyond a corner by (3, 4) is 5 away; the centre is min half size deep. */
    ENSURE_NEAR(sdf_shape_eval(&box, v2_make(c.x + h.x + 3.0, c.y - h.y - 4.0), NULL), 5.0, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&box, c, NULL), -0.6, 1e-12);
    double radii[3] = { 0.0, 0.2, 0.6 };
    for (int ri = 0; ri < 3; ri++) {
        double r = radii[ri];
        sdf_shape s = r == 0.0 ? sdf_box(c, h) : sdf_rbox(c, h, r);
        int n = rbox_outline(c, h, r, r == 0.0 ? 1 : 800, pts);
        for (int i = 0; i < 400; i++) {
            v2 p = v2_make(rnd(-2.5, 1.5), rnd(-1.0, 1.5));
            double want = dist_polyline(p, pts, n);
            if (rbox_inside(p, c, h, r))
                want = -want;
            ENSURE_MSG(fabs(sdf_shape_eval(&s, p, NULL) - want) < 1e-5, "r %g at (%g, %g): %g vs %g", r,
                       p.x, p.y, sdf_shape_eval(&s, p, NULL), want);
        }
    }
}

static void test_plane_and_floor_exact(void)
{
    v2 a = v2_make(0.3, 0.1), n = v2_make(1.0, 2.0);
    sdf_shape s = sdf_plane(a, n);
    v2 along = v2_perp(n), b = v2_add(a, along);
    for (int i = 0; i < 200; i++) {
        v2 p = v2_make(rnd(-5, 5), rnd(-5, 5));
        /* Signed distance to the line a-b: positive on the side n points to. */
        double want = fabs(v2_cross(v2_sub(b, a), v2_sub(p, a))) / v2_len(v2_sub(b, a));
        if (v2_dot(v2_sub(p, a), n) < 0.0)
            want = -want;
        ENSURE_NEAR(sdf_shape_eval(&s, p, NULL), want, 1e-12);
    }
    sdf_shape f = sdf_floor(10.0);
    ENSURE_NEAR(sdf_shape_eval(&f, v2_make(123.0, 7.0), NULL), 3.0, 1e-12);    /* above, y down */
    ENSURE_NEAR(sdf_shape_eval(&f, v2_make(-4.0, 12.5), NULL), -2.5, 1e-12);   /* below: inside */
}

static void test_segment_exact(void)
{
    v2 a = v2_make(-1.0, 0.5), b = v2_make(2.0, -0.5);
    for (int ri = 0; ri < 2; ri++) {
        double r = ri ? 0.3 : 0.0;
        sdf_shape s = sdf_segment(a, b, r);
        for (int i = 0; i < 100; i++) {
            v2 p = v2_make(rnd(-2, 3), rnd(-2, 2));
            double best = INFINITY;
            for (int k = 0; k <= 20000; k++)
                best = fmin(best, v2_dist(p, v2_lerp(a, b, k / 20000.0)));
            /* Sampling overestimates the distance by at most half a sample spacing. */
            double got = sdf_shape_eval(&s, p, NULL);
            ENSURE_MSG(got <= best - r + 1e-12 && got >= best - r - 1.6e-4, "%g vs %g", got, best - r);
        }
    }
    sdf_shape dot = sdf_segment(a, a, 0.5);
    ENSURE_NEAR(sdf_shape_eval(&dot, v2_make(a.x + 2.0, a.y), NULL), 1.5, 1e-12);
}

/* A scene with one of each primitive, well apart. */
static sdf_scene *mixed_scene(void)
{
    sdf_scene *s = NULL;
    if (sdf_scene_create(&s, NULL) != POYO_OK)
        return NULL;
    sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(-3, -3), 1.0), NULL);
    sdf_scene_add(s, SDF_UNION, 0, sdf_box(v2_make(3, -3), v2_make(1.5, 0.7)), NULL);
    sdf_scene_add(s, SDF_UNION, 0, sdf_rbox(v2_make(3, 3), v2_make(1.0, 1.2), 0.4), NULL);
    sdf_scene_add(s, SDF_UNION, 0, sdf_segment(v2_make(-4, 2), v2_make(-2, 4), 0.5), NULL);
    sdf_scene_add(s, SDF_UNION, 0, sdf_plane(v2_make(0, 7), v2_make(0.2, -1.0)), NULL);
    return s;
}

/* How far p is from the medial axis of the mixed scene: the gap between the two nearest
 * shape distances, and for boxes inside the gap between the two nearest edges. */
static double medial_margin(const sdf_scene *s, v2 p)
{
    (void)s;
    sdf_shape sh[5] = { sdf_circle(v2_make(-3, -3), 1.0), sdf_box(v2_make(3, -3), v2_make(1.5, 0.7)),
                        sdf_rbox(v2_make(3, 3), v2_make(1.0, 1.2), 0.4),
                        sdf_segment(v2_make(-4, 2), v2_make(-2, 4), 0.5),
                        sdf_plane(v2_make(0, 7), v2_make(0.2, -1.0)) };
    double d1 = INFINITY, d2 = INFINITY;
    for (int i = 0; i < 5; i++) {
        double d = sdf_shape_eval(&sh[i], p, NULL);
        if (d < d1) {
            d2 = d1;
            d1 = d;
        } else if (d < d2) {
            d2 = d;
        }
    }
    double m = d2 - d1;
    /* Inside a box the medial axis is where two edges are equally near. */
    v2 bc[2] = { { 3, -3 }, { 3, 3 } }, bh[2] = { { 1.5, 0.7 }, { 0.6, 0.8 } };
    for (int i = 0; i < 2; i++) {
        double ex = bh[i].x - fabs(p.x - bc[i].x), ey = bh[i].y - fabs(p.y - bc[i].y);
        if (ex > 0 && ey > 0)
            m = fmin(m, fabs(ex - ey));
    }
    m = fmin(m, hypot(p.x + 3, p.y + 3)); /* circle centre */
    v2 a = v2_make(-4, 2), b = v2_make(-2, 4);
    m = fmin(m, dist_point_segment(p, a, b)); /* capsule core */
    return m;
}

static void test_gradient_unit_and_matches_differences(void)
{
    sdf_scene *s = mixed_scene();
    ENSURE(s != NULL);
    int checked = 0;
    for (int i = 0; i < 4000; i++) {
        v2 p = v2_make(rnd(-6, 6), rnd(-6, 9));
        if (medial_margin(s, p) < 0.01)
            continue;
        v2 g = sdf_gradient(s, p);
        v2 gn = sdf_gradient_numeric(s, p, 1e-6);
        ENSURE_MSG(fabs(v2_len(g) - 1.0) < 1e-3, "|grad| = %g at (%g, %g)", v2_len(g), p.x, p.y);
        ENSURE_MSG(v2_dist(g, gn) < 1e-3, "grad (%g, %g) vs differences (%g, %g) at (%g, %g)", g.x, g.y,
                   gn.x, gn.y, p.x, p.y);
        checked++;
    }
    ENSURE(checked > 3000);
    sdf_scene_destroy(s);
}

static void test_gradient_through_blends(void)
{
    sdf_op ops[3] = { SDF_SMIN, SDF_SMIN_EXP, SDF_SUBTRACT };
    double ks[3] = { 0.8, 3.0, 0.0 };
    for (int o = 0; o < 3; o++) {
        sdf_scene *s = NULL;
        ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
        ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(-1, 0), 1.0), NULL) == POYO_OK);
        ENSURE(sdf_scene_add(s, ops[o], ks[o], sdf_circle(v2_make(0.8, 0.2), 0.9), NULL) == POYO_OK);
        for (int i = 0; i < 500; i++) {
            v2 p = v2_make(rnd(-3, 3), rnd(-3, 3));
            /* Skip the kink of max() and the circle centres. */
            double da = v2_dist(p, v2_make(-1, 0)) - 1.0, db = v2_dist(p, v2_make(0.8, 0.2)) - 0.9;
            if (fabs(da + db) < 1e-3 || v2_dist(p, v2_make(-1, 0)) < 1e-2 || v2_dist(p, v2_make(0.8, 0.2)) < 1e-2)
                continue;
            if (ops[o] != SDF_SUBTRACT && fabs(da - db) < 1e-3)
                continue;
            v2 g = sdf_gradient(s, p), gn = sdf_gradient_numeric(s, p, 1e-6);
            ENSURE_MSG(v2_dist(g, gn) < 1e-4, "op %d at (%g, %g)", o, p.x, p.y);
        }
        sdf_scene_destroy(s);
    }
}

static void test_smooth_min_bounds(void)
{
    double ks[4] = { 0.05, 0.5, 2.0, 10.0 };
    for (int ki = 0; ki < 4; ki++) {
        double k = ks[ki];
        for (int i = 0; i <= 400; i++)
            for (int j = 0; j <= 400; j++) {
                double a = -2.0 + 4.0 * i / 400, b = -2.0 + 4.0 * j / 400, m = fmin(a, b);
                double sp = sdf_smin_poly(a, b, k), se = sdf_smin_exp(a, b, k);
                ENSURE_MSG(sp <= m && sp >= m - k / 4 - 1e-15, "poly a %g b %g k %g: %g", a, b, k, sp);
                ENSURE_MSG(se <= m && se >= m - log(2.0) / k - 1e-15, "exp a %g b %g k %g: %g", a, b, k, se);
                ENSURE(sp == sdf_smin_poly(b, a, k) && se == sdf_smin_exp(b, a, k));
                /* The polynomial blend is exactly min once the inputs are k apart. */
                if (fabs(a - b) >= k)
                    ENSURE(sp == m);
            }
        /* The bounds are reached where the inputs are equal. */
        ENSURE_NEAR(sdf_smin_poly(0.3, 0.3, k), 0.3 - k / 4, 1e-14);
        ENSURE_NEAR(sdf_smin_exp(0.3, 0.3, k), 0.3 - log(2.0) / k, 1e-14);
        /* The stable form agrees with the textbook one where that does not overflow. */
        double a = 0.37, b = 0.52;
        ENSURE_NEAR(sdf_smin_exp(a, b, k), -log(exp(-k * a) + exp(-k * b)) / k, 1e-12);
    }
    /* Large arguments: exp(-k a) would overflow or vanish in the textbook form. */
    ENSURE_NEAR(sdf_smin_exp(-1000.0, -999.0, 50.0), -1000.0, 1e-12);
    ENSURE_NEAR(sdf_smin_exp(5000.0, 5000.0, 10.0), 5000.0 - log(2.0) / 10.0, 1e-9);
    ENSURE(sdf_smin_poly(1.0, 2.0, 0.0) == 1.0 && sdf_smin_exp(1.0, 2.0, 0.0) == 1.0);
}

static void test_union_and_subtraction(void)
{
    sdf_scene *s = NULL;
    ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_box(v2_make(0, 0), v2_make(2, 1)), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_SUBTRACT, 0, sdf_circle(v2_make(2, 0), 0.8), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(-5, 0), 1.0), NULL) == POYO_OK);
    ENSURE(sdf_scene_count(s) == 3);
    ENSURE(sdf_eval(s, v2_make(2.0, 0.0)) > 0.0);                  /* carved out */
    ENSURE_NEAR(sdf_eval(s, v2_make(1.7, 0.0)), 0.5, 1e-12);       /* 0.5 inside the hole's rim */
    ENSURE_NEAR(sdf_eval(s, v2_make(-1.5, 0.0)), -0.5, 1e-12);     /* inside the box, by the left edge */
    ENSURE_NEAR(sdf_eval(s, v2_make(-5.0, 0.0)), -1.0, 1e-12);     /* union with the far circle */
    ENSURE_NEAR(sdf_eval(s, v2_make(-3.5, 0.0)), 0.5, 1e-12);      /* between them: nearer of the two */
    for (int i = 0; i < 200; i++) {
        double a = rnd(-3, 3), b = rnd(-3, 3);
        ENSURE(sdf_union(a, b) == fmin(a, b) && sdf_subtract(a, b) == fmax(a, -b));
    }
    sdf_scene_destroy(s);
    sdf_scene_destroy(NULL);
    sdf_scene *e = NULL;
    ENSURE(sdf_scene_create(&e, NULL) == POYO_OK);
    ENSURE(isinf(sdf_eval(e, v2_make(0, 0))) && sdf_eval(e, v2_make(0, 0)) > 0);
    ENSURE(!sdf_raycast(e, v2_make(0, 0), v2_make(1, 0), 100, 100, 1e-6, NULL, NULL));
    sdf_scene_destroy(e);
}

static void test_scene_add_rejects_bad_shapes(void)
{
    sdf_scene *s = NULL;
    poyo_error err = { "" };
    ENSURE(sdf_scene_create(&s, &err) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(0, 0), -1.0), &err) == POYO_ERR_USAGE);
    ENSURE(err.msg[0] != '\0');
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(NAN, 0), 1.0), &err) == POYO_ERR_USAGE);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_rbox(v2_make(0, 0), v2_make(1, 2), 1.5), &err) == POYO_ERR_USAGE);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_plane(v2_make(0, 0), v2_make(0, 0)), &err) == POYO_ERR_USAGE);
    ENSURE(sdf_scene_add(s, SDF_SMIN_EXP, 0.0, sdf_circle(v2_make(0, 0), 1.0), &err) == POYO_ERR_USAGE);
    ENSURE(sdf_scene_add(s, SDF_SMIN, INFINITY, sdf_circle(v2_make(0, 0), 1.0), &err) == POYO_ERR_USAGE);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_repeat(sdf_circle(v2_make(0, 0), 1), v2_make(1, 0), -1, 0), &err)
           == POYO_ERR_USAGE);
    ENSURE(sdf_scene_count(s) == 0);
    /* A plane normal of any length is normalised. */
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_plane(v2_make(0, 0), v2_make(0, -7)), &err) == POYO_OK);
    ENSURE_NEAR(sdf_eval(s, v2_make(3, -2)), 2.0, 1e-12);
    sdf_scene_destroy(s);
}

static void test_repetition(void)
{
    v2 period = v2_make(0.7, 0.9);
    sdf_shape base = sdf_rbox(v2_make(0.1, -0.2), v2_make(0.25, 0.3), 0.1);
    sdf_shape rep = sdf_repeat(base, period, 0, 0);
    for (int i = 0; i < 500; i++) {
        v2 p = v2_make(rnd(-5, 5), rnd(-5, 5));
        int kx = (int)floor(rnd(-20, 20)), ky = (int)floor(rnd(-20, 20));
        v2 q = v2_make(p.x + kx * period.x, p.y + ky * period.y);
        ENSURE_NEAR(sdf_shape_eval(&rep, p, NULL), sdf_shape_eval(&rep, q, NULL), 1e-9);
        /* Equal to the union of explicit copies around p. */
        double want = INFINITY;
        for (int a = -12; a <= 12; a++)
            for (int b = -12; b <= 12; b++) {
                sdf_shape c = base;
                c.a = v2_add(base.a, v2_make(a * period.x, b * period.y));
                want = fmin(want, sdf_shape_eval(&c, p, NULL));
            }
        ENSURE_NEAR(sdf_shape_eval(&rep, p, NULL), want, 1e-12);
    }
    /* Limited: copies 0..2 along x only, to the left for a negative period. */
    sdf_shape lim = sdf_repeat(sdf_circle(v2_make(1.0, 1.0), 0.2), v2_make(-0.5, 0.0), 3, 0);
    for (int k = 0; k < 3; k++)
        ENSURE_NEAR(sdf_shape_eval(&lim, v2_make(1.0 - 0.5 * k, 1.0), NULL), -0.2, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&lim, v2_make(1.5, 1.0), NULL), 0.3, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&lim, v2_make(-0.5, 1.0), NULL), 0.3, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&lim, v2_make(-10.0, 1.0), NULL), 10.0 - 0.2, 1e-12);
    ENSURE_NEAR(sdf_shape_eval(&lim, v2_make(0.5, 4.0), NULL), 3.0 - 0.2, 1e-12);
    /* A segment repeats about its midpoint with an exact gradient. */
    sdf_shape seg = sdf_repeat(sdf_segment(v2_make(0, 0), v2_make(0.4, 0), 0.05), v2_make(1.0, 1.0), 0, 0);
    for (int i = 0; i < 200; i++) {
        v2 p = v2_make(rnd(-3, 3), rnd(-3, 3)), g;
        double d = sdf_shape_eval(&seg, p, &g);
        double want = INFINITY;
        for (int a = -5; a <= 5; a++)
            for (int b = -5; b <= 5; b++)
                want = fmin(want, dist_point_segment(p, v2_make(a, b), v2_make(a + 0.4, b)) - 0.05);
        ENSURE_NEAR(d, want, 1e-12);
        ENSURE_NEAR(v2_len(g), 1.0, 1e-12);
    }
}

/* Smallest t >= 0 where origin + t u enters the circle, or -1. */
static double ray_circle(v2 o, v2 u, v2 c, double r)
{
    v2 oc = v2_sub(o, c);
    double b = v2_dot(oc, u), cc = v2_len2(oc) - r * r, disc = b * b - cc;
    if (disc < 0)
        return -1;
    double t = -b - sqrt(disc);
    return t >= 0 ? t : -1;
}

/* Slab method for an axis-aligned box; entry t or -1. */
static double ray_box(v2 o, v2 u, v2 c, v2 h)
{
    double t0 = 0, t1 = INFINITY;
    double oo[2] = { o.x, o.y }, uu[2] = { u.x, u.y }, lo[2] = { c.x - h.x, c.y - h.y }, hi[2] = { c.x + h.x, c.y + h.y };
    for (int i = 0; i < 2; i++) {
        if (uu[i] == 0) {
            if (oo[i] < lo[i] || oo[i] > hi[i])
                return -1;
            continue;
        }
        double a = (lo[i] - oo[i]) / uu[i], b = (hi[i] - oo[i]) / uu[i];
        t0 = fmax(t0, fmin(a, b));
        t1 = fmin(t1, fmax(a, b));
    }
    return t0 <= t1 ? t0 : -1;
}

static void test_raycast_matches_analytic(void)
{
    for (int kind = 0; kind < 3; kind++) {
        v2 c = v2_make(2.0, 1.0), h = v2_make(0.8, 0.5);
        double r = 0.9;
        sdf_scene *s = NULL;
        ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
        sdf_shape shape = kind == 0 ? sdf_circle(c, r) : kind == 1 ? sdf_box(c, h) : sdf_floor(4.0);
        ENSURE(sdf_scene_add(s, SDF_UNION, 0, shape, NULL) == POYO_OK);
        int hits = 0;
        for (int i = 0; i < 300; i++) {
            v2 o = v2_make(rnd(-6, -2), rnd(-4, 3));
            /* Aim at a point well inside so rays do not graze. */
            v2 target = kind == 2 ? v2_make(rnd(-5, 5), 6.0) : v2_add(c, v2_make(rnd(-0.4, 0.4), rnd(-0.3, 0.3)));
            v2 dir = v2_scale(v2_sub(target, o), rnd(0.1, 10));
            v2 u = v2_normalize(dir);
            double want = kind == 0 ? ray_circle(o, u, c, r) : kind == 1 ? ray_box(o, u, c, h) : (4.0 - o.y) / u.y;
            double t = -1;
            v2 hit;
            int got = sdf_raycast(s, o, dir, 100.0, 10000, 1e-10, &t, &hit);
            ENSURE_MSG(got == 1 && want >= 0, "kind %d: no hit", kind);
            ENSURE_MSG(fabs(t - want) < 1e-6, "kind %d: t %.12g vs %.12g", kind, t, want);
            ENSURE(v2_dist(hit, v2_madd(o, t, u)) < 1e-12);
            hits++;
            /* The same ray pointed away misses; a short one stops before the surface. */
            ENSURE(!sdf_raycast(s, o, v2_neg(dir), 100.0, 10000, 1e-10, NULL, NULL));
            ENSURE(!sdf_raycast(s, o, dir, want * 0.9, 10000, 1e-10, NULL, NULL));
        }
        ENSURE(hits == 300);
        /* Starting inside hits at once. */
        double t = -1;
        ENSURE(sdf_raycast(s, kind == 2 ? v2_make(0, 5) : c, v2_make(1, 0), 10, 10, 1e-6, &t, NULL) && t == 0.0);
        /* Degenerate requests miss instead of looping. */
        ENSURE(!sdf_raycast(s, v2_make(-5, 0), v2_make(0, 0), 10, 10, 1e-6, NULL, NULL));
        ENSURE(!sdf_raycast(s, v2_make(NAN, 0), v2_make(1, 0), 10, 10, 1e-6, NULL, NULL));
        ENSURE(!sdf_raycast(s, v2_make(-5, 0), v2_make(1, 0), 10, 0, 1e-6, NULL, NULL));
        sdf_scene_destroy(s);
    }
}

static void test_collide_response(void)
{
    sdf_scene *s = NULL;
    ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_floor(10.0), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(50, 0), 5.0), NULL) == POYO_OK);
    /* Buried in the floor while moving down (+y) and sideways. */
    v2 p = v2_make(0.0, 10.5), v = v2_make(3.0, 4.0);
    ENSURE(sdf_collide(s, 1.0, 0.5, 0.25, &p, &v) == 1);
    ENSURE_NEAR(p.y, 9.0, 1e-12);
    ENSURE_NEAR(p.x, 0.0, 1e-12);
    ENSURE_NEAR(sdf_eval(s, p), 1.0, 1e-12);
    ENSURE_NEAR(v.y, -0.5 * 4.0, 1e-12);
    ENSURE_NEAR(v.x, 3.0 * 0.75, 1e-12);
    /* Touching but already leaving: the normal speed is kept, friction still applies. */
    p = v2_make(0.0, 9.5);
    v = v2_make(2.0, -1.0);
    ENSURE(sdf_collide(s, 1.0, 0.5, 0.5, &p, &v) == 1);
    ENSURE_NEAR(v.y, -1.0, 1e-12);
    ENSURE_NEAR(v.x, 1.0, 1e-12);
    /* Inside the circle at an angle: pushed out radially to the particle radius. */
    for (int i = 0; i < 100; i++) {
        double ang = rnd(0, 2 * PI), depth = rnd(0.1, 4.5), rad = rnd(0, 0.5);
        v2 n = v2_from_angle(ang);
        p = v2_madd(v2_make(50, 0), 5.0 - depth, n);
        v = v2_make(rnd(-3, 3), rnd(-3, 3));
        double vn = v2_dot(v, n), vt = v2_cross(n, v);
        ENSURE(sdf_collide(s, rad, 1.0, 0.0, &p, &v) == 1);
        ENSURE(v2_dist(p, v2_madd(v2_make(50, 0), 5.0 + rad, n)) < 1e-9);
        ENSURE_NEAR(v2_dot(v, n), fabs(vn), 1e-9);   /* e = 1: speed into the surface flips */
        ENSURE_NEAR(v2_cross(n, v), vt, 1e-9);       /* no friction: tangential kept */
    }
    /* Free particles are left alone. */
    p = v2_make(20.0, 0.0);
    v = v2_make(1.0, 1.0);
    ENSURE(sdf_collide(s, 1.0, 0.5, 0.5, &p, &v) == 0);
    ENSURE(p.x == 20.0 && p.y == 0.0 && v.x == 1.0 && v.y == 1.0);
    sdf_scene_destroy(s);
}

static void test_collide_on_smooth_blend(void)
{
    sdf_scene *s = NULL;
    ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_floor(10.0), NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_SMIN, 3.0, sdf_circle(v2_make(0, 7), 2.0), NULL) == POYO_OK);
    int contacts = 0;
    for (int i = 0; i < 200; i++) {
        v2 p = v2_make(rnd(-6, 6), rnd(4, 11)), v = v2_make(0, 1);
        if (sdf_eval(s, p) >= 0.5)
            continue;
        contacts++;
        ENSURE(sdf_collide(s, 0.5, 0.3, 0.2, &p, &v) == 1);
        ENSURE_MSG(sdf_eval(s, p) > 0.5 - 1e-6, "left at %g", sdf_eval(s, p));
        ENSURE(isfinite(v.x) && isfinite(v.y));
    }
    ENSURE(contacts > 50);
    sdf_scene_destroy(s);
}

static void test_render_field_colours(void)
{
    enum { W = 64, H = 48 };
    static uint8_t px[W * H * 4];
    sdf_scene *s = NULL;
    ENSURE(sdf_scene_create(&s, NULL) == POYO_OK);
    ENSURE(sdf_scene_add(s, SDF_UNION, 0, sdf_circle(v2_make(32, 24), 12.0), NULL) == POYO_OK);
    sdf_render_field(s, px, W, H, 8.0);
    const uint8_t *in = px + (24 * W + 32) * 4, *out = px + (2 * W + 2) * 4, *edge = px + (24 * W + 44) * 4;
    ENSURE(in[0] > in[2]);    /* warm inside */
    ENSURE(out[2] > out[0]);  /* cool outside */
    ENSURE(edge[0] + edge[1] + edge[2] < in[0] + in[1] + in[2] && edge[0] + edge[1] + edge[2] < out[0] + out[1] + out[2]);
    for (int i = 0; i < W * H; i++)
        ENSURE(px[i * 4 + 3] == 255);
    sdf_scene_destroy(s);
    sdf_def d = sdf_default_def();
    ENSURE(d.restitution >= 0 && d.restitution <= 1 && d.friction >= 0 && d.friction <= 1);
    ENSURE(d.ray_eps > 0 && d.ray_max_steps >= 1 && d.iso_spacing_px >= 0);
}

const struct test_case test_cases[] = {
    { "circle_exact", test_circle_exact },
    { "box_and_rbox_exact", test_box_and_rbox_exact },
    { "plane_and_floor_exact", test_plane_and_floor_exact },
    { "segment_exact", test_segment_exact },
    { "gradient_unit_and_matches_differences", test_gradient_unit_and_matches_differences },
    { "gradient_through_blends", test_gradient_through_blends },
    { "smooth_min_bounds", test_smooth_min_bounds },
    { "union_and_subtraction", test_union_and_subtraction },
    { "scene_add_rejects_bad_shapes", test_scene_add_rejects_bad_shapes },
    { "repetition", test_repetition },
    { "raycast_matches_analytic", test_raycast_matches_analytic },
    { "collide_response", test_collide_response },
    { "collide_on_smooth_blend", test_collide_on_smooth_blend },
    { "render_field_colours", test_render_field_colours },
    { NULL, NULL },
};
