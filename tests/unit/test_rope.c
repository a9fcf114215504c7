/* test_rope.c - properties of the PBD rope: constraint convergence, rest
 * without drift, the catenary, momentum-keeping damping, stability. */
#include "test.h"

#include <string.h>

#include "geom/rope.h"

static unsigned long long rng_state;

static void rng_seed(unsigned long long s) { rng_state = s * 2654435761ull + 1442695040888963407ull; }

/* Uniform in [lo, hi). */
static double rng_uniform(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static double max_rel_length_error(const rope *r)
{
    const v2 *x = rope_positions(r);
    double rest = rope_segment_length(r), worst = 0.0;
    for (int i = 0; i + 1 < rope_count(r); i++)
        worst = fmax(worst, fabs(v2_dist(x[i], x[i + 1]) - rest) / rest);
    return worst;
}

static double max_speed(const rope *r)
{
    const v2 *v = rope_velocities(r);
    double s = 0.0;
    for (int i = 0; i < rope_count(r); i++)
        s = fmax(s, v2_len(v[i]));
    return s;
}

static int all_finite(const rope *r)
{
    const v2 *x = rope_positions(r), *v = rope_velocities(r);
    for (int i = 0; i < rope_count(r); i++)
        if (!isfinite(x[i].x) || !isfinite(x[i].y) || !isfinite(v[i].x) || !isfinite(v[i].y))
            return 0;
    return 1;
}

/* Kinetic plus gravitational potential energy of the free particles. */
static double total_energy(const rope *r, v2 g)
{
    const v2 *x = rope_positions(r);
    const double *m = rope_masses(r);
    double e = rope_kinetic_energy(r);
    for (int i = 0; i < rope_count(r); i++)
        if (!rope_is_pinned(r, i))
            e -= m[i] * v2_dot(g, x[i]);
    return e;
}

static void test_defaults_build_a_straight_hanging_rope(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    poyo_error err = { "" };
    v2 top = v2_make(10.0, 20.0);
    ENSURE(rope_create(&d, top, top, &r, &err) == POYO_OK);
    ENSURE(rope_count(r) == d.count);
    ENSURE_NEAR(rope_segment_length(r) * (d.count - 1), d.length, 1e-9);
    const v2 *x = rope_positions(r);
    for (int i = 0; i < d.count; i++) {
        /* laid along gravity (+y, down) from the pin */
        ENSURE_NEAR(x[i].x, top.x, 1e-9);
        ENSURE_NEAR(x[i].y, top.y + i * rope_segment_length(r), 1e-9);
        ENSURE(rope_is_pinned(r, i) == (i == 0));
    }
    double msum = 0.0;
    for (int i = 0; i < d.count; i++)
        msum += rope_masses(r)[i];
    ENSURE_NEAR(msum, d.mass, 1e-12);
    ENSURE(max_speed(r) == 0.0);
    rope_destroy(r);
    rope_destroy(NULL);
}

static void test_load_mass_sits_on_the_free_end(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    d.load_mass = 3.0;
    d.pin = ROPE_PIN_END;
    ENSURE(rope_create(&d, v2_make(0, 0), v2_make(0, -1), &r, NULL) == POYO_OK);
    ENSURE_NEAR(rope_masses(r)[0], d.mass / d.count + 3.0, 1e-12);
    ENSURE_NEAR(rope_masses(r)[d.count - 1], d.mass / d.count, 1e-12);
    ENSURE(rope_is_pinned(r, d.count - 1) && !rope_is_pinned(r, 0));
    rope_destroy(r);
}

static int rejected(rope_def d, v2 a, v2 b)
{
    rope *r = (rope *)(void *)&d; /* any non-NULL value; must come back NULL */
    poyo_error err = { "" };
    poyo_status st = rope_create(&d, a, b, &r, &err);
    return st == POYO_ERR_USAGE && r == NULL && strlen(err.msg) > 10;
}

static void test_invalid_definitions_are_rejected(void)
{
    const rope_def base = rope_default_def();
    v2 o = v2_make(0, 0), e = v2_make(100, 0);
    rope_def d;
    d = base; d.count = 1; ENSURE(rejected(d, o, e));
    d = base; d.count = -5; ENSURE(rejected(d, o, e));
    d = base; d.count = ROPE_MAX_PARTICLES + 1; ENSURE(rejected(d, o, e));
    d = base; d.length = 0.0; ENSURE(rejected(d, o, e));
    d = base; d.length = -1.0; ENSURE(rejected(d, o, e));
    d = base; d.length = NAN; ENSURE(rejected(d, o, e));
    d = base; d.length = INFINITY; ENSURE(rejected(d, o, e));
    d = base; d.gravity.y = NAN; ENSURE(rejected(d, o, e));
    d = base; d.mass = 0.0; ENSURE(rejected(d, o, e));
    d = base; d.load_mass = -1.0; ENSURE(rejected(d, o, e));
    d = base; d.stiffness = 1.5; ENSURE(rejected(d, o, e));
    d = base; d.stiffness = NAN; ENSURE(rejected(d, o, e));
    d = base; d.damping = -0.1; ENSURE(rejected(d, o, e));
    d = base; d.damping = NAN; ENSURE(rejected(d, o, e));
    d = base; d.drag = -1.0; ENSURE(rejected(d, o, e));
    d = base; d.iterations = 0; ENSURE(rejected(d, o, e));
    d = base; d.substeps = 0; ENSURE(rejected(d, o, e));
    d = base; d.pin = (rope_pin_mode)42; ENSURE(rejected(d, o, e));
    d = base; ENSURE(rejected(d, v2_make(NAN, 0), e));
    d = base; d.pin = ROPE_PIN_BOTH; ENSURE(rejected(d, o, v2_make(base.length * 1.01, 0)));
    d = base; d.pin = ROPE_PIN_BOTH; d.load_mass = 1.0; ENSURE(rejected(d, o, e));
    ENSURE(rope_create(NULL, o, e, NULL, NULL) == POYO_ERR_USAGE);

    rope *r = NULL;
    poyo_error err = { "" };
    ENSURE(rope_create(&base, o, e, &r, &err) == POYO_OK);
    ENSURE(rope_step(r, NAN, &err) == POYO_ERR_USAGE);
    ENSURE(rope_step(r, -0.01, &err) == POYO_ERR_USAGE);
    ENSURE(rope_step(r, INFINITY, &err) == POYO_ERR_USAGE);
    ENSURE(rope_pin(r, -1, o, &err) == POYO_ERR_USAGE);
    ENSURE(rope_pin(r, base.count, o, &err) == POYO_ERR_USAGE);
    ENSURE(rope_pin(r, 0, v2_make(INFINITY, 0), &err) == POYO_ERR_USAGE);
    ENSURE(rope_apply_impulse(r, 3, v2_make(NAN, 0), &err) == POYO_ERR_USAGE);
    ENSURE(rope_set_mass(r, 3, 0.0, &err) == POYO_ERR_USAGE);
    ENSURE(rope_unpin(r, 99999, &err) == POYO_ERR_USAGE);
    ENSURE(strlen(err.msg) > 10);
    ENSURE(all_finite(r));
    rope_destroy(r);
}

/* A rope whose particles were kicked identically, stepped once with the given iterations. */
static double error_after_one_step(int iterations, double *unconstrained)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    d.count = 16;
    d.length = 150.0;
    d.gravity = v2_make(0.0, 0.0);
    d.damping = 0.0;
    d.stiffness = 1.0;
    d.substeps = 1;
    d.iterations = iterations;
    if (rope_create(&d, v2_make(0, 0), v2_make(1, 0), &r, NULL) != POYO_OK)
        return NAN;
    double dt = 1.0 / 60.0, kick = 0.3 * rope_segment_length(r) / dt;
    v2 moved[16];
    rng_seed(7);
    for (int i = 0; i < d.count; i++) {
        v2 dv = v2_make(rng_uniform(-kick, kick), rng_uniform(-kick, kick));
        rope_apply_impulse(r, i, dv, NULL);
        moved[i] = rope_is_pinned(r, i) ? rope_positions(r)[i] : v2_madd(rope_positions(r)[i], dt, dv);
    }
    *unconstrained = 0.0;
    for (int i = 0; i + 1 < d.count; i++)
        *unconstrained = fmax(*unconstrained, fabs(v2_dist(moved[i], moved[i + 1]) / rope_segment_length(r) - 1.0));
    rope_step(r, dt, NULL);
    double e = max_rel_length_error(r);
    rope_destroy(r);
    return e;
}

static void test_constraint_lengths_converge_with_iterations(void)
{
    double prev = INFINITY, before = 0.0;
    for (int it = 1; it <= 32; it *= 2) {
        double e = error_after_one_step(it, &before);
        ENSURE_MSG(isfinite(e), "iterations %d gave %g", it, e);
        ENSURE_MSG(e < before, "iterations %d: error %g not below the unconstrained %g", it, e, before);
        ENSURE_MSG(e < prev, "iterations %d: error %g did not drop below %g", it, e, prev);
        prev = e;
    }
    ENSURE_MSG(before > 0.1, "the perturbation (%g) is too small to test anything", before);
    /* Gauss-Seidel on a free chain needs on the order of count^2 iterations */
    double e256 = error_after_one_step(256, &before), e1000 = error_after_one_step(1000, &before);
    ENSURE_MSG(e256 < 1e-3 && e256 < prev, "256 iterations leave a relative length error of %g", e256);
    ENSURE_MSG(e1000 < 1e-6, "1000 iterations leave a relative length error of %g", e1000);
}

static void test_hanging_rope_settles_without_drift(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    v2 top = v2_make(50.0, 10.0);
    d.count = 20;
    d.iterations = 30;
    d.substeps = 4;
    d.damping = 0.1;
    d.drag = 1.0;
    d.load_mass = 0.5;
    /* released horizontally: it swings down and must come to rest below the pin */
    ENSURE(rope_create(&d, top, v2_add(top, v2_make(1, 0)), &r, NULL) == POYO_OK);
    double dt = 1.0 / 60.0;
    for (int s = 0; s < 60 * 40; s++)
        ENSURE(rope_step(r, dt, NULL) == POYO_OK);
    ENSURE(all_finite(r));
    ENSURE_MSG(max_speed(r) < 1e-6 * d.length, "still moving at %g units/s", max_speed(r));

    const v2 *x = rope_positions(r);
    int n = rope_count(r);
    for (int i = 0; i < n; i++)
        ENSURE_MSG(fabs(x[i].x - top.x) < 1e-6 * d.length, "particle %d is %g off the vertical", i, x[i].x - top.x);
    for (int i = 0; i + 1 < n; i++)
        ENSURE(x[i + 1].y > x[i].y);
    ENSURE_NEAR(x[n - 1].y - top.y, d.length, 2e-3 * d.length);

    v2 rest[20];
    memcpy(rest, x, sizeof rest);
    for (int s = 0; s < 60 * 60; s++)
        rope_step(r, dt, NULL);
    double moved = 0.0;
    for (int i = 0; i < n; i++)
        moved = fmax(moved, v2_dist(rest[i], rope_positions(r)[i]));
    ENSURE_MSG(moved < 1e-9 * d.length, "drifted %g units in a minute at rest", moved);
    rope_destroy(r);
}

/* The catenary parameter a with 2 a sinh(span / 2a) = length (length > span). */
static double catenary_a(double span, double length)
{
    double lo = 1e-6 * span, hi = 1e6 * span;
    for (int i = 0; i < 200; i++) {
        double mid = sqrt(lo * hi);
        if (2.0 * mid * sinh(span / (2.0 * mid)) > length)
            lo = mid;
        else
            hi = mid;
    }
    return sqrt(lo * hi);
}

static void test_slack_rope_hangs_as_a_catenary(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    double span = 200.0;
    d.count = 41;
    d.length = 300.0;
    d.pin = ROPE_PIN_BOTH;
    d.iterations = 100;
    d.substeps = 4;
    d.damping = 0.2;
    d.drag = 0.5;
    ENSURE(rope_create(&d, v2_make(0, 0), v2_make(span, 0), &r, NULL) == POYO_OK);
    for (int s = 0; s < 60 * 20; s++)
        rope_step(r, 1.0 / 60.0, NULL);
    ENSURE(all_finite(r));
    ENSURE_MSG(max_speed(r) < 1e-4 * d.length, "still moving at %g units/s", max_speed(r));
    ENSURE(max_rel_length_error(r) < 1e-3);

    const v2 *x = rope_positions(r);
    int n = rope_count(r);
    for (int i = 0; i < n; i++) {
        ENSURE_NEAR(x[i].x + x[n - 1 - i].x, span, 1e-4 * d.length);
        ENSURE_NEAR(x[i].y, x[n - 1 - i].y, 1e-4 * d.length);
    }
    double a = catenary_a(span, d.length);
    ENSURE_NEAR(2.0 * a * sinh(span / (2.0 * a)), d.length, 1e-9 * d.length);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double xc = x[i].x - 0.5 * span;
        double y = a * (cosh(span / (2.0 * a)) - cosh(xc / a)); /* y down, pins at y = 0 */
        worst = fmax(worst, fabs(x[i].y - y));
    }
    ENSURE_MSG(worst < 0.002 * d.length, "%g units from the catenary", worst);
    /* the sag itself, as a sharper check */
    double sag = a * (cosh(span / (2.0 * a)) - 1.0);
    ENSURE_NEAR(x[n / 2].y, sag, 0.005 * sag);
    rope_destroy(r);
}

static void momenta(const v2 *x, const v2 *v, const double *m, int n, v2 *p, double *l)
{
    *p = v2_make(0.0, 0.0);
    *l = 0.0;
    for (int i = 0; i < n; i++) {
        *p = v2_madd(*p, m[i], v[i]);
        *l += m[i] * v2_cross(x[i], v[i]);
    }
}

enum { NDAMP = 50 };

static void random_body(v2 *x, v2 *v, double *m, unsigned long long seed)
{
    rng_seed(seed);
    for (int i = 0; i < NDAMP; i++) {
        x[i] = v2_make(rng_uniform(-100, 300), rng_uniform(-50, 150));
        v[i] = v2_make(rng_uniform(-500, 500), rng_uniform(-500, 500));
        m[i] = rng_uniform(0.05, 5.0);
    }
}

static void test_damping_keeps_linear_and_angular_momentum(void)
{
    const double ks[] = { 0.0, 0.03, 0.5, 1.0 };
    for (int trial = 0; trial < 20; trial++) {
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
            v2 x[NDAMP], v[NDAMP], p0, p1;
            double m[NDAMP], l0, l1, scale_p = 0.0, scale_l = 0.0;
            random_body(x, v, m, 100u + (unsigned)trial);
            for (int i = 0; i < NDAMP; i++) {
                scale_p += m[i] * v2_len(v[i]);
                scale_l += m[i] * v2_len(x[i]) * v2_len(v[i]);
            }
            momenta(x, v, m, NDAMP, &p0, &l0);
            rope_damp_velocities(x, v, m, NDAMP, ks[j]);
            momenta(x, v, m, NDAMP, &p1, &l1);
            ENSURE_MSG(v2_len(v2_sub(p1, p0)) <= 1e-5 * scale_p, "k %g: linear momentum moved by %g",
                       ks[j], v2_len(v2_sub(p1, p0)));
            ENSURE_MSG(fabs(l1 - l0) <= 1e-5 * scale_l, "k %g: angular momentum moved by %g", ks[j], l1 - l0);
        }
    }
}

/* Mass-weighted rigid fit of v: centre of mass, its velocity and the angular velocity. */
static void rigid_fit(const v2 *x, const v2 *v, const double *m, int n, v2 *xcm, v2 *vcm, double *omega)
{
    double mass = 0.0, l = 0.0, inertia = 0.0;
    *xcm = *vcm = v2_make(0.0, 0.0);
    for (int i = 0; i < n; i++) {
        mass += m[i];
        xcm->x += m[i] * x[i].x;
        xcm->y += m[i] * x[i].y;
        vcm->x += m[i] * v[i].x;
        vcm->y += m[i] * v[i].y;
    }
    *xcm = v2_scale(*xcm, 1.0 / mass);
    *vcm = v2_scale(*vcm, 1.0 / mass);
    for (int i = 0; i < n; i++) {
        double rx = x[i].x - xcm->x, ry = x[i].y - xcm->y;
        l += m[i] * (rx * v[i].y - ry * v[i].x);
        inertia += m[i] * (rx * rx + ry * ry);
    }
    *omega = l / inertia;
}

static double nonrigid_energy(const v2 *x, const v2 *v, const double *m, int n)
{
    v2 xcm, vcm;
    double omega, e = 0.0;
    rigid_fit(x, v, m, n, &xcm, &vcm, &omega);
    for (int i = 0; i < n; i++) {
        double rx = x[i].x - xcm.x, ry = x[i].y - xcm.y;
        double dx = v[i].x - (vcm.x - omega * ry), dy = v[i].y - (vcm.y + omega * rx);
        e += 0.5 * m[i] * (dx * dx + dy * dy);
    }
    return e;
}

static void test_full_damping_leaves_only_rigid_motion(void)
{
    v2 x[NDAMP], v[NDAMP], before[NDAMP], xcm, vcm;
    double m[NDAMP], omega, vmax = 0.0;
    random_body(x, v, m, 5);
    memcpy(before, v, sizeof v);
    rigid_fit(x, v, m, NDAMP, &xcm, &vcm, &omega);
    ENSURE(nonrigid_energy(x, v, m, NDAMP) > 1.0);
    rope_damp_velocities(x, v, m, NDAMP, 1.0);
    for (int i = 0; i < NDAMP; i++) {
        v2 rigid = v2_make(vcm.x - omega * (x[i].y - xcm.y), vcm.y + omega * (x[i].x - xcm.x));
        ENSURE_SMALL(v2_dist(v[i], rigid), 1e-9 * 500.0);
        vmax = fmax(vmax, v2_dist(v[i], before[i]));
    }
    ENSURE(vmax > 1.0);
    /* rigid motion is left alone */
    memcpy(before, v, sizeof v);
    rope_damp_velocities(x, v, m, NDAMP, 1.0);
    rope_damp_velocities(x, v, m, NDAMP, 0.4);
    for (int i = 0; i < NDAMP; i++)
        ENSURE_SMALL(v2_dist(v[i], before[i]), 1e-9 * 500.0);
}

static void test_partial_damping_scales_nonrigid_energy(void)
{
    const double ks[] = { 0.0, 0.1, 0.5, 0.9 };
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        v2 x[NDAMP], v[NDAMP];
        double m[NDAMP];
        random_body(x, v, m, 11u + (unsigned)j);
        double e0 = nonrigid_energy(x, v, m, NDAMP);
        rope_damp_velocities(x, v, m, NDAMP, ks[j]);
        double e1 = nonrigid_energy(x, v, m, NDAMP);
        ENSURE_NEAR(e1, e0 * (1.0 - ks[j]) * (1.0 - ks[j]), 1e-9 * e0);
    }
}

static void test_damping_skips_massless_and_degenerate_sets(void)
{
    v2 x[3] = { { 0, 0 }, { 1, 0 }, { 2, 0 } };
    v2 v[3] = { { 5, 0 }, { 0, 3 }, { -1, 2 } };
    double m[3] = { 0.0, 2.0, 0.0 };
    rope_damp_velocities(x, v, m, 3, 1.0);
    ENSURE(v[0].x == 5.0 && v[0].y == 0.0 && v[2].x == -1.0 && v[2].y == 2.0);
    /* one particle: its whole velocity is rigid translation */
    ENSURE(v[1].x == 0.0 && v[1].y == 3.0);
    double none[3] = { 0.0, 0.0, 0.0 };
    rope_damp_velocities(x, v, none, 3, 1.0);
    ENSURE(v[1].y == 3.0);
    /* coincident particles: no rotation defined, no NaN */
    v2 same[3] = { { 1, 1 }, { 1, 1 }, { 1, 1 } };
    double ones[3] = { 1.0, 1.0, 1.0 };
    rope_damp_velocities(same, v, ones, 3, 1.0);
    for (int i = 0; i < 3; i++)
        ENSURE(isfinite(v[i].x) && isfinite(v[i].y));
    ENSURE_NEAR(v[0].x, 4.0 / 3.0, 1e-12);
}

static void test_zero_stiffness_is_free_flight(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    d.stiffness = 0.0;
    d.damping = 0.0;
    d.substeps = 1;
    ENSURE(rope_create(&d, v2_make(0, 0), v2_make(1, 0), &r, NULL) == POYO_OK);
    v2 x0 = rope_positions(r)[5];
    double dt = 0.01;
    for (int s = 0; s < 100; s++)
        rope_step(r, dt, NULL);
    /* semi-implicit Euler free fall: y = g dt^2 s (s + 1) / 2 */
    ENSURE_NEAR(rope_positions(r)[5].x, x0.x, 1e-9);
    ENSURE_NEAR(rope_positions(r)[5].y, x0.y + d.gravity.y * dt * dt * 100 * 101 / 2.0, 1e-6);
    rope_destroy(r);
}

static void test_stable_for_any_stiffness(void)
{
    const int iters[] = { 1, 5, 100 };
    for (int k = 0; k <= 20; k++) {
        for (size_t j = 0; j < sizeof iters / sizeof iters[0]; j++) {
            rope_def d = rope_default_def();
            rope *r = NULL;
            d.stiffness = k / 20.0;
            d.iterations = iters[j];
            d.damping = (k % 3) / 2.0;
            ENSURE(rope_create(&d, v2_make(0, 0), v2_make(1, 1), &r, NULL) == POYO_OK);
            rng_seed(1000u + (unsigned)k);
            for (int i = 0; i < d.count; i++)
                rope_apply_impulse(r, i, v2_make(rng_uniform(-3000, 3000), rng_uniform(-3000, 3000)), NULL);
            double e0 = total_energy(r, d.gravity), input = rope_kinetic_energy(r);
            double peak_len = 0.0, late_len = 0.0;
            for (int s = 0; s < 240; s++) {
                ENSURE(rope_step(r, 1.0 / 60.0, NULL) == POYO_OK);
                ENSURE_MSG(all_finite(r), "stiffness %g, %d iterations: NaN at step %d", d.stiffness, d.iterations, s);
                double e = total_energy(r, d.gravity);
                ENSURE_MSG(e <= e0 + 1e-9 * input, "stiffness %g, %d iterations: energy grew from %g to %g",
                           d.stiffness, d.iterations, e0, e);
                double len = (1.0 + max_rel_length_error(r)) * rope_segment_length(r);
                if (s < 120)
                    peak_len = fmax(peak_len, len);
                else
                    late_len = fmax(late_len, len);
            }
            if (d.stiffness > 0.0)
                ENSURE_MSG(late_len <= peak_len * 1.0001 && late_len < d.length,
                           "stiffness %g, %d iterations: segments grew to %g (first 2 s: %g)",
                           d.stiffness, d.iterations, late_len, peak_len);
            rope_destroy(r);
        }
    }
}

static void test_pin_drives_the_end_and_impulse_moves_the_rope(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    ENSURE(rope_create(&d, v2_make(0, 0), v2_make(0, 1), &r, NULL) == POYO_OK);
    ENSURE(rope_apply_impulse(r, 0, v2_make(100, 0), NULL) == POYO_OK);
    ENSURE(rope_velocities(r)[0].x == 0.0); /* pinned particles ignore impulses */
    ENSURE(rope_pin(r, 0, v2_make(30, 0), NULL) == POYO_OK);
    ENSURE(rope_step(r, 1.0 / 30.0, NULL) == POYO_OK);
    ENSURE(rope_positions(r)[0].x == 30.0 && rope_positions(r)[0].y == 0.0);
    ENSURE_NEAR(rope_velocities(r)[0].x, 30.0 * 30.0, 1e-9); /* the drive velocity */
    ENSURE(rope_velocities(r)[1].x > 0.0);                 /* the rope follows */

    ENSURE(rope_apply_impulse(r, d.count - 1, v2_make(-500, 0), NULL) == POYO_OK);
    ENSURE(rope_velocities(r)[d.count - 1].x < 0.0);
    ENSURE(rope_unpin(r, 0, NULL) == POYO_OK);
    ENSURE(!rope_is_pinned(r, 0));
    for (int s = 0; s < 30; s++)
        rope_step(r, 1.0 / 30.0, NULL);
    ENSURE(rope_positions(r)[0].y > 100.0); /* released, it falls */
    ENSURE(rope_set_mass(r, 2, 5.0, NULL) == POYO_OK && rope_masses(r)[2] == 5.0);
    rope_destroy(r);
}

/* Keeps every particle above the floor y = 150 (y down). */
static void floor_project(void *user, v2 *p, const double *inv_mass, int n)
{
    int *calls = user;
    ++*calls;
    for (int i = 0; i < n; i++)
        if (inv_mass[i] > 0.0 && p[i].y > 150.0)
            p[i].y = 150.0;
}

static void test_project_hook_adds_constraints(void)
{
    rope_def d = rope_default_def();
    rope *r = NULL;
    int calls = 0;
    d.project = floor_project;
    d.project_user = &calls;
    ENSURE(rope_create(&d, v2_make(0, 0), v2_make(1, 0), &r, NULL) == POYO_OK);
    for (int s = 0; s < 120; s++)
        rope_step(r, 1.0 / 60.0, NULL);
    ENSURE(calls == 120 * d.substeps * d.iterations);
    const v2 *x = rope_positions(r);
    ENSURE(x[0].x == 0.0 && x[0].y == 0.0);
    for (int i = 0; i < d.count; i++)
        ENSURE_MSG(x[i].y <= 150.0 + 1e-9, "particle %d below the floor at %g", i, x[i].y);
    ENSURE(x[d.count - 1].y > 149.0); /* lying on the floor */
    rope_destroy(r);
}

const struct test_case test_cases[] = {
    { "defaults_build_a_straight_hanging_rope", test_defaults_build_a_straight_hanging_rope },
    { "load_mass_sits_on_the_free_end", test_load_mass_sits_on_the_free_end },
    { "invalid_definitions_are_rejected", test_invalid_definitions_are_rejected },
    { "constraint_lengths_converge_with_iterations", test_constraint_lengths_converge_with_iterations },
    { "hanging_rope_settles_without_drift", test_hanging_rope_settles_without_drift },
    { "slack_rope_hangs_as_a_catenary", test_slack_rope_hangs_as_a_catenary },
    { "damping_keeps_linear_and_angular_momentum", test_damping_keeps_linear_and_angular_momentum },
    { "full_damping_leaves_only_rigid_motion", test_full_damping_leaves_only_rigid_motion },
    { "partial_damping_scales_nonrigid_energy", test_partial_damping_scales_nonrigid_energy },
    { "damping_skips_massless_and_degenerate_sets", test_damping_skips_massless_and_degenerate_sets },
    { "zero_stiffness_is_free_flight", test_zero_stiffness_is_free_flight },
    { "stable_for_any_stiffness", test_stable_for_any_stiffness },
    { "pin_drives_the_end_and_impulse_moves_the_rope", test_pin_drives_the_end_and_impulse_moves_the_rope },
    { "project_hook_adds_constraints", test_project_hook_adds_constraints },
    { NULL, NULL },
};
