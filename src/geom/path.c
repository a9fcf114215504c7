/* path.c - involute-curve segments fitted to waypoints with tangents, after
 * FriendSea, "インボリュート曲線" (2018): radius of curvature a + b theta, exact arc
 * length and inverse, nearest point by atan2 and the two acos branches. */
#include "path.h"
#include "vec2.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI (2.0 * PI)
#define COORD_LIMIT 1e15           /* |x|, |y| of a waypoint */
#define SPLIT_STEPS 90             /* last-resort joint tangents: 2 * SPLIT_STEPS around the circle */
#define SPLIT_STEP (PI / SPLIT_STEPS)

struct path {
    int count;
    path_segment *seg;
    double *offset; /* arc length where each segment starts */
    double length;
};

/* Why a pair of waypoints cannot be joined. */
typedef enum join_result {
    JOIN_OK,
    JOIN_COINCIDENT,
    JOIN_NO_ARC,   /* no single arc with non-negative radius of curvature */
    JOIN_NO_SPLIT  /* not even two arcs */
} join_result;

path_def path_default_def(void)
{
    path_def d;
    d.straight_tolerance = 1e-9;
    d.allow_split = 1;
    d.max_points = 1000000;
    return d;
}

double path_wrap_angle(double angle)
{
    double r = remainder(angle, TWO_PI);
    return r <= -PI ? r + TWO_PI : r;
}

/* sin t - t cos t, by its series where the difference cancels. */
static double fn_g(double t)
{
    if (fabs(t) < 0.5) {
        double t2 = t * t, term = t * t2 / 6.0, sum = 0.0; /* t^(2k+1) / (2k+1)! for k = 1 */
        for (int k = 1; k < 20; k++) {
            double add = (k % 2 ? 2.0 : -2.0) * k * term;
            sum += add;
            if (fabs(add) <= 1e-18 * fabs(sum))
                break;
            term *= t2 / ((2.0 * k + 2.0) * (2.0 * k + 3.0));
        }
        return sum;
    }
    return sin(t) - t * cos(t);
}

/* 1 - cos t without cancellation. */
static double fn_c1(double t)
{
    double h = sin(0.5 * t);
    return 2.0 * h * h;
}

/* t sin t + cos t - 1. */
static double fn_f(double t) { return t * sin(t) - fn_c1(t); }

/* Determinant of the fit system, 2 - 2 cos t - t sin t, by series near 0. */
static double fn_det(double t)
{
    if (fabs(t) < 1.0) {
        double t2 = t * t, term = t2 * t2 / 24.0, sum = 0.0; /* t^(2j) / (2j)! for j = 2 */
        for (int j = 2; j < 24; j++) {
            double add = (j % 2 ? 1.0 : -1.0) * (2.0 - 2.0 * j) * term;
            sum += add;
            if (fabs(add) <= 1e-18 * fabs(sum))
                break;
            term *= t2 / ((2.0 * j + 1.0) * (2.0 * j + 2.0));
        }
        return sum;
    }
    return 2.0 * fn_c1(t) - t * sin(t);
}

/* C(t) in the local frame. */
static v2 local_point(double a, double b, double t)
{
    return v2_make(a * sin(t) + b * fn_f(t), a * fn_c1(t) + b * fn_g(t));
}

/* World vector of a local vector of seg (mirror, then rotate by the heading). */
static v2 to_world(const path_segment *seg, v2 l)
{
    return v2_rotate(v2_make(l.x, seg->turn * l.y), seg->heading);
}

static int point_ok(path_point q)
{
    return isfinite(q.p.x) && isfinite(q.p.y) && isfinite(q.angle) && fabs(q.p.x) <= COORD_LIMIT &&
           fabs(q.p.y) <= COORD_LIMIT;
}

static int def_ok(const path_def *def)
{
    return def && isfinite(def->straight_tolerance) && def->straight_tolerance >= 0.0 &&
           def->straight_tolerance < 0.1 && def->max_points >= 2;
}

/* How round a segment is: min radius over max radius, 1 for lines and circles. */
static double roundness(const path_segment *seg)
{
    if (seg->straight)
        return 1.0;
    double r0 = seg->a, r1 = seg->a + seg->b * seg->theta_end;
    double hi = fmax(r0, r1);
    return hi > 0.0 ? fmin(r0, r1) / hi : 0.0;
}

/* Solves C(theta) = v for (a, b) with theta in (0, 2 pi); 1 when the radius of
 * curvature stays non-negative and the fit meets v. A solution just outside
 * the valid range (rounding, near-straight requests) is moved onto its edge,
 * a = 0 or a + b theta = 0, by least squares, and kept if it still meets v. */
static int solve_arc(double theta, v2 v, double *a_out, double *b_out)
{
    double det = fn_det(theta);
    if (!(det > 0.0))
        return 0;
    v2 col_a = v2_make(sin(theta), fn_c1(theta)), col_b = v2_make(fn_f(theta), fn_g(theta));
    double a = (col_b.y * v.x - col_b.x * v.y) / det;
    double b = (col_a.x * v.y - col_a.y * v.x) / det;
    if (!isfinite(a) || !isfinite(b) || !isfinite(a + b * theta))
        return 0;
    if (a < 0.0) {
        a = 0.0;
        b = v2_dot(col_b, v) / v2_len2(col_b);
    }
    if (a + b * theta < 0.0) {
        v2 col = v2_madd(col_b, -theta, col_a); /* C(theta) / b when a = -b theta */
        b = v2_dot(col, v) / v2_len2(col);
        a = -b * theta;
    }
    if (!(a >= 0.0) || !(a + b * theta >= 0.0) || !(a + fabs(b) > 0.0))
        return 0;
    v2 end = v2_add(v2_scale(col_a, a), v2_scale(col_b, b));
    if (!(v2_dist(end, v) <= 1e-10 * v2_len(v)))
        return 0;
    *a_out = a;
    *b_out = b;
    return 1;
}

/* One arc from p0 to p1, both already checked finite and distinct. */
static join_result fit_arc(const path_def *def, path_point p0, path_point p1, path_segment *seg)
{
    v2 chord = v2_sub(p1.p, p0.p);
    double len = v2_len(chord);
    v2 local = v2_rotate(chord, -p0.angle);
    double tn = path_wrap_angle(p1.angle - p0.angle);
    double tol = def->straight_tolerance;

    memset(seg, 0, sizeof *seg);
    seg->origin = p0.p;
    if (fabs(tn) <= tol) {
        if (local.x > 0.0 && fabs(local.y) <= tol * len) {
            seg->heading = atan2(chord.y, chord.x);
            seg->turn = 1.0;
            seg->length = len;
            seg->straight = 1;
            return JOIN_OK;
        }
        return JOIN_NO_ARC; /* the other way round is a full turn, which no arc makes */
    }
    /* The tangents fix the turn only modulo 2 pi: try the short and the long way. */
    double cand[2] = { tn, tn > 0.0 ? tn - TWO_PI : tn + TWO_PI };
    int found = 0;
    for (int i = 0; i < 2 && !found; i++) {
        double sgn = cand[i] > 0.0 ? 1.0 : -1.0, th = fabs(cand[i]), a, b;
        if (solve_arc(th, v2_make(local.x, sgn * local.y), &a, &b)) {
            seg->heading = p0.angle;
            seg->turn = sgn;
            seg->a = a;
            seg->b = b;
            seg->theta_end = th;
            seg->length = th * (a + 0.5 * b * th);
            found = seg->length > 0.0;
        }
    }
    return found ? JOIN_OK : JOIN_NO_ARC;
}

/* The joint of a biarc whose tangent lengths are d and ratio * d: control
 * points q0 = p0 + d t0 and q1 = p1 - ratio d t1 with |q1 - q0| = (1 + ratio) d,
 * the joint on q0q1 at distance d from q0, its tangent along q0q1. */
static int biarc_joint(path_point p0, path_point p1, double ratio, path_point *joint)
{
    v2 t0 = v2_from_angle(p0.angle), t1 = v2_from_angle(p1.angle), v = v2_sub(p1.p, p0.p);
    v2 w = v2_madd(t0, ratio, t1);
    double k = (1.0 + ratio) * (1.0 + ratio) - v2_len2(w); /* >= 0 */
    double vw = v2_dot(v, w), vv = v2_len2(v), root = sqrt(fmax(vw * vw + k * vv, 0.0));
    /* Positive root of k d^2 + 2 (v.w) d - v.v = 0, in the form without cancellation. */
    double d = vw >= 0.0 ? vv / (vw + root) : (k > 0.0 ? (root - vw) / k : -1.0);
    if (!(d > 0.0) || !isfinite(d))
        return 0;
    v2 q0 = v2_madd(p0.p, d, t0), q1 = v2_madd(p1.p, -ratio * d, t1), u = v2_normalize(v2_sub(q1, q0));
    if (u.x == 0.0 && u.y == 0.0)
        return 0;
    joint->p = v2_madd(q0, d, u);
    joint->angle = atan2(u.y, u.x);
    return 1;
}

/* Both halves of a split: the joint apart from the ends, both arcs valid. */
static int fit_halves(const path_def *def, path_point p0, path_point joint, path_point p1, path_segment h[2])
{
    double min_gap = 1e-6 * v2_dist(p0.p, p1.p);
    return v2_dist(p0.p, joint.p) > min_gap && v2_dist(joint.p, p1.p) > min_gap &&
           fit_arc(def, p0, joint, &h[0]) == JOIN_OK && fit_arc(def, joint, p1, &h[1]) == JOIN_OK;
}

/* Two arcs meeting with a common tangent. First choice: the joints of biarcs
 * (two circular arcs, which are involute arcs with b = 0), equal tangent
 * lengths first. Last resort, for requests no biarc serves (such as an end
 * straight behind the start): a grid of joints around the chord and a fan of
 * tangents, keeping the roundest pair per unit of length. */
static join_result fit_split(const path_def *def, path_point p0, path_point p1, path_segment out[2])
{
    static const double ratios[] = { 1.0, 2.0, 0.5, 4.0, 0.25, 8.0, 0.125 };
    static const double along[] = { 0.5, 0.25, 0.75 }, across[] = { 0.0, 0.5, -0.5, 1.0, -1.0 };
    path_point joint;
    path_segment h[2];

    for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
        if (biarc_joint(p0, p1, ratios[r], &joint) && fit_halves(def, p0, joint, p1, h)) {
            out[0] = h[0];
            out[1] = h[1];
            return JOIN_OK;
        }
    }
    v2 chord = v2_sub(p1.p, p0.p);
    double psi = atan2(chord.y, chord.x), len = v2_len(chord), best = -1.0;
    for (size_t i = 0; i < sizeof along / sizeof along[0]; i++) {
        for (size_t j = 0; j < sizeof across / sizeof across[0]; j++) {
            joint.p = v2_add(v2_madd(p0.p, along[i], chord), v2_scale(v2_perp(chord), across[j]));
            for (int k = 0; k < 2 * SPLIT_STEPS; k++) {
                joint.angle = psi + k * SPLIT_STEP;
                if (!fit_halves(def, p0, joint, p1, h))
                    continue;
                double score = fmin(roundness(&h[0]), roundness(&h[1])) * len / (h[0].length + h[1].length);
                if (score > best) {
                    best = score;
                    out[0] = h[0];
                    out[1] = h[1];
                }
            }
        }
    }
    return best >= 0.0 ? JOIN_OK : JOIN_NO_SPLIT;
}

/* Checks a pair and joins it with one or two segments. */
static join_result join_pair(const path_def *def, path_point p0, path_point p1, path_segment seg[2], int *count)
{
    double dist = v2_dist(p0.p, p1.p);
    double scale = fmax(v2_len(p0.p), v2_len(p1.p));
    if (!(dist > 0.0) || dist <= 1e-12 * scale)
        return JOIN_COINCIDENT;
    *count = 1;
    join_result r = fit_arc(def, p0, p1, &seg[0]);
    if (r == JOIN_OK || !def->allow_split)
        return r;
    *count = 2;
    return fit_split(def, p0, p1, seg);
}

static const char *join_reason(join_result r)
{
    switch (r) {
    case JOIN_COINCIDENT: return "the points coincide";
    case JOIN_NO_ARC: return "no single involute arc joins them (the request bends both ways)";
    case JOIN_NO_SPLIT: return "not even two involute arcs join them";
    case JOIN_OK: break;
    }
    return "unknown failure";
}

poyo_status path_segment_fit(const path_def *def, path_point p0, path_point p1, path_segment *seg, poyo_error *err)
{
    path_segment tmp[2];
    int count = 0;
    if (!def_ok(def) || !seg)
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: invalid definition or output");
    if (!point_ok(p0) || !point_ok(p1))
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: a point is not finite or beyond %g", COORD_LIMIT);
    path_def one = *def;
    one.allow_split = 0;
    join_result r = join_pair(&one, p0, p1, tmp, &count);
    if (r != JOIN_OK)
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: %s", join_reason(r));
    *seg = tmp[0];
    return POYO_OK;
}

poyo_status path_segment_join(const path_def *def, path_point p0, path_point p1, path_segment seg[2], int *count,
                              poyo_error *err)
{
    if (!def_ok(def) || !seg || !count)
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: invalid definition or output");
    if (!point_ok(p0) || !point_ok(p1))
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: a point is not finite or beyond %g", COORD_LIMIT);
    join_result r = join_pair(def, p0, p1, seg, count);
    if (r != JOIN_OK)
        return poyo_fail(err, POYO_ERR_USAGE, "path segment: %s", join_reason(r));
    return POYO_OK;
}

double path_segment_length_at(const path_segment *seg, double theta)
{
    if (seg->straight)
        return fmin(fmax(theta, 0.0), seg->length);
    double t = fmin(fmax(theta, 0.0), seg->theta_end);
    return t * (seg->a + 0.5 * seg->b * t);
}

double path_segment_theta_at(const path_segment *seg, double s)
{
    if (seg->straight)
        return fmin(fmax(s, 0.0), seg->length);
    if (!(s > 0.0))
        return 0.0;
    if (s >= seg->length)
        return seg->theta_end;
    /* Root of b t^2 / 2 + a t - s = 0 in the form that stays exact as b -> 0
     * and never cancels (a >= 0). */
    double disc = fmax(seg->a * seg->a + 2.0 * seg->b * s, 0.0);
    double den = seg->a + sqrt(disc);
    double t = den > 0.0 ? 2.0 * s / den : 0.0;
    return fmin(t, seg->theta_end);
}

v2 path_segment_point(const path_segment *seg, double theta)
{
    if (seg->straight)
        return v2_madd(seg->origin, theta, v2_from_angle(seg->heading));
    return v2_add(seg->origin, to_world(seg, local_point(seg->a, seg->b, theta)));
}

void path_segment_eval(const path_segment *seg, double s, v2 *pos, double *angle)
{
    double t = path_segment_theta_at(seg, s);
    if (pos)
        *pos = path_segment_point(seg, t);
    if (angle)
        *angle = path_wrap_angle(seg->straight ? seg->heading : seg->heading + seg->turn * t);
}

double path_segment_nearest(const path_segment *seg, v2 q, double *s, v2 *pos)
{
    double best_t = 0.0, best_d2;
    if (seg->straight) {
        v2 d = v2_sub(q, seg->origin);
        best_t = fmin(fmax(v2_dot(d, v2_from_angle(seg->heading)), 0.0), seg->length);
    } else {
        v2 l = v2_rotate(v2_sub(q, seg->origin), -seg->heading);
        l.y *= seg->turn;
        double cand[4] = { 0.0, seg->theta_end, -1.0, -1.0 };
        /* Stationary points: (C(t) - q) . (cos t, sin t) = 0, which reads
         * (qy - a) sin t + (qx + b) cos t = b, i.e. R cos(t - phi) = b. The +
         * branch is the nearer foot (the - branch lies past the centre of
         * curvature); both are tried, each wrapped into [0, 2 pi) and kept
         * only inside [0, theta_end], against the two ends. */
        double px = l.x + seg->b, py = l.y - seg->a, r = hypot(px, py);
        if (r > 0.0) {
            double phi = atan2(py, px), half = acos(fmin(fmax(seg->b / r, -1.0), 1.0));
            for (int k = 0; k < 2; k++) {
                double t = fmod(phi + (k ? -half : half), TWO_PI);
                if (t < 0.0)
                    t += TWO_PI;
                if (t <= seg->theta_end)
                    cand[2 + k] = t;
            }
        }
        best_d2 = INFINITY;
        for (int k = 0; k < 4; k++) {
            if (cand[k] < 0.0)
                continue;
            double d2 = v2_len2(v2_sub(local_point(seg->a, seg->b, cand[k]), l));
            if (d2 < best_d2) {
                best_d2 = d2;
                best_t = cand[k];
            }
        }
    }
    v2 p = path_segment_point(seg, best_t);
    if (s)
        *s = path_segment_length_at(seg, best_t);
    if (pos)
        *pos = p;
    return v2_dist(p, q);
}

poyo_status path_create(const path_def *def, const path_point *pts, int n, path **out, poyo_error *err)
{
    poyo_status st = POYO_OK;
    path *p = NULL;

    if (!out)
        return poyo_fail(err, POYO_ERR_USAGE, "path: no output given");
    *out = NULL;
    if (!def_ok(def))
        return poyo_fail(err, POYO_ERR_USAGE, "path: invalid definition (tolerance in [0, 0.1), at least 2 points)");
    if (!pts || n < 2)
        return poyo_fail(err, POYO_ERR_USAGE, "path: at least 2 waypoints are needed, got %d", pts ? n : 0);
    if (n > def->max_points)
        return poyo_fail(err, POYO_ERR_USAGE, "path: %d waypoints is more than the limit of %d", n, def->max_points);
    for (int i = 0; i < n; i++)
        if (!point_ok(pts[i]))
            return poyo_fail(err, POYO_ERR_USAGE, "path: waypoint %d is not finite or lies beyond %g", i + 1,
                             COORD_LIMIT);

    size_t cap = 2u * (size_t)(n - 1);
    p = calloc(1, sizeof *p);
    if (p) {
        p->seg = malloc(cap * sizeof *p->seg);
        p->offset = malloc(cap * sizeof *p->offset);
    }
    if (!p || !p->seg || !p->offset) {
        st = poyo_fail(err, POYO_ERR_NOMEM, "path: out of memory for %d waypoints", n);
        goto done;
    }
    for (int i = 0; i + 1 < n; i++) {
        int count = 0;
        join_result r = join_pair(def, pts[i], pts[i + 1], p->seg + p->count, &count);
        if (r != JOIN_OK) {
            st = poyo_fail(err, POYO_ERR_USAGE, "path: cannot join waypoints %d and %d: %s", i + 1, i + 2,
                           join_reason(r));
            goto done;
        }
        for (int k = 0; k < count; k++) {
            p->offset[p->count] = p->length;
            p->length += p->seg[p->count].length;
            p->count++;
        }
    }
    *out = p;
    p = NULL;
done:
    path_destroy(p);
    return st;
}

void path_destroy(path *p)
{
    if (!p)
        return;
    free(p->seg);
    free(p->offset);
    free(p);
}

int path_segment_count(const path *p) { return p->count; }

const path_segment *path_segment_get(const path *p, int i) { return &p->seg[i]; }

double path_segment_offset(const path *p, int i) { return p->offset[i]; }

double path_length(const path *p) { return p->length; }

void path_eval(const path *p, double s, v2 *pos, double *angle)
{
    if (!(s > 0.0))
        s = 0.0;
    if (s > p->length)
        s = p->length;
    int lo = 0, hi = p->count - 1; /* last segment starting at or before s */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (p->offset[mid] <= s)
            lo = mid;
        else
            hi = mid - 1;
    }
    path_segment_eval(&p->seg[lo], s - p->offset[lo], pos, angle);
}

poyo_status path_sample(const path *p, int n, v2 *pos, double *angle, poyo_error *err)
{
    if (!p || !pos || n < 1)
        return poyo_fail(err, POYO_ERR_USAGE, "path: sampling needs a path, an output and at least 1 point");
    for (int i = 0; i < n; i++) {
        double s = n > 1 ? (i == n - 1 ? p->length : p->length * i / (n - 1)) : 0.0;
        path_eval(p, s, &pos[i], angle ? &angle[i] : NULL);
    }
    return POYO_OK;
}

double path_nearest(const path *p, v2 q, double *s, v2 *pos)
{
    double best = INFINITY, best_s = 0.0;
    v2 best_p = p->seg[0].origin;
    for (int i = 0; i < p->count; i++) {
        double si;
        v2 pi;
        double d = path_segment_nearest(&p->seg[i], q, &si, &pi);
        if (d < best) {
            best = d;
            best_s = p->offset[i] + si;
            best_p = pi;
        }
    }
    if (s)
        *s = best_s;
    if (pos)
        *pos = best_p;
    return best;
}

/* Appends to a bounded buffer, counting what did not fit. */
typedef struct sink {
    char *buf;
    size_t cap, len;
} sink;

static void sink_point(sink *k, char cmd, v2 q, int decimals)
{
    char tmp[160];
    int n = snprintf(tmp, sizeof tmp, "%s%c%.*f %.*f", k->len ? " " : "", cmd, decimals, q.x, decimals, q.y);
    if (n < 0)
        return;
    if (k->len < k->cap) {
        size_t room = k->cap - 1 - k->len, m = (size_t)n < room ? (size_t)n : room;
        memcpy(k->buf + k->len, tmp, m);
        k->buf[k->len + m] = '\0';
    }
    k->len += (size_t)n;
}

poyo_status path_svg_d(const path *p, double scale_x, double scale_y, double tolerance, char *buf, size_t cap,
                       size_t *needed, poyo_error *err)
{
    if (!p || !needed || (!buf && cap > 0))
        return poyo_fail(err, POYO_ERR_USAGE, "path: SVG output needs a path and a buffer");
    if (!isfinite(scale_x) || !isfinite(scale_y) || !(tolerance > 0.0) || !isfinite(tolerance))
        return poyo_fail(err, POYO_ERR_USAGE, "path: SVG scale must be finite and tolerance positive");
    double scale = fmax(fabs(scale_x), fabs(scale_y));
    int decimals = (int)ceil(-log10(0.5 * tolerance));
    decimals = decimals < 0 ? 0 : decimals > 12 ? 12 : decimals;
    sink k = { buf, cap, 0 };
    if (cap > 0)
        buf[0] = '\0';

    v2 start = p->seg[0].origin;
    sink_point(&k, 'M', v2_make(start.x * scale_x, start.y * scale_y), decimals);
    for (int i = 0; i < p->count; i++) {
        const path_segment *seg = &p->seg[i];
        double pieces = 1.0;
        if (!seg->straight) {
            /* A piece turning by d over length l strays at most l d / 4 from its
             * chord, and l <= r_max d. */
            double rmax = fmax(seg->a, seg->a + seg->b * seg->theta_end);
            pieces = fmax(ceil(seg->theta_end * sqrt(rmax * scale / (4.0 * tolerance))),
                          ceil(seg->theta_end / (TWO_PI / 72.0)));
            pieces = fmin(fmax(pieces, 1.0), 100000.0);
        }
        int np = (int)pieces;
        for (int j = 1; j <= np; j++) {
            double t = seg->straight ? seg->length * j / np : seg->theta_end * j / np;
            v2 q = path_segment_point(seg, t);
            sink_point(&k, 'L', v2_make(q.x * scale_x, q.y * scale_y), decimals);
        }
    }
    *needed = k.len;
    return POYO_OK;
}
