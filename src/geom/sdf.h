/* sdf.h - 2-D signed distance fields: primitives, union / smooth minimum /
 * subtraction / repetition, analytic gradients, sphere tracing and a collision
 * response for particles. Pure math in doubles; the unit is the caller's
 * (the scene language builds scenes in pixels, y down). Negative = inside. */
#ifndef POYO_SDF_H
#define POYO_SDF_H

#include <stdint.h>

#include "vec2.h"
#include "util/error.h"

/* Defaults for the callers of this module (the sdf subcommand, the soft body). */
typedef struct sdf_def {
    double restitution;    /* [0, 1]: share of the normal speed kept after a bounce */
    double friction;       /* [0, 1]: share of the tangential speed removed on contact */
    double ray_eps;        /* > 0, distance units: a ray hits when the field drops below this */
    int ray_max_steps;     /* >= 1: sphere-tracing steps before a ray gives up */
    double iso_spacing_px; /* >= 0, pixels between iso-lines in sdf_render_field (0 = none) */
} sdf_def;

/* The only place the defaults above live. */
sdf_def sdf_default_def(void);

typedef enum sdf_kind {
    SDF_CIRCLE,   /* a = centre, r = radius >= 0 */
    SDF_BOX,      /* a = centre, b = half size (both >= 0) */
    SDF_RBOX,     /* a = centre, b = outer half size, r = corner radius, 0 <= r <= min(b.x, b.y) */
    SDF_PLANE,    /* a = a point on the boundary, b = outward normal (any length > 0) */
    SDF_SEGMENT   /* a, b = end points, r = radius >= 0 (a capsule; r = 0 is a bare segment) */
} sdf_kind;

/* One primitive, optionally repeated. Copies sit at offsets (i * period.x, j * period.y)
 * for integers i, j; a zero period leaves that axis alone; count[axis] = 0 repeats
 * endlessly, n > 0 keeps the copies 0..n-1 (so a negative period lays them out
 * towards -x / -y). Evaluation takes the nearest copy and its neighbours, which is exact
 * outside the copies while each reaches less than one period from its anchor (centre,
 * plane point or segment midpoint) along each repeated axis. Value type; no memory. */
typedef struct sdf_shape {
    sdf_kind kind;
    v2 a, b;
    double r;
    v2 period;
    int count[2];
} sdf_shape;

/* How a node merges with everything to its left. */
typedef enum sdf_op {
    SDF_UNION,     /* min(d, s) */
    SDF_SMIN,      /* polynomial smooth minimum, k = blend width (distance units, >= 0) */
    SDF_SMIN_EXP,  /* exponential smooth minimum, k = sharpness (1 / distance units, > 0) */
    SDF_SUBTRACT   /* max(d, -s): carves the shape out of what is left of it */
} sdf_op;

/* A list of nodes folded left to right; opaque, owned by the caller. */
typedef struct sdf_scene sdf_scene;

/* Circle of radius r around c. */
sdf_shape sdf_circle(v2 c, double r);
/* Axis-aligned box around c with half size h. */
sdf_shape sdf_box(v2 c, v2 h);
/* Box of outer half size h whose corners are rounded with radius r. */
sdf_shape sdf_rbox(v2 c, v2 h, double r);
/* Half-plane through p whose outside is the side n points to. */
sdf_shape sdf_plane(v2 p, v2 n);
/* Floor in a y-down frame: the solid is every point with y > level. */
sdf_shape sdf_floor(double level);
/* Capsule around the segment a-b with radius r >= 0. */
sdf_shape sdf_segment(v2 a, v2 b, double r);
/* s repeated with the given period; n = copies per axis, 0 = endless. */
sdf_shape sdf_repeat(sdf_shape s, v2 period, int nx, int ny);

/* Exact distance from p to one shape; writes the unit gradient to *grad when non-NULL. */
double sdf_shape_eval(const sdf_shape *s, v2 p, v2 *grad);

/* Plain minimum. */
double sdf_union(double a, double b);
/* Polynomial (quadratic) smooth minimum of width k: min(a,b) - max(k - |a-b|, 0)^2 / (4k).
 * Never above min(a,b), never more than k/4 below it; k <= 0 gives min. */
double sdf_smin_poly(double a, double b, double k);
/* Exponential smooth minimum -ln(e^-ka + e^-kb)/k, evaluated as min - ln(1 + e^-k|a-b|)/k.
 * Never above min(a,b), never more than ln(2)/k below it; k <= 0 or infinite gives min. */
double sdf_smin_exp(double a, double b, double k);
/* max(a, -b): a with b carved out. */
double sdf_subtract(double a, double b);

/* Empty scene in *out (NULL on failure). */
poyo_status sdf_scene_create(sdf_scene **out, poyo_error *err);
/* Appends a node; the op of the first node is ignored. Checks that every number is
 * finite and in range (radii, half sizes, k, counts) and normalises plane normals. */
poyo_status sdf_scene_add(sdf_scene *s, sdf_op op, double k, sdf_shape shape, poyo_error *err);
/* Number of nodes. */
int sdf_scene_count(const sdf_scene *s);
/* Frees the scene; NULL is a no-op. */
void sdf_scene_destroy(sdf_scene *s);

/* Signed distance at p (+INFINITY for an empty scene). */
double sdf_eval(const sdf_scene *s, v2 p);
/* Analytic gradient at p (chain rule through min, smooth minima and max); unit length
 * wherever the field is exact, (0, 0) for an empty scene. */
v2 sdf_gradient(const sdf_scene *s, v2 p);
/* Distance at p and its analytic gradient in one pass (grad may be NULL). */
double sdf_eval_grad(const sdf_scene *s, v2 p, v2 *grad);
/* Gradient by central differences with step h > 0 (distance units). */
v2 sdf_gradient_numeric(const sdf_scene *s, v2 p, double h);
/* Unit outward normal at p: the normalised gradient, falling back to central
 * differences and then to (0, -1) (up, y down) where the gradient vanishes. */
v2 sdf_normal(const sdf_scene *s, v2 p);

/* Sphere tracing from origin along dir (any length > 0) up to max_dist, at most max_steps
 * steps; a hit is a point where the field drops below eps. Returns 1 on a hit and writes
 * the distance along the unit ray to *t_hit and the point to *hit (either may be NULL),
 * 0 on a miss (outputs untouched). A start inside a shape hits at t = 0. */
int sdf_raycast(const sdf_scene *s, v2 origin, v2 dir, double max_dist, int max_steps,
                double eps, double *t_hit, v2 *hit);

/* Collision of a particle of the given radius at *p moving with *v: when d(p) < radius,
 * moves *p out along the normal to distance radius, reflects the normal velocity with
 * restitution in [0, 1] when it points into the surface, and scales the tangential
 * velocity by 1 - friction (friction in [0, 1]). Returns 1 on contact, else 0. */
int sdf_collide(const sdf_scene *s, double radius, double restitution, double friction,
                v2 *p, v2 *v);

/* Paints the field over a w x h RGBA buffer (caller-owned, w*h*4 bytes), sampling pixel
 * centres in the scene's units (pixels): warm inside, cool outside, darker far from the
 * surface, thin iso-lines every iso_spacing_px (0 = none) and a dark anti-aliased zero
 * contour. Opaque output. */
void sdf_render_field(const sdf_scene *s, uint8_t *rgba, int w, int h, double iso_spacing_px);

#endif
