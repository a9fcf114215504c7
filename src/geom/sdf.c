/* sdf.c - 2-D signed distance fields with analytic gradients, sphere tracing and
 * particle collision, after hecomi's "Unity で Raymarching で描画したオブジェクトとの
 * コリジョンを作ってみた" (2016) and Inigo Quilez's 2-D distance and smooth-minimum notes. */
#include "sdf.h"

#include <math.h>
#include <stdlib.h>

typedef struct sdf_node {
    sdf_op op;
    double k;
    sdf_shape shape;
} sdf_node;

struct sdf_scene {
    sdf_node *nodes;
    int count, cap;
};

/* Largest repetition index an endless repetition may reach (keeps k * period exact-ish). */
#define SDF_MAX_CELL 1e15
/* Most nodes one scene may hold. */
#define SDF_MAX_NODES (1 << 22)

sdf_def sdf_default_def(void)
{
    sdf_def d;
    d.restitution = 0.3;
    d.friction = 0.2;
    d.ray_eps = 1e-4;
    d.ray_max_steps = 256;
    d.iso_spacing_px = 16.0;
    return d;
}

/* ---- primitives ------------------------------------------------------- */

sdf_shape sdf_circle(v2 c, double r)
{
    sdf_shape s = { SDF_CIRCLE, c, v2_make(0.0, 0.0), r, v2_make(0.0, 0.0), { 0, 0 } };
    return s;
}

sdf_shape sdf_box(v2 c, v2 h)
{
    sdf_shape s = { SDF_BOX, c, h, 0.0, v2_make(0.0, 0.0), { 0, 0 } };
    return s;
}

sdf_shape sdf_rbox(v2 c, v2 h, double r)
{
    sdf_shape s = { SDF_RBOX, c, h, r, v2_make(0.0, 0.0), { 0, 0 } };
    return s;
}

sdf_shape sdf_plane(v2 p, v2 n)
{
    sdf_shape s = { SDF_PLANE, p, n, 0.0, v2_make(0.0, 0.0), { 0, 0 } };
    return s;
}

sdf_shape sdf_floor(double level)
{
    return sdf_plane(v2_make(0.0, level), v2_make(0.0, -1.0));
}

sdf_shape sdf_segment(v2 a, v2 b, double r)
{
    sdf_shape s = { SDF_SEGMENT, a, b, r, v2_make(0.0, 0.0), { 0, 0 } };
    return s;
}

sdf_shape sdf_repeat(sdf_shape s, v2 period, int nx, int ny)
{
    s.period = period;
    s.count[0] = nx;
    s.count[1] = ny;
    return s;
}

/* Box of half size h centred at the origin (Quilez's sdgBox). */
static double box_eval(v2 p, v2 h, v2 *grad)
{
    double sx = p.x < 0.0 ? -1.0 : 1.0, sy = p.y < 0.0 ? -1.0 : 1.0;
    v2 w = v2_make(fabs(p.x) - h.x, fabs(p.y) - h.y);
    double g = fmax(w.x, w.y);
    if (g > 0.0) {
        v2 q = v2_make(fmax(w.x, 0.0), fmax(w.y, 0.0));
        double l = v2_len(q);
        if (grad)
            *grad = v2_make(sx * q.x / l, sy * q.y / l);
        return l;
    }
    if (grad)
        *grad = w.x > w.y ? v2_make(sx, 0.0) : v2_make(0.0, sy);
    return g;
}

/* Distance to one copy of the primitive, ignoring repetition. */
static double base_eval(const sdf_shape *s, v2 p, v2 *grad)
{
    v2 g = v2_make(0.0, -1.0);
    double d;
    switch (s->kind) {
    case SDF_CIRCLE: {
        v2 q = v2_sub(p, s->a);
        double l = v2_len(q);
        if (l > 0.0)
            g = v2_scale(q, 1.0 / l);
        d = l - s->r;
        break;
    }
    case SDF_BOX:
        d = box_eval(v2_sub(p, s->a), s->b, &g);
        break;
    case SDF_RBOX:
        d = box_eval(v2_sub(p, s->a), v2_make(s->b.x - s->r, s->b.y - s->r), &g) - s->r;
        break;
    case SDF_PLANE: {
        v2 n = v2_normalize(s->b);
        g = n;
        d = v2_dot(v2_sub(p, s->a), n);
        break;
    }
    case SDF_SEGMENT: {
        v2 pa = v2_sub(p, s->a), ba = v2_sub(s->b, s->a);
        double l2 = v2_len2(ba), h = 0.0;
        if (l2 > 0.0)
            h = fmin(fmax(v2_dot(pa, ba) / l2, 0.0), 1.0);
        v2 q = v2_madd(pa, -h, ba);
        double l = v2_len(q);
        if (l > 0.0)
            g = v2_scale(q, 1.0 / l);
        else if (l2 > 0.0)
            g = v2_perp(v2_normalize(ba));
        d = l - s->r;
        break;
    }
    default:
        d = INFINITY;
        break;
    }
    if (grad)
        *grad = g;
    return d;
}

/* The point repetition is measured from. */
static v2 shape_anchor(const sdf_shape *s)
{
    return s->kind == SDF_SEGMENT ? v2_lerp(s->a, s->b, 0.5) : s->a;
}

/* Index of the copy nearest to coordinate x along one axis, clamped to the valid range. */
static double nearest_cell(double x, double anchor, double period, int count)
{
    double k = round((x - anchor) / period);
    double hi = count > 0 ? (double)(count - 1) : SDF_MAX_CELL;
    double lo = count > 0 ? 0.0 : -SDF_MAX_CELL;
    return fmin(fmax(k, lo), hi);
}

double sdf_shape_eval(const sdf_shape *s, v2 p, v2 *grad)
{
    if (s->period.x == 0.0 && s->period.y == 0.0)
        return base_eval(s, p, grad);
    v2 anchor = shape_anchor(s);
    int rx = s->period.x != 0.0, ry = s->period.y != 0.0;
    double kx = rx ? nearest_cell(p.x, anchor.x, s->period.x, s->count[0]) : 0.0;
    double ky = ry ? nearest_cell(p.y, anchor.y, s->period.y, s->count[1]) : 0.0;
    double best = INFINITY;
    v2 best_g = v2_make(0.0, -1.0);
    /* The nearest cell and its neighbours: exact while copies stay within a period. */
    for (int j = -ry; j <= ry; j++) {
        double cy = ky + j;
        if (ry && (cy < 0.0 || cy > s->count[1] - 1.0) && s->count[1] > 0)
            continue;
        for (int i = -rx; i <= rx; i++) {
            double cx = kx + i;
            if (rx && (cx < 0.0 || cx > s->count[0] - 1.0) && s->count[0] > 0)
                continue;
            v2 g;
            v2 q = v2_make(p.x - cx * s->period.x, p.y - cy * s->period.y);
            double d = base_eval(s, q, &g);
            if (d < best) {
                best = d;
                best_g = g;
            }
        }
    }
    if (best == INFINITY)
        best = base_eval(s, p, &best_g);
    if (grad)
        *grad = best_g;
    return best;
}

/* ---- operators ---------------------------------------------------------- */

double sdf_union(double a, double b) { return fmin(a, b); }

double sdf_smin_poly(double a, double b, double k)
{
    double m = fmin(a, b);
    if (!(k > 0.0))
        return m;
    double h = fmax(k - fabs(a - b), 0.0) / k;
    return m - h * h * k * 0.25;
}

double sdf_smin_exp(double a, double b, double k)
{
    double m = fmin(a, b);
    if (!(k > 0.0) || isinf(k))
        return m;
    return m - log1p(exp(-k * fabs(a - b))) / k;
}

double sdf_subtract(double a, double b) { return fmax(a, -b); }

/* Merges (b, gb) into (a, ga) with op, value and gradient together. */
static double combine(sdf_op op, double k, double a, v2 *ga, double b, v2 gb)
{
    switch (op) {
    case SDF_SMIN:
        if (k > 0.0) {
            double h = fmin(fmax(0.5 + 0.5 * (b - a) / k, 0.0), 1.0);
            *ga = v2_add(v2_scale(*ga, h), v2_scale(gb, 1.0 - h));
            return sdf_smin_poly(a, b, k);
        }
        break;
    case SDF_SMIN_EXP:
        if (k > 0.0 && !isinf(k)) {
            double e = exp(-k * fabs(a - b));
            double wa = b >= a ? 1.0 / (1.0 + e) : e / (1.0 + e);
            *ga = v2_add(v2_scale(*ga, wa), v2_scale(gb, 1.0 - wa));
            return sdf_smin_exp(a, b, k);
        }
        break;
    case SDF_SUBTRACT:
        if (-b > a) {
            *ga = v2_neg(gb);
            return -b;
        }
        return a;
    case SDF_UNION:
    default:
        break;
    }
    if (b < a) {
        *ga = gb;
        return b;
    }
    return a;
}

/* ---- scenes ------------------------------------------------------------- */

poyo_status sdf_scene_create(sdf_scene **out, poyo_error *err)
{
    if (!out)
        return poyo_fail(err, POYO_ERR_USAGE, "sdf_scene_create needs an output pointer");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return poyo_fail(err, POYO_ERR_NOMEM, "out of memory creating an SDF scene");
    return POYO_OK;
}

static int finite2(v2 v) { return isfinite(v.x) && isfinite(v.y); }

/* Checks one shape; normalises a plane's normal in place. */
static poyo_status check_shape(sdf_shape *s, poyo_error *err)
{
    if (!finite2(s->a) || !finite2(s->b) || !isfinite(s->r) || !finite2(s->period))
        return poyo_fail(err, POYO_ERR_USAGE, "shape parameters must be finite numbers");
    if (s->count[0] < 0 || s->count[1] < 0)
        return poyo_fail(err, POYO_ERR_USAGE, "repetition counts must not be negative");
    switch (s->kind) {
    case SDF_CIRCLE:
    case SDF_SEGMENT:
        if (s->r < 0.0)
            return poyo_fail(err, POYO_ERR_USAGE, "radius %g is negative", s->r);
        break;
    case SDF_BOX:
    case SDF_RBOX:
        if (s->b.x < 0.0 || s->b.y < 0.0)
            return poyo_fail(err, POYO_ERR_USAGE, "box half size (%g, %g) is negative", s->b.x, s->b.y);
        if (s->kind == SDF_RBOX && (s->r < 0.0 || s->r > fmin(s->b.x, s->b.y)))
            return poyo_fail(err, POYO_ERR_USAGE,
                             "corner radius %g must lie between 0 and the smaller half size %g",
                             s->r, fmin(s->b.x, s->b.y));
        break;
    case SDF_PLANE: {
        double l = v2_len(s->b);
        if (!(l > 0.0) || !isfinite(l))
            return poyo_fail(err, POYO_ERR_USAGE, "plane normal must be a nonzero finite vector");
        s->b = v2_scale(s->b, 1.0 / l);
        break;
    }
    default:
        return poyo_fail(err, POYO_ERR_USAGE, "unknown shape kind %d", (int)s->kind);
    }
    return POYO_OK;
}

poyo_status sdf_scene_add(sdf_scene *s, sdf_op op, double k, sdf_shape shape, poyo_error *err)
{
    if (!s)
        return poyo_fail(err, POYO_ERR_USAGE, "sdf_scene_add needs a scene");
    poyo_status st = check_shape(&shape, err);
    if (st != POYO_OK)
        return st;
    switch (op) {
    case SDF_UNION:
    case SDF_SUBTRACT:
        k = 0.0;
        break;
    case SDF_SMIN:
        if (!(k >= 0.0) || !isfinite(k))
            return poyo_fail(err, POYO_ERR_USAGE, "smooth-minimum width %g must be finite and >= 0", k);
        break;
    case SDF_SMIN_EXP:
        if (!(k > 0.0) || !isfinite(k))
            return poyo_fail(err, POYO_ERR_USAGE, "exponential smooth-minimum sharpness %g must be finite and > 0", k);
        break;
    default:
        return poyo_fail(err, POYO_ERR_USAGE, "unknown SDF operator %d", (int)op);
    }
    if (s->count == s->cap) {
        if (s->cap >= SDF_MAX_NODES)
            return poyo_fail(err, POYO_ERR_USAGE, "an SDF scene holds at most %d shapes", SDF_MAX_NODES);
        int cap = s->cap ? s->cap * 2 : 8;
        sdf_node *nodes = realloc(s->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return poyo_fail(err, POYO_ERR_NOMEM, "out of memory growing an SDF scene");
        s->nodes = nodes;
        s->cap = cap;
    }
    sdf_node *n = &s->nodes[s->count++];
    n->op = s->count == 1 ? SDF_UNION : op;
    n->k = k;
    n->shape = shape;
    return POYO_OK;
}

int sdf_scene_count(const sdf_scene *s) { return s ? s->count : 0; }

void sdf_scene_destroy(sdf_scene *s)
{
    if (!s)
        return;
    free(s->nodes);
    free(s);
}

double sdf_eval_grad(const sdf_scene *s, v2 p, v2 *grad)
{
    v2 g = v2_make(0.0, 0.0);
    double d = INFINITY;
    if (s && s->count > 0) {
        d = sdf_shape_eval(&s->nodes[0].shape, p, &g);
        for (int i = 1; i < s->count; i++) {
            const sdf_node *n = &s->nodes[i];
            v2 gb;
            double b = sdf_shape_eval(&n->shape, p, &gb);
            d = combine(n->op, n->k, d, &g, b, gb);
        }
    }
    if (grad)
        *grad = g;
    return d;
}

double sdf_eval(const sdf_scene *s, v2 p) { return sdf_eval_grad(s, p, NULL); }

v2 sdf_gradient(const sdf_scene *s, v2 p)
{
    v2 g;
    sdf_eval_grad(s, p, &g);
    return g;
}

v2 sdf_gradient_numeric(const sdf_scene *s, v2 p, double h)
{
    double dx = sdf_eval(s, v2_make(p.x + h, p.y)) - sdf_eval(s, v2_make(p.x - h, p.y));
    double dy = sdf_eval(s, v2_make(p.x, p.y + h)) - sdf_eval(s, v2_make(p.x, p.y - h));
    return v2_make(dx / (2.0 * h), dy / (2.0 * h));
}

/* Normal from an already computed gradient, with the fallbacks of sdf_normal. */
static v2 normal_from(const sdf_scene *s, v2 p, v2 g)
{
    if (v2_len(g) > 1e-9 && finite2(g))
        return v2_normalize(g);
    g = sdf_gradient_numeric(s, p, 1e-3 * fmax(1.0, fmax(fabs(p.x), fabs(p.y))));
    if (v2_len(g) > 1e-9 && finite2(g))
        return v2_normalize(g);
    return v2_make(0.0, -1.0);
}

v2 sdf_normal(const sdf_scene *s, v2 p)
{
    return normal_from(s, p, sdf_gradient(s, p));
}

/* ---- queries ------------------------------------------------------------ */

int sdf_raycast(const sdf_scene *s, v2 origin, v2 dir, double max_dist, int max_steps,
                double eps, double *t_hit, v2 *hit)
{
    if (!s || max_steps < 1 || !(max_dist >= 0.0) || !(eps > 0.0) || !finite2(origin) || !finite2(dir))
        return 0;
    v2 u = v2_normalize(dir);
    if (u.x == 0.0 && u.y == 0.0)
        return 0;
    double t = 0.0;
    for (int i = 0; i < max_steps; i++) {
        double d = sdf_eval(s, v2_madd(origin, t, u));
        if (isnan(d))
            return 0;
        if (d < eps) {
            if (d > 0.0)
                t += d; /* one last conservative step onto the surface */
            if (t > max_dist)
                return 0;
            if (t_hit)
                *t_hit = t;
            if (hit)
                *hit = v2_madd(origin, t, u);
            return 1;
        }
        t += d;
        if (t > max_dist)
            return 0;
    }
    return 0;
}

int sdf_collide(const sdf_scene *s, double radius, double restitution, double friction,
                v2 *p, v2 *v)
{
    if (!s || !p || !v || !finite2(*p))
        return 0;
    v2 g;
    double d = sdf_eval_grad(s, *p, &g);
    if (!(d < radius))
        return 0;
    v2 n = v2_make(0.0, -1.0);
    /* Newton steps along the normal: one is exact for exact fields (|grad| = 1);
     * smooth blends, where |grad| < 1, take a few more. */
    for (int it = 0; it < 16 && d < radius; it++) {
        double gl = v2_len(g);
        n = normal_from(s, *p, g);
        *p = v2_madd(*p, (radius - d) / (gl > 0.25 && gl < 1.0 ? gl : 1.0), n);
        d = sdf_eval_grad(s, *p, &g);
        if (d >= radius - 1e-12 * fmax(1.0, fabs(radius)))
            break;
    }
    double e = fmin(fmax(restitution, 0.0), 1.0);
    double f = fmin(fmax(friction, 0.0), 1.0);
    double vn = v2_dot(*v, n);
    v2 vt = v2_scale(v2_madd(*v, -vn, n), 1.0 - f);
    if (vn < 0.0)
        vn = -e * vn;
    *v = v2_madd(vt, vn, n);
    return 1;
}

/* ---- picture of the field ----------------------------------------------- */

static double clamp01(double x) { return fmin(fmax(x, 0.0), 1.0); }

void sdf_render_field(const sdf_scene *s, uint8_t *rgba, int w, int h, double iso_spacing_px)
{
    static const double inside[3] = { 0.96, 0.62, 0.32 };
    static const double outside[3] = { 0.42, 0.66, 0.95 };
    static const double contour[3] = { 0.13, 0.09, 0.08 };
    if (!rgba || w <= 0 || h <= 0)
        return;
    double falloff = 0.35 * (double)(w < h ? w : h);
    int iso = iso_spacing_px >= 2.0 && isfinite(iso_spacing_px);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            v2 g;
            double d = sdf_eval_grad(s, v2_make(x + 0.5, y + 0.5), &g);
            const double *base = d < 0.0 ? inside : outside;
            double ad = fabs(d);
            double c[3];
            double shade = isfinite(ad) ? 0.55 + 0.45 * exp(-ad / falloff) : 0.55;
            for (int i = 0; i < 3; i++)
                c[i] = base[i] * shade;
            if (iso && isfinite(ad)) {
                double f = ad / iso_spacing_px;
                double line = fabs(f - round(f)) * iso_spacing_px;
                if (round(f) >= 1.0) {
                    double cov = clamp01(1.0 - line);
                    for (int i = 0; i < 3; i++)
                        c[i] *= 1.0 - 0.22 * cov;
                }
            }
            if (isfinite(ad)) {
                /* Distance in pixels to the zero contour, corrected where blends shrink |grad|. */
                double px = ad / fmax(v2_len(g), 0.1);
                double cov = clamp01(1.6 - px);
                for (int i = 0; i < 3; i++)
                    c[i] += (contour[i] - c[i]) * cov;
            }
            uint8_t *o = rgba + ((size_t)y * (size_t)w + (size_t)x) * 4u;
            for (int i = 0; i < 3; i++)
                o[i] = (uint8_t)lrint(clamp01(c[i]) * 255.0);
            o[3] = 255;
        }
    }
}
