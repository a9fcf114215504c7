/* drop.h - a stamp dropped into a signed distance scene as a soft body: it
 * falls, hits, bounces and slides until it comes to rest (or leaves the
 * canvas), and the clip is drawn over the scene's solid regions. */
#ifndef POYO_DROP_H
#define POYO_DROP_H

#include "softbody.h"
#include "geom/sdf.h"
#include "geom/vec2.h"
#include "image/anim.h"
#include "image/image.h"
#include "image/lattice.h"
#include "image/render.h"
#include "util/error.h"

/* The ranges of drop_def's own options (from 0, or from minus the _MAX). */
#define DROP_STAMP_SIZE_MIN 0.02    /* to 1 */
#define DROP_AT_MAX 10.0            /* canvas fractions, either way */
#define DROP_VELOCITY_MAX 100.0     /* canvas sizes per second, either way */
#define DROP_SPIN_MAX 7200.0        /* degrees per second, either way */
#define DROP_TILT_MAX 360.0         /* degrees, either way */
#define DROP_GRAVITY_MAX 100.0      /* canvas heights per s^2, either way */
#define DROP_FRICTION_MAX 2.0
#define DROP_HOLD_MAX 10.0          /* seconds */

/* How the stamp is dropped and drawn. Ranges are checked by drop_check_def(). */
typedef struct drop_def {
    int width, height;     /* canvas, pixels (1 to ANIM_SIDE_MAX) */
    double stamp_size;     /* longer side of the stamp's visible box, fraction of min(width, height) (DROP_STAMP_SIZE_MIN to 1) */
    v2 at;                 /* start centre of the visible box, canvas fractions (within DROP_AT_MAX either way) */
    v2 velocity;           /* start velocity, canvas widths and heights per second (within DROP_VELOCITY_MAX either way) */
    double spin;           /* start spin, degrees per second clockwise on screen (within DROP_SPIN_MAX either way) */
    double tilt;           /* start rotation, degrees clockwise on screen (within DROP_TILT_MAX either way) */
    double gravity;        /* downward acceleration, canvas heights per second squared (within DROP_GRAVITY_MAX either way) */
    double restitution;    /* bounciness: share of the normal speed a node keeps in a bounce, and roughly
                              of the landing speed the body rebounds with (0 to 1) */
    double friction;       /* Coulomb coefficient: sliding lost per unit of motion into a surface (0 to DROP_FRICTION_MAX) */
    int grid;              /* lattice nodes along the longer side (LATTICE_GRID_MIN to _MAX) */
    softbody_def body;     /* wobble, calibrated as if standing on the bottom edge; the anchor is ignored */
    double fps;            /* frames per second (ANIM_FPS_MIN to _MAX) */
    double duration;       /* seconds of the clip (ANIM_DURATION_MIN to _MAX); 0 = until the body rests or leaves */
    double max_duration;   /* seconds the clip may run while waiting for rest (0.1 to 60) */
    double hold;           /* seconds the resting frame is shown before the clip restarts (0 to DROP_HOLD_MAX) */
    int loop;              /* plays (0 = forever), passed to the encoders (0 to ANIM_LOOP_MAX) */
    int threads;           /* threads drawing frames (1 to 8) */
    int draw_scene;        /* 1: paint the scene's solid regions under the stamp */
    unsigned char scene_rgb[3]; /* colour of the solid regions */
} drop_def;

/* The defaults, the only place they live. */
drop_def drop_default_def(void);
/* Checks every field (and the body's); names the first one out of range. */
poyo_status drop_check_def(const drop_def *def, poyo_error *err);

/* The simulated clip: node positions of every frame. */
typedef struct drop_motion {
    lattice lat;           /* owned */
    placement place;       /* where the rest image sits on the canvas; maps image pixels to canvas pixels */
    int n;                 /* nodes */
    int count;             /* frames; frame 0 is the start position */
    double *x, *y;         /* count * n, image pixels; frame f starts at f * n */
    int settled;           /* 1 when the clip ended because the body came to rest */
    int left;              /* 1 when the clip ended because the body left the canvas */
    int steps;             /* solver steps per frame */
} drop_motion;

/* Simulates src dropped into scene (pixels of def's canvas, e.g. from scene_parse); checks
 * def first. *out is filled and owned by the caller (drop_motion_free); zeroed on failure. */
poyo_status drop_simulate(const image *src, const sdf_scene *scene, const drop_def *def, drop_motion *out,
                          poyo_error *err);
/* Frees a motion; safe on a zeroed one. */
void drop_motion_free(drop_motion *m);
/* Canvas position (pixels) of node k of frame f. */
v2 drop_node_canvas(const drop_motion *m, int f, int k);
/* Draws the frames over the scene (when def->draw_scene) into *out (caller frees with anim_free);
 * the resting frame is held def->hold seconds. */
poyo_status drop_render(const image *src, const sdf_scene *scene, const drop_motion *m, const drop_def *def,
                        anim *out, poyo_error *err);
/* Paints the solid regions of scene (distance < 0) in rgb with an anti-aliased edge, and
 * shapes of no width as one-pixel lines, over a transparent w x h RGBA buffer (caller-owned,
 * w*h*4 bytes, straight alpha). */
void drop_paint_scene(const sdf_scene *scene, const unsigned char rgb[3], uint8_t *rgba, int w, int h);

#endif
