/* path.h - paths made of involute-curve segments: fitting to waypoints with
 * tangents, exact arc length and its inverse, closed-form nearest point.
 *
 * Units and angles. Coordinates are in whatever unit the caller uses. An angle
 * alpha (radians) names the direction (cos alpha, sin alpha) in the caller's own
 * axes, i.e. alpha = atan2(dy, dx); positive turns go from +x towards +y. With
 * y pointing DOWN (canvas fractions, pixels) a positive angle turns clockwise
 * as seen on screen: screen degrees measured clockwise from +x (the SVG/CSS
 * rotate convention) map to deg * pi / 180, screen degrees measured
 * counter-clockwise (90 = up) map to -deg * pi / 180. Angles this module
 * returns are wrapped to (-pi, pi]. */
#ifndef POYO_PATH_H
#define POYO_PATH_H

#include <stddef.h>

#include "vec2.h"
#include "util/error.h"

/* A waypoint: position p and tangent direction angle (radians, see above). */
typedef struct path_point {
    v2 p;
    double angle;
} path_point;

/* How waypoints are joined. */
typedef struct path_def {
    double straight_tolerance; /* radians in [0, 0.1): a turn and a chord deviation both below this join by a line */
    int allow_split;           /* nonzero: a pair no single involute arc can join (an S) gets two arcs */
    int max_points;            /* largest waypoint count path_create accepts */
} path_def;

/* One involute arc. In its local frame (start at the origin, start tangent
 * along +x, turning towards +y) the point at turn theta in [0, theta_end] is
 * C(theta) = (a sin t + b (t sin t + cos t - 1), a (1 - cos t) + b (sin t - t cos t)),
 * with radius of curvature a + b theta >= 0. The world point is
 * origin + rotate(heading) * (Cx, turn * Cy). */
typedef struct path_segment {
    v2 origin;        /* start point, caller's units */
    double heading;   /* start tangent angle, radians */
    double turn;      /* +1 turns towards +y, -1 towards -y (mirrored local frame) */
    double a, b;      /* radius of curvature a + b theta, caller's units (per radian for b) */
    double theta_end; /* total turn >= 0, radians, < 2 pi; 0 with straight set */
    double length;    /* arc length, caller's units */
    int straight;     /* nonzero: a line of the given length along heading (a, b unused) */
} path_segment;

/* A fitted path; opaque, created by path_create and freed by path_destroy. */
typedef struct path path;

/* The defaults: straight_tolerance 1e-9 rad, allow_split 1, max_points 1000000. */
path_def path_default_def(void);

/* Wraps an angle to (-pi, pi]. */
double path_wrap_angle(double angle);

/* Fits one involute arc from p0 to p1 (tangents included); POYO_ERR_USAGE with a
 * reason when the points are unusable or no single arc joins them. The turn is
 * the change of tangent modulo 2 pi: the short way (|turn| <= pi) when that arc
 * is valid, else the long way round (|turn| < 2 pi). */
poyo_status path_segment_fit(const path_def *def, path_point p0, path_point p1, path_segment *seg, poyo_error *err);
/* Joins p0 to p1 with one arc, or (def->allow_split) two arcs meeting with a
 * common tangent; writes 1 or 2 segments into seg[0..1] and their number to *count. */
poyo_status path_segment_join(const path_def *def, path_point p0, path_point p1, path_segment seg[2], int *count,
                              poyo_error *err);
/* Arc length from the start to local turn theta (clamped to [0, theta_end]). */
double path_segment_length_at(const path_segment *seg, double theta);
/* Local turn at arc length s (clamped to [0, length]); inverse of path_segment_length_at. */
double path_segment_theta_at(const path_segment *seg, double s);
/* World position at local turn theta (not clamped; straight segments read theta as arc length). */
v2 path_segment_point(const path_segment *seg, double theta);
/* World position and tangent angle at arc length s (clamped); either output may be NULL. */
void path_segment_eval(const path_segment *seg, double s, v2 *pos, double *angle);
/* Closest point of the segment to q: returns the distance, writes its arc length
 * and position (either may be NULL). q must be finite. */
double path_segment_nearest(const path_segment *seg, v2 q, double *s, v2 *pos);

/* Fits a path through n >= 2 waypoints (|x|, |y| <= 1e15); *out is owned by the
 * caller (path_destroy). Messages count waypoints from 1. */
poyo_status path_create(const path_def *def, const path_point *pts, int n, path **out, poyo_error *err);
/* Frees a path; NULL is a no-op. */
void path_destroy(path *p);
/* Number of segments (at least n - 1, more where pairs were split). */
int path_segment_count(const path *p);
/* Segment i (0-based), owned by the path. */
const path_segment *path_segment_get(const path *p, int i);
/* Arc length at which segment i starts, caller's units. */
double path_segment_offset(const path *p, int i);
/* Total arc length, caller's units. */
double path_length(const path *p);
/* Position and tangent angle at arc length s (clamped to [0, length]; NaN reads
 * as 0); either output may be NULL. */
void path_eval(const path *p, double s, v2 *pos, double *angle);
/* n >= 1 points at equal arc-length steps from start to end into pos[n] and,
 * unless NULL, angle[n]; a single point is the start. */
poyo_status path_sample(const path *p, int n, v2 *pos, double *angle, poyo_error *err);
/* Closest point of the path to q: returns the distance, writes its arc length
 * along the whole path and position (either may be NULL). q must be finite. */
double path_nearest(const path *p, v2 q, double *s, v2 *pos);
/* Builds an SVG path "d" string ("M x y L x y ...") of the path with x and y
 * multiplied by scale_x and scale_y, as a polyline within tolerance (output
 * units) of the curve. Writes at most cap bytes (NUL included; buf may be NULL
 * when cap is 0) and stores the full length without the NUL in *needed. */
poyo_status path_svg_d(const path *p, double scale_x, double scale_y, double tolerance, char *buf, size_t cap,
                       size_t *needed, poyo_error *err);

#endif
