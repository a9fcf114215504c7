/* charm.h - a stamp hanging from a rope and swinging like a phone charm.
 * The rope (rope.h, Position Based Dynamics) carries the stamp's centre of
 * mass on a rigid arm from the stamp's attachment point, so the swing is
 * coupled both ways; the stamp wobbles as a soft body (softbody.h) in the
 * frame that moves and turns with that arm. Canvas pixels, seconds, y down. */
#ifndef POYO_CHARM_H
#define POYO_CHARM_H

#include <stdint.h>

#include "softbody.h"
#include "geom/vec2.h"
#include "image/anim.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/render.h"
#include "util/error.h"

/* The ranges of charm_def's options (each from 0 unless a _MIN says otherwise). */
#define CHARM_ANCHOR_MIN -1.0        /* canvas fractions, both coordinates */
#define CHARM_ANCHOR_MAX 2.0
#define CHARM_LENGTH_MIN 0.01        /* canvas heights */
#define CHARM_LENGTH_MAX 4.0
#define CHARM_SEGMENTS_MAX 200       /* from 1 */
#define CHARM_STIFFNESS_MIN 0.01     /* to 1 */
#define CHARM_ITERATIONS_MAX 200     /* from 1 */
#define CHARM_DRAG_MAX 100.0
#define CHARM_GRAVITY_MIN 0.1        /* canvas heights per s^2 */
#define CHARM_GRAVITY_MAX 100.0
#define CHARM_ROPE_MASS_MIN 0.01
#define CHARM_ROPE_MASS_MAX 10.0
#define CHARM_STAMP_SIZE_MIN 0.05    /* to 1 */
#define CHARM_WOBBLE_MAX 20.0
#define CHARM_KICK_MAX 5.0           /* canvas heights per second */
#define CHARM_ANGLE_MAX 1e6          /* degrees either way */
#define CHARM_ROPE_WIDTH_MIN 0.5     /* pixels */
#define CHARM_ROPE_WIDTH_MAX 64.0

/* How to build and film a charm. Ranges are checked by charm_check_def(). */
typedef struct charm_def {
    int width, height;     /* canvas, pixels (1 to ANIM_SIDE_MAX) */
    v2 anchor;             /* top of the rope, canvas fractions (CHARM_ANCHOR_MIN to _MAX) */
    double length;         /* rope length, canvas heights (CHARM_LENGTH_MIN to _MAX) */
    int segments;          /* rope segments (1 to CHARM_SEGMENTS_MAX) */
    double stiffness;      /* share of the rope's stretch removed per frame, 1 = inextensible (CHARM_STIFFNESS_MIN to 1) */
    int iterations;        /* constraint passes per solver step (1 to CHARM_ITERATIONS_MAX) */
    double rope_damping;   /* share of the non-rigid velocity removed per 1/25 s (0 to 1) */
    double drag;           /* air drag per second (0 to CHARM_DRAG_MAX); above 0 the swing dies down */
    double gravity;        /* canvas heights per s^2 (CHARM_GRAVITY_MIN to _MAX) */
    double rope_mass;      /* mass of the rope over the mass of the stamp (CHARM_ROPE_MASS_MIN to _MAX) */
    double stamp_size;     /* longer side of the stamp's visible box over the shorter canvas side (CHARM_STAMP_SIZE_MIN to 1) */
    int grid;              /* lattice nodes along the stamp's longer side (LATTICE_GRID_MIN to _MAX) */
    double wobble;         /* how strongly the stamp answers the swing's accelerations, 1 = physical (0 to CHARM_WOBBLE_MAX) */
    softbody_def body;     /* the stamp's wobble (hz, damping, volume, substeps); anchor is ignored */
    double kick;           /* speed given to the stamp (the rope's end without one) at t = 0, canvas heights/s (0 to CHARM_KICK_MAX) */
    double angle;          /* direction of the kick, degrees clockwise from right */
    double fps;            /* frames per second (ANIM_FPS_MIN to _MAX) */
    double duration;       /* seconds (ANIM_DURATION_MIN to _MAX): swing clips take the nearest whole number of periods;
                              0 = one period, or until the swing settles when drag > 0 */
    double max_duration;   /* longest clip that waits for the swing to settle, seconds */
    uint8_t rope_rgb[3];   /* rope colour, sRGB */
    double rope_width;     /* rope thickness, canvas pixels (CHARM_ROPE_WIDTH_MIN to _MAX) */
    int loop;              /* plays (0 = forever), passed to the encoders */
    int threads;           /* threads drawing frames (1 to 8) */
} charm_def;

/* The defaults, the only place they live. */
charm_def charm_default_def(void);
/* Checks every field; names the first one out of range after its option. */
poyo_status charm_check_def(const charm_def *def, poyo_error *err);

/* A running charm simulation. */
typedef struct charm charm;

/* Builds the rope hanging straight down from the anchor with the stamp src
 * (may be NULL: the rope alone) on its end, at rest, and gives it the kick;
 * *out is owned by the caller (charm_destroy). Fails with POYO_ERR_INPUT when
 * the stamp has nothing visible that can wobble. */
poyo_status charm_create(const charm_def *def, const image *src, charm **out, poyo_error *err);
/* Frees the simulation; NULL is a no-op. */
void charm_destroy(charm *c);
/* Advances one frame, 1 / fps seconds. */
void charm_step_frame(charm *c);
/* Simulated seconds since the kick. */
double charm_time(const charm *c);
/* Points of the chain: rope particles 0 (the anchor) to segments, then the
 * stamp's centre of mass when there is a stamp. */
int charm_point_count(const charm *c);
/* Copies the charm_point_count() points, canvas pixels, into out. */
void charm_points(const charm *c, v2 *out);

/* A filmed clip: what every frame shows. */
typedef struct charm_clip {
    int count;             /* frames */
    int npoints;           /* rope particles per frame */
    v2 *rope;              /* count * npoints, canvas pixels; owned */
    int n;                 /* stamp nodes per frame, 0 without a stamp */
    double *x, *y;         /* count * n, node positions for renderer_draw; owned */
    image stamp;           /* the stamp cropped to its visible box; owned */
    lattice lat;           /* its lattice; owned */
    placement place;       /* where the cropped stamp sits at rest on the canvas */
    int periodic;          /* 1: whole periods of the steady swing */
    int settled;           /* 1: the swing died down before the clip ended */
    double period;         /* seconds of one swing (periodic clips) */
} charm_clip;

/* Simulates the clip def asks for: one or more periods of the steady swing
 * (frame 0 where the stamp passes under the anchor), or with drag until the
 * swing settles, easing back into frame 0 (the charm at rest). */
poyo_status charm_simulate(const charm_def *def, const image *src, charm_clip *out, poyo_error *err);
/* Frees a clip; safe on a zeroed one. */
void charm_clip_free(charm_clip *clip);
/* Draws every frame of clip: the rope anti-aliased under the warped stamp;
 * *out is owned by the caller. Fails when the frames and the renderer would take
 * more than the memory bound (memlimit.h). */
poyo_status charm_render(const charm_def *def, const charm_clip *clip, anim *out, poyo_error *err);

/* Draws the smooth polyline through pts (n points, canvas pixels) width pixels
 * thick in colour rgb under what rgba (w x h, straight alpha) already holds;
 * cov is scratch of w * h floats. */
void charm_draw_rope(uint8_t *rgba, int w, int h, const v2 *pts, int n, double width, const uint8_t rgb[3],
                     float *cov);

#endif
