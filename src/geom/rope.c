/* rope.c - a 2-D rope stepped with Position Based Dynamics (Mueller, Heidelberger,
 * Hennix, Ratcliff 2007): predict, project distance constraints by Gauss-Seidel,
 * take velocities from the displacement; damping per the paper's section 3.5. */
#include "rope.h"

#include <math.h>
#include <stdlib.h>

struct rope {
    rope_def def;
    int n;
    double rest;          /* segment rest length */
    double k_iter;        /* stiffness per solver iteration */
    double k_damp;        /* damping per substep */
    v2 *x, *v, *p;
    v2 *pin;              /* pin target per particle (used when pinned) */
    double *m;            /* mass */
    double *w;            /* inverse mass, 0 when pinned */
    double *m_free;       /* mass of free particles, 0 for pinned (damping weights) */
    unsigned char *pinned;
};

rope_def rope_default_def(void)
{
    rope_def d;
    d.count = 24;
    d.length = 200.0;
    d.gravity = v2_make(0.0, 980.0);
    d.mass = 1.0;
    d.load_mass = 0.0;
    d.stiffness = 1.0;
    d.iterations = 20;
    d.substeps = 2;
    d.damping = 0.03;
    d.drag = 0.0;
    d.pin = ROPE_PIN_START;
    d.project = NULL;
    d.project_user = NULL;
    return d;
}

static int finite2(v2 a) { return isfinite(a.x) && isfinite(a.y); }

static poyo_status check_def(const rope_def *d, v2 start, v2 end, poyo_error *err)
{
    if (d->count < 2 || d->count > ROPE_MAX_PARTICLES)
        return poyo_fail(err, POYO_ERR_USAGE, "rope particle count must be between 2 and %d, not %d",
                         ROPE_MAX_PARTICLES, d->count);
    if (!(isfinite(d->length) && d->length > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope length must be a positive number, not %g", d->length);
    if (!finite2(d->gravity))
        return poyo_fail(err, POYO_ERR_USAGE, "rope gravity must be finite");
    if (!(isfinite(d->mass) && d->mass > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope mass must be a positive number, not %g", d->mass);
    if (!(isfinite(d->load_mass) && d->load_mass >= 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope load mass must be zero or a positive number, not %g",
                         d->load_mass);
    if (!(d->stiffness >= 0.0 && d->stiffness <= 1.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope stiffness must be between 0 and 1, not %g", d->stiffness);
    if (d->iterations < 1 || d->iterations > ROPE_MAX_ITERATIONS)
        return poyo_fail(err, POYO_ERR_USAGE, "rope solver iterations must be between 1 and %d, not %d",
                         ROPE_MAX_ITERATIONS, d->iterations);
    if (d->substeps < 1 || d->substeps > ROPE_MAX_SUBSTEPS)
        return poyo_fail(err, POYO_ERR_USAGE, "rope substeps must be between 1 and %d, not %d",
                         ROPE_MAX_SUBSTEPS, d->substeps);
    if (!(d->damping >= 0.0 && d->damping <= 1.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope damping must be between 0 and 1, not %g", d->damping);
    if (!(isfinite(d->drag) && d->drag >= 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "rope drag must be zero or a positive number, not %g", d->drag);
    if (d->pin != ROPE_PIN_START && d->pin != ROPE_PIN_END && d->pin != ROPE_PIN_BOTH &&
        d->pin != ROPE_PIN_NONE)
        return poyo_fail(err, POYO_ERR_USAGE, "rope pin mode %d is unknown", (int)d->pin);
    if (d->pin == ROPE_PIN_BOTH && d->load_mass > 0.0)
        return poyo_fail(err, POYO_ERR_USAGE, "a rope pinned at both ends has no free end to carry a load");
    if (!finite2(start) || !finite2(end))
        return poyo_fail(err, POYO_ERR_USAGE, "rope end points must be finite");
    if (d->pin == ROPE_PIN_BOTH && v2_dist(start, end) > d->length * (1.0 + 1e-9))
        return poyo_fail(err, POYO_ERR_USAGE,
                         "the pinned rope ends are %g apart but the rope is only %g long",
                         v2_dist(start, end), d->length);
    return POYO_OK;
}

/* Unit vector of a, else of b, else +y. */
static v2 direction_or(v2 a, v2 b)
{
    v2 u = v2_normalize(a);
    if (v2_len2(u) > 0.0)
        return u;
    u = v2_normalize(b);
    return v2_len2(u) > 0.0 ? u : v2_make(0.0, 1.0);
}

static void lay_out(rope *r, v2 start, v2 end)
{
    int n = r->n;
    double len = r->def.length;
    if (r->def.pin == ROPE_PIN_BOTH) {
        v2 chord = v2_sub(end, start);
        double d = v2_len(chord);
        v2 u = v2_normalize(chord);
        v2 g = r->def.gravity;
        v2 sag = v2_len2(u) > 0.0 ? v2_sub(g, v2_scale(u, v2_dot(g, u))) : g;
        v2 down = direction_or(sag, v2_len2(u) > 0.0 ? v2_perp(u) : g);
        double h = sqrt(fmax(0.0, 0.25 * len * len - 0.25 * d * d));
        v2 apex = v2_madd(v2_lerp(start, end, 0.5), h, down);
        v2 u1 = direction_or(v2_sub(apex, start), down);
        v2 u2 = direction_or(v2_sub(apex, end), down);
        for (int i = 0; i < n; i++) {
            double t = r->rest * i;
            r->x[i] = 2 * i < n - 1 ? v2_madd(start, t, u1)
                      : 2 * i > n - 1 ? v2_madd(end, len - t, u2)
                                      : apex;
        }
        r->x[n - 1] = end;
    } else {
        v2 u = direction_or(v2_sub(end, start), r->def.gravity);
        for (int i = 0; i < n; i++)
            r->x[i] = v2_madd(start, r->rest * i, u);
    }
    r->x[0] = start;
}

static void set_pinned(rope *r, int i, int on)
{
    r->pinned[i] = (unsigned char)(on != 0);
    r->w[i] = on ? 0.0 : 1.0 / r->m[i];
    r->m_free[i] = on ? 0.0 : r->m[i];
}

poyo_status rope_create(const rope_def *def, v2 start, v2 end, rope **out, poyo_error *err)
{
    poyo_status st;
    rope *r = NULL;
    if (!out || !def)
        return poyo_fail(err, POYO_ERR_USAGE, "rope_create needs a definition and an output pointer");
    *out = NULL;
    st = check_def(def, start, end, err);
    if (st != POYO_OK)
        return st;

    r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    size_t n = (size_t)def->count;
    r->def = *def;
    r->n = def->count;
    r->rest = def->length / (double)(def->count - 1);
    r->k_iter = 1.0 - pow(1.0 - def->stiffness, 1.0 / ((double)def->iterations * def->substeps));
    r->k_damp = 1.0 - pow(1.0 - def->damping, 1.0 / (double)def->substeps);
    r->x = calloc(n, sizeof *r->x);
    r->v = calloc(n, sizeof *r->v);
    r->p = calloc(n, sizeof *r->p);
    r->pin = calloc(n, sizeof *r->pin);
    r->m = calloc(n, sizeof *r->m);
    r->w = calloc(n, sizeof *r->w);
    r->m_free = calloc(n, sizeof *r->m_free);
    r->pinned = calloc(n, sizeof *r->pinned);
    if (!r->x || !r->v || !r->p || !r->pin || !r->m || !r->w || !r->m_free || !r->pinned)
        goto nomem;

    lay_out(r, start, end);
    for (int i = 0; i < r->n; i++) {
        r->m[i] = def->mass / (double)r->n;
        r->pin[i] = r->x[i];
    }
    if (def->pin == ROPE_PIN_END)
        r->m[0] += def->load_mass;
    else if (def->pin != ROPE_PIN_BOTH)
        r->m[r->n - 1] += def->load_mass;
    for (int i = 0; i < r->n; i++) {
        int on = (i == 0 && (def->pin == ROPE_PIN_START || def->pin == ROPE_PIN_BOTH)) ||
                 (i == r->n - 1 && (def->pin == ROPE_PIN_END || def->pin == ROPE_PIN_BOTH));
        set_pinned(r, i, on);
    }
    *out = r;
    return POYO_OK;

nomem:
    rope_destroy(r);
    return poyo_fail(err, POYO_ERR_NOMEM, "out of memory for a rope of %d particles", def->count);
}

void rope_destroy(rope *r)
{
    if (!r)
        return;
    free(r->x);
    free(r->v);
    free(r->p);
    free(r->pin);
    free(r->m);
    free(r->w);
    free(r->m_free);
    free(r->pinned);
    free(r);
}

void rope_damp_velocities(const v2 *x, v2 *v, const double *m, int n, double k)
{
    double mass = 0.0;
    v2 xcm = v2_make(0.0, 0.0), vcm = v2_make(0.0, 0.0);
    for (int i = 0; i < n; i++) {
        if (!(m[i] > 0.0))
            continue;
        mass += m[i];
        xcm = v2_madd(xcm, m[i], x[i]);
        vcm = v2_madd(vcm, m[i], v[i]);
    }
    if (!(mass > 0.0))
        return;
    xcm = v2_scale(xcm, 1.0 / mass);
    vcm = v2_scale(vcm, 1.0 / mass);

    double ang = 0.0, inertia = 0.0;
    for (int i = 0; i < n; i++) {
        if (!(m[i] > 0.0))
            continue;
        v2 r = v2_sub(x[i], xcm);
        ang += m[i] * v2_cross(r, v[i]);
        inertia += m[i] * v2_len2(r);
    }
    double omega = inertia > 0.0 ? ang / inertia : 0.0;
    if (!isfinite(omega))
        omega = 0.0;

    for (int i = 0; i < n; i++) {
        if (!(m[i] > 0.0))
            continue;
        v2 rigid = v2_madd(vcm, omega, v2_perp(v2_sub(x[i], xcm)));
        v[i] = v2_madd(v[i], k, v2_sub(rigid, v[i]));
    }
}

/* One Gauss-Seidel pass over the segments, forward or backward. */
static void project_segments(rope *r, int backward)
{
    int segs = r->n - 1;
    for (int s = 0; s < segs; s++) {
        int a = backward ? segs - 1 - s : s, b = a + 1;
        double wsum = r->w[a] + r->w[b];
        if (wsum <= 0.0)
            continue;
        v2 dp = v2_sub(r->p[a], r->p[b]);
        double d = v2_len(dp);
        if (!(d > 1e-12 * r->rest))
            continue;
        v2 corr = v2_scale(dp, r->k_iter * (d - r->rest) / (d * wsum));
        r->p[a] = v2_madd(r->p[a], -r->w[a], corr);
        r->p[b] = v2_madd(r->p[b], r->w[b], corr);
    }
}

static void substep(rope *r, double h, int left)
{
    int n = r->n;
    double keep = exp(-r->def.drag * h);
    for (int i = 0; i < n; i++)
        if (!r->pinned[i])
            r->v[i] = v2_scale(v2_madd(r->v[i], h, r->def.gravity), keep);
    rope_damp_velocities(r->x, r->v, r->m_free, n, r->k_damp);

    for (int i = 0; i < n; i++)
        r->p[i] = r->pinned[i] ? v2_lerp(r->x[i], r->pin[i], 1.0 / left) : v2_madd(r->x[i], h, r->v[i]);

    for (int it = 0; it < r->def.iterations; it++) {
        project_segments(r, it & 1);
        if (r->def.project) {
            r->def.project(r->def.project_user, r->p, r->w, n);
            for (int i = 0; i < n; i++)
                if (r->pinned[i])
                    r->p[i] = v2_lerp(r->x[i], r->pin[i], 1.0 / left);
        }
    }

    for (int i = 0; i < n; i++) {
        r->v[i] = v2_scale(v2_sub(r->p[i], r->x[i]), 1.0 / h);
        r->x[i] = r->p[i];
    }
}

poyo_status rope_step(rope *r, double dt, poyo_error *err)
{
    if (!r)
        return poyo_fail(err, POYO_ERR_USAGE, "rope_step needs a rope");
    if (!(dt >= 0.0 && dt <= ROPE_MAX_DT))
        return poyo_fail(err, POYO_ERR_USAGE, "rope time step must be between 0 and %g s, not %g",
                         ROPE_MAX_DT, dt);
    if (dt == 0.0)
        return POYO_OK;
    int subs = r->def.substeps;
    double h = dt / subs;
    for (int s = 0; s < subs; s++)
        substep(r, h, subs - s);
    for (int i = 0; i < r->n; i++)
        if (r->pinned[i])
            r->x[i] = r->pin[i];
    return POYO_OK;
}

int rope_count(const rope *r) { return r->n; }
double rope_segment_length(const rope *r) { return r->rest; }
const v2 *rope_positions(const rope *r) { return r->x; }
const v2 *rope_velocities(const rope *r) { return r->v; }
const double *rope_masses(const rope *r) { return r->m; }

int rope_is_pinned(const rope *r, int i) { return i >= 0 && i < r->n && r->pinned[i]; }

double rope_kinetic_energy(const rope *r)
{
    double e = 0.0;
    for (int i = 0; i < r->n; i++)
        e += 0.5 * r->m_free[i] * v2_len2(r->v[i]);
    return e;
}

static poyo_status check_index(const rope *r, int i, poyo_error *err)
{
    if (!r)
        return poyo_fail(err, POYO_ERR_USAGE, "no rope given");
    if (i < 0 || i >= r->n)
        return poyo_fail(err, POYO_ERR_USAGE, "rope particle %d does not exist (the rope has %d)", i, r->n);
    return POYO_OK;
}

poyo_status rope_pin(rope *r, int i, v2 at, poyo_error *err)
{
    poyo_status st = check_index(r, i, err);
    if (st != POYO_OK)
        return st;
    if (!finite2(at))
        return poyo_fail(err, POYO_ERR_USAGE, "a rope pin position must be finite");
    if (!r->pinned[i])
        set_pinned(r, i, 1);
    r->pin[i] = at;
    return POYO_OK;
}

poyo_status rope_unpin(rope *r, int i, poyo_error *err)
{
    poyo_status st = check_index(r, i, err);
    if (st != POYO_OK)
        return st;
    set_pinned(r, i, 0);
    return POYO_OK;
}

poyo_status rope_set_mass(rope *r, int i, double mass, poyo_error *err)
{
    poyo_status st = check_index(r, i, err);
    if (st != POYO_OK)
        return st;
    if (!(isfinite(mass) && mass > 0.0))
        return poyo_fail(err, POYO_ERR_USAGE, "a rope particle mass must be a positive number, not %g", mass);
    r->m[i] = mass;
    set_pinned(r, i, r->pinned[i]);
    return POYO_OK;
}

poyo_status rope_apply_impulse(rope *r, int i, v2 dv, poyo_error *err)
{
    poyo_status st = check_index(r, i, err);
    if (st != POYO_OK)
        return st;
    if (!finite2(dv))
        return poyo_fail(err, POYO_ERR_USAGE, "a rope velocity change must be finite");
    if (!r->pinned[i])
        r->v[i] = v2_add(r->v[i], dv);
    return POYO_OK;
}
