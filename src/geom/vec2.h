/* vec2.h - 2-D vectors and 2x2 matrices as small value types.
 * Shape after Box2D v3's math_functions.h: pass by value, static inline. */
#ifndef POYO_VEC2_H
#define POYO_VEC2_H

#include <math.h>

/* pi, the one definition every module uses */
#define PI 3.14159265358979323846

/* A point or direction in the plane (units set by the caller). */
typedef struct v2 { double x, y; } v2;

/* A 2x2 matrix stored by rows: [[a, b], [c, d]]. */
typedef struct m22 { double a, b, c, d; } m22;

/* (x, y) */
static inline v2 v2_make(double x, double y) { v2 r = { x, y }; return r; }
/* a + b */
static inline v2 v2_add(v2 a, v2 b) { return v2_make(a.x + b.x, a.y + b.y); }
/* a - b */
static inline v2 v2_sub(v2 a, v2 b) { return v2_make(a.x - b.x, a.y - b.y); }
/* s * a */
static inline v2 v2_scale(v2 a, double s) { return v2_make(a.x * s, a.y * s); }
/* a + s * b */
static inline v2 v2_madd(v2 a, double s, v2 b) { return v2_make(a.x + s * b.x, a.y + s * b.y); }
/* -a */
static inline v2 v2_neg(v2 a) { return v2_make(-a.x, -a.y); }
/* Dot product. */
static inline double v2_dot(v2 a, v2 b) { return a.x * b.x + a.y * b.y; }
/* z component of the cross product a x b. */
static inline double v2_cross(v2 a, v2 b) { return a.x * b.y - a.y * b.x; }
/* Counter-clockwise perpendicular (-y, x). */
static inline v2 v2_perp(v2 a) { return v2_make(-a.y, a.x); }
/* Euclidean length. */
static inline double v2_len(v2 a) { return sqrt(a.x * a.x + a.y * a.y); }
/* Squared length. */
static inline double v2_len2(v2 a) { return a.x * a.x + a.y * a.y; }
/* Distance between two points. */
static inline double v2_dist(v2 a, v2 b) { return v2_len(v2_sub(a, b)); }
/* Unit vector along a, or (0, 0) when a is (almost) zero. */
static inline v2 v2_normalize(v2 a)
{
    double l = v2_len(a);
    return l > 1e-300 ? v2_scale(a, 1.0 / l) : v2_make(0.0, 0.0);
}
/* a + t (b - a) */
static inline v2 v2_lerp(v2 a, v2 b, double t) { return v2_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)); }
/* Unit vector at angle r radians from the +x axis. */
static inline v2 v2_from_angle(double r) { return v2_make(cos(r), sin(r)); }
/* a rotated by r radians (counter-clockwise in a y-up frame). */
static inline v2 v2_rotate(v2 a, double r)
{
    double c = cos(r), s = sin(r);
    return v2_make(c * a.x - s * a.y, s * a.x + c * a.y);
}

/* [[a, b], [c, d]] */
static inline m22 m22_make(double a, double b, double c, double d) { m22 m = { a, b, c, d }; return m; }
/* Identity. */
static inline m22 m22_identity(void) { return m22_make(1.0, 0.0, 0.0, 1.0); }
/* Rotation by an angle given as its cosine and sine. */
static inline m22 m22_rot(double c, double s) { return m22_make(c, -s, s, c); }
/* m v */
static inline v2 m22_mulv(m22 m, v2 v) { return v2_make(m.a * v.x + m.b * v.y, m.c * v.x + m.d * v.y); }
/* m n */
static inline m22 m22_mul(m22 m, m22 n)
{
    return m22_make(m.a * n.a + m.b * n.c, m.a * n.b + m.b * n.d,
                    m.c * n.a + m.d * n.c, m.c * n.b + m.d * n.d);
}
/* m + n */
static inline m22 m22_add(m22 m, m22 n) { return m22_make(m.a + n.a, m.b + n.b, m.c + n.c, m.d + n.d); }
/* s m */
static inline m22 m22_scale(m22 m, double s) { return m22_make(m.a * s, m.b * s, m.c * s, m.d * s); }
/* Determinant. */
static inline double m22_det(m22 m) { return m.a * m.d - m.b * m.c; }
/* Inverse; the caller checks the determinant first. */
static inline m22 m22_inv(m22 m)
{
    double id = 1.0 / m22_det(m);
    return m22_make(m.d * id, -m.b * id, -m.c * id, m.a * id);
}
/* Solve m x = b by Cramer's rule; returns 0 and leaves *x alone when |det| <= eps. */
static inline int m22_solve(m22 m, v2 b, double eps, v2 *x)
{
    double det = m22_det(m);
    if (!(fabs(det) > eps))
        return 0;
    x->x = (m.d * b.x - m.b * b.y) / det;
    x->y = (m.a * b.y - m.c * b.x) / det;
    return 1;
}

#endif
